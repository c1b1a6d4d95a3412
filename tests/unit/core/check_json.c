/* core/json: the parser (values, and what RFC 8259 refuses), strings
 * written as JSON, and the UTF-8 checks beneath them. */
#include "../unit.h"
#include "core/json.h"
#include "core/str.h"

#include <stdint.h>
#include <string.h>

START_TEST(test_json_values)
{
    gr_arena_t *a = gr_arena_new(4096);
    char err[128];
    const char *s = " {\"api\": \"Produce\", \"count\": -1, \"top\": true,"
                    " \"n\": null, \"e\": [1, \"x\\u00e9\\ud83d\\ude00\\n\"],"
                    " \"o\": {}, \"max\": 9223372036854775807,"
                    " \"min\": -9223372036854775808} ";
    gr_json_t *j = gr_json_parse(a, s, strlen(s), err, sizeof err);
    const gr_json_t *v;
    ck_assert_msg(j != NULL, "%s", err);
    ck_assert_int_eq(j->type, GR_JSON_OBJ);
    ck_assert_int_eq(j->n, 8);
    ck_assert_str_eq(gr_json_get(j, "api")->s, "Produce");
    ck_assert_int_eq(gr_json_get(j, "count")->i, -1);
    ck_assert(gr_json_get(j, "top")->b);
    ck_assert_int_eq(gr_json_get(j, "n")->type, GR_JSON_NULL);
    v = gr_json_get(j, "e");
    ck_assert_int_eq(v->n, 2);
    ck_assert_int_eq(v->kids[0].i, 1);
    ck_assert_str_eq(v->kids[1].s, "x\xc3\xa9\xf0\x9f\x98\x80\n");
    ck_assert_int_eq(gr_json_get(j, "o")->n, 0);
    ck_assert(gr_json_get(j, "max")->i == INT64_MAX);
    ck_assert(gr_json_get(j, "min")->i == INT64_MIN);
    ck_assert_ptr_null(gr_json_get(j, "nope"));
    ck_assert_ptr_null(gr_json_get(v, "e")); /* not an object */
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_json_refused)
{
    static const char *const bad[] = {
        "",
        "{",
        "{\"a\":1,}",
        "[1,]",
        "{'a':1}",
        "{\"a\" 1}",
        "1.5",
        "1e3",
        "01",
        "-",
        "\"\\x\"",
        "\"\\ud800\"",
        "\"\\udc00\"",
        "\"a\nb\"",
        "tru",
        "nulll",
        "{} {}",
        "9223372036854775808",
        "-9223372036854775809",
        "\"\\u12\"",
        "[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]",
    };
    char err[128];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_arena_t *a = gr_arena_new(4096);
        ck_assert_msg(
            gr_json_parse(a, bad[i], strlen(bad[i]), err, sizeof err) == NULL,
            "accepted %s", bad[i]);
        ck_assert(strstr(err, " at byte ") != NULL);
        gr_arena_destroy(a);
    }
}
END_TEST

START_TEST(test_json_strings)
{
    gr_buf_t out = GR_BUF_INIT;
    gr_json_put_str(&out, "a\"\\\x01\xc3\xa9", 6);
    ck_assert_str_eq(gr_buf_cstr(&out), "\"a\\\"\\\\\\u0001\xc3\xa9\"");
    gr_buf_reset(&out);
    /* not UTF-8: each stray byte becomes U+FFFD */
    gr_json_put_str(&out, "x\xff\xc3(", 4);
    ck_assert_str_eq(gr_buf_cstr(&out), "\"x\xef\xbf\xbd\xef\xbf\xbd(\"");
    gr_buf_fini(&out);
}
END_TEST

START_TEST(test_utf8)
{
    /* RFC 3629's edges: the last of each length, overlong forms,
     * surrogates, past U+10FFFF, truncated sequences */
    static const struct {
        const char *s;
        size_t len; /* of the first sequence, 0 if invalid */
    } v[] = {
        { "a", 1 },
        { "\x7f", 1 },
        { "\xc2\x80", 2 },
        { "\xdf\xbf", 2 },
        { "\xe0\xa0\x80", 3 },
        { "\xed\x9f\xbf", 3 },   /* U+D7FF */
        { "\xee\x80\x80", 3 },   /* U+E000 */
        { "\xf0\x90\x80\x80", 4 },
        { "\xf4\x8f\xbf\xbf", 4 }, /* U+10FFFF */
        { "\x80", 0 },
        { "\xc0\x80", 0 },        /* overlong NUL */
        { "\xc1\xbf", 0 },
        { "\xe0\x9f\xbf", 0 },   /* overlong */
        { "\xed\xa0\x80", 0 },   /* U+D800 */
        { "\xed\xbf\xbf", 0 },   /* U+DFFF */
        { "\xf0\x8f\xbf\xbf", 0 },
        { "\xf4\x90\x80\x80", 0 }, /* U+110000 */
        { "\xf5\x80\x80\x80", 0 },
        { "\xff", 0 },
        { "\xe2\x82", 0 },        /* truncated */
        { "\xc3(", 0 },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t n = strlen(v[i].s);
        ck_assert_msg(gr_utf8_len(v[i].s, n) == v[i].len, "case %zu", i);
        ck_assert_msg(gr_utf8_valid(v[i].s, n) == (v[i].len == n),
                      "case %zu", i);
    }
    ck_assert(gr_utf8_valid("", 0));
    ck_assert(gr_utf8_valid("x\xc3\xa9\xf0\x9f\x98\x80", 7));
    ck_assert(!gr_utf8_valid("x\xc3\xa9\xf0\x9f\x98", 6));
}
END_TEST

START_TEST(test_json_strings_escapes)
{
    gr_buf_t out = GR_BUF_INIT;
    /* every escape JSON names, the other controls as \u00XX, DEL and
     * what is valid beyond ASCII as they are; a NUL inside counts */
    gr_json_put_str(&out, "\b\f\n\r\t\x1f\x7f\0\xe2\x82\xac", 11);
    ck_assert_str_eq(gr_buf_cstr(&out),
                     "\"\\b\\f\\n\\r\\t\\u001f\x7f\\u0000\xe2\x82\xac\"");
    gr_buf_reset(&out);
    /* a surrogate written as UTF-8 and a truncated sequence at the end:
     * one U+FFFD per byte that starts no sequence */
    gr_json_put_str(&out, "\xed\xa0\x80z\xe2\x82", 6);
    ck_assert_str_eq(gr_buf_cstr(&out),
                     "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz"
                     "\xef\xbf\xbd\xef\xbf\xbd\"");
    gr_buf_fini(&out);
}
END_TEST

Suite *
suite_core_json(void)
{
    Suite *s = suite_create("core/json");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, test_json_values);
    tcase_add_test(tc, test_json_refused);
    tcase_add_test(tc, test_json_strings);
    tcase_add_test(tc, test_json_strings_escapes);
    tcase_add_test(tc, test_utf8);
    suite_add_tcase(s, tc);
    return s;
}
