/*
 * InitProducerId (api key 22): gives a producer its id and epoch. An
 * idempotent producer (no transactional id) gets a fresh id with epoch 0
 * (txn/pid.c hands ids out durably, never twice); a transactional one asks
 * the transaction coordinator (src/txn/), which bumps the epoch and so
 * fences older instances. Decoding, defaults and encoding are generated;
 * this file checks the request and words the answer per version.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"
#include "txn/txn.h"

/* A transactional producer's id and epoch, from the transaction
 * coordinator (once __transaction_state exists). */
static void
transactional(gr_req_t *req)
{
    const gr_init_producer_id_request_t *rq = req->body;
    gr_init_producer_id_response_t *rs = req->resp;
    gr_pid_t pid = GR_PID_NONE;
    gr_kerr_t kerr;

    if (req->broker->stopping)
        kerr = GR_KERR_COORDINATOR_NOT_AVAILABLE;
    else
        kerr = gr_txn_init_pid(
            req->broker->txn, &rq->transactional_id, rq->transaction_timeout_ms,
            (gr_pid_t){ rq->producer_id, rq->producer_epoch }, &pid);

    /* PRODUCER_FENCED exists from v4 on (init_producer_id.schema);
     * older clients handle the same case as INVALID_PRODUCER_EPOCH. */
    if (kerr == GR_KERR_PRODUCER_FENCED && req->version < 4)
        kerr = GR_KERR_INVALID_PRODUCER_EPOCH;

    rs->error_code = kerr;
    rs->producer_id = pid.id;       /* -1 unless kerr == GR_KERR_NONE */
    rs->producer_epoch = pid.epoch; /* likewise */
}

int
gr_api_init_producer_id(gr_req_t *req)
{
    const gr_init_producer_id_request_t *rq = req->body;
    gr_init_producer_id_response_t *rs = req->resp;
    gr_pid_t pid = GR_PID_NONE;

    /* ProducerId and ProducerEpoch are "3+" fields: below v3 the decoder
     * has set both to their schema default, -1. Either both are -1 (a new
     * producer) or neither is (a producer resuming, KIP-360). */
    rs->producer_epoch = -1; /* an error's answer, as Kafka's */
    /* WRITE on the transactional id (TWO_PHASE_COMMIT too for 2PC);
     * without one, idempotence needs IDEMPOTENT_WRITE on the cluster or
     * WRITE on some topic (authorizeByResourceType) */
    if (!gr_str_is_null(&rq->transactional_id)) {
        if (!gr_authz(req, GR_RES_TRANSACTIONAL_ID, &rq->transactional_id,
                      GR_OP_WRITE) ||
            (rq->enable2_pc &&
             !gr_authz(req, GR_RES_TRANSACTIONAL_ID, &rq->transactional_id,
                       GR_OP_TWO_PHASE_COMMIT))) {
            rs->error_code = GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
            return gr_req_reply(req);
        }
    } else if (!gr_authz_cluster(req, GR_OP_IDEMPOTENT_WRITE) &&
               !gr_authz_by_type(req, GR_RES_TOPIC, GR_OP_WRITE)) {
        rs->error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        return gr_req_reply(req);
    }
    if ((rq->producer_id == -1) != (rq->producer_epoch == -1)) {
        rs->error_code = GR_KERR_INVALID_REQUEST;
        return gr_req_reply(req);
    }
    if (gr_str_is_null(&rq->transactional_id)) {
        /* idempotence: always a new id (Kafka's handleInitProducerId
         * without a transactional id), also when the producer names its
         * current one */
        pid.id = gr_pids_next(req->broker->pids);
        pid.epoch = 0;
        rs->error_code = pid.id == GR_PID_PENDING
                             ? GR_KERR_COORDINATOR_LOAD_IN_PROGRESS
                         : pid.id < 0 ? GR_KERR_COORDINATOR_NOT_AVAILABLE
                                      : GR_KERR_NONE;
        rs->producer_id = pid.id;
        rs->producer_epoch = pid.id < 0 ? -1 : 0;
        return gr_req_reply(req);
    }
    /* v6 (KIP-939): two-phase commit is refused as Kafka refuses it with
     * transaction.two.phase.commit.enable false (the only value Gregor
     * starts with), and keeping a prepared transaction, which Kafka 4.4
     * does not do either, is UNSUPPORTED_VERSION; an empty id is the
     * coordinator's INVALID_REQUEST first, as in Kafka */
    if (rq->transactional_id.len > 0 &&
        (rq->enable2_pc || rq->keep_prepared_txn)) {
        GR_LOG_DEBUG("InitProducerId v%d from %s for %.*s: %s refused",
                     req->version, gr_req_peer(req),
                     (int)rq->transactional_id.len, rq->transactional_id.ptr,
                     rq->enable2_pc ? "enable2Pc" : "keepPreparedTxn");
        rs->error_code = rq->enable2_pc
                             ? GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                             : GR_KERR_UNSUPPORTED_VERSION;
        return gr_req_reply(req);
    }
    /* the coordinator keeps its state in __transaction_state, made on
     * first use (a client that skipped FindCoordinator) */
    return gr_topics_internal_then(req, GR_TOPIC_TRANSACTION_STATE,
                                   transactional);
}
