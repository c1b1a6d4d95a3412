#!/usr/bin/python3
"""Transactions at the byte level (GR_BOOTSTRAP): frames written here from
the protocol guide (InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn,
EndTxn, WriteTxnMarkers, DescribeProducers, DescribeTransactions,
ListTransactions), batches from kafka-python's record builder, fetches
through kafka-python's FetchRequest v4 (read_committed). No client here
sends DescribeProducers, DescribeTransactions or ListTransactions, so this
is where they are checked against what the other steps did.

  kpy_txn.py basic                  state machine, errors, LSO, markers
  kpy_txn.py prepare FILE           leaves a transaction in PrepareCommit
                                    (broker run with GREGOR_FAULTS=txn.marker)
  kpy_txn.py prepare-check FILE     after a restart: it was completed
  kpy_txn.py ongoing FILE           leaves a transaction Ongoing
  kpy_txn.py ongoing-check FILE     after a restart: it is still there, then
                                    times out and is aborted
  kpy_txn.py offsets                TxnOffsetCommit: pending, aborted,
                                    committed (OffsetFetch require_stable)
  kpy_txn.py offsets-prepare FILE   a transactional offset commit left in
                                    PrepareCommit (txn.marker failing)
  kpy_txn.py offsets-check FILE     after a restart: committed
  kpy_txn.py describe FILE          what another scenario left (JSON
                                    expectations in FILE) is reported
Exit 0 or 1."""
import io
import json
import os
import socket
import struct
import sys
import time

from kafka.protocol.api import RequestHeader
from kafka.protocol.fetch import FetchRequest
from kafka.protocol.metadata import MetadataRequest
from kafka.protocol.produce import ProduceRequest
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords

HOST, PORT = os.environ["GR_BOOTSTRAP"].rsplit(":", 1)
NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
INVALID_REQUEST = 42
INVALID_PRODUCER_EPOCH = 47
INVALID_TXN_STATE = 48
INVALID_PRODUCER_ID_MAPPING = 49
INVALID_TRANSACTION_TIMEOUT = 50
CONCURRENT_TRANSACTIONS = 51
OPERATION_NOT_ATTEMPTED = 55
PRODUCER_FENCED = 90
UNKNOWN_MEMBER_ID = 25
UNSTABLE_OFFSET_COMMIT = 88
TRANSACTIONAL_ID_NOT_FOUND = 105


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


# --- wire: classic and compact (flexible) encodings

def i8(v): return struct.pack(">b", v)
def i16(v): return struct.pack(">h", v)
def i32(v): return struct.pack(">i", v)
def i64(v): return struct.pack(">q", v)


def uvarint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def string(s, flex=False):
    if s is None:
        return uvarint(0) if flex else i16(-1)
    b = s.encode()
    return (uvarint(len(b) + 1) if flex else i16(len(b))) + b


def array(items, enc, flex=False):
    out = uvarint(len(items) + 1) if flex else i32(len(items))
    return out + b"".join(enc(x) for x in items)


class Reader:
    def __init__(self, data, flex=False):
        self.d, self.p, self.flex = data, 0, flex

    def take(self, n):
        v = self.d[self.p:self.p + n]
        self.p += n
        return v

    def i8(self): return struct.unpack(">b", self.take(1))[0]
    def i16(self): return struct.unpack(">h", self.take(2))[0]
    def i32(self): return struct.unpack(">i", self.take(4))[0]
    def i64(self): return struct.unpack(">q", self.take(8))[0]

    def uvarint(self):
        v = shift = 0
        while True:
            b = self.take(1)[0]
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v

    def string(self):
        n = self.uvarint() - 1 if self.flex else self.i16()
        return None if n < 0 else self.take(n).decode()

    def array(self, dec):
        n = self.uvarint() - 1 if self.flex else self.i32()
        return None if n < 0 else [dec(self) for _ in range(n)]

    def tags(self):
        if self.flex:
            for _ in range(self.uvarint()):
                self.uvarint()
                self.take(self.uvarint())

    def done(self):
        check(self.p == len(self.d), "%d trailing bytes" % (len(self.d) - self.p))


class Conn:
    def __init__(self):
        self.s = socket.create_connection((HOST, int(PORT)), timeout=15)
        self.corr = 0

    def read(self, n):
        buf = b""
        while len(buf) < n:
            c = self.s.recv(n - len(buf))
            if not c:
                fail("connection closed by the broker")
            buf += c
        return buf

    def raw(self, api, ver, body, flex=False):
        """Sends a request; returns a Reader over the response body."""
        self.corr += 1
        hdr = struct.pack(">hhi", api, ver, self.corr) + string("kpytxn")
        if flex:
            hdr += uvarint(0)
        self.s.sendall(i32(len(hdr) + len(body)) + hdr + body)
        data = self.read(struct.unpack(">i", self.read(4))[0])
        check(struct.unpack(">i", data[:4])[0] == self.corr, "correlation id")
        r = Reader(data[4:], flex)
        r.tags()  # response header v1 when flexible
        return r

    def send(self, req):
        self.corr += 1
        hdr = RequestHeader(req, correlation_id=self.corr, client_id="kpytxn")
        b = hdr.encode() + req.encode()
        self.s.sendall(i32(len(b)) + b)
        data = self.read(struct.unpack(">i", self.read(4))[0])
        return req.RESPONSE_TYPE.decode(io.BytesIO(data[4:]))


# --- the APIs

def init_pid(c, txn_id, timeout_ms=60000, ver=1, pid=-1, epoch=-1):
    flex = ver >= 2
    body = string(txn_id, flex) + i32(timeout_ms)
    if ver >= 3:
        body += i64(pid) + i16(epoch)
    if flex:
        body += uvarint(0)
    r = c.raw(22, ver, body, flex)
    r.i32()
    err, pid, epoch = r.i16(), r.i64(), r.i16()
    r.tags()
    r.done()
    return err, pid, epoch


def add_partitions(c, txn_id, pid, epoch, parts, ver=1):
    """parts: {topic: [partition...]}; returns {(topic, p): error}."""
    flex = ver >= 3
    topics = array(sorted(parts.items()), lambda tp: string(tp[0], flex) +
                   array(tp[1], i32, flex) + (uvarint(0) if flex else b""),
                   flex)
    body = string(txn_id, flex) + i64(pid) + i16(epoch) + topics
    if flex:
        body += uvarint(0)
    r = c.raw(24, ver, body, flex)
    r.i32()
    out = {}

    def part(rd):
        p, e = rd.i32(), rd.i16()
        rd.tags()
        return p, e

    def topic(rd):
        name = rd.string()
        for p, e in rd.array(part):
            out[(name, p)] = e
        rd.tags()

    r.array(topic)
    r.tags()
    r.done()
    return out


def add_partitions_v4(c, txns):
    """txns: [(txn_id, pid, epoch, verify_only, {topic: [p]})]; returns
    (top error, {txn_id: {(topic, p): error}})."""
    def txn(t):
        tid, pid, epoch, verify, parts = t
        return (string(tid, True) + i64(pid) + i16(epoch) +
                i8(1 if verify else 0) +
                array(sorted(parts.items()), lambda tp: string(tp[0], True) +
                      array(tp[1], i32, True) + uvarint(0), True) + uvarint(0))
    r = c.raw(24, 4, array(txns, txn, True) + uvarint(0), True)
    r.i32()
    top = r.i16()
    out = {}

    def part(rd):
        p, e = rd.i32(), rd.i16()
        rd.tags()
        return p, e

    def result(rd):
        tid = rd.string()
        res = out.setdefault(tid, {})

        def topic(rd2):
            name = rd2.string()
            for p, e in rd2.array(part):
                res[(name, p)] = e
            rd2.tags()
        rd.array(topic)
        rd.tags()
    r.array(result)
    r.tags()
    r.done()
    return top, out


def add_offsets(c, txn_id, pid, epoch, group, ver=1):
    flex = ver >= 3
    body = string(txn_id, flex) + i64(pid) + i16(epoch) + string(group, flex)
    if flex:
        body += uvarint(0)
    r = c.raw(25, ver, body, flex)
    r.i32()
    err = r.i16()
    r.tags()
    r.done()
    return err


def end_txn(c, txn_id, pid, epoch, commit, ver=1):
    flex = ver >= 3
    body = string(txn_id, flex) + i64(pid) + i16(epoch) + i8(1 if commit else 0)
    if flex:
        body += uvarint(0)
    r = c.raw(26, ver, body, flex)
    r.i32()
    err = r.i16()
    r.tags()
    r.done()
    return err


def write_markers(c, pid, epoch, commit, parts, coordinator_epoch=0):
    """WriteTxnMarkers v1; returns {(topic, p): error}."""
    m = (i64(pid) + i16(epoch) + i8(1 if commit else 0) +
         array(sorted(parts.items()), lambda tp: string(tp[0], True) +
               array(tp[1], i32, True) + uvarint(0), True) +
         i32(coordinator_epoch) + uvarint(0))
    r = c.raw(27, 1, array([m], lambda x: x, True) + uvarint(0), True)
    out = {}

    def part(rd):
        p, e = rd.i32(), rd.i16()
        rd.tags()
        return p, e

    def topic(rd):
        name = rd.string()
        for p, e in rd.array(part):
            out[(name, p)] = e
        rd.tags()

    def marker(rd):
        rd.i64()
        rd.array(topic)
        rd.tags()
    r.array(marker)
    r.tags()
    r.done()
    return out


def describe_producers(c, topic, partitions):
    body = array([topic], lambda t: string(t, True) +
                 array(partitions, i32, True) + uvarint(0), True) + uvarint(0)
    r = c.raw(61, 0, body, True)
    r.i32()
    out = {}

    def producer(rd):
        v = dict(producer_id=rd.i64(), producer_epoch=rd.i32(),
                 last_sequence=rd.i32(), last_timestamp=rd.i64(),
                 coordinator_epoch=rd.i32(),
                 current_txn_start_offset=rd.i64())
        rd.tags()
        return v

    def part(rd):
        p, e, msg = rd.i32(), rd.i16(), rd.string()
        prods = rd.array(producer)
        rd.tags()
        out[p] = (e, msg, prods)

    def topic_(rd):
        rd.string()
        rd.array(part)
        rd.tags()
    r.array(topic_)
    r.tags()
    r.done()
    return out


def describe_txns(c, ids):
    r = c.raw(65, 0, array(ids, lambda s: string(s, True), True) + uvarint(0),
              True)
    r.i32()
    out = {}

    def topic(rd):
        name = rd.string()
        ps = rd.array(lambda x: x.i32())
        rd.tags()
        return name, ps

    def state(rd):
        v = dict(error=rd.i16(), id=rd.string(), state=rd.string(),
                 timeout_ms=rd.i32(), start_ms=rd.i64(), producer_id=rd.i64(),
                 producer_epoch=rd.i16())
        v["topics"] = {n: sorted(ps) for n, ps in rd.array(topic)}
        rd.tags()
        out[v["id"]] = v
    r.array(state)
    r.tags()
    r.done()
    return out


def list_txns(c, states=(), pids=(), duration=None, ver=0):
    body = (array(list(states), lambda s: string(s, True), True) +
            array(list(pids), i64, True))
    if ver >= 1:
        body += i64(-1 if duration is None else duration)
    r = c.raw(66, ver, body + uvarint(0), True)
    r.i32()
    err = r.i16()
    unknown = r.array(lambda x: x.string())

    def state(rd):
        v = (rd.string(), rd.i64(), rd.string())
        rd.tags()
        return v
    states_ = r.array(state)
    r.tags()
    r.done()
    return err, unknown, {s[0]: (s[1], s[2]) for s in states_}


def txn_offset_commit(c, txn_id, group, pid, epoch, offsets, ver=0,
                      generation=-1, member=""):
    """offsets: {(topic, p): offset}; returns {(topic, p): error}."""
    flex = ver >= 3
    by_topic = {}
    for (t, p), o in sorted(offsets.items()):
        by_topic.setdefault(t, []).append((p, o))

    def part(po):
        b = i32(po[0]) + i64(po[1])
        if ver >= 2:
            b += i32(-1)
        b += string("", flex)
        return b + (uvarint(0) if flex else b"")
    body = (string(txn_id, flex) + string(group, flex) + i64(pid) + i16(epoch))
    if ver >= 3:
        body += i32(generation) + string(member, flex) + string(None, flex)
    body += array(sorted(by_topic.items()), lambda tp: string(tp[0], flex) +
                  array(tp[1], part, flex) + (uvarint(0) if flex else b""),
                  flex)
    if flex:
        body += uvarint(0)
    r = c.raw(28, ver, body, flex)
    r.i32()
    out = {}

    def rpart(rd):
        p, e = rd.i32(), rd.i16()
        rd.tags()
        return p, e

    def rtopic(rd):
        name = rd.string()
        for p, e in rd.array(rpart):
            out[(name, p)] = e
        rd.tags()
    r.array(rtopic)
    r.tags()
    r.done()
    return out


def offset_fetch(c, group, topic, partitions, require_stable):
    """OffsetFetch v7: {p: (offset, error)}, top-level error."""
    body = (string(group, True) +
            array([topic], lambda t: string(t, True) +
                  array(partitions, i32, True) + uvarint(0), True) +
            i8(1 if require_stable else 0) + uvarint(0))
    r = c.raw(9, 7, body, True)
    r.i32()
    out = {}

    def part(rd):
        p, off = rd.i32(), rd.i64()
        rd.i32()
        rd.string()
        e = rd.i16()
        rd.tags()
        out[p] = (off, e)

    def topic_(rd):
        rd.string()
        rd.array(part)
        rd.tags()
    r.array(topic_)
    err = r.i16()
    r.tags()
    r.done()
    return out, err


def batch(pid, epoch, seq, values, txn=True):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0,
                                  is_transactional=txn, producer_id=pid,
                                  producer_epoch=epoch, base_sequence=seq,
                                  batch_size=1 << 20)
    now = int(time.time() * 1000)
    for i, v in enumerate(values):
        b.append(i, timestamp=now, key=None, value=v, headers=[])
    return bytes(b.build())


def produce(c, topic, part, records, txn_id=None):
    r = c.send(ProduceRequest[7](transactional_id=txn_id, required_acks=-1,
                                 timeout=5000,
                                 topics=[(topic, [(part, records)])]))
    p = r.topics[0][1][0]
    return p[1], p[2]


def fetch(c, topic, part=0, offset=0, committed=True):
    """(error, hw, lso, aborted [(pid, first)], data batches [(pid, control,
    [values])])"""
    r = c.send(FetchRequest[4](-1, 0, 1, 1 << 20, 1 if committed else 0,
                               [(topic, [(part, offset, 1 << 20)])]))
    p = r.topics[0][1][0]
    err, hw, lso, aborted, data = p[1], p[2], p[3], p[4], p[5]
    batches = []
    mr = MemoryRecords(data)
    while True:
        b = mr.next_batch()
        if b is None:
            break
        # producerId: header bytes 43..51 (kafka-python 2.0.2 has no getter)
        pid = struct.unpack(">q", bytes(b._buffer[43:51]))[0]
        batches.append((pid, b.is_control_batch, b.base_offset,
                        [rec.value for rec in b]))
    return err, hw, lso, sorted(aborted or []), batches


def visible(c, topic, part=0):
    """Values a read_committed consumer returns (aborted data dropped)."""
    err, hw, lso, aborted, batches = fetch(c, topic, part)
    check(err == 0, "fetch error %d" % err)
    ab = {}
    for pid, first in aborted:
        ab.setdefault(pid, []).append(first)
    out = []
    for pid, control, base, values in batches:
        if control:
            if pid in ab and ab[pid] and ab[pid][0] <= base:
                ab[pid].pop(0)
            continue
        if pid in ab and ab[pid] and ab[pid][0] <= base:
            continue
        out += values
    return out


def metadata(c, topic):
    c.send(MetadataRequest[1](topics=[topic]))


# --- scenarios

def basic():
    c = Conn()
    topic = "kpy-txn-%d" % os.getpid()
    metadata(c, topic)
    tid = "kpy-txn-basic-%d" % os.getpid()

    # InitProducerId: epoch 0, then 1 for the same id (the older is fenced)
    err, pid, e0 = init_pid(c, tid)
    check(err == NONE and pid >= 0 and e0 == 0, "init: %d %d %d" % (err, pid, e0))
    err, pid2, e1 = init_pid(c, tid)
    check(err == NONE and pid2 == pid and e1 == 1, "re-init: %d %d" % (pid2, e1))
    check(init_pid(c, tid, timeout_ms=900001)[0] == INVALID_TRANSACTION_TIMEOUT,
          "timeout above transaction.max.timeout.ms accepted")
    check(init_pid(c, tid, timeout_ms=0)[0] == INVALID_TRANSACTION_TIMEOUT,
          "timeout 0 accepted")
    check(init_pid(c, "", ver=2)[0] == INVALID_REQUEST, "empty id accepted")

    # EndTxn with no transaction: INVALID_TXN_STATE; wrong ids
    check(end_txn(c, tid, pid, 1, True) == INVALID_TXN_STATE, "end in Empty")
    check(end_txn(c, tid, pid + 1, 1, True) == INVALID_PRODUCER_ID_MAPPING,
          "end with another producer id")
    check(end_txn(c, tid, pid, 0, True) == INVALID_PRODUCER_EPOCH,
          "end with an old epoch (v1: INVALID_PRODUCER_EPOCH)")
    check(end_txn(c, tid, pid, 0, True, ver=3) == PRODUCER_FENCED,
          "end with an old epoch (v3: PRODUCER_FENCED)")
    check(end_txn(c, "kpy-no-such-id", 5, 0, True) ==
          INVALID_PRODUCER_ID_MAPPING, "end for an unknown id")

    # AddPartitions: an unknown partition fails the request
    res = add_partitions(c, tid, pid, 1, {topic: [0], "kpy-no-topic": [0]})
    check(res == {(topic, 0): OPERATION_NOT_ATTEMPTED,
                  ("kpy-no-topic", 0): UNKNOWN_TOPIC_OR_PARTITION},
          "unknown partition: %r" % res)
    check(add_partitions(c, tid, pid, 0, {topic: [0]}) ==
          {(topic, 0): INVALID_PRODUCER_EPOCH}, "old epoch added")
    check(add_partitions(c, tid, pid, 0, {topic: [0]}, ver=3) ==
          {(topic, 0): PRODUCER_FENCED}, "old epoch added (v3)")

    # a committed transaction: invisible until the marker, then visible
    check(add_partitions(c, tid, pid, 1, {topic: [0]}) == {(topic, 0): NONE},
          "add partitions")
    d = describe_txns(c, [tid])[tid]
    check(d["state"] == "Ongoing" and d["topics"] == {topic: [0]} and
          d["producer_id"] == pid and d["producer_epoch"] == 1 and
          d["start_ms"] > 0 and d["timeout_ms"] == 60000,
          "describe Ongoing: %r" % d)
    check(produce(c, topic, 0, batch(pid, 1, 0, [b"c1", b"c2"]), tid) ==
          (0, 0), "transactional produce")
    err, hw, lso, aborted, batches = fetch(c, topic)
    check(hw == 2 and lso == 0 and batches == [], "LSO while open: hw %d lso %d"
          % (hw, lso))
    err, hw, lso2, aborted, batches = fetch(c, topic, committed=False)
    check(len(batches) == 1 and lso2 == 0, "read_uncommitted sees the data")
    dp = describe_producers(c, topic, [0])[0]
    check(dp[0] == 0 and len(dp[2]) == 1 and
          dp[2][0]["producer_id"] == pid and dp[2][0]["producer_epoch"] == 1 and
          dp[2][0]["current_txn_start_offset"] == 0 and
          dp[2][0]["last_sequence"] == 1, "describe producers: %r" % (dp,))
    # InitProducerId while a transaction is open: fenced and aborted
    # later; first: the open transaction shows in ListTransactions
    err, unknown, lst = list_txns(c, states=["Ongoing", "Bogus"])
    check(err == 0 and unknown == ["Bogus"] and lst.get(tid) == (pid, "Ongoing"),
          "list Ongoing: %r %r" % (unknown, lst))
    check(end_txn(c, tid, pid, 1, True) == NONE, "commit")
    check(end_txn(c, tid, pid, 1, True) == NONE, "commit retried")
    check(end_txn(c, tid, pid, 1, False) == INVALID_TXN_STATE,
          "abort after commit")
    err, hw, lso, aborted, batches = fetch(c, topic)
    check(hw == 3 and lso == 3 and aborted == [], "after commit: hw %d lso %d"
          % (hw, lso))
    check(batches[-1][1] and batches[-1][2] == 2, "COMMIT marker at offset 2")
    check(visible(c, topic) == [b"c1", b"c2"], "committed data")
    d = describe_txns(c, [tid])[tid]
    check(d["state"] == "CompleteCommit" and d["topics"] == {},
          "describe CompleteCommit: %r" % d)
    dp = describe_producers(c, topic, [0])[0]
    check(dp[2][0]["current_txn_start_offset"] == -1 and
          dp[2][0]["coordinator_epoch"] >= 0, "producer after commit")

    # an aborted transaction: never visible, listed in aborted_transactions
    check(add_partitions(c, tid, pid, 1, {topic: [0]}) == {(topic, 0): NONE},
          "add again")
    check(produce(c, topic, 0, batch(pid, 1, 2, [b"a1"]), tid) == (0, 3),
          "produce to abort")
    check(end_txn(c, tid, pid, 1, False) == NONE, "abort")
    err, hw, lso, aborted, batches = fetch(c, topic)
    check(lso == 5 and aborted == [(pid, 3)], "after abort: lso %d aborted %r"
          % (lso, aborted))
    check(visible(c, topic) == [b"c1", b"c2"], "aborted data hidden: %r"
          % visible(c, topic))
    # a fetch after the aborted range gets no aborted transaction
    check(fetch(c, topic, offset=5)[3] == [], "aborted list past the marker")

    # v4 batched form: add and verify
    top, res = add_partitions_v4(c, [(tid, pid, 1, True, {topic: [0]})])
    check(top == 0 and res[tid][(topic, 0)] == INVALID_TXN_STATE,
          "verify of a partition not in the transaction (v4): %r" % res)
    top, res = add_partitions_v4(c, [(tid, pid, 1, False, {topic: [0]})])
    check(res[tid][(topic, 0)] == NONE, "v4 add: %r" % res)
    top, res = add_partitions_v4(c, [(tid, pid, 1, True, {topic: [0]}),
                                     (tid + "-x", 1, 0, True, {topic: [0]})])
    check(res[tid][(topic, 0)] == NONE and
          res[tid + "-x"][(topic, 0)] == INVALID_PRODUCER_ID_MAPPING,
          "v4 verify: %r" % res)

    # InitProducerId during the open transaction: fence (epoch 2), abort,
    # CONCURRENT_TRANSACTIONS; the retry gets epoch 3
    check(produce(c, topic, 0, batch(pid, 1, 3, [b"z"]), tid)[0] == 0,
          "produce before the fence")
    err, _, _ = init_pid(c, tid)
    check(err == CONCURRENT_TRANSACTIONS, "init during a transaction: %d" % err)
    d = describe_txns(c, [tid])[tid]
    check(d["state"] == "CompleteAbort" and d["producer_epoch"] == 2,
          "fenced abort: %r" % d)
    err, pid3, e3 = init_pid(c, tid)
    check(err == NONE and pid3 == pid and e3 == 3, "init after the fence: %d %d"
          % (err, e3))
    err, _ = produce(c, topic, 0, batch(pid, 1, 4, [b"zombie"]), tid)
    check(err == INVALID_PRODUCER_EPOCH, "zombie produce: %d" % err)
    check(end_txn(c, tid, pid, 1, True, ver=2) == PRODUCER_FENCED,
          "zombie commit")
    check(visible(c, topic) == [b"c1", b"c2"], "fenced data hidden")

    # KIP-360: InitProducerId v3 with the current id and epoch bumps it; a
    # retry with the previous epoch gets the same answer; others fenced
    err, p4, e4 = init_pid(c, tid, ver=3, pid=pid, epoch=3)
    check(err == NONE and p4 == pid and e4 == 4, "KIP-360 bump: %d %d" % (err, e4))
    err, p5, e5 = init_pid(c, tid, ver=3, pid=pid, epoch=3)
    check(err == NONE and e5 == 4, "KIP-360 retry: %d %d" % (err, e5))
    check(init_pid(c, tid, ver=3, pid=pid, epoch=1)[0] == INVALID_PRODUCER_EPOCH,
          "KIP-360 old epoch (v3)")
    check(init_pid(c, tid, ver=4, pid=pid + 77, epoch=4)[0] == PRODUCER_FENCED,
          "KIP-360 other id (v4)")
    check(init_pid(c, tid, ver=3, pid=-1, epoch=4)[0] == INVALID_REQUEST,
          "id -1 with an epoch")

    # AddOffsetsToTxn: the group's __consumer_offsets partition joins
    check(add_offsets(c, tid, pid, 4, "kpy-group") == NONE, "add offsets")
    d = describe_txns(c, [tid])[tid]
    check(list(d["topics"]) == ["__consumer_offsets"], "offsets partition: %r" % d)
    check(end_txn(c, tid, pid, 4, True) == NONE, "commit offsets transaction")

    # WriteTxnMarkers by hand: an old epoch is refused
    res = write_markers(c, pid, 1, False, {topic: [0], "kpy-no-topic": [0]})
    check(res == {(topic, 0): INVALID_PRODUCER_EPOCH,
                  ("kpy-no-topic", 0): UNKNOWN_TOPIC_OR_PARTITION},
          "write markers: %r" % res)

    # ListTransactions filters; DescribeTransactions of unknown ids
    err, _, lst = list_txns(c, pids=[pid])
    check(lst == {tid: (pid, "CompleteCommit")}, "list by producer id: %r" % lst)
    err, _, lst = list_txns(c, pids=[pid], duration=3600000, ver=1)
    check(lst == {}, "duration filter: %r" % lst)
    err, _, lst = list_txns(c, states=["Bogus"])
    check(lst == {}, "unknown states only match nothing: %r" % lst)
    d = describe_txns(c, ["kpy-no-such-id", ""])
    check(d["kpy-no-such-id"]["error"] == TRANSACTIONAL_ID_NOT_FOUND and
          d[""]["error"] == INVALID_REQUEST, "describe unknown: %r" % d)
    dp = describe_producers(c, "kpy-no-topic", [0])
    check(dp[0][0] == UNKNOWN_TOPIC_OR_PARTITION, "describe producers unknown")
    dp = describe_producers(c, topic, [7])
    check(dp[7][0] == UNKNOWN_TOPIC_OR_PARTITION, "describe producers part 7")
    print("ok")


def prepare(state_file):
    """With txn.marker failing: the commit is logged, its markers are not."""
    c = Conn()
    topic = "kpy-txn-prep-%d" % os.getpid()
    metadata(c, topic)
    tid = "kpy-txn-prep-%d" % os.getpid()
    err, pid, epoch = init_pid(c, tid)
    check(err == NONE, "init")
    check(add_partitions(c, tid, pid, epoch, {topic: [0]}) == {(topic, 0): NONE},
          "add")
    check(produce(c, topic, 0, batch(pid, epoch, 0, [b"p1", b"p2"]), tid) ==
          (0, 0), "produce")
    check(end_txn(c, tid, pid, epoch, True) == NONE, "commit")
    d = describe_txns(c, [tid])[tid]
    check(d["state"] == "PrepareCommit", "not left in PrepareCommit: %r" % d)
    check(fetch(c, topic)[2] == 0, "LSO moved without a marker")
    check(add_partitions(c, tid, pid, epoch, {topic: [0]}) ==
          {(topic, 0): CONCURRENT_TRANSACTIONS}, "add while completing")
    check(init_pid(c, tid)[0] == CONCURRENT_TRANSACTIONS, "init while completing")
    json.dump({"topic": topic, "tid": tid, "pid": pid, "epoch": epoch},
              open(state_file, "w"))
    print("ok")


def prepare_check(state_file):
    st = json.load(open(state_file))
    c = Conn()
    deadline = time.time() + 10
    while True:
        d = describe_txns(c, [st["tid"]])[st["tid"]]
        if d["state"] == "CompleteCommit" or time.time() > deadline:
            break
        time.sleep(0.2)
    check(d["state"] == "CompleteCommit", "not completed after restart: %r" % d)
    check(visible(c, st["topic"]) == [b"p1", b"p2"], "committed data after restart")
    err, hw, lso, aborted, batches = fetch(c, st["topic"])
    check(lso == hw == 3, "LSO after restart: %d/%d" % (lso, hw))
    print("ok")


def ongoing(state_file):
    c = Conn()
    topic = "kpy-txn-ong-%d" % os.getpid()
    metadata(c, topic)
    tid = "kpy-txn-ong-%d" % os.getpid()
    err, pid, epoch = init_pid(c, tid, timeout_ms=3000)
    check(err == NONE, "init")
    check(add_partitions(c, tid, pid, epoch, {topic: [0]}) == {(topic, 0): NONE},
          "add")
    check(produce(c, topic, 0, batch(pid, epoch, 0, [b"o1"]), tid) == (0, 0),
          "produce")
    json.dump({"topic": topic, "tid": tid, "pid": pid, "epoch": epoch},
              open(state_file, "w"))
    print("ok")


def ongoing_check(state_file):
    st = json.load(open(state_file))
    c = Conn()
    d = describe_txns(c, [st["tid"]])[st["tid"]]
    # loaded as Ongoing (or already aborted if the restart took long)
    check(d["state"] in ("Ongoing", "CompleteAbort"), "after restart: %r" % d)
    check(fetch(c, st["topic"])[2] == 0 or d["state"] == "CompleteAbort",
          "LSO of the open transaction after restart")
    deadline = time.time() + 15
    while d["state"] != "CompleteAbort" and time.time() < deadline:
        time.sleep(0.2)
        d = describe_txns(c, [st["tid"]])[st["tid"]]
    check(d["state"] == "CompleteAbort" and d["producer_epoch"] == st["epoch"] + 1,
          "timed out transaction not aborted with a bumped epoch: %r" % d)
    err, hw, lso, aborted, batches = fetch(c, st["topic"])
    check(lso == hw == 2 and aborted == [(st["pid"], 0)],
          "after the timeout: lso %d hw %d aborted %r" % (lso, hw, aborted))
    check(visible(c, st["topic"]) == [], "aborted data visible")
    # the abandoned producer is fenced
    check(end_txn(c, st["tid"], st["pid"], st["epoch"], True, ver=3) ==
          PRODUCER_FENCED, "abandoned producer not fenced")
    print("ok")


def offsets():
    """Transactional offset commits: pending until the transaction ends,
    visible on commit, dropped on abort (needs the group coordinator)."""
    c = Conn()
    topic = "kpy-txo-%d" % os.getpid()
    group = "kpy-txo-group-%d" % os.getpid()
    metadata(c, topic)
    tid = "kpy-txo-%d" % os.getpid()
    err, pid, epoch = init_pid(c, tid)
    check(err == NONE, "init")
    check(add_offsets(c, tid, pid, epoch, group) == NONE, "add offsets")
    res = txn_offset_commit(c, tid, group, pid, epoch,
                            {(topic, 0): 17, ("kpy-no-topic", 0): 1})
    check(res == {(topic, 0): NONE,
                  ("kpy-no-topic", 0): UNKNOWN_TOPIC_OR_PARTITION},
          "txn offset commit: %r" % res)
    check(offset_fetch(c, group, topic, [0], True)[0][0] ==
          (-1, UNSTABLE_OFFSET_COMMIT), "pending offset: require_stable")
    check(offset_fetch(c, group, topic, [0], False)[0][0] == (-1, NONE),
          "pending offset visible")
    check(end_txn(c, tid, pid, epoch, False) == NONE, "abort")
    check(offset_fetch(c, group, topic, [0], True)[0][0] == (-1, NONE),
          "aborted offset visible")
    # v3 with a member that is not in the group
    check(add_offsets(c, tid, pid, epoch, group, ver=3) == NONE, "add offsets")
    res = txn_offset_commit(c, tid, group, pid, epoch, {(topic, 0): 5}, ver=3,
                            generation=7, member="nobody")
    check(res == {(topic, 0): UNKNOWN_MEMBER_ID}, "unknown member: %r" % res)
    res = txn_offset_commit(c, tid, group, pid, epoch, {(topic, 0): 42}, ver=3)
    check(res == {(topic, 0): NONE}, "txn offset commit v3: %r" % res)
    check(end_txn(c, tid, pid, epoch, True, ver=3) == NONE, "commit")
    check(offset_fetch(c, group, topic, [0], True)[0][0] == (42, NONE),
          "committed offset: %r" % offset_fetch(c, group, topic, [0], True)[0])
    print("ok")


def offsets_prepare(state_file):
    """With txn.marker failing: a transactional offset commit in
    PrepareCommit; after a restart (offsets-check) it is committed."""
    c = Conn()
    topic = "kpy-txop-%d" % os.getpid()
    group = "kpy-txop-group-%d" % os.getpid()
    metadata(c, topic)
    tid = "kpy-txop-%d" % os.getpid()
    err, pid, epoch = init_pid(c, tid)
    check(err == NONE, "init")
    check(add_offsets(c, tid, pid, epoch, group) == NONE, "add offsets")
    check(txn_offset_commit(c, tid, group, pid, epoch, {(topic, 0): 99}) ==
          {(topic, 0): NONE}, "txn offset commit")
    check(end_txn(c, tid, pid, epoch, True) == NONE, "commit")
    check(describe_txns(c, [tid])[tid]["state"] == "PrepareCommit",
          "not left in PrepareCommit")
    check(offset_fetch(c, group, topic, [0], True)[0][0] ==
          (-1, UNSTABLE_OFFSET_COMMIT), "offset stable before the marker")
    json.dump({"topic": topic, "group": group, "tid": tid},
              open(state_file, "w"))
    print("ok")


def offsets_check(state_file):
    st = json.load(open(state_file))
    c = Conn()
    deadline = time.time() + 15
    while True:
        res, err = offset_fetch(c, st["group"], st["topic"], [0], True)
        if err == NONE and res[0] == (99, NONE) or time.time() > deadline:
            break
        time.sleep(0.2)
    check(err == NONE and res[0] == (99, NONE),
          "offset after restart: %r %d" % (res, err))
    check(describe_txns(c, [st["tid"]])[st["tid"]]["state"] == "CompleteCommit",
          "not completed")
    print("ok")


def describe(state_file):
    """FILE: {"txns": {id: state}, "topic": t, "partitions": n,
    "producers_min": k}"""
    exp = json.load(open(state_file))
    c = Conn()
    d = describe_txns(c, list(exp["txns"]))
    for tid, state in exp["txns"].items():
        check(d[tid]["error"] == 0 and d[tid]["state"] == state,
              "%s: %r, want %s" % (tid, d[tid], state))
    err, _, lst = list_txns(c)
    for tid, state in exp["txns"].items():
        check(lst.get(tid, (0, ""))[1] == state, "list %s: %r" % (tid, lst.get(tid)))
    if "topic" in exp:
        dp = describe_producers(c, exp["topic"], list(range(exp["partitions"])))
        n = sum(len(v[2]) for v in dp.values() if v[0] == 0)
        check(n >= exp.get("producers_min", 1), "producers on %s: %r"
              % (exp["topic"], dp))
        for p, v in dp.items():
            for pr in v[2]:
                check(pr["current_txn_start_offset"] == -1,
                      "an open transaction left on %s-%d: %r" % (exp["topic"], p, pr))
    print("ok")


cmd = sys.argv[1] if len(sys.argv) > 1 else "basic"
if cmd == "basic":
    basic()
elif cmd == "prepare":
    prepare(sys.argv[2])
elif cmd == "prepare-check":
    prepare_check(sys.argv[2])
elif cmd == "ongoing":
    ongoing(sys.argv[2])
elif cmd == "ongoing-check":
    ongoing_check(sys.argv[2])
elif cmd == "offsets":
    offsets()
elif cmd == "offsets-prepare":
    offsets_prepare(sys.argv[2])
elif cmd == "offsets-check":
    offsets_check(sys.argv[2])
elif cmd == "describe":
    describe(sys.argv[2])
else:
    fail("unknown command %s" % cmd)
