/*
 * A partition log once open (Kafka's UnifiedLog and LocalLog): its
 * segments in memory, appends and rolls, reads, timestamp lookups,
 * DeleteRecords, retention, flushes, closing and deleting, and scans for
 * the state kept in a log. Making, opening and recovering a partition
 * directory is loader.c's (Kafka's LogLoader); the fd LRU and the
 * checkpoint files belong to the manager (logs.c); segment files and
 * indexes to segment.c. Loop thread only; flush jobs fsync on a worker and
 * report back on the loop.
 *
 * Invariants: segs is sorted by base offset and never empty once open; the
 * last segment is active and ends at the LEO (its size is the LEO's file
 * position); start_offset >= segs[0]->base; recovery_point <= leo.
 */
#include "log/log_int.h"

#include "core/fault.h"
#include "core/log.h"
#include "core/time.h"
#include "proto/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A flush on a worker. It names its segments by base offset and opens each
 * only for its fdatasync, so queued jobs hold no fds (the open file budget
 * stays the LRU's); a segment deleted meanwhile needs no sync. */
struct gr_flush_job {
    gr_log_t *l;  /* referenced; l->dir never changes */
    int64_t upto; /* LEO when submitted: the new recovery point */
    bool fail;    /* GR_FAULT("log.fsync"), decided on the loop */
    int err;      /* errno of the first failed sync (worker) */
    gr_flush_waiter_t *waiters;
    int nwaiters;
    int nsegs;
    int64_t bases[]; /* segments to sync */
};

void
gr_log_config_default(gr_log_config_t *cfg)
{
    cfg->segment_bytes = 1073741824; /* 1 GiB */
    cfg->segment_ms = 604800000;     /* 7 days */
    cfg->retention_ms = 604800000;   /* 7 days */
    cfg->retention_bytes = -1;
    cfg->flush_messages = INT64_MAX;
    cfg->flush_ms = INT64_MAX;
    cfg->index_interval_bytes = 4096;
    cfg->segment_index_bytes = 10485760; /* 10 MiB */
    cfg->file_delete_delay_ms = 60000;
    cfg->preallocate = false;
    cfg->cleanup_delete = true;
    cfg->cleanup_compact = false;
    cfg->delete_retention_ms = 86400000; /* 1 day */
    cfg->min_compaction_lag_ms = 0;
    cfg->max_compaction_lag_ms = INT64_MAX;
    cfg->min_cleanable_ratio = 0.5;
}

/* The base offset of the segment after segs[i], or the LEO for the last:
 * every offset of segs[i] is below it. */
static inline int64_t
seg_end_offset(const gr_log_t *l, int i)
{
    return i + 1 < l->nsegs ? l->segs[i + 1]->base : l->leo;
}

static int64_t
seg_max_rel(const gr_log_t *l, int i)
{
    int64_t lim = gr_log_seg_limit(l, i);
    if (lim == INT64_MAX || lim - 1 - l->segs[i]->base > INT32_MAX)
        return INT32_MAX;
    return lim - 1 - l->segs[i]->base;
}

/* Index of the segment holding offset: the last with base <= offset; -1 if
 * offset is below the first. */
static int
seg_find(const gr_log_t *l, int64_t offset)
{
    int lo = 0, hi = l->nsegs;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (l->segs[mid]->base <= offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

int
gr_log_seg_find(const gr_log_t *l, int64_t offset)
{
    return seg_find(l, offset);
}

gr_err_t
gr_log_seg_push(gr_log_t *l, gr_segment_t *seg)
{
    if (l->nsegs == l->segs_cap) {
        int cap = l->segs_cap ? l->segs_cap * 2 : 8;
        gr_segment_t **p = realloc(l->segs, (size_t)cap * sizeof(*p));
        if (p == NULL)
            return GR_ERR_NOMEM;
        l->segs = p;
        l->segs_cap = cap;
    }
    l->segs[l->nsegs++] = seg;
    return 0;
}

static void
seg_unlink_files(const gr_log_t *l, const gr_segment_t *seg)
{
    static const char *const suffixes[] = { ".log", ".index", ".timeindex",
                                             ".txnindex" };
    char path[GR_SEG_PATH_MAX];
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        gr_segment_path(path, l->dir, seg->base, suffixes[i]);
        if (unlink(path) != 0 && errno != ENOENT)
            GR_LOG_ERROR("cannot delete %s: %s", path, strerror(errno));
    }
}

void
gr_log_seg_remove(gr_log_t *l, int from, int n, bool unlink_files)
{
    if (n == 0)
        return;
    for (int i = from; i < from + n; i++) {
        gr_segment_t *seg = l->segs[i];
        l->size_bytes -= seg->size;
        if (unlink_files)
            seg_unlink_files(l, seg);
        gr_logs_seg_release(l->m, seg);
        gr_segment_free(seg);
    }
    memmove(l->segs + from, l->segs + from + n,
            (size_t)(l->nsegs - from - n) * sizeof(l->segs[0]));
    l->nsegs -= n;
}

gr_segment_t *
gr_log_seg_create(gr_log_t *l, int64_t base, gr_err_t *err)
{
    char path[GR_SEG_PATH_MAX];
    gr_segment_t *seg;
    struct stat st;
    int fd;

    gr_segment_path(path, l->dir, base, ".log");
    if (GR_FAULT("log.segment", path)) {
        fd = -1;
        errno = EIO;
    } else {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    }
    if (fd < 0) {
        GR_LOG_ERROR("cannot create %s: %s", path, strerror(errno));
        *err = gr_log_errno_err(errno);
        return NULL;
    }
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        GR_LOG_WARN("%s exists with %lld bytes: emptying it", path,
                    (long long)st.st_size);
        if (ftruncate(fd, 0) != 0) {
            GR_LOG_ERROR("cannot truncate %s: %s", path, strerror(errno));
            close(fd);
            *err = GR_ERR_IO;
            return NULL;
        }
    }
    seg = gr_segment_new(base, gr_loop_wall_ms(l->m->loop));
    if (seg == NULL || gr_logs_seg_adopt(l->m, seg, fd) != 0) {
        if (seg == NULL)
            close(fd);
        gr_segment_free(seg);
        *err = GR_ERR_NOMEM;
        return NULL;
    }
    seg->oidx.loaded = true;
    seg->tidx.loaded = true;
    seg->max_ts_known = true;
    seg->first_ts_known = false;
    /* empty index files, so the directory looks like Kafka's */
    gr_segment_path(path, l->dir, base, ".index");
    gr_index_write(path, GR_OIDX_ENTRY, &seg->oidx, true);
    gr_segment_path(path, l->dir, base, ".timeindex");
    gr_index_write(path, GR_TIDX_ENTRY, &seg->tidx, true);
    return seg;
}

/* Rebuilds segs[i]'s indexes from its .log (Kafka's recoverSegment). */
static gr_err_t
seg_rebuild(gr_log_t *l, int i)
{
    gr_segment_t *seg = l->segs[i];
    gr_file_t *f = gr_logs_seg_file(l->m, l, seg);
    gr_recovery_t r;
    gr_err_t err;

    if (f == NULL)
        return GR_ERR_IO;
    err = gr_segment_recover(seg, f->fd, l->dir, l->cfg.index_interval_bytes,
                             gr_log_seg_limit(l, i), &r);
    l->m->stat_rebuilt_indexes++;
    l->size_bytes -= r.truncated;
    return err;
}

gr_err_t
gr_log_seg_ensure_index(gr_log_t *l, int i, bool time_index)
{
    gr_segment_t *seg = l->segs[i];
    gr_index_t *ix = time_index ? &seg->tidx : &seg->oidx;
    char path[GR_SEG_PATH_MAX];
    const char *why = NULL;
    gr_err_t err;

    if (ix->loaded && !seg->rebuild)
        return 0;
    if (!seg->rebuild) {
        gr_segment_path(path, l->dir, seg->base,
                        time_index ? ".timeindex" : ".index");
        err =
            gr_index_read(path, time_index ? GR_TIDX_ENTRY : GR_OIDX_ENTRY, ix);
        if (err == GR_ERR_NOT_FOUND)
            why = "missing";
        else if (err == GR_ERR_CORRUPT)
            why = "size not a multiple of the entry size";
        else if (err != 0)
            return err;
        else if (time_index)
            why = gr_tidx_check(ix, seg_max_rel(l, i));
        else
            why = gr_oidx_check(ix, seg_max_rel(l, i), seg->size);
        if (why == NULL)
            return 0;
        GR_LOG_WARN("%s: %s, rebuilding the indexes of the segment", path, why);
    }
    return seg_rebuild(l, i);
}

/* The largest timestamp of segs[i] and its batch's last offset, from
 * memory or the last entry of its time index (Kafka's
 * readMaxTimestampAndOffsetSoFar). */
static gr_err_t
seg_max_ts(gr_log_t *l, int i, int64_t *ts, int64_t *offset)
{
    gr_segment_t *seg = l->segs[i];

    if (!seg->max_ts_known) {
        int64_t t = -1;
        uint32_t rel = 0;
        if (!seg->tidx.loaded && !seg->rebuild) {
            /* read only the last entry: retention asks every segment */
            char path[GR_SEG_PATH_MAX];
            uint8_t e[GR_TIDX_ENTRY];
            struct stat st;
            int fd;
            gr_segment_path(path, l->dir, seg->base, ".timeindex");
            fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd >= 0 && fstat(fd, &st) == 0 &&
                st.st_size % GR_TIDX_ENTRY == 0) {
                if (st.st_size == 0 ||
                    pread(fd, e, sizeof e, st.st_size - GR_TIDX_ENTRY) ==
                        (ssize_t)sizeof e) {
                    if (st.st_size > 0) {
                        t = (int64_t)gr_get_u64(e);
                        rel = gr_get_u32(e + 8);
                    }
                    if ((int64_t)rel <= seg_max_rel(l, i)) {
                        seg->max_ts = t;
                        seg->max_ts_offset = t >= 0 ? seg->base + rel : -1;
                        seg->max_ts_known = true;
                    }
                }
            }
            if (fd >= 0)
                close(fd);
        }
        if (!seg->max_ts_known) {
            gr_err_t err = gr_log_seg_ensure_index(l, i, true);
            if (err != 0)
                return err;
            if (!seg->max_ts_known) {
                gr_tidx_last(&seg->tidx, &t, &rel);
                seg->max_ts = t;
                seg->max_ts_offset = t >= 0 ? seg->base + rel : -1;
                seg->max_ts_known = true;
            }
        }
    }
    *ts = seg->max_ts;
    if (offset)
        *offset = seg->max_ts_offset;
    return 0;
}

gr_err_t
gr_log_seg_max_ts(gr_log_t *l, int i, int64_t *ts)
{
    gr_err_t err = seg_max_ts(l, i, ts, NULL);
    if (err == 0 && *ts < 0) {
        /* no timestamps: the file's age, as Kafka's largestTimestamp */
        char path[GR_SEG_PATH_MAX];
        struct stat st;
        gr_segment_path(path, l->dir, l->segs[i]->base, ".log");
        if (stat(path, &st) == 0)
            *ts = (int64_t)st.st_mtim.tv_sec * 1000 +
                  st.st_mtim.tv_nsec / 1000000;
    }
    return err;
}

int64_t
gr_log_seg_first_ts(gr_log_t *l, int i)
{
    gr_segment_t *seg = l->segs[i];
    if (!seg->first_ts_known && seg->size > 0) {
        gr_file_t *f = gr_logs_seg_file(l->m, l, seg);
        gr_batch_hdr_t h;
        const char *why;
        int64_t pos;
        gr_scan_t sc;
        if (f != NULL) {
            gr_scan_init(&sc, f->fd, 0, seg->size);
            if (gr_scan_next(&sc, &h, &pos, &why) == 1) {
                seg->first_ts = h.max_timestamp;
                seg->first_ts_known = true;
            }
        }
    }
    return seg->first_ts_known ? seg->first_ts : -1;
}

gr_err_t
gr_log_seg_replace(gr_log_t *l, int from, int n, gr_segment_t *seg)
{
    GR_ASSERT(from >= 0 && n >= 1 && from + n < l->nsegs); /* not active */
    gr_log_seg_remove(l, from + 1, n - 1, false);
    l->size_bytes -= l->segs[from]->size;
    gr_logs_seg_release(l->m, l->segs[from]);
    gr_segment_free(l->segs[from]);
    l->segs[from] = seg;
    l->size_bytes += seg->size;
    return 0;
}

/* --- the recent batches of the active segment */

void
gr_log_recent_push(gr_log_t *l, int64_t base, int64_t last, int64_t pos,
                   int32_t size)
{
    gr_recent_t *r = &l->recent[l->recent_head];
    r->base = base;
    r->last = last;
    r->pos = pos;
    r->size = size;
    l->recent_head = (l->recent_head + 1) % GR_LOG_RECENT;
    if (l->recent_n < GR_LOG_RECENT)
        l->recent_n++;
}

static inline const gr_recent_t *
recent_at(const gr_log_t *l, int k) /* k: 0 oldest .. recent_n - 1 */
{
    int i = (l->recent_head - l->recent_n + k + GR_LOG_RECENT) % GR_LOG_RECENT;
    return &l->recent[i];
}

/* The remembered batch holding offset (offset < LEO), or NULL. */
static const gr_recent_t *
recent_find(const gr_log_t *l, int64_t offset)
{
    int lo = 0, hi = l->recent_n;
    if (l->recent_n == 0 || offset < recent_at(l, 0)->base)
        return NULL;
    while (lo < hi) { /* first with last >= offset */
        int mid = lo + (hi - lo) / 2;
        if (recent_at(l, mid)->last < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->recent_n ? recent_at(l, lo) : NULL;
}

/* --- references and the manager's list */

void
gr_log_free(gr_log_t *l)
{
    GR_ASSERT(l->nsegs == 0);
    free(l->segs);
    free(l->next_waiters);
    gr_epochs_fini(&l->epochs);
    free(l->topic);
    free(l->dir);
    free(l);
}

void
gr_log_unref(gr_log_t *l)
{
    if (--l->refs == 0)
        gr_log_free(l);
}

void
gr_log_link(gr_logs_t *m, gr_log_t *l)
{
    l->prev = NULL;
    l->next = m->logs;
    if (m->logs)
        m->logs->prev = l;
    m->logs = l;
    m->nlogs++;
}

static void
log_unlink(gr_logs_t *m, gr_log_t *l)
{
    if (l->prev)
        l->prev->next = l->next;
    else
        m->logs = l->next;
    if (l->next)
        l->next->prev = l->prev;
    l->prev = l->next = NULL;
    m->nlogs--;
}

/* --- blocks reserved ahead of appends */

/* Blocks reserved ahead of a growing segment (fallocate, the size kept):
 * the file system allocates in large extents up front instead of block by
 * block at writeback, which costs about a third of the system time of an
 * append on ext4. The reservation grows with the segment (a partition that
 * writes little reserves nothing) and is released when the segment stops
 * growing (gr_log_seg_trim). */
#define PREALLOC_FROM (1 << 20) /* GR_LOG_PREALLOC_MAX: log_int.h */

static void
seg_prealloc(gr_log_t *l, gr_segment_t *seg, int fd, size_t n)
{
    int64_t need = seg->size + (int64_t)n, start, end, chunk;
    if (need <= seg->prealloc_end || seg->size < PREALLOC_FROM)
        return;
    chunk =
        seg->size < GR_LOG_PREALLOC_MAX ? seg->size : GR_LOG_PREALLOC_MAX;
    start = seg->prealloc_end > seg->size ? seg->prealloc_end : seg->size;
    end = need + chunk;
    if (end > l->cfg.segment_bytes)
        end = need > l->cfg.segment_bytes ? need : l->cfg.segment_bytes;
    if (end <= start)
        return;
    if (fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)start,
                  (off_t)(end - start)) == 0)
        seg->prealloc_end = end;
    else if (errno == EOPNOTSUPP || errno == ENOSYS)
        seg->prealloc_end = INT64_MAX; /* not supported here: stop trying */
    /* else (ENOSPC, ...): the write below finds out and says so */
}

void
gr_log_seg_trim(gr_log_t *l, gr_segment_t *seg)
{
    gr_file_t *f;
    if (seg->prealloc_end <= seg->size || seg->prealloc_end == INT64_MAX)
        return;
    f = gr_logs_seg_file(l->m, l, seg);
    if (f != NULL &&
        fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)seg->size,
                  (off_t)(seg->prealloc_end - seg->size)) != 0)
        GR_LOG_DEBUG("%s/%020" PRId64 ".log: releasing reserved blocks: %s",
                     l->dir, seg->base, strerror(errno));
    seg->prealloc_end = seg->size;
}

void
gr_log_set_config(gr_log_t *l, const gr_log_config_t *cfg)
{
    l->cfg = *cfg;
}

const char *
gr_log_topic(const gr_log_t *l)
{
    return l->topic;
}

int32_t
gr_log_partition(const gr_log_t *l)
{
    return l->partition;
}

int64_t
gr_log_start_offset(const gr_log_t *l)
{
    return l->start_offset;
}

int64_t
gr_log_end_offset(const gr_log_t *l)
{
    return l->leo;
}

int64_t
gr_log_size_bytes(const gr_log_t *l)
{
    return l->size_bytes;
}

int
gr_log_segment_count(const gr_log_t *l)
{
    return l->nsegs;
}

bool
gr_log_offline(const gr_log_t *l)
{
    return l->offline;
}

void
gr_log_set_high_watermark(gr_log_t *l, int64_t hw)
{
    if (hw != l->hw_ckpt) {
        l->hw_ckpt = hw;
        l->m->ckpt_dirty = true;
    }
}

int64_t
gr_log_recovery_point(const gr_log_t *l)
{
    return l->recovery_point;
}

void
gr_log_max_timestamp(const gr_log_t *l_, int64_t *ts, int64_t *offset)
{
    gr_log_t *l = (gr_log_t *)l_; /* may load time index entries */
    *ts = -1;
    *offset = -1;
    for (int i = 0; i < l->nsegs; i++) {
        int64_t t, o;
        if (seg_max_ts(l, i, &t, &o) != 0)
            continue;
        if (t > *ts) {
            *ts = t;
            *offset = o;
        }
    }
}

/* --- appending */

/* Kafka's timeWaitedForRoll: from the first batch's timestamp when it has
 * one, else from the segment's creation (or load) time. */
static int64_t
time_waited(gr_log_t *l, gr_segment_t *seg, int64_t now, int64_t msg_ts)
{
    if (!seg->first_ts_known && seg->size > 0) {
        gr_file_t *f = gr_logs_seg_file(l->m, l, seg);
        gr_batch_hdr_t h;
        const char *why;
        int64_t pos;
        gr_scan_t s;
        if (f != NULL) {
            gr_scan_init(&s, f->fd, 0, seg->size);
            if (gr_scan_next(&s, &h, &pos, &why) == 1) {
                seg->first_ts = h.max_timestamp;
                seg->first_ts_known = true;
            }
        }
    }
    if (seg->first_ts_known && seg->first_ts >= 0)
        return msg_ts - seg->first_ts;
    return now - seg->created_ms;
}

/* Kafka's LogSegment.shouldRoll, for an append of n bytes whose largest
 * timestamp and offset are given. */
static bool
should_roll(gr_log_t *l, gr_segment_t *seg, size_t n, int64_t max_ts,
            int64_t last_offset)
{
    const gr_log_config_t *c = &l->cfg;
    int64_t oidx_max = c->segment_index_bytes / GR_OIDX_ENTRY;
    int64_t tidx_max = c->segment_index_bytes / GR_TIDX_ENTRY;

    if (seg->size == 0)
        return false; /* rolling an empty segment gains nothing */
    return seg->size > c->segment_bytes - (int64_t)n ||
           seg->size > INT32_MAX - (int64_t)n || /* positions are int32 */
           time_waited(l, seg, gr_loop_wall_ms(l->m->loop), max_ts) >
               c->segment_ms ||
           (int64_t)seg->oidx.n >= oidx_max ||
           (int64_t)seg->tidx.n >= tidx_max ||
           last_offset - seg->base > INT32_MAX;
}

/* The segment stops being active: its last time index entry (the largest
 * timestamp) and both index files, trimmed (onBecomeInactiveSegment). */
static void
seg_finish(gr_log_t *l, gr_segment_t *seg)
{
    char path[GR_SEG_PATH_MAX];
    gr_log_seg_trim(l, seg);
    if (seg->max_ts_offset >= 0)
        gr_tidx_maybe_append(&seg->tidx, seg->max_ts,
                             (uint32_t)(seg->max_ts_offset - seg->base));
    gr_segment_path(path, l->dir, seg->base, ".index");
    gr_index_write(path, GR_OIDX_ENTRY, &seg->oidx, true);
    gr_segment_path(path, l->dir, seg->base, ".timeindex");
    gr_index_write(path, GR_TIDX_ENTRY, &seg->tidx, true);
}

static gr_err_t
roll(gr_log_t *l)
{
    gr_segment_t *old = gr_log_active_seg(l), *seg;
    gr_err_t err;

    seg = gr_log_seg_create(l, l->leo, &err);
    if (seg == NULL)
        return err;
    if ((err = gr_log_seg_push(l, seg)) != 0) {
        gr_logs_seg_release(l->m, seg);
        seg_unlink_files(l, seg);
        gr_segment_free(seg);
        return err;
    }
    seg_finish(l, old);
    l->recent_n = 0;
    l->recent_head = 0;
    GR_LOG_DEBUG("%s: rolled segment %" PRId64 " (%" PRId64 " bytes)", l->dir,
                 l->leo, old->size);
    /* as Kafka, the rolled segment is flushed in the background */
    if (gr_log_flush(l, NULL, NULL) != 0)
        GR_LOG_WARN("%s: cannot schedule a flush", l->dir);
    return 0;
}

/* One pwrite at the segment's end (more only after a short write); on
 * failure the file is cut back to its size. */
static gr_err_t
seg_write(gr_log_t *l, gr_segment_t *seg, const uint8_t *buf, size_t n)
{
    gr_file_t *f = gr_logs_seg_file(l->m, l, seg);
    size_t done = 0;
    int e = 0;

    if (f == NULL)
        return GR_ERR_IO;
    seg_prealloc(l, seg, f->fd, n);
    while (done < n) {
        ssize_t w;
        int fault = 0;     /* errno of an injected failure */
        bool torn = false; /* half of it reaches the file first */
        if (GR_FAULT("log.write", l->dir))
            fault = EIO;
        else if (GR_FAULT("log.write.short", l->dir))
            fault = EIO, torn = true;
        else if (GR_FAULT("log.nospace", l->dir))
            fault = ENOSPC, torn = true; /* as a full disk does */
        if (fault == 0) {
            w = pwrite(f->fd, buf + done, n - done,
                       (off_t)(seg->size + (int64_t)done));
        } else {
            w = torn ? pwrite(f->fd, buf + done, (n - done) / 2,
                              (off_t)(seg->size + (int64_t)done))
                     : 0;
            if (w > 0)
                done += (size_t)w;
            w = -1;
            errno = fault;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            e = w < 0 ? errno : EIO;
            break;
        }
        done += (size_t)w;
    }
    if (e == 0)
        return 0;
    GR_LOG_ERROR("%s/%020" PRId64 ".log: append of %zu bytes at %" PRId64
                 " failed after %zu: %s; truncating back",
                 l->dir, seg->base, n, seg->size, done, strerror(e));
    if (ftruncate(f->fd, (off_t)seg->size) != 0) {
        GR_LOG_ERROR("%s/%020" PRId64 ".log: cannot truncate: %s; the "
                     "partition is offline until restart",
                     l->dir, seg->base, strerror(errno));
        l->offline = true;
    }
    return gr_log_errno_err(e);
}

/* gr_log_append (keep false: offsets and leader_epoch given here) and
 * gr_log_append_follower (keep true: buf is not written, its offsets and
 * epochs stay; each batch based at or past the one before's end). */
static gr_err_t
log_append(gr_log_t *l, uint8_t *buf, size_t n, bool keep,
           int32_t leader_epoch, gr_log_append_info_t *info)
{
    int64_t next = l->leo, max_ts = -1, max_ts_off = -1, pos0;
    gr_segment_t *seg;
    uint8_t *p, *end = buf + n;
    gr_err_t err;

    GR_ASSERT(!l->dead);
    if (l->offline)
        return GR_ERR_IO;
    if (n < GR_BATCH_HEADER_SIZE || n > INT32_MAX)
        return GR_ERR_INVALID;
    /* offsets: only the headers are looked at (the caller validated) */
    for (p = buf; p < end;) {
        int64_t last, ts;
        uint32_t len;
        if (end - p < GR_BATCH_HEADER_SIZE)
            return GR_ERR_INVALID;
        len = gr_get_u32(p + GR_BATCH_OFF_LENGTH);
        if (len < GR_BATCH_MIN_LENGTH ||
            (size_t)(end - p) - GR_LOG_OVERHEAD < len)
            return GR_ERR_INVALID;
        if (keep) {
            int64_t base = (int64_t)gr_get_u64(p + GR_BATCH_OFF_BASE_OFFSET);
            if (base < next || base > INT64_MAX - INT32_MAX)
                return GR_ERR_INVALID; /* behind the log end, or absurd */
            next = base;
        } else {
            gr_batch_set_base_offset(p, next);
            gr_batch_set_leader_epoch(p, leader_epoch);
        }
        last = next + (int32_t)gr_get_u32(p + GR_BATCH_OFF_LAST_DELTA);
        ts = (int64_t)gr_get_u64(p + GR_BATCH_OFF_MAX_TS);
        if (ts > max_ts) {
            max_ts = ts;
            max_ts_off = last;
        }
        next = last + 1;
        p += GR_LOG_OVERHEAD + len;
    }

    seg = gr_log_active_seg(l);
    if (should_roll(l, seg, n, max_ts, next - 1)) {
        if ((err = roll(l)) != 0)
            return err;
        seg = gr_log_active_seg(l);
    }
    if ((err = seg_write(l, seg, buf, n)) != 0)
        return err;

    /* as LogSegment.append: one index check per append */
    pos0 = seg->size;
    if (pos0 == 0) {
        seg->first_ts = max_ts;
        seg->first_ts_known = true;
    }
    if (max_ts > seg->max_ts) {
        seg->max_ts = max_ts;
        seg->max_ts_offset = max_ts_off;
    }
    if (seg->since_index > l->cfg.index_interval_bytes) {
        gr_oidx_append(&seg->oidx, (uint32_t)(next - 1 - seg->base),
                       (uint32_t)pos0);
        gr_tidx_maybe_append(&seg->tidx, seg->max_ts,
                             (uint32_t)(seg->max_ts_offset - seg->base));
        seg->since_index = 0;
    }
    seg->since_index += (int64_t)n;
    for (p = buf; p < end;) {
        uint32_t len = gr_get_u32(p + GR_BATCH_OFF_LENGTH);
        int64_t base = (int64_t)gr_get_u64(p + GR_BATCH_OFF_BASE_OFFSET);
        gr_log_recent_push(l, base,
                    base + (int32_t)gr_get_u32(p + GR_BATCH_OFF_LAST_DELTA),
                    pos0 + (p - buf), (int32_t)(len + GR_LOG_OVERHEAD));
        p += GR_LOG_OVERHEAD + len;
    }
    info->first_offset = keep ? (int64_t)gr_get_u64(buf + GR_BATCH_OFF_BASE_OFFSET)
                              : l->leo;
    seg->size += (int64_t)n;
    l->size_bytes += (int64_t)n;
    l->leo = next;
    info->last_offset = next - 1;
    info->max_timestamp = max_ts;
    info->log_start_offset = l->start_offset;
    info->flush_due = l->leo - l->recovery_point >= l->cfg.flush_messages;
    if (!keep) {
        gr_log_epochs_appended(l, leader_epoch, info->first_offset);
        return 0;
    }
    /* the leader's epochs, batch by batch (Kafka's appendAsFollower:
     * maybeAssignEpochStartOffset for each batch) */
    for (p = buf; p < end;) {
        uint32_t len = gr_get_u32(p + GR_BATCH_OFF_LENGTH);
        gr_log_epochs_appended(
            l, (int32_t)gr_get_u32(p + GR_BATCH_OFF_LEADER_EPOCH),
            (int64_t)gr_get_u64(p + GR_BATCH_OFF_BASE_OFFSET));
        p += GR_LOG_OVERHEAD + len;
    }
    return 0;
}

gr_err_t
gr_log_append(gr_log_t *l, uint8_t *buf, size_t n, int32_t leader_epoch,
              gr_log_append_info_t *info)
{
    return log_append(l, buf, n, false, leader_epoch, info);
}

gr_err_t
gr_log_append_follower(gr_log_t *l, const uint8_t *buf, size_t n,
                       gr_log_append_info_t *info)
{
    /* keep: buf is only read */
    return log_append(l, (uint8_t *)(uintptr_t)buf, n, true, -1, info);
}

/* --- reading */

typedef struct batch_loc {
    int64_t pos, base, last, max_ts;
    int32_t size;
} batch_loc_t;

/* The first batch of segs[i] whose last offset >= offset: 1 found, 0 none
 * in this segment, < 0 error. */
static int
seg_locate(gr_log_t *l, int i, int64_t offset, batch_loc_t *loc)
{
    gr_segment_t *seg = l->segs[i];
    gr_batch_hdr_t h;
    const char *why;
    gr_scan_t s;
    gr_file_t *f;
    int64_t pos;
    gr_err_t err;
    int rc;

    if (i == l->nsegs - 1) {
        const gr_recent_t *r = recent_find(l, offset);
        if (r != NULL) {
            loc->pos = r->pos;
            loc->base = r->base;
            loc->last = r->last;
            loc->size = r->size;
            loc->max_ts = -1; /* not remembered */
            return 1;
        }
    }
    if ((err = gr_log_seg_ensure_index(l, i, false)) != 0)
        return err;
    f = gr_logs_seg_file(l->m, l, seg);
    if (f == NULL)
        return GR_ERR_IO;
    gr_scan_init(&s, f->fd, gr_oidx_lookup(&seg->oidx, offset - seg->base),
                 seg->size);
    while ((rc = gr_scan_next(&s, &h, &pos, &why)) == 1) {
        if (gr_batch_last_offset(&h) >= offset) {
            loc->pos = pos;
            loc->base = h.base_offset;
            loc->last = gr_batch_last_offset(&h);
            loc->size = (int32_t)gr_batch_size(&h);
            loc->max_ts = h.max_timestamp;
            return 1;
        }
    }
    if (rc < 0) {
        GR_LOG_ERROR("%s/%020" PRId64 ".log: at position %" PRId64 ": %s",
                     l->dir, seg->base, s.pos, why);
        return rc == GR_ERR_IO ? GR_ERR_IO : GR_ERR_CORRUPT;
    }
    return 0;
}

gr_err_t
gr_log_truncate_to(gr_log_t *l, int64_t offset)
{
    batch_loc_t loc;
    gr_segment_t *seg;
    int64_t pos, leo;
    gr_err_t err = 0;
    int i, rc;

    GR_ASSERT(!l->dead);
    if (l->offline)
        return GR_ERR_IO;
    if (offset >= l->leo) {
        /* Kafka's truncateTo: the epoch cache is cut all the same, since
         * it may end in an epoch this broker started as leader without
         * appending to it, one the new leader never had: kept, the
         * follower's LastFetchedEpoch would diverge on every fetch */
        gr_log_epochs_end_moved(l);
        return 0;
    }
    if (offset < l->start_offset)
        return GR_ERR_INVALID;
    if (l->cleaning != NULL)
        return GR_ERR_UNSUPPORTED; /* the cleaner's swap would bring it back */
    i = seg_find(l, offset);
    if (i < 0)
        i = 0;
    rc = seg_locate(l, i, offset, &loc);
    if (rc < 0)
        return rc;
    seg = l->segs[i];
    if (rc == 1) { /* the batch holding offset goes, and all after it */
        pos = loc.pos;
        leo = loc.base;
    } else { /* segs[i] ends below offset */
        pos = seg->size;
        leo = offset;
    }
    gr_log_seg_remove(l, i + 1, l->nsegs - i - 1, true);
    if (pos < seg->size) {
        gr_file_t *f = gr_logs_seg_file(l->m, l, seg);
        if (f == NULL)
            return GR_ERR_IO;
        if (ftruncate(f->fd, (off_t)pos) != 0) {
            GR_LOG_ERROR("%s/%020" PRId64 ".log: cannot truncate to %" PRId64
                         ": %s; the partition is offline until restart",
                         l->dir, seg->base, pos, strerror(errno));
            l->offline = true;
            return GR_ERR_IO;
        }
        l->size_bytes -= seg->size - pos;
        seg->size = pos;
        seg->prealloc_end = pos;
        err = seg_rebuild(l, i); /* its indexes, from what is left */
    }
    l->recent_n = 0;
    l->recent_head = 0;
    l->leo = leo;
    if (l->recovery_point > leo)
        l->recovery_point = leo;
    if (l->hw_ckpt > leo)
        l->hw_ckpt = leo;
    if (l->clean_offset > leo)
        l->clean_offset = leo;
    gr_log_epochs_end_moved(l); /* truncateFromEnd */
    return err;
}

gr_err_t
gr_log_truncate_fully(gr_log_t *l, int64_t offset)
{
    gr_dir_names_t names;
    gr_segment_t *seg;
    gr_err_t err = 0;

    GR_ASSERT(!l->dead);
    if (l->offline)
        return GR_ERR_IO;
    if (offset < 0)
        return GR_ERR_INVALID;
    if (l->cleaning != NULL)
        return GR_ERR_UNSUPPORTED;
    /* the new first segment first: a failure leaves the log as it was */
    seg = gr_log_seg_create(l, offset, &err);
    if (seg == NULL && l->segs[0]->base != offset)
        return err;
    if (seg == NULL) { /* the only name taken is segs[0]'s: cut it */
        gr_log_seg_remove(l, 1, l->nsegs - 1, true);
        return gr_log_truncate_to(l, offset) == 0 && l->leo == offset
                   ? 0
                   : GR_ERR_IO;
    }
    gr_log_seg_remove(l, 0, l->nsegs, true);
    if ((err = gr_log_seg_push(l, seg)) != 0) { /* room was there */
        gr_logs_seg_release(l->m, seg);
        gr_segment_free(seg);
        l->offline = true;
        return err;
    }
    /* producer snapshots of the old log (Kafka's
     * ProducerStateManager.truncateFullyAndStartAt) */
    if (gr_dir_names_read(l->dir, &names) == 0) {
        for (int i = 0; i < names.n; i++) {
            int64_t base;
            const char *suffix;
            char path[GR_SEG_PATH_MAX];
            if (!gr_seg_name_parse(names.v[i], &base, &suffix) ||
                strcmp(suffix, ".snapshot") != 0)
                continue;
            gr_segment_path(path, l->dir, base, ".snapshot");
            if (unlink(path) != 0 && errno != ENOENT)
                GR_LOG_WARN("cannot delete %s: %s", path, strerror(errno));
        }
        gr_dir_names_free(&names);
    }
    l->recent_n = 0;
    l->recent_head = 0;
    l->size_bytes = 0;
    l->leo = l->start_offset = l->recovery_point = offset;
    l->hw_ckpt = offset;
    l->clean_offset = -1;
    gr_log_epochs_cleared(l); /* clearAndFlush */
    return 0;
}

/* The end of the last whole batch of segs[i] that ends by limit, reading
 * from the batch that starts at from; from when none does, < 0 on error.
 * The active segment's last batches are remembered; elsewhere the offset
 * index gives a batch start near limit and one or two headers are read. */
static int64_t
seg_whole_end(gr_log_t *l, int i, int64_t from, int64_t limit)
{
    gr_segment_t *seg = l->segs[i];
    int64_t end = from, pos;
    gr_batch_hdr_t h;
    const char *why;
    gr_scan_t s;
    gr_file_t *f;
    int rc;

    if (i == l->nsegs - 1 && l->recent_n > 0 &&
        recent_at(l, 0)->pos <= limit) {
        int lo = 0, hi = l->recent_n;
        while (lo < hi) { /* the first that ends past limit */
            int mid = lo + (hi - lo) / 2;
            const gr_recent_t *r = recent_at(l, mid);
            if (r->pos + r->size <= limit)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo > 0) {
            const gr_recent_t *r = recent_at(l, lo - 1);
            return r->pos + r->size > from ? r->pos + r->size : from;
        }
    }
    if (gr_log_seg_ensure_index(l, i, false) != 0 ||
        (f = gr_logs_seg_file(l->m, l, seg)) == NULL)
        return -1;
    pos = gr_oidx_pos_floor(&seg->oidx, limit);
    if (pos > from)
        end = pos; /* a batch start: what lies before it is whole */
    gr_scan_init(&s, f->fd, end, limit);
    while ((rc = gr_scan_next(&s, &h, &pos, &why)) == 1)
        end = pos + (int64_t)gr_batch_size(&h);
    /* a batch past limit ends the walk (GR_ERR_TRUNCATED): expected */
    return rc == 0 || rc == GR_ERR_TRUNCATED ? end : -1;
}

gr_err_t
gr_log_read(gr_log_t *l, int64_t offset, int32_t max_bytes, int64_t max_offset,
            bool min_one_batch, gr_log_slice_t *out)
{
    out->file = NULL;
    out->pos = 0;
    out->len = 0;
    out->first_offset = -1;
    out->first_size = 0;
    out->upper_offset = -1;
    if (l->offline)
        return GR_ERR_IO;
    if (offset < l->start_offset || offset > l->leo)
        return GR_ERR_NOT_FOUND;
    if (offset == l->leo || offset >= max_offset)
        return 0;
    if (max_bytes < 0)
        max_bytes = 0;
    for (int i = seg_find(l, offset); i >= 0 && i < l->nsegs; i++) {
        gr_segment_t *seg = l->segs[i];
        int64_t max_pos, len;
        batch_loc_t loc, mloc;
        gr_file_t *f;
        int rc = seg_locate(l, i, offset, &loc);

        if (rc < 0)
            return rc;
        if (rc == 0)
            continue; /* a gap: the next segment */
        /* after seg_locate: rebuilding damaged indexes may have cut the
         * segment short */
        max_pos = seg->size;
        /* as Kafka: a batch holding max_offset is not visible */
        if (loc.last >= max_offset)
            return 0;
        if (max_offset < seg_end_offset(l, i)) {
            rc = seg_locate(l, i, max_offset, &mloc);
            if (rc < 0)
                return rc;
            if (rc == 1)
                max_pos = mloc.pos;
        }
        len = max_pos - loc.pos;
        if (len > max_bytes)
            len = min_one_batch && loc.size > max_bytes ? loc.size : max_bytes;
        if (len > max_pos - loc.pos)
            len = max_pos - loc.pos;
        if (len <= 0)
            return 0;
        /* Whole batches only, when at least one fits: Kafka sends the
         * partial batch max_bytes cuts too, which the client reads and
         * drops (with ~1 MB batches and 1 MiB fetches, 5 % of what it
         * reads) before it asks for it again */
        if (len < max_pos - loc.pos && len > loc.size) {
            int64_t end = seg_whole_end(l, i, loc.pos, loc.pos + len);
            if (end > loc.pos)
                len = end - loc.pos;
        }
        f = gr_logs_seg_file(l->m, l, seg);
        if (f == NULL)
            return GR_ERR_IO;
        out->file = f;
        out->pos = loc.pos;
        out->len = (int32_t)len;
        out->first_offset = loc.base;
        out->first_size = (int32_t)loc.size;
        out->upper_offset = max_offset < seg_end_offset(l, i)
                                ? max_offset
                                : seg_end_offset(l, i);
        return 0;
    }
    return 0;
}

gr_err_t
gr_log_find_timestamp(gr_log_t *l, int64_t ts, gr_log_slice_t *out)
{
    out->file = NULL;
    out->pos = 0;
    out->len = 0;
    out->first_offset = -1;
    out->first_size = 0;
    out->upper_offset = -1;
    if (l->offline)
        return GR_ERR_IO;
    for (int i = 0; i < l->nsegs; i++) {
        gr_segment_t *seg = l->segs[i];
        int64_t mts, from, pos;
        gr_batch_hdr_t h;
        const char *why;
        gr_scan_t s;
        gr_file_t *f;
        gr_err_t err;
        int rc;

        if (seg_end_offset(l, i) <= l->start_offset)
            continue; /* wholly below the log start */
        if ((err = seg_max_ts(l, i, &mts, NULL)) != 0)
            return err;
        if (mts < ts)
            continue;
        if ((err = gr_log_seg_ensure_index(l, i, true)) != 0 ||
            (err = gr_log_seg_ensure_index(l, i, false)) != 0)
            return err;
        /* as findOffsetByTimestamp: batches before the time index entry at
         * or below ts all have smaller timestamps */
        from = seg->base + gr_tidx_lookup(&seg->tidx, ts);
        if (from < l->start_offset)
            from = l->start_offset;
        f = gr_logs_seg_file(l->m, l, seg);
        if (f == NULL)
            return GR_ERR_IO;
        gr_scan_init(&s, f->fd, gr_oidx_lookup(&seg->oidx, from - seg->base),
                     seg->size);
        while ((rc = gr_scan_next(&s, &h, &pos, &why)) == 1) {
            if (h.max_timestamp >= ts &&
                gr_batch_last_offset(&h) >= l->start_offset) {
                out->file = f;
                out->pos = pos;
                out->len = (int32_t)gr_batch_size(&h);
                out->first_size = out->len;
                out->first_offset = h.base_offset;
                return 0;
            }
        }
        if (rc < 0) {
            GR_LOG_ERROR("%s/%020" PRId64 ".log: at position %" PRId64 ": %s",
                         l->dir, seg->base, s.pos, why);
            return rc == GR_ERR_IO ? GR_ERR_IO : GR_ERR_CORRUPT;
        }
    }
    return 0;
}

gr_err_t
gr_log_delete_records(gr_log_t *l, int64_t offset, int64_t hw)
{
    if (offset > hw || offset > l->leo || offset < 0)
        return GR_ERR_NOT_FOUND;
    if (offset > l->start_offset) {
        l->start_offset = offset;
        l->m->ckpt_dirty = true;
        gr_log_epochs_start_moved(l); /* truncateFromStart */
    }
    return 0;
}

/* --- retention (UnifiedLog.deleteOldSegments) */

enum retention { RET_TIME, RET_SIZE, RET_START };

/* Whether segs[i] may go by rule (Kafka's shouldDelete predicates). */
static bool
retention_breached(gr_log_t *l, int i, enum retention rule, int64_t now_ms,
                   int64_t *size_left)
{
    gr_segment_t *seg = l->segs[i];
    int64_t ts;

    switch (rule) {
    case RET_TIME:
        if (seg_max_ts(l, i, &ts, NULL) != 0)
            return false;
        if (ts < 0) { /* no timestamps: the file's age (largestTimestamp) */
            char path[GR_SEG_PATH_MAX];
            struct stat st;
            gr_segment_path(path, l->dir, seg->base, ".log");
            if (stat(path, &st) != 0)
                return false;
            ts = (int64_t)st.st_mtim.tv_sec * 1000 +
                 st.st_mtim.tv_nsec / 1000000;
        }
        return now_ms - ts > l->cfg.retention_ms;
    case RET_SIZE:
        if (*size_left - seg->size < 0)
            return false;
        *size_left -= seg->size;
        return true;
    case RET_START:
        return i + 1 < l->nsegs && l->segs[i + 1]->base <= l->start_offset;
    }
    return false;
}

static int
delete_old_segments(gr_log_t *l, enum retention rule, int64_t now_ms)
{
    int64_t size_left = l->size_bytes - l->cfg.retention_bytes;
    int k = 0;

    /* the oldest segments while the rule holds; the high watermark is the
     * LEO here (one replica), so every segment is below it */
    while (k < l->nsegs) {
        bool last_and_empty = k == l->nsegs - 1 && l->segs[k]->size == 0;
        if (last_and_empty ||
            !retention_breached(l, k, rule, now_ms, &size_left))
            break;
        k++;
    }
    if (k == 0)
        return 0;
    if (k == l->nsegs && roll(l) != 0) /* keep one segment: a new active */
        k--;
    if (k == 0)
        return 0;
    GR_LOG_INFO("%s: deleting %d segments below offset %" PRId64 " (%s)",
                l->dir, k, l->segs[k]->base,
                rule == RET_TIME   ? "retention.ms"
                : rule == RET_SIZE ? "retention.bytes"
                                   : "log start offset");
    gr_log_seg_remove(l, 0, k, true);
    if (l->segs[0]->base > l->start_offset)
        l->start_offset = l->segs[0]->base;
    l->m->ckpt_dirty = true;
    gr_log_epochs_start_moved(l);
    return k;
}

int
gr_log_periodic(gr_log_t *l, int64_t now_ms)
{
    int n = 0;
    if (l->cfg.cleanup_delete) {
        if (l->cfg.retention_ms >= 0)
            n += delete_old_segments(l, RET_TIME, now_ms);
        if (l->cfg.retention_bytes >= 0 &&
            l->size_bytes >= l->cfg.retention_bytes)
            n += delete_old_segments(l, RET_SIZE, now_ms);
    }
    n += delete_old_segments(l, RET_START, now_ms);
    if (now_ms - l->last_flush_ms >= l->cfg.flush_ms &&
        l->leo > l->recovery_point && l->flushing == NULL &&
        gr_log_flush(l, NULL, NULL) != 0)
        GR_LOG_WARN("%s: cannot schedule a flush", l->dir);
    return n;
}

/* --- flushing */

static bool
waiter_push(gr_flush_waiter_t **w, int *n, int *cap, gr_log_flush_cb cb,
            void *arg)
{
    if (*n == *cap) {
        int c = *cap ? *cap * 2 : 4;
        gr_flush_waiter_t *p = realloc(*w, (size_t)c * sizeof(*p));
        if (p == NULL)
            return false;
        *w = p;
        *cap = c;
    }
    (*w)[*n].cb = cb;
    (*w)[*n].arg = arg;
    (*n)++;
    return true;
}

static void
flush_work(void *arg)
{
    gr_flush_job_t *job = arg;
    char path[GR_SEG_PATH_MAX];

    if (job->fail) {
        job->err = EIO;
        return;
    }
    for (int i = 0; i < job->nsegs; i++) {
        int fd;
        gr_segment_path(path, job->l->dir, job->bases[i], ".log");
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            if (errno != ENOENT && job->err == 0)
                job->err = errno;
            continue;
        }
        if (fdatasync(fd) != 0 && job->err == 0)
            job->err = errno;
        close(fd);
    }
}

static int flush_start(gr_log_t *l);

static void
flush_done(gr_loop_t *loop, void *arg)
{
    gr_flush_job_t *job = arg;
    gr_log_t *l = job->l;
    gr_err_t err = job->err ? GR_ERR_IO : 0;
    gr_flush_waiter_t *later = NULL;
    int nlater = 0;

    (void)loop;
    if (job->err && !l->dead) {
        /* after a failed fsync the kernel may have dropped the dirty
         * pages: what reads see may not be what the file will hold */
        GR_LOG_ERROR("%s: fsync failed: %s; the partition is offline until "
                     "restart",
                     l->dir, strerror(job->err));
        l->offline = true;
    }
    l->flushing = NULL;
    if (l->deleted)
        err = GR_ERR_IO;
    if (!l->dead) {
        if (err == 0) {
            l->last_flush_ms = gr_loop_wall_ms(l->m->loop);
            if (job->upto > l->recovery_point) {
                l->recovery_point = job->upto;
                l->m->ckpt_dirty = true;
            }
        }
        if ((l->flush_again || l->next_waiters_n > 0) && flush_start(l) != 0) {
            later = l->next_waiters; /* cannot start: they fail */
            nlater = l->next_waiters_n;
            l->next_waiters = NULL;
            l->next_waiters_n = l->next_waiters_cap = 0;
        }
    } else {
        /* closed (data synced by the close) or deleted meanwhile */
        later = l->next_waiters;
        nlater = l->next_waiters_n;
        l->next_waiters = NULL;
        l->next_waiters_n = l->next_waiters_cap = 0;
    }
    for (int i = 0; i < job->nwaiters; i++)
        job->waiters[i].cb(l, err, job->waiters[i].arg);
    for (int i = 0; i < nlater; i++)
        later[i].cb(l, l->dead && !l->deleted ? 0 : GR_ERR_IO, later[i].arg);
    free(later);
    free(job->waiters);
    free(job);
    gr_log_unref(l);
}

/* First segment with data past the recovery point. */
static int
first_unflushed(const gr_log_t *l)
{
    int i = seg_find(l, l->recovery_point);
    return i < 0 ? 0 : i;
}

/* Starts a flush of everything up to the LEO for l->next_waiters. */
static int
flush_start(gr_log_t *l)
{
    int from = first_unflushed(l), n = l->nsegs - from;
    gr_segment_t *act = gr_log_active_seg(l);
    char path[GR_SEG_PATH_MAX];
    gr_flush_job_t *job;

    job = calloc(1, sizeof(*job) + (size_t)n * sizeof(job->bases[0]));
    if (job == NULL)
        return -1;
    job->l = l;
    job->upto = l->leo;
    job->fail = GR_FAULT("log.fsync", l->dir);
    /* the active segment's new index entries reach the page cache (they
     * are not fsynced: see segment.h) */
    gr_segment_path(path, l->dir, act->base, ".index");
    gr_index_write(path, GR_OIDX_ENTRY, &act->oidx, false);
    gr_segment_path(path, l->dir, act->base, ".timeindex");
    gr_index_write(path, GR_TIDX_ENTRY, &act->tidx, false);
    for (int i = from; i < l->nsegs; i++)
        job->bases[job->nsegs++] = l->segs[i]->base;
    job->waiters = l->next_waiters;
    job->nwaiters = l->next_waiters_n;
    if (gr_workers_submit(l->m->workers, flush_work, flush_done, job) != 0) {
        free(job);
        return -1;
    }
    l->next_waiters = NULL;
    l->next_waiters_n = l->next_waiters_cap = 0;
    l->flushing = job;
    l->flush_again = false;
    l->refs++;
    return 0;
}

int
gr_log_flush(gr_log_t *l, gr_log_flush_cb cb, void *arg)
{
    GR_ASSERT(!l->dead);
    if (cb != NULL && !waiter_push(&l->next_waiters, &l->next_waiters_n,
                                   &l->next_waiters_cap, cb, arg))
        return -1;
    if (l->flushing != NULL) {
        l->flush_again = true; /* coalesced into the next one */
        return 0;
    }
    if (flush_start(l) != 0) {
        if (cb != NULL)
            l->next_waiters_n--;
        return -1;
    }
    return 0;
}

/* --- closing and deleting */

bool
gr_log_close_internal(gr_log_t *l)
{
    gr_segment_t *act = gr_log_active_seg(l);
    gr_ckpt_t *ck;
    bool ok = true;

    seg_finish(l, act);
    /* closing every log: one syncfs of the file system at the end makes
     * them all durable (gr_logs_close), instead of an fsync per log */
    for (int i = l->m->closing_all ? l->nsegs : first_unflushed(l);
         i < l->nsegs; i++) {
        gr_file_t *f = gr_logs_seg_file(l->m, l, l->segs[i]);
        if (f == NULL || fdatasync(f->fd) != 0) {
            GR_LOG_ERROR("%s/%020" PRId64 ".log: fsync failed: %s", l->dir,
                         l->segs[i]->base, strerror(errno));
            ok = false;
        }
    }
    if (ok && !l->m->closing_all)
        l->recovery_point = l->leo;
    ck = gr_logs_ckpt_get(l->m, l->topic, l->partition);
    if (ck != NULL) {
        ck->closing_rp = l->m->closing_all ? l->leo : -1;
        ck->recovery_point = l->recovery_point;
        ck->start_offset = l->start_offset;
        ck->clean_offset = l->clean_offset;
        ck->high_watermark = l->hw_ckpt;
        ck->log = NULL;
    }
    gr_log_cleaner_forget(l);
    gr_log_epochs_close(l);
    gr_log_seg_remove(l, 0, l->nsegs, false);
    log_unlink(l->m, l);
    l->m->ckpt_dirty = true;
    l->dead = true;
    return ok;
}

void
gr_log_close(gr_log_t *l)
{
    if (l == NULL)
        return;
    gr_log_close_internal(l);
    gr_log_unref(l);
}

gr_err_t
gr_log_delete(gr_log_t *l)
{
    gr_ckpt_t *ck = gr_logs_ckpt_find(l->m, l->topic, l->partition);

    /* as Kafka: the directory is renamed <topic>-<p>.<id>-delete at once
     * and removed by a worker; slices handed out keep their fds */
    gr_log_cleaner_forget(l);
    gr_log_epochs_wait(l); /* no write may land in the directory */
    gr_log_seg_remove(l, 0, l->nsegs, false);
    gr_logs_trash_dir(l->m, l->dir, l->topic, l->partition, &l->topic_id);
    if (ck != NULL) {
        free(ck->topic);
        ck->topic = NULL; /* a tombstone in the hash */
        ck->log = NULL;
    }
    log_unlink(l->m, l);
    l->m->ckpt_dirty = true;
    l->dead = true;
    l->deleted = true;
    GR_LOG_DEBUG("%s: deleted",
                 l->dir); /* the topic's deletion is logged once */
    gr_log_unref(l);
    return 0;
}

int64_t
gr_log_segment_base(const gr_log_t *l, int64_t offset)
{
    int i = seg_find(l, offset);
    return i >= 0 ? l->segs[i]->base : -1;
}

/* --- scanning (loading state kept in a log) */

const char *
gr_log_dir(const gr_log_t *l)
{
    return l->dir;
}

gr_err_t
gr_log_scan(gr_log_t *l, int64_t from, gr_log_scan_cb cb, void *arg)
{
    int64_t off = from > l->start_offset ? from : l->start_offset;
    gr_buf_t buf = GR_BUF_INIT;
    gr_err_t err = 0;

    while (off < l->leo) {
        gr_log_slice_t sl;
        size_t pos = 0;
        int64_t before = off;
        err = gr_log_read(l, off, 1 << 20, l->leo, true, &sl);
        if (err != 0 || sl.len <= 0)
            break;
        buf.len = 0;
        if (gr_buf_reserve(&buf, (size_t)sl.len) != 0) {
            err = GR_ERR_NOMEM;
            break;
        }
        if (pread(sl.file->fd, buf.ptr, (size_t)sl.len, sl.pos) != sl.len) {
            GR_LOG_ERROR("%s: scan read at %" PRId64 " failed: %s", l->dir,
                         sl.pos, strerror(errno));
            err = GR_ERR_IO;
            break;
        }
        buf.len = (size_t)sl.len;
        while (pos + GR_BATCH_HEADER_SIZE <= buf.len) {
            gr_batch_hdr_t h;
            gr_batch_hdr_parse(buf.ptr + pos, &h);
            if (h.length < GR_BATCH_MIN_LENGTH ||
                gr_batch_size(&h) > buf.len - pos)
                break; /* the slice ends inside this batch */
            if (gr_batch_last_offset(&h) >= off) {
                if (cb(arg, buf.ptr + pos, gr_batch_size(&h))) {
                    gr_buf_fini(&buf);
                    return 0;
                }
                off = gr_batch_last_offset(&h) + 1;
            }
            pos += gr_batch_size(&h);
        }
        if (off == before) {
            /* no whole batch came back: cannot move on */
            err = GR_ERR_CORRUPT;
            break;
        }
    }
    gr_buf_fini(&buf);
    return err;
}
