/* Checksums: CRC-32C (record batches) and CRC-32 (legacy messages). */
#include "../unit.h"
#include "core/crc32c.h"

#include <stdlib.h>
#include <string.h>

START_TEST(test_crc32c_check_values)
{
    uint8_t b[32];

    /* The CRC catalogue's check value. */
    ck_assert_uint_eq(gr_crc32c("123456789", 9), 0xE3069283);
    ck_assert_uint_eq(gr_crc32c("", 0), 0);
    /* RFC 3720 (iSCSI) appendix B.4. */
    memset(b, 0, sizeof b);
    ck_assert_uint_eq(gr_crc32c(b, sizeof b), 0x8A9136AA);
    memset(b, 0xff, sizeof b);
    ck_assert_uint_eq(gr_crc32c(b, sizeof b), 0x62A8AB43);
    for (int i = 0; i < 32; i++)
        b[i] = (uint8_t)i;
    ck_assert_uint_eq(gr_crc32c(b, sizeof b), 0x46DD794E);
    for (int i = 0; i < 32; i++)
        b[i] = (uint8_t)(31 - i);
    ck_assert_uint_eq(gr_crc32c(b, sizeof b), 0x113FDB5C);
}
END_TEST

START_TEST(test_crc32_check_values)
{
    static const char fox[] = "The quick brown fox jumps over the lazy dog";

    ck_assert_uint_eq(gr_crc32("123456789", 9), 0xCBF43926);
    ck_assert_uint_eq(gr_crc32("", 0), 0);
    ck_assert_uint_eq(gr_crc32(fox, strlen(fox)), 0x414FA339);
}
END_TEST

/* Split a buffer at every point: update(update(0, a), b) == one shot. */
START_TEST(test_incremental)
{
    uint8_t b[300];
    uint32_t c, c32;

    for (size_t i = 0; i < sizeof b; i++)
        b[i] = (uint8_t)(i * 131 + 7);
    c = gr_crc32c(b, sizeof b);
    c32 = gr_crc32(b, sizeof b);
    for (size_t k = 0; k <= sizeof b; k++) {
        ck_assert_uint_eq(
            gr_crc32c_update(gr_crc32c_update(0, b, k), b + k, sizeof b - k),
            c);
        ck_assert_uint_eq(
            gr_crc32_update(gr_crc32_update(0, b, k), b + k, sizeof b - k),
            c32);
    }
    ck_assert_uint_eq(gr_crc32c_update(0, b, sizeof b), c);
    ck_assert_uint_eq(gr_crc32c_update(c, b, 0), c);
    ck_assert_uint_eq(gr_crc32_update(c32, NULL, 0), c32);
    /* Byte by byte. */
    c = 0;
    for (size_t i = 0; i < sizeof b; i++)
        c = gr_crc32c_update(c, b + i, 1);
    ck_assert_uint_eq(c, gr_crc32c(b, sizeof b));
}
END_TEST

/* Bit by bit from the polynomial's definition (reflected 0x1EDC6F41). */
static uint32_t
crc32c_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t reg = ~crc;
    while (n--) {
        reg ^= *p++;
        for (int k = 0; k < 8; k++)
            reg = reg & 1 ? (reg >> 1) ^ 0x82F63B78u : reg >> 1;
    }
    return ~reg;
}

/* Lengths and alignments that take every path of the instruction's code
 * (unaligned head, three streams of 8 KiB and of 256 bytes, the 8-byte
 * and byte tails), against the bitwise and the table definition. */
START_TEST(test_crc32c_paths)
{
    size_t size = 3 * 8192 * 2 + 3 * 256 + 64;
    uint8_t *b = malloc(size + 64);
    uint32_t seed = 12345;

    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < size + 64; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (uint8_t)(seed >> 16);
    }
    for (int t = 0; t < 400; t++) {
        size_t off, len;
        uint32_t init, want;
        seed = seed * 1103515245u + 12345u;
        off = (seed >> 8) % 16;
        seed = seed * 1103515245u + 12345u;
        len = t < 40 ? (size_t)t : (seed >> 4) % size;
        if (t >= 40 && t < 60) /* around the stream sizes */
            len = (t % 2 ? 3 * 8192 : 3 * 256) + (size_t)(t % 10) - 5;
        init = t % 3 == 0 ? 0 : seed;
        want = crc32c_bitwise(init, b + off, len);
        ck_assert_uint_eq(gr_crc32c_update(init, b + off, len), want);
        ck_assert_uint_eq(gr_crc32c_portable_update(init, b + off, len), want);
    }
    free(b);
}
END_TEST

Suite *
suite_core_crc32c(void)
{
    Suite *s = suite_create("core/crc32c");
    TCase *tc = tcase_create("crc32c");

    tcase_add_test(tc, test_crc32c_check_values);
    tcase_add_test(tc, test_crc32_check_values);
    tcase_add_test(tc, test_incremental);
    tcase_add_test(tc, test_crc32c_paths);
    suite_add_tcase(s, tc);
    return s;
}
