/* One segment and its indexes: see segment.h for the file formats. */
#include "log/segment.h"

#include "core/log.h"
#include "core/time.h"
#include "proto/wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

gr_segment_t *
gr_segment_new(int64_t base, int64_t created_ms)
{
    gr_segment_t *seg = calloc(1, sizeof(*seg));
    if (seg == NULL)
        return NULL;
    seg->base = base;
    seg->created_ms = created_ms;
    seg->max_ts = -1;
    seg->max_ts_offset = -1;
    return seg;
}

void
gr_segment_free(gr_segment_t *seg)
{
    if (seg == NULL)
        return;
    GR_ASSERT(seg->file == NULL);
    gr_index_fini(&seg->oidx);
    gr_index_fini(&seg->tidx);
    free(seg);
}

void
gr_segment_path(char *out, const char *dir, int64_t base, const char *suffix)
{
    int n = snprintf(out, GR_SEG_PATH_MAX, "%s/%020" PRId64 "%s", dir, base,
                     suffix);
    GR_ASSERT(n > 0 && n < GR_SEG_PATH_MAX);
}

/* --- indexes */

void
gr_index_fini(gr_index_t *ix)
{
    free(ix->ent);
    memset(ix, 0, sizeof(*ix));
}

void
gr_index_reset(gr_index_t *ix)
{
    ix->n = 0;
    ix->stored = 0;
    ix->exact = false;
    ix->loaded = true;
}

/* Room for one more entry: doubling, so appends allocate O(log n) times. */
static bool
index_grow(gr_index_t *ix, size_t esz)
{
    uint32_t cap;
    uint8_t *p;
    if (ix->n < ix->cap)
        return true;
    cap = ix->cap ? ix->cap * 2 : 64;
    p = realloc(ix->ent, (size_t)cap * esz);
    if (p == NULL)
        return false;
    ix->ent = p;
    ix->cap = cap;
    return true;
}

static inline uint32_t
oidx_rel(const gr_index_t *ix, uint32_t i)
{
    return gr_get_u32(ix->ent + (size_t)i * GR_OIDX_ENTRY);
}

static inline uint32_t
oidx_pos(const gr_index_t *ix, uint32_t i)
{
    return gr_get_u32(ix->ent + (size_t)i * GR_OIDX_ENTRY + 4);
}

static inline int64_t
tidx_ts(const gr_index_t *ix, uint32_t i)
{
    return (int64_t)gr_get_u64(ix->ent + (size_t)i * GR_TIDX_ENTRY);
}

static inline uint32_t
tidx_rel(const gr_index_t *ix, uint32_t i)
{
    return gr_get_u32(ix->ent + (size_t)i * GR_TIDX_ENTRY + 8);
}

bool
gr_oidx_append(gr_index_t *ix, uint32_t rel, uint32_t pos)
{
    uint8_t *e;
    if (ix->n > 0 &&
        (rel <= oidx_rel(ix, ix->n - 1) || pos <= oidx_pos(ix, ix->n - 1)))
        return false;
    if (!index_grow(ix, GR_OIDX_ENTRY))
        return false;
    e = ix->ent + (size_t)ix->n * GR_OIDX_ENTRY;
    gr_put_u32(e, rel);
    gr_put_u32(e + 4, pos);
    ix->n++;
    return true;
}

/* The number of entries whose relative offset (by_pos: position) is at
 * most key: both grow with the entries. */
static uint32_t
oidx_upper(const gr_index_t *ix, int64_t key, bool by_pos)
{
    uint32_t lo = 0, hi = ix->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if ((int64_t)(by_pos ? oidx_pos(ix, mid) : oidx_rel(ix, mid)) <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t
gr_oidx_lookup(const gr_index_t *ix, int64_t rel)
{
    uint32_t k = oidx_upper(ix, rel, false);
    return k == 0 ? 0 : oidx_pos(ix, k - 1);
}

uint32_t
gr_oidx_pos_floor(const gr_index_t *ix, int64_t pos)
{
    uint32_t k = oidx_upper(ix, pos, true);
    return k == 0 ? 0 : oidx_pos(ix, k - 1);
}

void
gr_tidx_last(const gr_index_t *ix, int64_t *ts, uint32_t *rel)
{
    if (ix->n == 0) {
        *ts = -1;
        *rel = 0;
        return;
    }
    *ts = tidx_ts(ix, ix->n - 1);
    *rel = tidx_rel(ix, ix->n - 1);
}

bool
gr_tidx_maybe_append(gr_index_t *ix, int64_t ts, uint32_t rel)
{
    int64_t last_ts;
    uint32_t last_rel;
    uint8_t *e;

    gr_tidx_last(ix, &last_ts, &last_rel);
    if (ts <= last_ts || rel < last_rel)
        return false;
    if (!index_grow(ix, GR_TIDX_ENTRY))
        return false;
    e = ix->ent + (size_t)ix->n * GR_TIDX_ENTRY;
    gr_put_u64(e, (uint64_t)ts);
    gr_put_u32(e + 8, rel);
    ix->n++;
    return true;
}

uint32_t
gr_tidx_lookup(const gr_index_t *ix, int64_t ts)
{
    uint32_t lo = 0, hi = ix->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tidx_ts(ix, mid) <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo == 0 ? 0 : tidx_rel(ix, lo - 1);
}

const char *
gr_oidx_check(const gr_index_t *ix, int64_t max_rel, int64_t seg_size)
{
    for (uint32_t i = 0; i < ix->n; i++) {
        uint32_t rel = oidx_rel(ix, i), pos = oidx_pos(ix, i);
        if ((int64_t)rel > max_rel)
            return "offset past the segment";
        if ((int64_t)pos >= seg_size)
            return "position past the end of the segment";
        if (i > 0 && (rel <= oidx_rel(ix, i - 1) || pos <= oidx_pos(ix, i - 1)))
            return "entries not increasing";
        if (rel > INT32_MAX || pos > INT32_MAX)
            return "negative entry";
    }
    return NULL;
}

const char *
gr_tidx_check(const gr_index_t *ix, int64_t max_rel)
{
    for (uint32_t i = 0; i < ix->n; i++) {
        uint32_t rel = tidx_rel(ix, i);
        if ((int64_t)rel > max_rel || rel > INT32_MAX)
            return "offset past the segment";
        if (i > 0 &&
            (tidx_ts(ix, i) < tidx_ts(ix, i - 1) || rel < tidx_rel(ix, i - 1)))
            return "entries not increasing";
    }
    return NULL;
}

gr_err_t
gr_index_read(const char *path, size_t esz, gr_index_t *ix)
{
    struct stat st;
    uint32_t n, cap;
    size_t len, got = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        if (errno == ENOENT)
            return GR_ERR_NOT_FOUND;
        GR_LOG_ERROR("cannot open %s: %s", path, strerror(errno));
        return GR_ERR_IO;
    }
    if (fstat(fd, &st) != 0) {
        GR_LOG_ERROR("cannot stat %s: %s", path, strerror(errno));
        close(fd);
        return GR_ERR_IO;
    }
    if (st.st_size % (off_t)esz != 0 ||
        st.st_size / (off_t)esz > (off_t)INT32_MAX) {
        close(fd);
        return GR_ERR_CORRUPT;
    }
    n = (uint32_t)(st.st_size / (off_t)esz);
    len = (size_t)n * esz;
    if (n > ix->cap) {
        uint8_t *p;
        cap = n < 64 ? 64 : n;
        p = realloc(ix->ent, (size_t)cap * esz);
        if (p == NULL) {
            close(fd);
            return GR_ERR_NOMEM;
        }
        ix->ent = p;
        ix->cap = cap;
    }
    while (got < len) {
        ssize_t r = pread(fd, ix->ent + got, len - got, (off_t)got);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            GR_LOG_ERROR("cannot read %s: %s", path,
                         r < 0 ? strerror(errno) : "short file");
            close(fd);
            return GR_ERR_IO;
        }
        got += (size_t)r;
    }
    close(fd);
    ix->n = n;
    ix->stored = n;
    ix->exact = true;
    ix->loaded = true;
    return 0;
}

static gr_err_t
pwrite_all(int fd, const uint8_t *p, size_t n, off_t at)
{
    while (n > 0) {
        ssize_t w = pwrite(fd, p, n, at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return errno == ENOSPC ? GR_ERR_NOSPACE : GR_ERR_IO;
        p += w;
        n -= (size_t)w;
        at += w;
    }
    return 0;
}

/* --- directory listings */

int
gr_dir_names_read(const char *dir, gr_dir_names_t *out)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int cap = 0, saved;

    out->v = NULL;
    out->n = 0;
    if (d == NULL)
        return -1;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (out->n == cap) {
            char **v = realloc(out->v,
                               (size_t)(cap = cap ? cap * 2 : 16) * sizeof(*v));
            if (v == NULL)
                goto nomem;
            out->v = v;
        }
        if ((out->v[out->n] = strdup(de->d_name)) == NULL)
            goto nomem;
        out->n++;
    }
    closedir(d);
    return 0;
nomem:
    saved = ENOMEM;
    closedir(d);
    gr_dir_names_free(out);
    errno = saved;
    return -1;
}

void
gr_dir_names_free(gr_dir_names_t *d)
{
    for (int i = 0; i < d->n; i++)
        free(d->v[i]);
    free(d->v);
    d->v = NULL;
    d->n = 0;
}

bool
gr_seg_name_parse(const char *name, int64_t *base, const char **suffix)
{
    int64_t v = 0;
    for (int i = 0; i < 20; i++) {
        if (name[i] < '0' || name[i] > '9')
            return false;
        if (v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (name[i] - '0');
    }
    *base = v;
    *suffix = name + 20;
    return true;
}

static int
cmp_base(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int
gr_dir_names_bases(const gr_dir_names_t *d, const char *suffix, int64_t **out)
{
    int64_t *v = NULL, base;
    const char *sfx;
    int n = 0, cap = 0;

    for (int i = 0; i < d->n; i++) {
        if (!gr_seg_name_parse(d->v[i], &base, &sfx) || strcmp(sfx, suffix))
            continue;
        if (n == cap) {
            int64_t *p =
                realloc(v, (size_t)(cap = cap ? cap * 2 : 8) * sizeof(*v));
            if (p == NULL) {
                free(v);
                *out = NULL;
                return -1;
            }
            v = p;
        }
        v[n++] = base;
    }
    if (n > 1)
        qsort(v, (size_t)n, sizeof(*v), cmp_base);
    *out = v;
    return n;
}

int
gr_dir_bases(const char *dir, const char *suffix, int64_t **out)
{
    gr_dir_names_t names;
    int n;
    *out = NULL;
    if (gr_dir_names_read(dir, &names) != 0)
        return -1;
    n = gr_dir_names_bases(&names, suffix, out);
    gr_dir_names_free(&names);
    return n;
}

gr_err_t
gr_index_write(const char *path, size_t esz, gr_index_t *ix, bool whole)
{
    uint32_t from;
    gr_err_t err = 0;
    int fd;

    /* a file holding exactly the stored entries is made whole by
     * appending the rest (closing idle logs rewrote every index) */
    if (whole && ix->exact)
        whole = false;
    from = whole ? 0 : ix->stored;
    if (!whole && from >= ix->n)
        return 0;
    fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        GR_LOG_ERROR("cannot open %s: %s", path, strerror(errno));
        return GR_ERR_IO;
    }
    if (ix->n > from)
        err =
            pwrite_all(fd, ix->ent + (size_t)from * esz,
                       (size_t)(ix->n - from) * esz, (off_t)from * (off_t)esz);
    if (err == 0 && whole && ftruncate(fd, (off_t)ix->n * (off_t)esz) != 0)
        err = GR_ERR_IO;
    if (err != 0) {
        GR_LOG_ERROR("cannot write %s: %s", path, strerror(errno));
        ix->exact = false; /* a part may have been written */
    } else {
        ix->stored = ix->n;
        ix->exact = ix->exact || whole;
    }
    close(fd);
    return err;
}

/* --- batch headers */

void
gr_scan_init(gr_scan_t *s, int fd, int64_t pos, int64_t end)
{
    s->fd = fd;
    s->pos = pos;
    s->end = end;
    s->buf_pos = 0;
    s->buf_len = 0;
}

int
gr_scan_next(gr_scan_t *s, gr_batch_hdr_t *h, int64_t *pos, const char **why)
{
    const uint8_t *p;
    int64_t size;

    *why = NULL;
    if (s->pos >= s->end)
        return 0;
    if (s->end - s->pos < GR_BATCH_HEADER_SIZE) {
        *why = "partial batch header at the end";
        return GR_ERR_TRUNCATED;
    }
    if (s->pos < s->buf_pos ||
        s->pos + GR_BATCH_HEADER_SIZE > s->buf_pos + (int64_t)s->buf_len) {
        int64_t want = s->end - s->pos;
        ssize_t r;
        if (want > GR_SCAN_BUF)
            want = GR_SCAN_BUF;
        do
            r = pread(s->fd, s->buf, (size_t)want, (off_t)s->pos);
        while (r < 0 && errno == EINTR);
        if (r < GR_BATCH_HEADER_SIZE) {
            *why = r < 0 ? strerror(errno) : "file shorter than expected";
            s->buf_len = 0;
            return GR_ERR_IO;
        }
        s->buf_pos = s->pos;
        s->buf_len = (size_t)r;
    }
    p = s->buf + (s->pos - s->buf_pos);
    gr_batch_hdr_parse(p, h);
    if (h->length < GR_BATCH_MIN_LENGTH) {
        *why = "batch length below the header size";
        return GR_ERR_CORRUPT;
    }
    if (h->magic != 2) {
        *why = "magic is not 2";
        return GR_ERR_CORRUPT;
    }
    if (h->last_offset_delta < 0) {
        *why = "negative lastOffsetDelta";
        return GR_ERR_CORRUPT;
    }
    if (h->base_offset < 0 ||
        h->base_offset > INT64_MAX - h->last_offset_delta) {
        *why = "offsets out of range";
        return GR_ERR_CORRUPT;
    }
    size = (int64_t)gr_batch_size(h);
    if (size > s->end - s->pos) {
        *why = "batch goes past the end";
        return GR_ERR_TRUNCATED;
    }
    *pos = s->pos;
    s->pos += size;
    return 1;
}

/* --- recovery */

#define RECOVER_BUF (1u << 20)

gr_err_t
gr_segment_recover(gr_segment_t *seg, int fd, const char *dir, int32_t interval,
                   int64_t limit, gr_recovery_t *r)
{
    char path[GR_SEG_PATH_MAX];
    struct stat st;
    size_t cap = RECOVER_BUF, have = 0, off = 0;
    int64_t buf_pos = 0; /* file position of buf[0] */
    int64_t file_size, last_entry = 0, prev_last = seg->base - 1;
    const char *why = NULL;
    uint8_t *buf;
    gr_err_t err = 0;

    memset(r, 0, sizeof(*r));
    r->next_offset = seg->base;
    gr_segment_path(path, dir, seg->base, ".log");
    if (fstat(fd, &st) != 0) {
        GR_LOG_ERROR("cannot stat %s: %s", path, strerror(errno));
        return GR_ERR_IO;
    }
    file_size = st.st_size;
    if ((int64_t)cap > file_size)
        cap = file_size > GR_BATCH_HEADER_SIZE ? (size_t)file_size
                                               : GR_BATCH_HEADER_SIZE;
    buf = malloc(cap);
    if (buf == NULL)
        return GR_ERR_NOMEM;

    gr_index_reset(&seg->oidx);
    gr_index_reset(&seg->tidx);
    seg->max_ts = -1;
    seg->max_ts_offset = -1;
    seg->max_ts_known = true;
    seg->first_ts_known = false;
    seg->since_index = 0;

    for (;;) {
        size_t avail = have - off, need = 0;
        int64_t pos = buf_pos + (int64_t)off, last;
        gr_batch_hdr_t h;
        int rc = avail > 0 ? gr_batch_check(buf + off, avail, &need, &why)
                           : GR_ERR_TRUNCATED;

        if (rc == GR_ERR_TRUNCATED) {
            ssize_t got;
            if (avail == 0 && pos >= file_size)
                break; /* clean end */
            if (need == 0)
                need = GR_BATCH_HEADER_SIZE;
            if ((int64_t)need > file_size - pos) {
                why = "incomplete batch at the end of the file";
                break;
            }
            /* keep the partial batch, make room, read on */
            memmove(buf, buf + off, avail);
            buf_pos = pos;
            off = 0;
            have = avail;
            if (need > cap) {
                uint8_t *nb = realloc(buf, need);
                if (nb == NULL) {
                    err = GR_ERR_NOMEM;
                    break;
                }
                buf = nb;
                cap = need;
            }
            do
                got = pread(fd, buf + have, cap - have,
                            (off_t)(buf_pos + (int64_t)have));
            while (got < 0 && errno == EINTR);
            if (got <= 0) {
                GR_LOG_ERROR("cannot read %s: %s", path,
                             got < 0 ? strerror(errno) : "short file");
                err = GR_ERR_IO;
                break;
            }
            have += (size_t)got;
            continue;
        }
        if (rc != 0)
            break; /* corrupt: why is set */

        gr_batch_hdr_parse(buf + off, &h);
        if (h.base_offset > INT64_MAX - h.last_offset_delta) {
            why = "offsets out of range";
            break;
        }
        last = gr_batch_last_offset(&h);
        if (h.base_offset < seg->base) {
            why = "offset below the segment's base offset";
            break;
        }
        if (h.base_offset <= prev_last) {
            why = "offsets not increasing";
            break;
        }
        if (last >= limit) {
            why = "offset past the next segment's base offset";
            break;
        }
        if (last - seg->base > INT32_MAX) {
            why = "offset too far from the segment's base offset";
            break;
        }

        /* as LogSegment.recover: the index entry goes to the batch that
         * starts more than interval bytes after the previous entry */
        if (!seg->first_ts_known) {
            seg->first_ts = h.max_timestamp;
            seg->first_ts_known = true;
        }
        if (h.max_timestamp > seg->max_ts) {
            seg->max_ts = h.max_timestamp;
            seg->max_ts_offset = last;
        }
        if (r->valid - last_entry > interval) {
            gr_oidx_append(&seg->oidx, (uint32_t)(last - seg->base),
                           (uint32_t)r->valid);
            gr_tidx_maybe_append(&seg->tidx, seg->max_ts,
                                 (uint32_t)(seg->max_ts_offset - seg->base));
            last_entry = r->valid;
        }
        r->valid += (int64_t)need;
        r->next_offset = last + 1;
        r->batches++;
        prev_last = last;
        off += need;
    }
    free(buf);
    if (err != 0)
        return err;

    if (why != NULL || r->valid < file_size) {
        r->truncated = file_size - r->valid;
        GR_LOG_WARN("%s: %s at position %" PRId64 ": truncating %" PRId64
                    " bytes",
                    path, why ? why : "trailing bytes", r->valid, r->truncated);
        if (ftruncate(fd, (off_t)r->valid) != 0) {
            GR_LOG_ERROR("cannot truncate %s: %s", path, strerror(errno));
            return GR_ERR_IO;
        }
    }
    seg->size = r->valid;
    if (seg->max_ts_offset >= 0)
        gr_tidx_maybe_append(&seg->tidx, seg->max_ts,
                             (uint32_t)(seg->max_ts_offset - seg->base));
    gr_segment_path(path, dir, seg->base, ".index");
    err = gr_index_write(path, GR_OIDX_ENTRY, &seg->oidx, true);
    gr_segment_path(path, dir, seg->base, ".timeindex");
    if (err == 0)
        err = gr_index_write(path, GR_TIDX_ENTRY, &seg->tidx, true);
    seg->rebuild = false;
    return err;
}
