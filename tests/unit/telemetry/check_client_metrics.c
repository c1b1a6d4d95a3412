/* CLIENT_METRICS configs (telemetry/client_metrics.c): Kafka's checks in
 * its order and wording, values as DescribeConfigs gives them, matching
 * (whole attributes, every selector, null attributes), Java's String
 * hash and HashMap order. The messages are what Kafka 4.4.0 answered
 * (compat/telemetry/raw.py transcript). */
#include "../unit.h"

#include "core/arena.h"
#include "telemetry/client_metrics.h"

#include <string.h>

static const struct {
    const char *key, *value;
    gr_kerr_t err;
    const char *msg;
} checks[] = {
    { "nope", "1", GR_KERR_INVALID_REQUEST,
      "Unknown client metrics configuration: nope" },
    { "interval.ms", "99", GR_KERR_INVALID_REQUEST,
      "Invalid value 99 for interval.ms, interval must be between 100 and "
      "3600000 (1 hour)" },
    { "interval.ms", "3600001", GR_KERR_INVALID_REQUEST,
      "Invalid value 3600001 for interval.ms, interval must be between 100 "
      "and 3600000 (1 hour)" },
    { "interval.ms", "", GR_KERR_INVALID_CONFIG,
      "Invalid value  for configuration interval.ms: Not a number of type "
      "INT" },
    { "interval.ms", "2147483648", GR_KERR_INVALID_CONFIG,
      "Invalid value 2147483648 for configuration interval.ms: Not a number "
      "of type INT" },
    { "interval.ms", " +100 ", GR_KERR_NONE, NULL },
    { "interval.ms", "3600000", GR_KERR_NONE, NULL },
    { "metrics", "a, b,a", GR_KERR_NONE, NULL }, /* duplicates dropped */
    { "metrics", "", GR_KERR_NONE, NULL },
    { "metrics", "a,", GR_KERR_INVALID_CONFIG,
      "Configuration 'metrics' values must not be empty." },
    { "match", "client_id", GR_KERR_INVALID_CONFIG,
      "Illegal client matching pattern: client_id" },
    { "match", "client_id=", GR_KERR_INVALID_CONFIG,
      "Illegal client matching pattern: client_id=" },
    { "match", "=x", GR_KERR_INVALID_CONFIG,
      "Illegal client matching pattern: =x" },
    { "match", "client_id==x", GR_KERR_INVALID_CONFIG,
      "Illegal client matching pattern: client_id==x" },
    /* String.split drops trailing empty parts: two parts */
    { "match", "client_id=x==", GR_KERR_NONE, NULL },
    { "match", " client_id = x.* , client_source_port=\\d+", GR_KERR_NONE,
      NULL },
    /* Java-only syntax: Kafka compiles it, core/regex.h refuses it (a
     * difference, see compat/telemetry/scenarios.sh) */
    { "match", "client_software_version=(?i)x", GR_KERR_INVALID_CONFIG,
      "Illegal client matching pattern: client_software_version=(?i)x" },
};

START_TEST(test_validate)
{
    gr_arena_t *a = gr_arena_new(4096);
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        const char *msg = NULL;
        gr_kerr_t err = gr_cm_validate("s", &checks[i].key, &checks[i].value,
                                       1, a, &msg);
        ck_assert_msg(err == checks[i].err, "%s=%s: %d (%s)", checks[i].key,
                      checks[i].value, err, msg ? msg : "");
        if (checks[i].msg != NULL)
            ck_assert_str_eq(msg, checks[i].msg);
    }
    {
        const char *msg = NULL, *k = "metrics", *v = "a";
        ck_assert_int_eq(gr_cm_validate("", &k, &v, 1, a, &msg),
                         GR_KERR_INVALID_REQUEST);
        ck_assert_str_eq(msg, "Subscription name can't be empty");
        /* no configs: valid (a subscription being removed) */
        ck_assert_int_eq(gr_cm_validate("s", NULL, NULL, 0, a, &msg),
                         GR_KERR_NONE);
    }
    /* Kafka's order: an unknown key before a bad value; the metrics list
     * before the interval */
    {
        const char *k[] = { "interval.ms", "metrics", "x" };
        const char *v[] = { "soon", "a,", "1" };
        const char *msg = NULL;
        ck_assert_int_eq(gr_cm_validate("s", k, v, 3, a, &msg),
                         GR_KERR_INVALID_REQUEST);
        ck_assert_int_eq(gr_cm_validate("s", k, v, 2, a, &msg),
                         GR_KERR_INVALID_CONFIG);
        ck_assert_str_eq(msg,
                         "Configuration 'metrics' values must not be empty.");
    }
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_describe_values)
{
    gr_arena_t *a = gr_arena_new(4096);
    int type;
    const char *doc;
    ck_assert_str_eq(gr_cm_describe_value("metrics", " a , b,a ", a), "a,b");
    ck_assert_str_eq(gr_cm_describe_value("metrics", NULL, a), "");
    ck_assert_str_eq(gr_cm_describe_value("interval.ms", "0500", a), "500");
    ck_assert_str_eq(gr_cm_describe_value("interval.ms", NULL, a), "300000");
    ck_assert_str_eq(gr_cm_describe_value("match", "client_id=x", a),
                     "client_id=x");
    /* Kafka's HashMap order of the three keys */
    ck_assert_str_eq(gr_cm_key_at(0, &type, &doc), "interval.ms");
    ck_assert_int_eq(type, 3);
    ck_assert_str_eq(gr_cm_key_at(1, &type, &doc), "match");
    ck_assert_int_eq(type, 7);
    ck_assert_str_eq(gr_cm_key_at(2, &type, &doc), "metrics");
    ck_assert_str_eq(doc, "Telemetry metric name prefix list");
    ck_assert_ptr_null(gr_cm_key_at(3, NULL, NULL));
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_matching)
{
    const char *k[] = { "match" }, *v[] = { "client_id=abc, "
                                            "client_software_name=j.*" };
    const char *attrs[GR_CM_NATTRS] = { "id", "abc", "java", "4.4",
                                        "127.0.0.1", "5000" };
    gr_cm_sub_t *s = gr_cm_sub_new("s", k, v, 1);

    ck_assert_ptr_nonnull(s);
    ck_assert(gr_cm_sub_matches(s, attrs));
    attrs[GR_CM_CLIENT_ID] = "abcd"; /* the whole attribute must match */
    ck_assert(!gr_cm_sub_matches(s, attrs));
    attrs[GR_CM_CLIENT_ID] = "xabc";
    ck_assert(!gr_cm_sub_matches(s, attrs));
    attrs[GR_CM_CLIENT_ID] = NULL; /* a null client id matches nothing */
    ck_assert(!gr_cm_sub_matches(s, attrs));
    attrs[GR_CM_CLIENT_ID] = "abc";
    attrs[GR_CM_CLIENT_SOFTWARE_NAME] = "librdkafka";
    ck_assert(!gr_cm_sub_matches(s, attrs));
    gr_cm_sub_destroy(s);

    /* no match: every client; the last item of a selector wins */
    v[0] = "client_source_port=1, client_source_port=5\\d+";
    s = gr_cm_sub_new("s", k, v, 1);
    ck_assert(gr_cm_sub_matches(s, attrs));
    ck_assert_int_eq(s->interval_ms, 300000);
    ck_assert_int_eq(s->nmetrics, 0);
    gr_cm_sub_destroy(s);
    s = gr_cm_sub_new("s", NULL, NULL, 0);
    ck_assert(gr_cm_sub_matches(s, attrs));
    gr_cm_sub_destroy(s);
}
END_TEST

START_TEST(test_java_hash)
{
    /* values of Java's String.hashCode() */
    ck_assert_int_eq(gr_java_string_hash("metrics", 7), 955826371);
    ck_assert_int_eq(gr_java_string_hash("interval.ms", 11), -1851792529);
    ck_assert_int_eq(gr_java_string_hash("org.apache.kafka.producer.", 26),
                     -672233538);
    ck_assert_int_eq(gr_java_string_hash("\xc3\xa9t\xc3\xa9", 5), 227742);
    /* U+1F600 counts as its two UTF-16 surrogates */
    ck_assert_int_eq(gr_java_string_hash("a\xf0\x9f\x98\x80" "b", 6),
                     57849694);
    ck_assert_int_eq(gr_java_string_hash("", 0), 0);
}
END_TEST

START_TEST(test_java_order)
{
    /* HashMap: interval.ms (bucket 0), match (8), metrics (11), put in
     * any order */
    const char *keys[] = { "metrics", "interval.ms", "match" };
    int order[3];
    gr_java_hash_order(keys, 3, GR_JAVA_HASHMAP, order);
    ck_assert_int_eq(order[0], 1);
    ck_assert_int_eq(order[1], 2);
    ck_assert_int_eq(order[2], 0);
    /* "Aa" and "BB" hash alike: insertion order breaks the tie */
    {
        const char *tie[] = { "BB", "x", "Aa" };
        int o[3];
        gr_java_hash_order(tie, 3, GR_JAVA_HASHMAP, o);
        ck_assert_int_eq(gr_java_string_hash("Aa", 2),
                         gr_java_string_hash("BB", 2));
        ck_assert_int_eq(o[0], 0); /* BB, Aa (bucket 0), x (8) */
        ck_assert_int_eq(o[1], 2);
        ck_assert_int_eq(o[2], 1);
    }
}
END_TEST

Suite *
suite_telemetry_client_metrics(void)
{
    Suite *s = suite_create("telemetry/client_metrics");
    TCase *tc = tcase_create("client_metrics");
    tcase_add_test(tc, test_validate);
    tcase_add_test(tc, test_describe_values);
    tcase_add_test(tc, test_matching);
    tcase_add_test(tc, test_java_hash);
    tcase_add_test(tc, test_java_order);
    suite_add_tcase(s, tc);
    return s;
}
