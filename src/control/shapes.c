/*
 * Where each API keeps its topics, partitions, groups and errors, as a
 * table of offsets into the generated structs, so one walker matches a
 * request against a filter, builds the API's error answer and reads the
 * first error of an answer. The error answers follow Kafka's
 * AbstractRequest.getErrorResponse of each request (kafka-clients
 * org.apache.kafka.common.requests.*Request): the request's topics and
 * partitions (or groups, resources, transactional ids) echoed with the
 * error, where the API has per-element errors; the top-level error
 * otherwise. Two choices differ from it, for tests: Fetch errors go per
 * partition (Kafka's error answer puts them at the top too, where clients
 * treat them as the whole request failing, not as that partition's
 * leader moving), except the fetch session errors, which are top-level
 * by nature; and Metadata keeps its brokers (the handler runs and the
 * topics get the error: Kafka's error answer has no brokers, which
 * clients ignore as an empty answer).
 *
 * Versions: one row per (API, version range) where the shape changes;
 * setting a field a version lacks is harmless (the encoder leaves it
 * out), so most APIs need one row. An API without a row has no place for
 * an error (WriteTxnMarkers aside, every served API has one).
 */
#include "control/control_int.h"

#include "cluster/cluster.h"
#include "proto/gen/proto_table.h"

#include <stddef.h>
#include <string.h>

/* offsets are stored plus one: 0 is "absent" */
#define OFF(T, f) ((uint16_t)(offsetof(T, f) + 1))
#define AT(p, o)  ((void *)((char *)(p) + (o)-1))
#define CAT(p, o) ((const void *)((const char *)(p) + (o)-1))
/* generated _init functions take their own struct type */
#define INIT(fn) ((void (*)(void *))(void (*)(void))(fn))

enum { R_OTHER, R_TOPIC, R_PART, R_GROUP };

/* An array of elements inside its parent (the message or an element of
 * the level above). Scalar elements (int32 partitions, string names) have
 * no init and their value at offset 1 (index or name). */
typedef struct lvl {
    uint16_t arr, cnt, size;
    void (*init)(void *);
    uint8_t role;
    uint16_t name, id, index, err, msg, copy;
    uint8_t copy_size;
} lvl_t;

typedef struct shape {
    int16_t key, vmin, vmax;
    uint8_t nrq, nrs;
    lvl_t rq[3], rs[3];
    uint16_t top_err, top_msg, throttle;
    uint16_t group;    /* a gr_str_t group id in the request */
    uint16_t key_type; /* FindCoordinator: names are groups when 0 */
} shape_t;

#define LVL(P, f, E, r) \
    .arr = OFF(P, f), .cnt = OFF(P, f##_cnt), .size = sizeof(E), .role = (r)
#define SLVL(P, f, E, r, fn) LVL(P, f, E, r), .init = INIT(fn)

/* shorter names for the generated types below */
#define RQ(api, s)  gr_##api##_request_##s##_t
#define RS(api, s)  gr_##api##_response_##s##_t
#define RQT(api)    gr_##api##_request_t
#define RST(api)    gr_##api##_response_t
#define RSI(api, s) gr_##api##_response_##s##_init

/* AlterClientQuotas: an entry's entity pointer and count, in the request
 * as in the response (the same layout, checked below) */
#define ENTITY_COPY                                                         \
    (offsetof(RQ(alter_client_quotas, entry_data), entity_cnt) +           \
     sizeof(int32_t) - offsetof(RQ(alter_client_quotas, entry_data), entity))
_Static_assert(offsetof(RQ(alter_client_quotas, entry_data), entity_cnt) -
                       offsetof(RQ(alter_client_quotas, entry_data), entity) ==
                   offsetof(RS(alter_client_quotas, entry_data), entity_cnt) -
                       offsetof(RS(alter_client_quotas, entry_data), entity),
               "AlterClientQuotas entity fields");
_Static_assert(sizeof(RQ(alter_client_quotas, entity_data)) ==
                   sizeof(RS(alter_client_quotas, entity_data)),
               "AlterClientQuotas entity data");

/* A request with a group id and only a top-level error. */
#define GROUP_TOP(KEY, api)                          \
    {                                                \
        .key = KEY, .vmin = 0, .vmax = 99,           \
        .top_err = OFF(RST(api), error_code),        \
        .throttle = OFF(RST(api), throttle_time_ms), \
        .group = OFF(RQT(api), group_id)             \
    }
/* Only a top-level error. */
#define TOP(KEY, api)                               \
    {                                               \
        .key = KEY, .vmin = 0, .vmax = 99,          \
        .top_err = OFF(RST(api), error_code),       \
        .throttle = OFF(RST(api), throttle_time_ms) \
    }

static const shape_t shapes[] = {
    { .key = GR_API_PRODUCE,
      .vmin = 0,
      .vmax = 99,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(produce), topic_data, RQ(produce, topic_produce_data),
                    R_TOPIC),
                .name = OFF(RQ(produce, topic_produce_data), name),
                .id = OFF(RQ(produce, topic_produce_data), topic_id) },
              { LVL(RQ(produce, topic_produce_data), partition_data,
                    RQ(produce, partition_produce_data), R_PART),
                .index = OFF(RQ(produce, partition_produce_data), index) } },
      .rs = { { SLVL(RST(produce), responses,
                     RS(produce, topic_produce_response), R_TOPIC,
                     RSI(produce, topic_produce_response)),
                .name = OFF(RS(produce, topic_produce_response), name),
                .id = OFF(RS(produce, topic_produce_response), topic_id) },
              { SLVL(RS(produce, topic_produce_response), partition_responses,
                     RS(produce, partition_produce_response), R_PART,
                     RSI(produce, partition_produce_response)),
                .index = OFF(RS(produce, partition_produce_response), index),
                .err = OFF(RS(produce, partition_produce_response), error_code),
                .msg = OFF(RS(produce, partition_produce_response),
                           error_message) } },
      .throttle = OFF(RST(produce), throttle_time_ms) },

    { .key = GR_API_FETCH,
      .vmin = 0,
      .vmax = 99,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(fetch), topics, RQ(fetch, fetch_topic), R_TOPIC),
                .name = OFF(RQ(fetch, fetch_topic), topic),
                .id = OFF(RQ(fetch, fetch_topic), topic_id) },
              { LVL(RQ(fetch, fetch_topic), partitions,
                    RQ(fetch, fetch_partition), R_PART),
                .index = OFF(RQ(fetch, fetch_partition), partition) } },
      .rs = { { SLVL(RST(fetch), responses, RS(fetch, fetchable_topic_response),
                     R_TOPIC, RSI(fetch, fetchable_topic_response)),
                .name = OFF(RS(fetch, fetchable_topic_response), topic),
                .id = OFF(RS(fetch, fetchable_topic_response), topic_id) },
              { SLVL(RS(fetch, fetchable_topic_response), partitions,
                     RS(fetch, partition_data), R_PART,
                     RSI(fetch, partition_data)),
                .index = OFF(RS(fetch, partition_data), partition_index),
                .err = OFF(RS(fetch, partition_data), error_code) } },
      .top_err = OFF(RST(fetch), error_code),
      .throttle = OFF(RST(fetch), throttle_time_ms) },

    { .key = GR_API_LIST_OFFSETS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(list_offsets), topics,
                    RQ(list_offsets, list_offsets_topic), R_TOPIC),
                .name = OFF(RQ(list_offsets, list_offsets_topic), name) },
              { LVL(RQ(list_offsets, list_offsets_topic), partitions,
                    RQ(list_offsets, list_offsets_partition), R_PART),
                .index = OFF(RQ(list_offsets, list_offsets_partition),
                             partition_index) } },
      .rs = { { SLVL(RST(list_offsets), topics,
                     RS(list_offsets, list_offsets_topic_response), R_TOPIC,
                     RSI(list_offsets, list_offsets_topic_response)),
                .name =
                    OFF(RS(list_offsets, list_offsets_topic_response), name) },
              { SLVL(RS(list_offsets, list_offsets_topic_response), partitions,
                     RS(list_offsets, list_offsets_partition_response), R_PART,
                     RSI(list_offsets, list_offsets_partition_response)),
                .index = OFF(RS(list_offsets, list_offsets_partition_response),
                             partition_index),
                .err = OFF(RS(list_offsets, list_offsets_partition_response),
                           error_code) } },
      .throttle = OFF(RST(list_offsets), throttle_time_ms) },

    /* Metadata: the handler answers, gr_shape_metadata_error() sets the
     * errors; the row serves matching and reading */
    { .key = GR_API_METADATA,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 2,
      .rq = { { LVL(RQT(metadata), topics, RQ(metadata, topic), R_TOPIC),
                .name = OFF(RQ(metadata, topic), name),
                .id = OFF(RQ(metadata, topic), topic_id) } },
      .rs = { { SLVL(RST(metadata), topics, RS(metadata, topic), R_TOPIC,
                     RSI(metadata, topic)),
                .name = OFF(RS(metadata, topic), name),
                .id = OFF(RS(metadata, topic), topic_id),
                .err = OFF(RS(metadata, topic), error_code) },
              { SLVL(RS(metadata, topic), partitions, RS(metadata, partition),
                     R_PART, RSI(metadata, partition)),
                .index = OFF(RS(metadata, partition), partition_index),
                .err = OFF(RS(metadata, partition), error_code) } },
      .throttle = OFF(RST(metadata), throttle_time_ms) },

    { .key = GR_API_OFFSET_COMMIT,
      .vmin = 0,
      .vmax = 99,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(offset_commit), topics, RQ(offset_commit, topic),
                    R_TOPIC),
                .name = OFF(RQ(offset_commit, topic), name),
                .id = OFF(RQ(offset_commit, topic), topic_id) },
              { LVL(RQ(offset_commit, topic), partitions,
                    RQ(offset_commit, partition), R_PART),
                .index = OFF(RQ(offset_commit, partition), partition_index) } },
      .rs = { { SLVL(RST(offset_commit), topics, RS(offset_commit, topic),
                     R_TOPIC, RSI(offset_commit, topic)),
                .name = OFF(RS(offset_commit, topic), name),
                .id = OFF(RS(offset_commit, topic), topic_id) },
              { SLVL(RS(offset_commit, topic), partitions,
                     RS(offset_commit, partition), R_PART,
                     RSI(offset_commit, partition)),
                .index = OFF(RS(offset_commit, partition), partition_index),
                .err = OFF(RS(offset_commit, partition), error_code) } },
      .throttle = OFF(RST(offset_commit), throttle_time_ms),
      .group = OFF(RQT(offset_commit), group_id) },

    /* OffsetFetch v0-1: per partition; v2-7: top-level; v8+: per group */
    { .key = GR_API_OFFSET_FETCH,
      .vmin = 0,
      .vmax = 1,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(offset_fetch), topics, RQ(offset_fetch, topic),
                    R_TOPIC),
                .name = OFF(RQ(offset_fetch, topic), name) },
              { LVL(RQ(offset_fetch, topic), partition_indexes, int32_t,
                    R_PART),
                .index = 1 } },
      .rs = { { SLVL(RST(offset_fetch), topics, RS(offset_fetch, topic),
                     R_TOPIC, RSI(offset_fetch, topic)),
                .name = OFF(RS(offset_fetch, topic), name) },
              { SLVL(RS(offset_fetch, topic), partitions,
                     RS(offset_fetch, partition), R_PART,
                     RSI(offset_fetch, partition)),
                .index = OFF(RS(offset_fetch, partition), partition_index),
                .err = OFF(RS(offset_fetch, partition), error_code) } },
      .throttle = OFF(RST(offset_fetch), throttle_time_ms),
      .group = OFF(RQT(offset_fetch), group_id) },
    { .key = GR_API_OFFSET_FETCH,
      .vmin = 2,
      .vmax = 7,
      .nrq = 2,
      .rq = { { LVL(RQT(offset_fetch), topics, RQ(offset_fetch, topic),
                    R_TOPIC),
                .name = OFF(RQ(offset_fetch, topic), name) },
              { LVL(RQ(offset_fetch, topic), partition_indexes, int32_t,
                    R_PART),
                .index = 1 } },
      .top_err = OFF(RST(offset_fetch), error_code),
      .throttle = OFF(RST(offset_fetch), throttle_time_ms),
      .group = OFF(RQT(offset_fetch), group_id) },
    { .key = GR_API_OFFSET_FETCH,
      .vmin = 8,
      .vmax = 99,
      .nrq = 3,
      .nrs = 1,
      .rq = { { LVL(RQT(offset_fetch), groups, RQ(offset_fetch, group),
                    R_GROUP),
                .name = OFF(RQ(offset_fetch, group), group_id) },
              { LVL(RQ(offset_fetch, group), topics, RQ(offset_fetch, topics),
                    R_TOPIC),
                .name = OFF(RQ(offset_fetch, topics), name),
                .id = OFF(RQ(offset_fetch, topics), topic_id) },
              { LVL(RQ(offset_fetch, topics), partition_indexes, int32_t,
                    R_PART),
                .index = 1 } },
      .rs = { { SLVL(RST(offset_fetch), groups, RS(offset_fetch, group),
                     R_GROUP, RSI(offset_fetch, group)),
                .name = OFF(RS(offset_fetch, group), group_id),
                .err = OFF(RS(offset_fetch, group), error_code) } },
      .throttle = OFF(RST(offset_fetch), throttle_time_ms) },

    /* FindCoordinator v0-3: one key; v4+: a batch of keys */
    { .key = GR_API_FIND_COORDINATOR,
      .vmin = 0,
      .vmax = 3,
      .top_err = OFF(RST(find_coordinator), error_code),
      .top_msg = OFF(RST(find_coordinator), error_message),
      .throttle = OFF(RST(find_coordinator), throttle_time_ms),
      .group = OFF(RQT(find_coordinator), key),
      .key_type = OFF(RQT(find_coordinator), key_type) },
    { .key = GR_API_FIND_COORDINATOR,
      .vmin = 4,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(find_coordinator), coordinator_keys, gr_str_t, R_GROUP),
                .name = 1 } },
      .rs = { { SLVL(RST(find_coordinator), coordinators,
                     RS(find_coordinator, coordinator), R_GROUP,
                     RSI(find_coordinator, coordinator)),
                .name = OFF(RS(find_coordinator, coordinator), key),
                .err = OFF(RS(find_coordinator, coordinator), error_code),
                .msg =
                    OFF(RS(find_coordinator, coordinator), error_message) } },
      .throttle = OFF(RST(find_coordinator), throttle_time_ms),
      .key_type = OFF(RQT(find_coordinator), key_type) },

    GROUP_TOP(GR_API_JOIN_GROUP, join_group),
    GROUP_TOP(GR_API_HEARTBEAT, heartbeat),
    GROUP_TOP(GR_API_LEAVE_GROUP, leave_group),
    GROUP_TOP(GR_API_SYNC_GROUP, sync_group),

    { .key = GR_API_DESCRIBE_GROUPS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(describe_groups), groups, gr_str_t, R_GROUP),
                .name = 1 } },
      .rs = { { SLVL(RST(describe_groups), groups,
                     RS(describe_groups, described_group), R_GROUP,
                     RSI(describe_groups, described_group)),
                .name = OFF(RS(describe_groups, described_group), group_id),
                .err = OFF(RS(describe_groups, described_group), error_code),
                .msg = OFF(RS(describe_groups, described_group),
                           error_message) } },
      .throttle = OFF(RST(describe_groups), throttle_time_ms) },

    TOP(GR_API_LIST_GROUPS, list_groups),
    TOP(GR_API_API_VERSIONS, api_versions),

    { .key = GR_API_CREATE_TOPICS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(create_topics), topics,
                    RQ(create_topics, creatable_topic), R_TOPIC),
                .name = OFF(RQ(create_topics, creatable_topic), name) } },
      .rs = { { SLVL(RST(create_topics), topics,
                     RS(create_topics, creatable_topic_result), R_TOPIC,
                     RSI(create_topics, creatable_topic_result)),
                .name = OFF(RS(create_topics, creatable_topic_result), name),
                .err =
                    OFF(RS(create_topics, creatable_topic_result), error_code),
                .msg = OFF(RS(create_topics, creatable_topic_result),
                           error_message) } },
      .throttle = OFF(RST(create_topics), throttle_time_ms) },

    /* DeleteTopics v0-5 name topics; v6 names or ids */
    { .key = GR_API_DELETE_TOPICS,
      .vmin = 0,
      .vmax = 5,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(delete_topics), topic_names, gr_str_t, R_TOPIC),
                .name = 1 } },
      .rs = { { SLVL(RST(delete_topics), responses,
                     RS(delete_topics, deletable_topic_result), R_TOPIC,
                     RSI(delete_topics, deletable_topic_result)),
                .name = OFF(RS(delete_topics, deletable_topic_result), name),
                .err =
                    OFF(RS(delete_topics, deletable_topic_result), error_code),
                .msg = OFF(RS(delete_topics, deletable_topic_result),
                           error_message) } },
      .throttle = OFF(RST(delete_topics), throttle_time_ms) },
    { .key = GR_API_DELETE_TOPICS,
      .vmin = 6,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(delete_topics), topics,
                    RQ(delete_topics, delete_topic_state), R_TOPIC),
                .name = OFF(RQ(delete_topics, delete_topic_state), name),
                .id = OFF(RQ(delete_topics, delete_topic_state), topic_id) } },
      .rs = { { SLVL(RST(delete_topics), responses,
                     RS(delete_topics, deletable_topic_result), R_TOPIC,
                     RSI(delete_topics, deletable_topic_result)),
                .name = OFF(RS(delete_topics, deletable_topic_result), name),
                .id = OFF(RS(delete_topics, deletable_topic_result), topic_id),
                .err =
                    OFF(RS(delete_topics, deletable_topic_result), error_code),
                .msg = OFF(RS(delete_topics, deletable_topic_result),
                           error_message) } },
      .throttle = OFF(RST(delete_topics), throttle_time_ms) },

    { .key = GR_API_OFFSET_FOR_LEADER_EPOCH,
      .vmin = 0,
      .vmax = 99,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(offset_for_leader_epoch), topics,
                    RQ(offset_for_leader_epoch, offset_for_leader_topic),
                    R_TOPIC),
                .name = OFF(RQ(offset_for_leader_epoch,
                               offset_for_leader_topic),
                            topic) },
              { LVL(RQ(offset_for_leader_epoch, offset_for_leader_topic),
                    partitions,
                    RQ(offset_for_leader_epoch, offset_for_leader_partition),
                    R_PART),
                .index = OFF(RQ(offset_for_leader_epoch,
                                offset_for_leader_partition),
                             partition) } },
      .rs = { { SLVL(RST(offset_for_leader_epoch), topics,
                     RS(offset_for_leader_epoch, offset_for_leader_topic_result),
                     R_TOPIC,
                     RSI(offset_for_leader_epoch,
                         offset_for_leader_topic_result)),
                .name = OFF(RS(offset_for_leader_epoch,
                               offset_for_leader_topic_result),
                            topic) },
              { SLVL(RS(offset_for_leader_epoch,
                        offset_for_leader_topic_result),
                     partitions,
                     RS(offset_for_leader_epoch, epoch_end_offset), R_PART,
                     RSI(offset_for_leader_epoch, epoch_end_offset)),
                .index = OFF(RS(offset_for_leader_epoch, epoch_end_offset),
                             partition),
                .err = OFF(RS(offset_for_leader_epoch, epoch_end_offset),
                           error_code) } },
      .throttle = OFF(RST(offset_for_leader_epoch), throttle_time_ms) },

    { .key = GR_API_DELETE_RECORDS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(delete_records), topics,
                    RQ(delete_records, delete_records_topic), R_TOPIC),
                .name = OFF(RQ(delete_records, delete_records_topic), name) },
              { LVL(RQ(delete_records, delete_records_topic), partitions,
                    RQ(delete_records, delete_records_partition), R_PART),
                .index = OFF(RQ(delete_records, delete_records_partition),
                             partition_index) } },
      .rs = { { SLVL(RST(delete_records), topics,
                     RS(delete_records, delete_records_topic_result), R_TOPIC,
                     RSI(delete_records, delete_records_topic_result)),
                .name = OFF(RS(delete_records, delete_records_topic_result),
                            name) },
              { SLVL(
                    RS(delete_records, delete_records_topic_result), partitions,
                    RS(delete_records, delete_records_partition_result), R_PART,
                    RSI(delete_records, delete_records_partition_result)),
                .index =
                    OFF(RS(delete_records, delete_records_partition_result),
                        partition_index),
                .err = OFF(RS(delete_records, delete_records_partition_result),
                           error_code) } },
      .throttle = OFF(RST(delete_records), throttle_time_ms) },

    TOP(GR_API_INIT_PRODUCER_ID, init_producer_id),

    /* AddPartitionsToTxn v0-3: per partition; v4+ (batched): top-level */
    { .key = GR_API_ADD_PARTITIONS_TO_TXN,
      .vmin = 0,
      .vmax = 3,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(add_partitions_to_txn), v3_and_below_topics,
                    RQ(add_partitions_to_txn, add_partitions_to_txn_topic),
                    R_TOPIC),
                .name = OFF(
                    RQ(add_partitions_to_txn, add_partitions_to_txn_topic),
                    name) },
              { LVL(RQ(add_partitions_to_txn, add_partitions_to_txn_topic),
                    partitions, int32_t, R_PART),
                .index = 1 } },
      .rs = { { SLVL(RST(add_partitions_to_txn), results_by_topic_v3_and_below,
                     RS(add_partitions_to_txn,
                        add_partitions_to_txn_topic_result),
                     R_TOPIC,
                     RSI(add_partitions_to_txn,
                         add_partitions_to_txn_topic_result)),
                .name = OFF(RS(add_partitions_to_txn,
                               add_partitions_to_txn_topic_result),
                            name) },
              { SLVL(RS(add_partitions_to_txn,
                        add_partitions_to_txn_topic_result),
                     results_by_partition,
                     RS(add_partitions_to_txn,
                        add_partitions_to_txn_partition_result),
                     R_PART,
                     RSI(add_partitions_to_txn,
                         add_partitions_to_txn_partition_result)),
                .index = OFF(RS(add_partitions_to_txn,
                                add_partitions_to_txn_partition_result),
                             partition_index),
                .err = OFF(RS(add_partitions_to_txn,
                              add_partitions_to_txn_partition_result),
                           partition_error_code) } },
      .throttle = OFF(RST(add_partitions_to_txn), throttle_time_ms) },
    { .key = GR_API_ADD_PARTITIONS_TO_TXN,
      .vmin = 4,
      .vmax = 99,
      .nrq = 3,
      .rq = { { LVL(
                  RQT(add_partitions_to_txn), transactions,
                  RQ(add_partitions_to_txn, add_partitions_to_txn_transaction),
                  R_OTHER) },
              { LVL(RQ(add_partitions_to_txn,
                       add_partitions_to_txn_transaction),
                    topics,
                    RQ(add_partitions_to_txn, add_partitions_to_txn_topic),
                    R_TOPIC),
                .name = OFF(RQ(add_partitions_to_txn,
                               add_partitions_to_txn_topic),
                            name) },
              { LVL(RQ(add_partitions_to_txn, add_partitions_to_txn_topic),
                    partitions, int32_t, R_PART),
                .index = 1 } },
      .top_err = OFF(RST(add_partitions_to_txn), error_code),
      .throttle = OFF(RST(add_partitions_to_txn), throttle_time_ms) },

    GROUP_TOP(GR_API_ADD_OFFSETS_TO_TXN, add_offsets_to_txn),
    TOP(GR_API_END_TXN, end_txn),

    { .key = GR_API_WRITE_TXN_MARKERS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 3,
      .nrs = 3,
      .rq = { { LVL(RQT(write_txn_markers), markers,
                    RQ(write_txn_markers, writable_txn_marker), R_OTHER),
                .copy = OFF(RQ(write_txn_markers, writable_txn_marker),
                            producer_id),
                .copy_size = sizeof(int64_t) },
              { LVL(RQ(write_txn_markers, writable_txn_marker), topics,
                    RQ(write_txn_markers, writable_txn_marker_topic), R_TOPIC),
                .name = OFF(RQ(write_txn_markers, writable_txn_marker_topic),
                            name) },
              { LVL(RQ(write_txn_markers, writable_txn_marker_topic),
                    partition_indexes, int32_t, R_PART),
                .index = 1 } },
      .rs = { { SLVL(RST(write_txn_markers), markers,
                     RS(write_txn_markers, writable_txn_marker_result), R_OTHER,
                     RSI(write_txn_markers, writable_txn_marker_result)),
                .copy = OFF(RS(write_txn_markers, writable_txn_marker_result),
                            producer_id),
                .copy_size = sizeof(int64_t) },
              { SLVL(RS(write_txn_markers, writable_txn_marker_result), topics,
                     RS(write_txn_markers, writable_txn_marker_topic_result),
                     R_TOPIC,
                     RSI(write_txn_markers, writable_txn_marker_topic_result)),
                .name = OFF(
                    RS(write_txn_markers, writable_txn_marker_topic_result),
                    name) },
              { SLVL(
                    RS(write_txn_markers, writable_txn_marker_topic_result),
                    partitions,
                    RS(write_txn_markers, writable_txn_marker_partition_result),
                    R_PART,
                    RSI(write_txn_markers,
                        writable_txn_marker_partition_result)),
                .index = OFF(RS(write_txn_markers,
                                writable_txn_marker_partition_result),
                             partition_index),
                .err = OFF(RS(write_txn_markers,
                              writable_txn_marker_partition_result),
                           error_code) } } },

    { .key = GR_API_TXN_OFFSET_COMMIT,
      .vmin = 0,
      .vmax = 99,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(txn_offset_commit), topics,
                    RQ(txn_offset_commit, topic), R_TOPIC),
                .name = OFF(RQ(txn_offset_commit, topic), name),
                .id = OFF(RQ(txn_offset_commit, topic), topic_id) },
              { LVL(RQ(txn_offset_commit, topic), partitions,
                    RQ(txn_offset_commit, partition), R_PART),
                .index =
                    OFF(RQ(txn_offset_commit, partition), partition_index) } },
      .rs = { { SLVL(RST(txn_offset_commit), topics,
                     RS(txn_offset_commit, topic), R_TOPIC,
                     RSI(txn_offset_commit, topic)),
                .name = OFF(RS(txn_offset_commit, topic), name),
                .id = OFF(RS(txn_offset_commit, topic), topic_id) },
              { SLVL(RS(txn_offset_commit, topic), partitions,
                     RS(txn_offset_commit, partition), R_PART,
                     RSI(txn_offset_commit, partition)),
                .index = OFF(RS(txn_offset_commit, partition), partition_index),
                .err = OFF(RS(txn_offset_commit, partition), error_code) } },
      .throttle = OFF(RST(txn_offset_commit), throttle_time_ms),
      .group = OFF(RQT(txn_offset_commit), group_id) },

    /* the config APIs: one result per resource, named and typed as asked */
    { .key = GR_API_DESCRIBE_CONFIGS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(describe_configs), resources,
                    RQ(describe_configs, describe_configs_resource), R_OTHER),
                .name = OFF(RQ(describe_configs, describe_configs_resource),
                            resource_name),
                .copy = OFF(RQ(describe_configs, describe_configs_resource),
                            resource_type),
                .copy_size = 1 } },
      .rs = { { SLVL(RST(describe_configs), results,
                     RS(describe_configs, describe_configs_result), R_OTHER,
                     RSI(describe_configs, describe_configs_result)),
                .name = OFF(RS(describe_configs, describe_configs_result),
                            resource_name),
                .copy = OFF(RS(describe_configs, describe_configs_result),
                            resource_type),
                .copy_size = 1,
                .err = OFF(RS(describe_configs, describe_configs_result),
                           error_code),
                .msg = OFF(RS(describe_configs, describe_configs_result),
                           error_message) } },
      .throttle = OFF(RST(describe_configs), throttle_time_ms) },
    { .key = GR_API_ALTER_CONFIGS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(alter_configs), resources,
                    RQ(alter_configs, alter_configs_resource), R_OTHER),
                .name = OFF(RQ(alter_configs, alter_configs_resource),
                            resource_name),
                .copy = OFF(RQ(alter_configs, alter_configs_resource),
                            resource_type),
                .copy_size = 1 } },
      .rs = { { SLVL(RST(alter_configs), responses,
                     RS(alter_configs, alter_configs_resource_response),
                     R_OTHER,
                     RSI(alter_configs, alter_configs_resource_response)),
                .name = OFF(RS(alter_configs, alter_configs_resource_response),
                            resource_name),
                .copy = OFF(RS(alter_configs, alter_configs_resource_response),
                            resource_type),
                .copy_size = 1,
                .err = OFF(RS(alter_configs, alter_configs_resource_response),
                           error_code),
                .msg = OFF(RS(alter_configs, alter_configs_resource_response),
                           error_message) } },
      .throttle = OFF(RST(alter_configs), throttle_time_ms) },
    /* KIP-546: a describe's top-level error and message; an alter's per
     * entry, its entity copied (the request's entity array and count,
     * laid out as the response's) */
    { .key = GR_API_DESCRIBE_CLIENT_QUOTAS,
      .vmin = 0,
      .vmax = 99,
      .top_err = OFF(RST(describe_client_quotas), error_code),
      .top_msg = OFF(RST(describe_client_quotas), error_message),
      .throttle = OFF(RST(describe_client_quotas), throttle_time_ms) },
    { .key = GR_API_ALTER_CLIENT_QUOTAS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(alter_client_quotas), entries,
                    RQ(alter_client_quotas, entry_data), R_OTHER),
                .copy = OFF(RQ(alter_client_quotas, entry_data), entity),
                .copy_size = ENTITY_COPY } },
      .rs = { { SLVL(RST(alter_client_quotas), entries,
                     RS(alter_client_quotas, entry_data), R_OTHER,
                     RSI(alter_client_quotas, entry_data)),
                .copy = OFF(RS(alter_client_quotas, entry_data), entity),
                .copy_size = ENTITY_COPY,
                .err = OFF(RS(alter_client_quotas, entry_data), error_code),
                .msg = OFF(RS(alter_client_quotas, entry_data),
                           error_message) } },
      .throttle = OFF(RST(alter_client_quotas), throttle_time_ms) },
    { .key = GR_API_INCREMENTAL_ALTER_CONFIGS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(incremental_alter_configs), resources,
                    RQ(incremental_alter_configs, alter_configs_resource),
                    R_OTHER),
                .name = OFF(RQ(incremental_alter_configs,
                               alter_configs_resource),
                            resource_name),
                .copy = OFF(RQ(incremental_alter_configs,
                               alter_configs_resource),
                            resource_type),
                .copy_size = 1 } },
      .rs = { { SLVL(RST(incremental_alter_configs), responses,
                     RS(incremental_alter_configs,
                        alter_configs_resource_response),
                     R_OTHER,
                     RSI(incremental_alter_configs,
                         alter_configs_resource_response)),
                .name = OFF(RS(incremental_alter_configs,
                               alter_configs_resource_response),
                            resource_name),
                .copy = OFF(RS(incremental_alter_configs,
                               alter_configs_resource_response),
                            resource_type),
                .copy_size = 1,
                .err = OFF(RS(incremental_alter_configs,
                              alter_configs_resource_response),
                           error_code),
                .msg = OFF(RS(incremental_alter_configs,
                              alter_configs_resource_response),
                           error_message) } },
      .throttle = OFF(RST(incremental_alter_configs), throttle_time_ms) },

    /* DescribeLogDirs: a top-level error from v3 (none before) */
    { .key = GR_API_DESCRIBE_LOG_DIRS,
      .vmin = 0,
      .vmax = 2,
      .nrq = 2,
      .rq = { { LVL(RQT(describe_log_dirs), topics,
                    RQ(describe_log_dirs, describable_log_dir_topic), R_TOPIC),
                .name = OFF(RQ(describe_log_dirs, describable_log_dir_topic),
                            topic) },
              { LVL(RQ(describe_log_dirs, describable_log_dir_topic),
                    partitions, int32_t, R_PART),
                .index = 1 } },
      .throttle = OFF(RST(describe_log_dirs), throttle_time_ms) },
    { .key = GR_API_DESCRIBE_LOG_DIRS,
      .vmin = 3,
      .vmax = 99,
      .nrq = 2,
      .rq = { { LVL(RQT(describe_log_dirs), topics,
                    RQ(describe_log_dirs, describable_log_dir_topic), R_TOPIC),
                .name = OFF(RQ(describe_log_dirs, describable_log_dir_topic),
                            topic) },
              { LVL(RQ(describe_log_dirs, describable_log_dir_topic),
                    partitions, int32_t, R_PART),
                .index = 1 } },
      .top_err = OFF(RST(describe_log_dirs), error_code),
      .throttle = OFF(RST(describe_log_dirs), throttle_time_ms) },

    /* the ACL APIs (src/api/create_acls.c ...): one error per creation,
     * per filter, or the request's */
    { .key = GR_API_DESCRIBE_ACLS,
      .vmin = 0,
      .vmax = 99,
      .top_err = OFF(RST(describe_acls), error_code),
      .top_msg = OFF(RST(describe_acls), error_message),
      .throttle = OFF(RST(describe_acls), throttle_time_ms) },
    { .key = GR_API_CREATE_ACLS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(create_acls), creations, RQ(create_acls, acl_creation),
                    R_OTHER) } },
      .rs = { { SLVL(RST(create_acls), results,
                     RS(create_acls, acl_creation_result), R_OTHER,
                     RSI(create_acls, acl_creation_result)),
                .err = OFF(RS(create_acls, acl_creation_result), error_code),
                .msg = OFF(RS(create_acls, acl_creation_result),
                           error_message) } },
      .throttle = OFF(RST(create_acls), throttle_time_ms) },
    { .key = GR_API_DELETE_ACLS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(delete_acls), filters, RQ(delete_acls, delete_acls_filter),
                    R_OTHER) } },
      .rs = { { SLVL(RST(delete_acls), filter_results,
                     RS(delete_acls, delete_acls_filter_result), R_OTHER,
                     RSI(delete_acls, delete_acls_filter_result)),
                .err = OFF(RS(delete_acls, delete_acls_filter_result),
                           error_code),
                .msg = OFF(RS(delete_acls, delete_acls_filter_result),
                           error_message) } },
      .throttle = OFF(RST(delete_acls), throttle_time_ms) },

    /* SASL: one error for the exchange (neither has a throttle field) */
    { .key = GR_API_SASL_HANDSHAKE,
      .vmin = 0,
      .vmax = 99,
      .top_err = OFF(RST(sasl_handshake), error_code) },
    { .key = GR_API_SASL_AUTHENTICATE,
      .vmin = 0,
      .vmax = 99,
      .top_err = OFF(RST(sasl_authenticate), error_code),
      .top_msg = OFF(RST(sasl_authenticate), error_message) },
    { .key = GR_API_DESCRIBE_USER_SCRAM_CREDENTIALS,
      .vmin = 0,
      .vmax = 99,
      .top_err = OFF(RST(describe_user_scram_credentials), error_code),
      .top_msg = OFF(RST(describe_user_scram_credentials), error_message),
      .throttle =
          OFF(RST(describe_user_scram_credentials), throttle_time_ms) },
    /* AlterUserScramCredentials has no top-level error: each upserted
     * user's result carries it (deletions get none) */
    { .key = GR_API_ALTER_USER_SCRAM_CREDENTIALS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(alter_user_scram_credentials), upsertions,
                    RQ(alter_user_scram_credentials,
                       scram_credential_upsertion),
                    R_OTHER),
                .name = OFF(RQ(alter_user_scram_credentials,
                               scram_credential_upsertion),
                            name) } },
      .rs = { { SLVL(RST(alter_user_scram_credentials), results,
                     RS(alter_user_scram_credentials,
                        alter_user_scram_credentials_result),
                     R_OTHER,
                     RSI(alter_user_scram_credentials,
                         alter_user_scram_credentials_result)),
                .name = OFF(RS(alter_user_scram_credentials,
                               alter_user_scram_credentials_result),
                            user),
                .err = OFF(RS(alter_user_scram_credentials,
                              alter_user_scram_credentials_result),
                           error_code),
                .msg = OFF(RS(alter_user_scram_credentials,
                              alter_user_scram_credentials_result),
                           error_message) } },
      .throttle = OFF(RST(alter_user_scram_credentials), throttle_time_ms) },

    { .key = GR_API_CREATE_PARTITIONS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(create_partitions), topics,
                    RQ(create_partitions, create_partitions_topic), R_TOPIC),
                .name = OFF(RQ(create_partitions, create_partitions_topic),
                            name) } },
      .rs = { { SLVL(RST(create_partitions), results,
                     RS(create_partitions, create_partitions_topic_result),
                     R_TOPIC,
                     RSI(create_partitions, create_partitions_topic_result)),
                .name = OFF(RS(create_partitions,
                               create_partitions_topic_result),
                            name),
                .err =
                    OFF(RS(create_partitions, create_partitions_topic_result),
                        error_code),
                .msg =
                    OFF(RS(create_partitions, create_partitions_topic_result),
                        error_message) } },
      .throttle = OFF(RST(create_partitions), throttle_time_ms) },

    { .key = GR_API_DELETE_GROUPS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(delete_groups), groups_names, gr_str_t, R_GROUP),
                .name = 1 } },
      .rs = { { SLVL(RST(delete_groups), results,
                     RS(delete_groups, deletable_group_result), R_GROUP,
                     RSI(delete_groups, deletable_group_result)),
                .name = OFF(RS(delete_groups, deletable_group_result),
                            group_id),
                .err =
                    OFF(RS(delete_groups, deletable_group_result), error_code),
                .msg = OFF(RS(delete_groups, deletable_group_result),
                           error_message) } },
      .throttle = OFF(RST(delete_groups), throttle_time_ms) },

    { .key = GR_API_ELECT_LEADERS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(elect_leaders), topic_partitions,
                    RQ(elect_leaders, topic_partitions), R_TOPIC),
                .name = OFF(RQ(elect_leaders, topic_partitions), topic) },
              { LVL(RQ(elect_leaders, topic_partitions), partitions, int32_t,
                    R_PART),
                .index = 1 } },
      .rs = { { SLVL(RST(elect_leaders), replica_election_results,
                     RS(elect_leaders, replica_election_result), R_TOPIC,
                     RSI(elect_leaders, replica_election_result)),
                .name = OFF(RS(elect_leaders, replica_election_result),
                            topic) },
              { SLVL(RS(elect_leaders, replica_election_result),
                     partition_result, RS(elect_leaders, partition_result),
                     R_PART, RSI(elect_leaders, partition_result)),
                .index = OFF(RS(elect_leaders, partition_result), partition_id),
                .err = OFF(RS(elect_leaders, partition_result), error_code),
                .msg =
                    OFF(RS(elect_leaders, partition_result), error_message) } },
      .top_err = OFF(RST(elect_leaders), error_code),
      .throttle = OFF(RST(elect_leaders), throttle_time_ms) },

    /* OffsetDelete: Kafka's error answer has the top-level error only */
    { .key = GR_API_OFFSET_DELETE,
      .vmin = 0,
      .vmax = 99,
      .nrq = 2,
      .rq = { { LVL(RQT(offset_delete), topics, RQ(offset_delete, topic),
                    R_TOPIC),
                .name = OFF(RQ(offset_delete, topic), name) },
              { LVL(RQ(offset_delete, topic), partitions,
                    RQ(offset_delete, partition), R_PART),
                .index = OFF(RQ(offset_delete, partition), partition_index) } },
      .top_err = OFF(RST(offset_delete), error_code),
      .throttle = OFF(RST(offset_delete), throttle_time_ms),
      .group = OFF(RQT(offset_delete), group_id) },

    { .key = GR_API_DESCRIBE_CLUSTER,
      .vmin = 0,
      .vmax = 99,
      .top_err = OFF(RST(describe_cluster), error_code),
      .top_msg = OFF(RST(describe_cluster), error_message),
      .throttle = OFF(RST(describe_cluster), throttle_time_ms) },

    { .key = GR_API_DESCRIBE_PRODUCERS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 2,
      .nrs = 2,
      .rq = { { LVL(RQT(describe_producers), topics,
                    RQ(describe_producers, topic_request), R_TOPIC),
                .name = OFF(RQ(describe_producers, topic_request), name) },
              { LVL(RQ(describe_producers, topic_request), partition_indexes,
                    int32_t, R_PART),
                .index = 1 } },
      .rs = { { SLVL(RST(describe_producers), topics,
                     RS(describe_producers, topic_response), R_TOPIC,
                     RSI(describe_producers, topic_response)),
                .name = OFF(RS(describe_producers, topic_response), name) },
              { SLVL(RS(describe_producers, topic_response), partitions,
                     RS(describe_producers, partition_response), R_PART,
                     RSI(describe_producers, partition_response)),
                .index = OFF(RS(describe_producers, partition_response),
                             partition_index),
                .err =
                    OFF(RS(describe_producers, partition_response), error_code),
                .msg = OFF(RS(describe_producers, partition_response),
                           error_message) } },
      .throttle = OFF(RST(describe_producers), throttle_time_ms) },

    { .key = GR_API_DESCRIBE_TRANSACTIONS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(describe_transactions), transactional_ids, gr_str_t,
                    R_OTHER),
                .name = 1 } },
      .rs = { { SLVL(RST(describe_transactions), transaction_states,
                     RS(describe_transactions, transaction_state), R_OTHER,
                     RSI(describe_transactions, transaction_state)),
                .name = OFF(RS(describe_transactions, transaction_state),
                            transactional_id),
                .err = OFF(RS(describe_transactions, transaction_state),
                           error_code) } },
      .throttle = OFF(RST(describe_transactions), throttle_time_ms) },

    TOP(GR_API_LIST_TRANSACTIONS, list_transactions),
    TOP(GR_API_GET_TELEMETRY_SUBSCRIPTIONS, get_telemetry_subscriptions),
    TOP(GR_API_PUSH_TELEMETRY, push_telemetry),
    TOP(GR_API_LIST_CONFIG_RESOURCES, list_config_resources),

    /* KIP-848: the heartbeat's top-level error and message; a describe's
     * per group, as DescribeGroups */
    { .key = GR_API_CONSUMER_GROUP_HEARTBEAT,
      .vmin = 0,
      .vmax = 99,
      .top_err = OFF(RST(consumer_group_heartbeat), error_code),
      .top_msg = OFF(RST(consumer_group_heartbeat), error_message),
      .throttle = OFF(RST(consumer_group_heartbeat), throttle_time_ms),
      .group = OFF(RQT(consumer_group_heartbeat), group_id) },
    { .key = GR_API_CONSUMER_GROUP_DESCRIBE,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(consumer_group_describe), group_ids, gr_str_t,
                    R_GROUP),
                .name = 1 } },
      .rs = { { SLVL(RST(consumer_group_describe), groups,
                     RS(consumer_group_describe, described_group), R_GROUP,
                     RSI(consumer_group_describe, described_group)),
                .name = OFF(RS(consumer_group_describe, described_group),
                            group_id),
                .err = OFF(RS(consumer_group_describe, described_group),
                           error_code),
                .msg = OFF(RS(consumer_group_describe, described_group),
                           error_message) } },
      .throttle = OFF(RST(consumer_group_describe), throttle_time_ms) },

    { .key = GR_API_DESCRIBE_TOPIC_PARTITIONS,
      .vmin = 0,
      .vmax = 99,
      .nrq = 1,
      .nrs = 1,
      .rq = { { LVL(RQT(describe_topic_partitions), topics,
                    RQ(describe_topic_partitions, topic_request), R_TOPIC),
                .name = OFF(RQ(describe_topic_partitions, topic_request),
                            name) } },
      .rs = { { SLVL(RST(describe_topic_partitions), topics,
                     RS(describe_topic_partitions, topic), R_TOPIC,
                     RSI(describe_topic_partitions, topic)),
                .name = OFF(RS(describe_topic_partitions, topic), name),
                .err =
                    OFF(RS(describe_topic_partitions, topic), error_code) } },
      .throttle = OFF(RST(describe_topic_partitions), throttle_time_ms) },
};

static const shape_t *
shape_of(int16_t key, int16_t ver)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (shapes[i].key == key && ver >= shapes[i].vmin &&
            ver <= shapes[i].vmax)
            return &shapes[i];
    return NULL;
}

static int32_t
count_of(const void *parent, const lvl_t *l)
{
    return *(const int32_t *)CAT(parent, l->cnt);
}

static const void *
elem_of(const void *parent, const lvl_t *l, int32_t i)
{
    const char *arr = *(const char *const *)CAT(parent, l->arr);
    return arr + (size_t)i * l->size;
}

static bool
str_is(const gr_str_t *s, const char *c)
{
    return s->len >= 0 && gr_str_eq_cstr(s, c);
}

/* The topic an element names: its name, else the name of its id. */
static bool
topic_is(gr_req_t *req, const lvl_t *l, const void *e, const char *topic)
{
    const gr_str_t *name = l->name ? CAT(e, l->name) : NULL;
    if (name != NULL && name->len > 0)
        return str_is(name, topic);
    if (l->id && !gr_uuid_is_zero(CAT(e, l->id))) {
        gr_topic_t *t =
            gr_cluster_topic_by_id(req->broker->cluster, CAT(e, l->id));
        return t != NULL && strcmp(t->name, topic) == 0;
    }
    return false;
}

typedef struct match {
    gr_req_t *req;
    const shape_t *s;
    const char *topic;
    int32_t partition;
    const char *group;
    bool groups_ok; /* R_GROUP names are groups (FindCoordinator) */
} match_t;

static bool
walk(const match_t *m, int depth, const void *parent, bool topic_ok)
{
    const lvl_t *l = &m->s->rq[depth];
    int32_t n = count_of(parent, l);
    for (int32_t i = 0; i < n; i++) {
        const void *e = elem_of(parent, l, i);
        bool ok = topic_ok;
        switch (l->role) {
        case R_TOPIC:
            if (m->topic == NULL)
                break;
            ok = topic_is(m->req, l, e, m->topic);
            /* a topic with no partitions below it, or any partition */
            if (ok && (m->partition < 0 || depth + 1 >= m->s->nrq ||
                       m->s->rq[depth + 1].role != R_PART))
                return true;
            break;
        case R_PART:
            if (topic_ok && *(const int32_t *)CAT(e, l->index) == m->partition)
                return true;
            break;
        case R_GROUP:
            if (m->group != NULL && m->groups_ok &&
                str_is(CAT(e, l->name), m->group))
                return true;
            break;
        }
        if (depth + 1 < m->s->nrq && walk(m, depth + 1, e, ok))
            return true;
    }
    return false;
}

static bool
groups_are_groups(gr_req_t *req, const shape_t *s)
{
    return s->key_type == 0 ||
           *(const int8_t *)CAT(req->body, s->key_type) == 0;
}

bool
gr_shape_has_topic(gr_req_t *req, const char *topic, int32_t partition)
{
    const shape_t *s = shape_of(req->hdr.api_key, req->version);
    match_t m = { req, s, topic, partition, NULL, false };
    if (s == NULL || s->nrq == 0)
        return false;
    if (s->key == GR_API_METADATA) {
        /* all topics: null, or empty in v0 */
        int32_t n = count_of(req->body, &s->rq[0]);
        if (n < 0 || (n == 0 && req->version == 0))
            return true;
    }
    return walk(&m, 0, req->body, false);
}

bool
gr_shape_has_group(gr_req_t *req, const char *group)
{
    const shape_t *s = shape_of(req->hdr.api_key, req->version);
    match_t m = { req, s, NULL, -1, group, false };
    if (s == NULL)
        return false;
    m.groups_ok = groups_are_groups(req, s);
    if (s->group && m.groups_ok && str_is(CAT(req->body, s->group), group))
        return true;
    return s->nrq > 0 && walk(&m, 0, req->body, false);
}

bool
gr_shape_can_error(int16_t api)
{
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (shapes[i].key == api && (shapes[i].top_err || shapes[i].nrs > 0))
            return true;
    return false;
}

static void
set_err(void *e, const lvl_t *l, gr_kerr_t err)
{
    *(int16_t *)AT(e, l->err) = err;
    if (l->msg)
        *(gr_str_t *)AT(e, l->msg) = gr_str_c(gr_kerr_msg(err));
}

/* Mirrors request level depth of rq_parent into rs_parent, down to the
 * first level with an error field. 0 or -1 (out of memory). */
static int
build(gr_req_t *req, const shape_t *s, int depth, const void *rq_parent,
      void *rs_parent, gr_kerr_t err)
{
    const lvl_t *q = &s->rq[depth], *p = &s->rs[depth];
    int32_t n = count_of(rq_parent, q);
    char *arr;
    if (n <= 0) {
        *(int32_t *)AT(rs_parent, p->cnt) = 0;
        return 0;
    }
    arr = gr_arena_alloc(req->a, (size_t)n * p->size);
    if (arr == NULL)
        return -1;
    for (int32_t i = 0; i < n; i++) {
        const void *qe = elem_of(rq_parent, q, i);
        void *pe = arr + (size_t)i * p->size;
        p->init(pe);
        if (p->name && q->name)
            *(gr_str_t *)AT(pe, p->name) = *(const gr_str_t *)CAT(qe, q->name);
        if (p->id && q->id)
            *(gr_uuid_t *)AT(pe, p->id) = *(const gr_uuid_t *)CAT(qe, q->id);
        if (p->index && q->index)
            *(int32_t *)AT(pe, p->index) = *(const int32_t *)CAT(qe, q->index);
        if (p->copy && q->copy)
            memcpy(AT(pe, p->copy), CAT(qe, q->copy), p->copy_size);
        if (p->err)
            set_err(pe, p, err);
        else if (depth + 1 < s->nrs && depth + 1 < s->nrq &&
                 build(req, s, depth + 1, qe, pe, err) != 0)
            return -1;
    }
    *(char **)AT(rs_parent, p->arr) = arr;
    *(int32_t *)AT(rs_parent, p->cnt) = n;
    return 0;
}

int
gr_shape_error_response(gr_req_t *req, gr_kerr_t err, bool top)
{
    const shape_t *s = shape_of(req->hdr.api_key, req->version);
    if (s == NULL)
        return -1;
    /* a fetch session's errors are the whole request's */
    if (s->key == GR_API_FETCH && (err == GR_KERR_FETCH_SESSION_ID_NOT_FOUND ||
                                   err == GR_KERR_INVALID_FETCH_SESSION_EPOCH ||
                                   err == GR_KERR_FETCH_SESSION_TOPIC_ID_ERROR))
        top = true;
    if ((top && s->top_err) || s->nrs == 0) {
        if (!s->top_err)
            return -1;
        *(int16_t *)AT(req->resp, s->top_err) = err;
        if (s->top_msg)
            *(gr_str_t *)AT(req->resp, s->top_msg) = gr_str_c(gr_kerr_msg(err));
        return 0;
    }
    return build(req, s, 0, req->body, req->resp, err);
}

void
gr_shape_metadata_error(gr_req_t *req, gr_kerr_t err, const char *topic,
                        int32_t partition)
{
    const shape_t *s = shape_of(GR_API_METADATA, req->version);
    const lvl_t *tl = &s->rs[0], *pl = &s->rs[1];
    int32_t n = count_of(req->resp, tl);
    for (int32_t i = 0; i < n; i++) {
        void *t = (void *)elem_of(req->resp, tl, i);
        int32_t np;
        if (topic != NULL && !str_is(CAT(t, tl->name), topic))
            continue;
        if (partition < 0) {
            /* as Kafka's error answer: the topic's error, no partitions */
            *(int16_t *)AT(t, tl->err) = err;
            *(int32_t *)AT(t, pl->cnt) = 0;
            continue;
        }
        np = count_of(t, pl);
        for (int32_t k = 0; k < np; k++) {
            void *p = (void *)elem_of(t, pl, k);
            if (*(int32_t *)AT(p, pl->index) == partition)
                *(int16_t *)AT(p, pl->err) = err;
        }
    }
}

static gr_kerr_t
first_in(const shape_t *s, int depth, const void *parent)
{
    const lvl_t *l = &s->rs[depth];
    int32_t n = count_of(parent, l);
    for (int32_t i = 0; i < n; i++) {
        const void *e = elem_of(parent, l, i);
        gr_kerr_t k = GR_KERR_NONE;
        if (l->err)
            k = *(const int16_t *)CAT(e, l->err);
        if (k == GR_KERR_NONE && depth + 1 < s->nrs)
            k = first_in(s, depth + 1, e);
        if (k != GR_KERR_NONE)
            return k;
    }
    return GR_KERR_NONE;
}

gr_kerr_t
gr_shape_first_error(gr_req_t *req)
{
    const shape_t *s = shape_of(req->hdr.api_key, req->version);
    gr_kerr_t k;
    if (s == NULL || req->resp == NULL)
        return GR_KERR_NONE;
    if (s->top_err &&
        (k = *(const int16_t *)CAT(req->resp, s->top_err)) != GR_KERR_NONE)
        return k;
    return s->nrs > 0 ? first_in(s, 0, req->resp) : GR_KERR_NONE;
}

static void
errors_in(const shape_t *s, int depth, const void *parent,
          void (*cb)(void *arg, gr_kerr_t err), void *arg)
{
    const lvl_t *l = &s->rs[depth];
    int32_t n = count_of(parent, l);
    for (int32_t i = 0; i < n; i++) {
        const void *e = elem_of(parent, l, i);
        if (l->err)
            cb(arg, *(const int16_t *)CAT(e, l->err));
        if (depth + 1 < s->nrs)
            errors_in(s, depth + 1, e, cb, arg);
    }
}

void
gr_shape_errors_foreach(gr_req_t *req, void (*cb)(void *arg, gr_kerr_t err),
                        void *arg)
{
    const shape_t *s = shape_of(req->hdr.api_key, req->version);
    if (s == NULL || req->resp == NULL) {
        cb(arg, GR_KERR_NONE);
        return;
    }
    if (s->top_err)
        cb(arg, *(const int16_t *)CAT(req->resp, s->top_err));
    if (s->nrs > 0)
        errors_in(s, 0, req->resp, cb, arg);
}

void
gr_shape_set_throttle(gr_req_t *req, int32_t ms)
{
    const shape_t *s = shape_of(req->hdr.api_key, req->version);
    int32_t *t;
    if (s == NULL || !s->throttle || req->resp == NULL)
        return;
    t = AT(req->resp, s->throttle);
    if (ms > *t)
        *t = ms;
}
