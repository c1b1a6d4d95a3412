/*
 * OffsetForLeaderEpoch (api key 23): for each partition and leader epoch
 * asked, the end offset of that epoch as the partition's leader-epoch
 * cache knows it (log/epoch.h, Kafka's LeaderEpochFileCache.endOffsetFor):
 * the start of the next higher epoch, the log end offset for the current
 * one, (-1, -1) for an epoch the cache cannot place. Followers use it to
 * find where their log diverges; consumers (KIP-320) to check a position
 * after a leader change. Decoding and encoding are generated.
 *
 * As Kafka's handleOffsetForLeaderEpochRequest: CLUSTER_ACTION on the
 * cluster allows every topic (brokers); without it each topic needs
 * DESCRIBE (consumers), and the topics refused are answered after the
 * others with TOPIC_AUTHORIZATION_FAILED. Topics and partitions are
 * answered as listed, repeats included (Kafka's collections keep them).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "log/log.h"

typedef gr_offset_for_leader_epoch_request_offset_for_leader_topic_t qtopic_t;
typedef gr_offset_for_leader_epoch_request_offset_for_leader_partition_t
    qpart_t;
typedef gr_offset_for_leader_epoch_response_offset_for_leader_topic_result_t
    rtopic_t;
typedef gr_offset_for_leader_epoch_response_epoch_end_offset_t rpart_t;

/* One partition's answer, in Kafka's order of checks (ReplicaManager.
 * lastOffsetForLeaderEpoch, then Partition.lastOffsetForLeaderEpoch). */
static void
answer_partition(gr_req_t *req, gr_topic_t *t, const qpart_t *qp,
                 rpart_t *rp)
{
    gr_partition_t *p;

    gr_offset_for_leader_epoch_response_epoch_end_offset_init(rp);
    rp->partition = qp->partition;
    if (t == NULL || qp->partition < 0 || qp->partition >= t->nparts) {
        rp->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return;
    }
    p = t->parts[qp->partition];
    if (p->log == NULL) { /* known here, hosted elsewhere (or opening) */
        rp->error_code = GR_KERR_NOT_LEADER_OR_FOLLOWER;
        return;
    }
    if (gr_log_offline(p->log)) {
        rp->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
        return;
    }
    /* current_leader_epoch is a "2+" field: -1 (no check) below v2 */
    if (qp->current_leader_epoch >= 0 &&
        qp->current_leader_epoch != p->leader_epoch) {
        rp->error_code = qp->current_leader_epoch < p->leader_epoch
                             ? GR_KERR_FENCED_LEADER_EPOCH
                             : GR_KERR_UNKNOWN_LEADER_EPOCH;
        return;
    }
    if (p->leader != req->broker->node_id) {
        rp->error_code = GR_KERR_NOT_LEADER_OR_FOLLOWER;
        return;
    }
    /* leader_epoch answered from v1 (schema); v0 clients get only the
     * end offset */
    gr_log_epoch_end_offset(p->log, qp->leader_epoch, &rp->leader_epoch,
                            &rp->end_offset);
}

static int
answer_topic(gr_req_t *req, const qtopic_t *qt, bool denied, rtopic_t *rt)
{
    gr_topic_t *t = denied ? NULL
                           : gr_cluster_topic(req->broker->cluster, &qt->topic);
    int32_t n = qt->partitions_cnt > 0 ? qt->partitions_cnt : 0;

    rt->topic = qt->topic;
    rt->partitions =
        gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(*rt->partitions));
    if (rt->partitions == NULL)
        return -1;
    rt->partitions_cnt = n;
    for (int32_t k = 0; k < n; k++) {
        if (denied) {
            gr_offset_for_leader_epoch_response_epoch_end_offset_init(
                &rt->partitions[k]);
            rt->partitions[k].partition = qt->partitions[k].partition;
            rt->partitions[k].error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        } else {
            answer_partition(req, t, &qt->partitions[k], &rt->partitions[k]);
        }
    }
    return 0;
}

int
gr_api_offset_for_leader_epoch(gr_req_t *req)
{
    const gr_offset_for_leader_epoch_request_t *rq = req->body;
    gr_offset_for_leader_epoch_response_t *rs = req->resp;
    int32_t nt = rq->topics_cnt > 0 ? rq->topics_cnt : 0, out = 0;
    bool all = gr_authz_cluster(req, GR_OP_CLUSTER_ACTION);
    bool *denied;

    rs->topics =
        gr_arena_zalloc(req->a, (size_t)(nt ? nt : 1) * sizeof(*rs->topics));
    denied = gr_arena_zalloc(req->a, (size_t)(nt ? nt : 1) * sizeof(*denied));
    if (rs->topics == NULL || denied == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < nt; i++)
        denied[i] = !all && !gr_authz(req, GR_RES_TOPIC, &rq->topics[i].topic,
                                      GR_OP_DESCRIBE);
    /* the allowed topics first, then the refused, as Kafka appends them */
    for (int pass = 0; pass < 2; pass++)
        for (int32_t i = 0; i < nt; i++)
            if (denied[i] == (pass == 1) &&
                answer_topic(req, &rq->topics[i], denied[i],
                             &rs->topics[out++]) != 0)
                return gr_req_close(req, "out of memory");
    rs->topics_cnt = out;
    return gr_req_reply(req);
}
