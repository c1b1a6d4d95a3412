/*
 * Topic creation on demand: auto-creation of a topic a client asked for
 * (Metadata, per auto.create.topics.enable and num.partitions) and of the
 * internal topics on first use, with the partition counts and replication
 * factors of the broker configuration.
 */
#ifndef GR_API_TOPICS_H
#define GR_API_TOPICS_H

#include "broker.h"
#include "cluster/cluster.h"

#define GR_TOPIC_CONSUMER_OFFSETS "__consumer_offsets"
#define GR_TOPIC_TRANSACTION_STATE "__transaction_state"

/* The most partitions one CreateTopics or CreatePartitions request may
 * create in all (Kafka's controller: MAX_PARTITIONS_PER_BATCH); more is
 * POLICY_VIOLATION for the request's topics. */
#define GR_MAX_PARTITIONS_PER_REQUEST 10000

bool gr_topic_is_internal_name(const gr_str_t *name);
/* For each of n keys, gr_str_t stride bytes apart from first (a field of
 * each element of a request's array; first may be NULL when n is 0), the
 * index of the first key equal to it: i itself when key i is the first of
 * its value; a null key (len < 0) is always its own. Kafka's handlers
 * gather a request's names in sets and maps, so a repeated name is
 * answered once; this finds the repeats in a hash table of seeded hashes
 * (O(n); a million names take ~30 ms, sorting them took 150), falling
 * back to sorting copies (O(n log n)) if keys collide beyond 16 probes a
 * key on average. Allocated from a; NULL when that fails. */
int32_t *gr_topics_first_of(gr_arena_t *a, const gr_str_t *first,
                            size_t stride, int32_t n);
/* A set of n names (gr_str_t stride bytes apart from first, as above; null
 * ones left out) for lookups: built in O(n) in a hash table of seeded
 * hashes (a request's million configuration keys, looked up for each of
 * the broker's configs, took a compare of each key for each config), or a
 * list searched in turn if the keys collide beyond 16 probes a key on
 * average. Allocated from a; NULL when that fails. */
typedef struct gr_nameset gr_nameset_t;
gr_nameset_t *gr_nameset_new(gr_arena_t *a, const gr_str_t *first,
                             size_t stride, int32_t n);
/* Whether set holds the len bytes at name. */
bool gr_nameset_has(const gr_nameset_t *set, const char *name, size_t len);
/* One partition's replicas in a manual assignment (CreateTopics,
 * CreatePartitions), checked as Kafka's validateManualPartitionAssignment
 * does: not empty, each broker registered and listed once (in ascending
 * order: the first unknown or repeated id is named), and rf of them when
 * rf > 0 (the partitions before). GR_KERR_NONE, or
 * INVALID_REPLICA_ASSIGNMENT with Kafka's message in *msg (in a); out of
 * memory is UNKNOWN_SERVER_ERROR with *msg NULL. */
gr_kerr_t gr_topics_check_replicas(gr_cluster_t *c, gr_arena_t *a,
                                   const int32_t *ids, int32_t n, int32_t rf,
                                   const char **msg);
/* Creates name with the broker defaults (an internal topic with its own
 * settings). *out is set on success; msg explains a failure. */
gr_kerr_t gr_topics_auto_create(gr_broker_t *b, const gr_str_t *name,
                                gr_topic_t **out, const char **msg);
/* The internal topic, created if needed; NULL when that fails (logged).
 * Made outside a gr_broker_open_async batch, its partitions are led at once
 * while its topic file is still queued: handlers use the call below. */
gr_topic_t *gr_topics_internal(gr_broker_t *b, const char *name);
/* Answers req with what answer(req) fills in, once the internal topic name
 * exists: at once when it does; else the topic is made first and answer
 * runs after it is stored and its partitions made and led (or after that
 * failed: then the topic is missing when answer runs), so nothing the
 * answer acknowledges is written to a topic a crash could lose. answer must
 * not reply. Returns what gr_req_reply() returns. Loop thread only. */
int gr_topics_internal_then(struct gr_req *req, const char *name,
                            void (*answer)(struct gr_req *req));

/* controller_mutation_rate (KIP-599) for a CreateTopics, CreatePartitions
 * or DeleteTopics req, as Kafka's ControllerMutationQuotaManager.newQuotaFor
 * (strict from version strict_since on, permissive below):
 * gr_topics_mutation_check() before each topic's change: strict and the
 * bucket below zero, THROTTLING_QUOTA_EXCEEDED and req->throttle_ms the
 * time until it is back at zero; else GR_KERR_NONE. After a change (a
 * validate_only one too, as Kafka's controller charges it) of n
 * partitions, gr_topics_mutation_record(); permissive, req->throttle_ms
 * becomes the time the bucket needs to be back at zero, if it is below.
 * The connection is muted for the throttle time (net/conn.c). */
gr_kerr_t gr_topics_mutation_check(struct gr_req *req, int strict_since);
void gr_topics_mutation_record(struct gr_req *req, int strict_since,
                               int64_t n);

#endif
