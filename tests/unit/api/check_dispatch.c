/* The dispatcher's leniencies, as Kafka's: bytes after a request body are
 * ignored (a current librdkafka sends some after Metadata v12, librdkafka
 * < 2.1 one more tag section after ListGroups v3+), at every version. */
#include "../unit.h"
#include "brokertest.h"

#include "proto/gen/proto_table.h"
#include "proto/kerr.h"

#include <string.h>

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

Suite *
suite_api_dispatch(void)
{
    Suite *s = suite_create("api/dispatch");
    TCase *tc = tcase_create("lenient");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_metadata_trailing_bytes, 0, 13);
    tcase_add_loop_test(tc, test_list_groups_trailing_tags, 0, 6);
    suite_add_tcase(s, tc);
    return s;
}
