/*
 * The API version ranges of Apache Kafka releases (emulate.h), as each
 * release's broker advertised them in ApiVersions, for the APIs Gregor
 * serves. Sources, cross-checked: the ApiVersions answers recorded from
 * the real brokers of each release (kafka-python 3.0.12 keeps them for
 * its version guess, kafka/protocol/broker_version_data.py), the
 * validVersions of apache/kafka's message schemas (clients/src/main/
 * resources/common/message/), and ../shared/reference/
 * protocol-versions.md for 4.0.0 (KIP-896's new minimums: Fetch 4,
 * ListOffsets 1, OffsetCommit 2, OffsetFetch 1, JoinGroup 2 in 4.0.0
 * only, back to 0 in 4.0.1/4.1 (KAFKA-19444), CreateTopics 2, DeleteTopics 1, the ACL APIs 1,
 * DescribeConfigs 1, DescribeLogDirs 1, WriteTxnMarkers 1,
 * OffsetForLeaderEpoch 2).
 *
 * The recorded 3.x answers are those of ZooKeeper-mode brokers; Gregor
 * stands for a KRaft one, so three KRaft-only APIs are added where the
 * release had them: ListClientMetricsResources (74) v0 from 3.7 (KIP-714),
 * DescribeTopicPartitions (75) v0 from 3.8 (KIP-966), and the client
 * telemetry APIs (71, 72) v0 from 3.7, advertised, as Kafka does, only
 * when a telemetry sink is configured (api_versions.c). Produce keeps an
 * advertised minimum of 0 in 4.x as Kafka 4.0 does (KAFKA-18659); Kafka
 * 4.x refuses v0-v2 requests, Gregor still answers them.
 *
 * Columns: 2.8, 3.0, 3.1 ... 3.9, 4.0, 4.1, 4.2, 4.3; -1: the release had
 * no such API. Each row: the minimums, then the maximums.
 */
#include "api/emulate.h"

#include "proto/gen/api_keys.h"

#include <stdio.h>
#include <string.h>

#define NREL 15

static const char *const rel_names[NREL] = {
    "2.8", "3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6",
    "3.7", "3.8", "3.9", "4.0", "4.1", "4.2", "4.3",
};

struct gr_api_release {
    int idx; /* column of rows[] */
};

static const gr_api_release_t releases[NREL] = {
    {0}, {1}, {2},  {3},  {4},  {5},  {6},  {7},
    {8}, {9}, {10}, {11}, {12}, {13}, {14},
};

typedef struct {
    int16_t key;
    int8_t min[NREL];
    int8_t max[NREL];
} row_t;

static const row_t rows[] = {
    {GR_API_PRODUCE,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {9, 9, 9, 9, 9, 9, 9, 9, 10, 11, 11, 12, 13, 13, 13}},
    {GR_API_FETCH,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4},
     {12, 12, 13, 13, 13, 13, 15, 15, 16, 16, 17, 17, 18, 18, 18}},
    {GR_API_LIST_OFFSETS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
     {6, 7, 7, 7, 7, 7, 8, 8, 8, 8, 9, 10, 10, 11, 11}},
    {GR_API_METADATA,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {11, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12, 13, 13, 13, 13}},
    {GR_API_OFFSET_COMMIT,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2},
     {8, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 10, 10}},
    {GR_API_OFFSET_FETCH,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
     {7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 10, 10}},
    {GR_API_FIND_COORDINATOR,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 6, 6, 6, 6, 6}},
    {GR_API_JOIN_GROUP,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0},
     {7, 7, 7, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}},
    {GR_API_HEARTBEAT,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}},
    {GR_API_LEAVE_GROUP,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}},
    {GR_API_SYNC_GROUP,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5}},
    {GR_API_DESCRIBE_GROUPS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6}},
    {GR_API_LIST_GROUPS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5}},
    {GR_API_SASL_HANDSHAKE,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {GR_API_API_VERSIONS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4}},
    {GR_API_CREATE_TOPICS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2},
     {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7}},
    {GR_API_DELETE_TOPICS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
     {6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6}},
    {GR_API_DELETE_RECORDS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
    {GR_API_INIT_PRODUCER_ID,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5}},
    {GR_API_OFFSET_FOR_LEADER_EPOCH,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2},
     {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}},
    {GR_API_ADD_PARTITIONS_TO_TXN,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {3, 3, 3, 3, 3, 3, 3, 4, 4, 5, 5, 5, 5, 5, 5}},
    {GR_API_ADD_OFFSETS_TO_TXN,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4}},
    {GR_API_END_TXN,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 5, 5, 5, 5}},
    {GR_API_WRITE_TXN_MARKERS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
     {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2}},
    {GR_API_TXN_OFFSET_COMMIT,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 5, 5, 5, 5}},
    {GR_API_DESCRIBE_ACLS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
     {2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
    {GR_API_CREATE_ACLS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
     {2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
    {GR_API_DELETE_ACLS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
     {2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
    {GR_API_DESCRIBE_CONFIGS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
     {4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}},
    {GR_API_ALTER_CONFIGS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
    {GR_API_DESCRIBE_LOG_DIRS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
     {2, 2, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5}},
    {GR_API_SASL_AUTHENTICATE,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
    {GR_API_CREATE_PARTITIONS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
    {GR_API_DELETE_GROUPS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
    {GR_API_ELECT_LEADERS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}},
    {GR_API_INCREMENTAL_ALTER_CONFIGS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {GR_API_OFFSET_DELETE,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {GR_API_DESCRIBE_CLIENT_QUOTAS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {GR_API_ALTER_CLIENT_QUOTAS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
    {GR_API_DESCRIBE_USER_SCRAM_CREDENTIALS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {GR_API_ALTER_USER_SCRAM_CREDENTIALS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {GR_API_DESCRIBE_CLUSTER,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2}},
    {GR_API_DESCRIBE_PRODUCERS,
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {GR_API_DESCRIBE_TRANSACTIONS,
     {-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {GR_API_LIST_TRANSACTIONS,
     {-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
     {-1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2}},
    {GR_API_CONSUMER_GROUP_HEARTBEAT,
     {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0},
     {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 1, 1, 1, 1}},
    {GR_API_CONSUMER_GROUP_DESCRIBE,
     {-1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0},
     {-1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 1, 1, 1, 1}},
    {GR_API_GET_TELEMETRY_SUBSCRIPTIONS,
     {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0},
     {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0}},
    {GR_API_PUSH_TELEMETRY,
     {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0},
     {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0}},
    {GR_API_LIST_CONFIG_RESOURCES,
     {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0},
     {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 1, 1, 1}},
    {GR_API_DESCRIBE_TOPIC_PARTITIONS,
     {-1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0},
     {-1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0}},
};

const gr_api_release_t *
gr_api_release_find(const char *name)
{
    size_t n;
    if (name == NULL)
        return NULL;
    for (int i = 0; i < NREL; i++) {
        n = strlen(rel_names[i]);
        /* "3.6" or "3.6.<patch>" */
        if (strncmp(name, rel_names[i], n) == 0 &&
            (name[n] == '\0' ||
             (name[n] == '.' && name[n + 1] >= '0' && name[n + 1] <= '9' &&
              strspn(name + n + 1, "0123456789") == strlen(name + n + 1))))
            return &releases[i];
    }
    return NULL;
}

const char *
gr_api_release_name(const gr_api_release_t *rel)
{
    return rel_names[rel->idx];
}

void
gr_api_release_list(char *buf, size_t size)
{
    size_t off = 0;
    if (size == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < NREL && off < size; i++) {
        int w = snprintf(buf + off, size - off, "%s%s", i ? ", " : "",
                         rel_names[i]);
        if (w < 0)
            return;
        off += (size_t)w;
    }
}

bool
gr_api_release_range(const gr_api_release_t *rel, int16_t key, int16_t *min,
                     int16_t *max)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (rows[i].key != key)
            continue;
        if (rows[i].max[rel->idx] < 0)
            return false;
        *min = rows[i].min[rel->idx];
        *max = rows[i].max[rel->idx];
        return true;
    }
    return false;
}
