#!/usr/bin/python3
"""Topic creation off the event loop (compat/run.sh s_topic_creation), with
confluent-kafka's AdminClient and Producer against a running gregor whose
data directory is GR_DATA_DIR:

  topic_creation.py
      CreateTopics of 3,000 partitions: when it answers, every partition has
      a leader, its directory (partition.metadata and an empty first
      segment) and takes a record; meanwhile another client's Metadata
      requests are answered and only ever show a partition either led or
      LEADER_NOT_AVAILABLE (a partition being made); CreatePartitions to
      4,000: the same for the new ones; a 5,000-partition topic deleted by
      another client while it is being made leaves no directory behind
  topic_creation.py after   (the broker restarted on the same directory)
      the 4,000 partitions are there, led, with their 4,000 records

Exit 0 or 1."""

import os
import re
import sys
import threading
import time

from confluent_kafka import KafkaError, Producer, TopicPartition
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

BOOT = os.environ["GR_BOOTSTRAP"]
DATA = os.environ["GR_DATA_DIR"]


def fail(msg):
    print("topic_creation: FAIL: " + msg)
    sys.exit(1)


def led(admin, topic, n):
    md = admin.list_topics(topic, timeout=10).topics[topic]
    if md.error is not None:
        fail("%s: %s" % (topic, md.error))
    if len(md.partitions) != n:
        fail("%s has %d partitions, not %d" % (topic, len(md.partitions), n))
    bad = [p for p in md.partitions.values() if p.leader != 1 or p.error]
    if bad:
        fail("%s: %d partitions without a leader after the answer, e.g. %d "
             "(leader %d, %s)" % (topic, len(bad), bad[0].id, bad[0].leader,
                                  bad[0].error))


def dirs_ok(topic, lo, hi):
    for p in range(lo, hi):
        d = os.path.join(DATA, "%s-%d" % (topic, p))
        try:
            names = set(os.listdir(d))
        except OSError as e:
            fail("%s: %s" % (d, e))
        want = {"partition.metadata", "00000000000000000000.log",
                "00000000000000000000.index",
                "00000000000000000000.timeindex"}
        if not want <= names:
            fail("%s holds %s" % (d, sorted(names)))
        with open(os.path.join(d, "partition.metadata")) as f:
            if not f.read().startswith("version: 0\ntopic_id: "):
                fail("%s/partition.metadata" % d)


def produce_each(topic, lo, hi):
    p = Producer({"bootstrap.servers": BOOT, "acks": "all", "linger.ms": 20,
                  "message.timeout.ms": 30000})
    errs = []

    def cb(err, msg):
        if err is not None:
            errs.append((msg.partition(), err))
    for i in range(lo, hi):
        p.produce(topic, value=b"v%d" % i, partition=i, on_delivery=cb)
        p.poll(0)
    if p.flush(60) != 0:
        fail("%s: records undelivered after 60 s" % topic)
    if errs:
        fail("%s: %d records failed, e.g. partition %d: %s" % (
            topic, len(errs), errs[0][0], errs[0][1]))


class Watcher(threading.Thread):
    """Another client's Metadata for TOPIC, over and over."""

    def __init__(self, topic):
        super().__init__(daemon=True)
        self.topic = topic
        self.stop = False
        self.answers = 0
        self.unled = 0
        self.bad = None

    def run(self):
        admin = AdminClient({"bootstrap.servers": BOOT})
        while not self.stop:
            try:  # all topics: naming one could auto-create it
                md = admin.list_topics(timeout=10)
            except Exception as e:  # a timeout: the loop did not answer
                self.bad = "Metadata failed: %s" % e
                return
            self.answers += 1
            t = md.topics.get(self.topic)
            if t is None or t.error is not None:
                continue  # not created yet
            for p in t.partitions.values():
                if p.leader == 1 and p.error is None:
                    continue
                if p.leader == -1 and p.error is not None and \
                        p.error.code() == KafkaError.LEADER_NOT_AVAILABLE:
                    self.unled += 1
                    continue
                self.bad = "partition %d: leader %d, %s" % (
                    p.id, p.leader, p.error)
                return


def main():
    admin = AdminClient({"bootstrap.servers": BOOT})

    w = Watcher("made")
    w.start()
    t0 = time.time()
    admin.create_topics([NewTopic("made", 3000, 1)], operation_timeout=60,
                        request_timeout=120)["made"].result(120)
    t1 = time.time()
    led(admin, "made", 3000)
    w.stop = True
    w.join(30)
    if w.bad:
        fail("while creating: " + w.bad)
    print("topic_creation: 3000 partitions in %.2f s; the other client had "
          "%d Metadata answers meanwhile, %d partition entries unled" % (
              t1 - t0, w.answers, w.unled))
    dirs_ok("made", 0, 3000)
    produce_each("made", 0, 3000)

    admin.create_partitions([NewPartitions("made", 4000)],
                            operation_timeout=60,
                            request_timeout=120)["made"].result(120)
    led(admin, "made", 4000)
    dirs_ok("made", 3000, 4000)
    produce_each("made", 3000, 4000)

    # deleted by another client while its directories are being made
    other = AdminClient({"bootstrap.servers": BOOT})
    fut = admin.create_topics([NewTopic("gone", 5000, 1)],
                              operation_timeout=60,
                              request_timeout=120)["gone"]
    deleted = False
    deadline = time.time() + 30
    while not deleted and time.time() < deadline:
        try:
            other.delete_topics(["gone"], operation_timeout=30,
                                request_timeout=60)["gone"].result(60)
            deleted = True
        except Exception as e:
            if "UNKNOWN_TOPIC" not in str(e):
                fail("DeleteTopics: %s" % e)
            time.sleep(0.01)  # not created yet
    try:
        fut.result(120)
    except Exception as e:
        fail("CreateTopics of the deleted topic: %s" % e)
    if not deleted:
        fail("the topic never appeared for DeleteTopics")
    pat = re.compile(r"^gone-\d+$")
    deadline = time.time() + 30
    while True:
        left = [d for d in os.listdir(DATA) if pat.match(d)]
        if not left:
            break
        if time.time() > deadline:
            fail("%d directories of the deleted topic left, e.g. %s" % (
                len(left), left[0]))
        time.sleep(0.1)
    if "gone" in admin.list_topics(timeout=10).topics:
        fail("gone is listed after its deletion")
    print("topic_creation: ok")


def after():
    admin = AdminClient({"bootstrap.servers": BOOT})
    led(admin, "made", 4000)
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "tc",
                  "enable.auto.commit": False})
    c.assign([TopicPartition("made", p, 0) for p in range(4000)])
    got = set()
    deadline = time.time() + 60
    while len(got) < 4000 and time.time() < deadline:
        for m in c.consume(1000, 1.0):
            if m.error() is None:
                if m.value() != b"v%d" % m.partition():
                    fail("partition %d holds %r" % (m.partition(), m.value()))
                got.add(m.partition())
    c.close()
    if len(got) != 4000:
        fail("records of %d partitions read back, not 4000" % len(got))
    print("topic_creation after: ok")


if __name__ == "__main__":
    after() if sys.argv[1:] == ["after"] else main()
