#!/usr/bin/python3
"""Raw-socket checks of framing and dispatch against a running gregor
(GR_BOOTSTRAP): truncated, oversized, negative-size, garbage and
unknown-API frames close only their own connection; the broker keeps serving
others; pipelined requests are answered in order; ApiVersions above the
served range gets a v0-form UNSUPPORTED_VERSION answer. Standard library
only. Exit 0 on success, 1 with a message on failure."""

import os
import socket
import struct
import sys

HOST, PORT = os.environ["GR_BOOTSTRAP"].rsplit(":", 1)
PORT = int(PORT)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def conn():
    s = socket.create_connection((HOST, PORT), timeout=5)
    s.settimeout(5)
    return s


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return buf


def request(key, ver, corr, body=b"", client=b"compat"):
    hdr = struct.pack(">hhih", key, ver, corr, len(client)) + client
    if key == 18 and ver >= 3:
        hdr += b"\x00"  # header v2 tag section
    msg = hdr + body
    return struct.pack(">i", len(msg)) + msg


def read_response(s):
    (size,) = struct.unpack(">i", recv_exact(s, 4))
    return recv_exact(s, size)


def api_versions_v0(s, corr):
    s.sendall(request(18, 0, corr))
    r = read_response(s)
    c, err, n = struct.unpack(">ihi", r[:10])
    if c != corr or err != 0:
        fail("ApiVersions v0: corr %d err %d" % (c, err))
    keys = {}
    for i in range(n):
        k, lo, hi = struct.unpack(">hhh", r[10 + 6 * i:16 + 6 * i])
        keys[k] = (lo, hi)
    return keys


def expect_closed(s, what):
    try:
        data = s.recv(100)
    except socket.timeout:
        fail("%s: connection not closed" % what)
    except ConnectionResetError:
        return
    if data:
        fail("%s: got %r instead of a close" % (what, data[:20]))


def still_serving(what):
    s = conn()
    keys = api_versions_v0(s, 99)
    s.close()
    if 18 not in keys:
        fail("%s: broker no longer serving" % what)


def main():
    # a healthy connection held open through all the abuse
    keeper = conn()
    keys = api_versions_v0(keeper, 1)
    if keys.get(18) != (0, 5):
        fail("ApiVersions range %r, want (0, 5)" % (keys.get(18),))
    if keys.get(3, (9, 9))[0] != 0:
        fail("Metadata must be served from v0")

    # truncated: size says 100, 10 bytes follow, then the client vanishes
    s = conn()
    s.sendall(struct.pack(">i", 100) + b"x" * 10)
    s.close()
    still_serving("truncated frame")

    # oversized: beyond socket.request.max.bytes
    s = conn()
    s.sendall(struct.pack(">i", 0x7FFFFFF0) + b"\x00" * 16)
    expect_closed(s, "oversized frame")
    s.close()

    # negative size
    s = conn()
    s.sendall(struct.pack(">i", -5) + b"\x00" * 8)
    expect_closed(s, "negative size")
    s.close()

    # garbage body: too short for a header
    s = conn()
    s.sendall(struct.pack(">i", 3) + b"\xff\xfe\xfd")
    expect_closed(s, "garbage header")
    s.close()

    # unknown api key
    s = conn()
    s.sendall(request(9999, 0, 5))
    expect_closed(s, "unknown api key")
    s.close()

    # unsupported version of a served api
    s = conn()
    s.sendall(request(3, 99, 6))
    expect_closed(s, "Metadata v99")
    s.close()

    # a served api with an undecodable body (Metadata v1: array count 5, no
    # elements)
    s = conn()
    s.sendall(request(3, 1, 7, struct.pack(">i", 5)))
    expect_closed(s, "undecodable body")
    s.close()

    # ApiVersions above the served range: v0-encoded UNSUPPORTED_VERSION
    # with the ApiVersions range, header v0
    s = conn()
    s.sendall(request(18, 77, 8, b"\x00\x00"))
    r = read_response(s)
    c, err, n = struct.unpack(">ihi", r[:10])
    if c != 8 or err != 35 or n != 1:
        fail("ApiVersions v77: corr %d err %d n %d" % (c, err, n))
    k, lo, hi = struct.unpack(">hhh", r[10:16])
    if (k, lo, hi) != (18, 0, 5) or len(r) != 16:
        fail("ApiVersions v77 body %r" % r)
    s.close()

    # pipelined, as kafka-python probes: ApiVersions v0 + Metadata v0 in
    # one write, answered in order
    s = conn()
    s.sendall(request(18, 0, 100) + request(3, 0, 101, struct.pack(">i", 0)))
    r1 = read_response(s)
    r2 = read_response(s)
    if struct.unpack(">i", r1[:4])[0] != 100 or \
            struct.unpack(">i", r2[:4])[0] != 101:
        fail("pipelined responses out of order")
    # 200 pipelined Metadata v1 (no topics) in one write
    burst = b"".join(request(3, 1, 1000 + i, struct.pack(">i", 0))
                     for i in range(200))
    s.sendall(burst)
    for i in range(200):
        c = struct.unpack(">i", read_response(s)[:4])[0]
        if c != 1000 + i:
            fail("pipelined response %d has correlation id %d" % (i, c))
    s.close()

    # a frame delivered one byte at a time
    s = conn()
    for b in request(18, 0, 300):
        s.send(bytes([b]))
    c = struct.unpack(">i", read_response(s)[:4])[0]
    if c != 300:
        fail("byte-by-byte frame: corr %d" % c)
    s.close()

    # the first connection is still fine
    api_versions_v0(keeper, 2)
    keeper.close()
    print("ok")


if __name__ == "__main__":
    main()
