#!/usr/bin/python3
"""Topic names Kafka accepts that look like something else on disk
(compat/run.sh s_topic_names_restart, s_topic_names_deletion_crash), with
confluent-kafka against a running gregor whose data directory is
GR_DATA_DIR. Apache Kafka 4.4 creates, serves and deletes every one of
NAMES (legal characters [a-zA-Z0-9._-], neither "." nor "..", at most 249
characters): names starting with a dot, one spelt like Gregor's deletion
record, 249-character ones (a directory suffix makes their names too long
unless the topic is cut, as Kafka cuts it), names spelt like the -delete,
-future and -stray directories of a partition.

  topic_names.py make     creates each with 2 partitions, one record in
                          each partition (acks=all), read back
  topic_names.py after    (restarted) each is listed with its 2 partitions
                          and its records; then all are deleted, and their
                          directories and metadata files go
  topic_names.py crash    (fault point trash.kill armed for one) creates
                          them and deletes them: the broker kills itself
                          while renaming their directories aside
  topic_names.py gone     (restarted) none is listed, no directory of any
                          is left, nor any deletion record; each made
                          again is empty and takes a record

Exit 0 or 1."""

import os
import re
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

BOOT = os.environ["GR_BOOTSTRAP"]
DATA = os.environ["GR_DATA_DIR"]
NPARTS = 2

NAMES = [
    ".hidden",
    "..x",
    "...",
    ".deleted-AAAAAAAAAAAAAAAAAAAAAA",  # Gregor's deletion record, once
    "L" * 249,
    "D" * 242 + "-delete",
    "t-0.0123456789abcdef0123456789abcdef-delete",
    "t-0.0123456789abcdef0123456789abcdef-future",
    "t-0.0123456789abcdef0123456789abcdef-stray",
    "x-0",
    "-x",
    "x.tmp",
    "meta.properties",
    "gregor-topics",
]


def fail(msg):
    print("topic_names: FAIL: " + msg)
    sys.exit(1)


def short(name):
    return name if len(name) < 40 else "%s...(%d chars)" % (name[:20], len(name))


def value(name, p):
    return ("%s/%d" % (name, p)).encode()


def create(admin):
    fs = admin.create_topics([NewTopic(n, NPARTS, 1) for n in NAMES],
                             operation_timeout=30)
    for n, f in fs.items():
        try:
            f.result(60)
        except Exception as e:
            fail("CreateTopics %s: %s" % (short(n), e))


def produce():
    p = Producer({"bootstrap.servers": BOOT, "acks": "all",
                  "message.timeout.ms": 30000})
    errs = []

    def cb(err, msg):
        if err is not None:
            errs.append((msg.topic(), msg.partition(), err))
    for n in NAMES:
        for part in range(NPARTS):
            p.produce(n, value=value(n, part), partition=part, on_delivery=cb)
    if p.flush(60) != 0:
        fail("records undelivered after 60 s")
    if errs:
        fail("produce: %s" % [(short(t), q, str(e)) for t, q, e in errs[:3]])


def read_back():
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "topic-names",
                  "enable.auto.commit": False})
    tps = [TopicPartition(n, p, 0) for n in NAMES for p in range(NPARTS)]
    c.assign(tps)
    want = {(n, p): value(n, p) for n in NAMES for p in range(NPARTS)}
    got = {}
    deadline = time.time() + 30
    while len(got) < len(want) and time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            fail("consume: %s" % m.error())
        got[(m.topic(), m.partition())] = m.value()
        if m.offset() != 0:
            fail("%s-%d: record at offset %d" % (short(m.topic()),
                                                 m.partition(), m.offset()))
    c.close()
    bad = [k for k in want if got.get(k) != want[k]]
    if bad:
        fail("%d partitions did not read back, e.g. %s-%d: %r" %
             (len(bad), short(bad[0][0]), bad[0][1], got.get(bad[0])))


def listed(admin):
    md = admin.list_topics(timeout=10).topics
    for n in NAMES:
        t = md.get(n)
        if t is None:
            fail("%s is not listed (%d topics are)" % (short(n), len(md)))
        if t.error is not None or len(t.partitions) != NPARTS:
            fail("%s: %s, %d partitions" % (short(n), t.error,
                                            len(t.partitions)))


def delete(admin, expect_answer=True):
    fs = admin.delete_topics(NAMES, operation_timeout=30, request_timeout=30)
    for n, f in fs.items():
        try:
            f.result(60)
        except Exception as e:
            if expect_answer:
                fail("DeleteTopics %s: %s" % (short(n), e))
            print("topic_names: DeleteTopics %s: %s" % (short(n), e))


ASIDE = re.compile(r"^(.*)-(\d+)\.[0-9a-zA-Z_-]+(\.\d+)?-(delete|stray)$")


def leftovers():
    """Directories of the log dir that belong to one of NAMES: a partition
    directory, or one renamed aside (<topic>-<p>.<id>-delete or -stray,
    the topic cut to fit 255 characters as Kafka cuts it)."""
    left = []
    for d in os.listdir(DATA):
        m = ASIDE.match(d)
        for n in NAMES:
            if d in ("%s-%d" % (n, p) for p in range(NPARTS)):
                left.append(d)
            elif m and n.startswith(m.group(1)) and (
                    m.group(1) == n or len(d) == 255):
                left.append(d)
    return sorted(set(left))


def topic_files():
    names = set(os.listdir(os.path.join(DATA, "gregor-topics")))
    return sorted(names & set(NAMES))


def wait(cond, what, secs=30):
    deadline = time.time() + secs
    while True:
        left = cond()
        if not left:
            return
        if time.time() > deadline:
            fail("%s left after %d s: %s" % (what, secs,
                                            [short(x) for x in left[:4]]))
        time.sleep(0.1)


def make():
    admin = AdminClient({"bootstrap.servers": BOOT})
    create(admin)
    listed(admin)
    produce()
    read_back()
    print("topic_names make: %d topics made, written and read" % len(NAMES))


def after():
    admin = AdminClient({"bootstrap.servers": BOOT})
    listed(admin)
    read_back()
    delete(admin)
    wait(topic_files, "topic metadata files")
    wait(leftovers, "partition directories")
    print("topic_names after: %d topics back with their records, deleted"
          % len(NAMES))


def crash():
    admin = AdminClient({"bootstrap.servers": BOOT})
    create(admin)
    produce()
    delete(admin, expect_answer=False)
    print("topic_names crash: deleted")


def gone():
    admin = AdminClient({"bootstrap.servers": BOOT})
    md = admin.list_topics(timeout=10).topics
    back = [n for n in NAMES if n in md]
    if back:
        fail("listed after their deletion: %s" % [short(n) for n in back])
    wait(topic_files, "topic metadata files")
    wait(leftovers, "partition directories")
    records = os.path.join(DATA, "gregor-topics")
    wait(lambda: [f for f in os.listdir(records)
                  if f.startswith("deleted~")], "deletion records")
    create(admin)
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "topic-names-gone"})
    for n in NAMES:
        for p in range(NPARTS):
            lo, hi = c.get_watermark_offsets(TopicPartition(n, p), timeout=10)
            if hi != 0:
                fail("%s-%d made again holds records (%d..%d)" %
                     (short(n), p, lo, hi))
    c.close()
    produce()
    read_back()
    print("topic_names gone: none back; made again, empty, they take records")


if __name__ == "__main__":
    steps = {"make": make, "after": after, "crash": crash, "gone": gone}
    if len(sys.argv) != 2 or sys.argv[1] not in steps:
        fail("usage: topic_names.py make|after|crash|gone")
    steps[sys.argv[1]]()
