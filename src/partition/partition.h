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
 *   - moves the high watermark to the log end offset (a single broker:
 *     every replica in sync) and counts the bytes in;
 *   - wakes the readers waiting on the partition (long-polling fetches);
 *   - starts a flush that log.flush.* asks for, or leaves it to a caller
 *     that must answer only once it is done.
 *
 * Replication adds its follower positions, ISR and leader epochs here.
 * Loop thread only; the partition model itself is cluster/cluster.h's.
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
};

/* Links w (not waiting) into p's waiters; wake must be set. */
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

#endif
