/* Client telemetry (KIP-714) through the dispatcher, a broker in a temp
 * dir: CLIENT_METRICS config resources (IncrementalAlterConfigs,
 * AlterConfigs, DescribeConfigs, ListConfigResources, persisted across a
 * restart, a failed store), ApiVersions with and without a telemetry
 * file, GetTelemetrySubscriptions (matching, throttling, Kafka's
 * subscription ids and metric order, the cache's bound, expiry and the
 * connection that made an instance), PushTelemetry (every error, in
 * Kafka's order) and the export to the telemetry file. Expected values
 * marked "Kafka 4.4" are what a Kafka 4.4.0 broker answered to the same
 * requests (compat/telemetry/raw.py transcript). */
#include "../unit.h"
#include "brokertest.h"

#include "api/configs.h"
#include "core/compress.h"
#include "core/fault.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"
#include "telemetry/telemetry.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct op {
    const char *key;
    int8_t op; /* 0 SET 1 DELETE 2 APPEND 3 SUBTRACT */
    const char *value;
} op_t;

static gr_incremental_alter_configs_response_alter_configs_resource_response_t *
inc(gr_brokertest_t *bt, const char *name, const op_t *ops, int n,
    bool validate)
{
    gr_incremental_alter_configs_request_t rq;
    gr_incremental_alter_configs_request_alter_configs_resource_t r;
    gr_incremental_alter_configs_request_alterable_config_t *c =
        gr_arena_zalloc(bt->a, (size_t)(n + 1) * sizeof(*c));
    gr_incremental_alter_configs_response_t *rs;

    for (int i = 0; i < n; i++) {
        c[i].name = gr_str_c(ops[i].key);
        c[i].config_operation = ops[i].op;
        c[i].value = ops[i].value ? gr_str_c(ops[i].value) : GR_STR_NULL;
    }
    gr_incremental_alter_configs_request_init(&rq);
    gr_incremental_alter_configs_request_alter_configs_resource_init(&r);
    r.resource_type = GR_RESOURCE_CLIENT_METRICS;
    r.resource_name = gr_str_c(name);
    r.configs = c;
    r.configs_cnt = n;
    rq.resources = &r;
    rq.resources_cnt = 1;
    rq.validate_only = validate;
    rs = gr_brokertest_call(bt, GR_API_INCREMENTAL_ALTER_CONFIGS, 1, &rq);
    ck_assert_int_eq(rs->responses_cnt, 1);
    return &rs->responses[0];
}

/* IncrementalAlterConfigs of one key: its error code; msg checked if
 * given. */
static void
inc1(gr_brokertest_t *bt, const char *name, const char *key, int8_t op,
     const char *value, int16_t err, const char *msg)
{
    op_t o = { key, op, value };
    gr_incremental_alter_configs_response_alter_configs_resource_response_t
        *r = inc(bt, name, &o, 1, false);
    ck_assert_msg(r->error_code == err, "%s %d %s: %d (%.*s)", key, op,
                  value ? value : "null", r->error_code,
                  r->error_message.len > 0 ? r->error_message.len : 0,
                  r->error_message.ptr ? r->error_message.ptr : "");
    if (msg != NULL)
        ck_assert(gr_str_eq_cstr(&r->error_message, msg));
}

/* AlterConfigs: the resource's configs become kv[0..2n). */
static int16_t
alter(gr_brokertest_t *bt, const char *name, const char *const *kv, int n)
{
    gr_alter_configs_request_t rq;
    gr_alter_configs_request_alter_configs_resource_t r;
    gr_alter_configs_request_alterable_config_t *c =
        gr_arena_zalloc(bt->a, (size_t)(n + 1) * sizeof(*c));
    gr_alter_configs_response_t *rs;

    for (int i = 0; i < n; i++) {
        c[i].name = gr_str_c(kv[2 * i]);
        c[i].value = kv[2 * i + 1] ? gr_str_c(kv[2 * i + 1]) : GR_STR_NULL;
    }
    gr_alter_configs_request_init(&rq);
    gr_alter_configs_request_alter_configs_resource_init(&r);
    r.resource_type = GR_RESOURCE_CLIENT_METRICS;
    r.resource_name = gr_str_c(name);
    r.configs = c;
    r.configs_cnt = n;
    rq.resources = &r;
    rq.resources_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_ALTER_CONFIGS, 2, &rq);
    return rs->responses[0].error_code;
}

static gr_describe_configs_response_describe_configs_result_t *
describe(gr_brokertest_t *bt, const char *name)
{
    gr_describe_configs_request_t rq;
    gr_describe_configs_request_describe_configs_resource_t r;
    gr_describe_configs_response_t *rs;

    gr_describe_configs_request_init(&rq);
    gr_describe_configs_request_describe_configs_resource_init(&r);
    r.resource_type = GR_RESOURCE_CLIENT_METRICS;
    r.resource_name = gr_str_c(name);
    r.configuration_keys_cnt = -1;
    rq.resources = &r;
    rq.resources_cnt = 1;
    rq.include_synonyms = true;
    rq.include_documentation = true;
    rs = gr_brokertest_call(bt, GR_API_DESCRIBE_CONFIGS, 4, &rq);
    ck_assert_int_eq(rs->results_cnt, 1);
    return &rs->results[0];
}

/* The value DescribeConfigs gives key of name. */
static const gr_str_t *
value_of(gr_brokertest_t *bt, const char *name, const char *key)
{
    gr_describe_configs_response_describe_configs_result_t *r =
        describe(bt, name);
    for (int32_t i = 0; i < r->configs_cnt; i++)
        if (gr_str_eq_cstr(&r->configs[i].name, key))
            return &r->configs[i].value;
    ck_abort_msg("%s has no %s", name, key);
    return NULL;
}

static gr_list_config_resources_response_t *
list(gr_brokertest_t *bt, int16_t ver, const int8_t *types, int n)
{
    gr_list_config_resources_request_t rq;
    gr_list_config_resources_request_init(&rq);
    rq.resource_types = (int8_t *)types;
    rq.resource_types_cnt = n;
    return gr_brokertest_call(bt, GR_API_LIST_CONFIG_RESOURCES, ver, &rq);
}

static bool
listed(const gr_list_config_resources_response_t *rs, const char *name,
       int8_t type)
{
    for (int32_t i = 0; i < rs->config_resources_cnt; i++)
        if (gr_str_eq_cstr(&rs->config_resources[i].resource_name, name) &&
            rs->config_resources[i].resource_type == type)
            return true;
    return false;
}

static gr_uuid_t
uid(uint64_t n)
{
    /* 0x1122334455667788 then n, big-endian, as raw.py's */
    gr_uuid_t u;
    uint64_t hi = 0x1122334455667788ull;
    for (int i = 0; i < 8; i++) {
        u.b[i] = (uint8_t)(hi >> (56 - 8 * i));
        u.b[8 + i] = (uint8_t)(n >> (56 - 8 * i));
    }
    return u;
}

static gr_get_telemetry_subscriptions_response_t *
get(gr_brokertest_t *bt, gr_uuid_t id)
{
    gr_get_telemetry_subscriptions_request_t rq;
    gr_get_telemetry_subscriptions_request_init(&rq);
    rq.client_instance_id = id;
    return gr_brokertest_call(bt, GR_API_GET_TELEMETRY_SUBSCRIPTIONS, 0, &rq);
}

static int16_t
push(gr_brokertest_t *bt, gr_uuid_t id, int32_t sub, const void *p, size_t n,
     int8_t codec, bool terminating)
{
    gr_push_telemetry_request_t rq;
    gr_push_telemetry_response_t *rs;
    gr_push_telemetry_request_init(&rq);
    rq.client_instance_id = id;
    rq.subscription_id = sub;
    rq.terminating = terminating;
    rq.compression_type = codec;
    rq.metrics.ptr = p;
    rq.metrics.len = (int32_t)n;
    rs = gr_brokertest_call(bt, GR_API_PUSH_TELEMETRY, 0, &rq);
    return rs->error_code;
}

/* ApiVersions v3 naming the client software; the keys advertised. */
static gr_api_versions_response_t *
api_versions(gr_brokertest_t *bt, const char *name, const char *version)
{
    gr_api_versions_request_t rq;
    gr_api_versions_request_init(&rq);
    rq.client_software_name = gr_str_c(name);
    rq.client_software_version = gr_str_c(version);
    return gr_brokertest_call(bt, GR_API_API_VERSIONS, 3, &rq);
}

static bool
advertised(const gr_api_versions_response_t *rs, int16_t key)
{
    for (int32_t i = 0; i < rs->api_keys_cnt; i++)
        if (rs->api_keys[i].api_key == key)
            return true;
    return false;
}

/* A new connection to the same broker (the old one closes). */
static void
reconnect(gr_brokertest_t *bt)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    ck_assert_int_eq(getpeername(bt->fd, (struct sockaddr *)&sa, &len), 0);
    close(bt->fd);
    bt->fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(bt->fd, (struct sockaddr *)&sa, sizeof sa), 0);
}

static void
sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* One OTLP gauge, written by hand (see tests/unit/telemetry/check_otlp.c
 * for the field numbers): MetricsData{resource_metrics: [{scope_metrics:
 * [{metrics: [{name: "org.apache.kafka.producer.test.gauge", gauge:
 * {data_points: [{time_unix_nano: 1700000000000000000, as_double:
 * 1.5}]}}]}]}]} */
static const uint8_t gauge_pb[] = {
    0x0a, 0x40,                                      /* resource_metrics */
    0x12, 0x3e,                                      /* scope_metrics */
    0x12, 0x3c,                                      /* metrics (60) */
    0x0a, 0x24,                                      /* Metric.name (36) */
    'o', 'r', 'g', '.', 'a', 'p', 'a', 'c', 'h', 'e', '.', 'k', 'a', 'f',
    'k', 'a', '.', 'p', 'r', 'o', 'd', 'u', 'c', 'e', 'r', '.', 't', 'e',
    's', 't', '.', 'g', 'a', 'u', 'g', 'e',
    0x2a, 0x14, 0x0a, 0x12,                          /* gauge, data_points */
    0x19, 0x00, 0x00, 0x2a, 0x36, 0xfe, 0x9c, 0x97, 0x17, /* time (I64) */
    0x21, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x3f, /* 1.5 (I64) */
};

/* --- config resources */

START_TEST(test_client_metrics_configs)
{
    static const char *const ov[] = { NULL };
    gr_brokertest_t bt;
    gr_describe_configs_response_describe_configs_result_t *d;
    gr_list_config_resources_response_t *ls;
    static const int8_t all[] = { 0 };
    static const int8_t cm[] = { 16, 16 };
    static const int8_t bad[] = { 2, 16, 99 };
    static const int8_t brokers[] = { 4, 8 };

    gr_brokertest_start(&bt, ov);
    /* Kafka 4.4's errors, in its order of checks */
    inc1(&bt, "s", "nope", 0, "1", GR_KERR_INVALID_REQUEST,
         "Unknown client metrics configuration: nope");
    inc1(&bt, "s", "interval.ms", 0, "99", GR_KERR_INVALID_REQUEST,
         "Invalid value 99 for interval.ms, interval must be between 100 and "
         "3600000 (1 hour)");
    inc1(&bt, "s", "interval.ms", 0, "soon", GR_KERR_INVALID_CONFIG,
         "Invalid value soon for configuration interval.ms: Not a number of "
         "type INT");
    inc1(&bt, "s", "metrics", 0, "a,,b", GR_KERR_INVALID_CONFIG,
         "Configuration 'metrics' values must not be empty.");
    inc1(&bt, "s", "match", 0, "client_id=a=b", GR_KERR_INVALID_CONFIG,
         "Illegal client matching pattern: client_id=a=b");
    inc1(&bt, "s", "match", 0, "client_id=a(b", GR_KERR_INVALID_CONFIG,
         "Illegal client matching pattern: client_id=a(b");
    inc1(&bt, "s", "match", 0, "client_name=x", GR_KERR_INVALID_CONFIG,
         "Illegal client matching pattern: client_name=x");
    inc1(&bt, "s", "metrics", 2, "a", GR_KERR_INVALID_CONFIG,
         "Can't APPEND to key metrics because its type is not LIST.");
    inc1(&bt, "s", "match", 3, "a", GR_KERR_INVALID_CONFIG,
         "Can't SUBTRACT to key match because its type is not LIST.");
    inc1(&bt, "s", "metrics", 0, NULL, GR_KERR_INVALID_REQUEST,
         "Null value not supported for : metrics");
    inc1(&bt, "", "metrics", 0, "a", GR_KERR_INVALID_REQUEST,
         "Subscription name can't be empty");
    {
        op_t dup[] = { { "metrics", 0, "a" }, { "metrics", 0, "b" } };
        ck_assert_int_eq(inc(&bt, "s", dup, 2, false)->error_code,
                         GR_KERR_INVALID_REQUEST);
    }
    /* a duplicate item is dropped, not refused (Kafka 4's ConfigDef);
     * validate_only makes nothing */
    {
        op_t o = { "metrics", 0, "a, b,a" };
        ck_assert_int_eq(inc(&bt, "s", &o, 1, true)->error_code, 0);
    }
    ls = list(&bt, 0, NULL, 0);
    ck_assert_int_eq(ls->config_resources_cnt, 0);
    ck_assert_ptr_null(bt.b->cluster->client_metrics);

    /* a name never set has the defaults (Kafka 4.4) */
    d = describe(&bt, "s");
    ck_assert_int_eq(d->error_code, 0);
    ck_assert(gr_str_eq_cstr(&d->error_message, ""));
    ck_assert_int_eq(d->configs_cnt, 3);
    ck_assert(gr_str_eq_cstr(&d->configs[0].name, "interval.ms"));
    ck_assert(gr_str_eq_cstr(&d->configs[0].value, "300000"));
    ck_assert_int_eq(d->configs[0].config_source, GR_CFGSRC_DEFAULT);
    ck_assert_int_eq(d->configs[0].config_type, 3); /* INT */
    ck_assert(gr_str_eq_cstr(&d->configs[0].documentation,
                             "Metrics push interval in milliseconds"));
    ck_assert(gr_str_eq_cstr(&d->configs[1].name, "match"));
    ck_assert(gr_str_eq_cstr(&d->configs[2].name, "metrics"));
    ck_assert(gr_str_eq_cstr(&d->configs[2].value, ""));
    ck_assert_int_eq(d->configs[2].config_type, 7); /* LIST */
    ck_assert_int_eq(d->configs[2].synonyms_cnt, 0);
    d = describe(&bt, "");
    ck_assert_int_eq(d->error_code, GR_KERR_INVALID_REQUEST);
    ck_assert(gr_str_eq_cstr(&d->error_message,
                             "Client metrics subscription name must not be "
                             "empty"));

    /* made by its first change; values as Kafka parses them */
    {
        op_t o[] = { { "metrics", 0, " p.a , p.b,p.a" },
                     { "interval.ms", 0, " 0500 " } };
        ck_assert_int_eq(inc(&bt, "s", o, 2, false)->error_code, 0);
    }
    d = describe(&bt, "s");
    ck_assert(gr_str_eq_cstr(&d->configs[0].value, "500"));
    ck_assert_int_eq(d->configs[0].config_source, GR_CFGSRC_CLIENT_METRICS);
    ck_assert_int_eq(d->configs[0].synonyms_cnt, 1);
    ck_assert_int_eq(d->configs[0].synonyms[0].source,
                     GR_CFGSRC_CLIENT_METRICS);
    ck_assert(gr_str_eq_cstr(&d->configs[0].synonyms[0].value, "500"));
    ck_assert_int_eq(d->configs[1].config_source, GR_CFGSRC_DEFAULT);
    ck_assert(gr_str_eq_cstr(&d->configs[2].value, "p.a,p.b"));
    ck_assert(!d->configs[2].read_only && !d->configs[2].is_sensitive);

    /* AlterConfigs replaces; ListConfigResources */
    {
        static const char *const kv[] = { "metrics", "*", "match",
                                          "client_id=x.*" };
        ck_assert_int_eq(alter(&bt, "t", kv, 2), 0);
    }
    ls = list(&bt, 0, NULL, 0);
    ck_assert_int_eq(ls->error_code, 0);
    ck_assert_int_eq(ls->config_resources_cnt, 2);
    ck_assert(listed(ls, "s", 16) && listed(ls, "t", 16));
    ls = list(&bt, 1, cm, 2);
    ck_assert_int_eq(ls->config_resources_cnt, 2);
    ls = list(&bt, 1, bad, 3);
    ck_assert_int_eq(ls->error_code, GR_KERR_UNSUPPORTED_VERSION);
    ck_assert_int_eq(ls->config_resources_cnt, 0);
    ls = list(&bt, 1, brokers, 2);
    ck_assert_int_eq(ls->config_resources_cnt, 2);
    /* Kafka's order: broker loggers before brokers */
    ck_assert_int_eq(ls->config_resources[0].resource_type, 8);
    ck_assert(gr_str_eq_cstr(&ls->config_resources[0].resource_name, "1"));
    ck_assert_int_eq(ls->config_resources[1].resource_type, 4);
    {
        gr_create_topics_request_t rq;
        gr_create_topics_request_creatable_topic_t t;
        gr_create_topics_request_init(&rq);
        gr_create_topics_request_creatable_topic_init(&t);
        t.name = gr_str_c("topic1");
        t.num_partitions = 1;
        t.replication_factor = 1;
        t.assignments_cnt = 0;
        t.configs_cnt = 0;
        rq.topics = &t;
        rq.topics_cnt = 1;
        gr_brokertest_call(&bt, GR_API_CREATE_TOPICS, 5, &rq);
    }
    ls = list(&bt, 1, all, 0); /* every type */
    ck_assert_int_eq(ls->config_resources_cnt, 5);
    ck_assert_int_eq(ls->config_resources[0].resource_type, 16);
    ck_assert_int_eq(ls->config_resources[4].resource_type, 2);
    ck_assert(listed(ls, "topic1", 2));

    /* a subscription whose configs all go is gone */
    {
        op_t o[] = { { "metrics", 1, NULL }, { "interval.ms", 1, NULL } };
        ck_assert_int_eq(inc(&bt, "s", o, 2, false)->error_code, 0);
    }
    ls = list(&bt, 0, NULL, 0);
    ck_assert_int_eq(ls->config_resources_cnt, 1);
    ck_assert(listed(ls, "t", 16));
    ck_assert_int_eq(alter(&bt, "t", NULL, 0), 0);
    ls = list(&bt, 0, NULL, 0);
    ck_assert_int_eq(ls->config_resources_cnt, 0);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Subscriptions are kept in gregor-configs/client-metrics and are back
 * after a restart, with the same subscription ids; a store that fails
 * changes nothing. */
START_TEST(test_client_metrics_persisted)
{
    gr_brokertest_t bt;
    gr_get_telemetry_subscriptions_response_t *g;
    gr_list_config_resources_response_t *ls;
    char path[256];
    int32_t sub;
    FILE *f;

    gr_brokertest_start(&bt, NULL);
    inc1(&bt, "a\nb=c]", "metrics", 0, "org.apache.kafka.producer.", 0, NULL);
    inc1(&bt, "a\nb=c]", "interval.ms", 0, "1000", 0, NULL);
    inc1(&bt, "plain", "match", 0, "client_id=nobody", 0, NULL);
    g = get(&bt, uid(9));
    ck_assert_int_eq(g->error_code, 0);
    ck_assert_int_eq(g->push_interval_ms, 1000);
    sub = g->subscription_id;
    snprintf(path, sizeof path, "%s/data/gregor-configs/client-metrics",
             bt.dir);
    ck_assert_ptr_nonnull(f = fopen(path, "r"));
    fclose(f);

    gr_brokertest_restart(&bt, NULL);
    ls = list(&bt, 0, NULL, 0);
    ck_assert_int_eq(ls->config_resources_cnt, 2);
    ck_assert(listed(ls, "a\nb=c]", 16) && listed(ls, "plain", 16));
    ck_assert(gr_str_eq_cstr(value_of(&bt, "a\nb=c]", "interval.ms"), "1000"));
    ck_assert(gr_str_eq_cstr(value_of(&bt, "plain", "match"),
                             "client_id=nobody"));
    g = get(&bt, uid(9));
    ck_assert_int_eq(g->error_code, 0);
    ck_assert_int_eq(g->subscription_id, sub);

    /* the store fails: the answer says so and nothing changed */
    ck_assert_int_eq(gr_fault_arm_spec("client_metrics.store:1:2"), 0);
    inc1(&bt, "plain", "match", 0, "client_id=somebody",
         GR_KERR_KAFKA_STORAGE_ERROR, NULL);
    inc1(&bt, "new", "metrics", 0, "x", GR_KERR_KAFKA_STORAGE_ERROR, NULL);
    gr_fault_clear();
    ck_assert(gr_str_eq_cstr(value_of(&bt, "plain", "match"),
                             "client_id=nobody"));
    ck_assert_int_eq(list(&bt, 0, NULL, 0)->config_resources_cnt, 2);

    /* removed, and still removed after a restart */
    ck_assert_int_eq(alter(&bt, "plain", NULL, 0), 0);
    ck_assert_int_eq(alter(&bt, "a\nb=c]", NULL, 0), 0);
    gr_brokertest_restart(&bt, NULL);
    ck_assert_int_eq(list(&bt, 0, NULL, 0)->config_resources_cnt, 0);
    gr_brokertest_stop(&bt);
}
END_TEST

/* --- ApiVersions */

START_TEST(test_advertised)
{
    gr_brokertest_t bt;
    gr_api_versions_response_t *rs;
    char kv[128];
    const char *ov[2] = { kv, NULL };

    gr_brokertest_start(&bt, NULL);
    rs = api_versions(&bt, "x", "1");
    ck_assert(!advertised(rs, GR_API_GET_TELEMETRY_SUBSCRIPTIONS));
    ck_assert(!advertised(rs, GR_API_PUSH_TELEMETRY));
    ck_assert(advertised(rs, GR_API_LIST_CONFIG_RESOURCES));
    /* unadvertised, still answered, as Kafka without an exporter */
    ck_assert_int_eq(get(&bt, uid(1))->error_code, 0);
    snprintf(kv, sizeof kv, "gregor.client.telemetry.file=%s/t.jsonl",
             bt.dir);
    gr_brokertest_restart(&bt, ov);
    rs = api_versions(&bt, "x", "1");
    ck_assert(advertised(rs, GR_API_GET_TELEMETRY_SUBSCRIPTIONS));
    ck_assert(advertised(rs, GR_API_PUSH_TELEMETRY));
    gr_brokertest_stop(&bt);
}
END_TEST

/* --- Get */

/* What Kafka 4.4 answered for the subscriptions of compat/telemetry/raw.py
 * ("get", "get other", "get many"): the metrics in its HashSet's order
 * and subscription ids over their text. */
START_TEST(test_get_matches_kafka)
{
    static const char *const many_order[] = {
        "x8",
        "org.apache.kafka.producer.m10",
        "org.apache.kafka.producer.m11",
        "org.apache.kafka.producer.",
        "org.apache.kafka.producer.m12",
        "org.apache.kafka.producer.m13",
        "org.apache.kafka.producer.m14",
        "org.apache.kafka.producer.m15",
        "org.apache.kafka.producer.m16",
        "org.apache.kafka.producer.m17",
        "org.apache.kafka.producer.m18",
        "org.apache.kafka.producer.m19",
        "org.apache.kafka.consumer.coordinator",
        "org.apache.kafka.producer.m00",
        "org.apache.kafka.other",
        "org.apache.kafka.producer.m09",
        "x0",
        "org.apache.kafka.producer.m01",
        "x1",
        "org.apache.kafka.producer.m02",
        "x2",
        "org.apache.kafka.producer.m03",
        "x3",
        "org.apache.kafka.producer.m04",
        "x4",
        "org.apache.kafka.producer.m05",
        "x5",
        "org.apache.kafka.producer.m06",
        "x6",
        "org.apache.kafka.producer.m07",
        "x7",
        "org.apache.kafka.producer.m08",
    };
    gr_brokertest_t bt;
    gr_get_telemetry_subscriptions_response_t *g;
    gr_buf_t d = GR_BUF_INIT, e = GR_BUF_INIT;

    gr_brokertest_start(&bt, NULL);
    {
        op_t a[] = { { "metrics", 0,
                       " org.apache.kafka.producer. , "
                       "org.apache.kafka.consumer.coordinator,"
                       "org.apache.kafka.producer." },
                     { "interval.ms", 0, " 0500 " } };
        ck_assert_int_eq(inc(&bt, "telemetry-raw-a", a, 2, false)->error_code,
                         0);
    }
    {
        static const char *const kv[] = {
            "metrics", "*", "interval.ms", "2000", "match",
            "client_software_name=gregor-raw, client_id=brokertest"
        };
        ck_assert_int_eq(alter(&bt, "telemetry-raw-b", kv, 3), 0);
    }
    inc1(&bt, "telemetry-raw-c", "metrics", 0, "org.apache.kafka.other", 0,
         NULL);
    inc1(&bt, "telemetry-raw-c", "match", 0, "client_id=nobody", 0, NULL);

    /* software gregor-raw: a and b match (b asks for all) */
    api_versions(&bt, "gregor-raw", "1.0");
    g = get(&bt, uid(1));
    ck_assert_int_eq(g->error_code, 0);
    {
        gr_uuid_t one = uid(1);
        ck_assert(gr_uuid_eq(&g->client_instance_id, &one));
    }
    ck_assert_int_eq(g->push_interval_ms, 500);
    ck_assert_int_eq(g->requested_metrics_cnt, 1);
    ck_assert(gr_str_eq_cstr(&g->requested_metrics[0], "*"));
    ck_assert_int_eq(g->subscription_id, -284943242); /* Kafka 4.4 */
    ck_assert(g->delta_temporality);
    ck_assert_int_eq(g->telemetry_max_bytes, 1048576);
    ck_assert_int_eq(g->accepted_compression_types_cnt, 4);
    ck_assert_int_eq(g->accepted_compression_types[0], 4); /* zstd first */
    ck_assert_int_eq(g->accepted_compression_types[3], 2);
    /* again at once: throttled, answered with only the error */
    g = get(&bt, uid(1));
    ck_assert_int_eq(g->error_code, GR_KERR_THROTTLING_QUOTA_EXCEEDED);
    ck_assert(gr_uuid_is_zero(&g->client_instance_id));
    ck_assert_int_eq(g->requested_metrics_cnt, 0);

    /* other software (a new connection): a alone */
    reconnect(&bt);
    api_versions(&bt, "other-client", "2.0");
    g = get(&bt, uid(2));
    ck_assert_int_eq(g->error_code, 0);
    ck_assert_int_eq(g->requested_metrics_cnt, 2);
    ck_assert(gr_str_eq_cstr(&g->requested_metrics[0],
                             "org.apache.kafka.producer."));
    ck_assert(gr_str_eq_cstr(&g->requested_metrics[1],
                             "org.apache.kafka.consumer.coordinator"));
    ck_assert_int_eq(g->subscription_id, -429221512); /* Kafka 4.4 */

    /* many metrics from overlapping subscriptions */
    inc1(&bt, "telemetry-raw-c", "match", 1, NULL, 0, NULL);
    for (int i = 0; i < 20; i++)
        gr_buf_printf(&d, "%sorg.apache.kafka.producer.m%02d", i ? "," : "",
                      i);
    for (int i = 10; i < 20; i++)
        gr_buf_printf(&e, "org.apache.kafka.producer.m%02d,", i);
    for (int i = 0; i < 9; i++)
        gr_buf_printf(&e, "%sx%d", i ? "," : "", i);
    {
        op_t o[] = { { "metrics", 0, gr_buf_cstr(&d) },
                     { "match", 0, "client_id=broker.*" } };
        ck_assert_int_eq(inc(&bt, "telemetry-raw-d", o, 2, false)->error_code,
                         0);
    }
    {
        op_t o[] = { { "metrics", 0, gr_buf_cstr(&e) },
                     { "interval.ms", 0, "700" },
                     { "match", 0, "client_id=broker.*" } };
        ck_assert_int_eq(inc(&bt, "telemetry-raw-e", o, 3, false)->error_code,
                         0);
    }
    g = get(&bt, uid(4));
    ck_assert_int_eq(g->error_code, 0);
    ck_assert_int_eq(g->push_interval_ms, 500);
    ck_assert_int_eq(g->requested_metrics_cnt, 32);
    for (int i = 0; i < 32; i++)
        ck_assert_msg(gr_str_eq_cstr(&g->requested_metrics[i], many_order[i]),
                      "metric %d: %.*s", i, g->requested_metrics[i].len,
                      g->requested_metrics[i].ptr);
    ck_assert_int_eq(g->subscription_id, -457380974); /* Kafka 4.4 */

    /* a zero id gets a new one: not reserved, no '-' in its text */
    for (int i = 0; i < 50; i++) {
        char b64[23];
        g = get(&bt, (gr_uuid_t){ { 0 } });
        ck_assert_int_eq(g->error_code, 0);
        ck_assert(!gr_uuid_is_zero(&g->client_instance_id));
        gr_uuid_to_base64(&g->client_instance_id, b64);
        ck_assert_ptr_null(strchr(b64, '-'));
    }
    gr_buf_fini(&d);
    gr_buf_fini(&e);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Matching on what the request and its connection say: the address as
 * Java writes it, the port, the software ApiVersions named ("unknown"
 * before, and after a v0-v2 ApiVersions), the header's client id. */
START_TEST(test_match_client)
{
    gr_brokertest_t bt;
    gr_get_telemetry_subscriptions_response_t *g;

    gr_brokertest_start(&bt, NULL);
    inc1(&bt, "peer", "metrics", 0, "peer.", 0, NULL);
    inc1(&bt, "peer", "match", 0,
         "client_source_address=127\\.0\\.0\\.1, "
         "client_source_port=[1-9]\\d*, client_id=brokertest",
         0, NULL);
    inc1(&bt, "elsewhere", "metrics", 0, "elsewhere.", 0, NULL);
    inc1(&bt, "elsewhere", "match", 0, "client_source_address=10\\..*", 0,
         NULL);
    inc1(&bt, "sw", "metrics", 0, "sw.", 0, NULL);
    inc1(&bt, "sw", "match", 0,
         "client_software_name=unknown, client_software_version=unknown", 0,
         NULL);
    g = get(&bt, uid(1));
    ck_assert_int_eq(g->requested_metrics_cnt, 2);
    ck_assert(gr_str_eq_cstr(&g->requested_metrics[0], "peer.") ||
              gr_str_eq_cstr(&g->requested_metrics[1], "peer."));
    ck_assert(gr_str_eq_cstr(&g->requested_metrics[0], "sw.") ||
              gr_str_eq_cstr(&g->requested_metrics[1], "sw."));
    /* named software: "sw" no longer matches a new instance */
    api_versions(&bt, "java", "4.4.0");
    g = get(&bt, uid(2));
    ck_assert_int_eq(g->requested_metrics_cnt, 1);
    ck_assert(gr_str_eq_cstr(&g->requested_metrics[0], "peer."));
    /* ApiVersions v0 names none: "unknown" again */
    {
        gr_api_versions_request_t rq;
        gr_api_versions_request_init(&rq);
        gr_brokertest_call(&bt, GR_API_API_VERSIONS, 0, &rq);
    }
    g = get(&bt, uid(3));
    ck_assert_int_eq(g->requested_metrics_cnt, 2);
    /* an instance keeps what it was first seen with */
    g = get(&bt, uid(2));
    ck_assert_int_eq(g->error_code, GR_KERR_THROTTLING_QUOTA_EXCEEDED);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A subscription change makes instances again (Kafka's
 * subscriptionUpdateVersion): a Get is not throttled, a push with the old
 * subscription id is UNKNOWN_SUBSCRIPTION_ID. */
START_TEST(test_subscription_change)
{
    gr_brokertest_t bt;
    gr_get_telemetry_subscriptions_response_t *g;
    int32_t old;

    gr_brokertest_start(&bt, NULL);
    inc1(&bt, "s", "metrics", 0, "a.", 0, NULL);
    g = get(&bt, uid(1));
    old = g->subscription_id;
    ck_assert_int_eq(g->push_interval_ms, 300000);
    ck_assert_int_eq(get(&bt, uid(1))->error_code,
                     GR_KERR_THROTTLING_QUOTA_EXCEEDED);
    inc1(&bt, "s", "metrics", 0, "b.", 0, NULL);
    g = get(&bt, uid(1));
    ck_assert_int_eq(g->error_code, 0);
    ck_assert_int_ne(g->subscription_id, old);
    ck_assert(gr_str_eq_cstr(&g->requested_metrics[0], "b."));
    ck_assert_int_eq(push(&bt, uid(1), old, "x", 1, 0, false),
                     GR_KERR_UNKNOWN_SUBSCRIPTION_ID);
    /* after UNKNOWN_SUBSCRIPTION_ID a Get is not throttled */
    g = get(&bt, uid(1));
    ck_assert_int_eq(g->error_code, 0);
    /* the same configs again: no change, the instance stays */
    inc1(&bt, "s", "metrics", 0, "b.", 0, NULL);
    ck_assert_int_eq(get(&bt, uid(1))->error_code,
                     GR_KERR_THROTTLING_QUOTA_EXCEEDED);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Expiry after max(cache expiry, 3 push intervals) since the last
 * request, removal when the connection that made an instance closes, and
 * the cache's bound of 16384. An instance keeps the attributes it was
 * first seen with: once its connection names other software, a Get that
 * still matches the old software's subscription found the instance
 * cached, one that does not found it gone and made anew. */
START_TEST(test_instance_lifetime)
{
    gr_brokertest_t bt;
    gr_get_telemetry_subscriptions_response_t *g;

    gr_brokertest_start(&bt, NULL);
    inc1(&bt, "s", "interval.ms", 0, "100", 0, NULL);
    inc1(&bt, "s", "metrics", 0, "x.", 0, NULL);
    inc1(&bt, "s", "match", 0, "client_software_name=a", 0, NULL);
    gr_telemetry_set_cache_expiry(bt.b->telemetry, 100);
    api_versions(&bt, "a", "1");
    ck_assert_int_eq(get(&bt, uid(1))->requested_metrics_cnt, 1);
    api_versions(&bt, "b", "1");
    sleep_ms(200); /* past the interval and 100 ms, not past 3 x 100 */
    g = get(&bt, uid(1));
    ck_assert_int_eq(g->error_code, 0);
    ck_assert_int_eq(g->requested_metrics_cnt, 1); /* cached, software a */
    sleep_ms(400); /* that Get renewed it for 300 ms: gone now */
    g = get(&bt, uid(1));
    ck_assert_int_eq(g->error_code, 0);
    ck_assert_int_eq(g->requested_metrics_cnt, 0); /* anew, software b */

    /* the connection that made it closes (interval 300000 here: a second
     * Get of a cached instance is throttled) */
    ck_assert_int_eq(get(&bt, uid(2))->error_code, 0);
    ck_assert_int_eq(get(&bt, uid(2))->error_code,
                     GR_KERR_THROTTLING_QUOTA_EXCEEDED);
    reconnect(&bt);
    sleep_ms(50); /* the broker sees the old one close first */
    ck_assert_int_eq(get(&bt, uid(2))->error_code, 0); /* a new instance */
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_cache_bound)
{
    gr_brokertest_t bt;

    gr_brokertest_start(&bt, NULL);
    /* without subscriptions the interval is 300000: a second Get of a
     * cached instance is throttled */
    ck_assert_int_eq(get(&bt, uid(0x100000))->error_code, 0);
    ck_assert_int_eq(get(&bt, uid(0x100000))->error_code,
                     GR_KERR_THROTTLING_QUOTA_EXCEEDED);
    for (uint64_t i = 1; i <= 16383; i++) {
        ck_assert_int_eq(get(&bt, uid(i))->error_code, 0);
        if ((i & 1023) == 0)
            gr_arena_reset(bt.a);
    }
    /* 16384 instances: all still there */
    ck_assert_int_eq(get(&bt, uid(0x100000))->error_code,
                     GR_KERR_THROTTLING_QUOTA_EXCEEDED);
    /* that made it the most recent: the next new one evicts uid(1) */
    ck_assert_int_eq(get(&bt, uid(16384))->error_code, 0);
    ck_assert_int_eq(get(&bt, uid(2))->error_code,
                     GR_KERR_THROTTLING_QUOTA_EXCEEDED);
    ck_assert_int_eq(get(&bt, uid(1))->error_code, 0); /* made anew */
    gr_brokertest_stop(&bt);
}
END_TEST

/* --- Push */

START_TEST(test_push_errors)
{
    static const char *const ov[] = { "telemetry.max.bytes=1000", NULL };
    gr_brokertest_t bt;
    gr_get_telemetry_subscriptions_response_t *g;
    gr_buf_t gz = GR_BUF_INIT, bomb = GR_BUF_INIT;
    uint8_t zeros[5000] = { 0 };
    int32_t sub;

    gr_brokertest_start(&bt, ov);
    inc1(&bt, "s", "interval.ms", 0, "100", 0, NULL);
    inc1(&bt, "s", "metrics", 0, "*", 0, NULL);
    g = get(&bt, uid(1));
    ck_assert_int_eq(g->telemetry_max_bytes, 1000);
    sub = g->subscription_id;
    /* the zero and the reserved "one" ids */
    ck_assert_int_eq(push(&bt, (gr_uuid_t){ { 0 } }, sub, "x", 1, 0, false),
                     GR_KERR_INVALID_REQUEST);
    ck_assert_int_eq(push(&bt,
                          (gr_uuid_t){ { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                         0, 0, 0, 1 } },
                          sub, "x", 1, 0, false),
                     GR_KERR_INVALID_REQUEST);
    /* a push right after a Get is allowed, the next is too soon */
    ck_assert_int_eq(push(&bt, uid(1), sub, gauge_pb, sizeof gauge_pb, 0,
                          false),
                     0);
    ck_assert_int_eq(push(&bt, uid(1), sub, gauge_pb, sizeof gauge_pb, 0,
                          false),
                     GR_KERR_THROTTLING_QUOTA_EXCEEDED);
    sleep_ms(150);
    ck_assert_int_eq(push(&bt, uid(1), sub + 1, gauge_pb, sizeof gauge_pb, 0,
                          false),
                     GR_KERR_UNKNOWN_SUBSCRIPTION_ID);
    sleep_ms(150);
    ck_assert_int_eq(push(&bt, uid(1), sub, gauge_pb, sizeof gauge_pb, 5,
                          false),
                     GR_KERR_UNSUPPORTED_COMPRESSION_TYPE);
    /* after UNSUPPORTED_COMPRESSION_TYPE a Get is not throttled, but it
     * takes no time: the push after it is still too soon */
    ck_assert_int_eq(get(&bt, uid(1))->error_code, 0);
    ck_assert_int_eq(push(&bt, uid(1), sub, gauge_pb, sizeof gauge_pb, 0,
                          false),
                     GR_KERR_THROTTLING_QUOTA_EXCEEDED);
    sleep_ms(150);
    ck_assert_int_eq(push(&bt, uid(1), sub, zeros, 1001, 0, false),
                     GR_KERR_TELEMETRY_TOO_LARGE);
    sleep_ms(150);
    ck_assert_int_eq(gr_compress(GR_COMPRESS_GZIP, gauge_pb, sizeof gauge_pb,
                                 &gz, GR_COMPRESS_LEVEL_DEFAULT, 0),
                     GR_OK);
    ck_assert_int_eq(push(&bt, uid(1), sub, gz.ptr, gz.len, 1, false), 0);
    sleep_ms(150);
    ck_assert_int_eq(push(&bt, uid(1), sub, "\x1f\x8b garbage", 10, 1, false),
                     GR_KERR_INVALID_RECORD);
    sleep_ms(150);
    /* inflating past telemetry.max.bytes is an export failure, as in
     * Kafka: INVALID_RECORD */
    ck_assert_int_eq(gr_compress(GR_COMPRESS_GZIP, zeros, sizeof zeros, &bomb,
                                 GR_COMPRESS_LEVEL_DEFAULT, 0),
                     GR_OK);
    ck_assert_int_lt(bomb.len, 1000);
    ck_assert_int_eq(push(&bt, uid(1), sub, bomb.ptr, bomb.len, 1, false),
                     GR_KERR_INVALID_RECORD);
    sleep_ms(150);
    /* no telemetry file: an OTLP payload is not decoded, garbage passes */
    ck_assert_int_eq(push(&bt, uid(1), sub, "garbage", 7, 0, false), 0);
    /* terminating: accepted before its interval, then nothing is */
    ck_assert_int_eq(push(&bt, uid(1), sub, "", 0, 0, true), 0);
    ck_assert_int_eq(push(&bt, uid(1), sub, "", 0, 0, false),
                     GR_KERR_INVALID_REQUEST);
    gr_buf_fini(&gz);
    gr_buf_fini(&bomb);
    gr_brokertest_stop(&bt);
}
END_TEST

static char *
slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[1 << 16];
    size_t n;
    ck_assert_ptr_nonnull(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Pushes reach the telemetry file decompressed (every codec) and decoded,
 * a line a data point; one that does not decode is INVALID_RECORD and
 * adds nothing. */
START_TEST(test_export_file)
{
    static const int codecs[] = { GR_COMPRESS_NONE, GR_COMPRESS_GZIP,
                                  GR_COMPRESS_SNAPPY, GR_COMPRESS_LZ4,
                                  GR_COMPRESS_ZSTD };
    gr_brokertest_t bt;
    char kv[256], path[128], b64[23], want[256];
    const char *ov[2] = { kv, NULL };
    int32_t sub;
    gr_uuid_t id = uid(7);
    const char *s;
    size_t len;

    memset(&bt, 0, sizeof bt);
    gr_brokertest_start(&bt, NULL);
    snprintf(path, sizeof path, "%s/telemetry.jsonl", bt.dir);
    snprintf(kv, sizeof kv, "gregor.client.telemetry.file=%s", path);
    gr_brokertest_restart(&bt, ov);
    inc1(&bt, "s", "interval.ms", 0, "100", 0, NULL);
    sub = get(&bt, id)->subscription_id;
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++) {
        gr_buf_t c = GR_BUF_INIT;
        if (codecs[i] == GR_COMPRESS_NONE)
            gr_buf_append(&c, gauge_pb, sizeof gauge_pb);
        else
            ck_assert_int_eq(gr_compress(codecs[i], gauge_pb, sizeof gauge_pb,
                                         &c, GR_COMPRESS_LEVEL_DEFAULT, 0),
                             GR_OK);
        if (i > 0)
            sleep_ms(120);
        ck_assert_int_eq(push(&bt, id, sub, c.ptr, c.len, (int8_t)codecs[i],
                              false),
                         0);
        gr_buf_fini(&c);
    }
    s = slurp(path);
    gr_uuid_to_base64(&id, b64);
    snprintf(want, sizeof want,
             "{\"client_instance_id\":\"%s\",\"client_id\":\"brokertest\","
             "\"metric\":\"org.apache.kafka.producer.test.gauge\",\"type\":"
             "\"gauge\",\"value\":1.5,\"time_unix_nano\":1700000000000000000,"
             "\"start_time_unix_nano\":0,\"attributes\":{},\"resource\":{}}\n",
             b64);
    len = strlen(want);
    ck_assert_int_eq(strlen(s), 5 * len);
    for (int i = 0; i < 5; i++)
        ck_assert(strncmp(s + i * len, want, len) == 0);
    /* malformed protobuf: INVALID_RECORD, the file as it was */
    sleep_ms(120);
    ck_assert_int_eq(push(&bt, id, sub, gauge_pb, sizeof gauge_pb - 3, 0,
                          false),
                     GR_KERR_INVALID_RECORD);
    ck_assert_int_eq(strlen(slurp(path)), 5 * len);
    /* the broker is fine */
    ck_assert_int_eq(list(&bt, 0, NULL, 0)->error_code, 0);
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_api_telemetry(void)
{
    Suite *s = suite_create("api/telemetry");
    TCase *tc = tcase_create("telemetry");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_client_metrics_configs);
    tcase_add_test(tc, test_client_metrics_persisted);
    tcase_add_test(tc, test_advertised);
    tcase_add_test(tc, test_get_matches_kafka);
    tcase_add_test(tc, test_match_client);
    tcase_add_test(tc, test_subscription_change);
    tcase_add_test(tc, test_instance_lifetime);
    tcase_add_test(tc, test_cache_bound);
    tcase_add_test(tc, test_push_errors);
    tcase_add_test(tc, test_export_file);
    suite_add_tcase(s, tc);
    return s;
}
