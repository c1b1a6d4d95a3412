/*
 * Compression codecs: see compress.h for the framings and the contract.
 * zlib, snappy, liblz4 and libzstd do the coding; this file owns the
 * framings Kafka adds around them (xerial snappy, the LZ4 header checksum
 * quirk), the output limit, and mapping library errors to gr_err_t.
 *
 * Decompressors write through a sink (below) that grows the output buffer
 * geometrically and never beyond max_out + 1 bytes: the extra byte is how
 * "more than max_out" is told apart from "exactly max_out".
 */
#include "core/compress.h"
#include "core/log.h"

#include <dlfcn.h>
#include <lz4frame.h>
#include <pthread.h>
#include <snappy-c.h>
#include <stdbool.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

/* Kafka's default levels (GzipCompression, Lz4Compression, ZstdCompression
 * DEFAULT_LEVEL). */
#define GZIP_LEVEL_DEFAULT Z_DEFAULT_COMPRESSION
#define LZ4_LEVEL_DEFAULT  9
#define LZ4_LEVEL_MIN      1
#define LZ4_LEVEL_MAX      17
#define ZSTD_LEVEL_DEFAULT 3

/* xerial / snappy-java stream: 8-byte magic, int32 BE version, int32 BE
 * compatible version, then [int32 BE length][raw snappy block]... */
static const uint8_t xerial_magic[8] = {
    0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0
};
#define XERIAL_HEADER_SIZE 16
#define XERIAL_VERSION     1
#define XERIAL_COMPAT      1
#define XERIAL_BLOCK_SIZE  (32 * 1024) /* snappy-java's and kafka-python's */

/* A raw snappy stream expands at most 64 bytes per 3-byte copy element, so
 * a claimed length above 22 times the input is a lie: refused before any
 * allocation. */
#define SNAPPY_MAX_RATIO 22

/* LZ4 frame (lz4_Frame_format.md): magic (LE), FLG, BD, [content size, 8],
 * [dictionary id, 4], HC = second byte of XXH32(FLG..before HC, seed 0). */
#define LZ4_MAGIC       0x184D2204U
#define LZ4_FLG_DICT_ID 0x01
#define LZ4_FLG_CSIZE   0x08
#define LZ4_HEADER_MAX  19

/* zstd's own default for streaming decoders; Kafka's Java clients (zstd-jni
 * streams without a pledged size) write windows up to 2^27 at level 22. */
#define ZSTD_WINDOW_LOG_MAX 27
#define ZSTD_HINT_MAX       ((size_t)1 << 20)

#define SINK_MIN_STEP ((size_t)16 * 1024)
#define SINK_MAX_STEP ((size_t)1 << 30) /* also keeps zlib's uInt counts safe \
                                         */

/* --- output sink ----------------------------------------------------- */

typedef struct {
    gr_buf_t *out;
    size_t base;    /* out->len at the start */
    size_t max_out; /* bytes the caller accepts */
    size_t hint;    /* expected output, for the first allocation */
} sink_t;

static size_t
sink_len(const sink_t *s)
{
    return s->out->len - s->base;
}

/* Gives *avail >= 1 writable bytes at *p, never letting the output pass
 * max_out + 1 bytes. GR_ERR_TOO_LARGE once it has passed max_out. */
static gr_err_t
sink_space(sink_t *s, uint8_t **p, size_t *avail)
{
    size_t have = sink_len(s);
    size_t left, want, room;

    if (have > s->max_out)
        return GR_ERR_TOO_LARGE;
    left = s->max_out - have;
    if (left < SIZE_MAX)
        left++;
    want = have > s->hint ? have : s->hint;
    if (want < SINK_MIN_STEP)
        want = SINK_MIN_STEP;
    if (want > SINK_MAX_STEP)
        want = SINK_MAX_STEP;
    if (want > left)
        want = left;
    if (gr_buf_reserve(s->out, want) != 0)
        return GR_ERR_NOMEM;
    room = s->out->cap - s->out->len;
    if (room > left)
        room = left;
    if (room > SINK_MAX_STEP)
        room = SINK_MAX_STEP;
    *p = s->out->ptr + s->out->len;
    *avail = room;
    return GR_OK;
}

/* Counts n bytes written at the pointer sink_space() gave. */
static gr_err_t
sink_commit(sink_t *s, size_t n)
{
    s->out->len += n;
    return sink_len(s) > s->max_out ? GR_ERR_TOO_LARGE : GR_OK;
}

/* --- small helpers ---------------------------------------------------- */

static uint32_t
rd_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

static void
wr_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t
rd_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* XXH32 (xxHash's 32-bit hash, from its specification), for the LZ4 frame
 * header checksum. liblz4 does not export it. */
#define XXH_P1 2654435761U
#define XXH_P2 2246822519U
#define XXH_P3 3266489917U
#define XXH_P4 668265263U
#define XXH_P5 374761393U

static uint32_t
rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

static uint32_t
xxh32_round(uint32_t acc, uint32_t lane)
{
    acc += lane * XXH_P2;
    return rotl32(acc, 13) * XXH_P1;
}

static uint32_t
xxh32(const uint8_t *p, size_t n, uint32_t seed)
{
    const uint8_t *end = p + n;
    uint32_t h;

    if (n >= 16) {
        uint32_t v1 = seed + XXH_P1 + XXH_P2, v2 = seed + XXH_P2;
        uint32_t v3 = seed, v4 = seed - XXH_P1;
        do {
            v1 = xxh32_round(v1, rd_le32(p));
            v2 = xxh32_round(v2, rd_le32(p + 4));
            v3 = xxh32_round(v3, rd_le32(p + 8));
            v4 = xxh32_round(v4, rd_le32(p + 12));
            p += 16;
        } while (end - p >= 16);
        h = rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18);
    } else {
        h = seed + XXH_P5;
    }
    h += (uint32_t)n;
    for (; end - p >= 4; p += 4)
        h = rotl32(h + rd_le32(p) * XXH_P3, 17) * XXH_P4;
    for (; p < end; p++)
        h = rotl32(h + (uint32_t)*p * XXH_P5, 11) * XXH_P1;
    h ^= h >> 15;
    h *= XXH_P2;
    h ^= h >> 13;
    h *= XXH_P3;
    h ^= h >> 16;
    return h;
}

/* --- gzip --------------------------------------------------------------- */

/* Members follow each other until the input ends (java.util.zip's
 * GZIPInputStream reads concatenated members too). */
static gr_err_t
gzip_decompress(const uint8_t *in, size_t n, sink_t *s)
{
    z_stream zs;
    gr_err_t err = GR_OK;

    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 16) != Z_OK) /* 16: gzip framing only */
        return GR_ERR_NOMEM;
    zs.next_in = (Bytef *)in; /* n <= GR_COMPRESS_MAX_INPUT fits uInt */
    zs.avail_in = (uInt)n;
    for (;;) {
        uint8_t *p;
        size_t avail;
        int zr;

        if ((err = sink_space(s, &p, &avail)) != GR_OK)
            break;
        zs.next_out = p;
        zs.avail_out = (uInt)avail;
        zr = inflate(&zs, Z_NO_FLUSH);
        if ((err = sink_commit(s, avail - zs.avail_out)) != GR_OK)
            break;
        if (zr == Z_STREAM_END) {
            if (zs.avail_in == 0)
                break; /* the last member ended with the input */
            if (inflateReset(&zs) != Z_OK) {
                err = GR_ERR_CORRUPT;
                break;
            }
            continue;
        }
        if (zr == Z_MEM_ERROR) {
            err = GR_ERR_NOMEM;
            break;
        }
        /* Z_BUF_ERROR: no progress possible, i.e. the input ended early;
         * Z_OK with room left and no input: likewise. */
        if (zr != Z_OK || (zs.avail_in == 0 && zs.avail_out != 0)) {
            err = GR_ERR_CORRUPT;
            break;
        }
    }
    inflateEnd(&zs);
    return err;
}

static gr_err_t
gzip_compress(const uint8_t *in, size_t n, gr_buf_t *out, int level)
{
    z_stream zs;
    uLong bound;
    gr_err_t err = GR_OK;

    if (level == GR_COMPRESS_LEVEL_DEFAULT)
        level = GZIP_LEVEL_DEFAULT;
    if (level != -1 && (level < 1 || level > 9))
        return GR_ERR_INVALID;
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        return GR_ERR_NOMEM;
    bound = deflateBound(&zs, (uLong)n);
    if (gr_buf_reserve(out, bound) != 0) {
        deflateEnd(&zs);
        return GR_ERR_NOMEM;
    }
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)n;
    zs.next_out = out->ptr + out->len;
    zs.avail_out = bound > UINT_MAX ? UINT_MAX : (uInt)bound;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
        err = GR_ERR_NOMEM; /* the bound was too small: cannot happen */
    else
        out->len += zs.total_out;
    deflateEnd(&zs);
    return err;
}

/* --- snappy ------------------------------------------------------------- */

/* libsnappy is C++ underneath: linked in, it brings libstdc++, libm and
 * libgcc_s into every broker, 1.3 MB of the idle RSS, for a codec many
 * deployments never see. Its C API is loaded at the first snappy batch
 * instead (a few hundred microseconds, once), by whichever thread meets it
 * first. */
static struct {
    __typeof__(snappy_compress) *compress;
    __typeof__(snappy_uncompress) *uncompress;
    __typeof__(snappy_max_compressed_length) *max_compressed_length;
    __typeof__(snappy_uncompressed_length) *uncompressed_length;
} snp;
static pthread_once_t sn_once = PTHREAD_ONCE_INIT;
static bool sn_ok;

static void
sn_load(void)
{
    void *h = dlopen(GR_SNAPPY_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        GR_LOG_ERROR("snappy batches cannot be read or written: %s", dlerror());
        return;
    }
    snp.compress = (__typeof__(snp.compress))dlsym(h, "snappy_compress");
    snp.uncompress = (__typeof__(snp.uncompress))dlsym(h, "snappy_uncompress");
    snp.max_compressed_length = (__typeof__(snp.max_compressed_length))dlsym(
        h, "snappy_max_compressed_length");
    snp.uncompressed_length = (__typeof__(snp.uncompressed_length))dlsym(
        h, "snappy_uncompressed_length");
    sn_ok = snp.compress && snp.uncompress && snp.max_compressed_length &&
            snp.uncompressed_length;
    if (!sn_ok)
        GR_LOG_ERROR("%s lacks snappy's C API: snappy batches cannot be read "
                     "or written",
                     GR_SNAPPY_SONAME);
}

static bool
sn_ready(void)
{
    pthread_once(&sn_once, sn_load);
    return sn_ok;
}

static gr_err_t
snappy_raw_decompress(const uint8_t *in, size_t n, sink_t *s)
{
    size_t len, got;

    if (!sn_ready())
        return GR_ERR_UNSUPPORTED;
    if (snp.uncompressed_length((const char *)in, n, &len) != SNAPPY_OK ||
        len / SNAPPY_MAX_RATIO > n)
        return GR_ERR_CORRUPT;
    if (len > s->max_out - sink_len(s))
        return GR_ERR_TOO_LARGE;
    if (gr_buf_reserve(s->out, len + 1) != 0) /* + 1: never a NULL ptr */
        return GR_ERR_NOMEM;
    got = len;
    if (snp.uncompress((const char *)in, n, (char *)s->out->ptr + s->out->len,
                       &got) != SNAPPY_OK ||
        got != len)
        return GR_ERR_CORRUPT;
    return sink_commit(s, got);
}

static gr_err_t
snappy_decompress(const uint8_t *in, size_t n, sink_t *s)
{
    size_t off = XERIAL_HEADER_SIZE;
    gr_err_t err;

    if (n < sizeof xerial_magic || memcmp(in, xerial_magic, 8) != 0)
        return snappy_raw_decompress(in, n, s);
    /* The versions are not checked: snappy-java has only ever written 1. */
    if (n < XERIAL_HEADER_SIZE)
        return GR_ERR_CORRUPT;
    while (off < n) {
        uint32_t blen;
        if (n - off < 4)
            return GR_ERR_CORRUPT;
        blen = rd_be32(in + off);
        off += 4;
        if (blen > n - off)
            return GR_ERR_CORRUPT;
        if ((err = snappy_raw_decompress(in + off, blen, s)) != GR_OK)
            return err;
        off += blen;
    }
    return GR_OK;
}

/* Appends one raw snappy block; *len gets its size. */
static gr_err_t
snappy_block(const uint8_t *in, size_t n, gr_buf_t *out, size_t *len)
{
    size_t cap;

    if (!sn_ready())
        return GR_ERR_UNSUPPORTED;
    cap = snp.max_compressed_length(n);
    if (gr_buf_reserve(out, cap) != 0)
        return GR_ERR_NOMEM;
    *len = cap;
    if (snp.compress((const char *)in, n, (char *)out->ptr + out->len, len) !=
        SNAPPY_OK)
        return GR_ERR_NOMEM; /* only if cap were too small */
    out->len += *len;
    return GR_OK;
}

static gr_err_t
snappy_compress_framed(const uint8_t *in, size_t n, gr_buf_t *out, int raw)
{
    uint8_t hdr[XERIAL_HEADER_SIZE];
    size_t off, len;
    gr_err_t err;

    if (raw)
        return snappy_block(in, n, out, &len);
    memcpy(hdr, xerial_magic, sizeof xerial_magic);
    wr_be32(hdr + 8, XERIAL_VERSION);
    wr_be32(hdr + 12, XERIAL_COMPAT);
    gr_buf_append(out, hdr, sizeof hdr);
    for (off = 0; off < n; off += len) {
        size_t at = out->len, blen = n - off;
        uint8_t lenbuf[4] = { 0 };
        if (blen > XERIAL_BLOCK_SIZE)
            blen = XERIAL_BLOCK_SIZE;
        gr_buf_append(out, lenbuf, sizeof lenbuf);
        if (out->oom)
            return GR_ERR_NOMEM;
        if ((err = snappy_block(in + off, blen, out, &len)) != GR_OK)
            return err;
        wr_be32(out->ptr + at, (uint32_t)len);
        len = blen;
    }
    return out->oom ? GR_ERR_NOMEM : GR_OK;
}

/* --- lz4 ---------------------------------------------------------------- */

/* The header checksum byte of an LZ4 frame header hdr[0..hc_at), computed
 * as the format says (over FLG..) or as Kafka's magic-0 writer did (over
 * the magic too). */
static uint8_t
lz4_hc(const uint8_t *hdr, size_t hc_at, int broken)
{
    return broken ? (uint8_t)(xxh32(hdr, hc_at, 0) >> 8)
                  : (uint8_t)(xxh32(hdr + 4, hc_at - 4, 0) >> 8);
}

static gr_err_t
lz4_decompress(const uint8_t *in, size_t n, sink_t *s)
{
    uint8_t hdr[LZ4_HEADER_MAX];
    size_t hlen, src_len;
    const uint8_t *src;
    LZ4F_dctx *dctx;
    size_t r = 1;
    int phase = 0; /* 0: the repaired header copy, 1: the rest of in */
    gr_err_t err = GR_OK;

    /* Check the header checksum here, accepting either form, and hand
     * liblz4 a copy that carries the correct one. */
    if (n < 7 || rd_le32(in) != LZ4_MAGIC)
        return GR_ERR_CORRUPT;
    hlen = 7;
    if (in[4] & LZ4_FLG_CSIZE)
        hlen += 8;
    if (in[4] & LZ4_FLG_DICT_ID)
        hlen += 4;
    if (n < hlen)
        return GR_ERR_CORRUPT;
    memcpy(hdr, in, hlen);
    hdr[hlen - 1] = lz4_hc(in, hlen - 1, 0);
    if (in[hlen - 1] != hdr[hlen - 1] &&
        in[hlen - 1] != lz4_hc(in, hlen - 1, 1))
        return GR_ERR_CORRUPT;

    if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
        return GR_ERR_NOMEM;
    src = hdr;
    src_len = hlen;
    for (;;) {
        uint8_t *p;
        size_t avail, sn, dn;

        if (src_len == 0 && phase == 0) {
            src = in + hlen;
            src_len = n - hlen;
            phase = 1;
        }
        if ((err = sink_space(s, &p, &avail)) != GR_OK)
            break;
        sn = src_len;
        dn = avail;
        r = LZ4F_decompress(dctx, p, &dn, src, &sn, NULL);
        if (LZ4F_isError(r)) { /* allocation failures look the same */
            err = GR_ERR_CORRUPT;
            break;
        }
        src += sn;
        src_len -= sn;
        if ((err = sink_commit(s, dn)) != GR_OK)
            break;
        if (r == 0) { /* the frame ended: nothing may follow */
            if (phase == 0 || src_len != 0)
                err = GR_ERR_CORRUPT;
            break;
        }
        /* Input used up with room to spare (the frame was cut short), or
         * no progress at all: either way it cannot end. */
        if ((phase == 1 && src_len == 0 && dn < avail) ||
            (sn == 0 && dn == 0)) {
            err = GR_ERR_CORRUPT;
            break;
        }
    }
    LZ4F_freeDecompressionContext(dctx);
    return err;
}

static gr_err_t
lz4_compress(const uint8_t *in, size_t n, gr_buf_t *out, int level, int flags)
{
    LZ4F_preferences_t prefs;
    size_t bound, r, hlen;
    uint8_t *p;

    if (level == GR_COMPRESS_LEVEL_DEFAULT)
        level = LZ4_LEVEL_DEFAULT;
    if (level < LZ4_LEVEL_MIN || level > LZ4_LEVEL_MAX)
        return GR_ERR_INVALID;
    /* Kafka's Lz4BlockOutputStream: 64 KiB independent blocks, no block or
     * content checksum, no content size. */
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.blockSizeID = LZ4F_max64KB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
    prefs.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
    prefs.compressionLevel = level; /* 1-2: LZ4's fast mode, 3-12: HC */
    bound = LZ4F_compressFrameBound(n, &prefs);
    if (gr_buf_reserve(out, bound) != 0)
        return GR_ERR_NOMEM;
    p = out->ptr + out->len;
    r = LZ4F_compressFrame(p, bound, in, n, &prefs);
    if (LZ4F_isError(r))
        return GR_ERR_NOMEM;
    if (flags & GR_COMPRESS_LZ4_BROKEN_HC) {
        hlen = 7 + (p[4] & LZ4_FLG_CSIZE ? 8 : 0) +
               (p[4] & LZ4_FLG_DICT_ID ? 4 : 0);
        p[hlen - 1] = lz4_hc(p, hlen - 1, 1);
    }
    out->len += r;
    return GR_OK;
}

/* --- zstd --------------------------------------------------------------- */

static gr_err_t
zstd_decompress(const uint8_t *in, size_t n, sink_t *s)
{
    ZSTD_DCtx *dctx;
    ZSTD_inBuffer ib = { in, n, 0 };
    unsigned long long fcs;
    gr_err_t err = GR_OK;

    if (n == 0)
        return GR_ERR_CORRUPT;
    /* A first frame that states its size can be refused before work. */
    fcs = ZSTD_getFrameContentSize(in, n);
    if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != ZSTD_CONTENTSIZE_ERROR) {
        if (fcs > s->max_out - sink_len(s))
            return GR_ERR_TOO_LARGE;
        /* A guess, believed only up to ZSTD_HINT_MAX: allocation follows
         * the output produced, not what a header claims. */
        s->hint = fcs < ZSTD_HINT_MAX ? (size_t)fcs : ZSTD_HINT_MAX;
    }
    if ((dctx = ZSTD_createDCtx()) == NULL)
        return GR_ERR_NOMEM;
    if (ZSTD_isError(ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax,
                                            ZSTD_WINDOW_LOG_MAX))) {
        ZSTD_freeDCtx(dctx);
        return GR_ERR_NOMEM;
    }
    for (;;) {
        ZSTD_outBuffer ob;
        uint8_t *p;
        size_t avail, r;

        if ((err = sink_space(s, &p, &avail)) != GR_OK)
            break;
        ob.dst = p;
        ob.size = avail;
        ob.pos = 0;
        r = ZSTD_decompressStream(dctx, &ob, &ib);
        if (ZSTD_isError(r)) {
            err = ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation
                      ? GR_ERR_NOMEM
                      : GR_ERR_CORRUPT;
            break;
        }
        if ((err = sink_commit(s, ob.pos)) != GR_OK)
            break;
        /* Everything read: complete at a frame end (r == 0: decoded and
         * flushed, even when that filled the output exactly; asking
         * again would start a next frame and want more input), cut short
         * when room is left and the frame is not done. */
        if (ib.pos == ib.size && (r == 0 || ob.pos < ob.size)) {
            if (r != 0)
                err = GR_ERR_CORRUPT;
            break;
        }
    }
    ZSTD_freeDCtx(dctx);
    return err;
}

static gr_err_t
zstd_compress(const uint8_t *in, size_t n, gr_buf_t *out, int level)
{
    ZSTD_CCtx *cctx;
    size_t bound = ZSTD_compressBound(n), r;

    if (level == GR_COMPRESS_LEVEL_DEFAULT)
        level = ZSTD_LEVEL_DEFAULT;
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
        return GR_ERR_INVALID;
    if (gr_buf_reserve(out, bound) != 0)
        return GR_ERR_NOMEM;
    if ((cctx = ZSTD_createCCtx()) == NULL)
        return GR_ERR_NOMEM;
    r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(r))
        r = ZSTD_compress2(cctx, out->ptr + out->len, bound, in, n);
    ZSTD_freeCCtx(cctx);
    if (ZSTD_isError(r))
        return GR_ERR_NOMEM;
    out->len += r;
    return GR_OK;
}

/* --- API ---------------------------------------------------------------- */

gr_err_t
gr_decompress(int codec, const uint8_t *in, size_t n, gr_buf_t *out,
              size_t max_out)
{
    sink_t s = { out, out->len, max_out, 0 };
    gr_err_t err;

    if (n > GR_COMPRESS_MAX_INPUT)
        return GR_ERR_TOO_LARGE;
    if (out->oom)
        return GR_ERR_NOMEM;
    /* First guess at the output: 4 times the input (librdkafka's). */
    s.hint = n < SINK_MAX_STEP / 4 ? n * 4 : SINK_MAX_STEP;
    switch (codec) {
    case GR_COMPRESS_NONE:
        if (n > max_out)
            return GR_ERR_TOO_LARGE;
        gr_buf_append(out, in, n);
        err = out->oom ? GR_ERR_NOMEM : GR_OK;
        break;
    case GR_COMPRESS_GZIP:
        err = gzip_decompress(in, n, &s);
        break;
    case GR_COMPRESS_SNAPPY:
        err = snappy_decompress(in, n, &s);
        break;
    case GR_COMPRESS_LZ4:
        err = lz4_decompress(in, n, &s);
        break;
    case GR_COMPRESS_ZSTD:
        err = zstd_decompress(in, n, &s);
        break;
    default:
        return GR_ERR_UNSUPPORTED;
    }
    if (err != GR_OK)
        out->len = s.base;
    return err;
}

gr_err_t
gr_compress(int codec, const uint8_t *in, size_t n, gr_buf_t *out, int level,
            int flags)
{
    size_t base = out->len;
    gr_err_t err;

    if (n > GR_COMPRESS_MAX_INPUT)
        return GR_ERR_TOO_LARGE;
    if (out->oom)
        return GR_ERR_NOMEM;
    switch (codec) {
    case GR_COMPRESS_NONE:
        gr_buf_append(out, in, n);
        err = out->oom ? GR_ERR_NOMEM : GR_OK;
        break;
    case GR_COMPRESS_GZIP:
        err = gzip_compress(in, n, out, level);
        break;
    case GR_COMPRESS_SNAPPY:
        err =
            snappy_compress_framed(in, n, out, flags & GR_COMPRESS_SNAPPY_RAW);
        break;
    case GR_COMPRESS_LZ4:
        err = lz4_compress(in, n, out, level, flags);
        break;
    case GR_COMPRESS_ZSTD:
        err = zstd_compress(in, n, out, level);
        break;
    default:
        return GR_ERR_UNSUPPORTED;
    }
    if (err != GR_OK)
        out->len = base;
    return err;
}

const char *
gr_compress_name(int codec)
{
    switch (codec) {
    case GR_COMPRESS_NONE:
        return "none";
    case GR_COMPRESS_GZIP:
        return "gzip";
    case GR_COMPRESS_SNAPPY:
        return "snappy";
    case GR_COMPRESS_LZ4:
        return "lz4";
    case GR_COMPRESS_ZSTD:
        return "zstd";
    }
    return NULL;
}
