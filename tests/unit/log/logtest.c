/* Fixtures for the log suites: see logtest.h. */
#include "logtest.h"

#include "core/log.h"

#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void
gr_logtest_init(gr_logtest_t *t, int max_open_files)
{
    gr_err_t err;
    gr_log_level = GR_LOG_LEVEL_ERROR; /* recovery WARNs are expected */
    memset(t, 0, sizeof(*t));
    strcpy(t->dir, "/tmp/gr-log-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t->dir));
    t->loop = gr_loop_new();
    ck_assert_ptr_nonnull(t->loop);
    t->workers = gr_workers_new(t->loop, 1);
    ck_assert_ptr_nonnull(t->workers);
    t->m = gr_logs_open(t->dir, t->loop, t->workers, max_open_files, &err);
    ck_assert_ptr_nonnull(t->m);
    ck_assert_int_eq(err, 0);
}

void
gr_logtest_reopen(gr_logtest_t *t, int max_open_files)
{
    gr_err_t err;
    gr_logs_close(t->m);
    t->m = gr_logs_open(t->dir, t->loop, t->workers, max_open_files, &err);
    ck_assert_ptr_nonnull(t->m);
}

void
gr_logtest_fini(gr_logtest_t *t)
{
    gr_logs_close(t->m);
    t->m = NULL;
    gr_workers_destroy(t->workers);
    gr_loop_drain_posts(t->loop);
    gr_loop_destroy(t->loop);
    gr_logtest_rmrf(t->dir);
}

bool
gr_logtest_wait(gr_logtest_t *t, const int *flag)
{
    for (int i = 0; i < 5000 && !*flag; i++) {
        struct timespec ts = { 0, 1000000 };
        gr_loop_drain_posts(t->loop);
        if (*flag)
            break;
        nanosleep(&ts, NULL);
    }
    return *flag != 0;
}

void
gr_logtest_settle(gr_logtest_t *t)
{
    struct timespec ts = { 0, 1000000 };
    for (int i = 0; i < 5000 && gr_workers_pending(t->workers) > 0; i++)
        nanosleep(&ts, NULL);
    /* the finished jobs' callbacks are posted; run them (and what they
     * post in turn) */
    for (int i = 0; i < 20; i++) {
        gr_loop_drain_posts(t->loop);
        nanosleep(&ts, NULL);
    }
}

gr_log_config_t
gr_logtest_config(void)
{
    gr_log_config_t c;
    gr_log_config_default(&c);
    return c;
}

bool
gr_logtest_read_file(const char *path, gr_buf_t *out)
{
    char tmp[4096];
    ssize_t n;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return false;
    gr_buf_reset(out);
    while ((n = read(fd, tmp, sizeof tmp)) > 0)
        gr_buf_append(out, tmp, (size_t)n);
    close(fd);
    return n == 0 && !out->oom;
}

bool
gr_logtest_read_slice(const gr_log_slice_t *s, gr_buf_t *out)
{
    gr_buf_reset(out);
    if (s->len == 0)
        return true;
    if (gr_buf_reserve(out, (size_t)s->len) != 0)
        return false;
    if (pread(s->file->fd, out->ptr, (size_t)s->len, s->pos) != s->len)
        return false;
    out->len = (size_t)s->len;
    return true;
}

long long
gr_logtest_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

void
gr_logtest_seg_path(char *out, const gr_logtest_t *t, const char *topic,
                    int partition, int64_t base, const char *suffix)
{
    snprintf(out, 4096, "%s/%s-%d/%020" PRId64 "%s", t->dir, topic, partition,
             base, suffix);
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void
gr_logtest_rmrf(const char *path)
{
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
