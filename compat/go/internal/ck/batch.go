package ck

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Batch encodes an uncompressed v2 record batch of n records with null
// keys and values "raw-<seq>-<i>" (producer id, epoch and sequence as
// given, -1 for none), transactional if asked.
func Batch(pid int64, epoch int16, seq int32, n int, ts int64, transactional bool) []byte {
	var recs []byte
	for i := 0; i < n; i++ {
		var body []byte
		body = append(body, 0)                     // attributes
		body = binary.AppendVarint(body, int64(i)) // timestamp delta
		body = binary.AppendVarint(body, int64(i)) // offset delta
		body = binary.AppendVarint(body, -1)       // null key
		v := []byte(fmt.Sprintf("raw-%d-%d", seq, i))
		body = binary.AppendVarint(body, int64(len(v)))
		body = append(body, v...)
		body = binary.AppendVarint(body, 0) // no headers
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	var attrs uint16
	if transactional {
		attrs |= 0x10
	}
	b := make([]byte, 0, 61+len(recs))
	b = binary.BigEndian.AppendUint64(b, 0) // base offset
	b = binary.BigEndian.AppendUint32(b, 0) // length, below
	b = binary.BigEndian.AppendUint32(b, 0) // partition leader epoch
	b = append(b, 2)                        // magic
	b = binary.BigEndian.AppendUint32(b, 0) // crc, below
	b = binary.BigEndian.AppendUint16(b, attrs)
	b = binary.BigEndian.AppendUint32(b, uint32(n-1))
	b = binary.BigEndian.AppendUint64(b, uint64(ts))
	b = binary.BigEndian.AppendUint64(b, uint64(ts+int64(n-1)))
	b = binary.BigEndian.AppendUint64(b, uint64(pid))
	b = binary.BigEndian.AppendUint16(b, uint16(epoch))
	b = binary.BigEndian.AppendUint32(b, uint32(seq))
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = append(b, recs...)
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// ErrName is Kafka's name for an error code (those these checks meet).
func ErrName(code int16) string {
	if n, ok := errNames[code]; ok {
		return n
	}
	return fmt.Sprintf("error code %d", code)
}

var errNames = map[int16]string{
	0: "NONE", 1: "OFFSET_OUT_OF_RANGE", 2: "CORRUPT_MESSAGE", 3: "UNKNOWN_TOPIC_OR_PARTITION",
	5: "LEADER_NOT_AVAILABLE", 6: "NOT_LEADER_OR_FOLLOWER", 7: "REQUEST_TIMED_OUT", 14: "COORDINATOR_LOAD_IN_PROGRESS",
	10: "MESSAGE_TOO_LARGE", 15: "COORDINATOR_NOT_AVAILABLE", 16: "NOT_COORDINATOR", 17: "INVALID_TOPIC_EXCEPTION",
	22: "ILLEGAL_GENERATION", 25: "UNKNOWN_MEMBER_ID", 27: "REBALANCE_IN_PROGRESS", 36: "TOPIC_ALREADY_EXISTS",
	37: "INVALID_PARTITIONS", 38: "INVALID_REPLICATION_FACTOR", 40: "INVALID_CONFIG", 42: "INVALID_REQUEST",
	45: "OUT_OF_ORDER_SEQUENCE_NUMBER", 46: "DUPLICATE_SEQUENCE_NUMBER", 47: "INVALID_PRODUCER_EPOCH",
	48: "INVALID_TXN_STATE", 49: "INVALID_PRODUCER_ID_MAPPING", 51: "CONCURRENT_TRANSACTIONS",
	53: "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", 59: "UNKNOWN_PRODUCER_ID", 68: "NON_EMPTY_GROUP",
	69: "GROUP_ID_NOT_FOUND", 84: "ELECTION_NOT_NEEDED", 86: "GROUP_SUBSCRIBED_TO_TOPIC",
	90: "PRODUCER_FENCED", 100: "UNKNOWN_TOPIC_ID",
}
