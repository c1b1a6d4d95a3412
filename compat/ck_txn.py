#!/usr/bin/python3
"""confluent-kafka-python (over librdkafka) transactions against gregor
(GR_BOOTSTRAP): a committed transaction is read by a read_committed
consumer, an aborted one is not; a second producer with the same
transactional.id fences the first. Exit 0 or 1."""
import os
import sys

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

BOOT = os.environ["GR_BOOTSTRAP"]
TOPIC = "ck-txn-%d" % os.getpid()


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def producer(tid):
    p = Producer({"bootstrap.servers": BOOT, "transactional.id": tid,
                  "linger.ms": 5})
    p.init_transactions(30)
    return p


def read(isolation):
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "ck-check-%d" % os.getpid(),
                  "enable.auto.commit": False, "enable.partition.eof": True,
                  "isolation.level": isolation})
    c.assign([TopicPartition(TOPIC, 0, 0)])
    out = []
    while True:
        m = c.poll(30)
        if m is None:
            fail("no end of partition in 30 s")
        if m.error():
            if m.error().code() == -191:  # _PARTITION_EOF
                break
            fail("consume: %s" % m.error())
        out.append(m.value().decode())
    c.close()
    return out


p = producer("ck-txn")
p.begin_transaction()
for i in range(50):
    p.produce(TOPIC, value="c1-%d" % i, partition=0)
p.commit_transaction(30)
p.begin_transaction()
for i in range(50):
    p.produce(TOPIC, value="a2-%d" % i, partition=0)
p.flush(30)
p.abort_transaction(30)

# a second instance fences the first, whose open transaction is aborted
p.begin_transaction()
for i in range(10):
    p.produce(TOPIC, value="a3-%d" % i, partition=0)
p.flush(30)
p2 = producer("ck-txn")
p2.begin_transaction()
for i in range(10):
    p2.produce(TOPIC, value="c4-%d" % i, partition=0)
p2.commit_transaction(30)
try:
    p.commit_transaction(30)
    fail("the fenced producer committed")
except KafkaException as e:
    if not e.args[0].fatal():
        fail("not fatal: %s" % e)

committed = read("read_committed")
if sorted(committed) != sorted(["c1-%d" % i for i in range(50)] +
                               ["c4-%d" % i for i in range(10)]):
    fail("read_committed saw %d values: %s" % (len(committed), committed[:5]))
if len(read("read_uncommitted")) != 120:
    fail("read_uncommitted: %d" % len(read("read_uncommitted")))
print("ok")
