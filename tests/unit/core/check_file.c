/* core/file: the whole-file steps the stores share: a file is replaced
 * whole or not at all, a failed step leaves no temporary file and returns
 * its errno. */
#include "../unit.h"
#include "../log/logtest.h"
#include "core/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static void
setup(void)
{
    strcpy(dir, "/tmp/gr-file-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
    gr_logtest_rmrf(dir);
}

/* the file's content, NUL-terminated, or "" if it cannot be read */
static const char *
slurp(const char *path)
{
    static char buf[256];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static bool
exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

START_TEST(test_replace)
{
    char path[128], tmp[128];
    struct stat st;
    snprintf(path, sizeof path, "%s/f", dir);
    snprintf(tmp, sizeof tmp, "%s/f.tmp", dir);
    ck_assert_int_eq(gr_file_replace(path, tmp, "one\n", 4, 0600, true), 0);
    ck_assert_str_eq(slurp(path), "one\n");
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
    /* a shorter content leaves nothing of the longer one, a stale tmp is
     * truncated, and the tmp is gone after the rename */
    int fd = open(tmp, O_WRONLY | O_CREAT, 0644);
    ck_assert_int_eq(gr_write_full(fd, "stale stale stale", 17), 0);
    close(fd);
    ck_assert_int_eq(gr_file_replace(path, tmp, "2", 1, 0644, false), 0);
    ck_assert_str_eq(slurp(path), "2");
    ck_assert(!exists(tmp));
    ck_assert_int_eq(gr_fsync_dir(dir), 0);
}
END_TEST

START_TEST(test_failed_steps)
{
    char path[128], tmp[128];
    /* the rename fails (path is a non-empty directory): the old path
     * stays, the tmp is removed, the errno is the rename's */
    snprintf(path, sizeof path, "%s/d", dir);
    snprintf(tmp, sizeof tmp, "%s/d.tmp", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(tmp, sizeof tmp, "%s/d/x", dir);
    ck_assert_int_eq(gr_file_replace(tmp, tmp, "x", 1, 0644, false), 0);
    snprintf(tmp, sizeof tmp, "%s/d.tmp", dir);
    errno = 0;
    ck_assert_int_eq(gr_file_replace(path, tmp, "x", 1, 0644, true), EISDIR);
    ck_assert_int_eq(errno, EISDIR);
    ck_assert(!exists(tmp));
    ck_assert(exists(path));
    /* the tmp cannot be created: ENOENT, nothing made */
    snprintf(path, sizeof path, "%s/no/f", dir);
    snprintf(tmp, sizeof tmp, "%s/no/f.tmp", dir);
    ck_assert_int_eq(gr_file_replace(path, tmp, "x", 1, 0644, true), ENOENT);
    ck_assert(!exists(path));
    /* fsync of what is not a directory, or is not there */
    snprintf(path, sizeof path, "%s/d/x", dir);
    ck_assert_int_eq(gr_fsync_dir(path), ENOTDIR);
    snprintf(path, sizeof path, "%s/none", dir);
    ck_assert_int_eq(gr_fsync_dir(path), ENOENT);
    ck_assert_int_eq(errno, ENOENT);
}
END_TEST

START_TEST(test_write_full_errors)
{
    char path[128];
    int fd;
    snprintf(path, sizeof path, "%s/ro", dir);
    fd = open(path, O_RDONLY | O_CREAT, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(gr_write_full(fd, "x", 1), EBADF);
    close(fd);
    /* /dev/full: every write fails with ENOSPC */
    fd = open("/dev/full", O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(gr_write_full(fd, "x", 1), ENOSPC);
    close(fd);
    /* nothing to write is done at once */
    ck_assert_int_eq(gr_write_full(-1, "", 0), 0);
}
END_TEST

Suite *
suite_core_file(void)
{
    Suite *s = suite_create("core/file");
    TCase *tc = tcase_create("file");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_replace);
    tcase_add_test(tc, test_failed_steps);
    tcase_add_test(tc, test_write_full_errors);
    suite_add_tcase(s, tc);
    return s;
}
