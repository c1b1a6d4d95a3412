/* The OTLP decoder on protobuf written by hand from the .proto files'
 * field numbers and wire types (opentelemetry-proto metrics/v1,
 * common/v1, resource/v1), each byte commented: lines for gauges and
 * sums, merge rules (the last of a oneof, fields in any order, unknown
 * and mistyped fields skipped), attribute values of every kind, and the
 * malformed inputs that fail without touching the output. */
#include "../unit.h"

#include "telemetry/otlp.h"

#include <stdio.h>
#include <string.h>

/* MetricsData{resource_metrics: [{resource: {attributes: [host="h1"]},
 * scope_metrics: [{scope: {name: "s"}, metrics: [{name: "m.g", gauge:
 * {data_points: [{attributes: [k=7], time_unix_nano: 1000,
 * as_double: 2.5}]}}]}]}]} */
static const uint8_t gauge_v[] = {
    0x0a, 0x3d,             /* MetricsData.resource_metrics (1, LEN 61) */
    0x0a, 0x0e,             /* ResourceMetrics.resource (1, LEN 14) */
    0x0a, 0x0c,             /* Resource.attributes (1, LEN 12): KeyValue */
    0x0a, 0x04, 'h', 'o', 's', 't', /* KeyValue.key (1) "host" */
    0x12, 0x04,             /* KeyValue.value (2, LEN 4): AnyValue */
    0x0a, 0x02, 'h', '1',   /* AnyValue.string_value (1) "h1" */
    0x12, 0x2b,             /* ResourceMetrics.scope_metrics (2, LEN 43) */
    0x0a, 0x03,             /* ScopeMetrics.scope (1, LEN 3) */
    0x0a, 0x01, 's',        /* InstrumentationScope.name (1) "s" */
    0x12, 0x24,             /* ScopeMetrics.metrics (2, LEN 36): Metric */
    0x0a, 0x03, 'm', '.', 'g', /* Metric.name (1) "m.g" */
    0x2a, 0x1d,             /* Metric.gauge (5, LEN 29) */
    0x0a, 0x1b,             /* Gauge.data_points (1, LEN 27) */
    0x3a, 0x07,             /* NumberDataPoint.attributes (7, LEN 7) */
    0x0a, 0x01, 'k',        /* KeyValue.key "k" */
    0x12, 0x02, 0x18, 0x07, /* KeyValue.value: AnyValue.int_value (3) 7 */
    0x19,                   /* NumberDataPoint.time_unix_nano (3, I64) */
    0xe8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* 1000 */
    0x21,                   /* NumberDataPoint.as_double (4, I64) */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x40, /* 2.5 */
};

/* A Sum whose Metric.name comes after it and whose scalars come before
 * its points; the point has as_double and then as_int (the oneof's last
 * wins) and its times in reverse order. */
static const uint8_t sum_v[] = {
    0x0a, 0x35,             /* MetricsData.resource_metrics (LEN 53) */
    0x12, 0x33,             /* ResourceMetrics.scope_metrics (LEN 51) */
    0x12, 0x31,             /* ScopeMetrics.metrics (LEN 49) */
    0x3a, 0x2a,             /* Metric.sum (7, LEN 42) */
    0x18, 0x01,             /* Sum.is_monotonic (3, VARINT) true */
    0x10, 0x01,             /* Sum.aggregation_temporality (2) DELTA */
    0x0a, 0x24,             /* Sum.data_points (1, LEN 36) */
    0x21,                   /* as_double (4, I64) 1.0 */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f,
    0x31,                   /* as_int (6, I64, sfixed64) -3 */
    0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x11,                   /* start_time_unix_nano (2, I64) 5 */
    0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x19,                   /* time_unix_nano (3, I64) 6 */
    0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x0a, 0x03, 'm', '.', 's', /* Metric.name (1) "m.s" */
};

/* A histogram (counted, not written) and an unknown fixed32 field 15 at
 * the top. */
static const uint8_t histogram_v[] = {
    0x0a, 0x09,             /* MetricsData.resource_metrics (LEN 9) */
    0x12, 0x07,             /* ResourceMetrics.scope_metrics (LEN 7) */
    0x12, 0x05,             /* ScopeMetrics.metrics (LEN 5) */
    0x0a, 0x01, 'h',        /* Metric.name "h" */
    0x4a, 0x00,             /* Metric.histogram (9, LEN 0) */
    0x7d, 0x01, 0x02, 0x03, 0x04, /* field 15, I32: unknown, skipped */
};

/* A Metric with a gauge and then a sum: the sum (the oneof's last)
 * wins. */
static const uint8_t oneof_v[] = {
    0x0a, 0x21,             /* MetricsData.resource_metrics (LEN 33) */
    0x12, 0x1f,             /* ResourceMetrics.scope_metrics (LEN 31) */
    0x12, 0x1d,             /* ScopeMetrics.metrics (LEN 29) */
    0x2a, 0x0b,             /* Metric.gauge (5, LEN 11) */
    0x0a, 0x09,             /* Gauge.data_points (LEN 9) */
    0x31, 0x01, 0, 0, 0, 0, 0, 0, 0, /* as_int 1 */
    0x3a, 0x0b,             /* Metric.sum (7, LEN 11) */
    0x0a, 0x09,             /* Sum.data_points (LEN 9) */
    0x31, 0x02, 0, 0, 0, 0, 0, 0, 0, /* as_int 2 */
    0x0a, 0x01, 'o',        /* Metric.name "o" */
};

/* One point with an attribute of each AnyValue kind and no value. */
static const uint8_t attrs_v[] = {
    0x0a, 0x5d,             /* MetricsData.resource_metrics (LEN 93) */
    0x12, 0x5b,             /* ResourceMetrics.scope_metrics (LEN 91) */
    0x12, 0x59,             /* ScopeMetrics.metrics (LEN 89) */
    0x0a, 0x01, 'q',        /* Metric.name "q" */
    0x2a, 0x54,             /* Metric.gauge (LEN 84) */
    0x0a, 0x52,             /* Gauge.data_points (LEN 82) */
    0x3a, 0x0a,             /* attributes (LEN 10): s = "x\"\n" */
    0x0a, 0x01, 's', 0x12, 0x05, 0x0a, 0x03, 'x', '"', '\n',
    0x3a, 0x07,             /* attributes (LEN 7): b = bool_value (2) true */
    0x0a, 0x01, 'b', 0x12, 0x02, 0x10, 0x01,
    0x3a, 0x0e,             /* attributes (LEN 14): d = double_value (4) */
    0x0a, 0x01, 'd', 0x12, 0x09, 0x21,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f, /* 0.5 */
    0x3a, 0x10,             /* attributes (LEN 16): a = array_value (5) */
    0x0a, 0x01, 'a', 0x12, 0x0b, 0x2a, 0x09, /* ArrayValue (LEN 9) */
    0x0a, 0x02, 0x18, 0x01, /* ArrayValue.values (1): int_value 1 */
    0x0a, 0x03, 0x0a, 0x01, 'y', /* ArrayValue.values: string "y" */
    0x3a, 0x0d,             /* attributes (LEN 13): kv = kvlist_value (6) */
    0x0a, 0x02, 'k', 'v', 0x12, 0x07, 0x32, 0x05, /* KeyValueList (LEN 5) */
    0x0a, 0x03, 0x0a, 0x01, 'z', /* KeyValueList.values: KeyValue "z" */
    0x3a, 0x0a,             /* attributes (LEN 10): by = bytes_value (7) */
    0x0a, 0x02, 'b', 'y', 0x12, 0x04, 0x3a, 0x02, 0x00, 0xff,
};

static const char *
decode(const uint8_t *p, size_t n, gr_buf_t *out, gr_otlp_stats_t *st,
       int *rc)
{
    static char why[128];
    gr_buf_reset(out);
    *rc = gr_otlp_to_jsonl(p, n, "", out, st, why, sizeof why);
    return *rc == 0 ? gr_buf_cstr(out) : why;
}

START_TEST(test_gauge)
{
    gr_buf_t out = GR_BUF_INIT;
    gr_otlp_stats_t st;
    int rc;
    const char *s = decode(gauge_v, sizeof gauge_v, &out, &st, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "{\"metric\":\"m.g\",\"type\":\"gauge\",\"value\":2.5,"
                        "\"time_unix_nano\":1000,\"start_time_unix_nano\":0,"
                        "\"attributes\":{\"k\":7},\"resource\":{\"host\":"
                        "\"h1\"}}\n");
    ck_assert_int_eq(st.metrics, 1);
    ck_assert_int_eq(st.points, 1);
    ck_assert_int_eq(st.skipped, 0);
    /* the prefix starts every line */
    gr_buf_reset(&out);
    ck_assert_int_eq(gr_otlp_to_jsonl(gauge_v, sizeof gauge_v, "\"x\":1,",
                                      &out, &st, NULL, 0),
                     0);
    ck_assert(strncmp(gr_buf_cstr(&out), "{\"x\":1,\"metric\"", 15) == 0);
    gr_buf_fini(&out);
}
END_TEST

START_TEST(test_sum_and_order)
{
    gr_buf_t out = GR_BUF_INIT;
    gr_otlp_stats_t st;
    int rc;
    const char *s = decode(sum_v, sizeof sum_v, &out, &st, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "{\"metric\":\"m.s\",\"type\":\"sum\",\"temporality\":"
                        "\"delta\",\"monotonic\":true,\"value\":-3,"
                        "\"time_unix_nano\":6,\"start_time_unix_nano\":5,"
                        "\"attributes\":{},\"resource\":{}}\n");
    s = decode(oneof_v, sizeof oneof_v, &out, &st, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "{\"metric\":\"o\",\"type\":\"sum\",\"temporality\":"
                        "\"unspecified\",\"monotonic\":false,\"value\":2,"
                        "\"time_unix_nano\":0,\"start_time_unix_nano\":0,"
                        "\"attributes\":{},\"resource\":{}}\n");
    ck_assert_int_eq(st.points, 1);
    s = decode(histogram_v, sizeof histogram_v, &out, &st, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "");
    ck_assert_int_eq(st.metrics, 1);
    ck_assert_int_eq(st.skipped, 1);
    ck_assert_int_eq(st.points, 0);
    /* nothing at all is an empty MetricsData */
    s = decode(NULL, 0, &out, &st, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(st.metrics, 0);
    gr_buf_fini(&out);
}
END_TEST

START_TEST(test_attribute_kinds)
{
    gr_buf_t out = GR_BUF_INIT;
    gr_otlp_stats_t st;
    int rc;
    const char *s = decode(attrs_v, sizeof attrs_v, &out, &st, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(s, "{\"metric\":\"q\",\"type\":\"gauge\",\"value\":null,"
                        "\"time_unix_nano\":0,\"start_time_unix_nano\":0,"
                        "\"attributes\":{\"s\":\"x\\\"\\n\",\"b\":true,"
                        "\"d\":0.5,\"a\":[1,\"y\"],\"kv\":{\"z\":null},"
                        "\"by\":\"AP8=\"},\"resource\":{}}\n");
    gr_buf_fini(&out);
}
END_TEST

/* A value's double: NaN and infinities as protobuf's JSON mapping writes
 * them, others in their shortest exact form. */
START_TEST(test_doubles)
{
    static const struct {
        uint8_t le[8];
        const char *json;
    } v[] = {
        { { 0, 0, 0, 0, 0, 0, 0xf8, 0x7f }, "\"NaN\"" },
        { { 0, 0, 0, 0, 0, 0, 0xf0, 0x7f }, "\"Infinity\"" },
        { { 0, 0, 0, 0, 0, 0, 0xf0, 0xff }, "\"-Infinity\"" },
        { { 0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f }, "0.1" },
        { { 0, 0, 0, 0, 0, 0, 0, 0x80 }, "-0" },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t p[19] = {
            0x0a, 0x11, /* MetricsData.resource_metrics (LEN 17) */
            0x12, 0x0f, /* ResourceMetrics.scope_metrics (LEN 15) */
            0x12, 0x0d, /* ScopeMetrics.metrics (LEN 13) */
            0x2a, 0x0b, /* Metric.gauge (LEN 11) */
            0x0a, 0x09, /* Gauge.data_points (LEN 9) */
            0x21,       /* NumberDataPoint.as_double (4, I64), then 8 */
        };
        gr_buf_t out = GR_BUF_INIT;
        char want[128];
        memcpy(p + 11, v[i].le, 8);
        ck_assert_int_eq(gr_otlp_to_jsonl(p, sizeof p, "", &out, NULL, NULL, 0),
                         0);
        snprintf(want, sizeof want, "\"value\":%s,", v[i].json);
        ck_assert_msg(strstr(gr_buf_cstr(&out), want) != NULL, "%s in %s",
                      want, gr_buf_cstr(&out));
        gr_buf_fini(&out);
    }
}
END_TEST

static const struct {
    const char *what;
    uint8_t p[16];
    size_t n;
} bad[] = {
    { "length past the end", { 0x0a, 0x05, 0x12 }, 3 },
    /* field 1 as a varint of 10 bytes whose last has more than 1 bit */
    { "varint past 64 bits",
      { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f },
      11 },
    { "truncated varint", { 0x08, 0xff }, 2 },
    { "group", { 0x0b, 0x0c }, 2 },         /* field 1, wire types 3, 4 */
    { "wire type 7", { 0x0f }, 1 },
    { "field number 0", { 0x02, 0x00 }, 2 }, /* field 0, LEN 0 */
    { "truncated fixed64", { 0x09, 1, 2, 3 }, 4 },
    /* a Metric named C3 28 (not UTF-8) with one empty point */
    { "name not UTF-8",
      { 0x0a, 0x0c, 0x12, 0x0a, 0x12, 0x08, 0x0a, 0x02, 0xc3, 0x28, 0x2a,
        0x02, 0x0a, 0x00 },
      14 },
    /* the same named ED A0 80, a UTF-16 surrogate written as UTF-8 */
    { "surrogate in a name",
      { 0x0a, 0x0d, 0x12, 0x0b, 0x12, 0x09, 0x0a, 0x03, 0xed, 0xa0, 0x80,
        0x2a, 0x02, 0x0a, 0x00 },
      15 },
};

START_TEST(test_malformed)
{
    gr_buf_t out = GR_BUF_INIT;
    char why[128];

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_buf_reset(&out);
        gr_buf_puts(&out, "abc");
        ck_assert_msg(gr_otlp_to_jsonl(bad[i].p, bad[i].n, "", &out, NULL, why,
                                       sizeof why) == -1,
                      "%s accepted", bad[i].what);
        ck_assert_int_eq(out.len, 3); /* untouched */
        ck_assert(why[0] != '\0');
    }
    /* a point's output is cut back too: a valid gauge line, then a metric
     * whose point has a truncated attribute */
    {
        uint8_t p[sizeof gauge_v + 16];
        static const uint8_t tail[] = {
            0x0a, 0x0a,       /* MetricsData.resource_metrics (LEN 10) */
            0x12, 0x08,       /* scope_metrics (LEN 8) */
            0x12, 0x06,       /* metrics (LEN 6) */
            0x2a, 0x04,       /* gauge (LEN 4) */
            0x0a, 0x02,       /* data_points (LEN 2) */
            0x3a, 0x05,       /* attributes (LEN 5): past its point */
        };
        memcpy(p, gauge_v, sizeof gauge_v);
        memcpy(p + sizeof gauge_v, tail, sizeof tail);
        gr_buf_reset(&out);
        gr_buf_puts(&out, "abc");
        ck_assert_int_eq(gr_otlp_to_jsonl(p, sizeof gauge_v + sizeof tail, "",
                                          &out, NULL, why, sizeof why),
                         -1);
        ck_assert_int_eq(out.len, 3);
    }
    gr_buf_fini(&out);
}
END_TEST

/* tag then a length-delimited payload (varint length) into out at *n. */
static void
put_len(uint8_t *out, size_t *n, uint8_t tag, const uint8_t *p, size_t len)
{
    size_t l = len;
    out[(*n)++] = tag;
    while (l >= 0x80) {
        out[(*n)++] = (uint8_t)(l | 0x80);
        l >>= 7;
    }
    out[(*n)++] = (uint8_t)l;
    memmove(out + *n, p, len);
    *n += len;
}

/* AnyValue arrays nested past 32: malformed, not a deep recursion. */
START_TEST(test_nesting_bound)
{
    for (int depth = 29; depth <= 34; depth++) {
        static uint8_t a[4096], b[4096];
        size_t n = 2, k;
        gr_buf_t out = GR_BUF_INIT;
        int rc;
        a[0] = 0x18; /* AnyValue.int_value (3) 1 */
        a[1] = 0x01;
        for (int i = 0; i < depth; i++) {
            /* AnyValue{array_value (5): ArrayValue{values (1): [a]}} */
            k = 0;
            put_len(b, &k, 0x0a, a, n);
            n = 0;
            put_len(a, &n, 0x2a, b, k);
        }
        /* KeyValue{key "k", value} */
        k = 0;
        put_len(b, &k, 0x0a, (const uint8_t *)"k", 1);
        put_len(b, &k, 0x12, a, n);
        /* NumberDataPoint.attributes, Gauge.data_points, Metric.gauge,
         * ScopeMetrics.metrics, ResourceMetrics.scope_metrics,
         * MetricsData.resource_metrics */
        n = 0;
        put_len(a, &n, 0x3a, b, k);
        k = 0;
        put_len(b, &k, 0x0a, a, n);
        n = 0;
        put_len(a, &n, 0x2a, b, k);
        k = 0;
        put_len(b, &k, 0x12, a, n);
        n = 0;
        put_len(a, &n, 0x12, b, k);
        k = 0;
        put_len(b, &k, 0x0a, a, n);
        rc = gr_otlp_to_jsonl(b, k, "", &out, NULL, NULL, 0);
        /* the attribute's value is depth 1, each array adds one: the
         * innermost int is at 1 + depth, 32 at most */
        ck_assert_int_eq(rc, 1 + depth <= 32 ? 0 : -1);
        gr_buf_fini(&out);
    }
}
END_TEST

Suite *
suite_telemetry_otlp(void)
{
    Suite *s = suite_create("telemetry/otlp");
    TCase *tc = tcase_create("otlp");
    tcase_add_test(tc, test_gauge);
    tcase_add_test(tc, test_sum_and_order);
    tcase_add_test(tc, test_attribute_kinds);
    tcase_add_test(tc, test_doubles);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_nesting_bound);
    suite_add_tcase(s, tc);
    return s;
}
