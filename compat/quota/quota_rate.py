"""compat/quota/quota_rate.py: a client quota holds a client's rate.

  quota_rate.py produce BOOTSTRAP TOPIC CLIENT_ID QUOTA SECONDS
  quota_rate.py consume BOOTSTRAP TOPIC CLIENT_ID QUOTA SECONDS
  quota_rate.py fill BOOTSTRAP TOPIC BYTES
  quota_rate.py free BOOTSTRAP TOPIC CLIENT_ID BYTES MIN_RATE

confluent-kafka (its own librdkafka). produce/consume run flat out for
SECONDS under client.id CLIENT_ID and measure the bytes of record values
acknowledged (or consumed) a second (see WARM): that rate must be within
10 % of QUOTA; the client must have
seen a throttle time (librdkafka's statistics: brokers.*.throttle.max).
fill writes BYTES of records with a client id no quota holds; free
produces BYTES under CLIENT_ID (no quota) while a throttled client runs
and must reach MIN_RATE bytes a second. Exit 0 or 1 with a "# FAIL" line.
QUOTA_SASL=MECH:USER:PASSWORD: the clients log in as USER over
SASL_PLAINTEXT (a quota on the user principal).
"""
import json
import os
import sys
import time

from confluent_kafka import Consumer, Producer

VALUE = b"q" * 1000
# Kafka's rate lets a window's worth through at once (Rate.windowSize is at
# least quota.window.num - 1 samples), and again each time the samples of
# that burst expire, a window (quota.window.num x quota.window.size.seconds)
# later; between bursts each request waits its throttle time. The quota
# holds over whole windows, not over any second: the scenario runs with
# quota.window.num=3 (a 3 s period), and the rate measured is the slope of
# the bytes acknowledged (consumed) against time, by least squares, from
# the end of the first period to the end of the run: bursts and waits
# average out over the periods in between.
WARM = 3.0


def login(conf):
    """conf, with QUOTA_SASL's SASL settings when it is set."""
    if os.environ.get("QUOTA_SASL"):
        mech, user, pw = os.environ["QUOTA_SASL"].split(":", 2)
        conf.update({"security.protocol": "SASL_PLAINTEXT",
                     "sasl.mechanisms": mech, "sasl.username": user,
                     "sasl.password": pw})
    return conf


def slope(points):
    """Least-squares slope of cumulative bytes over time, bytes a second."""
    n = len(points)
    if n < 2:
        return 0.0
    mt = sum(t for t, _ in points) / n
    mb = sum(b for _, b in points) / n
    num = sum((t - mt) * (b - mb) for t, b in points)
    den = sum((t - mt) ** 2 for t, _ in points)
    return num / den if den > 0 else 0.0


def stats_cb(seen):
    def cb(s):
        d = json.loads(s)
        for b in d.get("brokers", {}).values():
            t = b.get("throttle", {})
            if t.get("max", 0) > seen[0]:
                seen[0] = t["max"]
    return cb


def produce(bootstrap, topic, cid, quota, seconds):
    seen = [0]
    done = []  # (time, bytes) of each acknowledgement
    p = Producer(login({"bootstrap.servers": bootstrap, "client.id": cid,
                        "linger.ms": 5, "acks": 1, "batch.size": 16384,
                        "statistics.interval.ms": 500,
                        "stats_cb": stats_cb(seen),
                        "queue.buffering.max.kbytes": 1024}))

    def dr(err, msg):
        if err is None:
            done.append((time.monotonic(), len(msg.value())))
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        try:
            p.produce(topic, VALUE, callback=dr)
        except BufferError:
            p.poll(0.01)
            continue
        p.poll(0)
    p.flush(30)
    return report("produce", t0, seconds, done, quota, seen[0])


def consume(bootstrap, topic, cid, quota, seconds):
    seen = [0]
    done = []
    c = Consumer(login({"bootstrap.servers": bootstrap, "client.id": cid,
                        "group.id": "quota-" + cid, "auto.offset.reset": "earliest",
                        "enable.auto.commit": False,
                        # answers of 32 KiB at most: a throttled Fetch is answered
                        # empty, its bytes taken back, so answers much larger
                        # than the quota allows at a time waste their waits
                        "fetch.max.bytes": 32768,
                        "max.partition.fetch.bytes": 32768,
                        "message.max.bytes": 32768,
                        "statistics.interval.ms": 500,
                        "stats_cb": stats_cb(seen)}))
    c.subscribe([topic])
    t0 = None
    while t0 is None or time.monotonic() - t0 < seconds:
        m = c.poll(0.5)
        if m is None or m.error():
            continue
        now = time.monotonic()
        if t0 is None:
            t0 = now  # from the first record: the group has formed
        done.append((now, len(m.value())))
    c.poll(0.5)  # the last statistics
    c.close()
    return report("consume", t0, seconds, done, quota, seen[0])


def report(what, t0, seconds, done, quota, throttle_max):
    ok = True
    total = sum(b for _, b in done)
    cum, pts = 0, []
    for t, b in done:
        cum += b
        if WARM <= t - t0 <= seconds:
            pts.append((t - t0, cum))
    rate = slope(pts)
    print("# %s: %d bytes in %.0f s; %.0f bytes/s from %.0f s to %.0f s "
          "(quota %d); largest throttle_time_ms seen %d"
          % (what, total, seconds, rate, WARM, seconds, quota, throttle_max))
    if abs(rate - quota) > 0.10 * quota:
        print("# FAIL: %s rate %.0f is not within 10 %% of %d"
              % (what, rate, quota))
        ok = False
    if throttle_max <= 0:
        print("# FAIL: %s: the client saw no throttle time" % what)
        ok = False
    return ok


def fill(bootstrap, topic, nbytes):
    # batches of 16 KiB, as produce's: a batch larger than a window's
    # worth (quota x (quota.window.num - 1) s) would be throttled forever,
    # as Kafka throttles it: a Fetch always carries its first batch whole
    p = Producer(login({"bootstrap.servers": bootstrap, "client.id": "quota-fill",
                        "linger.ms": 5, "batch.size": 16384}))
    for _ in range(nbytes // len(VALUE)):
        while True:
            try:
                p.produce(topic, VALUE)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    return p.flush(60) == 0


def free(bootstrap, topic, cid, nbytes, min_rate):
    n = [0]
    p = Producer(login({"bootstrap.servers": bootstrap, "client.id": cid,
                        "linger.ms": 5}))

    def dr(err, msg):
        if err is None:
            n[0] += len(msg.value())
    t0 = time.monotonic()
    for _ in range(nbytes // len(VALUE)):
        while True:
            try:
                p.produce(topic, VALUE, callback=dr)
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    p.flush(60)
    el = time.monotonic() - t0
    rate = n[0] / el
    print("# %s (no quota): %d bytes in %.2f s, %.0f bytes/s" % (cid, n[0], el, rate))
    if n[0] < nbytes - len(VALUE) or rate < min_rate:
        print("# FAIL: %s was slowed: %.0f bytes/s < %d" % (cid, rate, min_rate))
        return False
    return True


def main(a):
    if a[0] == "produce":
        return produce(a[1], a[2], a[3], int(a[4]), float(a[5]))
    if a[0] == "consume":
        return consume(a[1], a[2], a[3], int(a[4]), float(a[5]))
    if a[0] == "fill":
        return fill(a[1], a[2], int(a[3]))
    if a[0] == "free":
        return free(a[1], a[2], a[3], int(a[4]), int(a[5]))
    raise SystemExit("unknown command " + a[0])


if __name__ == "__main__":
    sys.exit(0 if main(sys.argv[1:]) else 1)
