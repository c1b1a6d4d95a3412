/*
 * txn/txn: the transaction state machine, every state with every request
 * (the table in src/txn/txn.h), the producer id and epoch checks before
 * it, KIP-360, epoch exhaustion, fencing and applying transitions.
 */
#include "../unit.h"

#include "txn/pid.h"
#include "txn/txn_int.h"

#include <string.h>

#define PID   1000
#define EPOCH 5
#define NOW   1700000000000LL

enum { ST_EMPTY, ST_ONGOING, ST_PC, ST_PA, ST_CC, ST_CA, ST_DEAD, ST_PEF };

/* A transaction in state s: producer PID, epoch EPOCH; Ongoing and
 * Prepare* hold partition t-0. */
static gr_txn_t *
make(gr_txn_state_t s)
{
    gr_str_t id = GR_STR("tx");
    gr_str_t topic = GR_STR("t");
    gr_txn_t *txn = gr_txn_new(&id, PID, 60000, NOW - 1000);
    ck_assert_ptr_nonnull(txn);
    txn->epoch = EPOCH;
    txn->state = s;
    if (s == GR_TXN_ONGOING || s == GR_TXN_PREPARE_COMMIT ||
        s == GR_TXN_PREPARE_ABORT || s == GR_TXN_PREPARE_EPOCH_FENCE) {
        ck_assert_int_eq(gr_txn_add_part(txn, &topic, 0), 0);
        txn->start_ms = NOW - 500;
    }
    return txn;
}

static const gr_pid_t me = { PID, EPOCH };
static const gr_txn_tp_t old_tp[] = { { { "t", 1 }, 0 } };
static const gr_txn_tp_t new_tp[] = { { { "u", 1 }, 3 } };

/* --- InitProducerId */

static const gr_txn_init_action_t init_action[GR_TXN_NSTATES] = {
    GR_TXN_INIT_BUMP, GR_TXN_INIT_FENCE, GR_TXN_INIT_ERROR, GR_TXN_INIT_ERROR,
    GR_TXN_INIT_BUMP, GR_TXN_INIT_BUMP,  GR_TXN_INIT_ERROR, GR_TXN_INIT_ERROR,
};

START_TEST(test_init_by_state)
{
    gr_txn_t *txn = make((gr_txn_state_t)_i);
    gr_txn_transit_t t;
    gr_kerr_t err;
    gr_txn_init_action_t a =
        gr_txn_prepare_init(txn, 30000, GR_PID_NONE, NOW, &t, &err);
    ck_assert_int_eq(a, init_action[_i]);
    if (a == GR_TXN_INIT_ERROR)
        ck_assert_int_eq(err, GR_KERR_CONCURRENT_TRANSACTIONS);
    if (a == GR_TXN_INIT_BUMP) {
        ck_assert_int_eq(err, GR_KERR_NONE);
        ck_assert_int_eq(t.state, GR_TXN_EMPTY);
        ck_assert_int_eq(t.producer_id, PID);
        ck_assert_int_eq(t.epoch, EPOCH + 1);
        ck_assert_int_eq(t.last_epoch, -1);
        ck_assert_int_eq(t.timeout_ms, 30000);
        ck_assert_int_eq(t.start_ms, -1);
        ck_assert_int_eq(gr_txn_apply(txn, &t), 0);
        ck_assert_int_eq(txn->state, GR_TXN_EMPTY);
        ck_assert_int_eq(txn->epoch, EPOCH + 1);
        ck_assert_int_eq(txn->timeout_ms, 30000);
        ck_assert_int_eq(txn->nparts, 0);
    }
    gr_txn_free(txn);
}
END_TEST

START_TEST(test_init_new_id)
{
    gr_str_t id = GR_STR("fresh");
    gr_txn_t *txn = gr_txn_new(&id, 7, 1000, NOW);
    gr_txn_transit_t t;
    gr_kerr_t err;
    /* a new id has epoch -1: the first InitProducerId gives epoch 0, also
     * when the producer names an id it had (KIP-360 recovery) */
    ck_assert_int_eq(gr_txn_prepare_init(txn, 1000, GR_PID_NONE, NOW, &t, &err),
                     GR_TXN_INIT_BUMP);
    ck_assert_int_eq(t.epoch, 0);
    ck_assert_int_eq(
        gr_txn_prepare_init(txn, 1000, (gr_pid_t){ 3, 9 }, NOW, &t, &err),
        GR_TXN_INIT_BUMP);
    ck_assert_int_eq(t.epoch, 0);
    ck_assert_int_eq(t.last_epoch, -1);
    gr_txn_free(txn);
}
END_TEST

START_TEST(test_init_kip360)
{
    gr_txn_t *txn = make(GR_TXN_COMPLETE_COMMIT);
    gr_txn_transit_t t;
    gr_kerr_t err;

    /* the current id and epoch: bumped, the old epoch remembered */
    ck_assert_int_eq(gr_txn_prepare_init(txn, 1000, me, NOW, &t, &err),
                     GR_TXN_INIT_BUMP);
    ck_assert_int_eq(t.epoch, EPOCH + 1);
    ck_assert_int_eq(t.last_epoch, EPOCH);
    gr_txn_apply(txn, &t);
    /* a retry of that call (its answer was lost): the same epoch */
    ck_assert_int_eq(gr_txn_prepare_init(txn, 1000, me, NOW, &t, &err),
                     GR_TXN_INIT_BUMP);
    ck_assert_int_eq(t.epoch, EPOCH + 1);
    ck_assert_int_eq(t.last_epoch, EPOCH);
    /* an older epoch, or another id: fenced */
    ck_assert_int_eq(
        gr_txn_prepare_init(txn, 1000, (gr_pid_t){ PID, 2 }, NOW, &t, &err),
        GR_TXN_INIT_ERROR);
    ck_assert_int_eq(err, GR_KERR_PRODUCER_FENCED);
    ck_assert_int_eq(
        gr_txn_prepare_init(txn, 1000, (gr_pid_t){ PID + 1, 6 }, NOW, &t, &err),
        GR_TXN_INIT_ERROR);
    ck_assert_int_eq(err, GR_KERR_PRODUCER_FENCED);
    /* without an expectation (a new instance): bumped, no last epoch */
    ck_assert_int_eq(gr_txn_prepare_init(txn, 1000, GR_PID_NONE, NOW, &t, &err),
                     GR_TXN_INIT_BUMP);
    ck_assert_int_eq(t.epoch, EPOCH + 2);
    ck_assert_int_eq(t.last_epoch, -1);
    gr_txn_free(txn);
}
END_TEST

START_TEST(test_init_exhausted)
{
    gr_txn_t *txn = make(GR_TXN_EMPTY);
    gr_txn_transit_t t;
    gr_kerr_t err;

    txn->epoch = GR_TXN_EPOCH_EXHAUSTED - 1;
    ck_assert_int_eq(gr_txn_prepare_init(txn, 1000, GR_PID_NONE, NOW, &t, &err),
                     GR_TXN_INIT_BUMP);
    ck_assert_int_eq(t.epoch, GR_TXN_EPOCH_EXHAUSTED);
    gr_txn_apply(txn, &t);
    /* 32766: a new producer id with epoch 0 */
    ck_assert_int_eq(gr_txn_prepare_init(txn, 1000, GR_PID_NONE, NOW, &t, &err),
                     GR_TXN_INIT_ROTATE);
    gr_txn_prepare_rotate(txn, PID + 1, 1000, true, NOW, &t);
    ck_assert_int_eq(t.producer_id, PID + 1);
    ck_assert_int_eq(t.epoch, 0);
    ck_assert_int_eq(t.last_epoch, GR_TXN_EPOCH_EXHAUSTED);
    ck_assert_int_eq(t.prev_producer_id, PID);
    gr_txn_apply(txn, &t);
    ck_assert_int_eq(txn->producer_id, PID + 1);
    ck_assert_int_eq(txn->prev_producer_id, PID);
    /* the old id with its exhausted epoch is a retry of the rotation whose
     * answer was lost: the new id and epoch again */
    ck_assert_int_eq(gr_txn_prepare_init(
                         txn, 1000, (gr_pid_t){ PID, GR_TXN_EPOCH_EXHAUSTED },
                         NOW, &t, &err),
                     GR_TXN_INIT_BUMP);
    ck_assert_int_eq(t.producer_id, PID + 1);
    ck_assert_int_eq(t.epoch, 0);
    /* the old id with another epoch is fenced */
    ck_assert_int_eq(
        gr_txn_prepare_init(txn, 1000, (gr_pid_t){ PID, 3 }, NOW, &t, &err),
        GR_TXN_INIT_ERROR);
    ck_assert_int_eq(err, GR_KERR_PRODUCER_FENCED);
    gr_txn_free(txn);
}
END_TEST

/* --- AddPartitionsToTxn / AddOffsetsToTxn */

static const gr_kerr_t add_err[GR_TXN_NSTATES] = {
    GR_KERR_NONE,
    GR_KERR_NONE,
    GR_KERR_CONCURRENT_TRANSACTIONS,
    GR_KERR_CONCURRENT_TRANSACTIONS,
    GR_KERR_NONE,
    GR_KERR_NONE,
    GR_KERR_INVALID_PRODUCER_ID_MAPPING,
    GR_KERR_CONCURRENT_TRANSACTIONS,
};

START_TEST(test_add_by_state)
{
    gr_txn_t *txn = make((gr_txn_state_t)_i);
    gr_txn_transit_t t;
    bool noop;
    int64_t start = txn->start_ms;
    gr_kerr_t err = gr_txn_prepare_add(txn, me, new_tp, 1, 0, NOW, &t, &noop);

    ck_assert_int_eq(err, add_err[_i]);
    if (err == GR_KERR_NONE) {
        ck_assert(!noop);
        ck_assert_int_eq(t.state, GR_TXN_ONGOING);
        /* a new transaction starts now; an open one keeps its start */
        ck_assert_int_eq(t.start_ms, _i == ST_ONGOING ? start : NOW);
        ck_assert_int_eq(gr_txn_apply(txn, &t), 0);
        ck_assert(gr_txn_has_part(txn, &new_tp[0].topic, 3));
        ck_assert_int_eq(txn->nparts, _i == ST_ONGOING ? 2 : 1);
    }
    gr_txn_free(txn);
}
END_TEST

START_TEST(test_add_known_partition)
{
    gr_txn_t *txn = make(GR_TXN_ONGOING);
    gr_txn_transit_t t;
    bool noop;
    /* Ongoing with nothing new: answered at once, nothing logged */
    ck_assert_int_eq(gr_txn_prepare_add(txn, me, old_tp, 1, 0, NOW, &t, &noop),
                     GR_KERR_NONE);
    ck_assert(noop);
    gr_txn_free(txn);
}
END_TEST

/* The partition set: 20,000 partitions of two topics whose names share a
 * prefix, each found, their neighbours not, repeats not added twice; an
 * AddPartitions of all of them is a no-op; cleared, none is found. */
START_TEST(test_many_partitions)
{
    enum { N = 10000 };
    gr_txn_t *txn = make(GR_TXN_ONGOING); /* holds t-0 */
    gr_str_t a = GR_STR("many"), b = GR_STR("many2"), c = GR_STR("man");
    static gr_txn_tp_t all[2 * N];
    gr_txn_transit_t t;
    bool noop;
    for (int32_t i = 0; i < N; i++) {
        ck_assert_int_eq(gr_txn_add_part(txn, &a, i), 0);
        ck_assert_int_eq(gr_txn_add_part(txn, &b, N - 1 - i), 0);
    }
    for (int32_t i = 0; i < N; i += 7) /* repeats */
        ck_assert_int_eq(gr_txn_add_part(txn, &b, i), 0);
    ck_assert_int_eq(txn->nparts, 2 * N + 1);
    for (int32_t i = 0; i < N; i++) {
        ck_assert(gr_txn_has_part(txn, &a, i));
        ck_assert(gr_txn_has_part(txn, &b, i));
        ck_assert(!gr_txn_has_part(txn, &c, i));
        all[2 * i] = (gr_txn_tp_t){ a, i };
        all[2 * i + 1] = (gr_txn_tp_t){ b, i };
    }
    ck_assert(!gr_txn_has_part(txn, &a, N));
    ck_assert(!gr_txn_has_part(txn, &a, -1));
    ck_assert(gr_txn_has_part(txn, &old_tp[0].topic, 0));
    ck_assert_int_eq(gr_txn_prepare_add(txn, me, all, 2 * N, 0, NOW, &t, &noop),
                     GR_KERR_NONE);
    ck_assert(noop);
    gr_txn_clear_parts(txn);
    ck_assert_int_eq(txn->nparts, 0);
    ck_assert(!gr_txn_has_part(txn, &a, 0));
    ck_assert(!gr_txn_has_part(txn, &old_tp[0].topic, 0));
    ck_assert_int_eq(gr_txn_add_part(txn, &b, 5), 0);
    ck_assert(gr_txn_has_part(txn, &b, 5));
    ck_assert(!gr_txn_has_part(txn, &a, 5));
    gr_txn_free(txn);
}
END_TEST

/* --- verify_only (AddPartitionsToTxn v4+) */

static const gr_kerr_t verify_err[GR_TXN_NSTATES] = {
    GR_KERR_NONE,
    GR_KERR_NONE,
    GR_KERR_CONCURRENT_TRANSACTIONS,
    GR_KERR_CONCURRENT_TRANSACTIONS,
    GR_KERR_NONE,
    GR_KERR_NONE,
    GR_KERR_INVALID_PRODUCER_ID_MAPPING,
    GR_KERR_CONCURRENT_TRANSACTIONS,
};

START_TEST(test_verify_by_state)
{
    gr_txn_t *txn = make((gr_txn_state_t)_i);
    ck_assert_int_eq(gr_txn_check_verify(txn, me), verify_err[_i]);
    gr_txn_free(txn);
}
END_TEST

/* --- EndTxn */

typedef struct end_case {
    gr_kerr_t err;
    bool noop;
    gr_txn_state_t next; /* when logged */
} end_case_t;

static const end_case_t commit_case[GR_TXN_NSTATES] = {
    { GR_KERR_INVALID_TXN_STATE, false, 0 },
    { GR_KERR_NONE, false, GR_TXN_PREPARE_COMMIT },
    { GR_KERR_CONCURRENT_TRANSACTIONS, false, 0 },
    { GR_KERR_INVALID_TXN_STATE, false, 0 },
    { GR_KERR_NONE, true, 0 },
    { GR_KERR_INVALID_TXN_STATE, false, 0 },
    { GR_KERR_INVALID_PRODUCER_ID_MAPPING, false, 0 },
    { GR_KERR_CONCURRENT_TRANSACTIONS, false, 0 },
};

static const end_case_t abort_case[GR_TXN_NSTATES] = {
    { GR_KERR_INVALID_TXN_STATE, false, 0 },
    { GR_KERR_NONE, false, GR_TXN_PREPARE_ABORT },
    { GR_KERR_INVALID_TXN_STATE, false, 0 },
    { GR_KERR_CONCURRENT_TRANSACTIONS, false, 0 },
    { GR_KERR_INVALID_TXN_STATE, false, 0 },
    { GR_KERR_NONE, true, 0 },
    { GR_KERR_INVALID_PRODUCER_ID_MAPPING, false, 0 },
    { GR_KERR_CONCURRENT_TRANSACTIONS, false, 0 },
};

static void
check_end(int state, bool commit, const end_case_t *c)
{
    gr_txn_t *txn = make((gr_txn_state_t)state);
    gr_txn_transit_t t;
    bool noop;
    gr_kerr_t err = gr_txn_prepare_end(txn, me, commit, true, false, -1, NOW, &t, &noop);
    ck_assert_int_eq(err, c->err);
    if (err == GR_KERR_NONE)
        ck_assert_int_eq(noop, c->noop);
    if (err == GR_KERR_NONE && !noop) {
        ck_assert_int_eq(t.state, c->next);
        ck_assert_int_eq(t.epoch, EPOCH); /* no bump per transaction (TV0) */
        gr_txn_apply(txn, &t);
        ck_assert(txn->completing);
        ck_assert_int_eq(txn->nparts, 1);
        /* markers written: complete */
        gr_txn_prepare_complete(txn, NOW + 1, &t);
        ck_assert_int_eq(t.state, commit ? GR_TXN_COMPLETE_COMMIT
                                         : GR_TXN_COMPLETE_ABORT);
        gr_txn_apply(txn, &t);
        ck_assert(!txn->completing);
        ck_assert_int_eq(txn->nparts, 0);
        ck_assert_int_eq(txn->update_ms, NOW + 1);
    }
    gr_txn_free(txn);
}

START_TEST(test_commit_by_state)
{
    check_end(_i, true, &commit_case[_i]);
}
END_TEST

START_TEST(test_abort_by_state)
{
    check_end(_i, false, &abort_case[_i]);
}
END_TEST

/* --- the checks before the state, in every state */

START_TEST(test_other_producer_by_state)
{
    gr_txn_t *txn = make((gr_txn_state_t)_i);
    gr_pid_t other = { PID + 1, EPOCH };
    gr_txn_transit_t t;
    bool noop;
    ck_assert_int_eq(gr_txn_prepare_add(txn, other, new_tp, 1, 0, NOW, &t, &noop),
                     GR_KERR_INVALID_PRODUCER_ID_MAPPING);
    ck_assert_int_eq(gr_txn_check_verify(txn, other),
                     GR_KERR_INVALID_PRODUCER_ID_MAPPING);
    ck_assert_int_eq(gr_txn_prepare_end(txn, other, true, true, false, -1, NOW, &t, &noop),
                     GR_KERR_INVALID_PRODUCER_ID_MAPPING);
    gr_txn_free(txn);
}
END_TEST

START_TEST(test_old_epoch_by_state)
{
    gr_txn_t *txn = make((gr_txn_state_t)_i);
    gr_pid_t old = { PID, EPOCH - 1 }, newer = { PID, EPOCH + 1 };
    gr_txn_transit_t t;
    bool noop;
    ck_assert_int_eq(gr_txn_prepare_add(txn, old, new_tp, 1, 0, NOW, &t, &noop),
                     GR_KERR_PRODUCER_FENCED);
    ck_assert_int_eq(gr_txn_check_verify(txn, old), GR_KERR_PRODUCER_FENCED);
    ck_assert_int_eq(gr_txn_prepare_end(txn, old, false, true, false, -1, NOW, &t, &noop),
                     GR_KERR_PRODUCER_FENCED);
    /* a client epoch above the coordinator's is not valid either */
    ck_assert_int_eq(
        gr_txn_prepare_end(txn, newer, false, true, false, -1, NOW, &t, &noop),
        GR_KERR_PRODUCER_FENCED);
    gr_txn_free(txn);
}
END_TEST

/* --- fencing, timeouts, expiration */

START_TEST(test_fence_abort)
{
    gr_txn_t *txn = make(GR_TXN_ONGOING);
    gr_txn_transit_t t;
    bool noop;

    gr_txn_fence(txn);
    ck_assert_int_eq(txn->epoch, EPOCH + 1);
    /* the coordinator's abort carries the bumped epoch */
    ck_assert_int_eq(gr_txn_prepare_end(txn, (gr_pid_t){ PID, EPOCH + 1 },
                                        false, false, false, -1, NOW, &t, &noop),
                     GR_KERR_NONE);
    ck_assert_int_eq(t.state, GR_TXN_PREPARE_ABORT);
    ck_assert_int_eq(t.epoch, EPOCH + 1);
    /* the record was not logged: the next fence does not bump again */
    txn->failed_fence = true;
    gr_txn_fence(txn);
    ck_assert_int_eq(txn->epoch, EPOCH + 1);
    gr_txn_apply(txn, &t);
    gr_txn_prepare_complete(txn, NOW, &t);
    gr_txn_apply(txn, &t);
    ck_assert(!txn->failed_fence);
    /* the fenced producer's requests */
    ck_assert_int_eq(gr_txn_prepare_end(txn, me, true, true, false, -1, NOW, &t, &noop),
                     GR_KERR_PRODUCER_FENCED);
    ck_assert_int_eq(gr_txn_prepare_add(txn, me, new_tp, 1, 0, NOW, &t, &noop),
                     GR_KERR_PRODUCER_FENCED);
    gr_txn_free(txn);
}
END_TEST

START_TEST(test_timeout_and_expiry)
{
    gr_txn_t *txn;
    for (int s = 0; s < GR_TXN_NSTATES; s++) {
        txn = make((gr_txn_state_t)s);
        txn->start_ms = NOW - 60001;
        txn->update_ms = NOW - 1000;
        ck_assert_int_eq(gr_txn_timed_out(txn, NOW), s == ST_ONGOING);
        ck_assert(!gr_txn_timed_out(txn, NOW - 2));
        /* only Empty, CompleteCommit, CompleteAbort expire */
        ck_assert_int_eq(gr_txn_expired(txn, NOW, 1000),
                         s == ST_EMPTY || s == ST_CC || s == ST_CA);
        ck_assert(!gr_txn_expired(txn, NOW, 1001));
        gr_txn_free(txn);
    }
}
END_TEST

START_TEST(test_state_names)
{
    for (int s = 0; s < GR_TXN_NSTATES; s++) {
        gr_str_t n = gr_str_c(gr_txn_state_name((gr_txn_state_t)s));
        ck_assert_int_eq(gr_txn_state_from_name(&n), s);
    }
    {
        gr_str_t bad = GR_STR("ongoing"); /* names are case sensitive */
        ck_assert_int_eq(gr_txn_state_from_name(&bad), -1);
    }
    ck_assert_str_eq(gr_txn_state_name(GR_TXN_PREPARE_EPOCH_FENCE),
                     "PrepareEpochFence");
}
END_TEST

/* /latest_producer_id_block: Kafka's JSON written, the next block read */
START_TEST(test_pid_blocks)
{
    char json[160];
    static const char *const bad[] = {
        "{}",
        "{\"version\":2,\"broker\":1,\"block_start\":\"0\",\"block_end\":\"999\"}",
        "{\"version\":1,\"broker\":1,\"block_start\":0,\"block_end\":999}",
        "{\"version\":1,\"broker\":1,\"block_start\":\"0\",\"block_end\":\"-1\"}",
        "{\"version\":1,\"broker\":1,\"block_start\":\"5\",\"block_end\":\"4\"}",
        "{\"version\":1,\"broker\":1,\"block_start\":\"0\",\"block_end\":\"9x\"}",
        "{\"version\":1,\"broker\":1,\"block_start\":\"0\",\"block_end\":\" 9\"}",
        "{\"version\":1,\"broker\":1,\"block_start\":\"0\","
        "\"block_end\":\"9223372036854775807\"}",
        "{\"version\":1,\"broker\":1,\"block_start\":\"0\","
        "\"block_end\":\"99999999999999999999\"}",
        "not json",
    };
    int n = gr_pids_block_json(3, 2000, json, sizeof json);
    ck_assert_int_eq(n, (int)strlen(json));
    ck_assert_str_eq(json, "{\"version\":1,\"broker\":3,"
                           "\"block_start\":\"2000\",\"block_end\":\"2999\"}");
    {
        char small[10];
        ck_assert_int_eq(gr_pids_block_json(3, 2000, small, sizeof small),
                         -1);
    }
    /* the next block follows the one held; empty data: the first */
    ck_assert_int_eq(gr_pids_parse_block(json, (size_t)n), 3000);
    ck_assert_int_eq(gr_pids_parse_block("", 0), 0);
    /* a block of another size (Kafka reads its end, not its size) */
    ck_assert_int_eq(
        gr_pids_parse_block("{\"version\":1,\"broker\":7,\"block_start\":"
                            "\"10\",\"block_end\":\"19\"}",
                            strlen("{\"version\":1,\"broker\":7,\"block_"
                                   "start\":\"10\",\"block_end\":\"19\"}")),
        20);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(gr_pids_parse_block(bad[i], strlen(bad[i])) == -1,
                      "%s", bad[i]);
}
END_TEST

Suite *
suite_txn_txn(void)
{
    Suite *s = suite_create("txn/txn");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_init_by_state, 0, GR_TXN_NSTATES);
    tcase_add_test(tc, test_init_new_id);
    tcase_add_test(tc, test_init_kip360);
    tcase_add_test(tc, test_init_exhausted);
    tcase_add_loop_test(tc, test_add_by_state, 0, GR_TXN_NSTATES);
    tcase_add_test(tc, test_add_known_partition);
    tcase_add_test(tc, test_many_partitions);
    tcase_add_loop_test(tc, test_verify_by_state, 0, GR_TXN_NSTATES);
    tcase_add_loop_test(tc, test_commit_by_state, 0, GR_TXN_NSTATES);
    tcase_add_loop_test(tc, test_abort_by_state, 0, GR_TXN_NSTATES);
    tcase_add_loop_test(tc, test_other_producer_by_state, 0, GR_TXN_NSTATES);
    tcase_add_loop_test(tc, test_old_epoch_by_state, 0, GR_TXN_NSTATES);
    tcase_add_test(tc, test_fence_abort);
    tcase_add_test(tc, test_timeout_and_expiry);
    tcase_add_test(tc, test_state_names);
    tcase_add_test(tc, test_pid_blocks);
    suite_add_tcase(s, tc);
    return s;
}
