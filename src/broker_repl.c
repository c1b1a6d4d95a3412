/* Replication, the leader's side in cluster mode: see broker_repl.h. */
#include "broker_repl.h"
#include "broker_meta_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/topic_config.h"
#include "core/buf.h"
#include "core/log.h"
#include "core/time.h"
#include "log/log.h"
#include "partition/partition.h"

/* An ISR change written and not yet answered: what it was about (the
 * partition is looked up again by the answer; it may be gone). */
typedef struct alter {
    struct alter *next, *prev;
    struct gr_repl *r;
    char topic[GR_TOPIC_NAME_MAX + 1];
    gr_uuid_t topic_id;
    int32_t part;
    int32_t leader_epoch;
    int n;
    int32_t isr[];
} alter_t;

struct gr_repl {
    struct gr_broker_meta *bm;
    gr_timer_t timer; /* isr-expiration */
    int64_t period_ms;
    alter_t *alters;
};

int32_t
gr_repl_min_isr(gr_broker_t *b, gr_partition_t *p)
{
    const gr_topic_settings_t *ts = gr_topic_settings(b->conf, p->topic);
    int32_t m = ts->min_insync_replicas < p->nreplicas
                    ? ts->min_insync_replicas
                    : p->nreplicas;
    if (p->repl != NULL)
        p->repl->min_isr = m;
    return m;
}

static void
alter_end(alter_t *a)
{
    if (a->prev)
        a->prev->next = a->next;
    else
        a->r->alters = a->next;
    if (a->next)
        a->next->prev = a->prev;
    free(a);
}

static gr_partition_t *
alter_partition(const alter_t *a)
{
    gr_topic_t *t = gr_cluster_topic_cstr(a->r->bm->b->cluster, a->topic);
    if (t == NULL || !gr_uuid_eq(&t->id, &a->topic_id) || a->part >= t->nparts)
        return NULL;
    return t->parts[a->part];
}

static void
altered(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    alter_t *a = arg;
    gr_broker_t *b = a->r->bm->b;
    gr_partition_t *p = alter_partition(a);
    int32_t *v;

    if (p != NULL && p->repl != NULL)
        p->repl->altering = false;
    if (p == NULL || p->repl == NULL || p->leader_epoch != a->leader_epoch) {
        alter_end(a); /* gone or moved on meanwhile: the state read says */
        return;
    }
    if (rc == GR_META_OK && n == 1 &&
        (v = malloc((size_t)a->n * sizeof *v)) != NULL) {
        GR_LOG_INFO("%s-%d: ISR now %d replica%s (was %d), state version %d",
                    p->topic->name, (int)p->id, a->n, a->n == 1 ? "" : "s",
                    (int)p->nisr, (int)res[0].st.version);
        memcpy(v, a->isr, (size_t)a->n * sizeof *v);
        free(p->isr);
        p->isr = v;
        p->nisr = a->n;
        p->state_version = res[0].st.version;
        gr_repl_partition_changed(b, p);
    } else if (rc == GR_META_BADVERSION) {
        /* someone else (the controller) wrote it: read it again, the next
         * check decides on what it says */
        GR_LOG_INFO("%s-%d: ISR change refused: the state moved past "
                    "version %d; reading it again",
                    p->topic->name, (int)p->id, (int)p->state_version);
        gr_topics_zk_reread(a->r->bm, p->topic->name, p->id);
    } else {
        GR_LOG_WARN("%s-%d: ISR change not written: %s", p->topic->name,
                    (int)p->id, gr_meta_rc_name(rc));
    }
    alter_end(a);
}

/* ReplicationUtils.updateLeaderAndIsr: the state with the new ISR, the
 * leader epoch and controller epoch as read, set on the version read. */
static void
alter_isr(gr_broker_t *b, gr_partition_t *p, const int32_t *isr, int n)
{
    struct gr_broker_meta *bm = b->meta;
    struct gr_repl *r = bm != NULL ? bm->repl : NULL;
    char path[GR_TOPIC_NAME_MAX + 64];
    gr_buf_t js = { 0 };
    gr_meta_op_t op;
    alter_t *a;

    if (r == NULL || p->repl == NULL || p->repl->altering ||
        p->state_version < 0)
        return;
    gr_buf_printf(&js, "{\"version\":1,\"leader\":%d,\"leader_epoch\":%d,"
                       "\"controller_epoch\":%d,\"isr\":[",
                  (int)p->leader, (int)p->leader_epoch,
                  (int)p->state_controller_epoch);
    for (int i = 0; i < n; i++)
        gr_buf_printf(&js, "%s%d", i ? "," : "", (int)isr[i]);
    gr_buf_printf(&js, "]}");
    a = calloc(1, sizeof *a + (size_t)n * sizeof(int32_t));
    if (js.oom || a == NULL) {
        free(a);
        gr_buf_fini(&js);
        return;
    }
    a->r = r;
    snprintf(a->topic, sizeof a->topic, "%s", p->topic->name);
    a->topic_id = p->topic->id;
    a->part = p->id;
    a->leader_epoch = p->leader_epoch;
    a->n = n;
    memcpy(a->isr, isr, (size_t)n * sizeof(int32_t));
    snprintf(path, sizeof path, "/brokers/topics/%s/partitions/%d/state",
             p->topic->name, (int)p->id);
    op = (gr_meta_op_t){ GR_META_OP_SET, path, js.ptr, js.len, 0,
                         p->state_version };
    if (gr_meta_multi(bm->m, &op, 1, altered, a) != 0) {
        free(a);
        gr_buf_fini(&js);
        return;
    }
    a->next = r->alters;
    if (a->next)
        a->next->prev = a;
    r->alters = a;
    p->repl->altering = true;
    memcpy(p->repl->alter_isr, isr, (size_t)n * sizeof(int32_t));
    p->repl->nalter = n;
    GR_LOG_DEBUG("%s-%d: writing ISR of %d at state version %d",
                 p->topic->name, (int)p->id, n, (int)p->state_version);
    gr_buf_fini(&js);
}

/* Partition.maybeExpandIsr for follower f. */
static void
maybe_expand(gr_broker_t *b, gr_partition_t *p, const gr_follower_t *f)
{
    int32_t isr[256];
    int n = 0;

    if (p->repl->altering || gr_isr_has(p->isr, p->nisr, f->id) ||
        !gr_follower_in_sync(f, p->high_watermark,
                             gr_partition_epoch_start(p)) ||
        p->nisr >= 256)
        return;
    memcpy(isr, p->isr, (size_t)p->nisr * sizeof(int32_t));
    n = p->nisr;
    isr[n++] = f->id;
    GR_LOG_INFO("%s-%d: replica %d caught up (offset %lld, high watermark "
                "%lld): adding it to the ISR",
                p->topic->name, (int)p->id, (int)f->id, (long long)f->leo,
                (long long)p->high_watermark);
    alter_isr(b, p, isr, n);
}

void
gr_repl_follower_fetched(gr_broker_t *b, gr_partition_t *p, int32_t replica,
                         int64_t broker_epoch, int64_t fetch_offset)
{
    gr_follower_t *f;
    if (p->repl == NULL)
        return;
    f = gr_partition_follower_fetch(p, replica, fetch_offset, broker_epoch,
                                    gr_mono_ms());
    if (f != NULL)
        maybe_expand(b, p, f);
}

/* Kafka's isReplicaIsrEligible, as far as we know it: the follower's
 * broker is registered (a dead one that was caught up must not hold
 * the high watermark for replica.lag.time.max.ms). */
static void
eligible(gr_broker_t *b, gr_partition_t *p)
{
    for (int i = 0; i < p->repl->nf; i++)
        p->repl->f[i].eligible =
            gr_cluster_node(b->cluster, p->repl->f[i].id) != NULL;
}

/* Partition.maybeShrinkIsr: the followers of the ISR not caught up. */
static void
maybe_shrink(gr_broker_t *b, gr_partition_t *p, int64_t now)
{
    gr_partition_repl_t *r = p->repl;
    int64_t leo = gr_log_end_offset(p->log);
    int32_t isr[256];
    int n = 0;

    if (r->altering || p->nisr > 256)
        return;
    for (int i = 0; i < p->nisr; i++) {
        const gr_follower_t *f = NULL;
        for (int k = 0; k < r->nf; k++)
            if (r->f[k].id == p->isr[i])
                f = &r->f[k];
        if (f != NULL && !gr_follower_caught_up(f, leo, now, r->lag_ms)) {
            GR_LOG_INFO("%s-%d: replica %d out of sync (offset %lld, log "
                        "end %lld, caught up %lld ms ago): leaving the ISR",
                        p->topic->name, (int)p->id, (int)f->id,
                        (long long)f->leo, (long long)leo,
                        (long long)(now - f->last_caught_up_ms));
            continue;
        }
        isr[n++] = p->isr[i];
    }
    if (n < p->nisr && n > 0)
        alter_isr(b, p, isr, n);
}

static void
expire(gr_loop_t *loop, gr_timer_t *t)
{
    struct gr_repl *r = t->data;
    gr_broker_t *b = r->bm->b;
    int64_t now = gr_mono_ms();

    for (gr_topic_t *tp = b->cluster->topics; tp; tp = tp->lnext)
        for (int32_t i = 0; i < tp->nparts; i++) {
            gr_partition_t *p = tp->parts[i];
            if (p->repl == NULL || p->log == NULL)
                continue;
            gr_repl_min_isr(b, p);
            eligible(b, p);
            maybe_shrink(b, p, now);
        }
    gr_timer_start(loop, &r->timer, r->period_ms);
}

void
gr_repl_partition_changed(gr_broker_t *b, gr_partition_t *p)
{
    int64_t lag = gr_conf_int(b->conf, GR_CONF_REPLICA_LAG_TIME_MAX_MS);
    if (gr_partition_repl_sync(p, b->node_id, lag) != 0)
        GR_LOG_WARN("%s-%d: out of memory for its followers' state",
                    p->topic->name, (int)p->id);
    if (p->repl == NULL)
        return;
    gr_repl_min_isr(b, p);
    eligible(b, p);
    /* an ISR that grew, shrank or came back: the watermark may move, a
     * waiting produce may now be answered */
    gr_partition_update_hw(p, gr_mono_ms());
    gr_partition_wake_acks(p);
}

int
gr_repl_init(struct gr_broker_meta *bm)
{
    struct gr_repl *r = calloc(1, sizeof *r);
    int64_t lag = gr_conf_int(bm->b->conf, GR_CONF_REPLICA_LAG_TIME_MAX_MS);
    if (r == NULL)
        return -1;
    r->bm = bm;
    r->period_ms = lag / 2 > 10 ? lag / 2 : 10;
    gr_timer_init(&r->timer, expire, r);
    gr_timer_start(bm->b->loop, &r->timer, r->period_ms);
    bm->repl = r;
    return 0;
}

void
gr_repl_fini(struct gr_broker_meta *bm)
{
    struct gr_repl *r = bm->repl;
    if (r == NULL)
        return;
    gr_timer_stop(bm->b->loop, &r->timer);
    while (r->alters != NULL)
        alter_end(r->alters);
    free(r);
    bm->repl = NULL;
}
