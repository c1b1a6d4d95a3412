/* Test record batches: see batches.h. Records follow
 * ../shared/reference/record-format.md (zigzag varints). */
#include "batches.h"

#include "core/crc32c.h"
#include "proto/records.h"
#include "proto/wire.h"

#include <stdlib.h>
#include <string.h>

static void
put_varlong(gr_buf_t *b, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    uint8_t tmp[10];
    size_t n = 0;
    while (z >= 0x80) {
        tmp[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    tmp[n++] = (uint8_t)z;
    gr_buf_append(b, tmp, n);
}

gr_test_batch_t
gr_test_batch_defaults(void)
{
    gr_test_batch_t b;
    memset(&b, 0, sizeof b);
    b.records = 1;
    b.base_ts = 1000;
    b.value_size = 10;
    b.producer_id = -1;
    b.producer_epoch = -1;
    b.base_sequence = -1;
    return b;
}

size_t
gr_test_batch_append(gr_buf_t *out, const gr_test_batch_t *b)
{
    gr_buf_t rec = GR_BUF_INIT, body = GR_BUF_INIT;
    uint8_t hdr[GR_BATCH_HEADER_SIZE];
    int64_t max_ts = -1;
    size_t start = out->len, size;

    /* records */
    for (int i = 0; i < b->records; i++) {
        int64_t ts = b->base_ts < 0 ? -1 : b->base_ts + i * b->ts_step;
        gr_buf_reset(&rec);
        gr_buf_putc(&rec, 0); /* attributes */
        put_varlong(&rec, b->base_ts < 0 ? 0 : ts - b->base_ts);
        put_varlong(&rec, i);  /* offsetDelta */
        put_varlong(&rec, -1); /* null key */
        put_varlong(&rec, b->value_size);
        for (int k = 0; k < b->value_size; k++)
            gr_buf_putc(&rec, (char)('a' + (i + k) % 26));
        put_varlong(&rec, 0); /* no headers */
        put_varlong(&body, (int64_t)rec.len);
        gr_buf_append(&body, rec.ptr, rec.len);
        if (ts > max_ts)
            max_ts = ts;
    }

    size = GR_BATCH_HEADER_SIZE + body.len;
    memset(hdr, 0, sizeof hdr);
    gr_put_u64(hdr + GR_BATCH_OFF_BASE_OFFSET, 0);
    gr_put_u32(hdr + GR_BATCH_OFF_LENGTH, (uint32_t)(size - GR_LOG_OVERHEAD));
    gr_put_u32(hdr + GR_BATCH_OFF_LEADER_EPOCH, (uint32_t)-1);
    hdr[GR_BATCH_OFF_MAGIC] = 2;
    gr_put_u16(hdr + GR_BATCH_OFF_ATTRIBUTES, (uint16_t)b->attributes);
    gr_put_u32(hdr + GR_BATCH_OFF_LAST_DELTA, (uint32_t)(b->records - 1));
    gr_put_u64(hdr + GR_BATCH_OFF_BASE_TS, (uint64_t)b->base_ts);
    gr_put_u64(hdr + GR_BATCH_OFF_MAX_TS, (uint64_t)max_ts);
    gr_put_u64(hdr + GR_BATCH_OFF_PRODUCER_ID, (uint64_t)b->producer_id);
    gr_put_u16(hdr + GR_BATCH_OFF_EPOCH, (uint16_t)b->producer_epoch);
    gr_put_u32(hdr + GR_BATCH_OFF_BASE_SEQ, (uint32_t)b->base_sequence);
    gr_put_u32(hdr + GR_BATCH_OFF_COUNT, (uint32_t)b->records);
    gr_buf_append(out, hdr, sizeof hdr);
    gr_buf_append(out, body.ptr, body.len);
    if (!out->oom)
        gr_put_u32(out->ptr + start + GR_BATCH_OFF_CRC,
                   gr_batch_crc_compute(out->ptr + start, size));
    gr_buf_fini(&rec);
    gr_buf_fini(&body);
    return size;
}

size_t
gr_test_batch(gr_buf_t *out, int records, int64_t ts, int value_size)
{
    gr_test_batch_t b = gr_test_batch_defaults();
    b.records = records;
    b.base_ts = ts;
    b.value_size = value_size;
    return gr_test_batch_append(out, &b);
}

int
gr_test_batches_count(const uint8_t *p, size_t n)
{
    int count = 0;
    while (n > 0) {
        const char *why;
        size_t size;
        if (gr_batch_check(p, n, &size, &why) != 0)
            return -1;
        p += size;
        n -= size;
        count++;
    }
    return count;
}
