/* A partition log: appends, offsets, rolls, reads, index files, timestamps,
 * delete_records, flushes, failed writes. */
#include "../unit.h"
#include "batches.h"
#include "logtest.h"

#include "core/fault.h"
#include "log/log_int.h"
#include "log/producer_state.h"
#include "proto/wire.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static gr_log_t *
open_log(gr_logtest_t *t, const char *topic, const gr_log_config_t *cfg)
{
    gr_uuid_t id;
    gr_err_t err;
    gr_log_t *l;
    memset(&id, 0x11, sizeof id);
    l = gr_log_open(t->m, topic, 0, &id, cfg, &err);
    ck_assert_int_eq(err, 0);
    ck_assert_ptr_nonnull(l);
    return l;
}

/* Appends one batch (records, timestamp ts) and adds its bytes, as
 * written, to all (if not NULL). */
static gr_log_append_info_t
append(gr_log_t *l, gr_buf_t *all, int records, int64_t ts, int vsize)
{
    gr_buf_t b = GR_BUF_INIT;
    gr_log_append_info_t info;
    gr_test_batch(&b, records, ts, vsize);
    ck_assert_int_eq(gr_log_append(l, b.ptr, b.len, 3, &info), 0);
    if (all != NULL)
        gr_buf_append(all, b.ptr, b.len);
    gr_buf_fini(&b);
    return info;
}

/* Reads the whole log from offset from, slice after slice, into out. */
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
        ck_assert_int_eq(gr_test_batches_count(part.ptr, part.len) > 0, 1);
        while (at < part.len) { /* next offset: after the slice's last batch */
            gr_batch_hdr_t h;
            gr_batch_hdr_parse(part.ptr + at, &h);
            offset = gr_batch_last_offset(&h) + 1;
            at += gr_batch_size(&h);
        }
        gr_buf_append(out, part.ptr, part.len);
    }
    gr_buf_fini(&part);
}

START_TEST(test_append_read_back)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t all = GR_BUF_INIT, back = GR_BUF_INIT;
    int64_t next = 0;
    gr_log_t *l;

    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    ck_assert_int_eq(gr_log_end_offset(l), 0);
    ck_assert_int_eq(gr_log_start_offset(l), 0);
    for (int i = 0; i < 300; i++) {
        int records = 1 + i % 7;
        gr_log_append_info_t info = append(l, &all, records, 1000 + i, 30);
        ck_assert_int_eq(info.first_offset, next);
        ck_assert_int_eq(info.last_offset, next + records - 1);
        ck_assert_int_eq(info.max_timestamp, 1000 + i);
        ck_assert(!info.flush_due);
        next += records;
    }
    ck_assert_int_eq(gr_log_end_offset(l), next);
    ck_assert_int_eq(gr_log_size_bytes(l), (int64_t)all.len);
    read_all(l, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    /* offsets and leader epoch were patched, the CRC still holds */
    ck_assert_int_eq(gr_test_batches_count(back.ptr, back.len), 300);
    ck_assert_int_eq((int32_t)gr_get_u32(back.ptr + GR_BATCH_OFF_LEADER_EPOCH),
                     3);
    gr_buf_fini(&all);
    gr_buf_fini(&back);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_read_inside_batch)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    int64_t pos[41];
    gr_log_t *l;

    cfg.index_interval_bytes = 200; /* some index entries, some scans */
    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    pos[0] = 0;
    for (int i = 0; i < 40; i++) {
        append(l, NULL, 5, 1000, 20);
        pos[i + 1] = gr_log_size_bytes(l);
    }
    /* from the active segment (recent batches, index, scan) and after a
     * reopen (index and scan only) */
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t off = 0; off < 200; off++) {
            gr_log_slice_t s;
            int k = (int)(off / 5);
            ck_assert_int_eq(gr_log_read(l, off, 1, INT64_MAX, true, &s), 0);
            ck_assert_int_eq(s.first_offset, k * 5);
            ck_assert_int_eq(s.pos, pos[k]);
            ck_assert_int_eq(s.len, pos[k + 1] - pos[k]); /* whole batch */
        }
        gr_log_close(l);
        l = open_log(&t, "t", &cfg);
    }
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_max_bytes)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_log_slice_t s;
    int64_t size;
    gr_log_t *l;

    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    for (int i = 0; i < 10; i++)
        append(l, NULL, 4, 1000, 100);
    size = gr_log_size_bytes(l) / 10;
    /* below one batch: cut (Kafka's partial batch) or the whole batch */
    ck_assert_int_eq(gr_log_read(l, 0, 10, INT64_MAX, false, &s), 0);
    ck_assert_int_eq(s.len, 10);
    ck_assert_int_eq(gr_log_read(l, 0, 10, INT64_MAX, true, &s), 0);
    ck_assert_int_eq(s.len, size);
    ck_assert_int_eq(gr_log_read(l, 0, 0, INT64_MAX, false, &s), 0);
    ck_assert_int_eq(s.len, 0);
    /* two and a half batches: the two whole ones (Kafka would send the
     * half too, for the client to drop) */
    ck_assert_int_eq(
        gr_log_read(l, 4, (int32_t)(size * 5 / 2), INT64_MAX, true, &s), 0);
    ck_assert_int_eq(s.pos, size);
    ck_assert_int_eq(s.len, size * 2);
    /* one and a bit: the one */
    ck_assert_int_eq(gr_log_read(l, 8, (int32_t)(size + 1), INT64_MAX, false,
                                 &s),
                     0);
    ck_assert_int_eq(s.pos, size * 2);
    ck_assert_int_eq(s.len, size);
    /* more than there is: to the end */
    ck_assert_int_eq(gr_log_read(l, 36, 1 << 20, INT64_MAX, true, &s), 0);
    ck_assert_int_eq(s.pos, size * 9);
    ck_assert_int_eq(s.len, size);
    gr_logtest_fini(&t);
}
END_TEST

/* Whole batches where the remembered last batches of the active segment
 * do not reach: found from the offset index and a header or two, in the
 * active segment and in an older one. */
START_TEST(test_max_bytes_whole_batches)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_log_slice_t s;
    int64_t size;
    gr_log_t *l;

    cfg.index_interval_bytes = 700; /* an entry every few batches */
    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    for (int i = 0; i < 100; i++) /* more than the 32 remembered */
        append(l, NULL, 2, 1000, 100);
    size = gr_log_size_bytes(l) / 100;
    for (int k = 1; k <= 12; k++) {
        /* from batch 3, k whole batches and most of one more */
        ck_assert_int_eq(gr_log_read(l, 6, (int32_t)(size * k + size - 7),
                                     INT64_MAX, true, &s),
                         0);
        ck_assert_int_eq(s.pos, size * 3);
        ck_assert_int_eq(s.len, size * k);
        /* near the end: the remembered ones */
        ck_assert_int_eq(gr_log_read(l, 160, (int32_t)(size * k + 1),
                                     INT64_MAX, true, &s),
                         0);
        ck_assert_int_eq(s.pos, size * 80);
        ck_assert_int_eq(s.len, size * (k < 20 ? k : 20));
    }
    /* an older segment: ~17 batches each */
    cfg.segment_bytes = (int32_t)(size * 17 + size / 2);
    l = open_log(&t, "u", &cfg);
    for (int i = 0; i < 40; i++)
        append(l, NULL, 2, 1000, 100);
    ck_assert_int_gt(gr_log_segment_count(l), 2);
    ck_assert_int_eq(
        gr_log_read(l, 10, (int32_t)(size * 7 + size / 2), INT64_MAX, true, &s),
        0);
    ck_assert_int_eq(s.pos, size * 5);
    ck_assert_int_eq(s.len, size * 7);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_max_offset_and_range)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_log_slice_t s;
    int64_t size;
    gr_log_t *l;

    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    for (int i = 0; i < 10; i++)
        append(l, NULL, 4, 1000, 100); /* batch k: offsets 4k..4k+3 */
    size = gr_log_size_bytes(l) / 10;
    /* up to the batch starting at max_offset */
    ck_assert_int_eq(gr_log_read(l, 0, 1 << 20, 20, true, &s), 0);
    ck_assert_int_eq(s.len, size * 5);
    /* a batch holding max_offset is not visible (Kafka) */
    ck_assert_int_eq(gr_log_read(l, 0, 1 << 20, 22, true, &s), 0);
    ck_assert_int_eq(s.len, size * 5);
    ck_assert_int_eq(gr_log_read(l, 20, 1 << 20, 22, true, &s), 0);
    ck_assert_int_eq(s.len, 0);
    ck_assert_int_eq(gr_log_read(l, 20, 1 << 20, 20, true, &s), 0);
    ck_assert_int_eq(s.len, 0);
    /* the log end: empty; past it or below the start: out of range */
    ck_assert_int_eq(gr_log_read(l, 40, 1 << 20, INT64_MAX, true, &s), 0);
    ck_assert_int_eq(s.len, 0);
    ck_assert_int_eq(s.first_offset, -1);
    ck_assert_int_eq(gr_log_read(l, 41, 1 << 20, INT64_MAX, true, &s),
                     GR_ERR_NOT_FOUND);
    ck_assert_int_eq(gr_log_read(l, -1, 1 << 20, INT64_MAX, true, &s),
                     GR_ERR_NOT_FOUND);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_roll_by_size_many_segments)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t all = GR_BUF_INIT, back = GR_BUF_INIT;
    char path[4096];
    gr_log_t *l;

    cfg.segment_bytes = 1000;
    cfg.index_interval_bytes = 150;
    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    for (int i = 0; i < 200; i++)
        append(l, &all, 2, 1000 + i, 60);
    /* a batch of 2 records of 60 bytes is 61 + 2 * 68 = 197 bytes: five fit
     * in 1000 */
    ck_assert_int_eq(gr_log_segment_count(l), 40);
    for (int i = 0; i < 40; i++) {
        gr_logtest_seg_path(path, &t, "t", 0, i * 10, ".log");
        ck_assert_int_eq(gr_logtest_file_size(path), 5 * 197);
    }
    ck_assert_int_le(gr_logs_open_files(t.m), 10);
    read_all(l, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    /* from the middle, and after a reopen (lazy index loads) */
    gr_logtest_reopen(&t, 10);
    l = open_log(&t, "t", &cfg);
    ck_assert_int_eq(gr_log_segment_count(l), 40);
    ck_assert_int_eq(gr_log_end_offset(l), 400);
    read_all(l, 201, &back);
    ck_assert_uint_eq(back.len, all.len / 2);
    ck_assert_mem_eq(back.ptr, all.ptr + all.len / 2, all.len / 2);
    gr_buf_fini(&all);
    gr_buf_fini(&back);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_roll_by_time)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_log_t *l;

    cfg.segment_ms = 1000;
    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    /* the age is the incoming timestamp minus the first batch's */
    append(l, NULL, 1, 10000, 10);
    append(l, NULL, 1, 10500, 10);
    append(l, NULL, 1, 11000, 10); /* 1000: not more than segment.ms */
    ck_assert_int_eq(gr_log_segment_count(l), 1);
    append(l, NULL, 1, 11001, 10);
    ck_assert_int_eq(gr_log_segment_count(l), 2);
    ck_assert_int_eq(l->segs[1]->base, 3);
    append(l, NULL, 1, 11500, 10);
    ck_assert_int_eq(gr_log_segment_count(l), 2);
    /* after a reopen the first batch's timestamp is read back */
    gr_logtest_reopen(&t, 10);
    l = open_log(&t, "t", &cfg);
    append(l, NULL, 1, 12002, 10);
    ck_assert_int_eq(gr_log_segment_count(l), 3);
    ck_assert_int_eq(l->segs[2]->base, 5);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_roll_index_full)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_log_t *l;

    cfg.index_interval_bytes = 0; /* an entry for every append but the first */
    cfg.segment_index_bytes = 36; /* 4 offset or 3 time index entries */
    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    for (int i = 0; i < 4; i++)
        append(l, NULL, 1, 1000 + i, 10);
    ck_assert_int_eq(gr_log_segment_count(l), 1);
    ck_assert_int_eq(l->segs[0]->oidx.n, 3);
    ck_assert_int_eq(l->segs[0]->tidx.n, 3); /* full */
    append(l, NULL, 1, 2000, 10);
    ck_assert_int_eq(gr_log_segment_count(l), 2);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_index_files_kafka_format)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t data = GR_BUF_INIT;
    char path[4096];
    int64_t sz;
    gr_log_t *l;

    cfg.index_interval_bytes = 100;
    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    for (int i = 0; i < 4; i++) /* 3 records each, timestamps 5000.. */
        append(l, NULL, 3, 5000 + 10 * i, 30);
    sz = gr_log_size_bytes(l) / 4;
    gr_logs_close(t.m);
    t.m = NULL;

    /* .index: every append after the first gets (last offset, position) */
    gr_logtest_seg_path(path, &t, "t", 0, 0, ".index");
    ck_assert(gr_logtest_read_file(path, &data));
    ck_assert_uint_eq(data.len, 24);
    for (int e = 0; e < 3; e++) {
        ck_assert_uint_eq(gr_get_u32(data.ptr + 8 * e), 3 * (e + 1) + 2);
        ck_assert_uint_eq(gr_get_u32(data.ptr + 8 * e + 4), sz * (e + 1));
    }
    /* .timeindex: (largest timestamp so far, last offset of its batch) */
    gr_logtest_seg_path(path, &t, "t", 0, 0, ".timeindex");
    ck_assert(gr_logtest_read_file(path, &data));
    ck_assert_uint_eq(data.len, 36);
    for (int e = 0; e < 3; e++) {
        ck_assert_int_eq((int64_t)gr_get_u64(data.ptr + 12 * e),
                         5000 + 10 * (e + 1));
        ck_assert_uint_eq(gr_get_u32(data.ptr + 12 * e + 8), 3 * (e + 1) + 2);
    }
    /* the directory's other files */
    snprintf(path, sizeof path, "%s/t-0/partition.metadata", t.dir);
    ck_assert(gr_logtest_read_file(path, &data));
    gr_buf_putc(&data, 0);
    /* Kafka's PartitionMetadata.encode: no newline after the id */
    ck_assert_str_eq((char *)data.ptr,
                     "version: 0\ntopic_id: EREREREREREREREREREREQ");
    snprintf(path, sizeof path, "%s/recovery-point-offset-checkpoint", t.dir);
    ck_assert(gr_logtest_read_file(path, &data));
    gr_buf_putc(&data, 0);
    ck_assert_str_eq((char *)data.ptr, "0\n1\nt 0 12\n");
    snprintf(path, sizeof path, "%s/log-start-offset-checkpoint", t.dir);
    ck_assert(gr_logtest_read_file(path, &data));
    gr_buf_putc(&data, 0);
    ck_assert_str_eq((char *)data.ptr, "0\n1\nt 0 0\n");
    snprintf(path, sizeof path, "%s/.kafka_cleanshutdown", t.dir);
    ck_assert_int_ge(gr_logtest_file_size(path), 0);
    /* the form Gregor wrote before (a newline after the id) names the
     * same topic: the directory is kept, not moved aside */
    {
        FILE *f;
        snprintf(path, sizeof path, "%s/t-0/partition.metadata", t.dir);
        f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fputs("version: 0\ntopic_id: EREREREREREREREREREREQ\n", f);
        fclose(f);
        gr_logtest_reopen(&t, 10);
        l = open_log(&t, "t", &cfg);
        ck_assert_int_eq(gr_log_end_offset(l), 12);
        snprintf(path, sizeof path, "%s/t-0.EREREREREREREREREREREQ-stray",
                 t.dir);
        ck_assert_int_lt(gr_logtest_file_size(path), 0);
    }
    gr_buf_fini(&data);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_timestamps)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_log_slice_t s;
    gr_buf_t data = GR_BUF_INIT;
    int64_t ts, off;
    gr_log_t *l;

    cfg.segment_bytes = 700;
    cfg.index_interval_bytes = 100;
    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    gr_log_max_timestamp(l, &ts, &off);
    ck_assert_int_eq(ts, -1);
    ck_assert_int_eq(off, -1);
    /* batch i: 2 records, offsets 2i..2i+1, timestamps rising except a
     * peak at batch 7 */
    for (int i = 0; i < 30; i++)
        append(l, NULL, 2, i == 7 ? 90000 : 1000 * (i + 1), 40);
    ck_assert_int_gt(gr_log_segment_count(l), 3);
    for (int pass = 0; pass < 2; pass++) {
        gr_log_max_timestamp(l, &ts, &off);
        ck_assert_int_eq(ts, 90000);
        ck_assert_int_eq(off, 15); /* the last offset of batch 7 */
        /* first batch with maxTimestamp >= ts */
        ck_assert_int_eq(gr_log_find_timestamp(l, 0, &s), 0);
        ck_assert_int_eq(s.first_offset, 0);
        ck_assert_int_eq(gr_log_find_timestamp(l, 3000, &s), 0);
        ck_assert_int_eq(s.first_offset, 4);
        ck_assert_int_eq(gr_log_find_timestamp(l, 3001, &s), 0);
        ck_assert_int_eq(s.first_offset, 6);
        ck_assert_int_eq(gr_log_find_timestamp(l, 9000, &s), 0);
        ck_assert_int_eq(s.first_offset, 14); /* the peak */
        ck_assert_int_eq(gr_log_find_timestamp(l, 25000, &s), 0);
        ck_assert_int_eq(s.first_offset, 14);
        ck_assert(gr_logtest_read_slice(&s, &data));
        ck_assert_int_eq(gr_test_batches_count(data.ptr, data.len), 1);
        ck_assert_int_eq(gr_log_find_timestamp(l, 90001, &s), 0);
        ck_assert_int_eq(s.len, 0);
        gr_logtest_reopen(&t, 10); /* again from the files */
        l = open_log(&t, "t", &cfg);
    }
    gr_buf_fini(&data);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_delete_records)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_log_slice_t s;
    gr_log_t *l;

    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    for (int i = 0; i < 10; i++)
        append(l, NULL, 4, 1000, 10);
    ck_assert_int_eq(gr_log_delete_records(l, 30, 20), GR_ERR_NOT_FOUND);
    ck_assert_int_eq(gr_log_delete_records(l, 14, 40), 0);
    ck_assert_int_eq(gr_log_start_offset(l), 14);
    ck_assert_int_eq(gr_log_delete_records(l, 10, 40), 0); /* never back */
    ck_assert_int_eq(gr_log_start_offset(l), 14);
    ck_assert_int_eq(gr_log_read(l, 13, 100, INT64_MAX, true, &s),
                     GR_ERR_NOT_FOUND);
    ck_assert_int_eq(gr_log_read(l, 14, 100, INT64_MAX, true, &s), 0);
    ck_assert_int_eq(s.first_offset, 12); /* the batch holding 14 */
    /* kept across a restart (log-start-offset-checkpoint) */
    gr_logtest_reopen(&t, 10);
    l = open_log(&t, "t", &cfg);
    ck_assert_int_eq(gr_log_start_offset(l), 14);
    gr_logtest_fini(&t);
}
END_TEST

typedef struct flush_seen {
    int calls;
    gr_err_t err;
    int64_t rp;
} flush_seen_t;

static void
on_flush(gr_log_t *l, gr_err_t err, void *arg)
{
    flush_seen_t *f = arg;
    f->calls++;
    f->err = err;
    f->rp = gr_log_recovery_point(l);
}

START_TEST(test_flush)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    flush_seen_t a = { 0 }, b = { 0 }, c = { 0 };
    gr_log_append_info_t info;
    gr_log_t *l;

    cfg.flush_messages = 5;
    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    ck_assert_int_eq(gr_log_recovery_point(l), 0);
    info = append(l, NULL, 2, 1000, 10);
    ck_assert(!info.flush_due);
    info = append(l, NULL, 2, 1000, 10);
    ck_assert(!info.flush_due);
    info = append(l, NULL, 2, 1000, 10);
    ck_assert(info.flush_due); /* 6 unflushed >= flush.messages */
    ck_assert_int_eq(gr_log_flush(l, on_flush, &a), 0);
    /* while it runs: coalesced into one more flush */
    append(l, NULL, 2, 1000, 10);
    ck_assert_int_eq(gr_log_flush(l, on_flush, &b), 0);
    ck_assert_int_eq(gr_log_flush(l, on_flush, &c), 0);
    ck_assert(gr_logtest_wait(&t, &a.calls));
    ck_assert_int_eq(a.err, 0);
    ck_assert_int_ge(a.rp, 6);
    ck_assert(gr_logtest_wait(&t, &c.calls));
    ck_assert_int_eq(b.calls, 1);
    ck_assert_int_eq(c.err, 0);
    ck_assert_int_eq(c.rp, 8);
    ck_assert_int_eq(gr_log_recovery_point(l), 8);
    info = append(l, NULL, 2, 1000, 10);
    ck_assert(!info.flush_due);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_delete_while_flushing)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    flush_seen_t a = { 0 };
    char path[4096];
    gr_log_t *l;

    gr_logtest_init(&t, 10);
    l = open_log(&t, "gone", &cfg);
    append(l, NULL, 2, 1000, 10);
    ck_assert_int_eq(gr_log_flush(l, on_flush, &a), 0);
    ck_assert_int_eq(gr_log_delete(l), 0);
    ck_assert(gr_logtest_wait(&t, &a.calls));
    ck_assert_int_eq(a.err, GR_ERR_IO); /* its data is gone */
    gr_logtest_settle(&t);
    snprintf(path, sizeof path, "%s/gone-0", t.dir);
    ck_assert_int_eq(access(path, F_OK), -1);
    gr_logtest_fini(&t);
}
END_TEST

/* Directories in t.dir whose name ends with suffix. */
static int
count_dirs(const gr_logtest_t *t, const char *suffix)
{
    struct dirent *de;
    DIR *d = opendir(t->dir);
    size_t k = strlen(suffix);
    int n = 0;
    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] != '.' && len >= k &&
            strcmp(de->d_name + len - k, suffix) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* How many of many-0 .. many-<n-1> are in t.dir. */
static int
left_dirs(const gr_logtest_t *t, int n)
{
    char path[4096];
    int k = 0;
    for (int p = 0; p < n; p++) {
        snprintf(path, sizeof path, "%s/many-%d", t->dir, p);
        k += access(path, F_OK) == 0;
    }
    return k;
}

/* Deleting 200 logs renames their directories a chunk per loop turn, not
 * all at once; opening a log of the same name while renames wait makes
 * them first, so the new incarnation's directory is never moved away. */
START_TEST(test_delete_many_then_reopen)
{
    enum { N = 200 };
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_uuid_t old_id, new_id;
    gr_log_t *l, *ls[N];
    gr_err_t err;
    int left;

    memset(&old_id, 0x11, sizeof old_id);
    memset(&new_id, 0x22, sizeof new_id);
    gr_logtest_init(&t, 10);
    for (int32_t p = 0; p < N; p++) {
        ls[p] = gr_log_open(t.m, "many", p, &old_id, &cfg, &err);
        ck_assert_ptr_nonnull(ls[p]);
        append(ls[p], NULL, 2, 1000, 10);
    }
    for (int32_t p = 0; p < N; p++)
        ck_assert_int_eq(gr_log_delete(ls[p]), 0);
    ck_assert_int_eq(left_dirs(&t, N), N); /* none renamed yet */
    gr_loop_drain_posts(t.loop);           /* one turn */
    left = left_dirs(&t, N);
    ck_assert_int_gt(left, 0);
    ck_assert_int_lt(left, N);
    /* the same name again: every waiting rename happens first */
    l = gr_log_open(t.m, "many", N - 1, &new_id, &cfg, &err);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(gr_log_end_offset(l), 0);
    append(l, NULL, 3, 1000, 10);
    gr_logtest_settle(&t);
    /* the old directories are gone, the new one stays with its batch */
    ck_assert_int_eq(count_dirs(&t, "-delete"), 0);
    ck_assert_int_eq(count_dirs(&t, "-stray"), 0);
    ck_assert_int_eq(left_dirs(&t, N - 1), 0);
    ck_assert_int_eq(count_dirs(&t, "-199"), 1);
    ck_assert_int_eq(gr_log_end_offset(l), 3);
    gr_log_close(l);
    gr_logtest_reopen(&t, 10);
    l = gr_log_open(t.m, "many", N - 1, &new_id, &cfg, &err);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(gr_log_end_offset(l), 3);
    gr_log_close(l);
    gr_logtest_fini(&t);
}
END_TEST

static void
count_call(void *arg)
{
    (*(int *)arg)++;
}

/* Held, the deleted logs' directories stay (the broker holds them until
 * the deletion is stored); the last release renames them, and the idle
 * callback runs once they are removed. */
START_TEST(test_trash_held)
{
    enum { N = 3 };
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_uuid_t id;
    gr_log_t *ls[N];
    gr_err_t err;
    int idle = 0;

    memset(&id, 0x33, sizeof id);
    gr_logtest_init(&t, 10);
    gr_logs_on_trash_idle(t.m, count_call, &idle);
    for (int32_t p = 0; p < N; p++) {
        ls[p] = gr_log_open(t.m, "many", p, &id, &cfg, &err);
        ck_assert_ptr_nonnull(ls[p]);
        append(ls[p], NULL, 2, 1000, 10);
    }
    gr_logs_trash_hold(t.m);
    gr_logs_trash_hold(t.m);
    for (int32_t p = 0; p < N; p++)
        ck_assert_int_eq(gr_log_delete(ls[p]), 0);
    gr_loop_drain_posts(t.loop);
    gr_loop_drain_posts(t.loop);
    ck_assert_int_eq(left_dirs(&t, N), N);
    gr_logs_trash_release(t.m);
    gr_loop_drain_posts(t.loop);
    ck_assert_int_eq(left_dirs(&t, N), N);
    ck_assert_int_eq(idle, 0);
    gr_logs_trash_release(t.m);
    gr_loop_drain_posts(t.loop); /* one turn renames all three */
    ck_assert_int_eq(left_dirs(&t, N), 0);
    gr_logtest_settle(&t);
    ck_assert_int_eq(count_dirs(&t, "-delete"), 0);
    ck_assert_int_eq(idle, 1);
    gr_logtest_fini(&t);
}
END_TEST

static void
prep_counted(gr_loop_t *loop, void *arg)
{
    (void)loop;
    (*(int *)arg)++;
}

/* While held, opening or preparing another name's directory leaves the
 * waiting ones (their deletion may not be durable yet: a crash must not
 * find them moved); the same name again moves only that one first. */
START_TEST(test_trash_held_other_names)
{
    enum { N = 3 };
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_uuid_t id, other_id, new_id;
    gr_log_prep_t prep;
    gr_log_t *ls[N], *o, *again;
    gr_err_t err;
    char path[4096];
    int prepared = 0;

    memset(&id, 0x44, sizeof id);
    memset(&other_id, 0x55, sizeof other_id);
    memset(&new_id, 0x66, sizeof new_id);
    gr_logtest_init(&t, 10);
    for (int32_t p = 0; p < N; p++) {
        ls[p] = gr_log_open(t.m, "many", p, &id, &cfg, &err);
        ck_assert_ptr_nonnull(ls[p]);
        append(ls[p], NULL, 2, 1000, 10);
    }
    gr_logs_trash_hold(t.m);
    for (int32_t p = 0; p < N; p++)
        ck_assert_int_eq(gr_log_delete(ls[p]), 0);
    o = gr_log_open(t.m, "other", 0, &other_id, &cfg, &err);
    ck_assert_ptr_nonnull(o);
    memset(&prep, 0, sizeof prep);
    prep.topic = (char *)"other";
    prep.partition = 1;
    prep.topic_id = other_id;
    ck_assert_int_eq(gr_logs_prepare(t.m, &prep, 1, prep_counted, &prepared),
                     0);
    ck_assert(gr_logtest_wait(&t, &prepared));
    ck_assert_int_eq(prep.err, 0);
    ck_assert_int_eq(left_dirs(&t, N), N);
    ck_assert_int_eq(gr_logs_trash_waiting(t.m), N);
    /* many-1 made again: its old directory goes first, the others wait */
    again = gr_log_open(t.m, "many", 1, &new_id, &cfg, &err);
    ck_assert_ptr_nonnull(again);
    ck_assert_int_eq(gr_log_end_offset(again), 0);
    ck_assert_int_eq(gr_logs_trash_waiting(t.m), N - 1);
    snprintf(path, sizeof path, "%s/many-0", t.dir);
    ck_assert_int_eq(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/many-2", t.dir);
    ck_assert_int_eq(access(path, F_OK), 0);
    gr_logs_trash_release(t.m);
    gr_loop_drain_posts(t.loop);
    gr_logtest_settle(&t);
    ck_assert_int_eq(gr_logs_trash_waiting(t.m), 0);
    ck_assert_int_eq(left_dirs(&t, N), 1); /* many-1, the new one */
    ck_assert_int_eq(count_dirs(&t, "-delete"), 0);
    ck_assert_int_eq(count_dirs(&t, "-stray"), 0);
    gr_log_close(again);
    gr_log_close(o);
    gr_logtest_fini(&t);
}
END_TEST

/* The inode of path's snapshot at offset off, 0 when there is none. */
static ino_t
snapshot_ino(const gr_logtest_t *t, int64_t off)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/snap-0/%020lld.snapshot", t->dir,
             (long long)off);
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* As Kafka's takeSnapshot: a producer snapshot is written only when the
 * log grew since the last one (loaded or written), or its file is gone or
 * could not be loaded. */
START_TEST(test_snapshot_only_when_new)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_pstate_t *ps;
    gr_log_t *l;
    int64_t leo;
    ino_t ino;
    char path[4096];

    gr_logtest_init(&t, 10);
    l = open_log(&t, "snap", &cfg);
    append(l, NULL, 2, 1000, 10);
    leo = gr_log_end_offset(l);
    ps = gr_pstate_new("snap", 0);
    ck_assert_int_eq(gr_pstate_load(ps, l), 0);
    ck_assert_int_eq(gr_pstate_snapshot(ps, l), 0);
    ck_assert((ino = snapshot_ino(&t, leo)) != 0);
    ck_assert_int_eq(gr_pstate_snapshot(ps, l), 0); /* nothing new */
    ck_assert(snapshot_ino(&t, leo) == ino);
    gr_pstate_destroy(ps);
    ps = gr_pstate_new("snap", 0); /* loaded from that snapshot */
    ck_assert_int_eq(gr_pstate_load(ps, l), 0);
    ck_assert_int_eq(gr_pstate_snapshot(ps, l), 0);
    ck_assert(snapshot_ino(&t, leo) == ino);
    snprintf(path, sizeof path, "%s/snap-0/%020lld.snapshot", t.dir,
             (long long)leo);
    /* damaged (a byte of its entries changed, then cut short): not
     * loaded, so written again at the next stop */
    for (int k = 0; k < 2; k++) {
        int fd = open(path, O_RDWR);
        ck_assert_int_ge(fd, 0);
        if (k == 0)
            ck_assert_int_eq(pwrite(fd, "\x55", 1, 8), 1);
        else
            ck_assert_int_eq(ftruncate(fd, 3), 0);
        close(fd);
        gr_pstate_destroy(ps);
        ps = gr_pstate_new("snap", 0);
        ck_assert_int_eq(gr_pstate_load(ps, l), 0);
        ck_assert_int_eq(gr_pstate_snapshot(ps, l), 0);
        ck_assert(snapshot_ino(&t, leo) != ino);
        ino = snapshot_ino(&t, leo);
    }
    ck_assert_int_eq(unlink(path), 0); /* gone: written again */
    ck_assert_int_eq(gr_pstate_snapshot(ps, l), 0);
    ck_assert(snapshot_ino(&t, leo) != 0);
    append(l, NULL, 1, 1000, 10); /* the log grew: a new one */
    ck_assert_int_eq(gr_pstate_snapshot(ps, l), 0);
    ck_assert(snapshot_ino(&t, gr_log_end_offset(l)) != 0);
    gr_pstate_destroy(ps);
    gr_log_close(l);
    gr_logtest_fini(&t);
}
END_TEST

/* A write that fails half-way (RLIMIT_FSIZE makes a short write, then
 * EFBIG): nothing of the batch stays, and the log goes on. */
START_TEST(test_failed_write_fsize)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t all = GR_BUF_INIT, b = GR_BUF_INIT, back = GR_BUF_INIT;
    gr_log_append_info_t info;
    struct rlimit old, lim;
    char path[4096];
    int64_t size;
    gr_err_t err;
    int rc;
    gr_log_t *l;

    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    append(l, &all, 3, 1000, 100);
    size = gr_log_size_bytes(l);
    gr_test_batch(&b, 3, 1000, 100);

    signal(SIGXFSZ, SIG_IGN);
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)(size + 50);
    /* no ck_assert while the limit is low: Check writes a file at each */
    rc = setrlimit(RLIMIT_FSIZE, &lim);
    err = gr_log_append(l, b.ptr, b.len, 0, &info);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(err, GR_ERR_IO);

    gr_logtest_seg_path(path, &t, "t", 0, 0, ".log");
    ck_assert_int_eq(gr_logtest_file_size(path), size);
    ck_assert_int_eq(gr_log_end_offset(l), 3);
    info = append(l, &all, 3, 1000, 100);
    ck_assert_int_eq(info.first_offset, 3);
    read_all(l, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    gr_buf_fini(&all);
    gr_buf_fini(&b);
    gr_buf_fini(&back);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_failed_write_fault)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t all = GR_BUF_INIT, b = GR_BUF_INIT, back = GR_BUF_INIT;
    gr_log_append_info_t info;
    flush_seen_t a = { 0 };
    char path[4096];
    gr_log_t *l;

    cfg.segment_bytes = 1000;
    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg);
    append(l, &all, 3, 1000, 100);
    gr_test_batch(&b, 3, 1000, 100);
    gr_fault_arm("log.write", 1);
    ck_assert_int_eq(gr_log_append(l, b.ptr, b.len, 0, &info), GR_ERR_IO);
    gr_logtest_seg_path(path, &t, "t", 0, 0, ".log");
    ck_assert_int_eq(gr_logtest_file_size(path), gr_log_size_bytes(l));
    ck_assert_int_eq(gr_log_end_offset(l), 3); /* no offsets used */
    /* a roll that cannot create its segment (3 batches of 388 > 1000) */
    append(l, &all, 3, 1000, 100);
    gr_fault_arm("log.segment", 1);
    ck_assert_int_eq(gr_log_append(l, b.ptr, b.len, 0, &info), GR_ERR_IO);
    ck_assert_int_eq(gr_log_segment_count(l), 1);
    append(l, &all, 3, 1000, 100); /* now it rolls */
    ck_assert_int_eq(gr_log_segment_count(l), 2);
    ck_assert_int_eq(gr_log_end_offset(l), 9);
    read_all(l, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    /* a failed fsync: the callback hears it, the recovery point stays */
    gr_logtest_settle(&t); /* the flushes of the roll */
    {
        int64_t rp = gr_log_recovery_point(l);
        append(l, &all, 3, 1000, 100);
        gr_fault_arm("log.fsync", 1);
        ck_assert_int_eq(gr_log_flush(l, on_flush, &a), 0);
        ck_assert(gr_logtest_wait(&t, &a.calls));
        ck_assert_int_eq(a.err, GR_ERR_IO);
        ck_assert_int_eq(gr_log_recovery_point(l), rp);
    }
    /* ... and the log is offline: no appends, no reads until reopened */
    {
        gr_log_slice_t sl;
        ck_assert(gr_log_offline(l));
        ck_assert_int_eq(gr_log_append(l, b.ptr, b.len, 0, &info), GR_ERR_IO);
        ck_assert_int_eq(gr_log_read(l, 0, 1000, INT64_MAX, true, &sl),
                         GR_ERR_IO);
        ck_assert_int_eq(gr_log_end_offset(l), 12);
    }
    gr_logtest_reopen(&t, 10);
    l = open_log(&t, "t", &cfg);
    ck_assert(!gr_log_offline(l));
    ck_assert_int_eq(gr_log_end_offset(l), 12);
    read_all(l, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    gr_fault_clear();
    gr_buf_fini(&all);
    gr_buf_fini(&b);
    gr_buf_fini(&back);
    gr_logtest_fini(&t);
}
END_TEST

/* Torn writes and a full disk, armed as GREGOR_FAULTS arms them: only the
 * matching partition fails, and its file is cut back each time. */
START_TEST(test_fault_spec_torn_and_full)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t all = GR_BUF_INIT, b = GR_BUF_INIT, back = GR_BUF_INIT;
    gr_log_append_info_t info;
    char path[4096];
    gr_log_t *bad, *good;

    gr_logtest_init(&t, 10);
    bad = open_log(&t, "bad", &cfg);
    good = open_log(&t, "good", &cfg);
    /* a write asks the points in turn until one fails: log.nospace counts
     * the first append and the fourth */
    ck_assert_int_eq(gr_fault_arm_spec("log.write.short@/bad-0:2:2,"
                                       "log.nospace@/bad-0:2"),
                     0);
    gr_test_batch(&b, 3, 1000, 100);
    append(bad, &all, 3, 1000, 100); /* hit 1 of both passes */
    ck_assert_int_eq(gr_log_append(good, b.ptr, b.len, 0, &info), 0);
    /* hit 2 of log.write.short fails; log.nospace is not reached */
    ck_assert_int_eq(gr_log_append(bad, b.ptr, b.len, 0, &info), GR_ERR_IO);
    ck_assert_int_eq(gr_log_append(good, b.ptr, b.len, 0, &info), 0);
    /* hit 3 fails too (count 2), then log.nospace's second hit */
    ck_assert_int_eq(gr_log_append(bad, b.ptr, b.len, 0, &info), GR_ERR_IO);
    ck_assert_int_eq(gr_log_append(bad, b.ptr, b.len, 0, &info),
                     GR_ERR_NOSPACE);
    ck_assert(!gr_fault_armed);
    gr_logtest_seg_path(path, &t, "bad", 0, 0, ".log");
    ck_assert_int_eq(gr_logtest_file_size(path), gr_log_size_bytes(bad));
    ck_assert(!gr_log_offline(bad));
    append(bad, &all, 3, 1000, 100);
    ck_assert_int_eq(gr_log_end_offset(bad), 6);
    ck_assert_int_eq(gr_log_end_offset(good), 6);
    read_all(bad, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    /* malformed specs arm nothing */
    ck_assert_int_eq(gr_fault_arm_spec("log.write"), -1);
    ck_assert_int_eq(gr_fault_arm_spec("log.write:0"), -1);
    ck_assert_int_eq(gr_fault_arm_spec("log.write:1:x"), -1);
    ck_assert_int_eq(gr_fault_arm_spec("log.write:1,:2"), -1);
    ck_assert(!gr_fault_armed);
    ck_assert_int_eq(gr_fault_arm_spec("log.fsync:3:0,log.write@x:1"), 0);
    ck_assert(gr_fault_armed);
    ck_assert(!gr_fault_hit("log.write", "/y-0"));
    ck_assert(gr_fault_hit("log.write", "/x-0"));
    ck_assert(!gr_fault_hit("log.write", "/x-0"));
    ck_assert(!gr_fault_hit("log.fsync", NULL));
    ck_assert(!gr_fault_hit("log.fsync", NULL));
    for (int i = 0; i < 5; i++)
        ck_assert(gr_fault_hit("log.fsync", NULL)); /* count 0: forever */
    gr_fault_clear();
    ck_assert(!gr_fault_armed);
    gr_buf_fini(&all);
    gr_buf_fini(&b);
    gr_buf_fini(&back);
    gr_logtest_fini(&t);
}
END_TEST

/* A partition directory left by another incarnation of the topic (a
 * crash between writing it and the topic metadata) is moved aside, not
 * refused for ever; the new log starts empty, at offset 0. */
START_TEST(test_stray_directory_moved_aside)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_uuid_t other;
    gr_err_t err;
    char path[4200];
    gr_log_t *l;

    gr_logtest_init(&t, 10);
    l = open_log(&t, "t", &cfg); /* topic id 0x11... */
    append(l, NULL, 3, 1000, 100);
    gr_logtest_reopen(&t, 10);
    memset(&other, 0x22, sizeof other);
    l = gr_log_open(t.m, "t", 0, &other, &cfg, &err);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(err, 0);
    ck_assert_int_eq(gr_log_end_offset(l), 0);
    ck_assert_int_eq(gr_log_start_offset(l), 0);
    snprintf(path, sizeof path, "%s/t-0.EREREREREREREREREREREQ-stray", t.dir);
    ck_assert_int_eq(access(path, F_OK), 0);
    append(l, NULL, 2, 1000, 100);
    ck_assert_int_eq(gr_log_end_offset(l), 2);
    gr_logtest_fini(&t);
}
END_TEST

/* A 249-character topic (Kafka's longest) fills its directory's name
 * (<topic>-<p>, 251 bytes): moved aside, its name is cut to fit 255 bytes
 * as Kafka's LocalLog cuts it; the rename failed on the name's length,
 * and the log did not open. Deleted, its directory goes (renamed aside
 * the same way). */
START_TEST(test_stray_long_topic)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    char topic[250], path[4200];
    const char *tail = "-0.EREREREREREREREREREREQ-stray";
    gr_uuid_t other;
    gr_err_t err;
    gr_log_t *l;

    memset(topic, 'L', 249);
    topic[249] = '\0';
    gr_logtest_init(&t, 10);
    l = open_log(&t, topic, &cfg);
    append(l, NULL, 3, 1000, 100);
    gr_logtest_reopen(&t, 10);
    memset(&other, 0x22, sizeof other);
    l = gr_log_open(t.m, topic, 0, &other, &cfg, &err);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(err, 0);
    ck_assert_int_eq(gr_log_end_offset(l), 0);
    snprintf(path, sizeof path, "%s/%.*s%s", t.dir, (int)(255 - strlen(tail)),
             topic, tail);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_eq(count_dirs(&t, "-stray"), 1);
    append(l, NULL, 2, 1000, 100);
    ck_assert_int_eq(gr_log_delete(l), 0);
    /* two jobs: the rename, then (started from its callback) the removal
     * of the renamed directory; one settle may see only the first */
    snprintf(path, sizeof path, "%s/%s-0", t.dir, topic);
    for (int i = 0; i < 100 && (i == 0 || count_dirs(&t, "-delete") > 0 ||
                                access(path, F_OK) == 0);
         i++)
        gr_logtest_settle(&t);
    ck_assert_int_eq(count_dirs(&t, "-delete"), 0);
    ck_assert_int_ne(access(path, F_OK), 0);
    gr_logtest_fini(&t);
}
END_TEST

static void
on_prepared(gr_loop_t *loop, void *arg)
{
    (void)loop;
    *(int *)arg = 1;
}

/* Directories made on a worker: what gr_log_open would make (checked by
 * opening them, as a restart would), an existing directory left alone, and
 * the clean-up of a partition deleted meanwhile only while it is still the
 * prepared topic's. */
START_TEST(test_prepare_dirs)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_log_prep_t items[3];
    gr_uuid_t id, other;
    char path[4200];
    gr_err_t err;
    gr_log_t *l;
    int done = 0;

    gr_logtest_init(&t, 10);
    memset(&id, 0x11, sizeof id);
    memset(&other, 0x22, sizeof other);
    /* p-2 exists, holding another topic's data */
    l = gr_log_open(t.m, "p", 2, &other, &cfg, &err);
    ck_assert_ptr_nonnull(l);
    append(l, NULL, 3, 1000, 100);
    gr_logtest_reopen(&t, 10);
    memset(items, 0, sizeof items);
    for (int i = 0; i < 3; i++) {
        items[i].topic = (char *)"p";
        items[i].partition = i;
        items[i].topic_id = id;
    }
    ck_assert_int_eq(gr_logs_prepare(t.m, items, 3, on_prepared, &done), 0);
    ck_assert(gr_logtest_wait(&t, &done));
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(items[i].err, 0);
    /* as gr_log_open makes them */
    gr_logtest_seg_path(path, &t, "p", 0, 0, ".log");
    ck_assert_int_eq(gr_logtest_file_size(path), 0);
    gr_logtest_seg_path(path, &t, "p", 0, 0, ".index");
    ck_assert_int_eq(gr_logtest_file_size(path), 0);
    gr_logtest_seg_path(path, &t, "p", 0, 0, ".timeindex");
    ck_assert_int_eq(gr_logtest_file_size(path), 0);
    snprintf(path, sizeof path, "%s/p-0/partition.metadata", t.dir);
    {
        gr_buf_t b = { 0 };
        ck_assert(gr_logtest_read_file(path, &b));
        /* Kafka's form; 16 bytes of 0x11 in unpadded URL-safe base64 */
        ck_assert_int_eq((int)b.len, 43);
        ck_assert(memcmp(b.ptr,
                         "version: 0\ntopic_id: EREREREREREREREREREREQ",
                         43) == 0);
        gr_buf_fini(&b);
    }
    /* they open as a fresh log, and take appends */
    l = gr_log_open(t.m, "p", 0, &id, &cfg, &err);
    ck_assert_ptr_nonnull(l);
    ck_assert_int_eq(gr_log_end_offset(l), 0);
    ck_assert_int_eq(gr_log_segment_count(l), 1);
    append(l, NULL, 2, 1000, 100);
    ck_assert_int_eq(gr_log_end_offset(l), 2);
    /* the existing p-2 was not touched: still the other topic's, 3 records */
    snprintf(path, sizeof path, "%s/p-2/partition.metadata", t.dir);
    {
        gr_buf_t b = { 0 };
        ck_assert(gr_logtest_read_file(path, &b));
        ck_assert(memmem(b.ptr, b.len, "IiIiIiIiIiIiIiIiIiIiIg", 22) != NULL);
        gr_buf_fini(&b);
    }
    gr_logtest_seg_path(path, &t, "p", 2, 0, ".log");
    ck_assert_int_gt(gr_logtest_file_size(path), 0);
    /* deleted meanwhile: p-1 goes; p-2 (another id) stays */
    gr_logs_prepared_unused(t.m, &items[1]);
    gr_logs_prepared_unused(t.m, &items[2]);
    snprintf(path, sizeof path, "%s/p-1", t.dir);
    ck_assert_int_eq(access(path, F_OK), -1);
    snprintf(path, sizeof path, "%s/p-2", t.dir);
    ck_assert_int_eq(access(path, F_OK), 0);
    gr_logtest_fini(&t);
}
END_TEST

/* A leader's log (epochs 3, then 5) copied to a follower batch by batch:
 * the same bytes, offsets and epoch cache; a batch behind the log end is
 * refused; truncation cuts at a batch, across segments, and the epochs
 * follow; reopened, the follower's log is what it was. */
START_TEST(test_follower_append_truncate)
{
    gr_logtest_t t;
    gr_log_config_t cfg = gr_logtest_config();
    gr_buf_t all = GR_BUF_INIT, back = GR_BUF_INIT, b = GR_BUF_INIT;
    gr_log_append_info_t info;
    gr_log_t *lead, *fol;
    int64_t cut = -1;
    int32_t e;
    int64_t end;
    gr_uuid_t id;
    gr_err_t err;
    size_t pos = 0;

    cfg.segment_bytes = 600; /* a few batches a segment */
    gr_logtest_init(&t, 10);
    lead = open_log(&t, "lead", &cfg);
    memset(&id, 0x22, sizeof id);
    fol = gr_log_open(t.m, "fol", 0, &id, &cfg, &err);
    ck_assert_ptr_nonnull(fol);
    for (int i = 0; i < 30; i++) {
        gr_buf_reset(&b);
        gr_test_batch(&b, 1 + i % 3, 1000 + i, 40);
        ck_assert_int_eq(gr_log_append(lead, b.ptr, b.len, i < 20 ? 3 : 5,
                                       &info),
                         0);
        gr_buf_append(&all, b.ptr, b.len); /* as the leader wrote it */
        if (i == 12)
            cut = info.first_offset; /* a batch start, epoch 3 */
    }
    ck_assert_int_gt(gr_log_segment_count(lead), 3);
    /* the follower takes the leader's batches, two at a time */
    while (pos < all.len) {
        size_t n = 0;
        for (int k = 0; k < 2 && pos + n < all.len; k++) {
            gr_batch_hdr_t h;
            gr_batch_hdr_parse(all.ptr + pos + n, &h);
            n += gr_batch_size(&h);
        }
        ck_assert_int_eq(gr_log_append_follower(fol, all.ptr + pos, n, &info),
                         0);
        pos += n;
    }
    ck_assert_int_eq(gr_log_end_offset(fol), gr_log_end_offset(lead));
    read_all(fol, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    ck_assert_int_eq(gr_log_leader_epoch(fol), 5);
    {
        int32_t fe, le;
        int64_t fend, lend;
        gr_log_epoch_end_offset(fol, 3, &fe, &fend);
        gr_log_epoch_end_offset(lead, 3, &le, &lend);
        ck_assert_int_eq(fe, le);
        ck_assert_int_eq(fend, lend);
    }
    /* behind the log end: refused, nothing appended */
    ck_assert_int_eq(gr_log_append_follower(fol, all.ptr, all.len, &info),
                     GR_ERR_INVALID);
    ck_assert_int_eq(gr_log_end_offset(fol), gr_log_end_offset(lead));
    /* truncation inside epoch 3: epoch 5 goes, the segments after go */
    ck_assert_int_eq(gr_log_truncate_to(fol, cut + 1), 0); /* mid-batch? */
    ck_assert_int_le(gr_log_end_offset(fol), cut + 1);
    ck_assert_int_eq(gr_log_truncate_to(fol, cut), 0);
    ck_assert_int_eq(gr_log_end_offset(fol), cut);
    ck_assert_int_eq(gr_log_leader_epoch(fol), 3);
    gr_log_epoch_end_offset(fol, 3, &e, &end); /* the latest: the end */
    ck_assert_int_eq(e, 3);
    ck_assert_int_eq(end, cut);
    gr_log_epoch_end_offset(fol, 5, &e, &end); /* above it: unknown */
    ck_assert_int_eq(e, -1);
    read_all(fol, 0, &back);
    ck_assert_int_gt(back.len, 0);
    ck_assert_mem_eq(back.ptr, all.ptr, back.len);
    /* and the leader's batches from there again */
    ck_assert_int_eq(gr_log_append_follower(fol, all.ptr + back.len,
                                            all.len - back.len, &info),
                     0);
    read_all(fol, 0, &back);
    ck_assert_uint_eq(back.len, all.len);
    ck_assert_mem_eq(back.ptr, all.ptr, all.len);
    /* truncated again, closed and reopened: the same log */
    ck_assert_int_eq(gr_log_truncate_to(fol, cut), 0);
    gr_log_close(fol);
    fol = gr_log_open(t.m, "fol", 0, &id, &cfg, &err);
    ck_assert_ptr_nonnull(fol);
    ck_assert_int_eq(gr_log_end_offset(fol), cut);
    ck_assert_int_eq(gr_log_leader_epoch(fol), 3);
    read_all(fol, 0, &back);
    ck_assert_mem_eq(back.ptr, all.ptr, back.len);
    /* an epoch it started as leader at its log end, with nothing
     * appended: truncating to the log end drops that entry (Kafka's
     * truncateTo: truncateFromEnd(logEndOffset)), the log unchanged */
    ck_assert_int_eq(gr_log_assign_epoch(fol, 7), 0);
    ck_assert_int_eq(gr_log_leader_epoch(fol), 7);
    ck_assert_int_eq(gr_log_truncate_to(fol, cut + 10), 0);
    ck_assert_int_eq(gr_log_leader_epoch(fol), 3);
    ck_assert_int_eq(gr_log_end_offset(fol), cut);
    /* below the log start: refused */
    ck_assert_int_eq(gr_log_truncate_to(fol, -1), GR_ERR_INVALID);
    /* restarted empty far ahead (truncateFullyAndStartAt), then the
     * leader's batches from there; reopened, it starts there */
    ck_assert_int_eq(gr_log_truncate_fully(fol, 1000), 0);
    ck_assert_int_eq(gr_log_start_offset(fol), 1000);
    ck_assert_int_eq(gr_log_end_offset(fol), 1000);
    ck_assert_int_eq(gr_log_segment_count(fol), 1);
    ck_assert_int_eq(gr_log_leader_epoch(fol), -1);
    gr_buf_reset(&b);
    gr_test_batch(&b, 3, 5000, 40);
    gr_batch_set_base_offset(b.ptr, 1000);
    gr_batch_set_leader_epoch(b.ptr, 7);
    ck_assert_int_eq(gr_log_append_follower(fol, b.ptr, b.len, &info), 0);
    ck_assert_int_eq(gr_log_end_offset(fol), 1003);
    ck_assert_int_eq(gr_log_leader_epoch(fol), 7);
    gr_log_close(fol);
    fol = gr_log_open(t.m, "fol", 0, &id, &cfg, &err);
    ck_assert_ptr_nonnull(fol);
    ck_assert_int_eq(gr_log_start_offset(fol), 1000);
    ck_assert_int_eq(gr_log_end_offset(fol), 1003);
    ck_assert_int_eq(gr_log_leader_epoch(fol), 7);
    read_all(fol, 1000, &back);
    ck_assert_uint_eq(back.len, b.len);
    ck_assert_mem_eq(back.ptr, b.ptr, b.len);
    gr_buf_fini(&all);
    gr_buf_fini(&back);
    gr_buf_fini(&b);
    gr_logtest_fini(&t);
}
END_TEST

Suite *
suite_log_log(void)
{
    Suite *s = suite_create("log/log");
    TCase *tc = tcase_create("log");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_append_read_back);
    tcase_add_test(tc, test_read_inside_batch);
    tcase_add_test(tc, test_max_bytes);
    tcase_add_test(tc, test_max_bytes_whole_batches);
    tcase_add_test(tc, test_max_offset_and_range);
    tcase_add_test(tc, test_roll_by_size_many_segments);
    tcase_add_test(tc, test_roll_by_time);
    tcase_add_test(tc, test_roll_index_full);
    tcase_add_test(tc, test_index_files_kafka_format);
    tcase_add_test(tc, test_timestamps);
    tcase_add_test(tc, test_delete_records);
    tcase_add_test(tc, test_follower_append_truncate);
    tcase_add_test(tc, test_flush);
    tcase_add_test(tc, test_delete_while_flushing);
    tcase_add_test(tc, test_delete_many_then_reopen);
    tcase_add_test(tc, test_trash_held);
    tcase_add_test(tc, test_trash_held_other_names);
    tcase_add_test(tc, test_snapshot_only_when_new);
    tcase_add_test(tc, test_failed_write_fsize);
    tcase_add_test(tc, test_failed_write_fault);
    tcase_add_test(tc, test_fault_spec_torn_and_full);
    tcase_add_test(tc, test_stray_directory_moved_aside);
    tcase_add_test(tc, test_stray_long_topic);
    tcase_add_test(tc, test_prepare_dirs);
    suite_add_tcase(s, tc);
    return s;
}
