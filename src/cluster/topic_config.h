/*
 * The configuration table: every topic config Kafka defines and every
 * broker config Gregor implements (core/conf.def), with Kafka's names and
 * types, defaults, ranges, allowed values, a line of documentation in our
 * own words, the sensitive flag, which broker configs may change at run
 * time, and the synonyms (the broker keys whose values a topic config
 * takes when the topic does not override it, most precedent first).
 * DescribeConfigs, AlterConfigs, IncrementalAlterConfigs and CreateTopics
 * read it; the data path reads the settings parsed from it, cached per
 * topic (recomputed after a change of the topic's overrides or of the
 * broker's dynamic configs).
 */
#ifndef GR_CLUSTER_TOPIC_CONFIG_H
#define GR_CLUSTER_TOPIC_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "core/conf.h"

/* compression.type of a topic: the producer's, or a codec (GR_CODEC_*). */
#define GR_TOPIC_COMPRESSION_PRODUCER (-1)

typedef struct gr_topic_settings {
    int64_t segment_bytes;
    int64_t segment_ms;
    int64_t segment_jitter_ms;
    int64_t retention_ms;
    int64_t retention_bytes;
    int64_t flush_messages;
    int64_t flush_ms;
    int32_t index_interval_bytes;
    int32_t segment_index_bytes;
    int64_t file_delete_delay_ms;
    bool preallocate;
    bool cleanup_delete;
    bool cleanup_compact;
    int32_t max_message_bytes;
    bool log_append_time;
    int compression; /* GR_TOPIC_COMPRESSION_PRODUCER or a codec */
    int32_t min_insync_replicas;
    int64_t ts_before_max_ms;
    int64_t ts_after_max_ms;
    int64_t delete_retention_ms;
    int64_t min_compaction_lag_ms;
    int64_t max_compaction_lag_ms;
    double min_cleanable_dirty_ratio;
} gr_topic_settings_t;

/* Value types, numbered as DescribeConfigs v3+ ConfigType. */
typedef enum gr_tcfg_type {
    GR_TCFG_UNKNOWN = 0,
    GR_TCFG_BOOL = 1,
    GR_TCFG_STRING = 2,
    GR_TCFG_INT = 3,
    GR_TCFG_SHORT = 4,
    GR_TCFG_LONG = 5,
    GR_TCFG_DOUBLE = 6,
    GR_TCFG_LIST = 7,
    GR_TCFG_CLASS = 8,
    GR_TCFG_PASSWORD = 9,
} gr_tcfg_type_t;

#define GR_CONFIG_SYNONYMS_MAX 3

typedef struct gr_topic_config_def {
    const char *name; /* topic-level key */
    gr_tcfg_type_t type;
    /* broker keys (gr_conf_id_t) whose value is the default, most
     * precedent first; -1 ends the list (the first -1: none) */
    int synonyms[GR_CONFIG_SYNONYMS_MAX];
    const char *def;            /* the default when there is no synonym */
    int64_t min, max;           /* numbers (DOUBLE: whole bounds) */
    const char *const *choices; /* strings/lists, NULL-terminated, or NULL */
    const char *doc;
} gr_topic_config_def_t;

/* Whether d is a key Kafka 3.x accepted and 4.x dropped
 * (message.format.version and message.timestamp.difference.max.ms, which
 * have no effect here; message.downconversion.enable, which still governs
 * Fetch v0-v3, served here): accepted and kept as 3.x did, and described
 * only where a topic sets it. */
bool gr_topic_config_is_legacy(const gr_topic_config_def_t *d);

/* Who may change a broker config at run time (Kafka's DynamicBrokerConfig):
 * nobody (read-only), or AlterConfigs on this broker or the default. */
typedef enum gr_bcfg_scope {
    GR_BCFG_READ_ONLY = 0,
    GR_BCFG_DYNAMIC = 1,
} gr_bcfg_scope_t;

typedef struct gr_broker_config_def {
    gr_tcfg_type_t type; /* Kafka's type; UNKNOWN for keys not listed */
    gr_bcfg_scope_t scope;
    const char *const *choices;
    const char *doc; /* NULL for keys not listed */
    /* Kafka 4.4 has no such key to list (unstable.api.versions.enable and
     * producer.id.expiration.check.interval.ms are internal there,
     * zookeeper.connect and log.message.downconversion.enable gone since
     * 4.0): a broker describes it only where the configuration sets it,
     * as Kafka lists a key it does not define */
    bool unlisted;
} gr_broker_config_def_t;

/* The known topic configs; NULL past the end. */
const gr_topic_config_def_t *gr_topic_config_def_at(int i);
const gr_topic_config_def_t *gr_topic_config_def_find(const char *name);
/* Checks value for name as Kafka's LogConfig does (ConfigDef: the value
 * trimmed, parsed as its type, then its validator): NULL when valid, else
 * Kafka's message for INVALID_CONFIG naming key and value (in a static
 * buffer: loop thread only). */
const char *gr_topic_config_check(const char *name, const char *value);
/* The effective value of name for t (override, else broker default), as a
 * string in buf, trimmed as Kafka parses it; t may be NULL (the broker
 * default). */
const char *gr_topic_config_value(const gr_conf_t *conf, const gr_topic_t *t,
                                  const char *name, char *buf, size_t bufsz);
/* value of d as Kafka's DescribeConfigs prints it once parsed (ConfigDef's
 * convertToString: " 0100" is "100", "TRUE" "true", a list's items joined
 * by commas, once each for a key with allowed values, a double as Java
 * prints it) into buf, or value itself when it does not parse as d's
 * type. buf has room for strlen(value) + 32. */
const char *gr_topic_config_canonical(const gr_topic_config_def_t *d,
                                      const char *value, char *buf,
                                      size_t bufsz);
/* Where Kafka's LogConfig defines name: its checks go in that order (keys
 * Kafka 4.4 does not have come after the others). */
int gr_topic_config_kafka_rank(const char *name);
/* Kafka's broker synonym of d where Gregor has no such broker key (the
 * tiered storage defaults, max.decompressed.message.bytes: keys Gregor
 * cannot honour), or NULL. d's default is then the static configuration's
 * value of that key (kafka_keys.def keys are accepted there) when it
 * checks as d, else d->def. */
const char *gr_topic_config_kafka_synonym(const gr_topic_config_def_t *d);
/* The value of Kafka key name (not Gregor's) as the static configuration
 * gives it, or NULL. */
const char *gr_topic_config_static_extra(const gr_conf_t *conf,
                                         const char *name);

/* The table entry of a broker config (never NULL for a valid id). */
const gr_broker_config_def_t *gr_broker_config_def(gr_conf_id_t id);
/* Kafka's synonyms of a broker key (the keys that set the same thing, most
 * precedent first, e.g. log.retention.ms, .minutes, .hours) into out
 * (GR_CONFIG_SYNONYMS_MAX); returns how many (at least 1: id itself). */
int gr_broker_config_synonyms(gr_conf_id_t id, int *out);
/* Checks value for a broker key as Kafka's DynamicBrokerConfig does: its
 * Kafka type, range (conf.def) and allowed values. NULL when valid, else
 * Kafka's message naming key and value (static buffer: loop thread
 * only). */
const char *gr_broker_config_check(gr_conf_id_t id, const char *value);

/* The parsed settings of t, cached; conf is the broker's. */
const gr_topic_settings_t *gr_topic_settings(const gr_conf_t *conf,
                                             gr_topic_t *t);
/* Forgets every cached settings (after a broker config change). */
void gr_topic_settings_invalidate_all(void);

#endif
