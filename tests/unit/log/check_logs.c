/* The log manager: clean and unclean restarts, recovery of torn and corrupt
 * segments, index rebuilds, retention, checkpoints, the open file limit. */
#include "../unit.h"
#include "batches.h"
#include "logtest.h"

#include "log/log_int.h"
#include "proto/wire.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static gr_log_t *
open_log(gr_logtest_t *t, const char *topic, int partition,
         const gr_log_config_t *cfg)
{
    gr_err_t err;
    gr_log_t *l = gr_log_open(t->m, topic, partition, NULL, cfg, &err);
    ck_assert_int_eq(err, 0);
    ck_assert_ptr_nonnull(l);
    return l;
}

/* Appends one batch of records; its bytes as written go to all. Returns
 * the batch size. */
static size_t
append(gr_log_t *l, gr_buf_t *all, int records, int64_t ts, int vsize)
{
    gr_buf_t b = GR_BUF_INIT;
    gr_log_append_info_t info;
    size_t n = gr_test_batch(&b, records, ts, vsize);
    ck_assert_int_eq(gr_log_append(l, b.ptr, b.len, 0, &info), 0);
    if (all != NULL)
        gr_buf_append(all, b.ptr, b.len);
    gr_buf_fini(&b);
    return n;
}

/* Reads every batch from offset from to the LEO into out. */
static void
read_all(gr_log_t *l, int64_t from, gr_buf_t *out)
{
    gr_buf_t part = GR_BUF_INIT;
    int64_t offset = from;
    gr_buf_reset(out);
    while (offset < gr_log_end_offset(l)) {
        gr_log_slice_t s;
        size_t at = 0;
        ck_assert_int_eq(gr_log_read(l, offset, 1 << 20, INT64_MAX, true, &s),
                         0);
        ck_assert_int_gt(s.len, 0);
        ck_assert(gr_logtest_read_slice(&s, &part));
        while (at < part.len) {
            gr_batch_hdr_t h;
            gr_batch_hdr_parse(part.ptr + at, &h);
            offset = gr_batch_last_offset(&h) + 1;
            at += gr_batch_size(&h);
        }
        gr_buf_append(out, part.ptr, part.len);
    }
    gr_buf_fini(&part);
}

static void
remove_file(const gr_logtest_t *t, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", t->dir, name);
    unlink(path);
}

START_TEST(test_clean_restart)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t all = GR_BUF_INIT, back = GR_BUF_INIT;
    gr_log_t *l;

    cfg.segment_bytes = 2000;
    cfg.index_interval_bytes = 300;
    gr_logtest_init(&t, 10);
    ck_assert(!gr_logs_was_clean(t.m)); /* a new directory */
    l = open_log(&t, "a", 0, &cfg);
    for (int i = 0; i < 50; i++)
        append(l, &all, 1 + i % 4, 1000 + i, 40);
    gr_logtest_reopen(&t, 10);
    ck_assert(gr_logs_was_clean(t.m));
    l = open_log(&t, "a", 0, &cfg);
    ck_assert_int_eq(t.m->stat_recovered_segments, 0); /* nothing scanned */
    ck_assert_int_eq(t.m->stat_rebuilt_indexes, 0);
    ck_assert_int_eq(gr_log_recovery_point(l), gr_log_end_offset(l));
    read_all(l, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    /* appends go on where they stopped */
    append(l, &all, 2, 5000, 40);
    read_all(l, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    gr_buf_fini(&all);
    gr_buf_fini(&back);
    gr_logtest_fini(&t);
}
END_TEST

/* A process that appends and dies without closing anything. */
static void
crash_after_appends(const char *dir, int n)
{
    gr_log_config_t cfg;
    gr_loop_t *loop = gr_loop_new();
    gr_workers_t *w = gr_workers_new(loop, 1);
    gr_logs_t *m;
    gr_log_t *l;
    gr_err_t err;

    gr_log_config_default(&cfg);
    cfg.segment_bytes = 3000;
    m = gr_logs_open(dir, loop, w, 10, &err);
    if (m == NULL)
        _exit(2);
    l = gr_log_open(m, "c", 0, NULL, &cfg, &err);
    if (l == NULL)
        _exit(3);
    for (int i = 0; i < n; i++) {
        gr_buf_t b = GR_BUF_INIT;
        gr_log_append_info_t info;
        gr_test_batch(&b, 2, 1000 + i, 50);
        if (gr_log_append(l, b.ptr, b.len, 0, &info) != 0)
            _exit(4);
        gr_buf_fini(&b);
    }
    _exit(0);
}

START_TEST(test_unclean_restart)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t back = GR_BUF_INIT;
    int status;
    pid_t pid;
    gr_log_t *l;

    cfg.segment_bytes = 3000;
    gr_logtest_init(&t, 10);
    gr_logs_close(t.m);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        crash_after_appends(t.dir, 100);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    t.m = gr_logs_open(t.dir, t.loop, t.workers, 10, &(gr_err_t){ 0 });
    ck_assert(!gr_logs_was_clean(t.m));
    l = open_log(&t, "c", 0, &cfg);
    /* every segment past the (unknown) recovery point was checked */
    ck_assert_int_eq(t.m->stat_recovered_segments, gr_log_segment_count(l));
    ck_assert_int_eq(gr_log_end_offset(l), 200);
    ck_assert_int_eq(gr_log_recovery_point(l), 0);
    read_all(l, 0, &back);
    ck_assert_int_eq(gr_test_batches_count(back.ptr, back.len), 100);
    gr_buf_fini(&back);
    gr_logtest_fini(&t);
}
END_TEST

/* Cuts the active segment anywhere: the log comes back with every whole
 * batch before the cut, and the file is cut there. */
START_TEST(test_torn_tail)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t all = GR_BUF_INIT, back = GR_BUF_INIT;
    char path[4096], topic[16];

    gr_logtest_init(&t, 10);
    srand(7);
    for (int round = 0; round < 25; round++) {
        int64_t bounds[31], offsets[31], cut;
        gr_log_t *l;
        int k = 0;

        snprintf(topic, sizeof topic, "torn%d", round);
        l = open_log(&t, topic, 0, &cfg);
        gr_buf_reset(&all);
        bounds[0] = offsets[0] = 0;
        for (int i = 0; i < 30; i++) {
            bounds[i + 1] = bounds[i] + (int64_t)append(l, &all, 1 + i % 3,
                                                        1000 + i, 20 + i);
            offsets[i + 1] = offsets[i] + 1 + i % 3;
        }
        gr_logtest_reopen(&t, 10);
        remove_file(&t, ".kafka_cleanshutdown");
        remove_file(&t, "recovery-point-offset-checkpoint");
        cut = rand() % (bounds[30] + 1);
        while (bounds[k + 1] <= cut)
            k++;
        gr_logtest_seg_path(path, &t, topic, 0, 0, ".log");
        ck_assert_int_eq(truncate(path, cut), 0);
        gr_logs_close(t.m);
        remove_file(&t, ".kafka_cleanshutdown");
        t.m = gr_logs_open(t.dir, t.loop, t.workers, 10, &(gr_err_t){ 0 });

        l = open_log(&t, topic, 0, &cfg);
        ck_assert_int_eq(gr_log_end_offset(l), offsets[k]);
        ck_assert_int_eq(gr_logtest_file_size(path), bounds[k]);
        read_all(l, 0, &back);
        ck_assert_uint_eq(back.len, (size_t)bounds[k]);
        ck_assert_mem_eq(back.ptr, all.ptr, back.len);
        /* and it takes appends at the right offset */
        append(l, NULL, 1, 9000, 10);
        ck_assert_int_eq(gr_log_end_offset(l), offsets[k] + 1);
    }
    gr_buf_fini(&all);
    gr_buf_fini(&back);
    gr_logtest_fini(&t);
}
END_TEST

/* A flipped byte in a batch in the middle of a segment: truncated there,
 * and with the recovery point below it, the later segments go too. */
START_TEST(test_corrupt_middle)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t back = GR_BUF_INIT;
    char path[4096];
    size_t size;
    uint8_t c;
    int fd;
    gr_log_t *l;

    cfg.segment_bytes = 10 * 150; /* 10 batches of 150 bytes a segment */
    gr_logtest_init(&t, 10);
    l = open_log(&t, "x", 0, &cfg);
    for (int i = 0; i < 40; i++) {
        size = append(l, NULL, 1, 1000 + i, 80);
        ck_assert_uint_eq(size, 150);
    }
    ck_assert_int_eq(gr_log_segment_count(l), 4);
    gr_logs_close(t.m);
    /* batch 5 of the second segment (offsets 10..19): offset 15 */
    gr_logtest_seg_path(path, &t, "x", 0, 10, ".log");
    fd = open(path, O_RDWR);
    ck_assert_int_eq(pread(fd, &c, 1, 5 * 150 + 100), 1);
    c ^= 0x01;
    ck_assert_int_eq(pwrite(fd, &c, 1, 5 * 150 + 100), 1);
    close(fd);
    remove_file(&t, ".kafka_cleanshutdown");
    remove_file(&t, "recovery-point-offset-checkpoint");
    t.m = gr_logs_open(t.dir, t.loop, t.workers, 10, &(gr_err_t){ 0 });
    l = open_log(&t, "x", 0, &cfg);
    ck_assert_int_eq(gr_log_end_offset(l), 15);
    ck_assert_int_eq(gr_log_segment_count(l), 2);
    ck_assert_int_eq(gr_logtest_file_size(path), 5 * 150);
    gr_logtest_seg_path(path, &t, "x", 0, 20, ".log");
    ck_assert_int_eq(gr_logtest_file_size(path), -1);
    read_all(l, 0, &back);
    ck_assert_int_eq(gr_test_batches_count(back.ptr, back.len), 15);
    append(l, NULL, 1, 5000, 10);
    ck_assert_int_eq(gr_log_end_offset(l), 16);
    gr_buf_fini(&back);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_index_rebuilt)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t all = GR_BUF_INIT, back = GR_BUF_INIT;
    gr_buf_t idx1 = GR_BUF_INIT, idx2 = GR_BUF_INIT, now = GR_BUF_INIT;
    char p1[4096], p2[4096];
    int64_t base1;
    gr_log_t *l;
    int fd;

    cfg.segment_bytes = 3000;
    cfg.index_interval_bytes = 200;
    gr_logtest_init(&t, 10);
    l = open_log(&t, "i", 0, &cfg);
    for (int i = 0; i < 60; i++)
        append(l, &all, 2, 1000 + i, 40);
    ck_assert_int_ge(gr_log_segment_count(l), 3);
    base1 = l->segs[1]->base;
    gr_logs_close(t.m);
    t.m = NULL;
    gr_logtest_seg_path(p1, &t, "i", 0, 0, ".index");
    ck_assert(gr_logtest_read_file(p1, &idx1));
    ck_assert_uint_gt(idx1.len, 0);

    /* segment 0: index missing; found at open */
    unlink(p1);
    t.m = gr_logs_open(t.dir, t.loop, t.workers, 10, &(gr_err_t){ 0 });
    l = open_log(&t, "i", 0, &cfg);
    ck_assert_int_eq(t.m->stat_rebuilt_indexes, 1);
    ck_assert(gr_logtest_read_file(p1, &now));
    ck_assert_uint_eq(now.len, idx1.len);
    ck_assert_mem_eq(now.ptr, idx1.ptr, idx1.len);

    /* segment 1: entries going backwards (a valid size): found when read */
    gr_logtest_seg_path(p2, &t, "i", 0, base1, ".index");
    ck_assert(gr_logtest_read_file(p2, &idx2));
    ck_assert_uint_ge(idx2.len, 16);
    gr_logs_close(t.m);
    fd = open(p2, O_RDWR);
    ck_assert_int_eq(pwrite(fd, "\0\0\0\0\0\0\0\0", 8, 8), 8);
    close(fd);
    t.m = gr_logs_open(t.dir, t.loop, t.workers, 10, &(gr_err_t){ 0 });
    l = open_log(&t, "i", 0, &cfg);
    ck_assert_int_eq(t.m->stat_rebuilt_indexes, 0); /* lazy */
    read_all(l, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    ck_assert_int_eq(t.m->stat_rebuilt_indexes, 1);
    ck_assert(gr_logtest_read_file(p2, &now));
    ck_assert_uint_eq(now.len, idx2.len);
    ck_assert_mem_eq(now.ptr, idx2.ptr, idx2.len);

    /* a size that is not a multiple of 8: found at open */
    gr_logs_close(t.m);
    ck_assert_int_eq(truncate(p2, 5), 0);
    t.m = gr_logs_open(t.dir, t.loop, t.workers, 10, &(gr_err_t){ 0 });
    l = open_log(&t, "i", 0, &cfg);
    ck_assert_int_eq(t.m->stat_rebuilt_indexes, 1);
    ck_assert(gr_logtest_read_file(p2, &now));
    ck_assert_mem_eq(now.ptr, idx2.ptr, idx2.len);
    gr_buf_fini(&all);
    gr_buf_fini(&back);
    gr_buf_fini(&idx1);
    gr_buf_fini(&idx2);
    gr_buf_fini(&now);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_empty_dir_start_offset)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    char path[4096];
    FILE *f;
    gr_log_t *l;

    gr_logtest_init(&t, 10);
    gr_logs_close(t.m);
    snprintf(path, sizeof path, "%s/log-start-offset-checkpoint", t.dir);
    f = fopen(path, "w");
    fputs("0\n2\nx 0 500\ny 3 7\n", f);
    fclose(f);
    t.m = gr_logs_open(t.dir, t.loop, t.workers, 10, &(gr_err_t){ 0 });
    l = open_log(&t, "x", 0, &cfg);
    ck_assert_int_eq(gr_log_start_offset(l), 500);
    ck_assert_int_eq(gr_log_end_offset(l), 500);
    gr_logtest_seg_path(path, &t, "x", 0, 500, ".log");
    ck_assert_int_eq(gr_logtest_file_size(path), 0);
    append(l, NULL, 3, 1000, 10);
    ck_assert_int_eq(gr_log_end_offset(l), 503);
    /* y-3 was never opened: its line is kept */
    gr_logs_close(t.m);
    t.m = NULL;
    {
        gr_buf_t data = GR_BUF_INIT;
        snprintf(path, sizeof path, "%s/log-start-offset-checkpoint", t.dir);
        ck_assert(gr_logtest_read_file(path, &data));
        gr_buf_putc(&data, 0);
        ck_assert_str_eq((char *)data.ptr, "0\n2\nx 0 500\ny 3 7\n");
        gr_buf_fini(&data);
    }
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_open_twice)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_uuid_t a, b;
    gr_err_t err;
    gr_log_t *l;

    memset(&a, 1, sizeof a);
    memset(&b, 2, sizeof b);
    gr_logtest_init(&t, 10);
    l = gr_log_open(t.m, "d", 0, &a, &cfg, &err);
    ck_assert_ptr_nonnull(l);
    ck_assert_ptr_null(gr_log_open(t.m, "d", 0, &a, &cfg, &err));
    ck_assert_int_eq(err, GR_ERR_EXISTS);
    gr_log_close(l);
    /* another topic id in partition.metadata: the directory of the other
     * incarnation is moved aside (<dir>.<id>-stray), the log starts empty */
    l = gr_log_open(t.m, "d", 0, &b, &cfg, &err);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(err, 0);
    gr_log_close(l);
    l = gr_log_open(t.m, "d", 0, &a, &cfg, &err);
    ck_assert_ptr_nonnull(l);
    gr_logtest_fini(&t);
}
END_TEST

/* segment.bytes so small that every append rolls: one batch a segment */
static gr_log_t *
one_batch_segments(gr_logtest_t *t, gr_log_config_t *cfg, int n, int64_t ts0,
                   int64_t ts_step, size_t *batch)
{
    gr_log_t *l;
    cfg->segment_bytes = 100;
    l = open_log(t, "r", 0, cfg);
    for (int i = 0; i < n; i++)
        *batch = append(l, NULL, 2, ts0 + i * ts_step, 60);
    ck_assert_int_eq(gr_log_segment_count(l), n);
    return l;
}

START_TEST(test_retention_time)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_log_slice_t s;
    size_t batch;
    gr_log_t *l;

    cfg.retention_ms = 5000;
    gr_logtest_init(&t, 10);
    l = one_batch_segments(&t, &cfg, 10, 1000, 1000, &batch);
    /* now 12000: timestamps below 7000 are older than 5000 ms */
    ck_assert_int_eq(gr_logs_maintain(t.m, 12000), 6);
    ck_assert_int_eq(gr_log_segment_count(l), 4);
    ck_assert_int_eq(gr_log_start_offset(l), 12);
    ck_assert_int_eq(gr_log_size_bytes(l), 4 * (int64_t)batch);
    ck_assert_int_eq(gr_log_read(l, 11, 100, INT64_MAX, true, &s),
                     GR_ERR_NOT_FOUND);
    ck_assert_int_eq(gr_log_read(l, 12, 100, INT64_MAX, true, &s), 0);
    ck_assert_int_eq(s.first_offset, 12);
    ck_assert_int_eq(gr_logs_maintain(t.m, 12000), 0);
    /* everything expired: the active segment is rolled and goes too */
    ck_assert_int_eq(gr_logs_maintain(t.m, 100000), 4);
    ck_assert_int_eq(gr_log_segment_count(l), 1);
    ck_assert_int_eq(gr_log_size_bytes(l), 0);
    ck_assert_int_eq(gr_log_start_offset(l), 20);
    ck_assert_int_eq(gr_log_end_offset(l), 20);
    append(l, NULL, 1, 100000, 10);
    ck_assert_int_eq(gr_log_end_offset(l), 21);
    /* kept across a restart */
    gr_logtest_reopen(&t, 10);
    l = open_log(&t, "r", 0, &cfg);
    ck_assert_int_eq(gr_log_start_offset(l), 20);
    ck_assert_int_eq(gr_log_end_offset(l), 21);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_retention_bytes)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    size_t batch;
    gr_log_t *l;

    gr_logtest_init(&t, 10);
    l = one_batch_segments(&t, &cfg, 10, 1000, 0, &batch);
    gr_log_config_t c2 = cfg;
    c2.retention_bytes = (int64_t)(batch * 7 / 2);
    gr_log_set_config(l, &c2);
    /* 10 segments, keep 3.5: the oldest 6 go (a 7th would leave less) */
    ck_assert_int_eq(gr_logs_maintain(t.m, 2000), 6);
    ck_assert_int_eq(gr_log_segment_count(l), 4);
    ck_assert_int_eq(gr_log_start_offset(l), 12);
    /* without cleanup.policy=delete nothing goes by size */
    c2.retention_bytes = 0;
    c2.cleanup_delete = false;
    gr_log_set_config(l, &c2);
    ck_assert_int_eq(gr_logs_maintain(t.m, 2000), 0);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_retention_start_offset)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t data = GR_BUF_INIT;
    gr_log_slice_t s;
    size_t batch;
    gr_file_t *kept;
    gr_log_t *l;

    cfg.cleanup_delete = false; /* the log start offset works anyway */
    gr_logtest_init(&t, 10);
    l = one_batch_segments(&t, &cfg, 10, 1000, 0, &batch);
    /* a reader holds segment 0 */
    ck_assert_int_eq(gr_log_read(l, 0, 1000, INT64_MAX, true, &s), 0);
    kept = gr_file_ref(s.file);
    ck_assert_int_eq(gr_log_delete_records(l, 11, 20), 0);
    ck_assert_int_eq(gr_logs_maintain(t.m, 2000), 5); /* 0..4: wholly below */
    ck_assert_int_eq(gr_log_segment_count(l), 5);
    ck_assert_int_eq(gr_log_start_offset(l), 11);
    /* its fd still reads the deleted segment */
    s.file = kept;
    ck_assert(gr_logtest_read_slice(&s, &data));
    ck_assert_int_eq(gr_test_batches_count(data.ptr, data.len), 1);
    gr_file_unref(kept);
    gr_buf_fini(&data);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_flush_ms_and_checkpoints)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t data = GR_BUF_INIT;
    char path[4096];
    gr_log_t *l;

    cfg.flush_ms = 1000;
    cfg.retention_ms = -1;
    gr_logtest_init(&t, 10);
    l = open_log(&t, "f", 2, &cfg);
    append(l, NULL, 5, 1000, 10);
    ck_assert_int_eq(gr_log_recovery_point(l), 0);
    gr_logs_maintain(t.m, l->last_flush_ms + 500); /* not yet */
    gr_logtest_settle(&t);
    ck_assert_int_eq(gr_log_recovery_point(l), 0);
    gr_logs_maintain(t.m, l->last_flush_ms + 1000);
    gr_logtest_settle(&t);
    ck_assert_int_eq(gr_log_recovery_point(l), 5);
    /* the next pass writes the checkpoints (on a worker) */
    gr_logs_maintain(t.m, 0);
    gr_logtest_settle(&t);
    snprintf(path, sizeof path, "%s/recovery-point-offset-checkpoint", t.dir);
    ck_assert(gr_logtest_read_file(path, &data));
    gr_buf_putc(&data, 0);
    ck_assert_str_eq((char *)data.ptr, "0\n1\nf 2 5\n");
    gr_buf_fini(&data);
    gr_logtest_fini(&t);
}
END_TEST

/* 300 logs with at most 50 segment files open, under a 200 fd limit. */
START_TEST(test_open_file_limit)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_log_t *logs[300];
    gr_file_t *kept[5];
    gr_log_slice_t held[5];
    gr_buf_t data = GR_BUF_INIT;
    struct rlimit lim;

    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &lim), 0);
    lim.rlim_cur = 200;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &lim), 0);
    cfg.segment_bytes = 400; /* a few segments each */
    gr_logtest_init(&t, 50);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 300; i++) {
            if (round == 0)
                logs[i] = open_log(&t, "many", i, &cfg);
            append(logs[i], NULL, 1 + i % 3, 1000, 100);
            append(logs[i], NULL, 1, 1000, 100);
            /* the loop never runs here: queued flush jobs of the rolls
             * must hold no fds */
            ck_assert_int_le(gr_logs_open_files(t.m), 50);
        }
    }
    for (int i = 0; i < 300; i++) {
        gr_log_slice_t s;
        ck_assert_int_eq(gr_log_end_offset(logs[i]), 2 * (2 + i % 3));
        ck_assert_int_eq(gr_log_read(logs[i], 0, 1 << 20, INT64_MAX, true, &s),
                         0);
        ck_assert(gr_logtest_read_slice(&s, &data));
        ck_assert_int_ge(gr_test_batches_count(data.ptr, data.len), 1);
        if (i < 5) {
            held[i] = s;
            kept[i] = gr_file_ref(s.file);
        }
        ck_assert_int_le(gr_logs_open_files(t.m), 50);
    }
    /* slices taken early still read after their files left the LRU */
    for (int i = 0; i < 5; i++) {
        held[i].file = kept[i];
        ck_assert(gr_logtest_read_slice(&held[i], &data));
        ck_assert_int_ge(gr_test_batches_count(data.ptr, data.len), 1);
        gr_file_unref(kept[i]);
    }
    /* and again after a restart */
    gr_logtest_reopen(&t, 50);
    for (int i = 0; i < 300; i++) {
        gr_log_t *l = open_log(&t, "many", i, &cfg);
        ck_assert_int_eq(gr_log_end_offset(l), 2 * (2 + i % 3));
        append(l, NULL, 1, 1000, 100);
        ck_assert_int_le(gr_logs_open_files(t.m), 50);
    }
    gr_buf_fini(&data);
    gr_logtest_fini(&t);
}
END_TEST

Suite *
suite_log_logs(void)
{
    Suite *s = suite_create("log/logs");
    TCase *tc = tcase_create("logs");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_clean_restart);
    tcase_add_test(tc, test_unclean_restart);
    tcase_add_test(tc, test_torn_tail);
    tcase_add_test(tc, test_corrupt_middle);
    tcase_add_test(tc, test_index_rebuilt);
    tcase_add_test(tc, test_empty_dir_start_offset);
    tcase_add_test(tc, test_open_twice);
    tcase_add_test(tc, test_retention_time);
    tcase_add_test(tc, test_retention_bytes);
    tcase_add_test(tc, test_retention_start_offset);
    tcase_add_test(tc, test_flush_ms_and_checkpoints);
    tcase_add_test(tc, test_open_file_limit);
    suite_add_tcase(s, tc);
    return s;
}
