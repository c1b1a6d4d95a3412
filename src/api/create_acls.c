/*
 * CreateAcls (api key 30): adds ACL bindings to the authorizer. As
 * Kafka's AclApis.handleCreateAcls: ALTER on the cluster first (each
 * creation CLUSTER_AUTHORIZATION_FAILED), SECURITY_DISABLED without an
 * authorizer, then each binding checked (gr_acl_invalid: INVALID_REQUEST
 * with Kafka's messages) and the valid ones added at once; one already
 * present succeeds without a copy. The set is stored before the answer.
 */
#include "api/api_int.h"
#include "api/authz.h"

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

int
gr_api_create_acls(gr_req_t *req)
{
    const gr_create_acls_request_t *rq = req->body;
    gr_create_acls_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    int32_t n = rq->creations_cnt > 0 ? rq->creations_cnt : 0;
    bool *added;
    gr_kerr_t kerr;

    rs->results = gr_arena_zalloc(req->a, (size_t)n * sizeof *rs->results);
    added = gr_arena_zalloc(req->a, (size_t)n * sizeof *added);
    if (n > 0 && (rs->results == NULL || added == NULL))
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
        const gr_create_acls_request_acl_creation_t *c = &rq->creations[i];
        gr_acl_t acl = { .res_type = c->resource_type,
                         .pattern = c->resource_pattern_type,
                         .op = c->operation,
                         .perm = c->permission_type,
                         .name = cstr(req, &c->resource_name),
                         .principal = cstr(req, &c->principal),
                         .host = cstr(req, &c->host) };
        char buf[512];
        const char *bad;
        if (acl.name == NULL || acl.principal == NULL || acl.host == NULL)
            return gr_req_close(req, "out of memory");
        bad = gr_acl_invalid(&acl, buf, sizeof buf);
        if (bad != NULL) {
            GR_LOG_INFO("CreateAcls from %s: %s", gr_req_peer(req), bad);
            rs->results[i].error_code = GR_KERR_INVALID_REQUEST;
            rs->results[i].error_message =
                gr_str_c(gr_arena_strndup(req->a, bad, strlen(bad)));
            continue;
        }
        if (gr_acls_add(b->acls, &acl) != 0) {
            rs->results[i].error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
            continue;
        }
        added[i] = true;
        GR_LOG_INFO("ACL added by %s: %s %s %s:%s:%s for %s from %s",
                    gr_req_principal(req), gr_acl_perm_name(acl.perm),
                    gr_acl_op_name(acl.op), gr_acl_res_name(acl.res_type),
                    gr_acl_pattern_name(acl.pattern), acl.name, acl.principal,
                    acl.host);
    }
    kerr = gr_authz_store(b);
    if (kerr != GR_KERR_NONE)
        for (int32_t i = 0; i < n; i++)
            if (added[i])
                rs->results[i].error_code = kerr;
    return gr_req_reply(req);
}
