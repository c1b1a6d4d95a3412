#!/usr/bin/python3
"""Produce requests that are small on the wire and huge once inflated, sent
back to back on one connection while compat/attacks/harness.py measures the
broker (GR_BOOTSTRAP, GR_BROKER_PID):

  inflate.py legacy SECONDS LIMIT   Produce v2 of a magic-1 message set of
      eight gzip wrappers, each an inner message with a 200 MiB value
      (1.6 MB on the wire): the conversion to a v2 batch must stop at the
      bound and answer MESSAGE_TOO_LARGE.
  inflate.py zstd SECONDS LIMIT     Produce v7 of one zstd batch of 8 KB
      whose one record inflates to 250 MiB (MESSAGE_TOO_LARGE), alternating
      with one inflating to just under the bound, which is taken.

LIMIT is the broker's bound on what one request's records may inflate to,
in bytes (socket.request.max.bytes, unless the scenario sets another); 0
measures a broker without the bound (every answer is printed, none is
checked). Each request is answered before the next is sent: one client
cannot queue more. The well-behaved client's bounds are the scenario's
(RSS_MB, LATENCY_MS in the environment). Exit 0 or 1."""

import os
import struct
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

from kafka.protocol.produce import ProduceRequest  # noqa: E402
from kafka.record.util import calc_crc32c  # noqa: E402

MESSAGE_TOO_LARGE = 10
MIB = 1 << 20


def zigzag(v):
    v = (v << 1) ^ (v >> 63)
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zstd_frame(prefix, zeros):
    """A zstd frame of prefix (one raw block) then zeros bytes of 0 (RLE
    blocks of 128 KiB, 4 bytes each): 8 KB for 250 MiB."""
    out = bytearray(b"\x28\xb5\x2f\xfd")
    out += bytes([0x00, 7 << 3])  # no content size; window 128 KiB
    blocks = [(0, prefix)]
    left = zeros
    while left > 0:
        n = min(left, 128 << 10)
        blocks.append((1, n))
        left -= n
    for i, (kind, what) in enumerate(blocks):
        last = 1 if i == len(blocks) - 1 else 0
        size = len(what) if kind == 0 else what
        hdr = (size << 3) | (kind << 1) | last
        out += struct.pack("<I", hdr)[:3]
        out += what if kind == 0 else b"\x00"
    return bytes(out)


def zstd_batch(value_len):
    """A v2 batch (zstd) of one record with a value of value_len zero bytes
    and no key: record length, attributes, timestamp and offset deltas, key
    -1, value length, value, 0 headers (the headers' count is a zero byte
    too, so the RLE blocks carry it)."""
    body_head = b"\x00" + zigzag(0) + zigzag(0) + zigzag(-1) + zigzag(value_len)
    body_len = len(body_head) + value_len + 1
    payload = zstd_frame(zigzag(body_len) + body_head, value_len + 1)
    now = int(time.time() * 1000)
    after_crc = struct.pack(">hiqqqhii", 4, 0, now, now, -1, -1, -1, 1) + payload
    crc = calc_crc32c(after_crc)
    head = struct.pack(">iBI", -1, 2, crc)
    return struct.pack(">qi", 0, len(head) + len(after_crc)) + head + after_crc


def legacy_entry(attrs, value_len, value_crc):
    """The head of a magic-1 message at offset 0 (offset, size, crc, magic,
    attributes, timestamp, key -1, value length); its value follows.
    value_crc(crc) continues the CRC-32 over the value."""
    now = int(time.time() * 1000)
    head = struct.pack(">bbqii", 1, attrs, now, -1, value_len)
    crc = value_crc(zlib.crc32(head)) & 0xFFFFFFFF
    return struct.pack(">qiI", 0, 4 + len(head) + value_len, crc) + head


def gzip_wrapper(value_len):
    """A gzip wrapper whose inner set is one message of value_len zeros."""
    chunk = bytes(MIB)

    def zeros_crc(crc):
        for _ in range(value_len // MIB):
            crc = zlib.crc32(chunk, crc)
        return zlib.crc32(bytes(value_len % MIB), crc)

    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [z.compress(legacy_entry(0, value_len, zeros_crc))]
    for _ in range(value_len // MIB):
        out.append(z.compress(chunk))
    out.append(z.compress(bytes(value_len % MIB)))
    out.append(z.flush())
    gz = b"".join(out)
    return legacy_entry(1, len(gz), lambda crc: zlib.crc32(gz, crc)) + gz


def produce(c, ver, records, topic):
    if ver < 3:
        req = ProduceRequest[ver](required_acks=1, timeout=30000,
                                  topics=[(topic, [(0, records)])])
    else:
        req = ProduceRequest[ver](transactional_id=None, required_acks=1,
                                  timeout=30000,
                                  topics=[(topic, [(0, records)])])
    part = c.send(req).topics[0][1][0]
    return part[1]


def attack(kind, secs, limit):
    topic = "attack-%s-%d" % (kind, os.getpid())
    # The requests first, then the connection: gzipping 200 MiB takes 2.4 s
    # on an idle 2-core host and took 8 s in the soak, whose broker closes
    # a connection after 10 s without a request (connections.max.idle.ms),
    # as it did this one's before its first Produce
    t0 = time.monotonic()
    if kind == "legacy":
        wrapper = gzip_wrapper(200 * MIB)
        reqs = [(2, wrapper * 8, MESSAGE_TOO_LARGE)]
    else:
        under = (limit or 250 * MIB) - 64
        reqs = [(7, zstd_batch(250 * MIB), MESSAGE_TOO_LARGE),
                (7, zstd_batch(under), 0)]
    print("%s-inflate: requests built in %.1f s" % (kind, time.monotonic() - t0),
          flush=True)
    c = harness.Client("attacker", timeout=120)
    harness.wait_topic(c, topic)
    last = [time.monotonic()]  # the attacker's last answer
    sizes = [len(r[1]) for r in reqs]
    seen = {"attack_requests": 0, "attack_bytes": sum(sizes) // len(sizes)}
    answers = []

    def run():
        end = time.monotonic() + secs
        i = 0
        while True:
            ver, recs, _ = reqs[i % len(reqs)]
            try:
                answers.append(produce(c, ver, recs, topic))
            except (OSError, EOFError) as e:
                harness.fail("%s-inflate: request %d: %s: %s, %.1f s after "
                             "the connection's last answer"
                             % (kind, i, type(e).__name__, e,
                                time.monotonic() - last[0]))
            last[0] = time.monotonic()
            i += 1
            if time.monotonic() >= end:
                break
        seen["attack_requests"] = i
        seen["answers"] = ",".join(str(a) for a in sorted(set(answers)))
        return seen

    rss_mb = int(os.environ.get("RSS_MB", "64"))
    lat_ms = int(os.environ.get("LATENCY_MS", "250"))
    if limit == 0:  # the figures of a broker without the bound
        rss_mb, lat_ms = 1 << 20, 1 << 30
    harness.run("%s-inflate" % kind, run, rss_mb=rss_mb, latency_ms=lat_ms)
    if limit == 0:
        return
    for i, a in enumerate(answers):
        want = reqs[i % len(reqs)][2]
        if a != want:
            harness.fail("request %d (%d bytes) answered %d, want %d"
                         % (i, sizes[i % len(reqs)], a, want))
    harness.ok("%s-inflate: %d requests answered as Kafka would (%s)"
               % (kind, len(answers), seen["answers"]))
    c.close()


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("legacy", "zstd"):
        harness.fail("usage: inflate.py legacy|zstd SECONDS LIMIT")
    attack(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]))


if __name__ == "__main__":
    main()
