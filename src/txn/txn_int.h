/*
 * Private structures of src/txn/: a transactional id's metadata (Kafka's
 * TransactionMetadata), a transition (TxnTransitMetadata), the coordinator,
 * and the state machine of txn.c, which decides and never does I/O, so
 * tests can drive every state with every request. Tests include this.
 */
#ifndef GR_TXN_TXN_INT_H
#define GR_TXN_TXN_INT_H

#include "core/buf.h"
#include "txn/txn.h"

#define GR_TXN_EPOCH_EXHAUSTED (INT16_MAX - 1) /* Short.MaxValue - 1 */

/* A partition of the transaction. */
typedef struct gr_txn_part {
    char *topic;
    int32_t partition;
    bool marked; /* its marker is written (PrepareCommit/PrepareAbort) */
} gr_txn_part_t;

typedef struct gr_txn {
    struct gr_txn *hnext;
    char *id; /* the transactional id, NUL-terminated */
    int32_t id_len;
    int32_t log_partition; /* of __transaction_state */
    int64_t producer_id;
    int64_t prev_producer_id; /* before the last rotation, -1 */
    int64_t next_producer_id; /* read from v1 values; kept */
    int16_t epoch;            /* -1: none yet */
    int16_t last_epoch;       /* -1: none (KIP-360 retries) */
    int32_t timeout_ms;
    gr_txn_state_t state;
    int64_t start_ms;  /* first partition added, -1 none */
    int64_t update_ms; /* last transition */
    gr_txn_part_t *parts;
    int nparts, parts_cap;
    int32_t *slots;         /* open addressing over parts: index, -1 empty */
    int nslots;             /* 0 or a power of two > 2 * nparts */
    int16_t client_version; /* ClientTransactionVersion, kept */
    bool failed_fence;      /* a bumped fence epoch was not logged */
    bool completing;        /* PrepareX: markers or Complete to write */
} gr_txn_t;

/* A transition to be logged, then applied (gr_txn_apply). The partition
 * set is the transaction's plus add[0..nadd) for Ongoing, the
 * transaction's for PrepareX, none otherwise. */
typedef struct gr_txn_transit {
    gr_txn_state_t state;
    int64_t producer_id;
    int64_t prev_producer_id;
    int64_t next_producer_id; /* TV2: the id after an exhausted epoch, -1 */
    int16_t epoch;
    int16_t last_epoch;
    int16_t client_version;   /* ClientTransactionVersion of the transition */
    int32_t timeout_ms;
    int64_t start_ms;
    int64_t update_ms;
    const gr_txn_tp_t *add;
    int nadd;
} gr_txn_transit_t;

/* --- the state machine (txn.c); now_ms is the wall clock */

/* What InitProducerId does to an existing id (after the timeout check). */
typedef enum gr_txn_init_action {
    GR_TXN_INIT_ERROR,  /* *err says why */
    GR_TXN_INIT_BUMP,   /* *t: Empty with epoch + 1 (or the retry's) */
    GR_TXN_INIT_ROTATE, /* epoch exhausted: a new producer id, then
                           gr_txn_prepare_rotate */
    GR_TXN_INIT_FENCE,  /* Ongoing: fence and abort (gr_txn_prepare_fence),
                           answer CONCURRENT_TRANSACTIONS */
} gr_txn_init_action_t;

gr_txn_init_action_t gr_txn_prepare_init(const gr_txn_t *txn,
                                         int32_t timeout_ms, gr_pid_t expect,
                                         int64_t now_ms, gr_txn_transit_t *t,
                                         gr_kerr_t *err);
void gr_txn_prepare_rotate(const gr_txn_t *txn, int64_t new_pid,
                           int32_t timeout_ms, bool record_last_epoch,
                           int64_t now_ms, gr_txn_transit_t *t);
/* AddPartitions: NONE with *t to log (*noop: nothing to log, answer NONE),
 * or the error. client_version: 2 when the partitions come implicitly from
 * a transaction version 2 client's Produce or TxnOffsetCommit, else 0. */
gr_kerr_t gr_txn_prepare_add(const gr_txn_t *txn, gr_pid_t pid,
                             const gr_txn_tp_t *tps, int n,
                             int16_t client_version, int64_t now_ms,
                             gr_txn_transit_t *t, bool *noop);
/* Verify: the transaction-level check of gr_txn_verify_partitions. */
gr_kerr_t gr_txn_check_verify(const gr_txn_t *txn, gr_pid_t pid);
/* EndTxn from the client (from_client) or the coordinator (a fence: pid
 * carries the bumped epoch). tv2: transaction version 2 (EndTxn v5, or the
 * coordinator's end of a transaction whose client speaks it): the epoch is
 * bumped by every end (next_pid, when not -1, the producer id that follows
 * an exhausted epoch), an abort needs no open transaction, and a retry
 * with the epoch before the bump is answered NONE. NONE with *t to log,
 * NONE with *noop (a retry of a completed end), or the error. */
gr_kerr_t gr_txn_prepare_end(const gr_txn_t *txn, gr_pid_t pid, bool commit,
                             bool from_client, bool tv2, int64_t next_pid,
                             int64_t now_ms, gr_txn_transit_t *t, bool *noop);
/* Whether txn's epoch is exhausted (Kafka's isProducerEpochExhausted). */
bool gr_txn_epoch_exhausted(const gr_txn_t *txn);
/* Fencing an Ongoing transaction: bumps txn's epoch in memory (once: not
 * again after a failed fence), as Kafka's prepareFenceProducerEpoch and
 * endTransaction do; the abort then uses that epoch. */
void gr_txn_fence(gr_txn_t *txn);
/* PrepareX => CompleteX, once every marker is written. */
void gr_txn_prepare_complete(const gr_txn_t *txn, int64_t now_ms,
                             gr_txn_transit_t *t);
/* Expiration (Empty, CompleteX idle for expiration_ms): true when txn is
 * to be tombstoned and dropped. */
bool gr_txn_expired(const gr_txn_t *txn, int64_t now_ms, int64_t expiration_ms);
/* Whether an Ongoing transaction has run past its timeout. */
bool gr_txn_timed_out(const gr_txn_t *txn, int64_t now_ms);
/* Applies a logged transition (Kafka's completeTransitionTo). -1 on ENOMEM
 * (partitions not added). */
int gr_txn_apply(gr_txn_t *txn, const gr_txn_transit_t *t);
/* Adds topic/partition to txn's set unless there: 0, or -1 on ENOMEM. */
int gr_txn_add_part(gr_txn_t *txn, const gr_str_t *topic, int32_t partition);
/* Whether txn has topic/partition (a hash lookup). */
bool gr_txn_has_part(const gr_txn_t *txn, const gr_str_t *topic,
                     int32_t partition);
/* Empties txn's partition set. */
void gr_txn_clear_parts(gr_txn_t *txn);

/* A new id (Empty, epoch -1, no log record yet); NULL on ENOMEM. */
gr_txn_t *gr_txn_new(const gr_str_t *id, int64_t producer_id,
                     int32_t timeout_ms, int64_t now_ms);
void gr_txn_free(gr_txn_t *txn);

/* --- the coordinator (coordinator.c) and markers (markers.c) */

struct gr_txn_coord {
    gr_loop_t *loop;
    gr_cluster_t *cluster;
    gr_pids_t *pids;
    int32_t node_id;
    gr_txn_config_t cfg;
    gr_txn_hooks_t hooks;
    gr_txn_t **tab; /* by transactional id */
    uint32_t tab_size;
    int count;
    gr_timer_t abort_timer;  /* timeouts, every abort_interval_ms */
    gr_timer_t expire_timer; /* every remove_expired_interval_ms */
    gr_timer_t retry_timer;  /* markers to write again */
    bool started;
    gr_buf_t scratch;
    /* start-up load of __transaction_state, a bounded slice per loop
     * turn: per partition the next offset to read, -1 once loaded */
    int64_t *load_next;
    int32_t nload;
    int loading;          /* partitions still loading */
    int64_t load_records; /* records read so far */
    int64_t load_start_us;
    gr_timer_t load_timer;
};

/* Whether partition idx of __transaction_state is still loading. */
bool gr_txn_loading(const gr_txn_coord_t *tc, int32_t idx);

/* The partition of __transaction_state that holds txn_id, or NULL
 * (*err: COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR). */
gr_partition_t *gr_txn_log_partition(gr_txn_coord_t *tc, const gr_str_t *txn_id,
                                     gr_kerr_t *err);
/* Writes the markers of txn (in PrepareCommit/PrepareAbort) to each
 * partition not marked yet; when all are, logs CompleteX. A partition that
 * fails stays unmarked and txn->completing set (the retry timer runs). */
void gr_txn_markers_write(gr_txn_coord_t *tc, gr_txn_t *txn);
/* Logs t for txn and applies it. NONE, or NOT_COORDINATOR /
 * COORDINATOR_NOT_AVAILABLE when the record cannot be appended. */
gr_kerr_t gr_txn_log_transit(gr_txn_coord_t *tc, gr_txn_t *txn,
                             const gr_txn_transit_t *t);
/* One marker (markers.c): NONE or the partition's error. */
gr_kerr_t gr_txn_marker_append(gr_txn_coord_t *tc, gr_partition_t *p,
                               int64_t pid, int16_t epoch, bool commit,
                               int32_t coordinator_epoch);
int64_t gr_txn_now(const gr_txn_coord_t *tc);
/* Arms the retry timer (markers that could not be written). */
void gr_txn_retry_later(gr_txn_coord_t *tc);

#endif
