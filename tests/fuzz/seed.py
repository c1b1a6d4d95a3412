#!/usr/bin/python3
"""Writes seed inputs for the fuzz targets into tests/fuzz/corpus/<target>/
from real traffic and real files (Python 3 standard library only):

  request   request frames dumped by `gregor --dump-frames` during a compat
            run (GREGOR_DUMP_FRAMES=dir compat/run.sh); responses become
            0xff key ver body inputs
  records   the first batches of partition logs the compat run left
            (KEEP_TMP=1 COMPAT_TMP=dir) and tests/data/records/
  compress  the payloads of compressed batches of those logs, and the small
            vectors of tests/data/compress/
  segment   those logs' .log/.index/.timeindex, clean and unclean
  broker    the dumped request frames with their size, one by one and as a
            session (Metadata, then Produce, Fetch, ListOffsets)

Usage: tests/fuzz/seed.py BUILD_DIR [DUMP_DIR] [COMPAT_TMP]
(BUILD_DIR for src/proto/gen/proto_table.c: which versions are flexible).
The seeds are then minimised with `FUZZ_MERGE=1 tests/fuzz/run.sh 0`.
"""
import glob
import hashlib
import os
import re
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))
corpus = os.path.join(here, "corpus")
LIMIT = 8192


def put(target, data):
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def flex_versions(build):
    flex = {}
    keys = {}
    src = open(os.path.join(build, "src/proto/gen/proto_table.c")).read()
    for m in re.finditer(r'\{ (\d+), "(\w+)", (-?\d+), (-?\d+), (-?\d+), (-?\d+),', src):
        key, name, fv = int(m.group(1)), m.group(2), int(m.group(6))
        flex[name] = fv
        keys[name] = key
    return flex, keys


def broker_seeds(dump):
    session = b""
    for api in ("ApiVersions", "Metadata", "Produce", "Fetch", "ListOffsets"):
        for path in sorted(glob.glob(os.path.join(dump, api, "v*.req.bin"))):
            data = open(path, "rb").read()
            framed = struct.pack(">i", len(data)) + data
            put("broker", framed)
            if len(session) + len(framed) <= 60000:
                session += framed
    put("broker", session)


def frames(dirs, flex, keys):
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*", "v*.*.bin"))):
            api = os.path.basename(os.path.dirname(path))
            ver, kind = os.path.basename(path).split(".")[:2]
            ver = int(ver[1:])
            data = open(path, "rb").read()
            if kind == "req":
                put("request", data)
            elif api in keys:
                fv = flex[api]
                hdr = 4 + (1 if fv >= 0 and ver >= fv and api != "ApiVersions" else 0)
                put("request", bytes([0xFF, keys[api], ver]) + data[hdr:])


def batches(data, limit):
    out, pos = [], 0
    while pos + 61 <= len(data) and len(out) < limit:
        length = struct.unpack(">i", data[pos + 8:pos + 12])[0]
        size = length + 12
        if length < 49 or pos + size > len(data):
            break
        out.append(data[pos:pos + size])
        pos += size
    return out


def logs(tmp):
    for path in sorted(glob.glob(os.path.join(tmp, "*", "data", "*-*", "*.log"))):
        if os.path.getsize(path) > 0:
            yield path


def from_logs(tmp):
    seen_codecs = {}
    for path in logs(tmp):
        data = open(path, "rb").read()
        bs = [b for b in batches(data, 8) if len(b) <= LIMIT]
        if not bs:
            continue
        put("records", bytes([0, 7]) + bs[0])
        put("records", bytes([2, 2]) + b"".join(bs[:3]))
        for b in bs[:2]:
            codec = struct.unpack(">h", b[21:23])[0] & 7
            if codec and seen_codecs.get(codec, 0) < 3 and len(b) < LIMIT:
                seen_codecs[codec] = seen_codecs.get(codec, 0) + 1
                put("compress", bytes([codec, 0]) + b[61:])
        # a segment: the first batches, their index entries
        keep = b""
        for b in bs:
            if len(keep) + len(b) > LIMIT:
                break
            keep += b
        if not keep:
            continue
        base = path[:-4]
        idx = open(base + ".index", "rb").read() if os.path.exists(base + ".index") else b""
        tidx = open(base + ".timeindex", "rb").read() if os.path.exists(base + ".timeindex") else b""
        idx, tidx = idx[:512], tidx[:512]
        for flags in (0, 1):
            put("segment", bytes([flags, 1]) + struct.pack(">HH", len(idx), len(tidx)) + b"\x00" + idx + tidx + keep)
        put("segment", bytes([2, 255]) + struct.pack(">HH", 0, 0) + b"\x01" + keep + keep)


def main():
    build = sys.argv[1]
    flex, keys = flex_versions(build)
    # the golden frames of tests/data/wire/ are replayed from there (their
    # requests; replay.c) and seed the fuzzer from there (run.sh)
    dirs = []
    if len(sys.argv) > 2:
        dirs.append(sys.argv[2])
    frames(dirs, flex, keys)
    if len(sys.argv) > 2:
        broker_seeds(sys.argv[2])
    for path in sorted(glob.glob(os.path.join(top, "tests/data/records/*.bin"))):
        data = open(path, "rb").read()
        put("records", bytes([0, 2 if "/m" in path else 3]) + data)
    codecs = {"gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4, "plain": 0}
    for path in sorted(glob.glob(os.path.join(top, "tests/data/compress/*"))):
        name = os.path.basename(path)
        codec = codecs.get(name.split("_")[0].split(".")[0])
        if codec is None or os.path.getsize(path) > LIMIT:
            continue
        put("compress", bytes([codec, 64 if "bomb" in name else 0]) + open(path, "rb").read())
    if len(sys.argv) > 3:
        from_logs(sys.argv[3])


main()
