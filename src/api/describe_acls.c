/*
 * DescribeAcls (api key 29): the ACL bindings a filter matches, grouped by
 * resource pattern. As Kafka's AclApis.handleDescribeAcls: DESCRIBE on the
 * cluster first (CLUSTER_AUTHORIZATION_FAILED), SECURITY_DISABLED without
 * an authorizer; a filter with an UNKNOWN (code 0) element fails Kafka's
 * parse (the connection is closed); codes Kafka does not know match
 * nothing. Strings point at the authorizer's, which stay until the
 * answer is encoded (nothing changes the set in between).
 */
#include "api/api_int.h"
#include "api/authz.h"

typedef struct fill {
    const gr_acl_filter_t *f;
    gr_describe_acls_response_t *rs;
    gr_describe_acls_response_describe_acls_resource_t *cur;
    const gr_acl_t *last;
    int32_t nres, nacls; /* counting pass: resources and bindings */
    gr_describe_acls_response_acl_description_t *next;
} fill_t;

static bool
same_resource(const gr_acl_t *a, const gr_acl_t *b)
{
    return b != NULL && a->res_type == b->res_type &&
           a->pattern == b->pattern && strcmp(a->name, b->name) == 0;
}

static int
count_cb(void *arg, const gr_acl_t *acl)
{
    fill_t *fl = arg;
    if (!gr_acl_filter_matches(fl->f, acl))
        return 0;
    if (!same_resource(acl, fl->last))
        fl->nres++;
    fl->nacls++;
    fl->last = acl;
    return 0;
}

static int
fill_cb(void *arg, const gr_acl_t *acl)
{
    fill_t *fl = arg;
    gr_describe_acls_response_acl_description_t *d;
    if (!gr_acl_filter_matches(fl->f, acl))
        return 0;
    if (!same_resource(acl, fl->last)) {
        fl->cur = &fl->rs->resources[fl->rs->resources_cnt++];
        fl->cur->resource_type = acl->res_type;
        fl->cur->resource_name = gr_str_c(acl->name);
        fl->cur->pattern_type = acl->pattern;
        fl->cur->acls = fl->next;
        fl->cur->acls_cnt = 0;
    }
    d = &fl->cur->acls[fl->cur->acls_cnt++];
    fl->next++;
    d->principal = gr_str_c(acl->principal);
    d->host = gr_str_c(acl->host);
    d->operation = acl->op;
    d->permission_type = acl->perm;
    fl->last = acl;
    return 0;
}

int
gr_api_describe_acls(gr_req_t *req)
{
    const gr_describe_acls_request_t *rq = req->body;
    gr_describe_acls_response_t *rs = req->resp;
    gr_acl_filter_t f = { .res_type = rq->resource_type_filter,
                          .pattern = rq->pattern_type_filter,
                          .op = rq->operation,
                          .perm = rq->permission_type,
                          .name = &rq->resource_name_filter,
                          .principal = &rq->principal_filter,
                          .host = &rq->host_filter };
    fill_t fl = { .f = &f, .rs = rs };

    if (f.pattern == GR_PAT_UNKNOWN || f.res_type == GR_RES_UNKNOWN ||
        f.perm == GR_PERM_UNKNOWN || f.op == GR_OP_UNKNOWN)
        return gr_req_close(req, "DescribeAcls: the filter contains UNKNOWN "
                                 "elements");
    if (!gr_authz_cluster(req, GR_OP_DESCRIBE)) {
        rs->error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        rs->error_message = gr_str_c("Request DescribeAcls needs DESCRIBE "
                                     "permission.");
        return gr_req_reply(req);
    }
    if (req->broker->acls == NULL) {
        rs->error_code = GR_KERR_SECURITY_DISABLED;
        rs->error_message = gr_str_c("No Authorizer is configured on the "
                                     "broker");
        return gr_req_reply(req);
    }
    gr_acls_each_by_resource(req->broker->acls, count_cb, &fl);
    rs->resources =
        gr_arena_zalloc(req->a, (size_t)fl.nres * sizeof *rs->resources);
    fl.next = gr_arena_zalloc(req->a, (size_t)fl.nacls * sizeof *fl.next);
    if (fl.nres > 0 && (rs->resources == NULL || fl.next == NULL))
        return gr_req_close(req, "out of memory");
    fl.last = NULL;
    gr_acls_each_by_resource(req->broker->acls, fill_cb, &fl);
    return gr_req_reply(req);
}
