/*
 * Generated codecs against independent bytes, part 2: a hand-written vector
 * for every (message, direction, version) at which Kafka's wire shape
 * changes and that check_vectors.c or a golden frame under tests/data/wire/
 * does not already cover, and for every version of each data type (the
 * consumer protocol, the __consumer_offsets and __transaction_state records,
 * the producer snapshot).
 *
 * COVERAGE
 * --------
 * Every (message, direction) of every schema in protocol/, with the versions
 * at which its wire shape changes according to Kafka's message definitions
 * (its lowest valid version; then each version where a field appears,
 * disappears, changes type, nullability or taggedness, and the first flexible
 * version, marked f), and for data types every version. Each is followed by
 * where an independent encoding of it is checked:
 *   V  a vector in this file
 *   T  a vector in check_vectors3.c (shapes served after this file was
 *      written)
 *   H  a hand-written vector in check_vectors.c
 *   G  a golden frame in tests/data/wire/ (kafka-python 2.0.2 or captured
 *      client traffic), decoded and re-encoded by check_vectors.c
 * Versions between two listed ones have the shape of the lower one.
 *
 *   AddOffsetsToTxn              rq 0V 3fV
 *   AddOffsetsToTxn              rs 0V 3fV
 *   AddPartitionsToTxn           rq 0V 3fV 4V
 *   AddPartitionsToTxn           rs 0V 3fV 4V
 *   AlterClientQuotas            rq 0V 1fV
 *   AlterClientQuotas            rs 0V 1fV
 *   AlterConfigs                 rq 0G 2fV
 *   AlterConfigs                 rs 0G 2fV
 *   AlterPartitionReassignments  rq 0fV
 *   AlterPartitionReassignments  rs 0fV
 *   AlterReplicaLogDirs          rq 0V 2fV
 *   AlterReplicaLogDirs          rs 0V 2fV
 *   AlterUserScramCredentials    rq 0fV
 *   AlterUserScramCredentials    rs 0fV
 *   ApiVersions                  rq 0HG 3fHG 5T
 *   ApiVersions                  rs 0HG 1HG 3fVH
 *   ConsumerGroupCurrentMemberAssignmentKey    8T
 *   ConsumerGroupCurrentMemberAssignmentValue  0fT
 *   ConsumerGroupDescribe        rq 0fT
 *   ConsumerGroupDescribe        rs 0fT 1T
 *   ConsumerGroupHeartbeat       rq 0fT 1T
 *   ConsumerGroupHeartbeat       rs 0fT
 *   ConsumerGroupMemberMetadataKey             5T
 *   ConsumerGroupMemberMetadataValue           0fT
 *   ConsumerGroupMetadataKey                   3T
 *   ConsumerGroupMetadataValue                 0fT
 *   ConsumerGroupPartitionMetadataKey          4T
 *   ConsumerGroupRegularExpressionKey          16T
 *   ConsumerGroupRegularExpressionValue        0fT
 *   ConsumerGroupTargetAssignmentMemberKey     7T
 *   ConsumerGroupTargetAssignmentMemberValue   0fT
 *   ConsumerGroupTargetAssignmentMetadataKey   6T
 *   ConsumerGroupTargetAssignmentMetadataValue 0fT
 *   ConsumerProtocolAssignment      0V 1V 2V 3V
 *   ConsumerProtocolSubscription    0V 1V 2V 3V
 *   CreateAcls                   rq 0G 1G 2fV
 *   CreateAcls                   rs 0G 2fV
 *   CreatePartitions             rq 0G 2fV
 *   CreatePartitions             rs 0G 2fV
 *   CreateTopics                 rq 0G 1G 5fH
 *   CreateTopics                 rs 0G 1G 2G 5fH 7V
 *   DeleteAcls                   rq 0G 1G 2fV
 *   DeleteAcls                   rs 0G 1G 2fV
 *   DeleteGroups                 rq 0G 2fV
 *   DeleteGroups                 rs 0G 2fV 3T
 *   DeleteRecords                rq 0V 2fV
 *   DeleteRecords                rs 0V 2fV
 *   DeleteTopics                 rq 0G 4fV 6V
 *   DeleteTopics                 rs 0G 1G 4fV 5V 6V
 *   DescribeAcls                 rq 0G 1G 2fV
 *   DescribeAcls                 rs 0G 1G 2fV
 *   DescribeClientQuotas         rq 0V 1fV
 *   DescribeClientQuotas         rs 0V 1fV
 *   DescribeCluster              rq 0fV 1V 2T
 *   DescribeCluster              rs 0fV 1V 2T
 *   DescribeConfigs              rq 0G 1G 3V 4fV
 *   DescribeConfigs              rs 0G 1G 3V 4fV
 *   DescribeGroups               rq 0G 3G 5fV
 *   DescribeGroups               rs 0G 1G 3V 4V 5fV 6T
 *   DescribeLogDirs              rq 0V 2fV
 *   DescribeLogDirs              rs 0V 2fV 3V 4V 5T
 *   DescribeProducers            rq 0fV
 *   DescribeProducers            rs 0fV
 *   DescribeTopicPartitions      rq 0fT
 *   DescribeTopicPartitions      rs 0fT
 *   DescribeTransactions         rq 0fV
 *   DescribeTransactions         rs 0fV
 *   DescribeUserScramCredentials rq 0fV
 *   DescribeUserScramCredentials rs 0fV
 *   ElectLeaders                 rq 0V 1V 2fV
 *   ElectLeaders                 rs 0V 1V 2fV
 *   EndTxn                       rq 0V 3fV
 *   EndTxn                       rs 0V 3fV 5V
 *   Fetch                        rq 0G 3G 4G 5G 7G 9G 11G 12fH 13H 15V 17V
 *                                   18T
 *   Fetch                        rs 0G 1G 4G 5G 7G 11G 12fH 13H 16V
 *   FindCoordinator              rq 0G 1G 3fH 4H
 *   FindCoordinator              rs 0G 1V 3fH 4H
 *   GetTelemetrySubscriptions    rq 0fT
 *   GetTelemetrySubscriptions    rs 0fT
 *   GroupMetadataKey                2V
 *   GroupMetadataValue              0V 1V 2V 3V 4fV
 *   Heartbeat                    rq 0G 3V 4fV
 *   Heartbeat                    rs 0G 1G 4fV
 *   IncrementalAlterConfigs      rq 0V 1fV
 *   IncrementalAlterConfigs      rs 0V 1fV
 *   InitProducerId               rq 0H 2fH 3H
 *   InitProducerId               rs 0V 2fH
 *   JoinGroup                    rq 0G 1G 5V 6fH 8V
 *   JoinGroup                    rs 0G 2G 5V 6fH 7V 9V
 *   LeaveGroup                   rq 0G 3V 4fV 5V
 *   LeaveGroup                   rs 0G 1G 3V 4fV
 *   ListConfigResources          rq 0fT 1T
 *   ListConfigResources          rs 0fT 1T
 *   ListGroups                   rq 0G 3fV 4V 5V
 *   ListGroups                   rs 0G 1G 3fV 4V 5V
 *   ListOffsets                  rq 0G 1G 2G 4V 6fV 10V
 *   ListOffsets                  rs 0G 1G 2G 4G 6fV
 *   ListPartitionReassignments   rq 0fV
 *   ListPartitionReassignments   rs 0fV
 *   ListTransactions             rq 0fV 1V 2T
 *   ListTransactions             rs 0fV
 *   Metadata                     rq 0HG 1HG 4HG 8H 9fH 10H 11H
 *   Metadata                     rs 0G 1G 2G 3G 5G 7V 8V 9fV 10V 11V 12V
 *                                   13T
 *   OffsetCommit                 rq 0G 1G 2G 5V 6V 7V 8fH 10T
 *   OffsetCommit                 rs 0G 3G 8fH 10T
 *   OffsetCommitKey                 0V 1V
 *   OffsetCommitValue               0V 1V 2V 3V 4fV
 *   OffsetDelete                 rq 0V
 *   OffsetDelete                 rs 0V
 *   OffsetFetch                  rq 0G 2G 6fH 7V 8H 9V 10T
 *   OffsetFetch                  rs 0G 2G 3G 5V 6fH 8H 10T
 *   OffsetForLeaderEpoch         rq 0V 2V 3V 4fV
 *   OffsetForLeaderEpoch         rs 0V 1V 2V 4fV
 *   Produce                      rq 0G 3HG 9fH 13T
 *   Produce                      rs 0G 1G 2G 5G 8V 9fH 10V 13T
 *   ProducerSnapshot                1V
 *   PushTelemetry                rq 0fT
 *   PushTelemetry                rs 0fT
 *   SaslAuthenticate             rq 0G 2fV
 *   SaslAuthenticate             rs 0G 1G 2fV
 *   SaslHandshake                rq 0G
 *   SaslHandshake                rs 0G
 *   SyncGroup                    rq 0G 3V 4fV 5V
 *   SyncGroup                    rs 0G 1G 4fV 5V
 *   TransactionLogKey               0V
 *   TransactionLogValue             0V 1fV
 *   TxnOffsetCommit              rq 0V 2V 3fV 6T
 *   TxnOffsetCommit              rs 0V 3fV 6T
 *   WriteTxnMarkers              rq 0V 1fV 2T
 *   WriteTxnMarkers              rs 0V 1fV
 *
 * TxnOffsetCommit v4 and v5 have v3's shape (v4 only allows a new error,
 * TRANSACTION_ABORTABLE; v5 only changes what the request does under
 * transaction version 2); T also has v5 vectors, with Name, next to v6's
 * with TopicId.
 *
 * Tagged fields, present and absent: Fetch request ClusterId (H v12; absent
 * v13, v17) and ReplicaState (V v15, T v18; absent v17), ReplicaDirectoryId
 * (V v17, present in one partition, absent in the other) and HighWatermark
 * (T v18, with ReplicaDirectoryId, alone, absent); Fetch response
 * DivergingEpoch and CurrentLeader (H v12), SnapshotId and NodeEndpoints (V
 * v16; all absent in v16_untagged and H v13); Produce response CurrentLeader
 * and NodeEndpoints (V v10; absent v10_untagged); CreateTopics response
 * TopicConfigErrorCode (H v5; absent V v7); ApiVersions response tags 0-3 (V
 * v3_tagged; only tag 1 in H v3); TransactionLogValue tags 0-2 (V v1; absent
 * v1_untagged).
 *
 * Not covered here: unknown tagged fields (the decoder skips them, see
 * check_wire.c test_tags_skipped, and the encoder does not keep them, so they
 * cannot round-trip); request and response headers (check_wire.c, golden
 * frames); record batches inside records fields (opaque to these codecs;
 * check_records.c). The golden frames that kafka-python gets wrong
 * (tests/data/wire/README) are absent, and the shape changes they would have
 * covered have vectors here (Produce v8, FindCoordinator v1 and DescribeGroups
 * v3 responses, ListOffsets v4 request). test_every_schema_has_vectors fails
 * when a schema or a data type version arrives without vectors (in this
 * file or in check_vectors3.c).
 *
 * Each vector below was written from Kafka's message definitions (field
 * order, types, versions, nullability, tags), one comment per field, never
 * produced by our encoder. The test decodes it with the generated codec at
 * its version (into a struct first filled with garbage, so that fields
 * absent at that version must come out as their schema default), requires
 * every byte consumed, checks field values, and re-encodes it to identical
 * bytes. Flexible versions end every struct with a tag section; "tags: none"
 * is the empty section (0x00).
 */
#include "../unit.h"
#include "proto/gen/proto_table.h"
#include "proto/proto.h"

#include <stdio.h>
#include <string.h>

typedef void (*check_fn)(const void *m);

typedef struct vec {
    const char *id;   /* the array's name, for failure messages */
    int key;          /* API key; -1 for a data type */
    const char *data; /* data type name when key is -1 */
    int response;     /* 0: request, 1: response */
    int16_t ver;
    const uint8_t *b;
    size_t n;
    check_fn check;
} vec_t;

/* CHECK(id, type) { ... } defines check_<id>(), which receives the decoded
 * message of vector <id> as a const type *m. */
#define CHECK(id, T)                      \
    static void check2_##id(const T *m);  \
    static void check_##id(const void *p) \
    {                                     \
        check2_##id(p);                   \
    }                                     \
    static void check2_##id(const T *m)

#define CK_INT(x, v)   ck_assert_int_eq((x), (v))
#define CK_STR(s, lit) ck_assert(gr_str_eq_cstr(&(s), (lit)))
#define CK_NULL(s)     ck_assert_int_eq((s).len, -1)

/* ---- AddOffsetsToTxn (25): v0, v3 first flexible ---- */

static const uint8_t add_offsets_to_txn_rq_v0[] = {
    0x00, 0x02, 't',  'x',  /* TransactionalId: STRING "tx" */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: INT64 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x03,             /* ProducerEpoch: INT16 3 */
    0x00, 0x01, 'g',        /* GroupId: STRING "g" */
};
CHECK(add_offsets_to_txn_rq_v0, gr_add_offsets_to_txn_request_t)
{
    CK_STR(m->transactional_id, "tx");
    CK_INT(m->producer_id, 1000);
    CK_INT(m->producer_epoch, 3);
    CK_STR(m->group_id, "g");
}

static const uint8_t add_offsets_to_txn_rq_v3[] = {
    0x03, 't',  'x',        /* TransactionalId: COMPACT_STRING "tx" */
    0x7f, 0xff, 0xff, 0xff, /* ProducerId: INT64 INT64_MAX */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x7f, 0xff,             /* ProducerEpoch: INT16 32767 */
    0x04, 'g',  'r',  'p',  /* GroupId: COMPACT_STRING "grp" */
    0x00,                   /* tags: none */
};
CHECK(add_offsets_to_txn_rq_v3, gr_add_offsets_to_txn_request_t)
{
    CK_STR(m->transactional_id, "tx");
    CK_INT(m->producer_id, INT64_MAX);
    CK_INT(m->producer_epoch, 32767);
    CK_STR(m->group_id, "grp");
}

static const uint8_t add_offsets_to_txn_rs_v0[] = {
    0x00, 0x00, 0x00, 0x64, /* ThrottleTimeMs: 100 */
    0x00, 0x2f,             /* ErrorCode: 47 (INVALID_PRODUCER_EPOCH) */
};
CHECK(add_offsets_to_txn_rs_v0, gr_add_offsets_to_txn_response_t)
{
    CK_INT(m->throttle_time_ms, 100);
    CK_INT(m->error_code, 47);
}

static const uint8_t add_offsets_to_txn_rs_v3[] = {
    0x00, 0x00, 0x01, 0x00, /* ThrottleTimeMs: 256 */
    0x00, 0x35,             /* ErrorCode: 53 (TRANSACTIONAL_ID_AUTH...) */
    0x00,                   /* tags: none */
};
CHECK(add_offsets_to_txn_rs_v3, gr_add_offsets_to_txn_response_t)
{
    CK_INT(m->throttle_time_ms, 256);
    CK_INT(m->error_code, 53);
}

/* ---- AddPartitionsToTxn (24): v0, v3 first flexible, v4 batches
 * transactions (the v3-and-below fields go away) ---- */

static const uint8_t add_partitions_to_txn_rq_v0[] = {
    0x00, 0x02, 't',  'x',  /* V3AndBelowTransactionalId: "tx" */
    0x00, 0x00, 0x00, 0x00, /* V3AndBelowProducerId: INT64 5 */
    0x00, 0x00, 0x00, 0x05, /*  */
    0x00, 0x00,             /* V3AndBelowProducerEpoch: 0 */
    0x00, 0x00, 0x00, 0x01, /* V3AndBelowTopics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x02, /*   Partitions: ARRAY of INT32, 2 */
    0x00, 0x00, 0x00, 0x00, /*     0 */
    0x00, 0x00, 0x00, 0x01, /*     1 */
};
CHECK(add_partitions_to_txn_rq_v0, gr_add_partitions_to_txn_request_t)
{
    CK_STR(m->v3_and_below_transactional_id, "tx");
    CK_INT(m->v3_and_below_producer_id, 5);
    CK_INT(m->v3_and_below_producer_epoch, 0);
    CK_INT(m->v3_and_below_topics_cnt, 1);
    CK_STR(m->v3_and_below_topics[0].name, "t");
    CK_INT(m->v3_and_below_topics[0].partitions_cnt, 2);
    CK_INT(m->v3_and_below_topics[0].partitions[1], 1);
    CK_INT(m->transactions_cnt, 0); /* 4+: default, empty */
}

static const uint8_t add_partitions_to_txn_rq_v3[] = {
    0x03, 't',  'x',        /* V3AndBelowTransactionalId: COMPACT "tx" */
    0x00, 0x00, 0x00, 0x00, /* V3AndBelowProducerId: INT64 5 */
    0x00, 0x00, 0x00, 0x05, /*  */
    0x00, 0x01,             /* V3AndBelowProducerEpoch: 1 */
    0x03,                   /* V3AndBelowTopics: COMPACT_ARRAY, 2 */
    0x02, 'a',              /*   Name: "a" */
    0x02,                   /*   Partitions: COMPACT_ARRAY, 1 INT32 */
    0x00, 0x00, 0x00, 0x07, /*     7 */
    0x00,                   /*   tags: none */
    0x02, 'b',              /*   Name: "b" */
    0x01,                   /*   Partitions: empty */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(add_partitions_to_txn_rq_v3, gr_add_partitions_to_txn_request_t)
{
    CK_STR(m->v3_and_below_transactional_id, "tx");
    CK_INT(m->v3_and_below_producer_epoch, 1);
    CK_INT(m->v3_and_below_topics_cnt, 2);
    CK_INT(m->v3_and_below_topics[0].partitions[0], 7);
    CK_STR(m->v3_and_below_topics[1].name, "b");
    CK_INT(m->v3_and_below_topics[1].partitions_cnt, 0);
    CK_INT(m->transactions_cnt, 0);
}

static const uint8_t add_partitions_to_txn_rq_v4[] = {
    0x02,                   /* Transactions: COMPACT_ARRAY, 1 element */
    0x02, 'a',              /*   TransactionalId: "a" */
    0x00, 0x00, 0x00, 0x00, /*   ProducerId: INT64 7 */
    0x00, 0x00, 0x00, 0x07, /*  */
    0x00, 0x02,             /*   ProducerEpoch: 2 */
    0x01,                   /*   VerifyOnly: true */
    0x02,                   /*   Topics: 1 element */
    0x02, 't',              /*     Name: "t" */
    0x02,                   /*     Partitions: 1 INT32 */
    0x00, 0x00, 0x00, 0x03, /*       3 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(add_partitions_to_txn_rq_v4, gr_add_partitions_to_txn_request_t)
{
    CK_INT(m->transactions_cnt, 1);
    CK_STR(m->transactions[0].transactional_id, "a");
    CK_INT(m->transactions[0].producer_id, 7);
    CK_INT(m->transactions[0].producer_epoch, 2);
    ck_assert(m->transactions[0].verify_only);
    CK_INT(m->transactions[0].topics[0].partitions[0], 3);
    /* 0-3 only: defaults */
    CK_INT(m->v3_and_below_transactional_id.len, 0);
    CK_INT(m->v3_and_below_producer_id, 0);
    CK_INT(m->v3_and_below_topics_cnt, 0);
}

static const uint8_t add_partitions_to_txn_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* ResultsByTopicV3AndBelow: ARRAY, 1 */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x02, /*   ResultsByPartition: ARRAY, 2 */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00,             /*     PartitionErrorCode: 0 */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00, 0x03,             /*     PartitionErrorCode: 3 */
};
CHECK(add_partitions_to_txn_rs_v0, gr_add_partitions_to_txn_response_t)
{
    CK_INT(m->throttle_time_ms, 0);
    CK_INT(m->results_by_topic_v3_and_below_cnt, 1);
    CK_STR(m->results_by_topic_v3_and_below[0].name, "t");
    CK_INT(m->results_by_topic_v3_and_below[0].results_by_partition_cnt, 2);
    CK_INT(m->results_by_topic_v3_and_below[0]
               .results_by_partition[1]
               .partition_error_code,
           3);
    CK_INT(m->error_code, 0); /* 4+: default */
    CK_INT(m->results_by_transaction_cnt, 0);
}

static const uint8_t add_partitions_to_txn_rs_v3[] = {
    0x00, 0x00, 0x00, 0x05, /* ThrottleTimeMs: 5 */
    0x02,                   /* ResultsByTopicV3AndBelow: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   ResultsByPartition: 1 element */
    0x00, 0x00, 0x00, 0x04, /*     PartitionIndex: 4 */
    0x00, 0x30,             /*     PartitionErrorCode: 48 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(add_partitions_to_txn_rs_v3, gr_add_partitions_to_txn_response_t)
{
    CK_INT(m->throttle_time_ms, 5);
    CK_INT(m->results_by_topic_v3_and_below[0]
               .results_by_partition[0]
               .partition_index,
           4);
    CK_INT(m->results_by_topic_v3_and_below[0]
               .results_by_partition[0]
               .partition_error_code,
           48);
    CK_INT(m->results_by_transaction_cnt, 0);
}

static const uint8_t add_partitions_to_txn_rs_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x02,                   /* ResultsByTransaction: 1 element */
    0x02, 'a',              /*   TransactionalId: "a" */
    0x02,                   /*   TopicResults: 1 element */
    0x02, 't',              /*     Name: "t" */
    0x02,                   /*     ResultsByPartition: 1 element */
    0x00, 0x00, 0x00, 0x03, /*       PartitionIndex: 3 */
    0x00, 0x31,             /*       PartitionErrorCode: 49 */
    0x00,                   /*       tags: none */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(add_partitions_to_txn_rs_v4, gr_add_partitions_to_txn_response_t)
{
    CK_INT(m->error_code, 0);
    CK_INT(m->results_by_transaction_cnt, 1);
    CK_STR(m->results_by_transaction[0].transactional_id, "a");
    CK_STR(m->results_by_transaction[0].topic_results[0].name, "t");
    CK_INT(m->results_by_transaction[0]
               .topic_results[0]
               .results_by_partition[0]
               .partition_error_code,
           49);
    CK_INT(m->results_by_topic_v3_and_below_cnt, 0); /* 0-3 only */
}

/* ---- AlterClientQuotas (49): v0, v1 first flexible ---- */

static const uint8_t alter_client_quotas_rq_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* Entries: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x02, /*   Entity: ARRAY, 2 elements */
    0x00, 0x04, 'u',  's',  /*     EntityType: "user" */
    'e',  'r',              /*  */
    0x00, 0x01, 'u',        /*     EntityName: "u" */
    0x00, 0x09, 'c',  'l',  /*     EntityType: "client-id" */
    'i',  'e',  'n',  't',  /*  */
    '-',  'i',  'd',        /*  */
    0xff, 0xff,             /*     EntityName: null (the default) */
    0x00, 0x00, 0x00, 0x01, /*   Ops: ARRAY, 1 element */
    0x00, 0x01, 'k',        /*     Key: "k" */
    0x3f, 0xf8, 0x00, 0x00, /*     Value: FLOAT64 1.5 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00,                   /*     Remove: false */
    0x01,                   /* ValidateOnly: true */
};
CHECK(alter_client_quotas_rq_v0, gr_alter_client_quotas_request_t)
{
    CK_INT(m->entries_cnt, 1);
    CK_INT(m->entries[0].entity_cnt, 2);
    CK_STR(m->entries[0].entity[0].entity_type, "user");
    CK_STR(m->entries[0].entity[0].entity_name, "u");
    CK_STR(m->entries[0].entity[1].entity_type, "client-id");
    CK_NULL(m->entries[0].entity[1].entity_name);
    CK_STR(m->entries[0].ops[0].key, "k");
    ck_assert(m->entries[0].ops[0].value == 1.5);
    ck_assert(!m->entries[0].ops[0].remove);
    ck_assert(m->validate_only);
}

static const uint8_t alter_client_quotas_rq_v1[] = {
    0x02,                   /* Entries: COMPACT_ARRAY, 1 element */
    0x02,                   /*   Entity: 1 element */
    0x05, 'u',  's',  'e',  /*     EntityType: "user" */
    'r',                    /*  */
    0x00,                   /*     EntityName: null */
    0x00,                   /*     tags: none */
    0x03,                   /*   Ops: 2 elements */
    0x02, 'a',              /*     Key: "a" */
    0x40, 0x90, 0x00, 0x00, /*     Value: FLOAT64 1024.0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00,                   /*     Remove: false */
    0x00,                   /*     tags: none */
    0x02, 'b',              /*     Key: "b" */
    0x00, 0x00, 0x00, 0x00, /*     Value: FLOAT64 0.0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x01,                   /*     Remove: true */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* ValidateOnly: false */
    0x00,                   /* tags: none */
};
CHECK(alter_client_quotas_rq_v1, gr_alter_client_quotas_request_t)
{
    CK_STR(m->entries[0].entity[0].entity_type, "user");
    CK_NULL(m->entries[0].entity[0].entity_name);
    CK_INT(m->entries[0].ops_cnt, 2);
    ck_assert(m->entries[0].ops[0].value == 1024.0);
    ck_assert(m->entries[0].ops[1].remove);
    ck_assert(!m->validate_only);
}

static const uint8_t alter_client_quotas_rs_v0[] = {
    0x00, 0x00, 0x00, 0x0a, /* ThrottleTimeMs: 10 */
    0x00, 0x00, 0x00, 0x01, /* Entries: ARRAY, 1 element */
    0x00, 0x2a,             /*   ErrorCode: 42 (INVALID_REQUEST) */
    0x00, 0x02, 'n',  'o',  /*   ErrorMessage: "no" */
    0x00, 0x00, 0x00, 0x01, /*   Entity: ARRAY, 1 element */
    0x00, 0x04, 'u',  's',  /*     EntityType: "user" */
    'e',  'r',              /*  */
    0xff, 0xff,             /*     EntityName: null */
};
CHECK(alter_client_quotas_rs_v0, gr_alter_client_quotas_response_t)
{
    CK_INT(m->throttle_time_ms, 10);
    CK_INT(m->entries[0].error_code, 42);
    CK_STR(m->entries[0].error_message, "no");
    CK_STR(m->entries[0].entity[0].entity_type, "user");
    CK_NULL(m->entries[0].entity[0].entity_name);
}

static const uint8_t alter_client_quotas_rs_v1[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Entries: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
    0x02,                   /*   Entity: 1 element */
    0x05, 'u',  's',  'e',  /*     EntityType: "user" */
    'r',                    /*  */
    0x02, 'u',              /*     EntityName: "u" */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(alter_client_quotas_rs_v1, gr_alter_client_quotas_response_t)
{
    CK_INT(m->entries_cnt, 1);
    CK_INT(m->entries[0].error_code, 0);
    CK_NULL(m->entries[0].error_message);
    CK_STR(m->entries[0].entity[0].entity_name, "u");
}

/* ---- AlterConfigs (33): v0-v1 in golden frames; v2 first flexible ---- */

static const uint8_t alter_configs_rq_v2[] = {
    0x02,                /* Resources: 1 element */
    0x02,                /*   ResourceType: 2 (TOPIC) */
    0x02, 't',           /*   ResourceName: "t" */
    0x03,                /*   Configs: 2 elements */
    0x0d, 'r', 'e', 't', /*     Name: "retention.ms" (12) */
    'e',  'n', 't', 'i', /*  */
    'o',  'n', '.', 'm', /*  */
    's',                 /*  */
    0x03, '6', '0',      /*     Value: "60" */
    0x00,                /*     tags: none */
    0x02, 'x',           /*     Name: "x" */
    0x00,                /*     Value: null */
    0x00,                /*     tags: none */
    0x00,                /*   tags: none */
    0x01,                /* ValidateOnly: true */
    0x00,                /* tags: none */
};
CHECK(alter_configs_rq_v2, gr_alter_configs_request_t)
{
    CK_INT(m->resources[0].resource_type, 2);
    CK_STR(m->resources[0].resource_name, "t");
    CK_INT(m->resources[0].configs_cnt, 2);
    CK_STR(m->resources[0].configs[0].name, "retention.ms");
    CK_STR(m->resources[0].configs[0].value, "60");
    CK_NULL(m->resources[0].configs[1].value);
    ck_assert(m->validate_only);
}

static const uint8_t alter_configs_rs_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Responses: 1 element */
    0x00, 0x28,             /*   ErrorCode: 40 (INVALID_CONFIG) */
    0x04, 'b',  'a',  'd',  /*   ErrorMessage: "bad" */
    0x02,                   /*   ResourceType: 2 */
    0x02, 't',              /*   ResourceName: "t" */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(alter_configs_rs_v2, gr_alter_configs_response_t)
{
    CK_INT(m->responses_cnt, 1);
    CK_INT(m->responses[0].error_code, 40);
    CK_STR(m->responses[0].error_message, "bad");
    CK_INT(m->responses[0].resource_type, 2);
    CK_STR(m->responses[0].resource_name, "t");
}

/* ---- AlterPartitionReassignments (45): v0 only, flexible ---- */

static const uint8_t alter_partition_reassignments_rq_v0[] = {
    0x00, 0x00, 0x75, 0x30, /* TimeoutMs: 30000 */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x03,                   /*   Partitions: 2 elements */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x03,                   /*     Replicas: COMPACT_NULLABLE_ARRAY, 2 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x00, 0x00, 0x00, 0x02, /*       2 */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00,                   /*     Replicas: null (cancel) */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(alter_partition_reassignments_rq_v0,
      gr_alter_partition_reassignments_request_t)
{
    CK_INT(m->timeout_ms, 30000);
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].partitions_cnt, 2);
    CK_INT(m->topics[0].partitions[0].replicas_cnt, 2);
    CK_INT(m->topics[0].partitions[0].replicas[1], 2);
    CK_INT(m->topics[0].partitions[1].partition_index, 1);
    CK_INT(m->topics[0].partitions[1].replicas_cnt, -1);
}

static const uint8_t alter_partition_reassignments_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00,                   /* ErrorMessage: null */
    0x02,                   /* Responses: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00, 0x55,             /*     ErrorCode: 85 (NO_REASSIGNMENT_...) */
    0x02, 'x',              /*     ErrorMessage: "x" */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(alter_partition_reassignments_rs_v0,
      gr_alter_partition_reassignments_response_t)
{
    CK_INT(m->error_code, 0);
    CK_NULL(m->error_message);
    CK_STR(m->responses[0].name, "t");
    CK_INT(m->responses[0].partitions[0].partition_index, 1);
    CK_INT(m->responses[0].partitions[0].error_code, 85);
    CK_STR(m->responses[0].partitions[0].error_message, "x");
}

/* ---- AlterReplicaLogDirs (34): v0, v2 first flexible ---- */

static const uint8_t alter_replica_log_dirs_rq_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* Dirs: ARRAY, 1 element */
    0x00, 0x04, '/',  'd',  /*   Path: "/d/1" */
    '/',  '1',              /*  */
    0x00, 0x00, 0x00, 0x01, /*   Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*     Name: "t" */
    0x00, 0x00, 0x00, 0x02, /*     Partitions: ARRAY of INT32, 2 */
    0x00, 0x00, 0x00, 0x00, /*       0 */
    0x00, 0x00, 0x00, 0x05, /*       5 */
};
CHECK(alter_replica_log_dirs_rq_v0, gr_alter_replica_log_dirs_request_t)
{
    CK_INT(m->dirs_cnt, 1);
    CK_STR(m->dirs[0].path, "/d/1");
    CK_STR(m->dirs[0].topics[0].name, "t");
    CK_INT(m->dirs[0].topics[0].partitions_cnt, 2);
    CK_INT(m->dirs[0].topics[0].partitions[1], 5);
}

static const uint8_t alter_replica_log_dirs_rq_v2[] = {
    0x02,                   /* Dirs: 1 element */
    0x03, '/',  'd',        /*   Path: "/d" */
    0x02,                   /*   Topics: 1 element */
    0x02, 't',              /*     Name: "t" */
    0x02,                   /*     Partitions: 1 INT32 */
    0x00, 0x00, 0x00, 0x09, /*       9 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(alter_replica_log_dirs_rq_v2, gr_alter_replica_log_dirs_request_t)
{
    CK_STR(m->dirs[0].path, "/d");
    CK_STR(m->dirs[0].topics[0].name, "t");
    CK_INT(m->dirs[0].topics[0].partitions_cnt, 1);
    CK_INT(m->dirs[0].topics[0].partitions[0], 9);
}

static const uint8_t alter_replica_log_dirs_rs_v0[] = {
    0x00, 0x00, 0x00, 0x07, /* ThrottleTimeMs: 7 */
    0x00, 0x00, 0x00, 0x01, /* Results: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   TopicName: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x05, /*     PartitionIndex: 5 */
    0x00, 0x39,             /*     ErrorCode: 57 (LOG_DIR_NOT_FOUND) */
};
CHECK(alter_replica_log_dirs_rs_v0, gr_alter_replica_log_dirs_response_t)
{
    CK_INT(m->throttle_time_ms, 7);
    CK_STR(m->results[0].topic_name, "t");
    CK_INT(m->results[0].partitions[0].partition_index, 5);
    CK_INT(m->results[0].partitions[0].error_code, 57);
}

static const uint8_t alter_replica_log_dirs_rs_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Results: 1 element */
    0x02, 't',              /*   TopicName: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x09, /*     PartitionIndex: 9 */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(alter_replica_log_dirs_rs_v2, gr_alter_replica_log_dirs_response_t)
{
    CK_INT(m->results_cnt, 1);
    CK_STR(m->results[0].topic_name, "t");
    CK_INT(m->results[0].partitions[0].partition_index, 9);
    CK_INT(m->results[0].partitions[0].error_code, 0);
}

/* ---- AlterUserScramCredentials (51): v0 only, flexible ---- */

static const uint8_t alter_user_scram_credentials_rq_v0[] = {
    0x02,                   /* Deletions: 1 element */
    0x02, 'a',              /*   Name: "a" */
    0x01,                   /*   Mechanism: 1 (SCRAM-SHA-256) */
    0x00,                   /*   tags: none */
    0x02,                   /* Upsertions: 1 element */
    0x02, 'b',              /*   Name: "b" */
    0x02,                   /*   Mechanism: 2 (SCRAM-SHA-512) */
    0x00, 0x00, 0x10, 0x00, /*   Iterations: 4096 */
    0x03, 0x01, 0x02,       /*   Salt: COMPACT_BYTES, 2 bytes */
    0x04, 0xaa, 0xbb, 0xcc, /*   SaltedPassword: COMPACT_BYTES, 3 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(alter_user_scram_credentials_rq_v0,
      gr_alter_user_scram_credentials_request_t)
{
    CK_STR(m->deletions[0].name, "a");
    CK_INT(m->deletions[0].mechanism, 1);
    CK_STR(m->upsertions[0].name, "b");
    CK_INT(m->upsertions[0].iterations, 4096);
    CK_INT(m->upsertions[0].salt.len, 2);
    CK_INT(m->upsertions[0].salted_password.len, 3);
    CK_INT(m->upsertions[0].salted_password.ptr[2], 0xcc);
}

static const uint8_t alter_user_scram_credentials_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x03,                   /* Results: 2 elements */
    0x02, 'a',              /*   User: "a" */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
    0x00,                   /*   tags: none */
    0x02, 'b',              /*   User: "b" */
    0x00, 0x5f,             /*   ErrorCode: 95 (UNSUPPORTED_SASL_...) */
    0x02, 'x',              /*   ErrorMessage: "x" */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(alter_user_scram_credentials_rs_v0,
      gr_alter_user_scram_credentials_response_t)
{
    CK_INT(m->results_cnt, 2);
    CK_STR(m->results[0].user, "a");
    CK_NULL(m->results[0].error_message);
    CK_INT(m->results[1].error_code, 95);
    CK_STR(m->results[1].error_message, "x");
}

/* ---- ConsumerProtocolAssignment (data, v0-v3, one shape; the leading
 * INT16 version is the caller's) ---- */

static const uint8_t consumer_protocol_assignment_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* AssignedPartitions: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x02, /*   Partitions: ARRAY of INT32, 2 */
    0x00, 0x00, 0x00, 0x00, /*     0 */
    0x00, 0x00, 0x00, 0x02, /*     2 */
    0xff, 0xff, 0xff, 0xff, /* UserData: BYTES null */
};
CHECK(consumer_protocol_assignment_v0, gr_consumer_protocol_assignment_t)
{
    CK_INT(m->assigned_partitions_cnt, 1);
    CK_STR(m->assigned_partitions[0].topic, "t");
    CK_INT(m->assigned_partitions[0].partitions_cnt, 2);
    CK_INT(m->assigned_partitions[0].partitions[1], 2);
    CK_INT(m->user_data.len, -1);
}

static const uint8_t consumer_protocol_assignment_v1[] = {
    0x00, 0x00, 0x00, 0x00, /* AssignedPartitions: empty */
    0x00, 0x00, 0x00, 0x02, /* UserData: BYTES, 2 bytes */
    0x55, 0x66,             /*  */
};
CHECK(consumer_protocol_assignment_v1, gr_consumer_protocol_assignment_t)
{
    CK_INT(m->assigned_partitions_cnt, 0);
    CK_INT(m->user_data.len, 2);
    CK_INT(m->user_data.ptr[0], 0x55);
    CK_INT(m->user_data.ptr[1], 0x66);
}

static const uint8_t consumer_protocol_assignment_v2[] = {
    0x00, 0x00, 0x00, 0x02, /* AssignedPartitions: 2 elements */
    0x00, 0x01, 'a',        /*   Topic: "a" */
    0x00, 0x00, 0x00, 0x00, /*   Partitions: empty */
    0x00, 0x01, 'b',        /*   Topic: "b" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: 1 INT32 */
    0x00, 0x00, 0x00, 0x03, /*     3 */
    0x00, 0x00, 0x00, 0x00, /* UserData: empty (not null) */
};
CHECK(consumer_protocol_assignment_v2, gr_consumer_protocol_assignment_t)
{
    CK_INT(m->assigned_partitions_cnt, 2);
    CK_INT(m->assigned_partitions[0].partitions_cnt, 0);
    CK_STR(m->assigned_partitions[1].topic, "b");
    CK_INT(m->assigned_partitions[1].partitions[0], 3);
    CK_INT(m->user_data.len, 0);
}

static const uint8_t consumer_protocol_assignment_v3[] = {
    0x00, 0x00, 0x00, 0x01, /* AssignedPartitions: 1 element */
    0x00, 0x02, 'x',  'y',  /*   Topic: "xy" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: 1 INT32 */
    0x7f, 0xff, 0xff, 0xff, /*     INT32_MAX */
    0xff, 0xff, 0xff, 0xff, /* UserData: null */
};
CHECK(consumer_protocol_assignment_v3, gr_consumer_protocol_assignment_t)
{
    CK_STR(m->assigned_partitions[0].topic, "xy");
    CK_INT(m->assigned_partitions[0].partitions[0], INT32_MAX);
    CK_INT(m->user_data.len, -1);
}

/* ---- ConsumerProtocolSubscription (data): v1 adds OwnedPartitions, v2
 * GenerationId, v3 RackId ---- */

static const uint8_t consumer_protocol_subscription_v0[] = {
    0x00, 0x00, 0x00, 0x02, /* Topics: ARRAY of STRING, 2 */
    0x00, 0x01, 'a',        /*   "a" */
    0x00, 0x01, 'b',        /*   "b" */
    0xff, 0xff, 0xff, 0xff, /* UserData: null */
};
CHECK(consumer_protocol_subscription_v0, gr_consumer_protocol_subscription_t)
{
    CK_INT(m->topics_cnt, 2);
    CK_STR(m->topics[1], "b");
    CK_INT(m->user_data.len, -1);
    CK_INT(m->owned_partitions_cnt, 0); /* 1+: default */
    CK_INT(m->generation_id, -1);       /* 2+: default */
    CK_NULL(m->rack_id);                /* 3+: default */
}

static const uint8_t consumer_protocol_subscription_v1[] = {
    0x00, 0x00, 0x00, 0x01, /* Topics: 1 STRING */
    0x00, 0x01, 't',        /*   "t" */
    0x00, 0x00, 0x00, 0x01, /* UserData: 1 byte */
    0x09,                   /*  */
    0x00, 0x00, 0x00, 0x01, /* OwnedPartitions: 1 element */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: 1 INT32 */
    0x00, 0x00, 0x00, 0x04, /*     4 */
};
CHECK(consumer_protocol_subscription_v1, gr_consumer_protocol_subscription_t)
{
    CK_INT(m->user_data.len, 1);
    CK_INT(m->owned_partitions_cnt, 1);
    CK_STR(m->owned_partitions[0].topic, "t");
    CK_INT(m->owned_partitions[0].partitions[0], 4);
    CK_INT(m->generation_id, -1);
    CK_NULL(m->rack_id);
}

static const uint8_t consumer_protocol_subscription_v2[] = {
    0x00, 0x00, 0x00, 0x01, /* Topics: 1 STRING */
    0x00, 0x01, 't',        /*   "t" */
    0xff, 0xff, 0xff, 0xff, /* UserData: null */
    0x00, 0x00, 0x00, 0x00, /* OwnedPartitions: empty */
    0x00, 0x00, 0x00, 0x0c, /* GenerationId: 12 */
};
CHECK(consumer_protocol_subscription_v2, gr_consumer_protocol_subscription_t)
{
    CK_STR(m->topics[0], "t");
    CK_INT(m->owned_partitions_cnt, 0);
    CK_INT(m->generation_id, 12);
    CK_NULL(m->rack_id);
}

static const uint8_t consumer_protocol_subscription_v3[] = {
    0x00, 0x00, 0x00, 0x01, /* Topics: 1 STRING */
    0x00, 0x01, 't',        /*   "t" */
    0xff, 0xff, 0xff, 0xff, /* UserData: null */
    0x00, 0x00, 0x00, 0x01, /* OwnedPartitions: 1 element */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x00, /*   Partitions: empty */
    0xff, 0xff, 0xff, 0xff, /* GenerationId: -1 */
    0x00, 0x04, 'r',  'a',  /* RackId: NULLABLE_STRING "rack" */
    'c',  'k',              /*  */
};
CHECK(consumer_protocol_subscription_v3, gr_consumer_protocol_subscription_t)
{
    CK_INT(m->owned_partitions_cnt, 1);
    CK_INT(m->owned_partitions[0].partitions_cnt, 0);
    CK_INT(m->generation_id, -1);
    CK_STR(m->rack_id, "rack");
}

/* ---- CreateAcls (30): v0-v1 in golden frames; v2 first flexible ---- */

static const uint8_t create_acls_rq_v2[] = {
    0x02,                /* Creations: 1 element */
    0x02,                /*   ResourceType: 2 (TOPIC) */
    0x02, 't',           /*   ResourceName: "t" */
    0x04,                /*   ResourcePatternType: 4 (PREFIXED) */
    0x07, 'U', 's', 'e', /*   Principal: "User:u" */
    'r',  ':', 'u',      /*  */
    0x02, '*',           /*   Host: "*" */
    0x03,                /*   Operation: 3 (READ) */
    0x03,                /*   PermissionType: 3 (ALLOW) */
    0x00,                /*   tags: none */
    0x00,                /* tags: none */
};
CHECK(create_acls_rq_v2, gr_create_acls_request_t)
{
    CK_INT(m->creations_cnt, 1);
    CK_INT(m->creations[0].resource_type, 2);
    CK_INT(m->creations[0].resource_pattern_type, 4);
    CK_STR(m->creations[0].principal, "User:u");
    CK_STR(m->creations[0].host, "*");
    CK_INT(m->creations[0].operation, 3);
    CK_INT(m->creations[0].permission_type, 3);
}

static const uint8_t create_acls_rs_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x03,                   /* Results: 2 elements */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
    0x00,                   /*   tags: none */
    0x00, 0x31,             /*   ErrorCode: 49 (SECURITY_DISABLED) */
    0x02, 'x',              /*   ErrorMessage: "x" */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(create_acls_rs_v2, gr_create_acls_response_t)
{
    CK_INT(m->results_cnt, 2);
    CK_NULL(m->results[0].error_message);
    CK_INT(m->results[1].error_code, 49);
    CK_STR(m->results[1].error_message, "x");
}

/* ---- CreatePartitions (37): v0-v1 in golden frames; v2 first flexible
 * ---- */

static const uint8_t create_partitions_rq_v2[] = {
    0x03,                   /* Topics: 2 elements */
    0x02, 'a',              /*   Name: "a" */
    0x00, 0x00, 0x00, 0x03, /*   Count: 3 */
    0x00,                   /*   Assignments: null */
    0x00,                   /*   tags: none */
    0x02, 'b',              /*   Name: "b" */
    0x00, 0x00, 0x00, 0x02, /*   Count: 2 */
    0x02,                   /*   Assignments: 1 element */
    0x03,                   /*     BrokerIds: 2 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x00, 0x00, 0x00, 0x02, /*       2 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x27, 0x10, /* TimeoutMs: 10000 */
    0x00,                   /* ValidateOnly: false */
    0x00,                   /* tags: none */
};
CHECK(create_partitions_rq_v2, gr_create_partitions_request_t)
{
    CK_INT(m->topics_cnt, 2);
    CK_INT(m->topics[0].count, 3);
    CK_INT(m->topics[0].assignments_cnt, -1);
    CK_INT(m->topics[1].assignments_cnt, 1);
    CK_INT(m->topics[1].assignments[0].broker_ids[1], 2);
    CK_INT(m->timeout_ms, 10000);
    ck_assert(!m->validate_only);
}

static const uint8_t create_partitions_rs_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Results: 1 element */
    0x02, 'a',              /*   Name: "a" */
    0x00, 0x25,             /*   ErrorCode: 37 (INVALID_PARTITIONS) */
    0x00,                   /*   ErrorMessage: null */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(create_partitions_rs_v2, gr_create_partitions_response_t)
{
    CK_INT(m->results_cnt, 1);
    CK_STR(m->results[0].name, "a");
    CK_INT(m->results[0].error_code, 37);
    CK_NULL(m->results[0].error_message);
}

/* ---- CreateTopics (19): v0-v3 in golden frames, v5 in check_vectors.c;
 * v7 adds TopicId to the response ---- */

static const uint8_t create_topics_rs_v7[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x01, 0x02, 0x03, 0x04, /*   TopicId: UUID 01 02 .. 10 */
    0x05, 0x06, 0x07, 0x08, /*  */
    0x09, 0x0a, 0x0b, 0x0c, /*  */
    0x0d, 0x0e, 0x0f, 0x10, /*  */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
    0x00, 0x00, 0x00, 0x03, /*   NumPartitions: 3 */
    0x00, 0x01,             /*   ReplicationFactor: 1 */
    0x00,                   /*   Configs: null */
    0x00,                   /*   tags: none (TopicConfigErrorCode absent) */
    0x00,                   /* tags: none */
};
CHECK(create_topics_rs_v7, gr_create_topics_response_t)
{
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].topic_id.b[0], 1);
    CK_INT(m->topics[0].topic_id.b[15], 16);
    CK_INT(m->topics[0].num_partitions, 3);
    CK_INT(m->topics[0].replication_factor, 1);
    CK_INT(m->topics[0].configs_cnt, -1);
    CK_INT(m->topics[0].topic_config_error_code, 0); /* tag absent */
}

/* ---- DeleteAcls (31): v0-v1 in golden frames; v2 first flexible ---- */

static const uint8_t delete_acls_rq_v2[] = {
    0x02,                /* Filters: 1 element */
    0x01,                /*   ResourceTypeFilter: 1 (ANY) */
    0x00,                /*   ResourceNameFilter: null */
    0x01,                /*   PatternTypeFilter: 1 (ANY) */
    0x07, 'U', 's', 'e', /*   PrincipalFilter: "User:u" */
    'r',  ':', 'u',      /*  */
    0x00,                /*   HostFilter: null */
    0x01,                /*   Operation: 1 (ANY) */
    0x01,                /*   PermissionType: 1 (ANY) */
    0x00,                /*   tags: none */
    0x00,                /* tags: none */
};
CHECK(delete_acls_rq_v2, gr_delete_acls_request_t)
{
    CK_INT(m->filters_cnt, 1);
    CK_INT(m->filters[0].resource_type_filter, 1);
    CK_NULL(m->filters[0].resource_name_filter);
    CK_INT(m->filters[0].pattern_type_filter, 1);
    CK_STR(m->filters[0].principal_filter, "User:u");
    CK_NULL(m->filters[0].host_filter);
}

static const uint8_t delete_acls_rs_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* FilterResults: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
    0x02,                   /*   MatchingAcls: 1 element */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00,                   /*     ErrorMessage: null */
    0x02,                   /*     ResourceType: 2 (TOPIC) */
    0x02, 't',              /*     ResourceName: "t" */
    0x03,                   /*     PatternType: 3 (LITERAL) */
    0x07, 'U',  's',  'e',  /*     Principal: "User:u" */
    'r',  ':',  'u',        /*  */
    0x02, '*',              /*     Host: "*" */
    0x04,                   /*     Operation: 4 (WRITE) */
    0x02,                   /*     PermissionType: 2 (DENY) */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(delete_acls_rs_v2, gr_delete_acls_response_t)
{
    CK_INT(m->filter_results_cnt, 1);
    CK_INT(m->filter_results[0].matching_acls_cnt, 1);
    CK_STR(m->filter_results[0].matching_acls[0].resource_name, "t");
    CK_INT(m->filter_results[0].matching_acls[0].pattern_type, 3);
    CK_STR(m->filter_results[0].matching_acls[0].principal, "User:u");
    CK_INT(m->filter_results[0].matching_acls[0].operation, 4);
    CK_INT(m->filter_results[0].matching_acls[0].permission_type, 2);
}

/* ---- DeleteGroups (42): v0-v1 in golden frames; v2 first flexible ---- */

static const uint8_t delete_groups_rq_v2[] = {
    0x03,           /* GroupsNames: COMPACT_ARRAY of COMPACT_STRING, 2 */
    0x02, 'a',      /*   "a" */
    0x03, 'b', 'c', /*   "bc" */
    0x00,           /* tags: none */
};
CHECK(delete_groups_rq_v2, gr_delete_groups_request_t)
{
    CK_INT(m->groups_names_cnt, 2);
    CK_STR(m->groups_names[0], "a");
    CK_STR(m->groups_names[1], "bc");
}

static const uint8_t delete_groups_rs_v2[] = {
    0x00, 0x00, 0x00, 0x03, /* ThrottleTimeMs: 3 */
    0x03,                   /* Results: 2 elements */
    0x02, 'a',              /*   GroupId: "a" */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   tags: none */
    0x03, 'b',  'c',        /*   GroupId: "bc" */
    0x00, 0x45,             /*   ErrorCode: 69 (GROUP_ID_NOT_FOUND) */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(delete_groups_rs_v2, gr_delete_groups_response_t)
{
    CK_INT(m->throttle_time_ms, 3);
    CK_INT(m->results_cnt, 2);
    CK_STR(m->results[1].group_id, "bc");
    CK_INT(m->results[1].error_code, 69);
}

/* ---- DeleteRecords (21): v0, v2 first flexible ---- */

static const uint8_t delete_records_rq_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x02, /*   Partitions: ARRAY, 2 elements */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*     Offset: INT64 100 */
    0x00, 0x00, 0x00, 0x64, /*  */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0xff, 0xff, 0xff, 0xff, /*     Offset: -1 (high watermark) */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x00, 0x13, 0x88, /* TimeoutMs: 5000 */
};
CHECK(delete_records_rq_v0, gr_delete_records_request_t)
{
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].partitions_cnt, 2);
    CK_INT(m->topics[0].partitions[0].offset, 100);
    CK_INT(m->topics[0].partitions[1].offset, -1);
    CK_INT(m->timeout_ms, 5000);
}

static const uint8_t delete_records_rq_v2[] = {
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x03, /*     PartitionIndex: 3 */
    0x00, 0x00, 0x01, 0x00, /*     Offset: INT64 2^40 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x03, 0xe8, /* TimeoutMs: 1000 */
    0x00,                   /* tags: none */
};
CHECK(delete_records_rq_v2, gr_delete_records_request_t)
{
    CK_INT(m->topics[0].partitions[0].partition_index, 3);
    CK_INT(m->topics[0].partitions[0].offset, (int64_t)1 << 40);
    CK_INT(m->timeout_ms, 1000);
}

static const uint8_t delete_records_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*     LowWatermark: INT64 100 */
    0x00, 0x00, 0x00, 0x64, /*  */
    0x00, 0x00,             /*     ErrorCode: 0 */
};
CHECK(delete_records_rs_v0, gr_delete_records_response_t)
{
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].partitions[0].partition_index, 0);
    CK_INT(m->topics[0].partitions[0].low_watermark, 100);
    CK_INT(m->topics[0].partitions[0].error_code, 0);
}

static const uint8_t delete_records_rs_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x03, /*     PartitionIndex: 3 */
    0xff, 0xff, 0xff, 0xff, /*     LowWatermark: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x01,             /*     ErrorCode: 1 (OFFSET_OUT_OF_RANGE) */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(delete_records_rs_v2, gr_delete_records_response_t)
{
    CK_INT(m->topics[0].partitions[0].partition_index, 3);
    CK_INT(m->topics[0].partitions[0].low_watermark, -1);
    CK_INT(m->topics[0].partitions[0].error_code, 1);
}

/* ---- DeleteTopics (20): v0-v3 in golden frames; v4 first flexible, v5
 * adds ErrorMessage, v6 topic ids (nullable names) ---- */

static const uint8_t delete_topics_rq_v4[] = {
    0x03,                   /* TopicNames: COMPACT_ARRAY, 2 strings */
    0x02, 'a',              /*   "a" */
    0x02, 'b',              /*   "b" */
    0x00, 0x00, 0x75, 0x30, /* TimeoutMs: 30000 */
    0x00,                   /* tags: none */
};
CHECK(delete_topics_rq_v4, gr_delete_topics_request_t)
{
    CK_INT(m->topic_names_cnt, 2);
    CK_STR(m->topic_names[1], "b");
    CK_INT(m->timeout_ms, 30000);
    CK_INT(m->topics_cnt, 0); /* 6+: default */
}

static const uint8_t delete_topics_rq_v6[] = {
    0x03,                   /* Topics: 2 elements */
    0x02, 'a',              /*   Name: "a" */
    0x00, 0x00, 0x00, 0x00, /*   TopicId: zero UUID (by name) */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00,                   /*   tags: none */
    0x00,                   /*   Name: null (by id) */
    0xa0, 0xa1, 0xa2, 0xa3, /*   TopicId: UUID a0 a1 .. af */
    0xa4, 0xa5, 0xa6, 0xa7, /*  */
    0xa8, 0xa9, 0xaa, 0xab, /*  */
    0xac, 0xad, 0xae, 0xaf, /*  */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x03, 0xe8, /* TimeoutMs: 1000 */
    0x00,                   /* tags: none */
};
CHECK(delete_topics_rq_v6, gr_delete_topics_request_t)
{
    CK_INT(m->topics_cnt, 2);
    CK_STR(m->topics[0].name, "a");
    ck_assert(gr_uuid_is_zero(&m->topics[0].topic_id));
    CK_NULL(m->topics[1].name);
    CK_INT(m->topics[1].topic_id.b[0], 0xa0);
    CK_INT(m->topics[1].topic_id.b[15], 0xaf);
    CK_INT(m->timeout_ms, 1000);
    CK_INT(m->topic_names_cnt, 0); /* 0-5 only */
}

static const uint8_t delete_topics_rs_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Responses: 1 element */
    0x02, 'a',              /*   Name: "a" */
    0x00, 0x03,             /*   ErrorCode: 3 (UNKNOWN_TOPIC_OR_PART.) */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(delete_topics_rs_v4, gr_delete_topics_response_t)
{
    CK_INT(m->responses_cnt, 1);
    CK_STR(m->responses[0].name, "a");
    CK_INT(m->responses[0].error_code, 3);
    CK_NULL(m->responses[0].error_message); /* 5+: default null */
    ck_assert(gr_uuid_is_zero(&m->responses[0].topic_id)); /* 6+ */
}

static const uint8_t delete_topics_rs_v5[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x03,                   /* Responses: 2 elements */
    0x02, 'a',              /*   Name: "a" */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
    0x00,                   /*   tags: none */
    0x02, 'b',              /*   Name: "b" */
    0x00, 0x29,             /*   ErrorCode: 41 (NOT_CONTROLLER) */
    0x03, 'n',  'c',        /*   ErrorMessage: "nc" */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(delete_topics_rs_v5, gr_delete_topics_response_t)
{
    CK_INT(m->responses_cnt, 2);
    CK_NULL(m->responses[0].error_message);
    CK_INT(m->responses[1].error_code, 41);
    CK_STR(m->responses[1].error_message, "nc");
    ck_assert(gr_uuid_is_zero(&m->responses[1].topic_id));
}

static const uint8_t delete_topics_rs_v6[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Responses: 1 element */
    0x00,                   /*   Name: null */
    0xa0, 0xa1, 0xa2, 0xa3, /*   TopicId: UUID a0 a1 .. af */
    0xa4, 0xa5, 0xa6, 0xa7, /*  */
    0xa8, 0xa9, 0xaa, 0xab, /*  */
    0xac, 0xad, 0xae, 0xaf, /*  */
    0x00, 0x64,             /*   ErrorCode: 100 (UNKNOWN_TOPIC_ID) */
    0x00,                   /*   ErrorMessage: null */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(delete_topics_rs_v6, gr_delete_topics_response_t)
{
    CK_NULL(m->responses[0].name);
    CK_INT(m->responses[0].topic_id.b[1], 0xa1);
    CK_INT(m->responses[0].error_code, 100);
    CK_NULL(m->responses[0].error_message);
}

/* ---- DescribeAcls (29): v0-v1 in golden frames; v2 first flexible ---- */

static const uint8_t describe_acls_rq_v2[] = {
    0x02,      /* ResourceTypeFilter: 2 (TOPIC) */
    0x02, 't', /* ResourceNameFilter: "t" */
    0x03,      /* PatternTypeFilter: 3 (LITERAL) */
    0x00,      /* PrincipalFilter: null */
    0x02, '*', /* HostFilter: "*" */
    0x02,      /* Operation: 2 (ALL) */
    0x01,      /* PermissionType: 1 (ANY) */
    0x00,      /* tags: none */
};
CHECK(describe_acls_rq_v2, gr_describe_acls_request_t)
{
    CK_INT(m->resource_type_filter, 2);
    CK_STR(m->resource_name_filter, "t");
    CK_INT(m->pattern_type_filter, 3);
    CK_NULL(m->principal_filter);
    CK_STR(m->host_filter, "*");
    CK_INT(m->operation, 2);
    CK_INT(m->permission_type, 1);
}

static const uint8_t describe_acls_rs_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00,                   /* ErrorMessage: null */
    0x02,                   /* Resources: 1 element */
    0x02,                   /*   ResourceType: 2 (TOPIC) */
    0x02, 't',              /*   ResourceName: "t" */
    0x04,                   /*   PatternType: 4 (PREFIXED) */
    0x02,                   /*   Acls: 1 element */
    0x07, 'U',  's',  'e',  /*     Principal: "User:u" */
    'r',  ':',  'u',        /*  */
    0x02, '*',              /*     Host: "*" */
    0x03,                   /*     Operation: 3 (READ) */
    0x03,                   /*     PermissionType: 3 (ALLOW) */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_acls_rs_v2, gr_describe_acls_response_t)
{
    CK_NULL(m->error_message);
    CK_INT(m->resources_cnt, 1);
    CK_INT(m->resources[0].pattern_type, 4);
    CK_STR(m->resources[0].acls[0].principal, "User:u");
    CK_INT(m->resources[0].acls[0].operation, 3);
}

/* ---- DescribeClientQuotas (48): v0, v1 first flexible ---- */

static const uint8_t describe_client_quotas_rq_v0[] = {
    0x00, 0x00, 0x00, 0x02, /* Components: ARRAY, 2 elements */
    0x00, 0x04, 'u',  's',  /*   EntityType: "user" */
    'e',  'r',              /*  */
    0x00,                   /*   MatchType: 0 (exact) */
    0x00, 0x01, 'u',        /*   Match: "u" */
    0x00, 0x09, 'c',  'l',  /*   EntityType: "client-id" */
    'i',  'e',  'n',  't',  /*  */
    '-',  'i',  'd',        /*  */
    0x01,                   /*   MatchType: 1 (default entity) */
    0xff, 0xff,             /*   Match: null */
    0x01,                   /* Strict: true */
};
CHECK(describe_client_quotas_rq_v0, gr_describe_client_quotas_request_t)
{
    CK_INT(m->components_cnt, 2);
    CK_STR(m->components[0].entity_type, "user");
    CK_STR(m->components[0].match, "u");
    CK_INT(m->components[1].match_type, 1);
    CK_NULL(m->components[1].match);
    ck_assert(m->strict);
}

static const uint8_t describe_client_quotas_rq_v1[] = {
    0x02,                /* Components: 1 element */
    0x05, 'u', 's', 'e', /*   EntityType: "user" */
    'r',                 /*  */
    0x02,                /*   MatchType: 2 (any) */
    0x00,                /*   Match: null */
    0x00,                /*   tags: none */
    0x00,                /* Strict: false */
    0x00,                /* tags: none */
};
CHECK(describe_client_quotas_rq_v1, gr_describe_client_quotas_request_t)
{
    CK_INT(m->components_cnt, 1);
    CK_STR(m->components[0].entity_type, "user");
    CK_INT(m->components[0].match_type, 2);
    CK_NULL(m->components[0].match);
    ck_assert(!m->strict);
}

static const uint8_t describe_client_quotas_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0xff, 0xff,             /* ErrorMessage: null */
    0x00, 0x00, 0x00, 0x01, /* Entries: NULLABLE ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x01, /*   Entity: ARRAY, 1 element */
    0x00, 0x04, 'u',  's',  /*     EntityType: "user" */
    'e',  'r',              /*  */
    0x00, 0x01, 'u',        /*     EntityName: "u" */
    0x00, 0x00, 0x00, 0x01, /*   Values: ARRAY, 1 element */
    0x00, 0x01, 'k',        /*     Key: "k" */
    0x40, 0x59, 0x00, 0x00, /*     Value: FLOAT64 100.0 */
    0x00, 0x00, 0x00, 0x00, /*  */
};
CHECK(describe_client_quotas_rs_v0, gr_describe_client_quotas_response_t)
{
    CK_NULL(m->error_message);
    CK_INT(m->entries_cnt, 1);
    CK_STR(m->entries[0].entity[0].entity_name, "u");
    CK_STR(m->entries[0].values[0].key, "k");
    ck_assert(m->entries[0].values[0].value == 100.0);
}

static const uint8_t describe_client_quotas_rs_v1[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x23,             /* ErrorCode: 35 (UNSUPPORTED_VERSION) */
    0x02, 'x',              /* ErrorMessage: "x" */
    0x00,                   /* Entries: COMPACT_NULLABLE_ARRAY, null */
    0x00,                   /* tags: none */
};
CHECK(describe_client_quotas_rs_v1, gr_describe_client_quotas_response_t)
{
    CK_INT(m->error_code, 35);
    CK_STR(m->error_message, "x");
    CK_INT(m->entries_cnt, -1);
}

/* ---- DescribeCluster (60): v0 flexible, v1 adds EndpointType ---- */

static const uint8_t describe_cluster_rq_v0[] = {
    0x01, /* IncludeClusterAuthorizedOperations: true */
    0x00, /* tags: none */
};
CHECK(describe_cluster_rq_v0, gr_describe_cluster_request_t)
{
    ck_assert(m->include_cluster_authorized_operations);
    CK_INT(m->endpoint_type, 1); /* 1+: default (brokers) */
}

static const uint8_t describe_cluster_rq_v1[] = {
    0x00, /* IncludeClusterAuthorizedOperations: false */
    0x02, /* EndpointType: 2 (controllers) */
    0x00, /* tags: none */
};
CHECK(describe_cluster_rq_v1, gr_describe_cluster_request_t)
{
    ck_assert(!m->include_cluster_authorized_operations);
    CK_INT(m->endpoint_type, 2);
}

static const uint8_t describe_cluster_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00,                   /* ErrorMessage: null */
    0x03, 'c',  'l',        /* ClusterId: "cl" */
    0x00, 0x00, 0x00, 0x01, /* ControllerId: 1 */
    0x02,                   /* Brokers: 1 element */
    0x00, 0x00, 0x00, 0x01, /*   BrokerId: 1 */
    0x02, 'h',              /*   Host: "h" */
    0x00, 0x00, 0x23, 0x84, /*   Port: 9092 */
    0x00,                   /*   Rack: null */
    0x00,                   /*   tags: none */
    0x80, 0x00, 0x00, 0x00, /* ClusterAuthorizedOperations: INT32_MIN */
    0x00,                   /* tags: none */
};
CHECK(describe_cluster_rs_v0, gr_describe_cluster_response_t)
{
    CK_STR(m->cluster_id, "cl");
    CK_INT(m->controller_id, 1);
    CK_INT(m->brokers[0].port, 9092);
    CK_NULL(m->brokers[0].rack);
    CK_INT(m->cluster_authorized_operations, INT32_MIN);
    CK_INT(m->endpoint_type, 1); /* 1+: default */
}

static const uint8_t describe_cluster_rs_v1[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00,                   /* ErrorMessage: null */
    0x02,                   /* EndpointType: 2 (controllers) */
    0x03, 'c',  'l',        /* ClusterId: "cl" */
    0xff, 0xff, 0xff, 0xff, /* ControllerId: -1 */
    0x02,                   /* Brokers: 1 element */
    0x00, 0x00, 0x00, 0x02, /*   BrokerId: 2 */
    0x02, 'h',              /*   Host: "h" */
    0x00, 0x00, 0x23, 0x85, /*   Port: 9093 */
    0x03, 'r',  '1',        /*   Rack: "r1" */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x0f, 0xf8, /* ClusterAuthorizedOperations: 4088 */
    0x00,                   /* tags: none */
};
CHECK(describe_cluster_rs_v1, gr_describe_cluster_response_t)
{
    CK_INT(m->endpoint_type, 2);
    CK_INT(m->controller_id, -1);
    CK_INT(m->brokers[0].broker_id, 2);
    CK_STR(m->brokers[0].rack, "r1");
    CK_INT(m->cluster_authorized_operations, 4088);
}

/* ---- DescribeConfigs (32): v0-v2 in golden frames; v3 adds
 * IncludeDocumentation and ConfigType/Documentation, v4 first flexible ---- */

static const uint8_t describe_configs_rq_v3[] = {
    0x00, 0x00, 0x00, 0x02, /* Resources: ARRAY, 2 elements */
    0x02,                   /*   ResourceType: 2 (TOPIC) */
    0x00, 0x01, 't',        /*   ResourceName: "t" */
    0x00, 0x00, 0x00, 0x01, /*   ConfigurationKeys: 1 STRING */
    0x00, 0x01, 'k',        /*     "k" */
    0x04,                   /*   ResourceType: 4 (BROKER) */
    0x00, 0x01, '1',        /*   ResourceName: "1" */
    0xff, 0xff, 0xff, 0xff, /*   ConfigurationKeys: null (all) */
    0x01,                   /* IncludeSynonyms: true */
    0x01,                   /* IncludeDocumentation: true */
};
CHECK(describe_configs_rq_v3, gr_describe_configs_request_t)
{
    CK_INT(m->resources_cnt, 2);
    CK_STR(m->resources[0].configuration_keys[0], "k");
    CK_INT(m->resources[1].resource_type, 4);
    CK_INT(m->resources[1].configuration_keys_cnt, -1);
    ck_assert(m->include_synonyms);
    ck_assert(m->include_documentation);
}

static const uint8_t describe_configs_rq_v4[] = {
    0x02,      /* Resources: 1 element */
    0x02,      /*   ResourceType: 2 (TOPIC) */
    0x02, 't', /*   ResourceName: "t" */
    0x00,      /*   ConfigurationKeys: null */
    0x00,      /*   tags: none */
    0x00,      /* IncludeSynonyms: false */
    0x01,      /* IncludeDocumentation: true */
    0x00,      /* tags: none */
};
CHECK(describe_configs_rq_v4, gr_describe_configs_request_t)
{
    CK_STR(m->resources[0].resource_name, "t");
    CK_INT(m->resources[0].configuration_keys_cnt, -1);
    ck_assert(!m->include_synonyms);
    ck_assert(m->include_documentation);
}

static const uint8_t describe_configs_rs_v3[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* Results: ARRAY, 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0xff, 0xff,             /*   ErrorMessage: null */
    0x02,                   /*   ResourceType: 2 (TOPIC) */
    0x00, 0x01, 't',        /*   ResourceName: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Configs: ARRAY, 1 element */
    0x00, 0x01, 'k',        /*     Name: "k" */
    0x00, 0x01, 'v',        /*     Value: "v" */
    0x00,                   /*     ReadOnly: false */
    0x05,                   /*     ConfigSource: 5 (DEFAULT_CONFIG) */
    0x00,                   /*     IsSensitive: false */
    0x00, 0x00, 0x00, 0x01, /*     Synonyms: ARRAY, 1 element */
    0x00, 0x01, 'k',        /*       Name: "k" */
    0xff, 0xff,             /*       Value: null */
    0x05,                   /*       Source: 5 */
    0x03,                   /*     ConfigType: 3 (INT) */
    0x00, 0x01, 'd',        /*     Documentation: "d" */
};
CHECK(describe_configs_rs_v3, gr_describe_configs_response_t)
{
    CK_NULL(m->results[0].error_message);
    CK_STR(m->results[0].configs[0].value, "v");
    CK_INT(m->results[0].configs[0].config_source, 5);
    ck_assert(!m->results[0].configs[0].is_default); /* v0 only */
    CK_NULL(m->results[0].configs[0].synonyms[0].value);
    CK_INT(m->results[0].configs[0].config_type, 3);
    CK_STR(m->results[0].configs[0].documentation, "d");
}

static const uint8_t describe_configs_rs_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Results: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
    0x02,                   /*   ResourceType: 2 (TOPIC) */
    0x02, 't',              /*   ResourceName: "t" */
    0x02,                   /*   Configs: 1 element */
    0x02, 'k',              /*     Name: "k" */
    0x00,                   /*     Value: null */
    0x01,                   /*     ReadOnly: true */
    0x04,                   /*     ConfigSource: 4 (STATIC_BROKER) */
    0x01,                   /*     IsSensitive: true */
    0x02,                   /*     Synonyms: 1 element */
    0x02, 'k',              /*       Name: "k" */
    0x02, 'w',              /*       Value: "w" */
    0x04,                   /*       Source: 4 */
    0x00,                   /*       tags: none */
    0x01,                   /*     ConfigType: 1 (BOOLEAN) */
    0x00,                   /*     Documentation: null */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_configs_rs_v4, gr_describe_configs_response_t)
{
    CK_NULL(m->results[0].configs[0].value);
    ck_assert(m->results[0].configs[0].read_only);
    ck_assert(m->results[0].configs[0].is_sensitive);
    CK_STR(m->results[0].configs[0].synonyms[0].value, "w");
    CK_INT(m->results[0].configs[0].config_type, 1);
    CK_NULL(m->results[0].configs[0].documentation);
}

/* ---- DescribeGroups (15): v0-v2 in golden frames (v3 request too); v3
 * response adds AuthorizedOperations, v4 GroupInstanceId, v5 first
 * flexible ---- */

static const uint8_t describe_groups_rq_v5[] = {
    0x03,           /* Groups: COMPACT_ARRAY of COMPACT_STRING, 2 */
    0x02, 'a',      /*   "a" */
    0x03, 'b', 'c', /*   "bc" */
    0x01,           /* IncludeAuthorizedOperations: true */
    0x00,           /* tags: none */
};
CHECK(describe_groups_rq_v5, gr_describe_groups_request_t)
{
    CK_INT(m->groups_cnt, 2);
    CK_STR(m->groups[0], "a");
    CK_STR(m->groups[1], "bc");
    ck_assert(m->include_authorized_operations);
}

static const uint8_t describe_groups_rs_v3[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* Groups: ARRAY, 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00, 0x01, 'g',        /*   GroupId: "g" */
    0x00, 0x06, 'S',  't',  /*   GroupState: "Stable" */
    'a',  'b',  'l',  'e',  /*  */
    0x00, 0x01, 'c',        /*   ProtocolType: "c" */
    0x00, 0x01, 'r',        /*   ProtocolData: "r" */
    0x00, 0x00, 0x00, 0x01, /*   Members: ARRAY, 1 element */
    0x00, 0x01, 'm',        /*     MemberId: "m" */
    0x00, 0x02, 'c',  'i',  /*     ClientId: "ci" */
    0x00, 0x01, 'h',        /*     ClientHost: "h" */
    0x00, 0x00, 0x00, 0x01, /*     MemberMetadata: BYTES, 1 */
    0x01,                   /*  */
    0x00, 0x00, 0x00, 0x00, /*     MemberAssignment: BYTES, empty */
    0x00, 0x00, 0x00, 0x08, /*   AuthorizedOperations: 8 */
};
CHECK(describe_groups_rs_v3, gr_describe_groups_response_t)
{
    CK_STR(m->groups[0].group_state, "Stable");
    CK_STR(m->groups[0].members[0].client_id, "ci");
    CK_NULL(m->groups[0].members[0].group_instance_id); /* 4+: default */
    CK_INT(m->groups[0].members[0].member_metadata.len, 1);
    CK_INT(m->groups[0].members[0].member_assignment.len, 0);
    CK_INT(m->groups[0].authorized_operations, 8);
}

static const uint8_t describe_groups_rs_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* Groups: ARRAY, 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00, 0x01, 'g',        /*   GroupId: "g" */
    0x00, 0x05, 'E',  'm',  /*   GroupState: "Empty" */
    'p',  't',  'y',        /*  */
    0x00, 0x00,             /*   ProtocolType: "" */
    0x00, 0x00,             /*   ProtocolData: "" */
    0x00, 0x00, 0x00, 0x01, /*   Members: ARRAY, 1 element */
    0x00, 0x01, 'm',        /*     MemberId: "m" */
    0x00, 0x01, 'i',        /*     GroupInstanceId: "i" */
    0x00, 0x01, 'c',        /*     ClientId: "c" */
    0x00, 0x01, 'h',        /*     ClientHost: "h" */
    0x00, 0x00, 0x00, 0x00, /*     MemberMetadata: empty */
    0x00, 0x00, 0x00, 0x00, /*     MemberAssignment: empty */
    0x80, 0x00, 0x00, 0x00, /*   AuthorizedOperations: INT32_MIN */
};
CHECK(describe_groups_rs_v4, gr_describe_groups_response_t)
{
    CK_STR(m->groups[0].group_state, "Empty");
    CK_INT(m->groups[0].protocol_type.len, 0);
    CK_STR(m->groups[0].members[0].group_instance_id, "i");
    CK_STR(m->groups[0].members[0].client_host, "h");
    CK_INT(m->groups[0].authorized_operations, INT32_MIN);
}

static const uint8_t describe_groups_rs_v5[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Groups: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x02, 'g',              /*   GroupId: "g" */
    0x07, 'S',  't',  'a',  /*   GroupState: "Stable" */
    'b',  'l',  'e',        /*  */
    0x09, 'c',  'o',  'n',  /*   ProtocolType: "consumer" */
    's',  'u',  'm',  'e',  /*  */
    'r',                    /*  */
    0x06, 'r',  'a',  'n',  /*   ProtocolData: "range" */
    'g',  'e',              /*  */
    0x02,                   /*   Members: 1 element */
    0x02, 'm',              /*     MemberId: "m" */
    0x00,                   /*     GroupInstanceId: null */
    0x02, 'c',              /*     ClientId: "c" */
    0x02, 'h',              /*     ClientHost: "h" */
    0x02, 0x07,             /*     MemberMetadata: COMPACT_BYTES, 1 */
    0x03, 0x08, 0x09,       /*     MemberAssignment: COMPACT_BYTES, 2 */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x00, 0x08, /*   AuthorizedOperations: 8 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_groups_rs_v5, gr_describe_groups_response_t)
{
    CK_STR(m->groups[0].protocol_type, "consumer");
    CK_STR(m->groups[0].protocol_data, "range");
    CK_NULL(m->groups[0].members[0].group_instance_id);
    CK_INT(m->groups[0].members[0].member_metadata.ptr[0], 7);
    CK_INT(m->groups[0].members[0].member_assignment.len, 2);
    CK_INT(m->groups[0].authorized_operations, 8);
}

/* ---- DescribeLogDirs (35): v0, v2 first flexible, v3 top-level
 * ErrorCode, v4 TotalBytes/UsableBytes ---- */

static const uint8_t describe_log_dirs_rq_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* Topics: NULLABLE ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: 1 INT32 */
    0x00, 0x00, 0x00, 0x02, /*     2 */
};
CHECK(describe_log_dirs_rq_v0, gr_describe_log_dirs_request_t)
{
    CK_INT(m->topics_cnt, 1);
    CK_STR(m->topics[0].topic, "t");
    CK_INT(m->topics[0].partitions_cnt, 1);
    CK_INT(m->topics[0].partitions[0], 2);
}

static const uint8_t describe_log_dirs_rq_v2[] = {
    0x00, /* Topics: COMPACT_NULLABLE_ARRAY, null (all) */
    0x00, /* tags: none */
};
CHECK(describe_log_dirs_rq_v2, gr_describe_log_dirs_request_t)
{
    CK_INT(m->topics_cnt, -1);
    ck_assert(m->topics == NULL);
}

static const uint8_t describe_log_dirs_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* Results: ARRAY, 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00, 0x02, '/',  'd',  /*   LogDir: "/d" */
    0x00, 0x00, 0x00, 0x01, /*   Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*     Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*     Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*       PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*       PartitionSize: INT64 4096 */
    0x00, 0x00, 0x10, 0x00, /*  */
    0x00, 0x00, 0x00, 0x00, /*       OffsetLag: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00,                   /*       IsFutureKey: false */
};
CHECK(describe_log_dirs_rs_v0, gr_describe_log_dirs_response_t)
{
    CK_INT(m->error_code, 0); /* 3+: default */
    CK_STR(m->results[0].log_dir, "/d");
    CK_INT(m->results[0].topics[0].partitions[0].partition_size, 4096);
    ck_assert(!m->results[0].topics[0].partitions[0].is_future_key);
    CK_INT(m->results[0].total_bytes, -1);  /* 4+: default */
    CK_INT(m->results[0].usable_bytes, -1); /* 4+: default */
}

static const uint8_t describe_log_dirs_rs_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Results: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x03, '/',  'd',        /*   LogDir: "/d" */
    0x02,                   /*   Topics: 1 element */
    0x02, 't',              /*     Name: "t" */
    0x02,                   /*     Partitions: 1 element */
    0x00, 0x00, 0x00, 0x01, /*       PartitionIndex: 1 */
    0x00, 0x00, 0x00, 0x00, /*       PartitionSize: 10 */
    0x00, 0x00, 0x00, 0x0a, /*  */
    0x00, 0x00, 0x00, 0x00, /*       OffsetLag: 2 */
    0x00, 0x00, 0x00, 0x02, /*  */
    0x01,                   /*       IsFutureKey: true */
    0x00,                   /*       tags: none */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_log_dirs_rs_v2, gr_describe_log_dirs_response_t)
{
    CK_STR(m->results[0].log_dir, "/d");
    CK_INT(m->results[0].topics[0].partitions[0].partition_size, 10);
    CK_INT(m->results[0].topics[0].partitions[0].offset_lag, 2);
    ck_assert(m->results[0].topics[0].partitions[0].is_future_key);
    CK_INT(m->results[0].total_bytes, -1);
}

static const uint8_t describe_log_dirs_rs_v3[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x1f,             /* ErrorCode: 31 (CLUSTER_AUTHORIZATION_F.) */
    0x01,                   /* Results: empty */
    0x00,                   /* tags: none */
};
CHECK(describe_log_dirs_rs_v3, gr_describe_log_dirs_response_t)
{
    CK_INT(m->throttle_time_ms, 0);
    CK_INT(m->error_code, 31);
    CK_INT(m->results_cnt, 0);
}

static const uint8_t describe_log_dirs_rs_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x02,                   /* Results: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x03, '/',  'd',        /*   LogDir: "/d" */
    0x01,                   /*   Topics: empty */
    0x00, 0x00, 0x01, 0x00, /*   TotalBytes: 2^40 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x80, /*   UsableBytes: 2^39 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_log_dirs_rs_v4, gr_describe_log_dirs_response_t)
{
    CK_INT(m->results[0].topics_cnt, 0);
    CK_INT(m->results[0].total_bytes, (int64_t)1 << 40);
    CK_INT(m->results[0].usable_bytes, (int64_t)1 << 39);
    CK_STR(m->results[0].log_dir, "/d");
}

/* ---- DescribeProducers (61): v0 only, flexible ---- */

static const uint8_t describe_producers_rq_v0[] = {
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x03,                   /*   PartitionIndexes: 2 INT32 */
    0x00, 0x00, 0x00, 0x00, /*     0 */
    0x00, 0x00, 0x00, 0x01, /*     1 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_producers_rq_v0, gr_describe_producers_request_t)
{
    CK_INT(m->topics_cnt, 1);
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].partition_indexes_cnt, 2);
    CK_INT(m->topics[0].partition_indexes[1], 1);
}

static const uint8_t describe_producers_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00,                   /*     ErrorMessage: null */
    0x02,                   /*     ActiveProducers: 1 element */
    0x00, 0x00, 0x00, 0x00, /*       ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x00, 0x00, 0x02, /*       ProducerEpoch: INT32 2 */
    0x00, 0x00, 0x00, 0x09, /*       LastSequence: 9 */
    0x00, 0x00, 0x01, 0x8b, /*       LastTimestamp: 0x18b00000000 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x05, /*       CoordinatorEpoch: 5 */
    0xff, 0xff, 0xff, 0xff, /*       CurrentTxnStartOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00,                   /*       tags: none */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_producers_rs_v0, gr_describe_producers_response_t)
{
    CK_INT(m->topics[0].partitions[0].active_producers_cnt, 1);
    CK_INT(m->topics[0].partitions[0].active_producers[0].producer_id, 1000);
    CK_INT(m->topics[0].partitions[0].active_producers[0].producer_epoch, 2);
    CK_INT(m->topics[0].partitions[0].active_producers[0].last_sequence, 9);
    CK_INT(m->topics[0].partitions[0].active_producers[0].last_timestamp,
           (int64_t)0x18b << 32);
    CK_INT(
        m->topics[0].partitions[0].active_producers[0].current_txn_start_offset,
        -1);
}

/* ---- DescribeTransactions (65): v0 only, flexible ---- */

static const uint8_t describe_transactions_rq_v0[] = {
    0x03,           /* TransactionalIds: 2 COMPACT_STRING */
    0x02, 'a',      /*   "a" */
    0x03, 'b', 'c', /*   "bc" */
    0x00,           /* tags: none */
};
CHECK(describe_transactions_rq_v0, gr_describe_transactions_request_t)
{
    CK_INT(m->transactional_ids_cnt, 2);
    CK_STR(m->transactional_ids[0], "a");
    CK_STR(m->transactional_ids[1], "bc");
}

static const uint8_t describe_transactions_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* TransactionStates: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x02, 'a',              /*   TransactionalId: "a" */
    0x08, 'O',  'n',  'g',  /*   TransactionState: "Ongoing" */
    'o',  'i',  'n',  'g',  /*  */
    0x00, 0x00, 0xea, 0x60, /*   TransactionTimeoutMs: 60000 */
    0x00, 0x00, 0x00, 0x00, /*   TransactionStartTimeMs: 77 */
    0x00, 0x00, 0x00, 0x4d, /*  */
    0x00, 0x00, 0x00, 0x00, /*   ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x01,             /*   ProducerEpoch: 1 */
    0x02,                   /*   Topics: 1 element */
    0x02, 't',              /*     Topic: "t" */
    0x02,                   /*     Partitions: 1 INT32 */
    0x00, 0x00, 0x00, 0x04, /*       4 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_transactions_rs_v0, gr_describe_transactions_response_t)
{
    CK_STR(m->transaction_states[0].transaction_state, "Ongoing");
    CK_INT(m->transaction_states[0].transaction_timeout_ms, 60000);
    CK_INT(m->transaction_states[0].transaction_start_time_ms, 77);
    CK_INT(m->transaction_states[0].producer_id, 1000);
    CK_INT(m->transaction_states[0].producer_epoch, 1);
    CK_INT(m->transaction_states[0].topics[0].partitions[0], 4);
}

/* ---- DescribeUserScramCredentials (50): v0 only, flexible ---- */

static const uint8_t describe_user_scram_credentials_rq_v0[] = {
    0x02,      /* Users: COMPACT_NULLABLE_ARRAY, 1 element */
    0x02, 'u', /*   Name: "u" */
    0x00,      /*   tags: none */
    0x00,      /* tags: none */
};
CHECK(describe_user_scram_credentials_rq_v0,
      gr_describe_user_scram_credentials_request_t)
{
    CK_INT(m->users_cnt, 1);
    CK_STR(m->users[0].name, "u");
    ck_assert(m->users != NULL);
}

static const uint8_t describe_user_scram_credentials_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00,                   /* ErrorMessage: null */
    0x02,                   /* Results: 1 element */
    0x02, 'u',              /*   User: "u" */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
    0x02,                   /*   CredentialInfos: 1 element */
    0x01,                   /*     Mechanism: 1 (SCRAM-SHA-256) */
    0x00, 0x00, 0x10, 0x00, /*     Iterations: 4096 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_user_scram_credentials_rs_v0,
      gr_describe_user_scram_credentials_response_t)
{
    CK_NULL(m->error_message);
    CK_STR(m->results[0].user, "u");
    CK_INT(m->results[0].credential_infos[0].mechanism, 1);
    CK_INT(m->results[0].credential_infos[0].iterations, 4096);
}

/* ---- ElectLeaders (43): v0, v1 ElectionType (request) and ErrorCode
 * (response), v2 first flexible ---- */

static const uint8_t elect_leaders_rq_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* TopicPartitions: NULLABLE ARRAY, 1 */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: 1 INT32 */
    0x00, 0x00, 0x00, 0x00, /*     0 */
    0x00, 0x00, 0xea, 0x60, /* TimeoutMs: 60000 */
};
CHECK(elect_leaders_rq_v0, gr_elect_leaders_request_t)
{
    CK_INT(m->election_type, 0); /* 1+: default (preferred) */
    CK_INT(m->topic_partitions_cnt, 1);
    CK_STR(m->topic_partitions[0].topic, "t");
    CK_INT(m->timeout_ms, 60000);
}

static const uint8_t elect_leaders_rq_v1[] = {
    0x01,                   /* ElectionType: 1 (unclean) */
    0xff, 0xff, 0xff, 0xff, /* TopicPartitions: null (all) */
    0x00, 0x00, 0x03, 0xe8, /* TimeoutMs: 1000 */
};
CHECK(elect_leaders_rq_v1, gr_elect_leaders_request_t)
{
    CK_INT(m->election_type, 1);
    CK_INT(m->topic_partitions_cnt, -1);
    CK_INT(m->timeout_ms, 1000);
}

static const uint8_t elect_leaders_rq_v2[] = {
    0x00,                   /* ElectionType: 0 (preferred) */
    0x02,                   /* TopicPartitions: 1 element */
    0x02, 't',              /*   Topic: "t" */
    0x03,                   /*   Partitions: 2 INT32 */
    0x00, 0x00, 0x00, 0x01, /*     1 */
    0x00, 0x00, 0x00, 0x02, /*     2 */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x27, 0x10, /* TimeoutMs: 10000 */
    0x00,                   /* tags: none */
};
CHECK(elect_leaders_rq_v2, gr_elect_leaders_request_t)
{
    CK_INT(m->election_type, 0);
    CK_INT(m->topic_partitions[0].partitions_cnt, 2);
    CK_INT(m->topic_partitions[0].partitions[1], 2);
    CK_INT(m->timeout_ms, 10000);
}

static const uint8_t elect_leaders_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* ReplicaElectionResults: ARRAY, 1 */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x01, /*   PartitionResult: ARRAY, 1 */
    0x00, 0x00, 0x00, 0x00, /*     PartitionId: 0 */
    0x00, 0x54,             /*     ErrorCode: 84 (ELECTION_NOT_NEEDED) */
    0xff, 0xff,             /*     ErrorMessage: null */
};
CHECK(elect_leaders_rs_v0, gr_elect_leaders_response_t)
{
    CK_INT(m->error_code, 0); /* 1+: default */
    CK_STR(m->replica_election_results[0].topic, "t");
    CK_INT(m->replica_election_results[0].partition_result[0].error_code, 84);
    CK_NULL(m->replica_election_results[0].partition_result[0].error_message);
}

static const uint8_t elect_leaders_rs_v1[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x1f,             /* ErrorCode: 31 */
    0x00, 0x00, 0x00, 0x00, /* ReplicaElectionResults: empty */
};
CHECK(elect_leaders_rs_v1, gr_elect_leaders_response_t)
{
    CK_INT(m->throttle_time_ms, 0);
    CK_INT(m->error_code, 31);
    CK_INT(m->replica_election_results_cnt, 0);
}

static const uint8_t elect_leaders_rs_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x02,                   /* ReplicaElectionResults: 1 element */
    0x02, 't',              /*   Topic: "t" */
    0x02,                   /*   PartitionResult: 1 element */
    0x00, 0x00, 0x00, 0x02, /*     PartitionId: 2 */
    0x00, 0x53,             /*     ErrorCode: 83 (ELIGIBLE_LEADERS_N.A.) */
    0x02, 'x',              /*     ErrorMessage: "x" */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(elect_leaders_rs_v2, gr_elect_leaders_response_t)
{
    CK_INT(m->replica_election_results[0].partition_result[0].partition_id, 2);
    CK_INT(m->replica_election_results[0].partition_result[0].error_code, 83);
    CK_STR(m->replica_election_results[0].partition_result[0].error_message,
           "x");
}

/* ---- EndTxn (26): v0, v3 first flexible, v5 response returns the
 * producer id and epoch ---- */

static const uint8_t end_txn_rq_v0[] = {
    0x00, 0x02, 't',  'x',  /* TransactionalId: "tx" */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x01,             /* ProducerEpoch: 1 */
    0x01,                   /* Committed: true */
};
CHECK(end_txn_rq_v0, gr_end_txn_request_t)
{
    CK_STR(m->transactional_id, "tx");
    CK_INT(m->producer_id, 1000);
    CK_INT(m->producer_epoch, 1);
    ck_assert(m->committed);
}

static const uint8_t end_txn_rq_v3[] = {
    0x03, 't',  'x',        /* TransactionalId: "tx" */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x02,             /* ProducerEpoch: 2 */
    0x00,                   /* Committed: false (abort) */
    0x00,                   /* tags: none */
};
CHECK(end_txn_rq_v3, gr_end_txn_request_t)
{
    CK_STR(m->transactional_id, "tx");
    CK_INT(m->producer_id, 1000);
    CK_INT(m->producer_epoch, 2);
    ck_assert(!m->committed);
}

static const uint8_t end_txn_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x30,             /* ErrorCode: 48 (INVALID_TXN_STATE) */
};
CHECK(end_txn_rs_v0, gr_end_txn_response_t)
{
    CK_INT(m->error_code, 48);
    CK_INT(m->producer_id, -1);    /* 5+: default */
    CK_INT(m->producer_epoch, -1); /* 5+: default */
}

static const uint8_t end_txn_rs_v3[] = {
    0x00, 0x00, 0x00, 0x02, /* ThrottleTimeMs: 2 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00,                   /* tags: none */
};
CHECK(end_txn_rs_v3, gr_end_txn_response_t)
{
    CK_INT(m->throttle_time_ms, 2);
    CK_INT(m->error_code, 0);
    CK_INT(m->producer_id, -1);
}

static const uint8_t end_txn_rs_v5[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x03,             /* ProducerEpoch: 3 */
    0x00,                   /* tags: none */
};
CHECK(end_txn_rs_v5, gr_end_txn_response_t)
{
    CK_INT(m->error_code, 0);
    CK_INT(m->producer_id, 1000);
    CK_INT(m->producer_epoch, 3);
}

/* ---- Fetch (1): v0-v11 in golden frames, v12-v13 in check_vectors.c;
 * v15 replaces ReplicaId with the tagged ReplicaState, v17 adds the tagged
 * ReplicaDirectoryId; the v16 response adds the tagged NodeEndpoints ---- */

static const uint8_t fetch_rq_v15[] = {
    0x00, 0x00, 0x01, 0xf4, /* MaxWaitMs: 500 */
    0x00, 0x00, 0x00, 0x01, /* MinBytes: 1 */
    0x00, 0x10, 0x00, 0x00, /* MaxBytes: 1 MiB */
    0x00,                   /* IsolationLevel: 0 */
    0x00, 0x00, 0x00, 0x00, /* SessionId: 0 */
    0xff, 0xff, 0xff, 0xff, /* SessionEpoch: -1 */
    0x02,                   /* Topics: 1 element */
    0x10, 0x11, 0x12, 0x13, /*   TopicId: UUID 10 11 .. 1f */
    0x14, 0x15, 0x16, 0x17, /*  */
    0x18, 0x19, 0x1a, 0x1b, /*  */
    0x1c, 0x1d, 0x1e, 0x1f, /*  */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     Partition: 0 */
    0x00, 0x00, 0x00, 0x01, /*     CurrentLeaderEpoch: 1 */
    0x00, 0x00, 0x00, 0x00, /*     FetchOffset: 5 */
    0x00, 0x00, 0x00, 0x05, /*  */
    0x00, 0x00, 0x00, 0x01, /*     LastFetchedEpoch: 1 */
    0x00, 0x00, 0x00, 0x00, /*     LogStartOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x10, 0x00, /*     PartitionMaxBytes: 4096 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x01,                   /* ForgottenTopicsData: empty */
    0x01,                   /* RackId: "" */
    0x02,                   /* tags: 2 fields */
    0x00, 0x03,             /*   tag 0 (ClusterId), 3 bytes */
    0x03, 'c',  'l',        /*     COMPACT_NULLABLE_STRING "cl" */
    0x01, 0x0d,             /*   tag 1 (ReplicaState), 13 bytes */
    0x00, 0x00, 0x00, 0x03, /*     ReplicaId: 3 */
    0x00, 0x00, 0x00, 0x00, /*     ReplicaEpoch: INT64 7 */
    0x00, 0x00, 0x00, 0x07, /*  */
    0x00,                   /*     tags: none */
};
CHECK(fetch_rq_v15, gr_fetch_request_t)
{
    CK_INT(m->replica_id, -1); /* 0-14 only: default */
    CK_INT(m->replica_state.replica_id, 3);
    CK_INT(m->replica_state.replica_epoch, 7);
    CK_STR(m->cluster_id, "cl");
    CK_INT(m->topics[0].topic_id.b[15], 0x1f);
    CK_INT(m->topics[0].partitions[0].fetch_offset, 5);
    CK_INT(m->topics[0].partitions[0].partition_max_bytes, 4096);
    CK_INT(m->forgotten_topics_data_cnt, 0);
}

static const uint8_t fetch_rq_v17[] = {
    0x00, 0x00, 0x01, 0xf4, /* MaxWaitMs: 500 */
    0x00, 0x00, 0x00, 0x01, /* MinBytes: 1 */
    0x7f, 0xff, 0xff, 0xff, /* MaxBytes: INT32_MAX */
    0x01,                   /* IsolationLevel: 1 */
    0x00, 0x00, 0x00, 0x09, /* SessionId: 9 */
    0x00, 0x00, 0x00, 0x02, /* SessionEpoch: 2 */
    0x02,                   /* Topics: 1 element */
    0x10, 0x11, 0x12, 0x13, /*   TopicId: UUID 10 11 .. 1f */
    0x14, 0x15, 0x16, 0x17, /*  */
    0x18, 0x19, 0x1a, 0x1b, /*  */
    0x1c, 0x1d, 0x1e, 0x1f, /*  */
    0x03,                   /*   Partitions: 2 elements */
    0x00, 0x00, 0x00, 0x00, /*     Partition: 0 */
    0xff, 0xff, 0xff, 0xff, /*     CurrentLeaderEpoch: -1 */
    0x00, 0x00, 0x00, 0x00, /*     FetchOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0xff, 0xff, 0xff, 0xff, /*     LastFetchedEpoch: -1 */
    0xff, 0xff, 0xff, 0xff, /*     LogStartOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x10, 0x00, 0x00, /*     PartitionMaxBytes: 1 MiB */
    0x01,                   /*     tags: 1 field */
    0x00, 0x10,             /*       tag 0 (ReplicaDirectoryId), 16 */
    0xd0, 0xd1, 0xd2, 0xd3, /*       UUID d0 d1 .. df */
    0xd4, 0xd5, 0xd6, 0xd7, /*  */
    0xd8, 0xd9, 0xda, 0xdb, /*  */
    0xdc, 0xdd, 0xde, 0xdf, /*  */
    0x00, 0x00, 0x00, 0x01, /*     Partition: 1 */
    0xff, 0xff, 0xff, 0xff, /*     CurrentLeaderEpoch: -1 */
    0x00, 0x00, 0x00, 0x00, /*     FetchOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0xff, 0xff, 0xff, 0xff, /*     LastFetchedEpoch: -1 */
    0xff, 0xff, 0xff, 0xff, /*     LogStartOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x10, 0x00, 0x00, /*     PartitionMaxBytes: 1 MiB */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x02,                   /* ForgottenTopicsData: 1 element */
    0x20, 0x21, 0x22, 0x23, /*   TopicId: UUID 20 21 .. 2f */
    0x24, 0x25, 0x26, 0x27, /*  */
    0x28, 0x29, 0x2a, 0x2b, /*  */
    0x2c, 0x2d, 0x2e, 0x2f, /*  */
    0x01,                   /*   Partitions: empty */
    0x00,                   /*   tags: none */
    0x03, 'r',  '1',        /* RackId: "r1" */
    0x00,                   /* tags: none */
};
CHECK(fetch_rq_v17, gr_fetch_request_t)
{
    CK_INT(m->isolation_level, 1);
    CK_INT(m->session_id, 9);
    CK_INT(m->topics[0].partitions_cnt, 2);
    CK_INT(m->topics[0].partitions[0].replica_directory_id.b[0], 0xd0);
    CK_INT(m->topics[0].partitions[0].replica_directory_id.b[15], 0xdf);
    ck_assert(
        gr_uuid_is_zero(&m->topics[0].partitions[1].replica_directory_id));
    CK_INT(m->forgotten_topics_data[0].topic_id.b[0], 0x20);
    CK_STR(m->rack_id, "r1");
    CK_NULL(m->cluster_id);                  /* tag absent */
    CK_INT(m->replica_state.replica_id, -1); /* tag absent */
    CK_INT(m->replica_state.replica_epoch, -1);
}

static const uint8_t fetch_rs_v16[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x00, /* SessionId: 0 */
    0x02,                   /* Responses: 1 element */
    0x10, 0x11, 0x12, 0x13, /*   TopicId: UUID 10 11 .. 1f */
    0x14, 0x15, 0x16, 0x17, /*  */
    0x18, 0x19, 0x1a, 0x1b, /*  */
    0x1c, 0x1d, 0x1e, 0x1f, /*  */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x4a,             /*     ErrorCode: 74 (FENCED_LEADER_EPOCH) */
    0x00, 0x00, 0x00, 0x00, /*     HighWatermark: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x00, /*     LastStableOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x00, /*     LogStartOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x01,                   /*     AbortedTransactions: empty */
    0xff, 0xff, 0xff, 0xff, /*     PreferredReadReplica: -1 */
    0x01,                   /*     Records: empty */
    0x02,                   /*     tags: 2 fields */
    0x01, 0x09,             /*       tag 1 (CurrentLeader), 9 bytes */
    0x00, 0x00, 0x00, 0x02, /*         LeaderId: 2 */
    0x00, 0x00, 0x00, 0x06, /*         LeaderEpoch: 6 */
    0x00,                   /*         tags: none */
    0x02, 0x0d,             /*       tag 2 (SnapshotId), 13 bytes */
    0x00, 0x00, 0x00, 0x00, /*         EndOffset: 40 */
    0x00, 0x00, 0x00, 0x28, /*  */
    0x00, 0x00, 0x00, 0x03, /*         Epoch: 3 */
    0x00,                   /*         tags: none */
    0x00,                   /*   tags: none */
    0x01,                   /* tags: 1 field */
    0x00, 0x1a,             /*   tag 0 (NodeEndpoints), 26 bytes */
    0x03,                   /*     COMPACT_ARRAY, 2 elements */
    0x00, 0x00, 0x00, 0x01, /*       NodeId: 1 */
    0x02, 'h',              /*       Host: "h" */
    0x00, 0x00, 0x23, 0x84, /*       Port: 9092 */
    0x02, 'r',              /*       Rack: "r" */
    0x00,                   /*       tags: none */
    0x00, 0x00, 0x00, 0x02, /*       NodeId: 2 */
    0x02, 'h',              /*       Host: "h" */
    0x00, 0x00, 0x23, 0x85, /*       Port: 9093 */
    0x00,                   /*       Rack: null */
    0x00,                   /*       tags: none */
};
CHECK(fetch_rs_v16, gr_fetch_response_t)
{
    const gr_fetch_response_partition_data_t *pd =
        &m->responses[0].partitions[0];
    CK_INT(pd->error_code, 74);
    CK_INT(pd->aborted_transactions_cnt, 0);
    CK_INT(pd->records.len, 0);
    CK_INT(pd->diverging_epoch.epoch, -1); /* tag absent */
    CK_INT(pd->current_leader.leader_id, 2);
    CK_INT(pd->current_leader.leader_epoch, 6);
    CK_INT(pd->snapshot_id.end_offset, 40);
    CK_INT(pd->snapshot_id.epoch, 3);
    CK_INT(m->node_endpoints_cnt, 2);
    CK_STR(m->node_endpoints[0].rack, "r");
    CK_INT(m->node_endpoints[1].port, 9093);
    CK_NULL(m->node_endpoints[1].rack);
}

/* ---- FindCoordinator (10): v0 and the v1 request in golden frames (the
 * v1 response is a known kafka-python mistake), v3-v4 in check_vectors.c
 * ---- */

static const uint8_t find_coordinator_rs_v1[] = {
    0x00, 0x00, 0x00, 0x0c, /* ThrottleTimeMs: 12 */
    0x00, 0x0f,             /* ErrorCode: 15 (COORDINATOR_NOT_AVAIL.) */
    0x00, 0x02, 'n',  'a',  /* ErrorMessage: "na" */
    0xff, 0xff, 0xff, 0xff, /* NodeId: -1 */
    0x00, 0x00,             /* Host: "" */
    0xff, 0xff, 0xff, 0xff, /* Port: -1 */
};
CHECK(find_coordinator_rs_v1, gr_find_coordinator_response_t)
{
    CK_INT(m->throttle_time_ms, 12);
    CK_INT(m->error_code, 15);
    CK_STR(m->error_message, "na");
    CK_INT(m->node_id, -1);
    CK_INT(m->host.len, 0);
    CK_INT(m->port, -1);
    CK_INT(m->coordinators_cnt, 0); /* 4+: default */
}

/* ---- GroupMetadataKey (data, key version 2 of __consumer_offsets) ---- */

static const uint8_t group_metadata_key_v2[] = {
    0x00, 0x03, 'g', 'r', 'p', /* group: STRING "grp" */
};
CHECK(group_metadata_key_v2, gr_group_metadata_key_t)
{
    CK_STR(m->group, "grp");
    CK_INT(m->group.len, 3);
    CK_INT(m->group.ptr[0], 'g');
}

/* ---- GroupMetadataValue (data): v1 rebalanceTimeout, v2
 * currentStateTimestamp, v3 groupInstanceId, v4 flexible ---- */

static const uint8_t group_metadata_value_v0[] = {
    0x00, 0x08, 'c',  'o',  /* protocolType: "consumer" */
    'n',  's',  'u',  'm',  /*  */
    'e',  'r',              /*  */
    0x00, 0x00, 0x00, 0x02, /* generation: 2 */
    0x00, 0x05, 'r',  'a',  /* protocol: "range" */
    'n',  'g',  'e',        /*  */
    0x00, 0x01, 'm',        /* leader: "m" */
    0x00, 0x00, 0x00, 0x01, /* members: ARRAY, 1 element */
    0x00, 0x01, 'm',        /*   memberId: "m" */
    0x00, 0x01, 'c',        /*   clientId: "c" */
    0x00, 0x02, '/',  'h',  /*   clientHost: "/h" */
    0x00, 0x00, 0x27, 0x10, /*   sessionTimeout: 10000 */
    0x00, 0x00, 0x00, 0x01, /*   subscription: BYTES, 1 */
    0x0a,                   /*  */
    0x00, 0x00, 0x00, 0x02, /*   assignment: BYTES, 2 */
    0x0b, 0x0c,             /*  */
};
CHECK(group_metadata_value_v0, gr_group_metadata_value_t)
{
    CK_STR(m->protocol_type, "consumer");
    CK_INT(m->generation, 2);
    CK_STR(m->protocol, "range");
    CK_STR(m->leader, "m");
    CK_INT(m->current_state_timestamp, -1); /* 2+: default */
    CK_STR(m->members[0].client_host, "/h");
    CK_INT(m->members[0].session_timeout, 10000);
    CK_INT(m->members[0].rebalance_timeout, -1); /* 1+: default */
    CK_NULL(m->members[0].group_instance_id);    /* 3+: default */
    CK_INT(m->members[0].assignment.len, 2);
}

static const uint8_t group_metadata_value_v1[] = {
    0x00, 0x08, 'c',  'o',  /* protocolType: "consumer" */
    'n',  's',  'u',  'm',  /*  */
    'e',  'r',              /*  */
    0x00, 0x00, 0x00, 0x00, /* generation: 0 */
    0xff, 0xff,             /* protocol: null (empty group) */
    0xff, 0xff,             /* leader: null */
    0x00, 0x00, 0x00, 0x01, /* members: ARRAY, 1 element */
    0x00, 0x01, 'm',        /*   memberId: "m" */
    0x00, 0x01, 'c',        /*   clientId: "c" */
    0x00, 0x01, 'h',        /*   clientHost: "h" */
    0x00, 0x04, 0x93, 0xe0, /*   rebalanceTimeout: 300000 */
    0x00, 0x00, 0x27, 0x10, /*   sessionTimeout: 10000 */
    0x00, 0x00, 0x00, 0x00, /*   subscription: empty */
    0x00, 0x00, 0x00, 0x00, /*   assignment: empty */
};
CHECK(group_metadata_value_v1, gr_group_metadata_value_t)
{
    CK_INT(m->generation, 0);
    CK_NULL(m->protocol);
    CK_NULL(m->leader);
    CK_INT(m->members[0].rebalance_timeout, 300000);
    CK_INT(m->members[0].session_timeout, 10000);
    CK_INT(m->current_state_timestamp, -1);
}

static const uint8_t group_metadata_value_v2[] = {
    0x00, 0x00,             /* protocolType: "" */
    0x00, 0x00, 0x00, 0x01, /* generation: 1 */
    0xff, 0xff,             /* protocol: null */
    0xff, 0xff,             /* leader: null */
    0x00, 0x00, 0x01, 0x8b, /* currentStateTimestamp: 0x18b00000000 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x00, /* members: empty */
};
CHECK(group_metadata_value_v2, gr_group_metadata_value_t)
{
    CK_INT(m->protocol_type.len, 0);
    CK_INT(m->generation, 1);
    CK_NULL(m->protocol);
    CK_INT(m->current_state_timestamp, (int64_t)0x18b << 32);
    CK_INT(m->members_cnt, 0);
}

static const uint8_t group_metadata_value_v3[] = {
    0x00, 0x08, 'c',  'o',  /* protocolType: "consumer" */
    'n',  's',  'u',  'm',  /*  */
    'e',  'r',              /*  */
    0x00, 0x00, 0x00, 0x05, /* generation: 5 */
    0x00, 0x05, 'r',  'a',  /* protocol: "range" */
    'n',  'g',  'e',        /*  */
    0x00, 0x01, 'm',        /* leader: "m" */
    0xff, 0xff, 0xff, 0xff, /* currentStateTimestamp: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x00, 0x00, 0x01, /* members: ARRAY, 1 element */
    0x00, 0x01, 'm',        /*   memberId: "m" */
    0x00, 0x01, 'i',        /*   groupInstanceId: "i" */
    0x00, 0x01, 'c',        /*   clientId: "c" */
    0x00, 0x01, 'h',        /*   clientHost: "h" */
    0x00, 0x00, 0x75, 0x30, /*   rebalanceTimeout: 30000 */
    0x00, 0x00, 0x17, 0x70, /*   sessionTimeout: 6000 */
    0x00, 0x00, 0x00, 0x00, /*   subscription: empty */
    0x00, 0x00, 0x00, 0x00, /*   assignment: empty */
};
CHECK(group_metadata_value_v3, gr_group_metadata_value_t)
{
    CK_INT(m->generation, 5);
    CK_INT(m->current_state_timestamp, -1);
    CK_STR(m->members[0].group_instance_id, "i");
    CK_INT(m->members[0].rebalance_timeout, 30000);
    CK_INT(m->members[0].session_timeout, 6000);
}

static const uint8_t group_metadata_value_v4[] = {
    0x09, 'c',  'o',  'n',  /* protocolType: COMPACT "consumer" */
    's',  'u',  'm',  'e',  /*  */
    'r',                    /*  */
    0x00, 0x00, 0x00, 0x05, /* generation: 5 */
    0x06, 'r',  'a',  'n',  /* protocol: "range" */
    'g',  'e',              /*  */
    0x02, 'm',              /* leader: "m" */
    0x00, 0x00, 0x00, 0x00, /* currentStateTimestamp: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x02,                   /* members: COMPACT_ARRAY, 1 element */
    0x02, 'm',              /*   memberId: "m" */
    0x00,                   /*   groupInstanceId: null */
    0x02, 'c',              /*   clientId: "c" */
    0x02, 'h',              /*   clientHost: "h" */
    0x00, 0x00, 0x75, 0x30, /*   rebalanceTimeout: 30000 */
    0x00, 0x00, 0x17, 0x70, /*   sessionTimeout: 6000 */
    0x02, 0x01,             /*   subscription: COMPACT_BYTES, 1 */
    0x01,                   /*   assignment: COMPACT_BYTES, empty */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(group_metadata_value_v4, gr_group_metadata_value_t)
{
    CK_STR(m->protocol_type, "consumer");
    CK_STR(m->leader, "m");
    CK_INT(m->current_state_timestamp, 1000);
    CK_NULL(m->members[0].group_instance_id);
    CK_INT(m->members[0].subscription.len, 1);
    CK_INT(m->members[0].assignment.len, 0);
}

/* ---- Heartbeat (12): v0-v1 in golden frames; v3 adds GroupInstanceId, v4
 * first flexible ---- */

static const uint8_t heartbeat_rq_v3[] = {
    0x00, 0x01, 'g',        /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x04, /* GenerationId: 4 */
    0x00, 0x01, 'm',        /* MemberId: "m" */
    0x00, 0x01, 'i',        /* GroupInstanceId: "i" */
};
CHECK(heartbeat_rq_v3, gr_heartbeat_request_t)
{
    CK_STR(m->group_id, "g");
    CK_INT(m->generation_id, 4);
    CK_STR(m->member_id, "m");
    CK_STR(m->group_instance_id, "i");
}

static const uint8_t heartbeat_rq_v4[] = {
    0x02, 'g',              /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x04, /* GenerationId: 4 */
    0x02, 'm',              /* MemberId: "m" */
    0x00,                   /* GroupInstanceId: null */
    0x00,                   /* tags: none */
};
CHECK(heartbeat_rq_v4, gr_heartbeat_request_t)
{
    CK_STR(m->group_id, "g");
    CK_INT(m->generation_id, 4);
    CK_STR(m->member_id, "m");
    CK_NULL(m->group_instance_id);
}

static const uint8_t heartbeat_rs_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x1b,             /* ErrorCode: 27 (REBALANCE_IN_PROGRESS) */
    0x00,                   /* tags: none */
};
CHECK(heartbeat_rs_v4, gr_heartbeat_response_t)
{
    CK_INT(m->throttle_time_ms, 0);
    CK_INT(m->error_code, 27);
}

/* ---- IncrementalAlterConfigs (44): v0, v1 first flexible ---- */

static const uint8_t incremental_alter_configs_rq_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* Resources: ARRAY, 1 element */
    0x02,                   /*   ResourceType: 2 (TOPIC) */
    0x00, 0x01, 't',        /*   ResourceName: "t" */
    0x00, 0x00, 0x00, 0x02, /*   Configs: ARRAY, 2 elements */
    0x00, 0x01, 'a',        /*     Name: "a" */
    0x00,                   /*     ConfigOperation: 0 (SET) */
    0x00, 0x01, '1',        /*     Value: "1" */
    0x00, 0x01, 'b',        /*     Name: "b" */
    0x01,                   /*     ConfigOperation: 1 (DELETE) */
    0xff, 0xff,             /*     Value: null */
    0x00,                   /* ValidateOnly: false */
};
CHECK(incremental_alter_configs_rq_v0, gr_incremental_alter_configs_request_t)
{
    CK_INT(m->resources[0].resource_type, 2);
    CK_INT(m->resources[0].configs_cnt, 2);
    CK_STR(m->resources[0].configs[0].value, "1");
    CK_INT(m->resources[0].configs[1].config_operation, 1);
    CK_NULL(m->resources[0].configs[1].value);
    ck_assert(!m->validate_only);
}

static const uint8_t incremental_alter_configs_rq_v1[] = {
    0x02,      /* Resources: 1 element */
    0x04,      /*   ResourceType: 4 (BROKER) */
    0x02, '0', /*   ResourceName: "0" */
    0x02,      /*   Configs: 1 element */
    0x02, 'a', /*     Name: "a" */
    0x02,      /*     ConfigOperation: 2 (APPEND) */
    0x02, 'x', /*     Value: "x" */
    0x00,      /*     tags: none */
    0x00,      /*   tags: none */
    0x01,      /* ValidateOnly: true */
    0x00,      /* tags: none */
};
CHECK(incremental_alter_configs_rq_v1, gr_incremental_alter_configs_request_t)
{
    CK_INT(m->resources[0].resource_type, 4);
    CK_STR(m->resources[0].resource_name, "0");
    CK_INT(m->resources[0].configs[0].config_operation, 2);
    CK_STR(m->resources[0].configs[0].value, "x");
    ck_assert(m->validate_only);
}

static const uint8_t incremental_alter_configs_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* Responses: ARRAY, 1 element */
    0x00, 0x28,             /*   ErrorCode: 40 (INVALID_CONFIG) */
    0x00, 0x01, 'e',        /*   ErrorMessage: "e" */
    0x02,                   /*   ResourceType: 2 */
    0x00, 0x01, 't',        /*   ResourceName: "t" */
};
CHECK(incremental_alter_configs_rs_v0, gr_incremental_alter_configs_response_t)
{
    CK_INT(m->responses[0].error_code, 40);
    CK_STR(m->responses[0].error_message, "e");
    CK_INT(m->responses[0].resource_type, 2);
    CK_STR(m->responses[0].resource_name, "t");
}

static const uint8_t incremental_alter_configs_rs_v1[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Responses: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
    0x04,                   /*   ResourceType: 4 */
    0x02, '0',              /*   ResourceName: "0" */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(incremental_alter_configs_rs_v1, gr_incremental_alter_configs_response_t)
{
    CK_INT(m->responses[0].error_code, 0);
    CK_NULL(m->responses[0].error_message);
    CK_INT(m->responses[0].resource_type, 4);
    CK_STR(m->responses[0].resource_name, "0");
}

/* ---- InitProducerId (22): requests and the v2 response in
 * check_vectors.c; the v0 response ---- */

static const uint8_t init_producer_id_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 4000 */
    0x00, 0x00, 0x0f, 0xa0, /*  */
    0x00, 0x00,             /* ProducerEpoch: 0 */
};
CHECK(init_producer_id_rs_v0, gr_init_producer_id_response_t)
{
    CK_INT(m->throttle_time_ms, 0);
    CK_INT(m->error_code, 0);
    CK_INT(m->producer_id, 4000);
    CK_INT(m->producer_epoch, 0);
}

/* ---- JoinGroup (11): v0-v2 in golden frames, v6 in check_vectors.c; v5
 * adds GroupInstanceId, v8 Reason; v5 response member GroupInstanceId, v7
 * ProtocolType (and a nullable ProtocolName), v9 SkipAssignment ---- */

static const uint8_t join_group_rq_v5[] = {
    0x00, 0x01, 'g',        /* GroupId: "g" */
    0x00, 0x00, 0x27, 0x10, /* SessionTimeoutMs: 10000 */
    0x00, 0x04, 0x93, 0xe0, /* RebalanceTimeoutMs: 300000 */
    0x00, 0x00,             /* MemberId: "" */
    0x00, 0x01, 'i',        /* GroupInstanceId: "i" */
    0x00, 0x08, 'c',  'o',  /* ProtocolType: "consumer" */
    'n',  's',  'u',  'm',  /*  */
    'e',  'r',              /*  */
    0x00, 0x00, 0x00, 0x01, /* Protocols: ARRAY, 1 element */
    0x00, 0x05, 'r',  'a',  /*   Name: "range" */
    'n',  'g',  'e',        /*  */
    0x00, 0x00, 0x00, 0x02, /*   Metadata: BYTES, 2 */
    0x00, 0x01,             /*  */
};
CHECK(join_group_rq_v5, gr_join_group_request_t)
{
    CK_INT(m->session_timeout_ms, 10000);
    CK_INT(m->rebalance_timeout_ms, 300000);
    CK_INT(m->member_id.len, 0);
    CK_STR(m->group_instance_id, "i");
    CK_STR(m->protocols[0].name, "range");
    CK_INT(m->protocols[0].metadata.len, 2);
    CK_NULL(m->reason); /* 8+: default */
}

static const uint8_t join_group_rq_v8[] = {
    0x02, 'g',              /* GroupId: "g" */
    0x00, 0x00, 0x27, 0x10, /* SessionTimeoutMs: 10000 */
    0x00, 0x00, 0x75, 0x30, /* RebalanceTimeoutMs: 30000 */
    0x02, 'm',              /* MemberId: "m" */
    0x00,                   /* GroupInstanceId: null */
    0x09, 'c',  'o',  'n',  /* ProtocolType: "consumer" */
    's',  'u',  'm',  'e',  /*  */
    'r',                    /*  */
    0x02,                   /* Protocols: 1 element */
    0x02, 'r',              /*   Name: "r" */
    0x01,                   /*   Metadata: COMPACT_BYTES, empty */
    0x00,                   /*   tags: none */
    0x04, 'w',  'h',  'y',  /* Reason: "why" */
    0x00,                   /* tags: none */
};
CHECK(join_group_rq_v8, gr_join_group_request_t)
{
    CK_STR(m->member_id, "m");
    CK_NULL(m->group_instance_id);
    CK_INT(m->rebalance_timeout_ms, 30000);
    CK_STR(m->protocols[0].name, "r");
    CK_INT(m->protocols[0].metadata.len, 0);
    CK_STR(m->reason, "why");
}

static const uint8_t join_group_rs_v5[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x03, /* GenerationId: 3 */
    0x00, 0x05, 'r',  'a',  /* ProtocolName: "range" */
    'n',  'g',  'e',        /*  */
    0x00, 0x01, 'm',        /* Leader: "m" */
    0x00, 0x01, 'm',        /* MemberId: "m" */
    0x00, 0x00, 0x00, 0x01, /* Members: ARRAY, 1 element */
    0x00, 0x01, 'm',        /*   MemberId: "m" */
    0x00, 0x01, 'i',        /*   GroupInstanceId: "i" */
    0x00, 0x00, 0x00, 0x01, /*   Metadata: BYTES, 1 */
    0x05,                   /*  */
};
CHECK(join_group_rs_v5, gr_join_group_response_t)
{
    CK_INT(m->generation_id, 3);
    CK_STR(m->protocol_name, "range");
    CK_STR(m->leader, "m");
    CK_STR(m->members[0].group_instance_id, "i");
    CK_INT(m->members[0].metadata.ptr[0], 5);
    CK_NULL(m->protocol_type);      /* 7+: default */
    ck_assert(!m->skip_assignment); /* 9+: default */
}

static const uint8_t join_group_rs_v7[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x4f,             /* ErrorCode: 79 (MEMBER_ID_REQUIRED) */
    0xff, 0xff, 0xff, 0xff, /* GenerationId: -1 */
    0x00,                   /* ProtocolType: null */
    0x00,                   /* ProtocolName: null */
    0x01,                   /* Leader: "" */
    0x03, 'm',  '1',        /* MemberId: "m1" */
    0x01,                   /* Members: empty */
    0x00,                   /* tags: none */
};
CHECK(join_group_rs_v7, gr_join_group_response_t)
{
    CK_INT(m->error_code, 79);
    CK_INT(m->generation_id, -1);
    CK_NULL(m->protocol_type);
    CK_NULL(m->protocol_name);
    CK_INT(m->leader.len, 0);
    CK_STR(m->member_id, "m1");
    CK_INT(m->members_cnt, 0);
}

static const uint8_t join_group_rs_v9[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x01, /* GenerationId: 1 */
    0x09, 'c',  'o',  'n',  /* ProtocolType: "consumer" */
    's',  'u',  'm',  'e',  /*  */
    'r',                    /*  */
    0x02, 'r',              /* ProtocolName: "r" */
    0x02, 'm',              /* Leader: "m" */
    0x01,                   /* SkipAssignment: true */
    0x02, 'm',              /* MemberId: "m" */
    0x02,                   /* Members: 1 element */
    0x02, 'm',              /*   MemberId: "m" */
    0x00,                   /*   GroupInstanceId: null */
    0x01,                   /*   Metadata: empty */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(join_group_rs_v9, gr_join_group_response_t)
{
    CK_STR(m->protocol_type, "consumer");
    CK_STR(m->protocol_name, "r");
    ck_assert(m->skip_assignment);
    CK_STR(m->member_id, "m");
    CK_INT(m->members_cnt, 1);
    CK_NULL(m->members[0].group_instance_id);
}

/* ---- LeaveGroup (13): v0-v1 in golden frames; v3 batches Members, v4
 * first flexible, v5 Reason ---- */

static const uint8_t leave_group_rq_v3[] = {
    0x00, 0x01, 'g',        /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x02, /* Members: ARRAY, 2 elements */
    0x00, 0x01, 'a',        /*   MemberId: "a" */
    0xff, 0xff,             /*   GroupInstanceId: null */
    0x00, 0x00,             /*   MemberId: "" */
    0x00, 0x01, 'i',        /*   GroupInstanceId: "i" */
};
CHECK(leave_group_rq_v3, gr_leave_group_request_t)
{
    CK_STR(m->group_id, "g");
    CK_INT(m->member_id.len, 0); /* 0-2 only: default "" */
    CK_INT(m->members_cnt, 2);
    CK_NULL(m->members[0].group_instance_id);
    CK_STR(m->members[1].group_instance_id, "i");
    CK_NULL(m->members[0].reason); /* 5+: default */
}

static const uint8_t leave_group_rq_v4[] = {
    0x02, 'g', /* GroupId: "g" */
    0x02,      /* Members: 1 element */
    0x02, 'a', /*   MemberId: "a" */
    0x02, 'i', /*   GroupInstanceId: "i" */
    0x00,      /*   tags: none */
    0x00,      /* tags: none */
};
CHECK(leave_group_rq_v4, gr_leave_group_request_t)
{
    CK_STR(m->group_id, "g");
    CK_STR(m->members[0].member_id, "a");
    CK_STR(m->members[0].group_instance_id, "i");
    CK_NULL(m->members[0].reason);
}

static const uint8_t leave_group_rq_v5[] = {
    0x02, 'g',           /* GroupId: "g" */
    0x02,                /* Members: 1 element */
    0x02, 'a',           /*   MemberId: "a" */
    0x00,                /*   GroupInstanceId: null */
    0x04, 'b', 'y', 'e', /*   Reason: "bye" */
    0x00,                /*   tags: none */
    0x00,                /* tags: none */
};
CHECK(leave_group_rq_v5, gr_leave_group_request_t)
{
    CK_STR(m->members[0].member_id, "a");
    CK_NULL(m->members[0].group_instance_id);
    CK_STR(m->members[0].reason, "bye");
}

static const uint8_t leave_group_rs_v3[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x01, /* Members: ARRAY, 1 element */
    0x00, 0x01, 'a',        /*   MemberId: "a" */
    0x00, 0x01, 'i',        /*   GroupInstanceId: "i" */
    0x00, 0x19,             /*   ErrorCode: 25 (UNKNOWN_MEMBER_ID) */
};
CHECK(leave_group_rs_v3, gr_leave_group_response_t)
{
    CK_INT(m->error_code, 0);
    CK_STR(m->members[0].member_id, "a");
    CK_STR(m->members[0].group_instance_id, "i");
    CK_INT(m->members[0].error_code, 25);
}

static const uint8_t leave_group_rs_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x02,                   /* Members: 1 element */
    0x02, 'a',              /*   MemberId: "a" */
    0x00,                   /*   GroupInstanceId: null */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(leave_group_rs_v4, gr_leave_group_response_t)
{
    CK_INT(m->members_cnt, 1);
    CK_STR(m->members[0].member_id, "a");
    CK_NULL(m->members[0].group_instance_id);
    CK_INT(m->members[0].error_code, 0);
}

/* ---- ListGroups (16): v0-v1 (and the v2 response) in golden frames; v3
 * first flexible, v4 StatesFilter/GroupState, v5 TypesFilter/GroupType
 * ---- */

static const uint8_t list_groups_rq_v3[] = {
    0x00, /* tags: none (an empty request) */
};
CHECK(list_groups_rq_v3, gr_list_groups_request_t)
{
    CK_INT(m->states_filter_cnt, 0); /* 4+: default */
    CK_INT(m->types_filter_cnt, 0);  /* 5+: default */
    ck_assert(m->states_filter_cnt == 0 && m->types_filter_cnt == 0);
}

static const uint8_t list_groups_rq_v4[] = {
    0x03,                     /* StatesFilter: 2 COMPACT_STRING */
    0x07, 'S', 't', 'a', 'b', /*   "Stable" */
    'l',  'e',                /*  */
    0x06, 'E', 'm', 'p', 't', /*   "Empty" */
    'y',                      /*  */
    0x00,                     /* tags: none */
};
CHECK(list_groups_rq_v4, gr_list_groups_request_t)
{
    CK_INT(m->states_filter_cnt, 2);
    CK_STR(m->states_filter[0], "Stable");
    CK_STR(m->states_filter[1], "Empty");
    CK_INT(m->types_filter_cnt, 0);
}

static const uint8_t list_groups_rq_v5[] = {
    0x01,                     /* StatesFilter: empty */
    0x02,                     /* TypesFilter: 1 COMPACT_STRING */
    0x08, 'c', 'l', 'a', 's', /*   "classic" */
    's',  'i', 'c',           /*  */
    0x00,                     /* tags: none */
};
CHECK(list_groups_rq_v5, gr_list_groups_request_t)
{
    CK_INT(m->states_filter_cnt, 0);
    CK_INT(m->types_filter_cnt, 1);
    CK_STR(m->types_filter[0], "classic");
}

static const uint8_t list_groups_rs_v3[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x02,                   /* Groups: 1 element */
    0x02, 'g',              /*   GroupId: "g" */
    0x09, 'c',  'o',  'n',  /*   ProtocolType: "consumer" */
    's',  'u',  'm',  'e',  /*  */
    'r',                    /*  */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(list_groups_rs_v3, gr_list_groups_response_t)
{
    CK_STR(m->groups[0].group_id, "g");
    CK_STR(m->groups[0].protocol_type, "consumer");
    CK_INT(m->groups[0].group_state.len, 0); /* 4+: default "" */
    CK_INT(m->groups[0].group_type.len, 0);  /* 5+: default "" */
}

static const uint8_t list_groups_rs_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x02,                   /* Groups: 1 element */
    0x02, 'g',              /*   GroupId: "g" */
    0x01,                   /*   ProtocolType: "" */
    0x06, 'E',  'm',  'p',  /*   GroupState: "Empty" */
    't',  'y',              /*  */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(list_groups_rs_v4, gr_list_groups_response_t)
{
    CK_STR(m->groups[0].group_id, "g");
    CK_INT(m->groups[0].protocol_type.len, 0);
    CK_STR(m->groups[0].group_state, "Empty");
    CK_INT(m->groups[0].group_type.len, 0);
}

static const uint8_t list_groups_rs_v5[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x02,                   /* Groups: 1 element */
    0x02, 'g',              /*   GroupId: "g" */
    0x09, 'c',  'o',  'n',  /*   ProtocolType: "consumer" */
    's',  'u',  'm',  'e',  /*  */
    'r',                    /*  */
    0x07, 'S',  't',  'a',  /*   GroupState: "Stable" */
    'b',  'l',  'e',        /*  */
    0x08, 'c',  'l',  'a',  /*   GroupType: "classic" */
    's',  's',  'i',  'c',  /*  */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(list_groups_rs_v5, gr_list_groups_response_t)
{
    CK_STR(m->groups[0].protocol_type, "consumer");
    CK_STR(m->groups[0].group_state, "Stable");
    CK_STR(m->groups[0].group_type, "classic");
}

/* ---- ListOffsets (2): v0-v3 (and the v4-v5 responses) in golden frames;
 * v4 request adds CurrentLeaderEpoch, v6 first flexible, v10 TimeoutMs
 * ---- */

static const uint8_t list_offsets_rq_v4[] = {
    0xff, 0xff, 0xff, 0xff, /* ReplicaId: -1 */
    0x01,                   /* IsolationLevel: 1 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x02, /*     CurrentLeaderEpoch: 2 */
    0xff, 0xff, 0xff, 0xff, /*     Timestamp: -1 (latest) */
    0xff, 0xff, 0xff, 0xff, /*  */
};
CHECK(list_offsets_rq_v4, gr_list_offsets_request_t)
{
    CK_INT(m->replica_id, -1);
    CK_INT(m->isolation_level, 1);
    CK_INT(m->topics[0].partitions[0].current_leader_epoch, 2);
    CK_INT(m->topics[0].partitions[0].timestamp, -1);
    CK_INT(m->topics[0].partitions[0].max_num_offsets, 1); /* v0: default */
    CK_INT(m->timeout_ms, 0);                              /* 10+: default */
}

static const uint8_t list_offsets_rq_v6[] = {
    0xff, 0xff, 0xff, 0xff, /* ReplicaId: -1 */
    0x00,                   /* IsolationLevel: 0 */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0xff, 0xff, 0xff, 0xff, /*     CurrentLeaderEpoch: -1 */
    0xff, 0xff, 0xff, 0xff, /*     Timestamp: -2 (earliest) */
    0xff, 0xff, 0xff, 0xfe, /*  */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(list_offsets_rq_v6, gr_list_offsets_request_t)
{
    CK_INT(m->isolation_level, 0);
    CK_INT(m->topics[0].partitions[0].partition_index, 1);
    CK_INT(m->topics[0].partitions[0].current_leader_epoch, -1);
    CK_INT(m->topics[0].partitions[0].timestamp, -2);
    CK_INT(m->timeout_ms, 0);
}

static const uint8_t list_offsets_rq_v10[] = {
    0xff, 0xff, 0xff, 0xff, /* ReplicaId: -1 */
    0x01,                   /* IsolationLevel: 1 */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x01, /*     CurrentLeaderEpoch: 1 */
    0xff, 0xff, 0xff, 0xff, /*     Timestamp: -5 (earliest local...) */
    0xff, 0xff, 0xff, 0xfb, /*  */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x75, 0x30, /* TimeoutMs: 30000 */
    0x00,                   /* tags: none */
};
CHECK(list_offsets_rq_v10, gr_list_offsets_request_t)
{
    CK_INT(m->isolation_level, 1);
    CK_INT(m->topics[0].partitions[0].current_leader_epoch, 1);
    CK_INT(m->topics[0].partitions[0].timestamp, -5);
    CK_INT(m->timeout_ms, 30000);
}

static const uint8_t list_offsets_rs_v6[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0xff, 0xff, 0xff, 0xff, /*     Timestamp: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x00, 0x00, 0x00, /*     Offset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0x00, 0x00, 0x00, 0x03, /*     LeaderEpoch: 3 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(list_offsets_rs_v6, gr_list_offsets_response_t)
{
    CK_INT(m->topics[0].partitions[0].timestamp, -1);
    CK_INT(m->topics[0].partitions[0].offset, 42);
    CK_INT(m->topics[0].partitions[0].leader_epoch, 3);
    CK_INT(m->topics[0].partitions[0].old_style_offsets_cnt, 0); /* v0 */
}

/* ---- ListPartitionReassignments (46): v0 only, flexible ---- */

static const uint8_t list_partition_reassignments_rq_v0[] = {
    0x00, 0x00, 0x75, 0x30, /* TimeoutMs: 30000 */
    0x02,                   /* Topics: COMPACT_NULLABLE_ARRAY, 1 */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   PartitionIndexes: 1 INT32 */
    0x00, 0x00, 0x00, 0x00, /*     0 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(list_partition_reassignments_rq_v0,
      gr_list_partition_reassignments_request_t)
{
    CK_INT(m->timeout_ms, 30000);
    CK_INT(m->topics_cnt, 1);
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].partition_indexes_cnt, 1);
}

static const uint8_t list_partition_reassignments_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00,                   /* ErrorMessage: null */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x03,                   /*     Replicas: 2 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x00, 0x00, 0x00, 0x02, /*       2 */
    0x02,                   /*     AddingReplicas: 1 INT32 */
    0x00, 0x00, 0x00, 0x02, /*       2 */
    0x01,                   /*     RemovingReplicas: empty */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(list_partition_reassignments_rs_v0,
      gr_list_partition_reassignments_response_t)
{
    CK_NULL(m->error_message);
    CK_INT(m->topics[0].partitions[0].replicas_cnt, 2);
    CK_INT(m->topics[0].partitions[0].adding_replicas[0], 2);
    CK_INT(m->topics[0].partitions[0].removing_replicas_cnt, 0);
}

/* ---- ListTransactions (66): v0 flexible, v1 DurationFilter ---- */

static const uint8_t list_transactions_rq_v0[] = {
    0x02,                   /* StateFilters: 1 COMPACT_STRING */
    0x08, 'O',  'n',  'g',  /*   "Ongoing" */
    'o',  'i',  'n',  'g',  /*  */
    0x02,                   /* ProducerIdFilters: 1 INT64 */
    0x00, 0x00, 0x00, 0x00, /*   1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00,                   /* tags: none */
};
CHECK(list_transactions_rq_v0, gr_list_transactions_request_t)
{
    CK_INT(m->state_filters_cnt, 1);
    CK_STR(m->state_filters[0], "Ongoing");
    CK_INT(m->producer_id_filters_cnt, 1);
    CK_INT(m->producer_id_filters[0], 1000);
    CK_INT(m->duration_filter, -1); /* 1+: default */
}

static const uint8_t list_transactions_rq_v1[] = {
    0x01,                   /* StateFilters: empty */
    0x01,                   /* ProducerIdFilters: empty */
    0x00, 0x00, 0x00, 0x00, /* DurationFilter: 60000 */
    0x00, 0x00, 0xea, 0x60, /*  */
    0x00,                   /* tags: none */
};
CHECK(list_transactions_rq_v1, gr_list_transactions_request_t)
{
    CK_INT(m->state_filters_cnt, 0);
    CK_INT(m->producer_id_filters_cnt, 0);
    CK_INT(m->duration_filter, 60000);
}

static const uint8_t list_transactions_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x02,                   /* UnknownStateFilters: 1 COMPACT_STRING */
    0x02, 'X',              /*   "X" */
    0x02,                   /* TransactionStates: 1 element */
    0x02, 'a',              /*   TransactionalId: "a" */
    0x00, 0x00, 0x00, 0x00, /*   ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x06, 'E',  'm',  'p',  /*   TransactionState: "Empty" */
    't',  'y',              /*  */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(list_transactions_rs_v0, gr_list_transactions_response_t)
{
    CK_STR(m->unknown_state_filters[0], "X");
    CK_STR(m->transaction_states[0].transactional_id, "a");
    CK_INT(m->transaction_states[0].producer_id, 1000);
    CK_STR(m->transaction_states[0].transaction_state, "Empty");
}

/* ---- Metadata (3): requests and v0-v5 responses in check_vectors.c or
 * golden frames; the response gains LeaderEpoch (v7), authorized
 * operations (v8), goes flexible (v9), gains TopicId (v10), loses
 * ClusterAuthorizedOperations (v11), and topic names become nullable (v12)
 * ---- */

static const uint8_t metadata_rs_v7[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* Brokers: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x01, /*   NodeId: 1 */
    0x00, 0x01, 'h',        /*   Host: "h" */
    0x00, 0x00, 0x23, 0x84, /*   Port: 9092 */
    0xff, 0xff,             /*   Rack: null */
    0x00, 0x01, 'c',        /* ClusterId: "c" */
    0x00, 0x00, 0x00, 0x01, /* ControllerId: 1 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00,                   /*   IsInternal: false */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x01, /*     LeaderId: 1 */
    0x00, 0x00, 0x00, 0x05, /*     LeaderEpoch: 5 */
    0x00, 0x00, 0x00, 0x01, /*     ReplicaNodes: 1 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x00, 0x00, 0x00, 0x01, /*     IsrNodes: 1 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x00, 0x00, 0x00, 0x00, /*     OfflineReplicas: empty */
};
CHECK(metadata_rs_v7, gr_metadata_response_t)
{
    CK_NULL(m->brokers[0].rack);
    CK_STR(m->cluster_id, "c");
    CK_INT(m->topics[0].partitions[0].leader_epoch, 5);
    CK_INT(m->topics[0].partitions[0].isr_nodes[0], 1);
    CK_INT(m->topics[0].partitions[0].offline_replicas_cnt, 0);
    CK_INT(m->topics[0].topic_authorized_operations, INT32_MIN); /* 8+ */
    CK_INT(m->cluster_authorized_operations, INT32_MIN);         /* 8-10 */
}

static const uint8_t metadata_rs_v8[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* Brokers: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x01, /*   NodeId: 1 */
    0x00, 0x01, 'h',        /*   Host: "h" */
    0x00, 0x00, 0x23, 0x84, /*   Port: 9092 */
    0x00, 0x01, 'r',        /*   Rack: "r" */
    0xff, 0xff,             /* ClusterId: null */
    0xff, 0xff, 0xff, 0xff, /* ControllerId: -1 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x03,             /*   ErrorCode: 3 */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00,                   /*   IsInternal: false */
    0x00, 0x00, 0x00, 0x00, /*   Partitions: empty */
    0x00, 0x00, 0x00, 0x08, /*   TopicAuthorizedOperations: 8 */
    0x00, 0x00, 0x01, 0x00, /* ClusterAuthorizedOperations: 256 */
};
CHECK(metadata_rs_v8, gr_metadata_response_t)
{
    CK_STR(m->brokers[0].rack, "r");
    CK_NULL(m->cluster_id);
    CK_INT(m->controller_id, -1);
    CK_INT(m->topics[0].error_code, 3);
    CK_INT(m->topics[0].topic_authorized_operations, 8);
    CK_INT(m->cluster_authorized_operations, 256);
}

static const uint8_t metadata_rs_v9[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Brokers: 1 element */
    0x00, 0x00, 0x00, 0x01, /*   NodeId: 1 */
    0x02, 'h',              /*   Host: "h" */
    0x00, 0x00, 0x23, 0x84, /*   Port: 9092 */
    0x00,                   /*   Rack: null */
    0x00,                   /*   tags: none */
    0x02, 'c',              /* ClusterId: "c" */
    0x00, 0x00, 0x00, 0x01, /* ControllerId: 1 */
    0x02,                   /* Topics: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x02, 't',              /*   Name: "t" */
    0x01,                   /*   IsInternal: true */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x02, /*     PartitionIndex: 2 */
    0x00, 0x00, 0x00, 0x01, /*     LeaderId: 1 */
    0xff, 0xff, 0xff, 0xff, /*     LeaderEpoch: -1 */
    0x02,                   /*     ReplicaNodes: 1 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x01,                   /*     IsrNodes: empty */
    0x02,                   /*     OfflineReplicas: 1 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x00,                   /*     tags: none */
    0x80, 0x00, 0x00, 0x00, /*   TopicAuthorizedOperations: INT32_MIN */
    0x00,                   /*   tags: none */
    0x80, 0x00, 0x00, 0x00, /* ClusterAuthorizedOperations: INT32_MIN */
    0x00,                   /* tags: none */
};
CHECK(metadata_rs_v9, gr_metadata_response_t)
{
    CK_STR(m->cluster_id, "c");
    ck_assert(m->topics[0].is_internal);
    CK_INT(m->topics[0].partitions[0].partition_index, 2);
    CK_INT(m->topics[0].partitions[0].isr_nodes_cnt, 0);
    CK_INT(m->topics[0].partitions[0].offline_replicas[0], 1);
    ck_assert(gr_uuid_is_zero(&m->topics[0].topic_id)); /* 10+ */
}

static const uint8_t metadata_rs_v10[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x01,                   /* Brokers: empty */
    0x00,                   /* ClusterId: null */
    0xff, 0xff, 0xff, 0xff, /* ControllerId: -1 */
    0x02,                   /* Topics: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x02, 't',              /*   Name: "t" */
    0x30, 0x31, 0x32, 0x33, /*   TopicId: UUID 30 31 .. 3f */
    0x34, 0x35, 0x36, 0x37, /*  */
    0x38, 0x39, 0x3a, 0x3b, /*  */
    0x3c, 0x3d, 0x3e, 0x3f, /*  */
    0x00,                   /*   IsInternal: false */
    0x01,                   /*   Partitions: empty */
    0x00, 0x00, 0x00, 0x08, /*   TopicAuthorizedOperations: 8 */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x00, 0x10, /* ClusterAuthorizedOperations: 16 */
    0x00,                   /* tags: none */
};
CHECK(metadata_rs_v10, gr_metadata_response_t)
{
    CK_INT(m->brokers_cnt, 0);
    CK_NULL(m->cluster_id);
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].topic_id.b[0], 0x30);
    CK_INT(m->topics[0].topic_id.b[15], 0x3f);
    CK_INT(m->cluster_authorized_operations, 16);
}

static const uint8_t metadata_rs_v11[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Brokers: 1 element */
    0x00, 0x00, 0x00, 0x02, /*   NodeId: 2 */
    0x02, 'h',              /*   Host: "h" */
    0x00, 0x00, 0x23, 0x85, /*   Port: 9093 */
    0x02, 'r',              /*   Rack: "r" */
    0x00,                   /*   tags: none */
    0x02, 'c',              /* ClusterId: "c" */
    0x00, 0x00, 0x00, 0x02, /* ControllerId: 2 */
    0x02,                   /* Topics: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x02, 't',              /*   Name: "t" */
    0x30, 0x31, 0x32, 0x33, /*   TopicId: UUID 30 31 .. 3f */
    0x34, 0x35, 0x36, 0x37, /*  */
    0x38, 0x39, 0x3a, 0x3b, /*  */
    0x3c, 0x3d, 0x3e, 0x3f, /*  */
    0x00,                   /*   IsInternal: false */
    0x01,                   /*   Partitions: empty */
    0x80, 0x00, 0x00, 0x00, /*   TopicAuthorizedOperations: INT32_MIN */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(metadata_rs_v11, gr_metadata_response_t)
{
    CK_INT(m->brokers[0].node_id, 2);
    CK_STR(m->brokers[0].rack, "r");
    CK_INT(m->controller_id, 2);
    CK_INT(m->topics[0].topic_id.b[1], 0x31);
    CK_INT(m->cluster_authorized_operations, INT32_MIN); /* 8-10 only */
}

static const uint8_t metadata_rs_v12[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x01,                   /* Brokers: empty */
    0x02, 'c',              /* ClusterId: "c" */
    0x00, 0x00, 0x00, 0x01, /* ControllerId: 1 */
    0x02,                   /* Topics: 1 element */
    0x00, 0x64,             /*   ErrorCode: 100 (UNKNOWN_TOPIC_ID) */
    0x00,                   /*   Name: null */
    0x30, 0x31, 0x32, 0x33, /*   TopicId: UUID 30 31 .. 3f */
    0x34, 0x35, 0x36, 0x37, /*  */
    0x38, 0x39, 0x3a, 0x3b, /*  */
    0x3c, 0x3d, 0x3e, 0x3f, /*  */
    0x00,                   /*   IsInternal: false */
    0x01,                   /*   Partitions: empty */
    0x80, 0x00, 0x00, 0x00, /*   TopicAuthorizedOperations: INT32_MIN */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(metadata_rs_v12, gr_metadata_response_t)
{
    CK_INT(m->topics[0].error_code, 100);
    CK_NULL(m->topics[0].name);
    CK_INT(m->topics[0].topic_id.b[15], 0x3f);
    CK_INT(m->topics[0].partitions_cnt, 0);
}

/* ---- OffsetCommit (8): v0-v3 in golden frames, v8 in check_vectors.c;
 * v5 drops RetentionTimeMs, v6 adds CommittedLeaderEpoch, v7
 * GroupInstanceId ---- */

static const uint8_t offset_commit_rq_v5[] = {
    0x00, 0x01, 'g',        /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x02, /* GenerationIdOrMemberEpoch: 2 */
    0x00, 0x01, 'm',        /* MemberId: "m" */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0xff, 0xff,             /*     CommittedMetadata: null */
};
CHECK(offset_commit_rq_v5, gr_offset_commit_request_t)
{
    CK_INT(m->generation_id_or_member_epoch, 2);
    CK_STR(m->member_id, "m");
    CK_INT(m->retention_time_ms, -1); /* 2-4 only: default */
    CK_NULL(m->group_instance_id);    /* 7+: default */
    CK_INT(m->topics[0].partitions[0].committed_offset, 42);
    CK_INT(m->topics[0].partitions[0].committed_leader_epoch, -1); /* 6+ */
    CK_INT(m->topics[0].partitions[0].commit_timestamp, -1);       /* v1 only */
    CK_NULL(m->topics[0].partitions[0].committed_metadata);
}

static const uint8_t offset_commit_rq_v6[] = {
    0x00, 0x01, 'g',        /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x02, /* GenerationIdOrMemberEpoch: 2 */
    0x00, 0x01, 'm',        /* MemberId: "m" */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 7 */
    0x00, 0x00, 0x00, 0x07, /*  */
    0x00, 0x00, 0x00, 0x04, /*     CommittedLeaderEpoch: 4 */
    0x00, 0x02, 'm',  'd',  /*     CommittedMetadata: "md" */
};
CHECK(offset_commit_rq_v6, gr_offset_commit_request_t)
{
    CK_INT(m->topics[0].partitions[0].partition_index, 1);
    CK_INT(m->topics[0].partitions[0].committed_offset, 7);
    CK_INT(m->topics[0].partitions[0].committed_leader_epoch, 4);
    CK_STR(m->topics[0].partitions[0].committed_metadata, "md");
    CK_NULL(m->group_instance_id);
}

static const uint8_t offset_commit_rq_v7[] = {
    0x00, 0x01, 'g',        /* GroupId: "g" */
    0xff, 0xff, 0xff, 0xff, /* GenerationIdOrMemberEpoch: -1 */
    0x00, 0x00,             /* MemberId: "" */
    0x00, 0x01, 'i',        /* GroupInstanceId: "i" */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0xff, 0xff, 0xff, 0xff, /*     CommittedLeaderEpoch: -1 */
    0x00, 0x00,             /*     CommittedMetadata: "" */
};
CHECK(offset_commit_rq_v7, gr_offset_commit_request_t)
{
    CK_INT(m->generation_id_or_member_epoch, -1);
    CK_INT(m->member_id.len, 0);
    CK_STR(m->group_instance_id, "i");
    CK_INT(m->topics[0].partitions[0].committed_leader_epoch, -1);
    CK_INT(m->topics[0].partitions[0].committed_metadata.len, 0);
}

/* ---- OffsetCommitKey (data, key versions 0 and 1 of __consumer_offsets,
 * one shape) ---- */

static const uint8_t offset_commit_key_v0[] = {
    0x00, 0x01, 'g',        /* group: "g" */
    0x00, 0x01, 't',        /* topic: "t" */
    0x00, 0x00, 0x00, 0x03, /* partition: 3 */
};
CHECK(offset_commit_key_v0, gr_offset_commit_key_t)
{
    CK_STR(m->group, "g");
    CK_STR(m->topic, "t");
    CK_INT(m->partition, 3);
}

static const uint8_t offset_commit_key_v1[] = {
    0x00, 0x02, 'g',  '1',  /* group: "g1" */
    0x00, 0x02, 't',  '1',  /* topic: "t1" */
    0x7f, 0xff, 0xff, 0xff, /* partition: INT32_MAX */
};
CHECK(offset_commit_key_v1, gr_offset_commit_key_t)
{
    CK_STR(m->group, "g1");
    CK_STR(m->topic, "t1");
    CK_INT(m->partition, INT32_MAX);
}

/* ---- OffsetCommitValue (data): v1 adds expireTimestamp, v2 drops it, v3
 * adds leaderEpoch, v4 flexible ---- */

static const uint8_t offset_commit_value_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* offset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0x00, 0x01, 'x',        /* metadata: "x" */
    0x00, 0x00, 0x01, 0x8b, /* commitTimestamp: 0x18b00000000 */
    0x00, 0x00, 0x00, 0x00, /*  */
};
CHECK(offset_commit_value_v0, gr_offset_commit_value_t)
{
    CK_INT(m->offset, 42);
    CK_STR(m->metadata, "x");
    CK_INT(m->commit_timestamp, (int64_t)0x18b << 32);
    CK_INT(m->leader_epoch, -1);     /* 3+: default */
    CK_INT(m->expire_timestamp, -1); /* v1 only: default */
}

static const uint8_t offset_commit_value_v1[] = {
    0x00, 0x00, 0x00, 0x00, /* offset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0x00, 0x00,             /* metadata: "" */
    0x00, 0x00, 0x00, 0x00, /* commitTimestamp: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x00, 0x00, 0x00, /* expireTimestamp: 2000 */
    0x00, 0x00, 0x07, 0xd0, /*  */
};
CHECK(offset_commit_value_v1, gr_offset_commit_value_t)
{
    CK_INT(m->offset, 42);
    CK_INT(m->metadata.len, 0);
    CK_INT(m->commit_timestamp, 1000);
    CK_INT(m->expire_timestamp, 2000);
    CK_INT(m->leader_epoch, -1);
}

static const uint8_t offset_commit_value_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* offset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x02, 'm',  'd',  /* metadata: "md" */
    0x00, 0x00, 0x00, 0x00, /* commitTimestamp: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
};
CHECK(offset_commit_value_v2, gr_offset_commit_value_t)
{
    CK_INT(m->offset, 0);
    CK_STR(m->metadata, "md");
    CK_INT(m->commit_timestamp, 1000);
    CK_INT(m->expire_timestamp, -1);
}

static const uint8_t offset_commit_value_v3[] = {
    0x00, 0x00, 0x00, 0x00, /* offset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0x00, 0x00, 0x00, 0x07, /* leaderEpoch: 7 */
    0x00, 0x01, 'x',        /* metadata: "x" */
    0x00, 0x00, 0x00, 0x00, /* commitTimestamp: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
};
CHECK(offset_commit_value_v3, gr_offset_commit_value_t)
{
    CK_INT(m->offset, 42);
    CK_INT(m->leader_epoch, 7);
    CK_STR(m->metadata, "x");
    CK_INT(m->expire_timestamp, -1);
}

static const uint8_t offset_commit_value_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* offset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0xff, 0xff, 0xff, 0xff, /* leaderEpoch: -1 */
    0x02, 'x',              /* metadata: COMPACT_STRING "x" */
    0x00, 0x00, 0x00, 0x00, /* commitTimestamp: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00,                   /* tags: none */
};
CHECK(offset_commit_value_v4, gr_offset_commit_value_t)
{
    CK_INT(m->offset, 42);
    CK_INT(m->leader_epoch, -1);
    CK_STR(m->metadata, "x");
    CK_INT(m->commit_timestamp, 1000);
}

/* ---- OffsetDelete (47): v0 only, not flexible ---- */

static const uint8_t offset_delete_rq_v0[] = {
    0x00, 0x01, 'g',        /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x02, /*   Partitions: ARRAY, 2 elements */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
};
CHECK(offset_delete_rq_v0, gr_offset_delete_request_t)
{
    CK_STR(m->group_id, "g");
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].partitions_cnt, 2);
    CK_INT(m->topics[0].partitions[1].partition_index, 1);
}

static const uint8_t offset_delete_rs_v0[] = {
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x05, /* ThrottleTimeMs: 5 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00, 0x56,             /*     ErrorCode: 86 (GROUP_SUBSCRIBED_...) */
};
CHECK(offset_delete_rs_v0, gr_offset_delete_response_t)
{
    CK_INT(m->error_code, 0);
    CK_INT(m->throttle_time_ms, 5);
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].partitions[0].error_code, 86);
}

/* ---- OffsetFetch (9): v0-v3 in golden frames, v6 and v8 in
 * check_vectors.c; v7 RequireStable, v9 MemberId/MemberEpoch; the v5
 * response adds CommittedLeaderEpoch ---- */

static const uint8_t offset_fetch_rq_v7[] = {
    0x02, 'g', /* GroupId: "g" */
    0x00,      /* Topics: COMPACT_NULLABLE_ARRAY, null (all) */
    0x01,      /* RequireStable: true */
    0x00,      /* tags: none */
};
CHECK(offset_fetch_rq_v7, gr_offset_fetch_request_t)
{
    CK_STR(m->group_id, "g");
    CK_INT(m->topics_cnt, -1);
    ck_assert(m->require_stable);
    CK_INT(m->groups_cnt, 0); /* 8+: default */
}

static const uint8_t offset_fetch_rq_v9[] = {
    0x02,                   /* Groups: 1 element */
    0x02, 'g',              /*   GroupId: "g" */
    0x02, 'm',              /*   MemberId: "m" */
    0x00, 0x00, 0x00, 0x05, /*   MemberEpoch: 5 */
    0x02,                   /*   Topics: 1 element */
    0x02, 't',              /*     Name: "t" */
    0x02,                   /*     PartitionIndexes: 1 INT32 */
    0x00, 0x00, 0x00, 0x00, /*       0 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* RequireStable: false */
    0x00,                   /* tags: none */
};
CHECK(offset_fetch_rq_v9, gr_offset_fetch_request_t)
{
    CK_INT(m->groups_cnt, 1);
    CK_STR(m->groups[0].member_id, "m");
    CK_INT(m->groups[0].member_epoch, 5);
    CK_STR(m->groups[0].topics[0].name, "t");
    ck_assert(!m->require_stable);
    CK_INT(m->group_id.len, 0); /* 0-7 only: default "" */
}

static const uint8_t offset_fetch_rs_v5[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0x00, 0x00, 0x00, 0x03, /*     CommittedLeaderEpoch: 3 */
    0x00, 0x01, 'x',        /*     Metadata: "x" */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
};
CHECK(offset_fetch_rs_v5, gr_offset_fetch_response_t)
{
    CK_INT(m->topics[0].partitions[0].committed_offset, 42);
    CK_INT(m->topics[0].partitions[0].committed_leader_epoch, 3);
    CK_STR(m->topics[0].partitions[0].metadata, "x");
    CK_INT(m->error_code, 0);
    CK_INT(m->groups_cnt, 0); /* 8+: default */
}

/* ---- OffsetForLeaderEpoch (23): v2 CurrentLeaderEpoch, v3 ReplicaId, v4
 * flexible; response v1 LeaderEpoch, v2 ThrottleTimeMs ---- */

static const uint8_t offset_for_leader_epoch_rq_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*     Partition: 0 */
    0x00, 0x00, 0x00, 0x04, /*     LeaderEpoch: 4 */
};
CHECK(offset_for_leader_epoch_rq_v0, gr_offset_for_leader_epoch_request_t)
{
    CK_INT(m->replica_id, -2); /* 3+: default */
    CK_STR(m->topics[0].topic, "t");
    CK_INT(m->topics[0].partitions[0].leader_epoch, 4);
    CK_INT(m->topics[0].partitions[0].current_leader_epoch, -1); /* 2+ */
}

static const uint8_t offset_for_leader_epoch_rq_v2[] = {
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x01, /*     Partition: 1 */
    0x00, 0x00, 0x00, 0x05, /*     CurrentLeaderEpoch: 5 */
    0x00, 0x00, 0x00, 0x04, /*     LeaderEpoch: 4 */
};
CHECK(offset_for_leader_epoch_rq_v2, gr_offset_for_leader_epoch_request_t)
{
    CK_INT(m->replica_id, -2);
    CK_INT(m->topics[0].partitions[0].partition, 1);
    CK_INT(m->topics[0].partitions[0].current_leader_epoch, 5);
    CK_INT(m->topics[0].partitions[0].leader_epoch, 4);
}

static const uint8_t offset_for_leader_epoch_rq_v3[] = {
    0x00, 0x00, 0x00, 0x02, /* ReplicaId: 2 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*     Partition: 0 */
    0xff, 0xff, 0xff, 0xff, /*     CurrentLeaderEpoch: -1 */
    0x00, 0x00, 0x00, 0x04, /*     LeaderEpoch: 4 */
};
CHECK(offset_for_leader_epoch_rq_v3, gr_offset_for_leader_epoch_request_t)
{
    CK_INT(m->replica_id, 2);
    CK_INT(m->topics[0].partitions[0].current_leader_epoch, -1);
    CK_INT(m->topics[0].partitions[0].leader_epoch, 4);
}

static const uint8_t offset_for_leader_epoch_rq_v4[] = {
    0xff, 0xff, 0xff, 0xfe, /* ReplicaId: -2 (consumer) */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Topic: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     Partition: 0 */
    0x00, 0x00, 0x00, 0x05, /*     CurrentLeaderEpoch: 5 */
    0x00, 0x00, 0x00, 0x03, /*     LeaderEpoch: 3 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(offset_for_leader_epoch_rq_v4, gr_offset_for_leader_epoch_request_t)
{
    CK_INT(m->replica_id, -2);
    CK_STR(m->topics[0].topic, "t");
    CK_INT(m->topics[0].partitions[0].current_leader_epoch, 5);
    CK_INT(m->topics[0].partitions[0].leader_epoch, 3);
}

static const uint8_t offset_for_leader_epoch_rs_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x00, /*     Partition: 0 */
    0x00, 0x00, 0x00, 0x00, /*     EndOffset: 100 */
    0x00, 0x00, 0x00, 0x64, /*  */
};
CHECK(offset_for_leader_epoch_rs_v0, gr_offset_for_leader_epoch_response_t)
{
    CK_INT(m->throttle_time_ms, 0); /* 2+: default */
    CK_STR(m->topics[0].topic, "t");
    CK_INT(m->topics[0].partitions[0].end_offset, 100);
    CK_INT(m->topics[0].partitions[0].leader_epoch, -1); /* 1+: default */
}

static const uint8_t offset_for_leader_epoch_rs_v1[] = {
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x00, /*     Partition: 0 */
    0x00, 0x00, 0x00, 0x03, /*     LeaderEpoch: 3 */
    0x00, 0x00, 0x00, 0x00, /*     EndOffset: 100 */
    0x00, 0x00, 0x00, 0x64, /*  */
};
CHECK(offset_for_leader_epoch_rs_v1, gr_offset_for_leader_epoch_response_t)
{
    CK_INT(m->throttle_time_ms, 0);
    CK_INT(m->topics[0].partitions[0].leader_epoch, 3);
    CK_INT(m->topics[0].partitions[0].end_offset, 100);
}

static const uint8_t offset_for_leader_epoch_rs_v2[] = {
    0x00, 0x00, 0x00, 0x09, /* ThrottleTimeMs: 9 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x4a,             /*     ErrorCode: 74 (FENCED_LEADER_EPOCH) */
    0x00, 0x00, 0x00, 0x00, /*     Partition: 0 */
    0xff, 0xff, 0xff, 0xff, /*     LeaderEpoch: -1 */
    0xff, 0xff, 0xff, 0xff, /*     EndOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
};
CHECK(offset_for_leader_epoch_rs_v2, gr_offset_for_leader_epoch_response_t)
{
    CK_INT(m->throttle_time_ms, 9);
    CK_INT(m->topics[0].partitions[0].error_code, 74);
    CK_INT(m->topics[0].partitions[0].leader_epoch, -1);
    CK_INT(m->topics[0].partitions[0].end_offset, -1);
}

static const uint8_t offset_for_leader_epoch_rs_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Topic: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x02, /*     Partition: 2 */
    0x00, 0x00, 0x00, 0x03, /*     LeaderEpoch: 3 */
    0x00, 0x00, 0x00, 0x00, /*     EndOffset: 100 */
    0x00, 0x00, 0x00, 0x64, /*  */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(offset_for_leader_epoch_rs_v4, gr_offset_for_leader_epoch_response_t)
{
    CK_INT(m->topics[0].partitions[0].partition, 2);
    CK_INT(m->topics[0].partitions[0].leader_epoch, 3);
    CK_INT(m->topics[0].partitions[0].end_offset, 100);
}

/* ---- Produce (0): requests and v0-v7 responses in golden frames or
 * check_vectors.c (the kafka-python v8 response is a known mistake); v8
 * adds RecordErrors and ErrorMessage, v10 the tagged CurrentLeader and
 * NodeEndpoints ---- */

static const uint8_t produce_rs_v8[] = {
    0x00, 0x00, 0x00, 0x01, /* Responses: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   PartitionResponses: ARRAY, 1 */
    0x00, 0x00, 0x00, 0x00, /*     Index: 0 */
    0x00, 0x57,             /*     ErrorCode: 87 (INVALID_RECORD) */
    0xff, 0xff, 0xff, 0xff, /*     BaseOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0xff, 0xff, 0xff, 0xff, /*     LogAppendTimeMs: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x00, 0x00, 0x00, /*     LogStartOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x02, /*     RecordErrors: ARRAY, 2 elements */
    0x00, 0x00, 0x00, 0x00, /*       BatchIndex: 0 */
    0x00, 0x01, 'k',        /*       BatchIndexErrorMessage: "k" */
    0x00, 0x00, 0x00, 0x03, /*       BatchIndex: 3 */
    0xff, 0xff,             /*       BatchIndexErrorMessage: null */
    0x00, 0x03, 'b',  'a',  /*     ErrorMessage: "bad" */
    'd',                    /*  */
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
};
CHECK(produce_rs_v8, gr_produce_response_t)
{
    const gr_produce_response_partition_produce_response_t *pr =
        &m->responses[0].partition_responses[0];
    CK_INT(pr->error_code, 87);
    CK_INT(pr->base_offset, -1);
    CK_INT(pr->record_errors_cnt, 2);
    CK_STR(pr->record_errors[0].batch_index_error_message, "k");
    CK_INT(pr->record_errors[1].batch_index, 3);
    CK_NULL(pr->record_errors[1].batch_index_error_message);
    CK_STR(pr->error_message, "bad");
    CK_INT(pr->current_leader.leader_id, -1); /* 10+: default */
}

static const uint8_t produce_rs_v10[] = {
    0x02,                   /* Responses: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   PartitionResponses: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     Index: 0 */
    0x00, 0x06,             /*     ErrorCode: 6 (NOT_LEADER_OR_FOLLOWER) */
    0xff, 0xff, 0xff, 0xff, /*     BaseOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0xff, 0xff, 0xff, 0xff, /*     LogAppendTimeMs: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0xff, 0xff, 0xff, 0xff, /*     LogStartOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x01,                   /*     RecordErrors: empty */
    0x00,                   /*     ErrorMessage: null */
    0x01,                   /*     tags: 1 field */
    0x00, 0x09,             /*       tag 0 (CurrentLeader), 9 bytes */
    0x00, 0x00, 0x00, 0x02, /*         LeaderId: 2 */
    0x00, 0x00, 0x00, 0x07, /*         LeaderEpoch: 7 */
    0x00,                   /*         tags: none */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x01,                   /* tags: 1 field */
    0x00, 0x0e,             /*   tag 0 (NodeEndpoints), 14 bytes */
    0x02,                   /*     COMPACT_ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x02, /*       NodeId: 2 */
    0x03, 'h',  '2',        /*       Host: "h2" */
    0x00, 0x00, 0x23, 0x84, /*       Port: 9092 */
    0x00,                   /*       Rack: null */
    0x00,                   /*       tags: none */
};
CHECK(produce_rs_v10, gr_produce_response_t)
{
    const gr_produce_response_partition_produce_response_t *pr =
        &m->responses[0].partition_responses[0];
    CK_INT(pr->error_code, 6);
    CK_INT(pr->record_errors_cnt, 0);
    CK_NULL(pr->error_message);
    CK_INT(pr->current_leader.leader_id, 2);
    CK_INT(pr->current_leader.leader_epoch, 7);
    CK_INT(m->node_endpoints_cnt, 1);
    CK_STR(m->node_endpoints[0].host, "h2");
    CK_NULL(m->node_endpoints[0].rack);
}

/* The same version with both tagged fields absent. */
static const uint8_t produce_rs_v10_untagged[] = {
    0x02,                   /* Responses: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   PartitionResponses: 1 element */
    0x00, 0x00, 0x00, 0x01, /*     Index: 1 */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x00, /*     BaseOffset: 10 */
    0x00, 0x00, 0x00, 0x0a, /*  */
    0xff, 0xff, 0xff, 0xff, /*     LogAppendTimeMs: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x00, 0x00, 0x00, /*     LogStartOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x01,                   /*     RecordErrors: empty */
    0x00,                   /*     ErrorMessage: null */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00,                   /* tags: none */
};
CHECK(produce_rs_v10_untagged, gr_produce_response_t)
{
    const gr_produce_response_partition_produce_response_t *pr =
        &m->responses[0].partition_responses[0];
    CK_INT(pr->index, 1);
    CK_INT(pr->base_offset, 10);
    CK_INT(pr->current_leader.leader_id, -1);
    CK_INT(pr->current_leader.leader_epoch, -1);
    CK_INT(m->node_endpoints_cnt, 0);
}

/* ---- ProducerSnapshot (data, v1: the producer-state snapshot file after
 * its INT16 version) ---- */

static const uint8_t producer_snapshot_v1[] = {
    0xde, 0xad, 0xbe, 0xef, /* Crc: UINT32 0xdeadbeef */
    0x00, 0x00, 0x00, 0x01, /* ProducerEntries: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*   ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x01,             /*   Epoch: 1 */
    0x00, 0x00, 0x00, 0x09, /*   LastSequence: 9 */
    0x00, 0x00, 0x00, 0x00, /*   LastOffset: 99 */
    0x00, 0x00, 0x00, 0x63, /*  */
    0x00, 0x00, 0x00, 0x09, /*   OffsetDelta: 9 */
    0x00, 0x00, 0x01, 0x8b, /*   Timestamp: 0x18b00000000 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x02, /*   CoordinatorEpoch: 2 */
    0xff, 0xff, 0xff, 0xff, /*   CurrentTxnFirstOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
};
CHECK(producer_snapshot_v1, gr_producer_snapshot_t)
{
    ck_assert_uint_eq(m->crc, 0xdeadbeefu);
    CK_INT(m->producer_entries_cnt, 1);
    CK_INT(m->producer_entries[0].producer_id, 1000);
    CK_INT(m->producer_entries[0].epoch, 1);
    CK_INT(m->producer_entries[0].last_sequence, 9);
    CK_INT(m->producer_entries[0].last_offset, 99);
    CK_INT(m->producer_entries[0].offset_delta, 9);
    CK_INT(m->producer_entries[0].timestamp, (int64_t)0x18b << 32);
    CK_INT(m->producer_entries[0].coordinator_epoch, 2);
    CK_INT(m->producer_entries[0].current_txn_first_offset, -1);
}

/* ---- SaslAuthenticate (36): v0-v1 in golden frames; v2 first flexible
 * ---- */

static const uint8_t sasl_authenticate_rq_v2[] = {
    0x06, 0x00, 'u', 0x00, 'p', /* AuthBytes: COMPACT_BYTES, 5 (PLAIN) */
    '1',                        /*  */
    0x00,                       /* tags: none */
};
CHECK(sasl_authenticate_rq_v2, gr_sasl_authenticate_request_t)
{
    CK_INT(m->auth_bytes.len, 5);
    CK_INT(m->auth_bytes.ptr[0], 0);
    CK_INT(m->auth_bytes.ptr[1], 'u');
    CK_INT(m->auth_bytes.ptr[4], '1');
}

static const uint8_t sasl_authenticate_rs_v2[] = {
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00,                   /* ErrorMessage: null */
    0x01,                   /* AuthBytes: COMPACT_BYTES, empty */
    0x00, 0x00, 0x00, 0x00, /* SessionLifetimeMs: 3600000 */
    0x00, 0x36, 0xee, 0x80, /*  */
    0x00,                   /* tags: none */
};
CHECK(sasl_authenticate_rs_v2, gr_sasl_authenticate_response_t)
{
    CK_INT(m->error_code, 0);
    CK_NULL(m->error_message);
    CK_INT(m->auth_bytes.len, 0);
    CK_INT(m->session_lifetime_ms, 3600000);
}

/* ---- SyncGroup (14): v0-v1 in golden frames; v3 GroupInstanceId, v4
 * first flexible, v5 ProtocolType/ProtocolName ---- */

static const uint8_t sync_group_rq_v3[] = {
    0x00, 0x01, 'g',        /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x02, /* GenerationId: 2 */
    0x00, 0x01, 'm',        /* MemberId: "m" */
    0x00, 0x01, 'i',        /* GroupInstanceId: "i" */
    0x00, 0x00, 0x00, 0x01, /* Assignments: ARRAY, 1 element */
    0x00, 0x01, 'm',        /*   MemberId: "m" */
    0x00, 0x00, 0x00, 0x02, /*   Assignment: BYTES, 2 */
    0x00, 0x03,             /*  */
};
CHECK(sync_group_rq_v3, gr_sync_group_request_t)
{
    CK_INT(m->generation_id, 2);
    CK_STR(m->group_instance_id, "i");
    CK_STR(m->assignments[0].member_id, "m");
    CK_INT(m->assignments[0].assignment.len, 2);
    CK_NULL(m->protocol_type); /* 5+: default */
    CK_NULL(m->protocol_name); /* 5+: default */
}

static const uint8_t sync_group_rq_v4[] = {
    0x02, 'g',              /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x02, /* GenerationId: 2 */
    0x02, 'm',              /* MemberId: "m" */
    0x00,                   /* GroupInstanceId: null */
    0x01,                   /* Assignments: empty (a follower) */
    0x00,                   /* tags: none */
};
CHECK(sync_group_rq_v4, gr_sync_group_request_t)
{
    CK_STR(m->group_id, "g");
    CK_STR(m->member_id, "m");
    CK_NULL(m->group_instance_id);
    CK_INT(m->assignments_cnt, 0);
    CK_NULL(m->protocol_type);
}

static const uint8_t sync_group_rq_v5[] = {
    0x02, 'g',              /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x02, /* GenerationId: 2 */
    0x02, 'm',              /* MemberId: "m" */
    0x00,                   /* GroupInstanceId: null */
    0x09, 'c',  'o',  'n',  /* ProtocolType: "consumer" */
    's',  'u',  'm',  'e',  /*  */
    'r',                    /*  */
    0x06, 'r',  'a',  'n',  /* ProtocolName: "range" */
    'g',  'e',              /*  */
    0x02,                   /* Assignments: 1 element */
    0x02, 'm',              /*   MemberId: "m" */
    0x02, 0x04,             /*   Assignment: COMPACT_BYTES, 1 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(sync_group_rq_v5, gr_sync_group_request_t)
{
    CK_STR(m->protocol_type, "consumer");
    CK_STR(m->protocol_name, "range");
    CK_INT(m->assignments[0].assignment.len, 1);
    CK_INT(m->assignments[0].assignment.ptr[0], 4);
}

static const uint8_t sync_group_rs_v4[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x03, 0x01, 0x02,       /* Assignment: COMPACT_BYTES, 2 */
    0x00,                   /* tags: none */
};
CHECK(sync_group_rs_v4, gr_sync_group_response_t)
{
    CK_INT(m->error_code, 0);
    CK_INT(m->assignment.len, 2);
    CK_INT(m->assignment.ptr[1], 2);
    CK_NULL(m->protocol_type); /* 5+: default */
    CK_NULL(m->protocol_name);
}

static const uint8_t sync_group_rs_v5[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x09, 'c',  'o',  'n',  /* ProtocolType: "consumer" */
    's',  'u',  'm',  'e',  /*  */
    'r',                    /*  */
    0x00,                   /* ProtocolName: null */
    0x01,                   /* Assignment: empty */
    0x00,                   /* tags: none */
};
CHECK(sync_group_rs_v5, gr_sync_group_response_t)
{
    CK_STR(m->protocol_type, "consumer");
    CK_NULL(m->protocol_name);
    CK_INT(m->assignment.len, 0);
}

/* ---- TransactionLogKey (data, key version 0 of __transaction_state)
 * ---- */

static const uint8_t transaction_log_key_v0[] = {
    0x00, 0x02, 't', 'x', /* TransactionalId: STRING "tx" */
};
CHECK(transaction_log_key_v0, gr_transaction_log_key_t)
{
    CK_STR(m->transactional_id, "tx");
    CK_INT(m->transactional_id.len, 2);
    CK_INT(m->transactional_id.ptr[1], 'x');
}

/* ---- TransactionLogValue (data): v0; v1 flexible with three tagged
 * fields, which do not exist at all in v0 (a field without "versions"
 * takes its taggedVersions) ---- */

static const uint8_t transaction_log_value_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x02,             /* ProducerEpoch: 2 */
    0x00, 0x00, 0xea, 0x60, /* TransactionTimeoutMs: 60000 */
    0x01,                   /* TransactionStatus: 1 (Ongoing) */
    0x00, 0x00, 0x00, 0x01, /* TransactionPartitions: ARRAY, 1 */
    0x00, 0x01, 't',        /*   Topic: "t" */
    0x00, 0x00, 0x00, 0x02, /*   PartitionIds: 2 INT32 */
    0x00, 0x00, 0x00, 0x00, /*     0 */
    0x00, 0x00, 0x00, 0x01, /*     1 */
    0x00, 0x00, 0x00, 0x00, /* TransactionLastUpdateTimestampMs: 2000 */
    0x00, 0x00, 0x07, 0xd0, /*  */
    0x00, 0x00, 0x00, 0x00, /* TransactionStartTimestampMs: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
};
CHECK(transaction_log_value_v0, gr_transaction_log_value_t)
{
    CK_INT(m->producer_id, 1000);
    CK_INT(m->producer_epoch, 2);
    CK_INT(m->transaction_timeout_ms, 60000);
    CK_INT(m->transaction_status, 1);
    CK_INT(m->transaction_partitions[0].partition_ids[1], 1);
    CK_INT(m->transaction_last_update_timestamp_ms, 2000);
    CK_INT(m->transaction_start_timestamp_ms, 1000);
    CK_INT(m->previous_producer_id, -1);      /* 1+ (tagged): default */
    CK_INT(m->next_producer_id, -1);          /* 1+ (tagged): default */
    CK_INT(m->client_transaction_version, 0); /* 1+ (tagged): default */
}

static const uint8_t transaction_log_value_v1[] = {
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x02,             /* ProducerEpoch: 2 */
    0x00, 0x00, 0xea, 0x60, /* TransactionTimeoutMs: 60000 */
    0x04,                   /* TransactionStatus: 4 (CompleteCommit) */
    0x00,                   /* TransactionPartitions: null */
    0x00, 0x00, 0x00, 0x00, /* TransactionLastUpdateTimestampMs: 2000 */
    0x00, 0x00, 0x07, 0xd0, /*  */
    0x00, 0x00, 0x00, 0x00, /* TransactionStartTimestampMs: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x03,                   /* tags: 3 fields */
    0x00, 0x08,             /*   tag 0 (PreviousProducerId), 8 bytes */
    0x00, 0x00, 0x00, 0x00, /*     INT64 999 */
    0x00, 0x00, 0x03, 0xe7, /*  */
    0x01, 0x08,             /*   tag 1 (NextProducerId), 8 bytes */
    0x00, 0x00, 0x00, 0x00, /*     INT64 1001 */
    0x00, 0x00, 0x03, 0xe9, /*  */
    0x02, 0x02,             /*   tag 2 (ClientTransactionVersion), 2 */
    0x00, 0x02,             /*     INT16 2 */
};
CHECK(transaction_log_value_v1, gr_transaction_log_value_t)
{
    CK_INT(m->producer_id, 1000);
    CK_INT(m->transaction_status, 4);
    CK_INT(m->transaction_partitions_cnt, -1);
    CK_INT(m->previous_producer_id, 999);
    CK_INT(m->next_producer_id, 1001);
    CK_INT(m->client_transaction_version, 2);
}

/* The same version with the tagged fields absent and partitions present. */
static const uint8_t transaction_log_value_v1_untagged[] = {
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x00,             /* ProducerEpoch: 0 */
    0x00, 0x00, 0xea, 0x60, /* TransactionTimeoutMs: 60000 */
    0x01,                   /* TransactionStatus: 1 (Ongoing) */
    0x02,                   /* TransactionPartitions: 1 element */
    0x02, 't',              /*   Topic: "t" */
    0x02,                   /*   PartitionIds: 1 INT32 */
    0x00, 0x00, 0x00, 0x03, /*     3 */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x00, 0x00, /* TransactionLastUpdateTimestampMs: 2000 */
    0x00, 0x00, 0x07, 0xd0, /*  */
    0x00, 0x00, 0x00, 0x00, /* TransactionStartTimestampMs: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00,                   /* tags: none */
};
CHECK(transaction_log_value_v1_untagged, gr_transaction_log_value_t)
{
    CK_STR(m->transaction_partitions[0].topic, "t");
    CK_INT(m->transaction_partitions[0].partition_ids[0], 3);
    CK_INT(m->previous_producer_id, -1);
    CK_INT(m->next_producer_id, -1);
    CK_INT(m->client_transaction_version, 0);
}

/* ---- TxnOffsetCommit (28): v0, v2 CommittedLeaderEpoch, v3 first
 * flexible with the group generation fields ---- */

static const uint8_t txn_offset_commit_rq_v0[] = {
    0x00, 0x02, 't',  'x',  /* TransactionalId: "tx" */
    0x00, 0x01, 'g',        /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x01,             /* ProducerEpoch: 1 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0xff, 0xff,             /*     CommittedMetadata: null */
};
CHECK(txn_offset_commit_rq_v0, gr_txn_offset_commit_request_t)
{
    CK_STR(m->transactional_id, "tx");
    CK_INT(m->producer_id, 1000);
    CK_INT(m->topics[0].partitions[0].committed_offset, 42);
    CK_NULL(m->topics[0].partitions[0].committed_metadata);
    CK_INT(m->topics[0].partitions[0].committed_leader_epoch, -1); /* 2+ */
    CK_INT(m->generation_id, -1);  /* 3+: default */
    CK_INT(m->member_id.len, 0);   /* 3+: default "" */
    CK_NULL(m->group_instance_id); /* 3+: default */
}

static const uint8_t txn_offset_commit_rq_v2[] = {
    0x00, 0x02, 't',  'x',  /* TransactionalId: "tx" */
    0x00, 0x01, 'g',        /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x01,             /* ProducerEpoch: 1 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0x00, 0x00, 0x00, 0x06, /*     CommittedLeaderEpoch: 6 */
    0x00, 0x01, 'x',        /*     CommittedMetadata: "x" */
};
CHECK(txn_offset_commit_rq_v2, gr_txn_offset_commit_request_t)
{
    CK_INT(m->topics[0].partitions[0].partition_index, 1);
    CK_INT(m->topics[0].partitions[0].committed_leader_epoch, 6);
    CK_STR(m->topics[0].partitions[0].committed_metadata, "x");
    CK_INT(m->generation_id, -1);
}

static const uint8_t txn_offset_commit_rq_v3[] = {
    0x03, 't',  'x',        /* TransactionalId: "tx" */
    0x02, 'g',              /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x01,             /* ProducerEpoch: 1 */
    0x00, 0x00, 0x00, 0x05, /* GenerationId: 5 */
    0x02, 'm',              /* MemberId: "m" */
    0x02, 'i',              /* GroupInstanceId: "i" */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0xff, 0xff, 0xff, 0xff, /*     CommittedLeaderEpoch: -1 */
    0x00,                   /*     CommittedMetadata: null */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(txn_offset_commit_rq_v3, gr_txn_offset_commit_request_t)
{
    CK_STR(m->transactional_id, "tx");
    CK_INT(m->generation_id, 5);
    CK_STR(m->member_id, "m");
    CK_STR(m->group_instance_id, "i");
    CK_INT(m->topics[0].partitions[0].committed_offset, 42);
    CK_NULL(m->topics[0].partitions[0].committed_metadata);
}

static const uint8_t txn_offset_commit_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00, 0x00, 0x01, /* Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*   Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*   Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x10,             /*     ErrorCode: 16 (NOT_COORDINATOR) */
};
CHECK(txn_offset_commit_rs_v0, gr_txn_offset_commit_response_t)
{
    CK_INT(m->throttle_time_ms, 0);
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].partitions[0].partition_index, 0);
    CK_INT(m->topics[0].partitions[0].error_code, 16);
}

static const uint8_t txn_offset_commit_rs_v3[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x02, /*     PartitionIndex: 2 */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(txn_offset_commit_rs_v3, gr_txn_offset_commit_response_t)
{
    CK_INT(m->topics_cnt, 1);
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].partitions[0].partition_index, 2);
    CK_INT(m->topics[0].partitions[0].error_code, 0);
}

/* ---- WriteTxnMarkers (27): v0, v1 first flexible ---- */

static const uint8_t write_txn_markers_rq_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* Markers: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*   ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x01,             /*   ProducerEpoch: 1 */
    0x01,                   /*   TransactionResult: true (commit) */
    0x00, 0x00, 0x00, 0x01, /*   Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*     Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndexes: 1 INT32 */
    0x00, 0x00, 0x00, 0x00, /*       0 */
    0x00, 0x00, 0x00, 0x03, /*   CoordinatorEpoch: 3 */
};
CHECK(write_txn_markers_rq_v0, gr_write_txn_markers_request_t)
{
    CK_INT(m->markers[0].producer_id, 1000);
    CK_INT(m->markers[0].producer_epoch, 1);
    ck_assert(m->markers[0].transaction_result);
    CK_STR(m->markers[0].topics[0].name, "t");
    CK_INT(m->markers[0].coordinator_epoch, 3);
}

static const uint8_t write_txn_markers_rq_v1[] = {
    0x02,                   /* Markers: 1 element */
    0x00, 0x00, 0x00, 0x00, /*   ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x01,             /*   ProducerEpoch: 1 */
    0x00,                   /*   TransactionResult: false (abort) */
    0x02,                   /*   Topics: 1 element */
    0x02, 't',              /*     Name: "t" */
    0x03,                   /*     PartitionIndexes: 2 INT32 */
    0x00, 0x00, 0x00, 0x00, /*       0 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x00, 0x03, /*   CoordinatorEpoch: 3 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(write_txn_markers_rq_v1, gr_write_txn_markers_request_t)
{
    ck_assert(!m->markers[0].transaction_result);
    CK_INT(m->markers[0].topics[0].partition_indexes_cnt, 2);
    CK_INT(m->markers[0].topics[0].partition_indexes[1], 1);
    CK_INT(m->markers[0].coordinator_epoch, 3);
}

static const uint8_t write_txn_markers_rs_v0[] = {
    0x00, 0x00, 0x00, 0x01, /* Markers: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*   ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x00, 0x00, 0x01, /*   Topics: ARRAY, 1 element */
    0x00, 0x01, 't',        /*     Name: "t" */
    0x00, 0x00, 0x00, 0x01, /*     Partitions: ARRAY, 1 element */
    0x00, 0x00, 0x00, 0x00, /*       PartitionIndex: 0 */
    0x00, 0x00,             /*       ErrorCode: 0 */
};
CHECK(write_txn_markers_rs_v0, gr_write_txn_markers_response_t)
{
    CK_INT(m->markers[0].producer_id, 1000);
    CK_STR(m->markers[0].topics[0].name, "t");
    CK_INT(m->markers[0].topics[0].partitions[0].partition_index, 0);
    CK_INT(m->markers[0].topics[0].partitions[0].error_code, 0);
}

static const uint8_t write_txn_markers_rs_v1[] = {
    0x02,                   /* Markers: 1 element */
    0x00, 0x00, 0x00, 0x00, /*   ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x02,                   /*   Topics: 1 element */
    0x02, 't',              /*     Name: "t" */
    0x02,                   /*     Partitions: 1 element */
    0x00, 0x00, 0x00, 0x01, /*       PartitionIndex: 1 */
    0x00, 0x06,             /*       ErrorCode: 6 */
    0x00,                   /*       tags: none */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(write_txn_markers_rs_v1, gr_write_txn_markers_response_t)
{
    CK_INT(m->markers[0].producer_id, 1000);
    CK_INT(m->markers[0].topics[0].partitions[0].partition_index, 1);
    CK_INT(m->markers[0].topics[0].partitions[0].error_code, 6);
}

/* ---- Tagged fields present where check_vectors.c has them absent ---- */

/* ApiVersions v3 response with all four tagged fields present (check_vectors
 * has only FinalizedFeaturesEpoch). */
static const uint8_t api_versions_rs_v3_tagged[] = {
    0x00, 0x00,             /* ErrorCode: 0 */
    0x02,                   /* ApiKeys: 1 element */
    0x00, 0x12,             /*   ApiKey: 18 */
    0x00, 0x00,             /*   MinVersion: 0 */
    0x00, 0x04,             /*   MaxVersion: 4 */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x04,                   /* tags: 4 fields */
    0x00, 0x09,             /*   tag 0 (SupportedFeatures), 9 bytes */
    0x02,                   /*     1 element */
    0x03, 'm',  'v',        /*       Name: "mv" */
    0x00, 0x01,             /*       MinVersion: 1 */
    0x00, 0x05,             /*       MaxVersion: 5 */
    0x00,                   /*       tags: none */
    0x01, 0x08,             /*   tag 1 (FinalizedFeaturesEpoch), 8 */
    0x00, 0x00, 0x00, 0x00, /*     INT64 7 */
    0x00, 0x00, 0x00, 0x07, /*  */
    0x02, 0x09,             /*   tag 2 (FinalizedFeatures), 9 bytes */
    0x02,                   /*     1 element */
    0x03, 'm',  'v',        /*       Name: "mv" */
    0x00, 0x04,             /*       MaxVersionLevel: 4 */
    0x00, 0x01,             /*       MinVersionLevel: 1 */
    0x00,                   /*       tags: none */
    0x03, 0x01,             /*   tag 3 (ZkMigrationReady), 1 byte */
    0x01,                   /*     true */
};
CHECK(api_versions_rs_v3_tagged, gr_api_versions_response_t)
{
    CK_INT(m->api_keys[0].max_version, 4);
    CK_INT(m->supported_features_cnt, 1);
    CK_STR(m->supported_features[0].name, "mv");
    CK_INT(m->supported_features[0].max_version, 5);
    CK_INT(m->finalized_features_epoch, 7);
    CK_INT(m->finalized_features[0].max_version_level, 4);
    CK_INT(m->finalized_features[0].min_version_level, 1);
    ck_assert(m->zk_migration_ready);
}

/* Fetch v16 response with every tagged field absent. */
static const uint8_t fetch_rs_v16_untagged[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x01, /* SessionId: 1 */
    0x01,                   /* Responses: empty */
    0x00,                   /* tags: none */
};
CHECK(fetch_rs_v16_untagged, gr_fetch_response_t)
{
    CK_INT(m->session_id, 1);
    CK_INT(m->responses_cnt, 0);
    CK_INT(m->node_endpoints_cnt, 0);
}

/* ---- the table ---- */

#define V_RQ(key, ver, id)                                         \
    {                                                              \
#id, GR_API_##key, NULL, 0, ver, id, sizeof id, check_##id \
    }
#define V_RS(key, ver, id)                                         \
    {                                                              \
#id, GR_API_##key, NULL, 1, ver, id, sizeof id, check_##id \
    }
#define V_DT(name, ver, id)                               \
    {                                                     \
#id, -1, #name, 0, ver, id, sizeof id, check_##id \
    }

static const vec_t vecs[] = {
    V_RQ(ADD_OFFSETS_TO_TXN, 0, add_offsets_to_txn_rq_v0),
    V_RQ(ADD_OFFSETS_TO_TXN, 3, add_offsets_to_txn_rq_v3),
    V_RS(ADD_OFFSETS_TO_TXN, 0, add_offsets_to_txn_rs_v0),
    V_RS(ADD_OFFSETS_TO_TXN, 3, add_offsets_to_txn_rs_v3),
    V_RQ(ADD_PARTITIONS_TO_TXN, 0, add_partitions_to_txn_rq_v0),
    V_RQ(ADD_PARTITIONS_TO_TXN, 3, add_partitions_to_txn_rq_v3),
    V_RQ(ADD_PARTITIONS_TO_TXN, 4, add_partitions_to_txn_rq_v4),
    V_RS(ADD_PARTITIONS_TO_TXN, 0, add_partitions_to_txn_rs_v0),
    V_RS(ADD_PARTITIONS_TO_TXN, 3, add_partitions_to_txn_rs_v3),
    V_RS(ADD_PARTITIONS_TO_TXN, 4, add_partitions_to_txn_rs_v4),
    V_RQ(ALTER_CLIENT_QUOTAS, 0, alter_client_quotas_rq_v0),
    V_RQ(ALTER_CLIENT_QUOTAS, 1, alter_client_quotas_rq_v1),
    V_RS(ALTER_CLIENT_QUOTAS, 0, alter_client_quotas_rs_v0),
    V_RS(ALTER_CLIENT_QUOTAS, 1, alter_client_quotas_rs_v1),
    V_RQ(ALTER_CONFIGS, 2, alter_configs_rq_v2),
    V_RS(ALTER_CONFIGS, 2, alter_configs_rs_v2),
    V_RQ(ALTER_PARTITION_REASSIGNMENTS, 0, alter_partition_reassignments_rq_v0),
    V_RS(ALTER_PARTITION_REASSIGNMENTS, 0, alter_partition_reassignments_rs_v0),
    V_RQ(ALTER_REPLICA_LOG_DIRS, 0, alter_replica_log_dirs_rq_v0),
    V_RQ(ALTER_REPLICA_LOG_DIRS, 2, alter_replica_log_dirs_rq_v2),
    V_RS(ALTER_REPLICA_LOG_DIRS, 0, alter_replica_log_dirs_rs_v0),
    V_RS(ALTER_REPLICA_LOG_DIRS, 2, alter_replica_log_dirs_rs_v2),
    V_RQ(ALTER_USER_SCRAM_CREDENTIALS, 0, alter_user_scram_credentials_rq_v0),
    V_RS(ALTER_USER_SCRAM_CREDENTIALS, 0, alter_user_scram_credentials_rs_v0),
    V_DT(consumer_protocol_assignment, 0, consumer_protocol_assignment_v0),
    V_DT(consumer_protocol_assignment, 1, consumer_protocol_assignment_v1),
    V_DT(consumer_protocol_assignment, 2, consumer_protocol_assignment_v2),
    V_DT(consumer_protocol_assignment, 3, consumer_protocol_assignment_v3),
    V_DT(consumer_protocol_subscription, 0, consumer_protocol_subscription_v0),
    V_DT(consumer_protocol_subscription, 1, consumer_protocol_subscription_v1),
    V_DT(consumer_protocol_subscription, 2, consumer_protocol_subscription_v2),
    V_DT(consumer_protocol_subscription, 3, consumer_protocol_subscription_v3),
    V_RQ(CREATE_ACLS, 2, create_acls_rq_v2),
    V_RS(CREATE_ACLS, 2, create_acls_rs_v2),
    V_RQ(CREATE_PARTITIONS, 2, create_partitions_rq_v2),
    V_RS(CREATE_PARTITIONS, 2, create_partitions_rs_v2),
    V_RS(CREATE_TOPICS, 7, create_topics_rs_v7),
    V_RQ(DELETE_ACLS, 2, delete_acls_rq_v2),
    V_RS(DELETE_ACLS, 2, delete_acls_rs_v2),
    V_RQ(DELETE_GROUPS, 2, delete_groups_rq_v2),
    V_RS(DELETE_GROUPS, 2, delete_groups_rs_v2),
    V_RQ(DELETE_RECORDS, 0, delete_records_rq_v0),
    V_RQ(DELETE_RECORDS, 2, delete_records_rq_v2),
    V_RS(DELETE_RECORDS, 0, delete_records_rs_v0),
    V_RS(DELETE_RECORDS, 2, delete_records_rs_v2),
    V_RQ(DELETE_TOPICS, 4, delete_topics_rq_v4),
    V_RQ(DELETE_TOPICS, 6, delete_topics_rq_v6),
    V_RS(DELETE_TOPICS, 4, delete_topics_rs_v4),
    V_RS(DELETE_TOPICS, 5, delete_topics_rs_v5),
    V_RS(DELETE_TOPICS, 6, delete_topics_rs_v6),
    V_RQ(DESCRIBE_ACLS, 2, describe_acls_rq_v2),
    V_RS(DESCRIBE_ACLS, 2, describe_acls_rs_v2),
    V_RQ(DESCRIBE_CLIENT_QUOTAS, 0, describe_client_quotas_rq_v0),
    V_RQ(DESCRIBE_CLIENT_QUOTAS, 1, describe_client_quotas_rq_v1),
    V_RS(DESCRIBE_CLIENT_QUOTAS, 0, describe_client_quotas_rs_v0),
    V_RS(DESCRIBE_CLIENT_QUOTAS, 1, describe_client_quotas_rs_v1),
    V_RQ(DESCRIBE_CLUSTER, 0, describe_cluster_rq_v0),
    V_RQ(DESCRIBE_CLUSTER, 1, describe_cluster_rq_v1),
    V_RS(DESCRIBE_CLUSTER, 0, describe_cluster_rs_v0),
    V_RS(DESCRIBE_CLUSTER, 1, describe_cluster_rs_v1),
    V_RQ(DESCRIBE_CONFIGS, 3, describe_configs_rq_v3),
    V_RQ(DESCRIBE_CONFIGS, 4, describe_configs_rq_v4),
    V_RS(DESCRIBE_CONFIGS, 3, describe_configs_rs_v3),
    V_RS(DESCRIBE_CONFIGS, 4, describe_configs_rs_v4),
    V_RQ(DESCRIBE_GROUPS, 5, describe_groups_rq_v5),
    V_RS(DESCRIBE_GROUPS, 3, describe_groups_rs_v3),
    V_RS(DESCRIBE_GROUPS, 4, describe_groups_rs_v4),
    V_RS(DESCRIBE_GROUPS, 5, describe_groups_rs_v5),
    V_RQ(DESCRIBE_LOG_DIRS, 0, describe_log_dirs_rq_v0),
    V_RQ(DESCRIBE_LOG_DIRS, 2, describe_log_dirs_rq_v2),
    V_RS(DESCRIBE_LOG_DIRS, 0, describe_log_dirs_rs_v0),
    V_RS(DESCRIBE_LOG_DIRS, 2, describe_log_dirs_rs_v2),
    V_RS(DESCRIBE_LOG_DIRS, 3, describe_log_dirs_rs_v3),
    V_RS(DESCRIBE_LOG_DIRS, 4, describe_log_dirs_rs_v4),
    V_RQ(DESCRIBE_PRODUCERS, 0, describe_producers_rq_v0),
    V_RS(DESCRIBE_PRODUCERS, 0, describe_producers_rs_v0),
    V_RQ(DESCRIBE_TRANSACTIONS, 0, describe_transactions_rq_v0),
    V_RS(DESCRIBE_TRANSACTIONS, 0, describe_transactions_rs_v0),
    V_RQ(DESCRIBE_USER_SCRAM_CREDENTIALS, 0,
         describe_user_scram_credentials_rq_v0),
    V_RS(DESCRIBE_USER_SCRAM_CREDENTIALS, 0,
         describe_user_scram_credentials_rs_v0),
    V_RQ(ELECT_LEADERS, 0, elect_leaders_rq_v0),
    V_RQ(ELECT_LEADERS, 1, elect_leaders_rq_v1),
    V_RQ(ELECT_LEADERS, 2, elect_leaders_rq_v2),
    V_RS(ELECT_LEADERS, 0, elect_leaders_rs_v0),
    V_RS(ELECT_LEADERS, 1, elect_leaders_rs_v1),
    V_RS(ELECT_LEADERS, 2, elect_leaders_rs_v2),
    V_RQ(END_TXN, 0, end_txn_rq_v0),
    V_RQ(END_TXN, 3, end_txn_rq_v3),
    V_RS(END_TXN, 0, end_txn_rs_v0),
    V_RS(END_TXN, 3, end_txn_rs_v3),
    V_RS(END_TXN, 5, end_txn_rs_v5),
    V_RQ(FETCH, 15, fetch_rq_v15),
    V_RQ(FETCH, 17, fetch_rq_v17),
    V_RS(FETCH, 16, fetch_rs_v16),
    V_RS(FIND_COORDINATOR, 1, find_coordinator_rs_v1),
    V_DT(group_metadata_key, 2, group_metadata_key_v2),
    V_DT(group_metadata_value, 0, group_metadata_value_v0),
    V_DT(group_metadata_value, 1, group_metadata_value_v1),
    V_DT(group_metadata_value, 2, group_metadata_value_v2),
    V_DT(group_metadata_value, 3, group_metadata_value_v3),
    V_DT(group_metadata_value, 4, group_metadata_value_v4),
    V_RQ(HEARTBEAT, 3, heartbeat_rq_v3),
    V_RQ(HEARTBEAT, 4, heartbeat_rq_v4),
    V_RS(HEARTBEAT, 4, heartbeat_rs_v4),
    V_RQ(INCREMENTAL_ALTER_CONFIGS, 0, incremental_alter_configs_rq_v0),
    V_RQ(INCREMENTAL_ALTER_CONFIGS, 1, incremental_alter_configs_rq_v1),
    V_RS(INCREMENTAL_ALTER_CONFIGS, 0, incremental_alter_configs_rs_v0),
    V_RS(INCREMENTAL_ALTER_CONFIGS, 1, incremental_alter_configs_rs_v1),
    V_RS(INIT_PRODUCER_ID, 0, init_producer_id_rs_v0),
    V_RQ(JOIN_GROUP, 5, join_group_rq_v5),
    V_RQ(JOIN_GROUP, 8, join_group_rq_v8),
    V_RS(JOIN_GROUP, 5, join_group_rs_v5),
    V_RS(JOIN_GROUP, 7, join_group_rs_v7),
    V_RS(JOIN_GROUP, 9, join_group_rs_v9),
    V_RQ(LEAVE_GROUP, 3, leave_group_rq_v3),
    V_RQ(LEAVE_GROUP, 4, leave_group_rq_v4),
    V_RQ(LEAVE_GROUP, 5, leave_group_rq_v5),
    V_RS(LEAVE_GROUP, 3, leave_group_rs_v3),
    V_RS(LEAVE_GROUP, 4, leave_group_rs_v4),
    V_RQ(LIST_GROUPS, 3, list_groups_rq_v3),
    V_RQ(LIST_GROUPS, 4, list_groups_rq_v4),
    V_RQ(LIST_GROUPS, 5, list_groups_rq_v5),
    V_RS(LIST_GROUPS, 3, list_groups_rs_v3),
    V_RS(LIST_GROUPS, 4, list_groups_rs_v4),
    V_RS(LIST_GROUPS, 5, list_groups_rs_v5),
    V_RQ(LIST_OFFSETS, 4, list_offsets_rq_v4),
    V_RQ(LIST_OFFSETS, 6, list_offsets_rq_v6),
    V_RQ(LIST_OFFSETS, 10, list_offsets_rq_v10),
    V_RS(LIST_OFFSETS, 6, list_offsets_rs_v6),
    V_RQ(LIST_PARTITION_REASSIGNMENTS, 0, list_partition_reassignments_rq_v0),
    V_RS(LIST_PARTITION_REASSIGNMENTS, 0, list_partition_reassignments_rs_v0),
    V_RQ(LIST_TRANSACTIONS, 0, list_transactions_rq_v0),
    V_RQ(LIST_TRANSACTIONS, 1, list_transactions_rq_v1),
    V_RS(LIST_TRANSACTIONS, 0, list_transactions_rs_v0),
    V_RS(METADATA, 7, metadata_rs_v7),
    V_RS(METADATA, 8, metadata_rs_v8),
    V_RS(METADATA, 9, metadata_rs_v9),
    V_RS(METADATA, 10, metadata_rs_v10),
    V_RS(METADATA, 11, metadata_rs_v11),
    V_RS(METADATA, 12, metadata_rs_v12),
    V_RQ(OFFSET_COMMIT, 5, offset_commit_rq_v5),
    V_RQ(OFFSET_COMMIT, 6, offset_commit_rq_v6),
    V_RQ(OFFSET_COMMIT, 7, offset_commit_rq_v7),
    V_DT(offset_commit_key, 0, offset_commit_key_v0),
    V_DT(offset_commit_key, 1, offset_commit_key_v1),
    V_DT(offset_commit_value, 0, offset_commit_value_v0),
    V_DT(offset_commit_value, 1, offset_commit_value_v1),
    V_DT(offset_commit_value, 2, offset_commit_value_v2),
    V_DT(offset_commit_value, 3, offset_commit_value_v3),
    V_DT(offset_commit_value, 4, offset_commit_value_v4),
    V_RQ(OFFSET_DELETE, 0, offset_delete_rq_v0),
    V_RS(OFFSET_DELETE, 0, offset_delete_rs_v0),
    V_RQ(OFFSET_FETCH, 7, offset_fetch_rq_v7),
    V_RQ(OFFSET_FETCH, 9, offset_fetch_rq_v9),
    V_RS(OFFSET_FETCH, 5, offset_fetch_rs_v5),
    V_RQ(OFFSET_FOR_LEADER_EPOCH, 0, offset_for_leader_epoch_rq_v0),
    V_RQ(OFFSET_FOR_LEADER_EPOCH, 2, offset_for_leader_epoch_rq_v2),
    V_RQ(OFFSET_FOR_LEADER_EPOCH, 3, offset_for_leader_epoch_rq_v3),
    V_RQ(OFFSET_FOR_LEADER_EPOCH, 4, offset_for_leader_epoch_rq_v4),
    V_RS(OFFSET_FOR_LEADER_EPOCH, 0, offset_for_leader_epoch_rs_v0),
    V_RS(OFFSET_FOR_LEADER_EPOCH, 1, offset_for_leader_epoch_rs_v1),
    V_RS(OFFSET_FOR_LEADER_EPOCH, 2, offset_for_leader_epoch_rs_v2),
    V_RS(OFFSET_FOR_LEADER_EPOCH, 4, offset_for_leader_epoch_rs_v4),
    V_RS(PRODUCE, 8, produce_rs_v8),
    V_RS(PRODUCE, 10, produce_rs_v10),
    V_RS(PRODUCE, 10, produce_rs_v10_untagged),
    V_DT(producer_snapshot, 1, producer_snapshot_v1),
    V_RQ(SASL_AUTHENTICATE, 2, sasl_authenticate_rq_v2),
    V_RS(SASL_AUTHENTICATE, 2, sasl_authenticate_rs_v2),
    V_RQ(SYNC_GROUP, 3, sync_group_rq_v3),
    V_RQ(SYNC_GROUP, 4, sync_group_rq_v4),
    V_RQ(SYNC_GROUP, 5, sync_group_rq_v5),
    V_RS(SYNC_GROUP, 4, sync_group_rs_v4),
    V_RS(SYNC_GROUP, 5, sync_group_rs_v5),
    V_DT(transaction_log_key, 0, transaction_log_key_v0),
    V_DT(transaction_log_value, 0, transaction_log_value_v0),
    V_DT(transaction_log_value, 1, transaction_log_value_v1),
    V_DT(transaction_log_value, 1, transaction_log_value_v1_untagged),
    V_RQ(TXN_OFFSET_COMMIT, 0, txn_offset_commit_rq_v0),
    V_RQ(TXN_OFFSET_COMMIT, 2, txn_offset_commit_rq_v2),
    V_RQ(TXN_OFFSET_COMMIT, 3, txn_offset_commit_rq_v3),
    V_RS(TXN_OFFSET_COMMIT, 0, txn_offset_commit_rs_v0),
    V_RS(TXN_OFFSET_COMMIT, 3, txn_offset_commit_rs_v3),
    V_RQ(WRITE_TXN_MARKERS, 0, write_txn_markers_rq_v0),
    V_RQ(WRITE_TXN_MARKERS, 1, write_txn_markers_rq_v1),
    V_RS(WRITE_TXN_MARKERS, 0, write_txn_markers_rs_v0),
    V_RS(WRITE_TXN_MARKERS, 1, write_txn_markers_rs_v1),
    V_RS(API_VERSIONS, 3, api_versions_rs_v3_tagged),
    V_RS(FETCH, 16, fetch_rs_v16_untagged),
};

#define NVECS ((int)(sizeof vecs / sizeof vecs[0]))

static const gr_proto_ops_t *
vec_ops(const vec_t *v)
{
    const gr_proto_data_t *d;
    if (v->key >= 0) {
        const gr_proto_api_t *api = gr_proto_api(v->key);
        if (api == NULL)
            return NULL;
        return v->response ? &api->response : &api->request;
    }
    for (int i = 0; (d = gr_proto_data_at(i)) != NULL; i++)
        if (strcmp(d->name, v->data) == 0)
            return &d->ops;
    return NULL;
}

/* Vector _i: decode completely, check, size, re-encode identically. */
START_TEST(test_vector)
{
    const vec_t *v = &vecs[_i];
    const gr_proto_ops_t *ops = vec_ops(v);
    gr_arena_t *a = gr_arena_new(4096);
    gr_reader_t r = gr_reader_init(v->b, v->n);
    gr_writer_t w;
    uint8_t *out;
    void *m;
    size_t left, sz, at;
    int rc;

    ck_assert_msg(ops != NULL, "%s: no codec", v->id);
    m = gr_arena_alloc(a, ops->struct_size);
    memset(m, 0xa5, ops->struct_size); /* decode must set every field */
    rc = ops->decode(&r, v->ver, a, m);
    left = gr_reader_remaining(&r);
    ck_assert_msg(rc == 0 && left == 0,
                  "%s: decode returned %d with %zu of %zu bytes left", v->id,
                  rc, left, v->n);
    v->check(m);
    sz = ops->size(m, v->ver);
    ck_assert_msg(sz == v->n, "%s: size() %zu, vector %zu bytes", v->id, sz,
                  v->n);
    out = gr_arena_alloc(a, v->n + 1);
    w = gr_writer_init(out, v->n, a);
    ops->encode(&w, m, v->ver);
    ck_assert_int_eq(w.err, 0);
    for (at = 0; at < v->n && out[at] == v->b[at]; at++)
        ;
    ck_assert_msg(at == v->n, "%s: re-encoding differs at byte %zu", v->id, at);
    gr_arena_destroy(a);
}
END_TEST

/* (API key, direction) pairs whose every shape change is covered by
 * check_vectors.c or golden frames, so that none is needed here. */
static const struct {
    int key;
    int response;
} elsewhere[] = {
    { GR_API_API_VERSIONS, 0 },     { GR_API_CREATE_TOPICS, 0 },
    { GR_API_FIND_COORDINATOR, 0 }, { GR_API_INIT_PRODUCER_ID, 0 },
    { GR_API_METADATA, 0 },         { GR_API_OFFSET_COMMIT, 1 },
    { GR_API_PRODUCE, 0 },          { GR_API_SASL_HANDSHAKE, 0 },
    { GR_API_SASL_HANDSHAKE, 1 },
};

static int
has_vector(int key, const char *data, int response, int ver)
{
    for (int i = 0; i < NVECS; i++) {
        const vec_t *v = &vecs[i];
        if (v->key != key || v->response != response)
            continue;
        if (data != NULL && strcmp(v->data, data) != 0)
            continue;
        if (ver < 0 || v->ver == ver)
            return 1;
    }
    return vectors3_has_vector(key, data, response, ver);
}

/* A schema added later must come with vectors here or in check_vectors3.c
 * (or a line in elsewhere[]); every version of a data type has one. */
START_TEST(test_every_schema_has_vectors)
{
    const gr_proto_api_t *api;
    const gr_proto_data_t *d;
    for (int i = 0; (api = gr_proto_api_at(i)) != NULL; i++) {
        for (int rs = 0; rs <= 1; rs++) {
            int found = has_vector(api->key, NULL, rs, -1);
            for (size_t j = 0; j < sizeof elsewhere / sizeof elsewhere[0]; j++)
                if (elsewhere[j].key == api->key && elsewhere[j].response == rs)
                    found = 1;
            ck_assert_msg(found, "%s %s: no independent vector", api->name,
                          rs ? "response" : "request");
        }
    }
    for (int i = 0; (d = gr_proto_data_at(i)) != NULL; i++)
        for (int v = d->min_ver; v <= d->max_ver; v++)
            ck_assert_msg(has_vector(-1, d->name, 0, v), "%s v%d: no vector",
                          d->name, v);
}
END_TEST

Suite *
suite_proto_vectors2(void)
{
    Suite *s = suite_create("proto/vectors2");
    TCase *tc = tcase_create("vectors2");
    tcase_add_loop_test(tc, test_vector, 0, NVECS);
    tcase_add_test(tc, test_every_schema_has_vectors);
    suite_add_tcase(s, tc);
    return s;
}
