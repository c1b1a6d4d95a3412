/*
 * ListGroups (api key 16): every group this broker coordinates, with its
 * protocol type, its state (v4+) and its type (v5+: "classic", or
 * "consumer" for a KIP-848 group, whose states are Empty, Assigning,
 * Reconciling and Stable). states_filter (v4+) and types_filter (v5+) compare
 * case-insensitively, as Kafka 3.6+ does; an empty filter passes all.
 * While the coordinator loads, the groups known so far come with
 * COORDINATOR_LOAD_IN_PROGRESS.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

#include <strings.h>

static bool
passes(const gr_str_t *filter, int32_t n, const char *value)
{
    if (n <= 0)
        return true;
    for (int32_t i = 0; i < n; i++)
        if (filter[i].len >= 0 && (size_t)filter[i].len == strlen(value) &&
            strncasecmp(filter[i].ptr, value, (size_t)filter[i].len) == 0)
            return true;
    return false;
}

int
gr_api_list_groups(gr_req_t *req)
{
    const gr_list_groups_request_t *rq = req->body;
    gr_list_groups_response_t *rs = req->resp;
    gr_group_overview_t *v;
    int32_t n, k = 0;
    /* without DESCRIBE on the cluster, the groups it may DESCRIBE */
    bool all = gr_authz_cluster(req, GR_OP_DESCRIBE);

    rs->error_code = gr_groups_list(req->broker->groups, req->a, &v, &n);
    rs->groups = gr_arena_zalloc(req->a, sizeof(*rs->groups) * (size_t)(n + 1));
    if (rs->groups == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        if (!passes(rq->states_filter, rq->states_filter_cnt, v[i].state) ||
            !passes(rq->types_filter, rq->types_filter_cnt, v[i].type) ||
            (!all && !gr_authz_cstr(req, GR_RES_GROUP, v[i].group_id,
                                    GR_OP_DESCRIBE)))
            continue;
        gr_list_groups_response_listed_group_init(&rs->groups[k]);
        rs->groups[k].group_id = gr_str_c(v[i].group_id);
        rs->groups[k].protocol_type = gr_str_c(v[i].protocol_type);
        rs->groups[k].group_state = gr_str_c(v[i].state);
        rs->groups[k].group_type = gr_str_c(v[i].type);
        k++;
    }
    rs->groups_cnt = k;
    return gr_req_reply(req);
}
