#!/usr/bin/python3
"""Golden frames from kafka-python's protocol classes.

Writes tests/data/wire/<Api>/v<N>.req.bin and v<N>.resp.bin for every
Request_vN / Response_vN class that kafka-python (Debian's python3-kafka
2.0.2) defines, so that tests/unit/proto/check_vectors.c can check Gregor's
generated codecs against an encoder that is not ours.

Each message is filled by walking the class's SCHEMA with deterministic,
non-trivial values: integers that use their full width (some negative),
non-empty strings (some with multi-byte UTF-8), arrays of 0-2 elements, null
where Kafka's protocol lets the field be null (NULLABLE below, written from
the protocol guide), consumer-protocol payloads in group metadata and
assignments, and record batches built with kafka.record (legacy message sets
for magic 0 and 1, v2 batches with headers and producer ids after that) in
Produce and Fetch. Nothing depends on the clock or on Python's hash seed, so
running the script again rewrites identical files.

A request frame is kafka-python's RequestHeader (v1: api_key, api_version,
correlation_id, client_id) followed by the body; a response frame is the
correlation id (response header v0: kafka-python has no flexible versions)
followed by the body. Neither has the 4-byte size prefix.

Classes in KNOWN_BAD encode bytes that contradict Kafka's definition of the
message; they are not written unless --include-known-bad is given (to look at
them again). README beside this script lists them.

usage: /usr/bin/python3 gen_kafka_python.py [--include-known-bad] [OUT_DIR]
       (OUT_DIR defaults to the directory holding this script)
"""

import os
import struct
import sys
import zlib

import kafka
from kafka.protocol import (admin, commit, fetch, group, metadata, offset,
                            produce)
from kafka.protocol.api import Request, RequestHeader, Response
from kafka.protocol.group import MemberAssignment, ProtocolMetadata
from kafka.protocol.types import (Array, Boolean, Bytes, Int8, Int16, Int32,
                                  Int64, Schema, String)
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder

MODULES = (produce, fetch, offset, metadata, commit, group, admin)

# Kafka's name of each API key kafka-python knows (the directory name, as in
# Gregor's proto_table.c).
API_NAMES = {
    0: 'Produce', 1: 'Fetch', 2: 'ListOffsets', 3: 'Metadata',
    8: 'OffsetCommit', 9: 'OffsetFetch', 10: 'FindCoordinator',
    11: 'JoinGroup', 12: 'Heartbeat', 13: 'LeaveGroup', 14: 'SyncGroup',
    15: 'DescribeGroups', 16: 'ListGroups', 17: 'SaslHandshake',
    18: 'ApiVersions', 19: 'CreateTopics', 20: 'DeleteTopics',
    29: 'DescribeAcls', 30: 'CreateAcls', 31: 'DeleteAcls',
    32: 'DescribeConfigs', 33: 'AlterConfigs', 36: 'SaslAuthenticate',
    37: 'CreatePartitions', 42: 'DeleteGroups',
}

# Fields (kafka-python's names, dotted from the message) that Kafka lets be
# null, and the first version where it may: (api key, 'req'|'resp', path).
NULLABLE = {
    (0, 'req', 'transactional_id'): 3,
    (0, 'req', 'topics.partitions.messages'): 0,
    (1, 'resp', 'topics.partitions.aborted_transactions'): 4,
    (1, 'resp', 'topics.partitions.message_set'): 0,
    (3, 'req', 'topics'): 1,
    (3, 'resp', 'brokers.rack'): 1,
    (3, 'resp', 'cluster_id'): 2,
    (8, 'req', 'topics.partitions.metadata'): 0,
    (9, 'req', 'topics'): 2,
    (9, 'resp', 'topics.partitions.metadata'): 0,
    (10, 'resp', 'error_message'): 1,
    (19, 'req', 'create_topic_requests.configs.config_value'): 0,
    (19, 'resp', 'topic_errors.error_message'): 1,
    (29, 'req', 'resource_name'): 0,
    (29, 'req', 'principal'): 0,
    (29, 'req', 'host'): 0,
    (29, 'resp', 'error_message'): 0,
    (30, 'resp', 'creation_responses.error_message'): 0,
    (31, 'req', 'filters.resource_name'): 0,
    (31, 'req', 'filters.principal'): 0,
    (31, 'req', 'filters.host'): 0,
    (31, 'resp', 'filter_responses.error_message'): 0,
    (31, 'resp', 'filter_responses.matching_acls.error_message'): 0,
    (32, 'req', 'resources.config_names'): 0,
    (32, 'resp', 'resources.error_message'): 0,
    (32, 'resp', 'resources.config_entries.config_value'): 0,
    (32, 'resp', 'resources.config_entries.config_synonyms.config_value'): 0,
    (33, 'req', 'resources.config_entries.config_value'): 0,
    (33, 'resp', 'resources.error_message'): 0,
    (36, 'resp', 'error_message'): 0,
    (37, 'req', 'topic_partitions.new_partitions.assignment'): 0,
    (37, 'resp', 'topic_errors.error_message'): 0,
}

# kafka-python mistakes: these classes encode bytes that are not the message
# Kafka defines for that version (see README).
KNOWN_BAD = {
    'ProduceResponse_v8':
        'a misplaced parenthesis puts record_errors and error_message in the '
        'partitions tuple, where Schema() drops them: the frame lacks both '
        'per-partition fields (Kafka: RecordErrors, ErrorMessage, 8+)',
    'GroupCoordinatorResponse_v1':
        'no throttle_time_ms (Kafka: FindCoordinator ThrottleTimeMs, 1+)',
    'ListGroupsRequest_v2':
        'API_VERSION = 1, so the header says version 1 (the body, empty, '
        'would be right)',
    'DescribeGroupsResponse_v3':
        'a misplaced parenthesis drops authorized_operations from each group '
        '(Kafka: AuthorizedOperations, 3+)',
    'DescribeAclsRequest_v2':
        'version 2 is flexible (Kafka: flexibleVersions 2+), but the class '
        'reuses v1\'s schema: no compact strings or tagged fields, and a v1 '
        'request header instead of v2',
    'DescribeAclsResponse_v2':
        'version 2 is flexible, but the class reuses v1\'s non-flexible '
        'schema',
    'OffsetRequest_v4':
        'current_leader_epoch is Int64; Kafka has int32 (ListOffsets '
        'CurrentLeaderEpoch, 4+)',
    'OffsetRequest_v5':
        'same schema as OffsetRequest_v4: current_leader_epoch is Int64',
}


class Filler:
    """Deterministic values for one message. Array lengths and string
    shapes hash the class name and the field path with CRC-32; values count
    up within the message; nulls alternate by version (null()). Nothing
    moves when another message changes."""

    def __init__(self, cls, kind):
        self.cls = cls
        self.name = cls.__name__
        self.key = cls.API_KEY
        self.ver = cls.API_VERSION
        self.kind = kind
        self.n = 0
        self.seen = {}
        self.txn_id = None  # Produce v3+: batches are transactional if set

    def pick(self, path, mod):
        return zlib.crc32(('%s/%s' % (self.name, path)).encode()) % mod

    def count(self):
        self.n += 1
        return self.n

    def null(self, path, every=2):
        """Whether this occurrence of a nullable field is null: every
        second (or third) one, counting from the version, so that each
        nullable field is null in some frames and set in others."""
        v = NULLABLE.get((self.key, self.kind, path))
        if v is None or self.ver < v:
            return False
        k = self.seen.get(path, 0)
        self.seen[path] = k + 1
        return (self.ver + k) % every == 0

    def value(self, t, path, depth):
        if isinstance(t, Array):
            if self.null(path):
                return None
            # arrays of structs near the top get one or two elements (so
            # that what they hold is exercised), deeper ones and arrays of
            # primitives 0-2
            if isinstance(t.array_of, Schema) and depth < 2:
                n = 1 + self.pick(path + '#n', 2)
            else:
                n = (2, 1, 0)[self.pick(path + '#n', 3)]
            # elements of a primitive array are not the array: '[]'
            ep = path if isinstance(t.array_of, Schema) else path + '[]'
            return [self.value(t.array_of, ep, depth + 1) for _ in range(n)]
        if isinstance(t, Schema):
            return tuple(self.value(ft, '%s.%s' % (path, fn) if path else fn,
                                    depth)
                         for fn, ft in zip(t.names, t.fields))
        n = self.count()
        if t is Boolean:
            return n % 2 == 1
        if t is Int8:
            return (n * 7) % 120 + 1
        if t is Int16:
            return -(n * 3) if n % 5 == 4 else n * 257 + 1
        if t is Int32:
            return -(n * 11) if n % 5 == 4 else 0x01020000 + n * 7919
        if t is Int64:
            return -(n * 13) if n % 5 == 4 else \
                0x0102030405000000 + n * 1000003
        if isinstance(t, String) or t is String:
            if self.null(path):
                return None
            leaf = path.rsplit('.', 1)[-1].rstrip('[]')
            if self.pick('%s#utf8%d' % (path, n), 4) == 0:
                v = '%s-%d-\u00e9t\u00e9-\u6d4b' % (leaf, n)
            else:
                v = '%s-%d' % (leaf, n)
            if path == 'transactional_id':
                self.txn_id = v
            return v
        if t is Bytes:
            return self.bytes(path, n)
        raise TypeError('%s: unknown type %r at %s' % (self.name, t, path))

    def bytes(self, path, n):
        leaf = path.rsplit('.', 1)[-1]
        if self.null(path, 3):
            return None
        if leaf in ('messages', 'message_set'):
            return self.records(path, n)
        if leaf == 'protocol_metadata' or (
                leaf == 'member_metadata' and self.key in (11, 15)):
            return ProtocolMetadata.SCHEMA.encode(
                (0, ['topic-a-%d' % n, 'topic-b'], b'ud%d' % n))
        if leaf in ('member_metadata', 'member_assignment'):
            # SyncGroup's group_assignment calls the assignment
            # member_metadata
            return MemberAssignment.SCHEMA.encode(
                (0, [('topic-a', [0, 2, n]), ('topic-b', [1])], b''))
        if leaf == 'sasl_auth_bytes':
            return b'\x00user-%d\x00pass-word' % n
        return bytes((n * 31 + i) & 0xff for i in range(8 + n % 8))

    def magic(self):
        # Produce: v0-1 magic 0, v2 magic 1, v3+ magic 2; Fetch: v0-1
        # magic 0, v2-3 magic 1, v4+ magic 2
        if self.key == 0:
            return 0 if self.ver < 2 else 1 if self.ver == 2 else 2
        return 0 if self.ver < 2 else 1 if self.ver < 4 else 2

    def records(self, path, n):
        magic = self.magic()
        ts = 1700000000000 + n * 1000
        if magic < 2:
            b = LegacyRecordBatchBuilder(magic, 0, 1 << 20)
            first = 0 if self.kind == 'req' else 40 + n
            b.append(first, ts, b'key-%d' % n, b'value-%d' % n)
            b.append(first + 1, ts + 5, None, b'value-%d-bis' % n)
            return bytes(b.build())
        out = b''
        nbatch = 1 if self.kind == 'req' else 2
        for i in range(nbatch):
            if self.kind == 'req':
                txn = self.txn_id is not None
            else:
                txn = self.pick(path + '#txn', 2) == 1
            b = DefaultRecordBatchBuilder(magic, 0, txn, 1000 + n, 3,
                                          17 * i, 1 << 20)
            b.append(0, ts, b'key-%d' % n, b'value-%d' % n,
                     [('h1', b'hv'), ('h2', None)])
            b.append(1, ts + 7, None, b'value-%d-bis' % n, [])
            batch = bytearray(b.build())
            if self.kind == 'resp':
                # the broker sets the base offset; the CRC does not cover it
                struct.pack_into('>q', batch, 0, 1000 + 2 * i)
            out += bytes(batch)
        return out


def classes():
    seen = set()
    for mod in MODULES:
        for name in sorted(dir(mod)):
            c = getattr(mod, name)
            if not isinstance(c, type) or c in seen:
                continue
            if not (issubclass(c, Request) or issubclass(c, Response)):
                continue
            if c in (Request, Response) or '_v' not in name:
                continue
            seen.add(c)
            yield c


def fix_bare_string(t):
    """kafka-python writes ('topic', String) instead of String('utf-8') in
    Fetch v7-v11's forgotten_topics_data: the class cannot encode. Same
    wire type, so put an instance in its place."""
    if isinstance(t, Array):
        t.array_of = fix_bare_string(t.array_of)
    elif isinstance(t, Schema):
        t.fields = tuple(fix_bare_string(f) for f in t.fields)
    elif t is String:
        return String('utf-8')
    return t


def frame(cls):
    is_req = issubclass(cls, Request)
    kind = 'req' if is_req else 'resp'
    f = Filler(cls, kind)
    fix_bare_string(cls.SCHEMA)
    msg = cls(*f.value(cls.SCHEMA, '', 0))
    body = msg.encode()
    corr = 0x1000 * cls.API_KEY + 0x10 * cls.API_VERSION + (1 if is_req else 2)
    if is_req:
        client = None if f.pick('#client', 4) == 0 else 'kafka-python-' + \
            kafka.__version__
        hdr = RequestHeader(msg, corr, client)  # encode() holds it weakly
        return hdr.encode() + body
    return Int32.encode(corr) + body


def main(argv):
    include_bad = '--include-known-bad' in argv
    args = [a for a in argv[1:] if not a.startswith('--')]
    out = args[0] if args else os.path.dirname(os.path.abspath(__file__))
    written = 0
    for cls in classes():
        name = cls.__name__
        kind = 'req' if issubclass(cls, Request) else 'resp'
        # the file's version is the one the class name claims
        ver = int(name.rsplit('_v', 1)[1])
        d = os.path.join(out, API_NAMES[cls.API_KEY])
        path = os.path.join(d, 'v%d.%s.bin' % (ver, kind))
        if name in KNOWN_BAD and not include_bad:
            print('skip %s: %s' % (name, KNOWN_BAD[name]))
            if os.path.exists(path):
                os.remove(path)
            continue
        os.makedirs(d, exist_ok=True)
        with open(path, 'wb') as fh:
            fh.write(frame(cls))
        written += 1
    print('%d frames written under %s' % (written, out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
