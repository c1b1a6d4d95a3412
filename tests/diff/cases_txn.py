"""
tests/diff/cases_txn.py: transactions at every version (InitProducerId,
AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn,
WriteTxnMarkers, DescribeTransactions, ListTransactions, DescribeProducers)
and what a transaction's commit and abort leave for Fetch (read_committed
and read_uncommitted, aborted transactions, the last stable offset,
control batches), with the state errors: fenced epochs, ends without a
transaction, partitions never added, timeouts.

Kafka writes a transaction's markers after EndTxn answers; a case waits
(unrecorded) until DescribeTransactions shows the end complete before it
reads what the markers decide.
"""

import time

from codec import batch
from harness import case
from common import create, produce, fetch, coordinator, topic_id
from cases_groups import join, sync, assignment


def init(b, tid, v=4, timeout_ms=60000, label=None, pid=-1, epoch=-1, record=True):
    r = b.req("InitProducerId", v, {"transactional_id": tid, "transaction_timeout_ms": timeout_ms,
                                    "producer_id": pid, "producer_epoch": epoch},
              label=label or "InitProducerId", record=record)
    return r


def init_ok(b, tid, v=4, timeout_ms=60000, label=None, record=True):
    """InitProducerId, retrying (unrecorded) while the coordinator says
    CONCURRENT_TRANSACTIONS (it is ending an earlier transaction)."""
    deadline = time.time() + 20
    while True:
        r = init(b, tid, v, timeout_ms, record=False)
        if r["error_code"] != 51 or time.time() > deadline:
            break
        time.sleep(0.1)
    if record:
        b.note(label or "InitProducerId", {"error_code": r["error_code"],
                                           "epoch": r["producer_epoch"]})
    return r["producer_id"], r["producer_epoch"]


def add_parts(b, v, tid, pid, ep, parts, label=None):
    """AddPartitionsToTxn: parts is {topic: [partitions]}."""
    topics = [{"name": t, "partitions": ps} for t, ps in parts.items()]
    if v <= 3:
        body = {"v3_and_below_transactional_id": tid, "v3_and_below_producer_id": pid,
                "v3_and_below_producer_epoch": ep, "v3_and_below_topics": topics}
    else:
        body = {"transactions": [{"transactional_id": tid, "producer_id": pid, "producer_epoch": ep,
                                  "verify_only": False, "topics": topics}]}
    return b.req("AddPartitionsToTxn", v, body, label=label)


def end(b, v, tid, pid, ep, commit=True, label=None):
    return b.req("EndTxn", v, {"transactional_id": tid, "producer_id": pid, "producer_epoch": ep,
                               "committed": commit}, label=label or ("commit" if commit else "abort"))


def txn_batch(vals, pid, ep, seq):
    return batch(vals, producer_id=pid, producer_epoch=ep, base_sequence=seq, transactional=True)


def describe_txn(b, tids, label=None, filt=None):
    return b.req("DescribeTransactions", 0, {"transactional_ids": tids}, label=label, filt=filt)


def wait_complete(b, tid):
    """Waits (unrecorded) until the transaction's end is complete, its
    markers written."""
    b.wait("DescribeTransactions", 0, {"transactional_ids": [tid]},
           lambda r: r["transaction_states"][0]["transaction_state"] in
           ("CompleteCommit", "CompleteAbort", "Empty"), timeout=20,
           what="transaction %s complete" % tid)


def _sorted_topics(r):
    for s in r.get("transaction_states") or []:
        for t in s.get("topics") or []:
            t["partitions"] = sorted(t["partitions"])
        if s.get("topics"):
            s["topics"] = sorted(s["topics"], key=lambda t: t["topic"])
    return r


@case("txn_versions", timeout=120)
def txn_versions(b):
    """One committed transaction per InitProducerId version, the other
    APIs at the versions a client of that generation sends."""
    t = b.t("t")
    create(b, t, 2)
    g = b.t("g")
    coordinator(b, g)
    for v in range(0, 6):
        tid = b.t("tx%d" % v)
        coordinator(b, tid, 1)
        r = init(b, tid, v)
        pid, ep = r["producer_id"], r["producer_epoch"]
        av = min(v, 3)
        add_parts(b, av, tid, pid, ep, {t: [0, 1]})
        produce(b, t, 0, txn_batch(["c%d" % v], pid, ep, 0), version=9 if v < 5 else 11,
                transactional_id=tid, label="transactional produce")
        b.req("AddOffsetsToTxn", min(v, 4), {"transactional_id": tid, "producer_id": pid,
                                             "producer_epoch": ep, "group_id": g})
        ov = min(v, 4)
        b.req("TxnOffsetCommit", ov, {"transactional_id": tid, "group_id": g, "producer_id": pid,
                                      "producer_epoch": ep, "generation_id": -1, "member_id": "",
                                      "topics": [{"name": t, "partitions": [
                                          {"partition_index": 0, "committed_offset": v,
                                           "committed_leader_epoch": -1, "committed_metadata": ""}]}]})
        end(b, min(v, 4), tid, pid, ep, True)
        wait_complete(b, tid)
    # EndTxn v5 and Produce v12 (transaction version 2): the epoch moves
    # on at every end, and Produce adds its partition itself
    tid = b.t("tv2")
    coordinator(b, tid, 1)
    r = init(b, tid, 5)
    pid, ep = r["producer_id"], r["producer_epoch"]
    for i in range(3):
        produce(b, t, 1, txn_batch(["tv2-%d" % i], pid, ep, 0), version=12, transactional_id=tid,
                label="Produce v12, partition added by the produce")
        b.req("AddOffsetsToTxn", 4, {"transactional_id": tid, "producer_id": pid, "producer_epoch": ep,
                                     "group_id": g})
        tid_t = topic_id(b, t)
        b.req("TxnOffsetCommit", 6, {"transactional_id": tid, "group_id": g, "producer_id": pid,
                                     "producer_epoch": ep, "generation_id": -1, "member_id": "",
                                     "topics": [{"topic_id": tid_t, "partitions": [
                                         {"partition_index": 1, "committed_offset": 100 + i}]}]},
              label="TxnOffsetCommit v6 by topic id")
        b.req("TxnOffsetCommit", 5, {"transactional_id": tid, "group_id": g, "producer_id": pid,
                                     "producer_epoch": ep, "generation_id": -1, "member_id": "",
                                     "topics": [{"name": t, "partitions": [
                                         {"partition_index": 0, "committed_offset": 200 + i}]}]},
              label="TxnOffsetCommit v5")
        r = end(b, 5, tid, pid, ep, i != 1, label="EndTxn v5")
        if r and r["error_code"] == 0:
            pid, ep = r["producer_id"], r["producer_epoch"]
        wait_complete(b, tid)
    end(b, 5, tid, pid, ep, False, label="EndTxn v5 abort without a transaction")
    b.req("OffsetFetch", 7, {"group_id": g, "topics": None, "require_stable": True},
          label="offsets committed in transactions")
    fetch(b, t, 0, 0, version=12, isolation=1, label="partition 0, read_committed")
    fetch(b, t, 1, 0, version=12, isolation=1, label="partition 1, read_committed")


@case("txn_fetch", timeout=90)
def txn_fetch(b):
    """What a commit and an abort leave: an open transaction holds the
    last stable offset; read_committed stops there; the abort is listed
    in aborted_transactions; control batches follow each end."""
    t = b.t("t")
    create(b, t, 2)
    tid = b.t("tx")
    coordinator(b, tid, 1)
    pid, ep = init_ok(b, tid)
    # a plain record first, then an open transaction
    produce(b, t, 0, batch(["plain"]), label="plain record")
    add_parts(b, 3, tid, pid, ep, {t: [0, 1]})
    produce(b, t, 0, txn_batch(["a0", "a1"], pid, ep, 0), transactional_id=tid, label="in txn 1")
    produce(b, t, 1, txn_batch(["b0"], pid, ep, 0), transactional_id=tid, label="in txn 1, partition 1")
    fetch(b, t, 0, 0, isolation=1, label="read_committed, open transaction")
    fetch(b, t, 0, 0, isolation=0, label="read_uncommitted, open transaction")
    fetch(b, t, 0, 0, isolation=1, version=4, label="read_committed v4, open transaction")
    for v in (2, 5, 9):
        b.req("ListOffsets", v, {"replica_id": -1, "isolation_level": 1, "topics": [
            {"name": t, "partitions": [{"partition_index": 0, "timestamp": -1}]}]},
            label="latest read_committed, open transaction")
    describe_txn(b, [tid], label="ongoing", filt=_sorted_topics)
    b.req("DescribeProducers", 0, {"topics": [{"name": t, "partition_indexes": [0, 1]}]},
          label="producers, open transaction")
    end(b, 3, tid, pid, ep, False)
    wait_complete(b, tid)
    describe_txn(b, [tid], label="aborted")
    fetch(b, t, 0, 0, isolation=1, label="read_committed after the abort")
    fetch(b, t, 0, 0, isolation=0, label="read_uncommitted after the abort")
    # a second transaction, committed
    add_parts(b, 3, tid, pid, ep, {t: [0]})
    produce(b, t, 0, txn_batch(["c0", "c1", "c2"], pid, ep, 2), transactional_id=tid, label="in txn 2")
    end(b, 3, tid, pid, ep, True)
    wait_complete(b, tid)
    describe_txn(b, [tid], label="committed")
    for v in (4, 11, 12, 18):
        fetch(b, t, 0, 0, isolation=1, version=v, topic_id=topic_id(b, t),
              label="read_committed after the commit")
    fetch(b, t, 0, 4, isolation=1, label="read_committed from mid-way")
    fetch(b, t, 1, 0, isolation=1, label="partition 1, read_committed")
    b.req("ListOffsets", 9, {"replica_id": -1, "isolation_level": 1, "topics": [
        {"name": t, "partitions": [{"partition_index": 0, "timestamp": -1},
                                   {"partition_index": 1, "timestamp": -1}]}]},
        label="latest read_committed after both")
    b.req("DescribeProducers", 0, {"topics": [{"name": t, "partition_indexes": [0, 1]}]},
          label="producers after both")


@case("txn_errors", timeout=90)
def txn_errors(b):
    t = b.t("t")
    create(b, t)
    tid = b.t("tx")
    coordinator(b, tid, 1)
    for v in range(0, 6):
        init(b, tid, v, timeout_ms=10 ** 9, label="timeout over transaction.max.timeout.ms")
        init(b, tid, v, timeout_ms=0, label="timeout 0")
    init(b, "", 4, label="empty transactional id")
    b.req("InitProducerId", 6, {"transactional_id": b.t("v6"), "transaction_timeout_ms": 60000,
                                "producer_id": -1, "producer_epoch": -1, "enable2_pc": False,
                                "keep_prepared_txn": False}, conn=b.conn(), label="v6")
    b.req("InitProducerId", 6, {"transactional_id": b.t("v6"), "transaction_timeout_ms": 60000,
                                "producer_id": -1, "producer_epoch": -1, "enable2_pc": True,
                                "keep_prepared_txn": False}, conn=b.conn(), label="v6 two-phase commit")
    pid, ep = init_ok(b, tid)
    for v in (0, 3, 5):
        add_parts(b, v, tid, pid, ep + 1, {t: [0]}, label="later epoch")
        add_parts(b, v, tid, pid + 77, ep, {t: [0]}, label="other producer id")
        add_parts(b, v, b.t("nope"), pid, ep, {t: [0]}, label="unknown transactional id")
        add_parts(b, v, tid, pid, ep, {b.t("nope"): [0]}, label="unknown topic")
        add_parts(b, v, tid, pid, ep, {t: [5]}, label="unknown partition")
        add_parts(b, v, tid, pid, ep, {t: [0], b.t("nope"): [0]}, label="one known, one unknown topic")
    for v in range(0, 6):
        end(b, v, tid, pid, ep, True, label="commit without a transaction")
        if v < 5:
            end(b, v, tid, pid, ep, False, label="abort without a transaction")
        end(b, v, b.t("nope"), pid, ep, True, label="commit, unknown transactional id")
        end(b, v, tid, pid + 77, ep, True, label="commit, other producer id")
    # a produce to a partition the transaction never added
    produce(b, t, 0, txn_batch(["x"], pid, ep, 0), transactional_id=tid, label="partition not added")
    produce(b, t, 0, txn_batch(["x"], pid, ep, 0), transactional_id=None,
            label="transactional batch without transactional_id")
    # AddOffsetsToTxn and TxnOffsetCommit outside a transaction
    for v in range(0, 5):
        b.req("AddOffsetsToTxn", v, {"transactional_id": tid, "producer_id": pid, "producer_epoch": ep + 3,
                                     "group_id": b.t("g")}, label="AddOffsetsToTxn, later epoch")
        b.req("AddOffsetsToTxn", v, {"transactional_id": tid, "producer_id": pid, "producer_epoch": ep,
                                     "group_id": ""}, label="AddOffsetsToTxn, empty group id")
    for v in range(0, 7):
        b.req("TxnOffsetCommit", v, {"transactional_id": tid, "group_id": b.t("g"), "producer_id": pid,
                                     "producer_epoch": ep, "generation_id": -1, "member_id": "",
                                     "topics": [{"name": t, "topic_id": topic_id(b, t), "partitions": [
                                         {"partition_index": 0, "committed_offset": 1}]}]},
              label="TxnOffsetCommit without AddOffsetsToTxn")
    # fencing: a second InitProducerId bumps the epoch
    add_parts(b, 3, tid, pid, ep, {t: [0]})
    produce(b, t, 0, txn_batch(["y"], pid, ep, 0), transactional_id=tid, label="in the transaction")
    r = init(b, tid, 4, label="InitProducerId during a transaction")
    pid2, ep2 = init_ok(b, tid, label="InitProducerId once the abort is done")
    b.note("same producer id", pid2 == pid)
    end(b, 3, tid, pid, ep, True, label="commit, fenced epoch (v3)")
    end(b, 4, tid, pid, ep, True, label="commit, fenced epoch (v4)")
    produce(b, t, 0, txn_batch(["z"], pid, ep, 1), transactional_id=tid, label="produce, fenced epoch")
    add_parts(b, 3, tid, pid, ep, {t: [0]}, label="add, fenced epoch (v3)")
    add_parts(b, 4, tid, pid, ep, {t: [0]}, label="add, fenced epoch (v4)")
    # KIP-360: resuming with the current id and epoch, and with a stale one
    for v in (3, 4, 5):
        r = b.req("InitProducerId", v, {"transactional_id": tid, "transaction_timeout_ms": 60000,
                                        "producer_id": pid2, "producer_epoch": ep2}, label="resume")
        if r and r["error_code"] == 0:
            pid2, ep2 = r["producer_id"], r["producer_epoch"]
        b.req("InitProducerId", v, {"transactional_id": tid, "transaction_timeout_ms": 60000,
                                    "producer_id": pid2, "producer_epoch": ep2 + 5}, label="resume, wrong epoch")
        b.req("InitProducerId", v, {"transactional_id": tid, "transaction_timeout_ms": 60000,
                                    "producer_id": pid2 + 9, "producer_epoch": 0}, label="resume, wrong id")
    b.req("InitProducerId", 4, {"transactional_id": tid, "transaction_timeout_ms": 60000,
                                "producer_id": pid2, "producer_epoch": -1}, label="id without an epoch")
    # an idempotent producer resuming (no transactional id)
    r = init(b, None, 4, label="idempotent")
    b.req("InitProducerId", 4, {"transactional_id": None, "transaction_timeout_ms": 60000,
                                "producer_id": r["producer_id"], "producer_epoch": r["producer_epoch"]},
          label="idempotent, resume")
    describe_txn(b, [tid, b.t("nope"), ""], label="describe, one unknown")


@case("txn_timeout", timeout=60)
def txn_timeout(b):
    """A transaction that outlives its timeout is aborted by the
    coordinator, which fences the producer's epoch."""
    t = b.t("t")
    create(b, t)
    tid = b.t("tx")
    coordinator(b, tid, 1)
    pid, ep = init_ok(b, tid, timeout_ms=1000)
    add_parts(b, 3, tid, pid, ep, {t: [0]})
    produce(b, t, 0, txn_batch(["late"], pid, ep, 0), transactional_id=tid, label="in the transaction")
    b.wait("DescribeTransactions", 0, {"transactional_ids": [tid]},
           lambda r: r["transaction_states"][0]["transaction_state"] == "CompleteAbort", timeout=20,
           what="the timed-out transaction aborted")
    describe_txn(b, [tid], label="after the timeout")
    end(b, 3, tid, pid, ep, True, label="commit after the timeout")
    end(b, 4, tid, pid, ep, True, label="commit after the timeout (v4)")
    fetch(b, t, 0, 0, isolation=1, label="read_committed after the timeout")
    pid2, ep2 = init_ok(b, tid, timeout_ms=1000, label="InitProducerId after the timeout")


@case("txn_group_offsets", timeout=60)
def txn_group_offsets(b):
    """TxnOffsetCommit as a group member: the generation is checked
    (v3+); offsets are pending until the commit."""
    t = b.t("t")
    create(b, t)
    g = b.t("g")
    coordinator(b, g)
    r = join(b, 5, g, topics=[t])
    m, gen = r["member_id"], r["generation_id"]
    sync(b, 5, g, gen, m, [{"member_id": m, "assignment": assignment({t: [0]})}])
    tid = b.t("tx")
    coordinator(b, tid, 1)
    pid, ep = init_ok(b, tid)
    add_parts(b, 3, tid, pid, ep, {t: [0]})
    b.req("AddOffsetsToTxn", 3, {"transactional_id": tid, "producer_id": pid, "producer_epoch": ep,
                                 "group_id": g})
    toc = lambda label, v=3, **kw: b.req("TxnOffsetCommit", v, dict({
        "transactional_id": tid, "group_id": g, "producer_id": pid, "producer_epoch": ep,
        "generation_id": gen, "member_id": m, "topics": [{"name": t, "partitions": [
            {"partition_index": 0, "committed_offset": 42, "committed_metadata": "txn"}]}]}, **kw),
        label=label)
    toc("as the member")
    toc("older generation", generation_id=gen - 1)
    toc("unknown member", member_id="gregor-diff-x")
    toc("unknown partition", topics=[{"name": t, "partitions": [{"partition_index": 9, "committed_offset": 1}]}])
    toc("epoch fenced", producer_epoch=ep + 4)
    toc("v0, no generation check", v=0)
    b.req("OffsetFetch", 7, {"group_id": g, "topics": [{"name": t, "partition_indexes": [0]}],
                             "require_stable": True}, label="require_stable, pending")
    b.req("OffsetFetch", 7, {"group_id": g, "topics": [{"name": t, "partition_indexes": [0]}],
                             "require_stable": False}, label="not require_stable, pending")
    b.req("OffsetFetch", 9, {"groups": [{"group_id": g, "topics": None}], "require_stable": True},
          label="whole group, require_stable, pending")
    end(b, 3, tid, pid, ep, True)
    wait_complete(b, tid)
    b.req("OffsetFetch", 7, {"group_id": g, "topics": [{"name": t, "partition_indexes": [0]}],
                             "require_stable": True}, label="after the commit")


@case("write_txn_markers", timeout=60)
def write_txn_markers(b):
    t = b.t("t")
    create(b, t, 2)
    r = init(b, None, 4, label="idempotent producer")
    pid, ep = r["producer_id"], r["producer_epoch"]
    produce(b, t, 0, txn_batch(["m"], pid, ep, 0), transactional_id=None,
            label="transactional batch of a producer without a transactional id")
    body = lambda result, parts, epoch=ep, coordinator_epoch=0: {"markers": [{
        "producer_id": pid, "producer_epoch": epoch, "transaction_result": result,
        "topics": [{"name": t, "partition_indexes": parts}], "coordinator_epoch": coordinator_epoch,
        "transaction_version": 0}]}
    b.legacy("WriteTxnMarkers", 0, body(False, [0]), label="abort marker")
    for v in (1, 2):
        b.req("WriteTxnMarkers", v, body(True, [1]), label="commit marker, no transaction")
        b.req("WriteTxnMarkers", v, body(True, [7]), label="unknown partition")
        b.req("WriteTxnMarkers", v, body(True, [0], epoch=ep - 1 if ep else 0), label="older epoch")
    fetch(b, t, 0, 0, isolation=1, label="read_committed after the markers")
    fetch(b, t, 0, 0, isolation=0, label="read_uncommitted after the markers")


def _own_txns(b):
    pre = b.t()

    def filt(r):
        r["transaction_states"] = [s for s in r["transaction_states"]
                                   if s["transactional_id"].startswith(pre)]
        return r
    return filt


@case("list_transactions", timeout=60)
def list_transactions(b):
    t = b.t("t")
    create(b, t)
    ids = []
    for i, state in enumerate(("open", "done", "Open")):
        tid = b.t(state)
        coordinator(b, tid, 1)
        pid, ep = init_ok(b, tid, label="init %s" % state)
        ids.append((tid, pid))
        if state != "done":
            add_parts(b, 3, tid, pid, ep, {t: [0]})
    for v in range(0, 3):
        b.req("ListTransactions", v, {"state_filters": [], "producer_id_filters": [],
                                      "duration_filter": -1, "transactional_id_pattern": None},
              filt=_own_txns(b))
        b.req("ListTransactions", v, {"state_filters": ["Ongoing"], "producer_id_filters": []},
              filt=_own_txns(b), label="Ongoing")
        b.req("ListTransactions", v, {"state_filters": ["NoSuchState", "Empty"], "producer_id_filters": []},
              filt=_own_txns(b), label="an unknown state")
        b.req("ListTransactions", v, {"state_filters": [], "producer_id_filters": [ids[0][1]]},
              filt=_own_txns(b), label="by producer id")
    b.req("ListTransactions", 1, {"state_filters": [], "producer_id_filters": [], "duration_filter": 3600000},
          filt=_own_txns(b), label="running over an hour")
    b.req("ListTransactions", 1, {"state_filters": [], "producer_id_filters": [], "duration_filter": 0},
          filt=_own_txns(b), label="duration 0")
    pat = lambda p, label, **kw: b.req("ListTransactions", 2, {
        "state_filters": [], "producer_id_filters": [], "transactional_id_pattern": p},
        filt=_own_txns(b), label=label, **kw)
    pat(b.t() + "-o.*", "pattern")
    pat(".*-[Oo]pen", "pattern with a class")
    pat("", "empty pattern")
    pat("([a-z", "invalid pattern")
    pat("(?i)" + b.t() + "-OPEN", "Java-only (?i) flag", deliberate="java-only-regex", expect={
        "kafka": lambda s: s.resp["error_code"] == 0 and len(s.resp["transaction_states"]) == 2,
        "gregor": lambda s: s.resp["error_code"] != 0})
    describe_txn(b, [x[0] for x in ids], label="describe all three", filt=_sorted_topics)
