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

static inline int64_t
gr_batch_last_offset(const gr_batch_hdr_t *h)
{
    return h->base_offset + h->last_offset_delta;
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

/* Sets baseOffset, partitionLeaderEpoch (outside the CRC) in place. */
void gr_batch_set_base_offset(uint8_t *batch, int64_t base_offset);
void gr_batch_set_leader_epoch(uint8_t *batch, int32_t epoch);

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

#endif
