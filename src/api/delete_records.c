/*
 * DeleteRecords (api key 21): advances partitions' log start offsets
 * (offset -1: to the high watermark). Reads below it fail with
 * OFFSET_OUT_OF_RANGE at once; whole segments below it are deleted by the
 * next retention pass. An offset past the high watermark, or negative, is
 * OFFSET_OUT_OF_RANGE; a topic whose cleanup.policy lacks delete refuses
 * with POLICY_VIOLATION, as Kafka does. The low watermark answered is the
 * log start offset after the call, -1 with any error.
 */
#include "api/api_int.h"
#include "cluster/topic_config.h"
#include "log/log.h"

typedef gr_delete_records_response_delete_records_partition_result_t presult_t;

static void
delete_partition(gr_req_t *req, gr_topic_t *t,
                 const gr_delete_records_request_delete_records_partition_t *qp,
                 presult_t *res)
{
    gr_broker_t *b = req->broker;
    gr_partition_t *p;
    int64_t offset = qp->offset;

    gr_delete_records_response_delete_records_partition_result_init(res);
    res->partition_index = qp->partition_index;
    res->low_watermark = -1;
    if (t == NULL || qp->partition_index < 0 ||
        qp->partition_index >= t->nparts) {
        res->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return;
    }
    p = t->parts[qp->partition_index];
    if (p->leader != b->node_id) {
        res->error_code = GR_KERR_NOT_LEADER_OR_FOLLOWER;
        return;
    }
    if (p->log == NULL) {
        res->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
        return;
    }
    if (!gr_topic_settings(b->conf, t)->cleanup_delete) {
        res->error_code = GR_KERR_POLICY_VIOLATION;
        return;
    }
    if (offset == -1) /* DeleteRecordsRequest.HIGH_WATERMARK */
        offset = p->high_watermark;
    if (offset < 0 ||
        gr_log_delete_records(p->log, offset, p->high_watermark) != 0) {
        /* low watermark -1, as every error of Kafka's
         * ReplicaManager.deleteRecordsOnLocalLog */
        res->error_code = GR_KERR_OFFSET_OUT_OF_RANGE;
        return;
    }
    res->low_watermark = gr_log_start_offset(p->log);
    GR_LOG_INFO("%s-%d: records below %lld deleted by %s", t->name, p->id,
                (long long)res->low_watermark, gr_req_peer(req));
}

int
gr_api_delete_records(gr_req_t *req)
{
    const gr_delete_records_request_t *rq = req->body;
    gr_delete_records_response_t *rs = req->resp;
    int32_t n = rq->topics_cnt > 0 ? rq->topics_cnt : 0;

    rs->topics = gr_arena_zalloc(req->a, (size_t)n * sizeof(*rs->topics));
    if (n && rs->topics == NULL)
        return gr_req_close(req, "out of memory");
    rs->topics_cnt = n;
    for (int32_t i = 0; i < n; i++) {
        const gr_delete_records_request_delete_records_topic_t *qt =
            &rq->topics[i];
        gr_delete_records_response_delete_records_topic_result_t *rt =
            &rs->topics[i];
        gr_topic_t *t = gr_cluster_topic(req->broker->cluster, &qt->name);
        int32_t np = qt->partitions_cnt > 0 ? qt->partitions_cnt : 0;

        rt->name = qt->name;
        rt->partitions =
            gr_arena_zalloc(req->a, (size_t)np * sizeof(*rt->partitions));
        if (np && rt->partitions == NULL)
            return gr_req_close(req, "out of memory");
        rt->partitions_cnt = np;
        for (int32_t k = 0; k < np; k++)
            delete_partition(req, t, &qt->partitions[k], &rt->partitions[k]);
    }
    return gr_req_reply(req);
}
