/*
 * The protocol table: per API key its name, valid and servable versions, the
 * first flexible version and the generated codec of each direction; per data
 * type likewise. Generated into src/proto/gen/proto_table.c. Also the request
 * and response header codecs (header.c), whose versions follow from the table.
 */
#ifndef GR_PROTO_PROTO_H
#define GR_PROTO_PROTO_H

#include "proto/wire.h"

typedef void (*gr_proto_init_fn)(void *m);
typedef int (*gr_proto_decode_fn)(gr_reader_t *r, int16_t ver, gr_arena_t *a,
                                  void *m);
typedef size_t (*gr_proto_size_fn)(const void *m, int16_t ver);
typedef void (*gr_proto_encode_fn)(gr_writer_t *w, const void *m, int16_t ver);
typedef void (*gr_proto_print_fn)(gr_buf_t *b, const void *m, int16_t ver);

typedef struct gr_proto_ops {
    size_t struct_size;
    gr_proto_init_fn init;
    gr_proto_decode_fn decode;
    gr_proto_size_fn size;
    gr_proto_encode_fn encode;
    gr_proto_print_fn print;
} gr_proto_ops_t;

typedef struct gr_proto_api {
    int16_t key;
    const char *name;   /* Kafka's name, e.g. "InitProducerId" */
    int16_t min_ver;    /* lowest valid version */
    int16_t stable_max; /* highest version that may be served */
    int16_t max_ver;    /* highest valid version (may be unstable) */
    int16_t flex_ver;   /* first flexible version, -1 if none */
    gr_proto_ops_t request;
    gr_proto_ops_t response;
    /* the response's top-level throttle_time_ms (an int32_t at that
     * offset of the response struct) and its first version; -1 when the
     * response has none */
    int32_t throttle_off;
    int16_t throttle_ver;
} gr_proto_api_t;

typedef struct gr_proto_data {
    const char *name;
    int16_t min_ver;
    int16_t max_ver;
    int16_t flex_ver;
    gr_proto_ops_t ops;
} gr_proto_data_t;

/* NULL for keys without a schema. */
const gr_proto_api_t *gr_proto_api(int key);
/* Iteration over every API / data type, NULL past the end. */
const gr_proto_api_t *gr_proto_api_at(int i);
const gr_proto_data_t *gr_proto_data_at(int i);

/* Request header: v1 (key, version, correlation id, nullable client id) or v2
 * (v1 + tagged fields; the client id stays a non-compact string). v0 (no
 * client id) is used only by ControlledShutdown v0. */
typedef struct gr_req_header {
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id;
    gr_str_t client_id;
} gr_req_header_t;

/* Header version of a request (1 or 2) and its response (0 or 1), decided
 * from the key and version alone, as Kafka does, even for versions the
 * broker does not serve. Unknown keys: 1 and 0. ApiVersions responses are
 * always header v0 (KIP-511). */
int gr_proto_req_header_version(int16_t key, int16_t ver);
int gr_proto_resp_header_version(int16_t key, int16_t ver);

/* Decodes a request header from r (positioned at the frame start, after the
 * size). Returns 0 or a GR_ERR_*. */
int gr_req_header_decode(gr_reader_t *r, gr_req_header_t *h);
size_t gr_req_header_size(const gr_req_header_t *h);
void gr_req_header_encode(gr_writer_t *w, const gr_req_header_t *h);
/* Response header: correlation id, plus an empty tag section in v1. */
size_t gr_resp_header_size(int hver);
void gr_resp_header_encode(gr_writer_t *w, int hver, int32_t correlation_id);

#endif
