/*
 * PushTelemetry (api key 72, KIP-714): a client's metrics, as its
 * subscription asked (GetTelemetrySubscriptions). src/telemetry/ checks
 * the push in Kafka's order (instance id, terminating, interval,
 * subscription id, compression type, telemetry.max.bytes) and exports
 * what passes to the telemetry file on a worker; the answer waits for the
 * export, whose failure (a payload that does not decompress or decode) is
 * INVALID_RECORD, as Kafka answers an exporter's.
 */
#include "api/api_int.h"
#include "telemetry/telemetry.h"

static void
exported(void *arg, gr_kerr_t err)
{
    gr_req_t *req = arg;
    gr_push_telemetry_response_t *rs = req->resp;
    rs->error_code = err;
    gr_req_reply(req);
}

/* The connection went while the export ran: it ends unanswered. */
static void
aborted(gr_req_t *req)
{
    gr_telemetry_job_forget(req->owner);
}

int
gr_api_push_telemetry(gr_req_t *req)
{
    const gr_push_telemetry_request_t *rq = req->body;
    gr_push_telemetry_response_t *rs = req->resp;
    gr_telemetry_push_t p;
    gr_telemetry_client_t cl;
    gr_telemetry_job_t *job;
    gr_kerr_t err;

    if (gr_api_telemetry_client(req, &cl) != 0)
        return gr_req_close(req, "out of memory");
    p.client_instance_id = rq->client_instance_id;
    p.subscription_id = rq->subscription_id;
    p.terminating = rq->terminating;
    p.compression_type = rq->compression_type;
    p.metrics = rq->metrics.ptr;
    p.metrics_len = rq->metrics.len > 0 ? (size_t)rq->metrics.len : 0;
    err = gr_telemetry_push(req->broker->telemetry, &p, &cl, exported, req,
                            &job);
    if (job != NULL)
        return gr_req_defer(req, aborted, job);
    rs->error_code = err;
    return gr_req_reply(req);
}
