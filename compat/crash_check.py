#!/usr/bin/python3
"""Checks a crash loop's outcome (compat/run.sh s_crash_loop).

  crash_check.py ACKFILE CONSUMED PARTITIONS PRODUCED [exactly-once]

ACKFILE: "<partition> <offset> <i>" per delivery report that said success
(compat/crash_produce.c); CONSUMED: "<partition> <offset> m<i>" per record
read back from the beginning (kcat). Fails when an acknowledged record is
missing or not at the offset it was acknowledged with, when a partition's
offsets have a gap, when a record sits in the wrong partition, when the
first occurrences of the records of a partition are out of order, or when
a produced message was never acknowledged. Duplicates (a request written
but not answered before the kill, retried after the restart) are counted,
not failed: without idempotence Kafka has them too. With "exactly-once"
(an idempotent producer) a duplicate fails the check."""
import sys


def main():
    ackfile, consumed, parts, produced = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    once = sys.argv[5:] == ["exactly-once"]
    log = {}  # partition -> {offset: i}
    for line in open(consumed):
        p, o, v = line.split()
        if not v.startswith("m"):
            sys.exit("FAIL: strange record %r" % line)
        log.setdefault(int(p), {})[int(o)] = int(v[1:])
    acked = {}
    for line in open(ackfile):
        p, o, i = (int(x) for x in line.split())
        if i in acked:
            sys.exit("FAIL: message %d acknowledged twice" % i)
        acked[i] = (p, o)
    bad = 0
    for i, (p, o) in sorted(acked.items()):
        got = log.get(p, {}).get(o)
        if got != i:
            bad += 1
            if bad <= 10:
                print("LOST: m%d acknowledged at %d/%d, which holds %r" % (i, p, o, got))
    dups = unacked = 0
    for p, recs in sorted(log.items()):
        offs = sorted(recs)
        if offs != list(range(len(offs))):
            sys.exit("FAIL: partition %d: offsets have a gap (%d records, last offset %d)"
                     % (p, len(offs), offs[-1]))
        seen, last = set(), -1
        for o in offs:
            i = recs[o]
            if i % parts != p:
                sys.exit("FAIL: m%d in partition %d" % (i, p))
            if i in seen:
                dups += 1
                continue
            seen.add(i)
            if i < last:
                sys.exit("FAIL: partition %d: m%d at offset %d after m%d" % (p, i, o, last))
            last = i
            if i not in acked:
                unacked += 1
    missing = [i for i in range(produced) if i not in acked]
    total = sum(len(r) for r in log.values())
    print("crash_check: %d records read, %d acknowledged, %d duplicates, "
          "%d present but never acknowledged, %d lost, %d produced never acknowledged"
          % (total, len(acked), dups, unacked, bad, len(missing)))
    if once and dups:
        sys.exit("FAIL: %d duplicates from an idempotent producer" % dups)
    if bad or missing:
        sys.exit("FAIL: %d acknowledged records lost; %d produced never acknowledged (first %r)"
                 % (bad, len(missing), missing[:5]))


main()
