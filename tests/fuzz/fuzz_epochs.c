/*
 * Fuzz target "epochs": a partition's leader-epoch-checkpoint file (disk
 * that may be corrupt). Input: the file's bytes.
 *
 * Then: gr_epochs_parse(); what it accepts must hold Kafka's invariants
 * (epochs and start offsets strictly increasing, none negative) and come
 * back the same through gr_epochs_format() and a second parse. And the
 * file is put beside a log of 4 offsets whose batches carry epoch 1 (a
 * new log dir each time), which is opened as the broker opens it: a bad
 * file is a warning and a rebuild, never a crash; whatever is kept must
 * hold the invariants, start inside the log, and know epoch 1 or a later
 * one (the batches' epoch is never lost). Files live under /dev/shm when
 * it exists.
 */
#include "fuzz.h"

#include "core/loop.h"
#include "core/worker.h"
#include "log/epoch.h"
#include "log/log.h"
#include "proto/records.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static gr_loop_t *loop;
static gr_workers_t *workers;
static char root[256];

static int
rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(p);
    return 0;
}

static void
rmrf(const char *p)
{
    nftw(p, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void
cleanup(void)
{
    if (root[0])
        rmrf(root);
}

static void
setup(void)
{
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    if (loop != NULL)
        return;
    snprintf(root, sizeof root, "%s/gr-fuzz-epochs-%d", base, (int)getpid());
    rmrf(root);
    GR_FUZZ_CHECK(mkdir(root, 0755) == 0);
    atexit(cleanup);
    loop = gr_loop_new();
    workers = gr_workers_new(loop, 1);
    GR_FUZZ_CHECK(loop != NULL && workers != NULL);
}

static void
settle(void)
{
    struct timespec ts = { 0, 100000 };
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 100000 && gr_workers_pending(workers) > 0; i++)
            nanosleep(&ts, NULL);
        GR_FUZZ_CHECK(gr_workers_pending(workers) == 0);
        gr_loop_drain_posts(loop);
    }
}

static void
check_invariants(const gr_epochs_t *c)
{
    for (int i = 0; i < c->n; i++) {
        GR_FUZZ_CHECK(c->v[i].epoch >= 0 && c->v[i].start_offset >= 0);
        if (i > 0)
            GR_FUZZ_CHECK(c->v[i].epoch > c->v[i - 1].epoch &&
                          c->v[i].start_offset > c->v[i - 1].start_offset);
    }
}

static void
check_parse(const uint8_t *data, size_t n)
{
    gr_epochs_t c = { 0 }, c2 = { 0 };
    gr_buf_t t1 = GR_BUF_INIT, t2 = GR_BUF_INIT;
    const char *why = NULL;

    if (gr_epochs_parse(&c, (const char *)data, n, &why) != 0) {
        GR_FUZZ_CHECK(why != NULL && c.n == 0);
        gr_epochs_fini(&c);
        return;
    }
    check_invariants(&c);
    gr_epochs_format(&c, &t1);
    GR_FUZZ_CHECK(!t1.oom);
    GR_FUZZ_CHECK(gr_epochs_parse(&c2, (const char *)t1.ptr, t1.len, &why) ==
                  0);
    GR_FUZZ_CHECK(c2.n == c.n);
    gr_epochs_format(&c2, &t2);
    GR_FUZZ_CHECK(t2.len == t1.len && memcmp(t1.ptr, t2.ptr, t1.len) == 0);
    gr_buf_fini(&t1);
    gr_buf_fini(&t2);
    gr_epochs_fini(&c);
    gr_epochs_fini(&c2);
}

static void
test_batch(gr_buf_t *out)
{
    gr_batch_builder_t bb;
    gr_bytes_t k = { (const uint8_t *)"k", 1 }, v = { (const uint8_t *)"v", 1 };
    gr_batch_builder_init(&bb, 0, 0, -1, -1, -1);
    gr_batch_builder_add(&bb, 1700000000000LL, &k, &v, 0, NULL, 0);
    gr_batch_builder_add(&bb, 1700000000001LL, &k, &v, 0, NULL, 0);
    GR_FUZZ_CHECK(gr_batch_builder_finish(&bb, 0, out) == 0);
    gr_batch_builder_fini(&bb);
}

int
gr_fuzz_epochs(const uint8_t *data, size_t n)
{
    char dir[512], path[700];
    gr_log_config_t cfg;
    const gr_epochs_t *c;
    gr_buf_t b = GR_BUF_INIT;
    gr_log_append_info_t info;
    gr_logs_t *m;
    gr_log_t *l;
    gr_err_t err;
    int fd;
    static unsigned seq;

    check_parse(data, n);
    setup();
    snprintf(dir, sizeof dir, "%s/%u", root, seq++);
    gr_log_config_default(&cfg);

    /* a log of 4 offsets in epoch 1, closed cleanly */
    m = gr_logs_open(dir, loop, workers, 8, &err);
    GR_FUZZ_CHECK(m != NULL);
    l = gr_log_open(m, "t", 0, NULL, &cfg, &err);
    GR_FUZZ_CHECK(l != NULL);
    for (int i = 0; i < 2; i++) {
        gr_buf_reset(&b);
        test_batch(&b);
        GR_FUZZ_CHECK(gr_log_append(l, b.ptr, b.len, 1, &info) == 0);
    }
    gr_buf_fini(&b);
    settle();
    gr_logs_close(m);
    settle();

    /* the input as its checkpoint */
    snprintf(path, sizeof path, "%s/t-0/leader-epoch-checkpoint", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    GR_FUZZ_CHECK(fd >= 0);
    GR_FUZZ_CHECK(n == 0 || write(fd, data, n) == (ssize_t)n);
    close(fd);

    m = gr_logs_open(dir, loop, workers, 8, &err);
    GR_FUZZ_CHECK(m != NULL);
    l = gr_log_open(m, "t", 0, NULL, &cfg, &err);
    GR_FUZZ_CHECK(l != NULL);
    c = gr_log_epochs(l);
    check_invariants(c);
    GR_FUZZ_CHECK(gr_log_leader_epoch(l) >= 1);
    for (int i = 0; i < c->n; i++)
        GR_FUZZ_CHECK(c->v[i].start_offset >= gr_log_start_offset(l) &&
                      c->v[i].start_offset < gr_log_end_offset(l));
    settle();
    gr_logs_close(m);
    settle();
    rmrf(dir);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_epochs)
