/*
 * The control interface: what a test drives a running broker with, over
 * HTTP/JSON on its own listener (gregor.control.listener; --temp-data
 * turns it on, on loopback) or from a shell with `gregor ctl`. It injects
 * faults into request handling (a Kafka error for an API, filtered by
 * topic, partition, group or client id, once, n times or until cleared;
 * throttle times; delayed responses; dropped connections; blackholed
 * clients), closes connections, caps the API versions served (an older
 * Kafka) and keeps a log of the requests seen.
 *
 * Where it sits: above src/api and src/net. Dispatch calls
 * broker->request_hook (gr_control_request) after a request is decoded;
 * the control module answers the request itself (an injected error, a
 * drop, a blackhole) or lets its handler run, and sees every reply
 * before it is encoded through the request's reply hook (throttle time,
 * delay, Metadata topic errors, the log). Off, neither hook is set and
 * nothing of this runs. Loop thread only, like everything reached from
 * the broker. Files: control.c (the listener and the routes), http.c
 * (the parser), json.c, inject.c (faults, delays, caps, log), shapes.c
 * (where each API's errors go), ctl.c (the shell command).
 */
#ifndef GR_CONTROL_CONTROL_H
#define GR_CONTROL_CONTROL_H

#include "broker.h"

typedef struct gr_control gr_control_t;

/* Opens the control listener if the configuration asks for one and sets
 * the broker's hooks. 0 (also when it is off), or -1 on an error
 * (logged): a URL that does not parse, a bind that fails, a host that is
 * not loopback without gregor.control.allow.remote. */
int gr_control_open(gr_broker_t *b);
/* The listener's URL ("http://127.0.0.1:39123"), or NULL when off. */
const char *gr_control_url(const gr_broker_t *b);
/* The metrics listener's URL (gregor.metrics.listener), or NULL. */
const char *gr_control_metrics_url(const gr_broker_t *b);
/* One control operation without HTTP, for libgregor (src/embed.c): the
 * route of method and target ("/v1/faults?api=Produce") with body (JSON,
 * or NULL) answered as the listener would: cb(arg, HTTP status, the
 * answer's body: JSON, or the metrics' text for GET /metrics) runs once,
 * before this returns, except for GET /metrics, whose text is made on a
 * worker: then on the loop later (never when the control interface
 * closes first). 503 when the control interface is off. Loop thread
 * only. */
typedef void (*gr_control_cb)(void *arg, int status, gr_buf_t *answer);
void gr_control_call(gr_broker_t *b, const char *method, const char *target,
                     const char *body, gr_control_cb cb, void *arg);
struct gr_partition;
/* Partition p is being deleted: its counters go into the all-topics
 * totals of the metrics (nothing when the control module is off). */
void gr_control_partition_gone(gr_broker_t *b, struct gr_partition *p);
/* Closes the listener and its connections and drops every injection
 * (after the Kafka connections are closed, at shutdown). */
void gr_control_close(gr_broker_t *b);

/* One blocking HTTP request to a control listener at url ("http://h:p"):
 * the answer's body is appended to out. Returns the HTTP status, or -1
 * (err says why) when there is no answer. Any thread (tests, ctl). */
int gr_ctl_http(const char *url, const char *method, const char *path,
                const char *body, gr_buf_t *out, char *err, size_t errsz);

/* "key=value" as a JSON member appended to o, with a leading comma unless
 * first: integers, true, false and null as such, anything else a string
 * (gregor ctl's arguments, libgregor's options). 0, or -1 when kv has no
 * '=' or an empty key. */
int gr_ctl_kv_json(gr_buf_t *o, const char *kv, size_t len, bool first);

/* A duration for `gregor ctl URL advance`: digits with a unit each, ms,
 * s, m, h or d ("1m30s"; digits alone: ms) into *ms. 0, or -1 when s is
 * not one (or beyond 2^62 ms). */
int gr_ctl_duration_ms(const char *s, int64_t *ms);

/* `gregor ctl URL OP [key=value...]`: argv[0] is "ctl". Returns the
 * process exit code. */
int gr_ctl_main(int argc, char **argv);

#endif
