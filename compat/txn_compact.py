#!/usr/bin/python3
"""Compaction of a topic written by transactions (GR_BOOTSTRAP; the broker
runs a fast cleaner, compat/run.sh): confluent-kafka (librdkafka) commits
and aborts transactions on a compacted topic; after the cleaner has run, a
read_committed consumer sees the latest committed value of every key at its
original offset and nothing aborted, and the transaction markers are still
in the log at their offsets (kafka-python 2.0.2 hands control records to
the application, so it shows them). Exit 0 or 1."""
import os
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from kafka import KafkaConsumer, TopicPartition as KTP
from kafka.admin import KafkaAdminClient, NewTopic

bs = os.environ["GR_BOOTSTRAP"]
topic = "txn-compact-%d" % os.getpid()


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


admin = KafkaAdminClient(bootstrap_servers=bs)
admin.create_topics([NewTopic(topic, 1, 1, topic_configs={
    "cleanup.policy": "compact", "segment.ms": "200",
    "min.cleanable.dirty.ratio": "0.01", "min.compaction.lag.ms": "0"})])
admin.close()

p = Producer({"bootstrap.servers": bs, "transactional.id": "tc-" + topic})
p.init_transactions(30)


def txn(items, commit):
    p.begin_transaction()
    for k, v in items:
        p.produce(topic, key=k, value=v, partition=0)
    p.flush(10)  # in the log before the end, aborted data included
    if commit:
        p.commit_transaction(30)
    else:
        p.abort_transaction(30)


# offsets: txn1 data 0-9, marker 10; txn2 (aborted) 11-20, marker 21;
# txn3 22-26, marker 27; then, after the segments rolled, txn4 28, marker 29
txn([(b"k%d" % i, b"v1") for i in range(10)], True)
txn([(b"k%d" % i, b"v2") for i in range(10)], False)
txn([(b"k%d" % i, b"v3") for i in range(5)], True)
time.sleep(0.5)
txn([(b"k9", b"end")], True)
time.sleep(0.5)
txn([(b"zz", b"roll")], True)  # 30, marker 31: the earlier ones cleanable
p.flush(10)

want = {b"k%d" % i: b"v3" for i in range(5)}
want.update({b"k%d" % i: b"v1" for i in range(5, 9)})
want[b"k9"] = b"end"
want[b"zz"] = b"roll"


def read_committed():
    c = Consumer({"bootstrap.servers": bs, "group.id": "tc-reader",
                  "isolation.level": "read_committed",
                  "enable.auto.commit": False,
                  "enable.partition.eof": True})
    c.assign([TopicPartition(topic, 0, 0)])
    out = []
    deadline = time.time() + 20
    while time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == -191:  # partition EOF
                break
            fail("consume: %s" % m.error())
        out.append((m.offset(), m.key(), m.value()))
    c.close()
    return out


# wait until the cleaner has removed the superseded and aborted records
deadline = time.time() + 30
while True:
    got = read_committed()
    latest = {}
    for off, k, v in got:
        latest[k] = v
    if latest != want:
        fail("latest committed values %r" % latest)
    if len(got) == len(want):
        break
    if time.time() > deadline:
        fail("not compacted after 30 s: %d records %r" % (len(got), got))
    time.sleep(0.5)
offs = {k: off for off, k, v in got}
expect_offs = {b"k%d" % i: 22 + i for i in range(5)}
expect_offs.update({b"k%d" % i: i for i in range(5, 9)})
expect_offs[b"k9"] = 28
expect_offs[b"zz"] = 30
if offs != expect_offs:
    fail("offsets moved: %r" % offs)

# the markers are kept at their offsets (kafka-python shows control
# records: a 4-byte key, version 0 and type 0 abort / 1 commit)
kc = KafkaConsumer(bootstrap_servers=bs, group_id=None,
                   consumer_timeout_ms=3000)
kc.assign([KTP(topic, 0)])
kc.seek_to_beginning()
markers = {}
for m in kc:
    if m.key is not None and len(m.key) == 4 and m.key[:2] == b"\x00\x00" \
            and m.key[2:] in (b"\x00\x00", b"\x00\x01"):
        markers[m.offset] = "commit" if m.key[3] == 1 else "abort"
kc.close()
want_markers = {10: "commit", 21: "abort", 27: "commit", 29: "commit",
                31: "commit"}
if markers != want_markers:
    fail("markers %r, want %r" % (markers, want_markers))
print("ok: %d records after compaction, markers kept" % len(got))
