/*
 * partition/partition.c: the one append path. A partition of a hand-made
 * topic over a real log (tests/unit/log/logtest.h): the leader and log
 * checks, offsets and the high watermark, the bytes counted, waiters
 * woken, the producer state of a transactional batch and of its marker,
 * and the flush left to the caller or started here.
 */
#include "../unit.h"
#include "../log/logtest.h"
#include "core/time.h"
#include "log/producer_state.h"
#include "partition/partition.h"
#include "proto/records.h"

#include <string.h>

typedef struct fx {
    gr_logtest_t lt;
    gr_topic_t t;
    gr_partition_t p;
    gr_partition_t *parts[1];
} fx_t;

static void
fx_init(fx_t *f, int64_t flush_messages)
{
    gr_log_config_t cfg = gr_logtest_config();
    gr_err_t err = 0;

    memset(f, 0, sizeof *f);
    gr_logtest_init(&f->lt, 16);
    cfg.flush_messages = flush_messages;
    f->t.name = "t";
    f->t.nparts = 1;
    f->parts[0] = &f->p;
    f->t.parts = f->parts;
    f->p.topic = &f->t;
    f->p.id = 0;
    f->p.leader = 1;
    f->p.leader_epoch = 3;
    f->p.log = gr_log_open(f->lt.m, "t", 0, &f->t.id, &cfg, &err);
    ck_assert_ptr_nonnull(f->p.log);
    f->p.pstate = gr_pstate_new("t", 0);
    ck_assert_int_eq(gr_pstate_load(f->p.pstate, f->p.log), 0);
}

static void
fx_fini(fx_t *f)
{
    gr_pstate_destroy(f->p.pstate);
    gr_logtest_fini(&f->lt);
}

/* A batch of n records of producer pid (-1: none), transactional when
 * pid >= 0. */
static void
batch(gr_buf_t *out, int n, int64_t pid)
{
    gr_batch_builder_t bb;
    gr_bytes_t v = { (const uint8_t *)"value", 5 }, k = { NULL, -1 };
    gr_batch_builder_init(&bb, GR_CODEC_NONE,
                          pid >= 0 ? GR_ATTR_TRANSACTIONAL : 0, pid,
                          pid >= 0 ? 0 : -1, pid >= 0 ? 0 : -1);
    for (int i = 0; i < n; i++)
        gr_batch_builder_add(&bb, 1000 + i, &k, &v, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, out), 0);
    gr_batch_builder_fini(&bb);
}

typedef struct wt {
    gr_partition_waiter_t w; /* first */
    int calls;
    size_t bytes;
} wt_t;

static void
wake(gr_partition_waiter_t *w, size_t bytes)
{
    wt_t *x = (wt_t *)w;
    x->calls++;
    x->bytes += bytes;
}

START_TEST(test_checks)
{
    fx_t f;
    gr_buf_t b = GR_BUF_INIT;
    gr_partition_append_args_t args = { .self_id = 1, .now_ms = 5 };
    gr_partition_append_result_t res;
    gr_log_t *l;

    fx_init(&f, INT64_MAX);
    batch(&b, 2, -1);
    ck_assert_int_eq(gr_partition_check_leader(&f.p, 1), GR_KERR_NONE);
    ck_assert_int_eq(gr_partition_check_leader(&f.p, 2),
                     GR_KERR_NOT_LEADER_OR_FOLLOWER);
    args.self_id = 2;
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NOT_LEADER_OR_FOLLOWER);
    ck_assert_int_eq(res.first_offset, -1);
    /* no log here: the storage error comes first, as Produce answers */
    l = f.p.log;
    f.p.log = NULL;
    ck_assert_int_eq(gr_partition_check_leader(&f.p, 2),
                     GR_KERR_KAFKA_STORAGE_ERROR);
    f.p.log = l;
    ck_assert_int_eq(gr_log_end_offset(f.p.log), 0);
    ck_assert_int_eq(f.p.high_watermark, 0);
    ck_assert_int_eq(f.p.stats.bytes_in, 0);
    gr_buf_fini(&b);
    fx_fini(&f);
}
END_TEST

START_TEST(test_append_moves_hw_and_wakes)
{
    fx_t f;
    gr_buf_t b = GR_BUF_INIT;
    gr_partition_append_args_t args = { .self_id = 1, .now_ms = 5 };
    gr_partition_append_result_t res;
    wt_t w1, w2;
    gr_batch_hdr_t h;

    fx_init(&f, INT64_MAX);
    memset(&w1, 0, sizeof w1);
    memset(&w2, 0, sizeof w2);
    w1.w.wake = w2.w.wake = wake;
    gr_partition_wait(&f.p, &w1.w);
    gr_partition_wait(&f.p, &w2.w);
    batch(&b, 3, -1);
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NONE);
    ck_assert_int_eq(res.first_offset, 0);
    ck_assert_int_eq(res.log_start_offset, 0);
    ck_assert(!res.flush_due);
    /* the batch carries its offset and the leader epoch */
    gr_batch_hdr_parse(b.ptr, &h);
    ck_assert_int_eq(h.base_offset, 0);
    ck_assert_int_eq(h.leader_epoch, 3);
    ck_assert_int_eq(f.p.high_watermark, 3);
    ck_assert_int_eq(f.p.stats.bytes_in, (int64_t)b.len);
    ck_assert_int_eq(w1.calls, 1);
    ck_assert_uint_eq(w1.bytes, b.len);
    ck_assert_int_eq(w2.calls, 1);

    /* unlinked: not woken again; the other still is */
    gr_partition_unwait(&w1.w);
    gr_partition_unwait(&w1.w); /* twice: nothing */
    b.len = 0;
    batch(&b, 2, -1);
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NONE);
    ck_assert_int_eq(res.first_offset, 3);
    ck_assert_int_eq(f.p.high_watermark, 5);
    ck_assert_int_eq(w1.calls, 1);
    ck_assert_int_eq(w2.calls, 2);
    gr_partition_unwait(&w2.w);
    ck_assert_ptr_null(f.p.waiters);
    gr_buf_fini(&b);
    fx_fini(&f);
}
END_TEST

START_TEST(test_producer_state)
{
    fx_t f;
    gr_buf_t b = GR_BUF_INIT;
    gr_partition_marker_t m = { .producer_id = 7,
                                .producer_epoch = 0,
                                .coordinator_epoch = 0,
                                .commit = false };
    gr_partition_append_args_t args = { .self_id = 1, .now_ms = 5 };
    gr_partition_append_result_t res;
    int16_t epoch;
    bool open;

    fx_init(&f, INT64_MAX);
    batch(&b, 1, -1); /* offset 0: no producer */
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NONE);
    ck_assert_int_eq(gr_pstate_count(f.p.pstate), 0);
    b.len = 0;
    batch(&b, 2, 7); /* offsets 1-2: producer 7's transaction opens */
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NONE);
    ck_assert(gr_pstate_producer(f.p.pstate, 7, &epoch, &open));
    ck_assert(open);
    ck_assert_int_eq(gr_pstate_first_unstable(f.p.pstate), 1);
    b.len = 0;
    ck_assert_int_eq(gr_control_batch(&b, 7, 0, GR_CONTROL_ABORT, 0, 6), 0);
    args.marker = &m;
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NONE);
    ck_assert_int_eq(res.first_offset, 3);
    ck_assert(gr_pstate_producer(f.p.pstate, 7, &epoch, &open));
    ck_assert(!open);
    ck_assert_int_eq(gr_pstate_first_unstable(f.p.pstate), -1);
    ck_assert_int_eq(f.p.high_watermark, 4);
    gr_buf_fini(&b);
    fx_fini(&f);
}
END_TEST

static int flushed;

static void
flush_done(gr_log_t *l, gr_err_t err, void *arg)
{
    (void)l;
    (void)arg;
    ck_assert_int_eq(err, 0);
    flushed = 1;
}

START_TEST(test_flush)
{
    fx_t f;
    gr_buf_t b = GR_BUF_INIT;
    gr_partition_append_args_t args = { .self_id = 1, .now_ms = 5 };
    gr_partition_append_result_t res;

    fx_init(&f, 1); /* flush.messages=1: every append is due */
    batch(&b, 1, -1);
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NONE);
    ck_assert(res.flush_due); /* started here */
    gr_logtest_settle(&f.lt);
    /* a caller that waits starts it itself */
    args.caller_flushes = true;
    b.len = 0;
    batch(&b, 1, -1);
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NONE);
    ck_assert(res.flush_due);
    flushed = 0;
    ck_assert_int_eq(gr_log_flush(f.p.log, flush_done, NULL), 0);
    ck_assert(gr_logtest_wait(&f.lt, &flushed));
    gr_buf_fini(&b);
    fx_fini(&f);
}
END_TEST

/* Kafka's Replica.updateFetchStateOrThrow and isCaughtUp. */
START_TEST(test_follower_rules)
{
    gr_follower_t f = { .id = 2, .leo = -1, .last_fetch_ms = 0,
                        .last_fetch_leader_leo = -1,
                        .last_caught_up_ms = 0 };

    /* behind the log end: caught up as of the previous fetch (time 0) */
    gr_follower_fetched(&f, 0, 1000, 10);
    ck_assert_int_eq(f.leo, 0);
    ck_assert_int_eq(f.last_caught_up_ms, 0);
    ck_assert(!gr_follower_caught_up(&f, 10, 1000, 500));
    ck_assert(gr_follower_caught_up(&f, 10, 1000, 1000));
    /* at least the log end of its previous fetch: caught up then */
    gr_follower_fetched(&f, 10, 2000, 15);
    ck_assert_int_eq(f.last_caught_up_ms, 1000);
    /* at the log end: caught up now */
    gr_follower_fetched(&f, 15, 3000, 15);
    ck_assert_int_eq(f.last_caught_up_ms, 3000);
    /* at the log end it stays caught up however long it waits */
    ck_assert(gr_follower_caught_up(&f, 15, 999999, 10));
    /* below its previous fetch's log end: no change */
    gr_follower_fetched(&f, 12, 4000, 20);
    ck_assert_int_eq(f.last_caught_up_ms, 3000);
    ck_assert(!gr_follower_caught_up(&f, 20, 3501, 500));
    ck_assert(gr_follower_caught_up(&f, 20, 3500, 500));

    /* joining the ISR: past the watermark and the epoch's start */
    f.leo = 7;
    ck_assert(gr_follower_in_sync(&f, 7, 5));
    ck_assert(!gr_follower_in_sync(&f, 8, 5));
    ck_assert(!gr_follower_in_sync(&f, 7, 9));
    f.leo = -1;
    ck_assert(!gr_follower_in_sync(&f, 0, 0));
}
END_TEST

/* Partition.maybeIncrementLeaderHW with the strict min ISR. */
START_TEST(test_hw_rules)
{
    gr_follower_t f[2] = {
        { .id = 2, .leo = 4, .last_caught_up_ms = 0 },
        { .id = 3, .leo = 6, .last_caught_up_ms = 0 },
    };
    int32_t isr1[] = { 1 }, isr12[] = { 1, 2 }, isr123[] = { 1, 2, 3 };

    /* the least LEO of the ISR */
    ck_assert_int_eq(gr_repl_hw_candidate(10, f, 2, isr123, 3, isr123, 3, 1,
                                          100000, 30000),
                     4);
    /* a follower out of the ISR and not caught up holds nothing */
    ck_assert_int_eq(gr_repl_hw_candidate(10, f, 2, isr1, 1, isr1, 1, 1,
                                          100000, 30000),
                     10);
    /* caught up (within the lag) but out of the ISR: it is waited for,
     * while its broker is alive (eligible) */
    f[0].last_caught_up_ms = 90000;
    ck_assert_int_eq(gr_repl_hw_candidate(10, f, 2, isr1, 1, isr1, 1, 1,
                                          100000, 30000),
                     10);
    f[0].eligible = true;
    ck_assert_int_eq(gr_repl_hw_candidate(10, f, 2, isr1, 1, isr1, 1, 1,
                                          100000, 30000),
                     4);
    f[0].last_caught_up_ms = 0;
    /* a pending expansion (maximal ISR) counts */
    ck_assert_int_eq(gr_repl_hw_candidate(10, f, 2, isr1, 1, isr12, 2, 1,
                                          100000, 30000),
                     4);
    /* under min.insync.replicas: the watermark stays (-1) */
    ck_assert_int_eq(gr_repl_hw_candidate(10, f, 2, isr1, 1, isr12, 2, 2,
                                          100000, 30000),
                     -1);
    ck_assert_int_eq(gr_repl_hw_candidate(10, f, 2, isr12, 2, isr12, 2, 2,
                                          100000, 30000),
                     4);
    ck_assert(gr_isr_has(isr12, 2, 2));
    ck_assert(!gr_isr_has(isr12, 2, 3));
}
END_TEST

typedef struct ackw {
    gr_partition_waiter_t w; /* first */
    int calls;
    bool gone;
} ackw_t;

static void
ack_wake(gr_partition_waiter_t *w, size_t bytes)
{
    ackw_t *x = (ackw_t *)w;
    (void)bytes;
    x->calls++;
    x->gone = w->p == NULL;
}

/* A leader with one follower: the watermark waits for it, consumers are
 * woken by the watermark, followers by appends, produces by both. */
START_TEST(test_leader_with_follower)
{
    fx_t f;
    gr_buf_t b = GR_BUF_INIT;
    gr_partition_append_args_t args = { .self_id = 1, .now_ms = 5 };
    gr_partition_append_result_t res;
    int32_t replicas[] = { 1, 2 }, isr[] = { 1, 2 };
    wt_t cons, fol;
    ackw_t ack;
    int64_t now = gr_mono_ms();

    fx_init(&f, INT64_MAX);
    f.p.replicas = replicas;
    f.p.nreplicas = 2;
    f.p.isr = isr;
    f.p.nisr = 2;
    ck_assert_int_eq(gr_partition_repl_sync(&f.p, 1, 30000), 0);
    ck_assert_ptr_nonnull(f.p.repl);
    ck_assert_int_eq(f.p.repl->nf, 1);
    ck_assert_int_eq(f.p.repl->f[0].id, 2);
    memset(&cons, 0, sizeof cons);
    memset(&fol, 0, sizeof fol);
    memset(&ack, 0, sizeof ack);
    cons.w.wake = fol.w.wake = wake;
    cons.w.on_hw = true;
    ack.w.wake = ack_wake;
    gr_partition_wait(&f.p, &cons.w);
    gr_partition_wait(&f.p, &fol.w);
    gr_partition_ack_wait(&f.p, &ack.w);

    batch(&b, 3, -1);
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NONE);
    /* the follower in the ISR has nothing yet: the watermark stays */
    ck_assert_int_eq(f.p.high_watermark, 0);
    ck_assert_int_eq(fol.calls, 1);
    ck_assert_int_eq(cons.calls, 0);
    ck_assert_int_eq(ack.calls, 0);
    /* it fetches at 2, then at the log end */
    ck_assert_ptr_nonnull(gr_partition_follower_fetch(&f.p, 2, 2, 7, now));
    ck_assert_int_eq(f.p.high_watermark, 2);
    ck_assert_int_eq(cons.calls, 1);
    ck_assert_uint_gt(cons.bytes, 0);
    ck_assert_int_eq(ack.calls, 1);
    ck_assert_ptr_nonnull(gr_partition_follower_fetch(&f.p, 2, 3, 7, now));
    ck_assert_int_eq(f.p.high_watermark, 3);
    ck_assert_int_eq(cons.calls, 2);
    ck_assert_uint_eq(cons.bytes, b.len); /* all of it, in two wakes */
    ck_assert_int_eq(f.p.repl->f[0].broker_epoch, 7);
    /* not a follower */
    ck_assert_ptr_null(gr_partition_follower_fetch(&f.p, 3, 3, -1, now));
    /* the watermark never goes back */
    ck_assert_ptr_nonnull(gr_partition_follower_fetch(&f.p, 2, 1, 7, now));
    ck_assert_int_eq(f.p.high_watermark, 3);

    /* the ISR shrinks to the leader alone: the next append is below the
     * watermark at once (min.insync.replicas 1) */
    f.p.nisr = 1;
    gr_partition_repl_sync(&f.p, 1, 0); /* same followers: kept */
    ck_assert_int_eq(f.p.repl->lag_ms, 30000);
    f.p.repl->f[0].last_caught_up_ms = now - 60000; /* long behind */
    b.len = 0;
    batch(&b, 1, -1);
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NONE);
    ck_assert_int_eq(f.p.high_watermark, 4);
    /* under min.insync.replicas 2 it stays */
    f.p.repl->min_isr = 2;
    b.len = 0;
    batch(&b, 1, -1);
    ck_assert_int_eq(gr_partition_append(&f.p, b.ptr, b.len, &args, &res),
                     GR_KERR_NONE);
    ck_assert_int_eq(f.p.high_watermark, 4);

    /* no longer led here: the produce hears it, unlinked */
    gr_partition_unwait(&cons.w);
    gr_partition_unwait(&fol.w);
    f.p.leader = 2;
    ck_assert_int_eq(gr_partition_repl_sync(&f.p, 1, 0), 0);
    ck_assert_ptr_null(f.p.repl);
    ck_assert(ack.gone);
    ck_assert_ptr_null(ack.w.p);
    gr_buf_fini(&b);
    fx_fini(&f);
}
END_TEST

Suite *
suite_partition_partition(void)
{
    Suite *s = suite_create("partition/partition");
    TCase *tc = tcase_create("partition");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_checks);
    tcase_add_test(tc, test_append_moves_hw_and_wakes);
    tcase_add_test(tc, test_producer_state);
    tcase_add_test(tc, test_flush);
    tcase_add_test(tc, test_follower_rules);
    tcase_add_test(tc, test_hw_rules);
    tcase_add_test(tc, test_leader_with_follower);
    suite_add_tcase(s, tc);
    return s;
}
