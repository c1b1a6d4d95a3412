/*
 * DeleteAcls (api key 31): removes the ACL bindings each filter matches,
 * and lists them per filter. As Kafka's AclApis.handleDeleteAcls and
 * AclControlManager.deleteAcls: ALTER on the cluster first (each filter
 * CLUSTER_AUTHORIZATION_FAILED), SECURITY_DISABLED without an authorizer;
 * a filter with an UNKNOWN (code 0) element fails Kafka's parse (the
 * connection is closed), one with a code Kafka does not know is
 * INVALID_REQUEST ("Unknown patternFilter." / "Unknown entryFilter.");
 * every filter sees the bindings of before the request. The set is
 * stored before the answer.
 */
#include "api/api_int.h"
#include "api/authz.h"

typedef struct del {
    gr_req_t *req;
    gr_delete_acls_response_delete_acls_filter_result_t *fr;
    int32_t cap;
    bool oom;
} del_t;

static gr_str_t
dup(gr_req_t *req, const char *s, bool *oom)
{
    char *p = gr_arena_strndup(req->a, s, strlen(s));
    if (p == NULL)
        *oom = true;
    return gr_str_c(p);
}

static int
take_cb(void *arg, const gr_acl_t *acl)
{
    del_t *d = arg;
    gr_delete_acls_response_delete_acls_matching_acl_t *m;
    if (d->fr->matching_acls_cnt >= d->cap)
        return 0;
    m = &d->fr->matching_acls[d->fr->matching_acls_cnt++];
    m->error_message = GR_STR_NULL; /* Kafka's: null, not "" */
    m->resource_type = acl->res_type;
    m->resource_name = dup(d->req, acl->name, &d->oom);
    m->pattern_type = acl->pattern;
    m->principal = dup(d->req, acl->principal, &d->oom);
    m->host = dup(d->req, acl->host, &d->oom);
    m->operation = acl->op;
    m->permission_type = acl->perm;
    GR_LOG_INFO("ACL removed by %s: %s %s %s:%s:%s for %s from %s",
                gr_req_principal(d->req), gr_acl_perm_name(acl->perm),
                gr_acl_op_name(acl->op), gr_acl_res_name(acl->res_type),
                gr_acl_pattern_name(acl->pattern), acl->name, acl->principal,
                acl->host);
    return 0;
}

static bool
known(int code, int max)
{
    return code > 0 && code <= max;
}

int
gr_api_delete_acls(gr_req_t *req)
{
    const gr_delete_acls_request_t *rq = req->body;
    gr_delete_acls_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    int32_t n = rq->filters_cnt > 0 ? rq->filters_cnt : 0;
    size_t removed = 0;
    int32_t total;
    gr_kerr_t kerr;

    rs->filter_results =
        gr_arena_zalloc(req->a, (size_t)n * sizeof *rs->filter_results);
    if (n > 0 && rs->filter_results == NULL)
        return gr_req_close(req, "out of memory");
    rs->filter_results_cnt = n;
    for (int32_t i = 0; i < n; i++)
        rs->filter_results[i].error_message = GR_STR_NULL;
    for (int32_t i = 0; i < n; i++) {
        const gr_delete_acls_request_delete_acls_filter_t *f = &rq->filters[i];
        if (f->pattern_type_filter == GR_PAT_UNKNOWN ||
            f->resource_type_filter == GR_RES_UNKNOWN ||
            f->operation == GR_OP_UNKNOWN ||
            f->permission_type == GR_PERM_UNKNOWN)
            return gr_req_close(req, "DeleteAcls: filters contain UNKNOWN "
                                     "elements");
    }
    for (int32_t i = 0; i < n; i++) {
        gr_delete_acls_response_delete_acls_filter_result_t *fr =
            &rs->filter_results[i];
        if (!gr_authz_cluster(req, GR_OP_ALTER)) {
            fr->error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
            fr->error_message =
                gr_str_c("Request DeleteAcls needs ALTER permission.");
        } else if (b->acls == NULL) {
            fr->error_code = GR_KERR_SECURITY_DISABLED;
            fr->error_message = gr_str_c("No Authorizer is configured.");
        }
    }
    if (n == 0 || rs->filter_results[0].error_code != GR_KERR_NONE)
        return gr_req_reply(req);
    total = (int32_t)gr_acls_count(b->acls);
    for (int32_t i = 0; i < n; i++) {
        const gr_delete_acls_request_delete_acls_filter_t *q = &rq->filters[i];
        gr_acl_filter_t f = { .res_type = q->resource_type_filter,
                              .pattern = q->pattern_type_filter,
                              .op = q->operation,
                              .perm = q->permission_type,
                              .name = &q->resource_name_filter,
                              .principal = &q->principal_filter,
                              .host = &q->host_filter };
        del_t d = { .req = req, .fr = &rs->filter_results[i] };
        /* AclControlManager.validateFilter (ResourceType.fromCode and the
         * others give UNKNOWN for a code they do not know) */
        if (!known(f.res_type, GR_RES_USER) ||
            !known(f.pattern, GR_PAT_PREFIXED)) {
            d.fr->error_code = GR_KERR_INVALID_REQUEST;
            d.fr->error_message = gr_str_c("Unknown patternFilter.");
            continue;
        }
        if (!known(f.op, GR_OP_TWO_PHASE_COMMIT) ||
            !known(f.perm, GR_PERM_ALLOW)) {
            d.fr->error_code = GR_KERR_INVALID_REQUEST;
            d.fr->error_message = gr_str_c("Unknown entryFilter.");
            continue;
        }
        d.cap = total; /* each filter sees the set of before */
        d.fr->matching_acls = gr_arena_zalloc(
            req->a, (size_t)d.cap * sizeof *d.fr->matching_acls);
        if (d.cap > 0 && d.fr->matching_acls == NULL)
            d.oom = true;
        if (!d.oom)
            removed += gr_acls_remove(b->acls, &f, take_cb, &d);
        if (d.oom) {
            gr_acls_commit(b->acls);
            return gr_req_close(req, "out of memory");
        }
    }
    /* Kafka's matching_acls entries say NONE each; a failed store says
     * so on the filter */
    kerr = removed > 0 ? gr_authz_store(b) : GR_KERR_NONE;
    if (kerr != GR_KERR_NONE)
        for (int32_t i = 0; i < n; i++)
            if (rs->filter_results[i].matching_acls_cnt > 0)
                rs->filter_results[i].error_code = kerr;
    return gr_req_reply(req);
}
