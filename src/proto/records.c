/* Record batches and legacy message sets: see records.h. */
#include "proto/records.h"
#include "core/crc32c.h"
#include "core/err.h"
#include "proto/wire.h"

void
gr_batch_hdr_parse(const uint8_t *p, gr_batch_hdr_t *h)
{
    h->base_offset = (int64_t)gr_get_u64(p + GR_BATCH_OFF_BASE_OFFSET);
    h->length = (int32_t)gr_get_u32(p + GR_BATCH_OFF_LENGTH);
    h->leader_epoch = (int32_t)gr_get_u32(p + GR_BATCH_OFF_LEADER_EPOCH);
    h->magic = (int8_t)p[GR_BATCH_OFF_MAGIC];
    h->crc = gr_get_u32(p + GR_BATCH_OFF_CRC);
    h->attributes = (int16_t)gr_get_u16(p + GR_BATCH_OFF_ATTRIBUTES);
    h->last_offset_delta = (int32_t)gr_get_u32(p + GR_BATCH_OFF_LAST_DELTA);
    h->base_timestamp = (int64_t)gr_get_u64(p + GR_BATCH_OFF_BASE_TS);
    h->max_timestamp = (int64_t)gr_get_u64(p + GR_BATCH_OFF_MAX_TS);
    h->producer_id = (int64_t)gr_get_u64(p + GR_BATCH_OFF_PRODUCER_ID);
    h->producer_epoch = (int16_t)gr_get_u16(p + GR_BATCH_OFF_EPOCH);
    h->base_sequence = (int32_t)gr_get_u32(p + GR_BATCH_OFF_BASE_SEQ);
    h->count = (int32_t)gr_get_u32(p + GR_BATCH_OFF_COUNT);
}

void
gr_batch_set_base_offset(uint8_t *batch, int64_t base_offset)
{
    gr_put_u64(batch + GR_BATCH_OFF_BASE_OFFSET, (uint64_t)base_offset);
}

void
gr_batch_set_leader_epoch(uint8_t *batch, int32_t epoch)
{
    gr_put_u32(batch + GR_BATCH_OFF_LEADER_EPOCH, (uint32_t)epoch);
}

void
gr_batch_set_max_timestamp(uint8_t *batch, int64_t max_timestamp)
{
    gr_put_u64(batch + GR_BATCH_OFF_MAX_TS, (uint64_t)max_timestamp);
}

void
gr_batch_set_attributes(uint8_t *batch, int16_t attributes)
{
    gr_put_u16(batch + GR_BATCH_OFF_ATTRIBUTES, (uint16_t)attributes);
}

uint32_t
gr_batch_crc_compute(const uint8_t *batch, size_t size)
{
    return gr_crc32c(batch + GR_BATCH_OFF_ATTRIBUTES,
                     size - GR_BATCH_OFF_ATTRIBUTES);
}

void
gr_batch_crc_stamp(uint8_t *batch, size_t size)
{
    gr_put_u32(batch + GR_BATCH_OFF_CRC, gr_batch_crc_compute(batch, size));
}

void
gr_batch_hdr_write(uint8_t *b, size_t size, const gr_batch_hdr_t *h)
{
    gr_put_u64(b + GR_BATCH_OFF_BASE_OFFSET, (uint64_t)h->base_offset);
    gr_put_u32(b + GR_BATCH_OFF_LENGTH, (uint32_t)(size - GR_LOG_OVERHEAD));
    gr_put_u32(b + GR_BATCH_OFF_LEADER_EPOCH, (uint32_t)h->leader_epoch);
    b[GR_BATCH_OFF_MAGIC] = 2;
    gr_put_u16(b + GR_BATCH_OFF_ATTRIBUTES, (uint16_t)h->attributes);
    gr_put_u32(b + GR_BATCH_OFF_LAST_DELTA, (uint32_t)h->last_offset_delta);
    gr_put_u64(b + GR_BATCH_OFF_BASE_TS, (uint64_t)h->base_timestamp);
    gr_put_u64(b + GR_BATCH_OFF_MAX_TS, (uint64_t)h->max_timestamp);
    gr_put_u64(b + GR_BATCH_OFF_PRODUCER_ID, (uint64_t)h->producer_id);
    gr_put_u16(b + GR_BATCH_OFF_EPOCH, (uint16_t)h->producer_epoch);
    gr_put_u32(b + GR_BATCH_OFF_BASE_SEQ, (uint32_t)h->base_sequence);
    gr_put_u32(b + GR_BATCH_OFF_COUNT, (uint32_t)h->count);
    gr_batch_crc_stamp(b, size);
}

int
gr_batch_check(const uint8_t *p, size_t n, size_t *size, const char **why)
{
    int32_t len;

    *size = GR_BATCH_HEADER_SIZE;
    *why = NULL;
    if (n < GR_BATCH_HEADER_SIZE)
        return GR_ERR_TRUNCATED;
    len = (int32_t)gr_get_u32(p + GR_BATCH_OFF_LENGTH);
    if (len < GR_BATCH_MIN_LENGTH) {
        *why = "batch length below the header size";
        return GR_ERR_CORRUPT;
    }
    if (p[GR_BATCH_OFF_MAGIC] != 2) {
        *why = "magic is not 2";
        return GR_ERR_CORRUPT;
    }
    if ((int32_t)gr_get_u32(p + GR_BATCH_OFF_LAST_DELTA) < 0) {
        *why = "negative lastOffsetDelta";
        return GR_ERR_CORRUPT;
    }
    *size = (size_t)len + GR_LOG_OVERHEAD;
    if (n < *size)
        return GR_ERR_TRUNCATED;
    if (gr_batch_crc_compute(p, *size) != gr_get_u32(p + GR_BATCH_OFF_CRC)) {
        *why = "CRC-32C mismatch";
        return GR_ERR_CORRUPT;
    }
    return 0;
}

/* ------------------------------------------------------------------ */

#include "core/compress.h"
#include "core/crc32c.h"

#include <stdio.h>
#include <string.h>

int
gr_records_magic(const uint8_t *buf, size_t n)
{
    return n > GR_MAGIC_OFFSET ? (int8_t)buf[GR_MAGIC_OFFSET] : -1;
}

/* Reads a record's varint-prefixed bytes (-1 null) from r. */
static int
rd_varbytes(gr_reader_t *r, gr_bytes_t *b, int nullable)
{
    int32_t len = gr_rd_varint(r);
    if (r->err || len < -1 || (len == -1 && !nullable))
        return -1;
    if (len == -1) {
        b->ptr = NULL;
        b->len = -1;
        return 0;
    }
    b->ptr = gr_rd_take(r, (size_t)len);
    b->len = len;
    return b->ptr == NULL ? -1 : 0;
}

/* Walks the count records of payload[0..plen) (a batch's records,
 * decompressed): the checks of gr_batch_foreach_record(). */
static gr_kerr_t
foreach_payload(const gr_batch_hdr_t *h, const uint8_t *payload, size_t plen,
                gr_record_cb cb, void *arg)
{
    gr_reader_t r = gr_reader_init(payload, plen);
    int32_t prev_delta = -1;

    for (int32_t i = 0; i < h->count; i++) {
        gr_record_t rec;
        gr_reader_t rr;
        int32_t len = gr_rd_varint(&r);
        if (r.err || len < 0 || (size_t)len > gr_reader_remaining(&r))
            return GR_KERR_CORRUPT_MESSAGE;
        rr = gr_rd_sub(&r, (uint32_t)len);
        rec.attributes = gr_rd_i8(&rr);
        rec.timestamp = gr_add_wrap(h->base_timestamp, gr_rd_varlong(&rr));
        rec.offset_delta = gr_rd_varint(&rr);
        if (rr.err)
            return GR_KERR_CORRUPT_MESSAGE;
        /* produced batches number records 0..count-1 (gr_records_validate
         * also checks count == lastOffsetDelta + 1); compacted ones keep
         * the survivors' deltas: increasing, within lastOffsetDelta */
        if (rec.offset_delta <= prev_delta ||
            rec.offset_delta > h->last_offset_delta)
            return GR_KERR_INVALID_RECORD;
        prev_delta = rec.offset_delta;
        rec.offset = gr_add_wrap(h->base_offset, rec.offset_delta);
        if (rd_varbytes(&rr, &rec.key, 1) || rd_varbytes(&rr, &rec.value, 1))
            return GR_KERR_CORRUPT_MESSAGE;
        rec.headers_cnt = gr_rd_varint(&rr);
        if (rr.err || rec.headers_cnt < 0)
            return GR_KERR_CORRUPT_MESSAGE;
        rec.headers = rr.p;
        for (int32_t k = 0; k < rec.headers_cnt; k++) {
            gr_bytes_t hk, hv;
            if (rd_varbytes(&rr, &hk, 0) || rd_varbytes(&rr, &hv, 1))
                return GR_KERR_CORRUPT_MESSAGE;
        }
        rec.headers_len = (size_t)(rr.p - rec.headers);
        if (rr.err || gr_reader_remaining(&rr) != 0)
            return GR_KERR_CORRUPT_MESSAGE;
        if (cb && cb(arg, h, &rec))
            return GR_KERR_NONE;
    }
    /* the declared count must fill the batch exactly */
    if (gr_reader_remaining(&r) != 0)
        return GR_KERR_CORRUPT_MESSAGE;
    return GR_KERR_NONE;
}

gr_kerr_t
gr_batch_foreach_record(const uint8_t *batch, size_t n, gr_buf_t *scratch,
                        size_t max_bytes, gr_record_cb cb, void *arg)
{
    gr_batch_hdr_t h;
    const uint8_t *payload;
    size_t plen;

    if (n < GR_BATCH_HEADER_SIZE)
        return GR_KERR_CORRUPT_MESSAGE;
    gr_batch_hdr_parse(batch, &h);
    if (gr_batch_size(&h) != n || h.count < 0)
        return GR_KERR_CORRUPT_MESSAGE;
    payload = batch + GR_BATCH_HEADER_SIZE;
    plen = n - GR_BATCH_HEADER_SIZE;
    if (gr_batch_codec(&h) != GR_CODEC_NONE) {
        scratch->len = 0;
        if (gr_decompress(gr_batch_codec(&h), payload, plen, scratch,
                          max_bytes) != 0)
            return GR_KERR_CORRUPT_MESSAGE;
        payload = scratch->ptr;
        plen = scratch->len;
    }
    return foreach_payload(&h, payload, plen, cb, arg);
}

/* --- validation */

typedef struct vstate {
    const gr_validate_opts_t *o;
    gr_validate_result_t *res;
    gr_arena_t *a;
    int64_t max_ts;
    int32_t index;
    int32_t cap;   /* of res->record_errors */
    bool bad_ts;   /* a record error is a timestamp's */
} vstate_t;

/* Notes a rejected record and goes on, as Kafka's validateRecord: all of a
 * batch's record errors are answered together. */
static void
record_error(vstate_t *v, bool timestamp, const char *msg)
{
    gr_validate_result_t *res = v->res;
    if (res->nrecord_errors == 0)
        res->bad_record = v->index;
    v->bad_ts |= timestamp;
    if (v->a != NULL && res->nrecord_errors == v->cap) {
        int32_t cap = v->cap ? v->cap * 2 : 8;
        gr_record_error_t *e = gr_arena_alloc(v->a, (size_t)cap * sizeof(*e));
        if (e != NULL) {
            if (v->cap)
                memcpy(e, res->record_errors, (size_t)v->cap * sizeof(*e));
            res->record_errors = e;
            v->cap = cap;
        }
    }
    if (v->a != NULL && res->nrecord_errors < v->cap) {
        res->record_errors[res->nrecord_errors].index = v->index;
        res->record_errors[res->nrecord_errors].message = msg;
    }
    res->nrecord_errors++;
}

/* Kafka's recordHasInvalidTimestamp, in Java's wrapping long arithmetic
 * (the bounds' Long.MAX_VALUE defaults never trip it). */
static bool
ts_out_of_bounds(const gr_validate_opts_t *o, int64_t ts)
{
    int64_t diff = gr_sub_wrap(o->now_ms, ts);
    return diff > o->ts_before_max_ms ||
           gr_sub_wrap(0, diff) > o->ts_after_max_ms;
}

static int
validate_record(void *arg, const gr_batch_hdr_t *h, const gr_record_t *rec)
{
    vstate_t *v = arg;
    const gr_validate_opts_t *o = v->o;
    const char *tp = o->topic ? o->topic : "?";
    (void)h;
    if (o->compacted && rec->key.len < 0) {
        record_error(v, false,
                     v->a ? gr_arena_printf(v->a,
                                            "Compacted topic cannot accept "
                                            "message without key in topic "
                                            "partition %s-%d",
                                            tp, (int)o->partition)
                          : NULL);
    } else if (!o->log_append_time && rec->timestamp != -1 &&
               ts_out_of_bounds(o, rec->timestamp)) {
        /* Java's long arithmetic, wrapping as the bounds' Long.MAX_VALUE
         * defaults make it in Kafka's message */
        int64_t lo = gr_add_wrap(o->now_ms, -o->ts_before_max_ms);
        int64_t hi = gr_add_wrap(o->now_ms, o->ts_after_max_ms);
        record_error(v, true,
                     v->a ? gr_arena_printf(v->a,
                                            "Timestamp %lld of message with "
                                            "offset %lld is out of range. The "
                                            "timestamp should be within "
                                            "[%lld, %lld]",
                                            (long long)rec->timestamp,
                                            (long long)rec->offset,
                                            (long long)lo, (long long)hi)
                          : NULL);
    }
    if (rec->timestamp > v->max_ts)
        v->max_ts = rec->timestamp;
    v->index++;
    return 0;
}

/* The partition's error once a batch's records are all seen, as Kafka's
 * processRecordErrors: INVALID_TIMESTAMP when any is a timestamp's, else
 * INVALID_RECORD with the count and the first three. */
static gr_kerr_t
record_errors_done(vstate_t *v)
{
    gr_validate_result_t *res = v->res;
    gr_buf_t b = GR_BUF_INIT;
    int32_t shown;

    if (res->nrecord_errors == 0)
        return GR_KERR_NONE;
    if (v->bad_ts) {
        res->message = "One or more records have been rejected due to invalid "
                       "timestamp";
        return GR_KERR_INVALID_TIMESTAMP;
    }
    res->message = "One or more records have been rejected";
    if (v->a == NULL)
        return GR_KERR_INVALID_RECORD;
    shown = res->nrecord_errors < 3 ? res->nrecord_errors : 3;
    if (shown > v->cap)
        shown = v->cap;
    gr_buf_printf(&b,
                  "One or more records have been rejected due to %d record "
                  "errors in total, and only showing the first three errors "
                  "at most: [",
                  (int)res->nrecord_errors);
    for (int32_t i = 0; i < shown; i++)
        gr_buf_printf(&b, "%sRecordError(batchIndex=%d, message='%s')",
                      i ? ", " : "", (int)res->record_errors[i].index,
                      res->record_errors[i].message
                          ? res->record_errors[i].message
                          : "");
    gr_buf_printf(&b, "]");
    if (b.ptr != NULL)
        res->message = gr_arena_strndup(v->a, (const char *)b.ptr, b.len);
    if (res->message == NULL)
        res->message = "One or more records have been rejected";
    gr_buf_fini(&b);
    return GR_KERR_INVALID_RECORD;
}

/* Skips a record's varint-prefixed bytes; *is_null when -1. */
static inline bool
skip_varbytes(gr_reader_t *r, int nullable, bool *is_null)
{
    int32_t len = gr_rd_varint(r);
    if (r->err || len < -1 || (len == -1 && !nullable))
        return false;
    if (is_null != NULL)
        *is_null = len == -1;
    if (len > 0) {
        if ((size_t)len > gr_reader_remaining(r))
            return false;
        r->p += len;
    }
    return true;
}

/* gr_batch_foreach_record() with validate_record() for an uncompressed
 * batch, in one loop without a call per record: the same checks, the same
 * errors, on the first bad record. Small records spend most of produce's
 * CPU here (10 million records per GiB of 100 B values). */
static gr_kerr_t
validate_plain(const uint8_t *payload, size_t plen, const gr_batch_hdr_t *h,
               vstate_t *v)
{
    const gr_validate_opts_t *o = v->o;
    gr_reader_t r = gr_reader_init(payload, plen);
    bool ts_bounds = !o->log_append_time && (o->ts_before_max_ms < INT64_MAX ||
                                             o->ts_after_max_ms < INT64_MAX);
    int32_t prev = -1;

    for (int32_t i = 0; i < h->count; i++) {
        int32_t len = gr_rd_varint(&r), delta, nh;
        gr_reader_t rr;
        bool null_key;
        int64_t ts;

        if (r.err || len < 0 || (size_t)len > gr_reader_remaining(&r))
            return GR_KERR_CORRUPT_MESSAGE;
        rr.p = r.p;
        rr.end = r.p + len;
        rr.err = 0;
        r.p += len;
        if (rr.p == rr.end)
            return GR_KERR_CORRUPT_MESSAGE; /* no attributes */
        rr.p++;
        ts = gr_add_wrap(h->base_timestamp, gr_rd_varlong(&rr));
        delta = gr_rd_varint(&rr);
        if (rr.err)
            return GR_KERR_CORRUPT_MESSAGE;
        if (delta <= prev || delta > h->last_offset_delta)
            return GR_KERR_INVALID_RECORD;
        prev = delta;
        if (!skip_varbytes(&rr, 1, &null_key) || !skip_varbytes(&rr, 1, NULL))
            return GR_KERR_CORRUPT_MESSAGE;
        nh = gr_rd_varint(&rr);
        if (rr.err || nh < 0)
            return GR_KERR_CORRUPT_MESSAGE;
        for (int32_t k = 0; k < nh; k++)
            if (!skip_varbytes(&rr, 0, NULL) || !skip_varbytes(&rr, 1, NULL))
                return GR_KERR_CORRUPT_MESSAGE;
        if (rr.err || rr.p != rr.end)
            return GR_KERR_CORRUPT_MESSAGE;
        /* validate_record's checks */
        if ((o->compacted && null_key) || (ts_bounds && ts != -1)) {
            gr_record_t rec;
            memset(&rec, 0, sizeof rec);
            rec.key.len = null_key ? -1 : 0;
            rec.timestamp = ts;
            rec.offset = h->base_offset + delta;
            validate_record(v, h, &rec);
        } else {
            if (ts > v->max_ts)
                v->max_ts = ts;
            v->index++;
        }
    }
    return r.p == r.end ? GR_KERR_NONE : GR_KERR_CORRUPT_MESSAGE;
}

int
gr_records_next_batch(const uint8_t *buf, size_t n, size_t pos, size_t *size,
                      char *why, size_t whysz)
{
    size_t left = n > pos ? n - pos : 0;
    int32_t len;
    int8_t magic;

    *size = 0;
    if (left < GR_LOG_OVERHEAD)
        return 0;
    len = (int32_t)gr_get_u32(buf + pos + GR_BATCH_OFF_LENGTH);
    if (len < GR_RECORD_MIN_LENGTH) {
        if (why != NULL)
            snprintf(why, whysz,
                     "Record size %d is less than the minimum record overhead "
                     "(%d)",
                     (int)len, GR_RECORD_MIN_LENGTH);
        return -1;
    }
    if (left <= GR_MAGIC_OFFSET)
        return 0;
    magic = (int8_t)buf[pos + GR_MAGIC_OFFSET];
    if (magic < 0 || magic > 2) {
        if (why != NULL)
            snprintf(why, whysz, "Invalid magic found in record: %d",
                     (int)magic);
        return -1;
    }
    if (left - GR_LOG_OVERHEAD < (size_t)len)
        return 0;
    *size = (size_t)len + GR_LOG_OVERHEAD;
    return 1;
}

int
gr_records_first_transactional(const uint8_t *buf, size_t n, char *why,
                               size_t whysz)
{
    size_t size;
    int r = gr_records_next_batch(buf, n, 0, &size, why, whysz);
    if (r <= 0)
        return r;
    if (buf[GR_MAGIC_OFFSET] < 2)
        return 0; /* a legacy message is never transactional */
    return (gr_get_u16(buf + GR_BATCH_OFF_ATTRIBUTES) & GR_ATTR_TRANSACTIONAL)
               ? 1
               : 0;
}

gr_kerr_t
gr_records_check_produce(const uint8_t *buf, size_t n, int16_t version,
                         size_t *size, char *why, size_t whysz)
{
    size_t next;
    int codec, r;

    if (why != NULL && whysz > 0)
        why[0] = '\0';
    r = gr_records_next_batch(buf, n, 0, size, why, whysz);
    if (r < 0)
        return GR_KERR_CORRUPT_MESSAGE;
    if (r == 0) {
        if (why != NULL)
            snprintf(why, whysz,
                     "Produce requests with version %d must have at least "
                     "one record batch per partition",
                     (int)version);
        return GR_KERR_INVALID_RECORD;
    }
    if (buf[GR_MAGIC_OFFSET] != 2) {
        if (why != NULL)
            snprintf(why, whysz,
                     "Produce requests with version %d are only allowed to "
                     "contain record batches with magic version 2",
                     (int)version);
        return GR_KERR_INVALID_RECORD;
    }
    codec = gr_get_u16(buf + GR_BATCH_OFF_ATTRIBUTES) & GR_ATTR_CODEC_MASK;
    if (version < 7 && codec > GR_CODEC_ZSTD) {
        if (why != NULL)
            snprintf(why, whysz, "Unknown compression type id: %d", codec);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (version < 7 && codec == GR_CODEC_ZSTD) {
        if (why != NULL)
            snprintf(why, whysz,
                     "Produce requests with version %d are not allowed to "
                     "use ZStandard compression",
                     (int)version);
        return GR_KERR_UNSUPPORTED_COMPRESSION_TYPE;
    }
    r = gr_records_next_batch(buf, n, *size, &next, why, whysz);
    if (r < 0)
        return GR_KERR_CORRUPT_MESSAGE;
    if (r > 0) {
        if (why != NULL)
            snprintf(why, whysz,
                     "Produce requests with version %d are only allowed to "
                     "contain exactly one record batch per partition",
                     (int)version);
        return GR_KERR_INVALID_RECORD;
    }
    return GR_KERR_NONE;
}

int
gr_records_producer(const uint8_t *batch, size_t size, int64_t *producer_id,
                    int16_t *producer_epoch, bool *transactional)
{
    *producer_id = -1;
    *producer_epoch = -1;
    *transactional = false;
    if (size < GR_BATCH_OFF_EPOCH)
        return -1; /* hasProducerId reads the producer id */
    *producer_id = (int64_t)gr_get_u64(batch + GR_BATCH_OFF_PRODUCER_ID);
    *transactional = (gr_get_u16(batch + GR_BATCH_OFF_ATTRIBUTES) &
                      GR_ATTR_TRANSACTIONAL) != 0;
    if (*producer_id < 0 || !*transactional)
        return 0;
    if (size < GR_BATCH_OFF_COUNT)
        return -1; /* the transactional batch's baseSequence */
    *producer_epoch = (int16_t)gr_get_u16(batch + GR_BATCH_OFF_EPOCH);
    return 0;
}

/* The phase of Kafka's UnifiedLog.analyzeAndValidateRecords for the one
 * batch b[0..size) (size >= 26, magic 2): NONE or the error, *why set. */
static gr_kerr_t
analyze_batch(const uint8_t *b, size_t size, const gr_validate_opts_t *o,
              const char **why)
{
    int64_t base = (int64_t)gr_get_u64(b + GR_BATCH_OFF_BASE_OFFSET);
    int codec;

    if (base != 0) {
        *why = "The baseOffset of the record batch should be 0.";
        return GR_KERR_INVALID_RECORD;
    }
    if (size < GR_BATCH_OFF_BASE_TS) {
        /* lastOffset() reads past the batch: Kafka's
         * IndexOutOfBoundsException */
        *why = "The batch is too short for its lastOffsetDelta.";
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (size > (size_t)o->max_message_bytes) {
        *why = "The record batch is larger than the maximum message size "
               "the topic accepts (max.message.bytes).";
        return GR_KERR_MESSAGE_TOO_LARGE;
    }
    if (size < GR_BATCH_HEADER_SIZE) {
        *why = "Record batch is corrupt (smaller than the batch header).";
        return GR_KERR_CORRUPT_MESSAGE;
    }
    if (gr_crc32c(b + GR_BATCH_OFF_ATTRIBUTES,
                  size - GR_BATCH_OFF_ATTRIBUTES) !=
        gr_get_u32(b + GR_BATCH_OFF_CRC)) {
        *why = "Record batch failed its CRC-32C check.";
        return GR_KERR_CORRUPT_MESSAGE;
    }
    codec = gr_get_u16(b + GR_BATCH_OFF_ATTRIBUTES) & GR_ATTR_CODEC_MASK;
    if (codec > GR_CODEC_ZSTD) {
        /* CompressionType.forId: an IllegalArgumentException */
        *why = "Unknown compression codec.";
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    return GR_KERR_NONE;
}

/* LogValidator.validateBatch for a client's batch h. */
static gr_kerr_t
check_batch(const gr_batch_hdr_t *h, const char **why)
{
    int64_t from_offsets = (int64_t)h->last_offset_delta + 1;
    if (from_offsets <= 0) {
        *why = "Batch has an invalid offset range.";
        return GR_KERR_INVALID_RECORD;
    }
    if (h->count <= 0) {
        *why = "Invalid reported count for record batch.";
        return GR_KERR_INVALID_RECORD;
    }
    if (from_offsets != h->count) {
        *why = "Inconsistent batch offset range and count of records.";
        return GR_KERR_INVALID_RECORD;
    }
    if (h->attributes & GR_ATTR_CONTROL) {
        *why = "Clients are not allowed to write control records.";
        return GR_KERR_INVALID_RECORD;
    }
    if (h->producer_id >= 0 && h->base_sequence < 0) {
        *why = "Invalid sequence number in a record batch with a producer id.";
        return GR_KERR_INVALID_RECORD;
    }
    return GR_KERR_NONE;
}

gr_kerr_t
gr_records_validate(uint8_t *buf, size_t n, const gr_validate_opts_t *o,
                    gr_arena_t *a, gr_validate_result_t *res)
{
    gr_buf_t local = GR_BUF_INIT;
    gr_buf_t *scratch = o->scratch ? o->scratch : &local;
    gr_kerr_t err;
    gr_batch_hdr_t h;
    const char *why = NULL;
    size_t size;
    vstate_t v;
    int16_t attrs;
    bool rewrite = false;

    memset(res, 0, sizeof *res);
    res->max_timestamp = -1;
    res->producer_id = -1;
    res->producer_epoch = -1;
    res->base_sequence = -1;
    res->last_sequence = -1;
    res->bad_record = -1;

    err = gr_records_check_produce(buf, n, o->produce_version, &size, res->why,
                                   sizeof res->why);
    if (err != GR_KERR_NONE) {
        res->message = res->why;
        return err;
    }
    res->batches = 1;
    res->valid_bytes = size;
    err = analyze_batch(buf, size, o, &why);
    if (err == GR_KERR_NONE) {
        gr_batch_hdr_parse(buf, &h);
        err = check_batch(&h, &why);
    }
    if (err != GR_KERR_NONE) {
        res->message = why;
        return err;
    }

    memset(&v, 0, sizeof v);
    v.o = o;
    v.res = res;
    v.a = a;
    v.max_ts = -1;
    if (gr_batch_codec(&h) == GR_CODEC_NONE) {
        err = validate_plain(buf + GR_BATCH_HEADER_SIZE,
                             size - GR_BATCH_HEADER_SIZE, &h, &v);
    } else {
        gr_err_t rc;
        scratch->len = 0;
        rc = gr_decompress(gr_batch_codec(&h), buf + GR_BATCH_HEADER_SIZE,
                           size - GR_BATCH_HEADER_SIZE, scratch,
                           o->max_decompressed);
        if (rc == GR_ERR_TOO_LARGE) {
            /* Gregor's bound (Kafka streams the records and has none):
             * answered as Kafka answers a batch too large to append */
            snprintf(res->why, sizeof res->why,
                     "The records inflate to more than %zu bytes.",
                     o->max_decompressed);
            res->message = res->why;
            res->inflated = o->max_decompressed;
            res->over_limit = true;
            gr_buf_fini(&local);
            return GR_KERR_MESSAGE_TOO_LARGE;
        }
        if (rc != 0) {
            /* Kafka: a KafkaException ("Failed to decompress record
             * stream"), which is no ApiException */
            res->message = "The records could not be decompressed.";
            gr_buf_fini(&local);
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        }
        res->inflated = scratch->len;
        err = foreach_payload(&h, scratch->ptr, scratch->len, validate_record,
                              &v);
    }
    gr_buf_fini(&local);
    if (err == GR_KERR_CORRUPT_MESSAGE) {
        /* DefaultRecord.readFrom and the record iterator throw
         * InvalidRecordException for any malformed record */
        res->message = "Records are malformed.";
        return GR_KERR_INVALID_RECORD;
    }
    if (err != GR_KERR_NONE) {
        res->message = "Record offsets are invalid.";
        return err;
    }
    err = record_errors_done(&v);
    if (err != GR_KERR_NONE)
        return err;
    /* maxTimestamp and the timestamp type, as Kafka's setMaxTimestamp:
     * the broker clock for LogAppendTime, the records' max for
     * CreateTime; the CRC follows when anything changes */
    attrs = h.attributes;
    if (o->log_append_time) {
        if (h.max_timestamp != o->now_ms ||
            !(attrs & GR_ATTR_LOG_APPEND_TIME)) {
            gr_batch_set_max_timestamp(buf, o->now_ms);
            attrs |= GR_ATTR_LOG_APPEND_TIME;
            rewrite = true;
        }
        v.max_ts = o->now_ms;
    } else if (h.max_timestamp != v.max_ts ||
               (attrs & GR_ATTR_LOG_APPEND_TIME)) {
        gr_batch_set_max_timestamp(buf, v.max_ts);
        attrs &= (int16_t)~GR_ATTR_LOG_APPEND_TIME;
        rewrite = true;
    }
    if (rewrite) {
        gr_batch_set_attributes(buf, attrs);
        gr_batch_crc_stamp(buf, size);
    }
    res->max_timestamp = v.max_ts;
    res->records = h.count;
    res->producer_id = h.producer_id;
    res->producer_epoch = h.producer_epoch;
    res->base_sequence = h.base_sequence;
    res->last_sequence =
        h.base_sequence < 0
            ? -1
            : (int32_t)(((int64_t)h.base_sequence + h.last_offset_delta) &
                        0x7fffffff);
    res->transactional = (h.attributes & GR_ATTR_TRANSACTIONAL) != 0;
    return GR_KERR_NONE;
}

/* --- building */

void
gr_batch_builder_init(gr_batch_builder_t *b, int codec, int16_t attributes,
                      int64_t producer_id, int16_t producer_epoch,
                      int32_t base_sequence)
{
    memset(b, 0, sizeof *b);
    b->codec = codec;
    b->attributes = (int16_t)(attributes & ~GR_ATTR_CODEC_MASK);
    b->producer_id = producer_id;
    b->producer_epoch = producer_epoch;
    b->base_sequence = base_sequence;
    b->base_timestamp = -1;
    b->max_timestamp = -1;
    gr_buf_reserve(&b->raw, 256);
}

void
gr_records_put_varlong(gr_buf_t *out, int64_t v)
{
    uint8_t tmp[GR_VARLONG_MAX];
    gr_buf_append(out, tmp, gr_varlong_encode(tmp, v));
}

static size_t
varint_size(int64_t v)
{
    return gr_sz_varlong(v);
}

void
gr_batch_builder_add(gr_batch_builder_t *b, int64_t timestamp,
                     const gr_bytes_t *key, const gr_bytes_t *value,
                     int32_t headers_cnt, const uint8_t *headers,
                     size_t headers_len)
{
    int64_t tsd, body;
    if (b->count == 0)
        b->base_timestamp = timestamp;
    if (timestamp > b->max_timestamp)
        b->max_timestamp = timestamp;
    tsd = gr_sub_wrap(timestamp, b->base_timestamp); /* read back: wraps */
    body = 1 + (int64_t)varint_size(tsd) + (int64_t)varint_size(b->count) +
           (int64_t)varint_size(key->len) + (key->len > 0 ? key->len : 0) +
           (int64_t)varint_size(value->len) +
           (value->len > 0 ? value->len : 0) +
           (int64_t)varint_size(headers_cnt) + (int64_t)headers_len;
    gr_records_put_varlong(&b->raw, body);
    gr_buf_putc(&b->raw, 0); /* attributes */
    gr_records_put_varlong(&b->raw, tsd);
    gr_records_put_varlong(&b->raw, b->count);
    gr_records_put_varlong(&b->raw, key->len);
    if (key->len > 0)
        gr_buf_append(&b->raw, key->ptr, (size_t)key->len);
    gr_records_put_varlong(&b->raw, value->len);
    if (value->len > 0)
        gr_buf_append(&b->raw, value->ptr, (size_t)value->len);
    gr_records_put_varlong(&b->raw, headers_cnt);
    if (headers_len)
        gr_buf_append(&b->raw, headers, headers_len);
    b->count++;
}

int
gr_batch_builder_finish(gr_batch_builder_t *b, int64_t base_offset,
                        gr_buf_t *out)
{
    size_t start = out->len;
    gr_batch_hdr_t h;
    int rc;

    if (b->raw.oom)
        return GR_ERR_NOMEM;
    if (gr_buf_reserve(out, GR_BATCH_HEADER_SIZE) != 0)
        return GR_ERR_NOMEM;
    out->len += GR_BATCH_HEADER_SIZE;
    if (b->codec == GR_CODEC_NONE) {
        gr_buf_append(out, b->raw.ptr, b->raw.len);
    } else {
        rc = gr_compress(b->codec, b->raw.ptr, b->raw.len, out, GR_COMPRESS_LEVEL_DEFAULT, 0);
        if (rc != 0) {
            out->len = start;
            return rc;
        }
    }
    if (out->oom)
        return GR_ERR_NOMEM;
    h.base_offset = base_offset;
    h.leader_epoch = -1;
    h.attributes = (int16_t)(b->attributes | (b->codec & GR_ATTR_CODEC_MASK));
    h.last_offset_delta = b->count > 0 ? b->count - 1 : 0;
    h.base_timestamp = b->base_timestamp;
    h.max_timestamp = b->max_timestamp;
    h.producer_id = b->producer_id;
    h.producer_epoch = b->producer_epoch;
    h.base_sequence = b->base_sequence;
    h.count = b->count;
    gr_batch_hdr_write(out->ptr + start, out->len - start, &h);
    return 0;
}

void
gr_batch_builder_fini(gr_batch_builder_t *b)
{
    gr_buf_fini(&b->raw);
}

int
gr_control_batch(gr_buf_t *out, int64_t producer_id, int16_t epoch, int type,
                 int32_t coordinator_epoch, int64_t timestamp)
{
    gr_batch_builder_t b;
    uint8_t k[4], v[6];
    gr_bytes_t key = {k, 4}, value = {v, 6};
    int rc;
    gr_put_u16(k, 0);
    gr_put_u16(k + 2, (uint16_t)type);
    gr_put_u16(v, 0);
    gr_put_u32(v + 2, (uint32_t)coordinator_epoch);
    gr_batch_builder_init(&b, GR_CODEC_NONE,
                          GR_ATTR_TRANSACTIONAL | GR_ATTR_CONTROL, producer_id,
                          epoch, -1);
    gr_batch_builder_add(&b, timestamp, &key, &value, 0, NULL, 0);
    rc = gr_batch_builder_finish(&b, 0, out);
    gr_batch_builder_fini(&b);
    return rc;
}

/* --- legacy message sets */

#define LEGACY_HDR 12 /* offset + size */

typedef struct legacy_state {
    const gr_validate_opts_t *o;
    gr_validate_result_t *res;
    gr_batch_builder_t *b;
    int codec;        /* first wrapper codec seen, -1 none yet */
    int64_t count;
} legacy_state_t;

/* The converted records passed o->max_decompressed. */
static gr_kerr_t
legacy_over_limit(legacy_state_t *st)
{
    gr_validate_result_t *res = st->res;
    snprintf(res->why, sizeof res->why,
             "The message set converts to more than %zu bytes.",
             st->o->max_decompressed);
    res->message = res->why;
    res->over_limit = true;
    return GR_KERR_MESSAGE_TOO_LARGE;
}

/* Parses one legacy message (crc .. value) of size n; appends its records
 * (unwrapping a compressed wrapper once) to the builder. */
static gr_kerr_t
legacy_message(legacy_state_t *st, const uint8_t *m, size_t n, int depth,
               int64_t wrapper_ts)
{
    gr_reader_t r = gr_reader_init(m, n);
    uint32_t crc = gr_rd_u32(&r);
    int8_t magic = gr_rd_i8(&r);
    int8_t attrs = gr_rd_i8(&r);
    int64_t ts = -1;
    gr_bytes_t key, value;
    int codec;

    if (r.err || (magic != 0 && magic != 1))
        return GR_KERR_CORRUPT_MESSAGE;
    if (gr_crc32(m + 4, n - 4) != crc) {
        st->res->message = "Message failed its CRC-32 check.";
        return GR_KERR_CORRUPT_MESSAGE;
    }
    if (magic == 1)
        ts = gr_rd_i64(&r);
    /* a LogAppendTime wrapper's timestamp stands for its inner messages */
    if (depth > 0 && wrapper_ts >= 0)
        ts = wrapper_ts;
    gr_rd_bytes(&r, &key, 0, 1);
    gr_rd_bytes(&r, &value, 0, 1);
    if (r.err || gr_reader_remaining(&r) != 0)
        return GR_KERR_CORRUPT_MESSAGE;
    codec = attrs & GR_ATTR_CODEC_MASK;
    if (codec == GR_CODEC_NONE) {
        if (st->o->compacted && key.len < 0) {
            st->res->message =
                "Compacted topic cannot accept message without key.";
            return GR_KERR_INVALID_RECORD;
        }
        if (st->count == 0 && depth == 0 && st->codec < 0)
            st->codec = GR_CODEC_NONE;
        gr_batch_builder_add(st->b, ts, &key, &value, 0, NULL, 0);
        st->count++;
        if (st->b->raw.len > st->o->max_decompressed)
            return legacy_over_limit(st);
        return GR_KERR_NONE;
    }
    /* a compressed wrapper: its value is an inner message set */
    if (depth > 0 || codec > GR_CODEC_LZ4 || value.len < 0) {
        st->res->message = "Invalid compressed legacy message.";
        return GR_KERR_CORRUPT_MESSAGE;
    }
    if (st->codec < 0)
        st->codec = codec;
    else if (st->codec != codec)
        st->codec = GR_CODEC_NONE;
    {
        gr_buf_t inner = GR_BUF_INIT;
        gr_kerr_t err = GR_KERR_NONE;
        size_t pos = 0, used = st->b->raw.len, max = st->o->max_decompressed;
        gr_err_t rc;
        /* what is left of the bound: the inner set and the records it
         * converts to never hold more than twice the bound together */
        rc = gr_decompress(codec, value.ptr, (size_t)value.len, &inner,
                           used < max ? max - used : 0);
        if (rc != 0) {
            gr_buf_fini(&inner);
            if (rc == GR_ERR_TOO_LARGE)
                return legacy_over_limit(st);
            st->res->message = "Compressed legacy message does not "
                               "decompress.";
            return GR_KERR_CORRUPT_MESSAGE;
        }
        while (pos < inner.len && err == GR_KERR_NONE) {
            uint32_t size;
            if (inner.len - pos < LEGACY_HDR) {
                err = GR_KERR_CORRUPT_MESSAGE;
                break;
            }
            size = gr_get_u32(inner.ptr + pos + 8);
            if (size < 14 || size > inner.len - pos - LEGACY_HDR) {
                err = GR_KERR_CORRUPT_MESSAGE;
                break;
            }
            err = legacy_message(st, inner.ptr + pos + LEGACY_HDR, size, 1,
                                 (attrs & GR_ATTR_LOG_APPEND_TIME) ? ts : -1);
            pos += LEGACY_HDR + size;
        }
        gr_buf_fini(&inner);
        return err;
    }
}

gr_kerr_t
gr_legacy_to_v2(const uint8_t *buf, size_t n, const gr_validate_opts_t *o,
                int codec, gr_buf_t *out, gr_validate_result_t *res)
{
    gr_batch_builder_t b;
    legacy_state_t st;
    size_t pos = 0;
    gr_kerr_t err = GR_KERR_NONE;
    int magic = gr_records_magic(buf, n);

    memset(res, 0, sizeof *res);
    res->max_timestamp = -1;
    res->producer_id = -1;
    res->producer_epoch = -1;
    res->base_sequence = -1;
    res->last_sequence = -1;
    res->bad_record = -1;
    if (magic != 0 && magic != 1) {
        res->message = "Unknown message format.";
        return GR_KERR_CORRUPT_MESSAGE;
    }
    /* the codec of the new batch is decided after parsing: build
     * uncompressed, recompress at the end */
    gr_batch_builder_init(&b, GR_CODEC_NONE, 0, -1, -1, -1);
    memset(&st, 0, sizeof st);
    st.o = o;
    st.res = res;
    st.b = &b;
    st.codec = -1;
    while (pos < n) {
        uint32_t size;
        if (n - pos < LEGACY_HDR) {
            err = GR_KERR_CORRUPT_MESSAGE;
            break;
        }
        size = gr_get_u32(buf + pos + 8);
        if (size < 14 || size > n - pos - LEGACY_HDR) {
            err = GR_KERR_CORRUPT_MESSAGE;
            break;
        }
        if ((size_t)size + LEGACY_HDR > (size_t)o->max_message_bytes) {
            res->message = "The message is larger than max.message.bytes.";
            err = GR_KERR_MESSAGE_TOO_LARGE;
            break;
        }
        if (gr_records_magic(buf + pos, n - pos) != magic) {
            res->message = "All messages must have the same magic.";
            err = GR_KERR_INVALID_RECORD;
            break;
        }
        err = legacy_message(&st, buf + pos + LEGACY_HDR, size, 0, -1);
        if (err != GR_KERR_NONE)
            break;
        pos += LEGACY_HDR + size;
    }
    if (err == GR_KERR_NONE && st.count == 0) {
        res->message = "The message set holds no messages.";
        err = GR_KERR_INVALID_RECORD;
    }
    if (err == GR_KERR_NONE) {
        int64_t ts = o->log_append_time ? o->now_ms : b.max_timestamp;
        if (o->log_append_time)
            b.attributes |= GR_ATTR_LOG_APPEND_TIME;
        b.codec = codec >= 0 ? codec : st.codec < 0 ? GR_CODEC_NONE : st.codec;
        b.max_timestamp = ts;
        if (gr_batch_builder_finish(&b, 0, out) != 0) {
            res->message = "Converting the message set failed.";
            err = GR_KERR_CORRUPT_MESSAGE;
        } else {
            res->batches = 1;
            res->records = st.count;
            res->max_timestamp = ts;
        }
    } else if (res->message == NULL) {
        res->message = "Malformed legacy message set.";
    }
    res->inflated = res->over_limit ? o->max_decompressed : b.raw.len;
    gr_batch_builder_fini(&b);
    return err;
}

typedef struct down_state {
    gr_buf_t *out;
    int magic;
    bool log_append_time;
    int64_t batch_max_ts;
} down_state_t;

static int
down_record(void *arg, const gr_batch_hdr_t *h, const gr_record_t *rec)
{
    down_state_t *d = arg;
    gr_buf_t *out = d->out;
    size_t start = out->len, msize;
    uint8_t hdr[LEGACY_HDR + 6 + 8];
    int hn;
    (void)h;
    /* offset, size, crc, magic, attributes, [timestamp], key, value */
    gr_put_u64(hdr, (uint64_t)rec->offset);
    hdr[16] = (uint8_t)d->magic;
    hdr[17] = (uint8_t)(d->magic == 1 && d->log_append_time
                            ? GR_ATTR_LOG_APPEND_TIME
                            : 0);
    hn = 18;
    if (d->magic == 1) {
        gr_put_u64(hdr + 18, (uint64_t)(d->log_append_time ? d->batch_max_ts
                                                            : rec->timestamp));
        hn = 26;
    }
    gr_buf_append(out, hdr, (size_t)hn);
    {
        uint8_t l[4];
        gr_put_u32(l, (uint32_t)rec->key.len);
        gr_buf_append(out, l, 4);
        if (rec->key.len > 0)
            gr_buf_append(out, rec->key.ptr, (size_t)rec->key.len);
        gr_put_u32(l, (uint32_t)rec->value.len);
        gr_buf_append(out, l, 4);
        if (rec->value.len > 0)
            gr_buf_append(out, rec->value.ptr, (size_t)rec->value.len);
    }
    if (out->oom)
        return 1;
    msize = out->len - start - LEGACY_HDR;
    gr_put_u32(out->ptr + start + 8, (uint32_t)msize);
    gr_put_u32(out->ptr + start + 12,
               gr_crc32(out->ptr + start + 16, msize - 4));
    return 0;
}

gr_kerr_t
gr_records_down_convert(const uint8_t *buf, size_t n, int magic,
                        size_t max_bytes, size_t max_decompressed,
                        gr_buf_t *out)
{
    size_t used;
    return gr_records_down_convert_part(buf, n, magic, max_bytes,
                                        max_decompressed, true, out, &used);
}

gr_kerr_t
gr_records_down_convert_part(const uint8_t *buf, size_t n, int magic,
                             size_t max_bytes, size_t max_decompressed,
                             bool first_whole, gr_buf_t *out, size_t *used)
{
    size_t pos = 0;
    gr_buf_t scratch = GR_BUF_INIT;
    gr_kerr_t err = GR_KERR_NONE;
    bool first = first_whole;

    while (pos + GR_BATCH_HEADER_SIZE <= n) {
        gr_batch_hdr_t h;
        down_state_t d;
        size_t before = out->len;
        gr_batch_hdr_parse(buf + pos, &h);
        if (h.magic != 2 || h.length < 0 || gr_batch_size(&h) > n - pos)
            break; /* a trailing partial batch */
        if (!(h.attributes & GR_ATTR_CONTROL)) {
            d.out = out;
            d.magic = magic;
            d.log_append_time = (h.attributes & GR_ATTR_LOG_APPEND_TIME) != 0;
            d.batch_max_ts = h.max_timestamp;
            err =
                gr_batch_foreach_record(buf + pos, gr_batch_size(&h), &scratch,
                                        max_decompressed, down_record, &d);
            if (err != GR_KERR_NONE || out->oom) {
                out->len = before;
                break;
            }
            if (!first && out->len > max_bytes) {
                out->len = before;
                break;
            }
            first = false;
        }
        pos += gr_batch_size(&h);
    }
    gr_buf_fini(&scratch);
    *used = pos;
    return out->oom ? GR_KERR_UNKNOWN_SERVER_ERROR : err;
}
