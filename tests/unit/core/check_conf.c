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
    suite_add_tcase(s, tc);
    return s;
}
