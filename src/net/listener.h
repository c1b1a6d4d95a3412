/*
 * Listeners: the `listeners` configuration (NAME://host:port, comma
 * separated) bound as non-blocking sockets. "localhost" binds 127.0.0.1 and
 * ::1 on one port; an empty host binds every address; port 0 picks a free
 * port (the same for every socket of the listener). Listeners named in
 * controller.listener.names are not bound: Gregor has no KRaft controller.
 */
#ifndef GR_NET_LISTENER_H
#define GR_NET_LISTENER_H

#include "net/loop.h"

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
} gr_listener_t;

/* Parses and binds every listener; logs and returns -1 on failure. */
int gr_listeners_open(gr_broker_t *broker);
void gr_listeners_close(gr_broker_t *broker);
/* The listener with that name, or NULL. */
gr_listener_t *gr_listener_find(gr_broker_t *broker, const char *name);

#endif
