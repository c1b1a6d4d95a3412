#!/usr/bin/python3
"""Replication, the leader's side (compat scenario zk_repl): one gregor
broker (1) on ZooKeeper, and a follower (broker 9) played by this script
with raw Fetch v12 frames from ReplicaId 9, registered in ZooKeeper with
ZooKeeper's own C client (tests/zk/zkcli) so that a topic can be placed
on [1, 9]. min.insync.replicas is 2. Checks, in order:

  - the ISR the controller writes is [1]: acks=all is NOT_ENOUGH_REPLICAS,
    and records produced with acks=1 stay above the high watermark
    (strict min ISR): a consumer sees none of them;
  - the follower's fetch reads past the high watermark (to the log end)
    and is answered with the leader's high watermark; a follower at the
    high watermark joins the ISR: the leader writes [1,9] to the state
    znode; the follower's fetch at the log end moves the watermark;
  - OffsetForLeaderEpoch from the follower: the end of epoch 0;
  - CurrentLeaderEpoch newer: UNKNOWN_LEADER_EPOCH; a LastFetchedEpoch
    whose end is below the fetch offset: DivergingEpoch; an epoch the
    leader never had: OFFSET_OUT_OF_RANGE; a broker that is no replica:
    NOT_LEADER_OR_FOLLOWER;
  - acks=all is answered only once the follower fetched past the batch,
    and a consumer long-polling at the high watermark is woken then;
  - a follower that stops fetching leaves the ISR after
    replica.lag.time.max.ms (the state znode says [1], leader epoch
    kept); an acks=all produce waiting then times out
    (REQUEST_TIMED_OUT: the watermark stays under min.insync.replicas);
    a new one is NOT_ENOUGH_REPLICAS; consumers stop at the watermark;
  - the controller's write (leader epoch 1, played with zkcli set):
    CurrentLeaderEpoch 0 is FENCED_LEADER_EPOCH, and the leader's next
    ISR change is made on the version it read again.

  repl.py BROKER ZKCLI ZK_CONNECT CHROOT LAG_MS
Prints '# figure:' lines; exit 0 or 1."""

import json
import select
import socket
import struct
import subprocess
import sys
import time

from confluent_kafka.admin import AdminClient, NewTopic
from kafka.record.default_records import DefaultRecordBatchBuilder

BROKER, ZKCLI, ZK, CHROOT = sys.argv[1:5]
LAG_MS = int(sys.argv[5])
TOPIC = "zkr"
FAKE = 9
STATE = "%s/brokers/topics/%s/partitions/0/state" % (CHROOT, TOPIC)

NONE, OOR, NOT_LEADER, TIMED_OUT = 0, 1, 6, 7
NOT_ENOUGH, FENCED, UNKNOWN_EPOCH = 19, 74, 75


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


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
    return uvarint(len(items) + 1) + b"".join(items)


T = b"\x00"


class Reader:
    def __init__(self, d):
        self.d, self.p = d, 0

    def take(self, n):
        v = self.d[self.p:self.p + n]
        check(len(v) == n, "response truncated")
        self.p += n
        return v

    def i16(self):
        return struct.unpack(">h", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def i64(self):
        return struct.unpack(">q", self.take(8))[0]

    def uv(self):
        s = v = 0
        while True:
            b = self.take(1)[0]
            v |= (b & 0x7F) << s
            if not b & 0x80:
                return v
            s += 7

    def cstr(self):
        n = self.uv()
        return None if n == 0 else self.take(n - 1).decode()

    def cbytes(self):
        n = self.uv()
        return None if n == 0 else self.take(n - 1)

    def carray(self, fn):
        n = self.uv()
        return None if n == 0 else [fn(self) for _ in range(n - 1)]

    def tags(self):
        out = {}
        for _ in range(self.uv()):
            k = self.uv()
            out[k] = self.take(self.uv())
        return out


class Conn:
    def __init__(self):
        host, port = BROKER.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=20)
        self.corr = 0

    def send(self, api, ver, body):
        self.corr += 1
        hdr = struct.pack(">hhih", api, ver, self.corr, 4) + b"repl" + T
        self.s.sendall(struct.pack(">i", len(hdr) + len(body)) + hdr + body)

    def ready(self, secs):
        return bool(select.select([self.s], [], [], secs)[0])

    def recv(self):
        n = struct.unpack(">i", self.exact(4))[0]
        r = Reader(self.exact(n))
        check(r.i32() == self.corr, "correlation id")
        r.tags()
        return r

    def exact(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                fail("connection closed by the broker")
            b += c
        return b


def batch(values):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0,
                                  is_transactional=False, producer_id=-1,
                                  producer_epoch=-1, base_sequence=-1,
                                  batch_size=1 << 20)
    now = int(time.time() * 1000)
    for i, v in enumerate(values):
        b.append(i, timestamp=now, key=None, value=v, headers=[])
    return bytes(b.build())


def produce_send(c, acks, values, timeout_ms=10000):
    part = struct.pack(">i", 0) + cbytes(batch(values)) + T
    topic = cstr(TOPIC) + carray([part]) + T
    c.send(0, 9, cstr(None) + struct.pack(">hi", acks, timeout_ms) +
           carray([topic]) + T)


def produce_recv(c):
    r = c.recv()

    def presp(r):
        v = (r.i32(), r.i16(), r.i64())
        r.i64(), r.i64()
        r.carray(lambda r: (r.i32(), r.cstr(), r.tags()))
        r.cstr()
        r.tags()
        return v

    def tresp(r):
        v = (r.cstr(), r.carray(presp))
        r.tags()
        return v

    _, err, base = r.carray(tresp)[0][1][0]
    return err, base


def produce(acks, values, timeout_ms=10000):
    c = Conn()
    produce_send(c, acks, values, timeout_ms)
    return produce_recv(c)


def next_offset(records):
    """the offset after the last batch of records (None: no batch)"""
    p, nxt = 0, None
    while records is not None and p + 61 <= len(records):
        base, blen = struct.unpack(">qi", records[p:p + 12])
        (delta,) = struct.unpack(">i", records[p + 23:p + 27])
        if p + 12 + blen > len(records):
            break
        nxt = base + delta + 1
        p += 12 + blen
    return nxt


def fetch_send(c, replica, offset, epoch=0, last_epoch=-1, wait_ms=0):
    part = struct.pack(">iiqiqi", 0, epoch, offset, last_epoch, -1,
                       1 << 20) + T
    body = struct.pack(">iiiibii", replica, wait_ms, 1, 1 << 20, 0, 0, -1)
    body += carray([cstr(TOPIC) + carray([part]) + T])
    body += carray([]) + cstr("") + T
    c.send(1, 12, body)


def fetch_recv(c):
    r = c.recv()
    r.i32()
    top = r.i16()
    r.i32()

    def part_(r):
        v = {"index": r.i32(), "error": r.i16(), "hw": r.i64(),
             "lso": r.i64(), "log_start": r.i64()}
        r.carray(lambda r: (r.i64(), r.i64(), r.tags()))
        r.i32()
        v["records"] = r.cbytes()
        v["next"] = next_offset(v["records"])
        tags = r.tags()
        if 0 in tags:
            d = Reader(tags[0])
            v["diverging"] = (d.i32(), d.i64())
        return v

    def topic(r):
        v = (r.cstr(), r.carray(part_))
        r.tags()
        return v

    topics = r.carray(topic)
    check(top == 0, "fetch: top-level error %d" % top)
    return topics[0][1][0]


def fetch(replica, offset, **kw):
    c = Conn()
    fetch_send(c, replica, offset, **kw)
    return fetch_recv(c)


def epoch_end(replica, epoch, current=-1):
    """OffsetForLeaderEpoch v4: (error, leader epoch, end offset)"""
    c = Conn()
    part = struct.pack(">iii", 0, current, epoch) + T
    c.send(23, 4, struct.pack(">i", replica) +
           carray([cstr(TOPIC) + carray([part]) + T]) + T)
    r = c.recv()
    r.i32()

    def part_(r):
        v = (r.i16(), r.i32(), r.i32(), r.i64())
        r.tags()
        return v

    def topic(r):
        v = (r.cstr(), r.carray(part_))
        r.tags()
        return v

    err, _, e, end = r.carray(topic)[0][1][0]
    return err, e, end


def zk(*args, must=True):
    p = subprocess.run([ZKCLI, ZK] + list(args), capture_output=True,
                       text=True)
    if p.returncode != 0 and not must:
        return None
    if p.returncode != 0:
        fail("zkcli %s: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout


def state():
    return json.loads(zk("get", STATE))


def wait_isr(want, secs):
    t0 = time.time()
    while time.time() - t0 < secs:
        got = zk("get", STATE, must=False)
        s = json.loads(got) if got else None
        if s is not None and s["isr"] == want:
            return s, time.time() - t0
        time.sleep(0.05)
    fail("the ISR in ZooKeeper is not %s after %s s: %s" %
         (want, secs, zk("get", STATE).strip()))


def main():
    # broker 9: a registration like broker 1's, at a port nobody serves
    reg = json.loads(zk("get", CHROOT + "/brokers/ids/1"))
    reg["port"] = 1
    reg["endpoints"] = ["PLAINTEXT://127.0.0.1:1"]
    zk("create", CHROOT + "/brokers/ids/%d" % FAKE, json.dumps(reg))
    admin = AdminClient({"bootstrap.servers": BROKER, "log_level": 0})
    for _ in range(100):
        if FAKE in admin.list_topics(timeout=5).brokers:
            break
        time.sleep(0.1)
    else:
        fail("broker 1 never listed broker %d" % FAKE)
    fs = admin.create_topics([NewTopic(
        TOPIC, num_partitions=1, replica_assignment=[[1, FAKE]],
        config={"min.insync.replicas": "2"})])
    fs[TOPIC].result(15)
    s, _ = wait_isr([1], 10)
    check(s["leader"] == 1 and s["leader_epoch"] == 0, "state %s" % s)
    for _ in range(100):  # the leader's log opens on its own time
        err, _ = produce(1, [b"probe"])
        if err == NONE:
            break
        time.sleep(0.1)
    check(err == NONE, "acks=1 produce: error %d" % err)

    # 1. ISR [1] under min.insync.replicas 2
    err, _ = produce(-1, [b"x"])
    check(err == NOT_ENOUGH, "acks=all with ISR [1]: error %d" % err)
    err, base = produce(1, [b"a", b"b"])
    check(err == NONE and base == 1, "acks=1: error %d base %d" % (err, base))
    f = fetch(-1, 0)
    check(f["error"] == NONE and f["hw"] == 0 and f["next"] is None,
          "a consumer under min ISR: %s" % f)

    # 2. the follower reads past the watermark and joins the ISR
    f = fetch(FAKE, 0)
    check(f["error"] == NONE and f["hw"] == 0 and f["next"] == 3,
          "the follower at 0: %s" % f)
    _, secs = wait_isr([1, FAKE], 10)
    print("# figure: ISR [1] -> [1,%d] in ZooKeeper %.0f ms after the "
          "follower's fetch" % (FAKE, secs * 1000))
    f = fetch(FAKE, 3, last_epoch=0)
    check(f["error"] == NONE and f["next"] is None, "follower at 3: %s" % f)
    f = fetch(FAKE, 3, last_epoch=0)
    check(f["hw"] == 3, "the watermark after the follower's fetch: %s" % f)
    f = fetch(-1, 0)
    check(f["hw"] == 3 and f["next"] == 3, "a consumer at 0: %s" % f)

    # 3. epochs
    f = fetch(FAKE, 3, epoch=5)
    check(f["error"] == UNKNOWN_EPOCH, "epoch 5: %s" % f)
    t0 = time.time()
    f = fetch(FAKE, 10, last_epoch=0, wait_ms=5000)
    check(f["error"] == NONE and f.get("diverging") == (0, 3) and
          f["next"] is None and time.time() - t0 < 2, "diverging: %s" % f)
    f = fetch(FAKE, 3, last_epoch=7)
    check(f["error"] == OOR, "last fetched epoch 7: %s" % f)
    f = fetch(5, 0)
    check(f["error"] == NOT_LEADER, "broker 5 (no replica): %s" % f)
    got = epoch_end(FAKE, 0, current=0)
    check(got == (NONE, 0, 3), "OffsetForLeaderEpoch from 9: %s" % (got,))
    got = epoch_end(FAKE, 0, current=4)
    check(got[0] == UNKNOWN_EPOCH, "OffsetForLeaderEpoch, epoch 4: %s" %
          (got,))

    # 4. acks=all waits for the follower; so does a consumer at the HW
    cons = Conn()
    fetch_send(cons, -1, 3, wait_ms=10000)
    p = Conn()
    t0 = time.time()
    produce_send(p, -1, [b"c"])
    check(not p.ready(0.5), "acks=all answered before the follower fetched")
    check(not cons.ready(0.01), "a consumer woken below the watermark")
    f = fetch(FAKE, 3, last_epoch=0)
    check(f["next"] == 4 and f["hw"] == 3, "the follower at 3: %s" % f)
    check(not p.ready(0.2), "acks=all answered before the follower passed it")
    t_last = time.time()
    f = fetch(FAKE, 4, last_epoch=0)
    check(p.ready(5), "acks=all not answered after the follower's fetch")
    err, base = produce_recv(p)
    check(err == NONE and base == 3, "acks=all: error %d base %d" % (err, base))
    print("# figure: acks=all answered %.0f ms after the append (the "
          "follower fetched after 500+200 ms)" % ((time.time() - t0) * 1000))
    check(cons.ready(5), "the long-polling consumer not woken")
    f = fetch_recv(cons)
    check(f["next"] == 4 and f["hw"] == 4, "the woken consumer: %s" % f)

    # 5. the follower stops: out of the ISR after the lag time
    p = Conn()
    t0 = time.time()
    produce_send(p, -1, [b"d"], timeout_ms=3 * LAG_MS)
    s, secs = wait_isr([1], 3 * LAG_MS / 1000 + 5)
    check(s["leader_epoch"] == 0, "leader epoch changed: %s" % s)
    print("# figure: ISR [1,%d] -> [1] %.0f ms after the last fetch "
          "(replica.lag.time.max.ms %d)" %
          (FAKE, (time.time() - t_last) * 1000, LAG_MS))
    check(time.time() - t_last >= LAG_MS / 1000, "shrunk before the lag time")
    check(p.ready(3 * LAG_MS / 1000 + 5), "the waiting acks=all not answered")
    err, base = produce_recv(p)
    ms = (time.time() - t0) * 1000
    check(err == TIMED_OUT and base == 4 and ms >= 3 * LAG_MS - 50,
          "acks=all as the ISR fell: error %d base %d after %.0f ms" %
          (err, base, ms))
    err, _ = produce(-1, [b"e"])
    check(err == NOT_ENOUGH, "acks=all with ISR [1] again: error %d" % err)
    err, base = produce(1, [b"f"])
    check(err == NONE and base == 5, "acks=1: %d %d" % (err, base))
    f = fetch(-1, 4)
    check(f["error"] == NONE and f["hw"] == 4 and f["next"] is None,
          "a consumer at the watermark: %s" % f)
    f = fetch(-1, 6)
    check(f["error"] == NONE and f["next"] is None, "at the log end: %s" % f)
    f = fetch(-1, 7)
    check(f["error"] == OOR, "past the log end: %s" % f)

    # 6. back in; the controller's write; fenced; the next change on the
    # version read again
    f = fetch(FAKE, 4, last_epoch=0)
    check(f["next"] == 6 and f["hw"] == 4, "the follower back: %s" % f)
    wait_isr([1, FAKE], 10)
    f = fetch(FAKE, 6, last_epoch=0)
    f = fetch(FAKE, 6, last_epoch=0)
    check(f["hw"] == 6, "the watermark once back in the ISR: %s" % f)
    s = state()
    s["leader_epoch"] = 1
    zk("set", STATE, json.dumps(s, separators=(",", ":")))
    for _ in range(100):
        f = fetch(FAKE, 6, epoch=0, last_epoch=0)
        if f["error"] == FENCED:
            break
        time.sleep(0.05)
    check(f["error"] == FENCED, "epoch 0 after the bump: %s" % f)
    f = fetch(FAKE, 6, epoch=1, last_epoch=0)
    check(f["error"] == NONE and f["hw"] == 6, "epoch 1: %s" % f)
    err, base = produce(1, [b"g"])  # the follower falls behind it
    check(err == NONE and base == 6, "acks=1: %d %d" % (err, base))
    s, _ = wait_isr([1], 3 * LAG_MS / 1000 + 5)
    check(s["leader_epoch"] == 1, "leader epoch not kept: %s" % s)
    print("OK")


main()
