#!/usr/bin/python3
"""Storage faults against a running gregor started with GREGOR_FAULTS (see
compat/run.sh s_storage_faults and src/core/fault.h), byte-level through
kafka-python's protocol classes. Every topic below has one partition:

  flt-ok   no fault
  flt-w    log.write@/flt-w-0:2:3        appends 2-4 fail, nothing written
  flt-s    log.write.short@/flt-s-0:2:1  append 2 is torn (half, then EIO)
  flt-n    log.nospace@/flt-n-0:2:0      disk full from append 2 on
  flt-f    log.fsync@/flt-f-0:1:0        the first fsync fails (the broker
                                         runs with flush.messages=1)

Checks: the failed appends answer KAFKA_STORAGE_ERROR, the others NONE;
only what was acknowledged is in the log, in order, with no torn bytes
(ListOffsets, Fetch, the segment file's size); after a failed fsync the
partition answers KAFKA_STORAGE_ERROR to Produce, Fetch and ListOffsets;
the other partitions keep serving throughout. With argument "after" (a
restart without faults): flt-f is back, with the batch whose fsync failed
(it was written, only not acknowledged), and takes appends. Exit 0 or 1."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kpy_raw import Conn, fail, v2_batch, NONE  # noqa: E402

from kafka.protocol.fetch import FetchRequest  # noqa: E402
from kafka.protocol.metadata import MetadataRequest  # noqa: E402
from kafka.protocol.offset import OffsetRequest  # noqa: E402
from kafka.protocol.produce import ProduceRequest  # noqa: E402
from kafka.record.memory_records import MemoryRecords  # noqa: E402

STORAGE = 56  # KAFKA_STORAGE_ERROR
DATA = os.environ.get("GR_DATA_DIR", "")
TOPICS = ["flt-ok", "flt-w", "flt-s", "flt-n", "flt-f"]


def produce(c, topic, values):
    req = ProduceRequest[7](transactional_id=None, required_acks=-1,
                            timeout=5000,
                            topics=[(topic, [(0, v2_batch(values))])])
    t, parts = c.send(req).topics[0]
    return parts[0][1]


def latest(c, topic):
    r = c.send(OffsetRequest[1](-1, [(topic, [(0, -1)])]))
    p = r.topics[0][1][0]
    return p[1], p[3]


def values(c, topic):
    req = FetchRequest[4](-1, 0, 1, 1 << 22, 0,
                          [(topic, [(0, 0, 1 << 22)])])
    p = c.send(req).topics[0][1][0]
    if p[1] != NONE:
        return p[1], None, None
    recs = MemoryRecords(p[-1])
    out = []
    while True:
        b = recs.next_batch()
        if b is None:
            break
        out += [r.value for r in b]
    return NONE, out, len(p[-1])


def seg_size(topic):
    return os.path.getsize(os.path.join(DATA, topic + "-0",
                                        "00000000000000000000.log"))


def expect(cond, msg):
    if not cond:
        fail(msg)


def during():
    c = Conn()
    c.send(MetadataRequest[1](topics=TOPICS))
    acked = {t: [] for t in TOPICS}
    # what each append of round i answers, per topic
    want = {
        "flt-ok": [NONE] * 6,
        "flt-w": [NONE, STORAGE, STORAGE, STORAGE, NONE, NONE],
        "flt-s": [NONE, STORAGE, NONE, NONE, NONE, NONE],
        "flt-n": [NONE] + [STORAGE] * 5,
        "flt-f": [STORAGE] * 6,
    }
    for i in range(6):
        for t in TOPICS:
            vals = [b"%s-%d-%d" % (t.encode(), i, k) for k in range(3)]
            err = produce(c, t, vals)
            expect(err == want[t][i], "%s round %d: error %d, want %d"
                   % (t, i, err, want[t][i]))
            if err == NONE:
                acked[t] += vals
    for t in TOPICS:
        err, end = latest(c, t)
        verr, got, nbytes = values(c, t)
        if t == "flt-f":
            expect(err == STORAGE and verr == STORAGE,
                   "flt-f after a failed fsync: ListOffsets %d Fetch %d"
                   % (err, verr))
            continue
        expect(err == NONE and end == len(acked[t]),
               "%s: end offset %r, acknowledged %d" % (t, end, len(acked[t])))
        expect(got == acked[t], "%s: read %r, acknowledged %r"
               % (t, got, acked[t]))
        if DATA:
            expect(seg_size(t) == nbytes, "%s: segment holds %d bytes, the "
                   "log %d (torn bytes left?)" % (t, seg_size(t), nbytes))
    print("ok: %s" % {t: len(v) for t, v in acked.items()})


def after():
    c = Conn()
    err, end = latest(c, "flt-f")
    expect(err == NONE and end == 3, "flt-f after restart: %d, end %r"
           % (err, end))
    expect(produce(c, "flt-f", [b"again"]) == NONE, "flt-f refuses appends")
    err, got, _ = values(c, "flt-f")
    expect(got == [b"flt-f-0-%d" % k for k in range(3)] + [b"again"],
           "flt-f holds %r" % (got,))
    for t in ("flt-ok", "flt-w", "flt-s", "flt-n"):
        expect(produce(c, t, [b"after"]) == NONE, "%s refuses appends" % t)
    print("ok")


if __name__ == "__main__":
    after() if sys.argv[1:] == ["after"] else during()
