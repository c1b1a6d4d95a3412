/*
 * GetTelemetrySubscriptions (api key 71, KIP-714): a client asks which of
 * its metrics to push, how often, how compressed and how large. src/
 * telemetry/ gives a new client its instance id, matches the instance
 * against the client metrics subscriptions and throttles a Get that comes
 * before the push interval (THROTTLING_QUOTA_EXCEEDED, answered as Kafka's
 * getErrorResponse: only the error). The client is described as Kafka's
 * RequestContext does: the header's client id, the software the
 * connection's ApiVersions named, the peer's address and port.
 */
#include "api/api_int.h"
#include "telemetry/telemetry.h"

int
gr_api_telemetry_client(gr_req_t *req, gr_telemetry_client_t *cl)
{
    const gr_str_t *id = &req->hdr.client_id;
    cl->conn_id = gr_req_conn_id(req);
    cl->client_id = NULL;
    if (id->len >= 0 &&
        (cl->client_id = gr_arena_strndup(req->a, id->ptr ? id->ptr : "",
                                          (size_t)id->len)) == NULL)
        return -1;
    cl->software_name = gr_req_client_software_name(req);
    cl->software_version = gr_req_client_software_version(req);
    cl->source_address = gr_req_peer_host(req);
    cl->source_port = gr_req_peer_port(req);
    cl->peer = gr_req_peer(req);
    return 0;
}

int
gr_api_get_telemetry_subscriptions(gr_req_t *req)
{
    const gr_get_telemetry_subscriptions_request_t *rq = req->body;
    gr_get_telemetry_subscriptions_response_t *rs = req->resp;
    gr_telemetry_subscription_t sub;
    gr_telemetry_client_t cl;
    gr_kerr_t err;

    if (gr_api_telemetry_client(req, &cl) != 0)
        return gr_req_close(req, "out of memory");
    err = gr_telemetry_get(req->broker->telemetry, &rq->client_instance_id,
                           &cl, req->a, &sub);
    rs->error_code = err;
    if (err != GR_KERR_NONE)
        return gr_req_reply(req); /* the rest stays at its defaults */
    rs->client_instance_id = sub.client_instance_id;
    rs->subscription_id = sub.subscription_id;
    rs->accepted_compression_types = (int8_t *)sub.compression_types;
    rs->accepted_compression_types_cnt = sub.ncompression_types;
    rs->push_interval_ms = sub.push_interval_ms;
    rs->telemetry_max_bytes = sub.telemetry_max_bytes;
    rs->delta_temporality = true;
    rs->requested_metrics =
        gr_arena_alloc(req->a, (size_t)(sub.nmetrics + 1) * sizeof(gr_str_t));
    if (rs->requested_metrics == NULL)
        return gr_req_close(req, "out of memory");
    for (int i = 0; i < sub.nmetrics; i++)
        rs->requested_metrics[i] = gr_str_c(sub.metrics[i]);
    rs->requested_metrics_cnt = sub.nmetrics;
    return gr_req_reply(req);
}
