#!/usr/bin/python3
"""connection_creation_rate (KIP-612) on IP entities, seen from raw sockets,
against a broker (argv[1], on 127.0.0.1) started with quota.window.num=3
(a rate measured over at least 2 s, so a burst of 2 x the rate goes
through first). The quotas are set with AlterClientQuotas v1 encoded here.

  127.0.0.1 at 2 a second: of 6 connections opened at once, 4 are
  answered; the 5th and 6th are accepted, never answered and closed
  about 500 ms later (Kafka: (5 / 2.0 s - 2) / 2 x 2 s, bounded by
  quota.window.size.seconds); once the rate is back under 2 a new one is
  answered. 127.0.0.2, with no quota, is answered every time meanwhile.
  With the default IP entity at 1 a second, 127.0.0.2 is answered twice
  and then throttled; 127.0.0.1 keeps its own quota.

Exit 0 or 1."""

import os
import socket
import struct
import sys
import time

os.environ["GR_BOOTSTRAP"] = sys.argv[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "telemetry"))
from raw import T, carray, cstr  # noqa: E402
import raw  # noqa: E402

HOST, PORT = sys.argv[1].split(",")[0].rsplit(":", 1)
WRONG = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        WRONG.append(what)


def set_ip_quota(ip, rate):
    """AlterClientQuotas v1: ip (None: the default IP entity) to rate."""
    c = raw.Conn.__new__(raw.Conn)  # from 127.0.0.3, under no quota
    c.s, _ = opened("127.0.0.3", api_versions=False)
    c.corr, c.client_id = 0, "ip-admin"
    entity = carray([cstr("ip") + cstr(ip) + T])
    ops = carray([cstr("connection_creation_rate") + struct.pack(">d?", rate, False) + T])
    r = c.call(49, 1, carray([entity + ops + T]) + struct.pack(">?", False) + T)
    r.i32()
    res = r.carray(lambda r: (r.i16(), r.cstr(), r.carray(
        lambda r: (r.cstr(), r.cstr(), r.tags())), r.tags()))
    c.close()
    time.sleep(0.3)  # Kafka's broker applies the controller's record after the answer
    check(res[0][0] == 0, "ip %s connection_creation_rate=%d set (%s)" % (ip, rate, res[0][:2]))


def opened(src, api_versions=True):
    """A connection from src with an ApiVersions v0 sent on it."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.connect((HOST, int(PORT)))
    if not api_versions:
        return s, time.monotonic()
    hdr = struct.pack(">hhih", 18, 0, 1, 5) + b"ipqta"
    s.sendall(struct.pack(">i", len(hdr)) + hdr)
    return s, time.monotonic()


def outcome(conn, limit=4.0):
    """("answered", s) or ("closed", seconds after the connect)."""
    s, t0 = conn
    s.settimeout(limit)
    try:
        b = s.recv(4)
    except ConnectionResetError:
        b = b""
    except socket.timeout:
        return ("silent", limit)
    finally:
        s.close()
    if len(b) == 4:
        return ("answered", time.monotonic() - t0)
    return ("closed", time.monotonic() - t0)


def burst(src, n):
    conns = [opened(src) for _ in range(n)]
    return [outcome(c) for c in conns]


def main():
    set_ip_quota("127.0.0.1", 2)
    t0 = time.monotonic()
    got = burst("127.0.0.1", 6)
    print("# 127.0.0.1 burst of 6: %s" % ", ".join("%s %.0f ms" % (k, v * 1000) for k, v in got))
    check([k for k, _ in got] == ["answered"] * 4 + ["closed"] * 2,
          "127.0.0.1 at 2/s: 4 of 6 answered, then closed unanswered")
    check(all(0.2 <= v <= 2.0 for k, v in got if k == "closed"),
          "the throttled ones closed 0.2-2 s after their connect")
    others = burst("127.0.0.2", 8)
    check(all(k == "answered" for k, _ in others), "127.0.0.2 (no quota): 8 of 8 answered")
    # 4 kept and one more are within 2/s once the rate's window (at least
    # 2 s: 2 of the 3 samples) reaches 2.5 s, and until the first sample
    # expires at 3 s
    time.sleep(max(0, t0 + 2.6 - time.monotonic()))
    k, v = outcome(opened("127.0.0.1"))
    check(k == "answered", "127.0.0.1 answered again once under its rate (%s)" % k)
    set_ip_quota(None, 1)
    got = burst("127.0.0.2", 3)
    print("# 127.0.0.2 burst of 3 at the default 1/s: %s" % ", ".join(k for k, _ in got))
    check([k for k, _ in got] == ["answered", "answered", "closed"],
          "127.0.0.2 at the default 1/s: 2 answered, the 3rd closed unanswered")
    return 1 if WRONG else 0


if __name__ == "__main__":
    sys.exit(main())
