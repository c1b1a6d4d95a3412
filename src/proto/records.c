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

uint32_t
gr_batch_crc_compute(const uint8_t *batch, size_t size)
{
    return gr_crc32c(batch + GR_BATCH_OFF_ATTRIBUTES,
                     size - GR_BATCH_OFF_ATTRIBUTES);
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
