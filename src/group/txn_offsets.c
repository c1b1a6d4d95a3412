/*
 * Transactional offset commits (TxnOffsetCommit, KIP-98): a transactional
 * producer commits a group's offsets inside its transaction. The offsets
 * are appended to the group's partition of __consumer_offsets as a
 * transactional batch of the producer (its id and epoch), and stay pending
 * per producer: OffsetFetch does not see them (require_stable answers
 * UNSTABLE_OFFSET_COMMIT) until the transaction's COMMIT marker reaches
 * that partition, when they become the group's committed offsets; an ABORT
 * marker drops them (Kafka's GroupMetadata.prepareTxnOffsetCommit,
 * completePendingTxnOffsetCommit). The markers are the transaction
 * coordinator's (src/txn/markers.c), reported through
 * gr_groups_txn_complete; the start-up load replays both.
 * Loop thread only.
 */
#include "core/time.h"
#include "group/group_int.h"
#include "log/producer_state.h"

#include <stdlib.h>
#include <string.h>

/* A pending offset of producer pid (o's topic/partition). */
struct gr_txn_offset {
    gr_txn_offset_t *next;
    int64_t pid;
    gr_offset_t *o;
};

void
gr_group_txn_put(gr_group_t *grp, int64_t pid, gr_offset_t *o)
{
    gr_txn_offset_t *t;
    for (t = grp->txn_offsets; t; t = t->next)
        if (t->pid == pid && t->o->partition == o->partition &&
            strcmp(t->o->topic, o->topic) == 0) {
            gr_offset_free(t->o); /* the later commit of the same txn */
            t->o = o;
            return;
        }
    t = calloc(1, sizeof(*t));
    GR_ASSERT(t != NULL);
    t->pid = pid;
    t->o = o;
    t->next = grp->txn_offsets;
    grp->txn_offsets = t;
}

bool
gr_group_txn_pending(const gr_group_t *grp, const char *topic, int32_t tlen,
                     int32_t partition)
{
    for (const gr_txn_offset_t *t = grp->txn_offsets; t; t = t->next)
        if (t->o->partition == partition &&
            strlen(t->o->topic) == (size_t)tlen &&
            memcmp(t->o->topic, topic, (size_t)tlen) == 0)
            return true;
    return false;
}

/* Commits or drops grp's pending offsets of pid. */
static void
complete(gr_group_t *grp, int64_t pid, bool commit)
{
    gr_txn_offset_t **pp = &grp->txn_offsets;
    while (*pp) {
        gr_txn_offset_t *t = *pp;
        if (t->pid != pid) {
            pp = &t->next;
            continue;
        }
        *pp = t->next;
        if (commit)
            gr_offsets_put(grp, t->o);
        else
            gr_offset_free(t->o);
        free(t);
    }
}

void
gr_group_txn_free_all(gr_group_t *grp)
{
    while (grp->txn_offsets) {
        gr_txn_offset_t *t = grp->txn_offsets;
        grp->txn_offsets = t->next;
        gr_offset_free(t->o);
        free(t);
    }
}

void
gr_groups_txn_complete(gr_groups_t *g, int32_t partition, int64_t pid,
                       bool commit)
{
    /* a partition still loading replays the marker itself */
    if (partition >= 0 && partition < g->nparts &&
        g->parts[partition].state == PART_LOADING)
        return;
    gr_groups_txn_marker(g, partition, pid, commit);
}

void
gr_groups_txn_marker(gr_groups_t *g, int32_t partition, int64_t pid,
                     bool commit)
{
    for (uint32_t i = 0; i < g->hsize; i++)
        for (gr_group_t *grp = g->htab[i]; grp; grp = grp->hnext)
            if (grp->partition == partition && grp->txn_offsets)
                complete(grp, pid, commit);
}

/* Kafka's doTxnCommitOffsets checks: the member and generation only when
 * given (a producer outside the group may commit for it). */
static gr_kerr_t
validate(gr_group_t *grp, const gr_group_txn_commit_args_t *a)
{
    if (grp->state == GR_GROUP_DEAD)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    if (gr_group_static_fenced(grp, &a->member_id, &a->group_instance_id))
        return GR_KERR_FENCED_INSTANCE_ID;
    if (a->member_id.len > 0 && gr_group_member(grp, &a->member_id) == NULL)
        return GR_KERR_UNKNOWN_MEMBER_ID;
    if (a->generation_id >= 0 && a->generation_id != grp->generation)
        return GR_KERR_ILLEGAL_GENERATION;
    return GR_KERR_NONE;
}

static void
fail_all(const gr_group_txn_commit_args_t *a, gr_kerr_t err)
{
    for (int32_t i = 0; i < a->nparts; i++)
        if (a->parts[i].error == GR_KERR_NONE)
            a->parts[i].error = err;
}

static gr_offset_t *
offset_new(const gr_group_commit_part_t *p, int64_t now)
{
    gr_offset_t *o = calloc(1, sizeof(*o));
    GR_ASSERT(o != NULL);
    o->topic = gr_group_strdup(&p->topic);
    o->partition = p->partition;
    o->offset = p->offset;
    o->leader_epoch = p->leader_epoch;
    gr_offset_set_metadata(o, &p->metadata);
    GR_ASSERT(o->topic);
    o->commit_ts = now;
    o->expire_ts = -1;
    return o;
}

static void
txn_commit(gr_groups_t *g, const gr_group_txn_commit_args_t *a,
           gr_group_waiter_t *w)
{
    int32_t part = -1, nwrite = 0;
    gr_kerr_t err = gr_groups_validate(g, &a->group_id, false, &part);
    gr_kerr_t none = GR_KERR_NONE;
    gr_batch_builder_t bb;
    gr_buf_t k = GR_BUF_INIT, v = GR_BUF_INIT;
    int64_t now = gr_loop_wall_ms(g->loop);
    bool flush_due = false;
    gr_group_t *grp;

    if (err != GR_KERR_NONE) {
        fail_all(a, err);
        gr_waiter_now(w, &none);
        return;
    }
    grp = gr_groups_find(g, &a->group_id);
    if (grp == NULL) /* Kafka: an Empty group is made for the offsets */
        grp = gr_groups_create(g, &a->group_id, part);
    if (grp->type == GR_GROUP_TYPE_CONSUMER) {
        err = gr_cg_check_commit(grp, &a->member_id, &a->group_instance_id,
                                 a->generation_id, true, a->version, a->parts,
                                 a->nparts);
        /* STALE_MEMBER_EPOCH exists for TxnOffsetCommit from v6 */
        if (err == GR_KERR_STALE_MEMBER_EPOCH && a->version < 6)
            err = GR_KERR_ILLEGAL_GENERATION;
    } else {
        err = validate(grp, a);
    }
    if (err != GR_KERR_NONE) {
        fail_all(a, err);
        gr_waiter_now(w, &none);
        return;
    }
    /* one transactional batch of the producer (Kafka's storeOffsets with
     * a producer id: base sequence 0, not checked for coordinator
     * appends) */
    gr_batch_builder_init(&bb, 0, GR_ATTR_TRANSACTIONAL, a->producer_id,
                          a->producer_epoch, 0);
    for (int32_t i = 0; i < a->nparts; i++) {
        gr_group_commit_part_t *p = &a->parts[i];
        if (p->error != GR_KERR_NONE)
            continue;
        if (p->metadata.len > g->cfg.offset_metadata_max_bytes) {
            p->error = GR_KERR_OFFSET_METADATA_TOO_LARGE;
            continue;
        }
        gr_store_add_commit(&bb, &k, &v, grp->id, p, now, -1, now);
        nwrite++;
    }
    gr_buf_fini(&k);
    gr_buf_fini(&v);
    if (nwrite == 0) {
        gr_batch_builder_fini(&bb);
        gr_waiter_now(w, &none);
        return;
    }
    err = gr_store_append(g, grp->partition, &bb, &flush_due);
    gr_batch_builder_fini(&bb);
    if (err != GR_KERR_NONE) {
        fail_all(a, err);
        gr_waiter_now(w, &none);
        return;
    }
    /* appended: pending until the transaction's marker */
    for (int32_t i = 0; i < a->nparts; i++)
        if (a->parts[i].error == GR_KERR_NONE)
            gr_group_txn_put(grp, a->producer_id,
                             offset_new(&a->parts[i], now));
    if (flush_due)
        gr_store_flush(g, grp->partition, w);
    else
        gr_waiter_now(w, &none);
}

bool
gr_group_txn_commit_offsets(gr_groups_t *g, const gr_group_txn_commit_args_t *a,
                            gr_group_waiter_t *w)
{
    gr_waiter_begin(w);
    txn_commit(g, a, w);
    return gr_waiter_end();
}
