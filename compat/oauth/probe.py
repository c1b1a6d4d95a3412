#!/usr/bin/python3
"""SASL/OAUTHBEARER frame by frame (built by hand with compat/kpy_raw.py's
SaslConn, which needs Debian's python3-kafka, as $PY in compat/run.sh):
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
import os
import sys
import time

HOST, PORT = sys.argv[1].rsplit(":", 1)
# compat/kpy_raw.py builds the SASL frames (and reads GR_BOOTSTRAP)
os.environ.setdefault("GR_BOOTSTRAP", sys.argv[1])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from kpy_raw import SaslConn  # noqa: E402
GENERIC = ("Authentication failed during authentication due to invalid "
           "credentials with SASL mechanism OAUTHBEARER")


def fail(m):
    print("FAIL:", m)
    sys.exit(1)


def b64(x):
    return base64.urlsafe_b64encode(x).rstrip(b"=")


def jws(claims):
    return (b64(b'{"alg":"none"}') + b"." + b64(json.dumps(claims).encode()) + b".").decode()


def connect():
    """A connection past SaslHandshake v1 OAUTHBEARER."""
    c = SaslConn(HOST, PORT, "probe")
    err = c.handshake("OAUTHBEARER")
    if err != 0:
        fail("SaslHandshake OAUTHBEARER: error %d" % err)
    return c


def first(token, authzid=""):
    return ("n,%s,\x01auth=Bearer %s\x01\x01"
            % ("a=" + authzid if authzid else "", token)).encode()


def unsecured():
    now = time.time()
    c = connect()
    err, msg, ab, life = c.authenticate(first(jws({"sub": "alice", "exp": now - 100})))
    if (err, ab) != (0, b'{"status":"invalid_token"}'):
        fail("expired token: want NONE with the JSON error, got %d %r %r" % (err, msg, ab))
    err, msg, ab, life = c.authenticate(b"\x01")
    if (err, msg) != (58, '{"status":"invalid_token"}'):
        fail("0x01 after the error: got %d %r" % (err, msg))
    if not c.closed():
        fail("the connection stays open after the failure")
    print("# expired: JSON error, then 0x01: SASL_AUTHENTICATION_FAILED %s" % msg)

    c = connect()
    err, msg, ab, life = c.authenticate(first(jws({"sub": "alice", "exp": now + 100, "iat": now})))
    if err != 0 or ab != b"" or not 90000 < life <= 100000:
        fail("good token: got %d %r %r lifetime %d" % (err, msg, ab, life))
    print("# good token: session lifetime %d ms (exp - now)" % life)

    c = connect()
    err, msg, _, _ = c.authenticate(first(jws({"sub": "alice", "exp": now + 100}), "bob"))
    want = ("Authentication failed: Client requested an authorization id (bob) "
            "that is different from the token's principal name (alice)")
    if (err, msg) != (58, want):
        fail("authzid: got %d %r" % (err, msg))
    print("# authzid bob: %s" % msg)

    c = connect()
    err, msg, _, _ = c.authenticate(b"n,,\x01auth=Bearer\x01\x01")
    if (err, msg) != (58, GENERIC):
        fail("malformed: got %d %r" % (err, msg))
    print("# malformed first message: %s" % msg)


def reauth(max_ms):
    now = time.time()
    for exp, lo, hi in ((now + 3600, max_ms, max_ms), (now + 2, 1000, 2000)):
        c = connect()
        err, msg, ab, life = c.authenticate(first(jws({"sub": "alice", "exp": exp})))
        if err != 0 or not lo <= life <= hi:
            fail("exp in %d s: got %d %r lifetime %d, want %d..%d"
                 % (exp - now, err, msg, life, lo, hi))
        print("# token expiring in %d s: session lifetime %d ms" % (exp - now, life))


if sys.argv[2] == "unsecured":
    unsecured()
else:
    reauth(int(sys.argv[3]))
