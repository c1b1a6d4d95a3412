/*
 * Wire primitives of the Kafka protocol: big-endian fixed ints, unsigned and
 * zigzag varints, (compact) (nullable) strings, bytes and arrays, UUIDs,
 * tagged-field sections. Generated codecs (src/proto/gen/) are made of these.
 *
 * Reading: gr_reader_t is sticky: the first failure sets r->err (a GR_ERR_*)
 * and every later read returns 0/empty, so callers check once at the end.
 * Slices returned point into the reader's buffer.
 *
 * Writing: encoders are sized first (the generated _size()), then write into a
 * buffer of exactly that size. A records field may refer to a file range
 * (gr_records_t.file) instead of memory, or to memory sent where it is
 * (gr_records_t.by_ref): the writer then records a splice at the current
 * position and skips nothing in memory; the output becomes memory, file
 * range, memory... (see gr_writer_t.splices).
 */
#ifndef GR_PROTO_WIRE_H
#define GR_PROTO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/buf.h"
#include "core/err.h"
#include "core/file.h"
#include "core/str.h"

/* The records type: a batch sequence in memory or in a file. */
typedef struct gr_records {
    const uint8_t *ptr; /* in memory, when file is NULL */
    int32_t len;        /* -1: null */
    gr_file_t *file;    /* else: len bytes at off in this file */
    int64_t off;
    bool by_ref;        /* ptr is not copied: the writer records a splice,
                         * and the memory must live until it is sent */
} gr_records_t;

typedef struct gr_reader {
    const uint8_t *p;
    const uint8_t *end;
    int err;
    /* bytes the generated decoders may still allocate for arrays
     * (gr_rd_alloc); UINT64_MAX: no bound (gr_reader_init's) */
    uint64_t mem_left;
} gr_reader_t;

typedef struct gr_splice {
    size_t at; /* memory offset where the file bytes go */
    gr_file_t *file;    /* or NULL: len bytes at ptr (gr_records_t.by_ref) */
    const uint8_t *ptr;
    int64_t off;
    int32_t len;
} gr_splice_t;

typedef struct gr_writer {
    uint8_t *p;
    uint8_t *start;
    uint8_t *end;
    gr_arena_t *a;        /* for splices; may be NULL if none can occur */
    gr_splice_t *splices; /* in order of position */
    int splices_cnt;
    int splices_cap;
    int err;
} gr_writer_t;

static inline gr_reader_t
gr_reader_init(const void *p, size_t len)
{
    gr_reader_t r;
    r.p = p;
    r.end = len ? (const uint8_t *)p + len : (const uint8_t *)p; /* p may be
                                                                   NULL */
    r.err = 0;
    r.mem_left = UINT64_MAX;
    return r;
}

static inline size_t
gr_reader_remaining(const gr_reader_t *r)
{
    return (size_t)(r->end - r->p);
}

static inline int
gr_rd_fail(gr_reader_t *r, int err)
{
    if (!r->err)
        r->err = err;
    r->p = r->end;
    return r->err;
}

static inline const uint8_t *
gr_rd_take(gr_reader_t *r, size_t n)
{
    const uint8_t *p = r->p;
    if ((size_t)(r->end - r->p) < n) {
        gr_rd_fail(r, GR_ERR_TRUNCATED);
        return NULL;
    }
    r->p += n;
    return p;
}

static inline uint8_t
gr_rd_u8(gr_reader_t *r)
{
    const uint8_t *p = gr_rd_take(r, 1);
    return p ? p[0] : 0;
}

static inline int8_t
gr_rd_i8(gr_reader_t *r)
{
    return (int8_t)gr_rd_u8(r);
}

static inline uint16_t
gr_rd_u16(gr_reader_t *r)
{
    const uint8_t *p = gr_rd_take(r, 2);
    return p ? (uint16_t)((p[0] << 8) | p[1]) : 0;
}

static inline int16_t
gr_rd_i16(gr_reader_t *r)
{
    return (int16_t)gr_rd_u16(r);
}

static inline uint32_t
gr_rd_u32(gr_reader_t *r)
{
    const uint8_t *p = gr_rd_take(r, 4);
    return p ? ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
                   ((uint32_t)p[2] << 8) | p[3]
             : 0;
}

static inline int32_t
gr_rd_i32(gr_reader_t *r)
{
    return (int32_t)gr_rd_u32(r);
}

static inline uint64_t
gr_rd_u64(gr_reader_t *r)
{
    const uint8_t *p = gr_rd_take(r, 8);
    uint64_t v = 0;
    if (p)
        for (int i = 0; i < 8; i++)
            v = (v << 8) | p[i];
    return v;
}

static inline int64_t
gr_rd_i64(gr_reader_t *r)
{
    return (int64_t)gr_rd_u64(r);
}

static inline double
gr_rd_f64(gr_reader_t *r)
{
    uint64_t u = gr_rd_u64(r);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* The general varint readers; the inline ones below take the one- and
 * two-byte forms (every field of a typical record) themselves. */
uint32_t gr_rd_uvarint_any(gr_reader_t *r);
uint64_t gr_rd_uvarlong_any(gr_reader_t *r);

/* The one- and two-byte forms: 1 with *v, 0 for the general reader. */
static inline int
gr_rd_uvar_short(gr_reader_t *r, uint32_t *v)
{
    const uint8_t *p = r->p;
    if (r->end - p < 2)
        return 0;
    if (!(p[0] & 0x80)) {
        r->p = p + 1;
        *v = p[0];
        return 1;
    }
    if (!(p[1] & 0x80)) {
        r->p = p + 2;
        *v = (uint32_t)(p[0] & 0x7f) | (uint32_t)p[1] << 7;
        return 1;
    }
    return 0;
}

/* Unsigned varint of at most 5 bytes (32 bits). */
static inline uint32_t
gr_rd_uvarint(gr_reader_t *r)
{
    uint32_t v;
    return gr_rd_uvar_short(r, &v) ? v : gr_rd_uvarint_any(r);
}

/* Unsigned varlong of at most 10 bytes. */
static inline uint64_t
gr_rd_uvarlong(gr_reader_t *r)
{
    uint32_t v;
    return gr_rd_uvar_short(r, &v) ? v : gr_rd_uvarlong_any(r);
}

/* Zigzag signed varint / varlong (record fields). */
static inline int32_t
gr_rd_varint(gr_reader_t *r)
{
    uint32_t u = gr_rd_uvarint(r);
    return (int32_t)((u >> 1) ^ (uint32_t)-(int32_t)(u & 1));
}

static inline int64_t
gr_rd_varlong(gr_reader_t *r)
{
    uint64_t u = gr_rd_uvarlong(r);
    return (int64_t)((u >> 1) ^ (uint64_t)-(int64_t)(u & 1));
}
void gr_rd_uuid(gr_reader_t *r, gr_uuid_t *u);
/* flex: compact form; nullable: whether null is allowed here. */
void gr_rd_str(gr_reader_t *r, gr_str_t *s, int flex, int nullable);
void gr_rd_bytes(gr_reader_t *r, gr_bytes_t *b, int flex, int nullable);
void gr_rd_records(gr_reader_t *r, gr_records_t *rec, int flex, int nullable);
/* Array length, -1 for null; fails (GR_ERR_TRUNCATED) if the bytes left
 * cannot hold that many elements of at least min_elem bytes each (0 counts
 * as 1), or above Kafka's 1000000 elements (GR_ERR_INVALID). */
int32_t gr_rd_arraylen(gr_reader_t *r, int flex, int nullable,
                       uint32_t min_elem);
/* A reader over the next n bytes of r; r moves past them. It has r's
 * mem_left: the caller gives back what is left of it. */
gr_reader_t gr_rd_sub(gr_reader_t *r, uint32_t n);
/* n bytes from a for a decoded array, taken from r->mem_left: NULL with r
 * failed when that is less (GR_ERR_TOO_LARGE) or a fails (GR_ERR_NOMEM).
 * The dispatcher bounds a request's decoded arrays so by
 * socket.request.max.bytes: an array of a million empty strings is 16 MB
 * decoded from 1 MB. */
void *gr_rd_alloc(gr_reader_t *r, gr_arena_t *a, size_t n);
void gr_rd_skip_tags(gr_reader_t *r);

static inline size_t
gr_sz_uvarint(uint32_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline size_t
gr_sz_uvarlong(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline size_t
gr_sz_varint(int32_t v)
{
    return gr_sz_uvarint(((uint32_t)v << 1) ^ (uint32_t)(v >> 31));
}

static inline size_t
gr_sz_varlong(int64_t v)
{
    return gr_sz_uvarlong(((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline size_t
gr_sz_lenprefix(int32_t len, int flex, size_t fixed)
{
    if (flex)
        return gr_sz_uvarint(len < 0 ? 0 : (uint32_t)len + 1) +
               (len > 0 ? (size_t)len : 0);
    return fixed + (len > 0 ? (size_t)len : 0);
}

static inline size_t
gr_sz_str(const gr_str_t *s, int flex)
{
    return gr_sz_lenprefix(s->len, flex, 2);
}

static inline size_t
gr_sz_bytes(const gr_bytes_t *b, int flex)
{
    return gr_sz_lenprefix(b->len, flex, 4);
}

static inline size_t
gr_sz_records(const gr_records_t *rec, int flex)
{
    return gr_sz_lenprefix(rec->len, flex, 4);
}

static inline size_t
gr_sz_arraylen(int32_t cnt, int flex)
{
    if (flex)
        return gr_sz_uvarint(cnt < 0 ? 0 : (uint32_t)cnt + 1);
    return 4;
}

/* A writer over [p, p+len); a (may be NULL) holds splices. */
gr_writer_t gr_writer_init(void *p, size_t len, gr_arena_t *a);

static inline uint8_t *
gr_wr_take(gr_writer_t *w, size_t n)
{
    uint8_t *p = w->p;
    if ((size_t)(w->end - w->p) < n) {
        w->err = GR_ERR_TOO_LARGE;
        w->p = w->end;
        return NULL;
    }
    w->p += n;
    return p;
}

static inline void
gr_wr_u8(gr_writer_t *w, uint8_t v)
{
    uint8_t *p = gr_wr_take(w, 1);
    if (p)
        p[0] = v;
}

static inline void
gr_wr_i8(gr_writer_t *w, int8_t v)
{
    gr_wr_u8(w, (uint8_t)v);
}

static inline void
gr_wr_u16(gr_writer_t *w, uint16_t v)
{
    uint8_t *p = gr_wr_take(w, 2);
    if (p) {
        p[0] = (uint8_t)(v >> 8);
        p[1] = (uint8_t)v;
    }
}

static inline void
gr_wr_i16(gr_writer_t *w, int16_t v)
{
    gr_wr_u16(w, (uint16_t)v);
}

static inline void
gr_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint32_t
gr_get_u32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | p[3];
}

static inline void
gr_put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

static inline uint64_t
gr_get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

static inline uint16_t
gr_get_u16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static inline void
gr_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void
gr_wr_u32(gr_writer_t *w, uint32_t v)
{
    uint8_t *p = gr_wr_take(w, 4);
    if (p)
        gr_put_u32(p, v);
}

static inline void
gr_wr_i32(gr_writer_t *w, int32_t v)
{
    gr_wr_u32(w, (uint32_t)v);
}

static inline void
gr_wr_i64(gr_writer_t *w, int64_t v)
{
    uint8_t *p = gr_wr_take(w, 8);
    if (p)
        gr_put_u64(p, (uint64_t)v);
}

static inline void
gr_wr_f64(gr_writer_t *w, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    gr_wr_i64(w, (int64_t)u);
}

static inline void
gr_wr_raw(gr_writer_t *w, const void *src, size_t n)
{
    uint8_t *p = gr_wr_take(w, n);
    if (p && n)
        memcpy(p, src, n);
}

void gr_wr_uvarint(gr_writer_t *w, uint32_t v);
void gr_wr_uvarlong(gr_writer_t *w, uint64_t v);
void gr_wr_varint(gr_writer_t *w, int32_t v);
/* The zigzag varint of v (Kafka's ByteUtils.writeVarlong; an int32 comes
 * out as writeVarint would) in out, which has GR_VARLONG_MAX bytes; its
 * length. The one encoder of signed varints: gr_wr_varint/varlong and
 * the record builders (gr_records_put_varlong) write through it. */
#define GR_VARLONG_MAX 10
size_t gr_varlong_encode(uint8_t *out, int64_t v);
void gr_wr_varlong(gr_writer_t *w, int64_t v);
void gr_wr_uuid(gr_writer_t *w, const gr_uuid_t *u);
/* A null where nullable is 0 goes out as empty. */
void gr_wr_str(gr_writer_t *w, const gr_str_t *s, int flex, int nullable);
void gr_wr_bytes(gr_writer_t *w, const gr_bytes_t *b, int flex, int nullable);
void gr_wr_records(gr_writer_t *w, const gr_records_t *rec, int flex,
                   int nullable);
void gr_wr_arraylen(gr_writer_t *w, int32_t cnt, int flex, int nullable);

/* Printing (generated _print): JSON-like text for logs and tests. */
void gr_pr_key(gr_buf_t *b, const char *key, int *first);
void gr_pr_str(gr_buf_t *b, const gr_str_t *s);
void gr_pr_bytes(gr_buf_t *b, const gr_bytes_t *v);
void gr_pr_masked(gr_buf_t *b, const gr_bytes_t *v);
void gr_pr_records(gr_buf_t *b, const gr_records_t *v);
void gr_pr_uuid(gr_buf_t *b, const gr_uuid_t *u);

#endif
