/*
 * The export of pushed metrics, Gregor's stand-in for Kafka's client
 * telemetry exporter plugin: the payload is decompressed (Kafka's
 * CompressionType framings, core/compress.h), decoded from OTLP (otlp.c)
 * into JSON lines and appended to gregor.client.telemetry.file with one
 * write(2) on an O_APPEND descriptor, so the lines of concurrent exports
 * never interleave; with gr_telemetry_keep_latest() the lines also go back
 * to the loop, the instance's latest values for the metrics. A failure anywhere
 * is the exporter failing, which Kafka answers INVALID_RECORD. Runs on a
 * worker; touches only its job.
 */
#include "telemetry/telemetry_int.h"
#include "core/compress.h"
#include "core/time.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void
failed(gr_telemetry_job_t *job, const char *fmt, const char *arg)
{
    job->err = GR_KERR_INVALID_RECORD;
    snprintf(job->why, sizeof job->why, fmt, arg);
}

void
gr_telemetry_export_run(gr_telemetry_job_t *job)
{
    gr_buf_t raw = GR_BUF_INIT, out = GR_BUF_INIT;
    const gr_buf_t *lines;
    const uint8_t *data = job->payload;
    size_t len = job->len;
    int64_t t0 = gr_mono_us();
    gr_err_t err;

    job->err = GR_KERR_NONE;
    job->why[0] = '\0';
    memset(&job->st, 0, sizeof job->st);
    if (job->codec != GR_COMPRESS_NONE) {
        err = gr_decompress(job->codec, job->payload, job->len, &raw,
                            job->max_bytes);
        if (err != GR_OK) {
            job->err = GR_KERR_INVALID_RECORD;
            snprintf(job->why, sizeof job->why,
                     err == GR_ERR_TOO_LARGE
                         ? "decompressed %s metrics exceed "
                           "telemetry.max.bytes"
                         : "cannot decompress the %s metrics",
                     gr_compress_name(job->codec));
            goto out;
        }
        data = raw.ptr;
        len = raw.len;
    }
    job->decompressed = len;
    if (job->sink_fd < 0 && !job->keep)
        goto out; /* no sink: as Kafka without an exporter, decompressed only */
    {
        char why[120];
        if (gr_otlp_to_jsonl(data, len, job->prefix, &out, &job->st, why,
                             sizeof why) != 0) {
            failed(job, "malformed OTLP metrics: %s", why);
            goto out;
        }
    }
    if (job->keep && out.len <= GR_TELEMETRY_LATEST_MAX) {
        /* the lines are the metrics' too: the loop takes them */
        job->latest = out;
        job->latest_ok = true;
        memset(&out, 0, sizeof out);
    }
    lines = job->latest_ok ? &job->latest : &out;
    for (size_t off = 0; job->sink_fd >= 0 && off < lines->len;) {
        ssize_t w = write(job->sink_fd, lines->ptr + off, lines->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            failed(job, "cannot append to the telemetry file: %s",
                   w < 0 ? strerror(errno) : "short write");
            break;
        }
        off += (size_t)w;
    }
out:
    gr_buf_fini(&raw);
    gr_buf_fini(&out);
    job->us = gr_mono_us() - t0;
}
