/* OffsetCommit and OffsetFetch through the dispatcher: metadata kept byte
 * for byte (NUL bytes included) across a restart, and v10's topic ids
 * (KIP-848): commits and fetches by id, UNKNOWN_TOPIC_ID for an unknown
 * one, a group's full list with ids. */
#include "../unit.h"
#include "brokertest.h"

#include "proto/gen/proto_table.h"
#include "proto/kerr.h"

#include <string.h>

static const char md_bytes[] = "Hello\0world!"; /* 12 bytes */
static const gr_str_t md = { md_bytes, 12 };

/* A simple consumer's commit of (topic or id, partition 1) at version v. */
static int16_t
commit(gr_brokertest_t *bt, int16_t v, const char *topic, gr_uuid_t id,
       int64_t offset, gr_str_t metadata)
{
    gr_offset_commit_request_t rq;
    gr_offset_commit_request_topic_t t;
    gr_offset_commit_request_partition_t p;
    gr_offset_commit_response_t *rs;

    gr_offset_commit_request_init(&rq);
    gr_offset_commit_request_topic_init(&t);
    gr_offset_commit_request_partition_init(&p);
    rq.group_id = gr_str_c("g");
    rq.generation_id_or_member_epoch = -1;
    rq.member_id = gr_str_c("");
    p.partition_index = 1;
    p.committed_offset = offset;
    p.committed_metadata = metadata;
    t.name = gr_str_c(topic);
    t.topic_id = id;
    t.partitions = &p;
    t.partitions_cnt = 1;
    rq.topics = &t;
    rq.topics_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_OFFSET_COMMIT, v, &rq);
    ck_assert_int_eq(rs->topics_cnt, 1);
    ck_assert_int_eq(rs->topics[0].partitions_cnt, 1);
    if (v >= 10)
        ck_assert(gr_uuid_eq(&rs->topics[0].topic_id, &id));
    else
        ck_assert(gr_str_eq_cstr(&rs->topics[0].name, topic));
    return rs->topics[0].partitions[0].error_code;
}

/* OffsetFetch v8+ of (topic or id, partition 1), or of the group's whole
 * list when topic is NULL; the group's answer. */
static gr_offset_fetch_response_group_t *
fetch(gr_brokertest_t *bt, int16_t v, const char *topic, gr_uuid_t id)
{
    gr_offset_fetch_request_t rq;
    gr_offset_fetch_request_group_t g;
    gr_offset_fetch_request_topics_t t;
    gr_offset_fetch_response_t *rs;
    int32_t one = 1;

    gr_offset_fetch_request_init(&rq);
    gr_offset_fetch_request_group_init(&g);
    gr_offset_fetch_request_topics_init(&t);
    g.group_id = gr_str_c("g");
    t.name = gr_str_c(topic ? topic : "");
    t.topic_id = id;
    t.partition_indexes = &one;
    t.partition_indexes_cnt = 1;
    g.topics = topic || !gr_uuid_is_zero(&id) ? &t : NULL;
    g.topics_cnt = g.topics ? 1 : -1;
    rq.groups = &g;
    rq.groups_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_OFFSET_FETCH, v, &rq);
    ck_assert_int_eq(rs->groups_cnt, 1);
    ck_assert_int_eq(rs->groups[0].error_code, GR_KERR_NONE);
    return &rs->groups[0];
}

static void
assert_md(const gr_str_t *got)
{
    ck_assert_int_eq(got->len, 12);
    ck_assert(memcmp(got->ptr, md_bytes, 12) == 0);
}

START_TEST(test_metadata_byte_for_byte)
{
    gr_brokertest_t bt;
    gr_offset_fetch_request_t rq;
    gr_offset_fetch_request_topic_t t;
    gr_offset_fetch_response_t *rs;
    gr_offset_fetch_response_group_t *g;
    gr_uuid_t zero = { { 0 } };
    int32_t one = 1;

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_coordinator(&bt, "g", 0);
    gr_brokertest_create_topic(&bt, "t", 2, NULL, NULL);
    ck_assert_int_eq(commit(&bt, 2, "t", zero, 42, md), GR_KERR_NONE);
    for (int round = 0; round < 2; round++) {
        /* v1: the old shape */
        gr_offset_fetch_request_init(&rq);
        gr_offset_fetch_request_topic_init(&t);
        rq.group_id = gr_str_c("g");
        t.name = gr_str_c("t");
        t.partition_indexes = &one;
        t.partition_indexes_cnt = 1;
        rq.topics = &t;
        rq.topics_cnt = 1;
        rs = gr_brokertest_call(&bt, GR_API_OFFSET_FETCH, 1, &rq);
        ck_assert_int_eq(rs->topics[0].partitions[0].committed_offset, 42);
        assert_md(&rs->topics[0].partitions[0].metadata);
        /* v8: one topic, and the group's whole list */
        g = fetch(&bt, 8, "t", zero);
        assert_md(&g->topics[0].partitions[0].metadata);
        g = fetch(&bt, 8, NULL, zero);
        ck_assert_int_eq(g->topics_cnt, 1);
        assert_md(&g->topics[0].partitions[0].metadata);
        /* and again once loaded from __consumer_offsets */
        if (round == 0) {
            gr_brokertest_restart(&bt, NULL);
            gr_brokertest_coordinator(&bt, "g", 0);
        }
    }
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_topic_ids_v10)
{
    gr_brokertest_t bt;
    gr_offset_fetch_response_group_t *g;
    gr_uuid_t id, other = { { 1, 2, 3 } }, zero = { { 0 } };

    gr_brokertest_start(&bt, NULL);
    gr_brokertest_coordinator(&bt, "g", 0);
    id = gr_brokertest_create_topic(&bt, "t", 2, NULL, NULL);
    gr_brokertest_create_topic(&bt, "u", 2, NULL, NULL);
    ck_assert_int_eq(commit(&bt, 10, "", id, 7, GR_STR("m")), GR_KERR_NONE);
    ck_assert_int_eq(commit(&bt, 10, "", other, 7, GR_STR("m")),
                     GR_KERR_UNKNOWN_TOPIC_ID);
    /* a commit by name is seen by id, and one by id by name */
    ck_assert_int_eq(commit(&bt, 9, "u", zero, 9, GR_STR("n")), GR_KERR_NONE);
    g = fetch(&bt, 9, "t", zero);
    ck_assert_int_eq(g->topics[0].partitions[0].committed_offset, 7);
    g = fetch(&bt, 10, NULL, id);
    ck_assert_int_eq(g->topics_cnt, 1);
    ck_assert(gr_uuid_eq(&g->topics[0].topic_id, &id));
    ck_assert_int_eq(g->topics[0].partitions[0].committed_offset, 7);
    ck_assert(gr_str_eq_cstr(&g->topics[0].partitions[0].metadata, "m"));
    g = fetch(&bt, 10, NULL, other);
    ck_assert(gr_uuid_eq(&g->topics[0].topic_id, &other));
    ck_assert_int_eq(g->topics[0].partitions[0].error_code,
                     GR_KERR_UNKNOWN_TOPIC_ID);
    ck_assert_int_eq(g->topics[0].partitions[0].committed_offset, -1);
    /* the whole list, with ids */
    g = fetch(&bt, 10, NULL, zero);
    ck_assert_int_eq(g->topics_cnt, 2);
    for (int i = 0; i < 2; i++)
        ck_assert(!gr_uuid_is_zero(&g->topics[i].topic_id));
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_api_offsets(void)
{
    Suite *s = suite_create("api/offsets");
    TCase *tc = tcase_create("offsets");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_metadata_byte_for_byte);
    tcase_add_test(tc, test_topic_ids_v10);
    suite_add_tcase(s, tc);
    return s;
}
