/*
 * Connections: see conn.h. The read buffer holds whole frames; a decoded
 * request points into it, so the buffer is compacted only when no request
 * is in flight. The response (header and body in the request arena, file
 * ranges by reference) is written with writev and sendfile.
 *
 * Memory bounds. A connection reads nothing while its request is in flight
 * (so a client that never reads its responses stops being read once the
 * socket's send buffer is full: one response and one read buffer per
 * connection at most). A read buffer holds at most one frame of up to
 * socket.request.max.bytes plus what arrived behind it, and is freed when
 * empty. The first RBUF_MIN bytes of every buffer are free; what buffers
 * hold beyond that, over all connections, is bounded by
 * queued.max.request.bytes (Kafka's memory pool): a connection that would
 * pass it stops reading until another buffer shrinks. A buffer grows with
 * what arrives (doubling), not with the size a frame announces, as Kafka
 * allocates: a frame's size costs nothing until its bytes come. When every
 * connection holding buffer memory waits for more, the one waiting longest
 * may pass the bound until its frame is whole (at most one frame over it),
 * so partly read frames never wait for each other. Connections idle for
 * connections.max.idle.ms (and with no request the broker is working on)
 * are closed, which also ends half-open ones and clients that stall
 * halfway through a frame or never read. Idle counts from the connection,
 * the last complete request read or the last response written whole:
 * bytes that trickle in (a frame a byte at a time) or out (a response
 * read a byte at a time) do not make a connection busy, where Kafka's
 * Selector counts any byte. Sockets have TCP keepalive, as Kafka's.
 */
#include "net/conn.h"
#include "broker.h"
#include "cluster/client_quotas.h"
#include "proto/gen/api_keys.h"
#include "core/log.h"
#include "core/time.h"
#include "net/listener.h"
#include "net/quota.h"
#include "net/sasl.h"
#include "net/tls.h"
#include "telemetry/telemetry.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/uio.h>
#include <unistd.h>

#define RBUF_MIN       (16 * 1024)
/* A larger buffer is kept while its connection is busy (a producer
 * sending big batches would otherwise grow one from scratch for every
 * request); it is freed when empty if above this, when another connection
 * waits for request memory, or after a second without traffic. */
#define RBUF_KEEP_MAX  (8 * 1024 * 1024)
#define RBUF_IDLE_US   1000000
#define ARENA_CHUNK    (16 * 1024)

typedef struct out_seg {
    const uint8_t *ptr; /* memory, or NULL for a file range */
    gr_file_t *file;
    int64_t off;
    size_t len;
} out_seg_t;

struct gr_conn {
    gr_io_t io;
    gr_tls_t *tls; /* SSL listeners: the session (net/tls.c) */
    gr_sasl_conn_t *sasl; /* SASL listeners: the exchange (net/sasl.c) */
    bool close_after_write; /* the response in flight is the last */
    gr_broker_t *broker;
    gr_listener_t *listener;
    gr_conn_t *prev, *next;   /* broker->conns or broker->closing */
    gr_conn_t *ready_next;    /* broker->ready */
    bool in_ready;
    bool closing;
    bool processing;
    char peer[INET6_ADDRSTRLEN + 8];
    uint64_t id;
    char host[INET6_ADDRSTRLEN + 16]; /* gr_req_peer_host() */
    int port;                         /* -1: unknown */
    char *sw_name, *sw_version;       /* ApiVersions v3+; NULL: unknown */

    uint8_t *rbuf;
    size_t rcap;
    size_t rlen; /* bytes in rbuf */
    size_t rpos; /* first byte not yet dispatched */

    gr_arena_t *arena;
    gr_req_t *req; /* in flight, from dispatch until its response is written */

    out_seg_t *out;
    int out_cnt;
    int out_idx;

    bool corked; /* TCP_CORK while a response with memory after a file
                  * range is written, so no part of it leaves alone */
    int64_t active_us;   /* connected, or the last request read whole or
                          * response written whole (idle timeout) */
    int64_t io_us;       /* last byte read or written (buffers kept) */
    gr_ipaddr_t ip;      /* the peer, as the quotas count it */
    bool mem_wait;       /* in broker->mem_waiting: reading paused */
    gr_conn_t *mem_next; /* broker->mem_waiting */
    /* client quotas (KIP-219): after a throttled response, no request is
     * read or dispatched before throttle_until_us (the timer ends it) */
    int64_t throttle_ms; /* of the response being written */
    int64_t throttle_until_us;
    gr_timer_t throttle_timer;
    /* a failed authentication: the answer is written at once, then the
     * connection reads nothing and closes after close_delay_ms, as
     * Kafka's Selector closes it after
     * connection.failed.authentication.delay.ms */
    int64_t close_delay_ms;
    gr_timer_t close_timer;
};

/* Idle connections hold no buffers: read buffers of the base size and
 * arenas go back to a small per-broker pool when a connection has nothing
 * buffered, and come from it on the next request (no allocation per
 * request in the steady state). Loop thread only. */
#define POOL_MAX 64
typedef struct conn_pool {
    uint8_t *rbufs[POOL_MAX];
    int nrbufs;
    gr_arena_t *arenas[POOL_MAX];
    int narenas;
} conn_pool_t;

static conn_pool_t *
pool_of(gr_broker_t *b)
{
    if (b->conn_pool == NULL)
        b->conn_pool = calloc(1, sizeof(conn_pool_t));
    return b->conn_pool;
}

/* Gives back the connection's base-size read buffer and its arena when it
 * has nothing buffered and no request in flight. */
static void
conn_park(gr_conn_t *conn)
{
    conn_pool_t *p = pool_of(conn->broker);
    if (p == NULL || conn->req != NULL || conn->rpos != conn->rlen)
        return;
    if (conn->rbuf != NULL && conn->rcap == RBUF_MIN &&
        p->nrbufs < POOL_MAX) {
        p->rbufs[p->nrbufs++] = conn->rbuf;
        conn->rbuf = NULL;
        conn->rcap = conn->rlen = conn->rpos = 0;
    }
    if (conn->arena != NULL && p->narenas < POOL_MAX) {
        gr_arena_reset(conn->arena);
        p->arenas[p->narenas++] = conn->arena;
        conn->arena = NULL;
    }
}

static void conn_io_cb(gr_loop_t *loop, gr_io_t *io, uint32_t events);
static void conn_update_events(gr_conn_t *conn);
static void mark_ready(gr_conn_t *conn);
static void conn_process(gr_conn_t *conn);
static void conn_read(gr_conn_t *conn);

static void
list_remove(gr_conn_t **head, gr_conn_t *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        *head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

static void
list_push(gr_conn_t **head, gr_conn_t *c)
{
    c->prev = NULL;
    c->next = *head;
    if (*head)
        (*head)->prev = c;
    *head = c;
}

/* Bytes of a read buffer that count against queued.max.request.bytes. */
static int64_t
rbuf_counted(size_t cap)
{
    return cap > RBUF_MIN ? (int64_t)(cap - RBUF_MIN) : 0;
}

/* Takes c out of broker->mem_waiting. */
static void
mem_unwait(gr_broker_t *b, gr_conn_t *c)
{
    gr_conn_t **pp = &b->mem_waiting;
    while (*pp != c)
        pp = &(*pp)->mem_next;
    *pp = c->mem_next;
    c->mem_next = NULL;
    c->mem_wait = false;
    if (rbuf_counted(c->rcap) > 0)
        b->mem_holders_waiting--;
}

/* Reading resumes for connections that waited for buffer memory. */
static void
mem_wake(gr_broker_t *b)
{
    while (b->mem_waiting != NULL) {
        gr_conn_t *c = b->mem_waiting;
        mem_unwait(b, c);
        conn_update_events(c);
    }
}

/* When every connection holding buffer memory waits for more, none can
 * finish a frame and give it back: the one waiting longest (the list's
 * tail) goes on, past the bound, until its frame is whole. */
static void
mem_unblock(gr_broker_t *b)
{
    gr_conn_t *c;
    if (b->mem_forced != NULL || b->mem_waiting == NULL ||
        b->mem_holders != b->mem_holders_waiting)
        return;
    for (c = b->mem_waiting; c->mem_next != NULL; c = c->mem_next)
        ;
    GR_LOG_DEBUG("connection %s passes queued.max.request.bytes to finish "
                 "its frame: every connection holding request memory waits",
                 c->peer);
    mem_unwait(b, c);
    b->mem_forced = c;
    conn_update_events(c);
}

/* Frees conn's read buffer (nothing may point into it). */
static void
rbuf_release(gr_conn_t *conn)
{
    gr_broker_t *b = conn->broker;
    if (rbuf_counted(conn->rcap) > 0)
        b->mem_holders--;
    if (b->mem_forced == conn)
        b->mem_forced = NULL;
    b->queued_bytes -= rbuf_counted(conn->rcap);
    free(conn->rbuf);
    conn->rbuf = NULL;
    conn->rcap = conn->rlen = conn->rpos = 0;
    if (b->mem_waiting != NULL)
        mem_wake(b);
}

/* addr as Java's InetAddress.getHostAddress() gives it: IPv4 dotted, an
 * IPv4-mapped IPv6 address as its IPv4 form (Java makes it an
 * Inet4Address), other IPv6 as eight groups of hex digits without leading
 * zeros or "::", then "%scope_id" when scoped. */
static void
java_host_address(const struct sockaddr *sa, char *out, size_t n)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, out, (socklen_t)n);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        const uint8_t *a = in6->sin6_addr.s6_addr;
        size_t k = 0;
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
            snprintf(out, n, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
            return;
        }
        for (int i = 0; i < 8 && k < n; i++)
            k += (size_t)snprintf(out + k, n - k, "%s%x", i ? ":" : "",
                                  (unsigned)(a[2 * i] << 8 | a[2 * i + 1]));
        if (in6->sin6_scope_id != 0 && k < n)
            snprintf(out + k, n - k, "%%%u", (unsigned)in6->sin6_scope_id);
    } else {
        out[0] = '\0';
    }
}

/* The throttle time is over: reading and dispatching go on. */
static void
throttle_end(gr_loop_t *loop, gr_timer_t *tm)
{
    gr_conn_t *conn = tm->data;
    (void)loop;
    conn->throttle_until_us = 0;
    if (conn->closing)
        return;
    mark_ready(conn); /* frames read before the mute */
    conn_update_events(conn);
}

/* The delay after a failed authentication is over. */
static void
close_delayed(gr_loop_t *loop, gr_timer_t *tm)
{
    gr_conn_t *conn = tm->data;
    (void)loop;
    if (!conn->closing)
        gr_conn_close(conn, "authentication failed");
}

/* A failed authentication's end, no request in flight: closed at once
 * (delay_ms <= 0) or muted for good, nothing more read or dispatched,
 * and closed delay_ms later. */
static void
close_later(gr_conn_t *conn, int64_t delay_ms)
{
    if (delay_ms <= 0) {
        gr_conn_close(conn, "authentication failed");
        return;
    }
    conn->throttle_until_us = INT64_MAX;
    gr_timer_start(conn->broker->loop, &conn->close_timer, delay_ms);
    conn_update_events(conn);
}

static bool
throttled(const gr_conn_t *conn)
{
    return conn->throttle_until_us != 0;
}

gr_conn_t *
gr_conn_new(gr_broker_t *b, gr_listener_t *l, int fd,
            const struct sockaddr *sa, socklen_t salen)
{
    static uint64_t next_id = 1;
    gr_conn_t *conn = calloc(1, sizeof(*conn));
    char host[INET6_ADDRSTRLEN] = "?";
    int port = -1, one = 1, sbuf;
    (void)salen;

    if (conn == NULL)
        return NULL;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
        port = ntohs(in->sin_port);
        snprintf(conn->peer, sizeof conn->peer, "%s:%d", host, port);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
        port = ntohs(in6->sin6_port);
        snprintf(conn->peer, sizeof conn->peer, "[%s]:%d", host, port);
    }
    java_host_address(sa, conn->host, sizeof conn->host);
    conn->port = port;
    /* atomic: tests run brokers on several threads of one process */
    conn->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    /* socket.send.buffer.bytes and socket.receive.buffer.bytes as Kafka's
     * acceptor sets them; -1 leaves the kernel's autotuning */
    if ((sbuf = (int)gr_conf_int(b->conf, GR_CONF_SOCKET_SEND_BUFFER_BYTES)) >
        0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sbuf, sizeof sbuf);
    if ((sbuf = (int)gr_conf_int(b->conf,
                                 GR_CONF_SOCKET_RECEIVE_BUFFER_BYTES)) > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sbuf, sizeof sbuf);
    conn->active_us = conn->io_us = gr_mono_us();
    gr_ipaddr_from_sockaddr(&conn->ip, sa);
    conn->io.fd = fd;
    conn->io.cb = conn_io_cb;
    conn->io.data = conn;
    conn->broker = b;
    conn->listener = l;
    gr_timer_init(&conn->throttle_timer, throttle_end, conn);
    gr_timer_init(&conn->close_timer, close_delayed, conn);
    if (l->tls != NULL)
        gr_tls_ctx_check_reload(l->tls, conn->io_us);
    if (l->tls != NULL &&
        (conn->tls = gr_tls_new(l->tls, fd, conn->peer)) == NULL) {
        free(conn);
        return NULL;
    }
    if (l->sasl != NULL && (conn->sasl = gr_sasl_conn_new(l->sasl, b)) == NULL) {
        gr_tls_free(conn->tls);
        free(conn);
        return NULL;
    }
    if (gr_loop_io_add(b->loop, &conn->io, GR_IO_READ) != 0) {
        gr_sasl_conn_free(conn->sasl);
        gr_tls_free(conn->tls);
        free(conn);
        return NULL;
    }
    list_push(&b->conns, conn);
    b->nconns++;
    gr_quotas_conn_opened(l, &conn->ip);
    GR_LOG_DEBUG("connection from %s on %s", conn->peer, l->name);
    return conn;
}

/* Ends the request in flight: drops file references and resets the arena. */
static void
request_end(gr_conn_t *conn)
{
    if (conn->req != NULL) {
        for (int i = 0; i < conn->req->nheld; i++)
            gr_file_unref(conn->req->held[i]);
        conn->req->nheld = 0;
    }
    for (int i = conn->out_idx; i < conn->out_cnt; i++)
        gr_file_unref(conn->out[i].file);
    conn->out = NULL;
    conn->out_cnt = conn->out_idx = 0;
    if (conn->req != NULL) {
        free(conn->req->held_mem);
        conn->req->held_mem = NULL;
    }
    conn->req = NULL;
    if (conn->arena)
        gr_arena_reset(conn->arena);
}

void
gr_conn_close(gr_conn_t *conn, const char *why)
{
    gr_broker_t *b = conn->broker;
    if (conn->closing)
        return;
    conn->closing = true;
    if (why)
        GR_LOG_DEBUG("closing connection %s: %s", conn->peer, why);
    /* Kafka's ConnectionDisconnectListener: the client instance this
     * connection made goes from the telemetry cache */
    if (b->telemetry != NULL)
        gr_telemetry_conn_closed(b->telemetry, conn->id);
    if (conn->req && conn->req->deferred &&
        (!conn->req->done || conn->req->write_held) && conn->req->abort_cb) {
        gr_req_t *req = conn->req;
        req->conn = NULL;
        req->abort_cb(req);
    }
    if (conn->mem_wait)
        mem_unwait(b, conn);
    if (b->mem_forced == conn)
        b->mem_forced = NULL;
    if (gr_timer_armed(&conn->throttle_timer))
        gr_timer_stop(b->loop, &conn->throttle_timer);
    if (gr_timer_armed(&conn->close_timer))
        gr_timer_stop(b->loop, &conn->close_timer);
    gr_loop_io_del(b->loop, &conn->io);
    list_remove(&b->conns, conn);
    list_push(&b->closing, conn);
    b->nconns--;
    gr_quotas_conn_closed(conn->listener, &conn->ip);
}

bool
gr_conn_close_lru(gr_broker_t *b, const char *why)
{
    gr_conn_t *lru = NULL;
    for (gr_conn_t *c = b->conns; c != NULL; c = c->next) {
        if (c->listener->inter_broker && b->nlisteners > 1)
            continue;
        if (lru == NULL || c->active_us < lru->active_us)
            lru = c;
    }
    if (lru == NULL)
        return false;
    GR_LOG_INFO("closing connection %s on %s, the least recently used: %s",
                lru->peer, lru->listener->name, why);
    gr_conn_close(lru, why);
    return true;
}

static void
conn_free(gr_conn_t *conn)
{
    request_end(conn);
    gr_sasl_conn_free(conn->sasl);
    gr_tls_free(conn->tls);
    close(conn->io.fd);
    gr_arena_destroy(conn->arena);
    rbuf_release(conn);
    free(conn->sw_name);
    free(conn->sw_version);
    free(conn);
}

void
gr_conn_reap(gr_broker_t *b)
{
    gr_quotas_before_sleep(b);
    /* connections with buffered frames whose response went out while
     * processing something else */
    while (b->ready) {
        gr_conn_t *c = b->ready;
        b->ready = c->ready_next;
        c->ready_next = NULL;
        c->in_ready = false;
        if (!c->closing && c->tls != NULL && c->req == NULL &&
            !throttled(c) && gr_tls_pending(c->tls) > 0)
            conn_read(c);
        else if (!c->closing)
            conn_process(c);
    }
    while (b->closing) {
        gr_conn_t *c = b->closing;
        list_remove(&b->closing, c);
        if (c->in_ready) {
            /* unlink from ready list */
            gr_conn_t **pp = &b->ready;
            while (*pp && *pp != c)
                pp = &(*pp)->ready_next;
            if (*pp)
                *pp = c->ready_next;
        }
        conn_free(c);
    }
}

void
gr_conn_close_all(gr_broker_t *b)
{
    conn_pool_t *p;
    while (b->conns)
        gr_conn_close(b->conns, "broker shutting down");
    gr_conn_reap(b);
    p = b->conn_pool;
    if (p != NULL) {
        for (int i = 0; i < p->nrbufs; i++)
            free(p->rbufs[i]);
        for (int i = 0; i < p->narenas; i++)
            gr_arena_destroy(p->arenas[i]);
        free(p);
        b->conn_pool = NULL;
    }
}

int
gr_conn_close_clients(gr_broker_t *b, const char *why)
{
    int n = 0;
    while (b->conns) {
        gr_conn_close(b->conns, why);
        n++;
    }
    return n;
}

static void
mark_ready(gr_conn_t *conn)
{
    gr_broker_t *b = conn->broker;
    if (conn->in_ready || conn->closing)
        return;
    conn->in_ready = true;
    conn->ready_next = b->ready;
    b->ready = conn;
}

/* One write of the output head over TLS: a file range (kTLS sendfile, or
 * read and written a record at a time), or up to a record of memory
 * segments gathered (the same bytes again after EAGAIN, as OpenSSL wants
 * a retried write). As write(2). */
static ssize_t
tls_flush_one(gr_conn_t *conn)
{
    out_seg_t *s = &conn->out[conn->out_idx];
    uint8_t buf[16384];
    size_t k = 0;
    if (s->file != NULL)
        return gr_tls_sendfile(conn->tls, s->file->fd, s->off, s->len);
    if (s->len >= sizeof buf)
        return gr_tls_write(conn->tls, s->ptr, s->len);
    for (int i = conn->out_idx; i < conn->out_cnt && k < sizeof buf; i++) {
        size_t take = conn->out[i].len;
        if (conn->out[i].file != NULL)
            break;
        if (take > sizeof buf - k)
            take = sizeof buf - k;
        memcpy(buf + k, conn->out[i].ptr, take);
        k += take;
    }
    return gr_tls_write(conn->tls, buf, k);
}

/* Writes what it can. Returns 1 when the output is all written, 0 when the
 * socket is full, -1 on error (connection closed). */
static int
conn_flush(gr_conn_t *conn)
{
    while (conn->out_idx < conn->out_cnt) {
        out_seg_t *s = &conn->out[conn->out_idx];
        ssize_t n;
        if (conn->tls != NULL) {
            n = tls_flush_one(conn);
        } else if (s->file != NULL) {
            off_t off = s->off;
            size_t want = s->len > 0x7ffff000 ? 0x7ffff000 : s->len;
            n = sendfile(conn->io.fd, s->file->fd, &off, want);
            if (n == 0) {
                gr_conn_close(conn, "file range shorter than expected");
                return -1;
            }
        } else {
            struct iovec iov[64];
            struct msghdr mh = { .msg_iov = iov };
            int cnt = 0, i;
            for (i = conn->out_idx; i < conn->out_cnt && cnt < 64; i++) {
                if (conn->out[i].file != NULL)
                    break;
                iov[cnt].iov_base = (void *)conn->out[i].ptr;
                iov[cnt].iov_len = conn->out[i].len;
                cnt++;
            }
            mh.msg_iovlen = (size_t)cnt;
            /* a file range follows: no partial segment for this head */
            n = sendmsg(conn->io.fd, &mh, i < conn->out_cnt ? MSG_MORE : 0);
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            if (errno == EINTR)
                continue;
            gr_conn_close(conn, conn->tls ? gr_tls_error(conn->tls)
                                          : strerror(errno));
            return -1;
        }
        /* advance over what was written */
        size_t left = (size_t)n;
        if (n > 0)
            conn->io_us = gr_mono_us();
        while (left > 0 && conn->out_idx < conn->out_cnt) {
            out_seg_t *o = &conn->out[conn->out_idx];
            if (left >= o->len) {
                left -= o->len;
                gr_file_unref(o->file);
                o->file = NULL;
                conn->out_idx++;
            } else {
                if (o->ptr)
                    o->ptr += left;
                else
                    o->off += (int64_t)left;
                o->len -= left;
                left = 0;
            }
        }
        /* skip empty segments */
        while (conn->out_idx < conn->out_cnt &&
               conn->out[conn->out_idx].len == 0) {
            gr_file_unref(conn->out[conn->out_idx].file);
            conn->out[conn->out_idx].file = NULL;
            conn->out_idx++;
        }
    }
    return 1;
}

static void
conn_update_events(gr_conn_t *conn)
{
    uint32_t ev;
    if (conn->closing)
        return;
    if (conn->req != NULL) {
        /* muted: watch only for the peer going away, and for room to
         * write once the response is queued */
        ev = GR_IO_RDHUP;
        if (conn->out_cnt > conn->out_idx && !conn->req->write_held)
            ev |= GR_IO_WRITE;
    } else if (conn->mem_wait) {
        ev = GR_IO_RDHUP; /* until queued request bytes are released */
    } else if (throttled(conn)) {
        ev = GR_IO_RDHUP; /* muted until the throttle time is over */
    } else {
        ev = GR_IO_READ;
        /* records OpenSSL already decrypted: the socket will not tell */
        if (conn->tls != NULL && gr_tls_pending(conn->tls) > 0)
            mark_ready(conn);
    }
    /* a TLS handshake or key update waits for the other direction */
    if (conn->tls != NULL && (ev & GR_IO_READ) &&
        gr_tls_wants(conn->tls, false) == GR_TLS_WANT_WRITE)
        ev |= GR_IO_WRITE;
    if (conn->tls != NULL && (ev & GR_IO_WRITE) &&
        gr_tls_wants(conn->tls, true) == GR_TLS_WANT_READ)
        ev = (ev & ~GR_IO_WRITE) | GR_IO_READ;
    gr_loop_io_set(conn->broker->loop, &conn->io, ev);
}

/* A throttled response is out: the connection is muted for its throttle
 * time, as Kafka's ThrottledChannel mutes it once the response is sent. */
static void
throttle_start(gr_conn_t *conn)
{
    int64_t ms = conn->throttle_ms;
    conn->throttle_ms = 0;
    if (ms <= 0 || conn->closing)
        return;
    conn->throttle_until_us = gr_mono_us() + ms * 1000;
    if (gr_timer_armed(&conn->throttle_timer))
        gr_timer_stop(conn->broker->loop, &conn->throttle_timer);
    gr_timer_start(conn->broker->loop, &conn->throttle_timer, ms);
}

/* The response of the request in flight is queued: write it. When it is
 * all out, the request ends and buffered frames may be processed. */
static void
conn_output_queued(gr_conn_t *conn)
{
    int rc = conn_flush(conn);
    if (rc < 0)
        return;
    if (rc == 1) {
        if (conn->corked) {
            int zero = 0;
            setsockopt(conn->io.fd, IPPROTO_TCP, TCP_CORK, &zero, sizeof zero);
            conn->corked = false;
        }
        request_end(conn);
        conn->active_us = gr_mono_us(); /* a response written whole */
        if (conn->close_after_write) {
            close_later(conn, conn->close_delay_ms);
            return;
        }
        throttle_start(conn);
        if (!conn->processing)
            mark_ready(conn);
    }
    conn_update_events(conn);
}

static gr_req_t *
req_new(gr_conn_t *conn)
{
    gr_req_t *req;
    if (conn->arena == NULL) {
        conn_pool_t *p = pool_of(conn->broker);
        conn->arena = p && p->narenas ? p->arenas[--p->narenas]
                                      : gr_arena_new(ARENA_CHUNK);
        if (conn->arena == NULL)
            return NULL;
    }
    req = gr_arena_zalloc(conn->arena, sizeof(*req));
    if (req == NULL)
        return NULL;
    req->conn = conn;
    req->broker = conn->broker;
    req->a = conn->arena;
    req->start_us = gr_mono_us();
    return req;
}

/* Makes room for a frame of `need` bytes from rpos. 0; 1 when the
 * buffer may not grow now (queued.max.request.bytes: the connection waits
 * in broker->mem_waiting, reading paused); -1 (closed). */
static int
rbuf_reserve(gr_conn_t *conn, size_t need)
{
    gr_broker_t *b = conn->broker;
    size_t cap;
    int64_t more;
    uint8_t *p;
    if (conn->rpos > 0) {
        /* no request in flight: nothing points into the buffer */
        memmove(conn->rbuf, conn->rbuf + conn->rpos, conn->rlen - conn->rpos);
        conn->rlen -= conn->rpos;
        conn->rpos = 0;
    }
    if (conn->rcap >= need)
        return 0;
    if (conn->rbuf == NULL && need <= RBUF_MIN) {
        conn_pool_t *pl = pool_of(b);
        if (pl && pl->nrbufs) {
            conn->rbuf = pl->rbufs[--pl->nrbufs];
            conn->rcap = RBUF_MIN;
            return 0;
        }
    }
    cap = conn->rcap ? conn->rcap : RBUF_MIN;
    while (cap < need)
        cap *= 2;
    more = rbuf_counted(cap) - rbuf_counted(conn->rcap);
    /* one request always fits: when no other buffer is counted, even one
     * larger than the bound goes ahead (socket.request.max.bytes); so
     * does the frame mem_unblock() let go on */
    if (more > 0 && b->queued_max_bytes > 0 && b->queued_bytes > 0 &&
        b->queued_bytes + more > b->queued_max_bytes &&
        b->mem_forced != conn) {
        if (!conn->mem_wait) {
            GR_LOG_DEBUG("connection %s waits for request memory: %lld of "
                         "queued.max.request.bytes=%lld in use, %lld more "
                         "needed",
                         conn->peer, (long long)b->queued_bytes,
                         (long long)b->queued_max_bytes, (long long)more);
            conn->mem_wait = true;
            conn->mem_next = b->mem_waiting;
            b->mem_waiting = conn;
            if (rbuf_counted(conn->rcap) > 0)
                b->mem_holders_waiting++;
            b->stat_mem_waits++;
            mem_unblock(b);
        }
        return 1;
    }
    p = realloc(conn->rbuf, cap);
    if (p == NULL) {
        gr_conn_close(conn, "out of memory for the read buffer");
        return -1;
    }
    if (more > 0 && rbuf_counted(conn->rcap) == 0)
        b->mem_holders++;
    b->queued_bytes += more;
    conn->rbuf = p;
    conn->rcap = cap;
    return 0;
}

/* Dispatches buffered frames while no request is in flight. */
static void
conn_process(gr_conn_t *conn)
{
    conn->processing = true;
    while (!conn->closing && conn->req == NULL && !throttled(conn)) {
        size_t avail = conn->rlen - conn->rpos;
        uint32_t size;
        gr_req_t *req;

        if (avail < 4)
            break;
        size = gr_get_u32(conn->rbuf + conn->rpos);
        if ((int32_t)size < 0 ||
            (int64_t)size > conn->broker->max_request_bytes) {
            GR_LOG_WARN("closing connection %s: request size %d is larger "
                        "than socket.request.max.bytes (%lld) or invalid",
                        conn->peer, (int32_t)size,
                        (long long)conn->broker->max_request_bytes);
            gr_conn_close(conn, "request too large");
            break;
        }
        /* before SASL authentication: sasl.server.max.receive.size */
        if (conn->sasl != NULL && gr_sasl_conn_max_receive(conn->sasl) > 0 &&
            (int64_t)size > gr_sasl_conn_max_receive(conn->sasl)) {
            char why[96];
            if ((req = req_new(conn)) == NULL) {
                gr_conn_close(conn, "out of memory");
                break;
            }
            conn->req = req;
            conn->rpos = conn->rlen; /* nothing more is read */
            snprintf(why, sizeof why, "%u bytes, at most %lld", size,
                     (long long)gr_sasl_conn_max_receive(conn->sasl));
            gr_sasl_refuse_frame(req, why);
            break;
        }
        if (avail - 4 < size)
            break; /* the buffer grows as the rest arrives (conn_read) */
        req = req_new(conn);
        if (req == NULL) {
            gr_conn_close(conn, "out of memory");
            break;
        }
        conn->req = req;
        conn->active_us = req->start_us; /* a request read whole */
        if (conn->broker->mem_forced == conn)
            conn->broker->mem_forced = NULL; /* its frame is whole */
        {
            const uint8_t *frame = conn->rbuf + conn->rpos + 4;
            conn->rpos += 4 + (size_t)size;
            req->frame_len = size;
            req->in_dispatch = true;
            if (conn->sasl != NULL && gr_sasl_conn_raw(conn->sasl))
                gr_sasl_raw_token(req, frame, size); /* after SaslHandshake v0 */
            else
                conn->broker->dispatch->request(req, frame, size);
            /* a request still in flight was deferred: the loop's time on
             * it so far is what its quota counts */
            if (conn->req == req) {
                req->in_dispatch = false;
                req->loop_us = gr_mono_us() - req->start_us;
            }
        }
        /* the handler replied, deferred or closed; a reply already written
         * ended the request (conn->req == NULL) */
    }
    if (!conn->closing && conn->req == NULL && conn->rpos == conn->rlen) {
        gr_broker_t *b = conn->broker;
        conn->rpos = conn->rlen = 0;
        if (conn->rcap > RBUF_KEEP_MAX ||
            (conn->rcap > RBUF_MIN && b->mem_waiting != NULL))
            rbuf_release(conn);
        conn_park(conn);
    }
    conn->processing = false;
    conn_update_events(conn);
}

static void
conn_read(gr_conn_t *conn)
{
    for (int rounds = 0; rounds < 4 && !conn->closing && conn->req == NULL;
         rounds++) {
        ssize_t n;
        if (conn->rcap - conn->rlen < 4096 || conn->rbuf == NULL) {
            size_t want = conn->rlen - conn->rpos + RBUF_MIN;
            int rc = rbuf_reserve(conn, want);
            if (rc < 0)
                return;
            if (rc > 0) {
                /* no room to grow: read into what is left, if anything */
                if (conn->rcap == conn->rlen) {
                    conn_update_events(conn);
                    return;
                }
            }
        }
        n = conn->tls != NULL
                ? gr_tls_read(conn->tls, conn->rbuf + conn->rlen,
                              conn->rcap - conn->rlen)
                : read(conn->io.fd, conn->rbuf + conn->rlen,
                       conn->rcap - conn->rlen);
        if (n == 0) {
            if (conn->rlen > conn->rpos)
                GR_LOG_DEBUG("connection %s closed mid-request (%zu bytes "
                             "pending)",
                             conn->peer, conn->rlen - conn->rpos);
            gr_conn_close(conn, "closed by peer");
            return;
        }
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            if (errno == EINTR)
                continue;
            gr_conn_close(conn, conn->tls ? gr_tls_error(conn->tls)
                                          : strerror(errno));
            return;
        }
        conn->rlen += (size_t)n;
        conn->io_us = gr_mono_us();
        conn_process(conn);
        if ((size_t)n < 4096 &&
            (conn->tls == NULL || gr_tls_pending(conn->tls) == 0))
            return;
    }
}

static void
conn_io_cb(gr_loop_t *loop, gr_io_t *io, uint32_t events)
{
    gr_conn_t *conn = io->data;
    (void)loop;
    if (conn->closing)
        return;
    if (conn->req != NULL) {
        if (!conn->req->write_held &&
            ((events & GR_IO_WRITE) ||
             (conn->tls != NULL && (events & GR_IO_READ) &&
              conn->out_cnt > conn->out_idx)))
            conn_output_queued(conn);
        if (!conn->closing && conn->req != NULL &&
            (events & (GR_IO_RDHUP | GR_IO_ERROR))) {
            gr_conn_close(conn, "peer went away while a request was pending");
            return;
        }
        if (conn->req == NULL && !conn->closing)
            conn_process(conn);
        return;
    }
    if (events & (GR_IO_READ | GR_IO_ERROR | GR_IO_RDHUP) ||
        (conn->tls != NULL && (events & GR_IO_WRITE)))
        conn_read(conn);
}

/* --- limits */

/* How often idle connections are looked for: a quarter of the timeout,
 * between 10 ms and 30 s. */
static int64_t
idle_period_ms(const gr_broker_t *b)
{
    int64_t p = b->max_idle_ms / 4;
    if (b->max_idle_ms <= 0)
        p = 1000;
    /* at least every second: large read buffers of quiet connections go */
    return p < 10 ? 10 : p > 1000 ? 1000 : p;
}

static void
idle_sweep(gr_loop_t *loop, gr_timer_t *t)
{
    gr_broker_t *b = t->data;
    int64_t now = gr_mono_us(), idle_us = b->max_idle_ms * 1000;
    gr_conn_t *c, *next;

    for (c = b->conns; c != NULL; c = next) {
        next = c->next;
        if (!c->closing && c->req == NULL && c->rcap > RBUF_MIN &&
            c->rpos == c->rlen && now - c->io_us >= RBUF_IDLE_US)
            rbuf_release(c);
        if (c->closing || b->max_idle_ms <= 0 || now - c->active_us < idle_us)
            continue;
        /* a request the broker holds (long poll, acks waiting for an
         * fsync) is the broker's turn, not idleness */
        if (c->req != NULL && c->req->deferred &&
            (!c->req->done || c->req->write_held))
            continue;
        GR_LOG_DEBUG("closing connection %s: no complete request or "
                     "response for %lld ms (connections.max.idle.ms)%s",
                     c->peer, (long long)((now - c->active_us) / 1000),
                     c->out_cnt > c->out_idx ? ", response unread"
                     : c->rlen > c->rpos     ? ", a request half read"
                                             : "");
        b->stat_idle_closed++;
        gr_conn_close(c, "idle"); /* no deferred request: no callbacks */
    }
    gr_timer_start(loop, t, idle_period_ms(b));
}

int
gr_conn_limits_start(gr_broker_t *b)
{
    b->max_idle_ms = gr_conf_int(b->conf, GR_CONF_CONNECTIONS_MAX_IDLE_MS);
    b->queued_max_bytes =
        gr_conf_int(b->conf, GR_CONF_QUEUED_MAX_REQUEST_BYTES);
    /* Kafka's rule: a bound must let the largest request in */
    if (b->queued_max_bytes > 0 &&
        b->queued_max_bytes < b->max_request_bytes) {
        GR_LOG_ERROR("queued.max.request.bytes (%lld) must be -1 or at least "
                     "socket.request.max.bytes (%lld)",
                     (long long)b->queued_max_bytes,
                     (long long)b->max_request_bytes);
        return -1;
    }
    gr_timer_init(&b->idle_timer, idle_sweep, b);
    gr_timer_start(b->loop, &b->idle_timer, idle_period_ms(b));
    return gr_quotas_start(b);
}

void
gr_conn_limits_stop(gr_broker_t *b)
{
    if (gr_timer_armed(&b->idle_timer))
        gr_timer_stop(b->loop, &b->idle_timer);
    gr_quotas_stop(b);
}

/* --- request completion */

static int reply_encode(gr_req_t *req);

int
gr_req_reply(gr_req_t *req)
{
    /* the control interface's hook sees the response first; one it
     * holds is encoded now all the same, written when released */
    if (req->reply_hook != NULL && !req->done && req->reply_hook(req) != 0)
        req->write_held = true;
    return reply_encode(req);
}

void
gr_req_release(gr_req_t *req)
{
    gr_conn_t *conn = req->conn;
    GR_ASSERT(req->write_held);
    req->write_held = false;
    if (conn == NULL || conn->closing)
        return;
    conn_output_queued(conn);
}

/* Records a request being answered on its client quotas, as Kafka's
 * KafkaApis and RequestHandlerHelper do: a Produce's request bytes on the
 * producer_byte_rate, the loop's time on it as a percentage of one
 * thread's second on the request_percentage (not for the cluster actions
 * Kafka exempts: WriteTxnMarkers; nor for a Produce with acks=0, none:
 * Kafka exempts its no-op response). The throttle time: the largest of
 * those and what the handler set (Fetch's consumer_byte_rate). */
static int64_t
quota_account(gr_req_t *req, bool noreply)
{
    gr_client_quotas_t *q = req->broker->client_quotas;
    int64_t now_us = gr_mono_us(), t = req->throttle_ms, x;
    /* the quota windows count in the broker's clock (core/loop.h) */
    int64_t now_ms = gr_loop_mono_ms(req->broker->loop);
    const gr_str_t *cid = &req->hdr.client_id;

    if (q == NULL || req->api == NULL)
        return t;
    if (req->hdr.api_key == GR_API_PRODUCE &&
        gr_client_quotas_enabled(q, GR_CQT_PRODUCE)) {
        x = gr_client_quotas_record(q, GR_CQT_PRODUCE, gr_req_user(req), cid,
                                    (double)req->frame_len, now_ms);
        t = x > t ? x : t;
    }
    if (!noreply && req->hdr.api_key != GR_API_WRITE_TXN_MARKERS &&
        gr_client_quotas_enabled(q, GR_CQT_REQUEST)) {
        int64_t us = req->in_dispatch ? now_us - req->start_us : req->loop_us;
        /* nanos x 100 / 1e9 (NANOS_TO_PERCENTAGE_PER_SECOND) */
        x = gr_client_quotas_record(q, GR_CQT_REQUEST, gr_req_user(req), cid,
                                    (double)us / 1e4, now_ms);
        t = x > t ? x : t;
    }
    if (t > 0)
        GR_LOG_DEBUG("%s (client %.*s): %s throttled for %lld ms",
                     gr_req_peer(req), cid->len > 0 ? cid->len : 0,
                     cid->ptr ? cid->ptr : "", req->api->name, (long long)t);
    return t;
}

static int
reply_encode(gr_req_t *req)
{
    gr_conn_t *conn = req->conn;
    const gr_proto_api_t *api = req->api;
    int hver = gr_proto_resp_header_version(req->hdr.api_key, req->version);
    int64_t throttle;
    size_t body, total, mem;
    uint8_t *buf;
    gr_writer_t w;

    GR_ASSERT(conn != NULL && !req->done);
    throttle = quota_account(req, false);

    /* KIP-219: the response says how long the client is throttled (every
     * API with the field, from its version on) */
    if (throttle > 0 && api->throttle_off >= 0 &&
        req->version >= api->throttle_ver) {
        int32_t *f = (int32_t *)((char *)req->resp + api->throttle_off);
        if (*f < throttle)
            *f = throttle < INT32_MAX ? (int32_t)throttle : INT32_MAX;
    }
    conn->throttle_ms = throttle;
    body = api->response.size(req->resp, req->version);
    total = gr_resp_header_size(hver) + body;
    mem = 4 + total - req->file_bytes;

    GR_ASSERT(conn != NULL && !req->done);
    req->done = true;
    if (total > INT32_MAX) {
        gr_conn_close(conn, "response too large");
        return 0;
    }
    buf = gr_arena_alloc(req->a, mem);
    if (buf == NULL) {
        gr_conn_close(conn, "out of memory for a response");
        return 0;
    }
    w = gr_writer_init(buf, mem, req->a);
    gr_wr_i32(&w, (int32_t)total);
    gr_resp_header_encode(&w, hver, req->hdr.correlation_id);
    api->response.encode(&w, req->resp, req->version);
    if (w.err || (size_t)(w.p - w.start) != mem) {
        GR_LOG_ERROR("encoding %s v%d response: %zu of %zu bytes (err %d)",
                     api->name, req->version, (size_t)(w.p - w.start), mem,
                     w.err);
        gr_conn_close(conn, "response encoding failed");
        return 0;
    }
    conn->broker->dispatch->response(req, buf, mem, &w);

    /* memory, file, memory, ... */
    conn->out = gr_arena_alloc(req->a,
                               sizeof(out_seg_t) * (size_t)(2 * w.splices_cnt + 1));
    if (conn->out == NULL) {
        gr_conn_close(conn, "out of memory for a response");
        return 0;
    }
    {
        size_t at = 0;
        int k = 0;
        for (int i = 0; i < w.splices_cnt; i++) {
            gr_splice_t *s = &w.splices[i];
            if (s->at > at) {
                conn->out[k++] = (out_seg_t){buf + at, NULL, 0, s->at - at};
                at = s->at;
            }
            conn->out[k++] =
                s->file != NULL
                    ? (out_seg_t){NULL, gr_file_ref(s->file), s->off,
                                  (size_t)s->len}
                    : (out_seg_t){s->ptr, NULL, 0, (size_t)s->len};
        }
        if (mem > at)
            conn->out[k++] = (out_seg_t){buf + at, NULL, 0, mem - at};
        conn->out_cnt = k;
        conn->out_idx = 0;
    }
    /* A response that ends in a file range goes out as one head with
     * MSG_MORE and a sendfile; only memory after a file range (more than
     * one partition, or flexible versions' trailing tags) needs the cork,
     * since sendfile pushes its last bytes out on their own. */
    if (conn->out_cnt > 0 && conn->out[conn->out_cnt - 1].file == NULL &&
        w.splices_cnt > 0 && !conn->corked) {
        int one = 1;
        setsockopt(conn->io.fd, IPPROTO_TCP, TCP_CORK, &one, sizeof one);
        conn->corked = true;
    }
    if (req->write_held) {
        conn_update_events(conn); /* muted until released */
        return 0;
    }
    conn_output_queued(conn);
    return 0;
}

int
gr_req_reply_and_close(gr_req_t *req)
{
    return gr_req_reply_and_close_after(req, 0);
}

int
gr_req_reply_and_close_after(gr_req_t *req, int64_t delay_ms)
{
    req->conn->close_after_write = true;
    req->conn->close_delay_ms = delay_ms;
    return gr_req_reply(req);
}

int
gr_req_close_after(gr_req_t *req, int64_t delay_ms)
{
    gr_conn_t *conn = req->conn;
    GR_ASSERT(conn != NULL && !req->done);
    req->done = true;
    request_end(conn);
    close_later(conn, delay_ms);
    return 0;
}

int
gr_req_reply_raw(gr_req_t *req, const void *p, size_t n)
{
    gr_conn_t *conn = req->conn;
    uint8_t *buf;
    GR_ASSERT(conn != NULL && !req->done);
    req->done = true;
    buf = gr_arena_alloc(req->a, 4 + n);
    conn->out = gr_arena_alloc(req->a, sizeof(out_seg_t));
    if (buf == NULL || conn->out == NULL || n > INT32_MAX) {
        conn->out = NULL;
        gr_conn_close(conn, "out of memory for a response");
        return 0;
    }
    gr_put_u32(buf, (uint32_t)n);
    if (n > 0)
        memcpy(buf + 4, p, n);
    conn->out[0] = (out_seg_t){ buf, NULL, 0, 4 + n };
    conn->out_cnt = 1;
    conn->out_idx = 0;
    conn_output_queued(conn);
    return 0;
}

int
gr_req_noreply(gr_req_t *req)
{
    gr_conn_t *conn = req->conn;
    GR_ASSERT(conn != NULL && !req->done);
    conn->throttle_ms = quota_account(req, true);
    req->done = true;
    request_end(conn);
    throttle_start(conn);
    if (!conn->processing)
        mark_ready(conn);
    conn_update_events(conn);
    return 0;
}

int
gr_req_defer(gr_req_t *req, gr_req_abort_cb abort_cb, void *owner)
{
    req->deferred = true;
    req->abort_cb = abort_cb;
    req->owner = owner;
    return 0;
}

int
gr_req_close(gr_req_t *req, const char *why)
{
    req->done = true;
    gr_conn_close(req->conn, why);
    return 0;
}

void
gr_req_hold_mem(gr_req_t *req, void *p)
{
    GR_ASSERT(req->held_mem == NULL);
    req->held_mem = p;
}

int
gr_req_hold_file(gr_req_t *req, gr_file_t *f)
{
    if (req->nheld == req->held_cap) {
        int cap = req->held_cap ? req->held_cap * 2 : 16;
        gr_file_t **h = gr_arena_alloc(req->a, (size_t)cap * sizeof(*h));
        if (h == NULL)
            return -1;
        if (req->nheld)
            memcpy(h, req->held, (size_t)req->nheld * sizeof(*h));
        req->held = h;
        req->held_cap = cap;
    }
    req->held[req->nheld++] = gr_file_ref(f);
    return 0;
}

const char *
gr_req_listener_name(const gr_req_t *req)
{
    return req->conn ? req->conn->listener->name : "";
}

const char *
gr_req_peer(const gr_req_t *req)
{
    return req->conn ? req->conn->peer : "?";
}

struct gr_sasl_conn *
gr_req_sasl(const gr_req_t *req)
{
    return req->conn != NULL ? req->conn->sasl : NULL;
}

const char *
gr_req_principal(const gr_req_t *req)
{
    if (req->conn != NULL && req->conn->sasl != NULL &&
        gr_sasl_conn_principal(req->conn->sasl) != NULL)
        return gr_sasl_conn_principal(req->conn->sasl);
    if (req->conn != NULL && req->conn->tls != NULL &&
        gr_tls_handshake_done(req->conn->tls))
        return gr_tls_principal(req->conn->tls);
    return "User:ANONYMOUS";
}

const char *
gr_req_user(const gr_req_t *req)
{
    const char *p = gr_req_principal(req), *colon = strchr(p, ':');
    return colon ? colon + 1 : p;
}

uint64_t
gr_req_conn_id(const gr_req_t *req)
{
    return req->conn ? req->conn->id : 0;
}

const char *
gr_req_peer_host(const gr_req_t *req)
{
    return req->conn ? req->conn->host : "";
}

int
gr_req_peer_port(const gr_req_t *req)
{
    return req->conn ? req->conn->port : -1;
}

const char *
gr_req_client_software_name(const gr_req_t *req)
{
    return req->conn && req->conn->sw_name ? req->conn->sw_name : "unknown";
}

const char *
gr_req_client_software_version(const gr_req_t *req)
{
    return req->conn && req->conn->sw_version ? req->conn->sw_version
                                              : "unknown";
}

/* A copy of s, or NULL for an empty or null one ("unknown"); *oom set
 * when a copy could not be made. */
static char *
software_dup(const gr_str_t *s, bool *oom)
{
    char *p;
    if (s->ptr == NULL || s->len <= 0)
        return NULL;
    if ((p = strndup(s->ptr, (size_t)s->len)) == NULL)
        *oom = true;
    return p;
}

int
gr_req_set_client_software(gr_req_t *req, const gr_str_t *name,
                           const gr_str_t *version)
{
    gr_conn_t *conn = req->conn;
    bool oom = false;
    char *n, *v;
    if (conn == NULL)
        return 0;
    n = software_dup(name, &oom);
    v = software_dup(version, &oom);
    if (oom) {
        free(n);
        free(v);
        return -1;
    }
    free(conn->sw_name);
    free(conn->sw_version);
    conn->sw_name = n;
    conn->sw_version = v;
    return 0;
}

void
gr_conn_foreach(gr_broker_t *b, gr_conn_visit_cb cb, void *arg)
{
    for (gr_conn_t *c = b->conns; c != NULL; c = c->next)
        if (!c->closing)
            cb(arg, c->listener != NULL ? c->listener->name : "", c->req);
}
