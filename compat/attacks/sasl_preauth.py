#!/usr/bin/python3
"""Pre-authentication bounds of a SASL listener (compat/attacks/
scenarios.sh s_attack_sasl_preauth), on compat/attacks/harness.py while
its well-behaved client works on the PLAINTEXT listener and a
well-behaved SASL/PLAIN client logs in again and again on the SASL one.

The broker: SASL_PLAINTEXT ($GR_SASL_PORT) with PLAIN (user alice,
password alice-pw), connections.max.idle.ms=IDLE_MS. What Kafka does,
as SaslServerAuthenticator and Selector do it:
  - before authentication only ApiVersions, SaslHandshake and (after a
    handshake) SaslAuthenticate are taken; any other request closes the
    connection unanswered (IllegalSaslStateException "Unexpected Kafka
    request of type ... during SASL handshake");
  - a frame above sasl.server.max.receive.size (524288) before
    authentication closes the connection (InvalidReceiveException) before
    its body is read;
  - a connection that opened the exchange and never finishes it is an
    idle connection: closed after connections.max.idle.ms.

    sasl_preauth.py IDLE_MS [STALLED [SECS]]
STALLED connections (default 400) send SaslHandshake v1 PLAIN and then
nothing: each is closed within IDLE_MS + 3 s of its handshake. For SECS
(default 5) meanwhile, 2 threads each send an oversize SaslAuthenticate
(the 4-byte size of 524289 bytes and 1 KiB of it), 2 others Metadata,
Produce, or a Metadata after the handshake: every one is closed without
an answer to it, within 1.5 s. The SASL client's every login (handshake, PLAIN
token, Metadata) succeeds within harness.bound_ms(250)."""

import os
import select
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import fail, ok  # noqa: E402

IDLE_MS = int(sys.argv[1])
STALLED = int(sys.argv[2]) if len(sys.argv) > 2 else 400
SECS = float(sys.argv[3]) if len(sys.argv) > 3 else 5.0
PORT = int(os.environ["GR_SASL_PORT"])
MAX_RECEIVE = 524288
# Bounds: 400 stalled connections hold a socket and the SASL state each
# (no frame memory: nothing is announced); the oversize frames are never
# read into memory
RSS_MB = 32
LATENCY_MS = 250


def frame(key, ver, corr, body, flex=False):
    """A request: header v1 (v2 with flex), client id "pre"."""
    h = struct.pack(">hhih", key, ver, corr, 3) + b"pre" + (b"\x00" if flex else b"")
    return struct.pack(">i", len(h) + len(body)) + h + body


HANDSHAKE = frame(17, 1, 1, struct.pack(">h", 5) + b"PLAIN")
METADATA = frame(3, 1, 2, struct.pack(">i", 0))
PRODUCE = frame(0, 3, 2, struct.pack(">hhii", -1, 1, 1000, 0))


def recv_frame(s):
    """One response's body after the correlation id, or None at EOF."""
    n = s.recv(4, socket.MSG_WAITALL)
    if len(n) < 4:
        return None
    size = struct.unpack(">i", n)[0]
    b = s.recv(size, socket.MSG_WAITALL)
    return b[4:] if len(b) == size else None


def connect():
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def handshake(s):
    s.sendall(HANDSHAKE)
    r = recv_frame(s)
    if r is None or struct.unpack(">h", r[:2])[0] != 0:
        raise ValueError("SaslHandshake PLAIN refused: %r" % r)


def closed_unanswered(s, timeout=1.5):
    """True when the broker closes s within timeout without sending a
    byte (Kafka closes after connection.failed.authentication.delay.ms,
    100 ms; the idle close, seconds later, must not count)."""
    s.settimeout(timeout)
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def login():
    """A well-behaved SASL/PLAIN client's whole login and a Metadata:
    its time in ms."""
    t0 = time.monotonic()
    s = connect()
    try:
        handshake(s)
        tok = b"\x00alice\x00alice-pw"
        # SaslAuthenticate v2 (flexible): compact bytes, no tags
        s.sendall(frame(36, 2, 2, bytes([len(tok) + 1]) + tok + b"\x00", True))
        r = recv_frame(s)
        if r is None or struct.unpack(">h", r[1:3])[0] != 0:
            raise ValueError("PLAIN login refused: %r" % r)
        s.sendall(frame(3, 1, 3, struct.pack(">i", 0)))
        if recv_frame(s) is None:
            raise ValueError("no Metadata answer after the login")
    finally:
        s.close()
    return (time.monotonic() - t0) * 1000


def attack():
    counts = {"oversize_closed": 0, "early_closed": 0, "kept_open": 0}
    logins = []
    errors = []
    lock = threading.Lock()
    stop = threading.Event()

    stalled = []
    for _ in range(STALLED):
        sk = connect()
        handshake(sk)
        stalled.append((sk, time.monotonic()))
    closed = []

    def watch():
        """When each stalled connection is closed (seconds after its
        handshake), until all are or IDLE_MS + 3 s have passed."""
        po = select.poll()
        by_fd = {}
        for sk, t in stalled:
            po.register(sk, select.POLLIN)
            by_fd[sk.fileno()] = (sk, t)
        end = time.monotonic() + IDLE_MS / 1000 + 3
        while by_fd and time.monotonic() < end:
            for fd, _ in po.poll(100):
                sk, t = by_fd.pop(fd)
                po.unregister(fd)
                try:
                    gone = sk.recv(1) == b""
                except ConnectionResetError:
                    gone = True
                if gone:
                    closed.append(time.monotonic() - t)
                sk.close()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()

    def oversize():
        while not stop.is_set():
            s = connect()
            handshake(s)
            head = struct.pack(">i", MAX_RECEIVE + 1)
            s.sendall(head + struct.pack(">hhih", 36, 2, 3, 3) + b"pre" + b"\x00" * 1024)
            c = closed_unanswered(s)
            s.close()
            with lock:
                counts["oversize_closed" if c else "kept_open"] += 1

    def early():
        i = 0
        while not stop.is_set():
            i += 1
            s = connect()
            if i % 3 == 0:
                handshake(s)
                s.sendall(METADATA)
            else:
                s.sendall(METADATA if i % 3 == 1 else PRODUCE)
            c = closed_unanswered(s)
            s.close()
            with lock:
                counts["early_closed" if c else "kept_open"] += 1

    def good():
        while not stop.is_set():
            try:
                ms = login()
                with lock:
                    logins.append(ms)
            except (OSError, ValueError) as e:
                with lock:
                    errors.append(str(e))
            time.sleep(0.05)

    ts = [threading.Thread(target=f, daemon=True)
          for f in (oversize, oversize, early, early, good)]
    for t in ts:
        t.start()
    time.sleep(SECS)
    stop.set()
    for t in ts:
        t.join(15)
    watcher.join(IDLE_MS / 1000 + 5)
    if len(closed) != STALLED:
        fail("%d of %d connections stalled after SaslHandshake were not closed "
             "within connections.max.idle.ms (%d) + 3 s"
             % (STALLED - len(closed), STALLED, IDLE_MS))
    first, last = min(closed), max(closed)
    if first * 1000 < IDLE_MS - 500:
        fail("a stalled connection was closed after %.1f s, before "
             "connections.max.idle.ms (%d ms)" % (first, IDLE_MS))
    ok("%d connections stalled after SaslHandshake: all closed by "
       "connections.max.idle.ms (%d ms), %.1f-%.1f s after their handshake"
       % (STALLED, IDLE_MS, first, last))
    if counts["kept_open"]:
        fail("%d pre-authentication violations were answered or not closed within 1.5 s: %s"
             % (counts["kept_open"], counts))
    if not counts["oversize_closed"] or not counts["early_closed"]:
        fail("an attacker made no attempt: %s" % counts)
    ok("%d oversize SaslAuthenticate frames (%d bytes announced) and %d "
       "requests before authentication: each connection closed unanswered"
       % (counts["oversize_closed"], MAX_RECEIVE + 1, counts["early_closed"]))
    if errors:
        fail("the SASL client failed %d times: %s" % (len(errors), errors[0]))
    if not logins:
        fail("the SASL client logged in no time")
    worst = max(logins)
    if worst > harness.bound_ms(LATENCY_MS):
        fail("the SASL client's worst login took %.0f ms (bound %.0f)"
             % (worst, harness.bound_ms(LATENCY_MS)))
    ok("the SASL/PLAIN client logged in %d times, worst %.1f ms"
       % (len(logins), worst))
    return {"stalled": STALLED, "oversize_closed": counts["oversize_closed"],
            "early_closed": counts["early_closed"], "logins": len(logins),
            "login_worst_ms": round(worst, 1),
            "login_p50_ms": round(sorted(logins)[len(logins) // 2], 1),
            "stalled_closed_s": round(last, 1)}


figures = harness.run("sasl-preauth", attack, rss_mb=RSS_MB, latency_ms=LATENCY_MS)
ok("sasl-preauth: %s" % figures)
