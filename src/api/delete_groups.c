/*
 * DeleteGroups (api key 42): removes Empty groups with their offsets
 * (tombstones in __consumer_offsets); NON_EMPTY_GROUP while a group has
 * members, GROUP_ID_NOT_FOUND for an unknown one.
 */
#include "api/api_int.h"
#include "group/group.h"

int
gr_api_delete_groups(gr_req_t *req)
{
    const gr_delete_groups_request_t *rq = req->body;
    gr_delete_groups_response_t *rs = req->resp;
    int32_t n = rq->groups_names_cnt > 0 ? rq->groups_names_cnt : 0;

    rs->results_cnt = n;
    rs->results =
        gr_arena_zalloc(req->a, sizeof(*rs->results) * (size_t)(n + 1));
    if (rs->results == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        rs->results[i].group_id = rq->groups_names[i];
        rs->results[i].error_code =
            gr_group_delete(req->broker->groups, &rq->groups_names[i]);
    }
    return gr_req_reply(req);
}
