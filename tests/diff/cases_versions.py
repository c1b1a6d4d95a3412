"""
tests/diff/cases_versions.py: ApiVersions (every version, the key lists of
both brokers compared API by API), versions past the newest, the legacy
versions Kafka 4 removed and Gregor keeps (deliberate), APIs Kafka serves
that Gregor does not yet, and malformed frames.
"""

import struct

import codec
from harness import case, SERVED

# The versions Kafka 4.0 removed (KIP-896) that Gregor keeps on purpose:
# API -> Kafka 4.4's lowest version.
LEGACY_MIN = {
    "Produce": 3, "Fetch": 4, "ListOffsets": 1, "OffsetCommit": 2,
    "OffsetFetch": 1, "CreateTopics": 2, "DeleteTopics": 1,
    "DescribeConfigs": 1, "DescribeLogDirs": 1, "WriteTxnMarkers": 1,
    "DescribeAcls": 1, "CreateAcls": 1, "DeleteAcls": 1,
    "OffsetForLeaderEpoch": 2,
}

# APIs Kafka 4.4 serves that Gregor does not serve yet, and the issue
# that brings each (deliberate: "unserved-apis"); an API Kafka serves that
# Gregor does not and that is not here is a failure.
UNSERVED = {
    # delegation tokens authenticate through SASL/SCRAM (issue 19 brought
    # SASL; delegation tokens are not done)
    "CreateDelegationToken": 19, "RenewDelegationToken": 19,
    "ExpireDelegationToken": 19, "DescribeDelegationToken": 19,
    # features are cluster metadata, kept by the controller (with ZooKeeper,
    # Kafka's /feature znode); one broker's come from its configuration
    "UpdateFeatures": 22,
    "AlterReplicaLogDirs": 23, "AlterPartitionReassignments": 23,
    "ListPartitionReassignments": 23,
    "ShareGroupHeartbeat": 24, "ShareGroupDescribe": 24, "ShareFetch": 24,
    "ShareAcknowledge": 24, "InitializeShareGroupState": 24,
    "ReadShareGroupState": 24, "WriteShareGroupState": 24,
    "DeleteShareGroupState": 24, "ReadShareGroupStateSummary": 24,
    "DescribeShareGroupOffsets": 24, "AlterShareGroupOffsets": 24,
    "DeleteShareGroupOffsets": 24, "StreamsGroupHeartbeat": 24,
    "StreamsGroupDescribe": 24, "ApiKey93": 24,  # StreamsGroupTopologyDescriptionUpdate
    # KRaft's own quorum and controller APIs: Gregor has no KRaft quorum
    # (cluster mode is coordinated by ZooKeeper, issue 22)
    "DescribeQuorum": 22, "AddRaftVoter": 22, "RemoveRaftVoter": 22,
    "UnregisterBroker": 22, "ApiKey94": 22,  # UnregisterController
}


def _versions_note(b, key):
    """One note per API: the versions each broker serves, with the
    deliberate differences pinned."""
    k = SERVED["kafka"].get(key)
    g = SERVED["gregor"].get(key)
    mine = SERVED[b.name].get(key)
    name = codec.api_name(key)
    label = "versions of %s" % name
    if k and g and k != g and name in LEGACY_MIN:
        # Gregor: from 0 to Kafka's newest; Kafka: from its 4.x minimum
        b.note(label, mine, deliberate="legacy-versions", expect={
            "kafka": lambda s, lo=LEGACY_MIN[name]: s.resp["value"][0] == lo,
            "gregor": lambda s, hi=k[1]: tuple(s.resp["value"]) == (0, hi)})
    elif k and not g and name in UNSERVED:
        b.note(label + " (issue %d)" % UNSERVED[name], mine, deliberate="unserved-apis",
               expect={"gregor": lambda s: s.resp["value"] is None})
    elif g and not k and name in ("GetTelemetrySubscriptions", "PushTelemetry"):
        b.note(label, mine, deliberate="telemetry-file",
               expect={"kafka": lambda s: s.resp["value"] is None})
    else:
        b.note(label, mine)


# Features Kafka 4.4 finalizes that belong to what Gregor does not have:
# KRaft's metadata log, and the APIs of issues 22 and 24
OTHER_FEATURES = {
    "metadata.version": "KRaft's metadata log (Gregor has no KRaft)",
    "kraft.version": "KRaft's quorum (Gregor has no KRaft)",
    "eligible.leader.replicas.version": "KIP-966 ELR, cluster mode (issue 22)",
    "group.version": "KIP-848 consumer groups (issue 24)",
    "share.version": "share groups (issue 24)",
    "streams.version": "streams groups (issue 24)",
}


def _drop_keys(r):
    r.pop("api_keys", None)
    for k in ("supported_features", "finalized_features"):
        if r.get(k) is not None:
            r[k] = [f for f in r[k] if f["name"] not in OTHER_FEATURES]
    return r


def _feature_names(r):
    return sorted(f["name"] for f in (r.get("finalized_features") or []))


@case("api_versions")
def api_versions(b):
    sw = {"client_software_name": "gregor-diff", "client_software_version": "1.0"}
    for v in range(0, 6):
        r = b.req("ApiVersions", v, sw, filt=_drop_keys)
    names = _feature_names(r)
    b.note("finalized features", names, deliberate="unserved-apis", expect={
        "kafka": lambda s: set(OTHER_FEATURES) - {"kraft.version"} <= set(s.resp["value"]),
        "gregor": lambda s: not set(OTHER_FEATURES) & set(s.resp["value"])})
    for key in sorted(set(SERVED["kafka"]) | set(SERVED["gregor"])):
        _versions_note(b, key)
    # the software name and version must be [a-zA-Z0-9._-]+ from v3
    b.req("ApiVersions", 3, {"client_software_name": "bad name!", "client_software_version": "1"},
          label="invalid client software name", filt=_drop_keys)
    b.req("ApiVersions", 3, {"client_software_name": "", "client_software_version": ""},
          label="empty client software name", filt=_drop_keys)
    # v5 (KIP-1242): a client that expects another cluster or node
    cluster = b.q("Metadata", 12, {"topics": []})["cluster_id"]
    for label, extra in (("v5 this cluster and node", dict(cluster_id=cluster, node_id=1)),
                         ("v5 this cluster, another node", dict(cluster_id=cluster, node_id=2)),
                         ("v5 another cluster, this node", dict(cluster_id="x" * 22, node_id=1)),
                         ("v5 a cluster id without a node id", dict(cluster_id=cluster)),
                         ("v5 another cluster id without a node id", dict(cluster_id="x")),
                         ("v5 a node id without a cluster id", dict(node_id=1)),
                         ("v5 another node id without a cluster id", dict(node_id=77))):
        b.req("ApiVersions", 5, dict(sw, **extra), label=label, filt=_drop_keys)
    # a version past the newest: UNSUPPORTED_VERSION in the v0 form, with
    # ApiVersions' own range
    body = codec.request_bytes_body(18, 3, sw)
    b.req("ApiVersions", 127, raw=body, label="ApiVersions v127")
    b.req("ApiVersions", 6, raw=body, label="ApiVersions v6")


@case("versions_past_newest")
def versions_past_newest(b):
    """Every API both serve, at its newest version + 1: the connection is
    closed (only ApiVersions answers an unknown version)."""
    for key in sorted(set(SERVED["kafka"]) & set(SERVED["gregor"])):
        if key == 18:
            continue
        hi = max(SERVED["kafka"][key][1], SERVED["gregor"][key][1])
        body = b"\x00" * 16
        b.req(key, hi + 1, raw=body, label="%s v%d" % (codec.api_name(key), hi + 1),
              conn=b.conn())


@case("unserved_apis")
def unserved_apis(b):
    """An API Kafka serves and Gregor does not (yet): Kafka answers,
    Gregor closes the connection (the ACL APIs are served: cases_acl.py;
    client quotas: cases_quotas.py)."""
    # served since issue 19: on a listener without SASL both answer
    # ILLEGAL_SASL_STATE (KafkaApis), and the SCRAM credentials are listed
    for v in (0, 1):
        b.req("SaslHandshake", v, {"mechanism": "PLAIN"}, conn=b.conn())
    for v in (0, 1, 2):
        b.req("SaslAuthenticate", v, {"auth_bytes": b""}, conn=b.conn())
    b.req("DescribeUserScramCredentials", 0, {"users": [{"name": "nobody"}]},
          conn=b.conn())
    # refusals only (nothing changes): too few iterations, deleting what
    # does not exist, an unknown mechanism, an empty name
    b.req("AlterUserScramCredentials", 0, {
        "deletions": [{"name": "nobody", "mechanism": 2},
                      {"name": "", "mechanism": 1}],
        "upsertions": [{"name": "few", "mechanism": 1, "iterations": 4095,
                        "salt": b"salt", "salted_password": b"x" * 32},
                       {"name": "odd", "mechanism": 3, "iterations": 4096,
                        "salt": b"salt", "salted_password": b"x" * 32}]},
        conn=b.conn(), filt=lambda r: sorted(
            (x["user"], x["error_code"], x["error_message"]) for x in r["results"]))


@case("malformed_frames")
def malformed_frames(b):
    """Frames no client should send: both brokers close the connection
    (and keep serving others)."""
    md = codec.request_bytes_body(3, 12, {"topics": [{"name": "x"}],
                                          "allow_auto_topic_creation": False})
    b.req("Metadata", 12, raw=md[:3], label="cut body", conn=b.conn())
    b.req("Metadata", 12, raw=b"\xff" * 40, label="garbage body", conn=b.conn())
    b.req("Metadata", 1, raw=struct.pack(">i", 5), label="array longer than the body",
          conn=b.conn())
    b.req("Metadata", 1, raw=struct.pack(">i", -2), label="array of negative size",
          conn=b.conn(), filt=lambda r: {"brokers": len(r["brokers"])})
    b.req("Metadata", 1, raw=struct.pack(">ih", 1, 200) + b"ab", label="string past the body",
          conn=b.conn())
    # an unknown API key
    c = b.conn()
    data = struct.pack(">hhih", 999, 0, 1, 1) + b"x"
    c.send(struct.pack(">i", len(data)) + data)
    try:
        c.recv(5)
        out = "answer"
    except EOFError:
        out = "closed"
    except OSError as e:
        out = "error %s" % type(e).__name__
    b.note("unknown API key 999", out)
    # the broker serves the next connection
    b.req("Metadata", 12, {"topics": [], "allow_auto_topic_creation": False},
          label="Metadata after the bad frames", filt=lambda r: {
              "brokers": len(r["brokers"]), "controller_id": r["controller_id"]})
