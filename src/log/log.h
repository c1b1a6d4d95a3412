/*
 * Partition logs: one directory per partition under log.dirs
 * (<topic>-<partition>/), segments named by base offset
 * (%020lld.log/.index/.timeindex) in Kafka's on-disk formats, so Kafka's own
 * dump tool can read them:
 *
 *   .log        record batches (magic 2) back to back, as on the wire
 *   .index      8-byte entries: relativeOffset int32, position int32
 *   .timeindex  12-byte entries: timestamp int64, relativeOffset int32
 *
 * Appends go through the page cache (write/pwrite); fsync happens only when
 * flush.messages / flush.ms ask for it, on a worker thread. The active
 * segment's index entries live in memory and reach their files on roll,
 * flush and close; after an unclean shutdown everything past the recovery
 * point is checked batch by batch (CRC-32C) and the indexes rebuilt.
 *
 * The directory-wide files are Kafka's: recovery-point-offset-checkpoint,
 * log-start-offset-checkpoint (text: version 0, count, "topic part offset"
 * lines) and the .kafka_cleanshutdown marker; each partition directory has
 * partition.metadata ("version: 0" / "topic_id: <base64>").
 *
 * Loop thread only, except the flush jobs it hands to the workers.
 */
#ifndef GR_LOG_LOG_H
#define GR_LOG_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/file.h"
#include "core/loop.h"
#include "core/str.h"
#include "core/worker.h"
#include "proto/records.h"

typedef struct gr_logs gr_logs_t;
typedef struct gr_log gr_log_t;

/* Per-log settings: Kafka's topic-level configs (broker defaults applied by
 * the caller). */
typedef struct gr_log_config {
    int64_t segment_bytes;        /* segment.bytes */
    int64_t segment_ms;           /* segment.ms: roll after this age */
    int64_t retention_ms;         /* retention.ms, -1: forever */
    int64_t retention_bytes;      /* retention.bytes, -1: unlimited */
    int64_t flush_messages;       /* flush.messages (INT64_MAX: never) */
    int64_t flush_ms;             /* flush.ms (INT64_MAX: never) */
    int32_t index_interval_bytes; /* index.interval.bytes */
    int32_t segment_index_bytes;  /* segment.index.bytes: index file cap */
    int64_t file_delete_delay_ms; /* file.delete.delay.ms (unused: files go
                                     at once; slices keep their fds) */
    bool preallocate;             /* preallocate (unused) */
    bool cleanup_delete;          /* cleanup.policy has delete */
    bool cleanup_compact;         /* cleanup.policy has compact */
    int64_t delete_retention_ms;  /* delete.retention.ms: tombstones stay */
    int64_t min_compaction_lag_ms; /* min.compaction.lag.ms */
    int64_t max_compaction_lag_ms; /* max.compaction.lag.ms */
    double min_cleanable_ratio;    /* min.cleanable.dirty.ratio */
} gr_log_config_t;

/* Kafka's defaults (segment 1 GiB, 7 days, no size limit, ...). */
void gr_log_config_default(gr_log_config_t *cfg);

/* --- the manager of every log in one directory */

/* Opens dir (created if missing): reads the checkpoints and notes whether
 * the last shutdown was clean (the marker is then removed, so a crash
 * leaves none). max_open_files bounds the segment files kept open (least
 * recently used are closed). workers run fsyncs and checkpoint writes;
 * loop and workers must outlive m. NULL with *err set. */
gr_logs_t *gr_logs_open(const char *dir, gr_loop_t *loop,
                        gr_workers_t *workers, int max_open_files,
                        gr_err_t *err);
/* Clean shutdown: writes indexes, fsyncs every log, writes the checkpoints
 * and the clean-shutdown marker, closes every log. */
void gr_logs_close(gr_logs_t *m);
/* Finishes the deletion of topic (id, nparts) a crash cut short: each
 * <topic>-<p> directory whose partition.metadata names id goes as a
 * deletion removes it (renamed <topic>-<p>.<id>-delete, then removed by a
 * worker), with a log line; so does any other <topic>-<p> with p >=
 * live_nparts (the partitions of a live topic of that name; 0 if none).
 * Returns how many. Loop thread. */
int gr_logs_finish_deletion(gr_logs_t *m, const char *topic,
                            const gr_uuid_t *id, int32_t nparts,
                            int32_t live_nparts);
/* While held, the directories of deleted logs wait (the renames aside
 * start at the last release), so a deletion whose record is not yet
 * durable moves nothing a crash could not bring back; making or opening
 * a partition directory still renames every waiting one first. */
void gr_logs_trash_hold(gr_logs_t *m);
void gr_logs_trash_release(gr_logs_t *m);
/* The deletion of topic id could not be stored (its topic comes back at
 * the next start): its directories still waiting stay where they are,
 * with their records. Returns how many. */
int gr_logs_trash_keep(gr_logs_t *m, const gr_uuid_t *id);
/* cb(arg) runs on the loop each time the last directory queued for
 * removal is gone: every rename aside made durable and the directories
 * removed, none waiting. */
void gr_logs_on_trash_idle(gr_logs_t *m, void (*cb)(void *arg), void *arg);
/* Whether the previous shutdown was clean (as found by gr_logs_open). */
bool gr_logs_was_clean(const gr_logs_t *m);
/* Periodic work: retention (delete segments by time, size and log start
 * offset), flush.ms, checkpoints (written on a worker when changed). Called
 * from a broker timer; returns the number of segments deleted. now_ms is
 * wall-clock. */
int gr_logs_maintain(gr_logs_t *m, int64_t now_ms);
/* Segment files open right now (for tests and limits). */
int gr_logs_open_files(const gr_logs_t *m);

/* --- compaction (cleaner.c): Kafka's log cleaner for logs whose
 * cleanup.policy has compact. The dirtiest log (uncleaned bytes over all
 * bytes above its min.cleanable.dirty.ratio, or data older than
 * max.compaction.lag.ms, or tombstones past their delete horizon) is
 * cleaned on a worker thread: the latest record of every key is kept with
 * its offset, older ones and expired tombstones go, the active segment and
 * data younger than min.compaction.lag.ms are not touched. Cleaned
 * segments are written beside the old ones (.cleaned, renamed .swap once
 * fsynced) and swapped in on the loop; a crash at any point loses nothing
 * (recovery completes or drops the swap). Readers holding file ranges of
 * replaced segments keep reading them. */

typedef struct gr_log_cleaner_stats {
    int64_t cleanings;     /* finished and swapped in */
    int64_t aborted;       /* thrown away (log changed or deleted, error) */
    int64_t bytes_read;    /* of the segments cleaned */
    int64_t bytes_written; /* of the cleaned segments */
    int64_t records_removed;
    int64_t last_duration_us;
} gr_log_cleaner_stats_t;

/* threads: cleanings at once (0: no cleaning); dedupe_bytes: key map budget
 * of a cleaning (log.cleaner.dedupe.buffer.size / threads as Kafka). */
void gr_logs_set_cleaner(gr_logs_t *m, int threads, int64_t dedupe_bytes);
/* Starts cleanings on the dirtiest compacted logs while threads allow
 * (called from a timer, log.cleaner.backoff.ms; a finished cleaning looks
 * for the next at once). Returns how many were started. now_ms: wall. */
int gr_logs_clean(gr_logs_t *m, int64_t now_ms);
const gr_log_cleaner_stats_t *gr_logs_cleaner_stats(const gr_logs_t *m);
/* The first offset not yet cleaned (the cleaner checkpoint). */
int64_t gr_log_clean_offset(const gr_log_t *l);
/* Whether a cleaning of l is in flight. */
bool gr_log_cleaning(const gr_log_t *l);

/* Transactions as the partition's producer state sees them
 * (log/producer_state.c sets this when it loads; NULL clears): the cleaner
 * compacts nothing at or past the first unstable offset, leaves the
 * records of aborted transactions out of its key map and out of the
 * cleaned segments (Kafka's Cleaner with the transaction index), and
 * reports segments it merged, so the aborted-transaction index follows.
 * Loop thread only. */
typedef struct gr_log_txns {
    int64_t (*first_unstable)(void *arg); /* -1: no transaction open */
    /* The aborted transactions overlapping [from, to) as (producer id,
     * first offset, marker offset) triples in a malloc'ed *out; the count,
     * or -1 on ENOMEM. */
    int (*aborted)(void *arg, int64_t from, int64_t to, int64_t **out);
    /* The segments based in [base, end) were replaced by one based at
     * base. */
    void (*merged)(void *arg, int64_t base, int64_t end);
    void *arg;
} gr_log_txns_t;
void gr_log_set_txns(gr_log_t *l, const gr_log_txns_t *t);

/* --- one partition */

/* Opens (creating when missing) the log of topic/partition: loads its
 * segments, recovers what lies past the recovery point after an unclean
 * shutdown (truncating a torn or corrupt tail to the last valid batch, with
 * a log line), rebuilds missing or damaged indexes. Segment files are
 * opened lazily. topic_id is written to partition.metadata. */
gr_log_t *gr_log_open(gr_logs_t *m, const char *topic, int32_t partition,
                      const gr_uuid_t *topic_id, const gr_log_config_t *cfg,
                      gr_err_t *err);

/* A new partition's directory, made on a worker ahead of gr_log_open(). */
typedef struct gr_log_prep {
    char *topic; /* the caller's until done() */
    int32_t partition;
    gr_uuid_t topic_id;
    bool segment; /* set by gr_logs_prepare: make the empty first segment */
    int err;      /* errno of the worker's first failure, 0 */
} gr_log_prep_t;

/* Makes, on a worker, each item's partition directory with its
 * partition.metadata and an empty first segment, as gr_log_open() makes
 * them, so that gr_log_open() on the loop afterwards only opens files:
 * creating inodes is the slow part of a new partition (0.1-2 ms each on
 * ext4 here, 10,000 partitions in a request). A directory that exists is
 * left alone (gr_log_open deals with it). done(loop, arg) runs on the loop;
 * the items stay the caller's until then. 0, or -1 when nothing was queued
 * (open directly). */
int gr_logs_prepare(gr_logs_t *m, gr_log_prep_t *items, int n, gr_done_fn done,
                    void *arg);
/* Makes the queued gr_logs_prepare() jobs stop early (gr_logs_close). */
void gr_logs_prepare_cancel(void);
/* A prepared partition that was deleted before it was opened: removes its
 * directory if partition.metadata still names item->topic_id. */
void gr_logs_prepared_unused(gr_logs_t *m, const gr_log_prep_t *item);

/* Applies new settings (effective at once: the next append, roll or
 * retention pass). */
void gr_log_set_config(gr_log_t *l, const gr_log_config_t *cfg);
/* Closes the log (its directory stays): writes its indexes and fsyncs its
 * unflushed segments (blocking). */
void gr_log_close(gr_log_t *l);
/* Removes the log and its directory (topic deletion); l is freed. A flush
 * in flight reports GR_ERR_IO. */
gr_err_t gr_log_delete(gr_log_t *l);

const char *gr_log_topic(const gr_log_t *l);
int32_t gr_log_partition(const gr_log_t *l);
int64_t gr_log_start_offset(const gr_log_t *l);
int64_t gr_log_end_offset(const gr_log_t *l); /* LEO: next offset */
int64_t gr_log_size_bytes(const gr_log_t *l); /* all segments */
int gr_log_segment_count(const gr_log_t *l);
/* The largest timestamp in the log and the last offset of the batch that
 * holds it (Kafka's shallow offsetOfMaxTimestampSoFar: ListOffsets
 * MAX_TIMESTAMP reads that batch to find the record); -1/-1 when empty. */
void gr_log_max_timestamp(const gr_log_t *l, int64_t *ts, int64_t *offset);

typedef struct gr_log_append_info {
    int64_t first_offset;  /* base offset given to the first batch */
    int64_t last_offset;   /* last offset of the last batch */
    int64_t max_timestamp; /* largest batch maxTimestamp */
    int64_t log_start_offset;
    bool flush_due;        /* flush.messages reached: flush before acking */
} gr_log_append_info_t;

/* Appends n bytes of whole v2 batches, already validated by the caller
 * (sizes, magic, CRC, count). Assigns offsets from the LEO by patching each
 * batch's baseOffset in buf (and its partitionLeaderEpoch), both outside the
 * CRC. Rolls first when the active segment would pass segment.bytes, is
 * older than segment.ms, or its index is full. Index entries are added every
 * index.interval.bytes. On a failed or short write nothing of buf stays in
 * the log (the segment is truncated back) and GR_ERR_IO or GR_ERR_NOSPACE
 * is returned; the log stays usable. GR_ERR_INVALID when buf is not whole
 * batches. One write(2) per call; no allocation in the steady state. */
gr_err_t gr_log_append(gr_log_t *l, uint8_t *buf, size_t n,
                       int32_t leader_epoch, gr_log_append_info_t *info);

/* Kafka's appendAsFollower: n bytes of whole v2 batches of the leader
 * (validated by the caller: sizes, magic, CRC) appended as they are, their
 * offsets and leader epochs kept; each batch's epoch enters the leader
 * epoch cache where it starts (the cache file follows). GR_ERR_INVALID,
 * nothing appended, when a batch is based below the log end or below the
 * end of the batch before it (gaps, as a compacted leader's, are kept).
 * Otherwise as gr_log_append. */
gr_err_t gr_log_append_follower(gr_log_t *l, const uint8_t *buf, size_t n,
                                gr_log_append_info_t *info);
/* Kafka's truncateTo (a follower's truncation by leader epoch): the batch
 * holding offset and everything after it go (segments past it deleted,
 * its segment cut and its indexes rebuilt), the log end becomes that
 * batch's base, the recovery point, high watermark and leader epoch cache
 * follow (the cache's file rewritten). The caller rebuilds the producer
 * state (gr_pstate_load). When offset >= the log end, only the epoch
 * cache's entries starting at or past the log end go (Kafka's
 * truncateFromEnd(logEndOffset) there);
 * GR_ERR_INVALID below the log start, GR_ERR_UNSUPPORTED while a cleaning runs
 * (again later), GR_ERR_IO (logged; the log offline when the file could
 * not be cut). Blocking: one ftruncate and the read of one segment. */
gr_err_t gr_log_truncate_to(gr_log_t *l, int64_t offset);
/* Kafka's truncateFullyAndStartAt (a follower behind the leader's log
 * start): every segment and producer snapshot goes, the log restarts
 * empty at offset (log start, end, recovery point), the leader epoch
 * cache emptied. The caller rebuilds the producer state. GR_ERR_* as
 * gr_log_truncate_to; on a failure to make the new segment the log is
 * as it was. */
gr_err_t gr_log_truncate_fully(gr_log_t *l, int64_t offset);
/* A read: len bytes at pos of file, starting at the batch that holds the
 * requested offset. As Kafka's, the slice may end inside a batch when
 * max_bytes cuts it; it is never empty when a batch is visible and
 * min_one_batch is set (the whole first batch is given even if larger than
 * max_bytes). file is borrowed: gr_file_ref() it to keep it. */
typedef struct gr_log_slice {
    gr_file_t *file;
    int64_t pos;
    int32_t len;
    int64_t first_offset; /* base offset of the first batch, -1 if empty */
    int32_t first_size;   /* bytes of the first batch (more than len when
                             max_bytes cut it), 0 if empty */
    int64_t upper_offset; /* every offset in the slice is below this (the
                             next segment's base or max_offset); -1 if
                             empty */
} gr_log_slice_t;

/* Reads from offset up to (excluding) the batch holding max_offset (the high
 * watermark, or the last stable offset) and those after it: as Kafka, a
 * batch is visible only when all of it lies below max_offset. Returns
 * GR_ERR_NOT_FOUND when offset is below the log start or above the LEO
 * (OFFSET_OUT_OF_RANGE); offset == LEO gives an empty slice. Reads only
 * from one segment, as Kafka does. */
gr_err_t gr_log_read(gr_log_t *l, int64_t offset, int32_t max_bytes,
                     int64_t max_offset, bool min_one_batch,
                     gr_log_slice_t *out);

/* The first batch at or past the log start whose maxTimestamp >= ts (time
 * index, then a scan): its slice (one whole batch) for the caller to search
 * its records. Empty (len 0) when no batch qualifies. */
gr_err_t gr_log_find_timestamp(gr_log_t *l, int64_t ts, gr_log_slice_t *out);

/* Advances the log start offset (DeleteRecords); whole segments below it
 * are deleted by the next maintenance pass. GR_ERR_NOT_FOUND when offset is
 * above the high watermark given. */
gr_err_t gr_log_delete_records(gr_log_t *l, int64_t offset, int64_t hw);

/* Calls cb with every whole batch from the one holding `from` to the log
 * end, in order (batch points into a scratch buffer, valid during the
 * call; cb returns nonzero to stop). For loading state kept in a log
 * (internal topics, producer state). 0 or a GR_ERR_*. */
typedef int (*gr_log_scan_cb)(void *arg, const uint8_t *batch, size_t n);
gr_err_t gr_log_scan(gr_log_t *l, int64_t from, gr_log_scan_cb cb, void *arg);
/* Base offset of the segment holding offset (the last based at or below
 * it), -1 when offset is below the first segment. */
int64_t gr_log_segment_base(const gr_log_t *l, int64_t offset);
/* The partition directory (for files kept beside the segments). */
const char *gr_log_dir(const gr_log_t *l);

/* --- leader epochs (log_epochs.c; the cache is log/epoch.h's): the
 * leader-epoch-checkpoint of the partition directory, loaded at open
 * (rebuilt from the batches when missing, bad or behind), cut when the
 * log start moves, written by a worker after each change. */

/* The latest epoch of the cache, -1 when it has none: the partition's
 * current leader epoch as this log knows it. */
int32_t gr_log_leader_epoch(const gr_log_t *l);
/* A new leader epoch starting at the log end (Kafka's makeLeader:
 * assign(epoch, LEO)); nothing when epoch is not above the latest. 0, or
 * -1 on ENOMEM. */
int gr_log_assign_epoch(gr_log_t *l, int32_t epoch);
/* OffsetForLeaderEpoch's lookup: gr_epochs_end_offset() with the LEO. */
void gr_log_epoch_end_offset(const gr_log_t *l, int32_t requested,
                             int32_t *epoch, int64_t *end_offset);
/* The cache (tests, DescribeLogDirs-like reports). */
const struct gr_epochs *gr_log_epochs(const gr_log_t *l);

/* Makes everything appended so far durable (fsync of the segment files on a
 * worker thread), then calls cb (may be NULL) on the loop with 0 or
 * GR_ERR_IO, and the recovery point moves to the LEO of the call. Flushes
 * requested while one runs are coalesced into one more. If l is closed
 * meanwhile cb still comes (0: the close synced), with GR_ERR_IO if it was
 * deleted; l is then valid only during cb. 0, or -1 (ENOMEM). */
typedef void (*gr_log_flush_cb)(gr_log_t *l, gr_err_t err, void *arg);
int gr_log_flush(gr_log_t *l, gr_log_flush_cb cb, void *arg);
/* Whether an fsync failed, or a failed append could not be cut back: the
 * page cache may no longer hold what the file will, so appends and reads
 * fail with GR_ERR_IO (KAFKA_STORAGE_ERROR) until the log is opened again
 * and recovered from its recovery point. */
bool gr_log_offline(const gr_log_t *l);
/* The partition's high watermark, for replication-offset-checkpoint
 * (written with the other checkpoints; -1: no line). */
void gr_log_set_high_watermark(gr_log_t *l, int64_t hw);
/* Offset up to which the log is known durable (recovery point). */
int64_t gr_log_recovery_point(const gr_log_t *l);

#endif
