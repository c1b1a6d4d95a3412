package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

type pos struct {
	p int32
	o int64
}

// member is one group consumer: it polls, records what it processed,
// commits synchronously before it lets a rebalance proceed, and keeps its
// current assignment.
type member struct {
	name string
	cl   *kgo.Client
	mu   sync.Mutex
	own  map[int32]bool
	hold bool // stop processing (still let rebalances through)
	done chan struct{}
	wg   sync.WaitGroup
}

type ledger struct {
	mu   sync.Mutex
	seen map[pos]string
	recs map[pos]*kgo.Record
}

func (l *ledger) count() int { l.mu.Lock(); defer l.mu.Unlock(); return len(l.seen) }

func newMember(name, group, topic string, l *ledger, extra ...kgo.Opt) *member {
	m := &member{name: name, own: map[int32]bool{}, done: make(chan struct{})}
	opts := append([]kgo.Opt{
		kgo.ClientID("franz-" + name),
		kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.DisableAutoCommit(), kgo.BlockRebalanceOnPoll(),
		kgo.SessionTimeout(6 * time.Second), kgo.HeartbeatInterval(200 * time.Millisecond),
		kgo.RebalanceTimeout(10 * time.Second),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
			m.mu.Lock()
			for _, p := range a[topic] {
				m.own[p] = true
			}
			m.mu.Unlock()
		}),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, r map[string][]int32) {
			m.mu.Lock()
			for _, p := range r[topic] {
				delete(m.own, p)
			}
			m.mu.Unlock()
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, r map[string][]int32) {
			// (called with nothing when a join fails and is retried, as
			// while Kafka creates __consumer_offsets)
			if len(r[topic]) > 0 {
				ck.Fatalf("%s lost partitions %v", name, r)
			}
		}),
	}, extra...)
	m.cl = client(opts...)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		for {
			select {
			case <-m.done:
				return
			default:
			}
			m.mu.Lock()
			hold := m.hold
			m.mu.Unlock()
			if hold {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			c, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			fs := m.cl.PollRecords(c, 25)
			cancel()
			fs.EachError(func(t string, p int32, err error) {
				if err != context.DeadlineExceeded && err != kgo.ErrClientClosed {
					ck.Fatalf("%s: fetch %s[%d]: %v", name, t, p, err)
				}
			})
			l.mu.Lock()
			fs.EachRecord(func(r *kgo.Record) {
				k := pos{r.Partition, r.Offset}
				if who, dup := l.seen[k]; dup {
					ck.Fatalf("%s[%d]@%d processed twice (%s, then %s)", topic, r.Partition, r.Offset, who, name)
				}
				l.seen[k] = name
				l.recs[k] = r
			})
			l.mu.Unlock()
			if len(fs.Records()) > 0 {
				ck.Must(m.cl.CommitUncommittedOffsets(ctx), name+" commit")
			}
			m.cl.AllowRebalance()
		}
	}()
	return m
}

func (m *member) owned() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ps []int32
	for p := range m.own {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
	return ps
}

func (m *member) setHold(h bool) { m.mu.Lock(); m.hold = h; m.mu.Unlock() }

func (m *member) stop() {
	close(m.done)
	m.wg.Wait()
	m.cl.Close() // leaves the group
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

func produceKeyed(topic string, from, n int) {
	pcl := client()
	defer pcl.Close()
	var rs []*kgo.Record
	for i := from; i < from+n; i++ {
		rs = append(rs, &kgo.Record{Topic: topic, Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("v%d", i))})
	}
	ck.Must(pcl.ProduceSync(ctx, rs...).FirstErr(), "produce to "+topic)
}

func checkCommitted(adm *kadm.Client, group, topic string, parts int32) {
	ends, err := adm.ListEndOffsets(ctx, topic)
	ck.Must(err, "ListEndOffsets")
	offs, err := adm.FetchOffsets(ctx, group)
	ck.Must(err, "FetchOffsets")
	ck.Must(offs.Error(), "FetchOffsets")
	for p := int32(0); p < parts; p++ {
		e, _ := ends.Lookup(topic, p)
		o, ok := offs.Lookup(topic, p)
		ck.Check(ok && o.At == e.Offset, "%s %s[%d]: committed %d (found %v), end offset %d", group, topic, p, o.At, ok, e.Offset)
	}
}

func describe(adm *kadm.Client, group string) kadm.DescribedGroup {
	ds, err := adm.DescribeGroups(ctx, group)
	ck.Must(err, "DescribeGroups")
	d, err := ds.On(group, nil)
	ck.Must(err, "DescribeGroups "+group)
	ck.Must(d.Err, "DescribeGroups "+group)
	return d
}

func group() {
	adm, acl := admin()
	defer acl.Close()
	versions(acl, 8, 9, 10, 11, 12, 13, 14, 15, 16)
	topic, grp := "fz-grp", "fz-g"
	createTopic(adm, topic, 4, nil)
	produceKeyed(topic, 0, 400)
	l := &ledger{seen: map[pos]string{}, recs: map[pos]*kgo.Record{}}

	ck.Stage("one member takes every partition")
	a := newMember("a", grp, topic, l)
	waitFor("a to own 4 partitions", 20*time.Second, func() bool { return len(a.owned()) == 4 })
	waitFor("a to process 100", 20*time.Second, func() bool { return l.count() >= 100 })
	a.setHold(true)
	time.Sleep(100 * time.Millisecond) // its last poll committed

	ck.Stage("a second member joins: cooperative rebalance")
	b := newMember("b", grp, topic, l)
	waitFor("b to be assigned", 30*time.Second, func() bool { return len(b.owned()) == 2 && len(a.owned()) == 2 })
	ap, bp := a.owned(), b.owned()
	all := map[int32]bool{}
	for _, p := range append(append([]int32{}, ap...), bp...) {
		all[p] = true
	}
	ck.Check(len(all) == 4, "after the rebalance a owns %v, b owns %v", ap, bp)
	ck.Okf("rebalance: a owns %v, b owns %v", ap, bp)
	a.setHold(false)
	waitFor("400 processed", 30*time.Second, func() bool { return l.count() == 400 })

	d := describe(adm, grp)
	ck.Check(d.State == "Stable" && d.ProtocolType == "consumer" && d.Protocol == "cooperative-sticky" && len(d.Members) == 2,
		"described %s: state %s, type %s, protocol %s, %d members", grp, d.State, d.ProtocolType, d.Protocol, len(d.Members))
	for _, mem := range d.Members {
		as, ok := mem.Assigned.AsConsumer()
		ck.Check(ok, "member %s: assignment not a consumer one", mem.MemberID)
		var got []int32
		for _, t := range as.Topics {
			got = append(got, t.Partitions...)
		}
		sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
		want := ap
		if mem.ClientID == "franz-b" {
			want = bp
		}
		ck.Check(fmt.Sprint(got) == fmt.Sprint(want), "member %s (%s): described assignment %v, client has %v",
			mem.MemberID, mem.ClientID, got, want)
		ck.Check(mem.ClientHost != "", "member %s has no client host", mem.MemberID)
	}
	ck.Okf("DescribeGroups: Stable, cooperative-sticky, the members' assignments as the clients have them")

	produceKeyed(topic, 400, 200)
	waitFor("600 processed", 30*time.Second, func() bool { return l.count() == 600 })
	waitFor("commits settle", 5*time.Second, func() bool {
		offs, err := adm.FetchOffsets(ctx, grp)
		return err == nil && offs.Error() == nil && len(offs[topic]) == 4
	})
	checkCommitted(adm, grp, topic, 4)
	ck.Okf("600 records processed once each by two members; committed offsets = end offsets")

	ck.Stage("b leaves: a takes everything back")
	b.stop()
	waitFor("a to own 4 again", 30*time.Second, func() bool { return len(a.owned()) == 4 })
	produceKeyed(topic, 600, 100)
	waitFor("700 processed", 30*time.Second, func() bool { return l.count() == 700 })
	a.stop()
	d = describe(adm, grp)
	ck.Check(d.State == "Empty" && len(d.Members) == 0, "after both left: state %s, %d members", d.State, len(d.Members))
	checkCommitted(adm, grp, topic, 4)
	lags, err := adm.Lag(ctx, grp)
	ck.Must(err, "Lag")
	lag, ok := lags[grp]
	ck.Check(ok && lag.Error() == nil && lag.Lag.Total() == 0, "lag of %s: %+v", grp, lag.Lag)

	ck.Stage("a new member resumes from the committed offsets")
	produceKeyed(topic, 700, 50)
	c := newMember("c", grp, topic, l)
	waitFor("750 processed", 30*time.Second, func() bool { return l.count() == 750 })
	c.stop()
	checkCommitted(adm, grp, topic, 4)
	// every key's record exactly once, each at its murmur2 partition
	keys := map[string]bool{}
	for k, r := range l.recs {
		ck.Check(r.Partition == ck.KeyPartition(r.Key, 4), "%s on partition %d", r.Key, k.p)
		ck.Check(string(r.Value) == "v"+string(r.Key[1:]), "%s: value %s", r.Key, r.Value)
		keys[string(r.Key)] = true
	}
	ck.Check(len(keys) == 750, "%d distinct keys of 750", len(keys))
	ck.Okf("group: 750 records each processed once across joins, a leave and a restart; committed offsets, lag 0, states Stable then Empty")
}

// group848 is group() with the KIP-848 protocol (kgo.ServerSideBalancer):
// the broker assigns; a second member's join moves half the partitions
// cooperatively (a keeps the other half throughout), kadm's
// DescribeConsumerGroups (ConsumerGroupDescribe) shows the group, the
// members' commits carry member epochs, a leave gives everything back.
func group848() {
	adm, acl := admin()
	defer acl.Close()
	versions(acl, 8, 9, 68, 69)
	topic, grp := "fz-848", "fz-848-g"
	createTopic(adm, topic, 4, nil)
	produceKeyed(topic, 0, 400)
	l := &ledger{seen: map[pos]string{}, recs: map[pos]*kgo.Record{}}

	ck.Stage("one member of the consumer protocol takes every partition")
	a := newMember("a", grp, topic, l, kgo.ServerSideBalancer())
	waitFor("a to own 4 partitions", 20*time.Second, func() bool { return len(a.owned()) == 4 })
	waitFor("a to process 100", 20*time.Second, func() bool { return l.count() >= 100 })

	ck.Stage("a second member joins: the broker moves two partitions")
	b := newMember("b", grp, topic, l, kgo.ServerSideBalancer())
	waitFor("b to be assigned", 40*time.Second, func() bool { return len(b.owned()) == 2 && len(a.owned()) == 2 })
	ap, bp := a.owned(), b.owned()
	ck.Okf("rebalance: a owns %v, b owns %v", ap, bp)
	waitFor("400 processed", 30*time.Second, func() bool { return l.count() == 400 })
	ds, err := adm.DescribeConsumerGroups(ctx, grp)
	ck.Must(err, "DescribeConsumerGroups")
	d := ds[grp]
	ck.Must(d.Err, "DescribeConsumerGroups "+grp)
	ck.Check(d.State == "Stable" && d.AssignorName == "uniform" && len(d.Members) == 2 && d.Epoch == 3,
		"described %s: state %s, assignor %s, %d members, epoch %d", grp, d.State, d.AssignorName, len(d.Members), d.Epoch)
	ck.Okf("DescribeConsumerGroups: Stable, uniform, two members, group epoch 3")

	produceKeyed(topic, 400, 200)
	waitFor("600 processed", 30*time.Second, func() bool { return l.count() == 600 })
	waitFor("commits settle", 10*time.Second, func() bool {
		offs, err := adm.FetchOffsets(ctx, grp)
		if err != nil || offs.Error() != nil {
			return false
		}
		ends, _ := adm.ListEndOffsets(ctx, topic)
		for p := int32(0); p < 4; p++ {
			e, _ := ends.Lookup(topic, p)
			o, ok := offs.Lookup(topic, p)
			if !ok || o.At != e.Offset {
				return false
			}
		}
		return true
	})
	checkCommitted(adm, grp, topic, 4)

	ck.Stage("b leaves: a takes everything back")
	b.stop()
	waitFor("a to own 4 again", 30*time.Second, func() bool { return len(a.owned()) == 4 })
	produceKeyed(topic, 600, 100)
	waitFor("700 processed", 30*time.Second, func() bool { return l.count() == 700 })
	a.stop()
	ds, err = adm.DescribeConsumerGroups(ctx, grp)
	ck.Must(err, "DescribeConsumerGroups")
	ck.Check(ds[grp].State == "Empty", "after both left: state %s", ds[grp].State)
	checkCommitted(adm, grp, topic, 4)
	ck.Okf("group848: 700 records each processed once across a join and a leave; committed offsets = end offsets")
}
