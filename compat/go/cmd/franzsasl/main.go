// franzsasl: franz-go (kgo with pkg/sasl/oauth, plain and scram) over
// SASL against $GR_BOOTSTRAP, for compat/oauth/scenarios.sh and
// compat/sasl/scenarios.sh. $GR_SASL_MECHANISM is OAUTHBEARER (the
// default; the token is $GR_OAUTH_TOKEN), PLAIN, SCRAM-SHA-256 or
// SCRAM-SHA-512 (with $GR_SASL_USER and $GR_SASL_PASSWORD); $GR_SASL_CA
// (a PEM file) turns on TLS (SASL_SSL).
//
//	franzsasl ok TOPIC             produce 20 records, consume them back
//	franzsasl refused TOPIC TEXT   the broker refuses the login: the
//	                               produce fails with
//	                               SASL_AUTHENTICATION_FAILED holding TEXT
//	franzsasl users USER PW256 PW512
//	                               kadm makes USER's SCRAM-SHA-256 (4096
//	                               iterations) and SCRAM-SHA-512 (8192)
//	                               credentials over PLAINTEXT
//	                               ($GR_ADMIN_BOOTSTRAP) and describes them
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

func fail(format string, a ...any) {
	fmt.Printf("FAIL franz-go: "+format+"\n", a...)
	os.Exit(1)
}

// mechanism: the one $GR_SASL_MECHANISM names
func mechanism() sasl.Mechanism {
	user, pw := os.Getenv("GR_SASL_USER"), os.Getenv("GR_SASL_PASSWORD")
	switch m := os.Getenv("GR_SASL_MECHANISM"); m {
	case "", "OAUTHBEARER":
		return oauth.Auth{Token: os.Getenv("GR_OAUTH_TOKEN")}.AsMechanism()
	case "PLAIN":
		return plain.Auth{User: user, Pass: pw}.AsMechanism()
	case "SCRAM-SHA-256":
		return scram.Auth{User: user, Pass: pw}.AsSha256Mechanism()
	case "SCRAM-SHA-512":
		return scram.Auth{User: user, Pass: pw}.AsSha512Mechanism()
	default:
		fail("unknown mechanism %s", m)
		return nil
	}
}

func client(topic string, extra ...kgo.Opt) *kgo.Client {
	opts := []kgo.Opt{
		kgo.SeedBrokers(os.Getenv("GR_BOOTSTRAP")),
		kgo.SASL(mechanism()),
		kgo.DefaultProduceTopic(topic),
		kgo.RetryTimeout(8 * time.Second),
		kgo.AllowAutoTopicCreation(),
	}
	if ca := os.Getenv("GR_SASL_CA"); ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			fail("%v", err)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		opts = append(opts, kgo.DialTLSConfig(&tls.Config{RootCAs: pool, ServerName: "localhost"}))
	}
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		fail("kgo.NewClient: %v", err)
	}
	return cl
}

func main() {
	if len(os.Args) < 3 {
		fail("usage: franzsasl ok|refused TOPIC [TEXT]")
	}
	topic := os.Args[2]
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	switch os.Args[1] {
	case "ok":
		cl := client(topic)
		for i := 0; i < 20; i++ {
			r := &kgo.Record{Value: []byte(fmt.Sprintf("fg%d", i))}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				fail("produce: %v", err)
			}
		}
		cl.Close()
		c := client(topic, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		got := 0
		for got < 20 && ctx.Err() == nil {
			fs := c.PollFetches(ctx)
			if errs := fs.Errors(); len(errs) > 0 {
				fail("fetch: %v", errs[0].Err)
			}
			got += fs.NumRecords()
		}
		c.Close()
		if got != 20 {
			fail("consumed %d of 20", got)
		}
		fmt.Printf("# franz-go %s: 20 records produced and consumed\n", mechanism().Name())
	case "refused":
		// a request on a new connection fails with the broker's error
		cl := client(topic)
		pctx, pcancel := context.WithTimeout(ctx, 15*time.Second)
		err := cl.Ping(pctx)
		pcancel()
		if err == nil {
			err = cl.ProduceSync(ctx, &kgo.Record{Value: []byte("refused")}).FirstErr()
		}
		cl.Close()
		if err == nil {
			fail("a record was acknowledged after a refused login")
		}
		if !errors.Is(err, kerr.SaslAuthenticationFailed) || !strings.Contains(err.Error(), os.Args[3]) {
			fail("want SASL_AUTHENTICATION_FAILED with %q, got %v", os.Args[3], err)
		}
		fmt.Printf("# franz-go refused: %.200s\n", err.Error())
	case "users":
		users(ctx, os.Args[2:])
	default:
		fail("unknown subcommand %s", os.Args[1])
	}
}

// users: USER PW256 PW512, one alteration of the user per request (Kafka
// refuses two in one with DUPLICATE_RESOURCE)
func users(ctx context.Context, a []string) {
	if len(a) != 3 {
		fail("usage: franzsasl users USER PW256 PW512")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(os.Getenv("GR_ADMIN_BOOTSTRAP")))
	if err != nil {
		fail("kgo.NewClient: %v", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for _, u := range []kadm.UpsertSCRAM{
		{User: a[0], Mechanism: kadm.ScramSha256, Iterations: 4096, Password: a[1]},
		{User: a[0], Mechanism: kadm.ScramSha512, Iterations: 8192, Password: a[2]},
	} {
		r, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{u})
		if err == nil {
			err = r[a[0]].Err
		}
		if err != nil {
			fail("AlterUserSCRAMs %s %s: %v", a[0], u.Mechanism, err)
		}
	}
	d, err := adm.DescribeUserSCRAMs(ctx, a[0])
	if err == nil {
		err = d[a[0]].Err
	}
	if err != nil {
		fail("DescribeUserSCRAMs %s: %v", a[0], err)
	}
	got := fmt.Sprint(d[a[0]].CredInfos)
	if got != "[SCRAM-SHA-256=iterations=4096 SCRAM-SHA-512=iterations=8192]" {
		fail("DescribeUserSCRAMs %s: %s", a[0], got)
	}
	fmt.Printf("# franz-go kadm: %s has %s\n", a[0], got)
}
