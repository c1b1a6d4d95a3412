#!/usr/bin/python3
"""Torn and corrupt tails (compat/run.sh s_torn_tails), with kafka-python's
protocol classes as the client:

  torn.py fill N            N batches of 5 records "t<offset>" to torn/0
  torn.py damage DIR SEED   damages DIR (a copy of log.dirs after a SIGKILL)
                            and prints the log end offset the broker must
                            come back with
  torn.py check END         reads torn/0 back: exactly t0..t<END-1>, in
                            order, then takes one more batch at END

Damage, chosen by SEED: the last segment's .log cut at a random point, or
a random span of a random batch's CRC-covered bytes overwritten, or cut
with garbage (zeros or random bytes) appended, as a torn write leaves it;
and/or the .index and .timeindex tails of random segments cut at a random
point or overwritten. The expected end is the base offset of the first
batch the damage touched (batches before it are whole and valid); index
damage loses nothing. Exit 0 or 1."""
import glob
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kpy_raw import Conn, fail, v2_batch, NONE  # noqa: E402

from kafka.protocol.fetch import FetchRequest  # noqa: E402
from kafka.protocol.metadata import MetadataRequest  # noqa: E402
from kafka.protocol.produce import ProduceRequest  # noqa: E402
from kafka.record.default_records import DefaultRecordBatchBuilder  # noqa: E402
from kafka.record.memory_records import MemoryRecords  # noqa: E402

TOPIC = "torn"
PER_BATCH = 5


def batch(first):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0,
                                  is_transactional=False, producer_id=-1,
                                  producer_epoch=-1, base_sequence=-1,
                                  batch_size=1 << 20)
    for i in range(PER_BATCH):
        b.append(i, timestamp=1700000000000 + first + i, key=None,
                 value=b"t%d" % (first + i) + b"." * 60, headers=[])
    return bytes(b.build())


def produce(c, records):
    req = ProduceRequest[7](transactional_id=None, required_acks=-1,
                            timeout=5000, topics=[(TOPIC, [(0, records)])])
    p = c.send(req).topics[0][1][0]
    return p[1], p[2]


def fill(n):
    c = Conn()
    c.send(MetadataRequest[1](topics=[TOPIC]))
    for k in range(n):
        err, off = produce(c, batch(k * PER_BATCH))
        if err != NONE or off != k * PER_BATCH:
            fail("fill: batch %d: error %d offset %d" % (k, err, off))
    print("filled %d records" % (n * PER_BATCH))


def batches(data):
    """(position, size, base offset) of the whole v2 batches of data."""
    out, pos = [], 0
    while pos + 61 <= len(data):
        base, length = struct.unpack(">qi", data[pos:pos + 12])
        if length < 49 or pos + 12 + length > len(data):
            break
        out.append((pos, 12 + length, base))
        pos += 12 + length
    return out


def damage(d, seed):
    rnd = random.Random(seed)
    pdir = os.path.join(d, TOPIC + "-0")
    logs = sorted(glob.glob(os.path.join(pdir, "*.log")))
    last = logs[-1]
    data = open(last, "rb").read()
    bs = batches(data)
    end = bs[-1][2] + PER_BATCH if bs else int(os.path.basename(last)[:20])
    what = []
    kind = rnd.choice(["cut", "overwrite", "torn", "none"])
    if bs and kind != "none":
        if kind == "cut":
            at = rnd.randrange(0, len(data))
        elif kind == "overwrite":
            pos, size, _ = rnd.choice(bs)
            at = pos + 21 + rnd.randrange(0, size - 21)
        else:
            at = rnd.randrange(0, len(data) + 1)
        first_bad = at  # the first byte that differs from what was written
        with open(last, "r+b") as f:
            if kind == "cut":
                f.truncate(at)
            elif kind == "overwrite":
                n = rnd.randrange(1, 9)
                f.seek(at)
                old = data[at:at + n]
                new = bytes(rnd.randrange(256) for _ in old)
                if new == old:
                    new = bytes(b ^ 0xff for b in old)
                f.write(new)
            else:
                f.truncate(at)
                f.seek(at)
                n = rnd.randrange(1, 5000)
                garbage = b"\0" * n if rnd.random() < 0.5 else os.urandom(n)
                f.write(garbage)
                # garbage that happens to repeat the bytes it replaced (a
                # record's last byte is often 0) leaves that batch whole
                tail = data[at:]
                same = 0
                while same < min(len(tail), n) and garbage[same] == tail[same]:
                    same += 1
                first_bad = at + same if same < len(tail) else len(data)
        hit = [b for b in bs if b[0] + b[1] > first_bad]
        if hit:
            end = hit[0][2]
        what.append("%s .log at %d of %d" % (kind, at, len(data)))
    # index tails
    for path in sorted(glob.glob(os.path.join(pdir, "*index"))):
        if rnd.random() < 0.6:
            continue
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            if rnd.random() < 0.5 or size == 0:
                at = rnd.randrange(0, size + 1)
                f.truncate(at)
                what.append("cut %s at %d of %d" % (os.path.basename(path), at, size))
            else:
                at = rnd.randrange(max(0, size - 24), size)
                f.seek(at)
                f.write(os.urandom(rnd.randrange(1, 13)))
                what.append("overwrite %s at %d of %d" % (os.path.basename(path), at, size))
    # a crash: no clean-shutdown marker
    try:
        os.unlink(os.path.join(d, ".kafka_cleanshutdown"))
    except FileNotFoundError:
        pass
    sys.stderr.write("torn: seed %d: %s; expect end %d\n"
                     % (seed, "; ".join(what) or "nothing", end))
    print(end)


def check(end):
    c = Conn()
    got, off = [], 0
    while True:
        req = FetchRequest[4](-1, 0, 1, 1 << 20, 0,
                              [(TOPIC, [(0, off, 1 << 20)])])
        p = c.send(req).topics[0][1][0]
        if p[1] != NONE:
            fail("fetch at %d: error %d" % (off, p[1]))
        if p[2] != end:
            fail("high watermark %d, expected %d" % (p[2], end))
        recs = MemoryRecords(p[-1])
        n = 0
        while True:
            b = recs.next_batch()
            if b is None:
                break
            for r in b:
                if r.offset >= off:
                    got.append((r.offset, r.value))
                    n += 1
        if n == 0:
            break
        off = got[-1][0] + 1
    want = [(o, b"t%d" % o + b"." * 60) for o in range(end)]
    if got != want:
        bad = next(i for i in range(min(len(got), len(want)) + 1)
                   if i >= len(got) or i >= len(want) or got[i] != want[i])
        fail("read %d records, expected %d; first difference at %d: %r"
             % (len(got), end, bad, got[bad:bad + 1]))
    # reads from the middle, through the indexes
    for o in range(0, end, max(1, end // 37)):
        req = FetchRequest[4](-1, 0, 1, 1 << 20, 0, [(TOPIC, [(0, o, 1000)])])
        p = c.send(req).topics[0][1][0]
        first = next(iter(MemoryRecords(p[-1]).next_batch() or []), None)
        if p[1] != NONE or first is None or not (first.offset <= o < first.offset + PER_BATCH):
            fail("fetch at %d: error %d, first offset %r" % (o, p[1], first and first.offset))
    err, off = produce(c, batch(end))
    if err != NONE or off != end:
        fail("append after recovery: error %d offset %d, expected %d" % (err, off, end))
    print("ok: %d records" % end)


if __name__ == "__main__":
    if sys.argv[1] == "fill":
        fill(int(sys.argv[2]))
    elif sys.argv[1] == "damage":
        damage(sys.argv[2], int(sys.argv[3]))
    else:
        check(int(sys.argv[2]))
