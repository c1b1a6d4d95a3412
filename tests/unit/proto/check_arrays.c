/*
 * Decoded array counts against the bytes left (src/proto/wire.c
 * gr_rd_arraylen, with the smallest encoding of an element that
 * protocol/gen/gen.py computes per version): an array whose elements all
 * take their smallest encoding decodes from exactly that many bytes, and a
 * count the bytes left cannot hold fails before count elements are
 * allocated. Vectors written from the Kafka protocol guide.
 */
#include "../unit.h"
#include "proto/gen/proto_table.h"

#include <stdlib.h>
#include <string.h>

/* Metadata v1 request: topics ARRAY of {name STRING}; an empty name is
 * the smallest element, INT16 length 0: 2 bytes. */
START_TEST(test_metadata_v1_smallest)
{
    static const uint8_t three[] = {
        0x00, 0x00, 0x00, 0x03, /* topics: ARRAY count 3 */
        0x00, 0x00,             /* name "" */
        0x00, 0x00,             /* name "" */
        0x00, 0x00,             /* name "" */
    };
    static const uint8_t four[] = {
        0x00, 0x00, 0x00, 0x04, /* count 4: 8 bytes needed, 6 left */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    gr_arena_t *a = gr_arena_new(512);
    gr_metadata_request_t rq;
    gr_reader_t r = gr_reader_init(three, sizeof three);

    ck_assert_int_eq(gr_metadata_request_decode(&r, 1, a, &rq), 0);
    ck_assert_int_eq(rq.topics_cnt, 3);
    ck_assert_int_eq(rq.topics[2].name.len, 0);
    ck_assert_uint_eq(gr_reader_remaining(&r), 0);

    /* one byte per element would let 4 through (4 <= 6) */
    r = gr_reader_init(four, sizeof four);
    ck_assert_int_eq(gr_metadata_request_decode(&r, 1, a, &rq),
                     GR_ERR_TRUNCATED);
    gr_arena_destroy(a);
}
END_TEST

/* Metadata v10 request: topics COMPACT_ARRAY of {topic_id UUID, name
 * COMPACT_NULLABLE_STRING, tags}: 16 + 1 + 1 = 18 bytes at the smallest;
 * then allow_auto_topic_creation, include_cluster_authorized_operations
 * (v8-v10), include_topic_authorized_operations and the message's tags (4
 * bytes). */
START_TEST(test_metadata_v10_smallest)
{
    uint8_t buf[1 + 2 * 18 + 4];
    gr_arena_t *a = gr_arena_new(512);
    gr_metadata_request_t rq;
    gr_reader_t r;

    memset(buf, 0, sizeof buf);
    buf[0] = 0x03; /* count 2 (uvarint count + 1) */
    /* each topic: zero id, null name (0x00), no tags (0x00) */
    buf[sizeof buf - 4] = 0x01; /* allow_auto_topic_creation */
    r = gr_reader_init(buf, sizeof buf);
    ck_assert_int_eq(gr_metadata_request_decode(&r, 10, a, &rq), 0);
    ck_assert_int_eq(rq.topics_cnt, 2);
    ck_assert_int_eq(rq.topics[1].name.len, -1);
    ck_assert(rq.allow_auto_topic_creation);

    /* count 3 over the same 40 bytes: 54 needed */
    buf[0] = 0x04;
    r = gr_reader_init(buf, sizeof buf);
    ck_assert_int_eq(gr_metadata_request_decode(&r, 10, a, &rq),
                     GR_ERR_TRUNCATED);
    gr_arena_destroy(a);
}
END_TEST

/* A count of a million topics over a million bytes: Kafka's one byte per
 * element allows it, and allocating the elements first would take 32 MB
 * of the request's arena before the first of them fails; 18 bytes per
 * element refuses it at once. */
START_TEST(test_count_refused_before_allocating)
{
    size_t len = 3 + 1000000;
    uint8_t *buf = calloc(1, len);
    gr_arena_t *a = gr_arena_new(4096);
    gr_metadata_request_t rq;
    gr_reader_t r;
    size_t before;

    ck_assert_ptr_nonnull(buf);
    /* uvarint 1000001 = count 1000000 */
    buf[0] = 0xc1;
    buf[1] = 0x84;
    buf[2] = 0x3d;
    before = gr_arena_footprint(a);
    r = gr_reader_init(buf, len);
    ck_assert_int_eq(gr_metadata_request_decode(&r, 12, a, &rq),
                     GR_ERR_TRUNCATED);
    ck_assert_uint_lt(gr_arena_footprint(a), before + 65536);
    gr_arena_destroy(a);
    free(buf);
}
END_TEST

/* DescribeConfigs: resources of {resource_type INT8, resource_name
 * STRING, configuration_keys nullable ARRAY}: 1 + 2 + 4 = 7 bytes in
 * v0-v3, 1 + 1 + 1 + tags 1 = 4 in v4 (compact). */
START_TEST(test_describe_configs_smallest)
{
    static const uint8_t v0[] = {
        0x00, 0x00, 0x00, 0x01, /* resources: count 1 */
        0x02,                   /* resource_type TOPIC */
        0x00, 0x00,             /* resource_name "" */
        0xff, 0xff, 0xff, 0xff, /* configuration_keys: null */
    };
    static const uint8_t v4[] = {
        0x02,       /* resources: count 1 */
        0x02,       /* resource_type TOPIC */
        0x01,       /* resource_name "" */
        0x00,       /* configuration_keys: null */
        0x00,       /* resource tags */
        0x00, 0x00, /* include_synonyms, include_documentation */
        0x00,       /* tags */
    };
    static const uint8_t v4_two[] = {
        0x03,                   /* count 2: 8 bytes needed, 7 left */
        0x02, 0x01, 0x00, 0x00, /* one resource */
        0x00, 0x00, 0x00,
    };
    gr_arena_t *a = gr_arena_new(512);
    gr_describe_configs_request_t rq;
    gr_reader_t r = gr_reader_init(v0, sizeof v0);

    ck_assert_int_eq(gr_describe_configs_request_decode(&r, 0, a, &rq), 0);
    ck_assert_int_eq(rq.resources_cnt, 1);
    ck_assert_int_eq(rq.resources[0].resource_type, 2);
    ck_assert_int_eq(rq.resources[0].configuration_keys_cnt, -1);
    ck_assert_uint_eq(gr_reader_remaining(&r), 0);

    r = gr_reader_init(v4, sizeof v4);
    ck_assert_int_eq(gr_describe_configs_request_decode(&r, 4, a, &rq), 0);
    ck_assert_int_eq(rq.resources_cnt, 1);
    ck_assert_int_eq(rq.resources[0].resource_name.len, 0);
    ck_assert_int_eq(rq.resources[0].configuration_keys_cnt, -1);
    ck_assert_uint_eq(gr_reader_remaining(&r), 0);

    r = gr_reader_init(v4_two, sizeof v4_two);
    ck_assert_int_eq(gr_describe_configs_request_decode(&r, 4, a, &rq),
                     GR_ERR_TRUNCATED);
    gr_arena_destroy(a);
}
END_TEST

/* An array of INT32 takes 4 bytes an element: DescribeLogDirs v0 topics
 * of {topic STRING, partitions ARRAY of INT32}. */
START_TEST(test_int32_elements)
{
    static const uint8_t two[] = {
        0x00, 0x00, 0x00, 0x01, /* topics: count 1 */
        0x00, 0x01, 't',        /* topic "t" */
        0x00, 0x00, 0x00, 0x02, /* partitions: count 2 */
        0x00, 0x00, 0x00, 0x00, /* 0 */
        0x00, 0x00, 0x00, 0x07, /* 7 */
    };
    uint8_t three[sizeof two];
    gr_arena_t *a = gr_arena_new(512);
    gr_describe_log_dirs_request_t rq;
    gr_reader_t r = gr_reader_init(two, sizeof two);

    ck_assert_int_eq(gr_describe_log_dirs_request_decode(&r, 0, a, &rq), 0);
    ck_assert_int_eq(rq.topics[0].partitions_cnt, 2);
    ck_assert_int_eq(rq.topics[0].partitions[1], 7);

    memcpy(three, two, sizeof two);
    three[10] = 0x03; /* 12 bytes needed, 8 left */
    r = gr_reader_init(three, sizeof three);
    ck_assert_int_eq(gr_describe_log_dirs_request_decode(&r, 0, a, &rq),
                     GR_ERR_TRUNCATED);
    gr_arena_destroy(a);
}
END_TEST

/* The arrays a decode makes are bounded by the reader's mem_left (the
 * dispatcher sets socket.request.max.bytes): DescribeConfigs v4 with
 * 100,000 empty configuration keys (one byte each on the wire, a 16-byte
 * gr_str_t each decoded) fits 2 MB, not 1 MB; what is left is given back
 * for the next arrays. */
START_TEST(test_decode_memory_bounded)
{
    size_t n = 100000, len = 1 + 1 + 2 + 3 + n + 1 + 3;
    uint8_t *buf = calloc(1, len), *p = buf;
    gr_arena_t *a = gr_arena_new(4096);
    gr_describe_configs_request_t rq;
    gr_reader_t r;

    ck_assert_ptr_nonnull(buf);
    *p++ = 0x02; /* resources: count 1 */
    *p++ = 0x04; /* resource_type BROKER */
    *p++ = 0x02; /* resource_name "1" */
    *p++ = '1';
    *p++ = 0xa1; /* configuration_keys: uvarint 100001 = count 100000 */
    *p++ = 0x8d;
    *p++ = 0x06;
    memset(p, 0x01, n); /* each key "" (compact length 0 + 1) */
    p += n;
    *p++ = 0x00; /* the resource's tags */
    *p++ = 0x00; /* include_synonyms */
    *p++ = 0x00; /* include_documentation */
    *p++ = 0x00; /* tags */
    ck_assert_uint_eq((size_t)(p - buf), len);

    r = gr_reader_init(buf, len);
    r.mem_left = 1 << 20;
    ck_assert_int_eq(gr_describe_configs_request_decode(&r, 4, a, &rq),
                     GR_ERR_TOO_LARGE);

    r = gr_reader_init(buf, len);
    r.mem_left = 2 << 20;
    ck_assert_int_eq(gr_describe_configs_request_decode(&r, 4, a, &rq), 0);
    ck_assert_int_eq(rq.resources[0].configuration_keys_cnt, 100000);
    ck_assert_uint_eq(r.mem_left, (2u << 20) - sizeof(rq.resources[0]) -
                                      n * sizeof(gr_str_t));
    gr_arena_destroy(a);
    free(buf);
}
END_TEST

Suite *
suite_proto_arrays(void)
{
    Suite *s = suite_create("proto/arrays");
    TCase *tc = tcase_create("arrays");
    tcase_add_test(tc, test_metadata_v1_smallest);
    tcase_add_test(tc, test_metadata_v10_smallest);
    tcase_add_test(tc, test_count_refused_before_allocating);
    tcase_add_test(tc, test_describe_configs_smallest);
    tcase_add_test(tc, test_int32_elements);
    tcase_add_test(tc, test_decode_memory_bounded);
    suite_add_tcase(s, tc);
    return s;
}
