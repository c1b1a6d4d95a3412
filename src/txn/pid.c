/* Producer id blocks: see pid.h. */
#include "txn/pid.h"
#include "core/log.h"
#include "core/file.h"
#include "core/arena.h"
#include "core/json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <unistd.h>

#define PID_FILE "gregor-producer-ids"
/* BADVERSION rounds of one take before it gives up (the next id asked
 * for starts another) */
#define TAKE_TRIES 10

struct gr_pids {
    char *dir;
    int64_t next;      /* next id to give */
    int64_t block_end; /* first id not covered by the recorded block */
    /* cluster mode */
    gr_meta_t *meta;
    bool cluster;      /* blocks from meta (gone once meta is dropped) */
    int32_t broker;
    bool taking;       /* a take of the next block is under way */
    int tries;
    int64_t taking_start;
    int64_t pre_start; /* the block taken ahead, -1 for none */
};

static void take(gr_pids_t *p);

static int
record(gr_pids_t *p, int64_t block_end)
{
    char path[PATH_MAX], tmp[PATH_MAX + 8], data[128];
    int n, e;
    snprintf(path, sizeof path, "%s/%s", p->dir, PID_FILE);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    n = snprintf(data, sizeof data,
                 "# Gregor: producer ids below this are taken.\n"
                 "block.end=%" PRId64 "\n",
                 block_end);
    /* the block counts once its name is durable too: a crash that lost
     * the rename would hand out its ids a second time */
    e = gr_file_replace(path, tmp, data, (size_t)n, 0644, true);
    if (e == 0)
        e = gr_fsync_dir(p->dir);
    if (e == 0)
        return 0;
    GR_LOG_ERROR("cannot record producer id block in %s: %s", path,
                 strerror(e));
    return -1;
}

gr_pids_t *
gr_pids_open(const char *dir)
{
    gr_pids_t *p = calloc(1, sizeof(*p));
    char path[PATH_MAX], line[256];
    FILE *f;
    if (p == NULL || (p->dir = strdup(dir)) == NULL) {
        free(p);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/%s", dir, PID_FILE);
    f = fopen(path, "r");
    if (f != NULL) {
        bool found = false;
        while (fgets(line, sizeof line, f)) {
            char *end;
            if (strncmp(line, "block.end=", 10) != 0)
                continue;
            errno = 0;
            p->block_end = strtoll(line + 10, &end, 10);
            if (errno || end == line + 10 || p->block_end < 0) {
                fclose(f);
                GR_LOG_ERROR("%s is damaged", path);
                gr_pids_close(p);
                return NULL;
            }
            found = true;
        }
        fclose(f);
        if (!found) {
            GR_LOG_ERROR("%s is damaged (no block.end)", path);
            gr_pids_close(p);
            return NULL;
        }
    }
    /* the rest of the last recorded block may have been handed out */
    p->next = p->block_end;
    return p;
}

void
gr_pids_close(gr_pids_t *p)
{
    if (p == NULL)
        return;
    free(p->dir);
    free(p);
}

int64_t
gr_pids_next(gr_pids_t *p)
{
    if (p->cluster) {
        int64_t id;
        if (p->meta == NULL)
            return -1; /* the store is closed: shutting down */
        if (p->next >= p->block_end) {
            if (p->pre_start < 0) {
                take(p);
                return GR_PID_PENDING;
            }
            p->next = p->pre_start;
            p->block_end = p->pre_start + GR_PID_BLOCK;
            p->pre_start = -1;
        }
        id = p->next++;
        /* Kafka's RPCProducerIdManager asks for the next block at 90% */
        if (p->pre_start < 0 &&
            p->block_end - p->next <= GR_PID_BLOCK - GR_PID_BLOCK * 9 / 10)
            take(p);
        return id;
    }
    if (p->next >= p->block_end) {
        if (record(p, p->block_end + GR_PID_BLOCK) != 0)
            return -1;
        p->block_end += GR_PID_BLOCK;
    }
    return p->next++;
}

/* --- cluster mode: blocks from ZooKeeper */

int64_t
gr_pids_parse_block(const void *data, size_t len)
{
    gr_arena_t *a;
    const gr_json_t *o, *v, *s, *e;
    char err[64], *end;
    int64_t start = -1, last = -1, next = -1;

    if (len == 0)
        return 0; /* Kafka's None: the first block starts at 0 */
    if (data == NULL || (a = gr_arena_new(1024)) == NULL)
        return -1;
    o = gr_json_parse(a, data, len, err, sizeof err);
    v = o != NULL ? gr_json_get(o, "version") : NULL;
    s = o != NULL ? gr_json_get(o, "block_start") : NULL;
    e = o != NULL ? gr_json_get(o, "block_end") : NULL;
    if (v != NULL && v->type == GR_JSON_INT && v->i == 1 && s != NULL &&
        s->type == GR_JSON_STR && e != NULL && e->type == GR_JSON_STR &&
        s->slen > 0 && e->slen > 0 && strlen(s->s) == s->slen &&
        strlen(e->s) == e->slen && s->s[0] >= '0' && s->s[0] <= '9' &&
        e->s[0] >= '0' && e->s[0] <= '9') {
        errno = 0;
        start = strtoll(s->s, &end, 10);
        if (errno != 0 || *end != '\0')
            start = -1;
        errno = 0;
        last = strtoll(e->s, &end, 10);
        if (errno != 0 || *end != '\0')
            last = -1;
        /* Kafka: "Have exhausted all producerIds" past this */
        if (start >= 0 && last >= start &&
            last <= INT64_MAX - GR_PID_BLOCK)
            next = last + 1;
    }
    gr_arena_destroy(a);
    return next;
}

int
gr_pids_block_json(int32_t broker, int64_t start, char *out, size_t cap)
{
    int n = snprintf(out, cap,
                     "{\"version\":1,\"broker\":%d,\"block_start\":\"%" PRId64
                     "\",\"block_end\":\"%" PRId64 "\"}",
                     (int)broker, start, start + GR_PID_BLOCK - 1);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

static void
take_failed(gr_pids_t *p, const char *why, int rc)
{
    GR_LOG_WARN("producer ids: cannot take a block from %s: %s%s%s; "
                "InitProducerId answers COORDINATOR_LOAD_IN_PROGRESS until "
                "one is had",
                GR_PID_ZNODE, why, rc != 0 ? ": " : "",
                rc != 0 ? gr_meta_rc_name(rc) : "");
    p->taking = false;
}

static void
taken(gr_pids_t *p, int64_t start)
{
    p->taking = false;
    GR_LOG_INFO("producer ids: node %d took block %" PRId64 "-%" PRId64
                " from %s",
                (int)p->broker, start, start + GR_PID_BLOCK - 1,
                GR_PID_ZNODE);
    if (p->next >= p->block_end) {
        p->next = start;
        p->block_end = start + GR_PID_BLOCK;
    } else {
        p->pre_start = start;
    }
}

static void read_block(gr_pids_t *p);

static void
again(gr_pids_t *p, int rc)
{
    if (++p->tries >= TAKE_TRIES) {
        take_failed(p, "too many concurrent takes", rc);
        return;
    }
    read_block(p);
}

static void
set_done(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    gr_pids_t *p = arg;
    (void)res;
    (void)n;
    if (rc == GR_META_OK)
        taken(p, p->taking_start);
    else if (rc == GR_META_BADVERSION)
        again(p, rc); /* another broker took one: read and try again */
    else
        take_failed(p, "writing", rc);
}

static void
created(void *arg, int rc, const char *path, const gr_meta_stat_t *st)
{
    gr_pids_t *p = arg;
    (void)path;
    (void)st;
    if (rc == GR_META_OK)
        taken(p, p->taking_start);
    else if (rc == GR_META_NODEEXISTS)
        again(p, rc);
    else
        take_failed(p, "creating", rc);
}

static void
block_read(void *arg, int rc, const void *data, size_t len,
           const gr_meta_stat_t *st)
{
    gr_pids_t *p = arg;
    char json[160];
    int n;

    if (rc != GR_META_OK && rc != GR_META_NONODE) {
        take_failed(p, "reading", rc);
        return;
    }
    p->taking_start = rc == GR_META_OK ? gr_pids_parse_block(data, len) : 0;
    if (p->taking_start < 0) {
        GR_LOG_ERROR("producer ids: %s holds %.*s, not a block of Kafka's "
                     "(or the ids are exhausted)",
                     GR_PID_ZNODE, (int)(len > 200 ? 200 : len),
                     (const char *)data);
        take_failed(p, "bad data", 0);
        return;
    }
    n = gr_pids_block_json(p->broker, p->taking_start, json, sizeof json);
    if (rc == GR_META_NONODE) {
        if (gr_meta_create(p->meta, GR_PID_ZNODE, json, (size_t)n, 0,
                           created, p) != 0)
            take_failed(p, "out of memory", 0);
        return;
    }
    {
        gr_meta_op_t op = { .type = GR_META_OP_SET,
                            .path = GR_PID_ZNODE,
                            .data = json,
                            .len = (size_t)n,
                            .version = st->version };
        if (gr_meta_multi(p->meta, &op, 1, set_done, p) != 0)
            take_failed(p, "out of memory", 0);
    }
}

static void
read_block(gr_pids_t *p)
{
    if (gr_meta_get(p->meta, GR_PID_ZNODE, NULL, NULL, block_read, p) != 0)
        take_failed(p, "out of memory", 0);
}

static void
take(gr_pids_t *p)
{
    if (p->taking)
        return;
    p->taking = true;
    p->tries = 0;
    read_block(p);
}

void
gr_pids_use_meta(gr_pids_t *p, gr_meta_t *m, int32_t broker)
{
    p->meta = m;
    p->cluster = true;
    p->broker = broker;
    p->next = p->block_end = 0;
    p->pre_start = -1;
    p->taking = false;
    take(p);
}

void
gr_pids_drop_meta(gr_pids_t *p)
{
    p->meta = NULL;
    p->taking = false;
}
