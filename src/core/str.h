/*
 * Slices: gr_str_t and gr_bytes_t point into memory owned by someone else
 * (usually a request frame: valid until the request ends). len -1 is null.
 * A module that keeps the data copies it.
 */
#ifndef GR_CORE_STR_H
#define GR_CORE_STR_H

#include "core/arena.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct gr_str {
    const char *ptr;
    int32_t len; /* -1: null */
} gr_str_t;

typedef struct gr_bytes {
    const uint8_t *ptr;
    int32_t len; /* -1: null */
} gr_bytes_t;

typedef struct gr_uuid {
    uint8_t b[16];
} gr_uuid_t;

#define GR_STR_NULL ((gr_str_t){NULL, -1})
#define GR_STR(lit) ((gr_str_t){(lit), (int32_t)(sizeof(lit) - 1)})

static inline gr_str_t
gr_str_c(const char *s)
{
    gr_str_t r;
    r.ptr = s;
    r.len = s ? (int32_t)strlen(s) : -1;
    return r;
}

static inline bool
gr_str_is_null(const gr_str_t *s)
{
    return s->len < 0;
}

static inline bool
gr_str_eq(const gr_str_t *a, const gr_str_t *b)
{
    if (a->len != b->len)
        return false;
    return a->len <= 0 || memcmp(a->ptr, b->ptr, (size_t)a->len) == 0;
}

/* Byte order of two slices, memcmp's, a prefix before the longer slice
 * and null before empty: <0, 0 or >0 (sorting names). */
static inline int
gr_str_cmp(const gr_str_t *a, const gr_str_t *b)
{
    int32_t n = a->len < b->len ? a->len : b->len;
    int c = n > 0 ? memcmp(a->ptr, b->ptr, (size_t)n) : 0;
    return c != 0 ? c : (a->len > b->len) - (a->len < b->len);
}

static inline bool
gr_str_eq_cstr(const gr_str_t *a, const char *s)
{
    size_t n = strlen(s);
    return a->len >= 0 && (size_t)a->len == n &&
           (n == 0 || memcmp(a->ptr, s, n) == 0);
}

static inline bool
gr_uuid_is_zero(const gr_uuid_t *u)
{
    static const gr_uuid_t zero;
    return memcmp(u, &zero, sizeof zero) == 0;
}

static inline bool
gr_uuid_eq(const gr_uuid_t *a, const gr_uuid_t *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* FNV-1a, the hash of the broker's tables (names, ids, partitions). */
static inline uint32_t
gr_hash(const void *p, size_t n)
{
    const uint8_t *s = p;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 16777619u;
    return h;
}

/* A topic (n bytes at name) and a partition, the key of per-partition
 * tables. */
static inline uint32_t
gr_hash_tp(const void *name, size_t n, int32_t partition)
{
    uint32_t h = gr_hash(name, n);
    for (int i = 0; i < 4; i++)
        h = (h ^ (uint8_t)((uint32_t)partition >> (8 * i))) * 16777619u;
    return h;
}

/* Which of n keys another one repeats; the keys are gr_str_t stride bytes
 * apart from first (a field of each element of an array of structs; first
 * may be NULL when n is 0). dup[i] is true when another key equals key i;
 * null keys (len < 0) are never marked. Sorts copies (O(n log n)), so a
 * request listing many names cannot hold the loop for n^2 compares. dup is
 * allocated from a; NULL when that fails. */
bool *gr_str_repeats(gr_arena_t *a, const gr_str_t *first, size_t stride,
                     int32_t n);

/* --- base64 (RFC 4648): one coder, in the variants the broker meets.
 * how is 0 or a sum of:
 *   GR_BASE64_URL    section 5's alphabet ('-' and '_' for '+' and '/'),
 *                    as JWTs (RFC 7515) and Kafka's topic ids use it;
 *   GR_BASE64_NOPAD  encode: no '=' at the end; decode: the '=' may be
 *                    left out (Java's Base64 decoders), but when present
 *                    it must be right.
 * 0 is section 4 with padding required, what SCRAM's messages carry
 * (RFC 5802). The decoders accept nothing else: no white space, no
 * '=' but at the end; bits left over in the last character are ignored,
 * as Java's decoders ignore them. */
#define GR_BASE64_URL   1
#define GR_BASE64_NOPAD 2

/* The 6-bit value of character c, or -1 when c is not in the alphabet
 * ('=' is not). */
int gr_base64_value(unsigned char c, int how);
/* Encodes n bytes into out (4 * ((n + 2) / 3) + 1 bytes, NUL-ended):
 * the characters written, the NUL not counted. */
size_t gr_base64_encode_as(const uint8_t *in, size_t n, char *out, int how);
/* Decodes exactly n characters into out (room for n * 3 / 4 bytes): the
 * byte count, or -1 when the text is not base64 as how says. */
long gr_base64_decode_as(const char *in, size_t n, uint8_t *out, int how);

/* Standard base64 with padding (SCRAM). */
static inline void
gr_base64_encode(const uint8_t *in, size_t n, char *out)
{
    gr_base64_encode_as(in, n, out, 0);
}

static inline long
gr_base64_decode(const char *in, size_t n, uint8_t *out)
{
    return gr_base64_decode_as(in, n, out, 0);
}

/* base64url as Java's Base64.getUrlDecoder(): padding optional but
 * correct when present (JWTs). */
static inline long
gr_base64url_decode(const char *in, size_t n, uint8_t *out)
{
    return gr_base64_decode_as(in, n, out, GR_BASE64_URL | GR_BASE64_NOPAD);
}

/* The length of the valid UTF-8 sequence at s[0..n) (n > 0), or 0 if
 * there is none (RFC 3629: no overlong forms, no surrogates, at most
 * U+10FFFF). */
size_t gr_utf8_len(const void *s, size_t n);
/* Whether s[0..n) is UTF-8 throughout. */
bool gr_utf8_valid(const void *s, size_t n);

/* Kafka prints topic ids as URL-safe base64 without padding (22 chars). */
void gr_uuid_to_base64(const gr_uuid_t *u, char out[23]);
/* Fills u from /dev/urandom-quality randomness; never the zero uuid. */
void gr_uuid_random(gr_uuid_t *u);
int gr_uuid_from_base64(gr_uuid_t *u, const char *s);

#endif
