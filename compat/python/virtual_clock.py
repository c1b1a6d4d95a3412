"""Timeouts tested in milliseconds: a gregor started with --virtual-clock
(GR_CONTROL, the URL of its control listener; GR_BOOTSTRAP) moves its
clock only when told (POST /v1/clock/advance), and what real clients see
of it. confluent-kafka (a current librdkafka) plays the members and
producers; kafka-python 3's admin client reads the broker's state.

  group      a consumer of a classic group (session.timeout.ms 30000) is
             SIGKILLed: no LeaveGroup. Real time passing does not expire it;
             advancing 29.999 s leaves it a member; one more millisecond
             and DescribeGroups, at once, has the group Empty
  cgroup     the same with a KIP-848 consumer group's member: it expires
             at group.consumer.session.timeout.ms (45 s) of virtual time
  txn        a transaction left open (transaction.timeout.ms 60000): still
             Ongoing after 59 s of virtual time, aborted by the coordinator
             once the clock passes its timeout (the abort sweep runs every
             10 s of virtual time); its producer is fenced
  appendtime a topic with LogAppendTime: a record appended after advancing
             a day carries the virtual clock's time, exactly; a CreateTime
             topic keeps the client's
  offsets    a classic group's member commits and leaves: its offsets
             stay 7 days less 11 minutes of virtual time after, and are
             gone (the group deleted) by 7 days and 10 minutes
             (offsets.retention.minutes, checked every 10 minutes)
  retention  retention.ms one hour on a LogAppendTime topic: 30 virtual
             minutes keep the records, two hours delete them (the log
             start moves to the end). (CreateTime records carry the
             client's real clock: after the day advanced above they would
             be a day old at once.)
Exit 0 or 1."""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

from confluent_kafka import (Consumer, KafkaException, Producer,
                             TopicPartition, TIMESTAMP_CREATE_TIME,
                             TIMESTAMP_LOG_APPEND_TIME)
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.admin import KafkaAdminClient

from common import BOOT, check, eq, fail, say, wait_for

CTL = os.environ.get("GR_CONTROL")
if not CTL:
    fail("GR_CONTROL is not set")


def ctl(method, path, body=None, want=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(CTL + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            st, out = r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        st, out = e.code, json.loads(e.read() or b"null")
    if want is not None and st != want:
        fail("%s %s: HTTP %d %r (wanted %d)" % (method, path, st, out, want))
    return out


def advance(ms):
    t0 = time.time()
    out = ctl("POST", "/v1/clock/advance", {"ms": ms}, want=200)
    say("advanced %d ms in %.1f ms of real time (%d timers fired)" %
        (ms, (time.time() - t0) * 1000, out["timers_fired"]))
    return out


def clock():
    return ctl("GET", "/v1/clock", want=200)


def create(topic, **configs):
    a = AdminClient({"bootstrap.servers": BOOT})
    fs = a.create_topics([NewTopic(topic, 1, 1, config={
        k.replace("_", "."): str(v) for k, v in configs.items()})])
    fs[topic].result(30)


def group_state(kadmin, grp):
    d = kadmin.describe_groups([grp])[grp]
    return d["group_state"], len(d["members"])


# --- a member that stops without leaving

# a member in a process of its own (argv: bootstrap, group, topic, and
# the group.protocol: classic or consumer)
MEMBER = r"""
import sys, time
from confluent_kafka import Consumer
conf = {"bootstrap.servers": sys.argv[1], "group.id": sys.argv[2],
        "group.protocol": sys.argv[4], "auto.offset.reset": "earliest"}
if sys.argv[4] == "classic":
    conf.update({"session.timeout.ms": 30000, "heartbeat.interval.ms": 1000})
c = Consumer(conf)
c.subscribe([sys.argv[3]])
while not c.assignment():
    c.poll(0.1)
print("assigned", flush=True)
while True:
    c.poll(0.1)
"""


def step_group(kadmin):
    topic, grp = "vc-group", "vc-g"
    create(topic)
    m = subprocess.Popen([sys.executable, "-c", MEMBER, BOOT, grp, topic,
                          "classic"], stdout=subprocess.PIPE, text=True)
    line = m.stdout.readline()
    eq(line.strip(), "assigned", "the member's first line")
    eq(group_state(kadmin, grp), ("Stable", 1), "the group with its member")
    m.send_signal(signal.SIGKILL)  # no LeaveGroup, heartbeats stop
    m.wait()
    m.stdout.close()
    # real time passes: more than the member's heartbeat interval, and the
    # broker's own turns; nothing expires on a clock standing still
    time.sleep(1.5)
    eq(group_state(kadmin, grp), ("Stable", 1),
       "after 1.5 s of real time, the killed member")
    # the session timeout is counted from its last heartbeat, at virtual
    # time 0 (the clock has not moved): 29.999 s keeps it
    advance(29999)
    eq(group_state(kadmin, grp), ("Stable", 1),
       "29.999 s of virtual time later, the killed member")
    t0 = time.time()
    advance(1)
    eq(group_state(kadmin, grp), ("Empty", 0),
       "right after 30 s of virtual time, the group")
    say("group: the member's session expired at 30 s of virtual time, seen "
        "%.0f ms after the advance was asked" % ((time.time() - t0) * 1000))


def cg_members(grp):
    a = AdminClient({"bootstrap.servers": BOOT})
    d = a.describe_consumer_groups([grp])[grp].result(30)
    return str(d.state).split(".")[-1], len(d.members)


def step_cgroup():
    """The same with a KIP-848 consumer group: the session timeout is the
    broker's group.consumer.session.timeout.ms (45 s)."""
    topic, grp = "vc-cg", "vc-cg-g"
    create(topic)
    m = subprocess.Popen([sys.executable, "-c", MEMBER, BOOT, grp, topic,
                          "consumer"], stdout=subprocess.PIPE, text=True)
    eq(m.stdout.readline().strip(), "assigned", "the consumer member's first line")
    eq(cg_members(grp), ("STABLE", 1), "the consumer group with its member")
    m.send_signal(signal.SIGKILL)
    m.wait()
    m.stdout.close()
    time.sleep(1.5)
    eq(cg_members(grp), ("STABLE", 1),
       "after 1.5 s of real time, the killed consumer member")
    advance(44999)
    eq(cg_members(grp), ("STABLE", 1),
       "44.999 s of virtual time later, the killed consumer member")
    advance(1)
    eq(cg_members(grp), ("EMPTY", 0),
       "right after 45 s of virtual time, the consumer group")
    say("cgroup: the KIP-848 member's session expired at 45 s of virtual time")


# --- a transaction left open

def committed_end(topic):
    """The end a read_committed consumer sees: the LSO."""
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "vc-lso",
                  "isolation.level": "read_committed"})
    lo, hi = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    c.close()
    return hi


def step_txn(kadmin):
    topic = "vc-txn"
    create(topic)
    p = Producer({"bootstrap.servers": BOOT, "transactional.id": "vc-t",
                  "transaction.timeout.ms": 60000, "linger.ms": 0})
    p.init_transactions(30)
    p.begin_transaction()
    p.produce(topic, b"left open")
    check(p.flush(30) == 0, "the transactional record delivered")
    state = kadmin.describe_transactions(["vc-t"])["vc-t"].state
    check("ONGOING" in str(state).upper(), "the transaction: %s" % state)
    eq(committed_end(topic), 0, "the LSO while the transaction is open")
    advance(59000)  # sweeps at 10, 20 ... 50 s: not yet timed out
    time.sleep(0.3)
    state = kadmin.describe_transactions(["vc-t"])["vc-t"].state
    check("ONGOING" in str(state).upper(),
          "59 s of virtual time into a 60 s transaction: %s" % state)
    eq(committed_end(topic), 0, "the LSO at 59 s")
    advance(11000)  # the sweep at 70 s finds it timed out
    # the abort marker is written off the loop: a short real wait
    wait_for(lambda: committed_end(topic) == 2, 20,
             "the abort marker (LSO 2)")
    d = kadmin.describe_transactions(["vc-t"])["vc-t"]
    check("ABORT" in str(d.state).upper(), "after the timeout: %s" % d.state)
    try:
        p.commit_transaction(10)
        fail("commit_transaction succeeded after the coordinator aborted")
    except KafkaException as e:
        say("txn: the producer's commit after the timeout: %s" % e.args[0])
    say("txn: aborted at 60-70 s of virtual time: %s, epoch %d" %
        (d.state, d.producer_epoch))


# --- LogAppendTime

def read_one(topic):
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "vc-r-" + topic,
                  "auto.offset.reset": "earliest"})
    c.assign([TopicPartition(topic, 0, 0)])
    end = time.time() + 30
    while time.time() < end:
        m = c.poll(0.5)
        if m is not None and not m.error():
            c.close()
            return m.timestamp()
    fail("no record read from %s" % topic)


def produce_one(topic):
    p = Producer({"bootstrap.servers": BOOT, "linger.ms": 0})
    p.produce(topic, b"x")
    check(p.flush(30) == 0, "a record to %s delivered" % topic)


def step_appendtime():
    create("vc-lat", message_timestamp_type="LogAppendTime")
    create("vc-ct")
    advance(86400000)
    now = clock()["wall_ms"]
    produce_one("vc-lat")
    produce_one("vc-ct")
    eq(read_one("vc-lat"), (TIMESTAMP_LOG_APPEND_TIME, now),
       "a LogAppendTime record's timestamp (the virtual clock's)")
    kind, ts = read_one("vc-ct")
    real = int(time.time() * 1000)
    check(kind == TIMESTAMP_CREATE_TIME and abs(ts - real) < 60000,
          "a CreateTime record keeps the client's time: %r (real %d)"
          % ((kind, ts), real))
    say("appendtime: LogAppendTime %d, a day past the client's %d" %
        (now, ts))


# --- retention

def log_start(topic):
    c = Consumer({"bootstrap.servers": BOOT, "group.id": "vc-ls"})
    lo, hi = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    c.close()
    return lo, hi


def step_retention():
    topic = "vc-ret"
    create(topic, retention_ms=3600000,
           message_timestamp_type="LogAppendTime")
    p = Producer({"bootstrap.servers": BOOT, "linger.ms": 0})
    for i in range(3):
        p.produce(topic, b"r%d" % i)
    check(p.flush(30) == 0, "3 records delivered")
    eq(log_start(topic), (0, 3), "the log before")
    advance(1800000)  # retention checks every 5 min: 6 of them
    time.sleep(0.3)
    eq(log_start(topic), (0, 3), "30 virtual minutes later")
    advance(5400000)
    lo = wait_for(lambda: log_start(topic)[0] == 3 and log_start(topic), 20,
                  "the records deleted by retention")
    say("retention: after 2 h of virtual time the log is %r" % (lo,))


# --- offsets of an Empty group

def committed(kadmin, grp, topic):
    """The group's committed offset of topic's partition 0, or None."""
    for tp, om in kadmin.list_group_offsets(grp).get(grp, {}).items():
        if tp.topic == topic and tp.partition == 0:
            return om.offset
    return None


def step_offsets(kadmin):
    topic, grp = "vc-off", "vc-off-g"
    create(topic)
    produce_one(topic)
    produce_one(topic)
    c = Consumer({"bootstrap.servers": BOOT, "group.id": grp,
                  "enable.auto.commit": False, "session.timeout.ms": 30000,
                  "auto.offset.reset": "earliest"})
    c.subscribe([topic])
    got = 0
    end = time.time() + 30
    while got < 2 and time.time() < end:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got += 1
    eq(got, 2, "records read by the group's consumer")
    c.commit(asynchronous=False)
    c.close()  # LeaveGroup: Empty from now, the retention counts from here
    eq(group_state(kadmin, grp), ("Empty", 0), "the group after its member left")
    eq(committed(kadmin, grp, topic), 2, "the committed offset")
    # offsets.retention.minutes 7 days, checked every 10 minutes
    week = 7 * 86400000
    advance(week - 11 * 60000)
    time.sleep(0.3)
    eq(committed(kadmin, grp, topic), 2,
       "the offset 7 days less 11 minutes after the group emptied")
    advance(21 * 60000)
    wait_for(lambda: committed(kadmin, grp, topic) is None, 20,
             "the offset expired after 7 days of virtual time")
    state = kadmin.describe_groups([grp])[grp]["group_state"]
    check(state in ("Dead", ""),
          "an Empty group without offsets is deleted: %r" % state)
    say("offsets: expired 7 days after the group emptied; the group is %r"
        % state)


def main():
    c0 = clock()
    eq(c0["virtual"], True, "GET /v1/clock: virtual")
    eq(c0["advanced_ms"], 0, "advanced at start")
    kadmin = KafkaAdminClient(bootstrap_servers=BOOT)
    t0 = time.time()
    step_group(kadmin)
    step_cgroup()
    step_txn(kadmin)
    step_appendtime()
    step_retention()
    step_offsets(kadmin)
    kadmin.close()
    c1 = clock()
    say("virtual time advanced %.1f h in %.1f s of real time" %
        (c1["advanced_ms"] / 3600000.0, time.time() - t0))
    eq(c1["wall_ms"] - c0["wall_ms"], c1["advanced_ms"],
       "the wall clock moved with the advances, and only with them")


if __name__ == "__main__":
    main()
