#!/usr/bin/python3
"""Resource bounds against a running gregor (compat/run.sh s_resource_limits),
byte-level with kafka-python's protocol classes:

  limits.py stall     (broker with connections.max.idle.ms=2000)
      a client pipelines 200 Fetch v3 requests (4 MB down-converted
      responses each) and never reads: the broker's peak RSS grows by less
      than 64 MB (one response, not 200), another client is served
      meanwhile, and the stalled connection is closed once idle; a client
      that stops halfway through a frame, and one that sends nothing, are
      closed too
  limits.py sessions
      a fetch session naming 200000 partitions, then forgetting them: each
      request is answered in seconds (O(n), not O(n^2))
  limits.py maxconn   (max.connections=4)
      a fifth connection waits, as with Kafka's acceptor, and is served
      once one of the four closes
  limits.py queued    (socket.request.max.bytes=4 MiB,
                       queued.max.request.bytes=8 MiB)
      12 clients announce 3.9 MB Produce requests and send half of each:
      the broker's peak RSS grows by less than 12 MB (two buffers,
      not twelve); once the rest arrives every request is answered

GR_BROKER_PID names the broker process. Exit 0 or 1."""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kpy_raw import Conn, fail, v2_batch, NONE, HOST, PORT  # noqa: E402
from sanitized import rss_bound_mib  # noqa: E402

from kafka.protocol.api import RequestHeader  # noqa: E402
from kafka.protocol.fetch import FetchRequest  # noqa: E402
from kafka.protocol.metadata import MetadataRequest  # noqa: E402
from kafka.protocol.produce import ProduceRequest  # noqa: E402

PID = int(os.environ["GR_BROKER_PID"])


def rss_kb(field):
    for line in open("/proc/%d/status" % PID):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    fail("no %s for pid %d" % (field, PID))


def frame(req, corr):
    hdr = RequestHeader(req, correlation_id=corr, client_id="limits")
    body = hdr.encode() + req.encode()  # (kafka-python's encode needs hdr alive)
    return struct.pack(">i", len(body)) + body


def raw(rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect((HOST, int(PORT)))
    return s


def closed_within(s, secs):
    """Whether the broker closes s within secs (reading what it sent)."""
    s.settimeout(0.2)
    end = time.time() + secs
    while time.time() < end:
        try:
            if s.recv(1 << 20) == b"":
                return True
        except socket.timeout:
            continue
        except ConnectionResetError:
            return True
    return False


def produce(c, topic, records, acks=1):
    req = ProduceRequest[3](transactional_id=None, required_acks=acks,
                            timeout=5000, topics=[(topic, [(0, records)])])
    return c.send(req).topics[0][1][0][1]


def stall():
    c = Conn()
    c.send(MetadataRequest[1](topics=["lim-data", "lim-other"]))
    for i in range(40):  # 40 x 100 KB
        if produce(c, "lim-data", v2_batch([os.urandom(1000) for _ in range(100)])) != NONE:
            fail("fill")
    base = rss_kb("VmRSS")
    s = raw(rcvbuf=4096)
    req = FetchRequest[3](-1, 0, 1, 4 << 20, [("lim-data", [(0, 0, 4 << 20)])])
    s.sendall(b"".join(frame(req, i) for i in range(200)))
    time.sleep(1.0)
    # served meanwhile
    if produce(c, "lim-other", v2_batch([b"x"])) != NONE:
        fail("another client was not served while one stalls")
    hwm = rss_kb("VmHWM")
    print("stall: RSS %d kB before, peak %d kB" % (base, hwm))
    bound, why = rss_bound_mib(PID, 64)
    if hwm - base > bound * 1024:
        fail("a client that does not read grew the broker by %d kB (bound %d MiB%s)"
             % (hwm - base, bound, why))
    time.sleep(3.5)  # still not reading: idle for longer than 2 s
    if not closed_within(s, 8):
        fail("the stalled connection was not closed (connections.max.idle.ms)")
    # halfway through a frame, and silent
    half = raw()
    half.sendall(frame(MetadataRequest[1](topics=[]), 1)[:7])
    silent = raw()
    t0 = time.time()
    if not closed_within(half, 8) or not closed_within(silent, 8):
        fail("a half-sent frame or a silent connection was not closed")
    print("stall: idle connections closed after %.1f s" % (time.time() - t0))
    # the first client was idle too: a new one still works
    if produce(Conn(), "lim-other", v2_batch([b"y"])) != NONE:
        fail("broker unusable after the idle closes")


def queued():
    c = Conn()
    c.send(MetadataRequest[1](topics=["lim-big"]))
    value = os.urandom(3900 * 1000)
    req = ProduceRequest[3](transactional_id=None, required_acks=1, timeout=5000,
                            topics=[("lim-big", [(0, v2_batch([value]))])])
    base = rss_kb("VmRSS")
    socks, frames = [], []
    for i in range(12):
        f = frame(req, 7)
        s = raw()
        s.sendall(f[:len(f) // 2])
        socks.append(s)
        frames.append(f)
    time.sleep(1.0)
    hwm = rss_kb("VmHWM")
    print("queued: RSS %d kB before, peak %d kB with 12 half-sent 3.9 MB requests"
          % (base, hwm))
    bound, why = rss_bound_mib(PID, 12)
    if hwm - base > bound * 1024:
        fail("queued.max.request.bytes did not bound request memory: +%d kB (bound %d MiB%s)"
             % (hwm - base, bound, why))
    for s, f in zip(socks, frames):
        s.sendall(f[len(f) // 2:])
    for s in socks:
        s.settimeout(20)
        size = struct.unpack(">i", recv_exact(s, 4))[0]
        data = recv_exact(s, size)
        resp = ProduceRequest[3].RESPONSE_TYPE.decode(__import__("io").BytesIO(data[4:]))
        if resp.topics[0][1][0][1] != NONE:
            fail("a queued request was answered with error %d" % resp.topics[0][1][0][1])
    print("queued: all 12 answered")


def sessions():
    """A fetch session naming 200000 partitions, then forgetting them all:
    each request is answered within seconds (the session's partitions are
    found through a hash index, not a scan per partition)."""
    c = Conn()
    c.send(MetadataRequest[1](topics=["lim-sess"]))
    n = 200000
    parts = [(p, -1, 0, -1, 1024) for p in range(n)]
    t0 = time.time()
    req = FetchRequest[11](-1, 0, 1, 1 << 20, 0, 0, 0, [("lim-sess", parts)], [], "")
    r = c.send(req)
    t1 = time.time()
    sid = r.session_id
    if sid == 0 or sum(len(t[1]) for t in r.topics) != n:
        fail("full fetch of %d partitions: session %d" % (n, sid))
    req = FetchRequest[11](-1, 0, 1, 1 << 20, 0, sid, 1, [], [("lim-sess", list(range(n)))], "")
    r = c.send(req)
    t2 = time.time()
    if r.error_code != NONE or r.topics:
        fail("forgetting %d partitions: error %d" % (n, r.error_code))
    print("sessions: %d partitions in %.2f s, forgotten in %.2f s" % (n, t1 - t0, t2 - t1))
    if t2 - t0 > 20:
        fail("fetch sessions are too slow with many partitions")


def maxconn():
    """max.connections=4, as Kafka's acceptor: a fifth connection waits
    (neither answered nor closed) while four are open, and is served once
    one of them closes."""
    socks = [raw() for _ in range(4)]
    time.sleep(0.3)
    extra = raw()
    extra.sendall(frame(MetadataRequest[1](topics=[]), 1))
    extra.settimeout(1.5)
    t0 = time.time()
    try:
        got = extra.recv(4)
        fail("a fifth connection was %s with max.connections=4 (Kafka's "
             "waits for a slot)" % ("served" if got else "closed"))
    except socket.timeout:
        pass
    except ConnectionError:
        fail("a fifth connection was reset with max.connections=4")
    socks.pop().close()  # frees a slot: the fifth goes on
    extra.settimeout(5)
    size = struct.unpack(">i", recv_exact(extra, 4))[0]
    recv_exact(extra, size)
    print("maxconn: the fifth connection waited %.1f s, served once a slot "
          "freed" % (time.time() - t0))


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            fail("connection closed")
        buf += chunk
    return buf


if __name__ == "__main__":
    {"stall": stall, "queued": queued, "sessions": sessions,
     "maxconn": maxconn}[sys.argv[1]]()
    print("ok")
