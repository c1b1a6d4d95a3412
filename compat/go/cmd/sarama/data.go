package main

import (
	"fmt"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/IBM/sarama"
)

var codecs = []struct {
	name  string
	codec sarama.CompressionCodec
}{
	{"none", sarama.CompressionNone}, {"gzip", sarama.CompressionGZIP}, {"snappy", sarama.CompressionSnappy},
	{"lz4", sarama.CompressionLZ4}, {"zstd", sarama.CompressionZSTD},
}

// messages: null, empty and repeated keys, null and empty values, no,
// one, repeated and empty headers, CreateTime timestamps base+i ms.
func messages(topic, tag string, n int, base time.Time) []*sarama.ProducerMessage {
	var ms []*sarama.ProducerMessage
	for i := 0; i < n; i++ {
		m := &sarama.ProducerMessage{Topic: topic, Timestamp: base.Add(time.Duration(i) * time.Millisecond)}
		switch i % 10 {
		case 0:
		case 1:
			m.Key = sarama.ByteEncoder([]byte{})
		default:
			m.Key = sarama.StringEncoder(fmt.Sprintf("key-%d", i%37))
		}
		switch i % 25 {
		case 3:
		case 4:
			m.Value = sarama.ByteEncoder([]byte{})
		default:
			m.Value = sarama.ByteEncoder(ck.Value(tag, i, 20+i%300))
		}
		switch i % 4 {
		case 1:
			m.Headers = []sarama.RecordHeader{{Key: []byte("n"), Value: []byte(fmt.Sprint(i))}}
		case 2:
			m.Headers = []sarama.RecordHeader{{Key: []byte("dup"), Value: []byte("a")}, {Key: []byte("dup"), Value: []byte("b")},
				{Key: []byte("empty"), Value: []byte{}}}
		case 3:
			m.Headers = []sarama.RecordHeader{{Key: []byte("unicode-é"), Value: []byte("\x00\xff")}}
		}
		ms = append(ms, m)
	}
	return ms
}

func idempotent(c *sarama.Config) *sarama.Config {
	c.Producer.Idempotent = true
	c.Net.MaxOpenRequests = 1
	c.Producer.Retry.Max = 5
	return c
}

func data() {
	adm, cl := newAdmin()
	defer adm.Close()
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)

	ck.Stage("every codec, idempotent: keys, values, headers, CreateTime, partitions, offsets")
	const n = 300
	for _, c := range codecs {
		topic := "sa-" + c.name
		createTopic(adm, topic, 3, nil)
		pc := idempotent(config())
		pc.Producer.Compression = c.codec
		pc.Producer.Flush.Frequency = 5 * time.Millisecond
		p := syncProducer(pc)
		ms := messages(topic, c.name, n, base)
		ck.Must(p.SendMessages(ms), "send to "+topic)
		ck.Must(p.Close(), "close producer")
		var want []ck.Rec
		for _, m := range ms {
			want = append(want, sentRec(m))
		}
		got := readPartitions(nil, topic, 3, nil, n)
		var gotRecs []ck.Rec
		for _, m := range got {
			if m.Key != nil {
				pp := ck.KeyPartition(m.Key, 3)
				ck.Check(m.Partition == pp, "%s: key %q on partition %d, murmur2 says %d", topic, m.Key, m.Partition, pp)
			}
			gotRecs = append(gotRecs, toRec(m))
		}
		ck.CompareAll(topic, want, gotRecs)
		next := ck.Dense(topic, gotRecs, map[int32]int64{0: 0, 1: 0, 2: 0})
		for pt := int32(0); pt < 3; pt++ {
			hwm, err := cl.GetOffset(topic, pt, sarama.OffsetNewest)
			ck.Must(err, "GetOffset newest")
			ck.Check(hwm == next[pt], "%s[%d]: newest offset %d, consumed to %d", topic, pt, hwm, next[pt])
		}
		// the stored batches (Broker.Fetch): the codec kept, the
		// idempotent producer's id, its sequences in order
		pid := int64(-2)
		for pt := int32(0); pt < 3; pt++ {
			seq := int32(0)
			for _, b := range fetchBatches(cl, topic, pt) {
				if pid == -2 {
					pid = b.ProducerID
				}
				ck.Check(b.Codec == c.codec && !b.IsTransactional && !b.Control && !b.LogAppendTime,
					"%s[%d]@%d: batch codec %v transactional %v control %v, want %s", topic, pt, b.FirstOffset, b.Codec, b.IsTransactional, b.Control, c.name)
				ck.Check(b.ProducerID >= 0 && b.ProducerID == pid && b.ProducerEpoch == 0 && b.FirstSequence == seq,
					"%s[%d]@%d: producer %d/%d sequence %d, want %d/0 sequence %d", topic, pt, b.FirstOffset, b.ProducerID, b.ProducerEpoch, b.FirstSequence, pid, seq)
				seq += b.LastOffsetDelta + 1
			}
		}
		ck.Okf("%s: %d messages back with key, value, headers, timestamp, partition, offset; batches %s from idempotent producer %d",
			topic, n, c.name, pid)
		if c.name == "none" {
			offsetsByTime(adm, cl, topic, want, base)
		}
	}
	logAppendTime(adm, cl)
	bigMessages(adm, cl)
	unknownTopic(cl)
}

func offsetsByTime(adm sarama.ClusterAdmin, cl sarama.Client, topic string, want []ck.Rec, base time.Time) {
	ck.Stage("offsets by time")
	for _, at := range []int64{0, 1, 150, 299, 10000} {
		ms := base.UnixMilli() + at
		q := map[string]map[int32]int64{topic: {0: ms, 1: ms, 2: ms}}
		res, err := adm.ListOffsets(q, nil)
		ck.Must(err, "ListOffsets")
		for p := int32(0); p < 3; p++ {
			exp, expTs := int64(-1), int64(-1)
			for _, r := range want {
				if r.Partition == p && r.Timestamp.UnixMilli() >= ms && (exp < 0 || r.Offset < exp) {
					exp, expTs = r.Offset, r.Timestamp.UnixMilli()
				}
			}
			r := res[topic][p]
			mustK(r.Err, "ListOffsets")
			ck.Check(r.Offset == exp && r.Timestamp == expTs, "%s[%d] at base+%d: offset %d ts %d, want %d %d (-1 -1 past the end)",
				topic, p, at, r.Offset, r.Timestamp, exp, expTs)
			o, err := cl.GetOffset(topic, p, ms)
			ck.Must(err, "GetOffset")
			ck.Check(o == exp, "GetOffset %s[%d] at base+%d: %d, want %d", topic, p, at, o, exp)
		}
	}
	ck.Okf("offsets by time: ClusterAdmin.ListOffsets and Client.GetOffset, -1 past the last timestamp")
}

func logAppendTime(adm sarama.ClusterAdmin, cl sarama.Client) {
	ck.Stage("LogAppendTime topic")
	topic := "sa-logappend"
	createTopic(adm, topic, 1, map[string]*string{"message.timestamp.type": str("LogAppendTime")})
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	before := time.Now().Add(-time.Second)
	p := syncProducer(config())
	ms := messages(topic, "lat", 40, old)
	ck.Must(p.SendMessages(ms), "send")
	p.Close()
	after := time.Now().Add(time.Second)
	var want, gotRecs []ck.Rec
	got := readPartitions(nil, topic, 1, nil, 40)
	for _, m := range ms {
		want = append(want, sentRec(m))
	}
	for i, m := range got {
		ck.Check(!m.Timestamp.Before(before) && !m.Timestamp.After(after), "%s@%d: timestamp %v, not the append time", topic, m.Offset, m.Timestamp)
		gotRecs = append(gotRecs, toRec(m))
		want[i].Timestamp = m.Timestamp
	}
	ck.CompareAll(topic, want, gotRecs)
	bs := fetchBatches(cl, topic, 0)
	ck.Check(len(bs) > 0, "no batches")
	for _, b := range bs {
		ck.Check(b.LogAppendTime && !b.MaxTimestamp.Before(before) && !b.MaxTimestamp.After(after),
			"%s@%d: LogAppendTime %v max timestamp %v", topic, b.FirstOffset, b.LogAppendTime, b.MaxTimestamp)
	}
	ck.Okf("%s: 40 messages sent with 2001 timestamps read back with the append time; batches LogAppendTime", topic)
}

func bigMessages(adm sarama.ClusterAdmin, cl sarama.Client) {
	ck.Stage("1 MB messages, message too large")
	topic := "sa-big"
	createTopic(adm, topic, 1, nil)
	c := config()
	c.Producer.MaxMessageBytes = 1048588
	p := syncProducer(c)
	var ms []*sarama.ProducerMessage
	for i := 0; i < 4; i++ {
		ms = append(ms, &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(fmt.Sprint(i)),
			Value: sarama.ByteEncoder(ck.Value("big", i, 1000000-i*1000))})
	}
	ck.Must(p.SendMessages(ms), "send 1 MB messages")
	p.Close()
	var want, gotRecs []ck.Rec
	for _, m := range ms {
		want = append(want, sentRec(m))
	}
	for _, m := range readPartitions(nil, topic, 1, nil, 4) {
		gotRecs = append(gotRecs, toRec(m))
	}
	for i := range want {
		want[i].Timestamp = gotRecs[i].Timestamp // sarama stamps them itself
	}
	ck.CompareAll(topic, want, gotRecs)
	ck.Okf("%s: four ~1 MB messages back whole", topic)

	c = config()
	c.Producer.MaxMessageBytes = 4 << 20
	c.Producer.Retry.Max = 0
	p = syncProducer(c)
	_, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.ByteEncoder(make([]byte, 1100000))})
	expectErr("a 1.1 MB message", err, sarama.ErrMessageSizeTooLarge)
	small := "sa-small"
	createTopic(adm, small, 1, map[string]*string{"max.message.bytes": str("2000")})
	_, _, err = p.SendMessage(&sarama.ProducerMessage{Topic: small, Value: sarama.ByteEncoder(make([]byte, 3000))})
	expectErr("3000 bytes to max.message.bytes=2000", err, sarama.ErrMessageSizeTooLarge)
	_, off, err := p.SendMessage(&sarama.ProducerMessage{Topic: small, Value: sarama.ByteEncoder(make([]byte, 1000))})
	ck.Must(err, "1000 bytes to "+small)
	ck.Check(off == 0, "the accepted message at %d, want 0", off)
	p.Close()
	hwm, err := cl.GetOffset(topic, 0, sarama.OffsetNewest)
	ck.Must(err, "GetOffset")
	ck.Check(hwm == 4, "%s newest offset %d after the refused message, want 4", topic, hwm)
}

func unknownTopic(cl sarama.Client) {
	ck.Stage("unknown topic, auto-creation off")
	topic := "sa-no-such-topic"
	c := config()
	c.Metadata.AllowAutoTopicCreation = true
	c.Metadata.Retry.Max = 1
	c.Producer.Retry.Max = 1
	p := syncProducer(c)
	_, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder("x")})
	p.Close()
	expectErr("send to a missing topic", err, sarama.ErrUnknownTopicOrPartition)
	_, err = cl.Partitions(topic)
	expectErr("partitions of a missing topic", err, sarama.ErrUnknownTopicOrPartition)
	cons, err := sarama.NewConsumerFromClient(cl)
	ck.Must(err, "NewConsumer")
	_, err = cons.ConsumePartition(topic, 0, sarama.OffsetOldest)
	expectErr("consume a missing topic", err, sarama.ErrUnknownTopicOrPartition)
	ck.Must(cl.RefreshMetadata(), "RefreshMetadata")
	ts, err := cl.Topics()
	ck.Must(err, "Topics")
	for _, t := range ts {
		ck.Check(t != topic, "%s was created", topic)
	}
	ck.Okf("%s was not created", topic)
}
