/*
 * Compression throughput on record-batch-like data: batches of about 1 KiB
 * JSON-like messages (fields repeat across messages, values vary), the
 * shape a producer's batch.size gathers. Reports, per codec and level, the
 * ratio and MB/s (10^6 bytes of uncompressed data per second) for
 * gr_compress() and gr_decompress(). Not run by make check.
 *
 *   tests/bench/compress_bench [batch-bytes [seconds-per-case]]
 *   (defaults: 65536 bytes, 0.5 s)
 */
#include "core/compress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t seed = 0x243F6A8885A308D3ULL;

static uint32_t
rnd(uint32_t n)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return (uint32_t)(seed >> 32) % n;
}

static const char *words[] = {
    "order",   "created", "shipped", "payment", "refund",    "customer",
    "basket",  "item",    "price",   "EUR",     "warehouse", "berlin",
    "lisbon",  "status",  "pending", "ok",      "retry",     "timeout",
    "session", "mobile",  "desktop", "search",  "click",     "view",
};
#define N_WORDS (sizeof words / sizeof words[0])

/* One message of about 1 KiB appended to b. */
static void
message(gr_buf_t *b, unsigned id)
{
    size_t start = b->len;

    gr_buf_printf(b,
                  "{\"id\":%u,\"ts\":%u%03u,\"user\":\"user%05u\","
                  "\"session\":\"%08x%08x\",\"path\":\"/api/v2/items/%u\","
                  "\"agent\":\"Mozilla/5.0 (X11; Linux x86_64) Gecko/%u\","
                  "\"amount\":%u.%02u,\"tags\":[",
                  id, 1700000000 + id / 10, rnd(1000), rnd(50000), rnd(~0U),
                  rnd(~0U), rnd(100000), 20100101 + rnd(100), rnd(10000),
                  rnd(100));
    while (b->len - start < 1000) {
        gr_buf_printf(b, "\"%s\",", words[rnd(N_WORDS)]);
        if (rnd(8) == 0)
            gr_buf_printf(b, "%u,", rnd(1000000));
    }
    gr_buf_puts(b, "\"end\"]}\n");
}

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct {
    int codec, level, flags;
    const char *label;
} bench_case_t;

static const bench_case_t cases[] = {
    { GR_COMPRESS_GZIP, GR_COMPRESS_LEVEL_DEFAULT, 0, "gzip (6)" },
    { GR_COMPRESS_GZIP, 1, 0, "gzip 1" },
    { GR_COMPRESS_SNAPPY, 0, 0, "snappy xerial" },
    { GR_COMPRESS_SNAPPY, 0, GR_COMPRESS_SNAPPY_RAW, "snappy raw" },
    { GR_COMPRESS_LZ4, GR_COMPRESS_LEVEL_DEFAULT, 0, "lz4 (9, HC)" },
    { GR_COMPRESS_LZ4, 1, 0, "lz4 1" },
    { GR_COMPRESS_ZSTD, GR_COMPRESS_LEVEL_DEFAULT, 0, "zstd (3)" },
    { GR_COMPRESS_ZSTD, 1, 0, "zstd 1" },
};

int
main(int argc, char **argv)
{
    size_t batch = argc > 1 ? strtoul(argv[1], NULL, 10) : 65536;
    double secs = argc > 2 ? atof(argv[2]) : 0.5;
    gr_buf_t in = GR_BUF_INIT, c = GR_BUF_INIT, d = GR_BUF_INIT;
    unsigned id = 0;

    while (in.len < batch)
        message(&in, id++);
    in.len = batch;
    printf("batch %zu bytes (%u messages of ~1 KiB), %.1f s per case\n", batch,
           id, secs);
    printf("%-15s %7s %12s %12s\n", "codec", "ratio", "comp MB/s",
           "decomp MB/s");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bench_case_t *bc = &cases[i];
        double t0, tc, td;
        long nc = 0, nd = 0;

        t0 = now();
        do {
            c.len = 0;
            if (gr_compress(bc->codec, in.ptr, in.len, &c, bc->level,
                            bc->flags) != GR_OK) {
                fprintf(stderr, "%s: compress failed\n", bc->label);
                return 1;
            }
            nc++;
        } while ((tc = now() - t0) < secs);
        t0 = now();
        do {
            d.len = 0;
            if (gr_decompress(bc->codec, c.ptr, c.len, &d, in.len) != GR_OK ||
                d.len != in.len || memcmp(d.ptr, in.ptr, in.len) != 0) {
                fprintf(stderr, "%s: decompress failed\n", bc->label);
                return 1;
            }
            nd++;
        } while ((td = now() - t0) < secs);
        printf("%-15s %7.2f %12.1f %12.1f\n", bc->label,
               (double)in.len / (double)c.len,
               (double)in.len * (double)nc / tc / 1e6,
               (double)in.len * (double)nd / td / 1e6);
    }
    gr_buf_fini(&in);
    gr_buf_fini(&c);
    gr_buf_fini(&d);
    return 0;
}
