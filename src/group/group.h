/*
 * The group coordinator: classic consumer groups (Kafka's group membership
 * protocol) and committed offsets, kept as records of the internal
 * compacted topic __consumer_offsets in Kafka's key/value formats.
 *
 * Where it sits: below src/api/ (the handlers map requests onto these
 * calls and word the answers per version), above src/log/ and
 * src/cluster/ (a group lives on the partition of __consumer_offsets its id
 * hashes to; this broker coordinates it while it leads that partition).
 * It sees no requests and no connections: a call that must wait (JoinGroup,
 * SyncGroup, a commit waiting for a flush) takes a gr_group_waiter_t that
 * is called back exactly once, or cancelled by its owner.
 *
 * Loop thread only. Nothing here blocks: the start-up load reads the
 * partitions a bounded number of bytes per loop turn, and groups hashed to
 * a partition still loading answer COORDINATOR_LOAD_IN_PROGRESS.
 */
#ifndef GR_GROUP_GROUP_H
#define GR_GROUP_GROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "core/arena.h"
#include "core/loop.h"
#include "core/str.h"
#include "proto/kerr.h"

typedef struct gr_groups gr_groups_t;

/* Kafka's broker settings (group.*, offsets.*), in milliseconds. */
typedef struct gr_groups_config {
    int64_t initial_rebalance_delay_ms; /* group.initial.rebalance.delay.ms */
    int64_t min_session_timeout_ms;     /* group.min.session.timeout.ms */
    int64_t max_session_timeout_ms;     /* group.max.session.timeout.ms */
    int32_t max_size;                   /* group.max.size */
    int64_t offsets_retention_ms;       /* offsets.retention.minutes */
    int64_t
        retention_check_interval_ms;   /* offsets.retention.check.interval.ms */
    int32_t offset_metadata_max_bytes; /* offset.metadata.max.bytes */
    int64_t new_member_join_timeout_ms; /* Kafka's fixed 5 minutes */
    int32_t load_bytes_per_turn;        /* start-up load, per loop turn */
    /* consumer groups (KIP-848): group.consumer.* */
    int32_t consumer_session_timeout_ms;     /* session.timeout.ms */
    int32_t consumer_heartbeat_interval_ms;  /* heartbeat.interval.ms */
    int32_t consumer_max_size;               /* max.size */
    int32_t consumer_assignment_interval_ms; /* assignment.interval.ms */
    int32_t consumer_regex_refresh_interval_ms; /* regex.refresh.interval.ms */
    /* assignors: "uniform", "range", in the order of
     * group.consumer.assignors; the first is the default */
    char consumer_assignors[2][8];
    int32_t consumer_nassignors;
} gr_groups_config_t;

/* Fills cfg's group.consumer.* settings from conf: -1 (logged) when
 * group.consumer.assignors names an assignor Gregor does not have, or the
 * heartbeat interval is not below the session timeout (Kafka's
 * GroupCoordinatorConfig checks). */
struct gr_conf;
int gr_groups_consumer_config(gr_groups_config_t *cfg,
                              const struct gr_conf *conf);

/* group.consumer.assignment.interval.ms changed (a dynamic config). */
void gr_groups_set_assignment_interval(gr_groups_t *g, int32_t ms);

/* The coordinator of every group whose __consumer_offsets partition this
 * broker (node_id) leads. loop and cluster outlive it. Its records are
 * appended through the partition layer (partition/partition.h), which
 * wakes the fetches reading __consumer_offsets. */
gr_groups_t *gr_groups_new(gr_loop_t *loop, gr_cluster_t *cluster,
                           int32_t node_id, const gr_groups_config_t *cfg);
/* Frees every group; pending waiters are dropped without a call (their
 * owners, the connections, are closed first at shutdown). */
void gr_groups_destroy(gr_groups_t *g);
/* Starts loading every __consumer_offsets partition led here and the
 * offset retention timer. */
void gr_groups_start(gr_groups_t *g);
/* A partition of __consumer_offsets was created here (topic creation):
 * loads it (at once when empty). Other topics are ignored. */
void gr_groups_partition_added(gr_groups_t *g, gr_partition_t *p);
/* A partition went away: its groups are dropped (as Kafka unloads them). */
void gr_groups_partition_removed(gr_groups_t *g, gr_partition_t *p);
/* Whether some partition is still loading. */
bool gr_groups_loading(const gr_groups_t *g);
/* Runs the load to completion (tests, and nothing else). */
void gr_groups_load_all_now(gr_groups_t *g);
/* One offset-retention pass at wall time now_ms; returns offsets removed. */
int gr_groups_expire_offsets(gr_groups_t *g, int64_t now_ms);

/* --- waiting */

typedef struct gr_group_waiter gr_group_waiter_t;
/* result: gr_group_join_result_t, gr_group_sync_result_t or gr_kerr_t,
 * valid during the call only. */
typedef void (*gr_group_waiter_cb)(gr_group_waiter_t *w, const void *result);

/* Caller storage (a request's arena). The coordinator holds it through
 * slot while pending; fired is set before cb runs. */
struct gr_group_waiter {
    gr_group_waiter_cb cb;
    void *arg;
    gr_group_waiter_t **slot; /* the coordinator's reference, or NULL */
    bool fired;
};

static inline void
gr_group_waiter_init(gr_group_waiter_t *w, gr_group_waiter_cb cb, void *arg)
{
    w->cb = cb;
    w->arg = arg;
    w->slot = NULL;
    w->fired = false;
}

/* The owner gives up (its connection closed): cb will not be called. The
 * group carries on as Kafka's does when a response goes nowhere. */
void gr_group_waiter_cancel(gr_group_waiter_t *w);

/* --- membership (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) */

typedef struct gr_group_protocol {
    gr_str_t name;
    gr_bytes_t metadata;
} gr_group_protocol_t;

/* Slices are the caller's, valid during the call; kept data is copied. */
typedef struct gr_group_join_args {
    gr_str_t group_id;
    gr_str_t member_id;         /* "" for a new member */
    gr_str_t group_instance_id; /* null (len -1): dynamic member */
    gr_str_t client_id;
    gr_str_t client_host; /* "/127.0.0.1" as Kafka prints it */
    gr_str_t protocol_type;
    gr_str_t reason; /* null when not given */
    int32_t session_timeout_ms;
    int32_t rebalance_timeout_ms; /* -1 (v0): the session timeout */
    const gr_group_protocol_t *protocols;
    int32_t nprotocols;
    bool require_known_member_id;  /* JoinGroup v4+: MEMBER_ID_REQUIRED */
    bool supports_skip_assignment; /* JoinGroup v9+ (KIP-814) */
} gr_group_join_args_t;

typedef struct gr_group_join_member {
    const char *member_id;
    const char *group_instance_id; /* NULL: none */
    gr_bytes_t metadata;           /* of the selected protocol */
} gr_group_join_member_t;

typedef struct gr_group_join_result {
    gr_kerr_t error;
    int32_t generation_id;     /* -1 on error */
    const char *protocol_type; /* NULL when none */
    const char *protocol_name; /* NULL when none */
    const char *leader_id;     /* "" when none */
    const char *member_id;     /* the member's id (new or assigned) */
    bool skip_assignment;
    const gr_group_join_member_t *members; /* the leader's copy; else none */
    int32_t nmembers;
} gr_group_join_result_t;

/* JoinGroup: w->cb gets a gr_group_join_result_t, at once or when the
 * rebalance completes. Returns true when w is held (answered later);
 * false when it was answered during the call: the caller's request may
 * then be over already, so w and its request are not touched again. */
bool gr_group_join(gr_groups_t *g, const gr_group_join_args_t *a,
                   gr_group_waiter_t *w);

typedef struct gr_group_assignment {
    gr_str_t member_id;
    gr_bytes_t assignment;
} gr_group_assignment_t;

typedef struct gr_group_sync_args {
    gr_str_t group_id;
    gr_str_t member_id;
    gr_str_t group_instance_id; /* null: none */
    gr_str_t protocol_type;     /* null: not checked (before v5) */
    gr_str_t protocol_name;     /* null: not checked */
    int32_t generation_id;
    const gr_group_assignment_t *assignments; /* the leader's */
    int32_t nassignments;
} gr_group_sync_args_t;

typedef struct gr_group_sync_result {
    gr_kerr_t error;
    const char *protocol_type; /* NULL when none */
    const char *protocol_name;
    gr_bytes_t assignment; /* empty on error */
} gr_group_sync_result_t;

/* SyncGroup: w->cb gets a gr_group_sync_result_t, at once or when the
 * leader's assignment is stored. Returns true when w is held (see
 * gr_group_join). */
bool gr_group_sync(gr_groups_t *g, const gr_group_sync_args_t *a,
                   gr_group_waiter_t *w);

gr_kerr_t gr_group_heartbeat(gr_groups_t *g, const gr_str_t *group_id,
                             const gr_str_t *member_id,
                             const gr_str_t *group_instance_id,
                             int32_t generation_id);

typedef struct gr_group_leaver {
    gr_str_t member_id;
    gr_str_t group_instance_id; /* null: none */
    gr_str_t reason;
    gr_kerr_t error; /* out */
} gr_group_leaver_t;

/* LeaveGroup of n members (v3+ batches; older versions pass one). Returns
 * the group-level error; per-member errors in m[i].error. */
gr_kerr_t gr_group_leave(gr_groups_t *g, const gr_str_t *group_id,
                         gr_group_leaver_t *m, int32_t n);

/* --- offsets */

typedef struct gr_group_commit_part {
    gr_str_t topic;
    int32_t partition;
    int64_t offset;
    int32_t leader_epoch;     /* -1: none */
    gr_str_t metadata;        /* null is stored as "" */
    int64_t commit_timestamp; /* -1: now (v1 carries one) */
    gr_kerr_t error;          /* in: preset by the caller (e.g. unknown
                                 topic) means skip; out: the result */
} gr_group_commit_part_t;

typedef struct gr_group_commit_args {
    gr_str_t group_id;
    gr_str_t member_id; /* "" for a simple consumer */
    gr_str_t group_instance_id;
    int32_t generation_id; /* -1 for a simple consumer */
    int64_t retention_ms;  /* v2-v4 retention_time_ms; -1: broker's */
    gr_group_commit_part_t *parts;
    int32_t nparts;
    int16_t version; /* of the request (consumer groups: v9+) */
} gr_group_commit_args_t;

/* OffsetCommit: every part's error is set before this returns (parts are
 * not touched later). The parts written are durable as configured when
 * w->cb runs with a gr_kerr_t: NONE, or the error of a failed flush for
 * every part that was NONE. Returns true when w is held (see
 * gr_group_join). */
bool gr_group_commit_offsets(gr_groups_t *g, const gr_group_commit_args_t *a,
                             gr_group_waiter_t *w);

/* TxnOffsetCommit: as gr_group_commit_offsets, for a transactional
 * producer (Kafka's handleTxnCommitOffsets): the member id and generation
 * are checked only when given; the offsets are appended as a batch of the
 * producer and become the group's only when the transaction's COMMIT
 * marker reaches the partition (gr_groups_txn_complete). */
typedef struct gr_group_txn_commit_args {
    gr_str_t group_id;
    gr_str_t member_id;         /* "" when not given (v0-v2) */
    gr_str_t group_instance_id; /* null when not given */
    int32_t generation_id;      /* -1 when not given */
    int64_t producer_id;
    int16_t producer_epoch;
    gr_group_commit_part_t *parts;
    int32_t nparts;
    int16_t version; /* of the request (STALE_MEMBER_EPOCH from v6) */
} gr_group_txn_commit_args_t;
bool gr_group_txn_commit_offsets(gr_groups_t *g,
                                 const gr_group_txn_commit_args_t *a,
                                 gr_group_waiter_t *w);
/* A COMMIT (commit) or ABORT marker of producer pid was appended to
 * partition of __consumer_offsets: its pending offsets there become
 * committed, or are dropped. Called by the transaction coordinator. */
void gr_groups_txn_complete(gr_groups_t *g, int32_t partition, int64_t pid,
                            bool commit);

/* OffsetFetch/OffsetDelete/DescribeGroups validation of a group id:
 * INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR... or
 * NONE. allow_empty: "" is a valid id (OffsetCommit, OffsetFetch,
 * DescribeGroups, DeleteGroups; not the membership APIs, OffsetDelete
 * or TxnOffsetCommit). */
gr_kerr_t gr_group_check(gr_groups_t *g, const gr_str_t *group_id,
                         bool allow_empty);

typedef struct gr_group_offset {
    int64_t offset;       /* -1 when none is committed */
    int32_t leader_epoch; /* -1: none */
    gr_str_t metadata;    /* "" when none; valid until the next change */
    gr_kerr_t error;      /* NONE or UNSTABLE_OFFSET_COMMIT */
} gr_group_offset_t;

/* OffsetFetch v9+ names the member (KIP-848): for a consumer group,
 * UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH unless it is a member at that
 * epoch; NONE for other groups or when no member is named (member_id
 * null and epoch < 0). */
gr_kerr_t gr_group_check_member(gr_groups_t *g, const gr_str_t *group_id,
                                const gr_str_t *member_id, int32_t epoch);

/* The committed offset of one partition (after gr_group_check()). */
void gr_group_offset_get(gr_groups_t *g, const gr_str_t *group_id,
                         const gr_str_t *topic, int32_t partition,
                         bool require_stable, gr_group_offset_t *out);
/* Every committed offset of the group, ordered by topic then partition;
 * with require_stable, a partition a transaction holds an offset of is
 * UNSTABLE_OFFSET_COMMIT with offset -1 (Kafka's fetchAllOffsets). */
typedef void (*gr_group_offset_cb)(void *arg, const char *topic,
                                   int32_t partition,
                                   const gr_group_offset_t *o);
void gr_group_offsets_foreach(gr_groups_t *g, const gr_str_t *group_id,
                              bool require_stable, gr_group_offset_cb cb,
                              void *arg);

typedef struct gr_group_delete_part {
    gr_str_t topic;
    int32_t partition;
    gr_kerr_t error; /* in: preset means skip; out */
} gr_group_delete_part_t;

/* OffsetDelete: the group-level error (INVALID_GROUP_ID for "",
 * GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP ...), or NONE with per-part errors
 * (GROUP_SUBSCRIBED_TO_TOPIC). */
gr_kerr_t gr_group_delete_offsets(gr_groups_t *g, const gr_str_t *group_id,
                                  gr_group_delete_part_t *parts, int32_t n);

/* --- administration */

typedef struct gr_group_member_summary {
    const char *member_id;
    const char *group_instance_id; /* NULL: none */
    const char *client_id;
    const char *client_host;
    gr_bytes_t metadata;   /* empty unless the group is Stable */
    gr_bytes_t assignment; /* the last one given, in every state */
} gr_group_member_summary_t;

typedef struct gr_group_summary {
    const char *state;                  /* "Empty", "Stable", ..., "Dead" */
    const char *protocol_type;          /* "" when none */
    const char *protocol;               /* "" unless Stable */
    gr_group_member_summary_t *members; /* in the arena given */
    int32_t nmembers;
    const char *message; /* GROUP_ID_NOT_FOUND of a group not classic */
} gr_group_summary_t;

/* DescribeGroups of one group: NONE with the summary, GROUP_ID_NOT_FOUND
 * (state "Dead") for an unknown group, or a coordinator error. Strings
 * live in a. */
gr_kerr_t gr_group_describe(gr_groups_t *g, const gr_str_t *group_id,
                            gr_arena_t *a, gr_group_summary_t *out);

typedef struct gr_group_overview {
    const char *group_id;
    const char *protocol_type; /* "" when none */
    const char *state;
    const char *type; /* "classic" or "consumer" */
} gr_group_overview_t;

/* ListGroups: every group this broker coordinates (copied into a).
 * Returns COORDINATOR_LOAD_IN_PROGRESS while loading (with the groups
 * loaded so far), else NONE. */
gr_kerr_t gr_groups_list(gr_groups_t *g, gr_arena_t *a,
                         gr_group_overview_t **out, int32_t *n);

/* DeleteGroups of one group: NONE, GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP or
 * a coordinator error. Writes the tombstones of its metadata and offsets. */
gr_kerr_t gr_group_delete(gr_groups_t *g, const gr_str_t *group_id);

/* --- consumer groups (KIP-848: ConsumerGroupHeartbeat, ConsumerGroupDescribe)
 *
 * Each call answers at once: the records of its outcome are appended to
 * the group's partition (a flush the log asks for is started, not waited
 * for, as for the classic group metadata), then applied. */

typedef struct gr_cg_partitions {
    gr_uuid_t topic_id;
    const char *topic_name; /* ConsumerGroupDescribe only */
    int32_t *partitions;    /* ascending */
    int32_t npartitions;
} gr_cg_partitions_t;

/* A heartbeat's fields (consumer_group_heartbeat.schema); slices are the
 * caller's, valid during the call. Null means "unchanged since the last
 * heartbeat". */
typedef struct gr_cg_heartbeat_args {
    int16_t version;
    gr_str_t group_id;
    gr_str_t member_id;
    int32_t member_epoch; /* 0 join, -1 leave, -2 static member leaves */
    gr_str_t instance_id;
    gr_str_t rack_id;
    int32_t rebalance_timeout_ms; /* -1: unchanged */
    const gr_str_t *topic_names;
    int32_t ntopic_names; /* -1: null */
    gr_str_t topic_regex;
    gr_str_t server_assignor;
    const gr_cg_partitions_t *owned;
    int32_t nowned; /* -1: null */
    gr_str_t client_id;
    gr_str_t client_host; /* "/127.0.0.1" as Kafka prints it */
} gr_cg_heartbeat_args_t;

typedef struct gr_cg_heartbeat_result {
    gr_kerr_t error;
    const char *message;   /* NULL: none */
    const char *member_id; /* NULL on error */
    int32_t member_epoch;
    int32_t heartbeat_interval_ms;
    bool has_assignment; /* the partitions to use (else unchanged) */
    gr_cg_partitions_t *assignment;
    int32_t nassignment;
} gr_cg_heartbeat_result_t;

/* ConsumerGroupHeartbeat. The result's strings and arrays live in a. */
void gr_cg_heartbeat(gr_groups_t *g, const gr_cg_heartbeat_args_t *a,
                     gr_arena_t *arena, gr_cg_heartbeat_result_t *out);

typedef struct gr_cg_member_desc {
    const char *member_id;
    const char *instance_id; /* NULL: none */
    const char *rack_id;     /* NULL: none */
    int32_t member_epoch;
    const char *client_id;
    const char *client_host;
    const char **topics;
    int32_t ntopics;
    const char *regex; /* NULL: none */
    gr_cg_partitions_t *assigned; /* incl. pending revocation */
    int32_t nassigned;
    gr_cg_partitions_t *target;
    int32_t ntarget;
    bool classic; /* uses the classic protocol (MemberType 0) */
} gr_cg_member_desc_t;

typedef struct gr_cg_group_desc {
    const char *state; /* "Empty", "Assigning", "Reconciling", "Stable" */
    int32_t group_epoch;
    int32_t assignment_epoch;
    const char *assignor;
    gr_cg_member_desc_t *members;
    int32_t nmembers;
} gr_cg_group_desc_t;

/* ConsumerGroupDescribe of one group: NONE with the description,
 * GROUP_ID_NOT_FOUND with *message (unknown, or not a consumer group), or
 * a coordinator error (INVALID_GROUP_ID for ""). Strings live in a. */
gr_kerr_t gr_cg_describe(gr_groups_t *g, const gr_str_t *group_id,
                         gr_arena_t *a, gr_cg_group_desc_t *out,
                         const char **message);

/* The state name of a group ("Dead" when unknown); for tests and logs. */
const char *gr_group_state_name(gr_groups_t *g, const gr_str_t *group_id);

#endif
