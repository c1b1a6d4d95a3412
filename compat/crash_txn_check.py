#!/usr/bin/python3
"""Checks the transactions and offset commits of a crash loop
(compat/run.sh s_crash_loop, compat/crash_txn.c) against gregor
(GR_BOOTSTRAP), with confluent-kafka.

  crash_txn_check.py ACKFILE TOPIC PARTITIONS GROUP ATTEMPTED

Reads TOPIC with isolation.level=read_committed. Fails when a transaction
acknowledged as committed ("txn <n>" in ACKFILE) is not visible, when a
visible transaction is not whole (each has 5 values "t<n>.<j>", each once),
when GROUP's offset of TOPIC/0 (committed inside the transactions) is not
the last visible transaction's n + 1, or when GROUP-plain's offset of
TOPIC/1 is below the last acknowledged plain commit ("commit <n>") or
above ATTEMPTED, the number of transactions crash_txn began."""
import os
import sys

from confluent_kafka import Consumer, TopicPartition

PER_TXN = 5


def fail(msg):
    sys.exit("FAIL: " + msg)


def read_committed(boot, topic, parts):
    c = Consumer({"bootstrap.servers": boot, "group.id": "crash-check-%d" % os.getpid(),
                  "enable.auto.commit": False, "enable.partition.eof": True,
                  "isolation.level": "read_committed"})
    c.assign([TopicPartition(topic, p, 0) for p in range(parts)])
    out, eof = [], set()
    while len(eof) < parts:
        m = c.poll(30)
        if m is None:
            fail("no end of %s in 30 s (partitions at the end: %s)" % (topic, sorted(eof)))
        if m.error():
            if m.error().code() == -191:  # _PARTITION_EOF
                eof.add(m.partition())
                continue
            fail("consume: %s" % m.error())
        out.append((m.partition(), m.value().decode()))
    c.close()
    return out


def committed(boot, group, topic, part):
    c = Consumer({"bootstrap.servers": boot, "group.id": group,
                  "enable.auto.commit": False})
    tp = c.committed([TopicPartition(topic, part)], timeout=30)[0]
    c.close()
    if tp.error:
        fail("committed offset of %s: %s" % (group, tp.error))
    return tp.offset


def main():
    ackfile, topic, parts, group = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    attempts = int(sys.argv[5])
    boot = os.environ["GR_BOOTSTRAP"]
    acked, plain_acked, plain_max = set(), -1, -1
    for line in open(ackfile):
        kind, n = line.split()
        if kind == "txn":
            acked.add(int(n))
        else:
            plain_acked = max(plain_acked, int(n))
    seen = {}  # n -> [j...]
    for p, v in read_committed(boot, topic, parts):
        if not v.startswith("t") or "." not in v:
            fail("strange value %r" % v)
        n, j = (int(x) for x in v[1:].split("."))
        if j % parts != p:
            fail("%s in partition %d" % (v, p))
        seen.setdefault(n, []).append(j)
    for n, js in seen.items():
        if sorted(js) != list(range(PER_TXN)):
            fail("transaction %d is not whole: %s" % (n, sorted(js)))
    lost = sorted(acked - set(seen))
    if lost:
        fail("%d committed transactions not visible, first %s" % (len(lost), lost[:5]))
    last = max(seen) if seen else -1
    off = committed(boot, group, topic, 0)
    if off != last + 1:
        fail("%s's offset is %d; the last visible transaction is %d" % (group, off, last))
    poff = committed(boot, group + "-plain", topic, 1)
    # plain commits go 1, 2, ... up to the number of attempts; the last
    # may have been written without its answer
    if poff < plain_acked or poff > attempts:
        fail("%s-plain's offset is %d; acknowledged up to %d" % (group, poff, plain_acked))
    print("crash_txn_check: %d transactions visible (%d acknowledged, %d visible without an "
          "answer), %s at %d, %s-plain at %d (acknowledged %d)"
          % (len(seen), len(acked), len(set(seen) - acked), group, off, group, poff, plain_acked))


main()
