/* Requests through the dispatcher. Its leniencies, as Kafka's: bytes after
 * a request body are ignored (a current librdkafka sends some after
 * Metadata v12, librdkafka < 2.1 one more tag section after ListGroups
 * v3+), at every version. And the newest versions' meanings: ApiVersions
 * v5's cluster check (KIP-1242), DescribeGroups v6's GROUP_ID_NOT_FOUND
 * (KIP-1043), ListTransactions v2's id pattern (KIP-1152). */
#include "../unit.h"
#include "brokertest.h"

#include "broker.h"
#include "cluster/cluster.h"

#include "proto/gen/proto_table.h"
#include "proto/kerr.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const uint8_t junk[] = { 0x00, 0x07, 0xff, 0x00, 0x2a };

START_TEST(test_metadata_trailing_bytes)
{
    gr_brokertest_t bt;
    gr_metadata_request_t rq;
    gr_metadata_response_t *rs;
    int16_t v = (int16_t)_i;

    gr_brokertest_start(&bt, NULL);
    gr_metadata_request_init(&rq);
    rq.topics_cnt = v == 0 ? 0 : -1; /* all topics */
    rs = gr_brokertest_call_extra(&bt, GR_API_METADATA, v, &rq, junk,
                                  sizeof junk);
    ck_assert_int_eq(rs->brokers_cnt, 1);
    /* the connection is still open: a second request is answered */
    rs = gr_brokertest_call(&bt, GR_API_METADATA, v, &rq);
    ck_assert_int_eq(rs->brokers_cnt, 1);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_list_groups_trailing_tags)
{
    gr_brokertest_t bt;
    gr_list_groups_request_t rq;
    gr_list_groups_response_t *rs;
    static const uint8_t tags[] = { 0x00 };

    gr_brokertest_start(&bt, NULL);
    gr_list_groups_request_init(&rq);
    rs = gr_brokertest_call_extra(&bt, GR_API_LIST_GROUPS, (int16_t)_i, &rq,
                                  tags, sizeof tags);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    rs = gr_brokertest_call_extra(&bt, GR_API_LIST_GROUPS, (int16_t)_i, &rq,
                                  junk, sizeof junk);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_api_versions_v5_cluster_check)
{
    gr_brokertest_t bt;
    gr_api_versions_request_t rq;
    gr_api_versions_response_t *rs;
    char cid[23];

    gr_brokertest_start(&bt, NULL);
    snprintf(cid, sizeof cid, "%s", bt.b->cluster->cluster_id);
    gr_api_versions_request_init(&rq);
    rq.client_software_name = gr_str_c("test");
    rq.client_software_version = gr_str_c("1.0");
    /* no expectation: the key list */
    rs = gr_brokertest_call(&bt, GR_API_API_VERSIONS, 5, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    ck_assert_int_gt(rs->api_keys_cnt, 30);
    /* the right cluster and node */
    rq.cluster_id = gr_str_c(cid);
    rq.node_id = 1;
    rs = gr_brokertest_call(&bt, GR_API_API_VERSIONS, 5, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    ck_assert_int_gt(rs->api_keys_cnt, 30);
    /* another node, another cluster: rebootstrap, without keys */
    rq.node_id = 2;
    rs = gr_brokertest_call(&bt, GR_API_API_VERSIONS, 5, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_REBOOTSTRAP_REQUIRED);
    ck_assert_int_eq(rs->api_keys_cnt, 0);
    rq.node_id = 1;
    rq.cluster_id = gr_str_c("AAAAAAAAAAAAAAAAAAAAAA");
    rs = gr_brokertest_call(&bt, GR_API_API_VERSIONS, 5, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_REBOOTSTRAP_REQUIRED);
    /* v4 has no such fields: the same request is answered */
    rs = gr_brokertest_call(&bt, GR_API_API_VERSIONS, 4, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    /* a bad software name: INVALID_REQUEST without keys, as Kafka */
    rq.client_software_name = gr_str_c("-bad");
    rs = gr_brokertest_call(&bt, GR_API_API_VERSIONS, 3, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_INVALID_REQUEST);
    ck_assert_int_eq(rs->api_keys_cnt, 0);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_describe_unknown_group)
{
    gr_brokertest_t bt;
    gr_describe_groups_request_t rq;
    gr_describe_groups_response_t *rs;
    gr_str_t g = GR_STR("nobody");
    int16_t v = (int16_t)_i;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_coordinator(&bt, "nobody", 0);
    gr_describe_groups_request_init(&rq);
    rq.groups = &g;
    rq.groups_cnt = 1;
    rs = gr_brokertest_call(&bt, GR_API_DESCRIBE_GROUPS, v, &rq);
    ck_assert_int_eq(rs->groups_cnt, 1);
    ck_assert(gr_str_eq_cstr(&rs->groups[0].group_state, "Dead"));
    ck_assert(gr_str_eq_cstr(&rs->groups[0].group_id, "nobody"));
    if (v >= 6) {
        ck_assert_int_eq(rs->groups[0].error_code, GR_KERR_GROUP_ID_NOT_FOUND);
        ck_assert(gr_str_eq_cstr(&rs->groups[0].error_message,
                                 "Group nobody not found."));
    } else {
        ck_assert_int_eq(rs->groups[0].error_code, GR_KERR_NONE);
    }
    gr_brokertest_stop(&bt);
}
END_TEST

static void
init_txn_id(gr_brokertest_t *bt, const char *id)
{
    gr_init_producer_id_request_t rq;
    gr_init_producer_id_response_t *rs;
    gr_brokertest_coordinator(bt, id, 1);
    gr_init_producer_id_request_init(&rq);
    rq.transactional_id = gr_str_c(id);
    rq.transaction_timeout_ms = 60000;
    rs = gr_brokertest_call(bt, GR_API_INIT_PRODUCER_ID, 4, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
}

static gr_list_transactions_response_t *
list_txns(gr_brokertest_t *bt, int16_t v, const char *pattern)
{
    gr_list_transactions_request_t rq;
    gr_list_transactions_request_init(&rq);
    rq.transactional_id_pattern = pattern ? gr_str_c(pattern) : GR_STR_NULL;
    return gr_brokertest_call(bt, GR_API_LIST_TRANSACTIONS, v, &rq);
}

START_TEST(test_list_transactions_pattern)
{
    gr_brokertest_t bt;
    gr_list_transactions_response_t *rs;

    gr_brokertest_start(&bt, NULL);
    init_txn_id(&bt, "app-1");
    init_txn_id(&bt, "app-22");
    init_txn_id(&bt, "other");
    ck_assert_int_eq(list_txns(&bt, 2, NULL)->transaction_states_cnt, 3);
    ck_assert_int_eq(list_txns(&bt, 2, "")->transaction_states_cnt, 3);
    rs = list_txns(&bt, 2, "app-\\d");
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->transaction_states_cnt, 1); /* the whole id */
    ck_assert(gr_str_eq_cstr(&rs->transaction_states[0].transactional_id,
                             "app-1"));
    ck_assert_int_eq(list_txns(&bt, 2, "app-.*")->transaction_states_cnt, 2);
    ck_assert_int_eq(list_txns(&bt, 2, "(app|oth)[a-z0-9-]+")
                         ->transaction_states_cnt,
                     3);
    rs = list_txns(&bt, 2, "app-(");
    ck_assert_int_eq(rs->error_code, GR_KERR_INVALID_REGULAR_EXPRESSION);
    ck_assert_int_eq(rs->transaction_states_cnt, 0);
    /* v1 has no pattern */
    ck_assert_int_eq(list_txns(&bt, 1, NULL)->transaction_states_cnt, 3);
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_api_dispatch(void)
{
    Suite *s = suite_create("api/dispatch");
    TCase *tc = tcase_create("lenient");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_metadata_trailing_bytes, 0, 13);
    tcase_add_loop_test(tc, test_list_groups_trailing_tags, 0, 6);
    suite_add_tcase(s, tc);
    tc = tcase_create("newest");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_api_versions_v5_cluster_check);
    tcase_add_loop_test(tc, test_describe_unknown_group, 0, 7);
    tcase_add_test(tc, test_list_transactions_pattern);
    suite_add_tcase(s, tc);
    return s;
}
