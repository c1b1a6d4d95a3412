"""
tests/diff/common.py: what many cases do: make a topic and wait until it
is led, produce, fetch, find a coordinator, keep only a case's own topics
or groups of a broker-wide answer.
"""

from harness import CaseError

NONE = 0


def md(b, topics, version=12, **kw):
    """Metadata of topics (unrecorded)."""
    return b.q("Metadata", version, {
        "topics": [{"name": t} for t in topics] if topics is not None else None,
        "allow_auto_topic_creation": False}, **kw)


def led(r, name, partitions=None):
    for t in r["topics"]:
        if t["name"] == name:
            if t["error_code"] != 0:
                return False
            ps = t["partitions"]
            if partitions is not None and len(ps) != partitions:
                return False
            return bool(ps) and all(p["leader_id"] >= 0 and p["error_code"] == 0 for p in ps)
    return False


def wait_led(b, name, partitions=None, timeout=20):
    """Waits (unrecorded) until every partition of topic name is led and
    serves: Kafka's metadata can name a leader a moment before the
    partition's log is open there (NOT_LEADER_OR_FOLLOWER meanwhile)."""
    m = b.wait("Metadata", 12, {"topics": [{"name": name}], "allow_auto_topic_creation": False},
               lambda r: led(r, name, partitions), timeout=timeout,
               what="topic %s led" % name)
    parts = [p["partition_index"] for p in m["topics"][0]["partitions"]]
    b.wait("ListOffsets", 7, {"replica_id": -1, "isolation_level": 0, "topics": [{
        "name": name, "partitions": [{"partition_index": p, "timestamp": -1} for p in parts]}]},
        lambda r: all(p["error_code"] == 0 for p in r["topics"][0]["partitions"]),
        timeout=timeout, what="topic %s serving" % name)
    return m


def wait_gone(b, name, timeout=20):
    """Waits (unrecorded) until topic name is unknown."""
    return b.wait("Metadata", 12, {"topics": [{"name": name}], "allow_auto_topic_creation": False},
                  lambda r: r["topics"][0]["error_code"] == 3, timeout=timeout,
                  what="topic %s deleted" % name)


def create(b, name, partitions=1, configs=None, version=7, record=True, label=None,
           replication_factor=1):
    """Creates a topic (recorded unless record=False) and waits until it is
    led; returns its topic id (by Metadata, unrecorded)."""
    body = {"topics": [{"name": name, "num_partitions": partitions,
                        "replication_factor": replication_factor, "assignments": [],
                        "configs": [{"name": k, "value": v} for k, v in (configs or {}).items()]}],
            "timeout_ms": 30000, "validate_only": False}
    r = b.req("CreateTopics", version, body, record=record, label=label or "create %s" % name)
    if r is None or r["topics"][0]["error_code"] != 0:
        raise CaseError("%s: creating %s: %r" % (b.name, name, r))
    m = wait_led(b, name, partitions)
    return m["topics"][0]["topic_id"]


def topic_id(b, name):
    return md(b, [name])["topics"][0]["topic_id"]


def own_topics(b, key="topics", field="name"):
    """filt= for answers listing every topic: keeps this case's topics."""
    pre = b.t()

    def filt(r):
        if r.get(key) is not None:
            r[key] = [t for t in r[key] if str(t.get(field, "")).startswith(pre)]
        return r
    return filt


def produce(b, topic, partition, records, version=9, acks=-1, label=None,
            transactional_id=None, record=True, timeout_ms=30000, **kw):
    """One Produce of one batch to one partition; returns the partition's
    answer (or None)."""
    t = {"name": topic, "partition_data": [{"index": partition, "records": records}]}
    tid = kw.pop("topic_id", None)
    if version >= 13:
        t = {"topic_id": tid, "partition_data": t["partition_data"]}
    body = {"transactional_id": transactional_id, "acks": acks, "timeout_ms": timeout_ms,
            "topic_data": [t]}
    r = b.req("Produce", version, body, label=label, record=record,
              no_response=(acks == 0), **kw)
    if r is None:
        return None
    return r["responses"][0]["partition_responses"][0]


def fetch_body(version, topic, partition, offset, max_bytes=1 << 20, isolation=0,
               topic_id=None, max_wait_ms=0, min_bytes=1, log_start_offset=-1,
               current_leader_epoch=-1, session_id=0, session_epoch=-1):
    p = {"partition": partition, "fetch_offset": offset, "partition_max_bytes": max_bytes,
         "current_leader_epoch": current_leader_epoch, "log_start_offset": log_start_offset,
         "last_fetched_epoch": -1}
    t = {"topic": topic, "topic_id": topic_id, "partitions": [p]}
    return {"replica_id": -1, "max_wait_ms": max_wait_ms, "min_bytes": min_bytes,
            "max_bytes": max_bytes, "isolation_level": isolation,
            "session_id": session_id, "session_epoch": session_epoch,
            "topics": [t], "forgotten_topics_data": [], "rack_id": ""}


def fetch(b, topic, partition, offset, version=12, label=None, record=True, **kw):
    """One Fetch of one partition; returns the partition's answer."""
    tid = kw.pop("topic_id", None)
    body = fetch_body(version, topic, partition, offset, topic_id=tid, **kw)
    r = b.req("Fetch", version, body, label=label, record=record)
    if r is None:
        return None
    if r.get("error_code"):
        return r
    return r["responses"][0]["partitions"][0]


def coordinator(b, key, key_type=0):
    """Waits (unrecorded) until the coordinator of key is available."""
    return b.wait("FindCoordinator", 3, {"key": key, "key_type": key_type},
                  lambda r: r["error_code"] == 0, timeout=30,
                  what="coordinator of %s" % key)
