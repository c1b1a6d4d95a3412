"""How long a group of confluent-kafka (librdkafka 2.16) members takes to
rebalance, by protocol (GR_BOOTSTRAP; a figure, not a pass/fail bound
beyond a minute):

  ck_rebalance.py PROTOCOL N PARTS

PROTOCOL is consumer (KIP-848, the broker's assignor), cooperative
(classic, cooperative-sticky) or eager (classic, range). N members in one
process subscribe to a fresh topic of PARTS partitions; the figures, in
seconds, are until the group is balanced (every partition owned by one
member, shares within one of each other):
  form    the N subscribe at once
  join    an (N+1)th member joins the balanced N
  leave   that member closes (from the start of its close)
with, for join and leave, how many partitions changed hands (revoked
from a member that was still there) and the longest any partition went
unowned. Prints one line: PROTOCOL N PARTS form join leave moved gap.
"""
import sys
import time

from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient, NewTopic

from common import BOOT, fail, say


class Member:
    def __init__(self, name, group, topic, protocol):
        conf = {"bootstrap.servers": BOOT, "group.id": group, "client.id": name,
                "auto.offset.reset": "earliest", "enable.auto.commit": False}
        if protocol == "consumer":
            conf["group.protocol"] = "consumer"
        else:
            conf["group.protocol"] = "classic"
            conf["partition.assignment.strategy"] = (
                "cooperative-sticky" if protocol == "cooperative" else "range")
            conf["session.timeout.ms"] = 45000
            conf["heartbeat.interval.ms"] = 3000
        self.c = Consumer(conf)
        self.revoked = 0
        self.c.subscribe([topic], on_revoke=self._revoke)

    def _revoke(self, c, parts):
        self.revoked += len(parts)

    def parts(self):
        return [p.partition for p in self.c.assignment()]


def balanced(ms, nparts):
    got = [m.parts() for m in ms]
    flat = sorted(p for g in got for p in g)
    return flat == list(range(nparts)) and \
        max(map(len, got)) - min(map(len, got)) <= 1


def settle(ms, nparts, what, t0=None, limit=60):
    """Polls every member until balanced; the seconds it took (since t0)
    and the longest a partition went unowned meanwhile."""
    t0 = t0 or time.monotonic()
    unowned = {}  # partition -> since
    gap = 0.0
    while time.monotonic() - t0 < limit:
        for m in ms:
            m.c.poll(0)
        now = time.monotonic()
        owned = {p for m in ms for p in m.parts()}
        for p in range(nparts):
            if p in owned:
                if p in unowned:
                    gap = max(gap, now - unowned.pop(p))
            else:
                unowned.setdefault(p, now)
        if balanced(ms, nparts):
            for since in unowned.values():
                gap = max(gap, now - since)
            return now - t0, gap
        time.sleep(0.005)
    fail("%s: not balanced after %d s: %r" % (what, limit, [m.parts() for m in ms]))


def main():
    protocol, n, nparts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if protocol not in ("consumer", "cooperative", "eager"):
        fail("protocol: consumer, cooperative or eager")
    tag = "%s-%d-%d" % (protocol, n, int(time.time() * 1000) % 100000)
    topic, group = "rb-" + tag, "rbg-" + tag
    a = AdminClient({"bootstrap.servers": BOOT})
    for f in a.create_topics([NewTopic(topic, nparts, 1)]).values():
        f.result()
    time.sleep(1)
    ms = [Member("m%d" % i, group, topic, protocol) for i in range(n)]
    form, _ = settle(ms, nparts, "form")
    before = sum(m.revoked for m in ms)
    new = Member("m%d" % n, group, topic, protocol)
    join, gap_j = settle(ms + [new], nparts, "join")
    moved_j = sum(m.revoked for m in ms) - before
    before = sum(m.revoked for m in ms)
    t0 = time.monotonic()  # the close (its leave) counts
    new.c.close()
    leave, gap_l = settle(ms, nparts, "leave", t0)
    moved_l = sum(m.revoked for m in ms) - before
    say("%s members=%d partitions=%d form=%.2f join=%.2f leave=%.2f "
        "moved_join=%d moved_leave=%d unowned_max=%.2f"
        % (protocol, n, nparts, form, join, leave, moved_j, moved_l,
           max(gap_j, gap_l)))
    for m in ms:
        m.c.close()


if __name__ == "__main__":
    main()
