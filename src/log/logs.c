/*
 * The manager of every partition log of one directory (Kafka's LogManager):
 * the clean-shutdown marker, the checkpoint files, the LRU of open segment
 * files shared by all logs, and the periodic work (retention, flush.ms,
 * checkpoints). Partition logs themselves are log.c's. Loop thread only;
 * checkpoint files are written by a worker (tmp, fsync, rename, fsync dir).
 *
 * Checkpoint files (Kafka's OffsetCheckpointFile), text:
 *
 *   LINE DESCRIPTION
 *      1 version: 0
 *      2 number of entries
 *    3.. "<topic> <partition> <offset>", one per log
 *
 * recovery-point-offset-checkpoint holds each log's recovery point (below it
 * everything was fsynced), log-start-offset-checkpoint its log start offset,
 * cleaner-offset-checkpoint the first dirty offset of compacted logs (where
 * the next cleaning starts; absent: the log start),
 * replication-offset-checkpoint the high watermark of each partition (the
 * log end on a single broker; written for Kafka's tools and for a broker
 * started on this directory, read back only to keep lines of logs not
 * open).
 * Lines of logs not open now are kept as read.
 */
#include "log/log_int.h"

#include "core/buf.h"
#include "core/fault.h"
#include "core/file.h"
#include "core/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct gr_ckpt_job {
    gr_logs_t *m;
    gr_buf_t rp, lso, cl, hw; /* file contents */
    gr_err_t err;         /* worker */
    int finished;         /* set by the worker when the files are written */
} gr_ckpt_job_t;

enum ckpt_kind {
    CKPT_RECOVERY_POINT,
    CKPT_START_OFFSET,
    CKPT_CLEAN_OFFSET,
    CKPT_HIGH_WATERMARK
};

/* --- small file helpers */

gr_err_t
gr_logs_fsync_dir(const char *dir)
{
    int e = gr_fsync_dir(dir);
    if (e != 0) {
        GR_LOG_ERROR("cannot fsync directory %s: %s", dir, strerror(e));
        return GR_ERR_IO;
    }
    return 0;
}

/* tmp file, write, optional fsync, rename; returns 0 or the errno of the
 * failed step, logging nothing (workers call it too) */
static int
replace_file(const char *dir, const char *name, const char *data, size_t n,
             bool durable)
{
    char path[GR_SEG_PATH_MAX], tmp[GR_SEG_PATH_MAX];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", dir, name);
    return gr_file_replace(path, tmp, data, n, 0644, durable);
}

static gr_err_t
write_replace(const char *dir, const char *name, const char *data, size_t n,
              bool durable)
{
    int e = replace_file(dir, name, data, n, durable);
    if (e != 0) {
        GR_LOG_ERROR("cannot write %s/%s: %s", dir, name, strerror(e));
        return e == ENOSPC ? GR_ERR_NOSPACE : GR_ERR_IO;
    }
    return durable ? gr_logs_fsync_dir(dir) : 0;
}

int
gr_logs_replace_quiet(const char *dir, const char *name, const char *data,
                      size_t n)
{
    return replace_file(dir, name, data, n, false);
}

int
gr_logs_replace_durable_quiet(const char *dir, const char *name,
                              const char *data, size_t n)
{
    int e = replace_file(dir, name, data, n, true);
    return e != 0 ? e : gr_fsync_dir(dir);
}

gr_err_t
gr_logs_write_atomic(const char *dir, const char *name, const char *data,
                     size_t n)
{
    return write_replace(dir, name, data, n, true);
}

gr_err_t
gr_logs_write_replace(const char *dir, const char *name, const char *data,
                      size_t n)
{
    return write_replace(dir, name, data, n, false);
}

int
gr_logs_rmrf(const char *dir)
{
    char path[GR_SEG_PATH_MAX];
    struct dirent *de;
    int rc = 0;
    DIR *d = opendir(dir);

    if (d == NULL)
        return errno == ENOENT ? 0 : -1;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (gr_logs_rmrf(path) != 0)
                rc = -1;
        } else if (unlink(path) != 0 && errno != ENOENT) {
            rc = -1;
        }
    }
    closedir(d);
    if (rmdir(dir) != 0 && errno != ENOENT)
        rc = -1;
    return rc;
}

/* Removal of deleted partition directories. As Kafka does, a deleted
 * log's directory is renamed <topic>-<p>.<id>-delete and removed by a
 * worker. The renames wait in a queue and run TRASH_CHUNK per loop turn:
 * ext4 renames in a directory of many partitions cost ~50 us, so deleting
 * a topic of 10,000 partitions at once held the loop for ~0.5 s. Whatever
 * makes or opens a partition directory first renames every waiting one
 * (gr_logs_trash_flush): a waiting rename must never move the directory
 * of a new incarnation of the topic. Each chunk's directories go to one
 * worker job, which makes their renames durable with one fsync of the
 * log dir before removing them (no crash brings a name back). */
#define TRASH_CHUNK 64

typedef struct trash_wait {
    struct trash_wait *next;
    int32_t partition;
    gr_uuid_t id; /* the topic's, or zero */
    char *topic;
    char dir[]; /* the partition directory */
} trash_wait_t;

typedef struct trash_job {
    gr_logs_t *m;
    char *parent; /* to fsync before removing (renamed there), or NULL */
    int n, nfailed, err;
    const char *failed; /* the first path that could not be removed */
    char *paths[];      /* the directories to remove */
} trash_job_t;

static void
trash_work(void *arg)
{
    trash_job_t *job = arg;
    if (job->parent != NULL)
        gr_logs_fsync_dir(job->parent);
    for (int i = 0; i < job->n; i++)
        if (gr_logs_rmrf(job->paths[i]) != 0 && job->nfailed++ == 0) {
            job->err = errno;
            job->failed = job->paths[i];
        }
}

static void
trash_done(gr_loop_t *loop, void *arg)
{
    trash_job_t *job = arg;
    (void)loop;
    if (job->nfailed > 0)
        GR_LOG_ERROR("cannot remove %s: %s (%d of %d directories left)",
                     job->failed, strerror(job->err), job->nfailed, job->n);
    for (int i = 0; i < job->n; i++) {
        if (job->nfailed == 0)
            GR_LOG_DEBUG("removed %s", job->paths[i]);
        free(job->paths[i]);
    }
    free(job->parent);
    if (job->m != NULL) {
        gr_logs_t *m = job->m;
        if (--m->trash_jobs == 0 && m->trash_head == NULL &&
            m->trash_idle_cb != NULL)
            m->trash_idle_cb(m->trash_idle_arg);
        gr_logs_unref(m);
    }
    free(job);
}

void
gr_logs_on_trash_idle(gr_logs_t *m, void (*cb)(void *arg), void *arg)
{
    m->trash_idle_cb = cb;
    m->trash_idle_arg = arg;
}

/* A job for up to n directories (paths added by trash_add); NULL on
 * ENOMEM. renamed: they were renamed in m->dir. */
static trash_job_t *
trash_job_new(gr_logs_t *m, int n, bool renamed)
{
    trash_job_t *job = calloc(1, sizeof(*job) + (size_t)n * sizeof(char *));
    if (job != NULL && renamed && (job->parent = strdup(m->dir)) == NULL) {
        free(job);
        job = NULL;
    }
    return job;
}

/* Removes path now when it cannot join job (job NULL or ENOMEM). */
static void
trash_add(gr_logs_t *m, trash_job_t *job, const char *path, bool renamed)
{
    if (job != NULL && (job->paths[job->n] = strdup(path)) != NULL) {
        job->n++;
        return;
    }
    if (renamed)
        gr_logs_fsync_dir(m->dir);
    if (gr_logs_rmrf(path) != 0)
        GR_LOG_ERROR("cannot remove %s: %s", path, strerror(errno));
}

/* Hands job to a worker, or does it here. */
static void
trash_submit(gr_logs_t *m, trash_job_t *job)
{
    if (job == NULL)
        return;
    job->m = m;
    m->trash_jobs++;
    m->refs++;
    if (job->n == 0 || m->workers == NULL ||
        gr_workers_submit(m->workers, trash_work, trash_done, job) != 0) {
        if (job->n > 0)
            trash_work(job);
        trash_done(m->loop, job);
    }
}

void
gr_logs_aside_path(const gr_logs_t *m, char *out, const char *topic,
                   int32_t partition, const char *tag, const char *suffix)
{
    char tail[256];
    size_t keep = strlen(topic), room;

    snprintf(tail, sizeof tail, "-%d.%s%s", (int)partition, tag, suffix);
    room = strlen(tail) < 255 ? 255 - strlen(tail) : 0;
    if (keep > room)
        keep = room;
    snprintf(out, GR_SEG_PATH_MAX, "%s/%.*s%s", m->dir, (int)keep, topic, tail);
}

/* Renames w's directory aside into job (or removes it in place). */
static void
trash_rename(gr_logs_t *m, const trash_wait_t *w, trash_job_t *job)
{
    char to[GR_SEG_PATH_MAX], hex[33];
    gr_uuid_t u;

    /* <topic>-<p>.<32 hex>-delete, the topic cut to fit NAME_MAX */
    gr_uuid_random(&u);
    for (int i = 0; i < 16; i++)
        snprintf(hex + 2 * i, sizeof hex - 2 * (size_t)i, "%02x", u.b[i]);
    gr_logs_aside_path(m, to, w->topic, w->partition, hex, "-delete");
    if (GR_FAULT("trash.kill", w->dir)) { /* a crash, for tests */
        GR_LOG_WARN("fault trash.kill: killed before renaming %s", w->dir);
        raise(SIGKILL);
    }
    if (rename(w->dir, to) != 0) {
        GR_LOG_WARN("cannot rename %s to %s (%s): removing it in place", w->dir,
                    to, strerror(errno));
        if (gr_logs_rmrf(w->dir) != 0)
            GR_LOG_ERROR("cannot remove %s: %s", w->dir, strerror(errno));
        return;
    }
    trash_add(m, job, to, true);
}

/* Renames up to max directories from the front of *list (max < 0: all),
 * freeing their entries, and hands them to workers. */
static void
trash_rename_from(gr_logs_t *m, trash_wait_t **list, int max)
{
    while (*list != NULL && max != 0) {
        int n = max > 0 && max < TRASH_CHUNK ? max : TRASH_CHUNK;
        trash_job_t *job = trash_job_new(m, n, true);
        for (int i = 0; i < n && *list != NULL; i++) {
            trash_wait_t *w = *list;
            *list = w->next;
            trash_rename(m, w, job);
            free(w->topic);
            free(w);
        }
        trash_submit(m, job);
        if (max > 0)
            max -= n;
    }
}

/* Renames up to max waiting directories (max < 0: all). */
static void
trash_run(gr_logs_t *m, int max)
{
    trash_rename_from(m, &m->trash_head, max);
    if (m->trash_head == NULL)
        m->trash_tail = NULL;
}

/* Takes the waiting directories match() accepts out of the queue, in
 * order, as a list of their own. */
static trash_wait_t *
trash_take(gr_logs_t *m, bool (*match)(const trash_wait_t *, const void *),
           const void *arg)
{
    trash_wait_t **pw = &m->trash_head, *taken = NULL, **tail = &taken;
    trash_wait_t *last = NULL;

    while (*pw != NULL) {
        trash_wait_t *w = *pw;
        if (match(w, arg)) {
            *pw = w->next;
            w->next = NULL;
            *tail = w;
            tail = &w->next;
        } else {
            last = w;
            pw = &w->next;
        }
    }
    m->trash_tail = last;
    return taken;
}

typedef struct {
    const char *topic;
    int32_t partition;
} trash_name_t;

static bool
trash_named(const trash_wait_t *w, const void *arg)
{
    const trash_name_t *k = arg;
    return w->partition == k->partition && strcmp(w->topic, k->topic) == 0;
}

static bool
trash_of_topic(const trash_wait_t *w, const void *arg)
{
    return memcmp(&w->id, arg, sizeof w->id) == 0;
}

void
gr_logs_trash_flush(gr_logs_t *m)
{
    trash_run(m, -1);
}

int
gr_logs_trash_waiting(const gr_logs_t *m)
{
    int n = 0;
    for (const trash_wait_t *w = m->trash_head; w != NULL; w = w->next)
        n++;
    return n;
}

void
gr_logs_trash_flush_for(gr_logs_t *m, const char *topic, int32_t partition)
{
    trash_name_t k = { topic, partition };
    trash_wait_t *named;

    if (m->trash_holds == 0) {
        trash_run(m, -1);
        return;
    }
    named = trash_take(m, trash_named, &k); /* the others keep waiting */
    trash_rename_from(m, &named, -1);
}

static void trash_turn(gr_loop_t *loop, void *arg);

/* A loop turn renames the next chunk, unless one is posted or the queue
 * is held; without a loop, all go now. */
static void
trash_post(gr_logs_t *m)
{
    if (m->trash_posted || m->trash_holds > 0)
        return;
    if (m->loop != NULL && gr_loop_post(m->loop, trash_turn, m) == 0) {
        m->trash_posted = true;
        m->refs++;
    } else {
        gr_logs_trash_flush(m);
    }
}

static void
trash_turn(gr_loop_t *loop, void *arg)
{
    gr_logs_t *m = arg;
    m->trash_posted = false;
    if (m->trash_holds == 0) /* else the release posts a turn */
        trash_run(m, TRASH_CHUNK);
    if (m->trash_head != NULL && m->trash_holds == 0) {
        if (gr_loop_post(loop, trash_turn, m) == 0) {
            m->trash_posted = true;
            return; /* the post keeps its reference */
        }
        gr_logs_trash_flush(m);
    }
    gr_logs_unref(m);
}

void
gr_logs_trash_dir(gr_logs_t *m, const char *dir, const char *topic,
                  int32_t partition, const gr_uuid_t *topic_id)
{
    size_t n = strlen(dir) + 1;
    trash_wait_t *w = calloc(1, sizeof(*w) + n);
    if (w == NULL || (w->topic = strdup(topic)) == NULL) {
        free(w);
        GR_LOG_WARN("out of memory: removing %s in place", dir);
        if (gr_logs_rmrf(dir) != 0)
            GR_LOG_ERROR("cannot remove %s: %s", dir, strerror(errno));
        return;
    }
    memcpy(w->dir, dir, n);
    w->partition = partition;
    if (topic_id != NULL)
        w->id = *topic_id;
    if (m->trash_tail != NULL)
        m->trash_tail->next = w;
    else
        m->trash_head = w;
    m->trash_tail = w;
    trash_post(m);
}

void
gr_logs_trash_hold(gr_logs_t *m)
{
    m->trash_holds++;
}

void
gr_logs_trash_release(gr_logs_t *m)
{
    GR_ASSERT(m->trash_holds > 0);
    if (--m->trash_holds == 0 && m->trash_head != NULL)
        trash_post(m);
}

int
gr_logs_trash_keep(gr_logs_t *m, const gr_uuid_t *id)
{
    trash_wait_t *kept;
    int n = 0;

    if (gr_uuid_is_zero(id))
        return 0;
    kept = trash_take(m, trash_of_topic, id);
    while (kept != NULL) {
        trash_wait_t *w = kept;
        kept = w->next;
        GR_LOG_WARN("keeping %s: the deletion of topic %s could not be "
                    "stored, and the topic is back at the next start",
                    w->dir, w->topic);
        free(w->topic);
        free(w);
        n++;
    }
    return n;
}

/* Directories a deletion left behind (a stop before the worker removed
 * them) go at start-up, as LogManager does. */
static void
trash_leftovers(gr_logs_t *m)
{
    char path[GR_SEG_PATH_MAX];
    trash_job_t *job = NULL;
    struct dirent *de;
    DIR *d = opendir(m->dir);
    size_t n;
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        n = strlen(de->d_name);
        if (n > 7 && strcmp(de->d_name + n - 7, "-delete") == 0) {
            snprintf(path, sizeof path, "%s/%s", m->dir, de->d_name);
            GR_LOG_INFO("removing %s, left by a topic deletion", path);
            if (job == NULL)
                job = trash_job_new(m, TRASH_CHUNK, false);
            trash_add(m, job, path, false);
            if (job != NULL && job->n == TRASH_CHUNK) {
                trash_submit(m, job);
                job = NULL;
            }
        }
    }
    closedir(d);
    trash_submit(m, job);
}

int
gr_logs_finish_deletion(gr_logs_t *m, const char *topic, const gr_uuid_t *id,
                        int32_t nparts, int32_t live_nparts)
{
    char dir[GR_SEG_PATH_MAX], b64[23];
    struct stat st;
    int n = 0;

    gr_uuid_to_base64(id, b64);
    for (int32_t p = 0; p < nparts; p++) {
        if (snprintf(dir, sizeof dir, "%s/%s-%d", m->dir, topic, (int)p) >=
                (int)sizeof dir ||
            stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        /* a directory of the live topic of that name is its own (one of
         * another incarnation is moved aside when its log opens) */
        if (p < live_nparts && !gr_log_dir_names(dir, id))
            continue;
        GR_LOG_INFO("removing %s: the deletion of topic %s (%s) was cut short",
                    dir, topic, b64);
        gr_logs_trash_dir(m, dir, topic, p, id);
        n++;
    }
    return n;
}

/* --- the LRU of open segment files */

static void
lru_unlink(gr_logs_t *m, gr_segment_t *seg)
{
    if (seg->lru_prev)
        seg->lru_prev->lru_next = seg->lru_next;
    else
        m->lru_head = seg->lru_next;
    if (seg->lru_next)
        seg->lru_next->lru_prev = seg->lru_prev;
    else
        m->lru_tail = seg->lru_prev;
    seg->lru_prev = seg->lru_next = NULL;
}

static void
lru_push_front(gr_logs_t *m, gr_segment_t *seg)
{
    seg->lru_prev = NULL;
    seg->lru_next = m->lru_head;
    if (m->lru_head)
        m->lru_head->lru_prev = seg;
    else
        m->lru_tail = seg;
    m->lru_head = seg;
}

void
gr_logs_seg_release(gr_logs_t *m, gr_segment_t *seg)
{
    if (seg->file == NULL)
        return;
    lru_unlink(m, seg);
    gr_file_unref(seg->file);
    seg->file = NULL;
    m->open_files--;
}

int
gr_logs_seg_adopt(gr_logs_t *m, gr_segment_t *seg, int fd)
{
    gr_file_t *f = gr_file_new(fd);
    GR_ASSERT(seg->file == NULL);
    if (f == NULL)
        return -1;
    seg->file = f;
    lru_push_front(m, seg);
    m->open_files++;
    /* the least recently used go; their fds live on in slices holding a
     * reference */
    while (m->open_files > m->max_open_files && m->lru_tail != seg)
        gr_logs_seg_release(m, m->lru_tail);
    return 0;
}

gr_file_t *
gr_logs_seg_file(gr_logs_t *m, const gr_log_t *l, gr_segment_t *seg)
{
    char path[GR_SEG_PATH_MAX];
    int fd;

    if (seg->file != NULL) {
        if (m->lru_head != seg) {
            lru_unlink(m, seg);
            lru_push_front(m, seg);
        }
        return seg->file;
    }
    gr_segment_path(path, l->dir, seg->base, ".log");
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        GR_LOG_ERROR("cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    if (gr_logs_seg_adopt(m, seg, fd) != 0)
        return NULL;
    return seg->file;
}

/* --- the checkpoint table */

static void
slots_insert(gr_logs_t *m, int idx)
{
    uint32_t mask = (uint32_t)m->nslots - 1;
    uint32_t h = gr_hash_tp(m->ck[idx].topic, strlen(m->ck[idx].topic),
                            m->ck[idx].partition) &
                 mask;
    while (m->slots[h] != -1)
        h = (h + 1) & mask;
    m->slots[h] = idx;
}

/* Rebuilds the hash with nslots slots, dropping removed entries from the
 * array first (nobody keeps pointers into it across calls). */
static int
slots_rebuild(gr_logs_t *m, int nslots)
{
    int32_t *slots = malloc((size_t)nslots * sizeof(*slots));
    int j = 0;
    if (slots == NULL)
        return -1;
    for (int i = 0; i < m->nck; i++)
        if (m->ck[i].topic != NULL)
            m->ck[j++] = m->ck[i];
    m->nck = j;
    free(m->slots);
    m->slots = slots;
    m->nslots = nslots;
    for (int i = 0; i < nslots; i++)
        slots[i] = -1;
    for (int i = 0; i < m->nck; i++)
        slots_insert(m, i);
    return 0;
}

gr_ckpt_t *
gr_logs_ckpt_find(gr_logs_t *m, const char *topic, int32_t partition)
{
    uint32_t mask, h;
    if (m->nslots == 0)
        return NULL;
    mask = (uint32_t)m->nslots - 1;
    for (h = gr_hash_tp(topic, strlen(topic), partition) & mask;
         m->slots[h] != -1; h = (h + 1) & mask) {
        gr_ckpt_t *e = &m->ck[m->slots[h]];
        if (e->topic != NULL && e->partition == partition &&
            strcmp(e->topic, topic) == 0)
            return e;
    }
    return NULL;
}

gr_ckpt_t *
gr_logs_ckpt_get(gr_logs_t *m, const char *topic, int32_t partition)
{
    gr_ckpt_t *e = gr_logs_ckpt_find(m, topic, partition);
    char *t;

    if (e != NULL)
        return e;
    if ((m->nck + 1) * 2 > m->nslots) {
        int n = m->nslots ? m->nslots : 64;
        while ((m->nck + 1) * 2 > n)
            n *= 2;
        if (slots_rebuild(m, n) != 0)
            return NULL;
    }
    if (m->nck == m->ck_cap) {
        int cap = m->ck_cap ? m->ck_cap * 2 : 32;
        gr_ckpt_t *p = realloc(m->ck, (size_t)cap * sizeof(*p));
        if (p == NULL)
            return NULL;
        m->ck = p;
        m->ck_cap = cap;
    }
    if ((t = strdup(topic)) == NULL)
        return NULL;
    e = &m->ck[m->nck];
    e->topic = t;
    e->partition = partition;
    e->recovery_point = -1;
    e->start_offset = -1;
    e->clean_offset = -1;
    e->high_watermark = -1;
    e->closing_rp = -1;
    e->log = NULL;
    slots_insert(m, m->nck++);
    return e;
}

/* Reads one checkpoint file into the table; a missing file is empty, a
 * malformed line stops the reading with a WARN (what was read stays: a
 * missing recovery point only means more recovery). */
static void
ckpt_read(gr_logs_t *m, const char *name, enum ckpt_kind kind)
{
    char path[GR_SEG_PATH_MAX];
    char *line = NULL;
    size_t cap = 0;
    long count = -1;
    int lineno = 0;
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", m->dir, name);
    f = fopen(path, "re");
    if (f == NULL) {
        if (errno != ENOENT)
            GR_LOG_WARN("cannot read %s: %s", path, strerror(errno));
        return;
    }
    while (getline(&line, &cap, f) > 0) {
        char topic[256];
        int partition;
        long long off;
        char extra;
        gr_ckpt_t *e;

        lineno++;
        if (lineno == 1) {
            if (strcmp(line, "0\n") != 0 && strcmp(line, "0") != 0)
                break;
            continue;
        }
        if (lineno == 2) {
            if (sscanf(line, "%ld %c", &count, &extra) != 1 || count < 0)
                break;
            continue;
        }
        if (sscanf(line, "%255s %d %lld %c", topic, &partition, &off, &extra) !=
                3 ||
            partition < 0 || off < 0)
            break;
        if ((e = gr_logs_ckpt_get(m, topic, partition)) == NULL)
            break;
        if (kind == CKPT_RECOVERY_POINT)
            e->recovery_point = off;
        else if (kind == CKPT_START_OFFSET)
            e->start_offset = off;
        else if (kind == CKPT_CLEAN_OFFSET)
            e->clean_offset = off;
        else
            e->high_watermark = off;
        if (--count == 0) {
            lineno = -1; /* done */
            break;
        }
    }
    if (lineno != -1 && !(lineno == 2 && count == 0))
        GR_LOG_WARN("%s: malformed at line %d, ignoring the rest", path,
                    lineno);
    free(line);
    fclose(f);
}

static void
ckpt_build(gr_logs_t *m, gr_buf_t *out, enum ckpt_kind kind)
{
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            gr_buf_printf(out, "0\n%d\n", n);
        for (int i = 0; i < m->nck; i++) {
            const gr_ckpt_t *e = &m->ck[i];
            int64_t v;
            if (e->topic == NULL)
                continue;
            if (e->log != NULL)
                v = kind == CKPT_RECOVERY_POINT ? e->log->recovery_point
                    : kind == CKPT_START_OFFSET ? e->log->start_offset
                    : kind == CKPT_CLEAN_OFFSET ? e->log->clean_offset
                                                : e->log->hw_ckpt;
            else
                v = kind == CKPT_RECOVERY_POINT ? e->recovery_point
                    : kind == CKPT_START_OFFSET ? e->start_offset
                    : kind == CKPT_CLEAN_OFFSET ? e->clean_offset
                                                : e->high_watermark;
            if (v < 0)
                continue;
            if (pass == 0)
                n++;
            else
                gr_buf_printf(out, "%s %d %" PRId64 "\n", e->topic,
                              (int)e->partition, v);
        }
    }
}

static gr_err_t
ckpt_write(const char *dir, gr_buf_t *rp, gr_buf_t *lso, gr_buf_t *cl,
           gr_buf_t *hw)
{
    gr_err_t err;
    if (rp->oom || lso->oom || cl->oom || hw->oom)
        return GR_ERR_NOMEM;
    err = gr_logs_write_atomic(dir, GR_LOG_RP_CHECKPOINT, (char *)rp->ptr,
                               rp->len);
    if (err == 0)
        err = gr_logs_write_atomic(dir, GR_LOG_LSO_CHECKPOINT, (char *)lso->ptr,
                                   lso->len);
    if (err == 0)
        err = gr_logs_write_atomic(dir, GR_LOG_CLEANER_CHECKPOINT,
                                   (char *)cl->ptr, cl->len);
    if (err == 0)
        err = gr_logs_write_atomic(dir, GR_LOG_HW_CHECKPOINT, (char *)hw->ptr,
                                   hw->len);
    return err;
}

gr_err_t
gr_logs_ckpt_write_now(gr_logs_t *m)
{
    gr_buf_t rp = GR_BUF_INIT, lso = GR_BUF_INIT, cl = GR_BUF_INIT;
    gr_buf_t hw = GR_BUF_INIT;
    gr_err_t err;
    if (m->nslots > 0)
        slots_rebuild(m, m->nslots); /* drop deleted logs' entries */
    ckpt_build(m, &rp, CKPT_RECOVERY_POINT);
    ckpt_build(m, &lso, CKPT_START_OFFSET);
    ckpt_build(m, &cl, CKPT_CLEAN_OFFSET);
    ckpt_build(m, &hw, CKPT_HIGH_WATERMARK);
    m->ckpt_dirty = false;
    err = ckpt_write(m->dir, &rp, &lso, &cl, &hw);
    if (err != 0)
        m->ckpt_dirty = true;
    gr_buf_fini(&rp);
    gr_buf_fini(&lso);
    gr_buf_fini(&cl);
    gr_buf_fini(&hw);
    return err;
}

static void
ckpt_work(void *arg)
{
    gr_ckpt_job_t *job = arg;
    job->err =
        ckpt_write(job->m->dir, &job->rp, &job->lso, &job->cl, &job->hw);
    __atomic_store_n(&job->finished, 1, __ATOMIC_RELEASE);
}

static void
ckpt_done(gr_loop_t *loop, void *arg)
{
    gr_ckpt_job_t *job = arg;
    gr_logs_t *m = job->m;
    (void)loop;
    m->ckpt_job = NULL;
    if (job->err != 0)
        m->ckpt_dirty = true;
    gr_buf_fini(&job->rp);
    gr_buf_fini(&job->lso);
    gr_buf_fini(&job->cl);
    gr_buf_fini(&job->hw);
    free(job);
    gr_logs_unref(m);
}

/* Writes the checkpoints on a worker: the contents are built now. */
static void
ckpt_submit(gr_logs_t *m)
{
    gr_ckpt_job_t *job = calloc(1, sizeof(*job));
    if (job == NULL)
        return;
    job->m = m;
    if (m->nslots > 0)
        slots_rebuild(m, m->nslots);
    ckpt_build(m, &job->rp, CKPT_RECOVERY_POINT);
    ckpt_build(m, &job->lso, CKPT_START_OFFSET);
    ckpt_build(m, &job->cl, CKPT_CLEAN_OFFSET);
    ckpt_build(m, &job->hw, CKPT_HIGH_WATERMARK);
    if (gr_workers_submit(m->workers, ckpt_work, ckpt_done, job) != 0) {
        gr_buf_fini(&job->rp);
        gr_buf_fini(&job->lso);
        gr_buf_fini(&job->cl);
        gr_buf_fini(&job->hw);
        free(job);
        return;
    }
    m->ckpt_dirty = false;
    m->ckpt_job = job;
    m->refs++;
}

/* --- the manager */

/* Whether dir has no entries (a data directory made empty for us). */
static bool
dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    bool empty = true;

    if (d == NULL)
        return false;
    while (empty && (de = readdir(d)) != NULL)
        empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
    closedir(d);
    return empty;
}

gr_logs_t *
gr_logs_open(const char *dir, gr_loop_t *loop, gr_workers_t *workers,
             int max_open_files, gr_err_t *err)
{
    char path[GR_SEG_PATH_MAX];
    gr_logs_t *m;
    bool fresh = true;

    *err = 0;
    if (mkdir(dir, 0755) != 0) {
        if (errno != EEXIST) {
            GR_LOG_ERROR("cannot create %s: %s", dir, strerror(errno));
            *err = GR_ERR_IO;
            return NULL;
        }
        fresh = dir_is_empty(dir);
    }
    m = calloc(1, sizeof(*m));
    if (m == NULL || (m->dir = strdup(dir)) == NULL) {
        free(m);
        *err = GR_ERR_NOMEM;
        return NULL;
    }
    m->loop = loop;
    m->workers = workers;
    m->refs = 1;
    m->max_open_files = max_open_files > 0 ? max_open_files : 1;

    /* the marker says the last shutdown was clean; removed now, so a crash
     * from here on leaves none (Kafka's CleanShutdownFileHandler) */
    snprintf(path, sizeof path, "%s/%s", dir, GR_LOG_CLEAN_MARKER);
    if (access(path, F_OK) == 0) {
        m->was_clean = true;
        if (unlink(path) != 0 || gr_logs_fsync_dir(dir) != 0) {
            GR_LOG_ERROR("cannot remove %s: %s", path, strerror(errno));
            *err = GR_ERR_IO;
            gr_logs_unref(m);
            return NULL;
        }
    }
    ckpt_read(m, GR_LOG_RP_CHECKPOINT, CKPT_RECOVERY_POINT);
    ckpt_read(m, GR_LOG_LSO_CHECKPOINT, CKPT_START_OFFSET);
    ckpt_read(m, GR_LOG_CLEANER_CHECKPOINT, CKPT_CLEAN_OFFSET);
    ckpt_read(m, GR_LOG_HW_CHECKPOINT, CKPT_HIGH_WATERMARK);
    trash_leftovers(m);
    if (fresh)
        GR_LOG_INFO("log dir %s: new, nothing to recover", dir);
    else
        GR_LOG_INFO("log dir %s: %s shutdown, %d checkpointed logs", dir,
                    m->was_clean ? "clean" : "unclean", m->nck);
    return m;
}

void
gr_logs_unref(gr_logs_t *m)
{
    if (--m->refs > 0)
        return;
    GR_ASSERT(m->logs == NULL && m->open_files == 0);
    for (int i = 0; i < m->nck; i++)
        free(m->ck[i].topic);
    free(m->ck);
    free(m->slots);
    free(m->dir);
    free(m);
}

void
gr_logs_close(gr_logs_t *m)
{
    static const char marker[] = "{\"version\":0,\"brokerEpoch\":-1}";
    bool ok = true;

    if (m == NULL)
        return;
    gr_logs_prepare_cancel(); /* the next start makes what they did not */
    gr_logs_trash_flush(m);
    m->closing_all = true;
    while (m->logs != NULL) {
        gr_log_t *l = m->logs;
        if (!gr_log_close_internal(l))
            ok = false;
        gr_log_unref(l);
    }
    /* everything written (segments, indexes, files beside them such as
     * producer snapshots) reaches the disk at once; then the recovery
     * points may move to the log ends */
    {
        int fd = open(m->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || syncfs(fd) != 0) {
            GR_LOG_ERROR("log dir %s: syncfs failed: %s", m->dir,
                         strerror(errno));
            ok = false;
        }
        if (fd >= 0)
            close(fd);
        for (int i = 0; i < m->nck; i++) {
            if (ok && m->ck[i].closing_rp >= 0)
                m->ck[i].recovery_point = m->ck[i].closing_rp;
            m->ck[i].closing_rp = -1;
        }
    }
    /* a checkpoint job still writing would race with ours: let it end */
    while (m->ckpt_job != NULL &&
           !__atomic_load_n(&m->ckpt_job->finished, __ATOMIC_ACQUIRE)) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    if (gr_logs_ckpt_write_now(m) != 0)
        ok = false;
    if (ok)
        ok = gr_logs_write_atomic(m->dir, GR_LOG_CLEAN_MARKER, marker,
                                  sizeof marker - 1) == 0;
    GR_LOG_INFO("log dir %s closed%s", m->dir,
                ok ? "" : " (not clean: a write failed)");
    m->closed = true;
    gr_logs_unref(m);
}

bool
gr_logs_was_clean(const gr_logs_t *m)
{
    return m->was_clean;
}

int
gr_logs_open_files(const gr_logs_t *m)
{
    return m->open_files;
}

int
gr_logs_maintain(gr_logs_t *m, int64_t now_ms)
{
    gr_log_t *l, *next;
    int n = 0;

    for (l = m->logs; l != NULL; l = next) {
        next = l->next;
        n += gr_log_periodic(l, now_ms);
    }
    if (m->ckpt_dirty && m->ckpt_job == NULL)
        ckpt_submit(m);
    return n;
}
