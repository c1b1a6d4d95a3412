package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/segmentio/kafka-go"
)

func topicConfigs(c *kafka.Client, topic string) map[string]kafka.DescribeConfigResponseConfigEntry {
	r, err := c.DescribeConfigs(ctx, &kafka.DescribeConfigsRequest{Resources: []kafka.DescribeConfigRequestResource{
		{ResourceType: kafka.ResourceTypeTopic, ResourceName: topic}}})
	ck.Must(err, "DescribeConfigs")
	ck.Check(len(r.Resources) == 1, "%d resources", len(r.Resources))
	ck.Must(r.Resources[0].Error, "DescribeConfigs "+topic)
	out := map[string]kafka.DescribeConfigResponseConfigEntry{}
	for _, e := range r.Resources[0].ConfigEntries {
		out[e.ConfigName] = e
	}
	return out
}

// config sources as DescribeConfigs v1+ numbers them
const (
	srcTopic        = 1
	srcStaticBroker = 4
	srcDefault      = 5
)

// expectConfig waits a moment for the value: Kafka's brokers describe
// configs from their metadata image, a change applied a little after the
// controller answered.
func expectConfig(c *kafka.Client, topic, key, value string, src int8) {
	var e kafka.DescribeConfigResponseConfigEntry
	var ok bool
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if e, ok = topicConfigs(c, topic)[key]; ok && e.ConfigValue == value && e.ConfigSource == src {
			break
		}
	}
	// (IsDefault is DescribeConfigs v0's field: from v1 the source says it)
	ck.Check(ok && e.ConfigValue == value && e.ConfigSource == src,
		"%s %s = %q (source %d), want %q (source %d)", topic, key, e.ConfigValue, e.ConfigSource, value, src)
}

func incAlter(c *kafka.Client, topic string, validate bool, cfgs ...kafka.IncrementalAlterConfigsRequestConfig) error {
	r, err := c.IncrementalAlterConfigs(ctx, &kafka.IncrementalAlterConfigsRequest{ValidateOnly: validate,
		Resources: []kafka.IncrementalAlterConfigsRequestResource{{ResourceType: kafka.ResourceTypeTopic, ResourceName: topic, Configs: cfgs}}})
	ck.Must(err, "IncrementalAlterConfigs")
	return r.Resources[0].Error
}

// metadata asks the broker afresh: a Client's transport answers Metadata
// from its cache
func metadata(topics ...string) *kafka.MetadataResponse {
	t := &kafka.Transport{}
	defer t.CloseIdleConnections()
	c := &kafka.Client{Addr: kafka.TCP(ck.Bootstrap()), Timeout: 15 * time.Second, Transport: t}
	md, err := c.Metadata(ctx, &kafka.MetadataRequest{Topics: topics})
	ck.Must(err, "Metadata")
	return md
}

func adminCmd() {
	c := client()
	ck.Notef("no DeleteRecords, DescribeLogDirs, DescribeProducers or DescribeTransactions in kafka-go's Client")

	ck.Stage("cluster")
	av, err := c.ApiVersions(ctx, &kafka.ApiVersionsRequest{})
	ck.Must(err, "ApiVersions")
	ck.Must(av.Error, "ApiVersions")
	ck.Check(len(av.ApiKeys) > 30, "ApiVersions: %d keys", len(av.ApiKeys))
	md := metadata()
	ck.Check(len(md.Brokers) == 1 && md.Controller.ID == md.Brokers[0].ID && md.ClusterID != "" &&
		fmt.Sprintf("%s:%d", md.Brokers[0].Host, md.Brokers[0].Port) == ck.Bootstrap(),
		"metadata: brokers %+v controller %+v cluster %q", md.Brokers, md.Controller, md.ClusterID)
	node := md.Brokers[0].ID
	ck.Okf("cluster %s: one broker %d, the controller; %d APIs", md.ClusterID, node, len(av.ApiKeys))

	ck.Stage("create topics")
	topic := "kg-adm"
	createTopic(c, topic, 2, map[string]string{"retention.ms": "3600000", "cleanup.policy": "compact"})
	// a validate-only CreateTopics is answered at once, but kafka-go's
	// transport then waits (its whole timeout) for the topic to appear
	ck.Notef("not sent: a validate-only CreateTopics (kafka-go waits for the topic to appear in its metadata)")
	for _, bad := range []struct {
		what  string
		name  string
		parts int
		rf    int
		cfg   []kafka.ConfigEntry
		want  kafka.Error
	}{
		{"existing topic", topic, 1, 1, nil, kafka.TopicAlreadyExists},
		{"0 partitions", "kg-adm-bad", 0, 1, nil, kafka.InvalidPartitionNumber},
		{"replication factor 3 of 1 broker", "kg-adm-bad", 1, 3, nil, kafka.InvalidReplicationFactor},
		{"name with a slash", "kg/adm", 1, 1, nil, kafka.InvalidTopic},
		{"name .", ".", 1, 1, nil, kafka.InvalidTopic},
		{"250 characters", strings.Repeat("z", 250), 1, 1, nil, kafka.InvalidTopic},
		{"cleanup.policy=bogus", "kg-adm-bad", 1, 1, []kafka.ConfigEntry{{ConfigName: "cleanup.policy", ConfigValue: "bogus"}}, kafka.InvalidConfiguration},
		{"unknown config key", "kg-adm-bad", 1, 1, []kafka.ConfigEntry{{ConfigName: "no.such.config", ConfigValue: "1"}}, kafka.InvalidConfiguration},
	} {
		r, err := c.CreateTopics(ctx, &kafka.CreateTopicsRequest{Topics: []kafka.TopicConfig{{Topic: bad.name,
			NumPartitions: bad.parts, ReplicationFactor: bad.rf, ConfigEntries: bad.cfg}}})
		ck.Must(err, "CreateTopics")
		expectErr("create: "+bad.what, r.Errors[bad.name], bad.want)
	}
	md = metadata(topic)
	ck.Check(len(md.Topics) == 1 && len(md.Topics[0].Partitions) == 2, "%s: %+v", topic, md.Topics)
	for _, p := range md.Topics[0].Partitions {
		ck.Check(p.Error == nil && p.Leader.ID == node && len(p.Replicas) == 1 && len(p.Isr) == 1 && p.Replicas[0].ID == node,
			"%s[%d]: leader %d replicas %v isr %v", topic, p.ID, p.Leader.ID, p.Replicas, p.Isr)
	}
	md = metadata()
	for _, t := range md.Topics {
		ck.Check(t.Name != "kg-adm-validate" && t.Name != "kg-adm-bad", "%s exists", t.Name)
	}
	ck.Okf("CreateTopics with configs, eight refusals; metadata")

	ck.Stage("partitions")
	pr, err := c.CreatePartitions(ctx, &kafka.CreatePartitionsRequest{ValidateOnly: true, Topics: []kafka.TopicPartitionsConfig{{Name: topic, Count: 5}}})
	ck.Must(err, "CreatePartitions")
	ck.Must(pr.Errors[topic], "validate-only CreatePartitions")
	pr, err = c.CreatePartitions(ctx, &kafka.CreatePartitionsRequest{Topics: []kafka.TopicPartitionsConfig{{Name: topic, Count: 3}}})
	ck.Must(err, "CreatePartitions")
	ck.Must(pr.Errors[topic], "partitions to 3")
	pr, err = c.CreatePartitions(ctx, &kafka.CreatePartitionsRequest{Topics: []kafka.TopicPartitionsConfig{{Name: topic, Count: 2}}})
	ck.Must(err, "CreatePartitions")
	expectErr("partitions 3 to 2", pr.Errors[topic], kafka.InvalidPartitionNumber)
	// (Kafka's broker lists them once it applies the controller's record)
	waitFor(topic+" with 3 partitions", 5*time.Second, func() bool { return len(metadata(topic).Topics[0].Partitions) == 3 })
	ck.Okf("CreatePartitions: 2 to 3 (validate-only first), 3 to 2 refused")

	ck.Stage("configs")
	expectConfig(c, topic, "retention.ms", "3600000", srcTopic)
	expectConfig(c, topic, "cleanup.policy", "compact", srcTopic)
	expectConfig(c, topic, "segment.bytes", "1073741824", srcDefault)
	set, del := kafka.ConfigOperationSet, kafka.ConfigOperationDelete
	ck.Must(incAlter(c, topic, false, kafka.IncrementalAlterConfigsRequestConfig{Name: "retention.ms", Value: "7200000", ConfigOperation: set}), "set")
	expectConfig(c, topic, "retention.ms", "7200000", srcTopic)
	ck.Must(incAlter(c, topic, false, kafka.IncrementalAlterConfigsRequestConfig{Name: "cleanup.policy", ConfigOperation: del}), "delete")
	expectConfig(c, topic, "cleanup.policy", "delete", srcDefault)
	ck.Must(incAlter(c, topic, false, kafka.IncrementalAlterConfigsRequestConfig{Name: "cleanup.policy", Value: "compact", ConfigOperation: kafka.ConfigOperationAppend}), "append")
	expectConfig(c, topic, "cleanup.policy", "delete,compact", srcTopic)
	ck.Must(incAlter(c, topic, false, kafka.IncrementalAlterConfigsRequestConfig{Name: "cleanup.policy", Value: "delete", ConfigOperation: kafka.ConfigOperationSubtract}), "subtract")
	expectConfig(c, topic, "cleanup.policy", "compact", srcTopic)
	expectErr("IncrementalAlterConfigs retention.ms=abc", incAlter(c, topic, false,
		kafka.IncrementalAlterConfigsRequestConfig{Name: "retention.ms", Value: "abc", ConfigOperation: set}), kafka.InvalidConfiguration)
	ck.Must(incAlter(c, topic, true, kafka.IncrementalAlterConfigsRequestConfig{Name: "retention.ms", Value: "1", ConfigOperation: set}), "validate-only")
	expectConfig(c, topic, "retention.ms", "7200000", srcTopic)
	ar, err := c.AlterConfigs(ctx, &kafka.AlterConfigsRequest{Resources: []kafka.AlterConfigRequestResource{{
		ResourceType: kafka.ResourceTypeTopic, ResourceName: topic, Configs: []kafka.AlterConfigRequestConfig{{Name: "segment.ms", Value: "600000"}}}}})
	ck.Must(err, "AlterConfigs")
	for _, e := range ar.Errors {
		ck.Must(e, "AlterConfigs")
	}
	expectConfig(c, topic, "segment.ms", "600000", srcTopic)
	expectConfig(c, topic, "retention.ms", "604800000", srcDefault)
	br, err := c.DescribeConfigs(ctx, &kafka.DescribeConfigsRequest{Resources: []kafka.DescribeConfigRequestResource{
		{ResourceType: kafka.ResourceTypeBroker, ResourceName: fmt.Sprint(node), ConfigNames: []string{"group.min.session.timeout.ms", "num.partitions"}}}})
	ck.Must(err, "DescribeConfigs broker")
	ck.Must(br.Resources[0].Error, "DescribeConfigs broker")
	ck.Check(len(br.Resources[0].ConfigEntries) == 2, "broker configs asked by name: %+v", br.Resources[0].ConfigEntries)
	for _, e := range br.Resources[0].ConfigEntries {
		if e.ConfigName == "group.min.session.timeout.ms" {
			ck.Check(e.ConfigValue == "500" && e.ConfigSource == srcStaticBroker, "broker %s = %q (%d)", e.ConfigName, e.ConfigValue, e.ConfigSource)
		}
	}
	ck.Okf("configs: sources, incremental set/delete/append/subtract, validate-only, legacy replace, broker configs by name")

	groupsAdmin(c, topic)

	ck.Stage("leader election, deletion")
	el, err := c.ElectLeaders(ctx, &kafka.ElectLeadersRequest{Topic: topic, Partitions: []int{0, 1}, Timeout: 5 * time.Second})
	ck.Must(err, "ElectLeaders")
	ck.Check(len(el.PartitionResults) == 2, "ElectLeaders: %+v", el)
	for _, pr := range el.PartitionResults {
		expectErr(fmt.Sprintf("preferred election %s[%d], one replica", topic, pr.Partition), pr.Error, kafka.ElectionNotNeeded)
	}
	// timeout_ms 0 (kafka-go's default): Kafka's controller gives up at
	// once, REQUEST_TIMED_OUT for each partition
	el, err = c.ElectLeaders(ctx, &kafka.ElectLeadersRequest{Topic: topic, Partitions: []int{0}})
	ck.Must(err, "ElectLeaders")
	ck.Check(len(el.PartitionResults) == 1, "ElectLeaders: %+v", el)
	expectErr("preferred election with timeout_ms 0", el.PartitionResults[0].Error, kafka.RequestTimedOut)
	dr, err := c.DeleteTopics(ctx, &kafka.DeleteTopicsRequest{Topics: []string{topic}})
	ck.Must(err, "DeleteTopics")
	ck.Must(dr.Errors[topic], "delete "+topic)
	dr, err = c.DeleteTopics(ctx, &kafka.DeleteTopicsRequest{Topics: []string{topic}})
	ck.Must(err, "DeleteTopics")
	expectErr("delete a deleted topic", dr.Errors[topic], kafka.UnknownTopicOrPartition)
	waitFor(topic+" gone", 5*time.Second, func() bool {
		for _, t := range metadata().Topics {
			if t.Name == topic {
				return false
			}
		}
		return true
	})
	ck.Okf("DeleteTopics: gone, deleting again refused")
}

func groupsAdmin(c *kafka.Client, topic string) {
	ck.Stage("groups and offsets")
	grp := "kg-adm-g"
	// (a coordinator still loading, as Kafka's first one is, is retried)
	var cr *kafka.OffsetCommitResponse
	var err error
	waitFor("the group coordinator", 10*time.Second, func() bool {
		cr, err = c.OffsetCommit(ctx, &kafka.OffsetCommitRequest{GroupID: grp, GenerationID: -1,
			Topics: map[string][]kafka.OffsetCommit{topic: {{Partition: 0, Offset: 1, Metadata: "m0"}, {Partition: 1, Offset: 0, Metadata: "m1"}}}})
		ck.Must(err, "OffsetCommit")
		for _, p := range cr.Topics[topic] {
			if errors.Is(p.Error, kafka.NotCoordinatorForGroup) || errors.Is(p.Error, kafka.GroupCoordinatorNotAvailable) ||
				errors.Is(p.Error, kafka.GroupLoadInProgress) {
				return false
			}
		}
		return true
	})
	ck.Must(err, "OffsetCommit")
	for _, p := range cr.Topics[topic] {
		ck.Must(p.Error, "OffsetCommit")
	}
	fr, err := c.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: grp, Topics: map[string][]int{topic: {0, 1, 2}}})
	ck.Must(err, "OffsetFetch")
	got := map[int]kafka.OffsetFetchPartition{}
	for _, p := range fr.Topics[topic] {
		got[p.Partition] = p
	}
	ck.Check(got[0].CommittedOffset == 1 && got[0].Metadata == "m0" && got[1].CommittedOffset == 0 && got[1].Metadata == "m1" &&
		got[2].CommittedOffset == -1, "fetched %+v", got)
	lg, err := c.ListGroups(ctx, &kafka.ListGroupsRequest{})
	ck.Must(err, "ListGroups")
	var listed bool
	for _, g := range lg.Groups {
		listed = listed || g.GroupID == grp
	}
	ck.Check(listed, "ListGroups lacks %s: %+v", grp, lg.Groups)
	g := describeGroup(c, grp)
	ck.Check(g.GroupState == "Empty", "described %s: %s", grp, g.GroupState)
	od, err := c.OffsetDelete(ctx, &kafka.OffsetDeleteRequest{GroupID: grp, Topics: map[string][]int{topic: {0}}})
	ck.Must(err, "OffsetDelete")
	ck.Must(od.Error, "OffsetDelete")
	ck.Must(od.Topics[topic][0].Error, "OffsetDelete partition")
	ck.Check(committedOffset(c, grp, topic, 0) == -1 && committedOffset(c, grp, topic, 1) == 0, "after OffsetDelete")

	// a live member: refusals
	live := "kg-adm-live"
	l := &ledger{seen: map[pos]int{}, keys: map[string]bool{}}
	m := newMember("live", live, topic, l)
	waitFor("the live member", 20*time.Second, func() bool { return describeGroup(c, live).GroupState == "Stable" })
	cr, err = c.OffsetCommit(ctx, &kafka.OffsetCommitRequest{GroupID: live, GenerationID: -1,
		Topics: map[string][]kafka.OffsetCommit{topic: {{Partition: 0, Offset: 0}}}})
	ck.Must(err, "OffsetCommit")
	expectErr("admin commit to a group with a member", cr.Topics[topic][0].Error, kafka.UnknownMemberId)
	dg, err := c.DeleteGroups(ctx, &kafka.DeleteGroupsRequest{GroupIDs: []string{live}})
	ck.Must(err, "DeleteGroups")
	expectErr("delete a group with a member", dg.Errors[live], kafka.NonEmptyGroup)
	od, err = c.OffsetDelete(ctx, &kafka.OffsetDeleteRequest{GroupID: live, Topics: map[string][]int{topic: {0}}})
	ck.Must(err, "OffsetDelete")
	ck.Must(od.Error, "OffsetDelete")
	expectErr("delete offsets of a subscribed topic", od.Topics[topic][0].Error, kafka.GroupSubscribedToTopic)
	m.stop()
	dg, err = c.DeleteGroups(ctx, &kafka.DeleteGroupsRequest{GroupIDs: []string{grp, live}})
	ck.Must(err, "DeleteGroups")
	ck.Must(dg.Errors[grp], "delete "+grp)
	ck.Must(dg.Errors[live], "delete "+live)
	dg, err = c.DeleteGroups(ctx, &kafka.DeleteGroupsRequest{GroupIDs: []string{grp}})
	ck.Must(err, "DeleteGroups")
	expectErr("delete a missing group", dg.Errors[grp], kafka.GroupIdNotFound)
	ck.Okf("groups: commit/fetch with metadata, list/describe, OffsetDelete, refusals with a live member, DeleteGroups")
}
