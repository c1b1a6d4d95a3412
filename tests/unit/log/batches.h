/*
 * Valid magic-2 record batches for tests (CRC-32C correct, offsets 0..n-1
 * relative, baseOffset 0 until a log assigns it). Shared by every suite that
 * needs records: log, produce, fetch.
 */
#ifndef GR_TESTS_BATCHES_H
#define GR_TESTS_BATCHES_H

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"

typedef struct gr_test_batch {
    int records;            /* >= 1 */
    int64_t base_ts;        /* first record's timestamp (-1: none) */
    int64_t ts_step;        /* added per record */
    int value_size;         /* bytes of each value (a pattern); key null */
    int64_t producer_id;    /* -1: none */
    int16_t producer_epoch; /* -1: none */
    int32_t base_sequence;  /* -1: none */
    int16_t attributes;     /* codec must be 0: records are not compressed */
} gr_test_batch_t;

/* Defaults: 1 record, timestamp 1000, 10-byte value, no producer. */
gr_test_batch_t gr_test_batch_defaults(void);
/* Appends one batch to out; returns its size in bytes. */
size_t gr_test_batch_append(gr_buf_t *out, const gr_test_batch_t *b);
/* One batch of n records, all with timestamp ts, value_size-byte values. */
size_t gr_test_batch(gr_buf_t *out, int records, int64_t ts, int value_size);
/* Number of valid batches (gr_batch_check) filling p..p+n exactly, or -1. */
int gr_test_batches_count(const uint8_t *p, size_t n);

#endif
