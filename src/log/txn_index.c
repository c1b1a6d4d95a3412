/*
 * Aborted-transaction index: see txn_index.h. Entries of every segment sit
 * in one array ordered by last offset, each with the base of the segment
 * whose file holds it.
 */
#include "log/txn_index.h"
#include "core/log.h"
#include "core/file.h"
#include "log/segment.h"
#include "proto/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SUFFIX ".txnindex"

typedef struct entry {
    gr_aborted_txn_t t;
    int64_t seg_base;
} entry_t;

struct gr_txnidx {
    char *dir;
    entry_t *e;
    int n, cap;
};

static int
list_files(const char *dir, int64_t **out)
{
    return gr_dir_bases(dir, SUFFIX, out);
}

static void
encode(uint8_t *p, const gr_aborted_txn_t *t)
{
    gr_put_u16(p, GR_TXNIDX_VERSION);
    gr_put_u64(p + 2, (uint64_t)t->producer_id);
    gr_put_u64(p + 10, (uint64_t)t->first_offset);
    gr_put_u64(p + 18, (uint64_t)t->last_offset);
    gr_put_u64(p + 26, (uint64_t)t->last_stable_offset);
}

static void
decode(const uint8_t *p, gr_aborted_txn_t *t)
{
    t->producer_id = (int64_t)gr_get_u64(p + 2);
    t->first_offset = (int64_t)gr_get_u64(p + 10);
    t->last_offset = (int64_t)gr_get_u64(p + 18);
    t->last_stable_offset = (int64_t)gr_get_u64(p + 26);
}

static int
push(gr_txnidx_t *ix, const gr_aborted_txn_t *t, int64_t seg_base)
{
    if (ix->n == ix->cap) {
        int cap = ix->cap ? ix->cap * 2 : 16;
        entry_t *e = realloc(ix->e, (size_t)cap * sizeof(*e));
        if (e == NULL)
            return -1;
        ix->e = e;
        ix->cap = cap;
    }
    ix->e[ix->n].t = *t;
    ix->e[ix->n].seg_base = seg_base;
    ix->n++;
    return 0;
}


/* Loads one file; false when it is damaged. Entries at or past leo are
 * cut off the file. */
static bool
load_file(gr_txnidx_t *ix, int64_t base, int64_t seg, int64_t leo)
{
    char path[GR_SEG_PATH_MAX];
    uint8_t buf[GR_TXNIDX_ENTRY];
    struct stat st;
    int64_t pos = 0, last = ix->n ? ix->e[ix->n - 1].t.last_offset : -1;
    bool ok = true;
    int fd;

    gr_segment_path(path, ix->dir, base, SUFFIX);
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        GR_LOG_ERROR("cannot open %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    if (st.st_size % GR_TXNIDX_ENTRY != 0) {
        GR_LOG_WARN("%s: size %lld is not a multiple of %d", path,
                    (long long)st.st_size, GR_TXNIDX_ENTRY);
        ok = false;
    }
    for (; ok && pos + GR_TXNIDX_ENTRY <= st.st_size; pos += GR_TXNIDX_ENTRY) {
        gr_aborted_txn_t t;
        if (pread(fd, buf, sizeof buf, pos) != (ssize_t)sizeof buf) {
            ok = false;
            break;
        }
        decode(buf, &t);
        if (gr_get_u16(buf) != GR_TXNIDX_VERSION || t.last_offset < base ||
            t.last_offset <= last || t.first_offset > t.last_offset ||
            t.first_offset < 0) {
            GR_LOG_WARN("%s: entry at %lld is not valid", path, (long long)pos);
            ok = false;
            break;
        }
        if (t.last_offset >= leo) {
            /* the log was cut below this marker (recovery) */
            GR_LOG_INFO("%s: removing entries past the log end %" PRId64, path,
                        leo);
            if (ftruncate(fd, pos) != 0)
                GR_LOG_ERROR("cannot truncate %s: %s", path, strerror(errno));
            break;
        }
        if (push(ix, &t, seg) != 0) {
            ok = false;
            break;
        }
        last = t.last_offset;
    }
    close(fd);
    return ok;
}

/* Writes the entries of segment seg as its whole file (tmp, rename). */
static gr_err_t
rewrite(gr_txnidx_t *ix, int64_t seg)
{
    char path[GR_SEG_PATH_MAX], tmp[GR_SEG_PATH_MAX + 8];
    uint8_t buf[GR_TXNIDX_ENTRY];
    bool ok = true;
    int fd;

    gr_segment_path(path, ix->dir, seg, SUFFIX);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        ok = false;
    for (int i = 0; ok && i < ix->n; i++) {
        if (ix->e[i].seg_base != seg)
            continue;
        encode(buf, &ix->e[i].t);
        ok = gr_write_full(fd, buf, sizeof buf) == 0;
    }
    if (fd >= 0 && (close(fd) != 0 || !ok || rename(tmp, path) != 0))
        ok = false;
    if (!ok) {
        GR_LOG_ERROR("cannot rewrite %s: %s", path, strerror(errno));
        unlink(tmp);
        return GR_ERR_IO;
    }
    return 0;
}

gr_txnidx_t *
gr_txnidx_open(const char *dir, int64_t leo, bool *damaged)
{
    gr_dir_names_t names;
    gr_txnidx_t *ix;
    if (gr_dir_names_read(dir, &names) != 0) {
        gr_dir_names_t none = { NULL, 0 };
        ix = gr_txnidx_open_listed(dir, &none, leo, damaged);
        if (ix != NULL)
            *damaged = true; /* unknown: rebuilt */
        return ix;
    }
    ix = gr_txnidx_open_listed(dir, &names, leo, damaged);
    gr_dir_names_free(&names);
    return ix;
}

gr_txnidx_t *
gr_txnidx_open_listed(const char *dir, const gr_dir_names_t *names, int64_t leo,
                      bool *damaged)
{
    gr_txnidx_t *ix = calloc(1, sizeof(*ix));
    int64_t *bases = NULL, *logs = NULL;
    int n, nlogs;

    *damaged = false;
    if (ix == NULL || (ix->dir = strdup(dir)) == NULL) {
        free(ix);
        return NULL;
    }
    n = gr_dir_names_bases(names, SUFFIX, &bases);
    nlogs = gr_dir_names_bases(names, ".log", &logs);
    if (n < 0 || nlogs < 0) {
        *damaged = true;
        free(bases);
        free(logs);
        return ix;
    }
    for (int i = 0; i < n; i++) {
        char path[GR_SEG_PATH_MAX];
        int64_t seg = -1;
        /* the segment holding base: the last log based at or below it */
        for (int k = 0; k < nlogs && logs[k] <= bases[i]; k++)
            seg = logs[k];
        gr_segment_path(path, dir, bases[i], SUFFIX);
        if (seg < 0) {
            GR_LOG_WARN("deleting a transaction index without a log: %s", path);
            unlink(path);
            continue;
        }
        if (!load_file(ix, bases[i], seg, leo))
            *damaged = true;
        if (seg != bases[i] && !*damaged) {
            /* left by a merge: fold it into its segment's file */
            GR_LOG_INFO("%s: folding into segment %" PRId64, path, seg);
            if (rewrite(ix, seg) == 0)
                unlink(path);
        }
    }
    free(logs);
    free(bases);
    return ix;
}

void
gr_txnidx_destroy(gr_txnidx_t *ix)
{
    if (ix == NULL)
        return;
    free(ix->e);
    free(ix->dir);
    free(ix);
}

void
gr_txnidx_reset(gr_txnidx_t *ix)
{
    int64_t *bases = NULL;
    int n = list_files(ix->dir, &bases);
    for (int i = 0; i < n; i++) {
        char path[GR_SEG_PATH_MAX];
        gr_segment_path(path, ix->dir, bases[i], SUFFIX);
        if (unlink(path) != 0 && errno != ENOENT)
            GR_LOG_ERROR("cannot delete %s: %s", path, strerror(errno));
    }
    free(bases);
    ix->n = 0;
}

gr_err_t
gr_txnidx_append(gr_txnidx_t *ix, int64_t seg_base, const gr_aborted_txn_t *t)
{
    char path[GR_SEG_PATH_MAX];
    uint8_t buf[GR_TXNIDX_ENTRY];
    gr_err_t err = 0;
    int fd;

    if (ix->n > 0 && ix->e[ix->n - 1].t.last_offset >= t->last_offset)
        return 0; /* indexed already */
    if (push(ix, t, seg_base) != 0)
        return GR_ERR_NOMEM;
    encode(buf, t);
    gr_segment_path(path, ix->dir, seg_base, SUFFIX);
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 || gr_write_full(fd, buf, sizeof buf) != 0) {
        GR_LOG_ERROR("cannot append to %s: %s", path, strerror(errno));
        err = GR_ERR_IO;
    }
    if (fd >= 0)
        close(fd);
    return err;
}

int
gr_txnidx_collect(const gr_txnidx_t *ix, int64_t from, int64_t upper,
                  void (*cb)(void *arg, const gr_aborted_txn_t *t), void *arg)
{
    int lo = 0, hi = ix->n, calls = 0;
    /* the first entry whose last offset >= from */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (ix->e[mid].t.last_offset < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int i = lo; i < ix->n; i++) {
        const gr_aborted_txn_t *t = &ix->e[i].t;
        if (t->first_offset < upper) {
            cb(arg, t);
            calls++;
        }
        if (t->last_stable_offset >= upper)
            break;
    }
    return calls;
}

gr_err_t
gr_txnidx_merged(gr_txnidx_t *ix, int64_t base, int64_t end)
{
    int64_t *bases = NULL;
    bool any = false;
    gr_err_t err = 0;
    int n;

    for (int i = 0; i < ix->n; i++)
        if (ix->e[i].seg_base >= base && ix->e[i].seg_base < end) {
            ix->e[i].seg_base = base;
            any = true;
        }
    if (any)
        err = rewrite(ix, base);
    if (err != 0)
        return err;
    /* the replaced segments' files */
    n = list_files(ix->dir, &bases);
    for (int i = 0; i < n; i++)
        if (bases[i] > base && bases[i] < end) {
            char path[GR_SEG_PATH_MAX];
            gr_segment_path(path, ix->dir, bases[i], SUFFIX);
            unlink(path);
        }
    if (!any && n > 0) {
        char path[GR_SEG_PATH_MAX];
        gr_segment_path(path, ix->dir, base, SUFFIX);
        unlink(path); /* a merged segment without aborts keeps none */
    }
    free(bases);
    return 0;
}

void
gr_txnidx_drop_before(gr_txnidx_t *ix, int64_t seg_base)
{
    int k = 0;
    while (k < ix->n && ix->e[k].seg_base < seg_base)
        k++;
    if (k == 0)
        return;
    memmove(ix->e, ix->e + k, (size_t)(ix->n - k) * sizeof(ix->e[0]));
    ix->n -= k;
}

int
gr_txnidx_count(const gr_txnidx_t *ix)
{
    return ix->n;
}
