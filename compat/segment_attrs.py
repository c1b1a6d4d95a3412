#!/usr/bin/python3
"""segment_attrs.py FILE CODEC LOG_APPEND_TIME: checks every record batch in
a segment file has the given codec (0-4) and timestamp type (1 for
LogAppendTime, 0 for CreateTime), and that the file is whole batches of
magic 2. Exit 0 or 1."""
import struct
import sys

path, codec, lat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
pos = n = 0
while pos < len(data):
    if pos + 61 > len(data):
        sys.exit("truncated batch header at %d" % pos)
    length = struct.unpack(">i", data[pos + 8:pos + 12])[0]
    magic = data[pos + 16]
    attrs = struct.unpack(">h", data[pos + 21:pos + 23])[0]
    if magic != 2:
        sys.exit("batch at %d has magic %d" % (pos, magic))
    if attrs & 7 != codec or bool(attrs & 8) != bool(lat):
        sys.exit("batch at %d: attributes %#x, want codec %d, log append "
                 "time %d" % (pos, attrs, codec, lat))
    pos += 12 + length
    n += 1
if n == 0:
    sys.exit("no batches in " + path)
print(n, "batches: codec", codec, "log append time", lat)
