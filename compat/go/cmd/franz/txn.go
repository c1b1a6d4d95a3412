package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

func txnClient(id string, extra ...kgo.Opt) *kgo.Client {
	return client(append([]kgo.Opt{kgo.TransactionalID(id), kgo.TransactionTimeout(20 * time.Second),
		kgo.ProducerLinger(0)}, extra...)...)
}

func keyed(topic, tag string, n int) []*kgo.Record {
	var rs []*kgo.Record
	for i := 0; i < n; i++ {
		rs = append(rs, &kgo.Record{Topic: topic, Key: []byte(fmt.Sprintf("%s%d", tag, i)),
			Value:   []byte(fmt.Sprintf("%s-value-%d", tag, i)),
			Headers: []kgo.RecordHeader{{Key: "txn", Value: []byte(tag)}}})
	}
	return rs
}

func readAll(topic string, n int, committed bool) []*kgo.Record {
	iso := kgo.ReadUncommitted()
	if committed {
		iso = kgo.ReadCommitted()
	}
	cl := client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(iso))
	defer cl.Close()
	rs := consume(cl, n, 20*time.Second)
	// nothing more comes
	c, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	more := cl.PollFetches(c).Records()
	ck.Check(len(more) == 0, "%s: %d records past the %d expected (first %s)", topic, len(more), n, recStr(more))
	return rs
}

func recStr(rs []*kgo.Record) string {
	if len(rs) == 0 {
		return "-"
	}
	return toRec(rs[0]).String()
}

// settledTxn waits for a transaction's end to complete: Kafka answers
// EndTxn at PrepareCommit/PrepareAbort and writes the markers after.
func settledTxn(adm *kadm.Client, id string) kadm.DescribedTransaction {
	var d kadm.DescribedTransaction
	waitFor(id+" to complete", 10*time.Second, func() bool {
		d = describeTxn(adm, id)
		return d.State != "PrepareCommit" && d.State != "PrepareAbort"
	})
	return d
}

func describeTxn(adm *kadm.Client, id string) kadm.DescribedTransaction {
	ds, err := adm.DescribeTransactions(ctx, id)
	ck.Must(err, "DescribeTransactions")
	d, ok := ds[id]
	ck.Check(ok, "DescribeTransactions: %s missing", id)
	ck.Must(d.Err, "DescribeTransactions "+id)
	return d
}

func txn() {
	adm, acl := admin()
	defer acl.Close()
	versions(acl, 22, 24, 25, 26, 28, 61, 65, 66)
	topic := "fz-txn"
	createTopic(adm, topic, 2, nil)

	ck.Stage("commit, abort, commit; describe while open")
	p := txnClient("fz-txn-1")
	ck.Must(p.BeginTransaction(), "begin")
	first := keyed(topic, "c", 50)
	ck.Must(p.ProduceSync(ctx, first...).FirstErr(), "produce c")
	ck.Must(p.EndTransaction(ctx, kgo.TryCommit), "commit")
	d := settledTxn(adm, "fz-txn-1")
	ck.Check(d.State == "CompleteCommit", "after the commit: state %s", d.State)
	pid, epoch := d.ProducerID, d.ProducerEpoch

	ck.Must(p.BeginTransaction(), "begin")
	aborted := keyed(topic, "a", 30)
	ck.Must(p.ProduceSync(ctx, aborted...).FirstErr(), "produce a")
	d = describeTxn(adm, "fz-txn-1")
	ck.Check(d.State == "Ongoing" && d.ProducerID == pid && d.TimeoutMillis == 20000,
		"open transaction: state %s pid %d (want %d) timeout %d", d.State, d.ProducerID, pid, d.TimeoutMillis)
	ck.Check(len(d.Topics[topic]) > 0, "open transaction: partitions %v", d.Topics)
	lt, err := adm.ListTransactions(ctx, nil, []string{"Ongoing"})
	ck.Must(err, "ListTransactions")
	ck.Check(lt["fz-txn-1"].State == "Ongoing" && lt["fz-txn-1"].ProducerID == pid, "ListTransactions Ongoing: %+v", lt)
	// the open transaction's first offsets: DescribeProducers and the
	// last stable offset
	firstOpen := map[int32]int64{}
	for _, r := range aborted {
		if o, ok := firstOpen[r.Partition]; !ok || r.Offset < o {
			firstOpen[r.Partition] = r.Offset
		}
	}
	dp, err := adm.DescribeProducers(ctx, kadm.TopicsSet{topic: {0: {}, 1: {}}})
	ck.Must(err, "DescribeProducers")
	lso, err := adm.ListCommittedOffsets(ctx, topic)
	ck.Must(err, "ListCommittedOffsets")
	hwm, err := adm.ListEndOffsets(ctx, topic)
	ck.Must(err, "ListEndOffsets")
	for part, start := range firstOpen {
		dpp, ok := dp[topic].Partitions[part]
		ck.Check(ok, "DescribeProducers: partition %d missing", part)
		ck.Must(dpp.Err, "DescribeProducers")
		pr, ok := dpp.ActiveProducers[pid]
		ck.Check(ok, "DescribeProducers %s[%d]: producer %d not listed (%v)", topic, part, pid, dpp.ActiveProducers)
		ck.Check(pr.ProducerEpoch == epoch && pr.CurrentTxnStartOffset == start,
			"DescribeProducers %s[%d]: epoch %d (want %d), txn start %d (want %d)", topic, part, pr.ProducerEpoch, epoch, pr.CurrentTxnStartOffset, start)
		ck.Check(pr.LastSequence >= 0 && pr.LastTimestamp > 0, "DescribeProducers: last sequence %d timestamp %d", pr.LastSequence, pr.LastTimestamp)
		l, _ := lso.Lookup(topic, part)
		h, _ := hwm.Lookup(topic, part)
		ck.Check(l.Offset == start, "%s[%d]: last stable offset %d, the open transaction starts at %d", topic, part, l.Offset, start)
		ck.Check(h.Offset > start, "%s[%d]: high watermark %d", topic, part, h.Offset)
	}
	ck.Okf("open transaction: DescribeTransactions Ongoing, ListTransactions, DescribeProducers txn start = LSO = %v", firstOpen)
	// a read_committed reader sees only the first transaction meanwhile
	got := readAll(topic, 50, true)
	for _, r := range got {
		ck.Check(strings.HasPrefix(string(r.Key), "c"), "read_committed during the open transaction got %s", toRec(r))
	}
	ck.Must(p.EndTransaction(ctx, kgo.TryAbort), "abort")
	d = settledTxn(adm, "fz-txn-1")
	ck.Check(d.State == "CompleteAbort", "after the abort: state %s", d.State)
	ck.Must(p.BeginTransaction(), "begin")
	third := keyed(topic, "d", 20)
	ck.Must(p.ProduceSync(ctx, third...).FirstErr(), "produce d")
	ck.Must(p.EndTransaction(ctx, kgo.TryCommit), "commit")
	p.Close()

	var want []ck.Rec
	for _, r := range append(append([]*kgo.Record{}, first...), third...) {
		want = append(want, toRec(r))
	}
	var gotRecs []ck.Rec
	for _, r := range readAll(topic, 70, true) {
		ck.Check(r.Attrs.IsTransactional() && r.ProducerID == pid, "%s: not transactional or pid %d", toRec(r), r.ProducerID)
		gotRecs = append(gotRecs, toRec(r))
	}
	ck.CompareAll("read_committed "+topic, want, gotRecs)
	for _, r := range aborted {
		want = append(want, toRec(r))
	}
	gotRecs = nil
	for _, r := range readAll(topic, 100, false) {
		gotRecs = append(gotRecs, toRec(r))
	}
	ck.CompareAll("read_uncommitted "+topic, want, gotRecs)
	// each transaction's marker takes an offset: the end offset is one
	// past the last commit marker, and no data sits at a marker's offset
	settledTxn(adm, "fz-txn-1")
	hwm, err = adm.ListEndOffsets(ctx, topic)
	ck.Must(err, "ListEndOffsets")
	lso, err = adm.ListCommittedOffsets(ctx, topic)
	ck.Must(err, "ListCommittedOffsets")
	for part := int32(0); part < 2; part++ {
		var last int64 = -1
		for _, r := range third {
			if r.Partition == part && r.Offset > last {
				last = r.Offset
			}
		}
		h, _ := hwm.Lookup(topic, part)
		l, _ := lso.Lookup(topic, part)
		ck.Check(h.Offset == l.Offset, "%s[%d]: LSO %d != HWM %d with no open transaction", topic, part, l.Offset, h.Offset)
		if last >= 0 {
			ck.Check(h.Offset == last+2, "%s[%d]: end offset %d, want the last record %d + marker", topic, part, h.Offset, last)
		}
	}
	ck.Okf("transactions: 70 committed records read_committed, 100 read_uncommitted, markers take offsets, LSO = HWM")

	fenced(adm)
	ctp(adm)
}

func fenced(adm *kadm.Client) {
	ck.Stage("a fenced producer")
	topic := "fz-fence"
	createTopic(adm, topic, 1, nil)
	p1 := txnClient("fz-fence-tx")
	ck.Must(p1.BeginTransaction(), "p1 begin")
	ck.Must(p1.ProduceSync(ctx, keyed(topic, "zombie", 5)...).FirstErr(), "p1 produce")
	d := describeTxn(adm, "fz-fence-tx")
	e1 := d.ProducerEpoch
	p2 := txnClient("fz-fence-tx")
	ck.Must(p2.BeginTransaction(), "p2 begin")
	ck.Must(p2.ProduceSync(ctx, keyed(topic, "live", 3)...).FirstErr(), "p2 produce")
	ck.Must(p2.EndTransaction(ctx, kgo.TryCommit), "p2 commit")
	d = settledTxn(adm, "fz-fence-tx")
	ck.Check(d.ProducerEpoch > e1 && d.State == "CompleteCommit", "after p2: epoch %d (p1 had %d), state %s", d.ProducerEpoch, e1, d.State)
	err := p1.EndTransaction(ctx, kgo.TryCommit)
	ck.Check(err != nil, "the fenced producer committed")
	ck.Check(errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch),
		"the fenced producer's commit: %v, want PRODUCER_FENCED", err)
	ck.Okf("fenced producer's commit: %s", errName(err))
	// and its next transaction: the client stays fenced
	aerr := p1.EndTransaction(ctx, kgo.TryAbort)
	err = p1.BeginTransaction()
	if err == nil {
		err = p1.ProduceSync(ctx, keyed(topic, "zombie2", 1)...).FirstErr()
	}
	ck.Check(errors.Is(err, kerr.ProducerFenced), "the fenced producer's next transaction: %v, want PRODUCER_FENCED", err)
	ck.Okf("the fenced producer's next transaction: PRODUCER_FENCED (its abort: %v)", aerr)
	p1.Close()
	p2.Close()
	for _, r := range readAll(topic, 3, true) {
		ck.Check(strings.HasPrefix(string(r.Key), "live"), "read_committed %s got %s", topic, toRec(r))
	}
	ck.Okf("fencing: the old producer's transaction was aborted, the new one's 3 records committed")
}

// ctp: consume-transform-produce with GroupTransactSession; one
// transaction aborted (its input read again), the rest committed.
func ctp(adm *kadm.Client) {
	ck.Stage("consume-transform-produce (GroupTransactSession)")
	in, out, grp := "fz-ctp-in", "fz-ctp-out", "fz-ctp"
	createTopic(adm, in, 2, nil)
	createTopic(adm, out, 2, nil)
	produceKeyed(in, 0, 300)
	s, err := kgo.NewGroupTransactSession(kgo.SeedBrokers(ck.Bootstrap()), kgo.TransactionalID("fz-ctp-tx"),
		kgo.TransactionTimeout(20*time.Second), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumerGroup(grp), kgo.ConsumeTopics(in), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.RequireStableFetchOffsets(), kgo.SessionTimeout(6*time.Second), kgo.HeartbeatInterval(200*time.Millisecond),
		kgo.FetchMaxWait(200*time.Millisecond), kgo.ProducerLinger(0))
	ck.Must(err, "NewGroupTransactSession")
	committed := map[string]bool{}
	aborts, txns := 0, 0
	deadline := time.Now().Add(40 * time.Second)
	for len(committed) < 300 {
		ck.Check(time.Now().Before(deadline), "ctp: %d of 300 committed in 40 s", len(committed))
		c, cancel := context.WithTimeout(ctx, time.Second)
		fs := s.PollRecords(c, 40)
		cancel()
		fs.EachError(func(t string, p int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				ck.Fatalf("ctp fetch %s[%d]: %v", t, p, err)
			}
		})
		recs := fs.Records()
		if len(recs) == 0 {
			continue
		}
		ck.Must(s.Begin(), "ctp begin")
		var outs []*kgo.Record
		for _, r := range recs {
			outs = append(outs, &kgo.Record{Topic: out, Key: r.Key, Value: []byte(strings.ToUpper(string(r.Value))),
				Headers: []kgo.RecordHeader{{Key: "src", Value: []byte(fmt.Sprintf("%d/%d", r.Partition, r.Offset))}}})
		}
		ck.Must(s.ProduceSync(ctx, outs...).FirstErr(), "ctp produce")
		txns++
		commit := kgo.TryCommit
		if txns == 2 {
			commit = kgo.TryAbort
		}
		ok, err := s.End(ctx, commit)
		ck.Must(err, "ctp end")
		if commit == kgo.TryAbort {
			ck.Check(!ok, "the abort reported committed")
			aborts++
			continue
		}
		ck.Check(ok, "transaction %d did not commit", txns)
		for _, r := range recs {
			k := string(r.Key)
			ck.Check(!committed[k], "ctp: %s committed twice", k)
			committed[k] = true
		}
	}
	s.Close()
	ck.Check(aborts == 1, "aborts %d", aborts)
	checkCommitted(adm, grp, in, 2)
	seen := map[string]bool{}
	for _, r := range readAll(out, 300, true) {
		ck.Check(string(r.Value) == strings.ToUpper("v"+string(r.Key[1:])), "ctp output %s", toRec(r))
		ck.Check(!seen[string(r.Key)], "ctp output: %s twice", r.Key)
		seen[string(r.Key)] = true
	}
	ck.Okf("consume-transform-produce: %d transactions (one aborted and redone), 300 outputs once each, group offsets = input end", txns)
}
