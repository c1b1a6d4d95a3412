/* Configuration: properties syntax, types, ranges, Kafka's precedences. */
#include "core/conf.h"
#include "../unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *
write_tmp(const char *text)
{
    static char path[] = "/tmp/gr-conf-XXXXXX";
    char *p = strdup(path);
    int fd = mkstemp(p);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return p;
}

START_TEST(test_properties_syntax)
{
    char *p = write_tmp("# comment\n! also a comment\n"
                        "num.partitions=3\n"
                        "log.dirs : /tmp/a,\\\n    /tmp/b\n"
                        "auto.create.topics.enable false\n"
                        "  message.max.bytes   =  2000  \n");
    gr_conf_t *c = gr_conf_new();
    ck_assert_int_eq(gr_conf_load_file(c, p), 0);
    ck_assert_int_eq(gr_conf_finish(c), 0);
    ck_assert_int_eq(gr_conf_int(c, GR_CONF_NUM_PARTITIONS), 3);
    ck_assert_str_eq(gr_conf_str(c, GR_CONF_LOG_DIRS), "/tmp/a,/tmp/b");
    ck_assert_str_eq(gr_conf_log_dir(c), "/tmp/a");
    ck_assert(!gr_conf_bool(c, GR_CONF_AUTO_CREATE_TOPICS_ENABLE));
    ck_assert_int_eq(gr_conf_int(c, GR_CONF_MESSAGE_MAX_BYTES), 2000);
    gr_conf_destroy(c);
    unlink(p);
    free(p);
}
END_TEST

START_TEST(test_invalid_values)
{
    gr_conf_t *c = gr_conf_new();
    gr_conf_set(c, "num.partitions", "zero");
    ck_assert_int_ne(gr_conf_finish(c), 0);
    gr_conf_destroy(c);
    c = gr_conf_new();
    gr_conf_set(c, "num.partitions", "0"); /* below the minimum of 1 */
    ck_assert_int_ne(gr_conf_finish(c), 0);
    gr_conf_destroy(c);
    c = gr_conf_new();
    gr_conf_set(c, "auto.create.topics.enable", "yes");
    ck_assert_int_ne(gr_conf_finish(c), 0);
    gr_conf_destroy(c);
    /* a setting Gregor cannot honour stops start-up */
    c = gr_conf_new();
    gr_conf_set(c, "transaction.two.phase.commit.enable", "true");
    ck_assert_int_ne(gr_conf_finish(c), 0);
    gr_conf_destroy(c);
    c = gr_conf_new();
    gr_conf_set(c, "transaction.two.phase.commit.enable", "false");
    ck_assert_int_eq(gr_conf_finish(c), 0);
    gr_conf_destroy(c);
    /* unknown and unused keys are accepted */
    c = gr_conf_new();
    gr_conf_set(c, "num.network.threads", "3");
    gr_conf_set(c, "no.such.key", "1");
    ck_assert_int_eq(gr_conf_finish(c), 0);
    gr_conf_destroy(c);
}
END_TEST

START_TEST(test_precedence)
{
    gr_conf_t *c = gr_conf_new();
    ck_assert_int_eq(gr_conf_finish(c), 0);
    ck_assert_int_eq(gr_conf_retention_ms(c), 168LL * 3600 * 1000);
    ck_assert_int_eq(gr_conf_node_id(c), 1);
    gr_conf_destroy(c);
    c = gr_conf_new();
    gr_conf_set(c, "log.retention.hours", "1");
    gr_conf_set(c, "log.retention.minutes", "2");
    gr_conf_set(c, "broker.id", "7");
    ck_assert_int_eq(gr_conf_finish(c), 0);
    ck_assert_int_eq(gr_conf_retention_ms(c), 120000);
    ck_assert_int_eq(gr_conf_node_id(c), 7);
    gr_conf_set(c, "log.retention.ms", "5");
    gr_conf_set(c, "node.id", "3");
    ck_assert_int_eq(gr_conf_finish(c), 0);
    ck_assert_int_eq(gr_conf_retention_ms(c), 5);
    ck_assert_int_eq(gr_conf_node_id(c), 3);
    ck_assert_int_eq(gr_conf_set_kv(c, "novalue"), -1);
    gr_conf_destroy(c);
}
END_TEST

/* A configuration from key=value settings, finished; then the values of
 * the three keys --temp-data gives test defaults. */
static gr_conf_t *
conf_of(const char *const *kv, int n, int64_t delay, int64_t offsets,
        int64_t txn)
{
    gr_conf_t *c = gr_conf_new();
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(gr_conf_set_kv(c, kv[i]), 0);
    ck_assert_int_eq(gr_conf_finish(c), 0);
    ck_assert_int_eq(gr_conf_int(c, GR_CONF_GROUP_INITIAL_REBALANCE_DELAY_MS),
                     delay);
    ck_assert_int_eq(gr_conf_int(c, GR_CONF_OFFSETS_TOPIC_NUM_PARTITIONS),
                     offsets);
    ck_assert_int_eq(
        gr_conf_int(c, GR_CONF_TRANSACTION_STATE_LOG_NUM_PARTITIONS), txn);
    return c;
}

/* gregor.temp.data=true: the keys a test broker wants at other values
 * take them unless given; without it, Kafka's defaults. */
START_TEST(test_temp_data_defaults)
{
    static const char *const temp[] = { "gregor.temp.data=TRUE",
                                        "offsets.topic.num.partitions=3" };
    static const char *const off[] = { "gregor.temp.data=false" };
    gr_conf_t *c;

    gr_conf_destroy(conf_of(NULL, 0, 3000, 50, 50));
    gr_conf_destroy(conf_of(off, 1, 3000, 50, 50));
    c = conf_of(temp, 2, 0, 3, 1);
    ck_assert_str_eq(gr_conf_layer_str(c,
                                       GR_CONF_GROUP_INITIAL_REBALANCE_DELAY_MS,
                                       GR_CONF_STATIC),
                     "0");
    gr_conf_destroy(c);
}
END_TEST

/* Dynamic layers: this broker's over the cluster default over the static
 * value; derived values apply Kafka's precedence over all layers. */
START_TEST(test_dynamic_layers)
{
    gr_conf_t *c = gr_conf_new();
    char msg[256];
    gr_conf_set(c, "log.segment.bytes", "2000");
    gr_conf_set(c, "log.retention.minutes", "10");
    ck_assert_int_eq(gr_conf_finish(c), 0);
    ck_assert_int_eq(gr_conf_set_dynamic(c, GR_CONF_DYNAMIC_DEFAULT,
                                         GR_CONF_LOG_SEGMENT_BYTES, "3000"),
                     0);
    ck_assert_int_eq(gr_conf_int(c, GR_CONF_LOG_SEGMENT_BYTES), 3000);
    ck_assert_int_eq(gr_conf_set_dynamic(c, GR_CONF_DYNAMIC_BROKER,
                                         GR_CONF_LOG_SEGMENT_BYTES, "4000"),
                     0);
    ck_assert_str_eq(gr_conf_str(c, GR_CONF_LOG_SEGMENT_BYTES), "4000");
    ck_assert_str_eq(gr_conf_layer_str(c, GR_CONF_LOG_SEGMENT_BYTES,
                                       GR_CONF_DYNAMIC_DEFAULT),
                     "3000");
    ck_assert_str_eq(gr_conf_layer_str(c, GR_CONF_LOG_SEGMENT_BYTES,
                                       GR_CONF_STATIC),
                     "2000");
    ck_assert_str_eq(gr_conf_layer_str(c, GR_CONF_LOG_SEGMENT_BYTES,
                                       GR_CONF_DEFAULT),
                     "1073741824");
    ck_assert_int_eq(gr_conf_set_dynamic(c, GR_CONF_DYNAMIC_BROKER,
                                         GR_CONF_LOG_SEGMENT_BYTES, NULL),
                     0);
    ck_assert_int_eq(gr_conf_int(c, GR_CONF_LOG_SEGMENT_BYTES), 3000);
    /* invalid values are refused and change nothing */
    ck_assert_int_eq(gr_conf_set_dynamic(c, GR_CONF_DYNAMIC_DEFAULT,
                                         GR_CONF_LOG_SEGMENT_BYTES, "1"),
                     -1);
    ck_assert_int_eq(gr_conf_int(c, GR_CONF_LOG_SEGMENT_BYTES), 3000);
    ck_assert_ptr_nonnull(gr_conf_check(GR_CONF_LOG_SEGMENT_BYTES, "x", msg,
                                        sizeof msg));
    ck_assert(strstr(msg, "log.segment.bytes") && strstr(msg, "x"));
    ck_assert_ptr_null(gr_conf_check(GR_CONF_LOG_SEGMENT_BYTES, "20", msg,
                                     sizeof msg));
    /* retention: a dynamic hours value loses to a static minutes one, as
     * in Kafka's merged view; a dynamic ms value wins */
    gr_conf_set_dynamic(c, GR_CONF_DYNAMIC_BROKER, GR_CONF_LOG_RETENTION_HOURS,
                        "1");
    ck_assert_int_eq(gr_conf_retention_ms(c), 600000);
    gr_conf_set_dynamic(c, GR_CONF_DYNAMIC_DEFAULT, GR_CONF_LOG_RETENTION_MS,
                        "5");
    ck_assert_int_eq(gr_conf_retention_ms(c), 5);
    gr_conf_set_dynamic(c, GR_CONF_DYNAMIC_DEFAULT, GR_CONF_LOG_ROLL_MS, "7");
    ck_assert_int_eq(gr_conf_roll_ms(c), 7);
    ck_assert(!gr_conf_is_sensitive(GR_CONF_LOG_ROLL_MS));
    gr_conf_destroy(c);
}
END_TEST

typedef struct ov_seen {
    char hosts[8][64];
    int32_t counts[8];
    int n;
} ov_seen_t;

static void
ov_collect(const char *host, int32_t count, void *arg)
{
    ov_seen_t *o = arg;
    ck_assert_int_lt(o->n, 8);
    snprintf(o->hosts[o->n], sizeof o->hosts[0], "%s", host);
    o->counts[o->n++] = count;
}

/* max.connections.per.ip.overrides as Kafka 4.4 parses it, and its
 * messages (those of a real Kafka's IncrementalAlterConfigs, pinned by
 * tests/diff connection_quota_configs too). */
START_TEST(test_ip_overrides)
{
    static const struct {
        const char *value, *err; /* err NULL: valid */
        int n;
    } cases[] = {
        { "", NULL, 0 },
        { "a:1,", NULL, 1 },      /* trailing empty items dropped */
        { ",,", NULL, 0 },
        { "::1:5", NULL, 1 },     /* split at the last colon */
        { "a:-1", NULL, 1 },      /* counts are not checked */
        { "127.0.0.1:+5", NULL, 1 },
        { " a : 1 , b:2", NULL, 2 },
        { ":7", NULL, 1 },        /* "" is the loopback for Kafka */
        { "abc",
          "Error parsing configuration property "
          "'max.connections.per.ip.overrides': begin 0, end -1, length 3",
          0 },
        { ",a:1",
          "Error parsing configuration property "
          "'max.connections.per.ip.overrides': begin 0, end -1, length 0",
          0 },
        { "a:1, ,b:2",
          "Error parsing configuration property "
          "'max.connections.per.ip.overrides': begin 0, end -1, length 0",
          0 },
        { "h:x", "For input string: \"x\"", 0 },
        { "h:", "For input string: \"\"", 0 },
        { "h:99999999999", "For input string: \"99999999999\"", 0 },
        { "bad/host:1",
          "max.connections.per.ip.overrides contains invalid addresses : "
          "bad/host",
          0 },
        /* the counts are parsed before the hosts are checked */
        { "bad/host:1,h:x", "For input string: \"x\"", 0 },
    };
    char msg[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ov_seen_t o = { .n = 0 };
        const char *err =
            gr_conf_ip_overrides(cases[i].value, ov_collect, &o, msg, sizeof msg);
        if (cases[i].err == NULL) {
            ck_assert_msg(err == NULL, "%s: %s", cases[i].value, err);
            ck_assert_int_eq(o.n, cases[i].n);
        } else {
            ck_assert_msg(err != NULL, "%s accepted", cases[i].value);
            ck_assert_str_eq(err, cases[i].err);
            ck_assert_int_eq(o.n, 0); /* nothing applied of an invalid one */
        }
    }
    {
        ov_seen_t o = { .n = 0 };
        ck_assert_ptr_null(gr_conf_ip_overrides(" 10.0.0.1 : 3 ,::1:5,h:-2",
                                                ov_collect, &o, msg,
                                                sizeof msg));
        ck_assert_int_eq(o.n, 3);
        ck_assert_str_eq(o.hosts[0], "10.0.0.1");
        ck_assert_int_eq(o.counts[0], 3);
        ck_assert_str_eq(o.hosts[1], "::1");
        ck_assert_int_eq(o.counts[1], 5);
        ck_assert_str_eq(o.hosts[2], "h");
        ck_assert_int_eq(o.counts[2], -2);
    }
}
END_TEST

/* Start-up refuses what Kafka's KafkaConfig refuses; listener-level
 * quotas are honoured (not "not used") and checked as their base key. */
START_TEST(test_connection_quota_keys)
{
    char l[64];
    gr_conf_t *c = gr_conf_new();
    gr_conf_set(c, "max.connections.per.ip.overrides", "127.0.0.1:2,h:x");
    ck_assert_int_eq(gr_conf_finish(c), -1);
    gr_conf_destroy(c);

    c = gr_conf_new();
    gr_conf_set(c, "max.connections.per.ip", "0");
    ck_assert_int_eq(gr_conf_finish(c), -1); /* 0 needs overrides */
    gr_conf_destroy(c);

    c = gr_conf_new();
    gr_conf_set(c, "max.connections.per.ip", "0");
    gr_conf_set(c, "max.connections.per.ip.overrides", "127.0.0.1:2");
    ck_assert_int_eq(gr_conf_finish(c), 0);
    ck_assert_int_eq(gr_conf_int(c, GR_CONF_MAX_CONNECTIONS_PER_IP), 0);
    gr_conf_destroy(c);

    c = gr_conf_new();
    gr_conf_set(c, "listener.name.plaintext.max.connections", "-1");
    ck_assert_int_eq(gr_conf_finish(c), -1);
    gr_conf_destroy(c);

    c = gr_conf_new();
    gr_conf_set(c, "listener.name.plaintext.max.connection.creation.rate",
                "10");
    ck_assert_int_eq(gr_conf_finish(c), 0);
    gr_conf_destroy(c);

    ck_assert_int_eq(gr_conf_listener_key(
                         "listener.name.external.max.connections", l, sizeof l),
                     GR_CONF_MAX_CONNECTIONS);
    ck_assert_str_eq(l, "external");
    ck_assert_int_eq(gr_conf_listener_key(
                         "listener.name.x.max.connection.creation.rate", l,
                         sizeof l),
                     GR_CONF_MAX_CONNECTION_CREATION_RATE);
    ck_assert_int_eq(gr_conf_listener_key("listener.name.x.ssl.key.password",
                                          l, sizeof l),
                     -1);
    ck_assert_int_eq(gr_conf_listener_key("max.connections", l, sizeof l), -1);
    ck_assert_int_eq(gr_conf_listener_key("listener.name.max.connections", l,
                                          sizeof l),
                     -1); /* the listener part is missing */
}
END_TEST

Suite *
suite_core_conf(void)
{
    Suite *s = suite_create("core/conf");
    TCase *tc = tcase_create("conf");
    tcase_add_test(tc, test_properties_syntax);
    tcase_add_test(tc, test_invalid_values);
    tcase_add_test(tc, test_precedence);
    tcase_add_test(tc, test_temp_data_defaults);
    tcase_add_test(tc, test_dynamic_layers);
    tcase_add_test(tc, test_ip_overrides);
    tcase_add_test(tc, test_connection_quota_keys);
    suite_add_tcase(s, tc);
    return s;
}
