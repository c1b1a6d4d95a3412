/*
 * The transaction coordinator (KIP-98): transactional ids, their producer
 * ids and epochs, the partitions of their open transaction, and the
 * transaction state machine of Kafka's TransactionCoordinator and
 * TransactionMetadata. State is kept as records of the internal compacted
 * topic __transaction_state (Kafka's TransactionLogKey/Value, key version
 * 0, value version 0 written, 0-1 read) and loaded from it at start-up;
 * ends of transactions are written as COMMIT/ABORT markers to every
 * partition of the transaction (markers.c).
 *
 * Where it sits: below src/api/ (the handlers check the request, call one
 * function here and word the answer per version), above src/log/ and
 * src/cluster/. It sees no requests and no connections. Every call
 * finishes before it returns: the state record is appended to the
 * partition log (page cache, as Kafka's acks=-1 on one broker) and the
 * markers right after it, so a transaction is never seen pending between
 * two loop turns; a marker that cannot be written leaves its transaction
 * in PrepareCommit/PrepareAbort, retried every second. The topic is
 * created by the handlers (api/topics.h); without it every call answers
 * COORDINATOR_NOT_AVAILABLE.
 *
 * The group coordinator is reached only through the hooks: a marker on a
 * partition of __consumer_offsets is reported so that the transactional
 * offset commits of that producer become visible (commit) or are dropped
 * (abort).
 *
 * Loop thread only.
 */
#ifndef GR_TXN_TXN_H
#define GR_TXN_TXN_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "core/arena.h"
#include "core/loop.h"
#include "core/str.h"
#include "proto/kerr.h"
#include "txn/pid.h"

/*
 * Transaction states, with Kafka's ids (the TransactionStatus of the log
 * value) and names (DescribeTransactions, ListTransactions).
 *
 * Empty           no transaction (after InitProducerId).
 *                 transition: AddPartitionsToTxn, AddOffsetsToTxn => Ongoing
 *                             InitProducerId => Empty (epoch + 1)
 *                             expiration => Dead (tombstone, removed)
 * Ongoing         partitions were added.
 *                 action: times out after transaction.timeout.ms
 *                 transition: EndTxn(commit) => PrepareCommit
 *                             EndTxn(abort) => PrepareAbort
 *                             AddPartitions, AddOffsets => Ongoing
 *                             InitProducerId, timeout => PrepareEpochFence
 * PrepareCommit   the decision is logged.
 *                 action: write COMMIT markers to every partition
 *                 transition: all markers written => CompleteCommit
 * PrepareAbort    likewise with ABORT markers.
 *                 transition: all markers written => CompleteAbort
 * CompleteCommit  done.
 *                 transition: as Empty (AddPartitions => Ongoing, ...)
 * CompleteAbort   done.
 *                 transition: as Empty
 * Dead            being expired (transactional.id.expiration.ms); never
 *                 held here: the tombstone is written and the id dropped
 * PrepareEpochFence  the epoch is bumped to fence the producer of an
 *                 Ongoing transaction; never held here either.
 *                 transition: => PrepareAbort (with the bumped epoch)
 *
 * State x request, after the checks below. CT = CONCURRENT_TRANSACTIONS,
 * ITS = INVALID_TXN_STATE, IPM = INVALID_PRODUCER_ID_MAPPING; a state name
 * is the transition; "fence" bumps the epoch, aborts and answers CT:
 *
 *   state            InitProducerId  AddPartitions  EndTxn        EndTxn
 *                                    AddOffsets     commit        abort
 *   Empty            bump: Empty     Ongoing        ITS           ITS
 *   Ongoing          fence           Ongoing (1)    PrepareCommit PrepareAbort
 *   PrepareCommit    CT              CT             CT            ITS
 *   PrepareAbort     CT              CT             ITS           CT
 *   CompleteCommit   bump: Empty     Ongoing        NONE (2)      ITS
 *   CompleteAbort    bump: Empty     Ongoing        ITS           NONE (2)
 *   Dead (3)         CT              IPM            IPM           IPM
 *   PrepareEpochFence (3): CT for every request
 *
 *   (1) NONE at once, nothing logged, when no partition is new
 *   (2) a retry of the end that completed
 *   (3) never held here (Kafka: IllegalStateException)
 *
 * AddPartitionsToTxn verify_only (v4+) answers as AddPartitions without
 * the transition: CT in Prepare*, IPM for Dead, else per partition.
 *
 * Transaction version 2 (KIP-890 part 2: EndTxn v5; the partitions come
 * from Produce v12+ and TxnOffsetCommit v5+ themselves): every end bumps
 * the epoch (the markers carry the bumped one; an exhausted epoch brings
 * a new producer id, epoch 0, at CompleteX), and EndTxn differs so:
 *
 *   state            EndTxn commit            EndTxn abort
 *   Empty            ITS                      PrepareAbort (nothing to mark)
 *   CompleteCommit   NONE if a retry (4), ITS ITS if a retry (4), else
 *                                             PrepareAbort (nothing to mark)
 *   CompleteAbort    ITS                      NONE if a retry (4), else
 *                                             PrepareAbort (nothing to mark)
 *   PrepareCommit    CT (with the bumped epoch: a retry) ...
 *
 *   (4) the epoch before the bump (or, after an exhausted one, the old
 *       producer id at epoch 32766): the end's answer was lost
 *
 * Before the state: an unknown transactional id is
 * INVALID_PRODUCER_ID_MAPPING (InitProducerId creates it), another producer
 * id INVALID_PRODUCER_ID_MAPPING, another epoch PRODUCER_FENCED
 * (InitProducerId v3+ with its current id and epoch: KIP-360, see
 * gr_txn_init_pid). An epoch at 32766 or above is exhausted: the next
 * InitProducerId gives a new producer id with epoch 0.
 */
typedef enum gr_txn_state {
    GR_TXN_EMPTY = 0,
    GR_TXN_ONGOING = 1,
    GR_TXN_PREPARE_COMMIT = 2,
    GR_TXN_PREPARE_ABORT = 3,
    GR_TXN_COMPLETE_COMMIT = 4,
    GR_TXN_COMPLETE_ABORT = 5,
    GR_TXN_DEAD = 6,
    GR_TXN_PREPARE_EPOCH_FENCE = 7,
} gr_txn_state_t;

#define GR_TXN_NSTATES 8

/* Kafka's name of s ("Empty", "PrepareCommit", ...). */
const char *gr_txn_state_name(gr_txn_state_t s);
/* The state named name, or -1. */
int gr_txn_state_from_name(const gr_str_t *name);

/* A producer id and epoch; GR_PID_NONE is Kafka's (-1, -1). */
typedef struct gr_pid {
    int64_t id;
    int16_t epoch;
} gr_pid_t;

#define GR_PID_NONE ((gr_pid_t){ -1, -1 })

typedef struct gr_txn_coord gr_txn_coord_t;

/* Kafka's transaction.* settings. */
typedef struct gr_txn_config {
    int32_t max_timeout_ms;             /* transaction.max.timeout.ms */
    int64_t id_expiration_ms;           /* transactional.id.expiration.ms */
    int64_t abort_interval_ms;          /* ...abort.timed.out...interval.ms */
    int64_t remove_expired_interval_ms; /* ...remove.expired...interval.ms */
    /* the finalized transaction.version: 2 writes TransactionLogValue v1
     * (with ClientTransactionVersion and NextProducerId), as Kafka 4.x */
    int16_t transaction_version;
    int64_t (*clock_ms)(void); /* wall clock; NULL: the loop's */
} gr_txn_config_t;

/* What the coordinator needs from the broker. */
typedef struct gr_txn_hooks {
    /* a marker of producer pid was appended to p, a partition of
     * __consumer_offsets: its transactional offset commits there become
     * visible (commit) or are dropped. NULL until the group coordinator
     * provides it. */
    void (*offsets_marker)(void *arg, gr_partition_t *p, int64_t pid,
                           bool commit);
    void *arg;
} gr_txn_hooks_t;

/* A coordinator for every partition of __transaction_state this broker
 * (node_id) leads. loop, cluster and pids outlive it. */
gr_txn_coord_t *gr_txn_coord_new(gr_loop_t *loop, gr_cluster_t *cluster,
                                 gr_pids_t *pids, int32_t node_id,
                                 const gr_txn_config_t *cfg,
                                 const gr_txn_hooks_t *hooks);
void gr_txn_coord_destroy(gr_txn_coord_t *tc);
/* Starts loading __transaction_state when it exists (every partition led
 * here, 1 MiB per loop turn; at once when the coordinator has no loop, as
 * in tests): ids of a partition still loading answer
 * COORDINATOR_LOAD_IN_PROGRESS, ListTransactions too while any is. Once a
 * partition is loaded its transactions found in PrepareCommit or
 * PrepareAbort are completed (their markers are written again); Ongoing
 * ones carry on and time out as usual. Starts the timers: timed-out
 * transactions are aborted, expired ids removed. */
void gr_txn_coord_start(gr_txn_coord_t *tc);
/* Runs the load to completion (tests, and nothing else). */
void gr_txn_coord_load_all_now(gr_txn_coord_t *tc);
/* Runs the periodic work now (tests): timeouts, marker retries, expiry. */
void gr_txn_coord_tick(gr_txn_coord_t *tc);

/* InitProducerId with a transactional id (not null; "" is
 * INVALID_REQUEST). timeout_ms is checked against transaction.max.timeout.ms
 * (INVALID_TRANSACTION_TIMEOUT). expect: the producer's current id and
 * epoch (v3+, KIP-360) or GR_PID_NONE. *out is the new id and epoch when
 * NONE, else GR_PID_NONE. PRODUCER_FENCED is the caller's to downgrade. */
gr_kerr_t gr_txn_init_pid(gr_txn_coord_t *tc, const gr_str_t *txn_id,
                          int32_t timeout_ms, gr_pid_t expect, gr_pid_t *out);

/* A topic-partition of a transaction (slices valid during the call). */
typedef struct gr_txn_tp {
    gr_str_t topic;
    int32_t partition;
} gr_txn_tp_t;

/* AddPartitionsToTxn and AddOffsetsToTxn (the group's __consumer_offsets
 * partition): the partitions must exist (the caller checks).
 * client_version 2: added by a transaction version 2 client's Produce
 * (v12+) or TxnOffsetCommit (v5+) itself (KIP-890 part 2); 0 otherwise. */
gr_kerr_t gr_txn_add_partitions(gr_txn_coord_t *tc, const gr_str_t *txn_id,
                                gr_pid_t pid, const gr_txn_tp_t *tps, int n,
                                int16_t client_version);
/* AddPartitionsToTxn v4+ verify_only: the transaction-level error, or NONE
 * with errs[i] NONE (tps[i] is in the transaction) or
 * TRANSACTION_ABORTABLE. */
gr_kerr_t gr_txn_verify_partitions(gr_txn_coord_t *tc, const gr_str_t *txn_id,
                                   gr_pid_t pid, const gr_txn_tp_t *tps, int n,
                                   gr_kerr_t *errs);
/* Kafka's verification of a transactional append (KIP-890 part 1;
 * transaction.partition.verification.enable, true by default and always
 * here): before a transactional batch of pid is appended to partition p
 * outside transaction version 2, the coordinator must have p in pid's
 * transaction. First step (UnifiedLog.maybeStartTransactionVerification),
 * on p alone: INVALID_PRODUCER_EPOCH when p has seen a later epoch of pid,
 * KAFKA_STORAGE_ERROR when p has no producer state; else NONE, *ask false
 * when pid's transaction is open on p at that epoch (nothing to verify),
 * true when gr_txn_verify_partitions (or, for transaction version 2,
 * gr_txn_add_partitions) must be asked. */
gr_kerr_t gr_txn_verify_start(gr_partition_t *p, gr_pid_t pid, bool *ask);
/* The coordinator's answer to such a verification or addition as Kafka's
 * AddPartitionsToTxnManager words it for the broker: PRODUCER_FENCED is
 * INVALID_PRODUCER_EPOCH, and TRANSACTION_ABORTABLE is INVALID_TXN_STATE
 * for clients that predate it (generic_errors false: Produce v3-v10,
 * TxnOffsetCommit v0-v3, Kafka's TransactionSupportedOperation
 * DEFAULT_ERROR). */
gr_kerr_t gr_txn_verify_error(gr_kerr_t err, bool generic_errors);

/* EndTxn: commit or abort the producer's transaction. NONE once the
 * decision is logged (the markers follow at once, or are retried).
 * client_version 2 (EndTxn v5, KIP-890 part 2): every end bumps the epoch;
 * *out is the producer id and epoch the producer goes on with (a new id
 * with epoch 0 once the epochs are exhausted), else GR_PID_NONE. */
gr_kerr_t gr_txn_end(gr_txn_coord_t *tc, const gr_str_t *txn_id, gr_pid_t pid,
                     bool commit, int16_t client_version, gr_pid_t *out);

/* DescribeTransactions of one id. Strings and parts live in a. */
typedef struct gr_txn_info {
    const char *state;
    int32_t timeout_ms;
    int64_t start_ms; /* -1 when no transaction is open */
    int64_t producer_id;
    int16_t producer_epoch;
    gr_txn_tp_t *parts; /* sorted by topic, then partition */
    int nparts;
} gr_txn_info_t;

/* NONE, TRANSACTIONAL_ID_NOT_FOUND, INVALID_REQUEST ("") or a coordinator
 * error. */
gr_kerr_t gr_txn_describe(gr_txn_coord_t *tc, const gr_str_t *txn_id,
                          gr_arena_t *a, gr_txn_info_t *out);

/* ListTransactions: calls cb for every transactional id whose state is in
 * states (a mask of 1 << gr_txn_state_t; 0: any), whose producer id is in
 * pids (npids 0: any) and, when duration_ms >= 0, whose transaction has run
 * longer than duration_ms. Dead ids are never listed. */
typedef void (*gr_txn_list_cb)(void *arg, const char *txn_id,
                               int64_t producer_id, const char *state);
gr_kerr_t gr_txn_list(gr_txn_coord_t *tc, uint32_t states, const int64_t *pids,
                      int npids, int64_t duration_ms, gr_txn_list_cb cb,
                      void *arg);

/* WriteTxnMarkers (one marker of a request): appends a COMMIT or ABORT
 * marker of pid/epoch to p as the coordinator does. NONE,
 * INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED,
 * NOT_LEADER_OR_FOLLOWER or KAFKA_STORAGE_ERROR. */
gr_kerr_t gr_txn_write_marker(gr_txn_coord_t *tc, gr_partition_t *p,
                              gr_pid_t pid, bool commit,
                              int32_t coordinator_epoch);

#endif
