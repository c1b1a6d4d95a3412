/*
 * AlterClientQuotas (api key 49, KIP-546): sets and removes quotas per
 * entity, as Kafka's controller does (ClientQuotaControlManager, checks
 * in src/cluster/client_quotas.c). Each entry is answered on its own:
 * an entry naming an entity an earlier entry named, or a key twice, is
 * refused with "Ignoring duplicate entity ..." (Kafka's result map keeps
 * one answer per entity: the later one replaces the first's, so both
 * answer that). validate_only checks and changes nothing. A request is
 * checked and applied at its turn among the ACL and quota changes
 * (api/change.h): its changes are stored together (one write, off the
 * loop), then take effect and the request is answered; when they cannot
 * be stored none holds and every entry answers UNKNOWN_SERVER_ERROR
 * (Kafka's answer to a failed metadata write). It needs ALTER_CONFIGS
 * on the cluster (ControllerApis); refused, every entry answers
 * CLUSTER_AUTHORIZATION_FAILED and nothing changes.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/change.h"
#include "cluster/client_quotas.h"

#include <stdlib.h>
#include <string.h>

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

typedef struct keyed {
    const char *key;
    int32_t i;
} keyed_t;

static int
cmp_keyed(const void *x, const void *y)
{
    const keyed_t *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    return c != 0 ? c : (a->i > b->i) - (a->i < b->i);
}

/* Whether an entry names a key twice (sorting copies: n log n). */
static bool
dup_key(const rq_entry_t *e, gr_arena_t *a, bool *oom)
{
    bool *rep;
    if (e->ops_cnt < 2)
        return false;
    rep = gr_str_repeats(a, &e->ops[0].key, sizeof(e->ops[0]), e->ops_cnt);
    if (rep == NULL) {
        *oom = true;
        return false;
    }
    for (int32_t i = 0; i < e->ops_cnt; i++)
        if (rep[i])
            return true;
    return false;
}

/* Out of memory in the middle of a request: its changes undone, the
 * connection closed. */
static int
oom_close(gr_req_t *req)
{
    gr_config_resource_t *list = NULL;
    bool changed;
    gr_client_quotas_prepare(req->broker->client_quotas, &changed, &list);
    gr_config_resources_free(&list);
    gr_req_close(req, "out of memory");
    return -1;
}

static int
alter_apply(gr_req_t *req, void **state)
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
        return oom_close(req);
    int32_t *first =
        gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*first));
    int32_t nout = 0;
    bool denied = !gr_authz_cluster(req, GR_OP_ALTER_CONFIGS);
    gr_kerr_t commit;
    gr_config_resource_t *list = NULL;
    bool changed = false;
    keyed_t *keyed;

    if (first == NULL ||
        gr_client_quotas_begin(req->broker->client_quotas) != 0)
        return oom_close(req);
    keyed = gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*keyed));
    if (keyed == NULL)
        return oom_close(req);
    for (int32_t i = 0; i < n; i++) {
        if ((comps[i] = comps_of(&rq->entries[i], req->a, &ncomps[i])) == NULL)
            return oom_close(req);
        first[i] = i;
        keyed[i].i = i;
        keyed[i].key = gr_client_quotas_entity_key(comps[i], ncomps[i], req->a);
        if (keyed[i].key == NULL)
            return oom_close(req);
    }
    /* an entity named again goes with its first entry (sorted by entity,
     * then position: n log n); refused, every entry is answered, as they
     * came */
    qsort(keyed, (size_t)n, sizeof(*keyed), cmp_keyed);
    for (int32_t i = 1; i < n && !denied; i++)
        if (strcmp(keyed[i].key, keyed[i - 1].key) == 0)
            first[keyed[i].i] = first[keyed[i - 1].i];
    for (int32_t i = 0; i < n; i++) {
        const rq_entry_t *e = &rq->entries[i];
        int32_t nops = e->ops_cnt > 0 ? e->ops_cnt : 0;
        gr_cq_op_t *ops;
        const char *msg = NULL;
        gr_kerr_t err;
        rs_entry_t *o;
        bool twice, oom = false;

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
            return oom_close(req);
        gr_alter_client_quotas_response_entry_data_init(o);
        o->entity = gr_arena_alloc(req->a, (size_t)(ncomps[i] ? ncomps[i] : 1) *
                                               sizeof(*o->entity));
        if (o->entity == NULL)
            return oom_close(req);
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
        twice = dup_key(e, req->a, &oom);
        if (oom)
            return oom_close(req);
        if (denied) {
            /* AlterClientQuotasRequest.getErrorResponse: every entry */
            err = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
            msg = gr_kerr_msg(err);
        } else if (twice) {
            /* "Duplicate quota key", then replaced as a duplicate */
            err = GR_KERR_INVALID_REQUEST;
        } else {
            err = gr_client_quotas_alter(req->broker->client_quotas, comps[i],
                                         ncomps[i], ops, nops,
                                         rq->validate_only, req->a, &msg);
        }
        if (twice)
            dup[i] = true;
        o->error_code = err;
        o->error_message =
            err != GR_KERR_NONE && msg ? gr_str_c(msg) : GR_STR_NULL;
        /* past Kafka's batch bound every entry is refused whatever the
         * rest would make: 50,000 new entities took 166 ms of the loop
         * made one by one, then undone */
        if (gr_client_quotas_over_batch(req->broker->client_quotas))
            break;
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
    /* one write for the request's changes; if it fails none holds: more
     * changes than Kafka's controller takes at once answer every entry
     * of the request POLICY_VIOLATION (getErrorResponse), running out of
     * memory the entries that made one; a failed write is alter_done's */
    commit =
        gr_client_quotas_prepare(req->broker->client_quotas, &changed, &list);
    if (commit == GR_KERR_POLICY_VIOLATION) {
        for (int32_t i = 0; i < n; i++) {
            const rq_entry_t *e = &rq->entries[i];
            gr_alter_client_quotas_response_entry_data_init(&out[i]);
            out[i].entity = gr_arena_alloc(
                req->a, (size_t)(ncomps[i] ? ncomps[i] : 1) *
                            sizeof(*out[i].entity));
            if (out[i].entity == NULL)
                return oom_close(req);
            for (int j = 0; j < ncomps[i]; j++) {
                gr_alter_client_quotas_response_entity_data_init(
                    &out[i].entity[j]);
                out[i].entity[j].entity_type = e->entity[j].entity_type;
                out[i].entity[j].entity_name = e->entity[j].entity_name;
            }
            out[i].entity_cnt = ncomps[i];
            out[i].error_code = commit;
            out[i].error_message = gr_str_c(gr_kerr_msg(commit));
        }
        nout = n;
    } else if (commit != GR_KERR_NONE) {
        for (int32_t i = 0; i < nout; i++)
            if (out[i].error_code == GR_KERR_NONE && !rq->validate_only) {
                out[i].error_code = commit;
                out[i].error_message =
                    gr_str_c("The client quotas could not be persisted.");
            }
    }
    /* one line for the refusals: the first, and how many */
    for (int32_t i = 0; i < nout; i++)
        if (out[i].error_code != GR_KERR_NONE) {
            int32_t k = 0;
            for (int32_t j = i; j < nout; j++)
                k += out[j].error_code != GR_KERR_NONE;
            GR_LOG_INFO(
                "AlterClientQuotas from %s: %d of %d entries refused, the "
                "first: %.*s",
                gr_req_peer(req), k, nout,
                out[i].error_message.len > 0 ? out[i].error_message.len : 0,
                out[i].error_message.ptr ? out[i].error_message.ptr : "");
            break;
        }
    rs->entries = out;
    rs->entries_cnt = nout;
    if (!changed)
        return 0;
    *state = list; /* NULL: no quota left */
    return 1;
}

static void
alter_store(gr_broker_t *b, void *state, gr_cluster_stored_cb cb, void *arg)
{
    gr_cluster_store_client_quotas(b->cluster, state, cb, arg);
}

static void
alter_done(gr_broker_t *b, gr_req_t *req, void *state, int err)
{
    gr_config_resource_t *list = state;
    gr_alter_client_quotas_response_t *rs;
    const char *msg;

    if (err == 0) {
        gr_client_quotas_install(b->client_quotas, list);
        return;
    }
    gr_config_resources_free(&list);
    if (req == NULL)
        return;
    /* the whole request failed, as Kafka's getErrorResponse words it */
    rs = req->resp;
    msg = gr_authz_store_failed_msg(req, "client quotas", err);
    for (int32_t i = 0; i < rs->entries_cnt; i++) {
        rs->entries[i].error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
        rs->entries[i].error_message = msg ? gr_str_c(msg) : GR_STR_NULL;
    }
}

static const gr_change_ops_t alter_ops = {
    .what = "client quotas",
    .apply = alter_apply,
    .store = alter_store,
    .done = alter_done,
};

int
gr_api_alter_client_quotas(gr_req_t *req)
{
    return gr_change_submit(req, &alter_ops);
}
