/*
 * ACLs in ZooKeeper (cluster mode with an authorizer), as Kafka's
 * AclAuthorizer keeps them (auth/acl_zk.h has the layout). At each new
 * session the broker makes the ACL paths (ZkClient.createAclPaths), reads
 * every resource znode into a fresh set and installs it, and holds child
 * watches on /kafka-acl-changes and /kafka-acl-extended-changes: a
 * notification from any broker reads the whole set again (Kafka reads the
 * one resource the notification names; ours reads all, which also heals
 * a notification missed while disconnected). CreateAcls and DeleteAcls,
 * through the change queue (api/change.h), write the resources whose ACLs
 * changed, each conditioned on the version read just before (set, create
 * or, when none is left, delete), with a notification per resource, in
 * one multi; the answer waits for it. A write that loses a race to
 * another broker's fails (KAFKA_STORAGE_ERROR with a WARN line) where
 * Kafka's retries it on the newer data.
 *
 * Invariant: every call in flight is on z->calls, so fini frees what
 * gr_meta_close left unanswered; a store's callback is called exactly
 * once (at fini with ECANCELED). Loop thread only.
 */
#include "broker_acls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/acl.h"
#include "auth/acl_zk.h"
#include "broker.h"
#include "broker_meta_int.h"
#include "core/buf.h"
#include "core/conf.h"
#include "core/log.h"

typedef struct group {
    int8_t type, pattern;
    char *name;
    gr_buf_t json;
    const gr_acl_t **acls;
    int n, cap;
} group_t;

typedef struct zcall zcall_t;

typedef struct store {
    gr_cluster_stored_cb cb;
    void *arg;
    group_t *changed; /* the resources to write: json empty for none */
    int nchanged;
    int32_t *versions; /* read before the multi; -1: no znode */
    gr_buf_t *notes;
    char **paths;
    int pending;
    int err;
} store_t;

enum { LIST, GET, STAT, MULTI, WATCH };

struct zcall {
    zcall_t *prev, *next;
    struct gr_acls_zk *z;
    int kind;
    int gen;     /* LIST/GET: the load it belongs to */
    int8_t type, pattern;
    char path[GR_META_MAX_PATH + 1];
    store_t *st;
    int idx;
};

struct gr_acls_zk {
    struct gr_broker_meta *bm;
    zcall_t *calls;
    int gen;         /* the load in progress (or last) */
    int pending;     /* its calls */
    bool failed;     /* it read something it could not take */
    bool again;      /* a notification came during it */
    gr_acls_t *next; /* what it reads into */
};

static const int types[] = { GR_RES_TOPIC, GR_RES_GROUP, GR_RES_CLUSTER,
                             GR_RES_TRANSACTIONAL_ID, GR_RES_DELEGATION_TOKEN,
                             GR_RES_USER };
#define NTYPES ((int)(sizeof types / sizeof types[0]))

static zcall_t *
zcall_new(struct gr_acls_zk *z, int kind, const char *path)
{
    zcall_t *k = calloc(1, sizeof *k);
    if (k == NULL)
        return NULL;
    k->z = z;
    k->kind = kind;
    k->gen = z->gen;
    snprintf(k->path, sizeof k->path, "%s", path ? path : "");
    k->next = z->calls;
    if (k->next)
        k->next->prev = k;
    z->calls = k;
    return k;
}

static void
zcall_end(zcall_t *k)
{
    struct gr_acls_zk *z = k->z;
    if (k->prev)
        k->prev->next = k->next;
    else
        z->calls = k->next;
    if (k->next)
        k->next->prev = k->prev;
    free(k);
}

/* --- loading */

static void load(struct gr_acls_zk *z);

static gr_acls_t *
empty_set(gr_broker_t *b)
{
    return gr_acls_new(gr_conf_str(b->conf, GR_CONF_SUPER_USERS),
                       gr_conf_bool(b->conf,
                                    GR_CONF_ALLOW_EVERYONE_IF_NO_ACL_FOUND));
}

/* one call of the load answered */
static void
load_step(struct gr_acls_zk *z)
{
    gr_broker_t *b = z->bm->b;
    if (--z->pending > 0)
        return;
    if (!z->failed && gr_acls_commit(z->next) == 0) {
        GR_LOG_INFO("acls: node %d: %zu ACLs read from ZooKeeper",
                    b->node_id, gr_acls_count(z->next));
        gr_acls_destroy(b->acls);
        b->acls = z->next;
    } else {
        GR_LOG_WARN("acls: node %d: the ACLs read from ZooKeeper are not "
                    "taken; the ones before stay",
                    b->node_id);
        gr_acls_destroy(z->next);
    }
    z->next = NULL;
    if (z->again) {
        z->again = false;
        load(z);
    }
}

static void
got_resource(void *arg, int rc, const void *data, size_t len,
             const gr_meta_stat_t *st)
{
    zcall_t *k = arg;
    struct gr_acls_zk *z = k->z;
    const char *name = strrchr(k->path, '/') + 1;
    char why[256];
    (void)st;
    if (rc == GR_META_OK &&
        gr_acl_zk_parse(z->next, k->type, k->pattern, name, data, len, why,
                        sizeof why) != 0) {
        GR_LOG_ERROR("acls: %s is not Kafka's ACL JSON (%s); not taken",
                     k->path, why);
        z->failed = true;
    } else if (rc != GR_META_OK && rc != GR_META_NONODE) {
        GR_LOG_WARN("acls: reading %s: %s", k->path, gr_meta_rc_name(rc));
        z->failed = true;
    }
    zcall_end(k);
    load_step(z);
}

static void
got_names(void *arg, int rc, const char *const *names, int n,
          const gr_meta_stat_t *st)
{
    zcall_t *k = arg, *g;
    struct gr_acls_zk *z = k->z;
    char path[GR_META_MAX_PATH + 1];
    (void)st;
    if (rc != GR_META_OK && rc != GR_META_NONODE) {
        GR_LOG_WARN("acls: listing %s: %s", k->path, gr_meta_rc_name(rc));
        z->failed = true;
    }
    for (int i = 0; rc == GR_META_OK && i < n; i++) {
        if (snprintf(path, sizeof path, "%s/%s", k->path, names[i]) >=
                (int)sizeof path ||
            (g = zcall_new(z, GET, path)) == NULL) {
            z->failed = true;
            break;
        }
        g->type = k->type;
        g->pattern = k->pattern;
        if (gr_meta_get(z->bm->m, path, NULL, NULL, got_resource, g) != 0) {
            zcall_end(g);
            z->failed = true;
            break;
        }
        z->pending++;
    }
    zcall_end(k);
    load_step(z);
}

static void watch_changes(struct gr_acls_zk *z);

static void
changed(void *arg, gr_meta_event_t ev, const char *path)
{
    struct gr_acls_zk *z = arg;
    (void)ev;
    GR_LOG_DEBUG("acls: %s changed", path);
    watch_changes(z);
    if (z->next != NULL)
        z->again = true; /* after the load under way */
    else
        load(z);
}

static void
watched(void *arg, int rc, const char *const *names, int n,
        const gr_meta_stat_t *st)
{
    (void)names;
    (void)n;
    (void)st;
    if (rc != GR_META_OK)
        GR_LOG_WARN("acls: watching %s: %s", ((zcall_t *)arg)->path,
                    gr_meta_rc_name(rc));
    zcall_end(arg);
}

/* child watches on both change paths (a watch set twice fires once) */
static void
watch_changes(struct gr_acls_zk *z)
{
    static const char *const paths[] = { GR_ACL_ZK_CHANGES,
                                         GR_ACL_ZK_EXT_CHANGES };
    for (int i = 0; i < 2; i++) {
        zcall_t *k = zcall_new(z, WATCH, paths[i]);
        if (k == NULL ||
            gr_meta_children(z->bm->m, paths[i], changed, z, watched, k) != 0) {
            if (k)
                zcall_end(k);
            GR_LOG_WARN("acls: out of memory watching %s", paths[i]);
        }
    }
}

static void
load(struct gr_acls_zk *z)
{
    char path[GR_META_MAX_PATH + 1];
    z->gen++;
    z->failed = false;
    if ((z->next = empty_set(z->bm->b)) == NULL) {
        GR_LOG_WARN("acls: out of memory reading the ACLs");
        return;
    }
    z->pending = 1; /* this function's own */
    for (int p = 0; p < 2; p++)
        for (int t = 0; t < NTYPES; t++) {
            zcall_t *k;
            snprintf(path, sizeof path, "%s/%s",
                     p ? GR_ACL_ZK_PREFIXED : GR_ACL_ZK_LITERAL,
                     gr_acl_zk_type_name(types[t]));
            if ((k = zcall_new(z, LIST, path)) == NULL) {
                z->failed = true;
                continue;
            }
            k->type = (int8_t)types[t];
            k->pattern = p ? GR_PAT_PREFIXED : GR_PAT_LITERAL;
            if (gr_meta_children(z->bm->m, path, NULL, NULL, got_names, k) !=
                0) {
                zcall_end(k);
                z->failed = true;
                continue;
            }
            z->pending++;
        }
    load_step(z);
}

static void
path_made(void *arg, int rc, const char *path, const gr_meta_stat_t *st)
{
    (void)path;
    (void)st;
    if (rc != GR_META_OK && rc != GR_META_NODEEXISTS)
        GR_LOG_WARN("acls: making %s: %s", ((zcall_t *)arg)->path,
                    gr_meta_rc_name(rc));
    zcall_end(arg);
}

static void
make_path(struct gr_acls_zk *z, const char *path)
{
    zcall_t *k = zcall_new(z, LIST, path);
    if (k == NULL ||
        gr_meta_create(z->bm->m, path, NULL, 0, 0, path_made, k) != 0) {
        if (k)
            zcall_end(k);
        GR_LOG_WARN("acls: out of memory making %s", path);
    }
}

void
gr_acls_zk_session(struct gr_broker_meta *bm)
{
    struct gr_acls_zk *z = bm->acls;
    char path[GR_META_MAX_PATH + 1];
    if (z == NULL)
        return;
    /* ZkClient.createAclPaths: the stores' paths, their types', and the
     * change paths; made in order, so before the reads below */
    make_path(z, GR_ACL_ZK_LITERAL);
    make_path(z, "/kafka-acl-extended");
    make_path(z, GR_ACL_ZK_PREFIXED);
    for (int p = 0; p < 2; p++)
        for (int t = 0; t < NTYPES; t++) {
            snprintf(path, sizeof path, "%s/%s",
                     p ? GR_ACL_ZK_PREFIXED : GR_ACL_ZK_LITERAL,
                     gr_acl_zk_type_name(types[t]));
            make_path(z, path);
        }
    make_path(z, GR_ACL_ZK_CHANGES);
    make_path(z, GR_ACL_ZK_EXT_CHANGES);
    watch_changes(z);
    if (z->next != NULL)
        z->again = true;
    else
        load(z);
}

int
gr_acls_zk_init(struct gr_broker_meta *bm)
{
    gr_acls_t *next;
    if (bm->b->acls == NULL)
        return 0; /* no authorizer */
    if ((bm->acls = calloc(1, sizeof *bm->acls)) == NULL)
        return -1;
    bm->acls->bm = bm;
    /* until the first read from ZooKeeper is installed, super users
     * alone pass, whatever allow.everyone.if.no.acl.found says: a
     * resource's deny ACLs may be there, not read yet (fail closed) */
    if ((next = gr_acls_new(gr_conf_str(bm->b->conf, GR_CONF_SUPER_USERS),
                            false)) == NULL ||
        gr_acls_commit(next) != 0) {
        gr_acls_destroy(next);
        free(bm->acls);
        bm->acls = NULL;
        return -1;
    }
    gr_acls_destroy(bm->b->acls);
    bm->b->acls = next;
    return 0;
}

/* --- storing */

static void
groups_free(group_t *g, int n)
{
    for (int i = 0; i < n; i++) {
        free(g[i].name);
        gr_buf_fini(&g[i].json);
        free(g[i].acls);
    }
    free(g);
}

typedef struct collect {
    group_t *g;
    int n, cap;
    bool oom;
} collect_t;

static int
collect_one(void *arg, const gr_acl_t *acl)
{
    collect_t *c = arg;
    group_t *g = c->n ? &c->g[c->n - 1] : NULL;
    if (g == NULL || g->type != acl->res_type || g->pattern != acl->pattern ||
        strcmp(g->name, acl->name) != 0) {
        if (c->n == c->cap) {
            int cap = c->cap ? c->cap * 2 : 16;
            group_t *ng = realloc(c->g, (size_t)cap * sizeof *ng);
            if (ng == NULL)
                return c->oom = true, 1;
            c->g = ng;
            c->cap = cap;
        }
        g = &c->g[c->n++];
        memset(g, 0, sizeof *g);
        g->type = acl->res_type;
        g->pattern = acl->pattern;
        if ((g->name = strdup(acl->name)) == NULL)
            return c->oom = true, 1;
    }
    if (g->n == g->cap) {
        int cap = g->cap ? g->cap * 2 : 4;
        const gr_acl_t **na = realloc(g->acls, (size_t)cap * sizeof *na);
        if (na == NULL)
            return c->oom = true, 1;
        g->acls = na;
        g->cap = cap;
    }
    g->acls[g->n++] = acl;
    return 0;
}

/* the set's resources, each with its JSON; -1 out of memory */
static int
collect(const gr_acls_t *s, collect_t *c)
{
    memset(c, 0, sizeof *c);
    gr_acls_each_by_resource(s, collect_one, c);
    for (int i = 0; !c->oom && i < c->n; i++) {
        gr_acl_zk_encode(c->g[i].acls, c->g[i].n, &c->g[i].json);
        c->oom = c->g[i].json.oom;
    }
    if (c->oom) {
        groups_free(c->g, c->n);
        return -1;
    }
    return 0;
}

static group_t *
find(collect_t *c, const group_t *g)
{
    for (int i = 0; i < c->n; i++)
        if (c->g[i].name != NULL && c->g[i].type == g->type && c->g[i].pattern == g->pattern &&
            strcmp(c->g[i].name, g->name) == 0)
            return &c->g[i];
    return NULL;
}

static void
store_free(store_t *st)
{
    for (int i = 0; i < st->nchanged; i++) {
        free(st->paths ? st->paths[i] : NULL);
        if (st->notes)
            gr_buf_fini(&st->notes[i]);
    }
    free(st->paths);
    free(st->notes);
    free(st->versions);
    groups_free(st->changed, st->nchanged);
    free(st);
}

static void
store_end(store_t *st, int err)
{
    st->cb(st->arg, err);
    store_free(st);
}

static void
written(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    zcall_t *k = arg;
    store_t *st = k->st;
    (void)res;
    (void)n;
    zcall_end(k);
    if (rc != GR_META_OK) {
        GR_LOG_WARN("acls: the ACLs were not written to ZooKeeper: %s "
                    "(changed meanwhile elsewhere?)",
                    gr_meta_rc_name(rc));
        store_end(st, rc == GR_META_BADVERSION || rc == GR_META_NODEEXISTS ||
                              rc == GR_META_NONODE
                          ? EAGAIN
                          : EIO);
        return;
    }
    GR_LOG_INFO("acls: %d resource(s) written to ZooKeeper", st->nchanged);
    store_end(st, 0);
}

static void
write_all(struct gr_acls_zk *z, store_t *st)
{
    gr_meta_op_t *ops = calloc((size_t)st->nchanged * 2, sizeof *ops);
    zcall_t *k = zcall_new(z, MULTI, "multi");
    int n = 0;
    if (ops == NULL || k == NULL)
        goto oom;
    k->st = st;
    for (int i = 0; i < st->nchanged; i++) {
        group_t *g = &st->changed[i];
        bool none = g->json.len == 0;
        if (none && st->versions[i] < 0)
            continue; /* gone already */
        ops[n++] = (gr_meta_op_t){
            .type = none                  ? GR_META_OP_DELETE
                    : st->versions[i] < 0 ? GR_META_OP_CREATE
                                          : GR_META_OP_SET,
            .path = st->paths[i],
            .data = none ? NULL : g->json.ptr,
            .len = none ? 0 : g->json.len,
            .version = st->versions[i]
        };
        ops[n++] = (gr_meta_op_t){
            .type = GR_META_OP_CREATE,
            .path = g->pattern == GR_PAT_LITERAL
                        ? GR_ACL_ZK_CHANGES "/" GR_ACL_ZK_CHANGE_PREFIX
                        : GR_ACL_ZK_EXT_CHANGES "/" GR_ACL_ZK_CHANGE_PREFIX,
            .data = st->notes[i].ptr,
            .len = st->notes[i].len,
            .flags = GR_META_SEQUENTIAL
        };
    }
    if (n == 0) {
        zcall_end(k);
        free(ops);
        store_end(st, 0);
        return;
    }
    if (gr_meta_multi(z->bm->m, ops, n, written, k) != 0)
        goto oom;
    free(ops);
    return;
oom:
    if (k)
        zcall_end(k);
    free(ops);
    GR_LOG_ERROR("acls: out of memory writing the ACLs");
    store_end(st, ENOMEM);
}

static void
got_version(void *arg, int rc, const gr_meta_stat_t *s)
{
    zcall_t *k = arg;
    store_t *st = k->st;
    struct gr_acls_zk *z = k->z;
    st->versions[k->idx] = rc == GR_META_OK ? s->version : -1;
    if (rc != GR_META_OK && rc != GR_META_NONODE)
        st->err = EIO;
    zcall_end(k);
    if (--st->pending > 0)
        return;
    if (st->err != 0) {
        GR_LOG_WARN("acls: cannot read the ACL znodes to write");
        store_end(st, st->err);
        return;
    }
    write_all(z, st);
}

bool
gr_acls_zk_store(gr_broker_t *b, const gr_acls_t *old, const gr_acls_t *next,
                 gr_cluster_stored_cb cb, void *arg)
{
    struct gr_acls_zk *z = b->meta ? b->meta->acls : NULL;
    collect_t o, x;
    store_t *st;

    if (z == NULL)
        return false;
    if ((st = calloc(1, sizeof *st)) == NULL || collect(old, &o) != 0) {
        free(st);
        cb(arg, ENOMEM);
        return true;
    }
    st->cb = cb;
    st->arg = arg;
    if (collect(next, &x) != 0) {
        groups_free(o.g, o.n);
        store_end(st, ENOMEM);
        return true;
    }
    /* changed: in next with other JSON or not in old; in old only (none
     * left: json emptied) */
    st->changed = calloc((size_t)(o.n + x.n) + 1, sizeof *st->changed);
    for (int i = 0; st->changed && i < x.n; i++) {
        group_t *was = find(&o, &x.g[i]);
        if (was != NULL && was->json.len == x.g[i].json.len &&
            memcmp(was->json.ptr, x.g[i].json.ptr, was->json.len) == 0)
            continue;
        st->changed[st->nchanged++] = x.g[i];
        memset(&x.g[i], 0, sizeof x.g[i]);
    }
    for (int i = 0; st->changed && i < o.n; i++) {
        group_t *g;
        if (find(&x, &o.g[i]) != NULL)
            continue;
        /* removed: moved over from x above? look among changed too */
        {
            bool moved = false;
            for (int j = 0; j < st->nchanged; j++)
                if (st->changed[j].type == o.g[i].type &&
                    st->changed[j].pattern == o.g[i].pattern &&
                    strcmp(st->changed[j].name, o.g[i].name) == 0)
                    moved = true;
            if (moved)
                continue;
        }
        g = &st->changed[st->nchanged++];
        *g = o.g[i];
        memset(&o.g[i], 0, sizeof o.g[i]);
        gr_buf_fini(&g->json); /* none left */
        free(g->acls);
        g->acls = NULL;
        g->n = g->cap = 0;
    }
    groups_free(o.g, o.n);
    groups_free(x.g, x.n);
    if (st->changed == NULL)
        goto oom;
    if (st->nchanged == 0) {
        store_end(st, 0);
        return true;
    }
    st->versions = calloc((size_t)st->nchanged, sizeof *st->versions);
    st->notes = calloc((size_t)st->nchanged, sizeof *st->notes);
    st->paths = calloc((size_t)st->nchanged, sizeof *st->paths);
    if (st->versions == NULL || st->notes == NULL || st->paths == NULL)
        goto oom;
    for (int i = 0; i < st->nchanged; i++) {
        group_t *g = &st->changed[i];
        char path[GR_META_MAX_PATH + 1];
        if (gr_acl_zk_path(g->type, g->pattern, g->name, path, sizeof path) !=
                0 ||
            !gr_meta_path_ok(path)) {
            GR_LOG_WARN("acls: resource %s:%s:%s cannot be a ZooKeeper path",
                        gr_acl_res_name(g->type),
                        gr_acl_pattern_name(g->pattern), g->name);
            store_end(st, EINVAL);
            return true;
        }
        if ((st->paths[i] = strdup(path)) == NULL)
            goto oom;
        gr_acl_zk_change(g->type, g->pattern, g->name, &st->notes[i]);
        if (st->notes[i].oom)
            goto oom;
    }
    st->pending = st->nchanged;
    for (int i = 0; i < st->nchanged; i++) {
        zcall_t *k = zcall_new(z, STAT, st->paths[i]);
        if (k == NULL)
            goto oom_started;
        k->st = st;
        k->idx = i;
        if (gr_meta_exists(z->bm->m, st->paths[i], NULL, NULL, got_version,
                           k) != 0) {
            zcall_end(k);
            goto oom_started;
        }
    }
    return true;
oom_started:
    /* the calls made will answer; the ones not made count as failed */
    st->err = ENOMEM;
    for (int i = 0; i < st->nchanged; i++) {
        bool made = false;
        for (zcall_t *k = z->calls; k; k = k->next)
            made = made || (k->st == st && k->idx == i && k->kind == STAT);
        if (!made)
            st->pending--;
    }
    if (st->pending == 0)
        store_end(st, ENOMEM);
    return true;
oom:
    GR_LOG_ERROR("acls: out of memory writing the ACLs");
    store_end(st, ENOMEM);
    return true;
}

void
gr_acls_zk_fini(struct gr_broker_meta *bm)
{
    struct gr_acls_zk *z = bm->acls;
    if (z == NULL)
        return;
    while (z->calls != NULL) {
        zcall_t *k = z->calls;
        store_t *st = k->st;
        if (st != NULL) {
            /* drop every call of this store, then end it once */
            for (zcall_t *j = z->calls; j;) {
                zcall_t *nx = j->next;
                if (j->st == st)
                    zcall_end(j);
                j = nx;
            }
            store_end(st, ECANCELED);
        } else
            zcall_end(k);
    }
    gr_acls_destroy(z->next);
    free(z);
    bm->acls = NULL;
}
