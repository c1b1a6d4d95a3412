/*
 * EndTxn (api key 26): a transactional producer commits or aborts its
 * transaction. The coordinator (src/txn/) logs PrepareCommit or
 * PrepareAbort, writes the markers to every partition of the transaction
 * and logs the completion; the answer is NONE once the decision is logged.
 * v5 (KIP-890 epoch bump per transaction) is unstable and not served, so
 * the response's producer id and epoch (v5+) are never sent.
 */
#include "api/api_int.h"
#include "txn/txn.h"

int
gr_api_end_txn(gr_req_t *req)
{
    const gr_end_txn_request_t *rq = req->body;
    gr_end_txn_response_t *rs = req->resp;
    gr_kerr_t kerr;

    kerr = gr_txn_end(req->broker->txn, &rq->transactional_id,
                      (gr_pid_t){ rq->producer_id, rq->producer_epoch },
                      rq->committed);
    /* PRODUCER_FENCED exists from v2 on (end_txn.schema) */
    if (kerr == GR_KERR_PRODUCER_FENCED && req->version < 2)
        kerr = GR_KERR_INVALID_PRODUCER_EPOCH;
    rs->error_code = kerr;
    return gr_req_reply(req);
}
