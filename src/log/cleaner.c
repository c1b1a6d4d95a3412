/*
 * The log cleaner (Kafka's LogCleaner, LogCleanerManager and Cleaner):
 * compaction of logs whose cleanup.policy has compact. See log.h for the
 * contract. One cleaning is a job in three steps:
 *
 *   choose (loop)   the dirtiest log; its range [first dirty offset, first
 *                   uncleanable offset): the active segment, segments with
 *                   data younger than min.compaction.lag.ms and everything
 *                   after them are never cleaned; a snapshot of the
 *                   segments (base, size) it will read
 *   clean (worker)  reads the segments by path with its own fds: a map of
 *                   key -> latest offset over the dirty range (128-bit
 *                   hashes, as Kafka's MD5 map), then every segment below
 *                   the map's end is rewritten, grouped up to segment.bytes,
 *                   into <base>.log.cleaned and its indexes, keeping:
 *                     - the latest record of every key (offsets unchanged,
 *                       batches keep baseOffset and lastOffsetDelta)
 *                     - tombstones until their delete horizon: the first
 *                       cleaning that keeps one stamps its batch with
 *                       now + delete.retention.ms (attribute bit 6, the
 *                       horizon in baseTimestamp, KIP-534); a later one
 *                       past the horizon drops it
 *                     - control batches (transaction markers) untouched
 *                   keyless records go (a compacted topic refuses them on
 *                   produce; Kafka's cleaner drops them too). Unchanged
 *                   batches are copied byte for byte, others rebuilt with
 *                   the same codec. Files are fsynced, then renamed
 *                   .cleaned -> .swap (indexes, the range file
 *                   <base>.range.swap holding the end of the replaced
 *                   offsets, the .log last: its rename commits the swap)
 *   swap (loop)     if the log still has exactly the segments read, their
 *                   files are deleted and the .swap files renamed into
 *                   place, and the segment list updated; else the swap is
 *                   thrown away. The cleaner checkpoint moves to the map's
 *                   end.
 *
 * Crash safety: before a .log.swap exists nothing has changed; after, log
 * recovery (loader.c complete_swap) finishes the swap. On the loop the old
 * files are renamed .deleted and the .swap files take their names; a
 * worker then fsyncs the directory and deletes the .deleted files and the
 * range files (while a range file exists, recovery rechecks that the old
 * segments are gone). Readers holding file ranges of replaced segments
 * keep their fds.
 *
 * Transactions (gr_log_txns_t, from the producer state): the first
 * unstable offset bounds the cleanable range, so an open transaction's
 * records neither enter the key map nor shadow committed ones; the records
 * of aborted transactions (the aborted-transaction index, snapshotted when
 * the job starts) are left out of the map and dropped from the cleaned
 * segments, as Kafka's Cleaner does; control batches (markers) are kept as
 * they are (Kafka drops a marker once its transaction is empty and its
 * delete horizon passed; Gregor keeps them). A merge is reported back so
 * the aborted-transaction index follows the segments.
 */
#include "log/log_int.h"

#include "core/compress.h"
#include "core/fault.h"
#include "core/file.h"
#include "core/log.h"
#include "core/time.h"
#include "proto/wire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAP_ENTRY_BYTES 24  /* two 64-bit hash halves + offset */
#define MAP_LOAD        0.9 /* Kafka's log.cleaner.io.buffer.load.factor */
#define READ_CHUNK      (1 << 20) /* bytes read from a segment at a time */

/* --- 128-bit key hash (MurmurHash3 x64 128, written from its spec) */

static inline uint64_t
rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t
fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

static void
hash128(const uint8_t *p, size_t len, uint64_t out[2])
{
    const uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
    uint64_t h1 = 0x9747b28c, h2 = 0x9747b28c, k1, k2;
    size_t nblocks = len / 16, i;
    const uint8_t *tail;

    for (i = 0; i < nblocks; i++) {
        memcpy(&k1, p + i * 16, 8);
        memcpy(&k2, p + i * 16 + 8, 8);
        k1 *= c1;
        k1 = rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
        h1 = rotl64(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;
        k2 *= c2;
        k2 = rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
        h2 = rotl64(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
    }
    tail = p + nblocks * 16;
    k1 = k2 = 0;
    switch (len & 15) {
    case 15:
        k2 ^= (uint64_t)tail[14] << 48; /* fall through */
    case 14:
        k2 ^= (uint64_t)tail[13] << 40; /* fall through */
    case 13:
        k2 ^= (uint64_t)tail[12] << 32; /* fall through */
    case 12:
        k2 ^= (uint64_t)tail[11] << 24; /* fall through */
    case 11:
        k2 ^= (uint64_t)tail[10] << 16; /* fall through */
    case 10:
        k2 ^= (uint64_t)tail[9] << 8; /* fall through */
    case 9:
        k2 ^= (uint64_t)tail[8];
        k2 *= c2;
        k2 = rotl64(k2, 33);
        k2 *= c1;
        h2 ^= k2;
        /* fall through */
    case 8:
        k1 ^= (uint64_t)tail[7] << 56; /* fall through */
    case 7:
        k1 ^= (uint64_t)tail[6] << 48; /* fall through */
    case 6:
        k1 ^= (uint64_t)tail[5] << 40; /* fall through */
    case 5:
        k1 ^= (uint64_t)tail[4] << 32; /* fall through */
    case 4:
        k1 ^= (uint64_t)tail[3] << 24; /* fall through */
    case 3:
        k1 ^= (uint64_t)tail[2] << 16; /* fall through */
    case 2:
        k1 ^= (uint64_t)tail[1] << 8; /* fall through */
    case 1:
        k1 ^= (uint64_t)tail[0];
        k1 *= c1;
        k1 = rotl64(k1, 31);
        k1 *= c2;
        h1 ^= k1;
        break;
    default:
        break;
    }
    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
}

/* --- the offset map: key hash -> latest offset (Kafka's SkimpyOffsetMap).
 * Open addressing with linear probing; it grows by doubling up to the
 * budget; offset -1 marks an empty slot. */

typedef struct map_entry {
    uint64_t h[2];
    int64_t offset;
} map_entry_t;

typedef struct offset_map {
    map_entry_t *e;
    size_t cap;    /* slots, a power of two */
    size_t n;      /* keys */
    size_t budget; /* most slots allowed */
} offset_map_t;

static int
map_alloc(offset_map_t *m, size_t cap)
{
    map_entry_t *e = malloc(cap * sizeof(*e));
    if (e == NULL)
        return -1;
    for (size_t i = 0; i < cap; i++)
        e[i].offset = -1;
    m->e = e;
    m->cap = cap;
    return 0;
}

static map_entry_t *
map_slot(const offset_map_t *m, const uint64_t h[2])
{
    size_t i = (size_t)h[0] & (m->cap - 1);
    while (m->e[i].offset >= 0 &&
           (m->e[i].h[0] != h[0] || m->e[i].h[1] != h[1]))
        i = (i + 1) & (m->cap - 1);
    return &m->e[i];
}

/* Room for `more` keys without passing the load factor: grows when the
 * budget allows. false when the map is full. */
static bool
map_reserve(offset_map_t *m, size_t more)
{
    while ((double)(m->n + more) > (double)m->cap * MAP_LOAD) {
        offset_map_t bigger = *m;
        if (m->cap * 2 > m->budget)
            return false;
        if (map_alloc(&bigger, m->cap * 2) != 0)
            return false;
        bigger.n = 0;
        for (size_t i = 0; i < m->cap; i++)
            if (m->e[i].offset >= 0) {
                *map_slot(&bigger, m->e[i].h) = m->e[i];
                bigger.n++;
            }
        free(m->e);
        *m = bigger;
    }
    return true;
}

static void
map_put(offset_map_t *m, const uint64_t h[2], int64_t offset)
{
    map_entry_t *e = map_slot(m, h);
    if (e->offset < 0) {
        e->h[0] = h[0];
        e->h[1] = h[1];
        m->n++;
    }
    if (offset > e->offset)
        e->offset = offset;
}

static int64_t
map_get(const offset_map_t *m, const uint64_t h[2])
{
    if (m->n == 0)
        return -1;
    return map_slot(m, h)->offset;
}

/* --- the job */

typedef struct clean_seg {
    int64_t base;
    int64_t size;
    int64_t end; /* the next segment's base: every offset is below */
} clean_seg_t;

typedef struct clean_group {
    int first, n; /* job->segs[first, first + n) */
    int64_t base; /* segs[first].base: the cleaned segment's name */
    int64_t end;  /* segs[first + n - 1].end */
    int64_t size; /* bytes written */
    gr_index_t oidx, tidx;
    int64_t since_index;
    int64_t max_ts, max_ts_offset;
    int64_t first_ts; /* maxTimestamp of the first batch written, -1 */
} clean_group_t;

typedef struct gr_clean_job {
    gr_log_t *l; /* referenced; NULL once the log is forgotten */
    char *dir;
    int64_t now_ms;
    int64_t first_dirty;
    int64_t uncleanable;
    int64_t delete_retention_ms;
    int64_t max_seg_bytes;
    int32_t index_interval;
    size_t map_budget; /* slots */
    int nsegs;
    clean_seg_t *segs; /* non-active segments from the first, in order */
    int64_t *aborted;  /* (pid, first, marker) triples, by pid then first */
    int naborted;

    /* results (worker) */
    gr_err_t err;
    char why[256];
    int64_t map_end; /* the first offset not in the map */
    size_t map_keys;
    int ngroups;
    clean_group_t *groups;
    int64_t bytes_read, bytes_written, records_removed;
    int64_t min_horizon; /* earliest delete horizon written, -1 none */
    int64_t start_us, dur_us;
    int cancelled; /* atomic: the log went away, stop early */
} gr_clean_job_t;

/* Sequential batch reads of one segment file. */
typedef struct seg_reader {
    int fd;
    int64_t pos, end; /* next batch; file size to read */
    gr_buf_t buf;     /* file bytes [buf_pos, buf_pos + buf.len) */
    int64_t buf_pos;
} seg_reader_t;

static void job_fail(gr_clean_job_t *job, gr_err_t err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
job_fail(gr_clean_job_t *job, gr_err_t err, const char *fmt, ...)
{
    va_list ap;
    if (job->err)
        return;
    job->err = err;
    va_start(ap, fmt);
    vsnprintf(job->why, sizeof job->why, fmt, ap);
    va_end(ap);
}

/* Whether batch h holds records of an aborted transaction. */
static bool
aborted_batch(const gr_clean_job_t *job, const gr_batch_hdr_t *h)
{
    int lo = 0, hi = job->naborted;
    if (!(h->attributes & GR_ATTR_TRANSACTIONAL) || h->producer_id < 0)
        return false;
    while (lo < hi) { /* the first triple of the producer */
        int mid = lo + (hi - lo) / 2;
        if (job->aborted[3 * mid] < h->producer_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < job->naborted && job->aborted[3 * lo] == h->producer_id; lo++)
        if (job->aborted[3 * lo + 1] <= h->base_offset &&
            h->base_offset < job->aborted[3 * lo + 2])
            return true;
    return false;
}

static int
cmp_triple(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The next whole batch at r->pos: 1 (*p, *size set), 0 at the end, < 0 on
 * error (job->err set). */
static int
reader_next(gr_clean_job_t *job, seg_reader_t *r, const uint8_t **p,
            size_t *size)
{
    const char *why;
    size_t need = GR_BATCH_HEADER_SIZE;
    int rc;

    if (r->pos >= r->end)
        return 0;
    if (__atomic_load_n(&job->cancelled, __ATOMIC_RELAXED)) {
        job_fail(job, GR_ERR_IO, "cancelled");
        return -1;
    }
    for (;;) {
        int64_t have = r->buf_pos + (int64_t)r->buf.len - r->pos;
        if (r->pos < r->buf_pos || have < (int64_t)need) {
            size_t want = need > READ_CHUNK ? need : READ_CHUNK;
            ssize_t n;
            if ((int64_t)want > r->end - r->pos)
                want = (size_t)(r->end - r->pos);
            r->buf.len = 0;
            if (gr_buf_reserve(&r->buf, want) != 0) {
                job_fail(job, GR_ERR_NOMEM, "out of memory");
                return -1;
            }
            n = pread(r->fd, r->buf.ptr, want, (off_t)r->pos);
            if (n < 0 || GR_FAULT("cleaner.read", NULL)) {
                job_fail(job, GR_ERR_IO, "read error: %s",
                         strerror(n < 0 ? errno : EIO));
                return -1;
            }
            r->buf.len = (size_t)n;
            r->buf_pos = r->pos;
            have = n;
        }
        rc = gr_batch_check(r->buf.ptr + (r->pos - r->buf_pos), (size_t)have,
                            size, &why);
        if (rc == 0)
            break;
        if (rc == GR_ERR_TRUNCATED && *size > need &&
            (int64_t)*size <= r->end - r->pos) {
            need = *size;
            continue;
        }
        job_fail(job, GR_ERR_CORRUPT, "batch at position %" PRId64 ": %s",
                 r->pos, why ? why : "truncated");
        return -1;
    }
    *p = r->buf.ptr + (r->pos - r->buf_pos);
    r->pos += (int64_t)*size;
    job->bytes_read += (int64_t)*size;
    return 1;
}

static int
reader_open(gr_clean_job_t *job, seg_reader_t *r, const clean_seg_t *s)
{
    char path[GR_SEG_PATH_MAX];
    memset(r, 0, sizeof(*r));
    gr_segment_path(path, job->dir, s->base, ".log");
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        job_fail(job, GR_ERR_IO, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    r->end = s->size;
    return 0;
}

static void
reader_close(seg_reader_t *r)
{
    if (r->fd >= 0)
        close(r->fd);
    gr_buf_fini(&r->buf);
}

/* One record of a batch's (decompressed) payload. */
typedef struct rec {
    const uint8_t *start; /* the length varint */
    size_t len;           /* bytes from start */
    int8_t attributes;
    int64_t ts_delta;
    int32_t offset_delta;
    gr_bytes_t key;
    bool tombstone;
    const uint8_t *rest; /* from the key length varint on */
    size_t rest_len;
} rec_t;

static int
rec_next(gr_reader_t *r, rec_t *rec)
{
    gr_reader_t b;
    int32_t len, vlen;
    rec->start = r->p;
    len = gr_rd_varint(r);
    if (r->err || len < 0 || (size_t)len > gr_reader_remaining(r))
        return -1;
    b = gr_rd_sub(r, (uint32_t)len);
    rec->len = (size_t)(r->p - rec->start);
    rec->attributes = gr_rd_i8(&b);
    rec->ts_delta = gr_rd_varlong(&b);
    rec->offset_delta = gr_rd_varint(&b);
    rec->rest = b.p;
    rec->rest_len = gr_reader_remaining(&b);
    rec->key.len = gr_rd_varint(&b);
    if (b.err || rec->key.len < -1)
        return -1;
    rec->key.ptr =
        rec->key.len > 0 ? gr_rd_take(&b, (size_t)rec->key.len) : NULL;
    vlen = gr_rd_varint(&b);
    if (b.err)
        return -1;
    rec->tombstone = vlen < 0;
    return 0;
}

/* The records of batch p (size bytes) in *payload (decompressed into buf
 * when needed). 0 or -1. */
static int
batch_payload(gr_clean_job_t *job, const uint8_t *p, size_t size,
              const gr_batch_hdr_t *h, gr_buf_t *buf, gr_reader_t *payload)
{
    const uint8_t *data = p + GR_BATCH_HEADER_SIZE;
    size_t n = size - GR_BATCH_HEADER_SIZE;
    if (gr_batch_codec(h) != GR_CODEC_NONE) {
        buf->len = 0;
        if (gr_decompress(gr_batch_codec(h), data, n, buf, SIZE_MAX) != 0) {
            job_fail(job, GR_ERR_CORRUPT,
                     "cannot decompress the batch at offset %" PRId64,
                     h->base_offset);
            return -1;
        }
        data = buf->ptr;
        n = buf->len;
    }
    *payload = gr_reader_init(data, n);
    return 0;
}

/* Step 1: the map over [first_dirty, uncleanable). */
static void
build_map(gr_clean_job_t *job, offset_map_t *map)
{
    gr_buf_t dbuf = GR_BUF_INIT;
    bool full = false;

    job->map_end = job->first_dirty;
    for (int i = 0; i < job->nsegs && !full && !job->err; i++) {
        const clean_seg_t *s = &job->segs[i];
        seg_reader_t r;
        const uint8_t *p;
        size_t size;
        int rc;

        if (s->end <= job->first_dirty || s->base >= job->uncleanable)
            continue;
        if (reader_open(job, &r, s) != 0)
            break;
        while ((rc = reader_next(job, &r, &p, &size)) == 1) {
            gr_batch_hdr_t h;
            gr_reader_t pl;
            rec_t rec;
            gr_batch_hdr_parse(p, &h);
            if (gr_batch_last_offset(&h) < job->first_dirty)
                continue;
            if (h.base_offset >= job->uncleanable)
                break;
            if (!(h.attributes & GR_ATTR_CONTROL) && !aborted_batch(job, &h)) {
                if (!map_reserve(map, (size_t)(h.count > 0 ? h.count : 0))) {
                    full = true; /* the map ends before this batch */
                    break;
                }
                if (batch_payload(job, p, size, &h, &dbuf, &pl) != 0)
                    break;
                for (int32_t k = 0; k < h.count; k++) {
                    uint64_t hh[2];
                    int64_t off;
                    if (rec_next(&pl, &rec) != 0) {
                        job_fail(job, GR_ERR_CORRUPT,
                                 "malformed record in the batch at offset "
                                 "%" PRId64,
                                 h.base_offset);
                        break;
                    }
                    off = h.base_offset + rec.offset_delta;
                    if (rec.key.len < 0 || off < job->first_dirty)
                        continue;
                    hash128(rec.key.ptr ? rec.key.ptr : (const uint8_t *)"",
                            (size_t)rec.key.len, hh);
                    map_put(map, hh, off);
                }
            }
            job->map_end = gr_batch_last_offset(&h) + 1;
        }
        reader_close(&r);
        if (rc < 0)
            break;
    }
    gr_buf_fini(&dbuf);
    if (full && job->map_end <= job->first_dirty && !job->err)
        job_fail(job, GR_ERR_NOMEM,
                 "the key map (log.cleaner.dedupe.buffer.size) cannot hold "
                 "one batch");
    if (!full && !job->err && job->uncleanable > job->map_end)
        job->map_end = job->uncleanable;
    job->map_keys = map->n;
}

/* Groups the segments below end by size (Kafka's groupSegmentsBySize):
 * consecutive segments whose sizes add up to segment.bytes at most and
 * whose offsets stay within 2^31 of the group's base. */
static int
make_groups(gr_clean_job_t *job, int64_t end)
{
    int n = 0;
    while (n < job->nsegs && job->segs[n].base < end)
        n++;
    job->groups = calloc((size_t)(n > 0 ? n : 1), sizeof(*job->groups));
    if (job->groups == NULL)
        return -1;
    for (int i = 0; i < n;) {
        clean_group_t *g = &job->groups[job->ngroups++];
        int64_t bytes = job->segs[i].size;
        g->first = i;
        g->base = job->segs[i].base;
        g->n = 1;
        while (i + g->n < n) {
            const clean_seg_t *s = &job->segs[i + g->n];
            if (bytes + s->size > job->max_seg_bytes ||
                s->end - 1 - g->base > INT32_MAX)
                break;
            bytes += s->size;
            g->n++;
        }
        g->end = job->segs[i + g->n - 1].end;
        g->max_ts = -1;
        g->max_ts_offset = -1;
        g->first_ts = -1;
        i += g->n;
    }
    return 0;
}

/* Rebuilds batch h with the records kept (their encoded bytes in recs),
 * keeping baseOffset, lastOffsetDelta, producer fields and codec; with a
 * delete horizon (>= 0) it goes in baseTimestamp with attribute bit 6 and
 * the timestamp deltas are re-encoded against it. */
static int
rebuild_batch(gr_clean_job_t *job, const gr_batch_hdr_t *h, const rec_t *recs,
              int nrecs, int64_t horizon, gr_buf_t *raw, gr_buf_t *out)
{
    int64_t base_ts = horizon >= 0 ? horizon : h->base_timestamp;
    int64_t max_ts = -1;
    int16_t attrs = h->attributes;
    size_t start = out->len;
    gr_batch_hdr_t nh;

    raw->len = 0;
    for (int i = 0; i < nrecs; i++) {
        const rec_t *r = &recs[i];
        int64_t ts = h->base_timestamp + r->ts_delta;
        if (ts > max_ts)
            max_ts = ts;
        if (horizon < 0) {
            gr_buf_append(raw, r->start, r->len);
        } else {
            int64_t body = 1 + (int64_t)gr_sz_varlong(ts - base_ts) +
                           (int64_t)gr_sz_varint(r->offset_delta) +
                           (int64_t)r->rest_len;
            gr_records_put_varlong(raw, body);
            gr_buf_putc(raw, (char)r->attributes);
            gr_records_put_varlong(raw, ts - base_ts);
            gr_records_put_varlong(raw, r->offset_delta);
            gr_buf_append(raw, r->rest, r->rest_len);
        }
    }
    if (h->attributes & GR_ATTR_LOG_APPEND_TIME)
        max_ts = h->max_timestamp;
    if (horizon >= 0)
        attrs |= GR_ATTR_DELETE_HORIZON;
    if (gr_buf_reserve(out, GR_BATCH_HEADER_SIZE) != 0)
        return -1;
    out->len += GR_BATCH_HEADER_SIZE;
    if (gr_batch_codec(h) == GR_CODEC_NONE) {
        gr_buf_append(out, raw->ptr, raw->len);
    } else if (gr_compress(gr_batch_codec(h), raw->ptr, raw->len, out,
                           GR_COMPRESS_LEVEL_DEFAULT, 0) != 0) {
        job_fail(job, GR_ERR_IO,
                 "cannot recompress the batch at offset "
                 "%" PRId64,
                 h->base_offset);
        out->len = start;
        return -1;
    }
    if (raw->oom || out->oom) {
        job_fail(job, GR_ERR_NOMEM, "out of memory");
        return -1;
    }
    nh = *h;
    nh.attributes = attrs;
    nh.base_timestamp = base_ts;
    nh.max_timestamp = max_ts;
    nh.count = nrecs;
    gr_batch_hdr_write(out->ptr + start, out->len - start, &nh);
    return 0;
}

/* Appends batch bytes to the group's .cleaned file and its indexes. */
static int
group_append(gr_clean_job_t *job, clean_group_t *g, int fd, const uint8_t *p,
             size_t size)
{
    gr_batch_hdr_t h;
    size_t done = 0;
    int64_t last;

    gr_batch_hdr_parse(p, &h);
    last = gr_batch_last_offset(&h);
    if (g->size + (int64_t)size > INT32_MAX) {
        job_fail(job, GR_ERR_INVALID,
                 "cleaned segment %" PRId64 " would pass 2 GiB", g->base);
        return -1;
    }
    while (done < size) {
        ssize_t w =
            pwrite(fd, p + done, size - done, (off_t)(g->size + (int64_t)done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0 || GR_FAULT("cleaner.write", NULL)) {
            job_fail(job, w < 0 && errno == ENOSPC ? GR_ERR_NOSPACE : GR_ERR_IO,
                     "cannot write segment %" PRId64 ".log.cleaned: %s",
                     g->base, w < 0 ? strerror(errno) : "short write");
            return -1;
        }
        done += (size_t)w;
    }
    if (g->first_ts < 0 && g->size == 0)
        g->first_ts = h.max_timestamp;
    if (h.max_timestamp > g->max_ts) {
        g->max_ts = h.max_timestamp;
        g->max_ts_offset = last;
    }
    if (g->since_index > job->index_interval) {
        gr_oidx_append(&g->oidx, (uint32_t)(last - g->base), (uint32_t)g->size);
        gr_tidx_maybe_append(&g->tidx, g->max_ts,
                             (uint32_t)(g->max_ts_offset - g->base));
        g->since_index = 0;
    }
    g->since_index += (int64_t)size;
    g->size += (int64_t)size;
    job->bytes_written += (int64_t)size;
    return 0;
}

/* Step 2 for one segment of a group: filters its batches into fd. */
static int
clean_segment(gr_clean_job_t *job, const offset_map_t *map, clean_group_t *g,
              const clean_seg_t *s, int fd, gr_buf_t *dbuf, gr_buf_t *raw,
              gr_buf_t *out, rec_t **recs, int *recs_cap)
{
    seg_reader_t r;
    const uint8_t *p;
    size_t size;
    int rc;

    if (reader_open(job, &r, s) != 0)
        return -1;
    while ((rc = reader_next(job, &r, &p, &size)) == 1) {
        gr_batch_hdr_t h;
        gr_reader_t pl;
        int kept = 0;
        bool tombstones = false, has_horizon;
        int64_t horizon = -1;

        gr_batch_hdr_parse(p, &h);
        has_horizon = (h.attributes & GR_ATTR_DELETE_HORIZON) != 0;
        if (h.attributes & GR_ATTR_CONTROL) {
            /* transaction markers stay (see the file comment) */
            if (group_append(job, g, fd, p, size) != 0)
                break;
            continue;
        }
        if (aborted_batch(job, &h)) {
            job->records_removed += h.count; /* an aborted transaction's */
            continue;
        }
        if (batch_payload(job, p, size, &h, dbuf, &pl) != 0)
            break;
        if (h.count > *recs_cap) {
            int cap = h.count;
            rec_t *nr = realloc(*recs, (size_t)cap * sizeof(**recs));
            if (nr == NULL) {
                job_fail(job, GR_ERR_NOMEM, "out of memory");
                break;
            }
            *recs = nr;
            *recs_cap = cap;
        }
        for (int32_t k = 0; k < h.count; k++) {
            rec_t *rec = &(*recs)[kept];
            int64_t off, latest;
            uint64_t hh[2];
            if (rec_next(&pl, rec) != 0) {
                job_fail(job, GR_ERR_CORRUPT,
                         "malformed record in the batch at offset %" PRId64,
                         h.base_offset);
                goto out;
            }
            off = h.base_offset + rec->offset_delta;
            if (rec->key.len < 0) {
                job->records_removed++; /* keyless: Kafka drops them */
                continue;
            }
            hash128(rec->key.ptr ? rec->key.ptr : (const uint8_t *)"",
                    (size_t)rec->key.len, hh);
            latest = map_get(map, hh);
            if (latest >= 0 && off < latest) {
                job->records_removed++; /* a later record has the key */
                continue;
            }
            if (rec->tombstone && has_horizon &&
                job->now_ms >= h.base_timestamp) {
                job->records_removed++; /* past its delete horizon */
                continue;
            }
            if (rec->tombstone)
                tombstones = true;
            kept++;
        }
        if (kept == 0)
            continue; /* the whole batch goes */
        if (tombstones && !has_horizon)
            horizon = job->now_ms + job->delete_retention_ms;
        if (tombstones) {
            int64_t hz = has_horizon ? h.base_timestamp : horizon;
            if (job->min_horizon < 0 || hz < job->min_horizon)
                job->min_horizon = hz;
        }
        if (kept == h.count && horizon < 0) {
            if (group_append(job, g, fd, p, size) != 0)
                break;
            continue;
        }
        out->len = 0;
        if (rebuild_batch(job, &h, *recs, kept, horizon, raw, out) != 0 ||
            group_append(job, g, fd, out->ptr, out->len) != 0)
            break;
    }
out:
    reader_close(&r);
    return job->err ? -1 : 0;
}

static int
fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc;
    if (fd < 0)
        return -1;
    rc = fsync(fd);
    close(fd);
    return rc;
}

/* Step 2 and 3 for one group: .cleaned files, fsynced, renamed .swap. */
static void
clean_group(gr_clean_job_t *job, const offset_map_t *map, clean_group_t *g)
{
    char path[GR_SEG_PATH_MAX], to[GR_SEG_PATH_MAX], num[32];
    gr_buf_t dbuf = GR_BUF_INIT, raw = GR_BUF_INIT, out = GR_BUF_INIT;
    static const char *const names[] = { ".index", ".timeindex", ".range" };
    rec_t *recs = NULL;
    int recs_cap = 0, fd;

    gr_segment_path(path, job->dir, g->base, ".log.cleaned");
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        job_fail(job, GR_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        return;
    }
    g->oidx.loaded = true;
    g->tidx.loaded = true;
    for (int i = g->first; i < g->first + g->n && !job->err; i++)
        clean_segment(job, map, g, &job->segs[i], fd, &dbuf, &raw, &out, &recs,
                      &recs_cap);
    gr_buf_fini(&dbuf);
    gr_buf_fini(&raw);
    gr_buf_fini(&out);
    free(recs);
    if (!job->err && (fsync(fd) != 0 || GR_FAULT("cleaner.fsync", NULL)))
        job_fail(job, GR_ERR_IO, "cannot fsync %s: %s", path, strerror(errno));
    close(fd);
    if (!job->err && __atomic_load_n(&job->cancelled, __ATOMIC_RELAXED))
        job_fail(job, GR_ERR_IO, "cancelled");
    if (job->err)
        return;
    /* the last time index entry: the largest timestamp (as on roll) */
    if (g->max_ts_offset >= 0)
        gr_tidx_maybe_append(&g->tidx, g->max_ts,
                             (uint32_t)(g->max_ts_offset - g->base));
    gr_segment_path(path, job->dir, g->base, ".index.cleaned");
    if (gr_index_write(path, GR_OIDX_ENTRY, &g->oidx, true) != 0)
        job_fail(job, GR_ERR_IO, "cannot write %s", path);
    gr_segment_path(path, job->dir, g->base, ".timeindex.cleaned");
    if (!job->err && gr_index_write(path, GR_TIDX_ENTRY, &g->tidx, true) != 0)
        job_fail(job, GR_ERR_IO, "cannot write %s", path);
    snprintf(num, sizeof num, "%" PRId64 "\n", g->end);
    gr_segment_path(path, job->dir, g->base, ".range.cleaned");
    if (!job->err) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || gr_write_full(fd, num, strlen(num)) != 0 ||
            fsync(fd) != 0)
            job_fail(job, GR_ERR_IO, "cannot write %s", path);
        if (fd >= 0)
            close(fd);
    }
    /* the index files are not fsynced (segment.h): a damaged one is
     * rebuilt; make them durable here anyway, they are small */
    for (int i = 0; i < 2 && !job->err; i++) {
        char suffix[32];
        snprintf(suffix, sizeof suffix, "%s.cleaned", names[i]);
        gr_segment_path(path, job->dir, g->base, suffix);
        fsync_path(path);
    }
    /* .cleaned -> .swap: indexes and range first, the .log commits */
    for (int i = 0; i < 3 && !job->err; i++) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%s.cleaned", names[i]);
        snprintf(b, sizeof b, "%s.swap", names[i]);
        gr_segment_path(path, job->dir, g->base, a);
        gr_segment_path(to, job->dir, g->base, b);
        if (rename(path, to) != 0)
            job_fail(job, GR_ERR_IO, "cannot rename %s: %s", path,
                     strerror(errno));
    }
    if (job->err)
        return;
    if (gr_logs_fsync_dir(job->dir) != 0)
        job_fail(job, GR_ERR_IO, "cannot fsync %s", job->dir);
    gr_segment_path(path, job->dir, g->base, ".log.cleaned");
    gr_segment_path(to, job->dir, g->base, ".log.swap");
    if (!job->err && rename(path, to) != 0)
        job_fail(job, GR_ERR_IO, "cannot rename %s: %s", path, strerror(errno));
    /* the commit is durable before the loop deletes anything */
    if (!job->err && gr_logs_fsync_dir(job->dir) != 0)
        job_fail(job, GR_ERR_IO, "cannot fsync %s", job->dir);
}

/* Removes the files a job left for group g (.cleaned and .swap). */
static void
group_unlink(const gr_clean_job_t *job, const clean_group_t *g)
{
    static const char *const names[] = { ".log", ".index", ".timeindex",
                                         ".range" };
    char path[GR_SEG_PATH_MAX], suffix[32];
    for (size_t i = 0; i < 4; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(suffix, sizeof suffix, "%s%s", names[i],
                     k ? ".swap" : ".cleaned");
            gr_segment_path(path, job->dir, g->base, suffix);
            unlink(path);
        }
}

static void
clean_work(void *arg)
{
    gr_clean_job_t *job = arg;
    offset_map_t map;
    size_t cap = 1024;

    job->start_us = gr_mono_us();
    memset(&map, 0, sizeof map);
    while (cap * 2 <= job->map_budget && cap < 65536)
        cap *= 2;
    map.budget = job->map_budget;
    if (map_alloc(&map, cap) != 0) {
        job_fail(job, GR_ERR_NOMEM, "out of memory for the key map");
        return;
    }
    build_map(job, &map);
    if (!job->err) {
        int64_t end =
            job->map_end > job->first_dirty ? job->map_end : job->first_dirty;
        if (make_groups(job, end) != 0)
            job_fail(job, GR_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < job->ngroups && !job->err; i++)
        clean_group(job, &map, &job->groups[i]);
    if (job->err)
        for (int i = 0; i < job->ngroups; i++)
            group_unlink(job, &job->groups[i]);
    free(map.e);
    job->dur_us = gr_mono_us() - job->start_us;
}

static void
job_free(gr_clean_job_t *job)
{
    for (int i = 0; i < job->ngroups; i++) {
        gr_index_fini(&job->groups[i].oidx);
        gr_index_fini(&job->groups[i].tidx);
    }
    free(job->groups);
    free(job->segs);
    free(job->aborted);
    free(job->dir);
    free(job);
}

/* Step 3 on the loop: whether l still holds exactly the segments job read
 * for group g; the index of the first, or -1. */
static int
group_in_log(const gr_log_t *l, const gr_clean_job_t *job,
             const clean_group_t *g)
{
    int i;
    for (i = 0; i < l->nsegs - 1; i++)
        if (l->segs[i]->base == g->base)
            break;
    if (i + g->n > l->nsegs - 1)
        return -1; /* replaced segments must all be non-active */
    for (int k = 0; k < g->n; k++) {
        const clean_seg_t *s = &job->segs[g->first + k];
        const gr_segment_t *seg = l->segs[i + k];
        int64_t end = l->segs[i + k + 1]->base;
        if (seg->base != s->base || seg->size != s->size || end != s->end)
            return -1;
    }
    return i;
}

/* Puts group g's swap files in place of its segments. 0 or -1 (logged: the
 * files on disk are then for recovery to sort out, which completes the
 * swap; the log in memory is unchanged). */
static int
swap_in(gr_log_t *l, gr_clean_job_t *job, clean_group_t *g, int at)
{
    static const char *const idx[] = { ".index", ".timeindex" };
    char path[GR_SEG_PATH_MAX], to[GR_SEG_PATH_MAX], suffix[32];
    gr_segment_t *seg = gr_segment_new(g->base, gr_loop_wall_ms(l->m->loop));

    if (seg == NULL)
        return -1;
    /* the replaced segments' files move aside (.deleted) and a worker
     * deletes them: freeing a large file's blocks may take milliseconds,
     * which the loop does not wait for (Kafka defers it as well). A
     * slice holding an old file keeps reading it. */
    for (int k = 0; k < g->n; k++) {
        const char *const all[] = { ".log", ".index", ".timeindex" };
        for (int i = 0; i < 3; i++) {
            char del[32];
            snprintf(del, sizeof del, "%s.deleted", all[i]);
            gr_segment_path(path, l->dir, l->segs[at + k]->base, all[i]);
            gr_segment_path(to, l->dir, l->segs[at + k]->base, del);
            if (rename(path, to) != 0 && errno != ENOENT)
                GR_LOG_ERROR("cannot rename %s: %s", path, strerror(errno));
        }
    }
    for (int i = 0; i < 2; i++) {
        snprintf(suffix, sizeof suffix, "%s.swap", idx[i]);
        gr_segment_path(path, l->dir, g->base, suffix);
        gr_segment_path(to, l->dir, g->base, idx[i]);
        if (rename(path, to) != 0)
            GR_LOG_WARN("cannot rename %s: %s (the index will be rebuilt)",
                        path, strerror(errno));
    }
    gr_segment_path(path, l->dir, g->base, ".log.swap");
    gr_segment_path(to, l->dir, g->base, ".log");
    if (rename(path, to) != 0) {
        GR_LOG_ERROR("cannot rename %s: %s", path, strerror(errno));
        gr_segment_free(seg);
        return -1;
    }
    /* <base>.range.swap goes once the renames are durable (post_swap) */
    /* the new segment: what the worker built */
    seg->size = g->size;
    seg->oidx = g->oidx;
    seg->tidx = g->tidx;
    seg->oidx.stored = seg->oidx.n;
    seg->tidx.stored = seg->tidx.n;
    memset(&g->oidx, 0, sizeof g->oidx);
    memset(&g->tidx, 0, sizeof g->tidx);
    seg->max_ts = g->max_ts;
    seg->max_ts_offset = g->max_ts_offset;
    seg->max_ts_known = true;
    seg->first_ts = g->first_ts;
    seg->first_ts_known = g->size > 0;
    gr_log_seg_replace(l, at, g->n, seg);
    if (l->txns.merged)
        l->txns.merged(l->txns.arg, g->base, g->end);
    return 0; /* the new file is opened lazily through the LRU */
}

static int start_next(gr_logs_t *m, int64_t now_ms);

/* After a swap: the renames are made durable, then the range files go
 * (until then recovery uses them to finish the swap). */
typedef struct post_swap {
    int n;
    int64_t *bases;
    char dir[];
} post_swap_t;

static void
post_swap_work(void *arg)
{
    post_swap_t *ps = arg;
    char path[GR_SEG_PATH_MAX];
    struct dirent *de;
    DIR *d;

    if (gr_logs_fsync_dir(ps->dir) != 0)
        return; /* the range files stay: recovery rechecks */
    for (int i = 0; i < ps->n; i++) {
        gr_segment_path(path, ps->dir, ps->bases[i], ".range.swap");
        unlink(path);
    }
    /* the replaced segments (recovery deletes any left) */
    d = opendir(ps->dir);
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n > 8 && strcmp(de->d_name + n - 8, ".deleted") == 0) {
            snprintf(path, sizeof path, "%s/%s", ps->dir, de->d_name);
            unlink(path);
        }
    }
    closedir(d);
}

static void
post_swap_done(gr_loop_t *loop, void *arg)
{
    post_swap_t *ps = arg;
    (void)loop;
    free(ps->bases);
    free(ps);
}

static void
post_swap_submit(gr_logs_t *m, const gr_clean_job_t *job)
{
    size_t n = strlen(job->dir) + 1;
    post_swap_t *ps = calloc(1, sizeof(*ps) + n);
    if (ps == NULL)
        return;
    memcpy(ps->dir, job->dir, n);
    ps->bases =
        calloc((size_t)(job->ngroups > 0 ? job->ngroups : 1), sizeof(int64_t));
    if (ps->bases != NULL) {
        for (int i = 0; i < job->ngroups; i++)
            ps->bases[ps->n++] = job->groups[i].base;
        if (gr_workers_submit(m->workers, post_swap_work, post_swap_done, ps) ==
            0)
            return;
    }
    free(ps->bases);
    free(ps);
}

static void
clean_done(gr_loop_t *loop, void *arg)
{
    gr_clean_job_t *job = arg;
    gr_log_t *l = job->l;
    gr_logs_t *m;
    int *at = NULL;
    bool ok;

    (void)loop;
    if (l == NULL) {
        /* forgotten: the log was closed or deleted meanwhile; its files
         * (if still there) are recovery's to sort out */
        job_free(job);
        return;
    }
    m = l->m;
    l->cleaning = NULL;
    m->cleanings--;
    ok = job->err == 0;
    if (!ok)
        GR_LOG_WARN("%s: cleaning failed: %s", l->dir, job->why);
    if (ok) {
        at = calloc((size_t)(job->ngroups > 0 ? job->ngroups : 1), sizeof(int));
        ok = at != NULL;
        for (int i = 0; ok && i < job->ngroups; i++)
            ok = (at[i] = group_in_log(l, job, &job->groups[i])) >= 0;
        if (!ok)
            GR_LOG_INFO("%s: the log changed during its cleaning; the "
                        "cleaned segments are dropped",
                        l->dir);
    }
    if (!ok) {
        for (int i = 0; i < job->ngroups; i++)
            group_unlink(job, &job->groups[i]);
        m->cleaner_stats.aborted++;
    } else {
        bool all = true;
        int64_t swap_us = gr_mono_us();
        /* last group first: indexes of earlier groups stay valid */
        for (int i = job->ngroups - 1; i >= 0 && all; i--)
            all = swap_in(l, job, &job->groups[i], at[i]) == 0;
        swap_us = gr_mono_us() - swap_us;
        if (all && job->map_end > l->clean_offset)
            l->clean_offset = job->map_end;
        l->delete_horizon_ms = job->min_horizon;
        m->ckpt_dirty = true;
        m->cleaner_stats.cleanings++;
        m->cleaner_stats.bytes_read += job->bytes_read;
        m->cleaner_stats.bytes_written += job->bytes_written;
        m->cleaner_stats.records_removed += job->records_removed;
        m->cleaner_stats.last_duration_us = job->dur_us;
        GR_LOG_INFO("%s: cleaned offsets up to %" PRId64 ": %d segment(s) "
                    "into %d, %" PRId64 " -> %" PRId64 " bytes, %" PRId64
                    " records removed, %zu keys mapped, %.1f ms on a worker, "
                    "%.2f ms to swap",
                    l->dir, job->map_end,
                    job->ngroups ? job->groups[job->ngroups - 1].first +
                                       job->groups[job->ngroups - 1].n
                                 : 0,
                    job->ngroups, job->bytes_read, job->bytes_written,
                    job->records_removed, job->map_keys,
                    (double)job->dur_us / 1000.0, (double)swap_us / 1000.0);
        post_swap_submit(m, job);
    }
    free(at);
    job->l = NULL;
    job_free(job);
    gr_log_unref(l);
    start_next(m, gr_loop_wall_ms(m->loop));
}

/* --- choosing */

typedef struct candidate {
    gr_log_t *l;
    double ratio;
    int64_t first_dirty, uncleanable;
    int nsegs; /* non-active segments to snapshot */
} candidate_t;

static bool
consider(gr_log_t *l, int64_t now, candidate_t *c)
{
    const gr_log_config_t *cfg = &l->cfg;
    int active = l->nsegs - 1, i;
    int64_t first_dirty, uncleanable, clean = 0, dirty = 0;
    bool need_now = false, horizon;
    double ratio;

    if (!cfg->cleanup_compact || l->cleaning != NULL || l->dead || l->nsegs < 2)
        return false;
    first_dirty = l->clean_offset;
    if (first_dirty < l->start_offset || first_dirty > l->leo)
        first_dirty = l->start_offset;
    uncleanable = l->segs[active]->base;
    if (l->txns.first_unstable) {
        int64_t fu = l->txns.first_unstable(l->txns.arg);
        if (fu >= 0 && fu < uncleanable)
            uncleanable = fu;
    }
    if (cfg->min_compaction_lag_ms > 0) {
        for (i = 0; i < active; i++) {
            int64_t ts;
            if (l->segs[i + 1]->base <= first_dirty)
                continue;
            if (gr_log_seg_max_ts(l, i, &ts) != 0)
                return false;
            if (ts > now - cfg->min_compaction_lag_ms) {
                if (l->segs[i]->base < uncleanable)
                    uncleanable = l->segs[i]->base;
                break;
            }
        }
    }
    for (i = 0; i < active; i++) {
        int64_t base = l->segs[i]->base, end = l->segs[i + 1]->base;
        if (base < first_dirty)
            clean += l->segs[i]->size;
        if (base < uncleanable && end > first_dirty)
            dirty += l->segs[i]->size;
    }
    ratio = clean + dirty > 0 ? (double)dirty / (double)(clean + dirty) : 0;
    if (dirty > 0 && cfg->max_compaction_lag_ms < INT64_MAX) {
        int64_t until = now - cfg->max_compaction_lag_ms;
        for (i = 0; i < active && !need_now; i++) {
            int64_t ts;
            if (l->segs[i + 1]->base <= first_dirty)
                continue;
            ts = gr_log_seg_first_ts(l, i);
            if (ts > 0 && ts < until)
                need_now = true;
        }
    }
    horizon =
        l->delete_horizon_ms >= 0 && l->delete_horizon_ms <= now && clean > 0;
    if (!((need_now && dirty > 0) ||
          (dirty > 0 && ratio > cfg->min_cleanable_ratio) || horizon))
        return false;
    c->l = l;
    c->ratio = need_now ? 2.0 : ratio;
    c->first_dirty = first_dirty;
    c->uncleanable = uncleanable;
    {
        int64_t upto = uncleanable > first_dirty ? uncleanable : first_dirty;
        for (c->nsegs = 0; c->nsegs < active && l->segs[c->nsegs]->base < upto;
             c->nsegs++)
            ;
    }
    return c->nsegs > 0;
}

static int
start_job(gr_logs_t *m, const candidate_t *c, int64_t now)
{
    gr_log_t *l = c->l;
    gr_clean_job_t *job = calloc(1, sizeof(*job));
    if (job == NULL)
        return -1;
    job->segs = calloc((size_t)c->nsegs, sizeof(*job->segs));
    job->dir = strdup(l->dir);
    if (job->segs == NULL || job->dir == NULL) {
        job_free(job);
        return -1;
    }
    job->nsegs = c->nsegs;
    for (int i = 0; i < c->nsegs; i++) {
        job->segs[i].base = l->segs[i]->base;
        job->segs[i].size = l->segs[i]->size;
        job->segs[i].end = l->segs[i + 1]->base;
    }
    job->now_ms = now;
    job->first_dirty = c->first_dirty;
    job->uncleanable = c->uncleanable;
    job->delete_retention_ms = l->cfg.delete_retention_ms;
    job->max_seg_bytes = l->cfg.segment_bytes;
    job->index_interval = l->cfg.index_interval_bytes;
    job->map_budget = 1;
    while (job->map_budget * 2 * MAP_ENTRY_BYTES <= (size_t)m->dedupe_bytes)
        job->map_budget *= 2;
    job->min_horizon = -1;
    if (l->txns.aborted) {
        job->naborted = l->txns.aborted(l->txns.arg, job->segs[0].base,
                                        c->uncleanable, &job->aborted);
        if (job->naborted < 0) {
            job_free(job);
            return -1;
        }
        if (job->naborted > 1)
            qsort(job->aborted, (size_t)job->naborted, 3 * sizeof(int64_t),
                  cmp_triple);
    }
    job->l = l;
    if (gr_workers_submit(m->workers, clean_work, clean_done, job) != 0) {
        job->l = NULL;
        job_free(job);
        return -1;
    }
    l->refs++;
    l->cleaning = job;
    m->cleanings++;
    GR_LOG_DEBUG("%s: cleaning from offset %" PRId64 " (dirty ratio %.2f, "
                 "uncleanable from %" PRId64 ")",
                 l->dir, c->first_dirty, c->ratio, c->uncleanable);
    return 0;
}

static int
start_next(gr_logs_t *m, int64_t now_ms)
{
    int started = 0;
    if (m->closed)
        return 0;
    while (m->cleanings < m->cleaner_threads) {
        candidate_t best, c;
        memset(&best, 0, sizeof best);
        for (gr_log_t *l = m->logs; l != NULL; l = l->next)
            if (consider(l, now_ms, &c) &&
                (best.l == NULL || c.ratio > best.ratio))
                best = c;
        if (best.l == NULL || start_job(m, &best, now_ms) != 0)
            break;
        started++;
    }
    return started;
}

/* --- the interface */

void
gr_log_set_txns(gr_log_t *l, const gr_log_txns_t *t)
{
    if (t != NULL)
        l->txns = *t;
    else
        memset(&l->txns, 0, sizeof l->txns);
}

void
gr_logs_set_cleaner(gr_logs_t *m, int threads, int64_t dedupe_bytes)
{
    m->cleaner_threads = threads > 0 ? threads : 0;
    /* Kafka divides the buffer between the cleaner threads */
    m->dedupe_bytes = dedupe_bytes / (threads > 0 ? threads : 1);
    if (m->dedupe_bytes < 1024 * MAP_ENTRY_BYTES)
        m->dedupe_bytes = 1024 * MAP_ENTRY_BYTES;
}

int
gr_logs_clean(gr_logs_t *m, int64_t now_ms)
{
    return start_next(m, now_ms);
}

const gr_log_cleaner_stats_t *
gr_logs_cleaner_stats(const gr_logs_t *m)
{
    return &m->cleaner_stats;
}

int64_t
gr_log_clean_offset(const gr_log_t *l)
{
    return l->clean_offset < l->start_offset ? l->start_offset
                                             : l->clean_offset;
}

bool
gr_log_cleaning(const gr_log_t *l)
{
    return l->cleaning != NULL;
}

void
gr_log_cleaner_forget(gr_log_t *l)
{
    gr_clean_job_t *job = l->cleaning;
    if (job == NULL)
        return;
    /* the job finishes on its worker and is then thrown away; its
     * reference keeps l's memory until then */
    l->cleaning = NULL;
    l->m->cleanings--;
    l->m->cleaner_stats.aborted++;
    job->l = NULL;
    __atomic_store_n(&job->cancelled, 1, __ATOMIC_RELAXED);
    gr_log_unref(l);
}
