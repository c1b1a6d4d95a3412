/*
 * CreateAcls (api key 30): adds ACL bindings to the authorizer. As
 * Kafka's AclApis.handleCreateAcls: ALTER on the cluster first (each
 * creation CLUSTER_AUTHORIZATION_FAILED), SECURITY_DISABLED without an
 * authorizer, then each binding checked (gr_acl_invalid: INVALID_REQUEST
 * with Kafka's messages); the valid ones are added at the request's turn
 * among the ACL changes (api/change.h), one already present succeeding
 * without a copy. They take effect, and the request is answered, once
 * the set is stored; if it cannot be, none is added and each of them
 * answers UNKNOWN_SERVER_ERROR (Kafka's answer to a failed metadata
 * write).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/change.h"

/* A wire string into a NUL-terminated copy in the request's arena. */
static const char *
cstr(gr_req_t *req, const gr_str_t *s)
{
    return gr_arena_strndup(req->a, s->len > 0 ? s->ptr : "",
                            s->len > 0 ? (size_t)s->len : 0);
}

static void
all_fail(gr_create_acls_response_t *rs, int16_t code, const char *msg)
{
    for (int32_t i = 0; i < rs->results_cnt; i++) {
        rs->results[i].error_code = code;
        rs->results[i].error_message = gr_str_c(msg);
    }
}

/* The binding of creation c, its strings in req's arena; false when out
 * of memory. */
static bool
acl_of(gr_req_t *req, const gr_create_acls_request_acl_creation_t *c,
       gr_acl_t *acl)
{
    *acl = (gr_acl_t){ .res_type = c->resource_type,
                       .pattern = c->resource_pattern_type,
                       .op = c->operation,
                       .perm = c->permission_type,
                       .name = cstr(req, &c->resource_name),
                       .principal = cstr(req, &c->principal),
                       .host = cstr(req, &c->host) };
    return acl->name != NULL && acl->principal != NULL && acl->host != NULL;
}

/* The request's turn: the valid bindings (those still answering NONE)
 * added to a copy of the set. */
static int
create_apply(gr_req_t *req, void **state)
{
    const gr_create_acls_request_t *rq = req->body;
    gr_create_acls_response_t *rs = req->resp;
    gr_acls_t *next = gr_acls_copy(req->broker->acls);
    size_t before;

    if (next == NULL) {
        all_fail(rs, GR_KERR_UNKNOWN_SERVER_ERROR, "Out of memory");
        return 0;
    }
    before = gr_acls_count(next);
    for (int32_t i = 0; i < rs->results_cnt; i++) {
        gr_acl_t acl;
        if (rs->results[i].error_code != GR_KERR_NONE)
            continue;
        if (!acl_of(req, &rq->creations[i], &acl) ||
            gr_acls_add(next, &acl) != 0)
            rs->results[i].error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    /* all present already: nothing to store */
    if (gr_acls_count(next) == before) {
        gr_acls_destroy(next);
        return 0;
    }
    *state = next; /* indexed on the worker that writes it */
    return 1;
}

static void
create_done(gr_broker_t *b, gr_req_t *req, void *state, int err)
{
    gr_create_acls_response_t *rs;
    const gr_create_acls_request_t *rq;

    gr_authz_acls_install(b, state, err);
    if (req == NULL) {
        if (err == 0)
            GR_LOG_INFO("ACLs added (the client went before its answer)");
        return;
    }
    rs = req->resp;
    rq = req->body;
    for (int32_t i = 0; i < rs->results_cnt; i++) {
        gr_acl_t acl;
        if (rs->results[i].error_code != GR_KERR_NONE)
            continue;
        if (err != 0) {
            const char *msg = gr_authz_store_failed_msg(req, "ACLs", err);
            rs->results[i].error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
            rs->results[i].error_message = msg ? gr_str_c(msg) : GR_STR_NULL;
        } else if (acl_of(req, &rq->creations[i], &acl)) {
            GR_LOG_INFO("ACL added by %s: %s %s %s:%s:%s for %s from %s",
                        gr_req_principal(req), gr_acl_perm_name(acl.perm),
                        gr_acl_op_name(acl.op), gr_acl_res_name(acl.res_type),
                        gr_acl_pattern_name(acl.pattern), acl.name,
                        acl.principal, acl.host);
        }
    }
}

static const gr_change_ops_t create_ops = {
    .what = "ACLs",
    .apply = create_apply,
    .store = gr_authz_acls_store,
    .done = create_done,
};

int
gr_api_create_acls(gr_req_t *req)
{
    const gr_create_acls_request_t *rq = req->body;
    gr_create_acls_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    int32_t n = rq->creations_cnt > 0 ? rq->creations_cnt : 0;

    rs->results = gr_arena_zalloc(req->a, (size_t)n * sizeof *rs->results);
    if (n > 0 && rs->results == NULL)
        return gr_req_close(req, "out of memory");
    rs->results_cnt = n;
    /* CreateAclsRequest.validate: an UNKNOWN element fails the parse
     * (Kafka closes the connection) */
    for (int32_t i = 0; i < n; i++) {
        const gr_create_acls_request_acl_creation_t *c = &rq->creations[i];
        if (c->resource_type == GR_RES_UNKNOWN ||
            c->resource_pattern_type == GR_PAT_UNKNOWN ||
            c->operation == GR_OP_UNKNOWN ||
            c->permission_type == GR_PERM_UNKNOWN)
            return gr_req_close(req, "CreateAcls: creations contain UNKNOWN "
                                     "elements");
    }
    if (!gr_authz_cluster(req, GR_OP_ALTER)) {
        all_fail(rs, GR_KERR_CLUSTER_AUTHORIZATION_FAILED,
                 "Request CreateAcls needs ALTER permission.");
        return gr_req_reply(req);
    }
    if (b->acls == NULL) {
        all_fail(rs, GR_KERR_SECURITY_DISABLED, "No Authorizer is configured.");
        return gr_req_reply(req);
    }
    /* CreateAclsRequest.aclBinding: a pattern or entry Kafka cannot even
     * build (type ANY, pattern MATCH or ANY, operation or permission ANY)
     * fails the whole request, UNKNOWN_SERVER_ERROR without a message */
    for (int32_t i = 0; i < n; i++) {
        const gr_create_acls_request_acl_creation_t *c = &rq->creations[i];
        if (c->resource_type == GR_RES_ANY ||
            c->resource_pattern_type == GR_PAT_MATCH ||
            c->resource_pattern_type == GR_PAT_ANY ||
            c->operation == GR_OP_ANY || c->permission_type == GR_PERM_ANY) {
            GR_LOG_INFO("CreateAcls from %s: creation %d has an ANY or MATCH "
                        "code",
                        gr_req_peer(req), (int)i);
            all_fail(rs, GR_KERR_UNKNOWN_SERVER_ERROR, NULL);
            return gr_req_reply(req);
        }
    }
    for (int32_t i = 0; i < n; i++) {
        gr_acl_t acl;
        char buf[512];
        const char *bad;
        if (!acl_of(req, &rq->creations[i], &acl))
            return gr_req_close(req, "out of memory");
        bad = gr_acl_invalid(&acl, buf, sizeof buf);
        if (bad != NULL) {
            GR_LOG_INFO("CreateAcls from %s: %s", gr_req_peer(req), bad);
            rs->results[i].error_code = GR_KERR_INVALID_REQUEST;
            rs->results[i].error_message =
                gr_str_c(gr_arena_strndup(req->a, bad, strlen(bad)));
        }
    }
    return gr_change_submit(req, &create_ops);
}
