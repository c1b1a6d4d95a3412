#!/usr/bin/python3
"""Leadership applied on brokers (compat scenario zk_kill_history, after
its checker): partition 2 of TOPIC is moved by hand in ZooKeeper, as a
controller would, from its leader L to another replica O and back, and
L must follow each state:
  - a long-polling Fetch on L (max_wait 10 s, nothing to read) is
    answered NOT_LEADER_OR_FOLLOWER as soon as L no longer leads, not at
    the end of its wait;
  - a Fetch on L with the old leader epoch, once L leads again at a
    later one, is FENCED_LEADER_EPOCH;
  - OffsetForLeaderEpoch on L for its new epoch answers that epoch and
    the log end: the epoch began, in the leader-epoch cache, at the log
    end when L took it, before any record of it.

  moves.py BROKERS ZKCLI ZK_CONNECT CHROOT TOPIC
Prints '# figure:' lines and "L" (the broker moved) last; exit 0 or 1."""

import json
import os
import struct
import subprocess
import sys
import threading
import time

BROKERS = sys.argv[1].split(",")
os.environ.setdefault("GR_BOOTSTRAP", BROKERS[0])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "telemetry"))
import raw  # noqa: E402

ZKCLI, ZK, CHROOT, TOPIC = sys.argv[2:6]
PART = 2
T = b"\x00"


def fail(msg):
    print("FAIL:", msg, flush=True)
    sys.exit(1)


def state_path():
    return CHROOT + "/brokers/topics/%s/partitions/%d/state" % (TOPIC, PART)


def get_state():
    for _ in range(50):
        r = subprocess.run([ZKCLI, ZK, "get", state_path()],
                           capture_output=True, text=True, timeout=20)
        if r.returncode == 0:
            return json.loads(r.stdout)
        time.sleep(0.1)
    fail("no state")


def set_state(st):
    r = subprocess.run([ZKCLI, ZK, "set", state_path(),
                        json.dumps(st, separators=(",", ":"))],
                       capture_output=True, text=True, timeout=20)
    if r.returncode != 0:
        fail("zkcli set: %s" % r.stderr)


def conn(broker):
    raw.HOST, raw.PORT = BROKERS[broker - 1].rsplit(":", 1)
    return raw.Conn(client_id="zk-moves", software=None)


def fetch(c, offset, epoch, wait_ms):
    """Fetch v12 of TOPIC-PART: (error, high watermark)"""
    part = struct.pack(">iiqiqi", PART, epoch, offset, -1, -1, 1 << 20) + T
    body = struct.pack(">iiiibii", -1, wait_ms, 1, 1 << 20, 0, 0, -1)
    body += raw.carray([raw.cstr(TOPIC) + raw.carray([part]) + T])
    body += raw.carray([]) + raw.cstr("") + T
    r = c.call(1, 12, body)
    r.i32()
    r.i16()
    r.i32()
    r.uv()  # one topic
    r.cstr()
    r.uv()  # one partition
    r.i32()
    err = r.i16()
    hw = struct.unpack(">q", r.take(8))[0]
    return err, hw


def end_offset(c, epoch):
    """OffsetForLeaderEpoch v4 of TOPIC-PART: (error, epoch, end offset)"""
    part = struct.pack(">iii", PART, epoch, epoch) + T
    body = struct.pack(">i", -1)
    body += raw.carray([raw.cstr(TOPIC) + raw.carray([part]) + T]) + T
    r = c.call(23, 4, body)
    r.i32()
    r.uv()
    r.cstr()
    r.uv()
    err = r.i16()
    r.i32()
    return err, r.i32(), struct.unpack(">q", r.take(8))[0]


def main():
    st = get_state()
    lead, epoch = st["leader"], st["leader_epoch"]
    other = [b for b in (1, 2, 3) if b != lead][0]
    c = conn(lead)
    err, hw = fetch(c, 0, epoch, 0)
    if err != 0:
        fail("fetch on the leader %d: error %d" % (lead, err))
    # a long poll at the end, answered when the leadership goes
    got = {}

    def poll():
        t0 = time.monotonic()
        got["err"] = fetch(c, hw, epoch, 10000)[0]
        got["ms"] = (time.monotonic() - t0) * 1000
    th = threading.Thread(target=poll)
    th.start()
    time.sleep(1)
    t0 = time.monotonic()
    set_state(dict(st, leader=other, leader_epoch=epoch + 1, isr=[other]))
    th.join(15)
    if got.get("err") != 6:
        fail("the long poll on %d: %s, not NOT_LEADER_OR_FOLLOWER" % (lead,
                                                                       got))
    ms = (time.monotonic() - t0) * 1000
    print("# figure: a long poll (10 s) on broker %d answered "
          "NOT_LEADER_OR_FOLLOWER %.0f ms after its partition moved to %d"
          % (lead, ms, other))
    if ms > 5000:
        fail("the long poll waited %.0f ms" % ms)
    # back to it, at a later epoch
    time.sleep(1)
    set_state(dict(st, leader=lead, leader_epoch=epoch + 2, isr=[lead]))
    end = time.time() + 15
    while True:
        err, _ = fetch(c, 0, epoch + 2, 0)
        if err == 0:
            break
        if time.time() > end:
            fail("broker %d does not lead at epoch %d: %d" % (lead, epoch + 2,
                                                              err))
        time.sleep(0.1)
    err, _ = fetch(c, 0, epoch, 0)
    if err != 74:
        fail("a fetch at the old epoch %d: error %d, not FENCED_LEADER_EPOCH"
             % (epoch, err))
    err, e, off = end_offset(c, epoch + 2)
    if err != 0 or e != epoch + 2 or off != hw:
        fail("OffsetForLeaderEpoch %d: error %d, epoch %d, end %d (log end "
             "%d)" % (epoch + 2, err, e, off, hw))
    print("# figure: broker %d leads again at epoch %d: an old-epoch fetch "
          "FENCED_LEADER_EPOCH, OffsetForLeaderEpoch %d ends at %d, the log "
          "end" % (lead, epoch + 2, epoch + 2, off))
    c.close()
    print(lead)


main()
