/*
 * Client quotas (KIP-13, KIP-55, KIP-124, KIP-219, KIP-599, KIP-612): the
 * quotas stored by entity and the rates they bound, as Kafka 4.4's
 * ClientQuotaControlManager (what AlterClientQuotas may set),
 * ClientQuotasImage (what DescribeClientQuotas matches) and
 * ClientQuotaManager with its DefaultQuotaCallback (which quota holds for
 * a request, and the shared sensor it is measured on).
 *
 * An entity is a user, a client-id, both, or an IP; each name may be the
 * default (null on the wire, <default> in Kafka's ZooKeeper paths). A
 * request from user u (the principal's name: "ANONYMOUS" on PLAINTEXT)
 * with client id c takes the first that has the key of:
 *
 *   user u + client-id c, user u + client-id <default>, user u,
 *   user <default> + client-id c, user <default> + client-id <default>,
 *   user <default>, client-id c, client-id <default>
 *
 * narrowed as Kafka narrows it: only the kinds of entity that hold the
 * key (user+client, user, client) are searched. Every connection whose
 * request resolves to the same (user, client-id) pair shares one rate:
 * a client-id's quota bounds all its connections together.
 *
 * Persisted through the cluster (gr_cluster_store_client_quotas: one
 * resource per entity, named users/<u>/clients/<c>, users/<u>,
 * clients/<c> or ips/<ip> with names percent-encoded and <default> for
 * the default). Loop thread only.
 */
#ifndef GR_CLUSTER_CLIENT_QUOTAS_H
#define GR_CLUSTER_CLIENT_QUOTAS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/ipaddr.h"
#include "core/rate.h"
#include "core/str.h"
#include "proto/kerr.h"

typedef struct gr_cluster gr_cluster_t;
typedef struct gr_client_quotas gr_client_quotas_t;
struct gr_config_resource;

/* The keys, in the order Kafka 4.4 describes an entity's values. */
typedef enum gr_cq_key {
    GR_CQ_REQUEST_PERCENTAGE,
    GR_CQ_PRODUCER_BYTE_RATE,
    GR_CQ_CONSUMER_BYTE_RATE,
    GR_CQ_CONTROLLER_MUTATION_RATE,
    GR_CQ_CONNECTION_CREATION_RATE,
    GR_CQ__N
} gr_cq_key_t;

const char *gr_cq_key_name(gr_cq_key_t k);

/* One component of an entity as a request names it: type ("user",
 * "client-id", "ip") and name (len -1: the default). Slices borrowed. */
typedef struct gr_cq_comp {
    gr_str_t type;
    gr_str_t name;
} gr_cq_comp_t;

/* One change of an entry: key, value (remove: the key goes). */
typedef struct gr_cq_op {
    gr_str_t key;
    double value;
    bool remove;
} gr_cq_op_t;

/* quota.window.num samples of win_ms. */
gr_client_quotas_t *gr_client_quotas_new(gr_cluster_t *c, int samples,
                                         int64_t win_ms);
void gr_client_quotas_destroy(gr_client_quotas_t *q);
/* The bucket of controller_mutation_rate: controller.quota.window.num
 * samples of win_ms (Kafka's own pair; 11 of 1 s until set). */
void gr_client_quotas_set_mutation_window(gr_client_quotas_t *q, int samples,
                                          int64_t win_ms);
/* Takes the persisted quotas (c->client_quotas); what does not parse is
 * logged and left out. 0, or -1 when out of memory. */
int gr_client_quotas_load(gr_client_quotas_t *q);

/* AlterClientQuotas for one entry, as Kafka's controller checks it:
 * GR_KERR_NONE or INVALID_REQUEST with *msg (static or in a); applied
 * at once unless validate_only (later entries of the request see it),
 * until the prepare that ends the request's changes (begin, alter...,
 * prepare: one write a request) puts memory back. */
gr_kerr_t gr_client_quotas_alter(gr_client_quotas_t *q,
                                 const gr_cq_comp_t *comps, int ncomps,
                                 const gr_cq_op_t *ops, int nops,
                                 bool validate_only, gr_arena_t *a,
                                 const char **msg);
/* Starts a request's changes: 0, or -1 when out of memory (change
 * nothing then). */
int gr_client_quotas_begin(gr_client_quotas_t *q);
/* The most records (keys set, changed or removed) one request may make:
 * Kafka's controller refuses more (BoundedList of 10000). */
#define GR_CQ_MAX_RECORDS 10000
/* Whether the request's changes so far already pass GR_CQ_MAX_RECORDS:
 * prepare will refuse them all, so the rest need not be made. */
bool gr_client_quotas_over_batch(const gr_client_quotas_t *q);
/* Ends a request's changes (begin, alter...): *changed says whether
 * there were any, *out (malloc'd; NULL: none left) is what the quota
 * file is to hold, and memory is put back as it was: the changes hold
 * once stored, by gr_client_quotas_install(). GR_KERR_NONE;
 * POLICY_VIOLATION (more than GR_CQ_MAX_RECORDS: Kafka's "excessively
 * large batch") or UNKNOWN_SERVER_ERROR (out of memory), nothing
 * changed. O(entities) when something changed. */
gr_kerr_t gr_client_quotas_prepare(gr_client_quotas_t *q, bool *changed,
                                   struct gr_config_resource **out);
/* Makes list (taken: what prepare gave, now stored) the quotas that
 * hold, c->client_quotas and the entities measured. 0, or -1 when out of
 * memory (logged; some entities hold from the next start only). */
int gr_client_quotas_install(gr_client_quotas_t *q,
                             struct gr_config_resource *list);
/* Whether two entries name the same entity (as Kafka's HashMap of the
 * components: a type named twice keeps the last name). */
bool gr_client_quotas_same_entity(const gr_cq_comp_t *x, int nx,
                                  const gr_cq_comp_t *y, int ny);
/* A string that is the same for two entries exactly when they name the
 * same entity (as gr_client_quotas_same_entity), in a; NULL when out of
 * memory. Linear in the entry's size. */
const char *gr_client_quotas_entity_key(const gr_cq_comp_t *comps, int n,
                                        gr_arena_t *a);
/* Kafka's ClientQuotaEntity.toString of an entry's entity, in a. */
const char *gr_client_quotas_entity_str(const gr_cq_comp_t *comps, int n,
                                        gr_arena_t *a);

/* DescribeClientQuotas: one filter component (match_type 0 exact, 1
 * default, 2 any; match len -1: null). */
typedef struct gr_cq_filter {
    gr_str_t type;
    int8_t match_type;
    gr_str_t match;
} gr_cq_filter_t;

/* One entity found: its components (user before client-id, as Kafka's
 * HashMap orders them; name NULL for the default) and its set values. */
typedef struct gr_cq_found {
    int ncomps;
    const char *type[3];
    const char *name[3];
    int nvalues;
    const char *key[GR_CQ__N];
    double value[GR_CQ__N];
} gr_cq_found_t;

/* The entities matching the filter (*out in a, *nout of them, in the
 * order they were created), or INVALID_REQUEST / UNSUPPORTED_VERSION
 * with *msg as ClientQuotasImage.describe throws them. */
gr_kerr_t gr_client_quotas_describe(gr_client_quotas_t *q,
                                    const gr_cq_filter_t *f, int nf,
                                    bool strict, gr_arena_t *a,
                                    gr_cq_found_t **out, int *nout,
                                    const char **msg);

/* --- enforcement */

/* The quota types with a rate (Kafka's QuotaType). */
typedef enum gr_cq_type {
    GR_CQT_PRODUCE, /* producer_byte_rate: request bytes */
    GR_CQT_FETCH,   /* consumer_byte_rate: response bytes */
    GR_CQT_REQUEST, /* request_percentage: loop time */
    GR_CQT_MUTATION, /* controller_mutation_rate: partitions (a bucket) */
    GR_CQT__N
} gr_cq_type_t;

/* Whether any entity holds a quota of type t (Kafka's quotasEnabled):
 * when not, nothing is recorded. */
bool gr_client_quotas_enabled(const gr_client_quotas_t *q, gr_cq_type_t t);
/* Records v (bytes, or percent of a thread's second) for (user,
 * client_id) at now_ms and returns the throttle time in ms (0: within
 * its quota): QuotaUtils.throttleTime, bounded by the window for
 * GR_CQT_REQUEST (ClientRequestQuotaManager). user: the principal's
 * name; client_id len -1 or 0: none. */
int64_t gr_client_quotas_record(gr_client_quotas_t *q, gr_cq_type_t t,
                                const char *user, const gr_str_t *client_id,
                                double v, int64_t now_ms);
/* Takes v back (a throttled Fetch answers empty: unrecordQuotaSensor). */
void gr_client_quotas_unrecord(gr_client_quotas_t *q, gr_cq_type_t t,
                               const char *user, const gr_str_t *client_id,
                               double v, int64_t now_ms);
/* Kafka's maxValueInQuotaWindow: the most a window may carry under the
 * quota that holds (quota x (samples - 1) x window seconds), or
 * INT64_MAX when none holds; bounds a Fetch's max_bytes. */
int64_t gr_client_quotas_window_max(gr_client_quotas_t *q, gr_cq_type_t t,
                                    const char *user,
                                    const gr_str_t *client_id);
/* controller_mutation_rate (KIP-599), as Kafka's
 * ControllerMutationQuotaManager: each sensor is a token bucket
 * (TokenBucket) holding at most quota x controller.quota.window.num x
 * controller.quota.window.size.seconds
 * partitions, refilled at the quota a second, full when first used.
 * CreateTopics, CreatePartitions and DeleteTopics take from it the
 * partitions each topic creates or deletes; the bucket may go below zero.
 *
 * Strict (the versions that know THROTTLING_QUOTA_EXCEEDED): before each
 * topic, gr_client_quotas_mutation_check(); while the bucket is below
 * zero it gives the time until it is back at zero (ms, > 0) and the topic
 * is refused; 0: go on, then _record() what was done. Permissive (older
 * versions): _record() only; the result is the time until the bucket is
 * back at zero (0 when it is not below). Both: 0 when no
 * controller_mutation_rate holds. */
int64_t gr_client_quotas_mutation_check(gr_client_quotas_t *q,
                                        const char *user,
                                        const gr_str_t *client_id,
                                        int64_t now_ms);
int64_t gr_client_quotas_mutation_record(gr_client_quotas_t *q,
                                         const char *user,
                                         const gr_str_t *client_id,
                                         double permits, int64_t now_ms);

/* The connection_creation_rate (KIP-612) for a client address: its IP
 * entity's, else the default IP entity's, else INT32_MAX (Kafka's
 * "none": no rate measured). q may be NULL. */
int32_t gr_client_quotas_ip_rate(const gr_client_quotas_t *q,
                                 const gr_ipaddr_t *ip);

/* The quota that holds for (user, client_id) of type t, or -1. */
double gr_client_quotas_bound(gr_client_quotas_t *q, gr_cq_type_t t,
                              const char *user, const gr_str_t *client_id);

#endif
