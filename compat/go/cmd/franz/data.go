package main

import (
	"fmt"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var codecs = []struct {
	name  string
	codec kgo.CompressionCodec
	attr  uint8
}{
	{"none", kgo.NoCompression(), 0}, {"gzip", kgo.GzipCompression(), 1},
	{"snappy", kgo.SnappyCompression(), 2}, {"lz4", kgo.Lz4Compression(), 3},
	{"zstd", kgo.ZstdCompression(), 4},
}

// records makes n records: null, empty and repeated keys, null and empty
// values, no, one, repeated and empty headers, CreateTime timestamps
// base+i ms.
func records(tag string, n int, base time.Time) []*kgo.Record {
	var rs []*kgo.Record
	for i := 0; i < n; i++ {
		r := &kgo.Record{Timestamp: base.Add(time.Duration(i) * time.Millisecond)}
		switch i % 10 {
		case 0:
		case 1:
			r.Key = []byte{}
		default:
			r.Key = []byte(fmt.Sprintf("key-%d", i%37))
		}
		switch i % 25 {
		case 3:
		case 4:
			r.Value = []byte{}
		default:
			r.Value = ck.Value(tag, i, 20+i%300)
		}
		switch i % 4 {
		case 1:
			r.Headers = []kgo.RecordHeader{{Key: "n", Value: []byte(fmt.Sprint(i))}}
		case 2:
			r.Headers = []kgo.RecordHeader{{Key: "dup", Value: []byte("a")}, {Key: "dup", Value: []byte("b")},
				{Key: "empty", Value: []byte{}}}
		case 3:
			r.Headers = []kgo.RecordHeader{{Key: "unicode-é", Value: []byte("\x00\xff")}}
		}
		rs = append(rs, r)
	}
	return rs
}

func produceAll(cl *kgo.Client, topic string, rs []*kgo.Record) []ck.Rec {
	for _, r := range rs {
		r.Topic = topic
	}
	ck.Must(cl.ProduceSync(ctx, rs...).FirstErr(), "produce to "+topic)
	var out []ck.Rec
	for _, r := range rs {
		out = append(out, toRec(r))
	}
	return out
}

func data() {
	adm, acl := admin()
	defer acl.Close()
	versions(acl, 0, 1, 2, 3, 22)
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)

	ck.Stage("every codec: keys, values, headers, CreateTime, partitions, offsets")
	const n = 300
	for _, c := range codecs {
		topic := "fz-" + c.name
		createTopic(adm, topic, 3, nil)
		pcl := client(kgo.ProducerBatchCompression(c.codec), kgo.ProducerLinger(5*time.Millisecond))
		want := produceAll(pcl, topic, records(c.name, n, base))
		pcl.Close()
		ccl := client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		got := consume(ccl, n, 30*time.Second)
		ccl.Close()
		var gotRecs []ck.Rec
		pid := int64(-2)
		for _, r := range got {
			ck.Check(r.Attrs.CompressionType() == c.attr, "%s: batch compression %d, produced %d",
				topic, r.Attrs.CompressionType(), c.attr)
			ck.Check(r.Attrs.TimestampType() == 0, "%s: timestamp type %d, want CreateTime",
				topic, r.Attrs.TimestampType())
			ck.Check(!r.Attrs.IsTransactional() && !r.Attrs.IsControl(), "%s: transactional/control attrs", topic)
			if pid == -2 {
				pid = r.ProducerID
			}
			ck.Check(r.ProducerID >= 0 && r.ProducerID == pid && r.ProducerEpoch == 0,
				"%s: idempotent producer id %d epoch %d (first %d)", topic, r.ProducerID, r.ProducerEpoch, pid)
			if r.Key != nil {
				p := ck.KeyPartition(r.Key, 3)
				ck.Check(r.Partition == p, "%s: key %q on partition %d, murmur2 says %d", topic, r.Key, r.Partition, p)
			}
			gotRecs = append(gotRecs, toRec(r))
		}
		ck.CompareAll(topic, want, gotRecs)
		ck.SortRecs(gotRecs)
		next := ck.Dense(topic, gotRecs, map[int32]int64{0: 0, 1: 0, 2: 0})
		ends, err := adm.ListEndOffsets(ctx, topic)
		ck.Must(err, "ListEndOffsets")
		ck.Must(ends.Error(), "ListEndOffsets")
		for p := int32(0); p < 3; p++ {
			o, _ := ends.Lookup(topic, p)
			ck.Check(o.Offset == next[p], "%s[%d]: end offset %d, consumed up to %d", topic, p, o.Offset, next[p])
		}
		ck.Okf("%s: %d records back with key, value, headers, timestamp, partition, offset; batches %s; producer id %d",
			topic, n, c.name, pid)

		if c.name == "none" {
			offsetsByTime(adm, acl, topic, want, base, next)
		}
	}

	logAppendTime(adm, acl)
	bigRecords(adm)
	idempotenceFrames(adm, acl)
	unknownTopic(adm, acl)
}

func offsetsByTime(adm *kadm.Client, cl *kgo.Client, topic string, want []ck.Rec, base time.Time, end map[int32]int64) {
	ck.Stage("offsets by time")
	for _, at := range []int64{0, 1, 150, 299} {
		ms := base.UnixMilli() + at
		lo, err := adm.ListOffsetsAfterMilli(ctx, ms, topic)
		ck.Must(err, "ListOffsetsAfterMilli")
		ck.Must(lo.Error(), "ListOffsetsAfterMilli")
		for p := int32(0); p < 3; p++ {
			exp, expTs := end[p], int64(-1)
			for _, r := range want {
				if r.Partition == p && r.Timestamp.UnixMilli() >= ms && r.Offset < exp {
					exp, expTs = r.Offset, r.Timestamp.UnixMilli()
				}
			}
			o, _ := lo.Lookup(topic, p)
			ck.Check(o.Offset == exp, "%s[%d] offset for time base+%d: %d, want %d", topic, p, at, o.Offset, exp)
			if expTs >= 0 {
				ck.Check(o.Timestamp == expTs, "%s[%d] time base+%d: timestamp %d, want %d", topic, p, at, o.Timestamp, expTs)
			}
		}
	}
	// past the last record Kafka answers offset -1, timestamp -1
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	for p := int32(0); p < 3; p++ {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = p
		rp.Timestamp = base.UnixMilli() + 10000
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	ck.Must(err, "ListOffsets")
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			expectCode(fmt.Sprintf("ListOffsets past the end, partition %d", p.Partition), p.ErrorCode, nil)
			ck.Check(p.Offset == -1 && p.Timestamp == -1, "partition %d: past the last timestamp got offset %d ts %d, Kafka answers -1 -1",
				p.Partition, p.Offset, p.Timestamp)
		}
	}
	// the largest timestamp (ListOffsets -3): the last record of each
	// partition here, timestamps rising
	mx, err := adm.ListMaxTimestampOffsets(ctx, topic)
	ck.Must(err, "ListMaxTimestampOffsets")
	ck.Must(mx.Error(), "ListMaxTimestampOffsets")
	for p := int32(0); p < 3; p++ {
		var last ck.Rec
		for _, r := range want {
			if r.Partition == p && r.Offset == end[p]-1 {
				last = r
			}
		}
		o, _ := mx.Lookup(topic, p)
		ck.Check(o.Offset == last.Offset && o.Timestamp == last.Timestamp.UnixMilli(),
			"%s[%d]: max timestamp at %d/%d, want %d/%d", topic, p, o.Offset, o.Timestamp, last.Offset, last.Timestamp.UnixMilli())
	}
	// a consumer started at a time
	at := base.UnixMilli() + 150
	ccl := client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AfterMilli(at)))
	var expect int
	for _, r := range want {
		if r.Timestamp.UnixMilli() >= at {
			expect++
		}
	}
	got := consume(ccl, expect, 20*time.Second)
	ccl.Close()
	for _, r := range got {
		ck.Check(r.Timestamp.UnixMilli() >= at, "consumer from time %d got %d", at, r.Timestamp.UnixMilli())
	}
	ck.Check(len(got) == expect, "consumer from time: %d records, want %d", len(got), expect)
	ck.Okf("offsets by time (ListOffsets by timestamp, past the end, max timestamp, consumer reset to a time)")
}

func logAppendTime(adm *kadm.Client, cl *kgo.Client) {
	ck.Stage("LogAppendTime topic")
	topic := "fz-logappend"
	createTopic(adm, topic, 1, map[string]*string{"message.timestamp.type": str("LogAppendTime")})
	cfgs, err := adm.DescribeTopicConfigs(ctx, topic)
	ck.Must(err, "DescribeTopicConfigs")
	rc, err := cfgs.On(topic, nil)
	ck.Must(err, "DescribeTopicConfigs")
	for _, c := range rc.Configs {
		if c.Key == "message.timestamp.type" {
			ck.Check(c.MaybeValue() == "LogAppendTime", "message.timestamp.type %q", c.MaybeValue())
		}
	}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	before := time.Now().Add(-time.Second).Truncate(time.Millisecond)
	pcl := client(kgo.ProducerBatchCompression(kgo.Lz4Compression()))
	want := produceAll(pcl, topic, records("lat", 40, old))
	pcl.Close()
	after := time.Now().Add(time.Second)
	ccl := client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := consume(ccl, 40, 20*time.Second)
	ccl.Close()
	var gotRecs []ck.Rec
	for i, r := range got {
		ck.Check(r.Attrs.TimestampType() == 1, "%s: timestamp type %d, want LogAppendTime", topic, r.Attrs.TimestampType())
		ck.Check(!r.Timestamp.Before(before) && !r.Timestamp.After(after),
			"%s@%d: timestamp %v not the append time (%v..%v)", topic, r.Offset, r.Timestamp, before, after)
		gotRecs = append(gotRecs, toRec(r))
		want[i].Timestamp = r.Timestamp // compared apart from the time
	}
	ck.CompareAll(topic, want, gotRecs)

	// the produce response carries the append time (and -1 for CreateTime)
	for _, tc := range []struct {
		topic string
		lat   bool
	}{{topic, true}, {"fz-none", false}} {
		resp := rawProduce(cl, tc.topic, 0, batch(-1, -1, -1, 2, time.Now().Add(-time.Hour).UnixMilli()))
		expectCode("raw produce to "+tc.topic, resp.ErrorCode, nil)
		if tc.lat {
			ck.Check(resp.LogAppendTime >= before.UnixMilli() && resp.LogAppendTime <= time.Now().Add(time.Second).UnixMilli(),
				"produce response log_append_time %d", resp.LogAppendTime)
		} else {
			ck.Check(resp.LogAppendTime == -1, "CreateTime topic: produce response log_append_time %d, want -1", resp.LogAppendTime)
		}
	}
	ck.Okf("%s: 40 records timestamped on append (type LogAppendTime), produce response log_append_time set", topic)
}

func bigRecords(adm *kadm.Client) {
	ck.Stage("1 MB records, record too large")
	topic := "fz-big"
	createTopic(adm, topic, 1, nil)
	pcl := client(kgo.ProducerBatchMaxBytes(1048588), kgo.ProducerBatchCompression(kgo.NoCompression()))
	var rs []*kgo.Record
	for i := 0; i < 4; i++ {
		rs = append(rs, &kgo.Record{Key: []byte(fmt.Sprint(i)), Value: ck.Value("big", i, 1000000-i*1000)})
	}
	rs = append(rs, &kgo.Record{Value: []byte("small")})
	want := produceAll(pcl, topic, rs)
	pcl.Close()
	ccl := client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := consume(ccl, len(want), 30*time.Second)
	ccl.Close()
	var gotRecs []ck.Rec
	for _, r := range got {
		gotRecs = append(gotRecs, toRec(r))
	}
	ck.CompareAll(topic, want, gotRecs)
	ck.Okf("%s: four ~1 MB records and a small one back whole", topic)

	// past max.message.bytes (1048588 by default): the client lets it go
	// (its own bound raised), the broker refuses it
	pcl = client(kgo.ProducerBatchMaxBytes(4<<20), kgo.RecordRetries(0), kgo.ProducerBatchCompression(kgo.NoCompression()))
	err := pcl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: make([]byte, 1100000)}).FirstErr()
	pcl.Close()
	expectErr("a 1.1 MB record", err, kerr.MessageTooLarge)
	small := "fz-small"
	createTopic(adm, small, 1, map[string]*string{"max.message.bytes": str("2000")})
	pcl = client(kgo.RecordRetries(0), kgo.ProducerBatchCompression(kgo.NoCompression()))
	err = pcl.ProduceSync(ctx, &kgo.Record{Topic: small, Value: make([]byte, 3000)}).FirstErr()
	ck.Must(pcl.ProduceSync(ctx, &kgo.Record{Topic: small, Value: make([]byte, 1000)}).FirstErr(), "1000 bytes to "+small)
	pcl.Close()
	expectErr("3000 bytes to a topic of max.message.bytes=2000", err, kerr.MessageTooLarge)
	ends, err := adm.ListEndOffsets(ctx, topic, small)
	ck.Must(err, "ListEndOffsets")
	o, _ := ends.Lookup(topic, 0)
	ck.Check(o.Offset == 5, "%s end offset %d after the refused record, want 5", topic, o.Offset)
	o, _ = ends.Lookup(small, 0)
	ck.Check(o.Offset == 1, "%s end offset %d, want 1", small, o.Offset)
}

func batch(pid int64, epoch int16, seq int32, n int, ts int64) []byte {
	return ck.Batch(pid, epoch, seq, n, ts, false)
}

// rawProduce sends one batch by kmsg at the version franz-go picks (from
// v13 the topic goes by its id: the zero id for a topic that is missing);
// a partition not led yet (Kafka, just after creation) is retried.
func rawProduce(cl *kgo.Client, topic string, part int32, records []byte) kmsg.ProduceResponseTopicPartition {
	for i := 0; ; i++ {
		p, _ := rawProduceV(cl, topic, topicID(cl, topic, true), part, records)
		if i < 100 && (p.ErrorCode == kerr.NotLeaderForPartition.Code || p.ErrorCode == kerr.LeaderNotAvailable.Code ||
			p.ErrorCode == kerr.UnknownTopicOrPartition.Code) {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		return p
	}
}

// topicID is the topic's id by Metadata (waiting for it to be led when
// it should exist), or the zero id.
func topicID(cl *kgo.Client, topic string, exists bool) [16]byte {
	mreq := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	mreq.Topics = append(mreq.Topics, mt)
	for i := 0; i < 100; i++ {
		mresp, err := mreq.RequestWith(ctx, cl)
		ck.Must(err, "Metadata")
		if len(mresp.Topics) == 1 && mresp.Topics[0].ErrorCode == 0 && len(mresp.Topics[0].Partitions) > 0 &&
			mresp.Topics[0].Partitions[0].Leader >= 0 {
			return mresp.Topics[0].TopicID
		}
		if !exists {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	ck.Check(!exists, "%s has no id in the metadata", topic)
	return [16]byte{}
}

func rawProduceV(cl *kgo.Client, topic string, id [16]byte, part int32, records []byte) (kmsg.ProduceResponseTopicPartition, int16) {
	req := kmsg.NewPtrProduceRequest()
	req.Acks = -1
	req.TimeoutMillis = 10000
	t := kmsg.NewProduceRequestTopic()
	t.Topic = topic
	t.TopicID = id
	p := kmsg.NewProduceRequestTopicPartition()
	p.Partition = part
	p.Records = records
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	ck.Must(err, "Produce")
	ck.Check(len(resp.Topics) == 1 && len(resp.Topics[0].Partitions) == 1, "produce response shape")
	return resp.Topics[0].Partitions[0], resp.GetVersion()
}

// idempotenceFrames: an idempotent producer's batches by hand (kmsg), as
// the broker must deduplicate and order them.
func idempotenceFrames(adm *kadm.Client, cl *kgo.Client) {
	ck.Stage("idempotence by frames")
	topic := "fz-idem"
	createTopic(adm, topic, 1, nil)
	ipr := kmsg.NewPtrInitProducerIDRequest()
	ipr.TransactionTimeoutMillis = 60000
	ipr.ProducerID, ipr.ProducerEpoch = -1, -1
	iresp, err := ipr.RequestWith(ctx, cl)
	ck.Must(err, "InitProducerID")
	expectCode("InitProducerID", iresp.ErrorCode, nil)
	pid, ep := iresp.ProducerID, iresp.ProducerEpoch
	ck.Check(pid >= 0 && ep == 0, "InitProducerID gave %d/%d", pid, ep)
	ts := time.Now().UnixMilli()
	b0 := batch(pid, ep, 0, 3, ts)
	r := rawProduce(cl, topic, 0, b0)
	expectCode("seq 0", r.ErrorCode, nil)
	ck.Check(r.BaseOffset == 0, "first batch at %d", r.BaseOffset)
	r = rawProduce(cl, topic, 0, b0)
	expectCode("seq 0 again (duplicate)", r.ErrorCode, nil)
	ck.Check(r.BaseOffset == 0, "the duplicate answered offset %d, Kafka answers the first's 0", r.BaseOffset)
	r = rawProduce(cl, topic, 0, batch(pid, ep, 5, 1, ts))
	expectCode("seq 5 after 0..2 (gap)", r.ErrorCode, kerr.OutOfOrderSequenceNumber)
	r = rawProduce(cl, topic, 0, batch(pid, ep, 3, 2, ts))
	expectCode("seq 3", r.ErrorCode, nil)
	ck.Check(r.BaseOffset == 3, "seq 3 at %d, want 3", r.BaseOffset)
	r = rawProduce(cl, topic, 0, batch(pid, ep+1, 7, 1, ts))
	expectCode("a new epoch starting at sequence 7", r.ErrorCode, kerr.OutOfOrderSequenceNumber)
	ccl := client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := consume(ccl, 5, 10*time.Second)
	ccl.Close()
	for i, g := range got {
		ck.Check(g.Offset == int64(i) && g.ProducerID == pid, "%s: record %d at %d pid %d", topic, i, g.Offset, g.ProducerID)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	ck.Must(err, "ListEndOffsets")
	o, _ := ends.Lookup(topic, 0)
	ck.Check(o.Offset == 5, "%s: end offset %d, want 5 (duplicate and out-of-order batches not written)", topic, o.Offset)
	ck.Okf("idempotence: duplicate batch answered with its first offset, gap refused, 5 records stored")
}

func unknownTopic(adm *kadm.Client, cl *kgo.Client) {
	ck.Stage("unknown topic, auto-creation off")
	topic := "fz-no-such-topic"
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	req.AllowAutoTopicCreation = true
	resp, err := req.RequestWith(ctx, cl)
	ck.Must(err, "Metadata")
	ck.Check(len(resp.Topics) == 1, "metadata topics %d", len(resp.Topics))
	expectCode("Metadata for a missing topic, auto-creation asked but off", resp.Topics[0].ErrorCode, kerr.UnknownTopicOrPartition)

	pcl := client(kgo.UnknownTopicRetries(2), kgo.RecordDeliveryTimeout(20*time.Second))
	err = pcl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("x")}).FirstErr()
	pcl.Close()
	expectErr("produce to a missing topic", err, kerr.UnknownTopicOrPartition)

	r, v := rawProduceV(cl, topic, topicID(cl, topic, false), 0, batch(-1, -1, -1, 1, time.Now().UnixMilli()))
	if v >= 13 {
		expectCode(fmt.Sprintf("raw produce v%d to a missing topic (the zero id)", v), r.ErrorCode, kerr.UnknownTopicID)
	} else {
		expectCode(fmt.Sprintf("raw produce v%d to a missing topic", v), r.ErrorCode, kerr.UnknownTopicOrPartition)
	}
	lo, err := adm.ListEndOffsets(ctx, topic)
	ck.Must(err, "ListEndOffsets")
	expectErr("ListEndOffsets of a missing topic", lo.Error(), kerr.UnknownTopicOrPartition)
	tds, err := adm.ListTopics(ctx)
	ck.Must(err, "ListTopics")
	ck.Check(!tds.Has(topic), "%s exists after the failed produce", topic)
	ck.Okf("%s was not created", topic)
}
