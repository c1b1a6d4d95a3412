/* What telemetry.c and export.c share: an export in flight. */
#ifndef GR_TELEMETRY_TELEMETRY_INT_H
#define GR_TELEMETRY_TELEMETRY_INT_H

#include "telemetry/otlp.h"
#include "telemetry/telemetry.h"

#include <stddef.h>

/* One PushTelemetry's metrics on their way to the sink. Made and freed on
 * the loop; between submit and done only the worker touches it (the loop
 * may set forgotten). */
struct gr_telemetry_job {
    gr_telemetry_t *t;
    gr_uuid_t id;          /* the client instance */
    uint8_t *payload;      /* a copy of the request's metrics */
    size_t len;
    int codec;             /* CompressionType id, 0-4 */
    size_t max_bytes;      /* telemetry.max.bytes: decompressed bound */
    int sink_fd;           /* -1: check and drop (unless keep) */
    bool keep;             /* decode, and keep the lines in latest */
    char *prefix;          /* the JSON members each line starts with */
    char *client_id;       /* for log lines */
    char *peer;
    gr_telemetry_done_cb done;
    void *arg;
    bool forgotten;        /* the request went away */
    /* results */
    gr_kerr_t err;         /* NONE or INVALID_RECORD */
    char why[200];
    gr_otlp_stats_t st;
    size_t decompressed;   /* bytes of OTLP */
    int64_t us;            /* the export's time */
    gr_buf_t latest;       /* keep: the lines (taken over by the loop) */
    bool latest_ok;        /* latest holds them (not over the bound) */
};

/* Decompresses job's payload (at most max_bytes out, as Kafka's
 * ClientTelemetryUtils.decompress), decodes it and appends its lines to
 * the sink with one write: sets err, why, st, decompressed and us. Any
 * thread. */
void gr_telemetry_export_run(gr_telemetry_job_t *job);

#endif
