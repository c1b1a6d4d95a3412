/*
 * DeleteGroups (api key 42): removes Empty groups with their offsets
 * (tombstones in __consumer_offsets); NON_EMPTY_GROUP while a group has
 * members, GROUP_ID_NOT_FOUND for an unknown one. A group named twice is
 * deleted and answered once (Kafka's handleDeleteGroupsRequest takes the
 * distinct names); no result carries a message (v3+: null, as Kafka's).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

/* Whether names[i] is among names[0..i-1] (a request names a handful of
 * groups: the quadratic look is cheaper than a hash). */
static bool
named_before(const gr_str_t *names, int32_t i)
{
    for (int32_t k = 0; k < i; k++)
        if (gr_str_eq(&names[k], &names[i]))
            return true;
    return false;
}

int
gr_api_delete_groups(gr_req_t *req)
{
    const gr_delete_groups_request_t *rq = req->body;
    gr_delete_groups_response_t *rs = req->resp;
    int32_t n = rq->groups_names_cnt > 0 ? rq->groups_names_cnt : 0;

    rs->results_cnt = 0;
    rs->results =
        gr_arena_zalloc(req->a, sizeof(*rs->results) * (size_t)(n + 1));
    if (rs->results == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        gr_delete_groups_response_deletable_group_result_t *r;
        if (named_before(rq->groups_names, i))
            continue;
        r = &rs->results[rs->results_cnt++];
        gr_delete_groups_response_deletable_group_result_init(r);
        r->group_id = rq->groups_names[i];
        /* DELETE on the group */
        r->error_code =
            !gr_authz(req, GR_RES_GROUP, &rq->groups_names[i], GR_OP_DELETE)
                ? GR_KERR_GROUP_AUTHORIZATION_FAILED
                : gr_group_delete(req->broker->groups, &rq->groups_names[i]);
    }
    return gr_req_reply(req);
}
