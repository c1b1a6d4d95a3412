#!/usr/bin/python3
"""kafka-python 2.0.2 against gregor (GR_BOOTSTRAP): infers a broker of 2.x
or newer from ApiVersions (so it produces magic-2 batches with Produce v7
and fetches with Fetch v4+), produces with gzip and without, and a consumer
assigned to the partition (no group) reads everything back in order."""
import os
import sys

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

bootstrap = os.environ["GR_BOOTSTRAP"]
topic = "compat-kpy-data-%d" % os.getpid()

producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all",
                         compression_type="gzip")
version = producer.config["api_version"]
print("kafka-python inferred broker version", version)
if version < (2, 0):
    print("FAIL: inferred", version, "; want 2.x or newer")
    sys.exit(1)
values = [b"value-%05d" % i for i in range(500)]
futures = [producer.send(topic, key=b"k%d" % i, value=v, partition=0)
           for i, v in enumerate(values)]
producer.flush(30)
offsets = [f.get(timeout=30).offset for f in futures]
if offsets != list(range(len(values))):
    print("FAIL: offsets", offsets[:10], "...")
    sys.exit(1)
producer.close()
plain = KafkaProducer(bootstrap_servers=bootstrap, acks=1)
for i in range(100):
    plain.send(topic, value=b"plain-%d" % i, partition=0)
    values.append(b"plain-%d" % i)
plain.flush(30)
plain.close()

consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None,
                         enable_auto_commit=False,
                         consumer_timeout_ms=5000)
tp = TopicPartition(topic, 0)
consumer.assign([tp])
consumer.seek_to_beginning(tp)
got = [m.value for m in consumer]
consumer.close()
if got != values:
    print("FAIL: consumed %d of %d, first difference at %s" % (
        len(got), len(values),
        next((i for i, (a, b) in enumerate(zip(got, values)) if a != b),
             None)))
    sys.exit(1)
print("ok", len(got), "messages")
