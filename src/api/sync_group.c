/*
 * SyncGroup (api key 14): the leader brings the assignment, every member
 * gets its own. Held by the coordinator until the leader's assignment is
 * stored (gr_group_sync()); deferred and cancelled like JoinGroup.
 * ProtocolType/ProtocolName are checked and answered from v5
 * (sync_group.schema, KIP-559).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

#include <string.h>

typedef struct sync_ctx {
    gr_req_t *req;
    gr_group_waiter_t w;
} sync_ctx_t;

static gr_str_t
adup(gr_req_t *req, const char *s)
{
    if (s == NULL)
        return GR_STR_NULL;
    return (gr_str_t){ gr_arena_strndup(req->a, s, strlen(s)),
                       (int32_t)strlen(s) };
}

static void
sync_done(gr_group_waiter_t *w, const void *result)
{
    const gr_group_sync_result_t *r = result;
    sync_ctx_t *ctx = w->arg;
    gr_req_t *req = ctx->req;
    gr_sync_group_response_t *rs = req->resp;

    rs->error_code = r->error;
    rs->protocol_type = adup(req, r->protocol_type);
    rs->protocol_name = adup(req, r->protocol_name);
    rs->assignment.len = r->assignment.len > 0 ? r->assignment.len : 0;
    rs->assignment.ptr = rs->assignment.len
                             ? gr_arena_memdup(req->a, r->assignment.ptr,
                                               (size_t)rs->assignment.len)
                             : NULL;
    if (rs->assignment.len && rs->assignment.ptr == NULL) {
        gr_req_close(req, "out of memory");
        return;
    }
    gr_req_reply(req);
}

static void
sync_abort(gr_req_t *req)
{
    sync_ctx_t *ctx = req->owner;
    gr_group_waiter_cancel(&ctx->w);
}

int
gr_api_sync_group(gr_req_t *req)
{
    const gr_sync_group_request_t *rq = req->body;
    sync_ctx_t *ctx = gr_arena_zalloc(req->a, sizeof(*ctx));
    gr_group_assignment_t *as;
    gr_group_sync_args_t a;
    int32_t n = rq->assignments_cnt > 0 ? rq->assignments_cnt : 0;

    as = gr_arena_zalloc(req->a, sizeof(*as) * (size_t)(n + 1));
    if (ctx == NULL || as == NULL)
        return gr_req_close(req, "out of memory");
    /* READ on the group */
    if (!gr_authz(req, GR_RES_GROUP, &rq->group_id, GR_OP_READ)) {
        gr_sync_group_response_t *rs = req->resp;
        rs->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        rs->protocol_type = GR_STR_NULL;
        rs->protocol_name = GR_STR_NULL;
        rs->assignment.ptr = NULL;
        rs->assignment.len = 0;
        return gr_req_reply(req);
    }
    /* from v5 both are mandatory (Kafka's
     * areMandatoryProtocolTypeAndNamePresent) */
    if (req->version >= 5 &&
        (rq->protocol_type.len < 0 || rq->protocol_name.len < 0)) {
        gr_sync_group_response_t *rs = req->resp;
        rs->error_code = GR_KERR_INCONSISTENT_GROUP_PROTOCOL;
        return gr_req_reply(req);
    }
    for (int32_t i = 0; i < n; i++) {
        as[i].member_id = rq->assignments[i].member_id;
        as[i].assignment = rq->assignments[i].assignment;
    }
    memset(&a, 0, sizeof a);
    a.group_id = rq->group_id;
    a.member_id = rq->member_id;
    a.group_instance_id = rq->group_instance_id;
    a.protocol_type = rq->protocol_type; /* "5+": null before */
    a.protocol_name = rq->protocol_name;
    a.generation_id = rq->generation_id;
    a.assignments = as;
    a.nassignments = n;
    ctx->req = req;
    gr_group_waiter_init(&ctx->w, sync_done, ctx);
    /* answered during the call: req may be over already, touch nothing */
    if (!gr_group_sync(req->broker->groups, &a, &ctx->w))
        return 0;
    return gr_req_defer(req, sync_abort, ctx);
}
