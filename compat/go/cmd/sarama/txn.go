package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/IBM/sarama"
)

func txnConfig(id string) *sarama.Config {
	c := idempotent(config())
	c.Producer.Transaction.ID = id
	c.Producer.Transaction.Timeout = 20 * time.Second
	c.Producer.Transaction.Retry.Backoff = 50 * time.Millisecond
	return c
}

func readCommitted() *sarama.Config {
	c := config()
	c.Consumer.IsolationLevel = sarama.ReadCommitted
	return c
}

func keyedMsgs(topic, tag string, n int, ts time.Time) []*sarama.ProducerMessage {
	var ms []*sarama.ProducerMessage
	for i := 0; i < n; i++ {
		ms = append(ms, &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(fmt.Sprintf("%s%d", tag, i)),
			Value:     sarama.StringEncoder(fmt.Sprintf("%s-value-%d", tag, i)),
			Headers:   []sarama.RecordHeader{{Key: []byte("txn"), Value: []byte(tag)}},
			Timestamp: ts.Add(time.Duration(i) * time.Millisecond)})
	}
	return ms
}

func txn() {
	adm, cl := newAdmin()
	defer adm.Close()
	ck.Notef("no API for DescribeTransactions, ListTransactions or DescribeProducers (checked through kadm)")
	topic := "sa-txn"
	createTopic(adm, topic, 2, nil)
	ts := time.Now().Add(-time.Minute).Truncate(time.Millisecond)

	ck.Stage("commit, abort, commit")
	p := syncProducer(txnConfig("sa-txn-1"))
	ck.Check(p.IsTransactional(), "not transactional")
	ck.Must(p.BeginTxn(), "begin")
	first := keyedMsgs(topic, "c", 50, ts)
	ck.Must(p.SendMessages(first), "send c")
	ck.Must(p.CommitTxn(), "commit")
	ck.Must(p.BeginTxn(), "begin")
	aborted := keyedMsgs(topic, "a", 30, ts)
	ck.Must(p.SendMessages(aborted), "send a")
	// while open: read_committed sees the first transaction only, and the
	// last stable offset stops at the open one
	for _, m := range readPartitions(readCommitted(), topic, 2, nil, 50) {
		ck.Check(strings.HasPrefix(string(m.Key), "c"), "read_committed during the open transaction: %s", toRec(m))
	}
	lso, err := adm.ListOffsets(map[string]map[int32]int64{topic: {0: sarama.OffsetNewest, 1: sarama.OffsetNewest}},
		&sarama.ListOffsetsOptions{IsolationLevel: sarama.ReadCommitted})
	ck.Must(err, "ListOffsets read_committed")
	for part := int32(0); part < 2; part++ {
		start := int64(-1)
		for _, m := range aborted {
			if m.Partition == part && (start < 0 || m.Offset < start) {
				start = m.Offset
			}
		}
		if start >= 0 {
			ck.Check(lso[topic][part].Offset == start, "%s[%d]: last stable offset %d, the open transaction starts at %d",
				topic, part, lso[topic][part].Offset, start)
		}
	}
	ck.Must(p.AbortTxn(), "abort")
	ck.Must(p.BeginTxn(), "begin")
	third := keyedMsgs(topic, "d", 20, ts)
	ck.Must(p.SendMessages(third), "send d")
	ck.Must(p.CommitTxn(), "commit")
	ck.Must(p.Close(), "close")

	var want, gotRecs []ck.Rec
	for _, m := range append(append([]*sarama.ProducerMessage{}, first...), third...) {
		want = append(want, sentRec(m))
	}
	for _, m := range readPartitions(readCommitted(), topic, 2, nil, 70) {
		gotRecs = append(gotRecs, toRec(m))
	}
	ck.CompareAll("read_committed "+topic, want, gotRecs)
	for _, m := range aborted {
		want = append(want, sentRec(m))
	}
	gotRecs = nil
	for _, m := range readPartitions(nil, topic, 2, nil, 100) {
		gotRecs = append(gotRecs, toRec(m))
	}
	ck.CompareAll("read_uncommitted "+topic, want, gotRecs)
	for part := int32(0); part < 2; part++ {
		last := int64(-1)
		for _, m := range third {
			if m.Partition == part && m.Offset > last {
				last = m.Offset
			}
		}
		hwm, err := cl.GetOffset(topic, part, sarama.OffsetNewest)
		ck.Must(err, "GetOffset")
		if last >= 0 {
			ck.Check(hwm == last+2, "%s[%d]: newest %d, want the last message %d + its marker", topic, part, hwm, last)
		}
	}
	ck.Okf("transactions: 70 committed messages read_committed, 100 read_uncommitted, LSO at the open transaction, markers take offsets")

	fenced(adm)
	ctp(adm, cl)
}

func fenced(adm sarama.ClusterAdmin) {
	ck.Stage("a fenced producer")
	topic := "sa-fence"
	createTopic(adm, topic, 1, nil)
	ts := time.Now().Truncate(time.Millisecond)
	p1 := syncProducer(txnConfig("sa-fence-tx"))
	ck.Must(p1.BeginTxn(), "p1 begin")
	ck.Must(p1.SendMessages(keyedMsgs(topic, "zombie", 5, ts)), "p1 send")
	p2 := syncProducer(txnConfig("sa-fence-tx"))
	ck.Must(p2.BeginTxn(), "p2 begin")
	ck.Must(p2.SendMessages(keyedMsgs(topic, "live", 3, ts)), "p2 send")
	ck.Must(p2.CommitTxn(), "p2 commit")
	err := p1.CommitTxn()
	ck.Check(err != nil, "the fenced producer committed")
	expectErr("the fenced producer's commit", err, sarama.ErrProducerFenced)
	ck.Check(p1.TxnStatus()&sarama.ProducerTxnFlagFatalError != 0, "the fenced producer's state %v is not fatal", p1.TxnStatus())
	p1.Close()
	p2.Close()
	for _, m := range readPartitions(readCommitted(), topic, 1, nil, 3) {
		ck.Check(strings.HasPrefix(string(m.Key), "live"), "read_committed %s: %s", topic, toRec(m))
	}
	ck.Okf("fencing: the old producer's transaction aborted, the new one's 3 messages committed")
}

// ctp: a consumer group member reads, a transactional producer writes the
// transformed messages and adds the input offsets (AddOffsetsToTxn,
// TxnOffsetCommit with the member's generation); the second transaction
// aborts and the session restarts from the committed offsets.
type ctpHandler struct {
	mu        sync.Mutex
	p         sarama.SyncProducer
	group     string
	out       string
	txns      int
	committed map[string]bool
	restart   context.CancelFunc
}

func (h *ctpHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *ctpHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *ctpHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for {
		var batch []*sarama.ConsumerMessage
		select {
		case <-s.Context().Done():
			return nil
		case m, ok := <-c.Messages():
			if !ok {
				return nil
			}
			batch = append(batch, m)
		}
	drain:
		for len(batch) < 40 {
			select {
			case m, ok := <-c.Messages():
				if !ok {
					break drain
				}
				batch = append(batch, m)
			default:
				break drain
			}
		}
		if !h.process(s, batch) {
			return nil
		}
	}
}

func (h *ctpHandler) process(s sarama.ConsumerGroupSession, batch []*sarama.ConsumerMessage) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.Context().Err() != nil {
		return false
	}
	ck.Must(h.p.BeginTxn(), "ctp begin")
	var outs []*sarama.ProducerMessage
	for _, m := range batch {
		outs = append(outs, &sarama.ProducerMessage{Topic: h.out, Key: sarama.ByteEncoder(m.Key),
			Value:   sarama.StringEncoder(strings.ToUpper(string(m.Value))),
			Headers: []sarama.RecordHeader{{Key: []byte("src"), Value: []byte(fmt.Sprintf("%d/%d", m.Partition, m.Offset))}}})
	}
	ck.Must(h.p.SendMessages(outs), "ctp send")
	meta := &sarama.ConsumerGroupMetadata{GroupID: h.group, GenerationID: s.GenerationID(), MemberID: s.MemberID()}
	ck.Must(h.p.AddMessageToTxnWithGroupMetadata(batch[len(batch)-1], meta, nil), "AddMessageToTxn")
	h.txns++
	if h.txns == 2 {
		ck.Must(h.p.AbortTxn(), "ctp abort")
		h.restart() // read again from the committed offsets
		return false
	}
	ck.Must(h.p.CommitTxn(), fmt.Sprintf("ctp commit %d", h.txns))
	for _, m := range batch {
		k := string(m.Key)
		ck.Check(!h.committed[k], "ctp: %s committed twice", k)
		h.committed[k] = true
	}
	return true
}

func (h *ctpHandler) count() int { h.mu.Lock(); defer h.mu.Unlock(); return len(h.committed) }

func ctp(adm sarama.ClusterAdmin, cl sarama.Client) {
	ck.Stage("consume-transform-produce (AddMessageToTxn)")
	in, out, grp := "sa-ctp-in", "sa-ctp-out", "sa-ctp"
	createTopic(adm, in, 2, nil)
	createTopic(adm, out, 2, nil)
	p := syncProducer(config())
	var ms []*sarama.ProducerMessage
	for i := 0; i < 300; i++ {
		ms = append(ms, &sarama.ProducerMessage{Topic: in, Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)),
			Value: sarama.StringEncoder(fmt.Sprintf("v%d", i))})
	}
	ck.Must(p.SendMessages(ms), "produce input")
	p.Close()
	gc := groupConfig("ctp", sarama.NewBalanceStrategyRange())
	gc.Consumer.IsolationLevel = sarama.ReadCommitted
	g, err := sarama.NewConsumerGroup([]string{ck.Bootstrap()}, grp, gc)
	ck.Must(err, "NewConsumerGroup")
	h := &ctpHandler{p: syncProducer(txnConfig("sa-ctp-tx")), group: grp, out: out, committed: map[string]bool{}}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			ctx, cancel := context.WithCancel(context.Background())
			h.mu.Lock()
			h.restart = cancel
			h.mu.Unlock()
			go func() {
				select {
				case <-stop:
					cancel()
				case <-ctx.Done():
				}
			}()
			if err := g.Consume(ctx, []string{in}, h); err != nil && ctx.Err() == nil && !coordinatorLoading(err) {
				ck.Fatalf("ctp Consume: %v", err)
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	waitFor("300 inputs committed", 40*time.Second, func() bool { return h.count() == 300 })
	close(stop)
	<-done
	ck.Must(g.Close(), "close group")
	ck.Must(h.p.Close(), "close producer")
	settle(adm, cl, grp, in, 2)
	seen := map[string]bool{}
	for _, m := range readPartitions(readCommitted(), out, 2, nil, 300) {
		ck.Check(string(m.Value) == strings.ToUpper("v"+string(m.Key[1:])), "ctp output %s", toRec(m))
		ck.Check(!seen[string(m.Key)], "ctp output: %s twice", m.Key)
		seen[string(m.Key)] = true
	}
	ck.Okf("consume-transform-produce: %d transactions (one aborted and read again), 300 outputs once each, group offsets = input newest", h.txns)
}
