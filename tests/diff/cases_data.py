"""
tests/diff/cases_data.py: Produce, Fetch, ListOffsets, DeleteRecords and
OffsetForLeaderEpoch at
every version, and their error paths: unknown topics, partitions and topic
ids, oversize, corrupt and foreign batches, acks, out-of-range offsets,
fenced leader epochs, fetch sessions; idempotent producers' sequences.
Batches are kafka-python's, with fixed timestamps, so both brokers store
the same bytes and every field of every stored batch is compared.
"""

import struct

from codec import batch
from harness import case
from common import create, produce, fetch, fetch_body, topic_id
from cases_versions import LEGACY_MIN


def vals(n, pre="v"):
    return ["%s%d" % (pre, i) for i in range(n)]


def records_only(r):
    """A Fetch answer reduced to what down-conversion keeps: the offsets,
    keys and values of the records, per partition."""
    for t in r.get("responses") or []:
        for p in t.get("partitions") or []:
            recs = p.get("records")
            if isinstance(recs, dict):
                p["records"] = [(x["offset"], x["key"], x["value"])
                                for bt in recs["batches"] if not isinstance(bt["records"], str)
                                for x in bt["records"]]
    return r


@case("produce_versions")
def produce_versions(b):
    t = b.t("t")
    create(b, t, 2)
    tid = topic_id(b, t)
    for v in range(0, 14):
        if v < LEGACY_MIN["Produce"]:
            magic = 0 if v == 0 else 1
            body = {"transactional_id": None, "acks": -1, "timeout_ms": 30000,
                    "topic_data": [{"name": t, "partition_data": [
                        {"index": 0, "records": batch(vals(3, "p%d-" % v), magic=magic)}]}]}
            # what Gregor stores for it: a v2 batch, without timestamps
            # from magic 0
            ref = {"transactional_id": None, "acks": -1, "timeout_ms": 30000,
                   "topic_data": [{"name": t, "partition_data": [
                       {"index": 0, "records": batch(vals(3, "p%d-" % v),
                                                     no_timestamps=(magic == 0))}]}]}
            b.legacy("Produce", v, body, ref_body=ref)
            continue
        produce(b, t, v % 2, batch(vals(3, "p%d-" % v)), version=v, topic_id=tid)
    # what is stored, batch by batch
    fetch(b, t, 0, 0, version=12, label="partition 0 after every version")
    fetch(b, t, 1, 0, version=12, label="partition 1 after every version")
    # the legacy versions' message sets are read back by Fetch v0-v3 too
    for v in range(0, 4):
        b.legacy("Fetch", v, fetch_body(v, t, 0, 0), filt=records_only,
                 ref_body=fetch_body(4, t, 0, 0))


@case("produce_acks")
def produce_acks(b):
    t = b.t("t")
    create(b, t)
    for v in (3, 7, 9, 13):
        tid = topic_id(b, t)
        produce(b, t, 0, batch(["a0"]), version=v, acks=0, topic_id=tid, label="acks 0")
        produce(b, t, 0, batch(["a1"]), version=v, acks=1, topic_id=tid, label="acks 1")
        produce(b, t, 0, batch(["a2"]), version=v, acks=2, topic_id=tid, label="acks 2")
        produce(b, t, 0, batch(["a3"]), version=v, acks=-2, topic_id=tid, label="acks -2")
    # acks=0 has no answer: the connection serves what follows
    fetch(b, t, 0, 0, version=12, label="after acks 0")
    t2 = b.t("isr2")
    create(b, t2, configs={"min.insync.replicas": "2"})
    produce(b, t2, 0, batch(["x"]), version=9, acks=-1, label="acks -1, min.insync.replicas 2")
    produce(b, t2, 0, batch(["y"]), version=9, acks=1, label="acks 1, min.insync.replicas 2")


@case("produce_errors")
def produce_errors(b):
    t = b.t("t")
    create(b, t)
    rec = batch(["x"])
    for v in (3, 8, 9, 12):
        produce(b, b.t("nope"), 0, rec, version=v, label="unknown topic")
        produce(b, t, 7, rec, version=v, label="unknown partition")
        produce(b, t, -1, rec, version=v, label="partition -1")
        produce(b, "bad name", 0, rec, version=v, label="invalid topic name")
    produce(b, "__consumer_offsets", 0, rec, version=9, label="internal topic")
    produce(b, None, 0, rec, version=13, topic_id="00000000-0000-0000-0000-0000000000ab",
            label="unknown topic id")
    produce(b, None, 0, rec, version=13, topic_id="00000000-0000-0000-0000-000000000000",
            label="zero topic id")
    # records: none, empty, cut, corrupt, foreign magic, wrong counts
    # (null records: Kafka 4.4 never answers, so there is nothing to compare)
    produce(b, t, 0, b"", version=9, label="empty records")
    good = batch(vals(4))
    produce(b, t, 0, good[:-3], version=9, label="cut batch")
    bad = bytearray(good)
    bad[-1] ^= 0xff
    produce(b, t, 0, bytes(bad), version=9, label="corrupt batch (CRC)")
    bad = bytearray(good)
    struct.pack_into(">i", bad, 8, len(good))  # batch length past the end
    produce(b, t, 0, bytes(bad), version=9, label="batch length past the end")
    bad = bytearray(good)
    struct.pack_into(">i", bad, 57, 9)  # record count wrong (CRC fixed below)
    produce(b, t, 0, _fix_crc(bad), version=9, label="record count wrong")
    bad = bytearray(good)
    struct.pack_into(">q", bad, 0, 5)  # base offset not 0
    produce(b, t, 0, bytes(bad), version=9, label="base offset 5")
    produce(b, t, 0, batch(vals(2), magic=1), version=9, label="magic 1 at v9")
    produce(b, t, 0, batch(vals(2), magic=0), version=9, label="magic 0 at v9")
    produce(b, t, 0, good + good, version=9, label="two batches")
    produce(b, t, 0, good + b"\x00\x01", version=9, label="trailing bytes")
    produce(b, t, 0, _control_batch(), version=9, label="control batch from a client")
    # compression: every codec; zstd needs v7+
    for codec_name in ("gzip", "snappy", "lz4", "zstd"):
        produce(b, t, 0, batch(vals(3, codec_name), codec=codec_name), version=9,
                label="codec %s" % codec_name)
    produce(b, t, 0, batch(vals(3, "z"), codec="zstd"), version=6, label="zstd at v6")
    bad = bytearray(batch(vals(3, "g"), codec="gzip"))
    struct.pack_into(">h", bad, 21, 5)  # codec 5 does not exist
    produce(b, t, 0, _fix_crc(bad), version=9, label="codec 5")
    fetch(b, t, 0, 0, version=12, label="what was stored")


def _fix_crc(buf):
    from kafka.record._crc32c import crc as crc32c
    buf = bytearray(buf)
    struct.pack_into(">I", buf, 17, crc32c(bytes(buf[21:])))
    return bytes(buf)


def _control_batch():
    b = bytearray(batch([{"key": b"\x00\x00\x00\x01", "value": b"\x00\x00\x00\x00\x00\x00"}]))
    attrs = struct.unpack_from(">h", b, 21)[0] | 0x20
    struct.pack_into(">h", b, 21, attrs)
    return _fix_crc(b)


@case("produce_limits")
def produce_limits(b):
    t = b.t("small")
    create(b, t, configs={"max.message.bytes": "1000"})
    produce(b, t, 0, batch(["x" * 2000]), version=9, label="batch over max.message.bytes")
    produce(b, t, 0, batch(["x" * 100] * 9), version=9, label="batch under max.message.bytes")
    produce(b, t, 0, batch(["x" * 2000], codec="gzip"), version=9,
            label="compressed batch under, records over")
    # a compacted topic refuses keyless records, one by one (KIP-467)
    c = b.t("compact")
    create(b, c, configs={"cleanup.policy": "compact"})
    mixed = batch([{"key": "k0", "value": "v0"}, {"value": "nokey"}, {"key": "k2", "value": "v2"},
                   {"value": "nokey2"}])
    for v in (7, 8, 9, 11):
        produce(b, c, 0, mixed, version=v, label="keyless records, compacted")
    produce(b, c, 0, batch([{"key": "k", "value": None}]), version=9, label="tombstone, compacted")
    # timestamps out of bounds (message.timestamp.after/before.max.ms)
    ts = b.t("ts")
    create(b, ts, configs={"message.timestamp.after.max.ms": "60000",
                           "message.timestamp.before.max.ms": "60000"})
    produce(b, ts, 0, batch(vals(3), base_timestamp=1000), version=9, label="timestamps too old")
    produce(b, ts, 0, batch(vals(3), base_timestamp=4102444800000), version=9,
            label="timestamps in the future")
    # LogAppendTime: the broker's time, in the answer and in the batch
    la = b.t("logappend")
    create(b, la, configs={"message.timestamp.type": "LogAppendTime"})
    produce(b, la, 0, batch(vals(2)), version=9, label="LogAppendTime")
    fetch(b, la, 0, 0, version=12, label="LogAppendTime fetch")
    # the whole request over message.max.bytes-sized batches: several
    # partitions and topics in one request
    m = b.t("multi")
    create(b, m, 3)
    body = {"transactional_id": None, "acks": -1, "timeout_ms": 30000, "topic_data": [
        {"name": m, "partition_data": [{"index": p, "records": batch(vals(p + 1))} for p in (2, 0, 1)]},
        {"name": t, "partition_data": [{"index": 0, "records": batch(["small"])}]},
        {"name": b.t("nope"), "partition_data": [{"index": 0, "records": batch(["n"])}]}]}
    b.req("Produce", 9, body, label="three topics, five partitions")


@case("produce_idempotent")
def produce_idempotent(b):
    t = b.t("t")
    create(b, t)
    r = b.req("InitProducerId", 4, {"transactional_id": None, "transaction_timeout_ms": 60000,
                                    "producer_id": -1, "producer_epoch": -1})
    pid, ep = r["producer_id"], r["producer_epoch"]
    idem = lambda seq, n, epoch=ep, pre="i": batch(vals(n, "%s%d-" % (pre, seq)), producer_id=pid,
                                                   producer_epoch=epoch, base_sequence=seq)
    produce(b, t, 0, idem(0, 3), label="seq 0")
    produce(b, t, 0, idem(3, 2), label="seq 3")
    produce(b, t, 0, idem(0, 3), label="duplicate of seq 0")
    produce(b, t, 0, idem(3, 2), label="duplicate of seq 3")
    produce(b, t, 0, idem(9, 1), label="gap: seq 9")
    produce(b, t, 0, idem(2, 2), label="overlap: seq 2")
    produce(b, t, 0, idem(5, 1), label="seq 5")
    produce(b, t, 0, idem(6, 1, epoch=ep + 1), label="next epoch, seq 6")
    produce(b, t, 0, idem(0, 1, epoch=ep + 1), label="next epoch, seq 0")
    produce(b, t, 0, idem(1, 1, epoch=ep), label="old epoch")
    other = batch(["u"], producer_id=pid + 1000, producer_epoch=0, base_sequence=5)
    produce(b, t, 0, other, label="unknown producer, seq 5")
    other = batch(["u"], producer_id=pid + 1000, producer_epoch=0, base_sequence=0)
    produce(b, t, 0, other, label="unknown producer, seq 0")
    fetch(b, t, 0, 0, version=12, label="what was stored")
    b.req("DescribeProducers", 0, {"topics": [{"name": t, "partition_indexes": [0]}]})
    # idempotent batches need acks=-1
    produce(b, t, 0, idem(1, 1, epoch=ep + 1), acks=1, label="acks 1")


@case("fetch_versions")
def fetch_versions(b):
    t = b.t("t")
    create(b, t)
    produce(b, t, 0, batch(vals(3, "a")), record=False)
    produce(b, t, 0, batch(vals(2, "b"), codec="gzip"), record=False)
    tid = topic_id(b, t)
    for v in range(4, 19):
        fetch(b, t, 0, 0, version=v, topic_id=tid)
        fetch(b, t, 0, 3, version=v, topic_id=tid, label="from the second batch")
        fetch(b, t, 0, 4, version=v, topic_id=tid, label="mid-batch")
        fetch(b, t, 0, 7, version=v, topic_id=tid, label="at the end")
        fetch(b, t, 0, 8, version=v, topic_id=tid, label="past the end")
        fetch(b, t, 0, -5, version=v, topic_id=tid, label="negative offset")
        fetch(b, t, 0, 0, version=v, topic_id=tid, max_bytes=10, label="max_bytes 10")


@case("fetch_errors")
def fetch_errors(b):
    t = b.t("t")
    create(b, t)
    produce(b, t, 0, batch(vals(3)), record=False)
    for v in (4, 9, 12, 13, 16, 18):
        tid = topic_id(b, t)
        fetch(b, b.t("nope"), 0, 0, version=v, topic_id="00000000-0000-0000-0000-0000000000cd",
              label="unknown topic")
        fetch(b, t, 3, 0, version=v, topic_id=tid, label="unknown partition")
        fetch(b, t, 0, 0, version=v, topic_id=tid, current_leader_epoch=5,
              label="leader epoch 5 (newer)")
        fetch(b, t, 0, 0, version=v, topic_id=tid, current_leader_epoch=0, label="leader epoch 0")
    fetch(b, "bad name", 0, 0, version=12, label="invalid topic name")
    fetch(b, None, 0, 0, version=13, topic_id="00000000-0000-0000-0000-000000000000",
          label="zero topic id")
    # below the log start
    b.req("DeleteRecords", 2, {"topics": [{"name": t, "partitions": [
        {"partition_index": 0, "offset": 2}]}], "timeout_ms": 30000})
    for v in (4, 12, 18):
        fetch(b, t, 0, 1, version=v, topic_id=topic_id(b, t), label="below the log start")
        fetch(b, t, 0, 2, version=v, topic_id=topic_id(b, t), label="at the log start")
    # a replica's fetch from a client-only broker
    body = fetch_body(12, t, 0, 0)
    body["replica_id"] = 1
    b.req("Fetch", 12, body, label="replica id 1")
    # the same partition twice, two topics
    body = fetch_body(12, t, 0, 0)
    body["topics"][0]["partitions"].append(dict(body["topics"][0]["partitions"][0], fetch_offset=1))
    b.req("Fetch", 12, body, label="the same partition twice")
    # a long poll that times out, and one that min_bytes satisfies
    fetch(b, t, 0, 3, version=12, max_wait_ms=300, min_bytes=1, label="long poll, nothing new")
    fetch(b, t, 0, 0, version=12, max_wait_ms=300, min_bytes=1 << 20, label="long poll, min_bytes unmet")


@case("fetch_sessions")
def fetch_sessions(b):
    t = b.t("t")
    create(b, t, 2)
    produce(b, t, 0, batch(vals(2)), record=False)
    # a full fetch that opens a session (epoch 0)
    body = fetch_body(12, t, 0, 0, session_id=0, session_epoch=0)
    body["topics"][0]["partitions"].append(dict(body["topics"][0]["partitions"][0], partition=1))
    r = b.req("Fetch", 12, body, label="open a session")
    sid = r["session_id"]
    # incremental: nothing changed
    inc = {"replica_id": -1, "max_wait_ms": 0, "min_bytes": 1, "max_bytes": 1 << 20,
           "isolation_level": 0, "session_id": sid, "session_epoch": 1, "topics": [],
           "forgotten_topics_data": [], "rack_id": ""}
    b.req("Fetch", 12, inc, label="incremental, nothing new")
    produce(b, t, 1, batch(vals(1, "n")), record=False)
    b.req("Fetch", 12, dict(inc, session_epoch=2), label="incremental, new on partition 1")
    b.req("Fetch", 12, dict(inc, session_epoch=2), label="the same epoch again")
    b.req("Fetch", 12, dict(inc, session_epoch=7), label="a later epoch")
    b.req("Fetch", 12, dict(inc, session_id=sid + 12345, session_epoch=1), label="unknown session")
    b.req("Fetch", 12, dict(inc, session_epoch=-1), label="close the session")
    b.req("Fetch", 12, dict(inc, session_id=0, session_epoch=5), label="no session, epoch 5")
    # the session id in use by a full fetch without a session (epoch -1)
    b.req("Fetch", 12, fetch_body(12, t, 0, 0, session_id=0, session_epoch=-1),
          label="sessionless full fetch")


@case("list_offsets")
def list_offsets(b):
    t = b.t("t")
    create(b, t)
    produce(b, t, 0, batch(vals(3), base_timestamp=1700000000000), record=False)
    produce(b, t, 0, batch(vals(3), base_timestamp=1700000001000), record=False)
    produce(b, t, 0, batch(vals(1), base_timestamp=1600000000000), record=False)

    def lo(v, ts, label, part=0, topic=t, epoch=-1, isolation=0):
        return b.req("ListOffsets", v, {
            "replica_id": -1, "isolation_level": isolation, "timeout_ms": 30000,
            "topics": [{"name": topic, "partitions": [{
                "partition_index": part, "current_leader_epoch": epoch,
                "timestamp": ts, "max_num_offsets": 1}]}]}, label=label)
    for v in range(1, 12):
        lo(v, -1, "latest")
        lo(v, -2, "earliest")
        lo(v, 1700000000001, "by time")
        lo(v, 1700000001005, "by time past the last")
        if v >= 7:
            lo(v, -3, "max timestamp")
        if v >= 8:
            lo(v, -4, "earliest local")
        if v >= 9:
            lo(v, -5, "earliest pending upload (-5)")
        lo(v, -6, "timestamp -6")
        lo(v, -1, "unknown partition", part=4)
        lo(v, -1, "unknown topic", topic=b.t("nope"))
    for v in (4, 9, 11):
        lo(v, -1, "leader epoch 3", epoch=3)
        lo(v, -1, "leader epoch 0", epoch=0)
    lo(2, -1, "read_committed", isolation=1)
    lo(5, -1, "isolation level 2", isolation=2)
    for ts in (-1, -2, 1700000000001):
        b.legacy("ListOffsets", 0, {
            "replica_id": -1, "topics": [{"name": t, "partitions": [{
                "partition_index": 0, "timestamp": ts, "max_num_offsets": 3}]}]},
            label="v0 timestamp %d" % ts)
    # the same partition twice
    b.req("ListOffsets", 9, {"replica_id": -1, "isolation_level": 0, "topics": [
        {"name": t, "partitions": [{"partition_index": 0, "timestamp": -1},
                                   {"partition_index": 0, "timestamp": -2}]}]},
        label="the same partition twice")


@case("delete_records")
def delete_records(b):
    t = b.t("t")
    create(b, t, 2)
    produce(b, t, 0, batch(vals(5)), record=False)

    def dr(v, offset, label, part=0, topic=t):
        return b.req("DeleteRecords", v, {"topics": [{"name": topic, "partitions": [
            {"partition_index": part, "offset": offset}]}], "timeout_ms": 30000}, label=label)
    for v in range(0, 3):
        dr(v, v + 1, "to offset %d" % (v + 1))
    dr(2, 1, "backwards")
    dr(2, 9, "past the high watermark")
    dr(2, -1, "to the high watermark")
    dr(2, -2, "offset -2")
    dr(2, 0, "empty partition", part=1)
    dr(2, 0, "unknown partition", part=5)
    dr(2, 0, "unknown topic", topic=b.t("nope"))
    fetch(b, t, 0, 0, version=12, label="after")
    b.req("ListOffsets", 7, {"replica_id": -1, "isolation_level": 0, "topics": [
        {"name": t, "partitions": [{"partition_index": 0, "timestamp": -2}]}]}, label="earliest after")
    c = b.t("compact")
    create(b, c, configs={"cleanup.policy": "compact"})
    produce(b, c, 0, batch([{"key": "k", "value": "v"}]), record=False)
    dr(2, 1, "compacted topic", topic=c)


def _ofle(topic, parts):
    """An OffsetForLeaderEpoch topic: parts (partition, current epoch,
    epoch)."""
    return {"topic": topic, "partitions": [
        {"partition": p, "current_leader_epoch": c, "leader_epoch": e} for p, c, e in parts]}


@case("offset_for_leader_epoch")
def offset_for_leader_epoch(b):
    """The end offsets of leader epochs (a single broker: epoch 0 only) at
    every version: the current epoch (the log end), UNDEFINED_EPOCH, an
    epoch above every one, an empty partition, current_leader_epoch
    checks, unknown partitions and topics, a follower's replica id; after
    DeleteRecords and more records; v0-v1 Kafka 4 no longer serves."""
    t = b.t("t")
    create(b, t, 2)
    for i in range(3):
        produce(b, t, 0, batch(vals(2, "e%d-" % i)), record=False)
    parts = [(0, -1, 0), (0, -1, -1), (0, -1, 1), (0, -1, 9), (1, -1, 0),
             (0, 0, 0), (0, 1, 0), (0, 7, -1), (2, -1, 0), (-1, -1, 0)]
    body = {"replica_id": -1, "topics": [_ofle(t, parts),
                                         _ofle(b.t("none"), [(0, -1, 0)])]}
    for v in (2, 3, 4):
        b.req("OffsetForLeaderEpoch", v, body)
    # v0-v1 carry no current_leader_epoch (it reads as -1: no check)
    ref = {"replica_id": -1, "topics": [_ofle(t, [(p, -1, e) for p, _, e in parts]),
                                        _ofle(b.t("none"), [(0, -1, 0)])]}
    for v in (0, 1):
        b.legacy("OffsetForLeaderEpoch", v, body, ref_body=ref)
    # a follower's request (CLUSTER_ACTION: no authorizer here)
    b.req("OffsetForLeaderEpoch", 4, dict(body, replica_id=1), label="replica 1")
    # repeated topics and partitions are each answered
    b.req("OffsetForLeaderEpoch", 4, {"replica_id": -1, "topics": [
        _ofle(t, [(0, -1, 0), (0, -1, 0)]), _ofle(t, [(1, -1, 0)])]},
        label="repeated topic and partition")
    b.req("OffsetForLeaderEpoch", 4, {"replica_id": -1, "topics": []}, label="no topics")
    # the log start moves; more records
    b.req("DeleteRecords", 2, {"topics": [{"name": t, "partitions": [
        {"partition_index": 0, "offset": 4}]}], "timeout_ms": 30000}, record=False)
    produce(b, t, 0, batch(vals(1, "f")), record=False)
    b.req("OffsetForLeaderEpoch", 4, {"replica_id": -1, "topics": [
        _ofle(t, [(0, 0, 0), (0, -1, 1)])]}, label="after DeleteRecords")
