#!/usr/bin/python3
"""Restart and stop times of a broker holding many partitions: starts
GREGOR on a fresh data directory (under TMPDIR), creates one topic of N
partitions (default 10,000) with one 100 B record in each, stops it, then
R times (default 3) starts it on the same directory, timing exec to the
listeners file (the broker serves from then on) and its CPU seconds until
then, and SIGTERM to exit. Prints one line per run and removes the
directory.

  tests/bench/restart_many.py GREGOR [N [R]]"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic


def start(gregor, d):
    lf = os.path.join(d, "listeners")
    if os.path.exists(lf):
        os.unlink(lf)
    t0 = time.monotonic()
    p = subprocess.Popen([gregor, "--override",
                          "listeners=PLAINTEXT://127.0.0.1:0", "--override",
                          "log.dirs=" + os.path.join(d, "data"),
                          "--listeners-file", lf],
                         stdout=subprocess.DEVNULL,
                         stderr=open(os.path.join(d, "log"), "a"))
    while not os.path.exists(lf):
        if p.poll() is not None or time.monotonic() - t0 > 120:
            sys.exit("restart_many: the broker did not start")
        time.sleep(0.002)
    t1 = time.monotonic()
    with open("/proc/%d/stat" % p.pid) as f:
        ticks = sum(int(x) for x in f.read().rsplit(")", 1)[1].split()[11:13])
    boot = open(lf).read().split("//", 1)[1].strip()
    return p, boot, t1 - t0, ticks / os.sysconf("SC_CLK_TCK")


def stop(p):
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    rc = p.wait(120)
    if rc != 0:
        sys.exit("restart_many: the broker exited with %d" % rc)
    return time.monotonic() - t0


def main():
    gregor = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    d = tempfile.mkdtemp(prefix="restart_many.")
    p = None
    try:
        p, boot, _, _ = start(gregor, d)
        admin = AdminClient({"bootstrap.servers": boot})
        admin.create_topics([NewTopic("many", n, 1)], operation_timeout=120,
                            request_timeout=180)["many"].result(180)
        pr = Producer({"bootstrap.servers": boot, "linger.ms": 50})
        for i in range(n):
            pr.produce("many", value=b"x" * 100, partition=i)
            pr.poll(0)
        if pr.flush(120) != 0:
            sys.exit("restart_many: records undelivered")
        del pr, admin  # their connections close before the broker stops
        stop(p)
        for r in range(runs):
            p, _, serve, cpu = start(gregor, d)
            time.sleep(0.5)
            down = stop(p)
            print("restart_many: %d partitions: serving after %.3f s (%.2f CPU "
                  "s), stopped in %.3f s" % (n, serve, cpu, down))
    finally:
        if p is not None and p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
