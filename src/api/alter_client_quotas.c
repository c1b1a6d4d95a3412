/*
 * AlterClientQuotas (api key 49, KIP-546): sets and removes quotas per
 * entity, as Kafka's controller does (ClientQuotaControlManager, checks
 * in src/cluster/client_quotas.c). Each entry is answered on its own:
 * an entry naming an entity an earlier entry named, or a key twice, is
 * refused with "Ignoring duplicate entity ..." (Kafka's result map keeps
 * one answer per entity: the later one replaces the first's, so both
 * answer that). validate_only checks and changes nothing. The changes
 * of a request are persisted together (one write) before it is answered
 * and take effect for the next request measured. It needs ALTER_CONFIGS
 * on the cluster (ControllerApis); refused, every entry answers
 * CLUSTER_AUTHORIZATION_FAILED and nothing changes.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "cluster/client_quotas.h"

typedef gr_alter_client_quotas_request_entry_data_t rq_entry_t;
typedef gr_alter_client_quotas_response_entry_data_t rs_entry_t;

/* The components of request entry e, in a. */
static gr_cq_comp_t *
comps_of(const rq_entry_t *e, gr_arena_t *a, int *n)
{
    int32_t k = e->entity_cnt > 0 ? e->entity_cnt : 0;
    gr_cq_comp_t *c = gr_arena_alloc(a, (size_t)(k ? k : 1) * sizeof(*c));
    if (c == NULL)
        return NULL;
    for (int32_t i = 0; i < k; i++) {
        c[i].type = e->entity[i].entity_type;
        c[i].name = e->entity[i].entity_name;
    }
    *n = k;
    return c;
}

static bool
dup_key(const rq_entry_t *e)
{
    for (int32_t i = 0; i < e->ops_cnt; i++)
        for (int32_t j = i + 1; j < e->ops_cnt; j++)
            if (gr_str_eq(&e->ops[i].key, &e->ops[j].key))
                return true;
    return false;
}

int
gr_api_alter_client_quotas(gr_req_t *req)
{
    const gr_alter_client_quotas_request_t *rq = req->body;
    gr_alter_client_quotas_response_t *rs = req->resp;
    int32_t n = rq->entries_cnt > 0 ? rq->entries_cnt : 0;
    rs_entry_t *out =
        gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*out));
    gr_cq_comp_t **comps =
        gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*comps));
    int *ncomps = gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(int));
    bool *dup = gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(bool));

    if (out == NULL || comps == NULL || ncomps == NULL || dup == NULL)
        return gr_req_close(req, "out of memory");
    int32_t *first =
        gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*first));
    int32_t nout = 0;
    bool denied = !gr_authz_cluster(req, GR_OP_ALTER_CONFIGS);

    if (first == NULL ||
        gr_client_quotas_begin(req->broker->client_quotas) != 0)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        if ((comps[i] = comps_of(&rq->entries[i], req->a, &ncomps[i])) == NULL)
            return gr_req_close(req, "out of memory");
        first[i] = i;
        /* refused, every entry is answered, as they came */
        for (int32_t j = 0; j < i && first[i] == i && !denied; j++)
            if (gr_client_quotas_same_entity(comps[i], ncomps[i], comps[j],
                                             ncomps[j]))
                first[i] = first[j];
    }
    for (int32_t i = 0; i < n; i++) {
        const rq_entry_t *e = &rq->entries[i];
        int32_t nops = e->ops_cnt > 0 ? e->ops_cnt : 0;
        gr_cq_op_t *ops;
        const char *msg = NULL;
        gr_kerr_t err;
        rs_entry_t *o;

        /* an entity named again: its first entry stays as it went (its
         * change made), its answer becomes the refusal */
        if (first[i] != i) {
            dup[first[i]] = true;
            continue;
        }
        o = &out[nout];
        dup[i] = false;
        first[i] = nout++; /* now: its answer */
        ops = gr_arena_alloc(req->a, (size_t)(nops ? nops : 1) * sizeof(*ops));
        if (ops == NULL)
            return gr_req_close(req, "out of memory");
        gr_alter_client_quotas_response_entry_data_init(o);
        o->entity = gr_arena_alloc(req->a, (size_t)(ncomps[i] ? ncomps[i] : 1) *
                                               sizeof(*o->entity));
        if (o->entity == NULL)
            return gr_req_close(req, "out of memory");
        for (int j = 0; j < ncomps[i]; j++) {
            gr_alter_client_quotas_response_entity_data_init(&o->entity[j]);
            o->entity[j].entity_type = e->entity[j].entity_type;
            o->entity[j].entity_name = e->entity[j].entity_name;
        }
        o->entity_cnt = ncomps[i];
        for (int32_t j = 0; j < nops; j++) {
            ops[j].key = e->ops[j].key;
            ops[j].value = e->ops[j].value;
            ops[j].remove = e->ops[j].remove;
        }
        if (denied) {
            /* AlterClientQuotasRequest.getErrorResponse: every entry */
            err = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
            msg = gr_kerr_msg(err);
        } else if (dup_key(e)) {
            /* "Duplicate quota key", then replaced as a duplicate */
            err = GR_KERR_INVALID_REQUEST;
        } else {
            err = gr_client_quotas_alter(req->broker->client_quotas, comps[i],
                                         ncomps[i], ops, nops,
                                         rq->validate_only, req->a, &msg);
        }
        if (dup_key(e))
            dup[i] = true;
        o->error_code = err;
        o->error_message =
            err != GR_KERR_NONE && msg ? gr_str_c(msg) : GR_STR_NULL;
    }
    for (int32_t i = 0; i < n; i++) {
        rs_entry_t *o;
        const char *msg;
        if (first[i] < 0 || !dup[i] || denied)
            continue;
        o = &out[first[i]];
        msg = gr_arena_printf(
            req->a, "Ignoring duplicate entity %s",
            gr_client_quotas_entity_str(comps[i], ncomps[i], req->a));
        o->error_code = GR_KERR_INVALID_REQUEST;
        o->error_message = msg ? gr_str_c(msg) : GR_STR_NULL;
    }
    /* one write for the request's changes; if it fails none holds and
     * the entries that made one answer the storage error */
    if (gr_client_quotas_commit(req->broker->client_quotas) != GR_KERR_NONE)
        for (int32_t i = 0; i < nout; i++)
            if (out[i].error_code == GR_KERR_NONE && !rq->validate_only) {
                out[i].error_code = GR_KERR_KAFKA_STORAGE_ERROR;
                out[i].error_message =
                    gr_str_c("The client quotas could not be persisted.");
            }
    for (int32_t i = 0; i < nout; i++)
        if (out[i].error_code != GR_KERR_NONE)
            GR_LOG_INFO(
                "AlterClientQuotas from %s: %.*s", gr_req_peer(req),
                out[i].error_message.len > 0 ? out[i].error_message.len : 0,
                out[i].error_message.ptr ? out[i].error_message.ptr : "");
    rs->entries = out;
    rs->entries_cnt = nout;
    return gr_req_reply(req);
}
