package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/segmentio/kafka-go"
)

type pos struct {
	p int
	o int64
}

type ledger struct {
	mu   sync.Mutex
	seen map[pos]int
	keys map[string]bool
	dups int
}

func (l *ledger) count() int { l.mu.Lock(); defer l.mu.Unlock(); return len(l.seen) }

// member is one kafka-go group Reader: FetchMessage, record, then
// CommitMessages (synchronous: CommitInterval 0) before the next.
type member struct {
	name   string
	r      *kafka.Reader
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	hold   bool
}

func newMember(name, group, topic string, l *ledger) *member {
	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{ck.Bootstrap()}, GroupID: group, Topic: topic,
		Dialer:            &kafka.Dialer{ClientID: "kafka-go-" + name, Timeout: 10 * time.Second},
		HeartbeatInterval: 200 * time.Millisecond, SessionTimeout: 6 * time.Second, RebalanceTimeout: 5 * time.Second,
		JoinGroupBackoff: 100 * time.Millisecond, StartOffset: kafka.FirstOffset, MaxWait: 200 * time.Millisecond,
		GroupBalancers: []kafka.GroupBalancer{kafka.RangeGroupBalancer{}}, ReadBackoffMin: 20 * time.Millisecond,
		ReadBackoffMax: 100 * time.Millisecond})
	c, cancel := context.WithCancel(ctx)
	m := &member{name: name, r: r, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for c.Err() == nil {
			m.mu.Lock()
			h := m.hold
			m.mu.Unlock()
			if h {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			msg, err := r.FetchMessage(c)
			if err != nil {
				if coordinatorLoading(err) {
					continue // the Reader joins again
				}
				if c.Err() == nil {
					ck.Fatalf("%s: FetchMessage: %v", name, err)
				}
				return
			}
			l.mu.Lock()
			k := pos{msg.Partition, msg.Offset}
			if _, dup := l.seen[k]; dup {
				l.dups++
			}
			l.seen[k]++
			ck.Check(int32(msg.Partition) == ck.KeyPartition(msg.Key, 4), "%s on partition %d", msg.Key, msg.Partition)
			ck.Check(string(msg.Value) == "v"+string(msg.Key[1:]), "%s: value %s", msg.Key, msg.Value)
			l.keys[string(msg.Key)] = true
			l.mu.Unlock()
			if err := r.CommitMessages(c, msg); err != nil && c.Err() == nil {
				ck.Fatalf("%s: CommitMessages: %v", name, err)
			}
		}
	}()
	return m
}

func (m *member) setHold(h bool) { m.mu.Lock(); m.hold = h; m.mu.Unlock() }

func (m *member) stop() {
	m.cancel()
	<-m.done
	ck.Must(m.r.Close(), m.name+" close") // leaves the group
}

func produceKeyed(topic string, from, n int) {
	var ms []kafka.Message
	for i := from; i < from+n; i++ {
		ms = append(ms, kafka.Message{Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("v%d", i))})
	}
	_, err := write(&kafka.Writer{Topic: topic, Balancer: &kafka.Murmur2Balancer{}}, ms)
	ck.Must(err, "produce to "+topic)
}

func describeGroup(c *kafka.Client, group string) kafka.DescribeGroupsResponseGroup {
	r, err := c.DescribeGroups(ctx, &kafka.DescribeGroupsRequest{GroupIDs: []string{group}})
	ck.Must(err, "DescribeGroups")
	ck.Check(len(r.Groups) == 1, "%d groups described", len(r.Groups))
	return r.Groups[0]
}

// assignments is each described member's partitions, by client id.
func assignments(g kafka.DescribeGroupsResponseGroup, topic string) map[string]string {
	out := map[string]string{}
	for _, m := range g.Members {
		var ps []int
		for _, t := range m.MemberAssignments.Topics {
			if t.Topic == topic {
				ps = append(ps, t.Partitions...)
			}
		}
		sort.Ints(ps)
		out[m.ClientID] = fmt.Sprint(ps)
	}
	return out
}

func committedAll(c *kafka.Client, group, topic string, parts int) bool {
	r, err := c.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: []int{0, 1, 2, 3}[:parts]}})
	ck.Must(err, "OffsetFetch")
	ck.Must(r.Error, "OffsetFetch")
	for _, p := range r.Topics[topic] {
		ck.Must(p.Error, "OffsetFetch partition")
		if p.CommittedOffset != endOffset(c, topic, p.Partition) {
			return false
		}
	}
	return len(r.Topics[topic]) == parts
}

func group() {
	c := client()
	topic, grp := "kg-grp", "kg-g"
	createTopic(c, topic, 4, nil)
	produceKeyed(topic, 0, 400)
	l := &ledger{seen: map[pos]int{}, keys: map[string]bool{}}

	ck.Stage("one member (range) takes every partition")
	a := newMember("a", grp, topic, l)
	waitFor("a to process 100", 20*time.Second, func() bool { return l.count() >= 100 })
	a.setHold(true)
	ck.Check(assignments(describeGroup(c, grp), topic)["kafka-go-a"] == "[0 1 2 3]", "a alone: %v", assignments(describeGroup(c, grp), topic))

	ck.Stage("a second member joins")
	b := newMember("b", grp, topic, l)
	var as map[string]string
	waitFor("two members with two partitions each", 30*time.Second, func() bool {
		g := describeGroup(c, grp)
		as = assignments(g, topic)
		return g.GroupState == "Stable" && len(as) == 2 && len(as["kafka-go-a"]) == 5 && len(as["kafka-go-b"]) == 5
	})
	ck.Check((as["kafka-go-a"] == "[0 1]" && as["kafka-go-b"] == "[2 3]") || (as["kafka-go-a"] == "[2 3]" && as["kafka-go-b"] == "[0 1]"),
		"range assignment %v", as)
	ck.Okf("rebalance: DescribeGroups says a %s, b %s", as["kafka-go-a"], as["kafka-go-b"])
	a.setHold(false)
	waitFor("400 processed", 30*time.Second, func() bool { return l.count() == 400 })
	produceKeyed(topic, 400, 200)
	waitFor("600 processed", 30*time.Second, func() bool { return l.count() == 600 })
	waitFor("commits at the end offsets", 10*time.Second, func() bool { return committedAll(c, grp, topic, 4) })
	ck.Okf("600 messages processed by two members; committed offsets = end offsets")

	ck.Stage("b leaves: a takes everything back")
	b.stop()
	waitFor("a alone again", 30*time.Second, func() bool {
		g := describeGroup(c, grp)
		return g.GroupState == "Stable" && len(g.Members) == 1 && assignments(g, topic)["kafka-go-a"] == "[0 1 2 3]"
	})
	produceKeyed(topic, 600, 100)
	waitFor("700 processed", 30*time.Second, func() bool { return l.count() == 700 })
	waitFor("commits at the end offsets", 10*time.Second, func() bool { return committedAll(c, grp, topic, 4) })
	a.stop()
	g := describeGroup(c, grp)
	ck.Check(g.GroupState == "Empty" && len(g.Members) == 0, "after both left: %s, %d members", g.GroupState, len(g.Members))

	ck.Stage("a new member resumes from the commits")
	produceKeyed(topic, 700, 50)
	m := newMember("c", grp, topic, l)
	waitFor("750 processed", 30*time.Second, func() bool { return l.count() == 750 })
	waitFor("commits at the end offsets", 10*time.Second, func() bool { return committedAll(c, grp, topic, 4) })
	m.stop()
	ck.Check(len(l.keys) == 750, "%d distinct keys of 750", len(l.keys))
	if l.dups > 0 {
		ck.Notef("%d messages were processed twice around the rebalances (kafka-go's Reader delivers what it fetched before a generation ended)", l.dups)
	}
	ck.Okf("group: 750 messages across a join, a leave and a restart; committed offsets = end offsets; %d reprocessed", l.dups)
}
