"""Helpers for the compat/python scripts: the broker's address, a failure
exit that names the check, and a raw ApiVersions probe (what the broker
advertises, to tell "not advertised" from "broken")."""
import os
import socket
import struct
import sys
import time

BOOT = os.environ.get("GR_BOOTSTRAP", "127.0.0.1:9092")
HOST, PORT = BOOT.rsplit(":", 1)
PORT = int(PORT)
PROG = os.path.basename(sys.argv[0])


def fail(msg):
    print("%s: FAIL: %s" % (PROG, msg), flush=True)
    sys.exit(1)


def say(msg):
    print("%s: %s" % (PROG, msg), flush=True)


def check(cond, msg):
    if not cond:
        fail(msg)


def eq(got, want, what):
    if got != want:
        fail("%s: got %r, want %r" % (what, got, want))


def wait_for(pred, secs, what, step=0.1):
    """Polls pred() until it is true; fails naming what after secs."""
    end = time.time() + secs
    while True:
        v = pred()
        if v:
            return v
        if time.time() > end:
            fail("timed out after %d s waiting for %s" % (secs, what))
        time.sleep(step)


def api_versions():
    """ApiVersions v0 by hand: {api_key: (min, max)}."""
    s = socket.create_connection((HOST, PORT), timeout=10)
    try:
        body = struct.pack(">hhih", 18, 0, 1, len("probe")) + b"probe"
        s.sendall(struct.pack(">i", len(body)) + body)
        hdr = b""
        while len(hdr) < 4:
            hdr += s.recv(4 - len(hdr))
        n = struct.unpack(">i", hdr)[0]
        buf = b""
        while len(buf) < n:
            chunk = s.recv(n - len(buf))
            if not chunk:
                raise IOError("short ApiVersions response")
            buf += chunk
    finally:
        s.close()
    _corr, err, cnt = struct.unpack_from(">ihi", buf, 0)
    if err:
        raise IOError("ApiVersions error %d" % err)
    out = {}
    for i in range(cnt):
        k, lo, hi = struct.unpack_from(">hhh", buf, 10 + 6 * i)
        out[k] = (lo, hi)
    return out


def value_of(i, size):
    """A value of size bytes that differs for every i."""
    seed = ("%08d" % i).encode()
    return (seed * (size // len(seed) + 1))[:size]


def check_log_append_time(what, md, got, window, sent):
    """The records of a LogAppendTime topic as kafka-python 3 and aiokafka
    give them: md the producer's metadata of records 0..n-1 (key b"k<i>",
    value b"lat-<i>", sent stamped sent + i), got {(0, offset): record}
    as read back; each acknowledged and read with one time of the broker's
    clock within window (the produce's (start, end) in ms), as
    LogAppendTime (timestamp_type 1)."""
    lo, hi = window
    eq([m.offset for m in md], list(range(len(md))), "%s: offsets" % what)
    eq(len(got), len(md), "%s: records read" % what)
    for i, m in enumerate(md):
        check(lo <= m.timestamp <= hi, "%s: metadata time %d of %d not in %d..%d"
              % (what, m.timestamp, i, lo, hi))
        r = got[(0, i)]
        eq((r.key, r.value, r.timestamp_type), (b"k%d" % i, b"lat-%d" % i, 1),
           "%s: record %d" % (what, i))
        check(r.timestamp == m.timestamp, "%s: record %d read at %d, acknowledged at %d "
              "(sent %d)" % (what, i, r.timestamp, m.timestamp, sent + i))
