// franz: franz-go (kgo, kadm, kmsg) against a running gregor at
// $GR_BOOTSTRAP. franz-go negotiates the newest version of each API the
// broker advertises. Subcommands: data, group, txn, admin, acl, control, vclock.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var ctx = context.Background()

func client(opts ...kgo.Opt) *kgo.Client {
	base := []kgo.Opt{kgo.SeedBrokers(ck.Bootstrap()), kgo.FetchMaxWait(200 * time.Millisecond),
		kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond })}
	if os.Getenv("GR_GO_DEBUG") != "" {
		base = append(base, kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelDebug, nil)))
	}
	cl, err := kgo.NewClient(append(base, opts...)...)
	ck.Must(err, "kgo.NewClient")
	return cl
}

func admin() (*kadm.Client, *kgo.Client) {
	cl := client()
	return kadm.NewClient(cl), cl
}

// errName is the Kafka name of a broker error (kerr), or the error text.
func errName(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Message
	}
	if err == nil {
		return "NONE"
	}
	return err.Error()
}

func codeName(code int16) string {
	if code == 0 {
		return "NONE"
	}
	if e := kerr.ErrorForCode(code); e != nil {
		var ke *kerr.Error
		if errors.As(e, &ke) {
			return ke.Message
		}
	}
	return fmt.Sprintf("code %d", code)
}

// expectErr and expectCode: an error by name, as Kafka answers; a
// difference is reported and the run goes on
func expectErr(what string, err error, want error) {
	if !errors.Is(err, want) {
		ck.Errorf("%s: want %s, got %v", what, errName(want), err)
		return
	}
	ck.Okf("%s: %s", what, errName(want))
}

func expectCode(what string, code int16, want error) {
	if got := kerr.ErrorForCode(code); got != want {
		ck.Errorf("%s: want %s, got %s", what, errName(want), codeName(code))
		return
	}
	ck.Okf("%s: %s", what, errName(want))
}

func toRec(r *kgo.Record) ck.Rec {
	var hs []ck.Header
	for _, h := range r.Headers {
		hs = append(hs, ck.Header{Key: h.Key, Value: string(h.Value)})
	}
	return ck.Rec{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Key: r.Key,
		Value: r.Value, Headers: hs, Timestamp: r.Timestamp}
}

// consume reads until n records came (or the bound passes) from where
// cl's options start it.
func consume(cl *kgo.Client, n int, bound time.Duration) []*kgo.Record {
	var out []*kgo.Record
	c, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for len(out) < n {
		fs := cl.PollFetches(c)
		if c.Err() != nil {
			ck.Fatalf("consumed %d of %d records in %v", len(out), n, bound)
		}
		fs.EachError(func(t string, p int32, err error) {
			ck.Fatalf("fetch %s[%d]: %v", t, p, err)
		})
		out = append(out, fs.Records()...)
	}
	return out
}

func createTopic(adm *kadm.Client, name string, parts int32, configs map[string]*string) {
	r, err := adm.CreateTopic(ctx, parts, 1, configs, name)
	ck.Must(err, "create "+name)
	ck.Must(r.Err, "create "+name)
}

func str(s string) *string { return &s }

func main() {
	ck.Prefix = "franz"
	if len(os.Args) < 2 {
		ck.Fatalf("usage: franz data|group|group848|txn|admin|acl|control|vclock")
	}
	ck.Watchdog(90 * time.Second)
	switch os.Args[1] {
	case "data":
		data()
	case "group":
		group()
	case "group848":
		group848()
	case "txn":
		txn()
	case "admin":
		adminCmd()
	case "acl":
		aclCmd()
	case "control":
		controlCmd()
	case "vclock":
		vclockCmd()
	case "vcmember": // vclock's child process
		vcMember(os.Args[2], os.Args[3], len(os.Args) > 4)
	default:
		ck.Fatalf("unknown subcommand %s", os.Args[1])
	}
	ck.Done(os.Args[1])
}

// versions prints the version of each API franz-go picked for this broker.
func versions(cl *kgo.Client, keys ...int16) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName = "gregor-compat"
	req.ClientSoftwareVersion = "1"
	resp, err := req.RequestWith(ctx, cl)
	ck.Must(err, "ApiVersions")
	expectCode("ApiVersions", resp.ErrorCode, nil)
	for _, k := range keys {
		for _, a := range resp.ApiKeys {
			if a.ApiKey == k {
				v := min(a.MaxVersion, kmsg.RequestForKey(k).MaxVersion())
				ck.Notef("%s v%d (broker %d..%d)", kmsg.NameForKey(k), v, a.MinVersion, a.MaxVersion)
			}
		}
	}
}
