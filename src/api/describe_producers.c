/*
 * DescribeProducers (api key 61): the producers a partition knows (its
 * producer state, log/producer_state.h): id, epoch, last sequence and
 * timestamp, the coordinator epoch of its last marker and the first offset
 * of its open transaction (Kafka's Partition.activeProducerState). Errors
 * are per partition. A partition listed twice is described twice, as
 * Kafka does; the answer is bounded as it grows (gr_api_answer_max).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "log/producer_state.h"

typedef gr_describe_producers_response_partition_response_t part_resp_t;
typedef gr_describe_producers_response_producer_state_t producer_t;

typedef struct collect {
    gr_arena_t *a;
    producer_t *v;
    int32_t n, cap;
    bool oom;
} collect_t;

static void
add_producer(void *arg, const gr_pinfo_t *p)
{
    collect_t *c = arg;
    if (c->n == c->cap) {
        int32_t cap = c->cap ? c->cap * 2 : 8;
        producer_t *v = gr_arena_alloc(c->a, (size_t)cap * sizeof(*v));
        if (v == NULL) {
            c->oom = true;
            return;
        }
        if (c->n)
            memcpy(v, c->v, (size_t)c->n * sizeof(*v));
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n].producer_id = p->producer_id;
    c->v[c->n].producer_epoch = p->epoch;
    c->v[c->n].last_sequence = p->last_sequence;
    c->v[c->n].last_timestamp = p->last_timestamp;
    c->v[c->n].coordinator_epoch = p->coordinator_epoch;
    c->v[c->n].current_txn_start_offset = p->txn_first_offset;
    c->n++;
}

static int
describe_partition(gr_req_t *req, gr_topic_t *t, gr_kerr_t topic_err,
                   const char *topic_msg, int32_t index, part_resp_t *pr)
{
    gr_broker_t *b = req->broker;
    gr_partition_t *p;
    collect_t c = { req->a, NULL, 0, 0, false };

    gr_describe_producers_response_partition_response_init(pr);
    pr->partition_index = index;
    if (topic_err != GR_KERR_NONE) {
        pr->error_code = topic_err;
        if (topic_msg)
            pr->error_message = gr_str_c(topic_msg);
        return 0;
    }
    if (index < 0 || index >= t->nparts) {
        pr->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return 0;
    }
    p = t->parts[index];
    if (p->leader != b->node_id || p->pstate == NULL) {
        pr->error_code = GR_KERR_NOT_LEADER_OR_FOLLOWER;
        return 0;
    }
    gr_pstate_foreach(p->pstate, add_producer, &c);
    if (c.oom)
        return -1;
    pr->active_producers = c.v;
    pr->active_producers_cnt = c.n;
    return 0;
}

int
gr_api_describe_producers(gr_req_t *req)
{
    const gr_describe_producers_request_t *rq = req->body;
    gr_describe_producers_response_t *rs = req->resp;
    int32_t nt = rq->topics_cnt > 0 ? rq->topics_cnt : 0;
    uint64_t bytes = 0, max = gr_api_answer_max(req);

    rs->topics =
        gr_arena_zalloc(req->a, (size_t)(nt + 1) * sizeof(*rs->topics));
    if (rs->topics == NULL)
        return gr_req_close(req, "out of memory");
    rs->topics_cnt = nt;
    for (int32_t i = 0; i < nt; i++) {
        const gr_describe_producers_request_topic_request_t *tq =
            &rq->topics[i];
        gr_describe_producers_response_topic_response_t *tr = &rs->topics[i];
        int32_t np =
            tq->partition_indexes_cnt > 0 ? tq->partition_indexes_cnt : 0;
        const char *msg = gr_topic_name_error(&tq->name, req->a);
        gr_topic_t *t = NULL;
        gr_kerr_t terr = GR_KERR_NONE;

        /* Kafka's handleDescribeProducersRequest: Topic.validate's
         * message, or ApiError(UNKNOWN_TOPIC_OR_PARTITION) with the
         * error's default one */
        if (msg != NULL) {
            terr = GR_KERR_INVALID_TOPIC_EXCEPTION;
        } else if (!gr_authz(req, GR_RES_TOPIC, &tq->name, GR_OP_READ)) {
            terr = GR_KERR_TOPIC_AUTHORIZATION_FAILED; /* READ on it */
            msg = gr_kerr_msg(terr);
        } else if ((t = gr_cluster_topic(req->broker->cluster, &tq->name)) ==
                   NULL) {
            terr = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
            msg = gr_kerr_msg(terr);
        }
        tr->name = tq->name;
        tr->partitions =
            gr_arena_zalloc(req->a, (size_t)(np + 1) * sizeof(*tr->partitions));
        if (tr->partitions == NULL)
            return gr_req_close(req, "out of memory");
        tr->partitions_cnt = np;
        bytes += 8 + (uint64_t)(tq->name.len > 0 ? tq->name.len : 0);
        for (int32_t k = 0; k < np; k++) {
            if (describe_partition(req, t, terr, msg, tq->partition_indexes[k],
                                   &tr->partitions[k]) != 0)
                return gr_req_close(req, "out of memory");
            bytes += gr_describe_producers_response_partition_response_size(
                &tr->partitions[k], req->version);
            if (bytes > max)
                return gr_api_answer_refuse(req, bytes);
        }
    }
    return gr_req_reply(req);
}
