#!/usr/bin/python3
"""Memory per idle connection: opens N connections to the broker (default
1,000), each sends one ApiVersions v0 request and reads the answer, then
all stay open and idle; prints the broker's RSS (/proc/PID/status VmRSS)
before and after. Raise the open-files limit first (ulimit -n 4096).

  tests/bench/idle_conns.py BOOTSTRAP BROKER_PID [N]"""
import socket
import struct
import sys
import time


def rss(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS"):
            return int(line.split()[1])
    sys.exit("no process %d" % pid)


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    pid = int(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    before = rss(pid)
    socks = []
    for i in range(n):
        s = socket.create_connection((host, int(port)))
        body = struct.pack(">hhih", 18, 0, i, 1) + b"x"
        s.sendall(struct.pack(">i", len(body)) + body)
        size = struct.unpack(">i", s.recv(4))[0]
        while size > 0:
            size -= len(s.recv(size))
        socks.append(s)
    time.sleep(0.5)
    after = rss(pid)
    print("idle_conns: %d idle connections: RSS %d -> %d KiB, %.2f KiB per connection"
          % (n, before, after, (after - before) / n))


main()
