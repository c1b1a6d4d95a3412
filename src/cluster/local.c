/*
 * The single-broker implementation of gr_cluster_ops_t: this broker is the
 * only node, the controller and the leader of every partition. Decisions are
 * immediate; topics are persisted as one small file each under
 * <log.dirs>/gregor-topics/ (written to a temporary name, fsynced, renamed),
 * and the cluster id in <log.dirs>/meta.properties as Kafka keeps it.
 */
#include "cluster/cluster.h"
#include "core/fault.h"
#include "core/file.h"
#include "core/log.h"
#include "core/worker.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A change to gregor-topics/ waiting for a worker, or a sync waiting for
 * the changes before it. */
typedef enum {
    OP_WRITE,
    OP_UNLINK,
    OP_RETIRE,
    OP_FSYNC,
    OP_SYNC,
    OP_CONFIG, /* a file of gregor-configs/, with its own callback */
} op_kind_t;

typedef struct meta_op {
    struct meta_op *next;
    op_kind_t kind;
    char *path;   /* WRITE, UNLINK, RETIRE (the topic file), FSYNC, CONFIG */
    char *record; /* RETIRE: the deletion record, written before path goes */
    char *data;   /* WRITE, RETIRE, CONFIG: the file (record) */
    size_t len;
    gr_uuid_t id;          /* the topic */
    bool created;          /* WRITE of a new topic: removed again if it fails */
    bool fault; /* WRITE, RETIRE, CONFIG: fails (fault point topic.store,
                 * acls.store, client_quotas.store, client_metrics.store,
                 * broker_config.store) */
    int err;               /* errno, set on the worker */
    gr_cluster_sync_cb cb; /* SYNC */
    gr_cluster_stored_cb stored; /* CONFIG */
    void *arg;
} meta_op_t;

typedef struct local {
    char *dir;     /* log dir */
    char *topics;  /* <dir>/gregor-topics */
    char *configs; /* <dir>/gregor-configs: dynamic broker configs */
    /* Changes are made in order, one worker job at a time, each job taking
     * all that was queued (one directory fsync for them) */
    meta_op_t *qhead, *qtail;
    meta_op_t *running; /* the list a worker has */
    gr_uuid_t *failed;  /* not yet heard of by a sync */
    int nfailed, failed_cap;
    int finishing;  /* in ops_finish() */
    char **records; /* deletion records written or found, not yet removed */
    int nrecords, records_cap;
} local_t;

/* Values are written escaped ('\\', '\n', '\r'), so any string fits on
 * a line; files written before escaping read the same. */
static void
put_escaped(FILE *f, const char *v)
{
    for (;;) {
        /* the run that needs no escape in one write: a file of 36,000
         * client quotas is 4 MB, a character at a time 40% of storing
         * it on the loop */
        size_t n = strcspn(v, "\\\n\r");
        fwrite(v, 1, n, f);
        v += n;
        if (*v == '\0')
            return;
        fputs(*v == '\\' ? "\\\\" : *v == '\n' ? "\\n" : "\\r", f);
        v++;
    }
}

static void
unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s == '\\' && s[1]) {
            s++;
            *o++ = *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* The file a write of path goes to before its rename: <path>~. '~' is in
 * no topic name, so one that a crash leaves is never loaded as a topic
 * (<name>.tmp was: a topic "name.tmp"); local_load removes it. */
static int
tmp_path(char *out, size_t n, const char *path)
{
    if (snprintf(out, n, "%s~", path) >= (int)n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

/* Writes path whole or not at all: tmp file, fsync (unless !sync),
 * rename (the caller fsyncs the directory). fault: fails as the open
 * would. 0, or -1 with errno set. */
static int
write_replace(const char *path, const char *data, size_t len, bool fault,
              bool sync)
{
    char tmp[PATH_MAX];
    if (tmp_path(tmp, sizeof tmp, path) != 0)
        return -1;
    if (fault) {
        errno = EIO;
        return -1;
    }
    return gr_file_replace(path, tmp, data, len, 0644, sync) == 0 ? 0 : -1;
}

/* Writes path atomically: write_replace, then an fsync of the dir. */
static int
write_atomic(const char *dir, const char *path, const char *data, size_t len)
{
    if (write_replace(path, data, len, false, true) != 0)
        return -1;
    return gr_fsync_dir(dir);
}

/* --- persisting off the loop */

static void
op_free(meta_op_t *op)
{
    free(op->path);
    free(op->record);
    free(op->data);
    free(op);
}

/* On a worker: makes the changes of the list in order, then one fsync of
 * the directory for all of them. */
static void
ops_work(void *arg)
{
    gr_cluster_t *c = arg;
    local_t *l = c->impl;
    bool changed = false;
    int dir_err = 0;

    for (meta_op_t *op = l->running; op; op = op->next) {
        if (op->kind == OP_WRITE) {
            if (write_replace(op->path, op->data, op->len, op->fault, true) !=
                0)
                op->err = errno;
            else
                changed = true;
        } else if (op->kind == OP_RETIRE) {
            /* the record first: without it the topic file stays */
            if (write_replace(op->record, op->data, op->len, op->fault,
                              true) != 0) {
                op->err = errno;
            } else {
                changed = true;
                if (unlink(op->path) != 0 && errno != ENOENT)
                    op->err = errno;
            }
        } else if (op->kind == OP_FSYNC) {
            /* the file, then the log dir that names it (and
             * gregor-topics, made at start-up) */
            int fd = open(op->path, O_RDONLY | O_CLOEXEC);
            if (fd < 0 || fsync(fd) != 0 || gr_fsync_dir(l->dir) != 0)
                op->err = errno;
            if (fd >= 0)
                close(fd);
        } else if (op->kind == OP_UNLINK) {
            if (unlink(op->path) != 0 && errno != ENOENT)
                op->err = errno;
            else
                changed = true;
        } else if (op->kind == OP_CONFIG) {
            /* gregor-configs/ is made at the first such file */
            if ((mkdir(l->configs, 0755) != 0 && errno != EEXIST) ||
                write_replace(op->path, op->data, op->len, op->fault, true) !=
                    0 ||
                gr_fsync_dir(l->configs) != 0)
                op->err = errno ? errno : EIO;
        }
    }
    if (changed && gr_fsync_dir(l->topics) != 0)
        dir_err = errno ? errno : EIO;
    if (dir_err != 0)
        for (meta_op_t *op = l->running; op; op = op->next)
            if (op->kind != OP_SYNC && op->kind != OP_CONFIG &&
                op->err == 0) {
                op->err = dir_err;
                if (op->created) /* removed again: not on disk either */
                    unlink(op->path);
            }
}

static void ops_kick(gr_cluster_t *c);

static void
note_failed(local_t *l, const gr_uuid_t *id)
{
    if (l->nfailed == l->failed_cap) {
        int cap = l->failed_cap ? 2 * l->failed_cap : 8;
        gr_uuid_t *v = realloc(l->failed, (size_t)cap * sizeof *v);
        if (v == NULL)
            return; /* the error was logged; the answer misses it */
        l->failed = v;
        l->failed_cap = cap;
    }
    l->failed[l->nfailed++] = *id;
}

/* A topic whose creation could not be persisted goes again: it would
 * vanish at the next start. */
static void
unmake_topic(gr_cluster_t *c, const gr_uuid_t *id)
{
    gr_topic_t *t = gr_cluster_topic_by_id(c, id);
    if (t == NULL)
        return;
    GR_LOG_ERROR("topic %s removed again: its metadata could not be written",
                 t->name);
    if (c->hooks.partition_deleted)
        for (int32_t i = 0; i < t->nparts; i++)
            c->hooks.partition_deleted(c->hooks.arg, t->parts[i]);
    gr_cluster_topic_remove(c, t);
}

/* The results of a list, in order. Every sync of the list hears of the
 * failures before it (several may wait on the same changes: the broker's
 * for the renames of a deletion, the request's for its answer); they are
 * forgotten after the list. */
static void
ops_finish(gr_cluster_t *c, meta_op_t *list)
{
    local_t *l = c->impl;
    int heard = 0; /* failures the list's syncs heard of */

    l->finishing++;
    while (list != NULL) {
        meta_op_t *op = list;
        list = op->next;
        if (op->kind == OP_SYNC) {
            op->cb(op->arg, l->failed, l->nfailed, c->stopping);
            heard = l->nfailed;
        } else if (op->kind == OP_CONFIG) {
            if (op->err != 0)
                GR_LOG_ERROR("cannot persist %s: %s", op->path,
                             strerror(op->err));
            op->stored(op->arg, op->err);
        } else if (op->err != 0) {
            GR_LOG_ERROR("cannot %s %s: %s",
                         op->kind == OP_WRITE   ? "write"
                         : op->kind == OP_FSYNC ? "fsync"
                                                : "remove",
                         op->path, strerror(op->err));
            if (op->kind == OP_RETIRE) {
                /* the topic is back at the next start */
                GR_LOG_ERROR("the deletion of %s is not persisted", op->path);
                if (c->hooks.deletion_failed != NULL)
                    c->hooks.deletion_failed(c->hooks.arg, &op->id);
            }
            note_failed(l, &op->id);
            if (op->created && !c->stopping)
                unmake_topic(c, &op->id);
        }
        op_free(op);
    }
    l->finishing--;
    if (heard > l->nfailed) /* a list finished inside forgot some */
        heard = l->nfailed;
    if (heard > 0) {
        memmove(l->failed, l->failed + heard,
                (size_t)(l->nfailed - heard) * sizeof *l->failed);
        l->nfailed -= heard;
    }
}

static void
ops_done(gr_loop_t *loop, void *arg)
{
    gr_cluster_t *c = arg;
    local_t *l = c->impl;
    meta_op_t *list = l->running;
    (void)loop;
    l->running = NULL;
    ops_finish(c, list);
    ops_kick(c);
}

/* Hands what is queued to a worker, if none has a list; when stopping or
 * without workers the changes are made here. */
static void
ops_kick(gr_cluster_t *c)
{
    local_t *l = c->impl;
    meta_op_t *list;
    while (l->running == NULL && l->qhead != NULL) {
        l->running = l->qhead;
        l->qhead = l->qtail = NULL;
        if (!c->stopping && c->workers != NULL &&
            gr_workers_submit(c->workers, ops_work, ops_done, c) == 0)
            return;
        ops_work(c);
        list = l->running;
        l->running = NULL;
        ops_finish(c, list);
    }
}

static void
ops_push(gr_cluster_t *c, meta_op_t *op)
{
    local_t *l = c->impl;
    if (l->qtail)
        l->qtail->next = op;
    else
        l->qhead = op;
    l->qtail = op;
    ops_kick(c);
}

static void
local_sync(gr_cluster_t *c, gr_cluster_sync_cb cb, void *arg)
{
    local_t *l = c->impl;
    meta_op_t *op;
    if (l->running == NULL && l->qhead == NULL) {
        cb(arg, l->failed, l->nfailed, c->stopping);
        if (l->finishing == 0) /* else the list's other syncs hear them */
            l->nfailed = 0;
        return;
    }
    op = calloc(1, sizeof *op);
    if (op == NULL) {
        /* cannot wait in order: answer now, as before the background */
        GR_LOG_ERROR("out of memory: answering before topic metadata is "
                     "written");
        cb(arg, l->failed, l->nfailed, c->stopping);
        return;
    }
    op->kind = OP_SYNC;
    op->cb = cb;
    op->arg = arg;
    ops_push(c, op);
}

/* The file of a topic: *data malloc'ed. 0 or -1. */
static int
topic_file(gr_cluster_t *c, gr_topic_t *t, char **path, char **data,
           size_t *len)
{
    local_t *l = c->impl;
    char p[PATH_MAX], id[23];
    FILE *f;

    *data = NULL;
    *len = 0;
    if ((f = open_memstream(data, len)) == NULL)
        return -1;
    gr_uuid_to_base64(&t->id, id);
    fprintf(f, "# Gregor topic metadata; written by the broker.\n");
    fprintf(f, "topic.id=%s\npartitions=%d\nreplication.factor=%d\n"
               "internal=%s\n",
            id, t->nparts, t->replication_factor,
            t->internal ? "true" : "false");
    for (gr_topic_config_t *cf = t->configs; cf; cf = cf->next) {
        fprintf(f, "config.%s=", cf->key);
        put_escaped(f, cf->value);
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        free(*data);
        *data = NULL;
        return -1;
    }
    snprintf(p, sizeof p, "%s/%s", l->topics, t->name);
    if ((*path = strdup(p)) == NULL) {
        free(*data);
        *data = NULL;
        return -1;
    }
    return 0;
}

/* Writes t's file now, on the loop: without workers (tests), or when the
 * queue cannot take it. 0 or -1 (logged). */
static int
store_topic_now(gr_cluster_t *c, gr_topic_t *t)
{
    local_t *l = c->impl;
    char *path, *data;
    size_t len;
    int rc;
    if (topic_file(c, t, &path, &data, &len) != 0) {
        GR_LOG_ERROR("cannot persist topic %s: out of memory", t->name);
        return -1;
    }
    rc = write_atomic(l->topics, path, data, len);
    if (rc != 0)
        GR_LOG_ERROR("cannot persist topic %s to %s: %s", t->name, path,
                     strerror(errno));
    free(path);
    free(data);
    return rc;
}

/* Whether changes go to the workers' queue (else they are made at once). */
static bool
queued(gr_cluster_t *c)
{
    return c->workers != NULL && !c->stopping;
}

/* Queues t's file; created: t is new and goes again if this fails. 0, or
 * -1 when out of memory (then written now: the result is returned). */
static int
store_topic(gr_cluster_t *c, gr_topic_t *t, bool created)
{
    meta_op_t *op;
    if (!queued(c))
        return store_topic_now(c, t);
    if ((op = calloc(1, sizeof *op)) == NULL ||
        topic_file(c, t, &op->path, &op->data, &op->len) != 0) {
        free(op);
        return store_topic_now(c, t);
    }
    op->kind = OP_WRITE;
    op->id = t->id;
    op->created = created;
    op->fault = GR_FAULT("topic.store", op->path);
    ops_push(c, op);
    return 0;
}

/* --- deletion records: gregor-topics/deleted~<topic id>, written before
 * a topic's file goes and removed once its partition directories are gone
 * (gr_cluster_deletions_done); a start after a crash finishes what they
 * name. '~' is in no topic name, so no topic's file is taken for a record
 * nor overwritten by one; the name does not end in '~', which marks an
 * interrupted write. Gregor named them .deleted-<topic id> until 2026-12,
 * a name a topic may have (Kafka allows names starting with a dot): a
 * file of that name is a record only if it reads as one (is_record). */

#define RECORD_PREFIX     "deleted~"
#define OLD_RECORD_PREFIX ".deleted-"

static void
record_path(local_t *l, const gr_uuid_t *id, char *out, size_t n)
{
    char b64[23];
    gr_uuid_to_base64(id, b64);
    snprintf(out, n, "%s/" RECORD_PREFIX "%s", l->topics, b64);
}

/* Keeps path to be removed by deletions_done (if out of memory, the next
 * start finds the record again and removes it). */
static void
record_keep(local_t *l, const char *path)
{
    char *dup;
    if (l->nrecords == l->records_cap) {
        int cap = l->records_cap ? 2 * l->records_cap : 8;
        char **v = realloc(l->records, (size_t)cap * sizeof *v);
        if (v == NULL)
            return;
        l->records = v;
        l->records_cap = cap;
    }
    if ((dup = strdup(path)) != NULL)
        l->records[l->nrecords++] = dup;
}

/* Reads a record found at start-up into c->deletions; a damaged one is
 * only removed. */
static void
load_record(gr_cluster_t *c, const char *file)
{
    local_t *l = c->impl;
    char path[PATH_MAX], line[512];
    gr_deletion_t d;
    bool have_id = false;
    gr_str_t name;
    FILE *f;

    memset(&d, 0, sizeof d);
    d.nparts = -1;
    snprintf(path, sizeof path, "%s/%s", l->topics, file);
    record_keep(l, path);
    if ((f = fopen(path, "r")) == NULL) {
        GR_LOG_ERROR("cannot read %s: %s", path, strerror(errno));
        return;
    }
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "topic=", 6) == 0 && strlen(line + 6) < sizeof d.name)
            memcpy(d.name, line + 6, strlen(line + 6) + 1);
        else if (strncmp(line, "topic.id=", 9) == 0)
            have_id = gr_uuid_from_base64(&d.id, line + 9) == 0;
        else if (strncmp(line, "partitions=", 11) == 0)
            d.nparts = atoi(line + 11);
    }
    fclose(f);
    name = gr_str_c(d.name);
    if (!have_id || d.nparts < 1 || gr_topic_name_invalid(&name) != NULL) {
        GR_LOG_ERROR("topic deletion record %s is damaged: removed", path);
        return;
    }
    {
        gr_deletion_t *v =
            realloc(c->deletions, (size_t)(c->ndeletions + 1) * sizeof *v);
        if (v == NULL) {
            GR_LOG_ERROR("out of memory: the deletion in %s is not finished",
                         path);
            return;
        }
        c->deletions = v;
        c->deletions[c->ndeletions++] = d;
    }
    GR_LOG_INFO("found the record of an unfinished deletion: topic %s (%s)",
                d.name, strchr(file, file[0] == '.' ? '-' : '~') + 1);
}

/* Whether gregor-topics/<file> is a deletion record: named deleted~<id>,
 * or by an older Gregor .deleted-<id> holding a "topic=" line, which no
 * topic's file has (else it is the file of a topic of that name). */
static bool
is_record(local_t *l, const char *file)
{
    char path[PATH_MAX], line[512];
    bool rec = false;
    FILE *f;

    if (strncmp(file, RECORD_PREFIX, strlen(RECORD_PREFIX)) == 0)
        return true;
    if (strncmp(file, OLD_RECORD_PREFIX, strlen(OLD_RECORD_PREFIX)) != 0)
        return false;
    snprintf(path, sizeof path, "%s/%s", l->topics, file);
    if ((f = fopen(path, "r")) == NULL)
        return false; /* load_topic says why */
    while (!rec && fgets(line, sizeof line, f) != NULL)
        rec = strncmp(line, "topic=", 6) == 0;
    fclose(f);
    return rec;
}

static void
local_deletions_done(gr_cluster_t *c)
{
    local_t *l = c->impl;
    bool now = false;
    meta_op_t *op;

    for (int i = 0; i < l->nrecords; i++) {
        if (queued(c) && (op = calloc(1, sizeof *op)) != NULL) {
            op->kind = OP_UNLINK;
            op->path = l->records[i];
            ops_push(c, op);
            continue;
        }
        if (unlink(l->records[i]) != 0 && errno != ENOENT)
            GR_LOG_ERROR("cannot remove %s: %s", l->records[i],
                         strerror(errno));
        free(l->records[i]);
        now = true;
    }
    if (now)
        gr_fsync_dir(l->topics);
    l->nrecords = 0;
    free(c->deletions);
    c->deletions = NULL;
    c->ndeletions = 0;
}

static int
load_topic(gr_cluster_t *c, const char *name)
{
    local_t *l = c->impl;
    char path[PATH_MAX], line[8192];
    FILE *f;
    gr_uuid_t id;
    int32_t nparts = -1, rf = 1;
    bool internal = false, have_id = false;
    gr_topic_t *t;
    gr_str_t sname = gr_str_c(name);

    if (gr_topic_name_invalid(&sname) != NULL)
        return 0; /* not a topic's file */
    snprintf(path, sizeof path, "%s/%s", l->topics, name);
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    /* first pass: identity; second pass: configs */
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "topic.id=", 9) == 0)
            have_id = gr_uuid_from_base64(&id, line + 9) == 0;
        else if (strncmp(line, "partitions=", 11) == 0)
            nparts = atoi(line + 11);
        else if (strncmp(line, "replication.factor=", 19) == 0)
            rf = atoi(line + 19);
        else if (strcmp(line, "internal=true") == 0)
            internal = true;
    }
    if (!have_id || nparts < 1) {
        fclose(f);
        GR_LOG_ERROR("topic metadata %s is damaged (id or partitions "
                     "missing)",
                     path);
        return -1;
    }
    t = gr_cluster_topic_add(c, name, &id, nparts, (int16_t)rf, internal);
    if (t == NULL || gr_topic_add_partitions(t, nparts, c->self_id,
                                             &c->self_id, 1) != 0) {
        fclose(f);
        return -1;
    }
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        char *eq;
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "config.", 7) != 0 ||
            (eq = strchr(line, '=')) == NULL)
            continue;
        *eq = '\0';
        unescape(eq + 1);
        gr_topic_config_set(t, line + 7, eq + 1);
    }
    fclose(f);
    if (c->hooks.partition_created) {
        for (int32_t i = 0; i < t->nparts; i++)
            if (c->hooks.partition_created(c->hooks.arg, t->parts[i]) !=
                GR_KERR_NONE)
                return -1;
    }
    return 0;
}

/* gregor-configs/broker-<id> and broker-default: the dynamic broker
 * configs (Kafka keeps them in ZooKeeper or the metadata log), one
 * "key=value" a line. */
static void
broker_config_file(gr_cluster_t *c, bool per_broker, char *out, size_t n)
{
    if (per_broker)
        snprintf(out, n, "broker-%d", c->self_id);
    else
        snprintf(out, n, "broker-default");
}

static void resources_path(gr_cluster_t *c, const char *file, char *out,
                           size_t n);

static void push_config(gr_cluster_t *c, const char *file, char *data,
                        size_t len, const char *fault,
                        gr_cluster_stored_cb done, void *arg);

/* Written off the loop (push_config), as the client quotas are. */
static void
local_store_broker_config(gr_cluster_t *c, bool per_broker,
                          const gr_topic_config_t *list,
                          gr_cluster_stored_cb done, void *arg)
{
    char file[32], *data = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&data, &len);

    if (f != NULL) {
        fprintf(f,
                "# Gregor dynamic broker configs (%s); written by the "
                "broker.\n",
                per_broker ? "this broker" : "cluster-wide default");
        for (const gr_topic_config_t *cf = list; cf; cf = cf->next) {
            fprintf(f, "%s=", cf->key);
            put_escaped(f, cf->value);
            fputc('\n', f);
        }
        if (fclose(f) != 0) {
            free(data);
            data = NULL; /* push_config answers ENOMEM */
        }
    }
    broker_config_file(c, per_broker, file, sizeof file);
    push_config(c, file, data, len, "broker_config.store", done, arg);
}

static int
load_broker_config(gr_cluster_t *c, bool per_broker)
{
    char path[PATH_MAX], line[8192], file[32];
    gr_topic_config_t **list =
        per_broker ? &c->broker_configs : &c->default_broker_configs;
    FILE *f;

    broker_config_file(c, per_broker, file, sizeof file);
    resources_path(c, file, path, sizeof path);
    f = fopen(path, "r");
    if (f == NULL)
        return errno == ENOENT ? 0 : -1;
    while (fgets(line, sizeof line, f)) {
        char *eq;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || (eq = strchr(line, '=')) == NULL)
            continue;
        *eq = '\0';
        unescape(eq + 1);
        if (gr_config_list_set(list, line, eq + 1) != 0) {
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return 0;
}

/* gregor-configs/client-metrics: the CLIENT_METRICS resources (Kafka keeps
 * them in the metadata log), written whole on each change as the broker
 * configs are (temporary file, fsync, rename, fsync of the directory, on
 * a worker): a crash leaves the old file or the new one. A "[name]" line
 * starts a resource, "key=value" lines follow; names and values
 * escaped. */
static void
resources_path(gr_cluster_t *c, const char *file, char *out, size_t n)
{
    local_t *l = c->impl;
    snprintf(out, n, "%s/%s", l->configs, file);
}

/* The text of list as gregor-configs/<file> keeps it, a header line
 * first: *data malloc'd. 0 or -1 (out of memory). */
static int
resources_text(const gr_config_resource_t *list, const char *header,
               char **data, size_t *len)
{
    FILE *f;

    *data = NULL;
    *len = 0;
    f = open_memstream(data, len);
    if (f == NULL)
        return -1;
    fprintf(f, "%s\n", header);
    for (const gr_config_resource_t *r = list; r; r = r->next) {
        fputc('[', f);
        put_escaped(f, r->name);
        fputs("]\n", f);
        for (const gr_topic_config_t *cf = r->configs; cf; cf = cf->next) {
            fprintf(f, "%s=", cf->key);
            put_escaped(f, cf->value);
            fputc('\n', f);
        }
    }
    if (fclose(f) != 0) {
        free(*data);
        *data = NULL;
        return -1;
    }
    return 0;
}

/* Queues the write of gregor-configs/<file> (data taken) for a worker:
 * done(arg, err) once it is durable or failed (ENOMEM at once when the
 * queue cannot take it). fault: the point that fails it, counted here
 * on the loop. */
static void
push_config(gr_cluster_t *c, const char *file, char *data, size_t len,
            const char *fault, gr_cluster_stored_cb done, void *arg)
{
    char path[PATH_MAX];
    meta_op_t *op;

    resources_path(c, file, path, sizeof path);
    op = data != NULL ? calloc(1, sizeof *op) : NULL;
    if (op == NULL || (op->path = strdup(path)) == NULL) {
        GR_LOG_ERROR("cannot persist %s: out of memory", path);
        free(op);
        free(data);
        done(arg, ENOMEM);
        return;
    }
    op->kind = OP_CONFIG;
    op->data = data;
    op->len = len;
    op->fault = GR_FAULT(fault, path);
    op->stored = done;
    op->arg = arg;
    ops_push(c, op);
}

/* Queues the write of list as gregor-configs/<file> (push_config), a
 * header line first. */
static void
push_resources(gr_cluster_t *c, const gr_config_resource_t *list,
               const char *file, const char *header, const char *fault,
               gr_cluster_stored_cb done, void *arg)
{
    char *data;
    size_t len;
    if (resources_text(list, header, &data, &len) != 0)
        data = NULL; /* push_config answers ENOMEM */
    push_config(c, file, data, len, fault, done, arg);
}

static void
local_store_client_metrics(gr_cluster_t *c, const gr_config_resource_t *list,
                           gr_cluster_stored_cb done, void *arg)
{
    push_resources(c, list, "client-metrics",
                   "# Gregor client-metrics subscriptions (CLIENT_METRICS "
                   "config resources); written by the broker.",
                   "client_metrics.store", done, arg);
}

/* gregor-configs/client-quotas: the client quotas (Kafka keeps them in
 * the metadata log as ClientQuotaRecords), one resource per entity
 * (cluster/client_quotas.h names them), in the same format, written off
 * the loop. */
static void
local_store_client_quotas(gr_cluster_t *c, const gr_config_resource_t *list,
                          gr_cluster_stored_cb done, void *arg)
{
    push_resources(c, list, "client-quotas",
                   "# Gregor client quotas, one [entity] each; written by "
                   "the broker.",
                   "client_quotas.store", done, arg);
}

typedef struct {
    gr_config_resource_t *r;
    size_t at; /* position in the file */
} named_t;

static int
named_cmp(const void *x, const void *y)
{
    const named_t *a = x, *b = y;
    int d = strcmp(a->r->name, b->r->name);
    return d != 0 ? d : a->at < b->at ? -1 : a->at > b->at;
}

/* Resources named twice in the list of n (a hand-edited file): the first
 * keeps its place and takes the last one's configs, as
 * gr_config_resource_set would have made them one by one, in n log n
 * (one by one, 36,000 client quotas took 8 s to start). -1: out of
 * memory. */
static int
resources_dedup(gr_config_resource_t **list, size_t n)
{
    named_t *v;
    bool *gone;
    size_t i = 0;
    gr_config_resource_t **pp;

    if (n < 2)
        return 0;
    v = malloc(n * sizeof(*v));
    gone = calloc(n, sizeof(*gone));
    if (v == NULL || gone == NULL) {
        free(v);
        free(gone);
        return -1;
    }
    for (gr_config_resource_t *r = *list; r; r = r->next, i++)
        v[i] = (named_t){ r, i };
    qsort(v, n, sizeof(*v), named_cmp);
    for (i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && strcmp(v[j].r->name, v[i].r->name) == 0)
            j++;
        if (j - i > 1) {
            gr_topic_config_t *last = v[j - 1].r->configs;
            v[j - 1].r->configs = v[i].r->configs;
            v[i].r->configs = last;
            for (size_t k = i + 1; k < j; k++)
                gone[v[k].at] = true;
        }
        i = j;
    }
    free(v);
    for (pp = list, i = 0; *pp; i++) {
        gr_config_resource_t *r = *pp;
        if (!gone[i]) {
            pp = &r->next;
            continue;
        }
        *pp = r->next;
        gr_config_list_free(&r->configs);
        free(r->name);
        free(r);
    }
    free(gone);
    return 0;
}

static int
load_resources(gr_cluster_t *c, gr_config_resource_t **list, const char *file)
{
    char path[PATH_MAX], *line = NULL, *name = NULL;
    gr_topic_config_t *configs = NULL;
    gr_config_resource_t **tail = list;
    size_t cap = 0, count = 0;
    ssize_t n;
    int rc = 0;
    FILE *f;

    resources_path(c, file, path, sizeof path);
    f = fopen(path, "r");
    if (f == NULL)
        return errno == ENOENT ? 0 : -1;
    while (*tail) {
        tail = &(*tail)->next;
        count++;
    }
    /* a resource is complete at the next "[" line or the end; appended,
     * names seen twice made one at the end */
    for (;;) {
        n = getline(&line, &cap, f);
        if (n < 0 || (n > 1 && line[0] == '[')) {
            if (name != NULL && configs != NULL) {
                gr_config_resource_t *r = calloc(1, sizeof(*r));
                if (r == NULL) {
                    rc = -1;
                } else {
                    r->name = name;
                    r->configs = configs;
                    name = NULL;
                    configs = NULL;
                    *tail = r;
                    tail = &r->next;
                    count++;
                }
            }
            gr_config_list_free(&configs);
            free(name);
            name = NULL;
            if (n < 0 || rc != 0)
                break;
        }
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '[') {
            size_t k = strlen(line);
            if (k >= 2 && line[k - 1] == ']') {
                line[k - 1] = '\0';
                unescape(line + 1);
                if ((name = strdup(line + 1)) == NULL) {
                    rc = -1;
                    break;
                }
            }
        } else if (line[0] != '#' && name != NULL) {
            char *eq = strchr(line, '=');
            if (eq == NULL)
                continue;
            *eq = '\0';
            unescape(eq + 1);
            if (gr_config_list_set(&configs, line, eq + 1) != 0) {
                rc = -1;
                break;
            }
        }
    }
    gr_config_list_free(&configs);
    free(name);
    free(line);
    fclose(f);
    if (rc == 0)
        rc = resources_dedup(list, count);
    return rc;
}

/* gregor-configs/acls: the authorizer's ACLs (Kafka keeps them in the
 * metadata log as AccessControlEntryRecords), their text written whole on
 * each change, off the loop: a crash leaves the old file or the new one. */
static void
local_store_acls(gr_cluster_t *c, char *data, size_t len,
                 gr_cluster_stored_cb done, void *arg)
{
    push_config(c, "acls", data, len, "acls.store", done, arg);
}

static int
local_load_acls(gr_cluster_t *c, char **data, size_t *len)
{
    local_t *l = c->impl;
    char path[PATH_MAX];
    FILE *f;
    size_t cap = 0, n;
    char buf[65536];

    *data = NULL;
    *len = 0;
    snprintf(path, sizeof path, "%s/acls", l->configs);
    f = fopen(path, "r");
    if (f == NULL) {
        if (errno == ENOENT)
            return 0;
        GR_LOG_ERROR("cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (*len + n + 1 > cap) {
            char *p;
            cap = (*len + n + 1) * 2;
            if ((p = realloc(*data, cap)) == NULL) {
                free(*data);
                *data = NULL;
                fclose(f);
                return -1;
            }
            *data = p;
        }
        memcpy(*data + *len, buf, n);
        *len += n;
    }
    if (ferror(f)) {
        GR_LOG_ERROR("cannot read %s: %s", path, strerror(errno));
        free(*data);
        *data = NULL;
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

/* Queues an fsync of path (in the log dir) and of the log dir without
 * starting it: the next change or gr_cluster_sync() runs it. 0 or -1
 * (ENOMEM). */
static int
queue_fsync(gr_cluster_t *c, const char *path)
{
    local_t *l = c->impl;
    meta_op_t *op = calloc(1, sizeof *op);
    if (op == NULL || (op->path = strdup(path)) == NULL) {
        free(op);
        return -1;
    }
    op->kind = OP_FSYNC;
    if (l->qtail)
        l->qtail->next = op;
    else
        l->qhead = op;
    l->qtail = op;
    return 0;
}

/* meta.properties: the cluster id survives restarts, as in Kafka. */
static int
load_meta(gr_cluster_t *c)
{
    local_t *l = c->impl;
    char path[PATH_MAX], line[512], buf[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/meta.properties", l->dir);
    f = fopen(path, "r");
    if (f != NULL) {
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\r\n")] = '\0';
            if (strncmp(line, "cluster.id=", 11) == 0)
                snprintf(c->cluster_id, sizeof c->cluster_id, "%.22s",
                         line + 11);
        }
        fclose(f);
        if (c->cluster_id[0])
            return 0;
    }
    {
        gr_uuid_t u;
        gr_uuid_random(&u);
        gr_uuid_to_base64(&u, c->cluster_id);
    }
    snprintf(buf, sizeof buf,
             "#\n# Written by Gregor.\nversion=1\ncluster.id=%s\nnode.id=%d\n",
             c->cluster_id, c->self_id);
    if (write_replace(path, buf, strlen(buf), false, false) != 0) {
        GR_LOG_ERROR("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    /* made durable by the first worker job, before any topic change (the
     * queue keeps order); a crash before leaves at worst an empty file,
     * read as none: a new cluster id, with no topic stored yet. Its two
     * fsyncs cost ~1.4 ms of a fresh start here. */
    if (queue_fsync(c, path) != 0)
        return write_atomic(l->dir, path, buf, strlen(buf));
    return 0;
}

static int
cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
local_load(gr_cluster_t *c)
{
    local_t *l = c->impl;
    DIR *d;
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;

    if (load_meta(c) != 0)
        return -1;
    if (load_broker_config(c, false) != 0 || load_broker_config(c, true) != 0) {
        GR_LOG_ERROR("cannot read the dynamic broker configs in %s: %s",
                     l->configs, strerror(errno));
        return -1;
    }
    if (load_resources(c, &c->client_metrics, "client-metrics") != 0) {
        GR_LOG_ERROR("cannot read the client-metrics subscriptions in %s: %s",
                     l->configs, strerror(errno));
        return -1;
    }
    if (load_resources(c, &c->client_quotas, "client-quotas") != 0) {
        GR_LOG_ERROR("cannot read the client quotas in %s: %s", l->configs,
                     strerror(errno));
        return -1;
    }
    if (mkdir(l->topics, 0755) != 0 && errno != EEXIST) {
        GR_LOG_ERROR("cannot create %s: %s", l->topics, strerror(errno));
        return -1;
    }
    d = opendir(l->topics);
    if (d == NULL) {
        GR_LOG_ERROR("cannot read %s: %s", l->topics, strerror(errno));
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        size_t k = strlen(de->d_name);
        if (de->d_name[k - 1] == '~') { /* a write a crash cut short */
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", l->topics, de->d_name);
            GR_LOG_INFO("removing %s, left by an interrupted write", path);
            unlink(path);
            continue;
        }
        /* any other name is a topic's: Kafka's topic names may start
         * with a dot (".hidden", "..x") */
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (is_record(l, de->d_name)) {
            load_record(c, de->d_name);
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof(*names));
            GR_ASSERT(names != NULL);
        }
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    /* creation order is unknown; sort for a stable listing */
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && load_topic(c, names[i]) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    if (rc == 0)
        GR_LOG_INFO("cluster %s: %d topics loaded", c->cluster_id,
                    c->ntopics);
    return rc;
}

static gr_kerr_t
local_create_topic(gr_cluster_t *c, const gr_topic_spec_t *spec,
                   gr_topic_t **out, const char **msg)
{
    gr_uuid_t id;
    gr_topic_t *t;
    int32_t nparts = spec->nparts;
    int16_t rf;
    gr_kerr_t err;

    *out = NULL;
    if ((err = gr_cluster_topic_spec_check(c, spec, &rf, msg)) !=
        GR_KERR_NONE)
        return err;
    if (spec->validate_only)
        return GR_KERR_NONE;
    do
        gr_uuid_random(&id);
    while (gr_cluster_topic_by_id(c, &id) != NULL);
    t = gr_cluster_topic_add(c, spec->name, &id, nparts, rf, spec->internal);
    if (t == NULL) {
        *msg = "Out of memory.";
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (gr_topic_add_partitions(t, nparts, c->self_id, &c->self_id, 1) != 0)
        goto fail;
    for (int i = 0; i < spec->nconfigs; i++)
        if (gr_topic_config_set(t, spec->config_keys[i],
                                spec->config_values[i]) != 0)
            goto fail;
    if (!queued(c)) {
        /* the metadata first: a crash before the partition directories
         * exist leaves a topic whose logs are created at the next start,
         * while the other order left directories of a topic id nobody
         * knew (queued, the broker makes the directories after a sync) */
        if (store_topic_now(c, t) != 0) {
            gr_cluster_topic_remove(c, t);
            *msg = "The topic metadata could not be written.";
            return GR_KERR_KAFKA_STORAGE_ERROR;
        }
    }
    if (c->hooks.partition_created) {
        for (int32_t i = 0; i < t->nparts; i++) {
            gr_kerr_t k = c->hooks.partition_created(c->hooks.arg, t->parts[i]);
            if (k != GR_KERR_NONE) {
                char path[PATH_MAX];
                for (int32_t j = 0; j < i; j++)
                    if (c->hooks.partition_deleted)
                        c->hooks.partition_deleted(c->hooks.arg, t->parts[j]);
                if (!queued(c)) {
                    snprintf(path, sizeof path, "%s/%s",
                             ((local_t *)c->impl)->topics, t->name);
                    unlink(path);
                    gr_fsync_dir(((local_t *)c->impl)->topics);
                }
                gr_cluster_topic_remove(c, t);
                *msg = "The partition log could not be created.";
                return k;
            }
        }
    }
    /* queued last: its failure removes the topic again, later */
    if (queued(c) && store_topic(c, t, true) != 0) {
        if (c->hooks.partition_deleted)
            for (int32_t i = 0; i < t->nparts; i++)
                c->hooks.partition_deleted(c->hooks.arg, t->parts[i]);
        gr_cluster_topic_remove(c, t);
        *msg = "The topic metadata could not be written.";
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    GR_LOG_INFO("created topic %s with %d partition(s)%s", t->name, t->nparts,
                t->internal ? " (internal)" : "");
    *out = t;
    return GR_KERR_NONE;
fail:
    gr_cluster_topic_remove(c, t);
    *msg = "Out of memory.";
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

static gr_kerr_t
local_delete_topic(gr_cluster_t *c, gr_topic_t *t)
{
    local_t *l = c->impl;
    char path[PATH_MAX], rec[PATH_MAX], id[23];
    char *data = NULL;
    int len;
    meta_op_t *op;

    snprintf(path, sizeof path, "%s/%s", l->topics, t->name);
    record_path(l, &t->id, rec, sizeof rec);
    gr_uuid_to_base64(&t->id, id);
    len = asprintf(&data,
                   "# Gregor: topic being deleted; removed once its "
                   "partition directories are gone.\n"
                   "topic=%s\ntopic.id=%s\npartitions=%d\n",
                   t->name, id, t->nparts);
    if (len < 0) {
        GR_LOG_ERROR("cannot delete topic %s: out of memory", t->name);
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    if (queued(c) && (op = calloc(1, sizeof *op)) != NULL) {
        op->kind = OP_RETIRE;
        op->path = strdup(path);
        op->record = strdup(rec);
        op->data = data;
        op->len = (size_t)len;
        op->id = t->id;
        op->fault = GR_FAULT("topic.store", rec);
        if (op->path == NULL || op->record == NULL) {
            op->data = NULL;
            op_free(op);
            goto now;
        }
        ops_push(c, op);
    } else {
    now:
        if (write_replace(rec, data, (size_t)len, GR_FAULT("topic.store", rec),
                          true) != 0 ||
            (unlink(path) != 0 && errno != ENOENT)) {
            GR_LOG_ERROR("cannot delete topic metadata %s: %s", path,
                         strerror(errno));
            free(data);
            return GR_KERR_KAFKA_STORAGE_ERROR;
        }
        free(data);
        gr_fsync_dir(l->topics);
    }
    record_keep(l, rec);
    if (c->hooks.partition_deleted)
        for (int32_t i = 0; i < t->nparts; i++)
            c->hooks.partition_deleted(c->hooks.arg, t->parts[i]);
    GR_LOG_INFO("deleted topic %s", t->name);
    gr_cluster_topic_remove(c, t);
    return GR_KERR_NONE;
}

static gr_kerr_t
local_create_partitions(gr_cluster_t *c, gr_topic_t *t, int32_t new_total,
                        const int32_t *const *assignment, bool validate_only,
                        const char **msg)
{
    int32_t old = t->nparts;
    if (new_total <= old) {
        *msg = "The number of partitions can only be increased.";
        return GR_KERR_INVALID_PARTITIONS;
    }
    if (new_total > 1000000) {
        *msg = "The number of partitions is too large.";
        return GR_KERR_INVALID_PARTITIONS;
    }
    if (assignment) {
        for (int32_t p = 0; p < new_total - old; p++)
            for (int16_t r = 0; r < t->replication_factor; r++)
                if (gr_cluster_node(c, assignment[p][r]) == NULL) {
                    *msg = "Replica assignment names a broker that does not "
                           "exist.";
                    return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
                }
    }
    if (validate_only)
        return GR_KERR_NONE;
    if (gr_topic_add_partitions(t, new_total, c->self_id, &c->self_id, 1) != 0) {
        *msg = "Out of memory.";
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (c->hooks.partition_created)
        for (int32_t i = old; i < new_total; i++) {
            gr_kerr_t k = c->hooks.partition_created(c->hooks.arg, t->parts[i]);
            if (k != GR_KERR_NONE) {
                *msg = "The partition log could not be created.";
                return k;
            }
        }
    if (store_topic(c, t, false) != 0) {
        *msg = "The topic metadata could not be written.";
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    return GR_KERR_NONE;
}

static gr_kerr_t
local_store_topic_config(gr_cluster_t *c, gr_topic_t *t)
{
    return store_topic(c, t, false) == 0 ? GR_KERR_NONE
                                         : GR_KERR_KAFKA_STORAGE_ERROR;
}

static void
local_destroy(gr_cluster_t *c)
{
    local_t *l = c->impl;
    /* what is still queued is made now, and nobody waits for it; a
     * worker's list must be back (gr_workers_destroy, then the posts) */
    GR_ASSERT(l->running == NULL);
    c->stopping = true;
    ops_kick(c);
    free(l->failed);
    for (int i = 0; i < l->nrecords; i++)
        free(l->records[i]);
    free(l->records);
    free(c->deletions);
    gr_cluster_model_fini(c);
    free(l->dir);
    free(l->topics);
    free(l->configs);
    free(l);
    free(c);
}

static const gr_cluster_ops_t local_ops = {
    .load = local_load,
    .create_topic = local_create_topic,
    .delete_topic = local_delete_topic,
    .deletions_done = local_deletions_done,
    .create_partitions = local_create_partitions,
    .store_topic_config = local_store_topic_config,
    .store_broker_config = local_store_broker_config,
    .store_client_metrics = local_store_client_metrics,
    .store_acls = local_store_acls,
    .load_acls = local_load_acls,
    .store_client_quotas = local_store_client_quotas,
    .sync = local_sync,
    .destroy = local_destroy,
};

gr_cluster_t *
gr_cluster_local_new(const char *dir, int32_t node_id,
                     const gr_endpoint_t *endpoints, int nendpoints,
                     const gr_cluster_hooks_t *hooks)
{
    gr_cluster_t *c = calloc(1, sizeof(*c));
    local_t *l = calloc(1, sizeof(*l));
    char path[PATH_MAX];
    if (c == NULL || l == NULL) {
        free(c);
        free(l);
        return NULL;
    }
    c->ops = &local_ops;
    c->impl = l;
    c->self_id = node_id;
    c->controller_id = node_id;
    if (hooks)
        c->hooks = *hooks;
    l->dir = strdup(dir);
    snprintf(path, sizeof path, "%s/gregor-topics", dir);
    l->topics = strdup(path);
    snprintf(path, sizeof path, "%s/gregor-configs", dir);
    l->configs = strdup(path);
    gr_cluster_model_init(c);
    c->nodes = calloc(1, sizeof(gr_node_t));
    c->nodes[0].id = node_id;
    c->nodes[0].endpoints = calloc((size_t)nendpoints, sizeof(gr_endpoint_t));
    memcpy(c->nodes[0].endpoints, endpoints,
           (size_t)nendpoints * sizeof(gr_endpoint_t));
    c->nodes[0].nendpoints = nendpoints;
    c->nnodes = 1;
    return c;
}
