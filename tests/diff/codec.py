"""
tests/diff/codec.py: the request and response codec of the differential
tests, independent of Gregor's: kafka-python 3.0.12's messages (generated at
import from Kafka 4.3's JSON definitions; any request at any version, any
response decoded), plus what Kafka 4.4 added that kafka-python lacks,
written here by hand from Kafka 4.4's definitions (HAND below), and record
batches built and read with kafka-python's record module.

Requests are given as plain dicts (snake_case field names, as kafka-python
names them; nested structs as dicts, arrays as lists); fields left out take
their schema defaults. Responses come back as plain dicts of the fields the
version has, so the harness can compare them path by path.
"""

import inspect
import struct
import uuid

import kafka.protocol.api_data as _api_data
from kafka.protocol.api_key import ApiKey
from kafka.protocol.api_message import ApiMessage
from kafka.protocol.schemas.fields.base import BaseField


# --- Kafka 4.4's additions, by hand --------------------------------------
#
# Each entry patches the JSON kafka-python loads (or gives a whole message
# kafka-python does not have) with what Kafka 4.4's definition adds. Fields
# are written f(name, type, versions, **extra) in the JSON's own terms.

def f(name, typ, versions, fields=None, **extra):
    d = {"name": name, "type": typ, "versions": versions}
    for k, v in extra.items():
        d[{"nullable": "nullableVersions", "tagged": "taggedVersions",
           "mapkey": "mapKey"}.get(k, k)] = v
    if fields is not None:
        d["fields"] = fields
    return d


def _find(fields, name):
    for fld in fields:
        if fld["name"] == name:
            return fld
    raise KeyError(name)


def _api_versions_request(j):
    # v5 (KIP-1242): the cluster and node the client expects
    j["validVersions"] = "0-5"
    j["fields"] += [f("ClusterId", "string", "5+", nullable="5+", default="null"),
                    f("NodeId", "int32", "5+", default="-1")]
    return j


def _api_versions_response(j):
    j["validVersions"] = "0-5"
    return j


def _delete_groups_request(j):
    j["validVersions"] = "0-3"
    return j


def _delete_groups_response(j):
    # v3 (KIP-1043): an error message per group
    j["validVersions"] = "0-3"
    _find(j["fields"], "Results")["fields"].append(
        f("ErrorMessage", "string", "3+", nullable="3+", default="null"))
    return j


def _txn_offset_commit(j):
    # v6: topics by id instead of by name
    j["validVersions"] = "0-6"
    topics = _find(j["fields"], "Topics")["fields"]
    _find(topics, "Name")["versions"] = "0-5"
    topics.insert(1, f("TopicId", "uuid", "6+"))
    return j


def _telemetry_subscriptions_request(j):
    return {"apiKey": 71, "type": "request", "name": "GetTelemetrySubscriptionsRequest",
            "validVersions": "0", "flexibleVersions": "0+",
            "fields": [f("ClientInstanceId", "uuid", "0+")]}


def _telemetry_subscriptions_response(j):
    return {"apiKey": 71, "type": "response", "name": "GetTelemetrySubscriptionsResponse",
            "validVersions": "0", "flexibleVersions": "0+",
            "fields": [f("ThrottleTimeMs", "int32", "0+"),
                       f("ErrorCode", "int16", "0+"),
                       f("ClientInstanceId", "uuid", "0+"),
                       f("SubscriptionId", "int32", "0+"),
                       f("AcceptedCompressionTypes", "[]int8", "0+"),
                       f("PushIntervalMs", "int32", "0+"),
                       f("TelemetryMaxBytes", "int32", "0+"),
                       f("DeltaTemporality", "bool", "0+"),
                       f("RequestedMetrics", "[]string", "0+")]}


def _push_telemetry_request(j):
    return {"apiKey": 72, "type": "request", "name": "PushTelemetryRequest",
            "validVersions": "0", "flexibleVersions": "0+",
            "fields": [f("ClientInstanceId", "uuid", "0+"),
                       f("SubscriptionId", "int32", "0+"),
                       f("Terminating", "bool", "0+"),
                       f("CompressionType", "int8", "0+"),
                       f("Metrics", "bytes", "0+")]}


def _push_telemetry_response(j):
    return {"apiKey": 72, "type": "response", "name": "PushTelemetryResponse",
            "validVersions": "0", "flexibleVersions": "0+",
            "fields": [f("ThrottleTimeMs", "int32", "0+"),
                       f("ErrorCode", "int16", "0+")]}


def _cg_heartbeat_request(j):
    # KIP-848 (kafka-python 3.0.12 has neither API)
    return {"apiKey": 68, "type": "request", "name": "ConsumerGroupHeartbeatRequest",
            "validVersions": "0-1", "flexibleVersions": "0+",
            "fields": [f("GroupId", "string", "0+"),
                       f("MemberId", "string", "0+"),
                       f("MemberEpoch", "int32", "0+"),
                       f("InstanceId", "string", "0+", nullable="0+", default="null"),
                       f("RackId", "string", "0+", nullable="0+", default="null"),
                       f("RebalanceTimeoutMs", "int32", "0+", default="-1"),
                       f("SubscribedTopicNames", "[]string", "0+", nullable="0+", default="null"),
                       f("SubscribedTopicRegex", "string", "1+", nullable="1+", default="null"),
                       f("ServerAssignor", "string", "0+", nullable="0+", default="null"),
                       f("TopicPartitions", "[]TopicPartitions", "0+", nullable="0+",
                         default="null", fields=[f("TopicId", "uuid", "0+"),
                                                 f("Partitions", "[]int32", "0+")])]}


def _cg_heartbeat_response(j):
    return {"apiKey": 68, "type": "response", "name": "ConsumerGroupHeartbeatResponse",
            "validVersions": "0-1", "flexibleVersions": "0+",
            "fields": [f("ThrottleTimeMs", "int32", "0+"),
                       f("ErrorCode", "int16", "0+"),
                       f("ErrorMessage", "string", "0+", nullable="0+", default="null"),
                       f("MemberId", "string", "0+", nullable="0+", default="null"),
                       f("MemberEpoch", "int32", "0+"),
                       f("HeartbeatIntervalMs", "int32", "0+"),
                       f("Assignment", "Assignment", "0+", nullable="0+", default="null",
                         fields=[f("TopicPartitions", "[]TopicPartitions", "0+",
                                   fields=[f("TopicId", "uuid", "0+"),
                                           f("Partitions", "[]int32", "0+")])])]}


def _cg_describe_request(j):
    return {"apiKey": 69, "type": "request", "name": "ConsumerGroupDescribeRequest",
            "validVersions": "0-1", "flexibleVersions": "0+",
            "fields": [f("GroupIds", "[]string", "0+"),
                       f("IncludeAuthorizedOperations", "bool", "0+")]}


def _cg_describe_response(j):
    tps = lambda: f("TopicPartitions", "[]TopicPartitions", "0+",
                    fields=[f("TopicId", "uuid", "0+"), f("TopicName", "string", "0+"),
                            f("Partitions", "[]int32", "0+")])
    member = [f("MemberId", "string", "0+"),
              f("InstanceId", "string", "0+", nullable="0+", default="null"),
              f("RackId", "string", "0+", nullable="0+", default="null"),
              f("MemberEpoch", "int32", "0+"),
              f("ClientId", "string", "0+"),
              f("ClientHost", "string", "0+"),
              f("SubscribedTopicNames", "[]string", "0+"),
              f("SubscribedTopicRegex", "string", "0+", nullable="0+", default="null"),
              f("Assignment", "Assignment", "0+", fields=[tps()]),
              f("TargetAssignment", "Assignment", "0+", fields=[tps()]),
              f("MemberType", "int8", "1+", default="-1", ignorable=True)]
    group = [f("ErrorCode", "int16", "0+"),
             f("ErrorMessage", "string", "0+", nullable="0+", default="null"),
             f("GroupId", "string", "0+"),
             f("GroupState", "string", "0+"),
             f("GroupEpoch", "int32", "0+"),
             f("AssignmentEpoch", "int32", "0+"),
             f("AssignorName", "string", "0+"),
             f("Members", "[]Member", "0+", fields=member),
             f("AuthorizedOperations", "int32", "0+", default="-2147483648")]
    return {"apiKey": 69, "type": "response", "name": "ConsumerGroupDescribeResponse",
            "validVersions": "0-1", "flexibleVersions": "0+",
            "fields": [f("ThrottleTimeMs", "int32", "0+"),
                       f("Groups", "[]DescribedGroup", "0+", fields=group)]}


HAND = {
    "ApiVersionsRequest": _api_versions_request,
    "ApiVersionsResponse": _api_versions_response,
    "DeleteGroupsRequest": _delete_groups_request,
    "DeleteGroupsResponse": _delete_groups_response,
    "TxnOffsetCommitRequest": _txn_offset_commit,
    "TxnOffsetCommitResponse": _txn_offset_commit,
    "GetTelemetrySubscriptionsRequest": _telemetry_subscriptions_request,
    "GetTelemetrySubscriptionsResponse": _telemetry_subscriptions_response,
    "PushTelemetryRequest": _push_telemetry_request,
    "PushTelemetryResponse": _push_telemetry_response,
    "ConsumerGroupHeartbeatRequest": _cg_heartbeat_request,
    "ConsumerGroupHeartbeatResponse": _cg_heartbeat_response,
    "ConsumerGroupDescribeRequest": _cg_describe_request,
    "ConsumerGroupDescribeResponse": _cg_describe_response,
}

_orig_load_json = _api_data.load_json


def _load_json(name, package=None):
    if name in HAND:
        try:
            j = _orig_load_json(name, package)
        except FileNotFoundError:
            j = None
        return HAND[name](j)
    return _orig_load_json(name, package)


# kafka-python's own classes are made when `kafka` is imported; the
# messages HAND patches or adds are made again here, from the patched
# definitions
_api_data.load_json = _load_json

import kafka.protocol.admin as _admin  # noqa: E402
import kafka.protocol.consumer as _consumer  # noqa: E402
import kafka.protocol.metadata as _metadata  # noqa: E402
import kafka.protocol.producer as _producer  # noqa: E402
import kafka.protocol.sasl as _sasl  # noqa: E402


from kafka.protocol.api_header import ResponseClassRegistry as _registry  # noqa: E402

# kafka-python's clients find a response's class by API key in a global
# registry, which the classes below would take over: what they register
# is put back after them (this codec calls its classes itself)
_registered = dict(_registry._response_class_registry)


class ApiVersionsRequest(ApiMessage): pass
class ApiVersionsResponse(ApiMessage): pass
class DeleteGroupsRequest(ApiMessage): pass
class DeleteGroupsResponse(ApiMessage): pass
class TxnOffsetCommitRequest(ApiMessage): pass
class TxnOffsetCommitResponse(ApiMessage): pass
class GetTelemetrySubscriptionsRequest(ApiMessage): pass
class GetTelemetrySubscriptionsResponse(ApiMessage): pass
class PushTelemetryRequest(ApiMessage): pass
class PushTelemetryResponse(ApiMessage): pass
class ConsumerGroupHeartbeatRequest(ApiMessage): pass
class ConsumerGroupHeartbeatResponse(ApiMessage): pass
class ConsumerGroupDescribeRequest(ApiMessage): pass
class ConsumerGroupDescribeResponse(ApiMessage): pass


_registry._response_class_registry.clear()
_registry._response_class_registry.update(_registered)

REQUESTS = {}
RESPONSES = {}
for _mod in (_admin, _consumer, _metadata, _producer, _sasl):
    for _n in dir(_mod):
        _c = getattr(_mod, _n)
        if inspect.isclass(_c) and issubclass(_c, ApiMessage) and _c is not ApiMessage:
            (REQUESTS if _c.type == "request" else RESPONSES)[_c.API_KEY] = _c
for _c in (ApiVersionsRequest, ApiVersionsResponse, DeleteGroupsRequest,
           DeleteGroupsResponse, TxnOffsetCommitRequest, TxnOffsetCommitResponse,
           GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse,
           PushTelemetryRequest, PushTelemetryResponse,
           ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse,
           ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse):
    (REQUESTS if _c.type == "request" else RESPONSES)[_c.API_KEY] = _c


def api_name(key):
    try:
        return ApiKey(key).name
    except ValueError:
        return "ApiKey%d" % key


def api_key(name):
    return int(ApiKey[name])


def max_version(key):
    return REQUESTS[key].max_version


def flexible(key, version):
    return REQUESTS[key].flexible_version_q(version)


# --- building requests ----------------------------------------------------

def _build(struct_field, data_class, version, value):
    """value (a dict) as data_class at version, nested structs too."""
    if not isinstance(value, dict):
        return value
    kw = {}
    fields = struct_field.fields
    for k, v in value.items():
        fld = fields.get(k)
        if fld is None:
            raise ValueError("%s has no field %s" % (struct_field.name, k))
        if not fld.for_version_q(version):
            # a field the version lacks: leave it out, as a client would
            continue
        if fld.is_struct_array() and v is not None:
            v = [_build(fld, fld.data_class, version, e) for e in v]
        elif fld.is_struct() and v is not None:
            v = _build(fld, fld.data_class, version, v)
        kw[k] = v
    return data_class(version=version, **kw)


def encode_request(key, version, body, correlation_id, client_id="gregor-diff"):
    """The framed request: size, header (v1, or v2 when flexible), body."""
    cls = REQUESTS[key]
    msg = _build(cls._struct, cls, version, body)
    msg.with_header(correlation_id=correlation_id, client_id=client_id)
    return msg.encode(version=version, header=True, framed=True)


def frame(key, version, correlation_id, body_bytes, client_id="gregor-diff"):
    """A framed request around a raw body (for corrupt or foreign bodies)."""
    cid = client_id.encode()
    hdr = struct.pack(">hhih", key, version, correlation_id, len(cid)) + cid
    if flexible(key, version) if key in REQUESTS and version <= max_version(key) else False:
        hdr += b"\x00"
    payload = hdr + body_bytes
    return struct.pack(">i", len(payload)) + payload


def request_bytes_body(key, version, body):
    """The body alone, for tests that cut or damage it."""
    cls = REQUESTS[key]
    msg = _build(cls._struct, cls, version, body)
    return msg.encode(version=version)


# --- decoding responses ---------------------------------------------------

def _plain(struct_field, obj, version):
    out = {}
    for name, fld in struct_field.fields.items():
        if not fld.for_version_q(version):
            continue
        v = getattr(obj, name, None)
        out[name] = _plain_value(fld, v, version)
    return out


def _plain_value(fld, v, version):
    if v is None:
        return None
    if fld.is_struct_array():
        return [_plain(fld, e, version) for e in v]
    if fld.is_struct():
        return _plain(fld, v, version)
    if isinstance(v, memoryview):
        return bytes(v)
    if isinstance(v, uuid.UUID):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [_plain_value_simple(e) for e in v]
    return v


def _plain_value_simple(v):
    if isinstance(v, memoryview):
        return bytes(v)
    if isinstance(v, uuid.UUID):
        return str(v)
    return v


def decode_response(key, version, payload):
    """payload: the response frame after its size. Returns (correlation id,
    plain dict of the body). ApiVersions answers an error in its v0 form."""
    cls = RESPONSES[key]
    v = version
    if key == 18:
        # ApiVersions: the header is never flexible, and an
        # UNSUPPORTED_VERSION answer is in the v0 form
        cid, err = struct.unpack_from(">ih", payload, 0)
        if err == 35:
            v = 0
        resp = cls.decode(payload[4:], version=v)
        return cid, _plain(cls._struct, resp, v)
    resp = cls.decode(payload, version=version, header=True)
    return resp.header.correlation_id, _plain(cls._struct, resp, v)


# --- records --------------------------------------------------------------

from kafka.record.memory_records import MemoryRecordsBuilder  # noqa: E402
from kafka.record.default_records import DefaultRecordBatch  # noqa: E402
from kafka.record.legacy_records import LegacyRecordBatch  # noqa: E402

CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


def batch(records, magic=2, codec="none", producer_id=-1, producer_epoch=-1,
          base_sequence=-1, transactional=False, base_timestamp=1700000000000,
          no_timestamps=False):
    """A record batch (magic 2) or message set (magic 0/1) of records:
    each a value, or a dict of key, value, headers, timestamp. Timestamps
    are fixed (base_timestamp + index, or -1 with no_timestamps) so both
    brokers store the same bytes."""
    b = MemoryRecordsBuilder(magic, CODECS[codec], 1 << 24)
    if magic >= 2 and producer_id >= 0:
        b.set_producer_state(producer_id, producer_epoch, base_sequence, transactional)
    for i, r in enumerate(records):
        if not isinstance(r, dict):
            r = {"value": r}
        val = r.get("value")
        key = r.get("key")
        if isinstance(val, str):
            val = val.encode()
        if isinstance(key, str):
            key = key.encode()
        ts = r.get("timestamp", -1 if no_timestamps else base_timestamp + i)
        if magic == 0:
            ts = None
        b.append(ts, key, val, r.get("headers", []))
    b.close()
    return bytes(b.buffer())


_V2_HEADER = struct.Struct(">qiibIhiqqqhii")  # 61 bytes


def read_records(data):
    """Record batches as plain dicts (every header field, each record),
    and the size of a cut batch at the end (0 if none)."""
    out = []
    pos = 0
    data = bytes(data or b"")
    while pos + 17 <= len(data):
        base_offset, length = struct.unpack_from(">qi", data, pos)
        end = pos + 12 + length
        if end > len(data):
            break
        magic = data[pos + 16]
        raw = data[pos:end]
        if magic >= 2:
            (bo, ln, ple, mg, crc, attrs, lod, fts, mts, pid, pep, bseq,
             cnt) = _V2_HEADER.unpack_from(raw, 0)
            b = {"base_offset": bo, "batch_length": ln, "partition_leader_epoch": ple,
                 "magic": mg, "crc": crc, "attributes": attrs,
                 "last_offset_delta": lod, "first_timestamp": fts, "max_timestamp": mts,
                 "producer_id": pid, "producer_epoch": pep, "base_sequence": bseq,
                 "records_count": cnt, "records": []}
            rb = DefaultRecordBatch(raw)
            try:
                for r in rb:
                    b["records"].append({
                        "offset": r.offset, "timestamp": r.timestamp,
                        "key": bytes(r.key) if r.key is not None else None,
                        "value": bytes(r.value) if r.value is not None else None,
                        "headers": [(k, bytes(v) if v is not None else None)
                                    for k, v in r.headers]})
            except Exception as e:  # a batch kafka-python cannot read
                b["records"] = "unreadable: %s" % e
        else:
            crc, mg, attrs = struct.unpack_from(">IBb", raw, 12)
            b = {"base_offset": base_offset, "message_size": length, "magic": mg,
                 "crc": crc, "attributes": attrs, "records": []}
            try:
                for r in LegacyRecordBatch(raw, mg):
                    b["records"].append({
                        "offset": r.offset, "timestamp": r.timestamp,
                        "key": bytes(r.key) if r.key is not None else None,
                        "value": bytes(r.value) if r.value is not None else None})
            except Exception as e:
                b["records"] = "unreadable: %s" % e
        out.append(b)
        pos = end
    return out, len(data) - pos


__all__ = ["REQUESTS", "RESPONSES", "api_name", "api_key", "max_version",
           "flexible", "encode_request", "frame", "decode_response", "batch",
           "read_records", "BaseField"]
