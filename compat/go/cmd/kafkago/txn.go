package main

import (
	"errors"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/segmentio/kafka-go"
)

// txnProducer drives a transactional producer by hand with kafka-go's
// Client requests: kafka-go has no transactional Writer.
type txnProducer struct {
	c     *kafka.Client
	id    string
	pid   int64
	epoch int16
	seq   int32
}

func initProducer(c *kafka.Client, id string) *txnProducer {
	var r *kafka.InitProducerIDResponse
	waitFor("InitProducerID "+id, 20*time.Second, func() bool {
		var err error
		r, err = c.InitProducerID(ctx, &kafka.InitProducerIDRequest{TransactionalID: id, TransactionTimeoutMs: 20000,
			ProducerID: -1, ProducerEpoch: -1})
		ck.Must(err, "InitProducerID")
		if errors.Is(r.Error, kafka.ConcurrentTransactions) || coordinatorLoading(r.Error) {
			return false // an earlier producer's transaction is being aborted
		}
		ck.Must(r.Error, "InitProducerID "+id)
		return true
	})
	return &txnProducer{c: c, id: id, pid: int64(r.Producer.ProducerID), epoch: int16(r.Producer.ProducerEpoch)}
}

// retryConcurrent repeats a transaction request while the coordinator
// answers CONCURRENT_TRANSACTIONS (Kafka does while the previous end's
// markers are being written; clients retry it).
func retryConcurrent(what string, f func() error) error {
	var err error
	for i := 0; i < 200; i++ {
		if err = f(); !errors.Is(err, kafka.ConcurrentTransactions) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	ck.Fatalf("%s: CONCURRENT_TRANSACTIONS for 4 s", what)
	return err
}

func (t *txnProducer) addPartition(topic string, p int) error {
	return retryConcurrent("AddPartitionsToTxn", func() error {
		r, err := t.c.AddPartitionsToTxn(ctx, &kafka.AddPartitionsToTxnRequest{TransactionalID: t.id, ProducerID: int(t.pid),
			ProducerEpoch: int(t.epoch), Topics: map[string][]kafka.AddPartitionToTxn{topic: {{Partition: p}}}})
		ck.Must(err, "AddPartitionsToTxn")
		return r.Topics[topic][0].Error
	})
}

func (t *txnProducer) produce(topic string, p int, n int) (int64, error) {
	r, err := rawProduce(t.c, topic, p, t.id, ck.Batch(t.pid, t.epoch, t.seq, n, time.Now().UnixMilli(), true))
	ck.Must(err, "RawProduce")
	if r.Error == nil {
		t.seq += int32(n)
	}
	return r.BaseOffset, r.Error
}

func (t *txnProducer) end(commit bool) error {
	r, err := t.c.EndTxn(ctx, &kafka.EndTxnRequest{TransactionalID: t.id, ProducerID: int(t.pid), ProducerEpoch: int(t.epoch),
		Committed: commit})
	ck.Must(err, "EndTxn")
	return r.Error
}

func (t *txnProducer) commitOffset(group, topic string, p int, off int64) {
	ck.Must(retryConcurrent("AddOffsetsToTxn", func() error {
		ar, err := t.c.AddOffsetsToTxn(ctx, &kafka.AddOffsetsToTxnRequest{TransactionalID: t.id, ProducerID: int(t.pid),
			ProducerEpoch: int(t.epoch), GroupID: group})
		ck.Must(err, "AddOffsetsToTxn")
		return ar.Error
	}), "AddOffsetsToTxn")
	var tr *kafka.TxnOffsetCommitResponse
	waitFor("the group coordinator", 10*time.Second, func() bool {
		var err error
		tr, err = t.c.TxnOffsetCommit(ctx, &kafka.TxnOffsetCommitRequest{TransactionalID: t.id, GroupID: group,
			ProducerID: int(t.pid), ProducerEpoch: int(t.epoch), GenerationID: -1,
			Topics: map[string][]kafka.TxnOffsetCommit{topic: {{Partition: p, Offset: off, Metadata: "txn"}}}})
		ck.Must(err, "TxnOffsetCommit")
		return !coordinatorLoading(tr.Topics[topic][0].Error)
	})
	ck.Must(tr.Topics[topic][0].Error, "TxnOffsetCommit")
}

func committedOffset(c *kafka.Client, group, topic string, p int) int64 {
	r, err := c.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: {p}}})
	ck.Must(err, "OffsetFetch")
	ck.Must(r.Error, "OffsetFetch")
	ck.Must(r.Topics[topic][0].Error, "OffsetFetch")
	return r.Topics[topic][0].CommittedOffset
}

func txn() {
	c := client()
	ck.Notef("no transactional Writer, DescribeTransactions or DescribeProducers: transactions by Client requests (InitProducerID, AddPartitionsToTxn, RawProduce, AddOffsetsToTxn, TxnOffsetCommit, EndTxn)")
	topic, grp := "kg-txn", "kg-tg"
	createTopic(c, topic, 1, nil)

	ck.Stage("commit, abort, commit with offsets")
	t := initProducer(c, "kg-tx")
	ck.Check(t.pid >= 0, "InitProducerID gave %d/%d", t.pid, t.epoch)
	ck.Must(t.addPartition(topic, 0), "AddPartitionsToTxn")
	o, err := t.produce(topic, 0, 5)
	ck.Must(err, "produce 1")
	ck.Check(o == 0, "first transaction at %d", o)
	ck.Must(t.end(true), "commit")
	ck.Must(t.addPartition(topic, 0), "AddPartitionsToTxn")
	o, err = t.produce(topic, 0, 3)
	ck.Must(err, "produce 2")
	ck.Check(o == 6, "second transaction at %d, want 6 (after the commit marker)", o)
	// the open transaction holds the last stable offset at 6
	f, err := c.Fetch(ctx, &kafka.FetchRequest{Topic: topic, Partition: 0, MaxBytes: 1 << 20, IsolationLevel: kafka.ReadCommitted})
	ck.Must(err, "Fetch")
	ck.Check(f.LastStableOffset == 6 && f.HighWatermark == 9, "while open: LSO %d HWM %d, want 6 9", f.LastStableOffset, f.HighWatermark)
	ck.Must(t.end(false), "abort")
	ck.Must(t.addPartition(topic, 0), "AddPartitionsToTxn")
	o, err = t.produce(topic, 0, 2)
	ck.Must(err, "produce 3")
	ck.Check(o == 10, "third transaction at %d", o)
	t.commitOffset(grp, topic, 0, 42)
	ck.Must(t.end(true), "commit with offsets")
	waitFor("the transactional offset commit", 10*time.Second, func() bool { return committedOffset(c, grp, topic, 0) == 42 })
	ck.Check(committedOffset(c, grp, topic, 0) == 42, "transactional offset commit: %d", committedOffset(c, grp, topic, 0))
	t.commitOffset(grp, topic, 0, 99)
	ck.Must(t.end(false), "abort with offsets")
	waitFor("the abort's marker", 10*time.Second, func() bool { return endOffset(c, topic, 0) == 13 })
	ck.Check(committedOffset(c, grp, topic, 0) == 42, "aborted offset commit shows: %d", committedOffset(c, grp, topic, 0))

	want := []struct {
		base, last int64
		control    bool
		commit     bool
	}{{0, 4, false, false}, {5, 5, true, true}, {6, 8, false, false}, {9, 9, true, false}, {10, 11, false, false}, {12, 12, true, true}}
	bs, r := fetchBatches(c, topic, 0, kafka.ReadUncommitted)
	ck.Check(len(bs) == len(want), "%s: %d batches, want %d", topic, len(bs), len(want))
	for i, w := range want {
		b := bs[i]
		ck.Check(b.base == w.base && b.lastOffs == w.last && b.control == w.control && b.attrs.Transactional() &&
			b.pid == t.pid && b.epoch == t.epoch && (!w.control || b.commit == w.commit),
			"%s batch %d: base %d last %d control %v commit %v transactional %v pid %d/%d, want %+v",
			topic, i, b.base, b.lastOffs, b.control, b.commit, b.attrs.Transactional(), b.pid, b.epoch, w)
	}
	ck.Check(r.HighWatermark == 13 && r.LastStableOffset == 13, "HWM %d LSO %d, want 13", r.HighWatermark, r.LastStableOffset)
	ck.Okf("transactions: the log holds three transactions' batches and their commit/abort/commit markers; LSO held while open; offsets committed with a commit, not with an abort")
	got := readPartitions(topic, 1, -1, kafka.ReadCommitted)
	if len(got) != 7 {
		ck.Notef("the Reader at read_committed returned %d messages for 10 data records (7 committed) and 3 markers: kafka-go filters neither aborted records nor control batches", len(got))
	}

	ck.Stage("a fenced producer")
	ck.Must(t.addPartition(topic, 0), "AddPartitionsToTxn")
	_, err = t.produce(topic, 0, 1)
	ck.Must(err, "produce in the zombie's transaction")
	t2 := initProducer(c, "kg-tx")
	ck.Check(t2.pid == t.pid && t2.epoch > t.epoch, "the new producer: %d/%d, the old %d/%d", t2.pid, t2.epoch, t.pid, t.epoch)
	err = t.end(true)
	expectErr("the fenced producer's EndTxn", err, kafka.ProducerFenced)
	_, err = t.produce(topic, 0, 1)
	ck.Check(errors.Is(err, kafka.InvalidProducerEpoch) || errors.Is(err, kafka.ProducerFenced),
		"the fenced producer's produce: %v, want INVALID_PRODUCER_EPOCH", err)
	ck.Okf("the fenced producer's produce: %s", errName(err))
	err = t.addPartition(topic, 0)
	ck.Check(errors.Is(err, kafka.ProducerFenced) || errors.Is(err, kafka.InvalidProducerEpoch),
		"the fenced producer's AddPartitionsToTxn: %v", err)
	ck.Okf("the fenced producer's AddPartitionsToTxn: %s", errName(err))
	ck.Must(t2.addPartition(topic, 0), "AddPartitionsToTxn")
	o, err = t2.produce(topic, 0, 1)
	ck.Must(err, "the new producer's produce")
	ck.Must(t2.end(true), "the new producer's commit")
	waitFor("the new producer's commit marker", 10*time.Second, func() bool { return endOffset(c, topic, 0) == o+2 })
	bs, r = fetchBatches(c, topic, 0, kafka.ReadUncommitted)
	n := len(bs)
	ck.Check(n == 10, "%d batches after the fencing, want 10", n)
	ck.Check(!bs[6].control && bs[6].epoch == t.epoch && bs[7].control && !bs[7].commit && bs[7].epoch > t.epoch,
		"the zombie's transaction: %+v then %+v, want its data then an abort marker at a newer epoch", bs[6], bs[7])
	ck.Check(bs[8].base == o && bs[8].epoch == t2.epoch && bs[8].seq == 0 && bs[9].control && bs[9].commit,
		"the new producer's transaction: %+v %+v", bs[8], bs[9])
	ck.Check(r.LastStableOffset == r.HighWatermark, "LSO %d HWM %d", r.LastStableOffset, r.HighWatermark)
	ck.Okf("fencing: the zombie's open transaction aborted at the new epoch, the new producer's committed")
}
