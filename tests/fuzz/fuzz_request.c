/*
 * Fuzz target "request": the protocol decoders. The input's first byte
 * picks what it is:
 *
 *   0xff key ver body   a response body (no header) of ApiKey `key` (an
 *                       unknown key: the API at index key % count of the
 *                       protocol table), version `ver` (taken modulo the
 *                       valid range when outside it)
 *   0xfe idx ver body   a data type (consumer protocol, internal records),
 *                       by index in the protocol table
 *   anything else       a request frame as it arrives on a connection,
 *                       without its size: header, then the body of that API
 *                       and version (ApiKey 0xfe.. / 0xff.. is negative and
 *                       no request's, so frames keep their own bytes)
 *
 * Every decoded message goes through size, encode, decode again and encode
 * again: the two encodings must be identical, the size exact (Kafka's
 * encode∘decode round trip), and print must not fail. Versions are every
 * version the codec knows, not only the served ones.
 */
#include "fuzz.h"

#include "core/arena.h"
#include "core/buf.h"
#include "proto/proto.h"

#include <string.h>

/* Decodes buf as a message of ops at ver and checks the round trip. */
static void
roundtrip(const gr_proto_ops_t *ops, int16_t ver, gr_reader_t *r, gr_arena_t *a)
{
    void *m1 = gr_arena_zalloc(a, ops->struct_size);
    void *m2 = gr_arena_zalloc(a, ops->struct_size);
    size_t n1, n2;
    uint8_t *b1, *b2;
    gr_writer_t w;
    gr_reader_t r2;
    gr_buf_t pr = GR_BUF_INIT;

    GR_FUZZ_CHECK(m1 != NULL && m2 != NULL);
    ops->init(m1);
    if (ops->decode(r, ver, a, m1) != 0) {
        GR_FUZZ_CHECK(r->err != 0);
        return;
    }
    GR_FUZZ_CHECK(r->err == 0);
    ops->print(&pr, m1, ver);
    gr_buf_fini(&pr);

    n1 = ops->size(m1, ver);
    b1 = gr_arena_alloc(a, n1 + 1);
    GR_FUZZ_CHECK(b1 != NULL);
    w = gr_writer_init(b1, n1, a);
    ops->encode(&w, m1, ver);
    GR_FUZZ_CHECK(w.err == 0);
    GR_FUZZ_CHECK((size_t)(w.p - w.start) == n1);
    GR_FUZZ_CHECK(w.splices_cnt == 0);

    r2 = gr_reader_init(b1, n1);
    ops->init(m2);
    GR_FUZZ_CHECK(ops->decode(&r2, ver, a, m2) == 0);
    GR_FUZZ_CHECK(gr_reader_remaining(&r2) == 0);
    n2 = ops->size(m2, ver);
    GR_FUZZ_CHECK(n2 == n1);
    b2 = gr_arena_alloc(a, n2 + 1);
    GR_FUZZ_CHECK(b2 != NULL);
    w = gr_writer_init(b2, n2, a);
    ops->encode(&w, m2, ver);
    GR_FUZZ_CHECK(w.err == 0 && (size_t)(w.p - w.start) == n2);
    GR_FUZZ_CHECK(memcmp(b1, b2, n1) == 0);
}

static int
count_apis(void)
{
    int n = 0;
    while (gr_proto_api_at(n) != NULL)
        n++;
    return n;
}

static int
count_datas(void)
{
    int n = 0;
    while (gr_proto_data_at(n) != NULL)
        n++;
    return n;
}

static int16_t
pick_version(uint8_t v, int16_t min, int16_t max)
{
    if (v >= min && v <= max)
        return v;
    return (int16_t)(min + v % (max - min + 1));
}

/* A request frame: the header as gr_dispatch() decodes it, then the body. */
static void
request_frame(const uint8_t *data, size_t n, gr_arena_t *a)
{
    gr_reader_t r = gr_reader_init(data, n);
    gr_req_header_t h;
    const gr_proto_api_t *api;

    memset(&h, 0, sizeof h);
    if (gr_req_header_decode(&r, &h) != 0)
        return;
    /* the header round trip: size and encoding agree */
    {
        size_t hn = gr_req_header_size(&h);
        uint8_t *hb = gr_arena_alloc(a, hn + 1);
        gr_writer_t w;
        gr_reader_t hr;
        gr_req_header_t h2;
        GR_FUZZ_CHECK(hb != NULL);
        w = gr_writer_init(hb, hn, NULL);
        gr_req_header_encode(&w, &h);
        GR_FUZZ_CHECK(w.err == 0 && (size_t)(w.p - w.start) == hn);
        hr = gr_reader_init(hb, hn);
        GR_FUZZ_CHECK(gr_req_header_decode(&hr, &h2) == 0);
        GR_FUZZ_CHECK(h2.api_key == h.api_key &&
                      h2.api_version == h.api_version &&
                      h2.correlation_id == h.correlation_id &&
                      h2.client_id.len == h.client_id.len);
    }
    api = gr_proto_api(h.api_key);
    if (api == NULL || h.api_version < api->min_ver ||
        h.api_version > api->max_ver)
        return;
    (void)gr_proto_resp_header_version(h.api_key, h.api_version);
    /* as the dispatcher, a bound on the decoded arrays (gr_rd_alloc):
     * tight for half the inputs, so that its failures (in tagged fields
     * too) are taken */
    if (n & 1)
        r.mem_left = 8 * (uint64_t)n;
    roundtrip(&api->request, h.api_version, &r, a);
    GR_FUZZ_CHECK(!(n & 1) || r.mem_left <= 8 * (uint64_t)n);
}

int
gr_fuzz_request(const uint8_t *data, size_t n)
{
    static int napis, ndatas;
    gr_arena_t *a = gr_arena_new(4096);

    GR_FUZZ_CHECK(a != NULL);
    if (napis == 0) {
        napis = count_apis();
        ndatas = count_datas();
    }
    if (n >= 3 && data[0] == 0xff) {
        const gr_proto_api_t *api = gr_proto_api(data[1]);
        if (api == NULL)
            api = gr_proto_api_at(data[1] % napis);
        gr_reader_t r = gr_reader_init(data + 3, n - 3);
        roundtrip(&api->response,
                  pick_version(data[2], api->min_ver, api->max_ver), &r, a);
    } else if (n >= 3 && data[0] == 0xfe) {
        const gr_proto_data_t *d = gr_proto_data_at(data[1] % ndatas);
        gr_reader_t r = gr_reader_init(data + 3, n - 3);
        roundtrip(&d->ops, pick_version(data[2], d->min_ver, d->max_ver), &r,
                  a);
    } else {
        request_frame(data, n, a);
    }
    gr_arena_destroy(a);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_request)
