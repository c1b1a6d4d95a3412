/*
 * Test support, not linked into the broker: per message a generated
 * function that fills every field with deterministic values derived from a
 * seed (arrays of 0-2 elements, nulls where nullable), for all-versions
 * round-trip tests and fuzz seed corpora. Generated into
 * src/proto/gen/proto_fill.c.
 */
#ifndef GR_PROTO_PROTO_FILL_H
#define GR_PROTO_PROTO_FILL_H

#include "proto/proto.h"

typedef void (*gr_proto_fill_fn)(void *m, gr_arena_t *a, uint32_t seed);

typedef struct gr_proto_fill {
    int key;          /* api key; -1 for a data type; -2 ends the table */
    const char *data; /* data type name */
    gr_proto_fill_fn request; /* or the data type */
    gr_proto_fill_fn response;
} gr_proto_fill_t;

const gr_proto_fill_t *gr_proto_fills(void);

#endif
