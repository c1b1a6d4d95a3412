/*
 * Record batches (magic 2) and legacy message sets (magic 0 and 1): the
 * formats of Produce request records, Fetch response records and segment
 * files. Facts: ../shared/reference/record-format.md.
 *
 * RecordBatch v2 header (big-endian), 61 bytes:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    8 baseOffset            (assigned by the broker)
 *        8    4 batchLength           (bytes after this field)
 *       12    4 partitionLeaderEpoch  (not covered by the CRC)
 *       16    1 magic                 (2)
 *       17    4 crc                   (CRC-32C of bytes 21..end)
 *       21    2 attributes            (codec 0-2, timestamp type 3,
 *                                      transactional 4, control 5,
 *                                      delete horizon 6)
 *       23    4 lastOffsetDelta
 *       27    8 baseTimestamp
 *       35    8 maxTimestamp
 *       43    8 producerId
 *       51    2 producerEpoch
 *       53    4 baseSequence
 *       57    4 recordsCount
 *       61      records (compressed as one stream when the codec is set)
 */
#ifndef GR_PROTO_RECORDS_H
#define GR_PROTO_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/str.h"
#include "proto/kerr.h"

#define GR_BATCH_HEADER_SIZE  61
#define GR_LOG_OVERHEAD       12 /* baseOffset + batchLength */
#define GR_MAGIC_OFFSET       16

#define GR_BATCH_OFF_BASE_OFFSET   0
#define GR_BATCH_OFF_LENGTH        8
#define GR_BATCH_OFF_LEADER_EPOCH  12
#define GR_BATCH_OFF_MAGIC         16
#define GR_BATCH_OFF_CRC           17
#define GR_BATCH_OFF_ATTRIBUTES    21
#define GR_BATCH_OFF_LAST_DELTA    23
#define GR_BATCH_OFF_BASE_TS       27
#define GR_BATCH_OFF_MAX_TS        35
#define GR_BATCH_OFF_PRODUCER_ID   43
#define GR_BATCH_OFF_EPOCH         51
#define GR_BATCH_OFF_BASE_SEQ      53
#define GR_BATCH_OFF_COUNT         57

#define GR_ATTR_CODEC_MASK     0x07
#define GR_ATTR_LOG_APPEND_TIME 0x08
#define GR_ATTR_TRANSACTIONAL  0x10
#define GR_ATTR_CONTROL        0x20
#define GR_ATTR_DELETE_HORIZON 0x40

enum gr_codec {
    GR_CODEC_NONE = 0,
    GR_CODEC_GZIP = 1,
    GR_CODEC_SNAPPY = 2,
    GR_CODEC_LZ4 = 3,
    GR_CODEC_ZSTD = 4,
};

/* Control record types (key = version int16 0, type int16). */
#define GR_CONTROL_ABORT  0
#define GR_CONTROL_COMMIT 1

/* A parsed v2 batch header. */
typedef struct gr_batch_hdr {
    int64_t base_offset;
    int32_t length;          /* batchLength: total size is length + 12 */
    int32_t leader_epoch;
    int8_t magic;
    uint32_t crc;
    int16_t attributes;
    int32_t last_offset_delta;
    int64_t base_timestamp;
    int64_t max_timestamp;
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t base_sequence;
    int32_t count;
} gr_batch_hdr_t;

/* a + b and a - b as Java computes them (two's complement wrap-around):
 * record fields are deltas that hostile bytes can push past INT64_MAX, and
 * Kafka's readers wrap there too. */
static inline int64_t
gr_add_wrap(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a + (uint64_t)b);
}

static inline int64_t
gr_sub_wrap(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* Callers check the batch's offsets do not wrap (stored batches:
 * gr_scan_next, gr_segment_recover; produced ones get broker offsets). */
static inline int64_t
gr_batch_last_offset(const gr_batch_hdr_t *h)
{
    return gr_add_wrap(h->base_offset, h->last_offset_delta);
}

static inline size_t
gr_batch_size(const gr_batch_hdr_t *h)
{
    return (size_t)h->length + GR_LOG_OVERHEAD;
}

static inline int
gr_batch_codec(const gr_batch_hdr_t *h)
{
    return h->attributes & GR_ATTR_CODEC_MASK;
}

/* Parses the 61-byte header at p (n bytes available, >= 61). No checks
 * beyond the size; magic must be checked by the caller (byte 16). */
void gr_batch_hdr_parse(const uint8_t *p, gr_batch_hdr_t *h);

/* --- rewriting a batch in place: the one set of functions that changes
 * batch bytes (the log stamps offsets and epochs on append, the produce
 * path maxTimestamp and the timestamp type, the builder and the cleaner
 * whole headers). Whatever changes bytes 21 on must end with
 * gr_batch_crc_stamp(), or be written by gr_batch_hdr_write(). */

/* Sets baseOffset, partitionLeaderEpoch (outside the CRC) in place. */
void gr_batch_set_base_offset(uint8_t *batch, int64_t base_offset);
void gr_batch_set_leader_epoch(uint8_t *batch, int32_t epoch);
/* Sets maxTimestamp, attributes (inside the CRC: stamp it afterwards). */
void gr_batch_set_max_timestamp(uint8_t *batch, int64_t max_timestamp);
void gr_batch_set_attributes(uint8_t *batch, int16_t attributes);
/* Writes the CRC-32C of bytes 21..size into the crc field. */
void gr_batch_crc_stamp(uint8_t *batch, size_t size);
/* Writes the whole 61-byte header of the size-byte batch at batch from h
 * (batchLength from size, magic 2; h's length, magic and crc are not
 * read), then stamps the CRC over the records already in place. */
void gr_batch_hdr_write(uint8_t *batch, size_t size, const gr_batch_hdr_t *h);

/* --- checking stored batches (recovery) */

/* Smallest batchLength a v2 batch can have: the header after the length. */
#define GR_BATCH_MIN_LENGTH (GR_BATCH_HEADER_SIZE - GR_LOG_OVERHEAD)

/* CRC-32C of bytes 21..size of the batch at p (what its crc field holds). */
uint32_t gr_batch_crc_compute(const uint8_t *batch, size_t size);

/* Checks the batch at p, n bytes available: a sane batchLength, magic 2,
 * lastOffsetDelta >= 0, and (when the whole batch is in n) its CRC-32C.
 * 0 when valid; GR_ERR_TRUNCATED when n holds less than the header or the
 * batch (*size says how much is needed once the length is known);
 * GR_ERR_CORRUPT with *why (a static string) otherwise. */
int gr_batch_check(const uint8_t *p, size_t n, size_t *size,
                   const char **why);


/* ------------------------------------------------------------------ */
/* Records inside a batch                                              */

/* One record, as iterated: slices point into the batch (or into the
 * decompression buffer), valid during the callback. */
typedef struct gr_record {
    int64_t offset;     /* baseOffset + offsetDelta */
    int32_t offset_delta;
    int64_t timestamp;  /* baseTimestamp + timestampDelta */
    int8_t attributes;
    gr_bytes_t key;     /* len -1: null */
    gr_bytes_t value;   /* len -1: null (tombstone) */
    int32_t headers_cnt;
    const uint8_t *headers; /* raw: [keyLen key valueLen value]... */
    size_t headers_len;
} gr_record_t;

/* Return nonzero to stop the iteration. */
typedef int (*gr_record_cb)(void *arg, const gr_batch_hdr_t *h,
                            const gr_record_t *r);

/* Walks the records of one v2 batch (batch[0..n) is the whole batch),
 * decompressing into scratch when the batch is compressed (at most
 * max_bytes of output). Checks the structure of every record: lengths,
 * varints, offsetDeltas increasing and at most lastOffsetDelta (0..count-1
 * in a produced batch; a compacted one keeps the survivors' deltas),
 * exactly count records filling the batch.
 * Returns GR_KERR_NONE, CORRUPT_MESSAGE (malformed bytes or compressed
 * data), INVALID_RECORD (bad offsets or record count) or what cb asked
 * (cb returning nonzero stops with GR_KERR_NONE). */
gr_kerr_t gr_batch_foreach_record(const uint8_t *batch, size_t n,
                                  gr_buf_t *scratch, size_t max_bytes,
                                  gr_record_cb cb, void *arg);

/* ------------------------------------------------------------------ */
/* Validation of produced records (Kafka's LogValidator)               */

typedef struct gr_validate_opts {
    int16_t produce_version;
    int32_t max_message_bytes;   /* max.message.bytes */
    bool log_append_time;        /* message.timestamp.type=LogAppendTime */
    int64_t now_ms;              /* broker clock for LogAppendTime */
    bool compacted;              /* cleanup.policy has compact: keys needed */
    int64_t ts_before_max_ms;    /* message.timestamp.before.max.ms */
    int64_t ts_after_max_ms;     /* message.timestamp.after.max.ms */
    /* the most bytes the records may take once decompressed (a v2 batch)
     * or converted (a legacy message set); past it MESSAGE_TOO_LARGE with
     * over_limit set in the result */
    size_t max_decompressed;
    gr_buf_t *scratch;           /* reused for decompression, or NULL */
    const char *topic;           /* for record errors' messages, or NULL */
    int32_t partition;
} gr_validate_opts_t;

/* One rejected record (KIP-467): its index in the batch and why. */
typedef struct gr_record_error {
    int32_t index;
    const char *message; /* in the arena given to gr_records_validate() */
} gr_record_error_t;

typedef struct gr_validate_result {
    int32_t batches;    /* 1 once the request checks pass */
    size_t valid_bytes; /* the batch's: what the log takes */
    int64_t records;
    int64_t max_timestamp;
    int64_t producer_id;      /* of the (last) batch, -1 none */
    int16_t producer_epoch;
    int32_t base_sequence;
    int32_t last_sequence;
    bool transactional;
    /* bytes the records took once decompressed (0 for an uncompressed
     * batch) or, for a legacy message set, converted; over_limit: that
     * passed max_decompressed (the error is MESSAGE_TOO_LARGE) */
    size_t inflated;
    bool over_limit;
    /* why, when not NONE, for log lines (static, arena or why[]); what
     * Kafka answers as the error message is the record errors' message
     * only (nrecord_errors > 0) */
    const char *message;
    char why[160];
    int32_t bad_record;       /* index of the first offending record, or -1 */
    /* Every record rejected on its own (no key on a compacted topic, a
     * timestamp out of bounds), as Kafka's LogValidator collects them; the
     * list is NULL when no arena was given, the count still kept. */
    gr_record_error_t *record_errors;
    int32_t nrecord_errors;
} gr_validate_result_t;

/* Kafka's ByteBufferLogInputStream.nextBatch on buf[pos..n): 1 with
 * *size when a whole batch (or legacy message) starts at pos, 0 when what
 * is left holds none (too short for the size it declares, or for the size
 * and magic fields: the rest is ignored), -1 when its size field is below
 * 14 or its magic is outside 0-2 (Kafka's CorruptRecordException; why, if
 * not NULL, gets the exception's message). */
#define GR_RECORD_MIN_LENGTH 14 /* Records.LOG_OVERHEAD + 2 */
int gr_records_next_batch(const uint8_t *buf, size_t n, size_t pos,
                          size_t *size, char *why, size_t whysz);

/* Kafka's first look at a Produce partition (RequestUtils
 * .hasTransactionalRecords, before any other check of the request): 1 when
 * the first batch is whole, of magic 2 and transactional, 0 when not or
 * when there is no whole batch, -1 as gr_records_next_batch (Kafka then
 * fails the whole request with CORRUPT_MESSAGE). */
int gr_records_first_transactional(const uint8_t *buf, size_t n, char *why,
                                   size_t whysz);

/* Kafka's ProduceRequest.validateRecords (also applied below v3, where
 * LogValidator takes one magic-2 batch only too): NONE with *size the
 * first batch's bytes (trailing bytes that make no whole batch are left
 * out, as Kafka's trimInvalidBytes drops them); INVALID_RECORD (no whole
 * batch, a magic other than 2, a second batch), CORRUPT_MESSAGE (a size
 * below 14 or a magic outside 0-2), UNSUPPORTED_COMPRESSION_TYPE (zstd
 * below v7), UNKNOWN_SERVER_ERROR (below v7, a codec id that does not
 * exist: Kafka's IllegalArgumentException, which fails the whole request).
 * why (if not NULL) says why, as Kafka's exception does. */
gr_kerr_t gr_records_check_produce(const uint8_t *buf, size_t n,
                                   int16_t version, size_t *size, char *why,
                                   size_t whysz);

/* What Kafka's ReplicaManager.handleProduceAppend reads of the one batch
 * batch[0..size) (magic 2): its producer id (-1: none), and for a
 * transactional batch with one its epoch. -1 when the batch is too short
 * for those fields (Kafka's IndexOutOfBoundsException, which fails the
 * whole request with UNKNOWN_SERVER_ERROR), else 0. */
int gr_records_producer(const uint8_t *batch, size_t size, int64_t *producer_id,
                        int16_t *producer_epoch, bool *transactional);

/* Validates a Produce partition's records in place, as Kafka does before
 * an append, in Kafka's order: gr_records_check_produce(); then for the
 * batch (UnifiedLog.analyzeAndValidateRecords) base offset 0
 * (INVALID_RECORD), no larger than max.message.bytes (MESSAGE_TOO_LARGE),
 * whole header and CRC-32C valid (CORRUPT_MESSAGE), a codec that exists
 * (UNKNOWN_SERVER_ERROR); then LogValidator: offset range and count
 * consistent, no control batch, a base sequence with a producer id
 * (INVALID_RECORD), every record well formed (INVALID_RECORD, as
 * DefaultRecord's InvalidRecordException; data that does not decompress
 * is UNKNOWN_SERVER_ERROR; data that inflates past o->max_decompressed
 * MESSAGE_TOO_LARGE, a bound of Gregor's: Kafka streams the records) and
 * accepted (keys present on compacted topics, timestamps within the
 * configured bounds: record errors, INVALID_RECORD or INVALID_TIMESTAMP). With
 * LogAppendTime it stamps maxTimestamp and the timestamp-type bit and
 * recomputes the CRC (buf is modified). Returns the Kafka error for the
 * partition. */
gr_kerr_t gr_records_validate(uint8_t *buf, size_t n,
                              const gr_validate_opts_t *o, gr_arena_t *a,
                              gr_validate_result_t *res);

/* Magic of the first batch/message in buf (byte 16), -1 if too short. */
int gr_records_magic(const uint8_t *buf, size_t n);

/* ------------------------------------------------------------------ */
/* Building batches                                                    */

typedef struct gr_batch_builder {
    gr_buf_t raw;          /* 61-byte header room + uncompressed records */
    int codec;
    int16_t attributes;    /* without the codec bits */
    int64_t base_timestamp;
    int64_t max_timestamp;
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t base_sequence;
    int32_t count;
} gr_batch_builder_t;

/* attributes: GR_ATTR_* (no codec bits); producer_id -1 for none. */
void gr_batch_builder_init(gr_batch_builder_t *b, int codec, int16_t attributes,
                           int64_t producer_id, int16_t producer_epoch,
                           int32_t base_sequence);
/* headers: raw header bytes (gr_record_t.headers) and their count. */
void gr_batch_builder_add(gr_batch_builder_t *b, int64_t timestamp,
                          const gr_bytes_t *key, const gr_bytes_t *value,
                          int32_t headers_cnt, const uint8_t *headers,
                          size_t headers_len);
/* Writes the finished batch (compressed, CRC set, baseOffset base_offset)
 * to out. max_timestamp_override >= 0 sets maxTimestamp (LogAppendTime).
 * 0, or a GR_ERR_* (compression failed, out of memory). */
int gr_batch_builder_finish(gr_batch_builder_t *b, int64_t base_offset,
                            gr_buf_t *out);
void gr_batch_builder_fini(gr_batch_builder_t *b);

/* Appends the zigzag varint of v to out (gr_varlong_encode). */
void gr_records_put_varlong(gr_buf_t *out, int64_t v);

/* A control batch (COMMIT or ABORT marker) for a transaction. */
int gr_control_batch(gr_buf_t *out, int64_t producer_id, int16_t epoch,
                     int type, int32_t coordinator_epoch, int64_t timestamp);

/* ------------------------------------------------------------------ */
/* Legacy message sets (magic 0 and 1)                                 */

/* Converts a legacy message set (Produce v0-v2) to one v2 batch in out,
 * validating CRC-32 of each message and unwrapping compressed wrappers.
 * The new batch is compressed with codec (a GR_CODEC_*, the topic's
 * compression.type), or with codec -1 keeps the wrappers' codec (none when
 * mixed), as Kafka's LogValidator chooses. The records converted may take
 * at most o->max_decompressed bytes (each wrapper is inflated no further
 * than what is left of it): past it MESSAGE_TOO_LARGE with res->over_limit.
 * Returns the Kafka error; res as for gr_records_validate. */
gr_kerr_t gr_legacy_to_v2(const uint8_t *buf, size_t n,
                          const gr_validate_opts_t *o, int codec, gr_buf_t *out,
                          gr_validate_result_t *res);

/* Appends the records of v2 batches buf[0..n) to out as an uncompressed
 * legacy message set of magic 0 or 1 (Fetch v0-v3 down-conversion), with
 * absolute offsets; control batches are left out. A trailing partial batch
 * is ignored. Stops before out would pass max_bytes (but always converts
 * the first batch). A compressed batch is inflated to at most
 * max_decompressed bytes: the bound Produce stored it under (broker.h), so
 * that whatever Produce took converts. */
gr_kerr_t gr_records_down_convert(const uint8_t *buf, size_t n, int magic,
                                  size_t max_bytes, size_t max_decompressed,
                                  gr_buf_t *out);
/* The same for one part of a slice converted after another (Fetch's
 * conversion in slices): the first batch goes whole only when first_whole;
 * *used is the bytes of buf converted or skipped (whole batches: where it
 * stopped, at a partial batch, at max_bytes or at an error). */
gr_kerr_t gr_records_down_convert_part(const uint8_t *buf, size_t n,
                                       int magic, size_t max_bytes,
                                       size_t max_decompressed,
                                       bool first_whole, gr_buf_t *out,
                                       size_t *used);

#endif
