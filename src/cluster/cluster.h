/*
 * Cluster metadata: brokers, topics, partitions (leader, leader epoch,
 * replicas, ISR, high watermark) and the coordinator lookup
 * (key -> partition of an internal topic -> leader broker).
 *
 * The model is shared; what changes between deployments is where it is kept
 * and who decides: gr_cluster_ops_t. The single broker implements it in
 * process (local.c: decisions made here, topics persisted under log.dirs);
 * a ZooKeeper-backed cluster will implement the same operations against its
 * controller. Callers never ask which one they have.
 * Loop thread only.
 */
#ifndef GR_CLUSTER_CLUSTER_H
#define GR_CLUSTER_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/str.h"
#include "proto/kerr.h"

typedef struct gr_cluster gr_cluster_t;
typedef struct gr_topic gr_topic_t;
typedef struct gr_partition gr_partition_t;
struct gr_log;
struct gr_workers;

/* gr_cluster_sync(): the metadata changes made before it are durable.
 * failed lists the topics whose change could not be made durable since the
 * previous sync (a topic being created is removed again); cancelled: the
 * broker is stopping, only free what arg holds. */
typedef void (*gr_cluster_sync_cb)(void *arg, const gr_uuid_t *failed,
                                   int nfailed, bool cancelled);
/* A file of gregor-configs/ stored in the background: err 0 (durable)
 * or the errno that stopped it. */
typedef void (*gr_cluster_stored_cb)(void *arg, int err);

#define GR_TOPIC_NAME_MAX 249

typedef struct gr_endpoint {
    char listener[64];
    char host[256];
    int32_t port;
} gr_endpoint_t;

typedef struct gr_node {
    int32_t id;
    char *rack; /* NULL: none */
    gr_endpoint_t *endpoints;
    int nendpoints;
} gr_node_t;

/* A per-topic configuration override (Kafka topic-level key). */
typedef struct gr_topic_config {
    struct gr_topic_config *next;
    char *key;
    char *value;
} gr_topic_config_t;

/* A named config resource that is neither a topic nor a broker: Kafka's
 * CLIENT_METRICS subscriptions (KIP-714). It exists while it has configs:
 * one whose configs all go is removed, as Kafka's controller drops a
 * resource left without any. */
typedef struct gr_config_resource {
    struct gr_config_resource *next;
    char *name;
    gr_topic_config_t *configs; /* never empty */
} gr_config_resource_t;

/* What the metrics count of a partition since this broker opened its
 * log (src/control/metrics.c; Kafka's BrokerTopicMetrics per topic are
 * their sums): messages in are the log end offset less leo_base. Plain
 * adds on the loop thread, read at scrape time. */
typedef struct gr_partition_stats {
    int64_t bytes_in;  /* appended, by any path (gr_partition_append) */
    int64_t bytes_out; /* records in Fetch answers */
    int64_t produce_total, produce_failed; /* Produce partitions answered */
    int64_t fetch_total, fetch_failed;     /* Fetch partitions answered */
    int64_t leo_base; /* the log end offset when the log was opened */
} gr_partition_stats_t;

struct gr_partition {
    gr_topic_t *topic;
    int32_t id;
    int32_t leader;       /* node id, -1 when none */
    int32_t leader_epoch;
    int32_t *replicas;
    int32_t nreplicas;
    int32_t *isr;
    int32_t nisr;
    struct gr_log *log;   /* this broker's replica, NULL when not hosted */
    int64_t high_watermark; /* = the LEO on a single broker */
    struct gr_pstate *pstate; /* producer state (log/producer_state.h) */
    /* readers waiting for data (partition/partition.h) */
    struct gr_partition_waiter *waiters;
    bool opening; /* its directory is being made: no leader yet (broker.c) */
    gr_partition_stats_t stats;
    /* cluster mode: the state znode's version (Kafka's zkVersion, the
     * partition epoch) and controller epoch as last read, -1 before */
    int32_t state_version;
    int32_t state_controller_epoch;
    /* the leader's view of its followers (partition/partition.h); NULL
     * unless this broker leads p and p has other replicas */
    struct gr_partition_repl *repl;
};

struct gr_topic {
    char *name;
    gr_uuid_t id;
    bool internal;            /* __consumer_offsets, __transaction_state */
    int32_t nparts;
    gr_partition_t **parts;
    int16_t replication_factor;
    gr_topic_config_t *configs;
    struct gr_topic_settings *settings; /* cache: cluster/topic_config.c */
    uint32_t settings_gen;
    gr_topic_t *hnext;        /* hash chain by name */
    gr_topic_t *inext;        /* hash chain by id */
    gr_topic_t *lnext;        /* list in creation order */
};

typedef struct gr_topic_spec {
    const char *name;
    int32_t nparts;           /* -1: num.partitions */
    int16_t replication_factor; /* -1: default.replication.factor */
    const int32_t *const *assignment; /* [nparts][rf] replica ids, or NULL */
    const char *const *config_keys;
    const char *const *config_values;
    int nconfigs;
    bool internal;
    bool validate_only;
} gr_topic_spec_t;

/* A topic deletion whose record was found at start-up. */
typedef struct gr_deletion {
    char name[GR_TOPIC_NAME_MAX + 1];
    gr_uuid_t id;
    int32_t nparts;
} gr_deletion_t;

/* Coordinator key types (FindCoordinator): a group id, a transactional id. */
typedef enum gr_coord_type {
    GR_COORD_GROUP = 0,
    GR_COORD_TRANSACTION = 1,
} gr_coord_type_t;

/* Where topics go and who decides: the deployment-specific half. */
typedef struct gr_cluster_ops {
    /* Loads persisted topics into the model at start-up. */
    int (*load)(gr_cluster_t *c);
    /* Creates a topic (assignment, leaders, persistence). *out on success;
     * *msg may be set to an error message (static or in c's scratch). */
    gr_kerr_t (*create_topic)(gr_cluster_t *c, const gr_topic_spec_t *spec,
                              gr_topic_t **out, const char **msg);
    /* Removes a topic. What is persisted first is a record of the
     * deletion (Kafka's /admin/delete_topics/<topic>), kept until
     * deletions_done: a start after a crash finds it in c->deletions and
     * finishes the deletion (its partition directories may remain). */
    gr_kerr_t (*delete_topic)(gr_cluster_t *c, gr_topic_t *t);
    /* Every partition directory of every topic deleted so far is gone:
     * their records go (c->deletions is emptied). */
    void (*deletions_done)(gr_cluster_t *c);
    /* Adds partitions up to new_total; assignment: one row of
     * t->replication_factor broker ids per new partition, or NULL. */
    gr_kerr_t (*create_partitions)(gr_cluster_t *c, gr_topic_t *t,
                                   int32_t new_total,
                                   const int32_t *const *assignment,
                                   bool validate_only, const char **msg);
    /* Persists t's configuration overrides (already set on t). */
    gr_kerr_t (*store_topic_config)(gr_cluster_t *c, gr_topic_t *t);
    /* Persists the dynamic broker configs of this broker (per_broker) or
     * the cluster-wide defaults: list (borrowed; formatted before this
     * returns) is what the file is to hold, c's lists are left to the
     * caller; off the loop and in order, done as for store_acls below. */
    void (*store_broker_config)(gr_cluster_t *c, bool per_broker,
                                const gr_topic_config_t *list,
                                gr_cluster_stored_cb done, void *arg);
    /* The same for the client-metrics resources, all of them (list, as
     * c->client_metrics is to be). */
    void (*store_client_metrics)(gr_cluster_t *c,
                                 const gr_config_resource_t *list,
                                 gr_cluster_stored_cb done, void *arg);
    /* Persists the authorizer's ACLs (their text, src/auth/acl.h; data
     * taken, freed here), whole, off the loop and in order with the
     * changes before it; done(arg, err) on the loop once the file is
     * durable (err 0) or could not be written (the errno, logged with
     * the path): a crash leaves the old file or the new one. done may
     * run before this returns (no workers, or stopping). load_acls reads
     * them back (*data malloc'd, NULL with 0 when none were ever
     * stored). */
    void (*store_acls)(gr_cluster_t *c, char *data, size_t len,
                       gr_cluster_stored_cb done, void *arg);
    int (*load_acls)(gr_cluster_t *c, char **data, size_t *len);
    /* The same for the client quotas: list (borrowed; formatted before
     * this returns) is what the file is to hold; c->client_quotas is
     * left to the caller. */
    void (*store_client_quotas)(gr_cluster_t *c,
                                const gr_config_resource_t *list,
                                gr_cluster_stored_cb done, void *arg);
    /* Calls cb once the topic changes made so far are durable. The three
     * operations above change the model at once and persist the change in
     * the background; a request that must not be answered before that
     * waits here (cb may run before this returns). */
    void (*sync)(gr_cluster_t *c, gr_cluster_sync_cb cb, void *arg);
    void (*destroy)(gr_cluster_t *c);
} gr_cluster_ops_t;

/* Cluster mode (src/broker_topics.c): topics are created in the
 * coordination store, not by ops->create_topic, and a sync waits for
 * those writes too before ops->sync. The model's topics then come from
 * the store. */
typedef struct gr_cluster_remote {
    gr_kerr_t (*create_topic)(void *arg, const gr_topic_spec_t *spec,
                              gr_topic_t **out, const char **msg);
    gr_kerr_t (*delete_topic)(void *arg, gr_topic_t *t);
    gr_kerr_t (*create_partitions)(void *arg, gr_topic_t *t,
                                   int32_t new_total,
                                   const int32_t *const *assignment,
                                   bool validate_only, const char **msg);
    /* t's overrides (already set on t) written to the store; a sync
     * waits for the write, and lists t when it failed */
    gr_kerr_t (*store_topic_config)(void *arg, gr_topic_t *t);
    void (*sync)(void *arg, gr_cluster_sync_cb cb, void *cbarg);
} gr_cluster_remote_t;

/* Called for every partition created or removed, so the broker can open or
 * drop its log. May refuse creation with an error. */
typedef struct gr_cluster_hooks {
    gr_kerr_t (*partition_created)(void *arg, gr_partition_t *p);
    void (*partition_deleted)(void *arg, gr_partition_t *p);
    void *arg;
    /* The deletion of topic id (its partitions already deleted) could not
     * be stored: the topic is back at the next start. Before the sync
     * that follows the deletion calls back. NULL: nothing to do. */
    void (*deletion_failed)(void *arg, const gr_uuid_t *id);
} gr_cluster_hooks_t;

struct gr_cluster {
    const gr_cluster_ops_t *ops;
    void *impl;
    char cluster_id[23];
    int32_t self_id;          /* this broker */
    int32_t controller_id;
    gr_node_t *nodes;
    int nnodes;
    gr_topic_t **htab;        /* by name */
    gr_topic_t **itab;        /* by id */
    uint32_t hsize;
    gr_topic_t *topics;       /* creation order */
    gr_topic_t *topics_tail;
    int ntopics;
    gr_deletion_t *deletions; /* loaded by load(), not yet finished */
    int ndeletions;
    gr_cluster_hooks_t hooks;
    /* dynamic broker configs (AlterConfigs on BROKER): resource "<id>" of
     * this broker and resource "" (every broker); loaded by load() */
    gr_topic_config_t *broker_configs;
    gr_topic_config_t *default_broker_configs;
    /* CLIENT_METRICS resources (KIP-714 subscriptions), by creation;
     * loaded by load() */
    gr_config_resource_t *client_metrics;
    /* client quotas, one resource per entity (cluster/client_quotas.h);
     * loaded by load() */
    gr_config_resource_t *client_quotas;
    /* where the persisting is done (NULL: at once, on the loop) */
    struct gr_workers *workers;
    bool stopping; /* gr_broker_destroy(): nothing more is started */
    /* cluster mode: where topics are made (NULL on a single broker) */
    const gr_cluster_remote_t *remote;
    void *remote_arg;
};

/* The in-process implementation for a single broker. State is kept under
 * dir (cluster id in meta.properties, topics in gregor-topics/). */
gr_cluster_t *gr_cluster_local_new(const char *dir, int32_t node_id,
                                   const gr_endpoint_t *endpoints,
                                   int nendpoints,
                                   const gr_cluster_hooks_t *hooks);
void gr_cluster_destroy(gr_cluster_t *c);
int gr_cluster_load(gr_cluster_t *c);

gr_topic_t *gr_cluster_topic(gr_cluster_t *c, const gr_str_t *name);
gr_topic_t *gr_cluster_topic_cstr(gr_cluster_t *c, const char *name);
gr_topic_t *gr_cluster_topic_by_id(gr_cluster_t *c, const gr_uuid_t *id);
gr_partition_t *gr_cluster_partition(gr_cluster_t *c, const gr_str_t *topic,
                                     int32_t partition);
const gr_node_t *gr_cluster_node(gr_cluster_t *c, int32_t id);
/* The endpoint of a node on a listener, or NULL. */
const gr_endpoint_t *gr_node_endpoint(const gr_node_t *n,
                                      const char *listener);

/* Checks a topic name as Kafka's Topic.validate does (empty, "." and "..",
 * longer than 249 UTF-16 units, characters other than [a-zA-Z0-9._-]).
 * NULL when valid, else Kafka's InvalidTopicException message ("Topic name
 * is invalid: ..."), which for the length and the characters quotes the
 * name: that one is allocated in a (when a is NULL or out of memory, the
 * message says "it" instead of the name). The message holds the name's
 * bytes as they came. */
const char *gr_topic_name_error(const gr_str_t *name, gr_arena_t *a);
/* The same without an arena: NULL when valid; for callers that only test
 * (or that have no arena at hand). */
const char *gr_topic_name_invalid(const gr_str_t *name);

/* The checks of a creation every implementation makes (name, existence,
 * counts, the assignment's brokers): GR_KERR_NONE with *rf the
 * replication factor to use (an internal topic's capped to the brokers
 * there are), or the error with *msg. */
gr_kerr_t gr_cluster_topic_spec_check(gr_cluster_t *c,
                                      const gr_topic_spec_t *spec,
                                      int16_t *rf, const char **msg);
/* Kafka's AdminUtils.assignReplicasToBrokersRackUnaware: rows (nparts x
 * rf) of broker ids from brokers (nb of them, sorted, rf <= nb).
 * Partition p's first replica is brokers[(p + start) % nb]; replica j+1
 * follows it at 1 + (shift + j) % (nb - 1), shift growing by one every
 * nb partitions. Kafka draws start and shift at random in [0, nb). */
void gr_cluster_place_replicas(const int32_t *brokers, int nb, int32_t nparts,
                               int16_t rf, int start, int shift,
                               int32_t *rows);
/* Kafka's AdminUtils.assignReplicasToBrokersRackAware: as above over
 * the rack-alternated list of the brokers (racks sorted, each rack's
 * brokers by id, taken one per rack in turn); a follower is skipped
 * while its rack already has a replica and another rack has none, or
 * while it has one and another broker has none; the shift is multiplied
 * by the number of racks. racks[i] is brokers[i]'s (none NULL). 0, or -1
 * out of memory. */
int gr_cluster_place_replicas_rack(const int32_t *brokers,
                                   const char *const *racks, int nb,
                                   int32_t nparts, int16_t rf, int start,
                                   int shift, int32_t *rows);
/* Whether some of the cluster's brokers have a rack and some do not:
 * Kafka's assignReplicasToBrokers refuses to place then
 * (AdminOperationException, which CreateTopics and CreatePartitions
 * answer as UNKNOWN_SERVER_ERROR without a message). */
bool gr_cluster_racks_mixed(const gr_cluster_t *c);
/* Places nparts x rf over the cluster's brokers as AdminUtils does:
 * rack-aware when they all have a rack, else rack-unaware. 0, or -1 out
 * of memory. */
int gr_cluster_place(const gr_cluster_t *c, int32_t nparts, int16_t rf,
                     int start, int shift, int32_t *rows);
gr_kerr_t gr_cluster_create_topic(gr_cluster_t *c, const gr_topic_spec_t *spec,
                                  gr_topic_t **out, const char **msg);
gr_kerr_t gr_cluster_delete_topic(gr_cluster_t *c, gr_topic_t *t);
void gr_cluster_deletions_done(gr_cluster_t *c);
/* From now on changes are persisted on workers; what load() left queued
 * (the fsyncs of a new meta.properties) runs there ahead of the next
 * change or gr_cluster_sync(). */
void gr_cluster_set_workers(gr_cluster_t *c, struct gr_workers *workers);
gr_kerr_t gr_cluster_create_partitions(gr_cluster_t *c, gr_topic_t *t,
                                       int32_t new_total,
                                       const int32_t *const *assignment,
                                       bool validate_only, const char **msg);
gr_kerr_t gr_cluster_store_topic_config(gr_cluster_t *c, gr_topic_t *t);
void gr_cluster_store_broker_config(gr_cluster_t *c, bool per_broker,
                                    const gr_topic_config_t *list,
                                    gr_cluster_stored_cb done, void *arg);
void gr_cluster_store_client_metrics(gr_cluster_t *c,
                                     const gr_config_resource_t *list,
                                     gr_cluster_stored_cb done, void *arg);
void gr_cluster_store_acls(gr_cluster_t *c, char *data, size_t len,
                           gr_cluster_stored_cb done, void *arg);
int gr_cluster_load_acls(gr_cluster_t *c, char **data, size_t *len);
void gr_cluster_store_client_quotas(gr_cluster_t *c,
                                    const gr_config_resource_t *list,
                                    gr_cluster_stored_cb done, void *arg);
void gr_cluster_sync(gr_cluster_t *c, gr_cluster_sync_cb cb, void *arg);

/* The topic-level override of key, or NULL. */
const char *gr_topic_config_get(const gr_topic_t *t, const char *key);
/* Sets (value != NULL) or removes an override in memory. */
int gr_topic_config_set(gr_topic_t *t, const char *key, const char *value);
/* Removes every override of t. */
void gr_topic_config_clear(gr_topic_t *t);
/* The same for any key/value list (dynamic broker configs). */
const char *gr_config_list_get(const gr_topic_config_t *list, const char *key);
int gr_config_list_set(gr_topic_config_t **list, const char *key,
                       const char *value);
void gr_config_list_free(gr_topic_config_t **list);
/* A copy of list (same order), or NULL with *oom set. */
gr_topic_config_t *gr_config_list_copy(const gr_topic_config_t *list,
                                       bool *oom);
/* Named resources (c->client_metrics): the one called name, or NULL. */
gr_config_resource_t *gr_config_resource_find(gr_config_resource_t *list,
                                              const char *name);
/* Gives name the configs (owned by the list from then on; NULL removes
 * the resource), replacing what it had; a new one goes last. 0, or -1
 * when out of memory (nothing changes, configs stays the caller's). */
int gr_config_resource_set(gr_config_resource_t **list, const char *name,
                           gr_topic_config_t *configs);
void gr_config_resources_free(gr_config_resource_t **list);

/* Coordinator lookup: the internal topic's partition for key, as Kafka
 * computes it (abs(java hashCode(key)) % partitions). */
int32_t gr_cluster_coord_partition(const gr_str_t *key, int32_t nparts);

/* Model helpers used by implementations. */
gr_topic_t *gr_cluster_topic_add(gr_cluster_t *c, const char *name,
                                 const gr_uuid_t *id, int32_t nparts,
                                 int16_t rf, bool internal);
void gr_cluster_topic_remove(gr_cluster_t *c, gr_topic_t *t);
int gr_topic_add_partitions(gr_topic_t *t, int32_t new_total, int32_t leader,
                            const int32_t *replicas, int32_t nreplicas);
void gr_cluster_model_init(gr_cluster_t *c);
void gr_cluster_model_fini(gr_cluster_t *c);

#endif
