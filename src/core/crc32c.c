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

static uint32_t table[256]; /* one byte, software */
static pthread_once_t once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__)
static uint32_t long_shift[4][256];  /* the register past LONG zero bytes */
static uint32_t short_shift[4][256]; /* past SHORT zero bytes */
static int have_hw;                  /* the CPU has SSE 4.2's crc32 */
static int have_fold;                /* and AVX-512 carry-less multiplication */
static uint64_t fold_k[5][2];        /* folding 16 bytes forward by 16, 32, 48,
                                      * 64 and 256 bytes (below) */

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

/* x^n modulo POLY */
static uint32_t
xnmodp(uint64_t n)
{
    uint32_t xp = 1u << 31, sq = 1u << 30; /* x^0, x^1 */
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
    uint32_t op = xnmodp(8 * (uint64_t)n);
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
#endif

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
    if (have_hw) {
        static const int by[5] = { 16, 32, 48, 64, 256 };
        shift_table(long_shift, LONG);
        shift_table(short_shift, SHORT);
        have_fold = __builtin_cpu_supports("avx512f") &&
                    __builtin_cpu_supports("vpclmulqdq");
        for (int i = 0; i < 5; i++) {
            fold_k[i][0] = xnmodp(8 * (uint64_t)by[i] + 31);
            fold_k[i][1] = xnmodp(8 * (uint64_t)by[i] - 33);
        }
    }
#endif
}

static uint32_t
crc_sw(uint32_t reg, const unsigned char *p, size_t n)
{
    while (n--)
        reg = (reg >> 8) ^ table[(reg ^ *p++) & 0xff];
    return reg;
}

#if defined(__x86_64__)
#include <immintrin.h>

static inline uint64_t
load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Three streams of the crc32 instruction at once (its latency is three
 * times its throughput) over blocks of 3 * block bytes, joined by
 * shifting the earlier ones' registers past the bytes after them (t:
 * block zero bytes). Inlined with a constant block. */
__attribute__((target("sse4.2"))) static inline uint64_t
crc_streams(uint64_t c0, const unsigned char **pp, size_t *np, size_t block,
            uint32_t t[4][256])
{
    const unsigned char *p = *pp;
    for (; *np >= 3 * block; *np -= 3 * block) {
        const unsigned char *end = p + block;
        uint64_t c1 = 0, c2 = 0;
        do {
            c0 = _mm_crc32_u64(c0, load64(p));
            c1 = _mm_crc32_u64(c1, load64(p + block));
            c2 = _mm_crc32_u64(c2, load64(p + 2 * block));
            p += 8;
        } while (p < end);
        c0 = shift(t, (uint32_t)c0) ^ (uint32_t)c1;
        c0 = shift(t, (uint32_t)c0) ^ (uint32_t)c2;
        p += 2 * block;
    }
    *pp = p;
    return c0;
}

__attribute__((target("sse4.2"))) static uint32_t
crc_hw(uint32_t reg, const unsigned char *p, size_t n)
{
    uint64_t c0 = reg;
    while (n > 0 && ((uintptr_t)p & 7) != 0) {
        c0 = _mm_crc32_u8((uint32_t)c0, *p++);
        n--;
    }
    c0 = crc_streams(c0, &p, &n, LONG, long_shift);
    c0 = crc_streams(c0, &p, &n, SHORT, short_shift);
    for (; n >= 8; n -= 8, p += 8)
        c0 = _mm_crc32_u64(c0, load64(p));
    while (n-- > 0)
        c0 = _mm_crc32_u8((uint32_t)c0, *p++);
    return (uint32_t)c0;
}

/* Folding (the method of Intel's "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ"): 16 bytes whose polynomial is H x^64 + L
 * (H the first 8, bit 0 the highest power: CRC-32C is reflected) moved F
 * bytes on are H x^(64+8F) + L x^(8F), congruent modulo POLY to
 * H k0 x^33 + L k1 x^33 with k0 = x^(8F+31), k1 = x^(8F-33) mod POLY,
 * which is what the two carry-less products of reflected operands give
 * in place. Congruent bytes have the same CRC, so the 256-byte blocks are
 * folded into 64, those into 16, and the crc32 instruction finishes them
 * and the tail. The register enters as the first 4 bytes XORed. */
#define FOLD_TARGET __attribute__((target("sse4.2,pclmul,avx512f,vpclmulqdq")))

FOLD_TARGET static inline __m128i
fold16(__m128i x, int i, __m128i data)
{
    __m128i k =
        _mm_set_epi64x((long long)fold_k[i][1], (long long)fold_k[i][0]);
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
                                       _mm_clmulepi64_si128(x, k, 0x11)),
                         data);
}

FOLD_TARGET static inline __m512i
fold64(__m512i x, __m512i k, __m512i data)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), data,
                                     0x96);
}

FOLD_TARGET static uint32_t
crc_fold(uint32_t reg, const unsigned char *p, size_t n)
{
    __m512i k256 = _mm512_broadcast_i32x4(
        _mm_set_epi64x((long long)fold_k[4][1], (long long)fold_k[4][0]));
    __m512i k64 = _mm512_broadcast_i32x4(
        _mm_set_epi64x((long long)fold_k[3][1], (long long)fold_k[3][0]));
    __m512i z0 = _mm512_loadu_si512(p), z1 = _mm512_loadu_si512(p + 64);
    __m512i z2 = _mm512_loadu_si512(p + 128), z3 = _mm512_loadu_si512(p + 192);
    __m128i w;
    uint64_t c;

    z0 = _mm512_xor_si512(z0,
                          _mm512_inserti32x4(_mm512_setzero_si512(),
                                             _mm_cvtsi32_si128((int)reg), 0));
    for (p += 256, n -= 256; n >= 256; p += 256, n -= 256) {
        z0 = fold64(z0, k256, _mm512_loadu_si512(p));
        z1 = fold64(z1, k256, _mm512_loadu_si512(p + 64));
        z2 = fold64(z2, k256, _mm512_loadu_si512(p + 128));
        z3 = fold64(z3, k256, _mm512_loadu_si512(p + 192));
    }
    z1 = fold64(z0, k64, z1);
    z2 = fold64(z1, k64, z2);
    z3 = fold64(z2, k64, z3);
    /* the four lanes of the last 64 bytes into the last 16 */
    w = fold16(_mm512_extracti32x4_epi32(z3, 0), 2,
               _mm512_extracti32x4_epi32(z3, 3));
    w = _mm_xor_si128(
        w, fold16(_mm512_extracti32x4_epi32(z3, 1), 1, _mm_setzero_si128()));
    w = _mm_xor_si128(
        w, fold16(_mm512_extracti32x4_epi32(z3, 2), 0, _mm_setzero_si128()));
    c = _mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(w));
    c = _mm_crc32_u64(c, (uint64_t)_mm_extract_epi64(w, 1));
    return n > 0 ? crc_hw((uint32_t)c, p, n) : (uint32_t)c;
}
#endif

uint32_t
gr_crc32c_update(uint32_t crc, const void *p, size_t n)
{
    pthread_once(&once, init);
#if defined(__x86_64__)
    if (have_fold && n >= 1024)
        return ~crc_fold(~crc, p, n);
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
