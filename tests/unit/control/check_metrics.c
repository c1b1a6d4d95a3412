/*
 * The metrics (src/control/metrics.c, prom.c): the text exposition
 * format 0.0.4 as written (HELP/TYPE lines, label escaping, values,
 * names), JSON numbers with fractions for the telemetry lines, and
 * through a running broker the values after what a client did: records
 * and bytes in and out per topic, request and error counts per API, the
 * latency histogram, a group's lag, the metrics-only listener; the whole
 * answer checked line by line against the format's grammar.
 */
#include "../api/brokertest.h"
#include "../log/batches.h"
#include "../unit.h"

#include "control/control_int.h"
#include "core/json.h"
#include "control/prom.h"

#include "proto/gen/proto_table.h"

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* --- control/prom */

START_TEST(test_prom_family_and_labels)
{
    gr_buf_t o = GR_BUF_INIT;
    gr_prom_sample_t s;
    gr_prom_family(&o, "x_total", "counter", "a \\ b\nc \"q\"");
    /* HELP escapes backslash and newline only */
    ck_assert_str_eq(gr_buf_cstr(&o), "# HELP x_total a \\\\ b\\nc \"q\"\n"
                                      "# TYPE x_total counter\n");
    gr_buf_reset(&o);
    s = gr_prom_begin(&o, "x_total", NULL);
    gr_prom_end_int(&s, 7);
    s = gr_prom_begin(&o, "x_total", NULL);
    gr_prom_label(&s, "topic", "a\\b\"c\nd", (size_t)-1);
    gr_prom_label_int(&s, "partition", -3);
    gr_prom_end_int(&s, INT64_MAX);
    s = gr_prom_begin(&o, "h", "_bucket");
    gr_prom_label(&s, "le", "+Inf", (size_t)-1);
    gr_prom_end_int(&s, 0);
    ck_assert_str_eq(gr_buf_cstr(&o),
                     "x_total 7\n"
                     "x_total{topic=\"a\\\\b\\\"c\\nd\",partition=\"-3\"} "
                     "9223372036854775807\n"
                     "h_bucket{le=\"+Inf\"} 0\n");
    gr_buf_fini(&o);
}
END_TEST

START_TEST(test_prom_utf8)
{
    gr_buf_t o = GR_BUF_INIT;
    /* valid sequences stay; bad bytes, overlong forms and surrogates
     * become U+FFFD, one per byte */
    gr_prom_escape_value(&o, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9);
    ck_assert_str_eq(gr_buf_cstr(&o), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    gr_buf_reset(&o);
    gr_prom_escape_value(&o,
                         "a\xff"
                         "b",
                         3);
    ck_assert_str_eq(gr_buf_cstr(&o), "a\xef\xbf\xbd"
                                      "b");
    gr_buf_reset(&o);
    gr_prom_escape_value(&o, "\xc0\x80", 2);
    ck_assert_str_eq(gr_buf_cstr(&o), "\xef\xbf\xbd\xef\xbf\xbd");
    gr_buf_reset(&o);
    gr_prom_escape_value(&o, "\xed\xa0\x80", 3);
    ck_assert_str_eq(gr_buf_cstr(&o), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    gr_buf_reset(&o);
    gr_prom_escape_value(&o, "\xe2\x82", 2); /* cut short */
    ck_assert_str_eq(gr_buf_cstr(&o), "\xef\xbf\xbd\xef\xbf\xbd");
    gr_buf_reset(&o);
    /* a NUL byte is a character like any other */
    gr_prom_escape_value(&o, "a\0b", 3);
    ck_assert_int_eq((int)o.len, 3);
    gr_buf_fini(&o);
}
END_TEST

static const char *
value_of(double v)
{
    static char out[64];
    gr_buf_t o = GR_BUF_INIT;
    gr_prom_sample_t s = gr_prom_begin(&o, "m", NULL);
    gr_prom_end_double(&s, v);
    snprintf(out, sizeof out, "%s", gr_buf_cstr(&o) + 2);
    gr_buf_fini(&o);
    out[strlen(out) - 1] = '\0'; /* the newline */
    return out;
}

START_TEST(test_prom_values)
{
    ck_assert_str_eq(value_of(0.1), "0.1");
    ck_assert_str_eq(value_of(1.5e-05), "1.5e-05");
    ck_assert_str_eq(value_of(-2.0), "-2");
    ck_assert_str_eq(value_of(1e21), "1e+21");
    ck_assert_str_eq(value_of(1.0 / 3.0), "0.3333333333333333");  /* 16 */
    ck_assert_str_eq(value_of(0.1 + 0.2), "0.30000000000000004"); /* 17 */
    ck_assert_str_eq(value_of(NAN), "NaN");
    ck_assert_str_eq(value_of(INFINITY), "+Inf");
    ck_assert_str_eq(value_of(-INFINITY), "-Inf");
}
END_TEST

START_TEST(test_prom_sanitize)
{
    char out[32];
    const char *in = "org.apache.kafka.x-y";
    gr_prom_sanitize(out, sizeof out, in, strlen(in), false);
    ck_assert_str_eq(out, "org_apache_kafka_x_y");
    gr_prom_sanitize(out, sizeof out, "a:b", 3, false);
    ck_assert_str_eq(out, "a:b"); /* names may have colons */
    gr_prom_sanitize(out, sizeof out, "a:b", 3, true);
    ck_assert_str_eq(out, "a_b"); /* label names may not */
    gr_prom_sanitize(out, sizeof out, "1st", 3, true);
    ck_assert_str_eq(out, "_1st");
    gr_prom_sanitize(out, sizeof out, "__name__", 8, true);
    ck_assert_str_eq(out, "x_name__"); /* "__" is Prometheus's */
    gr_prom_sanitize(out, sizeof out, "", 0, true);
    ck_assert_str_eq(out, "_");
    gr_prom_sanitize(out, 4, "abcdef", 6, false);
    ck_assert_str_eq(out, "abc"); /* cut to the room */
}
END_TEST

START_TEST(test_json_floats)
{
    gr_arena_t *a = gr_arena_new(4096);
    char err[128];
    const char *s = "{\"v\":1.5,\"e\":-2e3,\"big\":9223372036854775808,"
                    "\"i\":12,\"z\":0.25}";
    gr_json_t *j = gr_json_parse_floats(a, s, strlen(s), err, sizeof err);
    ck_assert_msg(j != NULL, "%s", err);
    ck_assert_int_eq(gr_json_get(j, "v")->type, GR_JSON_DBL);
    ck_assert(gr_json_get(j, "v")->d == 1.5);
    ck_assert(gr_json_get(j, "e")->d == -2000.0);
    ck_assert_int_eq(gr_json_get(j, "big")->type, GR_JSON_DBL);
    ck_assert(gr_json_get(j, "big")->d == 9223372036854775808.0);
    ck_assert_int_eq(gr_json_get(j, "i")->type, GR_JSON_INT);
    ck_assert(gr_json_get(j, "z")->d == 0.25);
    /* the grammar still holds, and requests still refuse fractions */
    ck_assert_ptr_null(gr_json_parse_floats(a, "1.", 2, err, sizeof err));
    ck_assert_ptr_null(gr_json_parse_floats(a, "1e", 2, err, sizeof err));
    ck_assert_ptr_null(gr_json_parse_floats(a, "01.5", 4, err, sizeof err));
    ck_assert_ptr_null(gr_json_parse_floats(a, ".5", 2, err, sizeof err));
    ck_assert_ptr_null(gr_json_parse(a, "1.5", 3, err, sizeof err));
    gr_arena_destroy(a);
}
END_TEST

/* --- through a broker */

static const char *const metrics_on[] = {
    "gregor.control.listener=http://127.0.0.1:0", "num.partitions=2",
    "offsets.topic.num.partitions=1", NULL
};

static char *
scrape(gr_brokertest_t *t)
{
    char err[256];
    gr_buf_t o = GR_BUF_INIT;
    int st = gr_ctl_http(gr_control_url(t->b), "GET", "/metrics", NULL, &o, err,
                         sizeof err);
    ck_assert_msg(st == 200, "%d %s", st, err);
    gr_buf_cstr(&o);
    return (char *)o.ptr;
}

/* The value of the sample whose name and labels are exactly key, or -1
 * when there is none. */
static double
sample(const char *text, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = text; (p = strstr(p, key)) != NULL; p += n)
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            return strtod(p + n + 1, NULL);
    return -1;
}

static bool
name_ok(const char *s, size_t n, bool label)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || (!label && c == ':')))
            return false;
    }
    return true;
}

/* The family a sample name belongs to: itself, or less a histogram's
 * suffix when that family was declared a histogram. */
static bool
belongs(const char *name, size_t n, const char *fam, bool histogram)
{
    static const char *const sfx[] = { "_bucket", "_sum", "_count" };
    size_t f = strlen(fam);
    if (n == f && memcmp(name, fam, n) == 0)
        return true;
    for (int i = 0; histogram && i < 3; i++)
        if (n == f + strlen(sfx[i]) && memcmp(name, fam, f) == 0 &&
            memcmp(name + f, sfx[i], n - f) == 0)
            return true;
    return false;
}

/* Checks text against the 0.0.4 grammar: each family's HELP then TYPE
 * once, its samples right after, valid names, label pairs with escaped
 * values and no label twice, a value that parses. Returns the number of
 * samples; fails the test at the first bad line. */
static int
check_exposition(const char *text)
{
    char fam[256] = "", seen[512][128];
    int nseen = 0, samples = 0, line = 0;
    bool histogram = false, typed = false;
    const char *p = text;
    while (*p != '\0') {
        const char *nl = strchr(p, '\n');
        size_t n;
        ck_assert_msg(nl != NULL, "the last line has no newline");
        n = (size_t)(nl - p);
        line++;
        if (n > 7 && memcmp(p, "# HELP ", 7) == 0) {
            const char *sp = memchr(p + 7, ' ', n - 7);
            size_t fn = sp ? (size_t)(sp - p - 7) : n - 7;
            ck_assert_msg(name_ok(p + 7, fn, false), "line %d", line);
            ck_assert(fn < sizeof fam);
            memcpy(fam, p + 7, fn);
            fam[fn] = '\0';
            for (int i = 0; i < nseen; i++)
                ck_assert_msg(strcmp(seen[i], fam) != 0,
                              "family %s twice (line %d)", fam, line);
            ck_assert(nseen < 512);
            snprintf(seen[nseen++], sizeof seen[0], "%s", fam);
            /* HELP text: a backslash only before another or an n */
            for (const char *q = sp; q && q < nl; q++)
                if (*q == '\\') {
                    ck_assert_msg(q[1] == '\\' || q[1] == 'n', "line %d", line);
                    q++;
                }
            typed = false;
        } else if (n > 7 && memcmp(p, "# TYPE ", 7) == 0) {
            size_t fl = strlen(fam);
            ck_assert_msg(!typed && fl > 0 && n > 8 + fl &&
                              memcmp(p + 7, fam, fl) == 0 && p[7 + fl] == ' ',
                          "TYPE without its HELP, line %d", line);
            histogram =
                n - 8 - fl == 9 && memcmp(p + 8 + fl, "histogram", 9) == 0;
            ck_assert_msg(
                histogram ||
                    (n - 8 - fl == 7 &&
                     (memcmp(p + 8 + fl, "counter", 7) == 0 ||
                      memcmp(p + 8 + fl, "untyped", 7) == 0)) ||
                    (n - 8 - fl == 5 && memcmp(p + 8 + fl, "gauge", 5) == 0),
                "line %d: a type", line);
            typed = true;
        } else {
            const char *q = p, *end = nl;
            char labels[32][64];
            int nl_ = 0;
            char *vend;
            ck_assert_msg(typed, "a sample before its TYPE, line %d", line);
            while (q < end && *q != '{' && *q != ' ')
                q++;
            ck_assert_msg(name_ok(p, (size_t)(q - p), false) &&
                              belongs(p, (size_t)(q - p), fam, histogram),
                          "line %d: %.*s not of family %s", line, (int)n, p,
                          fam);
            if (q < end && *q == '{') {
                q++;
                while (q < end && *q != '}') {
                    const char *ln = q;
                    while (q < end && *q != '=')
                        q++;
                    ck_assert_msg(name_ok(ln, (size_t)(q - ln), true) &&
                                      q + 1 < end && q[1] == '"',
                                  "line %d: a label", line);
                    ck_assert(nl_ < 32 && (size_t)(q - ln) < 64);
                    memcpy(labels[nl_], ln, (size_t)(q - ln));
                    labels[nl_][q - ln] = '\0';
                    for (int i = 0; i < nl_; i++)
                        ck_assert_msg(strcmp(labels[i], labels[nl_]) != 0,
                                      "line %d: label twice", line);
                    nl_++;
                    q += 2;
                    while (q < end && *q != '"') {
                        if (*q == '\\') {
                            ck_assert_msg(q[1] == '\\' || q[1] == '"' ||
                                              q[1] == 'n',
                                          "line %d: an escape", line);
                            q++;
                        }
                        q++;
                    }
                    ck_assert_msg(q < end, "line %d: an open quote", line);
                    q++;
                    if (q < end && *q == ',')
                        q++;
                }
                ck_assert_msg(q < end, "line %d: no '}'", line);
                q++;
            }
            ck_assert_msg(q < end && *q == ' ', "line %d: no value", line);
            q++;
            if (!(strncmp(q, "NaN\n", 4) == 0 || strncmp(q, "+Inf\n", 5) == 0 ||
                  strncmp(q, "-Inf\n", 5) == 0)) {
                strtod(q, &vend);
                ck_assert_msg(vend == end, "line %d: the value %.*s", line,
                              (int)(end - q), q);
            }
            samples++;
        }
        p = nl + 1;
    }
    return samples;
}

static gr_produce_response_t *
produce(gr_brokertest_t *t, const char *topic, int32_t part, int records,
        size_t *bytes)
{
    static gr_produce_request_topic_produce_data_t td;
    static gr_produce_request_partition_produce_data_t pd;
    static gr_buf_t batch;
    gr_produce_request_t rq;
    gr_buf_reset(&batch);
    *bytes = gr_test_batch(&batch, records, 1000, 10);
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

/* Metadata with auto-creation: the topic exists once it answers. */
static void
make_topic(gr_brokertest_t *t, const char *topic)
{
    static gr_metadata_request_topic_t mt;
    gr_metadata_request_t rq;
    gr_metadata_response_t *rs;
    gr_metadata_request_init(&rq);
    gr_metadata_request_topic_init(&mt);
    mt.name = gr_str_c(topic);
    rq.topics = &mt;
    rq.topics_cnt = 1;
    rq.allow_auto_topic_creation = true;
    rs = gr_brokertest_call(t, GR_API_METADATA, 9, &rq);
    ck_assert_int_eq(rs->topics_cnt, 1);
}

static void
ctl_post(gr_brokertest_t *t, const char *path, const char *json)
{
    char err[256];
    gr_buf_t o = GR_BUF_INIT;
    int st = gr_ctl_http(gr_control_url(t->b), "POST", path, json, &o, err,
                         sizeof err);
    ck_assert_msg(st / 100 == 2, "%d %s %s", st, err, gr_buf_cstr(&o));
    gr_buf_fini(&o);
}

static int32_t
fetch_bytes(gr_brokertest_t *t, const char *topic, int32_t part)
{
    gr_fetch_request_t rq;
    gr_fetch_request_fetch_topic_t ft;
    gr_fetch_request_fetch_partition_t fp;
    gr_fetch_response_t *rs;
    gr_fetch_request_init(&rq);
    gr_fetch_request_fetch_topic_init(&ft);
    gr_fetch_request_fetch_partition_init(&fp);
    fp.partition = part;
    fp.fetch_offset = 0;
    fp.partition_max_bytes = 1 << 20;
    ft.topic = gr_str_c(topic);
    ft.partitions = &fp;
    ft.partitions_cnt = 1;
    rq.topics = &ft;
    rq.topics_cnt = 1;
    rq.max_bytes = 1 << 20;
    rq.min_bytes = 1;
    rs = gr_brokertest_call(t, GR_API_FETCH, 12, &rq);
    ck_assert_int_eq(rs->responses_cnt, 1);
    ck_assert_int_eq(rs->responses[0].partitions[0].error_code, 0);
    return rs->responses[0].partitions[0].records.len;
}

START_TEST(test_metrics_topics_and_requests)
{
    gr_brokertest_t bt;
    size_t b1, b2, b3;
    int32_t out;
    char *m, key[256];
    gr_brokertest_start(&bt, metrics_on);
    /* 10 + 5 records to partition 0, then one refused (injected), then
     * one failing as Kafka counts a failure (INVALID_RECORD) */
    make_topic(&bt, "mt");
    ck_assert_int_eq(produce(&bt, "mt", 0, 10, &b1)
                         ->responses[0]
                         .partition_responses[0]
                         .error_code,
                     0);
    produce(&bt, "mt", 1, 5, &b2);
    ctl_post(&bt, "/v1/faults",
             "{\"api\":\"Produce\",\"errors\":[\"NOT_LEADER_OR_FOLLOWER\","
             "\"INVALID_RECORD\"]}");
    produce(&bt, "mt", 0, 3, &b3);
    produce(&bt, "mt", 0, 3, &b3);
    out = fetch_bytes(&bt, "mt", 0);
    m = scrape(&bt);
    ck_assert_int_gt(check_exposition(m), 50);
    ck_assert(sample(m, "kafka_server_brokertopicmetrics_messagesin_total"
                        "{topic=\"mt\"}") == 15);
    snprintf(key, sizeof key,
             "kafka_server_brokertopicmetrics_bytesin_total{topic=\"mt\"}");
    ck_assert(sample(m, key) == (double)(b1 + b2));
    ck_assert(sample(m, "kafka_server_brokertopicmetrics_bytesout_total"
                        "{topic=\"mt\"}") == out);
    ck_assert_int_eq((int)out, (int)b1);
    /* four partitions produced, one failed as Kafka counts: NOT_LEADER
     * is expected, INVALID_RECORD is not */
    ck_assert(sample(m, "kafka_server_brokertopicmetrics_"
                        "totalproducerequests_total{topic=\"mt\"}") == 4);
    ck_assert(sample(m, "kafka_server_brokertopicmetrics_"
                        "failedproducerequests_total{topic=\"mt\"}") == 1);
    ck_assert(sample(m, "kafka_server_brokertopicmetrics_"
                        "totalfetchrequests_total{topic=\"mt\"}") == 1);
    /* the all-topics series has no label and at least the topic's */
    ck_assert(sample(m, "kafka_server_brokertopicmetrics_messagesin_total") >=
              15);
    ck_assert(sample(m, "kafka_network_requestmetrics_requests_total"
                        "{request=\"Produce\",version=\"9\"}") == 4);
    ck_assert(sample(m, "kafka_network_requestmetrics_errors_total"
                        "{request=\"Produce\",error=\"NONE\"}") == 2);
    ck_assert(sample(m, "kafka_network_requestmetrics_errors_total"
                        "{request=\"Produce\",error=\"NOT_LEADER_OR_"
                        "FOLLOWER\"}") == 1);
    ck_assert(sample(m, "kafka_network_requestmetrics_errors_total"
                        "{request=\"Produce\",error=\"INVALID_RECORD\"}") == 1);
    /* the histogram: cumulative, ending in the count */
    ck_assert(sample(m, "kafka_network_requestmetrics_totaltimems_bucket"
                        "{request=\"Produce\",le=\"+Inf\"}") == 4);
    ck_assert(sample(m, "kafka_network_requestmetrics_totaltimems_count"
                        "{request=\"Produce\"}") == 4);
    ck_assert(sample(m, "kafka_network_requestmetrics_totaltimems_bucket"
                        "{request=\"Produce\",le=\"0.5\"}") <=
              sample(m, "kafka_network_requestmetrics_totaltimems_bucket"
                        "{request=\"Produce\",le=\"30000\"}"));
    /* the logs */
    ck_assert(sample(m, "kafka_log_log_logendoffset{topic=\"mt\","
                        "partition=\"0\"}") == 10);
    ck_assert(sample(m, "kafka_log_log_size{topic=\"mt\","
                        "partition=\"1\"}") == (double)b2);
    ck_assert(sample(m, "kafka_log_log_logstartoffset{topic=\"mt\","
                        "partition=\"1\"}") == 0);
    ck_assert(sample(m, "kafka_server_replicamanager_partitioncount") >= 2);
    ck_assert(sample(m, "kafka_server_socket_server_metrics_connection_count"
                        "{listener=\"PLAINTEXT\"}") == 1);
    ck_assert(sample(m, "process_resident_memory_bytes") > 0);
    ck_assert(sample(m, "gregor_control_injected_total") == 2);
    free(m);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_metrics_group_lag)
{
    gr_brokertest_t bt;
    gr_offset_commit_request_t rq;
    gr_offset_commit_request_topic_t t;
    gr_offset_commit_request_partition_t p;
    gr_offset_commit_response_t *rs;
    size_t b;
    char *m;
    gr_brokertest_start(&bt, metrics_on);
    make_topic(&bt, "lt");
    produce(&bt, "lt", 1, 8, &b);
    gr_brokertest_coordinator(&bt, "lg", 0);
    gr_offset_commit_request_init(&rq);
    gr_offset_commit_request_topic_init(&t);
    gr_offset_commit_request_partition_init(&p);
    rq.group_id = gr_str_c("lg");
    rq.generation_id_or_member_epoch = -1;
    rq.member_id = gr_str_c("");
    p.partition_index = 1;
    p.committed_offset = 3;
    t.name = gr_str_c("lt");
    t.partitions = &p;
    t.partitions_cnt = 1;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rs = gr_brokertest_call(&bt, GR_API_OFFSET_COMMIT, 8, &rq);
    ck_assert_int_eq(rs->topics[0].partitions[0].error_code, 0);
    m = scrape(&bt);
    check_exposition(m);
    ck_assert(sample(m, "kafka_consumergroup_current_offset{consumergroup="
                        "\"lg\",topic=\"lt\",partition=\"1\"}") == 3);
    ck_assert(sample(m, "kafka_consumergroup_lag{consumergroup=\"lg\","
                        "topic=\"lt\",partition=\"1\"}") == 5);
    ck_assert(sample(m, "gregor_consumergroup_state{consumergroup=\"lg\","
                        "state=\"Empty\"}") == 1);
    ck_assert(sample(m, "kafka_coordinator_group_groupmetadatamanager_"
                        "numgroupsempty") == 1);
    ck_assert(sample(m, "kafka_coordinator_group_groupmetadatamanager_"
                        "numoffsets") == 1);
    /* the offsets topic counts its appends too, as Kafka's all-topics */
    ck_assert(sample(m, "kafka_server_brokertopicmetrics_messagesin_total"
                        "{topic=\"__consumer_offsets\"}") >= 1);
    free(m);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A raw connection to the control listener of t. */
static int
ctl_connect(gr_brokertest_t *t)
{
    const char *u = gr_control_url(t->b);
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)atoi(strrchr(u, ':') + 1));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    return fd;
}

START_TEST(test_metrics_pipelined_and_head)
{
    gr_brokertest_t bt;
    const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
                      "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
                      "GET /v1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                      "\r\n";
    gr_buf_t in = GR_BUF_INIT;
    const char *p, *q;
    char buf[65536];
    ssize_t n;
    long len;
    int fd;
    gr_brokertest_start(&bt, metrics_on);
    /* a scrape whose connection goes before its text is made */
    fd = ctl_connect(&bt);
    ck_assert(write(fd, req, 39) == 39);
    close(fd);
    /* three requests at once: the answers in order, the HEAD without
     * its body, the metrics' text made meanwhile on a worker */
    fd = ctl_connect(&bt);
    ck_assert(write(fd, req, strlen(req)) == (ssize_t)strlen(req));
    while ((n = read(fd, buf, sizeof buf)) > 0)
        gr_buf_append(&in, buf, (size_t)n);
    close(fd);
    p = gr_buf_cstr(&in);
    ck_assert(strncmp(p, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; "
                         "version=0.0.4; charset=utf-8\r\n",
                      strlen("HTTP/1.1 200 OK\r\nContent-Type: text/plain; "
                             "version=0.0.4; charset=utf-8\r\n")) == 0);
    q = strstr(p, "Content-Length: ");
    ck_assert_ptr_nonnull(q);
    len = strtol(q + 16, NULL, 10);
    q = strstr(q, "\r\n\r\n") + 4;
    ck_assert(strncmp(q, "# HELP gregor_build_info ", 25) == 0);
    q += len; /* the HEAD's answer: the same length, no body */
    ck_assert(strncmp(q, "HTTP/1.1 200 OK\r\nContent-Type: text/plain", 41) ==
              0);
    ck_assert_int_eq(strtol(strstr(q, "Content-Length: ") + 16, NULL, 10) /
                         1000,
                     len / 1000);
    q = strstr(q, "\r\n\r\n") + 4;
    ck_assert(strncmp(q, "HTTP/1.1 200 OK\r\nContent-Type: application/json",
                      47) == 0);
    ck_assert_ptr_nonnull(strstr(q, "\"gregor\":"));
    gr_buf_fini(&in);
    gr_brokertest_stop(&bt);
}
END_TEST

static const char *const metrics_only[] = {
    "gregor.metrics.listener=http://127.0.0.1:0", NULL
};

START_TEST(test_metrics_listener)
{
    gr_brokertest_t bt;
    gr_buf_t o = GR_BUF_INIT;
    char err[256], url[160];
    const char *mu;
    gr_brokertest_start(&bt, metrics_only);
    ck_assert_ptr_null(gr_control_url(bt.b)); /* no control listener */
    mu = gr_control_metrics_url(bt.b);
    ck_assert_ptr_nonnull(mu);
    snprintf(url, sizeof url, "%s", mu);
    ck_assert_int_eq(
        gr_ctl_http(url, "GET", "/metrics", NULL, &o, err, sizeof err), 200);
    ck_assert(strstr(gr_buf_cstr(&o), "# TYPE kafka_server_brokertopicmetrics_"
                                      "messagesin_total counter\n") != NULL);
    gr_buf_reset(&o);
    /* nothing else is served there: no fault can be armed */
    ck_assert_int_eq(gr_ctl_http(url, "POST", "/v1/faults",
                                 "{\"api\":\"Produce\",\"error\":6}", &o, err,
                                 sizeof err),
                     404);
    ck_assert_int_eq(gr_ctl_http(url, "GET", "/v1", NULL, &o, err, sizeof err),
                     404);
    ck_assert_int_eq(
        gr_ctl_http(url, "DELETE", "/metrics", NULL, &o, err, sizeof err), 405);
    gr_buf_fini(&o);
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_control_metrics(void)
{
    Suite *s = suite_create("control/metrics");
    TCase *tc = tcase_create("metrics");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_prom_family_and_labels);
    tcase_add_test(tc, test_prom_utf8);
    tcase_add_test(tc, test_prom_values);
    tcase_add_test(tc, test_prom_sanitize);
    tcase_add_test(tc, test_json_floats);
    tcase_add_test(tc, test_metrics_topics_and_requests);
    tcase_add_test(tc, test_metrics_group_lag);
    tcase_add_test(tc, test_metrics_listener);
    tcase_add_test(tc, test_metrics_pipelined_and_head);
    suite_add_tcase(s, tc);
    return s;
}
