#!/usr/bin/python3
"""Idempotence at the byte level (GR_BOOTSTRAP; kafka-python's record
builder makes the batches): InitProducerId gives fresh ids with epoch 0; a
resent batch is answered with its original offset and not appended again;
a sequence gap is OUT_OF_ORDER_SEQUENCE_NUMBER; a new epoch starts at 0 and
fences the old one. With argument `restart-check FILE` it instead checks,
after a broker restart, that the state saved in FILE by a first run still
deduplicates and that new producer ids are higher. Exit 0 or 1."""
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

HOST, PORT = os.environ["GR_BOOTSTRAP"].rsplit(":", 1)
OUT_OF_ORDER, INVALID_EPOCH = 45, 47


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


class Conn:
    def __init__(self):
        self.s = socket.create_connection((HOST, int(PORT)), timeout=10)
        self.corr = 0

    def raw(self, api, ver, body):
        self.corr += 1
        hdr = struct.pack(">hhih", api, ver, self.corr, 4) + b"kpyi"
        self.s.sendall(struct.pack(">i", len(hdr) + len(body)) + hdr + body)
        n = struct.unpack(">i", self.read(4))[0]
        data = self.read(n)
        if struct.unpack(">i", data[:4])[0] != self.corr:
            fail("correlation id")
        return data[4:]

    def send(self, req):
        self.corr += 1
        hdr = RequestHeader(req, correlation_id=self.corr, client_id="kpyi")
        b = hdr.encode() + req.encode()
        self.s.sendall(struct.pack(">i", len(b)) + b)
        n = struct.unpack(">i", self.read(4))[0]
        data = self.read(n)
        return req.RESPONSE_TYPE.decode(io.BytesIO(data[4:]))

    def read(self, n):
        buf = b""
        while len(buf) < n:
            c = self.s.recv(n - len(buf))
            if not c:
                fail("closed by the broker")
            buf += c
        return buf


def init_pid(c):
    # InitProducerId v0: TransactionalId NULLABLE_STRING (null), timeout
    r = c.raw(22, 0, struct.pack(">hi", -1, 60000))
    throttle, err, pid, epoch = struct.unpack(">ihqh", r)
    if err != 0 or pid < 0 or epoch != 0:
        fail("InitProducerId: err %d pid %d epoch %d" % (err, pid, epoch))
    return pid


def batch(pid, epoch, seq, values):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0,
                                  is_transactional=False, producer_id=pid,
                                  producer_epoch=epoch, base_sequence=seq,
                                  batch_size=1 << 20)
    now = int(time.time() * 1000)
    for i, v in enumerate(values):
        b.append(i, timestamp=now, key=None, value=v, headers=[])
    return bytes(b.build())


def produce(c, topic, records):
    r = c.send(ProduceRequest[7](transactional_id=None, required_acks=-1,
                                 timeout=5000, topics=[(topic, [(0, records)])]))
    p = r.topics[0][1][0]
    return p[1], p[2]


def hw(c, topic):
    r = c.send(FetchRequest[4](-1, 0, 1, 1 << 20, 0, [(topic, [(0, 0, 1)])]))
    return r.topics[0][1][0][2]


def first_run(state_file):
    c = Conn()
    topic = "kpy-idem-%d" % os.getpid()
    c.send(MetadataRequest[1](topics=[topic]))
    pid = init_pid(c)
    if init_pid(c) == pid:
        fail("InitProducerId gave the same id twice")
    b0 = batch(pid, 0, 0, [b"a", b"b", b"c"])
    if produce(c, topic, b0) != (0, 0):
        fail("first batch")
    # the same batch again (a retry): its original offset, nothing appended
    if produce(c, topic, b0) != (0, 0) or hw(c, topic) != 3:
        fail("duplicate not detected (high watermark %d)" % hw(c, topic))
    # a gap: 5 instead of 3
    err, _ = produce(c, topic, batch(pid, 0, 5, [b"x"]))
    if err != OUT_OF_ORDER:
        fail("sequence gap: error %d" % err)
    b1 = batch(pid, 0, 3, [b"d", b"e"])
    if produce(c, topic, b1) != (0, 3):
        fail("next batch")
    # one of the last five batches, not only the last one
    if produce(c, topic, b0) != (0, 0):
        fail("older duplicate not detected")
    # a new epoch must start at 0, then fences the old one
    err, _ = produce(c, topic, batch(pid, 1, 7, [b"x"]))
    if err != OUT_OF_ORDER:
        fail("new epoch not starting at 0: error %d" % err)
    b2 = batch(pid, 1, 0, [b"f"])
    if produce(c, topic, b2) != (0, 5):
        fail("new epoch")
    err, _ = produce(c, topic, batch(pid, 0, 5, [b"x"]))
    if err != INVALID_EPOCH:
        fail("old epoch not fenced: error %d" % err)
    if hw(c, topic) != 6:
        fail("high watermark %d, want 6" % hw(c, topic))
    json.dump({"topic": topic, "pid": pid, "last": b2.hex()},
              open(state_file, "w"))
    print("ok")


def restart_check(state_file):
    st = json.load(open(state_file))
    c = Conn()
    # the last batch is still recognised after the restart
    if produce(c, st["topic"], bytes.fromhex(st["last"])) != (0, 5):
        fail("duplicate after restart not detected")
    if hw(c, st["topic"]) != 6:
        fail("high watermark after restart %d" % hw(c, st["topic"]))
    if init_pid(c) <= st["pid"]:
        fail("a producer id was reused after the restart")
    print("ok")


if len(sys.argv) == 3 and sys.argv[1] == "restart-check":
    restart_check(sys.argv[2])
else:
    first_run(sys.argv[1])
