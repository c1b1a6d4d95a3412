/*
 * The coordinator: the table of groups, which __consumer_offsets partition
 * each lives on and whether this broker coordinates it, the start-up load
 * of those partitions, the offset retention pass and ListGroups.
 *
 * Loading: every partition led here starts LOADING; a zero-delay timer
 * reads load_bytes_per_turn bytes of one partition per loop turn (a slice
 * from the log, pread into a buffer, whole batches applied record by
 * record: latest value per key wins, tombstones delete), so the loop keeps
 * serving meanwhile. A partition becomes LOADED once the load reaches its
 * log end (groups do not write to a LOADING partition: every writer goes
 * through a group of a LOADED partition; the transaction coordinator may
 * append markers meanwhile, which the load then replays: control batches
 * commit or drop the pending transactional offsets of their producer,
 * txn_offsets.c). Requests for a group of a LOADING partition get
 * COORDINATOR_LOAD_IN_PROGRESS.
 * Loop thread only.
 */
#include "core/conf.h"
#include "core/time.h"
#include "group/group_int.h"
#include "log/log.h"
#include "proto/wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OFFSETS_TOPIC "__consumer_offsets"

static void load_tick(gr_loop_t *loop, gr_timer_t *t);
static void retention_tick(gr_loop_t *loop, gr_timer_t *t);

gr_groups_t *
gr_groups_new(gr_loop_t *loop, gr_cluster_t *cluster, int32_t node_id,
              const gr_groups_config_t *cfg)
{
    gr_groups_t *g = calloc(1, sizeof(*g));
    if (g == NULL)
        return NULL;
    g->loop = loop;
    g->cluster = cluster;
    g->node_id = node_id;
    g->cfg = *cfg;
    if (g->cfg.load_bytes_per_turn <= 0)
        g->cfg.load_bytes_per_turn = 1 << 20;
    if (g->cfg.new_member_join_timeout_ms <= 0)
        g->cfg.new_member_join_timeout_ms = 5 * 60 * 1000;
    if (g->cfg.consumer_nassignors == 0) {
        /* group.consumer.* not given (tests): Kafka's defaults */
        g->cfg.consumer_session_timeout_ms = 45000;
        g->cfg.consumer_heartbeat_interval_ms = 5000;
        g->cfg.consumer_max_size = INT32_MAX;
        g->cfg.consumer_assignment_interval_ms = 1000;
        g->cfg.consumer_regex_refresh_interval_ms = 600000;
        snprintf(g->cfg.consumer_assignors[0], 8, "uniform");
        snprintf(g->cfg.consumer_assignors[1], 8, "range");
        g->cfg.consumer_nassignors = 2;
    }
    g->hsize = 64;
    g->htab = calloc(g->hsize, sizeof(*g->htab));
    g->a = gr_arena_new(16 * 1024);
    if (g->htab == NULL || g->a == NULL) {
        gr_groups_destroy(g);
        return NULL;
    }
    gr_timer_init(&g->load_timer, load_tick, g);
    gr_timer_init_virtual(&g->retention_timer, retention_tick, g);
    return g;
}

void
gr_groups_destroy(gr_groups_t *g)
{
    if (g == NULL)
        return;
    for (uint32_t i = 0; i < g->hsize && g->htab; i++) {
        gr_group_t *grp = g->htab[i], *next;
        for (; grp; grp = next) {
            next = grp->hnext;
            gr_group_fail_waiters(grp, GR_KERR_COORDINATOR_NOT_AVAILABLE);
            gr_group_free(grp);
        }
    }
    if (g->loop) {
        gr_timer_stop(g->loop, &g->load_timer);
        gr_timer_stop(g->loop, &g->retention_timer);
    }
    free(g->htab);
    free(g->parts);
    gr_buf_fini(&g->rbuf);
    gr_buf_fini(&g->scratch);
    gr_arena_destroy(g->a);
    free(g);
}

/* --- the table */

gr_group_t *
gr_groups_find(gr_groups_t *g, const gr_str_t *id)
{
    gr_group_t *grp;
    if (id->len < 0)
        return NULL;
    grp = g->htab[gr_hash(id->ptr, (size_t)id->len) & (g->hsize - 1)];
    for (; grp; grp = grp->hnext)
        if (gr_str_eq_cstr(id, grp->id))
            return grp;
    return NULL;
}

static void
rehash(gr_groups_t *g)
{
    uint32_t n = g->hsize * 2;
    gr_group_t **t = calloc(n, sizeof(*t));
    if (t == NULL)
        return; /* longer chains; still correct */
    for (uint32_t i = 0; i < g->hsize; i++) {
        gr_group_t *grp = g->htab[i], *next;
        for (; grp; grp = next) {
            uint32_t b = gr_hash(grp->id, strlen(grp->id)) & (n - 1);
            next = grp->hnext;
            grp->hnext = t[b];
            t[b] = grp;
        }
    }
    free(g->htab);
    g->htab = t;
    g->hsize = n;
}

gr_group_t *
gr_groups_create(gr_groups_t *g, const gr_str_t *id, int32_t partition)
{
    gr_group_t *grp = calloc(1, sizeof(*grp));
    uint32_t b;
    GR_ASSERT(grp != NULL);
    grp->g = g;
    grp->id = gr_group_strdup(id);
    GR_ASSERT(grp->id != NULL);
    grp->partition = partition;
    grp->state = GR_GROUP_EMPTY;
    grp->state_ts = gr_loop_wall_ms(g->loop);
    gr_timer_init_virtual(&grp->join_timer, NULL, grp);
    gr_timer_init_virtual(&grp->sync_timer, NULL, grp);
    if (g->count + 1 > g->hsize)
        rehash(g);
    b = gr_hash(grp->id, strlen(grp->id)) & (g->hsize - 1);
    grp->hnext = g->htab[b];
    g->htab[b] = grp;
    g->count++;
    return grp;
}

void
gr_groups_remove(gr_groups_t *g, gr_group_t *grp)
{
    gr_group_t **pp =
        &g->htab[gr_hash(grp->id, strlen(grp->id)) & (g->hsize - 1)];
    while (*pp && *pp != grp)
        pp = &(*pp)->hnext;
    GR_ASSERT(*pp == grp);
    *pp = grp->hnext;
    g->count--;
    gr_group_fail_waiters(grp, GR_KERR_NOT_COORDINATOR);
    gr_group_free(grp);
}

const char *
gr_group_state_str(gr_group_state_t s)
{
    switch (s) {
    case GR_GROUP_EMPTY:
        return "Empty";
    case GR_GROUP_PREPARING_REBALANCE:
        return "PreparingRebalance";
    case GR_GROUP_COMPLETING_REBALANCE:
        return "CompletingRebalance";
    case GR_GROUP_STABLE:
        return "Stable";
    case GR_GROUP_DEAD:
        return "Dead";
    }
    return "Dead";
}

const char *
gr_group_state_name(gr_groups_t *g, const gr_str_t *group_id)
{
    gr_group_t *grp = gr_groups_find(g, group_id);
    if (grp != NULL && grp->type == GR_GROUP_TYPE_CONSUMER)
        return gr_cg_state_str(grp->cg);
    return grp ? gr_group_state_str(grp->state) : "Dead";
}

static gr_groups_part_t *
part_state(gr_groups_t *g, int32_t id)
{
    if (id < 0)
        return NULL;
    if (id >= g->nparts) {
        int32_t n = id + 1;
        gr_groups_part_t *p = realloc(g->parts, sizeof(*p) * (size_t)n);
        GR_ASSERT(p != NULL);
        memset(p + g->nparts, 0, sizeof(*p) * (size_t)(n - g->nparts));
        g->parts = p;
        g->nparts = n;
    }
    return &g->parts[id];
}

gr_kerr_t
gr_groups_validate(gr_groups_t *g, const gr_str_t *id, bool allow_empty,
                   int32_t *partition)
{
    gr_topic_t *t;
    gr_partition_t *p;
    int32_t part;

    if (id->len < 0 || (id->len == 0 && !allow_empty))
        return GR_KERR_INVALID_GROUP_ID;
    /* groups are kept under C-string ids: one with a NUL byte would be
     * taken for another (docs/compatibility.md; Kafka accepts it) */
    if (id->len > 0 && memchr(id->ptr, '\0', (size_t)id->len) != NULL) {
        GR_LOG_WARN("group id of %d bytes with a NUL byte at %d: refused "
                    "(INVALID_GROUP_ID)",
                    (int)id->len,
                    (int)((const char *)memchr(id->ptr, '\0',
                                               (size_t)id->len) -
                          id->ptr));
        return GR_KERR_INVALID_GROUP_ID;
    }
    t = gr_cluster_topic_cstr(g->cluster, OFFSETS_TOPIC);
    if (t == NULL || t->nparts <= 0)
        return GR_KERR_NOT_COORDINATOR; /* FindCoordinator creates it */
    part = gr_cluster_coord_partition(id, t->nparts);
    p = t->parts[part];
    if (part < g->nparts && g->parts[part].state == PART_LOADING)
        return GR_KERR_COORDINATOR_LOAD_IN_PROGRESS;
    if (p->leader != g->node_id || part >= g->nparts ||
        g->parts[part].state != PART_LOADED)
        return GR_KERR_NOT_COORDINATOR;
    if (p->log == NULL)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    *partition = part;
    return GR_KERR_NONE;
}

/* --- loading */

bool
gr_groups_loading(const gr_groups_t *g)
{
    for (int32_t i = 0; i < g->nparts; i++)
        if (g->parts[i].state == PART_LOADING)
            return true;
    return false;
}

static void
partition_loaded(gr_groups_t *g, int32_t id)
{
    int ngroups = 0;
    g->parts[id].state = PART_LOADED;
    for (uint32_t i = 0; i < g->hsize; i++) {
        gr_group_t *grp = g->htab[i], *next;
        for (; grp; grp = next) {
            next = grp->hnext;
            if (grp->partition != id)
                continue;
            if (grp->type == GR_GROUP_TYPE_CONSUMER) {
                gr_cg_loaded(grp);
                ngroups++;
                continue;
            }
            if (!grp->has_metadata && grp->ocount == 0 && !grp->txn_offsets) {
                /* a tombstoned group without offsets */
                gr_groups_remove(g, grp);
                continue;
            }
            gr_group_loaded(grp);
            ngroups++;
        }
    }
    if (g->parts[id].end_offset > 0)
        GR_LOG_INFO("loaded %d group(s) from %s-%d (up to offset %lld)",
                    ngroups, OFFSETS_TOPIC, id,
                    (long long)g->parts[id].end_offset);
}

typedef struct load_ctx {
    gr_groups_t *g;
    int32_t partition;
} load_ctx_t;

static int
load_record(void *arg, const gr_batch_hdr_t *h, const gr_record_t *r)
{
    load_ctx_t *lc = arg;
    gr_store_apply(lc->g, lc->partition, r,
                   (h->attributes & GR_ATTR_TRANSACTIONAL) ? h->producer_id
                                                           : -1);
    return 0;
}

/* A transaction marker (control batch): pending offsets of its producer
 * are committed or dropped. */
static int
load_marker(void *arg, const gr_batch_hdr_t *h, const gr_record_t *r)
{
    load_ctx_t *lc = arg;
    if (r->key.len >= 4 && gr_get_u16(r->key.ptr) == 0)
        gr_groups_txn_marker(lc->g, lc->partition, h->producer_id,
                               gr_get_u16(r->key.ptr + 2) == GR_CONTROL_COMMIT);
    return 1;
}

/* Loads up to budget bytes of partition id; true when it is done. */
static bool
load_some(gr_groups_t *g, int32_t id, int32_t budget)
{
    gr_groups_part_t *ps = &g->parts[id];
    gr_partition_t *p = gr_groups_partition(g, id);
    gr_log_slice_t sl;
    size_t pos = 0;
    gr_err_t rc;
    load_ctx_t lc = { g, id };

    if (p == NULL || p->log == NULL)
        return true;
    if (ps->next_offset < gr_log_start_offset(p->log))
        ps->next_offset = gr_log_start_offset(p->log);
    /* markers the transaction coordinator appends meanwhile are loaded
     * too: the load goes on to the current log end */
    ps->end_offset = gr_log_end_offset(p->log);
    if (ps->next_offset >= ps->end_offset)
        return true;
    rc =
        gr_log_read(p->log, ps->next_offset, budget, ps->end_offset, true, &sl);
    if (rc != 0 || sl.len <= 0) {
        if (rc != 0)
            GR_LOG_ERROR("loading %s-%d at %lld: %s", OFFSETS_TOPIC, id,
                         (long long)ps->next_offset, gr_err_str(rc));
        return true;
    }
    gr_buf_reset(&g->rbuf);
    if (gr_buf_reserve(&g->rbuf, (size_t)sl.len) != 0 ||
        pread(sl.file->fd, g->rbuf.ptr, (size_t)sl.len, sl.pos) != sl.len) {
        GR_LOG_ERROR("loading %s-%d: cannot read %d bytes", OFFSETS_TOPIC, id,
                     sl.len);
        return true;
    }
    g->rbuf.len = (size_t)sl.len;
    while (pos + GR_BATCH_HEADER_SIZE <= g->rbuf.len) {
        gr_batch_hdr_t h;
        size_t n;
        gr_batch_hdr_parse(g->rbuf.ptr + pos, &h);
        n = gr_batch_size(&h);
        if (h.length <= 0 || pos + n > g->rbuf.len)
            break; /* the slice ends inside a batch: read it next turn */
        if (gr_batch_last_offset(&h) >= ps->next_offset && h.magic == 2 &&
            (h.attributes & GR_ATTR_CONTROL))
            gr_batch_foreach_record(g->rbuf.ptr + pos, n, &g->scratch, 1u << 16,
                                    load_marker, &lc);
        else if (gr_batch_last_offset(&h) >= ps->next_offset && h.magic == 2) {
            gr_kerr_t k = gr_batch_foreach_record(
                g->rbuf.ptr + pos, n, &g->scratch, 64u << 20, load_record, &lc);
            if (k != GR_KERR_NONE)
                GR_LOG_WARN("loading %s-%d: batch at %lld: %s", OFFSETS_TOPIC,
                            id, (long long)h.base_offset, gr_kerr_name(k));
        }
        ps->next_offset = gr_batch_last_offset(&h) + 1;
        pos += n;
    }
    if (pos == 0) {
        GR_LOG_ERROR("loading %s-%d at %lld: no whole batch", OFFSETS_TOPIC, id,
                     (long long)ps->next_offset);
        return true;
    }
    return ps->next_offset >= ps->end_offset;
}

/* One turn of loading; true when nothing is left to load. */
static bool
load_turn(gr_groups_t *g)
{
    for (int32_t i = 0; i < g->nparts; i++) {
        if (g->parts[i].state != PART_LOADING)
            continue;
        if (load_some(g, i, g->cfg.load_bytes_per_turn))
            partition_loaded(g, i);
        return false;
    }
    return true;
}

static void
load_tick(gr_loop_t *loop, gr_timer_t *t)
{
    gr_groups_t *g = t->data;
    if (!load_turn(g))
        gr_timer_start(loop, t, 0);
}

void
gr_groups_load_all_now(gr_groups_t *g)
{
    while (!load_turn(g))
        ;
    gr_timer_stop(g->loop, &g->load_timer);
}

void
gr_groups_partition_added(gr_groups_t *g, gr_partition_t *p)
{
    gr_groups_part_t *ps;
    if (strcmp(p->topic->name, OFFSETS_TOPIC) != 0 || p->leader != g->node_id ||
        p->log == NULL)
        return;
    ps = part_state(g, p->id);
    ps->next_offset = gr_log_start_offset(p->log);
    ps->end_offset = gr_log_end_offset(p->log);
    if (ps->next_offset >= ps->end_offset) {
        ps->state = PART_LOADED;
        return;
    }
    ps->state = PART_LOADING;
    if (!gr_timer_armed(&g->load_timer))
        gr_timer_start(g->loop, &g->load_timer, 0);
}

void
gr_groups_partition_removed(gr_groups_t *g, gr_partition_t *p)
{
    if (strcmp(p->topic->name, OFFSETS_TOPIC) != 0 || p->id >= g->nparts)
        return;
    g->parts[p->id].state = PART_NONE;
    for (uint32_t i = 0; i < g->hsize; i++) {
        gr_group_t *grp = g->htab[i], *next;
        for (; grp; grp = next) {
            next = grp->hnext;
            if (grp->partition == p->id)
                gr_groups_remove(g, grp);
        }
    }
}

void
gr_groups_start(gr_groups_t *g)
{
    gr_topic_t *t = gr_cluster_topic_cstr(g->cluster, OFFSETS_TOPIC);
    if (t != NULL)
        for (int32_t i = 0; i < t->nparts; i++)
            gr_groups_partition_added(g, t->parts[i]);
    if (gr_groups_loading(g))
        GR_LOG_INFO("loading groups and offsets from %s", OFFSETS_TOPIC);
    gr_timer_start(g->loop, &g->retention_timer,
                   g->cfg.retention_check_interval_ms);
}

/* --- retention (Kafka's GroupMetadataManager.cleanupGroupMetadata) */

static bool
offset_expired(const gr_offset_t *o, int64_t base, int64_t now,
               int64_t retention)
{
    if (o->expire_ts >= 0)
        return now >= o->expire_ts; /* v1 records: explicit expiry */
    return now - base >= retention;
}

/* Kafka's ConsumerGroup.offsetExpirationCondition: the offsets of topics
 * the group no longer subscribes to, by their commit time; an Empty group
 * left without offsets is deleted (maybeDeleteGroup). */
static int
expire_consumer_group(gr_groups_t *g, gr_group_t *grp, int64_t now)
{
    gr_offset_t **v, **del;
    int32_t n, ndel = 0;
    bool gone;

    v = gr_offsets_sorted(grp, &n);
    del = malloc(sizeof(*del) * (size_t)(n ? n : 1));
    GR_ASSERT(del != NULL);
    for (int32_t i = 0; i < n; i++)
        if (!gr_cg_subscribed_to(grp->cg, v[i]->topic) &&
            offset_expired(v[i], v[i]->commit_ts, now,
                           g->cfg.offsets_retention_ms))
            del[ndel++] = v[i];
    if (ndel > 0 &&
        gr_store_tombstones(grp, del, ndel, false) == GR_KERR_NONE) {
        for (int32_t i = 0; i < ndel; i++)
            gr_offsets_del(grp, del[i]->topic, (int32_t)strlen(del[i]->topic),
                           del[i]->partition);
        GR_LOG_INFO("removed %d expired offset(s) of group %s", ndel, grp->id);
    } else {
        ndel = 0;
    }
    free(v);
    free(del);
    if (grp->cg->nmembers == 0 && grp->ocount == 0 && !grp->txn_offsets) {
        gr_arena_t *a = gr_arena_new(1024);
        gr_cg_recs_t rs = { a, NULL, 0, 0 };
        GR_ASSERT(a != NULL);
        gr_cg_tombstones(grp, &rs);
        GR_LOG_INFO("consumer group %s is Empty without offsets: deleted",
                    grp->id);
        if (gr_cg_commit(grp, &rs, &gone) == GR_KERR_NONE && !gone)
            gr_groups_remove(g, grp);
        gr_arena_destroy(a);
    }
    return ndel;
}

static int
expire_group(gr_groups_t *g, gr_group_t *grp, int64_t now)
{
    gr_offset_t **v, **del;
    int32_t n, ndel = 0;
    bool consumer_stable;
    int removed = 0;

    if (grp->type == GR_GROUP_TYPE_CONSUMER)
        return expire_consumer_group(g, grp, now);
    v = gr_offsets_sorted(grp, &n);
    del = malloc(sizeof(*del) * (size_t)(n ? n : 1));
    GR_ASSERT(del != NULL);
    consumer_stable = grp->protocol_type != NULL &&
                      strcmp(grp->protocol_type, "consumer") == 0 &&
                      grp->subscribed_known && grp->state == GR_GROUP_STABLE;
    for (int32_t i = 0; i < n; i++) {
        gr_offset_t *o = v[i];
        if (grp->protocol_type != NULL && grp->state == GR_GROUP_EMPTY) {
            /* no member: retention counts from when the group became
             * Empty (or from the commit when that is unknown) */
            int64_t base = grp->state_ts >= 0 ? grp->state_ts : o->commit_ts;
            if (offset_expired(o, base, now, g->cfg.offsets_retention_ms))
                del[ndel++] = o;
        } else if (consumer_stable) {
            /* offsets of topics no longer subscribed to */
            if (!gr_group_subscribed_to(grp, o->topic) &&
                offset_expired(o, o->commit_ts, now,
                               g->cfg.offsets_retention_ms))
                del[ndel++] = o;
        } else if (grp->protocol_type == NULL) {
            /* a simple consumer's offsets */
            if (offset_expired(o, o->commit_ts, now,
                               g->cfg.offsets_retention_ms))
                del[ndel++] = o;
        }
    }
    if (ndel > 0 &&
        gr_store_tombstones(grp, del, ndel, false) == GR_KERR_NONE) {
        for (int32_t i = 0; i < ndel; i++)
            gr_offsets_del(grp, del[i]->topic, (int32_t)strlen(del[i]->topic),
                           del[i]->partition);
        removed = ndel;
        GR_LOG_INFO("removed %d expired offset(s) of group %s", ndel, grp->id);
    }
    free(v);
    free(del);
    if (grp->state == GR_GROUP_EMPTY && grp->ocount == 0 && !grp->txn_offsets) {
        GR_LOG_INFO("group %s transitioned to Dead in generation %d", grp->id,
                    grp->generation);
        gr_store_tombstones(grp, NULL, 0, true);
        gr_groups_remove(g, grp);
    }
    return removed;
}

int
gr_groups_expire_offsets(gr_groups_t *g, int64_t now_ms)
{
    int removed = 0;
    gr_group_t **all = malloc(sizeof(*all) * (g->count ? g->count : 1));
    uint32_t n = 0;
    GR_ASSERT(all != NULL);
    /* collect first: expiring removes groups from the table */
    for (uint32_t i = 0; i < g->hsize; i++)
        for (gr_group_t *grp = g->htab[i]; grp; grp = grp->hnext)
            all[n++] = grp;
    for (uint32_t i = 0; i < n; i++) {
        int32_t part = all[i]->partition;
        if (part >= g->nparts || g->parts[part].state != PART_LOADED)
            continue;
        removed += expire_group(g, all[i], now_ms);
    }
    free(all);
    return removed;
}

static void
retention_tick(gr_loop_t *loop, gr_timer_t *t)
{
    gr_groups_t *g = t->data;
    gr_groups_expire_offsets(g, gr_loop_wall_ms(loop));
    gr_timer_start(loop, t, g->cfg.retention_check_interval_ms);
}

/* --- ListGroups */

gr_kerr_t
gr_groups_list(gr_groups_t *g, gr_arena_t *a, gr_group_overview_t **out,
               int32_t *n)
{
    gr_group_overview_t *v =
        gr_arena_zalloc(a, sizeof(*v) * (g->count ? g->count : 1));
    int32_t k = 0;
    *out = v;
    *n = 0;
    if (v == NULL)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    for (uint32_t i = 0; i < g->hsize; i++)
        for (gr_group_t *grp = g->htab[i]; grp; grp = grp->hnext) {
            int32_t part = grp->partition;
            if (part >= g->nparts || g->parts[part].state != PART_LOADED)
                continue;
            v[k].group_id = gr_arena_strndup(a, grp->id, strlen(grp->id));
            v[k].protocol_type =
                grp->protocol_type
                    ? gr_arena_strndup(a, grp->protocol_type,
                                       strlen(grp->protocol_type))
                    : "";
            v[k].state = gr_group_state_str(grp->state);
            v[k].type = "classic";
            if (grp->type == GR_GROUP_TYPE_CONSUMER) {
                v[k].protocol_type = "consumer";
                v[k].state = gr_cg_state_str(grp->cg);
                v[k].type = "consumer";
            }
            if (v[k].group_id == NULL || v[k].protocol_type == NULL)
                return GR_KERR_UNKNOWN_SERVER_ERROR;
            k++;
        }
    *n = k;
    return gr_groups_loading(g) ? GR_KERR_COORDINATOR_LOAD_IN_PROGRESS
                                : GR_KERR_NONE;
}

/* --- settings */

int
gr_groups_consumer_config(gr_groups_config_t *cfg, const struct gr_conf *conf)
{
    const char *items[8];
    char buf[512];
    int n = gr_conf_list_split(gr_conf_str(conf, GR_CONF_GROUP_CONSUMER_ASSIGNORS),
                               buf, sizeof buf, items, 8);

    cfg->consumer_session_timeout_ms =
        (int32_t)gr_conf_int(conf, GR_CONF_GROUP_CONSUMER_SESSION_TIMEOUT_MS);
    cfg->consumer_heartbeat_interval_ms =
        (int32_t)gr_conf_int(conf, GR_CONF_GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS);
    cfg->consumer_max_size =
        (int32_t)gr_conf_int(conf, GR_CONF_GROUP_CONSUMER_MAX_SIZE);
    cfg->consumer_assignment_interval_ms =
        (int32_t)gr_conf_int(conf, GR_CONF_GROUP_CONSUMER_ASSIGNMENT_INTERVAL_MS);
    cfg->consumer_regex_refresh_interval_ms = (int32_t)gr_conf_int(
        conf, GR_CONF_GROUP_CONSUMER_REGEX_REFRESH_INTERVAL_MS);
    if (cfg->consumer_heartbeat_interval_ms >=
        cfg->consumer_session_timeout_ms) {
        GR_LOG_ERROR("group.consumer.heartbeat.interval.ms must be less than "
                     "group.consumer.session.timeout.ms");
        return -1;
    }
    cfg->consumer_nassignors = 0;
    for (int i = 0; i < n; i++) {
        /* short names, or Kafka's class names of the built-in two */
        const char *name =
            strcmp(items[i], "uniform") == 0 ||
                    strcmp(items[i], "org.apache.kafka.coordinator.group."
                                     "assignor.UniformAssignor") == 0
                ? "uniform"
            : strcmp(items[i], "range") == 0 ||
                    strcmp(items[i], "org.apache.kafka.coordinator.group."
                                     "assignor.RangeAssignor") == 0
                ? "range"
                : NULL;
        bool dup = false;
        if (name == NULL) {
            GR_LOG_ERROR("group.consumer.assignors: unknown assignor %s "
                         "(Gregor has uniform and range)",
                         items[i]);
            return -1;
        }
        for (int32_t k = 0; k < cfg->consumer_nassignors; k++)
            dup |= strcmp(cfg->consumer_assignors[k], name) == 0;
        if (dup) {
            GR_LOG_ERROR("group.consumer.assignors: %s given twice", name);
            return -1;
        }
        snprintf(cfg->consumer_assignors[cfg->consumer_nassignors++],
                 sizeof cfg->consumer_assignors[0], "%s", name);
    }
    if (cfg->consumer_nassignors == 0) {
        GR_LOG_ERROR("group.consumer.assignors: no assignor");
        return -1;
    }
    return 0;
}

void
gr_groups_set_assignment_interval(gr_groups_t *g, int32_t ms)
{
    g->cfg.consumer_assignment_interval_ms = ms;
}
