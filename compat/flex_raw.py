#!/usr/bin/python3
"""Flexible versions against a running gregor (GR_BOOTSTRAP), hand-encoded
from the protocol guide since no client on this machine sends them:
Produce v9-v11, Metadata v12 (topic ids; lookup by id with a null name),
Fetch v12-v17 (topic ids from v13), ListOffsets v6-v10. Records are built
with kafka-python's batch builder. Exit 0 or 1."""

import os
import socket
import struct
import sys
import time

from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "telemetry"))
import raw  # noqa: E402

HOST, PORT = os.environ["GR_BOOTSTRAP"].rsplit(":", 1)
TOPIC = "flex-raw-%d" % os.getpid()


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


# --- encoding

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
    if b is None:
        return b"\x00"
    return uvarint(len(b) + 1) + b


def carray(items):
    if items is None:
        return b"\x00"
    return uvarint(len(items) + 1) + b"".join(items)


TAGS = b"\x00"


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def take(self, n):
        v = self.d[self.p:self.p + n]
        if len(v) != n:
            fail("response truncated")
        self.p += n
        return v

    def i8(self):
        return struct.unpack(">b", self.take(1))[0]

    def i16(self):
        return struct.unpack(">h", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def i64(self):
        return struct.unpack(">q", self.take(8))[0]

    def uv(self):
        shift = v = 0
        while True:
            b = self.take(1)[0]
            v |= (b & 0x7F) << shift
            if not b & 0x80:
                return v
            shift += 7

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
        for _ in range(self.uv()):
            self.uv()
            self.take(self.uv())

    def done(self):
        if self.p != len(self.d):
            fail("%d trailing bytes in a response" % (len(self.d) - self.p))


sock = socket.create_connection((HOST, int(PORT)), timeout=10)
corr = 0


def call(api, ver, body):
    global corr
    corr += 1
    hdr = struct.pack(">hhih", api, ver, corr, 4) + b"flex" + TAGS
    sock.sendall(struct.pack(">i", len(hdr) + len(body)) + hdr + body)
    buf = b""
    while len(buf) < 4:
        buf += sock.recv(4 - len(buf))
    n = struct.unpack(">i", buf)[0]
    data = b""
    while len(data) < n:
        c = sock.recv(n - len(data))
        if not c:
            fail("connection closed by the broker (api %d v%d)" % (api, ver))
        data += c
    r = Reader(data)
    if r.i32() != corr:
        fail("correlation id")
    r.tags()  # response header v1
    return r


def batch(values):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0,
                                  is_transactional=False, producer_id=-1,
                                  producer_epoch=-1, base_sequence=-1,
                                  batch_size=1 << 20)
    now = int(time.time() * 1000)
    for i, v in enumerate(values):
        b.append(i, timestamp=now, key=None, value=v, headers=[])
    return bytes(b.build())


def metadata_v12(by_name=None, by_id=None):
    if by_id is not None:
        t = by_id + cstr(None) + TAGS
    else:
        t = b"\x00" * 16 + cstr(by_name) + TAGS
    body = carray([t]) + b"\x01" + b"\x00" + TAGS  # allow auto, no ops
    r = call(3, 12, body)
    answer = raw.metadata_v12_answer(r)
    r.done()
    return answer


def produce(ver, records):
    part = struct.pack(">i", 0) + cbytes(records) + TAGS
    topic = cstr(TOPIC) + carray([part]) + TAGS
    body = cstr(None) + struct.pack(">hi", -1, 5000) + carray([topic]) + TAGS
    r = call(0, ver, body)

    def presp(r):
        v = {"index": r.i32(), "error": r.i16(), "base": r.i64(),
             "append_time": r.i64(), "log_start": r.i64(),
             "record_errors": r.carray(lambda r: (r.i32(), r.cstr(),
                                                  r.tags())),
             "message": r.cstr()}
        r.tags()
        return v

    def tresp(r):
        v = (r.cstr(), r.carray(presp))
        r.tags()
        return v

    topics = r.carray(tresp)
    r.i32()  # throttle
    r.tags()
    r.done()
    return topics[0][1][0]


def fetch(ver, topic_id, offset, epoch=-1):
    if ver >= 13:
        t = topic_id
    else:
        t = cstr(TOPIC)
    part = struct.pack(">iiqiqi", 0, epoch, offset, -1, -1, 1 << 20) + TAGS
    body = b""
    if ver <= 14:
        body += struct.pack(">i", -1)  # replica id (a tag from v15)
    body += struct.pack(">iiibii", 0, 1, 1 << 20, 0, 0, -1)
    body += carray([t + carray([part]) + TAGS])
    body += carray([])      # forgotten topics
    body += cstr("")        # rack id
    body += TAGS
    r = call(1, ver, body)
    r.i32()
    err = r.i16()
    r.i32()  # session id

    def aborted(r):
        v = (r.i64(), r.i64())
        r.tags()
        return v

    def part_(r):
        v = {"index": r.i32(), "error": r.i16(), "hw": r.i64(),
             "lso": r.i64(), "log_start": r.i64(),
             "aborted": r.carray(aborted), "replica": r.i32(),
             "records": r.cbytes()}
        r.tags()
        return v

    def topic(r):
        name = r.take(16) if ver >= 13 else r.cstr()
        v = (name, r.carray(part_))
        r.tags()
        return v

    topics = r.carray(topic)
    r.tags()
    r.done()
    return err, topics


def list_offsets(ver, ts):
    part = struct.pack(">iiq", 0, -1, ts) + TAGS
    body = struct.pack(">ib", -1, 0) + carray([cstr(TOPIC) + carray([part]) +
                                              TAGS])
    if ver >= 10:
        body += struct.pack(">i", 5000)  # timeout
    body += TAGS
    r = call(2, ver, body)
    r.i32()

    def part_(r):
        v = (r.i32(), r.i16(), r.i64(), r.i64(), r.i32())
        r.tags()
        return v

    def topic(r):
        v = (r.cstr(), r.carray(part_))
        r.tags()
        return v

    topics = r.carray(topic)
    r.tags()
    r.done()
    return topics[0][1][0]


# Metadata v12 creates the topic and gives its id
brokers, cluster, controller, topics = metadata_v12(by_name=TOPIC)
if len(brokers) != 1 or not cluster or controller != brokers[0][0]:
    fail("Metadata v12 brokers %r cluster %r controller %d" %
         (brokers, cluster, controller))
t = topics[0]
if t["error"] != 0 or t["name"] != TOPIC or t["id"] == b"\x00" * 16 or \
        len(t["parts"]) != 1 or t["parts"][0]["leader"] != brokers[0][0]:
    fail("Metadata v12 topic %r" % t)
topic_id = t["id"]
# lookup by id, name null
_, _, _, topics = metadata_v12(by_id=topic_id)
if topics[0]["error"] != 0 or topics[0]["name"] != TOPIC:
    fail("Metadata v12 by id %r" % topics[0])
_, _, _, topics = metadata_v12(by_id=b"\x01" * 16)
if topics[0]["error"] != 100:  # UNKNOWN_TOPIC_ID
    fail("Metadata v12 unknown id: error %d" % topics[0]["error"])

# Produce v9-v11 (flexible)
offset = 0
for ver in (9, 10, 11):
    p = produce(ver, batch([b"p%d-a" % ver, b"p%d-b" % ver]))
    if p["error"] != 0 or p["base"] != offset:
        fail("Produce v%d: %r" % (ver, p))
    offset += 2
bad = bytearray(batch([b"x"]))
bad[-1] ^= 1
p = produce(9, bytes(bad))
# CORRUPT_MESSAGE without a message, as Kafka 4.4 answers it
if p["error"] != 2 or p["message"] is not None:
    fail("Produce v9 corrupt batch: %r" % p)

# Fetch v12-v17: v13+ names the topic by id
for ver in range(12, 18):
    err, topics = fetch(ver, topic_id, 0)
    if err != 0 or len(topics) != 1:
        fail("Fetch v%d: error %d" % (ver, err))
    if ver >= 13 and topics[0][0] != topic_id:
        fail("Fetch v%d topic id" % ver)
    p = topics[0][1][0]
    if p["error"] != 0 or p["hw"] != offset or p["lso"] != offset:
        fail("Fetch v%d partition %r" % (ver, p))
    recs = MemoryRecords(p["records"])
    vals = []
    while True:
        b = recs.next_batch()
        if b is None:
            break
        vals += [r.value for r in b]
    if vals != [b"p9-a", b"p9-b", b"p10-a", b"p10-b", b"p11-a", b"p11-b"]:
        fail("Fetch v%d values %r" % (ver, vals))
err, topics = fetch(13, b"\x02" * 16, 0)
if topics[0][1][0]["error"] != 100:
    fail("Fetch v13 unknown topic id: %r" % (topics,))
err, topics = fetch(12, topic_id, 0, epoch=5)
if topics[0][1][0]["error"] != 75:  # UNKNOWN_LEADER_EPOCH (ahead of ours)
    fail("Fetch with a future leader epoch: %r" % (topics[0][1][0],))

# ListOffsets v6-v10
for ver in range(6, 11):
    p = list_offsets(ver, -1)
    if p[1] != 0 or p[3] != offset:
        fail("ListOffsets v%d latest %r" % (ver, p))
    p = list_offsets(ver, -2)
    if p[1] != 0 or p[3] != 0:
        fail("ListOffsets v%d earliest %r" % (ver, p))
print("ok")
