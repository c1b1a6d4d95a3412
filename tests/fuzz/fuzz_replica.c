/*
 * Fuzz target "replica": what a leader answers the replica fetcher
 * (src/broker_replica.c), a peer's bytes. Input: one byte choosing the
 * API and version (Fetch v4-v18, OffsetForLeaderEpoch v0-v4: byte % 20),
 * then a response frame without its size (correlation id, header tags
 * when flexible, the body).
 *
 * Then: gr_replica_decode_response() with the generated decoders, as the
 * fetcher decodes; for each Fetch partition its records go through the
 * follower's batch check (gr_partition_follower_batches, the check before
 * gr_log_append_follower): whatever it accepts must be whole, valid
 * batches within the records, each based past the one before.
 */
#include "fuzz.h"

#include "broker_replica.h"
#include "core/arena.h"
#include "partition/partition.h"
#include "proto/gen/api_keys.h"
#include "proto/gen/fetch.h"
#include "proto/gen/list_offsets.h"
#include "proto/gen/offset_for_leader_epoch.h"
#include "proto/records.h"

#include <string.h>

static void
check_records(const uint8_t *p, size_t n)
{
    const char *why;
    size_t used = 0, pos = 0, size;
    int64_t next = 0;
    gr_kerr_t k = gr_partition_follower_batches(p, n, 0, &used, &why);
    if (k != GR_KERR_NONE) {
        GR_FUZZ_CHECK(why != NULL);
        return;
    }
    GR_FUZZ_CHECK(used <= n);
    while (pos < used) {
        gr_batch_hdr_t h;
        GR_FUZZ_CHECK(gr_batch_check(p + pos, used - pos, &size, &why) == 0);
        gr_batch_hdr_parse(p + pos, &h);
        GR_FUZZ_CHECK(h.base_offset >= next);
        next = gr_batch_last_offset(&h) + 1;
        pos += size;
    }
    GR_FUZZ_CHECK(pos == used);
}

int
gr_fuzz_replica(const uint8_t *data, size_t n)
{
    gr_arena_t *a;
    int32_t corr;
    int16_t key, ver;
    union {
        gr_fetch_response_t fetch;
        gr_offset_for_leader_epoch_response_t ofle;
        gr_list_offsets_response_t list;
    } u;

    if (n < 1)
        return 0;
    if (data[0] % 32 < 15) {
        key = GR_API_FETCH;
        ver = (int16_t)(4 + data[0] % 32);
    } else if (data[0] % 32 < 20) {
        key = GR_API_OFFSET_FOR_LEADER_EPOCH;
        ver = (int16_t)(data[0] % 32 - 15);
    } else {
        key = GR_API_LIST_OFFSETS;
        ver = (int16_t)(data[0] % 32 - 20);
    }
    a = gr_arena_new(4096);
    GR_FUZZ_CHECK(a != NULL);
    memset(&u, 0, sizeof u);
    if (gr_replica_decode_response(key, ver, data + 1, n - 1, a, &corr, &u) ==
            0 &&
        key == GR_API_FETCH) {
        for (int32_t i = 0; i < u.fetch.responses_cnt; i++)
            for (int32_t j = 0; j < u.fetch.responses[i].partitions_cnt; j++) {
                const gr_records_t *r =
                    &u.fetch.responses[i].partitions[j].records;
                if (r->len > 0 && r->ptr != NULL) {
                    GR_FUZZ_CHECK(r->ptr >= data + 1 &&
                                  r->ptr + r->len <= data + n);
                    check_records(r->ptr, (size_t)r->len);
                }
            }
    }
    gr_arena_destroy(a);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_replica)
