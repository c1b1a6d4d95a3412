/*
 * ApiVersions (api key 18): the APIs and version ranges this broker serves,
 * exactly the dispatch table (api_table.c). Versions above ours are answered
 * by dispatch.c in v0 form with UNSUPPORTED_VERSION. A v3+ request naming
 * its client software badly is INVALID_REQUEST, and a v5 request that
 * expects another cluster or node (KIP-1242: the client was routed to the
 * wrong broker) is REBOOTSTRAP_REQUIRED; both without the key list, as
 * Kafka's ApiVersionsRequest.getErrorResponse.
 */
#include "api/api_int.h"

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

int
gr_api_api_versions(gr_req_t *req)
{
    const gr_api_versions_request_t *rq = req->body;
    gr_api_versions_response_t *rs = req->resp;
    const gr_api_entry_t *tab;
    int n;

    tab = gr_api_table(&n);
    if (req->version >= 3 && (!software_field_valid(&rq->client_software_name) ||
                              !software_field_valid(&rq->client_software_version))) {
        GR_LOG_INFO("ApiVersions from %s: invalid client software name or "
                    "version",
                    gr_req_peer(req));
        rs->error_code = GR_KERR_INVALID_REQUEST;
        return gr_req_reply(req);
    }
    /* cluster_id and node_id are v5 fields: null and -1 before */
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
    for (int i = 0; i < n; i++) {
        rs->api_keys[i].api_key = tab[i].key;
        rs->api_keys[i].min_version = tab[i].min_ver;
        rs->api_keys[i].max_version = tab[i].max_ver;
    }
    rs->api_keys_cnt = n;
    return gr_req_reply(req);
}
