/* A client connection to another broker: see client.h. */
#include "net/client.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/log.h"

enum { C_IDLE, C_RESOLVING, C_CONNECTING, C_UP };

typedef struct resolve_job {
    gr_client_t *c; /* NULL: abandoned */
    char host[256];
    char port[16];
    struct sockaddr_storage addr;
    socklen_t addrlen;
    int err; /* 0, or an EAI_* / errno */
} resolve_job_t;

struct gr_client {
    gr_loop_t *loop;
    gr_workers_t *workers;
    gr_client_hooks_t hooks;
    size_t max_frame;
    int state;
    gr_io_t io;
    resolve_job_t *job;
    gr_buf_t out;   /* to write, from out_pos */
    size_t out_pos;
    gr_buf_t in;    /* read, not yet given */
    gr_timer_t later; /* a failure found inside a call: told from here */
    int later_err;
};

static void
client_reset(gr_client_t *c)
{
    if (c->io.fd >= 0) {
        gr_loop_io_del(c->loop, &c->io);
        close(c->io.fd);
        c->io.fd = -1;
    }
    if (c->job != NULL) {
        c->job->c = NULL;
        c->job = NULL;
    }
    gr_timer_stop(c->loop, &c->later);
    gr_buf_reset(&c->out);
    gr_buf_reset(&c->in);
    c->out_pos = 0;
    c->state = C_IDLE;
}

static void
fail(gr_client_t *c, int err)
{
    client_reset(c);
    if (c->hooks.closed != NULL)
        c->hooks.closed(c->hooks.arg, err);
}

static void
later_cb(gr_loop_t *loop, gr_timer_t *t)
{
    gr_client_t *c = t->data;
    (void)loop;
    fail(c, c->later_err);
}

static void
fail_later(gr_client_t *c, int err)
{
    c->later_err = err ? err : EIO;
    gr_timer_start(c->loop, &c->later, 0);
}

static void
want(gr_client_t *c)
{
    uint32_t ev = GR_IO_READ;
    if (c->state == C_CONNECTING || c->out_pos < c->out.len)
        ev |= GR_IO_WRITE;
    if (ev != c->io.events)
        gr_loop_io_set(c->loop, &c->io, ev);
}

/* Gives every whole frame read; 0, or -1 when c was closed meanwhile. */
static int
deliver(gr_client_t *c)
{
    size_t pos = 0;
    int rc = 0;
    while (c->in.len - pos >= 4) {
        const uint8_t *p = c->in.ptr + pos;
        int32_t size = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
                                 (uint32_t)p[2] << 8 | p[3]);
        if (size < 0 || (size_t)size > c->max_frame) {
            GR_LOG_WARN("client: a frame of %d bytes from the peer; closing",
                        (int)size);
            fail(c, EPROTO);
            return -1;
        }
        if (c->in.len - pos - 4 < (size_t)size)
            break;
        pos += 4 + (size_t)size;
        if (c->hooks.frame != NULL)
            c->hooks.frame(c->hooks.arg, p + 4, (size_t)size);
        if (c->state != C_UP) { /* closed (or reconnecting) from frame() */
            rc = -1;
            break;
        }
    }
    if (rc == 0 && pos > 0) {
        memmove(c->in.ptr, c->in.ptr + pos, c->in.len - pos);
        c->in.len -= pos;
    }
    return rc;
}

static void
io_cb(gr_loop_t *loop, gr_io_t *io, uint32_t events)
{
    gr_client_t *c = io->data;
    (void)loop;
    if (c->io.fd < 0)
        return; /* closed by an earlier event of the same round */
    if (c->state == C_CONNECTING) {
        int e = 0;
        socklen_t el = sizeof e;
        if (!(events & (GR_IO_WRITE | GR_IO_ERROR)))
            return;
        if (getsockopt(io->fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
            e = errno;
        if (e != 0) {
            fail(c, e);
            return;
        }
        c->state = C_UP;
        want(c);
        if (c->hooks.connected != NULL)
            c->hooks.connected(c->hooks.arg);
        return;
    }
    if (c->state != C_UP)
        return;
    if (events & (GR_IO_READ | GR_IO_ERROR)) {
        for (;;) {
            ssize_t r;
            if (gr_buf_reserve(&c->in, 65536) != 0) {
                fail(c, ENOMEM);
                return;
            }
            r = read(io->fd, c->in.ptr + c->in.len, c->in.cap - c->in.len);
            if (r > 0) {
                c->in.len += (size_t)r;
                if (deliver(c) != 0)
                    return;
                continue;
            }
            if (r == 0) {
                fail(c, ECONNRESET);
                return;
            }
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            fail(c, errno);
            return;
        }
    }
    while (c->out_pos < c->out.len) {
        ssize_t w = write(io->fd, c->out.ptr + c->out_pos,
                          c->out.len - c->out_pos);
        if (w > 0) {
            c->out_pos += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        fail(c, w < 0 ? errno : EIO);
        return;
    }
    if (c->out_pos == c->out.len) {
        gr_buf_reset(&c->out);
        c->out_pos = 0;
    }
    want(c);
}

gr_client_t *
gr_client_new(gr_loop_t *loop, gr_workers_t *workers,
              const gr_client_hooks_t *hooks, size_t max_frame)
{
    gr_client_t *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->loop = loop;
    c->workers = workers;
    c->hooks = *hooks;
    c->max_frame = max_frame;
    c->io.fd = -1;
    c->io.cb = io_cb;
    c->io.data = c;
    gr_timer_init(&c->later, later_cb, c);
    return c;
}

static void
start_connect(gr_client_t *c, const struct sockaddr *sa, socklen_t len)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    0);
    int one = 1;
    if (fd < 0) {
        fail_later(c, errno);
        return;
    }
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, sa, len) != 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        fail_later(c, e);
        return;
    }
    c->io.fd = fd;
    c->io.events = 0;
    if (gr_loop_io_add(c->loop, &c->io, GR_IO_READ | GR_IO_WRITE) != 0) {
        close(fd);
        c->io.fd = -1;
        fail_later(c, ENOMEM);
        return;
    }
    c->io.events = GR_IO_READ | GR_IO_WRITE;
    c->state = C_CONNECTING;
}

static void
resolve_work(void *arg)
{
    resolve_job_t *j = arg;
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    j->err = getaddrinfo(j->host, j->port, &hints, &res);
    if (j->err == 0 && res != NULL &&
        res->ai_addrlen <= (socklen_t)sizeof j->addr) {
        memcpy(&j->addr, res->ai_addr, res->ai_addrlen);
        j->addrlen = res->ai_addrlen;
    } else if (j->err == 0) {
        j->err = EAI_FAIL;
    }
    if (res != NULL)
        freeaddrinfo(res);
}

static void
resolve_done(gr_loop_t *loop, void *arg)
{
    resolve_job_t *j = arg;
    gr_client_t *c = j->c;
    (void)loop;
    if (c == NULL) { /* abandoned */
        free(j);
        return;
    }
    c->job = NULL;
    if (j->err != 0) {
        GR_LOG_WARN("client: cannot resolve %s: %s", j->host,
                    gai_strerror(j->err));
        free(j);
        fail(c, EHOSTUNREACH);
        return;
    }
    start_connect(c, (const struct sockaddr *)&j->addr, j->addrlen);
    free(j);
}

int
gr_client_connect(gr_client_t *c, const char *host, int32_t port)
{
    resolve_job_t *j;
    if (c->state != C_IDLE)
        return -1;
    if ((j = calloc(1, sizeof *j)) == NULL)
        return -1;
    j->c = c;
    snprintf(j->host, sizeof j->host, "%s", host);
    snprintf(j->port, sizeof j->port, "%d", (int)port);
    c->job = j;
    c->state = C_RESOLVING;
    if (gr_workers_submit(c->workers, resolve_work, resolve_done, j) != 0) {
        c->job = NULL;
        c->state = C_IDLE;
        free(j);
        return -1;
    }
    return 0;
}

int
gr_client_send(gr_client_t *c, const void *p, size_t n)
{
    if (c->state != C_UP)
        return -1;
    gr_buf_append(&c->out, p, n);
    if (c->out.oom) {
        fail_later(c, ENOMEM);
        return -1;
    }
    want(c);
    return 0;
}

bool
gr_client_up(const gr_client_t *c)
{
    return c->state == C_UP;
}

void
gr_client_close(gr_client_t *c)
{
    client_reset(c);
}

void
gr_client_free_now(gr_client_t *c)
{
    if (c == NULL)
        return;
    client_reset(c);
    gr_buf_fini(&c->out);
    gr_buf_fini(&c->in);
    free(c);
}

static void
free_cb(gr_loop_t *loop, gr_timer_t *t)
{
    (void)loop;
    gr_client_free_now(t->data);
}

void
gr_client_free(gr_client_t *c)
{
    if (c == NULL)
        return;
    client_reset(c);
    /* an event of its socket may wait later in the round the loop is
     * dispatching: c goes after it, with the timers */
    memset(&c->hooks, 0, sizeof c->hooks);
    gr_timer_init(&c->later, free_cb, c);
    gr_timer_start(c->loop, &c->later, 0);
}
