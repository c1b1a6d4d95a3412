/*
 * Fuzz target "compress": the four decompressors on hostile input. Input:
 * a selector byte, a limit byte, then the compressed bytes.
 *
 *   selector % 8   codec number (5-7 must be refused as unsupported)
 *   selector & 8   compress with GR_COMPRESS_SNAPPY_RAW / _LZ4_BROKEN_HC
 *   limit          max_out: 0 -> unlimited, else limit * 997 bytes
 *
 * Checks: the output never passes max_out; on failure the output buffer
 * is as it was (the 3 bytes put there first are intact and its length
 * unchanged); what decompresses is compressed again with the same codec
 * (default and one other level) and must decompress to the same bytes.
 */
#include "fuzz.h"

#include "core/buf.h"
#include "core/compress.h"

#include <string.h>

#define ROUNDTRIP_MAX (256u * 1024)

static void
roundtrip(int codec, int flags, int level, const uint8_t *p, size_t n)
{
    gr_buf_t c = GR_BUF_INIT, d = GR_BUF_INIT;
    gr_err_t err = gr_compress(codec, p, n, &c, level, flags);
    GR_FUZZ_CHECK(err == GR_OK);
    err = gr_decompress(codec, c.ptr, c.len, &d, SIZE_MAX);
    GR_FUZZ_CHECK(err == GR_OK);
    GR_FUZZ_CHECK(d.len == n);
    GR_FUZZ_CHECK(n == 0 || memcmp(d.ptr, p, n) == 0);
    gr_buf_fini(&c);
    gr_buf_fini(&d);
}

int
gr_fuzz_compress(const uint8_t *data, size_t n)
{
    gr_buf_t out = GR_BUF_INIT;
    size_t max_out;
    int codec, flags;
    gr_err_t err;

    if (n < 2)
        return 0;
    codec = data[0] % 8;
    flags = (data[0] & 8) ? (GR_COMPRESS_SNAPPY_RAW | GR_COMPRESS_LZ4_BROKEN_HC)
                          : 0;
    max_out = data[1] ? (size_t)data[1] * 997 : SIZE_MAX;
    data += 2;
    n -= 2;

    gr_buf_append(&out, "abc", 3);
    err = gr_decompress(codec, data, n, &out, max_out);
    if (codec > GR_COMPRESS_ZSTD)
        GR_FUZZ_CHECK(err == GR_ERR_UNSUPPORTED);
    GR_FUZZ_CHECK(memcmp(out.ptr, "abc", 3) == 0);
    if (err != GR_OK) {
        GR_FUZZ_CHECK(out.len == 3);
    } else {
        size_t got = out.len - 3;
        GR_FUZZ_CHECK(max_out == SIZE_MAX || got <= max_out);
        if (got <= ROUNDTRIP_MAX) {
            roundtrip(codec, flags, GR_COMPRESS_LEVEL_DEFAULT, out.ptr + 3,
                      got);
            if (codec == GR_COMPRESS_GZIP || codec == GR_COMPRESS_LZ4 ||
                codec == GR_COMPRESS_ZSTD)
                roundtrip(codec, flags, 1, out.ptr + 3, got);
        }
    }
    gr_buf_fini(&out);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_compress)
