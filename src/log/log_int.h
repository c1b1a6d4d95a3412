/*
 * Private structures of src/log/: the manager (logs.c), a partition log
 * (log.c), its opening and recovery (loader.c) and what they share. Tests
 * include this to look inside.
 */
#ifndef GR_LOG_LOG_INT_H
#define GR_LOG_LOG_INT_H

#include "log/epoch.h"
#include "log/log.h"
#include "log/segment.h"

#include <errno.h>

#define GR_LOG_CLEAN_MARKER   ".kafka_cleanshutdown"
#define GR_LOG_RP_CHECKPOINT  "recovery-point-offset-checkpoint"
#define GR_LOG_LSO_CHECKPOINT "log-start-offset-checkpoint"
#define GR_LOG_METADATA       "partition.metadata"
#define GR_LOG_CLEANER_CHECKPOINT "cleaner-offset-checkpoint"
#define GR_LOG_HW_CHECKPOINT  "replication-offset-checkpoint"

/* Batches of the active segment remembered for reads near the log end
 * (consumers tail the log): a read there needs no index and no scan. */
#define GR_LOG_RECENT 32

typedef struct gr_recent {
    int64_t base; /* base offset of the batch */
    int64_t last; /* last offset */
    int64_t pos;  /* position in the active segment */
    int32_t size; /* bytes */
} gr_recent_t;

typedef struct gr_flush_waiter {
    gr_log_flush_cb cb;
    void *arg;
} gr_flush_waiter_t;

typedef struct gr_flush_job gr_flush_job_t;

/* One line of the checkpoint files, for an open log or one known only from
 * the files (kept so closing or not opening a log loses nothing). */
typedef struct gr_ckpt {
    char *topic; /* NULL: removed (log deleted) */
    int32_t partition;
    int64_t recovery_point; /* -1: not in the file */
    int64_t start_offset;   /* -1: not in the file */
    int64_t clean_offset;   /* -1: not in the file */
    int64_t high_watermark; /* -1: not in the file */
    int64_t closing_rp;     /* gr_logs_close: the recovery point once the
                             * final syncfs succeeds; -1 otherwise */
    gr_log_t *log;          /* the open log, or NULL */
} gr_ckpt_t;

struct gr_log {
    gr_logs_t *m;
    gr_log_t *prev, *next; /* m->logs */
    char *topic;
    int32_t partition;
    gr_uuid_t topic_id; /* zero when opened without one */
    char *dir;          /* <log dir>/<topic>-<partition> */
    gr_log_config_t cfg;

    gr_segment_t **segs; /* by base offset; the last is active */
    int nsegs, segs_cap;

    int64_t start_offset;   /* log start offset */
    int64_t leo;            /* log end offset: next offset */
    int64_t recovery_point; /* everything below is durable */
    int64_t size_bytes;     /* all segments */

    gr_recent_t recent[GR_LOG_RECENT]; /* ring of the active segment */
    int recent_n, recent_head;         /* head: next slot */

    /* flush (log.c): one job at a time, later requests wait for the next */
    gr_flush_job_t *flushing;
    bool flush_again;
    gr_flush_waiter_t *next_waiters;
    int next_waiters_n, next_waiters_cap;
    int64_t last_flush_ms; /* wall clock of the last flush done (flush.ms) */

    bool offline; /* an fsync or a cut-back failed: I/O errors until the
                     log is opened again (Kafka takes the dir offline) */
    int refs;     /* the owner + each flush or clean job in flight */
    bool dead;    /* closed or deleted: only jobs hold it */
    bool deleted; /* its files are gone */

    /* compaction (cleaner.c) */
    int64_t clean_offset;      /* first dirty offset; -1: the log start */
    int64_t delete_horizon_ms; /* earliest tombstone horizon kept, -1 none */
    struct gr_clean_job *cleaning; /* in flight, or NULL */
    gr_log_txns_t txns;            /* all NULL: no transactions known */

    /* leader epochs (log_epochs.c) */
    gr_epochs_t epochs;
    bool epochs_dirty;  /* changed since the last write was queued */
    int32_t last_epoch; /* partitionLeaderEpoch of the last batch the load
                           saw, -1: none seen */
    int64_t hw_ckpt;    /* the high watermark for
                           replication-offset-checkpoint, -1: none */
};

struct gr_logs {
    char *dir;
    gr_loop_t *loop;
    gr_workers_t *workers;
    int refs; /* the owner + a checkpoint job in flight + a trash turn
               * + each trash job */
    bool closed;
    bool closing_all; /* gr_logs_close: one syncfs instead of fsyncs */
    bool was_clean;

    gr_log_t *logs; /* open logs */
    int nlogs;

    /* segment files open: most recently used first */
    gr_segment_t *lru_head, *lru_tail;
    int open_files, max_open_files;

    /* checkpoint table: entries + open-addressing hash of their indexes */
    gr_ckpt_t *ck;
    int nck, ck_cap;
    int32_t *slots; /* -1: empty; index into ck */
    int nslots;     /* power of two, > 2 * nck */
    bool ckpt_dirty;
    struct gr_ckpt_job *ckpt_job; /* in flight, or NULL */

    /* leader-epoch checkpoint writes (log_epochs.c): one job at a time */
    struct gr_epoch_job *epochs_job; /* in flight, or NULL */
    bool epochs_posted; /* a loop turn is posted (holds a reference) */
    bool epochs_again;  /* changes arrived while a job ran */

    /* deleted partition directories waiting to be renamed (logs.c) */
    struct trash_wait *trash_head, *trash_tail;
    bool trash_posted; /* a loop turn is posted (holds a reference) */
    int trash_holds;   /* gr_logs_trash_hold: no renames but flushes */
    int trash_jobs;    /* with a worker (each holds a reference) */
    void (*trash_idle_cb)(void *arg); /* gr_logs_on_trash_idle */
    void *trash_idle_arg;

    /* the cleaner (cleaner.c) */
    int cleaner_threads;  /* cleanings at once; 0: off */
    int64_t dedupe_bytes; /* key map budget per cleaning */
    int cleanings;        /* in flight */
    gr_log_cleaner_stats_t cleaner_stats;

    /* counters for tests and logs */
    int64_t stat_recovered_segments; /* segments scanned by recovery */
    int64_t stat_rebuilt_indexes;    /* segments whose indexes were rebuilt */
};

/* --- shared between log.c and logs.c */

/* The open .log of seg (opened and put first in the LRU; other segments'
 * files may be closed to stay within max_open_files); NULL if it cannot be
 * opened (logged). The pointer is valid until the next call that may open
 * a file: gr_file_ref() it to keep it. */
gr_file_t *gr_logs_seg_file(gr_logs_t *m, const gr_log_t *l, gr_segment_t *seg);
/* Takes fd (an open .log of seg) into the LRU. -1 on ENOMEM. */
int gr_logs_seg_adopt(gr_logs_t *m, gr_segment_t *seg, int fd);
/* Drops seg's file from the LRU (the fd closes when the last slice
 * holding it is released). */
void gr_logs_seg_release(gr_logs_t *m, gr_segment_t *seg);

/* Checkpoint entry of topic/partition, NULL if none. */
gr_ckpt_t *gr_logs_ckpt_find(gr_logs_t *m, const char *topic,
                             int32_t partition);
/* The entry, added (with -1 values) when missing; NULL on ENOMEM. */
gr_ckpt_t *gr_logs_ckpt_get(gr_logs_t *m, const char *topic, int32_t partition);
/* Writes both checkpoint files now (tmp, fsync, rename, fsync dir). */
gr_err_t gr_logs_ckpt_write_now(gr_logs_t *m);
/* fsync of a directory; 0 or GR_ERR_IO (logged). */
gr_err_t gr_logs_fsync_dir(const char *dir);
/* Writes dir/name atomically: a .tmp file, fsync, rename, fsync of dir.
 * Any thread. */
gr_err_t gr_logs_write_atomic(const char *dir, const char *name,
                              const char *data, size_t n);
/* The same without the fsyncs: readers see old or new contents, never a
 * mix, but a crash may lose the file (what it says is known elsewhere). */
gr_err_t gr_logs_write_replace(const char *dir, const char *name,
                               const char *data, size_t n);
/* The same without fsync or log lines, for workers: 0 or an errno. */
int gr_logs_replace_quiet(const char *dir, const char *name, const char *data,
                          size_t n);
/* The same with the fsyncs (file, then dir), for workers: 0 or an errno. */
int gr_logs_replace_durable_quiet(const char *dir, const char *name,
                                  const char *data, size_t n);

/* Closes l (not freed: the caller drops its reference): writes its
 * indexes, fsyncs its unflushed segments, records its offsets in the
 * checkpoint table and leaves the manager. false if an fsync failed. */
bool gr_log_close_internal(gr_log_t *l);
/* One log's part of gr_logs_maintain: retention (returns the segments
 * deleted) and flush.ms. */
int gr_log_periodic(gr_log_t *l, int64_t now_ms);
/* Removes dir and everything in it (any thread). 0 or -1 (errno). */
int gr_logs_rmrf(const char *dir);
/* Whether dir's partition.metadata names topic id (as gr_log_open
 * writes it). */
bool gr_log_dir_names(const char *dir, const gr_uuid_t *id);
/* The path, in log dir m->dir, of partition directory aside:
 * <topic>-<partition>.<tag><suffix> (suffix "-delete" or "-stray"), the
 * topic cut so that the name fits 255 bytes, as Kafka's LocalLog
 * logDirNameWithSuffixCappedLength cuts it (a 249-character topic's
 * directory has no room for a suffix). out holds GR_SEG_PATH_MAX bytes. */
void gr_logs_aside_path(const gr_logs_t *m, char *out, const char *topic,
                        int32_t partition, const char *tag, const char *suffix);
/* Moves a partition directory aside (<topic>-<p>.<id>-delete, Kafka's
 * name) over the next loop turns and removes it on a worker. */
void gr_logs_trash_dir(gr_logs_t *m, const char *dir, const char *topic,
                       int32_t partition, const gr_uuid_t *topic_id);
/* Moves aside at once every directory gr_logs_trash_dir queued (at
 * close). */
void gr_logs_trash_flush(gr_logs_t *m);
/* Before topic-partition's directory is made or opened, so that no waiting
 * rename can take it: every waiting directory goes now, or while the
 * renames are held (a deletion not yet durable) only those of that name,
 * and the others keep waiting for the release. */
void gr_logs_trash_flush_for(gr_logs_t *m, const char *topic,
                             int32_t partition);
/* Directories waiting to be moved aside. */
int gr_logs_trash_waiting(const gr_logs_t *m);
/* The cleaner's part of closing or deleting l (cleaner.c): a cleaning in
 * flight is left to finish and be thrown away. */
void gr_log_cleaner_forget(gr_log_t *l);
/* For cleaner.c: the largest timestamp of segs[i] (its file's mtime when
 * it has none); the maxTimestamp of its first batch (-1: none); replaces
 * segs[from, from + n) (never the active segment) by seg in memory (their
 * files are the caller's; fds in slices stay valid). */
gr_err_t gr_log_seg_max_ts(gr_log_t *l, int i, int64_t *ts);
int64_t gr_log_seg_first_ts(gr_log_t *l, int i);
gr_err_t gr_log_seg_replace(gr_log_t *l, int from, int n, gr_segment_t *seg);
/* The index of the segment holding offset (the last based at or below
 * it), -1 when below the first. */
int gr_log_seg_find(const gr_log_t *l, int64_t offset);

/* log_epochs.c, for log.c and loader.c: loads (or rebuilds) the cache at
 * open, after recovery (recovery_point: the checkpoint's, -1 none); 0 or
 * GR_ERR_*. */
gr_err_t gr_log_epochs_load(gr_log_t *l, int64_t recovery_point);
/* An append of batches stamped epoch starting at base_offset. */
void gr_log_epochs_appended(gr_log_t *l, int32_t epoch, int64_t base_offset);
/* l->start_offset moved up (DeleteRecords, retention). */
void gr_log_epochs_start_moved(gr_log_t *l);
/* The log end moved back (a truncation): the entries from it go. */
void gr_log_epochs_end_moved(gr_log_t *l);
/* The cache emptied (the log restarted elsewhere): written empty. */
void gr_log_epochs_cleared(gr_log_t *l);
/* Waits for a write of l's file in flight (close, deletion). */
void gr_log_epochs_wait(gr_log_t *l);
/* Close: writes the cache if changed (fsynced unless the manager's syncfs
 * follows) and frees it. */
void gr_log_epochs_close(gr_log_t *l);

/* Drops a reference; the last frees l. */
void gr_log_unref(gr_log_t *l);
void gr_logs_unref(gr_logs_t *m);

/* --- shared between log.c and loader.c */

/* The active segment: the last. */
static inline gr_segment_t *
gr_log_active_seg(const gr_log_t *l)
{
    return l->segs[l->nsegs - 1];
}

/* What recovery may accept in segs[i]: below the next base. */
static inline int64_t
gr_log_seg_limit(const gr_log_t *l, int i)
{
    return i + 1 < l->nsegs ? l->segs[i + 1]->base : INT64_MAX;
}

/* A failed create or write's errno as an error: GR_ERR_NOSPACE for
 * ENOSPC, GR_ERR_IO otherwise. */
static inline gr_err_t
gr_log_errno_err(int e)
{
    return e == ENOSPC ? GR_ERR_NOSPACE : GR_ERR_IO;
}

/* Adds seg after the last segment; GR_ERR_NOMEM. */
gr_err_t gr_log_seg_push(gr_log_t *l, gr_segment_t *seg);
/* Removes segs[from, from + n) from the log; their files are deleted when
 * unlink_files (slices handed out keep their fds). */
void gr_log_seg_remove(gr_log_t *l, int from, int n, bool unlink_files);
/* Creates an empty segment at base (and its empty index files) and takes
 * its fd into the LRU. NULL with *err. */
gr_segment_t *gr_log_seg_create(gr_log_t *l, int64_t base, gr_err_t *err);
/* Loads one index of segs[i] (the time index when time_index) that is not
 * in memory yet, rebuilding both when it is missing or damaged. */
gr_err_t gr_log_seg_ensure_index(gr_log_t *l, int i, bool time_index);
/* Remembers a batch of the active segment for reads near the log end. */
void gr_log_recent_push(gr_log_t *l, int64_t base, int64_t last, int64_t pos,
                        int32_t size);
/* Frees l, which holds no segment any more (the last reference gone, or
 * an open that failed). */
void gr_log_free(gr_log_t *l);
/* Puts l in the manager's list of open logs. */
void gr_log_link(gr_logs_t *m, gr_log_t *l);
/* The most log.c reserves at a time ahead of a growing segment's data
 * (fallocate, the size kept). */
#define GR_LOG_PREALLOC_MAX (64 << 20)
/* Gives back what was reserved past seg's data (up to seg->prealloc_end). */
void gr_log_seg_trim(gr_log_t *l, gr_segment_t *seg);

#endif
