/*
 * AddOffsetsToTxn (api key 25): a transactional producer is about to
 * commit a consumer group's offsets in its transaction (TxnOffsetCommit,
 * sent to the group coordinator). The group's partition of
 * __consumer_offsets joins the transaction, so the transaction's markers
 * reach it and the offsets become visible only on commit (Kafka's
 * handleAddOffsetsToTxnRequest). The partition is the group coordinator's
 * (java hashCode of the group id over the topic's partitions).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"
#include "txn/txn.h"

static void
add(gr_req_t *req)
{
    const gr_add_offsets_to_txn_request_t *rq = req->body;
    gr_add_offsets_to_txn_response_t *rs = req->resp;
    gr_topic_t *t =
        gr_cluster_topic_cstr(req->broker->cluster, GR_TOPIC_CONSUMER_OFFSETS);
    gr_txn_tp_t tp;
    gr_kerr_t kerr;

    if (t == NULL || t->nparts <= 0 || req->broker->stopping) {
        rs->error_code = GR_KERR_COORDINATOR_NOT_AVAILABLE;
        return;
    }
    tp.topic = gr_str_c(GR_TOPIC_CONSUMER_OFFSETS);
    tp.partition = gr_cluster_coord_partition(&rq->group_id, t->nparts);
    kerr = gr_txn_add_partitions(
        req->broker->txn, &rq->transactional_id,
        (gr_pid_t){ rq->producer_id, rq->producer_epoch }, &tp, 1, 0);
    /* PRODUCER_FENCED exists from v2 on (add_offsets_to_txn.schema) */
    if (kerr == GR_KERR_PRODUCER_FENCED && req->version < 2)
        kerr = GR_KERR_INVALID_PRODUCER_EPOCH;
    rs->error_code = kerr;
}

int
gr_api_add_offsets_to_txn(gr_req_t *req)
{
    const gr_add_offsets_to_txn_request_t *rq = req->body;
    gr_add_offsets_to_txn_response_t *rs = req->resp;

    /* WRITE on the transactional id, READ on the group */
    if (!gr_authz(req, GR_RES_TRANSACTIONAL_ID, &rq->transactional_id,
                  GR_OP_WRITE)) {
        rs->error_code = GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        return gr_req_reply(req);
    }
    if (!gr_authz(req, GR_RES_GROUP, &rq->group_id, GR_OP_READ)) {
        rs->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        return gr_req_reply(req);
    }
    /* the group's partition of __consumer_offsets, made on first use (a
     * client that skipped FindCoordinator for the group) */
    return gr_topics_internal_then(req, GR_TOPIC_CONSUMER_OFFSETS, add);
}
