/*
 * Private structures of the group coordinator (src/group/). See group.h for
 * the contract and group.c for the state machine.
 *
 * Ownership: the coordinator (gr_groups_t) owns every group (gr_group_t),
 * a group owns its members (gr_member_t), pending members and offsets
 * (gr_offset_t); all strings are heap copies owned by their struct. A
 * waiter is the caller's; a member or a flush ticket only points at it
 * while it is pending (gr_group_waiter_t.slot points back).
 */
#ifndef GR_GROUP_GROUP_INT_H
#define GR_GROUP_GROUP_INT_H

#include "group/group.h"

#include "core/buf.h"
#include "core/log.h"
#include "proto/records.h"

/*
 * Kafka's ClassicGroupState.
 *
 * EMPTY: no members, but the group may hold offsets (also a "simple"
 *   group used only for offset storage).
 *   action: answer JoinGroup (the first join starts a rebalance), commits
 *           from simple consumers, fetches; expire offsets
 *   transition: a member joins -> PREPARING_REBALANCE
 *               offsets all expired or DeleteGroups -> DEAD
 *
 * PREPARING_REBALANCE: collecting JoinGroups of the members.
 *   action: hold JoinGroups until all members have joined or the
 *           rebalance timeout passes (after the initial delay when the
 *           group was Empty); answer heartbeats REBALANCE_IN_PROGRESS;
 *           accept commits of the previous generation
 *   transition: the join completes with members -> COMPLETING_REBALANCE
 *               the join completes with none -> EMPTY
 *
 * COMPLETING_REBALANCE: the joins are answered; waiting for the leader's
 *   assignment in its SyncGroup.
 *   action: hold SyncGroups until the leader's arrives; answer commits
 *           REBALANCE_IN_PROGRESS
 *   transition: the leader's SyncGroup is stored -> STABLE
 *               a member joins with new metadata, leaves or fails, or
 *               the storage fails -> PREPARING_REBALANCE
 *
 * STABLE: the assignment is known.
 *   action: answer SyncGroup with the assignment, heartbeats, commits
 *   transition: a member fails, leaves, or joins with new metadata, or
 *               the leader rejoins -> PREPARING_REBALANCE
 *
 * DEAD: no members, no offsets, no metadata: the group is removed from
 *   the table at once (it exists only while its tombstones are written).
 *
 * The answers of each state to each request ("wait": held; "-": success).
 * Checks before the state: INVALID_GROUP_ID, COORDINATOR_LOAD_IN_PROGRESS
 * (Heartbeat: NONE, SyncGroup: REBALANCE_IN_PROGRESS), NOT_COORDINATOR;
 * then for a known group FENCED_INSTANCE_ID, UNKNOWN_MEMBER_ID,
 * ILLEGAL_GENERATION. UMI = UNKNOWN_MEMBER_ID, RIP =
 * REBALANCE_IN_PROGRESS, NEG = NON_EMPTY_GROUP, SUB =
 * GROUP_SUBSCRIBED_TO_TOPIC (for the subscribed topics of a consumer
 * group; other kinds of group: NEG).
 *
 *   request        Empty        Preparing    Completing     Stable
 *   JoinGroup new  start        wait         wait           wait
 *   (v4+: MEMBER_ID_REQUIRED first)
 *   JoinGroup old  UMI          wait         same: -        follower,
 *                                            else wait      same: -
 *                                                           else wait
 *   SyncGroup      UMI          RIP          wait; leader:  assignment
 *                                            store, answer
 *   Heartbeat      UMI          RIP          -              -
 *   LeaveGroup     UMI          -            - (rebalance)  - (rebalance)
 *   OffsetCommit   simple: -    member: -    RIP            member: -
 *                  member: UMI  simple: UMI  simple: UMI    simple: UMI
 *   OffsetFetch    -            -            -              -
 *   OffsetDelete   -            SUB or -     SUB or -       SUB or -
 *   Describe       -            - (no        - (no          - (with
 *                               metadata)    metadata)      metadata)
 *   DeleteGroups   - (Dead)     NEG          NEG            NEG
 *
 * An unknown group: JoinGroup with no member id creates it; SyncGroup,
 * Heartbeat, LeaveGroup: UMI; OffsetCommit: generation -1 creates a simple
 * group, else ILLEGAL_GENERATION; OffsetFetch: no offsets; Describe:
 * "Dead" and GROUP_ID_NOT_FOUND (which DescribeGroups < v6 answers as
 * NONE); OffsetDelete and DeleteGroups: GROUP_ID_NOT_FOUND.
 */
typedef enum gr_group_state {
    GR_GROUP_EMPTY = 0,
    GR_GROUP_PREPARING_REBALANCE,
    GR_GROUP_COMPLETING_REBALANCE,
    GR_GROUP_STABLE,
    GR_GROUP_DEAD,
} gr_group_state_t;

typedef struct gr_group gr_group_t;
typedef struct gr_member gr_member_t;
typedef struct gr_cgroup gr_cgroup_t;

/* What protocol a group follows (Kafka's Group.GroupType); one table holds
 * both, and a group keeps its committed offsets when it changes type. */
typedef enum gr_group_type {
    GR_GROUP_TYPE_CLASSIC = 0,
    GR_GROUP_TYPE_CONSUMER, /* KIP-848: grp->cg, consumer.c */
} gr_group_type_t;

/* A protocol a member supports, with its metadata (owned copies). */
typedef struct gr_member_proto {
    char *name;
    uint8_t *metadata;
    int32_t metadata_len;
} gr_member_proto_t;

struct gr_member {
    gr_member_t *next; /* the group's members, in join order */
    gr_group_t *grp;
    char *member_id;
    char *group_instance_id; /* NULL: dynamic member */
    char *client_id;
    char *client_host;
    int32_t session_timeout_ms;
    int32_t rebalance_timeout_ms;
    gr_member_proto_t *protos;
    int32_t nprotos;
    uint8_t *assignment;
    int32_t assignment_len;
    bool awaiting_join; /* counts in grp->num_awaiting_join */
    bool awaiting_sync;
    bool pending_sync; /* joined this generation, not yet synced */
    bool is_new;       /* joined, never completed a join */
    bool heartbeat_satisfied;
    gr_group_waiter_t *join_waiter; /* NULL once answered or cancelled */
    gr_group_waiter_t *sync_waiter;
    gr_timer_t hb_timer; /* session (or new-member) expiration */
};

/* A member id handed out with MEMBER_ID_REQUIRED, not yet joined. */
typedef struct gr_pending_member {
    struct gr_pending_member *next;
    gr_group_t *grp;
    char *member_id;
    gr_timer_t timer; /* session timeout */
} gr_pending_member_t;

/* A committed offset. */
typedef struct gr_offset {
    struct gr_offset *hnext;
    char *topic;
    int32_t partition;
    int64_t offset;
    int32_t leader_epoch;
    char *metadata;       /* metadata_len bytes (NUL bytes kept), then a NUL */
    int32_t metadata_len;
    int64_t commit_ts; /* wall ms */
    int64_t expire_ts; /* -1: by offsets.retention.minutes */
} gr_offset_t;

enum join_kind { JOIN_NONE = 0, JOIN_INITIAL, JOIN_DELAYED };

struct gr_group {
    gr_group_t *hnext;
    gr_groups_t *g;
    char *id;
    int32_t partition; /* of __consumer_offsets */
    gr_group_type_t type;
    gr_cgroup_t *cg; /* consumer groups; the classic fields stay Empty */
    gr_group_state_t state;
    int64_t state_ts; /* wall ms of the last transition, -1 */
    int32_t generation;
    char *protocol_type; /* NULL: none (a simple group) */
    char *protocol_name; /* NULL: none */
    gr_member_t *members;
    gr_member_t *leader; /* NULL when no members */
    int32_t nmembers;
    int32_t num_awaiting_join;
    gr_pending_member_t *pending;
    int32_t npending;
    bool new_member_added; /* InitialDelayedJoin extension */
    bool has_metadata;     /* a metadata record exists (load) */
    enum join_kind join_kind;
    int64_t join_remaining_ms; /* InitialDelayedJoin */
    gr_timer_t join_timer;
    gr_timer_t sync_timer;
    int32_t sync_generation;
    gr_offset_t **otab; /* offsets by (topic, partition) */
    uint32_t ocap;
    uint32_t ocount;
    char **subscribed; /* consumer groups: the topics, or NULL */
    int32_t nsubscribed;
    bool subscribed_known;
    struct gr_txn_offset *txn_offsets; /* pending (txn_offsets.c) */
};

/* Load state of a __consumer_offsets partition. */
enum part_state { PART_NONE = 0, PART_LOADING, PART_LOADED };

typedef struct gr_groups_part {
    enum part_state state;
    int64_t next_offset; /* load position */
    int64_t end_offset;  /* the LEO when the load started */
} gr_groups_part_t;

struct gr_groups {
    gr_loop_t *loop;
    gr_cluster_t *cluster;
    int32_t node_id;
    gr_groups_config_t cfg;
    gr_group_t **htab;
    uint32_t hsize;
    uint32_t count;
    gr_groups_part_t *parts;
    int32_t nparts;
    gr_timer_t load_timer;
    gr_timer_t retention_timer;
    gr_buf_t rbuf;    /* load: the bytes read */
    gr_buf_t scratch; /* load: decompression */
    gr_arena_t *a;    /* load: decoded records (reset per batch) */
};

/* --- coordinator.c */
gr_group_t *gr_groups_find(gr_groups_t *g, const gr_str_t *id);
gr_group_t *gr_groups_create(gr_groups_t *g, const gr_str_t *id,
                             int32_t partition);
/* Removes grp from the table and frees it (its waiters are answered
 * NOT_COORDINATOR first when any are pending). */
void gr_groups_remove(gr_groups_t *g, gr_group_t *grp);
/* INVALID_GROUP_ID, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS or NONE
 * with *partition set. */
gr_kerr_t gr_groups_validate(gr_groups_t *g, const gr_str_t *id,
                             bool allow_empty, int32_t *partition);
gr_partition_t *gr_groups_partition(gr_groups_t *g, int32_t partition);
char *gr_group_strdup(const gr_str_t *s); /* NULL for a null slice */
/* Sets o's metadata to a copy of m, byte for byte ("" for null). */
void gr_offset_set_metadata(gr_offset_t *o, const gr_str_t *m);
const char *gr_group_state_str(gr_group_state_t s);

/* --- store.c: records of __consumer_offsets */
void gr_store_offset_key(gr_buf_t *out, const char *group, const char *topic,
                         int32_t partition);
/* Adds to bb the offset commit record of p (k, v: scratch buffers),
 * straight from the request's slices. */
void gr_store_add_commit(gr_batch_builder_t *bb, gr_buf_t *k, gr_buf_t *v,
                         const char *group, const gr_group_commit_part_t *p,
                         int64_t commit_ts, int64_t expire_ts, int64_t now);
void gr_store_group_key(gr_buf_t *out, const char *group);
/* The group's metadata record value: members with the assignments given
 * (assign[i] for the i-th member; NULL: their current assignments). */
void gr_store_group_value(gr_buf_t *out, const gr_group_t *grp,
                          const gr_bytes_t *assign);
/* Appends the batch in bb to the group partition's log; *flush_due when
 * the log wants a flush before acking. NONE, NOT_COORDINATOR (storage
 * error, not the leader) or COORDINATOR_NOT_AVAILABLE (no log). */
gr_kerr_t gr_store_append(gr_groups_t *g, int32_t partition,
                          gr_batch_builder_t *bb, bool *flush_due);
/* Flushes the partition's log, then fires w with a gr_kerr_t (NONE or
 * NOT_COORDINATOR); w NULL: just flush. */
void gr_store_flush(gr_groups_t *g, int32_t partition, gr_group_waiter_t *w);
/* The group's metadata record, appended (the flush is started if due,
 * not waited for). */
gr_kerr_t gr_store_group(gr_group_t *grp, const gr_bytes_t *assign);
/* Tombstones for the offsets listed and, when tomb_group, the group. */
gr_kerr_t gr_store_tombstones(gr_group_t *grp, gr_offset_t **offs, int32_t n,
                              bool tomb_group);
/* Applies one record of __consumer_offsets (start-up load); an offset of a
 * transactional batch of producer txn_pid (>= 0) stays pending. */
void gr_store_apply(gr_groups_t *g, int32_t partition, const gr_record_t *r,
                    int64_t txn_pid);

/* --- txn_offsets.c: transactional offset commits */
typedef struct gr_txn_offset gr_txn_offset_t;
/* Takes o as pending for producer pid (a load, or an append). */
void gr_group_txn_put(gr_group_t *grp, int64_t pid, gr_offset_t *o);
/* Whether a transaction holds an offset of topic/partition for grp. */
bool gr_group_txn_pending(const gr_group_t *grp, const char *topic,
                          int32_t tlen, int32_t partition);
void gr_group_txn_free_all(gr_group_t *grp);
/* A marker of producer pid on partition (gr_groups_txn_complete without
 * the loading check: the load replays markers through it). */
void gr_groups_txn_marker(gr_groups_t *g, int32_t partition, int64_t pid,
                          bool commit);

/* --- member.c */
gr_member_t *gr_member_new(gr_group_t *grp, const char *member_id,
                           const gr_group_join_args_t *a);
void gr_member_free(gr_member_t *m);
int gr_member_set_protocols(gr_member_t *m, const gr_group_protocol_t *p,
                            int32_t n);
bool gr_member_matches(const gr_member_t *m, const gr_group_protocol_t *p,
                       int32_t n);
const gr_member_proto_t *gr_member_proto(const gr_member_t *m,
                                         const char *name);
gr_member_t *gr_group_member(gr_group_t *grp, const gr_str_t *member_id);
gr_member_t *gr_group_static_member(gr_group_t *grp, const gr_str_t *iid);
bool gr_group_static_fenced(gr_group_t *grp, const gr_str_t *member_id,
                            const gr_str_t *iid);
/* Kafka's validateMember (operation names the request in the log line):
 * NONE, UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID. iid null: a dynamic
 * member. */
gr_kerr_t gr_group_validate_member(gr_group_t *grp, const gr_str_t *member_id,
                                   const gr_str_t *iid, const char *operation);
gr_pending_member_t *gr_group_pending(gr_group_t *grp, const gr_str_t *id);
/* A fresh id: "<prefix>-<uuid>". */
char *gr_member_id_new(const gr_str_t *prefix);
/* Fires *slot (if any) with result and clears it. */
void gr_waiter_fire(gr_group_waiter_t **slot, const void *result);
/* Points *slot at w (which must be unheld). */
void gr_waiter_hold(gr_group_waiter_t **slot, gr_group_waiter_t *w);
/* Answers w at once. */
void gr_waiter_now(gr_group_waiter_t *w, const void *result);
/* Brackets an API call that takes w: end says whether w is still held
 * (not answered meanwhile), without touching w. */
void gr_waiter_begin(gr_group_waiter_t *w);
bool gr_waiter_end(void);

/* --- group.c */
void gr_group_free(gr_group_t *grp);
/* Kafka's completeAndScheduleNextExpiration: the member showed life; its
 * next expiration is in timeout_ms (none while it awaits a join or sync,
 * unless it is new). */
void gr_member_heartbeat(gr_member_t *m, int64_t timeout_ms);
/* After a load: state and timers from the loaded metadata. */
void gr_group_loaded(gr_group_t *grp);
void gr_group_transition(gr_group_t *grp, gr_group_state_t s);
void gr_group_compute_subscribed(gr_group_t *grp);
bool gr_group_subscribed_to(const gr_group_t *grp, const char *topic);
/* Answers every waiter of grp with err (unload). */
void gr_group_fail_waiters(gr_group_t *grp, gr_kerr_t err);

/* --- offsets.c */
gr_offset_t *gr_offsets_find(const gr_group_t *grp, const char *topic,
                             int32_t tlen, int32_t partition);
/* Inserts or replaces; takes ownership of o. */
void gr_offsets_put(gr_group_t *grp, gr_offset_t *o);
/* Unlinks and frees the offset of (topic, partition), if any. */
bool gr_offsets_del(gr_group_t *grp, const char *topic, int32_t tlen,
                    int32_t partition);
void gr_offsets_free_all(gr_group_t *grp);
/* The group's offsets in a new array (caller frees), sorted. */
gr_offset_t **gr_offsets_sorted(const gr_group_t *grp, int32_t *n);
void gr_offset_free(gr_offset_t *o);

/*
 * --- consumer groups (KIP-848): consumer.c (the state machine), cg_store.c
 * (its records), assignor.c
 *
 * Kafka's ConsumerGroup, ConsumerGroupMember and GroupMetadataManager.
 * As in Kafka, state changes only by records: an operation reads the
 * current state, builds the records of its outcome (gr_cg_recs_t), appends
 * them to the group's partition of __consumer_offsets, and only then
 * replays them onto the state (gr_cg_replay), which is also what the
 * start-up load does with every record it reads. A failed append changes
 * nothing.
 *
 * Group state (Kafka's ConsumerGroupState), derived, never stored:
 *   Empty        no member
 *   Assigning    the group epoch is ahead of the target assignment's
 *   Reconciling  some member is not Stable at the assignment epoch
 *   Stable       every member has its target assignment
 *
 * Member states (MemberState, in the CurrentMemberAssignment record):
 *   STABLE       owns its target assignment's partitions it may have
 *                transition: a newer target -> UNREVOKED (it must first
 *                give up partitions) or a new epoch (STABLE/UNRELEASED)
 *   UNREVOKED    must revoke partitions_pending_revocation first; keeps
 *                its epoch; fenced if it takes longer than its rebalance
 *                timeout
 *                transition: it no longer reports owning them -> next
 *   UNRELEASED   at the target epoch, but waits for partitions another
 *                member still owns
 *                transition: they are released -> STABLE
 *   UNKNOWN      a value this version does not know: the member must
 *                rejoin with no partitions (FENCED_MEMBER_EPOCH)
 *
 * Requests by group type (an unknown group: ConsumerGroupHeartbeat with
 * epoch 0 creates a consumer group; other epochs GROUP_ID_NOT_FOUND):
 *   request                 classic group               consumer group
 *   ConsumerGroupHeartbeat  Empty: becomes a consumer   heartbeat
 *                           group; else GROUP_ID_NOT_FOUND
 *   JoinGroup               classic protocol            Empty: becomes a
 *                                                       classic group; else
 *                                                       INCONSISTENT_GROUP_
 *                                                       PROTOCOL
 *   SyncGroup, Heartbeat,   classic protocol            UNKNOWN_MEMBER_ID
 *   LeaveGroup
 *   OffsetCommit/Fetch      generation                  member epoch
 *   DescribeGroups          described                   Dead,
 *                                                       GROUP_ID_NOT_FOUND
 *   ConsumerGroupDescribe   GROUP_ID_NOT_FOUND          described
 *   ListGroups              type "classic"              type "consumer"
 *   DeleteGroups            Empty                       Empty
 */

/* Kafka's MemberState values (the record's State byte). */
enum {
    GR_CM_STABLE = 0,
    GR_CM_UNREVOKED = 1,
    GR_CM_UNRELEASED = 2,
    GR_CM_UNKNOWN = 127,
};

/* The partitions of one topic, ascending; epochs (the epoch each was
 * assigned at) is parallel to parts, or NULL in a target assignment. */
typedef struct gr_cg_tp {
    gr_uuid_t id;
    int32_t n;
    int32_t *parts;
    int32_t *epochs;
} gr_cg_tp_t;

/* An assignment: topics ascending by id (memcmp). Heap copies in the
 * state, arena copies while an operation computes. */
typedef struct gr_cg_assign {
    gr_cg_tp_t *t;
    int32_t n;
} gr_cg_assign_t;

typedef struct gr_cmember gr_cmember_t;

/* A member (Kafka's ConsumerGroupMember). The same struct serves as a
 * value while an operation computes the member's next state: such a copy
 * points into the state or an arena and is never freed. */
struct gr_cmember {
    gr_cmember_t *next; /* the group's members, in join order */
    gr_cmember_t *prev;
    gr_cmember_t *hnext;
    gr_cmember_t *inext; /* by instance id */
    bool indexed;        /* counted in the group's indexes below */
    gr_cgroup_t *cg;
    char *id;
    bool in_group; /* Kafka's members map (MemberMetadata or Current) */
    bool has_target;
    /* ConsumerGroupMemberMetadata */
    char *instance_id; /* NULL: dynamic */
    char *rack_id;
    char *client_id;
    char *client_host;
    char **topics; /* subscribed names, sorted, unique */
    int32_t ntopics;
    char *regex;    /* NULL or "": none */
    char *assignor; /* ServerAssignor, NULL: none */
    int32_t rebalance_timeout_ms;
    /* ConsumerGroupCurrentMemberAssignment */
    int32_t epoch;
    int32_t prev_epoch;
    int8_t state;
    gr_cg_assign_t assigned; /* with epochs */
    gr_cg_assign_t pending;  /* pending revocation, with epochs */
    /* ConsumerGroupTargetAssignmentMember */
    gr_cg_assign_t target;
    /* timers (state members only) */
    gr_timer_t session_timer;
    gr_timer_t rebalance_timer;
    int32_t rebalance_epoch; /* the epoch the rebalance timer is for */
};

/* A subscribed regular expression and what it resolved to. */
typedef struct gr_cg_regex {
    struct gr_cg_regex *next;
    char *regex;
    char **topics;
    int32_t ntopics;
    int64_t version;
    int64_t ts;
} gr_cg_regex_t;

/* How many members subscribe to a topic name (Kafka's SubscriptionCount). */
typedef struct gr_cg_sub {
    char *name;
    int32_t by_name;
    int32_t by_regex;
} gr_cg_sub_t;

/* (topic, partition) -> the epoch of the member owning it (Kafka's
 * currentPartitionEpoch), open addressing. */
typedef struct gr_cg_pe {
    gr_uuid_t id;
    int32_t part; /* -1: empty slot */
    int32_t epoch;
} gr_cg_pe_t;

struct gr_cgroup {
    gr_group_t *grp;
    int32_t epoch;         /* group epoch; 1 before any record */
    int64_t metadata_hash; /* of the subscribed topics */
    bool has_epoch_record;
    bool has_partition_metadata; /* a pre-4.0 record to tombstone */
    int32_t assignment_epoch;    /* 1 before any record, -1 tombstoned */
    int64_t assignment_ts;       /* wall ms, 0: never */
    gr_cmember_t *members;       /* structs, in_group or not */
    gr_cmember_t *mlast;
    gr_cmember_t **mtab; /* by member id */
    uint32_t msize;
    uint32_t mcount;  /* structs */
    int32_t nmembers; /* in_group */
    gr_cg_pe_t *pe;
    uint32_t pecap;
    uint32_t pecount;
    gr_cg_regex_t *regexes;
    gr_cg_sub_t *subs; /* sorted by name */
    int32_t nsubs;
    int32_t subscap;
    int64_t regex_refresh_ts; /* wall ms of the last resolution */
    int64_t regex_fp;         /* the topics' fingerprint it saw */
    /* the members' regexes, assignors and instance ids, counted, so that
     * a heartbeat's work does not grow with the group */
    struct gr_cg_rcount {
        char *regex;
        int32_t n;
    } * rcounts;
    int32_t nrcounts;
    int32_t rcountcap;
    int32_t assignor_users[2]; /* uniform, range */
    gr_cmember_t **itab;       /* by instance id */
    uint32_t isize;
    gr_timer_t regex_timer; /* a resolution due (Kafka's executor) */
};

/* One record of an operation's outcome, its value a generated struct in
 * the operation's arena (cg_store.c). */
typedef struct gr_cg_rec {
    int16_t type;     /* the key version: 3, 4, 5, 6, 7, 8 or 16 */
    const char *key2; /* member id, or the regex of type 16 */
    bool tomb;
    void *value; /* gr_consumer_group_*_value_t, NULL for a tombstone */
} gr_cg_rec_t;

typedef struct gr_cg_recs {
    gr_arena_t *a;
    gr_cg_rec_t *r;
    int32_t n;
    int32_t cap;
} gr_cg_recs_t;

#define GR_CG_REC_CLASSIC_GROUP      2 /* GroupMetadata: tombstone only */
#define GR_CG_REC_METADATA           3
#define GR_CG_REC_PARTITION_METADATA 4
#define GR_CG_REC_MEMBER             5
#define GR_CG_REC_TARGET_METADATA    6
#define GR_CG_REC_TARGET_MEMBER      7
#define GR_CG_REC_CURRENT            8
#define GR_CG_REC_REGEX              16

/* cg_store.c: building records (values copied into recs->a) */
void gr_cg_rec_epoch(gr_cg_recs_t *rs, int32_t epoch, int64_t hash);
void gr_cg_rec_member(gr_cg_recs_t *rs, const gr_cmember_t *m);
void gr_cg_rec_target(gr_cg_recs_t *rs, const char *member_id,
                      const gr_cg_assign_t *a);
void gr_cg_rec_target_meta(gr_cg_recs_t *rs, int32_t epoch, int64_t ts);
void gr_cg_rec_current(gr_cg_recs_t *rs, const gr_cmember_t *m);
void gr_cg_rec_regex(gr_cg_recs_t *rs, const char *regex, char **topics,
                     int32_t ntopics, int64_t version, int64_t ts);
/* A tombstone of type (key2 for the member and regex types). */
void gr_cg_rec_tomb(gr_cg_recs_t *rs, int16_t type, const char *key2);
/* Appends rs (if any) to grp's partition and replays it: NONE, or the
 * append's error with nothing changed. grp may be freed meanwhile (a
 * group epoch tombstone of an empty group removes it): *gone says so. */
gr_kerr_t gr_cg_commit(gr_group_t *grp, gr_cg_recs_t *rs, bool *gone);
/* Replays one record onto grp (loaded or committed). */
void gr_cg_replay(gr_group_t *grp, const gr_cg_rec_t *r);
/* The start-up load: a KIP-848 record (key version 3-16) of partition. */
void gr_cg_store_apply(gr_groups_t *g, int32_t partition, int16_t kver,
                       const gr_record_t *r);

/* consumer.c */
gr_cgroup_t *gr_cg_new(gr_group_t *grp);
void gr_cg_free(gr_cgroup_t *cg);
/* Makes grp a consumer group (it must hold no classic member). */
void gr_cg_convert(gr_group_t *grp);
gr_cmember_t *gr_cg_member(gr_cgroup_t *cg, const char *id, size_t len);
/* The member struct of id, created (not in_group) when absent. */
gr_cmember_t *gr_cg_member_get(gr_cgroup_t *cg, const char *id);
/* Frees m's struct (unlinked). */
void gr_cg_member_drop(gr_cgroup_t *cg, gr_cmember_t *m);
/* Counts m's regex, assignor and instance id in the group's indexes (d 1)
 * or takes them out (-1); a no-op when already so. */
void gr_cg_index(gr_cgroup_t *cg, gr_cmember_t *m, int d);
void gr_cg_assign_free(gr_cg_assign_t *a);
/* A heap copy of src; epochs copied when given, or set to fill_epoch
 * (when >= 0), or none. */
void gr_cg_assign_copy(gr_cg_assign_t *dst, const gr_cg_assign_t *src,
                       int32_t fill_epoch);
void gr_cg_pe_add(gr_cgroup_t *cg, const gr_cg_assign_t *a, int32_t epoch);
void gr_cg_pe_remove(gr_cgroup_t *cg, const gr_cg_assign_t *a, int32_t epoch);
/* Adjusts the counts of subscribed topic names by d for each of names. */
void gr_cg_subs_add(gr_cgroup_t *cg, char *const *names, int32_t n, int d,
                    bool regex);
const char *gr_cg_state_str(const gr_cgroup_t *cg);
/* After a load: timers of the members, placeholder structs dropped. */
void gr_cg_loaded(gr_group_t *grp);
/* Whether the group subscribes to topic (offset retention, OffsetDelete). */
bool gr_cg_subscribed_to(const gr_cgroup_t *cg, const char *topic);
/* OffsetCommit (txn: TxnOffsetCommit) of a consumer group (Kafka's
 * ConsumerGroup.validateOffsetCommit): NONE, UNKNOWN_MEMBER_ID,
 * STALE_MEMBER_EPOCH, UNSUPPORTED_VERSION (OffsetCommit below v9 from a
 * member of the consumer protocol), with Kafka's message in *msg (static
 * or in a). With NONE and *m set (an older epoch), each partition must
 * then pass gr_cg_validate_commit_part: the epoch must be at least the
 * one the partition was assigned at. */
gr_kerr_t gr_cg_validate_commit(gr_group_t *grp, const gr_str_t *member_id,
                                const gr_str_t *instance_id, int32_t epoch,
                                bool txn, int16_t version, gr_cmember_t **m,
                                gr_arena_t *a, const char **msg);
gr_kerr_t gr_cg_validate_commit_part(const gr_cmember_t *m, int32_t epoch,
                                     const char *topic, int32_t partition);
/* The commit of n parts to consumer group grp, validated as Kafka does
 * (gr_cg_validate_commit, then per part): NONE or the error of the whole
 * request. */
gr_kerr_t gr_cg_check_commit(gr_group_t *grp, const gr_str_t *member_id,
                             const gr_str_t *instance_id, int32_t epoch,
                             bool txn, int16_t version,
                             const gr_group_commit_part_t *parts, int32_t n);
/* OffsetFetch v9+ of a consumer group: NONE (no member named),
 * UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH. */
gr_kerr_t gr_cg_validate_fetch(gr_group_t *grp, const gr_str_t *member_id,
                               int32_t epoch);
/* A classic JoinGroup on consumer group grp: an Empty one is tombstoned
 * (it becomes an empty classic group, or goes when it holds no offsets)
 * and NONE is returned; otherwise INCONSISTENT_GROUP_PROTOCOL (no online
 * migration). */
gr_kerr_t gr_cg_to_classic(gr_group_t *grp);
/* SyncGroup/Heartbeat of a classic member on consumer group grp:
 * UNKNOWN_MEMBER_ID (or FENCED_INSTANCE_ID), as no member uses it. */
gr_kerr_t gr_cg_classic_member_check(gr_group_t *grp, const gr_str_t *member_id,
                                     const gr_str_t *instance_id);
/* LeaveGroup on a consumer group (Kafka's classicGroupLeaveToConsumerGroup:
 * the admin's removal of members): per-member errors in l[i].error. */
gr_kerr_t gr_cg_leave_members(gr_group_t *grp, gr_group_leaver_t *l, int32_t n);
/* DeleteGroups of a consumer group: NON_EMPTY_GROUP, or its offsets' and
 * its own tombstones written and the group gone. */
gr_kerr_t gr_cg_delete(gr_group_t *grp);
/* DeleteGroups of an Empty consumer group: its tombstones added to rs. */
void gr_cg_tombstones(gr_group_t *grp, gr_cg_recs_t *rs);

#endif
