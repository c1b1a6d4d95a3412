/*
 * Topic-level configuration: Kafka's topic config names, each backed by a
 * broker default (its server.properties synonym), and the settings the data
 * path needs, parsed once and cached on the topic (recomputed after a change
 * of the topic's overrides or of the broker's dynamic configs).
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
    int compression;          /* GR_TOPIC_COMPRESSION_PRODUCER or a codec */
    int32_t min_insync_replicas;
    int64_t ts_before_max_ms;
    int64_t ts_after_max_ms;
    int64_t delete_retention_ms;
    int64_t min_compaction_lag_ms;
    double min_cleanable_dirty_ratio;
} gr_topic_settings_t;

typedef enum gr_tcfg_type {
    GR_TCFG_INT,
    GR_TCFG_LONG,
    GR_TCFG_BOOL,
    GR_TCFG_DOUBLE,
    GR_TCFG_STRING,
    GR_TCFG_LIST,
} gr_tcfg_type_t;

typedef struct gr_topic_config_def {
    const char *name;         /* topic-level key */
    gr_tcfg_type_t type;
    int broker_key;           /* gr_conf_id_t of the synonym, -1 none */
    const char *def;          /* when the broker has no synonym */
    int64_t min, max;         /* numbers */
    const char *const *choices; /* strings/lists, NULL-terminated, or NULL */
} gr_topic_config_def_t;

/* The known topic configs; NULL past the end. */
const gr_topic_config_def_t *gr_topic_config_def_at(int i);
const gr_topic_config_def_t *gr_topic_config_def_find(const char *name);
/* Checks value for name: NULL when valid, else a message for INVALID_CONFIG
 * (in a static buffer: loop thread only). */
const char *gr_topic_config_check(const char *name, const char *value);
/* The effective value of name for t (override, else broker default), as a
 * string in buf. */
const char *gr_topic_config_value(const gr_conf_t *conf, const gr_topic_t *t,
                                  const char *name, char *buf, size_t bufsz);

/* The parsed settings of t, cached; conf is the broker's. */
const gr_topic_settings_t *gr_topic_settings(const gr_conf_t *conf,
                                             gr_topic_t *t);
/* Forgets every cached settings (after a broker config change). */
void gr_topic_settings_invalidate_all(void);

#endif
