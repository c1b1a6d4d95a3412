/* Produce through the dispatcher: the records a partition rejects one by
 * one are listed from v8 (KIP-467), v13 names topics by id, and v12+
 * transactional data joins its transaction (KIP-890 part 2). And Fetch of
 * batches larger than a partition's share. */
#include "../unit.h"
#include "brokertest.h"

#include "core/time.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"
#include "proto/records.h"
#include "txn/txn.h"

#include <string.h>

static gr_uuid_t
create_topic_n(gr_brokertest_t *bt, const char *name, const char *policy,
               int32_t nparts)
{
    gr_create_topics_request_t rq;
    gr_create_topics_request_creatable_topic_t t;
    gr_create_topics_request_creatable_topic_config_t c;
    gr_create_topics_response_t *rs;

    gr_create_topics_request_init(&rq);
    gr_create_topics_request_creatable_topic_init(&t);
    t.name = gr_str_c(name);
    t.num_partitions = nparts;
    t.replication_factor = 1;
    c.name = gr_str_c("cleanup.policy");
    c.value = gr_str_c(policy);
    t.configs = &c;
    t.configs_cnt = 1;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rq.timeout_ms = 10000;
    rs = gr_brokertest_call(bt, GR_API_CREATE_TOPICS, 7, &rq);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
    return rs->topics[0].topic_id;
}

static gr_uuid_t
create_topic(gr_brokertest_t *bt, const char *name, const char *policy)
{
    return create_topic_n(bt, name, policy, 1);
}

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
    id = create_topic(&bt, "compacted", "compact");
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
    id = create_topic(&bt, "plain", "delete");
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
    create_topic_n(&bt, "big", "delete", 2);
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
    create_topic_n(&bt, "fe", "delete", 2);
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
    id = create_topic(&bt, "fr", "delete");
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
    create_topic(&bt, "tp", "delete");
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
    tcase_add_test(tc, test_tv2_produce_adds_partitions);
    tcase_add_test(tc, test_init_producer_id_v6);
    suite_add_tcase(s, tc);
    return s;
}
