/*
 * gr_meta's calls, passed to the engine (meta.h); nothing here knows how
 * an engine keeps its tree.
 */
#include "meta/meta.h"

#include <stdlib.h>
#include <string.h>

const char *
gr_meta_rc_name(int rc)
{
    switch ((gr_meta_rc_t)rc) {
    case GR_META_OK:
        return "OK";
    case GR_META_SYSTEMERROR:
        return "SYSTEMERROR";
    case GR_META_RUNTIMEINCONSISTENCY:
        return "RUNTIMEINCONSISTENCY";
    case GR_META_BADARGUMENTS:
        return "BADARGUMENTS";
    case GR_META_NONODE:
        return "NONODE";
    case GR_META_BADVERSION:
        return "BADVERSION";
    case GR_META_NOCHILDRENFOREPHEMERALS:
        return "NOCHILDRENFOREPHEMERALS";
    case GR_META_NODEEXISTS:
        return "NODEEXISTS";
    case GR_META_NOTEMPTY:
        return "NOTEMPTY";
    case GR_META_SESSIONEXPIRED:
        return "SESSIONEXPIRED";
    case GR_META_CONNECTIONLOSS:
        return "CONNECTIONLOSS";
    case GR_META_NOAUTH:
        return "NOAUTH";
    }
    return "UNKNOWN";
}

bool
gr_meta_path_ok(const char *path)
{
    size_t n;
    const char *c;
    if (path == NULL || path[0] != '/' || (n = strlen(path)) > GR_META_MAX_PATH)
        return false;
    if (n == 1)
        return true;
    if (path[n - 1] == '/')
        return false;
    for (c = path + 1;;) {
        const char *e = strchr(c, '/');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        if (len == 0 || (len == 1 && c[0] == '.') ||
            (len == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        if (e == NULL)
            return true;
        c = e + 1;
    }
}

int
gr_meta_create(gr_meta_t *m, const char *path, const void *data, size_t len,
               int flags, gr_meta_create_cb cb, void *arg)
{
    return m->ops->create(m, path, data, len, flags, cb, arg);
}

int
gr_meta_get(gr_meta_t *m, const char *path, gr_meta_watch_cb w, void *warg,
            gr_meta_data_cb cb, void *arg)
{
    return m->ops->get(m, path, w, warg, cb, arg);
}

int
gr_meta_exists(gr_meta_t *m, const char *path, gr_meta_watch_cb w,
               void *warg, gr_meta_stat_cb cb, void *arg)
{
    return m->ops->exists(m, path, w, warg, cb, arg);
}

int
gr_meta_children(gr_meta_t *m, const char *path, gr_meta_watch_cb w,
                 void *warg, gr_meta_children_cb cb, void *arg)
{
    return m->ops->children(m, path, w, warg, cb, arg);
}

int
gr_meta_multi(gr_meta_t *m, const gr_meta_op_t *ops, int n,
              gr_meta_multi_cb cb, void *arg)
{
    return m->ops->multi(m, ops, n, cb, arg);
}

typedef struct gr_meta_fenced {
    struct gr_meta_fenced *next, *prev;
    gr_meta_t *m;
    gr_meta_multi_cb cb;
    void *arg;
} fenced_t;

void
gr_meta_close(gr_meta_t *m)
{
    fenced_t *f;
    if (m == NULL)
        return;
    f = m->fenced; /* never answered now */
    m->ops->close(m);
    while (f != NULL) {
        fenced_t *next = f->next;
        free(f);
        f = next;
    }
}

static void
fenced_done(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    fenced_t f = *(fenced_t *)arg;
    if (f.prev)
        f.prev->next = f.next;
    else
        f.m->fenced = f.next;
    if (f.next)
        f.next->prev = f.prev;
    free(arg);
    if (n < 1) { /* refused whole (BADARGUMENTS) */
        f.cb(f.arg, rc, res, 0);
        return;
    }
    /* the check failed: ZooKeeper says BADVERSION (NONODE if the fence is
     * gone) on it and RUNTIMEINCONSISTENCY on every op after it */
    f.cb(f.arg, rc != 0 && res[0].rc != 0 ? GR_META_BADVERSION : rc, res + 1,
         n - 1);
}

int
gr_meta_fenced_multi(gr_meta_t *m, const char *fence_path,
                     int32_t fence_version, const gr_meta_op_t *ops, int n,
                     gr_meta_multi_cb cb, void *arg)
{
    gr_meta_op_t *all;
    fenced_t *f;
    int rc;
    if (n < 1 || n > 999)
        return gr_meta_multi(m, ops, 0, cb, arg); /* BADARGUMENTS */
    if ((all = calloc((size_t)n + 1, sizeof(*all))) == NULL)
        return -1;
    if ((f = malloc(sizeof(*f))) == NULL) {
        free(all);
        return -1;
    }
    f->m = m;
    f->cb = cb;
    f->arg = arg;
    f->prev = NULL;
    all[0] = (gr_meta_op_t){ GR_META_OP_CHECK, fence_path, NULL, 0, 0,
                             fence_version };
    memcpy(all + 1, ops, (size_t)n * sizeof(*ops));
    rc = gr_meta_multi(m, all, n + 1, fenced_done, f); /* the ops copied */
    free(all);
    if (rc != 0) {
        free(f);
        return rc;
    }
    if ((f->next = m->fenced) != NULL)
        f->next->prev = f;
    m->fenced = f;
    return 0;
}
