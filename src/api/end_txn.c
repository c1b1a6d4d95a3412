/*
 * EndTxn (api key 26): a transactional producer commits or aborts its
 * transaction. The coordinator (src/txn/) logs PrepareCommit or
 * PrepareAbort, writes the markers to every partition of the transaction
 * and logs the completion; the answer is NONE once the decision is logged.
 * v5 is transaction version 2 (KIP-890 part 2, Kafka's
 * TransactionVersion.transactionVersionForEndTxn): every end bumps the
 * epoch, and the answer carries the producer id and epoch the producer
 * goes on with.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "txn/txn.h"

int
gr_api_end_txn(gr_req_t *req)
{
    const gr_end_txn_request_t *rq = req->body;
    gr_end_txn_response_t *rs = req->resp;
    gr_pid_t next;
    gr_kerr_t kerr;

    /* WRITE on the transactional id */
    if (!gr_authz(req, GR_RES_TRANSACTIONAL_ID, &rq->transactional_id,
                  GR_OP_WRITE)) {
        rs->error_code = GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        rs->producer_id = -1;
        rs->producer_epoch = -1;
        return gr_req_reply(req);
    }

    kerr = gr_txn_end(req->broker->txn, &rq->transactional_id,
                      (gr_pid_t){ rq->producer_id, rq->producer_epoch },
                      rq->committed, req->version >= 5 ? 2 : 0, &next);
    /* PRODUCER_FENCED exists from v2 on (end_txn.schema) */
    if (kerr == GR_KERR_PRODUCER_FENCED && req->version < 2)
        kerr = GR_KERR_INVALID_PRODUCER_EPOCH;
    rs->error_code = kerr;
    rs->producer_id = next.id; /* v5+; -1 unless NONE */
    rs->producer_epoch = next.epoch;
    return gr_req_reply(req);
}
