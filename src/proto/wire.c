/* Wire primitives: see wire.h. */
#include "proto/wire.h"

#include <stdio.h>

/* The most elements Kafka's generated readers take in one array */
#define MAX_ARRAY 1000000

uint32_t
gr_rd_uvarint_any(gr_reader_t *r)
{
    uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        const uint8_t *p = gr_rd_take(r, 1);
        if (p == NULL)
            return 0;
        if (shift == 28 && (p[0] & 0xf0)) {
            gr_rd_fail(r, GR_ERR_INVALID);
            return 0;
        }
        v |= (uint32_t)(p[0] & 0x7f) << shift;
        if (!(p[0] & 0x80))
            return v;
    }
    gr_rd_fail(r, GR_ERR_INVALID);
    return 0;
}

uint64_t
gr_rd_uvarlong_any(gr_reader_t *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        const uint8_t *p = gr_rd_take(r, 1);
        if (p == NULL)
            return 0;
        if (shift == 63 && (p[0] & 0xfe)) {
            gr_rd_fail(r, GR_ERR_INVALID);
            return 0;
        }
        v |= (uint64_t)(p[0] & 0x7f) << shift;
        if (!(p[0] & 0x80))
            return v;
    }
    gr_rd_fail(r, GR_ERR_INVALID);
    return 0;
}

void
gr_rd_uuid(gr_reader_t *r, gr_uuid_t *u)
{
    const uint8_t *p = gr_rd_take(r, 16);
    if (p)
        memcpy(u->b, p, 16);
    else
        memset(u->b, 0, 16);
}

/* The length of a compact field, as Kafka's readers compute it:
 * readUnsignedVarint() - 1 in int arithmetic, so 0 is -1 (null) and a
 * uvarint above 2^31 wraps to a negative length too. */
static int32_t
rd_compact_len(gr_reader_t *r)
{
    return (int32_t)(gr_rd_uvarint(r) - 1u);
}

/* Length of a string/bytes field: -1 for null. Kafka's generated readers
 * take any negative length as null where the field is nullable (a classic
 * -2 too) and fail the request where it is not ("non-nullable field ...
 * was serialized as null"). */
static int32_t
rd_len(gr_reader_t *r, int flex, int wide, int nullable)
{
    int32_t n;
    if (flex)
        n = rd_compact_len(r);
    else
        n = wide ? gr_rd_i32(r) : gr_rd_i16(r);
    if (r->err)
        return -1;
    if (n < 0) {
        if (!nullable)
            gr_rd_fail(r, GR_ERR_INVALID);
        return -1;
    }
    /* a string is at most 32767 bytes in compact form too: Kafka's
     * generated readers fail the request ("string field ... had invalid
     * length") */
    if (!wide && n > INT16_MAX) {
        gr_rd_fail(r, GR_ERR_INVALID);
        return -1;
    }
    if ((size_t)n > gr_reader_remaining(r)) {
        gr_rd_fail(r, GR_ERR_TRUNCATED);
        return -1;
    }
    return n;
}

void
gr_rd_str(gr_reader_t *r, gr_str_t *s, int flex, int nullable)
{
    int32_t n = rd_len(r, flex, 0, nullable);
    s->len = n;
    s->ptr = n >= 0 ? (const char *)gr_rd_take(r, (size_t)n) : NULL;
    if (r->err) {
        s->ptr = NULL;
        s->len = -1;
    }
}

void
gr_rd_bytes(gr_reader_t *r, gr_bytes_t *b, int flex, int nullable)
{
    int32_t n = rd_len(r, flex, 1, nullable);
    b->len = n;
    b->ptr = n >= 0 ? gr_rd_take(r, (size_t)n) : NULL;
    if (r->err) {
        b->ptr = NULL;
        b->len = -1;
    }
}

void
gr_rd_records(gr_reader_t *r, gr_records_t *rec, int flex, int nullable)
{
    gr_bytes_t b;
    gr_rd_bytes(r, &b, flex, nullable);
    rec->ptr = b.ptr;
    rec->len = b.len;
    rec->file = NULL;
    rec->off = 0;
    rec->by_ref = false;
}

int32_t
gr_rd_arraylen(gr_reader_t *r, int flex, int nullable, uint32_t min_elem)
{
    int32_t n = flex ? rd_compact_len(r) : gr_rd_i32(r);
    if (r->err)
        return 0;
    /* any negative count is null, as for strings (see rd_len) */
    if (n < 0) {
        if (!nullable)
            gr_rd_fail(r, GR_ERR_INVALID);
        return nullable ? -1 : 0;
    }
    /* Each element takes at least min_elem bytes on the wire (the
     * generator's smallest encoding of the element in this version), so a
     * count the bytes left cannot hold fails here, before the caller
     * allocates count elements. Kafka's readers check the count against
     * one byte per element ("Tried to allocate a collection of size ...,
     * but there are only ... bytes remaining"). */
    if (min_elem == 0)
        min_elem = 1;
    if ((uint64_t)n * min_elem > gr_reader_remaining(r)) {
        gr_rd_fail(r, GR_ERR_TRUNCATED);
        return 0;
    }
    /* Kafka's readers refuse more ("Tried to read a collection of size
     * ..., which exceeds the maximum allowed size of 1000000") */
    if (n > MAX_ARRAY) {
        gr_rd_fail(r, GR_ERR_INVALID);
        return 0;
    }
    return n;
}

gr_reader_t
gr_rd_sub(gr_reader_t *r, uint32_t n)
{
    gr_reader_t sub;
    const uint8_t *p = gr_rd_take(r, n);
    if (p == NULL) {
        sub.p = sub.end = r->end;
        sub.err = r->err;
        sub.mem_left = r->mem_left;
        return sub;
    }
    sub = gr_reader_init(p, n);
    sub.mem_left = r->mem_left;
    return sub;
}

void *
gr_rd_alloc(gr_reader_t *r, gr_arena_t *a, size_t n)
{
    void *p;
    if (n > r->mem_left) {
        gr_rd_fail(r, GR_ERR_TOO_LARGE);
        return NULL;
    }
    if ((p = gr_arena_alloc(a, n)) == NULL) {
        gr_rd_fail(r, GR_ERR_NOMEM);
        return NULL;
    }
    if (r->mem_left != UINT64_MAX)
        r->mem_left -= n;
    return p;
}

void
gr_rd_skip_tags(gr_reader_t *r)
{
    uint32_t n = gr_rd_uvarint(r);
    for (uint32_t i = 0; i < n && !r->err; i++) {
        (void)gr_rd_uvarint(r);
        gr_rd_take(r, gr_rd_uvarint(r));
    }
}

gr_writer_t
gr_writer_init(void *p, size_t len, gr_arena_t *a)
{
    gr_writer_t w;
    memset(&w, 0, sizeof w);
    w.p = w.start = p;
    w.end = (uint8_t *)p + len;
    w.a = a;
    return w;
}

void
gr_wr_uvarint(gr_writer_t *w, uint32_t v)
{
    while (v >= 0x80) {
        gr_wr_u8(w, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    gr_wr_u8(w, (uint8_t)v);
}

void
gr_wr_uvarlong(gr_writer_t *w, uint64_t v)
{
    while (v >= 0x80) {
        gr_wr_u8(w, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    gr_wr_u8(w, (uint8_t)v);
}

size_t
gr_varlong_encode(uint8_t *out, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    while (u >= 0x80) {
        out[n++] = (uint8_t)(u | 0x80);
        u >>= 7;
    }
    out[n++] = (uint8_t)u;
    return n;
}

void
gr_wr_varint(gr_writer_t *w, int32_t v)
{
    gr_wr_varlong(w, v); /* the zigzag of an int32 is its varint's */
}

void
gr_wr_varlong(gr_writer_t *w, int64_t v)
{
    uint8_t tmp[GR_VARLONG_MAX];
    gr_wr_raw(w, tmp, gr_varlong_encode(tmp, v));
}

void
gr_wr_uuid(gr_writer_t *w, const gr_uuid_t *u)
{
    gr_wr_raw(w, u->b, 16);
}

static void
wr_len(gr_writer_t *w, int32_t len, int flex, int wide)
{
    if (flex)
        gr_wr_uvarint(w, len < 0 ? 0 : (uint32_t)len + 1);
    else if (wide)
        gr_wr_i32(w, len);
    else
        gr_wr_i16(w, (int16_t)len);
}

void
gr_wr_str(gr_writer_t *w, const gr_str_t *s, int flex, int nullable)
{
    int32_t len = s->len < 0 && !nullable ? 0 : s->len;
    wr_len(w, len, flex, 0);
    if (len > 0)
        gr_wr_raw(w, s->ptr, (size_t)len);
}

void
gr_wr_bytes(gr_writer_t *w, const gr_bytes_t *b, int flex, int nullable)
{
    int32_t len = b->len < 0 && !nullable ? 0 : b->len;
    wr_len(w, len, flex, 1);
    if (len > 0)
        gr_wr_raw(w, b->ptr, (size_t)len);
}

void
gr_wr_records(gr_writer_t *w, const gr_records_t *rec, int flex, int nullable)
{
    int32_t len = rec->len < 0 && !nullable ? 0 : rec->len;
    wr_len(w, len, flex, 1);
    if (len <= 0)
        return;
    if (rec->file == NULL && !rec->by_ref) {
        gr_wr_raw(w, rec->ptr, (size_t)len);
        return;
    }
    if (w->splices_cnt == w->splices_cap) {
        int cap = w->splices_cap ? w->splices_cap * 2 : 16;
        gr_splice_t *s =
            w->a ? gr_arena_alloc(w->a, (size_t)cap * sizeof(*s)) : NULL;
        if (s == NULL) {
            w->err = GR_ERR_NOMEM;
            return;
        }
        if (w->splices_cnt)
            memcpy(s, w->splices, (size_t)w->splices_cnt * sizeof(*s));
        w->splices = s;
        w->splices_cap = cap;
    }
    /* the file (or by-reference) bytes are counted in the encoded size
     * but are not in the buffer: it was sized without them (the handler
     * counts them in gr_req_t.file_bytes) */
    w->splices[w->splices_cnt].at = (size_t)(w->p - w->start);
    w->splices[w->splices_cnt].file = rec->file;
    w->splices[w->splices_cnt].ptr = rec->file ? NULL : rec->ptr;
    w->splices[w->splices_cnt].off = rec->off;
    w->splices[w->splices_cnt].len = len;
    w->splices_cnt++;
}

void
gr_wr_arraylen(gr_writer_t *w, int32_t cnt, int flex, int nullable)
{
    if (cnt < 0 && !nullable)
        cnt = 0;
    if (flex)
        gr_wr_uvarint(w, cnt < 0 ? 0 : (uint32_t)cnt + 1);
    else
        gr_wr_i32(w, cnt);
}

void
gr_pr_key(gr_buf_t *b, const char *key, int *first)
{
    if (!*first)
        gr_buf_putc(b, ',');
    *first = 0;
    gr_buf_putc(b, '"');
    gr_buf_puts(b, key);
    gr_buf_puts(b, "\":");
}

void
gr_pr_str(gr_buf_t *b, const gr_str_t *s)
{
    if (s->len < 0) {
        gr_buf_puts(b, "null");
        return;
    }
    gr_buf_putc(b, '"');
    for (int32_t i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->ptr[i];
        if (c == '"' || c == '\\')
            gr_buf_printf(b, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            gr_buf_printf(b, "\\u%04x", c);
        else
            gr_buf_putc(b, (char)c);
    }
    gr_buf_putc(b, '"');
}

void
gr_pr_bytes(gr_buf_t *b, const gr_bytes_t *v)
{
    if (v->len < 0) {
        gr_buf_puts(b, "null");
        return;
    }
    gr_buf_putc(b, '"');
    for (int32_t i = 0; i < v->len && i < 64; i++)
        gr_buf_printf(b, "%02x", v->ptr[i]);
    if (v->len > 64)
        gr_buf_printf(b, "...(%d bytes)", (int)v->len);
    gr_buf_putc(b, '"');
}

void
gr_pr_masked(gr_buf_t *b, const gr_bytes_t *v)
{
    if (v->len < 0)
        gr_buf_puts(b, "null");
    else
        gr_buf_printf(b, "\"(%d bytes, masked)\"", (int)v->len);
}

void
gr_pr_records(gr_buf_t *b, const gr_records_t *v)
{
    if (v->len < 0)
        gr_buf_puts(b, "null");
    else
        gr_buf_printf(b, "\"(%d bytes of records)\"", (int)v->len);
}

void
gr_pr_uuid(gr_buf_t *b, const gr_uuid_t *u)
{
    char s[23];
    gr_uuid_to_base64(u, s);
    gr_buf_printf(b, "\"%s\"", s);
}
