#!/usr/bin/python3
"""The kill -9 history test (compat scenario zk_kill_history, issue 22):
an idempotent acks=all producer under load on a topic of replication
factor 3 while compat/zk/scenarios.sh kills partition leaders with
SIGKILL and restarts them; then every partition is read back.

  history.py produce BROKERS TOPIC OUT STOP
      creates TOPIC (3 partitions, replication factor 3,
      min.insync.replicas=1), then produces to its partitions in turn,
      writing "p offset value t_ms" to OUT for each acknowledged record,
      until the file STOP appears; then flushes (everything still queued
      must be acknowledged) and writes OUT.done.
  history.py check BROKERS TOPIC OUT KILLS
      KILLS: lines "t_ms broker p,p,..." (the partitions the broker led
      when killed). Values are "partition:seq:sent_ms". Reads every partition back and fails on an
      acknowledged record lost or moved, a value twice, values out of
      their produced order within a partition, or an offset gap (no
      transactions here: nothing aborted may leave one). Prints, for each
      kill, the time to the first acknowledged produce after it on a
      partition the killed broker led.

Prints '# figure:' lines; exit 0 or 1."""

import os
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, \
    TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

NPARTS = 3


def fail(msg):
    print("FAIL:", msg, flush=True)
    sys.exit(1)


def now_ms():
    return int(time.time() * 1000)


def produce(brokers, topic, out, stop):
    a = AdminClient({"bootstrap.servers": brokers})
    f = a.create_topics([NewTopic(topic, NPARTS, 3, config={
        "min.insync.replicas": "1"})])
    f[topic].result(30)
    errors = []
    acked = open(out + ".tmp", "w", buffering=1)  # lines: the shell counts

    def on_delivery(err, m):
        if err is not None:
            errors.append(str(err))
            return
        acked.write("%d %d %s %d\n" % (m.partition(), m.offset(),
                                       m.value().decode(), now_ms()))

    pr = Producer({"bootstrap.servers": brokers, "acks": "all",
                   "enable.idempotence": True, "linger.ms": 5,
                   "message.timeout.ms": 120000,
                   "topic.metadata.refresh.interval.ms": 1000,
                   "retry.backoff.ms": 50, "retry.backoff.max.ms": 500,
                   "reconnect.backoff.max.ms": 500,
                   # the kills' disconnects are expected: librdkafka's
                   # lines about them would bury a failure's own
                   "log_level": 2})
    seq, t0 = 0, time.monotonic()
    while not os.path.exists(stop):
        # 1000 records a second at most: load, but the machine is shared
        pr.poll(0)
        ahead = seq / 1000.0 - (time.monotonic() - t0)
        if ahead > 0:
            time.sleep(ahead)
        for _ in range(20):
            p = seq % NPARTS
            try:
                pr.produce(topic, value=b"%d:%d:%d" % (p, seq, now_ms()),
                           partition=p,
                           on_delivery=on_delivery)
            except BufferError:
                break
            seq += 1
        if time.monotonic() - t0 > 600:
            fail("no stop file after 600 s")
    left = pr.flush(120)
    acked.close()
    if left or errors:
        fail("%d records never acknowledged, %d failed: %s"
             % (left, len(errors), errors[:5]))
    os.rename(out + ".tmp", out)
    print("# figure: %d records produced, every one acknowledged" % seq,
          flush=True)


def check(brokers, topic, out, kills):
    acks = {}  # (p, offset) -> value
    first = {}  # p -> [(t_ms acknowledged, t_ms sent)]
    seen_vals = set()
    for line in open(out):
        p, off, val, t = line.split()
        p, off, t = int(p), int(off), int(t)
        if (p, off) in acks:
            fail("offset %d of partition %d acknowledged twice (%s, %s)"
                 % (off, p, acks[(p, off)], val))
        if val in seen_vals:
            fail("value %s acknowledged twice" % val)
        seen_vals.add(val)
        acks[(p, off)] = val
        first.setdefault(p, []).append((t, int(val.split(":")[2])))
    c = Consumer({"bootstrap.servers": brokers, "group.id": "zkh-check",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest",
                  "enable.partition.eof": True})
    ends = {}
    for p in range(NPARTS):
        end = time.time() + 30
        while True:
            try:
                ends[p] = c.get_watermark_offsets(TopicPartition(topic, p),
                                                  timeout=5)[1]
                break
            except KafkaException:
                if time.time() > end:
                    raise
                time.sleep(0.2)
    c.assign([TopicPartition(topic, p, 0) for p in range(NPARTS)])
    got = {p: [] for p in range(NPARTS)}
    done, end = set(), time.time() + 60
    while len(done) < NPARTS and time.time() < end:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error() is not None:
            if m.error().code() == -191:  # _PARTITION_EOF
                if m.offset() >= ends[m.partition()]:
                    done.add(m.partition())
                continue
            print("# consumer:", m.error())
            continue
        got[m.partition()].append((m.offset(), m.value().decode()))
    c.close()
    if len(done) < NPARTS:
        fail("read back only partitions %s to their end in 60 s"
             % sorted(done))
    vals = set()
    for p in range(NPARTS):
        rows = got[p]
        last_seq = -1
        for i, (off, val) in enumerate(rows):
            if off != i:
                fail("partition %d: offset %d where %d was due (a gap)"
                     % (p, off, i))
            if val in vals:
                fail("partition %d: value %s twice" % (p, val))
            vals.add(val)
            vp, vs, _ = val.split(":")
            if int(vp) != p:
                fail("partition %d holds %s, produced to %s" % (p, val, vp))
            if int(vs) <= last_seq:
                fail("partition %d: %s after seq %d: out of order"
                     % (p, val, last_seq))
            last_seq = int(vs)
        print("# figure: partition %d: %d records read back, offsets 0-%d "
              "without a gap" % (p, len(rows), len(rows) - 1))
    for (p, off), val in acks.items():
        if off >= len(got[p]) or got[p][off][1] != val:
            fail("acknowledged %s at %d-%d is %s" % (
                val, p, off,
                "lost" if off >= len(got[p]) else
                "replaced by " + got[p][off][1]))
    print("# figure: %d acknowledged records, every one read back at its "
          "offset, none twice" % len(acks))
    worst = 0
    for line in open(kills):
        t, broker, parts = line.split()
        t = int(t)
        parts = [int(x) for x in parts.split(",") if x != ""]
        # the first acknowledgement of a record sent after the kill: no
        # earlier one can have come from the killed leader
        after = [min((a for a, s in first.get(p, []) if s > t), default=None)
                 for p in parts]
        if not parts or any(x is None for x in after):
            fail("kill of broker %s at %d: partitions %s never acknowledged "
                 "a produce after it" % (broker, t, parts))
        ms = min(after) - t
        worst = max(worst, ms)
        print("# figure: kill -9 of broker %s (leader of %s): first "
              "acknowledged produce there %d ms after" % (broker, parts, ms))
    print("# figure: worst kill-to-first-ack %d ms" % worst)


def main():
    mode = sys.argv[1]
    if mode == "produce":
        produce(*sys.argv[2:6])
    elif mode == "check":
        check(*sys.argv[2:6])
    else:
        fail("mode " + mode)


if __name__ == "__main__":
    main()
