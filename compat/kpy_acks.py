#!/usr/bin/python3
"""acks against a broker started with min.insync.replicas=2 (GR_BOOTSTRAP):
acks=all is taken, as Kafka 4's leader takes the smaller of
min.insync.replicas and the partition's replicas (one here:
Partition.effectiveMinIsr); acks=1 succeeds; acks=0 gets no response but
its data is appended; and ListOffsets v7 (flexible, hand-encoded here)
finds the offset of the largest timestamp. Uses kafka-python's protocol
classes for the rest. Exit 0 or 1."""
import io
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

HOST, PORT = os.environ["GR_BOOTSTRAP"].rsplit(":", 1)
TOPIC = "kpy-acks-%d" % os.getpid()


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


s = socket.create_connection((HOST, int(PORT)), timeout=10)
corr = 0


def read_exact(n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            fail("connection closed")
        buf += chunk
    return buf


def send_raw(frame, expect_response=True):
    s.sendall(struct.pack(">i", len(frame)) + frame)
    if not expect_response:
        return None
    size = struct.unpack(">i", read_exact(4))[0]
    return read_exact(size)


def send(req):
    global corr
    corr += 1
    hdr = RequestHeader(req, correlation_id=corr, client_id="kpy-acks")
    data = send_raw(hdr.encode() + req.encode(),
                    getattr(req, "required_acks", 1) != 0)
    if data is None:
        return None
    if struct.unpack(">i", data[:4])[0] != corr:
        fail("correlation id mismatch")
    return req.RESPONSE_TYPE.decode(io.BytesIO(data[4:]))


def batch(values, ts):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0,
                                  is_transactional=False, producer_id=-1,
                                  producer_epoch=-1, base_sequence=-1,
                                  batch_size=1 << 20)
    for i, v in enumerate(values):
        b.append(i, timestamp=ts[i], key=None, value=v, headers=[])
    return bytes(b.build())


def produce(acks, values, ts):
    r = send(ProduceRequest[7](transactional_id=None, required_acks=acks,
                               timeout=5000,
                               topics=[(TOPIC, [(0, batch(values, ts))])]))
    return None if r is None else r.topics[0][1][0]


def high_watermark():
    r = send(FetchRequest[4](-1, 0, 1, 1 << 20, 0,
                             [(TOPIC, [(0, 0, 1 << 20)])]))
    return r.topics[0][1][0][2]


def uvarint(n):
    out = b""
    while n >= 0x80:
        out += bytes([(n & 0x7F) | 0x80])
        n >>= 7
    return out + bytes([n])


def list_offsets_v7(timestamp):
    """ListOffsets v7: header v2, compact arrays and strings, tags."""
    global corr
    corr += 1
    name = TOPIC.encode()
    hdr = struct.pack(">hhih", 2, 7, corr, 8) + b"kpy-acks" + b"\x00"
    body = struct.pack(">ib", -1, 0)                       # replica, isolation
    body += uvarint(2) + uvarint(len(name) + 1) + name     # 1 topic
    body += uvarint(2) + struct.pack(">iiq", 0, -1, timestamp) + b"\x00"
    body += b"\x00" + b"\x00"                              # topic, request tags
    data = send_raw(hdr + body)
    p = 4 + 1            # correlation id, header tags
    p += 4               # throttle
    p += 1               # topics count (1 + 1)
    n = data[p] - 1
    p += 1 + n           # name
    p += 1               # partitions count
    part, err, ts, off, epoch = struct.unpack(">ihqqi", data[p:p + 26])
    return err, ts, off


send(MetadataRequest[1](topics=[TOPIC]))
now = int(time.time() * 1000)

r = produce(-1, [b"a"], [now - 1000])
if r[1] != 0 or r[2] != 0:
    fail("acks=all with min.insync.replicas=2 on one replica: %r, want "
         "error 0 at offset 0" % (r,))
if high_watermark() != 1:
    fail("the acks=all batch is not in the log")
r = produce(1, [b"b", b"c"], [now, now + 5000])
if r[1] != 0 or r[2] != 1:
    fail("acks=1: %r" % (r,))
if produce(0, [b"d"], [now + 1]) is not None:
    fail("acks=0 got a response")
# the next request on the connection is answered: acks=0 had no answer
deadline = time.time() + 10
while high_watermark() != 4:
    if time.time() > deadline:
        fail("the acks=0 batch never appeared")
    time.sleep(0.05)
err, ts, off = list_offsets_v7(-3)   # MAX_TIMESTAMP
if err != 0 or ts != now + 5000 or off != 2:
    fail("ListOffsets v7 max timestamp: err %d ts %d offset %d" %
         (err, ts, off))
err, ts, off = list_offsets_v7(now + 2)
if err != 0 or off != 2:
    fail("ListOffsets v7 by timestamp: err %d offset %d" % (err, off))
print("ok")
