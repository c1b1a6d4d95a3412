"""confluent-kafka (current librdkafka) admin against gregor (GR_BOOTSTRAP,
started with log.cleaner.backoff.ms=200 and ssl.key.password set):

  create     configs and a replica assignment; validate_only creates
             nothing; INVALID_CONFIG, TOPIC_ALREADY_EXISTS and
             INVALID_REPLICATION_FACTOR as Kafka answers them
  describe   describe_topics (partitions, leader, replicas, ISR, topic id;
             UNKNOWN_TOPIC_OR_PART), describe_cluster (id, controller,
             the one node)
  configs    describe_configs values, sources, synonyms, read-only and
             sensitive flags; incremental_alter_configs SET, DELETE,
             APPEND and SUBTRACT on a list (APPEND on a scalar is
             INVALID_CONFIG), for a topic and this broker; Kafka 3.x's
             message.format.version set and described (an invalid value
             INVALID_CONFIG); a read-only broker config refused; alter_configs
             replaces a topic's set; max.message.bytes takes effect at once
  partitions 3 -> 5; shrinking is INVALID_PARTITIONS
  records    delete_records moves the low watermark (list_offsets and a
             consumer agree); past the end OFFSET_OUT_OF_RANGE; OFFSET_END
  scram      describe_user_scram_credentials (advertised; no users yet)
  delete     delete_topics; again UNKNOWN_TOPIC_OR_PART
  compaction latest value per key at its original offset, tombstones
             kept a while then gone, plain and lz4 batches
  kip467     100 records in one batch to a compacted topic, 10 without a
             key: those 10 fail INVALID_RECORD, the 90 others
             _INVALID_DIFFERENT_RECORD, nothing is appended
"""
import time
import warnings

warnings.simplefilter("ignore", DeprecationWarning)

from confluent_kafka import (Consumer, KafkaError, KafkaException, Producer,
                             TopicCollection, TopicPartition, OFFSET_BEGINNING,
                             OFFSET_END)
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry,
                                   ConfigResource, ConfigSource, NewPartitions,
                                   NewTopic, OffsetSpec, ResourceType)

from common import BOOT, PORT, api_versions, check, eq, fail, say, wait_for

A = AdminClient({"bootstrap.servers": BOOT})
T = 15


def code_of(fut):
    """The error code a future fails with, or None when it succeeds."""
    try:
        fut.result(T)
        return None
    except KafkaException as e:
        return e.args[0].code()


def err_of(fut):
    try:
        fut.result(T)
        return None
    except KafkaException as e:
        return e.args[0]


def name(code):
    return KafkaError(code).name() if code is not None else "NO_ERROR"


def expect_code(fut, want, what):
    got = code_of(fut)
    if got != want:
        fail("%s: %s, want %s" % (what, name(got), name(want)))


def topics():
    return A.list_topics(timeout=10).topics


def describe(restype, rname):
    r = ConfigResource(restype, rname)
    return A.describe_configs([r], request_timeout=10)[r].result(T)


def entry(cfg, key, value, source):
    e = cfg[key]
    eq((e.value, e.source), (value, source.value), "config %s" % key)
    return e


def incremental(restype, rname, *ops):
    r = ConfigResource(restype, rname, incremental_configs=[
        ConfigEntry(k, v, incremental_operation=op) for k, v, op in ops])
    return A.incremental_alter_configs([r], request_timeout=10)[r]


class DR:
    def __init__(self):
        self.res = {}

    def cb(self, i):
        def f(err, msg):
            self.res[i] = (err, msg.partition(), msg.offset())
        return f


def produce(topic, values, conf=None, partition=0, keys=None):
    c = {"bootstrap.servers": BOOT, "linger.ms": 5}
    c.update(conf or {})
    p = Producer(c)
    dr = DR()
    for i, v in enumerate(values):
        p.produce(topic, v, key=keys[i] if keys else None, partition=partition,
                  on_delivery=dr.cb(i))
    check(p.flush(30) == 0, "flush to %s" % topic)
    return [dr.res[i] for i in range(len(values))]


def read(topic, partition=0):
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "ck-admin-read",
                  "enable.auto.commit": False, "enable.partition.eof": True})
    c.assign([TopicPartition(topic, partition, OFFSET_BEGINNING)])
    out = []
    end = time.time() + 30
    while time.time() < end:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                break
            fail("read %s: %s" % (topic, m.error()))
        out.append(m)
    else:
        fail("read %s: no end of partition" % topic)
    c.close()
    return out


def create():
    fs = A.create_topics([
        NewTopic("ca-a", 3, 1, config={"retention.ms": "3600000",
                                       "max.message.bytes": "100000"}),
        NewTopic("ca-bad", 1, 1, config={"cleanup.policy": "shred"}),
        NewTopic("ca-rf", 1, 3),
        NewTopic("ca-asg", 2, -1, replica_assignment=[[1], [1]]),
    ], request_timeout=10)
    expect_code(fs["ca-a"], None, "create ca-a")
    expect_code(fs["ca-asg"], None, "create ca-asg")
    e = err_of(fs["ca-bad"])
    check(e is not None and e.code() == KafkaError.INVALID_CONFIG,
          "cleanup.policy=shred: %s" % e)
    check("shred" in e.str() and "cleanup.policy" in e.str(),
          "INVALID_CONFIG message names neither key nor value: %s" % e.str())
    expect_code(fs["ca-rf"], KafkaError.INVALID_REPLICATION_FACTOR, "rf 3 on one broker")
    t = topics()
    eq((len(t["ca-a"].partitions), len(t["ca-asg"].partitions)), (3, 2), "partition counts")
    check("ca-bad" not in t and "ca-rf" not in t, "a refused topic exists")
    fs = A.create_topics([NewTopic("ca-a", 1, 1)], request_timeout=10)
    expect_code(fs["ca-a"], KafkaError.TOPIC_ALREADY_EXISTS, "create ca-a again")
    fs = A.create_topics([NewTopic("ca-v", 2, 1)], validate_only=True, request_timeout=10)
    expect_code(fs["ca-v"], None, "validate_only")
    check("ca-v" not in topics(), "validate_only created ca-v")
    say("create: configs, assignment, validate_only; INVALID_CONFIG (%s), "
        "TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR" % e.str())


def describe_topics_cluster():
    fs = A.describe_topics(TopicCollection(["ca-a", "ca-asg", "ca-none"]), request_timeout=10)
    ids = set()
    for tname, n in (("ca-a", 3), ("ca-asg", 2)):
        d = fs[tname].result(T)
        eq((d.name, d.is_internal, len(d.partitions)), (tname, False, n), "describe_topics " + tname)
        for i, p in enumerate(d.partitions):
            eq((p.id, p.leader.id, [r.id for r in p.replicas], [r.id for r in p.isr]),
               (i, 1, [1], [1]), "%s partition %d" % (tname, i))
            eq((p.leader.host, p.leader.port), ("127.0.0.1", PORT), "leader address")
        check(d.topic_id is not None and str(d.topic_id) not in ("", "AAAAAAAAAAAAAAAAAAAAAA"),
              "%s has no topic id" % tname)
        ids.add(str(d.topic_id))
    eq(len(ids), 2, "distinct topic ids")
    expect_code(fs["ca-none"], KafkaError.UNKNOWN_TOPIC_OR_PART, "describe_topics of a missing topic")
    c = A.describe_cluster(request_timeout=10).result(T)
    md = A.list_topics(timeout=10)
    eq(c.cluster_id, md.cluster_id, "describe_cluster id")
    eq(c.controller.id, 1, "controller")
    eq([(n.id, n.host, n.port) for n in c.nodes], [(1, "127.0.0.1", PORT)], "nodes")
    say("describe: topics (ids %s), cluster %s" % (sorted(ids), c.cluster_id))


def configs():
    cfg = describe(ResourceType.TOPIC, "ca-a")
    e = entry(cfg, "retention.ms", "3600000", ConfigSource.DYNAMIC_TOPIC_CONFIG)
    syn = list(e.synonyms)
    # Kafka's ConfigHelper: the broker synonyms from the primary name on
    # (log.retention.ms, not set here), so none
    eq(syn, ["retention.ms"], "retention.ms synonyms")
    e = entry(cfg, "cleanup.policy", "delete", ConfigSource.DEFAULT_CONFIG)
    eq(list(e.synonyms), ["log.cleanup.policy"], "cleanup.policy synonyms")
    entry(cfg, "segment.bytes", "1073741824", ConfigSource.DEFAULT_CONFIG)
    check(cfg["cleanup.policy"].is_default and not cfg["retention.ms"].is_default, "is_default flags")
    b = describe(ResourceType.BROKER, "1")
    entry(b, "log.retention.hours", "168", ConfigSource.DEFAULT_CONFIG)
    entry(b, "log.cleaner.backoff.ms", "200", ConfigSource.STATIC_BROKER_CONFIG)
    # Kafka 4.4: log.retention.hours is read-only, log.retention.ms (no
    # value by default) dynamic
    check(b["num.partitions"].is_read_only and b["log.retention.hours"].is_read_only
          and not b["log.retention.ms"].is_read_only and b["log.retention.ms"].value is None,
          "read-only flags")
    check(b["ssl.key.password"].value is None and b["ssl.key.password"].is_sensitive,
          "a password was described: %r" % b["ssl.key.password"].value)

    # max.message.bytes 100000 takes a 50 kB record
    r = produce("ca-a", [b"x" * 50000])
    eq(r[0][0], None, "50 kB record with max.message.bytes 100000")
    S, D, AP, SU = (AlterConfigOpType.SET, AlterConfigOpType.DELETE,
                    AlterConfigOpType.APPEND, AlterConfigOpType.SUBTRACT)
    expect_code(incremental(ResourceType.TOPIC, "ca-a", ("max.message.bytes", "1000", S),
                            ("retention.ms", None, D), ("cleanup.policy", "compact", AP)),
                None, "incremental SET/DELETE/APPEND")
    cfg = describe(ResourceType.TOPIC, "ca-a")
    entry(cfg, "max.message.bytes", "1000", ConfigSource.DYNAMIC_TOPIC_CONFIG)
    entry(cfg, "retention.ms", "604800000", ConfigSource.DEFAULT_CONFIG)
    entry(cfg, "cleanup.policy", "delete,compact", ConfigSource.DYNAMIC_TOPIC_CONFIG)
    r = produce("ca-a", [b"x" * 50000], keys=[b"k"])
    check(r[0][0] is not None and r[0][0].code() == KafkaError.MSG_SIZE_TOO_LARGE,
          "50 kB record after max.message.bytes=1000: %s" % (r[0][0],))
    expect_code(incremental(ResourceType.TOPIC, "ca-a", ("cleanup.policy", "compact", SU)),
                None, "incremental SUBTRACT")
    entry(describe(ResourceType.TOPIC, "ca-a"), "cleanup.policy", "delete",
          ConfigSource.DYNAMIC_TOPIC_CONFIG)
    expect_code(incremental(ResourceType.TOPIC, "ca-a", ("retention.ms", "5", AP)),
                KafkaError.INVALID_CONFIG, "APPEND to a scalar config")
    expect_code(incremental(ResourceType.TOPIC, "ca-a", ("segment.bytes", "zero", S)),
                KafkaError.INVALID_CONFIG, "segment.bytes=zero")
    # Kafka 3.x's topic key that 4.x dropped and librdkafka's own tests
    # still alter: accepted and described as 3.x did, checked as 3.x did
    expect_code(incremental(ResourceType.TOPIC, "ca-a", ("message.format.version", "0.10.0", S)),
                None, "message.format.version=0.10.0 (Kafka 3.x's key)")
    entry(describe(ResourceType.TOPIC, "ca-a"), "message.format.version", "0.10.0",
          ConfigSource.DYNAMIC_TOPIC_CONFIG)
    expect_code(incremental(ResourceType.TOPIC, "ca-a", ("message.format.version", "abc", S)),
                KafkaError.INVALID_CONFIG, "message.format.version=abc")
    # this broker, then the cluster-wide default
    expect_code(incremental(ResourceType.BROKER, "1", ("log.retention.bytes", "1073741824", S)),
                None, "broker 1 log.retention.bytes")
    try:
        incremental(ResourceType.BROKER, "", ("log.retention.ms", "86400000", S))
        fail("the cluster default resource was accepted by the client")
    except ValueError:
        print('# confluent-kafka: cannot name the cluster-wide broker default (resource "")')
    expect_code(incremental(ResourceType.BROKER, "1", ("num.partitions", "3", S)),
                KafkaError.INVALID_REQUEST, "read-only num.partitions")
    cfg = describe(ResourceType.TOPIC, "ca-a")
    entry(cfg, "retention.bytes", "1073741824", ConfigSource.DYNAMIC_BROKER_CONFIG)
    # alter_configs replaces the topic's whole set
    r = ConfigResource(ResourceType.TOPIC, "ca-a", set_config={"retention.ms": "7200000"})
    expect_code(A.alter_configs([r], request_timeout=10)[r], None, "alter_configs")
    cfg = describe(ResourceType.TOPIC, "ca-a")
    entry(cfg, "retention.ms", "7200000", ConfigSource.DYNAMIC_TOPIC_CONFIG)
    entry(cfg, "max.message.bytes", "1048588", ConfigSource.DEFAULT_CONFIG)
    expect_code(incremental(ResourceType.BROKER, "1", ("log.retention.bytes", None, D)),
                None, "broker 1 DELETE")
    cfg = describe(ResourceType.TOPIC, "ca-a")
    entry(cfg, "retention.bytes", "-1", ConfigSource.DEFAULT_CONFIG)
    say("configs: describe, incremental SET/DELETE/APPEND/SUBTRACT on topic and broker; alter_configs replaces")


def partitions():
    fs = A.create_partitions([NewPartitions("ca-a", 5)], request_timeout=10)
    expect_code(fs["ca-a"], None, "create_partitions 5")
    eq(len(topics()["ca-a"].partitions), 5, "partitions after create_partitions")
    fs = A.create_partitions([NewPartitions("ca-a", 4)], request_timeout=10)
    expect_code(fs["ca-a"], KafkaError.INVALID_PARTITIONS, "shrinking to 4")
    say("partitions: 3 -> 5, 4 refused")


def records():
    base = A.list_offsets({TopicPartition("ca-a", 0): OffsetSpec.latest()})[
        TopicPartition("ca-a", 0)].result(T).offset
    produce("ca-a", [b"r%d" % i for i in range(100)])
    hi = base + 100
    tp = TopicPartition("ca-a", 0, base + 60)
    d = A.delete_records([tp], request_timeout=10)[tp].result(T)
    eq(d.low_watermark, base + 60, "delete_records low watermark")
    lo = A.list_offsets({TopicPartition("ca-a", 0): OffsetSpec.earliest()})[
        TopicPartition("ca-a", 0)].result(T).offset
    eq(lo, base + 60, "earliest after delete_records")
    first = read("ca-a")[0]
    eq((first.offset(), first.value()), (base + 60, b"r60"), "first record read")
    tp = TopicPartition("ca-a", 0, hi + 400)
    expect_code(A.delete_records([tp], request_timeout=10)[tp], KafkaError.OFFSET_OUT_OF_RANGE,
                "delete_records past the end")
    tp = TopicPartition("ca-a", 0, OFFSET_END)
    eq(A.delete_records([tp], request_timeout=10)[tp].result(T).low_watermark, hi,
       "delete_records to the end")
    say("records: low watermark %d, then %d" % (base + 60, hi))


def scram():
    check(50 in api_versions(), "DescribeUserScramCredentials is not advertised")
    res = A.describe_user_scram_credentials(request_timeout=10).result(T)
    eq(len(res), 0, "SCRAM users on a new broker")
    say("scram: describe_user_scram_credentials: no users")


def delete():
    fs = A.delete_topics(["ca-a", "ca-asg"], request_timeout=10)
    for t in fs:
        expect_code(fs[t], None, "delete " + t)
    fs = A.delete_topics(["ca-a"], request_timeout=10)
    expect_code(fs["ca-a"], KafkaError.UNKNOWN_TOPIC_OR_PART, "delete again")
    t = topics()
    check("ca-a" not in t and "ca-asg" not in t, "deleted topics still listed")
    say("delete: gone; again UNKNOWN_TOPIC_OR_PART")


def compaction():
    topic = "ca-compact"
    fs = A.create_topics([NewTopic(topic, 1, 1, config={
        "cleanup.policy": "compact", "segment.ms": "200",
        "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "1500"})],
        request_timeout=10)
    expect_code(fs[topic], None, "create " + topic)
    # keyless records are refused
    r = produce(topic, [b"nokey"])
    check(r[0][0] is not None and r[0][0].code() == KafkaError.INVALID_RECORD,
          "a keyless record on a compacted topic: %s" % (r[0][0],))
    latest = {}
    for rnd in range(4):
        keys = [b"k%d" % k for k in range(20)]
        vals = [b"r%d-%d" % (rnd, k) for k in range(20)]
        if rnd == 3:  # tombstones for k0..k4
            vals = [None] * 5 + vals[5:]
        conf = {"compression.type": "lz4"} if rnd % 2 else None
        res = produce(topic, vals, conf=conf, keys=keys)
        for k, (err, _p, off) in enumerate(res):
            eq(err, None, "compacted produce")
            latest[keys[k]] = (vals[k], off)
        time.sleep(0.3)
    produce(topic, [b"end"], keys=[b"zz"])  # rolls the last round's segment
    want_live = {k: v for k, v in latest.items() if v[0] is not None}

    def state():
        got = {m.key(): (m.value(), m.offset()) for m in read(topic)}
        live = {k: v for k, v in got.items() if v[0] is not None and k != b"zz"}
        tomb = [k for k, v in got.items() if v[0] is None]
        return got, live, tomb

    end = time.time() + 30
    seen_tombstones = False
    while True:
        got, live, tomb = state()
        n = len(read(topic))
        if live == want_live and n == len(got):
            seen_tombstones |= len(tomb) == 5
            if not tomb:
                break
        if time.time() > end:
            fail("compaction: %d records, live %d of %d right, tombstones %s" %
                 (n, sum(1 for k in want_live if live.get(k) == want_live[k]),
                  len(want_live), tomb))
        time.sleep(0.3)
    for k in tomb:
        eq(got[k][1], latest[k][1], "tombstone offset")
    say("compaction: the latest of %d keys at their offsets, tombstones %s then gone" %
        (len(want_live), "seen" if seen_tombstones else "not seen"))


def kip467():
    topic = "ca-kip467"
    fs = A.create_topics([NewTopic(topic, 1, 1, config={"cleanup.policy": "compact"})],
                         request_timeout=10)
    expect_code(fs[topic], None, "create " + topic)
    keys = [None if i % 10 == 3 else b"k%d" % i for i in range(100)]
    res = produce(topic, [b"v%d" % i for i in range(100)], keys=keys,
                  conf={"linger.ms": 500, "batch.num.messages": 1000})
    bad = [i for i in range(100) if keys[i] is None]
    codes = {}
    for i, (err, _p, _o) in enumerate(res):
        codes.setdefault(err.name() if err else "NO_ERROR", []).append(i)
    say("kip467: delivery results %s" % {k: len(v) for k, v in codes.items()})
    for i in bad:
        err = res[i][0]
        check(err is not None and err.code() == KafkaError.INVALID_RECORD,
              "keyless record %d: %s" % (i, err))
    for i in range(100):
        if keys[i] is not None:
            err = res[i][0]
            check(err is not None and err.code() == KafkaError._INVALID_DIFFERENT_RECORD,
                  "keyed record %d: %s" % (i, err))
    eq(len(read(topic)), 0, "records appended from the refused batch")
    print("# confluent-kafka: a delivery report carries librdkafka's error string, "
          "not the broker's per-record message")
    # the batch again with keys only goes in whole
    res = produce(topic, [b"v%d" % i for i in range(100)], keys=[b"k%d" % i for i in range(100)],
                  conf={"linger.ms": 500, "batch.num.messages": 1000})
    eq([r[0] for r in res], [None] * 100, "the keyed batch's errors")
    eq([r[2] for r in res], list(range(100)), "the keyed batch's offsets")
    say("kip467: 10 INVALID_RECORD, 90 _INVALID_DIFFERENT_RECORD, none appended; "
        "the batch with keys at offsets 0..99")


def main():
    which = __import__("sys").argv[1:] or ["admin", "kip467"]
    if "admin" in which:
        create()
        describe_topics_cluster()
        configs()
        partitions()
        records()
        scram()
        delete()
        compaction()
    if "kip467" in which:
        kip467()
    say("ok")


if __name__ == "__main__":
    main()
