/*
 * ApiVersions (api key 18): the APIs and version ranges this broker serves,
 * exactly the dispatch table (api_table.c). Versions above ours are answered
 * by dispatch.c in v0 form with UNSUPPORTED_VERSION. A v3+ request naming
 * its client software badly, or a v5 one with only one of cluster_id and
 * node_id, is INVALID_REQUEST (Kafka's ApiVersionsRequest.isValid); a v5
 * request that expects another cluster or node (KIP-1242: the client was
 * routed to the wrong broker) is REBOOTSTRAP_REQUIRED; all without the key
 * list or features, as Kafka's ApiVersionsRequest.getErrorResponse. A
 * valid request names the
 * connection's client software (v0-v2: "unknown"), which client telemetry
 * matches on. GetTelemetrySubscriptions and PushTelemetry are served
 * always but advertised only with a telemetry sink, as Kafka advertises
 * them only with a client telemetry exporter (KIP-714).
 */
#include "api/api_int.h"
#include "net/sasl.h"
#include "telemetry/telemetry.h"

/* v3+ clients name themselves; Kafka rejects names that do not match
 * [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])? with INVALID_REQUEST. */
static bool
software_field_valid(const gr_str_t *s)
{
    if (s->len <= 0)
        return false;
    for (int32_t i = 0; i < s->len; i++) {
        char c = s->ptr[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                     (c >= '0' && c <= '9');
        bool inner = c == '-' || c == '.';
        if (!alnum && (!inner || i == 0 || i == s->len - 1))
            return false;
    }
    return true;
}

/* v3+: transaction.version is supported from 0 to 2 and finalized at
 * gregor.transaction.version (a client turns transaction version 2 on only
 * when it is finalized at 2 or above, as the Java client's
 * TransactionManager does; a level of 0 is not listed, as Kafka lists
 * none then). Below v4 a supported range that starts at 0 is left out
 * (KIP-1022: older clients take a minimum of 0 for a malformed range;
 * Kafka's ApiVersionsResponse.maybeFilterSupportedFeatureKeys), so a v3
 * answer lists no supported feature; the finalized level is listed in
 * every version. The other features of a Kafka 4.x cluster
 * (metadata.version, group.version, ...) are not advertised: nothing a
 * client does against Gregor depends on them. 0, or -1 on ENOMEM. */
static int
add_features(gr_req_t *req, gr_api_versions_response_t *rs)
{
    int16_t tv = (int16_t)gr_conf_int(req->broker->conf,
                                      GR_CONF_GREGOR_TRANSACTION_VERSION);
    gr_api_versions_response_supported_feature_key_t *sup =
        gr_arena_zalloc(req->a, sizeof(*sup));
    gr_api_versions_response_finalized_feature_key_t *fin =
        gr_arena_zalloc(req->a, sizeof(*fin));

    if (sup == NULL || fin == NULL)
        return -1;
    sup->name = GR_STR("transaction.version");
    sup->min_version = 0;
    sup->max_version = 2;
    rs->supported_features = sup;
    rs->supported_features_cnt = req->version >= 4 ? 1 : 0;
    if (tv > 0) {
        fin->name = GR_STR("transaction.version");
        fin->max_version_level = tv;
        fin->min_version_level = tv;
        rs->finalized_features = fin;
        rs->finalized_features_cnt = 1;
        rs->finalized_features_epoch = 0;
    }
    return 0;
}

int
gr_api_api_versions(gr_req_t *req)
{
    const gr_api_versions_request_t *rq = req->body;
    gr_api_versions_response_t *rs = req->resp;
    const gr_api_entry_t *tab;
    int n;

    tab = gr_api_table(&n);
    /* on a SASL listener after the handshake: ILLEGAL_SASL_STATE */
    if (gr_sasl_api_versions_refused(req, &rs->error_code))
        return 0;
    /* cluster_id and node_id are v5 fields, null and -1 before: Kafka's
     * isValid wants both or neither */
    if (gr_str_is_null(&rq->cluster_id) != (rq->node_id == -1)) {
        if (gr_str_is_null(&rq->cluster_id))
            GR_LOG_INFO("ApiVersions from %s: node id %d without a cluster "
                        "id; INVALID_REQUEST",
                        gr_req_peer(req), rq->node_id);
        else
            GR_LOG_INFO("ApiVersions from %s: cluster id %.*s without a "
                        "node id; INVALID_REQUEST",
                        gr_req_peer(req), (int)rq->cluster_id.len,
                        rq->cluster_id.ptr);
        rs->error_code = GR_KERR_INVALID_REQUEST;
        return gr_req_reply(req);
    }
    if (req->version >= 3 && (!software_field_valid(&rq->client_software_name) ||
                              !software_field_valid(&rq->client_software_version))) {
        GR_LOG_INFO("ApiVersions from %s: invalid client software name or "
                    "version",
                    gr_req_peer(req));
        rs->error_code = GR_KERR_INVALID_REQUEST;
        return gr_req_reply(req);
    }
    /* Kafka's Processor registers the ClientInformation of every valid
     * ApiVersions (before the answer, whatever it is); the fields are v3+
     * (empty before: "unknown") */
    if (gr_req_set_client_software(req, &rq->client_software_name,
                                   &rq->client_software_version) != 0)
        return gr_req_close(req, "out of memory");
    if (!gr_str_is_null(&rq->cluster_id) &&
        (!gr_str_eq_cstr(&rq->cluster_id, req->broker->cluster->cluster_id) ||
         rq->node_id != req->broker->node_id)) {
        GR_LOG_INFO("ApiVersions from %s expects cluster %.*s node %d: this "
                    "is node %d of cluster %s; REBOOTSTRAP_REQUIRED",
                    gr_req_peer(req), rq->cluster_id.len, rq->cluster_id.ptr,
                    rq->node_id, req->broker->node_id,
                    req->broker->cluster->cluster_id);
        rs->error_code = GR_KERR_REBOOTSTRAP_REQUIRED;
        return gr_req_reply(req);
    }
    rs->api_keys = gr_arena_alloc(req->a, (size_t)n * sizeof(*rs->api_keys));
    if (rs->api_keys == NULL)
        return gr_req_close(req, "out of memory");
    rs->api_keys_cnt = 0;
    for (int i = 0; i < n; i++) {
        gr_api_versions_response_api_version_t *k;
        int16_t min, max;
        if ((tab[i].key == GR_API_GET_TELEMETRY_SUBSCRIPTIONS ||
             tab[i].key == GR_API_PUSH_TELEMETRY) &&
            !gr_telemetry_exporting(req->broker->telemetry))
            continue;
        gr_api_served(req->broker, &tab[i], &min, &max);
        if (max < min)
            continue; /* turned off by the control interface */
        k = &rs->api_keys[rs->api_keys_cnt++];
        k->api_key = tab[i].key;
        k->min_version = min;
        k->max_version = max;
    }
    if (req->version >= 3 && add_features(req, rs) != 0)
        return gr_req_close(req, "out of memory");
    /* before SASL authentication: the handshake comes next */
    gr_sasl_api_versions_done(req, rs->error_code);
    return gr_req_reply(req);
}
