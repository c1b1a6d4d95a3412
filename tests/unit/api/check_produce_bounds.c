/* Produce's bounds on what records take once inflated or converted
 * (src/api/produce.c, the file header): one request's records may inflate
 * to socket.request.max.bytes, a partition past it is MESSAGE_TOO_LARGE, a
 * converted or recompressed batch larger than max.message.bytes too
 * (Kafka's UnifiedLog check), and whatever Produce takes Fetch v0-v3 can
 * down-convert. Batches inflated on the worker keep the order a producer
 * sent them in, acks=0 among them, and are appended even when the client
 * has gone before they are back. */
#include "../unit.h"
#include "brokertest.h"

#include "core/compress.h"
#include "core/crc32c.h"
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
#include <time.h>
#include <unistd.h>

#define MIB (1 << 20)

typedef gr_produce_response_partition_produce_response_t part_rs_t;

/* A batch of one record whose value is vlen zero bytes, in codec, from
 * producer pid (-1: none) at sequence seq. */
static void
zero_batch(gr_buf_t *out, int codec, size_t vlen, int64_t pid, int32_t seq)
{
    gr_batch_builder_t bb;
    uint8_t *zeros = calloc(1, vlen ? vlen : 1);
    gr_bytes_t k = { NULL, -1 }, v = { zeros, (int32_t)vlen };
    ck_assert_ptr_nonnull(zeros);
    gr_batch_builder_init(&bb, codec, 0, pid, pid >= 0 ? 0 : -1, seq);
    gr_batch_builder_add(&bb, gr_wall_ms(), &k, &v, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, out), 0);
    gr_batch_builder_fini(&bb);
    free(zeros);
}

/* A magic-1 message (offset, size, crc, magic, attributes, timestamp, key
 * -1, value) appended to out. */
static void
legacy_message(gr_buf_t *out, int attrs, const uint8_t *value, size_t vlen)
{
    size_t start = out->len;
    uint8_t h[34];
    gr_put_u64(h, 0);
    gr_put_u32(h + 8, (uint32_t)(22 + vlen));
    h[16] = 1;
    h[17] = (uint8_t)attrs;
    gr_put_u64(h + 18, (uint64_t)gr_wall_ms());
    gr_put_u32(h + 26, (uint32_t)-1);
    gr_put_u32(h + 30, (uint32_t)vlen);
    gr_buf_append(out, h, sizeof h);
    gr_buf_append(out, value, vlen);
    ck_assert_int_eq(out->oom, 0);
    gr_put_u32(out->ptr + start + 12,
               gr_crc32(out->ptr + start + 16, out->len - start - 16));
}

/* A gzip wrapper whose inner set is one message of vlen zero bytes. */
static void
gzip_wrapper(gr_buf_t *out, size_t vlen)
{
    gr_buf_t inner = GR_BUF_INIT, gz = GR_BUF_INIT;
    uint8_t *zeros = calloc(1, vlen);
    ck_assert_ptr_nonnull(zeros);
    legacy_message(&inner, 0, zeros, vlen);
    ck_assert_int_eq(gr_compress(GR_COMPRESS_GZIP, inner.ptr, inner.len, &gz,
                                 GR_COMPRESS_LEVEL_DEFAULT, 0),
                     0);
    legacy_message(out, GR_CODEC_GZIP, gz.ptr, gz.len);
    gr_buf_fini(&inner);
    gr_buf_fini(&gz);
    free(zeros);
}

/* Produce (acks) of batches[i] to partitions 0..n-1 of topic. */
static void
produce_init(gr_produce_request_t *rq,
             gr_produce_request_topic_produce_data_t *td,
             gr_produce_request_partition_produce_data_t *pd, const char *topic,
             const gr_buf_t *batches, int n, int16_t acks)
{
    gr_produce_request_init(rq);
    gr_produce_request_topic_produce_data_init(td);
    for (int i = 0; i < n; i++) {
        gr_produce_request_partition_produce_data_init(&pd[i]);
        pd[i].index = i;
        pd[i].records.ptr = batches[i].ptr;
        pd[i].records.len = (int32_t)batches[i].len;
    }
    rq->acks = acks;
    rq->timeout_ms = 10000;
    td->name = gr_str_c(topic);
    td->partition_data = pd;
    td->partition_data_cnt = n;
    rq->topic_data = td;
    rq->topic_data_cnt = 1;
}

static part_rs_t *
produce_n(gr_brokertest_t *bt, int16_t ver, const char *topic,
          const gr_buf_t *batches, int n)
{
    gr_produce_request_t rq;
    gr_produce_request_topic_produce_data_t td;
    gr_produce_request_partition_produce_data_t pd[4];
    gr_produce_response_t *rs;
    produce_init(&rq, &td, pd, topic, batches, n, 1);
    rs = gr_brokertest_call(bt, GR_API_PRODUCE, ver, &rq);
    ck_assert_int_eq(rs->responses_cnt, 1);
    ck_assert_int_eq(rs->responses[0].partition_responses_cnt, n);
    return rs->responses[0].partition_responses;
}

static part_rs_t *
produce1(gr_brokertest_t *bt, int16_t ver, const char *topic,
         const gr_buf_t *batch)
{
    return produce_n(bt, ver, topic, batch, 1);
}

/* Kafka's answer for a batch too large to append (RecordTooLargeException):
 * no offsets, no log start offset, no message. */
static void
assert_too_large(const part_rs_t *p)
{
    ck_assert_int_eq(p->error_code, GR_KERR_MESSAGE_TOO_LARGE);
    ck_assert_int_eq(p->base_offset, -1);
    ck_assert_int_eq(p->log_start_offset, -1);
    ck_assert(gr_str_is_null(&p->error_message));
}

/* --- requests written without waiting, answers read apart */

/* The next Produce answer (v ver), of correlation id corr. */
static part_rs_t *
recv_produce(gr_brokertest_t *t, int16_t ver, int32_t corr)
{
    gr_produce_response_t *rs;
    rs = gr_brokertest_recv(t, GR_API_PRODUCE, ver, corr);
    return rs->responses[0].partition_responses;
}

static int64_t
high_watermark(gr_brokertest_t *bt, const char *topic)
{
    gr_fetch_request_t rq;
    gr_fetch_request_fetch_topic_t t;
    gr_fetch_request_fetch_partition_t fp;
    gr_fetch_response_t *rs;

    gr_fetch_request_init(&rq);
    gr_fetch_request_fetch_topic_init(&t);
    gr_fetch_request_fetch_partition_init(&fp);
    fp.partition = 0;
    fp.fetch_offset = 0;
    fp.partition_max_bytes = 1024;
    t.topic = gr_str_c(topic);
    t.partitions = &fp;
    t.partitions_cnt = 1;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rq.max_bytes = 1024;
    rs = gr_brokertest_call(bt, GR_API_FETCH, 4, &rq);
    ck_assert_int_eq(rs->responses[0].partitions[0].error_code, GR_KERR_NONE);
    return rs->responses[0].partitions[0].high_watermark;
}

static const char *const small_bound[] = { "socket.request.max.bytes=4194304",
                                           NULL };

/* A v2 batch whose records inflate past the request's bound is too large;
 * just under, it is taken; two under it each but over it together: the
 * second partition is too large. */
START_TEST(test_v2_inflate_bound)
{
    gr_brokertest_t bt;
    gr_buf_t b[2] = { GR_BUF_INIT, GR_BUF_INIT };
    part_rs_t *p;

    gr_brokertest_start(&bt, small_bound);
    gr_brokertest_create_topic(&bt, "z", 2, NULL, NULL);
    /* one record: its length, attributes, deltas, key and value lengths
     * and header count take 13 bytes besides the value: exactly 4 MiB */
    zero_batch(&b[0], GR_CODEC_ZSTD, 4 * MIB - 13, -1, -1);
    p = produce1(&bt, 9, "z", &b[0]);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 0);
    b[0].len = 0;
    zero_batch(&b[0], GR_CODEC_ZSTD, 4 * MIB - 12, -1, -1);
    assert_too_large(produce1(&bt, 9, "z", &b[0]));
    b[0].len = 0;
    zero_batch(&b[0], GR_CODEC_LZ4, 3 * MIB, -1, -1);
    zero_batch(&b[1], GR_CODEC_GZIP, 3 * MIB, -1, -1);
    p = produce_n(&bt, 9, "z", b, 2);
    ck_assert_int_eq(p[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(p[0].base_offset, 1);
    assert_too_large(&p[1]);
    /* a small compressed batch, prepared on the loop */
    b[0].len = 0;
    zero_batch(&b[0], GR_CODEC_LZ4, 1000, -1, -1);
    p = produce1(&bt, 9, "z", &b[0]);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 2);
    gr_buf_fini(&b[0]);
    gr_buf_fini(&b[1]);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A v0-v2 message set whose converted records pass the bound is too large
 * (each wrapper under it); a converted batch larger than max.message.bytes
 * too, as Kafka's UnifiedLog answers it. */
START_TEST(test_legacy_bounds)
{
    gr_brokertest_t bt;
    gr_buf_t set = GR_BUF_INIT;
    static uint8_t value[600 * 1000];
    part_rs_t *p;

    gr_brokertest_start(&bt, small_bound);
    gr_brokertest_create_topic(&bt, "l", 1, NULL, NULL);
    gzip_wrapper(&set, 3 * MIB);
    gzip_wrapper(&set, 3 * MIB);
    assert_too_large(produce1(&bt, 2, "l", &set));
    set.len = 0;
    gzip_wrapper(&set, 3 * MIB);
    p = produce1(&bt, 2, "l", &set);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 0);
    /* two messages of 600 kB, each within max.message.bytes (1048588),
     * make one batch of 1.2 MB */
    set.len = 0;
    legacy_message(&set, 0, value, sizeof value);
    legacy_message(&set, 0, value, sizeof value);
    assert_too_large(produce1(&bt, 2, "l", &set));
    set.len = 0;
    legacy_message(&set, 0, value, sizeof value);
    p = produce1(&bt, 2, "l", &set);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 1);
    gr_buf_fini(&set);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Recompressed for the topic's compression.type, a batch larger than
 * max.message.bytes is too large (Kafka's UnifiedLog check); one within it
 * is taken. */
START_TEST(test_recompressed_bound)
{
    gr_brokertest_t bt;
    gr_buf_t b = GR_BUF_INIT;
    part_rs_t *p;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "plain", 1, "compression.type",
                               "uncompressed");
    gr_brokertest_create_topic(&bt, "gz", 1, "compression.type", "gzip");
    zero_batch(&b, GR_CODEC_ZSTD, 2 * MIB, -1, -1);
    assert_too_large(produce1(&bt, 9, "plain", &b));
    p = produce1(&bt, 9, "gz", &b);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    b.len = 0;
    zero_batch(&b, GR_CODEC_ZSTD, 100 * 1000, -1, -1);
    p = produce1(&bt, 9, "plain", &b);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 0);
    gr_buf_fini(&b);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A batch stored just under the bound, above the 64 MiB down-conversion
 * used to inflate to, is read back by Fetch v3 (magic 1). */
START_TEST(test_down_convert_agrees)
{
    static const char *const ov[] = { "socket.request.max.bytes=73400320",
                                      NULL };
    gr_brokertest_t bt;
    gr_buf_t b = GR_BUF_INIT;
    gr_fetch_request_t rq;
    gr_fetch_request_fetch_topic_t t;
    gr_fetch_request_fetch_partition_t fp;
    gr_fetch_response_t *rs;
    size_t vlen = 66 * MIB;

    gr_brokertest_start(&bt, ov);
    gr_brokertest_create_topic(&bt, "dc", 1, NULL, NULL);
    zero_batch(&b, GR_CODEC_ZSTD, vlen, -1, -1);
    ck_assert_int_eq(produce1(&bt, 7, "dc", &b)->error_code, GR_KERR_NONE);
    gr_fetch_request_init(&rq);
    gr_fetch_request_fetch_topic_init(&t);
    gr_fetch_request_fetch_partition_init(&fp);
    fp.partition = 0;
    fp.fetch_offset = 0;
    fp.partition_max_bytes = 128 * MIB;
    t.topic = gr_str_c("dc");
    t.partitions = &fp;
    t.partitions_cnt = 1;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rq.max_bytes = 128 * MIB;
    rs = gr_brokertest_call(&bt, GR_API_FETCH, 3, &rq);
    ck_assert_int_eq(rs->responses[0].partitions[0].error_code, GR_KERR_NONE);
    /* one magic-1 message: offset, size, crc, magic, attributes,
     * timestamp, key and value lengths, the value */
    ck_assert_int_eq(rs->responses[0].partitions[0].records.len,
                     (int32_t)(34 + vlen));
    gr_buf_fini(&b);
    gr_brokertest_stop(&bt);
}
END_TEST

/* One idempotent producer's requests sent back to back: batches inflated
 * on the worker and small ones prepared on the loop are appended in the
 * order sent (sequences 0-3), acks=0 among them. */
START_TEST(test_order_kept)
{
    gr_brokertest_t bt;
    gr_init_producer_id_request_t ip;
    gr_init_producer_id_response_t *ipr;
    gr_produce_request_t rq;
    gr_produce_request_topic_produce_data_t td;
    gr_produce_request_partition_produce_data_t pd;
    gr_buf_t b[4] = { GR_BUF_INIT, GR_BUF_INIT, GR_BUF_INIT, GR_BUF_INIT };
    int32_t corr[4];
    int64_t pid;
    part_rs_t *p;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "o", 1, NULL, NULL);
    gr_init_producer_id_request_init(&ip);
    ip.transactional_id = GR_STR_NULL;
    ip.transaction_timeout_ms = 60000;
    ipr = gr_brokertest_call(&bt, GR_API_INIT_PRODUCER_ID, 1, &ip);
    ck_assert_int_eq(ipr->error_code, GR_KERR_NONE);
    pid = ipr->producer_id;
    zero_batch(&b[0], GR_CODEC_GZIP, 8 * MIB, pid, 0); /* the worker's */
    zero_batch(&b[1], GR_CODEC_NONE, 100, pid, 1);     /* the loop's */
    zero_batch(&b[2], GR_CODEC_ZSTD, 8 * MIB, pid, 2); /* worker, acks=0 */
    zero_batch(&b[3], GR_CODEC_LZ4, 1000, pid, 3);     /* the loop's */
    for (int i = 0; i < 4; i++) {
        produce_init(&rq, &td, &pd, "o", &b[i], 1, i == 2 ? 0 : -1);
        gr_brokertest_send(&bt, GR_API_PRODUCE, 9, &rq);
        corr[i] = bt.corr;
    }
    for (int i = 0; i < 4; i++) {
        if (i == 2)
            continue; /* acks=0: no answer */
        p = recv_produce(&bt, 9, corr[i]);
        ck_assert_int_eq(p->error_code, GR_KERR_NONE);
        ck_assert_int_eq(p->base_offset, i);
    }
    for (int i = 0; i < 4; i++)
        gr_buf_fini(&b[i]);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A client that goes away while its batch is on the worker (an acks=0
 * producer closing at once): the batch is appended all the same, as
 * Kafka appends what it has read. */
START_TEST(test_client_gone)
{
    gr_brokertest_t bt;
    gr_produce_request_t rq;
    gr_produce_request_topic_produce_data_t td;
    gr_produce_request_partition_produce_data_t pd;
    gr_buf_t b = GR_BUF_INIT;
    struct sockaddr_in sa;
    socklen_t salen = sizeof sa;
    int64_t hw = 0;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "gone", 1, NULL, NULL);
    zero_batch(&b, GR_CODEC_GZIP, 32 * MIB, -1, -1);
    produce_init(&rq, &td, &pd, "gone", &b, 1, (int16_t)_i);
    ck_assert_int_eq(getpeername(bt.fd, (struct sockaddr *)&sa, &salen), 0);
    gr_brokertest_send(&bt, GR_API_PRODUCE, 9, &rq);
    close(bt.fd);
    bt.fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(bt.fd, (struct sockaddr *)&sa, salen), 0);
    for (int i = 0; i < 200 && hw == 0; i++) {
        struct timespec ts = { 0, 20000000 };
        hw = high_watermark(&bt, "gone");
        if (hw == 0)
            nanosleep(&ts, NULL);
    }
    ck_assert_int_eq(hw, 1);
    gr_buf_fini(&b);
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_api_produce_bounds(void)
{
    Suite *s = suite_create("api/produce_bounds");
    TCase *tc = tcase_create("bounds");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_v2_inflate_bound);
    tcase_add_test(tc, test_legacy_bounds);
    tcase_add_test(tc, test_recompressed_bound);
    tcase_add_test(tc, test_down_convert_agrees);
    tcase_add_test(tc, test_order_kept);
    tcase_add_loop_test(tc, test_client_gone, 0, 2); /* acks 0 and 1 */
    suite_add_tcase(s, tc);
    return s;
}
