/*
 * The aborted-transaction index of a partition log, in Kafka's .txnindex
 * format: one file per segment, <base>.txnindex beside <base>.log, listing
 * the transactions whose ABORT marker lies in that segment. Fetch
 * (read_committed) returns the entries that overlap what it sends, so the
 * consumer can drop those producers' batches up to their marker.
 *
 * <base>.txnindex: 34-byte entries, last offsets increasing across the log
 *
 *   OFFSET SIZE DESCRIPTION
 *     34*i    2 version (int16 BE, 0)
 *   34*i+2    8 producer id (int64 BE)
 *  34*i+10    8 first offset of the transaction on this partition
 *  34*i+18    8 last offset: the offset of the ABORT marker
 *  34*i+26    8 last stable offset once the marker was written (the
 *               first offset of the oldest transaction still open, or the
 *               marker's offset + 1): searches stop at an entry whose last
 *               stable offset is at or past their upper bound
 *
 * Only transactions that wrote data to the partition get an entry (Kafka's
 * CompletedTxn). The whole index of a partition is kept in memory (aborts
 * are rare); an entry is appended to its segment's file when its marker is
 * appended. Files are not fsynced: at start-up entries at or past the log
 * end are cut off, and the producer-state replay (log/producer_state.c)
 * re-adds the entries of markers it replays; a damaged file is reported
 * so the caller rebuilds every entry from the log. The log deletes a
 * segment's .txnindex with the segment. Loop thread only.
 */
#ifndef GR_LOG_TXN_INDEX_H
#define GR_LOG_TXN_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "log/segment.h"

#define GR_TXNIDX_ENTRY   34
#define GR_TXNIDX_VERSION 0

typedef struct gr_aborted_txn {
    int64_t producer_id;
    int64_t first_offset;
    int64_t last_offset;        /* the ABORT marker */
    int64_t last_stable_offset; /* after the marker */
} gr_aborted_txn_t;

typedef struct gr_txnidx gr_txnidx_t;

/* Loads every <base>.txnindex of dir, cutting entries whose last offset
 * is >= leo off memory and file. A file whose <base>.log is gone was left
 * by a merge (compaction): its entries are folded into the segment holding
 * base, whose file is rewritten; one below every segment is deleted.
 * *damaged is set when a file is not a valid index (size, version, order):
 * the caller then resets and rebuilds. NULL on ENOMEM. */
gr_txnidx_t *gr_txnidx_open(const char *dir, int64_t leo, bool *damaged);
/* The same from names, dir's listing (gr_dir_names_read). */
gr_txnidx_t *gr_txnidx_open_listed(const char *dir, const gr_dir_names_t *names,
                                   int64_t leo, bool *damaged);
void gr_txnidx_destroy(gr_txnidx_t *ix);
/* Deletes every file and entry (before a rebuild). */
void gr_txnidx_reset(gr_txnidx_t *ix);
/* Adds t, whose marker lies in the segment based at seg_base, unless an
 * entry with a last offset >= t's exists already (a replayed marker):
 * memory first, then the file. 0, GR_ERR_NOMEM or GR_ERR_IO (logged; the
 * entry stays in memory). */
gr_err_t gr_txnidx_append(gr_txnidx_t *ix, int64_t seg_base,
                          const gr_aborted_txn_t *t);
/* Calls cb for each entry with last_offset >= from and first_offset <
 * upper, in index order, stopping after an entry whose last stable offset
 * is >= upper (Kafka's collectAbortedTxns). Returns the number of calls. */
int gr_txnidx_collect(const gr_txnidx_t *ix, int64_t from, int64_t upper,
                      void (*cb)(void *arg, const gr_aborted_txn_t *t),
                      void *arg);
/* The cleaner merged the segments based in [base, end) into one based at
 * base: their entries now belong to it, and its file is rewritten whole
 * (a temporary file renamed) while the others' files go. 0 or GR_ERR_IO
 * (logged; the entries stay in memory, and a later start-up folds a
 * leftover file into the segment holding it). */
gr_err_t gr_txnidx_merged(gr_txnidx_t *ix, int64_t base, int64_t end);
/* Forgets the entries of segments based below seg_base (deleted by
 * retention; their files went with them). */
void gr_txnidx_drop_before(gr_txnidx_t *ix, int64_t seg_base);
/* Entries held. */
int gr_txnidx_count(const gr_txnidx_t *ix);

#endif
