package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func topicConfig(adm *kadm.Client, topic, key string) kadm.Config {
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	ck.Must(err, "DescribeTopicConfigs")
	rc, err := rcs.On(topic, nil)
	ck.Must(err, "DescribeTopicConfigs "+topic)
	ck.Must(rc.Err, "DescribeTopicConfigs "+topic)
	for _, c := range rc.Configs {
		if c.Key == key {
			return c
		}
	}
	ck.Fatalf("%s: no config %s", topic, key)
	return kadm.Config{}
}

// expectConfig waits a moment for the value: Kafka's brokers describe
// configs from their metadata image, a change applied a little after the
// controller answered.
func expectConfig(adm *kadm.Client, topic, key, value string, src kmsg.ConfigSource) {
	var c kadm.Config
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if c = topicConfig(adm, topic, key); c.MaybeValue() == value && c.Source == src {
			break
		}
	}
	ck.Check(c.MaybeValue() == value && c.Source == src, "%s %s = %q (%s), want %q (%s)",
		topic, key, c.MaybeValue(), c.Source, value, src)
}

func adminCmd() {
	adm, acl := admin()
	defer acl.Close()
	versions(acl, 19, 20, 21, 32, 33, 35, 37, 42, 43, 44, 47, 60)

	ck.Stage("cluster")
	md, err := adm.BrokerMetadata(ctx)
	ck.Must(err, "Metadata")
	ck.Check(len(md.Brokers) == 1 && md.Cluster != "" && md.Controller == md.Brokers[0].NodeID,
		"metadata: %d brokers, cluster %q, controller %d", len(md.Brokers), md.Cluster, md.Controller)
	b := md.Brokers[0]
	ck.Check(fmt.Sprintf("%s:%d", b.Host, b.Port) == ck.Bootstrap(), "broker at %s:%d, bootstrap %s", b.Host, b.Port, ck.Bootstrap())
	dc := kmsg.NewPtrDescribeClusterRequest()
	dcr, err := dc.RequestWith(ctx, acl)
	ck.Must(err, "DescribeCluster")
	expectCode("DescribeCluster", dcr.ErrorCode, nil)
	ck.Check(dcr.ClusterID == md.Cluster && dcr.ControllerID == md.Controller && len(dcr.Brokers) == 1,
		"DescribeCluster: cluster %q controller %d, %d brokers", dcr.ClusterID, dcr.ControllerID, len(dcr.Brokers))
	ck.Okf("cluster %s: one broker %d at %s:%d, the controller", md.Cluster, b.NodeID, b.Host, b.Port)

	ck.Stage("create topics")
	topic := "fz-adm"
	cr, err := adm.CreateTopics(ctx, 2, 1, map[string]*string{"retention.ms": str("3600000"),
		"cleanup.policy": str("compact")}, topic)
	ck.Must(err, "CreateTopics")
	r := cr[topic]
	ck.Must(r.Err, "create "+topic)
	ck.Check(r.NumPartitions == 2 && r.ReplicationFactor == 1 && r.ID != (kadm.TopicID{}),
		"created %s: %d partitions rf %d id %v", topic, r.NumPartitions, r.ReplicationFactor, r.ID)
	if c, ok := r.Configs["retention.ms"]; ok {
		ck.Check(c.MaybeValue() == "3600000", "CreateTopics response retention.ms %q", c.MaybeValue())
	}
	vr, err := adm.ValidateCreateTopics(ctx, 3, 1, nil, "fz-adm-validate")
	ck.Must(err, "ValidateCreateTopics")
	ck.Must(vr["fz-adm-validate"].Err, "validate-only create")
	for _, bad := range []struct {
		what  string
		name  string
		parts int32
		rf    int16
		cfg   map[string]*string
		want  error
	}{
		{"existing topic", topic, 1, 1, nil, kerr.TopicAlreadyExists},
		{"0 partitions", "fz-adm-bad", 0, 1, nil, kerr.InvalidPartitions},
		{"replication factor 3 of 1 broker", "fz-adm-bad", 1, 3, nil, kerr.InvalidReplicationFactor},
		{"name with a slash", "fz/adm", 1, 1, nil, kerr.InvalidTopicException},
		{"name ..", "..", 1, 1, nil, kerr.InvalidTopicException},
		{"250-character name", strings.Repeat("x", 250), 1, 1, nil, kerr.InvalidTopicException},
		{"cleanup.policy=bogus", "fz-adm-bad", 1, 1, map[string]*string{"cleanup.policy": str("bogus")}, kerr.InvalidConfig},
		{"retention.ms=abc", "fz-adm-bad", 1, 1, map[string]*string{"retention.ms": str("abc")}, kerr.InvalidConfig},
		{"unknown config key", "fz-adm-bad", 1, 1, map[string]*string{"no.such.config": str("1")}, kerr.InvalidConfig},
	} {
		res, err := adm.CreateTopics(ctx, bad.parts, bad.rf, bad.cfg, bad.name)
		ck.Must(err, "CreateTopics "+bad.what)
		expectErr("create: "+bad.what, res[bad.name].Err, bad.want)
	}
	// default partitions and replication factor (-1)
	res, err := adm.CreateTopics(ctx, -1, -1, nil, "fz-adm-default")
	ck.Must(err, "CreateTopics defaults")
	ck.Must(res["fz-adm-default"].Err, "CreateTopics defaults")
	tds, err := adm.ListTopics(ctx)
	ck.Must(err, "ListTopics")
	ck.Check(!tds.Has("fz-adm-validate") && !tds.Has("fz-adm-bad"), "a validate-only or refused topic exists")
	ck.Check(len(tds["fz-adm-default"].Partitions) == 3, "default topic: %d partitions, num.partitions=3",
		len(tds["fz-adm-default"].Partitions))
	td := tds[topic]
	ck.Check(len(td.Partitions) == 2 && !td.IsInternal && td.ID == r.ID, "%s listed: %d partitions, id %v", topic, len(td.Partitions), td.ID)
	for _, p := range td.Partitions {
		ck.Check(p.Err == nil && p.Leader == b.NodeID && fmt.Sprint(p.Replicas) == fmt.Sprint([]int32{b.NodeID}) &&
			fmt.Sprint(p.ISR) == fmt.Sprint([]int32{b.NodeID}), "%s[%d]: leader %d replicas %v isr %v err %v",
			topic, p.Partition, p.Leader, p.Replicas, p.ISR, p.Err)
	}
	ck.Okf("CreateTopics: created with configs, validate-only, defaults, and nine refusals by name")

	ck.Stage("partitions")
	cp, err := adm.ValidateCreatePartitions(ctx, 5, topic)
	ck.Must(err, "ValidateCreatePartitions")
	ck.Must(cp[topic].Err, "validate create partitions")
	cp, err = adm.UpdatePartitions(ctx, 4, topic)
	ck.Must(err, "UpdatePartitions")
	ck.Must(cp[topic].Err, "partitions to 4")
	cp, err = adm.UpdatePartitions(ctx, 3, topic)
	ck.Must(err, "UpdatePartitions")
	expectErr("partitions 4 to 3", cp[topic].Err, kerr.InvalidPartitions)
	cp, err = adm.UpdatePartitions(ctx, 4, "fz-adm-missing")
	ck.Must(err, "UpdatePartitions")
	expectErr("partitions of a missing topic", cp["fz-adm-missing"].Err, kerr.UnknownTopicOrPartition)
	// (Kafka's broker lists them once it applies the controller's record)
	waitFor(topic+" with 4 partitions", 5*time.Second, func() bool {
		tds, err := adm.ListTopics(ctx, topic)
		ck.Must(err, "ListTopics")
		return len(tds[topic].Partitions) == 4
	})
	// the new partitions take data
	pcl := client(kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for p := int32(0); p < 4; p++ {
		ck.Must(pcl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: p, Key: []byte("k"), Value: []byte(fmt.Sprint(p))}).FirstErr(),
			fmt.Sprintf("produce to partition %d", p))
	}
	pcl.Close()
	ck.Okf("CreatePartitions: 2 to 4 (validate-only first), 4 to 3 refused, all four take records")

	configs(adm, topic)
	groupsAdmin(adm, topic)
	deleteRecords(adm)

	ck.Stage("log dirs, leader election")
	lds, err := adm.DescribeAllLogDirs(ctx, nil)
	ck.Must(err, "DescribeAllLogDirs")
	var found, size int64
	lds.Each(func(d kadm.DescribedLogDir) {
		ck.Must(d.Err, "log dir "+d.Dir)
		d.Topics.Each(func(p kadm.DescribedLogDirPartition) {
			if p.Topic == topic {
				found++
				size += p.Size
			}
		})
	})
	ck.Check(found == 4 && size > 0, "DescribeLogDirs: %d partitions of %s, %d bytes", found, topic, size)
	el, err := adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{topic: {0: {}, 1: {}}})
	ck.Must(err, "ElectLeaders")
	for p := int32(0); p < 2; p++ {
		expectErr(fmt.Sprintf("preferred election %s[%d], one replica", topic, p), el[topic][p].Err, kerr.ElectionNotNeeded)
	}

	ck.Stage("delete topics")
	dr, err := adm.DeleteTopics(ctx, topic, "fz-adm-default")
	ck.Must(err, "DeleteTopics")
	ck.Must(dr[topic].Err, "delete "+topic)
	ck.Must(dr["fz-adm-default"].Err, "delete fz-adm-default")
	dr, err = adm.DeleteTopics(ctx, topic)
	ck.Must(err, "DeleteTopics")
	expectErr("delete a deleted topic", dr[topic].Err, kerr.UnknownTopicOrPartition)
	// Kafka's brokers drop the topic from their metadata as soon as they
	// apply the controller's record: allow a moment
	t0 := time.Now()
	waitFor(topic+" to leave the metadata", 5*time.Second, func() bool {
		req := kmsg.NewPtrMetadataRequest()
		resp, err := req.RequestWith(ctx, acl)
		ck.Must(err, "Metadata")
		for _, t := range resp.Topics {
			if t.Topic != nil && *t.Topic == topic {
				return false
			}
		}
		return true
	})
	if d := time.Since(t0); d > 100*time.Millisecond {
		ck.Notef("%s was listed for %v after its deletion was answered", topic, d.Round(time.Millisecond))
	}
	cr, err = adm.CreateTopics(ctx, 1, 1, nil, topic)
	ck.Must(err, "CreateTopics")
	ck.Must(cr[topic].Err, "create again")
	ck.Check(cr[topic].ID != r.ID, "recreated topic has the old id")
	// (Kafka answers -1 or UNKNOWN_TOPIC_OR_PARTITION until the new
	// partition is led)
	var o kadm.ListedOffset
	waitFor("the recreated topic's end offset", 5*time.Second, func() bool {
		lo, err := adm.ListEndOffsets(ctx, topic)
		o, _ = lo.Lookup(topic, 0)
		return err == nil && o.Err == nil && o.Offset >= 0
	})
	ck.Check(o.Offset == 0, "recreated %s: end offset %d", topic, o.Offset)
	ck.Okf("DeleteTopics: gone, deleting again refused, recreated empty with a new id")
}

func configs(adm *kadm.Client, topic string) {
	ck.Stage("configs")
	expectConfig(adm, topic, "retention.ms", "3600000", kmsg.ConfigSourceDynamicTopicConfig)
	expectConfig(adm, topic, "cleanup.policy", "compact", kmsg.ConfigSourceDynamicTopicConfig)
	expectConfig(adm, topic, "segment.bytes", "1073741824", kmsg.ConfigSourceDefaultConfig)
	expectConfig(adm, topic, "max.message.bytes", "1048588", kmsg.ConfigSourceDefaultConfig)
	alter := func(what string, cs []kadm.AlterConfig, want error) {
		rs, err := adm.AlterTopicConfigs(ctx, cs, topic)
		ck.Must(err, "IncrementalAlterConfigs "+what)
		ck.Check(len(rs) == 1, "%d responses", len(rs))
		if want == nil {
			ck.Must(rs[0].Err, "IncrementalAlterConfigs "+what)
		} else {
			expectErr("IncrementalAlterConfigs "+what, rs[0].Err, want)
		}
	}
	alter("set retention.ms", []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: str("7200000")}}, nil)
	expectConfig(adm, topic, "retention.ms", "7200000", kmsg.ConfigSourceDynamicTopicConfig)
	alter("delete cleanup.policy", []kadm.AlterConfig{{Op: kadm.DeleteConfig, Name: "cleanup.policy"}}, nil)
	expectConfig(adm, topic, "cleanup.policy", "delete", kmsg.ConfigSourceDefaultConfig)
	alter("append compact", []kadm.AlterConfig{{Op: kadm.AppendConfig, Name: "cleanup.policy", Value: str("compact")}}, nil)
	expectConfig(adm, topic, "cleanup.policy", "delete,compact", kmsg.ConfigSourceDynamicTopicConfig)
	alter("subtract delete", []kadm.AlterConfig{{Op: kadm.SubtractConfig, Name: "cleanup.policy", Value: str("delete")}}, nil)
	expectConfig(adm, topic, "cleanup.policy", "compact", kmsg.ConfigSourceDynamicTopicConfig)
	alter("retention.ms=abc", []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: str("abc")}}, kerr.InvalidConfig)
	alter("unknown key", []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "no.such.config", Value: str("1")}}, kerr.InvalidConfig)
	rs, err := adm.ValidateAlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: str("1")}}, topic)
	ck.Must(err, "validate IncrementalAlterConfigs")
	ck.Must(rs[0].Err, "validate IncrementalAlterConfigs")
	expectConfig(adm, topic, "retention.ms", "7200000", kmsg.ConfigSourceDynamicTopicConfig)
	rs, err = adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: str("1")}}, "fz-adm-missing")
	ck.Must(err, "IncrementalAlterConfigs")
	expectErr("IncrementalAlterConfigs of a missing topic", rs[0].Err, kerr.UnknownTopicOrPartition)
	// AlterConfigs (not incremental) replaces the whole set
	rs, err = adm.AlterTopicConfigsState(ctx, []kadm.AlterConfig{{Name: "segment.ms", Value: str("600000")}}, topic)
	ck.Must(err, "AlterConfigs")
	ck.Must(rs[0].Err, "AlterConfigs")
	expectConfig(adm, topic, "segment.ms", "600000", kmsg.ConfigSourceDynamicTopicConfig)
	expectConfig(adm, topic, "retention.ms", "604800000", kmsg.ConfigSourceDefaultConfig)
	expectConfig(adm, topic, "cleanup.policy", "delete", kmsg.ConfigSourceDefaultConfig)

	md, err := adm.BrokerMetadata(ctx)
	ck.Must(err, "Metadata")
	// the cluster-wide dynamic defaults (no broker named): only such
	// (Kafka 4.4's format sets min.insync.replicas there; Gregor none)
	cd, err := adm.DescribeBrokerConfigs(ctx)
	ck.Must(err, "DescribeBrokerConfigs")
	ck.Check(len(cd) == 1 && cd[0].Err == nil, "cluster default configs: %+v", cd)
	for _, c := range cd[0].Configs {
		ck.Check(c.Source == kmsg.ConfigSourceDynamicDefaultBrokerConfig, "cluster default %s from %s", c.Key, c.Source)
	}
	brs, err := adm.DescribeBrokerConfigs(ctx, md.Brokers[0].NodeID)
	ck.Must(err, "DescribeBrokerConfigs")
	ck.Check(len(brs) == 1, "%d broker config resources", len(brs))
	ck.Must(brs[0].Err, "DescribeBrokerConfigs")
	seen := map[string]kadm.Config{}
	for _, c := range brs[0].Configs {
		seen[c.Key] = c
	}
	if os.Getenv("GR_GO_DUMP") != "" {
		for _, c := range brs[0].Configs {
			fmt.Printf("%s=%s (%s)\n", c.Key, c.MaybeValue(), c.Source)
		}
	}
	c := seen["group.min.session.timeout.ms"]
	ck.Check(c.MaybeValue() == "500" && c.Source == kmsg.ConfigSourceStaticBrokerConfig,
		"broker group.min.session.timeout.ms = %q (%s), set at start-up to 500", c.MaybeValue(), c.Source)
	c = seen["num.partitions"]
	ck.Check(c.MaybeValue() == "3", "broker num.partitions = %q", c.MaybeValue())
	ck.Okf("configs: sources, incremental set/delete/append/subtract, validate-only, legacy replace, two refusals, broker configs")
}

func groupsAdmin(adm *kadm.Client, topic string) {
	ck.Stage("groups and offsets")
	grp := "fz-adm-g"
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 1, LeaderEpoch: -1, Metadata: "m0"})
	offs.Add(kadm.Offset{Topic: topic, Partition: 1, At: 0, LeaderEpoch: -1, Metadata: "m1"})
	ck.Must(adm.CommitAllOffsets(ctx, grp, offs), "commit to an empty group")
	fo, err := adm.FetchOffsets(ctx, grp)
	ck.Must(err, "FetchOffsets")
	ck.Must(fo.Error(), "FetchOffsets")
	o0, _ := fo.Lookup(topic, 0)
	o1, _ := fo.Lookup(topic, 1)
	ck.Check(o0.At == 1 && o0.Metadata == "m0" && o1.At == 0 && o1.Metadata == "m1", "fetched offsets %+v %+v", o0, o1)
	lg, err := adm.ListGroups(ctx)
	ck.Must(err, "ListGroups")
	ck.Check(lg[grp].State == "Empty", "ListGroups %s: %+v", grp, lg[grp])
	d := describe(adm, grp)
	ck.Check(d.State == "Empty" && len(d.Members) == 0, "described %s: %s, %d members", grp, d.State, len(d.Members))
	dor, err := adm.DeleteOffsets(ctx, grp, kadm.TopicsSet{topic: {0: {}}})
	ck.Must(err, "DeleteOffsets")
	ck.Must(dor.Error(), "DeleteOffsets")
	fo, err = adm.FetchOffsets(ctx, grp)
	ck.Must(err, "FetchOffsets")
	_, has0 := fo.Lookup(topic, 0)
	o1, _ = fo.Lookup(topic, 1)
	ck.Check(!has0 && o1.At == 0, "after OffsetDelete of partition 0: %v", fo)

	// a live member: admin commits, group and offset deletion refused
	live := "fz-adm-live"
	m := client(kgo.ConsumerGroup(live), kgo.ConsumeTopics(topic), kgo.SessionTimeout(6*time.Second),
		kgo.HeartbeatInterval(200*time.Millisecond), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	consume(m, 4, 20*time.Second)
	ck.Must(m.CommitUncommittedOffsets(ctx), "member commit")
	waitFor("the live group to be stable", 10*time.Second, func() bool { return describe(adm, live).State == "Stable" })
	cr, err := adm.CommitOffsets(ctx, live, offs)
	ck.Must(err, "CommitOffsets")
	expectErr("admin commit to a group with a member", cr.Error(), kerr.UnknownMemberID)
	dg, err := adm.DeleteGroups(ctx, live)
	ck.Must(err, "DeleteGroups")
	expectErr("delete a group with a member", dg[live].Err, kerr.NonEmptyGroup)
	dor, err = adm.DeleteOffsets(ctx, live, kadm.TopicsSet{topic: {0: {}}})
	ck.Must(err, "DeleteOffsets")
	expectErr("delete offsets of a subscribed topic", dor.Error(), kerr.GroupSubscribedToTopic)
	lg, err = adm.ListGroups(ctx, "Stable")
	ck.Must(err, "ListGroups Stable")
	_, okLive := lg[live]
	_, okEmpty := lg[grp]
	ck.Check(okLive && !okEmpty && lg[live].ProtocolType == "consumer", "ListGroups filtered on Stable: %v", lg)
	m.Close()
	fo, err = adm.FetchOffsets(ctx, live)
	ck.Must(err, "FetchOffsets")
	ck.Check(len(fo[topic]) == 4, "%s committed %d partitions, want 4", live, len(fo[topic]))

	dg, err = adm.DeleteGroups(ctx, grp, live)
	ck.Must(err, "DeleteGroups")
	ck.Must(dg[grp].Err, "delete "+grp)
	ck.Must(dg[live].Err, "delete "+live)
	// a deleted group is Dead: no error up to DescribeGroups v5,
	// GROUP_ID_NOT_FOUND from v6 (KIP-1043)
	ds, err := adm.DescribeGroups(ctx, grp)
	ck.Must(err, "DescribeGroups")
	d = ds[grp]
	if apiVersion(adm, 15) >= 6 {
		expectErr("describe a deleted group (v6)", d.Err, kerr.GroupIDNotFound)
	} else {
		ck.Must(d.Err, "describe a deleted group")
	}
	ck.Check(d.State == "Dead", "a deleted group described as %q, Kafka says Dead", d.State)
	dg, err = adm.DeleteGroups(ctx, grp)
	ck.Must(err, "DeleteGroups")
	expectErr("delete a missing group", dg[grp].Err, kerr.GroupIDNotFound)
	fo, err = adm.FetchOffsets(ctx, live)
	ck.Must(err, "FetchOffsets")
	ck.Check(len(fo[topic]) == 0, "a deleted group still has offsets %v", fo)
	ck.Okf("groups: commit/fetch with metadata, list/describe, OffsetDelete, refusals with a live member, DeleteGroups")
}

func deleteRecords(adm *kadm.Client) {
	ck.Stage("delete records")
	topic := "fz-adm-dr"
	createTopic(adm, topic, 1, nil)
	produceKeyed(topic, 0, 100)
	offs := kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 40})
	dr, err := adm.DeleteRecords(ctx, offs)
	ck.Must(err, "DeleteRecords")
	r, _ := dr.Lookup(topic, 0)
	ck.Must(r.Err, "DeleteRecords")
	ck.Check(r.LowWatermark == 40, "low watermark %d, want 40", r.LowWatermark)
	st, err := adm.ListStartOffsets(ctx, topic)
	ck.Must(err, "ListStartOffsets")
	so, _ := st.Lookup(topic, 0)
	ck.Check(so.Offset == 40, "start offset %d, want 40", so.Offset)
	cl := client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	rs := consume(cl, 60, 20*time.Second)
	cl.Close()
	ck.Check(rs[0].Offset == 40 && string(rs[0].Key) == "k40" && len(rs) == 60, "first record after deletion %s (%d)", toRec(rs[0]), len(rs))
	// a consumer at a deleted offset: OFFSET_OUT_OF_RANGE, reset to start
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 10
	req.MaxBytes = 1 << 20
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = topic
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.FetchOffset = 10
	fp.PartitionMaxBytes = 1 << 20
	fp.CurrentLeaderEpoch = -1
	ft.Partitions = append(ft.Partitions, fp)
	req.Topics = append(req.Topics, ft)
	ta, err := adm.ListTopics(ctx, topic)
	ck.Must(err, "ListTopics")
	ft.TopicID = ta[topic].ID
	req.Topics[0].TopicID = ta[topic].ID
	fr, err := req.RequestWith(ctx, cl0())
	ck.Must(err, "Fetch")
	ck.Check(len(fr.Topics) == 1 && len(fr.Topics[0].Partitions) == 1, "fetch response shape")
	fpr := fr.Topics[0].Partitions[0]
	expectCode("fetch at a deleted offset", fpr.ErrorCode, kerr.OffsetOutOfRange)
	// with an error Kafka answers no offsets: high watermark and log start -1
	if fpr.LogStartOffset != -1 || fpr.HighWatermark != -1 {
		ck.Errorf("fetch at a deleted offset: log start %d high watermark %d, Kafka answers -1 -1", fpr.LogStartOffset, fpr.HighWatermark)
	}

	offs = kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: 101})
	dr, err = adm.DeleteRecords(ctx, offs)
	ck.Must(err, "DeleteRecords")
	r, _ = dr.Lookup(topic, 0)
	expectErr("DeleteRecords past the high watermark", r.Err, kerr.OffsetOutOfRange)
	offs = kadm.Offsets{}
	offs.Add(kadm.Offset{Topic: topic, Partition: 0, At: -1})
	dr, err = adm.DeleteRecords(ctx, offs)
	ck.Must(err, "DeleteRecords")
	r, _ = dr.Lookup(topic, 0)
	ck.Must(r.Err, "DeleteRecords to the high watermark")
	ck.Check(r.LowWatermark == 100, "DeleteRecords -1: low watermark %d, want 100", r.LowWatermark)
	ck.Okf("DeleteRecords: start offset 40, reads begin there, fetch below it OFFSET_OUT_OF_RANGE, past the end refused, -1 = all")
}

var fetchClient *kgo.Client

func cl0() *kgo.Client {
	if fetchClient == nil {
		fetchClient = client()
	}
	return fetchClient
}

// apiVersion is the version franz-go uses for key with this broker.
func apiVersion(adm *kadm.Client, key int16) int16 {
	vs, err := adm.ApiVersions(ctx)
	ck.Must(err, "ApiVersions")
	var v int16 = -1
	vs.Each(func(b kadm.BrokerApiVersions) {
		if _, mx, ok := b.KeyVersions(key); ok {
			v = min(mx, kmsg.RequestForKey(key).MaxVersion())
		}
	})
	return v
}
