#!/usr/bin/python3
"""Attack: many connections queueing down-converted fetches (Fetch v0-v2
of everything) while a well-behaved v1 consumer reads a little.

Fetch v0-v3 answers are converted by a worker, one job at a time. Jobs
ran whole, in the order they came: a consumer behind 8 attackers asking
for 55 MiB each waited for all of their conversions (4.7-5.7 s). And a
job past the files one response may hold (max_held_files) read its
partitions on arrival, keeping the data while it waited.

    fetch_queue.py fair [CONNS [ROUNDS [MIB]]]
    fetch_queue.py held [CONNS [ROUNDS [PARTITIONS]]]

fair: a partition of MIB MiB (default 160) of 1000-byte records in 1 MiB
batches; CONNS connections (default 8; Fetch v0, v1, v2 in turn) fetch it
all from offset 0 ROUNDS times (default 3) while a v1 consumer (Fetch v1
of 64 KiB from its own topic, 20 records, every 20 ms) times each fetch:
its worst stays within CONSUMER_MS (default 250, made generous as the
harness's bounds: harness.bound_ms).

held: a topic of PARTITIONS partitions (default 300, more than the 256
files one response holds at most) of 192 KiB each; CONNS connections
(default 20) fetch all of them with Fetch v0 ROUNDS times (default 2):
the broker's peak RSS stays within the answers (one per connection, at
most fetch.max.bytes each) and the slack of the conversions under way.

Checks, besides harness.run()'s bounds: every attacker's answers carry
records without error; every consumer fetch gets its records."""

import multiprocessing
import os
import socket
import struct
import sys
import time

import harness
from harness import Client, fail, ok, wait_topic
from harness import check_attackers, recv_exact, run_attackers, send_request
from kpy_raw import v2_batch

from kafka.protocol.admin import CreateTopicsRequest
from kafka.protocol.fetch import FetchRequest
from kafka.protocol.produce import ProduceRequest
from kafka.record.memory_records import MemoryRecords

MODE = sys.argv[1] if len(sys.argv) > 1 else "fair"
CONNS = int(sys.argv[2]) if len(sys.argv) > 2 else (8 if MODE == "fair" else 20)
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else (3 if MODE == "fair" else 2)
SIZE = int(sys.argv[4]) if len(sys.argv) > 4 else (160 if MODE == "fair" else 300)
FETCH_MAX = int(os.environ.get("FETCH_MAX_BYTES", "57671680"))
CONSUMER_MS = int(os.environ.get("CONSUMER_MS", "250"))
TOPIC = "attack-fetch-queue-%d" % os.getpid()
MINE = TOPIC + "-consumer"


def produce(c, topic, partition, batch):
    resp = c.send(ProduceRequest[3](
        transactional_id=None, required_acks=1, timeout=30000,
        topics=[(topic, [(partition, batch)])]))
    err = resp.topics[0][1][0][1]
    if err != 0:
        fail("filling %s-%d: Produce error %d" % (topic, partition, err))


def fill():
    c = Client("filler", timeout=60)
    if MODE == "fair":
        wait_topic(c, TOPIC)
        batch = v2_batch([b"v" * 1000 for _ in range((1 << 20) // 1100)])
        for _ in range(SIZE * (1 << 20) // len(batch)):
            produce(c, TOPIC, 0, batch)
        wait_topic(c, MINE)
        produce(c, MINE, 0, v2_batch([b"mine-%d" % i for i in range(20)]))
    else:
        r = c.send(CreateTopicsRequest[0]([(TOPIC, SIZE, 1, [], [])], 10000))
        if r.topic_errors[0][1] != 0:
            fail("CreateTopics %s: error %d" % (TOPIC, r.topic_errors[0][1]))
        wait_topic(c, TOPIC)
        batch = v2_batch([b"v" * 1000 for _ in range(64 * 1024 // 1100)])
        for p in range(SIZE):
            for _ in range(3):
                produce(c, TOPIC, p, batch)
    c.close()


def recv_into(s, buf, n):
    """n bytes into buf (grown as needed, kept for the next answer)."""
    if len(buf) < n:
        buf.extend(bytes(n - len(buf)))
    view = memoryview(buf)
    got = 0
    while got < n:
        k = s.recv_into(view[got:n], n - got)
        if k == 0:
            raise EOFError("connection closed by the broker")
        got += k
    return view[:n]


def partitions(data, ver):
    """(error, message set bytes) of each partition of a Fetch v0-v2
    answer, read by hand: decoding 55 MiB with kafka-python would make
    the attackers' CPU what the consumer measures."""
    off = 4 + (4 if ver >= 1 else 0)
    (ntopics,) = struct.unpack_from(">i", data, off)
    off += 4
    for _ in range(ntopics):
        (nlen,) = struct.unpack_from(">h", data, off)
        off += 2 + nlen
        (nparts,) = struct.unpack_from(">i", data, off)
        off += 4
        for _ in range(nparts):
            _, err, _, n = struct.unpack_from(">ihqi", data, off)
            off += 18 + n
            yield err, n


def attacker(i, q):
    """One attacking connection: Fetch of everything, ROUNDS times; each
    answer read whole and its partitions' errors and bytes noted."""
    ver = i % 3 if MODE == "fair" else 0
    parts = [0] if MODE == "fair" else list(range(SIZE))
    s = socket.create_connection((harness.HOST, int(harness.PORT)), timeout=300)
    out = {"bytes": [], "errors": set(), "worst": 0.0}
    buf = bytearray()
    try:
        for r in range(ROUNDS):
            req = FetchRequest[ver](-1, 0, 0, [(TOPIC, [(p, 0, 0x7fffffff)
                                                        for p in parts])])
            t0 = time.monotonic()
            send_request(s, req, r + 1)
            size = struct.unpack(">i", recv_exact(s, 4))[0]
            data = recv_into(s, buf, size)
            out["worst"] = max(out["worst"], time.monotonic() - t0)
            total = 0
            for err, n in partitions(data, ver):
                out["errors"].add(err)
                total += n
            out["bytes"].append(total)
    except (OSError, EOFError) as e:
        out = {"error": "%s: %s" % (type(e).__name__, e)}
    finally:
        s.close()
    q.put((i, out))


def consumer(q, stop):
    """The well-behaved v1 consumer: 64 KiB of its own topic every 20 ms."""
    c = Client("v1-consumer", timeout=60)
    lat, n = [], 0
    try:
        while not stop.is_set():
            req = FetchRequest[1](-1, 0, 1, [(MINE, [(0, 0, 65536)])])
            t0 = time.monotonic()
            resp = c.send(req)
            lat.append(time.monotonic() - t0)
            p = resp.topics[0][1][0]
            recs = MemoryRecords(p[-1])
            got = 0
            while True:
                b = recs.next_batch()
                if b is None:
                    break
                got += sum(1 for _ in b)
            if p[1] != 0 or got != 20:
                q.put({"error": "Fetch v1: error %d, %d records" % (p[1], got)})
                return
            n += 1
            stop.wait(0.02)
    except Exception as e:
        q.put({"error": "%s: %s" % (type(e).__name__, e)})
        return
    q.put({"fetches": n, "worst": max(lat or [0.0])})


def attack():
    # processes, not threads: the attackers must not hold the
    # well-behaved clients' interpreter lock (what they measure is the
    # broker)
    cq = multiprocessing.Queue()
    stop = multiprocessing.Event()
    cons = None
    if MODE == "fair":
        cons = multiprocessing.Process(target=consumer, args=(cq, stop))
        cons.start()
        time.sleep(0.3)
    out = run_attackers(attacker, CONNS)
    fig = {}
    if cons is not None:
        stop.set()
        co = cq.get()
        cons.join()
        if "error" in co:
            fail("fetch-queue: the v1 consumer: %s" % co["error"])
        fig["consumer_fetches"] = co["fetches"]
        fig["consumer_worst_ms"] = round(co["worst"] * 1000, 1)
    check_attackers(out)
    sizes = [b for o in out for b in o["bytes"]]
    fig.update({"answers": len(sizes),
                "answer_max_mib": round(max(sizes) / 2**20, 1),
                "answer_min_mib": round(min(sizes) / 2**20, 1),
                "attacker_worst_s": round(max(o["worst"] for o in out), 2),
                "errors": sorted(set(e for o in out for e in o["errors"]))})
    return fig


def main():
    t0 = time.monotonic()
    fill()
    ok("fetch-queue %s: filled in %.1f s" % (MODE, time.monotonic() - t0))
    # the answers each connection holds (at most fetch.max.bytes and a
    # batch each) and the slack of the conversions under way
    rss = int(os.environ.get("ATTACK_RSS_MB", str(
        (CONNS + 2) * FETCH_MAX // (1 << 20) if MODE == "fair"
        else CONNS * min(FETCH_MAX, SIZE * 192 << 10) // (1 << 20) + 160)))
    fig = harness.run("fetch-queue-" + MODE, attack, rss_mb=rss,
                      latency_ms=int(os.environ.get("ATTACK_LATENCY_MS", "250")))
    if fig["errors"] != [0]:
        fail("fetch-queue: partition errors %r" % fig["errors"])
    if fig["answer_min_mib"] <= 0:
        fail("fetch-queue: an answer without records")
    if MODE == "fair" and os.environ.get("GR_SOAK") == "1":
        ok("fetch-queue: the v1 consumer's %d fetches, worst %.0f ms "
           "(bounded by the soak)" % (fig["consumer_fetches"],
                                      fig["consumer_worst_ms"]))
    elif MODE == "fair":
        if fig["consumer_worst_ms"] > harness.bound_ms(CONSUMER_MS):
            fail("fetch-queue: the v1 consumer waited %.0f ms (bound %.0f ms)"
                 % (fig["consumer_worst_ms"], harness.bound_ms(CONSUMER_MS)))
        ok("fetch-queue: the v1 consumer's %d fetches, worst %.0f ms (bound "
           "%.0f ms), behind %d connections converting"
           % (fig["consumer_fetches"], fig["consumer_worst_ms"],
              harness.bound_ms(CONSUMER_MS), CONNS))
    ok("fetch-queue %s: %d answers of %.1f-%.1f MiB"
       % (MODE, fig["answers"], fig["answer_min_mib"], fig["answer_max_mib"]))


if __name__ == "__main__":
    main()
