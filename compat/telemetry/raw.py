#!/usr/bin/python3
"""Client telemetry (KIP-714) and client-metrics config resources, frame by
frame against a broker (GR_BOOTSTRAP): IncrementalAlterConfigs and
AlterConfigs on CLIENT_METRICS resources (valid and invalid changes),
DescribeConfigs of them, ListConfigResources v0 and v1,
GetTelemetrySubscriptions and PushTelemetry (matching, throttling, the
subscription id, every error). Python 3 standard library only; the frames
are written from the protocol guide.

  raw.py check        assert what Kafka 4.4.0 answers (exit 0 or 1)
  raw.py transcript   print every answer, one line each, for a diff
                      against a real Kafka (tests/kafka/run-kafka.sh)

Instance ids are fixed, so subscription ids are comparable across brokers;
a broker started with --override telemetry.max.bytes=1000 is expected.
"""

import gzip
import os
import socket
import struct
import sys
import time
import zlib

HOST, PORT = os.environ["GR_BOOTSTRAP"].split(",")[0].rsplit(":", 1)
MODE = sys.argv[1] if len(sys.argv) > 1 else "check"
FAILS = []


def uvarint(n):
    out = b""
    while n >= 0x80:
        out += bytes([(n & 0x7F) | 0x80])
        n >>= 7
    return out + bytes([n])


def cstr(s):
    if s is None:
        return b"\x00"
    b = s.encode()
    return uvarint(len(b) + 1) + b


def cbytes(b):
    return b"\x00" if b is None else uvarint(len(b) + 1) + b


def carray(items):
    return b"\x00" if items is None else uvarint(len(items) + 1) + b"".join(items)


T = b"\x00"  # no tagged fields


class R:
    def __init__(self, d):
        self.d, self.p = d, 0

    def take(self, n):
        v = self.d[self.p:self.p + n]
        self.p += n
        return v

    def i8(self):
        return struct.unpack(">b", self.take(1))[0]

    def i16(self):
        return struct.unpack(">h", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def uv(self):
        s = n = 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << s
            s += 7
            if b < 0x80:
                return n

    def cstr(self):
        n = self.uv()
        return None if n == 0 else self.take(n - 1).decode()

    def carray(self, f):
        n = self.uv()
        return None if n == 0 else [f(self) for _ in range(n - 1)]

    def tags(self):
        for _ in range(self.uv()):
            self.uv()
            self.take(self.uv())


class Conn:
    def __init__(self, client_id="telemetry-raw", software=("gregor-raw", "1.0")):
        self.s = socket.create_connection((HOST, int(PORT)))
        self.corr = 0
        self.client_id = client_id
        if software:
            r = self.call(18, 3, cstr(software[0]) + cstr(software[1]) + T, hver=0)
            err = r.i16()
            keys = r.carray(lambda r: (r.i16(), r.i16(), r.i16(), r.tags()))
            self.apis = {k[0]: (k[1], k[2]) for k in keys or []}
            assert err == 0, err

    def call(self, key, ver, body, hver=1, flexible=True):
        self.corr += 1
        cid = self.client_id.encode() if self.client_id is not None else None
        hdr = struct.pack(">hhi", key, ver, self.corr)
        hdr += struct.pack(">h", -1) if cid is None else struct.pack(">h", len(cid)) + cid
        if flexible:
            hdr += T
        frame = hdr + body
        self.s.sendall(struct.pack(">i", len(frame)) + frame)
        n = struct.unpack(">i", self.recv(4))[0]
        r = R(self.recv(n))
        assert r.i32() == self.corr
        if hver == 1:
            r.tags()
        return r

    def recv(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError("connection closed")
            b += c
        return b

    def close(self):
        self.s.close()


# --- the APIs


def metadata_v12_answer(r):
    """The body of a Metadata v12 answer from r (any reader with R's
    methods), throttle time first: (brokers as (id, host, port, rack),
    cluster id, controller id, topics as dicts with their partitions)."""
    r.i32()  # throttle

    def broker(r):
        v = (r.i32(), r.cstr(), r.i32(), r.cstr())
        r.tags()
        return v

    def part(r):
        v = {"error": r.i16(), "index": r.i32(), "leader": r.i32(),
             "epoch": r.i32(), "replicas": r.carray(lambda r: r.i32()),
             "isr": r.carray(lambda r: r.i32()),
             "offline": r.carray(lambda r: r.i32())}
        r.tags()
        return v

    def topic(r):
        v = {"error": r.i16(), "name": r.cstr(), "id": r.take(16),
             "internal": r.i8(), "parts": r.carray(part),
             "ops": r.i32()}
        r.tags()
        return v

    brokers = r.carray(broker)
    cluster = r.cstr()
    controller = r.i32()
    topics = r.carray(topic)
    r.tags()
    return brokers, cluster, controller, topics


def incremental(c, name, ops, validate=False, rtype=16):
    cfgs = [cstr(k) + struct.pack(">b", op) + cstr(v) + T for k, op, v in ops]
    body = carray([struct.pack(">b", rtype) + cstr(name) + carray(cfgs) + T])
    r = c.call(44, 1, body + struct.pack(">?", validate) + T)
    r.i32()
    res = r.carray(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(), r.tags()))
    return res[0][0], res[0][1]


def alter(c, name, kv, validate=False):
    cfgs = [cstr(k) + cstr(v) + T for k, v in kv]
    body = carray([struct.pack(">b", 16) + cstr(name) + carray(cfgs) + T])
    r = c.call(33, 2, body + struct.pack(">?", validate) + T)
    r.i32()
    res = r.carray(lambda r: (r.i16(), r.cstr(), r.i8(), r.cstr(), r.tags()))
    return res[0][0], res[0][1]


def describe(c, name, keys=None, synonyms=True, docs=True, rtype=16):
    ks = None if keys is None else [cstr(k) for k in keys]
    body = carray([struct.pack(">b", rtype) + cstr(name) + carray(ks) + T])
    r = c.call(32, 4, body + struct.pack(">??", synonyms, docs) + T)
    r.i32()

    def syn(r):
        return (r.cstr(), r.cstr(), r.i8(), r.tags())[:3]

    def cfg(r):
        v = (r.cstr(), r.cstr(), r.i8(), r.i8(), r.i8(), r.carray(syn), r.i8(), r.cstr())
        r.tags()
        return v

    def result(r):
        v = (r.i16(), r.cstr(), r.i8(), r.cstr(), r.carray(cfg))
        r.tags()
        return v

    res = r.carray(result)[0]
    return res[0], res[1], res[4]


def list_resources(c, ver, types=None):
    body = (carray([struct.pack(">b", t) for t in types]) if ver >= 1 else b"") + T
    r = c.call(74, ver, body)
    r.i32()
    err = r.i16()

    def res(r):
        v = (r.cstr(), r.i8() if ver >= 1 else 16)
        r.tags()
        return v

    return err, r.carray(res)


def get_subs(c, instance):
    r = c.call(71, 0, instance + T)
    thr, err, iid, sid = r.i32(), r.i16(), r.take(16), r.i32()
    comp = r.carray(lambda r: r.i8())
    interval, maxb, delta = r.i32(), r.i32(), r.i8()
    metrics = r.carray(lambda r: r.cstr())
    return dict(err=err, id=iid, sub=sid, comp=comp, interval=interval,
                max=maxb, delta=delta, metrics=metrics)


def push(c, instance, sub, metrics, comp=0, terminating=False):
    body = instance + struct.pack(">i?b", sub, terminating, comp) + cbytes(metrics) + T
    r = c.call(72, 0, body)
    r.i32()
    return r.i16()


# --- OTLP, written by hand from the .proto field numbers

def pb_len(num, payload):
    return uvarint(num << 3 | 2) + uvarint(len(payload)) + payload


def otlp_gauge(name, value):
    point = struct.pack("<BQ", 3 << 3 | 1, 1700000000000000000) + \
        struct.pack("<Bd", 4 << 3 | 1, value)
    metric = pb_len(1, name.encode()) + pb_len(5, pb_len(1, point))
    return pb_len(1, pb_len(2, pb_len(2, metric)))


# --- the scenario

def out(what, got, want=None):
    if MODE == "transcript":
        print("%s: %r" % (what, got))
    elif want is not None and got != want:
        FAILS.append("%s: got %r, want %r" % (what, got, want))
        print("# FAIL %s: got %r, want %r" % (what, got, want))


def uid(n):
    return struct.pack(">QQ", 0x1122334455667788, n)


SUBS = ["telemetry-raw-a", "telemetry-raw-b", "telemetry-raw-c", "telemetry-raw-d",
        "telemetry-raw-e"]


def main():
    c = Conn()
    # a clean slate: the subscriptions of an earlier run go
    for s in SUBS:
        alter(c, s, [])
    time.sleep(1)
    advertised = sorted(k for k in (71, 72, 74) if k in c.apis)
    out("advertised", advertised,
        [71, 72, 74] if os.environ.get("GR_TELEMETRY_FILE") else [74])

    # --- config changes: errors as Kafka words them
    ERR = [
        ("unknown key", [("nope", 0, "1")]),
        ("interval low", [("interval.ms", 0, "99")]),
        ("interval high", [("interval.ms", 0, "3600001")]),
        ("interval text", [("interval.ms", 0, "soon")]),
        ("interval empty", [("interval.ms", 0, "")]),
        ("metrics dup", [("metrics", 0, "a, b,a")]),
        ("metrics empty item", [("metrics", 0, "a,,b")]),
        ("match no =", [("match", 0, "client_id")]),
        ("match bad key", [("match", 0, "client_name=x")]),
        ("match two =", [("match", 0, "client_id=a=b")]),
        ("match bad regex", [("match", 0, "client_id=a(b")]),
        ("match empty value", [("match", 0, "client_id=")]),
        ("append int", [("interval.ms", 2, "5")]),
        ("subtract unknown", [("nope", 3, "5")]),
        ("null set", [("metrics", 0, None)]),
        ("dup keys", [("metrics", 0, "a"), ("metrics", 0, "b")]),
    ]
    want = {
        "unknown key": (42, "Unknown client metrics configuration: nope"),
        "interval low": (42, "Invalid value 99 for interval.ms, interval must be between 100 and 3600000 (1 hour)"),
        "interval high": (42, "Invalid value 3600001 for interval.ms, interval must be between 100 and 3600000 (1 hour)"),
        "interval text": (40, "Invalid value soon for configuration interval.ms: Not a number of type INT"),
        "interval empty": (40, "Invalid value  for configuration interval.ms: Not a number of type INT"),
        "metrics dup": (0, None),
        "metrics empty item": (40, "Configuration 'metrics' values must not be empty."),
        "match no =": (40, "Illegal client matching pattern: client_id"),
        "match bad key": (40, "Illegal client matching pattern: client_name=x"),
        "match two =": (40, "Illegal client matching pattern: client_id=a=b"),
        "match bad regex": (40, "Illegal client matching pattern: client_id=a(b"),
        "match empty value": (40, "Illegal client matching pattern: client_id="),
        "append int": (40, "Can't APPEND to key interval.ms because its type is not LIST."),
        "subtract unknown": (40, "Can't SUBTRACT to key nope because its type is not LIST."),
        "null set": (42, "Null value not supported for : metrics"),
        "dup keys": (42, "Error due to duplicate config keys"),
    }
    for what, ops in ERR:
        out("alter " + what, incremental(c, SUBS[0], ops, what == "metrics dup"),
            want[what])
    # a value is at most 32767 bytes on the wire; APPEND can make more
    out("long value", incremental(c, SUBS[0], [("metrics", 0, "x" * 20000)]), (0, None))
    # APPEND and SUBTRACT: Kafka's controller splits none of these keys
    out("append metrics", incremental(c, SUBS[0], [("metrics", 2, "y")]),
        (40, "Can't APPEND to key metrics because its type is not LIST."))
    out("subtract match", incremental(c, SUBS[0], [("match", 3, "client_id=x")]),
        (40, "Can't SUBTRACT to key match because its type is not LIST."))
    out("remove long", alter(c, SUBS[0], []), (0, None))
    out("alter empty name", incremental(c, "", [("metrics", 0, "a")]),
        (42, "Subscription name can't be empty"))
    out("legacy null", alter(c, SUBS[0], [("metrics", None)]),
        (42, "Null value not supported for : metrics"))
    out("validate only", incremental(c, SUBS[0], [("metrics", 0, "a")], True), (0, None))
    out("list after validate", list_resources(c, 0), (0, []))

    # --- describe: defaults, then what is set
    out("describe empty name", describe(c, "")[:2],
        (42, "Client metrics subscription name must not be empty"))
    out("describe unset", describe(c, SUBS[0]), (0, "", [
        ("interval.ms", "300000", 0, 5, 0, [], 3, "Metrics push interval in milliseconds"),
        ("match", "", 0, 5, 0, [], 7, "Client match criteria"),
        ("metrics", "", 0, 5, 0, [], 7, "Telemetry metric name prefix list")]))
    out("create a", incremental(c, SUBS[0], [
        ("metrics", 0, " org.apache.kafka.producer. , org.apache.kafka.consumer.coordinator,"
                       "org.apache.kafka.producer."),
        ("interval.ms", 0, " 0500 ")]), (0, None))
    out("describe a", describe(c, SUBS[0], synonyms=True, docs=False)[2], [
        ("interval.ms", "500", 0, 7, 0, [("interval.ms", "500", 7)], 3, None),
        ("match", "", 0, 5, 0, [], 7, None),
        ("metrics", "org.apache.kafka.producer.,org.apache.kafka.consumer.coordinator",
         0, 7, 0, [("metrics", "org.apache.kafka.producer.,org.apache.kafka.consumer.coordinator", 7)], 7, None)])
    out("describe a keys", [e[0] for e in describe(c, SUBS[0], ["metrics", "nope"])[2]], ["metrics"])
    out("create b", alter(c, SUBS[1], [("metrics", "*"), ("interval.ms", "2000"),
                                      ("match", "client_software_name=gregor-raw, client_id=telemetry-raw")]), (0, None))
    out("create c", incremental(c, SUBS[2], [("metrics", 0, "org.apache.kafka.other"),
                                            ("match", 0, "client_id=nobody")]), (0, None))
    time.sleep(1)  # Kafka's brokers learn of changes through the metadata log
    err, listed = list_resources(c, 0)
    out("list v0", (err, sorted(listed)), (0, sorted((s, 16) for s in SUBS[:3])))
    out("list v0 order", listed)
    err, listed = list_resources(c, 1, [16, 16])
    out("list v1 client metrics", (err, sorted(listed)), (0, sorted((s, 16) for s in SUBS[:3])))
    err, listed = list_resources(c, 1, [4, 8])
    out("list v1 broker types", (err, [t for _, t in listed]), (0, [8, 4]))
    err, listed = list_resources(c, 1, [2, 16, 99])
    out("list v1 unsupported", (err, listed), (35, []))
    err, listed = list_resources(c, 1, [])
    out("list v1 all types", sorted(set(t for _, t in listed)), [2, 4, 8, 16]
        if any(t == 2 for _, t in listed) else [4, 8, 16])

    # --- Get: a and b match this client, c does not
    g = get_subs(c, uid(1))
    out("get", (g["err"], g["id"], g["comp"], g["interval"], g["delta"], g["metrics"]),
        (0, uid(1), [4, 3, 1, 2], 500, 1, ["*"]))
    out("get sub id", g["sub"])
    out("get max bytes", g["max"])
    g2 = get_subs(c, uid(1))
    out("get again throttled", g2["err"], 89)
    out("throttled answer", (g2["id"], g2["sub"], g2["comp"], g2["metrics"]),
        (b"\0" * 16, 0, [], []))
    # another client matches only a
    c2 = Conn(client_id="other", software=("other-client", "2.0"))
    g3 = get_subs(c2, uid(2))
    out("get other", (g3["err"], g3["interval"], g3["metrics"]),
        (0, 500, ["org.apache.kafka.producer.", "org.apache.kafka.consumer.coordinator"]))
    out("get other sub id", g3["sub"])
    # a new instance id when zero: never reserved, no '-'
    g4 = get_subs(c2, b"\0" * 16)
    out("new id", g4["err"] == 0 and g4["id"] not in (b"\0" * 16, b"\0" * 15 + b"\1"), True)

    # --- Push
    sid = g["sub"]
    payload = otlp_gauge("org.apache.kafka.producer.test.gauge", 1.5)
    out("push reserved", push(c, b"\0" * 16, sid, payload), 42)
    out("push one uuid", push(c, b"\0" * 15 + b"\1", sid, payload), 42)
    out("push after get", push(c, uid(1), sid, payload), 0)
    out("push too soon", push(c, uid(1), sid, payload), 89)
    time.sleep(0.6)
    out("push wrong sub", push(c, uid(1), sid + 1, payload), 117)
    time.sleep(0.6)
    out("push bad compression", push(c, uid(1), sid, payload, comp=5), 76)
    # after UNSUPPORTED_COMPRESSION_TYPE a Get is not throttled
    g5 = get_subs(c, uid(1))
    out("get after bad compression", (g5["err"], g5["sub"] == sid), (0, True))
    # ... but the Get updated no time: the next push is too soon
    out("push after that get", push(c, uid(1), sid, payload), 89)
    time.sleep(0.6)
    out("push too large", push(c, uid(1), sid, b"\0" * 1001), 118)
    time.sleep(0.6)
    gz = gzip.compress(payload)
    out("push gzip", push(c, uid(1), sid, gz, comp=1), 0)
    time.sleep(0.6)
    out("push corrupt gzip", push(c, uid(1), sid, b"\x1f\x8b garbage", comp=1), 87)
    time.sleep(0.6)
    # inflates past telemetry.max.bytes (1000): INVALID_RECORD, not TOO_LARGE
    out("push gzip bomb", push(c, uid(1), sid, gzip.compress(b"\0" * 5000), comp=1), 87)
    time.sleep(0.6)
    out("push empty", push(c, uid(1), sid, b""), 0)
    out("push terminating early", push(c, uid(1), sid, payload, terminating=True), 0)
    out("push after terminating", push(c, uid(1), sid, payload), 42)

    # --- a subscription change: instances compute again
    g6 = get_subs(c2, uid(2))
    out("get other before change", g6["err"], 0)
    out("change c", incremental(c, SUBS[2], [("match", 1, None)]), (0, None))
    time.sleep(1)
    g7 = get_subs(c2, uid(2))
    out("get other after change", (g7["err"], g7["interval"], g7["metrics"]),
        (0, 500, ["org.apache.kafka.producer.", "org.apache.kafka.consumer.coordinator",
                  "org.apache.kafka.other"]))
    out("get other after change sub id", g7["sub"])
    out("push other old sub", push(c2, uid(2), g3["sub"], payload), 117)

    # --- many metrics from overlapping subscriptions: Kafka's HashSet order
    # and the subscription id over its text
    many = ["org.apache.kafka.producer.m%02d" % i for i in range(20)]
    out("create d", incremental(c, SUBS[3], [("metrics", 0, ",".join(many)),
                                            ("match", 0, "client_id=oth.*")]), (0, None))
    out("create e", incremental(c, SUBS[4], [("metrics", 0, ",".join(many[10:] + ["x%d" % i for i in range(9)])),
                                            ("interval.ms", 0, "700"), ("match", 0, "client_id=oth.*")]), (0, None))
    time.sleep(1)
    g8 = get_subs(c2, uid(4))
    out("get many", (g8["err"], g8["interval"], len(g8["metrics"])), (0, 500, 32))
    out("get many order", g8["metrics"])
    out("get many sub id", g8["sub"])

    # --- removal: a resource whose configs all go
    out("delete b configs", incremental(c, SUBS[1], [("metrics", 1, None), ("interval.ms", 1, None),
                                                    ("match", 1, None)]), (0, None))
    time.sleep(1)
    out("list after delete", sorted(list_resources(c, 0)[1]),
        sorted((s, 16) for s in SUBS if s != SUBS[1]))
    out("legacy replace c", alter(c, SUBS[2], [("interval.ms", "100")]), (0, None))
    out("describe c", [(e[0], e[1], e[3]) for e in describe(c, SUBS[2])[2]],
        [("interval.ms", "100", 7), ("match", "", 5), ("metrics", "", 5)])
    for s in SUBS:
        alter(c, s, [])
    time.sleep(1)
    out("list at the end", list_resources(c, 0), (0, []))
    c.close()
    c2.close()
    if MODE == "check":
        print("ok" if not FAILS else "%d checks failed" % len(FAILS))
        sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
