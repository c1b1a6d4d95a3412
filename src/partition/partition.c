/* The partition layer: appending to a partition, see partition.h. */
#include "partition/partition.h"
#include "core/err.h"
#include "core/log.h"
#include "log/log.h"
#include "log/producer_state.h"
#include "proto/records.h"

void
gr_partition_wait(gr_partition_t *p, gr_partition_waiter_t *w)
{
    GR_ASSERT(w->wake != NULL);
    w->p = p;
    w->prev = NULL;
    w->next = p->waiters;
    if (p->waiters)
        p->waiters->prev = w;
    p->waiters = w;
}

void
gr_partition_unwait(gr_partition_waiter_t *w)
{
    if (w->p == NULL)
        return;
    if (w->prev)
        w->prev->next = w->next;
    else
        w->p->waiters = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->p = NULL;
    w->prev = w->next = NULL;
}

gr_kerr_t
gr_partition_check_leader(const gr_partition_t *p, int32_t self_id)
{
    if (p->log == NULL || gr_log_offline(p->log))
        return GR_KERR_KAFKA_STORAGE_ERROR;
    if (p->leader != self_id)
        return GR_KERR_NOT_LEADER_OR_FOLLOWER;
    return GR_KERR_NONE;
}

gr_kerr_t
gr_partition_append(gr_partition_t *p, uint8_t *buf, size_t n,
                    const gr_partition_append_args_t *args,
                    gr_partition_append_result_t *res)
{
    const gr_partition_marker_t *m = args->marker;
    gr_log_append_info_t info;
    gr_batch_hdr_t h;
    gr_kerr_t kerr;
    gr_err_t err;

    res->first_offset = -1;
    res->log_start_offset = -1;
    res->flush_due = false;
    kerr = gr_partition_check_leader(p, args->self_id);
    if (kerr != GR_KERR_NONE)
        return kerr;
    err = gr_log_append(p->log, buf, n, p->leader_epoch, &info);
    if (err != 0) {
        GR_LOG_ERROR("append to %s-%d failed: %s", p->topic->name, p->id,
                     gr_err_str(err));
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    res->first_offset = info.first_offset;
    res->log_start_offset = info.log_start_offset;
    res->flush_due = info.flush_due;

    /* the producer state, from the batch as the log left it (offsets) */
    if (p->pstate != NULL) {
        if (m != NULL) {
            gr_pstate_end_txn(p->pstate, m->producer_id, m->producer_epoch,
                              m->coordinator_epoch, m->commit,
                              info.first_offset, args->now_ms);
        } else {
            gr_batch_hdr_parse(buf, &h);
            if (h.producer_id >= 0)
                gr_pstate_append(p->pstate, &h, args->now_ms);
        }
    }

    /* a single broker: the high watermark is the log end offset */
    p->high_watermark = gr_log_end_offset(p->log);
    gr_log_set_high_watermark(p->log, p->high_watermark);
    p->stats.bytes_in += (int64_t)n; /* BytesInPerSec (metrics) */
    for (gr_partition_waiter_t *w = p->waiters; w; w = w->next)
        w->wake(w, n);

    if (info.flush_due && !args->caller_flushes)
        gr_log_flush(p->log, NULL, NULL);
    return GR_KERR_NONE;
}

void
gr_partition_log_opened(gr_partition_t *p, int32_t self_id)
{
    int32_t have = gr_log_leader_epoch(p->log);

    /* the cache outlives the process, the cluster model (on a single
     * broker) does not: the higher of the two is the epoch */
    if (have > p->leader_epoch)
        p->leader_epoch = have;
    if (p->leader == self_id && gr_log_assign_epoch(p->log, p->leader_epoch))
        GR_LOG_WARN("%s-%d: leader epoch %d not recorded (out of memory)",
                    p->topic->name, p->id, (int)p->leader_epoch);
    p->high_watermark = gr_log_end_offset(p->log);
    gr_log_set_high_watermark(p->log, p->high_watermark);
}

void
gr_partition_set_leader_epoch(gr_partition_t *p, int32_t epoch,
                              int32_t self_id)
{
    p->leader_epoch = epoch;
    if (p->log != NULL && p->leader == self_id &&
        gr_log_assign_epoch(p->log, epoch) != 0)
        GR_LOG_WARN("%s-%d: leader epoch %d not recorded (out of memory)",
                    p->topic->name, p->id, (int)epoch);
}

gr_kerr_t
gr_partition_follower_batches(const uint8_t *buf, size_t n, int64_t next,
                              size_t *used, const char **why)
{
    size_t pos = 0, size = 0;

    *used = 0;
    *why = NULL;
    /* whole batches only: the leader's max bytes may cut the last one */
    while (pos < n) {
        gr_batch_hdr_t h;
        int rc = gr_batch_check(buf + pos, n - pos, &size, why);
        if (rc == GR_ERR_TRUNCATED)
            break;
        if (rc != 0)
            return GR_KERR_CORRUPT_MESSAGE;
        gr_batch_hdr_parse(buf + pos, &h);
        if (h.base_offset < next) {
            *why = "a batch below the log end or the batch before";
            return GR_KERR_CORRUPT_MESSAGE;
        }
        next = gr_batch_last_offset(&h) + 1;
        pos += size;
    }
    *why = NULL;
    *used = pos;
    return GR_KERR_NONE;
}

gr_kerr_t
gr_partition_append_follower(gr_partition_t *p, const uint8_t *buf, size_t n,
                             int64_t leader_hw, size_t *used,
                             const char **why)
{
    gr_log_append_info_t info;
    size_t pos = 0, size = 0;
    gr_kerr_t kerr;
    gr_err_t err;

    *used = 0;
    *why = NULL;
    if (p->log == NULL || gr_log_offline(p->log))
        return GR_KERR_KAFKA_STORAGE_ERROR;
    kerr = gr_partition_follower_batches(buf, n, gr_log_end_offset(p->log),
                                         &pos, why);
    if (kerr != GR_KERR_NONE)
        return kerr;
    if (pos > 0) {
        err = gr_log_append_follower(p->log, buf, pos, &info);
        if (err != 0) {
            GR_LOG_ERROR("follower append to %s-%d failed: %s",
                         p->topic->name, p->id, gr_err_str(err));
            return err == GR_ERR_INVALID ? GR_KERR_CORRUPT_MESSAGE
                                         : GR_KERR_KAFKA_STORAGE_ERROR;
        }
        /* the producer state as the leader's append made it (Kafka's
         * appendAsFollower: the same ProducerAppendInfo, unchecked) */
        for (size_t q = 0; p->pstate != NULL && q < pos; q += size) {
            gr_batch_hdr_t h;
            gr_batch_hdr_parse(buf + q, &h);
            size = gr_batch_size(&h);
            gr_pstate_replay(p->pstate, buf + q, size);
        }
        *why = NULL;
        if (info.flush_due)
            gr_log_flush(p->log, NULL, NULL);
    }
    *used = pos;
    gr_partition_follower_hw(p, leader_hw);
    return GR_KERR_NONE;
}

void
gr_partition_follower_hw(gr_partition_t *p, int64_t leader_hw)
{
    int64_t leo;
    if (p->log == NULL)
        return;
    leo = gr_log_end_offset(p->log);
    /* ReplicaFetcherThread.processPartitionData */
    p->high_watermark = leader_hw < leo ? leader_hw : leo;
    if (p->high_watermark < 0)
        p->high_watermark = 0;
    gr_log_set_high_watermark(p->log, p->high_watermark);
}
