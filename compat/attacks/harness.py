#!/usr/bin/python3
"""The broker measured while one client attacks it (compat/attacks/).

An attack test imports this module and calls run():

    import harness
    harness.run("legacy-inflate", attack, rss_mb=64, latency_ms=250)

run() starts a well-behaved client on its own connection (Produce acks=1
of one small record, then Fetch of it back, then ApiVersions, every 10 ms),
resets the broker's peak RSS (/proc/PID/clear_refs), calls attack() (which
returns when the attack is over; what it returns, a dict, is printed),
stops the well-behaved client and checks:
  - the broker's peak RSS grew by at most rss_mb over what it held before
    (more on an ASan build: compat/sanitized.py);
  - every request of the well-behaved client was answered, none later than
    bound_ms(latency_ms) after it was sent: twice the stated bound plus
    twice the worst wait the same client saw in the second before the
    attack (what the machine itself costs: 2 cores shared with the attacker,
    the test and whatever else runs). Generous on purpose; the figures
    measured are printed, and every attack stalled the loop for far longer
    than that before its fix;
  - every record it was acknowledged reads back at its offset afterwards;
  - the broker is still alive.
One line per check starts with "ok:"; a failure prints "FAIL: ..." and exits
1. The figures go on one line "attack NAME: ..." for notes and RESULTS.

Environment: GR_BOOTSTRAP (host:port) and GR_BROKER_PID, as compat/lib.sh
sets them. Debian's python3-kafka 2.0.2 (protocol classes and record
builders) encodes the frames, through compat/kpy_raw.py.

With GR_SOAK=1 (compat/attacks/soak.py runs every attack at once) the RSS
and latency bounds are left to the soak, which checks their sum; every
other check stays.

`harness.py baseline [SECONDS]` runs the well-behaved client alone: the
figures without an attack, to read the others against."""

import io
import multiprocessing
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from kpy_raw import v2_batch, HOST, PORT  # noqa: E402
from sanitized import rss_bound_mib  # noqa: E402

from kafka.protocol.admin import ApiVersionRequest  # noqa: E402
from kafka.protocol.api import RequestHeader  # noqa: E402
from kafka.protocol.fetch import FetchRequest  # noqa: E402
from kafka.protocol.metadata import MetadataRequest  # noqa: E402
from kafka.protocol.produce import ProduceRequest  # noqa: E402
from kafka.record.memory_records import MemoryRecords  # noqa: E402

PID = int(os.environ["GR_BROKER_PID"])
NOISE_MS = 0.0  # the worst wait before the attack, set by run()


def bound_ms(ms):
    """The latency bound a check states as ms, made generous (see above);
    attack scripts use it for their own latency checks too."""
    return 2 * ms + 2 * NOISE_MS


def fail(msg):
    print("FAIL:", msg, flush=True)
    sys.exit(1)


def ok(msg):
    print("ok:", msg, flush=True)


def proc_status(field):
    """A field of /proc/PID/status in kB (VmRSS, VmHWM)."""
    with open("/proc/%d/status" % PID) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    fail("no %s in /proc/%d/status" % (field, PID))


def cpu_seconds():
    """User + system CPU seconds of the broker so far."""
    with open("/proc/%d/stat" % PID) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def reset_peak():
    """Makes VmHWM start again from the current RSS (Linux 4.0+)."""
    try:
        with open("/proc/%d/clear_refs" % PID, "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def alive():
    try:
        os.kill(PID, 0)
        return True
    except OSError:
        return False


class Client:
    """One connection speaking kafka-python's protocol classes; raises
    EOFError when the broker closes it, socket.timeout when it is silent."""

    def __init__(self, client_id="steady", timeout=10, host=None):
        self.s = socket.create_connection((host or HOST, int(PORT)), timeout=timeout)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.corr = 0
        self.client_id = client_id

    def frame(self, req):
        self.corr += 1
        hdr = RequestHeader(req, correlation_id=self.corr, client_id=self.client_id)
        body = hdr.encode() + req.encode()
        return struct.pack(">i", len(body)) + body

    def send(self, req):
        self.s.sendall(self.frame(req))
        size = struct.unpack(">i", self.read(4))[0]
        data = self.read(size)
        corr = struct.unpack(">i", data[:4])[0]
        if corr != self.corr:
            raise ValueError("correlation id %d, want %d" % (corr, self.corr))
        return req.RESPONSE_TYPE.decode(io.BytesIO(data[4:]))

    def read(self, n):
        return recv_exact(self.s, n)

    def close(self):
        self.s.close()


def recv_exact(s, n):
    """n bytes from socket s; EOFError when the broker closes it first."""
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed by the broker")
        buf += chunk
    return bytes(buf)


def send_request(s, req, corr, client_id="attacker"):
    """Writes kafka-python request req on socket s, framed, without
    reading the answer (attackers read it their own way)."""
    hdr = RequestHeader(req, correlation_id=corr, client_id=client_id)
    body = hdr.encode() + req.encode()
    s.sendall(struct.pack(">i", len(body)) + body)


def run_attackers(target, n):
    """target(i, q) in n processes, not threads (attackers must not hold
    the interpreter lock of the client that measures the broker), each
    putting (i, result) on q once: the results, in the order of i."""
    q = multiprocessing.Queue()
    ps = [multiprocessing.Process(target=target, args=(i, q))
          for i in range(n)]
    for p in ps:
        p.start()
    out = [None] * n
    for _ in ps:
        i, o = q.get()
        out[i] = o
    for p in ps:
        p.join()
    return out


def check_attackers(out):
    """Fails at the first result of run_attackers() that is missing or
    holds an "error"."""
    for i, o in enumerate(out):
        if o is None or "error" in o:
            fail("attacker %d: %s" % (i, o and o["error"]))


def fetch_req(topic, offset, max_bytes=1 << 20, wait_ms=0):
    return FetchRequest[4](-1, wait_ms, 1, max_bytes, 0,
                           [(topic, [(0, offset, max_bytes)])])


def records_of(partition):
    recs = MemoryRecords(partition[-1])
    out = []
    while True:
        batch = recs.next_batch()
        if batch is None:
            return out
        for r in batch:
            out.append((r.offset, r.value))


def wait_topic(c, topic, secs=10):
    """Metadata (auto-creating) until the topic has a leader."""
    end = time.time() + secs
    while time.time() < end:
        md = c.send(MetadataRequest[1](topics=[topic]))
        for t in md.topics:
            if t[1] == topic and t[0] == 0 and t[3] and t[3][0][0] == 0:
                return
        time.sleep(0.05)
    fail("topic %s has no leader after %d s" % (topic, secs))


class Steady(threading.Thread):
    """The well-behaved client: produce one record, fetch it back,
    ApiVersions, every 10 ms, timing each request."""

    def __init__(self, topic, host=None):
        super().__init__(daemon=True)
        self.topic = topic
        self.host = host
        self.c = Client("steady", timeout=30, host=host)
        wait_topic(self.c, topic)
        self.stop = threading.Event()
        self.lat = []          # (seconds, which request), one per request
        self.acked = {}        # offset -> value
        self.error = None

    def timed(self, what, req):
        t0 = time.monotonic()
        resp = self.c.send(req)
        self.lat.append((time.monotonic() - t0, what))
        return resp

    def run(self):
        i = 0
        try:
            while not self.stop.is_set():
                i += 1
                value = b"steady-%d" % i
                resp = self.timed("Produce", ProduceRequest[3](
                    transactional_id=None, required_acks=1, timeout=10000,
                    topics=[(self.topic, [(0, v2_batch([value]))])]))
                part = resp.topics[0][1][0]
                if part[1] != 0:
                    raise ValueError("Produce answered error %d" % part[1])
                self.acked[part[2]] = value
                resp = self.timed("Fetch", fetch_req(self.topic, part[2]))
                got = records_of(resp.topics[0][1][0])
                if not got or got[0] != (part[2], value):
                    raise ValueError("Fetch at %d gave %r, want %r"
                                     % (part[2], got[:1], value))
                self.timed("ApiVersions", ApiVersionRequest[0]())
                self.stop.wait(0.01)
        except Exception as e:  # recorded, reported by check()
            self.error = "%s: %s" % (type(e).__name__, e)

    def verify(self):
        """Every acknowledged record at its offset, read on a new connection."""
        c = Client("steady-verify", timeout=30, host=self.host)
        want = dict(self.acked)
        got = {}
        offset = 0
        end = max(want) + 1 if want else 0
        while offset < end:
            resp = c.send(fetch_req(self.topic, offset, 4 << 20))
            part = resp.topics[0][1][0]
            if part[1] != 0:
                fail("reading back at %d: error %d" % (offset, part[1]))
            recs = records_of(part)
            if not recs:
                fail("reading back: nothing at offset %d of %d" % (offset, end))
            for off, v in recs:
                got[off] = v
            offset = recs[-1][0] + 1
        c.close()
        lost = [o for o, v in want.items() if got.get(o) != v]
        if lost:
            fail("%d acknowledged records lost or changed, first at offset %d"
                 % (len(lost), min(lost)))
        return len(want)


def pct(xs, p):
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(len(s) * p))]


def run(name, attack, rss_mb, latency_ms, topic=None, steady_host=None,
        settle=0.3, asan_factor=2):
    """Runs attack() while the well-behaved client works; checks the bounds
    (see the module's comment). Returns the figures as a dict."""
    global NOISE_MS
    if not alive():
        fail("%s: the broker is not running" % name)
    steady = Steady(topic or "steady-%s-%d" % (name, os.getpid()), steady_host)
    steady.start()
    time.sleep(settle)
    n_noise = len(steady.lat)
    time.sleep(1.0)
    NOISE_MS = max([dt for dt, _ in steady.lat[n_noise:]] or [0.0]) * 1000
    limit_ms = bound_ms(latency_ms)
    rss0 = proc_status("VmRSS")
    exact_peak = reset_peak()
    cpu0 = cpu_seconds()
    t0 = time.monotonic()
    peak = [rss0]
    sampling = threading.Event()

    def sample():  # in case clear_refs is refused: the RSS every 5 ms
        while not sampling.is_set():
            try:
                peak[0] = max(peak[0], proc_status("VmRSS"))
            except (OSError, SystemExit):
                return
            sampling.wait(0.005)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    n_before = len(steady.lat)
    try:
        seen = attack() or {}
    finally:
        secs = time.monotonic() - t0
        time.sleep(settle)
        sampling.set()
        sampler.join()
        steady.stop.set()
        steady.join(60)
    if not alive():
        fail("%s: the broker died during the attack" % name)
    cpu = cpu_seconds() - cpu0
    if exact_peak:
        peak[0] = max(peak[0], proc_status("VmHWM"))
    grew = (peak[0] - rss0) / 1024.0
    lat = [dt for dt, _ in steady.lat[n_before:]]
    worst = max(steady.lat[n_before:] or [(0.0, "")])
    figures = {"rss_before_mib": round(rss0 / 1024.0, 1),
               "rss_peak_mib": round(peak[0] / 1024.0, 1),
               "rss_growth_mib": round(grew, 1),
               "steady_requests": len(lat),
               "steady_worst_ms": round(worst[0] * 1000, 1),
               "steady_p99_ms": round(pct(lat, 0.99) * 1000, 1),
               "steady_over_500ms": len([dt for dt in lat if dt > 0.5]),
               "noise_worst_ms": round(NOISE_MS, 1),
               "attack_s": round(secs, 2),
               "broker_cpu_s": round(cpu, 2)}
    figures.update(seen)
    print("attack %s: %s" % (name, " ".join("%s=%s" % kv for kv in figures.items())),
          flush=True)
    if steady.error:
        fail("%s: the well-behaved client failed: %s" % (name, steady.error))
    if steady.is_alive():
        fail("%s: the well-behaved client is stuck in a request" % name)
    if not lat:
        fail("%s: the well-behaved client got no answer during the attack" % name)
    if os.environ.get("GR_SOAK") == "1":
        # run by soak.py beside the other attacks: their sum is bounded there
        ok("%s: peak RSS +%.1f MiB, worst %.1f ms (bounded by the soak)"
           % (name, grew, worst[0] * 1000))
        ok("%s: all %d acknowledged records read back" % (name, steady.verify()))
        return figures
    bound, why = rss_bound_mib(PID, rss_mb, asan_factor)
    if grew > bound:
        fail("%s: the broker's RSS grew by %.1f MiB (bound %d MiB%s)" % (name, grew, bound, why))
    ok("%s: peak RSS +%.1f MiB over %.1f MiB (bound %d MiB%s)"
       % (name, grew, rss0 / 1024.0, bound, why))
    if worst[0] * 1000 > limit_ms:
        fail("%s: a well-behaved %s waited %.0f ms (bound %d ms: 2 x %d + 2 x "
             "%.0f before the attack)" % (name, worst[1], worst[0] * 1000,
                                          limit_ms, latency_ms, NOISE_MS))
    ok("%s: well-behaved client: %d requests in %.1f s, worst %.1f ms (%s), "
       "p99 %.1f ms (bound %d ms: 2 x %d + 2 x %.0f before the attack)"
       % (name, len(lat), secs, worst[0] * 1000, worst[1] or "-",
          pct(lat, 0.99) * 1000, limit_ms, latency_ms, NOISE_MS))
    n = steady.verify()
    ok("%s: all %d acknowledged records read back" % (name, n))
    return figures


def main():
    if len(sys.argv) < 2 or sys.argv[1] != "baseline":
        fail("usage: harness.py baseline [SECONDS]")
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    run("baseline", lambda: time.sleep(secs) or {}, rss_mb=16, latency_ms=250)


if __name__ == "__main__":
    main()
