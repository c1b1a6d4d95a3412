/*
 * Fuzz target "meta": meta_local's files as recovery reads them
 * (src/meta/local.c has their format). Input:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    1 flags: bit 0 set the CRCs right (the snapshot's trailer
 *                 and each whole journal record's), so mutations reach
 *                 the parsers behind the CRC checks
 *        1    4 snapshot length s (big-endian; cut to what is left)
 *        5    s snapshot bytes (0: no snapshot)
 *      5+s    . journal bytes
 *
 * gr_meta_local_parse() loads both into a tree and frees it: no crash or
 * leak; the valid journal prefix it reports lies inside the journal, and
 * parsing that prefix again accepts all of it (recovery cuts the journal
 * there, so the next start must read it whole). The bytes from offset 1
 * also go, whole, to the readers of Kafka's /controller_epoch and
 * /controller (src/broker_meta.c): in cluster mode they are what
 * ZooKeeper holds, peer data; an accepted value is never negative. And
 * to the reader of /latest_producer_id_block (src/txn/pid.c): an
 * accepted block, written back as Kafka's JSON, reads as the next one.
 */
#include "fuzz.h"

#include <stdint.h>
#include <string.h>

#include "broker.h"
#include "core/crc32c.h"
#include "meta/meta.h"
#include "txn/pid.h"

static void
put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static void
fix_crcs(uint8_t *snap, size_t s, uint8_t *j, size_t jn)
{
    if (s >= 8)
        put32(snap + s - 4, gr_crc32c(snap, s - 4));
    for (size_t pos = 0; jn - pos >= 8;) {
        size_t len = get32(j + pos);
        if (len > jn - pos - 8)
            break;
        put32(j + pos + 4, gr_crc32c(j + pos + 8, len));
        pos += 8 + len;
    }
}

int
gr_fuzz_meta(const uint8_t *data, size_t n)
{
    size_t s, jn, ok = 0, ok2 = 0;
    uint8_t *buf;
    int rc;

    if (n < 5)
        return 0;
    s = get32(data + 1);
    if (s > n - 5)
        s = n - 5;
    jn = n - 5 - s;
    /* exact-size copies, so ASan sees reads past either end */
    buf = malloc(n);
    GR_FUZZ_CHECK(buf != NULL);
    memcpy(buf, data, n);
    if (data[0] & 1)
        fix_crcs(buf + 5, s, buf + 5 + s, jn);
    {
        int32_t v = -1;
        if (gr_broker_meta_parse_epoch(buf + 1, n - 1, &v) == 0)
            GR_FUZZ_CHECK(v >= 0);
        v = -1;
        if (gr_broker_meta_parse_controller(buf + 1, n - 1, &v) == 0)
            GR_FUZZ_CHECK(v >= 0);
        {
            int64_t next = gr_pids_parse_block(buf + 1, n - 1);
            char json[160];
            int jl;
            GR_FUZZ_CHECK(next >= -1);
            /* what it accepts, written back, reads as the block after */
            if (next >= 0 && next <= INT64_MAX - 2 * GR_PID_BLOCK) {
                jl = gr_pids_block_json(1, next, json, sizeof json);
                GR_FUZZ_CHECK(jl > 0);
                GR_FUZZ_CHECK(gr_pids_parse_block(json, (size_t)jl) ==
                              next + GR_PID_BLOCK);
            }
        }
    }
    rc = gr_meta_local_parse(buf + 5, s, buf + 5 + s, jn, &ok);
    GR_FUZZ_CHECK(ok <= jn);
    if (rc == 0) {
        GR_FUZZ_CHECK(gr_meta_local_parse(buf + 5, s, buf + 5 + s, ok, &ok2) ==
                      0);
        GR_FUZZ_CHECK(ok2 == ok);
    }
    free(buf);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_meta)
