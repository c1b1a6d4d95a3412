/*
 * DescribeClientQuotas (api key 48, KIP-546): the quotas of the entities
 * a filter matches, as Kafka's ClientQuotasImage.describe answers from
 * the metadata (src/cluster/client_quotas.c matches). A filter Kafka
 * throws on (an empty or repeated type, a match type and match string
 * that disagree, an IP mixed with users or client-ids) answers its error
 * and message with null entries, an unknown type UNSUPPORTED_VERSION.
 * It needs DESCRIBE_CONFIGS on the cluster (KafkaApis); refused, the
 * answer is CLUSTER_AUTHORIZATION_FAILED, no message (as Kafka's).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "cluster/client_quotas.h"

typedef gr_describe_client_quotas_response_entry_data_t entry_t;

int
gr_api_describe_client_quotas(gr_req_t *req)
{
    const gr_describe_client_quotas_request_t *rq = req->body;
    gr_describe_client_quotas_response_t *rs = req->resp;
    int32_t nf = rq->components_cnt > 0 ? rq->components_cnt : 0;
    gr_cq_filter_t *f =
        gr_arena_alloc(req->a, (size_t)(nf ? nf : 1) * sizeof(*f));
    gr_cq_found_t *found = NULL;
    const char *msg = NULL;
    entry_t *out;
    gr_kerr_t err;
    int n = 0;

    if (f == NULL)
        return gr_req_close(req, "out of memory");
    if (!gr_authz_cluster(req, GR_OP_DESCRIBE_CONFIGS)) {
        rs->error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        rs->error_message = GR_STR_NULL; /* ApiError: the default's */
        rs->entries = NULL;
        rs->entries_cnt = -1;
        return gr_req_reply(req);
    }
    for (int32_t i = 0; i < nf; i++) {
        f[i].type = rq->components[i].entity_type;
        f[i].match_type = rq->components[i].match_type;
        f[i].match = rq->components[i].match;
    }
    err = gr_client_quotas_describe(req->broker->client_quotas, f, nf,
                                    rq->strict, req->a, &found, &n, &msg);
    if (err != GR_KERR_NONE) {
        GR_LOG_INFO("DescribeClientQuotas from %s: %s", gr_req_peer(req), msg);
        rs->error_code = err;
        rs->error_message = gr_str_c(msg);
        rs->entries = NULL;
        rs->entries_cnt = -1;
        return gr_req_reply(req);
    }
    out = gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*out));
    if (out == NULL)
        return gr_req_close(req, "out of memory");
    for (int i = 0; i < n; i++) {
        const gr_cq_found_t *fo = &found[i];
        gr_describe_client_quotas_response_entry_data_init(&out[i]);
        out[i].entity =
            gr_arena_alloc(req->a, (size_t)fo->ncomps * sizeof(*out[i].entity));
        out[i].values =
            gr_arena_alloc(req->a, (size_t)(fo->nvalues ? fo->nvalues : 1) *
                                       sizeof(*out[i].values));
        if (out[i].entity == NULL || out[i].values == NULL)
            return gr_req_close(req, "out of memory");
        for (int j = 0; j < fo->ncomps; j++) {
            gr_describe_client_quotas_response_entity_data_init(
                &out[i].entity[j]);
            out[i].entity[j].entity_type = gr_str_c(fo->type[j]);
            out[i].entity[j].entity_name =
                fo->name[j] ? gr_str_c(fo->name[j]) : GR_STR_NULL;
        }
        out[i].entity_cnt = fo->ncomps;
        for (int j = 0; j < fo->nvalues; j++) {
            gr_describe_client_quotas_response_value_data_init(
                &out[i].values[j]);
            out[i].values[j].key = gr_str_c(fo->key[j]);
            out[i].values[j].value = fo->value[j];
        }
        out[i].values_cnt = fo->nvalues;
    }
    rs->entries = out;
    rs->entries_cnt = n;
    return gr_req_reply(req);
}
