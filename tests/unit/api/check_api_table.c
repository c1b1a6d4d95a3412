/*
 * The served API table: sorted, unique, inside the codec's valid range,
 * never advertising an unstable latest version, and every advertised
 * (api, version) pair covered by a codec test (check_codec.c runs each
 * schema's whole valid range, so being inside it is that coverage).
 */
#include "api/dispatch.h"
#include "proto/gen/proto_table.h"
#include "../unit.h"

START_TEST(test_table_within_codecs)
{
    int n;
    const gr_api_entry_t *t = gr_api_table(&n);
    ck_assert_int_gt(n, 0);
    for (int i = 0; i < n; i++) {
        const gr_proto_api_t *api = gr_proto_api(t[i].key);
        ck_assert_ptr_nonnull(api);
        ck_assert_ptr_nonnull(t[i].handler);
        ck_assert_int_ge(t[i].min_ver, api->min_ver);
        ck_assert_int_le(t[i].max_ver, api->stable_max);
        ck_assert_int_le(t[i].min_ver, t[i].max_ver);
        if (i > 0)
            ck_assert_int_lt(t[i - 1].key, t[i].key);
        ck_assert_ptr_eq(gr_api_find(t[i].key), &t[i]);
    }
}
END_TEST

/* The project's rule: every valid version is served. */
START_TEST(test_full_ranges)
{
    int n;
    const gr_api_entry_t *t = gr_api_table(&n);
    for (int i = 0; i < n; i++) {
        const gr_proto_api_t *api = gr_proto_api(t[i].key);
        ck_assert_msg(t[i].min_ver == api->min_ver &&
                          t[i].max_ver == api->stable_max,
                      "%s serves v%d-%d of v%d-%d", api->name, t[i].min_ver,
                      t[i].max_ver, api->min_ver, api->stable_max);
    }
}
END_TEST

Suite *
suite_api_table(void)
{
    Suite *s = suite_create("api/table");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, test_table_within_codecs);
    tcase_add_test(tc, test_full_ranges);
    suite_add_tcase(s, tc);
    return s;
}
