/*
 * meta_zk: the gr_meta engine over a ZooKeeper ensemble (meta.h), for
 * cluster mode (zookeeper.connect). It speaks through ZooKeeper's C
 * client, libzookeeper_mt, loaded with dlopen() when the first store
 * opens (as core/compress.c loads snappy): a single broker never maps it.
 *
 * The client runs two threads of its own, I/O and completion; every
 * completion and watch event of ours runs on the completion thread. None
 * of them touches the tree or a caller: each fills an item, and the loop
 * delivers items (gr_loop_post) from one FIFO, under zk->mu:
 *
 *   - a call appends its item at once (pending); its completion marks it
 *     done; a call answered here (bad path) is done when appended;
 *   - a watch or session event goes in before the first pending item:
 *     ZooKeeper answers one session's requests in order, so every item
 *     before that one is answered, and the event came before its answer;
 *   - the loop runs items from the head while the head is done.
 *
 * So callbacks come in call order, each watch event before the answer
 * that followed it, as meta.h promises. Watches: ZooKeeper keeps one
 * registration per (path, kind) for our single watcher function (its
 * client merges equal watcher/context pairs); zk->watches holds the
 * callers', added when the answer that set them is delivered, fired and
 * dropped when the event is. The chroot of zookeeper.connect is ours: it
 * is prefixed to every path sent and cut from every path received, so
 * one session both makes it and works under it.
 *
 * Locking: zk->mu guards the FIFO, zk->posted, zk->zh's identity and the
 * session state seen; everything else is the loop thread's. The loop
 * never holds zk->mu while calling into the client (zookeeper_close joins
 * the completion thread, which takes zk->mu).
 */
#include "meta/meta.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"

#ifndef THREADED
#define THREADED 1 /* declares the synchronous calls open() uses */
#endif
#include <zookeeper/proto.h> /* ZOO_CREATE_OP, ZOO_SETDATA_OP */
#include <zookeeper/zookeeper.h>

#define MAX_MULTI 1000

/* --- the client library, loaded once ----------------------------------- */

static struct {
    __typeof__(zookeeper_init2) *init;
    __typeof__(zookeeper_close) *close;
    __typeof__(zoo_acreate2) *acreate2;
    __typeof__(zoo_create) *create; /* synchronous: open() only */
    __typeof__(zoo_awget) *awget;
    __typeof__(zoo_awexists) *awexists;
    __typeof__(zoo_awget_children2) *awget_children2;
    __typeof__(zoo_amulti) *amulti;
    __typeof__(zoo_create_op_init) *create_op_init;
    __typeof__(zoo_set_op_init) *set_op_init;
    __typeof__(zoo_delete_op_init) *delete_op_init;
    __typeof__(zoo_check_op_init) *check_op_init;
    __typeof__(zoo_client_id) *client_id;
    __typeof__(zoo_recv_timeout) *recv_timeout;
    __typeof__(zoo_get_current_server) *current_server;
    __typeof__(zoo_set_debug_level) *set_debug_level;
    __typeof__(zerror) *zerror;
    const struct ACL_vector *open_acl;
    /* the library's constants are data symbols, read from it too */
    int st_connected, st_connecting, st_associating, st_expired,
        st_auth_failed;
    int ev_created, ev_deleted, ev_changed, ev_child, ev_session;
    int f_ephemeral, f_sequence;
} zc;
static pthread_once_t zc_once = PTHREAD_ONCE_INIT;
static char zc_err[256]; /* empty when loaded */

static void
zc_load(void)
{
    void *h = dlopen(GR_ZK_SONAME, RTLD_NOW | RTLD_LOCAL);
    struct {
        const char *name;
        void **fn;
    } fns[] = {
#define F(field, sym) { sym, (void **)&zc.field }
        F(init, "zookeeper_init2"),
        F(close, "zookeeper_close"),
        F(acreate2, "zoo_acreate2"),
        F(create, "zoo_create"),
        F(awget, "zoo_awget"),
        F(awexists, "zoo_awexists"),
        F(awget_children2, "zoo_awget_children2"),
        F(amulti, "zoo_amulti"),
        F(create_op_init, "zoo_create_op_init"),
        F(set_op_init, "zoo_set_op_init"),
        F(delete_op_init, "zoo_delete_op_init"),
        F(check_op_init, "zoo_check_op_init"),
        F(client_id, "zoo_client_id"),
        F(recv_timeout, "zoo_recv_timeout"),
        F(current_server, "zoo_get_current_server"),
        F(set_debug_level, "zoo_set_debug_level"),
        F(zerror, "zerror"),
        F(open_acl, "ZOO_OPEN_ACL_UNSAFE"),
#undef F
    };
    struct {
        const char *name;
        int *v;
    } ints[] = {
        { "ZOO_CONNECTED_STATE", &zc.st_connected },
        { "ZOO_CONNECTING_STATE", &zc.st_connecting },
        { "ZOO_ASSOCIATING_STATE", &zc.st_associating },
        { "ZOO_EXPIRED_SESSION_STATE", &zc.st_expired },
        { "ZOO_AUTH_FAILED_STATE", &zc.st_auth_failed },
        { "ZOO_CREATED_EVENT", &zc.ev_created },
        { "ZOO_DELETED_EVENT", &zc.ev_deleted },
        { "ZOO_CHANGED_EVENT", &zc.ev_changed },
        { "ZOO_CHILD_EVENT", &zc.ev_child },
        { "ZOO_SESSION_EVENT", &zc.ev_session },
        { "ZOO_EPHEMERAL", &zc.f_ephemeral },
        { "ZOO_SEQUENCE", &zc.f_sequence },
    };

    if (h == NULL) {
        snprintf(zc_err, sizeof zc_err, "%s (install the Debian package "
                 "libzookeeper-mt2)", dlerror());
        return;
    }
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if ((*fns[i].fn = dlsym(h, fns[i].name)) == NULL) {
            snprintf(zc_err, sizeof zc_err, "%s has no %s", GR_ZK_SONAME,
                     fns[i].name);
            return;
        }
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        const int *v = dlsym(h, ints[i].name);
        if (v == NULL) {
            snprintf(zc_err, sizeof zc_err, "%s has no %s", GR_ZK_SONAME,
                     ints[i].name);
            return;
        }
        *ints[i].v = *v;
    }
    /* the client's own lines go to our log callback, WARN and up: its
     * reconnect attempts (about 15 a second per server) at DEBUG */
    zc.set_debug_level(ZOO_LOG_LEVEL_WARN);
}

/* --- items: one callback each, delivered in order ---------------------- */

typedef enum {
    K_SESSION,
    K_WATCH,
    K_LOST, /* a watch event could not be queued (ENOMEM): fire them all */
    K_CREATE,
    K_DATA,
    K_STAT,
    K_CHILDREN,
    K_MULTI,
} kind_t;

typedef struct zk zk_t;

typedef struct item {
    struct item *next;
    zk_t *zk;
    kind_t kind;
    bool done;
    int rc;  /* gr_meta's */
    int zev; /* K_WATCH: ZooKeeper's event type; K_SESSION: our state */
    int64_t session;
    void (*cb)(void);
    void *arg;
    gr_meta_watch_cb w; /* the watch the call sets, if any */
    void *warg;
    char *path; /* the caller's path; K_CREATE, K_WATCH: the node's */
    size_t pcap; /* K_CREATE: path's size */
    uint8_t *data;
    size_t len;
    gr_meta_stat_t st;
    char **names;
    int n;
    /* K_MULTI */
    zoo_op_t *ops;
    zoo_op_result_t *zres;
    struct Stat *zst;
    char **bufs; /* each op's full path, and a create's answer buffer */
    gr_meta_result_t *results;
} item_t;

typedef struct watch {
    struct watch *next;
    char *path;
    bool child; /* a children() watch, else get()/exists() */
    gr_meta_watch_cb cb;
    void *arg;
} watch_t;

struct zk {
    gr_meta_t base;
    gr_loop_t *loop;
    char *hosts;
    char *chroot; /* "" or "/a/b" */
    size_t chroot_len;
    int session_timeout_ms;
    watch_t *watches;
    int delivering; /* post_cb() frames running */
    bool closed;
    /* under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    zhandle_t *zh;
    item_t *head, *tail;
    bool posted;
    bool lost;       /* K_LOST wanted */
    int state;       /* the last session state queued, 0 none */
    int64_t session; /* its id */
};

static const gr_meta_ops_t zk_ops;

static void
item_free(item_t *it)
{
    if (it == NULL)
        return;
    free(it->path);
    free(it->data);
    for (int i = 0; it->names != NULL && i < it->n; i++)
        free(it->names[i]);
    free(it->names);
    for (int i = 0; it->bufs != NULL && i < 2 * it->n; i++)
        free(it->bufs[i]);
    for (int i = 0; it->results != NULL && i < it->n; i++)
        free((char *)it->results[i].path);
    free(it->bufs);
    free(it->ops);
    free(it->zres);
    free(it->zst);
    free(it->results);
    free(it);
}

static void post_cb(gr_loop_t *loop, void *arg);

/* Under mu: asks the loop to deliver, once at a time. */
static void
kick_locked(zk_t *zk)
{
    if (zk->posted || zk->closed)
        return;
    if (gr_loop_post(zk->loop, post_cb, zk) == 0)
        zk->posted = true;
    /* else: out of memory; the next completion or call tries again */
}

/* Under mu: appends a call's item. */
static void
append_locked(zk_t *zk, item_t *it)
{
    if (zk->tail)
        zk->tail->next = it;
    else
        zk->head = it;
    zk->tail = it;
}

/* Under mu: an event goes in before the first item not answered yet. */
static void
insert_event_locked(zk_t *zk, item_t *ev)
{
    item_t **pp = &zk->head;
    while (*pp != NULL && (*pp)->done)
        pp = &(*pp)->next;
    ev->next = *pp;
    *pp = ev;
    if (ev->next == NULL)
        zk->tail = ev;
}

static void
finish(item_t *it, int rc)
{
    zk_t *zk = it->zk;
    pthread_mutex_lock(&zk->mu);
    it->rc = rc;
    it->done = true;
    kick_locked(zk);
    pthread_mutex_unlock(&zk->mu);
}

/* ZooKeeper's result codes as ours (meta.h); those we do not model are
 * SYSTEMERROR, logged with ZooKeeper's name. */
static int
map_rc(int zrc)
{
    switch (zrc) {
    case ZOK:
        return GR_META_OK;
    case ZRUNTIMEINCONSISTENCY:
        return GR_META_RUNTIMEINCONSISTENCY;
    case ZCONNECTIONLOSS:
    case ZOPERATIONTIMEOUT:
    case ZSESSIONMOVED:
        return GR_META_CONNECTIONLOSS;
    case ZBADARGUMENTS:
    case ZINVALIDACL:
        return GR_META_BADARGUMENTS;
    case ZINVALIDSTATE: /* the handle expired */
    case ZSESSIONEXPIRED:
    case ZCLOSING:
        return GR_META_SESSIONEXPIRED;
    case ZNONODE:
        return GR_META_NONODE;
    case ZNOAUTH:
    case ZAUTHFAILED:
        return GR_META_NOAUTH;
    case ZBADVERSION:
        return GR_META_BADVERSION;
    case ZNOCHILDRENFOREPHEMERALS:
        return GR_META_NOCHILDRENFOREPHEMERALS;
    case ZNODEEXISTS:
        return GR_META_NODEEXISTS;
    case ZNOTEMPTY:
        return GR_META_NOTEMPTY;
    }
    GR_LOG_WARN("meta: ZooKeeper answered %d (%s)", zrc, zc.zerror(zrc));
    return GR_META_SYSTEMERROR;
}

static void
stat_of(const struct Stat *s, gr_meta_stat_t *st)
{
    memset(st, 0, sizeof(*st));
    if (s == NULL)
        return;
    st->czxid = s->czxid;
    st->mzxid = s->mzxid;
    st->pzxid = s->pzxid;
    st->version = s->version;
    st->cversion = s->cversion;
    st->ephemeral_owner = s->ephemeralOwner;
    st->data_length = s->dataLength;
    st->num_children = s->numChildren;
}

/* A path from ZooKeeper with our chroot cut off (into a new string). */
static char *
strip(const zk_t *zk, const char *full)
{
    if (zk->chroot_len > 0 &&
        strncmp(full, zk->chroot, zk->chroot_len) == 0) {
        if (full[zk->chroot_len] == '\0')
            return strdup("/");
        if (full[zk->chroot_len] == '/')
            return strdup(full + zk->chroot_len);
    }
    return strdup(full);
}

/* The path ZooKeeper knows for ours; NULL on ENOMEM. */
static char *
full_path(const zk_t *zk, const char *path)
{
    size_t n = strlen(path);
    char *p;
    if (zk->chroot_len > 0 && strcmp(path, "/") == 0)
        return strdup(zk->chroot);
    if ((p = malloc(zk->chroot_len + n + 1)) == NULL)
        return NULL;
    memcpy(p, zk->chroot, zk->chroot_len);
    memcpy(p + zk->chroot_len, path, n + 1);
    return p;
}

/* --- the completion thread ---------------------------------------------- */

static void
session_event_locked(zk_t *zk, zhandle_t *zh, int zstate)
{
    int st = 0;
    item_t *it;
    if (zstate == zc.st_connected)
        st = GR_META_SESSION_CONNECTED;
    else if (zstate == zc.st_connecting || zstate == zc.st_associating)
        st = zk->state == GR_META_SESSION_CONNECTED ? GR_META_SESSION_SUSPENDED
                                                    : 0;
    else if (zstate == zc.st_expired || zstate == zc.st_auth_failed)
        st = GR_META_SESSION_EXPIRED;
    if (st == 0 || st == zk->state)
        return;
    zk->state = st;
    if (st == GR_META_SESSION_CONNECTED)
        zk->session = zc.client_id(zh)->client_id;
    pthread_cond_broadcast(&zk->cv);
    if ((it = calloc(1, sizeof(*it))) == NULL) {
        zk->lost = true; /* the caller re-reads: said at K_LOST */
        kick_locked(zk);
        return;
    }
    it->zk = zk;
    it->kind = K_SESSION;
    it->done = true;
    it->zev = st;
    it->session = zk->session;
    insert_event_locked(zk, it);
    kick_locked(zk);
}

/* The one watcher: the session's (zookeeper_init2) and every node's. */
static void
on_zk_event(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    zk_t *zk = ctx;
    item_t *it;
    pthread_mutex_lock(&zk->mu);
    if (zh != zk->zh) { /* a handle being closed */
        pthread_mutex_unlock(&zk->mu);
        return;
    }
    if (type == zc.ev_session) {
        session_event_locked(zk, zh, state);
    } else if ((it = calloc(1, sizeof(*it))) == NULL ||
               (it->path = strip(zk, path ? path : "/")) == NULL) {
        free(it);
        zk->lost = true;
        kick_locked(zk);
    } else {
        it->zk = zk;
        it->kind = K_WATCH;
        it->done = true;
        it->zev = type;
        insert_event_locked(zk, it);
        kick_locked(zk);
    }
    pthread_mutex_unlock(&zk->mu);
}

static void
on_create(int zrc, const char *path, const struct Stat *s, const void *data)
{
    item_t *it = (item_t *)data;
    if (zrc == ZOK) {
        char *p = strip(it->zk, path ? path : "");
        if (p == NULL || strlen(p) >= it->pcap) {
            free(p); /* made, and said NULL: cannot be (pcap fits) */
            finish(it, GR_META_SYSTEMERROR);
            return;
        }
        strcpy(it->path, p);
        free(p);
        stat_of(s, &it->st);
    }
    finish(it, map_rc(zrc));
}

static void
on_data(int zrc, const char *value, int len, const struct Stat *s,
        const void *data)
{
    item_t *it = (item_t *)data;
    if (zrc == ZOK) {
        size_t n = len > 0 ? (size_t)len : 0;
        if ((it->data = malloc(n ? n : 1)) == NULL) {
            finish(it, GR_META_SYSTEMERROR);
            return;
        }
        if (n)
            memcpy(it->data, value, n);
        it->len = n;
        stat_of(s, &it->st);
    }
    finish(it, map_rc(zrc));
}

static void
on_stat(int zrc, const struct Stat *s, const void *data)
{
    item_t *it = (item_t *)data;
    if (zrc == ZOK)
        stat_of(s, &it->st);
    finish(it, map_rc(zrc));
}

static int
cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
on_children(int zrc, const struct String_vector *sv, const struct Stat *s,
            const void *data)
{
    item_t *it = (item_t *)data;
    if (zrc == ZOK) {
        int cnt = sv ? sv->count : 0;
        if ((it->names = calloc((size_t)cnt + 1, sizeof(char *))) == NULL) {
            finish(it, GR_META_SYSTEMERROR);
            return;
        }
        for (int i = 0; i < cnt; i++) {
            if ((it->names[i] = strdup(sv->data[i])) == NULL) {
                finish(it, GR_META_SYSTEMERROR);
                return;
            }
            it->n = i + 1;
        }
        qsort(it->names, (size_t)it->n, sizeof(char *), cmp_names);
        stat_of(s, &it->st);
    }
    finish(it, map_rc(zrc));
}

static void
on_multi(int zrc, const void *data)
{
    item_t *it = (item_t *)data;
    bool per_op = false; /* a failed multi answers op by op */
    for (int i = 0; i < it->n; i++)
        per_op |= it->zres[i].err != ZOK;
    for (int i = 0; i < it->n; i++) {
        gr_meta_result_t *r = &it->results[i];
        r->rc = map_rc(zrc != ZOK && !per_op ? zrc : it->zres[i].err);
        if (zrc == ZOK && it->ops[i].type == ZOO_CREATE_OP &&
            it->zres[i].value != NULL)
            r->path = strip(it->zk, it->zres[i].value); /* NULL: ENOMEM */
        if (zrc == ZOK && it->ops[i].type == ZOO_SETDATA_OP)
            stat_of(&it->zst[i], &r->st);
    }
    finish(it, map_rc(zrc));
}

/* --- the loop: delivery ------------------------------------------------ */

static int
watch_add(zk_t *zk, const char *path, bool child, gr_meta_watch_cb cb,
          void *arg)
{
    watch_t *w;
    for (w = zk->watches; w != NULL; w = w->next)
        if (w->child == child && w->cb == cb && w->arg == arg &&
            strcmp(w->path, path) == 0)
            return 0;
    if ((w = calloc(1, sizeof(*w))) == NULL ||
        (w->path = strdup(path)) == NULL) {
        free(w);
        return -1;
    }
    w->child = child;
    w->cb = cb;
    w->arg = arg;
    w->next = zk->watches;
    zk->watches = w;
    return 0;
}

static void
watches_free(zk_t *zk)
{
    while (zk->watches) {
        watch_t *w = zk->watches;
        zk->watches = w->next;
        free(w->path);
        free(w);
    }
}

/* Fires (and drops) the watches of path of one kind as ev; path NULL:
 * every watch of that kind, each with its own path. */
static void
watch_fire(zk_t *zk, const char *path, bool child, gr_meta_event_t ev)
{
    watch_t *fired = NULL, **pp = &zk->watches;
    while (*pp != NULL) {
        watch_t *w = *pp;
        if (w->child == child && (path == NULL || strcmp(w->path, path) == 0)) {
            *pp = w->next;
            w->next = fired;
            fired = w;
        } else {
            pp = &w->next;
        }
    }
    /* oldest first: the list is newest first, and fired reversed it */
    while (fired != NULL && !zk->closed) {
        watch_t *w = fired;
        fired = w->next;
        w->cb(w->arg, ev, w->path);
        free(w->path);
        free(w);
    }
    while (fired != NULL) {
        watch_t *w = fired;
        fired = w->next;
        free(w->path);
        free(w);
    }
}

static void reopen(zk_t *zk);

static void
deliver(zk_t *zk, item_t *it)
{
    int rc = it->rc;
    /* the watch a successful read set (exists: on a missing node too) */
    if (it->w != NULL &&
        (rc == GR_META_OK || (it->kind == K_STAT && rc == GR_META_NONODE)) &&
        watch_add(zk, it->path, it->kind == K_CHILDREN, it->w, it->warg) != 0)
        GR_LOG_WARN("meta: out of memory: a watch on %s is not set",
                    it->path);
    switch (it->kind) {
    case K_SESSION:
        if (it->zev == GR_META_SESSION_EXPIRED)
            watches_free(zk); /* they went with the session */
        if (zk->base.session_cb != NULL)
            zk->base.session_cb(zk->base.session_arg,
                                (gr_meta_session_t)it->zev, it->session);
        if (it->zev == GR_META_SESSION_EXPIRED && !zk->closed)
            reopen(zk);
        break;
    case K_WATCH:
        if (it->zev == zc.ev_created || it->zev == zc.ev_changed) {
            watch_fire(zk, it->path, false,
                       it->zev == zc.ev_created ? GR_META_EV_CREATED
                                                : GR_META_EV_CHANGED);
        } else if (it->zev == zc.ev_child) {
            watch_fire(zk, it->path, true, GR_META_EV_CHILDREN);
        } else if (it->zev == zc.ev_deleted) {
            watch_fire(zk, it->path, false, GR_META_EV_DELETED);
            watch_fire(zk, it->path, true, GR_META_EV_DELETED);
        }
        break;
    case K_LOST:
        GR_LOG_WARN("meta: out of memory: a ZooKeeper event was lost; "
                    "every watch fires");
        watch_fire(zk, NULL, false, GR_META_EV_CHANGED);
        watch_fire(zk, NULL, true, GR_META_EV_CHILDREN);
        break;
    case K_CREATE:
        ((gr_meta_create_cb)it->cb)(it->arg, rc, rc ? NULL : it->path,
                                    rc ? NULL : &it->st);
        break;
    case K_DATA:
        ((gr_meta_data_cb)it->cb)(it->arg, rc, rc ? NULL : it->data,
                                  rc ? 0 : it->len, rc ? NULL : &it->st);
        break;
    case K_STAT:
        ((gr_meta_stat_cb)it->cb)(it->arg, rc, rc ? NULL : &it->st);
        break;
    case K_CHILDREN:
        ((gr_meta_children_cb)it->cb)(it->arg, rc,
                                      rc ? NULL
                                         : (const char *const *)it->names,
                                      rc ? 0 : it->n, rc ? NULL : &it->st);
        break;
    case K_MULTI:
        ((gr_meta_multi_cb)it->cb)(it->arg, rc, it->results, it->n);
        break;
    }
}

static void zk_free(zk_t *zk);

static void
post_cb(gr_loop_t *loop, void *arg)
{
    zk_t *zk = arg;
    (void)loop;
    zk->delivering++;
    /* this post is used up; one asked for while delivering stays asked
     * for (posted again), so close never frees zk under a queued post */
    pthread_mutex_lock(&zk->mu);
    zk->posted = false;
    pthread_mutex_unlock(&zk->mu);
    for (;;) {
        item_t *it = NULL;
        pthread_mutex_lock(&zk->mu);
        if (!zk->closed && zk->lost) {
            zk->lost = false;
            if ((it = calloc(1, sizeof(*it))) != NULL)
                it->kind = K_LOST;
            else
                zk->lost = true;
        } else if (!zk->closed && zk->head != NULL && zk->head->done) {
            it = zk->head;
            if ((zk->head = it->next) == NULL)
                zk->tail = NULL;
        }
        pthread_mutex_unlock(&zk->mu);
        if (it == NULL)
            break;
        deliver(zk, it);
        item_free(it);
    }
    zk->delivering--;
    if (zk->closed && zk->delivering == 0) {
        bool posted;
        pthread_mutex_lock(&zk->mu);
        posted = zk->posted;
        pthread_mutex_unlock(&zk->mu);
        if (!posted)
            zk_free(zk);
    }
}

/* --- calls (loop thread) ------------------------------------------------- */

static item_t *
item_new(zk_t *zk, kind_t kind, void (*cb)(void), void *arg, const char *path)
{
    item_t *it = calloc(1, sizeof(*it));
    if (it == NULL)
        return NULL;
    it->zk = zk;
    it->kind = kind;
    it->cb = cb;
    it->arg = arg;
    if (path != NULL && (it->path = strdup(path)) == NULL) {
        free(it);
        return NULL;
    }
    return it;
}

/* Appends it, answered here with rc. */
static int
answer_now(zk_t *zk, item_t *it, int rc)
{
    pthread_mutex_lock(&zk->mu);
    it->rc = rc;
    it->done = true;
    append_locked(zk, it);
    kick_locked(zk);
    pthread_mutex_unlock(&zk->mu);
    return 0;
}

/* Appends it (pending) and returns the handle to call with, or NULL. */
static zhandle_t *
append_pending(zk_t *zk, item_t *it)
{
    zhandle_t *zh;
    pthread_mutex_lock(&zk->mu);
    append_locked(zk, it);
    zh = zk->zh;
    pthread_mutex_unlock(&zk->mu);
    return zh;
}

/* After a client call: its return code, when not ZOK, is the answer. */
static void
sent(item_t *it, zhandle_t *zh, int zrc)
{
    if (zh == NULL)
        finish(it, GR_META_SESSIONEXPIRED);
    else if (zrc != ZOK)
        finish(it, map_rc(zrc));
}

static int
zk_create(gr_meta_t *m, const char *path, const void *data, size_t len,
          int flags, gr_meta_create_cb cb, void *arg)
{
    zk_t *zk = (zk_t *)m;
    item_t *it = item_new(zk, K_CREATE, (void (*)(void))cb, arg, NULL);
    char chk[GR_META_MAX_PATH + 16], *full;
    zhandle_t *zh;
    int zrc = ZOK;

    if (it == NULL)
        return -1;
    snprintf(chk, sizeof chk, "%s%s", path ? path : "",
             flags & GR_META_SEQUENTIAL ? "0000000000" : "");
    if (path == NULL || !gr_meta_path_ok(chk) || len > GR_META_MAX_DATA ||
        (flags & ~(GR_META_EPHEMERAL | GR_META_SEQUENTIAL)) != 0)
        return answer_now(zk, it, GR_META_BADARGUMENTS);
    if (strcmp(path, "/") == 0)
        return answer_now(zk, it, GR_META_NODEEXISTS);
    it->pcap = strlen(path) + 16;
    if ((it->path = malloc(it->pcap)) == NULL ||
        (full = full_path(zk, path)) == NULL) {
        item_free(it);
        return -1;
    }
    if ((zh = append_pending(zk, it)) != NULL)
        zrc = zc.acreate2(zh, full, data ? (const char *)data : "",
                          data ? (int)len : -1, zc.open_acl,
                          (flags & GR_META_EPHEMERAL ? zc.f_ephemeral : 0) |
                              (flags & GR_META_SEQUENTIAL ? zc.f_sequence : 0),
                          on_create, it);
    free(full);
    sent(it, zh, zrc);
    return 0;
}

/* get, exists and children: one shape */
static int
zk_read(zk_t *zk, kind_t kind, const char *path, gr_meta_watch_cb w,
        void *warg, void (*cb)(void), void *arg)
{
    item_t *it = item_new(zk, kind, cb, arg, path);
    char *full;
    zhandle_t *zh;
    int zrc = ZOK;

    if (it == NULL)
        return -1;
    if (path == NULL || !gr_meta_path_ok(path))
        return answer_now(zk, it, GR_META_BADARGUMENTS);
    it->w = w;
    it->warg = warg;
    if ((full = full_path(zk, path)) == NULL) {
        item_free(it);
        return -1;
    }
    if ((zh = append_pending(zk, it)) != NULL) {
        watcher_fn zw = w ? on_zk_event : NULL;
        void *zctx = w ? zk : NULL;
        switch (kind) {
        case K_DATA:
            zrc = zc.awget(zh, full, zw, zctx, on_data, it);
            break;
        case K_STAT:
            zrc = zc.awexists(zh, full, zw, zctx, on_stat, it);
            break;
        default:
            zrc = zc.awget_children2(zh, full, zw, zctx, on_children, it);
            break;
        }
    }
    free(full);
    sent(it, zh, zrc);
    return 0;
}

static int
zk_get(gr_meta_t *m, const char *path, gr_meta_watch_cb w, void *warg,
       gr_meta_data_cb cb, void *arg)
{
    return zk_read((zk_t *)m, K_DATA, path, w, warg, (void (*)(void))cb, arg);
}

static int
zk_exists(gr_meta_t *m, const char *path, gr_meta_watch_cb w, void *warg,
          gr_meta_stat_cb cb, void *arg)
{
    return zk_read((zk_t *)m, K_STAT, path, w, warg, (void (*)(void))cb, arg);
}

static int
zk_children(gr_meta_t *m, const char *path, gr_meta_watch_cb w, void *warg,
            gr_meta_children_cb cb, void *arg)
{
    return zk_read((zk_t *)m, K_CHILDREN, path, w, warg, (void (*)(void))cb,
                   arg);
}

/* The first op meta_zk refuses itself (bad path, data or type), or -1. */
static int
multi_bad_op(const gr_meta_op_t *ops, int n)
{
    for (int i = 0; i < n; i++) {
        const gr_meta_op_t *op = &ops[i];
        char chk[GR_META_MAX_PATH + 16];
        if (op->path == NULL)
            return i;
        snprintf(chk, sizeof chk, "%s%s", op->path,
                 op->type == GR_META_OP_CREATE &&
                         (op->flags & GR_META_SEQUENTIAL)
                     ? "0000000000"
                     : "");
        if (!gr_meta_path_ok(chk))
            return i;
        switch (op->type) {
        case GR_META_OP_CREATE:
            if (op->len > GR_META_MAX_DATA || strcmp(op->path, "/") == 0 ||
                (op->flags & ~(GR_META_EPHEMERAL | GR_META_SEQUENTIAL)) != 0)
                return i;
            break;
        case GR_META_OP_SET:
            if (op->len > GR_META_MAX_DATA)
                return i;
            break;
        case GR_META_OP_DELETE:
            if (strcmp(op->path, "/") == 0)
                return i;
            break;
        case GR_META_OP_CHECK:
            break;
        default:
            return i;
        }
    }
    return -1;
}

static int
zk_multi(gr_meta_t *m, const gr_meta_op_t *ops, int n, gr_meta_multi_cb cb,
         void *arg)
{
    zk_t *zk = (zk_t *)m;
    item_t *it = item_new(zk, K_MULTI, (void (*)(void))cb, arg, NULL);
    zhandle_t *zh;
    int bad, zrc = ZOK;

    if (it == NULL)
        return -1;
    if (n < 1 || n > MAX_MULTI)
        return answer_now(zk, it, GR_META_BADARGUMENTS);
    it->n = n;
    if ((it->results = calloc((size_t)n, sizeof(*it->results))) == NULL ||
        (it->ops = calloc((size_t)n, sizeof(*it->ops))) == NULL ||
        (it->zres = calloc((size_t)n, sizeof(*it->zres))) == NULL ||
        (it->zst = calloc((size_t)n, sizeof(*it->zst))) == NULL ||
        (it->bufs = calloc(2 * (size_t)n, sizeof(*it->bufs))) == NULL) {
        item_free(it);
        return -1;
    }
    if ((bad = multi_bad_op(ops, n)) >= 0) {
        for (int i = 0; i < n; i++)
            it->results[i].rc = i < bad    ? GR_META_OK
                                : i == bad ? GR_META_BADARGUMENTS
                                           : GR_META_RUNTIMEINCONSISTENCY;
        return answer_now(zk, it, GR_META_BADARGUMENTS);
    }
    for (int i = 0; i < n; i++) {
        const gr_meta_op_t *op = &ops[i];
        char *full = it->bufs[2 * i] = full_path(zk, op->path);
        if (full == NULL) {
            item_free(it);
            return -1;
        }
        switch (op->type) {
        case GR_META_OP_CREATE: {
            size_t cap = strlen(full) + 16;
            if ((it->bufs[2 * i + 1] = malloc(cap)) == NULL) {
                item_free(it);
                return -1;
            }
            zc.create_op_init(
                &it->ops[i], full, op->data ? (const char *)op->data : "",
                op->data ? (int)op->len : -1, zc.open_acl,
                (op->flags & GR_META_EPHEMERAL ? zc.f_ephemeral : 0) |
                    (op->flags & GR_META_SEQUENTIAL ? zc.f_sequence : 0),
                it->bufs[2 * i + 1], (int)cap);
            break;
        }
        case GR_META_OP_SET:
            zc.set_op_init(&it->ops[i], full,
                           op->data ? (const char *)op->data : "",
                           op->data ? (int)op->len : -1, op->version,
                           &it->zst[i]);
            break;
        case GR_META_OP_DELETE:
            zc.delete_op_init(&it->ops[i], full, op->version);
            break;
        case GR_META_OP_CHECK:
            zc.check_op_init(&it->ops[i], full, op->version);
            break;
        }
    }
    if ((zh = append_pending(zk, it)) != NULL)
        zrc = zc.amulti(zh, n, it->ops, it->zres, on_multi, it);
    if (zh == NULL || zrc != ZOK)
        for (int i = 0; i < n; i++)
            it->results[i].rc = zh == NULL ? GR_META_SESSIONEXPIRED
                                           : map_rc(zrc);
    sent(it, zh, zrc);
    return 0;
}

static void
zk_free(zk_t *zk)
{
    while (zk->head) {
        item_t *it = zk->head;
        zk->head = it->next;
        item_free(it);
    }
    watches_free(zk);
    pthread_mutex_destroy(&zk->mu);
    pthread_cond_destroy(&zk->cv);
    free(zk->hosts);
    free(zk->chroot);
    free(zk);
}

/* Ends the handle: it closes the session (the servers delete its
 * ephemerals at once), and answers what was pending with ZCLOSING. */
static void
end_handle(zk_t *zk)
{
    zhandle_t *zh;
    pthread_mutex_lock(&zk->mu);
    zh = zk->zh;
    zk->zh = NULL;
    pthread_mutex_unlock(&zk->mu);
    if (zh != NULL)
        zc.close(zh);
}

static void
zk_close(gr_meta_t *m)
{
    zk_t *zk = (zk_t *)m;
    bool posted;
    pthread_mutex_lock(&zk->mu);
    zk->closed = true;
    pthread_mutex_unlock(&zk->mu);
    end_handle(zk);
    pthread_mutex_lock(&zk->mu);
    posted = zk->posted;
    pthread_mutex_unlock(&zk->mu);
    if (!posted && zk->delivering == 0)
        zk_free(zk);
}

static const gr_meta_ops_t zk_ops = {
    .name = "zookeeper",
    .create = zk_create,
    .get = zk_get,
    .exists = zk_exists,
    .children = zk_children,
    .multi = zk_multi,
    .close = zk_close,
};

/* --- sessions ---------------------------------------------------------- */

static void
zk_log(const char *message)
{
    GR_LOG_DEBUG("meta: zookeeper client: %s", message);
}

static int
start_handle(zk_t *zk)
{
    zhandle_t *zh;
    pthread_mutex_lock(&zk->mu);
    zk->state = 0;
    /* the watcher may run before init returns: it must find zk->zh */
    zh = zc.init(zk->hosts, on_zk_event, zk->session_timeout_ms, NULL, zk, 0,
                 zk_log);
    zk->zh = zh;
    pthread_mutex_unlock(&zk->mu);
    if (zh == NULL) {
        GR_LOG_ERROR("meta: cannot start a ZooKeeper client for %s: %s",
                     zk->hosts, strerror(errno));
        return -1;
    }
    return 0;
}

/* EXPIRED delivered: a new session, as Kafka's ZooKeeperClient does. */
static void
reopen(zk_t *zk)
{
    GR_LOG_WARN("meta: ZooKeeper session expired; opening a new one");
    end_handle(zk);
    if (start_handle(zk) != 0)
        GR_LOG_ERROR("meta: no ZooKeeper session: every call fails with "
                     "SESSIONEXPIRED");
}

static int64_t
mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for the first session, at most ms: 0, or -1 (logged). */
static int
wait_session(zk_t *zk, int ms)
{
    struct timespec dl;
    int st;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += ms / 1000;
    dl.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&zk->mu);
    while (zk->state == 0 &&
           pthread_cond_timedwait(&zk->cv, &zk->mu, &dl) != ETIMEDOUT)
        ;
    st = zk->state;
    pthread_mutex_unlock(&zk->mu);
    if (st == GR_META_SESSION_CONNECTED)
        return 0;
    if (st == 0)
        GR_LOG_ERROR("meta: timed out waiting for a ZooKeeper session with "
                     "%s after %d ms (zookeeper.connection.timeout.ms): are "
                     "the servers up?",
                     zk->hosts, ms);
    else
        GR_LOG_ERROR("meta: ZooKeeper at %s refused the session (%s)",
                     zk->hosts, gr_meta_rc_name(st));
    return -1;
}

/* Makes the chroot and its parents (persistent, empty), as Kafka's
 * createChrootIfNecessary; synchronous, at start-up. 0 or -1 (logged). */
static int
make_chroot(zk_t *zk)
{
    char p[GR_META_MAX_PATH + 1];
    zhandle_t *zh = zk->zh;
    for (size_t i = 1; i <= zk->chroot_len; i++) {
        int zrc;
        if (i < zk->chroot_len && zk->chroot[i] != '/')
            continue;
        memcpy(p, zk->chroot, i);
        p[i] = '\0';
        zrc = zc.create(zh, p, NULL, -1, zc.open_acl, 0, NULL, 0);
        if (zrc != ZOK && zrc != ZNODEEXISTS) {
            GR_LOG_ERROR("meta: cannot create the chroot %s in ZooKeeper: "
                         "%s",
                         p, zc.zerror(zrc));
            return -1;
        }
        if (zrc == ZOK)
            GR_LOG_INFO("meta: created the chroot path %s in ZooKeeper", p);
    }
    return 0;
}

gr_meta_t *
gr_meta_zk_open(const gr_meta_cfg_t *cfg, gr_meta_session_cb session_cb,
                void *arg)
{
    zk_t *zk;
    const char *slash;
    int64_t t0 = mono_ms();
    int ctimeout = cfg->connection_timeout_ms > 0 ? cfg->connection_timeout_ms
                                                  : cfg->session_timeout_ms;

    pthread_once(&zc_once, zc_load);
    if (zc_err[0] != '\0') {
        GR_LOG_ERROR("meta: zookeeper.connect needs ZooKeeper's C client: "
                     "%s",
                     zc_err);
        return NULL;
    }
    if (cfg->connect == NULL || cfg->connect[0] == '\0' ||
        cfg->connect[0] == '/') {
        GR_LOG_ERROR("meta: zookeeper.connect=%s names no server",
                     cfg->connect ? cfg->connect : "");
        return NULL;
    }
    if ((zk = calloc(1, sizeof(*zk))) == NULL)
        return NULL;
    pthread_mutex_init(&zk->mu, NULL);
    pthread_cond_init(&zk->cv, NULL);
    zk->base.ops = &zk_ops;
    zk->base.session_cb = session_cb;
    zk->base.session_arg = arg;
    zk->loop = cfg->loop;
    zk->session_timeout_ms = cfg->session_timeout_ms;
    /* ZooKeeper's ConnectStringParser: the chroot starts at the first
     * '/'; "/" alone is none */
    slash = strchr(cfg->connect, '/');
    zk->hosts = slash ? strndup(cfg->connect, (size_t)(slash - cfg->connect))
                      : strdup(cfg->connect);
    zk->chroot = strdup(slash && slash[1] != '\0' ? slash : "");
    if (zk->hosts == NULL || zk->chroot == NULL) {
        zk_free(zk);
        return NULL;
    }
    zk->chroot_len = strlen(zk->chroot);
    if (zk->chroot_len > 0 && !gr_meta_path_ok(zk->chroot)) {
        GR_LOG_ERROR("meta: zookeeper.connect=%s: the chroot %s is not a "
                     "valid ZooKeeper path",
                     cfg->connect, zk->chroot);
        zk_free(zk);
        return NULL;
    }
    if (start_handle(zk) != 0) {
        zk_free(zk);
        return NULL;
    }
    if (wait_session(zk, ctimeout) != 0 ||
        (zk->chroot_len > 0 && make_chroot(zk) != 0)) {
        zk_close(&zk->base);
        return NULL;
    }
    pthread_mutex_lock(&zk->mu);
    GR_LOG_INFO("meta: ZooKeeper session 0x%" PRIx64 " with %s (chroot %s), "
                "timeout %d ms negotiated, in %" PRId64 " ms",
                zk->session, zk->hosts, zk->chroot_len ? zk->chroot : "/",
                zc.recv_timeout(zk->zh), mono_ms() - t0);
    pthread_mutex_unlock(&zk->mu);
    return &zk->base;
}
