#!/usr/bin/python3
"""Attack: Fetch v0-v2 asking for everything (INT32_MAX bytes per partition)
from a big partition, from several connections at once.

Fetch v0-v3 answers are down-converted to legacy message sets in memory.
Unbounded, each answer is the whole partition read, converted and copied
on the event loop: gigabytes of memory and seconds during which no other
client is served. Kafka's broker caps every answer at fetch.max.bytes
(default 57671680; KafkaApis.handleFetchRequest takes the smaller of the
request's max_bytes, Int.MaxValue below v3, and fetch.max.bytes), and the
conversion must run off the loop.

    fetch_memory.py [MIB [CONNS [ROUNDS]]]

fills a partition with MIB MiB (default 160) of 1000-byte records in
1 MiB batches, then CONNS connections (default 4; Fetch v0, v1, v2 in
turn) each fetch it from offset 0 ROUNDS times (default 3), reading every
answer. Checks, besides harness.run()'s bounds: every answer is within
fetch.max.bytes (FETCH_MAX_BYTES, default Kafka's) plus one batch, and
carries records."""

import os
import socket
import struct
import sys
import time

import harness
from harness import Client, fail, ok, wait_topic
from harness import check_attackers, recv_exact, run_attackers, send_request
from kpy_raw import v2_batch

from kafka.protocol.fetch import FetchRequest
from kafka.protocol.produce import ProduceRequest

MIB = int(sys.argv[1]) if len(sys.argv) > 1 else 160
CONNS = int(sys.argv[2]) if len(sys.argv) > 2 else 4
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
FETCH_MAX = int(os.environ.get("FETCH_MAX_BYTES", "57671680"))
# what the design allows: each connection's answer being written (one
# each), and the conversion under way (its slices and its records), each
# at most fetch.max.bytes: (CONNS + 2) * 55 MiB
RSS_MB = int(os.environ.get("ATTACK_RSS_MB",
                            str((CONNS + 2) * FETCH_MAX // (1 << 20))))
LATENCY_MS = int(os.environ.get("ATTACK_LATENCY_MS", "250"))
TOPIC = "attack-fetch-mem-%d" % os.getpid()
BATCH = 1 << 20


def fill():
    c = Client("filler", timeout=60)
    wait_topic(c, TOPIC)
    batch = v2_batch([b"v" * 1000 for _ in range(BATCH // 1100)])
    for _ in range(MIB * (1 << 20) // len(batch)):
        resp = c.send(ProduceRequest[3](
            transactional_id=None, required_acks=1, timeout=30000,
            topics=[(TOPIC, [(0, batch)])]))
        err = resp.topics[0][1][0][1]
        if err != 0:
            fail("filling %s: Produce error %d" % (TOPIC, err))
    c.close()
    return len(batch)


def fetcher(i, out):
    """One attacking connection: Fetch v(i % 3) of everything, ROUNDS times;
    the answers are read and dropped as they arrive."""
    ver = i % 3
    s = socket.create_connection((harness.HOST, int(harness.PORT)), timeout=120)
    sizes, errors, worst = [], [], 0.0
    try:
        for r in range(ROUNDS):
            req = FetchRequest[ver](-1, 0, 0, [(TOPIC, [(0, 0, 0x7fffffff)])])
            t0 = time.monotonic()
            send_request(s, req, r + 1)
            head = recv_exact(s, 4)
            size = struct.unpack(">i", head)[0]
            # correlation id, throttle_time_ms (v1+), [topic: name,
            # [partition, error, hw, message set size]]
            off = 4 + (4 if ver >= 1 else 0) + 4 + 2 + len(TOPIC) + 4 + 4
            first = recv_exact(s, min(size, off + 2 + 8 + 4))
            err = struct.unpack(">h", first[off:off + 2])[0]
            mset = struct.unpack(">i", first[off + 10:off + 14])[0]
            drain(s, size - len(first))
            worst = max(worst, time.monotonic() - t0)
            sizes.append(mset)
            errors.append(err)
    except (OSError, EOFError) as e:
        out[i] = {"error": "%s: %s" % (type(e).__name__, e)}
        return
    finally:
        s.close()
    out[i] = {"sizes": sizes, "errors": errors, "worst": worst, "ver": ver}


def drain(s, n):
    buf = bytearray(1 << 20)
    view = memoryview(buf)
    while n > 0:
        got = s.recv_into(view, min(n, len(buf)))
        if got == 0:
            raise EOFError("connection closed by the broker")
        n -= got


def attacker(i, q):
    out = {}
    fetcher(i, out)
    q.put((i, out[i]))


def attack():
    out = run_attackers(attacker, CONNS)
    check_attackers(out)
    sizes = [s for o in out for s in o["sizes"]]
    return {"answers": len(sizes), "answer_max_mib": round(max(sizes) / 2**20, 1),
            "answer_min_mib": round(min(sizes) / 2**20, 1),
            "attacker_worst_s": round(max(o["worst"] for o in out), 2),
            "errors": sorted(set(e for o in out for e in o["errors"]))}


def main():
    t0 = time.monotonic()
    batch = fill()
    ok("fetch-memory: %d MiB in %d-byte batches stored in %.1f s"
       % (MIB, batch, time.monotonic() - t0))
    fig = harness.run("fetch-memory", attack, rss_mb=RSS_MB,
                      latency_ms=LATENCY_MS)
    if fig["errors"] != [0]:
        fail("fetch-memory: partition errors %r" % fig["errors"])
    if fig["answer_min_mib"] <= 0:
        fail("fetch-memory: an answer without records")
    # the cap, plus a batch (the first is always given whole) and the
    # legacy framing's growth of one converted batch
    if fig["answer_max_mib"] * 2**20 > FETCH_MAX + 2 * batch:
        fail("fetch-memory: an answer of %.1f MiB passes fetch.max.bytes=%d"
             % (fig["answer_max_mib"], FETCH_MAX))
    ok("fetch-memory: %d answers, each at most %.1f MiB (fetch.max.bytes %d)"
       % (fig["answers"], fig["answer_max_mib"], FETCH_MAX))


if __name__ == "__main__":
    main()
