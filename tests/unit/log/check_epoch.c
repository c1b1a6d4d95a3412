/* The leader-epoch cache (log/epoch.c): Kafka's rules and checkpoint text;
 * and a log's cache on disk (log/log_epochs.c): written, loaded, rebuilt
 * when missing, corrupt or behind, cut with the log start. */
#include "../unit.h"
#include "batches.h"
#include "logtest.h"

#include "log/epoch.h"
#include "log/log_int.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* What Kafka 4.x writes for a new partition led at epoch 0 (read from a
 * real broker's <topic>-0/leader-epoch-checkpoint: 8 bytes). */
static const char kafka_new[] = "0\n1\n0 0\n";

static void
fill(gr_epochs_t *c, const char *text)
{
    const char *why = NULL;
    ck_assert_msg(gr_epochs_parse(c, text, strlen(text), &why) == 0, "%s",
                  why ? why : "");
}

static void
assert_text(const gr_epochs_t *c, const char *want)
{
    gr_buf_t b = GR_BUF_INIT;
    gr_epochs_format(c, &b);
    ck_assert_str_eq(gr_buf_cstr(&b), want);
    gr_buf_fini(&b);
}

START_TEST(test_format_kafka)
{
    gr_epochs_t c = { 0 };
    assert_text(&c, "0\n0\n");
    ck_assert_int_eq(gr_epochs_latest(&c), -1);
    ck_assert_int_eq(gr_epochs_assign(&c, 0, 0), 1);
    assert_text(&c, kafka_new);
    ck_assert_int_eq(gr_epochs_assign(&c, 0, 5), 0); /* same epoch, later */
    ck_assert_int_eq(gr_epochs_assign(&c, 7, 12345678901LL), 1);
    assert_text(&c, "0\n2\n0 0\n7 12345678901\n");
    gr_epochs_fini(&c);
}
END_TEST

START_TEST(test_parse)
{
    gr_epochs_t c = { 0 };
    fill(&c, kafka_new);
    ck_assert_int_eq(c.n, 1);
    fill(&c, "0\n3\n0 0\n2 57\n5 100\n");
    ck_assert_int_eq(c.n, 3);
    ck_assert_int_eq(c.v[1].epoch, 2);
    ck_assert_int_eq(c.v[1].start_offset, 57);
    fill(&c, "0\n1\n4 9"); /* no final newline: Java's readLine takes it */
    ck_assert_int_eq(c.v[0].epoch, 4);
    fill(&c, "0\n1\n4 \t 9\n"); /* split on runs of white space */
    ck_assert_int_eq(c.v[0].start_offset, 9);
    fill(&c, "0\n0\n");
    ck_assert_int_eq(c.n, 0);
    gr_epochs_fini(&c);
}
END_TEST

static const char *const bad_texts[] = {
    "",                       /* empty */
    "1\n0\n",                 /* version 1 */
    "0\n",                    /* no count */
    "0\n-1\n",                /* negative count */
    "0\n2\n0 0\n",            /* fewer lines */
    "0\n1\n0 0\n1 5\n",       /* more lines */
    "0\n1\n0 0\n\n",          /* an empty line past the count */
    "0\n1\n0\n",              /* one field */
    "0\n1\n0 0 0\n",          /* three fields */
    "0\n1\n0 x\n",            /* not a number */
    "0\n1\n-1 0\n",           /* negative epoch */
    "0\n1\n0 -5\n",           /* negative offset */
    "0\n2\n3 0\n2 5\n",       /* epochs not increasing */
    "0\n2\n1 5\n2 5\n",       /* offsets not increasing */
    "0\n1\n2147483648 0\n",   /* epoch past int32 */
    "0\n1\n0 9223372036854775808\n", /* offset past int64 */
    "00x\n0\n",
};

START_TEST(test_parse_bad)
{
    gr_epochs_t c = { 0 };
    const char *text = bad_texts[_i], *why = NULL;
    ck_assert_int_eq(gr_epochs_assign(&c, 1, 1), 1);
    ck_assert_int_eq(gr_epochs_parse(&c, text, strlen(text), &why), -1);
    ck_assert_ptr_nonnull(why);
    ck_assert_int_eq(c.n, 0); /* nothing half-read stays */
    gr_epochs_fini(&c);
}
END_TEST

START_TEST(test_assign_monotonic)
{
    gr_epochs_t c = { 0 };
    fill(&c, "0\n3\n0 0\n2 57\n5 100\n");
    /* a lower epoch cuts the history above it (Kafka's
     * maybeTruncateNonMonotonicEntries) */
    ck_assert_int_eq(gr_epochs_assign(&c, 3, 80), 1);
    assert_text(&c, "0\n3\n0 0\n2 57\n3 80\n");
    /* the same epoch with an earlier start replaces it */
    ck_assert_int_eq(gr_epochs_assign(&c, 3, 70), 1);
    assert_text(&c, "0\n3\n0 0\n2 57\n3 70\n");
    ck_assert_int_eq(gr_epochs_assign(&c, -1, 90), 0);
    ck_assert_int_eq(gr_epochs_assign(&c, 9, -1), 0);
    gr_epochs_fini(&c);
}
END_TEST

START_TEST(test_truncate)
{
    gr_epochs_t c = { 0 };
    fill(&c, "0\n3\n0 0\n2 57\n5 100\n");
    ck_assert(!gr_epochs_truncate_start(&c, 0));
    ck_assert(gr_epochs_truncate_start(&c, 60)); /* keeps epoch 2 from 60 */
    assert_text(&c, "0\n2\n2 60\n5 100\n");
    ck_assert(!gr_epochs_truncate_start(&c, 60));
    ck_assert(gr_epochs_truncate_start(&c, 100)); /* exactly at an entry */
    assert_text(&c, "0\n1\n5 100\n");
    fill(&c, "0\n3\n0 0\n2 57\n5 100\n");
    ck_assert(!gr_epochs_truncate_end(&c, 101));
    ck_assert(gr_epochs_truncate_end(&c, 100)); /* starts at or past go */
    assert_text(&c, "0\n2\n0 0\n2 57\n");
    ck_assert(!gr_epochs_truncate_end(&c, 58));
    ck_assert(gr_epochs_truncate_end(&c, 0));
    ck_assert_int_eq(c.n, 0);
    gr_epochs_fini(&c);
}
END_TEST

/* requested epoch -> (epoch, end offset), LEO 150, cache 2@57 5@100 8@120
 * (Kafka's LeaderEpochFileCache.endOffsetFor) */
static const struct {
    int32_t req, epoch;
    int64_t end;
} lookups[] = {
    { -1, -1, -1 }, /* UNDEFINED_EPOCH */
    { 0, 0, 57 },   /* below the first: itself, the first start */
    { 1, 1, 57 },   { 2, 2, 100 }, { 3, 2, 100 }, { 4, 2, 100 },
    { 5, 5, 120 },  { 7, 5, 120 }, { 8, 8, 150 }, /* latest: the LEO */
    { 9, -1, -1 },  /* above every epoch */
    { 1000, -1, -1 },
};

START_TEST(test_end_offset)
{
    gr_epochs_t c = { 0 };
    int32_t e;
    int64_t off;
    fill(&c, "0\n3\n2 57\n5 100\n8 120\n");
    gr_epochs_end_offset(&c, lookups[_i].req, 150, &e, &off);
    ck_assert_int_eq(e, lookups[_i].epoch);
    ck_assert_int_eq(off, lookups[_i].end);
    gr_epochs_clear(&c);
    gr_epochs_end_offset(&c, 0, 150, &e, &off); /* empty cache */
    ck_assert_int_eq(e, -1);
    ck_assert_int_eq(off, -1);
    gr_epochs_fini(&c);
}
END_TEST

/* --- a log's cache on disk */

/* The write of a change: a loop turn submits the job, the worker writes,
 * its done() runs on the loop. */
static void
settle(gr_logtest_t *t)
{
    gr_logtest_settle(t); /* the posted turn: the job is submitted */
    gr_logtest_settle(t); /* the job's end */
}

static gr_log_t *
open_log(gr_logtest_t *t)
{
    gr_log_config_t cfg = gr_logtest_config();
    gr_err_t err;
    gr_log_t *l;
    cfg.segment_bytes = 1500; /* several segments */
    l = gr_log_open(t->m, "e", 0, NULL, &cfg, &err);
    ck_assert_int_eq(err, 0);
    ck_assert_ptr_nonnull(l);
    return l;
}

static void
append(gr_log_t *l, int32_t epoch, int n)
{
    for (int i = 0; i < n; i++) {
        gr_buf_t b = GR_BUF_INIT;
        gr_log_append_info_t info;
        gr_test_batch(&b, 2, 1000 + i, 40);
        ck_assert_int_eq(gr_log_append(l, b.ptr, b.len, epoch, &info), 0);
        gr_buf_fini(&b);
    }
}

static void
file_path(const gr_logtest_t *t, char *out, size_t n)
{
    snprintf(out, n, "%s/e-0/%s", t->dir, GR_LOG_EPOCH_CHECKPOINT);
}

static void
assert_file(const gr_logtest_t *t, const char *want)
{
    char path[4096];
    gr_buf_t b = GR_BUF_INIT;
    file_path(t, path, sizeof path);
    ck_assert(gr_logtest_read_file(path, &b));
    ck_assert_str_eq(gr_buf_cstr(&b), want);
    gr_buf_fini(&b);
}

static void
put_file(const gr_logtest_t *t, const char *text)
{
    char path[4096];
    FILE *f;
    file_path(t, path, sizeof path);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    if (text != NULL)
        fputs(text, f);
    fclose(f);
}

/* A log with epochs 0 (offsets 0-19) and 3 (20-39), closed: the file's
 * expected text is "0\n2\n0 0\n3 20\n". */
static void
make_log(gr_logtest_t *t)
{
    gr_log_t *l;
    gr_logtest_init(t, 10);
    l = open_log(t);
    ck_assert_int_eq(gr_log_assign_epoch(l, 0), 0);
    append(l, 0, 10);
    ck_assert_int_eq(gr_log_assign_epoch(l, 3), 0);
    ck_assert_int_eq(gr_log_assign_epoch(l, 2), 0); /* not above: nothing */
    append(l, 3, 10);
    settle(t); /* the worker's write */
    assert_file(t, "0\n2\n0 0\n3 20\n");
    gr_log_close(l);
}

START_TEST(test_written_and_loaded)
{
    gr_logtest_t t;
    gr_log_t *l;
    int32_t e;
    int64_t off;

    make_log(&t);
    gr_logtest_reopen(&t, 10);
    l = open_log(&t);
    ck_assert_int_eq(gr_log_leader_epoch(l), 3);
    gr_log_epoch_end_offset(l, 0, &e, &off);
    ck_assert_int_eq(e, 0);
    ck_assert_int_eq(off, 20);
    gr_log_epoch_end_offset(l, 3, &e, &off);
    ck_assert_int_eq(off, 40);
    /* a new epoch without data: the cache has it, the file after the
     * worker's write too */
    ck_assert_int_eq(gr_log_assign_epoch(l, 4), 0);
    settle(&t);
    assert_file(&t, "0\n3\n0 0\n3 20\n4 40\n");
    gr_log_close(l);
    gr_logtest_fini(&t);
}
END_TEST

/* missing, corrupt, behind the batches, past the log end: rebuilt */
static const char *const stale_files[] = {
    NULL,                       /* removed */
    "garbage\n",                /* corrupt: a WARN, then the rebuild */
    "0\n3\n0 0\n",              /* truncated */
    "0\n1\n0 0\n",              /* behind: epoch 3 is in the batches */
    "0\n2\n0 0\n9 1000\n",      /* an entry past the log end */
};

START_TEST(test_rebuilt)
{
    gr_logtest_t t;
    char path[4096];
    gr_log_t *l;

    make_log(&t);
    gr_logtest_reopen(&t, 10);
    file_path(&t, path, sizeof path);
    if (stale_files[_i] == NULL)
        ck_assert_int_eq(unlink(path), 0);
    else
        put_file(&t, stale_files[_i]);
    l = open_log(&t);
    ck_assert_int_eq(gr_log_leader_epoch(l), 3);
    ck_assert_int_eq(gr_log_epochs(l)->n, 2);
    ck_assert_int_eq(gr_log_epochs(l)->v[1].start_offset, 20);
    settle(&t);
    assert_file(&t, "0\n2\n0 0\n3 20\n");
    gr_log_close(l);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_start_moves)
{
    gr_logtest_t t;
    gr_log_t *l;

    make_log(&t);
    gr_logtest_reopen(&t, 10);
    l = open_log(&t);
    /* DeleteRecords inside epoch 0: its entry starts there */
    ck_assert_int_eq(gr_log_delete_records(l, 7, gr_log_end_offset(l)), 0);
    settle(&t);
    assert_file(&t, "0\n2\n0 7\n3 20\n");
    /* past epoch 3's start: only epoch 3 is left, from there */
    ck_assert_int_eq(gr_log_delete_records(l, 25, gr_log_end_offset(l)), 0);
    settle(&t);
    assert_file(&t, "0\n1\n3 25\n");
    gr_log_close(l);
    /* the start is kept across a restart, the file agrees */
    gr_logtest_reopen(&t, 10);
    l = open_log(&t);
    ck_assert_int_eq(gr_log_start_offset(l), 25);
    ck_assert_int_eq(gr_log_epochs(l)->n, 1);
    ck_assert_int_eq(gr_log_epochs(l)->v[0].start_offset, 25);
    gr_log_close(l);
    gr_logtest_fini(&t);
}
END_TEST

Suite *
suite_log_epoch(void)
{
    Suite *s = suite_create("log/epoch");
    TCase *tc = tcase_create("cache");
    tcase_add_test(tc, test_format_kafka);
    tcase_add_test(tc, test_parse);
    tcase_add_loop_test(tc, test_parse_bad, 0,
                        (int)(sizeof bad_texts / sizeof bad_texts[0]));
    tcase_add_test(tc, test_assign_monotonic);
    tcase_add_test(tc, test_truncate);
    tcase_add_loop_test(tc, test_end_offset, 0,
                        (int)(sizeof lookups / sizeof lookups[0]));
    suite_add_tcase(s, tc);
    tc = tcase_create("disk");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_written_and_loaded);
    tcase_add_loop_test(tc, test_rebuilt, 0,
                        (int)(sizeof stale_files / sizeof stale_files[0]));
    tcase_add_test(tc, test_start_moves);
    suite_add_tcase(s, tc);
    return s;
}
