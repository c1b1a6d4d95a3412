"""
tests/diff/cases_admin.py: configs (DescribeConfigs, AlterConfigs,
IncrementalAlterConfigs: topics, the broker, the cluster default, the
broker logger, client metrics), DescribeLogDirs, DescribeCluster,
ElectLeaders, ListConfigResources, DescribeProducers' errors and client
telemetry, every version, with invalid configs and values.

Kafka applies config changes through its metadata log: a case waits
(unrecorded) until the change is visible before it records the describe.
"""

import os
import re
import uuid

from harness import case
from common import create, produce, own_topics
from codec import batch
from legit import config_names_ignored

TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP = 2, 4, 8, 16, 32


def _gregor_broker_keys():
    """The broker keys Gregor has (src/core/conf.def): the ones its
    DescribeConfigs of a broker lists (deliberate "broker-configs")."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                        "src", "core", "conf.def")
    with open(path) as f:
        return set(re.findall(r'X\(\s*\w+,\s*"([^"]+)"', f.read()))


GREGOR_BROKER_KEYS = _gregor_broker_keys()

# the broker defaults Gregor chose differently from Kafka 4.4's (deliberate
# "gregor-defaults"), and Kafka's
GREGOR_DEFAULTS = {"queued.max.request.bytes": "524288000",
                   "socket.receive.buffer.bytes": "-1",
                   "socket.send.buffer.bytes": "-1"}
GREGOR_DEFAULTS_KAFKA = {"queued.max.request.bytes": "-1",
                         "socket.receive.buffer.bytes": "102400",
                         "socket.send.buffer.bytes": "102400"}

# broker configs both describe, by name (a whole broker listing is
# compared as the set of names, below)
BROKER_KEYS = ["num.partitions", "auto.create.topics.enable", "log.retention.hours",
               "log.retention.ms", "log.segment.bytes", "message.max.bytes",
               "min.insync.replicas", "compression.type", "log.cleanup.policy",
               "default.replication.factor", "offsets.topic.num.partitions",
               "transaction.state.log.num.partitions", "group.initial.rebalance.delay.ms",
               "group.min.session.timeout.ms", "group.max.session.timeout.ms",
               "transaction.max.timeout.ms", "delete.topic.enable", "log.roll.hours",
               "unclean.leader.election.enable", "max.connections", "log.cleaner.threads",
               "socket.request.max.bytes", "log.message.timestamp.type", "node.id",
               "broker.id", "log.dirs", "no.such.config"]


def dc(b, v, resources, label=None, synonyms=False, docs=False, filt=None):
    return b.req("DescribeConfigs", v, {"resources": resources, "include_synonyms": synonyms,
                                        "include_documentation": docs}, label=label, filt=filt)


def res(rtype, name, keys=None):
    return {"resource_type": rtype, "resource_name": name, "configuration_keys": keys}


def wait_config(b, rtype, name, key, pred, timeout=15):
    """Waits (unrecorded) until a config of a resource satisfies pred(value
    or None when not listed)."""
    def ok(r):
        res_ = r["results"][0]
        if res_["error_code"]:
            return False
        vals = [c["value"] for c in res_["configs"] if c["name"] == key]
        return pred(vals[0] if vals else None)
    return b.wait("DescribeConfigs", 4, {"resources": [res(rtype, name, [key])],
                                         "include_synonyms": False}, ok, timeout=timeout,
                  what="%s of %s" % (key, name))


@case("describe_configs")
def describe_configs(b):
    t = b.t("t")
    create(b, t, configs={"retention.ms": "3600000", "cleanup.policy": "compact",
                          "max.message.bytes": "200000"})
    for v in range(0, 5):
        r = res(TOPIC, t)
        if v == 0:
            b.legacy("DescribeConfigs", 0, {"resources": [r]}, label="topic")
            continue
        dc(b, v, [r], label="topic")
        dc(b, v, [r], label="topic with synonyms", synonyms=True)
        dc(b, v, [res(TOPIC, t, ["retention.ms", "segment.bytes", "no.such.config"])],
           label="some keys", synonyms=True)
        dc(b, v, [res(TOPIC, b.t("nope"))], label="unknown topic")
        dc(b, v, [res(TOPIC, "bad name")], label="invalid topic name")
        dc(b, v, [res(TOPIC, "")], label="empty topic name")
        dc(b, v, [res(BROKER, "1", BROKER_KEYS)], label="broker, some keys", synonyms=True)
        # a key Kafka has and Gregor does not (deliberate "broker-configs")
        b.req("DescribeConfigs", v, {"resources": [res(BROKER, "1", ["ssl.engine.factory.class"])],
                                     "include_synonyms": True, "include_documentation": False},
              label="broker, a key Gregor does not have", deliberate="broker-configs", expect={
                  "kafka": lambda s: len(s.resp["results"][0]["configs"]) == 1,
                  "gregor": lambda s: s.resp["results"][0]["error_code"] == 0
                  and len(s.resp["results"][0]["configs"]) == 0})
        # listeners are bound once (deliberate "static-listeners")
        b.req("DescribeConfigs", v, {"resources": [res(BROKER, "1", ["listeners"])],
                                     "include_synonyms": True, "include_documentation": False},
              label="broker, listeners", deliberate="static-listeners", expect={
                  "kafka": lambda s: s.resp["results"][0]["configs"][0]["read_only"] is False,
                  "gregor": lambda s: s.resp["results"][0]["configs"][0]["read_only"] is True})
        dc(b, v, [res(BROKER, "", BROKER_KEYS)], label="cluster default, some keys")
        dc(b, v, [res(BROKER, "2", ["num.partitions"])], label="another broker")
        dc(b, v, [res(BROKER, "x", ["num.partitions"])], label="broker name not a number")
        dc(b, v, [res(99, "x")], label="unknown resource type")
    dc(b, 3, [res(TOPIC, t, ["retention.ms", "cleanup.policy"])], label="documentation", docs=True)
    dc(b, 4, [res(BROKER_LOGGER, "1", ["root", "kafka", "no.such.logger"])], label="broker logger")
    dc(b, 4, [res(CLIENT_METRICS, b.t("cm"))], label="client metrics, unknown")
    b.req("DescribeConfigs", 4, {"resources": [res(GROUP, b.t("g"))], "include_synonyms": False,
                                 "include_documentation": False},
          label="group configs", deliberate="group-configs", expect={
              "kafka": lambda s: not s.resp["results"][0]["error_code"]
              and len(s.resp["results"][0]["configs"]) > 0,
              "gregor": lambda s: s.resp["results"][0]["error_code"] != 0})
    dc(b, 4, [res(TOPIC, t), res(TOPIC, b.t("nope")), res(BROKER, "1", ["num.partitions"])],
       label="three resources")
    # the whole broker listing, by name: every key Gregor has is listed
    # as Kafka lists it; the keys of Kafka's that Gregor does not have are
    # not (deliberate "broker-configs")
    for name in ("1", ""):
        r = b.q("DescribeConfigs", 4, {"resources": [res(BROKER, name)], "include_synonyms": False})
        every = [c for c in r["results"][0]["configs"] if not config_names_ignored(c["name"])]
        if name == "1":
            b.note("broker %r config names" % name, sorted(c["name"] for c in every),
                   deliberate="broker-configs", expect={
                       "kafka": lambda s: len(s.resp["value"]) > len(GREGOR_BROKER_KEYS),
                       "gregor": lambda s: set(s.resp["value"]) <= GREGOR_BROKER_KEYS})
        cs = [c for c in every if c["name"] in GREGOR_BROKER_KEYS]
        b.note("broker %r config names Gregor has" % name, sorted(c["name"] for c in cs))
        b.note("broker %r configs: source, read-only, sensitive" % name,
               sorted("%s %s %s %s" % (c["name"], c["config_source"], c["read_only"], c["is_sensitive"])
                      for c in cs if not static_security(c["name"])
                      and c["name"] != "num.replica.fetchers"))
        # one fetcher per leader broker, whatever the count says
        # (deliberate "static-fetchers")
        nrf = [c for c in cs if c["name"] == "num.replica.fetchers"]
        if name == "1":
            b.note("broker %r configs: num.replica.fetchers read-only" % name,
                   [c["read_only"] for c in nrf], deliberate="static-fetchers", expect={
                       "kafka": lambda s: s.resp["value"] == [False],
                       "gregor": lambda s: s.resp["value"] == [True]})
        # TLS and SASL settings are read at start-up (deliberate "static-tls")
        tls = [c for c in cs if static_security(c["name"])]
        b.note("broker %r configs: ssl.* source, sensitive" % name,
               sorted("%s %s %s" % (c["name"], c["config_source"], c["is_sensitive"]) for c in tls))
        if name == "1":
            b.note("broker %r configs: ssl.* read-only" % name,
                   sorted(c["read_only"] for c in tls), deliberate="static-tls", expect={
                       "kafka": lambda s: s.resp["value"].count(False) >= len(s.resp["value"]) - 1,
                       "gregor": lambda s: s.resp["value"] and all(s.resp["value"])})
        # Gregor's own defaults for these (deliberate "gregor-defaults")
        own = [c for c in cs if c["name"] in GREGOR_DEFAULTS]
        b.note("broker %r configs: values" % name,
               sorted("%s=%s" % (c["name"], c["value"]) for c in cs
                      if c["name"] not in GREGOR_DEFAULTS))
        if name == "1":
            b.note("broker %r configs: the defaults Gregor chose" % name,
                   sorted("%s=%s" % (c["name"], c["value"]) for c in own),
                   deliberate="gregor-defaults", expect={
                       "kafka": lambda s: s.resp["value"] == sorted(
                           "%s=%s" % kv for kv in GREGOR_DEFAULTS_KAFKA.items()),
                       "gregor": lambda s: s.resp["value"] == sorted(
                           "%s=%s" % kv for kv in GREGOR_DEFAULTS.items())})

def static_security(name):
    """the settings Kafka changes at run time and Gregor reads at start-up:
    ssl.* and the SASL listener settings Kafka's dynamic configs list"""
    return name.startswith("ssl.") or name in ("sasl.enabled.mechanisms",
                                               "sasl.jaas.config")


@case("alter_configs")
def alter_configs(b):
    t = b.t("t")
    create(b, t)
    ac = lambda v, resources, label, validate=False: b.req("AlterConfigs", v, {
        "resources": resources, "validate_only": validate}, label=label)
    tr = lambda configs, name=t: {"resource_type": TOPIC, "resource_name": name,
                                  "configs": [{"name": k, "value": x} for k, x in configs.items()]}
    for v in range(0, 3):
        ac(v, [tr({"retention.ms": str(1000000 + v), "segment.ms": "3600000"})], "set two")
        wait_config(b, TOPIC, t, "retention.ms", lambda x, v=v: x == str(1000000 + v))
        dc(b, 3, [res(TOPIC, t, ["retention.ms", "segment.ms", "cleanup.policy"])], label="after")
        ac(v, [tr({"retention.ms": "abc"})], "invalid value")
        ac(v, [tr({"no.such.config": "1"})], "unknown config")
        ac(v, [tr({"retention.ms": "5"}, name=b.t("nope"))], "unknown topic")
        ac(v, [tr({"retention.ms": "5"})], "validate only", validate=True)
        ac(v, [tr({"cleanup.policy": "compact,delete"})], "a list value")
        ac(v, [tr({"retention.ms": None})], "null value")
    # AlterConfigs replaces the whole set: what is not named goes back.
    # (Waited for by the key it sets: retention.ms is at its default since
    # "a list value" replaced the set, so a wait on it passed at once and
    # Kafka, which applies the change through its metadata log, was seen
    # before it had: cleanup.policy still compact,delete there.)
    ac(2, [tr({"cleanup.policy": "compact"})], "replace the set")
    wait_config(b, TOPIC, t, "cleanup.policy", lambda x: x == "compact")
    dc(b, 3, [res(TOPIC, t, ["retention.ms", "segment.ms", "cleanup.policy"])], label="after the replace")
    # broker configs: dynamic, read-only, unknown, for another broker
    br = lambda configs, name="1": {"resource_type": BROKER, "resource_name": name,
                                    "configs": [{"name": k, "value": x} for k, x in configs.items()]}
    ac(2, [br({"log.cleaner.threads": "2"})], "broker, dynamic", validate=True)
    ac(2, [br({"log.retention.hours": "5"})], "broker, read-only", validate=True)
    ac(2, [br({"no.such.config": "1"})], "broker, unknown", validate=True)
    ac(2, [br({"log.cleaner.threads": "2"}, name="7")], "another broker", validate=True)
    ac(2, [br({"log.cleaner.threads": "abc"})], "broker, invalid value", validate=True)
    ac(2, [{"resource_type": 99, "resource_name": "x", "configs": []}], "unknown resource type")
    # (the same topic twice in one request: Kafka 4.4 never answers)


@case("incremental_alter_configs")
def incremental_alter_configs(b):
    t = b.t("t")
    create(b, t)
    SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
    iac = lambda v, configs, label, name=t, rtype=TOPIC, validate=False: b.req(
        "IncrementalAlterConfigs", v, {"resources": [{
            "resource_type": rtype, "resource_name": name,
            "configs": [{"name": k, "config_operation": op, "value": x} for k, op, x in configs]}],
            "validate_only": validate}, label=label)
    for v in range(0, 2):
        iac(v, [("retention.ms", SET, str(2000000 + v))], "set")
        wait_config(b, TOPIC, t, "retention.ms", lambda x, v=v: x == str(2000000 + v))
        iac(v, [("cleanup.policy", APPEND, "compact")], "append to a list")
        wait_config(b, TOPIC, t, "cleanup.policy", lambda x: x and "compact" in x)
        dc(b, 4, [res(TOPIC, t, ["cleanup.policy", "retention.ms"])], label="after append")
        iac(v, [("cleanup.policy", SUBTRACT, "compact")], "subtract from a list")
        wait_config(b, TOPIC, t, "cleanup.policy", lambda x: x == "delete")
        iac(v, [("retention.ms", DELETE, None)], "delete")
        wait_config(b, TOPIC, t, "retention.ms", lambda x: x == "604800000")
        dc(b, 4, [res(TOPIC, t, ["cleanup.policy", "retention.ms"])], label="after delete")
        iac(v, [("retention.ms", 7, "1")], "unknown operation")
        iac(v, [("retention.ms", APPEND, "1")], "append to a non-list")
        iac(v, [("no.such.config", SET, "1")], "unknown config")
        iac(v, [("retention.ms", SET, "x")], "invalid value")
        iac(v, [("retention.ms", SET, None)], "set null")
        iac(v, [("retention.ms", SET, "1"), ("retention.ms", SET, "2")], "the same key twice")
        iac(v, [("retention.ms", SET, "1")], "unknown topic", name=b.t("nope"))
        iac(v, [("cleanup.policy", APPEND, "foo")], "append an invalid item")
    b.req("IncrementalAlterConfigs", 1, {"resources": [{
        "resource_type": TOPIC, "resource_name": t,
        "configs": [{"name": "segment.bytes", "config_operation": SET, "value": "16384"}]}],
        "validate_only": True}, label="small segment.bytes", deliberate="small-segment-bytes", expect={
        "kafka": lambda s: s.resp["responses"][0]["error_code"] == 40,
        "gregor": lambda s: s.resp["responses"][0]["error_code"] == 0})
    b.req("IncrementalAlterConfigs", 1, {"resources": [{
        "resource_type": TOPIC, "resource_name": t,
        "configs": [{"name": "message.format.version", "config_operation": SET, "value": "3.0"}]}],
        "validate_only": True}, label="message.format.version", deliberate="message-format-version",
        expect={"kafka": lambda s: s.resp["responses"][0]["error_code"] == 40,
                "gregor": lambda s: s.resp["responses"][0]["error_code"] == 0})
    # the broker, the cluster default, the broker logger
    iac(1, [("log.cleaner.threads", SET, "2")], "broker, dynamic", rtype=BROKER, name="1", validate=True)
    iac(1, [("log.retention.hours", SET, "5")], "broker, read-only", rtype=BROKER, name="1", validate=True)
    iac(1, [("log.cleaner.threads", SET, "2")], "cluster default", rtype=BROKER, name="", validate=True)
    iac(1, [("root", SET, "INFO")], "broker logger", rtype=BROKER_LOGGER, name="1", validate=True)
    iac(1, [("root", SET, "LOUD")], "broker logger, invalid level", rtype=BROKER_LOGGER, name="1",
        validate=True)
    iac(1, [("root", APPEND, "INFO")], "broker logger, append", rtype=BROKER_LOGGER, name="1",
        validate=True)
    iac(1, [("metrics", SET, "org.apache.kafka.producer."), ("interval.ms", SET, "60000")],
        "client metrics subscription", rtype=CLIENT_METRICS, name=b.t("cm"), validate=True)
    iac(1, [("interval.ms", SET, "10")], "client metrics, interval too small",
        rtype=CLIENT_METRICS, name=b.t("cm"), validate=True)


@case("describe_log_dirs")
def describe_log_dirs(b):
    t = b.t("t")
    create(b, t, 2)
    produce(b, t, 0, batch(["a" * 100, "b" * 100]), record=False)
    for v in range(0, 6):
        body = {"topics": [{"topic": t, "partitions": [0, 1, 5]}]}
        if v == 0:
            b.legacy("DescribeLogDirs", 0, body)
            continue
        b.req("DescribeLogDirs", v, body)
        b.req("DescribeLogDirs", v, {"topics": None}, label="every topic", filt=_own_dirs(b))
        b.req("DescribeLogDirs", v, {"topics": [{"topic": b.t("nope"), "partitions": [0]}]},
              label="unknown topic")
        b.req("DescribeLogDirs", v, {"topics": []}, label="no topics")


def _own_dirs(b):
    f = own_topics(b)

    def filt(r):
        for d in r.get("results") or []:
            f(d)
        return r
    return filt


@case("describe_cluster")
def describe_cluster(b):
    for v in range(0, 3):
        b.req("DescribeCluster", v, {"include_cluster_authorized_operations": False,
                                     "endpoint_type": 1, "include_fenced_brokers": False})
        b.req("DescribeCluster", v, {"include_cluster_authorized_operations": True,
                                     "endpoint_type": 1, "include_fenced_brokers": True},
              label="authorized operations, fenced brokers")
        if v >= 1:
            b.req("DescribeCluster", v, {"endpoint_type": 2}, label="controllers")
            b.req("DescribeCluster", v, {"endpoint_type": 5}, label="unknown endpoint type")


@case("elect_leaders")
def elect_leaders(b):
    t = b.t("t")
    create(b, t, 2)
    for v in range(0, 3):
        for et in ((0, 1) if v >= 1 else (0,)):
            b.req("ElectLeaders", v, {"election_type": et, "topic_partitions": [
                {"topic": t, "partitions": [0, 1, 7]}], "timeout_ms": 30000},
                label="election type %d" % et)
        b.req("ElectLeaders", v, {"election_type": 0, "topic_partitions": [
            {"topic": b.t("nope"), "partitions": [0]}], "timeout_ms": 30000}, label="unknown topic")
        b.req("ElectLeaders", v, {"election_type": 0, "topic_partitions": [
            {"topic": t, "partitions": [0]}], "timeout_ms": 0}, label="timeout 0")
    b.req("ElectLeaders", 2, {"election_type": 0, "topic_partitions": None, "timeout_ms": 30000},
          label="every partition", filt=lambda r: dict(r, replica_election_results=[
              x for x in r["replica_election_results"] if x["topic"].startswith(b.t())]))
    b.req("ElectLeaders", 2, {"election_type": 3, "topic_partitions": [
        {"topic": t, "partitions": [0]}], "timeout_ms": 30000}, label="unknown election type")


@case("list_config_resources")
def list_config_resources(b):
    t = b.t("t")
    create(b, t)
    keep = lambda r: dict(r, config_resources=[
        c for c in r["config_resources"]
        if c["resource_type"] not in (TOPIC,) or c["resource_name"].startswith(b.t())])
    b.req("ListConfigResources", 0, {}, label="client metrics")
    for types in ([], [TOPIC], [BROKER], [BROKER_LOGGER], [CLIENT_METRICS], [GROUP], [TOPIC, BROKER], [99]):
        b.req("ListConfigResources", 1, {"resource_types": types}, filt=keep,
              label="types %s" % types)


@case("describe_producers")
def describe_producers(b):
    t = b.t("t")
    create(b, t, 2)
    produce(b, t, 0, batch(["plain"]), record=False)
    dp = lambda topics, label: b.req("DescribeProducers", 0, {"topics": topics}, label=label)
    dp([{"name": t, "partition_indexes": [0, 1, 9]}], "no producers, unknown partition")
    dp([{"name": b.t("nope"), "partition_indexes": [0]}], "unknown topic")
    dp([{"name": "bad name", "partition_indexes": [0]}], "invalid topic name")
    dp([{"name": t, "partition_indexes": []}], "no partitions")


@case("client_telemetry")
def client_telemetry(b):
    zero = "00000000-0000-0000-0000-000000000000"
    r = b.req("GetTelemetrySubscriptions", 0, {"client_instance_id": zero}, label="new client")
    b.req("GetTelemetrySubscriptions", 0, {"client_instance_id": str(uuid.UUID(int=12345))},
          label="unknown client instance")
    cid = r["client_instance_id"] if r and r.get("client_instance_id") else str(uuid.UUID(int=1))
    sid = r["subscription_id"] if r else 0
    b.req("PushTelemetry", 0, {"client_instance_id": cid, "subscription_id": sid, "terminating": False,
                               "compression_type": 0, "metrics": b""}, label="empty push")
    b.req("PushTelemetry", 0, {"client_instance_id": zero, "subscription_id": 0, "terminating": False,
                               "compression_type": 0, "metrics": b""}, label="push without an id")
    b.req("PushTelemetry", 0, {"client_instance_id": cid, "subscription_id": sid + 1,
                               "terminating": True, "compression_type": 9, "metrics": b"x"},
          label="push, unknown compression")


@case("connection_quota_configs", alone=True)
def connection_quota_configs(b):
    """The connection quotas as dynamic broker configs: the overrides'
    syntax and its errors, max.connections.per.ip 0 without overrides, a
    listener's max.connections and max.connection.creation.rate (dynamic at
    both levels, refused at 0 once they change a listener), and how a
    listener's key is described. Alone: it sets a broker config the other
    cases' listings would see."""
    SET, DELETE = 0, 1
    iac = lambda configs, label, name="1", validate=True: b.req(
        "IncrementalAlterConfigs", 1, {"resources": [{
            "resource_type": BROKER, "resource_name": name,
            "configs": [{"name": k, "config_operation": op, "value": x} for k, op, x in configs]}],
            "validate_only": validate}, label=label)
    ov = "max.connections.per.ip.overrides"
    for v, what in (("abc", "no colon"), ("h:x", "not a count"), ("bad/host:1", "invalid host"),
                    (",a:1", "empty first item"), ("a:1,", "trailing comma"), ("  ", "blank"),
                    ("::1:5", "IPv6 host"), ("a:-1", "negative count"), ("127.0.0.1:+5", "plus sign"),
                    ("a:1, ,b:2", "empty item"), ("", "empty")):
        iac([(ov, SET, v)], "overrides, %s" % what)
    iac([("max.connections.per.ip", SET, "0")], "per ip 0 without overrides")
    iac([("max.connections.per.ip", SET, "0"), (ov, SET, "127.0.0.1:3")], "per ip 0 with overrides")
    iac([("max.connections.per.ip", SET, "-1")], "per ip -1")
    iac([("max.connections", SET, "0")], "max.connections 0")
    iac([("max.connection.creation.rate", SET, "0")], "creation rate 0")
    iac([("max.connection.creation.rate", SET, "0")], "creation rate 0, cluster default", name="")
    for k in ("listener.name.plaintext.max.connections",
              "listener.name.plaintext.max.connection.creation.rate",
              "listener.name.PLAINTEXT.max.connections", "listener.name.nosuch.max.connections"):
        for v in ("0", "-1", "abc", "5"):
            iac([(k, SET, v)], "%s %s" % (k, v))
        iac([(k, SET, "5")], "%s, cluster default" % k, name="")
    key = "listener.name.plaintext.max.connections"
    iac([(key, SET, "100000")], "listener max.connections set", validate=False)
    wait_config(b, BROKER, "1", key, lambda x: x == "100000")
    dc(b, 4, [res(BROKER, "1", [key, "max.connections"])], label="listener max.connections described",
       synonyms=True)
    iac([(key, DELETE, None)], "listener max.connections deleted", validate=False)
    wait_config(b, BROKER, "1", key, lambda x: x is None)
