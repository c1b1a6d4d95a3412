#!/usr/bin/python3
"""controller_mutation_rate (KIP-599) seen from the wire, against a broker
(argv[1]) whose client id "mut" has controller_mutation_rate=2 with
controller.quota.window.num=3 (a bucket of 2 x 3 x 1 s = 6 partitions):
CreateTopics v6 and DeleteTopics v5 (strict) refuse a topic with
THROTTLING_QUOTA_EXCEEDED once the bucket is below zero and say how long
it needs; CreateTopics v4 (permissive) creates everything and answers
only the throttle time; the topics are created once it has refilled;
another client id is not throttled. Requests are encoded here (standard
library only, with compat/telemetry/raw.py's framing), so the versions are
the ones named. Exit 0 or 1."""

import os
import struct
import sys
import time

os.environ["GR_BOOTSTRAP"] = sys.argv[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "telemetry"))
from raw import T, cstr, uvarint  # noqa: E402
import raw  # noqa: E402

TAG = "mq-%d-" % (int(time.time()) % 100000)
THROTTLED = 89
WRONG = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        WRONG.append(what)


def Conn(client_id):
    """A connection (telemetry/raw.py's framing) without ApiVersions."""
    return raw.Conn(client_id, software=None)


def string(r):
    n = r.i16()
    return None if n < 0 else r.take(n).decode()


def create(conn, ver, topics, validate_only=False):
    """CreateTopics v4 or v6 of (name, partitions): (throttle, {name: err})."""
    if ver >= 5:
        body = uvarint(len(topics) + 1)
        for name, n in topics:
            body += cstr(name) + struct.pack(">ih", n, 1) + b"\x01\x01" + T
        body += struct.pack(">i?", 30000, validate_only) + T
    else:
        body = struct.pack(">i", len(topics))
        for name, n in topics:
            b = name.encode()
            body += struct.pack(">h", len(b)) + b + struct.pack(">ihii", n, 1, 0, 0)
        body += struct.pack(">i?", 30000, validate_only)
    flexible = ver >= 5
    r = conn.call(19, ver, body, hver=1 if flexible else 0, flexible=flexible)
    throttle, out = r.i32(), {}
    if flexible:
        for _ in range(r.uv() - 1):
            name = r.cstr()
            if ver >= 7:
                r.take(16)
            out[name] = r.i16()
            r.cstr()
            r.i32(), r.i16()
            r.carray(lambda r: (r.cstr(), r.cstr(), r.take(3), r.tags()))
            r.tags()
    else:
        for _ in range(r.i32()):
            name = string(r)
            out[name] = r.i16()
            string(r)
    return throttle, out


def delete(conn, names):
    """DeleteTopics v5: (throttle, {name: err})."""
    body = uvarint(len(names) + 1) + b"".join(cstr(n) for n in names)
    body += struct.pack(">i", 30000) + T
    r = conn.call(20, 5, body)
    throttle, out = r.i32(), {}
    for _ in range(r.uv() - 1):
        name = r.cstr()
        out[name] = r.i16()
        r.cstr()
        r.tags()
    return throttle, out


def main():
    a, b, c, d, e, f = (TAG + x for x in "abcdef")
    # the quota was just set (Kafka's controller has it once committed);
    # a full bucket of 6 takes 3 then 4 (only a bucket already below zero
    # refuses) and is left at -1
    time.sleep(1)
    conn = Conn("mut")
    t, res = create(conn, 6, [(a, 3), (b, 4), (c, 1)])
    conn.close()
    check(res == {a: 0, b: 0, c: THROTTLED},
          "v6: the topic after the bucket is used up is refused %r" % res)
    # -1 token at 2 a second: 500 ms, less what passed since
    check(200 <= t <= 500, "v6: throttle_time_ms %d (500 at most)" % t)
    time.sleep(t / 1000 + 0.3)
    conn = Conn("mut")
    t, res = create(conn, 6, [(c, 1)])
    check(res == {c: 0} and t == 0, "v6: created once refilled %r %d" % (res, t))
    # permissive: all created however far below zero, and told how long
    t, res = create(conn, 4, [(d, 10), (e, 2)])
    check(res == {d: 0, e: 0}, "v4: every topic created %r" % res)
    check(5500 <= t <= 6500, "v4: throttle_time_ms %d (about 6200)" % t)
    conn.close()
    # the client id's bucket, whatever the connection: DeleteTopics v5
    conn = Conn("mut")
    t2, res = delete(conn, [a, b])
    check(res == {a: THROTTLED, b: THROTTLED},
          "v5 DeleteTopics: refused below zero %r" % res)
    check(4000 <= t2 <= t, "v5 DeleteTopics: throttle_time_ms %d" % t2)
    t3, res = create(Conn("mut"), 6, [(f, 1)])
    check(res == {f: THROTTLED} and t3 > 4000,
          "v6: refused on another connection %r %d" % (res, t3))
    # another client id has no quota
    t4, res = create(Conn("free"), 6, [(f, 20)])
    check(res == {f: 0} and t4 == 0, "another client id: no quota %r %d" % (res, t4))
    # back at zero, then 3 more for a to leave b a bucket not below zero
    time.sleep(t2 / 1000 + 2.0)
    t, res = delete(conn, [a, b])
    check(res == {a: 0, b: 0}, "v5 DeleteTopics: deleted once refilled %r" % res)
    conn.close()
    delete(Conn("free"), [c, d, e, f])
    if WRONG:
        print("%d checks failed" % len(WRONG))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
