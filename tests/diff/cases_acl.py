"""
tests/diff/cases_acl.py: the ACL APIs (CreateAcls, DescribeAcls,
DeleteAcls) at every version, with Kafka's validation errors and filters,
and, when both brokers run the authorizer (run.sh with DIFF_AUTHORIZER=1,
the cases connecting from 127.0.0.2), the errors of a set of denied
operations across the APIs. Without an authorizer both brokers answer the
ACL APIs SECURITY_DISABLED.

Kafka applies ACL changes through its metadata log: a case waits
(unrecorded) until DescribeAcls shows a change before it relies on it.
"""

from harness import case, SOURCE
from common import create

TOPIC, GROUP, CLUSTER, TXN = 2, 3, 4, 5
ANY, MATCH, LITERAL, PREFIXED = 1, 2, 3, 4
OP_ANY, ALL, READ, WRITE, DESCRIBE = 1, 2, 3, 4, 8
DENY, ALLOW = 2, 3
ANON = "User:ANONYMOUS"


def binding(rtype, name, pattern, principal, host, op, perm):
    return {"resource_type": rtype, "resource_name": name,
            "resource_pattern_type": pattern, "principal": principal,
            "host": host, "operation": op, "permission_type": perm}


def acl_filter(rtype=ANY, name=None, pattern=ANY, principal=None, host=None,
               op=OP_ANY, perm=1):
    return {"resource_type_filter": rtype, "resource_name_filter": name,
            "pattern_type_filter": pattern, "principal_filter": principal,
            "host_filter": host, "operation": op, "permission_type": perm}


def count(r):
    if r is None or r["error_code"]:
        return -1
    return sum(len(res["acls"]) for res in r["resources"])


def wait_count(b, f, n, conn=None):
    """Waits (unrecorded) until DescribeAcls with f lists n bindings (or
    answers an error: no authorizer)."""
    return b.wait("DescribeAcls", 3, f,
                  lambda r: r["error_code"] != 0 or count(r) == n,
                  timeout=15, what="%d ACLs" % n, conn=conn)


@case("acls")
def acls(b):
    for v in range(4):
        name = b.t("v%d" % v)
        principal = "User:diff-%d" % v
        pat = PREFIXED if v >= 1 else LITERAL
        # v0 (removed by Kafka 4.0, kept by Gregor): compared with Kafka's v1
        send = b.req if v >= 1 else b.legacy
        f = acl_filter(TOPIC, name, MATCH if v >= 1 else LITERAL)
        send("DescribeAcls", v, f, label="describe before")
        send("CreateAcls", v, {"creations": [
            binding(TOPIC, name, pat, principal, "*", READ, ALLOW),
            binding(TOPIC, name, pat, principal, "*", WRITE, DENY),
            binding(CLUSTER, "other", LITERAL, principal, "*", ALL, ALLOW),
            binding(TOPIC, "", LITERAL, principal, "*", READ, ALLOW),
            binding(TOPIC, name, LITERAL, "nocolon", "*", READ, ALLOW),
            binding(TOPIC, name, LITERAL, principal, "", READ, ALLOW)]},
            label="create")
        wait_count(b, acl_filter(TOPIC, name, ANY), 2)
        send("DescribeAcls", v, f, label="describe after", filt=sorted_acls)
        send("DescribeAcls", v, acl_filter(TOPIC, name, ANY, principal,
                                            op=WRITE) if v >= 1 else
              dict(acl_filter(TOPIC, name, LITERAL, principal, op=WRITE)),
              label="describe by principal and operation", filt=sorted_acls)
        send("DeleteAcls", v, {"filters": [
            acl_filter(TOPIC, name, ANY if v >= 1 else LITERAL, principal, op=READ),
            acl_filter(TOPIC, name, ANY if v >= 1 else LITERAL, principal),
            acl_filter(99, name, ANY if v >= 1 else LITERAL)]},
            label="delete", filt=sorted_acls)
        wait_count(b, acl_filter(TOPIC, name, ANY), 0)
        send("DescribeAcls", v, f, label="describe deleted")


def sorted_acls(r):
    """An ACL answer with its lists in one order: Kafka groups bindings by
    resource through a hash map, so their order is its own."""
    def key(a):
        return (a.get("resource_type", 0), a.get("resource_name", ""),
                a.get("pattern_type", 0), a["principal"], a["host"],
                a["operation"], a["permission_type"])
    for res in r.get("resources") or []:
        res["acls"].sort(key=key)
    if r.get("resources"):
        r["resources"].sort(key=lambda x: (x["resource_type"], x["resource_name"],
                                           x.get("pattern_type", 0)))
    for fr in r.get("filter_results") or []:
        fr["matching_acls"].sort(key=key)
    return r


def ops(r, *names):
    """The authorized-operations field (kafka-python's name for it)."""
    for n in names + ("authorized_operations",):
        if n in r:
            return r[n]
    return None


def errors_of(r, path):
    """The error codes along path (a list of keys; "*" walks a list)."""
    def walk(x, p):
        if not p:
            return [x]
        k = p[0]
        if k == "*":
            out = []
            for e in x:
                out += walk(e, p[1:])
            return out
        return walk(x[k], p[1:])
    if r is None:
        return None
    return walk(r, path)


@case("acl_denials", timeout=120, alone=True)
def acl_denials(b):
    if not SOURCE:
        return  # no authorizer: nothing is denied
    admin = b.conn(source="127.0.0.1")
    ok, deny, g, tx = b.t("ok"), b.t("deny-x"), b.t("g"), b.t("tx")
    # the controller (User:ANONYMOUS from 127.0.0.1) keeps its rights
    b.req("CreateAcls", 3, {"creations": [
        binding(CLUSTER, "kafka-cluster", LITERAL, ANON, "127.0.0.1", ALL, ALLOW)]},
        conn=admin, label="allow the controller")
    wait_count(b, acl_filter(principal=ANON), 1, conn=admin)
    create(b, ok, record=False)
    create(b, deny, record=False)
    # a connection opened before the ACLs: they apply to it at once
    b.req("Metadata", 12, {"topics": [{"name": ok}], "allow_auto_topic_creation": False},
          filt=lambda r: errors_of(r, ["topics", "*", "error_code"]), label="before")
    b.req("CreateAcls", 3, {"creations": [
        binding(TOPIC, b.t("deny"), PREFIXED, ANON, SOURCE, ALL, DENY),
        binding(GROUP, g, LITERAL, ANON, SOURCE, ALL, DENY),
        binding(TXN, tx, LITERAL, ANON, SOURCE, ALL, DENY),
        binding(CLUSTER, "kafka-cluster", LITERAL, ANON, SOURCE, ALL, DENY)]},
        conn=admin, label="deny")
    wait_count(b, acl_filter(principal=ANON), 5, conn=admin)

    def e(api, v, body, path, label):
        b.req(api, v, body, filt=lambda r: errors_of(r, path), label=label)

    e("Metadata", 12, {"topics": [{"name": ok}, {"name": deny}],
                       "allow_auto_topic_creation": False},
      ["topics", "*", "error_code"], "Metadata named")
    e("Metadata", 12, {"topics": [{"name": b.t("deny-new")}],
                       "allow_auto_topic_creation": True},
      ["topics", "*", "error_code"], "Metadata auto-create denied")
    b.req("Metadata", 10, {"topics": [{"name": ok}], "allow_auto_topic_creation": False,
                           "include_cluster_authorized_operations": True,
                           "include_topic_authorized_operations": True},
          filt=lambda r: [ops(r, "cluster_authorized_operations"),
                          [ops(t, "topic_authorized_operations") for t in r["topics"]]],
          label="authorized operations")
    e("Produce", 9, {"transactional_id": None, "acks": -1, "timeout_ms": 5000,
                     "topic_data": [{"name": deny, "partition_data": [
                         {"index": 0, "records": None}]}]},
      ["responses", "*", "partition_responses", "*", "error_code"], "Produce denied")
    e("ListOffsets", 7, {"replica_id": -1, "isolation_level": 0, "topics": [
        {"name": deny, "partitions": [{"partition_index": 0, "current_leader_epoch": -1,
                                        "timestamp": -1}]}]},
      ["topics", "*", "partitions", "*", "error_code"], "ListOffsets denied")
    # CLUSTER_ACTION is denied: DESCRIBE per topic, the refused answered last
    for replica in (-1, 1):
        b.req("OffsetForLeaderEpoch", 4, {"replica_id": replica, "topics": [
            {"topic": t, "partitions": [{"partition": 0, "current_leader_epoch": -1,
                                         "leader_epoch": 0}]} for t in (deny, ok)]},
            filt=lambda r: [(t["topic"], [(p["error_code"], p["end_offset"])
                                          for p in t["partitions"]]) for t in r["topics"]],
            label="OffsetForLeaderEpoch denied, replica %d" % replica)
    e("FindCoordinator", 3, {"key": g, "key_type": 0}, ["error_code"],
      "FindCoordinator group")
    e("FindCoordinator", 3, {"key": tx, "key_type": 1}, ["error_code"],
      "FindCoordinator transaction")
    e("JoinGroup", 5, {"group_id": g, "session_timeout_ms": 10000,
                       "rebalance_timeout_ms": 10000, "member_id": "",
                       "group_instance_id": None, "protocol_type": "consumer",
                       "protocols": [{"name": "range", "metadata": b""}]},
      ["error_code"], "JoinGroup denied")
    e("OffsetFetch", 7, {"group_id": g, "topics": None, "require_stable": False},
      ["error_code"], "OffsetFetch denied")
    e("DescribeGroups", 5, {"groups": [g], "include_authorized_operations": True},
      ["groups", "*", "error_code"], "DescribeGroups denied")
    e("InitProducerId", 4, {"transactional_id": tx, "transaction_timeout_ms": 60000,
                            "producer_id": -1, "producer_epoch": -1},
      ["error_code"], "InitProducerId transactional")
    e("InitProducerId", 4, {"transactional_id": None, "transaction_timeout_ms": 60000,
                            "producer_id": -1, "producer_epoch": -1},
      ["error_code"], "InitProducerId idempotent")
    e("CreateTopics", 7, {"topics": [{"name": b.t("deny-new"), "num_partitions": 1,
                                      "replication_factor": 1, "assignments": [],
                                      "configs": []}],
                          "timeout_ms": 5000, "validate_only": True},
      ["topics", "*", "error_code"], "CreateTopics denied")
    e("DeleteTopics", 5, {"topic_names": [deny], "timeout_ms": 5000},
      ["responses", "*", "error_code"], "DeleteTopics denied")
    e("DeleteRecords", 2, {"topics": [{"name": deny, "partitions": [
        {"partition_index": 0, "offset": 0}]}], "timeout_ms": 5000},
      ["topics", "*", "partitions", "*", "error_code"], "DeleteRecords denied")
    e("CreatePartitions", 3, {"topics": [{"name": deny, "count": 2, "assignments": None}],
                              "timeout_ms": 5000, "validate_only": True},
      ["results", "*", "error_code"], "CreatePartitions denied")
    e("DescribeConfigs", 4, {"resources": [
        {"resource_type": 2, "resource_name": deny, "configuration_keys": ["retention.ms"]},
        {"resource_type": 4, "resource_name": "1", "configuration_keys": ["num.partitions"]}],
        "include_synonyms": False, "include_documentation": False},
      ["results", "*", "error_code"], "DescribeConfigs denied")
    e("IncrementalAlterConfigs", 1, {"resources": [
        {"resource_type": 2, "resource_name": deny, "configs": [
            {"name": "retention.ms", "config_operation": 0, "value": "1000"}]}],
        "validate_only": True},
      ["responses", "*", "error_code"], "IncrementalAlterConfigs denied")
    e("CreateAcls", 3, {"creations": [binding(TOPIC, ok, LITERAL, ANON, "*", READ, ALLOW)]},
      ["results", "*", "error_code"], "CreateAcls denied")
    e("DescribeAcls", 3, acl_filter(), ["error_code"], "DescribeAcls denied")
    e("DeleteAcls", 3, {"filters": [acl_filter()]},
      ["filter_results", "*", "error_code"], "DeleteAcls denied")
    e("DescribeLogDirs", 4, {"topics": None}, ["error_code"], "DescribeLogDirs denied")
    b.req("DescribeCluster", 1, {"include_cluster_authorized_operations": True,
                                 "endpoint_type": 1},
          filt=lambda r: [r["error_code"], ops(r, "cluster_authorized_operations")],
          label="DescribeCluster operations")
    e("DescribeTransactions", 0, {"transactional_ids": [tx]},
      ["transaction_states", "*", "error_code"], "DescribeTransactions denied")
    # client quotas: the whole answers, messages with them
    b.req("DescribeClientQuotas", 1, {"components": [], "strict": False},
          label="DescribeClientQuotas denied")
    b.req("AlterClientQuotas", 1, {"entries": [
        {"entity": [{"entity_type": "client-id", "entity_name": "diffq-acl"}],
         "ops": [{"key": "producer_byte_rate", "value": 1e12, "remove": False}]},
        {"entity": [{"entity_type": "client-id", "entity_name": "diffq-acl"}],
         "ops": [{"key": "consumer_byte_rate", "value": 1e12, "remove": False}]}],
        "validate_only": False}, label="AlterClientQuotas denied")
    # the ACLs go: the same connection is allowed again
    b.req("DeleteAcls", 3, {"filters": [acl_filter(host=SOURCE)]}, conn=admin,
          filt=lambda r: errors_of(r, ["filter_results", "*", "error_code"]),
          label="remove the denials")
    wait_count(b, acl_filter(principal=ANON), 1, conn=admin)
    e("Metadata", 12, {"topics": [{"name": deny}], "allow_auto_topic_creation": False},
      ["topics", "*", "error_code"], "Metadata allowed again")
    b.req("DeleteAcls", 3, {"filters": [acl_filter(principal=ANON)]}, conn=admin,
          filt=lambda r: errors_of(r, ["filter_results", "*", "error_code"]),
          label="remove all")
    wait_count(b, acl_filter(principal=ANON), 0, conn=admin)
