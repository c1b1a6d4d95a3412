"""aiokafka against gregor (GR_BOOTSTRAP; num.partitions=3).

  data     for none, gzip, snappy, lz4, zstd: 450 records over 3
           partitions with keys, headers and CreateTime timestamps, each
           back at the partition and offset its RecordMetadata gave, every
           field equal; keyed records without a partition where murmur2
           puts them; a send_batch batch; a LogAppendTime topic (plain
           and gzip) stamps records sent with old timestamps with the
           broker's clock, in RecordMetadata and to a consumer;
           1,000,000-byte records round
           trip, 1,100,000 is refused by the broker
           (MessageSizeTooLargeError); offsets_for_times, beginning and
           end offsets
  idem     enable_idempotence: 2000 records once each, in order
  txn      commit and abort seen by read_committed and read_uncommitted;
           consume-transform-produce with send_offsets_to_transaction (the
           group's offsets at the end of the input); a second instance of
           the transactional_id fences the first (ProducerFenced)
  groups   two members split 4 partitions with range, roundrobin and
           sticky and one takes over when the other leaves; commits resume
           a group exactly once over three members; committed()
  admin    create_topics (TOPIC_ALREADY_EXISTS, INVALID_REPLICATION_FACTOR
           and INVALID_CONFIG in the response), describe_cluster, describe_topics,
           describe_configs, alter_configs, create_partitions,
           list/describe_consumer_groups, list_consumer_group_offsets,
           delete_records, delete_topics (UNKNOWN_TOPIC_OR_PARTITION)
"""
import asyncio
import logging
import sys
import time

import aiokafka
import aiokafka.errors as E
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import (AIOKafkaAdminClient, NewPartitions, NewTopic,
                            RecordsToDelete)
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.coordinator.assignors.roundrobin import \
    RoundRobinPartitionAssignor
from aiokafka.coordinator.assignors.sticky.sticky_assignor import \
    StickyPartitionAssignor
from aiokafka.partitioner import murmur2
from aiokafka.structs import OffsetAndMetadata

from common import BOOT, PORT, check, check_log_append_time, eq, fail, say, value_of

T = 30
# aiokafka's sticky assignor keeps its state in the class: two members in one
# process share it and it warns of partitions "assigned to multiple
# consumers"; its other warnings (rebalancing heartbeats) are routine here
logging.getLogger("aiokafka").setLevel(logging.ERROR)


async def producer(**kw):
    c = dict(bootstrap_servers=BOOT, linger_ms=5, acks="all")
    c.update(kw)
    p = AIOKafkaProducer(**c)
    await p.start()
    return p


async def consumer(*topics, **kw):
    c = dict(bootstrap_servers=BOOT, enable_auto_commit=False,
             auto_offset_reset="earliest")
    c.update(kw)
    cons = AIOKafkaConsumer(*topics, **c)
    await cons.start()
    return cons


async def read_all(topic, parts, **kw):
    """{(partition, offset): record} from the beginning to the end (the LSO
    for read_committed)."""
    c = await consumer(**kw)
    tps = [TopicPartition(topic, p) for p in range(parts)]
    c.assign(tps)
    await c.seek_to_beginning(*tps)
    ends = await c.end_offsets(tps)
    got = {}
    end = time.time() + 60
    while time.time() < end:
        pos = [await c.position(tp) for tp in tps]
        if all(pos[i] >= ends[tp] for i, tp in enumerate(tps)):
            break
        for tp, recs in (await c.getmany(timeout_ms=300)).items():
            for r in recs:
                check((r.partition, r.offset) not in got, "%s: offset read twice" % topic)
                got[(r.partition, r.offset)] = r
    await c.stop()
    return got


async def data():
    n = 450
    t0 = int(time.time() * 1000) - 3600 * 1000
    for codec in (None, "gzip", "snappy", "lz4", "zstd"):
        topic = "aio-codec-%s" % codec
        p = await producer(compression_type=codec)
        futs = []
        for i in range(n):
            h = [("idx", str(i).encode()), ("empty", b"")] if i % 3 == 0 else None
            part = None if i % 3 == 1 else i % 3
            futs.append(await p.send(topic, value=value_of(i, 50 + i % 200), key=b"k%d" % i,
                                     headers=h, partition=part, timestamp_ms=t0 + i))
        md = [await f for f in futs]
        await p.stop()
        got = await read_all(topic, 3)
        eq(len(got), n, "%s: records read" % codec)
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
                    ((("idx", str(i).encode()), ("empty", b"")) if i % 3 == 0 else ()))
            eq((r.key, r.value, r.timestamp, r.timestamp_type, tuple(r.headers)), want,
               "%s: record %d" % (codec, i))
        say("codec %s: %d records back with keys, headers, timestamps" % (codec, n))

    # a batch built by the application
    p = await producer()
    b = p.create_batch()
    for i in range(10):
        check(b.append(key=b"b%d" % i, value=b"batch-%d" % i, timestamp=None) is not None,
              "batch full")
    fut = await p.send_batch(b, "aio-batch", partition=0)
    md = await fut
    eq(md.offset, 0, "send_batch base offset")
    got = await read_all("aio-batch", 1)
    eq([(got[(0, i)].key, got[(0, i)].value) for i in range(10)],
       [(b"b%d" % i, b"batch-%d" % i) for i in range(10)], "send_batch records")
    await p.stop()

    await log_append_time()

    topic = "aio-large"
    p = await producer(max_request_size=3000000, compression_type="lz4")
    md = [await p.send_and_wait(topic, value_of(i, 1000000), partition=0) for i in range(3)]
    eq([m.offset for m in md], [0, 1, 2], "large offsets")
    await p.stop()
    p = await producer(max_request_size=3000000)
    try:
        await p.send_and_wait(topic, b"x" * 1100000, partition=0)
        fail("a 1.1 MB record was accepted")
    except E.MessageSizeTooLargeError as e:
        say("large: 1.1 MB refused: %s" % type(e).__name__)
    await p.stop()
    got = await read_all(topic, 1, max_partition_fetch_bytes=2000000)
    eq(len(got), 3, "large records read")
    for i in range(3):
        check(got[(0, i)].value == value_of(i, 1000000), "large record %d differs" % i)
    say("large: 3 records of 1,000,000 bytes back")

    topic = "aio-times"
    p = await producer()
    for i in range(10):
        await p.send(topic, b"t%d" % i, partition=0, timestamp_ms=t0 + i * 1000)
    await p.flush()
    await p.stop()
    c = await consumer()
    tp = TopicPartition(topic, 0)
    r = (await c.offsets_for_times({tp: t0 + 4500}))[tp]
    eq((r.offset, r.timestamp), (5, t0 + 5000), "offsets_for_times")
    eq((await c.offsets_for_times({tp: t0 + 99999}))[tp], None, "offsets_for_times past the end")
    eq(((await c.beginning_offsets([tp]))[tp], (await c.end_offsets([tp]))[tp]), (0, 10),
       "beginning/end offsets")
    await c.stop()
    say("times: offsets_for_times, beginning and end offsets")


async def log_append_time():
    """A topic with message.timestamp.type=LogAppendTime: records sent with
    old timestamps (plain and gzip) get the broker's clock at the append,
    in RecordMetadata (timestamp_type 1) and as what a consumer reads."""
    a = AIOKafkaAdminClient(bootstrap_servers=BOOT)
    await a.start()
    for codec in (None, "gzip"):
        topic = "aio-lat-%s" % codec
        r = await a.create_topics([NewTopic(topic, 1, 1, topic_configs={
            "message.timestamp.type": "LogAppendTime"})])
        eq([t[1] for t in r.topic_errors], [0], "create %s" % topic)
        old = int(time.time() * 1000) - 3600 * 1000
        p = await producer(compression_type=codec)
        before = int(time.time() * 1000)
        futs = [await p.send(topic, b"lat-%d" % i, key=b"k%d" % i, partition=0,
                             timestamp_ms=old + i) for i in range(20)]
        md = [await f for f in futs]
        after = int(time.time() * 1000)
        await p.stop()
        for m in md:
            eq(m.timestamp_type, 1, "LogAppendTime %s: metadata timestamp type" % codec)
        check_log_append_time("LogAppendTime %s" % codec, md, await read_all(topic, 1),
                              (before, after), old)
    await a.close()
    say("LogAppendTime: 40 records (none, gzip) stamped with the broker's clock, "
        "acknowledged and read as LogAppendTime")


async def idem():
    topic, n = "aio-idem", 2000
    p = await producer(enable_idempotence=True, linger_ms=2, max_batch_size=2000)
    futs = [await p.send(topic, str(i).encode(), partition=i % 3) for i in range(n)]
    md = [await f for f in futs]
    await p.stop()
    got = await read_all(topic, 3)
    eq(len(got), n, "idempotent records read")
    for i in range(n):
        eq((md[i].partition, md[i].offset), (i % 3, i // 3), "idempotent record %d" % i)
        eq(got[(i % 3, i // 3)].value, str(i).encode(), "idempotent value")
    say("idempotence: %d once each, in order" % n)


async def values(topic, isolation):
    got = await read_all(topic, 1, isolation_level=isolation)
    return [got[k].value.decode() for k in sorted(got)]


async def txn():
    topic = "aio-txn"
    p = await producer(transactional_id="aio-txn")
    for verdict in "cac":
        await p.begin_transaction()
        for i in range(30):
            await p.send(topic, ("%s-%d" % (verdict, i)).encode(), partition=0)
        if verdict == "c":
            await p.commit_transaction()
        else:
            await p.flush()
            await p.abort_transaction()
    eq(await values(topic, "read_committed"), ["c-%d" % i for i in range(30)] * 2,
       "read_committed")
    eq(len(await values(topic, "read_uncommitted")), 90, "read_uncommitted")
    say("txn: commit, abort, commit: read_committed 60, read_uncommitted 90")

    # consume-transform-produce
    src, dst, group = "aio-ctp-in", "aio-ctp-out", "aio-ctp"
    q = await producer()
    for i in range(100):
        await q.send(src, str(i).encode(), partition=0)
    await q.flush()
    await q.stop()
    c = await consumer(src, group_id=group, isolation_level="read_committed",
                       session_timeout_ms=6000, heartbeat_interval_ms=300)
    done = 0
    end = time.time() + 40
    while done < 100:
        check(time.time() < end, "ctp: %d of 100" % done)
        batch = await c.getmany(timeout_ms=500)
        recs = [r for rs in batch.values() for r in rs]
        if not recs:
            continue
        async with p.transaction():
            for r in recs:
                await p.send(dst, b"copy-" + r.value, partition=0)
            await p.send_offsets_to_transaction(
                {tp: rs[-1].offset + 1 for tp, rs in batch.items()}, group)
        done += len(recs)
    await c.stop()
    eq(await values(dst, "read_committed"), ["copy-%d" % i for i in range(100)], "ctp output")
    a = AIOKafkaAdminClient(bootstrap_servers=BOOT)
    await a.start()
    offs = await a.list_consumer_group_offsets(group)
    eq(offs[TopicPartition(src, 0)].offset, 100, "ctp group offset")
    await a.close()
    say("txn: consume-transform-produce, 100 copied, the group's offset 100")

    # fencing
    await p.begin_transaction()
    await p.send_and_wait(topic, b"a-zombie", partition=0)
    p2 = await producer(transactional_id="aio-txn")
    try:
        await p.commit_transaction()
        fail("the fenced producer committed")
    except (E.ProducerFenced, E.KafkaError) as e:
        say("txn: the fenced instance's commit fails: %s" % type(e).__name__)
    try:
        await p.stop()
    except E.KafkaError:
        pass
    async with p2.transaction():
        await p2.send(topic, b"c-after", partition=0)
    await p2.stop()
    rc = await values(topic, "read_committed")
    eq((len(rc), rc[-1]), (61, "c-after"), "after fencing")


async def groups():
    topic = "aio-group"
    a = AIOKafkaAdminClient(bootstrap_servers=BOOT)
    await a.start()
    await a.create_topics([NewTopic(topic, 4, 1)])
    await a.close()
    for cls in (RangePartitionAssignor, RoundRobinPartitionAssignor, StickyPartitionAssignor):
        group = "aio-g-" + cls.name
        cs = [await consumer(topic, group_id=group, client_id="m%d" % i,
                             session_timeout_ms=3000, heartbeat_interval_ms=200,
                             partition_assignment_strategy=[cls]) for i in range(2)]
        end = time.time() + 40
        while True:
            for c in cs:
                await c.getmany(timeout_ms=50)
            a0, a1 = cs[0].assignment(), cs[1].assignment()
            if len(a0) == 2 and len(a1) == 2 and not (a0 & a1):
                break
            check(time.time() < end, "%s: no split: %s %s" % (cls.name, a0, a1))
        split = (sorted(p.partition for p in a0), sorted(p.partition for p in a1))
        await cs[1].stop()
        while len(cs[0].assignment()) < 4:
            await cs[0].getmany(timeout_ms=50)
            check(time.time() < end, "%s: no take-over" % cls.name)
        await cs[0].stop()
        say("groups %s: split %s, then one member has all 4" % (cls.name, split))

    p = await producer()
    for i in range(200):
        await p.send(topic, str(i).encode(), key=b"k%d" % i)
    await p.flush()
    await p.stop()
    seen = []
    for run in range(3):
        c = await consumer(topic, group_id="aio-resume", session_timeout_ms=6000,
                           heartbeat_interval_ms=300)
        got = 0
        end = time.time() + 30
        while got < 80 and time.time() < end:
            batch = await c.getmany(timeout_ms=300, max_records=80 - got)
            if not batch and run == 2 and c.assignment():
                break
            for tp, recs in batch.items():
                seen.extend(int(r.value) for r in recs)
                got += len(recs)
        await c.commit()
        for tp in c.assignment():
            eq(await c.committed(tp), await c.position(tp), "committed() = position")
        await c.stop()
    eq(sorted(seen), list(range(200)), "resumed group values")
    say("groups: 200 values once each over 3 members in turn, committed() at the position")


async def admin():
    a = AIOKafkaAdminClient(bootstrap_servers=BOOT)
    await a.start()
    r = await a.create_topics([NewTopic("aio-a", 3, 1, topic_configs={"retention.ms": "3600000"}),
                               NewTopic("aio-rf", 1, 3)])
    codes = {t[0]: t[1] for t in r.topic_errors}
    eq(codes, {"aio-a": 0, "aio-rf": E.InvalidReplicationFactorError.errno}, "create_topics")
    r = await a.create_topics([NewTopic("aio-a", 1, 1)])
    eq(r.topic_errors[0][1], E.TopicAlreadyExistsError.errno, "create aio-a again")
    # invalid configs: a value outside the allowed ones, a number that does
    # not parse, a key Kafka does not know; none of the topics is made
    bad = [("aio-bad-policy", {"cleanup.policy": "bogus"}),
           ("aio-bad-number", {"retention.ms": "abc"}),
           ("aio-bad-key", {"no.such.config": "1"})]
    r = await a.create_topics([NewTopic(t, 1, 1, topic_configs=c) for t, c in bad])
    eq(sorted((t[0], t[1]) for t in r.topic_errors),
       sorted((t, E.InvalidConfigurationError.errno) for t, _ in bad), "create_topics invalid configs")
    left = set(await a.list_topics()) & {t for t, _ in bad}
    eq(left, set(), "topics made with invalid configs")
    c = await a.describe_cluster()
    eq((c["controller_id"], [(b["node_id"], b["host"], b["port"]) for b in c["brokers"]]),
       (1, [(1, "127.0.0.1", PORT)]), "describe_cluster")
    d = (await a.describe_topics(["aio-a"]))[0]
    eq(sorted((p["partition"], p["leader"], p["replicas"], p["isr"]) for p in d["partitions"]),
       [(i, 1, [1], [1]) for i in range(3)], "describe_topics")
    r = await a.alter_configs([ConfigResource(ConfigResourceType.TOPIC, "aio-a",
                                              configs={"retention.ms": "7200000"})])
    eq([res[0] for resp in r for res in resp.resources], [0], "alter_configs")
    r = await a.describe_configs([ConfigResource(ConfigResourceType.TOPIC, "aio-a",
                                                 configs={"retention.ms": None})])
    entries = {e[0]: e[1] for resp in r for res in resp.resources for e in res[4]}
    eq(entries.get("retention.ms"), "7200000", "describe_configs after alter_configs")
    r = await a.create_partitions({"aio-a": NewPartitions(5)})
    eq([t[1] for t in r.topic_errors], [0], "create_partitions")
    try:
        await a.create_partitions({"aio-a": NewPartitions(4)})
        fail("shrinking accepted")
    except E.InvalidPartitionsError:
        pass
    p = await producer()
    for i in range(50):
        await p.send("aio-a", b"r%d" % i, partition=0)
    await p.flush()
    await p.stop()
    tp = TopicPartition("aio-a", 0)
    r = await a.delete_records({tp: RecordsToDelete(before_offset=20)})
    eq(r, {tp: 20}, "delete_records")
    cons = await consumer()
    eq(((await cons.beginning_offsets([tp]))[tp], (await cons.end_offsets([tp]))[tp]), (20, 50),
       "after delete_records")
    await cons.stop()

    grp = "aio-adm-g"
    m = await consumer("aio-a", group_id=grp, client_id="aio-member",
                       session_timeout_ms=6000, heartbeat_interval_ms=300)
    end = time.time() + 30
    while not m.assignment():
        await m.getmany(timeout_ms=100)
        check(time.time() < end, "no assignment")
    await m.commit({tp: OffsetAndMetadata(25, "meta")})
    listed = await a.list_consumer_groups()
    check((grp, "consumer") in [tuple(g[:2]) for g in listed], "list_consumer_groups: %s" % listed)
    d = await a.describe_consumer_groups([grp])
    groups_ = [g for resp in d for g in resp.groups]
    eq([(g[1], g[2]) for g in groups_], [(grp, "Stable")], "describe_consumer_groups")
    offs = await a.list_consumer_group_offsets(grp)
    eq((offs[tp].offset, offs[tp].metadata), (25, "meta"), "list_consumer_group_offsets")
    await m.stop()
    print("# aiokafka: no admin API for DeleteGroups, OffsetDelete or IncrementalAlterConfigs")
    r = await a.delete_topics(["aio-a"])
    eq([t[1] for t in r.topic_error_codes], [0], "delete_topics")
    r = await a.delete_topics(["aio-a"])
    eq([t[1] for t in r.topic_error_codes], [E.UnknownTopicOrPartitionError.errno],
       "delete_topics again")
    check("aio-a" not in await a.list_topics(), "aio-a still listed")
    await a.close()
    say("admin: topics, cluster, configs, partitions, records, groups, offsets, deletion")


async def main():
    say("aiokafka %s" % aiokafka.__version__)
    for m in sys.argv[1].split(","):
        await {"data": data, "idem": idem, "txn": txn, "groups": groups, "admin": admin}[m]()
    say("ok")


if __name__ == "__main__":
    asyncio.run(main())
