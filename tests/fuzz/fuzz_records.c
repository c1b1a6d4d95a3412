/*
 * Fuzz target "records": what the broker does with the records of a
 * Produce request and with stored batches. Input: a flags byte, a Produce
 * version byte, then the records bytes.
 *
 *   flags bit 0  cleanup.policy=compact (keys required)
 *         bit 1  message.timestamp.type=LogAppendTime
 *         bit 2  timestamp bounds of one hour around a fixed clock
 *         bit 3  max.message.bytes of 1000 (else 1 MiB)
 *         bit 4  down-conversion to magic 1 within 100 bytes
 *         bit 5  records may inflate (or convert) to 4 KiB (else 1 MiB)
 *         bit 6  legacy conversion to lz4 (a topic's compression.type)
 *
 * Steps and the invariants checked:
 *   - gr_batch_check() on the bytes (recovery's check);
 *   - magic 0/1: gr_legacy_to_v2(); what it builds must pass
 *     gr_records_validate() as a v3+ Produce with the same record count,
 *     in the codec asked for; the records converted never take more than
 *     the bound, and passing it is MESSAGE_TOO_LARGE;
 *   - gr_records_validate() on a copy (records inflating past the bound:
 *     MESSAGE_TOO_LARGE); for a valid batch its records are
 *     rebuilt with gr_batch_builder_*() in the same codec (as recompression
 *     does) and must come back identical (timestamps, keys, values,
 *     headers) and valid;
 *   - gr_records_down_convert() to magic 0 and 1 of the raw bytes (Fetch
 *     v0-v3 reads stored data, which a damaged disk may have changed); a
 *     non-empty result must be a valid legacy message set.
 */
#include "fuzz.h"

#include "core/arena.h"
#include "core/buf.h"
#include "proto/records.h"
#include "proto/wire.h"

#include <limits.h>
#include <string.h>

#define NOW_MS      1700000000000LL
#define MAX_INFLATE (1u << 20)

typedef struct rec_copy {
    int64_t timestamp;
    gr_bytes_t key, value;
    int32_t headers_cnt;
    const uint8_t *headers;
    size_t headers_len;
} rec_copy_t;

typedef struct rec_list {
    gr_arena_t *a;
    rec_copy_t *r;
    int n, cap;
} rec_list_t;

static int
collect(void *arg, const gr_batch_hdr_t *h, const gr_record_t *r)
{
    rec_list_t *l = arg;
    rec_copy_t *c;
    (void)h;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        rec_copy_t *p = gr_arena_alloc(l->a, (size_t)cap * sizeof(*p));
        GR_FUZZ_CHECK(p != NULL);
        if (l->n)
            memcpy(p, l->r, (size_t)l->n * sizeof(*p));
        l->r = p;
        l->cap = cap;
    }
    c = &l->r[l->n++];
    c->timestamp = r->timestamp;
    c->key = r->key;
    c->value = r->value;
    if (r->key.len > 0)
        c->key.ptr = gr_arena_memdup(l->a, r->key.ptr, (size_t)r->key.len);
    if (r->value.len > 0)
        c->value.ptr =
            gr_arena_memdup(l->a, r->value.ptr, (size_t)r->value.len);
    c->headers_cnt = r->headers_cnt;
    c->headers_len = r->headers_len;
    c->headers = r->headers_len
                     ? gr_arena_memdup(l->a, r->headers, r->headers_len)
                     : NULL;
    return 0;
}

static void
bytes_eq(const gr_bytes_t *x, const gr_bytes_t *y)
{
    GR_FUZZ_CHECK(x->len == y->len);
    if (x->len > 0)
        GR_FUZZ_CHECK(memcmp(x->ptr, y->ptr, (size_t)x->len) == 0);
}

static void
opts_init(gr_validate_opts_t *o, gr_buf_t *scratch, int16_t version)
{
    memset(o, 0, sizeof *o);
    o->produce_version = version;
    o->max_message_bytes = INT32_MAX;
    o->now_ms = NOW_MS;
    o->ts_before_max_ms = INT64_MAX;
    o->ts_after_max_ms = INT64_MAX;
    o->max_decompressed = MAX_INFLATE;
    o->scratch = scratch;
}

/* One valid batch b[0..size): rebuilt from its records, it must hold the
 * same records and validate. */
static void
rebuild_batch(const uint8_t *b, size_t size, const gr_validate_opts_t *vo,
              gr_arena_t *a)
{
    gr_batch_hdr_t h;
    gr_buf_t scratch = GR_BUF_INIT, out = GR_BUF_INIT;
    rec_list_t l1 = { a, NULL, 0, 0 }, l2 = { a, NULL, 0, 0 };
    gr_batch_builder_t bb;
    gr_validate_opts_t o;
    gr_validate_result_t res;
    gr_kerr_t err;

    gr_batch_hdr_parse(b, &h);
    err = gr_batch_foreach_record(b, size, &scratch, MAX_INFLATE, collect, &l1);
    GR_FUZZ_CHECK(err == GR_KERR_NONE);
    GR_FUZZ_CHECK(l1.n == h.count);
    gr_batch_builder_init(&bb, gr_batch_codec(&h),
                          (int16_t)(h.attributes & ~GR_ATTR_CODEC_MASK),
                          h.producer_id, h.producer_epoch, h.base_sequence);
    for (int i = 0; i < l1.n; i++)
        gr_batch_builder_add(&bb, l1.r[i].timestamp, &l1.r[i].key,
                             &l1.r[i].value, l1.r[i].headers_cnt,
                             l1.r[i].headers, l1.r[i].headers_len);
    GR_FUZZ_CHECK(gr_batch_builder_finish(&bb, 0, &out) == 0);
    gr_batch_builder_fini(&bb);

    err = gr_batch_foreach_record(out.ptr, out.len, &scratch, SIZE_MAX, collect,
                                  &l2);
    GR_FUZZ_CHECK(err == GR_KERR_NONE);
    GR_FUZZ_CHECK(l2.n == l1.n);
    for (int i = 0; i < l1.n; i++) {
        GR_FUZZ_CHECK(l1.r[i].timestamp == l2.r[i].timestamp);
        bytes_eq(&l1.r[i].key, &l2.r[i].key);
        bytes_eq(&l1.r[i].value, &l2.r[i].value);
        GR_FUZZ_CHECK(l1.r[i].headers_cnt == l2.r[i].headers_cnt);
        GR_FUZZ_CHECK(l1.r[i].headers_len == l2.r[i].headers_len);
        if (l1.r[i].headers_len)
            GR_FUZZ_CHECK(memcmp(l1.r[i].headers, l2.r[i].headers,
                                 l1.r[i].headers_len) == 0);
    }
    /* valid again, under the same settings (a compressed rebuild may be
     * larger than the original: lift the size limit) */
    o = *vo;
    o.max_message_bytes = INT32_MAX;
    o.produce_version = 11;
    err = gr_records_validate(out.ptr, out.len, &o, a, &res);
    GR_FUZZ_CHECK(err == GR_KERR_NONE);
    GR_FUZZ_CHECK(res.records == h.count);
    gr_buf_fini(&out);
    gr_buf_fini(&scratch);
}

static void
legacy(const uint8_t *data, size_t n, const gr_validate_opts_t *vo, int codec,
       gr_arena_t *a)
{
    gr_buf_t out = GR_BUF_INIT;
    gr_validate_result_t res, res2;
    gr_validate_opts_t o;
    gr_batch_hdr_t h;
    gr_kerr_t err;

    err = gr_legacy_to_v2(data, n, vo, codec, &out, &res);
    GR_FUZZ_CHECK(res.inflated <= vo->max_decompressed);
    GR_FUZZ_CHECK(!res.over_limit || err == GR_KERR_MESSAGE_TOO_LARGE);
    if (err == GR_KERR_NONE) {
        GR_FUZZ_CHECK(out.len >= GR_BATCH_HEADER_SIZE);
        gr_batch_hdr_parse(out.ptr, &h);
        GR_FUZZ_CHECK(codec < 0 || gr_batch_codec(&h) == codec);
        o = *vo;
        o.produce_version = 3;
        o.max_message_bytes = INT32_MAX;
        /* legacy conversion does not check timestamp bounds (yet) */
        o.ts_before_max_ms = INT64_MAX;
        o.ts_after_max_ms = INT64_MAX;
        o.max_decompressed = SIZE_MAX;
        err = gr_records_validate(out.ptr, out.len, &o, a, &res2);
        GR_FUZZ_CHECK(err == GR_KERR_NONE);
        GR_FUZZ_CHECK(res2.records == res.records);
        /* what it inflates to is what was converted */
        GR_FUZZ_CHECK(gr_batch_codec(&h) == GR_CODEC_NONE ||
                      res2.inflated == res.inflated);
    }
    gr_buf_fini(&out);
}

static void
down_convert(const uint8_t *data, size_t n, int magic, size_t max_bytes,
             size_t max_inflate, gr_arena_t *a)
{
    gr_buf_t out = GR_BUF_INIT, v2 = GR_BUF_INIT;
    gr_validate_opts_t o;
    gr_validate_result_t res;
    (void)a;

    if (gr_records_down_convert(data, n, magic, max_bytes, max_inflate, &out) ==
            GR_KERR_NONE &&
        out.len > 0) {
        opts_init(&o, NULL, 2);
        o.max_decompressed = SIZE_MAX;
        GR_FUZZ_CHECK(gr_legacy_to_v2(out.ptr, out.len, &o, -1, &v2, &res) ==
                      GR_KERR_NONE);
    }
    gr_buf_fini(&v2);
    gr_buf_fini(&out);
}

int
gr_fuzz_records(const uint8_t *data, size_t n)
{
    gr_arena_t *a;
    gr_validate_opts_t vo;
    gr_validate_result_t res;
    gr_buf_t scratch = GR_BUF_INIT;
    uint8_t flags, *copy;
    size_t size;
    const char *why;
    gr_kerr_t err;
    int magic;

    if (n < 2)
        return 0;
    flags = data[0];
    a = gr_arena_new(4096);
    GR_FUZZ_CHECK(a != NULL);
    opts_init(&vo, &scratch, (int16_t)(data[1] % 12));
    vo.compacted = (flags & 1) != 0;
    vo.log_append_time = (flags & 2) != 0;
    if (flags & 4) {
        vo.ts_before_max_ms = 3600 * 1000;
        vo.ts_after_max_ms = 3600 * 1000;
    }
    if (flags & 8)
        vo.max_message_bytes = 1000;
    if (flags & 32)
        vo.max_decompressed = 4096;
    data += 2;
    n -= 2;

    (void)gr_batch_check(data, n, &size, &why);
    magic = gr_records_magic(data, n);
    if (magic == 0 || magic == 1)
        legacy(data, n, &vo, flags & 64 ? GR_CODEC_LZ4 : -1, a);

    copy = gr_arena_alloc(a, n + 1);
    GR_FUZZ_CHECK(copy != NULL);
    if (n > 0)
        memcpy(copy, data, n);
    err = gr_records_validate(copy, n, &vo, a, &res);
    GR_FUZZ_CHECK(res.inflated <= vo.max_decompressed);
    GR_FUZZ_CHECK(!res.over_limit || err == GR_KERR_MESSAGE_TOO_LARGE);
    if (err == GR_KERR_NONE) {
        /* one batch; bytes after it that make no other are left out */
        GR_FUZZ_CHECK(res.batches == 1 && res.valid_bytes <= n);
        GR_FUZZ_CHECK(gr_batch_check(copy, res.valid_bytes, &size, &why) == 0);
        rebuild_batch(copy, res.valid_bytes, &vo, a);
    }

    down_convert(data, n, 0, 1u << 20, vo.max_decompressed, a);
    down_convert(data, n, 1, flags & 16 ? 100 : 1u << 20, vo.max_decompressed,
                 a);

    gr_buf_fini(&scratch);
    gr_arena_destroy(a);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_records)
