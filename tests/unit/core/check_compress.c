/*
 * Compression codecs: round trips at several sizes, the framings Kafka
 * clients expect, vectors from independent encoders (tests/data/compress/,
 * see its README.txt), the output limit, and hostile input (truncated,
 * corrupted, trailing bytes, random).
 */
#include "../unit.h"
#include "core/compress.h"
#include "proto/records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define DEF GR_COMPRESS_LEVEL_DEFAULT

static const uint8_t xerial_magic[8] = {
    0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0
};

/* --- helpers ------------------------------------------------------------ */

static uint8_t *
load(const char *name, size_t *len)
{
    char path[1024];
    FILE *f;
    uint8_t *p;
    long n;

    snprintf(path, sizeof path, "%s/compress/%s", GR_TEST_DATA, name);
    f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    p = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(fread(p, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return p;
}

static uint64_t
xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* kind 0: text records, about 1 KiB each, like a batch's values;
 * kind 1: pseudo-random bytes (incompressible). */
static uint8_t *
payload(int kind, size_t n)
{
    uint8_t *p = malloc(n + 1);
    uint64_t seed = 0x9E3779B97F4A7C15ULL + n;
    size_t i = 0;

    ck_assert_ptr_nonnull(p);
    if (kind == 1) {
        for (i = 0; i < n; i++)
            p[i] = (uint8_t)(xorshift(&seed) >> 24);
        return p;
    }
    while (i < n) {
        char line[128];
        int k = snprintf(line, sizeof line,
                         "{\"id\":%zu,\"user\":\"u%03u\",\"score\":%u,", i,
                         (unsigned)(xorshift(&seed) % 1000),
                         (unsigned)(xorshift(&seed) % 100000));
        for (int j = 0; j < k && i < n; j++)
            p[i++] = (uint8_t)line[j];
        if (i < n && i % 1024 > 900)
            p[i++] = '\n';
    }
    return p;
}

/* --- codec numbers, names, arguments ----------------------------------- */

START_TEST(test_numbers_and_names)
{
    ck_assert_int_eq(GR_COMPRESS_NONE, GR_CODEC_NONE);
    ck_assert_int_eq(GR_COMPRESS_GZIP, GR_CODEC_GZIP);
    ck_assert_int_eq(GR_COMPRESS_SNAPPY, GR_CODEC_SNAPPY);
    ck_assert_int_eq(GR_COMPRESS_LZ4, GR_CODEC_LZ4);
    ck_assert_int_eq(GR_COMPRESS_ZSTD, GR_CODEC_ZSTD);
    ck_assert_str_eq(gr_compress_name(0), "none");
    ck_assert_str_eq(gr_compress_name(1), "gzip");
    ck_assert_str_eq(gr_compress_name(2), "snappy");
    ck_assert_str_eq(gr_compress_name(3), "lz4");
    ck_assert_str_eq(gr_compress_name(4), "zstd");
    ck_assert_ptr_null(gr_compress_name(5));
    ck_assert_ptr_null(gr_compress_name(-1));
}
END_TEST

START_TEST(test_bad_arguments)
{
    gr_buf_t b = GR_BUF_INIT;
    const uint8_t x[4] = { 1, 2, 3, 4 };

    ck_assert_int_eq(gr_compress(5, x, 4, &b, DEF, 0), GR_ERR_UNSUPPORTED);
    ck_assert_int_eq(gr_compress(-1, x, 4, &b, DEF, 0), GR_ERR_UNSUPPORTED);
    ck_assert_int_eq(gr_decompress(7, x, 4, &b, 100), GR_ERR_UNSUPPORTED);
    /* Kafka's level ranges (compression.<codec>.level). */
    ck_assert_int_eq(gr_compress(1, x, 4, &b, 0, 0), GR_ERR_INVALID);
    ck_assert_int_eq(gr_compress(1, x, 4, &b, 10, 0), GR_ERR_INVALID);
    ck_assert_int_eq(gr_compress(3, x, 4, &b, 0, 0), GR_ERR_INVALID);
    ck_assert_int_eq(gr_compress(3, x, 4, &b, 18, 0), GR_ERR_INVALID);
    ck_assert_int_eq(gr_compress(4, x, 4, &b, 23, 0), GR_ERR_INVALID);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_int_eq(gr_compress(1, x, 4, &b, -1, 0), GR_OK);
    ck_assert_int_eq(gr_compress(3, x, 4, &b, 17, 0), GR_OK);
    ck_assert_int_eq(gr_compress(4, x, 4, &b, -1, 0), GR_OK); /* zstd fast */
    ck_assert_int_eq(gr_compress(4, x, 4, &b, 22, 0), GR_OK);
    ck_assert_int_eq(gr_compress(2, x, 4, &b, 99, 0), GR_OK); /* ignored */
    /* Empty input is no stream at all, except for "none". */
    for (int c = 1; c <= 4; c++)
        ck_assert_int_eq(gr_decompress(c, x, 0, &b, 100), GR_ERR_CORRUPT);
    b.len = 0;
    ck_assert_int_eq(gr_decompress(0, x, 0, &b, 0), GR_OK);
    ck_assert_int_eq(gr_decompress(0, x, 4, &b, 3), GR_ERR_TOO_LARGE);
    ck_assert_uint_eq(b.len, 0);
    gr_buf_fini(&b);
}
END_TEST

/* --- round trips -------------------------------------------------------- */

typedef struct {
    int codec, level, flags;
} variant_t;

static const variant_t variants[] = {
    { GR_COMPRESS_NONE, DEF, 0 },
    { GR_COMPRESS_GZIP, DEF, 0 },
    { GR_COMPRESS_GZIP, 1, 0 },
    { GR_COMPRESS_SNAPPY, DEF, 0 },
    { GR_COMPRESS_SNAPPY, DEF, GR_COMPRESS_SNAPPY_RAW },
    { GR_COMPRESS_LZ4, DEF, 0 },
    { GR_COMPRESS_LZ4, 1, 0 },
    { GR_COMPRESS_LZ4, DEF, GR_COMPRESS_LZ4_BROKEN_HC },
    { GR_COMPRESS_ZSTD, DEF, 0 },
    { GR_COMPRESS_ZSTD, -5, 0 },
    { GR_COMPRESS_ZSTD, 9, 0 },
};
#define N_VARIANTS (int)(sizeof variants / sizeof variants[0])

static const size_t sizes[] = { 0, 1, 100, 65536 + 1, 1 << 20 };

START_TEST(test_roundtrip)
{
    const variant_t *v = &variants[_i];

    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (int kind = 0; kind < 2; kind++) {
            size_t n = sizes[si];
            uint8_t *in = payload(kind, n);
            gr_buf_t c = GR_BUF_INIT, d = GR_BUF_INIT;

            /* Both append after what the buffer holds. */
            gr_buf_append(&c, "pfx", 3);
            gr_buf_append(&d, "xy", 2);
            ck_assert_int_eq(
                gr_compress(v->codec, in, n, &c, v->level, v->flags), GR_OK);
            ck_assert_mem_eq(c.ptr, "pfx", 3);
            ck_assert_int_eq(
                gr_decompress(v->codec, c.ptr + 3, c.len - 3, &d, n), GR_OK);
            ck_assert_uint_eq(d.len, n + 2);
            ck_assert_mem_eq(d.ptr, "xy", 2);
            if (n > 0)
                ck_assert_mem_eq(d.ptr + 2, in, n);
            /* One byte under the output's size is refused, and d is
             * left as it was. */
            if (n > 0) {
                d.len = 2;
                ck_assert_int_eq(
                    gr_decompress(v->codec, c.ptr + 3, c.len - 3, &d, n - 1),
                    GR_ERR_TOO_LARGE);
                ck_assert_uint_eq(d.len, 2);
            }
            gr_buf_fini(&c);
            gr_buf_fini(&d);
            free(in);
        }
    }
}
END_TEST

/* Output that fills the buffers the decompressor grows exactly (powers
 * of two from 16 KiB, into an empty buffer): zstd called again after its
 * frame ended and took "wants the next frame" for a cut-short frame
 * (found by the compress fuzz target). */
START_TEST(test_exact_buffer_sizes)
{
    static const int codecs[] = { GR_COMPRESS_GZIP, GR_COMPRESS_SNAPPY,
                                  GR_COMPRESS_LZ4, GR_COMPRESS_ZSTD };
    for (size_t ci = 0; ci < sizeof codecs / sizeof codecs[0]; ci++) {
        for (size_t n = 16384; n <= 262144; n *= 2) {
            for (int kind = 0; kind < 2; kind++) {
                uint8_t *in = payload(kind, n);
                gr_buf_t c = GR_BUF_INIT, d = GR_BUF_INIT;
                ck_assert_int_eq(gr_compress(codecs[ci], in, n, &c,
                                             GR_COMPRESS_LEVEL_DEFAULT, 0),
                                 GR_OK);
                ck_assert_int_eq(
                    gr_decompress(codecs[ci], c.ptr, c.len, &d, SIZE_MAX),
                    GR_OK);
                ck_assert_uint_eq(d.len, n);
                ck_assert_mem_eq(d.ptr, in, n);
                gr_buf_fini(&c);
                gr_buf_fini(&d);
                free(in);
            }
        }
    }
}
END_TEST

/* --- framings as clients expect them ------------------------------------ */

START_TEST(test_framing)
{
    size_t n = 100000, vn, off, total = 0;
    uint8_t *in = payload(0, n), *vec;
    gr_buf_t b = GR_BUF_INIT;
    int blocks = 0;

    /* gzip: one gzip member. */
    ck_assert_int_eq(gr_compress(GR_COMPRESS_GZIP, in, n, &b, DEF, 0), GR_OK);
    ck_assert_mem_eq(b.ptr, "\x1f\x8b\x08", 3);

    /* snappy: xerial header, version 1, compatible 1, 32 KiB blocks. */
    b.len = 0;
    ck_assert_int_eq(gr_compress(GR_COMPRESS_SNAPPY, in, n, &b, DEF, 0), GR_OK);
    ck_assert_mem_eq(b.ptr, xerial_magic, 8);
    ck_assert_mem_eq(b.ptr + 8, "\0\0\0\1\0\0\0\1", 8);
    for (off = 16; off < b.len; blocks++) {
        uint32_t blen = (uint32_t)b.ptr[off] << 24 |
                        (uint32_t)b.ptr[off + 1] << 16 |
                        (uint32_t)b.ptr[off + 2] << 8 | b.ptr[off + 3];
        gr_buf_t d = GR_BUF_INIT;
        ck_assert_uint_le(off + 4 + blen, b.len);
        ck_assert_int_eq(gr_decompress(GR_COMPRESS_SNAPPY, b.ptr + off + 4,
                                       blen, &d, SIZE_MAX),
                         GR_OK);
        ck_assert_uint_le(d.len, 32768);
        total += d.len;
        off += 4 + blen;
        gr_buf_fini(&d);
    }
    ck_assert_int_eq(blocks, 4); /* 100000 bytes in 32 KiB blocks */
    ck_assert_uint_eq(total, n);
    /* Raw: one block, starting with the varint length. */
    b.len = 0;
    ck_assert_int_eq(
        gr_compress(GR_COMPRESS_SNAPPY, in, n, &b, DEF, GR_COMPRESS_SNAPPY_RAW),
        GR_OK);
    ck_assert_mem_eq(b.ptr, "\xa0\x8d\x06", 3); /* 100000 */

    /* lz4: the very header Kafka's Java client writes (FLG 0x60, BD 0x40,
     * HC), in either HC form: compare with the vectors built that way. */
    vec = load("lz4_java_style.bin", &vn);
    b.len = 0;
    ck_assert_int_eq(gr_compress(GR_COMPRESS_LZ4, in, n, &b, DEF, 0), GR_OK);
    ck_assert_mem_eq(b.ptr, vec, 7);
    free(vec);
    vec = load("lz4_java_style_broken_hc.bin", &vn);
    b.len = 0;
    ck_assert_int_eq(
        gr_compress(GR_COMPRESS_LZ4, in, n, &b, DEF, GR_COMPRESS_LZ4_BROKEN_HC),
        GR_OK);
    ck_assert_mem_eq(b.ptr, vec, 7);
    /* The end mark, and no content checksum after it. */
    ck_assert_mem_eq(b.ptr + b.len - 4, "\0\0\0\0", 4);
    free(vec);

    /* zstd: a standard frame. */
    b.len = 0;
    ck_assert_int_eq(gr_compress(GR_COMPRESS_ZSTD, in, n, &b, DEF, 0), GR_OK);
    ck_assert_mem_eq(b.ptr, "\x28\xb5\x2f\xfd", 4);
    ck_assert_uint_eq(ZSTD_getFrameContentSize(b.ptr, b.len), n);

    gr_buf_fini(&b);
    free(in);
}
END_TEST

/* --- independent vectors ------------------------------------------------ */

typedef struct {
    const char *file;
    int codec;
    int prefix_may_decode; /* no end mark: a prefix can be a whole stream */
    /* test_corrupted flips bytes of the first flip_max only (0: all): each
     * decompression of a frame declaring a 128 MiB window allocates one,
     * and under ASan that costs ~0.1 s (its shadow is written) */
    size_t flip_max;
} vector_t;

static const vector_t vectors[] = {
    { "gzip_python.gz", GR_COMPRESS_GZIP, 0, 0 },
    { "gzip_cli.gz", GR_COMPRESS_GZIP, 0, 0 },
    { "gzip_two_members.gz", GR_COMPRESS_GZIP, 1, 0 },
    { "snappy_xerial.bin", GR_COMPRESS_SNAPPY, 1, 0 },
    { "snappy_raw.bin", GR_COMPRESS_SNAPPY, 0, 0 },
    { "lz4_kafka_python.bin", GR_COMPRESS_LZ4, 0, 0 },
    { "lz4_kafka_python_old.bin", GR_COMPRESS_LZ4, 0, 0 },
    { "lz4_java_style.bin", GR_COMPRESS_LZ4, 0, 0 },
    { "lz4_java_style_broken_hc.bin", GR_COMPRESS_LZ4, 0, 0 },
    { "lz4_csize_dictid_broken_hc.bin", GR_COMPRESS_LZ4, 0, 0 },
    { "lz4_cli.bin", GR_COMPRESS_LZ4, 0, 0 },
    { "lz4_cli_linked.bin", GR_COMPRESS_LZ4, 0, 0 },
    { "zstd_cli.zst", GR_COMPRESS_ZSTD, 0, 0 },
    { "zstd_python.zst", GR_COMPRESS_ZSTD, 0, 0 },
    { "zstd_stream.zst", GR_COMPRESS_ZSTD, 0, 0 },
    { "zstd_two_frames.zst", GR_COMPRESS_ZSTD, 1, 0 },
    { "zstd_window27.zst", GR_COMPRESS_ZSTD, 0, 32 },
};
#define N_VECTORS (int)(sizeof vectors / sizeof vectors[0])

START_TEST(test_vectors)
{
    const vector_t *v = &vectors[_i];
    size_t pn, vn;
    uint8_t *plain = load("plain.bin", &pn), *vec = load(v->file, &vn);
    gr_buf_t d = GR_BUF_INIT;

    ck_assert_int_eq(gr_decompress(v->codec, vec, vn, &d, pn), GR_OK);
    ck_assert_uint_eq(d.len, pn);
    ck_assert_mem_eq(d.ptr, plain, pn);
    d.len = 0;
    ck_assert_int_eq(gr_decompress(v->codec, vec, vn, &d, pn - 1),
                     GR_ERR_TOO_LARGE);
    ck_assert_uint_eq(d.len, 0);
    gr_buf_fini(&d);
    free(vec);
    free(plain);
}
END_TEST

/* Every prefix fails, unless the framing has no end mark: then it may
 * decode, but only to a prefix of the plain text. */
START_TEST(test_truncated)
{
    const vector_t *v = &vectors[_i];
    size_t pn, vn;
    uint8_t *plain = load("plain.bin", &pn), *vec = load(v->file, &vn);
    gr_buf_t d = GR_BUF_INIT;

    for (size_t k = 0; k < vn; k += (k < 64 || vn - k < 64) ? 1 : 97) {
        gr_err_t err;
        d.len = 0;
        err = gr_decompress(v->codec, vec, k, &d, pn);
        if (err == GR_OK) {
            ck_assert_msg(v->prefix_may_decode, "%s: prefix %zu decodes",
                          v->file, k);
            ck_assert_uint_lt(d.len, pn);
            ck_assert(d.len == 0 || memcmp(d.ptr, plain, d.len) == 0);
        } else {
            ck_assert_int_eq(err, GR_ERR_CORRUPT);
            ck_assert_uint_eq(d.len, 0);
        }
    }
    gr_buf_fini(&d);
    free(vec);
    free(plain);
}
END_TEST

/* Bytes after the stream make it corrupt. */
START_TEST(test_trailing)
{
    const vector_t *v = &vectors[_i];
    size_t pn, vn;
    uint8_t *plain = load("plain.bin", &pn), *vec = load(v->file, &vn);
    static const char *tails[] = { "x", "\0\0\0", "garbage!", "\0\0\0\0" };
    gr_buf_t d = GR_BUF_INIT;

    for (size_t t = 0; t < sizeof tails / sizeof tails[0]; t++) {
        size_t tn = t == 1 ? 3 : t == 3 ? 4 : strlen(tails[t]);
        uint8_t *in = malloc(vn + tn);
        memcpy(in, vec, vn);
        memcpy(in + vn, tails[t], tn);
        d.len = 0;
        ck_assert_msg(gr_decompress(v->codec, in, vn + tn, &d, pn) ==
                          GR_ERR_CORRUPT,
                      "%s + tail %zu accepted", v->file, t);
        ck_assert_uint_eq(d.len, 0);
        free(in);
    }
    gr_buf_fini(&d);
    free(vec);
    free(plain);
}
END_TEST

/* Every byte changed in turn (with a stride): never a crash, the limit
 * holds, a failure leaves the buffer alone. Under ASan this checks bounds. */
START_TEST(test_corrupted)
{
    const vector_t *v = &vectors[_i];
    size_t pn, vn, flips;
    uint8_t *plain = load("plain.bin", &pn), *vec = load(v->file, &vn);
    gr_buf_t d = GR_BUF_INIT;

    /* of window27: its frame header; the body is zstd_cli's case */
    flips = v->flip_max > 0 && v->flip_max < vn ? v->flip_max : vn;
    for (size_t k = 0; k < flips; k += k < 64 ? 1 : 53) {
        for (int x = 1; x < 256; x += 84) {
            gr_err_t err;
            vec[k] ^= (uint8_t)x;
            d.len = 0;
            err = gr_decompress(v->codec, vec, vn, &d, 2 * pn);
            if (err == GR_OK) {
                ck_assert_uint_le(d.len, 2 * pn);
            } else {
                ck_assert(err == GR_ERR_CORRUPT || err == GR_ERR_TOO_LARGE);
                ck_assert_uint_eq(d.len, 0);
            }
            vec[k] ^= (uint8_t)x;
        }
    }
    gr_buf_fini(&d);
    free(vec);
    free(plain);
}
END_TEST

static void
expect_corrupt_at(const char *file, int codec, size_t from_end)
{
    size_t vn;
    uint8_t *vec = load(file, &vn);
    gr_buf_t d = GR_BUF_INIT;

    vec[vn - from_end] ^= 0x01;
    ck_assert_int_eq(gr_decompress(codec, vec, vn, &d, SIZE_MAX),
                     GR_ERR_CORRUPT);
    ck_assert_uint_eq(d.len, 0);
    gr_buf_fini(&d);
    free(vec);
}

START_TEST(test_checksums)
{
    size_t vn;
    uint8_t *vec;
    gr_buf_t d = GR_BUF_INIT;

    expect_corrupt_at("gzip_python.gz", GR_COMPRESS_GZIP, 8); /* CRC-32 */
    expect_corrupt_at("gzip_python.gz", GR_COMPRESS_GZIP, 1); /* ISIZE */
    expect_corrupt_at("zstd_cli.zst", GR_COMPRESS_ZSTD, 1);   /* XXH64 */
    expect_corrupt_at("lz4_cli.bin", GR_COMPRESS_LZ4, 1);     /* XXH32 */

    /* An LZ4 header checksum that is neither the right nor the broken
     * one. Kafka's frame: the HC is byte 6. */
    vec = load("lz4_java_style.bin", &vn);
    {
        size_t bn;
        uint8_t *broken = load("lz4_java_style_broken_hc.bin", &bn);
        uint8_t hc = vec[6];
        ck_assert_uint_ne(hc, broken[6]);
        while (vec[6] == hc || vec[6] == broken[6])
            vec[6]++;
        free(broken);
    }
    ck_assert_int_eq(gr_decompress(GR_COMPRESS_LZ4, vec, vn, &d, SIZE_MAX),
                     GR_ERR_CORRUPT);
    ck_assert_uint_eq(d.len, 0);
    free(vec);

    /* Skippable frames are not what Kafka writes. */
    ck_assert_int_eq(gr_decompress(GR_COMPRESS_LZ4,
                                   (const uint8_t *)"\x50\x2a\x4d\x18\0\0\0\0",
                                   8, &d, SIZE_MAX),
                     GR_ERR_CORRUPT);
    gr_buf_fini(&d);
}
END_TEST

/* --- limits --------------------------------------------------------------- */

static void
expect_bomb(int codec, const uint8_t *in, size_t n, size_t real)
{
    gr_buf_t d = GR_BUF_INIT;

    gr_buf_append(&d, "keep", 4);
    ck_assert_int_eq(gr_decompress(codec, in, n, &d, 1 << 20),
                     GR_ERR_TOO_LARGE);
    ck_assert_uint_eq(d.len, 4);
    /* Whatever was allocated stays in proportion to the limit. */
    ck_assert_uint_le(d.cap, 4 << 20);
    ck_assert_int_eq(gr_decompress(codec, in, n, &d, real), GR_OK);
    ck_assert_uint_eq(d.len, real + 4);
    for (size_t i = 4; i < d.len; i++)
        if (d.ptr[i] != 0)
            ck_abort_msg("byte %zu is not zero", i);
    gr_buf_fini(&d);
}

START_TEST(test_bombs)
{
    size_t vn, n = 16 << 20;
    uint8_t *vec, *zeros = calloc(1, n);
    gr_buf_t c = GR_BUF_INIT;

    vec = load("gzip_bomb.gz", &vn);
    expect_bomb(GR_COMPRESS_GZIP, vec, vn, 8 << 20);
    free(vec);
    vec = load("zstd_bomb.zst", &vn); /* states its size: refused at once */
    expect_bomb(GR_COMPRESS_ZSTD, vec, vn, 64 << 20);
    free(vec);

    /* Our own bombs, every codec and framing. */
    for (int i = 0; i < N_VARIANTS; i++) {
        const variant_t *v = &variants[i];
        if (v->codec == GR_COMPRESS_NONE)
            continue;
        c.len = 0;
        ck_assert_int_eq(
            gr_compress(v->codec, zeros, n, &c, v->level, v->flags), GR_OK);
        expect_bomb(v->codec, c.ptr, c.len, n);
    }

    /* zstd without a content size: the streaming path must stop too. */
    {
        ZSTD_CCtx *cc = ZSTD_createCCtx();
        size_t r;
        ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
        c.len = 0;
        gr_buf_reserve(&c, ZSTD_compressBound(n));
        r = ZSTD_compress2(cc, c.ptr, c.cap, zeros, n);
        ck_assert(!ZSTD_isError(r));
        c.len = r;
        ZSTD_freeCCtx(cc);
        ck_assert_uint_eq(ZSTD_getFrameContentSize(c.ptr, c.len),
                          ZSTD_CONTENTSIZE_UNKNOWN);
        expect_bomb(GR_COMPRESS_ZSTD, c.ptr, c.len, n);
    }
    gr_buf_fini(&c);
    free(zeros);
}
END_TEST

START_TEST(test_hostile_headers)
{
    gr_buf_t d = GR_BUF_INIT;
    size_t vn;
    uint8_t *vec;
    /* raw snappy claiming 2^32-1 bytes from 8 bytes of input */
    static const uint8_t snappy_claim[] = { 0xff, 0xff, 0xff, 0xff,
                                            0x0f, 0x00, 0x00, 0x00 };
    /* xerial: a block length beyond the input, and a negative one */
    uint8_t xer[24];

    ck_assert_int_eq(gr_decompress(GR_COMPRESS_SNAPPY, snappy_claim,
                                   sizeof snappy_claim, &d, SIZE_MAX),
                     GR_ERR_CORRUPT);
    ck_assert_uint_eq(d.cap, 0); /* nothing allocated */
    memcpy(xer, xerial_magic, 8);
    memcpy(xer + 8, "\0\0\0\1\0\0\0\1\0\0\0\x05\0\0\0\0", 16);
    ck_assert_int_eq(gr_decompress(GR_COMPRESS_SNAPPY, xer, 24, &d, SIZE_MAX),
                     GR_ERR_CORRUPT);
    memcpy(xer + 16, "\xff\xff\xff\xff", 4);
    ck_assert_int_eq(gr_decompress(GR_COMPRESS_SNAPPY, xer, 24, &d, SIZE_MAX),
                     GR_ERR_CORRUPT);
    /* A header alone is an empty stream; a short header is not. */
    ck_assert_int_eq(gr_decompress(GR_COMPRESS_SNAPPY, xer, 16, &d, SIZE_MAX),
                     GR_OK);
    ck_assert_uint_eq(d.len, 0);
    ck_assert_int_eq(gr_decompress(GR_COMPRESS_SNAPPY, xer, 12, &d, SIZE_MAX),
                     GR_ERR_CORRUPT);

    /* zstd frames wanting a window over 2^27 bytes are refused. */
    vec = load("zstd_window30.zst", &vn);
    ck_assert_int_eq(gr_decompress(GR_COMPRESS_ZSTD, vec, vn, &d, SIZE_MAX),
                     GR_ERR_CORRUPT);
    ck_assert_uint_eq(d.len, 0);
    free(vec);
    gr_buf_fini(&d);
}
END_TEST

/* Random input behind each codec's magic: no crash, no leak, no growth. */
START_TEST(test_random_input)
{
    static const uint8_t magics[][8] = {
        { 0x1f, 0x8b, 0x08, 0 },
        { 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0 },
        { 0x04, 0x22, 0x4d, 0x18, 0x60, 0x40 },
        { 0x28, 0xb5, 0x2f, 0xfd },
    };
    static const size_t magic_len[] = { 3, 8, 6, 4 };
    uint64_t seed = 42;
    uint8_t in[512];
    gr_buf_t d = GR_BUF_INIT;

    for (int iter = 0; iter < 20000; iter++) {
        int codec = 1 + (int)(xorshift(&seed) % 4);
        size_t n = xorshift(&seed) % sizeof in;
        size_t m = magic_len[codec - 1];
        for (size_t i = 0; i < n; i++)
            in[i] = (uint8_t)(xorshift(&seed) >> 32);
        if (iter % 4 != 0 && n >= m)
            memcpy(in, magics[codec - 1], m);
        d.len = 0;
        gr_err_t err = gr_decompress(codec, in, n, &d, 1 << 16);
        if (err != GR_OK)
            ck_assert_uint_eq(d.len, 0);
        ck_assert_uint_le(d.len, 1 << 16);
    }
    gr_buf_fini(&d);
}
END_TEST

Suite *
suite_core_compress(void)
{
    Suite *s = suite_create("core/compress");
    TCase *tc = tcase_create("compress");

    tcase_set_timeout(tc, 120); /* sanitizer builds are slow */
    tcase_add_test(tc, test_numbers_and_names);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_loop_test(tc, test_roundtrip, 0, N_VARIANTS);
    tcase_add_test(tc, test_exact_buffer_sizes);
    tcase_add_test(tc, test_framing);
    tcase_add_loop_test(tc, test_vectors, 0, N_VECTORS);
    tcase_add_loop_test(tc, test_truncated, 0, N_VECTORS);
    tcase_add_loop_test(tc, test_trailing, 0, N_VECTORS);
    tcase_add_loop_test(tc, test_corrupted, 0, N_VECTORS);
    tcase_add_test(tc, test_checksums);
    tcase_add_test(tc, test_bombs);
    tcase_add_test(tc, test_hostile_headers);
    tcase_add_test(tc, test_random_input);
    suite_add_tcase(s, tc);
    return s;
}
