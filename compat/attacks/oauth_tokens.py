#!/usr/bin/python3
"""Hostile OAUTHBEARER tokens (compat/attacks/scenarios.sh
s_attack_oauth_tokens), on compat/attacks/harness.py while the
well-behaved client works on the PLAINTEXT listener.

CONNS connections to the SASL_PLAINTEXT listener ($GR_OAUTH_PORT), for
SECS seconds, each: SaslHandshake v1 OAUTHBEARER, then SaslAuthenticate v2
with an unsecured token of ~480 KB (sasl.server.max.receive.size is 512
KiB) whose claims hold an array of 180,000 numbers (the costliest JSON per
byte to decode: 43 ms of the loop for this one) and an exp in the past.
Then the next token at once, on the same connection, as a client retrying
would; when the broker ends the exchange instead (SASL_AUTHENTICATION_
FAILED, then the connection closed), a new connection.

Kafka decodes every such token and every retry (OAuthBearerSaslServer
starts again on any message but 0x01), so each connection keeps the loop
decoding back to back. Gregor refuses a token above 64 KiB
(GR_OAUTH_MAX_TOKEN_BYTES) before decoding it and validates one token
per exchange (RFC 7628: after the error the client sends 0x01), each
failed exchange costing the attacker the failure delay
(connection.failed.authentication.delay.ms) and a new connection. The
figures: tokens refused with the JSON error, the broker's CPU.

    oauth_tokens.py [CONNS [SECS]]      (default 8 connections, 5 s)"""

import base64
import json
import os
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import fail, ok  # noqa: E402
from kpy_raw import SaslConn  # noqa: E402

CONNS = int(sys.argv[1]) if len(sys.argv) > 1 else 8
SECS = float(sys.argv[2]) if len(sys.argv) > 2 else 5.0
HOST = os.environ.get("GR_OAUTH_HOST", "127.0.0.1")
PORT = int(os.environ["GR_OAUTH_PORT"])
# Bounds: the broker holds each connection's frame (8 x 0.5 MB) and
# decodes none of them; measured before (Kafka's way: every token and
# retry decoded) +28.0 MiB, the well-behaved client's worst 716 ms, 4.3 s
# of CPU in 5 s; after +4.7-5.1 MiB, 6-66 ms, 0.4 s
RSS_MB = 64
LATENCY_MS = 250


def b64(x):
    return base64.urlsafe_b64encode(x).rstrip(b"=")


def token():
    claims = b'{"sub":"x","exp":1,"a":[' + b",".join([b"0"] * 180000) + b"]}"
    return b64(b'{"alg":"none"}') + b"." + b64(claims) + b"."


TOKEN = token()
FIRST = b"n,,\x01auth=Bearer " + TOKEN + b"\x01\x01"


def connect():
    """A connection past SaslHandshake v1 OAUTHBEARER."""
    c = SaslConn(HOST, PORT, "attack", nodelay=True)
    if c.handshake("OAUTHBEARER") != 0:
        raise ValueError("SaslHandshake refused OAUTHBEARER")
    return c


def auth(c, data):
    """The error code of a SaslAuthenticate v2 and whether the JSON
    error came back (as auth bytes, or as the message)."""
    err, msg, ab, _ = c.authenticate(data)
    return err, b"invalid_token" in ab or "invalid_token" in (msg or "")


def attack():
    end = time.monotonic() + SECS
    counts = {"refused": 0, "failed": 0, "connections": 0, "other": 0}
    lock = threading.Lock()

    def one():
        while time.monotonic() < end:
            try:
                c = connect()
                with lock:
                    counts["connections"] += 1
                while time.monotonic() < end:
                    err, challenged = auth(c, FIRST)
                    with lock:
                        if err == 0 and challenged:
                            counts["refused"] += 1
                        elif err == 58:
                            counts["failed"] += 1
                        else:
                            counts["other"] += 1
                    if err != 0:
                        break
                c.s.close()
            except (EOFError, OSError, ValueError, IndexError, struct.error):
                with lock:
                    counts["other"] += 1
                time.sleep(0.01)
    ts = [threading.Thread(target=one, daemon=True) for _ in range(CONNS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(SECS + 30)
    if counts["refused"] == 0:
        fail("no token was refused with the JSON error: %s" % counts)
    return {"tokens_refused": counts["refused"],
            "exchanges_failed": counts["failed"],
            "connections": counts["connections"],
            "token_kb": len(TOKEN) // 1024}


figures = harness.run("oauth-tokens", attack, rss_mb=RSS_MB, latency_ms=LATENCY_MS)
ok("oauth-tokens: %d tokens refused on %d connections in %.0f s"
   % (figures["tokens_refused"], figures["connections"], SECS))
