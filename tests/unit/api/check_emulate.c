/*
 * Emulated Kafka releases (src/api/emulate.c): ApiVersions answers as
 * bytes, for a broker started as Kafka 2.8 and one told so by the control
 * interface; versions above a release's range refused as Kafka refuses
 * them (ApiVersions: UNSUPPORTED_VERSION in v0 form with its own range;
 * any other API: the connection closed), below a 4.0 minimum too, and an
 * API the release did not have not served. The expected answers are
 * written from the ApiVersions answers recorded from Kafka 2.8 brokers
 * (kafka-python's broker_version_data.py), not from our table.
 */
#include "../unit.h"
#include "brokertest.h"

#include "api/dispatch.h"
#include "api/emulate.h"
#include "control/control.h"
#include "core/buf.h"
#include "proto/gen/api_keys.h"
#include "proto/gen/proto_table.h"

#include <poll.h>
#include <string.h>
#include <unistd.h>

/* ApiVersions v0, correlation id 7, client id "test" */
static const uint8_t av0_req[] = {
    0x00, 0x00, 0x00, 0x0e, /* size 14 */
    0x00, 0x12, 0x00, 0x00, /* ApiVersions v0 */
    0x00, 0x00, 0x00, 0x07, /* correlation id */
    0x00, 0x04, 't',  'e',  's', 't',
};

/* Kafka 2.8's answer, for the APIs Gregor serves (v0: no throttle time) */
static const uint8_t av0_resp_2_8[] = {
    0x00, 0x00, 0x01, 0x0c, /* size 268 */
    0x00, 0x00, 0x00, 0x07, /* correlation id */
    0x00, 0x00,             /* error_code NONE */
    0x00, 0x00, 0x00, 0x2b, /* 43 APIs: key, min, max */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x09, /* 0 produce v0-v9 */
    0x00, 0x01, 0x00, 0x00, 0x00, 0x0c, /* 1 fetch v0-v12 */
    0x00, 0x02, 0x00, 0x00, 0x00, 0x06, /* 2 list_offsets v0-v6 */
    0x00, 0x03, 0x00, 0x00, 0x00, 0x0b, /* 3 metadata v0-v11 */
    0x00, 0x08, 0x00, 0x00, 0x00, 0x08, /* 8 offset_commit v0-v8 */
    0x00, 0x09, 0x00, 0x00, 0x00, 0x07, /* 9 offset_fetch v0-v7 */
    0x00, 0x0a, 0x00, 0x00, 0x00, 0x03, /* 10 find_coordinator v0-v3 */
    0x00, 0x0b, 0x00, 0x00, 0x00, 0x07, /* 11 join_group v0-v7 */
    0x00, 0x0c, 0x00, 0x00, 0x00, 0x04, /* 12 heartbeat v0-v4 */
    0x00, 0x0d, 0x00, 0x00, 0x00, 0x04, /* 13 leave_group v0-v4 */
    0x00, 0x0e, 0x00, 0x00, 0x00, 0x05, /* 14 sync_group v0-v5 */
    0x00, 0x0f, 0x00, 0x00, 0x00, 0x05, /* 15 describe_groups v0-v5 */
    0x00, 0x10, 0x00, 0x00, 0x00, 0x04, /* 16 list_groups v0-v4 */
    0x00, 0x11, 0x00, 0x00, 0x00, 0x01, /* 17 sasl_handshake v0-v1 */
    0x00, 0x12, 0x00, 0x00, 0x00, 0x03, /* 18 api_versions v0-v3 */
    0x00, 0x13, 0x00, 0x00, 0x00, 0x07, /* 19 create_topics v0-v7 */
    0x00, 0x14, 0x00, 0x00, 0x00, 0x06, /* 20 delete_topics v0-v6 */
    0x00, 0x15, 0x00, 0x00, 0x00, 0x02, /* 21 delete_records v0-v2 */
    0x00, 0x16, 0x00, 0x00, 0x00, 0x04, /* 22 init_producer_id v0-v4 */
    0x00, 0x17, 0x00, 0x00, 0x00, 0x04, /* 23 offset_for_leader_epoch v0-v4 */
    0x00, 0x18, 0x00, 0x00, 0x00, 0x03, /* 24 add_partitions_to_txn v0-v3 */
    0x00, 0x19, 0x00, 0x00, 0x00, 0x03, /* 25 add_offsets_to_txn v0-v3 */
    0x00, 0x1a, 0x00, 0x00, 0x00, 0x03, /* 26 end_txn v0-v3 */
    0x00, 0x1b, 0x00, 0x00, 0x00, 0x01, /* 27 write_txn_markers v0-v1 */
    0x00, 0x1c, 0x00, 0x00, 0x00, 0x03, /* 28 txn_offset_commit v0-v3 */
    0x00, 0x1d, 0x00, 0x00, 0x00, 0x02, /* 29 describe_acls v0-v2 */
    0x00, 0x1e, 0x00, 0x00, 0x00, 0x02, /* 30 create_acls v0-v2 */
    0x00, 0x1f, 0x00, 0x00, 0x00, 0x02, /* 31 delete_acls v0-v2 */
    0x00, 0x20, 0x00, 0x00, 0x00, 0x04, /* 32 describe_configs v0-v4 */
    0x00, 0x21, 0x00, 0x00, 0x00, 0x02, /* 33 alter_configs v0-v2 */
    0x00, 0x23, 0x00, 0x00, 0x00, 0x02, /* 35 describe_log_dirs v0-v2 */
    0x00, 0x24, 0x00, 0x00, 0x00, 0x02, /* 36 sasl_authenticate v0-v2 */
    0x00, 0x25, 0x00, 0x00, 0x00, 0x03, /* 37 create_partitions v0-v3 */
    0x00, 0x2a, 0x00, 0x00, 0x00, 0x02, /* 42 delete_groups v0-v2 */
    0x00, 0x2b, 0x00, 0x00, 0x00, 0x02, /* 43 elect_leaders v0-v2 */
    0x00, 0x2c, 0x00, 0x00, 0x00, 0x01, /* 44 incremental_alter_configs v0-v1 */
    0x00, 0x2f, 0x00, 0x00, 0x00, 0x00, /* 47 offset_delete v0-v0 */
    0x00, 0x30, 0x00, 0x00, 0x00, 0x01, /* 48 describe_client_quotas v0-v1 */
    0x00, 0x31, 0x00, 0x00, 0x00, 0x01, /* 49 alter_client_quotas v0-v1 */
    0x00, 0x32, 0x00, 0x00, 0x00, 0x00, /* 50 describe_user_scram_credentials v0-v0 */
    0x00, 0x33, 0x00, 0x00, 0x00, 0x00, /* 51 alter_user_scram_credentials v0-v0 */
    0x00, 0x3c, 0x00, 0x00, 0x00, 0x00, /* 60 describe_cluster v0-v0 */
    0x00, 0x3d, 0x00, 0x00, 0x00, 0x00, /* 61 describe_producers v0-v0 */
};

/* ApiVersions v4 (request header v2), correlation id 8 */
static const uint8_t av4_req[] = {
    0x00, 0x00, 0x00, 0x14, /* size 20 */
    0x00, 0x12, 0x00, 0x04, /* ApiVersions v4 */
    0x00, 0x00, 0x00, 0x08, /* correlation id */
    0x00, 0x04, 't',  'e',  's', 't', /* client id: never compact */
    0x00,                   /* header tags */
    0x02, 'c',  0x02, '1',  /* software name "c", version "1" */
    0x00,                   /* body tags */
};

/* Kafka 3.6 serves ApiVersions v0-v3: a v4 request is answered in v0 form */
static const uint8_t av4_resp_3_6[] = {
    0x00, 0x00, 0x00, 0x10, /* size 16 */
    0x00, 0x00, 0x00, 0x08, /* correlation id */
    0x00, 0x23,             /* error_code UNSUPPORTED_VERSION (35) */
    0x00, 0x00, 0x00, 0x01, /* one API */
    0x00, 0x12, 0x00, 0x00, 0x00, 0x03, /* ApiVersions v0-v3 */
};

/* a request header of api key, version, correlation id 9, client id "t"
 * and a few body bytes: refused before the body is decoded */
static size_t
header_only(uint8_t *p, int16_t key, int16_t ver)
{
    static const uint8_t tail[] = { 0x00, 0x00, 0x00, 0x09, 0x00, 0x01, 't',
                                    0x00, 0x00, 0x00, 0x00 };
    p[0] = p[1] = p[2] = 0;
    p[3] = (uint8_t)(4 + sizeof tail);
    p[4] = (uint8_t)(key >> 8);
    p[5] = (uint8_t)key;
    p[6] = (uint8_t)(ver >> 8);
    p[7] = (uint8_t)ver;
    memcpy(p + 8, tail, sizeof tail);
    return 8 + sizeof tail;
}

/* Everything the broker sends on fd until it has sent want bytes, or
 * closes (then fewer), within 5 s. */
static size_t
read_some(int fd, uint8_t *buf, size_t want)
{
    size_t got = 0;
    while (got < want) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        ssize_t n;
        if (poll(&pfd, 1, 5000) != 1)
            break;
        if ((n = read(fd, buf + got, want - got)) <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

static void
expect_answer(gr_brokertest_t *bt, const uint8_t *rq, size_t rqlen,
              const uint8_t *want, size_t wantlen)
{
    uint8_t got[1024];
    int fd = gr_brokertest_connect(bt);
    ck_assert_int_eq(write(fd, rq, rqlen), (ssize_t)rqlen);
    ck_assert_uint_le(wantlen, sizeof got);
    ck_assert_uint_eq(read_some(fd, got, wantlen), wantlen);
    for (size_t i = 0; i < wantlen; i++)
        ck_assert_msg(got[i] == want[i], "byte %zu: 0x%02x, wanted 0x%02x",
                      i, got[i], want[i]);
    close(fd);
}

/* The broker closes the connection on this request without an answer. */
static void
expect_closed(gr_brokertest_t *bt, int16_t key, int16_t ver)
{
    uint8_t rq[64], got[64];
    int fd = gr_brokertest_connect(bt);
    size_t n = header_only(rq, key, ver);
    ck_assert_int_eq(write(fd, rq, n), (ssize_t)n);
    ck_assert_msg(read_some(fd, got, sizeof got) == 0,
                  "api %d v%d was answered", key, ver);
    close(fd);
}

START_TEST(test_started_as_2_8)
{
    static const char *const ov[] = { "gregor.emulate.version=2.8.2", NULL };
    gr_brokertest_t bt;
    gr_brokertest_start(&bt, ov);
    expect_answer(&bt, av0_req, sizeof av0_req, av0_resp_2_8,
                  sizeof av0_resp_2_8);
    expect_closed(&bt, GR_API_FETCH, 13);        /* 2.8: Fetch v0-v12 */
    expect_closed(&bt, GR_API_PRODUCE, 10);      /* v0-v9 */
    expect_closed(&bt, GR_API_DESCRIBE_TRANSACTIONS, 0); /* from 3.0 */
    gr_brokertest_stop(&bt);
}
END_TEST

/* The decoded ApiVersions v3 answer's range of key, or false. */
static bool
advertised(gr_brokertest_t *bt, int16_t key, int16_t *min, int16_t *max)
{
    gr_api_versions_request_t rq;
    gr_api_versions_response_t *rs;
    gr_api_versions_request_init(&rq);
    rq.client_software_name = gr_str_c("test");
    rq.client_software_version = gr_str_c("1.0");
    rs = gr_brokertest_call(bt, GR_API_API_VERSIONS, 3, &rq);
    ck_assert_int_eq(rs->error_code, 0);
    for (int i = 0; i < rs->api_keys_cnt; i++) {
        if (rs->api_keys[i].api_key != key)
            continue;
        *min = rs->api_keys[i].min_version;
        *max = rs->api_keys[i].max_version;
        return true;
    }
    return false;
}

#define ck_range(bt, key, lo, hi)                                             \
    do {                                                                      \
        int16_t mn_ = -9, mx_ = -9;                                           \
        ck_assert_msg(advertised(bt, key, &mn_, &mx_), "api %d missing",      \
                      key);                                                   \
        ck_assert_msg(mn_ == (lo) && mx_ == (hi), "api %d: v%d-v%d", key,     \
                      mn_, mx_);                                              \
    } while (0)

START_TEST(test_3_6)
{
    static const char *const ov[] = { "gregor.emulate.version=3.6", NULL };
    gr_brokertest_t bt;
    int16_t mn, mx;
    gr_brokertest_start(&bt, ov);
    expect_answer(&bt, av4_req, sizeof av4_req, av4_resp_3_6,
                  sizeof av4_resp_3_6);
    ck_range(&bt, GR_API_FETCH, 0, 15);
    ck_range(&bt, GR_API_PRODUCE, 0, 9);
    ck_range(&bt, GR_API_ADD_PARTITIONS_TO_TXN, 0, 4); /* KIP-890 */
    ck_range(&bt, GR_API_API_VERSIONS, 0, 3);
    /* KIP-714 and KIP-966 came with 3.7 and 3.8; KIP-848 with 3.7 */
    ck_assert(!advertised(&bt, GR_API_LIST_CONFIG_RESOURCES, &mn, &mx));
    ck_assert(!advertised(&bt, GR_API_DESCRIBE_TOPIC_PARTITIONS, &mn, &mx));
    ck_assert(!advertised(&bt, GR_API_CONSUMER_GROUP_HEARTBEAT, &mn, &mx));
    expect_closed(&bt, GR_API_DESCRIBE_TOPIC_PARTITIONS, 0);
    expect_closed(&bt, GR_API_FETCH, 16);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_4_0_minimums)
{
    static const char *const ov[] = { "gregor.emulate.version=4.0", NULL };
    gr_brokertest_t bt;
    gr_brokertest_start(&bt, ov);
    /* KIP-896; Produce still advertised from 0 (KAFKA-18659) */
    ck_range(&bt, GR_API_FETCH, 4, 17);
    ck_range(&bt, GR_API_JOIN_GROUP, 2, 9);
    ck_range(&bt, GR_API_PRODUCE, 0, 12);
    ck_range(&bt, GR_API_LIST_OFFSETS, 1, 10);
    ck_range(&bt, GR_API_DESCRIBE_TOPIC_PARTITIONS, 0, 0);
    ck_range(&bt, GR_API_API_VERSIONS, 0, 4);
    expect_closed(&bt, GR_API_FETCH, 3);
    expect_closed(&bt, GR_API_JOIN_GROUP, 1);
    gr_brokertest_stop(&bt);
}
END_TEST

/* POST /v1/emulate changes what new connections are told; DELETE goes
 * back to the configuration's (none here); an unknown release is 400. */
START_TEST(test_control)
{
    static const char *const ov[] = {
        "gregor.control.listener=http://127.0.0.1:0", NULL
    };
    gr_brokertest_t bt;
    gr_buf_t out = GR_BUF_INIT;
    char err[128];
    const char *url;
    int16_t mn, mx;
    gr_brokertest_start(&bt, ov);
    url = gr_control_url(bt.b);
    ck_assert_ptr_nonnull(url);
    ck_range(&bt, GR_API_FETCH, 0, 18);
    ck_assert_int_eq(gr_ctl_http(url, "POST", "/v1/emulate",
                                 "{\"version\":\"2.8\"}", &out, err,
                                 sizeof err),
                     200);
    ck_assert_str_eq(gr_buf_cstr(&out), "{\"version\":\"2.8\"}\n");
    expect_answer(&bt, av0_req, sizeof av0_req, av0_resp_2_8,
                  sizeof av0_resp_2_8);
    out.len = 0;
    ck_assert_int_eq(gr_ctl_http(url, "POST", "/v1/emulate",
                                 "{\"version\":\"2.9\"}", &out, err,
                                 sizeof err),
                     400);
    out.len = 0;
    ck_assert_int_eq(gr_ctl_http(url, "GET", "/v1/emulate", NULL, &out, err,
                                 sizeof err),
                     200);
    ck_assert_str_eq(gr_buf_cstr(&out), "{\"version\":\"2.8\"}\n");
    out.len = 0;
    ck_assert_int_eq(gr_ctl_http(url, "DELETE", "/v1/emulate", NULL, &out,
                                 err, sizeof err),
                     200);
    ck_assert_str_eq(gr_buf_cstr(&out), "{\"version\":null}\n");
    ck_range(&bt, GR_API_FETCH, 0, 18);
    ck_assert(advertised(&bt, GR_API_DESCRIBE_TOPIC_PARTITIONS, &mn, &mx));
    gr_buf_fini(&out);
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_release_names)
{
    static const char *const names[] = { "2.8", "3.0", "3.1", "3.2", "3.3",
                                         "3.4", "3.5", "3.6", "3.7", "3.8",
                                         "3.9", "4.0", "4.1", "4.2", "4.3" };
    int n;
    const gr_api_entry_t *tab = gr_api_table(&n);
    ck_assert_ptr_nonnull(gr_api_release_find("3.6.2"));
    ck_assert_str_eq(gr_api_release_name(gr_api_release_find("3.6.2")), "3.6");
    ck_assert_ptr_null(gr_api_release_find("3.60"));
    ck_assert_ptr_null(gr_api_release_find("3.6."));
    ck_assert_ptr_null(gr_api_release_find("3.6.x"));
    ck_assert_ptr_null(gr_api_release_find("3"));
    ck_assert_ptr_null(gr_api_release_find(""));
    ck_assert_ptr_null(gr_api_release_find("2.7"));
    /* an API once there stays, and its maximum never goes down */
    for (int i = 0; i < n; i++) {
        int16_t prev = -1;
        for (size_t r = 0; r < sizeof names / sizeof names[0]; r++) {
            const gr_api_release_t *rel = gr_api_release_find(names[r]);
            int16_t mn, mx;
            ck_assert_ptr_nonnull(rel);
            if (!gr_api_release_range(rel, tab[i].key, &mn, &mx)) {
                ck_assert_msg(prev < 0, "api %d gone in %s", tab[i].key,
                              names[r]);
                continue;
            }
            ck_assert_int_le(mn, mx);
            ck_assert_msg(mx >= prev, "api %d: v%d in %s after v%d",
                          tab[i].key, mx, names[r], prev);
            prev = mx;
        }
        /* Gregor serves what 4.3 did */
        ck_assert_int_ge(gr_api_max_version(&tab[i], NULL), prev);
    }
}
END_TEST

/* Every API Gregor serves has its row: the newest release emulated
 * serves it (an API added without one vanished from every emulated
 * release's ApiVersions, as OffsetForLeaderEpoch did), and within
 * Gregor's own range. */
START_TEST(test_every_served_api_has_a_row)
{
    const gr_api_release_t *newest = gr_api_release_find("4.3");
    int n;
    const gr_api_entry_t *t = gr_api_table(&n);
    ck_assert_ptr_nonnull(newest);
    for (int i = 0; i < n; i++) {
        int16_t min, max;
        ck_assert_msg(gr_api_release_range(newest, t[i].key, &min, &max),
                      "api key %d has no row in emulate.c", (int)t[i].key);
        ck_assert_msg(min <= max && max <= t[i].max_ver,
                      "api key %d: 4.3 v%d-v%d, Gregor v%d-v%d", (int)t[i].key,
                      (int)min, (int)max, (int)t[i].min_ver, (int)t[i].max_ver);
    }
}
END_TEST

Suite *
suite_api_emulate(void)
{
    Suite *s = suite_create("api/emulate");
    TCase *tc = tcase_create("emulate");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_release_names);
    tcase_add_test(tc, test_started_as_2_8);
    tcase_add_test(tc, test_3_6);
    tcase_add_test(tc, test_4_0_minimums);
    tcase_add_test(tc, test_control);
    tcase_add_test(tc, test_every_served_api_has_a_row);
    suite_add_tcase(s, tc);
    return s;
}
