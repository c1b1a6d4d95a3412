/*
 * DescribeGroups (api key 15): state, protocol and members of each group
 * asked for. An unknown group is described as "Dead", with no error up to
 * v5 and GROUP_ID_NOT_FOUND and a message from v6 (KIP-1043); member
 * metadata is given only for a Stable group, assignments in every state.
 * authorized_operations (v3+, when asked, for a group answered without an
 * error, as Kafka's handleDescribeGroupsRequest): without an authorizer,
 * every operation of a group resource (AclOperation codes as bits: READ 3,
 * DELETE 6, DESCRIBE 8, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11).
 * A group listed twice is described twice, as Kafka's
 * GroupMetadataManager.describeGroups does: the second time is a copy of
 * the first (sharing its members), and the answer is bounded as it grows
 * (gr_api_answer_max: a group of large member metadata listed a million
 * times would be gigabytes).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"
#include "group/group.h"

static gr_str_t
cs(const char *s)
{
    return s ? gr_str_c(s) : GR_STR_NULL;
}

int
gr_api_describe_groups(gr_req_t *req)
{
    const gr_describe_groups_request_t *rq = req->body;
    gr_describe_groups_response_t *rs = req->resp;
    int32_t n = rq->groups_cnt > 0 ? rq->groups_cnt : 0, *firsts;
    uint64_t bytes = 0, max = gr_api_answer_max(req);

    rs->groups_cnt = n;
    rs->groups = gr_arena_zalloc(req->a, sizeof(*rs->groups) * (size_t)(n + 1));
    firsts = gr_topics_first_of(req->a, n ? &rq->groups[0] : NULL,
                                sizeof(rq->groups[0]), n);
    if (rs->groups == NULL || firsts == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        gr_describe_groups_response_described_group_t *rg = &rs->groups[i];
        gr_group_summary_t s;
        gr_kerr_t err;
        if (firsts[i] != i) {
            *rg = rs->groups[firsts[i]]; /* listed before: the same */
            bytes += gr_describe_groups_response_described_group_size(
                rg, req->version);
            if (bytes > max)
                return gr_api_answer_refuse(req, bytes);
            continue;
        }
        gr_describe_groups_response_described_group_init(rg);
        /* DESCRIBE on the group (DescribeGroupsResponse.groupError) */
        if (!gr_authz(req, GR_RES_GROUP, &rq->groups[i], GR_OP_DESCRIBE)) {
            rg->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
            rg->group_id = rq->groups[i];
            rg->group_state = GR_STR("");
            rg->protocol_type = GR_STR("");
            rg->protocol_data = GR_STR("");
            rg->authorized_operations = INT32_MIN;
            rg->members_cnt = 0;
            continue;
        }
        err =
            gr_group_describe(req->broker->groups, &rq->groups[i], req->a, &s);
        if (err == GR_KERR_GROUP_ID_NOT_FOUND) {
            if (req->version < 6)
                err = GR_KERR_NONE;
            else
                rg->error_message = gr_str_c(
                    s.message ? s.message
                              : gr_arena_printf(req->a, "Group %.*s not found.",
                                                rq->groups[i].len,
                                                rq->groups[i].ptr));
        }
        rg->error_code = err;
        rg->group_id = rq->groups[i];
        rg->group_state = gr_str_c(s.state);
        rg->protocol_type = gr_str_c(s.protocol_type);
        rg->protocol_data = gr_str_c(s.protocol);
        rg->authorized_operations =
            rq->include_authorized_operations && err == GR_KERR_NONE
                ? gr_authz_ops(req, GR_RES_GROUP, &rq->groups[i])
                : INT32_MIN;
        rg->members_cnt = s.nmembers;
        rg->members = gr_arena_zalloc(req->a, sizeof(*rg->members) *
                                                  (size_t)(s.nmembers + 1));
        if (rg->members == NULL)
            return gr_req_close(req, "out of memory");
        for (int32_t k = 0; k < s.nmembers; k++) {
            gr_describe_groups_response_described_group_member_t *m =
                &rg->members[k];
            gr_describe_groups_response_described_group_member_init(m);
            m->member_id = cs(s.members[k].member_id);
            m->group_instance_id = cs(s.members[k].group_instance_id);
            m->client_id = cs(s.members[k].client_id);
            m->client_host = cs(s.members[k].client_host);
            m->member_metadata = s.members[k].metadata;
            m->member_assignment = s.members[k].assignment;
        }
        bytes +=
            gr_describe_groups_response_described_group_size(rg, req->version);
        if (bytes > max)
            return gr_api_answer_refuse(req, bytes);
    }
    return gr_req_reply(req);
}
