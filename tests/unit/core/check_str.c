/* core/str: gr_str_repeats against comparing every pair; base64 against
 * RFC 4648's vectors; topic ids as Kafka prints them. */
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

/* gr_str_cmp: memcmp's byte order, a prefix first, null before empty */
START_TEST(test_str_cmp)
{
    const gr_str_t in[] = { GR_STR_NULL, GR_STR(""), GR_STR("a"),
                            GR_STR("ab"), GR_STR("b"), GR_STR("\xff") };
    const size_t n = sizeof in / sizeof in[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int c = gr_str_cmp(&in[i], &in[j]);
            ck_assert_msg(i < j ? c < 0 : i > j ? c > 0 : c == 0,
                          "%zu vs %zu: %d", i, j, c);
        }
}
END_TEST

/* --- base64 */

/* RFC 4648 section 10 */
static const struct {
    const char *bytes, *b64;
} rfc4648[] = {
    { "", "" },         { "f", "Zg==" },         { "fo", "Zm8=" },
    { "foo", "Zm9v" },  { "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
    { "foobar", "Zm9vYmFy" },
};

START_TEST(test_base64_rfc4648)
{
    for (size_t i = 0; i < sizeof rfc4648 / sizeof rfc4648[0]; i++) {
        const char *b = rfc4648[i].bytes, *t = rfc4648[i].b64;
        size_t bl = strlen(b), tl = strlen(t), bare = tl;
        char enc[16];
        uint8_t dec[16];
        while (bare > 0 && t[bare - 1] == '=')
            bare--;
        /* encoded: padded, and without the padding */
        ck_assert_uint_eq(gr_base64_encode_as((const uint8_t *)b, bl, enc, 0),
                          tl);
        ck_assert_str_eq(enc, t);
        ck_assert_uint_eq(gr_base64_encode_as((const uint8_t *)b, bl, enc,
                                              GR_BASE64_URL),
                          tl);
        ck_assert_str_eq(enc, t);
        ck_assert_uint_eq(gr_base64_encode_as((const uint8_t *)b, bl, enc,
                                              GR_BASE64_URL | GR_BASE64_NOPAD),
                          bare);
        ck_assert(strncmp(enc, t, bare) == 0 && enc[bare] == '\0');
        /* decoded: padded by both; unpadded only where padding may be
         * left out */
        memset(dec, 0xee, sizeof dec);
        ck_assert_int_eq(gr_base64_decode(t, tl, dec), (long)bl);
        ck_assert(memcmp(dec, b, bl) == 0 && dec[bl] == 0xee);
        ck_assert_int_eq(gr_base64url_decode(t, tl, dec), (long)bl);
        ck_assert(memcmp(dec, b, bl) == 0);
        ck_assert_int_eq(gr_base64url_decode(t, bare, dec), (long)bl);
        ck_assert(memcmp(dec, b, bl) == 0);
        ck_assert_int_eq(gr_base64_decode_as(t, bare, dec, GR_BASE64_NOPAD),
                         (long)bl);
        ck_assert_int_eq(gr_base64_decode(t, bare, dec),
                         bare == tl ? (long)bl : -1);
    }
}
END_TEST

START_TEST(test_base64_alphabets)
{
    static const uint8_t b[] = { 0xfb, 0xff, 0xbf };
    char enc[8];
    uint8_t dec[8];
    /* 111110 111111 111110 111111: 62 63 62 63 */
    gr_base64_encode(b, 3, enc);
    ck_assert_str_eq(enc, "+/+/");
    gr_base64_encode_as(b, 3, enc, GR_BASE64_URL);
    ck_assert_str_eq(enc, "-_-_");
    gr_base64_encode_as(b, 2, enc, GR_BASE64_URL);
    ck_assert_str_eq(enc, "-_8=");
    gr_base64_encode_as(b, 2, enc, GR_BASE64_URL | GR_BASE64_NOPAD);
    ck_assert_str_eq(enc, "-_8");
    ck_assert_int_eq(gr_base64_decode("+/+/", 4, dec), 3);
    ck_assert(memcmp(dec, b, 3) == 0);
    ck_assert_int_eq(gr_base64url_decode("-_-_", 4, dec), 3);
    ck_assert(memcmp(dec, b, 3) == 0);
    ck_assert_int_eq(gr_base64url_decode("-_8", 3, dec), 2);
    ck_assert(dec[0] == 0xfb && dec[1] == 0xff);
    /* each alphabet refuses the other's two characters */
    ck_assert_int_eq(gr_base64_decode("-_-_", 4, dec), -1);
    ck_assert_int_eq(gr_base64_decode("+/8-", 4, dec), -1);
    ck_assert_int_eq(gr_base64url_decode("+/+/", 4, dec), -1);
    ck_assert_int_eq(gr_base64url_decode("-_8/", 4, dec), -1);
    ck_assert_int_eq(gr_base64_value('+', 0), 62);
    ck_assert_int_eq(gr_base64_value('/', 0), 63);
    ck_assert_int_eq(gr_base64_value('-', GR_BASE64_URL), 62);
    ck_assert_int_eq(gr_base64_value('_', GR_BASE64_URL), 63);
    ck_assert_int_eq(gr_base64_value('-', 0), -1);
    ck_assert_int_eq(gr_base64_value('+', GR_BASE64_URL), -1);
    ck_assert_int_eq(gr_base64_value('=', 0), -1);
    ck_assert_int_eq(gr_base64_value(0xc3, 0), -1);
}
END_TEST

START_TEST(test_base64_invalid)
{
    /* refused by every variant */
    static const char *const bad[] = {
        "Z",        /* a lone character: 6 bits, not a byte */
        "Zm9vY",    /* the same after a whole group */
        "Zg=",      /* two characters take two '=' */
        "Zm8==",    /* three take one */
        "Zm9v=",    /* a whole group takes none */
        "Zg===",    /* never three */
        "====",     /* padding alone */
        "Zm9v====", /* padding after a whole group */
        "=Zg=",     /* '=' but at the end */
        "Zm=v",     /* likewise */
        "Zm9v\n",   /* no white space */
        " Zm9v",    /* likewise */
        "Zm9\xc3\xa9", /* no byte above 0x7f */
    };
    uint8_t dec[16];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t n = strlen(bad[i]);
        ck_assert_msg(gr_base64_decode(bad[i], n, dec) == -1, "std %zu", i);
        ck_assert_msg(gr_base64url_decode(bad[i], n, dec) == -1, "url %zu", i);
    }
    /* a NUL inside is a character like any other */
    ck_assert_int_eq(gr_base64_decode("Zm\0v", 4, dec), -1);
    ck_assert_int_eq(gr_base64url_decode("Zm\0v", 4, dec), -1);
    /* the padding SCRAM requires; base64url may leave it out */
    ck_assert_int_eq(gr_base64_decode("Zg", 2, dec), -1);
    ck_assert_int_eq(gr_base64_decode("Zm8", 3, dec), -1);
    ck_assert_int_eq(gr_base64url_decode("Zm8", 3, dec), 2);
    /* the bits the last character has over are not looked at ("Zh" is
     * "Zg" but for them), as Java's decoders */
    ck_assert_int_eq(gr_base64_decode("Zh==", 4, dec), 1);
    ck_assert_int_eq(dec[0], 'f');
    ck_assert_int_eq(gr_base64url_decode("Zh", 2, dec), 1);
    ck_assert_int_eq(dec[0], 'f');
}
END_TEST

/* Kafka's Uuid.toString(): base64url of the 16 bytes, no padding */
START_TEST(test_uuid_base64)
{
    gr_uuid_t u, v;
    char s[23];
    for (int i = 0; i < 16; i++)
        u.b[i] = (uint8_t)(0xf0 + i);
    gr_uuid_to_base64(&u, s);
    ck_assert_str_eq(s, "8PHy8_T19vf4-fr7_P3-_w");
    ck_assert_int_eq(gr_uuid_from_base64(&v, s), 0);
    ck_assert(gr_uuid_eq(&u, &v));
    ck_assert_int_eq(gr_uuid_from_base64(&v, "8PHy8_T19vf4-fr7_P3-_"), -1);
    ck_assert_int_eq(gr_uuid_from_base64(&v, "8PHy8_T19vf4-fr7_P3-_wA"), -1);
    ck_assert_int_eq(gr_uuid_from_base64(&v, "8PHy8/T19vf4+fr7/P3+/w"), -1);
    ck_assert_int_eq(gr_uuid_from_base64(&v, "8PHy8_T19vf4-fr7_P3-w="), -1);
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
    tcase_add_test(tc, test_str_cmp);
    tcase_add_test(tc, test_base64_rfc4648);
    tcase_add_test(tc, test_base64_alphabets);
    tcase_add_test(tc, test_base64_invalid);
    tcase_add_test(tc, test_uuid_base64);
    suite_add_tcase(s, tc);
    return s;
}
