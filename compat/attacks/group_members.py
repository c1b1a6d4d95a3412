#!/usr/bin/python3
"""A flood of consumer group members (KIP-848) while
compat/attacks/harness.py measures the broker (GR_BOOTSTRAP, GR_BROKER_PID):

  group_members.py MEMBERS CONNECTIONS WAIT_S

joins MEMBERS members, each with its own member id, to one consumer group
subscribed to a topic of 64 partitions, with ConsumerGroupHeartbeat v1
(epoch 0) sent back to back on CONNECTIONS connections; then keeps the
first tenth heartbeating while the rest go silent, for WAIT_S seconds:
with the broker's group.consumer.session.timeout.ms below that, the
silent ones are all fenced by their session timeouts meanwhile, in a
burst. Every answer must be NONE or GROUP_MAX_SIZE_REACHED. The
well-behaved client's bounds are the scenario's (RSS_MB, LATENCY_MS in
the environment). Exit 0 or 1."""

import os
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

from kafka.protocol.admin import CreateTopicsRequest  # noqa: E402
from kafka.protocol.commit import GroupCoordinatorRequest  # noqa: E402


def uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def cstr(s):
    """COMPACT_NULLABLE_STRING"""
    if s is None:
        return b"\x00"
    b = s.encode()
    return uvarint(len(b) + 1) + b


def heartbeat(corr, group, member, epoch, topic):
    """ConsumerGroupHeartbeat v1 (flexible: request header v2)."""
    cid = b"attacker"
    hdr = struct.pack(">hhih", 68, 1, corr, len(cid)) + cid + b"\x00"
    body = cstr(group) + cstr(member) + struct.pack(">i", epoch)
    body += b"\x00\x00"  # InstanceId, RackId: null
    if epoch == 0:
        body += struct.pack(">i", 30000)
        body += uvarint(2) + cstr(topic)  # SubscribedTopicNames
        body += b"\x00\x00"  # SubscribedTopicRegex, ServerAssignor: null
        body += uvarint(1)  # TopicPartitions: empty
    else:
        body += struct.pack(">i", -1)
        body += b"\x00\x00\x00\x00"  # names, regex, assignor, partitions
    body += b"\x00"
    frame = hdr + body
    return struct.pack(">i", len(frame)) + frame


def answer(c):
    size = struct.unpack(">i", c.read(4))[0]
    data = c.read(size)
    # header v1: correlation id, tags; then ThrottleTimeMs, ErrorCode
    return struct.unpack(">h", data[9:11])[0], data


def main():
    if len(sys.argv) != 4:
        harness.fail("usage: group_members.py MEMBERS CONNECTIONS WAIT_S")
    nmembers, nconns, wait = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    topic = "attack-members-%d" % os.getpid()
    group = "attack-members-%d" % os.getpid()
    c = harness.Client("attacker", timeout=120)
    r = c.send(CreateTopicsRequest[0]([(topic, 64, 1, [], [])], 10000))
    if r.topic_errors[0][1] != 0:
        harness.fail("CreateTopics %s: error %d" % (topic, r.topic_errors[0][1]))
    harness.wait_topic(c, topic)
    deadline = time.time() + 20
    while time.time() < deadline:
        if c.send(GroupCoordinatorRequest[0](group)).error_code == 0:
            break
        time.sleep(0.1)
    seen = {"members": nmembers, "connections": nconns}
    errors = {}
    lock = threading.Lock()
    worst = [0.0]
    alive = []  # (member, epoch) of those that keep heartbeating

    def flood(k):
        cl = harness.Client("attacker-%d" % k, timeout=120)
        for i in range(k, nmembers, nconns):
            m = "m-%d" % i
            t0 = time.monotonic()
            cl.corr += 1
            cl.s.sendall(heartbeat(cl.corr, group, m, 0, topic))
            err, data = answer(cl)
            dt = time.monotonic() - t0
            with lock:
                worst[0] = max(worst[0], dt)
                errors[err] = errors.get(err, 0) + 1
                if err == 0 and i % 10 == 0:
                    # member id, then epoch: after the error message
                    alive.append(m)
        cl.close()

    def keep(stop):
        cl = harness.Client("attacker-keep", timeout=120)
        epochs = {}
        while not stop.is_set():
            for m in list(alive):
                cl.corr += 1
                cl.s.sendall(heartbeat(cl.corr, group, m, epochs.get(m, 0), topic))
                err, data = answer(cl)
                if err == 0:
                    # ErrorMessage (null: 1 byte), MemberId, MemberEpoch
                    p = 11 + 1
                    n = data[p] - 1
                    p += 1 + n
                    epochs[m] = struct.unpack(">i", data[p:p + 4])[0]
                else:
                    epochs[m] = 0  # fenced: join again
                if stop.is_set():
                    break
            stop.wait(1.0)
        cl.close()

    def attack():
        t0 = time.monotonic()
        ts = [threading.Thread(target=flood, args=(k,)) for k in range(nconns)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        seen["join_s"] = round(time.monotonic() - t0, 2)
        seen["attack_worst_ms"] = int(worst[0] * 1000)
        stop = threading.Event()
        k = threading.Thread(target=keep, args=(stop,))
        k.start()
        time.sleep(wait)
        stop.set()
        k.join()
        seen["answers"] = dict(errors)
        return seen

    harness.run("group-members", attack,
                rss_mb=int(os.environ.get("RSS_MB", "160")),
                latency_ms=int(os.environ.get("LATENCY_MS", "250")))
    bad = {e: n for e, n in errors.items() if e not in (0, 81)}
    if bad:
        harness.fail("group-members: answers other than NONE and "
                     "GROUP_MAX_SIZE_REACHED: %r" % bad)
    harness.ok("group-members: %d joins answered %r" % (nmembers, errors))
    c.close()


if __name__ == "__main__":
    main()
