/* Produce through the dispatcher: the records a partition rejects one by
 * one are listed from v8 (KIP-467), v13 names topics by id, and v12+
 * transactional data joins its transaction (KIP-890 part 2). And Fetch of
 * batches larger than a partition's share. */
#include "../unit.h"
#include "brokertest.h"

#include "core/crc32c.h"
#include "core/time.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"
#include "proto/records.h"
#include "proto/wire.h"
#include "txn/txn.h"

#include <string.h>

/* One batch of n records, every tenth (from index 3) without a key. */
static void
batch(gr_buf_t *out, int n)
{
    gr_batch_builder_t bb;
    gr_bytes_t k = { (const uint8_t *)"k", 1 }, nk = { NULL, -1 },
               v = { (const uint8_t *)"value", 5 };
    gr_batch_builder_init(&bb, GR_CODEC_NONE, 0, -1, -1, -1);
    for (int i = 0; i < n; i++)
        gr_batch_builder_add(&bb, gr_wall_ms(), i % 10 == 3 ? &nk : &k,
                             &v, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, out), 0);
    gr_batch_builder_fini(&bb);
}

static gr_produce_response_partition_produce_response_t *
produce_to(gr_brokertest_t *bt, int16_t v, const char *topic, gr_uuid_t id,
           int32_t partition, const gr_buf_t *recs)
{
    gr_produce_request_t rq;
    gr_produce_request_topic_produce_data_t td;
    gr_produce_request_partition_produce_data_t pd;
    gr_produce_response_t *rs;

    gr_produce_request_init(&rq);
    gr_produce_request_topic_produce_data_init(&td);
    gr_produce_request_partition_produce_data_init(&pd);
    rq.acks = 1;
    rq.timeout_ms = 5000;
    pd.index = partition;
    pd.records.ptr = recs->ptr;
    pd.records.len = (int32_t)recs->len;
    td.name = gr_str_c(topic);
    td.topic_id = id;
    td.partition_data = &pd;
    td.partition_data_cnt = 1;
    rq.topic_data = &td;
    rq.topic_data_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_PRODUCE, v, &rq);
    ck_assert_int_eq(rs->responses_cnt, 1);
    if (v >= 13)
        ck_assert(gr_uuid_eq(&rs->responses[0].topic_id, &id));
    else
        ck_assert(gr_str_eq_cstr(&rs->responses[0].name, topic));
    ck_assert_int_eq(rs->responses[0].partition_responses_cnt, 1);
    return &rs->responses[0].partition_responses[0];
}

static gr_produce_response_partition_produce_response_t *
produce(gr_brokertest_t *bt, int16_t v, const char *topic, gr_uuid_t id,
        const gr_buf_t *recs)
{
    return produce_to(bt, v, topic, id, 0, recs);
}

START_TEST(test_record_errors_by_version)
{
    gr_brokertest_t bt;
    gr_produce_response_partition_produce_response_t *p;
    gr_buf_t recs = GR_BUF_INIT;
    gr_uuid_t id;
    int16_t v = (int16_t)_i;

    gr_brokertest_start(&bt, NULL);
    id = gr_brokertest_create_topic(&bt, "compacted", 1, "cleanup.policy",
                                    "compact");
    batch(&recs, 100);
    p = produce(&bt, v, "compacted", id, &recs);
    ck_assert_int_eq(p->error_code, GR_KERR_INVALID_RECORD);
    ck_assert_int_eq(p->base_offset, -1);
    if (v >= 8) {
        ck_assert_int_eq(p->record_errors_cnt, 10);
        for (int i = 0; i < 10; i++) {
            ck_assert_int_eq(p->record_errors[i].batch_index, 10 * i + 3);
            ck_assert(gr_str_eq_cstr(
                &p->record_errors[i].batch_index_error_message,
                "Compacted topic cannot accept message without key in topic "
                "partition compacted-0"));
        }
        ck_assert_int_gt(p->error_message.len, 0);
        ck_assert(memcmp(p->error_message.ptr,
                         "One or more records have been rejected due to 10 "
                         "record errors in total",
                         66) == 0);
    }
    /* nothing of the batch was appended: the next one gets offset 0 */
    {
        gr_batch_builder_t bb;
        gr_bytes_t k = { (const uint8_t *)"k", 1 },
                   val = { (const uint8_t *)"v", 1 };
        gr_buf_reset(&recs);
        gr_batch_builder_init(&bb, GR_CODEC_NONE, 0, -1, -1, -1);
        gr_batch_builder_add(&bb, gr_wall_ms(), &k, &val, 0, NULL,
                             0);
        ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &recs), 0);
        gr_batch_builder_fini(&bb);
    }
    p = produce(&bt, v, "compacted", id, &recs);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 0);
    gr_buf_fini(&recs);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_topic_ids_v13)
{
    gr_brokertest_t bt;
    gr_produce_response_partition_produce_response_t *p;
    gr_buf_t recs = GR_BUF_INIT;
    gr_uuid_t id, other = { { 9, 9, 9 } };

    gr_brokertest_start(&bt, NULL);
    id =
        gr_brokertest_create_topic(&bt, "plain", 1, "cleanup.policy", "delete");
    batch(&recs, 5); /* keys are optional here */
    p = produce(&bt, 13, "", id, &recs);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 0);
    p = produce(&bt, 12, "plain", id, &recs);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 5);
    p = produce(&bt, 13, "", other, &recs);
    ck_assert_int_eq(p->error_code, GR_KERR_UNKNOWN_TOPIC_ID);
    gr_buf_fini(&recs);
    gr_brokertest_stop(&bt);
}
END_TEST


/* Fetch v3+ with a batch larger than a partition's share: the first
 * partition with data gets its whole batch, the others nothing rather
 * than a cut batch of no whole record (Kafka's readFromLog replaces an
 * incomplete first entry with empty records). */
START_TEST(test_fetch_no_cut_first_batch)
{
    gr_brokertest_t bt;
    gr_buf_t recs = GR_BUF_INIT;
    gr_batch_builder_t bb;
    static uint8_t big[10000];
    gr_bytes_t k = { (const uint8_t *)"k", 1 }, v = { big, sizeof big };
    gr_fetch_request_t rq;
    gr_fetch_request_fetch_topic_t t;
    gr_fetch_request_fetch_partition_t fp[2];
    gr_fetch_response_t *rs;
    int16_t ver = (int16_t)_i;
    size_t batch_size;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "big", 2, "cleanup.policy", "delete");
    gr_batch_builder_init(&bb, GR_CODEC_NONE, 0, -1, -1, -1);
    gr_batch_builder_add(&bb, gr_wall_ms(), &k, &v, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &recs), 0);
    gr_batch_builder_fini(&bb);
    batch_size = recs.len;
    ck_assert_int_eq(produce_to(&bt, 7, "big", (gr_uuid_t){ { 0 } }, 0, &recs)
                         ->error_code,
                     GR_KERR_NONE);
    ck_assert_int_eq(produce_to(&bt, 7, "big", (gr_uuid_t){ { 0 } }, 1, &recs)
                         ->error_code,
                     GR_KERR_NONE);

    gr_fetch_request_init(&rq);
    gr_fetch_request_fetch_topic_init(&t);
    for (int i = 0; i < 2; i++) {
        gr_fetch_request_fetch_partition_init(&fp[i]);
        fp[i].partition = i;
        fp[i].fetch_offset = 0;
        fp[i].partition_max_bytes = 4096;
    }
    t.topic = gr_str_c("big");
    t.partitions = fp;
    t.partitions_cnt = 2;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rq.max_wait_ms = 0;
    rq.min_bytes = 1;
    rq.max_bytes = 1 << 20;
    rs = gr_brokertest_call(&bt, GR_API_FETCH, ver, &rq);
    ck_assert_int_eq(rs->responses_cnt, 1);
    ck_assert_int_eq(rs->responses[0].partitions_cnt, 2);
    ck_assert_int_eq(rs->responses[0].partitions[0].records.len,
                     (int32_t)batch_size);
    ck_assert_int_eq(rs->responses[0].partitions[1].records.len, 0);
    ck_assert_int_eq(rs->responses[0].partitions[1].error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->responses[0].partitions[1].high_watermark, 1);
    gr_buf_fini(&recs);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A partition the fetch cannot be answered for has no offsets (-1), as
 * Kafka's FetchResponse.partitionResponse: an offset past the end and a
 * partition that does not exist, beside one that is answered. */
START_TEST(test_fetch_error_offsets)
{
    gr_brokertest_t bt;
    gr_buf_t recs = GR_BUF_INIT;
    gr_fetch_request_t rq;
    gr_fetch_request_fetch_topic_t t;
    gr_fetch_request_fetch_partition_t fp[3];
    gr_fetch_response_t *rs;
    int16_t ver = (int16_t)_i;
    const int64_t offsets[3] = { 0, 5, 0 };
    const int32_t parts[3] = { 0, 1, 7 };
    const gr_kerr_t want[3] = { GR_KERR_NONE, GR_KERR_OFFSET_OUT_OF_RANGE,
                                GR_KERR_UNKNOWN_TOPIC_OR_PARTITION };
    /* aborted transactions (read_committed): a list for the partition
     * read, none (null) for the one whose read failed, Kafka's empty
     * default for the one refused before the read */
    const int32_t aborted[3] = { 0, -1, 0 };

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "fe", 2, "cleanup.policy", "delete");
    batch(&recs, 2);
    ck_assert_int_eq(produce(&bt, 7, "fe", (gr_uuid_t){ { 0 } }, &recs)
                         ->error_code,
                     GR_KERR_NONE);
    gr_fetch_request_init(&rq);
    gr_fetch_request_fetch_topic_init(&t);
    for (int i = 0; i < 3; i++) {
        gr_fetch_request_fetch_partition_init(&fp[i]);
        fp[i].partition = parts[i];
        fp[i].fetch_offset = offsets[i];
        fp[i].partition_max_bytes = 1 << 16;
    }
    t.topic = gr_str_c("fe");
    t.partitions = fp;
    t.partitions_cnt = 3;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rq.max_wait_ms = 0;
    rq.min_bytes = 1;
    rq.max_bytes = 1 << 20;
    rq.isolation_level = 1;
    rs = gr_brokertest_call(&bt, GR_API_FETCH, ver, &rq);
    ck_assert_int_eq(rs->responses_cnt, 1);
    ck_assert_int_eq(rs->responses[0].partitions_cnt, 3);
    for (int i = 0; i < 3; i++) {
        const gr_fetch_response_partition_data_t *p =
            &rs->responses[0].partitions[i];
        ck_assert_int_eq(p->error_code, want[i]);
        ck_assert_int_eq(p->high_watermark, i == 0 ? 2 : -1);
        ck_assert_int_eq(p->last_stable_offset, i == 0 ? 2 : -1);
        if (ver >= 5)
            ck_assert_int_eq(p->log_start_offset, i == 0 ? 0 : -1);
        ck_assert_int_eq(p->aborted_transactions_cnt, aborted[i]);
        if (i > 0)
            ck_assert_int_eq(p->records.len, 0);
        else
            ck_assert_int_eq(p->records.len, (int32_t)recs.len);
    }
    gr_buf_fini(&recs);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A fetch from a broker id (replica_id, v15+ in ReplicaState) that is no
 * follower of the partition is NOT_LEADER_OR_FOLLOWER, as Kafka's
 * Partition.followerReplicaOrThrow, with no aborted-transaction list; a
 * partition named twice is answered once, with the later fields (Kafka's
 * FetchRequest.fetchData is a map). */
START_TEST(test_fetch_replica_and_duplicates)
{
    gr_brokertest_t bt;
    gr_buf_t recs = GR_BUF_INIT;
    gr_fetch_request_t rq;
    gr_fetch_request_fetch_topic_t t;
    gr_fetch_request_fetch_partition_t fp[2];
    gr_fetch_response_t *rs;
    const gr_fetch_response_partition_data_t *p;
    int16_t ver = (int16_t)_i;
    gr_uuid_t id;

    gr_brokertest_start(&bt, NULL);
    id = gr_brokertest_create_topic(&bt, "fr", 1, "cleanup.policy", "delete");
    batch(&recs, 2);
    ck_assert_int_eq(produce(&bt, 7, "fr", id, &recs)->error_code,
                     GR_KERR_NONE);
    gr_fetch_request_init(&rq);
    gr_fetch_request_fetch_topic_init(&t);
    for (int i = 0; i < 2; i++) {
        gr_fetch_request_fetch_partition_init(&fp[i]);
        fp[i].partition_max_bytes = 1 << 16;
    }
    t.topic = gr_str_c("fr");
    t.topic_id = id;
    t.partitions = fp;
    t.partitions_cnt = 1;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rq.max_bytes = 1 << 20;
    rq.min_bytes = 1;
    if (ver >= 15)
        rq.replica_state.replica_id = 1;
    else
        rq.replica_id = 1;
    rs = gr_brokertest_call(&bt, GR_API_FETCH, ver, &rq);
    p = &rs->responses[0].partitions[0];
    ck_assert_int_eq(p->error_code, GR_KERR_NOT_LEADER_OR_FOLLOWER);
    ck_assert_int_eq(p->high_watermark, -1);
    ck_assert_int_eq(p->aborted_transactions_cnt, -1);
    ck_assert_int_eq(p->records.len, 0);

    rq.replica_id = -1;
    rq.replica_state.replica_id = -1;
    fp[1].fetch_offset = 5; /* past the end: the later one counts */
    t.partitions_cnt = 2;
    rs = gr_brokertest_call(&bt, GR_API_FETCH, ver, &rq);
    ck_assert_int_eq(rs->responses_cnt, 1);
    ck_assert_int_eq(rs->responses[0].partitions_cnt, 1);
    ck_assert_int_eq(rs->responses[0].partitions[0].error_code,
                     GR_KERR_OFFSET_OUT_OF_RANGE);
    gr_buf_fini(&recs);
    gr_brokertest_stop(&bt);
}
END_TEST

/* --- Kafka's stages of a Produce (produce.c's header) */

/* One batch of n records with timestamps ts, ts + 1, ... */
static void
batch_of(gr_buf_t *out, int16_t attrs, gr_pid_t pid, int32_t seq, int n,
         int64_t ts)
{
    gr_batch_builder_t bb;
    gr_bytes_t k = { (const uint8_t *)"k", 1 }, v = { (const uint8_t *)"v", 1 };
    gr_buf_reset(out);
    gr_batch_builder_init(&bb, GR_CODEC_NONE, attrs, pid.id, pid.epoch, seq);
    for (int i = 0; i < n; i++)
        gr_batch_builder_add(&bb, ts + i, &k, &v, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, out), 0);
    gr_batch_builder_fini(&bb);
}

/* Produce of recs[i] to partition i of topic (tid: the transactional id
 * or NULL; acks -1). */
static gr_produce_response_t *
produce_parts(gr_brokertest_t *bt, int16_t v, const char *tid,
              const char *topic, gr_buf_t *const *recs, int n)
{
    gr_produce_request_t rq;
    gr_produce_request_topic_produce_data_t td;
    gr_produce_request_partition_produce_data_t pd[4];
    gr_produce_response_t *rs;

    ck_assert_int_le(n, 4);
    gr_produce_request_init(&rq);
    gr_produce_request_topic_produce_data_init(&td);
    rq.transactional_id = tid ? gr_str_c(tid) : GR_STR_NULL;
    rq.acks = -1;
    rq.timeout_ms = 5000;
    for (int i = 0; i < n; i++) {
        gr_produce_request_partition_produce_data_init(&pd[i]);
        pd[i].index = i;
        pd[i].records.ptr = recs[i]->ptr;
        pd[i].records.len = (int32_t)recs[i]->len;
    }
    td.name = gr_str_c(topic);
    td.partition_data = pd;
    td.partition_data_cnt = n;
    rq.topic_data = &td;
    rq.topic_data_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_PRODUCE, v, &rq);
    ck_assert_int_eq(rs->responses_cnt, 1);
    ck_assert_int_eq(rs->responses[0].partition_responses_cnt, n);
    return rs;
}

static gr_produce_response_partition_produce_response_t *
produce_one(gr_brokertest_t *bt, int16_t v, const char *tid, const char *topic,
            gr_buf_t *recs)
{
    return &produce_parts(bt, v, tid, topic, &recs, 1)
                ->responses[0]
                .partition_responses[0];
}

static void
assert_refused(const gr_produce_response_partition_produce_response_t *p,
               gr_kerr_t err, int64_t log_start, const char *msg)
{
    ck_assert_int_eq(p->error_code, err);
    ck_assert_int_eq(p->base_offset, -1);
    ck_assert_int_eq(p->log_append_time_ms, -1);
    ck_assert_int_eq(p->log_start_offset, log_start);
    if (msg == NULL)
        ck_assert_int_eq(p->error_message.len, -1);
    else
        ck_assert(gr_str_eq_cstr(&p->error_message, msg));
}

static void
fix_crc(gr_buf_t *b)
{
    gr_put_u32(b->ptr + GR_BATCH_OFF_CRC,
               gr_crc32c(b->ptr + GR_BATCH_OFF_ATTRIBUTES,
                         b->len - GR_BATCH_OFF_ATTRIBUTES));
}

/* What Kafka 4.4 answered in tests/diff's produce_errors, txn_errors and
 * write_txn_markers cases, request stage by stage: the log start offset
 * only for errors of the append (not for CORRUPT_MESSAGE), no message
 * but for record errors. */
START_TEST(test_produce_stages)
{
    gr_brokertest_t bt;
    gr_buf_t a = GR_BUF_INIT, t = GR_BUF_INIT;
    gr_buf_t *two[2] = { &a, &t };
    gr_produce_response_t *rs;
    gr_produce_response_partition_produce_response_t *p;
    const gr_pid_t none = GR_PID_NONE, txn = { 5, 0 };
    int64_t now = gr_wall_ms();

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "ps", 2, "cleanup.policy", "delete");

    /* a transactional batch without a transactional id fails every
     * partition (KafkaApis: TRANSACTIONAL_ID_AUTHORIZATION_FAILED) */
    batch_of(&a, 0, none, -1, 1, now);
    batch_of(&t, GR_ATTR_TRANSACTIONAL, txn, 0, 1, now);
    rs = produce_parts(&bt, 9, NULL, "ps", two, 2);
    for (int i = 0; i < 2; i++)
        assert_refused(&rs->responses[0].partition_responses[i],
                       GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED, -1, NULL);
    /* a first batch with a size field below 14 fails it as a whole too */
    gr_put_u32(t.ptr + GR_BATCH_OFF_LENGTH, 5);
    two[0] = &t;
    two[1] = &a;
    rs = produce_parts(&bt, 9, NULL, "ps", two, 2);
    for (int i = 0; i < 2; i++)
        assert_refused(&rs->responses[0].partition_responses[i],
                       GR_KERR_CORRUPT_MESSAGE, -1,
                       "Record size 5 is less than the minimum record "
                       "overhead (14)");

    /* bytes after the batch that make no other are left out */
    batch_of(&a, 0, none, -1, 3, now);
    gr_buf_append(&a, "\x00\x01", 2);
    p = produce_one(&bt, 9, NULL, "ps", &a);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 0);
    a.len -= 2;
    ck_assert_int_eq(produce_one(&bt, 9, NULL, "ps", &a)->base_offset, 3);

    /* a cut batch is no batch (validateRecords: INVALID_RECORD) */
    a.len -= 3;
    assert_refused(produce_one(&bt, 9, NULL, "ps", &a), GR_KERR_INVALID_RECORD,
                   -1, NULL);
    /* a client's base offset must be 0: an error of the append */
    batch_of(&a, 0, none, -1, 3, now);
    gr_batch_set_base_offset(a.ptr, 5);
    assert_refused(produce_one(&bt, 9, NULL, "ps", &a), GR_KERR_INVALID_RECORD,
                   0, NULL);
    /* CRC: CORRUPT_MESSAGE, which Kafka passes on without a log start */
    batch_of(&a, 0, none, -1, 3, now);
    a.ptr[a.len - 1] ^= 0xff;
    assert_refused(produce_one(&bt, 9, NULL, "ps", &a), GR_KERR_CORRUPT_MESSAGE,
                   -1, NULL);
    /* a codec that does not exist: Kafka's IllegalArgumentException, in
     * the append from v7, failing the request as a whole below */
    batch_of(&a, 0, none, -1, 3, now);
    gr_put_u16(a.ptr + GR_BATCH_OFF_ATTRIBUTES, 5);
    fix_crc(&a);
    assert_refused(produce_one(&bt, 9, NULL, "ps", &a),
                   GR_KERR_UNKNOWN_SERVER_ERROR, 0, NULL);
    p = produce_one(&bt, 6, NULL, "ps", &a);
    ck_assert_int_eq(p->error_code, GR_KERR_UNKNOWN_SERVER_ERROR);
    ck_assert_int_eq(p->log_start_offset, -1);
    /* a control batch: an error of the append, no message */
    batch_of(&a, GR_ATTR_CONTROL, none, -1, 1, now);
    assert_refused(produce_one(&bt, 9, NULL, "ps", &a), GR_KERR_INVALID_RECORD,
                   0, NULL);
    gr_buf_fini(&a);
    gr_buf_fini(&t);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A duplicate of an idempotent producer's batch is answered with the
 * original's offsets and its max timestamp as log_append_time_ms
 * (Kafka's duplicate BatchMetadata), not appended again. */
START_TEST(test_duplicate_answer)
{
    gr_brokertest_t bt;
    gr_init_producer_id_request_t ip;
    gr_init_producer_id_response_t *ipr;
    gr_buf_t a = GR_BUF_INIT;
    gr_produce_response_partition_produce_response_t *p;
    gr_pid_t pid;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "pd", 1, "cleanup.policy", "delete");
    gr_init_producer_id_request_init(&ip);
    ip.transactional_id = GR_STR_NULL;
    ip.transaction_timeout_ms = 60000;
    ipr = gr_brokertest_call(&bt, GR_API_INIT_PRODUCER_ID, 4, &ip);
    ck_assert_int_eq(ipr->error_code, GR_KERR_NONE);
    pid = (gr_pid_t){ ipr->producer_id, ipr->producer_epoch };
    batch_of(&a, 0, pid, 0, 3, 1700000000000LL);
    p = produce_one(&bt, 9, NULL, "pd", &a);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->log_append_time_ms, -1);
    p = produce_one(&bt, 9, NULL, "pd", &a);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 0);
    ck_assert_int_eq(p->log_append_time_ms, 1700000000002LL);
    ck_assert_int_eq(p->log_start_offset, 0);
    /* out of sequence: an error of the append, no message */
    batch_of(&a, 0, pid, 9, 1, 1700000000000LL);
    assert_refused(produce_one(&bt, 9, NULL, "pd", &a),
                   GR_KERR_OUT_OF_ORDER_SEQUENCE_NUMBER, 0, NULL);
    gr_buf_fini(&a);
    gr_brokertest_stop(&bt);
}
END_TEST

static void
add_partition(gr_brokertest_t *bt, const char *tid, gr_pid_t pid,
              const char *topic, int32_t partition)
{
    gr_add_partitions_to_txn_request_t rq;
    gr_add_partitions_to_txn_request_add_partitions_to_txn_topic_t t;
    gr_add_partitions_to_txn_response_t *rs;
    gr_add_partitions_to_txn_request_init(&rq);
    gr_add_partitions_to_txn_request_add_partitions_to_txn_topic_init(&t);
    t.name = gr_str_c(topic);
    t.partitions = &partition;
    t.partitions_cnt = 1;
    rq.v3_and_below_transactional_id = gr_str_c(tid);
    rq.v3_and_below_producer_id = pid.id;
    rq.v3_and_below_producer_epoch = pid.epoch;
    rq.v3_and_below_topics = &t;
    rq.v3_and_below_topics_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_ADD_PARTITIONS_TO_TXN, 3, &rq);
    ck_assert_int_eq(rs->results_by_topic_v3_and_below[0]
                         .results_by_partition[0]
                         .partition_error_code,
                     GR_KERR_NONE);
}

static gr_pid_t
init_txn_pid(gr_brokertest_t *bt, const char *tid)
{
    gr_init_producer_id_request_t ip;
    gr_init_producer_id_response_t *ipr;
    gr_brokertest_coordinator(bt, tid, 1);
    gr_init_producer_id_request_init(&ip);
    ip.transactional_id = gr_str_c(tid);
    ip.transaction_timeout_ms = 60000;
    ipr = gr_brokertest_call(bt, GR_API_INIT_PRODUCER_ID, 4, &ip);
    ck_assert_int_eq(ipr->error_code, GR_KERR_NONE);
    return (gr_pid_t){ ipr->producer_id, ipr->producer_epoch };
}

/* Transaction verification below v12 (KIP-890 part 1): a transactional
 * batch to a partition its transaction does not have is refused as
 * Kafka's ReplicaManager words the coordinator's answer; once added,
 * and while the transaction is open there, the batches go in. */
START_TEST(test_txn_verification)
{
    gr_brokertest_t bt;
    gr_buf_t a = GR_BUF_INIT, b = GR_BUF_INIT;
    gr_buf_t *two[2] = { &a, &b };
    gr_produce_response_t *rs;
    gr_produce_response_partition_produce_response_t *p;
    gr_pid_t pid;
    int64_t now = gr_wall_ms();

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "tv", 2, "cleanup.policy", "delete");
    pid = init_txn_pid(&bt, "tvx");
    batch_of(&a, GR_ATTR_TRANSACTIONAL, pid, 0, 1, now);
    assert_refused(produce_one(&bt, 9, "tvx", "tv", &a),
                   GR_KERR_INVALID_TXN_STATE, -1,
                   "Partition was not added to the transaction");
    assert_refused(produce_one(&bt, 10, "tvx", "tv", &a),
                   GR_KERR_INVALID_TXN_STATE, -1,
                   "Partition was not added to the transaction");
    /* v11 knows TRANSACTION_ABORTABLE */
    assert_refused(produce_one(&bt, 11, "tvx", "tv", &a),
                   GR_KERR_TRANSACTION_ABORTABLE, -1, NULL);
    /* another producer id in the same request fails it as a whole */
    batch_of(&b, GR_ATTR_TRANSACTIONAL, (gr_pid_t){ pid.id + 1, 0 }, 0, 1, now);
    rs = produce_parts(&bt, 9, "tvx", "tv", two, 2);
    for (int i = 0; i < 2; i++)
        assert_refused(&rs->responses[0].partition_responses[i],
                       GR_KERR_INVALID_PRODUCER_ID_MAPPING, -1,
                       "Transactional records contained more than one "
                       "producer ID");
    add_partition(&bt, "tvx", pid, "tv", 0);
    p = produce_one(&bt, 9, "tvx", "tv", &a);
    ck_assert_int_eq(p->error_code, GR_KERR_NONE);
    ck_assert_int_eq(p->base_offset, 0);
    batch_of(&a, GR_ATTR_TRANSACTIONAL, pid, 1, 1, now);
    ck_assert_int_eq(produce_one(&bt, 9, "tvx", "tv", &a)->error_code,
                     GR_KERR_NONE);
    /* a later epoch than the coordinator's: fenced there */
    batch_of(&a, GR_ATTR_TRANSACTIONAL, (gr_pid_t){ pid.id, pid.epoch + 1 }, 0,
             1, now);
    assert_refused(produce_one(&bt, 9, "tvx", "tv", &a),
                   GR_KERR_INVALID_PRODUCER_EPOCH, -1, NULL);
    gr_buf_fini(&a);
    gr_buf_fini(&b);
    gr_brokertest_stop(&bt);
}
END_TEST

static gr_kerr_t txn_offset_commit(gr_brokertest_t *bt, int16_t v,
                                   const char *tid, gr_pid_t pid);

/* transaction.partition.verification.enable=false: Produce v3-v11 and
 * TxnOffsetCommit v0-v4 are not checked against the transaction, as
 * Kafka's ReplicaManager skips the check then. */
START_TEST(test_txn_verification_disabled)
{
    static const char *const off[] = {
        "transaction.partition.verification.enable=false", NULL
    };
    gr_brokertest_t bt;
    gr_buf_t a = GR_BUF_INIT;
    gr_pid_t pid;

    gr_brokertest_start(&bt, off);
    gr_brokertest_create_topic(&bt, "tv", 1, "cleanup.policy", "delete");
    gr_brokertest_coordinator(&bt, "tog", 0);
    pid = init_txn_pid(&bt, "tvx");
    batch_of(&a, GR_ATTR_TRANSACTIONAL, pid, 0, 1, gr_wall_ms());
    ck_assert_int_eq(produce_one(&bt, 9, "tvx", "tv", &a)->error_code,
                     GR_KERR_NONE);
    gr_brokertest_create_topic(&bt, "to", 1, "cleanup.policy", "delete");
    ck_assert_int_eq(txn_offset_commit(&bt, 3, "tvx", pid), GR_KERR_NONE);
    gr_buf_fini(&a);
    gr_brokertest_stop(&bt);
}
END_TEST

static gr_kerr_t
txn_offset_commit(gr_brokertest_t *bt, int16_t v, const char *tid, gr_pid_t pid)
{
    gr_txn_offset_commit_request_t rq;
    gr_txn_offset_commit_request_topic_t t;
    gr_txn_offset_commit_request_partition_t p;
    gr_txn_offset_commit_response_t *rs;
    gr_txn_offset_commit_request_init(&rq);
    gr_txn_offset_commit_request_topic_init(&t);
    gr_txn_offset_commit_request_partition_init(&p);
    p.committed_offset = 1;
    t.name = gr_str_c("to");
    t.partitions = &p;
    t.partitions_cnt = 1;
    rq.transactional_id = gr_str_c(tid);
    rq.group_id = gr_str_c("tog");
    rq.producer_id = pid.id;
    rq.producer_epoch = pid.epoch;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_TXN_OFFSET_COMMIT, v, &rq);
    ck_assert_int_eq(rs->topics_cnt, 1);
    ck_assert_int_eq(rs->topics[0].partitions_cnt, 1);
    return rs->topics[0].partitions[0].error_code;
}

/* TxnOffsetCommit below v5 is verified as Produce is (Kafka's
 * CoordinatorPartitionWriter): the group's partition of
 * __consumer_offsets must be in the transaction, at the producer's
 * epoch; v5+ adds it (transaction version 2). */
START_TEST(test_txn_offset_commit_verified)
{
    gr_brokertest_t bt;
    gr_add_offsets_to_txn_request_t ao;
    gr_add_offsets_to_txn_response_t *aor;
    gr_pid_t pid, other;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "to", 1, "cleanup.policy", "delete");
    gr_brokertest_coordinator(&bt, "tog", 0);
    pid = init_txn_pid(&bt, "toc");
    other = init_txn_pid(&bt, "toc2");
    /* no AddOffsetsToTxn yet: not in the transaction */
    ck_assert_int_eq(txn_offset_commit(&bt, 3, "toc", pid),
                     GR_KERR_INVALID_TXN_STATE);
    ck_assert_int_eq(txn_offset_commit(&bt, 4, "toc", pid),
                     GR_KERR_TRANSACTION_ABORTABLE);
    gr_add_offsets_to_txn_request_init(&ao);
    ao.transactional_id = gr_str_c("toc");
    ao.producer_id = pid.id;
    ao.producer_epoch = pid.epoch;
    ao.group_id = gr_str_c("tog");
    aor = gr_brokertest_call(&bt, GR_API_ADD_OFFSETS_TO_TXN, 3, &ao);
    ck_assert_int_eq(aor->error_code, GR_KERR_NONE);
    ck_assert_int_eq(txn_offset_commit(&bt, 3, "toc", pid), GR_KERR_NONE);
    /* a later epoch than the coordinator's is fenced there */
    ck_assert_int_eq(
        txn_offset_commit(&bt, 3, "toc", (gr_pid_t){ pid.id, pid.epoch + 4 }),
        GR_KERR_INVALID_PRODUCER_EPOCH);
    ck_assert_int_eq(txn_offset_commit(&bt, 0, "toc", pid), GR_KERR_NONE);
    /* v5+ puts the partition in the transaction itself */
    ck_assert_int_eq(txn_offset_commit(&bt, 5, "toc2", other), GR_KERR_NONE);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Transaction version 2 end to end through the handlers: Produce v12 with
 * no AddPartitionsToTxn puts the partition in the transaction, EndTxn v5
 * commits it with an epoch bump, and the next transaction goes on at the
 * new epoch with its sequences from 0. */
static gr_kerr_t
txn_produce(gr_brokertest_t *bt, int16_t v, gr_pid_t pid, int32_t seq,
            int64_t *base)
{
    gr_produce_request_t rq;
    gr_produce_request_topic_produce_data_t td;
    gr_produce_request_partition_produce_data_t pd;
    gr_produce_response_t *rs;
    gr_batch_builder_t bb;
    gr_buf_t recs = GR_BUF_INIT;
    gr_bytes_t k = { (const uint8_t *)"k", 1 }, val = { (const uint8_t *)"v", 1 };
    gr_kerr_t err;

    gr_batch_builder_init(&bb, GR_CODEC_NONE, GR_ATTR_TRANSACTIONAL, pid.id,
                          pid.epoch, seq);
    gr_batch_builder_add(&bb, gr_wall_ms(), &k, &val, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &recs), 0);
    gr_batch_builder_fini(&bb);
    gr_produce_request_init(&rq);
    gr_produce_request_topic_produce_data_init(&td);
    gr_produce_request_partition_produce_data_init(&pd);
    rq.transactional_id = gr_str_c("tv2");
    rq.acks = -1;
    rq.timeout_ms = 5000;
    pd.index = 0;
    pd.records.ptr = recs.ptr;
    pd.records.len = (int32_t)recs.len;
    td.name = gr_str_c("tp");
    td.partition_data = &pd;
    td.partition_data_cnt = 1;
    rq.topic_data = &td;
    rq.topic_data_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_PRODUCE, v, &rq);
    err = rs->responses[0].partition_responses[0].error_code;
    *base = rs->responses[0].partition_responses[0].base_offset;
    gr_buf_fini(&recs);
    return err;
}

static gr_describe_transactions_response_transaction_state_t *
describe_txn(gr_brokertest_t *bt)
{
    gr_describe_transactions_request_t rq;
    gr_describe_transactions_response_t *rs;
    gr_str_t id = GR_STR("tv2");
    gr_describe_transactions_request_init(&rq);
    rq.transactional_ids = &id;
    rq.transactional_ids_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_DESCRIBE_TRANSACTIONS, 0, &rq);
    return &rs->transaction_states[0];
}

START_TEST(test_tv2_produce_adds_partitions)
{
    gr_brokertest_t bt;
    gr_init_producer_id_request_t ip;
    gr_init_producer_id_response_t *ipr;
    gr_end_txn_request_t et;
    gr_end_txn_response_t *etr;
    gr_describe_transactions_response_transaction_state_t *d;
    gr_pid_t pid;
    int64_t base;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_create_topic(&bt, "tp", 1, "cleanup.policy", "delete");
    gr_brokertest_coordinator(&bt, "tv2", 1);
    gr_init_producer_id_request_init(&ip);
    ip.transactional_id = gr_str_c("tv2");
    ip.transaction_timeout_ms = 60000;
    ipr = gr_brokertest_call(&bt, GR_API_INIT_PRODUCER_ID, 4, &ip);
    ck_assert_int_eq(ipr->error_code, GR_KERR_NONE);
    pid = (gr_pid_t){ ipr->producer_id, ipr->producer_epoch };

    ck_assert_int_eq(txn_produce(&bt, 12, pid, 0, &base), GR_KERR_NONE);
    ck_assert_int_eq(base, 0);
    d = describe_txn(&bt);
    ck_assert(gr_str_eq_cstr(&d->transaction_state, "Ongoing"));
    ck_assert_int_eq(d->topics_cnt, 1);
    ck_assert(gr_str_eq_cstr(&d->topics[0].topic, "tp"));

    gr_end_txn_request_init(&et);
    et.transactional_id = gr_str_c("tv2");
    et.producer_id = pid.id;
    et.producer_epoch = pid.epoch;
    et.committed = true;
    etr = gr_brokertest_call(&bt, GR_API_END_TXN, 5, &et);
    ck_assert_int_eq(etr->error_code, GR_KERR_NONE);
    ck_assert_int_eq(etr->producer_id, pid.id);
    ck_assert_int_eq(etr->producer_epoch, pid.epoch + 1);
    ck_assert(gr_str_eq_cstr(&describe_txn(&bt)->transaction_state,
                             "CompleteCommit"));
    /* the old epoch is fenced on the partition (the marker's is newer) */
    ck_assert_int_eq(txn_produce(&bt, 12, pid, 1, &base),
                     GR_KERR_INVALID_PRODUCER_EPOCH);
    pid.epoch++;
    ck_assert_int_eq(txn_produce(&bt, 12, pid, 0, &base), GR_KERR_NONE);
    ck_assert_int_eq(base, 2); /* after the record and the marker */
    gr_brokertest_stop(&bt);
}
END_TEST

/* DescribeTransactions of an id in error keeps the response's defaults,
 * as Kafka's TransactionState with only the error code set. */
START_TEST(test_describe_unknown_txn)
{
    gr_brokertest_t bt;
    gr_describe_transactions_response_transaction_state_t *d;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_coordinator(&bt, "tv2", 1);
    d = describe_txn(&bt);
    ck_assert_int_eq(d->error_code, GR_KERR_TRANSACTIONAL_ID_NOT_FOUND);
    ck_assert(gr_str_eq_cstr(&d->transaction_state, ""));
    ck_assert_int_eq(d->producer_id, 0);
    ck_assert_int_eq(d->producer_epoch, 0);
    ck_assert_int_eq(d->transaction_timeout_ms, 0);
    ck_assert_int_eq(d->transaction_start_time_ms, 0);
    ck_assert_int_eq(d->topics_cnt, 0);
    gr_brokertest_stop(&bt);
}
END_TEST

/* The highest InitProducerId version ApiVersions v3 advertises. */
static int16_t
advertised_init_pid(gr_brokertest_t *bt)
{
    gr_api_versions_request_t rq;
    gr_api_versions_response_t *rs;
    gr_api_versions_request_init(&rq);
    rq.client_software_name = gr_str_c("unit");
    rq.client_software_version = gr_str_c("1");
    rs = gr_brokertest_call(bt, GR_API_API_VERSIONS, 3, &rq);
    for (int32_t i = 0; i < rs->api_keys_cnt; i++)
        if (rs->api_keys[i].api_key == GR_API_INIT_PRODUCER_ID)
            return rs->api_keys[i].max_version;
    return -1;
}

/* InitProducerId v6 (KIP-939) is unstable in Kafka 4.4: served only with
 * unstable.api.versions.enable, as Kafka, which then answers it with
 * transaction.two.phase.commit.enable false: Enable2Pc is
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED, KeepPreparedTxn
 * UNSUPPORTED_VERSION (Kafka has none either), both with producer -1 and
 * epoch -1; an idempotent producer's flags do not count; without them v6
 * is v5, the ongoing transaction's producer -1. */
START_TEST(test_init_producer_id_v6)
{
    static const char *const unstable[] = {
        "unstable.api.versions.enable=true", NULL
    };
    gr_brokertest_t bt;
    gr_init_producer_id_request_t ip;
    gr_init_producer_id_response_t *r;

    gr_brokertest_start(&bt, NULL);
    ck_assert_int_eq(advertised_init_pid(&bt), 5);
    gr_brokertest_stop(&bt);
    gr_brokertest_start(&bt, unstable);
    ck_assert_int_eq(advertised_init_pid(&bt), 6);
    gr_brokertest_coordinator(&bt, "two", 1);
    gr_init_producer_id_request_init(&ip);
    ip.transactional_id = gr_str_c("two");
    ip.transaction_timeout_ms = 60000;
    ip.enable2_pc = true;
    r = gr_brokertest_call(&bt, GR_API_INIT_PRODUCER_ID, 6, &ip);
    ck_assert_int_eq(r->error_code,
                     GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    ck_assert_int_eq(r->producer_id, -1);
    ck_assert_int_eq(r->producer_epoch, -1);
    ip.keep_prepared_txn = true; /* the first check wins */
    r = gr_brokertest_call(&bt, GR_API_INIT_PRODUCER_ID, 6, &ip);
    ck_assert_int_eq(r->error_code,
                     GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    ip.enable2_pc = false;
    r = gr_brokertest_call(&bt, GR_API_INIT_PRODUCER_ID, 6, &ip);
    ck_assert_int_eq(r->error_code, GR_KERR_UNSUPPORTED_VERSION);
    ck_assert_int_eq(r->producer_epoch, -1);
    ip.keep_prepared_txn = false;
    r = gr_brokertest_call(&bt, GR_API_INIT_PRODUCER_ID, 6, &ip);
    ck_assert_int_eq(r->error_code, GR_KERR_NONE);
    ck_assert_int_ge(r->producer_id, 0);
    ck_assert_int_eq(r->producer_epoch, 0);
    ck_assert_int_eq(r->ongoing_txn_producer_id, -1);
    ck_assert_int_eq(r->ongoing_txn_producer_epoch, -1);
    ip.transactional_id = GR_STR_NULL;
    ip.enable2_pc = true;
    ip.keep_prepared_txn = true;
    r = gr_brokertest_call(&bt, GR_API_INIT_PRODUCER_ID, 6, &ip);
    ck_assert_int_eq(r->error_code, GR_KERR_NONE);
    ck_assert_int_ge(r->producer_id, 0);
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_api_produce(void)
{
    Suite *s = suite_create("api/produce");
    TCase *tc = tcase_create("produce");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_record_errors_by_version, 3, 14);
    tcase_add_test(tc, test_topic_ids_v13);
    tcase_add_loop_test(tc, test_fetch_no_cut_first_batch, 4, 13);
    tcase_add_loop_test(tc, test_fetch_error_offsets, 4, 13);
    tcase_add_loop_test(tc, test_fetch_replica_and_duplicates, 4, 19);
    tcase_add_test(tc, test_produce_stages);
    tcase_add_test(tc, test_duplicate_answer);
    tcase_add_test(tc, test_txn_verification);
    tcase_add_test(tc, test_txn_verification_disabled);
    tcase_add_test(tc, test_txn_offset_commit_verified);
    tcase_add_test(tc, test_tv2_produce_adds_partitions);
    tcase_add_test(tc, test_describe_unknown_txn);
    tcase_add_test(tc, test_init_producer_id_v6);
    suite_add_tcase(s, tc);
    return s;
}
