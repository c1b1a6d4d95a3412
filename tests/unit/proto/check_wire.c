/*
 * Wire primitives against byte vectors written from the protocol guide
 * (https://kafka.apache.org/protocol#protocol_types): fixed ints, varints
 * (unsigned and zigzag), strings and bytes in classic and compact form,
 * nullability, arrays, UUIDs, tagged-field sections, request and response
 * headers with their quirks.
 */
#include "proto/proto.h"
#include "proto/gen/api_keys.h"
#include "../unit.h"

#include <string.h>

static gr_writer_t
wr(uint8_t *buf, size_t n)
{
    return gr_writer_init(buf, n, NULL);
}

START_TEST(test_fixed_ints)
{
    static const uint8_t v[] = {
        0xff,                                           /* INT8 -1 */
        0x80, 0x00,                                     /* INT16 -32768 */
        0x7f, 0xff, 0xff, 0xfe,                         /* INT32 2147483646 */
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, /* INT64 256 */
        0xab, 0xcd,                                     /* UINT16 43981 */
    };
    gr_reader_t r = gr_reader_init(v, sizeof v);
    ck_assert_int_eq(gr_rd_i8(&r), -1);
    ck_assert_int_eq(gr_rd_i16(&r), -32768);
    ck_assert_int_eq(gr_rd_i32(&r), 2147483646);
    ck_assert_int_eq(gr_rd_i64(&r), 256);
    ck_assert_uint_eq(gr_rd_u16(&r), 43981);
    ck_assert_int_eq(r.err, 0);
    ck_assert_uint_eq(gr_reader_remaining(&r), 0);
    /* reading past the end is sticky */
    ck_assert_int_eq(gr_rd_i8(&r), 0);
    ck_assert_int_eq(r.err, GR_ERR_TRUNCATED);
}
END_TEST

START_TEST(test_fixed_ints_encode)
{
    uint8_t buf[15];
    static const uint8_t want[] = {0xfe, 0xff, 0xfe, 0x80, 0x00, 0x00, 0x00,
                                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                   0x2a};
    gr_writer_t w = wr(buf, sizeof buf);
    gr_wr_i8(&w, -2);
    gr_wr_i16(&w, -2);
    gr_wr_i32(&w, INT32_MIN);
    gr_wr_i64(&w, 42);
    ck_assert_int_eq(w.err, 0);
    ck_assert_mem_eq(buf, want, sizeof want);
}
END_TEST

/* UNSIGNED_VARINT: 7 bits per byte, low group first, MSB = continuation */
START_TEST(test_uvarint)
{
    static const struct {
        uint32_t v;
        uint8_t b[5];
        int n;
    } cases[] = {
        {0, {0x00}, 1},
        {1, {0x01}, 1},
        {127, {0x7f}, 1},
        {128, {0x80, 0x01}, 2},
        {300, {0xac, 0x02}, 2},
        {16383, {0xff, 0x7f}, 2},
        {16384, {0x80, 0x80, 0x01}, 3},
        {2097151, {0xff, 0xff, 0x7f}, 3},
        {2097152, {0x80, 0x80, 0x80, 0x01}, 4},
        {UINT32_MAX, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t buf[5];
        gr_writer_t w = wr(buf, sizeof buf);
        gr_reader_t r = gr_reader_init(cases[i].b, (size_t)cases[i].n);
        gr_wr_uvarint(&w, cases[i].v);
        ck_assert_int_eq((int)(w.p - buf), cases[i].n);
        ck_assert_mem_eq(buf, cases[i].b, (size_t)cases[i].n);
        ck_assert_uint_eq(gr_sz_uvarint(cases[i].v), (size_t)cases[i].n);
        ck_assert_uint_eq(gr_rd_uvarint(&r), cases[i].v);
        ck_assert_int_eq(r.err, 0);
        /* with bytes after it (the inline short forms read ahead) */
        {
            uint8_t pad[12];
            gr_reader_t q;
            memset(pad, 0xaa, sizeof pad);
            memcpy(pad, cases[i].b, (size_t)cases[i].n);
            q = gr_reader_init(pad, sizeof pad);
            ck_assert_uint_eq(gr_rd_uvarint(&q), cases[i].v);
            ck_assert_int_eq((int)(q.p - pad), cases[i].n);
            q = gr_reader_init(pad, sizeof pad);
            ck_assert_uint_eq(gr_rd_uvarlong(&q), cases[i].v);
            ck_assert_int_eq((int)(q.p - pad), cases[i].n);
            ck_assert_int_eq(q.err, 0);
        }
    }
}
END_TEST

START_TEST(test_uvarint_malformed)
{
    /* six bytes with continuation bits: too long for 32 bits */
    static const uint8_t too_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    /* fifth byte carries bits above 32 */
    static const uint8_t overflow[] = {0xff, 0xff, 0xff, 0xff, 0x1f};
    static const uint8_t cut[] = {0x80};
    gr_reader_t r = gr_reader_init(too_long, sizeof too_long);
    gr_rd_uvarint(&r);
    ck_assert_int_eq(r.err, GR_ERR_INVALID);
    r = gr_reader_init(overflow, sizeof overflow);
    gr_rd_uvarint(&r);
    ck_assert_int_eq(r.err, GR_ERR_INVALID);
    r = gr_reader_init(cut, sizeof cut);
    gr_rd_uvarint(&r);
    ck_assert_int_eq(r.err, GR_ERR_TRUNCATED);
}
END_TEST

/* VARINT/VARLONG: zigzag, (n << 1) ^ (n >> 31) */
START_TEST(test_zigzag)
{
    static const struct {
        int64_t v;
        uint8_t b[10];
        int n;
    } cases[] = {
        {0, {0x00}, 1},
        {-1, {0x01}, 1},
        {1, {0x02}, 1},
        {-2, {0x03}, 1},
        {63, {0x7e}, 1},
        {-64, {0x7f}, 1},
        {64, {0x80, 0x01}, 2},
        {INT32_MAX, {0xfe, 0xff, 0xff, 0xff, 0x0f}, 5},
        {INT32_MIN, {0xff, 0xff, 0xff, 0xff, 0x0f}, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t buf[10];
        gr_writer_t w = wr(buf, sizeof buf);
        gr_reader_t r = gr_reader_init(cases[i].b, (size_t)cases[i].n);
        gr_wr_varint(&w, (int32_t)cases[i].v);
        ck_assert_int_eq((int)(w.p - buf), cases[i].n);
        ck_assert_mem_eq(buf, cases[i].b, (size_t)cases[i].n);
        ck_assert_int_eq(gr_rd_varint(&r), cases[i].v);
        ck_assert_uint_eq(gr_sz_varint((int32_t)cases[i].v),
                          (size_t)cases[i].n);
    }
    {
        /* varlong: INT64_MIN is ten bytes ending 0x01 */
        static const uint8_t b[] = {0xff, 0xff, 0xff, 0xff, 0xff,
                                    0xff, 0xff, 0xff, 0xff, 0x01};
        uint8_t buf[10];
        gr_writer_t w = wr(buf, sizeof buf);
        gr_reader_t r = gr_reader_init(b, sizeof b);
        gr_wr_varlong(&w, INT64_MIN);
        ck_assert_mem_eq(buf, b, sizeof b);
        ck_assert_int_eq(gr_rd_varlong(&r), INT64_MIN);
        ck_assert_int_eq(r.err, 0);
    }
}
END_TEST

START_TEST(test_strings)
{
    /* STRING: int16 length; NULLABLE_STRING -1; COMPACT_STRING: uvarint
     * length+1; COMPACT_NULLABLE_STRING: 0 is null */
    static const uint8_t classic[] = {0x00, 0x02, 'h', 'i', 0xff, 0xff};
    static const uint8_t compact[] = {0x03, 'h', 'i', 0x00, 0x01};
    gr_reader_t r = gr_reader_init(classic, sizeof classic);
    gr_str_t s;
    uint8_t buf[8];
    gr_writer_t w;

    gr_rd_str(&r, &s, 0, 0);
    ck_assert(gr_str_eq_cstr(&s, "hi"));
    gr_rd_str(&r, &s, 0, 1);
    ck_assert_int_eq(s.len, -1);
    ck_assert_int_eq(r.err, 0);

    r = gr_reader_init(compact, sizeof compact);
    gr_rd_str(&r, &s, 1, 0);
    ck_assert(gr_str_eq_cstr(&s, "hi"));
    gr_rd_str(&r, &s, 1, 1);
    ck_assert_int_eq(s.len, -1);
    gr_rd_str(&r, &s, 1, 0);
    ck_assert_int_eq(s.len, 0);
    ck_assert_int_eq(r.err, 0);

    /* null where the field is not nullable: a decode error */
    r = gr_reader_init(classic + 4, 2);
    gr_rd_str(&r, &s, 0, 0);
    ck_assert_int_eq(r.err, GR_ERR_INVALID);
    /* length beyond the buffer */
    r = gr_reader_init(classic, 3);
    gr_rd_str(&r, &s, 0, 0);
    ck_assert_int_eq(r.err, GR_ERR_TRUNCATED);

    /* a compact string of 32767 bytes is read, one of 32768 is refused
     * (Kafka's readers: "had invalid length"); compact bytes may be
     * longer */
    {
        static uint8_t big[3 + 32768];
        gr_bytes_t b;
        big[0] = 0x80; /* uvarint 32768 = 32767 + 1 */
        big[1] = 0x80;
        big[2] = 0x02;
        r = gr_reader_init(big, 3 + 32767);
        gr_rd_str(&r, &s, 1, 0);
        ck_assert_int_eq(r.err, 0);
        ck_assert_int_eq(s.len, 32767);
        big[0] = 0x81; /* 32769 = 32768 + 1 */
        r = gr_reader_init(big, sizeof big);
        gr_rd_str(&r, &s, 1, 0);
        ck_assert_int_eq(r.err, GR_ERR_INVALID);
        r = gr_reader_init(big, sizeof big);
        gr_rd_bytes(&r, &b, 1, 0);
        ck_assert_int_eq(r.err, 0);
        ck_assert_int_eq(b.len, 32768);
    }

    w = wr(buf, sizeof buf);
    s = gr_str_c("hi");
    gr_wr_str(&w, &s, 1, 0);
    s = GR_STR_NULL;
    gr_wr_str(&w, &s, 1, 1);
    gr_wr_str(&w, &s, 1, 0); /* null where not allowed goes out empty */
    ck_assert_int_eq((int)(w.p - buf), 5);
    ck_assert_mem_eq(buf, compact, 5);
}
END_TEST

START_TEST(test_bytes_and_arrays)
{
    /* BYTES int32 length; COMPACT_BYTES uvarint+1; ARRAY int32 count (-1
     * null); COMPACT_ARRAY uvarint count+1 (0 null) */
    static const uint8_t v[] = {0x00, 0x00, 0x00, 0x01, 0xaa, 0x02, 0xbb,
                                0xff, 0xff, 0xff, 0xff, 0x00, 0x03};
    gr_reader_t r = gr_reader_init(v, sizeof v);
    gr_bytes_t b;
    gr_rd_bytes(&r, &b, 0, 0);
    ck_assert_int_eq(b.len, 1);
    ck_assert_uint_eq(b.ptr[0], 0xaa);
    gr_rd_bytes(&r, &b, 1, 0);
    ck_assert_int_eq(b.len, 1);
    ck_assert_uint_eq(b.ptr[0], 0xbb);
    ck_assert_int_eq(gr_rd_arraylen(&r, 0, 1, 1), -1);
    ck_assert_int_eq(gr_rd_arraylen(&r, 1, 1, 1), -1);
    /* count 2 with one byte left: impossible, refused before allocating */
    ck_assert_int_eq(gr_rd_arraylen(&r, 1, 0, 1), 0);
    ck_assert_int_eq(r.err, GR_ERR_TRUNCATED);
}
END_TEST

/* Kafka's generated readers take any negative length as null where the
 * field is nullable: a classic -2 (Metadata v1 topics of -2 lists every
 * topic, as Kafka 4.4 answers) and a compact uvarint above 2^31 (its "- 1"
 * wraps in int arithmetic); where it is not, the request fails. More than
 * 1,000,000 elements is refused as Kafka refuses it. */
START_TEST(test_negative_lengths)
{
    static const uint8_t s16[] = {0xff, 0xfe};             /* int16 -2 */
    static const uint8_t s32[] = {0xff, 0xff, 0xff, 0xfe}; /* int32 -2 */
    static const uint8_t wrap[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    static uint8_t many[4 + 1000001];
    gr_reader_t r;
    gr_str_t s;
    gr_bytes_t b;

    r = gr_reader_init(s16, sizeof s16);
    gr_rd_str(&r, &s, 0, 1);
    ck_assert_int_eq(r.err, 0);
    ck_assert_int_eq(s.len, -1);
    r = gr_reader_init(s16, sizeof s16);
    gr_rd_str(&r, &s, 0, 0);
    ck_assert_int_eq(r.err, GR_ERR_INVALID);

    r = gr_reader_init(s32, sizeof s32);
    gr_rd_bytes(&r, &b, 0, 1);
    ck_assert_int_eq(r.err, 0);
    ck_assert_int_eq(b.len, -1);
    r = gr_reader_init(s32, sizeof s32);
    ck_assert_int_eq(gr_rd_arraylen(&r, 0, 1, 1), -1);
    ck_assert_int_eq(r.err, 0);
    r = gr_reader_init(s32, sizeof s32);
    ck_assert_int_eq(gr_rd_arraylen(&r, 0, 0, 1), 0);
    ck_assert_int_eq(r.err, GR_ERR_INVALID);

    /* uvarint 2^32 - 1: length 2^32 - 2, as an int -2 */
    r = gr_reader_init(wrap, sizeof wrap);
    gr_rd_str(&r, &s, 1, 1);
    ck_assert_int_eq(r.err, 0);
    ck_assert_int_eq(s.len, -1);
    r = gr_reader_init(wrap, sizeof wrap);
    ck_assert_int_eq(gr_rd_arraylen(&r, 1, 1, 1), -1);
    r = gr_reader_init(wrap, sizeof wrap);
    gr_rd_bytes(&r, &b, 1, 0);
    ck_assert_int_eq(r.err, GR_ERR_INVALID);

    /* 1000001 one-byte elements are there, but too many */
    many[0] = 0x00;
    many[1] = 0x0f;
    many[2] = 0x42;
    many[3] = 0x41;
    r = gr_reader_init(many, sizeof many);
    ck_assert_int_eq(gr_rd_arraylen(&r, 0, 1, 1), 0);
    ck_assert_int_eq(r.err, GR_ERR_INVALID);
    many[3] = 0x40; /* 1000000: read */
    r = gr_reader_init(many, sizeof many);
    ck_assert_int_eq(gr_rd_arraylen(&r, 0, 1, 1), 1000000);
    ck_assert_int_eq(r.err, 0);
}
END_TEST

START_TEST(test_uuid)
{
    gr_uuid_t u, back;
    char s[23];
    for (int i = 0; i < 16; i++)
        u.b[i] = (uint8_t)(i * 17);
    gr_uuid_to_base64(&u, s);
    ck_assert_uint_eq(strlen(s), 22);
    ck_assert_int_eq(gr_uuid_from_base64(&back, s), 0);
    ck_assert(gr_uuid_eq(&u, &back));
    /* all zero bytes: Kafka's Uuid.ZERO_UUID prints as 22 'A's */
    memset(&u, 0, sizeof u);
    gr_uuid_to_base64(&u, s);
    ck_assert_str_eq(s, "AAAAAAAAAAAAAAAAAAAAAA");
}
END_TEST

START_TEST(test_tags_skipped)
{
    /* a tag section with two unknown tags, then one byte of payload */
    static const uint8_t v[] = {0x02, 0x05, 0x02, 0xaa, 0xbb,
                                0x80, 0x01, 0x00, 0x77};
    gr_reader_t r = gr_reader_init(v, sizeof v);
    gr_rd_skip_tags(&r);
    ck_assert_int_eq(r.err, 0);
    ck_assert_uint_eq(gr_rd_u8(&r), 0x77);
    /* a tag whose size runs past the end */
    static const uint8_t bad[] = {0x01, 0x00, 0x09, 0x01};
    r = gr_reader_init(bad, sizeof bad);
    gr_rd_skip_tags(&r);
    ck_assert_int_eq(r.err, GR_ERR_TRUNCATED);
}
END_TEST

START_TEST(test_request_headers)
{
    /* header v1: Metadata v4, correlation 7, client "ab" */
    static const uint8_t v1[] = {0x00, 0x03, 0x00, 0x04, 0x00, 0x00,
                                 0x00, 0x07, 0x00, 0x02, 'a',  'b'};
    /* header v2: ApiVersions v3 (flexible), client id still int16-sized,
     * then an empty tag section */
    static const uint8_t v2[] = {0x00, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00,
                                 0x01, 0x00, 0x01, 'x',  0x00};
    /* null client id */
    static const uint8_t vnull[] = {0x00, 0x03, 0x00, 0x00, 0x00, 0x00,
                                    0x00, 0x09, 0xff, 0xff};
    gr_req_header_t h;
    gr_reader_t r = gr_reader_init(v1, sizeof v1);
    uint8_t buf[16];
    gr_writer_t w;

    ck_assert_int_eq(gr_req_header_decode(&r, &h), 0);
    ck_assert_int_eq(h.api_key, GR_API_METADATA);
    ck_assert_int_eq(h.api_version, 4);
    ck_assert_int_eq(h.correlation_id, 7);
    ck_assert(gr_str_eq_cstr(&h.client_id, "ab"));
    ck_assert_uint_eq(gr_reader_remaining(&r), 0);
    ck_assert_uint_eq(gr_req_header_size(&h), sizeof v1);

    r = gr_reader_init(v2, sizeof v2);
    ck_assert_int_eq(gr_req_header_decode(&r, &h), 0);
    ck_assert_int_eq(h.api_key, GR_API_API_VERSIONS);
    ck_assert(gr_str_eq_cstr(&h.client_id, "x"));
    ck_assert_uint_eq(gr_reader_remaining(&r), 0);
    w = wr(buf, sizeof buf);
    gr_req_header_encode(&w, &h);
    ck_assert_int_eq((int)(w.p - buf), (int)sizeof v2);
    ck_assert_mem_eq(buf, v2, sizeof v2);

    r = gr_reader_init(vnull, sizeof vnull);
    ck_assert_int_eq(gr_req_header_decode(&r, &h), 0);
    ck_assert_int_eq(h.client_id.len, -1);
}
END_TEST

/* Records by reference (Fetch's converted answers) are not copied: the
 * writer records a splice of memory where they go, as for a file range,
 * and the buffer holds only the length before them and what follows. */
START_TEST(test_records_by_ref)
{
    static const uint8_t recs[5] = { 1, 2, 3, 4, 5 };
    uint8_t buf[4 + 2];
    gr_arena_t *a = gr_arena_new(4096);
    gr_writer_t w = gr_writer_init(buf, sizeof buf, a);
    gr_records_t r = { recs, 5, NULL, 0, true };

    gr_wr_records(&w, &r, 0, 1);
    gr_wr_i16(&w, 7);
    ck_assert_int_eq(w.err, 0);
    ck_assert_int_eq((int)(w.p - w.start), 6);
    ck_assert_int_eq(gr_get_u32(buf), 5);
    ck_assert_int_eq(gr_get_u16(buf + 4), 7);
    ck_assert_int_eq(w.splices_cnt, 1);
    ck_assert_uint_eq(w.splices[0].at, 4);
    ck_assert_ptr_null(w.splices[0].file);
    ck_assert_ptr_eq(w.splices[0].ptr, recs);
    ck_assert_int_eq(w.splices[0].len, 5);
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_header_versions)
{
    /* flexible request -> header v2 / response header v1 ... */
    ck_assert_int_eq(gr_proto_req_header_version(GR_API_METADATA, 9), 2);
    ck_assert_int_eq(gr_proto_resp_header_version(GR_API_METADATA, 9), 1);
    ck_assert_int_eq(gr_proto_req_header_version(GR_API_METADATA, 8), 1);
    ck_assert_int_eq(gr_proto_resp_header_version(GR_API_METADATA, 8), 0);
    /* ... except ApiVersions, whose response header is always v0 (KIP-511),
     * also for versions above what the broker serves */
    ck_assert_int_eq(gr_proto_req_header_version(GR_API_API_VERSIONS, 3), 2);
    ck_assert_int_eq(gr_proto_resp_header_version(GR_API_API_VERSIONS, 3), 0);
    ck_assert_int_eq(gr_proto_req_header_version(GR_API_API_VERSIONS, 9), 2);
    /* unknown keys: header v1 */
    ck_assert_int_eq(gr_proto_req_header_version(1000, 0), 1);
    {
        uint8_t buf[5];
        gr_writer_t w = wr(buf, sizeof buf);
        static const uint8_t want[] = {0x00, 0x00, 0x00, 0x05, 0x00};
        gr_resp_header_encode(&w, 1, 5);
        ck_assert_mem_eq(buf, want, 5);
        ck_assert_uint_eq(gr_resp_header_size(0), 4);
    }
}
END_TEST

Suite *
suite_proto_wire(void)
{
    Suite *s = suite_create("proto/wire");
    TCase *tc = tcase_create("wire");
    tcase_add_test(tc, test_fixed_ints);
    tcase_add_test(tc, test_records_by_ref);
    tcase_add_test(tc, test_fixed_ints_encode);
    tcase_add_test(tc, test_uvarint);
    tcase_add_test(tc, test_uvarint_malformed);
    tcase_add_test(tc, test_zigzag);
    tcase_add_test(tc, test_strings);
    tcase_add_test(tc, test_bytes_and_arrays);
    tcase_add_test(tc, test_negative_lengths);
    tcase_add_test(tc, test_uuid);
    tcase_add_test(tc, test_tags_skipped);
    tcase_add_test(tc, test_request_headers);
    tcase_add_test(tc, test_header_versions);
    suite_add_tcase(s, tc);
    return s;
}
