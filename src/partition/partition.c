/* The partition layer: appending to a partition, see partition.h. */
#include "partition/partition.h"
#include "core/err.h"
#include "core/log.h"
#include "core/time.h"
#include "log/epoch.h"
#include "log/log.h"
#include "log/producer_state.h"
#include "proto/records.h"

#include <stdlib.h>
#include <string.h>

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

    p->stats.bytes_in += (int64_t)n; /* BytesInPerSec (metrics) */
    if (p->repl == NULL) {
        /* no followers: the high watermark is the log end offset */
        p->high_watermark = gr_log_end_offset(p->log);
        gr_log_set_high_watermark(p->log, p->high_watermark);
        for (gr_partition_waiter_t *w = p->waiters, *next; w; w = next) {
            next = w->next;
            w->wake(w, n);
        }
    } else {
        /* the followers see it now, consumers once the high watermark
         * passes it (a follower at the log end holds it back) */
        p->repl->bytes_above_hw += (int64_t)n;
        for (gr_partition_waiter_t *w = p->waiters, *next; w; w = next) {
            next = w->next;
            if (!w->on_hw)
                w->wake(w, n);
        }
        gr_partition_update_hw(p, gr_mono_ms());
    }

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

/* --- replication, the leader's side */

void
gr_follower_fetched(gr_follower_t *f, int64_t fetch_offset, int64_t now_ms,
                    int64_t leader_leo)
{
    if (fetch_offset >= leader_leo) {
        if (now_ms > f->last_caught_up_ms)
            f->last_caught_up_ms = now_ms;
    } else if (fetch_offset >= f->last_fetch_leader_leo) {
        if (f->last_fetch_ms > f->last_caught_up_ms)
            f->last_caught_up_ms = f->last_fetch_ms;
    }
    f->leo = fetch_offset;
    f->last_fetch_leader_leo = leader_leo;
    f->last_fetch_ms = now_ms;
}

bool
gr_follower_caught_up(const gr_follower_t *f, int64_t leader_leo,
                      int64_t now_ms, int64_t lag_ms)
{
    return f->leo == leader_leo || now_ms - f->last_caught_up_ms <= lag_ms;
}

bool
gr_follower_in_sync(const gr_follower_t *f, int64_t hw, int64_t epoch_start)
{
    return f->leo >= 0 && f->leo >= hw && f->leo >= epoch_start;
}

bool
gr_isr_has(const int32_t *v, int n, int32_t id)
{
    for (int i = 0; i < n; i++)
        if (v[i] == id)
            return true;
    return false;
}

int64_t
gr_repl_hw_candidate(int64_t leader_leo, const gr_follower_t *f, int nf,
                     const int32_t *isr, int nisr, const int32_t *maximal,
                     int nmaximal, int32_t min_isr, int64_t now_ms,
                     int64_t lag_ms)
{
    int64_t hw = leader_leo;
    (void)isr;
    if (nisr < min_isr)
        return -1; /* strict min ISR (KAFKA-15583) */
    for (int i = 0; i < nf; i++)
        if (f[i].leo < hw &&
            (gr_isr_has(maximal, nmaximal, f[i].id) ||
             (f[i].eligible &&
              gr_follower_caught_up(&f[i], leader_leo, now_ms, lag_ms))))
            hw = f[i].leo;
    return hw;
}

void
gr_partition_maximal_isr(const gr_partition_t *p, const int32_t **v, int *n)
{
    const gr_partition_repl_t *r = p->repl;
    if (r != NULL && r->altering && r->nalter > p->nisr) {
        *v = r->alter_isr;
        *n = r->nalter;
    } else {
        *v = p->isr;
        *n = p->nisr;
    }
}

int64_t
gr_partition_epoch_start(const gr_partition_t *p)
{
    const gr_epochs_t *c = gr_log_epochs(p->log);
    if (c != NULL && c->n > 0 && c->v[c->n - 1].epoch == p->leader_epoch)
        return c->v[c->n - 1].start_offset;
    return gr_log_end_offset(p->log);
}

void
gr_partition_wake_acks(gr_partition_t *p)
{
    if (p->repl == NULL)
        return;
    for (gr_partition_waiter_t *w = p->repl->ack_waiters, *next; w;
         w = next) {
        next = w->next;
        w->wake(w, 0);
    }
}

bool
gr_partition_update_hw(gr_partition_t *p, int64_t now_ms)
{
    gr_partition_repl_t *r = p->repl;
    const int32_t *max;
    int64_t leo, hw, old = p->high_watermark, bytes;
    int nmax;

    if (r == NULL || p->log == NULL)
        return false;
    leo = gr_log_end_offset(p->log);
    gr_partition_maximal_isr(p, &max, &nmax);
    hw = gr_repl_hw_candidate(leo, r->f, r->nf, p->isr, p->nisr, max, nmax,
                              r->min_isr, now_ms, r->lag_ms);
    if (hw <= old)
        return false;
    p->high_watermark = hw;
    gr_log_set_high_watermark(p->log, hw);
    /* the bytes it uncovered, pro rata of the offsets (an estimate for
     * min_bytes: the answer reads what is there) */
    bytes = leo > old ? (int64_t)((double)r->bytes_above_hw *
                                  (double)(hw - old) / (double)(leo - old))
                      : r->bytes_above_hw;
    if (hw >= leo || bytes > r->bytes_above_hw)
        bytes = r->bytes_above_hw;
    r->bytes_above_hw -= bytes;
    for (gr_partition_waiter_t *w = p->waiters, *next; w; w = next) {
        next = w->next;
        if (w->on_hw)
            w->wake(w, (size_t)bytes);
    }
    gr_partition_wake_acks(p);
    return true;
}

gr_follower_t *
gr_partition_follower_fetch(gr_partition_t *p, int32_t replica,
                            int64_t fetch_offset, int64_t broker_epoch,
                            int64_t now_ms)
{
    gr_partition_repl_t *r = p->repl;
    gr_follower_t *f = NULL;
    if (r == NULL || p->log == NULL)
        return NULL;
    for (int i = 0; i < r->nf && f == NULL; i++)
        if (r->f[i].id == replica)
            f = &r->f[i];
    if (f == NULL)
        return NULL;
    gr_follower_fetched(f, fetch_offset, now_ms, gr_log_end_offset(p->log));
    f->broker_epoch = broker_epoch;
    f->eligible = true;
    gr_partition_update_hw(p, now_ms);
    return f;
}

void
gr_partition_repl_drop(gr_partition_t *p)
{
    gr_partition_repl_t *old = p->repl;
    if (old == NULL)
        return;
    /* the waiting produces hear it (w->p NULL), then the state goes */
    p->repl = NULL;
    for (gr_partition_waiter_t *w = old->ack_waiters, *next; w; w = next) {
        next = w->next;
        w->prev = w->next = NULL;
        w->p = NULL;
        w->wake(w, 0);
    }
    free(old);
}

int
gr_partition_repl_sync(gr_partition_t *p, int32_t self_id, int64_t lag_ms)
{
    gr_partition_repl_t *old = p->repl, *r;
    int nf = 0;
    int64_t now = gr_mono_ms();
    size_t sz;

    if (p->leader == self_id && p->log != NULL)
        for (int32_t i = 0; i < p->nreplicas; i++)
            nf += p->replicas[i] != self_id;
    if (nf == 0) {
        gr_partition_repl_drop(p);
        return 0;
    }
    if (old != NULL && old->nf == nf) {
        int same = 0;
        for (int i = 0; i < nf; i++)
            same += gr_isr_has(p->replicas, p->nreplicas, old->f[i].id);
        if (same == nf)
            return 0;
    }
    sz = sizeof(*r) + (size_t)nf * sizeof(gr_follower_t) +
         (size_t)p->nreplicas * sizeof(int32_t);
    if ((r = calloc(1, sz)) == NULL)
        return -1;
    r->alter_isr = (int32_t *)((char *)r + sizeof(*r) +
                               (size_t)nf * sizeof(gr_follower_t));
    r->min_isr = old ? old->min_isr : 1;
    r->lag_ms = lag_ms;
    for (int32_t i = 0; i < p->nreplicas; i++) {
        gr_follower_t *f;
        if (p->replicas[i] == self_id)
            continue;
        f = &r->f[r->nf++];
        /* Replica.resetReplicaState: caught up now when in the ISR */
        *f = (gr_follower_t){ .id = p->replicas[i], .leo = -1,
                              .last_fetch_ms = 0,
                              .last_fetch_leader_leo = -1,
                              .last_caught_up_ms =
                                  gr_isr_has(p->isr, p->nisr, p->replicas[i])
                                      ? now
                                      : 0,
                              .broker_epoch = -1 };
        for (int k = 0; old != NULL && k < old->nf; k++)
            if (old->f[k].id == f->id)
                *f = old->f[k];
    }
    if (old != NULL) {
        r->altering = old->altering;
        r->nalter = old->nalter < p->nreplicas ? old->nalter : p->nreplicas;
        memcpy(r->alter_isr, old->alter_isr,
               (size_t)r->nalter * sizeof(int32_t));
        r->ack_waiters = old->ack_waiters;
        r->bytes_above_hw = old->bytes_above_hw;
        free(old);
    }
    p->repl = r;
    return 0;
}

void
gr_partition_ack_wait(gr_partition_t *p, gr_partition_waiter_t *w)
{
    GR_ASSERT(w->wake != NULL && p->repl != NULL);
    w->p = p;
    w->prev = NULL;
    w->next = p->repl->ack_waiters;
    if (w->next)
        w->next->prev = w;
    p->repl->ack_waiters = w;
}

void
gr_partition_ack_unwait(gr_partition_waiter_t *w)
{
    if (w->p == NULL)
        return;
    if (w->prev)
        w->prev->next = w->next;
    else
        w->p->repl->ack_waiters = w->next;
    if (w->next)
        w->next->prev = w->prev;
    w->p = NULL;
    w->prev = w->next = NULL;
}
