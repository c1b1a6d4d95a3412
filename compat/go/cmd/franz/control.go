package main

// control: franz-go against failures made with gregor's control interface
// over HTTP ($GR_CONTROL, "gregor: control on URL"), each asserting what
// the client observes:
//   - Produce answered NOT_LEADER_OR_FOLLOWER three times: ProduceSync
//     succeeds, the request log holds the three injected answers, and the
//     records are in the log exactly once, in order (idempotent producer)
//   - a 600 ms standing delay on Produce: ProduceSync takes at least that,
//     and well under it once cleared; a 700 ms throttle time on a Produce
//     answer reaches OnBrokerThrottle as 700 ms
//   - the connections of the next two Fetch requests dropped: the consumer
//     reconnects and reads every record once; the log shows both drops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/twmb/franz-go/pkg/kgo"
)

var ctlURL string

// ctl sends one request to the control interface and decodes its JSON
// answer into out (may be nil); the status must be want.
func ctl(method, path string, body any, want int, out any) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		ck.Must(err, "json")
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, ctlURL+path, rd)
	ck.Must(err, "http.NewRequest")
	resp, err := http.DefaultClient.Do(req)
	ck.Must(err, method+" "+path)
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		ck.Fatalf("%s %s: HTTP %d %s (want %d)", method, path, resp.StatusCode, data, want)
	}
	if out != nil {
		ck.Must(json.Unmarshal(data, out), "decode "+path)
	}
}

type logEntry struct {
	API      string  `json:"api"`
	Version  int     `json:"version"`
	Outcome  string  `json:"outcome"`
	Error    *string `json:"error"`
	ClientID string  `json:"client_id"`
}

func requestLog(api string) []logEntry {
	var l struct {
		Requests []logEntry `json:"requests"`
	}
	ctl("GET", "/v1/requests?api="+api, nil, 200, &l)
	return l.Requests
}

func countLog(api, outcome, errName string) int {
	n := 0
	for _, e := range requestLog(api) {
		if e.Outcome == outcome && (errName == "" || (e.Error != nil && *e.Error == errName)) {
			n++
		}
	}
	return n
}

func produceN(cl *kgo.Client, topic string, from, n int) time.Duration {
	t0 := time.Now()
	var rs []*kgo.Record
	for i := from; i < from+n; i++ {
		rs = append(rs, &kgo.Record{Topic: topic, Value: fmt.Appendf(nil, "v%d", i)})
	}
	ck.Must(cl.ProduceSync(ctx, rs...).FirstErr(), "produce")
	return time.Since(t0)
}

// readAll consumes topic from the start and checks it holds v0..v(n-1)
// once each, in order.
func readCtl(topic string, n int, opts ...kgo.Opt) {
	cl := client(append([]kgo.Opt{kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, opts...)...)
	defer cl.Close()
	got := consume(cl, n, 30*time.Second)
	ck.Check(len(got) == n, "%s: %d records, want %d", topic, len(got), n)
	for i, r := range got {
		ck.Check(string(r.Value) == fmt.Sprintf("v%d", i), "%s: record %d is %q", topic, i, r.Value)
	}
}

type throttleHook struct{ ms atomic.Int64 }

func (h *throttleHook) OnBrokerThrottle(_ kgo.BrokerMetadata, d time.Duration, _ bool) {
	h.ms.Store(d.Milliseconds())
}

func controlCmd() {
	if ctlURL = os.Getenv("GR_CONTROL"); ctlURL == "" {
		ck.Fatalf("GR_CONTROL is not set")
	}
	adm, acl := admin()
	createTopic(adm, "ctl-go", 1, nil)
	acl.Close()
	ctl("POST", "/v1/reset", map[string]any{}, 200, nil)

	ck.Stage("NOT_LEADER_OR_FOLLOWER x3 on Produce")
	hook := &throttleHook{}
	// a metadata refresh per NOT_LEADER_OR_FOLLOWER: not 5 s apart
	p := client(kgo.WithHooks(hook), kgo.MetadataMinAge(100*time.Millisecond))
	defer p.Close()
	produceN(p, "ctl-go", 0, 1) // connected, producer id assigned
	ctl("POST", "/v1/faults", map[string]any{"api": "Produce", "topic": "ctl-go",
		"error": "NOT_LEADER_OR_FOLLOWER", "count": 3}, 201, nil)
	produceN(p, "ctl-go", 1, 9)
	inj := countLog("Produce", "injected", "NOT_LEADER_OR_FOLLOWER")
	ck.Check(inj == 3, "NOT_LEADER_OR_FOLLOWER answered %d times, want 3", inj)
	readCtl("ctl-go", 10)
	ck.Okf("3 NOT_LEADER_OR_FOLLOWER answers retried; 10 records, each once, in order")

	ck.Stage("delay and throttle")
	ctl("POST", "/v1/delays", map[string]any{"api": "Produce", "ms": 600}, 201, nil)
	d := produceN(p, "ctl-go", 10, 1)
	ck.Check(d >= 600*time.Millisecond && d < 20*time.Second, "delayed Produce took %v", d)
	ctl("DELETE", "/v1/delays", nil, 200, nil)
	d2 := produceN(p, "ctl-go", 11, 1)
	ck.Check(d2 < 500*time.Millisecond, "Produce took %v after the delay was cleared", d2)
	ck.Okf("a 600 ms delay: ProduceSync %v; cleared: %v", d.Round(time.Millisecond), d2.Round(time.Millisecond))
	ctl("POST", "/v1/faults", map[string]any{"api": "Produce", "throttle_ms": 700}, 201, nil)
	produceN(p, "ctl-go", 12, 1)
	ck.Check(hook.ms.Load() == 700, "OnBrokerThrottle saw %d ms, want 700", hook.ms.Load())
	ck.Okf("a 700 ms throttle time reaches OnBrokerThrottle")

	ck.Stage("connections dropped on Fetch")
	ctl("POST", "/v1/faults", map[string]any{"api": "Fetch", "action": "drop", "count": 2}, 201, nil)
	readCtl("ctl-go", 13)
	drops := countLog("Fetch", "dropped", "")
	ck.Check(drops == 2, "%d Fetch connections dropped, want 2", drops)
	ck.Okf("2 Fetch connections dropped: the consumer reconnected and read all 13 records once")
}
