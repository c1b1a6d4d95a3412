/* Checksums: see crc32c.h. */
#include "core/crc32c.h"

#include <pthread.h>
#include <string.h>
#include <zlib.h>

/* CRC-32C works on a register: it starts at ~0 (the inverted "crc" of
 * nothing), takes each byte, and the finished CRC is the register
 * inverted. Resuming from a finished CRC means inverting it back. */

#define POLY  0x82f63b78u /* Castagnoli, reflected */
#define LONG  8192        /* bytes per stream in the long loop */
#define SHORT 256         /* and in the short one */

static uint32_t table[256];          /* one byte, software */
static uint32_t long_shift[4][256];  /* the register past LONG zero bytes */
static uint32_t short_shift[4][256]; /* past SHORT zero bytes */
static int have_hw;                  /* the CPU has SSE 4.2's crc32 */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* a * b modulo POLY, both reflected (bit 31 is x^0) */
static uint32_t
multmodp(uint32_t a, uint32_t b)
{
    uint32_t m = 1u << 31, p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0)
                break;
        }
        m >>= 1;
        b = b & 1 ? (b >> 1) ^ POLY : b >> 1;
    }
    return p;
}

/* x^(8n) modulo POLY */
static uint32_t
x8nmodp(size_t n)
{
    uint32_t xp = 1u << 31, sq = 1u << 23; /* x^0, x^8 */
    for (; n; n >>= 1) {
        if (n & 1)
            xp = multmodp(sq, xp);
        sq = multmodp(sq, sq);
    }
    return xp;
}

/* Shifting is linear: an entry is the XOR of the shifted bits it has. */
static void
shift_table(uint32_t t[4][256], size_t n)
{
    uint32_t op = x8nmodp(n);
    for (int j = 0; j < 4; j++) {
        uint32_t bit[8];
        for (int k = 0; k < 8; k++)
            bit[k] = multmodp(op, 1u << (8 * j + k));
        t[j][0] = 0;
        for (uint32_t b = 1; b < 256; b++)
            t[j][b] = t[j][b & (b - 1)] ^ bit[__builtin_ctz(b)];
    }
}

static uint32_t
shift(uint32_t t[4][256], uint32_t crc)
{
    return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^
           t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
}

static void
init(void)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
        table[b] = c;
    }
#if defined(__x86_64__)
    __builtin_cpu_init();
    have_hw = __builtin_cpu_supports("sse4.2");
#endif
    if (have_hw) {
        shift_table(long_shift, LONG);
        shift_table(short_shift, SHORT);
    }
}

static uint32_t
crc_sw(uint32_t reg, const unsigned char *p, size_t n)
{
    while (n--)
        reg = (reg >> 8) ^ table[(reg ^ *p++) & 0xff];
    return reg;
}

#if defined(__x86_64__)
#include <nmmintrin.h>

static inline uint64_t
load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Three streams of the crc32 instruction at once (its latency is three
 * times its throughput), joined by shifting the earlier ones' registers
 * past the bytes after them. */
__attribute__((target("sse4.2"))) static uint32_t
crc_hw(uint32_t reg, const unsigned char *p, size_t n)
{
    uint64_t c0 = reg, c1, c2;
    while (n > 0 && ((uintptr_t)p & 7) != 0) {
        c0 = _mm_crc32_u8((uint32_t)c0, *p++);
        n--;
    }
    while (n >= 3 * LONG) {
        const unsigned char *end = p + LONG;
        c1 = c2 = 0;
        do {
            c0 = _mm_crc32_u64(c0, load64(p));
            c1 = _mm_crc32_u64(c1, load64(p + LONG));
            c2 = _mm_crc32_u64(c2, load64(p + 2 * LONG));
            p += 8;
        } while (p < end);
        c0 = shift(long_shift, (uint32_t)c0) ^ (uint32_t)c1;
        c0 = shift(long_shift, (uint32_t)c0) ^ (uint32_t)c2;
        p += 2 * LONG;
        n -= 3 * LONG;
    }
    while (n >= 3 * SHORT) {
        const unsigned char *end = p + SHORT;
        c1 = c2 = 0;
        do {
            c0 = _mm_crc32_u64(c0, load64(p));
            c1 = _mm_crc32_u64(c1, load64(p + SHORT));
            c2 = _mm_crc32_u64(c2, load64(p + 2 * SHORT));
            p += 8;
        } while (p < end);
        c0 = shift(short_shift, (uint32_t)c0) ^ (uint32_t)c1;
        c0 = shift(short_shift, (uint32_t)c0) ^ (uint32_t)c2;
        p += 2 * SHORT;
        n -= 3 * SHORT;
    }
    for (; n >= 8; n -= 8, p += 8)
        c0 = _mm_crc32_u64(c0, load64(p));
    while (n-- > 0)
        c0 = _mm_crc32_u8((uint32_t)c0, *p++);
    return (uint32_t)c0;
}
#endif

uint32_t
gr_crc32c_update(uint32_t crc, const void *p, size_t n)
{
    pthread_once(&once, init);
#if defined(__x86_64__)
    if (have_hw)
        return ~crc_hw(~crc, p, n);
#endif
    return ~crc_sw(~crc, p, n);
}

uint32_t
gr_crc32c_portable_update(uint32_t crc, const void *p, size_t n)
{
    pthread_once(&once, init);
    return ~crc_sw(~crc, p, n);
}

uint32_t
gr_crc32c(const void *p, size_t n)
{
    return gr_crc32c_update(0, p, n);
}

/* zlib's crc32_z() already takes and returns finished CRCs. */
uint32_t
gr_crc32_update(uint32_t crc, const void *p, size_t n)
{
    if (n == 0)
        return crc;
    return (uint32_t)crc32_z(crc, p, n);
}

uint32_t
gr_crc32(const void *p, size_t n)
{
    return gr_crc32_update(0, p, n);
}
