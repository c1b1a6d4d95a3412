/*
 * Generated codecs against independent bytes: vectors written here from the
 * protocol guide, one at every version where a message changes shape, and
 * golden frames under tests/data/wire/ produced by other encoders
 * (kafka-python's protocol classes, librdkafka and kafkajs frames captured
 * with gregor --dump-frames). A golden frame must decode completely and
 * re-encode to the same bytes.
 */
#include "proto/gen/proto_table.h"
#include "proto/proto.h"
#include "../unit.h"

#ifndef GR_GOLDEN_MIN
#define GR_GOLDEN_MIN 172
#endif

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decodes v with ops at ver, checks it is consumed and re-encodes equal. */
static void *
decode_reencode(const gr_proto_ops_t *ops, int16_t ver, const uint8_t *v,
                size_t n, gr_arena_t *a)
{
    void *m = gr_arena_zalloc(a, ops->struct_size);
    gr_reader_t r = gr_reader_init(v, n);
    uint8_t *out;
    gr_writer_t w;
    ck_assert_int_eq(ops->decode(&r, ver, a, m), 0);
    ck_assert_uint_eq(gr_reader_remaining(&r), 0);
    ck_assert_uint_eq(ops->size(m, ver), n);
    out = gr_arena_alloc(a, n + 1);
    w = gr_writer_init(out, n, a);
    ops->encode(&w, m, ver);
    ck_assert_int_eq(w.err, 0);
    ck_assert_mem_eq(out, v, n);
    return m;
}

START_TEST(test_api_versions_request)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_API_VERSIONS);
    /* v0-v2: empty body */
    gr_api_versions_request_t *rq =
        decode_reencode(&api->request, 0, (const uint8_t *)"", 0, a);
    (void)rq;
    /* v3: ClientSoftwareName, ClientSoftwareVersion as COMPACT_STRING, then
     * an empty tag section (what librdkafka sends) */
    static const uint8_t v3[] = {0x0b, 'l', 'i', 'b', 'r', 'd', 'k', 'a',
                                 'f',  'k', 'a', 0x06, '2', '.', '0', '.',
                                 '2',  0x00};
    rq = decode_reencode(&api->request, 3, v3, sizeof v3, a);
    ck_assert(gr_str_eq_cstr(&rq->client_software_name, "librdkafka"));
    ck_assert(gr_str_eq_cstr(&rq->client_software_version, "2.0.2"));
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_api_versions_response)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_API_VERSIONS);
    /* v0: ErrorCode, [ApiKey MinVersion MaxVersion] */
    static const uint8_t v0[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
                                 0x12, 0x00, 0x00, 0x00, 0x03};
    /* v1: + ThrottleTimeMs */
    static const uint8_t v1[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
                                 0x12, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00,
                                 0x00, 0x0a};
    /* v3 (flexible): compact array, per-entry tags, throttle, tags with
     * FinalizedFeaturesEpoch (tag 1, int64 5) */
    static const uint8_t v3[] = {0x00, 0x00, 0x02, 0x00, 0x12, 0x00, 0x00,
                                 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,
                                 0x01, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00,
                                 0x00, 0x00, 0x00, 0x05};
    gr_api_versions_response_t *rs;

    rs = decode_reencode(&api->response, 0, v0, sizeof v0, a);
    ck_assert_int_eq(rs->api_keys_cnt, 1);
    ck_assert_int_eq(rs->api_keys[0].api_key, 18);
    ck_assert_int_eq(rs->api_keys[0].max_version, 3);
    rs = decode_reencode(&api->response, 1, v1, sizeof v1, a);
    ck_assert_int_eq(rs->throttle_time_ms, 10);
    rs = decode_reencode(&api->response, 3, v3, sizeof v3, a);
    ck_assert_int_eq(rs->api_keys_cnt, 1);
    ck_assert_int_eq(rs->finalized_features_epoch, 5);
    ck_assert_int_eq(rs->supported_features_cnt, 0);
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_metadata_request)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_METADATA);
    gr_metadata_request_t *rq;
    /* v0: [Name STRING]; an empty array means all topics */
    static const uint8_t v0[] = {0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 't'};
    /* v1: null array = all topics */
    static const uint8_t v1[] = {0xff, 0xff, 0xff, 0xff};
    /* v4: + AllowAutoTopicCreation */
    static const uint8_t v4[] = {0x00, 0x00, 0x00, 0x00, 0x01};
    /* v8: + IncludeClusterAuthorizedOperations,
     * IncludeTopicAuthorizedOperations */
    static const uint8_t v8[] = {0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x01};
    /* v9 (flexible): compact array of {Name COMPACT_STRING, tags} */
    static const uint8_t v9[] = {0x02, 0x02, 't', 0x00, 0x01, 0x00, 0x00, 0x00};
    /* v10: + TopicId (uuid) before Name, Name nullable */
    static const uint8_t v10[] = {0x02, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                  12, 13, 14, 15, 16, 0x00, 0x00, 0x01, 0x00,
                                  0x00, 0x00};
    /* v11: cluster authorized operations removed */
    static const uint8_t v11[] = {0x00, 0x00, 0x01, 0x00};

    rq = decode_reencode(&api->request, 0, v0, sizeof v0, a);
    ck_assert_int_eq(rq->topics_cnt, 1);
    ck_assert(gr_str_eq_cstr(&rq->topics[0].name, "t"));
    ck_assert(rq->allow_auto_topic_creation); /* default true */
    rq = decode_reencode(&api->request, 1, v1, sizeof v1, a);
    ck_assert_int_eq(rq->topics_cnt, -1);
    rq = decode_reencode(&api->request, 4, v4, sizeof v4, a);
    ck_assert_int_eq(rq->topics_cnt, 0);
    ck_assert(rq->allow_auto_topic_creation);
    rq = decode_reencode(&api->request, 8, v8, sizeof v8, a);
    ck_assert(!rq->include_cluster_authorized_operations);
    ck_assert(rq->include_topic_authorized_operations);
    rq = decode_reencode(&api->request, 9, v9, sizeof v9, a);
    ck_assert(gr_str_eq_cstr(&rq->topics[0].name, "t"));
    rq = decode_reencode(&api->request, 10, v10, sizeof v10, a);
    ck_assert_int_eq(rq->topics[0].topic_id.b[15], 16);
    ck_assert_int_eq(rq->topics[0].name.len, -1);
    rq = decode_reencode(&api->request, 11, v11, sizeof v11, a);
    ck_assert_int_eq(rq->topics_cnt, -1);
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_init_producer_id_request)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_INIT_PRODUCER_ID);
    gr_init_producer_id_request_t *rq;
    /* v0: TransactionalId NULLABLE_STRING, TransactionTimeoutMs */
    static const uint8_t v0[] = {0xff, 0xff, 0x00, 0x00, 0xea, 0x60};
    /* v2 (flexible): COMPACT_NULLABLE_STRING */
    static const uint8_t v2[] = {0x03, 't', '1', 0x00, 0x00, 0xea, 0x60, 0x00};
    /* v3: + ProducerId, ProducerEpoch */
    static const uint8_t v3[] = {0x00, 0x00, 0x00, 0x03, 0xe8, 0x00, 0x00,
                                 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00,
                                 0x02, 0x00};
    rq = decode_reencode(&api->request, 0, v0, sizeof v0, a);
    ck_assert_int_eq(rq->transactional_id.len, -1);
    ck_assert_int_eq(rq->transaction_timeout_ms, 60000);
    ck_assert_int_eq(rq->producer_id, -1); /* absent before v3: default */
    rq = decode_reencode(&api->request, 2, v2, sizeof v2, a);
    ck_assert(gr_str_eq_cstr(&rq->transactional_id, "t1"));
    rq = decode_reencode(&api->request, 3, v3, sizeof v3, a);
    ck_assert_int_eq(rq->transactional_id.len, -1);
    ck_assert_int_eq(rq->transaction_timeout_ms, 1000);
    ck_assert_int_eq(rq->producer_id, 7);
    ck_assert_int_eq(rq->producer_epoch, 2);
    gr_arena_destroy(a);
}
END_TEST

/* Golden frames: tests/data/wire/<Api>/v<N>.{req,resp}.bin, request frames
 * with their header (as --dump-frames writes them), responses with theirs. */
static int
golden_one(const char *path, const gr_proto_api_t *api, int16_t ver,
           int is_req)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;
    gr_arena_t *a;
    gr_reader_t r;
    int bad = 0;
    if (f == NULL)
        return 1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        bad = 1;
    fclose(f);
    a = gr_arena_new(4096);
    r = gr_reader_init(buf, (size_t)n);
    if (!bad && is_req) {
        gr_req_header_t h;
        if (gr_req_header_decode(&r, &h) != 0 || h.api_key != api->key ||
            h.api_version != ver)
            bad = 1;
    } else if (!bad) {
        int hv = gr_proto_resp_header_version(api->key, ver);
        gr_rd_i32(&r);
        if (hv >= 1)
            gr_rd_skip_tags(&r);
    }
    if (!bad) {
        const gr_proto_ops_t *ops = is_req ? &api->request : &api->response;
        void *m = gr_arena_zalloc(a, ops->struct_size);
        size_t body = gr_reader_remaining(&r);
        const uint8_t *start = r.p;
        if (ops->decode(&r, ver, a, m) != 0 || gr_reader_remaining(&r) != 0) {
            bad = 1;
        } else {
            uint8_t *out = gr_arena_alloc(a, body + 1);
            gr_writer_t w = gr_writer_init(out, body, a);
            ops->encode(&w, m, ver);
            if (w.err || ops->size(m, ver) != body ||
                memcmp(out, start, body) != 0)
                bad = 1;
        }
    }
    if (bad)
        fprintf(stderr, "golden frame %s does not round-trip\n", path);
    gr_arena_destroy(a);
    free(buf);
    return bad;
}

START_TEST(test_golden_frames)
{
    char dir[1024];
    const gr_proto_api_t *api;
    int files = 0, bad = 0;
    for (int i = 0; (api = gr_proto_api_at(i)) != NULL; i++) {
        DIR *d;
        struct dirent *de;
        snprintf(dir, sizeof dir, "%s/wire/%s", GR_TEST_DATA, api->name);
        d = opendir(dir);
        if (d == NULL)
            continue;
        while ((de = readdir(d)) != NULL) {
            int v;
            char kind[8], path[2048];
            if (sscanf(de->d_name, "v%d.%4[a-z].bin", &v, kind) != 2)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            bad += golden_one(path, api, (int16_t)v, strcmp(kind, "req") == 0);
            files++;
        }
        closedir(d);
    }
    ck_assert_int_eq(bad, 0);
    /* the set only grows: a lost directory must not pass silently */
    ck_assert_int_ge(files, GR_GOLDEN_MIN);
}
END_TEST

Suite *
suite_proto_vectors(void)
{
    Suite *s = suite_create("proto/vectors");
    TCase *tc = tcase_create("vectors");
    tcase_add_test(tc, test_api_versions_request);
    tcase_add_test(tc, test_api_versions_response);
    tcase_add_test(tc, test_metadata_request);
    tcase_add_test(tc, test_init_producer_id_request);
    tcase_add_test(tc, test_golden_frames);
    suite_add_tcase(s, tc);
    return s;
}
