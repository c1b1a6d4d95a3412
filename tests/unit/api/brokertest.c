/* See brokertest.h. */
#include "brokertest.h"

#include "core/log.h"
#include "core/worker.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"
#include "proto/proto.h"
#include "proto/wire.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../log/logtest.h"

static void *
run(void *arg)
{
    gr_brokertest_t *t = arg;
    gr_broker_run(t->b);
    return NULL;
}

void
gr_brokertest_launch(gr_brokertest_t *t, const char *const *overrides)
{
    char lfile[128], kv[256];
    struct sockaddr_in sa;
    int port = 0;
    FILE *f;

    t->conf = gr_conf_new();
    gr_conf_set(t->conf, "listeners", "PLAINTEXT://127.0.0.1:0");
    snprintf(kv, sizeof kv, "%s/data", t->dir);
    gr_conf_set(t->conf, "log.dirs", kv);
    for (int i = 0; overrides && overrides[i]; i++)
        ck_assert_int_eq(gr_conf_set_kv(t->conf, overrides[i]), 0);
    ck_assert_int_eq(gr_conf_finish(t->conf), 0);
    snprintf(lfile, sizeof lfile, "%s/listeners", t->dir);
    unlink(lfile);
    t->b = gr_broker_new(t->conf, lfile, NULL);
    ck_assert_ptr_nonnull(t->b);
    ck_assert_int_eq(pthread_create(&t->thread, NULL, run, t), 0);
    for (int i = 0; i < 500 && port == 0; i++) {
        struct timespec ts = { 0, 10000000 };
        f = fopen(lfile, "r");
        if (f != NULL) {
            char line[128];
            if (fgets(line, sizeof line, f) && strrchr(line, ':'))
                port = atoi(strrchr(line, ':') + 1);
            fclose(f);
        }
        if (port == 0)
            nanosleep(&ts, NULL);
    }
    ck_assert_int_gt(port, 0);
    t->fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(t->fd, (struct sockaddr *)&sa, sizeof sa), 0);
}

void
gr_brokertest_halt(gr_brokertest_t *t)
{
    close(t->fd);
    gr_broker_stop(t->b);
    pthread_join(t->thread, NULL);
    gr_broker_destroy(t->b);
    gr_conf_destroy(t->conf);
}

void
gr_brokertest_start(gr_brokertest_t *t, const char *const *overrides)
{
    memset(t, 0, sizeof(*t));
    t->hold[0] = t->hold[1] = -1;
    gr_log_level = GR_LOG_LEVEL_ERROR;
    strcpy(t->dir, "/tmp/gr-broker-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t->dir));
    t->a = gr_arena_new(64 * 1024);
    /* stdout carries the TAP stream */
    fflush(stdout);
    t->saved_stdout = dup(1);
    {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        dup2(null, 1);
        close(null);
    }
    gr_brokertest_launch(t, overrides);
}

void
gr_brokertest_restart(gr_brokertest_t *t, const char *const *overrides)
{
    gr_brokertest_halt(t);
    gr_brokertest_launch(t, overrides);
}

void
gr_brokertest_stop(gr_brokertest_t *t)
{
    gr_brokertest_halt(t);
    if (t->hold[0] >= 0) { /* the held jobs ended with the workers */
        close(t->hold[0]);
        close(t->hold[1]);
    }
    gr_arena_destroy(t->a);
    gr_logtest_rmrf(t->dir);
    fflush(stdout);
    dup2(t->saved_stdout, 1);
    close(t->saved_stdout);
}

static void
read_full(int fd, uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        ck_assert_int_gt(r, 0);
        p += r;
        n -= (size_t)r;
    }
}

/* Writes request rq (with extra_len bytes of extra after the body) and
 * returns its correlation id. */
static int32_t
send_request(gr_brokertest_t *t, int key, int16_t ver, const void *rq,
             const void *extra, size_t extra_len)
{
    const gr_proto_api_t *api = gr_proto_api(key);
    gr_req_header_t h;
    size_t hsz, bsz;
    uint8_t *buf;
    gr_writer_t w;

    ck_assert_ptr_nonnull(api);
    memset(&h, 0, sizeof h);
    h.api_key = (int16_t)key;
    h.api_version = ver;
    h.correlation_id = ++t->corr;
    h.client_id = gr_str_c("brokertest");
    hsz = gr_req_header_size(&h);
    bsz = api->request.size(rq, ver) + extra_len;
    buf = gr_arena_alloc(t->a, 4 + hsz + bsz);
    w = gr_writer_init(buf, 4 + hsz + bsz, t->a);
    gr_wr_i32(&w, (int32_t)(hsz + bsz));
    gr_req_header_encode(&w, &h);
    api->request.encode(&w, rq, ver);
    ck_assert_int_eq(w.err, 0);
    if (extra_len > 0)
        memcpy(buf + 4 + hsz + bsz - extra_len, extra, extra_len);
    ck_assert_int_eq(write(t->fd, buf, 4 + hsz + bsz),
                     (ssize_t)(4 + hsz + bsz));
    return t->corr;
}

int32_t
gr_brokertest_send(gr_brokertest_t *t, int key, int16_t ver, const void *rq)
{
    return send_request(t, key, ver, rq, NULL, 0);
}

void *
gr_brokertest_recv(gr_brokertest_t *t, int key, int16_t ver, int32_t corr)
{
    const gr_proto_api_t *api = gr_proto_api(key);
    uint8_t *buf, sz[4];
    gr_reader_t r;
    int32_t len;
    void *rs;

    ck_assert_ptr_nonnull(api);
    read_full(t->fd, sz, 4);
    len = (int32_t)gr_get_u32(sz);
    buf = gr_arena_alloc(t->a, (size_t)len);
    read_full(t->fd, buf, (size_t)len);
    r = gr_reader_init(buf, (size_t)len);
    ck_assert_int_eq(gr_rd_i32(&r), corr);
    if (gr_proto_resp_header_version((int16_t)key, ver) == 1)
        gr_rd_skip_tags(&r);
    rs = gr_arena_zalloc(t->a, api->response.struct_size);
    ck_assert_int_eq(api->response.decode(&r, ver, t->a, rs), 0);
    ck_assert_int_eq(gr_reader_remaining(&r), 0);
    return rs;
}

int
gr_brokertest_connect(gr_brokertest_t *t)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    int fd;
    ck_assert_int_eq(getpeername(t->fd, (struct sockaddr *)&sa, &len), 0);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    return fd;
}

void
gr_brokertest_send_on(gr_brokertest_t *t, int fd, int key, int16_t ver,
                      const void *rq)
{
    const gr_proto_api_t *api = gr_proto_api(key);
    gr_req_header_t h;
    size_t hsz, bsz;
    uint8_t *buf;
    gr_writer_t w;

    ck_assert_ptr_nonnull(api);
    memset(&h, 0, sizeof h);
    h.api_key = (int16_t)key;
    h.api_version = ver;
    h.correlation_id = ++t->corr;
    h.client_id = gr_str_c("brokertest");
    hsz = gr_req_header_size(&h);
    bsz = api->request.size(rq, ver);
    buf = gr_arena_alloc(t->a, 4 + hsz + bsz);
    w = gr_writer_init(buf, 4 + hsz + bsz, t->a);
    gr_wr_i32(&w, (int32_t)(hsz + bsz));
    gr_req_header_encode(&w, &h);
    api->request.encode(&w, rq, ver);
    ck_assert_int_eq(w.err, 0);
    ck_assert_int_eq(write(fd, buf, 4 + hsz + bsz), (ssize_t)(4 + hsz + bsz));
}

size_t
gr_brokertest_drain(int fd)
{
    uint8_t sz[4], buf[65536];
    size_t len, left;
    read_full(fd, sz, 4);
    len = left = gr_get_u32(sz);
    while (left > 0) {
        size_t n = left < sizeof buf ? left : sizeof buf;
        read_full(fd, buf, n);
        left -= n;
    }
    return len;
}

void *
gr_brokertest_call_extra(gr_brokertest_t *t, int key, int16_t ver,
                         const void *rq, const void *extra, size_t extra_len)
{
    int32_t corr = send_request(t, key, ver, rq, extra, extra_len);
    return gr_brokertest_recv(t, key, ver, corr);
}

void *
gr_brokertest_call(gr_brokertest_t *t, int key, int16_t ver, const void *rq)
{
    return gr_brokertest_call_extra(t, key, ver, rq, NULL, 0);
}

bool
gr_brokertest_call_closed(gr_brokertest_t *t, int key, int16_t ver,
                          const void *rq)
{
    uint8_t b;
    ssize_t n;

    send_request(t, key, ver, rq, NULL, 0);
    do
        n = read(t->fd, &b, 1);
    while (n < 0 && errno == EINTR);
    return n == 0 || (n < 0 && errno == ECONNRESET);
}

gr_uuid_t
gr_brokertest_create_topic(gr_brokertest_t *t, const char *name, int32_t nparts,
                           const char *key, const char *value)
{
    gr_create_topics_request_t rq;
    gr_create_topics_request_creatable_topic_t tp;
    gr_create_topics_request_creatable_topic_config_t c;
    gr_create_topics_response_t *rs;

    gr_create_topics_request_init(&rq);
    gr_create_topics_request_creatable_topic_init(&tp);
    tp.name = gr_str_c(name);
    tp.num_partitions = nparts;
    tp.replication_factor = 1;
    if (key != NULL) {
        c.name = gr_str_c(key);
        c.value = gr_str_c(value);
        tp.configs = &c;
        tp.configs_cnt = 1;
    }
    rq.topics = &tp;
    rq.topics_cnt = 1;
    rq.timeout_ms = 10000;
    rs = gr_brokertest_call(t, GR_API_CREATE_TOPICS, 7, &rq);
    ck_assert_int_eq(rs->topics_cnt, 1);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
    return rs->topics[0].topic_id;
}

void
gr_brokertest_coordinator(gr_brokertest_t *t, const char *key, int8_t key_type)
{
    gr_find_coordinator_request_t rq;
    gr_find_coordinator_response_t *rs;
    gr_find_coordinator_request_init(&rq);
    rq.key = gr_str_c(key);
    rq.key_type = key_type;
    for (int i = 0; i < 100; i++) {
        rs = gr_brokertest_call(t, GR_API_FIND_COORDINATOR, 3, &rq);
        if (rs->error_code != GR_KERR_COORDINATOR_NOT_AVAILABLE &&
            rs->error_code != GR_KERR_COORDINATOR_LOAD_IN_PROGRESS)
            break;
        usleep(50000);
    }
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
}

/* more than the broker has worker threads (broker.c: 2): each thread
 * takes one of these before anything queued after them */
#define HOLD_JOBS 8

static void
hold_work(void *arg)
{
    int fd = *(int *)arg;
    char c;
    while (read(fd, &c, 1) < 0 && errno == EINTR)
        ;
}

static void
hold_done(gr_loop_t *loop, void *arg)
{
    (void)loop;
    (void)arg;
}

void
gr_brokertest_hold_workers(gr_brokertest_t *t)
{
    ck_assert_int_eq(pipe(t->hold), 0);
    for (int i = 0; i < HOLD_JOBS; i++)
        ck_assert_int_eq(
            gr_workers_submit(t->b->workers, hold_work, hold_done, &t->hold[0]),
            0);
}

void
gr_brokertest_release_workers(gr_brokertest_t *t)
{
    char b[HOLD_JOBS] = { 0 };
    ck_assert_int_eq(write(t->hold[1], b, sizeof b), (ssize_t)sizeof b);
    /* the pipe is closed by gr_brokertest_stop(), once the jobs are */
}

bool
gr_brokertest_readable(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    return poll(&p, 1, ms) == 1;
}

int32_t
gr_brokertest_send_fd(gr_brokertest_t *t, int fd, int key, int16_t ver,
                      const void *rq)
{
    int own = t->fd;
    int32_t corr;
    t->fd = fd;
    corr = gr_brokertest_send(t, key, ver, rq);
    t->fd = own;
    return corr;
}

void *
gr_brokertest_recv_fd(gr_brokertest_t *t, int fd, int key, int16_t ver,
                      int32_t corr)
{
    int own = t->fd;
    void *rs;
    t->fd = fd;
    rs = gr_brokertest_recv(t, key, ver, corr);
    t->fd = own;
    return rs;
}

void *
gr_brokertest_call_on(gr_brokertest_t *t, int fd, int key, int16_t ver,
                      const void *rq)
{
    return gr_brokertest_recv_fd(t, fd, key, ver,
                                 gr_brokertest_send_fd(t, fd, key, ver, rq));
}
