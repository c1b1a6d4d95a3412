/*
 * Topic-level configuration: see topic_config.h. The table lists Kafka's
 * topic configs with the broker key whose value is their default.
 */
#include "cluster/topic_config.h"
#include "core/log.h"
#include "proto/records.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const cleanup_choices[] = {"delete", "compact", NULL};
static const char *const compression_choices[] = {
    "uncompressed", "zstd", "lz4", "snappy", "gzip", "producer", NULL};
static const char *const ts_type_choices[] = {"CreateTime", "LogAppendTime",
                                              NULL};

#define L INT64_MAX
static const gr_topic_config_def_t defs[] = {
    {"cleanup.policy", GR_TCFG_LIST, GR_CONF_LOG_CLEANUP_POLICY, NULL, 0, 0,
     cleanup_choices},
    {"compression.gzip.level", GR_TCFG_INT, GR_CONF_COMPRESSION_GZIP_LEVEL,
     NULL, -1, 9, NULL},
    {"compression.lz4.level", GR_TCFG_INT, GR_CONF_COMPRESSION_LZ4_LEVEL, NULL,
     1, 17, NULL},
    {"compression.type", GR_TCFG_STRING, GR_CONF_COMPRESSION_TYPE, NULL, 0, 0,
     compression_choices},
    {"compression.zstd.level", GR_TCFG_INT, GR_CONF_COMPRESSION_ZSTD_LEVEL,
     NULL, -131072, 22, NULL},
    {"delete.retention.ms", GR_TCFG_LONG, GR_CONF_LOG_CLEANER_DELETE_RETENTION_MS,
     NULL, 0, L, NULL},
    {"file.delete.delay.ms", GR_TCFG_LONG, GR_CONF_LOG_SEGMENT_DELETE_DELAY_MS,
     NULL, 0, L, NULL},
    {"flush.messages", GR_TCFG_LONG, GR_CONF_LOG_FLUSH_INTERVAL_MESSAGES, NULL,
     1, L, NULL},
    {"flush.ms", GR_TCFG_LONG, GR_CONF_LOG_FLUSH_INTERVAL_MS, NULL, 0, L, NULL},
    {"follower.replication.throttled.replicas", GR_TCFG_LIST, -1, "", 0, 0,
     NULL},
    {"index.interval.bytes", GR_TCFG_INT, GR_CONF_LOG_INDEX_INTERVAL_BYTES, NULL,
     0, 2147483647, NULL},
    {"leader.replication.throttled.replicas", GR_TCFG_LIST, -1, "", 0, 0,
     NULL},
    {"local.retention.bytes", GR_TCFG_LONG, -1, "-2", -2, L, NULL},
    {"local.retention.ms", GR_TCFG_LONG, -1, "-2", -2, L, NULL},
    {"max.compaction.lag.ms", GR_TCFG_LONG,
     GR_CONF_LOG_CLEANER_MAX_COMPACTION_LAG_MS, NULL, 1, L, NULL},
    {"max.message.bytes", GR_TCFG_INT, GR_CONF_MESSAGE_MAX_BYTES, NULL, 0,
     2147483647, NULL},
    {"message.downconversion.enable", GR_TCFG_BOOL,
     GR_CONF_LOG_MESSAGE_DOWNCONVERSION_ENABLE, NULL, 0, 0, NULL},
    {"message.timestamp.after.max.ms", GR_TCFG_LONG,
     GR_CONF_LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS, NULL, 0, L, NULL},
    {"message.timestamp.before.max.ms", GR_TCFG_LONG,
     GR_CONF_LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS, NULL, 0, L, NULL},
    {"message.timestamp.type", GR_TCFG_STRING,
     GR_CONF_LOG_MESSAGE_TIMESTAMP_TYPE, NULL, 0, 0, ts_type_choices},
    {"min.cleanable.dirty.ratio", GR_TCFG_DOUBLE,
     GR_CONF_LOG_CLEANER_MIN_CLEANABLE_RATIO, NULL, 0, 1, NULL},
    {"min.compaction.lag.ms", GR_TCFG_LONG,
     GR_CONF_LOG_CLEANER_MIN_COMPACTION_LAG_MS, NULL, 0, L, NULL},
    {"min.insync.replicas", GR_TCFG_INT, GR_CONF_MIN_INSYNC_REPLICAS, NULL, 1,
     2147483647, NULL},
    {"preallocate", GR_TCFG_BOOL, GR_CONF_LOG_PREALLOCATE, NULL, 0, 0, NULL},
    {"remote.storage.enable", GR_TCFG_BOOL, -1, "false", 0, 0, NULL},
    {"retention.bytes", GR_TCFG_LONG, GR_CONF_LOG_RETENTION_BYTES, NULL, -1, L,
     NULL},
    {"retention.ms", GR_TCFG_LONG, -1, NULL, -1, L, NULL},
    {"segment.bytes", GR_TCFG_INT, GR_CONF_LOG_SEGMENT_BYTES, NULL, 14,
     2147483647, NULL},
    {"segment.index.bytes", GR_TCFG_INT, GR_CONF_LOG_INDEX_SIZE_MAX_BYTES, NULL,
     4, 2147483647, NULL},
    {"segment.jitter.ms", GR_TCFG_LONG, GR_CONF_LOG_ROLL_JITTER_MS, NULL, 0, L,
     NULL},
    {"segment.ms", GR_TCFG_LONG, -1, NULL, 1, L, NULL},
    {"unclean.leader.election.enable", GR_TCFG_BOOL,
     GR_CONF_UNCLEAN_LEADER_ELECTION_ENABLE, NULL, 0, 0, NULL},
};
#undef L

static uint32_t settings_generation = 1;

const gr_topic_config_def_t *
gr_topic_config_def_at(int i)
{
    if (i < 0 || (size_t)i >= sizeof defs / sizeof defs[0])
        return NULL;
    return &defs[i];
}

const gr_topic_config_def_t *
gr_topic_config_def_find(const char *name)
{
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++)
        if (strcmp(defs[i].name, name) == 0)
            return &defs[i];
    return NULL;
}

static int
in_choices(const char *const *choices, const char *v, size_t len)
{
    for (; *choices; choices++)
        if (strlen(*choices) == len && strncmp(*choices, v, len) == 0)
            return 1;
    return 0;
}

const char *
gr_topic_config_check(const char *name, const char *value)
{
    static char msg[512];
    const gr_topic_config_def_t *d = gr_topic_config_def_find(name);
    char *end;

    if (d == NULL) {
        snprintf(msg, sizeof msg, "Unknown topic config name: %s", name);
        return msg;
    }
    switch (d->type) {
    case GR_TCFG_INT:
    case GR_TCFG_LONG: {
        long long v;
        errno = 0;
        v = strtoll(value, &end, 10);
        if (errno || end == value || *end) {
            snprintf(msg, sizeof msg,
                     "Invalid value %s for configuration %s: Not a number of "
                     "type %s",
                     value, name, d->type == GR_TCFG_INT ? "INT" : "LONG");
            return msg;
        }
        if (v < d->min || v > d->max) {
            snprintf(msg, sizeof msg,
                     "Invalid value %s for configuration %s: Value must be "
                     "at least %lld%s",
                     value, name, (long long)d->min,
                     d->max < INT64_MAX ? " and at most the type's maximum"
                                        : "");
            return msg;
        }
        return NULL;
    }
    case GR_TCFG_DOUBLE: {
        double v;
        errno = 0;
        v = strtod(value, &end);
        if (errno || end == value || *end || v < (double)d->min ||
            v > (double)d->max) {
            snprintf(msg, sizeof msg,
                     "Invalid value %s for configuration %s: Value must be a "
                     "number between %lld and %lld",
                     value, name, (long long)d->min, (long long)d->max);
            return msg;
        }
        return NULL;
    }
    case GR_TCFG_BOOL:
        if (strcasecmp(value, "true") && strcasecmp(value, "false")) {
            snprintf(msg, sizeof msg,
                     "Invalid value %s for configuration %s: Expected value "
                     "to be either true or false",
                     value, name);
            return msg;
        }
        return NULL;
    case GR_TCFG_STRING:
        if (d->choices && !in_choices(d->choices, value, strlen(value))) {
            snprintf(msg, sizeof msg,
                     "Invalid value %s for configuration %s: String must be "
                     "one of the allowed values",
                     value, name);
            return msg;
        }
        return NULL;
    case GR_TCFG_LIST:
        if (d->choices) {
            const char *p = value;
            while (*p) {
                const char *c = strchr(p, ',');
                size_t len = c ? (size_t)(c - p) : strlen(p);
                while (len && *p == ' ') {
                    p++;
                    len--;
                }
                while (len && p[len - 1] == ' ')
                    len--;
                if (len && !in_choices(d->choices, p, len)) {
                    snprintf(msg, sizeof msg,
                             "Invalid value %s for configuration %s: an item "
                             "is not one of the allowed values",
                             value, name);
                    return msg;
                }
                if (c == NULL)
                    break;
                p = c + 1;
            }
        }
        return NULL;
    }
    return NULL;
}

const char *
gr_topic_config_value(const gr_conf_t *conf, const gr_topic_t *t,
                      const char *name, char *buf, size_t bufsz)
{
    const gr_topic_config_def_t *d = gr_topic_config_def_find(name);
    const char *v = t ? gr_topic_config_get(t, name) : NULL;
    if (v)
        return v;
    if (d == NULL)
        return NULL;
    if (strcmp(name, "retention.ms") == 0) {
        snprintf(buf, bufsz, "%lld", (long long)gr_conf_retention_ms(conf));
        return buf;
    }
    if (strcmp(name, "segment.ms") == 0) {
        snprintf(buf, bufsz, "%lld", (long long)gr_conf_roll_ms(conf));
        return buf;
    }
    if (strcmp(name, "flush.ms") == 0 &&
        !gr_conf_is_set(conf, GR_CONF_LOG_FLUSH_INTERVAL_MS)) {
        snprintf(buf, bufsz, "%lld",
                 (long long)gr_conf_int(conf,
                                        GR_CONF_LOG_FLUSH_SCHEDULER_INTERVAL_MS));
        return buf;
    }
    if (d->broker_key >= 0) {
        const char *bv = gr_conf_str(conf, (gr_conf_id_t)d->broker_key);
        return bv ? bv : "";
    }
    return d->def ? d->def : "";
}

static int64_t
num(const gr_conf_t *conf, const gr_topic_t *t, const char *name)
{
    char buf[64];
    const char *v = gr_topic_config_value(conf, t, name, buf, sizeof buf);
    return v ? strtoll(v, NULL, 10) : 0;
}

static bool
flag(const gr_conf_t *conf, const gr_topic_t *t, const char *name)
{
    char buf[64];
    const char *v = gr_topic_config_value(conf, t, name, buf, sizeof buf);
    return v && strcasecmp(v, "true") == 0;
}

static int
codec_of(const char *v)
{
    if (strcmp(v, "gzip") == 0)
        return GR_CODEC_GZIP;
    if (strcmp(v, "snappy") == 0)
        return GR_CODEC_SNAPPY;
    if (strcmp(v, "lz4") == 0)
        return GR_CODEC_LZ4;
    if (strcmp(v, "zstd") == 0)
        return GR_CODEC_ZSTD;
    if (strcmp(v, "uncompressed") == 0)
        return GR_CODEC_NONE;
    return GR_TOPIC_COMPRESSION_PRODUCER;
}

const gr_topic_settings_t *
gr_topic_settings(const gr_conf_t *conf, gr_topic_t *t)
{
    gr_topic_settings_t *s = t->settings;
    char buf[256];
    const char *v;

    if (s != NULL && t->settings_gen == settings_generation)
        return s;
    if (s == NULL) {
        s = calloc(1, sizeof(*s));
        GR_ASSERT(s != NULL);
        t->settings = s;
    }
    s->segment_bytes = num(conf, t, "segment.bytes");
    s->segment_ms = num(conf, t, "segment.ms");
    s->retention_ms = num(conf, t, "retention.ms");
    s->retention_bytes = num(conf, t, "retention.bytes");
    s->flush_messages = num(conf, t, "flush.messages");
    s->flush_ms = num(conf, t, "flush.ms");
    s->index_interval_bytes = (int32_t)num(conf, t, "index.interval.bytes");
    s->segment_index_bytes = (int32_t)num(conf, t, "segment.index.bytes");
    s->file_delete_delay_ms = num(conf, t, "file.delete.delay.ms");
    s->preallocate = flag(conf, t, "preallocate");
    v = gr_topic_config_value(conf, t, "cleanup.policy", buf, sizeof buf);
    s->cleanup_delete = v && strstr(v, "delete") != NULL;
    s->cleanup_compact = v && strstr(v, "compact") != NULL;
    s->max_message_bytes = (int32_t)num(conf, t, "max.message.bytes");
    v = gr_topic_config_value(conf, t, "message.timestamp.type", buf,
                              sizeof buf);
    s->log_append_time = v && strcmp(v, "LogAppendTime") == 0;
    v = gr_topic_config_value(conf, t, "compression.type", buf, sizeof buf);
    s->compression = codec_of(v ? v : "producer");
    s->min_insync_replicas = (int32_t)num(conf, t, "min.insync.replicas");
    s->ts_before_max_ms = num(conf, t, "message.timestamp.before.max.ms");
    s->ts_after_max_ms = num(conf, t, "message.timestamp.after.max.ms");
    s->delete_retention_ms = num(conf, t, "delete.retention.ms");
    s->min_compaction_lag_ms = num(conf, t, "min.compaction.lag.ms");
    v = gr_topic_config_value(conf, t, "min.cleanable.dirty.ratio", buf,
                              sizeof buf);
    s->min_cleanable_dirty_ratio = v ? strtod(v, NULL) : 0.5;
    t->settings_gen = settings_generation;
    return s;
}

void
gr_topic_settings_invalidate_all(void)
{
    if (++settings_generation == 0)
        settings_generation = 1;
}
