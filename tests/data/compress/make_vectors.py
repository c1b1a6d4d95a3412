#!/usr/bin/python3
"""Makes the compression test vectors in this folder (see README.txt).

Run once by hand on Debian 12 with python3-kafka, python3-snappy,
python3-lz4, python3-xxhash, python3-zstandard and the gzip, lz4 and zstd
command-line tools; the unit tests only read the files it wrote. Every
encoder here is independent of Gregor's compress.c."""
import gzip
import random
import struct
import subprocess
import sys

import kafka.codec as kc
import lz4.block
import lz4.frame
import snappy
import xxhash
import zstandard

OUT = sys.argv[1] if len(sys.argv) > 1 else "."


def put(name, data):
    with open(f"{OUT}/{name}", "wb") as f:
        f.write(data)


def tool(args, data):
    return subprocess.run(args, input=data, stdout=subprocess.PIPE,
                          check=True).stdout


# plain.bin: 65536 bytes of JSON-like lines (one LZ4 block exactly), then
# 3000 pseudo-random bytes (an incompressible second block).
lines = []
i = 0
while sum(map(len, lines)) < 65536:
    lines.append(('{"id":%d,"user":"user%d","event":"%s","ts":%d}\n' %
                  (i, i * 7919 % 1000, ("click", "view", "buy")[i % 3],
                   1700000000000 + i * 37)).encode())
    i += 1
text = b"".join(lines)[:65536]
rng = random.Random(20240601)
plain = text + bytes(rng.getrandbits(8) for _ in range(3000))
put("plain.bin", plain)

# gzip
put("gzip_python.gz", gzip.compress(plain, compresslevel=6, mtime=0))
put("gzip_cli.gz", tool(["gzip", "-9", "-n", "-c"], plain))
put("gzip_two_members.gz",
    gzip.compress(plain[:40000], mtime=0) + gzip.compress(plain[40000:], mtime=0))
put("gzip_bomb.gz", gzip.compress(bytes(8 << 20), compresslevel=9, mtime=0))

# snappy
put("snappy_xerial.bin", kc.snappy_encode(plain, xerial_compatible=True))
put("snappy_raw.bin", snappy.compress(plain))

# lz4
put("lz4_kafka_python.bin", kc.lz4_encode(plain))
put("lz4_kafka_python_old.bin", kc.lz4_encode_old_kafka(plain))


def java_style(data, broken):
    """An LZ4 frame as Kafka's Java Lz4BlockOutputStream writes it: FLG 0x60
    (version 1, independent blocks), BD 0x40 (64 KiB), HC, blocks of at
    most 64 KiB compressed at level 9 (LZ4 HC) or stored raw (high bit of
    the size) when that is not smaller, then a zero end mark."""
    hdr = b"\x04\x22\x4d\x18\x60\x40"
    h = xxhash.xxh32(hdr if broken else hdr[4:]).intdigest()
    out = [hdr, bytes([(h >> 8) & 0xFF])]
    for off in range(0, len(data), 65536):
        blk = data[off:off + 65536]
        c = lz4.block.compress(blk, mode="high_compression", compression=9,
                               store_size=False)
        if len(c) >= len(blk):
            out += [struct.pack("<I", len(blk) | 0x80000000), blk]
        else:
            out += [struct.pack("<I", len(c)), c]
    out.append(b"\0\0\0\0")
    return b"".join(out)


put("lz4_java_style.bin", java_style(plain, False))
put("lz4_java_style_broken_hc.bin", java_style(plain, True))

# Content size and dictionary id present: the header checksum covers 18
# bytes of header with the magic (the "broken" one), more than one XXH32
# stripe.
f = lz4.frame.compress(plain, block_linked=False, store_size=True)
assert f[4] & 0x08 and not f[4] & 0x01
hdr = bytes([f[0], f[1], f[2], f[3], f[4] | 0x01, f[5]]) + f[6:14] + \
    b"\x11\x22\x33\x44"
h = xxhash.xxh32(hdr).intdigest()
put("lz4_csize_dictid_broken_hc.bin", hdr + bytes([(h >> 8) & 0xFF]) + f[15:])

put("lz4_cli.bin", tool(["lz4", "-q", "-c"], plain))
put("lz4_cli_linked.bin",
    tool(["lz4", "-q", "-c", "-B4", "-BD", "--content-size", "-9"], plain))

# zstd
put("zstd_cli.zst", tool(["zstd", "-q", "-3", "-c"], plain))
put("zstd_python.zst", kc.zstd_encode(plain))
put("zstd_stream.zst",
    zstandard.ZstdCompressor(level=3, write_content_size=False)
    .compress(plain))
put("zstd_two_frames.zst",
    tool(["zstd", "-q", "-c"], plain[:30000]) +
    tool(["zstd", "-q", "-c"], plain[30000:]))
put("zstd_window27.zst", tool(["zstd", "-q", "--long=27", "-c", "-"], plain))
put("zstd_window30.zst", tool(["zstd", "-q", "--long=30", "-c", "-"], plain))
put("zstd_bomb.zst", tool(["zstd", "-q", "-19", "-c"], bytes(64 << 20)))
