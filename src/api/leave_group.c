/*
 * LeaveGroup (api key 13): members leave at once instead of timing out.
 * v0-v2 name one member; v3+ a batch (KIP-345, static members by
 * instance id) with an error per member. Older versions get the member's
 * error at the top level, as Kafka's LeaveGroupResponse does.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

int
gr_api_leave_group(gr_req_t *req)
{
    const gr_leave_group_request_t *rq = req->body;
    gr_leave_group_response_t *rs = req->resp;
    gr_group_leaver_t *l;
    int32_t n =
        req->version >= 3 ? (rq->members_cnt > 0 ? rq->members_cnt : 0) : 1;
    gr_kerr_t err;

    l = gr_arena_zalloc(req->a, sizeof(*l) * (size_t)(n + 1));
    if (l == NULL)
        return gr_req_close(req, "out of memory");
    /* READ on the group */
    if (!gr_authz(req, GR_RES_GROUP, &rq->group_id, GR_OP_READ)) {
        rs->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        rs->members_cnt = 0;
        return gr_req_reply(req);
    }
    if (req->version < 3) {
        l[0].member_id = rq->member_id;
        l[0].group_instance_id = GR_STR_NULL;
        l[0].reason = GR_STR_NULL;
    } else {
        for (int32_t i = 0; i < n; i++) {
            l[i].member_id = rq->members[i].member_id;
            l[i].group_instance_id = rq->members[i].group_instance_id;
            l[i].reason = rq->members[i].reason;
        }
    }
    err = gr_group_leave(req->broker->groups, &rq->group_id, l, n);
    if (req->version < 3) {
        rs->error_code = err != GR_KERR_NONE ? err : l[0].error;
        return gr_req_reply(req);
    }
    rs->error_code = err;
    rs->members_cnt = err != GR_KERR_NONE ? 0 : n;
    rs->members =
        gr_arena_zalloc(req->a, sizeof(*rs->members) * (size_t)(n + 1));
    if (rs->members == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < rs->members_cnt; i++) {
        gr_leave_group_response_member_response_init(&rs->members[i]);
        rs->members[i].member_id = l[i].member_id;
        rs->members[i].group_instance_id = l[i].group_instance_id;
        rs->members[i].error_code = l[i].error;
    }
    return gr_req_reply(req);
}
