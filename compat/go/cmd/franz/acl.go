// franz acl: franz-go against a broker with the authorizer on and the
// ACLs of compat/acl/scenarios.sh. GR_ACL_MODE=mtls: GR_ACL_CERTS is the
// directory of compat/acl/certs.sh (one certificate per principal,
// User:CN=<name>); GR_ACL_MODE=sasl: each principal logs in over
// SASL_PLAINTEXT as its name with password <name>-pw, with SASL/PLAIN
// (txn with SCRAM-SHA-256), User:<name>.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"time"

	"gregor/compat/go/internal/ck"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

func saslMode() bool { return os.Getenv("GR_ACL_MODE") == "sasl" }

// principal: the principal name of one of the scenario's clients
func principal(name string) string {
	if saslMode() {
		return "User:" + name
	}
	return "User:CN=" + name
}

// as: the option that logs the client in as name
func as(name string) kgo.Opt {
	if !saslMode() {
		return tlsAs(name)
	}
	if name == "txn" {
		return kgo.SASL(scram.Auth{User: name, Pass: name + "-pw"}.AsSha256Mechanism())
	}
	return kgo.SASL(plain.Auth{User: name, Pass: name + "-pw"}.AsMechanism())
}

func tlsAs(name string) kgo.Opt {
	d := os.Getenv("GR_ACL_CERTS")
	pem, err := os.ReadFile(d + "/ca.pem")
	ck.Must(err, "read ca.pem")
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	cert, err := tls.LoadX509KeyPair(d+"/"+name+".pem", d+"/"+name+".key")
	ck.Must(err, "load "+name)
	return kgo.DialTLSConfig(&tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert},
		ServerName: "localhost"})
}

func aclCmd() {
	// the producer: its prefix, a topic without ACL, the DENY in the prefix
	p := client(as("producer"), kgo.RecordDeliveryTimeout(8*time.Second),
		kgo.ProduceRequestTimeout(5*time.Second))
	err := p.ProduceSync(ctx, &kgo.Record{Topic: "app.orders", Value: []byte("franz")}).FirstErr()
	if err != nil {
		ck.Errorf("producer writes app.orders: %v", err)
	} else {
		ck.Okf("producer writes app.orders")
	}
	for _, t := range []string{"other.t", "app.secret"} {
		err = p.ProduceSync(ctx, &kgo.Record{Topic: t, Value: []byte("x")}).FirstErr()
		expectErr("producer on "+t, err, kerr.TopicAuthorizationFailed)
	}
	p.Close()

	// transactions: WRITE on the transactional id tx1, none on tx2
	for _, id := range []string{"tx1", "tx2"} {
		t := client(as("txn"), kgo.TransactionalID(id), kgo.RecordDeliveryTimeout(8*time.Second))
		err = t.BeginTransaction()
		if err == nil {
			err = t.ProduceSync(ctx, &kgo.Record{Topic: "app.txn", Value: []byte("franz-" + id)}).FirstErr()
		}
		if err == nil {
			err = t.EndTransaction(ctx, kgo.TryCommit)
		}
		if id == "tx2" {
			expectErr("txn as tx2", err, kerr.TransactionalIDAuthorizationFailed)
		} else if err != nil {
			ck.Errorf("txn commits as tx1: %v", err)
		} else {
			ck.Okf("txn commits as tx1")
		}
		t.Close()
	}

	// the consumer: READ on group cg1, none on cg2
	cadm, ccl := func() (*kadm.Client, *kgo.Client) {
		cl := client(as("consumer"))
		return kadm.NewClient(cl), cl
	}()
	r, err := cadm.FetchOffsets(ctx, "cg1")
	if err == nil {
		err = r.Error()
	}
	if err != nil {
		ck.Errorf("consumer fetches cg1's offsets: %v", err)
	} else {
		ck.Okf("consumer fetches cg1's offsets")
	}
	r, err = cadm.FetchOffsets(ctx, "cg2")
	if err == nil {
		err = r.Error()
	}
	expectErr("consumer fetches cg2's offsets", err, kerr.GroupAuthorizationFailed)
	ccl.Close()

	// a principal without ACLs
	oadm, ocl := func() (*kadm.Client, *kgo.Client) {
		cl := client(as("other"))
		return kadm.NewClient(cl), cl
	}()
	cr, err := oadm.CreateTopic(ctx, 1, 1, nil, "app.franz-other")
	if err == nil {
		err = cr.Err
	}
	expectErr("other creates a topic", err, kerr.TopicAuthorizationFailed)
	ores, err := oadm.DescribeACLs(ctx, kadm.NewACLs().AnyResource().
		ResourcePatternType(kadm.ACLPatternAny).Allow().AllowHosts().Deny().DenyHosts().
		Operations())
	for _, x := range ores {
		if err == nil {
			err = x.Err
		}
	}
	expectErr("other describes ACLs", err, kerr.ClusterAuthorizationFailed)
	ocl.Close()

	// the admin (a super user) manages ACLs with kadm
	aadm, acl := func() (*kadm.Client, *kgo.Client) {
		cl := client(as("admin"))
		return kadm.NewClient(cl), cl
	}()
	b := kadm.NewACLs().Topics("app.franz").ResourcePatternType(kadm.ACLPatternLiteral).
		Allow(principal("consumer")).Operations(kadm.OpRead)
	cres, err := aadm.CreateACLs(ctx, b)
	ck.Must(err, "admin CreateACLs")
	for _, c := range cres {
		ck.Must(c.Err, "admin CreateACLs result")
	}
	ck.Okf("admin creates an ACL")
	d := kadm.NewACLs().Topics("app.franz").ResourcePatternType(kadm.ACLPatternMatch).
		Allow().AllowHosts().Deny().DenyHosts().Operations()
	dres, err := aadm.DescribeACLs(ctx, d)
	ck.Must(err, "admin DescribeACLs")
	n := 0
	for _, x := range dres {
		ck.Must(x.Err, "admin DescribeACLs result")
		n += len(x.Described)
	}
	// MATCH: app.franz's binding and the app. prefix's
	if n < 2 {
		ck.Errorf("admin describes with MATCH: %d bindings", n)
	} else {
		ck.Okf("admin describes %d bindings with MATCH", n)
	}
	del := kadm.NewACLs().Topics("app.franz").ResourcePatternType(kadm.ACLPatternLiteral).
		Allow().AllowHosts().Deny().DenyHosts().Operations()
	xres, err := aadm.DeleteACLs(ctx, del)
	ck.Must(err, "admin DeleteACLs")
	n = 0
	for _, x := range xres {
		ck.Must(x.Err, "admin DeleteACLs result")
		n += len(x.Deleted)
	}
	if n != 1 {
		ck.Errorf("admin deletes %d bindings, want 1", n)
	} else {
		ck.Okf("admin deletes the binding")
	}
	aclChange(aadm)
	acl.Close()
}

// aclChange: a producer of other (not idempotent: with WRITE on no topic
// its InitProducerID would be refused, KIP-679) refused app.late writes it
// once the admin adds an ACL, and is refused again once it is deleted,
// without reconnecting
func aclChange(aadm *kadm.Client) {
	p := client(as("other"), kgo.DisableIdempotentWrite(), kgo.RecordDeliveryTimeout(5*time.Second),
		kgo.MetadataMinAge(100*time.Millisecond), kgo.MetadataMaxAge(500*time.Millisecond))
	defer p.Close()
	until := func(ok func(error) bool) error {
		end := time.Now().Add(20 * time.Second)
		for {
			err := p.ProduceSync(ctx, &kgo.Record{Topic: "app.late", Value: []byte("franz")}).FirstErr()
			if ok(err) || time.Now().After(end) {
				return err
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	denied := func(err error) bool { return errors.Is(err, kerr.TopicAuthorizationFailed) }
	expectErr("other on app.late", until(func(error) bool { return true }), kerr.TopicAuthorizationFailed)
	b := kadm.NewACLs().Topics("app.late").ResourcePatternType(kadm.ACLPatternLiteral).
		Allow(principal("other")).Operations(kadm.OpWrite)
	cres, err := aadm.CreateACLs(ctx, b)
	ck.Must(err, "admin CreateACLs app.late")
	for _, c := range cres {
		ck.Must(c.Err, "admin CreateACLs app.late result")
	}
	if err := until(func(err error) bool { return err == nil }); err != nil {
		ck.Errorf("the same producer writes app.late once the ACL is there: %v", err)
	} else {
		ck.Okf("the same producer writes app.late once the ACL is there")
	}
	d := kadm.NewACLs().Topics("app.late").ResourcePatternType(kadm.ACLPatternLiteral).
		Allow(principal("other")).AllowHosts().Operations(kadm.OpWrite)
	xres, err := aadm.DeleteACLs(ctx, d)
	ck.Must(err, "admin DeleteACLs app.late")
	for _, x := range xres {
		ck.Must(x.Err, "admin DeleteACLs app.late result")
	}
	expectErr("and once it is deleted", until(denied), kerr.TopicAuthorizationFailed)
}
