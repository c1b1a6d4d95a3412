package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/IBM/sarama"
)

type pos struct {
	p int32
	o int64
}

type ledger struct {
	mu   sync.Mutex
	seen map[pos]string
	keys map[string]bool
}

func (l *ledger) count() int { l.mu.Lock(); defer l.mu.Unlock(); return len(l.seen) }

// member is one sarama ConsumerGroup: each message is recorded, marked and
// committed synchronously before the next; Setup/Cleanup keep the claims.
type member struct {
	name   string
	topic  string
	l      *ledger
	g      sarama.ConsumerGroup
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	own    []int32
	hold   bool
	n      int
}

func (m *member) Setup(s sarama.ConsumerGroupSession) error {
	m.mu.Lock()
	m.own = append([]int32{}, s.Claims()[m.topic]...)
	sort.Slice(m.own, func(i, j int) bool { return m.own[i] < m.own[j] })
	m.mu.Unlock()
	return nil
}

func (m *member) Cleanup(sarama.ConsumerGroupSession) error {
	m.mu.Lock()
	m.own = nil
	m.mu.Unlock()
	return nil
}

func (m *member) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for {
		select {
		case <-s.Context().Done():
			s.Commit()
			return nil
		case msg, ok := <-c.Messages():
			if !ok {
				return nil
			}
			for m.held() {
				select {
				case <-s.Context().Done():
					return nil // not processed: the next owner reads it
				case <-time.After(20 * time.Millisecond):
				}
			}
			if m.l != nil {
				m.l.mu.Lock()
				k := pos{msg.Partition, msg.Offset}
				if who, dup := m.l.seen[k]; dup {
					ck.Fatalf("%s[%d]@%d processed twice (%s, then %s)", m.topic, msg.Partition, msg.Offset, who, m.name)
				}
				m.l.seen[k] = m.name
				ck.Check(msg.Partition == ck.KeyPartition(msg.Key, 4), "%s on partition %d", msg.Key, msg.Partition)
				ck.Check(string(msg.Value) == "v"+string(msg.Key[1:]), "%s: value %s", msg.Key, msg.Value)
				m.l.keys[string(msg.Key)] = true
				m.l.mu.Unlock()
			}
			s.MarkMessage(msg, "")
			// commit when caught up (and every 50): before the claim
			// returns, so no processed message goes uncommitted
			if m.n++; len(c.Messages()) == 0 || m.n%50 == 0 {
				s.Commit()
			}
		}
	}
}

func (m *member) held() bool { m.mu.Lock(); defer m.mu.Unlock(); return m.hold }

func (m *member) setHold(h bool) { m.mu.Lock(); m.hold = h; m.mu.Unlock() }

func (m *member) owned() []int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]int32{}, m.own...)
}

func groupConfig(name string, strategy sarama.BalanceStrategy) *sarama.Config {
	c := config()
	c.ClientID = "sarama-" + name
	c.Consumer.Offsets.AutoCommit.Enable = false
	c.Consumer.Group.Session.Timeout = 6 * time.Second
	c.Consumer.Group.Heartbeat.Interval = 200 * time.Millisecond
	c.Consumer.Group.Rebalance.Timeout = 10 * time.Second
	c.Consumer.Group.Rebalance.Retry.Backoff = 100 * time.Millisecond
	c.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{strategy}
	return c
}

func newMember(name, group, topic string, l *ledger, strategy sarama.BalanceStrategy) *member {
	g, err := sarama.NewConsumerGroup([]string{ck.Bootstrap()}, group, groupConfig(name, strategy))
	ck.Must(err, "NewConsumerGroup")
	ctx, cancel := context.WithCancel(context.Background())
	m := &member{name: name, topic: topic, l: l, g: g, cancel: cancel, done: make(chan struct{})}
	go func() {
		for e := range g.Errors() {
			ck.Fatalf("%s: group error: %v", name, e)
		}
	}()
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			if err := g.Consume(ctx, []string{topic}, m); err != nil && ctx.Err() == nil {
				if coordinatorLoading(err) {
					time.Sleep(50 * time.Millisecond)
					continue
				}
				ck.Fatalf("%s: Consume: %v", name, err)
			}
		}
	}()
	return m
}

func (m *member) stop() {
	m.cancel()
	<-m.done
	ck.Must(m.g.Close(), m.name+" close")
}

func produceKeyed(topic string, from, n int) {
	p := syncProducer(config())
	defer p.Close()
	var ms []*sarama.ProducerMessage
	for i := from; i < from+n; i++ {
		ms = append(ms, &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(fmt.Sprintf("k%d", i)),
			Value: sarama.StringEncoder(fmt.Sprintf("v%d", i))})
	}
	ck.Must(p.SendMessages(ms), "produce to "+topic)
}

func checkCommitted(adm sarama.ClusterAdmin, cl sarama.Client, group, topic string, parts int32) {
	var ps []int32
	for p := int32(0); p < parts; p++ {
		ps = append(ps, p)
	}
	r, err := adm.ListConsumerGroupOffsets(group, map[string][]int32{topic: ps})
	ck.Must(err, "ListConsumerGroupOffsets")
	mustK(r.Err, "ListConsumerGroupOffsets")
	for p := int32(0); p < parts; p++ {
		hwm, err := cl.GetOffset(topic, p, sarama.OffsetNewest)
		ck.Must(err, "GetOffset")
		b := r.GetBlock(topic, p)
		ck.Check(b != nil && b.Offset == hwm, "%s %s[%d]: committed %+v, newest offset %d", group, topic, p, b, hwm)
	}
}

// settle waits until the group's commits reach the newest offsets (the
// last message is recorded before its commit returns)
func settle(adm sarama.ClusterAdmin, cl sarama.Client, group, topic string, parts int32) {
	waitFor("commits to reach the newest offsets", 5*time.Second, func() bool {
		r, err := adm.ListConsumerGroupOffsets(group, map[string][]int32{topic: []int32{0, 1, 2, 3}[:parts]})
		ck.Must(err, "ListConsumerGroupOffsets")
		for p := int32(0); p < parts; p++ {
			hwm, err := cl.GetOffset(topic, p, sarama.OffsetNewest)
			ck.Must(err, "GetOffset")
			if b := r.GetBlock(topic, p); b == nil || b.Offset != hwm {
				return false
			}
		}
		return true
	})
}

func describeGroup(adm sarama.ClusterAdmin, group string) *sarama.GroupDescription {
	ds, err := adm.DescribeConsumerGroups([]string{group})
	ck.Must(err, "DescribeConsumerGroups")
	ck.Check(len(ds) == 1, "%d groups described", len(ds))
	return ds[0]
}

func group() {
	adm, cl := newAdmin()
	defer adm.Close()
	topic, grp := "sa-grp", "sa-g"
	createTopic(adm, topic, 4, nil)
	produceKeyed(topic, 0, 400)
	l := &ledger{seen: map[pos]string{}, keys: map[string]bool{}}

	ck.Stage("one member (range) takes every partition")
	a := newMember("a", grp, topic, l, sarama.NewBalanceStrategyRange())
	waitFor("a to own 4", 20*time.Second, func() bool { return len(a.owned()) == 4 })
	waitFor("a to process 100", 20*time.Second, func() bool { return l.count() >= 100 })
	a.setHold(true)

	ck.Stage("a second member joins: eager rebalance")
	b := newMember("b", grp, topic, l, sarama.NewBalanceStrategyRange())
	waitFor("two members with two partitions each", 30*time.Second, func() bool {
		return len(a.owned()) == 2 && len(b.owned()) == 2
	})
	ap, bp := a.owned(), b.owned()
	// range: the first member id (sorted) gets 0-1, the other 2-3
	ck.Check((fmt.Sprint(ap) == "[0 1]" && fmt.Sprint(bp) == "[2 3]") || (fmt.Sprint(ap) == "[2 3]" && fmt.Sprint(bp) == "[0 1]"),
		"range assignment a %v b %v", ap, bp)
	ck.Okf("rebalance: a owns %v, b owns %v", ap, bp)
	a.setHold(false)
	waitFor("400 processed", 30*time.Second, func() bool { return l.count() == 400 })
	d := describeGroup(adm, grp)
	mustK(d.Err, "describe")
	ck.Check(d.State == "Stable" && d.ProtocolType == "consumer" && d.Protocol == "range" && len(d.Members) == 2,
		"described: state %s type %s protocol %s, %d members", d.State, d.ProtocolType, d.Protocol, len(d.Members))
	for id, mem := range d.Members {
		as, err := mem.GetMemberAssignment()
		ck.Must(err, "member assignment")
		got := append([]int32{}, as.Topics[topic]...)
		sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
		want := ap
		if mem.ClientId == "sarama-b" {
			want = bp
		}
		ck.Check(fmt.Sprint(got) == fmt.Sprint(want), "member %s (%s): described %v, client has %v", id, mem.ClientId, got, want)
		md, err := mem.GetMemberMetadata()
		ck.Must(err, "member metadata")
		ck.Check(len(md.Topics) == 1 && md.Topics[0] == topic, "member %s subscribed to %v", id, md.Topics)
	}
	ck.Okf("DescribeConsumerGroups: Stable, range, the members' assignments and subscriptions")
	produceKeyed(topic, 400, 200)
	waitFor("600 processed", 30*time.Second, func() bool { return l.count() == 600 })
	settle(adm, cl, grp, topic, 4)

	ck.Okf("600 messages processed once each by two members; committed offsets = newest")

	ck.Stage("b leaves: a takes everything back")
	b.stop()
	waitFor("a to own 4 again", 30*time.Second, func() bool { return len(a.owned()) == 4 })
	produceKeyed(topic, 600, 100)
	waitFor("700 processed", 30*time.Second, func() bool { return l.count() == 700 })
	a.stop()
	d = describeGroup(adm, grp)
	ck.Check(d.State == "Empty" && len(d.Members) == 0, "after both left: %s, %d members", d.State, len(d.Members))
	checkCommitted(adm, cl, grp, topic, 4)

	ck.Stage("a new member (sticky) resumes from the commits")
	produceKeyed(topic, 700, 50)
	c := newMember("c", grp, topic, l, sarama.NewBalanceStrategySticky())
	waitFor("750 processed", 30*time.Second, func() bool { return l.count() == 750 })
	c.stop()
	checkCommitted(adm, cl, grp, topic, 4)
	ck.Check(len(l.keys) == 750, "%d distinct keys of 750", len(l.keys))
	ck.Okf("group: 750 messages each processed once across a join, a leave and a restart; committed offsets = newest")

	ck.Stage("roundrobin")
	x := newMember("x", "sa-rr", topic, nil, sarama.NewBalanceStrategyRoundRobin())
	y := newMember("y", "sa-rr", topic, nil, sarama.NewBalanceStrategyRoundRobin())
	waitFor("roundrobin members with two partitions each", 30*time.Second, func() bool {
		return len(x.owned()) == 2 && len(y.owned()) == 2
	})
	xp, yp := fmt.Sprint(x.owned()), fmt.Sprint(y.owned())
	ck.Check((xp == "[0 2]" && yp == "[1 3]") || (xp == "[1 3]" && yp == "[0 2]"), "roundrobin: x %s y %s", xp, yp)
	d = describeGroup(adm, "sa-rr")
	ck.Check(d.Protocol == "roundrobin" && d.State == "Stable", "sa-rr: protocol %s state %s", d.Protocol, d.State)
	x.stop()
	y.stop()
	ck.Okf("roundrobin: x %s, y %s", xp, yp)
}
