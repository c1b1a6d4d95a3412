#!/usr/bin/python3
"""Attack: an anonymous client opens fetch sessions (KIP-227) by the
thousand while a consumer's incremental session must survive.

A consumer long-polls an incremental session (Fetch v7, max_wait 500 ms,
as librdkafka and the Java client do by default), so it touches its
session twice a second. Evicting the least recently used session when
the cache (max.incremental.fetch.session.cache.slots, 1000) is full lets
an attacker that opens more than 1000 sessions in those 500 ms evict the
consumer's, which then gets FETCH_SESSION_ID_NOT_FOUND and must start
over with a full fetch. Kafka's FetchSessionCacheShard evicts only a
session unused for 120 s, or an old one smaller than the new one.

    fetch_sessions.py [SECONDS [CONNS]]

CONNS attacking connections (default 4) send full fetches with epoch 0
for SECONDS (default 5), 1 to 8 partitions each, 64 in flight each,
while the consumer (4 partitions) fetches incrementally; new records are
produced to it meanwhile and must reach it. Checks, besides
harness.run()'s bounds: the consumer's session answered every
incremental fetch (no error, the same session id), it received every
record produced, and the attacker got at most the cache's slots."""

import multiprocessing
import os
import socket
import struct
import sys
import threading
import time

import harness
from harness import Client, fail, ok, wait_topic
from kpy_raw import v2_batch

from kafka.protocol.admin import CreateTopicsRequest
from kafka.protocol.api import RequestHeader
from kafka.protocol.fetch import FetchRequest
from kafka.protocol.produce import ProduceRequest
from kafka.record.memory_records import MemoryRecords
from kafka.protocol.types import String

# kafka-python 2.0.2 declares forgotten_topics_data.topic of Fetch v7-v11 as
# the bare String class (as kpy_raw.py notes); the wire type is a string
for _v in range(7, 12):
    _s = FetchRequest[_v].SCHEMA
    _inner = _s.fields[list(_s.names).index("forgotten_topics_data")].array_of
    if not isinstance(_inner.fields[0], String):
        _inner.fields = (String("utf-8"),) + tuple(_inner.fields[1:])

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
CONNS = int(sys.argv[2]) if len(sys.argv) > 2 else 4
SLOTS = int(os.environ.get("FETCH_SESSION_SLOTS", "1000"))
RSS_MB = int(os.environ.get("ATTACK_RSS_MB", "64"))
LATENCY_MS = int(os.environ.get("ATTACK_LATENCY_MS", "250"))
TOPIC = "attack-fetch-sess-%d" % os.getpid()
NPARTS = 4
SESSION_NOT_FOUND = 70


def full_fetch(nparts, wait_ms=0):
    return FetchRequest[7](-1, wait_ms, 1, 1 << 20, 0, 0, 0,
                           [(TOPIC, [(p, 0, -1, 1 << 16) for p in range(nparts)])],
                           [])


def attacker(i, secs, q):
    """Full fetches with epoch 0 (each asks for a new session), 1 to 8
    partitions, 64 in flight on one connection, for secs; how many were
    sent and how many got a session."""
    # below the broker and the well-behaved client on the CPU: four
    # processes sending as fast as they are answered would otherwise take
    # the host's 2 cores from the client whose latency is measured, which
    # the second before the attack (the bound's noise) cannot show
    os.nice(10)
    s = socket.create_connection((harness.HOST, int(harness.PORT)), timeout=60)
    frames = []
    for k in range(8):
        req = full_fetch(1 + k)
        hdr = RequestHeader(req, correlation_id=k, client_id="attacker-%d" % i)
        body = hdr.encode() + req.encode()
        frames.append(struct.pack(">i", len(body)) + body)
    granted = 0
    sent = got = 0
    buf = bytearray()
    end = time.monotonic() + secs
    try:
        while got < sent or time.monotonic() < end:
            while time.monotonic() < end and sent - got < 64:
                s.sendall(frames[sent % 8])
                sent += 1
            chunk = s.recv(1 << 20)
            if not chunk:
                raise EOFError("connection closed by the broker")
            buf += chunk
            while len(buf) >= 4:
                size = struct.unpack(">i", buf[:4])[0]
                if len(buf) < 4 + size:
                    break
                # correlation id, throttle_time_ms, error_code, session_id
                err, sid = struct.unpack(">hi", buf[12:18])
                if err != 0:
                    raise ValueError("full fetch answered error %d" % err)
                granted += sid != 0
                del buf[:4 + size]
                got += 1
    except (OSError, EOFError, ValueError) as e:
        q.put((i, {"error": "%s: %s" % (type(e).__name__, e)}))
        return
    finally:
        s.close()
    q.put((i, {"granted": granted, "sent": sent}))


class Consumer(threading.Thread):
    """An incremental session over the topic's partitions, long-polling
    (500 ms) until stopped; records every error and the records read."""

    def __init__(self):
        super().__init__(daemon=True)
        self.c = Client("consumer", timeout=30)
        self.stop = threading.Event()
        self.errors = []
        self.fetches = 0
        self.values = []
        r = self.c.send(full_fetch(NPARTS))
        if r.error_code != 0 or r.session_id == 0:
            fail("the consumer's session: error %d id %d"
                 % (r.error_code, r.session_id))
        self.sid = r.session_id
        self.offsets = {p: 0 for p in range(NPARTS)}
        self.take(r)

    def take(self, r):
        for _, parts in r.topics:
            for p in parts:
                recs = MemoryRecords(p[-1])
                while True:
                    b = recs.next_batch()
                    if b is None:
                        break
                    for rec in b:
                        self.values.append(rec.value)
                        self.offsets[p[0]] = rec.offset + 1

    def run(self):
        epoch = 1
        moved = {}
        while not self.stop.is_set():
            # the partitions whose position moved, as a client sends them
            topics = [(TOPIC, [(p, o, -1, 1 << 16) for p, o in moved.items()])] \
                if moved else []
            try:
                r = self.c.send(FetchRequest[7](-1, 500, 1, 1 << 20, 0,
                                                self.sid, epoch, topics, []))
            except Exception as e:  # reported by the checks
                self.errors.append("%s: %s" % (type(e).__name__, e))
                return
            self.fetches += 1
            if r.error_code != 0 or r.session_id != self.sid:
                self.errors.append("incremental fetch %d: error %d, session "
                                   "%d (was %d)" % (epoch, r.error_code,
                                                    r.session_id, self.sid))
                return
            before = dict(self.offsets)
            self.take(r)
            moved = {p: o for p, o in self.offsets.items() if o != before[p]}
            epoch += 1


def attack(produced):
    def run():
        producer = Client("producer", timeout=30)
        q = multiprocessing.Queue()
        ps = [multiprocessing.Process(target=attacker,
                                      args=(i, SECONDS, q))
              for i in range(CONNS)]
        for p in ps:
            p.start()
        out = {}
        t_end = time.monotonic() + 120
        while len(out) < CONNS and time.monotonic() < t_end:
            # a record a tenth of a second for the consumer meanwhile
            v = b"for-the-consumer-%d" % len(produced)
            r = producer.send(ProduceRequest[3](
                transactional_id=None, required_acks=1, timeout=10000,
                topics=[(TOPIC, [(len(produced) % NPARTS, v2_batch([v]))])]))
            if r.topics[0][1][0][1] != 0:
                fail("producing to the consumer's topic: error %d"
                     % r.topics[0][1][0][1])
            produced.append(v)
            try:
                while True:
                    i, o = q.get(timeout=0.1)
                    out[i] = o
            except Exception:
                pass
        for p in ps:
            p.join(10)
        producer.close()
        for i in range(CONNS):
            if i not in out or "error" in out[i]:
                fail("attacker %d: %s" % (i, out.get(i)))
        return {"attacker_sessions_asked": sum(o["sent"] for o in out.values()),
                "attacker_sessions_granted": sum(o["granted"] for o in out.values()),
                "produced": len(produced)}
    return run


def main():
    c = Client("setup", timeout=30)
    r = c.send(CreateTopicsRequest[0]([(TOPIC, NPARTS, 1, [], [])], 10000))
    if r.topic_errors[0][1] != 0:
        fail("CreateTopics %s: error %d" % (TOPIC, r.topic_errors[0][1]))
    wait_topic(c, TOPIC)
    c.close()
    consumer = Consumer()
    consumer.start()
    produced = []
    fig = harness.run("fetch-sessions", attack(produced), rss_mb=RSS_MB,
                      latency_ms=LATENCY_MS)
    time.sleep(1.0)  # the consumer's last long poll
    consumer.stop.set()
    consumer.join(5)
    if consumer.errors:
        fail("fetch-sessions: the consumer lost its session after %d "
             "incremental fetches: %s" % (consumer.fetches, consumer.errors[0]))
    ok("fetch-sessions: the consumer's session answered all %d incremental "
       "fetches" % consumer.fetches)
    missing = set(produced) - set(consumer.values)
    if missing:
        fail("fetch-sessions: %d of %d records produced did not reach the "
             "consumer" % (len(missing), len(produced)))
    ok("fetch-sessions: the consumer read all %d records produced"
       % len(produced))
    if fig["attacker_sessions_granted"] > SLOTS:
        fail("fetch-sessions: the attacker got %d sessions (%d slots)"
             % (fig["attacker_sessions_granted"], SLOTS))
    ok("fetch-sessions: the attacker got %d sessions of %d asked (%d slots)"
       % (fig["attacker_sessions_granted"], fig["attacker_sessions_asked"], SLOTS))


if __name__ == "__main__":
    main()
