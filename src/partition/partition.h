/*
 * The partition layer (Kafka's Partition.appendRecordsToLeader and the
 * append half of ReplicaManager): the one place where a batch is appended
 * to a partition this broker leads. Produce (api/produce.c), transaction
 * markers (txn/markers.c), the group store (group/store.c) and the
 * transaction log (txn/coordinator.c) check what is theirs to check
 * (validation, sequences, marker epochs, coordinator state), build or
 * take the batch, and append through gr_partition_append(), which
 *
 *   - checks that the partition has a log and that this broker leads it;
 *   - appends (the log gives the batch its offsets and leader epoch);
 *   - records the batch in the producer state: a data batch of a producer
 *     (producerId >= 0) by gr_pstate_append, a transaction marker by
 *     gr_pstate_end_txn;
 *   - moves the high watermark to the log end offset when p has no
 *     followers (a single broker: every replica in sync), else leaves it
 *     to the followers' fetches (below), and counts the bytes in;
 *   - wakes the readers waiting on the partition (long-polling fetches:
 *     followers on every append, consumers when the high watermark
 *     moves);
 *   - starts a flush that log.flush.* asks for, or leaves it to a caller
 *     that must answer only once it is done.
 *
 * Replication (the leader's half, Kafka's Partition and Replica): p->repl
 * holds each follower's log end offset (its last fetch offset) and
 * last-caught-up time; the high watermark is the least log end offset of
 * the ISR and of the followers about to join it, and stays where it is
 * while the ISR is below min.insync.replicas (Kafka's strict min ISR,
 * KAFKA-15583). A partition with no followers has no p->repl and takes
 * the single broker's path: the high watermark is the log end offset
 * right after the append. Loop thread only; the partition model itself
 * is cluster/cluster.h's.
 */
#ifndef GR_PARTITION_PARTITION_H
#define GR_PARTITION_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "proto/kerr.h"

/* A reader waiting on a partition for data: a node of p->waiters, owned
 * (and embedded) by the reader. wake is called after every append with
 * the bytes appended; it may not link or unlink waiters of p. */
typedef struct gr_partition_waiter gr_partition_waiter_t;
struct gr_partition_waiter {
    gr_partition_waiter_t *prev, *next;
    gr_partition_t *p; /* NULL: not waiting */
    void (*wake)(gr_partition_waiter_t *w, size_t bytes);
    /* a consumer's: woken when the high watermark moves (bytes: about
     * what it uncovered), not by every append */
    bool on_hw;
};

/* Links w (not waiting) into p's waiters; wake must be set. A wake may
 * unlink its own waiter, no other. */
void gr_partition_wait(gr_partition_t *p, gr_partition_waiter_t *w);
/* Unlinks w; nothing when it is not waiting. */
void gr_partition_unwait(gr_partition_waiter_t *w);

/* Whether this broker (self_id) can append to p: KAFKA_STORAGE_ERROR when
 * p has no log here or its log is offline, NOT_LEADER_OR_FOLLOWER when
 * another broker (or none) leads it, else NONE. gr_partition_append()
 * checks the same; Produce also asks first, to answer in Kafka's order. */
gr_kerr_t gr_partition_check_leader(const gr_partition_t *p, int32_t self_id);

/* The leader epoch (Kafka's Partition.leaderEpoch) has one source of
 * truth: the log's leader-epoch cache (log/log.h), whose latest entry is
 * the epoch batches are stamped with (gr_partition_append) and that
 * Metadata, ListOffsets, Fetch and OffsetForLeaderEpoch answer, through
 * p->leader_epoch, kept equal to it by these two. */

/* p's log was just opened: p->leader_epoch becomes the higher of the
 * cluster model's and the cache's latest (a single broker keeps its
 * epochs across restarts only in the cache), and, when self_id leads p,
 * is assigned at the log end as Kafka's makeLeader does; the high
 * watermark starts at the log end. */
void gr_partition_log_opened(gr_partition_t *p, int32_t self_id);
/* A new leader epoch for p (the controller's bump on a leadership
 * change): assigned at the log end when self_id leads p. */
void gr_partition_set_leader_epoch(gr_partition_t *p, int32_t epoch,
                                   int32_t self_id);

/* A transaction marker being appended (the batch is its control batch). */
typedef struct gr_partition_marker {
    int64_t producer_id;
    int16_t producer_epoch;
    int32_t coordinator_epoch;
    bool commit;
} gr_partition_marker_t;

typedef struct gr_partition_append_args {
    int32_t self_id; /* this broker's node id */
    int64_t now_ms;  /* the producer state's clock for this batch */
    /* NULL for data batches; a marker ends its producer's transaction */
    const gr_partition_marker_t *marker;
    /* the caller starts the flush (and waits for it) when flush_due is
     * set; false: the flush is started here, nobody waits */
    bool caller_flushes;
} gr_partition_append_args_t;

typedef struct gr_partition_append_result {
    int64_t first_offset;     /* the base offset given to the batch */
    int64_t log_start_offset; /* after the append */
    bool flush_due; /* log.flush.* wants a flush (started here unless
                     * caller_flushes) */
} gr_partition_append_result_t;

/* Appends the n bytes of record batches at buf to p: buf is rewritten in
 * place (baseOffset, partitionLeaderEpoch, outside the CRC) and borrowed
 * for the call; the producer state sees the first batch's header. NONE,
 * or what gr_partition_check_leader() answers, or KAFKA_STORAGE_ERROR
 * (logged) when the log refuses the append: nothing is recorded then.
 * Callers map these codes to their API's. */
gr_kerr_t gr_partition_append(gr_partition_t *p, uint8_t *buf, size_t n,
                              const gr_partition_append_args_t *args,
                              gr_partition_append_result_t *res);

/* The follower's append (Kafka's Partition.appendRecordsToFollowerOrFutureReplica,
 * Log.appendAsFollower): the n bytes of records a leader's Fetch answer
 * gave, whole batches kept as they are (offsets, leader epochs), a last
 * batch the leader's bound cut left out (*used: the bytes appended). Each
 * batch is checked first (size, magic 2, CRC-32C, based at or past the
 * log end): CORRUPT_MESSAGE with *why, nothing appended, else NONE or
 * KAFKA_STORAGE_ERROR. The producer state follows the batches (data,
 * transaction markers, aborted-transaction index); the high watermark
 * becomes min(log end, leader_hw). No decompression: the batches are
 * read by their headers only. */
gr_kerr_t gr_partition_append_follower(gr_partition_t *p, const uint8_t *buf,
                                       size_t n, int64_t leader_hw,
                                       size_t *used, const char **why);
/* The check of gr_partition_append_follower, alone (and fuzzed): the
 * whole batches at the start of buf[0..n), each valid and based at or
 * past next (the log end), then past the one before; *used their bytes
 * (a cut last batch left out). NONE or CORRUPT_MESSAGE with *why. */
gr_kerr_t gr_partition_follower_batches(const uint8_t *buf, size_t n,
                                        int64_t next, size_t *used,
                                        const char **why);
/* A follower's high watermark: min(its log end, the leader's), and into
 * replication-offset-checkpoint. */
void gr_partition_follower_hw(gr_partition_t *p, int64_t leader_hw);

/* --- replication, the leader's side */

/* One follower as the leader sees it (Kafka's ReplicaState). */
typedef struct gr_follower {
    int32_t id;
    int64_t leo;                   /* its last fetch offset, -1 unknown */
    int64_t last_fetch_ms;         /* -1 never */
    int64_t last_fetch_leader_leo; /* the leader's LEO at that fetch */
    int64_t last_caught_up_ms;     /* -1 never */
    int64_t broker_epoch;          /* ReplicaEpoch (Fetch v15+), or -1 */
    /* Kafka's isReplicaIsrEligible: its broker is registered (alive);
     * kept by the caller, true after a fetch */
    bool eligible;
} gr_follower_t;

/* What the leader keeps of p's followers: one block, freed with free(). */
typedef struct gr_partition_repl {
    int32_t min_isr;  /* effective min.insync.replicas, kept by callers */
    int64_t lag_ms;   /* replica.lag.time.max.ms */
    /* an ISR change written to the store and not yet answered
     * (Kafka's PendingExpandIsr/PendingShrinkIsr): its members */
    bool altering;
    int32_t *alter_isr; /* room for every replica, in this block */
    int nalter;
    /* produces waiting for the high watermark (api/produce.c): woken with
     * bytes 0 when it moves, the ISR changes or p->repl goes */
    gr_partition_waiter_t *ack_waiters;
    int64_t bytes_above_hw; /* appended, not yet below the watermark */
    int nf;
    gr_follower_t f[];
} gr_partition_repl_t;

/* Pure rules (unit tested), Kafka's Replica and Partition: */

/* A follower fetched at fetch_offset at now_ms while the leader's log
 * ended at leader_leo (Replica.updateFetchStateOrThrow): caught up now
 * when it asked for the log end, caught up as of its previous fetch when
 * it asked for at least what the log ended at then. */
void gr_follower_fetched(gr_follower_t *f, int64_t fetch_offset,
                         int64_t now_ms, int64_t leader_leo);
/* Replica.isCaughtUp: at the log end, or caught up within lag_ms. */
bool gr_follower_caught_up(const gr_follower_t *f, int64_t leader_leo,
                           int64_t now_ms, int64_t lag_ms);
/* Partition.isFollowerInSync, for joining the ISR: at or past the high
 * watermark and the start of the leader's current epoch. */
bool gr_follower_in_sync(const gr_follower_t *f, int64_t hw,
                         int64_t epoch_start);
/* Whether id is in v (n of them). */
bool gr_isr_has(const int32_t *v, int n, int32_t id);
/* Partition.maybeIncrementLeaderHW's candidate: the leader's LEO, lowered
 * to the LEO of each follower that is in the ISR (maximal: the ISR with a
 * pending expansion) or caught up and eligible; -1 when the (committed) ISR has fewer
 * than min_isr members (the high watermark stays). The caller keeps the
 * higher of this and the current one. */
int64_t gr_repl_hw_candidate(int64_t leader_leo, const gr_follower_t *f,
                             int nf, const int32_t *isr, int nisr,
                             const int32_t *maximal, int nmaximal,
                             int32_t min_isr, int64_t now_ms, int64_t lag_ms);

/* Makes p->repl agree with p: there when self_id leads p and p has other
 * replicas (followers kept by id, new ones unknown), else gone (its ack
 * waiters woken first). lag_ms for a new one. -1 when out of memory. */
int gr_partition_repl_sync(gr_partition_t *p, int32_t self_id,
                           int64_t lag_ms);
/* p->repl goes (p deleted, or no longer led here): its ack waiters are
 * woken with w->p NULL first. */
void gr_partition_repl_drop(gr_partition_t *p);
/* The ISR that counts for the high watermark: the pending change's
 * when it adds members, else p's. */
void gr_partition_maximal_isr(const gr_partition_t *p, const int32_t **v,
                              int *n);
/* Moves the high watermark as far as the rules allow; true when it
 * moved (consumers and ack waiters are woken). Nothing without p->repl. */
bool gr_partition_update_hw(gr_partition_t *p, int64_t now_ms);
/* A produce waiting on p (p->repl set) for the high watermark: woken
 * with bytes 0 after every move, ISR change, and when p->repl goes (then
 * w->p is NULL: unlinked, p no longer led here). The wake may unlink w
 * itself, nothing else of p. */
void gr_partition_ack_wait(gr_partition_t *p, gr_partition_waiter_t *w);
void gr_partition_ack_unwait(gr_partition_waiter_t *w);
/* Wakes p's ack waiters (the ISR changed, or p->repl goes). */
void gr_partition_wake_acks(gr_partition_t *p);
/* A follower's fetch at fetch_offset (checked: within the log), read
 * at now_ms: its state, then the high watermark. The follower, or NULL
 * when replica is not one of p's followers. */
gr_follower_t *gr_partition_follower_fetch(gr_partition_t *p, int32_t replica,
                                           int64_t fetch_offset,
                                           int64_t broker_epoch,
                                           int64_t now_ms);
/* The start offset of the leader's current epoch (the cache's entry for
 * p->leader_epoch), or the log end offset when the cache has none. */
int64_t gr_partition_epoch_start(const gr_partition_t *p);

#endif
