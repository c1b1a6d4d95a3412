// kafkago: segmentio/kafka-go against a running gregor at $GR_BOOTSTRAP:
// its Writer and Reader, and its Client's requests (versions negotiated by
// ApiVersions). Subcommands: data, group, txn, admin.
package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
)

var ctx = context.Background()

func client() *kafka.Client {
	return &kafka.Client{Addr: kafka.TCP(ck.Bootstrap()), Timeout: 15 * time.Second}
}

// errName is the Kafka name of a kafka.Error in err's chain.
func errName(err error) string {
	var ke kafka.Error
	if errors.As(err, &ke) {
		return ck.ErrName(int16(ke))
	}
	if err == nil {
		return "NONE"
	}
	return err.Error()
}

// expectErr: an error by name, as Kafka answers; a difference is
// reported and the run goes on
func expectErr(what string, err error, want kafka.Error) {
	var we kafka.WriteErrors // a Writer's: one per message
	if errors.As(err, &we) && len(we) > 0 {
		for _, e := range we[1:] {
			if !errors.Is(e, want) {
				ck.Errorf("%s: want %s, got %v", what, ck.ErrName(int16(want)), e)
				return
			}
		}
		err = we[0]
	}
	if !errors.Is(err, want) {
		ck.Errorf("%s: want %s, got %v", what, ck.ErrName(int16(want)), err)
		return
	}
	ck.Okf("%s: %s", what, ck.ErrName(int16(want)))
}

func main() {
	ck.Prefix = "kafka-go"
	if len(os.Args) < 2 {
		ck.Fatalf("usage: kafkago data|group|txn|admin")
	}
	ck.Watchdog(90 * time.Second)
	switch os.Args[1] {
	case "data":
		data()
	case "group":
		group()
	case "txn":
		txn()
	case "admin":
		adminCmd()
	default:
		ck.Fatalf("unknown subcommand %s", os.Args[1])
	}
	ck.Done(os.Args[1])
}

func createTopic(c *kafka.Client, name string, parts int, configs map[string]string) {
	tc := kafka.TopicConfig{Topic: name, NumPartitions: parts, ReplicationFactor: 1}
	for k, v := range configs {
		tc.ConfigEntries = append(tc.ConfigEntries, kafka.ConfigEntry{ConfigName: k, ConfigValue: v})
	}
	r, err := c.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{tc}})
	ck.Must(err, "CreateTopics "+name)
	ck.Must(r.Errors[name], "create "+name)
}

func toRec(m kafka.Message) ck.Rec {
	var hs []ck.Header
	for _, h := range m.Headers {
		hs = append(hs, ck.Header{Key: h.Key, Value: string(h.Value)})
	}
	return ck.Rec{Topic: m.Topic, Partition: int32(m.Partition), Offset: m.Offset, Key: m.Key, Value: m.Value,
		Headers: hs, Timestamp: m.Time}
}

// write sends msgs through a Writer and returns them as the broker placed
// them (partition, offset: the Writer's Completion).
func write(w *kafka.Writer, msgs []kafka.Message) ([]kafka.Message, error) {
	var done []kafka.Message
	var mu sync.Mutex
	w.Completion = func(ms []kafka.Message, err error) { // from each partition's writer
		if err == nil {
			mu.Lock()
			done = append(done, ms...)
			mu.Unlock()
		}
	}
	if w.Addr == nil {
		w.Addr = kafka.TCP(ck.Bootstrap())
	}
	if w.BatchTimeout == 0 {
		w.BatchTimeout = 5 * time.Millisecond
	}
	w.RequiredAcks = kafka.RequireAll
	w.WriteBackoffMin, w.WriteBackoffMax = 20*time.Millisecond, 100*time.Millisecond
	err := w.WriteMessages(ctx, msgs...)
	ck.Must(w.Close(), "close writer")
	return done, err
}

// readPartitions reads n messages in all from the partitions of topic
// with Readers (one per partition, from the first offset), then checks
// nothing more comes; n < 0: whatever comes until a second passes idle.
func readPartitions(topic string, parts int, n int, iso kafka.IsolationLevel) []kafka.Message {
	out := make(chan kafka.Message, 1024)
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	var rs []*kafka.Reader
	for p := 0; p < parts; p++ {
		r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{ck.Bootstrap()}, Topic: topic, Partition: p,
			MinBytes: 1, MaxBytes: 10 << 20, MaxWait: 200 * time.Millisecond, IsolationLevel: iso,
			ReadBackoffMin: 20 * time.Millisecond, ReadBackoffMax: 100 * time.Millisecond})
		ck.Must(r.SetOffset(kafka.FirstOffset), "SetOffset")
		rs = append(rs, r)
		go func() {
			for {
				m, err := r.ReadMessage(c)
				if err != nil {
					if c.Err() == nil {
						ck.Fatalf("read %s[%d]: %v", topic, p, err)
					}
					return
				}
				out <- m
			}
		}()
	}
	var got []kafka.Message
	deadline := time.After(30 * time.Second)
	if n < 0 { // whatever comes until it stops
		for {
			select {
			case m := <-out:
				got = append(got, m)
				continue
			case <-time.After(time.Second):
			}
			break
		}
		n = len(got)
	}
	for len(got) < n {
		select {
		case m := <-out:
			got = append(got, m)
		case <-deadline:
			ck.Fatalf("%s: %d of %d messages in 30 s", topic, len(got), n)
		}
	}
	select {
	case m := <-out:
		ck.Fatalf("%s: a message past the %d expected: %s", topic, n, toRec(m))
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	for _, r := range rs {
		r.Close()
	}
	sort.Slice(got, func(i, j int) bool {
		if got[i].Partition != got[j].Partition {
			return got[i].Partition < got[j].Partition
		}
		return got[i].Offset < got[j].Offset
	})
	return got
}

// batchInfo is one batch as Client.Fetch returns it.
type batchInfo struct {
	base     int64
	attrs    protocol.Attributes
	pid      int64
	epoch    int16
	seq      int32
	control  bool
	commit   bool    // a control batch's marker type
	offsets  []int64 // the Records reader reuses its *Record: copied out
	times    []time.Time
	keys     [][]byte // nil for a null key
	values   [][]byte
	lastOffs int64
}

func readBytes(b protocol.Bytes) []byte {
	if b == nil {
		return nil
	}
	v, err := io.ReadAll(b)
	ck.Must(err, "read bytes")
	if v == nil {
		v = []byte{}
	}
	return v
}

// fetchBatches fetches topic[p] from offset 0 to the end (high watermark,
// or the last stable offset read_committed), batch by batch.
func fetchBatches(c *kafka.Client, topic string, p int, iso kafka.IsolationLevel) ([]batchInfo, *kafka.FetchResponse) {
	var out []batchInfo
	var off int64
	for tries := 0; tries < 200; tries++ {
		r, err := c.Fetch(ctx, &kafka.FetchRequest{Topic: topic, Partition: p, Offset: off, MinBytes: 1,
			MaxBytes: 10 << 20, MaxWait: 100 * time.Millisecond, IsolationLevel: iso})
		ck.Must(err, "Fetch")
		ck.Must(r.Error, "Fetch "+topic)
		end := r.HighWatermark
		if iso == kafka.ReadCommitted {
			end = r.LastStableOffset
		}
		var readers []protocol.RecordReader
		switch rs := r.Records.(type) {
		case *protocol.RecordStream:
			readers = rs.Records
		default:
			readers = []protocol.RecordReader{rs}
		}
		for _, rr := range readers {
			var b batchInfo
			switch x := rr.(type) {
			case *protocol.RecordBatch:
				b = batchInfo{base: x.BaseOffset, attrs: x.Attributes, pid: x.ProducerID, epoch: x.ProducerEpoch, seq: x.BaseSequence}
			case *protocol.ControlBatch:
				b = batchInfo{base: x.BaseOffset, attrs: x.Attributes, pid: x.ProducerID, epoch: x.ProducerEpoch, control: true}
			default:
				continue
			}
			for {
				rec, err := rr.ReadRecord()
				if err != nil {
					break
				}
				k, v := readBytes(rec.Key), readBytes(rec.Value)
				if b.control && len(k) >= 4 {
					b.commit = k[3] == 1
				}
				b.offsets = append(b.offsets, rec.Offset)
				b.times = append(b.times, rec.Time)
				b.keys = append(b.keys, k)
				b.values = append(b.values, v)
				b.lastOffs = rec.Offset
			}
			if len(b.offsets) > 0 && b.lastOffs >= off {
				out = append(out, b)
				off = b.lastOffs + 1
			}
		}
		if off >= end {
			return out, r
		}
	}
	ck.Fatalf("%s[%d]: fetch did not reach the end", topic, p)
	return nil, nil
}

func waitFor(what string, bound time.Duration, cond func() bool) {
	end := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(end) {
			ck.Fatalf("waited %v for %s", bound, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rawProduce sends one pre-encoded batch (a RawRecordSet is the records
// field as it goes on the wire: its int32 size first).
// A partition not yet led (just created) is retried, as clients do.
func rawProduce(c *kafka.Client, topic string, p int, txnID string, b []byte) (*kafka.ProduceResponse, error) {
	set := binary.BigEndian.AppendUint32(nil, uint32(len(b)))
	for i := 0; ; i++ {
		r, err := c.RawProduce(ctx, &kafka.RawProduceRequest{Topic: topic, Partition: p, RequiredAcks: kafka.RequireAll,
			TransactionalID: txnID, RawRecords: protocol.RawRecordSet{Reader: bytes.NewReader(append(set, b...))}})
		if i < 100 && err == nil && (errors.Is(r.Error, kafka.NotLeaderForPartition) || errors.Is(r.Error, kafka.LeaderNotAvailable)) {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		return r, err
	}
}

func endOffset(c *kafka.Client, topic string, p int) int64 {
	r, err := c.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{
		topic: {kafka.LastOffsetOf(p)}}})
	ck.Must(err, "ListOffsets")
	po := r.Topics[topic][0]
	ck.Must(po.Error, "ListOffsets")
	return po.LastOffset
}

func str(s string) *string { return &s }

// coordinatorLoading: the transient answers of a coordinator Kafka is
// still creating or loading (right after start); clients retry them.
func coordinatorLoading(err error) bool {
	return errors.Is(err, kafka.NotCoordinatorForGroup) || errors.Is(err, kafka.GroupLoadInProgress) ||
		errors.Is(err, kafka.GroupCoordinatorNotAvailable)
}
