#!/usr/bin/python3
"""kafka-python 2.0.2 group consumers against gregor (GR_BOOTSTRAP).
It speaks the old versions: FindCoordinator v0, JoinGroup v2, SyncGroup,
Heartbeat and LeaveGroup v1, OffsetCommit v2, OffsetFetch v1, and for the
admin client ListGroups v1, DescribeGroups v1-3, DeleteGroups v1.

  kafka_python_group.py consume TOPIC GROUP MAX OUTFILE
      reads at most MAX values (fewer when caught up), appends them to
      OUTFILE, commits exactly what it read, closes
  kafka_python_group.py split TOPIC GROUP ASSIGNOR N PARTS
      N consumers (range or roundrobin) share PARTS partitions evenly and
      disjointly; they leave one by one and the rest take over
  kafka_python_group.py kill TOPIC GROUP ASSIGNOR PARTS
      a second member in a child process is SIGKILLed: it stops
      heartbeating, and after the session timeout (3 s) the first one
      gets every partition
  kafka_python_group.py admin TOPIC GROUP
      list, describe and delete the group while it has a member and after
"""
import os
import signal
import subprocess
import sys
import threading
import time

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka.coordinator.assignors.range import RangePartitionAssignor
from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
from kafka.structs import OffsetAndMetadata

BOOT = os.environ["GR_BOOTSTRAP"]
ASSIGNORS = {"range": RangePartitionAssignor,
             "roundrobin": RoundRobinPartitionAssignor}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def consumer(topic, group, assignor="range", name="kpy"):
    c = KafkaConsumer(bootstrap_servers=BOOT, group_id=group,
                      client_id=name, enable_auto_commit=False,
                      auto_offset_reset="earliest",
                      session_timeout_ms=3000, heartbeat_interval_ms=300,
                      metadata_max_age_ms=1000,
                      partition_assignment_strategy=[ASSIGNORS[assignor]])
    c.subscribe([topic])
    return c


def consume(topic, group, max_n, out):
    c = consumer(topic, group)
    got, last = 0, {}
    deadline = time.time() + 60
    idle_since = None
    with open(out, "a") as f:
        while got < max_n and time.time() < deadline:
            batch = c.poll(timeout_ms=200)
            n = 0
            for tp, recs in sorted(batch.items()):
                for r in recs:
                    if got >= max_n:
                        break
                    f.write(r.value.decode() + "\n")
                    last[tp] = r.offset
                    got += 1
                    n += 1
            if n:
                idle_since = None
                continue
            # caught up: every assigned partition at its end
            parts = c.assignment()
            if parts:
                ends = c.end_offsets(list(parts))
                if all(c.position(tp) >= ends[tp] for tp in parts):
                    idle_since = idle_since or time.time()
                    if time.time() - idle_since > 1:
                        break
    if last:
        c.commit({tp: OffsetAndMetadata(o + 1, "") for tp, o in last.items()})
    print("consumed %d value(s), committed %s" % (
        got, sorted((tp.partition, o + 1) for tp, o in last.items())))
    c.close()


class Member(threading.Thread):
    """A consumer polling in its own thread: kafka-python's poll() blocks
    in JoinGroup until the rebalance completes, so members sharing a
    thread would wait for each other."""

    def __init__(self, topic, group, assignor, name):
        super().__init__(daemon=True)
        self.c = consumer(topic, group, assignor, name)
        self.parts = []
        self.stop = False

    def run(self):
        while not self.stop:
            self.c.poll(timeout_ms=50)
            self.parts = sorted(tp.partition for tp in self.c.assignment())
        self.c.close()


def wait_split(ms, parts, limit=40):
    deadline = time.time() + limit
    good_since = None
    while time.time() < deadline:
        time.sleep(0.05)
        a = [m.parts for m in ms]
        flat = [p for x in a for p in x]
        sizes = [len(x) for x in a]
        ok = (sorted(flat) == list(range(parts)) and
              max(sizes) - min(sizes) <= 1)
        if not ok:
            good_since = None
            continue
        good_since = good_since or time.time()
        if time.time() - good_since > 1.5:
            return a
    fail("no even split of %d partitions: %s" % (parts, [m.parts for m in ms]))


def split(topic, group, assignor, n, parts):
    ms = [Member(topic, group, assignor, "kpy-%d" % i) for i in range(n)]
    for m in ms:
        m.start()
    print("%d consumers (%s):" % (n, assignor), wait_split(ms, parts))
    while len(ms) > 1:
        m = ms.pop()
        t0 = time.time()
        m.stop = True
        m.join(30)
        print("one left, %d consumer(s):" % len(ms), wait_split(ms, parts),
              "(%.1f s)" % (time.time() - t0 - 1.5))
    ms[0].stop = True
    ms[0].join(30)


def kill(topic, group, assignor, parts):
    child = subprocess.Popen([sys.executable, __file__, "member", topic,
                              group, assignor])
    try:
        m = Member(topic, group, assignor, "kpy-survivor")
        m.start()
        deadline = time.time() + 40
        while time.time() < deadline and not (0 < len(m.parts) < parts):
            time.sleep(0.05)
        if not 0 < len(m.parts) < parts:
            fail("the two members never split the partitions: %s" % m.parts)
        time.sleep(1)
        print("survivor has %s; killing the other member" % m.parts)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    t0 = time.time()
    while time.time() - t0 < 40 and len(m.parts) < parts:
        time.sleep(0.05)
    took = time.time() - t0
    if len(m.parts) < parts:
        fail("the survivor did not take over: %s" % m.parts)
    print("survivor took over all %d partitions %.1f s after the kill "
          "(session.timeout.ms 3000)" % (parts, took))
    if took < 1.5:
        fail("took over before the session could have expired")
    m.stop = True
    m.join(30)


def member(topic, group, assignor):
    m = Member(topic, group, assignor, "kpy-victim")
    m.run()  # until killed


def admin(topic, group):
    adm = KafkaAdminClient(bootstrap_servers=BOOT)
    c = consumer(topic, group, name="kpy-admin")
    deadline = time.time() + 30
    while not c.assignment() and time.time() < deadline:
        c.poll(timeout_ms=100)
    if not c.assignment():
        fail("no assignment")
    recs = c.poll(timeout_ms=2000)
    c.commit({tp: OffsetAndMetadata(3, "meta-%d" % tp.partition)
              for tp in c.assignment()})
    listed = dict(adm.list_consumer_groups())
    print("listed:", listed)
    if listed.get(group) != "consumer":
        fail("group not listed as a consumer group")
    d = adm.describe_consumer_groups([group])[0]
    print("described:", d.state, d.protocol_type, d.protocol,
          [(m.client_id, m.client_host,
            sorted(p for _, ps in m.member_assignment.assignment for p in ps))
           for m in d.members])
    if (d.state != "Stable" or d.protocol != "range" or len(d.members) != 1
            or d.members[0].client_id != "kpy-admin"):
        fail("wrong description")
    offs = adm.list_consumer_group_offsets(group)
    print("offsets:", sorted((tp.partition, om.offset, om.metadata)
                             for tp, om in offs.items()))
    if sorted(om.offset for om in offs.values()) != [3] * len(c.assignment()):
        fail("wrong committed offsets")
    for tp, om in offs.items():
        if om.metadata != "meta-%d" % tp.partition:
            fail("metadata lost")
    res = adm.delete_consumer_groups([group])
    print("delete with a member:", res)
    if res[0][1].__name__ != "NonEmptyGroupError":
        fail("want NON_EMPTY_GROUP")
    c.close()
    d = adm.describe_consumer_groups([group])[0]
    print("after leaving:", d.state, len(d.members))
    if d.state != "Empty" or d.members:
        fail("want Empty")
    res = adm.delete_consumer_groups([group])
    print("delete:", res)
    if res[0][1].__name__ != "NoError":
        fail("delete failed")
    if group in dict(adm.list_consumer_groups()):
        fail("deleted group still listed")
    d = adm.describe_consumer_groups([group])[0]
    if d.state != "Dead":
        fail("deleted group described as %s" % d.state)
    if adm.list_consumer_group_offsets(group):
        fail("offsets survived the deletion")
    adm.close()
    print("ok")


def main(argv):
    if len(argv) >= 6 and argv[1] == "consume":
        consume(argv[2], argv[3], int(argv[4]), argv[5])
    elif len(argv) >= 7 and argv[1] == "split":
        split(argv[2], argv[3], argv[4], int(argv[5]), int(argv[6]))
    elif len(argv) >= 6 and argv[1] == "kill":
        kill(argv[2], argv[3], argv[4], int(argv[5]))
    elif len(argv) >= 5 and argv[1] == "member":
        member(argv[2], argv[3], argv[4])
    elif len(argv) >= 4 and argv[1] == "admin":
        admin(argv[2], argv[3])
    else:
        fail(__doc__)


if __name__ == "__main__":
    main(sys.argv)
