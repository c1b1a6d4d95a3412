/* core/regex: Java patterns (as Kafka compiles them) matched whole, as
 * Matcher.matches() does; the expectations are what java.util.regex
 * answers for the same pattern and input. */
#include "../unit.h"

#include "core/regex.h"

#include <string.h>

typedef struct {
    const char *pattern;
    const char *input;
    bool matches;
} rx_case_t;

static const rx_case_t cases[] = {
    { "app-.*", "app-1", true },
    { "app-.*", "xapp-1", false }, /* whole input, not a find */
    { "app", "app-1", false },
    { "app-\\d+", "app-123", true },
    { "app-\\d+", "app-12a", false },
    { "\\D+", "abc", true },
    { "\\w+-\\W-\\s\\S", "a_1-!- x", true },
    /* the longest translation per byte (valgrind found the buffer short) */
    { "\\S\\S\\S\\S\\S\\S\\S\\S", "abcdefgh", true },
    { "[\\w.]+", "a.b_c", true },
    { "[^\\s]+", "no-space", true },
    { "[^\\s]+", "a space", false },
    { "[\\d-]+", "1-2", true },
    { "a\\.b", "a.b", true },
    { "a\\.b", "axb", false },
    { "a.b", "axb", true },
    { "(ab|cd){2}", "abcd", true },
    { "(ab|cd){2}", "ab", false },
    { "x[\\]]y", "x]y", true },
    { "colou?r", "color", true },
    { "^anchored$", "anchored", true },
    { "", "", true },
    { "", "a", false },
};

START_TEST(test_java_subset)
{
    const rx_case_t *c = &cases[_i];
    gr_regex_t re;
    char why[128];
    gr_str_t p = gr_str_c(c->pattern);

    ck_assert_msg(gr_regex_compile(&re, &p, why, sizeof why) == 0, "%s: %s",
                  c->pattern, why);
    ck_assert_msg(gr_regex_matches(&re, c->input, strlen(c->input)) ==
                      c->matches,
                  "%s ~ %s", c->pattern, c->input);
    gr_regex_free(&re);
}
END_TEST

/* What Java accepts but POSIX cannot say is refused, never matched
 * differently; and what Java refuses is refused. */
START_TEST(test_refused)
{
    static const char *const bad[] = {
        "(?i)app", "a*?",   "a++",   "(?=x)y", "a\\", "[abc",
        "app-(",   "\\bx",  "x{2}?", "\\p{L}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gr_regex_t re;
        char why[128] = "";
        gr_str_t p = gr_str_c(bad[i]);
        ck_assert_msg(gr_regex_compile(&re, &p, why, sizeof why) != 0, "%s",
                      bad[i]);
        ck_assert_msg(why[0] != '\0', "%s: no reason", bad[i]);
    }
}
END_TEST

START_TEST(test_nul_bytes)
{
    gr_regex_t re;
    char why[128];
    gr_str_t p = gr_str_c("a.*");
    gr_str_t withnul = { "a\0b", 3 };

    ck_assert_int_eq(gr_regex_compile(&re, &p, why, sizeof why), 0);
    ck_assert(gr_regex_matches(&re, "ab", 2));
    ck_assert(!gr_regex_matches(&re, "a\0b", 3));
    gr_regex_free(&re);
    ck_assert_int_ne(gr_regex_compile(&re, &withnul, why, sizeof why), 0);
}
END_TEST

Suite *
suite_core_regex(void)
{
    Suite *s = suite_create("core/regex");
    TCase *tc = tcase_create("regex");
    tcase_add_loop_test(tc, test_java_subset, 0,
                        (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_nul_bytes);
    suite_add_tcase(s, tc);
    return s;
}
