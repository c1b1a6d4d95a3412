#!/usr/bin/python3
"""OffsetForLeaderEpoch (api key 23) v0-v4 against a running gregor
(GR_BOOTSTRAP), hand-encoded from the protocol guide (librdkafka 2.0.2
does not send it; the Java consumer sends v3/v4 only): the topic GR_TOPIC
holds 3 records written at leader epoch 0 (by kcat), partition 1 none.
Checks each version's answers field by field (and one whole answer byte
for byte), every error path, and the partition's leader-epoch-checkpoint
under GR_DATA_DIR against what Kafka writes. Exit 0 or 1."""

import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "telemetry"))
import raw  # noqa: E402
from raw import uvarint  # noqa: E402

HOST, PORT = os.environ["GR_BOOTSTRAP"].rsplit(":", 1)
TOPIC = os.environ["GR_TOPIC"]
DATA = os.environ["GR_DATA_DIR"]

NONE, UNKNOWN_TOPIC_OR_PARTITION = 0, 3
FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH = 74, 75


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)




def encode(ver, replica_id, topics):
    """topics: [(name, [(partition, current_leader_epoch, leader_epoch)])]"""
    flex = ver >= 4
    out = struct.pack(">i", replica_id) if ver >= 3 else b""
    out += uvarint(len(topics) + 1) if flex else struct.pack(">i", len(topics))
    for name, parts in topics:
        nb = name.encode()
        out += (uvarint(len(nb) + 1) if flex else struct.pack(">h", len(nb))) + nb
        out += uvarint(len(parts) + 1) if flex else struct.pack(">i", len(parts))
        for p, cur, epoch in parts:
            out += struct.pack(">i", p)
            if ver >= 2:
                out += struct.pack(">i", cur)
            out += struct.pack(">i", epoch)
            if flex:
                out += b"\x00"
        if flex:
            out += b"\x00"
    if flex:
        out += b"\x00"
    return out


class Reader(raw.R):
    """telemetry/raw.py's reader, failing on a truncated answer, with the
    non-flexible forms before v4."""

    def __init__(self, data, flex):
        super().__init__(data)
        self.flex = flex

    def take(self, n):
        v = super().take(n)
        if len(v) != n:
            fail("response truncated")
        return v

    def i64(self):
        return struct.unpack(">q", self.take(8))[0]

    def count(self):
        return self.uv() - 1 if self.flex else self.i32()

    def string(self):
        n = self.uv() - 1 if self.flex else self.i16()
        return self.take(n).decode()

    def tags(self):
        if self.flex:
            super().tags()


sock = socket.create_connection((HOST, int(PORT)), timeout=10)
corr = 0


def call_raw(ver, body):
    global corr
    corr += 1
    hdr = struct.pack(">hhih", 23, ver, corr, 3) + b"epr"
    if ver >= 4:
        hdr += b"\x00"  # request header v2: tags
    sock.sendall(struct.pack(">i", len(hdr) + len(body)) + hdr + body)
    buf = b""
    while len(buf) < 4:
        c = sock.recv(4 - len(buf))
        if not c:
            fail("connection closed by the broker (v%d)" % ver)
        buf += c
    n = struct.unpack(">i", buf)[0]
    data = b""
    while len(data) < n:
        c = sock.recv(n - len(data))
        if not c:
            fail("connection closed by the broker (v%d)" % ver)
        data += c
    if struct.unpack(">i", data[:4])[0] != corr:
        fail("correlation id")
    return data[4:]


def call(ver, replica_id, topics):
    data = call_raw(ver, encode(ver, replica_id, topics))
    r = Reader(data, ver >= 4)
    r.tags()  # response header v1 from v4
    throttle = r.i32() if ver >= 2 else 0
    if throttle != 0:
        fail("v%d: throttle %d" % (ver, throttle))
    out = []
    for _ in range(r.count()):
        name = r.string()
        parts = []
        for _ in range(r.count()):
            err = r.i16()
            p = r.i32()
            epoch = r.i32() if ver >= 1 else None
            end = r.i64()
            r.tags()
            parts.append((p, err, epoch, end))
        r.tags()
        out.append((name, parts))
    r.tags()
    if r.p != len(data):
        fail("v%d: %d trailing bytes" % (ver, len(data) - r.p))
    return out


def expect(ver, got, want, what):
    # below v1 there is no leader epoch in the answer
    if ver < 1:
        want = [(n, [(p, e, None, o) for p, e, _, o in ps]) for n, ps in want]
    if got != want:
        fail("v%d %s:\n  got  %r\n  want %r" % (ver, what, got, want))


# 1. every version: the current epoch, below it, above it, UNDEFINED_EPOCH,
# an empty partition, unknown partitions and topics
for ver in range(0, 5):
    for replica in ((-1, 1) if ver >= 3 else (-1,)):
        got = call(ver, replica, [
            (TOPIC, [(0, -1, 0), (0, -1, -1), (0, -1, 7), (1, -1, 0), (9, -1, 0)]),
            ("no-such-topic-epr", [(0, -1, 0)])])
        expect(ver, got, [
            (TOPIC, [(0, NONE, 0, 3),      # the current epoch: the log end
                     (0, NONE, -1, -1),    # UNDEFINED_EPOCH
                     (0, NONE, -1, -1),    # above every epoch
                     (1, NONE, 0, 0),      # empty, epoch 0 from its start
                     (9, UNKNOWN_TOPIC_OR_PARTITION, -1, -1)]),
            ("no-such-topic-epr", [(0, UNKNOWN_TOPIC_OR_PARTITION, -1, -1)])],
            "replica %d" % replica)

# 2. current_leader_epoch (v2+): equal passes, newer is UNKNOWN_LEADER_EPOCH
for ver in range(2, 5):
    got = call(ver, -1, [(TOPIC, [(0, 0, 0), (0, 1, 0), (0, 5, 0)])])
    expect(ver, got, [(TOPIC, [(0, NONE, 0, 3),
                               (0, UNKNOWN_LEADER_EPOCH, -1, -1),
                               (0, UNKNOWN_LEADER_EPOCH, -1, -1)])],
           "current_leader_epoch")

# 3. one whole v4 answer, byte for byte: throttle 0, one topic, one
# partition (error 0, partition 0, leader epoch 0, end offset 3)
raw = call_raw(4, encode(4, -1, [(TOPIC, [(0, 0, 0)])]))
tb = TOPIC.encode()
want = (b"\x00" + struct.pack(">i", 0) + b"\x02" + uvarint(len(tb) + 1) + tb +
        b"\x02" + struct.pack(">hiiq", 0, 0, 0, 3) + b"\x00" + b"\x00" + b"\x00")
if raw != want:
    fail("v4 bytes:\n  got  %s\n  want %s" % (raw.hex(), want.hex()))

# 4. the checkpoint files, as Kafka 4.4 writes them for this log (written
# by a worker: give it a moment)
for p, text in ((0, b"0\n1\n0 0\n"), (1, b"0\n1\n0 0\n")):
    path = os.path.join(DATA, "%s-%d" % (TOPIC, p), "leader-epoch-checkpoint")
    got = None
    for _ in range(100):
        try:
            with open(path, "rb") as f:
                got = f.read()
        except FileNotFoundError:
            pass
        if got == text:
            break
        time.sleep(0.1)
    if got != text:
        fail("%s: %r, want %r" % (path, got, text))
print("epoch_raw: ok")
