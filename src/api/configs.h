/*
 * What the config APIs share (DescribeConfigs, AlterConfigs,
 * IncrementalAlterConfigs, and CreateTopics v5+ which echoes a new topic's
 * configs): config entries as Kafka describes them (value, source,
 * synonyms, read-only and sensitive flags, type, documentation), resource
 * names, and changes of a topic's overrides or of the dynamic broker
 * configs, validated and persisted through the cluster ops. The table
 * itself is cluster/topic_config.c. Loop thread only.
 */
#ifndef GR_API_CONFIGS_H
#define GR_API_CONFIGS_H

#include "broker.h"
#include "cluster/cluster.h"
#include "cluster/topic_config.h"
#include "core/arena.h"

/* What an AlterConfigs or IncrementalAlterConfigs request changed, to be
 * stored before it is answered (a change of api/change.h): the dynamic
 * broker configs and the client-metrics subscriptions as they are to be,
 * written off the loop and installed once durable (until then everyone
 * sees them as before; a failed write drops them), and the topics whose
 * overrides changed (those hold at once, their files queued by the
 * cluster: the answer waits for them, and a failed write puts the old
 * overrides back). */
typedef struct gr_configs_pending gr_configs_pending_t;

/* Its fields are api/configs.c's and api/client_metrics_configs.c's. */
typedef enum gr_configs_kind {
    GR_CONFIGS_BROKER_DEFAULT, /* = per_broker false */
    GR_CONFIGS_BROKER_THIS,    /* = per_broker true */
    GR_CONFIGS_CLIENT_METRICS,
    GR_CONFIGS_TOPIC,
} gr_configs_kind_t;

typedef struct gr_configs_item {
    gr_configs_kind_t kind;
    gr_uuid_t id;  /* TOPIC */
    bool failed;   /* TOPIC: its file could not be stored */
    char *name;    /* CLIENT_METRICS: the subscription (malloc'd) */
    bool had;      /* CLIENT_METRICS: it existed before */
    gr_topic_config_t *old; /* TOPIC: its overrides before */
    int16_t *code; /* the answer (NULL: none) */
    gr_str_t *msg;
} gr_configs_item_t;

struct gr_configs_pending {
    gr_topic_config_t *broker[2]; /* [per_broker], as it is to be */
    bool has_broker[2];
    gr_config_resource_t *cm; /* every subscription, as they are to be */
    bool has_cm;
    gr_configs_item_t *items; /* one per resource changed, in order */
    int n, cap, answered;
    /* the store: one part per file (the kinds above but TOPIC), then the
     * topics' sync; cb once none is left */
    struct gr_configs_part {
        gr_configs_pending_t *p;
        int err;
    } part[3];
    int waiting;
    gr_cluster_stored_cb cb;
    void *arg;
};

/* Room for the changes of n resources; NULL when out of memory. */
gr_configs_pending_t *gr_configs_pending_new(int n);
void gr_configs_pending_free(gr_configs_pending_t *p);
/* The end of a request's apply: 1 with *state = p when p has anything
 * to store or to wait for, else 0 (p freed: answered at once). */
int gr_configs_pending_end(gr_configs_pending_t *p, void **state);
/* Out of memory in a request's apply: p freed, the connection closed
 * (a topic changed so far stays changed). Returns -1, apply's answer. */
int gr_configs_pending_close(struct gr_req *req, gr_configs_pending_t *p);
/* The resource just altered answers in *code / *msg (in the request's
 * response) if what it left in p cannot be stored. */
void gr_configs_pending_answer(gr_configs_pending_t *p, int16_t *code,
                               gr_str_t *msg);
/* gr_change_ops_t's store and done for p (state): the files written in
 * order, then the topics' sync; done installs what was stored, answers
 * KAFKA_STORAGE_ERROR for the rest and frees p. */
void gr_configs_store(gr_broker_t *b, void *state, gr_cluster_stored_cb cb,
                      void *arg);
void gr_configs_done(gr_broker_t *b, struct gr_req *req, void *state,
                     int err);

/* ConfigResource.Type ids */
#define GR_RESOURCE_TOPIC          2
#define GR_RESOURCE_BROKER         4
#define GR_RESOURCE_BROKER_LOGGER  8
#define GR_RESOURCE_CLIENT_METRICS 16
#define GR_RESOURCE_GROUP          32

/* DescribeConfigsResponse.ConfigSource ids */
typedef enum gr_config_source {
    GR_CFGSRC_UNKNOWN = 0,
    GR_CFGSRC_TOPIC = 1, /* DYNAMIC_TOPIC_CONFIG */
    GR_CFGSRC_DYNAMIC_BROKER = 2,
    GR_CFGSRC_DYNAMIC_DEFAULT = 3, /* DYNAMIC_DEFAULT_BROKER_CONFIG */
    GR_CFGSRC_STATIC = 4,          /* STATIC_BROKER_CONFIG */
    GR_CFGSRC_DEFAULT = 5,         /* DEFAULT_CONFIG */
    GR_CFGSRC_BROKER_LOGGER = 6,   /* DYNAMIC_BROKER_LOGGER_CONFIG */
    GR_CFGSRC_CLIENT_METRICS = 7,  /* CLIENT_METRICS_CONFIG */
} gr_config_source_t;

#define GR_CONFIG_SYN_MAX 16

typedef struct gr_config_synonym {
    const char *name;
    const char *value; /* NULL when sensitive */
    gr_config_source_t source;
} gr_config_synonym_t;

/* One config as DescribeConfigs gives it. Strings live in the arena given
 * to the function that filled it, or are static. */
typedef struct gr_config_entry {
    const char *name;
    const char *value; /* NULL when sensitive */
    gr_config_source_t source;
    bool read_only;
    bool sensitive;
    gr_tcfg_type_t type;
    const char *doc;
    int nsyn;
    gr_config_synonym_t syn[GR_CONFIG_SYN_MAX]; /* most precedent first */
} gr_config_entry_t;

/* The entry of topic config d for t, its overrides as given (CreateTopics
 * v5+ echoes them so). 0, or -1 on ENOMEM. */
int gr_configs_topic_entry(gr_broker_t *b, const gr_topic_t *t,
                           const gr_topic_config_def_t *d, gr_arena_t *a,
                           gr_config_entry_t *e);
/* The same as DescribeConfigs gives it: values as Kafka prints them once
 * parsed (gr_config_value_canonical). */
int gr_configs_topic_described(gr_broker_t *b, const gr_topic_t *t,
                               const gr_topic_config_def_t *d, gr_arena_t *a,
                               gr_config_entry_t *e);
/* The entry of broker config id, described on this broker (per_broker) or
 * as the cluster-wide defaults. 1 when there is one (on this broker every
 * key, with a null value when none is set or defaulted, but a key Kafka
 * 4.4 does not list only where it is set; on the defaults resource a key
 * set there), 0 when not, -1 on ENOMEM. */
int gr_configs_broker_entry(gr_broker_t *b, gr_conf_id_t id, bool per_broker,
                            gr_arena_t *a, gr_config_entry_t *e);
/* The entry of a key Kafka knows and Gregor does not use, as set in the
 * static configuration (read-only; secret values hidden). */
void gr_configs_extra_entry(const char *key, const char *value,
                            gr_config_entry_t *e);
/* The listener-level connection quotas set (listener.name.<l>.
 * max.connections and .max.connection.creation.rate, dynamic or static):
 * the i-th one this broker or the defaults resource describes, as Kafka
 * does (read-only, INT, its base key among its synonyms). false past the
 * end. */
bool gr_configs_listener_entry_at(gr_broker_t *b, bool per_broker, int i,
                                  gr_config_entry_t *e);
/* Keys neither Gregor nor Kafka knows that AlterConfigs set on the broker
 * resources (Kafka keeps them, without effect): the i-th one this broker
 * (per_broker: its own and the cluster defaults') or the defaults
 * resource describes, as Kafka describes a key it does not define
 * (read-only, sensitive, of no type). false past the end. */
bool gr_configs_unknown_entry_at(gr_broker_t *b, bool per_broker, int i,
                                 gr_config_entry_t *e);

/* Who names a BROKER or BROKER_LOGGER resource: Kafka words its answers
 * differently in DescribeConfigs (ConfigHelper), in AlterConfigs and
 * IncrementalAlterConfigs on a broker (ConfigAdminManager) and on its
 * logger (RuntimeLoggerManager). */
typedef enum gr_config_resource_use {
    GR_CFGRES_DESCRIBE_BROKER,
    GR_CFGRES_DESCRIBE_LOGGER,
    GR_CFGRES_ALTER_BROKER,
    GR_CFGRES_ALTER_LOGGER,
} gr_config_resource_use_t;

/* A BROKER or BROKER_LOGGER resource name: "" (the cluster defaults,
 * BROKER only) or this broker's id. GR_KERR_NONE with *per_broker, or
 * INVALID_REQUEST with *msg (in a), as Kafka words it for use. */
gr_kerr_t gr_configs_broker_resource(gr_broker_t *b, const gr_str_t *name,
                                     gr_config_resource_use_t use,
                                     bool *per_broker, gr_arena_t *a,
                                     const char **msg);

/* A requested change of one config: SET (value), DELETE (value NULL),
 * APPEND or SUBTRACT (list items, IncrementalAlterConfigs). */
typedef enum gr_config_op {
    GR_CONFIG_SET = 0,
    GR_CONFIG_DELETE = 1,
    GR_CONFIG_APPEND = 2,
    GR_CONFIG_SUBTRACT = 3,
} gr_config_op_t;

typedef struct gr_config_change {
    const char *key;
    const char *value;
    gr_config_op_t op;
} gr_config_change_t;

/* The resources (type, name) given more than once, which Kafka's broker
 * refuses first, each ("Each resource must appear at most once."): dup[i]
 * set for every one repeated; in a, NULL on ENOMEM. */
bool *gr_configs_repeated_resources(gr_arena_t *a, const int8_t *types,
                                    const gr_str_t *names, int n);
#define GR_CONFIGS_REPEATED_MSG "Each resource must appear at most once."

/* What Kafka's broker checks in every resource's changes before anything
 * else (ConfigAdminManager.preprocess): a key given twice, then null
 * values where one is needed (replace: AlterConfigs, every one; else all
 * but DELETE's). NONE, or INVALID_REQUEST with *msg (in a). */
gr_kerr_t gr_configs_preprocess(const gr_config_change_t *ch, int n,
                                bool replace, gr_arena_t *a, const char **msg);

/* Applies changes (gr_configs_preprocess passed) to t's overrides
 * (replace: AlterConfigs, the overrides become exactly the SETs) after
 * checking them all as Kafka's controller does; in effect at once and
 * queued to be persisted through the cluster ops unless validate_only,
 * the topic noted in p (NULL only with validate_only) to wait for. NONE,
 * or INVALID_CONFIG / KAFKA_STORAGE_ERROR with *msg (in a). Nothing
 * changes on an error. */
gr_kerr_t gr_configs_alter_topic(gr_broker_t *b, gr_configs_pending_t *p,
                                 gr_topic_t *t,
                                 const gr_config_change_t *ch, int n,
                                 bool replace, bool validate_only,
                                 gr_arena_t *a, const char **msg);
/* The same for the topic resource name: when there is no such topic, the
 * changes checked as for a topic without overrides, its name among them
 * (INVALID_REQUEST for "", INVALID_TOPIC_EXCEPTION), then
 * UNKNOWN_TOPIC_OR_PARTITION, in Kafka's order and words. *t is the topic
 * changed, or NULL. */
gr_kerr_t gr_configs_alter_topic_named(gr_broker_t *b,
                                       gr_configs_pending_t *p,
                                       const gr_str_t *name,
                                       const gr_config_change_t *ch, int n,
                                       bool replace, bool validate_only,
                                       gr_arena_t *a, const char **msg,
                                       gr_topic_t **t);
/* The same for the dynamic broker configs of this broker (per_broker) or
 * of every broker, checked as Kafka's DynamicBrokerConfig does: every key
 * that cannot change at run time named at once, values by their Kafka
 * type (INVALID_REQUEST); a key neither Gregor nor Kafka knows is kept,
 * without effect, as Kafka keeps it. The new configs go to p (NULL only
 * with validate_only), in effect once stored; the other level is seen as
 * p has it. */
gr_kerr_t gr_configs_alter_broker(gr_broker_t *b, gr_configs_pending_t *p,
                                  bool per_broker,
                                  const gr_config_change_t *ch, int n,
                                  bool replace, bool validate_only,
                                  gr_arena_t *a, const char **msg);
/* Logs that t's override key (a Kafka 3.x key, see
 * gr_topic_config_is_legacy) is kept and has no effect; nothing for other
 * keys. */
void gr_configs_note_legacy(const gr_topic_t *t, const char *key);

/* BROKER_LOGGER: the loggers (Gregor has one, "root") and their level;
 * changes checked as Kafka's RuntimeLoggerManager does (op: an operation
 * id, unknown ones refused). */
int gr_configs_logger_entries(gr_arena_t *a, gr_config_entry_t **out);
gr_kerr_t gr_configs_alter_logger(const gr_config_change_t *ch, int n,
                                  bool validate_only, gr_arena_t *a,
                                  const char **msg);

/* CLIENT_METRICS (api/client_metrics_configs.c): the subscriptions of
 * KIP-714, kept by the cluster (c->client_metrics), compiled by
 * src/telemetry/. Describing a name gives its three configs, unset ones
 * as defaults (a name never set included, as Kafka); n entries in *out,
 * or -1 on ENOMEM. */
int gr_configs_client_metrics_entries(gr_broker_t *b, const char *name,
                                      gr_arena_t *a, gr_config_entry_t **out);
/* Changes subscription name as Kafka's controller does (replace:
 * AlterConfigs, the configs become exactly the SETs), checked first as
 * ClientMetricsConfigs does; a subscription left without configs is
 * removed. Unless validate_only, the subscriptions as they are to be go
 * to p, in effect once stored (clients re-read their subscription;
 * gr_configs_client_metrics_done). NONE, or INVALID_REQUEST /
 * INVALID_CONFIG with *msg (in a). Nothing changes on an error. */
gr_kerr_t gr_configs_alter_client_metrics(gr_broker_t *b,
                                          gr_configs_pending_t *p,
                                          const char *name,
                                          const gr_config_change_t *ch, int n,
                                          bool replace, bool validate_only,
                                          gr_arena_t *a, const char **msg);
/* gr_configs_done's part: the subscriptions of p installed and given to
 * client telemetry when stored (err 0), else dropped. */
void gr_configs_client_metrics_done(gr_broker_t *b, gr_configs_pending_t *p,
                                    int err);
/* At start-up: the subscriptions the cluster loaded go to client
 * telemetry (one that does not check is logged and left out). */
void gr_configs_client_metrics_load(gr_broker_t *b);

#endif
