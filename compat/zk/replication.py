#!/usr/bin/python3
"""Replication, the follower side (compat scenario zk_replication): three
gregor brokers on one ZooKeeper, a topic of replication factor 3 and two
partitions: two brokers lead one each, the third (F, the one restarted
and wiped: with no failover yet, a wiped leader would lose the data)
follows both. compat/zk/scenarios.sh
runs the phases between broker restarts:

  replication.py PHASE BROKERS ZKCLI ZK_CONNECT CHROOT DATA_PATTERN
    produce   creates the topic, produces plain, idempotent (gzip, lz4,
              zstd) and transactional (one committed, one aborted) records
              with confluent-kafka, waits for every replica to hold the
              same log; prints "LEADER FOLLOWER" of partition 0
    same      waits until every replica's segment files are the leader's,
              byte for byte (the batches keep the leader's offsets and
              epochs), and the leader-epoch-checkpoint files the same
    more      produces more records to every partition (acks=1)
    diverge F the follower F (stopped) of partition 0 gets a batch of
              epoch 0 past its log end (its last batch again, based at its
              end: a write the leader never had); the partition's state
              in ZooKeeper gets leader epoch 1 (the same leader, as a
              controller's bump), and the leader gets records of epoch 1
    notleader F  a follower answers Produce, ListOffsets and Fetch as
              Kafka's does: NOT_LEADER_OR_FOLLOWER
    behind    (F stopped) records to partition 0, then DeleteRecords on
              its leader to inside its last batch; prints the log start
    samefrom F:START  F's partition 0 holds the leader's batches from
              the one holding START (restarted there, Kafka's
              truncateFullyAndStartAt)
    groupmove  offsets committed, their __consumer_offsets partition's
              leadership moved to a follower: the new coordinator answers
              them from the copy it fetched
    hwckpt F  (F stopped) its replication-offset-checkpoint holds the
              leaders' high watermarks
    move F:START  partition 0's leader becomes F (a new state written in
              ZooKeeper); the old leader follows it

Prints '# figure:' lines; exit 0 or 1."""

import glob
import json
import os
import struct
import subprocess
import sys
import time

PHASE = sys.argv[1]
BROKERS = sys.argv[2].split(",")
ZKCLI, ZK, CHROOT, DATA = sys.argv[3:7]
ARG = sys.argv[7] if len(sys.argv) > 7 else None
os.environ.setdefault("GR_BOOTSTRAP", BROKERS[0])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "telemetry"))
import raw  # noqa: E402
from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

TOPIC = "zkr"
IDS = [1, 2, 3]
NPARTS = 2  # two brokers lead one each; the third only follows


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def conn(i):
    raw.HOST, raw.PORT = BROKERS[i - 1].rsplit(":", 1)
    return raw.Conn(client_id="zk-repl", software=None)


def live_conn():
    """a connection to the first broker that answers (one may be down)"""
    for i in IDS:
        try:
            return conn(i)
        except OSError:
            continue
    fail("no broker answers")


def parts_once():
    """[(partition, leader, epoch, replicas)] from a live broker's
    Metadata"""
    c = live_conn()
    body = raw.carray([b"\0" * 16 + raw.cstr(TOPIC) + raw.T])
    r = c.call(3, 12, body + b"\x00\x00" + raw.T)
    c.close()
    _, _, _, ts = raw.metadata_v12_answer(r)
    t = ts[0]
    if t["error"] != 0:
        return None
    return [(p["index"], p["leader"], p["epoch"], p["replicas"])
            for p in t["parts"]]


def parts():
    """parts_once() until the topic is known (a broker just started may
    not have read it yet), 15 s at most"""
    end = time.time() + 15
    while (ps := parts_once()) is None or len(ps) < NPARTS:
        if time.time() > end:
            fail("the topic's partitions: %s" % ps)
        time.sleep(0.05)
    return ps


def pdir(i, p):
    return os.path.join(DATA.format(i), "%s-%d" % (TOPIC, p))


def files(i, p):
    """{segment name: bytes} and the leader-epoch-checkpoint of broker i"""
    d = pdir(i, p)
    segs = {}
    for f in sorted(glob.glob(os.path.join(d, "*.log"))):
        with open(f, "rb") as fh:
            segs[os.path.basename(f)] = fh.read()
    try:
        with open(os.path.join(d, "leader-epoch-checkpoint")) as fh:
            ep = fh.read()
    except OSError:
        ep = None
    return segs, ep


def batches(data):
    """[(base offset, last offset, leader epoch, attributes, producer id)]"""
    out, pos = [], 0
    while pos + 61 <= len(data):
        base, length, epoch = struct.unpack(">qii", data[pos:pos + 16])
        attrs, delta = struct.unpack(">hi", data[pos + 21:pos + 27])
        pid = struct.unpack(">q", data[pos + 43:pos + 51])[0]
        out.append((base, base + delta, epoch, attrs, pid))
        pos += 12 + length
    return out


def batched_epochs(segs, ep):
    """the checkpoint's entries that begin below the log end: an epoch with
    no batch yet (makeLeader assigns it at the log end; the controller
    raises it when the ISR shrinks) is the leader's alone, a follower
    learns epochs from batches"""
    bs = [b for s in segs.values() for b in batches(s)]
    end = bs[-1][1] + 1 if bs else 0
    if ep is None:
        return None
    return [e for e in ep.split("\n")[2:-1] if int(e.split()[1]) < end]


def same(timeout=20):
    t0 = time.monotonic()
    ps = parts()
    last = None
    while True:
        ok = True
        for p, leader, _, replicas in ps:
            want = files(leader, p)
            for i in replicas:
                got = files(i, p)
                # an epoch with no batch yet is the leader's alone (Kafka's
                # makeLeader assigns it at the log end; a follower learns
                # epochs from batches)
                if got[0] != want[0] or (
                        batched_epochs(*got) != batched_epochs(*want) and
                        any(want[0].values())):
                    ok = False
                    last = (p, leader, i, {k: len(v) for k, v in want[0].items()},
                            {k: len(v) for k, v in got[0].items()}, want[1],
                            got[1])
        if ok:
            break
        if time.monotonic() - t0 > timeout:
            fail("replicas differ after %d s: partition %d leader %d vs "
                 "broker %d: segments %s vs %s, epochs %r vs %r" %
                 ((timeout,) + last))
        time.sleep(0.05)
    summary = []
    for p, leader, _, _ in ps:
        segs, ep = files(leader, p)
        bs = [b for s in segs.values() for b in batches(s)]
        summary.append("p%d: %d batches, %d bytes, end %d, epochs %s" % (
            p, len(bs), sum(len(s) for s in segs.values()),
            bs[-1][1] + 1 if bs else 0,
            ep.split("\n")[2:-1] if ep else None))
    print("# figure: every replica holds the leader's segments byte for byte "
          "%.0f ms after the check began (%s)" %
          ((time.monotonic() - t0) * 1000, "; ".join(summary)))
    return ps


def produce(cfg, n, parts_, txn=None):
    pr = Producer(dict({"bootstrap.servers": ",".join(BROKERS),
                        "linger.ms": 5}, **cfg))
    errs = []
    if txn is not None:
        pr.init_transactions(20)
        pr.begin_transaction()
    for p in parts_:
        for k in range(n):
            pr.produce(TOPIC, value=b"%s-%d-%d" % (
                json.dumps(cfg, sort_keys=True).encode(), p, k) * 3,
                key=b"k%d" % k, partition=p,
                on_delivery=lambda e, m: errs.append(e))
    if txn == "commit":
        pr.commit_transaction(20)
    elif txn == "abort":
        pr.flush(20)
        pr.abort_transaction(20)
    pr.flush(20)
    if any(e is not None for e in errs):
        fail("produce %s: %s" % (cfg, [e for e in errs if e]))


def coordinator(txn_id):
    """the broker id of txn_id's coordinator (FindCoordinator v4)"""
    c = live_conn()
    r = c.call(10, 4, struct.pack(">b", 1) + raw.carray([raw.cstr(txn_id)]) +
               raw.T)
    r.i32()
    co = r.carray(lambda r: (r.cstr(), r.i32(), r.cstr(), r.i32(), r.i16(),
                             r.cstr(), r.tags()))
    c.close()
    return co[0][1] if co[0][4] == 0 else None


def txn_ids(n, broker):
    """n transactional ids whose coordinator is broker: in cluster mode a
    transaction stays on one broker for now (the producer-id blocks, the
    partition verification and the markers are each broker's own), so a
    transactional producer writes only to the partitions its coordinator
    leads"""
    got = []
    for k in range(300):
        t = "zkr-%d" % k
        end = time.time() + 15
        while (b := coordinator(t)) is None:
            if time.time() > end:
                fail("no coordinator for %s" % t)
            time.sleep(0.1)
        if b == broker:
            got.append(t)
            if len(got) == n:
                return got
    fail("no %d transactional ids with coordinator %d" % (n, broker))


def phase_produce():
    a = AdminClient({"bootstrap.servers": BROKERS[0]})
    a.create_topics([NewTopic(TOPIC, NPARTS, 3)],
                    operation_timeout=10)[TOPIC].result(20)
    end = time.time() + 15
    while True:
        ps = parts_once()
        if ps and len(ps) == NPARTS and all(l >= 0 for _, l, _, _ in ps):
            break
        if time.time() > end:
            fail("no leaders: %s" % ps)
        time.sleep(0.05)
    allp = list(range(NPARTS))
    produce({"acks": 1}, 5, allp)
    for p, leader, _, _ in parts():
        ids = txn_ids(4, leader)
        for comp, t in zip(("gzip", "lz4", "zstd"), ids):
            produce({"transactional.id": t, "compression.type": comp}, 20,
                    [p], txn="commit")
        produce({"transactional.id": ids[3]}, 3, [p], txn="abort")
    ps = same()
    # what the followers hold: control batches and compressed ones
    segs, _ = files(ps[0][1], 0)
    bs = [b for s in segs.values() for b in batches(s)]
    ctrl = sum(1 for b in bs if b[3] & 0x20)
    comp = {b[3] & 7 for b in bs}
    if ctrl < 2 or not {1, 3, 4} <= comp:
        fail("partition 0 holds %d control batches, codecs %s" % (ctrl, comp))
    p0 = ps[0]
    leaders = {l for _, l, _, _ in ps}
    follower = [i for i in p0[3] if i not in leaders][0]
    print("%d %d" % (p0[1], follower))


def phase_more():
    produce({"acks": 1}, 7, list(range(NPARTS)))


def phase_diverge():
    f = int(ARG)
    d = pdir(f, 0)
    seg = sorted(glob.glob(os.path.join(d, "*.log")))[-1]
    with open(seg, "rb") as fh:
        data = fh.read()
    bs = batches(data)
    base, last = bs[-1][0], bs[-1][1]
    # the last batch again, based at the log end (the base offset is
    # outside the CRC): an epoch-0 write the leader never had
    pos, start = 0, 0
    while pos < len(data):
        start = pos
        pos += 12 + struct.unpack(">i", data[pos + 8:pos + 12])[0]
    extra = struct.pack(">q", last + 1) + data[start + 8:]
    with open(seg, "ab") as fh:
        fh.write(extra)
    print("# figure: broker %d's partition 0 got a batch of epoch 0 at %d-%d "
          "the leader does not have" % (f, last + 1, 2 * last + 1 - base))
    path = "/brokers/topics/%s/partitions/0/state" % TOPIC
    st = json.loads(subprocess.run([ZKCLI, ZK, "get", CHROOT + path],
                                   capture_output=True, text=True,
                                   timeout=20).stdout)
    st["leader_epoch"] += 1
    r = subprocess.run([ZKCLI, ZK, "set", CHROOT + path,
                        json.dumps(st, separators=(",", ":"))],
                       capture_output=True, text=True, timeout=20)
    if r.returncode != 0:
        fail("zkcli set: %s" % r.stderr)
    end = time.time() + 15
    while parts()[0][2] != st["leader_epoch"]:
        if time.time() > end:
            fail("the leader epoch stays %s" % parts()[0][2])
        time.sleep(0.05)
    produce({"acks": 1}, 4, [0])


def batch_bytes(data):
    """[(last offset, bytes)] of the batches of a segment"""
    out, pos = [], 0
    while pos + 61 <= len(data):
        base, length = struct.unpack(">qi", data[pos:pos + 12])
        delta = struct.unpack(">i", data[pos + 23:pos + 27])[0]
        out.append((base + delta, data[pos:pos + 12 + length]))
        pos += 12 + length
    return out


def phase_behind():
    """(the follower F of partition 0 stopped) records to partition 0,
    then DeleteRecords on its leader to 3 below its end: inside its last
    batch, past F's log end"""
    produce({"acks": 1, "linger.ms": 50}, 7, [0])
    ps = parts()
    leader = ps[0][1]
    segs, _ = files(leader, 0)
    end = batches(list(segs.values())[-1])[-1][1] + 1
    body = (raw.carray([raw.cstr(TOPIC) + raw.carray(
        [struct.pack(">iq", 0, end - 3) + raw.T]) + raw.T]) +
        struct.pack(">i", 10000) + raw.T)
    # past the high watermark until the other follower has the records
    # (OFFSET_OUT_OF_RANGE, as Kafka): asked again for 10 s at most
    t0 = time.monotonic()
    while True:
        c = conn(leader)
        r = c.call(21, 2, body)
        r.i32()
        res = r.carray(lambda r: (r.cstr(), r.carray(
            lambda r: (r.i32(), struct.unpack(">q", r.take(8))[0], r.i16(),
                       r.tags())), r.tags()))
        c.close()
        _, low, err, _ = res[0][1][0]
        if err != 1 or time.monotonic() - t0 > 10:
            break
        time.sleep(0.05)
    if err != 0 or low != end - 3:
        fail("DeleteRecords to %d: error %d, low watermark %d" %
             (end - 3, err, low))
    print("%d" % low)


def phase_samefrom():
    """partition 0 of follower F holds the leader's batches from the one
    holding its log start (ARG), byte for byte"""
    start = int(ARG.split(":")[1])
    f = int(ARG.split(":")[0])
    ps = parts()
    leader = ps[0][1]
    t0 = time.monotonic()
    while True:
        want = [b for s in files(leader, 0)[0].values()
                for b in batch_bytes(s) if b[0] >= start]
        got = [b for s in files(f, 0)[0].values() for b in batch_bytes(s)]
        if want and got == want:
            break
        if time.monotonic() - t0 > 20:
            fail("follower %d's partition 0 holds batches ending %s, the "
                 "leader's from %d end %s" % (f, [b[0] for b in got], start,
                                              [b[0] for b in want]))
        time.sleep(0.05)
    print("# figure: follower %d restarted at the leader's log start %d: "
          "%d batches equal %.0f ms after the check began" %
          (f, start, len(got), (time.monotonic() - t0) * 1000))


def ep_entries(text):
    """[(epoch, start offset)] of a leader-epoch-checkpoint's text"""
    return [tuple(int(x) for x in ln.split())
            for ln in (text or "").split("\n")[2:] if ln.strip()] or [(-1, -1)]


def phase_move():
    """partition 0's leadership to F (its state in ZooKeeper: leader F,
    epoch + 1, as a controller's election writes it); records produced
    then go to F, and the old leader, now a follower, fetches them: its
    batches from START (ARG F:START) are F's"""
    f, start = (int(x) for x in ARG.split(":"))
    old = parts()[0][1]
    path = "/brokers/topics/%s/partitions/0/state" % TOPIC
    st = json.loads(subprocess.run([ZKCLI, ZK, "get", CHROOT + path],
                                   capture_output=True, text=True,
                                   timeout=20).stdout)
    st["leader"], st["leader_epoch"], st["isr"] = f, st["leader_epoch"] + 1, [f]
    r = subprocess.run([ZKCLI, ZK, "set", CHROOT + path,
                        json.dumps(st, separators=(",", ":"))],
                       capture_output=True, text=True, timeout=20)
    if r.returncode != 0:
        fail("zkcli set: %s" % r.stderr)
    end = time.time() + 15
    while parts()[0][1:3] != (f, st["leader_epoch"]):
        if time.time() > end:
            fail("partition 0 stays %s" % (parts()[0],))
        time.sleep(0.05)
    produce({"acks": 1}, 5, [0])
    t0 = time.monotonic()
    while True:
        want = [b for s in files(f, 0)[0].values()
                for b in batch_bytes(s) if b[0] >= start]
        got = [b for s in files(old, 0)[0].values()
               for b in batch_bytes(s) if b[0] >= start]
        # the epochs the same but for where the first starts (the old
        # leader's log start is the DeleteRecords offset, the new one's
        # the batch holding it)
        eo, ef = (ep_entries(files(i, 0)[1]) for i in (old, f))
        if got == want and eo[1:] == ef[1:] and eo[0][0] == ef[0][0]:
            break
        if time.monotonic() - t0 > 20:
            fail("old leader %d holds batches ending %s, the new leader %d "
                 "%s; epochs %r, %r" % (old, [b[0] for b in got], f,
                                       [b[0] for b in want],
                                       files(old, 0)[1], files(f, 0)[1]))
        time.sleep(0.05)
    print("# figure: partition 0 moved from %d to %d (leader epoch %d): the "
          "old leader fetches the new one's records, %d batches equal %.0f "
          "ms after the records" % (old, f, st["leader_epoch"], len(got),
                                    (time.monotonic() - t0) * 1000))


def phase_hwckpt():
    """(follower F stopped cleanly) F's replication-offset-checkpoint holds
    for each partition the leader's high watermark it was last told (the
    leader's end: every record was acknowledged before F stopped)"""
    f = int(ARG)
    with open(os.path.join(DATA.format(f), "replication-offset-checkpoint")) as fh:
        lines = fh.read().split("\n")
    got = {(ln.split()[0], int(ln.split()[1])): int(ln.split()[2])
           for ln in lines[2:] if ln.strip()}
    for p, leader, _, _ in parts():
        segs, _ = files(leader, p)
        bs = [b for s in segs.values() for b in batches(s)]
        want = bs[-1][1] + 1
        if got.get((TOPIC, p)) != want:
            fail("broker %d's replication-offset-checkpoint: %s-%d at %s, "
                 "not %d" % (f, TOPIC, p, got.get((TOPIC, p)), want))
    print("# follower %d checkpointed its high watermarks %s" %
          (f, {k: v for k, v in got.items() if k[0] == TOPIC}))


def java_hash(s):
    h = 0
    for ch in s.encode():
        h = (31 * h + ch) & 0xffffffff
    return h


def group_coordinator(group):
    c = live_conn()
    r = c.call(10, 4, struct.pack(">b", 0) + raw.carray([raw.cstr(group)]) +
               raw.T)
    r.i32()
    co = r.carray(lambda r: (r.cstr(), r.i32(), r.cstr(), r.i32(), r.i16(),
                             r.cstr(), r.tags()))
    c.close()
    return co[0][1] if co[0][4] == 0 else None


def phase_groupmove():
    """offsets committed by a group, the leadership of its
    __consumer_offsets partition moved to a follower (a new state in
    ZooKeeper): the new coordinator loads the copy it fetched and answers
    the same committed offsets"""
    from confluent_kafka import Consumer, TopicPartition
    group = "zkr-g"
    boot = ",".join(BROKERS)
    c = Consumer({"bootstrap.servers": boot, "group.id": group,
                  "enable.auto.commit": False})
    c.commit(offsets=[TopicPartition(TOPIC, 0, 5), TopicPartition(TOPIC, 1, 6)],
             asynchronous=False)
    c.close()
    part = (java_hash(group) & 0x7fffffff) % 50
    old = group_coordinator(group)
    path = "/brokers/topics/__consumer_offsets/partitions/%d/state" % part
    st = json.loads(subprocess.run([ZKCLI, ZK, "get", CHROOT + path],
                                   capture_output=True, text=True,
                                   timeout=20).stdout)
    if st["leader"] != old:
        fail("group %s: coordinator %s, __consumer_offsets-%d led by %s" %
             (group, old, part, st["leader"]))
    new = [i for i in IDS if i != old][0]
    d = lambda i: os.path.join(DATA.format(i), "__consumer_offsets-%d" % part)
    end = time.time() + 15
    while True:  # the follower has the commit
        segs = [sorted(glob.glob(os.path.join(d(i), "*.log"))) for i in (old, new)]
        data = [b"".join(open(x, "rb").read() for x in ss) for ss in segs]
        if data[0] and data[0] == data[1]:
            break
        if time.time() > end:
            fail("__consumer_offsets-%d: broker %d holds %d bytes, the "
                 "leader %d" % (part, new, len(data[1]), len(data[0])))
        time.sleep(0.05)
    st["leader"], st["leader_epoch"], st["isr"] = new, st["leader_epoch"] + 1, [new]
    r = subprocess.run([ZKCLI, ZK, "set", CHROOT + path,
                        json.dumps(st, separators=(",", ":"))],
                       capture_output=True, text=True, timeout=20)
    if r.returncode != 0:
        fail("zkcli set: %s" % r.stderr)
    end = time.time() + 15
    while group_coordinator(group) != new:
        if time.time() > end:
            fail("group %s: coordinator stays %s" %
                 (group, group_coordinator(group)))
        time.sleep(0.05)
    c = Consumer({"bootstrap.servers": boot, "group.id": group,
                  "enable.auto.commit": False})
    got = c.committed([TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)],
                      timeout=20)
    c.close()
    if [(t.partition, t.offset) for t in got] != [(0, 5), (1, 6)]:
        fail("group %s at its new coordinator %d: %s" %
             (group, new, [(t.partition, t.offset) for t in got]))
    print("# group %s: __consumer_offsets-%d moved from %d to %d, the "
          "committed offsets read back from the new coordinator" %
          (group, part, old, new))


def phase_notleader():
    """Produce v9, ListOffsets v7 and Fetch v12 to follower F of
    partition 0: NOT_LEADER_OR_FOLLOWER (6) for each"""
    f = int(ARG)
    c = conn(f)
    # Produce v9 (flexible): transactional id null, acks 1, one batch
    from kafka.record.util import calc_crc32c
    rec = b"\x00\x00\x00\x01\x02x\x00"  # attrs, deltas, key -1, "x", 0 hdrs
    rec = bytes([len(rec) << 1]) + rec
    now = int(time.time() * 1000)
    after_crc = struct.pack(">hiqqqhii", 0, 0, now, now, -1, -1, -1, 1) + rec
    head = struct.pack(">iBI", -1, 2, calc_crc32c(after_crc))
    batch = struct.pack(">qi", 0, len(head) + len(after_crc)) + head + after_crc
    ps = parts()
    body = (raw.uvarint(0) + struct.pack(">hi", 1, 5000) +
            raw.carray([raw.cstr(TOPIC) + raw.carray(
                [struct.pack(">i", 0) + raw.uvarint(len(batch) + 1) + batch +
                 raw.T]) + raw.T]) + raw.T)
    r = c.call(0, 9, body)
    topics = r.carray(lambda r: (r.cstr(), r.carray(
        lambda r: (r.i32(), r.i16(), r.take(8 + 8 + 8),
                   r.carray(lambda r: (r.i32(), r.cstr(), r.tags())),
                   r.cstr(), r.tags())), r.tags()))
    perr = topics[0][1][0][1]
    # ListOffsets v7: replica -1, isolation 0, latest
    body = (struct.pack(">ib", -1, 0) + raw.carray([raw.cstr(TOPIC) + raw.carray(
        [struct.pack(">iiq", 0, -1, -1) + raw.T]) + raw.T]) + raw.T)
    r = c.call(2, 7, body)
    r.i32()
    topics = r.carray(lambda r: (r.cstr(), r.carray(
        lambda r: (r.i32(), r.i16(), r.take(8 + 8 + 4), r.tags())), r.tags()))
    lerr = topics[0][1][0][1]
    # Fetch v12 (names): a consumer at offset 0
    body = (struct.pack(">iiiibii", -1, 0, 1, 1 << 20, 0, 0, -1) +
            raw.carray([raw.cstr(TOPIC) + raw.carray(
                [struct.pack(">iiqiqi", 0, -1, 0, -1, -1, 1 << 20) + raw.T]) +
                raw.T]) + raw.carray([]) + raw.cstr("") + raw.T)
    r = c.call(1, 12, body)
    r.i32()
    top_err = r.i16()
    r.i32()
    topics = r.carray(lambda r: (r.cstr(), r.carray(
        lambda r: (r.i32(), r.i16()))))
    ferr = topics[0][1][0][1]
    c.close()
    if (perr, lerr, ferr, top_err) != (6, 6, 6, 0):
        fail("follower %d of partition 0 (leader %d) answers Produce %d, "
             "ListOffsets %d, Fetch %d" % (f, ps[0][1], perr, lerr, ferr))
    print("# follower %d answers NOT_LEADER_OR_FOLLOWER to Produce, "
          "ListOffsets and Fetch" % f)


{"produce": phase_produce, "same": same, "more": phase_more,
 "diverge": phase_diverge, "notleader": phase_notleader,
 "behind": phase_behind, "samefrom": phase_samefrom,
 "move": phase_move, "hwckpt": phase_hwckpt,
 "groupmove": phase_groupmove}[PHASE]()
