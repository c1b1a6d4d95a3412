#!/usr/bin/python3
"""Byte-level checks of the admin APIs against a running gregor
(GR_BOOTSTRAP), for the versions and APIs no client here sends: frames are
built and parsed by the small encoder below, written from the Kafka
protocol guide (independent of gregor's generated codecs).

  ApiVersions v0           the admin APIs advertised over their full ranges
  CreateTopics v0, v5, v7  defaults (-1), replica assignment, validate_only,
                           configs echoed with sources, topic ids
  DescribeConfigs v0, v3, v4  is_default, config types, documentation,
                           synonyms, the cluster-wide default resource ""
  IncrementalAlterConfigs v0, v1  SET, DELETE, APPEND, SUBTRACT on topics,
                           this broker, every broker (""), the logger
  AlterConfigs v2          flexible
  DescribeCluster v0, v1   cluster id, brokers, endpoint types
  DescribeLogDirs v0-v4    partition sizes, space (v4), top-level error (v3+)
  ElectLeaders v0-v2       ELECTION_NOT_NEEDED, unknown partitions, all (null)
  CreatePartitions v2, v3  with assignments
  DeleteRecords v0, v2     low watermark, out of range, POLICY_VIOLATION
  DeleteTopics v0, v5, v6  by name and by topic id

Exit 0 or 1."""

import os
import socket
import struct
import sys

HOST, PORT = os.environ["GR_BOOTSTRAP"].rsplit(":", 1)

NONE, OFFSET_OUT_OF_RANGE, UNKNOWN_TOPIC = 0, 1, 3
INVALID_TOPIC, TOPIC_EXISTS, INVALID_PARTITIONS = 17, 36, 37
INVALID_RF, INVALID_ASSIGNMENT, INVALID_CONFIG = 38, 39, 40
INVALID_REQUEST, POLICY_VIOLATION, ELECTION_NOT_NEEDED = 42, 44, 84
UNKNOWN_TOPIC_ID, MISMATCHED_ENDPOINT = 100, 114
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
TOPIC, BROKER, BROKER_LOGGER = 2, 4, 8

# first flexible version per api key
FLEX = {18: 3, 19: 5, 20: 4, 21: 2, 32: 4, 33: 2, 35: 2, 37: 2, 43: 2,
        44: 1, 60: 0, 3: 9}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def expect(cond, what):
    if not cond:
        fail(what)


class W:
    """Encoder: fixed ints, (compact) strings, arrays, tagged fields."""

    def __init__(self, flex):
        self.b = bytearray()
        self.flex = flex

    def i8(self, v):
        self.b += struct.pack(">b", v)
        return self

    def i16(self, v):
        self.b += struct.pack(">h", v)
        return self

    def i32(self, v):
        self.b += struct.pack(">i", v)
        return self

    def i64(self, v):
        self.b += struct.pack(">q", v)
        return self

    def bool(self, v):
        return self.i8(1 if v else 0)

    def uuid(self, v):
        self.b += v
        return self

    def uv(self, n):
        while n >= 0x80:
            self.b.append((n & 0x7F) | 0x80)
            n >>= 7
        self.b.append(n)
        return self

    def str(self, s):
        if s is None:
            return self.uv(0) if self.flex else self.i16(-1)
        d = s.encode()
        if self.flex:
            self.uv(len(d) + 1)
        else:
            self.i16(len(d))
        self.b += d
        return self

    def arr(self, items, fn):
        if items is None:
            return self.uv(0) if self.flex else self.i32(-1)
        if self.flex:
            self.uv(len(items) + 1)
        else:
            self.i32(len(items))
        for it in items:
            fn(self, it)
        return self

    def tags(self):
        if self.flex:
            self.uv(0)
        return self


class R:
    """Decoder, the mirror of W; tagged fields are skipped."""

    def __init__(self, data, flex):
        self.d = data
        self.p = 0
        self.flex = flex

    def _take(self, n):
        if self.p + n > len(self.d):
            fail("response truncated")
        v = self.d[self.p:self.p + n]
        self.p += n
        return v

    def i8(self):
        return struct.unpack(">b", self._take(1))[0]

    def i16(self):
        return struct.unpack(">h", self._take(2))[0]

    def i32(self):
        return struct.unpack(">i", self._take(4))[0]

    def i64(self):
        return struct.unpack(">q", self._take(8))[0]

    def bool(self):
        return self.i8() != 0

    def uuid(self):
        return bytes(self._take(16))

    def uv(self):
        n = shift = 0
        while True:
            b = self._take(1)[0]
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n

    def str(self):
        if self.flex:
            n = self.uv() - 1
        else:
            n = self.i16()
        return None if n < 0 else self._take(n).decode()

    def arr(self, fn):
        n = self.uv() - 1 if self.flex else self.i32()
        return None if n < 0 else [fn(self) for _ in range(n)]

    def tags(self):
        if self.flex:
            for _ in range(self.uv()):
                self.uv()
                self._take(self.uv())

    def end(self):
        expect(self.p == len(self.d), "%d trailing bytes" % (len(self.d) - self.p))


class Conn:
    def __init__(self):
        self.s = socket.create_connection((HOST, int(PORT)), timeout=10)
        self.corr = 0

    def call(self, key, ver, body):
        """Sends body (a W) as api key/version; returns an R on the response
        body (after its header)."""
        flex = ver >= FLEX.get(key, 99)
        self.corr += 1
        h = W(False).i16(key).i16(ver).i32(self.corr).str("admin-raw")
        if flex:
            h.uv(0)
        frame = bytes(h.b) + bytes(body.b)
        self.s.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", self._read(4))[0]
        data = self._read(size)
        r = R(data, flex)
        expect(r.i32() == self.corr, "correlation id")
        if flex and key != 18:  # ApiVersions answers with header v0
            r.tags()
        return r

    def _read(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                fail("connection closed by the broker")
            buf += chunk
        return buf


def flexw(key, ver):
    return W(ver >= FLEX[key])


# --- ApiVersions

def api_versions(c):
    r = c.call(18, 0, W(False))
    expect(r.i16() == NONE, "ApiVersions error")
    got = {k: (lo, hi) for k, lo, hi in r.arr(lambda r: (r.i16(), r.i16(), r.i16()))}
    want = {19: (0, 7), 20: (0, 6), 21: (0, 2), 32: (0, 4), 33: (0, 2),
            35: (0, 5), 37: (0, 3), 43: (0, 2), 44: (0, 1), 60: (0, 2)}
    for k, v in want.items():
        expect(got.get(k) == v, "ApiVersions: key %d is %r, want %r" % (k, got.get(k), v))
    print("ApiVersions v0: admin APIs advertised")


# --- CreateTopics

def create_topics(c, ver, topics, validate_only=False):
    """topics: (name, nparts, rf, assignments [(p, [ids])], configs [(k, v)])"""
    w = flexw(19, ver)

    def topic(w, t):
        name, np, rf, asg, cfg = t
        w.str(name).i32(np).i16(rf)
        w.arr(asg, lambda w, a: w.i32(a[0]).arr(a[1], lambda w, b: w.i32(b)).tags())
        w.arr(cfg, lambda w, kv: w.str(kv[0]).str(kv[1]).tags())
        w.tags()
    w.arr(topics, topic).i32(10000)
    if ver >= 1:
        w.bool(validate_only)
    w.tags()
    r = c.call(19, ver, w)
    if ver >= 2:
        r.i32()

    def result(r):
        o = {"name": r.str()}
        if ver >= 7:
            o["id"] = r.uuid()
        o["error"] = r.i16()
        if ver >= 1:
            o["message"] = r.str()
        if ver >= 5:
            o["nparts"] = r.i32()
            o["rf"] = r.i16()
            o["configs"] = r.arr(lambda r: (r.str(), r.str(), r.bool(), r.i8(), r.bool(), r.tags())[:5])
        r.tags()
        return o
    res = r.arr(result)
    r.tags()
    r.end()
    return res


def check_create(c):
    # v0: a plain topic
    res = create_topics(c, 0, [("raw-plain", 2, 1, [], [])])
    expect(res[0]["error"] == NONE, "CreateTopics v0: %r" % res)
    # v7: defaults (-1), configs echoed with sources, a topic id
    res = create_topics(c, 7, [("raw-cmp", -1, -1, [], [("cleanup.policy", "compact")]),
                               ("raw-plain", 1, 1, [], []),
                               ("raw bad", 1, 1, [], [])])
    t = res[0]
    expect(t["error"] == NONE and t["nparts"] == 1 and t["rf"] == 1, "v7: %r" % t)
    expect(t["id"] != b"\0" * 16, "v7: no topic id")
    cfg = {n: (v, ro, src, sens) for n, v, ro, src, sens in t["configs"]}
    expect(cfg["cleanup.policy"] == ("compact", False, 1, False), "v7 configs: %r" % (cfg["cleanup.policy"],))
    expect(cfg["retention.ms"] == ("604800000", False, 5, False), "v7 retention.ms: %r" % (cfg["retention.ms"],))
    expect(res[1]["error"] == TOPIC_EXISTS and "already exists" in res[1]["message"], "v7 exists: %r" % res[1])
    expect(res[2]["error"] == INVALID_TOPIC and res[2]["nparts"] == -1, "v7 bad name: %r" % res[2])
    # v5: validate_only with an assignment; conflicting fields; rf; configs
    res = create_topics(c, 5, [("raw-asg", -1, -1, [(0, [1]), (1, [1])], [("segment.ms", "60000")]),
                               ("raw-both", 2, -1, [(0, [1])], []),
                               ("raw-rf", 1, 2, [], []),
                               ("raw-unknown-broker", -1, -1, [(0, [7])], []),
                               ("raw-cfg", 1, 1, [], [("retention.ms", "-5")])],
                        validate_only=True)
    expect(res[0]["error"] == NONE and res[0]["nparts"] == 2, "v5 validate_only: %r" % res[0])
    expect(any(n == "segment.ms" and v == "60000" and s == 1 for n, v, _, s, _ in res[0]["configs"]),
           "v5 validate_only configs")
    expect(res[1]["error"] == INVALID_REQUEST, "v5 both: %r" % res[1])
    expect(res[2]["error"] == INVALID_RF, "v5 rf: %r" % res[2])
    expect(res[3]["error"] == INVALID_ASSIGNMENT, "v5 assignment: %r" % res[3])
    expect(res[4]["error"] == INVALID_CONFIG and "retention.ms" in res[4]["message"]
           and "-5" in res[4]["message"], "v5 config: %r" % res[4])
    names = [t["name"] for t in metadata_topics(c)]
    expect("raw-asg" not in names, "validate_only created raw-asg")
    # the same name twice in one request: one answer, refused (Kafka's
    # ControllerApis.createTopics)
    res = create_topics(c, 4, [("raw-dup", 1, 1, [], []), ("raw-dup", 1, 1, [], [])])
    expect([t["error"] for t in res] == [INVALID_REQUEST], "duplicates: %r" % res)
    print("CreateTopics v0, v4, v5, v7: ok")
    return t["id"]


def metadata_topics(c):
    """Metadata v1, all topics: [{name, error, partitions}]"""
    r = c.call(3, 1, W(False).arr(None, None))
    r.arr(lambda r: (r.i32(), r.str(), r.i32(), r.str()))
    r.i32()

    def part(r):
        e, p, l = r.i16(), r.i32(), r.i32()
        r.arr(lambda r: r.i32())
        r.arr(lambda r: r.i32())
        return p
    return r.arr(lambda r: {"error": r.i16(), "name": r.str(), "internal": r.bool(),
                            "partitions": r.arr(part)})


# --- DescribeConfigs

def describe_configs(c, ver, resources, synonyms=False, docs=False):
    """resources: (type, name, keys or None) -> [{error, message, configs{name: {...}}}]"""
    w = flexw(32, ver)
    w.arr(resources, lambda w, r: w.i8(r[0]).str(r[1]).arr(r[2], lambda w, k: w.str(k)).tags())
    if ver >= 1:
        w.bool(synonyms)
    if ver >= 3:
        w.bool(docs)
    w.tags()
    r = c.call(32, ver, w)
    r.i32()

    def entry(r):
        e = {"name": r.str(), "value": r.str(), "read_only": r.bool()}
        if ver == 0:
            e["is_default"] = r.bool()
        else:
            e["source"] = r.i8()
        e["sensitive"] = r.bool()
        if ver >= 1:
            e["synonyms"] = r.arr(lambda r: (r.str(), r.str(), r.i8(), r.tags())[:3])
        if ver >= 3:
            e["type"] = r.i8()
            e["doc"] = r.str()
        r.tags()
        return e

    def result(r):
        o = {"error": r.i16(), "message": r.str(), "type": r.i8(), "name": r.str()}
        o["configs"] = {e["name"]: e for e in r.arr(entry)}
        r.tags()
        return o
    res = r.arr(result)
    r.tags()
    r.end()
    return res


def check_describe(c):
    res = describe_configs(c, 0, [(TOPIC, "raw-cmp", None), (TOPIC, "raw-none", None),
                                  (BROKER, "7", None)])
    cfg = res[0]["configs"]
    expect(cfg["cleanup.policy"]["value"] == "compact" and not cfg["cleanup.policy"]["is_default"],
           "v0 cleanup.policy: %r" % cfg["cleanup.policy"])
    expect(cfg["segment.bytes"]["is_default"], "v0 segment.bytes is_default")
    expect(res[1]["error"] == UNKNOWN_TOPIC, "v0 unknown topic: %r" % res[1]["error"])
    expect(res[2]["error"] == INVALID_REQUEST and "Unexpected broker id" in res[2]["message"],
           "v0 broker 7: %r" % res[2])
    # a resource type Kafka does not know fails the whole request (its
    # authorization throws): INVALID_REQUEST for every resource
    res = describe_configs(c, 0, [(TOPIC, "raw-cmp", None), (99, "x", None)])
    expect([r["error"] for r in res] == [INVALID_REQUEST] * 2 and not res[0]["configs"],
           "v0 resource type 99: %r" % res)
    for ver in (3, 4):
        res = describe_configs(c, ver, [(TOPIC, "raw-cmp", ["cleanup.policy", "retention.ms", "no.such"]),
                                        (BROKER, "1", ["log.retention.hours", "ssl.key.password"])],
                               synonyms=True, docs=True)
        cfg = res[0]["configs"]
        expect(sorted(cfg) == ["cleanup.policy", "retention.ms"], "v%d keys: %r" % (ver, sorted(cfg)))
        cp = cfg["cleanup.policy"]
        expect(cp["type"] == 7 and cp["source"] == 1 and cp["doc"] and "compact" in cp["doc"],
               "v%d cleanup.policy: %r" % (ver, cp))
        expect(cp["synonyms"][0] == ("cleanup.policy", "compact", 1)
               and cp["synonyms"][1] == ("log.cleanup.policy", "delete", 5),
               "v%d synonyms: %r" % (ver, cp["synonyms"]))
        expect(cfg["retention.ms"]["type"] == 5, "v%d retention.ms type" % ver)
        b = res[1]["configs"]
        # read-only, as in Kafka (only log.retention.ms is dynamic)
        expect(b["log.retention.hours"]["type"] == 3 and b["log.retention.hours"]["read_only"]
               and b["log.retention.hours"]["doc"], "v%d log.retention.hours: %r" % (ver, b["log.retention.hours"]))
        pw = b["ssl.key.password"]
        expect(pw["value"] is None and pw["sensitive"] and pw["type"] == 9 and pw["read_only"]
               and pw["source"] == 4, "v%d password: %r" % (ver, pw))
    # without documentation: null
    res = describe_configs(c, 3, [(TOPIC, "raw-cmp", ["cleanup.policy"])])
    expect(res[0]["configs"]["cleanup.policy"]["doc"] is None, "doc not asked for")
    print("DescribeConfigs v0, v3, v4: ok")


# --- IncrementalAlterConfigs, AlterConfigs

def incremental(c, ver, resources, validate_only=False):
    """resources: (type, name, [(key, op, value)]) -> [(error, message)]"""
    w = flexw(44, ver)
    w.arr(resources, lambda w, r: w.i8(r[0]).str(r[1]).arr(
        r[2], lambda w, e: w.str(e[0]).i8(e[1]).str(e[2]).tags()).tags())
    w.bool(validate_only).tags()
    r = c.call(44, ver, w)
    r.i32()
    res = r.arr(lambda r: (r.i16(), r.str(), r.i8(), r.str(), r.tags())[:2])
    r.tags()
    r.end()
    return res


def value(c, rtype, name, key):
    cfg = describe_configs(c, 1, [(rtype, name, [key])])[0]["configs"]
    return (cfg[key]["value"], cfg[key]["source"]) if key in cfg else None


def check_alter(c):
    for ver in (0, 1):
        res = incremental(c, ver, [(TOPIC, "raw-cmp", [("cleanup.policy", APPEND, "delete")])])
        expect(res == [(NONE, None)], "v%d append: %r" % (ver, res))
        expect(value(c, TOPIC, "raw-cmp", "cleanup.policy") == ("compact,delete", 1), "after append")
        incremental(c, ver, [(TOPIC, "raw-cmp", [("cleanup.policy", SUBTRACT, "compact")])])
        expect(value(c, TOPIC, "raw-cmp", "cleanup.policy") == ("delete", 1), "after subtract")
        incremental(c, ver, [(TOPIC, "raw-cmp", [("cleanup.policy", SET, "compact")])])
    # one request each: Kafka's broker refuses a resource named twice
    # (both), and an unknown operation on a topic fails its controller's
    # whole batch (UNKNOWN_SERVER_ERROR)
    res = [incremental(c, 1, [r])[0] for r in [
        (TOPIC, "raw-cmp", [("retention.ms", SET, "abc")]),
        (TOPIC, "raw-cmp", [("retention.ms", APPEND, "5")]),
        (TOPIC, "raw-cmp", [("retention.ms", SET, "1"), ("retention.ms", DELETE, None)]),
        (TOPIC, "raw-cmp", [("retention.ms", 9, "1")]),
        (TOPIC, "raw-none", [("retention.ms", SET, "1")]),
        (BROKER, "1", [("num.partitions", SET, "2")]),
        (BROKER, "1", [("log.cleaner.min.cleanable.ratio", SET, "1.5")])]]
    codes = [e for e, _ in res]
    expect(codes == [INVALID_CONFIG, INVALID_CONFIG, INVALID_REQUEST, -1,
                     UNKNOWN_TOPIC, INVALID_REQUEST, INVALID_REQUEST], "errors: %r" % res)
    twice = incremental(c, 1, [(TOPIC, "raw-cmp", [("retention.ms", SET, "1")]),
                               (TOPIC, "raw-cmp", [("segment.ms", SET, "1")])])
    expect(twice == [(INVALID_REQUEST, "Each resource must appear at most once.")] * 2,
           "a resource twice: %r" % twice)
    expect("abc" in res[0][1] and "retention.ms" in res[0][1], "message names key and value")
    # validate_only changes nothing
    incremental(c, 1, [(TOPIC, "raw-cmp", [("retention.ms", SET, "1000")])], validate_only=True)
    expect(value(c, TOPIC, "raw-cmp", "retention.ms")[1] == 5, "validate_only altered")
    # every broker (""), then this broker: sources and precedence
    res = incremental(c, 1, [(BROKER, "", [("log.retention.ms", SET, "3600000")])])
    expect(res == [(NONE, None)], "default: %r" % res)
    expect(value(c, TOPIC, "raw-cmp", "retention.ms") == ("3600000", 3), "dynamic default source")
    d = describe_configs(c, 4, [(BROKER, "", None)], synonyms=True)[0]["configs"]
    expect(list(d) == ["log.retention.ms"] and d["log.retention.ms"]["source"] == 3,
           "describe \"\": %r" % d)
    incremental(c, 1, [(BROKER, "1", [("log.retention.ms", SET, "7200000")])])
    expect(value(c, TOPIC, "raw-cmp", "retention.ms") == ("7200000", 2), "dynamic broker source")
    syn = describe_configs(c, 1, [(BROKER, "1", ["log.retention.ms"])], synonyms=True)[0][
        "configs"]["log.retention.ms"]["synonyms"]
    expect([(s[0], s[2]) for s in syn] == [("log.retention.ms", 2), ("log.retention.ms", 3),
                                         ("log.retention.hours", 5)], "synonyms: %r" % syn)
    incremental(c, 1, [(BROKER, "1", [("log.retention.ms", DELETE, None)]),
                       (BROKER, "", [("log.retention.ms", DELETE, None)])])
    expect(value(c, TOPIC, "raw-cmp", "retention.ms") == ("604800000", 5), "back to the default")
    # the logger
    res = (incremental(c, 1, [(BROKER_LOGGER, "1", [("root", SET, "DEBUG")])]) +
           incremental(c, 1, [(BROKER_LOGGER, "1", [("root", SET, "LOUD")]),
                              (BROKER_LOGGER, "", [("root", SET, "INFO")])]))
    expect([e for e, _ in res] == [NONE, INVALID_CONFIG, INVALID_REQUEST], "logger: %r" % res)
    lg = describe_configs(c, 1, [(BROKER_LOGGER, "1", None)])[0]["configs"]
    expect(lg["root"]["value"] == "DEBUG" and lg["root"]["source"] == 6, "logger: %r" % lg)
    incremental(c, 1, [(BROKER_LOGGER, "1", [("root", SET, "INFO")])])
    # AlterConfigs v2 (flexible) replaces the topic's overrides
    w = W(True)
    w.arr([(TOPIC, "raw-cmp", [("cleanup.policy", "compact"), ("segment.ms", "500")])],
          lambda w, r: w.i8(r[0]).str(r[1]).arr(r[2], lambda w, kv: w.str(kv[0]).str(kv[1]).tags()).tags())
    w.bool(False).tags()
    r = c.call(33, 2, w)
    r.i32()
    res = r.arr(lambda r: (r.i16(), r.str(), r.i8(), r.str(), r.tags())[:4])
    r.tags()
    r.end()
    expect(res == [(NONE, None, TOPIC, "raw-cmp")], "AlterConfigs v2: %r" % res)
    expect(value(c, TOPIC, "raw-cmp", "segment.ms") == ("500", 1), "AlterConfigs v2 applied")
    print("IncrementalAlterConfigs v0, v1, AlterConfigs v2: ok")


# --- DescribeCluster, DescribeLogDirs, ElectLeaders

def check_cluster(c):
    for ver in (0, 1, 2):
        w = W(True).bool(True)
        if ver >= 1:
            w.i8(1)
        if ver >= 2:
            w.bool(True)  # IncludeFencedBrokers
        r = c.call(60, ver, w.tags())
        r.i32()
        err, msg = r.i16(), r.str()
        if ver >= 1:
            expect(r.i8() == 1, "endpoint type")
        cid, ctrl = r.str(), r.i32()

        def broker(r):
            b = (r.i32(), r.str(), r.i32(), r.str())
            if ver >= 2:
                expect(r.bool() is False, "v2: IsFenced")
            r.tags()
            return b
        brokers = r.arr(broker)
        ops = r.i32()
        r.tags()
        r.end()
        expect(err == NONE and cid and ctrl == 1, "DescribeCluster v%d: %r %r" % (ver, err, cid))
        expect(len(brokers) == 1 and brokers[0][0] == 1 and brokers[0][2] == int(PORT),
               "brokers: %r" % brokers)
        expect(ops != -2147483648 and ops & (1 << 10), "authorized operations: %r" % ops)
    r = c.call(60, 1, W(True).bool(False).i8(2).tags())
    r.i32()
    expect(r.i16() == MISMATCHED_ENDPOINT, "controllers from a broker")
    print("DescribeCluster v0-v2: ok")


def check_log_dirs(c):
    for ver in range(6):
        for topics in (None, [("raw-plain", [0, 1, 5]), ("raw-none", [0])]):
            w = flexw(35, ver)
            w.arr(topics, lambda w, t: w.str(t[0]).arr(t[1], lambda w, p: w.i32(p)).tags()).tags()
            r = c.call(35, ver, w)
            r.i32()
            if ver >= 3:
                expect(r.i16() == NONE, "top-level error")

            def part(r):
                o = (r.i32(), r.i64(), r.i64(), r.bool())
                r.tags()
                return o

            def result(r):
                o = {"error": r.i16(), "dir": r.str(),
                     "topics": {t[0]: t[1] for t in r.arr(lambda r: (r.str(), r.arr(part), r.tags()))}}
                if ver >= 4:
                    o["total"], o["usable"] = r.i64(), r.i64()
                if ver >= 5:
                    o["cordoned"] = r.bool()
                r.tags()
                return o
            res = r.arr(result)
            r.tags()
            r.end()
            expect(len(res) == 1 and res[0]["error"] == NONE and res[0]["dir"].endswith("data"),
                   "DescribeLogDirs v%d: %r" % (ver, res))
            parts = res[0]["topics"].get("raw-plain")
            expect(parts and sorted(p[0] for p in parts) == [0, 1], "v%d partitions: %r" % (ver, parts))
            expect(all(p[1] >= 0 and p[2] == 0 and not p[3] for p in parts), "v%d sizes" % ver)
            if topics is not None:
                expect("raw-none" not in res[0]["topics"], "unknown topic listed")
            if ver >= 4:
                expect(res[0]["total"] > 0 and 0 <= res[0]["usable"] <= res[0]["total"], "v4 space")
            if ver >= 5:
                expect(res[0]["cordoned"] is False, "v5: IsCordoned")
    print("DescribeLogDirs v0-v5: ok")


def check_elect(c):
    for ver in range(3):
        for etype, parts in ((0, [("raw-plain", [0, 9]), ("raw-none", [0])]), (1, None)):
            w = flexw(43, ver)
            if ver >= 1:
                w.i8(etype)
            w.arr(parts, lambda w, t: w.str(t[0]).arr(t[1], lambda w, p: w.i32(p)).tags())
            w.i32(1000).tags()
            r = c.call(43, ver, w)
            r.i32()
            if ver >= 1:
                expect(r.i16() == NONE, "top-level error")
            res = r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i16(), r.str(), r.tags())[:3]), r.tags())[:2])
            r.tags()
            r.end()
            if parts is None:
                # every topic, none of its partitions needing an election
                # (Kafka's controller lists each topic)
                expect({t for t, _ in res} >= {"raw-plain", "raw-cmp"}
                       and all(ps == [] for _, ps in res),
                       "ElectLeaders v%d all: %r" % (ver, res))
                continue
            got = {(t, p): e for t, ps in res for p, e, _ in ps}
            expect(got == {("raw-plain", 0): ELECTION_NOT_NEEDED, ("raw-plain", 9): UNKNOWN_TOPIC,
                           ("raw-none", 0): UNKNOWN_TOPIC}, "ElectLeaders v%d: %r" % (ver, res))
    print("ElectLeaders v0-v2: ok")


# --- CreatePartitions, DeleteRecords, DeleteTopics

def check_partitions(c):
    for ver, total, asg, want in ((2, 3, [[1]], NONE), (3, 5, [[1], [1]], NONE),
                                  (3, 6, [[7]], INVALID_ASSIGNMENT), (2, 7, [[1]], INVALID_ASSIGNMENT),
                                  (3, 5, None, INVALID_PARTITIONS)):
        w = W(True)
        w.arr([("raw-plain", total, asg)], lambda w, t: w.str(t[0]).i32(t[1]).arr(
            t[2], lambda w, a: w.arr(a, lambda w, b: w.i32(b)).tags()).tags())
        w.i32(1000).bool(False).tags()
        r = c.call(37, ver, w)
        r.i32()
        res = r.arr(lambda r: (r.str(), r.i16(), r.str(), r.tags())[:3])
        r.tags()
        r.end()
        expect(res[0][1] == want, "CreatePartitions v%d to %d: %r" % (ver, total, res))
    n = [len(t["partitions"]) for t in metadata_topics(c) if t["name"] == "raw-plain"]
    expect(n == [5], "partitions now %r" % n)
    print("CreatePartitions v2, v3: ok")


def produce(n):
    from kafka import KafkaProducer
    p = KafkaProducer(bootstrap_servers=os.environ["GR_BOOTSTRAP"])
    for i in range(n):
        p.send("raw-plain", value=b"v%d" % i, partition=0)
    p.flush(10)
    p.close()


def delete_records(c, ver, parts):
    w = flexw(21, ver)
    w.arr([("raw-plain", parts)], lambda w, t: w.str(t[0]).arr(
        t[1], lambda w, p: w.i32(p[0]).i64(p[1]).tags()).tags())
    w.i32(1000).tags()
    r = c.call(21, ver, w)
    r.i32()
    res = r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i64(), r.i16(), r.tags())[:3]), r.tags())[1])
    r.tags()
    r.end()
    return res[0]


def check_records(c):
    produce(10)
    res = delete_records(c, 0, [(0, 4), (1, 0), (9, 0)])
    expect(res == [(0, 4, NONE), (1, 0, NONE), (9, -1, UNKNOWN_TOPIC)], "DeleteRecords v0: %r" % res)
    res = delete_records(c, 2, [(0, 2)])
    expect(res == [(0, 4, NONE)], "DeleteRecords v2: %r" % res)
    # past the high watermark: low watermark -1, as Kafka answers errors;
    # a partition listed twice is answered once, for its last offset
    res = delete_records(c, 2, [(0, 5), (0, 11)])
    expect(res == [(0, -1, OFFSET_OUT_OF_RANGE)], "DeleteRecords v2 past the end: %r" % res)
    res = delete_records(c, 2, [(0, -1)])
    expect(res == [(0, 10, NONE)], "DeleteRecords to the high watermark: %r" % res)
    w = W(True).arr([("raw-cmp", [(0, 0)])], lambda w, t: w.str(t[0]).arr(
        t[1], lambda w, p: w.i32(p[0]).i64(p[1]).tags()).tags()).i32(1000).tags()
    r = c.call(21, 2, w)
    r.i32()
    res = r.arr(lambda r: (r.str(), r.arr(lambda r: (r.i32(), r.i64(), r.i16(), r.tags())[:3]), r.tags())[1])
    expect(res[0][0][2] == POLICY_VIOLATION, "DeleteRecords on compact: %r" % res)
    print("DeleteRecords v0, v2: ok")


def delete_topics(c, ver, names=None, ids=None):
    w = flexw(20, ver)
    if ver >= 6:
        items = [(n, b"\0" * 16) for n in names or []] + [(None, i) for i in ids or []]
        w.arr(items, lambda w, t: w.str(t[0]).uuid(t[1]).tags())
    else:
        w.arr(names, lambda w, n: w.str(n))
    w.i32(1000).tags()
    r = c.call(20, ver, w)
    if ver >= 1:
        r.i32()

    def result(r):
        o = {"name": r.str()}
        if ver >= 6:
            o["id"] = r.uuid()
        o["error"] = r.i16()
        if ver >= 5:
            o["message"] = r.str()
        r.tags()
        return o
    res = r.arr(result)
    r.tags()
    r.end()
    return res


def check_delete(c, cmp_id):
    res = delete_topics(c, 6, ids=[cmp_id])
    expect(res[0]["error"] == NONE and res[0]["name"] == "raw-cmp" and res[0]["id"] == cmp_id,
           "DeleteTopics v6 by id: %r" % res)
    res = delete_topics(c, 6, ids=[cmp_id], names=["raw-none"])
    expect(sorted(t["error"] for t in res) == [UNKNOWN_TOPIC, UNKNOWN_TOPIC_ID], "v6 unknown: %r" % res)
    res = delete_topics(c, 5, names=["raw-plain", "raw-plain"])
    expect([t["error"] for t in res] == [INVALID_REQUEST], "v5 duplicates: %r" % res)
    res = delete_topics(c, 0, names=["raw-plain"])
    expect(res[0]["error"] == NONE, "DeleteTopics v0: %r" % res)
    names = [t["name"] for t in metadata_topics(c)]
    expect("raw-plain" not in names and "raw-cmp" not in names, "still listed: %r" % names)
    print("DeleteTopics v0, v5, v6: ok")


def main():
    c = Conn()
    api_versions(c)
    cmp_id = check_create(c)
    check_describe(c)
    check_alter(c)
    check_cluster(c)
    check_log_dirs(c)
    check_elect(c)
    check_partitions(c)
    check_records(c)
    check_delete(c, cmp_id)
    print("ok")


if __name__ == "__main__":
    main()
