#!/usr/bin/python3
"""Writes record-batch test vectors with kafka-python's record builders
(Debian python3-kafka 2.0.2) as the independent encoder:

  v2_none.bin, v2_gzip.bin   one magic-2 batch of 5 records (keys k0..k4,
                             values v0..v4, timestamps 1600000000000+i,
                             a header h=x on record 2), base offset 0
  m0_none.bin, m0_gzip.bin   magic-0 message sets of the same 5 records
  m1_none.bin, m1_gzip.bin   magic-1 message sets, with the timestamps

Run: /usr/bin/python3 tests/data/records/gen.py (from anywhere)."""
import os

from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder

here = os.path.dirname(os.path.abspath(__file__))
TS = 1600000000000


def v2(codec):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=codec,
                                  is_transactional=False, producer_id=-1,
                                  producer_epoch=-1, base_sequence=-1,
                                  batch_size=1 << 20)
    for i in range(5):
        b.append(i, timestamp=TS + i, key=b"k%d" % i, value=b"v%d" % i,
                 headers=[("h", b"x")] if i == 2 else [])
    return bytes(b.build())


def legacy(magic, codec):
    b = LegacyRecordBatchBuilder(magic=magic, compression_type=codec,
                                 batch_size=1 << 20)
    for i in range(5):
        b.append(i, timestamp=TS + i if magic else None, key=b"k%d" % i,
                 value=b"v%d" % i)
    return bytes(b.build())


for name, data in [("v2_none", v2(0)), ("v2_gzip", v2(1)),
                   ("m0_none", legacy(0, 0)), ("m0_gzip", legacy(0, 1)),
                   ("m1_none", legacy(1, 0)), ("m1_gzip", legacy(1, 1))]:
    with open(os.path.join(here, name + ".bin"), "wb") as f:
        f.write(data)
