/*
 * log/txn_index: the aborted-transaction index, Kafka's .txnindex format:
 * appends go to their segment's file, collect finds the entries
 * overlapping a range (stopping at the last stable offset), reopening
 * reads them back, entries past the log end are cut off, damage is
 * reported, deleted segments are forgotten.
 */
#include "../unit.h"

#include "log/txn_index.h"
#include "logtest.h"
#include "proto/wire.h"

#include "core/log.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static void
setup(void)
{
    gr_log_level = GR_LOG_LEVEL_ERROR; /* damage WARNs are expected */
    strcpy(dir, "/tmp/gr-txnidx-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
    gr_logtest_rmrf(dir);
}

static void
touch_segment(int64_t base)
{
    char path[256];
    int fd;
    snprintf(path, sizeof path, "%s/%020lld.log", dir, (long long)base);
    fd = open(path, O_WRONLY | O_CREAT, 0644);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

static void
idx_path(char *out, int64_t base)
{
    snprintf(out, 256, "%s/%020lld.txnindex", dir, (long long)base);
}

typedef struct got {
    gr_aborted_txn_t v[16];
    int n;
} got_t;

static void
collect_cb(void *arg, const gr_aborted_txn_t *t)
{
    got_t *g = arg;
    g->v[g->n++] = *t;
}

static int
collect(gr_txnidx_t *ix, int64_t from, int64_t upper, got_t *g)
{
    memset(g, 0, sizeof *g);
    return gr_txnidx_collect(ix, from, upper, collect_cb, g);
}

static void
add(gr_txnidx_t *ix, int64_t seg, int64_t pid, int64_t first, int64_t last,
    int64_t lso)
{
    gr_aborted_txn_t t = { pid, first, last, lso };
    ck_assert_int_eq(gr_txnidx_append(ix, seg, &t), 0);
}

START_TEST(test_format_and_collect)
{
    bool damaged;
    gr_txnidx_t *ix;
    char path[256];
    gr_buf_t b = GR_BUF_INIT;
    got_t g;

    touch_segment(0);
    touch_segment(100);
    ix = gr_txnidx_open(dir, 1000, &damaged);
    ck_assert_ptr_nonnull(ix);
    ck_assert(!damaged);
    /* pid 8 is still open when pid 7 aborts: the LSO is then 15 */
    add(ix, 0, 7, 10, 20, 15);
    add(ix, 0, 8, 15, 30, 31);
    add(ix, 100, 9, 90, 120, 121); /* started in segment 0, ended in 100 */
    /* a replayed marker is not added twice */
    add(ix, 0, 8, 15, 30, 31);
    ck_assert_int_eq(gr_txnidx_count(ix), 3);

    /* Kafka's layout: version 0, pid, first, last, lso (34 bytes) */
    idx_path(path, 0);
    ck_assert(gr_logtest_read_file(path, &b));
    ck_assert_uint_eq(b.len, 2 * GR_TXNIDX_ENTRY);
    ck_assert_int_eq(gr_get_u16(b.ptr), 0);
    ck_assert_int_eq((int64_t)gr_get_u64(b.ptr + 2), 7);
    ck_assert_int_eq((int64_t)gr_get_u64(b.ptr + 10), 10);
    ck_assert_int_eq((int64_t)gr_get_u64(b.ptr + 18), 20);
    ck_assert_int_eq((int64_t)gr_get_u64(b.ptr + 26), 15);
    gr_buf_fini(&b);
    idx_path(path, 100);
    ck_assert_int_eq(gr_logtest_file_size(path), GR_TXNIDX_ENTRY);

    /* overlapping [from, upper): last >= from and first < upper */
    ck_assert_int_eq(collect(ix, 0, 12, &g), 1);
    ck_assert_int_eq(g.v[0].producer_id, 7);
    ck_assert_int_eq(collect(ix, 21, 100, &g), 2);
    ck_assert_int_eq(g.v[0].producer_id, 8);
    ck_assert_int_eq(g.v[1].producer_id, 9);
    ck_assert_int_eq(collect(ix, 31, 200, &g), 1);
    ck_assert_int_eq(collect(ix, 121, 200, &g), 0);
    /* the search stops at an entry whose last stable offset reaches the
     * upper bound: later transactions cannot overlap */
    ck_assert_int_eq(collect(ix, 0, 21, &g), 2);
    ck_assert_int_eq(g.v[1].producer_id, 8);
    gr_txnidx_destroy(ix);

    /* reopened: the same entries */
    ix = gr_txnidx_open(dir, 1000, &damaged);
    ck_assert(!damaged);
    ck_assert_int_eq(gr_txnidx_count(ix), 3);
    ck_assert_int_eq(collect(ix, 0, 1000, &g), 3);
    ck_assert_int_eq(g.v[2].first_offset, 90);
    /* retention deleted segment 0 */
    gr_txnidx_drop_before(ix, 100);
    ck_assert_int_eq(gr_txnidx_count(ix), 1);
    gr_txnidx_destroy(ix);
}
END_TEST

START_TEST(test_cut_past_log_end)
{
    bool damaged;
    gr_txnidx_t *ix;
    char path[256];
    got_t g;

    touch_segment(0);
    ix = gr_txnidx_open(dir, 1000, &damaged);
    add(ix, 0, 1, 0, 5, 6);
    add(ix, 0, 2, 6, 9, 10);
    gr_txnidx_destroy(ix);
    /* recovery cut the log at 8: the second marker is gone */
    ix = gr_txnidx_open(dir, 8, &damaged);
    ck_assert(!damaged);
    ck_assert_int_eq(gr_txnidx_count(ix), 1);
    idx_path(path, 0);
    ck_assert_int_eq(gr_logtest_file_size(path), GR_TXNIDX_ENTRY);
    /* and the replay adds it again when its marker comes back */
    add(ix, 0, 2, 6, 9, 10);
    ck_assert_int_eq(collect(ix, 0, 100, &g), 2);
    gr_txnidx_destroy(ix);
}
END_TEST

START_TEST(test_damaged_and_orphans)
{
    bool damaged;
    gr_txnidx_t *ix;
    char path[256];
    int fd;

    touch_segment(1000);
    idx_path(path, 1000);
    fd = open(path, O_WRONLY | O_CREAT, 0644);
    ck_assert_int_eq(write(fd, "short", 5), 5); /* not a multiple of 34 */
    close(fd);
    /* below every segment (retention took its log): deleted */
    idx_path(path, 500);
    fd = open(path, O_WRONLY | O_CREAT, 0644);
    close(fd);
    ix = gr_txnidx_open(dir, 2000, &damaged);
    ck_assert_ptr_nonnull(ix);
    ck_assert(damaged);
    ck_assert_int_eq(gr_logtest_file_size(path), -1);
    /* reset: every file goes, for a rebuild */
    gr_txnidx_reset(ix);
    idx_path(path, 1000);
    ck_assert_int_eq(gr_logtest_file_size(path), -1);
    ck_assert_int_eq(gr_txnidx_count(ix), 0);
    gr_txnidx_destroy(ix);
}
END_TEST

/* Compaction merged segments 0..200 into 0: the index follows; a file left
 * by a crash before the merge was reported is folded in at start-up. */
START_TEST(test_merged)
{
    bool damaged;
    gr_txnidx_t *ix;
    char path[256];
    got_t g;

    touch_segment(0);
    touch_segment(100);
    touch_segment(200);
    touch_segment(300);
    ix = gr_txnidx_open(dir, 1000, &damaged);
    add(ix, 0, 1, 5, 10, 11);
    add(ix, 100, 2, 50, 110, 111);
    add(ix, 200, 3, 150, 210, 211);
    add(ix, 300, 4, 250, 310, 311);
    ck_assert_int_eq(gr_txnidx_merged(ix, 0, 200), 0);
    idx_path(path, 0);
    ck_assert_int_eq(gr_logtest_file_size(path), 2 * GR_TXNIDX_ENTRY);
    idx_path(path, 100);
    ck_assert_int_eq(gr_logtest_file_size(path), -1);
    gr_txnidx_destroy(ix);
    /* the cleaner's swap deleted 100.log; reopened: still 4 entries */
    snprintf(path, sizeof path, "%s/%020d.log", dir, 100);
    unlink(path);
    ix = gr_txnidx_open(dir, 1000, &damaged);
    ck_assert(!damaged);
    ck_assert_int_eq(collect(ix, 0, 1000, &g), 4);
    /* a crash between the swap of 200 into 0 and its report: 200's file
     * is left without its log, and folded into segment 0 */
    gr_txnidx_destroy(ix);
    snprintf(path, sizeof path, "%s/%020d.log", dir, 200);
    unlink(path);
    ix = gr_txnidx_open(dir, 1000, &damaged);
    ck_assert(!damaged);
    ck_assert_int_eq(collect(ix, 0, 1000, &g), 4);
    idx_path(path, 200);
    ck_assert_int_eq(gr_logtest_file_size(path), -1);
    idx_path(path, 0);
    ck_assert_int_eq(gr_logtest_file_size(path), 3 * GR_TXNIDX_ENTRY);
    gr_txnidx_destroy(ix);
}
END_TEST

Suite *
suite_log_txn_index(void)
{
    Suite *s = suite_create("log/txn_index");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_format_and_collect);
    tcase_add_test(tc, test_cut_past_log_end);
    tcase_add_test(tc, test_damaged_and_orphans);
    tcase_add_test(tc, test_merged);
    suite_add_tcase(s, tc);
    return s;
}
