/* Repeated keys, base64 and UUID helpers: see str.h. */
#include "core/str.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

/* --- base64 (RFC 4648) */

static const char b64_std[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64_url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int
gr_base64_value(unsigned char c, int how)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == ((how & GR_BASE64_URL) ? '-' : '+'))
        return 62;
    if (c == ((how & GR_BASE64_URL) ? '_' : '/'))
        return 63;
    return -1;
}

size_t
gr_base64_encode_as(const uint8_t *in, size_t n, char *out, int how)
{
    const char *al = (how & GR_BASE64_URL) ? b64_url : b64_std;
    bool pad = !(how & GR_BASE64_NOPAD);
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[k++] = al[(v >> 18) & 63];
        out[k++] = al[(v >> 12) & 63];
        if (i + 1 < n || pad)
            out[k++] = i + 1 < n ? al[(v >> 6) & 63] : '=';
        if (i + 2 < n || pad)
            out[k++] = i + 2 < n ? al[v & 63] : '=';
    }
    out[k] = '\0';
    return k;
}

long
gr_base64_decode_as(const char *in, size_t n, uint8_t *out, int how)
{
    size_t k = 0, pad = 0, units;
    uint32_t acc = 0;
    int bits = 0;

    /* padding only at the end: '=' after 2 (twice) or 3 (once) chars */
    while (n > 0 && in[n - 1] == '=' && pad < 2) {
        n--;
        pad++;
    }
    for (size_t i = 0; i < n; i++) {
        int v = gr_base64_value((unsigned char)in[i], how);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[k++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    units = n % 4; /* characters in the last 4-group */
    if (units == 1)
        return -1; /* Java: last unit does not have enough valid bits */
    if (pad > 0 && pad != 4 - units)
        return -1; /* Java: incorrect ending byte */
    if (pad == 0 && units != 0 && !(how & GR_BASE64_NOPAD))
        return -1; /* the padding is required */
    return (long)k;
}

void
gr_uuid_to_base64(const gr_uuid_t *u, char out[23])
{
    gr_base64_encode_as(u->b, sizeof u->b, out,
                        GR_BASE64_URL | GR_BASE64_NOPAD);
}

int
gr_uuid_from_base64(gr_uuid_t *u, const char *s)
{
    long k;
    if (strnlen(s, 23) != 22)
        return -1;
    /* 22 characters: 132 bits, the last 4 dropped */
    k = gr_base64_decode_as(s, 22, u->b, GR_BASE64_URL | GR_BASE64_NOPAD);
    return k == 16 ? 0 : -1;
}

void
gr_uuid_random(gr_uuid_t *u)
{
    do {
        if (getrandom(u->b, sizeof u->b, 0) != (ssize_t)sizeof u->b) {
            /* getrandom cannot fail for 16 bytes once the pool is ready;
             * fall back to the clock mixed with the pid */
            for (size_t i = 0; i < sizeof u->b; i++)
                u->b[i] = (uint8_t)(i * 131u + (unsigned)getpid());
        }
        u->b[6] = (uint8_t)((u->b[6] & 0x0f) | 0x40); /* version 4 */
        u->b[8] = (uint8_t)((u->b[8] & 0x3f) | 0x80); /* variant */
    } while (gr_uuid_is_zero(u));
}

typedef struct {
    const char *ptr;
    int32_t len;
    int32_t i;
} skey_t;

static int
skey_cmp(const void *x, const void *y)
{
    const skey_t *a = x, *b = y;

    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->len > 0 ? memcmp(a->ptr, b->ptr, (size_t)a->len) : 0;
}

bool *
gr_str_repeats(gr_arena_t *a, const gr_str_t *first, size_t stride, int32_t n)
{
    bool *dup = gr_arena_zalloc(a, n > 0 ? (size_t)n * sizeof(*dup) : 1);
    skey_t *k = gr_arena_alloc(a, n > 0 ? (size_t)n * sizeof(*k) : 1);
    int32_t m = 0;

    if (dup == NULL || k == NULL)
        return NULL;
    for (int32_t i = 0; i < n; i++) {
        const gr_str_t *s =
            (const gr_str_t *)(const void *)((const char *)first +
                                             (size_t)i * stride);
        if (s->len >= 0)
            k[m++] = (skey_t){ s->ptr, s->len, i };
    }
    qsort(k, (size_t)m, sizeof(*k), skey_cmp);
    for (int32_t i = 1; i < m; i++)
        if (skey_cmp(&k[i - 1], &k[i]) == 0)
            dup[k[i - 1].i] = dup[k[i].i] = true;
    return dup;
}

size_t
gr_utf8_len(const void *p, size_t n)
{
    const unsigned char *s = p;
    unsigned c = s[0];
    size_t k;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        k = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        k = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        k = 4, cp = c & 0x07;
    else
        return 0;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((k == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (k == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return k;
}

bool
gr_utf8_valid(const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t i = 0, k;
    while (i < n) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        if ((k = gr_utf8_len(s + i, n - i)) == 0)
            return false;
        i += k;
    }
    return true;
}
