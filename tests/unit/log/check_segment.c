/* Segments: index entries and files, batch header scans, recovery. */
#include "../unit.h"
#include "batches.h"
#include "logtest.h"

#include "core/crc32c.h"
#include "core/time.h"
#include "log/segment.h"
#include "proto/wire.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

START_TEST(test_crc32c_vector)
{
    /* the CRC-32C check value (RFC 3720 B.4 / "123456789") */
    ck_assert_uint_eq(gr_crc32c("123456789", 9), 0xE3069283u);
    ck_assert_uint_eq(gr_crc32c("", 0), 0);
}
END_TEST

START_TEST(test_batch_check)
{
    gr_buf_t b = GR_BUF_INIT;
    const char *why;
    size_t size, n = gr_test_batch(&b, 3, 5000, 20);

    ck_assert_int_eq(gr_batch_check(b.ptr, b.len, &size, &why), 0);
    ck_assert_uint_eq(size, n);
    ck_assert_int_eq(gr_batch_check(b.ptr, 60, &size, &why), GR_ERR_TRUNCATED);
    ck_assert_int_eq(gr_batch_check(b.ptr, n - 1, &size, &why),
                     GR_ERR_TRUNCATED);
    ck_assert_uint_eq(size, n); /* the size needed is known */
    /* baseOffset and partitionLeaderEpoch are outside the CRC */
    gr_put_u64(b.ptr, 12345);
    gr_put_u32(b.ptr + GR_BATCH_OFF_LEADER_EPOCH, 7);
    ck_assert_int_eq(gr_batch_check(b.ptr, b.len, &size, &why), 0);
    b.ptr[n - 1] ^= 1;
    ck_assert_int_eq(gr_batch_check(b.ptr, b.len, &size, &why), GR_ERR_CORRUPT);
    ck_assert_str_eq(why, "CRC-32C mismatch");
    b.ptr[n - 1] ^= 1;
    b.ptr[GR_BATCH_OFF_MAGIC] = 1;
    ck_assert_int_eq(gr_batch_check(b.ptr, b.len, &size, &why), GR_ERR_CORRUPT);
    b.ptr[GR_BATCH_OFF_MAGIC] = 2;
    gr_put_u32(b.ptr + GR_BATCH_OFF_LENGTH, 10);
    ck_assert_int_eq(gr_batch_check(b.ptr, b.len, &size, &why), GR_ERR_CORRUPT);
    gr_buf_fini(&b);
}
END_TEST

START_TEST(test_offset_index)
{
    gr_index_t ix = { 0 };

    ck_assert_uint_eq(gr_oidx_lookup(&ix, 100), 0); /* empty: position 0 */
    for (uint32_t i = 1; i <= 1000; i++)
        ck_assert(gr_oidx_append(&ix, i * 10, i * 100));
    ck_assert_uint_eq(ix.n, 1000);
    ck_assert(!gr_oidx_append(&ix, 10000, 200000)); /* not increasing */
    ck_assert(!gr_oidx_append(&ix, 20000, 100000));
    ck_assert_uint_eq(gr_oidx_lookup(&ix, 9), 0);
    ck_assert_uint_eq(gr_oidx_lookup(&ix, 10), 100);
    ck_assert_uint_eq(gr_oidx_lookup(&ix, 19), 100);
    ck_assert_uint_eq(gr_oidx_lookup(&ix, 20), 200);
    ck_assert_uint_eq(gr_oidx_lookup(&ix, 1 << 30), 100000);
    ck_assert_ptr_null(gr_oidx_check(&ix, 10000, 100001));
    ck_assert_str_eq(gr_oidx_check(&ix, 9999, 100001),
                     "offset past the segment");
    ck_assert_str_eq(gr_oidx_check(&ix, 10000, 100000),
                     "position past the end of the segment");
    /* damage: an entry going backwards */
    gr_put_u32(ix.ent + 8 * 500, 1);
    ck_assert_str_eq(gr_oidx_check(&ix, 10000, 100001),
                     "entries not increasing");
    gr_index_fini(&ix);
}
END_TEST

START_TEST(test_time_index)
{
    gr_index_t ix = { 0 };
    int64_t ts;
    uint32_t rel;

    gr_tidx_last(&ix, &ts, &rel);
    ck_assert_int_eq(ts, -1);
    ck_assert(!gr_tidx_maybe_append(&ix, -1, 0)); /* no timestamp */
    ck_assert(gr_tidx_maybe_append(&ix, 100, 5));
    ck_assert(!gr_tidx_maybe_append(&ix, 100, 9)); /* not larger */
    ck_assert(!gr_tidx_maybe_append(&ix, 50, 9));
    ck_assert(gr_tidx_maybe_append(&ix, 200, 9));
    ck_assert(!gr_tidx_maybe_append(&ix, 300, 8)); /* offset went back */
    ck_assert(gr_tidx_maybe_append(&ix, 300, 20));
    gr_tidx_last(&ix, &ts, &rel);
    ck_assert_int_eq(ts, 300);
    ck_assert_uint_eq(rel, 20);
    ck_assert_uint_eq(gr_tidx_lookup(&ix, 99), 0);
    ck_assert_uint_eq(gr_tidx_lookup(&ix, 100), 5);
    ck_assert_uint_eq(gr_tidx_lookup(&ix, 250), 9);
    ck_assert_uint_eq(gr_tidx_lookup(&ix, 1000), 20);
    ck_assert_ptr_null(gr_tidx_check(&ix, 20));
    ck_assert_ptr_nonnull(gr_tidx_check(&ix, 19));
    gr_index_fini(&ix);
}
END_TEST

START_TEST(test_index_files)
{
    gr_logtest_t t;
    gr_index_t ix = { 0 }, back = { 0 };
    gr_buf_t data = GR_BUF_INIT;
    char path[4096];
    static const uint8_t want[] = {
        0, 0, 0, 3, 0, 0, 0x01, 0x00, /* rel 3, position 256 */
        0, 0, 0, 9, 0, 0, 0x02, 0x10, /* rel 9, position 528 */
    };

    gr_logtest_init(&t, 10);
    snprintf(path, sizeof path, "%s/x.index", t.dir);
    ck_assert_int_eq(gr_index_read(path, GR_OIDX_ENTRY, &back),
                     GR_ERR_NOT_FOUND);
    gr_oidx_append(&ix, 3, 256);
    ck_assert_int_eq(gr_index_write(path, GR_OIDX_ENTRY, &ix, false), 0);
    gr_oidx_append(&ix, 9, 528);
    ck_assert_int_eq(gr_index_write(path, GR_OIDX_ENTRY, &ix, false), 0);
    ck_assert(gr_logtest_read_file(path, &data));
    ck_assert_uint_eq(data.len, sizeof want);
    ck_assert_mem_eq(data.ptr, want, sizeof want);
    ck_assert_int_eq(gr_index_read(path, GR_OIDX_ENTRY, &back), 0);
    ck_assert_uint_eq(back.n, 2);
    ck_assert_uint_eq(gr_oidx_lookup(&back, 10), 528);
    /* read back, the file holds exactly the index: a whole write of one
     * more entry appends it (the file has all three, in order) */
    gr_oidx_append(&back, 12, 600);
    ck_assert_int_eq(gr_index_write(path, GR_OIDX_ENTRY, &back, true), 0);
    ck_assert(gr_logtest_read_file(path, &data));
    ck_assert_uint_eq(data.len, 24);
    ck_assert_mem_eq(data.ptr, want, sizeof want);
    ck_assert_uint_eq(gr_oidx_lookup(&back, 12), 600);
    ck_assert_int_eq(gr_index_read(path, GR_OIDX_ENTRY, &back), 0);
    ck_assert_uint_eq(back.n, 3);
    /* reset (a rebuild): the next whole write cuts the file */
    gr_index_reset(&back);
    ck_assert_int_eq(gr_index_write(path, GR_OIDX_ENTRY, &back, true), 0);
    ck_assert_int_eq(gr_logtest_file_size(path), 0);
    /* a whole write trims what was there */
    ck_assert_int_eq(gr_index_write(path, GR_OIDX_ENTRY, &ix, true), 0);
    ck_assert_int_eq(gr_logtest_file_size(path), 16);
    ix.n = 1;
    ix.exact = false; /* what drops entries must say so */
    ck_assert_int_eq(gr_index_write(path, GR_OIDX_ENTRY, &ix, true), 0);
    ck_assert_int_eq(gr_logtest_file_size(path), 8);
    /* a size that is not a multiple of 8 is damage */
    truncate(path, 7);
    ck_assert_int_eq(gr_index_read(path, GR_OIDX_ENTRY, &back), GR_ERR_CORRUPT);
    gr_index_fini(&ix);
    gr_index_fini(&back);
    gr_buf_fini(&data);
    gr_logtest_fini(&t);
}
END_TEST

/* Writes n batches of 1..3 records (offsets assigned from 0) to dir/0.log;
 * returns the batch boundaries (n + 1 positions) and base offsets. */
static int
write_segment(const char *dir, int n, int64_t *bounds, int64_t *bases)
{
    char path[GR_SEG_PATH_MAX];
    gr_buf_t b = GR_BUF_INIT;
    int64_t next = 0;
    int fd;

    for (int i = 0; i < n; i++) {
        size_t at = b.len;
        int records = 1 + i % 3;
        bounds[i] = (int64_t)at;
        bases[i] = next;
        gr_test_batch(&b, records, 1000 + i, 50 + i % 7);
        gr_put_u64(b.ptr + at, (uint64_t)next);
        next += records;
    }
    bounds[n] = (int64_t)b.len;
    bases[n] = next;
    gr_segment_path(path, dir, 0, ".log");
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b.ptr, b.len), (ssize_t)b.len);
    gr_buf_fini(&b);
    return fd;
}

START_TEST(test_scan_headers)
{
    gr_logtest_t t;
    int64_t bounds[101], bases[101], pos;
    gr_batch_hdr_t h;
    const char *why;
    gr_scan_t s;
    int fd, i = 0, rc;

    gr_logtest_init(&t, 10);
    fd = write_segment(t.dir, 100, bounds, bases);
    gr_scan_init(&s, fd, 0, bounds[100]);
    while ((rc = gr_scan_next(&s, &h, &pos, &why)) == 1) {
        ck_assert_int_eq(pos, bounds[i]);
        ck_assert_int_eq(h.base_offset, bases[i]);
        i++;
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(i, 100);
    /* a data end inside a batch */
    gr_scan_init(&s, fd, bounds[98], bounds[100] - 1);
    ck_assert_int_eq(gr_scan_next(&s, &h, &pos, &why), 1);
    ck_assert_int_eq(gr_scan_next(&s, &h, &pos, &why), GR_ERR_TRUNCATED);
    close(fd);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_recover_valid)
{
    gr_logtest_t t;
    int64_t bounds[201], bases[201];
    gr_segment_t *seg = gr_segment_new(0, gr_wall_ms());
    gr_recovery_t r;
    char path[GR_SEG_PATH_MAX];
    int fd;

    gr_logtest_init(&t, 10);
    fd = write_segment(t.dir, 200, bounds, bases);
    ck_assert_int_eq(gr_segment_recover(seg, fd, t.dir, 1000, INT64_MAX, &r),
                     0);
    ck_assert_int_eq(r.batches, 200);
    ck_assert_int_eq(r.truncated, 0);
    ck_assert_int_eq(r.next_offset, bases[200]);
    ck_assert_int_eq(seg->size, bounds[200]);
    ck_assert_int_eq(seg->max_ts, 1000 + 199);
    ck_assert_int_gt(seg->oidx.n, 5);
    ck_assert_ptr_null(gr_oidx_check(&seg->oidx, bases[200], seg->size));
    /* every entry points at a batch start and names its last offset */
    for (uint32_t e = 0; e < seg->oidx.n; e++) {
        uint32_t rel = gr_get_u32(seg->oidx.ent + 8 * e);
        uint32_t pos = gr_get_u32(seg->oidx.ent + 8 * e + 4);
        int k = 0;
        while (bounds[k] != pos)
            ck_assert_int_lt(++k, 200);
        ck_assert_int_eq(rel, bases[k + 1] - 1);
    }
    /* the index files are written, trimmed to their entries */
    gr_segment_path(path, t.dir, 0, ".index");
    ck_assert_int_eq(gr_logtest_file_size(path), 8 * (long long)seg->oidx.n);
    gr_segment_path(path, t.dir, 0, ".timeindex");
    ck_assert_int_eq(gr_logtest_file_size(path), 12 * (long long)seg->tidx.n);
    close(fd);
    gr_segment_free(seg);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_recover_torn_and_corrupt)
{
    gr_logtest_t t;
    int64_t bounds[51], bases[51];
    gr_recovery_t r;
    struct stat st;
    int fd;

    gr_logtest_init(&t, 10);
    srand(42);
    /* torn tails: cut anywhere, keep the whole batches before the cut */
    for (int round = 0; round < 40; round++) {
        gr_segment_t *seg = gr_segment_new(0, gr_wall_ms());
        int64_t cut;
        int k = 0;
        fd = write_segment(t.dir, 50, bounds, bases);
        cut = rand() % (bounds[50] + 1);
        ck_assert_int_eq(ftruncate(fd, cut), 0);
        while (bounds[k + 1] <= cut)
            k++;
        ck_assert_int_eq(gr_segment_recover(seg, fd, t.dir, 500, INT64_MAX, &r),
                         0);
        ck_assert_int_eq(r.valid, bounds[k]);
        ck_assert_int_eq(r.next_offset, bases[k]);
        ck_assert_int_eq(fstat(fd, &st), 0);
        ck_assert_int_eq(st.st_size, bounds[k]);
        close(fd);
        gr_segment_free(seg);
    }
    /* a flipped byte in batch 20: cut there */
    {
        gr_segment_t *seg = gr_segment_new(0, gr_wall_ms());
        uint8_t c;
        fd = write_segment(t.dir, 50, bounds, bases);
        ck_assert_int_eq(pread(fd, &c, 1, bounds[20] + 70), 1);
        c ^= 0x40;
        ck_assert_int_eq(pwrite(fd, &c, 1, bounds[20] + 70), 1);
        ck_assert_int_eq(gr_segment_recover(seg, fd, t.dir, 500, INT64_MAX, &r),
                         0);
        ck_assert_int_eq(r.valid, bounds[20]);
        ck_assert_int_eq(r.next_offset, bases[20]);
        ck_assert_int_eq(r.truncated, bounds[50] - bounds[20]);
        close(fd);
        gr_segment_free(seg);
    }
    /* offsets past the limit (the next segment's base) are refused */
    {
        gr_segment_t *seg = gr_segment_new(0, gr_wall_ms());
        fd = write_segment(t.dir, 50, bounds, bases);
        ck_assert_int_eq(gr_segment_recover(seg, fd, t.dir, 500, bases[30], &r),
                         0);
        ck_assert_int_eq(r.next_offset, bases[29] + (bases[30] - bases[29]));
        ck_assert_int_le(r.valid, bounds[30]);
        close(fd);
        gr_segment_free(seg);
    }
    gr_logtest_fini(&t);
}
END_TEST

/* A directory listed once; the bases of each suffix picked from it:
 * exactly 20 digits, exactly the suffix, ascending. */
START_TEST(test_dir_names)
{
    static const char *const files[] = {
        "00000000000000000005.log",      "00000000000000000001.log",
        "00000000000000000003.snapshot", "x.log",
        "0000000000000000000a.log",      "00000000000000000002.log.deleted",
        "00000000000000000001.logx",     "0000000000000000007.log",
    };
    char dir[] = "/tmp/gr-names-XXXXXX", path[4096];
    gr_dir_names_t names;
    int64_t *v;
    int n, fd;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        ck_assert_int_ge(fd = open(path, O_WRONLY | O_CREAT, 0644), 0);
        close(fd);
    }
    ck_assert_int_eq(gr_dir_names_read(dir, &names), 0);
    ck_assert_int_eq(names.n, 8);
    n = gr_dir_names_bases(&names, ".log", &v);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(v[0], 1);
    ck_assert_int_eq(v[1], 5);
    free(v);
    n = gr_dir_names_bases(&names, ".snapshot", &v);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(v[0], 3);
    free(v);
    n = gr_dir_names_bases(&names, ".log.deleted", &v);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(v[0], 2);
    free(v);
    ck_assert_int_eq(gr_dir_names_bases(&names, ".txnindex", &v), 0);
    ck_assert_ptr_null(v);
    gr_dir_names_free(&names);
    ck_assert_int_eq(names.n, 0);
    gr_logtest_rmrf(dir);
    ck_assert_int_eq(gr_dir_names_read(dir, &names), -1);
    ck_assert_int_eq(names.n, 0);
}
END_TEST

Suite *
suite_log_segment(void)
{
    Suite *s = suite_create("log/segment");
    TCase *tc = tcase_create("segment");
    tcase_add_test(tc, test_crc32c_vector);
    tcase_add_test(tc, test_batch_check);
    tcase_add_test(tc, test_offset_index);
    tcase_add_test(tc, test_time_index);
    tcase_add_test(tc, test_index_files);
    tcase_add_test(tc, test_scan_headers);
    tcase_add_test(tc, test_recover_valid);
    tcase_add_test(tc, test_recover_torn_and_corrupt);
    tcase_add_test(tc, test_dir_names);
    suite_add_tcase(s, tc);
    return s;
}
