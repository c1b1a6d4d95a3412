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
      a 2,000-partition topic with records deleted and created again at
      once: empty, takes records, nothing of the old one left;
      1,000 topics in one CreateTopics, each with a config: all led when it
      answers and each one's metadata file written; DeleteTopics of 500 of
      them: their files gone when it answers; IncrementalAlterConfigs: the
      file says the new value when it answers; 300 topics auto-created by a
      producer's Metadata: each takes its record. Meanwhile another
      client's Metadata requests are answered (the longest wait printed)
  topic_creation.py after   (the broker restarted on the same directory)
      the 4,000 partitions are there, led, with their 4,000 records; so are
      the 500 topics left with their configs and the 300 auto-created ones
  topic_creation.py fault   (fault point topic.store armed for topic "bad")
      CreateTopics of "bad" and "good": bad fails with KAFKA_STORAGE_ERROR
      and is not listed, nor does it leave a directory; good is made
  topic_creation.py fault-after   (restarted): good is there, bad is not
  topic_creation.py stop    one Metadata request auto-creates 3,000 topics
      (their directories made on a worker), and the broker is stopped at
      once (by compat/run.sh)
  topic_creation.py stop-after   (restarted): all 3,000 are there, led,
      each with its directory
  topic_creation.py crash   (fault point trash.kill armed for cut-7)
      a 20-partition topic with a record in each is deleted; the broker
      kills itself while its directories are being renamed aside
  topic_creation.py crash-after   (restarted): the deletion is finished:
      no directory of the topic left, nor its deletion record; not listed;
      made again, it is empty and takes records

Exit 0 or 1."""

import os
import re
import sys
import threading
import time

from confluent_kafka import KafkaError, Producer, TopicPartition
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, ConfigResource, NewPartitions
from confluent_kafka.admin import NewTopic

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


def wait_gone(pattern, what):
    """Waits up to 30 s until no entry of DATA matches pattern."""
    pat = re.compile(pattern)
    deadline = time.time() + 30
    while True:
        left = [d for d in os.listdir(DATA) if pat.match(d)]
        if not left:
            return
        if time.time() > deadline:
            fail("%d directories of %s left, e.g. %s" % (len(left), what,
                                                        left[0]))
        time.sleep(0.1)


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
    wait_gone(r"^gone-\d+$", "the deleted topic")
    if "gone" in admin.list_topics(timeout=10).topics:
        fail("gone is listed after its deletion")
    recreated(admin)
    many_topics(admin)
    print("topic_creation: ok")


def recreated(admin):
    """A topic of 2,000 partitions, one record each, deleted and created
    again at once (the old directories' renames may still be waiting): the
    new one is empty, takes its records, and of the old incarnation nothing
    is left (no -delete, no -stray directory)."""
    def create():
        admin.create_topics([NewTopic("again", 2000, 1)], operation_timeout=60,
                            request_timeout=120)["again"].result(120)
    create()
    produce_each("again", 0, 2000)
    admin.delete_topics(["again"], operation_timeout=30,
                        request_timeout=60)["again"].result(60)
    create()
    led(admin, "again", 2000)
    dirs_ok("again", 0, 2000)
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "again"})
    for p in list(range(0, 2000, 97)) + [1999]:
        lo, hi = c.get_watermark_offsets(TopicPartition("again", p), 10)
        if (lo, hi) != (0, 0):
            fail("again-%d of the new topic has offsets %d..%d" % (p, lo, hi))
    produce_each("again", 0, 2000)
    lo, hi = c.get_watermark_offsets(TopicPartition("again", 1999), 10)
    if (lo, hi) != (0, 1):
        fail("again-1999 has offsets %d..%d after one record" % (lo, hi))
    c.close()
    wait_gone(r"^again-\d+\..*-(delete|stray)$", "the old incarnation")


class Timer(threading.Thread):
    """Another client's Metadata (all topics), timed."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop = False
        self.longest = 0.0
        self.answers = 0
        self.bad = None

    def run(self):
        admin = AdminClient({"bootstrap.servers": BOOT})
        while not self.stop:
            t0 = time.time()
            try:
                admin.list_topics(timeout=10)
            except Exception as e:
                self.bad = "Metadata failed: %s" % e
                return
            self.longest = max(self.longest, time.time() - t0)
            self.answers += 1


def topic_file(name):
    return os.path.join(DATA, "gregor-topics", name)


def many_topics(admin):
    timer = Timer()
    timer.start()
    names = ["m%d" % i for i in range(1000)]
    fs = admin.create_topics(
        [NewTopic(n, 1, 1, config={"retention.ms": "3600000"})
         for n in names], operation_timeout=60, request_timeout=120)
    for n, f in fs.items():
        try:
            f.result(120)
        except Exception as e:
            fail("CreateTopics %s: %s" % (n, e))
        if not os.path.exists(topic_file(n)):
            fail("%s: no metadata file when CreateTopics answered" % n)
    md = admin.list_topics(timeout=10).topics
    for n in names:
        if n not in md or md[n].error is not None or \
                md[n].partitions[0].leader != 1:
            fail("%s not led after CreateTopics answered" % n)

    fs = admin.delete_topics(names[500:], operation_timeout=60,
                             request_timeout=120)
    for n, f in fs.items():
        try:
            f.result(120)
        except Exception as e:
            fail("DeleteTopics %s: %s" % (n, e))
        if os.path.exists(topic_file(n)):
            fail("%s: metadata file left when DeleteTopics answered" % n)

    res = ConfigResource("topic", "m0",
                         set_config={"retention.ms": "7200000"})
    admin.alter_configs([res])[res].result(30)
    if "config.retention.ms=7200000\n" not in open(topic_file("m0")).read():
        fail("m0: the file lacks the new retention.ms when AlterConfigs "
             "answered")

    p = Producer({"bootstrap.servers": BOOT, "linger.ms": 20})
    done = []

    def cb(err, msg):
        done.append(err)

    for i in range(300):
        p.produce("auto%d" % i, value=b"a%d" % i, on_delivery=cb)
        p.poll(0)
    p.flush(60)
    if len(done) != 300 or any(e is not None for e in done):
        fail("auto-created topics: %d delivered, errors %s" % (
            len(done), [e for e in done if e is not None][:3]))
    timer.stop = True
    timer.join(30)
    if timer.bad:
        fail("the other client: " + timer.bad)
    print("topic_creation: 1000 topics made, 500 deleted, 300 auto-created; "
          "the other client's longest Metadata wait %.0f ms over %d" % (
              timer.longest * 1000, timer.answers))


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
    md = admin.list_topics(timeout=10).topics
    for i in range(1000):
        if (i < 500) != ("m%d" % i in md):
            fail("m%d %s after the restart" % (
                i, "missing" if i < 500 else "back"))
    for i in range(300):
        if "auto%d" % i not in md:
            fail("auto%d missing after the restart" % i)
    res = ConfigResource("topic", "m0")
    cfg = admin.describe_configs([res])[res].result(30)
    if cfg["retention.ms"].value != "7200000":
        fail("m0 retention.ms is %s after the restart" %
             cfg["retention.ms"].value)
    res = ConfigResource("topic", "m1")
    cfg = admin.describe_configs([res])[res].result(30)
    if cfg["retention.ms"].value != "3600000":
        fail("m1 retention.ms is %s after the restart" %
             cfg["retention.ms"].value)
    print("topic_creation after: ok")


def fault():
    admin = AdminClient({"bootstrap.servers": BOOT})
    fs = admin.create_topics([NewTopic("bad", 3, 1), NewTopic("good", 3, 1)],
                             operation_timeout=30, request_timeout=60)
    fs["good"].result(60)
    try:
        fs["bad"].result(60)
        fail("bad was created although its metadata file was not written")
    except Exception as e:
        if "KAFKA_STORAGE_ERROR" not in str(e):
            fail("bad: %s, not KAFKA_STORAGE_ERROR" % e)
    md = admin.list_topics(timeout=10).topics
    if "bad" in md:
        fail("bad is listed")
    led(admin, "good", 3)
    if any(d.startswith("bad-") for d in os.listdir(DATA)):
        fail("bad left directories")
    print("topic_creation fault: ok")


def fault_after():
    admin = AdminClient({"bootstrap.servers": BOOT})
    md = admin.list_topics(timeout=10).topics
    if "bad" in md:
        fail("bad is there after the restart")
    led(admin, "good", 3)
    print("topic_creation fault-after: ok")


def stop():
    """One Metadata request auto-creates s0..s2999."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "..", "tests", "bench"))
    from many_topics import metadata_auto_create
    metadata_auto_create(BOOT, ["s%d" % i for i in range(3000)])
    print("topic_creation stop: Metadata answered")


def stop_after():
    admin = AdminClient({"bootstrap.servers": BOOT})
    deadline = time.time() + 60
    while True:
        md = admin.list_topics(timeout=10).topics
        unled = [n for n in ("s%d" % i for i in range(3000))
                 if n not in md or md[n].error is not None or
                 md[n].partitions[0].leader != 1]
        if not unled:
            break
        if time.time() > deadline:
            fail("%d auto-created topics missing or unled after the "
                 "restart, e.g. %s" % (len(unled), unled[0]))
        time.sleep(0.2)
    for i in range(3000):
        dirs_ok("s%d" % i, 0, 1)
    print("topic_creation stop-after: ok")


def crash():
    admin = AdminClient({"bootstrap.servers": BOOT})
    admin.create_topics([NewTopic("cut", 20, 1)],
                        operation_timeout=30)["cut"].result(60)
    produce_each("cut", 0, 20)
    fs = admin.delete_topics(["cut"], operation_timeout=30,
                             request_timeout=30)
    try:  # answered before the renames start, or cut off by the kill
        fs["cut"].result(30)
    except Exception as e:
        print("topic_creation crash: DeleteTopics: %s" % e)
    print("topic_creation crash: deleted")


def crash_after():
    wait_gone(r"cut-\d+$", "cut")
    wait_gone(r"cut-\d+\..*-delete$", "cut (renamed aside)")
    topics = os.path.join(DATA, "gregor-topics")
    deadline = time.time() + 30
    while [f for f in os.listdir(topics) if f.startswith("deleted~")]:
        if time.time() > deadline:
            fail("deletion records left: %s" % os.listdir(topics))
        time.sleep(0.1)
    admin = AdminClient({"bootstrap.servers": BOOT})
    if "cut" in admin.list_topics(timeout=10).topics:
        fail("cut is listed after the restart")
    admin.create_topics([NewTopic("cut", 20, 1)],
                        operation_timeout=30)["cut"].result(60)
    led(admin, "cut", 20)
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "cut-check",
                  "enable.partition.eof": True})
    lo_hi = [c.get_watermark_offsets(TopicPartition("cut", p), timeout=10)
             for p in range(20)]
    c.close()
    if any(hi != 0 for _, hi in lo_hi):
        fail("cut made again holds records: %s" % lo_hi)
    produce_each("cut", 0, 20)
    print("topic_creation crash-after: ok")


if __name__ == "__main__":
    {"after": after, "fault": fault, "fault-after": fault_after,
     "stop": stop, "stop-after": stop_after, "crash": crash,
     "crash-after": crash_after}.get(
        sys.argv[1] if len(sys.argv) > 1 else "", main)()
