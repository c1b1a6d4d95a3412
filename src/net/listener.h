/*
 * Listeners: the `listeners` configuration (NAME://host:port, comma
 * separated) bound as non-blocking sockets. "localhost" binds 127.0.0.1 and
 * ::1 on one port; an empty host binds every address; port 0 picks a free
 * port (the same for every socket of the listener). Listeners named in
 * controller.listener.names are not bound: Gregor has no KRaft controller.
 */
#ifndef GR_NET_LISTENER_H
#define GR_NET_LISTENER_H

#include "core/loop.h"
#include "net/quota.h"

#include <sys/socket.h>

typedef struct gr_broker gr_broker_t;

#define GR_LISTENER_MAX_FDS 8

typedef struct gr_listener {
    char name[64];     /* PLAINTEXT, CLIENT, ... */
    char protocol[32]; /* security protocol: PLAINTEXT, SSL, ... */
    char host[256];    /* as configured ("" = all addresses) */
    int port;          /* bound port */
    char adv_host[256]; /* advertised to clients */
    int adv_port;
    int nfds;
    gr_io_t io[GR_LISTENER_MAX_FDS];
    gr_broker_t *broker;

    /* connection quotas (net/quota.c) */
    int nconns;          /* open connections taken on here */
    int64_t max_conns;   /* listener.name.<l>.max.connections, else the
                          * broker's max.connections */
    int64_t max_rate;    /* ...max.connection.creation.rate likewise */
    bool inter_broker;   /* Kafka's protected listener: the inter-broker
                          * one, when there are others */
    gr_rate_t rate;      /* its connections a second */
    bool accepting;      /* accept events on */
    int held_fd;         /* accepted, waiting for a slot or a throttle's
                          * end (-1: none): l accepts no more until then */
    struct sockaddr_storage held_addr;
    socklen_t held_len;
    int64_t held_until_us; /* end of the throttle (monotonic) */
    gr_timer_t throttle_timer;
    int64_t wait_log_us;   /* last log line about waiting accepts */
    int64_t reject_log_us; /* last line about a per-address rejection */
    int64_t rejected;      /* rejections since that line */
    int64_t error_log_us;  /* last line about another accept(2) error */
    struct gr_tls_ctx *tls; /* SSL and SASL_SSL listeners (net/tls.c) */
    struct gr_sasl_listener *sasl; /* SASL_PLAINTEXT and SASL_SSL
                                    * listeners (net/sasl.c), else NULL */
} gr_listener_t;

/* Parses and binds every listener; logs and returns -1 on failure. */
int gr_listeners_open(gr_broker_t *broker);
void gr_listeners_close(gr_broker_t *broker);
/* The listener with that name, or NULL. */
gr_listener_t *gr_listener_find(gr_broker_t *broker, const char *name);

#endif
