"""
tests/diff/cases_groups.py: the classic group protocol and committed
offsets at every version: FindCoordinator, JoinGroup (with the member id
round of v4+), SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch,
OffsetDelete, DescribeGroups, ListGroups, DeleteGroups; the state errors
(unknown members, stale generations, rebalances in progress, fenced static
members, groups not empty) and what a second member's join does to the
first.
"""

import struct

from harness import case
from common import create, coordinator
from cases_versions import LEGACY_MIN


def subscription(topics, version=0):
    """ConsumerProtocolSubscription v0 (what a consumer joins with)."""
    out = struct.pack(">hi", version, len(topics))
    for t in topics:
        out += struct.pack(">h", len(t)) + t.encode()
    out += struct.pack(">i", -1)  # user data: null
    if version >= 1:
        out += struct.pack(">i", 0)  # owned partitions: none
    return out


def assignment(parts):
    """ConsumerProtocolAssignment v0 of {topic: [partitions]}."""
    out = struct.pack(">hi", 0, len(parts))
    for t, ps in parts.items():
        out += struct.pack(">h", len(t)) + t.encode() + struct.pack(">i", len(ps))
        out += b"".join(struct.pack(">i", p) for p in ps)
    return out + struct.pack(">i", -1)


def join_body(group, member="", topics=("t",), instance=None, session=10000, rebalance=10000,
              protocol_type="consumer", protocols=None, reason=None):
    return {"group_id": group, "session_timeout_ms": session, "rebalance_timeout_ms": rebalance,
            "member_id": member, "group_instance_id": instance, "protocol_type": protocol_type,
            "protocols": protocols if protocols is not None else
            [{"name": "range", "metadata": subscription(list(topics))}],
            "reason": reason}


def join(b, v, group, member="", label=None, **kw):
    """JoinGroup at v; from v4 the first answer is MEMBER_ID_REQUIRED with
    the member id to join with, as clients then do. Returns the answer
    that ends the join."""
    r = b.req("JoinGroup", v, join_body(group, member, **kw), label=label or "join")
    if r and r["error_code"] == 79:  # MEMBER_ID_REQUIRED
        r = b.req("JoinGroup", v, join_body(group, r["member_id"], **kw),
                  label=(label or "join") + " with the member id")
    return r


def sync(b, v, group, gen, member, assignments=None, label=None, instance=None):
    return b.req("SyncGroup", v, {
        "group_id": group, "generation_id": gen, "member_id": member,
        "group_instance_id": instance, "protocol_type": "consumer", "protocol_name": "range",
        "assignments": assignments or []}, label=label)


def hb(b, v, group, gen, member, label=None, instance=None, conn=None):
    return b.req("Heartbeat", v, {"group_id": group, "generation_id": gen, "member_id": member,
                                  "group_instance_id": instance}, label=label, conn=conn)


def leave(b, v, group, member, label=None, instance=None):
    return b.req("LeaveGroup", v, {"group_id": group, "member_id": member, "members": [
        {"member_id": member, "group_instance_id": instance, "reason": "done"}]}, label=label)


def describe(b, v, groups, label=None, ops=False):
    return b.req("DescribeGroups", v, {"groups": groups, "include_authorized_operations": ops},
                 label=label)


def own_groups(b):
    pre = b.t()

    def filt(r):
        r["groups"] = [g for g in r["groups"] if g["group_id"].startswith(pre)]
        return r
    return filt


@case("find_coordinator")
def find_coordinator(b):
    g = b.t("g")
    coordinator(b, g)
    for v in range(0, 7):
        body = {"key": g, "key_type": 0, "coordinator_keys": [g]}
        b.req("FindCoordinator", v, body)
        if v >= 1:
            b.req("FindCoordinator", v, dict(body, key_type=1), label="transaction coordinator")
            b.req("FindCoordinator", v, dict(body, key_type=7), label="unknown key type")
        b.req("FindCoordinator", v, dict(body, key="", coordinator_keys=[""]), label="empty key")
    b.req("FindCoordinator", 4, {"key_type": 0, "coordinator_keys": [g, b.t("h"), g]},
          label="several keys")
    b.req("FindCoordinator", 4, {"key_type": 0, "coordinator_keys": []}, label="no keys")
    b.req("FindCoordinator", 6, {"key_type": 2, "coordinator_keys": [b.t("s") + ":t:0"]},
          label="share coordinator")


@case("group_lifecycle", timeout=90)
def group_lifecycle(b):
    """One member's whole life at each JoinGroup version, with the other
    APIs at the versions a client of that generation uses."""
    t = b.t("t")
    create(b, t, 2)
    for v in range(0, 10):
        g = b.t("g%d" % v)
        coordinator(b, g)
        sv, hv, lv = min(v, 5), min(v, 4), min(v, 5)
        r = join(b, v, g, topics=[t])
        member, gen = r["member_id"], r["generation_id"]
        sync(b, sv, g, gen, member, [{"member_id": member, "assignment": assignment({t: [0, 1]})}])
        hb(b, hv, g, gen, member)
        describe(b, min(v, 6), [g])
        ov = min(v + 2, 9)
        b.req("OffsetCommit", ov, {
            "group_id": g, "generation_id_or_member_epoch": gen, "member_id": member,
            "retention_time_ms": -1, "topics": [{"name": t, "partitions": [
                {"partition_index": 0, "committed_offset": 5, "committed_leader_epoch": -1,
                 "committed_metadata": "m"}]}]}, label="commit as a member")
        fv = max(1, min(v, 7))
        b.req("OffsetFetch", fv, {"group_id": g, "topics": [{"name": t, "partition_indexes": [0]}]},
              label="fetch as a member")
        leave(b, lv, g, member)
        describe(b, min(v, 6), [g], label="after leaving")
        hb(b, hv, g, gen, member, label="heartbeat after leaving")
    b.req("ListGroups", 5, {"states_filter": [], "types_filter": []}, filt=own_groups(b))


@case("join_errors", timeout=90)
def join_errors(b):
    t = b.t("t")
    g = b.t("g")
    coordinator(b, g)
    for v in (0, 1, 4, 5, 7, 9):
        join(b, v, g, session=100, label="session timeout below the minimum")
        join(b, v, g, session=10 ** 9, label="session timeout above the maximum")
        join(b, v, "", label="empty group id")
        join(b, v, g, member="gregor-diff-unknown", label="unknown member id")
        join(b, v, g, protocols=[], label="no protocols")
    # a group of one member, then a member of another protocol type
    r = join(b, 5, g, topics=[t])
    m1, gen = r["member_id"], r["generation_id"]
    b.req("JoinGroup", 5, join_body(g, "", protocol_type="connect"), label="another protocol type")
    b.req("JoinGroup", 5, join_body(g, "", protocols=[{"name": "roundrobin", "metadata": subscription([t])}]),
          label="no common protocol")
    sync(b, 5, g, gen, m1, [{"member_id": m1, "assignment": assignment({t: [0]})}])
    sync(b, 5, g, gen, m1, [], label="sync again")
    sync(b, 5, g, gen + 1, m1, [], label="sync, later generation")
    sync(b, 5, g, gen, "gregor-diff-x", [], label="sync, unknown member")
    sync(b, 5, b.t("nope"), 1, "gregor-diff-x", [], label="sync, unknown group")
    b.req("SyncGroup", 5, {"group_id": g, "generation_id": gen, "member_id": m1,
                           "protocol_type": "connect", "protocol_name": "range", "assignments": []},
          label="sync, other protocol type")
    for v in range(0, 5):
        hb(b, v, g, gen, m1, label="heartbeat")
        hb(b, v, g, gen + 5, m1, label="heartbeat, later generation")
        hb(b, v, g, gen - 1, m1, label="heartbeat, older generation")
        hb(b, v, g, gen, "gregor-diff-x", label="heartbeat, unknown member")
        hb(b, v, b.t("nope"), 1, "gregor-diff-x", label="heartbeat, unknown group")
        hb(b, v, "", 1, "x", label="heartbeat, empty group id")
    for v in range(0, 6):
        b.req("LeaveGroup", v, {"group_id": g, "member_id": "gregor-diff-x", "members": [
            {"member_id": "gregor-diff-x", "group_instance_id": None}]}, label="leave, unknown member")
        b.req("LeaveGroup", v, {"group_id": b.t("nope"), "member_id": "x", "members": [
            {"member_id": "x", "group_instance_id": None}]}, label="leave, unknown group")
    b.req("LeaveGroup", 5, {"group_id": g, "members": []}, label="leave, no members")


@case("rebalance", timeout=90)
def rebalance(b):
    """A second member joins a stable group: the first one's heartbeat
    says REBALANCE_IN_PROGRESS, it joins again, both get the new
    generation, the leader's assignment reaches both."""
    t = b.t("t")
    create(b, t, 2)
    g = b.t("g")
    coordinator(b, g)
    r = join(b, 5, g, topics=[t], rebalance=20000)
    m1, gen1 = r["member_id"], r["generation_id"]
    sync(b, 5, g, gen1, m1, [{"member_id": m1, "assignment": assignment({t: [0, 1]})}])
    c2 = b.conn(client_id="gregor-diff-second")
    r = b.req("JoinGroup", 5, join_body(g, "", topics=[t], rebalance=20000), conn=c2,
              label="second member asks for an id")
    m2 = r["member_id"]
    h2 = b.start("JoinGroup", 5, join_body(g, m2, topics=[t], rebalance=20000), conn=c2,
                 label="second member joins")
    # the first member learns of the rebalance (Kafka's answer may take a
    # moment: the join above must reach the coordinator first)
    b.until("Heartbeat", 4, {"group_id": g, "generation_id": gen1, "member_id": m1},
            lambda r: r["error_code"] != 0, timeout=10, label="heartbeat during the rebalance")
    describe(b, 5, [g], label="preparing rebalance")
    r1 = b.req("JoinGroup", 5, join_body(g, m1, topics=[t], rebalance=20000), timeout=30,
               label="first member joins again")
    r2 = b.finish(h2, timeout=30)
    gen2 = r1["generation_id"]
    leader = r1["leader"]
    lead_member = m1 if leader == m1 else m2
    other = m2 if lead_member == m1 else m1
    c_lead = None if lead_member == m1 else c2
    c_other = c2 if lead_member == m1 else None
    b.note("the leader is the first member", leader == m1)
    h_other = b.start("SyncGroup", 5, {"group_id": g, "generation_id": gen2, "member_id": other,
                                       "protocol_type": "consumer", "protocol_name": "range",
                                       "assignments": []}, conn=c_other or b.default_conn(),
                      label="follower syncs")
    b.req("SyncGroup", 5, {"group_id": g, "generation_id": gen2, "member_id": lead_member,
                           "protocol_type": "consumer", "protocol_name": "range",
                           "assignments": [{"member_id": lead_member, "assignment": assignment({t: [0]})},
                                           {"member_id": other, "assignment": assignment({t: [1]})}]},
          conn=c_lead, label="leader syncs")
    b.finish(h_other)
    hb(b, 4, g, gen1, m1, label="heartbeat, old generation")
    hb(b, 4, g, gen2, m1, label="heartbeat, new generation")
    describe(b, 5, [g], label="stable with two")
    # a commit by a member at an old generation
    b.req("OffsetCommit", 8, {"group_id": g, "generation_id_or_member_epoch": gen1, "member_id": m1,
                              "topics": [{"name": t, "partitions": [{"partition_index": 0,
                                                                     "committed_offset": 1}]}]},
          label="commit, old generation")
    leave(b, 5, g, m1)
    leave(b, 5, g, m2)
    describe(b, 5, [g], label="empty")


@case("static_members", timeout=90)
def static_members(b):
    t = b.t("t")
    create(b, t)
    g = b.t("g")
    coordinator(b, g)
    r = join(b, 5, g, topics=[t], instance="i1")
    m1, gen = r["member_id"], r["generation_id"]
    sync(b, 5, g, gen, m1, [{"member_id": m1, "assignment": assignment({t: [0]})}], instance="i1")
    hb(b, 4, g, gen, m1, instance="i1")
    hb(b, 4, g, gen, m1, instance="i2", label="heartbeat, other instance id")
    # the same instance id again, with no member id: replaces the member
    r = join(b, 5, g, topics=[t], instance="i1", label="instance rejoins")
    m1b = r["member_id"]
    b.note("a new member id", m1b != m1)
    hb(b, 4, g, gen, m1, instance="i1", label="heartbeat of the fenced member")
    b.req("OffsetCommit", 8, {"group_id": g, "generation_id_or_member_epoch": gen, "member_id": m1,
                              "group_instance_id": "i1", "topics": [{"name": t, "partitions": [
                                  {"partition_index": 0, "committed_offset": 1}]}]},
          label="commit of the fenced member")
    describe(b, 5, [g], label="static member")
    b.req("LeaveGroup", 5, {"group_id": g, "members": [
        {"member_id": "", "group_instance_id": "i1"},
        {"member_id": "", "group_instance_id": "i9"}]}, label="leave by instance ids")
    describe(b, 5, [g], label="after leaving")


@case("offsets", alone=True)
def offsets(b):
    t = b.t("t")
    create(b, t, 3)
    g = b.t("g")
    coordinator(b, g)
    part = lambda p, off, meta="m", epoch=-1: {"partition_index": p, "committed_offset": off,
                                                "committed_leader_epoch": epoch,
                                                "committed_metadata": meta, "commit_timestamp": -1}
    for v in range(0, 11):
        body = {"group_id": g, "generation_id_or_member_epoch": -1, "member_id": "",
                "retention_time_ms": -1,
                "topics": [{"name": t, "partitions": [part(0, 10 + v), part(1, 20 + v, meta=None)]}]}
        if v < LEGACY_MIN["OffsetCommit"]:
            b.legacy("OffsetCommit", v, body)
        else:
            if v >= 10:
                from common import topic_id
                body["topics"][0]["topic_id"] = topic_id(b, t)
            b.req("OffsetCommit", v, body, label="simple commit")
    for v in range(0, 11):
        if v < 8:
            body = {"group_id": g, "topics": [{"name": t, "partition_indexes": [0, 1, 2]}],
                    "require_stable": False}
        else:
            tp = {"name": t, "partition_indexes": [0, 1, 2]}
            if v >= 10:
                from common import topic_id
                tp["topic_id"] = topic_id(b, t)
            body = {"groups": [{"group_id": g, "member_id": None, "member_epoch": -1,
                                "topics": [tp]}], "require_stable": False}
        if v < LEGACY_MIN["OffsetFetch"]:
            b.legacy("OffsetFetch", v, body)
        else:
            b.req("OffsetFetch", v, body)
        if v >= 2:
            all_body = ({"group_id": g, "topics": None} if v < 8 else
                        {"groups": [{"group_id": g, "topics": None}]})
            b.req("OffsetFetch", v, all_body, label="all partitions")
    # errors
    oc = lambda label, body, v=9: b.req("OffsetCommit", v, dict({
        "group_id": g, "generation_id_or_member_epoch": -1, "member_id": ""}, **body), label=label)
    oc("unknown topic", {"topics": [{"name": b.t("nope"), "partitions": [part(0, 1)]}]})
    oc("unknown partition", {"topics": [{"name": t, "partitions": [part(9, 1)]}]})
    oc("metadata too large", {"topics": [{"name": t, "partitions": [part(0, 1, meta="x" * 5000)]}]})
    oc("negative offset", {"topics": [{"name": t, "partitions": [part(0, -5)]}]})
    oc("generation without member", {"generation_id_or_member_epoch": 3,
                                      "topics": [{"name": t, "partitions": [part(0, 1)]}]})
    oc("member of no group", {"member_id": "gregor-diff-x", "generation_id_or_member_epoch": 1,
                              "topics": [{"name": t, "partitions": [part(0, 1)]}]})
    oc("empty group id", {"group_id": "", "topics": [{"name": t, "partitions": [part(0, 1)]}]})
    oc("unknown topic id", {"topics": [{"name": None, "topic_id": "00000000-0000-0000-0000-0000000000ef",
                                        "partitions": [part(0, 1)]}]}, v=10)
    oc("metadata with a NUL", {"topics": [{"name": t, "partitions": [part(2, 7, meta="Hello\0world!")]}]})
    b.req("OffsetFetch", 9, {"groups": [{"group_id": g, "topics": [{"name": t, "partition_indexes": [2]}]},
                                        {"group_id": b.t("nope"), "topics": None}],
                             "require_stable": True}, label="three groups")
    b.req("OffsetFetch", 7, {"group_id": b.t("nope"), "topics": [{"name": t, "partition_indexes": [0]}],
                             "require_stable": True}, label="unknown group")
    b.req("OffsetFetch", 7, {"group_id": g, "topics": [{"name": b.t("nope"), "partition_indexes": [0]}]},
          label="unknown topic")
    b.req("OffsetFetch", 10, {"groups": [{"group_id": g, "topics": [
        {"topic_id": "00000000-0000-0000-0000-0000000000ef", "partition_indexes": [0]}]}]},
        label="unknown topic id")


@case("offset_delete", timeout=60, alone=True)
def offset_delete(b):
    t = b.t("t")
    create(b, t, 2)
    g = b.t("g")
    coordinator(b, g)
    b.req("OffsetCommit", 8, {"group_id": g, "generation_id_or_member_epoch": -1, "member_id": "",
                              "topics": [{"name": t, "partitions": [
                                  {"partition_index": 0, "committed_offset": 3},
                                  {"partition_index": 1, "committed_offset": 4}]}]}, label="commit")
    od = lambda label, group, topics: b.req("OffsetDelete", 0, {"group_id": group, "topics": topics},
                                            label=label)
    od("one partition", g, [{"name": t, "partitions": [{"partition_index": 0}]}])
    b.req("OffsetFetch", 7, {"group_id": g, "topics": None}, label="after")
    od("unknown group", b.t("nope"), [{"name": t, "partitions": [{"partition_index": 0}]}])
    od("unknown topic", g, [{"name": b.t("nope"), "partitions": [{"partition_index": 0}]}])
    od("unknown partition", g, [{"name": t, "partitions": [{"partition_index": 7}]}])
    od("empty group id", "", [{"name": t, "partitions": [{"partition_index": 0}]}])
    # a group with a member subscribed to the topic
    g2 = b.t("g2")
    coordinator(b, g2)
    r = join(b, 5, g2, topics=[t])
    m, gen = r["member_id"], r["generation_id"]
    sync(b, 5, g2, gen, m, [{"member_id": m, "assignment": assignment({t: [0, 1]})}])
    b.req("OffsetCommit", 8, {"group_id": g2, "generation_id_or_member_epoch": gen, "member_id": m,
                              "topics": [{"name": t, "partitions": [{"partition_index": 0,
                                                                     "committed_offset": 3}]}]},
          label="member commits")
    od("topic the group subscribes to", g2, [{"name": t, "partitions": [{"partition_index": 0}]}])
    leave(b, 5, g2, m)


@case("describe_list_delete_groups", timeout=60, alone=True)
def describe_list_delete_groups(b):
    t = b.t("t")
    create(b, t)
    g = b.t("g")
    coordinator(b, g)
    r = join(b, 5, g, topics=[t])
    m, gen = r["member_id"], r["generation_id"]
    sync(b, 5, g, gen, m, [{"member_id": m, "assignment": assignment({t: [0]})}])
    e = b.t("empty")
    coordinator(b, e)
    b.req("OffsetCommit", 8, {"group_id": e, "generation_id_or_member_epoch": -1, "member_id": "",
                              "topics": [{"name": t, "partitions": [{"partition_index": 0,
                                                                     "committed_offset": 1}]}]},
          label="commit to a simple group")
    for v in range(0, 7):
        describe(b, v, [g, e, b.t("nope"), ""], ops=(v >= 3))
    for v in range(0, 6):
        b.req("ListGroups", v, {"states_filter": [], "types_filter": []}, filt=own_groups(b))
    b.req("ListGroups", 4, {"states_filter": ["Stable"]}, filt=own_groups(b), label="Stable groups")
    b.req("ListGroups", 4, {"states_filter": ["Empty", "Dead"]}, filt=own_groups(b), label="Empty groups")
    b.req("ListGroups", 4, {"states_filter": ["NoSuchState"]}, filt=own_groups(b), label="unknown state")
    b.req("ListGroups", 5, {"types_filter": ["classic"]}, filt=own_groups(b), label="classic groups")
    b.req("ListGroups", 5, {"types_filter": ["consumer"]}, filt=own_groups(b), label="consumer groups")
    b.req("ListGroups", 5, {"types_filter": ["nosuchtype"]}, filt=own_groups(b), label="unknown type")
    for v in range(0, 4):
        b.req("DeleteGroups", v, {"groups_names": [g, b.t("nope"), ""]}, label="non-empty, unknown, empty id")
    leave(b, 5, g, m)
    b.req("DeleteGroups", 3, {"groups_names": [g, e]}, label="two empty groups")
    b.req("DeleteGroups", 3, {"groups_names": [g]}, label="deleted already")
    describe(b, 6, [g, e], label="deleted")
    b.req("OffsetFetch", 7, {"group_id": e, "topics": None}, label="offsets of a deleted group")
    b.req("DeleteGroups", 2, {"groups_names": [g, g]}, label="the same group twice")
