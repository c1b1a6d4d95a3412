#!/usr/bin/python3
"""kafka-python connects to gregor (GR_BOOTSTRAP): its ApiVersions v0 +
Metadata v0 probe is answered, it lists topics, and a topic is auto-created
by a Metadata request. Exit 0 on success."""
import os
import sys

from kafka import KafkaClient, KafkaConsumer

bootstrap = os.environ["GR_BOOTSTRAP"]
topic = "compat-kpy-%d" % os.getpid()

consumer = KafkaConsumer(bootstrap_servers=bootstrap,
                         request_timeout_ms=10000)
version = consumer.config["api_version"]
print("kafka-python inferred broker version", version)
# the broker answers the probe; the inference depends on what is served
min_version = tuple(int(x) for x in
                    os.environ.get("GR_KPY_MIN_VERSION", "0.10").split("."))
if version < min_version:
    print("FAIL: inferred", version, "below", min_version)
    sys.exit(1)

client = KafkaClient(bootstrap_servers=bootstrap)
future = client.cluster.request_update()
client.set_topics([topic])
client.poll(future=future, timeout_ms=10000)
for _ in range(20):
    f = client.cluster.request_update()
    client.poll(future=f, timeout_ms=5000)
    if client.cluster.partitions_for_topic(topic):
        break
parts = client.cluster.partitions_for_topic(topic)
if parts != {0}:
    print("FAIL: partitions of", topic, parts)
    sys.exit(1)
brokers = client.cluster.brokers()
if len(brokers) != 1:
    print("FAIL: brokers", brokers)
    sys.exit(1)
if topic not in consumer.topics():
    print("FAIL: topic not listed", consumer.topics())
    sys.exit(1)
client.close()
consumer.close()
print("ok")
