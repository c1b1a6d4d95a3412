#!/usr/bin/python3
"""kafka-python 2.0.2 consumers of old brokers against gregor (GR_BOOTSTRAP):
api_version 0.8.2, 0.9 and 0.10.0 fetch with Fetch v0, v1 and v2, whose
answers gregor down-converts to message sets of magic 0 and 1. Each reads
back what a current producer wrote (batches of magic 2, gzip and none),
then meets a message larger than its max_partition_fetch_bytes: as from
Kafka 3.x (which sent the first message cut, for v0-v2 fetches are read
without minOneMessage), the consumer raises RecordTooLargeError rather
than getting nothing for ever."""
import os
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.consumer.fetcher import RecordTooLargeError

bootstrap = os.environ["GR_BOOTSTRAP"]
topic = "compat-kpy-legacy-%d" % os.getpid()

producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all",
                         compression_type="gzip", max_request_size=1 << 20)
values = [b"legacy-%05d" % i for i in range(300)]
for v in values:
    producer.send(topic, value=v, partition=0)
producer.flush(30)
producer.close()
# incompressible, and in a batch of its own: 200 KB on disk
producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all",
                         max_request_size=1 << 20)
big = os.urandom(200000)
producer.send(topic, value=big, partition=0).get(timeout=30)
producer.close()

failed = False
for api in ((0, 8, 2), (0, 9), (0, 10, 0)):
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None,
                             api_version=api, enable_auto_commit=False,
                             max_partition_fetch_bytes=65536,
                             consumer_timeout_ms=5000)
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    got, too_large = [], None
    deadline = time.time() + 20
    while time.time() < deadline and too_large is None:
        try:
            batch = consumer.poll(timeout_ms=1000)
        except RecordTooLargeError as e:
            too_large = e
            break
        for msgs in batch.values():
            got.extend(m.value for m in msgs)
    consumer.close()
    if got != values:
        print("FAIL: api_version %r read %d of %d messages" % (
            api, len(got), len(values)))
        failed = True
    elif too_large is None:
        print("FAIL: api_version %r: no RecordTooLargeError for a message "
              "of %d bytes past max_partition_fetch_bytes 65536" % (api, len(big)))
        failed = True
    else:
        print("ok api_version %r: %d messages, then RecordTooLargeError (%s)"
              % (api, len(got), str(too_large).split(" whose")[0]))
sys.exit(1 if failed else 0)
