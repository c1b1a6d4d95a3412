/*
 * Heartbeat (api key 12): keeps a member's session alive and tells it
 * when to rejoin (REBALANCE_IN_PROGRESS). gr_group_heartbeat() answers
 * NONE while the coordinator loads, as Kafka does.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

int
gr_api_heartbeat(gr_req_t *req)
{
    const gr_heartbeat_request_t *rq = req->body;
    gr_heartbeat_response_t *rs = req->resp;

    /* READ on the group */
    if (!gr_authz(req, GR_RES_GROUP, &rq->group_id, GR_OP_READ)) {
        rs->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        return gr_req_reply(req);
    }
    /* GroupInstanceId is a "3+" field: null before */
    rs->error_code =
        gr_group_heartbeat(req->broker->groups, &rq->group_id, &rq->member_id,
                           &rq->group_instance_id, rq->generation_id);
    return gr_req_reply(req);
}
