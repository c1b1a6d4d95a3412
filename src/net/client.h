/*
 * A client connection to another broker (the replica fetcher's), on the
 * event loop: the name resolved on a worker (getaddrinfo blocks), a
 * non-blocking connect, frames written from a queue and read back whole.
 * Kafka's frames: a 4-byte big-endian size, then that many bytes; a frame
 * larger than max_frame (or a negative size) closes the connection.
 * PLAINTEXT only.
 *
 * Callbacks run on the loop, never from inside a gr_client_* call:
 * connected(arg) once the TCP connection is up, frame(arg, p, n) for each
 * frame (p valid during the call: the frame after its size), closed(arg,
 * err) once after a failure or a peer close (err: an errno, or EPROTO for
 * a bad frame size); after closed, the client may be connected again or
 * freed. Loop thread only.
 */
#ifndef GR_NET_CLIENT_H
#define GR_NET_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/loop.h"
#include "core/worker.h"

typedef struct gr_client gr_client_t;

typedef struct gr_client_hooks {
    void (*connected)(void *arg);
    void (*frame)(void *arg, const uint8_t *p, size_t n);
    void (*closed)(void *arg, int err);
    void *arg;
} gr_client_hooks_t;

/* A client (not connected). NULL on ENOMEM. */
gr_client_t *gr_client_new(gr_loop_t *loop, gr_workers_t *workers,
                           const gr_client_hooks_t *hooks, size_t max_frame);
/* Starts connecting to host:port (closed comes on failure). 0, or -1 when
 * it is already connecting or connected, or out of memory. */
int gr_client_connect(gr_client_t *c, const char *host, int32_t port);
/* Queues n bytes (whole frames, their sizes included) for writing. 0, or
 * -1 when not connected or out of memory. */
int gr_client_send(gr_client_t *c, const void *p, size_t n);
/* Whether the connection is up (connected came, closed did not). */
bool gr_client_up(const gr_client_t *c);
/* Closes the connection at once (no closed callback); reusable. */
void gr_client_close(gr_client_t *c);
/* Closes at once and frees after the loop's current round of events (one
 * of its socket may be pending in it), with no callback meanwhile; a
 * resolution in flight is abandoned safely. The loop must run again. */
void gr_client_free(gr_client_t *c);
/* Closes and frees at once: the loop runs no more (shutdown). */
void gr_client_free_now(gr_client_t *c);

#endif
