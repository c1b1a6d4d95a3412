/* ListOffsets by timestamp (src/api/list_offsets.c): the records of the
 * batch the indexes find are searched on a worker, the request held and
 * answered when it is back; the loop's scratch buffer is not used (it does
 * not grow to a large batch's records); a topic deleted while the search
 * runs is answered UNKNOWN_TOPIC_OR_PARTITION or with the offset found;
 * a request naming more partitions than one response may hold files for
 * is searched in rounds. */
#include "../unit.h"
#include "brokertest.h"

#include "core/time.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"
#include "proto/proto.h"
#include "proto/records.h"
#include "proto/wire.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MIB  (1 << 20)
#define NREC 24

typedef gr_list_offsets_response_list_offsets_partition_response_t lo_part_t;

/* NREC records of vlen bytes each, timestamps t0, t0 + 10, ... */
static void
ts_batch(gr_buf_t *out, int codec, size_t vlen, int64_t t0)
{
    gr_batch_builder_t bb;
    uint8_t *v = calloc(1, vlen ? vlen : 1);
    ck_assert_ptr_nonnull(v);
    gr_batch_builder_init(&bb, codec, 0, -1, -1, -1);
    for (int i = 0; i < NREC; i++) {
        gr_bytes_t k = { NULL, -1 }, val = { v, (int32_t)vlen };
        v[0] = (uint8_t)i;
        gr_batch_builder_add(&bb, t0 + 10 * i, &k, &val, 0, NULL, 0);
    }
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, out), 0);
    gr_batch_builder_fini(&bb);
    free(v);
}

/* Produces batch to partition part of topic (acks 1). */
static void
produce(gr_brokertest_t *bt, const char *topic, int32_t part,
        const gr_buf_t *batch)
{
    gr_produce_request_t rq;
    gr_produce_request_topic_produce_data_t td;
    gr_produce_request_partition_produce_data_t pd;
    gr_produce_response_t *rs;

    gr_produce_request_init(&rq);
    gr_produce_request_topic_produce_data_init(&td);
    gr_produce_request_partition_produce_data_init(&pd);
    pd.index = part;
    pd.records.ptr = batch->ptr;
    pd.records.len = (int32_t)batch->len;
    rq.acks = 1;
    rq.timeout_ms = 10000;
    td.name = gr_str_c(topic);
    td.partition_data = &pd;
    td.partition_data_cnt = 1;
    rq.topic_data = &td;
    rq.topic_data_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_PRODUCE, 9, &rq);
    ck_assert_int_eq(rs->responses[0].partition_responses[0].error_code,
                     GR_KERR_NONE);
}

/* A ListOffsets of partitions 0..n-1 of topic, each at ts[i]. */
static void
lo_init(gr_list_offsets_request_t *rq,
        gr_list_offsets_request_list_offsets_topic_t *t,
        gr_list_offsets_request_list_offsets_partition_t *p, const char *topic,
        const int64_t *ts, int n)
{
    gr_list_offsets_request_init(rq);
    gr_list_offsets_request_list_offsets_topic_init(t);
    for (int i = 0; i < n; i++) {
        gr_list_offsets_request_list_offsets_partition_init(&p[i]);
        p[i].partition_index = i;
        p[i].timestamp = ts[i];
        p[i].max_num_offsets = 1;
    }
    rq->replica_id = -1;
    t->name = gr_str_c(topic);
    t->partitions = p;
    t->partitions_cnt = n;
    rq->topics = t;
    rq->topics_cnt = 1;
}

static lo_part_t *
list(gr_brokertest_t *bt, int16_t ver, const char *topic, const int64_t *ts,
     int n)
{
    gr_list_offsets_request_t rq;
    gr_list_offsets_request_list_offsets_topic_t t;
    gr_list_offsets_request_list_offsets_partition_t p[16];
    gr_list_offsets_response_t *rs;
    ck_assert_int_le(n, 16);
    lo_init(&rq, &t, p, topic, ts, n);
    rs = gr_brokertest_call(bt, GR_API_LIST_OFFSETS, ver, &rq);
    ck_assert_int_eq(rs->topics_cnt, 1);
    ck_assert_int_eq(rs->topics[0].partitions_cnt, n);
    return rs->topics[0].partitions;
}

/* The answer of v1+ (the leader epoch from v4) */
static void
assert_found(const lo_part_t *p, int16_t ver, int64_t offset, int64_t ts)
{
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->offset, offset);
    ck_assert_int_eq(p->timestamp, ts);
    ck_assert_int_eq(p->leader_epoch, offset >= 0 && ver >= 4 ? 0 : -1);
}

/* A zstd batch of 24 MiB of records beside a small uncompressed one: the
 * first record at or after a time, the largest timestamp, a time past
 * every record, the earliest and latest, in v1, v7 and v0's form; the
 * loop's scratch buffer does not grow to the batch (it did: 24 MiB). */
START_TEST(test_search_large_batch)
{
    gr_brokertest_t bt;
    gr_buf_t big = GR_BUF_INIT, small = GR_BUF_INIT;
    int64_t t0 = gr_wall_ms() - 600000;
    lo_part_t *p;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "big", 2, NULL, NULL);
    ts_batch(&big, GR_CODEC_ZSTD, MIB, t0);
    ts_batch(&small, GR_CODEC_NONE, 10, t0);
    ck_assert_int_lt(big.len, MIB / 4);
    produce(&bt, "big", 0, &big);
    produce(&bt, "big", 1, &small);

    {
        int64_t ts[2] = { t0 + 105, -1 };
        p = list(&bt, 7, "big", ts, 2);
        assert_found(&p[0], 7, 11, t0 + 110);
        assert_found(&p[1], 7, NREC, -1);
        p = list(&bt, 1, "big", ts, 2);
        assert_found(&p[0], 1, 11, t0 + 110);
    }
    {
        int64_t ts[2] = { -3, -2 };
        p = list(&bt, 7, "big", ts, 2);
        assert_found(&p[0], 7, NREC - 1, t0 + 10 * (NREC - 1));
        assert_found(&p[1], 7, 0, -1);
    }
    {
        int64_t ts[2] = { t0 + 10 * NREC, t0 };
        p = list(&bt, 7, "big", ts, 2);
        assert_found(&p[0], 7, -1, -1);
        assert_found(&p[1], 7, 0, t0);
    }
    {
        int64_t ts[2] = { t0 + 225, t0 + 225 };
        p = list(&bt, 0, "big", ts, 2);
        for (int i = 0; i < 2; i++) {
            ck_assert_int_eq(p[i].error_code, GR_KERR_NONE);
            ck_assert_int_eq(p[i].old_style_offsets_cnt, 1);
            ck_assert_int_eq(p[i].old_style_offsets[0], 23);
        }
    }
    ck_assert_uint_lt(bt.b->scratch.cap, MIB);
    gr_buf_fini(&big);
    gr_buf_fini(&small);
    gr_brokertest_stop(&bt);
}
END_TEST

/* --- a request written without waiting, its answer read apart */

/* Searches of eight 24 MiB batches under way while another connection
 * deletes their topic (its segments with it): each partition is answered
 * with the offset found or UNKNOWN_TOPIC_OR_PARTITION, the broker goes on,
 * and the topic is unknown afterwards. */
START_TEST(test_topic_deleted_in_flight)
{
    enum { NP = 8 };
    gr_brokertest_t bt;
    gr_buf_t big = GR_BUF_INIT;
    int64_t t0 = gr_wall_ms() - 600000, ts[NP];
    gr_list_offsets_request_t rq;
    gr_list_offsets_request_list_offsets_topic_t t;
    gr_list_offsets_request_list_offsets_partition_t qp[NP];
    gr_list_offsets_response_t *rs;
    gr_delete_topics_request_t drq;
    gr_delete_topics_response_t *drs;
    gr_str_t name = gr_str_c("gone");
    struct sockaddr_in sa;
    socklen_t salen = sizeof sa;
    int lo_fd, found = 0, unknown = 0;
    lo_part_t *p;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "gone", NP, NULL, NULL);
    ts_batch(&big, GR_CODEC_ZSTD, MIB, t0);
    for (int i = 0; i < NP; i++) {
        produce(&bt, "gone", i, &big);
        ts[i] = t0 + 205;
    }
    lo_init(&rq, &t, qp, "gone", ts, NP);
    gr_brokertest_send(&bt, GR_API_LIST_OFFSETS, 7, &rq);

    /* the deletion, on a second connection */
    lo_fd = bt.fd;
    ck_assert_int_eq(getpeername(lo_fd, (struct sockaddr *)&sa, &salen), 0);
    bt.fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(bt.fd, (struct sockaddr *)&sa, salen), 0);
    gr_delete_topics_request_init(&drq);
    drq.topic_names = &name;
    drq.topic_names_cnt = 1;
    drq.timeout_ms = 10000;
    drs = gr_brokertest_call(&bt, GR_API_DELETE_TOPICS, 5, &drq);
    ck_assert_int_eq(drs->responses_cnt, 1);
    ck_assert_int_eq(drs->responses[0].error_code, GR_KERR_NONE);
    close(bt.fd);
    bt.fd = lo_fd;

    rs = gr_brokertest_recv(&bt, GR_API_LIST_OFFSETS, 7, bt.corr - 1);
    ck_assert_int_eq(rs->topics_cnt, 1);
    ck_assert_int_eq(rs->topics[0].partitions_cnt, NP);
    for (int i = 0; i < NP; i++) {
        p = &rs->topics[0].partitions[i];
        if (p->error_code == GR_KERR_NONE) {
            assert_found(p, 7, 21, t0 + 210);
            found++;
        } else {
            ck_assert_int_eq(p->error_code, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
            ck_assert_int_eq(p->offset, -1);
            unknown++;
        }
    }
    ck_assert_int_eq(found + unknown, NP);
    p = list(&bt, 7, "gone", ts, NP);
    for (int i = 0; i < NP; i++)
        ck_assert_int_eq(p[i].error_code, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
    gr_buf_fini(&big);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Eleven partitions searched with two files held at a time (as a broker
 * short of descriptors): in rounds, every answer right, in v1 and v7. */
START_TEST(test_rounds)
{
    enum { NP = 11 };
    gr_brokertest_t bt;
    gr_buf_t b[2] = { GR_BUF_INIT, GR_BUF_INIT };
    int64_t t0 = gr_wall_ms() - 600000, ts[NP];
    lo_part_t *p;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "many", NP, NULL, NULL);
    ts_batch(&b[0], GR_CODEC_NONE, 100, t0);
    ts_batch(&b[1], GR_CODEC_GZIP, 4096, t0);
    for (int i = 0; i < NP; i++) {
        produce(&bt, "many", i, &b[i % 2]);
        ts[i] = i % 3 == 0 ? -3 : t0 + 10 * i - 1;
    }
    bt.b->max_held_files = 2; /* read by the broker's next request */
    for (int v = 0; v < 2; v++) {
        p = list(&bt, v ? 7 : 1, "many", ts, NP);
        for (int i = 0; i < NP; i++) {
            if (i % 3 == 0 && v == 0) {
                /* -3 is unknown before v7 */
                ck_assert_int_eq(p[i].error_code, GR_KERR_UNSUPPORTED_VERSION);
                continue;
            }
            if (i % 3 == 0)
                assert_found(&p[i], v ? 7 : 1, NREC - 1, t0 + 10 * (NREC - 1));
            else
                assert_found(&p[i], v ? 7 : 1, i, t0 + 10 * i);
        }
    }
    gr_buf_fini(&b[0]);
    gr_buf_fini(&b[1]);
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_api_list_offsets(void)
{
    Suite *s = suite_create("api/list_offsets");
    TCase *tc = tcase_create("search");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_search_large_batch);
    tcase_add_test(tc, test_topic_deleted_in_flight);
    tcase_add_test(tc, test_rounds);
    suite_add_tcase(s, tc);
    return s;
}
