#!/usr/bin/python3
"""kafka-python 2.0.2's KafkaAdminClient against gregor (GR_BOOTSTRAP):
CreateTopics v3, DescribeConfigs v2, AlterConfigs v1, CreatePartitions v1,
DeleteTopics v3, and configs that survive a restart.

  kafka_python_admin.py setup   creates topics and alters configs (a
                                topic's, this broker's dynamic ones)
  kafka_python_admin.py verify  after a restart: the same values and
                                sources, and their effect (a record above
                                the topic's max.message.bytes is refused)

Exit 0 or 1."""
import os
import sys

from kafka import KafkaProducer
from kafka.admin import (ConfigResource, ConfigResourceType, KafkaAdminClient,
                         NewPartitions, NewTopic)
from kafka.errors import (InvalidConfigurationError, InvalidPartitionsError,
                          InvalidReplicationFactorError, KafkaError,
                          MessageSizeTooLargeError,
                          TopicAlreadyExistsError,
                          UnknownTopicOrPartitionError)

BOOT = os.environ["GR_BOOTSTRAP"]
T, GONE = "kpy-adm", "kpy-adm-gone"
# DescribeConfigs sources
TOPIC_CONFIG, DYNAMIC_BROKER, STATIC, DEFAULT = 1, 2, 4, 5


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def expect_error(fn, err, what):
    try:
        fn()
    except err as e:
        print("  %s: %s" % (what, type(e).__name__))
        return
    except KafkaError as e:
        fail("%s: %r, want %s" % (what, e, err.__name__))
    fail("%s: no error, want %s" % (what, err.__name__))


def configs(admin, rtype, name, synonyms=False):
    res = admin.describe_configs([ConfigResource(rtype, name)],
                                 include_synonyms=synonyms)
    r = res[0].resources[0]
    if r[0] != 0:
        fail("describe %s: error %d %s" % (name, r[0], r[1]))
    # v1+: (name, value, read_only, source, sensitive, synonyms)
    return {e[0]: e for e in r[4]}


def expect(cfg, name, value, source):
    e = cfg.get(name)
    if e is None:
        fail("%s not described" % name)
    print("  %s = %s (source %d)" % (name, e[1], e[3]))
    if e[1] != value or e[3] != source:
        fail("%s = %r source %d, want %r source %d" % (name, e[1], e[3], value,
                                                       source))


def setup(admin):
    admin.create_topics([
        NewTopic(T, 2, 1, topic_configs={"max.message.bytes": "2000",
                                         "cleanup.policy": "compact,delete"}),
        NewTopic(GONE, 1, 1)])
    expect_error(lambda: admin.create_topics([NewTopic(T, 1, 1)]),
                 TopicAlreadyExistsError, "again")
    expect_error(lambda: admin.create_topics([NewTopic("kpy-x", 1, 2)]),
                 InvalidReplicationFactorError, "rf 2")
    expect_error(lambda: admin.create_topics(
        [NewTopic("kpy-x", 1, 1, topic_configs={"segment.ms": "0"})]),
        InvalidConfigurationError, "segment.ms=0")
    expect_error(lambda: admin.create_topics(
        [NewTopic("kpy-x", 1, 1, topic_configs={"no.such.config": "1"})]),
        InvalidConfigurationError, "unknown config")
    admin.create_topics([NewTopic("kpy-only", 1, 1)], validate_only=True)
    if "kpy-only" in admin.list_topics():
        fail("validate_only created the topic")
    # alter: the topic (AlterConfigs replaces all overrides: keep both)
    admin.alter_configs([ConfigResource(
        ConfigResourceType.TOPIC, T,
        configs={"max.message.bytes": "1000", "retention.ms": "86400000"})])
    cfg = configs(admin, ConfigResourceType.TOPIC, T, synonyms=True)
    expect(cfg, "max.message.bytes", "1000", TOPIC_CONFIG)
    expect(cfg, "cleanup.policy", "delete", DEFAULT)  # replaced
    # this broker's dynamic config, the default of topics
    admin.alter_configs([ConfigResource(
        ConfigResourceType.BROKER, "1",
        configs={"log.segment.bytes": "536870912",
                 "log.cleaner.backoff.ms": "500"})])
    cfg = configs(admin, ConfigResourceType.BROKER, "1", synonyms=True)
    expect(cfg, "log.segment.bytes", "536870912", DYNAMIC_BROKER)
    syn = [(s[0], s[1], s[2]) for s in cfg["log.segment.bytes"][5]]
    if syn != [("log.segment.bytes", "536870912", DYNAMIC_BROKER),
               ("log.segment.bytes", "1073741824", DEFAULT)]:
        fail("log.segment.bytes synonyms %r" % syn)
    cfg = configs(admin, ConfigResourceType.TOPIC, T)
    expect(cfg, "segment.bytes", "536870912", DYNAMIC_BROKER)
    # partitions
    admin.create_partitions({T: NewPartitions(3)})
    expect_error(lambda: admin.create_partitions({T: NewPartitions(3)}),
                 InvalidPartitionsError, "same count")
    admin.delete_topics([GONE])
    expect_error(lambda: admin.delete_topics([GONE]),
                 UnknownTopicOrPartitionError, "deleted twice")


def verify(admin):
    topics = admin.list_topics()
    if T not in topics or GONE in topics:
        fail("topics after the restart: %r" % topics)
    md = admin.describe_topics([T])
    if len(md[0]["partitions"]) != 3:
        fail("partitions after the restart: %r" % md)
    cfg = configs(admin, ConfigResourceType.TOPIC, T)
    expect(cfg, "max.message.bytes", "1000", TOPIC_CONFIG)
    expect(cfg, "retention.ms", "86400000", TOPIC_CONFIG)
    expect(cfg, "segment.bytes", "536870912", DYNAMIC_BROKER)
    cfg = configs(admin, ConfigResourceType.BROKER, "1")
    expect(cfg, "log.cleaner.backoff.ms", "500", DYNAMIC_BROKER)
    # in effect: 1500 bytes are above the topic's max.message.bytes
    p = KafkaProducer(bootstrap_servers=BOOT, retries=0)
    p.send(T, value=b"x" * 100, partition=0).get(timeout=10)
    try:
        p.send(T, value=b"x" * 1500, partition=0).get(timeout=10)
        fail("a 1500-byte record was accepted")
    except MessageSizeTooLargeError:
        print("  1500 bytes: MessageSizeTooLargeError")
    p.close()
    # back to the defaults: the topic's overrides and this broker's
    admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, T,
                                        configs={})])
    admin.alter_configs([ConfigResource(ConfigResourceType.BROKER, "1",
                                        configs={})])
    cfg = configs(admin, ConfigResourceType.TOPIC, T)
    expect(cfg, "max.message.bytes", "1048588", DEFAULT)
    expect(cfg, "segment.bytes", "1073741824", DEFAULT)
    admin.delete_topics([T])


def main():
    admin = KafkaAdminClient(bootstrap_servers=BOOT,
                             client_id="kpy-admin", request_timeout_ms=10000)
    {"setup": setup, "verify": verify}[sys.argv[1]](admin)
    admin.close()
    print("ok", sys.argv[1])


if __name__ == "__main__":
    main()
