/*
 * Transaction markers: the COMMIT or ABORT control batch the coordinator
 * appends to every partition of a transaction once its decision is logged
 * (Kafka's TransactionMarkerChannelManager and WriteTxnMarkers, in process:
 * a single broker leads every partition, so the marker is appended
 * directly). Each append updates the partition's producer state (the open
 * transaction ends, the last stable offset moves, an abort is indexed for
 * read_committed fetches) and wakes waiting fetches; on __consumer_offsets
 * the group coordinator is told, so transactional offsets become visible
 * or are dropped. When every partition has its marker, CompleteCommit or
 * CompleteAbort is logged.
 */
#include "core/fault.h"
#include "core/log.h"
#include "log/producer_state.h"
#include "partition/partition.h"
#include "proto/records.h"
#include "txn/txn_int.h"

#include <inttypes.h>
#include <string.h>

#define OFFSETS_TOPIC "__consumer_offsets"

gr_kerr_t
gr_txn_marker_append(gr_txn_coord_t *tc, gr_partition_t *p, int64_t pid,
                     int16_t epoch, bool commit, int32_t coordinator_epoch)
{
    gr_buf_t out = GR_BUF_INIT;
    gr_partition_marker_t m = { .producer_id = pid,
                                .producer_epoch = epoch,
                                .coordinator_epoch = coordinator_epoch,
                                .commit = commit };
    gr_partition_append_args_t args = { .self_id = tc->node_id,
                                        .now_ms = gr_txn_now(tc),
                                        .marker = &m };
    gr_partition_append_result_t res;
    gr_kerr_t kerr;
    gr_err_t err;

    /* the marker's epochs are checked against the producer state first,
     * so the partition must be one this broker leads and has loaded */
    kerr = gr_partition_check_leader(p, tc->node_id);
    if (kerr == GR_KERR_NONE && p->pstate == NULL)
        kerr = GR_KERR_KAFKA_STORAGE_ERROR;
    if (kerr != GR_KERR_NONE)
        return kerr;
    kerr = gr_pstate_check_marker(p->pstate, pid, epoch, coordinator_epoch);
    if (kerr != GR_KERR_NONE)
        return kerr;
    if (GR_FAULT("txn.marker", NULL)) {
        GR_LOG_WARN("fault txn.marker: the marker of producer %" PRId64
                    " for %s-%d is not written",
                    pid, p->topic->name, p->id);
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    err = gr_control_batch(&out, pid, epoch,
                           commit ? GR_CONTROL_COMMIT : GR_CONTROL_ABORT,
                           coordinator_epoch, args.now_ms);
    kerr = err != 0 ? GR_KERR_KAFKA_STORAGE_ERROR
                    : gr_partition_append(p, out.ptr, out.len, &args, &res);
    if (kerr != GR_KERR_NONE) {
        GR_LOG_ERROR("%s-%d: cannot append the %s marker of producer "
                     "%" PRId64 ": %s",
                     p->topic->name, p->id, commit ? "COMMIT" : "ABORT", pid,
                     err != 0 ? gr_err_str(err) : gr_kerr_name(kerr));
        gr_buf_fini(&out);
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    if (tc->hooks.offsets_marker && strcmp(p->topic->name, OFFSETS_TOPIC) == 0)
        tc->hooks.offsets_marker(tc->hooks.arg, p, pid, commit);
    gr_buf_fini(&out);
    return GR_KERR_NONE;
}

void
gr_txn_markers_write(gr_txn_coord_t *tc, gr_txn_t *txn)
{
    bool commit = txn->state == GR_TXN_PREPARE_COMMIT, failed = false;
    int32_t coordinator_epoch = 0;
    gr_topic_t *st = gr_cluster_topic_cstr(tc->cluster, "__transaction_state");
    gr_txn_transit_t tr;
    gr_kerr_t err;

    GR_ASSERT(txn->state == GR_TXN_PREPARE_COMMIT ||
              txn->state == GR_TXN_PREPARE_ABORT);
    txn->completing = true;
    /* the coordinator epoch: the leader epoch of the id's partition */
    if (st != NULL && txn->log_partition < st->nparts)
        coordinator_epoch = st->parts[txn->log_partition]->leader_epoch;
    for (int i = 0; i < txn->nparts; i++) {
        gr_txn_part_t *tp = &txn->parts[i];
        gr_topic_t *t = gr_cluster_topic_cstr(tc->cluster, tp->topic);
        if (tp->marked)
            continue;
        if (t == NULL || tp->partition >= t->nparts) {
            /* deleted meanwhile: nothing to mark (Kafka drops it too) */
            GR_LOG_WARN("transactional id %s: %s-%d is gone; no marker",
                        txn->id, tp->topic, tp->partition);
            tp->marked = true;
            continue;
        }
        err =
            gr_txn_marker_append(tc, t->parts[tp->partition], txn->producer_id,
                                 txn->epoch, commit, coordinator_epoch);
        switch (err) {
        case GR_KERR_NONE:
            tp->marked = true;
            break;
        case GR_KERR_INVALID_PRODUCER_EPOCH:
        case GR_KERR_TRANSACTION_COORDINATOR_FENCED:
            /* the partition has seen a newer epoch: a marker from us
             * would be refused forever (Kafka: "should not happen") */
            GR_LOG_ERROR("transactional id %s: %s-%d refuses the marker of "
                         "producer %" PRId64 " epoch %d: %s",
                         txn->id, tp->topic, tp->partition, txn->producer_id,
                         txn->epoch, gr_kerr_name(err));
            tp->marked = true;
            break;
        default:
            failed = true;
            break;
        }
    }
    if (failed) {
        gr_txn_retry_later(tc);
        return;
    }
    gr_txn_prepare_complete(txn, gr_txn_now(tc), &tr);
    err = gr_txn_log_transit(tc, txn, &tr);
    if (err != GR_KERR_NONE) {
        GR_LOG_WARN("transactional id %s: %s could not be logged (%s); "
                    "retrying",
                    txn->id, gr_txn_state_name(tr.state), gr_kerr_name(err));
        gr_txn_retry_later(tc);
        return;
    }
    GR_LOG_DEBUG("transactional id %s: %s", txn->id,
                 gr_txn_state_name(txn->state));
}
