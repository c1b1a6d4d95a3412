/* The config table: topic configs and their synonyms, broker configs, the
 * checks and their messages, the cached settings. */
#include "../unit.h"

#include "cluster/cluster.h"
#include "cluster/topic_config.h"

#include <stdlib.h>
#include <string.h>

START_TEST(test_table_consistent)
{
    const gr_topic_config_def_t *d, *prev = NULL;
    int n = 0;
    for (int i = 0; (d = gr_topic_config_def_at(i)) != NULL; i++, n++) {
        ck_assert_ptr_nonnull(d->doc);
        ck_assert_int_ne(d->type, GR_TCFG_UNKNOWN);
        ck_assert_ptr_eq(gr_topic_config_def_find(d->name), d);
        if (prev)
            ck_assert_int_lt(strcmp(prev->name, d->name), 0); /* sorted */
        /* synonyms are broker keys; the first (the primary name, as
         * Kafka's TOPIC_CONFIG_SYNONYMS) is dynamic, the others may not
         * be (log.retention.hours is static only in Kafka too); a key
         * Kafka 4.x dropped may have a static one */
        for (int k = 0; k < GR_CONFIG_SYNONYMS_MAX && d->synonyms[k] >= 0;
             k++)
            ck_assert_int_lt(d->synonyms[k], GR_CONF__COUNT);
        if (d->synonyms[0] >= 0 && !gr_topic_config_is_legacy(d))
            ck_assert_int_eq(gr_broker_config_def(d->synonyms[0])->scope,
                             GR_BCFG_DYNAMIC);
        if (d->synonyms[0] < 0)
            ck_assert_ptr_nonnull(d->def);
        prev = d;
    }
    ck_assert_int_ge(n, 30);
    /* every broker key Gregor implements is described */
    for (int id = 0; id < GR_CONF__COUNT; id++) {
        ck_assert_msg(gr_broker_config_def(id)->doc != NULL,
                      "%s has no table entry", gr_conf_name(id));
        ck_assert_int_ne(gr_broker_config_def(id)->type, GR_TCFG_UNKNOWN);
    }
}
END_TEST

START_TEST(test_checks)
{
    const char *m;
    /* Kafka 3.x's message format versions */
    static const char *const mfv_ok[] = { "0.8.0", "0.10.0-IV1", "0.11.0",
                                          "1.0",   "2.8-IV0",    "3.0-IV1",
                                          "3.9",   NULL };
    static const char *const mfv_bad[] = { "abc", "0.7.0", "4.0", "3.0-IV",
                                           "3.0-IVx", "", NULL };
    for (int i = 0; mfv_ok[i]; i++)
        ck_assert_msg(gr_topic_config_check("message.format.version",
                                            mfv_ok[i]) == NULL,
                      "%s", mfv_ok[i]);
    for (int i = 0; mfv_bad[i]; i++)
        ck_assert_msg(gr_topic_config_check("message.format.version",
                                            mfv_bad[i]) != NULL,
                      "%s", mfv_bad[i]);
    ck_assert_ptr_null(gr_topic_config_check("retention.ms", "-1"));
    ck_assert_ptr_null(
        gr_topic_config_check("cleanup.policy", "compact, delete"));
    ck_assert_ptr_null(
        gr_topic_config_check("min.cleanable.dirty.ratio", "0.25"));
    ck_assert_ptr_null(gr_topic_config_check("preallocate", "TRUE"));
    m = gr_topic_config_check("retention.ms", "-2");
    ck_assert_str_eq(m, "Invalid value -2 for configuration retention.ms: "
                        "Value must be at least -1");
    m = gr_topic_config_check("segment.bytes", "3000000000");
    ck_assert(strstr(m, "Not a number of type INT") != NULL);
    m = gr_topic_config_check("compression.type", "brotli");
    ck_assert(strstr(m, "brotli") && strstr(m, "compression.type") &&
              strstr(m, "zstd"));
    m = gr_topic_config_check("cleanup.policy", "compact,shred");
    ck_assert(strstr(m, "shred") != NULL);
    m = gr_topic_config_check("min.cleanable.dirty.ratio", "2");
    ck_assert_str_eq(m, "Invalid value 2.0 for configuration "
                        "min.cleanable.dirty.ratio: Value must be no more "
                        "than 1");
    m = gr_topic_config_check("no.such", "1");
    ck_assert_str_eq(m, "Unknown topic config name: no.such");
    ck_assert_ptr_nonnull(
        gr_topic_config_check("remote.storage.enable", "true"));
    ck_assert_ptr_null(
        gr_broker_config_check(GR_CONF_LOG_CLEANUP_POLICY, "compact"));
    ck_assert_ptr_nonnull(
        gr_broker_config_check(GR_CONF_LOG_CLEANUP_POLICY, "never"));
    ck_assert_ptr_nonnull(
        gr_broker_config_check(GR_CONF_LOG_CLEANER_MIN_CLEANABLE_RATIO, "x"));
    ck_assert_ptr_nonnull(gr_broker_config_check(GR_CONF_NUM_PARTITIONS, "0"));
}
END_TEST

/* Kafka's ConfigDef: the value trimmed and parsed as its type, then the
 * validator, in Kafka's words (ConfigException names the value as given
 * when it does not parse, as parsed when the validator refuses it). */
START_TEST(test_checks_as_kafka)
{
    static const struct {
        const char *key, *value, *msg; /* msg NULL: valid */
    } cases[] = {
        { "cleanup.policy", "foo",
          "Invalid value foo for configuration cleanup.policy: String must "
          "be one of: compact, delete" },
        { "cleanup.policy", "delete,foo",
          "Invalid value foo for configuration cleanup.policy: String must "
          "be one of: compact, delete" },
        { "cleanup.policy", "compact,,delete",
          "Configuration 'cleanup.policy' values must not be empty." },
        { "cleanup.policy", "compact,compact", NULL }, /* deduplicated */
        { "cleanup.policy", "", NULL },
        { "cleanup.policy", " compact , delete ", NULL },
        { "compression.type", " lz4 ", NULL },
        { "compression.type", "LZ4",
          "Invalid value LZ4 for configuration compression.type: String must "
          "be one of: uncompressed, zstd, lz4, snappy, gzip, producer" },
        { "retention.ms", " 0100 ", NULL },
        { "flush.ms", "+5", NULL },
        { "retention.ms", "",
          "Invalid value  for configuration retention.ms: Not a number of "
          "type LONG" },
        { "retention.ms", "-02",
          "Invalid value -2 for configuration retention.ms: Value must be at "
          "least -1" },
        { "retention.bytes", "-5", NULL }, /* no bound in Kafka */
        { "segment.index.bytes", "99999999999",
          "Invalid value 99999999999 for configuration segment.index.bytes: "
          "Not a number of type INT" },
        { "max.decompressed.message.bytes", "0",
          "Invalid value 0 for configuration max.decompressed.message.bytes: "
          "Value must be at least 1" },
        { "preallocate", " TRUE ", NULL },
        { "preallocate", "yes",
          "Invalid value yes for configuration preallocate: Expected value to "
          "be either true or false" },
        { "min.cleanable.dirty.ratio", "1e1",
          "Invalid value 10.0 for configuration min.cleanable.dirty.ratio: "
          "Value must be no more than 1" },
        { "min.cleanable.dirty.ratio", "-0.0001",
          "Invalid value -1.0E-4 for configuration min.cleanable.dirty.ratio: "
          "Value must be at least 0" },
        { "min.cleanable.dirty.ratio", "x",
          "Invalid value x for configuration min.cleanable.dirty.ratio: Not a "
          "number of type DOUBLE" },
        { "compression.gzip.level", "-1", NULL },
        { "compression.gzip.level", "0",
          "Invalid value 0 for configuration compression.gzip.level: Value "
          "must be between 1 and 9 or equal to -1" },
        { "compression.zstd.level", "23",
          "Invalid value 23 for configuration compression.zstd.level: Value "
          "must be no more than 22" },
        { "leader.replication.throttled.replicas", "*", NULL },
        { "leader.replication.throttled.replicas", "0:1 , 1:1", NULL },
        { "leader.replication.throttled.replicas", "0:1, x",
          "Invalid value [0:1, x] for configuration "
          "leader.replication.throttled.replicas: "
          "leader.replication.throttled.replicas must be the literal '*' or "
          "a list of replicas in the following format: "
          "[partitionId]:[brokerId],[partitionId]:[brokerId],..." },
        { "remote.storage.enable", "false", NULL },
        { "remote.storage.enable", " true",
          "Tiered Storage functionality is disabled in the broker. Topic "
          "cannot be configured with remote log storage." },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *m = gr_topic_config_check(cases[i].key, cases[i].value);
        if (cases[i].msg == NULL)
            ck_assert_msg(m == NULL, "%s=%s: %s", cases[i].key, cases[i].value,
                          m);
        else
            ck_assert_msg(m != NULL && strcmp(m, cases[i].msg) == 0,
                          "%s=%s: %s", cases[i].key, cases[i].value,
                          m ? m : "(valid)");
    }
    /* broker keys: their Kafka type and validator */
    ck_assert_str_eq(gr_broker_config_check(GR_CONF_LOG_CLEANER_THREADS, "abc"),
                     "Invalid value abc for configuration log.cleaner.threads: "
                     "Not a number of type INT");
    ck_assert_str_eq(gr_broker_config_check(
                         GR_CONF_LOG_CLEANER_MIN_CLEANABLE_RATIO, "2"),
                     "Invalid value 2.0 for configuration "
                     "log.cleaner.min.cleanable.ratio: Value must be no more "
                     "than 1");
    ck_assert_str_eq(gr_broker_config_check(GR_CONF_LOG_CLEANUP_POLICY, "foo"),
                     "Invalid value foo for configuration log.cleanup.policy: "
                     "String must be one of: compact, delete");
    ck_assert_str_eq(gr_broker_config_check(GR_CONF_MESSAGE_MAX_BYTES, "-1"),
                     "Invalid value -1 for configuration message.max.bytes: "
                     "Value must be at least 0");
    ck_assert_str_eq(gr_broker_config_check(GR_CONF_LOG_RETENTION_BYTES, "x"),
                     "Invalid value x for configuration log.retention.bytes: "
                     "Not a number of type LONG");
    ck_assert_ptr_null(gr_broker_config_check(GR_CONF_LOG_RETENTION_MS, " 5 "));
}
END_TEST

/* Values as Kafka's DescribeConfigs prints them once parsed. */
START_TEST(test_canonical_values)
{
    static const struct {
        const char *key, *value, *want;
    } cases[] = {
        { "retention.ms", " 0100 ", "100" },
        { "flush.ms", "+5", "5" },
        { "preallocate", "TRUE", "true" },
        { "min.cleanable.dirty.ratio", "0.50", "0.5" },
        { "min.cleanable.dirty.ratio", "1", "1.0" },
        { "min.cleanable.dirty.ratio", "0.0001", "1.0E-4" },
        { "cleanup.policy", "compact , delete,compact", "compact,delete" },
        { "leader.replication.throttled.replicas", "0:1 , 1:1,0:1",
          "0:1,1:1,0:1" },
        { "compression.type", " lz4 ", "lz4" },
        { "retention.ms", "abc", "abc" }, /* not a number: as it is */
    };
    char buf[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_str_eq(gr_topic_config_canonical(
                             gr_topic_config_def_find(cases[i].key),
                             cases[i].value, buf, sizeof buf),
                         cases[i].want);
}
END_TEST

START_TEST(test_synonyms)
{
    int ids[GR_CONFIG_SYNONYMS_MAX];
    ck_assert_int_eq(
        gr_broker_config_synonyms(GR_CONF_LOG_RETENTION_HOURS, ids), 3);
    ck_assert_int_eq(ids[0], GR_CONF_LOG_RETENTION_MS);
    ck_assert_int_eq(ids[2], GR_CONF_LOG_RETENTION_HOURS);
    ck_assert_int_eq(
        gr_broker_config_synonyms(GR_CONF_LOG_FLUSH_INTERVAL_MS, ids), 2);
    ck_assert_int_eq(
        gr_broker_config_synonyms(GR_CONF_LOG_FLUSH_SCHEDULER_INTERVAL_MS, ids),
        1);
    ck_assert_int_eq(gr_broker_config_synonyms(GR_CONF_NUM_PARTITIONS, ids), 1);
    ck_assert_int_eq(ids[0], GR_CONF_NUM_PARTITIONS);
    /* Kafka 4.4's brokerConfigSynonyms: log.roll.jitter.ms and .hours */
    ck_assert_int_eq(
        gr_broker_config_synonyms(GR_CONF_LOG_ROLL_JITTER_HOURS, ids), 2);
    ck_assert_int_eq(ids[0], GR_CONF_LOG_ROLL_JITTER_MS);
    /* ServerTopicConfigSynonyms' names for keys Gregor does not have */
    ck_assert_str_eq(gr_topic_config_kafka_synonym(
                         gr_topic_config_def_find("local.retention.bytes")),
                     "log.local.retention.bytes");
    ck_assert_str_eq(gr_topic_config_kafka_synonym(gr_topic_config_def_find(
                         "max.decompressed.message.bytes")),
                     "max.decompressed.message.bytes");
    ck_assert_str_eq(gr_topic_config_kafka_synonym(
                         gr_topic_config_def_find("remote.copy.lag.ms")),
                     "log.remote.copy.lag.ms");
    ck_assert_ptr_null(gr_topic_config_kafka_synonym(
        gr_topic_config_def_find("segment.jitter.ms")));
}
END_TEST

/* segment.jitter.ms follows log.roll.jitter.ms, else .hours; a topic key
 * whose Kafka synonym Gregor does not have follows that key's static
 * value when it checks. */
START_TEST(test_defaults_from_synonyms)
{
    gr_conf_t *c = gr_conf_new();
    char buf[64];

    ck_assert_int_eq(gr_conf_set(c, "log.roll.jitter.hours", "2"), 0);
    ck_assert_int_eq(gr_conf_set(c, "log.local.retention.ms", "5000"), 0);
    ck_assert_int_eq(gr_conf_set(c, "log.local.retention.bytes", "-7"), 0);
    ck_assert_int_eq(gr_conf_finish(c), 0);
    ck_assert_str_eq(
        gr_topic_config_value(c, NULL, "segment.jitter.ms", buf, sizeof buf),
        "7200000");
    ck_assert_str_eq(
        gr_topic_config_value(c, NULL, "local.retention.ms", buf, sizeof buf),
        "5000");
    /* below local.retention.bytes' -2: Kafka's default stays */
    ck_assert_str_eq(gr_topic_config_value(c, NULL, "local.retention.bytes",
                                           buf, sizeof buf),
                     "-2");
    gr_conf_set_dynamic(c, GR_CONF_DYNAMIC_DEFAULT, GR_CONF_LOG_ROLL_JITTER_MS,
                        "30");
    ck_assert_str_eq(
        gr_topic_config_value(c, NULL, "segment.jitter.ms", buf, sizeof buf),
        "30");
    gr_conf_destroy(c);
}
END_TEST

START_TEST(test_settings_follow_changes)
{
    gr_conf_t *c = gr_conf_new();
    gr_topic_t t;
    const gr_topic_settings_t *s;
    char buf[64];

    ck_assert_int_eq(gr_conf_finish(c), 0);
    memset(&t, 0, sizeof t);
    s = gr_topic_settings(c, &t);
    ck_assert(s->cleanup_delete && !s->cleanup_compact);
    ck_assert_int_eq(s->retention_ms, 604800000);
    ck_assert_int_eq(s->max_compaction_lag_ms, INT64_MAX);
    /* an override: the cache is recomputed */
    gr_topic_config_set(&t, "cleanup.policy", "compact");
    gr_topic_config_set(&t, "segment.jitter.ms", "12");
    s = gr_topic_settings(c, &t);
    ck_assert(!s->cleanup_delete && s->cleanup_compact);
    ck_assert_int_eq(s->segment_jitter_ms, 12);
    /* a broker change: after invalidation every topic follows it */
    gr_conf_set_dynamic(c, GR_CONF_DYNAMIC_DEFAULT, GR_CONF_LOG_RETENTION_MS,
                        "1234");
    gr_topic_settings_invalidate_all();
    s = gr_topic_settings(c, &t);
    ck_assert_int_eq(s->retention_ms, 1234);
    ck_assert_str_eq(
        gr_topic_config_value(c, &t, "retention.ms", buf, sizeof buf), "1234");
    ck_assert_str_eq(
        gr_topic_config_value(c, NULL, "flush.ms", buf, sizeof buf),
        "9223372036854775807");
    gr_topic_config_clear(&t);
    ck_assert_ptr_null(t.configs);
    free(t.settings);
    gr_conf_destroy(c);
}
END_TEST

Suite *
suite_cluster_topic_config(void)
{
    Suite *s = suite_create("cluster/topic_config");
    TCase *tc = tcase_create("topic_config");
    tcase_add_test(tc, test_table_consistent);
    tcase_add_test(tc, test_checks);
    tcase_add_test(tc, test_checks_as_kafka);
    tcase_add_test(tc, test_canonical_values);
    tcase_add_test(tc, test_synonyms);
    tcase_add_test(tc, test_defaults_from_synonyms);
    tcase_add_test(tc, test_settings_follow_changes);
    suite_add_tcase(s, tc);
    return s;
}
