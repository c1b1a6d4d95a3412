#!/usr/bin/python3
"""ListOffsets by timestamp over partitions whose batch inflates to tens of
MiB, sent back to back on one connection while compat/attacks/harness.py
measures the broker (GR_BOOTSTRAP, GR_BROKER_PID):

  list_offsets.py PARTITIONS MIB SECONDS

makes a topic of PARTITIONS partitions, produces to each one zstd batch of
2 KB whose one record inflates to MIB MiB (compat/attacks/inflate.py's),
then sends ListOffsets v1 of every partition at timestamp 0 for SECONDS:
each search finds that batch and must inflate it to read the record's
offset (0). Each request is answered before the next is sent. The
well-behaved client's bounds are the scenario's (RSS_MB, LATENCY_MS in
the environment). Exit 0 or 1."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from inflate import zstd_batch  # noqa: E402

from kafka.protocol.admin import CreateTopicsRequest  # noqa: E402
from kafka.protocol.offset import OffsetRequest  # noqa: E402
from kafka.protocol.produce import ProduceRequest  # noqa: E402

MIB = 1 << 20


def main():
    if len(sys.argv) != 4:
        harness.fail("usage: list_offsets.py PARTITIONS MIB SECONDS")
    nparts, mib, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    topic = "attack-list-offsets-%d" % os.getpid()
    c = harness.Client("attacker", timeout=120)
    r = c.send(CreateTopicsRequest[0]([(topic, nparts, 1, [], [])], 10000))
    if r.topic_errors[0][1] != 0:
        harness.fail("CreateTopics %s: error %d" % (topic, r.topic_errors[0][1]))
    harness.wait_topic(c, topic)
    batch = zstd_batch(mib * MIB)
    for p in range(nparts):
        r = c.send(ProduceRequest[7](transactional_id=None, required_acks=1,
                                     timeout=30000,
                                     topics=[(topic, [(p, batch)])]))
        if r.topics[0][1][0][1] != 0:
            harness.fail("Produce to %d: error %d" % (p, r.topics[0][1][0][1]))
    req = OffsetRequest[1](replica_id=-1,
                           topics=[(topic, [(p, 0) for p in range(nparts)])])
    answers = []
    seen = {"partitions": nparts, "inflated_mib": mib, "batch_bytes": len(batch)}

    def attack():
        end = time.monotonic() + secs
        worst = 0.0
        while True:
            t0 = time.monotonic()
            answers.append(c.send(req))
            worst = max(worst, time.monotonic() - t0)
            if time.monotonic() >= end:
                break
        seen["attack_requests"] = len(answers)
        seen["attack_worst_ms"] = int(worst * 1000)
        return seen

    harness.run("list-offsets", attack,
                rss_mb=int(os.environ.get("RSS_MB", "160")),
                latency_ms=int(os.environ.get("LATENCY_MS", "250")))
    for i, a in enumerate(answers):
        parts = {p[0]: p for p in a.topics[0][1]}
        for p in range(nparts):
            got = parts.get(p)
            if got is None or got[1] != 0 or got[3] != 0:
                harness.fail("request %d, partition %d answered %r, want "
                             "error 0 and offset 0" % (i, p, got))
    harness.ok("list-offsets: %d requests of %d partitions answered offset 0"
               % (len(answers), nparts))
    c.close()


if __name__ == "__main__":
    main()
