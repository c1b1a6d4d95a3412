// sarama: IBM/sarama against a running gregor at $GR_BOOTSTRAP, with
// Config.Version the newest sarama knows (requests clamped to what the
// broker advertises). Subcommands: data, group, txn, admin.
package main

import (
	"errors"
	"fmt"
	"log"
	"os"
	"sort"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/IBM/sarama"
)

func config() *sarama.Config {
	c := sarama.NewConfig()
	c.Version = sarama.MaxVersion
	c.ClientID = "sarama-compat"
	c.Metadata.Retry.Backoff = 50 * time.Millisecond
	c.Producer.Retry.Backoff = 50 * time.Millisecond
	c.Producer.Return.Successes = true
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Partitioner = sarama.NewMurmur2Partitioner
	c.Consumer.MaxWaitTime = 200 * time.Millisecond
	c.Consumer.Return.Errors = true
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Admin.Retry.Backoff = 50 * time.Millisecond
	return c
}

func newClient(c *sarama.Config) sarama.Client {
	if c == nil {
		c = config()
	}
	cl, err := sarama.NewClient([]string{ck.Bootstrap()}, c)
	ck.Must(err, "sarama.NewClient")
	return cl
}

func newAdmin() (sarama.ClusterAdmin, sarama.Client) {
	cl := newClient(nil)
	adm, err := sarama.NewClusterAdminFromClient(cl)
	ck.Must(err, "NewClusterAdmin")
	return adm, cl
}

func syncProducer(c *sarama.Config) sarama.SyncProducer {
	p, err := sarama.NewSyncProducer([]string{ck.Bootstrap()}, c)
	ck.Must(err, "NewSyncProducer")
	return p
}

// errName is the Kafka name of a sarama KError found in err's chain.
func errName(err error) string {
	var ke sarama.KError
	if errors.As(err, &ke) {
		return kname(ke)
	}
	if err == nil {
		return "NONE"
	}
	return err.Error()
}

// kname is the Kafka name of an error code (sarama's messages are prose).
func kname(k sarama.KError) string {
	names := map[sarama.KError]string{
		sarama.ErrNoError: "NONE", sarama.ErrUnknownTopicOrPartition: "UNKNOWN_TOPIC_OR_PARTITION",
		sarama.ErrMessageSizeTooLarge: "MESSAGE_TOO_LARGE", sarama.ErrTopicAlreadyExists: "TOPIC_ALREADY_EXISTS",
		sarama.ErrInvalidPartitions: "INVALID_PARTITIONS", sarama.ErrInvalidReplicationFactor: "INVALID_REPLICATION_FACTOR",
		sarama.ErrInvalidTopic: "INVALID_TOPIC_EXCEPTION", sarama.ErrInvalidConfig: "INVALID_CONFIG",
		sarama.ErrProducerFenced: "PRODUCER_FENCED", sarama.ErrInvalidProducerEpoch: "INVALID_PRODUCER_EPOCH",
		sarama.ErrOffsetOutOfRange: "OFFSET_OUT_OF_RANGE", sarama.ErrGroupIDNotFound: "GROUP_ID_NOT_FOUND",
		sarama.ErrNonEmptyGroup: "NON_EMPTY_GROUP", sarama.ErrElectionNotNeeded: "ELECTION_NOT_NEEDED",
		sarama.ErrUnknownMemberId: "UNKNOWN_MEMBER_ID", sarama.ErrGroupSubscribedToTopic: "GROUP_SUBSCRIBED_TO_TOPIC",
		sarama.ErrInvalidRequest: "INVALID_REQUEST", sarama.ErrPolicyViolation: "POLICY_VIOLATION",
	}
	if n, ok := names[k]; ok {
		return n
	}
	return fmt.Sprintf("code %d (%s)", int16(k), k.Error())
}

// expectErr: an error by name, as Kafka answers; a difference is
// reported and the run goes on
func expectErr(what string, err error, want sarama.KError) {
	if !errors.Is(err, want) {
		ck.Errorf("%s: want %s, got %v", what, kname(want), err)
		return
	}
	ck.Okf("%s: %s", what, kname(want))
}

func main() {
	ck.Prefix = "sarama"
	if len(os.Args) < 2 {
		ck.Fatalf("usage: sarama data|group|txn|admin")
	}
	if os.Getenv("GR_GO_DEBUG") != "" {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Lmicroseconds)
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

func createTopic(adm sarama.ClusterAdmin, name string, parts int32, configs map[string]*string) {
	ck.Must(adm.CreateTopic(name, &sarama.TopicDetail{NumPartitions: parts, ReplicationFactor: 1,
		ConfigEntries: configs}, false), "create "+name)
}

func str(s string) *string { return &s }

func toRec(m *sarama.ConsumerMessage) ck.Rec {
	var hs []ck.Header
	for _, h := range m.Headers {
		hs = append(hs, ck.Header{Key: string(h.Key), Value: string(h.Value)})
	}
	return ck.Rec{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Key: m.Key, Value: m.Value,
		Headers: hs, Timestamp: m.Timestamp}
}

func bytesOf(e sarama.Encoder) []byte {
	if e == nil {
		return nil
	}
	b, err := e.Encode()
	ck.Must(err, "encode")
	return b
}

func sentRec(m *sarama.ProducerMessage) ck.Rec {
	var hs []ck.Header
	for _, h := range m.Headers {
		hs = append(hs, ck.Header{Key: string(h.Key), Value: string(h.Value)})
	}
	return ck.Rec{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Key: bytesOf(m.Key),
		Value: bytesOf(m.Value), Headers: hs, Timestamp: m.Timestamp}
}

// readPartitions reads n messages in all from the partitions of topic,
// starting at from (or the oldest), then checks nothing more comes.
func readPartitions(c *sarama.Config, topic string, parts int32, from map[int32]int64, n int) []*sarama.ConsumerMessage {
	if c == nil {
		c = config()
	}
	cons, err := sarama.NewConsumer([]string{ck.Bootstrap()}, c)
	ck.Must(err, "NewConsumer")
	defer cons.Close()
	out := make(chan *sarama.ConsumerMessage, 1024)
	var pcs []sarama.PartitionConsumer
	for p := int32(0); p < parts; p++ {
		o, ok := from[p]
		if !ok {
			o = sarama.OffsetOldest
		}
		pc, err := cons.ConsumePartition(topic, p, o)
		ck.Must(err, fmt.Sprintf("ConsumePartition %s[%d]", topic, p))
		pcs = append(pcs, pc)
		go func() {
			for m := range pc.Messages() {
				out <- m
			}
		}()
		go func() {
			for e := range pc.Errors() {
				ck.Fatalf("consume %s[%d]: %v", topic, p, e)
			}
		}()
	}
	var got []*sarama.ConsumerMessage
	deadline := time.After(30 * time.Second)
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
	for _, pc := range pcs {
		pc.AsyncClose()
	}
	sort.Slice(got, func(i, j int) bool {
		if got[i].Partition != got[j].Partition {
			return got[i].Partition < got[j].Partition
		}
		return got[i].Offset < got[j].Offset
	})
	return got
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

// mustK is ck.Must for sarama's per-item errors, where ErrNoError (code
// 0) is no error.
func mustK(err error, what string) {
	if err != nil && !errors.Is(err, sarama.ErrNoError) {
		ck.Fatalf("%s: %v", what, err)
	}
}

// fetchBatches reads topic[p] batch by batch with Broker.Fetch (v12, the
// newest sarama encodes), from offset 0 to the high watermark.
func fetchBatches(cl sarama.Client, topic string, p int32) []*sarama.RecordBatch {
	b, err := cl.Leader(topic, p)
	ck.Must(err, "Leader")
	var out []*sarama.RecordBatch
	var off int64
	for tries := 0; tries < 100; tries++ {
		req := &sarama.FetchRequest{Version: 12, MaxWaitTime: 100, MinBytes: 1, MaxBytes: 10 << 20}
		req.AddBlock(topic, p, off, 10<<20, -1)
		resp, err := b.Fetch(req)
		ck.Must(err, "Fetch")
		blk := resp.GetBlock(topic, p)
		ck.Check(blk != nil, "fetch: no block for %s[%d]", topic, p)
		mustK(blk.Err, "fetch")
		for _, rs := range blk.RecordsSet {
			rb := rs.RecordBatch
			if rb == nil || len(rb.Records) == 0 {
				continue
			}
			last := rb.FirstOffset + int64(rb.LastOffsetDelta)
			if last >= off {
				out = append(out, rb)
				off = last + 1
			}
		}
		if off >= blk.HighWaterMarkOffset {
			return out
		}
	}
	ck.Fatalf("%s[%d]: fetch did not reach the end", topic, p)
	return nil
}

// coordinatorLoading: the transient answers of a coordinator Kafka is
// still creating or loading (right after start); clients retry them.
func coordinatorLoading(err error) bool {
	return errors.Is(err, sarama.ErrNotCoordinatorForConsumer) || errors.Is(err, sarama.ErrOffsetsLoadInProgress) ||
		errors.Is(err, sarama.ErrConsumerCoordinatorNotAvailable)
}
