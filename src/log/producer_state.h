/*
 * Producer state of one partition (idempotence and transactions, KIP-98):
 * per producer id its epoch, the sequences and offsets of its last five
 * batches (duplicates of those are answered with their original offsets
 * and not appended again), the coordinator epoch of its last marker, and
 * the first offset of its open transaction. The open transactions give the
 * last stable offset.
 *
 * Checks follow Kafka's ProducerAppendInfo: an older epoch is fenced; a new
 * epoch starts at sequence 0 (unless the producer was unknown); the same
 * epoch continues at lastSeq + 1 (wrapping at INT32_MAX); a producer with
 * no state takes any sequence.
 *
 * Snapshots are Kafka's: <offset>.snapshot in the partition directory, an
 * int16 version (1) then the ProducerSnapshot record (CRC-32C of what
 * follows the crc field, then one entry per producer with its last batch).
 * At start-up the latest snapshot at or below the log end is loaded and
 * the batches after it are replayed from the log (headers only). The
 * partition's aborted-transaction index (log/txn_index.h) is loaded with
 * it and kept here; when it is damaged, state and index are rebuilt from
 * the whole log. Once loaded, the state answers the log cleaner's
 * questions (gr_log_txns_t: first unstable offset, aborted transactions,
 * merged segments) until it is destroyed.
 * Loop thread only.
 */
#ifndef GR_LOG_PRODUCER_STATE_H
#define GR_LOG_PRODUCER_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "log/log.h"
#include "proto/kerr.h"
#include "proto/records.h"

#define GR_PSTATE_BATCHES 5

typedef struct gr_pstate gr_pstate_t;

/* An open transaction on the partition (for the last stable offset). */
typedef struct gr_ptxn {
    int64_t producer_id;
    int64_t first_offset;
} gr_ptxn_t;

/* What gr_pstate_check found. */
typedef struct gr_pcheck {
    bool duplicate;          /* answer with these offsets, append nothing */
    int64_t dup_first_offset;
    int64_t dup_last_offset;
    int64_t dup_timestamp; /* its maxTimestamp (Kafka answers it) */
    const char *message;   /* why, when the result is an error (for log
                              lines: Kafka answers no message) */
} gr_pcheck_t;

gr_pstate_t *gr_pstate_new(const char *topic, int32_t partition);
void gr_pstate_destroy(gr_pstate_t *ps);

/* Whether pid has state here; *epoch its epoch (-1: none known) and
 * *txn_open whether its transaction is open on the partition (Kafka's
 * activeProducers entry and its currentTxnFirstOffset). */
bool gr_pstate_producer(const gr_pstate_t *ps, int64_t pid, int16_t *epoch,
                        bool *txn_open);

/* Checks a validated batch of a producer (h->producer_id >= 0) before it
 * is appended. NONE (maybe a duplicate), INVALID_PRODUCER_EPOCH,
 * OUT_OF_ORDER_SEQUENCE_NUMBER or INVALID_TXN_STATE. */
gr_kerr_t gr_pstate_check(gr_pstate_t *ps, const gr_batch_hdr_t *h,
                          gr_pcheck_t *out);
/* Records an appended data batch (offsets assigned). The producer's last
 * timestamp becomes the batch's max timestamp (Kafka's), now_ms (the wall
 * clock) when the batch has none. */
void gr_pstate_append(gr_pstate_t *ps, const gr_batch_hdr_t *h, int64_t now_ms);
/* Records an appended transaction marker (control batch at offset) and
 * ends the producer's transaction. Sets *txn_first to its first offset
 * (-1 when none was open). INVALID_PRODUCER_EPOCH for an older epoch,
 * TRANSACTION_COORDINATOR_FENCED for an older coordinator epoch. */
gr_kerr_t gr_pstate_check_marker(gr_pstate_t *ps, int64_t pid, int16_t epoch,
                                 int32_t coordinator_epoch);
void gr_pstate_marker(gr_pstate_t *ps, int64_t pid, int16_t epoch,
                      int32_t coordinator_epoch, int64_t offset,
                      int64_t now_ms, int64_t *txn_first);

/* An appended COMMIT or ABORT marker at offset: ends the producer's
 * transaction (gr_pstate_marker) and, for an abort of a transaction that
 * wrote data here, adds it to the aborted-transaction index (after
 * gr_pstate_load). Replay calls it too. */
void gr_pstate_end_txn(gr_pstate_t *ps, int64_t pid, int16_t epoch,
                       int32_t coordinator_epoch, bool commit, int64_t offset,
                       int64_t now_ms);
/* The partition's aborted-transaction index (log/txn_index.h), NULL before
 * gr_pstate_load. */
struct gr_txnidx;
const struct gr_txnidx *gr_pstate_txnidx(const gr_pstate_t *ps);

/* The first offset of the oldest open transaction, or -1 when none. */
int64_t gr_pstate_first_unstable(const gr_pstate_t *ps);
/* Open transactions, for DescribeProducers (count, and a pointer valid
 * until the next change). */
int gr_pstate_count(const gr_pstate_t *ps);

/* Producer entry for DescribeProducers. */
typedef struct gr_pinfo {
    int64_t producer_id;
    int16_t epoch;
    int32_t last_sequence;
    int64_t last_timestamp;
    int32_t coordinator_epoch;
    int64_t txn_first_offset;
} gr_pinfo_t;
/* Calls cb for every producer with state. */
void gr_pstate_foreach(const gr_pstate_t *ps,
                       void (*cb)(void *arg, const gr_pinfo_t *p), void *arg);

/* Forgets producers idle longer than expiration_ms (no open transaction),
 * as producer.id.expiration.ms, and aborted-transaction entries of
 * segments retention deleted. Returns how many producers. */
int gr_pstate_expire(gr_pstate_t *ps, int64_t now_ms, int64_t expiration_ms);

/* Rebuilds from the latest snapshot in the log's directory at or below the
 * log end and the batches after it. Snapshots above the log end are
 * removed. 0 or a GR_ERR_*. */
gr_err_t gr_pstate_load(gr_pstate_t *ps, gr_log_t *l);
/* Writes <log end>.snapshot (atomically, not fsynced: gr_logs_close's
 * syncfs makes it durable at shutdown) and removes older snapshots but
 * the newest kept one. */
gr_err_t gr_pstate_snapshot(gr_pstate_t *ps, gr_log_t *l);
/* Replays one batch (from the log) into the state. */
void gr_pstate_replay(gr_pstate_t *ps, const uint8_t *batch, size_t n);

#endif
