/*
 * AddPartitionsToTxn (api key 24): a transactional producer names the
 * partitions it is about to write, so that the transaction coordinator
 * (src/txn/) writes markers to them when the transaction ends. v0-v3 carry
 * one transaction (clients); v4+ batch several, each either added or only
 * checked (verify_only: is each partition in the transaction?), which
 * Kafka's brokers send each other (KIP-890). This file checks the
 * partitions exist and words the answer per version.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "txn/txn.h"

typedef gr_add_partitions_to_txn_request_add_partitions_to_txn_topic_t
    req_topic_t;
typedef gr_add_partitions_to_txn_response_add_partitions_to_txn_topic_result_t
    topic_result_t;
typedef gr_add_partitions_to_txn_response_add_partitions_to_txn_partition_result_t
    part_result_t;

/* Kafka's error for version: PRODUCER_FENCED from v2
 * (add_partitions_to_txn.schema), TRANSACTION_ABORTABLE from v5. */
static gr_kerr_t
for_version(gr_kerr_t err, int16_t version)
{
    if (err == GR_KERR_PRODUCER_FENCED && version < 2)
        return GR_KERR_INVALID_PRODUCER_EPOCH;
    if (err == GR_KERR_TRANSACTION_ABORTABLE && version < 5)
        return GR_KERR_INVALID_TXN_STATE;
    return err;
}

/* One transaction: fills *out (one result per requested topic) and
 * returns 0, or -1 when out of memory. */
static int
one_txn(gr_req_t *req, const gr_str_t *txn_id, gr_pid_t pid, bool verify_only,
        const req_topic_t *topics, int32_t ntopics, topic_result_t **out,
        int32_t *nout)
{
    gr_broker_t *b = req->broker;
    gr_txn_tp_t *tps;
    gr_kerr_t *errs, err = GR_KERR_NONE;
    int n = 0, k = 0;
    bool bad = false;

    if (ntopics < 0)
        ntopics = 0;
    for (int32_t i = 0; i < ntopics; i++)
        n += topics[i].partitions_cnt > 0 ? topics[i].partitions_cnt : 0;
    tps = gr_arena_alloc(req->a, (size_t)(n + 1) * sizeof(*tps));
    errs = gr_arena_zalloc(req->a, (size_t)(n + 1) * sizeof(*errs));
    *out = gr_arena_zalloc(req->a, (size_t)(ntopics + 1) * sizeof(**out));
    if (tps == NULL || errs == NULL || *out == NULL)
        return -1;
    /* below v4 a client's request: WRITE on the transactional id (else
     * every partition TRANSACTIONAL_ID_AUTHORIZATION_FAILED) and on each
     * topic (TOPIC_AUTHORIZATION_FAILED, failing the transaction as an
     * unknown partition does); v4+ comes from a broker, checked for
     * CLUSTER_ACTION as a whole */
    if (req->version < 4 &&
        !gr_authz(req, GR_RES_TRANSACTIONAL_ID, txn_id, GR_OP_WRITE)) {
        for (k = 0; k < n; k++)
            errs[k] = GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        err = GR_KERR_NONE;
        goto answer;
    }
    for (int32_t i = 0; i < ntopics; i++)
        for (int32_t j = 0; j < topics[i].partitions_cnt; j++, k++) {
            tps[k].topic = topics[i].name;
            tps[k].partition = topics[i].partitions[j];
            if (req->version < 4 &&
                !gr_authz(req, GR_RES_TOPIC, &tps[k].topic, GR_OP_WRITE)) {
                errs[k] = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
                bad = true;
            } else if (gr_cluster_partition(b->cluster, &tps[k].topic,
                                            tps[k].partition) == NULL) {
                errs[k] = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
                bad = true;
            }
        }
    if (bad) {
        /* any unknown partition fails the whole transaction; the others
         * were not attempted (Kafka's handleAddPartitionsToTxnRequest) */
        for (k = 0; k < n; k++)
            if (errs[k] == GR_KERR_NONE)
                errs[k] = GR_KERR_OPERATION_NOT_ATTEMPTED;
    } else if (verify_only) {
        err = gr_txn_verify_partitions(b->txn, txn_id, pid, tps, n, errs);
    } else {
        /* v4+ without verify_only: a broker adding partitions for a
         * transaction version 2 producer (transactionVersionFor
         * AddPartitionsToTxn) */
        err = gr_txn_add_partitions(b->txn, txn_id, pid, tps, n,
                                    req->version >= 4 ? 2 : 0);
    }
answer:
    for (k = 0; k < n; k++)
        errs[k] =
            for_version(err != GR_KERR_NONE ? err : errs[k], req->version);
    k = 0;
    for (int32_t i = 0; i < ntopics; i++) {
        topic_result_t *tr = &(*out)[i];
        int32_t np =
            topics[i].partitions_cnt > 0 ? topics[i].partitions_cnt : 0;
        tr->name = topics[i].name;
        tr->results_by_partition =
            gr_arena_zalloc(req->a, (size_t)(np + 1) * sizeof(part_result_t));
        if (tr->results_by_partition == NULL)
            return -1;
        tr->results_by_partition_cnt = np;
        for (int32_t j = 0; j < np; j++, k++) {
            tr->results_by_partition[j].partition_index = tps[k].partition;
            tr->results_by_partition[j].partition_error_code = errs[k];
        }
    }
    *nout = ntopics;
    return 0;
}

int
gr_api_add_partitions_to_txn(gr_req_t *req)
{
    const gr_add_partitions_to_txn_request_t *rq = req->body;
    gr_add_partitions_to_txn_response_t *rs = req->resp;

    if (req->version < 4) {
        gr_pid_t pid = { rq->v3_and_below_producer_id,
                         rq->v3_and_below_producer_epoch };
        if (one_txn(req, &rq->v3_and_below_transactional_id, pid, false,
                    rq->v3_and_below_topics, rq->v3_and_below_topics_cnt,
                    &rs->results_by_topic_v3_and_below,
                    &rs->results_by_topic_v3_and_below_cnt) != 0)
            return gr_req_close(req, "out of memory");
        return gr_req_reply(req);
    }
    if (!gr_authz_cluster(req, GR_OP_CLUSTER_ACTION)) {
        rs->error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        rs->results_by_transaction_cnt = 0;
        return gr_req_reply(req);
    }
    rs->results_by_transaction = gr_arena_zalloc(
        req->a, (size_t)(rq->transactions_cnt > 0 ? rq->transactions_cnt : 1) *
                    sizeof(*rs->results_by_transaction));
    if (rs->results_by_transaction == NULL)
        return gr_req_close(req, "out of memory");
    rs->results_by_transaction_cnt =
        rq->transactions_cnt > 0 ? rq->transactions_cnt : 0;
    for (int32_t i = 0; i < rs->results_by_transaction_cnt; i++) {
        const gr_add_partitions_to_txn_request_add_partitions_to_txn_transaction_t
            *t = &rq->transactions[i];
        gr_add_partitions_to_txn_response_add_partitions_to_txn_result_t *r =
            &rs->results_by_transaction[i];
        r->transactional_id = t->transactional_id;
        if (one_txn(req, &t->transactional_id,
                    (gr_pid_t){ t->producer_id, t->producer_epoch },
                    t->verify_only, t->topics, t->topics_cnt, &r->topic_results,
                    &r->topic_results_cnt) != 0)
            return gr_req_close(req, "out of memory");
    }
    return gr_req_reply(req);
}
