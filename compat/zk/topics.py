#!/usr/bin/python3
"""Topics in cluster mode (compat scenario zk_topics): three gregor brokers
on one ZooKeeper. confluent-kafka creates a topic of replication factor 3
and one of factor 1 through broker 1; every broker's Metadata v12 (framed
by hand, asked of each broker itself) must list both with the same
leaders, leader epochs, replicas and ISR; the znodes, read with ZooKeeper's
own C client (tests/zk/zkcli), must hold Kafka's JSON (TopicZNode v3 with
the topic id, TopicPartitionStateZNode v1, ConfigEntityZNode v1); each
replica holds its partition's log and no other broker does; records
produced go to the leaders and come back.

  topics.py BROKERS ZKCLI ZK_CONNECT CHROOT DATA_PATTERN
    BROKERS       host:port of broker 1,2,3, comma-separated
    DATA_PATTERN  broker i's log.dirs with {} for i

Prints '# figure:' lines; exit 0 or 1."""

import base64
import json
import os
import struct
import subprocess
import sys
import time

BROKERS = sys.argv[1].split(",")
ZKCLI, ZK, CHROOT, DATA = sys.argv[2:6]
os.environ.setdefault("GR_BOOTSTRAP", BROKERS[0])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "telemetry"))
import raw  # noqa: E402
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import (AdminClient, ConfigResource,  # noqa: E402
                                   NewTopic)

RF3, RF1 = "zkt-rf3", "zkt-rf1"
IDS = [1, 2, 3]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def metadata(addr, topics):
    """Metadata v12 of broker addr itself: (sorted broker ids, cluster id,
    controller id, {name: topic})"""
    raw.HOST, raw.PORT = addr.rsplit(":", 1)
    c = raw.Conn(client_id="zk-topics", software=None)
    body = raw.carray([b"\0" * 16 + raw.cstr(t) + raw.T for t in topics])
    r = c.call(3, 12, body + b"\x00\x00" + raw.T)
    c.close()
    brokers, cluster, controller, topics = raw.metadata_v12_answer(r)
    return (sorted(b[0] for b in brokers), cluster, controller,
            {t["name"]: t for t in topics})


def conn(addr):
    raw.HOST, raw.PORT = addr.rsplit(":", 1)
    return raw.Conn(client_id="zk-topics", software=None)


def delete_on(addr, name, timeout_ms=10000):
    """DeleteTopics v4 asked of broker addr itself: its error code"""
    c = conn(addr)
    r = c.call(20, 4, raw.carray([raw.cstr(name)]) +
               struct.pack(">i", timeout_ms) + raw.T)
    c.close()
    r.i32()
    return r.carray(lambda r: (r.cstr(), r.i16(), r.tags()))[0][1]


def grow_on(addr, name, count, rows=None, validate=False):
    """CreatePartitions v2 asked of broker addr itself: (code, message)"""
    c = conn(addr)
    asg = None if rows is None else [
        raw.carray([struct.pack(">i", b) for b in row]) + raw.T
        for row in rows]
    r = c.call(37, 2, raw.carray([raw.cstr(name) + struct.pack(">i", count) +
                                  raw.carray(asg) + raw.T]) +
               struct.pack(">i?", 10000, validate) + raw.T)
    c.close()
    r.i32()
    return r.carray(lambda r: (r.cstr(), r.i16(), r.cstr(), r.tags()))[0][1:3]


def describe_cluster(addr):
    """DescribeCluster v0 of broker addr: (cluster id, controller, ids)"""
    c = conn(addr)
    r = c.call(60, 0, b"\x00" + raw.T)
    c.close()
    r.i32()
    if r.i16() != 0:
        fail("DescribeCluster of %s: error" % addr)
    r.cstr()
    cluster, controller = r.cstr(), r.i32()
    ids = r.carray(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(),
                              r.tags())[0])
    return cluster, controller, sorted(ids)


def log_dirs(addr):
    """DescribeLogDirs v2 (every topic) of broker addr: {(topic, p)}"""
    c = conn(addr)
    r = c.call(35, 2, b"\x00" + raw.T)
    c.close()
    r.i32()

    def part(r):
        v = r.i32()
        r.take(17)  # size, offset lag, is_future_key
        r.tags()
        return v

    def topic(r):
        v = (r.cstr(), r.carray(part))
        r.tags()
        return v

    def result(r):
        v = (r.i16(), r.cstr(), r.carray(topic))
        r.tags()
        return v
    got = set()
    for err, _, topics in r.carray(result):
        if err != 0:
            fail("DescribeLogDirs of %s: error %d" % (addr, err))
        got |= {(t, p) for t, ps in topics for p in ps}
    return got


def led(ts, name, nparts):
    t = ts.get(name)
    return (t is not None and t["error"] == 0 and len(t["parts"]) == nparts
            and all(p["leader"] >= 0 and p["isr"] for p in t["parts"]))


def zk(what, path):
    r = subprocess.run([ZKCLI, ZK, what, CHROOT + path],
                       capture_output=True, text=True, timeout=20)
    if r.returncode != 0:
        fail("zkcli %s %s: exit %d %s" % (what, path, r.returncode, r.stderr))
    return r.stdout.strip()


def zk_json(path):
    for _ in range(50):  # a new session may read a follower behind
        r = subprocess.run([ZKCLI, ZK, "get", CHROOT + path],
                           capture_output=True, text=True, timeout=20)
        if r.returncode == 0:
            return json.loads(r.stdout)
        time.sleep(0.1)
    fail("%s: not in ZooKeeper" % path)


def check_znodes(name, t, configs, controller_epoch):
    tz = zk_json("/brokers/topics/" + name)
    want_keys = {"version", "partitions", "adding_replicas",
                 "removing_replicas", "topic_id"}
    if set(tz) != want_keys or tz["version"] != 3:
        fail("%s: TopicZNode %s" % (name, tz))
    if tz["adding_replicas"] != {} or tz["removing_replicas"] != {}:
        fail("%s: adding/removing replicas %s" % (name, tz))
    if base64.urlsafe_b64decode(tz["topic_id"] + "==") != t["id"]:
        fail("%s: topic_id %s is not Metadata's %s" %
             (name, tz["topic_id"], t["id"].hex()))
    want = {str(p["index"]): p["replicas"] for p in t["parts"]}
    if tz["partitions"] != want:
        fail("%s: partitions %s, Metadata says %s" %
             (name, tz["partitions"], want))
    kids = zk("ls", "/brokers/topics/%s/partitions" % name).split()
    if kids != [str(i) for i in range(len(t["parts"]))]:
        fail("%s: partitions/ holds %s" % (name, kids))
    for p in t["parts"]:
        st = zk_json("/brokers/topics/%s/partitions/%d/state" %
                     (name, p["index"]))
        if set(st) != {"version", "leader", "leader_epoch",
                       "controller_epoch", "isr"} or st["version"] != 1:
            fail("%s-%d: state %s" % (name, p["index"], st))
        if (st["leader"], st["leader_epoch"], st["isr"]) != \
                (p["leader"], p["epoch"], p["isr"]):
            fail("%s-%d: state %s, Metadata %s" % (name, p["index"], st, p))
        if st["controller_epoch"] != controller_epoch:
            fail("%s-%d: controller_epoch %s, /controller_epoch %s" %
                 (name, p["index"], st["controller_epoch"], controller_epoch))
    cz = zk_json("/config/topics/" + name)
    if cz != {"version": 1, "config": configs}:
        fail("%s: ConfigEntityZNode %s" % (name, cz))


def check_placement(t, rf):
    """Kafka's rack-unaware placement over brokers 1-3: the first replicas
    go round the brokers, replicas are distinct, the leader is the first
    replica (all live) and the ISR every replica (the followers caught
    up)."""
    firsts = [p["replicas"][0] for p in t["parts"]]
    for p in t["parts"]:
        if len(p["replicas"]) != rf or len(set(p["replicas"])) != rf or \
                not set(p["replicas"]) <= set(IDS):
            fail("replicas %s" % p)
        if p["leader"] != p["replicas"][0] or \
                sorted(p["isr"]) != sorted(p["replicas"]) or \
                p["epoch"] != 0 or p["offline"] != []:
            fail("leader/ISR %s" % p)
    for i in range(1, len(firsts)):
        if IDS.index(firsts[i]) != (IDS.index(firsts[0]) + i) % len(IDS):
            fail("first replicas %s do not go round the brokers" % firsts)


def check_logs(name, t):
    """every replica holds the partition's log (the followers fetch it),
    no other broker does: in its directory and its DescribeLogDirs"""
    for p in t["parts"]:
        for i in IDS:
            d = os.path.join(DATA.format(i), "%s-%d" % (name, p["index"]))
            end = time.time() + 10  # a follower's is made on a worker
            while os.path.isdir(d) != (i in p["replicas"]) and \
                    time.time() < end:
                time.sleep(0.02)
            if os.path.isdir(d) != (i in p["replicas"]):
                fail("%s on broker %d: %s (replicas %s)" %
                     (d, i, "there" if os.path.isdir(d) else "missing",
                      p["replicas"]))
    for i, addr in zip(IDS, BROKERS):  # each broker its own logs
        want = {(name, p["index"]) for p in t["parts"] if i in p["replicas"]}
        end = time.time() + 10
        while (got := {tp for tp in log_dirs(addr) if tp[0] == name}) != want \
                and time.time() < end:
            time.sleep(0.02)
        if got != want:
            fail("DescribeLogDirs of broker %d: %s, not %s" % (i, got, want))


def not_enough(admin):
    """acks=all to a replication-factor-3 topic with min.insync.replicas 2:
    answered once the followers, in the ISR, have the records (the
    refusal under min.insync.replicas, NOT_ENOUGH_REPLICAS, is zk_repl's:
    it needs a follower that stops)."""
    name = "zkt-minisr"
    admin.create_topics([NewTopic(name, 1, 3, config={
        "min.insync.replicas": "2"})], operation_timeout=10)[name].result(20)
    end = time.time() + 15
    while not all(led(metadata(a, [name])[3], name, 1) and
                  len(metadata(a, [name])[3][name]["parts"][0]["isr"]) == 3
                  for a in BROKERS):
        if time.time() > end:
            fail("%s: no leader or no full ISR everywhere" % name)
        time.sleep(0.01)
    produce_consume(name, 1, acks=-1)


def produce_consume(name, nparts, acks=1):
    pr = Producer({"bootstrap.servers": ",".join(BROKERS), "acks": acks,
                   "linger.ms": 0})
    acked = []
    for p in range(nparts):
        for k in range(5):
            pr.produce(name, value=b"%d-%d" % (p, k), partition=p,
                       on_delivery=lambda e, m: acked.append((e, m.partition())))
    pr.flush(20)
    if len(acked) != 5 * nparts or any(e is not None for e, _ in acked):
        fail("%s: deliveries %s" % (name, acked))
    c = Consumer({"bootstrap.servers": ",".join(BROKERS), "group.id": "zkt",
                  "enable.auto.commit": False})
    c.assign([TopicPartition(name, p, 0) for p in range(nparts)])
    got, end = set(), time.time() + 20
    while len(got) < 5 * nparts and time.time() < end:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            got.add((m.partition(), m.value()))
    c.close()
    if len(got) != 5 * nparts:
        fail("%s: consumed %d of %d" % (name, len(got), 5 * nparts))


def expect_err(f, name, what):
    try:
        f.result(20)
    except Exception as e:  # KafkaException
        if e.args[0].name() != name:
            fail("%s: %s, not %s" % (what, e, name))
        return
    fail("%s: accepted, not %s" % (what, name))


def wait_all(what, cond, limit=10):
    end = time.time() + limit
    while not cond():
        if time.time() > end:
            fail("after %d s: %s" % (limit, what))
        time.sleep(0.01)


def dirs_of(name):
    """name's partition directories (kept or being deleted) on each broker"""
    return [[d for d in os.listdir(DATA.format(i))
             if d.startswith(name + "-") and d[len(name) + 1].isdigit()]
            for i in IDS]


def watermarks(name, nparts):
    c = Consumer({"bootstrap.servers": ",".join(BROKERS), "group.id": "zkw"})
    w = [c.get_watermark_offsets(TopicPartition(name, p), timeout=10)
         for p in range(nparts)]
    c.close()
    return w


def delete_recreate(a, b2, old):
    """DeleteTopics through broker 2 (the controller deletes the znodes,
    every broker its logs), then the name made again: a new id, new
    logs."""
    t0 = time.monotonic()
    err = delete_on(BROKERS[1], RF1)
    answered = time.monotonic()
    if err != 0:
        fail("DeleteTopics of %s through broker 2: error %d" % (RF1, err))
    if RF1 in metadata(BROKERS[1], [])[3]:
        fail("broker 2 answered DeleteTopics with %s still listed" % RF1)
    wait_all("%s still listed somewhere" % RF1, lambda: all(
        metadata(addr, [RF1])[3][RF1]["error"] == 3 for addr in BROKERS))
    gone = time.monotonic()
    print("# figure: DeleteTopics answered in %.1f ms; gone from every "
          "broker's Metadata %.1f ms after the answer" %
          ((answered - t0) * 1000, (gone - answered) * 1000))
    if RF1 in zk("ls", "/brokers/topics").split() or \
            zk("ls", "/admin/delete_topics") != "":
        fail("%s: /brokers/topics %s, /admin/delete_topics %s" % (
            RF1, zk("ls", "/brokers/topics"), zk("ls", "/admin/delete_topics")))
    if RF1 in zk("ls", "/config/topics").split():
        fail("%s: /config/topics/%s stays" % (RF1, RF1))
    wait_all("%s's directories stay: %s" % (RF1, dirs_of(RF1)),
             lambda: dirs_of(RF1) == [[]] * len(IDS))
    expect_err(b2.delete_topics(["zkt-none"], operation_timeout=10)
               ["zkt-none"], "UNKNOWN_TOPIC_OR_PART", "delete unknown")
    expect_err(b2.delete_topics(["__consumer_offsets"], operation_timeout=10)
               ["__consumer_offsets"], "INVALID_REQUEST", "delete internal")
    # a timeout of 0 through broker 3: REQUEST_TIMED_OUT, as Kafka, and
    # the deletion goes on
    err = delete_on(BROKERS[2], "zkt-minisr", 0)
    if err != 7:
        fail("DeleteTopics timeout 0: error %d, not REQUEST_TIMED_OUT" % err)
    wait_all("zkt-minisr still listed somewhere", lambda: all(
        metadata(addr, ["zkt-minisr"])[3]["zkt-minisr"]["error"] == 3
        for addr in BROKERS))
    # the same name again: a new id and new logs everywhere
    a.create_topics([NewTopic(RF1, 2, 1)],
                    operation_timeout=10)[RF1].result(20)
    wait_all("%s again: no leaders" % RF1, lambda: all(
        led(metadata(addr, [RF1])[3], RF1, 2) for addr in BROKERS))
    t = metadata(BROKERS[0], [RF1])[3][RF1]
    if t["id"] == old["id"]:
        fail("%s made again with its old id" % RF1)
    produce_consume(RF1, 2)
    if watermarks(RF1, 2) != [(0, 5), (0, 5)]:
        fail("%s made again: watermarks %s, not fresh logs" %
             (RF1, watermarks(RF1, 2)))
    check_logs(RF1, t)


def grow(old):
    """CreatePartitions through broker 3: placed as AdminZkClient does,
    written to the topic znode, led, produced to."""
    for args, want in (((3,), 37), ((5, [[1, 2, 9], [1, 2, 3]]), 39),
                       ((5, [[1, 2]]), 39), ((7, None, True), 0),
                       ((5,), 0)):
        got = grow_on(BROKERS[2], RF3, *args)
        if got[0] != want:
            fail("CreatePartitions %s of %s through broker 3: %s, not %d" %
                 (args, RF3, got, want))
    if len(zk_json("/brokers/topics/" + RF3)["partitions"]) != 5:
        fail("%s: the znode after CreatePartitions: %s" %
             (RF3, zk_json("/brokers/topics/" + RF3)))
    wait_all("%s: 5 partitions with leaders everywhere" % RF3, lambda: all(
        led(metadata(addr, [RF3])[3], RF3, 5) for addr in BROKERS))
    t = metadata(BROKERS[0], [RF3])[3][RF3]
    # AdminUtils from partition 3, starting at partition 0's first replica
    start = max(0, next((i for i, b in enumerate(IDS)
                         if b >= old["parts"][0]["replicas"][0]), -1))
    for p in t["parts"][:3]:
        if p["replicas"] != old["parts"][p["index"]]["replicas"]:
            fail("%s-%d replicas moved: %s" % (RF3, p["index"], p))
    for p in t["parts"][3:]:
        i, shift = p["index"], start + p["index"] // len(IDS)
        first = (i + start) % len(IDS)
        want = [IDS[first]] + [IDS[(first + 1 + (shift + j) % 2) % 3]
                               for j in range(2)]
        if p["replicas"] != want:
            fail("%s-%d: replicas %s, AdminUtils %s" %
                 (RF3, i, p["replicas"], want))
    check_logs(RF3, t)
    produce_consume(RF3, 5)
    # an explicit assignment
    if grow_on(BROKERS[2], RF1, 3, [[3]])[0] != 0:
        fail("CreatePartitions of %s with [[3]]" % RF1)
    wait_all("%s-2 led by broker 3" % RF1, lambda: all(
        led(metadata(addr, [RF1])[3], RF1, 3) and
        metadata(addr, [RF1])[3][RF1]["parts"][2]["replicas"] == [3]
        for addr in BROKERS))
    produce_consume(RF1, 3)


def alter_configs():
    """IncrementalAlterConfigs through broker 1: /config/topics/<t> and a
    config_change_ notification in ZooKeeper, DescribeConfigs on brokers 2
    and 3, and every leader refusing a record over max.message.bytes."""
    c = conn(BROKERS[0])
    got = raw.incremental(c, RF3, [("max.message.bytes", 0, "2000")],
                          rtype=2)
    c.close()
    if got[0] != 0:
        fail("IncrementalAlterConfigs through broker 1: %s" % (got,))
    cz = zk_json("/config/topics/" + RF3)
    if cz != {"version": 1, "config": {"retention.ms": "3600000",
                                       "max.message.bytes": "2000"}}:
        fail("%s: ConfigEntityZNode after the change %s" % (RF3, cz))
    ch = zk("ls", "/config/changes").split()
    if not ch or not all(c.startswith("config_change_") for c in ch) or \
            zk_json("/config/changes/" + ch[-1]) != \
            {"version": 2, "entity_path": "topics/" + RF3}:
        fail("/config/changes: %s" % ch)

    def shown(addr):
        c = conn(addr)
        err, _, cfgs = raw.describe(c, RF3, ["max.message.bytes"],
                                    rtype=2)
        c.close()
        return err == 0 and cfgs[0][1] == "2000"
    wait_all("max.message.bytes not shown by brokers 2 and 3",
             lambda: shown(BROKERS[1]) and shown(BROKERS[2]), 5)
    pr = Producer({"bootstrap.servers": ",".join(BROKERS), "linger.ms": 0,
                   "retries": 0, "message.timeout.ms": 10000})
    errs = []
    for p in range(5):
        pr.produce(RF3, value=b"x" * 5000, partition=p,
                   on_delivery=lambda e, m: errs.append(e))
    pr.flush(20)
    if len(errs) != 5 or not all(e is not None and
                                 e.name() == "MSG_SIZE_TOO_LARGE"
                                 for e in errs):
        fail("%s: records over max.message.bytes: %s" % (RF3, errs))


def main():
    for addr in BROKERS:  # every broker lists the three
        end = time.time() + 15
        while metadata(addr, [])[0] != IDS:
            if time.time() > end:
                fail("%s lists brokers %s" % (addr, metadata(addr, [])[0]))
            time.sleep(0.05)
    a = AdminClient({"bootstrap.servers": BROKERS[0]})
    t0 = time.monotonic()
    fs = a.create_topics([
        NewTopic(RF3, 3, 3, config={"retention.ms": "3600000"}),
        NewTopic(RF1, 4, 1)], operation_timeout=10)
    for f in fs.values():
        f.result(20)
    answered = time.monotonic()
    seen = {}
    while len(seen) < len(BROKERS):
        for addr in BROKERS:
            if addr not in seen:
                _, _, _, ts = metadata(addr, [RF3, RF1])
                if led(ts, RF3, 3) and led(ts, RF1, 4):
                    seen[addr] = time.monotonic()
        if time.monotonic() - answered > 15:
            fail("after 15 s only %s list both topics with leaders" %
                 list(seen))
        time.sleep(0.002)
    print("# figure: CreateTopics answered in %.1f ms; both topics with "
          "leaders in every broker's Metadata %.1f ms after the answer "
          "(brokers: %s ms)" %
          ((answered - t0) * 1000, (max(seen.values()) - answered) * 1000,
           ", ".join("%.1f" % ((seen[b] - answered) * 1000)
                     for b in BROKERS)))
    # the followers join the ISR as the leaders see them catch up: every
    # broker then lists the full ISR (the state the leader wrote)
    end = time.monotonic() + 15
    while True:
        views = [metadata(addr, [RF3, RF1]) for addr in BROKERS]
        full = all(sorted(p["isr"]) == sorted(p["replicas"])
                   for t in views[0][3].values() for p in t["parts"])
        if full and all(v == views[0] for v in views[1:]):
            break
        if time.monotonic() > end:
            fail("brokers disagree or the ISR is not full:\n%s" %
                 "\n".join(str(v) for v in views))
        time.sleep(0.05)
    print("# figure: every ISR full on every broker %.0f ms after the "
          "answer" % ((time.monotonic() - answered) * 1000))
    brokers, cluster, controller, ts = views[0]
    cz = zk_json("/cluster/id")
    if cz != {"version": "1", "id": cluster}:
        fail("/cluster/id %s, Metadata's cluster id %s" % (cz, cluster))
    if controller not in IDS:
        fail("controller %d" % controller)
    cepoch = int(zk("get", "/controller_epoch"))
    for addr in BROKERS:
        if describe_cluster(addr) != (cluster, controller, IDS):
            fail("DescribeCluster of %s: %s" % (addr, describe_cluster(addr)))
    check_placement(ts[RF3], 3)
    check_placement(ts[RF1], 1)
    check_znodes(RF3, ts[RF3], {"retention.ms": "3600000"}, cepoch)
    check_znodes(RF1, ts[RF1], {}, cepoch)
    for name in (RF3, RF1):
        print("# figure: %s: %s" % (name, "; ".join(
            "p%d leader %d replicas %s isr %s" %
            (p["index"], p["leader"], p["replicas"], p["isr"])
            for p in ts[name]["parts"])))
    check_logs(RF3, ts[RF3])
    check_logs(RF1, ts[RF1])

    # the config, read from ZooKeeper, on broker 3
    b3 = AdminClient({"bootstrap.servers": BROKERS[2]})
    r = b3.describe_configs([ConfigResource("topic", RF3)])
    cfg = list(r.values())[0].result(20)
    if cfg["retention.ms"].value != "3600000":
        fail("broker 3: retention.ms %s" % cfg["retention.ms"].value)
    # through another broker: exists; too many replicas
    b2 = AdminClient({"bootstrap.servers": BROKERS[1]})
    for topic, err in ((NewTopic(RF3, 1, 1), "TOPIC_ALREADY_EXISTS"),
                       (NewTopic("zkt-rf4", 1, 4),
                        "INVALID_REPLICATION_FACTOR")):
        try:
            b2.create_topics([topic], operation_timeout=10)[topic.topic] \
                .result(20)
            fail("%s created" % topic.topic)
        except Exception as e:  # KafkaException
            if e.args[0].name() != err:
                fail("%s: %s, not %s" % (topic.topic, e, err))
    # the same name through brokers 2 and 3 at once: one wins, and every
    # broker ends with the winner's topic (the loser's write is refused
    # by ZooKeeper, or it knew the topic already)
    fs = [b.create_topics([NewTopic("zkt-race", 2, 2)], operation_timeout=10)
          ["zkt-race"] for b in (b2, b3)]
    won = 0
    for f in fs:
        try:
            f.result(20)
            won += 1
        except Exception as e:
            print("# the other: %s" % e)
    if won != 1:
        fail("zkt-race created %d times" % won)
    end = time.time() + 15
    while True:
        views = [metadata(addr, ["zkt-race"])[3] for addr in BROKERS]
        if all(led(v, "zkt-race", 2) for v in views) and \
                all(v == views[0] for v in views):
            break
        if time.time() > end:
            fail("zkt-race: %s" % views)
        time.sleep(0.01)
    tz = zk_json("/brokers/topics/zkt-race")
    if base64.urlsafe_b64decode(tz["topic_id"] + "==") != \
            views[0]["zkt-race"]["id"]:
        fail("zkt-race: the brokers do not list ZooKeeper's topic id")
    produce_consume(RF3, 3)
    produce_consume(RF1, 4)
    produce_consume(RF3, 3, acks=-1)  # min.insync.replicas 1: the leader
    not_enough(b2)
    delete_recreate(a, b2, ts[RF1])
    grow(ts[RF3])
    alter_configs()
    print("ok")


main()
