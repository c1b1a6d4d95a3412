#!/usr/bin/python3
"""Memory per partition: creates one topic of N partitions (default 10,000,
CreateTopics' cap per request) with confluent-kafka's AdminClient, then
produces one 100 B record into each, then deletes the topic; prints the
time of each step and the broker's RSS (/proc/PID/status VmRSS) before and
after. During the creation and the deletion another connection sends
ApiVersions every millisecond: the longest answer says how long each held
the broker's event loop.

  tests/bench/many_partitions.py BOOTSTRAP BROKER_PID [N]"""
import socket
import struct
import sys
import threading
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic


def rss(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS"):
            return int(line.split()[1])
    sys.exit("no process %d" % pid)


class Pinger(threading.Thread):
    """ApiVersions v0 every millisecond on its own connection."""

    def __init__(self, boot):
        super().__init__(daemon=True)
        host, port = boot.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.stop = False
        self.longest = 0.0
        self.n = 0

    def recv(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                sys.exit("the broker closed the ping connection")
            b += c
        return b

    def run(self):
        req = struct.pack(">hhih", 18, 0, 1, 4) + b"ping"
        frame = struct.pack(">i", len(req)) + req
        while not self.stop:
            t0 = time.perf_counter()
            self.s.sendall(frame)
            self.recv(struct.unpack(">i", self.recv(4))[0])
            self.longest = max(self.longest, time.perf_counter() - t0)
            self.n += 1
            time.sleep(0.001)


def main():
    boot, pid = sys.argv[1], int(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    r0 = rss(pid)
    t0 = time.time()
    ping = Pinger(boot)
    ping.start()
    admin = AdminClient({"bootstrap.servers": boot})
    admin.create_topics([NewTopic("many", n, 1)], operation_timeout=120,
                        request_timeout=180)["many"].result(180)
    t1 = time.time()
    ping.stop = True
    ping.join(10)
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
          "RSS %d KiB (%.2f KiB per partition); during the creation another "
          "connection's %d ApiVersions waited %.1f ms at most"
          % (n, t1 - t0, r0, r1, (r1 - r0) / n, t2 - t1, left, r2, (r2 - r0) / n,
             ping.n, ping.longest * 1000))
    ping = Pinger(boot)
    ping.start()
    time.sleep(0.2)
    t3 = time.time()
    admin.delete_topics(["many"], operation_timeout=120,
                        request_timeout=180)["many"].result(180)
    t4 = time.time()
    time.sleep(0.2)
    ping.stop = True
    ping.join(10)
    print("many_partitions: deleted in %.3f s; meanwhile another connection's "
          "%d ApiVersions waited %.1f ms at most"
          % (t4 - t3, ping.n, ping.longest * 1000))
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
