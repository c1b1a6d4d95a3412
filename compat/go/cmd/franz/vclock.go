package main

// vclock: franz-go against a gregor started with --virtual-clock, whose
// clock moves only when told (POST /v1/clock/advance on $GR_CONTROL), as
// compat/python/virtual_clock.py checks it with librdkafka:
//   - a classic-group consumer (session timeout 30 s) in a child process
//     is SIGKILLed: no LeaveGroup. Real time passing does not expire it;
//     29.999 s of virtual time leave it a member (kadm DescribeGroups);
//     one more millisecond and the group is Empty. The same for a KIP-848
//     member (kgo.ServerSideBalancer) at the broker's 45 s
//     group.consumer.session.timeout.ms (DescribeConsumerGroups)
//   - a transaction left open (TransactionTimeout 60 s): still Ongoing
//     after 59 s of virtual time, aborted by the coordinator once the
//     clock passes its timeout (the abort sweep runs every 10 s of
//     virtual time) with the producer's epoch bumped; the producer's
//     commit is then INVALID_TXN_STATE with EndTxn v5 and PRODUCER_FENCED
//     with v4 (as Kafka 4.4.0 answers), fatal to franz-go either way

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"
)

type vclock struct {
	Virtual    bool  `json:"virtual"`
	AdvancedMs int64 `json:"advanced_ms"`
	WallMs     int64 `json:"wall_ms"`
}

func clockNow() vclock {
	var c vclock
	ctl("GET", "/v1/clock", nil, 200, &c)
	return c
}

func advance(ms int64) {
	var out struct {
		TimersFired int `json:"timers_fired"`
	}
	t0 := time.Now()
	ctl("POST", "/v1/clock/advance", map[string]any{"ms": ms}, 200, &out)
	ck.Notef("advanced %d ms in %v of real time (%d timers fired)", ms,
		time.Since(t0).Round(100*time.Microsecond), out.TimersFired)
}

// groupState: a classic group's state and members (DescribeGroups), or a
// KIP-848 group's (ConsumerGroupDescribe)
func groupState(adm *kadm.Client, grp string, kip848 bool) (string, int) {
	if kip848 {
		ds, err := adm.DescribeConsumerGroups(ctx, grp)
		d := described(ds, err, grp, "DescribeConsumerGroups")
		ck.Must(d.Err, "DescribeConsumerGroups "+grp)
		return d.State, len(d.Members)
	}
	ds, err := adm.DescribeGroups(ctx, grp)
	d := described(ds, err, grp, "DescribeGroups")
	ck.Must(d.Err, "DescribeGroups "+grp)
	return d.State, len(d.Members)
}

// described is grp's entry of a kadm describe answer, which must be there.
func described[G any](ds map[string]G, err error, grp, what string) G {
	ck.Must(err, what)
	d, ok := ds[grp]
	ck.Check(ok, "%s: %s missing", what, grp)
	return d
}

// vcMember is the child process: a group consumer (KIP-848 with a third
// argument) that says "assigned" once it has its partition and polls
// until it is killed.
func vcMember(grp, topic string, kip848 bool) {
	assigned := make(chan struct{}, 1)
	opts := []kgo.Opt{kgo.ConsumerGroup(grp), kgo.ConsumeTopics(topic),
		kgo.SessionTimeout(30 * time.Second), kgo.HeartbeatInterval(time.Second),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) {
			select {
			case assigned <- struct{}{}:
			default:
			}
		})}
	if kip848 {
		opts = append(opts, kgo.ServerSideBalancer())
	}
	cl := client(opts...)
	go func() {
		<-assigned
		os.Stdout.WriteString("assigned\n")
	}()
	for {
		cl.PollFetches(ctx)
	}
}

// vcGroup kills a member in a child process and advances to just under
// its session timeout, then to it: 30 s for the classic group (the
// member's session.timeout.ms), 45 s for the KIP-848 one (the broker's
// group.consumer.session.timeout.ms).
func vcGroup(adm *kadm.Client, kip848 bool) {
	topic, grp, session := "vc-go-group", "vc-go-g", int64(30000)
	args := []string{"vcmember", grp, topic}
	if kip848 {
		grp, session = "vc-go-g848", 45000
		args = []string{"vcmember", grp, topic, "848"}
	}
	ck.Stage(fmt.Sprintf("a killed member of %s and its %d ms session timeout", grp, session))
	m := exec.Command(os.Args[0], args...)
	m.Stderr = os.Stderr
	out, err := m.StdoutPipe()
	ck.Must(err, "StdoutPipe")
	ck.Must(m.Start(), "start the member")
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(out)
		s.Scan()
		line <- s.Text()
	}()
	select {
	case l := <-line:
		ck.Check(l == "assigned", "the member's first line: %q", l)
	case <-time.After(30 * time.Second):
		m.Process.Kill()
		ck.Fatalf("the member was not assigned in 30 s")
	}
	expect := func(state string, members int, when string) {
		s, n := groupState(adm, grp, kip848)
		ck.Check(s == state && n == members, "%s: group %s is %s with %d member(s), want %s with %d",
			when, grp, s, n, state, members)
	}
	expect("Stable", 1, "with its member")
	ck.Must(m.Process.Kill(), "SIGKILL the member") // no LeaveGroup, heartbeats stop
	m.Wait()
	// more than the member's heartbeat interval of real time, and the
	// broker's own turns: nothing expires on a clock standing still
	time.Sleep(1500 * time.Millisecond)
	expect("Stable", 1, "1.5 s of real time after the kill")
	// the session is counted from the last heartbeat, at the virtual time
	// of the kill (the clock has not moved since)
	advance(session - 1)
	expect("Stable", 1, fmt.Sprintf("%d ms of virtual time later", session-1))
	t0 := time.Now()
	advance(1)
	expect("Empty", 0, fmt.Sprintf("right after %d ms of virtual time", session))
	ck.Okf("%s: the killed member stayed through 1.5 s of real and %d ms of virtual time and "+
		"its session expired at %d ms (group Empty, seen %v after the advance was asked)",
		grp, session-1, session, time.Since(t0).Round(100*time.Microsecond))
}

// lso is the end a read_committed reader sees of partition 0.
func lso(adm *kadm.Client, topic string) int64 {
	lo, err := adm.ListCommittedOffsets(ctx, topic)
	ck.Must(err, "ListCommittedOffsets")
	o, ok := lo.Lookup(topic, 0)
	ck.Check(ok, "ListCommittedOffsets: %s[0] missing", topic)
	ck.Must(o.Err, "ListCommittedOffsets "+topic)
	return o.Offset
}

// vcTxn leaves a transaction open past its timeout. franz-go ends it with
// EndTxn v5 (KIP-890 transaction version 2) unless its versions are capped
// at Kafka 3.9 (EndTxn v4). The coordinator's abort bumps the epoch; the
// producer's commit at the old one is then, as Kafka 4.4.0 answers it:
//   - v5: INVALID_TXN_STATE. An end one epoch below the transaction's is
//     taken for a retry of an end that bumped it (its answer lost), so the
//     state decides, and CompleteAbort cannot be committed
//   - v4: PRODUCER_FENCED (the epoch is not the transaction's)
//
// franz-go holds either as fatal: its abort after is answered (a retry of
// the abort), and the next BeginTransaction fails with the error.
func vcTxn(adm *kadm.Client, id string, want error, extra ...kgo.Opt) {
	topic := "vc-go-txn"
	p := client(append([]kgo.Opt{kgo.TransactionalID(id), kgo.TransactionTimeout(60 * time.Second),
		kgo.ProducerLinger(0)}, extra...)...)
	defer p.Close()
	ck.Must(p.BeginTransaction(), "begin")
	ck.Must(p.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte("left open")}).FirstErr(), "produce")
	d := describeTxn(adm, id)
	ck.Check(d.State == "Ongoing" && d.TimeoutMillis == 60000, "the open transaction: %s, timeout %d ms",
		d.State, d.TimeoutMillis)
	epoch, end := d.ProducerEpoch, lso(adm, topic)
	advance(59000) // sweeps every 10 s: none finds it timed out yet
	time.Sleep(300 * time.Millisecond)
	d = describeTxn(adm, id)
	ck.Check(d.State == "Ongoing", "59 s of virtual time into a 60 s transaction: %s", d.State)
	ck.Check(lso(adm, topic) == end, "the LSO at 59 s: %d, want %d", lso(adm, topic), end)
	advance(11000) // a sweep at 60-70 s finds it timed out
	// the abort marker is written off the loop: a short real wait
	waitFor("the abort marker", 20*time.Second, func() bool { return lso(adm, topic) == end+2 })
	d = settledTxn(adm, id)
	ck.Check(d.State == "CompleteAbort" && d.ProducerEpoch == epoch+1,
		"after the timeout: %s, epoch %d (was %d)", d.State, d.ProducerEpoch, epoch)
	err := p.EndTransaction(ctx, kgo.TryCommit)
	ck.Check(errors.Is(err, want), "the producer's commit after the timeout: %v, want %s", err, errName(want))
	ck.Must(p.EndTransaction(ctx, kgo.TryAbort), "the abort after the failed commit")
	err = p.BeginTransaction()
	ck.Check(errors.Is(err, want), "the next BeginTransaction: %v, want %s", err, errName(want))
	ck.Okf("%s: aborted once the clock passed its timeout (epoch %d to %d); the commit: %s; "+
		"the next BeginTransaction: %v", id, epoch, d.ProducerEpoch, errName(want), err)
}

func vclockCmd() {
	if ctlURL = os.Getenv("GR_CONTROL"); ctlURL == "" {
		ck.Fatalf("GR_CONTROL is not set")
	}
	c0 := clockNow()
	ck.Check(c0.Virtual && c0.AdvancedMs == 0, "GET /v1/clock at start: %+v", c0)
	adm, acl := admin()
	defer acl.Close()
	t0 := time.Now()
	createTopic(adm, "vc-go-group", 1, nil)
	vcGroup(adm, false)
	vcGroup(adm, true)
	ck.Stage("a transaction left open past its timeout")
	createTopic(adm, "vc-go-txn", 1, nil)
	vcTxn(adm, "vc-go-t2", kerr.InvalidTxnState)
	vcTxn(adm, "vc-go-t0", kerr.ProducerFenced, kgo.MaxVersions(kversion.V3_9_0()))
	c1 := clockNow()
	ck.Check(c1.WallMs-c0.WallMs == c1.AdvancedMs, "the wall clock moved %d ms, the advances %d ms",
		c1.WallMs-c0.WallMs, c1.AdvancedMs)
	ck.Okf("virtual time advanced %.1f s in %v of real time", float64(c1.AdvancedMs)/1000,
		time.Since(t0).Round(10*time.Millisecond))
}
