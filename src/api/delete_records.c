/*
 * DeleteRecords (api key 21): advances partitions' log start offsets
 * (offset -1: to the high watermark). Reads below it fail with
 * OFFSET_OUT_OF_RANGE at once; whole segments below it are deleted by the
 * next retention pass. An offset past the high watermark, or negative, is
 * OFFSET_OUT_OF_RANGE; a topic whose cleanup.policy lacks delete refuses
 * with POLICY_VIOLATION, as Kafka does. The low watermark answered is the
 * log start offset after the call, -1 with any error. A partition listed
 * twice is answered once, for the offset listed last, as Kafka's map of
 * them does.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"
#include "cluster/topic_config.h"
#include "log/log.h"

typedef gr_delete_records_response_delete_records_partition_result_t presult_t;

static void
delete_partition(gr_req_t *req, gr_topic_t *t, bool denied,
                 const gr_delete_records_request_delete_records_partition_t *qp,
                 presult_t *res)
{
    gr_broker_t *b = req->broker;
    gr_partition_t *p;
    int64_t offset = qp->offset;

    gr_delete_records_response_delete_records_partition_result_init(res);
    res->partition_index = qp->partition_index;
    res->low_watermark = -1;
    if (denied) {
        res->error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        return;
    }
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

/* Each request partition's key: the topic name's bytes and then the
 * index's. NULL when out of memory. */
static gr_str_t *
partition_keys(gr_req_t *req, const gr_delete_records_request_t *rq,
               int32_t nt, int32_t *m)
{
    int64_t n = 0;
    gr_str_t *keys;

    *m = 0;
    for (int32_t i = 0; i < nt; i++)
        n +=
            rq->topics[i].partitions_cnt > 0 ? rq->topics[i].partitions_cnt : 0;
    if (n > INT32_MAX)
        return NULL;
    keys = gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*keys));
    if (keys == NULL)
        return NULL;
    for (int32_t i = 0; i < nt; i++) {
        const gr_str_t *name = &rq->topics[i].name;
        size_t len = name->len > 0 ? (size_t)name->len : 0;
        for (int32_t k = 0; k < rq->topics[i].partitions_cnt; k++) {
            char *b = gr_arena_alloc(req->a, len + sizeof(int32_t));
            if (b == NULL)
                return NULL;
            if (len)
                memcpy(b, name->ptr, len);
            memcpy(b + len, &rq->topics[i].partitions[k].partition_index,
                   sizeof(int32_t));
            keys[(*m)++] = (gr_str_t){ b, (int32_t)(len + sizeof(int32_t)) };
        }
    }
    return keys;
}

/*
 * As Kafka's handleDeleteRecordsRequest, which keeps the partitions in a
 * map and answers from it grouped by topic: a partition listed more than
 * once is answered once, with the offset listed last, and a topic in
 * several entries in one (the first's place).
 */
int
gr_api_delete_records(gr_req_t *req)
{
    const gr_delete_records_request_t *rq = req->body;
    gr_delete_records_response_t *rs = req->resp;
    int32_t nt = rq->topics_cnt > 0 ? rq->topics_cnt : 0;
    int32_t m, e, nout = 0;
    int32_t *tfirst, *pfirst, *slot;
    int64_t *offset; /* the offset listed last for each first entry */
    gr_str_t *keys;

    rs->topics = gr_arena_zalloc(req->a, (size_t)(nt ? nt : 1) *
                                             sizeof(*rs->topics));
    keys = partition_keys(req, rq, nt, &m);
    tfirst = gr_topics_first_of(req->a, nt ? &rq->topics[0].name : NULL,
                                sizeof(rq->topics[0]), nt);
    pfirst = keys ? gr_topics_first_of(req->a, keys, sizeof(*keys), m) : NULL;
    slot = gr_arena_alloc(req->a, (size_t)(nt ? nt : 1) * sizeof(*slot));
    offset = gr_arena_alloc(req->a, (size_t)(m ? m : 1) * sizeof(*offset));
    if (rs->topics == NULL || tfirst == NULL || pfirst == NULL ||
        slot == NULL || offset == NULL)
        return gr_req_close(req, "out of memory");
    e = 0;
    for (int32_t i = 0; i < nt; i++) {
        const gr_delete_records_request_delete_records_topic_t *qt =
            &rq->topics[i];
        gr_delete_records_response_delete_records_topic_result_t *rt;
        if (tfirst[i] == i) {
            slot[i] = nout++;
            rs->topics[slot[i]].name = qt->name;
        } else {
            slot[i] = slot[tfirst[i]];
        }
        rt = &rs->topics[slot[i]];
        for (int32_t k = 0; k < qt->partitions_cnt; k++, e++) {
            offset[pfirst[e]] = qt->partitions[k].offset; /* the last wins */
            if (pfirst[e] == e)
                rt->partitions_cnt++;
        }
    }
    rs->topics_cnt = nout;
    for (int32_t j = 0; j < nout; j++) {
        gr_delete_records_response_delete_records_topic_result_t *rt =
            &rs->topics[j];
        rt->partitions = gr_arena_zalloc(
            req->a, (size_t)(rt->partitions_cnt ? rt->partitions_cnt : 1) *
                        sizeof(*rt->partitions));
        if (rt->partitions == NULL)
            return gr_req_close(req, "out of memory");
        rt->partitions_cnt = 0;
    }
    e = 0;
    for (int32_t i = 0; i < nt; i++) {
        const gr_delete_records_request_delete_records_topic_t *qt =
            &rq->topics[i];
        gr_delete_records_response_delete_records_topic_result_t *rt =
            &rs->topics[slot[i]];
        gr_topic_t *t = gr_cluster_topic(req->broker->cluster, &qt->name);
        /* DELETE on the topic, before whether it exists */
        bool denied = !gr_authz(req, GR_RES_TOPIC, &qt->name, GR_OP_DELETE);
        for (int32_t k = 0; k < qt->partitions_cnt; k++, e++) {
            gr_delete_records_request_delete_records_partition_t qp =
                qt->partitions[k];
            if (pfirst[e] != e)
                continue;
            qp.offset = offset[e];
            delete_partition(req, t, denied, &qp,
                             &rt->partitions[rt->partitions_cnt++]);
        }
    }
    return gr_req_reply(req);
}
