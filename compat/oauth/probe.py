#!/usr/bin/python3
"""SASL/OAUTHBEARER frame by frame (python3 standard library only):
SaslHandshake v1, then SaslAuthenticate v2, each answer checked against
what Apache Kafka 4.4 answers with its default (unsecured) validator.

    probe.py HOST:PORT unsecured
        an expired token: the JSON error as auth bytes (error NONE), then
        0x01: SASL_AUTHENTICATION_FAILED with the JSON as message and the
        connection closed; a good token: NONE, session lifetime exp - now
        (connections.max.reauth.ms unset); an authzid that is not the
        principal and a malformed first message: their messages
    probe.py HOST:PORT reauth MAX_MS
        connections.max.reauth.ms=MAX_MS: a token expiring in an hour gets
        MAX_MS, one expiring in 2 s about 2000 ms (the smaller wins)

Exits 1 with "FAIL: ..." at the first difference."""

import base64
import json
import socket
import struct
import sys
import time

HOST, PORT = sys.argv[1].rsplit(":", 1)
GENERIC = ("Authentication failed during authentication due to invalid "
           "credentials with SASL mechanism OAUTHBEARER")


def fail(m):
    print("FAIL:", m)
    sys.exit(1)


def b64(x):
    return base64.urlsafe_b64encode(x).rstrip(b"=")


def jws(claims):
    return (b64(b'{"alg":"none"}') + b"." + b64(json.dumps(claims).encode()) + b".").decode()


def uvarint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


class Conn:
    def __init__(self):
        self.s = socket.create_connection((HOST, int(PORT)), timeout=10)
        self.corr = 0

    def req(self, key, ver, body, flexible):
        self.corr += 1
        hdr = struct.pack(">hhih", key, ver, self.corr, 5) + b"probe"
        if flexible:
            hdr += b"\x00"
        m = hdr + body
        self.s.sendall(struct.pack(">i", len(m)) + m)
        n = struct.unpack(">i", self.read(4))[0]
        r = self.read(n)
        if struct.unpack(">i", r[:4])[0] != self.corr:
            fail("correlation id")
        return r[4:]

    def read(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise EOFError
            b += c
        return b

    def handshake(self):
        r = self.req(17, 1, struct.pack(">h", 11) + b"OAUTHBEARER", False)
        if struct.unpack(">h", r[:2])[0] != 0:
            fail("SaslHandshake OAUTHBEARER: error %d" % struct.unpack(">h", r[:2])[0])

    def auth(self, data):
        """(error code, message, auth bytes, session lifetime ms)"""
        r = self.req(36, 2, uvarint(len(data) + 1) + data + b"\x00", True)
        p = 1  # the response header's tagged fields
        err = struct.unpack(">h", r[p:p + 2])[0]
        p += 2

        def var(p):
            v = sh = 0
            while True:
                b = r[p]
                p += 1
                v |= (b & 0x7F) << sh
                sh += 7
                if not b & 0x80:
                    return v, p
        n, p = var(p)
        msg = r[p:p + n - 1].decode() if n else None
        p += max(n - 1, 0)
        n, p = var(p)
        ab = r[p:p + n - 1]
        p += n - 1
        return err, msg, ab, struct.unpack(">q", r[p:p + 8])[0]

    def closed(self):
        try:
            self.s.settimeout(5)
            return self.s.recv(1) == b""
        except (ConnectionError, socket.timeout):
            return True


def first(token, authzid=""):
    return ("n,%s,\x01auth=Bearer %s\x01\x01"
            % ("a=" + authzid if authzid else "", token)).encode()


def unsecured():
    now = time.time()
    c = Conn()
    c.handshake()
    err, msg, ab, life = c.auth(first(jws({"sub": "alice", "exp": now - 100})))
    if (err, ab) != (0, b'{"status":"invalid_token"}'):
        fail("expired token: want NONE with the JSON error, got %d %r %r" % (err, msg, ab))
    err, msg, ab, life = c.auth(b"\x01")
    if (err, msg) != (58, '{"status":"invalid_token"}'):
        fail("0x01 after the error: got %d %r" % (err, msg))
    if not c.closed():
        fail("the connection stays open after the failure")
    print("# expired: JSON error, then 0x01: SASL_AUTHENTICATION_FAILED %s" % msg)

    c = Conn()
    c.handshake()
    err, msg, ab, life = c.auth(first(jws({"sub": "alice", "exp": now + 100, "iat": now})))
    if err != 0 or ab != b"" or not 90000 < life <= 100000:
        fail("good token: got %d %r %r lifetime %d" % (err, msg, ab, life))
    print("# good token: session lifetime %d ms (exp - now)" % life)

    c = Conn()
    c.handshake()
    err, msg, _, _ = c.auth(first(jws({"sub": "alice", "exp": now + 100}), "bob"))
    want = ("Authentication failed: Client requested an authorization id (bob) "
            "that is different from the token's principal name (alice)")
    if (err, msg) != (58, want):
        fail("authzid: got %d %r" % (err, msg))
    print("# authzid bob: %s" % msg)

    c = Conn()
    c.handshake()
    err, msg, _, _ = c.auth(b"n,,\x01auth=Bearer\x01\x01")
    if (err, msg) != (58, GENERIC):
        fail("malformed: got %d %r" % (err, msg))
    print("# malformed first message: %s" % msg)


def reauth(max_ms):
    now = time.time()
    for exp, lo, hi in ((now + 3600, max_ms, max_ms), (now + 2, 1000, 2000)):
        c = Conn()
        c.handshake()
        err, msg, ab, life = c.auth(first(jws({"sub": "alice", "exp": exp})))
        if err != 0 or not lo <= life <= hi:
            fail("exp in %d s: got %d %r lifetime %d, want %d..%d"
                 % (exp - now, err, msg, life, lo, hi))
        print("# token expiring in %d s: session lifetime %d ms" % (exp - now, life))


if sys.argv[2] == "unsecured":
    unsecured()
else:
    reauth(int(sys.argv[3]))
