/* Repeated keys and UUID helpers: see str.h. */
#include "core/str.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void
gr_uuid_to_base64(const gr_uuid_t *u, char out[23])
{
    int o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (int i = 0; i < 16; i++) {
        acc = (acc << 8) | u->b[i];
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out[o++] = b64[(acc >> bits) & 63];
        }
    }
    if (bits > 0)
        out[o++] = b64[(acc << (6 - bits)) & 63];
    out[o] = '\0';
}

int
gr_uuid_from_base64(gr_uuid_t *u, const char *s)
{
    uint32_t acc = 0;
    int bits = 0, o = 0;
    for (int i = 0; i < 22; i++) {
        const char *p = s[i] ? strchr(b64, s[i]) : NULL;
        if (p == NULL)
            return -1;
        acc = (acc << 6) | (uint32_t)(p - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o < 16)
                u->b[o++] = (uint8_t)(acc >> bits);
        }
    }
    return s[22] == '\0' && o == 16 ? 0 : -1;
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
