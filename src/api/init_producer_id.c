/*
 * InitProducerId (api key 22): gives an idempotent producer a fresh
 * producer id with epoch 0 (txn/pid.c hands out ids durably, never twice).
 * Producers with a transactional id are the transaction coordinator's
 * (not there yet: they get COORDINATOR_NOT_AVAILABLE).
 */
#include "api/api_int.h"
#include "txn/pid.h"

int
gr_api_init_producer_id(gr_req_t *req)
{
    const gr_init_producer_id_request_t *rq = req->body;
    gr_init_producer_id_response_t *rs = req->resp;
    int64_t pid;

    /* ProducerId and ProducerEpoch are "3+" fields: below v3 the decoder
     * set both to their default, -1. Either both are -1 or neither is. */
    if ((rq->producer_id == -1) != (rq->producer_epoch == -1)) {
        rs->error_code = GR_KERR_INVALID_REQUEST;
        return gr_req_reply(req);
    }
    if (rq->transactional_id.len >= 0) {
        /* transactions: src/txn/ is not there yet */
        GR_LOG_INFO("InitProducerId from %s for transactional id %.*s: "
                    "transactions are not supported yet",
                    gr_req_peer(req), (int)rq->transactional_id.len,
                    rq->transactional_id.ptr);
        rs->error_code = GR_KERR_COORDINATOR_NOT_AVAILABLE;
        return gr_req_reply(req);
    }
    /* an idempotent producer always gets a new id (Kafka's
     * TransactionCoordinator.handleInitProducerId without a transactional
     * id), also when it names its current one (KIP-360) */
    pid = gr_pids_next(req->broker->pids);
    if (pid < 0) {
        rs->error_code = GR_KERR_COORDINATOR_NOT_AVAILABLE;
        return gr_req_reply(req);
    }
    rs->producer_id = pid;
    rs->producer_epoch = 0;
    return gr_req_reply(req);
}
