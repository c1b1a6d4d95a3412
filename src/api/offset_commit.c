/*
 * OffsetCommit (api key 8): commits of group members (generation and
 * member id checked) and of simple consumers outside any group
 * (generation -1, no member id; v0 has neither). Partitions of unknown
 * topics get UNKNOWN_TOPIC_OR_PARTITION here, as in Kafka's KafkaApis;
 * the rest goes to gr_group_commit_offsets(), which appends the records
 * and answers once they are as durable as configured (the request is
 * deferred while a flush runs). Fields by version (offset_commit.schema):
 * commit_timestamp v1 only, retention_time_ms v2-v4, leader epoch v6+,
 * group_instance_id v7+, topics named by id from v10 (KIP-848: an unknown
 * id answers UNKNOWN_TOPIC_ID, as Kafka's KafkaApis).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

typedef struct commit_ctx {
    gr_req_t *req;
    gr_group_commit_part_t *parts;
    gr_group_waiter_t w;
} commit_ctx_t;

static void
commit_done(gr_group_waiter_t *w, const void *result)
{
    gr_kerr_t flush_err = *(const gr_kerr_t *)result;
    commit_ctx_t *ctx = w->arg;
    gr_req_t *req = ctx->req;
    const gr_offset_commit_request_t *rq = req->body;
    gr_offset_commit_response_t *rs = req->resp;
    int32_t k = 0;

    rs->topics_cnt = rq->topics_cnt > 0 ? rq->topics_cnt : 0;
    rs->topics = gr_arena_zalloc(req->a, sizeof(*rs->topics) *
                                             (size_t)(rs->topics_cnt + 1));
    if (rs->topics == NULL) {
        gr_req_close(req, "out of memory");
        return;
    }
    for (int32_t i = 0; i < rs->topics_cnt; i++) {
        const gr_offset_commit_request_topic_t *qt = &rq->topics[i];
        gr_offset_commit_response_topic_t *rt = &rs->topics[i];
        int32_t np = qt->partitions_cnt > 0 ? qt->partitions_cnt : 0;
        rt->name = qt->name;
        rt->topic_id = qt->topic_id; /* v10+ */
        rt->partitions_cnt = np;
        rt->partitions =
            gr_arena_zalloc(req->a, sizeof(*rt->partitions) * (size_t)(np + 1));
        if (rt->partitions == NULL) {
            gr_req_close(req, "out of memory");
            return;
        }
        for (int32_t j = 0; j < np; j++, k++) {
            gr_kerr_t err = ctx->parts[k].error;
            if (err == GR_KERR_NONE)
                err = flush_err;
            rt->partitions[j].partition_index =
                qt->partitions[j].partition_index;
            rt->partitions[j].error_code = err;
        }
    }
    gr_req_reply(req);
}

static void
commit_abort(gr_req_t *req)
{
    commit_ctx_t *ctx = req->owner;
    gr_group_waiter_cancel(&ctx->w);
}

int
gr_api_offset_commit(gr_req_t *req)
{
    const gr_offset_commit_request_t *rq = req->body;
    gr_broker_t *b = req->broker;
    commit_ctx_t *ctx = gr_arena_zalloc(req->a, sizeof(*ctx));
    gr_group_commit_args_t a;
    int32_t n = 0, k = 0;

    if (ctx == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < rq->topics_cnt; i++)
        n +=
            rq->topics[i].partitions_cnt > 0 ? rq->topics[i].partitions_cnt : 0;
    ctx->req = req;
    ctx->parts = gr_arena_zalloc(req->a, sizeof(*ctx->parts) * (size_t)(n + 1));
    if (ctx->parts == NULL)
        return gr_req_close(req, "out of memory");
    /* READ on the group: every partition GROUP_AUTHORIZATION_FAILED */
    if (!gr_authz(req, GR_RES_GROUP, &rq->group_id, GR_OP_READ)) {
        gr_kerr_t none = GR_KERR_NONE;
        for (int32_t i = 0; i < n; i++)
            ctx->parts[i].error = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        gr_group_waiter_init(&ctx->w, commit_done, ctx);
        commit_done(&ctx->w, &none);
        return 0;
    }
    for (int32_t i = 0; i < rq->topics_cnt; i++) {
        const gr_offset_commit_request_topic_t *qt = &rq->topics[i];
        gr_topic_t *t = req->version >= 10
                            ? gr_cluster_topic_by_id(b->cluster, &qt->topic_id)
                            : gr_cluster_topic(b->cluster, &qt->name);
        for (int32_t j = 0; j < qt->partitions_cnt; j++, k++) {
            const gr_offset_commit_request_partition_t *qp = &qt->partitions[j];
            gr_group_commit_part_t *p = &ctx->parts[k];
            p->topic = req->version >= 10 && t ? gr_str_c(t->name) : qt->name;
            p->partition = qp->partition_index;
            p->offset = qp->committed_offset;
            p->leader_epoch = qp->committed_leader_epoch; /* -1 before v6 */
            p->metadata = qp->committed_metadata;
            p->commit_timestamp = qp->commit_timestamp; /* -1 but in v1 */
            p->error = GR_KERR_NONE;
            /* READ on the topic, before whether it exists */
            if ((t != NULL || req->version < 10) &&
                !gr_authz(req, GR_RES_TOPIC, &p->topic, GR_OP_READ))
                p->error = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
            else if (t == NULL && req->version >= 10)
                p->error = GR_KERR_UNKNOWN_TOPIC_ID;
            else if (t == NULL || qp->partition_index < 0 ||
                     qp->partition_index >= t->nparts)
                p->error = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        }
    }
    a.group_id = rq->group_id;
    /* v0 has neither: a simple consumer's commit */
    a.generation_id =
        req->version >= 1 ? rq->generation_id_or_member_epoch : -1;
    a.member_id = rq->member_id;
    a.group_instance_id = rq->group_instance_id;
    a.retention_ms = rq->retention_time_ms; /* -1 outside v2-v4 */
    a.parts = ctx->parts;
    a.nparts = n;
    a.version = req->version;
    gr_group_waiter_init(&ctx->w, commit_done, ctx);
    /* answered during the call: req may be over already, touch nothing */
    if (!gr_group_commit_offsets(b->groups, &a, &ctx->w))
        return 0;
    return gr_req_defer(req, commit_abort, ctx);
}
