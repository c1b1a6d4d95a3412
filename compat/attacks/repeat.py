#!/usr/bin/python3
"""Requests that name one thing many times (compat/attacks/scenarios.sh
s_attack_metadata_repeat), each run on compat/attacks/harness.py while the
well-behaved client works:

  metadata     Metadata v1, v9 and v12 naming topic "a" 1,000,000 times
               (Kafka's most elements in an array): the answer describes
               it once (Kafka's handleTopicMetadataRequest takes a set)
  metadata-ids Metadata v12 naming 200,000 distinct unknown topic ids:
               each answered UNKNOWN_TOPIC_ID, found without comparing
               every id with every other (that held the loop 23 s)
  groups       DescribeGroups v0 naming a stable group whose member has
               1,000 bytes of metadata and of assignment 500,000 times:
               Kafka describes each entry, a 1 GB answer; Gregor refuses
               an answer above socket.request.max.bytes (connection closed)
  configs      DescribeConfigs v1 of broker 1 with synonyms, 100,000 times
               (650 MB of answer)
  offsets      OffsetFetch v1 of a partition committed with 4,000 bytes of
               metadata, 200,000 times (800 MB of answer)
  log-dirs     DescribeLogDirs v0 of partition 0 of "a" 1,000,000 times:
               described once (Kafka takes the partitions as a set)
  decode       DescribeConfigs v4 of 60 resources of 1,000,000 empty
               configuration keys each (60 MB; a key is one byte on the
               wire and 16 decoded: 960 MB): refused once its arrays pass
               socket.request.max.bytes (connection closed)

`repeat.py NAME...` runs those named (default: all). Each checks its
answer (or the closed connection) and the harness's bounds."""

import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Client, fail, ok, wait_topic  # noqa: E402

from kafka.protocol.commit import GroupCoordinatorRequest  # noqa: E402
from kafka.protocol.commit import OffsetCommitRequest  # noqa: E402
from kafka.protocol.group import JoinGroupRequest  # noqa: E402
from kafka.protocol.group import SyncGroupRequest  # noqa: E402

# The bounds: the broker's RSS may grow by the request (up to 60 MB here),
# its decoded arrays and its answer (each at most socket.request.max.bytes,
# 100 MB, and far less for all but "decode"); the well-behaved client waits
# at most a quarter of a second, half a second behind the million-name
# Metadata requests (each holds the loop ~60 ms to decode and collapse:
# 122 ms was the worst wait measured on a quiet machine, 296 ms on a busy
# one; 387 ms before, 26.8 s behind the 200,000 ids)
RSS_MB = {"decode": 200}
RSS_MB_OTHERS = 128
LATENCY_MS = {"metadata": 500}
LATENCY_MS_OTHERS = 250
WRONG = []  # what an attack found wrong with its answer, failed after the
            # harness has printed the figures


def wrong(msg):
    WRONG.append(msg)


def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7f) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def raw(c, key, ver, body, flex_header):
    """Sends one request of body on c; returns (answer bytes, seconds), or
    (None, seconds) when the broker closed the connection instead."""
    c.corr += 1
    cid = c.client_id.encode()
    hdr = struct.pack(">hhih", key, ver, c.corr, len(cid)) + cid
    if flex_header:
        hdr += b"\x00"
    t0 = time.monotonic()
    c.s.sendall(struct.pack(">i", len(hdr) + len(body)) + hdr + body)
    try:
        size = struct.unpack(">i", c.read(4))[0]
        data = c.read(size)
    except (EOFError, ConnectionResetError):
        return None, time.monotonic() - t0
    if struct.unpack(">i", data[:4])[0] != c.corr:
        fail("correlation id of the answer")
    return data[4:], time.monotonic() - t0


def metadata():
    n = 1000000
    c = Client("attacker", timeout=120)
    wait_topic(c, "a")
    bodies = {
        1: struct.pack(">i", n) + b"\x00\x01a" * n,
        # compact array, compact name + tags; then allow_auto_topic_creation,
        # include_cluster_authorized_operations, include_topic_..., tags
        9: uvarint(n + 1) + b"\x02a\x00" * n + b"\x01\x00\x00\x00",
        # zero topic id, compact name, tags; allow_auto_topic_creation,
        # include_topic_authorized_operations, tags
        12: uvarint(n + 1) + (b"\x00" * 16 + b"\x02a\x00") * n + b"\x01\x00\x00",
    }
    seen = {}
    for ver, body in bodies.items():
        ans, secs = raw(c, 3, ver, body, ver >= 9)
        if ans is None:
            wrong("Metadata v%d naming \"a\" %d times: connection closed"
                  % (ver, n))
            continue
        if len(ans) > 4096:
            wrong("Metadata v%d naming \"a\" %d times: a %d-byte answer"
                  % (ver, n, len(ans)))
        seen["v%d_request_bytes" % ver] = len(body)
        seen["v%d_answer_bytes" % ver] = len(ans)
        seen["v%d_s" % ver] = round(secs, 2)
    c.close()
    return seen


def metadata_ids():
    n = 200000
    c = Client("attacker", timeout=120)
    body = uvarint(n + 1) + b"".join(os.urandom(16) + b"\x00\x00"
                                     for _ in range(n)) + b"\x01\x00\x00"
    ans, secs = raw(c, 3, 12, body, True)
    if ans is None:
        wrong("Metadata v12 of %d ids: connection closed" % n)
        return {}
    c.close()
    return {"request_bytes": len(body), "answer_bytes": len(ans),
            "answer_s": round(secs, 2)}


def stable_group(c, group, metadata_bytes):
    deadline = time.time() + 20
    while c.send(GroupCoordinatorRequest[0](group)).error_code != 0:
        if time.time() > deadline:
            fail("no coordinator for %s" % group)
        time.sleep(0.1)
    j = c.send(JoinGroupRequest[0](group, 30000, "", "consumer",
                                   [("range", b"m" * metadata_bytes)]))
    if j.error_code != 0:
        fail("JoinGroup: error %d" % j.error_code)
    s = c.send(SyncGroupRequest[0](group, j.generation_id, j.member_id,
                                   [(j.member_id, b"s" * metadata_bytes)]))
    if s.error_code != 0:
        fail("SyncGroup: error %d" % s.error_code)
    return j


def expect_refused(what, ans, secs, seen):
    """A repeated request's answer: refused (connection closed) or, if the
    broker builds it, counted."""
    seen["answer"] = "closed" if ans is None else "%d bytes" % len(ans)
    seen["answer_s"] = round(secs, 2)
    if ans is not None:
        wrong("%s: answered %d bytes, more than socket.request.max.bytes"
              % (what, len(ans)))
    return seen


def groups():
    n = 500000
    c = Client("attacker", timeout=300)
    stable_group(c, "g-repeat", 1000)
    body = struct.pack(">i", n) + (struct.pack(">h", 8) + b"g-repeat") * n
    ans, secs = raw(c, 15, 0, body, False)
    return expect_refused("DescribeGroups", ans, secs,
                          {"request_bytes": len(body)})


def configs():
    n = 100000
    c = Client("attacker", timeout=300)
    # resource: type BROKER (4), name "1", configuration_keys null;
    # include_synonyms true
    body = struct.pack(">i", n) + (b"\x04\x00\x011" + b"\xff\xff\xff\xff") * n + b"\x01"
    ans, secs = raw(c, 32, 1, body, False)
    return expect_refused("DescribeConfigs", ans, secs,
                          {"request_bytes": len(body)})


def offsets():
    n = 200000
    c = Client("attacker", timeout=300)
    wait_topic(c, "a")
    j = stable_group(c, "o-repeat", 10)
    r = c.send(OffsetCommitRequest[2]("o-repeat", j.generation_id, j.member_id,
                                      -1, [("a", [(0, 0, "x" * 4000)])]))
    if r.topics[0][1][0][1] != 0:
        fail("OffsetCommit: error %d" % r.topics[0][1][0][1])
    # group "o-repeat", topics: one, "a", partitions: 0 n times
    body = (struct.pack(">h", 8) + b"o-repeat" + struct.pack(">i", 1) +
            struct.pack(">h", 1) + b"a" + struct.pack(">i", n) +
            b"\x00\x00\x00\x00" * n)
    ans, secs = raw(c, 9, 1, body, False)
    return expect_refused("OffsetFetch", ans, secs,
                          {"request_bytes": len(body)})


def log_dirs():
    n = 1000000
    c = Client("attacker", timeout=120)
    wait_topic(c, "a")
    body = (struct.pack(">i", 1) + struct.pack(">h", 1) + b"a" +
            struct.pack(">i", n) + b"\x00\x00\x00\x00" * n)
    ans, secs = raw(c, 35, 0, body, False)
    if ans is None:
        wrong("DescribeLogDirs: connection closed")
        return {}
    if len(ans) > 4096:
        wrong("DescribeLogDirs of partition 0 %d times: a %d-byte answer"
              % (n, len(ans)))
    return {"request_bytes": len(body), "answer_bytes": len(ans),
            "answer_s": round(secs, 2)}


def decode():
    n, keys = 60, 1000000
    c = Client("attacker", timeout=300)
    # resource: type BROKER, name "1", keys: compact count, "" each, tags
    res = b"\x04\x021" + uvarint(keys + 1) + b"\x01" * keys + b"\x00"
    body = uvarint(n + 1) + res * n + b"\x00\x00\x00"
    ans, secs = raw(c, 32, 4, body, True)
    return expect_refused("DescribeConfigs of 60 million keys", ans, secs,
                          {"request_bytes": len(body)})


ATTACKS = {"metadata": metadata, "metadata-ids": metadata_ids,
           "groups": groups, "configs": configs, "offsets": offsets,
           "log-dirs": log_dirs, "decode": decode}


def main():
    names = sys.argv[1:] or list(ATTACKS)
    for name in names:
        if name not in ATTACKS:
            fail("unknown attack %s (%s)" % (name, " ".join(ATTACKS)))
        harness.run("repeat-" + name, ATTACKS[name],
                    rss_mb=RSS_MB.get(name, RSS_MB_OTHERS),
                    latency_ms=LATENCY_MS.get(name, LATENCY_MS_OTHERS))
        if WRONG:
            fail("repeat-%s: %s" % (name, "; ".join(WRONG)))
        ok("repeat-%s: answered as Kafka answers, or refused" % name)
    ok("repeat: %s" % " ".join(names))


if __name__ == "__main__":
    main()
