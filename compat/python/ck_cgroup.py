"""confluent-kafka (librdkafka 2.16) consumer groups of the KIP-848
protocol (group.protocol=consumer) against gregor (GR_BOOTSTRAP; the
broker's group.consumer.session.timeout.ms turned down to 6 s).

  ck_cgroup.py join     three members join in turn: every partition read
        once, each join moves only the partitions the newcomer takes
        (incremental on_revoke/on_assign, never everything), the group
        described by the admin client as a consumer group; they leave one
        by one and the rest take over
  ck_cgroup.py kill     a member in a child process is SIGKILLed while a
        producer writes; once its session expires the survivor owns every
        partition, and by committed position no record is lost or read twice
  ck_cgroup.py restart DIR   two members read, then (DIR/ready) wait
        while the broker is killed and restarted on the same port
        (DIR/go): the coordinator loaded from __consumer_offsets knows them
        (same member ids and epochs, same partitions, no rebalance), and
        they go on from their commits, nothing read twice
  ck_cgroup.py child GROUP FILE   the member the kill case kills
"""
import os
import signal
import subprocess
import sys
import threading
import time

from confluent_kafka import (Consumer, ConsumerGroupState, ConsumerGroupType,
                             KafkaError, Producer, TopicPartition)
from confluent_kafka.admin import AdminClient, NewTopic

from common import BOOT, check, eq, fail, say

PARTS = 6


def consumer(name, group):
    return Consumer({"bootstrap.servers": BOOT, "group.id": group,
                     "group.protocol": "consumer", "client.id": name,
                     "auto.offset.reset": "earliest", "enable.auto.commit": False,
                     "topic.metadata.refresh.interval.ms": 1000})


class Member:
    def __init__(self, name, group, topic):
        self.name = name
        self.c = consumer(name, group)
        self.events = []
        self.read = []
        self.c.subscribe([topic], on_assign=self._assign, on_revoke=self._revoke,
                         on_lost=self._lost)

    def _assign(self, c, parts):
        if parts:
            self.events.append(("assigned", sorted(p.partition for p in parts)))

    def _revoke(self, c, parts):
        if parts:
            self.events.append(("revoked", sorted(p.partition for p in parts)))

    def _lost(self, c, parts):
        self.events.append(("lost", sorted(p.partition for p in parts)))

    def poll(self):
        m = self.c.poll(0.02)
        if m is None:
            return
        if m.error():
            if m.error().code() != KafkaError._PARTITION_EOF:
                say("%s: %s" % (self.name, m.error()))
            return
        self.read.append((m.partition(), m.offset()))
        self.c.commit(message=m, asynchronous=False)

    def parts(self):
        return sorted(p.partition for p in self.c.assignment())

    def close(self):
        self.c.close()


def create(topic):
    a = AdminClient({"bootstrap.servers": BOOT})
    for f in a.create_topics([NewTopic(topic, PARTS, 1)]).values():
        f.result()


def produce(topic, n, start=0):
    p = Producer({"bootstrap.servers": BOOT, "linger.ms": 5})
    for i in range(start, start + n):
        p.produce(topic, value=str(i).encode(), partition=i % PARTS)
    p.flush(30)


def split(ms, limit=60):
    """Polls until the members share the partitions disjointly and evenly."""
    deadline = time.time() + limit
    while time.time() < deadline:
        for m in ms:
            m.poll()
        got = [m.parts() for m in ms]
        flat = sorted(p for g in got for p in g)
        if flat == list(range(PARTS)) and \
                max(map(len, got)) - min(map(len, got)) <= 1:
            return got
    fail("the members did not split the partitions: %r" % [m.parts() for m in ms])


def join():
    topic, group = "cg-join", "cgp-join"
    create(topic)
    produce(topic, 60)
    a = Member("a", group, topic)
    split([a])
    b = Member("b", group, topic)
    got = split([a, b])
    say("a %r, b %r" % tuple(got))
    c = Member("c", group, topic)
    got = split([a, b, c])
    say("a %r, b %r, c %r" % tuple(got))
    for m in (a, b):
        for kind, ps in m.events:
            check(not (kind == "revoked" and ps == list(range(PARTS))),
                  "%s never revoked everything (cooperative): %r" % (m.name, m.events))
    revoked = {p for k, ps in a.events if k == "revoked" for p in ps}
    check(revoked and revoked <= set(b.parts()) | set(c.parts()),
          "a revoked only what b and c took: %r" % a.events)
    adm = AdminClient({"bootstrap.servers": BOOT})
    d = adm.describe_consumer_groups([group])[group].result()
    eq(d.type, ConsumerGroupType.CONSUMER, "describe: a consumer group")
    eq(d.state, ConsumerGroupState.STABLE, "describe: stable")
    eq(len(d.members), 3, "describe: three members")
    produce(topic, 60, 60)
    deadline = time.time() + 30
    while sum(len(m.read) for m in (a, b, c)) < 120 and time.time() < deadline:
        for m in (a, b, c):
            m.poll()
    c.close()
    split([a, b])
    b.close()
    split([a])
    deadline = time.time() + 10
    while time.time() < deadline:
        a.poll()
    a.close()
    seen = [r for m in (a, b, c) for r in m.read]
    eq(len(seen), len(set(seen)), "no record read twice")
    eq(len(set(seen)), 120, "every record read")
    d = adm.describe_consumer_groups([group])[group].result()
    eq(d.state, ConsumerGroupState.EMPTY, "describe after the leaves: empty")


def child(group, path):
    """Reads and commits each record, writing "offset" lines, until killed."""
    c = consumer("victim", group)
    c.subscribe(["cg-kill"])
    with open(path, "w") as f:
        while True:
            m = c.poll(0.05)
            if m is None or m.error():
                f.write("assigned %d\n" % len(c.assignment()))
                f.flush()
                continue
            f.write("read %d %d\n" % (m.partition(), m.offset()))
            f.write("committing %d %d\n" % (m.partition(), m.offset() + 1))
            f.flush()
            c.commit(message=m, asynchronous=False)
            f.write("committed %d %d\n" % (m.partition(), m.offset() + 1))
            f.flush()


def kill():
    topic, group = "cg-kill", "cgp-kill"
    create(topic)
    produce(topic, 60)
    path = os.path.join(os.environ.get("COMPAT_TMP", "/tmp"), "cgp-victim.%d" % os.getpid())
    a = Member("a", group, topic)
    split([a])
    proc = subprocess.Popen([sys.executable, __file__, "child", group, path])
    stop = threading.Event()
    sent = [60]

    def load():
        p = Producer({"bootstrap.servers": BOOT, "linger.ms": 5})
        while not stop.is_set():
            for _ in range(20):
                p.produce(topic, value=b"load", partition=sent[0] % PARTS)
                sent[0] += 1
            p.poll(0)
            time.sleep(0.02)
        p.flush(30)
    t = threading.Thread(target=load)
    t.start()
    deadline = time.time() + 60
    committed = 0
    while time.time() < deadline:
        a.poll()
        try:
            with open(path) as f:
                committed = sum(1 for ln in f if ln.startswith("committed"))
        except OSError:
            pass
        if committed > 20:
            break
    check(committed > 20, "the child member read and committed (%d)" % committed)
    # the survivor's reads from here on: while it waits to own every
    # partition it may already read the child's partitions from their commits
    kill_at = len(a.read)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    say("the child member killed (SIGKILL)")
    deadline = time.time() + 60
    while a.parts() != list(range(PARTS)) and time.time() < deadline:
        a.poll()
    eq(a.parts(), list(range(PARTS)), "the survivor owns every partition")
    stop.set()
    t.join()
    # the child's commits: the last one each partition got, and the one in
    # flight when it died (it may or may not have been stored)
    child_read, done, inflight = set(), {}, {}
    with open(path) as f:
        for ln in f:
            w = ln.split()
            if w[0] == "read":
                child_read.add((int(w[1]), int(w[2])))
            elif w[0] == "committing":
                inflight[int(w[1])] = int(w[2])
            elif w[0] == "committed":
                done[int(w[1])] = max(done.get(int(w[1]), 0), int(w[2]))
    deadline = time.time() + 60
    while time.time() < deadline:
        a.poll()
        after = a.read[kill_at:]
        start = {}
        for p, o in after:
            start[p] = min(start.get(p, o), o)
        counted = {r for r in child_read if r[1] < start.get(r[0], done.get(r[0], 0))}
        if len(counted | set(a.read)) >= sent[0]:
            break
    a.close()
    # where the survivor resumed each of the child's partitions: the
    # child's last stored commit, or the one in flight
    for p, o in start.items():
        if p in done or p in inflight:
            check(o in (done.get(p), inflight.get(p)),
                  "partition %d resumed at %d, the child committed %r (in flight %r)"
                  % (p, o, done.get(p), inflight.get(p)))
    both = counted & set(a.read)
    eq(sorted(both), [], "by committed position, nothing read twice")
    eq(len(counted | set(a.read)), sent[0], "by committed position, every record read")
    eq(len(a.read), len(set(a.read)), "the survivor read nothing twice")
    os.unlink(path)


def describe(group):
    adm = AdminClient({"bootstrap.servers": BOOT})
    d = adm.describe_consumer_groups([group])[group].result()
    return d, {m.member_id: sorted(p.partition for p in m.assignment.topic_partitions)
               for m in d.members}


def restart(d):
    topic, group = "cg-restart", "cgp-restart"
    create(topic)
    produce(topic, 60)
    a = Member("a", group, topic)
    split([a])
    b = Member("b", group, topic)
    split([a, b])
    deadline = time.time() + 30
    while sum(len(m.read) for m in (a, b)) < 60 and time.time() < deadline:
        for m in (a, b):
            m.poll()
    eq(sum(len(m.read) for m in (a, b)), 60, "read before the restart")
    before_desc, before = describe(group)
    before_parts = (a.parts(), b.parts())
    open(os.path.join(d, "ready"), "w").close()
    while not os.path.exists(os.path.join(d, "go")):
        for m in (a, b):
            m.poll()
        time.sleep(0.05)
    say("the broker is back")
    produce(topic, 60, 60)
    deadline = time.time() + 60
    while sum(len(m.read) for m in (a, b)) < 120 and time.time() < deadline:
        for m in (a, b):
            m.poll()
    after_desc, after = describe(group)
    eq(after, before, "the members and their assignments after the restart")
    eq((a.parts(), b.parts()), before_parts, "each member's partitions after the restart")
    eq(after_desc.state, ConsumerGroupState.STABLE, "stable after the restart")
    for m in (a, b):
        check(not any(k == "revoked" for k, _ in m.events[2:] if k),
              "%s: no revocation across the restart: %r" % (m.name, m.events))
    seen = [r for m in (a, b) for r in m.read]
    eq(len(seen), len(set(seen)), "no record read twice across the restart")
    eq(len(set(seen)), 120, "every record read")
    a.close()
    b.close()


def main():
    if sys.argv[1] == "child":
        child(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "restart":
        restart(sys.argv[2])
        say("ok")
        return
    for what in sys.argv[1].split(","):
        say("== %s" % what)
        {"join": join, "kill": kill}[what]()
    say("ok")


if __name__ == "__main__":
    main()
