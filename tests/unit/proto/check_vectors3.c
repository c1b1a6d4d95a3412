/*
 * Generated codecs against independent bytes, part 3: a hand-written vector
 * for every (message, direction, version) at which Kafka's wire shape
 * changes that was served after check_vectors2.c was written: the newest
 * versions of existing APIs (ApiVersions v5, DeleteGroups v3, DescribeCluster
 * v2, DescribeGroups v6, DescribeLogDirs v5, Fetch v18, ListTransactions v2,
 * Metadata v13, OffsetCommit v10, OffsetFetch v10, Produce v13,
 * TxnOffsetCommit v6, WriteTxnMarkers v2) and the APIs added with them
 * (GetTelemetrySubscriptions, PushTelemetry, ListConfigResources,
 * DescribeTopicPartitions, ConsumerGroupHeartbeat, ConsumerGroupDescribe
 * and the KIP-848 records of __consumer_offsets, key and value of each). TxnOffsetCommit v5, which has v3's shape, has
 * vectors too, to pin Name down to the last version before TopicId.
 *
 * The conventions are those of check_vectors2.c, whose COVERAGE list marks
 * the shapes covered here with T and stays the one place that says what is
 * covered; its test_every_schema_has_vectors consults this file's table
 * through vectors3_has_vector().
 *
 * Each vector below was written from Kafka's message definitions (field
 * order, types, versions, nullability, tags), one comment per field, never
 * produced by our encoder. The test decodes it with the generated codec at
 * its version (into a struct first filled with garbage, so that fields
 * absent at that version must come out as their schema default), requires
 * every byte consumed, checks field values, and re-encodes it to identical
 * bytes. Flexible versions end every struct with a tag section; "tags: none"
 * is the empty section (0x00). A nullable struct (DescribeTopicPartitions'
 * Cursor and NextCursor) is an INT8 marker, -1 for null or 1 followed by the
 * struct.
 *
 * Tagged fields, present and absent: Fetch request HighWatermark (tag 1 of
 * FetchPartition, v18: with ReplicaDirectoryId in one partition, alone in
 * another, absent in a third) and ReplicaState (present in v18).
 */
#include "../unit.h"
#include "proto/gen/proto_table.h"
#include "proto/proto.h"

#include <stdio.h>
#include <string.h>

typedef void (*check_fn)(const void *m);

typedef struct vec {
    const char *id;   /* the array's name, for failure messages */
    int key;          /* API key */
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

/* ---- ApiVersions (18): v5 adds ClusterId and NodeId to the request ---- */

static const uint8_t api_versions_rq_v5[] = {
    0x05, 'j',  'a',  'v',  /* ClientSoftwareName: "java" */
    'a',                    /*  */
    0x06, '4',  '.',  '4',  /* ClientSoftwareVersion: "4.4.0" */
    '.',  '0',              /*  */
    0x03, 'c',  'l',        /* ClusterId: COMPACT_NULLABLE_STRING "cl" */
    0x00, 0x00, 0x00, 0x03, /* NodeId: 3 */
    0x00,                   /* tags: none */
};
CHECK(api_versions_rq_v5, gr_api_versions_request_t)
{
    CK_STR(m->client_software_name, "java");
    CK_STR(m->client_software_version, "4.4.0");
    CK_STR(m->cluster_id, "cl");
    CK_INT(m->node_id, 3);
}

static const uint8_t api_versions_rq_v5_null[] = {
    0x02, 'k',              /* ClientSoftwareName: "k" */
    0x02, '1',              /* ClientSoftwareVersion: "1" */
    0x00,                   /* ClusterId: null */
    0xff, 0xff, 0xff, 0xff, /* NodeId: -1 */
    0x00,                   /* tags: none */
};
CHECK(api_versions_rq_v5_null, gr_api_versions_request_t)
{
    CK_STR(m->client_software_name, "k");
    CK_STR(m->client_software_version, "1");
    CK_NULL(m->cluster_id);
    CK_INT(m->node_id, -1);
}

/* ---- DeleteGroups (42): v3 adds ErrorMessage to each result ---- */

static const uint8_t delete_groups_rs_v3[] = {
    0x00, 0x00, 0x00, 0x02, /* ThrottleTimeMs: 2 */
    0x03,                   /* Results: 2 elements */
    0x02, 'a',              /*   GroupId: "a" */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
    0x00,                   /*   tags: none */
    0x02, 'b',              /*   GroupId: "b" */
    0x00, 0x45,             /*   ErrorCode: 69 (GROUP_ID_NOT_FOUND) */
    0x03, 'n',  'o',        /*   ErrorMessage: "no" */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(delete_groups_rs_v3, gr_delete_groups_response_t)
{
    CK_INT(m->throttle_time_ms, 2);
    CK_INT(m->results_cnt, 2);
    CK_STR(m->results[0].group_id, "a");
    CK_INT(m->results[0].error_code, 0);
    CK_NULL(m->results[0].error_message);
    CK_STR(m->results[1].group_id, "b");
    CK_INT(m->results[1].error_code, 69);
    CK_STR(m->results[1].error_message, "no");
}

/* ---- DescribeCluster (60): v2 adds IncludeFencedBrokers and IsFenced ---- */

static const uint8_t describe_cluster_rq_v2[] = {
    0x01, /* IncludeClusterAuthorizedOperations: true */
    0x01, /* EndpointType: 1 (brokers) */
    0x01, /* IncludeFencedBrokers: true */
    0x00, /* tags: none */
};
CHECK(describe_cluster_rq_v2, gr_describe_cluster_request_t)
{
    ck_assert(m->include_cluster_authorized_operations);
    CK_INT(m->endpoint_type, 1);
    ck_assert(m->include_fenced_brokers);
}

static const uint8_t describe_cluster_rs_v2[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00,                   /* ErrorMessage: null */
    0x01,                   /* EndpointType: 1 (brokers) */
    0x03, 'c',  'l',        /* ClusterId: "cl" */
    0x00, 0x00, 0x00, 0x01, /* ControllerId: 1 */
    0x03,                   /* Brokers: 2 elements */
    0x00, 0x00, 0x00, 0x01, /*   BrokerId: 1 */
    0x02, 'a',              /*   Host: "a" */
    0x00, 0x00, 0x23, 0x84, /*   Port: 9092 */
    0x00,                   /*   Rack: null */
    0x00,                   /*   IsFenced: false */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x00, 0x02, /*   BrokerId: 2 */
    0x02, 'b',              /*   Host: "b" */
    0x00, 0x00, 0x23, 0x85, /*   Port: 9093 */
    0x03, 'r',  '2',        /*   Rack: "r2" */
    0x01,                   /*   IsFenced: true */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x0f, 0xf8, /* ClusterAuthorizedOperations: 4088 */
    0x00,                   /* tags: none */
};
CHECK(describe_cluster_rs_v2, gr_describe_cluster_response_t)
{
    CK_INT(m->error_code, 0);
    CK_NULL(m->error_message);
    CK_INT(m->endpoint_type, 1);
    CK_STR(m->cluster_id, "cl");
    CK_INT(m->controller_id, 1);
    CK_INT(m->brokers_cnt, 2);
    CK_STR(m->brokers[0].host, "a");
    CK_NULL(m->brokers[0].rack);
    ck_assert(!m->brokers[0].is_fenced);
    CK_INT(m->brokers[1].broker_id, 2);
    CK_INT(m->brokers[1].port, 9093);
    CK_STR(m->brokers[1].rack, "r2");
    ck_assert(m->brokers[1].is_fenced);
    CK_INT(m->cluster_authorized_operations, 4088);
}

/* ---- DescribeGroups (15): v6 adds ErrorMessage to each group ---- */

static const uint8_t describe_groups_rs_v6[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x03,                   /* Groups: 2 elements */
    0x00, 0x45,             /*   ErrorCode: 69 (GROUP_ID_NOT_FOUND) */
    0x03, 'n',  'f',        /*   ErrorMessage: "nf" */
    0x02, 'x',              /*   GroupId: "x" */
    0x05, 'D',  'e',  'a',  /*   GroupState: "Dead" */
    'd',                    /*  */
    0x01,                   /*   ProtocolType: "" */
    0x01,                   /*   ProtocolData: "" */
    0x01,                   /*   Members: empty */
    0x80, 0x00, 0x00, 0x00, /*   AuthorizedOperations: INT32_MIN */
    0x00,                   /*   tags: none */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   ErrorMessage: null */
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
    0x02, 'i',              /*     GroupInstanceId: "i" */
    0x02, 'c',              /*     ClientId: "c" */
    0x03, '/',  'h',        /*     ClientHost: "/h" */
    0x01,                   /*     MemberMetadata: COMPACT_BYTES, empty */
    0x02, 0x05,             /*     MemberAssignment: COMPACT_BYTES, 1 */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x00, 0x08, /*   AuthorizedOperations: 8 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_groups_rs_v6, gr_describe_groups_response_t)
{
    CK_INT(m->groups_cnt, 2);
    CK_INT(m->groups[0].error_code, 69);
    CK_STR(m->groups[0].error_message, "nf");
    CK_STR(m->groups[0].group_id, "x");
    CK_STR(m->groups[0].group_state, "Dead");
    CK_INT(m->groups[0].protocol_type.len, 0);
    CK_INT(m->groups[0].members_cnt, 0);
    CK_INT(m->groups[0].authorized_operations, INT32_MIN);
    CK_NULL(m->groups[1].error_message);
    CK_STR(m->groups[1].protocol_data, "range");
    CK_STR(m->groups[1].members[0].group_instance_id, "i");
    CK_STR(m->groups[1].members[0].client_host, "/h");
    CK_INT(m->groups[1].members[0].member_metadata.len, 0);
    CK_INT(m->groups[1].members[0].member_assignment.len, 1);
    CK_INT(m->groups[1].members[0].member_assignment.ptr[0], 5);
    CK_INT(m->groups[1].authorized_operations, 8);
}

/* ---- DescribeLogDirs (35): v5 adds IsCordoned to each result ---- */

static const uint8_t describe_log_dirs_rs_v5[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x03,                   /* Results: 2 elements */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x03, '/',  'a',        /*   LogDir: "/a" */
    0x02,                   /*   Topics: 1 element */
    0x02, 't',              /*     Name: "t" */
    0x02,                   /*     Partitions: 1 element */
    0x00, 0x00, 0x00, 0x01, /*       PartitionIndex: 1 */
    0x00, 0x00, 0x00, 0x00, /*       PartitionSize: 4096 */
    0x00, 0x00, 0x10, 0x00, /*  */
    0x00, 0x00, 0x00, 0x00, /*       OffsetLag: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00,                   /*       IsFutureKey: false */
    0x00,                   /*       tags: none */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x01, 0x00, /*   TotalBytes: 2^40 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x80, /*   UsableBytes: 2^39 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x01,                   /*   IsCordoned: true */
    0x00,                   /*   tags: none */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x03, '/',  'b',        /*   LogDir: "/b" */
    0x01,                   /*   Topics: empty */
    0xff, 0xff, 0xff, 0xff, /*   TotalBytes: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0xff, 0xff, 0xff, 0xff, /*   UsableBytes: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00,                   /*   IsCordoned: false */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_log_dirs_rs_v5, gr_describe_log_dirs_response_t)
{
    CK_INT(m->error_code, 0);
    CK_INT(m->results_cnt, 2);
    CK_STR(m->results[0].log_dir, "/a");
    CK_STR(m->results[0].topics[0].name, "t");
    CK_INT(m->results[0].topics[0].partitions[0].partition_index, 1);
    CK_INT(m->results[0].topics[0].partitions[0].partition_size, 4096);
    ck_assert(!m->results[0].topics[0].partitions[0].is_future_key);
    CK_INT(m->results[0].total_bytes, 1LL << 40);
    CK_INT(m->results[0].usable_bytes, 1LL << 39);
    ck_assert(m->results[0].is_cordoned);
    CK_STR(m->results[1].log_dir, "/b");
    CK_INT(m->results[1].topics_cnt, 0);
    CK_INT(m->results[1].total_bytes, -1);
    CK_INT(m->results[1].usable_bytes, -1);
    ck_assert(!m->results[1].is_cordoned);
}

/* ---- Fetch (1): v18 adds the tagged HighWatermark (tag 1) to each
 * FetchPartition ---- */

static const uint8_t fetch_rq_v18[] = {
    0x00, 0x00, 0x01, 0xf4, /* MaxWaitMs: 500 */
    0x00, 0x00, 0x00, 0x01, /* MinBytes: 1 */
    0x00, 0xa0, 0x00, 0x00, /* MaxBytes: 10 MiB */
    0x00,                   /* IsolationLevel: 0 */
    0x00, 0x00, 0x00, 0x00, /* SessionId: 0 */
    0xff, 0xff, 0xff, 0xff, /* SessionEpoch: -1 */
    0x02,                   /* Topics: 1 element */
    0x40, 0x41, 0x42, 0x43, /*   TopicId: UUID 40 41 .. 4f */
    0x44, 0x45, 0x46, 0x47, /*  */
    0x48, 0x49, 0x4a, 0x4b, /*  */
    0x4c, 0x4d, 0x4e, 0x4f, /*  */
    0x04,                   /*   Partitions: 3 elements */
    0x00, 0x00, 0x00, 0x00, /*     Partition: 0 */
    0x00, 0x00, 0x00, 0x04, /*     CurrentLeaderEpoch: 4 */
    0x00, 0x00, 0x00, 0x00, /*     FetchOffset: 100 */
    0x00, 0x00, 0x00, 0x64, /*  */
    0x00, 0x00, 0x00, 0x04, /*     LastFetchedEpoch: 4 */
    0x00, 0x00, 0x00, 0x00, /*     LogStartOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x10, 0x00, 0x00, /*     PartitionMaxBytes: 1 MiB */
    0x02,                   /*     tags: 2 fields */
    0x00, 0x10,             /*       tag 0 (ReplicaDirectoryId), 16 */
    0xd0, 0xd1, 0xd2, 0xd3, /*       UUID d0 d1 .. df */
    0xd4, 0xd5, 0xd6, 0xd7, /*  */
    0xd8, 0xd9, 0xda, 0xdb, /*  */
    0xdc, 0xdd, 0xde, 0xdf, /*  */
    0x01, 0x08,             /*       tag 1 (HighWatermark), 8 bytes */
    0x00, 0x00, 0x00, 0x00, /*       INT64 90 */
    0x00, 0x00, 0x00, 0x5a, /*  */
    0x00, 0x00, 0x00, 0x01, /*     Partition: 1 */
    0x00, 0x00, 0x00, 0x04, /*     CurrentLeaderEpoch: 4 */
    0x00, 0x00, 0x00, 0x00, /*     FetchOffset: 7 */
    0x00, 0x00, 0x00, 0x07, /*  */
    0x00, 0x00, 0x00, 0x03, /*     LastFetchedEpoch: 3 */
    0x00, 0x00, 0x00, 0x00, /*     LogStartOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x10, 0x00, 0x00, /*     PartitionMaxBytes: 1 MiB */
    0x01,                   /*     tags: 1 field */
    0x01, 0x08,             /*       tag 1 (HighWatermark), 8 bytes */
    0x00, 0x00, 0x00, 0x00, /*       INT64 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x02, /*     Partition: 2 */
    0xff, 0xff, 0xff, 0xff, /*     CurrentLeaderEpoch: -1 */
    0x00, 0x00, 0x00, 0x00, /*     FetchOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0xff, 0xff, 0xff, 0xff, /*     LastFetchedEpoch: -1 */
    0xff, 0xff, 0xff, 0xff, /*     LogStartOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x10, 0x00, 0x00, /*     PartitionMaxBytes: 1 MiB */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x01,                   /* ForgottenTopicsData: empty */
    0x01,                   /* RackId: "" */
    0x01,                   /* tags: 1 field */
    0x01, 0x0d,             /*   tag 1 (ReplicaState), 13 bytes */
    0x00, 0x00, 0x00, 0x01, /*     ReplicaId: 1 */
    0x00, 0x00, 0x00, 0x00, /*     ReplicaEpoch: INT64 5 */
    0x00, 0x00, 0x00, 0x05, /*  */
    0x00,                   /*     tags: none */
};
CHECK(fetch_rq_v18, gr_fetch_request_t)
{
    CK_INT(m->replica_id, -1); /* 0-14 only: default */
    CK_INT(m->replica_state.replica_id, 1);
    CK_INT(m->replica_state.replica_epoch, 5);
    CK_NULL(m->cluster_id); /* tag absent */
    CK_INT(m->max_bytes, 10 << 20);
    CK_INT(m->session_epoch, -1);
    CK_INT(m->topics_cnt, 1);
    CK_INT(m->topics[0].topic_id.b[0], 0x40);
    CK_INT(m->topics[0].topic_id.b[15], 0x4f);
    CK_INT(m->topics[0].topic.len, 0); /* 0-12 only: default "" */
    CK_INT(m->topics[0].partitions_cnt, 3);
    CK_INT(m->topics[0].partitions[0].current_leader_epoch, 4);
    CK_INT(m->topics[0].partitions[0].fetch_offset, 100);
    CK_INT(m->topics[0].partitions[0].replica_directory_id.b[0], 0xd0);
    CK_INT(m->topics[0].partitions[0].replica_directory_id.b[15], 0xdf);
    CK_INT(m->topics[0].partitions[0].high_watermark, 90);
    CK_INT(m->topics[0].partitions[1].partition, 1);
    CK_INT(m->topics[0].partitions[1].last_fetched_epoch, 3);
    ck_assert(
        gr_uuid_is_zero(&m->topics[0].partitions[1].replica_directory_id));
    CK_INT(m->topics[0].partitions[1].high_watermark, 0);
    CK_INT(m->topics[0].partitions[2].log_start_offset, -1);
    ck_assert(
        gr_uuid_is_zero(&m->topics[0].partitions[2].replica_directory_id));
    CK_INT(m->topics[0].partitions[2].high_watermark, INT64_MAX); /* absent */
    CK_INT(m->forgotten_topics_data_cnt, 0);
    CK_INT(m->rack_id.len, 0);
}

/* ---- ListTransactions (66): v2 adds TransactionalIdPattern ---- */

static const uint8_t list_transactions_rq_v2[] = {
    0x02,                   /* StateFilters: 1 element */
    0x08, 'O',  'n',  'g',  /*   "Ongoing" */
    'o',  'i',  'n',  'g',  /*  */
    0x02,                   /* ProducerIdFilters: 1 INT64 */
    0x00, 0x00, 0x00, 0x00, /*   7 */
    0x00, 0x00, 0x00, 0x07, /*  */
    0xff, 0xff, 0xff, 0xff, /* DurationFilter: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x06, 't',  'x',  '-',  /* TransactionalIdPattern: "tx-.*" */
    '.',  '*',              /*  */
    0x00,                   /* tags: none */
};
CHECK(list_transactions_rq_v2, gr_list_transactions_request_t)
{
    CK_INT(m->state_filters_cnt, 1);
    CK_STR(m->state_filters[0], "Ongoing");
    CK_INT(m->producer_id_filters_cnt, 1);
    CK_INT(m->producer_id_filters[0], 7);
    CK_INT(m->duration_filter, -1);
    CK_STR(m->transactional_id_pattern, "tx-.*");
}

/* ---- Metadata (3): v13 adds a top-level ErrorCode at the end of the
 * response ---- */

static const uint8_t metadata_rs_v13[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Brokers: 1 element */
    0x00, 0x00, 0x00, 0x01, /*   NodeId: 1 */
    0x02, 'h',              /*   Host: "h" */
    0x00, 0x00, 0x23, 0x84, /*   Port: 9092 */
    0x00,                   /*   Rack: null */
    0x00,                   /*   tags: none */
    0x03, 'c',  'l',        /* ClusterId: "cl" */
    0x00, 0x00, 0x00, 0x01, /* ControllerId: 1 */
    0x02,                   /* Topics: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x02, 't',              /*   Name: "t" */
    0x50, 0x51, 0x52, 0x53, /*   TopicId: UUID 50 51 .. 5f */
    0x54, 0x55, 0x56, 0x57, /*  */
    0x58, 0x59, 0x5a, 0x5b, /*  */
    0x5c, 0x5d, 0x5e, 0x5f, /*  */
    0x00,                   /*   IsInternal: false */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x01, /*     LeaderId: 1 */
    0x00, 0x00, 0x00, 0x02, /*     LeaderEpoch: 2 */
    0x02,                   /*     ReplicaNodes: 1 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x02,                   /*     IsrNodes: 1 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x01,                   /*     OfflineReplicas: empty */
    0x00,                   /*     tags: none */
    0x80, 0x00, 0x00, 0x00, /*   TopicAuthorizedOperations: INT32_MIN */
    0x00,                   /*   tags: none */
    0x00, 0x81,             /* ErrorCode: 129 (REBOOTSTRAP_REQUIRED) */
    0x00,                   /* tags: none */
};
CHECK(metadata_rs_v13, gr_metadata_response_t)
{
    CK_INT(m->brokers_cnt, 1);
    CK_STR(m->brokers[0].host, "h");
    CK_NULL(m->brokers[0].rack);
    CK_STR(m->cluster_id, "cl");
    CK_INT(m->topics_cnt, 1);
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].topic_id.b[15], 0x5f);
    CK_INT(m->topics[0].partitions[0].leader_epoch, 2);
    CK_INT(m->topics[0].partitions[0].isr_nodes[0], 1);
    CK_INT(m->topics[0].partitions[0].offline_replicas_cnt, 0);
    CK_INT(m->topics[0].topic_authorized_operations, INT32_MIN);
    CK_INT(m->cluster_authorized_operations, INT32_MIN); /* 8-10 only */
    CK_INT(m->error_code, 129);
}

/* ---- OffsetCommit (8): v10 names topics by TopicId instead of Name ---- */

static const uint8_t offset_commit_rq_v10[] = {
    0x02, 'g',              /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x03, /* GenerationIdOrMemberEpoch: 3 */
    0x03, 'm',  '1',        /* MemberId: "m1" */
    0x00,                   /* GroupInstanceId: null */
    0x02,                   /* Topics: 1 element */
    0x60, 0x61, 0x62, 0x63, /*   TopicId: UUID 60 61 .. 6f */
    0x64, 0x65, 0x66, 0x67, /*  */
    0x68, 0x69, 0x6a, 0x6b, /*  */
    0x6c, 0x6d, 0x6e, 0x6f, /*  */
    0x03,                   /*   Partitions: 2 elements */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0x00, 0x00, 0x00, 0x02, /*     CommittedLeaderEpoch: 2 */
    0x03, 'm',  'd',        /*     CommittedMetadata: "md" */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0xff, 0xff, 0xff, 0xff, /*     CommittedLeaderEpoch: -1 */
    0x00,                   /*     CommittedMetadata: null */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(offset_commit_rq_v10, gr_offset_commit_request_t)
{
    CK_STR(m->group_id, "g");
    CK_INT(m->generation_id_or_member_epoch, 3);
    CK_STR(m->member_id, "m1");
    CK_NULL(m->group_instance_id);
    CK_INT(m->retention_time_ms, -1); /* 2-4 only: default */
    CK_INT(m->topics_cnt, 1);
    CK_INT(m->topics[0].name.len, 0); /* 0-9 only: default "" */
    CK_INT(m->topics[0].topic_id.b[0], 0x60);
    CK_INT(m->topics[0].topic_id.b[15], 0x6f);
    CK_INT(m->topics[0].partitions_cnt, 2);
    CK_INT(m->topics[0].partitions[0].committed_offset, 42);
    CK_INT(m->topics[0].partitions[0].committed_leader_epoch, 2);
    CK_INT(m->topics[0].partitions[0].commit_timestamp, -1); /* 1 only */
    CK_STR(m->topics[0].partitions[0].committed_metadata, "md");
    CK_INT(m->topics[0].partitions[1].partition_index, 1);
    CK_INT(m->topics[0].partitions[1].committed_leader_epoch, -1);
    CK_NULL(m->topics[0].partitions[1].committed_metadata);
}

static const uint8_t offset_commit_rs_v10[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Topics: 1 element */
    0x60, 0x61, 0x62, 0x63, /*   TopicId: UUID 60 61 .. 6f */
    0x64, 0x65, 0x66, 0x67, /*  */
    0x68, 0x69, 0x6a, 0x6b, /*  */
    0x6c, 0x6d, 0x6e, 0x6f, /*  */
    0x03,                   /*   Partitions: 2 elements */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00, 0x64,             /*     ErrorCode: 100 (UNKNOWN_TOPIC_ID) */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(offset_commit_rs_v10, gr_offset_commit_response_t)
{
    CK_INT(m->topics_cnt, 1);
    CK_INT(m->topics[0].name.len, 0); /* 0-9 only: default "" */
    CK_INT(m->topics[0].topic_id.b[0], 0x60);
    CK_INT(m->topics[0].topic_id.b[15], 0x6f);
    CK_INT(m->topics[0].partitions_cnt, 2);
    CK_INT(m->topics[0].partitions[0].error_code, 0);
    CK_INT(m->topics[0].partitions[1].partition_index, 1);
    CK_INT(m->topics[0].partitions[1].error_code, 100);
}

/* ---- OffsetFetch (9): v10 names topics by TopicId instead of Name in the
 * v8+ group shape ---- */

static const uint8_t offset_fetch_rq_v10[] = {
    0x03,                   /* Groups: 2 elements */
    0x02, 'g',              /*   GroupId: "g" */
    0x03, 'm',  '1',        /*   MemberId: "m1" */
    0x00, 0x00, 0x00, 0x04, /*   MemberEpoch: 4 */
    0x02,                   /*   Topics: 1 element */
    0x70, 0x71, 0x72, 0x73, /*     TopicId: UUID 70 71 .. 7f */
    0x74, 0x75, 0x76, 0x77, /*  */
    0x78, 0x79, 0x7a, 0x7b, /*  */
    0x7c, 0x7d, 0x7e, 0x7f, /*  */
    0x03,                   /*     PartitionIndexes: 2 INT32 */
    0x00, 0x00, 0x00, 0x00, /*       0 */
    0x00, 0x00, 0x00, 0x02, /*       2 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x02, 'h',              /*   GroupId: "h" */
    0x00,                   /*   MemberId: null */
    0xff, 0xff, 0xff, 0xff, /*   MemberEpoch: -1 */
    0x00,                   /*   Topics: null (all topics) */
    0x00,                   /*   tags: none */
    0x01,                   /* RequireStable: true */
    0x00,                   /* tags: none */
};
CHECK(offset_fetch_rq_v10, gr_offset_fetch_request_t)
{
    CK_INT(m->group_id.len, 0); /* 0-7 only: default "" */
    CK_INT(m->topics_cnt, 0);   /* 0-7 only: default empty */
    CK_INT(m->groups_cnt, 2);
    CK_STR(m->groups[0].group_id, "g");
    CK_STR(m->groups[0].member_id, "m1");
    CK_INT(m->groups[0].member_epoch, 4);
    CK_INT(m->groups[0].topics_cnt, 1);
    CK_INT(m->groups[0].topics[0].name.len, 0); /* 8-9 only: default "" */
    CK_INT(m->groups[0].topics[0].topic_id.b[0], 0x70);
    CK_INT(m->groups[0].topics[0].topic_id.b[15], 0x7f);
    CK_INT(m->groups[0].topics[0].partition_indexes_cnt, 2);
    CK_INT(m->groups[0].topics[0].partition_indexes[1], 2);
    CK_STR(m->groups[1].group_id, "h");
    CK_NULL(m->groups[1].member_id);
    CK_INT(m->groups[1].member_epoch, -1);
    CK_INT(m->groups[1].topics_cnt, -1);
    ck_assert(m->require_stable);
}

static const uint8_t offset_fetch_rs_v10[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Groups: 1 element */
    0x02, 'g',              /*   GroupId: "g" */
    0x02,                   /*   Topics: 1 element */
    0x70, 0x71, 0x72, 0x73, /*     TopicId: UUID 70 71 .. 7f */
    0x74, 0x75, 0x76, 0x77, /*  */
    0x78, 0x79, 0x7a, 0x7b, /*  */
    0x7c, 0x7d, 0x7e, 0x7f, /*  */
    0x03,                   /*     Partitions: 2 elements */
    0x00, 0x00, 0x00, 0x00, /*       PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*       CommittedOffset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0x00, 0x00, 0x00, 0x02, /*       CommittedLeaderEpoch: 2 */
    0x03, 'm',  'd',        /*       Metadata: "md" */
    0x00, 0x00,             /*       ErrorCode: 0 */
    0x00,                   /*       tags: none */
    0x00, 0x00, 0x00, 0x02, /*       PartitionIndex: 2 */
    0xff, 0xff, 0xff, 0xff, /*       CommittedOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0xff, 0xff, 0xff, 0xff, /*       CommittedLeaderEpoch: -1 */
    0x00,                   /*       Metadata: null */
    0x00, 0x00,             /*       ErrorCode: 0 */
    0x00,                   /*       tags: none */
    0x00,                   /*     tags: none */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(offset_fetch_rs_v10, gr_offset_fetch_response_t)
{
    CK_INT(m->topics_cnt, 0);  /* 0-7 only: default empty */
    CK_INT(m->error_code, 0);  /* 2-7 only: default */
    CK_INT(m->groups_cnt, 1);
    CK_STR(m->groups[0].group_id, "g");
    CK_INT(m->groups[0].topics_cnt, 1);
    CK_INT(m->groups[0].topics[0].name.len, 0); /* 8-9 only: default "" */
    CK_INT(m->groups[0].topics[0].topic_id.b[0], 0x70);
    CK_INT(m->groups[0].topics[0].topic_id.b[15], 0x7f);
    CK_INT(m->groups[0].topics[0].partitions_cnt, 2);
    CK_INT(m->groups[0].topics[0].partitions[0].committed_offset, 42);
    CK_INT(m->groups[0].topics[0].partitions[0].committed_leader_epoch, 2);
    CK_STR(m->groups[0].topics[0].partitions[0].metadata, "md");
    CK_INT(m->groups[0].topics[0].partitions[1].partition_index, 2);
    CK_INT(m->groups[0].topics[0].partitions[1].committed_offset, -1);
    CK_NULL(m->groups[0].topics[0].partitions[1].metadata);
    CK_INT(m->groups[0].error_code, 0);
}

/* ---- Produce (0): v13 names topics by TopicId instead of Name ---- */

static const uint8_t produce_rq_v13[] = {
    0x03, 't',  'x',        /* TransactionalId: "tx" */
    0xff, 0xff,             /* Acks: -1 */
    0x00, 0x00, 0x75, 0x30, /* TimeoutMs: 30000 */
    0x02,                   /* TopicData: 1 element */
    0x80, 0x81, 0x82, 0x83, /*   TopicId: UUID 80 81 .. 8f */
    0x84, 0x85, 0x86, 0x87, /*  */
    0x88, 0x89, 0x8a, 0x8b, /*  */
    0x8c, 0x8d, 0x8e, 0x8f, /*  */
    0x03,                   /*   PartitionData: 2 elements */
    0x00, 0x00, 0x00, 0x00, /*     Index: 0 */
    0x05,                   /*     Records: COMPACT_RECORDS, 4 bytes */
    0x01, 0x02, 0x03, 0x04, /*       (opaque) */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x00, 0x01, /*     Index: 1 */
    0x00,                   /*     Records: null */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(produce_rq_v13, gr_produce_request_t)
{
    CK_STR(m->transactional_id, "tx");
    CK_INT(m->acks, -1);
    CK_INT(m->timeout_ms, 30000);
    CK_INT(m->topic_data_cnt, 1);
    CK_INT(m->topic_data[0].name.len, 0); /* 0-12 only: default "" */
    CK_INT(m->topic_data[0].topic_id.b[0], 0x80);
    CK_INT(m->topic_data[0].topic_id.b[15], 0x8f);
    CK_INT(m->topic_data[0].partition_data_cnt, 2);
    CK_INT(m->topic_data[0].partition_data[0].records.len, 4);
    CK_INT(m->topic_data[0].partition_data[0].records.ptr[3], 4);
    CK_INT(m->topic_data[0].partition_data[1].index, 1);
    CK_INT(m->topic_data[0].partition_data[1].records.len, -1);
}

static const uint8_t produce_rs_v13[] = {
    0x02,                   /* Responses: 1 element */
    0x80, 0x81, 0x82, 0x83, /*   TopicId: UUID 80 81 .. 8f */
    0x84, 0x85, 0x86, 0x87, /*  */
    0x88, 0x89, 0x8a, 0x8b, /*  */
    0x8c, 0x8d, 0x8e, 0x8f, /*  */
    0x02,                   /*   PartitionResponses: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     Index: 0 */
    0x00, 0x57,             /*     ErrorCode: 87 (INVALID_RECORD) */
    0xff, 0xff, 0xff, 0xff, /*     BaseOffset: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0xff, 0xff, 0xff, 0xff, /*     LogAppendTimeMs: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x00, 0x00, 0x00, /*     LogStartOffset: 10 */
    0x00, 0x00, 0x00, 0x0a, /*  */
    0x02,                   /*     RecordErrors: 1 element */
    0x00, 0x00, 0x00, 0x01, /*       BatchIndex: 1 */
    0x03, 'b',  'd',        /*       BatchIndexErrorMessage: "bd" */
    0x00,                   /*       tags: none */
    0x00,                   /*     ErrorMessage: null */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x00, 0x05, /* ThrottleTimeMs: 5 */
    0x00,                   /* tags: none */
};
CHECK(produce_rs_v13, gr_produce_response_t)
{
    const gr_produce_response_partition_produce_response_t *pr =
        &m->responses[0].partition_responses[0];
    CK_INT(m->responses_cnt, 1);
    CK_INT(m->responses[0].name.len, 0); /* 0-12 only: default "" */
    CK_INT(m->responses[0].topic_id.b[0], 0x80);
    CK_INT(m->responses[0].topic_id.b[15], 0x8f);
    CK_INT(m->responses[0].partition_responses_cnt, 1);
    CK_INT(pr->error_code, 87);
    CK_INT(pr->base_offset, -1);
    CK_INT(pr->log_start_offset, 10);
    CK_INT(pr->record_errors_cnt, 1);
    CK_INT(pr->record_errors[0].batch_index, 1);
    CK_STR(pr->record_errors[0].batch_index_error_message, "bd");
    CK_NULL(pr->error_message);
    CK_INT(pr->current_leader.leader_id, -1); /* tag absent */
    CK_INT(m->throttle_time_ms, 5);
    CK_INT(m->node_endpoints_cnt, 0); /* tag absent */
}

/* ---- TxnOffsetCommit (28): v6 names topics by TopicId instead of Name in
 * the request and the response; v5 keeps v3-v4's shape (KIP-890 part 2
 * changes only what the request does) and has a vector too, with Name ---- */

/* InitProducerId v6 (KIP-939): Enable2Pc and KeepPreparedTxn in the
 * request, the ongoing transaction's producer in the response. */
static const uint8_t init_producer_id_rq_v6[] = {
    0x03, 't',  'x',        /* TransactionalId: "tx" */
    0x00, 0x00, 0xea, 0x60, /* TransactionTimeoutMs: 60000 */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 7 */
    0x00, 0x00, 0x00, 0x07, /*  */
    0x00, 0x02,             /* ProducerEpoch: 2 */
    0x01,                   /* Enable2Pc: true */
    0x00,                   /* KeepPreparedTxn: false */
    0x00,                   /* tags: none */
};
CHECK(init_producer_id_rq_v6, gr_init_producer_id_request_t)
{
    CK_STR(m->transactional_id, "tx");
    CK_INT(m->transaction_timeout_ms, 60000);
    CK_INT(m->producer_id, 7);
    CK_INT(m->producer_epoch, 2);
    CK_INT(m->enable2_pc, 1);
    CK_INT(m->keep_prepared_txn, 0);
}

static const uint8_t init_producer_id_rs_v6[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x35,             /* ErrorCode: 53 (TRANSACTIONAL_ID_AUTH...) */
    0xff, 0xff, 0xff, 0xff, /* ProducerId: -1 */
    0xff, 0xff, 0xff, 0xff, /*  */
    0xff, 0xff,             /* ProducerEpoch: -1 */
    0x00, 0x00, 0x00, 0x00, /* OngoingTxnProducerId: 9 */
    0x00, 0x00, 0x00, 0x09, /*  */
    0x00, 0x03,             /* OngoingTxnProducerEpoch: 3 */
    0x00,                   /* tags: none */
};
CHECK(init_producer_id_rs_v6, gr_init_producer_id_response_t)
{
    CK_INT(m->error_code, 53);
    CK_INT(m->producer_id, -1);
    CK_INT(m->producer_epoch, -1);
    CK_INT(m->ongoing_txn_producer_id, 9);
    CK_INT(m->ongoing_txn_producer_epoch, 3);
}

static const uint8_t txn_offset_commit_rq_v5[] = {
    0x03, 't',  'x',        /* TransactionalId: "tx" */
    0x02, 'g',              /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x04,             /* ProducerEpoch: 4 */
    0x00, 0x00, 0x00, 0x07, /* GenerationIdOrMemberEpoch: 7 */
    0x02, 'm',              /* MemberId: "m" */
    0x00,                   /* GroupInstanceId: null */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x03, /*     PartitionIndex: 3 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0x00, 0x00, 0x00, 0x02, /*     CommittedLeaderEpoch: 2 */
    0x03, 'm',  'd',        /*     CommittedMetadata: "md" */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(txn_offset_commit_rq_v5, gr_txn_offset_commit_request_t)
{
    CK_STR(m->transactional_id, "tx");
    CK_STR(m->group_id, "g");
    CK_INT(m->producer_id, 1000);
    CK_INT(m->producer_epoch, 4);
    CK_INT(m->generation_id, 7);
    CK_STR(m->member_id, "m");
    CK_NULL(m->group_instance_id);
    CK_INT(m->topics_cnt, 1);
    CK_STR(m->topics[0].name, "t");
    for (int i = 0; i < 16; i++) /* 6+ only: default zero */
        CK_INT(m->topics[0].topic_id.b[i], 0);
    CK_INT(m->topics[0].partitions_cnt, 1);
    CK_INT(m->topics[0].partitions[0].partition_index, 3);
    CK_INT(m->topics[0].partitions[0].committed_offset, 42);
    CK_INT(m->topics[0].partitions[0].committed_leader_epoch, 2);
    CK_STR(m->topics[0].partitions[0].committed_metadata, "md");
}

static const uint8_t txn_offset_commit_rq_v6[] = {
    0x03, 't',  'x',        /* TransactionalId: "tx" */
    0x02, 'g',              /* GroupId: "g" */
    0x00, 0x00, 0x00, 0x00, /* ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x04,             /* ProducerEpoch: 4 */
    0x00, 0x00, 0x00, 0x07, /* GenerationIdOrMemberEpoch: 7 */
    0x02, 'm',              /* MemberId: "m" */
    0x02, 'i',              /* GroupInstanceId: "i" */
    0x03,                   /* Topics: 2 elements */
    0x90, 0x91, 0x92, 0x93, /*   TopicId: UUID 90 91 .. 9f */
    0x94, 0x95, 0x96, 0x97, /*  */
    0x98, 0x99, 0x9a, 0x9b, /*  */
    0x9c, 0x9d, 0x9e, 0x9f, /*  */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 42 */
    0x00, 0x00, 0x00, 0x2a, /*  */
    0x00, 0x00, 0x00, 0x02, /*     CommittedLeaderEpoch: 2 */
    0x03, 'm',  'd',        /*     CommittedMetadata: "md" */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0xc0, 0xc1, 0xc2, 0xc3, /*   TopicId: UUID c0 c1 .. cf */
    0xc4, 0xc5, 0xc6, 0xc7, /*  */
    0xc8, 0xc9, 0xca, 0xcb, /*  */
    0xcc, 0xcd, 0xce, 0xcf, /*  */
    0x03,                   /*   Partitions: 2 elements */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00, 0x00, 0x00, 0x00, /*     CommittedOffset: 0 */
    0x00, 0x00, 0x00, 0x00, /*  */
    0xff, 0xff, 0xff, 0xff, /*     CommittedLeaderEpoch: -1 */
    0x00,                   /*     CommittedMetadata: null */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x00, 0x02, /*     PartitionIndex: 2 */
    0x7f, 0xff, 0xff, 0xff, /*     CommittedOffset: INT64_MAX */
    0xff, 0xff, 0xff, 0xff, /*  */
    0x00, 0x00, 0x00, 0x00, /*     CommittedLeaderEpoch: 0 */
    0x01,                   /*     CommittedMetadata: "" */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(txn_offset_commit_rq_v6, gr_txn_offset_commit_request_t)
{
    const gr_txn_offset_commit_request_topic_t *t1 = &m->topics[1];
    CK_STR(m->transactional_id, "tx");
    CK_STR(m->group_id, "g");
    CK_INT(m->producer_id, 1000);
    CK_INT(m->producer_epoch, 4);
    CK_INT(m->generation_id, 7);
    CK_STR(m->member_id, "m");
    CK_STR(m->group_instance_id, "i");
    CK_INT(m->topics_cnt, 2);
    CK_INT(m->topics[0].name.len, 0); /* 0-5 only: default "" */
    CK_INT(m->topics[0].topic_id.b[0], 0x90);
    CK_INT(m->topics[0].topic_id.b[15], 0x9f);
    CK_INT(m->topics[0].partitions_cnt, 1);
    CK_INT(m->topics[0].partitions[0].partition_index, 0);
    CK_INT(m->topics[0].partitions[0].committed_offset, 42);
    CK_INT(m->topics[0].partitions[0].committed_leader_epoch, 2);
    CK_STR(m->topics[0].partitions[0].committed_metadata, "md");
    CK_INT(t1->name.len, 0);
    CK_INT(t1->topic_id.b[0], 0xc0);
    CK_INT(t1->topic_id.b[15], 0xcf);
    CK_INT(t1->partitions_cnt, 2);
    CK_INT(t1->partitions[0].partition_index, 1);
    CK_INT(t1->partitions[0].committed_offset, 0);
    CK_INT(t1->partitions[0].committed_leader_epoch, -1);
    CK_NULL(t1->partitions[0].committed_metadata);
    CK_INT(t1->partitions[1].partition_index, 2);
    CK_INT(t1->partitions[1].committed_offset, INT64_MAX);
    CK_INT(t1->partitions[1].committed_leader_epoch, 0);
    CK_STR(t1->partitions[1].committed_metadata, "");
}

static const uint8_t txn_offset_commit_rs_v5[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x03, /*     PartitionIndex: 3 */
    0x00, 0x78,             /*     ErrorCode: 120 (TRANSACTION_ABORTABLE) */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(txn_offset_commit_rs_v5, gr_txn_offset_commit_response_t)
{
    CK_INT(m->topics_cnt, 1);
    CK_STR(m->topics[0].name, "t");
    for (int i = 0; i < 16; i++) /* 6+ only: default zero */
        CK_INT(m->topics[0].topic_id.b[i], 0);
    CK_INT(m->topics[0].partitions_cnt, 1);
    CK_INT(m->topics[0].partitions[0].partition_index, 3);
    CK_INT(m->topics[0].partitions[0].error_code, 120);
}

static const uint8_t txn_offset_commit_rs_v6[] = {
    0x00, 0x00, 0x00, 0x09, /* ThrottleTimeMs: 9 */
    0x03,                   /* Topics: 2 elements */
    0x90, 0x91, 0x92, 0x93, /*   TopicId: UUID 90 91 .. 9f */
    0x94, 0x95, 0x96, 0x97, /*  */
    0x98, 0x99, 0x9a, 0x9b, /*  */
    0x9c, 0x9d, 0x9e, 0x9f, /*  */
    0x02,                   /*   Partitions: 1 element */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0xc0, 0xc1, 0xc2, 0xc3, /*   TopicId: UUID c0 c1 .. cf */
    0xc4, 0xc5, 0xc6, 0xc7, /*  */
    0xc8, 0xc9, 0xca, 0xcb, /*  */
    0xcc, 0xcd, 0xce, 0xcf, /*  */
    0x03,                   /*   Partitions: 2 elements */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00, 0x64,             /*     ErrorCode: 100 (UNKNOWN_TOPIC_ID) */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x00, 0x02, /*     PartitionIndex: 2 */
    0x00, 0x71,             /*     ErrorCode: 113 (STALE_MEMBER_EPOCH) */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(txn_offset_commit_rs_v6, gr_txn_offset_commit_response_t)
{
    const gr_txn_offset_commit_response_topic_t *t1 = &m->topics[1];
    CK_INT(m->throttle_time_ms, 9);
    CK_INT(m->topics_cnt, 2);
    CK_INT(m->topics[0].name.len, 0); /* 0-5 only: default "" */
    CK_INT(m->topics[0].topic_id.b[0], 0x90);
    CK_INT(m->topics[0].topic_id.b[15], 0x9f);
    CK_INT(m->topics[0].partitions_cnt, 1);
    CK_INT(m->topics[0].partitions[0].partition_index, 0);
    CK_INT(m->topics[0].partitions[0].error_code, 0);
    CK_INT(t1->name.len, 0);
    CK_INT(t1->topic_id.b[0], 0xc0);
    CK_INT(t1->topic_id.b[15], 0xcf);
    CK_INT(t1->partitions_cnt, 2);
    CK_INT(t1->partitions[0].partition_index, 1);
    CK_INT(t1->partitions[0].error_code, 100);
    CK_INT(t1->partitions[1].partition_index, 2);
    CK_INT(t1->partitions[1].error_code, 113);
}

/* ---- WriteTxnMarkers (27): v2 adds TransactionVersion to each marker ---- */

static const uint8_t write_txn_markers_rq_v2[] = {
    0x02,                   /* Markers: 1 element */
    0x00, 0x00, 0x00, 0x00, /*   ProducerId: 1000 */
    0x00, 0x00, 0x03, 0xe8, /*  */
    0x00, 0x02,             /*   ProducerEpoch: 2 */
    0x01,                   /*   TransactionResult: true (commit) */
    0x02,                   /*   Topics: 1 element */
    0x02, 't',              /*     Name: "t" */
    0x02,                   /*     PartitionIndexes: 1 INT32 */
    0x00, 0x00, 0x00, 0x05, /*       5 */
    0x00,                   /*     tags: none */
    0x00, 0x00, 0x00, 0x07, /*   CoordinatorEpoch: 7 */
    0x02,                   /*   TransactionVersion: 2 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(write_txn_markers_rq_v2, gr_write_txn_markers_request_t)
{
    CK_INT(m->markers_cnt, 1);
    CK_INT(m->markers[0].producer_id, 1000);
    CK_INT(m->markers[0].producer_epoch, 2);
    ck_assert(m->markers[0].transaction_result);
    CK_STR(m->markers[0].topics[0].name, "t");
    CK_INT(m->markers[0].topics[0].partition_indexes[0], 5);
    CK_INT(m->markers[0].coordinator_epoch, 7);
    CK_INT(m->markers[0].transaction_version, 2);
}

/* ---- GetTelemetrySubscriptions (71): v0 only, flexible ---- */

static const uint8_t get_telemetry_subscriptions_rq_v0[] = {
    0xa0, 0xa1, 0xa2, 0xa3, /* ClientInstanceId: UUID a0 a1 .. af */
    0xa4, 0xa5, 0xa6, 0xa7, /*  */
    0xa8, 0xa9, 0xaa, 0xab, /*  */
    0xac, 0xad, 0xae, 0xaf, /*  */
    0x00,                   /* tags: none */
};
CHECK(get_telemetry_subscriptions_rq_v0,
      gr_get_telemetry_subscriptions_request_t)
{
    CK_INT(m->client_instance_id.b[0], 0xa0);
    CK_INT(m->client_instance_id.b[15], 0xaf);
}

static const uint8_t get_telemetry_subscriptions_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0xb0, 0xb1, 0xb2, 0xb3, /* ClientInstanceId: UUID b0 b1 .. bf */
    0xb4, 0xb5, 0xb6, 0xb7, /*  */
    0xb8, 0xb9, 0xba, 0xbb, /*  */
    0xbc, 0xbd, 0xbe, 0xbf, /*  */
    0x00, 0x00, 0x00, 0x07, /* SubscriptionId: 7 */
    0x04,                   /* AcceptedCompressionTypes: 3 INT8 */
    0x04,                   /*   4 (zstd) */
    0x03,                   /*   3 (lz4) */
    0x01,                   /*   1 (gzip) */
    0x00, 0x00, 0x75, 0x30, /* PushIntervalMs: 30000 */
    0x00, 0x10, 0x00, 0x00, /* TelemetryMaxBytes: 1 MiB */
    0x01,                   /* DeltaTemporality: true */
    0x03,                   /* RequestedMetrics: 2 elements */
    0x04, 'o',  'r',  'g',  /*   "org" */
    0x01,                   /*   "" */
    0x00,                   /* tags: none */
};
CHECK(get_telemetry_subscriptions_rs_v0,
      gr_get_telemetry_subscriptions_response_t)
{
    CK_INT(m->throttle_time_ms, 0);
    CK_INT(m->error_code, 0);
    CK_INT(m->client_instance_id.b[0], 0xb0);
    CK_INT(m->client_instance_id.b[15], 0xbf);
    CK_INT(m->subscription_id, 7);
    CK_INT(m->accepted_compression_types_cnt, 3);
    CK_INT(m->accepted_compression_types[0], 4);
    CK_INT(m->accepted_compression_types[2], 1);
    CK_INT(m->push_interval_ms, 30000);
    CK_INT(m->telemetry_max_bytes, 1 << 20);
    ck_assert(m->delta_temporality);
    CK_INT(m->requested_metrics_cnt, 2);
    CK_STR(m->requested_metrics[0], "org");
    CK_INT(m->requested_metrics[1].len, 0);
}

/* ---- PushTelemetry (72): v0 only, flexible ---- */

static const uint8_t push_telemetry_rq_v0[] = {
    0xb0, 0xb1, 0xb2, 0xb3, /* ClientInstanceId: UUID b0 b1 .. bf */
    0xb4, 0xb5, 0xb6, 0xb7, /*  */
    0xb8, 0xb9, 0xba, 0xbb, /*  */
    0xbc, 0xbd, 0xbe, 0xbf, /*  */
    0x00, 0x00, 0x00, 0x07, /* SubscriptionId: 7 */
    0x01,                   /* Terminating: true */
    0x01,                   /* CompressionType: 1 (gzip) */
    0x04, 0x0a, 0x0b, 0x0c, /* Metrics: COMPACT_BYTES, 3 */
    0x00,                   /* tags: none */
};
CHECK(push_telemetry_rq_v0, gr_push_telemetry_request_t)
{
    CK_INT(m->client_instance_id.b[0], 0xb0);
    CK_INT(m->client_instance_id.b[15], 0xbf);
    CK_INT(m->subscription_id, 7);
    ck_assert(m->terminating);
    CK_INT(m->compression_type, 1);
    CK_INT(m->metrics.len, 3);
    CK_INT(m->metrics.ptr[0], 0x0a);
    CK_INT(m->metrics.ptr[2], 0x0c);
}

static const uint8_t push_telemetry_rs_v0[] = {
    0x00, 0x00, 0x00, 0x0a, /* ThrottleTimeMs: 10 */
    0x00, 0x75,             /* ErrorCode: 117 (UNKNOWN_SUBSCRIPTION_ID) */
    0x00,                   /* tags: none */
};
CHECK(push_telemetry_rs_v0, gr_push_telemetry_response_t)
{
    CK_INT(m->throttle_time_ms, 10);
    CK_INT(m->error_code, 117);
}

/* ---- ListConfigResources (74): v0 (ListClientMetricsResources), v1 adds
 * ResourceTypes to the request and ResourceType to each resource ---- */

static const uint8_t list_config_resources_rq_v0[] = {
    0x00, /* tags: none */
};
CHECK(list_config_resources_rq_v0, gr_list_config_resources_request_t)
{
    CK_INT(m->resource_types_cnt, 0); /* 1+ only: default empty */
}

static const uint8_t list_config_resources_rq_v1[] = {
    0x03, /* ResourceTypes: 2 INT8 */
    0x10, /*   16 (CLIENT_METRICS) */
    0x20, /*   32 (GROUP) */
    0x00, /* tags: none */
};
CHECK(list_config_resources_rq_v1, gr_list_config_resources_request_t)
{
    CK_INT(m->resource_types_cnt, 2);
    CK_INT(m->resource_types[0], 16);
    CK_INT(m->resource_types[1], 32);
}

static const uint8_t list_config_resources_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x02,                   /* ConfigResources: 1 element */
    0x04, 'c',  'm',  '1',  /*   ResourceName: "cm1" */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(list_config_resources_rs_v0, gr_list_config_resources_response_t)
{
    CK_INT(m->config_resources_cnt, 1);
    CK_STR(m->config_resources[0].resource_name, "cm1");
    CK_INT(m->config_resources[0].resource_type, 16); /* 1+ only: default */
}

static const uint8_t list_config_resources_rs_v1[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x03,                   /* ConfigResources: 2 elements */
    0x02, 't',              /*   ResourceName: "t" */
    0x02,                   /*   ResourceType: 2 (TOPIC) */
    0x00,                   /*   tags: none */
    0x02, 'g',              /*   ResourceName: "g" */
    0x20,                   /*   ResourceType: 32 (GROUP) */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(list_config_resources_rs_v1, gr_list_config_resources_response_t)
{
    CK_INT(m->config_resources_cnt, 2);
    CK_STR(m->config_resources[0].resource_name, "t");
    CK_INT(m->config_resources[0].resource_type, 2);
    CK_STR(m->config_resources[1].resource_name, "g");
    CK_INT(m->config_resources[1].resource_type, 32);
}

/* ---- DescribeTopicPartitions (75): v0 only, flexible; Cursor and
 * NextCursor are nullable structs ---- */

static const uint8_t describe_topic_partitions_rq_v0[] = {
    0x03,                   /* Topics: 2 elements */
    0x02, 'a',              /*   Name: "a" */
    0x00,                   /*   tags: none */
    0x02, 'b',              /*   Name: "b" */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x07, 0xd0, /* ResponsePartitionLimit: 2000 */
    0x01,                   /* Cursor: present (INT8 1) */
    0x02, 'b',              /*   TopicName: "b" */
    0x00, 0x00, 0x00, 0x05, /*   PartitionIndex: 5 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_topic_partitions_rq_v0, gr_describe_topic_partitions_request_t)
{
    CK_INT(m->topics_cnt, 2);
    CK_STR(m->topics[0].name, "a");
    CK_STR(m->topics[1].name, "b");
    CK_INT(m->response_partition_limit, 2000);
    ck_assert(!m->cursor_null);
    CK_STR(m->cursor.topic_name, "b");
    CK_INT(m->cursor.partition_index, 5);
}

static const uint8_t describe_topic_partitions_rq_v0_null[] = {
    0x02,                   /* Topics: 1 element */
    0x02, 't',              /*   Name: "t" */
    0x00,                   /*   tags: none */
    0x00, 0x00, 0x00, 0x64, /* ResponsePartitionLimit: 100 */
    0xff,                   /* Cursor: null (INT8 -1) */
    0x00,                   /* tags: none */
};
CHECK(describe_topic_partitions_rq_v0_null,
      gr_describe_topic_partitions_request_t)
{
    CK_INT(m->topics_cnt, 1);
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->response_partition_limit, 100);
    ck_assert(m->cursor_null);
}

static const uint8_t describe_topic_partitions_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x02,                   /* Topics: 1 element */
    0x00, 0x00,             /*   ErrorCode: 0 */
    0x02, 't',              /*   Name: "t" */
    0x90, 0x91, 0x92, 0x93, /*   TopicId: UUID 90 91 .. 9f */
    0x94, 0x95, 0x96, 0x97, /*  */
    0x98, 0x99, 0x9a, 0x9b, /*  */
    0x9c, 0x9d, 0x9e, 0x9f, /*  */
    0x00,                   /*   IsInternal: false */
    0x03,                   /*   Partitions: 2 elements */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x00, /*     PartitionIndex: 0 */
    0x00, 0x00, 0x00, 0x01, /*     LeaderId: 1 */
    0x00, 0x00, 0x00, 0x03, /*     LeaderEpoch: 3 */
    0x03,                   /*     ReplicaNodes: 2 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x00, 0x00, 0x00, 0x02, /*       2 */
    0x02,                   /*     IsrNodes: 1 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x00,                   /*     EligibleLeaderReplicas: null */
    0x00,                   /*     LastKnownElr: null */
    0x01,                   /*     OfflineReplicas: empty */
    0x00,                   /*     tags: none */
    0x00, 0x00,             /*     ErrorCode: 0 */
    0x00, 0x00, 0x00, 0x01, /*     PartitionIndex: 1 */
    0x00, 0x00, 0x00, 0x02, /*     LeaderId: 2 */
    0x00, 0x00, 0x00, 0x00, /*     LeaderEpoch: 0 */
    0x03,                   /*     ReplicaNodes: 2 INT32 */
    0x00, 0x00, 0x00, 0x02, /*       2 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x02,                   /*     IsrNodes: 1 INT32 */
    0x00, 0x00, 0x00, 0x02, /*       2 */
    0x02,                   /*     EligibleLeaderReplicas: 1 INT32 */
    0x00, 0x00, 0x00, 0x01, /*       1 */
    0x01,                   /*     LastKnownElr: empty */
    0x01,                   /*     OfflineReplicas: empty */
    0x00,                   /*     tags: none */
    0x80, 0x00, 0x00, 0x00, /*   TopicAuthorizedOperations: INT32_MIN */
    0x00,                   /*   tags: none */
    0x01,                   /* NextCursor: present (INT8 1) */
    0x02, 't',              /*   TopicName: "t" */
    0x00, 0x00, 0x00, 0x02, /*   PartitionIndex: 2 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(describe_topic_partitions_rs_v0, gr_describe_topic_partitions_response_t)
{
    const gr_describe_topic_partitions_response_partition_t *p0, *p1;
    CK_INT(m->throttle_time_ms, 0);
    CK_INT(m->topics_cnt, 1);
    CK_INT(m->topics[0].error_code, 0);
    CK_STR(m->topics[0].name, "t");
    CK_INT(m->topics[0].topic_id.b[0], 0x90);
    CK_INT(m->topics[0].topic_id.b[15], 0x9f);
    ck_assert(!m->topics[0].is_internal);
    CK_INT(m->topics[0].partitions_cnt, 2);
    p0 = &m->topics[0].partitions[0];
    p1 = &m->topics[0].partitions[1];
    CK_INT(p0->leader_id, 1);
    CK_INT(p0->leader_epoch, 3);
    CK_INT(p0->replica_nodes_cnt, 2);
    CK_INT(p0->replica_nodes[1], 2);
    CK_INT(p0->isr_nodes_cnt, 1);
    CK_INT(p0->eligible_leader_replicas_cnt, -1);
    CK_INT(p0->last_known_elr_cnt, -1);
    CK_INT(p0->offline_replicas_cnt, 0);
    CK_INT(p1->partition_index, 1);
    CK_INT(p1->leader_id, 2);
    CK_INT(p1->isr_nodes[0], 2);
    CK_INT(p1->eligible_leader_replicas_cnt, 1);
    CK_INT(p1->eligible_leader_replicas[0], 1);
    CK_INT(p1->last_known_elr_cnt, 0);
    CK_INT(m->topics[0].topic_authorized_operations, INT32_MIN);
    ck_assert(!m->next_cursor_null);
    CK_STR(m->next_cursor.topic_name, "t");
    CK_INT(m->next_cursor.partition_index, 2);
}

static const uint8_t describe_topic_partitions_rs_v0_null[] = {
    0x00, 0x00, 0x00, 0x0a, /* ThrottleTimeMs: 10 */
    0x02,                   /* Topics: 1 element */
    0x00, 0x03,             /*   ErrorCode: 3 (UNKNOWN_TOPIC_OR_PART.) */
    0x02, 'x',              /*   Name: "x" */
    0x00, 0x00, 0x00, 0x00, /*   TopicId: zero UUID */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00, 0x00, 0x00, 0x00, /*  */
    0x00,                   /*   IsInternal: false */
    0x01,                   /*   Partitions: empty */
    0x80, 0x00, 0x00, 0x00, /*   TopicAuthorizedOperations: INT32_MIN */
    0x00,                   /*   tags: none */
    0xff,                   /* NextCursor: null (INT8 -1) */
    0x00,                   /* tags: none */
};
CHECK(describe_topic_partitions_rs_v0_null,
      gr_describe_topic_partitions_response_t)
{
    CK_INT(m->throttle_time_ms, 10);
    CK_INT(m->topics_cnt, 1);
    CK_INT(m->topics[0].error_code, 3);
    CK_STR(m->topics[0].name, "x");
    ck_assert(gr_uuid_is_zero(&m->topics[0].topic_id));
    CK_INT(m->topics[0].partitions_cnt, 0);
    ck_assert(m->next_cursor_null);
}

/* ---- the table ---- */

/* ---- ConsumerGroupHeartbeat (68, KIP-848): v1 adds SubscribedTopicRegex
 * to the request; flexible from v0 ---- */

#define TID_A                                                            \
    0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,    \
        0xcc, 0xdd, 0xee, 0xff, 0x01 /* a topic id */

static const uint8_t cg_heartbeat_rq_v0[] = {
    0x02, 'g',              /* GroupId: "g" */
    0x02, 'm',              /* MemberId: "m" */
    0x00, 0x00, 0x00, 0x05, /* MemberEpoch: 5 */
    0x00,                   /* InstanceId: null */
    0x02, 'r',              /* RackId: "r" */
    0xff, 0xff, 0xff, 0xff, /* RebalanceTimeoutMs: -1 */
    0x02,                   /* SubscribedTopicNames: 1 */
    0x02, 't',              /*   "t" */
    0x00,                   /* ServerAssignor: null */
    0x02,                   /* TopicPartitions: 1 */
    TID_A,                  /*   TopicId */
    0x03,                   /*   Partitions: 2 */
    0x00, 0x00, 0x00, 0x01, /*     1 */
    0x00, 0x00, 0x00, 0x02, /*     2 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(cg_heartbeat_rq_v0, gr_consumer_group_heartbeat_request_t)
{
    CK_STR(m->group_id, "g");
    CK_INT(m->member_epoch, 5);
    CK_NULL(m->instance_id);
    CK_STR(m->rack_id, "r");
    CK_INT(m->rebalance_timeout_ms, -1);
    CK_INT(m->subscribed_topic_names_cnt, 1);
    CK_NULL(m->subscribed_topic_regex); /* 1+: default */
    CK_NULL(m->server_assignor);
    CK_INT(m->topic_partitions_cnt, 1);
    CK_INT(m->topic_partitions[0].topic_id.b[0], 0x11);
    CK_INT(m->topic_partitions[0].partitions_cnt, 2);
    CK_INT(m->topic_partitions[0].partitions[1], 2);
}

static const uint8_t cg_heartbeat_rq_v1[] = {
    0x02, 'g',              /* GroupId: "g" */
    0x02, 'm',              /* MemberId: "m" */
    0x00, 0x00, 0x00, 0x00, /* MemberEpoch: 0 */
    0x03, 'i',  '1',        /* InstanceId: "i1" */
    0x00,                   /* RackId: null */
    0x00, 0x00, 0x75, 0x30, /* RebalanceTimeoutMs: 30000 */
    0x00,                   /* SubscribedTopicNames: null */
    0x04, 'a',  '.',  '*',  /* SubscribedTopicRegex: "a.*" */
    0x06, 'r',  'a',  'n',  /* ServerAssignor: "range" */
    'g',  'e',              /*  */
    0x01,                   /* TopicPartitions: empty */
    0x00,                   /* tags: none */
};
CHECK(cg_heartbeat_rq_v1, gr_consumer_group_heartbeat_request_t)
{
    CK_INT(m->member_epoch, 0);
    CK_STR(m->instance_id, "i1");
    CK_NULL(m->rack_id);
    CK_INT(m->rebalance_timeout_ms, 30000);
    CK_INT(m->subscribed_topic_names_cnt, -1);
    CK_STR(m->subscribed_topic_regex, "a.*");
    CK_STR(m->server_assignor, "range");
    CK_INT(m->topic_partitions_cnt, 0);
}

static const uint8_t cg_heartbeat_rs_v0[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x00,             /* ErrorCode: 0 */
    0x00,                   /* ErrorMessage: null */
    0x02, 'm',              /* MemberId: "m" */
    0x00, 0x00, 0x00, 0x03, /* MemberEpoch: 3 */
    0x00, 0x00, 0x13, 0x88, /* HeartbeatIntervalMs: 5000 */
    0x01,                   /* Assignment: present */
    0x02,                   /*   TopicPartitions: 1 */
    TID_A,                  /*     TopicId */
    0x02,                   /*     Partitions: 1 */
    0x00, 0x00, 0x00, 0x00, /*       0 */
    0x00,                   /*     tags: none */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(cg_heartbeat_rs_v0, gr_consumer_group_heartbeat_response_t)
{
    CK_INT(m->error_code, 0);
    CK_NULL(m->error_message);
    CK_STR(m->member_id, "m");
    CK_INT(m->member_epoch, 3);
    CK_INT(m->heartbeat_interval_ms, 5000);
    ck_assert(!m->assignment_null);
    CK_INT(m->assignment.topic_partitions_cnt, 1);
    CK_INT(m->assignment.topic_partitions[0].partitions[0], 0);
}

static const uint8_t cg_heartbeat_rs_v1[] = {
    0x00, 0x00, 0x00, 0x00, /* ThrottleTimeMs: 0 */
    0x00, 0x6e,             /* ErrorCode: 110 (FENCED_MEMBER_EPOCH) */
    0x02, 'x',              /* ErrorMessage: "x" */
    0x00,                   /* MemberId: null */
    0x00, 0x00, 0x00, 0x00, /* MemberEpoch: 0 */
    0x00, 0x00, 0x00, 0x00, /* HeartbeatIntervalMs: 0 */
    0xff,                   /* Assignment: null */
    0x00,                   /* tags: none */
};
CHECK(cg_heartbeat_rs_v1, gr_consumer_group_heartbeat_response_t)
{
    CK_INT(m->error_code, 110);
    CK_STR(m->error_message, "x");
    CK_NULL(m->member_id);
    ck_assert(m->assignment_null);
}

/* ---- ConsumerGroupDescribe (69, KIP-848): v1 adds MemberType (KIP-1099)
 * to the response; the request is the same in both ---- */

static const uint8_t cg_describe_rq_v0[] = {
    0x02,      /* GroupIds: 1 */
    0x02, 'g', /*   "g" */
    0x01,      /* IncludeAuthorizedOperations: true */
    0x00,      /* tags: none */
};
CHECK(cg_describe_rq_v0, gr_consumer_group_describe_request_t)
{
    CK_INT(m->group_ids_cnt, 1);
    CK_STR(m->group_ids[0], "g");
    CK_INT(m->include_authorized_operations, 1);
}

#define CG_DESCRIBED_MEMBER_HEAD                                              \
    0x02, 'm',                   /* MemberId: "m" */                          \
        0x00,                    /* InstanceId: null */                       \
        0x00,                    /* RackId: null */                           \
        0x00, 0x00, 0x00, 0x02,  /* MemberEpoch: 2 */                         \
        0x02, 'c',               /* ClientId: "c" */                          \
        0x03, '/', 'h',          /* ClientHost: "/h" */                       \
        0x02, 0x02, 't',         /* SubscribedTopicNames: ["t"] */            \
        0x01,                    /* SubscribedTopicRegex: "" */               \
        0x02,                    /* Assignment.TopicPartitions: 1 */          \
        TID_A,                   /*   TopicId */                              \
        0x02, 't',               /*   TopicName: "t" */                       \
        0x02, 0x00, 0x00, 0x00, 0x00, /* Partitions: [0] */                   \
        0x00,                    /*   tags: none */                           \
        0x00,                    /* Assignment tags: none */                  \
        0x01,                    /* TargetAssignment.TopicPartitions: empty */ \
        0x00                     /* TargetAssignment tags: none */

#define CG_DESCRIBED_GROUP_HEAD                                               \
    0x00, 0x00, 0x00, 0x00,      /* ThrottleTimeMs: 0 */                      \
        0x02,                    /* Groups: 1 */                              \
        0x00, 0x00,              /*   ErrorCode: 0 */                         \
        0x00,                    /*   ErrorMessage: null */                   \
        0x02, 'g',               /*   GroupId: "g" */                         \
        0x07, 'S', 't', 'a', 'b', 'l', 'e', /* GroupState: "Stable" */        \
        0x00, 0x00, 0x00, 0x02,  /*   GroupEpoch: 2 */                        \
        0x00, 0x00, 0x00, 0x02,  /*   AssignmentEpoch: 2 */                   \
        0x08, 'u', 'n', 'i', 'f', 'o', 'r', 'm', /* AssignorName */           \
        0x02                     /*   Members: 1 */

static const uint8_t cg_describe_rs_v0[] = {
    CG_DESCRIBED_GROUP_HEAD,
    CG_DESCRIBED_MEMBER_HEAD,
    0x00,                   /* member tags: none */
    0x80, 0x00, 0x00, 0x00, /* AuthorizedOperations: INT32_MIN */
    0x00,                   /* group tags: none */
    0x00,                   /* tags: none */
};
CHECK(cg_describe_rs_v0, gr_consumer_group_describe_response_t)
{
    CK_INT(m->groups_cnt, 1);
    CK_STR(m->groups[0].group_state, "Stable");
    CK_STR(m->groups[0].assignor_name, "uniform");
    CK_INT(m->groups[0].members_cnt, 1);
    CK_STR(m->groups[0].members[0].client_host, "/h");
    CK_STR(m->groups[0].members[0].subscribed_topic_regex, "");
    CK_INT(m->groups[0].members[0].assignment.topic_partitions_cnt, 1);
    CK_INT(m->groups[0].members[0].target_assignment.topic_partitions_cnt, 0);
    CK_INT(m->groups[0].members[0].member_type, -1); /* 1+: default */
    CK_INT(m->groups[0].authorized_operations, INT32_MIN);
}

static const uint8_t cg_describe_rs_v1[] = {
    CG_DESCRIBED_GROUP_HEAD,
    CG_DESCRIBED_MEMBER_HEAD,
    0x01,                   /* MemberType: 1 (consumer) */
    0x00,                   /* member tags: none */
    0x00, 0x00, 0x0d, 0x48, /* AuthorizedOperations: 3400 */
    0x00,                   /* group tags: none */
    0x00,                   /* tags: none */
};
CHECK(cg_describe_rs_v1, gr_consumer_group_describe_response_t)
{
    CK_INT(m->groups[0].members[0].member_type, 1);
    CK_INT(m->groups[0].authorized_operations, 3400);
}

/* ---- KIP-848 records of __consumer_offsets (data types): the keys (one
 * version each, the record type) and values (v0, flexible) ---- */

static const uint8_t cg_metadata_key_v3[] = {
    0x00, 0x01, 'g', /* GroupId: STRING "g" */
};
CHECK(cg_metadata_key_v3, gr_consumer_group_metadata_key_t)
{
    CK_STR(m->group_id, "g");
}

static const uint8_t cg_partition_metadata_key_v4[] = {
    0x00, 0x01, 'g', /* GroupId: STRING "g" */
};
CHECK(cg_partition_metadata_key_v4, gr_consumer_group_partition_metadata_key_t)
{
    CK_STR(m->group_id, "g");
}

static const uint8_t cg_member_metadata_key_v5[] = {
    0x00, 0x01, 'g', /* GroupId: STRING "g" */
    0x00, 0x01, 'm', /* MemberId: STRING "m" */
};
CHECK(cg_member_metadata_key_v5, gr_consumer_group_member_metadata_key_t)
{
    CK_STR(m->group_id, "g");
    CK_STR(m->member_id, "m");
}

static const uint8_t cg_target_metadata_key_v6[] = {
    0x00, 0x01, 'g', /* GroupId: STRING "g" */
};
CHECK(cg_target_metadata_key_v6,
      gr_consumer_group_target_assignment_metadata_key_t)
{
    CK_STR(m->group_id, "g");
}

static const uint8_t cg_target_member_key_v7[] = {
    0x00, 0x01, 'g', /* GroupId: STRING "g" */
    0x00, 0x01, 'm', /* MemberId: STRING "m" */
};
CHECK(cg_target_member_key_v7, gr_consumer_group_target_assignment_member_key_t)
{
    CK_STR(m->member_id, "m");
}

static const uint8_t cg_current_key_v8[] = {
    0x00, 0x01, 'g', /* GroupId: STRING "g" */
    0x00, 0x01, 'm', /* MemberId: STRING "m" */
};
CHECK(cg_current_key_v8, gr_consumer_group_current_member_assignment_key_t)
{
    CK_STR(m->member_id, "m");
}

static const uint8_t cg_regex_key_v16[] = {
    0x00, 0x01, 'g',           /* GroupId: STRING "g" */
    0x00, 0x03, 'a', '.', '*', /* RegularExpression: STRING "a.*" */
};
CHECK(cg_regex_key_v16, gr_consumer_group_regular_expression_key_t)
{
    CK_STR(m->regular_expression, "a.*");
}

static const uint8_t cg_metadata_value_v0[] = {
    0x00, 0x00, 0x00, 0x07, /* Epoch: 7 */
    0x01,                   /* tags: 1 field */
    0x00, 0x08,             /*   tag 0 (MetadataHash), 8 bytes */
    0x01, 0x02, 0x03, 0x04, /*     INT64 0x0102030405060708 */
    0x05, 0x06, 0x07, 0x08, /*  */
};
CHECK(cg_metadata_value_v0, gr_consumer_group_metadata_value_t)
{
    CK_INT(m->epoch, 7);
    ck_assert(m->metadata_hash == 0x0102030405060708LL);
}

static const uint8_t cg_member_metadata_value_v0[] = {
    0x00,                   /* InstanceId: null */
    0x03, 'r',  '1',        /* RackId: "r1" */
    0x02, 'c',              /* ClientId: "c" */
    0x03, '/',  'h',        /* ClientHost: "/h" */
    0x03,                   /* SubscribedTopicNames: 2 */
    0x02, 'a',              /*   "a" */
    0x02, 'b',              /*   "b" */
    0x01,                   /* SubscribedTopicRegex: "" */
    0x00, 0x04, 0x93, 0xe0, /* RebalanceTimeoutMs: 300000 */
    0x00,                   /* ServerAssignor: null */
    0x00,                   /* tags: none (ClassicMemberMetadata absent) */
};
CHECK(cg_member_metadata_value_v0, gr_consumer_group_member_metadata_value_t)
{
    CK_NULL(m->instance_id);
    CK_STR(m->rack_id, "r1");
    CK_INT(m->subscribed_topic_names_cnt, 2);
    CK_STR(m->subscribed_topic_names[1], "b");
    CK_STR(m->subscribed_topic_regex, "");
    CK_INT(m->rebalance_timeout_ms, 300000);
    CK_NULL(m->server_assignor);
}

static const uint8_t cg_target_metadata_value_v0[] = {
    0x00, 0x00, 0x00, 0x04, /* AssignmentEpoch: 4 */
    0x01,                   /* tags: 1 field */
    0x00, 0x08,             /*   tag 0 (AssignmentTimestamp), 8 bytes */
    0x00, 0x00, 0x01, 0x90, /*     INT64 1720000000000 */
    0x77, 0xfd, 0x30, 0x00, /*  */
};
CHECK(cg_target_metadata_value_v0,
      gr_consumer_group_target_assignment_metadata_value_t)
{
    CK_INT(m->assignment_epoch, 4);
    ck_assert(m->assignment_timestamp == 1720000000000LL);
}

static const uint8_t cg_target_member_value_v0[] = {
    0x02,                   /* TopicPartitions: 1 */
    TID_A,                  /*   TopicId */
    0x03,                   /*   Partitions: 2 */
    0x00, 0x00, 0x00, 0x00, /*     0 */
    0x00, 0x00, 0x00, 0x03, /*     3 */
    0x00,                   /*   tags: none */
    0x00,                   /* tags: none */
};
CHECK(cg_target_member_value_v0,
      gr_consumer_group_target_assignment_member_value_t)
{
    CK_INT(m->topic_partitions_cnt, 1);
    CK_INT(m->topic_partitions[0].partitions[1], 3);
}

static const uint8_t cg_current_value_v0[] = {
    0x00, 0x00, 0x00, 0x05, /* MemberEpoch: 5 */
    0x00, 0x00, 0x00, 0x04, /* PreviousMemberEpoch: 4 */
    0x01,                   /* State: 1 (UNREVOKED_PARTITIONS) */
    0x02,                   /* AssignedPartitions: 1 */
    TID_A,                  /*   TopicId */
    0x02,                   /*   Partitions: 1 */
    0x00, 0x00, 0x00, 0x01, /*     1 */
    0x01,                   /*   tags: 1 field */
    0x00, 0x05,             /*     tag 0 (AssignmentEpochs), 5 bytes */
    0x02,                   /*       1 */
    0x00, 0x00, 0x00, 0x03, /*       3 */
    0x02,                   /* PartitionsPendingRevocation: 1 */
    TID_A,                  /*   TopicId */
    0x02,                   /*   Partitions: 1 */
    0x00, 0x00, 0x00, 0x02, /*     2 */
    0x00,                   /*   tags: none (no epochs: a record before 4.4) */
    0x00,                   /* tags: none */
};
CHECK(cg_current_value_v0, gr_consumer_group_current_member_assignment_value_t)
{
    CK_INT(m->member_epoch, 5);
    CK_INT(m->previous_member_epoch, 4);
    CK_INT(m->state, 1);
    CK_INT(m->assigned_partitions_cnt, 1);
    CK_INT(m->assigned_partitions[0].assignment_epochs_cnt, 1);
    CK_INT(m->assigned_partitions[0].assignment_epochs[0], 3);
    CK_INT(m->partitions_pending_revocation[0].partitions[0], 2);
    CK_INT(m->partitions_pending_revocation[0].assignment_epochs_cnt, 0);
}

static const uint8_t cg_regex_value_v0[] = {
    0x03,                   /* Topics: 2 */
    0x03, 'a',  '1',        /*   "a1" */
    0x03, 'a',  '2',        /*   "a2" */
    0x00, 0x00, 0x00, 0x00, /* Version: 9 */
    0x00, 0x00, 0x00, 0x09, /*  */
    0x00, 0x00, 0x00, 0x00, /* Timestamp: 10 */
    0x00, 0x00, 0x00, 0x0a, /*  */
    0x00,                   /* tags: none */
};
CHECK(cg_regex_value_v0, gr_consumer_group_regular_expression_value_t)
{
    CK_INT(m->topics_cnt, 2);
    CK_STR(m->topics[1], "a2");
    ck_assert(m->version == 9 && m->timestamp == 10);
}

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
    V_RQ(API_VERSIONS, 5, api_versions_rq_v5),
    V_RQ(API_VERSIONS, 5, api_versions_rq_v5_null),
    V_RS(DELETE_GROUPS, 3, delete_groups_rs_v3),
    V_RQ(DESCRIBE_CLUSTER, 2, describe_cluster_rq_v2),
    V_RS(DESCRIBE_CLUSTER, 2, describe_cluster_rs_v2),
    V_RS(DESCRIBE_GROUPS, 6, describe_groups_rs_v6),
    V_RS(DESCRIBE_LOG_DIRS, 5, describe_log_dirs_rs_v5),
    V_RQ(FETCH, 18, fetch_rq_v18),
    V_RQ(LIST_TRANSACTIONS, 2, list_transactions_rq_v2),
    V_RS(METADATA, 13, metadata_rs_v13),
    V_RQ(OFFSET_COMMIT, 10, offset_commit_rq_v10),
    V_RS(OFFSET_COMMIT, 10, offset_commit_rs_v10),
    V_RQ(OFFSET_FETCH, 10, offset_fetch_rq_v10),
    V_RS(OFFSET_FETCH, 10, offset_fetch_rs_v10),
    V_RQ(PRODUCE, 13, produce_rq_v13),
    V_RS(PRODUCE, 13, produce_rs_v13),
    V_RQ(TXN_OFFSET_COMMIT, 5, txn_offset_commit_rq_v5),
    V_RQ(INIT_PRODUCER_ID, 6, init_producer_id_rq_v6),
    V_RS(INIT_PRODUCER_ID, 6, init_producer_id_rs_v6),
    V_RQ(TXN_OFFSET_COMMIT, 6, txn_offset_commit_rq_v6),
    V_RS(TXN_OFFSET_COMMIT, 5, txn_offset_commit_rs_v5),
    V_RS(TXN_OFFSET_COMMIT, 6, txn_offset_commit_rs_v6),
    V_RQ(WRITE_TXN_MARKERS, 2, write_txn_markers_rq_v2),
    V_RQ(GET_TELEMETRY_SUBSCRIPTIONS, 0, get_telemetry_subscriptions_rq_v0),
    V_RS(GET_TELEMETRY_SUBSCRIPTIONS, 0, get_telemetry_subscriptions_rs_v0),
    V_RQ(PUSH_TELEMETRY, 0, push_telemetry_rq_v0),
    V_RS(PUSH_TELEMETRY, 0, push_telemetry_rs_v0),
    V_RQ(LIST_CONFIG_RESOURCES, 0, list_config_resources_rq_v0),
    V_RQ(LIST_CONFIG_RESOURCES, 1, list_config_resources_rq_v1),
    V_RS(LIST_CONFIG_RESOURCES, 0, list_config_resources_rs_v0),
    V_RS(LIST_CONFIG_RESOURCES, 1, list_config_resources_rs_v1),
    V_RQ(DESCRIBE_TOPIC_PARTITIONS, 0, describe_topic_partitions_rq_v0),
    V_RQ(DESCRIBE_TOPIC_PARTITIONS, 0, describe_topic_partitions_rq_v0_null),
    V_RS(DESCRIBE_TOPIC_PARTITIONS, 0, describe_topic_partitions_rs_v0),
    V_RS(DESCRIBE_TOPIC_PARTITIONS, 0, describe_topic_partitions_rs_v0_null),
    V_RQ(CONSUMER_GROUP_HEARTBEAT, 0, cg_heartbeat_rq_v0),
    V_RQ(CONSUMER_GROUP_HEARTBEAT, 1, cg_heartbeat_rq_v1),
    V_RS(CONSUMER_GROUP_HEARTBEAT, 0, cg_heartbeat_rs_v0),
    V_RS(CONSUMER_GROUP_HEARTBEAT, 1, cg_heartbeat_rs_v1),
    V_RQ(CONSUMER_GROUP_DESCRIBE, 0, cg_describe_rq_v0),
    V_RS(CONSUMER_GROUP_DESCRIBE, 0, cg_describe_rs_v0),
    V_RS(CONSUMER_GROUP_DESCRIBE, 1, cg_describe_rs_v1),
    V_DT(consumer_group_metadata_key, 3, cg_metadata_key_v3),
    V_DT(consumer_group_partition_metadata_key, 4, cg_partition_metadata_key_v4),
    V_DT(consumer_group_member_metadata_key, 5, cg_member_metadata_key_v5),
    V_DT(consumer_group_target_assignment_metadata_key, 6,
         cg_target_metadata_key_v6),
    V_DT(consumer_group_target_assignment_member_key, 7, cg_target_member_key_v7),
    V_DT(consumer_group_current_member_assignment_key, 8, cg_current_key_v8),
    V_DT(consumer_group_regular_expression_key, 16, cg_regex_key_v16),
    V_DT(consumer_group_metadata_value, 0, cg_metadata_value_v0),
    V_DT(consumer_group_member_metadata_value, 0, cg_member_metadata_value_v0),
    V_DT(consumer_group_target_assignment_metadata_value, 0,
         cg_target_metadata_value_v0),
    V_DT(consumer_group_target_assignment_member_value, 0,
         cg_target_member_value_v0),
    V_DT(consumer_group_current_member_assignment_value, 0, cg_current_value_v0),
    V_DT(consumer_group_regular_expression_value, 0, cg_regex_value_v0),
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

/* Whether this file has a vector of (key or data type, direction), at
 * version ver or at any version when ver is -1; check_vectors2.c's
 * test_every_schema_has_vectors asks it. */
int
vectors3_has_vector(int key, const char *data, int response, int ver)
{
    for (int i = 0; i < NVECS; i++) {
        const vec_t *v = &vecs[i];
        if (v->key != key || v->response != response)
            continue;
        if (data != NULL && (v->data == NULL || strcmp(v->data, data) != 0))
            continue;
        if (ver < 0 || v->ver == ver)
            return 1;
    }
    return 0;
}

Suite *
suite_proto_vectors3(void)
{
    Suite *s = suite_create("proto/vectors3");
    TCase *tc = tcase_create("vectors3");
    tcase_add_loop_test(tc, test_vector, 0, NVECS);
    suite_add_tcase(s, tc);
    return s;
}
