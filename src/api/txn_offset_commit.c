/*
 * TxnOffsetCommit (api key 28): a transactional producer commits a consumer
 * group's offsets inside its transaction (consume-transform-produce,
 * KIP-98); sent to the group coordinator after AddOffsetsToTxn put the
 * group's partition of __consumer_offsets into the transaction. Partitions
 * of unknown topics get UNKNOWN_TOPIC_OR_PARTITION here (Kafka's
 * handleTxnOffsetCommitRequest); the rest goes to
 * gr_group_txn_commit_offsets(), which appends them as a batch of the
 * producer and keeps them pending until the transaction's marker. Fields
 * by version (txn_offset_commit.schema): leader epoch v2+, generation,
 * member id and group instance id v3+, topics by id v6+ (UNKNOWN_TOPIC_ID
 * for an unknown one). Before the commit the group's partition of
 * __consumer_offsets must be in the transaction (Kafka's
 * CoordinatorPartitionWriter.maybeStartTransactionVerification): below
 * v5 the transaction coordinator verifies it (KIP-890 part 1); v5+ is
 * transaction version 2 (part 2, Kafka's
 * txnOffsetCommitRequestVersionToTransactionSupportedOperation): the
 * client sent no AddOffsetsToTxn, so the partition joins the transaction
 * here. A failure is every partition's answer.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"
#include "group/group.h"
#include "txn/txn.h"

typedef struct txn_commit_ctx {
    gr_req_t *req;
    gr_group_commit_part_t *parts;
    gr_group_waiter_t w;
} txn_commit_ctx_t;

static void
commit_done(gr_group_waiter_t *w, const void *result)
{
    gr_kerr_t flush_err = *(const gr_kerr_t *)result;
    txn_commit_ctx_t *ctx = w->arg;
    gr_req_t *req = ctx->req;
    const gr_txn_offset_commit_request_t *rq = req->body;
    gr_txn_offset_commit_response_t *rs = req->resp;
    int32_t k = 0;

    rs->topics_cnt = rq->topics_cnt > 0 ? rq->topics_cnt : 0;
    rs->topics = gr_arena_zalloc(req->a, sizeof(*rs->topics) *
                                             (size_t)(rs->topics_cnt + 1));
    if (rs->topics == NULL) {
        gr_req_close(req, "out of memory");
        return;
    }
    for (int32_t i = 0; i < rs->topics_cnt; i++) {
        const gr_txn_offset_commit_request_topic_t *qt = &rq->topics[i];
        gr_txn_offset_commit_response_topic_t *rt = &rs->topics[i];
        int32_t np = qt->partitions_cnt > 0 ? qt->partitions_cnt : 0;
        rt->name = qt->name;
        rt->topic_id = qt->topic_id; /* v6+ */
        rt->partitions_cnt = np;
        rt->partitions =
            gr_arena_zalloc(req->a, sizeof(*rt->partitions) * (size_t)(np + 1));
        if (rt->partitions == NULL) {
            gr_req_close(req, "out of memory");
            return;
        }
        for (int32_t j = 0; j < np; j++, k++) {
            gr_kerr_t err = ctx->parts[k].error;
            if (err == GR_KERR_NONE)
                err = flush_err;
            /* v0-v1 clients (before KAFKA-7296) do not know
             * COORDINATOR_LOAD_IN_PROGRESS here */
            if (err == GR_KERR_COORDINATOR_LOAD_IN_PROGRESS && req->version < 2)
                err = GR_KERR_COORDINATOR_NOT_AVAILABLE;
            rt->partitions[j].partition_index =
                qt->partitions[j].partition_index;
            rt->partitions[j].error_code = err;
        }
    }
    gr_req_reply(req);
}

/* The group's partition of __consumer_offsets in the producer's
 * transaction: verified below v5, added from v5 (see the file header).
 * NONE, or the error, as Kafka's CoordinatorOperationExceptionHelper
 * words the verification's failure for the client. */
static gr_kerr_t
txn_group_partition(gr_req_t *req)
{
    const gr_txn_offset_commit_request_t *rq = req->body;
    gr_topic_t *t =
        gr_cluster_topic_cstr(req->broker->cluster, GR_TOPIC_CONSUMER_OFFSETS);
    gr_pid_t pid = { rq->producer_id, rq->producer_epoch };
    gr_txn_tp_t tp;
    gr_kerr_t err, perr = GR_KERR_NONE;
    bool ask;

    if (req->version < 5 &&
        !gr_conf_bool(req->broker->conf,
                      GR_CONF_TRANSACTION_PARTITION_VERIFICATION_ENABLE))
        return GR_KERR_NONE; /* Kafka skips it then */
    if (t == NULL || t->nparts <= 0)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    tp.topic = gr_str_c(GR_TOPIC_CONSUMER_OFFSETS);
    tp.partition = gr_cluster_coord_partition(&rq->group_id, t->nparts);
    err = gr_txn_verify_start(t->parts[tp.partition], pid, &ask);
    if (err == GR_KERR_NONE && ask && req->version >= 5) {
        err = gr_txn_add_partitions(req->broker->txn, &rq->transactional_id,
                                    pid, &tp, 1, 2);
    } else if (err == GR_KERR_NONE && ask) {
        err = gr_txn_verify_partitions(req->broker->txn, &rq->transactional_id,
                                       pid, &tp, 1, &perr);
        if (err == GR_KERR_NONE)
            err = perr;
    }
    err = gr_txn_verify_error(err, req->version >= 4);
    if (err != GR_KERR_NONE)
        GR_LOG_DEBUG("TxnOffsetCommit of %.*s from %s: producer %lld epoch "
                     "%d: %s",
                     (int)rq->group_id.len, rq->group_id.ptr, gr_req_peer(req),
                     (long long)pid.id, pid.epoch, gr_kerr_name(err));
    if (err == GR_KERR_NETWORK_EXCEPTION)
        return GR_KERR_COORDINATOR_LOAD_IN_PROGRESS;
    if (err == GR_KERR_UNKNOWN_TOPIC_OR_PARTITION ||
        err == GR_KERR_NOT_ENOUGH_REPLICAS || err == GR_KERR_REQUEST_TIMED_OUT)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    if (err == GR_KERR_NOT_LEADER_OR_FOLLOWER ||
        err == GR_KERR_KAFKA_STORAGE_ERROR)
        return GR_KERR_NOT_COORDINATOR;
    return err;
}

static void
commit_abort(gr_req_t *req)
{
    txn_commit_ctx_t *ctx = req->owner;
    gr_group_waiter_cancel(&ctx->w);
}

int
gr_api_txn_offset_commit(gr_req_t *req)
{
    const gr_txn_offset_commit_request_t *rq = req->body;
    gr_broker_t *b = req->broker;
    txn_commit_ctx_t *ctx = gr_arena_zalloc(req->a, sizeof(*ctx));
    gr_group_txn_commit_args_t a;
    int32_t n = 0, k = 0;
    bool valid = false;

    if (ctx == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < rq->topics_cnt; i++)
        n +=
            rq->topics[i].partitions_cnt > 0 ? rq->topics[i].partitions_cnt : 0;
    ctx->req = req;
    ctx->parts = gr_arena_zalloc(req->a, sizeof(*ctx->parts) * (size_t)(n + 1));
    if (ctx->parts == NULL)
        return gr_req_close(req, "out of memory");
    /* WRITE on the transactional id, READ on the group: every partition
     * answered with the error (TxnOffsetCommitRequest.getErrorResponse) */
    {
        gr_kerr_t denied =
            !gr_authz(req, GR_RES_TRANSACTIONAL_ID, &rq->transactional_id,
                      GR_OP_WRITE)
                ? GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED
            : !gr_authz(req, GR_RES_GROUP, &rq->group_id, GR_OP_READ)
                ? GR_KERR_GROUP_AUTHORIZATION_FAILED
                : GR_KERR_NONE;
        if (denied != GR_KERR_NONE) {
            gr_kerr_t res = GR_KERR_NONE;
            for (int32_t i = 0; i < n; i++)
                ctx->parts[i].error = denied;
            gr_group_waiter_init(&ctx->w, commit_done, ctx);
            commit_done(&ctx->w, &res);
            return 0;
        }
    }
    for (int32_t i = 0; i < rq->topics_cnt; i++) {
        const gr_txn_offset_commit_request_topic_t *qt = &rq->topics[i];
        gr_topic_t *t = req->version >= 6
                            ? gr_cluster_topic_by_id(b->cluster, &qt->topic_id)
                            : gr_cluster_topic(b->cluster, &qt->name);
        for (int32_t j = 0; j < qt->partitions_cnt; j++, k++) {
            const gr_txn_offset_commit_request_partition_t *qp =
                &qt->partitions[j];
            gr_group_commit_part_t *p = &ctx->parts[k];
            p->topic = req->version >= 6 && t ? gr_str_c(t->name) : qt->name;
            p->partition = qp->partition_index;
            p->offset = qp->committed_offset;
            p->leader_epoch = qp->committed_leader_epoch; /* -1 before v2 */
            p->metadata = qp->committed_metadata;
            p->commit_timestamp = -1;
            p->error = GR_KERR_NONE;
            /* READ on the topic, before whether it exists */
            if ((t != NULL || req->version < 6) &&
                !gr_authz(req, GR_RES_TOPIC, &p->topic, GR_OP_READ))
                p->error = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
            else if (t == NULL && req->version >= 6)
                p->error = GR_KERR_UNKNOWN_TOPIC_ID;
            else if (t == NULL || qp->partition_index < 0 ||
                     qp->partition_index >= t->nparts)
                p->error = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        }
    }
    /* Kafka: an empty group id is INVALID_GROUP_ID, and nothing is
     * verified when no partition is left (handleTxnOffsetCommitRequest) */
    for (int32_t i = 0; i < n && !valid; i++)
        valid = ctx->parts[i].error == GR_KERR_NONE;
    if (valid && rq->group_id.len > 0) {
        gr_kerr_t err = txn_group_partition(req);
        if (err != GR_KERR_NONE) {
            gr_kerr_t res = GR_KERR_NONE;
            for (int32_t i = 0; i < n; i++)
                if (ctx->parts[i].error == GR_KERR_NONE)
                    ctx->parts[i].error = err;
            gr_group_waiter_init(&ctx->w, commit_done, ctx);
            commit_done(&ctx->w, &res);
            return 0;
        }
    }
    a.group_id = rq->group_id;
    a.member_id = rq->member_id;                 /* "" before v3 */
    a.group_instance_id = rq->group_instance_id; /* null before v3 */
    a.generation_id = rq->generation_id;         /* -1 before v3 */
    a.producer_id = rq->producer_id;
    a.producer_epoch = rq->producer_epoch;
    a.parts = ctx->parts;
    a.nparts = n;
    a.version = req->version;
    gr_group_waiter_init(&ctx->w, commit_done, ctx);
    /* answered during the call: req may be over already, touch nothing */
    if (!gr_group_txn_commit_offsets(b->groups, &a, &ctx->w))
        return 0;
    return gr_req_defer(req, commit_abort, ctx);
}
