"""compat/sasl/raw_sasl.py HOST:PORT [--reauth]: the SASL exchange's answers
as bytes on the wire, printed one line a case, so that a run against Apache
Kafka and one against Gregor can be compared line for line (the listener:
SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 enabled and the
PLAIN user alice/alice-pw; --reauth: connections.max.reauth.ms=600000).
Each case opens its own connection. Python standard library only."""
import socket
import struct
import sys
import time

HOST, PORT = sys.argv[1].rsplit(":", 1)
REAUTH = "--reauth" in sys.argv
corr = [0]


def conn():
    s = socket.create_connection((HOST, int(PORT)), timeout=5)
    return s


def frame(key, ver, body, flexible=False):
    corr[0] += 1
    h = struct.pack(">hhih", key, ver, corr[0], 3) + b"raw"
    if flexible:
        h += b"\x00"
    m = h + body
    return struct.pack(">i", len(m)) + m


def read_frame(s):
    """the next frame, or None when the broker closed the connection"""
    try:
        b = b""
        while len(b) < 4:
            c = s.recv(4 - len(b))
            if not c:
                return None
            b += c
        n = struct.unpack(">i", b)[0]
        d = b""
        while len(d) < n:
            c = s.recv(n - len(d))
            if not c:
                return None
            d += c
        return d
    except (ConnectionResetError, socket.timeout):
        return None


def closed(s):
    try:
        return s.recv(1) == b""
    except (ConnectionResetError, socket.timeout):
        return True


def s16(v):
    return struct.pack(">h", len(v)) + v


def handshake(s, ver, mech):
    s.sendall(frame(17, ver, s16(mech.encode())))
    d = read_frame(s)
    if d is None:
        return "closed"
    err, n = struct.unpack(">hi", d[4:10])
    p, mechs = 10, []
    for _ in range(max(n, 0)):
        ln = struct.unpack(">h", d[p:p + 2])[0]
        mechs.append(d[p + 2:p + 2 + ln].decode())
        p += 2 + ln
    return "error %d mechanisms %s" % (err, ",".join(sorted(mechs)))


def authenticate(s, ver, data):
    if ver < 2:
        s.sendall(frame(36, ver, struct.pack(">i", len(data)) + data))
    else:
        s.sendall(frame(36, ver, bytes([len(data) + 1]) + data + b"\x00",
                        flexible=True))
    d = read_frame(s)
    if d is None:
        return "closed"
    p = 4
    if ver >= 2:
        p += 1  # header tags
    err = struct.unpack(">h", d[p:p + 2])[0]
    p += 2
    if ver >= 2:
        ln = d[p] - 1
        p += 1
    else:
        ln = struct.unpack(">h", d[p:p + 2])[0]
        p += 2
    msg = d[p:p + ln].decode() if ln >= 0 else None
    p += max(ln, 0)
    if ver >= 2:
        bl = d[p] - 1
        p += 1
    else:
        bl = struct.unpack(">i", d[p:p + 4])[0]
        p += 4
    p += max(bl, 0)
    life = struct.unpack(">q", d[p:p + 8])[0] if ver >= 1 else None
    return "error %d message %r bytes %d lifetime %s" % (err, msg, bl, life)


def api_versions(s):
    s.sendall(frame(18, 2, b""))
    d = read_frame(s)
    if d is None:
        return "closed"
    return "error %d" % struct.unpack(">h", d[4:6])[0]


def metadata(s):
    s.sendall(frame(3, 1, struct.pack(">i", 0)))
    d = read_frame(s)
    if d is None:
        return "closed"
    return "answered %d bytes" % len(d)


PLAIN_OK = b"\0alice\0alice-pw"
PLAIN_BAD = b"\0alice\0wrong"


def timed(f):
    t = time.time()
    r = f()
    return r, time.time() - t


def case(name, steps):
    s = conn()
    out = []
    for st in steps:
        r = st(s)
        out.append(r)
        if r == "closed":
            break
    s.close()
    print("%-28s %s" % (name, " | ".join(out)))


def then_closed(s):
    r, dt = timed(lambda: closed(s))
    return "then closed%s" % (" after the delay" if dt >= 0.08 else "") if r else "then open"


case("metadata-first", [metadata])
case("versions-twice", [api_versions, api_versions])
case("authenticate-first", [lambda s: authenticate(s, 1, PLAIN_OK)])
case("gssapi", [lambda s: handshake(s, 1, "GSSAPI"), then_closed])
case("plain-wrong", [lambda s: handshake(s, 1, "PLAIN"),
                     lambda s: authenticate(s, 1, PLAIN_BAD), then_closed])
case("plain-3-tokens", [lambda s: handshake(s, 1, "PLAIN"),
                        lambda s: authenticate(s, 1, b"alice\0pw"), then_closed])
case("scram-unknown-user", [lambda s: handshake(s, 1, "SCRAM-SHA-256"),
                            lambda s: authenticate(s, 1, b"n,,n=nobody,r=abcdefgh"),
                            then_closed])
case("scram-garbage", [lambda s: handshake(s, 1, "SCRAM-SHA-512"),
                       lambda s: authenticate(s, 1, b"garbage"), then_closed])
case("handshake-twice", [lambda s: handshake(s, 1, "PLAIN"),
                         lambda s: handshake(s, 1, "PLAIN"), then_closed])
case("versions-after-handshake", [lambda s: handshake(s, 1, "PLAIN"),
                                  api_versions, then_closed])
case("plain-ok-v2", [api_versions, lambda s: handshake(s, 1, "PLAIN"),
                     lambda s: authenticate(s, 2, PLAIN_OK), metadata,
                     lambda s: authenticate(s, 1, PLAIN_OK)])
case("handshake-after-auth", [lambda s: handshake(s, 1, "PLAIN"),
                              lambda s: authenticate(s, 1, PLAIN_OK),
                              lambda s: handshake(s, 1, "PLAIN"),
                              lambda s: authenticate(s, 1, PLAIN_OK), metadata])
case("reauth-other-mechanism", [lambda s: handshake(s, 1, "PLAIN"),
                                lambda s: authenticate(s, 1, PLAIN_OK),
                                lambda s: handshake(s, 1, "SCRAM-SHA-256"),
                                lambda s: authenticate(s, 1, b"n,,n=x,r=y"),
                                then_closed])


def raw(s, tok):
    s.sendall(struct.pack(">i", len(tok)) + tok)
    d = read_frame(s)
    return "closed" if d is None else "raw token of %d bytes" % len(d)


case("v0-plain-ok", [lambda s: handshake(s, 0, "PLAIN"),
                     lambda s: raw(s, PLAIN_OK), metadata])
case("v0-plain-wrong", [lambda s: handshake(s, 0, "PLAIN"),
                        lambda s: raw(s, PLAIN_BAD)])
