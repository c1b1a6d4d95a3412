#!/usr/bin/python3
"""How long topic administration holds the event loop: N one-partition
topics t0..t<N-1> created in one CreateTopics (create), deleted in one
DeleteTopics (delete), or a0..a<N-1> auto-created by one Metadata v4
request that names them all (meta), while another connection sends
ApiVersions every millisecond; prints the time of the request and the
longest ApiVersions answer.

  tests/bench/many_topics.py BOOTSTRAP N create|delete|meta"""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from many_partitions import Pinger  # noqa: E402

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402


def metadata_auto_create(boot, names):
    """One Metadata v4 (allow_auto_topic_creation) naming names; returns
    when it is answered."""
    host, port = boot.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=60)
    names = [x.encode() for x in names]
    body = struct.pack(">i", len(names)) + b"".join(
        struct.pack(">h", len(x)) + x for x in names) + b"\x01"
    req = struct.pack(">hhih", 3, 4, 7, 5) + b"bench" + body
    s.sendall(struct.pack(">i", len(req)) + req)
    got = b""
    while len(got) < 4:
        got += s.recv(4 - len(got))
    left = struct.unpack(">i", got)[0]
    while left > 0:
        left -= len(s.recv(left))
    s.close()


def main():
    boot, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    ping = Pinger(boot)
    ping.start()
    t0 = time.time()
    admin = AdminClient({"bootstrap.servers": boot})
    if mode == "create":
        fs = admin.create_topics([NewTopic("t%d" % i, 1, 1) for i in range(n)],
                                 operation_timeout=120, request_timeout=180)
    elif mode == "delete":
        fs = admin.delete_topics(["t%d" % i for i in range(n)],
                                 operation_timeout=120, request_timeout=180)
    elif mode == "meta":
        fs = {}
        metadata_auto_create(boot, ["a%d" % i for i in range(n)])
    else:
        sys.exit(__doc__)
    for f in fs.values():
        f.result(180)
    t1 = time.time()
    ping.stop = True
    ping.join(10)
    print("many_topics: %s of %d topics in %.3f s; another connection's %d "
          "ApiVersions waited %.1f ms at most" % (mode, n, t1 - t0, ping.n,
                                                 ping.longest * 1000))
    return 0


if __name__ == "__main__":
    sys.exit(main())
