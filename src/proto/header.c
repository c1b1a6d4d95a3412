/*
 * Request and response headers. Their versions follow from the API's flexible
 * versions (proto_table.c), with Kafka's quirks: ApiVersions responses carry
 * a v0 header whatever the request version, and the client id of a v2 header
 * is a classic (non-compact) nullable string.
 */
#include "proto/proto.h"
#include "proto/gen/api_keys.h"

int
gr_proto_req_header_version(int16_t key, int16_t ver)
{
    const gr_proto_api_t *api = gr_proto_api(key);
    if (api != NULL && api->flex_ver >= 0 && ver >= api->flex_ver)
        return 2;
    return 1;
}

int
gr_proto_resp_header_version(int16_t key, int16_t ver)
{
    if (key == GR_API_API_VERSIONS)
        return 0;
    return gr_proto_req_header_version(key, ver) == 2 ? 1 : 0;
}

int
gr_req_header_decode(gr_reader_t *r, gr_req_header_t *h)
{
    h->api_key = gr_rd_i16(r);
    h->api_version = gr_rd_i16(r);
    h->correlation_id = gr_rd_i32(r);
    gr_rd_str(r, &h->client_id, 0, 1);
    if (!r->err && gr_proto_req_header_version(h->api_key, h->api_version) == 2)
        gr_rd_skip_tags(r);
    return r->err;
}

size_t
gr_req_header_size(const gr_req_header_t *h)
{
    size_t n = 8 + gr_sz_str(&h->client_id, 0);
    if (gr_proto_req_header_version(h->api_key, h->api_version) == 2)
        n += 1;
    return n;
}

void
gr_req_header_encode(gr_writer_t *w, const gr_req_header_t *h)
{
    gr_wr_i16(w, h->api_key);
    gr_wr_i16(w, h->api_version);
    gr_wr_i32(w, h->correlation_id);
    gr_wr_str(w, &h->client_id, 0, 1);
    if (gr_proto_req_header_version(h->api_key, h->api_version) == 2)
        gr_wr_uvarint(w, 0);
}

size_t
gr_resp_header_size(int hver)
{
    return hver >= 1 ? 5 : 4;
}

void
gr_resp_header_encode(gr_writer_t *w, int hver, int32_t correlation_id)
{
    gr_wr_i32(w, correlation_id);
    if (hver >= 1)
        gr_wr_uvarint(w, 0);
}
