// Package ck holds what the Go client programs share: failing with a
// message, notes in TAP comment form, Kafka's murmur2 partitioning, and the
// expected-record bookkeeping the data checks compare against.
package ck

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// Prefix names the client in every line ("franz", "sarama", "kafka-go").
var Prefix = "go"

// Fatalf prints the failure and exits 1.
func Fatalf(format string, args ...any) {
	fmt.Printf("FAIL %s: %s\n", Prefix, fmt.Sprintf(format, args...))
	os.Exit(1)
}

// Errorf prints a failure and goes on (the program exits 1 at Done): for
// an answer that differs from Kafka's where the checks after it still
// mean something.
func Errorf(format string, args ...any) {
	failures++
	fmt.Printf("FAIL %s: %s\n", Prefix, fmt.Sprintf(format, args...))
}

var failures int

// Done ends the program: 1 if anything failed.
func Done(what string) {
	if failures > 0 {
		fmt.Printf("FAIL %s: %s: %d check(s) failed\n", Prefix, what, failures)
		os.Exit(1)
	}
	Notef("%s: all checks passed", what)
}

// Check fails unless cond holds.
func Check(cond bool, format string, args ...any) {
	if !cond {
		Fatalf(format, args...)
	}
}

// Must fails on a non-nil error.
func Must(err error, what string) {
	if err != nil {
		Fatalf("%s: %v", what, err)
	}
}

// Okf prints one passed check.
func Okf(format string, args ...any) {
	fmt.Printf("# %s: ok: %s\n", Prefix, fmt.Sprintf(format, args...))
}

// Notef prints a note, for what a client cannot express.
func Notef(format string, args ...any) {
	fmt.Printf("# %s: %s\n", Prefix, fmt.Sprintf(format, args...))
}

// Bootstrap is the broker address from GR_BOOTSTRAP.
func Bootstrap() string {
	b := os.Getenv("GR_BOOTSTRAP")
	if b == "" {
		Fatalf("GR_BOOTSTRAP is not set")
	}
	return b
}

// Watchdog exits the program after d whatever it is doing, naming where it
// was (set by Stage).
func Watchdog(d time.Duration) {
	go func() {
		time.Sleep(d)
		Fatalf("timed out after %v in stage %q", d, stage)
	}()
}

var stage string

// Stage names the step running now, for the watchdog's message.
func Stage(s string) {
	stage = s
	fmt.Printf("# %s: -- %s (at %.2f s)\n", Prefix, s, time.Since(start).Seconds())
}

var start = time.Now()

// Murmur2 is Kafka's Utils.murmur2.
func Murmur2(data []byte) int32 {
	length := len(data)
	const seed uint32 = 0x9747b28c
	const m uint32 = 0x5bd1e995
	const r = 24
	h := seed ^ uint32(length)
	length4 := length / 4
	for i := 0; i < length4; i++ {
		i4 := i * 4
		k := uint32(data[i4]) | uint32(data[i4+1])<<8 | uint32(data[i4+2])<<16 | uint32(data[i4+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch length % 4 {
	case 3:
		h ^= uint32(data[(length & ^3)+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[(length & ^3)+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[length & ^3])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// KeyPartition is the partition Kafka's default partitioner picks for a key.
func KeyPartition(key []byte, n int) int32 {
	return (Murmur2(key) & 0x7fffffff) % int32(n)
}

func init() {
	// Kafka's UtilsTest vectors
	for s, want := range map[string]int32{"21": -973932308, "foobar": -790332482,
		"a-little-bit-long-string": -985981536, "a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971, "abc": 479470107} {
		if got := Murmur2([]byte(s)); got != want {
			panic(fmt.Sprintf("murmur2(%q) = %d, want %d", s, got, want))
		}
	}
}

// Header is one record header; Rec one record as a client saw it.
type Header struct{ Key, Value string }

type Rec struct {
	Topic     string
	Partition int32
	Offset    int64
	Key       []byte // nil: null key
	Value     []byte // nil: null value
	Headers   []Header
	Timestamp time.Time
}

func show(b []byte) string {
	if b == nil {
		return "<null>"
	}
	if len(b) > 40 {
		return fmt.Sprintf("%q...(%d bytes)", b[:40], len(b))
	}
	return fmt.Sprintf("%q", b)
}

func (r Rec) String() string {
	var hs []string
	for _, h := range r.Headers {
		hs = append(hs, h.Key+"="+h.Value)
	}
	return fmt.Sprintf("%s[%d]@%d key=%s value=%s headers=[%s] ts=%d", r.Topic, r.Partition,
		r.Offset, show(r.Key), show(r.Value), strings.Join(hs, ","), r.Timestamp.UnixMilli())
}

// SameData compares everything but the position: key (null apart from
// empty), value, headers in order, timestamp to the millisecond.
func SameData(a, b Rec) bool {
	if (a.Key == nil) != (b.Key == nil) || !bytes.Equal(a.Key, b.Key) ||
		(a.Value == nil) != (b.Value == nil) || !bytes.Equal(a.Value, b.Value) ||
		len(a.Headers) != len(b.Headers) || a.Timestamp.UnixMilli() != b.Timestamp.UnixMilli() {
		return false
	}
	for i := range a.Headers {
		if a.Headers[i] != b.Headers[i] {
			return false
		}
	}
	return true
}

// CompareAll checks that got holds exactly the records of want, each at
// the position want says (topic, partition, offset) with the same data.
func CompareAll(what string, want, got []Rec) {
	type pos struct {
		t string
		p int32
		o int64
	}
	byPos := map[pos]Rec{}
	for _, r := range got {
		k := pos{r.Topic, r.Partition, r.Offset}
		if _, dup := byPos[k]; dup {
			Fatalf("%s: %s consumed twice", what, r)
		}
		byPos[k] = r
	}
	for _, w := range want {
		g, ok := byPos[pos{w.Topic, w.Partition, w.Offset}]
		if !ok {
			Fatalf("%s: missing %s", what, w)
		}
		if !SameData(w, g) {
			Fatalf("%s: at %s[%d]@%d want %s, got %s", what, w.Topic, w.Partition, w.Offset, w, g)
		}
	}
	Check(len(got) == len(want), "%s: %d records consumed, %d produced", what, len(got), len(want))
}

// SortRecs orders records by topic, partition, offset.
func SortRecs(rs []Rec) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		if a.Partition != b.Partition {
			return a.Partition < b.Partition
		}
		return a.Offset < b.Offset
	})
}

// Dense checks that per partition the offsets of rs are from, from+1, ...
// (rs sorted), and returns the next offset per partition.
func Dense(what string, rs []Rec, from map[int32]int64) map[int32]int64 {
	next := map[int32]int64{}
	for p, o := range from {
		next[p] = o
	}
	for _, r := range rs {
		if r.Offset != next[r.Partition] {
			Fatalf("%s: partition %d offset %d, expected %d", what, r.Partition, r.Offset, next[r.Partition])
		}
		next[r.Partition]++
	}
	return next
}

// Value makes a value of n bytes that names its record.
func Value(tag string, i, n int) []byte {
	v := []byte(fmt.Sprintf("%s-%d:", tag, i))
	for len(v) < n {
		v = append(v, byte('a'+(len(v)*7+i)%26))
	}
	return v[:max(n, len(fmt.Sprintf("%s-%d:", tag, i)))]
}
