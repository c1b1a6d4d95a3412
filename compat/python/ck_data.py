"""confluent-kafka (current librdkafka) data path against gregor
(GR_BOOTSTRAP, started with num.partitions=3):

  metadata   all topics and one: one broker at the bootstrap port, the
             controller, a topic auto-created with 3 partitions led by
             broker 1 (replicas and ISR [1]), then in the full listing
  codecs     for none, gzip, snappy, lz4, zstd: 1500 records over 3
             partitions, keys, headers (one with a null value) on every
             third, explicit CreateTime timestamps, acks=all; every record
             read back by a consumer with check.crcs at the partition and
             offset its delivery report gave, key, value, headers and
             timestamp byte for byte; keyed records without a partition
             land where librdkafka's consistent_random partitioner
             (crc32 of the key) says
  logappend  topics with message.timestamp.type=LogAppendTime (plain and
             lz4): records sent with old CreateTime stamps come back, in
             the delivery reports and to a consumer, as LogAppendTime with
             the broker's clock at the append
  large      records of 1,000,000 bytes (none and lz4) round trip; one of
             1,100,000 is refused by the broker as MSG_SIZE_TOO_LARGE
             (Kafka's MESSAGE_TOO_LARGE, message.max.bytes 1048588)
  longpoll   a consumer waiting at the end (fetch.wait.max.ms 10000) gets
             a record produced 1.5 s later well before the wait ends
  idempotence enable.idempotence: 6000 records over 3 partitions with many
             batches in flight, each exactly once and in order
  times      offsets_for_times and AdminClient.list_offsets (earliest,
             latest, for a timestamp, max timestamp) against records with
             known timestamps; get_watermark_offsets
"""
import time
import zlib

import confluent_kafka
from confluent_kafka import (Consumer, KafkaError, Producer, TopicPartition,
                             TIMESTAMP_CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME,
                             OFFSET_BEGINNING, OFFSET_END)
from confluent_kafka.admin import AdminClient, NewTopic, OffsetSpec

from common import BOOT, PORT, check, eq, fail, say, value_of


def producer(**kw):
    conf = {"bootstrap.servers": BOOT, "linger.ms": 5, "acks": "all"}
    conf.update(kw)
    return Producer(conf)


def consumer(**kw):
    conf = {"bootstrap.servers": BOOT, "group.id": "ck-data-assign",
            "enable.auto.commit": False, "enable.partition.eof": True,
            "check.crcs": True}
    conf.update(kw)
    return Consumer(conf)


class Reports:
    """Delivery reports: (partition, offset) or the error, by index."""

    def __init__(self):
        self.ok = {}
        self.err = {}

    def cb(self, i):
        def f(err, msg):
            if err is not None:
                self.err[i] = err
            else:
                self.ok[i] = (msg.partition(), msg.offset())
        return f


def read_all(topic, parts, want, **kw):
    """Every record of the topic's partitions from the beginning up to the
    end, as {(partition, offset): message}."""
    c = consumer(**kw)
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in range(parts)])
    got, eof = {}, set()
    deadline = time.time() + 60
    while time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                eof.add(m.partition())
                if len(eof) == parts and len(got) >= want:
                    break
                continue
            fail("consume %s: %s" % (topic, m.error()))
        eof.discard(m.partition())
        key = (m.partition(), m.offset())
        check(key not in got, "%s: offset %s read twice" % (topic, key))
        got[key] = m
    c.close()
    check(len(got) == want, "%s: read %d of %d records" % (topic, len(got), want))
    return got


def metadata():
    p = producer()
    md = p.list_topics(timeout=10)
    eq(list(md.brokers), [1], "broker ids")
    b = md.brokers[1]
    eq((b.host, b.port), ("127.0.0.1", PORT), "broker address")
    eq(md.controller_id, 1, "controller")
    check(md.cluster_id, "no cluster id")
    topic = "ck-md"
    check(topic not in md.topics, "ck-md listed before it exists")
    for _ in range(20):
        t = p.list_topics(topic, timeout=10).topics[topic]
        if t.error is None and t.partitions:
            break
        time.sleep(0.2)
    check(t.error is None, "auto-create ck-md: %s" % t.error)
    eq(sorted(t.partitions), [0, 1, 2], "ck-md partitions")
    for pm in t.partitions.values():
        eq((pm.leader, pm.replicas, pm.isrs, pm.error), (1, [1], [1], None),
           "ck-md partition %d" % pm.id)
    check(topic in p.list_topics(timeout=10).topics, "ck-md missing from the full listing")
    say("metadata: broker 1 at %s, cluster %s, ck-md 3 partitions" %
        (BOOT, md.cluster_id))


def codecs():
    t0 = int(time.time() * 1000) - 3600 * 1000
    n = 1500
    for codec in ("none", "gzip", "snappy", "lz4", "zstd"):
        topic = "ck-codec-" + codec
        p = producer(**{"compression.type": codec, "batch.num.messages": 200})
        rep = Reports()
        for i in range(n):
            kw = {}
            if i % 3 == 0:
                kw["headers"] = [("idx", str(i).encode()), ("null", None)]
            # a third keyed without a partition, the rest placed
            part = None if i % 3 == 1 else i % 3
            if part is None:
                p.produce(topic, value=value_of(i, 100 + i % 300), key=b"k%d" % i,
                          timestamp=t0 + i, on_delivery=rep.cb(i), **kw)
            else:
                p.produce(topic, value=value_of(i, 100 + i % 300), key=b"k%d" % i,
                          partition=part, timestamp=t0 + i,
                          on_delivery=rep.cb(i), **kw)
            p.poll(0)
        check(p.flush(30) == 0, "%s: flush timed out" % codec)
        check(not rep.err, "%s: delivery errors %s" % (codec, list(rep.err.items())[:3]))
        eq(len(rep.ok), n, "%s: delivered" % codec)
        got = read_all(topic, 3, n)
        per_part = {}
        for i in range(n):
            part, off = rep.ok[i]
            if i % 3 == 1:
                eq(part, zlib.crc32(b"k%d" % i) % 3, "%s: partition of key k%d" % (codec, i))
            else:
                eq(part, i % 3, "%s: partition of record %d" % (codec, i))
            # offsets within a partition follow the produce order
            check(off == per_part.get(part, -1) + 1,
                  "%s: record %d at %d/%d, after %s" % (codec, i, part, off, per_part.get(part)))
            per_part[part] = off
            m = got[(part, off)]
            eq(m.key(), b"k%d" % i, "%s: key at %d/%d" % (codec, part, off))
            eq(m.value(), value_of(i, 100 + i % 300), "%s: value of record %d" % (codec, i))
            eq(m.timestamp(), (TIMESTAMP_CREATE_TIME, t0 + i), "%s: timestamp of %d" % (codec, i))
            want_h = [("idx", str(i).encode()), ("null", None)] if i % 3 == 0 else None
            eq(m.headers(), want_h, "%s: headers of %d" % (codec, i))
            eq(m.topic(), topic, "topic")
        say("codec %s: %d records back at their offsets with keys, headers, timestamps" % (codec, n))


def log_append_time():
    """A topic with message.timestamp.type=LogAppendTime: the broker's
    clock at the append replaces the producer's timestamps, plain and
    compressed, in the delivery reports and in what a consumer reads."""
    a = AdminClient({"bootstrap.servers": BOOT})
    n = 0
    for codec in ("none", "lz4"):
        topic = "ck-lat-" + codec
        fs = a.create_topics([NewTopic(topic, 1, 1, config={
            "message.timestamp.type": "LogAppendTime"})], request_timeout=10)
        fs[topic].result(15)
        old = int(time.time() * 1000) - 3600 * 1000
        p = producer(**{"compression.type": codec})
        reports = {}

        def cb(err, msg):
            reports[msg.value()] = (err, msg.timestamp())
        before = int(time.time() * 1000)
        for i in range(20):
            for _ in range(100):
                try:
                    p.produce(topic, value=b"lat-%d" % i, key=b"k%d" % i, partition=0,
                              timestamp=old + i, on_delivery=cb)
                    break
                except BufferError:
                    p.poll(0.1)
        check(p.flush(30) == 0, "LogAppendTime %s: flush timed out" % codec)
        after = int(time.time() * 1000)
        eq(len(reports), 20, "LogAppendTime %s: delivery reports" % codec)
        for v, (err, (tstype, ts)) in sorted(reports.items()):
            check(err is None, "LogAppendTime %s: %s: %s" % (codec, v, err))
            eq(tstype, TIMESTAMP_LOG_APPEND_TIME, "LogAppendTime %s: report type of %s" % (codec, v))
            check(before <= ts <= after, "LogAppendTime %s: report time %d of %s not in %d..%d"
                  % (codec, ts, v, before, after))
        got = read_all(topic, 1, 20)
        for (part, off), m in sorted(got.items()):
            eq(m.value(), b"lat-%d" % off, "LogAppendTime %s: value at %d" % (codec, off))
            tstype, ts = m.timestamp()
            eq(tstype, TIMESTAMP_LOG_APPEND_TIME, "LogAppendTime %s: type at %d" % (codec, off))
            check(before <= ts <= after, "LogAppendTime %s: time %d at %d not in %d..%d (sent %d)"
                  % (codec, ts, off, before, after, old + off))
            eq(ts, reports[m.value()][1][1], "LogAppendTime %s: read and reported time at %d"
               % (codec, off))
        n += len(got)
    say("LogAppendTime: %d records (none, lz4) stamped with the broker's clock, "
        "reported and read as LogAppendTime" % n)


def large():
    topic = "ck-large"
    size = 1000000
    for codec in ("none", "lz4"):
        p = producer(**{"compression.type": codec, "message.max.bytes": 10000000})
        rep = Reports()
        for i in range(4):
            p.produce(topic, value=value_of(i, size), key=b"big%d" % i, partition=0,
                      on_delivery=rep.cb(i))
        check(p.flush(60) == 0, "large: flush")
        check(not rep.err, "large %s: %s" % (codec, rep.err))
    # over message.max.bytes (1048588): the broker refuses it
    p = producer(**{"message.max.bytes": 10000000})
    rep = Reports()
    p.produce(topic, value=b"x" * 1100000, partition=0, on_delivery=rep.cb(0))
    p.flush(30)
    check(0 in rep.err, "a 1.1 MB record was accepted")
    eq(rep.err[0].code(), KafkaError.MSG_SIZE_TOO_LARGE, "1.1 MB record's error")
    got = read_all(topic, 1, 8, **{"fetch.max.bytes": 2000000})
    for off in range(8):
        m = got[(0, off)]
        eq((m.key(), len(m.value())), (b"big%d" % (off % 4), size), "large record %d" % off)
        check(m.value() == value_of(off % 4, size), "large record %d differs" % off)
    say("large: 8 records of 1,000,000 bytes back; 1,100,000 refused %s" %
        rep.err[0].name())


def longpoll():
    topic = "ck-longpoll"
    p = producer()
    p.produce(topic, b"first", partition=0)
    p.flush(10)
    c = consumer(**{"fetch.wait.max.ms": 10000, "fetch.min.bytes": 1})
    c.assign([TopicPartition(topic, 0, OFFSET_END)])
    start = time.time()
    sent = None
    got = None
    while time.time() - start < 30 and got is None:
        m = c.poll(0.1)
        if sent is None and time.time() - start > 1.5:
            p.produce(topic, b"second", partition=0)
            p.flush(10)
            sent = time.time()
        if m is not None and not m.error() and m.value() == b"second":
            got = time.time()
    c.close()
    check(got is not None, "longpoll: the record never came")
    say("longpoll: delivered %.0f ms after the produce" % ((got - sent) * 1000))
    check(got - sent < 4, "the waiting fetch was not woken by the append")


def idempotence():
    topic = "ck-idem"
    n = 6000
    p = producer(**{"enable.idempotence": True, "linger.ms": 2,
                    "batch.num.messages": 100})
    rep = Reports()
    for i in range(n):
        while True:
            try:
                p.produce(topic, str(i).encode(), partition=i % 3, on_delivery=rep.cb(i))
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    check(p.flush(60) == 0, "idempotence: flush")
    check(not rep.err, "idempotence: %s" % list(rep.err.values())[:3])
    got = read_all(topic, 3, n)
    for i in range(n):
        eq(rep.ok[i], (i % 3, i // 3), "idempotent record %d" % i)
        eq(got[rep.ok[i]].value(), str(i).encode(), "value at %s" % (rep.ok[i],))
    say("idempotence: %d records exactly once, in order" % n)


def times():
    topic = "ck-times"
    t0 = int(time.time() * 1000) - 100000
    p = producer()
    for i in range(10):
        p.produce(topic, b"t%d" % i, partition=0, timestamp=t0 + i * 1000)
    # the largest timestamp is not the last record's
    p.produce(topic, b"late", partition=0, timestamp=t0 + 50000)
    p.produce(topic, b"t10", partition=0, timestamp=t0 + 10000)
    check(p.flush(10) == 0, "times: flush")
    c = consumer()
    for ts, off in ((t0 + 5500, 6), (t0 - 1, 0), (t0 + 10000, 10), (t0 + 50001, -1)):
        res = c.offsets_for_times([TopicPartition(topic, 0, ts)], timeout=10)
        eq(res[0].offset, off, "offsets_for_times t0%+d" % (ts - t0))
    eq(c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10), (0, 12), "watermarks")
    c.close()
    a = AdminClient({"bootstrap.servers": BOOT})
    tp = TopicPartition(topic, 0)
    want = {"earliest": (OffsetSpec.earliest(), 0, None),
            "latest": (OffsetSpec.latest(), 12, None),
            "for 5500": (OffsetSpec.for_timestamp(t0 + 5500), 6, t0 + 6000),
            "max timestamp": (OffsetSpec.max_timestamp(), 10, t0 + 50000)}
    for what, (spec, off, ts) in want.items():
        r = a.list_offsets({tp: spec}, request_timeout=10)[tp].result(15)
        eq(r.offset, off, "list_offsets %s" % what)
        if ts is not None:
            eq(r.timestamp, ts, "list_offsets %s timestamp" % what)
    say("times: offsets_for_times, list_offsets earliest/latest/timestamp/max_timestamp")


def main():
    say("confluent-kafka %s, librdkafka %s" % (confluent_kafka.__version__,
                                                confluent_kafka.libversion()[0]))
    metadata()
    codecs()
    log_append_time()
    large()
    longpoll()
    idempotence()
    times()
    say("ok")


if __name__ == "__main__":
    main()
