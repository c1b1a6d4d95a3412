/*
 * Generated codecs against independent bytes: vectors written here from the
 * protocol guide, one at every version where a message changes shape, and
 * golden frames under tests/data/wire/ produced by other encoders
 * (kafka-python's protocol classes, librdkafka and kafkajs frames captured
 * with gregor --dump-frames). A golden frame must decode completely and
 * re-encode to the same bytes.
 */
#include "proto/gen/proto_table.h"
#include "proto/proto.h"
#include "../unit.h"

#ifndef GR_GOLDEN_MIN
#define GR_GOLDEN_MIN 199
#endif

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decodes v with ops at ver, checks it is consumed and re-encodes equal. */
static void *
decode_reencode(const gr_proto_ops_t *ops, int16_t ver, const uint8_t *v,
                size_t n, gr_arena_t *a)
{
    void *m = gr_arena_zalloc(a, ops->struct_size);
    gr_reader_t r = gr_reader_init(v, n);
    uint8_t *out;
    gr_writer_t w;
    ck_assert_int_eq(ops->decode(&r, ver, a, m), 0);
    ck_assert_uint_eq(gr_reader_remaining(&r), 0);
    ck_assert_uint_eq(ops->size(m, ver), n);
    out = gr_arena_alloc(a, n + 1);
    w = gr_writer_init(out, n, a);
    ops->encode(&w, m, ver);
    ck_assert_int_eq(w.err, 0);
    ck_assert_mem_eq(out, v, n);
    return m;
}

START_TEST(test_api_versions_request)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_API_VERSIONS);
    /* v0-v2: empty body */
    gr_api_versions_request_t *rq =
        decode_reencode(&api->request, 0, (const uint8_t *)"", 0, a);
    (void)rq;
    /* v3: ClientSoftwareName, ClientSoftwareVersion as COMPACT_STRING, then
     * an empty tag section (what librdkafka sends) */
    static const uint8_t v3[] = {0x0b, 'l', 'i', 'b', 'r', 'd', 'k', 'a',
                                 'f',  'k', 'a', 0x06, '2', '.', '0', '.',
                                 '2',  0x00};
    rq = decode_reencode(&api->request, 3, v3, sizeof v3, a);
    ck_assert(gr_str_eq_cstr(&rq->client_software_name, "librdkafka"));
    ck_assert(gr_str_eq_cstr(&rq->client_software_version, "2.0.2"));
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_api_versions_response)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_API_VERSIONS);
    /* v0: ErrorCode, [ApiKey MinVersion MaxVersion] */
    static const uint8_t v0[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
                                 0x12, 0x00, 0x00, 0x00, 0x03};
    /* v1: + ThrottleTimeMs */
    static const uint8_t v1[] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
                                 0x12, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00,
                                 0x00, 0x0a};
    /* v3 (flexible): compact array, per-entry tags, throttle, tags with
     * FinalizedFeaturesEpoch (tag 1, int64 5) */
    static const uint8_t v3[] = {0x00, 0x00, 0x02, 0x00, 0x12, 0x00, 0x00,
                                 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,
                                 0x01, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00,
                                 0x00, 0x00, 0x00, 0x05};
    gr_api_versions_response_t *rs;

    rs = decode_reencode(&api->response, 0, v0, sizeof v0, a);
    ck_assert_int_eq(rs->api_keys_cnt, 1);
    ck_assert_int_eq(rs->api_keys[0].api_key, 18);
    ck_assert_int_eq(rs->api_keys[0].max_version, 3);
    rs = decode_reencode(&api->response, 1, v1, sizeof v1, a);
    ck_assert_int_eq(rs->throttle_time_ms, 10);
    rs = decode_reencode(&api->response, 3, v3, sizeof v3, a);
    ck_assert_int_eq(rs->api_keys_cnt, 1);
    ck_assert_int_eq(rs->finalized_features_epoch, 5);
    ck_assert_int_eq(rs->supported_features_cnt, 0);
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_metadata_request)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_METADATA);
    gr_metadata_request_t *rq;
    /* v0: [Name STRING]; an empty array means all topics */
    static const uint8_t v0[] = {0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 't'};
    /* v1: null array = all topics */
    static const uint8_t v1[] = {0xff, 0xff, 0xff, 0xff};
    /* v4: + AllowAutoTopicCreation */
    static const uint8_t v4[] = {0x00, 0x00, 0x00, 0x00, 0x01};
    /* v8: + IncludeClusterAuthorizedOperations,
     * IncludeTopicAuthorizedOperations */
    static const uint8_t v8[] = {0xff, 0xff, 0xff, 0xff, 0x01, 0x00, 0x01};
    /* v9 (flexible): compact array of {Name COMPACT_STRING, tags} */
    static const uint8_t v9[] = {0x02, 0x02, 't', 0x00, 0x01, 0x00, 0x00, 0x00};
    /* v10: + TopicId (uuid) before Name, Name nullable */
    static const uint8_t v10[] = {0x02, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                  12, 13, 14, 15, 16, 0x00, 0x00, 0x01, 0x00,
                                  0x00, 0x00};
    /* v11: cluster authorized operations removed */
    static const uint8_t v11[] = {0x00, 0x00, 0x01, 0x00};

    rq = decode_reencode(&api->request, 0, v0, sizeof v0, a);
    ck_assert_int_eq(rq->topics_cnt, 1);
    ck_assert(gr_str_eq_cstr(&rq->topics[0].name, "t"));
    ck_assert(rq->allow_auto_topic_creation); /* default true */
    rq = decode_reencode(&api->request, 1, v1, sizeof v1, a);
    ck_assert_int_eq(rq->topics_cnt, -1);
    rq = decode_reencode(&api->request, 4, v4, sizeof v4, a);
    ck_assert_int_eq(rq->topics_cnt, 0);
    ck_assert(rq->allow_auto_topic_creation);
    rq = decode_reencode(&api->request, 8, v8, sizeof v8, a);
    ck_assert(!rq->include_cluster_authorized_operations);
    ck_assert(rq->include_topic_authorized_operations);
    rq = decode_reencode(&api->request, 9, v9, sizeof v9, a);
    ck_assert(gr_str_eq_cstr(&rq->topics[0].name, "t"));
    rq = decode_reencode(&api->request, 10, v10, sizeof v10, a);
    ck_assert_int_eq(rq->topics[0].topic_id.b[15], 16);
    ck_assert_int_eq(rq->topics[0].name.len, -1);
    rq = decode_reencode(&api->request, 11, v11, sizeof v11, a);
    ck_assert_int_eq(rq->topics_cnt, -1);
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_init_producer_id_request)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_INIT_PRODUCER_ID);
    gr_init_producer_id_request_t *rq;
    /* v0: TransactionalId NULLABLE_STRING, TransactionTimeoutMs */
    static const uint8_t v0[] = {0xff, 0xff, 0x00, 0x00, 0xea, 0x60};
    /* v2 (flexible): COMPACT_NULLABLE_STRING */
    static const uint8_t v2[] = {0x03, 't', '1', 0x00, 0x00, 0xea, 0x60, 0x00};
    /* v3: + ProducerId, ProducerEpoch */
    static const uint8_t v3[] = {0x00, 0x00, 0x00, 0x03, 0xe8, 0x00, 0x00,
                                 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00,
                                 0x02, 0x00};
    rq = decode_reencode(&api->request, 0, v0, sizeof v0, a);
    ck_assert_int_eq(rq->transactional_id.len, -1);
    ck_assert_int_eq(rq->transaction_timeout_ms, 60000);
    ck_assert_int_eq(rq->producer_id, -1); /* absent before v3: default */
    rq = decode_reencode(&api->request, 2, v2, sizeof v2, a);
    ck_assert(gr_str_eq_cstr(&rq->transactional_id, "t1"));
    rq = decode_reencode(&api->request, 3, v3, sizeof v3, a);
    ck_assert_int_eq(rq->transactional_id.len, -1);
    ck_assert_int_eq(rq->transaction_timeout_ms, 1000);
    ck_assert_int_eq(rq->producer_id, 7);
    ck_assert_int_eq(rq->producer_epoch, 2);
    gr_arena_destroy(a);
}
END_TEST

/* Produce v3 adds TransactionalId (NULLABLE_STRING) in front. Records are
 * opaque to the codec: four bytes stand for a batch here. */
START_TEST(test_produce_v3_request)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_PRODUCE);
    gr_produce_request_t *rq;
    static const uint8_t v3[] = {
        0x00, 0x03, 't',  'x',  'n', /* TransactionalId: INT16 len 3 */
        0xff, 0xff,                  /* Acks: -1 */
        0x00, 0x00, 0x03, 0xe8,      /* TimeoutMs: 1000 */
        0x00, 0x00, 0x00, 0x01,      /* TopicData: ARRAY, 1 element */
        0x00, 0x01, 't',             /*   Name: "t" */
        0x00, 0x00, 0x00, 0x01,      /*   PartitionData: ARRAY, 1 */
        0x00, 0x00, 0x00, 0x02,      /*     Index: 2 */
        0x00, 0x00, 0x00, 0x04,      /*     Records: BYTES length 4 */
        0xde, 0xad, 0xbe, 0xef,      /*       (opaque) */
    };
    rq = decode_reencode(&api->request, 3, v3, sizeof v3, a);
    ck_assert(gr_str_eq_cstr(&rq->transactional_id, "txn"));
    ck_assert_int_eq(rq->acks, -1);
    ck_assert_int_eq(rq->timeout_ms, 1000);
    ck_assert_int_eq(rq->topic_data_cnt, 1);
    ck_assert(gr_str_eq_cstr(&rq->topic_data[0].name, "t"));
    ck_assert_int_eq(rq->topic_data[0].partition_data[0].index, 2);
    ck_assert_int_eq(rq->topic_data[0].partition_data[0].records.len, 4);
    ck_assert_int_eq(rq->topic_data[0].partition_data[0].records.ptr[0], 0xde);
    gr_arena_destroy(a);
}
END_TEST

/* Produce v9, the first flexible version: compact strings, arrays and
 * records (length + 1 as UNSIGNED_VARINT, 0 = null), a tag section after
 * every struct. */
START_TEST(test_produce_v9)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_PRODUCE);
    gr_produce_request_t *rq;
    gr_produce_response_t *rs;
    static const uint8_t rq_v9[] = {
        0x00,                   /* TransactionalId: COMPACT_NULLABLE, null */
        0x00, 0x01,             /* Acks: 1 */
        0x00, 0x00, 0x75, 0x30, /* TimeoutMs: 30000 */
        0x02,                   /* TopicData: COMPACT_ARRAY, 1 element */
        0x02, 't',              /*   Name: COMPACT_STRING "t" */
        0x02,                   /*   PartitionData: 1 element */
        0x00, 0x00, 0x00, 0x00, /*     Index: 0 */
        0x05,                   /*     Records: COMPACT_RECORDS, 4 bytes */
        0x01, 0x02, 0x03, 0x04, /*       (opaque) */
        0x00,                   /*     partition tags: none */
        0x00,                   /*   topic tags */
        0x00,                   /* tags */
    };
    static const uint8_t rs_v9[] = {
        0x02,                   /* Responses: 1 element */
        0x02, 't',              /*   Name: "t" */
        0x02,                   /*   PartitionResponses: 1 element */
        0x00, 0x00, 0x00, 0x00, /*     Index: 0 */
        0x00, 0x00,             /*     ErrorCode: 0 */
        0x00, 0x00, 0x00, 0x00, /*     BaseOffset: 5 */
        0x00, 0x00, 0x00, 0x05, /*  */
        0xff, 0xff, 0xff, 0xff, /*     LogAppendTimeMs: -1 */
        0xff, 0xff, 0xff, 0xff, /*  */
        0x00, 0x00, 0x00, 0x00, /*     LogStartOffset: 0 */
        0x00, 0x00, 0x00, 0x00, /*  */
        0x02,                   /*     RecordErrors: 1 element */
        0x00, 0x00, 0x00, 0x01, /*       BatchIndex: 1 */
        0x00,                   /*       BatchIndexErrorMessage: null */
        0x00,                   /*       tags */
        0x03, 'b',  'd',        /*     ErrorMessage: "bd" */
        0x00,                   /*     partition tags */
        0x00,                   /*   topic tags */
        0x00, 0x00, 0x00, 0x0a, /* ThrottleTimeMs: 10 */
        0x00,                   /* tags */
    };
    gr_produce_response_partition_produce_response_t *pr;

    rq = decode_reencode(&api->request, 9, rq_v9, sizeof rq_v9, a);
    ck_assert_int_eq(rq->transactional_id.len, -1);
    ck_assert_int_eq(rq->acks, 1);
    ck_assert_int_eq(rq->timeout_ms, 30000);
    ck_assert(gr_str_eq_cstr(&rq->topic_data[0].name, "t"));
    ck_assert_int_eq(rq->topic_data[0].partition_data_cnt, 1);
    ck_assert_int_eq(rq->topic_data[0].partition_data[0].records.len, 4);
    rs = decode_reencode(&api->response, 9, rs_v9, sizeof rs_v9, a);
    pr = &rs->responses[0].partition_responses[0];
    ck_assert_int_eq(pr->base_offset, 5);
    ck_assert_int_eq(pr->log_append_time_ms, -1);
    ck_assert_int_eq(pr->record_errors_cnt, 1);
    ck_assert_int_eq(pr->record_errors[0].batch_index, 1);
    ck_assert_int_eq(pr->record_errors[0].batch_index_error_message.len, -1);
    ck_assert(gr_str_eq_cstr(&pr->error_message, "bd"));
    ck_assert_int_eq(rs->throttle_time_ms, 10);
    gr_arena_destroy(a);
}
END_TEST

/* Fetch v12, the first flexible version: ClusterId is a tagged field (tag 0)
 * of the request; DivergingEpoch (tag 0) and CurrentLeader (tag 1) are
 * tagged structs of a response partition. */
START_TEST(test_fetch_v12)
{
    gr_arena_t *a = gr_arena_new(2048);
    const gr_proto_api_t *api = gr_proto_api(GR_API_FETCH);
    gr_fetch_request_t *rq;
    gr_fetch_response_t *rs;
    static const uint8_t rq_v12[] = {
        0xff, 0xff, 0xff, 0xff, /* ReplicaId: -1 */
        0x00, 0x00, 0x01, 0xf4, /* MaxWaitMs: 500 */
        0x00, 0x00, 0x00, 0x01, /* MinBytes: 1 */
        0x00, 0x10, 0x00, 0x00, /* MaxBytes: 1 MiB */
        0x01,                   /* IsolationLevel: 1 (read committed) */
        0x00, 0x00, 0x00, 0x00, /* SessionId: 0 */
        0xff, 0xff, 0xff, 0xff, /* SessionEpoch: -1 */
        0x02,                   /* Topics: COMPACT_ARRAY, 1 element */
        0x02, 't',              /*   Topic: "t" */
        0x02,                   /*   Partitions: 1 element */
        0x00, 0x00, 0x00, 0x00, /*     Partition: 0 */
        0x00, 0x00, 0x00, 0x03, /*     CurrentLeaderEpoch: 3 */
        0x00, 0x00, 0x00, 0x00, /*     FetchOffset: 100 */
        0x00, 0x00, 0x00, 0x64, /*  */
        0xff, 0xff, 0xff, 0xff, /*     LastFetchedEpoch: -1 */
        0xff, 0xff, 0xff, 0xff, /*     LogStartOffset: -1 */
        0xff, 0xff, 0xff, 0xff, /*  */
        0x00, 0x01, 0x00, 0x00, /*     PartitionMaxBytes: 65536 */
        0x00,                   /*     partition tags */
        0x00,                   /*   topic tags */
        0x02,                   /* ForgottenTopicsData: 1 element */
        0x02, 'u',              /*   Topic: "u" */
        0x03,                   /*   Partitions: COMPACT_ARRAY, 2 INT32 */
        0x00, 0x00, 0x00, 0x01, /*     1 */
        0x00, 0x00, 0x00, 0x02, /*     2 */
        0x00,                   /*   tags */
        0x03, 'r',  '1',        /* RackId: "r1" */
        0x01,                   /* tags: 1 field */
        0x00, 0x03,             /*   tag 0 (ClusterId), 3 bytes */
        0x03, 'c',  '1',        /*   COMPACT_NULLABLE_STRING "c1" */
    };
    static const uint8_t rs_v12[] = {
        0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
        0x00, 0x00,             /* ErrorCode: 0 */
        0x00, 0x00, 0x00, 0x07, /* SessionId: 7 */
        0x02,                   /* Responses: 1 element */
        0x02, 't',              /*   Topic: "t" */
        0x02,                   /*   Partitions: 1 element */
        0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
        0x00, 0x00,             /*     ErrorCode: 0 */
        0x00, 0x00, 0x00, 0x00, /*     HighWatermark: 10 */
        0x00, 0x00, 0x00, 0x0a, /*  */
        0x00, 0x00, 0x00, 0x00, /*     LastStableOffset: 9 */
        0x00, 0x00, 0x00, 0x09, /*  */
        0x00, 0x00, 0x00, 0x00, /*     LogStartOffset: 0 */
        0x00, 0x00, 0x00, 0x00, /*  */
        0x02,                   /*     AbortedTransactions: 1 element */
        0x00, 0x00, 0x00, 0x00, /*       ProducerId: 1000 */
        0x00, 0x00, 0x03, 0xe8, /*  */
        0x00, 0x00, 0x00, 0x00, /*       FirstOffset: 4 */
        0x00, 0x00, 0x00, 0x04, /*  */
        0x00,                   /*       tags */
        0xff, 0xff, 0xff, 0xff, /*     PreferredReadReplica: -1 */
        0x04,                   /*     Records: COMPACT_RECORDS, 3 bytes */
        0x0a, 0x0b, 0x0c,       /*       (opaque) */
        0x02,                   /*     tags: 2 fields, by tag */
        0x00, 0x0d,             /*       tag 0 (DivergingEpoch), 13 bytes */
        0x00, 0x00, 0x00, 0x04, /*         Epoch: 4 */
        0x00, 0x00, 0x00, 0x00, /*         EndOffset: 8 */
        0x00, 0x00, 0x00, 0x08, /*  */
        0x00,                   /*         tags */
        0x01, 0x09,             /*       tag 1 (CurrentLeader), 9 bytes */
        0x00, 0x00, 0x00, 0x02, /*         LeaderId: 2 */
        0x00, 0x00, 0x00, 0x05, /*         LeaderEpoch: 5 */
        0x00,                   /*         tags */
        0x00,                   /*   topic tags */
        0x00,                   /* tags */
    };
    gr_fetch_response_partition_data_t *pd;

    rq = decode_reencode(&api->request, 12, rq_v12, sizeof rq_v12, a);
    ck_assert_int_eq(rq->replica_id, -1);
    ck_assert_int_eq(rq->max_bytes, 0x100000);
    ck_assert_int_eq(rq->isolation_level, 1);
    ck_assert(gr_str_eq_cstr(&rq->topics[0].topic, "t"));
    ck_assert_int_eq(rq->topics[0].partitions[0].current_leader_epoch, 3);
    ck_assert_int_eq(rq->topics[0].partitions[0].fetch_offset, 100);
    ck_assert_int_eq(rq->topics[0].partitions[0].last_fetched_epoch, -1);
    ck_assert_int_eq(rq->forgotten_topics_data[0].partitions_cnt, 2);
    ck_assert_int_eq(rq->forgotten_topics_data[0].partitions[1], 2);
    ck_assert(gr_str_eq_cstr(&rq->rack_id, "r1"));
    ck_assert(gr_str_eq_cstr(&rq->cluster_id, "c1"));
    rs = decode_reencode(&api->response, 12, rs_v12, sizeof rs_v12, a);
    ck_assert_int_eq(rs->session_id, 7);
    pd = &rs->responses[0].partitions[0];
    ck_assert_int_eq(pd->high_watermark, 10);
    ck_assert_int_eq(pd->last_stable_offset, 9);
    ck_assert_int_eq(pd->aborted_transactions_cnt, 1);
    ck_assert_int_eq(pd->aborted_transactions[0].producer_id, 1000);
    ck_assert_int_eq(pd->records.len, 3);
    ck_assert_int_eq(pd->diverging_epoch.epoch, 4);
    ck_assert_int_eq(pd->diverging_epoch.end_offset, 8);
    ck_assert_int_eq(pd->current_leader.leader_id, 2);
    ck_assert_int_eq(pd->current_leader.leader_epoch, 5);
    ck_assert_int_eq(pd->snapshot_id.end_offset, -1); /* absent: default */
    gr_arena_destroy(a);
}
END_TEST

/* Fetch v13 replaces topic names with topic ids (UUID, 16 bytes) in
 * Topics, ForgottenTopicsData and the response. */
START_TEST(test_fetch_v13)
{
    gr_arena_t *a = gr_arena_new(2048);
    const gr_proto_api_t *api = gr_proto_api(GR_API_FETCH);
    gr_fetch_request_t *rq;
    gr_fetch_response_t *rs;
    static const uint8_t rq_v13[] = {
        0xff, 0xff, 0xff, 0xff, /* ReplicaId: -1 */
        0x00, 0x00, 0x01, 0xf4, /* MaxWaitMs: 500 */
        0x00, 0x00, 0x00, 0x01, /* MinBytes: 1 */
        0x7f, 0xff, 0xff, 0xff, /* MaxBytes: INT32_MAX */
        0x00,                   /* IsolationLevel: 0 */
        0x00, 0x00, 0x00, 0x2a, /* SessionId: 42 */
        0x00, 0x00, 0x00, 0x01, /* SessionEpoch: 1 */
        0x02,                   /* Topics: 1 element */
        0x10, 0x11, 0x12, 0x13, /*   TopicId: UUID 10 11 .. 1f */
        0x14, 0x15, 0x16, 0x17, /*  */
        0x18, 0x19, 0x1a, 0x1b, /*  */
        0x1c, 0x1d, 0x1e, 0x1f, /*  */
        0x02,                   /*   Partitions: 1 element */
        0x00, 0x00, 0x00, 0x01, /*     Partition: 1 */
        0xff, 0xff, 0xff, 0xff, /*     CurrentLeaderEpoch: -1 */
        0x00, 0x00, 0x00, 0x00, /*     FetchOffset: 0 */
        0x00, 0x00, 0x00, 0x00, /*  */
        0x00, 0x00, 0x00, 0x02, /*     LastFetchedEpoch: 2 */
        0xff, 0xff, 0xff, 0xff, /*     LogStartOffset: -1 */
        0xff, 0xff, 0xff, 0xff, /*  */
        0x00, 0x10, 0x00, 0x00, /*     PartitionMaxBytes: 1 MiB */
        0x00,                   /*     partition tags */
        0x00,                   /*   topic tags */
        0x02,                   /* ForgottenTopicsData: 1 element */
        0x20, 0x21, 0x22, 0x23, /*   TopicId: UUID 20 21 .. 2f */
        0x24, 0x25, 0x26, 0x27, /*  */
        0x28, 0x29, 0x2a, 0x2b, /*  */
        0x2c, 0x2d, 0x2e, 0x2f, /*  */
        0x02,                   /*   Partitions: 1 INT32 */
        0x00, 0x00, 0x00, 0x00, /*     0 */
        0x00,                   /*   tags */
        0x01,                   /* RackId: "" */
        0x00,                   /* tags */
    };
    static const uint8_t rs_v13[] = {
        0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
        0x00, 0x00,             /* ErrorCode: 0 */
        0x00, 0x00, 0x00, 0x2a, /* SessionId: 42 */
        0x02,                   /* Responses: 1 element */
        0x10, 0x11, 0x12, 0x13, /*   TopicId: UUID 10 11 .. 1f */
        0x14, 0x15, 0x16, 0x17, /*  */
        0x18, 0x19, 0x1a, 0x1b, /*  */
        0x1c, 0x1d, 0x1e, 0x1f, /*  */
        0x02,                   /*   Partitions: 1 element */
        0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
        0x00, 0x64,             /*     ErrorCode: 100 (UNKNOWN_TOPIC_ID) */
        0xff, 0xff, 0xff, 0xff, /*     HighWatermark: -1 */
        0xff, 0xff, 0xff, 0xff, /*  */
        0xff, 0xff, 0xff, 0xff, /*     LastStableOffset: -1 */
        0xff, 0xff, 0xff, 0xff, /*  */
        0xff, 0xff, 0xff, 0xff, /*     LogStartOffset: -1 */
        0xff, 0xff, 0xff, 0xff, /*  */
        0x00,                   /*     AbortedTransactions: null */
        0xff, 0xff, 0xff, 0xff, /*     PreferredReadReplica: -1 */
        0x00,                   /*     Records: null */
        0x00,                   /*     tags */
        0x00,                   /*   topic tags */
        0x00,                   /* tags */
    };
    gr_fetch_response_partition_data_t *pd;

    rq = decode_reencode(&api->request, 13, rq_v13, sizeof rq_v13, a);
    ck_assert_int_eq(rq->session_id, 42);
    ck_assert_int_eq(rq->topics_cnt, 1);
    ck_assert_int_eq(rq->topics[0].topic_id.b[0], 0x10);
    ck_assert_int_eq(rq->topics[0].topic_id.b[15], 0x1f);
    ck_assert_int_eq(rq->topics[0].topic.len, 0); /* no name from v13 */
    ck_assert_int_eq(rq->topics[0].partitions[0].last_fetched_epoch, 2);
    ck_assert_int_eq(rq->forgotten_topics_data[0].topic_id.b[15], 0x2f);
    ck_assert_int_eq(rq->forgotten_topics_data[0].partitions_cnt, 1);
    ck_assert_int_eq(rq->rack_id.len, 0);
    ck_assert_int_eq(rq->cluster_id.len, -1); /* tag absent: default */
    rs = decode_reencode(&api->response, 13, rs_v13, sizeof rs_v13, a);
    ck_assert_int_eq(rs->responses[0].topic_id.b[1], 0x11);
    pd = &rs->responses[0].partitions[0];
    ck_assert_int_eq(pd->error_code, 100);
    ck_assert_int_eq(pd->aborted_transactions_cnt, -1);
    ck_assert_int_eq(pd->records.len, -1);
    gr_arena_destroy(a);
}
END_TEST

/* FindCoordinator v3 (first flexible) looks up one key; v4 batches
 * CoordinatorKeys and answers per key. */
START_TEST(test_find_coordinator)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_FIND_COORDINATOR);
    gr_find_coordinator_request_t *rq;
    gr_find_coordinator_response_t *rs;
    static const uint8_t rq_v3[] = {
        0x03, 'g', '1', /* Key: COMPACT_STRING "g1" */
        0x00,           /* KeyType: 0 (group) */
        0x00,           /* tags */
    };
    static const uint8_t rs_v3[] = {
        0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
        0x00, 0x00,             /* ErrorCode: 0 */
        0x00,                   /* ErrorMessage: null */
        0x00, 0x00, 0x00, 0x01, /* NodeId: 1 */
        0x02, 'h',              /* Host: "h" */
        0x00, 0x00, 0x23, 0x84, /* Port: 9092 */
        0x00,                   /* tags */
    };
    static const uint8_t rq_v4[] = {
        0x01,           /* KeyType: 1 (transaction) */
        0x03,           /* CoordinatorKeys: COMPACT_ARRAY, 2 strings */
        0x03, 't', '1', /*   "t1" */
        0x03, 't', '2', /*   "t2" */
        0x00,           /* tags */
    };
    static const uint8_t rs_v4[] = {
        0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
        0x03,                   /* Coordinators: 2 elements */
        0x03, 't',  '1',        /*   Key: "t1" */
        0x00, 0x00, 0x00, 0x01, /*   NodeId: 1 */
        0x02, 'h',              /*   Host: "h" */
        0x00, 0x00, 0x23, 0x84, /*   Port: 9092 */
        0x00, 0x00,             /*   ErrorCode: 0 */
        0x00,                   /*   ErrorMessage: null */
        0x00,                   /*   tags */
        0x03, 't',  '2',        /*   Key: "t2" */
        0xff, 0xff, 0xff, 0xff, /*   NodeId: -1 */
        0x01,                   /*   Host: "" */
        0xff, 0xff, 0xff, 0xff, /*   Port: -1 */
        0x00, 0x0f,             /*   ErrorCode: COORDINATOR_NOT_AVAILABLE */
        0x02, 'x',              /*   ErrorMessage: "x" */
        0x00,                   /*   tags */
        0x00,                   /* tags */
    };

    rq = decode_reencode(&api->request, 3, rq_v3, sizeof rq_v3, a);
    ck_assert(gr_str_eq_cstr(&rq->key, "g1"));
    ck_assert_int_eq(rq->key_type, 0);
    rs = decode_reencode(&api->response, 3, rs_v3, sizeof rs_v3, a);
    ck_assert_int_eq(rs->error_message.len, -1);
    ck_assert_int_eq(rs->node_id, 1);
    ck_assert(gr_str_eq_cstr(&rs->host, "h"));
    ck_assert_int_eq(rs->port, 9092);
    rq = decode_reencode(&api->request, 4, rq_v4, sizeof rq_v4, a);
    ck_assert_int_eq(rq->key_type, 1);
    ck_assert_int_eq(rq->coordinator_keys_cnt, 2);
    ck_assert(gr_str_eq_cstr(&rq->coordinator_keys[1], "t2"));
    rs = decode_reencode(&api->response, 4, rs_v4, sizeof rs_v4, a);
    ck_assert_int_eq(rs->coordinators_cnt, 2);
    ck_assert(gr_str_eq_cstr(&rs->coordinators[0].key, "t1"));
    ck_assert_int_eq(rs->coordinators[0].port, 9092);
    ck_assert_int_eq(rs->coordinators[1].node_id, -1);
    ck_assert_int_eq(rs->coordinators[1].error_code, 15);
    ck_assert(gr_str_eq_cstr(&rs->coordinators[1].error_message, "x"));
    gr_arena_destroy(a);
}
END_TEST

/* JoinGroup v6, the first flexible version (GroupInstanceId since v5). */
START_TEST(test_join_group_v6)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_JOIN_GROUP);
    gr_join_group_request_t *rq;
    gr_join_group_response_t *rs;
    static const uint8_t rq_v6[] = {
        0x02, 'g',              /* GroupId: "g" */
        0x00, 0x00, 0x27, 0x10, /* SessionTimeoutMs: 10000 */
        0x00, 0x04, 0x93, 0xe0, /* RebalanceTimeoutMs: 300000 */
        0x01,                   /* MemberId: "" */
        0x03, 'i',  '1',        /* GroupInstanceId: "i1" */
        0x09, 'c',  'o',  'n',  /* ProtocolType: "consumer" */
        's',  'u',  'm',  'e',  /*  */
        'r',                    /*  */
        0x02,                   /* Protocols: 1 element */
        0x06, 'r',  'a',  'n',  /*   Name: "range" */
        'g',  'e',              /*  */
        0x04, 0x00, 0x01, 0x02, /*   Metadata: COMPACT_BYTES, 3 bytes */
        0x00,                   /*   tags */
        0x00,                   /* tags */
    };
    static const uint8_t rs_v6[] = {
        0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
        0x00, 0x00,             /* ErrorCode: 0 */
        0x00, 0x00, 0x00, 0x01, /* GenerationId: 1 */
        0x06, 'r',  'a',  'n',  /* ProtocolName: "range" */
        'g',  'e',              /*  */
        0x03, 'm',  '1',        /* Leader: "m1" */
        0x03, 'm',  '1',        /* MemberId: "m1" */
        0x02,                   /* Members: 1 element */
        0x03, 'm',  '1',        /*   MemberId: "m1" */
        0x00,                   /*   GroupInstanceId: null */
        0x01,                   /*   Metadata: empty */
        0x00,                   /*   tags */
        0x00,                   /* tags */
    };

    rq = decode_reencode(&api->request, 6, rq_v6, sizeof rq_v6, a);
    ck_assert(gr_str_eq_cstr(&rq->group_id, "g"));
    ck_assert_int_eq(rq->session_timeout_ms, 10000);
    ck_assert_int_eq(rq->rebalance_timeout_ms, 300000);
    ck_assert_int_eq(rq->member_id.len, 0);
    ck_assert(gr_str_eq_cstr(&rq->group_instance_id, "i1"));
    ck_assert(gr_str_eq_cstr(&rq->protocol_type, "consumer"));
    ck_assert(gr_str_eq_cstr(&rq->protocols[0].name, "range"));
    ck_assert_int_eq(rq->protocols[0].metadata.len, 3);
    ck_assert_int_eq(rq->reason.len, -1); /* v8+: default */
    rs = decode_reencode(&api->response, 6, rs_v6, sizeof rs_v6, a);
    ck_assert_int_eq(rs->generation_id, 1);
    ck_assert(gr_str_eq_cstr(&rs->protocol_name, "range"));
    ck_assert(gr_str_eq_cstr(&rs->leader, "m1"));
    ck_assert_int_eq(rs->members_cnt, 1);
    ck_assert_int_eq(rs->members[0].group_instance_id.len, -1);
    ck_assert_int_eq(rs->members[0].metadata.len, 0);
    gr_arena_destroy(a);
}
END_TEST

/* OffsetCommit v8, the first flexible version. */
START_TEST(test_offset_commit_v8)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_OFFSET_COMMIT);
    gr_offset_commit_request_t *rq;
    gr_offset_commit_response_t *rs;
    static const uint8_t rq_v8[] = {
        0x02, 'g',              /* GroupId: "g" */
        0x00, 0x00, 0x00, 0x03, /* GenerationIdOrMemberEpoch: 3 */
        0x02, 'm',              /* MemberId: "m" */
        0x00,                   /* GroupInstanceId: null */
        0x02,                   /* Topics: 1 element */
        0x02, 't',              /*   Name: "t" */
        0x03,                   /*   Partitions: 2 elements */
        0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
        0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 42 */
        0x00, 0x00, 0x00, 0x2a, /*  */
        0x00, 0x00, 0x00, 0x02, /*     CommittedLeaderEpoch: 2 */
        0x02, 'x',              /*     CommittedMetadata: "x" */
        0x00,                   /*     tags */
        0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
        0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 7 */
        0x00, 0x00, 0x00, 0x07, /*  */
        0xff, 0xff, 0xff, 0xff, /*     CommittedLeaderEpoch: -1 */
        0x00,                   /*     CommittedMetadata: null */
        0x00,                   /*     tags */
        0x00,                   /*   tags */
        0x00,                   /* tags */
    };
    static const uint8_t rs_v8[] = {
        0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
        0x02,                   /* Topics: 1 element */
        0x02, 't',              /*   Name: "t" */
        0x02,                   /*   Partitions: 1 element */
        0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
        0x00, 0x1b,             /*     ErrorCode: 27 (REBALANCE_IN_PROGRESS) */
        0x00,                   /*     tags */
        0x00,                   /*   tags */
        0x00,                   /* tags */
    };
    gr_offset_commit_request_partition_t *p;

    rq = decode_reencode(&api->request, 8, rq_v8, sizeof rq_v8, a);
    ck_assert(gr_str_eq_cstr(&rq->group_id, "g"));
    ck_assert_int_eq(rq->generation_id_or_member_epoch, 3);
    ck_assert(gr_str_eq_cstr(&rq->member_id, "m"));
    ck_assert_int_eq(rq->group_instance_id.len, -1);
    ck_assert_int_eq(rq->retention_time_ms, -1); /* v2-4 only: default */
    ck_assert_int_eq(rq->topics[0].partitions_cnt, 2);
    p = rq->topics[0].partitions;
    ck_assert_int_eq(p[0].committed_offset, 42);
    ck_assert_int_eq(p[0].committed_leader_epoch, 2);
    ck_assert(gr_str_eq_cstr(&p[0].committed_metadata, "x"));
    ck_assert_int_eq(p[1].committed_offset, 7);
    ck_assert_int_eq(p[1].committed_metadata.len, -1);
    rs = decode_reencode(&api->response, 8, rs_v8, sizeof rs_v8, a);
    ck_assert_int_eq(rs->topics[0].partitions[0].partition_index, 1);
    ck_assert_int_eq(rs->topics[0].partitions[0].error_code, 27);
    gr_arena_destroy(a);
}
END_TEST

/* OffsetFetch v6, the first flexible version: one group, Topics nullable;
 * v8 asks for several groups at once and answers per group. */
START_TEST(test_offset_fetch)
{
    gr_arena_t *a = gr_arena_new(2048);
    const gr_proto_api_t *api = gr_proto_api(GR_API_OFFSET_FETCH);
    gr_offset_fetch_request_t *rq;
    gr_offset_fetch_response_t *rs;
    static const uint8_t rq_v6[] = {
        0x02, 'g',              /* GroupId: "g" */
        0x02,                   /* Topics: COMPACT_NULLABLE_ARRAY, 1 */
        0x02, 't',              /*   Name: "t" */
        0x03,                   /*   PartitionIndexes: 2 INT32 */
        0x00, 0x00, 0x00, 0x00, /*     0 */
        0x00, 0x00, 0x00, 0x01, /*     1 */
        0x00,                   /*   tags */
        0x00,                   /* tags */
    };
    static const uint8_t rs_v6[] = {
        0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
        0x02,                   /* Topics: 1 element */
        0x02, 't',              /*   Name: "t" */
        0x02,                   /*   Partitions: 1 element */
        0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
        0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 42 */
        0x00, 0x00, 0x00, 0x2a, /*  */
        0xff, 0xff, 0xff, 0xff, /*     CommittedLeaderEpoch: -1 */
        0x00,                   /*     Metadata: null */
        0x00, 0x00,             /*     ErrorCode: 0 */
        0x00,                   /*     tags */
        0x00,                   /*   tags */
        0x00, 0x00,             /* ErrorCode: 0 */
        0x00,                   /* tags */
    };
    static const uint8_t rq_v8[] = {
        0x03,                   /* Groups: 2 elements */
        0x03, 'g',  '1',        /*   GroupId: "g1" */
        0x02,                   /*   Topics: 1 element */
        0x02, 't',              /*     Name: "t" */
        0x02,                   /*     PartitionIndexes: 1 INT32 */
        0x00, 0x00, 0x00, 0x03, /*       3 */
        0x00,                   /*     tags */
        0x00,                   /*   tags */
        0x03, 'g',  '2',        /*   GroupId: "g2" */
        0x00,                   /*   Topics: null (all topics) */
        0x00,                   /*   tags */
        0x01,                   /* RequireStable: true */
        0x00,                   /* tags */
    };
    static const uint8_t rs_v8[] = {
        0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
        0x03,                   /* Groups: 2 elements */
        0x03, 'g',  '1',        /*   GroupId: "g1" */
        0x02,                   /*   Topics: 1 element */
        0x02, 't',              /*     Name: "t" */
        0x02,                   /*     Partitions: 1 element */
        0x00, 0x00, 0x00, 0x03, /*       PartitionIndex: 3 */
        0x00, 0x00, 0x00, 0x00, /*       CommittedOffset: 99 */
        0x00, 0x00, 0x00, 0x63, /*  */
        0x00, 0x00, 0x00, 0x04, /*       CommittedLeaderEpoch: 4 */
        0x02, 'm',              /*       Metadata: "m" */
        0x00, 0x00,             /*       ErrorCode: 0 */
        0x00,                   /*       tags */
        0x00,                   /*     tags */
        0x00, 0x00,             /*   ErrorCode: 0 */
        0x00,                   /*   tags */
        0x03, 'g',  '2',        /*   GroupId: "g2" */
        0x01,                   /*   Topics: empty */
        0x00, 0x10,             /*   ErrorCode: 16 (NOT_COORDINATOR) */
        0x00,                   /*   tags */
        0x00,                   /* tags */
    };

    rq = decode_reencode(&api->request, 6, rq_v6, sizeof rq_v6, a);
    ck_assert(gr_str_eq_cstr(&rq->group_id, "g"));
    ck_assert_int_eq(rq->topics_cnt, 1);
    ck_assert_int_eq(rq->topics[0].partition_indexes_cnt, 2);
    ck_assert_int_eq(rq->topics[0].partition_indexes[1], 1);
    ck_assert(!rq->require_stable); /* v7+: default */
    rs = decode_reencode(&api->response, 6, rs_v6, sizeof rs_v6, a);
    ck_assert_int_eq(rs->topics[0].partitions[0].committed_offset, 42);
    ck_assert_int_eq(rs->topics[0].partitions[0].committed_leader_epoch, -1);
    ck_assert_int_eq(rs->topics[0].partitions[0].metadata.len, -1);
    rq = decode_reencode(&api->request, 8, rq_v8, sizeof rq_v8, a);
    ck_assert_int_eq(rq->groups_cnt, 2);
    ck_assert(gr_str_eq_cstr(&rq->groups[0].group_id, "g1"));
    ck_assert_int_eq(rq->groups[0].topics[0].partition_indexes[0], 3);
    ck_assert(gr_str_eq_cstr(&rq->groups[1].group_id, "g2"));
    ck_assert_int_eq(rq->groups[1].topics_cnt, -1);
    ck_assert(rq->require_stable);
    rs = decode_reencode(&api->response, 8, rs_v8, sizeof rs_v8, a);
    ck_assert_int_eq(rs->groups_cnt, 2);
    ck_assert_int_eq(rs->groups[0].topics[0].partitions[0].committed_offset,
                     99);
    ck_assert(
        gr_str_eq_cstr(&rs->groups[0].topics[0].partitions[0].metadata, "m"));
    ck_assert_int_eq(rs->groups[1].topics_cnt, 0);
    ck_assert_int_eq(rs->groups[1].error_code, 16);
    gr_arena_destroy(a);
}
END_TEST

/* CreateTopics v5, the first flexible version: the response gains
 * NumPartitions, ReplicationFactor, Configs and TopicConfigErrorCode (tag 0
 * of each topic). */
START_TEST(test_create_topics_v5)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_CREATE_TOPICS);
    gr_create_topics_request_t *rq;
    gr_create_topics_response_t *rs;
    static const uint8_t rq_v5[] = {
        0x02,                   /* Topics: 1 element */
        0x02, 't',              /*   Name: "t" */
        0xff, 0xff, 0xff, 0xff, /*   NumPartitions: -1 (assignments) */
        0xff, 0xff,             /*   ReplicationFactor: -1 */
        0x02,                   /*   Assignments: 1 element */
        0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
        0x03,                   /*     BrokerIds: 2 INT32 */
        0x00, 0x00, 0x00, 0x01, /*       1 */
        0x00, 0x00, 0x00, 0x02, /*       2 */
        0x00,                   /*     tags */
        0x03,                   /*   Configs: 2 elements */
        0x0f, 'c',  'l',  'e',  /*     Name: "cleanup.policy" */
        'a',  'n',  'u',  'p',  /*  */
        '.',  'p',  'o',  'l',  /*  */
        'i',  'c',  'y',        /*  */
        0x08, 'c',  'o',  'm',  /*     Value: "compact" */
        'p',  'a',  'c',  't',  /*  */
        0x00,                   /*     tags */
        0x03, 'x',  'y',        /*     Name: "xy" */
        0x00,                   /*     Value: null */
        0x00,                   /*     tags */
        0x00,                   /*   tags */
        0x00, 0x00, 0x75, 0x30, /* timeoutMs: 30000 */
        0x01,                   /* validateOnly: true */
        0x00,                   /* tags */
    };
    static const uint8_t rs_v5[] = {
        0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
        0x02,                   /* Topics: 1 element */
        0x02, 't',              /*   Name: "t" */
        0x00, 0x00,             /*   ErrorCode: 0 */
        0x00,                   /*   ErrorMessage: null */
        0x00, 0x00, 0x00, 0x01, /*   NumPartitions: 1 */
        0x00, 0x02,             /*   ReplicationFactor: 2 */
        0x02,                   /*   Configs: 1 element */
        0x0f, 'c',  'l',  'e',  /*     Name: "cleanup.policy" */
        'a',  'n',  'u',  'p',  /*  */
        '.',  'p',  'o',  'l',  /*  */
        'i',  'c',  'y',        /*  */
        0x08, 'c',  'o',  'm',  /*     Value: "compact" */
        'p',  'a',  'c',  't',  /*  */
        0x00,                   /*     ReadOnly: false */
        0x01,                   /*     ConfigSource: 1 (DYNAMIC_TOPIC) */
        0x00,                   /*     IsSensitive: false */
        0x00,                   /*     tags */
        0x01,                   /*   tags: 1 field */
        0x00, 0x02,             /*     tag 0 (TopicConfigErrorCode), 2 */
        0x00, 0x28,             /*     INT16 40 (INVALID_CONFIG) */
        0x00,                   /* tags */
    };
    gr_create_topics_response_creatable_topic_result_t *t;

    rq = decode_reencode(&api->request, 5, rq_v5, sizeof rq_v5, a);
    ck_assert(gr_str_eq_cstr(&rq->topics[0].name, "t"));
    ck_assert_int_eq(rq->topics[0].num_partitions, -1);
    ck_assert_int_eq(rq->topics[0].assignments[0].broker_ids_cnt, 2);
    ck_assert_int_eq(rq->topics[0].assignments[0].broker_ids[1], 2);
    ck_assert_int_eq(rq->topics[0].configs_cnt, 2);
    ck_assert(gr_str_eq_cstr(&rq->topics[0].configs[0].value, "compact"));
    ck_assert_int_eq(rq->topics[0].configs[1].value.len, -1);
    ck_assert_int_eq(rq->timeout_ms, 30000);
    ck_assert(rq->validate_only);
    rs = decode_reencode(&api->response, 5, rs_v5, sizeof rs_v5, a);
    t = &rs->topics[0];
    ck_assert_int_eq(t->error_message.len, -1);
    ck_assert_int_eq(t->num_partitions, 1);
    ck_assert_int_eq(t->replication_factor, 2);
    ck_assert_int_eq(t->configs_cnt, 1);
    ck_assert_int_eq(t->configs[0].config_source, 1);
    ck_assert_int_eq(t->topic_config_error_code, 40);
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_init_producer_id_v2_response)
{
    gr_arena_t *a = gr_arena_new(1024);
    const gr_proto_api_t *api = gr_proto_api(GR_API_INIT_PRODUCER_ID);
    gr_init_producer_id_response_t *rs;
    /* v2 (flexible): the same four fields, then a tag section */
    static const uint8_t v2[] = {
        0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
        0x00, 0x00,             /* ErrorCode: 0 */
        0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
        0x00, 0x00, 0x03, 0xe8, /*  */
        0x00, 0x01,             /* ProducerEpoch: 1 */
        0x00,                   /* tags */
    };
    rs = decode_reencode(&api->response, 2, v2, sizeof v2, a);
    ck_assert_int_eq(rs->error_code, 0);
    ck_assert_int_eq(rs->producer_id, 1000);
    ck_assert_int_eq(rs->producer_epoch, 1);
    gr_arena_destroy(a);
}
END_TEST

/* Golden frames: tests/data/wire/<Api>/v<N>.{req,resp}.bin, request frames
 * with their header (as --dump-frames writes them), responses with theirs. */
static int
golden_one(const char *path, const gr_proto_api_t *api, int16_t ver,
           int is_req)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;
    gr_arena_t *a;
    gr_reader_t r;
    int bad = 0;
    if (f == NULL)
        return 1;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        bad = 1;
    fclose(f);
    a = gr_arena_new(4096);
    r = gr_reader_init(buf, (size_t)n);
    if (!bad && is_req) {
        gr_req_header_t h;
        if (gr_req_header_decode(&r, &h) != 0 || h.api_key != api->key ||
            h.api_version != ver)
            bad = 1;
    } else if (!bad) {
        int hv = gr_proto_resp_header_version(api->key, ver);
        gr_rd_i32(&r);
        if (hv >= 1)
            gr_rd_skip_tags(&r);
    }
    if (!bad) {
        const gr_proto_ops_t *ops = is_req ? &api->request : &api->response;
        void *m = gr_arena_zalloc(a, ops->struct_size);
        size_t body = gr_reader_remaining(&r);
        const uint8_t *start = r.p;
        if (ops->decode(&r, ver, a, m) != 0 || gr_reader_remaining(&r) != 0) {
            bad = 1;
        } else {
            uint8_t *out = gr_arena_alloc(a, body + 1);
            gr_writer_t w = gr_writer_init(out, body, a);
            ops->encode(&w, m, ver);
            if (w.err || ops->size(m, ver) != body ||
                memcmp(out, start, body) != 0)
                bad = 1;
        }
    }
    if (bad)
        fprintf(stderr, "golden frame %s does not round-trip\n", path);
    gr_arena_destroy(a);
    free(buf);
    return bad;
}

START_TEST(test_golden_frames)
{
    char dir[1024];
    const gr_proto_api_t *api;
    int files = 0, bad = 0;
    for (int i = 0; (api = gr_proto_api_at(i)) != NULL; i++) {
        DIR *d;
        struct dirent *de;
        snprintf(dir, sizeof dir, "%s/wire/%s", GR_TEST_DATA, api->name);
        d = opendir(dir);
        if (d == NULL)
            continue;
        while ((de = readdir(d)) != NULL) {
            int v, is_req;
            char path[2048];
            size_t len = strlen(de->d_name);
            /* v<N>.req.bin, v<N>.resp.bin, or v<N>.<source>.req.bin */
            if (sscanf(de->d_name, "v%d.", &v) != 1)
                continue;
            if (len > 8 && strcmp(de->d_name + len - 8, ".req.bin") == 0)
                is_req = 1;
            else if (len > 9 && strcmp(de->d_name + len - 9, ".resp.bin") == 0)
                is_req = 0;
            else
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            bad += golden_one(path, api, (int16_t)v, is_req);
            files++;
        }
        closedir(d);
    }
    ck_assert_int_eq(bad, 0);
    /* the set only grows: a lost directory must not pass silently */
    ck_assert_int_ge(files, GR_GOLDEN_MIN);
}
END_TEST

Suite *
suite_proto_vectors(void)
{
    Suite *s = suite_create("proto/vectors");
    TCase *tc = tcase_create("vectors");
    tcase_add_test(tc, test_api_versions_request);
    tcase_add_test(tc, test_api_versions_response);
    tcase_add_test(tc, test_metadata_request);
    tcase_add_test(tc, test_init_producer_id_request);
    tcase_add_test(tc, test_init_producer_id_v2_response);
    tcase_add_test(tc, test_produce_v3_request);
    tcase_add_test(tc, test_produce_v9);
    tcase_add_test(tc, test_fetch_v12);
    tcase_add_test(tc, test_fetch_v13);
    tcase_add_test(tc, test_find_coordinator);
    tcase_add_test(tc, test_join_group_v6);
    tcase_add_test(tc, test_offset_commit_v8);
    tcase_add_test(tc, test_offset_fetch);
    tcase_add_test(tc, test_create_topics_v5);
    tcase_add_test(tc, test_golden_frames);
    suite_add_tcase(s, tc);
    return s;
}
