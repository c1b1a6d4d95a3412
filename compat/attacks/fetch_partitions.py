#!/usr/bin/python3
"""Attack: one Fetch naming a great many partitions, alternating between
two topics, so that every partition starts a topic of the answer.

An answer's partitions were kept per topic in arrays sized for all the
partitions left, so a request of n partitions in n topic runs asked for
n^2 / 2 entries of memory (and touched a page of each): a 1.3 MB request
of 60000 partitions took 260 MB. Kafka bounds a request by
socket.request.max.bytes only; so must the answer be, linearly.

    fetch_partitions.py [PARTITIONS [ROUNDS]]

Fetch v4 and v3 (down-converted) naming PARTITIONS (default 200000)
partitions of two topics, alternately (half of them exist, with a record
each; the others are unknown), ROUNDS times each (default 2). Checks,
besides harness.run()'s bounds: every answer names every partition once,
each existing one with its record."""

import multiprocessing
import os
import sys

import harness
from harness import Client, fail, ok, wait_topic
from kpy_raw import v2_batch

from kafka.protocol.admin import CreateTopicsRequest
from kafka.protocol.fetch import FetchRequest
from kafka.protocol.produce import ProduceRequest

PARTITIONS = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
# about 400 bytes a partition named: the request, its decoding, the
# partitions to read and the answer (decoded and encoded), all linear
RSS_MB = int(os.environ.get("ATTACK_RSS_MB", "160"))
LATENCY_MS = int(os.environ.get("ATTACK_LATENCY_MS", "500"))
TOPIC = "attack-fetch-parts-%d" % os.getpid()
OTHER = TOPIC + "-unknown"
REAL = 8  # partitions of TOPIC that exist


def attacker(q):
    try:
        q.put(fetches())
    except SystemExit:
        q.put(None)


def attack():
    # a process, not a thread: encoding the requests must not hold the
    # well-behaved client's interpreter lock (what it measures is the
    # broker)
    q = multiprocessing.Queue()
    p = multiprocessing.Process(target=attacker, args=(q,))
    p.start()
    out = q.get()
    p.join()
    if out is None:
        fail("fetch-partitions: the attacker failed")
    return out


def fetches():
    c = Client("attacker", timeout=120)
    topics = []
    for i in range(PARTITIONS):
        if i % 2 == 0:
            topics.append((TOPIC, [(i // 2 if i // 2 < REAL else REAL + i, 0, 1024)]))
        else:
            topics.append((OTHER, [(i, 0, 1024)]))
    answers = 0
    for r in range(ROUNDS):
        for ver in (4, 3):
            req = FetchRequest[ver](-1, 0, 1, 1 << 20, *(([0] if ver >= 4 else []) + [topics]))
            try:
                resp = c.send(req)
            except (OSError, EOFError) as e:
                fail("Fetch v%d of %d partitions: %s: %s"
                     % (ver, PARTITIONS, type(e).__name__, e))
            got = sum(len(parts) for _, parts in resp.topics)
            if got != PARTITIONS or len(resp.topics) != PARTITIONS:
                fail("Fetch v%d: %d partitions in %d topics answered, want %d"
                     % (ver, got, len(resp.topics), PARTITIONS))
            with_data = sum(1 for t, parts in resp.topics if t == TOPIC
                            for p in parts if p[1] == 0 and p[-1])
            if with_data < REAL:
                fail("Fetch v%d: %d partitions with records, want %d"
                     % (ver, with_data, REAL))
            answers += 1
    c.close()
    return {"partitions": PARTITIONS, "answers": answers}


def main():
    c = Client("setup", timeout=30)
    r = c.send(CreateTopicsRequest[0]([(TOPIC, REAL, 1, [], [])], 10000))
    if r.topic_errors[0][1] != 0:
        fail("CreateTopics %s: error %d" % (TOPIC, r.topic_errors[0][1]))
    wait_topic(c, TOPIC)
    for p in range(REAL):
        r = c.send(ProduceRequest[3](transactional_id=None, required_acks=1,
                                     timeout=10000,
                                     topics=[(TOPIC, [(p, v2_batch([b"x"]))])]))
        if r.topics[0][1][0][1] != 0:
            fail("Produce: error %d" % r.topics[0][1][0][1])
    c.close()
    fig = harness.run("fetch-partitions", attack, rss_mb=RSS_MB,
                      latency_ms=LATENCY_MS)
    ok("fetch-partitions: %d answers of %d partitions each"
       % (fig["answers"], PARTITIONS))


if __name__ == "__main__":
    main()
