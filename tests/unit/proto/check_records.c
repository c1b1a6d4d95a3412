/*
 * Record batches against kafka-python's encoder (tests/data/records/):
 * validation as Kafka's LogValidator, record iteration, legacy message set
 * conversion to v2, down-conversion, the batch builder and control
 * batches, and the refusals (CRC, counts, sizes, control batches, codecs,
 * keys on compacted topics).
 */
#include "../unit.h"
#include "core/compress.h"
#include "core/crc32c.h"
#include "proto/records.h"
#include "proto/wire.h"

#include <stdio.h>
#include <stdlib.h>

static uint8_t *
load(const char *name, size_t *n)
{
    char path[1024];
    FILE *f;
    uint8_t *buf;
    long len;
    snprintf(path, sizeof path, "%s/records/%s", GR_TEST_DATA, name);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    buf = malloc((size_t)len);
    ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

static void
opts(gr_validate_opts_t *o, int16_t ver)
{
    memset(o, 0, sizeof *o);
    o->produce_version = ver;
    o->max_message_bytes = 1048588;
    o->now_ms = 1700000000000;
    o->ts_before_max_ms = INT64_MAX;
    o->ts_after_max_ms = INT64_MAX;
    o->max_decompressed = 1 << 20;
}

typedef struct seen {
    int n;
    char keys[8][8];
    char values[8][8];
    int64_t ts[8];
    int64_t offsets[8];
    int headers[8];
} seen_t;

static int
collect(void *arg, const gr_batch_hdr_t *h, const gr_record_t *r)
{
    seen_t *s = arg;
    (void)h;
    if (s->n >= 8)
        return 1;
    snprintf(s->keys[s->n], 8, "%.*s", (int)r->key.len, r->key.ptr);
    snprintf(s->values[s->n], 8, "%.*s", (int)r->value.len, r->value.ptr);
    s->ts[s->n] = r->timestamp;
    s->offsets[s->n] = r->offset;
    s->headers[s->n] = r->headers_cnt;
    s->n++;
    return 0;
}

static void
check_five(const seen_t *s, bool with_ts)
{
    ck_assert_int_eq(s->n, 5);
    for (int i = 0; i < 5; i++) {
        char k[8], v[8];
        snprintf(k, sizeof k, "k%d", i);
        snprintf(v, sizeof v, "v%d", i);
        ck_assert_str_eq(s->keys[i], k);
        ck_assert_str_eq(s->values[i], v);
        if (with_ts)
            ck_assert_int_eq(s->ts[i], 1600000000000LL + i);
    }
}

START_TEST(test_validate_v2)
{
    static const char *names[] = {"v2_none.bin", "v2_gzip.bin"};
    for (int k = 0; k < 2; k++) {
        size_t n;
        uint8_t *b = load(names[k], &n);
        gr_validate_opts_t o;
        gr_validate_result_t r;
        gr_buf_t scratch = GR_BUF_INIT;
        seen_t s = {0};
        opts(&o, 7);
        ck_assert_int_eq(gr_records_validate(b, n, &o, NULL, &r),
                         GR_KERR_NONE);
        ck_assert_int_eq(r.batches, 1);
        ck_assert_int_eq(r.records, 5);
        ck_assert_int_eq(r.max_timestamp, 1600000000004LL);
        ck_assert_int_eq(r.producer_id, -1);
        ck_assert_int_eq(gr_batch_foreach_record(b, n, &scratch, 1 << 20,
                                                 collect, &s),
                         GR_KERR_NONE);
        check_five(&s, true);
        ck_assert_int_eq(s.headers[2], 1);
        ck_assert_int_eq(s.headers[1], 0);
        gr_buf_fini(&scratch);
        free(b);
    }
}
END_TEST

START_TEST(test_log_append_time)
{
    size_t n;
    uint8_t *b = load("v2_none.bin", &n);
    gr_validate_opts_t o;
    gr_validate_result_t r;
    gr_batch_hdr_t h;
    opts(&o, 7);
    o.log_append_time = true;
    ck_assert_int_eq(gr_records_validate(b, n, &o, NULL, &r), GR_KERR_NONE);
    gr_batch_hdr_parse(b, &h);
    ck_assert_int_eq(h.max_timestamp, o.now_ms);
    ck_assert(h.attributes & GR_ATTR_LOG_APPEND_TIME);
    /* the CRC was recomputed: validating again passes */
    o.log_append_time = false;
    ck_assert_int_eq(gr_records_validate(b, n, &o, NULL, &r), GR_KERR_NONE);
    /* ... and CreateTime restores the records' max and clears the bit */
    gr_batch_hdr_parse(b, &h);
    ck_assert_int_eq(h.max_timestamp, 1600000000004LL);
    ck_assert(!(h.attributes & GR_ATTR_LOG_APPEND_TIME));
    free(b);
}
END_TEST

START_TEST(test_refusals)
{
    size_t n;
    uint8_t *b = load("v2_none.bin", &n);
    uint8_t *two = malloc(2 * n);
    gr_validate_opts_t o;
    gr_validate_result_t r;

    opts(&o, 7);
    /* a flipped byte in the records: CRC-32C */
    b[n - 1] ^= 1;
    ck_assert_int_eq(gr_records_validate(b, n, &o, NULL, &r),
                     GR_KERR_CORRUPT_MESSAGE);
    b[n - 1] ^= 1;
    /* truncated: no whole batch, as Kafka's ByteBufferLogInputStream
     * finds none */
    ck_assert_int_eq(gr_records_validate(b, n - 3, &o, NULL, &r),
                     GR_KERR_INVALID_RECORD);
    ck_assert_int_eq(gr_records_validate(b, 30, &o, NULL, &r),
                     GR_KERR_INVALID_RECORD);
    /* empty */
    ck_assert_int_eq(gr_records_validate(b, 0, &o, NULL, &r),
                     GR_KERR_INVALID_RECORD);
    /* two batches: exactly one (below v3 too, as Kafka's LogValidator);
     * bytes after the batch that make no other are left out */
    memcpy(two, b, n);
    memcpy(two + n, b, n);
    ck_assert_int_eq(gr_records_validate(two, 2 * n, &o, NULL, &r),
                     GR_KERR_INVALID_RECORD);
    o.produce_version = 2;
    ck_assert_int_eq(gr_records_validate(two, 2 * n, &o, NULL, &r),
                     GR_KERR_INVALID_RECORD);
    o.produce_version = 7;
    ck_assert_int_eq(gr_records_validate(two, n + 11, &o, NULL, &r),
                     GR_KERR_NONE);
    ck_assert_uint_eq(r.valid_bytes, n);
    /* too large */
    o.max_message_bytes = (int32_t)n - 1;
    ck_assert_int_eq(gr_records_validate(b, n, &o, NULL, &r),
                     GR_KERR_MESSAGE_TOO_LARGE);
    o.max_message_bytes = 1048588;
    /* keyless records on a compacted topic: fine here (keys present) */
    o.compacted = true;
    ck_assert_int_eq(gr_records_validate(b, n, &o, NULL, &r), GR_KERR_NONE);
    o.compacted = false;
    /* a control batch from a client; count not matching lastOffsetDelta */
    {
        uint8_t *c = malloc(n);
        memcpy(c, b, n);
        gr_put_u16(c + GR_BATCH_OFF_ATTRIBUTES,
                   (uint16_t)(gr_get_u16(c + GR_BATCH_OFF_ATTRIBUTES) |
                              GR_ATTR_CONTROL | GR_ATTR_TRANSACTIONAL));
        gr_put_u64(c + GR_BATCH_OFF_PRODUCER_ID, 1);
        gr_put_u32(c + GR_BATCH_OFF_BASE_SEQ, 0);
        gr_put_u32(c + GR_BATCH_OFF_CRC,
                   gr_crc32c(c + GR_BATCH_OFF_ATTRIBUTES,
                             n - GR_BATCH_OFF_ATTRIBUTES));
        ck_assert_int_eq(gr_records_validate(c, n, &o, NULL, &r),
                         GR_KERR_INVALID_RECORD);
        memcpy(c, b, n);
        gr_put_u32(c + GR_BATCH_OFF_COUNT, 4);
        gr_put_u32(c + GR_BATCH_OFF_CRC,
                   gr_crc32c(c + GR_BATCH_OFF_ATTRIBUTES,
                             n - GR_BATCH_OFF_ATTRIBUTES));
        ck_assert_int_eq(gr_records_validate(c, n, &o, NULL, &r),
                         GR_KERR_INVALID_RECORD);
        /* an unknown codec: Kafka's IllegalArgumentException */
        memcpy(c, b, n);
        gr_put_u16(c + GR_BATCH_OFF_ATTRIBUTES, 6);
        gr_put_u32(c + GR_BATCH_OFF_CRC,
                   gr_crc32c(c + GR_BATCH_OFF_ATTRIBUTES,
                             n - GR_BATCH_OFF_ATTRIBUTES));
        ck_assert_int_eq(gr_records_validate(c, n, &o, NULL, &r),
                         GR_KERR_UNKNOWN_SERVER_ERROR);
        /* zstd before Produce v7 */
        memcpy(c, b, n);
        gr_put_u16(c + GR_BATCH_OFF_ATTRIBUTES, GR_CODEC_ZSTD);
        gr_put_u32(c + GR_BATCH_OFF_CRC,
                   gr_crc32c(c + GR_BATCH_OFF_ATTRIBUTES,
                             n - GR_BATCH_OFF_ATTRIBUTES));
        o.produce_version = 6;
        ck_assert_int_eq(gr_records_validate(c, n, &o, NULL, &r),
                         GR_KERR_UNSUPPORTED_COMPRESSION_TYPE);
        free(c);
    }
    free(two);
    free(b);
}
END_TEST

START_TEST(test_keyless_compacted)
{
    gr_batch_builder_t bb;
    gr_buf_t out = GR_BUF_INIT;
    gr_bytes_t nokey = {NULL, -1}, v = {(const uint8_t *)"x", 1};
    gr_validate_opts_t o;
    gr_validate_result_t r;
    gr_batch_builder_init(&bb, GR_CODEC_NONE, 0, -1, -1, -1);
    gr_batch_builder_add(&bb, 5, &nokey, &v, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &out), 0);
    opts(&o, 7);
    o.compacted = true;
    ck_assert_int_eq(gr_records_validate(out.ptr, out.len, &o, NULL, &r),
                     GR_KERR_INVALID_RECORD);
    ck_assert_int_eq(r.bad_record, 0);
    gr_batch_builder_fini(&bb);
    gr_buf_fini(&out);
}
END_TEST

/* KIP-467: every rejected record of a batch, not only the first, with
 * Kafka's messages (LogValidator.validateRecord, processRecordErrors). */
START_TEST(test_all_record_errors)
{
    static const int codecs[] = { GR_CODEC_NONE, GR_CODEC_LZ4 };
    gr_bytes_t k = {(const uint8_t *)"k", 1}, nk = {NULL, -1},
               v = {(const uint8_t *)"x", 1};

    for (size_t c = 0; c < 2; c++) {
        gr_batch_builder_t bb;
        gr_buf_t out = GR_BUF_INIT;
        gr_arena_t *a = gr_arena_new(4096);
        gr_validate_opts_t o;
        gr_validate_result_t r;

        gr_batch_builder_init(&bb, codecs[c], 0, -1, -1, -1);
        for (int i = 0; i < 100; i++)
            gr_batch_builder_add(&bb, 1700000000000, i % 10 == 3 ? &nk : &k,
                                 &v, 0, NULL, 0);
        ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &out), 0);
        opts(&o, 8);
        o.compacted = true;
        o.topic = "t";
        o.partition = 2;
        ck_assert_int_eq(gr_records_validate(out.ptr, out.len, &o, a, &r),
                         GR_KERR_INVALID_RECORD);
        ck_assert_int_eq(r.nrecord_errors, 10);
        ck_assert_int_eq(r.bad_record, 3);
        for (int i = 0; i < 10; i++) {
            ck_assert_int_eq(r.record_errors[i].index, 10 * i + 3);
            ck_assert_str_eq(r.record_errors[i].message,
                             "Compacted topic cannot accept message without "
                             "key in topic partition t-2");
        }
        ck_assert_str_eq(
            r.message,
            "One or more records have been rejected due to 10 record errors "
            "in total, and only showing the first three errors at most: "
            "[RecordError(batchIndex=3, message='Compacted topic cannot "
            "accept message without key in topic partition t-2'), "
            "RecordError(batchIndex=13, message='Compacted topic cannot "
            "accept message without key in topic partition t-2'), "
            "RecordError(batchIndex=23, message='Compacted topic cannot "
            "accept message without key in topic partition t-2')]");
        /* without an arena: counted, not listed */
        ck_assert_int_eq(gr_records_validate(out.ptr, out.len, &o, NULL, &r),
                         GR_KERR_INVALID_RECORD);
        ck_assert_int_eq(r.nrecord_errors, 10);
        ck_assert_ptr_null(r.record_errors);
        gr_batch_builder_fini(&bb);
        gr_buf_fini(&out);
        gr_arena_destroy(a);
    }
    /* a timestamp among them makes the partition's error INVALID_TIMESTAMP */
    {
        gr_batch_builder_t bb;
        gr_buf_t out = GR_BUF_INIT;
        gr_arena_t *a = gr_arena_new(4096);
        gr_validate_opts_t o;
        gr_validate_result_t r;
        gr_batch_builder_init(&bb, GR_CODEC_NONE, 0, -1, -1, -1);
        gr_batch_builder_add(&bb, 1700000000000, &nk, &v, 0, NULL, 0);
        gr_batch_builder_add(&bb, 1700000000000, &k, &v, 0, NULL, 0);
        gr_batch_builder_add(&bb, 1690000000000, &k, &v, 0, NULL, 0);
        ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &out), 0);
        opts(&o, 8);
        o.compacted = true;
        o.ts_before_max_ms = 1000;
        o.topic = "t";
        ck_assert_int_eq(gr_records_validate(out.ptr, out.len, &o, a, &r),
                         GR_KERR_INVALID_TIMESTAMP);
        ck_assert_int_eq(r.nrecord_errors, 2);
        ck_assert_int_eq(r.record_errors[0].index, 0);
        ck_assert_int_eq(r.record_errors[1].index, 2);
        ck_assert_str_eq(r.record_errors[1].message,
                         "Timestamp 1690000000000 of message with offset 2 is "
                         "out of range. The timestamp should be within "
                         "[1699999999000, -9223370336854775809]");
        ck_assert_str_eq(r.message, "One or more records have been rejected "
                                    "due to invalid timestamp");
        gr_batch_builder_fini(&bb);
        gr_buf_fini(&out);
        gr_arena_destroy(a);
    }
}
END_TEST

/* A v2 batch (no codec) around a records payload written by hand from the
 * record format: length, attributes, timestampDelta, offsetDelta, key,
 * value, headers, the varints zigzag-encoded. */
static size_t
hand_batch(uint8_t *out, const uint8_t *recs, size_t n, int32_t count,
           int64_t base_ts)
{
    memset(out, 0, 61);
    gr_put_u32(out + 8, (uint32_t)(49 + n));
    out[16] = 2;                                   /* magic */
    gr_put_u32(out + 23, (uint32_t)(count - 1));   /* lastOffsetDelta */
    gr_put_u64(out + 27, (uint64_t)base_ts);       /* baseTimestamp */
    gr_put_u64(out + 35, (uint64_t)base_ts);       /* maxTimestamp */
    gr_put_u64(out + 43, (uint64_t)-1);            /* producerId */
    gr_put_u16(out + 51, 0xffff);                  /* producerEpoch */
    gr_put_u32(out + 53, 0xffffffff);              /* baseSequence */
    gr_put_u32(out + 57, (uint32_t)count);
    memcpy(out + 61, recs, n);
    gr_put_u32(out + 17, gr_crc32c(out + 21, 40 + n));
    return 61 + n;
}

/* Each record's errors, on the record that has them: the walk over
 * uncompressed records and the one over decompressed ones agree. */
START_TEST(test_record_errors)
{
    /* three records: key "a".."c", value "x", timestamp deltas 0, 1, 2 */
    static const uint8_t good[] = {
        0x10, 0x00, 0x00, 0x00, 0x02, 'a', 0x02, 'x', 0x00,
        0x10, 0x00, 0x02, 0x02, 0x02, 'b', 0x02, 'x', 0x00,
        0x10, 0x00, 0x04, 0x04, 0x02, 'c', 0x02, 'x', 0x00,
    };
    /* the second record without a key (length -1) */
    static const uint8_t nokey[] = {
        0x10, 0x00, 0x00, 0x00, 0x02, 'a', 0x02, 'x', 0x00,
        0x0e, 0x00, 0x02, 0x02, 0x01, 0x02, 'x', 0x00,
        0x10, 0x00, 0x04, 0x04, 0x02, 'c', 0x02, 'x', 0x00,
    };
    /* the second record 5 s before the base timestamp (delta -5000) */
    static const uint8_t old[] = {
        0x10, 0x00, 0x00, 0x00, 0x02, 'a', 0x02, 'x', 0x00,
        0x12, 0x00, 0x8f, 0x4e, 0x02, 0x02, 'b', 0x02, 'x', 0x00,
        0x10, 0x00, 0x04, 0x04, 0x02, 'c', 0x02, 'x', 0x00,
    };
    /* offset deltas 0, 2, 1 */
    static const uint8_t order[] = {
        0x10, 0x00, 0x00, 0x00, 0x02, 'a', 0x02, 'x', 0x00,
        0x10, 0x00, 0x02, 0x04, 0x02, 'b', 0x02, 'x', 0x00,
        0x10, 0x00, 0x04, 0x02, 0x02, 'c', 0x02, 'x', 0x00,
    };
    /* a header whose key is null */
    static const uint8_t hdr[] = {
        0x10, 0x00, 0x00, 0x00, 0x02, 'a', 0x02, 'x', 0x00,
        0x14, 0x00, 0x02, 0x02, 0x02, 'b', 0x02, 'x', 0x02, 0x01, 0x01,
        0x10, 0x00, 0x04, 0x04, 0x02, 'c', 0x02, 'x', 0x00,
    };
    /* the second record's length one byte short of its fields */
    static const uint8_t shortlen[] = {
        0x10, 0x00, 0x00, 0x00, 0x02, 'a', 0x02, 'x', 0x00,
        0x0e, 0x00, 0x02, 0x02, 0x02, 'b', 0x02, 'x', 0x00,
        0x10, 0x00, 0x04, 0x04, 0x02, 'c', 0x02, 'x', 0x00,
    };
    static const struct {
        const uint8_t *recs;
        size_t n;
        bool compacted, bounds;
        gr_kerr_t err;
        int32_t bad;
    } cases[] = {
        { good, sizeof good, true, true, GR_KERR_NONE, -1 },
        { nokey, sizeof nokey, false, false, GR_KERR_NONE, -1 },
        { nokey, sizeof nokey, true, false, GR_KERR_INVALID_RECORD, 1 },
        { old, sizeof old, false, false, GR_KERR_NONE, -1 },
        { old, sizeof old, false, true, GR_KERR_INVALID_TIMESTAMP, 1 },
        { order, sizeof order, false, false, GR_KERR_INVALID_RECORD, -1 },
        /* malformed records: Kafka's InvalidRecordException */
        { hdr, sizeof hdr, false, false, GR_KERR_INVALID_RECORD, -1 },
        { shortlen, sizeof shortlen, false, false, GR_KERR_INVALID_RECORD, -1 },
        { good, sizeof good - 1, false, false, GR_KERR_INVALID_RECORD, -1 },
    };
    uint8_t b[128];
    gr_validate_opts_t o;
    gr_validate_result_t r;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = hand_batch(b, cases[i].recs, cases[i].n, 3, 1700000000000);
        opts(&o, 7);
        o.compacted = cases[i].compacted;
        if (cases[i].bounds)
            o.ts_before_max_ms = 1000;
        ck_assert_msg(gr_records_validate(b, n, &o, NULL, &r) == cases[i].err,
                      "case %zu: %d", i, (int)gr_records_validate(b, n, &o,
                                                                  NULL, &r));
        ck_assert_int_eq(r.bad_record, cases[i].bad);
        if (cases[i].err == GR_KERR_NONE) {
            ck_assert_int_eq(r.records, 3);
            ck_assert_int_eq(r.max_timestamp, 1700000000002LL);
        }
    }
    /* the same records through a codec: the same errors */
    {
        gr_batch_builder_t bb;
        gr_buf_t out = GR_BUF_INIT;
        gr_bytes_t k = {(const uint8_t *)"a", 1}, nk = {NULL, -1},
                   v = {(const uint8_t *)"x", 1};
        gr_batch_builder_init(&bb, GR_CODEC_LZ4, 0, -1, -1, -1);
        gr_batch_builder_add(&bb, 1700000000000, &k, &v, 0, NULL, 0);
        gr_batch_builder_add(&bb, 1700000000000 - 5000, &nk, &v, 0, NULL, 0);
        ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &out), 0);
        opts(&o, 7);
        o.compacted = true;
        ck_assert_int_eq(gr_records_validate(out.ptr, out.len, &o, NULL, &r),
                         GR_KERR_INVALID_RECORD);
        ck_assert_int_eq(r.bad_record, 1);
        o.compacted = false;
        o.ts_before_max_ms = 1000;
        ck_assert_int_eq(gr_records_validate(out.ptr, out.len, &o, NULL, &r),
                         GR_KERR_INVALID_TIMESTAMP);
        ck_assert_int_eq(r.bad_record, 1);
        gr_batch_builder_fini(&bb);
        gr_buf_fini(&out);
    }
}
END_TEST

/* The codes of Kafka 4.4 for records a Produce v9 cannot take, stage by
 * stage (ProduceRequest.validateRecords, UnifiedLog
 * .analyzeAndValidateRecords, LogValidator), as the differential tests'
 * produce_errors case saw them. */
START_TEST(test_kafka_stages)
{
    size_t n, size;
    uint8_t *b = load("v2_none.bin", &n);
    uint8_t *c = malloc(n + 16);
    uint8_t legacy[28];
    char why[160];
    gr_validate_opts_t o;
    gr_validate_result_t r;

    opts(&o, 9);
    /* nextBatch: a size below 14 or a magic outside 0-2 is corrupt, too
     * few bytes for the size given is no batch */
    memcpy(c, b, n);
    gr_put_u32(c + GR_BATCH_OFF_LENGTH, 13);
    ck_assert_int_eq(gr_records_next_batch(c, n, 0, &size, why, sizeof why),
                     -1);
    ck_assert_str_eq(why, "Record size 13 is less than the minimum record "
                          "overhead (14)");
    ck_assert_int_eq(gr_records_check_produce(c, n, 9, &size, NULL, 0),
                     GR_KERR_CORRUPT_MESSAGE);
    ck_assert_int_eq(gr_records_first_transactional(c, n, why, sizeof why), -1);
    memcpy(c, b, n);
    c[GR_MAGIC_OFFSET] = 3;
    ck_assert_int_eq(gr_records_next_batch(c, n, 0, &size, why, sizeof why),
                     -1);
    ck_assert_str_eq(why, "Invalid magic found in record: 3");
    ck_assert_int_eq(gr_records_next_batch(b, 16, 0, &size, NULL, 0), 0);
    ck_assert_int_eq(gr_records_next_batch(b, n, 0, &size, NULL, 0), 1);
    ck_assert_uint_eq(size, n);
    /* a magic 0 message set of two 16-byte messages: no magic 2 */
    memset(legacy, 0, sizeof legacy);
    gr_put_u32(legacy + 8, 16);
    ck_assert_int_eq(gr_records_validate(legacy, sizeof legacy, &o, NULL, &r),
                     GR_KERR_INVALID_RECORD);
    /* a second whole batch, or a corrupt one, after the first */
    memcpy(c, b, n);
    memset(c + n, 0, 16);
    ck_assert_int_eq(gr_records_check_produce(c, n + 16, 9, &size, NULL, 0),
                     GR_KERR_CORRUPT_MESSAGE);
    ck_assert_int_eq(gr_records_check_produce(c, n + 2, 9, &size, NULL, 0),
                     GR_KERR_NONE);
    /* an unknown codec before v7 fails the request as a whole */
    gr_put_u16(c + GR_BATCH_OFF_ATTRIBUTES, 5);
    ck_assert_int_eq(gr_records_check_produce(c, n, 6, &size, NULL, 0),
                     GR_KERR_UNKNOWN_SERVER_ERROR);
    ck_assert_int_eq(gr_records_check_produce(c, n, 7, &size, NULL, 0),
                     GR_KERR_NONE);
    /* a client's base offset must be 0 */
    memcpy(c, b, n);
    gr_put_u64(c + GR_BATCH_OFF_BASE_OFFSET, 5);
    ck_assert_int_eq(gr_records_validate(c, n, &o, NULL, &r),
                     GR_KERR_INVALID_RECORD);
    /* a whole batch shorter than its header: corrupt; too short for its
     * lastOffsetDelta: Kafka reads past it */
    memcpy(c, b, n);
    gr_put_u32(c + GR_BATCH_OFF_LENGTH, 40);
    ck_assert_int_eq(gr_records_validate(c, 52, &o, NULL, &r),
                     GR_KERR_CORRUPT_MESSAGE);
    gr_put_u32(c + GR_BATCH_OFF_LENGTH, 14);
    ck_assert_int_eq(gr_records_validate(c, 26, &o, NULL, &r),
                     GR_KERR_UNKNOWN_SERVER_ERROR);
    /* the producer fields of a batch too short for them */
    {
        int64_t pid;
        int16_t epoch;
        bool txn;
        ck_assert_int_eq(gr_records_producer(c, 50, &pid, &epoch, &txn), -1);
        ck_assert_int_eq(gr_records_producer(b, n, &pid, &epoch, &txn), 0);
        ck_assert_int_eq(pid, -1);
        ck_assert(!txn);
    }
    free(c);
    free(b);
}
END_TEST

START_TEST(test_legacy_conversion)
{
    static const char *names[] = {"m0_none.bin", "m0_gzip.bin", "m1_none.bin",
                                  "m1_gzip.bin"};
    for (int k = 0; k < 4; k++) {
        size_t n;
        uint8_t *b = load(names[k], &n);
        gr_validate_opts_t o;
        gr_validate_result_t r;
        gr_buf_t out = GR_BUF_INIT, scratch = GR_BUF_INIT;
        seen_t s = {0};
        gr_batch_hdr_t h;
        opts(&o, 2);
        ck_assert_int_eq(gr_legacy_to_v2(b, n, &o, -1, &out, &r), GR_KERR_NONE);
        ck_assert_int_eq(r.records, 5);
        /* the result is a valid v2 batch that keeps the wrapper's codec */
        gr_batch_hdr_parse(out.ptr, &h);
        ck_assert_int_eq(h.magic, 2);
        ck_assert_int_eq(gr_batch_codec(&h), k % 2 ? GR_CODEC_GZIP : 0);
        ck_assert_int_eq(gr_records_validate(out.ptr, out.len, &o, NULL, &r),
                         GR_KERR_NONE);
        ck_assert_int_eq(gr_batch_foreach_record(out.ptr, out.len, &scratch,
                                                 1 << 20, collect, &s),
                         GR_KERR_NONE);
        check_five(&s, k >= 2); /* magic 0 has no timestamps */
        if (k < 2)
            ck_assert_int_eq(s.ts[0], -1);
        /* a broken CRC-32 in the first message is refused */
        b[12] ^= 0xff;
        ck_assert_int_eq(gr_legacy_to_v2(b, n, &o, -1, &out, &r),
                         GR_KERR_CORRUPT_MESSAGE);
        gr_buf_fini(&out);
        gr_buf_fini(&scratch);
        free(b);
    }
}
END_TEST

/* A magic-1 message of vlen zero bytes (attrs 0), or a gzip wrapper of
 * one (attrs 1), appended to out. */
static void
legacy_zeros(gr_buf_t *out, int attrs, size_t vlen)
{
    uint8_t *zeros = calloc(1, vlen);
    gr_buf_t inner = GR_BUF_INIT, gz = GR_BUF_INIT;
    const uint8_t *v = zeros;
    size_t start = out->len, n = vlen;
    uint8_t h[34];
    ck_assert_ptr_nonnull(zeros);
    if (attrs == GR_CODEC_GZIP) {
        legacy_zeros(&inner, 0, vlen);
        ck_assert_int_eq(gr_compress(GR_COMPRESS_GZIP, inner.ptr, inner.len,
                                     &gz, GR_COMPRESS_LEVEL_DEFAULT, 0),
                         0);
        v = gz.ptr;
        n = gz.len;
    }
    gr_put_u64(h, 0);
    gr_put_u32(h + 8, (uint32_t)(22 + n));
    h[16] = 1;
    h[17] = (uint8_t)attrs;
    gr_put_u64(h + 18, 1700000000000);
    gr_put_u32(h + 26, (uint32_t)-1);
    gr_put_u32(h + 30, (uint32_t)n);
    gr_buf_append(out, h, sizeof h);
    gr_buf_append(out, v, n);
    gr_put_u32(out->ptr + start + 12,
               gr_crc32(out->ptr + start + 16, out->len - start - 16));
    gr_buf_fini(&inner);
    gr_buf_fini(&gz);
    free(zeros);
}

/* The bound on inflated records: a v2 batch whose records take exactly
 * max_decompressed is valid, one byte more is MESSAGE_TOO_LARGE; a legacy
 * set whose wrappers convert to more than the bound together (each under
 * it) too; the converted batch takes the codec asked for; down-conversion
 * inflates to the bound it is given. */
START_TEST(test_inflate_bound)
{
    gr_batch_builder_t bb;
    gr_validate_opts_t o;
    gr_validate_result_t r;
    gr_buf_t b = GR_BUF_INIT, out = GR_BUF_INIT, scratch = GR_BUF_INIT;
    static uint8_t zeros[8000];
    gr_bytes_t k = { NULL, -1 }, v = { zeros, sizeof zeros };
    gr_batch_hdr_t h;

    /* one record: its length (2 bytes), attributes, two deltas, key
     * length, value length (2) and header count: 8009 bytes */
    gr_batch_builder_init(&bb, GR_CODEC_ZSTD, 0, -1, -1, -1);
    gr_batch_builder_add(&bb, 1700000000000, &k, &v, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &b), 0);
    gr_batch_builder_fini(&bb);
    opts(&o, 7);
    o.scratch = &scratch;
    o.max_decompressed = 8009;
    ck_assert_int_eq(gr_records_validate(b.ptr, b.len, &o, NULL, &r),
                     GR_KERR_NONE);
    ck_assert_uint_eq(r.inflated, 8009);
    ck_assert(!r.over_limit);
    o.max_decompressed = 8008;
    ck_assert_int_eq(gr_records_validate(b.ptr, b.len, &o, NULL, &r),
                     GR_KERR_MESSAGE_TOO_LARGE);
    ck_assert(r.over_limit);
    ck_assert_str_eq(r.message, "The records inflate to more than 8008 bytes.");
    /* stored, it down-converts within the same bound only */
    ck_assert_int_eq(
        gr_records_down_convert(b.ptr, b.len, 1, 1 << 20, 8009, &out),
        GR_KERR_NONE);
    ck_assert_int_eq(out.len, 34 + sizeof zeros);
    out.len = 0;
    ck_assert_int_eq(
        gr_records_down_convert(b.ptr, b.len, 1, 1 << 20, 8008, &out),
        GR_KERR_CORRUPT_MESSAGE);
    ck_assert_int_eq(out.len, 0);

    /* two gzip wrappers of 6000 bytes each: each inflates to a 6034-byte
     * message set, converted to a 6009-byte record; the second may inflate
     * to what the first left of the bound */
    b.len = 0;
    legacy_zeros(&b, GR_CODEC_GZIP, 6000);
    legacy_zeros(&b, GR_CODEC_GZIP, 6000);
    opts(&o, 2);
    o.max_decompressed = 6009 + 6034;
    ck_assert_int_eq(gr_legacy_to_v2(b.ptr, b.len, &o, -1, &out, &r),
                     GR_KERR_NONE);
    ck_assert_uint_eq(r.inflated, 12018);
    gr_batch_hdr_parse(out.ptr, &h);
    ck_assert_int_eq(gr_batch_codec(&h), GR_CODEC_GZIP);
    out.len = 0;
    ck_assert_int_eq(gr_legacy_to_v2(b.ptr, b.len, &o, GR_CODEC_LZ4, &out, &r),
                     GR_KERR_NONE);
    gr_batch_hdr_parse(out.ptr, &h);
    ck_assert_int_eq(gr_batch_codec(&h), GR_CODEC_LZ4);
    ck_assert_int_eq(h.count, 2);
    out.len = 0;
    o.max_decompressed = 6009 + 6033;
    ck_assert_int_eq(gr_legacy_to_v2(b.ptr, b.len, &o, -1, &out, &r),
                     GR_KERR_MESSAGE_TOO_LARGE);
    ck_assert(r.over_limit);
    ck_assert_str_eq(r.message,
                     "The message set converts to more than 12042 bytes.");
    /* uncompressed messages count too: 12018 bytes converted */
    o.max_decompressed = 12017;
    b.len = 0;
    legacy_zeros(&b, 0, 6000);
    legacy_zeros(&b, 0, 6000);
    ck_assert_int_eq(gr_legacy_to_v2(b.ptr, b.len, &o, -1, &out, &r),
                     GR_KERR_MESSAGE_TOO_LARGE);
    out.len = 0;
    o.max_decompressed = 12018;
    ck_assert_int_eq(gr_legacy_to_v2(b.ptr, b.len, &o, -1, &out, &r),
                     GR_KERR_NONE);
    gr_buf_fini(&b);
    gr_buf_fini(&out);
    gr_buf_fini(&scratch);
}
END_TEST

START_TEST(test_down_convert)
{
    size_t n;
    uint8_t *b = load("v2_gzip.bin", &n);
    for (int magic = 0; magic <= 1; magic++) {
        gr_buf_t legacy = GR_BUF_INIT, v2 = GR_BUF_INIT, scratch = GR_BUF_INIT;
        gr_validate_opts_t o;
        gr_validate_result_t r;
        seen_t s = {0};
        /* place the batch at offset 100 as the log would */
        gr_batch_set_base_offset(b, 100);
        ck_assert_int_eq(
            gr_records_down_convert(b, n, magic, 1 << 20, 1 << 20, &legacy),
            GR_KERR_NONE);
        /* offsets are absolute: 100..104 */
        ck_assert_int_eq((int64_t)gr_get_u64(legacy.ptr), 100);
        ck_assert_int_eq(gr_records_magic(legacy.ptr, legacy.len), magic);
        /* and it parses back (our legacy reader checks every CRC-32) */
        opts(&o, 2);
        ck_assert_int_eq(
            gr_legacy_to_v2(legacy.ptr, legacy.len, &o, -1, &v2, &r),
            GR_KERR_NONE);
        ck_assert_int_eq(gr_batch_foreach_record(v2.ptr, v2.len, &scratch,
                                                 1 << 20, collect, &s),
                         GR_KERR_NONE);
        check_five(&s, magic == 1);
        gr_buf_fini(&legacy);
        gr_buf_fini(&v2);
        gr_buf_fini(&scratch);
    }
    free(b);
}
END_TEST

START_TEST(test_builder_and_control)
{
    for (int codec = 0; codec <= 4; codec++) {
        gr_batch_builder_t bb;
        gr_buf_t out = GR_BUF_INIT, scratch = GR_BUF_INIT;
        gr_validate_opts_t o;
        gr_validate_result_t r;
        seen_t s = {0};
        gr_batch_builder_init(&bb, codec, 0, -1, -1, -1);
        for (int i = 0; i < 5; i++) {
            char k[8], v[8];
            gr_bytes_t kb, vb;
            snprintf(k, sizeof k, "k%d", i);
            snprintf(v, sizeof v, "v%d", i);
            kb.ptr = (const uint8_t *)k;
            kb.len = (int32_t)strlen(k);
            vb.ptr = (const uint8_t *)v;
            vb.len = (int32_t)strlen(v);
            gr_batch_builder_add(&bb, 1600000000000LL + i, &kb, &vb, 0, NULL,
                                 0);
        }
        ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &out), 0);
        opts(&o, 9);
        ck_assert_int_eq(gr_records_validate(out.ptr, out.len, &o, NULL, &r),
                         GR_KERR_NONE);
        /* as the log stores it: the base offset is outside the CRC */
        gr_batch_set_base_offset(out.ptr, 7);
        ck_assert_int_eq(gr_batch_foreach_record(out.ptr, out.len, &scratch,
                                                 1 << 20, collect, &s),
                         GR_KERR_NONE);
        check_five(&s, true);
        ck_assert_int_eq(s.offsets[0], 7);
        gr_batch_builder_fini(&bb);
        gr_buf_fini(&out);
        gr_buf_fini(&scratch);
    }
    {
        gr_buf_t out = GR_BUF_INIT;
        gr_batch_hdr_t h;
        ck_assert_int_eq(gr_control_batch(&out, 42, 3, GR_CONTROL_COMMIT, 5,
                                          1700000000000LL),
                         0);
        gr_batch_hdr_parse(out.ptr, &h);
        ck_assert_int_eq(h.producer_id, 42);
        ck_assert_int_eq(h.producer_epoch, 3);
        ck_assert_int_eq(h.base_sequence, -1);
        ck_assert_int_eq(h.count, 1);
        ck_assert(h.attributes & GR_ATTR_CONTROL);
        ck_assert(h.attributes & GR_ATTR_TRANSACTIONAL);
        ck_assert_uint_eq(h.crc, gr_crc32c(out.ptr + GR_BATCH_OFF_ATTRIBUTES,
                                           out.len - GR_BATCH_OFF_ATTRIBUTES));
        /* key: version 0, type COMMIT; value: version 0, epoch 5 */
        {
            static const uint8_t rec[] = {
                0x20,                   /* length 16 (zigzag) */
                0x00, 0x00, 0x00,       /* attributes, ts delta, offset delta */
                0x08, 0x00, 0x00, 0x00, 0x01, /* key: 4 bytes, v0 COMMIT */
                0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, /* value: v0, 5 */
                0x00,                   /* no headers */
            };
            ck_assert_uint_eq(out.len, GR_BATCH_HEADER_SIZE + sizeof rec);
            ck_assert_mem_eq(out.ptr + GR_BATCH_HEADER_SIZE, rec, sizeof rec);
        }
        gr_buf_fini(&out);
    }
}
END_TEST

/* The rewriting set: gr_batch_hdr_write() gives the header a builder
 * writes (every field, batchLength, magic 2, the CRC over the records),
 * the in-place setters change only their field, and the CRC follows
 * gr_batch_crc_stamp(); gr_records_put_varlong() is the zigzag varint
 * Kafka's ByteUtils.writeVarlong writes. */
START_TEST(test_rewrite_set)
{
    gr_batch_builder_t bb;
    gr_buf_t a = GR_BUF_INIT, b = GR_BUF_INIT, v = GR_BUF_INIT;
    gr_bytes_t key = { (const uint8_t *)"k", 1 }, val = { (const uint8_t *)"v", 1 };
    gr_batch_hdr_t h;
    static const uint8_t zz[] = { 0x00, 0x01, 0x02, 0xfe, 0x01, 0xff, 0x01,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0x01 };
    size_t err_size;
    const char *why;

    gr_batch_builder_init(&bb, GR_CODEC_NONE, 0, 7, 3, 11);
    gr_batch_builder_add(&bb, 1000, &key, &val, 0, NULL, 0);
    gr_batch_builder_add(&bb, 1005, &key, &val, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 42, &a), 0);
    gr_batch_builder_fini(&bb);
    gr_batch_hdr_parse(a.ptr, &h);
    ck_assert_int_eq(h.base_offset, 42);
    ck_assert_int_eq(h.count, 2);
    ck_assert_int_eq(h.last_offset_delta, 1);
    ck_assert_int_eq(h.max_timestamp, 1005);

    /* the same header written again over a copy: the same bytes */
    gr_buf_append(&b, a.ptr, a.len);
    memset(b.ptr, 0xaa, GR_BATCH_HEADER_SIZE);
    gr_batch_hdr_write(b.ptr, b.len, &h);
    ck_assert_mem_eq(a.ptr, b.ptr, a.len);
    ck_assert_int_eq(gr_batch_check(b.ptr, b.len, &err_size, &why), 0);

    /* maxTimestamp and attributes are inside the CRC */
    gr_batch_set_max_timestamp(b.ptr, 2000);
    gr_batch_set_attributes(b.ptr, GR_ATTR_LOG_APPEND_TIME);
    ck_assert_int_ne(gr_batch_check(b.ptr, b.len, &err_size, &why), 0);
    gr_batch_crc_stamp(b.ptr, b.len);
    ck_assert_int_eq(gr_batch_check(b.ptr, b.len, &err_size, &why), 0);
    gr_batch_hdr_parse(b.ptr, &h);
    ck_assert_int_eq(h.max_timestamp, 2000);
    ck_assert_int_eq(h.attributes, GR_ATTR_LOG_APPEND_TIME);
    ck_assert_uint_eq(h.crc, gr_crc32c(b.ptr + GR_BATCH_OFF_ATTRIBUTES,
                                       b.len - GR_BATCH_OFF_ATTRIBUTES));

    /* 0, -1, 1, 127, -128, INT64_MIN */
    gr_records_put_varlong(&v, 0);
    gr_records_put_varlong(&v, -1);
    gr_records_put_varlong(&v, 1);
    gr_records_put_varlong(&v, 127);
    gr_records_put_varlong(&v, -128);
    gr_records_put_varlong(&v, INT64_MIN);
    ck_assert_uint_eq(v.len, sizeof zz);
    ck_assert_mem_eq(v.ptr, zz, sizeof zz);
    gr_buf_fini(&a);
    gr_buf_fini(&b);
    gr_buf_fini(&v);
}
END_TEST

Suite *
suite_proto_records(void)
{
    Suite *s = suite_create("proto/records");
    TCase *tc = tcase_create("records");
    tcase_add_test(tc, test_validate_v2);
    tcase_add_test(tc, test_log_append_time);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_keyless_compacted);
    tcase_add_test(tc, test_record_errors);
    tcase_add_test(tc, test_all_record_errors);
    tcase_add_test(tc, test_kafka_stages);
    tcase_add_test(tc, test_legacy_conversion);
    tcase_add_test(tc, test_down_convert);
    tcase_add_test(tc, test_inflate_bound);
    tcase_add_test(tc, test_builder_and_control);
    tcase_add_test(tc, test_rewrite_set);
    suite_add_tcase(s, tc);
    return s;
}
