/* The log cleaner: latest value per key with offsets kept, tombstones and
 * their delete horizon, the active segment and min.compaction.lag.ms left
 * alone, the dirty ratio, compressed batches, control batches, the swap
 * and its recovery after a crash, readers of replaced segments, the
 * cleaner checkpoint. */
#include "../unit.h"
#include "logtest.h"

#include "core/time.h"
#include "log/log_int.h"
#include "proto/records.h"
#include "proto/wire.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define T0 1700000000000LL /* record timestamps */

typedef struct kv {
    const char *key;   /* NULL: keyless */
    const char *value; /* NULL: tombstone */
} kv_t;

static gr_log_config_t
compact_config(void)
{
    gr_log_config_t c = gr_logtest_config();
    c.cleanup_compact = true;
    c.cleanup_delete = false;
    c.segment_bytes = 300; /* a few batches a segment */
    c.min_cleanable_ratio = 0.0;
    c.index_interval_bytes = 100;
    return c;
}

static gr_log_t *
open_log(gr_logtest_t *t, const char *topic, const gr_log_config_t *cfg)
{
    gr_uuid_t id;
    gr_err_t err;
    gr_log_t *l;
    memset(&id, 0x22, sizeof id);
    l = gr_log_open(t->m, topic, 0, &id, cfg, &err);
    ck_assert_int_eq(err, 0);
    ck_assert_ptr_nonnull(l);
    return l;
}

/* Appends one batch of n records; returns its base offset. */
static int64_t
append_kv(gr_log_t *l, int codec, const kv_t *r, int n, int64_t ts)
{
    gr_batch_builder_t bb;
    gr_buf_t out = GR_BUF_INIT;
    gr_log_append_info_t info;
    gr_batch_builder_init(&bb, codec, 0, -1, -1, -1);
    for (int i = 0; i < n; i++) {
        gr_bytes_t k = { (const uint8_t *)r[i].key,
                         r[i].key ? (int32_t)strlen(r[i].key) : -1 };
        gr_bytes_t v = { (const uint8_t *)r[i].value,
                         r[i].value ? (int32_t)strlen(r[i].value) : -1 };
        gr_batch_builder_add(&bb, ts + i, &k, &v, 0, NULL, 0);
    }
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &out), 0);
    ck_assert_int_eq(gr_log_append(l, out.ptr, out.len, 1, &info), 0);
    gr_batch_builder_fini(&bb);
    gr_buf_fini(&out);
    return info.first_offset;
}

static int64_t
put(gr_log_t *l, const char *key, const char *value)
{
    kv_t r = { key, value };
    return append_kv(l, GR_CODEC_NONE, &r, 1, T0);
}

/* What a consumer reading from the log start sees. */
#define SEEN_MAX 4096

typedef struct seen {
    int n;
    int64_t offset[SEEN_MAX];
    char key[SEEN_MAX][16];
    char value[SEEN_MAX][8]; /* "<null>" for a tombstone */
    int batches;
    int horizon_batches; /* with the delete horizon bit */
} seen_t;

static int
collect(void *arg, const gr_batch_hdr_t *h, const gr_record_t *r)
{
    seen_t *s = arg;
    (void)h;
    ck_assert_int_lt(s->n, SEEN_MAX);
    s->offset[s->n] = r->offset;
    snprintf(s->key[s->n], sizeof s->key[0], "%.*s",
             r->key.len > 0 ? r->key.len : 0, (const char *)r->key.ptr);
    if (r->value.len < 0)
        snprintf(s->value[s->n], sizeof s->value[0], "<null>");
    else
        snprintf(s->value[s->n], sizeof s->value[0], "%.*s", r->value.len,
                 (const char *)r->value.ptr);
    s->n++;
    return 0;
}

static void
read_all(gr_log_t *l, seen_t *s)
{
    gr_buf_t part = GR_BUF_INIT, scratch = GR_BUF_INIT;
    int64_t offset = gr_log_start_offset(l);
    memset(s, 0, sizeof(*s));
    while (offset < gr_log_end_offset(l)) {
        gr_log_slice_t sl;
        size_t at = 0;
        ck_assert_int_eq(gr_log_read(l, offset, 1 << 20, INT64_MAX, true, &sl),
                         0);
        if (sl.len == 0)
            break;
        ck_assert(gr_logtest_read_slice(&sl, &part));
        while (at + GR_BATCH_HEADER_SIZE <= part.len) {
            gr_batch_hdr_t h;
            size_t size, need;
            const char *why;
            gr_batch_hdr_parse(part.ptr + at, &h);
            size = gr_batch_size(&h);
            ck_assert_int_eq(
                gr_batch_check(part.ptr + at, part.len - at, &need, &why), 0);
            s->batches++;
            if (h.attributes & GR_ATTR_DELETE_HORIZON)
                s->horizon_batches++;
            if (!(h.attributes & GR_ATTR_CONTROL))
                ck_assert_int_eq(gr_batch_foreach_record(part.ptr + at, size,
                                                         &scratch, 1 << 20,
                                                         collect, s),
                                 GR_KERR_NONE);
            offset = gr_batch_last_offset(&h) + 1;
            at += size;
        }
    }
    gr_buf_fini(&part);
    gr_buf_fini(&scratch);
}

/* Runs the cleaner until it finds nothing to do at now_ms; returns the
 * cleanings started here (a finished one may start the next itself). */
static int
clean(gr_logtest_t *t, int64_t now_ms)
{
    int rounds = 0;
    for (;;) {
        int started = gr_logs_clean(t->m, now_ms);
        rounds += started;
        gr_logtest_settle(t);
        if (started == 0 && t->m->cleanings == 0 &&
            gr_workers_pending(t->workers) == 0)
            break;
        ck_assert_int_lt(rounds, 50);
    }
    return rounds;
}

static const char *
value_at(const seen_t *s, int64_t offset)
{
    for (int i = 0; i < s->n; i++)
        if (s->offset[i] == offset)
            return s->value[i];
    return NULL;
}

START_TEST(test_latest_value_per_key)
{
    gr_logtest_t t;
    gr_log_config_t cfg = compact_config();
    char v[32];
    static seen_t s;
    gr_log_t *l;

    gr_logtest_init(&t, 64);
    gr_logs_set_cleaner(t.m, 1, 1 << 20);
    l = open_log(&t, "cmp", &cfg);
    for (int i = 0; i < 30; i++) {
        char k[8];
        snprintf(k, sizeof k, "k%d", i % 3);
        snprintf(v, sizeof v, "v%d", i);
        ck_assert_int_eq(put(l, k, v), i);
    }
    ck_assert_int_gt(gr_log_segment_count(l), 3);
    ck_assert_int_ge(clean(&t, gr_wall_ms()), 1);
    read_all(l, &s);
    /* below the active segment one record per key remains, the newest;
     * the active segment is as written; offsets never change */
    {
        int64_t active = l->segs[l->nsegs - 1]->base;
        int below = 0;
        for (int i = 0; i < s.n; i++) {
            int n = atoi(s.value[i] + 1);
            ck_assert_int_eq(s.offset[i], n); /* value i was at offset i */
            if (s.offset[i] < active)
                below++;
        }
        ck_assert_int_le(below, 3);
        ck_assert_int_eq(s.n, below + (int)(30 - active));
    }
    ck_assert_str_eq(value_at(&s, 29), "v29");
    ck_assert_str_eq(value_at(&s, 28), "v28");
    ck_assert_str_eq(value_at(&s, 27), "v27");
    ck_assert_int_eq(gr_log_end_offset(l), 30);
    ck_assert_int_eq(gr_logs_cleaner_stats(t.m)->cleanings, 1);
    ck_assert_int_gt(gr_logs_cleaner_stats(t.m)->records_removed, 20);
    /* appends go on after the swap */
    ck_assert_int_eq(put(l, "k0", "v30"), 30);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_tombstones_and_horizon)
{
    gr_logtest_t t;
    gr_log_config_t cfg = compact_config();
    int64_t now = gr_wall_ms();
    static seen_t s;
    gr_log_t *l;

    cfg.delete_retention_ms = 1000;
    gr_logtest_init(&t, 64);
    gr_logs_set_cleaner(t.m, 1, 1 << 20);
    l = open_log(&t, "tomb", &cfg);
    put(l, "a", "1");
    put(l, "b", "2");
    put(l, "a", NULL); /* offset 2: a is deleted */
    for (int i = 0; i < 12; i++)
        put(l, "filler", "x");
    ck_assert_int_ge(clean(&t, now), 1);
    read_all(l, &s);
    /* the tombstone is kept (stamped with its horizon), the old a goes */
    ck_assert_ptr_null(value_at(&s, 0));
    ck_assert_str_eq(value_at(&s, 1), "2");
    ck_assert_str_eq(value_at(&s, 2), "<null>");
    ck_assert_int_eq(s.horizon_batches, 1);
    ck_assert_int_eq(l->delete_horizon_ms, now + 1000);
    /* before the horizon nothing more happens; after it the tombstone goes
     * although nothing new is dirty */
    ck_assert_int_eq(clean(&t, now + 500), 0);
    ck_assert_int_ge(clean(&t, now + 1001), 1);
    read_all(l, &s);
    ck_assert_ptr_null(value_at(&s, 2));
    ck_assert_str_eq(value_at(&s, 1), "2");
    ck_assert_int_eq(l->delete_horizon_ms, -1);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_lag_and_ratio)
{
    gr_logtest_t t;
    gr_log_config_t cfg = compact_config();
    int64_t now = gr_wall_ms();
    gr_log_t *l;

    gr_logtest_init(&t, 64);
    gr_logs_set_cleaner(t.m, 1, 1 << 20);
    cfg.min_compaction_lag_ms = 60000;
    l = open_log(&t, "lag", &cfg);
    for (int i = 0; i < 20; i++) {
        kv_t r = { "k", "v" };
        append_kv(l, GR_CODEC_NONE, &r, 1, now); /* fresh timestamps */
    }
    /* every segment is younger than the lag: nothing is cleanable */
    ck_assert_int_eq(clean(&t, now), 0);
    ck_assert_int_eq(clean(&t, now + 59000), 0);
    ck_assert_int_ge(clean(&t, now + 61000), 1);
    /* a high dirty ratio wants more dirt than a few records */
    cfg.min_compaction_lag_ms = 0;
    cfg.min_cleanable_ratio = 0.9;
    gr_log_set_config(l, &cfg);
    for (int i = 0; i < 3; i++)
        put(l, "k", "w");
    ck_assert_int_eq(clean(&t, now + 62000), 0);
    /* the active segment is never cleaned, even at ratio 0 */
    cfg.min_cleanable_ratio = 0.0;
    gr_log_set_config(l, &cfg);
    clean(&t, now + 63000);
    {
        static seen_t s;
        read_all(l, &s);
        ck_assert_int_ge(s.n, 1);
        ck_assert_str_eq(s.value[s.n - 1], "w");
    }
    /* a log without compact is never cleaned */
    cfg.cleanup_compact = false;
    cfg.cleanup_delete = true;
    gr_log_set_config(l, &cfg);
    put(l, "k", "x");
    ck_assert_int_eq(clean(&t, now + 64000), 0);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_compressed_and_control_batches)
{
    gr_logtest_t t;
    gr_log_config_t cfg = compact_config();
    gr_buf_t ctl = GR_BUF_INIT;
    gr_log_append_info_t info;
    static seen_t s;
    gr_log_t *l;
    int64_t ctl_off;

    cfg.segment_bytes = 2000;
    gr_logtest_init(&t, 64);
    gr_logs_set_cleaner(t.m, 1, 1 << 20);
    l = open_log(&t, "z", &cfg);
    {
        kv_t r[] = { { "a", "1" }, { "b", "1" }, { "a", "2" },
                     { "c", "1" }, { "b", "2" }, { NULL, "keyless" } };
        append_kv(l, GR_CODEC_GZIP, r, 6, T0); /* offsets 0-5 */
    }
    /* a transaction marker: kept as is */
    gr_control_batch(&ctl, 7, 0, GR_CONTROL_COMMIT, 0, T0);
    ck_assert_int_eq(gr_log_append(l, ctl.ptr, ctl.len, 1, &info), 0);
    ctl_off = info.first_offset;
    {
        kv_t r[] = { { "c", "2" }, { "d", "1" } };
        append_kv(l, GR_CODEC_LZ4, r, 2, T0); /* offsets 7-8 */
    }
    /* roll: the next append goes to a new segment */
    cfg.segment_bytes = 14;
    gr_log_set_config(l, &cfg);
    put(l, "e", "1");
    ck_assert_int_ge(clean(&t, gr_wall_ms()), 1);
    read_all(l, &s);
    ck_assert_int_eq(s.n, 5); /* a@2 b@4 c@7 d@8 e@9 */
    ck_assert_str_eq(value_at(&s, 2), "2");
    ck_assert_str_eq(value_at(&s, 4), "2");
    ck_assert_str_eq(value_at(&s, 7), "2");
    ck_assert_str_eq(value_at(&s, 8), "1");
    ck_assert_ptr_null(value_at(&s, 5)); /* keyless dropped */
    /* three batches and the marker: the gzip batch was rebuilt, with its
     * codec, baseOffset 0 and lastOffsetDelta 5 */
    ck_assert_int_eq(s.batches, 4);
    {
        gr_log_slice_t sl;
        gr_buf_t b = GR_BUF_INIT;
        gr_batch_hdr_t h;
        ck_assert_int_eq(gr_log_read(l, 0, 1 << 20, INT64_MAX, true, &sl), 0);
        ck_assert(gr_logtest_read_slice(&sl, &b));
        gr_batch_hdr_parse(b.ptr, &h);
        ck_assert_int_eq(h.base_offset, 0);
        ck_assert_int_eq(h.last_offset_delta, 5);
        ck_assert_int_eq(gr_batch_codec(&h), GR_CODEC_GZIP);
        ck_assert_int_eq(h.count, 2);
        /* the marker follows */
        gr_batch_hdr_parse(b.ptr + gr_batch_size(&h), &h);
        ck_assert(h.attributes & GR_ATTR_CONTROL);
        ck_assert_int_eq(h.base_offset, ctl_off);
        gr_buf_fini(&b);
    }
    gr_buf_fini(&ctl);
    gr_logtest_fini(&t);
}
END_TEST

/* A fetch holding a file range of a replaced segment still reads it. */
START_TEST(test_readers_keep_old_files)
{
    gr_logtest_t t;
    gr_log_config_t cfg = compact_config();
    gr_buf_t before = GR_BUF_INIT, after = GR_BUF_INIT;
    gr_log_slice_t sl;
    gr_file_t *f;
    gr_log_t *l;

    gr_logtest_init(&t, 64);
    gr_logs_set_cleaner(t.m, 1, 1 << 20);
    l = open_log(&t, "rd", &cfg);
    for (int i = 0; i < 20; i++)
        put(l, "same", "value");
    ck_assert_int_eq(gr_log_read(l, 0, 1 << 20, INT64_MAX, true, &sl), 0);
    f = gr_file_ref(sl.file);
    ck_assert(gr_logtest_read_slice(&sl, &before));
    ck_assert_int_ge(clean(&t, gr_wall_ms()), 1);
    sl.file = f;
    ck_assert(gr_logtest_read_slice(&sl, &after));
    ck_assert_int_eq(after.len, before.len);
    ck_assert(memcmp(after.ptr, before.ptr, before.len) == 0);
    gr_file_unref(f);
    /* and offset 0 now reads the next record kept */
    ck_assert_int_eq(gr_log_read(l, 0, 1 << 20, INT64_MAX, true, &sl), 0);
    ck_assert_int_gt(sl.first_offset, 0);
    gr_buf_fini(&before);
    gr_buf_fini(&after);
    gr_logtest_fini(&t);
}
END_TEST

/* The checkpoint survives a restart; a restart finishes an interrupted
 * swap (the .log.swap exists) or cleans up after one (only the range file
 * is left). */
START_TEST(test_checkpoint_and_swap_recovery)
{
    gr_logtest_t t;
    gr_log_config_t cfg = compact_config();
    char a[4096], b[4096];
    int64_t clean_off, bases[3];
    static seen_t s;
    gr_log_t *l;
    FILE *f;

    gr_logtest_init(&t, 64);
    gr_logs_set_cleaner(t.m, 1, 1 << 20);
    l = open_log(&t, "ck", &cfg);
    for (int i = 0; i < 30; i++) {
        char k[8], v[8];
        snprintf(k, sizeof k, "k%d", i % 4);
        snprintf(v, sizeof v, "v%d", i);
        put(l, k, v);
    }
    ck_assert_int_ge(clean(&t, gr_wall_ms()), 1);
    clean_off = gr_log_clean_offset(l);
    ck_assert_int_gt(clean_off, 0);
    gr_logtest_reopen(&t, 64);
    gr_logs_set_cleaner(t.m, 1, 1 << 20);
    l = open_log(&t, "ck", &cfg);
    ck_assert_int_eq(gr_log_clean_offset(l), clean_off);
    /* new dirt after the checkpoint */
    for (int i = 30; i < 40; i++)
        put(l, "k9", "late");
    ck_assert_int_ge(l->nsegs, 4);
    for (int i = 0; i < 3; i++)
        bases[i] = l->segs[i]->base;
    gr_logtest_reopen(&t, 64);

    /* a committed swap: segments 0 and 1 merged into 0.log.swap */
    gr_logtest_seg_path(a, &t, "ck", 0, bases[0], ".log");
    gr_logtest_seg_path(b, &t, "ck", 0, bases[0], ".log.swap");
    {
        gr_buf_t x = GR_BUF_INIT, y = GR_BUF_INIT;
        ck_assert(gr_logtest_read_file(a, &x));
        gr_logtest_seg_path(a, &t, "ck", 0, bases[1], ".log");
        ck_assert(gr_logtest_read_file(a, &y));
        gr_buf_append(&x, y.ptr, y.len);
        f = fopen(b, "w");
        if (x.len > 0)
            fwrite(x.ptr, 1, x.len, f);
        fclose(f);
        gr_buf_fini(&x);
        gr_buf_fini(&y);
    }
    gr_logtest_seg_path(b, &t, "ck", 0, bases[0], ".range.swap");
    f = fopen(b, "w");
    fprintf(f, "%lld\n", (long long)bases[2]);
    fclose(f);
    l = open_log(&t, "ck", &cfg);
    ck_assert_int_eq(l->segs[0]->base, bases[0]);
    ck_assert_int_eq(l->segs[1]->base, bases[2]);
    gr_logtest_seg_path(a, &t, "ck", 0, bases[1], ".log");
    ck_assert_int_eq(gr_logtest_file_size(a), -1);
    gr_logtest_seg_path(b, &t, "ck", 0, bases[0], ".range.swap");
    ck_assert_int_eq(gr_logtest_file_size(b), -1);
    read_all(l, &s);
    ck_assert_int_eq(s.offset[s.n - 1], 39);
    for (int i = 1; i < s.n; i++)
        ck_assert_int_gt(s.offset[i], s.offset[i - 1]);

    /* a swap whose .log was renamed but whose old segments and range file
     * were left: the old segments in the range go */
    bases[1] = l->segs[1]->base;
    bases[2] = l->segs[2]->base;
    gr_logtest_reopen(&t, 64);
    gr_logtest_seg_path(a, &t, "ck", 0, bases[0], ".log");
    gr_logtest_seg_path(b, &t, "ck", 0, bases[1], ".log");
    {
        gr_buf_t x = GR_BUF_INIT, y = GR_BUF_INIT;
        ck_assert(gr_logtest_read_file(a, &x));
        ck_assert(gr_logtest_read_file(b, &y));
        gr_buf_append(&x, y.ptr, y.len);
        f = fopen(a, "w");
        if (x.len > 0)
            fwrite(x.ptr, 1, x.len, f);
        fclose(f);
        gr_buf_fini(&x);
        gr_buf_fini(&y);
    }
    gr_logtest_seg_path(b, &t, "ck", 0, bases[0], ".range.swap");
    f = fopen(b, "w");
    fprintf(f, "%lld\n", (long long)bases[2]);
    fclose(f);
    l = open_log(&t, "ck", &cfg);
    ck_assert_int_eq(l->segs[1]->base, bases[2]);
    read_all(l, &s);
    ck_assert_int_eq(s.offset[s.n - 1], 39);
    for (int i = 1; i < s.n; i++)
        ck_assert_int_gt(s.offset[i], s.offset[i - 1]);

    /* .cleaned leftovers and a .log.swap without a range are dropped */
    gr_logtest_reopen(&t, 64);
    gr_logtest_seg_path(a, &t, "ck", 0, bases[0], ".log.cleaned");
    f = fopen(a, "w");
    fclose(f);
    gr_logtest_seg_path(b, &t, "ck", 0, bases[2], ".log.swap");
    f = fopen(b, "w");
    fclose(f);
    l = open_log(&t, "ck", &cfg);
    ck_assert_int_eq(gr_logtest_file_size(a), -1);
    ck_assert_int_eq(gr_logtest_file_size(b), -1);
    read_all(l, &s);
    ck_assert_int_eq(s.offset[s.n - 1], 39);
    gr_logtest_fini(&t);
}
END_TEST

/* A log deleted while its cleaning runs: the cleaning is thrown away. */
START_TEST(test_delete_during_cleaning)
{
    gr_logtest_t t;
    gr_log_config_t cfg = compact_config();
    gr_log_t *l;

    gr_logtest_init(&t, 64);
    gr_logs_set_cleaner(t.m, 1, 1 << 20);
    l = open_log(&t, "del", &cfg);
    for (int i = 0; i < 30; i++)
        put(l, "k", "v");
    ck_assert_int_eq(gr_logs_clean(t.m, gr_wall_ms()), 1);
    ck_assert(gr_log_cleaning(l));
    gr_log_delete(l);
    gr_logtest_settle(&t);
    ck_assert_int_eq(gr_logs_cleaner_stats(t.m)->cleanings, 0);
    ck_assert_int_eq(gr_logs_cleaner_stats(t.m)->aborted, 1);
    gr_logtest_fini(&t);
}
END_TEST

/* A map smaller than the dirty keys cleans in several passes. */
START_TEST(test_small_map_several_passes)
{
    gr_logtest_t t;
    gr_log_config_t cfg = compact_config();
    static seen_t s;
    gr_log_t *l;

    cfg.segment_bytes = 4000;
    gr_logtest_init(&t, 64);
    gr_logs_set_cleaner(t.m, 1, 1); /* the floor: 1024 slots */
    l = open_log(&t, "map", &cfg);
    for (int round = 0; round < 2; round++)
        for (int b = 0; b < 20; b++) {
            kv_t r[100];
            char keys[100][8];
            for (int i = 0; i < 100; i++) {
                snprintf(keys[i], sizeof keys[i], "%d", b * 100 + i);
                r[i].key = keys[i];
                r[i].value = round ? "new" : "old";
            }
            append_kv(l, GR_CODEC_NONE, r, 100, T0);
        }
    cfg.segment_bytes = 14; /* "last" alone in the active segment */
    gr_log_set_config(l, &cfg);
    put(l, "last", "x");
    clean(&t, gr_wall_ms());
    ck_assert_int_ge(gr_logs_cleaner_stats(t.m)->cleanings, 4);
    read_all(l, &s);
    /* every key once, with its new value */
    ck_assert_int_eq(s.n, 2001);
    for (int i = 0; i < 2000; i++)
        ck_assert_str_eq(s.value[i], "new");
    gr_logtest_fini(&t);
}
END_TEST

Suite *
suite_log_cleaner(void)
{
    Suite *s = suite_create("log/cleaner");
    TCase *tc = tcase_create("cleaner");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_latest_value_per_key);
    tcase_add_test(tc, test_tombstones_and_horizon);
    tcase_add_test(tc, test_lag_and_ratio);
    tcase_add_test(tc, test_compressed_and_control_batches);
    tcase_add_test(tc, test_readers_keep_old_files);
    tcase_add_test(tc, test_checkpoint_and_swap_recovery);
    tcase_add_test(tc, test_delete_during_cleaning);
    tcase_add_test(tc, test_small_map_several_passes);
    suite_add_tcase(s, tc);
    return s;
}
