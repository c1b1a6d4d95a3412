#!/usr/bin/python3
"""Byte-level data-path checks against a running gregor (GR_BOOTSTRAP), with
kafka-python's protocol classes and record builders as the independent
encoder (Debian python3-kafka 2.0.2): legacy Produce v0-v2 with magic 0/1
message sets (plain and gzip-wrapped) stored as v2 batches and read back by
Fetch v0-v3 (down-converted) and v4+, whole batches within max_bytes;
the per-partition errors Kafka gives
for bad records, bad acks and unknown partitions; ListOffsets v0/v1; fetch
sessions (KIP-227, Fetch v7+) full and incremental. Exit 0 or 1."""

import io
import os
import socket
import struct
import sys
import time

from kafka.protocol.api import RequestHeader
from kafka.protocol.fetch import FetchRequest
from kafka.protocol.metadata import MetadataRequest
from kafka.protocol.offset import OffsetRequest
from kafka.protocol.produce import ProduceRequest
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords

from kafka.protocol.types import String

# kafka-python 2.0.2 declares forgotten_topics_data.topic of Fetch v7-v11 as
# the bare String class, which cannot encode; the wire type is a string.
for _v in range(7, 12):
    _s = FetchRequest[_v].SCHEMA
    _inner = _s.fields[list(_s.names).index("forgotten_topics_data")].array_of
    _inner.fields = (String("utf-8"),) + tuple(_inner.fields[1:])

HOST, PORT = os.environ["GR_BOOTSTRAP"].rsplit(":", 1)
TOPIC = "kpy-raw-%d" % os.getpid()

NONE, OFFSET_OUT_OF_RANGE, CORRUPT_MESSAGE, UNKNOWN_TOPIC = 0, 1, 2, 3
MESSAGE_TOO_LARGE, INVALID_REQUIRED_ACKS = 10, 21
SESSION_NOT_FOUND, INVALID_SESSION_EPOCH, INVALID_RECORD = 70, 71, 87


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


class Conn:
    def __init__(self):
        self.s = socket.create_connection((HOST, int(PORT)), timeout=10)
        self.corr = 0

    def send(self, req):
        self.corr += 1
        hdr = RequestHeader(req, correlation_id=self.corr, client_id="kpy-raw")
        body = hdr.encode() + req.encode()
        self.s.sendall(struct.pack(">i", len(body)) + body)
        size = struct.unpack(">i", self._read(4))[0]
        data = self._read(size)
        corr = struct.unpack(">i", data[:4])[0]
        if corr != self.corr:
            fail("correlation id %d, want %d" % (corr, self.corr))
        return req.RESPONSE_TYPE.decode(io.BytesIO(data[4:]))

    def _read(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                fail("connection closed by the broker")
            buf += chunk
        return buf


def uvarint(n):
    """n as an unsigned varint (the compact lengths of flexible versions)."""
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


class SaslConn:
    """SASL frames built by hand, not by kafka-python: SaslHandshake v1
    and SaslAuthenticate v2 on a listener at host:port (request header v1,
    v2 when flexible). Raises EOFError when the broker closes the
    connection, ValueError on a correlation id not the request's."""

    def __init__(self, host, port, client_id, nodelay=False, timeout=10):
        self.s = socket.create_connection((host, int(port)), timeout=timeout)
        if nodelay:
            self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.client_id = client_id.encode()
        self.corr = 0

    def req(self, key, ver, body, flexible):
        """The answer to one request, after its correlation id."""
        self.corr += 1
        hdr = struct.pack(">hhih", key, ver, self.corr,
                          len(self.client_id)) + self.client_id
        if flexible:
            hdr += b"\x00"
        m = hdr + body
        self.s.sendall(struct.pack(">i", len(m)) + m)
        n = struct.unpack(">i", self.read(4))[0]
        r = self.read(n)
        corr = struct.unpack(">i", r[:4])[0]
        if corr != self.corr:
            raise ValueError("correlation id %d, want %d" % (corr, self.corr))
        return r[4:]

    def read(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError("connection closed by the broker")
            b += c
        return b

    def handshake(self, mech):
        """SaslHandshake v1 of mech: its error code."""
        m = mech.encode()
        r = self.req(17, 1, struct.pack(">h", len(m)) + m, False)
        return struct.unpack(">h", r[:2])[0]

    def authenticate(self, data):
        """SaslAuthenticate v2 of data: (error code, message, auth bytes,
        session lifetime ms)."""
        r = self.req(36, 2, uvarint(len(data) + 1) + data + b"\x00", True)
        p = 1  # the response header's tagged fields
        err = struct.unpack(">h", r[p:p + 2])[0]
        p += 2

        def var(p):
            v = sh = 0
            while True:
                b = r[p]
                p += 1
                v |= (b & 0x7F) << sh
                sh += 7
                if not b & 0x80:
                    return v, p
        n, p = var(p)
        msg = r[p:p + n - 1].decode() if n else None
        p += max(n - 1, 0)
        n, p = var(p)
        ab = r[p:p + n - 1]
        p += n - 1
        return err, msg, ab, struct.unpack(">q", r[p:p + 8])[0]

    def closed(self):
        """Whether the broker closes the connection within 5 s."""
        try:
            self.s.settimeout(5)
            return self.s.recv(1) == b""
        except (ConnectionError, socket.timeout):
            return True


def legacy_set(magic, codec, values, ts=None):
    b = LegacyRecordBatchBuilder(magic=magic, compression_type=codec,
                                 batch_size=1 << 20)
    for i, v in enumerate(values):
        b.append(i, timestamp=ts if magic else None, key=b"k%d" % i, value=v)
    return bytes(b.build())


def v2_batch(values, codec=0):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=codec,
                                  is_transactional=False, producer_id=-1,
                                  producer_epoch=-1, base_sequence=-1,
                                  batch_size=1 << 22)
    now = int(time.time() * 1000)
    for i, v in enumerate(values):
        b.append(i, timestamp=now, key=b"k%d" % i, value=v, headers=[])
    return bytes(b.build())


def produce(c, ver, records, topic=TOPIC, partition=0, acks=1):
    req = ProduceRequest[ver](required_acks=acks, timeout=5000,
                              topics=[(topic, [(partition, records)])]) \
        if ver < 3 else \
        ProduceRequest[ver](transactional_id=None, required_acks=acks,
                            timeout=5000,
                            topics=[(topic, [(partition, records)])])
    resp = c.send(req)
    t, parts = resp.topics[0]
    return parts[0]  # (partition, error, offset, ...)


def fetch(c, ver, offset, max_bytes=1 << 20, **kw):
    if ver < 5:
        part = (0, offset, max_bytes)
    elif ver < 9:
        part = (0, offset, -1, max_bytes)
    else:  # v9 adds current_leader_epoch
        part = (0, -1, offset, -1, max_bytes)
    if ver < 3:
        req = FetchRequest[ver](-1, 100, 1, [(TOPIC, [part])])
    elif ver < 4:
        req = FetchRequest[ver](-1, 100, 1, 1 << 20, [(TOPIC, [part])])
    elif ver < 7:
        req = FetchRequest[ver](-1, 100, 1, 1 << 20, 0, [(TOPIC, [part])])
    else:
        args = [-1, kw.get("wait", 100), 1, 1 << 20, 0, kw.get("sid", 0),
                kw.get("epoch", -1), kw.get("topics", [(TOPIC, [part])]),
                kw.get("forgotten", [])]
        if ver >= 11:
            args.append("")  # rack_id
        req = FetchRequest[ver](*args)
    return c.send(req)


def records_of(resp_partition, ver):
    recs = MemoryRecords(resp_partition[-1])
    out = []
    while True:
        batch = recs.next_batch()
        if batch is None:
            break
        for r in batch:
            out.append((r.offset, r.key, r.value))
    return out


def main():
    c = Conn()
    # create the topic through Metadata auto-creation
    c.send(MetadataRequest[1](topics=[TOPIC]))

    # --- legacy produce: magic 0 (v0, v1) and magic 1 (v2), plain and gzip
    vals = [b"zero", b"one", b"two"]
    expect = []
    p = produce(c, 0, legacy_set(0, 0, vals))
    if p[1] != NONE or p[2] != 0:
        fail("Produce v0 magic 0: %r" % (p,))
    expect += vals
    p = produce(c, 1, legacy_set(0, 1, vals))  # gzip wrapper, magic 0
    if p[1] != NONE or p[2] != 3:
        fail("Produce v1 gzip magic 0: %r" % (p,))
    expect += vals
    p = produce(c, 2, legacy_set(1, 1, vals, ts=1600000000000))
    if p[1] != NONE or p[2] != 6:
        fail("Produce v2 gzip magic 1: %r" % (p,))
    expect += vals
    p = produce(c, 3, v2_batch([b"v2-a", b"v2-b"]))
    if p[1] != NONE or p[2] != 9:
        fail("Produce v3: %r" % (p,))
    expect += [b"v2-a", b"v2-b"]
    # wrapped snappy and lz4 message sets (magic 0 lz4 carries Kafka's
    # "broken" frame header checksum)
    nxt = 11
    for magic, codec, ver in ((1, 2, 2), (1, 3, 2), (0, 3, 1), (0, 2, 0)):
        vs = [b"m%dc%d-%d" % (magic, codec, i) for i in range(3)]
        p = produce(c, ver, legacy_set(magic, codec, vs,
                                       ts=1600000000000 if magic else None))
        if p[1] != NONE or p[2] != nxt:
            fail("Produce v%d magic %d codec %d: %r" % (ver, magic, codec, p))
        expect += vs
        nxt += 3

    # --- read back at every fetch version: v0/v1 magic 0, v2/v3 magic 1,
    # v4+ magic 2; all the same records at the same offsets
    for ver in range(0, 12):
        r = fetch(c, ver, 0)
        part = r.topics[0][1][0]
        if part[1] != NONE:
            fail("Fetch v%d error %d" % (ver, part[1]))
        got = records_of(part, ver)
        if [v for _, _, v in got] != expect:
            fail("Fetch v%d values %r" % (ver, [v for _, _, v in got]))
        if [o for o, _, _ in got] != list(range(len(expect))):
            fail("Fetch v%d offsets %r" % (ver, [o for o, _, _ in got]))
        if ver >= 1 and part[2] != len(expect):
            fail("Fetch v%d high watermark %d" % (ver, part[2]))
    # from the middle of a batch: the whole batch comes back
    part = fetch(c, 4, 4).topics[0][1][0]
    offs = [o for o, _, _ in records_of(part, 4)]
    if offs[0] != 3 or 4 not in offs:
        fail("Fetch at offset 4 returned offsets %r" % offs)
    # a max_bytes that cuts a batch: the whole batches before it only
    # (Kafka sends the cut part too, for the client to drop); below one
    # batch: the first one whole (KIP-74)
    raw = fetch(c, 4, 9).topics[0][1][0][-1]
    sizes, pos = [], 0
    while pos + 12 <= len(raw):
        sizes.append(struct.unpack(">i", raw[pos + 8:pos + 12])[0] + 12)
        pos += sizes[-1]
    if len(sizes) < 3 or pos != len(raw):
        fail("Fetch at offset 9: batches of %r bytes in %d" % (sizes, len(raw)))
    for lim, want in ((sizes[0] + sizes[1] // 2, sizes[0]),
                      (sizes[0] + sizes[1] + 1, sizes[0] + sizes[1]),
                      (10, sizes[0])):
        got = fetch(c, 4, 9, max_bytes=lim).topics[0][1][0][-1]
        if len(got) != want:
            fail("Fetch at offset 9, max_bytes %d: %d bytes, not %d" % (
                lim, len(got), want))

    # --- per-partition errors
    bad = bytearray(v2_batch([b"x"]))
    bad[-1] ^= 0xff  # breaks the CRC-32C
    if produce(c, 3, bytes(bad))[1] != CORRUPT_MESSAGE:
        fail("corrupt batch not refused with CORRUPT_MESSAGE")
    two = v2_batch([b"a"]) + v2_batch([b"b"])
    if produce(c, 3, two)[1] != INVALID_RECORD:
        fail("two batches in Produce v3 not refused with INVALID_RECORD")
    big = v2_batch([b"x" * (1100 * 1000)])
    if produce(c, 3, big)[1] != MESSAGE_TOO_LARGE:
        fail("oversized batch not refused with MESSAGE_TOO_LARGE")
    if produce(c, 3, v2_batch([b"x"]), acks=2)[1] != INVALID_REQUIRED_ACKS:
        fail("acks=2 not refused")
    if produce(c, 3, v2_batch([b"x"]), partition=7)[1] != UNKNOWN_TOPIC:
        fail("unknown partition not refused")
    if produce(c, 3, v2_batch([b"x"]), topic="no-such-kpy")[1] != UNKNOWN_TOPIC:
        fail("unknown topic not refused")
    # nothing of the refused batches was appended
    hw = fetch(c, 4, 0).topics[0][1][0][2]
    if hw != len(expect):
        fail("refused batches changed the log: high watermark %d" % hw)
    if fetch(c, 4, 999).topics[0][1][0][1] != OFFSET_OUT_OF_RANGE:
        fail("fetch beyond the end not OFFSET_OUT_OF_RANGE")

    # --- ListOffsets: v0 list form and v1 single offsets
    r = c.send(OffsetRequest[0](-1, [(TOPIC, [(0, -1, 1)])]))
    if r.topics[0][1][0][2] != [len(expect)]:
        fail("ListOffsets v0 latest %r" % (r.topics[0][1][0],))
    r = c.send(OffsetRequest[1](-1, [(TOPIC, [(0, -2)])]))
    if r.topics[0][1][0][3] != 0:
        fail("ListOffsets v1 earliest %r" % (r.topics[0][1][0],))
    r = c.send(OffsetRequest[1](-1, [(TOPIC, [(0, 1600000000000)])]))
    # the first magic-1 batch carries 1600000000000; earlier records had none
    if r.topics[0][1][0][3] != 6:
        fail("ListOffsets v1 by timestamp %r" % (r.topics[0][1][0],))

    # --- fetch sessions: a full fetch with epoch 0 opens one
    r = fetch(c, 7, 0, epoch=0)
    sid = r.session_id
    if r.error_code != NONE or sid == 0 or len(r.topics) != 1:
        fail("session open: error %d id %d" % (r.error_code, sid))
    # the client moves its position to the end: nothing new to answer
    end = len(expect)
    r = fetch(c, 7, 0, sid=sid, epoch=1, wait=0,
              topics=[(TOPIC, [(0, end, -1, 1 << 20)])])
    if r.error_code != NONE or r.topics:
        fail("incremental without change: %r" % (r.topics,))
    # new data: the partition comes back, at the session's offset
    produce(c, 3, v2_batch([b"more"]))
    r = fetch(c, 7, 0, sid=sid, epoch=2, topics=[], wait=0)
    if len(r.topics) != 1 or r.topics[0][1][0][2] != end + 1 or \
            [v for _, _, v in records_of(r.topics[0][1][0], 7)] != [b"more"]:
        fail("incremental after an append: %r" % (r.topics,))
    # wrong epoch, unknown session
    r = fetch(c, 7, 0, sid=sid, epoch=9, topics=[])
    if r.error_code != INVALID_SESSION_EPOCH:
        fail("wrong epoch: error %d" % r.error_code)
    r = fetch(c, 7, 0, sid=sid ^ 0x5a5a5a, epoch=1, topics=[])
    if r.error_code != SESSION_NOT_FOUND:
        fail("unknown session: error %d" % r.error_code)
    # forgetting the partition empties the session
    r = fetch(c, 7, 0, sid=sid, epoch=3, topics=[], forgotten=[(TOPIC, [0])])
    if r.error_code != NONE or r.topics:
        fail("forgotten partition still answered: %r" % (r.topics,))
    # closing (epoch -1) answers as a sessionless fetch
    r = fetch(c, 7, 0, sid=sid, epoch=-1)
    if r.session_id != 0 or len(r.topics) != 1:
        fail("closing fetch: id %d" % r.session_id)
    print("ok")


if __name__ == "__main__":
    main()
