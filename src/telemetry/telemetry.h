/*
 * Client telemetry (KIP-714), as Kafka's ClientMetricsManager runs it:
 *
 *   subscriptions  the CLIENT_METRICS config resources, compiled
 *                  (client_metrics.h); any change bumps a version, and an
 *                  instance made under an older one is made again at its
 *                  next request (Kafka's subscriptionUpdateVersion)
 *   instances      client instances by id, in an LRU cache of 16384, each
 *                  with the attributes of the request that first named it,
 *                  its subscription (every matching subscription's metrics
 *                  together, "*" if any asks for all; the smallest
 *                  interval, 300000 ms when none matches; the subscription
 *                  id, CRC-32C of Java's "[m1, m2]" + interval, xor the
 *                  id's hash), the times of its last accepted Get and
 *                  Push, its last error and whether it is terminating; an
 *                  instance goes max(60 s, 3 push intervals) after its
 *                  last request, and when the connection that made it
 *                  closes
 *   Get            a zero id gets a new one (random, never one in the
 *                  cache, never a reserved id, never with "-" in its text
 *                  form, as Kafka's Uuid.randomUuid); a Get before an
 *                  interval has passed since the last Get or Push is
 *                  THROTTLING_QUOTA_EXCEEDED, unless the last error was
 *                  UNKNOWN_SUBSCRIPTION_ID or UNSUPPORTED_COMPRESSION_TYPE
 *   Push           a zero or reserved id is INVALID_REQUEST; then, in
 *                  Kafka's order: after a terminating push INVALID_REQUEST,
 *                  before the interval (unless just after a Get, or
 *                  terminating) THROTTLING_QUOTA_EXCEEDED, another
 *                  subscription id UNKNOWN_SUBSCRIPTION_ID, a compression
 *                  type not 0-4 UNSUPPORTED_COMPRESSION_TYPE, metrics over
 *                  telemetry.max.bytes TELEMETRY_TOO_LARGE; what passes is
 *                  exported (export.c) and a failed export is
 *                  INVALID_RECORD
 *
 * Times are wall-clock milliseconds, as Kafka's. Loop thread only (the
 * export's decompression, decoding and writing run on a worker).
 */
#ifndef GR_TELEMETRY_TELEMETRY_H
#define GR_TELEMETRY_TELEMETRY_H

#include "core/loop.h"
#include "core/str.h"
#include "core/worker.h"
#include "proto/kerr.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct gr_telemetry gr_telemetry_t;
typedef struct gr_telemetry_job gr_telemetry_job_t;

#define GR_TELEMETRY_CACHE_MAX      16384
#define GR_TELEMETRY_CACHE_EXPIRY_MS 60000

/* What a request tells of its client (Kafka's RequestContext): strings
 * borrowed for the call; client_id NULL for a null one. */
typedef struct gr_telemetry_client {
    uint64_t conn_id;
    const char *client_id;
    const char *software_name;
    const char *software_version;
    const char *source_address;
    int source_port; /* -1: unknown */
    const char *peer; /* for log lines */
} gr_telemetry_client_t;

/* workers: where exports run (NULL: on the loop, tests). sink_path: the
 * file pushed data points are appended to (gregor.client.telemetry.file),
 * or NULL: pushes are checked and decompressed, and dropped. max_bytes:
 * telemetry.max.bytes. NULL when the sink cannot be opened (logged) or on
 * ENOMEM. */
gr_telemetry_t *gr_telemetry_new(gr_loop_t *loop, gr_workers_t *workers,
                                 int32_t max_bytes, const char *sink_path);
/* After the workers are gone and their posts drained. NULL: nothing. */
void gr_telemetry_destroy(gr_telemetry_t *t);
/* Whether pushes go somewhere (a sink is configured): the telemetry APIs
 * are advertised then. false for NULL. */
bool gr_telemetry_exporting(const gr_telemetry_t *t);
/* Keeps each client instance's latest pushed data points for the metrics
 * (src/control/metrics.c): pushes are decoded even without a sink, and
 * once a CLIENT_METRICS subscription exists the telemetry APIs are
 * advertised (gr_telemetry_exporting()), as Kafka advertises them with a
 * telemetry receiver (clients ask at their connection's ApiVersions: a
 * subscription made later reaches the clients that connect later). A
 * push's points are kept up
 * to GR_TELEMETRY_LATEST_MAX bytes of lines, all instances' together up
 * to GR_TELEMETRY_LATEST_TOTAL; beyond, the push's are not kept (counted
 * by gr_telemetry_latest_dropped()). */
#define GR_TELEMETRY_LATEST_MAX   (64 * 1024)
#define GR_TELEMETRY_LATEST_TOTAL (4 * 1024 * 1024)
void gr_telemetry_keep_latest(gr_telemetry_t *t, bool on);
/* For each instance with points kept: cb(arg, the instance id in
 * base64, its client id ("" if null), the lines of its latest push in
 * otlp.h's JSON line form, their length). Loop thread only. */
typedef void (*gr_telemetry_latest_cb)(void *arg, const char *instance_id,
                                       const char *client_id, const char *lines,
                                       size_t len);
void gr_telemetry_latest_foreach(gr_telemetry_t *t, gr_telemetry_latest_cb cb,
                                 void *arg);
/* Pushes whose points were not kept (over the bounds above); bytes kept. */
int64_t gr_telemetry_latest_dropped(const gr_telemetry_t *t);
int64_t gr_telemetry_latest_bytes(const gr_telemetry_t *t);
/* Tests: the cache's expiry (Kafka's cacheExpiryMs, 60000). */
void gr_telemetry_set_cache_expiry(gr_telemetry_t *t, int32_t ms);

/* Sets subscription name to the configs given (keys[i]=values[i]; n 0:
 * the subscription goes), which gr_cm_validate() accepted. 0, or -1 on
 * ENOMEM (the old one stays). */
int gr_telemetry_subscribe(gr_telemetry_t *t, const char *name,
                           const char *const *keys, const char *const *values,
                           int n);

/* The answer to a GetTelemetrySubscriptions, in a. */
typedef struct gr_telemetry_subscription {
    gr_uuid_t client_instance_id;
    int32_t subscription_id;
    int32_t push_interval_ms;
    int32_t telemetry_max_bytes;
    const char *const *metrics; /* "*": all; none: none */
    int nmetrics;
    const int8_t *compression_types;
    int ncompression_types;
} gr_telemetry_subscription_t;

struct gr_arena;
/* GetTelemetrySubscriptions for requested (zero: a new instance). NONE
 * with *out filled, or THROTTLING_QUOTA_EXCEEDED. */
gr_kerr_t gr_telemetry_get(gr_telemetry_t *t, const gr_uuid_t *requested,
                           const gr_telemetry_client_t *cl, struct gr_arena *a,
                           gr_telemetry_subscription_t *out);

typedef struct gr_telemetry_push {
    gr_uuid_t client_instance_id;
    int32_t subscription_id;
    bool terminating;
    int8_t compression_type;
    const uint8_t *metrics; /* borrowed for the call (copied if exported) */
    size_t metrics_len;
} gr_telemetry_push_t;

/* The end of an export: NONE or INVALID_RECORD. */
typedef void (*gr_telemetry_done_cb)(void *arg, gr_kerr_t err);

/* PushTelemetry. An error of the checks is returned at once, and so is
 * the result when there is nothing to export or no worker to export on
 * (*job NULL); else the metrics are exported on a worker, NONE is
 * returned with *job the export in flight, and done(arg, err) is called
 * when it ends. */
gr_kerr_t gr_telemetry_push(gr_telemetry_t *t, const gr_telemetry_push_t *p,
                            const gr_telemetry_client_t *cl,
                            gr_telemetry_done_cb done, void *arg,
                            gr_telemetry_job_t **job);
/* The request of job went away: done is not called. */
void gr_telemetry_job_forget(gr_telemetry_job_t *job);

/* Connection conn_id closed (Kafka's ConnectionDisconnectListener): the
 * instance it made leaves the cache. */
void gr_telemetry_conn_closed(gr_telemetry_t *t, uint64_t conn_id);

#endif
