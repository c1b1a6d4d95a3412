/*
 * Client connections: framing (4-byte big-endian size, refused above
 * socket.request.max.bytes), one request in flight at a time (Kafka's mute:
 * the next frame is not dispatched until the previous response is written,
 * so answers leave in order), and a write queue of memory ranges and file
 * ranges (sendfile). A connection is never freed inside its own callback:
 * closing marks it and the loop frees it before sleeping.
 */
#ifndef GR_NET_CONN_H
#define GR_NET_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/arena.h"
#include "core/loop.h"
#include "proto/proto.h"

typedef struct gr_broker gr_broker_t;
typedef struct gr_conn gr_conn_t;
typedef struct gr_listener gr_listener_t;
typedef struct gr_req gr_req_t;

/* Called when a deferred request's connection goes away: the owner must drop
 * every reference to req before returning; req is freed afterwards. */
typedef void (*gr_req_abort_cb)(gr_req_t *req);

/* One request, from dispatch to its response. Loop thread only. */
struct gr_req {
    gr_conn_t *conn;
    gr_broker_t *broker;
    gr_arena_t *a;           /* body, response and scratch; freed after */
    gr_req_header_t hdr;     /* client_id points into the frame */
    int16_t version;         /* == hdr.api_version */
    const gr_proto_api_t *api;
    void *body;              /* decoded request (generated struct) */
    void *resp;              /* response, initialised; filled by the handler */
    size_t file_bytes;       /* bytes of records in resp sent from files
                              * or by reference (not encoded in memory) */
    void *held_mem;          /* freed when the request ends: what records
                              * by reference point into (gr_req_hold_mem) */
    gr_file_t **held;        /* files kept open until the request ends */
    int nheld, held_cap;
    int64_t start_us;
    /* client quotas: the frame's size (a Produce's bytes), the loop's time
     * on the request while deferred (in_dispatch: still in gr_dispatch()),
     * and a throttle time a handler decided (Fetch's consumer_byte_rate) */
    uint32_t frame_len;
    bool in_dispatch;
    int64_t loop_us;
    int64_t throttle_ms;
    gr_req_abort_cb abort_cb; /* set while deferred */
    void *owner;             /* for the deferring module */
    bool deferred;
    bool done;
    /* The control interface's (src/control/): called by gr_req_reply()
     * before encoding; non-zero holds the write back: the response is
     * encoded at once (the handler may free what it points to) and
     * written when the hook calls gr_req_release(), unless the
     * connection closes first (abort_cb, as a deferred request). */
    int (*reply_hook)(gr_req_t *req);
    bool write_held;
    void *hook_arg;
};

/* What connections hand their frames to. The layer above (api/dispatch.c,
 * gr_api_dispatch) fills it and the broker points b->dispatch at it, so
 * net/ knows no API. Loop thread only. */
typedef struct gr_conn_dispatch {
    /* One frame (without its size prefix), valid until the request ends;
     * on return the request is finished, deferred or its connection
     * closed. */
    void (*request)(gr_req_t *req, const uint8_t *frame, size_t len);
    /* Every encoded response, before it is queued (frame dumps, traces). */
    void (*response)(gr_req_t *req, const uint8_t *buf, size_t len,
                     const gr_writer_t *w);
} gr_conn_dispatch_t;

/* Encodes req->resp and queues it; the request ends when it is written.
 * Returns 0 (the request is finished from the handler's point of view). */
int gr_req_reply(gr_req_t *req);
/* Writes a response the reply hook held (write_held). */
void gr_req_release(gr_req_t *req);
/* Ends a request that gets no response (Produce acks=0). */
int gr_req_noreply(gr_req_t *req);
/* Hands req to an owner that will reply later; abort_cb is called instead if
 * the connection closes first. Returns 0. */
int gr_req_defer(gr_req_t *req, gr_req_abort_cb abort_cb, void *owner);
/* Writes a response that is not a Kafka one: 4-byte size and the n bytes
 * at p (copied), as the raw SASL tokens after SaslHandshake v0. 0. */
int gr_req_reply_raw(gr_req_t *req, const void *p, size_t n);
/* As gr_req_reply(), then closes the connection once the response is
 * written (a failed SASL authentication). */
int gr_req_reply_and_close(gr_req_t *req);
/* The same, the connection muted once the answer is written and closed
 * delay_ms later (0: at once). */
int gr_req_reply_and_close_after(gr_req_t *req, int64_t delay_ms);
/* Ends req without an answer (a failed authentication that has none),
 * the connection muted and closed delay_ms later (<= 0: at once). 0. */
int gr_req_close_after(gr_req_t *req, int64_t delay_ms);
/* Logs why and closes the connection without a response. Returns 0. */
int gr_req_close(gr_req_t *req, const char *why);
/* Keeps f open (a reference) until the request ends: a handler that puts
 * a borrowed file range in its response holds it, so no later file
 * opening (the segment LRU) can close and reuse its descriptor. 0 or -1. */
int gr_req_hold_file(gr_req_t *req, gr_file_t *f);
/* Takes p (malloc'd), freed when the request ends: the memory its
 * response's records by reference (gr_records_t.by_ref) point into. One
 * per request. */
void gr_req_hold_mem(gr_req_t *req, void *p);
/* The listener name ("PLAINTEXT") a request arrived on. */
const char *gr_req_listener_name(const gr_req_t *req);
const char *gr_req_peer(const gr_req_t *req);
/* The authenticated principal of the connection: "User:<name>" once SASL
 * authenticated it (SASL_PLAINTEXT, SASL_SSL), "User:CN=..." from a
 * client certificate on an SSL listener, else "User:ANONYMOUS", as
 * Kafka's. */
const char *gr_req_principal(const gr_req_t *req);
/* The principal's name ("ANONYMOUS"): the user client quotas know the
 * request by (Kafka's Session.sanitizedUser, before sanitizing). */
const char *gr_req_user(const gr_req_t *req);
struct gr_sasl_conn;
/* The connection's SASL state (net/sasl.h) on SASL listeners, else NULL. */
struct gr_sasl_conn *gr_req_sasl(const gr_req_t *req);

/* What Kafka's RequestContext knows of the client behind a request (its
 * ClientInformation and socket address), for client telemetry (KIP-714).
 * conn_id: unique among the broker's connections for its life (0: the
 * connection is gone). peer_host: the address as Java's
 * InetAddress.getHostAddress() writes it (IPv6 as eight groups of hex
 * without compression, "%scope" for a scoped one; an IPv4-mapped address
 * as its IPv4 form), "" when unknown; peer_port: -1 when unknown. The
 * software name and version are those of the connection's last valid
 * ApiVersions (v0-v2, or before any: "unknown", as Kafka's
 * ClientInformation). Strings live as long as the connection. */
uint64_t gr_req_conn_id(const gr_req_t *req);
const char *gr_req_peer_host(const gr_req_t *req);
int gr_req_peer_port(const gr_req_t *req);
const char *gr_req_client_software_name(const gr_req_t *req);
const char *gr_req_client_software_version(const gr_req_t *req);
/* Records the client software a valid ApiVersions named (empty or null:
 * "unknown"). 0, or -1 when out of memory (the old names stay). */
int gr_req_set_client_software(gr_req_t *req, const gr_str_t *name,
                               const gr_str_t *version);

struct gr_listener_cfg;
/* Accepts fd (non-blocking) as a new connection. */
gr_conn_t *gr_conn_new(gr_broker_t *broker, gr_listener_t *l, int fd,
                       const struct sockaddr *sa, socklen_t salen);
void gr_conn_close(gr_conn_t *conn, const char *why);
/* Frees connections closed since the last call (loop before_sleep). */
void gr_conn_reap(gr_broker_t *broker);
/* Closes every connection (shutdown). */
void gr_conn_close_all(gr_broker_t *broker);
/* Closes every client connection now (the control interface); they are
 * freed before the loop sleeps. Returns how many. */
int gr_conn_close_clients(gr_broker_t *broker, const char *why);
/* Closes the connection that was busy least recently (Kafka's
 * lowestPriorityChannel), on any listener but the protected inter-broker
 * one; false when there is none. */
bool gr_conn_close_lru(gr_broker_t *broker, const char *why);
/* For the metrics (src/control/): cb(arg, listener name, the request in
 * flight or NULL) for every open connection. Loop thread only. */
typedef void (*gr_conn_visit_cb)(void *arg, const char *listener,
                                 const gr_req_t *req);
void gr_conn_foreach(gr_broker_t *broker, gr_conn_visit_cb cb, void *arg);
/* Starts enforcing connections.max.idle.ms, queued.max.request.bytes
 * (see conn.c) and the connection quotas (quota.h); -1 when the
 * configuration is inconsistent (logged). */
int gr_conn_limits_start(gr_broker_t *broker);
void gr_conn_limits_stop(gr_broker_t *broker);

#endif
