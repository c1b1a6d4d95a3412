/* core/str: gr_str_repeats against comparing every pair. */
#include "../unit.h"
#include "core/str.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int pad;
    gr_str_t key; /* a field inside larger elements, as in requests */
    double more;
} elem_t;

START_TEST(test_repeats_fixed)
{
    gr_arena_t *a = gr_arena_new(4096);
    elem_t e[7];
    bool *dup;

    memset(e, 0, sizeof e);
    e[0].key = GR_STR("a");
    e[1].key = GR_STR("ab");
    e[2].key = GR_STR_NULL; /* null: never a repeat */
    e[3].key = GR_STR("a");
    e[4].key = GR_STR_NULL;
    e[5].key = GR_STR(""); /* empty: one, not repeated */
    e[6].key = GR_STR("b");
    dup = gr_str_repeats(a, &e[0].key, sizeof(e[0]), 7);
    ck_assert_ptr_nonnull(dup);
    ck_assert(dup[0] && !dup[1] && !dup[2] && dup[3] && !dup[4] && !dup[5] &&
              !dup[6]);
    /* the same length and first bytes, one byte apart at the end */
    e[1].key = GR_STR("ax");
    e[6].key = GR_STR("ay");
    dup = gr_str_repeats(a, &e[0].key, sizeof(e[0]), 7);
    ck_assert(!dup[1] && !dup[6]);
    e[5].key = GR_STR("");
    e[4].key = GR_STR("");
    dup = gr_str_repeats(a, &e[0].key, sizeof(e[0]), 7);
    ck_assert(dup[4] && dup[5] && !dup[2]);
    ck_assert_ptr_nonnull(gr_str_repeats(a, NULL, sizeof(e[0]), 0));
    gr_arena_destroy(a);
}
END_TEST

START_TEST(test_repeats_random)
{
    enum { N = 600 };
    gr_arena_t *a = gr_arena_new(1 << 16);
    static char text[N][8];
    gr_str_t keys[N];
    unsigned seed = 12345;

    for (int round = 0; round < 20; round++) {
        bool *dup;
        for (int i = 0; i < N; i++) {
            seed = seed * 1103515245u + 12345u;
            /* few short keys (many repeats) in some rounds, more in others */
            int v = (int)((seed >> 8) % (unsigned)(round % 2 ? 2000 : 300));
            int len = snprintf(text[i], sizeof text[i], "%d", v);
            keys[i] = v % 97 == 0 ? GR_STR_NULL : (gr_str_t){ text[i], len };
        }
        dup = gr_str_repeats(a, keys, sizeof(keys[0]), N);
        ck_assert_ptr_nonnull(dup);
        for (int i = 0; i < N; i++) {
            bool want = false;
            for (int k = 0; k < N && !want; k++)
                want =
                    k != i && keys[i].len >= 0 && gr_str_eq(&keys[i], &keys[k]);
            ck_assert_msg(dup[i] == want, "round %d key %d", round, i);
        }
        gr_arena_reset(a);
    }
    gr_arena_destroy(a);
}
END_TEST

/* FNV-1a's published 32-bit vectors; the partition is hashed as its four
 * bytes, least significant first, after the name. */
START_TEST(test_hash)
{
    const uint8_t le7[] = { 'a', 7, 0, 0, 0 };
    ck_assert_uint_eq(gr_hash("", 0), 0x811c9dc5u);
    ck_assert_uint_eq(gr_hash("a", 1), 0xe40c292cu);
    ck_assert_uint_eq(gr_hash("foobar", 6), 0xbf9cf968u);
    ck_assert_uint_eq(gr_hash_tp("a", 1, 7), gr_hash(le7, sizeof le7));
    ck_assert_uint_ne(gr_hash_tp("a", 1, 7), gr_hash_tp("a", 1, 7 << 8));
}
END_TEST

Suite *
suite_core_str(void)
{
    Suite *s = suite_create("core/str");
    TCase *tc = tcase_create("str");
    tcase_add_test(tc, test_repeats_fixed);
    tcase_add_test(tc, test_repeats_random);
    tcase_add_test(tc, test_hash);
    suite_add_tcase(s, tc);
    return s;
}
