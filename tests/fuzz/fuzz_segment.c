/*
 * Fuzz target "segment": a partition directory made of the input, opened
 * by the partition log as the broker does at start-up. Input:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    1 flags: bit 0 clean shutdown (marker and checkpoints say
 *                 everything was flushed), bit 1 two segments (the .log
 *                 bytes split in half, the second named base2), bit 2 a
 *                 log start offset checkpoint of start
 *        1    1 base2 selector: base2 = 1 + byte * 3
 *        2    2 .index length (big-endian; cut to what is left)
 *        4    2 .timeindex length (likewise)
 *        6    1 recovery point / log start selector
 *        7    n .index bytes, .timeindex bytes, then the .log bytes
 *
 * Then: gr_log_open() (load, recovery, index checks); on success reads
 * from every offset of the first 64 (gr_log_read), timestamp lookups,
 * the largest timestamp, an append of a valid batch that must land at the
 * LEO and read back, a clean close and a reopen that must find the same
 * log end offset. After an unclean shutdown with no recovery point
 * recovery has checked every batch, so what reads return must pass
 * gr_batch_check(); otherwise what lies below the recovery point is
 * trusted (as Kafka does), and only memory safety is checked. Files live
 * under /dev/shm when it exists.
 */
#include "fuzz.h"

#include "core/loop.h"
#include "core/worker.h"
#include "log/log.h"
#include "log/segment.h"
#include "proto/records.h"
#include "proto/wire.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
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
    snprintf(root, sizeof root, "%s/gr-fuzz-seg-%d", base, (int)getpid());
    rmrf(root);
    GR_FUZZ_CHECK(mkdir(root, 0755) == 0);
    atexit(cleanup);
    loop = gr_loop_new();
    workers = gr_workers_new(loop, 1);
    GR_FUZZ_CHECK(loop != NULL && workers != NULL);
}

static void
put_file(const char *dir, const char *name, const uint8_t *p, size_t n)
{
    char path[512];
    int fd;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    GR_FUZZ_CHECK(fd >= 0);
    GR_FUZZ_CHECK(n == 0 || write(fd, p, n) == (ssize_t)n);
    close(fd);
}

static void
put_text(const char *dir, const char *name, const char *s)
{
    put_file(dir, name, (const uint8_t *)s, strlen(s));
}

/* Waits for the workers' jobs (flushes of a roll) and runs their
 * callbacks. */
static void
settle(void)
{
    struct timespec ts = { 0, 100000 };
    for (int i = 0; i < 100000 && gr_workers_pending(workers) > 0; i++)
        nanosleep(&ts, NULL);
    GR_FUZZ_CHECK(gr_workers_pending(workers) == 0);
    gr_loop_drain_posts(loop);
}

static void
check_slice(const gr_log_slice_t *s, bool trusted_checked)
{
    uint8_t *buf;
    size_t pos = 0;
    if (s->len <= 0)
        return;
    GR_FUZZ_CHECK(s->file != NULL);
    buf = malloc((size_t)s->len);
    GR_FUZZ_CHECK(buf != NULL);
    GR_FUZZ_CHECK(pread(s->file->fd, buf, (size_t)s->len, (off_t)s->pos) ==
                  s->len);
    while (trusted_checked && pos < (size_t)s->len) {
        size_t size;
        const char *why;
        int rc = gr_batch_check(buf + pos, (size_t)s->len - pos, &size, &why);
        GR_FUZZ_CHECK(rc == 0);
        pos += size;
    }
    free(buf);
}

/* A valid batch of 2 records (offsets assigned by the append). */
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
gr_fuzz_segment(const uint8_t *data, size_t n)
{
    char dir[512], pdir[600], name[64], text[128];
    gr_log_config_t cfg;
    gr_logs_t *m;
    gr_log_t *l;
    gr_err_t err;
    uint8_t flags, sel;
    size_t ilen, tlen, loglen;
    int64_t base2, leo;
    bool clean, checked;
    static unsigned seq;

    if (n < 7)
        return 0;
    setup();
    flags = data[0];
    base2 = 1 + (int64_t)data[1] * 3;
    ilen = (size_t)data[2] << 8 | data[3];
    tlen = (size_t)data[4] << 8 | data[5];
    sel = data[6];
    data += 7;
    n -= 7;
    if (ilen > n)
        ilen = n;
    if (tlen > n - ilen)
        tlen = n - ilen;
    loglen = n - ilen - tlen;
    clean = flags & 1;
    /* recovery checks what lies past the recovery point: everything when
     * no checkpoint names one; below it the files are trusted, as Kafka
     * trusts them */
    checked = !clean && !(sel & 1);

    snprintf(dir, sizeof dir, "%s/%u", root, seq++);
    GR_FUZZ_CHECK(mkdir(dir, 0755) == 0);
    snprintf(pdir, sizeof pdir, "%s/t-0", dir);
    GR_FUZZ_CHECK(mkdir(pdir, 0755) == 0);
    put_file(pdir, "00000000000000000000.index", data, ilen);
    put_file(pdir, "00000000000000000000.timeindex", data + ilen, tlen);
    if (flags & 2) {
        size_t half = loglen / 2;
        put_file(pdir, "00000000000000000000.log", data + ilen + tlen, half);
        snprintf(name, sizeof name, "%020" PRId64 ".log", base2);
        put_file(pdir, name, data + ilen + tlen + half, loglen - half);
    } else {
        put_file(pdir, "00000000000000000000.log", data + ilen + tlen, loglen);
    }
    if (clean) {
        put_text(dir, ".kafka_cleanshutdown", "{\"version\":0}");
        snprintf(text, sizeof text, "0\n1\nt 0 %d\n", 1000000);
        put_text(dir, "recovery-point-offset-checkpoint", text);
    } else if (sel & 1) {
        snprintf(text, sizeof text, "0\n1\nt 0 %d\n", sel >> 1);
        put_text(dir, "recovery-point-offset-checkpoint", text);
    }
    if (flags & 4) {
        snprintf(text, sizeof text, "0\n1\nt 0 %d\n", sel >> 2);
        put_text(dir, "log-start-offset-checkpoint", text);
    }

    gr_log_config_default(&cfg);
    cfg.index_interval_bytes = 64;
    m = gr_logs_open(dir, loop, workers, 4, &err);
    GR_FUZZ_CHECK(m != NULL);
    l = gr_log_open(m, "t", 0, NULL, &cfg, &err);
    if (l != NULL) {
        int64_t start = gr_log_start_offset(l), ts, off;
        gr_log_append_info_t info;
        gr_log_slice_t s;
        gr_buf_t b = GR_BUF_INIT;

        leo = gr_log_end_offset(l);
        GR_FUZZ_CHECK(start <= leo);
        for (int64_t o = start; o <= leo && o < start + 64; o++) {
            err = gr_log_read(l, o, 1 << 20, leo, true, &s);
            GR_FUZZ_CHECK(err == 0 || err == GR_ERR_IO ||
                          err == GR_ERR_CORRUPT);
            if (err == 0)
                check_slice(&s, checked);
            err = gr_log_read(l, o, 100, o + 1, false, &s);
            (void)err;
        }
        GR_FUZZ_CHECK(gr_log_read(l, leo + 1, 100, INT64_MAX, true, &s) ==
                      GR_ERR_NOT_FOUND);
        gr_log_max_timestamp(l, &ts, &off);
        for (int k = 0; k < 4; k++) {
            static const int64_t tss[] = { -1, 0, 1700000000000LL, INT64_MAX };
            err = gr_log_find_timestamp(l, tss[k], &s);
            if (err == 0)
                check_slice(&s, checked);
        }
        test_batch(&b);
        err = gr_log_append(l, b.ptr, b.len, 0, &info);
        if (err == 0) {
            GR_FUZZ_CHECK(info.first_offset == leo);
            GR_FUZZ_CHECK(gr_log_end_offset(l) == leo + 2);
            GR_FUZZ_CHECK(gr_log_read(l, leo, 1 << 20, leo + 2, true, &s) == 0);
            GR_FUZZ_CHECK(s.len == (int32_t)b.len);
            check_slice(&s, true);
            leo += 2;
        } else {
            /* only an offset that cannot be represented may refuse it */
            GR_FUZZ_CHECK(err == GR_ERR_INVALID || err == GR_ERR_IO);
        }
        gr_buf_fini(&b);
        settle();
        gr_logs_close(m);
        settle();

        /* what a clean close leaves opens to the same end */
        m = gr_logs_open(dir, loop, workers, 4, &err);
        GR_FUZZ_CHECK(m != NULL);
        l = gr_log_open(m, "t", 0, NULL, &cfg, &err);
        GR_FUZZ_CHECK(l != NULL);
        GR_FUZZ_CHECK(gr_log_end_offset(l) == leo);
    }
    settle();
    gr_logs_close(m);
    settle();
    rmrf(dir);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_segment)
