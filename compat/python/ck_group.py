"""confluent-kafka (current librdkafka) consumer groups against gregor
(GR_BOOTSTRAP; num.partitions=6).

  ck_group.py resume FILE N MAX   1..N keyed on ck-res (when FILE is
        absent), then a group member reads at most MAX values, appends
        them to FILE, commits and closes; run again (the broker restarts
        between runs) it goes on with no loss and no duplicate
  ck_group.py resume-check FILE N FILE holds 1..N once each
  ck_group.py split    3 consumers share 6 partitions evenly and
        disjointly with range, roundrobin and cooperative-sticky; they
        leave one by one and the rest take over every partition (the
        cooperative ones keep what they had)
  ck_group.py kill     a member in a child process is SIGKILLed; after its
        session timeout (2 s) the survivor has every partition (eager and
        cooperative-sticky)
  ck_group.py static   a static member (group.instance.id) closes and comes
        back within its session timeout with the same partitions, and the
        other member sees no rebalance
  ck_group.py admin    list_consumer_groups, describe_consumer_groups,
        delete_consumer_groups (NON_EMPTY_GROUP while a member is in),
        list_consumer_group_offsets, alter_consumer_group_offsets
        (UNKNOWN_MEMBER_ID while the group has a member, as Kafka), after
        the member left: Empty, alter works, delete works, then
        GROUP_ID_NOT_FOUND
"""
import os
import signal
import subprocess
import sys
import time

from confluent_kafka import (Consumer, ConsumerGroupState,
                             ConsumerGroupTopicPartitions, KafkaError,
                             KafkaException, Producer, TopicPartition)
from confluent_kafka.admin import AdminClient, NewTopic

from common import BOOT, check, eq, fail, say

T = 30
PARTS = 6


class Member:
    def __init__(self, name, group, topic, assignor="range", instance=None,
                 session_ms=3000, client_id=None):
        conf = {"bootstrap.servers": BOOT, "group.id": group,
                "client.id": client_id or name, "auto.offset.reset": "earliest",
                "enable.auto.commit": False, "enable.partition.eof": True,
                "session.timeout.ms": session_ms, "heartbeat.interval.ms": 200,
                "topic.metadata.refresh.interval.ms": 1000,
                "partition.assignment.strategy": assignor}
        if instance:
            conf["group.instance.id"] = instance
        self.name = name
        self.c = Consumer(conf)
        self.callbacks = 0
        self.revoked = []
        self.c.subscribe([topic], on_assign=self._assign, on_revoke=self._revoke)

    def _assign(self, c, parts):
        self.callbacks += 1

    def _revoke(self, c, parts):
        self.callbacks += 1
        self.revoked.extend(p.partition for p in parts)

    def poll(self, t=0.01):
        m = self.c.poll(t)
        if m is not None and m.error() and m.error().code() != KafkaError._PARTITION_EOF:
            say("%s: %s" % (self.name, m.error()))
        return m

    def parts(self):
        return sorted(p.partition for p in self.c.assignment())

    def close(self):
        self.c.close()
        self.c = None


def wait_split(ms, settle, limit):
    """Polls the live members until they share PARTS disjointly and evenly,
    unchanged for settle seconds."""
    end = time.time() + limit
    good_since, last = None, None
    while time.time() < end:
        live = [m for m in ms if m.c is not None]
        for m in live:
            m.poll(0.01)
        a = [m.parts() for m in live]
        flat = sorted(p for x in a for p in x)
        ok = flat == list(range(PARTS)) and max(map(len, a)) - min(map(len, a)) <= 1
        if ok and a == last:
            good_since = good_since or time.time()
            if time.time() - good_since >= settle:
                return a
        else:
            good_since = None
        last = a
    fail("no even split: %s" % [(m.name, m.parts()) for m in ms if m.c])


def create(*topics):
    a = AdminClient({"bootstrap.servers": BOOT})
    for t, f in a.create_topics([NewTopic(t, PARTS, 1) for t in topics]).items():
        f.result(T)


def produce_keyed(topic, n):
    p = Producer({"bootstrap.servers": BOOT, "linger.ms": 5, "acks": "all"})
    for i in range(1, n + 1):
        p.produce(topic, str(i).encode(), key=b"k%d" % i)
    check(p.flush(T) == 0, "produce %s" % topic)


def resume(path, n, most):
    topic = "ck-res"
    if not os.path.exists(path):
        produce_keyed(topic, n)
        open(path, "w").close()
    m = Member("resume", "ck-res-group", topic, session_ms=6000)
    got, eofs = [], {}
    end = time.time() + 60
    idle = None
    while len(got) < most and time.time() < end:
        msg = m.poll(0.1)
        if msg is not None and not msg.error():
            got.append(msg.value().decode())
            eofs[msg.partition()] = False
            idle = None
            continue
        if msg is not None and msg.error():
            eofs[msg.partition()] = True
        a = m.parts()
        if a and all(eofs.get(p) for p in a):
            idle = idle or time.time()
            if time.time() - idle > 0.5:
                break
    if got:
        m.c.commit(asynchronous=False)
    m.close()
    with open(path, "a") as f:
        f.writelines(v + "\n" for v in got)
    say("resume: read %d, committed" % len(got))


def resume_check(path, n):
    vals = [int(v) for v in open(path).read().split()]
    eq(sorted(vals), list(range(1, n + 1)), "every value once across the runs")
    say("resume: %d values, each once, across consumer and broker restarts" % n)


def split():
    topic = "ck-split"
    for assignor in ("range", "roundrobin", "cooperative-sticky"):
        group = "ck-split-" + assignor
        ms = [Member("c%d" % i, group, topic, assignor) for i in range(3)]
        t0 = time.time()
        a = wait_split(ms, 1.0, 40)
        say("split %s: %s after %.1f s" % (assignor, a, time.time() - t0 - 1.0))
        for k in (2, 1):
            before = {m.name: m.parts() for m in ms[:k]}
            for m in ms:
                m.revoked = []
            ms[k].close()
            a = wait_split(ms[:k], 0.7, 40)
            if assignor == "cooperative-sticky":
                for m in ms[:k]:
                    check(set(before[m.name]) <= set(m.parts()),
                          "cooperative %s lost partitions: %s -> %s" %
                          (m.name, before[m.name], m.parts()))
                    check(not m.revoked, "cooperative %s had %s revoked" % (m.name, m.revoked))
            say("split %s: c%d left, %s" % (assignor, k, a))
        ms[0].close()


def kill():
    topic = "ck-kill"
    for assignor in ("range", "cooperative-sticky"):
        group = "ck-kill-" + assignor
        child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "victim",
                                  group, assignor])
        s = Member("survivor", group, topic, assignor, session_ms=2000)
        end = time.time() + 40
        while not (0 < len(s.parts()) < PARTS):
            s.poll(0.05)
            if time.time() > end:
                child.kill()
                fail("%s: the two members never split the partitions" % assignor)
        for _ in range(20):
            s.poll(0.05)
        have = s.parts()
        child.send_signal(signal.SIGKILL)
        child.wait()
        t0 = time.time()
        while len(s.parts()) < PARTS:
            s.poll(0.05)
            check(time.time() - t0 < 30, "%s: the survivor did not take over" % assignor)
        took = time.time() - t0
        say("kill %s: survivor had %s, all %d %.1f s after the kill (session 2 s)" %
            (assignor, have, PARTS, took))
        check(took > 1.0, "taken over before the session could expire")
        s.close()


def victim(group, assignor):
    v = Member("victim", group, "ck-kill", assignor, session_ms=2000)
    while True:
        v.poll(0.1)


def static():
    topic, group = "ck-static", "ck-static-group"
    ms = [Member("dynamic", group, topic, session_ms=6000),
          Member("static", group, topic, instance="instance-1", session_ms=6000)]
    wait_split(ms, 1.0, 40)
    before, cb = ms[1].parts(), ms[0].callbacks
    ms[1].close()
    t0 = time.time()
    ms[1] = Member("static", group, topic, instance="instance-1", session_ms=6000)
    while not ms[1].parts():
        check(time.time() - t0 < 20, "the static member did not come back")
        ms[0].poll(0.01)
        ms[1].poll(0.01)
    back = time.time() - t0
    for _ in range(100):  # 2 s more: no rebalance may follow
        ms[0].poll(0.01)
        ms[1].poll(0.01)
    eq(ms[1].parts(), before, "the static member's partitions")
    eq(ms[0].callbacks, cb, "rebalance callbacks of the other member")
    say("static: back in %.2f s with %s, no rebalance" % (back, before))
    for m in ms:
        m.close()


def admin():
    topic, group = "ck-gadmin", "ck-gadmin-group"
    a = AdminClient({"bootstrap.servers": BOOT})

    def listed():
        r = a.list_consumer_groups(request_timeout=10).result(T)
        check(not r.errors, "list_consumer_groups errors %s" % r.errors)
        return {g.group_id: g.state for g in r.valid}

    def describe():
        return a.describe_consumer_groups([group], request_timeout=10)[group].result(T)

    def delete():
        try:
            a.delete_consumer_groups([group], request_timeout=10)[group].result(T)
            return None
        except KafkaException as e:
            return e.args[0].code()

    def offsets():
        r = a.list_consumer_group_offsets([ConsumerGroupTopicPartitions(
            group, [TopicPartition(topic, p) for p in range(2)])])[group].result(T)
        return {t.partition: t.offset for t in r.topic_partitions}

    def alter(offs):
        try:
            r = a.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(
                group, [TopicPartition(topic, p, o) for p, o in offs.items()])])[group].result(T)
            errs = [t.error for t in r.topic_partitions if t.error]
            return errs[0].code() if errs else None
        except KafkaException as e:
            return e.args[0].code()

    fs = a.create_topics([NewTopic(topic, 2, 1)])
    fs[topic].result(T)
    m = Member("admin-member", group, topic, session_ms=6000)
    while len(m.parts()) < 2:
        m.poll(0.05)
    eq(listed().get(group), ConsumerGroupState.STABLE, "listed state with a member")
    d = describe()
    eq((d.state, len(d.members), d.partition_assignor, d.is_simple_consumer_group),
       (ConsumerGroupState.STABLE, 1, "range", False), "describe with a member")
    mem = d.members[0]
    eq((mem.client_id, sorted(p.partition for p in mem.assignment.topic_partitions)),
       ("admin-member", [0, 1]), "the member's description")
    check(mem.host and mem.member_id, "member host / id missing")
    eq(d.coordinator.id, 1, "coordinator")
    eq(delete(), KafkaError.NON_EMPTY_GROUP, "delete_consumer_groups with a member")
    m.c.commit(offsets=[TopicPartition(topic, 0, 7)], asynchronous=False)
    eq(offsets(), {0: 7, 1: -1001}, "list_consumer_group_offsets")
    eq(alter({0: 3}), KafkaError.UNKNOWN_MEMBER_ID, "alter_consumer_group_offsets with a member")
    eq(offsets()[0], 7, "offset after a refused alter")
    m.close()
    eq(listed().get(group), ConsumerGroupState.EMPTY, "listed state after the member left")
    d = describe()
    eq((d.state, len(d.members)), (ConsumerGroupState.EMPTY, 0), "describe of the empty group")
    eq(alter({0: 3, 1: 5}), None, "alter_consumer_group_offsets of the empty group")
    eq(offsets(), {0: 3, 1: 5}, "offsets after alter")
    print("# confluent-kafka: no API for OffsetDelete (delete_consumer_group_offsets)")
    eq(delete(), None, "delete_consumer_groups of the empty group")
    check(group not in listed(), "a deleted group is still listed")
    eq(delete(), KafkaError.GROUP_ID_NOT_FOUND, "delete_consumer_groups again")
    say("admin: listed, described, NON_EMPTY_GROUP, offsets listed and altered "
        "(UNKNOWN_MEMBER_ID while in use), deleted, GROUP_ID_NOT_FOUND")


def main():
    mode = sys.argv[1]
    if mode == "resume":
        resume(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "resume-check":
        resume_check(sys.argv[2], int(sys.argv[3]))
    elif mode == "victim":
        victim(sys.argv[2], sys.argv[3])
    else:
        create("ck-split", "ck-kill", "ck-static")
        for m in mode.split(","):
            {"split": split, "kill": kill, "static": static, "admin": admin}[m]()
    say("ok")


if __name__ == "__main__":
    main()
