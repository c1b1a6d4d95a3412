"""
tests/diff/cases_consumer_groups.py: consumer groups of the KIP-848
protocol: ConsumerGroupHeartbeat (v0-v1) and ConsumerGroupDescribe (v0-v1)
beside Kafka 4.4's answers: the request checks and their messages, a
member's join, the group epoch and member epochs of a second member's
join, the revocation before a partition moves (UNREVOKED, then
UNRELEASED), leaves (-1) and static members (-2, the instance id's
replacement, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID), the range
assignor by ServerAssignor, OffsetCommit/OffsetFetch with member epochs,
DescribeGroups and ListGroups of both group types, and the conflicts of
the two protocols on one group id.

The uniform assignor's choices follow hash-map orders in Kafka; the cases
use partition counts whose outcome does not depend on them (two members,
an even count).
"""

import time

from harness import case
from common import create, coordinator
from cases_groups import join_body

UNKNOWN_MEMBER_ID, REBALANCE_IN_PROGRESS = 25, 27


def hb(b, v, group, member, epoch, label=None, topics=None, regex=None, owned=None,
       instance=None, rack=None, rebalance=-1, assignor=None, conn=None, **kw):
    body = {"group_id": group, "member_id": member, "member_epoch": epoch,
            "instance_id": instance, "rack_id": rack, "rebalance_timeout_ms": rebalance,
            "subscribed_topic_names": topics, "server_assignor": assignor,
            "topic_partitions": owned}
    if v >= 1:
        body["subscribed_topic_regex"] = regex
    return b.req("ConsumerGroupHeartbeat", v, body, label=label, conn=conn, **kw)


def join(b, v, group, member, topics, label=None, **kw):
    return hb(b, v, group, member, 0, label=label or "join", topics=topics, owned=[],
              rebalance=kw.pop("rebalance", 30000), **kw)


def parts(r):
    """The partitions of a heartbeat answer's assignment (None: none)."""
    a = r.get("assignment") if r else None
    if a is None:
        return None
    return sorted(p for tp in a["topic_partitions"] for p in tp["partitions"])


def owned(tid, ps):
    return [{"topic_id": tid, "partitions": ps}] if ps else []


def describe(b, v, groups, label=None, ops=False):
    return b.req("ConsumerGroupDescribe", v, {"group_ids": groups,
                                              "include_authorized_operations": ops},
                 label=label)


def own_groups(b):
    pre = b.t()

    def filt(r):
        r["groups"] = [g for g in r["groups"] if g["group_id"].startswith(pre)]
        return r
    return filt


@case("cg_request_errors")
def cg_request_errors(b):
    """The request checks of GroupCoordinatorService and the errors of a
    group or member the coordinator does not know, at both versions."""
    t = b.t("t")
    create(b, t, 1)
    g = b.t("g")
    coordinator(b, g)
    for v in (0, 1):
        hb(b, v, g, "", 1, label="no member id, epoch 1")
        hb(b, v, g, "", -1, label="no member id, leaving")
        hb(b, v, "", "m", 0, label="no group id", topics=[t], owned=[], rebalance=1000)
        hb(b, v, " ", "m", 0, label="blank group id", topics=[t], owned=[], rebalance=1000)
        hb(b, v, g, "m", 0, label="blank instance id", instance=" ", topics=[t], owned=[],
           rebalance=1000)
        hb(b, v, g, "m", 0, label="empty rack id", rack="", topics=[t], owned=[],
           rebalance=1000)
        hb(b, v, g, "m", 0, label="join without a rebalance timeout", topics=[t], owned=[])
        hb(b, v, g, "m", 0, label="join with null owned partitions", topics=[t],
           rebalance=1000)
        hb(b, v, g, "m", 0, label="join without a subscription", owned=[], rebalance=1000)
        hb(b, v, g, "m", -2, label="static leave without an instance id")
        hb(b, v, g, "m", -3, label="epoch -3")
        hb(b, v, g, "m", 0, label="unknown assignor", topics=[t], owned=[], rebalance=1000,
           assignor="sticky")
        hb(b, v, g, "m", 3, label="unknown group, epoch 3")
        hb(b, v, g, "m", -1, label="unknown group, leaving")
    hb(b, 1, g, "m", 0, label="empty regex", regex="", owned=[], rebalance=1000)
    describe(b, 1, [g], label="describe after a failed join")
    describe(b, 0, ["", b.t("nope")], label="describe an empty and an unknown group")


@case("cg_lifecycle", timeout=90)
def cg_lifecycle(b):
    """Two members of one topic of four partitions: the join, the second
    member's join and the revocation that moves two partitions, commits
    and fetches with member epochs, the describes along the way, and the
    leaves."""
    t = b.t("t")
    tid = create(b, t, 4)
    g = b.t("g")
    coordinator(b, g)
    ma, mb = b.t("member-a"), b.t("member-b")
    r = join(b, 1, g, ma, [t], label="a joins")
    ea = r["member_epoch"]
    describe(b, 1, [g], label="one member")
    describe(b, 0, [g], label="one member, v0")
    hb(b, 1, g, ma, ea, owned=owned(tid, [0, 1, 2, 3]), label="a owns everything")
    b.req("OffsetCommit", 9, {
        "group_id": g, "generation_id_or_member_epoch": ea, "member_id": ma,
        "topics": [{"name": t, "partitions": [
            {"partition_index": p, "committed_offset": 10 + p, "committed_leader_epoch": -1,
             "committed_metadata": ""} for p in range(4)]}]}, label="a commits")
    for label, epoch, member in (("stale epoch", ea + 1, ma), ("unknown member", ea, "x"),
                                 ("older epoch", ea - 1, ma)):
        b.req("OffsetCommit", 9, {
            "group_id": g, "generation_id_or_member_epoch": epoch, "member_id": member,
            "topics": [{"name": t, "partitions": [
                {"partition_index": 0, "committed_offset": 1, "committed_leader_epoch": -1,
                 "committed_metadata": ""}]}]}, label="commit, " + label)
    b.req("OffsetCommit", 8, {
        "group_id": g, "generation_id_or_member_epoch": ea, "member_id": ma,
        "topics": [{"name": t, "partitions": [
            {"partition_index": 0, "committed_offset": 1, "committed_leader_epoch": -1,
             "committed_metadata": ""}]}]}, label="commit v8 from a consumer member")
    for label, epoch, member in (("a", ea, ma), ("stale epoch", ea + 1, ma),
                                 ("unknown member", ea, "x"), ("no member", -1, None)):
        b.req("OffsetFetch", 9, {"groups": [{"group_id": g, "member_id": member,
                                             "member_epoch": epoch,
                                             "topics": [{"name": t,
                                                         "partition_indexes": [0, 1]}]}],
                                 "require_stable": True}, label="fetch, " + label)
    # past the assignment interval (1 s): the next join computes a target
    time.sleep(1.2)
    r = join(b, 1, g, mb, [t], label="b joins")
    eb = r["member_epoch"]
    describe(b, 1, [g], label="b joined")
    r = hb(b, 1, g, ma, ea, owned=owned(tid, [0, 1, 2, 3]), label="a learns to revoke")
    b.note("a keeps", parts(r))
    r = hb(b, 1, g, mb, eb, owned=[], label="b waits for the revocation")
    describe(b, 1, [g], label="while a revokes")
    r = hb(b, 1, g, ma, ea, owned=owned(tid, [0, 1]), label="a revoked")
    ea = r["member_epoch"]
    r = hb(b, 1, g, mb, eb, owned=[], label="b gets its share")
    eb = r["member_epoch"]
    hb(b, 1, g, mb, eb, owned=owned(tid, parts(r) or []), label="b owns its share")
    describe(b, 1, [g], label="stable")
    b.req("DescribeGroups", 6, {"groups": [g], "include_authorized_operations": False},
          label="DescribeGroups of a consumer group")
    b.req("DescribeGroups", 5, {"groups": [g], "include_authorized_operations": False},
          label="DescribeGroups v5 of a consumer group")
    for v in (4, 5):
        b.req("ListGroups", v, {"states_filter": [], "types_filter": []}, filt=own_groups(b),
              label="list v%d" % v)
    b.req("ListGroups", 5, {"states_filter": ["STABLE"], "types_filter": ["consumer"]},
          filt=own_groups(b), label="list stable consumer groups")
    b.req("ListGroups", 5, {"states_filter": [], "types_filter": ["classic"]},
          filt=own_groups(b), label="list classic groups")
    b.req("OffsetCommit", 9, {
        "group_id": g, "generation_id_or_member_epoch": eb, "member_id": mb,
        "topics": [{"name": t, "partitions": [
            {"partition_index": 0, "committed_offset": 1, "committed_leader_epoch": -1,
             "committed_metadata": ""}]}]}, label="b commits a's partition")
    b.req("Heartbeat", 4, {"group_id": g, "generation_id": eb, "member_id": mb,
                           "group_instance_id": None}, label="classic heartbeat")
    b.req("SyncGroup", 5, {"group_id": g, "generation_id": eb, "member_id": mb,
                           "group_instance_id": None, "protocol_type": "consumer",
                           "protocol_name": "range", "assignments": []},
          label="classic sync")
    b.req("JoinGroup", 9, join_body(g, "", topics=[t]), label="classic join",
          deliberate="no-online-migration", expect={
              "kafka": lambda s: s.resp["error_code"] == 79,
              "gregor": lambda s: s.resp["error_code"] == 23})
    b.req("DeleteGroups", 2, {"groups_names": [g]}, label="delete a non-empty group")
    hb(b, 1, g, ma, ea + 5, label="a from the future")
    hb(b, 1, g, ma, ea, label="a heartbeats")
    hb(b, 1, g, ma, -1, label="a leaves")
    hb(b, 1, g, ma, -1, label="a leaves again")
    describe(b, 1, [g], label="a left")
    # past the assignment interval again, on both brokers whatever their
    # pace: the heartbeat computes the target without a
    time.sleep(1.2)
    hb(b, 1, g, mb, eb, owned=owned(tid, [2, 3]), label="b heartbeats after a left")
    hb(b, 1, g, mb, -1, label="b leaves")
    describe(b, 1, [g], label="empty")
    b.req("ListGroups", 5, {"states_filter": ["empty"], "types_filter": []},
          filt=own_groups(b), label="list empty groups")
    b.req("OffsetFetch", 9, {"groups": [{"group_id": g, "member_id": None, "member_epoch": -1,
                                         "topics": None}], "require_stable": False},
          label="the offsets outlive the members")
    b.req("DeleteGroups", 2, {"groups_names": [g]}, label="delete the empty group")
    describe(b, 1, [g], label="deleted")


@case("cg_static", timeout=90)
def cg_static(b):
    """A static member: the instance id taken twice, a temporary leave
    (-2) that keeps the assignment, the replacement by a new member id at
    epoch 0, a fenced member id, and the final leave."""
    t = b.t("t")
    tid = create(b, t, 2)
    g = b.t("g")
    coordinator(b, g)
    m1, m2 = b.t("static-1"), b.t("static-2")
    r = join(b, 1, g, m1, [t], instance="i1", label="i1 joins")
    e1 = r["member_epoch"]
    hb(b, 1, g, m1, e1, owned=owned(tid, [0, 1]), instance="i1", label="i1 owns both")
    join(b, 1, g, m2, [t], instance="i1", label="i1 taken")
    hb(b, 1, g, m2, e1, instance="i1", label="i1 with another member id")
    hb(b, 1, g, m1, -2, instance="i1", label="i1 leaves for a while")
    describe(b, 1, [g], label="after the temporary leave")
    hb(b, 1, g, m1, -2, instance="i2", label="unknown instance leaves")
    r = join(b, 1, g, m2, [t], instance="i1", label="i1 back as another member")
    hb(b, 1, g, m2, r["member_epoch"], owned=owned(tid, [0, 1]), instance="i1",
       label="i1 owns both again")
    describe(b, 1, [g], label="after the replacement")
    hb(b, 1, g, m1, e1, instance="i1", label="the old member id")
    b.req("LeaveGroup", 5, {"group_id": g, "member_id": "", "members": [
        {"member_id": "", "group_instance_id": "i9", "reason": "x"},
        {"member_id": m1, "group_instance_id": "i1", "reason": "x"}]},
        label="LeaveGroup of unknown and fenced instances")
    b.req("LeaveGroup", 5, {"group_id": g, "member_id": "", "members": [
        {"member_id": "", "group_instance_id": "i1", "reason": "admin"}]},
        label="LeaveGroup removes i1")
    describe(b, 1, [g], label="after the admin removal")


@case("cg_range", timeout=60)
def cg_range(b):
    """The range assignor, chosen by the members' ServerAssignor: ranges
    by member id, two topics co-partitioned."""
    t1, t2 = b.t("t1"), b.t("t2")
    create(b, t1, 3)
    create(b, t2, 3)
    g = b.t("g")
    coordinator(b, g)
    ma, mb = b.t("ra"), b.t("rb")
    join(b, 0, g, ma, [t1, t2], assignor="range", label="a joins, v0")
    describe(b, 1, [g], label="range with one member")
    time.sleep(1.2)
    join(b, 1, g, mb, [t1, t2], assignor="range", label="b joins")
    describe(b, 1, [g], label="range targets")
    r = hb(b, 0, g, "", 0, topics=[t1], owned=[], rebalance=5000, label="v0 names the member")
    b.note("v0 member id given", bool(r and r.get("member_id")))


@case("cg_protocol_conflicts", timeout=60)
def cg_protocol_conflicts(b):
    """A classic group with members refuses a consumer heartbeat; an Empty
    classic group (offsets only) becomes a consumer group and keeps its
    offsets; an Empty consumer group takes a classic JoinGroup."""
    t = b.t("t")
    create(b, t, 1)
    g = b.t("classic")
    coordinator(b, g)
    r = b.req("JoinGroup", 9, join_body(g, "", topics=[t]), label="classic join")
    r = b.req("JoinGroup", 9, join_body(g, r["member_id"], topics=[t]),
              label="classic join with the member id")
    # Kafka (group.consumer.migration.policy=bidirectional) upgrades the
    # group online; Gregor answers as Kafka does with the policy disabled
    hb(b, 1, g, b.t("m"), 0, topics=[t], owned=[], rebalance=1000,
       label="consumer join of a classic group with a member",
       deliberate="no-online-migration", expect={
           "kafka": lambda s: s.resp["error_code"] == 0,
           "gregor": lambda s: s.resp["error_code"] == 69})
    hb(b, 1, g, b.t("m"), 3, label="consumer heartbeat of a classic group",
       deliberate="no-online-migration", expect={
           "kafka": lambda s: s.resp["error_code"] == 110,
           "gregor": lambda s: s.resp["error_code"] == 69})
    b.req("ConsumerGroupDescribe", 1, {"group_ids": [b.t("none")],
                                       "include_authorized_operations": True},
          label="describe an unknown group with operations")
    s = b.t("simple")
    coordinator(b, s)
    b.req("OffsetCommit", 9, {
        "group_id": s, "generation_id_or_member_epoch": -1, "member_id": "",
        "topics": [{"name": t, "partitions": [
            {"partition_index": 0, "committed_offset": 7, "committed_leader_epoch": -1,
             "committed_metadata": "x"}]}]}, label="simple commit")
    b.req("OffsetCommit", 9, {
        "group_id": b.t("none"), "generation_id_or_member_epoch": 3, "member_id": "m",
        "topics": [{"name": t, "partitions": [
            {"partition_index": 0, "committed_offset": 7, "committed_leader_epoch": -1,
             "committed_metadata": "x"}]}]}, label="commit v9 to an unknown group")
    r = join(b, 1, s, b.t("sm"), [t], label="consumer join of the simple group")
    b.req("OffsetFetch", 9, {"groups": [{"group_id": s, "member_id": b.t("sm"),
                                         "member_epoch": r["member_epoch"],
                                         "topics": None}], "require_stable": True},
          label="the simple group's offsets")
    hb(b, 1, s, b.t("sm"), -1, label="the consumer member leaves")
    r = b.req("JoinGroup", 9, join_body(s, "", topics=[t]), label="classic join of it")
    b.req("JoinGroup", 9, join_body(s, r["member_id"], topics=[t]),
          label="classic join of it with the member id")
    b.req("ListGroups", 5, {"states_filter": [], "types_filter": []}, filt=own_groups(b),
          label="both types", deliberate="no-online-migration", expect={
              "kafka": lambda st: [x["group_type"] for x in st.resp["groups"]
                                   if x["group_id"] == g] == ["consumer"],
              "gregor": lambda st: [x["group_type"] for x in st.resp["groups"]
                                    if x["group_id"] == g] == ["classic"]})
    b.req("ListGroups", 5, {"states_filter": [], "types_filter": ["classic"]},
          filt=lambda r: dict(r, groups=[x for x in r["groups"] if x["group_id"] == s]),
          label="the former consumer group, classic again")


@case("cg_regex", timeout=60)
def cg_regex(b):
    """Subscriptions by regular expression (v1): what it resolves to, an
    invalid one."""
    t1, t2 = b.t("r1"), b.t("r2")
    create(b, t1, 1)
    create(b, t2, 1)
    g = b.t("g")
    coordinator(b, g)
    hb(b, 1, g, b.t("x"), 0, regex="(", owned=[], rebalance=1000, label="invalid regex")
    hb(b, 1, g, b.t("m"), 0, regex=b.t("r") + ".*", owned=[], rebalance=1000,
       label="join by regex")
    time.sleep(11)
    b.until("ConsumerGroupHeartbeat", 1, {
        "group_id": g, "member_id": b.t("m"), "member_epoch": 0, "rebalance_timeout_ms": 1000,
        "subscribed_topic_regex": b.t("r") + ".*", "topic_partitions": []},
        lambda r: r["error_code"] == 0 and len(parts(r) or []) == 2, timeout=15,
        label="the regex resolved")
    describe(b, 1, [g], label="a regex member")
