#!/usr/bin/python3
"""Memory per partition: creates one topic of N partitions (default 10,000,
CreateTopics' cap per request) with confluent-kafka's AdminClient, then
produces one 100 B record into each; prints the time of each step and the
broker's RSS (/proc/PID/status VmRSS) before and after.

  tests/bench/many_partitions.py BOOTSTRAP BROKER_PID [N]"""
import sys
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic


def rss(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS"):
            return int(line.split()[1])
    sys.exit("no process %d" % pid)


def main():
    boot, pid = sys.argv[1], int(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    r0 = rss(pid)
    t0 = time.time()
    admin = AdminClient({"bootstrap.servers": boot})
    admin.create_topics([NewTopic("many", n, 1)], operation_timeout=120,
                        request_timeout=180)["many"].result(180)
    t1 = time.time()
    r1 = rss(pid)
    p = Producer({"bootstrap.servers": boot, "linger.ms": 50})
    for i in range(n):
        p.produce("many", value=b"x" * 100, partition=i)
        p.poll(0)
    left = p.flush(120)
    t2 = time.time()
    time.sleep(1)
    r2 = rss(pid)
    print("many_partitions: %d partitions created in %.2f s, RSS %d -> %d KiB "
          "(%.2f KiB per partition); one record in each in %.2f s (%d undelivered), "
          "RSS %d KiB (%.2f KiB per partition)"
          % (n, t1 - t0, r0, r1, (r1 - r0) / n, t2 - t1, left, r2, (r2 - r0) / n))
    return 1 if left else 0


sys.exit(main())
