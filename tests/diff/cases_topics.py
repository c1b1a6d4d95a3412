"""
tests/diff/cases_topics.py: Metadata, CreateTopics, DeleteTopics,
CreatePartitions and DescribeTopicPartitions, every version, with their
error paths: bad and reserved names, unknown topics and topic ids, invalid
partition counts, replication factors, assignments, configs and values.
"""

from harness import case
from common import create, wait_led, wait_gone, md, own_topics, topic_id
from cases_versions import LEGACY_MIN

REFUSED = {"kafka": lambda s: s.outcome == "closed" or (
    s.resp is not None and s.resp.get("error_code") == 35)}


def legacy(name, v):
    return v < LEGACY_MIN.get(name, 0)


def mdreq(b, v, topics, auto=False, label=None, authorized=False, filt=None):
    body = {"topics": None if topics is None else [{"name": t} for t in topics],
            "allow_auto_topic_creation": auto,
            "include_cluster_authorized_operations": authorized,
            "include_topic_authorized_operations": authorized}
    return b.req("Metadata", v, body, label=label, filt=filt)


@case("metadata_versions")
def metadata_versions(b):
    t = b.t("t")
    create(b, t, 3)
    for v in range(0, 14):
        mdreq(b, v, [t])
    for v in (8, 10, 12, 13):
        mdreq(b, v, [t], authorized=True, label="authorized operations")
    # every topic (null list; v0: an empty one) of this case's, and none
    for v in (0, 1, 4, 9, 12, 13):
        mdreq(b, v, None if v else [], label="all topics", filt=own_topics(b))
    for v in (1, 9, 12):
        mdreq(b, v, [], label="no topics")


@case("metadata_errors")
def metadata_errors(b):
    for v in (4, 9, 12, 13):
        mdreq(b, v, [b.t("unknown")], label="unknown topic, no auto-creation")
    for name in ("bad name", "a/b", "..", ".", "x" * 250, ""):
        mdreq(b, 12, [name], auto=True, label="invalid name %r" % name[:20])
    # the internal topics are listed as internal
    mdreq(b, 12, ["__consumer_offsets", "__transaction_state"], label="internal topics")
    # by topic id (v10+): Kafka answers by name only; an unknown id
    t = b.t("byid")
    tid = create(b, t)
    for v in (10, 12, 13):
        b.req("Metadata", v, {"topics": [{"topic_id": tid, "name": None}],
                              "allow_auto_topic_creation": False}, label="by topic id")
        b.req("Metadata", v, {"topics": [{"topic_id": "00000000-0000-0000-0000-0000000000aa",
                                          "name": None}],
                              "allow_auto_topic_creation": False}, label="by unknown topic id")
    # the same topic twice
    mdreq(b, 12, [t, t], label="the same topic twice")


@case("metadata_auto_create")
def metadata_auto_create(b):
    # auto-creation: the first answer, then the topic once led
    # (v0-v3 have no allow_auto_topic_creation: they always may)
    for v in (0, 1, 3, 4, 12, 13):
        t = b.t("auto%d" % v)
        mdreq(b, v, [t], auto=True, label="auto-creates")
        wait_led(b, t)
        mdreq(b, v, [t], label="auto-created topic")
    # names auto-creation refuses: invalid, and internal-looking ones
    mdreq(b, 12, ["__" + b.t("internal")], auto=True, label="auto-creates")
    wait_led(b, "__" + b.t("internal"))
    mdreq(b, 12, ["__" + b.t("internal")], label="auto-created topic")


@case("create_topics")
def create_topics(b):
    base = {"num_partitions": 2, "replication_factor": 1, "assignments": [], "configs": []}
    for v in range(0, 8):
        t = dict(base, name=b.t("v%d" % v))
        body = {"topics": [t], "timeout_ms": 30000, "validate_only": False}
        if legacy("CreateTopics", v):
            b.legacy("CreateTopics", v, body)
            b.legacy("CreateTopics", v, body, label="exists")
        else:
            b.req("CreateTopics", v, body)
            # again: TOPIC_ALREADY_EXISTS
            b.req("CreateTopics", v, body, label="exists")
    # validate only: nothing is made
    t = dict(base, name=b.t("validate"))
    b.req("CreateTopics", 7, {"topics": [t], "timeout_ms": 30000, "validate_only": True},
          label="validate only")
    md_t = md(b, [b.t("validate")])
    b.note("validated topic not created", md_t["topics"][0]["error_code"])


def _ct(b, label, topics, v=7, validate_only=False, **kw):
    return b.req("CreateTopics", v, {"topics": topics, "timeout_ms": 30000,
                                     "validate_only": validate_only}, label=label, **kw)


def _topic(name, partitions=1, rf=1, assignments=(), configs=None):
    return {"name": name, "num_partitions": partitions, "replication_factor": rf,
            "assignments": list(assignments),
            "configs": [{"name": k, "value": v} for k, v in (configs or {}).items()]}


@case("create_topics_errors")
def create_topics_errors(b):
    for name in ("bad name", "a/b", "..", ".", "x" * 250, "", "ä"):
        _ct(b, "invalid name %r" % name[:12], [_topic(name)])
    # the internal topics exist already; a name that collides with a dot/underscore
    _ct(b, "internal topic", [_topic("__consumer_offsets")])
    create(b, b.t("a.b"))
    _ct(b, "collides", [_topic(b.t("a_b"))])
    # partitions and replication factor
    _ct(b, "0 partitions", [_topic(b.t("p0"), partitions=0)])
    _ct(b, "-2 partitions", [_topic(b.t("pm2"), partitions=-2)])
    _ct(b, "-1 partitions (default)", [_topic(b.t("pm1"), partitions=-1)])
    _ct(b, "replication factor 2", [_topic(b.t("rf2"), rf=2)])
    _ct(b, "replication factor 0", [_topic(b.t("rf0"), rf=0)])
    _ct(b, "replication factor -1 (default)", [_topic(b.t("rfm1"), rf=-1)])
    _ct(b, "partitions with the default replication factor", [_topic(b.t("rfd"), partitions=3, rf=-1)])
    # assignments
    asg = [{"partition_index": 0, "broker_ids": [1]}, {"partition_index": 1, "broker_ids": [1]}]
    _ct(b, "assignment", [_topic(b.t("asg"), partitions=-1, rf=-1, assignments=asg)])
    _ct(b, "assignment and partitions", [_topic(b.t("asg2"), partitions=2, rf=-1, assignments=asg)])
    _ct(b, "assignment to an unknown broker", [_topic(b.t("asg3"), partitions=-1, rf=-1,
                                                      assignments=[{"partition_index": 0, "broker_ids": [7]}])])
    _ct(b, "assignment with a gap", [_topic(b.t("asg4"), partitions=-1, rf=-1,
                                            assignments=[{"partition_index": 0, "broker_ids": [1]},
                                                         {"partition_index": 2, "broker_ids": [1]}])])
    _ct(b, "assignment with a replica twice", [_topic(b.t("asg5"), partitions=-1, rf=-1,
                                                      assignments=[{"partition_index": 0, "broker_ids": [1, 1]}])])
    _ct(b, "assignment with no replicas", [_topic(b.t("asg6"), partitions=-1, rf=-1,
                                                  assignments=[{"partition_index": 0, "broker_ids": []}])])
    # configs
    for label, cfg in (("unknown config", {"no.such.config": "1"}),
                       ("retention.ms abc", {"retention.ms": "abc"}),
                       ("retention.ms -5", {"retention.ms": "-5"}),
                       ("cleanup.policy foo", {"cleanup.policy": "foo"}),
                       ("cleanup.policy compact,delete", {"cleanup.policy": "compact,delete"}),
                       ("compression.type foo", {"compression.type": "foo"}),
                       ("min.insync.replicas 0", {"min.insync.replicas": "0"}),
                       ("min.insync.replicas 2", {"min.insync.replicas": "2"}),
                       ("max.message.bytes -1", {"max.message.bytes": "-1"}),
                       ("message.timestamp.type Foo", {"message.timestamp.type": "Foo"}),
                       ("segment.ms 0", {"segment.ms": "0"}),
                       ("null value", {"retention.ms": None}),
                       ("broker config name", {"log.retention.ms": "1000"}),
                       ("valid configs", {"retention.ms": "3600000", "cleanup.policy": "compact",
                                          "compression.type": "zstd", "max.message.bytes": "200000"})):
        _ct(b, label, [_topic(b.t("cfg-" + label.split()[0]), configs=cfg)], validate_only=True)
    # the same config twice in one topic
    t = _topic(b.t("dupcfg"))
    t["configs"] = [{"name": "retention.ms", "value": "1000"}, {"name": "retention.ms", "value": "2000"}]
    _ct(b, "the same config twice", [t], validate_only=True)
    # deliberate: small segments, Kafka 3.x's message.format.version
    _ct(b, "segment.bytes 16384", [_topic(b.t("seg"), configs={"segment.bytes": "16384"})],
        validate_only=True, deliberate="small-segment-bytes", expect={
            "kafka": lambda s: s.resp["topics"][0]["error_code"] == 40,
            "gregor": lambda s: s.resp["topics"][0]["error_code"] == 0})
    _ct(b, "message.format.version 2.8", [_topic(b.t("mfv"), configs={"message.format.version": "2.8"})],
        validate_only=True, deliberate="message-format-version", expect={
            "kafka": lambda s: s.resp["topics"][0]["error_code"] == 40,
            "gregor": lambda s: s.resp["topics"][0]["error_code"] == 0})
    # two topics of the same name in one request; one good, one bad
    _ct(b, "the same topic twice", [_topic(b.t("twice")), _topic(b.t("twice"))])
    _ct(b, "one good, one bad", [_topic(b.t("good")), _topic("bad name")])
    # every version's error answer
    for v in range(2, 8):
        _ct(b, "invalid name", [_topic("bad name")], v=v)
        _ct(b, "invalid config value", [_topic(b.t("badv%d" % v), configs={"retention.ms": "x"})], v=v)


@case("create_topics_configs")
def create_topics_configs(b):
    """CreateTopics v5+ answers every config of the new topic with its
    value and source; a topic's overrides are its own."""
    _ct(b, "defaults", [_topic(b.t("d"), partitions=2)])
    _ct(b, "overrides", [_topic(b.t("o"), partitions=1, configs={
        "retention.ms": "3600000", "cleanup.policy": "compact", "segment.bytes": "1048576",
        "min.cleanable.dirty.ratio": "0.1", "message.timestamp.type": "LogAppendTime"})])
    _ct(b, "overrides v5", [_topic(b.t("o5"), configs={"retention.bytes": "1000000"})], v=5)


@case("delete_topics")
def delete_topics(b):
    for v in range(0, 7):
        t = b.t("v%d" % v)
        create(b, t)
        body = {"topic_names": [t], "topics": [{"name": t, "topic_id": None}], "timeout_ms": 30000}
        if legacy("DeleteTopics", v):
            b.legacy("DeleteTopics", v, body)
            wait_gone(b, t)
            b.legacy("DeleteTopics", v, body, label="unknown")
            continue
        b.req("DeleteTopics", v, body)
        wait_gone(b, t)
        # again: now unknown
        b.req("DeleteTopics", v, body, label="unknown")
    # by topic id (v6)
    t = b.t("byid")
    tid = create(b, t)
    b.req("DeleteTopics", 6, {"topics": [{"name": None, "topic_id": tid}], "timeout_ms": 30000},
          label="by id")
    wait_gone(b, t)
    b.req("DeleteTopics", 6, {"topics": [{"name": None, "topic_id": tid}], "timeout_ms": 30000},
          label="by deleted id")
    b.req("DeleteTopics", 6, {"topics": [{"name": None, "topic_id": "00000000-0000-0000-0000-000000000000"}],
                              "timeout_ms": 30000}, label="by zero id")
    b.req("DeleteTopics", 6, {"topics": [{"name": t, "topic_id": tid}], "timeout_ms": 30000},
          label="by name and id")
    for v in (1, 4, 6):
        b.req("DeleteTopics", v, {"topic_names": ["bad name"], "topics": [{"name": "bad name"}],
                                  "timeout_ms": 30000}, label="invalid name")
    # two topics, one unknown; the same twice
    t1 = b.t("pair")
    create(b, t1)
    b.req("DeleteTopics", 6, {"topics": [{"name": t1}, {"name": b.t("nope")}], "timeout_ms": 30000},
          label="one known, one unknown")
    t2 = b.t("twice")
    create(b, t2)
    b.req("DeleteTopics", 6, {"topics": [{"name": t2}, {"name": t2}], "timeout_ms": 30000},
          label="the same topic twice")
    wait_gone(b, t1)
    # a deleted topic's name can be made again, with a new id
    create(b, t1, label="create again")


@case("create_partitions")
def create_partitions(b):
    t = b.t("t")
    create(b, t, 1)
    for v in range(0, 4):
        b.req("CreatePartitions", v, {"topics": [{"name": t, "count": 2 + v, "assignments": None}],
                                      "timeout_ms": 30000, "validate_only": False})
        wait_led(b, t, 2 + v)
    n = 5
    cp = lambda label, topics, vo=False, v=3: b.req("CreatePartitions", v, {
        "topics": topics, "timeout_ms": 30000, "validate_only": vo}, label=label)
    cp("same count", [{"name": t, "count": n, "assignments": None}])
    cp("fewer", [{"name": t, "count": 2, "assignments": None}])
    cp("validate only", [{"name": t, "count": n + 2, "assignments": None}], vo=True)
    mdreq(b, 12, [t], label="after validate only")
    cp("with assignments", [{"name": t, "count": n + 1, "assignments": [{"broker_ids": [1]}]}])
    wait_led(b, t, n + 1)
    cp("assignment count wrong", [{"name": t, "count": n + 3, "assignments": [{"broker_ids": [1]}]}])
    cp("assignment to unknown broker", [{"name": t, "count": n + 2, "assignments": [{"broker_ids": [5]}]}])
    cp("unknown topic", [{"name": b.t("nope"), "count": 3, "assignments": None}])
    cp("invalid name", [{"name": "bad name", "count": 3, "assignments": None}])
    cp("the same topic twice", [{"name": t, "count": 9, "assignments": None},
                                {"name": t, "count": 9, "assignments": None}])
    cp("internal topic", [{"name": "__consumer_offsets", "count": 5, "assignments": None}], vo=True)
    cp("too many", [{"name": t, "count": 1 << 30, "assignments": None}], vo=True)
    for v in range(0, 3):
        cp("unknown topic", [{"name": b.t("nope"), "count": 3, "assignments": None}], v=v)
    mdreq(b, 12, [t], label="after all")


def dtp(b, label, topics, limit=2000, cursor=None):
    return b.req("DescribeTopicPartitions", 0, {
        "topics": [{"name": x} for x in topics], "response_partition_limit": limit,
        "cursor": cursor}, label=label)


@case("describe_topic_partitions")
def describe_topic_partitions(b):
    a, c = b.t("a"), b.t("c")
    create(b, a, 3)
    create(b, c, 2)
    dtp(b, "two topics", [c, a])
    dtp(b, "unknown topic", [b.t("nope")])
    dtp(b, "invalid name", ["bad name"])
    dtp(b, "limit 2", [a, c], limit=2)
    dtp(b, "cursor", [a, c], limit=2, cursor={"topic_name": a, "partition_index": 2})
    dtp(b, "cursor at an unknown topic", [a, c], limit=10, cursor={"topic_name": b.t("b"), "partition_index": 0})
    dtp(b, "limit 0", [a], limit=0)
    dtp(b, "internal", ["__consumer_offsets"])
