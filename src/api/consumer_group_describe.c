/*
 * ConsumerGroupDescribe (api key 69, KIP-848): the state, epochs, assignor
 * and members of consumer groups, each member with its current assignment
 * (partitions pending revocation included) and its target. A classic or
 * unknown group is GROUP_ID_NOT_FOUND with Kafka's message, "" is
 * INVALID_GROUP_ID. v1 adds MemberType (KIP-1099: 1 for a member of the
 * consumer protocol). AuthorizedOperations, when asked for, are the
 * group operations the client may do. With an authorizer (Kafka's
 * handleConsumerGroupDescribe): DESCRIBE on each group, and a group whose
 * members hold (or are to get) a topic the client may not DESCRIBE is
 * TOPIC_AUTHORIZATION_FAILED without members.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

/* Whether every topic of v may be described by req. */
static bool
topics_described(gr_req_t *req, const gr_cg_partitions_t *v, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (v[i].topic_name != NULL &&
            !gr_authz_cstr(req, GR_RES_TOPIC, v[i].topic_name, GR_OP_DESCRIBE))
            return false;
    return true;
}

typedef gr_consumer_group_describe_response_topic_partitions_t tps_t;

static gr_str_t
cs(const char *s)
{
    return s ? gr_str_c(s) : GR_STR_NULL;
}

static int
fill(gr_req_t *req, gr_consumer_group_describe_response_assignment_t *out,
     const gr_cg_partitions_t *v, int32_t n)
{
    tps_t *tp = gr_arena_zalloc(req->a, sizeof(*tp) * (size_t)(n + 1));
    if (tp == NULL)
        return -1;
    for (int32_t i = 0; i < n; i++) {
        tp[i].topic_id = v[i].topic_id;
        tp[i].topic_name = cs(v[i].topic_name);
        tp[i].partitions = v[i].partitions;
        tp[i].partitions_cnt = v[i].npartitions;
    }
    out->topic_partitions = tp;
    out->topic_partitions_cnt = n;
    return 0;
}

int
gr_api_consumer_group_describe(gr_req_t *req)
{
    const gr_consumer_group_describe_request_t *rq = req->body;
    gr_consumer_group_describe_response_t *rs = req->resp;
    int32_t n = rq->group_ids_cnt > 0 ? rq->group_ids_cnt : 0;

    rs->groups_cnt = n;
    rs->groups = gr_arena_zalloc(req->a, sizeof(*rs->groups) * (size_t)(n + 1));
    if (rs->groups == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        gr_consumer_group_describe_response_described_group_t *rg =
            &rs->groups[i];
        gr_cg_group_desc_t d;
        const char *msg;
        gr_kerr_t err;

        gr_consumer_group_describe_response_described_group_init(rg);
        if (!gr_authz(req, GR_RES_GROUP, &rq->group_ids[i], GR_OP_DESCRIBE)) {
            rg->group_id = rq->group_ids[i];
            rg->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
            rg->group_state = GR_STR("");
            rg->assignor_name = GR_STR("");
            continue;
        }
        err = gr_cg_describe(req->broker->groups, &rq->group_ids[i], req->a, &d,
                             &msg);
        rg->group_id = rq->group_ids[i];
        rg->error_code = err;
        rg->error_message = cs(msg);
        if (err != GR_KERR_NONE) {
            /* Kafka's error entries: "" state, no members */
            rg->group_state = GR_STR("");
            rg->assignor_name = GR_STR("");
            continue;
        }
        {
            bool ok = true;
            for (int32_t k = 0; k < d.nmembers && ok; k++)
                ok = topics_described(req, d.members[k].assigned,
                                      d.members[k].nassigned) &&
                     topics_described(req, d.members[k].target,
                                      d.members[k].ntarget);
            if (!ok) {
                rg->error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
                rg->error_message =
                    GR_STR("The group has described topic(s) that the client "
                           "is not authorized to describe.");
                rg->group_state = GR_STR("");
                rg->assignor_name = GR_STR("");
                rg->members_cnt = 0;
                continue;
            }
        }
        rg->group_state = gr_str_c(d.state);
        rg->group_epoch = d.group_epoch;
        rg->assignment_epoch = d.assignment_epoch;
        rg->assignor_name = gr_str_c(d.assignor);
        if (rq->include_authorized_operations)
            rg->authorized_operations =
                gr_authz_ops(req, GR_RES_GROUP, &rq->group_ids[i]);
        rg->members_cnt = d.nmembers;
        rg->members = gr_arena_zalloc(req->a, sizeof(*rg->members) *
                                                  (size_t)(d.nmembers + 1));
        if (rg->members == NULL)
            return gr_req_close(req, "out of memory");
        for (int32_t k = 0; k < d.nmembers; k++) {
            gr_consumer_group_describe_response_member_t *m = &rg->members[k];
            const gr_cg_member_desc_t *dm = &d.members[k];
            gr_consumer_group_describe_response_member_init(m);
            m->member_id = gr_str_c(dm->member_id);
            m->instance_id = cs(dm->instance_id);
            m->rack_id = cs(dm->rack_id);
            m->member_epoch = dm->member_epoch;
            m->client_id = gr_str_c(dm->client_id);
            m->client_host = gr_str_c(dm->client_host);
            m->subscribed_topic_names = gr_arena_zalloc(
                req->a, sizeof(gr_str_t) * (size_t)(dm->ntopics + 1));
            if (m->subscribed_topic_names == NULL)
                return gr_req_close(req, "out of memory");
            for (int32_t t = 0; t < dm->ntopics; t++)
                m->subscribed_topic_names[t] = gr_str_c(dm->topics[t]);
            m->subscribed_topic_names_cnt = dm->ntopics;
            m->subscribed_topic_regex = cs(dm->regex);
            if (fill(req, &m->assignment, dm->assigned, dm->nassigned) != 0 ||
                fill(req, &m->target_assignment, dm->target, dm->ntarget) != 0)
                return gr_req_close(req, "out of memory");
            m->member_type = dm->classic ? 0 : 1; /* v1+ */
        }
    }
    return gr_req_reply(req);
}
