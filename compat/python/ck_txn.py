"""confluent-kafka (current librdkafka) transactions against gregor
(GR_BOOTSTRAP; broker with num.partitions=3 and a 500 ms timed-out
transaction check). Values say what read_committed may see: "c..."
committed, "a..." aborted.

  ck_txn.py basic
      commit, abort, commit over 3 partitions: read_committed sees the
      committed once each in order, read_uncommitted everything; a second
      instance of the transactional.id fences the first (its commit fails
      fatally, its data never shows); a producer that dies inside a
      transaction (transaction.timeout.ms 2000) holds read_committed back
      until the coordinator aborts it, then the next instance commits;
      consume-transform-produce with send_offsets_to_transaction, one
      transaction aborted and redone: the output holds each input once,
      the group's committed offsets are the input's end
  ck_txn.py open DIR    begin, 200 "c..." to ck-open, DIR/ready, wait for
                        DIR/go (the broker is SIGKILLed and restarted
                        meanwhile), commit
  ck_txn.py idem DIR N  an idempotent producer sends N values to
                        partition 0 of ck-idem-restart; once half are
                        delivered it writes DIR/ready and goes on while the
                        broker is SIGKILLed and restarted; every value is
                        delivered, then read back once each, in order
  ck_txn.py check       after it: read_committed of ck-open has the 200;
                        the group offsets of the basic run held
"""
import os
import subprocess
import sys
import time

from confluent_kafka import (Consumer, KafkaError, KafkaException, Producer,
                             TopicPartition, OFFSET_BEGINNING)
from confluent_kafka.admin import AdminClient

from common import BOOT, check, eq, fail, say

T = 30


def producer(tid, **kw):
    c = {"bootstrap.servers": BOOT, "transactional.id": tid, "linger.ms": 5,
         "retry.backoff.ms": 50, "reconnect.backoff.ms": 20,
         "reconnect.backoff.max.ms": 200}
    c.update(kw)
    p = Producer(c)
    p.init_transactions(T)
    return p


def read(topic, parts, isolation):
    """Values per partition, in offset order, up to the end (the LSO for
    read_committed)."""
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "ck-txn-read",
                  "enable.auto.commit": False, "enable.partition.eof": True,
                  "isolation.level": isolation})
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(parts)])
    out = {p: [] for p in range(parts)}
    eof = set()
    end = time.time() + 30
    while len(eof) < parts:
        if time.time() > end:
            fail("%s %s: no end of partition" % (topic, isolation))
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                eof.add(m.partition())
                continue
            fail("read %s: %s" % (topic, m.error()))
        eof.discard(m.partition())
        out[m.partition()].append(m.value().decode())
    c.close()
    return out


def commit_abort():
    topic, n = "ck-ca", 300
    p = producer("ck-ca")
    for rnd, verdict in enumerate(("c", "a", "c")):
        p.begin_transaction()
        for i in range(n):
            p.produce(topic, ("%s%d-%d" % (verdict, rnd, i)).encode(), partition=i % 3)
        if verdict == "c":
            p.commit_transaction(T)
        else:
            p.flush(T)
            p.abort_transaction(T)
    rc = read(topic, 3, "read_committed")
    for part in range(3):
        want = ["c%d-%d" % (r, i) for r in (0, 2) for i in range(n) if i % 3 == part]
        eq(rc[part], want, "read_committed partition %d" % part)
    ru = read(topic, 3, "read_uncommitted")
    eq(sum(len(v) for v in ru.values()), 3 * n, "read_uncommitted count")
    say("commit/abort: read_committed %d, read_uncommitted %d" %
        (sum(len(v) for v in rc.values()), 3 * n))


def fence():
    topic = "ck-fence"
    p1 = producer("ck-fence")
    p1.begin_transaction()
    for i in range(10):
        p1.produce(topic, b"a1-%d" % i, partition=0)
    p1.flush(T)
    p2 = producer("ck-fence")
    p2.begin_transaction()
    for i in range(10):
        p2.produce(topic, b"c2-%d" % i, partition=0)
    p2.commit_transaction(T)
    try:
        p1.commit_transaction(T)
        fail("the fenced producer committed")
    except KafkaException as e:
        err = e.args[0]
        check(err.fatal(), "fenced commit not fatal: %s" % err)
        say("fence: the first instance's commit fails fatally: %s" % err.name())
    eq(read(topic, 1, "read_committed")[0], ["c2-%d" % i for i in range(10)], "after fencing")


def abandon():
    topic = "ck-abandon"
    child = subprocess.run([sys.executable, os.path.abspath(__file__), "die"],
                           timeout=60, capture_output=True, text=True)
    check(child.returncode == 0, "the dying producer: %s %s" % (child.stdout, child.stderr))
    t0 = time.time()
    p = producer("ck-abandon-other")
    p.begin_transaction()
    for i in range(5):
        p.produce(topic, b"c-other-%d" % i, partition=0)
    p.commit_transaction(T)
    # the open transaction holds the LSO back until it times out (2 s)
    while True:
        rc = read(topic, 1, "read_committed")[0]
        if rc:
            break
        check(time.time() - t0 < 30, "the abandoned transaction was never aborted")
        time.sleep(0.2)
    eq(rc, ["c-other-%d" % i for i in range(5)], "after the abandoned transaction")
    say("abandon: read_committed waited %.1f s for the timed-out transaction" %
        (time.time() - t0))
    p = producer("ck-abandon")
    p.begin_transaction()
    p.produce(topic, b"c-next", partition=0)
    p.commit_transaction(T)
    eq(read(topic, 1, "read_committed")[0][-1], "c-next", "the next instance's commit")
    # 10 aborted, 5 and 1 committed; the markers are no records
    eq(len(read(topic, 1, "read_uncommitted")[0]), 16, "read_uncommitted count")


def die():
    p = producer("ck-abandon", **{"transaction.timeout.ms": 2000})
    p.begin_transaction()
    for i in range(10):
        p.produce("ck-abandon", b"a-dead-%d" % i, partition=0)
    p.flush(T)
    os._exit(0)


def ctp():
    src, dst, group, n = "ck-ctp-in", "ck-ctp-out", "ck-ctp-group", 600
    p = Producer({"bootstrap.servers": BOOT, "linger.ms": 5})
    for i in range(n):
        p.produce(src, str(i).encode(), partition=i % 3)
    check(p.flush(T) == 0, "ctp input")
    c = Consumer({"bootstrap.servers": BOOT, "group.id": group,
                  "enable.auto.commit": False, "auto.offset.reset": "earliest",
                  "isolation.level": "read_committed",
                  "session.timeout.ms": 6000, "heartbeat.interval.ms": 500})
    c.subscribe([src])
    tp = producer("ck-ctp")
    done, txns, aborted = 0, 0, False
    end = time.time() + 60
    while done < n:
        check(time.time() < end, "ctp: %d of %d copied" % (done, n))
        msgs = c.consume(100, 1.0)
        msgs = [m for m in msgs if not m.error()]
        if not msgs:
            continue
        tp.begin_transaction()
        for m in msgs:
            tp.produce(dst, b"copy-" + m.value(), partition=0)
        tp.send_offsets_to_transaction(c.position(c.assignment()),
                                       c.consumer_group_metadata(), T)
        if txns == 1 and not aborted:
            # the second transaction is aborted: rewind and do it again
            tp.abort_transaction(T)
            aborted = True
            committed = c.committed(c.assignment(), T)
            for t in committed:
                c.seek(TopicPartition(t.topic, t.partition,
                                      t.offset if t.offset >= 0 else OFFSET_BEGINNING))
            continue
        tp.commit_transaction(T)
        txns += 1
        done += len(msgs)
    c.close()
    out = read(dst, 1, "read_committed")[0]
    eq(sorted(out, key=lambda v: int(v[5:])), ["copy-%d" % i for i in range(n)],
       "ctp output, each input once")
    check_group_offsets(group, src, n)
    say("ctp: %d copied in %d transactions, one aborted and redone; offsets at the end" %
        (n, txns))


def check_group_offsets(group, topic, n):
    a = AdminClient({"bootstrap.servers": BOOT})
    from confluent_kafka import ConsumerGroupTopicPartitions
    r = a.list_consumer_group_offsets([ConsumerGroupTopicPartitions(
        group, [TopicPartition(topic, p) for p in range(3)])])[group].result(T)
    got = {t.partition: t.offset for t in r.topic_partitions}
    eq(got, {p: len(range(p, n, 3)) for p in range(3)}, "the group's committed offsets")


def open_txn(d):
    p = producer("ck-open", **{"transaction.timeout.ms": 60000,
                               "socket.timeout.ms": 10000, "log_level": 2})
    p.begin_transaction()
    for i in range(200):
        p.produce("ck-open", b"c%d" % i, partition=0)
    check(p.flush(T) == 0, "open: flush")
    open(os.path.join(d, "ready"), "w").close()
    end = time.time() + 60
    while not os.path.exists(os.path.join(d, "go")):
        check(time.time() < end, "open: no go")
        p.poll(0.1)
    for attempt in range(20):
        try:
            p.commit_transaction(T)
            break
        except KafkaException as e:
            err = e.args[0]
            if not err.retriable():
                fail("commit after the restart: %s" % err)
            say("commit after the restart: %s, retrying" % err.name())
            time.sleep(0.5)
    say("open: committed after the broker restart")


def idem_restart(d, n):
    p = Producer({"bootstrap.servers": BOOT, "enable.idempotence": True,
                  "linger.ms": 5, "batch.num.messages": 200,
                  "retry.backoff.ms": 50, "reconnect.backoff.ms": 20,
                  "reconnect.backoff.max.ms": 200, "socket.timeout.ms": 10000,
                  "log_level": 2})
    delivered, errors = [], []

    def cb(err, msg):
        if err is not None:
            errors.append(err)
        else:
            delivered.append(msg.offset())

    ready = False
    for i in range(n):
        while True:
            try:
                p.produce("ck-idem-restart", str(i).encode(), partition=0, on_delivery=cb)
                break
            except BufferError:
                p.poll(0.05)
        if i == n // 2:
            # the first half delivered, then the broker goes down under us
            end = time.time() + 30
            while len(delivered) < n // 2 and time.time() < end:
                p.poll(0.05)
            open(os.path.join(d, "ready"), "w").close()
            ready = True
        p.poll(0)
        if ready and i % 500 == 0:
            time.sleep(0.05)  # spread the second half over the restart
    check(p.flush(60) == 0, "idem: flush after the restart")
    check(not errors, "idem: delivery errors %s" % errors[:3])
    eq(sorted(delivered), list(range(n)), "idem: delivered offsets")
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "ck-idem-read",
                  "enable.auto.commit": False, "enable.partition.eof": True})
    c.assign([TopicPartition("ck-idem-restart", 0, OFFSET_BEGINNING)])
    vals = []
    end = time.time() + 30
    while time.time() < end:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF and len(vals) >= n:
                break
            continue
        vals.append(int(m.value()))
    c.close()
    eq(vals, list(range(n)), "idem: values across the restart")
    say("idem: %d values across a broker SIGKILL, each once, in order" % n)


def main():
    mode = sys.argv[1]
    if mode == "basic":
        commit_abort()
        fence()
        abandon()
        ctp()
    elif mode == "die":
        die()
    elif mode == "idem":
        idem_restart(sys.argv[2], int(sys.argv[3]))
    elif mode == "open":
        open_txn(sys.argv[2])
    elif mode == "check":
        eq(read("ck-open", 1, "read_committed")[0], ["c%d" % i for i in range(200)],
           "the transaction across the restart")
        eq(len(read("ck-ca", 3, "read_committed")[0]), 200, "ck-ca after the restart")
        check_group_offsets("ck-ctp-group", "ck-ctp-in", 600)
        say("check: the restart kept every committed transaction and offset")
    else:
        fail("usage")
    say("ok")


if __name__ == "__main__":
    main()
