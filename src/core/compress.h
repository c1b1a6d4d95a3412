/*
 * Kafka's four compression codecs, framed as they appear in the value of a
 * magic-2 record batch (bytes 61..end) and of a magic-0/1 wrapper message
 * (../shared/reference/record-format.md, "Compression framing"):
 *
 *   codec  number  compress writes                decompress accepts
 *   gzip   1       one gzip member (zlib)         one or more gzip members
 *   snappy 2       xerial stream, 32 KiB blocks   xerial stream or raw snappy
 *                  (raw with GR_COMPRESS_SNAPPY_RAW)
 *   lz4    3       LZ4 frame as Kafka writes it:  any LZ4 frame, header
 *                  64 KiB independent blocks, no  checksum (HC) correct or
 *                  content size or checksum; HC   "broken" (over the magic
 *                  broken with                    too, Kafka's magic-0
 *                  GR_COMPRESS_LZ4_BROKEN_HC      quirk)
 *   zstd   4       one zstd frame with content    one or more zstd frames,
 *                  size                           content size optional,
 *                                                 window up to 2^27 bytes
 *
 * The numbers are the attributes' codec bits and equal enum gr_codec in
 * src/proto/records.h (core does not include proto; a unit test checks
 * they agree). GR_COMPRESS_NONE (0) copies. Bytes after the last gzip member
 * or zstd frame, or after the LZ4 frame, make the input corrupt.
 *
 * Decompression is written for hostile input: it never reads outside
 * in[0..n), allocates in proportion to the output it has produced (capped
 * by max_out; a raw snappy block's stated length, at most 22 times its
 * input, is allocated up front) plus the codec's fixed working memory (up
 * to 4 MiB for an LZ4 block, a zstd window of up to 2^27 bytes for a frame
 * without content size), and stops with GR_ERR_TOO_LARGE as soon as the
 * output would pass max_out.
 *
 * Every call makes its own codec state: the functions are safe on any
 * thread (recompression runs on workers, src/core/worker.h). Inputs are
 * limited to GR_COMPRESS_MAX_INPUT bytes, a batch's int32 size limit.
 */
#ifndef GR_CORE_COMPRESS_H
#define GR_CORE_COMPRESS_H

#include "core/buf.h"
#include "core/err.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* Codec numbers: Kafka's attribute bits 0-2 (CompressionType.java). */
#define GR_COMPRESS_NONE   0
#define GR_COMPRESS_GZIP   1
#define GR_COMPRESS_SNAPPY 2
#define GR_COMPRESS_LZ4    3
#define GR_COMPRESS_ZSTD   4

/* gr_compress() flags. */
#define GR_COMPRESS_SNAPPY_RAW    0x01 /* one raw snappy block, as librdkafka */
#define GR_COMPRESS_LZ4_BROKEN_HC 0x02 /* HC over magic..BD, for magic 0 */

/* Each codec's default level, Kafka's: gzip 6 (zlib's default; -1 also
 * means it), lz4 9 (HC), zstd 3. Not -1, which is a valid zstd level. */
#define GR_COMPRESS_LEVEL_DEFAULT INT_MIN

/* Largest input either direction takes (INT32_MAX). */
#define GR_COMPRESS_MAX_INPUT ((size_t)INT32_MAX)

/*
 * Decompresses in[0..n), compressed with codec, appending the result to
 * out. At most max_out bytes are appended (SIZE_MAX: no limit); out is
 * otherwise untouched on failure (its length is restored). Result:
 *   GR_OK
 *   GR_ERR_TOO_LARGE    the output would exceed max_out, or n is over
 *                       GR_COMPRESS_MAX_INPUT
 *   GR_ERR_CORRUPT      malformed, truncated or trailing input, bad checksum
 *   GR_ERR_UNSUPPORTED  codec is not 0-4, or snappy's library cannot be
 *                       loaded (it is loaded at its first use)
 *   GR_ERR_NOMEM
 */
gr_err_t gr_decompress(int codec, const uint8_t *in, size_t n, gr_buf_t *out,
                       size_t max_out);

/*
 * Compresses in[0..n) with codec, appending the result to out (untouched on
 * failure). level: GR_COMPRESS_LEVEL_DEFAULT or one in Kafka's range for the
 * codec (compression.<codec>.level): gzip 1-9 or -1, lz4 1-17 (1-2 are
 * LZ4's fast mode, 3-12 LZ4 HC, above 12 counts as 12), zstd
 * ZSTD_minCLevel()-22; ignored for snappy and none. flags: the
 * GR_COMPRESS_* flags above, others ignored.
 * Result: GR_OK, GR_ERR_INVALID (level out of range), GR_ERR_UNSUPPORTED
 * (codec), GR_ERR_TOO_LARGE (n over GR_COMPRESS_MAX_INPUT), GR_ERR_NOMEM.
 */
gr_err_t gr_compress(int codec, const uint8_t *in, size_t n, gr_buf_t *out,
                     int level, int flags);

/* Kafka's name for a codec ("none", "gzip", "snappy", "lz4", "zstd", as in
 * compression.type), or NULL for another number. */
const char *gr_compress_name(int codec);

#endif
