package main

import (
	"fmt"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/compress"
)

var codecs = []struct {
	name  string
	codec kafka.Compression
	attr  compress.Compression
}{
	{"none", 0, 0}, {"gzip", kafka.Gzip, compress.Gzip}, {"snappy", kafka.Snappy, compress.Snappy},
	{"lz4", kafka.Lz4, compress.Lz4}, {"zstd", kafka.Zstd, compress.Zstd},
}

// messages: null, empty and repeated keys, null and empty values, no,
// one, repeated and empty headers, CreateTime timestamps base+i ms.
func messages(tag string, n int, base time.Time) []kafka.Message {
	var ms []kafka.Message
	for i := 0; i < n; i++ {
		m := kafka.Message{Time: base.Add(time.Duration(i) * time.Millisecond)}
		switch i % 10 {
		case 0:
		case 1:
			m.Key = []byte{}
		default:
			m.Key = []byte(fmt.Sprintf("key-%d", i%37))
		}
		switch i % 25 {
		case 3:
		case 4:
			m.Value = []byte{}
		default:
			m.Value = ck.Value(tag, i, 20+i%300)
		}
		switch i % 4 {
		case 1:
			m.Headers = []kafka.Header{{Key: "n", Value: []byte(fmt.Sprint(i))}}
		case 2:
			m.Headers = []kafka.Header{{Key: "dup", Value: []byte("a")}, {Key: "dup", Value: []byte("b")}, {Key: "empty", Value: []byte{}}}
		case 3:
			m.Headers = []kafka.Header{{Key: "unicode-é", Value: []byte("\x00\xff")}}
		}
		ms = append(ms, m)
	}
	return ms
}

func data() {
	c := client()
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	ck.Notef("the Writer has no idempotent producer: idempotence is checked by Client requests (InitProducerID, RawProduce)")

	ck.Stage("every codec: keys, values, headers, CreateTime, partitions, offsets")
	const n = 300
	for _, cd := range codecs {
		topic := "kg-" + cd.name
		createTopic(c, topic, 3, nil)
		done, err := write(&kafka.Writer{Topic: topic, Balancer: &kafka.Murmur2Balancer{}, Compression: cd.codec,
			BatchSize: 100}, messages(cd.name, n, base))
		ck.Must(err, "write to "+topic)
		ck.Check(len(done) == n, "%s: %d messages completed", topic, len(done))
		var want, gotRecs []ck.Rec
		for _, m := range done {
			want = append(want, toRec(m))
		}
		got := readPartitions(topic, 3, n, kafka.ReadUncommitted)
		for _, m := range got {
			if len(m.Key) > 0 {
				p := ck.KeyPartition(m.Key, 3)
				ck.Check(int32(m.Partition) == p, "%s: key %q on partition %d, murmur2 says %d", topic, m.Key, m.Partition, p)
			}
			gotRecs = append(gotRecs, toRec(m))
		}
		// the Reader cannot tell null from empty: compare its view with
		// nulls made empty, and null-ness through Client.Fetch below
		for i := range want {
			if want[i].Key == nil {
				want[i].Key = []byte{}
			}
			if want[i].Value == nil {
				want[i].Value = []byte{}
			}
		}
		for i := range gotRecs {
			if gotRecs[i].Key == nil {
				gotRecs[i].Key = []byte{}
			}
			if gotRecs[i].Value == nil {
				gotRecs[i].Value = []byte{}
			}
		}
		ck.CompareAll(topic, want, gotRecs)
		next := ck.Dense(topic, gotRecs, map[int32]int64{0: 0, 1: 0, 2: 0})
		// batches as stored: the codec kept, no producer id, and null keys
		// and values where they were sent null
		nulls := map[[2]int64][2]bool{}
		for _, m := range done {
			nulls[[2]int64{int64(m.Partition), m.Offset}] = [2]bool{m.Key == nil, m.Value == nil}
		}
		var fetched int
		for p := 0; p < 3; p++ {
			bs, r := fetchBatches(c, topic, p, kafka.ReadUncommitted)
			ck.Check(r.HighWatermark == next[int32(p)], "%s[%d]: high watermark %d, consumed to %d", topic, p, r.HighWatermark, next[int32(p)])
			for _, b := range bs {
				ck.Check(b.attrs.Compression() == cd.attr && !b.attrs.Transactional() && !b.control && b.pid == -1,
					"%s[%d]@%d: batch attributes %v pid %d, want %s, no producer", topic, p, b.base, b.attrs, b.pid, cd.name)
				for i, o := range b.offsets {
					nn := nulls[[2]int64{int64(p), o}]
					ck.Check((b.keys[i] == nil) == nn[0] && (b.values[i] == nil) == nn[1],
						"%s[%d]@%d: null key %v value %v, sent %v %v", topic, p, o, b.keys[i] == nil, b.values[i] == nil, nn[0], nn[1])
					fetched++
				}
			}
		}
		ck.Check(fetched == n, "%s: Client.Fetch returned %d records", topic, fetched)
		ck.Okf("%s: %d messages back with key, value, headers, time, partition, offset; batches %s; nulls kept", topic, n, cd.name)
		if cd.name == "none" {
			offsetsByTime(c, topic, want, base)
		}
	}
	logAppendTime(c)
	bigMessages(c)
	idempotence(c)
	unknownTopic(c)
}

func offsetsByTime(c *kafka.Client, topic string, want []ck.Rec, base time.Time) {
	ck.Stage("offsets by time")
	for _, at := range []int64{0, 1, 150, 299, 10000} {
		ms := base.UnixMilli() + at
		var reqs []kafka.OffsetRequest
		for p := 0; p < 3; p++ {
			reqs = append(reqs, kafka.TimeOffsetOf(p, time.UnixMilli(ms)))
		}
		r, err := c.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: reqs}})
		ck.Must(err, "ListOffsets")
		ck.Check(len(r.Topics[topic]) == 3, "ListOffsets: %d partitions", len(r.Topics[topic]))
		for _, po := range r.Topics[topic] {
			ck.Must(po.Error, "ListOffsets")
			exp := int64(-1)
			for _, w := range want {
				if int(w.Partition) == po.Partition && w.Timestamp.UnixMilli() >= ms && (exp < 0 || w.Offset < exp) {
					exp = w.Offset
				}
			}
			// kafka-go files each answer under the timestamp asked for,
			// not the record's; past the last record Kafka answers -1
			_, ok := po.Offsets[exp]
			ck.Check(ok && len(po.Offsets) == 1, "%s[%d] at base+%d: %v, want offset %d", topic, po.Partition, at, po.Offsets, exp)
		}
	}
	ck.Notef("Client.ListOffsets reports the timestamp it asked for, not the found record's (its Merge overrides it)")
	ck.Okf("offsets by time: Client.ListOffsets, offset -1 past the last timestamp")
}

func logAppendTime(c *kafka.Client) {
	ck.Stage("LogAppendTime topic")
	topic := "kg-logappend"
	createTopic(c, topic, 1, map[string]string{"message.timestamp.type": "LogAppendTime"})
	before := time.Now().Add(-time.Second)
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := messages("lat", 40, old)
	done, err := write(&kafka.Writer{Topic: topic, Compression: kafka.Lz4}, ms)
	ck.Must(err, "write")
	// zero times: the Writer fills in the produce response's log_append_time
	zs := []kafka.Message{{Value: []byte("z1")}, {Value: []byte("z2")}}
	zdone, err := write(&kafka.Writer{Topic: topic}, zs)
	ck.Must(err, "write")
	after := time.Now().Add(time.Second)
	for _, m := range zdone {
		ck.Check(!m.Time.Before(before) && !m.Time.After(after), "log_append_time in the produce response: %v", m.Time)
	}
	bs, _ := fetchBatches(c, topic, 0, kafka.ReadUncommitted)
	var n int
	for _, b := range bs {
		ck.Check(int16(b.attrs)&0x08 != 0, "%s@%d: batch attributes %v lack LogAppendTime", topic, b.base, b.attrs)
		for i, o := range b.offsets {
			if o < 40 {
				// Kafka sets the batch's max timestamp and type and keeps
				// the records' own: kafka-go reads those
				ck.Check(b.times[i].Equal(done[o].Time), "%s@%d: record time %v, sent %v", topic, o, b.times[i], done[o].Time)
			}
			n++
		}
	}
	ck.Check(n == 42, "%s: %d records", topic, n)
	ck.Notef("kafka-go ignores the LogAppendTime attribute: its messages carry the records' own times, kept as sent")
	ck.Okf("%s: batches marked LogAppendTime, the produce response's log_append_time, records' own times kept", topic)
}

func bigMessages(c *kafka.Client) {
	ck.Stage("1 MB messages, message too large")
	topic := "kg-big"
	createTopic(c, topic, 1, nil)
	var ms []kafka.Message
	for i := 0; i < 4; i++ {
		ms = append(ms, kafka.Message{Key: []byte(fmt.Sprint(i)), Value: ck.Value("big", i, 1000000-i*1000), Time: time.UnixMilli(int64(i + 1))})
	}
	done, err := write(&kafka.Writer{Topic: topic, BatchBytes: 1048588}, ms)
	ck.Must(err, "write 1 MB messages")
	var want, gotRecs []ck.Rec
	for _, m := range done {
		want = append(want, toRec(m))
	}
	for _, m := range readPartitions(topic, 1, 4, kafka.ReadUncommitted) {
		gotRecs = append(gotRecs, toRec(m))
	}
	ck.CompareAll(topic, want, gotRecs)
	ck.Okf("%s: four ~1 MB messages back whole", topic)

	_, err = write(&kafka.Writer{Topic: topic, BatchBytes: 4 << 20, MaxAttempts: 1}, []kafka.Message{{Value: make([]byte, 1100000)}})
	expectErr("a 1.1 MB message", err, kafka.MessageSizeTooLarge)
	small := "kg-small"
	createTopic(c, small, 1, map[string]string{"max.message.bytes": "2000"})
	_, err = write(&kafka.Writer{Topic: small, MaxAttempts: 1}, []kafka.Message{{Value: make([]byte, 3000)}})
	expectErr("3000 bytes to max.message.bytes=2000", err, kafka.MessageSizeTooLarge)
	ck.Check(endOffset(c, topic, 0) == 4, "%s: end offset after the refused message", topic)
}

func idempotence(c *kafka.Client) {
	ck.Stage("idempotence by Client requests")
	topic := "kg-idem"
	createTopic(c, topic, 1, nil)
	var ip *kafka.InitProducerIDResponse
	var err error
	waitFor("a producer id", 10*time.Second, func() bool {
		ip, err = c.InitProducerID(ctx, &kafka.InitProducerIDRequest{TransactionTimeoutMs: 60000, ProducerID: -1, ProducerEpoch: -1})
		ck.Must(err, "InitProducerID")
		return !coordinatorLoading(ip.Error)
	})
	ck.Must(ip.Error, "InitProducerID")
	pid, ep := int64(ip.Producer.ProducerID), int16(ip.Producer.ProducerEpoch)
	ts := time.Now().UnixMilli()
	b0 := ck.Batch(pid, ep, 0, 3, ts, false)
	r, err := rawProduce(c, topic, 0, "", b0)
	ck.Must(err, "RawProduce")
	ck.Must(r.Error, "seq 0")
	ck.Check(r.BaseOffset == 0, "first batch at %d", r.BaseOffset)
	r, err = rawProduce(c, topic, 0, "", b0)
	ck.Must(err, "RawProduce")
	ck.Must(r.Error, "seq 0 again")
	ck.Check(r.BaseOffset == 0, "the duplicate answered offset %d, Kafka answers the first's 0", r.BaseOffset)
	r, err = rawProduce(c, topic, 0, "", ck.Batch(pid, ep, 5, 1, ts, false))
	ck.Must(err, "RawProduce")
	expectErr("seq 5 after 0..2 (gap)", r.Error, kafka.OutOfOrderSequenceNumber)
	r, err = rawProduce(c, topic, 0, "", ck.Batch(pid, ep, 3, 2, ts, false))
	ck.Must(err, "RawProduce")
	ck.Must(r.Error, "seq 3")
	ck.Check(r.BaseOffset == 3, "seq 3 at %d", r.BaseOffset)
	bs, _ := fetchBatches(c, topic, 0, kafka.ReadUncommitted)
	ck.Check(len(bs) == 2 && bs[0].pid == pid && bs[0].seq == 0 && bs[1].seq == 3 && bs[1].base == 3 && bs[1].lastOffs == 4,
		"%s: batches %+v", topic, bs)
	ck.Okf("idempotence: a duplicate answered with its first offset, a gap refused, batches stored with producer %d", pid)
}

func unknownTopic(c *kafka.Client) {
	ck.Stage("unknown topic, auto-creation off")
	topic := "kg-no-such-topic"
	_, err := write(&kafka.Writer{Topic: topic, MaxAttempts: 2}, []kafka.Message{{Value: []byte("x")}})
	expectErr("write to a missing topic", err, kafka.UnknownTopicOrPartition)
	md, err := c.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{topic}})
	ck.Must(err, "Metadata")
	ck.Check(len(md.Topics) == 1, "metadata: %d topics", len(md.Topics))
	expectErr("metadata for a missing topic", md.Topics[0].Error, kafka.UnknownTopicOrPartition)
	_, err = c.Fetch(ctx, &kafka.FetchRequest{Topic: topic, Partition: 0, MaxBytes: 1 << 20})
	if err == nil {
		ck.Fatalf("fetch from a missing topic: no error")
	}
	ck.Notef("fetch from a missing topic: %v", err)
	md, err = c.Metadata(ctx, &kafka.MetadataRequest{})
	ck.Must(err, "Metadata")
	for _, t := range md.Topics {
		ck.Check(t.Name != topic, "%s was created", topic)
	}
	ck.Okf("%s was not created", topic)
}
