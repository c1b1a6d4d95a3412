/*
 * Every generated message over every valid version: filled with values
 * (proto_fill.c, several seeds), encoded, decoded and encoded again; the two
 * encodings must be identical, the size function must agree, and the
 * decoder must consume exactly the encoding. Truncated encodings must fail
 * cleanly. Independent byte vectors are in check_vectors.c.
 */
#include "proto/gen/proto_table.h"
#include "proto/proto.h"
#include "proto/proto_fill.h"
#include "../unit.h"

#include <stdio.h>
#include <stdlib.h>

static int
roundtrip(const gr_proto_ops_t *ops, gr_proto_fill_fn fill, int16_t ver,
          uint32_t seed, const char *what)
{
    gr_arena_t *a = gr_arena_new(4096);
    void *m = gr_arena_zalloc(a, ops->struct_size);
    void *m2 = gr_arena_zalloc(a, ops->struct_size);
    size_t n, n2;
    uint8_t *b1, *b2;
    gr_writer_t w;
    gr_reader_t r;
    gr_buf_t pr = GR_BUF_INIT;
    int bad = 0;

    fill(m, a, seed);
    n = ops->size(m, ver);
    b1 = malloc(n + 1);
    w = gr_writer_init(b1, n, a);
    ops->encode(&w, m, ver);
    if (w.err || (size_t)(w.p - b1) != n) {
        fprintf(stderr, "%s v%d seed %u: encoded %zu of %zu\n", what, ver,
                seed, (size_t)(w.p - b1), n);
        bad = 1;
        goto out;
    }
    r = gr_reader_init(b1, n);
    if (ops->decode(&r, ver, a, m2) != 0 || gr_reader_remaining(&r) != 0) {
        fprintf(stderr, "%s v%d seed %u: decode failed (err %d, %zu left)\n",
                what, ver, seed, r.err, gr_reader_remaining(&r));
        bad = 1;
        goto out;
    }
    n2 = ops->size(m2, ver);
    b2 = malloc(n2 + 1);
    w = gr_writer_init(b2, n2, a);
    ops->encode(&w, m2, ver);
    if (n2 != n || memcmp(b1, b2, n) != 0) {
        fprintf(stderr, "%s v%d seed %u: re-encoding differs\n", what, ver,
                seed);
        bad = 1;
    }
    free(b2);
    ops->print(&pr, m2, ver);
    if (pr.len == 0 || pr.ptr[0] != '{')
        bad = 1;
    /* every strict prefix must fail to decode, without crashing (a message
     * whose fields all have defaults may decode from fewer bytes only if it
     * is empty) */
    for (size_t cut = 0; cut < n && !bad; cut++) {
        gr_reader_t rc = gr_reader_init(b1, cut);
        if (ops->decode(&rc, ver, a, m2) == 0 &&
            gr_reader_remaining(&rc) == 0 && cut != n) {
            fprintf(stderr, "%s v%d seed %u: %zu-byte prefix decoded\n", what,
                    ver, seed, cut);
            bad = 1;
        }
    }
out:
    gr_buf_fini(&pr);
    free(b1);
    gr_arena_destroy(a);
    return bad;
}

START_TEST(test_all_apis_all_versions)
{
    const gr_proto_fill_t *fills = gr_proto_fills();
    int failures = 0, checked = 0;
    for (int i = 0; fills[i].key != -2; i++) {
        const gr_proto_fill_t *f = &fills[i];
        char what[128];
        if (f->key >= 0) {
            const gr_proto_api_t *api = gr_proto_api(f->key);
            ck_assert_ptr_nonnull(api);
            for (int16_t v = api->min_ver; v <= api->max_ver; v++) {
                for (uint32_t seed = 1; seed <= 6; seed++) {
                    snprintf(what, sizeof what, "%s request", api->name);
                    failures += roundtrip(&api->request, f->request, v, seed,
                                          what);
                    snprintf(what, sizeof what, "%s response", api->name);
                    failures += roundtrip(&api->response, f->response, v,
                                          seed, what);
                    checked += 2;
                }
            }
        } else {
            const gr_proto_data_t *d = NULL;
            for (int k = 0; (d = gr_proto_data_at(k)) != NULL; k++)
                if (strcmp(d->name, f->data) == 0)
                    break;
            ck_assert_ptr_nonnull(d);
            for (int16_t v = d->min_ver; v <= d->max_ver; v++)
                for (uint32_t seed = 1; seed <= 6; seed++) {
                    failures += roundtrip(&d->ops, f->request, v, seed,
                                          d->name);
                    checked++;
                }
        }
    }
    ck_assert_int_gt(checked, 1000);
    ck_assert_int_eq(failures, 0);
}
END_TEST

START_TEST(test_table_consistent)
{
    const gr_proto_api_t *api;
    int n = 0;
    for (int i = 0; (api = gr_proto_api_at(i)) != NULL; i++) {
        ck_assert_ptr_eq(gr_proto_api(api->key), api);
        ck_assert_int_le(api->min_ver, api->stable_max);
        ck_assert_int_le(api->stable_max, api->max_ver);
        n++;
    }
    ck_assert_int_gt(n, 40);
    ck_assert_ptr_null(gr_proto_api(-1));
    ck_assert_ptr_null(gr_proto_api(32000));
}
END_TEST

/* Versions outside the valid range are refused by the decoder itself. */
START_TEST(test_version_out_of_range)
{
    const gr_proto_api_t *api = gr_proto_api(GR_API_INIT_PRODUCER_ID);
    static const uint8_t empty[] = {0};
    gr_arena_t *a = gr_arena_new(512);
    gr_init_producer_id_request_t rq;
    gr_reader_t r = gr_reader_init(empty, 0);
    ck_assert_int_ne(api->request.decode(&r, (int16_t)(api->max_ver + 1), a,
                                         &rq),
                     0);
    gr_arena_destroy(a);
}
END_TEST

Suite *
suite_proto_codec(void)
{
    Suite *s = suite_create("proto/codec");
    TCase *tc = tcase_create("codec");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_all_apis_all_versions);
    tcase_add_test(tc, test_table_consistent);
    tcase_add_test(tc, test_version_out_of_range);
    suite_add_tcase(s, tc);
    return s;
}
