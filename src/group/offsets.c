/*
 * Committed offsets: each group's table of (topic, partition) -> offset,
 * leader epoch, metadata and timestamps, and the OffsetCommit,
 * OffsetFetch and OffsetDelete operations on it (Kafka's
 * OffsetMetadataManager for classic groups). A commit is a batch of
 * OffsetCommit records appended to the group's partition of
 * __consumer_offsets; the table changes once the append succeeded, and the
 * answer waits for a flush when the log asks for one. Loop thread only.
 */
#include "core/time.h"
#include "group/group_int.h"

#include <stdlib.h>
#include <string.h>

static uint32_t
ohash(const char *topic, int32_t tlen, int32_t partition)
{
    uint32_t h = 2166136261u;
    for (int32_t i = 0; i < tlen; i++) {
        h ^= (uint8_t)topic[i];
        h *= 16777619u;
    }
    h ^= (uint32_t)partition;
    h *= 16777619u;
    return h;
}

static bool
okey_eq(const gr_offset_t *o, const char *topic, int32_t tlen,
        int32_t partition)
{
    return o->partition == partition && strlen(o->topic) == (size_t)tlen &&
           memcmp(o->topic, topic, (size_t)tlen) == 0;
}

gr_offset_t *
gr_offsets_find(const gr_group_t *grp, const char *topic, int32_t tlen,
                int32_t partition)
{
    gr_offset_t *o;
    if (grp->ocap == 0)
        return NULL;
    o = grp->otab[ohash(topic, tlen, partition) & (grp->ocap - 1)];
    for (; o; o = o->hnext)
        if (okey_eq(o, topic, tlen, partition))
            return o;
    return NULL;
}

void
gr_offset_free(gr_offset_t *o)
{
    if (o == NULL)
        return;
    free(o->topic);
    free(o->metadata);
    free(o);
}

static void
grow(gr_group_t *grp)
{
    uint32_t n = grp->ocap ? grp->ocap * 2 : 16;
    gr_offset_t **t = calloc(n, sizeof(*t));
    GR_ASSERT(t != NULL);
    for (uint32_t i = 0; i < grp->ocap; i++) {
        gr_offset_t *o = grp->otab[i], *next;
        for (; o; o = next) {
            uint32_t b =
                ohash(o->topic, (int32_t)strlen(o->topic), o->partition) &
                (n - 1);
            next = o->hnext;
            o->hnext = t[b];
            t[b] = o;
        }
    }
    free(grp->otab);
    grp->otab = t;
    grp->ocap = n;
}

void
gr_offsets_put(gr_group_t *grp, gr_offset_t *o)
{
    int32_t tlen = (int32_t)strlen(o->topic);
    uint32_t b;
    gr_offsets_del(grp, o->topic, tlen, o->partition);
    if (grp->ocount + 1 > grp->ocap / 2 * 1 + grp->ocap / 4 || grp->ocap == 0)
        grow(grp);
    b = ohash(o->topic, tlen, o->partition) & (grp->ocap - 1);
    o->hnext = grp->otab[b];
    grp->otab[b] = o;
    grp->ocount++;
}

bool
gr_offsets_del(gr_group_t *grp, const char *topic, int32_t tlen,
               int32_t partition)
{
    gr_offset_t **pp;
    if (grp->ocap == 0)
        return false;
    pp = &grp->otab[ohash(topic, tlen, partition) & (grp->ocap - 1)];
    for (; *pp; pp = &(*pp)->hnext) {
        if (okey_eq(*pp, topic, tlen, partition)) {
            gr_offset_t *o = *pp;
            *pp = o->hnext;
            gr_offset_free(o);
            grp->ocount--;
            return true;
        }
    }
    return false;
}

void
gr_offsets_free_all(gr_group_t *grp)
{
    for (uint32_t i = 0; i < grp->ocap; i++) {
        gr_offset_t *o = grp->otab[i], *next;
        for (; o; o = next) {
            next = o->hnext;
            gr_offset_free(o);
        }
    }
    free(grp->otab);
    grp->otab = NULL;
    grp->ocap = grp->ocount = 0;
}

static int
ocmp(const void *a, const void *b)
{
    const gr_offset_t *x = *(const gr_offset_t *const *)a;
    const gr_offset_t *y = *(const gr_offset_t *const *)b;
    int c = strcmp(x->topic, y->topic);
    if (c != 0)
        return c;
    return x->partition < y->partition ? -1 : x->partition > y->partition;
}

gr_offset_t **
gr_offsets_sorted(const gr_group_t *grp, int32_t *n)
{
    gr_offset_t **v = malloc(sizeof(*v) * (grp->ocount ? grp->ocount : 1));
    int32_t k = 0;
    GR_ASSERT(v != NULL);
    for (uint32_t i = 0; i < grp->ocap; i++)
        for (gr_offset_t *o = grp->otab[i]; o; o = o->hnext)
            v[k++] = o;
    qsort(v, (size_t)k, sizeof(*v), ocmp);
    *n = k;
    return v;
}

/* --- OffsetCommit */

/* Kafka's validateOffsetCommit (non-transactional). */
static gr_kerr_t
validate_commit(gr_group_t *grp, const gr_group_commit_args_t *a)
{
    gr_kerr_t err;
    if (grp->state == GR_GROUP_DEAD)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    /* no generation while nobody is a member: a simple commit, whatever
     * member or instance id it names */
    if (a->generation_id < 0 && grp->state == GR_GROUP_EMPTY)
        return GR_KERR_NONE;
    if (a->generation_id >= 0 || a->member_id.len > 0 ||
        a->group_instance_id.len >= 0) {
        err = gr_group_validate_member(grp, &a->member_id,
                                       &a->group_instance_id, "offset-commit");
        if (err != GR_KERR_NONE)
            return err;
        if (a->generation_id != grp->generation)
            return GR_KERR_ILLEGAL_GENERATION;
        return GR_KERR_NONE;
    }
    /* a simple consumer's commit while the group has members */
    return GR_KERR_UNKNOWN_MEMBER_ID;
}

static void
fail_all(const gr_group_commit_args_t *a, gr_kerr_t err)
{
    for (int32_t i = 0; i < a->nparts; i++)
        if (a->parts[i].error == GR_KERR_NONE)
            a->parts[i].error = err;
}

static void
commit_store(gr_groups_t *g, gr_group_t *grp, const gr_group_commit_args_t *a,
             gr_group_waiter_t *w)
{
    gr_batch_builder_t bb;
    gr_buf_t k = GR_BUF_INIT, v = GR_BUF_INIT;
    int64_t now = gr_loop_wall_ms(g->loop);
    int32_t nwrite = 0;
    bool flush_due = false;
    gr_kerr_t err;
    gr_kerr_t none = GR_KERR_NONE;

    gr_batch_builder_init(&bb, 0, 0, -1, -1, -1);
    for (int32_t i = 0; i < a->nparts; i++) {
        gr_group_commit_part_t *p = &a->parts[i];
        if (p->error != GR_KERR_NONE)
            continue;
        if (p->metadata.len > g->cfg.offset_metadata_max_bytes) {
            p->error = GR_KERR_OFFSET_METADATA_TOO_LARGE;
            continue;
        }
        gr_store_add_commit(
            &bb, &k, &v, grp->id, p,
            p->commit_timestamp >= 0 ? p->commit_timestamp : now,
            a->retention_ms >= 0 ? now + a->retention_ms : -1, now);
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
    /* appended: the table follows the log */
    for (int32_t i = 0; i < a->nparts; i++) {
        gr_group_commit_part_t *p = &a->parts[i];
        gr_offset_t *o;
        if (p->error != GR_KERR_NONE)
            continue;
        o = calloc(1, sizeof(*o));
        GR_ASSERT(o != NULL);
        o->topic = gr_group_strdup(&p->topic);
        o->partition = p->partition;
        o->offset = p->offset;
        o->leader_epoch = p->leader_epoch;
        gr_offset_set_metadata(o, &p->metadata);
        GR_ASSERT(o->topic);
        o->commit_ts = p->commit_timestamp >= 0 ? p->commit_timestamp : now;
        o->expire_ts = a->retention_ms >= 0 ? now + a->retention_ms : -1;
        gr_offsets_put(grp, o);
    }
    if (flush_due)
        gr_store_flush(g, grp->partition, w);
    else
        gr_waiter_now(w, &none);
}

static void
commit_offsets(gr_groups_t *g, const gr_group_commit_args_t *a,
               gr_group_waiter_t *w)
{
    int32_t part = -1;
    gr_kerr_t err = gr_groups_validate(g, &a->group_id, true, &part);
    gr_kerr_t none = GR_KERR_NONE;
    gr_group_t *grp;

    if (err != GR_KERR_NONE) {
        fail_all(a, err);
        gr_waiter_now(w, &none);
        return;
    }
    grp = gr_groups_find(g, &a->group_id);
    if (grp == NULL) {
        if (a->generation_id >= 0) {
            /* a commit of an older generation of a group gone: from v9
             * GROUP_ID_NOT_FOUND, which both protocols understand */
            fail_all(a, a->version >= 9 ? GR_KERR_GROUP_ID_NOT_FOUND
                                        : GR_KERR_ILLEGAL_GENERATION);
            gr_waiter_now(w, &none);
            return;
        }
        /* a simple consumer: the group exists for its offsets only */
        grp = gr_groups_create(g, &a->group_id, part);
    }
    if (grp->type == GR_GROUP_TYPE_CONSUMER) {
        /* KIP-848: member epochs rather than generations */
        err = gr_cg_check_commit(grp, &a->member_id, &a->group_instance_id,
                                 a->generation_id, false, a->version, a->parts,
                                 a->nparts);
        if (err != GR_KERR_NONE) {
            fail_all(a, err);
            gr_waiter_now(w, &none);
            return;
        }
        commit_store(g, grp, a, w);
        return;
    }
    err = validate_commit(grp, a);
    if (err != GR_KERR_NONE) {
        fail_all(a, err);
        gr_waiter_now(w, &none);
        return;
    }
    switch (grp->state) {
    case GR_GROUP_EMPTY:
        break;
    case GR_GROUP_STABLE:
    case GR_GROUP_PREPARING_REBALANCE: {
        /* a commit counts as a heartbeat; during PreparingRebalance the
         * heartbeat answer tells the member to rejoin */
        gr_member_t *m = gr_group_member(grp, &a->member_id);
        if (m != NULL)
            gr_member_heartbeat(m, m->session_timeout_ms);
        break;
    }
    case GR_GROUP_COMPLETING_REBALANCE:
        fail_all(a, GR_KERR_REBALANCE_IN_PROGRESS);
        gr_waiter_now(w, &none);
        return;
    case GR_GROUP_DEAD:
        fail_all(a, GR_KERR_COORDINATOR_NOT_AVAILABLE);
        gr_waiter_now(w, &none);
        return;
    }
    commit_store(g, grp, a, w);
    /* a simple group whose every commit failed holds nothing */
    if (grp->state == GR_GROUP_EMPTY && grp->ocount == 0 && !grp->txn_offsets &&
        grp->protocol_type == NULL && !grp->has_metadata)
        gr_groups_remove(g, grp);
}

bool
gr_group_commit_offsets(gr_groups_t *g, const gr_group_commit_args_t *a,
                        gr_group_waiter_t *w)
{
    gr_waiter_begin(w);
    commit_offsets(g, a, w);
    return gr_waiter_end();
}

/* --- OffsetFetch */

gr_kerr_t
gr_group_check(gr_groups_t *g, const gr_str_t *group_id, bool allow_empty)
{
    int32_t part;
    return gr_groups_validate(g, group_id, allow_empty, &part);
}

gr_kerr_t
gr_group_check_member(gr_groups_t *g, const gr_str_t *group_id,
                      const gr_str_t *member_id, int32_t epoch)
{
    gr_group_t *grp = gr_groups_find(g, group_id);
    gr_kerr_t err;
    if (grp == NULL || grp->type != GR_GROUP_TYPE_CONSUMER)
        return GR_KERR_NONE;
    err = gr_cg_validate_fetch(grp, member_id, epoch);
    if (err != GR_KERR_NONE)
        GR_LOG_INFO("group %s: offset fetch of member %.*s at epoch %d: %s",
                    grp->id, member_id->len > 0 ? (int)member_id->len : 0,
                    member_id->len > 0 ? member_id->ptr : "", (int)epoch,
                    gr_kerr_name(err));
    return err;
}

void
gr_group_offset_get(gr_groups_t *g, const gr_str_t *group_id,
                    const gr_str_t *topic, int32_t partition,
                    bool require_stable, gr_group_offset_t *out)
{
    gr_group_t *grp = gr_groups_find(g, group_id);
    gr_offset_t *o = NULL;
    out->offset = -1;
    out->leader_epoch = -1;
    out->metadata = GR_STR("");
    out->error = GR_KERR_NONE;
    /* an offset a transaction holds: not stable yet (KIP-447) */
    if (require_stable && grp != NULL && topic->len >= 0 &&
        gr_group_txn_pending(grp, topic->ptr, topic->len, partition)) {
        out->error = GR_KERR_UNSTABLE_OFFSET_COMMIT;
        return;
    }
    if (grp != NULL && topic->len >= 0)
        o = gr_offsets_find(grp, topic->ptr, topic->len, partition);
    if (o != NULL) {
        out->offset = o->offset;
        out->leader_epoch = o->leader_epoch;
        out->metadata = (gr_str_t){ o->metadata, o->metadata_len };
    }
}

void
gr_group_offsets_foreach(gr_groups_t *g, const gr_str_t *group_id,
                         bool require_stable, gr_group_offset_cb cb, void *arg)
{
    gr_group_t *grp = gr_groups_find(g, group_id);
    gr_offset_t **v;
    int32_t n;
    if (grp == NULL)
        return;
    v = gr_offsets_sorted(grp, &n);
    for (int32_t i = 0; i < n; i++) {
        gr_group_offset_t o = { v[i]->offset, v[i]->leader_epoch,
                                { v[i]->metadata, v[i]->metadata_len },
                                GR_KERR_NONE };
        if (require_stable &&
            gr_group_txn_pending(grp, v[i]->topic,
                                 (int32_t)strlen(v[i]->topic),
                                 v[i]->partition))
            o = (gr_group_offset_t){ -1, -1, GR_STR(""),
                                     GR_KERR_UNSTABLE_OFFSET_COMMIT };
        cb(arg, v[i]->topic, v[i]->partition, &o);
    }
    free(v);
}

/* --- OffsetDelete */

/* Kafka's ConsumerGroup.validateOffsetDelete allows any state; a topic
 * the group subscribes to is GROUP_SUBSCRIBED_TO_TOPIC. */
static gr_kerr_t
delete_consumer_offsets(gr_group_t *grp, gr_group_delete_part_t *parts,
                        int32_t n)
{
    gr_offset_t **del = malloc(sizeof(*del) * (size_t)(n > 0 ? n : 1));
    int32_t ndel = 0;
    gr_kerr_t err = GR_KERR_NONE;
    GR_ASSERT(del != NULL);
    for (int32_t i = 0; i < n; i++) {
        gr_group_delete_part_t *p = &parts[i];
        gr_offset_t *o;
        char *topic;
        bool dup = false;
        if (p->error != GR_KERR_NONE || p->topic.len < 0)
            continue;
        topic = gr_group_strdup(&p->topic);
        GR_ASSERT(topic != NULL);
        if (gr_cg_subscribed_to(grp->cg, topic)) {
            p->error = GR_KERR_GROUP_SUBSCRIBED_TO_TOPIC;
            free(topic);
            continue;
        }
        free(topic);
        o = gr_offsets_find(grp, p->topic.ptr, p->topic.len, p->partition);
        for (int32_t k = 0; o && k < ndel; k++)
            dup |= del[k] == o;
        if (o && !dup)
            del[ndel++] = o;
    }
    if (ndel > 0) {
        err = gr_store_tombstones(grp, del, ndel, false);
        if (err == GR_KERR_NONE)
            for (int32_t k = 0; k < ndel; k++)
                gr_offsets_del(grp, del[k]->topic,
                               (int32_t)strlen(del[k]->topic),
                               del[k]->partition);
    }
    free(del);
    return err;
}

gr_kerr_t
gr_group_delete_offsets(gr_groups_t *g, const gr_str_t *group_id,
                        gr_group_delete_part_t *parts, int32_t n)
{
    int32_t part;
    /* "" is INVALID_GROUP_ID here, unlike for the other offset APIs:
     * Kafka's GroupCoordinatorService.deleteOffsets checks
     * isGroupIdNotEmpty, commitOffsets and fetchOffsets only null */
    gr_kerr_t err = gr_groups_validate(g, group_id, false, &part);
    gr_group_t *grp;
    gr_offset_t **del;
    int32_t ndel = 0;
    bool consumer;

    if (err != GR_KERR_NONE)
        return err;
    grp = gr_groups_find(g, group_id);
    if (grp == NULL || grp->state == GR_GROUP_DEAD)
        return GR_KERR_GROUP_ID_NOT_FOUND;
    consumer = grp->protocol_type != NULL &&
               strcmp(grp->protocol_type, "consumer") == 0;
    if (grp->type == GR_GROUP_TYPE_CONSUMER)
        return delete_consumer_offsets(grp, parts, n);
    if (grp->state != GR_GROUP_EMPTY && !consumer)
        return GR_KERR_NON_EMPTY_GROUP;
    del = malloc(sizeof(*del) * (size_t)(n > 0 ? n : 1));
    GR_ASSERT(del != NULL);
    for (int32_t i = 0; i < n; i++) {
        gr_group_delete_part_t *p = &parts[i];
        gr_offset_t *o;
        char *topic;
        if (p->error != GR_KERR_NONE)
            continue;
        topic = gr_group_strdup(&p->topic);
        if (grp->state != GR_GROUP_EMPTY && topic &&
            gr_group_subscribed_to(grp, topic)) {
            p->error = GR_KERR_GROUP_SUBSCRIBED_TO_TOPIC;
            free(topic);
            continue;
        }
        free(topic);
        o = p->topic.len >= 0
                ? gr_offsets_find(grp, p->topic.ptr, p->topic.len, p->partition)
                : NULL;
        if (o != NULL) {
            bool dup = false;
            for (int32_t k = 0; k < ndel; k++)
                dup |= del[k] == o;
            if (!dup)
                del[ndel++] = o;
        }
    }
    if (ndel > 0) {
        err = gr_store_tombstones(grp, del, ndel, false);
        if (err == GR_KERR_NONE)
            for (int32_t k = 0; k < ndel; k++)
                gr_offsets_del(grp, del[k]->topic,
                               (int32_t)strlen(del[k]->topic),
                               del[k]->partition);
    }
    free(del);
    if (err != GR_KERR_NONE)
        return err;
    /* an Empty group with no offsets left is Dead (Kafka's
     * cleanupGroupMetadata) */
    if (grp->state == GR_GROUP_EMPTY && grp->ocount == 0 && !grp->txn_offsets) {
        gr_store_tombstones(grp, NULL, 0, true);
        gr_groups_remove(g, grp);
    }
    return GR_KERR_NONE;
}
