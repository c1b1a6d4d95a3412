"""kafka-python 3 against gregor (GR_BOOTSTRAP; num.partitions=3, a 500 ms
timed-out transaction check).

  data     for none, gzip, snappy, lz4, zstd: 600 records over 3
           partitions, keys, headers, CreateTime timestamps; each back at
           the partition and offset its RecordMetadata gave, every field
           equal; keyed records without a partition where murmur2 puts
           them; a LogAppendTime topic (plain and gzip) stamps records
           sent with old timestamps with the broker's clock, in
           RecordMetadata and to a consumer; 1,000,000-byte records round trip, 1,100,000 is refused
           by the broker (MessageSizeTooLargeError); offsets_for_times,
           beginning_offsets, end_offsets
  idem     enable_idempotence: 3000 records over 3 partitions once each,
           in order
  txn      commit and abort seen by read_committed and read_uncommitted;
           a second instance fences the first (ProducerFencedError);
           send_offsets_to_transaction commits a group's offsets with the
           output; ListTransactions, DescribeTransactions, DescribeProducers
  groups   two members split 4 partitions with range, roundrobin, sticky
           and cooperative-sticky and one takes over when the other
           leaves; commits resume a group exactly once; committed()
  admin    create_topics errors (TopicAlreadyExists, InvalidReplication-
           Factor, InvalidConfiguration), describe_cluster,
           describe_topics, describe_configs and incremental alter_configs,
           create_partitions (InvalidPartitions), delete_records (and
           OffsetOutOfRange), list_partition_offsets, list/describe/
           delete groups (NonEmptyGroup, GroupIdNotFound),
           list/alter/delete_group_offsets, delete_topics
           (UnknownTopicOrPartition)
"""
import sys
import time

import kafka
import kafka.errors as E
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import (ConfigResource, ConfigResourceType, KafkaAdminClient,
                         NewPartitions, NewTopic)
from kafka.coordinator.assignors.cooperative_sticky import \
    CooperativeStickyAssignor
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kafka.coordinator.assignors.sticky.sticky_assignor import \
    StickyPartitionAssignor
from kafka.partitioner.default import murmur2
from kafka.structs import OffsetAndMetadata

from common import BOOT, PORT, check, check_log_append_time, eq, fail, say, value_of

T = 30


def producer(**kw):
    c = dict(bootstrap_servers=BOOT, linger_ms=5, acks="all")
    c.update(kw)
    return KafkaProducer(**c)


def consumer(**kw):
    c = dict(bootstrap_servers=BOOT, enable_auto_commit=False,
             auto_offset_reset="earliest", consumer_timeout_ms=2000)
    c.update(kw)
    return KafkaConsumer(**c)


def read_all(topic, parts, want, **kw):
    c = consumer(**kw)
    tps = [TopicPartition(topic, p) for p in range(parts)]
    c.assign(tps)
    c.seek_to_beginning(*tps)
    ends = c.end_offsets(tps)
    got = {}
    end = time.time() + 60
    while time.time() < end and any(c.position(tp) < ends[tp] for tp in tps):
        for tp, recs in c.poll(timeout_ms=500).items():
            for r in recs:
                check((r.partition, r.offset) not in got, "%s: offset read twice" % topic)
                got[(r.partition, r.offset)] = r
    c.close()
    check(len(got) == want, "%s: read %d of %d" % (topic, len(got), want))
    return got


def data():
    n = 600
    t0 = int(time.time() * 1000) - 3600 * 1000
    for codec in (None, "gzip", "snappy", "lz4", "zstd"):
        topic = "kp-codec-%s" % codec
        p = producer(compression_type=codec)
        futs = []
        for i in range(n):
            h = [("idx", str(i).encode()), ("empty", b"")] if i % 3 == 0 else []
            part = None if i % 3 == 1 else i % 3
            futs.append(p.send(topic, value=value_of(i, 50 + i % 200), key=b"k%d" % i,
                               headers=h, partition=part, timestamp_ms=t0 + i))
        p.flush(T)
        md = [f.get(T) for f in futs]
        p.close()
        got = read_all(topic, 3, n)
        last = {}
        for i, m in enumerate(md):
            if i % 3 == 1:
                eq(m.partition, (murmur2(b"k%d" % i) & 0x7fffffff) % 3, "murmur2 partition")
            else:
                eq(m.partition, i % 3, "partition of %d" % i)
            eq(m.offset, last.get(m.partition, -1) + 1, "offset order")
            last[m.partition] = m.offset
            r = got[(m.partition, m.offset)]
            want = (b"k%d" % i, value_of(i, 50 + i % 200), t0 + i, 0,
                    [("idx", str(i).encode()), ("empty", b"")] if i % 3 == 0 else [])
            eq((r.key, r.value, r.timestamp, r.timestamp_type, r.headers), want,
               "%s: record %d" % (codec, i))
        say("codec %s: %d records back with keys, headers, timestamps" % (codec, n))

    log_append_time()

    topic = "kp-large"
    p = producer(compression_type="lz4", max_request_size=3000000)
    md = [p.send(topic, value_of(i, 1000000), partition=0).get(T) for i in range(3)]
    eq([m.offset for m in md], [0, 1, 2], "large offsets")
    p.close()
    p = producer(max_request_size=3000000)  # uncompressed: the batch is over 1048588
    try:
        p.send(topic, b"x" * 1100000, partition=0).get(T)
        fail("a 1.1 MB record was accepted")
    except E.MessageSizeTooLargeError as e:
        say("large: 1.1 MB refused: %s" % type(e).__name__)
    p.close()
    got = read_all(topic, 1, 3, max_partition_fetch_bytes=2000000)
    for i in range(3):
        check(got[(0, i)].value == value_of(i, 1000000), "large record %d differs" % i)
    say("large: 3 records of 1,000,000 bytes back")

    topic = "kp-times"
    p = producer()
    for i in range(10):
        p.send(topic, b"t%d" % i, partition=0, timestamp_ms=t0 + i * 1000)
    p.flush(T)
    p.close()
    c = consumer()
    tp = TopicPartition(topic, 0)
    r = c.offsets_for_times({tp: t0 + 4500})[tp]
    eq((r.offset, r.timestamp), (5, t0 + 5000), "offsets_for_times")
    eq(c.offsets_for_times({tp: t0 + 99999})[tp], None, "offsets_for_times past the end")
    eq((c.beginning_offsets([tp])[tp], c.end_offsets([tp])[tp]), (0, 10), "beginning/end")
    c.close()
    say("times: offsets_for_times, beginning and end offsets")


def log_append_time():
    """A topic with message.timestamp.type=LogAppendTime: records sent with
    old timestamps (plain and gzip) get the broker's clock at the append,
    in RecordMetadata and as what a consumer reads (timestamp_type 1)."""
    a = KafkaAdminClient(bootstrap_servers=BOOT)
    for codec in (None, "gzip"):
        topic = "kp-lat-%s" % codec
        a.create_topics([NewTopic(topic, 1, 1, topic_configs={
            "message.timestamp.type": "LogAppendTime"})])
        old = int(time.time() * 1000) - 3600 * 1000
        p = producer(compression_type=codec)
        before = int(time.time() * 1000)
        futs = [p.send(topic, b"lat-%d" % i, key=b"k%d" % i, partition=0, timestamp_ms=old + i)
                for i in range(20)]
        p.flush(T)
        md = [f.get(T) for f in futs]
        after = int(time.time() * 1000)
        p.close()
        check_log_append_time("LogAppendTime %s" % codec, md, read_all(topic, 1, 20),
                              (before, after), old)
    a.close()
    say("LogAppendTime: 40 records (none, gzip) stamped with the broker's clock, "
        "acknowledged and read as LogAppendTime")


def idem():
    topic, n = "kp-idem", 3000
    p = producer(enable_idempotence=True, linger_ms=2, batch_size=2000)
    futs = [p.send(topic, str(i).encode(), partition=i % 3) for i in range(n)]
    p.flush(T)
    md = [f.get(T) for f in futs]
    p.close()
    got = read_all(topic, 3, n)
    for i in range(n):
        eq((md[i].partition, md[i].offset), (i % 3, i // 3), "idempotent record %d" % i)
        eq(got[(i % 3, i // 3)].value, str(i).encode(), "idempotent value")
    say("idempotence: %d once each, in order" % n)


def values(topic, parts, isolation):
    c = consumer(isolation_level=isolation)
    tps = [TopicPartition(topic, p) for p in range(parts)]
    c.assign(tps)
    c.seek_to_beginning(*tps)
    ends = c.end_offsets(tps)  # the LSO for read_committed
    out = []
    end = time.time() + 30
    while time.time() < end and any(c.position(tp) < ends[tp] for tp in tps):
        for tp, recs in sorted(c.poll(timeout_ms=300).items()):
            out.extend(r.value.decode() for r in recs)
    c.close()
    return out


def txn():
    topic = "kp-txn"
    p = producer(transactional_id="kp-txn")
    p.init_transactions()
    for verdict in "cac":
        p.begin_transaction()
        for i in range(30):
            p.send(topic, ("%s-%d" % (verdict, i)).encode(), partition=0)
        if verdict == "c":
            p.commit_transaction()
        else:
            p.flush(T)  # sent, so that read_uncommitted has them
            p.abort_transaction()
    rc = values(topic, 1, "read_committed")
    eq(rc, ["c-%d" % i for i in range(30)] * 2, "read_committed")
    eq(len(values(topic, 1, "read_uncommitted")), 90, "read_uncommitted")
    say("txn: commit, abort, commit: read_committed 60, read_uncommitted 90")

    p.begin_transaction()
    p.send(topic, b"a-zombie", partition=0).get(T)
    p2 = producer(transactional_id="kp-txn")
    p2.init_transactions()
    try:
        p.commit_transaction()
        fail("the fenced producer committed")
    except (E.ProducerFencedError, E.InvalidProducerEpochError, E.KafkaError) as e:
        say("txn: the fenced instance's commit fails: %s" % type(e).__name__)
    p.close(timeout=5)

    # consume-transform-produce
    src, dst, group = "kp-ctp-in", "kp-ctp-out", "kp-ctp"
    q = producer()
    for i in range(100):
        q.send(src, str(i).encode(), partition=0)
    q.flush(T)
    q.close()
    c = consumer(group_id=group, isolation_level="read_committed",
                 session_timeout_ms=6000, heartbeat_interval_ms=300)
    c.subscribe([src])
    done = 0
    end = time.time() + 40
    while done < 100:
        check(time.time() < end, "ctp: %d of 100" % done)
        batch = c.poll(timeout_ms=500)
        recs = [r for rs in batch.values() for r in rs]
        if not recs:
            continue
        p2.begin_transaction()
        for r in recs:
            p2.send(dst, b"copy-" + r.value, partition=0)
        offs = {tp: OffsetAndMetadata(rs[-1].offset + 1, "", -1) for tp, rs in batch.items()}
        p2.send_offsets_to_transaction(offs, c.group_metadata())
        p2.commit_transaction()
        done += len(recs)
    c.close()
    eq(values(dst, 1, "read_committed"), ["copy-%d" % i for i in range(100)], "ctp output")
    a = KafkaAdminClient(bootstrap_servers=BOOT)
    offs = a.list_group_offsets({group: None})[group]
    eq(offs[TopicPartition(src, 0)].offset, 100, "ctp group offset")

    lst = {t.transactional_id: t for ts in a.list_transactions().values() for t in ts}
    check("kp-txn" in lst, "ListTransactions: %s" % lst)
    d = a.describe_transactions(["kp-txn"])["kp-txn"]
    say("txn: ListTransactions %s; DescribeTransactions kp-txn: %s epoch %d" %
        (sorted(lst), d.state, d.producer_epoch))
    check(str(d.state).endswith("COMPLETE_COMMIT") or "CompleteCommit" in str(d.state),
          "kp-txn state %s" % d.state)
    ps = a.describe_producers([TopicPartition(topic, 0)])[TopicPartition(topic, 0)]
    check(ps.active_producers, "DescribeProducers: no producer on %s" % topic)
    say("txn: DescribeProducers %s-0: %d producer(s)" % (topic, len(ps.active_producers)))
    a.close()
    p2.close()


def groups():
    topic = "kp-group"
    a = KafkaAdminClient(bootstrap_servers=BOOT)
    a.create_topics([NewTopic(topic, 4, 1)])
    for cls in (RangePartitionAssignor, RoundRobinPartitionAssignor, StickyPartitionAssignor,
                CooperativeStickyAssignor):
        group = "kp-g-" + cls.name
        cs = [consumer(group_id=group, client_id="m%d" % i, session_timeout_ms=3000,
                       heartbeat_interval_ms=200, partition_assignment_strategy=[cls])
              for i in range(2)]
        for c in cs:
            c.subscribe([topic])
        end = time.time() + 40
        while True:
            for c in cs:
                c.poll(timeout_ms=50)
            a0, a1 = cs[0].assignment(), cs[1].assignment()
            if len(a0) == 2 and len(a1) == 2 and not (a0 & a1):
                break
            check(time.time() < end, "%s: no split: %s %s" % (cls.name, a0, a1))
        split = (sorted(p.partition for p in a0), sorted(p.partition for p in a1))
        cs[1].close()
        while len(cs[0].assignment()) < 4:
            cs[0].poll(timeout_ms=50)
            check(time.time() < end, "%s: no take-over" % cls.name)
        if cls is CooperativeStickyAssignor:
            check(a0 <= cs[0].assignment(), "cooperative member lost partitions")
        cs[0].close()
        say("groups %s: split %s, then one member has all 4" % (cls.name, split))

    # resume: commit, a new member goes on from there
    p = producer()
    for i in range(200):
        p.send(topic, str(i).encode(), key=b"k%d" % i)
    p.flush(T)
    p.close()
    seen = []
    for run in range(3):
        c = consumer(group_id="kp-resume", session_timeout_ms=6000, heartbeat_interval_ms=300)
        c.subscribe([topic])
        got = 0
        end = time.time() + 30
        while got < 80 and time.time() < end:
            batch = c.poll(timeout_ms=300, max_records=80 - got)
            if not batch and run == 2 and c.assignment():
                break
            for tp, recs in batch.items():
                seen.extend(int(r.value) for r in recs)
                got += len(recs)
        c.commit()
        committed = {tp.partition: c.committed(tp) for tp in c.assignment()}
        eq({k: v for k, v in committed.items()},
           {tp.partition: c.position(tp) for tp in c.assignment()}, "committed() = position")
        c.close()
    eq(sorted(seen), list(range(200)), "resumed group values")
    say("groups: 200 values once each over 3 members in turn, committed() at the position")
    a.close()


def admin():
    a = KafkaAdminClient(bootstrap_servers=BOOT)
    r = a.create_topics([NewTopic("kp-a", 3, 1, topic_configs={"retention.ms": "3600000"}),
                         NewTopic("kp-rf", 1, 3),
                         NewTopic("kp-bad", 1, 1, topic_configs={"cleanup.policy": "shred"})],
                        raise_errors=False)
    codes = {t["name"]: t["error_code"] for t in r["topics"]}
    eq(codes, {"kp-a": 0, "kp-rf": E.InvalidReplicationFactorError.errno,
               "kp-bad": E.InvalidConfigurationError.errno}, "create_topics errors")
    try:
        a.create_topics([NewTopic("kp-a", 1, 1)])
        fail("created kp-a twice")
    except E.TopicAlreadyExistsError:
        pass
    c = a.describe_cluster()
    eq((c["controller_id"], [(b["broker_id"], b["host"], b["port"]) for b in c["brokers"]]),
       (1, [(1, "127.0.0.1", PORT)]), "describe_cluster")
    d = a.describe_topics(["kp-a"])[0]
    eq([(p["partition_index"], p["leader_id"], p["replica_nodes"], p["isr_nodes"])
        for p in d["partitions"]], [(i, 1, [1], [1]) for i in range(3)], "describe_topics")
    cfg = a.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "kp-a")])
    rm = cfg["topic"]["kp-a"]["retention.ms"]
    eq((rm["value"], rm["config_source"]), ("3600000", "DYNAMIC_TOPIC_CONFIG"), "retention.ms")
    a.alter_configs([ConfigResource(ConfigResourceType.TOPIC, "kp-a",
                                    configs={"max.message.bytes": "2000"})], incremental=True)
    cfg = a.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "kp-a")])["topic"]["kp-a"]
    eq((cfg["max.message.bytes"]["value"], cfg["retention.ms"]["value"]), ("2000", "3600000"),
       "after an incremental alter")
    p = producer(max_request_size=3000000)
    try:
        p.send("kp-a", b"x" * 5000, partition=0).get(T)
        fail("5 kB record over max.message.bytes 2000 accepted")
    except E.MessageSizeTooLargeError:
        pass
    # kafka-python's (default idempotent) producer treats that as fatal: a new one
    p.close()
    p = producer()
    for i in range(50):
        p.send("kp-a", b"r%d" % i, partition=0)
    p.flush(T)
    p.close()
    a.create_partitions({"kp-a": NewPartitions(5)})
    eq(len(a.describe_topics(["kp-a"])[0]["partitions"]), 5, "after create_partitions")
    try:
        a.create_partitions({"kp-a": NewPartitions(4)})
        fail("shrunk kp-a")
    except E.InvalidPartitionsError:
        pass
    tp = TopicPartition("kp-a", 0)
    r = a.delete_records({tp: 20})
    say("admin: delete_records: %s" % r)
    c = consumer()
    eq((c.beginning_offsets([tp])[tp], c.end_offsets([tp])[tp]), (20, 50), "after delete_records")
    c.close()
    try:
        a.delete_records({tp: 500})
        fail("delete_records past the end accepted")
    except E.OffsetOutOfRangeError:
        pass
    say("admin: topics, cluster, configs, partitions, records")

    # groups
    grp = "kp-adm-g"
    m = consumer(group_id=grp, client_id="kp-member", session_timeout_ms=6000,
                 heartbeat_interval_ms=300)
    m.subscribe(["kp-a"])
    end = time.time() + 30
    while not m.assignment():
        m.poll(timeout_ms=100)
        check(time.time() < end, "no assignment")
    m.commit({tp: OffsetAndMetadata(25, "meta", -1)})
    listed = {g["group_id"]: g for g in a.list_groups()}
    check(grp in listed, "list_groups: %s" % list(listed))
    eq(listed[grp]["group_state"], "Stable", "list_groups state")
    dg = a.describe_groups([grp])[grp]
    mem = dg["members"]
    eq((dg["group_state"], dg["protocol_data"], len(mem), mem[0]["client_id"],
        mem[0]["member_assignment"]["assigned_partitions"]),
       ("Stable", "range", 1, "kp-member", [{"topic": "kp-a", "partitions": [0, 1, 2, 3, 4]}]),
       "describe_groups")
    eq(a.delete_groups([grp]), {grp: "NonEmptyGroupError"}, "delete_groups with a member")
    offs = a.list_group_offsets({grp: None})[grp]
    eq((offs[tp].offset, offs[tp].metadata), (25, "meta"), "list_group_offsets")
    m.close()
    r = a.alter_group_offsets(grp, {tp: OffsetAndMetadata(30, "", -1)})
    check(all(e is E.NoError or isinstance(e, E.NoError) for e in r.values()),
          "alter_group_offsets: %s" % r)
    eq(a.list_group_offsets({grp: None})[grp][tp].offset, 30, "after alter_group_offsets")
    r = a.delete_group_offsets(grp, [tp])
    check(all(e is E.NoError or isinstance(e, E.NoError) for e in r.values()),
          "delete_group_offsets: %s" % r)
    eq(a.list_group_offsets({grp: None})[grp].get(tp), None, "after delete_group_offsets")
    # Kafka: a group with no members and no offsets is gone
    eq(a.delete_groups([grp]), {grp: "GroupIdNotFoundError"}, "delete_groups of the emptied group")
    say("admin: list/describe/delete groups, list/alter/delete_group_offsets")

    a.delete_topics(["kp-a"])
    try:
        a.delete_topics(["kp-a"])
        fail("deleted kp-a twice")
    except E.UnknownTopicOrPartitionError:
        pass
    check("kp-a" not in a.list_topics(), "kp-a still listed")
    a.close()
    say("admin: delete_topics, then UnknownTopicOrPartition")


def main():
    say("kafka-python %s" % kafka.__version__)
    for m in sys.argv[1].split(","):
        {"data": data, "idem": idem, "txn": txn, "groups": groups, "admin": admin}[m]()
    say("ok")


if __name__ == "__main__":
    main()
