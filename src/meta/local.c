/*
 * meta_local: the gr_meta engine built in (meta.h). One process, one
 * session, no network. The tree lives in memory; every write that
 * succeeds becomes one journal record, appended and fsynced by a worker
 * before anyone hears of it; now and then (and at start-up when the
 * journal holds records) a worker writes the whole tree as a snapshot
 * and empties the journal. Files, under <log.dirs>/__cluster_metadata_local/
 * (Kafka's names for a metadata log's files: a .log of records, a
 * .checkpoint snapshot):
 *
 *   00000000000000000000.checkpoint (snapshot; replaced by rename)
 *     OFFSET SIZE DESCRIPTION
 *          0    4 magic "GRMS"
 *          4    4 format version, 1
 *          8    8 last zxid the snapshot holds
 *         16    4 node count n (the root first, parents before children)
 *         20    . n nodes: path (u16 length, bytes), data (u32 length,
 *                 bytes), czxid, mzxid, pzxid (i64 each), version,
 *                 cversion (i32 each), ephemeral owner (i64)
 *        end-4  4 CRC-32C of every byte before it
 *
 *   00000000000000000000.log (journal, appended)
 *     a sequence of records, each
 *          0    4 payload length
 *          4    4 CRC-32C of the payload
 *          8    . payload: zxid (i64), op count (u16), ops: type (u8),
 *                 then create: ephemeral owner (i64), path, data;
 *                 set: path, data; delete: path (paths and data as in
 *                 the snapshot). A create names its final path, so
 *                 replay needs no sequence counter.
 *
 * All integers big-endian. Recovery applies the records whose zxid is
 * above the snapshot's; the first record that is short, fails its CRC or
 * does not apply ends the journal: it and what follows are cut off, with
 * a log line (a write torn by a crash was never acknowledged). Ephemeral
 * nodes left by the previous process (its session ended with it) are
 * then deleted by one journaled write.
 *
 * Invariants: at most one worker job (l->job) at a time; l->durable <=
 * l->queued (journal records counted); a completion in l->head.. waits
 * for the record l->queued held when it was made, and they run in queue
 * order. Loop thread only, except job_work().
 */
#include "meta/meta.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/crc32c.h"
#include "core/file.h"
#include "core/log.h"

#define SNAP_NAME     "00000000000000000000.checkpoint"
#define JOURNAL_NAME  "00000000000000000000.log"
#define SNAP_MAGIC    "GRMS"
#define SNAP_VERSION  1
#define MAX_MULTI     1000
#define COMPACT_BYTES (4u * 1024 * 1024) /* journal size that asks for a
                                          * snapshot */

/* --- growable byte buffer ------------------------------------------- */

typedef struct {
    uint8_t *p;
    size_t len, cap;
    bool oom;
} bb_t;

static void
bb_put(bb_t *b, const void *src, size_t n)
{
    if (b->oom)
        return;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        uint8_t *np;
        while (cap - b->len < n)
            cap *= 2;
        if ((np = realloc(b->p, cap)) == NULL) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}

static void
bb_u8(bb_t *b, uint8_t v)
{
    bb_put(b, &v, 1);
}

static void
bb_be(bb_t *b, uint64_t v, int bytes)
{
    uint8_t x[8];
    for (int i = 0; i < bytes; i++)
        x[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    bb_put(b, x, (size_t)bytes);
}

static void
bb_str(bb_t *b, const char *s)
{
    size_t n = strlen(s);
    bb_be(b, n, 2);
    bb_put(b, s, n);
}

static void
bb_data(bb_t *b, const void *d, size_t n)
{
    bb_be(b, n, 4);
    bb_put(b, d, n);
}

/* reader: ok turns false on the first short read and stays so */
typedef struct {
    const uint8_t *p;
    size_t len, pos;
    bool ok;
} rd_t;

static uint64_t
rd_be(rd_t *r, int bytes)
{
    uint64_t v = 0;
    if (!r->ok || r->len - r->pos < (size_t)bytes) {
        r->ok = false;
        return 0;
    }
    for (int i = 0; i < bytes; i++)
        v = v << 8 | r->p[r->pos++];
    return v;
}

static const uint8_t *
rd_bytes(rd_t *r, size_t n)
{
    const uint8_t *p;
    if (!r->ok || r->len - r->pos < n) {
        r->ok = false;
        return NULL;
    }
    p = r->p + r->pos;
    r->pos += n;
    return p;
}

/* a path into buf (GR_META_MAX_PATH + 1 bytes); false if bad */
static bool
rd_path(rd_t *r, char *buf)
{
    size_t n = (size_t)rd_be(r, 2);
    const uint8_t *p;
    if (n > GR_META_MAX_PATH || (p = rd_bytes(r, n)) == NULL)
        return r->ok = false;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return true;
}

static const uint8_t *
rd_data(rd_t *r, size_t *n)
{
    *n = (size_t)rd_be(r, 4);
    if (*n > GR_META_MAX_DATA) {
        r->ok = false;
        return NULL;
    }
    return rd_bytes(r, *n);
}

/* --- the tree --------------------------------------------------------- */

typedef struct node {
    char *name; /* last component; "" for the root */
    struct node *parent;
    struct node **kids; /* sorted by strcmp of name */
    int nkids, capkids;
    uint8_t *data;
    size_t len;
    gr_meta_stat_t st; /* data_length, num_children filled on export */
} node_t;

static node_t *
node_new(const char *name, const void *data, size_t len)
{
    node_t *n = calloc(1, sizeof(*n));
    if (n == NULL)
        return NULL;
    n->name = strdup(name);
    n->data = malloc(len ? len : 1);
    if (n->name == NULL || n->data == NULL) {
        free(n->name);
        free(n->data);
        free(n);
        return NULL;
    }
    if (len)
        memcpy(n->data, data, len);
    n->len = len;
    return n;
}

static void
node_free(node_t *n)
{
    if (n == NULL)
        return;
    for (int i = 0; i < n->nkids; i++)
        node_free(n->kids[i]);
    free(n->kids);
    free(n->name);
    free(n->data);
    free(n);
}

/* index of name in p's kids, or -(insertion point) - 1 */
static int
kid_index(const node_t *p, const char *name, size_t nlen)
{
    int lo = 0, hi = p->nkids - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        const char *k = p->kids[mid]->name;
        int c = strncmp(k, name, nlen);
        if (c == 0 && k[nlen] != '\0')
            c = 1;
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

static int
kid_attach(node_t *p, node_t *n)
{
    int i = kid_index(p, n->name, strlen(n->name));
    GR_ASSERT(i < 0);
    i = -i - 1;
    if (p->nkids == p->capkids) {
        int cap = p->capkids ? p->capkids * 2 : 4;
        node_t **nk = realloc(p->kids, (size_t)cap * sizeof(*nk));
        if (nk == NULL)
            return -1;
        p->kids = nk;
        p->capkids = cap;
    }
    memmove(p->kids + i + 1, p->kids + i,
            (size_t)(p->nkids - i) * sizeof(*p->kids));
    p->kids[i] = n;
    p->nkids++;
    n->parent = p;
    return 0;
}

static void
kid_detach(node_t *p, node_t *n)
{
    int i = kid_index(p, n->name, strlen(n->name));
    GR_ASSERT(i >= 0 && p->kids[i] == n);
    memmove(p->kids + i, p->kids + i + 1,
            (size_t)(p->nkids - i - 1) * sizeof(*p->kids));
    p->nkids--;
}

static node_t *
lookup(node_t *root, const char *path)
{
    node_t *n = root;
    const char *c = path + 1;
    if (path[1] == '\0')
        return root;
    while (n != NULL) {
        const char *e = strchr(c, '/');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        int i = kid_index(n, c, len);
        n = i >= 0 ? n->kids[i] : NULL;
        if (e == NULL)
            break;
        c = e + 1;
    }
    return n;
}

static void
stat_of(const node_t *n, gr_meta_stat_t *st)
{
    *st = n->st;
    st->data_length = (int32_t)n->len;
    st->num_children = n->nkids;
}

/* --- the engine's state ------------------------------------------------ */

typedef enum {
    C_SESSION,
    C_WATCH,
    C_CREATE,
    C_DATA,
    C_STAT,
    C_CHILDREN,
    C_MULTI,
} ckind_t;

typedef struct compl {
    struct compl *next;
    uint64_t need; /* the journal record that must be durable first */
    ckind_t kind;
    int rc;
    void (*cb)(void);
    void *arg;
    char *path;
    uint8_t *data;
    size_t len;
    gr_meta_stat_t st;
    char **names;
    int n;
    gr_meta_result_t *results;
    gr_meta_event_t ev;
} compl_t;

typedef struct watch {
    struct watch *next;
    char *path;
    bool child; /* a children() watch, else get()/exists() */
    gr_meta_watch_cb cb;
    void *arg;
} watch_t;

typedef struct job {
    struct local *l;
    uint8_t *snap; /* whole tree, or NULL */
    size_t snap_len;
    uint8_t *rec; /* journal bytes to append */
    size_t rec_len;
    uint64_t seq; /* l->queued when made */
    int err;      /* errno of the first failure */
} job_t;

typedef struct local {
    gr_meta_t base;
    gr_loop_t *loop;
    gr_workers_t *workers;
    char *snap_path, *snap_tmp, *journal_path, *dir;
    int journal_fd;
    node_t *root;
    int64_t zxid;
    int64_t session;
    watch_t *watches;
    compl_t *head, *tail;
    uint64_t queued, durable; /* journal records */
    bb_t pend;                /* records not yet handed to a worker */
    size_t journal_bytes;     /* on disk, or handed to a worker */
    bool want_snapshot;
    job_t *job;        /* in a worker */
    bool job_unsent;   /* job could not be submitted: fail it from post */
    bool posted;       /* post_cb() pending */
    bool closed;       /* closed while job or post pending */
    bool broken;       /* a write failed: everything fails from now on */
    int releasing;
} local_t;

static const gr_meta_ops_t local_ops;

static void kick_write(local_t *l);
static void flush_at_close(local_t *l);

static void
compl_free(compl_t *c)
{
    free(c->path);
    free(c->data);
    for (int i = 0; c->names != NULL && i < c->n; i++)
        free(c->names[i]);
    free(c->names);
    if (c->results != NULL)
        for (int i = 0; i < c->n; i++)
            free((char *)c->results[i].path);
    free(c->results);
    free(c);
}

static void
enqueue(local_t *l, compl_t *c)
{
    c->need = l->queued;
    if (l->tail)
        l->tail->next = c;
    else
        l->head = c;
    l->tail = c;
}

static void
local_free(local_t *l)
{
    while (l->head) {
        compl_t *c = l->head;
        l->head = c->next;
        compl_free(c);
    }
    while (l->watches) {
        watch_t *w = l->watches;
        l->watches = w->next;
        free(w->path);
        free(w);
    }
    node_free(l->root);
    free(l->pend.p);
    if (l->journal_fd >= 0)
        close(l->journal_fd);
    free(l->snap_path);
    free(l->snap_tmp);
    free(l->journal_path);
    free(l->dir);
    free(l);
}

static void
deliver(local_t *l, compl_t *c)
{
    int rc = c->rc;
    if (l->broken && c->need > l->durable)
        rc = GR_META_SYSTEMERROR;
    switch (c->kind) {
    case C_SESSION:
        ((gr_meta_session_cb)c->cb)(c->arg, (gr_meta_session_t)c->rc,
                                    l->session);
        break;
    case C_WATCH:
        if (rc != GR_META_SYSTEMERROR)
            ((gr_meta_watch_cb)c->cb)(c->arg, c->ev, c->path);
        break;
    case C_CREATE:
        ((gr_meta_create_cb)c->cb)(c->arg, rc, rc ? NULL : c->path,
                                   rc ? NULL : &c->st);
        break;
    case C_DATA:
        ((gr_meta_data_cb)c->cb)(c->arg, rc, rc ? NULL : c->data,
                                 rc ? 0 : c->len, rc ? NULL : &c->st);
        break;
    case C_STAT:
        ((gr_meta_stat_cb)c->cb)(c->arg, rc, rc ? NULL : &c->st);
        break;
    case C_CHILDREN:
        ((gr_meta_children_cb)c->cb)(c->arg, rc,
                                     rc ? NULL : (const char *const *)c->names,
                                     rc ? 0 : c->n, rc ? NULL : &c->st);
        break;
    case C_MULTI:
        if (rc == GR_META_SYSTEMERROR && c->rc == 0)
            for (int i = 0; i < c->n; i++)
                c->results[i].rc = GR_META_SYSTEMERROR;
        ((gr_meta_multi_cb)c->cb)(c->arg, rc, c->results, c->n);
        break;
    }
}

/* Runs the completions whose records are durable, in order. A callback
 * may call in again, or close. */
static void
release(local_t *l)
{
    l->releasing++;
    while (!l->closed && l->head != NULL &&
           (l->head->need <= l->durable || l->broken)) {
        compl_t *c = l->head;
        if ((l->head = c->next) == NULL)
            l->tail = NULL;
        deliver(l, c);
        compl_free(c);
    }
    l->releasing--;
}

static bool
can_free(const local_t *l)
{
    return l->closed && l->job == NULL && !l->posted && l->releasing == 0;
}

static void job_done(gr_loop_t *loop, void *arg);

static void
post_cb(gr_loop_t *loop, void *arg)
{
    local_t *l = arg;
    (void)loop;
    l->posted = false;
    if (l->job_unsent) {
        l->job_unsent = false;
        job_done(loop, l->job);
        return;
    }
    if (!l->closed)
        release(l);
    if (can_free(l))
        local_free(l);
}

/* Every call posts first, so its callback runs from the loop, never
 * inside the call. */
static int
schedule(local_t *l)
{
    if (l->posted)
        return 0;
    if (gr_loop_post(l->loop, post_cb, l) != 0)
        return -1;
    l->posted = true;
    return 0;
}

/* --- watches ------------------------------------------------------------ */

static int
watch_add(local_t *l, const char *path, bool child, gr_meta_watch_cb cb,
          void *arg)
{
    watch_t *w;
    if (cb == NULL)
        return 0;
    for (w = l->watches; w != NULL; w = w->next)
        if (w->child == child && w->cb == cb && w->arg == arg &&
            strcmp(w->path, path) == 0)
            return 0; /* fires once anyway */
    if ((w = calloc(1, sizeof(*w))) == NULL || (w->path = strdup(path)) == NULL) {
        free(w);
        return -1;
    }
    w->child = child;
    w->cb = cb;
    w->arg = arg;
    w->next = l->watches;
    l->watches = w;
    return 0;
}

/* Fires (and forgets) the watches of path of one kind as ev. */
static void
watch_fire(local_t *l, const char *path, bool child, gr_meta_event_t ev)
{
    for (watch_t **pp = &l->watches; *pp != NULL;) {
        watch_t *w = *pp;
        compl_t *c;
        if (w->child != child || strcmp(w->path, path) != 0) {
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        if ((c = calloc(1, sizeof(*c))) != NULL) {
            c->kind = C_WATCH;
            c->cb = (void (*)(void))w->cb;
            c->arg = w->arg;
            c->ev = ev;
            c->path = w->path; /* moved */
            enqueue(l, c);
        } else {
            GR_LOG_ERROR("meta: out of memory: a watch on %s lost", path);
            free(w->path);
        }
        free(w);
    }
}

/* --- applying writes, with undo ---------------------------------------- */

typedef enum { U_CREATE, U_SET, U_DELETE } utype_t;

typedef struct {
    utype_t type;
    node_t *node;
    /* the parent's (create, delete) or the node's (set) stat before */
    gr_meta_stat_t st;
    uint8_t *data; /* set: the old data */
    size_t len;
    gr_meta_event_t ev; /* for the watches, once committed */
    char *path;
} undo_t;

typedef struct {
    undo_t *u;
    int n;
} txn_t;

static void
parent_path(const char *path, char *out)
{
    const char *s = strrchr(path, '/');
    size_t n = (size_t)(s - path);
    if (n == 0)
        n = 1;
    memcpy(out, path, n);
    out[n] = '\0';
}

/* Creates path (its final name) at zxid; 0 or a GR_META_ error. */
static int
do_create(local_t *l, txn_t *t, const char *path, const void *data,
          size_t len, int64_t owner, int64_t zxid)
{
    char pp[GR_META_MAX_PATH + 1];
    node_t *p, *n;
    undo_t *u = &t->u[t->n];

    if (!gr_meta_path_ok(path) || path[1] == '\0' || len > GR_META_MAX_DATA)
        return gr_meta_path_ok(path) && path[1] == '\0' ? GR_META_NODEEXISTS
                                                : GR_META_BADARGUMENTS;
    parent_path(path, pp);
    if ((p = lookup(l->root, pp)) == NULL)
        return GR_META_NONODE;
    if (p->st.ephemeral_owner != 0)
        return GR_META_NOCHILDRENFOREPHEMERALS;
    if (lookup(l->root, path) != NULL)
        return GR_META_NODEEXISTS;
    if ((n = node_new(strrchr(path, '/') + 1, data, len)) == NULL ||
        (u->path = strdup(path)) == NULL) {
        node_free(n);
        return GR_META_SYSTEMERROR;
    }
    if (kid_attach(p, n) != 0) {
        node_free(n);
        free(u->path);
        return GR_META_SYSTEMERROR;
    }
    u->type = U_CREATE;
    u->node = n;
    u->st = p->st;
    n->st.czxid = n->st.mzxid = n->st.pzxid = zxid;
    n->st.ephemeral_owner = owner;
    p->st.cversion++;
    p->st.pzxid = zxid;
    t->n++;
    return 0;
}

static int
do_set(local_t *l, txn_t *t, const char *path, const void *data, size_t len,
       int32_t version, int64_t zxid)
{
    node_t *n;
    uint8_t *copy;
    undo_t *u = &t->u[t->n];

    if (!gr_meta_path_ok(path) || len > GR_META_MAX_DATA)
        return GR_META_BADARGUMENTS;
    if ((n = lookup(l->root, path)) == NULL)
        return GR_META_NONODE;
    if (version != -1 && version != n->st.version)
        return GR_META_BADVERSION;
    if ((copy = malloc(len ? len : 1)) == NULL ||
        (u->path = strdup(path)) == NULL) {
        free(copy);
        return GR_META_SYSTEMERROR;
    }
    if (len)
        memcpy(copy, data, len);
    u->type = U_SET;
    u->node = n;
    u->st = n->st;
    u->data = n->data;
    u->len = n->len;
    n->data = copy;
    n->len = len;
    n->st.version++;
    n->st.mzxid = zxid;
    t->n++;
    return 0;
}

static int
do_delete(local_t *l, txn_t *t, const char *path, int32_t version,
          int64_t zxid)
{
    node_t *n;
    undo_t *u = &t->u[t->n];

    if (!gr_meta_path_ok(path) || path[1] == '\0')
        return GR_META_BADARGUMENTS;
    if ((n = lookup(l->root, path)) == NULL)
        return GR_META_NONODE;
    if (version != -1 && version != n->st.version)
        return GR_META_BADVERSION;
    if (n->nkids > 0)
        return GR_META_NOTEMPTY;
    if ((u->path = strdup(path)) == NULL)
        return GR_META_SYSTEMERROR;
    u->type = U_DELETE;
    u->node = n;
    u->st = n->parent->st;
    kid_detach(n->parent, n);
    n->parent->st.cversion++;
    n->parent->st.pzxid = zxid;
    t->n++;
    return 0;
}

static void
txn_rollback(txn_t *t)
{
    for (int i = t->n - 1; i >= 0; i--) {
        undo_t *u = &t->u[i];
        switch (u->type) {
        case U_CREATE:
            kid_detach(u->node->parent, u->node);
            u->node->parent->st = u->st;
            node_free(u->node);
            break;
        case U_SET:
            free(u->node->data);
            u->node->data = u->data;
            u->node->len = u->len;
            u->node->st = u->st;
            break;
        case U_DELETE:
        {
            /* its slot was freed by the detach: attach cannot fail */
            int rc = kid_attach(u->node->parent, u->node);
            GR_ASSERT(rc == 0);
        }
            u->node->parent->st = u->st;
            break;
        }
        free(u->path);
    }
    t->n = 0;
}

/* Fires the watches and frees what the undo kept. */
static void
txn_commit(local_t *l, txn_t *t)
{
    char pp[GR_META_MAX_PATH + 1];
    for (int i = 0; i < t->n; i++) {
        undo_t *u = &t->u[i];
        parent_path(u->path, pp);
        switch (u->type) {
        case U_CREATE:
            watch_fire(l, u->path, false, GR_META_EV_CREATED);
            watch_fire(l, pp, true, GR_META_EV_CHILDREN);
            break;
        case U_SET:
            free(u->data);
            watch_fire(l, u->path, false, GR_META_EV_CHANGED);
            break;
        case U_DELETE:
            node_free(u->node);
            watch_fire(l, u->path, false, GR_META_EV_DELETED);
            watch_fire(l, u->path, true, GR_META_EV_DELETED);
            watch_fire(l, pp, true, GR_META_EV_CHILDREN);
            break;
        }
        free(u->path);
    }
    t->n = 0;
}

/* --- journal records ---------------------------------------------------- */

/* Appends txn t (committed at zxid) to the record buffer b. */
static void
record_encode(bb_t *b, const txn_t *t, int64_t zxid)
{
    size_t start = b->len;
    uint32_t crc;
    bb_be(b, 0, 8); /* length and CRC, set below */
    bb_be(b, (uint64_t)zxid, 8);
    bb_be(b, (uint64_t)t->n, 2);
    for (int i = 0; i < t->n; i++) {
        const undo_t *u = &t->u[i];
        bb_u8(b, (uint8_t)(u->type == U_CREATE  ? GR_META_OP_CREATE
                           : u->type == U_SET ? GR_META_OP_SET
                                              : GR_META_OP_DELETE));
        if (u->type == U_CREATE)
            bb_be(b, (uint64_t)u->node->st.ephemeral_owner, 8);
        bb_str(b, u->path);
        if (u->type != U_DELETE)
            bb_data(b, u->node->data, u->node->len);
    }
    if (b->oom)
        return;
    {
        size_t plen = b->len - start - 8;
        uint8_t *h = b->p + start;
        crc = gr_crc32c(h + 8, plen);
        for (int i = 0; i < 4; i++) {
            h[i] = (uint8_t)(plen >> (24 - 8 * i));
            h[4 + i] = (uint8_t)(crc >> (24 - 8 * i));
        }
    }
}

/* Replays one record's payload; 0, or -1 if it is bad or does not
 * apply (then nothing of it applied). */
static int
record_apply(local_t *l, const uint8_t *p, size_t len)
{
    rd_t r = { p, len, 0, true };
    char path[GR_META_MAX_PATH + 1];
    int64_t zxid = (int64_t)rd_be(&r, 8);
    int nops = (int)rd_be(&r, 2), rc = 0;
    undo_t *u;
    txn_t t;

    if (!r.ok || zxid <= l->zxid || nops < 1 || nops > MAX_MULTI ||
        (u = calloc((size_t)nops, sizeof(*u))) == NULL)
        return -1;
    t = (txn_t){ u, 0 };
    for (int i = 0; i < nops && rc == 0; i++) {
        int type = (int)rd_be(&r, 1);
        int64_t owner = type == GR_META_OP_CREATE ? (int64_t)rd_be(&r, 8) : 0;
        const uint8_t *d = NULL;
        size_t dlen = 0;
        if (!rd_path(&r, path)) {
            rc = -1;
            break;
        }
        if (type != GR_META_OP_DELETE && (d = rd_data(&r, &dlen)) == NULL &&
            !r.ok) {
            rc = -1;
            break;
        }
        if (type == GR_META_OP_CREATE)
            rc = do_create(l, &t, path, d, dlen, owner, zxid);
        else if (type == GR_META_OP_SET)
            rc = do_set(l, &t, path, d, dlen, -1, zxid);
        else if (type == GR_META_OP_DELETE)
            rc = do_delete(l, &t, path, -1, zxid);
        else
            rc = -1;
    }
    if (rc != 0 || r.pos != r.len) {
        txn_rollback(&t);
        free(u);
        return -1;
    }
    /* no watches yet: nobody could set one */
    txn_commit(l, &t);
    free(u);
    l->zxid = zxid;
    return 0;
}

/* Replays journal bytes; returns how many bytes hold whole records that
 * applied (those at or below the snapshot's zxid are skipped). */
static size_t
journal_replay(local_t *l, const uint8_t *p, size_t len, int64_t snap_zxid)
{
    size_t pos = 0;
    while (len - pos >= 8) {
        rd_t r = { p + pos, len - pos, 0, true };
        size_t plen = (size_t)rd_be(&r, 4);
        uint32_t crc = (uint32_t)rd_be(&r, 4);
        const uint8_t *pl = rd_bytes(&r, plen);
        if (pl == NULL || plen < 10 || gr_crc32c(pl, plen) != crc)
            break;
        rd_t z = { pl, plen, 0, true };
        if ((int64_t)rd_be(&z, 8) <= snap_zxid) {
            pos += 8 + plen;
            continue;
        }
        if (record_apply(l, pl, plen) != 0)
            break;
        pos += 8 + plen;
    }
    return pos;
}

/* --- snapshots ------------------------------------------------------------ */

static void
snap_node(bb_t *b, const node_t *n, char *path, size_t plen, uint32_t *count)
{
    const char *p = plen ? path : "/";
    bb_str(b, p);
    bb_data(b, n->data, n->len);
    bb_be(b, (uint64_t)n->st.czxid, 8);
    bb_be(b, (uint64_t)n->st.mzxid, 8);
    bb_be(b, (uint64_t)n->st.pzxid, 8);
    bb_be(b, (uint32_t)n->st.version, 4);
    bb_be(b, (uint32_t)n->st.cversion, 4);
    bb_be(b, (uint64_t)n->st.ephemeral_owner, 8);
    (*count)++;
    for (int i = 0; i < n->nkids; i++) {
        size_t kl = strlen(n->kids[i]->name);
        path[plen] = '/';
        memcpy(path + plen + 1, n->kids[i]->name, kl + 1);
        snap_node(b, n->kids[i], path, plen + 1 + kl, count);
        path[plen] = '\0';
    }
}

/* The whole tree as a snapshot image; NULL on ENOMEM. */
static uint8_t *
snap_encode(const local_t *l, size_t *len)
{
    bb_t b = { 0 };
    char path[GR_META_MAX_PATH + 2] = "";
    uint32_t count = 0, crc;
    bb_put(&b, SNAP_MAGIC, 4);
    bb_be(&b, SNAP_VERSION, 4);
    bb_be(&b, (uint64_t)l->zxid, 8);
    bb_be(&b, 0, 4); /* count, below */
    snap_node(&b, l->root, path, 0, &count);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    for (int i = 0; i < 4; i++)
        b.p[16 + i] = (uint8_t)(count >> (24 - 8 * i));
    crc = gr_crc32c(b.p, b.len);
    bb_be(&b, crc, 4);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    *len = b.len;
    return b.p;
}

/* Loads a snapshot image into l (whose tree is the bare root); 0 or -1. */
static int
snap_load(local_t *l, const uint8_t *p, size_t len)
{
    rd_t r = { p, len, 0, true };
    char path[GR_META_MAX_PATH + 1];
    uint32_t count, crc;

    if (len < 24 || memcmp(p, SNAP_MAGIC, 4) != 0)
        return -1;
    crc = (uint32_t)p[len - 4] << 24 | (uint32_t)p[len - 3] << 16 |
          (uint32_t)p[len - 2] << 8 | p[len - 1];
    if (gr_crc32c(p, len - 4) != crc)
        return -1;
    r.len = len - 4;
    r.pos = 4;
    if (rd_be(&r, 4) != SNAP_VERSION)
        return -1;
    l->zxid = (int64_t)rd_be(&r, 8);
    count = (uint32_t)rd_be(&r, 4);
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *d;
        size_t dlen;
        node_t *n;
        gr_meta_stat_t st = { 0 };
        if (!rd_path(&r, path))
            return -1;
        d = rd_data(&r, &dlen);
        st.czxid = (int64_t)rd_be(&r, 8);
        st.mzxid = (int64_t)rd_be(&r, 8);
        st.pzxid = (int64_t)rd_be(&r, 8);
        st.version = (int32_t)rd_be(&r, 4);
        st.cversion = (int32_t)rd_be(&r, 4);
        st.ephemeral_owner = (int64_t)rd_be(&r, 8);
        if (!r.ok || !gr_meta_path_ok(path))
            return -1;
        if (i == 0) {
            /* the root comes first */
            uint8_t *nd;
            if (path[1] != '\0' || (nd = malloc(dlen ? dlen : 1)) == NULL)
                return -1;
            if (dlen)
                memcpy(nd, d, dlen);
            free(l->root->data);
            l->root->data = nd;
            l->root->len = dlen;
            l->root->st = st;
            continue;
        }
        {
            char pp[GR_META_MAX_PATH + 1];
            node_t *par;
            if (path[1] == '\0')
                return -1;
            parent_path(path, pp);
            if ((par = lookup(l->root, pp)) == NULL ||
                par->st.ephemeral_owner != 0 || lookup(l->root, path) != NULL)
                return -1;
            if ((n = node_new(strrchr(path, '/') + 1, d, dlen)) == NULL)
                return -1;
            n->st = st;
            if (kid_attach(par, n) != 0) {
                node_free(n);
                return -1;
            }
        }
    }
    return r.ok && r.pos == r.len ? 0 : -1;
}

/* --- the write job --------------------------------------------------------- */

/* On a worker: only the job and l's paths and journal fd, which stay
 * put while a job runs. */
static void
job_work(void *arg)
{
    job_t *j = arg;
    local_t *l = j->l;
    if (j->snap != NULL) {
        int fd = open(l->snap_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                      0644);
        if (fd < 0 || gr_write_full(fd, j->snap, j->snap_len) != 0 ||
            fsync(fd) != 0) {
            j->err = errno;
            if (fd >= 0)
                close(fd);
            return;
        }
        close(fd);
        /* after the rename the journal's records are all in the
         * snapshot; recovery skips them if the truncate is lost */
        if (rename(l->snap_tmp, l->snap_path) != 0 ||
            gr_fsync_dir(l->dir) != 0 || ftruncate(l->journal_fd, 0) != 0) {
            j->err = errno;
            return;
        }
    }
    if (j->rec_len > 0 &&
        gr_write_full(l->journal_fd, j->rec, j->rec_len) != 0) {
        j->err = errno;
        return;
    }
    if (fdatasync(l->journal_fd) != 0)
        j->err = errno;
}

static void
job_done(gr_loop_t *loop, void *arg)
{
    job_t *j = arg;
    local_t *l = j->l;
    (void)loop;
    l->job = NULL;
    if (j->err != 0 && !l->broken) {
        GR_LOG_ERROR("meta: writing %s failed: %s; the metadata store is "
                     "closed for writes",
                     j->snap ? l->snap_path : l->journal_path,
                     strerror(j->err));
        l->broken = true;
    }
    if (!l->broken) {
        l->durable = j->seq;
        if (j->snap != NULL)
            l->journal_bytes = 0;
        l->journal_bytes += j->rec_len;
        if (l->journal_bytes > COMPACT_BYTES)
            l->want_snapshot = true;
    }
    free(j->snap);
    free(j->rec);
    free(j);
    if (!l->closed) {
        release(l);
        if (!l->closed && !l->broken)
            kick_write(l);
    } else {
        flush_at_close(l); /* no new job: the workers may be stopping */
    }
    if (can_free(l))
        local_free(l);
}

/* Hands the pending records (or a snapshot) to a worker if none is busy. */
static void
kick_write(local_t *l)
{
    job_t *j;
    if (l->job != NULL || l->broken ||
        (l->pend.len == 0 && !l->want_snapshot))
        return;
    if ((j = calloc(1, sizeof(*j))) == NULL)
        return; /* retried on the next write or job */
    j->l = l;
    j->seq = l->queued;
    if (l->want_snapshot) {
        if ((j->snap = snap_encode(l, &j->snap_len)) == NULL) {
            free(j);
            return;
        }
        l->want_snapshot = false;
        free(l->pend.p); /* the snapshot holds them */
    } else {
        j->rec = l->pend.p;
        j->rec_len = l->pend.len;
    }
    memset(&l->pend, 0, sizeof(l->pend));
    l->job = j;
    if (gr_workers_submit(l->workers, job_work, job_done, j) != 0) {
        j->err = ENOMEM;
        l->job_unsent = true; /* failed from post_cb, not here */
        if (schedule(l) != 0)
            GR_LOG_ERROR("meta: cannot post to the loop");
    }
}

/* --- the calls ---------------------------------------------------------- */

static compl_t *
compl_new(local_t *l, ckind_t kind, void (*cb)(void), void *arg)
{
    compl_t *c;
    if (l->closed || schedule(l) != 0 || (c = calloc(1, sizeof(*c))) == NULL)
        return NULL;
    c->kind = kind;
    c->cb = cb;
    c->arg = arg;
    return c;
}

/* Runs ops as one transaction; fills res (n, paths owned by res). The
 * multi's rc. */
static int
run_multi(local_t *l, const gr_meta_op_t *ops, int n, gr_meta_result_t *res)
{
    undo_t *u = calloc((size_t)n, sizeof(*u));
    txn_t t = { u, 0 };
    int64_t zxid = l->zxid + 1;
    int rc = 0, failed = -1;
    char name[GR_META_MAX_PATH + 16];

    if (u == NULL)
        return GR_META_SYSTEMERROR;
    if (l->broken)
        rc = GR_META_SYSTEMERROR, failed = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        const gr_meta_op_t *op = &ops[i];
        int undo_at = t.n;
        switch (op->type) {
        case GR_META_OP_CREATE: {
            const char *path = op->path;
            if ((op->flags & ~(GR_META_EPHEMERAL | GR_META_SEQUENTIAL)) != 0 ||
                path == NULL || strlen(path) > GR_META_MAX_PATH) {
                rc = GR_META_BADARGUMENTS;
                break;
            }
            if (op->flags & GR_META_SEQUENTIAL) {
                /* ZooKeeper's name: the parent's cversion, %010d */
                char pp[GR_META_MAX_PATH + 16];
                node_t *p;
                snprintf(name, sizeof name, "%s0000000000", path);
                if (!gr_meta_path_ok(name)) {
                    rc = GR_META_BADARGUMENTS;
                    break;
                }
                parent_path(name, pp);
                if ((p = lookup(l->root, pp)) == NULL) {
                    rc = GR_META_NONODE;
                    break;
                }
                snprintf(name, sizeof name, "%s%010d", path, p->st.cversion);
                path = name;
            }
            rc = do_create(l, &t, path, op->data, op->len,
                           op->flags & GR_META_EPHEMERAL ? l->session : 0,
                           zxid);
            if (rc == 0)
                res[i].path = strdup(path); /* NULL on ENOMEM: said below */
            if (rc == 0 && res[i].path == NULL)
                rc = GR_META_SYSTEMERROR;
            break;
        }
        case GR_META_OP_SET:
            rc = do_set(l, &t, op->path ? op->path : "", op->data, op->len,
                        op->version, zxid);
            break;
        case GR_META_OP_DELETE:
            rc = do_delete(l, &t, op->path ? op->path : "", op->version, zxid);
            break;
        case GR_META_OP_CHECK: {
            node_t *nd;
            if (op->path == NULL || !gr_meta_path_ok(op->path))
                rc = GR_META_BADARGUMENTS;
            else if ((nd = lookup(l->root, op->path)) == NULL)
                rc = GR_META_NONODE;
            else if (op->version != -1 && op->version != nd->st.version)
                rc = GR_META_BADVERSION;
            break;
        }
        default:
            rc = GR_META_BADARGUMENTS;
        }
        if (rc != 0)
            failed = i;
        else if (t.n > undo_at)
            stat_of(t.u[t.n - 1].node, &res[i].st);
    }
    if (rc != 0) {
        txn_rollback(&t);
        for (int i = 0; i < n; i++) {
            free((char *)res[i].path);
            res[i].path = NULL;
            memset(&res[i].st, 0, sizeof(res[i].st));
            res[i].rc = i < failed    ? GR_META_OK
                        : i == failed ? rc
                                      : GR_META_RUNTIMEINCONSISTENCY;
        }
        free(u);
        return rc;
    }
    if (t.n > 0) {
        record_encode(&l->pend, &t, zxid);
        if (l->pend.oom) {
            /* cannot be journaled: not done */
            l->pend.oom = false;
            txn_rollback(&t);
            free(u);
            for (int i = 0; i < n; i++) {
                free((char *)res[i].path);
                res[i].path = NULL;
                res[i].rc = GR_META_SYSTEMERROR;
            }
            return GR_META_SYSTEMERROR;
        }
        l->zxid = zxid;
        l->queued++;
        txn_commit(l, &t); /* watch events queue before the answer */
    }
    free(u);
    return 0;
}

static int
local_multi(gr_meta_t *m, const gr_meta_op_t *ops, int n, gr_meta_multi_cb cb,
            void *arg)
{
    local_t *l = (local_t *)m;
    compl_t *c;
    if ((c = compl_new(l, C_MULTI, (void (*)(void))cb, arg)) == NULL)
        return -1;
    if (n < 1 || n > MAX_MULTI) {
        c->rc = GR_META_BADARGUMENTS;
        enqueue(l, c);
        return 0;
    }
    c->n = n;
    if ((c->results = calloc((size_t)n, sizeof(*c->results))) == NULL) {
        free(c);
        return -1;
    }
    c->rc = run_multi(l, ops, n, c->results);
    enqueue(l, c);
    kick_write(l);
    return 0;
}

static int
local_create(gr_meta_t *m, const char *path, const void *data, size_t len,
             int flags, gr_meta_create_cb cb, void *arg)
{
    local_t *l = (local_t *)m;
    gr_meta_op_t op = { GR_META_OP_CREATE, path, data, len, flags, -1 };
    gr_meta_result_t res = { 0 };
    compl_t *c = compl_new(l, C_CREATE, (void (*)(void))cb, arg);
    if (c == NULL)
        return -1;
    c->rc = run_multi(l, &op, 1, &res);
    c->path = (char *)res.path;
    c->st = res.st;
    enqueue(l, c);
    kick_write(l);
    return 0;
}

static int
local_get(gr_meta_t *m, const char *path, gr_meta_watch_cb w, void *warg,
          gr_meta_data_cb cb, void *arg)
{
    local_t *l = (local_t *)m;
    compl_t *c = compl_new(l, C_DATA, (void (*)(void))cb, arg);
    node_t *n;
    if (c == NULL)
        return -1;
    if (path == NULL || !gr_meta_path_ok(path))
        c->rc = GR_META_BADARGUMENTS;
    else if ((n = lookup(l->root, path)) == NULL)
        c->rc = GR_META_NONODE; /* no watch: ZooKeeper's getData */
    else if ((c->data = malloc(n->len ? n->len : 1)) == NULL ||
             watch_add(l, path, false, w, warg) != 0) {
        free(c->data);
        free(c);
        return -1;
    } else {
        memcpy(c->data, n->data, n->len);
        c->len = n->len;
        stat_of(n, &c->st);
    }
    enqueue(l, c);
    return 0;
}

static int
local_exists(gr_meta_t *m, const char *path, gr_meta_watch_cb w, void *warg,
             gr_meta_stat_cb cb, void *arg)
{
    local_t *l = (local_t *)m;
    compl_t *c = compl_new(l, C_STAT, (void (*)(void))cb, arg);
    node_t *n;
    if (c == NULL)
        return -1;
    if (path == NULL || !gr_meta_path_ok(path)) {
        c->rc = GR_META_BADARGUMENTS;
    } else {
        if (watch_add(l, path, false, w, warg) != 0) {
            free(c);
            return -1;
        }
        if ((n = lookup(l->root, path)) == NULL)
            c->rc = GR_META_NONODE;
        else
            stat_of(n, &c->st);
    }
    enqueue(l, c);
    return 0;
}

static int
local_children(gr_meta_t *m, const char *path, gr_meta_watch_cb w,
               void *warg, gr_meta_children_cb cb, void *arg)
{
    local_t *l = (local_t *)m;
    compl_t *c = compl_new(l, C_CHILDREN, (void (*)(void))cb, arg);
    node_t *n;
    if (c == NULL)
        return -1;
    if (path == NULL || !gr_meta_path_ok(path)) {
        c->rc = GR_META_BADARGUMENTS;
    } else if ((n = lookup(l->root, path)) == NULL) {
        c->rc = GR_META_NONODE;
    } else {
        c->names = calloc((size_t)n->nkids + 1, sizeof(*c->names));
        for (int i = 0; c->names != NULL && i < n->nkids; i++) {
            if ((c->names[i] = strdup(n->kids[i]->name)) == NULL)
                break;
            c->n = i + 1;
        }
        if (c->names == NULL || c->n != n->nkids ||
            watch_add(l, path, true, w, warg) != 0) {
            compl_free(c);
            return -1;
        }
        stat_of(n, &c->st);
    }
    enqueue(l, c);
    return 0;
}

/* At close: the records no worker has taken, written here (shutdown,
 * a few hundred bytes and one fdatasync) so a clean stop keeps every
 * write applied in memory. */
static void
flush_at_close(local_t *l)
{
    if (l->broken || l->pend.len == 0 || l->journal_fd < 0)
        return;
    if (gr_write_full(l->journal_fd, l->pend.p, l->pend.len) != 0 ||
        fdatasync(l->journal_fd) != 0)
        GR_LOG_ERROR("meta: writing %s at close failed: %s", l->journal_path,
                     strerror(errno));
    l->pend.len = 0;
}

static void
local_close(gr_meta_t *m)
{
    local_t *l = (local_t *)m;
    l->closed = true;
    if (l->job == NULL)
        flush_at_close(l);
    while (l->head) {
        compl_t *c = l->head;
        l->head = c->next;
        compl_free(c);
    }
    l->tail = NULL;
    if (can_free(l))
        local_free(l);
}

static const gr_meta_ops_t local_ops = {
    .name = "local",
    .create = local_create,
    .get = local_get,
    .exists = local_exists,
    .children = local_children,
    .multi = local_multi,
    .close = local_close,
};

/* --- opening ---------------------------------------------------------- */

/* The whole of path into *buf; 0 (a missing file is empty), -1. */
static int
read_file(const char *path, uint8_t **buf, size_t *len, bool *exists)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    size_t got = 0;
    *buf = NULL;
    *len = 0;
    *exists = fd >= 0;
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    if (fstat(fd, &sb) != 0 || (*buf = malloc((size_t)sb.st_size + 1)) == NULL) {
        close(fd);
        return -1;
    }
    while (got < (size_t)sb.st_size) {
        ssize_t r = read(fd, *buf + got, (size_t)sb.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    *len = got;
    return 0;
}

static local_t *
local_new(void)
{
    local_t *l = calloc(1, sizeof(*l));
    if (l == NULL)
        return NULL;
    l->journal_fd = -1;
    l->base.ops = &local_ops;
    if ((l->root = node_new("", NULL, 0)) == NULL) {
        free(l);
        return NULL;
    }
    return l;
}

/* Loads snap then journal into l; 0, or -1 on a bad snapshot. */
static int
local_load(local_t *l, const uint8_t *snap, size_t snap_len,
           const uint8_t *journal, size_t journal_len, size_t *journal_ok)
{
    int64_t snap_zxid = 0;
    if (snap_len > 0) {
        if (snap_load(l, snap, snap_len) != 0)
            return -1;
        snap_zxid = l->zxid;
    }
    *journal_ok = journal_replay(l, journal, journal_len, snap_zxid);
    return 0;
}

int
gr_meta_local_parse(const uint8_t *snap, size_t snap_len,
                    const uint8_t *journal, size_t journal_len,
                    size_t *journal_ok)
{
    local_t *l = local_new();
    int rc;
    *journal_ok = 0;
    if (l == NULL)
        return -1;
    rc = local_load(l, snap, snap_len, journal, journal_len, journal_ok);
    local_free(l);
    return rc;
}

static char *
join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static void
collect_ephemerals(node_t *n, char *path, size_t plen, gr_meta_op_t *ops,
                   char **paths, int *cnt, int max)
{
    for (int i = 0; i < n->nkids && *cnt < max; i++) {
        node_t *k = n->kids[i];
        size_t kl = strlen(k->name);
        path[plen] = '/';
        memcpy(path + plen + 1, k->name, kl + 1);
        if (k->st.ephemeral_owner != 0) {
            if ((paths[*cnt] = strdup(path)) != NULL) {
                ops[*cnt] = (gr_meta_op_t){ GR_META_OP_DELETE, paths[*cnt],
                                            NULL, 0, 0, -1 };
                (*cnt)++;
            }
        } else {
            collect_ephemerals(k, path, plen + 1 + kl, ops, paths, cnt, max);
        }
        path[plen] = '\0';
    }
}

/* Deletes the ephemeral nodes the previous process left (its session is
 * over), MAX_MULTI per journaled write. */
static int
expire_previous(local_t *l)
{
    gr_meta_op_t *ops = calloc(MAX_MULTI, sizeof(*ops));
    char **paths = calloc(MAX_MULTI, sizeof(*paths));
    gr_meta_result_t *res = calloc(MAX_MULTI, sizeof(*res));
    char path[GR_META_MAX_PATH + 2];
    int total = 0, rc = 0;

    if (ops == NULL || paths == NULL || res == NULL)
        rc = -1;
    while (rc == 0) {
        int cnt = 0;
        path[0] = '\0';
        collect_ephemerals(l->root, path, 0, ops, paths, &cnt, MAX_MULTI);
        if (cnt == 0)
            break;
        memset(res, 0, MAX_MULTI * sizeof(*res));
        rc = run_multi(l, ops, cnt, res) == 0 ? 0 : -1;
        for (int i = 0; i < cnt; i++) {
            free(paths[i]);
            free((char *)res[i].path);
        }
        total += cnt;
    }
    free(ops);
    free(paths);
    free(res);
    if (rc != 0)
        return -1;
    if (total > 0)
        GR_LOG_INFO("meta: %d ephemeral node%s of the previous session "
                    "deleted",
                    total, total == 1 ? "" : "s");
    return 0;
}

gr_meta_t *
gr_meta_local_open(const gr_meta_cfg_t *cfg, gr_meta_session_cb session_cb,
                   void *arg)
{
    local_t *l = local_new();
    uint8_t *snap = NULL, *journal = NULL;
    size_t snap_len, journal_len, ok = 0;
    bool snap_exists, journal_exists;
    struct timeval tv;
    compl_t *c;

    if (l == NULL)
        return NULL;
    l->loop = cfg->loop;
    l->workers = cfg->workers;
    l->base.session_cb = session_cb;
    l->base.session_arg = arg;
    if ((l->dir = strdup(cfg->dir)) == NULL ||
        (l->snap_path = join(cfg->dir, SNAP_NAME)) == NULL ||
        (l->snap_tmp = join(cfg->dir, SNAP_NAME ".tmp")) == NULL ||
        (l->journal_path = join(cfg->dir, JOURNAL_NAME)) == NULL)
        goto fail;
    if (mkdir(cfg->dir, 0755) != 0 && errno != EEXIST) {
        GR_LOG_ERROR("meta: cannot make %s: %s", cfg->dir, strerror(errno));
        goto fail;
    }
    if (read_file(l->snap_path, &snap, &snap_len, &snap_exists) != 0 ||
        read_file(l->journal_path, &journal, &journal_len,
                  &journal_exists) != 0) {
        GR_LOG_ERROR("meta: cannot read %s: %s", cfg->dir, strerror(errno));
        goto fail;
    }
    if (local_load(l, snap, snap_len, journal, journal_len, &ok) != 0) {
        GR_LOG_ERROR("meta: %s is damaged; refusing to start on it",
                     l->snap_path);
        goto fail;
    }
    if ((l->journal_fd = open(l->journal_path,
                              O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                              0644)) < 0) {
        GR_LOG_ERROR("meta: cannot open %s: %s", l->journal_path,
                     strerror(errno));
        goto fail;
    }
    if (ok < journal_len) {
        /* start-up, before anything is served: cut at once */
        GR_LOG_WARN("meta: %s: dropped %zu bytes after offset %zu (a "
                    "record torn or damaged; never acknowledged)",
                    l->journal_path, journal_len - ok, ok);
        if (ftruncate(l->journal_fd, (off_t)ok) != 0 ||
            fdatasync(l->journal_fd) != 0) {
            GR_LOG_ERROR("meta: cannot truncate %s: %s", l->journal_path,
                         strerror(errno));
            goto fail;
        }
    }
    l->journal_bytes = ok;
    /* a fresh snapshot when the journal holds anything (or there is
     * none): the next start reads less */
    l->want_snapshot = ok > 0 || !snap_exists;
    GR_LOG_INFO("meta: %s opened at zxid %" PRId64 " (snapshot %zu bytes, "
                "journal %zu bytes)",
                cfg->dir, l->zxid, snap_len, ok);
    free(snap);
    free(journal);
    snap = journal = NULL;
    gettimeofday(&tv, NULL);
    l->session = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
    if (expire_previous(l) != 0)
        goto fail;
    if (session_cb != NULL) {
        if ((c = compl_new(l, C_SESSION, (void (*)(void))session_cb, arg)) ==
            NULL)
            goto fail;
        c->rc = GR_META_SESSION_CONNECTED;
        enqueue(l, c);
    }
    kick_write(l);
    return &l->base;
fail:
    free(snap);
    free(journal);
    if (l->posted || l->job != NULL) {
        local_close(&l->base);
    } else {
        local_free(l);
    }
    return NULL;
}
