/* The group and coordinator APIs through the dispatcher, where the answer
 * is worded by the handler: FindCoordinator's messages per version and
 * its key types, ApiVersions' features per version and its v5 checks,
 * DescribeGroups' authorized operations, DeleteGroups' results. Each as
 * Kafka 4.4 answers (tests/diff compares the same requests with it). */
#include "../unit.h"
#include "brokertest.h"

#include "broker.h"
#include "cluster/cluster.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"

#include <stdio.h>
#include <string.h>

static gr_find_coordinator_response_t *
find_coordinator(gr_brokertest_t *bt, int16_t v, int8_t key_type,
                 const char *key)
{
    gr_find_coordinator_request_t rq;
    gr_str_t keys[2];

    gr_find_coordinator_request_init(&rq);
    rq.key_type = key_type;
    rq.key = gr_str_c(key);
    keys[0] = gr_str_c(key);
    keys[1] = gr_str_c("other");
    rq.coordinator_keys = keys;
    rq.coordinator_keys_cnt = 2;
    return gr_brokertest_call(bt, GR_API_FIND_COORDINATOR, v, &rq);
}

static bool
is_empty_str(const gr_str_t *s)
{
    return !gr_str_is_null(s) && s->len == 0;
}

/* v1-v3: the error's message, "NONE" on success; v4+: "" for every key
 * of a known key type (Kafka never sets it there), the message only when
 * the key type is unknown (the whole request fails). */
START_TEST(test_find_coordinator_messages)
{
    gr_brokertest_t bt;
    gr_find_coordinator_response_t *rs;
    const char *invalid = gr_kerr_msg(GR_KERR_INVALID_REQUEST);

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_coordinator(&bt, "g", 0);
    gr_brokertest_coordinator(&bt, "tx", 1);
    for (int16_t v = 1; v <= 3; v++) {
        rs = find_coordinator(&bt, v, 0, "g");
        ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
        ck_assert(gr_str_eq_cstr(&rs->error_message, "NONE"));
        rs = find_coordinator(&bt, v, 1, "tx");
        ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
        ck_assert(gr_str_eq_cstr(&rs->error_message, "NONE"));
        rs = find_coordinator(&bt, v, 7, "g");
        ck_assert_int_eq(rs->error_code, GR_KERR_INVALID_REQUEST);
        ck_assert(gr_str_eq_cstr(&rs->error_message, invalid));
        /* a share key before v6 */
        rs = find_coordinator(&bt, v, 2, "g:AAAAAAAAAAAAAAAAAAAAAQ:0");
        ck_assert_int_eq(rs->error_code, GR_KERR_INVALID_REQUEST);
        ck_assert(gr_str_eq_cstr(&rs->error_message, invalid));
    }
    for (int16_t v = 4; v <= 6; v++) {
        rs = find_coordinator(&bt, v, 0, "g");
        ck_assert_int_eq(rs->coordinators_cnt, 2);
        for (int i = 0; i < 2; i++) {
            ck_assert_int_eq(rs->coordinators[i].error_code, GR_KERR_NONE);
            ck_assert(is_empty_str(&rs->coordinators[i].error_message));
            ck_assert_int_eq(rs->coordinators[i].node_id, 1);
        }
        rs = find_coordinator(&bt, v, 1, "tx");
        ck_assert_int_eq(rs->coordinators[0].error_code, GR_KERR_NONE);
        ck_assert(is_empty_str(&rs->coordinators[0].error_message));
        rs = find_coordinator(&bt, v, 7, "g");
        ck_assert_int_eq(rs->coordinators_cnt, 2);
        for (int i = 0; i < 2; i++) {
            ck_assert_int_eq(rs->coordinators[i].error_code,
                             GR_KERR_INVALID_REQUEST);
            ck_assert(
                gr_str_eq_cstr(&rs->coordinators[i].error_message, invalid));
            ck_assert_int_eq(rs->coordinators[i].node_id, -1);
        }
        /* share keys: no share coordinator here (and none before v6) */
        rs = find_coordinator(&bt, v, 2, "g:AAAAAAAAAAAAAAAAAAAAAQ:0");
        ck_assert_int_eq(rs->coordinators_cnt, 2);
        for (int i = 0; i < 2; i++) {
            ck_assert_int_eq(rs->coordinators[i].error_code,
                             GR_KERR_INVALID_REQUEST);
            ck_assert(is_empty_str(&rs->coordinators[i].error_message));
            ck_assert_int_eq(rs->coordinators[i].node_id, -1);
            ck_assert_int_eq(rs->coordinators[i].port, -1);
        }
    }
    gr_brokertest_stop(&bt);
}
END_TEST

/* Kafka 4.x hashes an empty transactional id as any other. */
START_TEST(test_find_coordinator_empty_transactional_id)
{
    gr_brokertest_t bt;
    gr_find_coordinator_response_t *rs;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_coordinator(&bt, "", 1);
    rs = find_coordinator(&bt, 3, 1, "");
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->node_id, 1);
    rs = find_coordinator(&bt, 4, 1, "");
    ck_assert_int_eq(rs->coordinators_cnt, 2);
    ck_assert_int_eq(rs->coordinators[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->coordinators[0].node_id, 1);
    gr_brokertest_stop(&bt);
}
END_TEST

static gr_api_versions_response_t *
api_versions(gr_brokertest_t *bt, int16_t v, const char *cluster_id,
             int32_t node_id)
{
    gr_api_versions_request_t rq;
    gr_api_versions_request_init(&rq);
    rq.client_software_name = gr_str_c("test");
    rq.client_software_version = gr_str_c("1.0");
    rq.cluster_id = cluster_id ? gr_str_c(cluster_id) : GR_STR_NULL;
    rq.node_id = node_id;
    return gr_brokertest_call(bt, GR_API_API_VERSIONS, v, &rq);
}

/* KIP-1022: below v4 a supported range starting at 0 is left out; the
 * finalized level is there in every version. */
START_TEST(test_api_versions_features)
{
    static const char *const ov[] = { "gregor.transaction.version=2", NULL };
    gr_brokertest_t bt;
    gr_api_versions_response_t *rs;

    gr_brokertest_start(&bt, ov);
    rs = api_versions(&bt, 3, NULL, -1);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->supported_features_cnt, 0);
    ck_assert_int_eq(rs->finalized_features_cnt, 1);
    ck_assert(
        gr_str_eq_cstr(&rs->finalized_features[0].name, "transaction.version"));
    ck_assert_int_eq(rs->finalized_features[0].max_version_level, 2);
    for (int16_t v = 4; v <= 5; v++) {
        rs = api_versions(&bt, v, NULL, -1);
        ck_assert_int_eq(rs->supported_features_cnt, 1);
        ck_assert(gr_str_eq_cstr(&rs->supported_features[0].name,
                                 "transaction.version"));
        ck_assert_int_eq(rs->supported_features[0].min_version, 0);
        ck_assert_int_eq(rs->supported_features[0].max_version, 2);
        ck_assert_int_eq(rs->finalized_features_cnt, 1);
    }
    gr_brokertest_stop(&bt);
}
END_TEST

/* v5: a cluster id without a node id, or a node id without a cluster id,
 * is INVALID_REQUEST (Kafka's ApiVersionsRequest.isValid), whatever they
 * name; the answer carries no keys and no features, epoch -1. */
START_TEST(test_api_versions_v5_half_expectation)
{
    gr_brokertest_t bt;
    gr_api_versions_response_t *rs;
    char cid[23];
    const char *clusters[] = { cid, "x", NULL, NULL };
    const int32_t nodes[] = { -1, -1, 1, 77 };

    gr_brokertest_start(&bt, NULL);
    snprintf(cid, sizeof cid, "%s", bt.b->cluster->cluster_id);
    for (int i = 0; i < 4; i++) {
        rs = api_versions(&bt, 5, clusters[i], nodes[i]);
        ck_assert_int_eq(rs->error_code, GR_KERR_INVALID_REQUEST);
        ck_assert_int_eq(rs->api_keys_cnt, 0);
        ck_assert_int_eq(rs->supported_features_cnt, 0);
        ck_assert_int_eq(rs->finalized_features_cnt, 0);
        ck_assert_int_eq(rs->finalized_features_epoch, -1);
    }
    /* both, or neither: answered */
    rs = api_versions(&bt, 5, cid, 1);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    ck_assert_int_gt(rs->api_keys_cnt, 30);
    rs = api_versions(&bt, 5, NULL, -1);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A simple consumer's commit to group (topic t, partition 0): the group
 * exists, Empty. */
static void
simple_commit(gr_brokertest_t *bt, const char *group)
{
    gr_offset_commit_request_t rq;
    gr_offset_commit_request_topic_t t;
    gr_offset_commit_request_partition_t p;
    gr_offset_commit_response_t *rs;

    gr_offset_commit_request_init(&rq);
    gr_offset_commit_request_topic_init(&t);
    gr_offset_commit_request_partition_init(&p);
    rq.group_id = gr_str_c(group);
    rq.generation_id_or_member_epoch = -1;
    rq.member_id = gr_str_c("");
    p.partition_index = 0;
    p.committed_offset = 5;
    t.name = gr_str_c("t");
    t.partitions = &p;
    t.partitions_cnt = 1;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_OFFSET_COMMIT, 8, &rq);
    ck_assert_int_eq(rs->topics[0].partitions[0].error_code, GR_KERR_NONE);
}

static void
create_topic_t(gr_brokertest_t *bt)
{
    gr_create_topics_request_t rq;
    gr_create_topics_request_creatable_topic_t t;
    gr_create_topics_response_t *rs;

    gr_create_topics_request_init(&rq);
    gr_create_topics_request_creatable_topic_init(&t);
    t.name = gr_str_c("t");
    t.num_partitions = 1;
    t.replication_factor = 1;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rq.timeout_ms = 10000;
    rs = gr_brokertest_call(bt, GR_API_CREATE_TOPICS, 7, &rq);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
}

/* Without an authorizer every operation on a group (READ, DELETE,
 * DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS), for a group answered without
 * an error; the default otherwise, and when not asked. */
START_TEST(test_describe_groups_authorized_operations)
{
    const int32_t all = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11);
    gr_brokertest_t bt;
    gr_describe_groups_request_t rq;
    gr_describe_groups_response_t *rs;
    gr_str_t groups[2] = { GR_STR("g"), GR_STR("nope") };

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_coordinator(&bt, "g", 0);
    gr_brokertest_coordinator(&bt, "nope", 0);
    create_topic_t(&bt);
    simple_commit(&bt, "g");
    gr_describe_groups_request_init(&rq);
    rq.groups = groups;
    rq.groups_cnt = 2;
    for (int16_t v = 3; v <= 6; v++) {
        rq.include_authorized_operations = true;
        rs = gr_brokertest_call(&bt, GR_API_DESCRIBE_GROUPS, v, &rq);
        ck_assert_int_eq(rs->groups_cnt, 2);
        ck_assert(gr_str_eq_cstr(&rs->groups[0].group_state, "Empty"));
        ck_assert_int_eq(rs->groups[0].authorized_operations, all);
        /* the unknown group: no error before v6, GROUP_ID_NOT_FOUND from */
        ck_assert_int_eq(rs->groups[1].authorized_operations,
                         v < 6 ? all : INT32_MIN);
        rq.include_authorized_operations = false;
        rs = gr_brokertest_call(&bt, GR_API_DESCRIBE_GROUPS, v, &rq);
        ck_assert_int_eq(rs->groups[0].authorized_operations, INT32_MIN);
        ck_assert_int_eq(rs->groups[1].authorized_operations, INT32_MIN);
    }
    gr_brokertest_stop(&bt);
}
END_TEST

static gr_delete_groups_response_t *
delete_groups(gr_brokertest_t *bt, int16_t v, gr_str_t *names, int32_t n)
{
    gr_delete_groups_request_t rq;
    gr_delete_groups_request_init(&rq);
    rq.groups_names = names;
    rq.groups_names_cnt = n;
    return gr_brokertest_call(bt, GR_API_DELETE_GROUPS, v, &rq);
}

/* A group named twice is answered once (Kafka takes the distinct names),
 * and no result carries a message (v3: null). */
START_TEST(test_delete_groups_distinct)
{
    gr_brokertest_t bt;
    gr_delete_groups_response_t *rs;
    gr_str_t names[4] = { GR_STR("g"), GR_STR("nope"), GR_STR("g"),
                          GR_STR("nope") };

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_coordinator(&bt, "g", 0);
    gr_brokertest_coordinator(&bt, "nope", 0);
    create_topic_t(&bt);
    simple_commit(&bt, "g");
    rs = delete_groups(&bt, 3, names, 4);
    ck_assert_int_eq(rs->results_cnt, 2);
    ck_assert(gr_str_eq_cstr(&rs->results[0].group_id, "g"));
    ck_assert_int_eq(rs->results[0].error_code, GR_KERR_NONE);
    ck_assert(gr_str_eq_cstr(&rs->results[1].group_id, "nope"));
    ck_assert_int_eq(rs->results[1].error_code, GR_KERR_GROUP_ID_NOT_FOUND);
    for (int i = 0; i < 2; i++)
        ck_assert(gr_str_is_null(&rs->results[i].error_message));
    rs = delete_groups(&bt, 2, names, 3);
    ck_assert_int_eq(rs->results_cnt, 2);
    ck_assert_int_eq(rs->results[0].error_code, GR_KERR_GROUP_ID_NOT_FOUND);
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_api_groups(void)
{
    Suite *s = suite_create("api/groups");
    TCase *tc = tcase_create("groups");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_find_coordinator_messages);
    tcase_add_test(tc, test_find_coordinator_empty_transactional_id);
    tcase_add_test(tc, test_api_versions_features);
    tcase_add_test(tc, test_api_versions_v5_half_expectation);
    tcase_add_test(tc, test_describe_groups_authorized_operations);
    tcase_add_test(tc, test_delete_groups_distinct);
    suite_add_tcase(s, tc);
    return s;
}
