package main

import (
	"fmt"
	"strings"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/IBM/sarama"
)

func topicConfig(adm sarama.ClusterAdmin, topic, key string) sarama.ConfigEntry {
	es, err := adm.DescribeConfig(sarama.ConfigResource{Type: sarama.TopicResource, Name: topic})
	ck.Must(err, "DescribeConfig "+topic)
	for _, e := range es {
		if e.Name == key {
			return e
		}
	}
	ck.Fatalf("%s: no config %s", topic, key)
	return sarama.ConfigEntry{}
}

// expectConfig waits a moment for the value: Kafka's brokers describe
// configs from their metadata image, a change applied a little after the
// controller answered.
func expectConfig(adm sarama.ClusterAdmin, topic, key, value string, src sarama.ConfigSource) {
	var e sarama.ConfigEntry
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if e = topicConfig(adm, topic, key); e.Value == value && e.Source == src {
			break
		}
	}
	ck.Check(e.Value == value && e.Source == src && e.Default == (src == sarama.SourceDefault),
		"%s %s = %q (source %s, default %v), want %q (%s)", topic, key, e.Value, e.Source, e.Default, value, src)
}

func adminCmd() {
	adm, cl := newAdmin()
	defer adm.Close()

	ck.Stage("cluster")
	brokers, ctrl, err := adm.DescribeCluster()
	ck.Must(err, "DescribeCluster")
	ck.Check(len(brokers) == 1 && brokers[0].ID() == ctrl && brokers[0].Addr() == ck.Bootstrap(),
		"DescribeCluster: %d brokers, controller %d, first %d at %s", len(brokers), ctrl, brokers[0].ID(), brokers[0].Addr())
	c, err := adm.Controller()
	ck.Must(err, "Controller")
	ck.Check(c.ID() == ctrl, "controller %d, described %d", c.ID(), ctrl)
	ck.Okf("cluster: one broker %d at %s, the controller", ctrl, ck.Bootstrap())

	ck.Stage("create topics")
	topic := "sa-adm"
	ck.Must(adm.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 2, ReplicationFactor: 1,
		ConfigEntries: map[string]*string{"retention.ms": str("3600000"), "cleanup.policy": str("compact")}}, false), "create "+topic)
	ck.Must(adm.CreateTopic("sa-adm-validate", &sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 1}, true), "validate-only create")
	for _, bad := range []struct {
		what  string
		name  string
		parts int32
		rf    int16
		cfg   map[string]*string
		want  sarama.KError
	}{
		{"existing topic", topic, 1, 1, nil, sarama.ErrTopicAlreadyExists},
		{"0 partitions", "sa-adm-bad", 0, 1, nil, sarama.ErrInvalidPartitions},
		{"replication factor 3 of 1 broker", "sa-adm-bad", 1, 3, nil, sarama.ErrInvalidReplicationFactor},
		{"name with a slash", "sa/adm", 1, 1, nil, sarama.ErrInvalidTopic},
		{"249+ characters", strings.Repeat("y", 250), 1, 1, nil, sarama.ErrInvalidTopic},
		{"cleanup.policy=bogus", "sa-adm-bad", 1, 1, map[string]*string{"cleanup.policy": str("bogus")}, sarama.ErrInvalidConfig},
		{"unknown config key", "sa-adm-bad", 1, 1, map[string]*string{"no.such.config": str("1")}, sarama.ErrInvalidConfig},
	} {
		err := adm.CreateTopic(bad.name, &sarama.TopicDetail{NumPartitions: bad.parts, ReplicationFactor: bad.rf,
			ConfigEntries: bad.cfg}, false)
		expectErr("create: "+bad.what, err, bad.want)
	}
	ts, err := adm.ListTopics()
	ck.Must(err, "ListTopics")
	_, v := ts["sa-adm-validate"]
	_, b := ts["sa-adm-bad"]
	ck.Check(!v && !b, "a validate-only or refused topic is listed")
	d, ok := ts[topic]
	ck.Check(ok && d.NumPartitions == 2 && d.ReplicationFactor == 1, "ListTopics %s: %+v", topic, d)
	ck.Check(d.ConfigEntries["retention.ms"] != nil && *d.ConfigEntries["retention.ms"] == "3600000",
		"ListTopics %s: retention.ms %v", topic, d.ConfigEntries["retention.ms"])
	md, err := adm.DescribeTopics([]string{topic, "sa-adm-missing"})
	ck.Must(err, "DescribeTopics")
	for _, t := range md {
		switch t.Name {
		case topic:
			mustK(t.Err, "describe "+topic)
			ck.Check(len(t.Partitions) == 2 && !t.IsInternal, "%s: %d partitions", topic, len(t.Partitions))
			for _, p := range t.Partitions {
				ck.Check(p.Leader == ctrl && fmt.Sprint(p.Replicas) == fmt.Sprint([]int32{ctrl}) && fmt.Sprint(p.Isr) == fmt.Sprint([]int32{ctrl}),
					"%s[%d]: leader %d replicas %v isr %v", topic, p.ID, p.Leader, p.Replicas, p.Isr)
			}
		case "sa-adm-missing":
			expectErr("describe a missing topic", t.Err, sarama.ErrUnknownTopicOrPartition)
		}
	}
	ck.Okf("CreateTopic with configs, validate-only, seven refusals; ListTopics and DescribeTopics")

	ck.Stage("partitions")
	ck.Must(adm.CreatePartitions(topic, 4, nil, true), "validate-only CreatePartitions")
	ck.Must(adm.CreatePartitions(topic, 3, nil, false), "partitions to 3")
	expectErr("partitions 3 to 2", adm.CreatePartitions(topic, 2, nil, false), sarama.ErrInvalidPartitions)
	// (Kafka's broker lists them once it applies the controller's record)
	var ps []int32
	waitFor(topic+" with 3 partitions", 5*time.Second, func() bool {
		ck.Must(cl.RefreshMetadata(topic), "RefreshMetadata")
		ps, err = cl.Partitions(topic)
		ck.Must(err, "Partitions")
		return len(ps) == 3
	})
	mc := config()
	mc.Producer.Partitioner = sarama.NewManualPartitioner
	p := syncProducer(mc)
	for part := int32(0); part < 3; part++ {
		_, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: topic, Partition: part, Key: sarama.StringEncoder("k"),
			Value: sarama.StringEncoder(fmt.Sprint(part))})
		ck.Must(err, fmt.Sprintf("send to partition %d", part))
	}
	p.Close()
	ck.Okf("CreatePartitions: 2 to 3 (validate-only first), 3 to 2 refused, all three take messages")

	configs(adm, topic, ctrl)
	groups(adm, cl, topic)
	deleteRecords(adm, cl)

	ck.Stage("log dirs, leader election")
	lds, err := adm.DescribeLogDirs([]int32{ctrl})
	ck.Must(err, "DescribeLogDirs")
	var n int
	var size int64
	for _, dirs := range lds {
		for _, dir := range dirs {
			mustK(dir.ErrorCode, "log dir "+dir.Path)
			for _, t := range dir.Topics {
				if t.Topic == topic {
					for _, p := range t.Partitions {
						n++
						size += p.Size
					}
				}
			}
		}
	}
	ck.Check(n == 3 && size > 0, "DescribeLogDirs: %d partitions of %s, %d bytes", n, topic, size)
	el, err := adm.ElectLeaders(sarama.PreferredElection, map[string][]int32{topic: {0, 1}})
	ck.Must(err, "ElectLeaders")
	for part := int32(0); part < 2; part++ {
		r := el[topic][part]
		ck.Check(r != nil, "ElectLeaders: no result for %d", part)
		expectErr(fmt.Sprintf("preferred election %s[%d], one replica", topic, part), r.ErrorCode, sarama.ErrElectionNotNeeded)
	}

	ck.Stage("delete topics")
	ck.Must(adm.DeleteTopic(topic), "DeleteTopic")
	expectErr("delete a deleted topic", adm.DeleteTopic(topic), sarama.ErrUnknownTopicOrPartition)
	waitFor(topic+" gone", 5*time.Second, func() bool {
		ts, err := adm.ListTopics()
		ck.Must(err, "ListTopics")
		_, ok := ts[topic]
		return !ok
	})
	ck.Okf("DeleteTopic: gone, deleting again refused")
}

func configs(adm sarama.ClusterAdmin, topic string, broker int32) {
	ck.Stage("configs")
	expectConfig(adm, topic, "retention.ms", "3600000", sarama.SourceTopic)
	expectConfig(adm, topic, "cleanup.policy", "compact", sarama.SourceTopic)
	expectConfig(adm, topic, "segment.bytes", "1073741824", sarama.SourceDefault)
	inc := func(what string, es map[string]sarama.IncrementalAlterConfigsEntry, validate bool) error {
		return adm.IncrementalAlterConfig(sarama.TopicResource, topic, es, validate)
	}
	set := sarama.IncrementalAlterConfigsOperationSet
	ck.Must(inc("set", map[string]sarama.IncrementalAlterConfigsEntry{"retention.ms": {Operation: set, Value: str("7200000")}}, false), "set retention.ms")
	expectConfig(adm, topic, "retention.ms", "7200000", sarama.SourceTopic)
	ck.Must(inc("delete", map[string]sarama.IncrementalAlterConfigsEntry{"cleanup.policy": {Operation: sarama.IncrementalAlterConfigsOperationDelete}}, false), "delete cleanup.policy")
	expectConfig(adm, topic, "cleanup.policy", "delete", sarama.SourceDefault)
	ck.Must(inc("append", map[string]sarama.IncrementalAlterConfigsEntry{"cleanup.policy": {Operation: sarama.IncrementalAlterConfigsOperationAppend, Value: str("compact")}}, false), "append")
	expectConfig(adm, topic, "cleanup.policy", "delete,compact", sarama.SourceTopic)
	ck.Must(inc("subtract", map[string]sarama.IncrementalAlterConfigsEntry{"cleanup.policy": {Operation: sarama.IncrementalAlterConfigsOperationSubtract, Value: str("delete")}}, false), "subtract")
	expectConfig(adm, topic, "cleanup.policy", "compact", sarama.SourceTopic)
	expectErr("IncrementalAlterConfig retention.ms=abc",
		inc("bad", map[string]sarama.IncrementalAlterConfigsEntry{"retention.ms": {Operation: set, Value: str("abc")}}, false), sarama.ErrInvalidConfig)
	ck.Must(inc("validate", map[string]sarama.IncrementalAlterConfigsEntry{"retention.ms": {Operation: set, Value: str("1")}}, true), "validate-only")
	expectConfig(adm, topic, "retention.ms", "7200000", sarama.SourceTopic)
	// AlterConfig (not incremental) replaces the whole set
	ck.Must(adm.AlterConfig(sarama.TopicResource, topic, map[string]*string{"segment.ms": str("600000")}, false), "AlterConfig")
	expectConfig(adm, topic, "segment.ms", "600000", sarama.SourceTopic)
	expectConfig(adm, topic, "retention.ms", "604800000", sarama.SourceDefault)
	expectErr("AlterConfig max.message.bytes=x", adm.AlterConfig(sarama.TopicResource, topic,
		map[string]*string{"max.message.bytes": str("x")}, false), sarama.ErrInvalidConfig)
	es, err := adm.DescribeConfig(sarama.ConfigResource{Type: sarama.BrokerResource, Name: fmt.Sprint(broker)})
	ck.Must(err, "DescribeConfig broker")
	var found bool
	for _, e := range es {
		if e.Name == "group.min.session.timeout.ms" {
			found = true
			ck.Check(e.Value == "500" && e.Source == sarama.SourceStaticBroker, "broker group.min.session.timeout.ms = %q (%s)", e.Value, e.Source)
		}
	}
	ck.Check(found, "broker configs lack group.min.session.timeout.ms")
	ck.Okf("configs: sources, incremental set/delete/append/subtract, validate-only, legacy replace, refusals, broker configs")
}

func groups(adm sarama.ClusterAdmin, cl sarama.Client, topic string) {
	ck.Stage("groups and offsets")
	grp := "sa-adm-g"
	var r *sarama.OffsetCommitResponse
	var err error
	waitFor("the group coordinator", 10*time.Second, func() bool {
		r, err = adm.AlterConsumerGroupOffsets(grp, map[string]map[int32]sarama.OffsetAndMetadata{
			topic: {0: {Offset: 1, Metadata: "m0", LeaderEpoch: -1}, 1: {Offset: 0, Metadata: "m1", LeaderEpoch: -1}}}, nil)
		if coordinatorLoading(err) {
			return false
		}
		for _, e := range r.Errors[topic] {
			if coordinatorLoading(e) {
				return false
			}
		}
		return true
	})
	ck.Must(err, "AlterConsumerGroupOffsets")
	for part, e := range r.Errors[topic] {
		mustK(e, fmt.Sprintf("commit %s[%d]", topic, part))
	}
	fo, err := adm.ListConsumerGroupOffsets(grp, map[string][]int32{topic: {0, 1}})
	ck.Must(err, "ListConsumerGroupOffsets")
	b0, b1 := fo.GetBlock(topic, 0), fo.GetBlock(topic, 1)
	ck.Check(b0.Offset == 1 && b0.Metadata == "m0" && b1.Offset == 0 && b1.Metadata == "m1", "fetched %+v %+v", b0, b1)
	lg, err := adm.ListConsumerGroups()
	ck.Must(err, "ListConsumerGroups")
	_, ok := lg[grp]
	ck.Check(ok, "ListConsumerGroups lacks %s: %v", grp, lg)
	d := describeGroup(adm, grp)
	ck.Check(d.State == "Empty" && len(d.Members) == 0, "described %s: %s", grp, d.State)
	ck.Must(adm.DeleteConsumerGroupOffset(grp, topic, 0), "DeleteConsumerGroupOffset")
	fo, err = adm.ListConsumerGroupOffsets(grp, map[string][]int32{topic: {0, 1}})
	ck.Must(err, "ListConsumerGroupOffsets")
	ck.Check(fo.GetBlock(topic, 0).Offset == -1 && fo.GetBlock(topic, 1).Offset == 0, "after the offset deletion: %+v %+v",
		fo.GetBlock(topic, 0), fo.GetBlock(topic, 1))

	// a live member: deletion refused
	live := "sa-adm-live"
	m := newMember("live", live, topic, nil, sarama.NewBalanceStrategyRange())
	waitFor("the live member's assignment", 20*time.Second, func() bool { return len(m.owned()) == 3 })
	expectErr("delete a group with a member", adm.DeleteConsumerGroup(live), sarama.ErrNonEmptyGroup)
	expectErr("delete offsets of a subscribed topic", adm.DeleteConsumerGroupOffset(live, topic, 0), sarama.ErrGroupSubscribedToTopic)
	r, err = adm.AlterConsumerGroupOffsets(live, map[string]map[int32]sarama.OffsetAndMetadata{topic: {0: {Offset: 0, LeaderEpoch: -1}}}, nil)
	ck.Must(err, "AlterConsumerGroupOffsets")
	expectErr("admin commit to a group with a member", r.Errors[topic][0], sarama.ErrUnknownMemberId)
	m.stop()
	ck.Must(adm.DeleteConsumerGroup(grp), "DeleteConsumerGroup")
	ck.Must(adm.DeleteConsumerGroup(live), "DeleteConsumerGroup live")
	expectErr("delete a missing group", adm.DeleteConsumerGroup(grp), sarama.ErrGroupIDNotFound)
	d = describeGroup(adm, grp)
	ck.Check(d.State == "Dead", "a deleted group described as %q", d.State)
	ck.Okf("groups: commit/fetch with metadata, list/describe, offset deletion, refusals with a live member, deletion")
}

func deleteRecords(adm sarama.ClusterAdmin, cl sarama.Client) {
	ck.Stage("delete records")
	topic := "sa-adm-dr"
	createTopic(adm, topic, 1, nil)
	produceKeyed(topic, 0, 100)
	ck.Must(adm.DeleteRecords(topic, map[int32]int64{0: 40}), "DeleteRecords")
	ck.Must(cl.RefreshMetadata(topic), "refresh")
	oldest, err := cl.GetOffset(topic, 0, sarama.OffsetOldest)
	ck.Must(err, "GetOffset oldest")
	ck.Check(oldest == 40, "oldest offset %d after deleting below 40", oldest)
	got := readPartitions(nil, topic, 1, nil, 60)
	ck.Check(got[0].Offset == 40 && string(got[0].Key) == "k40", "first after deletion: %s", toRec(got[0]))
	cons, err := sarama.NewConsumerFromClient(cl)
	ck.Must(err, "NewConsumer")
	_, err = cons.ConsumePartition(topic, 0, 10)
	expectErr("consume at a deleted offset", err, sarama.ErrOffsetOutOfRange)
	cons.Close()
	expectErr("DeleteRecords past the newest offset", adm.DeleteRecords(topic, map[int32]int64{0: 101}), sarama.ErrOffsetOutOfRange)
	ck.Okf("DeleteRecords: oldest offset 40, reads begin there, below it OFFSET_OUT_OF_RANGE, past the end refused")
}
