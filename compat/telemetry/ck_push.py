#!/usr/bin/python3
"""A confluent-kafka (librdkafka 2.16) producer that sends a record every
100 ms for the seconds given: with a client-metrics subscription on the
broker, librdkafka pushes its metrics (KIP-714, enable.metrics.push is on
by default). Run by compat/telemetry/scenarios.sh.

  ck_push.py TOPIC SECONDS        (GR_BOOTSTRAP: the broker)
"""
import os
import sys
import time

from confluent_kafka import Producer

topic, secs = sys.argv[1], float(sys.argv[2])
p = Producer({"bootstrap.servers": os.environ["GR_BOOTSTRAP"],
              "client.id": "telemetry-ck"})
end = time.time() + secs
n = 0
while time.time() < end:
    p.produce(topic, key=b"k%d" % n, value=b"v%d" % n)
    p.poll(0.1)
    n += 1
left = p.flush(10)
print("sent %d, %d left" % (n, left))
sys.exit(1 if left else 0)
