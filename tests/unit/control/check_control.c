/*
 * The control interface (src/control/): the HTTP parser, the error answers of every API (shapes.c) and, through a running
 * broker, fault matching and application (inject.c) as a client sees it.
 */
#include "../api/brokertest.h"
#include "../log/batches.h"
#include "../unit.h"

#include "control/control_int.h"
#include "control/http.h"

#include "api/dispatch.h"
#include "core/json.h"
#include "core/time.h"
#include "proto/gen/proto_table.h"
#include "proto/proto_fill.h"
#include "proto/wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* --- control/http */

static long
parse(const char *s, gr_http_req_t *r)
{
    return gr_http_parse((const uint8_t *)s, strlen(s), r);
}

START_TEST(test_http_get)
{
    gr_http_req_t r;
    const char *s = "GET /v1/faults?api=Produce HTTP/1.1\r\nHost: x\r\n\r\n";
    ck_assert_int_eq(parse(s, &r), (long)strlen(s));
    ck_assert_int_eq((int)r.method_len, 3);
    ck_assert(memcmp(r.method, "GET", 3) == 0);
    ck_assert_int_eq((int)r.target_len, 22);
    ck_assert(memcmp(r.target, "/v1/faults?api=Produce", 22) == 0);
    ck_assert_int_eq((int)gr_http_path_len(r.target, r.target_len), 10);
    ck_assert(r.keep_alive);
    ck_assert_int_eq(r.minor, 1);
    ck_assert_int_eq((int)r.body_len, 0);
    /* 1.0: closes unless asked; 1.1 with close */
    ck_assert_int_gt(parse("GET / HTTP/1.0\r\n\r\n", &r), 0);
    ck_assert(!r.keep_alive);
    ck_assert_int_gt(
        parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", &r), 0);
    ck_assert(r.keep_alive);
    ck_assert_int_gt(
        parse("GET / HTTP/1.1\r\nconnection: foo, close\r\n\r\n", &r), 0);
    ck_assert(!r.keep_alive);
    /* bare LF line ends (printf | nc) */
    ck_assert_int_eq(parse("GET / HTTP/1.1\nA: b\n\n", &r), 21);
}
END_TEST

START_TEST(test_http_body)
{
    gr_http_req_t r;
    const char *s = "POST /v1/faults HTTP/1.1\r\nContent-Length: 5\r\n\r\n"
                    "{\"a\":GET / HTTP/1.1\r\n\r\n";
    size_t head = strlen("POST /v1/faults HTTP/1.1\r\nContent-Length: 5\r\n"
                         "\r\n");
    /* incomplete: the headers are in, the body not yet */
    ck_assert_int_eq(gr_http_parse((const uint8_t *)s, head + 2, &r), 0);
    ck_assert(r.headers_done);
    ck_assert(!r.expect_continue);
    /* complete, with a pipelined request behind it */
    ck_assert_int_eq(parse(s, &r), (long)(head + 5));
    ck_assert_int_eq((int)r.body_len, 5);
    ck_assert(memcmp(r.body, "{\"a\":", 5) == 0);
    ck_assert_int_eq(parse(s + head + 5, &r), 18);
    /* a request in pieces: nothing until the line ends */
    ck_assert_int_eq(gr_http_parse((const uint8_t *)"GET / HT", 8, &r), 0);
    ck_assert(!r.headers_done);
    /* curl's Expect for larger bodies */
    ck_assert_int_eq(parse("POST / HTTP/1.1\r\nExpect: 100-continue\r\n"
                           "Content-Length: 3\r\n\r\n",
                           &r),
                     0);
    ck_assert(r.headers_done && r.expect_continue);
}
END_TEST

START_TEST(test_http_refused)
{
    gr_http_req_t r;
    char big[GR_HTTP_MAX_HEADER + 64];
    static const struct {
        const char *s;
        long rc;
    } cases[] = {
        { "GET /\r\n\r\n", -400 }, /* no version */
        { "GET / HTTP/2.0\r\n\r\n", -505 },
        { "GET / HTTP/1.2\r\n\r\n", -505 },
        { "GET / HTTX/1.1\r\n\r\n", -400 },
        { "GET  / HTTP/1.1\r\n\r\n", -400 }, /* two spaces */
        { "GET x HTTP/1.1\r\n\r\n", -400 },  /* not a path */
        { "G(T / HTTP/1.1\r\n\r\n", -400 },  /* not a token */
        { "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", -501 },
        { "POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n", -400 },
        { "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", -400 },
        { "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", -400 },
        { "POST / HTTP/1.1\r\nContent-Length: 65537\r\n\r\n", -413 },
        { "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
          -413 },
        { "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
          -400 },
        { "GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", -400 }, /* folding */
        { "GET / HTTP/1.1\r\nA : b\r\n\r\n", -400 },
        { "GET / HTTP/1.1\r\nA b\r\n\r\n", -400 },
        { "GET / HTTP/1.1\r\nA: b\x01\r\n\r\n", -400 },
        { "GET / HTTP/1.1\r\nExpect: tea\r\n\r\n", -400 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(parse(cases[i].s, &r) == cases[i].rc, "case %zu: %ld", i,
                      parse(cases[i].s, &r));
    /* the same length twice is fine */
    ck_assert_int_gt(parse("POST / HTTP/1.1\r\nContent-Length: 1\r\n"
                           "content-length: 1\r\n\r\nx",
                           &r),
                     0);
    /* a header section without its end, at the bound */
    memset(big, 'a', sizeof big);
    memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
    ck_assert_int_eq(gr_http_parse((const uint8_t *)big, sizeof big, &r), -431);
    ck_assert_int_eq(gr_http_parse((const uint8_t *)big, 100, &r), 0);
}
END_TEST

START_TEST(test_http_query)
{
    const char *t = "/v1/requests?api=Produce&client_id=a%20b+c&x&limit=5";
    size_t n = strlen(t);
    char v[16];
    ck_assert(gr_http_query_get(t, n, "api", v, sizeof v));
    ck_assert_str_eq(v, "Produce");
    ck_assert(gr_http_query_get(t, n, "client_id", v, sizeof v));
    ck_assert_str_eq(v, "a b c");
    ck_assert(gr_http_query_get(t, n, "x", v, sizeof v));
    ck_assert_str_eq(v, "");
    ck_assert(gr_http_query_get(t, n, "limit", v, sizeof v));
    ck_assert_str_eq(v, "5");
    ck_assert(!gr_http_query_get(t, n, "since", v, sizeof v));
    ck_assert(!gr_http_query_get(t, n, "lim", v, sizeof v));
    /* malformed escapes, a NUL, too long for out */
    ck_assert(!gr_http_query_get("/?a=%2", 6, "a", v, sizeof v));
    ck_assert(!gr_http_query_get("/?a=%zz", 7, "a", v, sizeof v));
    ck_assert(!gr_http_query_get("/?a=%00", 7, "a", v, sizeof v));
    ck_assert(!gr_http_query_get("/?a=0123456789abcdef", 20, "a", v, sizeof v));
    ck_assert(!gr_http_query_get("/v1", 3, "a", v, sizeof v));
}
END_TEST

/* --- control/shapes: every API's error answer, every version */

START_TEST(test_shapes_all_versions)
{
    const gr_proto_fill_t *fills = gr_proto_fills();
    int cnt, with_err = 0, answers = 0;
    const gr_api_entry_t *tab = gr_api_table(&cnt);
    for (int i = 0; i < cnt; i++) {
        const gr_proto_api_t *api = gr_proto_api(tab[i].key);
        const gr_proto_fill_t *f = NULL;
        for (int k = 0; fills[k].key != -2; k++)
            if (fills[k].key == tab[i].key)
                f = &fills[k];
        ck_assert_ptr_nonnull(f);
        ck_assert_msg(gr_shape_can_error(tab[i].key), "%s", api->name);
        for (int16_t v = tab[i].min_ver; v <= tab[i].max_ver; v++)
            for (uint32_t seed = 1; seed <= 4; seed++)
                for (int top = 0; top < 2; top++) {
                    gr_arena_t *a = gr_arena_new(16384);
                    gr_req_t req;
                    size_t n;
                    uint8_t *buf;
                    gr_writer_t w;
                    gr_reader_t r;
                    void *back;
                    gr_kerr_t got;
                    memset(&req, 0, sizeof req);
                    req.a = a;
                    req.hdr.api_key = tab[i].key;
                    req.version = v;
                    req.body = gr_arena_zalloc(a, api->request.struct_size);
                    req.resp = gr_arena_zalloc(a, api->response.struct_size);
                    f->request(req.body, a, seed);
                    api->response.init(req.resp);
                    if (gr_shape_error_response(&req, GR_KERR_REQUEST_TIMED_OUT,
                                                top) != 0) {
                        /* only DescribeLogDirs before v3 has no place */
                        ck_assert_msg(tab[i].key == GR_API_DESCRIBE_LOG_DIRS &&
                                          v < 3,
                                      "%s v%d", api->name, v);
                        gr_arena_destroy(a);
                        continue;
                    }
                    answers++;
                    /* it encodes, decodes back, and carries the error */
                    n = api->response.size(req.resp, v);
                    buf = gr_arena_alloc(a, n);
                    w = gr_writer_init(buf, n, a);
                    api->response.encode(&w, req.resp, v);
                    ck_assert_int_eq(w.err, 0);
                    ck_assert_int_eq((int)(w.p - w.start), (int)n);
                    r = gr_reader_init(buf, n);
                    back = gr_arena_zalloc(a, api->response.struct_size);
                    ck_assert_int_eq(api->response.decode(&r, v, a, back), 0);
                    req.resp = back;
                    got = gr_shape_first_error(&req);
                    ck_assert_msg(got == GR_KERR_REQUEST_TIMED_OUT ||
                                      got == GR_KERR_NONE,
                                  "%s v%d: %d", api->name, v, got);
                    with_err += got == GR_KERR_REQUEST_TIMED_OUT;
                    gr_arena_destroy(a);
                }
    }
    /* most answers carry it (an empty request may leave none to carry) */
    ck_assert_int_gt(with_err, answers * 3 / 4);
}
END_TEST

/* --- control/inject: through a running broker */

static const char *const ctl_on[] = {
    "gregor.control.listener=http://127.0.0.1:0", "num.partitions=2", NULL
};

/* One HTTP call to the test broker's control listener; the status. */
static int
ctl(gr_brokertest_t *t, const char *method, const char *path, const char *body,
    gr_buf_t *out)
{
    char err[256];
    gr_buf_t tmp = GR_BUF_INIT;
    int st = gr_ctl_http(gr_control_url(t->b), method, path, body,
                         out ? out : &tmp, err, sizeof err);
    ck_assert_msg(st > 0, "%s", err);
    gr_buf_fini(&tmp);
    return st;
}

static void
fault(gr_brokertest_t *t, const char *json)
{
    gr_buf_t o = GR_BUF_INIT;
    int st = ctl(t, "POST", "/v1/faults", json, &o);
    ck_assert_msg(st == 201, "%d %s", st, gr_buf_cstr(&o));
    gr_buf_fini(&o);
}

static gr_produce_response_t *
produce(gr_brokertest_t *t, const char *topic, int32_t part)
{
    static gr_produce_request_topic_produce_data_t td;
    static gr_produce_request_partition_produce_data_t pd;
    static gr_buf_t batch;
    gr_produce_request_t rq;
    gr_buf_reset(&batch);
    gr_test_batch(&batch, 1, 1000, 10);
    gr_produce_request_init(&rq);
    gr_produce_request_topic_produce_data_init(&td);
    gr_produce_request_partition_produce_data_init(&pd);
    pd.index = part;
    pd.records.ptr = batch.ptr;
    pd.records.len = (int32_t)batch.len;
    td.name = gr_str_c(topic);
    td.partition_data = &pd;
    td.partition_data_cnt = 1;
    rq.acks = -1;
    rq.timeout_ms = 5000;
    rq.topic_data = &td;
    rq.topic_data_cnt = 1;
    return gr_brokertest_call(t, GR_API_PRODUCE, 9, &rq);
}

static int16_t
produce_err(gr_brokertest_t *t, const char *topic, int32_t part)
{
    gr_produce_response_t *rs = produce(t, topic, part);
    ck_assert_int_eq(rs->responses_cnt, 1);
    ck_assert_int_eq(rs->responses[0].partition_responses_cnt, 1);
    return rs->responses[0].partition_responses[0].error_code;
}

static gr_metadata_response_t *
metadata(gr_brokertest_t *t, const char *topic)
{
    static gr_metadata_request_topic_t mt;
    gr_metadata_request_t rq;
    gr_metadata_request_init(&rq);
    gr_metadata_request_topic_init(&mt);
    mt.name = gr_str_c(topic);
    rq.topics = &mt;
    rq.topics_cnt = 1;
    rq.allow_auto_topic_creation = true;
    return gr_brokertest_call(t, GR_API_METADATA, 9, &rq);
}

START_TEST(test_inject_produce_count)
{
    gr_brokertest_t bt;
    gr_buf_t o = GR_BUF_INIT;
    gr_brokertest_start(&bt, ctl_on);
    metadata(&bt, "ta");
    fault(&bt, "{\"api\":\"Produce\",\"error\":\"NOT_LEADER_OR_FOLLOWER\","
               "\"count\":2}");
    ck_assert_int_eq(produce_err(&bt, "ta", 0), GR_KERR_NOT_LEADER_OR_FOLLOWER);
    ck_assert_int_eq(produce_err(&bt, "ta", 0), GR_KERR_NOT_LEADER_OR_FOLLOWER);
    /* used up: appended once, at offset 0 (the failed ones wrote nothing) */
    {
        gr_produce_response_t *rs = produce(&bt, "ta", 0);
        ck_assert_int_eq(rs->responses[0].partition_responses[0].error_code, 0);
        ck_assert_int_eq(rs->responses[0].partition_responses[0].base_offset,
                         0);
    }
    ck_assert_int_eq(ctl(&bt, "GET", "/v1/faults", NULL, &o), 200);
    ck_assert_str_eq(gr_buf_cstr(&o), "{\"faults\":[]}\n");
    /* the log has them, newest last */
    gr_buf_reset(&o);
    ck_assert_int_eq(ctl(&bt, "GET", "/v1/requests?api=Produce", NULL, &o),
                     200);
    ck_assert(strstr(gr_buf_cstr(&o), "\"outcome\":\"injected\",\"error\":"
                                      "\"NOT_LEADER_OR_FOLLOWER\"") != NULL);
    ck_assert(strstr(gr_buf_cstr(&o), "\"client_id\":\"brokertest\"") != NULL);
    ck_assert(strstr(gr_buf_cstr(&o), "\"outcome\":\"handled\",\"error\":"
                                      "\"NONE\"") != NULL);
    gr_buf_fini(&o);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_inject_filters)
{
    gr_brokertest_t bt;
    gr_brokertest_start(&bt, ctl_on);
    metadata(&bt, "fa");
    metadata(&bt, "fb");
    /* topic and partition */
    fault(&bt, "{\"api\":0,\"error\":\"KAFKA_STORAGE_ERROR\",\"topic\":\"fa\","
               "\"partition\":1,\"count\":-1}");
    ck_assert_int_eq(produce_err(&bt, "fb", 1), 0);
    ck_assert_int_eq(produce_err(&bt, "fa", 0), 0);
    ck_assert_int_eq(produce_err(&bt, "fa", 1), GR_KERR_KAFKA_STORAGE_ERROR);
    ck_assert_int_eq(produce_err(&bt, "fa", 1), GR_KERR_KAFKA_STORAGE_ERROR);
    ck_assert_int_eq(ctl(&bt, "DELETE", "/v1/faults?api=Produce", NULL, NULL),
                     200);
    ck_assert_int_eq(produce_err(&bt, "fa", 1), 0);
    /* client id: not ours */
    fault(&bt, "{\"api\":\"Produce\",\"error\":6,\"client_id\":\"other\"}");
    ck_assert_int_eq(produce_err(&bt, "fa", 1), 0);
    ck_assert_int_eq(ctl(&bt, "DELETE", "/v1/faults", NULL, NULL), 200);
    fault(&bt,
          "{\"api\":\"Produce\",\"error\":6,\"client_id\":\"brokertest\"}");
    ck_assert_int_eq(produce_err(&bt, "fa", 1), 6);
    /* group: Heartbeat of g1 fails, of g2 not */
    fault(&bt,
          "{\"api\":\"Heartbeat\",\"error\":\"COORDINATOR_LOAD_IN_PROGRESS\","
          "\"group\":\"g1\"}");
    {
        gr_heartbeat_request_t rq;
        gr_heartbeat_response_t *rs;
        gr_heartbeat_request_init(&rq);
        rq.group_id = gr_str_c("g2");
        rq.member_id = gr_str_c("m");
        rs = gr_brokertest_call(&bt, GR_API_HEARTBEAT, 4, &rq);
        ck_assert_int_ne(rs->error_code, GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
        rq.group_id = gr_str_c("g1");
        rs = gr_brokertest_call(&bt, GR_API_HEARTBEAT, 4, &rq);
        ck_assert_int_eq(rs->error_code, GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
        rs = gr_brokertest_call(&bt, GR_API_HEARTBEAT, 4, &rq);
        ck_assert_int_ne(rs->error_code, GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
    }
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_inject_stack_and_throttle)
{
    gr_brokertest_t bt;
    gr_metadata_response_t *md;
    gr_brokertest_start(&bt, ctl_on);
    metadata(&bt, "st");
    /* librdkafka's push_request_errors: one request each, NONE passes */
    fault(&bt,
          "{\"api\":\"Produce\",\"errors\":[\"REQUEST_TIMED_OUT\",\"NONE\","
          "{\"error\":\"THROTTLING_QUOTA_EXCEEDED\",\"throttle_ms\":700},"
          "7]}");
    ck_assert_int_eq(produce_err(&bt, "st", 0), GR_KERR_REQUEST_TIMED_OUT);
    ck_assert_int_eq(produce_err(&bt, "st", 0), 0);
    {
        gr_produce_response_t *rs = produce(&bt, "st", 0);
        ck_assert_int_eq(rs->responses[0].partition_responses[0].error_code,
                         GR_KERR_THROTTLING_QUOTA_EXCEEDED);
        ck_assert_int_eq(rs->throttle_time_ms, 700);
    }
    ck_assert_int_eq(produce_err(&bt, "st", 0), GR_KERR_REQUEST_TIMED_OUT);
    ck_assert_int_eq(produce_err(&bt, "st", 0), 0);
    /* a throttle on an answer the handler gives */
    fault(&bt, "{\"api\":\"Metadata\",\"throttle_ms\":1234}");
    md = metadata(&bt, "st");
    ck_assert_int_eq(md->throttle_time_ms, 1234);
    ck_assert_int_eq(md->brokers_cnt, 1);
    ck_assert_int_eq(md->topics[0].error_code, 0);
    md = metadata(&bt, "st");
    ck_assert_int_eq(md->throttle_time_ms, 0);
    /* Metadata errors: the topic's, or one partition's */
    fault(&bt, "{\"api\":\"Metadata\",\"error\":\"LEADER_NOT_AVAILABLE\","
               "\"topic\":\"st\"}");
    md = metadata(&bt, "st");
    ck_assert_int_eq(md->brokers_cnt, 1);
    ck_assert_int_eq(md->topics[0].error_code, GR_KERR_LEADER_NOT_AVAILABLE);
    ck_assert_int_eq(md->topics[0].partitions_cnt, 0);
    fault(&bt, "{\"api\":\"Metadata\",\"error\":\"LEADER_NOT_AVAILABLE\","
               "\"topic\":\"st\",\"partition\":1}");
    md = metadata(&bt, "st");
    ck_assert_int_eq(md->topics[0].error_code, 0);
    ck_assert_int_eq(md->topics[0].partitions_cnt, 2);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(md->topics[0].partitions[i].error_code,
                         md->topics[0].partitions[i].partition_index == 1
                             ? GR_KERR_LEADER_NOT_AVAILABLE
                             : 0);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_inject_delay)
{
    gr_brokertest_t bt;
    gr_buf_t o = GR_BUF_INIT;
    int64_t t0, dt;
    gr_brokertest_start(&bt, ctl_on);
    metadata(&bt, "dl");
    ck_assert_int_eq(
        ctl(&bt, "POST", "/v1/delays", "{\"api\":\"Metadata\",\"ms\":250}", &o),
        201);
    t0 = gr_mono_ms();
    metadata(&bt, "dl");
    dt = gr_mono_ms() - t0;
    ck_assert_msg(dt >= 250 && dt < 2000, "%lld ms", (long long)dt);
    /* other APIs are not delayed; a fault's delay adds */
    t0 = gr_mono_ms();
    ck_assert_int_eq(produce_err(&bt, "dl", 0), 0);
    ck_assert_int_lt(gr_mono_ms() - t0, 200);
    fault(&bt, "{\"api\":\"Metadata\",\"delay_ms\":300}");
    t0 = gr_mono_ms();
    metadata(&bt, "dl");
    dt = gr_mono_ms() - t0;
    ck_assert_msg(dt >= 550 && dt < 3000, "%lld ms", (long long)dt);
    ck_assert_int_eq(ctl(&bt, "DELETE", "/v1/delays", NULL, NULL), 200);
    t0 = gr_mono_ms();
    metadata(&bt, "dl");
    ck_assert_int_lt(gr_mono_ms() - t0, 200);
    gr_buf_fini(&o);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A delayed answer whose handler frees what it points to once it has
 * replied (Fetch v0-v3: the converted records, freed with the worker's
 * job): the hook encodes it at once and holds only the write, so the
 * answer is whole, and late. The records (300 kB, past malloc's mmap
 * threshold) were read after the job freed them: a heap use after free,
 * a crash here. */
START_TEST(test_inject_delay_fetch_converted)
{
    static gr_buf_t recs;
    gr_brokertest_t bt;
    gr_produce_request_t prq;
    gr_produce_request_topic_produce_data_t td;
    gr_produce_request_partition_produce_data_t pd;
    gr_fetch_request_t rq;
    gr_fetch_request_fetch_topic_t ft;
    gr_fetch_request_fetch_partition_t fp;
    gr_fetch_response_t *rs;
    gr_buf_t o = GR_BUF_INIT;
    int64_t t0, dt;

    gr_brokertest_start(&bt, ctl_on);
    metadata(&bt, "dc");
    gr_buf_reset(&recs);
    gr_test_batch(&recs, 100, 1000, 1000);
    gr_produce_request_init(&prq);
    gr_produce_request_topic_produce_data_init(&td);
    gr_produce_request_partition_produce_data_init(&pd);
    pd.records.ptr = recs.ptr;
    pd.records.len = (int32_t)recs.len;
    td.name = gr_str_c("dc");
    td.partition_data = &pd;
    td.partition_data_cnt = 1;
    prq.acks = -1;
    prq.timeout_ms = 5000;
    prq.topic_data = &td;
    prq.topic_data_cnt = 1;
    for (int i = 0; i < 3; i++) {
        gr_produce_response_t *ps =
            gr_brokertest_call(&bt, GR_API_PRODUCE, 9, &prq);
        ck_assert_int_eq(ps->responses[0].partition_responses[0].error_code, 0);
    }
    ck_assert_int_eq(
        ctl(&bt, "POST", "/v1/delays", "{\"api\":\"Fetch\",\"ms\":200}", &o),
        201);
    gr_fetch_request_init(&rq);
    gr_fetch_request_fetch_topic_init(&ft);
    gr_fetch_request_fetch_partition_init(&fp);
    fp.partition = 0;
    fp.partition_max_bytes = 1 << 20;
    ft.topic = gr_str_c("dc");
    ft.partitions = &fp;
    ft.partitions_cnt = 1;
    rq.topics = &ft;
    rq.topics_cnt = 1;
    rq.min_bytes = 1;
    rq.max_bytes = 1 << 20;
    for (int16_t ver = 0; ver <= 4; ver += 2) {
        const gr_records_t *r;
        int32_t left, n = 0;
        t0 = gr_mono_ms();
        rs = gr_brokertest_call(&bt, GR_API_FETCH, ver, &rq);
        dt = gr_mono_ms() - t0;
        ck_assert_msg(dt >= 200 && dt < 3000, "%lld ms", (long long)dt);
        ck_assert_int_eq(rs->responses[0].partitions[0].error_code, 0);
        r = &rs->responses[0].partitions[0].records;
        ck_assert_int_gt(r->len, 300000);
        if (ver >= 4)
            continue;
        /* 300 whole messages (offset, size, message), values intact */
        for (left = r->len; left >= 12; n++) {
            const uint8_t *m = r->ptr + (r->len - left);
            int32_t size = (int32_t)gr_get_u32(m + 8);
            ck_assert_int_le(12 + size, left);
            ck_assert_int_eq((int64_t)gr_get_u64(m), n);
            left -= 12 + size;
        }
        ck_assert_int_eq(n, 300);
    }
    ck_assert_int_eq(ctl(&bt, "DELETE", "/v1/delays", NULL, NULL), 200);
    gr_buf_fini(&o);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A second connection for requests whose connection goes away (the
 * broker's address is taken from the first while it is open). */
static struct sockaddr_in broker_sa;

static int
connect_to(gr_brokertest_t *t)
{
    socklen_t sl = sizeof broker_sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (broker_sa.sin_port == 0)
        ck_assert_int_eq(getpeername(t->fd, (struct sockaddr *)&broker_sa, &sl),
                         0);
    ck_assert_int_eq(
        connect(fd, (struct sockaddr *)&broker_sa, sizeof broker_sa), 0);
    return fd;
}

/* Sends a Metadata v1 request for no topics on fd. */
static void
send_metadata(int fd)
{
    static const uint8_t req[] = {
        0, 0, 0,   14,  0, 3, 0, 1, 0, 0, 0, 42, /* Metadata v1, corr 42 */
        0, 2, 'c', 'x',                          /* client id "cx" */
        0, 0, 0,   0,                            /* no topics */
    };
    uint8_t fixed[sizeof req];
    memcpy(fixed, req, sizeof req);
    fixed[3] = (uint8_t)(sizeof req - 4);
    ck_assert_int_eq(write(fd, fixed, sizeof fixed), (ssize_t)sizeof fixed);
}

/* What fd does within ms: 1 bytes arrive, 0 closed, -1 nothing. */
static int
wait_for(int fd, int ms)
{
    struct pollfd p = { fd, POLLIN, 0 };
    uint8_t b[4];
    if (poll(&p, 1, ms) <= 0)
        return -1;
    return read(fd, b, sizeof b) > 0 ? 1 : 0;
}

START_TEST(test_inject_drop_blackhole_close)
{
    gr_brokertest_t bt;
    gr_buf_t o = GR_BUF_INIT;
    int fd;
    gr_brokertest_start(&bt, ctl_on);
    memset(&broker_sa, 0, sizeof broker_sa);
    /* drop: the next Metadata closes its connection */
    fault(&bt, "{\"api\":\"Metadata\",\"action\":\"drop\"}");
    fd = connect_to(&bt);
    send_metadata(fd);
    ck_assert_int_eq(wait_for(fd, 2000), 0);
    close(fd);
    fd = connect_to(&bt);
    send_metadata(fd);
    ck_assert_int_eq(wait_for(fd, 2000), 1);
    close(fd);
    /* blackhole client "cx": read, never answered, until cleared */
    fault(&bt, "{\"action\":\"blackhole\",\"client_id\":\"cx\"}");
    fd = connect_to(&bt);
    send_metadata(fd);
    ck_assert_int_eq(wait_for(fd, 300), -1);
    /* the test's own client is still answered */
    metadata(&bt, "bh");
    ck_assert_int_eq(ctl(&bt, "GET", "/v1/requests?client_id=cx", NULL, &o),
                     200);
    ck_assert(strstr(gr_buf_cstr(&o), "\"outcome\":\"blackholed\"") != NULL);
    /* cleared: the held connection is closed */
    ck_assert_int_eq(ctl(&bt, "DELETE", "/v1/faults", NULL, NULL), 200);
    ck_assert_int_eq(wait_for(fd, 2000), 0);
    close(fd);
    /* close every connection: ours too */
    gr_buf_reset(&o);
    ck_assert_int_eq(ctl(&bt, "POST", "/v1/connections/close", "{}", &o), 200);
    ck_assert(strncmp(gr_buf_cstr(&o), "{\"closed\":", 10) == 0);
    ck_assert_int_ge(atoi(gr_buf_cstr(&o) + 10), 1);
    ck_assert_int_eq(wait_for(bt.fd, 2000), 0);
    close(bt.fd);
    bt.fd = connect_to(&bt);
    metadata(&bt, "bh");
    gr_buf_fini(&o);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_inject_caps)
{
    gr_brokertest_t bt;
    gr_api_versions_request_t rq;
    gr_api_versions_response_t *rs;
    int fd, found = 0;
    gr_brokertest_start(&bt, ctl_on);
    memset(&broker_sa, 0, sizeof broker_sa);
    ck_assert_int_eq(
        ctl(&bt, "POST", "/v1/caps", "{\"api\":\"Metadata\",\"max\":4}", NULL),
        200);
    ck_assert_int_eq(ctl(&bt, "POST", "/v1/caps",
                         "{\"api\":\"DescribeProducers\",\"max\":-1}", NULL),
                     200);
    gr_api_versions_request_init(&rq);
    rs = gr_brokertest_call(&bt, GR_API_API_VERSIONS, 2, &rq);
    for (int i = 0; i < rs->api_keys_cnt; i++) {
        ck_assert_int_ne(rs->api_keys[i].api_key, GR_API_DESCRIBE_PRODUCERS);
        if (rs->api_keys[i].api_key == GR_API_METADATA) {
            ck_assert_int_eq(rs->api_keys[i].max_version, 4);
            found = 1;
        }
    }
    ck_assert(found);
    /* a version above the cap is refused as an older Kafka would */
    fd = connect_to(&bt);
    {
        uint8_t req[] = {
            0, 0, 0, 12, 0, 3, 0, 5, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff
        }; /* v5, null client id */
        req[3] = sizeof req - 4;
        ck_assert_int_eq(write(fd, req, sizeof req), (ssize_t)sizeof req);
        ck_assert_int_eq(wait_for(fd, 2000), 0);
    }
    close(fd);
    /* ApiVersions cannot be turned off; cleared, all is back */
    ck_assert_int_eq(ctl(&bt, "POST", "/v1/caps",
                         "{\"api\":\"ApiVersions\",\"max\":-1}", NULL),
                     400);
    ck_assert_int_eq(ctl(&bt, "DELETE", "/v1/caps", NULL, NULL), 200);
    rs = gr_brokertest_call(&bt, GR_API_API_VERSIONS, 2, &rq);
    found = 0;
    for (int i = 0; i < rs->api_keys_cnt; i++)
        found |= rs->api_keys[i].api_key == GR_API_DESCRIBE_PRODUCERS;
    ck_assert(found);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_inject_bad_requests)
{
    gr_brokertest_t bt;
    gr_buf_t o = GR_BUF_INIT;
    static const char *const bad[] = {
        "{\"api\":\"Nope\",\"error\":6}",
        "{\"api\":\"Produce\",\"error\":\"NOT_AN_ERROR\"}",
        "{\"error\":6}", /* an error needs an api */
        "{\"api\":\"Produce\",\"error\":6,\"count\":0}",
        "{\"api\":\"Produce\",\"error\":6,\"bogus\":1}",
        "{\"api\":\"Produce\",\"partition\":1}",
        "{\"api\":\"Produce\",\"action\":\"explode\"}",
        "{\"api\":\"Produce\",\"throttle_ms\":-1}",
        "{\"api\":\"Produce\",\"errors\":[]}",
        "{\"api\":\"Produce\",\"errors\":[\"NOPE\"]}",
        "[]",
        "17",
        "{\"api\":",
    };
    gr_brokertest_start(&bt, ctl_on);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_buf_reset(&o);
        ck_assert_msg(ctl(&bt, "POST", "/v1/faults", bad[i], &o) == 400,
                      "%s: %s", bad[i], gr_buf_cstr(&o));
        ck_assert(strncmp(gr_buf_cstr(&o), "{\"error\":", 9) == 0);
    }
    /* nothing half-added */
    gr_buf_reset(&o);
    ck_assert_int_eq(ctl(&bt, "GET", "/v1/faults", NULL, &o), 200);
    ck_assert_str_eq(gr_buf_cstr(&o), "{\"faults\":[]}\n");
    ck_assert_int_eq(ctl(&bt, "GET", "/v1/nothing", NULL, NULL), 404);
    ck_assert_int_eq(ctl(&bt, "PUT", "/v1/faults", NULL, NULL), 405);
    ck_assert_int_eq(ctl(&bt, "DELETE", "/v1/faults/99", NULL, NULL), 404);
    ck_assert_int_eq(ctl(&bt, "DELETE", "/v1/faults/x", NULL, NULL), 404);
    /* the broker still serves */
    metadata(&bt, "ok");
    gr_buf_fini(&o);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A raw TCP connection to the control listener. */
static int
ctl_connect(gr_brokertest_t *t)
{
    const char *url = gr_control_url(t->b);
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)atoi(strrchr(url, ':') + 1));
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    return fd;
}

/* Reads what fd answers within 2 s into buf (NUL-terminated). */
static void
ctl_read(int fd, char *buf, size_t n)
{
    size_t k = 0;
    struct pollfd p = { fd, POLLIN, 0 };
    while (k + 1 < n && poll(&p, 1, 2000) > 0) {
        ssize_t r = read(fd, buf + k, n - 1 - k);
        if (r <= 0)
            break;
        k += (size_t)r;
    }
    buf[k] = '\0';
}

START_TEST(test_control_bounds)
{
    gr_brokertest_t bt;
    int fds[16], fd;
    char buf[4096];
    static const char big[] = "POST /v1/faults HTTP/1.1\r\n"
                              "Content-Length: 70000\r\n\r\n";
    static const char two[] = "GET /v1 HTTP/1.1\r\n\r\n"
                              "GET /v1/caps HTTP/1.1\r\nConnection: close\r\n"
                              "\r\n";
    gr_brokertest_start(&bt, ctl_on);
    /* a body above 64 KiB: 413, closed */
    fd = ctl_connect(&bt);
    ck_assert_int_eq(write(fd, big, sizeof big - 1), (ssize_t)sizeof big - 1);
    ctl_read(fd, buf, sizeof buf);
    ck_assert_msg(strncmp(buf, "HTTP/1.1 413 ", 13) == 0, "%s", buf);
    ck_assert_int_eq(wait_for(fd, 2000), 0);
    close(fd);
    /* two pipelined requests, answered in order, then closed as asked */
    fd = ctl_connect(&bt);
    ck_assert_int_eq(write(fd, two, sizeof two - 1), (ssize_t)sizeof two - 1);
    ctl_read(fd, buf, sizeof buf);
    ck_assert(strstr(buf, "\"gregor\":") != NULL);
    ck_assert(strstr(buf, "\"apis\":") > strstr(buf, "\"gregor\":"));
    ck_assert(strstr(buf, "Connection: close") != NULL);
    close(fd);
    /* 16 connections at most: the 17th is closed at once */
    for (int i = 0; i < 16; i++)
        fds[i] = ctl_connect(&bt);
    fd = ctl_connect(&bt);
    ck_assert_int_eq(wait_for(fd, 2000), 0);
    close(fd);
    for (int i = 0; i < 16; i++)
        close(fds[i]);
    /* and when they are gone, a new one is served */
    for (int i = 0; i < 100; i++) {
        gr_buf_t o = GR_BUF_INIT;
        char err[128];
        int st = gr_ctl_http(gr_control_url(bt.b), "GET", "/v1", NULL, &o,
                             err, sizeof err);
        gr_buf_fini(&o);
        if (st == 200)
            break;
        ck_assert_int_lt(i, 99);
        usleep(20000);
    }
    gr_brokertest_stop(&bt);
}
END_TEST

/* --- the clock: /v1/clock, /v1/clock/advance, gr_ctl_duration_ms */

static const char *const ctl_virtual[] = {
    "gregor.control.listener=http://127.0.0.1:0", "gregor.virtual.clock=true",
    NULL
};

/* The integer after "key": in a JSON answer. */
static int64_t
json_int(gr_buf_t *o, const char *key)
{
    char pat[64];
    const char *p;
    snprintf(pat, sizeof pat, "\"%s\":", key);
    p = strstr(gr_buf_cstr(o), pat);
    ck_assert_msg(p != NULL, "%s not in %s", key, gr_buf_cstr(o));
    return strtoll(p + strlen(pat), NULL, 10);
}

START_TEST(test_clock_routes)
{
    gr_brokertest_t bt;
    gr_buf_t o = GR_BUF_INIT;
    int64_t w0, real0 = gr_wall_ms();
    gr_brokertest_start(&bt, ctl_virtual);
    ck_assert_int_eq(ctl(&bt, "GET", "/v1/clock", NULL, &o), 200);
    ck_assert(strstr(gr_buf_cstr(&o), "\"virtual\":true") != NULL);
    ck_assert_int_eq(json_int(&o, "advanced_ms"), 0);
    w0 = json_int(&o, "wall_ms");
    ck_assert_int_ge(w0, real0 - 60000); /* started at the real time */
    ck_assert_int_le(w0, gr_wall_ms());
    gr_buf_reset(&o);
    ck_assert_int_eq(ctl(&bt, "POST", "/v1/clock/advance", "{\"ms\":1500}", &o),
                     200);
    ck_assert_int_eq(json_int(&o, "advanced_ms"), 1500);
    ck_assert_int_eq(json_int(&o, "wall_ms"), w0 + 1500);
    ck_assert_int_ge(json_int(&o, "timers_fired"), 0);
    /* a reset keeps the clock where it is */
    ck_assert_int_eq(ctl(&bt, "POST", "/v1/reset", "{}", NULL), 200);
    gr_buf_reset(&o);
    ck_assert_int_eq(ctl(&bt, "GET", "/v1/clock", NULL, &o), 200);
    ck_assert_int_eq(json_int(&o, "wall_ms"), w0 + 1500);
    /* what is refused */
    ck_assert_int_eq(ctl(&bt, "POST", "/v1/clock/advance", "{\"ms\":-1}", NULL),
                     400);
    ck_assert_int_eq(ctl(&bt, "POST", "/v1/clock/advance", "{}", NULL), 400);
    ck_assert_int_eq(
        ctl(&bt, "POST", "/v1/clock/advance", "{\"ms\":\"30s\"}", NULL), 400);
    ck_assert_int_eq(
        ctl(&bt, "POST", "/v1/clock/advance", "{\"ms\":1,\"x\":1}", NULL), 400);
    ck_assert_int_eq(ctl(&bt, "POST", "/v1/clock/advance", NULL, NULL), 400);
    ck_assert_int_eq(ctl(&bt, "GET", "/v1/clock/advance", NULL, NULL), 405);
    ck_assert_int_eq(ctl(&bt, "POST", "/v1/clock", "{}", NULL), 405);
    gr_buf_reset(&o);
    ck_assert_int_eq(ctl(&bt, "GET", "/v1/clock", NULL, &o), 200);
    ck_assert_int_eq(json_int(&o, "wall_ms"), w0 + 1500);
    gr_buf_fini(&o);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_clock_real_refused)
{
    gr_brokertest_t bt;
    gr_buf_t o = GR_BUF_INIT;
    gr_brokertest_start(&bt, ctl_on);
    ck_assert_int_eq(ctl(&bt, "GET", "/v1/clock", NULL, &o), 200);
    ck_assert(strstr(gr_buf_cstr(&o), "\"virtual\":false") != NULL);
    gr_buf_reset(&o);
    ck_assert_int_eq(ctl(&bt, "POST", "/v1/clock/advance", "{\"ms\":1}", &o),
                     409);
    ck_assert_msg(strstr(gr_buf_cstr(&o), "--virtual-clock") != NULL, "%s",
                  gr_buf_cstr(&o));
    gr_buf_fini(&o);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_clock_durations)
{
    static const struct {
        const char *s;
        int64_t ms;
    } ok[] = { { "0", 0 },         { "250", 250 },     { "500ms", 500 },
               { "30s", 30000 },   { "5m", 300000 },   { "2h", 7200000 },
               { "1d", 86400000 }, { "1m30s", 90000 }, { "1h1ms", 3600001 },
               { "007s", 7000 } };
    static const char *const bad[] = { "",
                                       "s",
                                       "-1s",
                                       "1x",
                                       "1.5s",
                                       "1 s",
                                       "ms",
                                       "1sm",
                                       "10s10",
                                       "99999999999999999999",
                                       "3000000000000000000s" };
    int64_t ms;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ck_assert_msg(gr_ctl_duration_ms(ok[i].s, &ms) == 0, "%s", ok[i].s);
        ck_assert_int_eq(ms, ok[i].ms);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(gr_ctl_duration_ms(bad[i], &ms) == -1, "%s", bad[i]);
}
END_TEST

Suite *
suite_control_http(void)
{
    Suite *s = suite_create("control/http");
    TCase *tc = tcase_create("http");
    tcase_add_test(tc, test_http_get);
    tcase_add_test(tc, test_http_body);
    tcase_add_test(tc, test_http_refused);
    tcase_add_test(tc, test_http_query);
    tcase_add_test(tc, test_shapes_all_versions);
    suite_add_tcase(s, tc);
    return s;
}

Suite *
suite_control_inject(void)
{
    Suite *s = suite_create("control/inject");
    TCase *tc = tcase_create("inject");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_inject_produce_count);
    tcase_add_test(tc, test_inject_filters);
    tcase_add_test(tc, test_inject_stack_and_throttle);
    tcase_add_test(tc, test_inject_delay);
    tcase_add_test(tc, test_inject_delay_fetch_converted);
    tcase_add_test(tc, test_inject_drop_blackhole_close);
    tcase_add_test(tc, test_inject_caps);
    tcase_add_test(tc, test_inject_bad_requests);
    tcase_add_test(tc, test_control_bounds);
    tcase_add_test(tc, test_clock_routes);
    tcase_add_test(tc, test_clock_real_refused);
    tcase_add_test(tc, test_clock_durations);
    suite_add_tcase(s, tc);
    return s;
}
