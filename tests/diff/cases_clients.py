"""
tests/diff/cases_clients.py: the same client program against both brokers,
its observable results compared: kafka-python 3.0.12's idempotent and
transactional producers (commits, an abort, offsets sent in a
transaction) and its read_committed and read_uncommitted consumers, and a
consumer group's committed positions. What the program sees is recorded
as notes; the requests it sends are the client's own, not recorded.
"""

import logging

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.structs import OffsetAndMetadata

from harness import case
from common import create

logging.getLogger("kafka").setLevel(logging.CRITICAL)


def _consume(b, topic, isolation, group=None, n_parts=1, timeout_ms=3000):
    c = KafkaConsumer(bootstrap_servers="%s:%d" % (b.host, b.port), group_id=group,
                      isolation_level=isolation, auto_offset_reset="earliest",
                      enable_auto_commit=False, consumer_timeout_ms=timeout_ms,
                      client_id="gregor-diff-consumer")
    try:
        c.assign([TopicPartition(topic, p) for p in range(n_parts)])
        out = [(m.partition, m.offset, m.key, m.value) for m in c]
        ends = c.end_offsets([TopicPartition(topic, p) for p in range(n_parts)])
        return sorted(out), sorted((tp.partition, o) for tp, o in ends.items())
    finally:
        c.close()


@case("client_idempotent_producer", timeout=60)
def client_idempotent_producer(b):
    t = b.t("t")
    create(b, t, 2, record=False)
    p = KafkaProducer(bootstrap_servers="%s:%d" % (b.host, b.port), enable_idempotence=True,
                      acks="all", linger_ms=5, client_id="gregor-diff-producer")
    try:
        futs = [p.send(t, key=b"k%d" % (i % 4), value=b"v%d" % i, partition=i % 2) for i in range(200)]
        p.flush()
        b.note("send results (partition, offset)",
               sorted((f.get(10).partition, f.get(10).offset) for f in futs))
    finally:
        p.close()
    got, ends = _consume(b, t, "read_uncommitted", n_parts=2)
    b.note("consumed", got)
    b.note("end offsets", ends)


@case("client_transactions", timeout=90)
def client_transactions(b):
    t = b.t("t")
    out = b.t("out")
    create(b, t, 2, record=False)
    create(b, out, 1, record=False)
    g = b.t("g")
    p = KafkaProducer(bootstrap_servers="%s:%d" % (b.host, b.port), transactional_id=b.t("tx"),
                      client_id="gregor-diff-producer")
    steps = []
    try:
        p.init_transactions()
        p.begin_transaction()
        for i in range(5):
            p.send(t, value=b"committed-%d" % i, partition=i % 2)
        p.commit_transaction()
        steps.append("commit 1")
        p.begin_transaction()
        for i in range(3):
            p.send(t, value=b"aborted-%d" % i, partition=0)
        p.flush()
        p.abort_transaction()
        steps.append("abort")
        p.begin_transaction()
        p.send(out, value=b"consumed-and-produced")
        p.send_offsets_to_transaction({TopicPartition(t, 0): OffsetAndMetadata(3, "", -1)}, g)
        p.commit_transaction()
        steps.append("commit 2 with offsets")
    finally:
        p.close()
    b.note("transaction steps", steps)
    got, ends = _consume(b, t, "read_committed", n_parts=2)
    b.note("read_committed", got)
    b.note("end offsets", ends)
    got, _ = _consume(b, t, "read_uncommitted", n_parts=2)
    b.note("read_uncommitted", got)
    got, _ = _consume(b, out, "read_committed")
    b.note("output topic, read_committed", got)
    # (Kafka writes the markers after the commit answers: the offsets are
    # pending, UNSTABLE_OFFSET_COMMIT, until then)
    b.until("OffsetFetch", 7, {"group_id": g, "topics": None, "require_stable": True},
            lambda r: all(p["error_code"] == 0 for x in r["topics"] for p in x["partitions"]),
            label="offsets sent in the transaction")
