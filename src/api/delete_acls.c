/*
 * DeleteAcls (api key 31): removes the ACL bindings each filter matches,
 * and lists them per filter. As Kafka's AclApis.handleDeleteAcls and
 * AclControlManager.deleteAcls: ALTER on the cluster first (each filter
 * CLUSTER_AUTHORIZATION_FAILED), SECURITY_DISABLED without an authorizer;
 * a filter with an UNKNOWN (code 0) element fails Kafka's parse (the
 * connection is closed), one with a code Kafka does not know is
 * INVALID_REQUEST ("Unknown patternFilter." / "Unknown entryFilter.");
 * every filter sees the bindings of before the request. The bindings go
 * at the request's turn among the ACL changes (api/change.h), and the
 * request is answered once the set is stored; if it cannot be, none
 * goes and every filter answers UNKNOWN_SERVER_ERROR (Kafka's answer to
 * a failed metadata write). As Kafka's controller
 * (AclControlManager.deleteAcls, MAX_RECORDS_PER_USER_OP), a request
 * whose filters match more than 10000 bindings in all (a binding two
 * filters match counts twice) removes none: every filter answers
 * INVALID_REQUEST "Cannot remove more than 10000 acls in a single delete
 * operation." with no bindings listed (what Kafka 4.4.0 answers).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/change.h"

/* Kafka's QuorumController.MAX_RECORDS_PER_USER_OP */
#define MAX_REMOVALS 10000

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
    return 0;
}

typedef struct count {
    const gr_acl_filter_t *f;
    int32_t n;
} count_t;

static int
count_cb(void *arg, const gr_acl_t *acl)
{
    count_t *c = arg;
    c->n += gr_acl_filter_matches(c->f, acl);
    return 0;
}

static bool
known(int code, int max)
{
    return code > 0 && code <= max;
}

static gr_acl_filter_t
filter_of(const gr_delete_acls_request_delete_acls_filter_t *q)
{
    return (gr_acl_filter_t){ .res_type = q->resource_type_filter,
                              .pattern = q->pattern_type_filter,
                              .op = q->operation,
                              .perm = q->permission_type,
                              .name = &q->resource_name_filter,
                              .principal = &q->principal_filter,
                              .host = &q->host_filter };
}

/* Every filter answers code with msg, nothing listed. */
static void
all_fail(gr_delete_acls_response_t *rs, int16_t code, const char *msg)
{
    for (int32_t i = 0; i < rs->filter_results_cnt; i++) {
        rs->filter_results[i].error_code = code;
        rs->filter_results[i].error_message =
            msg ? gr_str_c(msg) : GR_STR_NULL;
        rs->filter_results[i].matching_acls_cnt = 0;
    }
}

/* The request's turn: the valid filters (those still answering NONE)
 * counted (each list sized to fit), then applied to a copy of the set. */
static int
delete_apply(gr_req_t *req, void **state)
{
    const gr_delete_acls_request_t *rq = req->body;
    gr_delete_acls_response_t *rs = req->resp;
    gr_acls_t *next = gr_acls_copy(req->broker->acls);
    int64_t total = 0;
    size_t removed = 0;

    if (next == NULL) {
        all_fail(rs, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory");
        return 0;
    }
    for (int32_t i = 0; i < rs->filter_results_cnt; i++) {
        gr_delete_acls_response_delete_acls_filter_result_t *fr =
            &rs->filter_results[i];
        gr_acl_filter_t f = filter_of(&rq->filters[i]);
        count_t c = { .f = &f };
        if (fr->error_code != GR_KERR_NONE)
            continue;
        gr_acls_each(next, count_cb, &c);
        fr->matching_acls_cnt = c.n; /* the count, until listed */
        total += c.n;
    }
    if (total > MAX_REMOVALS) {
        GR_LOG_INFO("DeleteAcls from %s refused: its filters match %lld "
                    "ACLs, more than %d",
                    gr_req_peer(req), (long long)total, MAX_REMOVALS);
        all_fail(rs, GR_KERR_INVALID_REQUEST,
                 "Cannot remove more than 10000 acls in a single delete "
                 "operation.");
        gr_acls_destroy(next);
        return 0;
    }
    for (int32_t i = 0; i < rs->filter_results_cnt; i++) {
        gr_delete_acls_response_delete_acls_filter_result_t *fr =
            &rs->filter_results[i];
        gr_acl_filter_t f = filter_of(&rq->filters[i]);
        del_t d = { .req = req, .fr = fr, .cap = fr->matching_acls_cnt };
        if (fr->error_code != GR_KERR_NONE || d.cap == 0)
            continue;
        fr->matching_acls_cnt = 0;
        fr->matching_acls = gr_arena_zalloc(
            req->a, (size_t)d.cap * sizeof *fr->matching_acls);
        if (fr->matching_acls != NULL)
            removed += gr_acls_remove(next, &f, take_cb, &d);
        if (fr->matching_acls == NULL || d.oom) {
            all_fail(rs, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory");
            gr_acls_destroy(next);
            return 0;
        }
    }
    if (removed == 0) {
        gr_acls_destroy(next);
        return 0;
    }
    *state = next; /* indexed on the worker that writes it */
    return 1;
}

static void
delete_done(gr_broker_t *b, gr_req_t *req, void *state, int err)
{
    gr_delete_acls_response_t *rs;

    gr_authz_acls_install(b, state, err);
    if (req == NULL) {
        if (err == 0)
            GR_LOG_INFO("ACLs removed (the client went before its answer)");
        return;
    }
    rs = req->resp;
    if (err != 0) {
        all_fail(rs, GR_KERR_UNKNOWN_SERVER_ERROR,
                 gr_authz_store_failed_msg(req, "ACLs", err));
        return;
    }
    for (int32_t i = 0; i < rs->filter_results_cnt; i++) {
        const gr_delete_acls_response_delete_acls_filter_result_t *fr =
            &rs->filter_results[i];
        for (int32_t k = 0; k < fr->matching_acls_cnt; k++) {
            const gr_delete_acls_response_delete_acls_matching_acl_t *m =
                &fr->matching_acls[k];
            GR_LOG_INFO("ACL removed by %s: %s %s %s:%s:%.*s for %.*s from "
                        "%.*s",
                        gr_req_principal(req),
                        gr_acl_perm_name(m->permission_type),
                        gr_acl_op_name(m->operation),
                        gr_acl_res_name(m->resource_type),
                        gr_acl_pattern_name(m->pattern_type),
                        (int)m->resource_name.len, m->resource_name.ptr,
                        (int)m->principal.len, m->principal.ptr,
                        (int)m->host.len, m->host.ptr);
        }
    }
}

static const gr_change_ops_t delete_ops = {
    .what = "ACLs",
    .apply = delete_apply,
    .store = gr_authz_acls_store,
    .done = delete_done,
};

int
gr_api_delete_acls(gr_req_t *req)
{
    const gr_delete_acls_request_t *rq = req->body;
    gr_delete_acls_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    int32_t n = rq->filters_cnt > 0 ? rq->filters_cnt : 0;

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
    for (int32_t i = 0; i < n; i++) {
        gr_acl_filter_t f = filter_of(&rq->filters[i]);
        gr_delete_acls_response_delete_acls_filter_result_t *fr =
            &rs->filter_results[i];
        /* AclControlManager.validateFilter (ResourceType.fromCode and the
         * others give UNKNOWN for a code they do not know) */
        if (!known(f.res_type, GR_RES_USER) ||
            !known(f.pattern, GR_PAT_PREFIXED)) {
            fr->error_code = GR_KERR_INVALID_REQUEST;
            fr->error_message = gr_str_c("Unknown patternFilter.");
        } else if (!known(f.op, GR_OP_TWO_PHASE_COMMIT) ||
                   !known(f.perm, GR_PERM_ALLOW)) {
            fr->error_code = GR_KERR_INVALID_REQUEST;
            fr->error_message = gr_str_c("Unknown entryFilter.");
        }
    }
    return gr_change_submit(req, &delete_ops);
}
