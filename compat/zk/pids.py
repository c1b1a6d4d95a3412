"""Producer ids in cluster mode (zk_topics): every broker takes its ids in
blocks of 1000 from /latest_producer_id_block, as Kafka's
ZkProducerIdManager, so idempotent producers on different brokers never
share an id.

Usage: pids.py BROKERS ZKCLI ZK CHROOT MIN_ID
  BROKERS  id@host:port,... brokers that have given no id yet (just
           started)
  MIN_ID   every id given must be at least this (ids taken before a
           restart are never given again)

InitProducerId v4 without a transactional id (hand-framed: the
idempotent producer's request) three times through each broker: all the
ids differ, each broker's come from one block of 1000, and the znode holds
Kafka's JSON for the last block taken. Prints the first id after that
block (the next MIN_ID).
"""
import json
import os
import struct
import subprocess
import sys
import time

BROKERS = [b.split("@") for b in sys.argv[1].split(",")]
ZKCLI, ZK, CHROOT = sys.argv[2:5]
MIN_ID = int(sys.argv[5])
os.environ.setdefault("GR_BOOTSTRAP", BROKERS[0][1])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "telemetry"))
import raw  # noqa: E402

LOAD_IN_PROGRESS = 14


def fail(msg):
    print("# pids: " + msg, file=sys.stderr)
    sys.exit(1)


def init_pid(c):
    # transactional_id null, timeout, producer_id -1, epoch -1, no tags
    body = raw.uvarint(0) + struct.pack(">iqh", 60000, -1, -1) + raw.T
    for _ in range(100):
        r = c.call(22, 4, body)
        r.i32()
        err = r.i16()
        pid = struct.unpack(">q", r.take(8))[0]
        epoch = r.i16()
        if err == LOAD_IN_PROGRESS:  # its block not taken yet: retriable
            time.sleep(0.1)
            continue
        if err != 0 or pid < 0 or epoch != 0:
            fail("InitProducerId: error %d id %d epoch %d" % (err, pid, epoch))
        return pid
    fail("InitProducerId: COORDINATOR_LOAD_IN_PROGRESS for 10 s")


def main():
    ids = {}
    for b, addr in BROKERS:
        b = int(b)
        raw.HOST, raw.PORT = addr.rsplit(":", 1)
        c = raw.Conn(client_id="zk-pids", software=None)
        ids[b] = [init_pid(c) for _ in range(3)]
        c.close()
        print("# figure: node %d gave producer ids %s" % (b, ids[b]))
    every = [i for v in ids.values() for i in v]
    if len(set(every)) != len(every):
        fail("the same producer id from two brokers: %s" % ids)
    if min(every) < MIN_ID:
        fail("an id below %d (given before): %s" % (MIN_ID, ids))
    for b, v in ids.items():
        blocks = {i // 1000 for i in v}
        if len(blocks) != 1 or v != sorted(v) or v[0] % 1000 != 0:
            fail("node %d: ids %s not from the start of one block" % (b, v))
    if len({v[0] // 1000 for v in ids.values()}) != len(ids):
        fail("two brokers in one block: %s" % ids)
    r = subprocess.run([ZKCLI, ZK, "get", CHROOT + "/latest_producer_id_block"],
                       capture_output=True, text=True, timeout=20)
    if r.returncode != 0:
        fail("zkcli get: %s" % r.stderr)
    z = json.loads(r.stdout)
    last = max(every) // 1000 * 1000
    owner = [b for b, v in ids.items() if v[0] == last][0]
    want = {"version": 1, "broker": owner, "block_start": str(last),
            "block_end": str(last + 999)}
    if z != want:
        fail("/latest_producer_id_block %s, not %s" % (z, want))
    if list(z) != ["version", "broker", "block_start", "block_end"]:
        fail("/latest_producer_id_block keys %s" % list(z))
    print("# figure: /latest_producer_id_block %s" % r.stdout.strip())
    print(last + 1000)


main()
