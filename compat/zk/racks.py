#!/usr/bin/python3
"""Racks in cluster mode (compat scenario zk_racks): brokers 1, 2, 3 with
broker.rack r1, r2, r2 on one ZooKeeper. Each one's registration
(/brokers/ids/<id>, read with ZooKeeper's own C client) carries its rack
as Kafka's BrokerIdZNode v5 does; every broker's Metadata v12 and
DescribeCluster v0 (framed by hand, asked of each broker itself) show
the three racks; a topic created through broker 2 with confluent-kafka
is placed as Kafka's AdminUtils.assignReplicasToBrokersRackAware places
it (every partition on both racks, rows as the rack-alternated list
gives them for one start and shift), and so are partitions added to it.
Then broker 4 registers without a rack: as Kafka, placement is refused
(UNKNOWN_SERVER_ERROR for CreateTopics and CreatePartitions) while an
explicit assignment is still taken.

  racks.py racked|mixed BROKERS ZKCLI ZK_CONNECT CHROOT
    racked   brokers 1-3 up (BROKERS: theirs, comma-separated)
    mixed    then broker 4 too (BROKERS: 1,2,3,4)

Prints '# figure:' lines; exit 0 or 1."""

import json
import os
import struct
import subprocess
import sys
import time

PHASE = sys.argv[1]
BROKERS = sys.argv[2].split(",")
ZKCLI, ZK, CHROOT = sys.argv[3:6]
os.environ.setdefault("GR_BOOTSTRAP", BROKERS[0])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "telemetry"))
import raw  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

RACKS = {1: "r1", 2: "r2", 3: "r2"}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def conn(addr):
    raw.HOST, raw.PORT = addr.rsplit(":", 1)
    return raw.Conn(client_id="zk-racks", software=None)


def metadata(addr, topics):
    """Metadata v12 of broker addr: ({id: rack}, {name: topic})"""
    c = conn(addr)
    body = raw.carray([b"\0" * 16 + raw.cstr(t) + raw.T for t in topics])
    r = c.call(3, 12, body + b"\x00\x00" + raw.T)
    c.close()
    brokers, _, _, ts = raw.metadata_v12_answer(r)
    return {b[0]: b[3] for b in brokers}, {t["name"]: t for t in ts}


def describe_cluster(addr):
    """DescribeCluster v0 of broker addr: {id: rack}"""
    c = conn(addr)
    r = c.call(60, 0, b"\x00" + raw.T)
    c.close()
    r.i32()
    if r.i16() != 0:
        fail("DescribeCluster of %s: error" % addr)
    r.cstr()
    r.cstr()
    r.i32()
    return dict(r.carray(lambda r: (r.i32(), r.cstr(), r.i32(), r.cstr(),
                                    r.tags())[::3]))


def grow_on(addr, name, count):
    """CreatePartitions v2 of broker addr: (code, message)"""
    c = conn(addr)
    r = c.call(37, 2, raw.carray([raw.cstr(name) + struct.pack(">i", count) +
                                  b"\x00" + raw.T]) +
               struct.pack(">i?", 10000, False) + raw.T)
    c.close()
    r.i32()
    return r.carray(lambda r: (r.cstr(), r.i16(), r.cstr(), r.tags()))[0][1:3]


def zk_json(path):
    for _ in range(50):  # a new session may read a follower behind
        r = subprocess.run([ZKCLI, ZK, "get", CHROOT + path],
                           capture_output=True, text=True, timeout=20)
        if r.returncode == 0:
            return json.loads(r.stdout)
        time.sleep(0.1)
    fail("%s: not in ZooKeeper" % path)


def wait(what, cond, limit=15):
    end = time.time() + limit
    while not cond():
        if time.time() > end:
            fail(what)
        time.sleep(0.02)


def rack_aware(racks, nparts, rf, start, shift):
    """AdminUtils.assignReplicasToBrokersRackAware, written from its
    description: the rack-alternated list, then round robin with
    followers skipped while their rack or they already hold a replica and
    another does not"""
    by_rack = {r: sorted(b for b in racks if racks[b] == r)
               for r in set(racks.values())}
    order, lst = sorted(by_rack), []
    while len(lst) < len(racks):
        for r in order:
            if by_rack[r]:
                lst.append(by_rack[r].pop(0))
    n, nr, rows = len(lst), len(order), []
    for p in range(nparts):
        if p > 0 and p % n == 0:
            shift += 1
        first = (p + start) % n
        row, k = [lst[first]], 0
        for _ in range(rf - 1):
            while True:
                b = lst[(first + 1 + (shift * nr + k) % (n - 1)) % n]
                k += 1
                used = {racks[x] for x in row}
                if (racks[b] not in used or len(used) == nr) and \
                        (b not in row or len(row) == n):
                    row.append(b)
                    break
        rows.append(row)
    return rows


def placed_rack_aware(t, nparts):
    rows = [p["replicas"] for p in sorted(t["parts"],
                                          key=lambda p: p["index"])]
    for p in rows:
        if {RACKS[b] for b in p} != {"r1", "r2"}:
            fail("a partition on one rack: %s" % rows)
    for s in range(3):
        for h in range(3):
            if rack_aware(RACKS, nparts, 2, s, h) == rows:
                return s, h
    fail("rows %s: not AdminUtils' rack-aware placement" % rows)


def racked():
    racked = BROKERS[:3]
    for i, addr in enumerate(racked, 1):
        reg = zk_json("/brokers/ids/%d" % i)
        if reg.get("version") != 5 or reg.get("rack") != RACKS[i]:
            fail("/brokers/ids/%d: %s" % (i, reg))
    for addr in racked:
        wait("%s lists brokers %s" % (addr, metadata(addr, [])[0]),
             lambda: metadata(addr, [])[0] == RACKS)
        if describe_cluster(addr) != RACKS:
            fail("DescribeCluster of %s: %s" % (addr, describe_cluster(addr)))
    print("# racks in Metadata and DescribeCluster of brokers 1-3: %s" % RACKS)
    a = AdminClient({"bootstrap.servers": BROKERS[1]})
    a.create_topics([NewTopic("zkr", 6, 2)], operation_timeout=10)["zkr"] \
        .result(20)
    wait("zkr with 6 partitions on every broker", lambda: all(len(
        metadata(b, ["zkr"])[1].get("zkr", {}).get("parts", [])) == 6
        for b in racked))
    t = metadata(racked[0], ["zkr"])[1]["zkr"]
    s, h = placed_rack_aware(t, 6)
    print("# figure: zkr placed rack-aware (start %d, shift %d): %s" %
          (s, h, [p["replicas"] for p in t["parts"]]))
    got = grow_on(racked[2], "zkr", 8)
    if got[0] != 0:
        fail("CreatePartitions of zkr to 8: %s" % (got,))
    wait("zkr with 8 partitions on broker 1", lambda: len(
        metadata(racked[0], ["zkr"])[1]["zkr"]["parts"]) == 8)
    t = metadata(racked[0], ["zkr"])[1]["zkr"]
    for p in t["parts"]:
        if {RACKS[b] for b in p["replicas"]} != {"r1", "r2"}:
            fail("zkr-%d on one rack: %s" % (p["index"], p["replicas"]))
    print("ok")


def mixed():
    a = AdminClient({"bootstrap.servers": BROKERS[1]})
    wait("broker 4 not listed", lambda: all(
        metadata(addr, [])[0].get(4, "x") is None for addr in BROKERS))
    try:
        a.create_topics([NewTopic("zkr-mixed", 2, 2)],
                        operation_timeout=10)["zkr-mixed"].result(20)
        fail("zkr-mixed created over brokers with and without racks")
    except Exception as e:  # KafkaException
        if e.args[0].code() != -1:  # UNKNOWN_SERVER_ERROR
            fail("zkr-mixed: %s" % e)
    got = grow_on(BROKERS[3], "zkr", 9)
    if got[0] != -1:
        fail("CreatePartitions of zkr over mixed racks: %s" % (got,))
    a.create_topics([NewTopic("zkr-given", 1, -1, replica_assignment=[[4, 1]])],
                    operation_timeout=10)["zkr-given"].result(20)
    print("# mixed racks: placement refused (UNKNOWN_SERVER_ERROR), an "
          "explicit assignment taken")
    print("ok")


racked() if PHASE == "racked" else mixed()
