/*
 * OffsetDelete (api key 47): removes committed offsets of a group that is
 * Empty, or of topics a consumer group is not subscribed to
 * (GROUP_SUBSCRIBED_TO_TOPIC otherwise). Unknown topics answer
 * UNKNOWN_TOPIC_OR_PARTITION, as in Kafka's KafkaApis. A group-level
 * error (INVALID_GROUP_ID for "", which the other offset APIs accept)
 * comes with no topics.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

int
gr_api_offset_delete(gr_req_t *req)
{
    const gr_offset_delete_request_t *rq = req->body;
    gr_offset_delete_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    gr_group_delete_part_t *parts;
    int32_t n = 0, k = 0;
    gr_kerr_t err;

    for (int32_t i = 0; i < rq->topics_cnt; i++)
        n +=
            rq->topics[i].partitions_cnt > 0 ? rq->topics[i].partitions_cnt : 0;
    parts = gr_arena_zalloc(req->a, sizeof(*parts) * (size_t)(n + 1));
    if (parts == NULL)
        return gr_req_close(req, "out of memory");
    /* DELETE on the group, then READ on each topic */
    if (!gr_authz(req, GR_RES_GROUP, &rq->group_id, GR_OP_DELETE)) {
        rs->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        rs->topics_cnt = 0;
        return gr_req_reply(req);
    }
    for (int32_t i = 0; i < rq->topics_cnt; i++) {
        const gr_offset_delete_request_topic_t *qt = &rq->topics[i];
        gr_topic_t *t = gr_cluster_topic(b->cluster, &qt->name);
        for (int32_t j = 0; j < qt->partitions_cnt; j++, k++) {
            parts[k].topic = qt->name;
            parts[k].partition = qt->partitions[j].partition_index;
            if (!gr_authz(req, GR_RES_TOPIC, &qt->name, GR_OP_READ))
                parts[k].error = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
            else if (t == NULL || parts[k].partition < 0 ||
                parts[k].partition >= t->nparts)
                parts[k].error = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        }
    }
    err = gr_group_delete_offsets(b->groups, &rq->group_id, parts, n);
    rs->error_code = err;
    if (err != GR_KERR_NONE) {
        rs->topics_cnt = 0;
        return gr_req_reply(req);
    }
    rs->topics_cnt = rq->topics_cnt > 0 ? rq->topics_cnt : 0;
    rs->topics = gr_arena_zalloc(req->a, sizeof(*rs->topics) *
                                             (size_t)(rs->topics_cnt + 1));
    if (rs->topics == NULL)
        return gr_req_close(req, "out of memory");
    k = 0;
    for (int32_t i = 0; i < rs->topics_cnt; i++) {
        const gr_offset_delete_request_topic_t *qt = &rq->topics[i];
        gr_offset_delete_response_topic_t *rt = &rs->topics[i];
        int32_t np = qt->partitions_cnt > 0 ? qt->partitions_cnt : 0;
        rt->name = qt->name;
        rt->partitions_cnt = np;
        rt->partitions =
            gr_arena_zalloc(req->a, sizeof(*rt->partitions) * (size_t)(np + 1));
        if (rt->partitions == NULL)
            return gr_req_close(req, "out of memory");
        for (int32_t j = 0; j < np; j++, k++) {
            rt->partitions[j].partition_index = parts[k].partition;
            rt->partitions[j].error_code = parts[k].error;
        }
    }
    return gr_req_reply(req);
}
