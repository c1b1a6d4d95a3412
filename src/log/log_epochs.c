/*
 * A partition log's leader-epoch cache (log/epoch.h) on disk: loaded when
 * the log opens, rebuilt from the batches' partitionLeaderEpoch when the
 * file is missing, unreadable or behind the log, kept in step with the
 * log's start and end, and written by a worker when it changes.
 *
 * Kafka writes the file synchronously in assign() and asynchronously after
 * truncations. Here every write is a worker's (tmp, fsync, rename, fsync
 * of the partition directory; the fsyncs left out while the log is empty):
 * the changes of a loop turn are gathered into jobs of EPOCH_JOB_MAX
 * files. A crash before the write lands loses nothing the log does
 * not also say: at the next open an entry missing from the file shows as
 * a last batch whose epoch is above the file's latest, and the entries
 * are rebuilt from the batches from the file's latest entry on; after an
 * unclean shutdown the batches past the recovery point are read as well
 * (LogLoader's recovery assigns their epochs too). What only the cache
 * holds, an epoch assigned at the log end with no batch written in it
 * yet, is assigned again by whoever leads the partition when it opens.
 *
 * Loop thread only, except the jobs' write().
 */
#include "log/log_int.h"

#include "core/buf.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A file larger than this is not a checkpoint Kafka or Gregor wrote. */
#define EPOCH_FILE_MAX (16 << 20)
/* Files a job writes at most (two fsyncs each): the jobs of others
 * (flushes, new partitions' directories) queued meanwhile wait for one
 * chunk, not for the thousands of files a CreateTopics may change. */
#define EPOCH_JOB_MAX 64

enum { ITEM_QUEUED, ITEM_WRITING, ITEM_DONE, ITEM_DROPPED };

typedef struct epoch_item {
    gr_log_t *l; /* referenced */
    gr_buf_t text;
    int state; /* ITEM_*, atomic: the loop drops a queued item (close,
                  deletion) without waiting for the job */
    bool durable; /* with the fsyncs: the log has records (below) */
    int err;   /* worker: errno of the failed step, 0 */
} epoch_item_t;

typedef struct gr_epoch_job gr_epoch_job_t;
struct gr_epoch_job {
    gr_logs_t *m;
    epoch_item_t *items;
    int n;
    int finished; /* set by the worker when every file is written */
};

/* --- writing */

/* Writes text as dir's leader-epoch-checkpoint (tmp, rename; with the
 * fsyncs when durable): 0 or an errno. A directory gone meanwhile (the
 * log was deleted) is no error. */
static int
write_file(const char *dir, gr_buf_t *text, bool durable)
{
    int e;
    if (text->oom)
        return ENOMEM;
    e = (durable ? gr_logs_replace_durable_quiet : gr_logs_replace_quiet)(
        dir, GR_LOG_EPOCH_CHECKPOINT, (const char *)text->ptr, text->len);
    return e == ENOENT ? 0 : e;
}

static void
job_work(void *arg)
{
    gr_epoch_job_t *job = arg;
    for (int i = 0; i < job->n; i++) {
        epoch_item_t *it = &job->items[i];
        int queued = ITEM_QUEUED;
        if (!__atomic_compare_exchange_n(&it->state, &queued, ITEM_WRITING,
                                         false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue; /* dropped */
        it->err = write_file(it->l->dir, &it->text, it->durable);
        __atomic_store_n(&it->state, ITEM_DONE, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&job->finished, 1, __ATOMIC_RELEASE);
}

static void job_post(gr_logs_t *m);

static void
job_done(gr_loop_t *loop, void *arg)
{
    gr_epoch_job_t *job = arg;
    gr_logs_t *m = job->m;
    (void)loop;
    m->epochs_job = NULL;
    for (int i = 0; i < job->n; i++) {
        epoch_item_t *it = &job->items[i];
        if (it->err != 0) {
            GR_LOG_ERROR("cannot write %s/%s: %s", it->l->dir,
                         GR_LOG_EPOCH_CHECKPOINT, strerror(it->err));
            if (!it->l->dead)
                it->l->epochs_dirty = true; /* the next change or close */
        }
        gr_buf_fini(&it->text);
        gr_log_unref(it->l);
    }
    free(job->items);
    free(job);
    if (m->epochs_again) {
        m->epochs_again = false;
        job_post(m);
    }
    gr_logs_unref(m);
}

/* Submits one job writing the caches that changed (EPOCH_JOB_MAX at
 * most: its done() submits the next). */
static void
job_submit(gr_logs_t *m)
{
    gr_epoch_job_t *job;
    int n = 0, k = 0;

    for (gr_log_t *l = m->logs; l; l = l->next)
        n += l->epochs_dirty;
    if (n == 0)
        return;
    if (n > EPOCH_JOB_MAX) {
        n = EPOCH_JOB_MAX;
        m->epochs_again = true;
    }
    job = calloc(1, sizeof(*job));
    if (job == NULL || (job->items = calloc((size_t)n, sizeof(epoch_item_t))) ==
                           NULL) {
        free(job);
        return; /* they stay dirty: the next change or close */
    }
    job->m = m;
    for (gr_log_t *l = m->logs; l && k < n; l = l->next) {
        if (!l->epochs_dirty)
            continue;
        job->items[k].l = l;
        gr_epochs_format(&l->epochs, &job->items[k].text);
        /* an empty log's file only names the epoch it is led in, which
         * the leader assigns again at every open, and a file lost in a
         * crash is rebuilt: no fsync for it (a CreateTopics of thousands
         * of partitions took 12 ms a partition here with them) */
        job->items[k].durable = l->leo > l->start_offset;
        k++;
    }
    job->n = k;
    if (gr_workers_submit(m->workers, job_work, job_done, job) != 0) {
        for (int i = 0; i < k; i++)
            gr_buf_fini(&job->items[i].text);
        free(job->items);
        free(job);
        return;
    }
    for (int i = 0; i < k; i++) {
        job->items[i].l->epochs_dirty = false;
        job->items[i].l->refs++;
    }
    m->epochs_job = job;
    m->refs++;
}

static void
job_turn(gr_loop_t *loop, void *arg)
{
    gr_logs_t *m = arg;
    (void)loop;
    m->epochs_posted = false;
    if (!m->closed) {
        if (m->epochs_job != NULL)
            m->epochs_again = true; /* its done() submits the next */
        else
            job_submit(m);
    }
    gr_logs_unref(m);
}

/* A job at the end of this loop turn, so one job carries the turn's
 * changes (a CreateTopics of many partitions). */
static void
job_post(gr_logs_t *m)
{
    if (m->epochs_posted)
        return;
    if (m->loop != NULL && m->workers != NULL &&
        gr_loop_post(m->loop, job_turn, m) == 0) {
        m->epochs_posted = true;
        m->refs++;
    }
    /* else: written at close (tests without a loop) */
}

/* The cache of l changed: a write is due. */
static void
changed(gr_log_t *l)
{
    l->epochs_dirty = true;
    job_post(l->m);
}

void
gr_log_epochs_wait(gr_log_t *l)
{
    gr_epoch_job_t *job = l->m->epochs_job;
    epoch_item_t *it = NULL;
    int queued = ITEM_QUEUED;

    for (int i = 0; job != NULL && i < job->n && it == NULL; i++)
        if (job->items[i].l == l)
            it = &job->items[i];
    if (it == NULL)
        return;
    /* not started: it never will (the close writes what is current; a
     * deleted log's directory gets nothing); being written: a write of
     * l's directory in flight would race with the close's, or land in a
     * directory of the same name made later, so wait for that one file */
    if (__atomic_compare_exchange_n(&it->state, &queued, ITEM_DROPPED, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        l->epochs_dirty = true; /* its text was not written */
        return;
    }
    while (__atomic_load_n(&it->state, __ATOMIC_ACQUIRE) == ITEM_WRITING) {
        struct timespec ts = { 0, 200000 };
        nanosleep(&ts, NULL);
    }
}

void
gr_log_epochs_close(gr_log_t *l)
{
    gr_buf_t text = GR_BUF_INIT;
    int e;

    gr_log_epochs_wait(l);
    if (l->epochs_dirty) {
        gr_epochs_format(&l->epochs, &text);
        /* closing every log: the manager's syncfs follows */
        e = write_file(l->dir, &text, !l->m->closing_all);
        if (e != 0)
            GR_LOG_ERROR("cannot write %s/%s: %s", l->dir,
                         GR_LOG_EPOCH_CHECKPOINT, strerror(e));
        else
            l->epochs_dirty = false;
        gr_buf_fini(&text);
    }
    gr_epochs_fini(&l->epochs);
}

/* --- loading and rebuilding */

/* Assigns the epochs of the batches from offset `from` to the log end
 * (headers only): each batch whose epoch is above the latest starts an
 * entry, as Kafka's recovery assigns them. 0 or GR_ERR_IO. */
static gr_err_t
scan_from(gr_log_t *l, int64_t from, int *assigned)
{
    int i = gr_log_seg_find(l, from);
    for (i = i < 0 ? 0 : i; i < l->nsegs; i++) {
        gr_segment_t *seg = l->segs[i];
        gr_batch_hdr_t h;
        const char *why;
        int64_t pos;
        gr_scan_t *s;
        gr_file_t *f;
        int rc;

        if (seg->size == 0)
            continue;
        if ((f = gr_logs_seg_file(l->m, l, seg)) == NULL)
            return GR_ERR_IO;
        if ((s = malloc(sizeof(*s))) == NULL)
            return GR_ERR_NOMEM;
        gr_scan_init(s, f->fd, 0, seg->size);
        while ((rc = gr_scan_next(s, &h, &pos, &why)) == 1) {
            if (h.leader_epoch > gr_epochs_latest(&l->epochs) &&
                gr_batch_last_offset(&h) >= from) {
                int64_t start = h.base_offset > from ? h.base_offset : from;
                if (gr_epochs_assign(&l->epochs, h.leader_epoch, start) < 0) {
                    free(s);
                    return GR_ERR_NOMEM;
                }
                (*assigned)++;
            }
        }
        free(s);
        if (rc == GR_ERR_IO) {
            GR_LOG_ERROR("%s/%020" PRId64 ".log: cannot read: %s", l->dir,
                         seg->base, why);
            return GR_ERR_IO;
        }
        /* a tail recovery did not cut (below the recovery point) ends
         * the scan of this segment; the next starts afresh */
    }
    return 0;
}

/* The file's text in a malloc'ed *out (NUL not added), its size in *n:
 * 1, 0 when there is none, -1 when it cannot be read (logged). */
static int
read_file(const gr_log_t *l, char **out, size_t *n)
{
    char path[GR_SEG_PATH_MAX];
    struct stat st;
    size_t got = 0;
    char *buf;
    int fd;

    snprintf(path, sizeof path, "%s/%s", l->dir, GR_LOG_EPOCH_CHECKPOINT);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        GR_LOG_WARN("cannot read %s: %s; rebuilding the leader-epoch cache "
                    "from the log",
                    path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || st.st_size > EPOCH_FILE_MAX ||
        (buf = malloc((size_t)st.st_size + 1)) == NULL) {
        GR_LOG_WARN("%s: cannot be read (%lld bytes); rebuilding the "
                    "leader-epoch cache from the log",
                    path, (long long)st.st_size);
        close(fd);
        return -1;
    }
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    *out = buf;
    *n = got;
    return 1;
}

gr_err_t
gr_log_epochs_load(gr_log_t *l, int64_t recovery_point)
{
    char path[GR_SEG_PATH_MAX];
    const char *why = NULL;
    int64_t from = -1; /* rescan from here; -1: no rescan */
    char *text = NULL;
    size_t n = 0;
    int assigned = 0, rc;
    bool dirty = false;
    gr_err_t err;

    snprintf(path, sizeof path, "%s/%s", l->dir, GR_LOG_EPOCH_CHECKPOINT);
    rc = read_file(l, &text, &n);
    if (rc == 1 && gr_epochs_parse(&l->epochs, text, n, &why) != 0) {
        GR_LOG_WARN("%s: %s; rebuilding the leader-epoch cache from the log",
                    path, why);
        rc = -1;
    }
    free(text);
    if (rc != 1) {
        from = l->start_offset; /* missing or bad: every batch */
        dirty = true;
    } else {
        /* the log may have been cut below what the file says (a torn
         * tail), or its start moved with the file not yet written */
        dirty |= gr_epochs_truncate_end(&l->epochs, l->leo);
        dirty |= gr_epochs_truncate_start(&l->epochs, l->start_offset);
        if (l->last_epoch > gr_epochs_latest(&l->epochs)) {
            /* the file is behind the batches: from its latest entry */
            from = l->epochs.n > 0
                       ? l->epochs.v[l->epochs.n - 1].start_offset
                       : l->start_offset;
            GR_LOG_INFO("%s: latest epoch %d is behind the log's %d; "
                        "rebuilding from offset %" PRId64,
                        path, (int)gr_epochs_latest(&l->epochs),
                        (int)l->last_epoch, from);
        }
        if (!l->m->was_clean && recovery_point < l->leo &&
            (from < 0 || recovery_point < from))
            from = recovery_point > l->start_offset ? recovery_point
                                                    : l->start_offset;
    }
    if (from >= 0) {
        if ((err = scan_from(l, from, &assigned)) != 0)
            return err;
        dirty |= assigned > 0;
        gr_epochs_truncate_start(&l->epochs, l->start_offset);
        if (rc != 1 && (rc == -1 || assigned > 0))
            GR_LOG_INFO("%s: rebuilt from the log: %d entries, latest epoch "
                        "%d",
                        path, l->epochs.n, (int)gr_epochs_latest(&l->epochs));
    }
    if (dirty)
        changed(l);
    return 0;
}

/* --- the log's operations */

int32_t
gr_log_leader_epoch(const gr_log_t *l)
{
    return gr_epochs_latest(&l->epochs);
}

int
gr_log_assign_epoch(gr_log_t *l, int32_t epoch)
{
    int rc;
    if (epoch <= gr_epochs_latest(&l->epochs))
        return 0;
    rc = gr_epochs_assign(&l->epochs, epoch, l->leo);
    if (rc > 0)
        changed(l);
    return rc < 0 ? -1 : 0;
}

void
gr_log_epoch_end_offset(const gr_log_t *l, int32_t requested, int32_t *epoch,
                        int64_t *end_offset)
{
    gr_epochs_end_offset(&l->epochs, requested, l->leo, epoch, end_offset);
}

const gr_epochs_t *
gr_log_epochs(const gr_log_t *l)
{
    return &l->epochs;
}

void
gr_log_epochs_appended(gr_log_t *l, int32_t epoch, int64_t base_offset)
{
    /* Kafka's maybeAssignEpochStartOffset: an epoch above the latest
     * starts at the batch (a lower one is a caller's bug, not a reason
     * to cut the history) */
    if (epoch > gr_epochs_latest(&l->epochs) &&
        gr_epochs_assign(&l->epochs, epoch, base_offset) > 0)
        changed(l);
}

void
gr_log_epochs_start_moved(gr_log_t *l)
{
    if (gr_epochs_truncate_start(&l->epochs, l->start_offset))
        changed(l);
}

void
gr_log_epochs_end_moved(gr_log_t *l)
{
    if (gr_epochs_truncate_end(&l->epochs, l->leo))
        changed(l);
}

void
gr_log_epochs_cleared(gr_log_t *l)
{
    gr_epochs_clear(&l->epochs);
    changed(l);
}
