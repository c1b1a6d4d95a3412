#!/usr/bin/python3
"""Retention against gregor (GR_BOOTSTRAP) started with small segments,
log.retention.bytes and a fast retention check (compat/run.sh): old
segments go by size (the log start offset moves, the newest records stay
readable), and records with old timestamps go by log.retention.ms on the
topic given as argv[2]. argv[1] is the partition directory of the size
topic. Exit 0 or 1."""
import os
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

bootstrap = os.environ["GR_BOOTSTRAP"]
size_dir, time_topic = sys.argv[1], sys.argv[2]
size_topic = os.path.basename(size_dir).rsplit("-", 1)[0]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


p = KafkaProducer(bootstrap_servers=bootstrap, acks=1, linger_ms=0)
for i in range(300):
    p.send(size_topic, value=b"%04d" % i + b"x" * 96, partition=0).get(10)
old = int(time.time() * 1000) - 7 * 24 * 3600 * 1000
for i in range(50):
    p.send(time_topic, value=b"old-%d" % i, partition=0,
           timestamp_ms=old).get(10)
p.close()

c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None)
tp, tt = TopicPartition(size_topic, 0), TopicPartition(time_topic, 0)
deadline = time.time() + 20
while time.time() < deadline:
    start = c.beginning_offsets([tp, tt])
    end = c.end_offsets([tp, tt])
    size = sum(os.path.getsize(os.path.join(size_dir, f))
               for f in os.listdir(size_dir) if f.endswith(".log"))
    if start[tp] > 0 and start[tt] == end[tt] and size <= 3000 + 1200:
        break
    time.sleep(0.3)
else:
    fail("retention did not run: start %r end %r, %d bytes of segments" %
         (start, end, size))
if end[tp] != 300 or end[tt] != 50:
    fail("end offsets %r" % end)
# what remains is readable from the new log start to the end
c.assign([tp])
c.seek(tp, start[tp])
vals = []
deadline = time.time() + 10
while len(vals) < 300 - start[tp] and time.time() < deadline:
    for recs in c.poll(timeout_ms=500).values():
        vals += [r.value[:4] for r in recs]
if vals != [b"%04d" % i for i in range(start[tp], 300)]:
    fail("records after retention: %d, first %r" % (len(vals), vals[:2]))
print("ok: log start %d of 300 by size; %d of 50 by time" %
      (start[tp], start[tt]))
