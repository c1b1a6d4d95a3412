/*
 * Broker life cycle: configuration -> data directory -> listeners -> cluster
 * metadata -> serve -> orderly shutdown. See broker.h.
 */
#include "broker.h"
#include "broker_meta_int.h"
#include "broker_repl.h"
#include "auth/acl.h"
#include "control/control.h"
#include "api/api_int.h"
#include "api/emulate.h"
#include "api/change.h"
#include "api/configs.h"
#include "api/fetch_session.h"
#include "cluster/client_quotas.h"
#include "cluster/cluster.h"
#include "cluster/topic_config.h"
#include "group/group.h"
#include "log/log.h"
#include "log/producer_state.h"
#include "partition/partition.h"
#include "telemetry/telemetry.h"
#include "txn/pid.h"
#include "txn/txn.h"
#include "core/log.h"
#include "core/time.h"
#include "net/conn.h"
#include "net/quota.h"
#include "net/scram.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes a directory tree (the temporary data directory). */
static void
remove_tree(const char *dir)
{
    if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        GR_LOG_WARN("cannot remove %s: %s", dir, strerror(errno));
}

static int
mkdirs(const char *path)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/* authorizer.class.name: Kafka's StandardAuthorizer (KRaft) or
 * AclAuthorizer (ZooKeeper) turns Gregor's on, with their super.users and
 * allow.everyone.if.no.acl.found; any other class is one Gregor cannot
 * run, and starting without it would leave open what the configuration
 * closes: start-up stops. 0 or -1 (logged). */
static int
authorizer_new(gr_broker_t *b)
{
    const char *cls = gr_conf_str(b->conf, GR_CONF_AUTHORIZER_CLASS_NAME);
    if (cls == NULL || *cls == '\0')
        return 0;
    if (strcmp(cls, "org.apache.kafka.metadata.authorizer.StandardAuthorizer") !=
            0 &&
        strcmp(cls, "kafka.security.authorizer.AclAuthorizer") != 0) {
        GR_LOG_ERROR("authorizer.class.name=%s: Gregor runs Kafka's "
                     "StandardAuthorizer (org.apache.kafka.metadata."
                     "authorizer.StandardAuthorizer, or kafka.security."
                     "authorizer.AclAuthorizer) and no other; not starting "
                     "without the authorization it asks for",
                     cls);
        return -1;
    }
    b->acls = gr_acls_new(gr_conf_str(b->conf, GR_CONF_SUPER_USERS),
                          gr_conf_bool(b->conf,
                                       GR_CONF_ALLOW_EVERYONE_IF_NO_ACL_FOUND));
    if (b->acls == NULL)
        return -1;
    GR_LOG_INFO("authorizer on (%s): super.users=%s, "
                "allow.everyone.if.no.acl.found=%s",
                cls,
                gr_conf_str(b->conf, GR_CONF_SUPER_USERS)
                    ? gr_conf_str(b->conf, GR_CONF_SUPER_USERS)
                    : "",
                gr_conf_bool(b->conf, GR_CONF_ALLOW_EVERYONE_IF_NO_ACL_FOUND)
                    ? "true"
                    : "false");
    return 0;
}

/* The ACLs the cluster stored, into the authorizer. 0 or -1 (logged: a
 * file that cannot be read stops start-up, as it would leave ACLs out). */
static int
authorizer_load(gr_broker_t *b)
{
    char *data = NULL, why[256];
    size_t len = 0;
    int rc = 0;
    if (b->acls == NULL)
        return 0;
    if (gr_conf_str(b->conf, GR_CONF_ZOOKEEPER_CONNECT) != NULL) {
        GR_LOG_INFO("authorizer: cluster mode: the ACLs are read from "
                    "ZooKeeper (the ACL file is not used)");
        return 0;
    }
    if (gr_cluster_load_acls(b->cluster, &data, &len) != 0)
        return -1;
    if (data != NULL && gr_acls_parse(b->acls, data, len, why, sizeof why) !=
                            0) {
        GR_LOG_ERROR("cannot load the ACLs: %s", why);
        rc = -1;
    }
    free(data);
    if (rc == 0)
        GR_LOG_INFO("authorizer: %zu ACLs loaded", gr_acls_count(b->acls));
    return rc;
}

int
gr_broker_emulate_conf(gr_broker_t *b)
{
    const char *v = gr_conf_str(b->conf, GR_CONF_GREGOR_EMULATE_VERSION);
    char known[128];
    b->emulate = NULL;
    if (v == NULL || *v == '\0')
        return 0;
    if ((b->emulate = gr_api_release_find(v)) == NULL) {
        gr_api_release_list(known, sizeof known);
        GR_LOG_ERROR("gregor.emulate.version=%s: no such Kafka release in "
                     "the table (%s); not starting",
                     v, known);
        return -1;
    }
    GR_LOG_INFO("emulating Apache Kafka %s: its API versions only",
                gr_api_release_name(b->emulate));
    return 0;
}

gr_broker_t *
gr_broker_new(gr_conf_t *conf, const char *listeners_file,
              const char *dump_frames_dir)
{
    gr_broker_t *b = calloc(1, sizeof(*b));
    const char *dir;
    char abs[PATH_MAX];

    if (b == NULL)
        return NULL;
    b->conf = conf;
    b->dispatch = &gr_api_dispatch;
    b->start_us = gr_mono_us();
    b->node_id = gr_conf_node_id(conf);
    b->max_request_bytes = gr_conf_int(conf, GR_CONF_SOCKET_REQUEST_MAX_BYTES);
    if (gr_broker_emulate_conf(b) != 0) {
        gr_broker_destroy(b);
        return NULL;
    }
    /* a Produce request's records, inflated or converted, may take what
     * the request itself may: no more memory than one more such frame */
    b->max_decompressed = (size_t)b->max_request_bytes;
    b->listeners_file = listeners_file ? strdup(listeners_file) : NULL;
    b->dump_frames_dir = dump_frames_dir ? strdup(dump_frames_dir) : NULL;
    if (gr_conf_bool(conf, GR_CONF_GREGOR_TEMP_DATA)) {
        /* CI mode: a fresh directory, removed when the broker stops */
        char tmpl[] = "/tmp/gregor-data.XXXXXX";
        if (mkdtemp(tmpl) == NULL) {
            GR_LOG_ERROR("cannot create a temporary data directory: %s",
                         strerror(errno));
            gr_broker_destroy(b);
            return NULL;
        }
        b->temp_dir = strdup(tmpl);
        dir = b->temp_dir;
        GR_LOG_INFO("gregor.temp.data: data in %s, removed at exit", dir);
    } else {
        dir = gr_conf_log_dir(conf);
    }
    if (mkdirs(dir) != 0 || realpath(dir, abs) == NULL) {
        GR_LOG_ERROR("cannot create log directory %s: %s", dir,
                     strerror(errno));
        gr_broker_destroy(b);
        return NULL;
    }
    b->log_dir = strdup(abs);
    if (b->dump_frames_dir)
        mkdirs(b->dump_frames_dir);
    b->loop = gr_loop_new();
    if (b->loop == NULL || authorizer_new(b) != 0) {
        gr_broker_destroy(b);
        return NULL;
    }
    if (gr_conf_bool(b->conf, GR_CONF_GREGOR_VIRTUAL_CLOCK)) {
        gr_loop_virtual_clock(b->loop); /* core/loop.h: what follows it */
        GR_LOG_INFO("virtual clock: time moves only when advanced "
                    "(POST /v1/clock/advance)");
    }
    return b;
}

static void
before_sleep(gr_loop_t *loop, void *arg)
{
    (void)loop;
    gr_fetch_run_dirty(arg);
    gr_conn_reap(arg);
}

/* The log settings of a partition of t (topic overrides, broker defaults). */
void
gr_broker_log_config(gr_broker_t *b, gr_topic_t *t, gr_log_config_t *cfg)
{
    const gr_topic_settings_t *s = gr_topic_settings(b->conf, t);
    gr_log_config_default(cfg);
    cfg->segment_bytes = s->segment_bytes;
    cfg->segment_ms = s->segment_ms;
    cfg->retention_ms = s->retention_ms;
    cfg->retention_bytes = s->retention_bytes;
    cfg->flush_messages = s->flush_messages;
    cfg->flush_ms = s->flush_ms;
    cfg->index_interval_bytes = s->index_interval_bytes;
    cfg->segment_index_bytes = s->segment_index_bytes;
    cfg->file_delete_delay_ms = s->file_delete_delay_ms;
    cfg->preallocate = s->preallocate;
    cfg->cleanup_delete = s->cleanup_delete;
    cfg->cleanup_compact = s->cleanup_compact;
    cfg->delete_retention_ms = s->delete_retention_ms;
    cfg->min_compaction_lag_ms = s->min_compaction_lag_ms;
    cfg->max_compaction_lag_ms = s->max_compaction_lag_ms;
    cfg->min_cleanable_ratio = s->min_cleanable_dirty_ratio;
    /* LogConfig.maxSegmentMs: a compacted log rolls in time for
     * max.compaction.lag.ms */
    if (s->cleanup_compact && s->max_compaction_lag_ms < cfg->segment_ms)
        cfg->segment_ms = s->max_compaction_lag_ms;
}

/* --- configuration changes (admin APIs), effective at once */

void
gr_broker_topic_config_changed(gr_broker_t *b, gr_topic_t *t)
{
    gr_log_config_t cfg;
    gr_broker_log_config(b, t, &cfg);
    for (int32_t i = 0; i < t->nparts; i++)
        if (t->parts[i]->log != NULL)
            gr_log_set_config(t->parts[i]->log, &cfg);
}

static void
cleaner_setup(gr_broker_t *b)
{
    bool on = gr_conf_bool(b->conf, GR_CONF_LOG_CLEANER_ENABLE);
    int threads = (int)gr_conf_int(b->conf, GR_CONF_LOG_CLEANER_THREADS);
    gr_logs_set_cleaner(
        b->logs, on ? threads : 0,
        gr_conf_int(b->conf, GR_CONF_LOG_CLEANER_DEDUPE_BUFFER_SIZE));
    gr_timer_start(b->loop, &b->cleaner_timer,
                   gr_conf_int(b->conf, GR_CONF_LOG_CLEANER_BACKOFF_MS));
}

void
gr_broker_config_changed(gr_broker_t *b)
{
    const gr_cluster_t *c = b->cluster;
    gr_conf_layer_t layers[2] = { GR_CONF_DYNAMIC_BROKER,
                                  GR_CONF_DYNAMIC_DEFAULT };
    const gr_topic_config_t *lists[2] = { c->broker_configs,
                                          c->default_broker_configs };
    /* the cluster's lists are the truth: rebuild the conf's layers */
    for (int k = 0; k < 2; k++) {
        for (int id = 0; id < GR_CONF__COUNT; id++)
            gr_conf_set_dynamic(b->conf, layers[k], (gr_conf_id_t)id, NULL);
        for (const gr_topic_config_t *cf = lists[k]; cf; cf = cf->next) {
            int id = gr_conf_lookup(cf->key);
            if (id < 0)
                continue; /* a key nobody knows, kept as Kafka keeps it */
            if (gr_conf_set_dynamic(b->conf, layers[k], (gr_conf_id_t)id,
                                    cf->value) != 0)
                GR_LOG_WARN("dynamic broker config %s=%s is not valid here; "
                            "ignored",
                            cf->key, cf->value);
        }
    }
    gr_topic_settings_invalidate_all();
    gr_quotas_configure(b); /* the connection quotas */
    for (gr_topic_t *t = c->topics; t; t = t->lnext)
        gr_broker_topic_config_changed(b, t);
    if (b->groups != NULL)
        gr_groups_set_assignment_interval(
            b->groups, (int32_t)gr_conf_int(
                           b->conf, GR_CONF_GROUP_CONSUMER_ASSIGNMENT_INTERVAL_MS));
    if (b->logs != NULL)
        cleaner_setup(b);
}

/* Opens the log of a partition this broker leads. */
static gr_kerr_t
open_partition(gr_broker_t *b, gr_partition_t *p)
{
    gr_log_config_t cfg;
    gr_err_t err = 0;
    gr_broker_log_config(b, p->topic, &cfg);
    p->log = gr_log_open(b->logs, p->topic->name, p->id, &p->topic->id, &cfg,
                         &err);
    if (p->log == NULL) {
        GR_LOG_ERROR("cannot open the log of %s-%d: %s", p->topic->name, p->id,
                     gr_err_str(err));
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    gr_partition_log_opened(p, b->node_id); /* leader epoch, high watermark */
    p->stats.leo_base = p->high_watermark; /* messages in count from here */
    p->pstate = gr_pstate_new(p->topic->name, p->id);
    if (p->pstate == NULL || gr_pstate_load(p->pstate, p->log) != 0)
        GR_LOG_WARN("%s-%d: producer state could not be rebuilt; idempotent "
                    "producers start afresh",
                    p->topic->name, p->id);
    if (b->groups != NULL)
        gr_groups_partition_added(b->groups, p);
    if (b->meta != NULL && b->meta->zk)
        gr_repl_partition_changed(b, p); /* its followers, if it leads */
    return GR_KERR_NONE;
}

/* --- partitions made off the loop (broker.h) */

typedef struct gr_open_batch {
    gr_broker_t *b;
    gr_log_prep_t *items;
    int n, cap;
    int next;       /* items opened so far (batch_done) */
    gr_req_t *req;  /* answered when done; NULL if none or gone */
    void (*refill)(gr_req_t *req); /* rebuilds req's answer first, or NULL */
    gr_uuid_t *ids; /* the request's topics, with where their errors go */
    int16_t **errs;
    gr_str_t **msgs;
    int nids;
} open_batch_t;

static void
batch_free(open_batch_t *ob)
{
    for (int i = 0; i < ob->n; i++)
        free(ob->items[i].topic);
    free(ob->items);
    free(ob->ids);
    free(ob->errs);
    free(ob->msgs);
    free(ob);
}

/* Answers the waiting request (ob->req not NULL). */
static void
batch_reply(open_batch_t *ob)
{
    if (ob->refill != NULL)
        ob->refill(ob->req);
    gr_req_reply(ob->req);
}

static int
batch_add(open_batch_t *ob, gr_partition_t *p)
{
    gr_log_prep_t *it;
    if (ob->n == ob->cap) {
        int cap = ob->cap ? 2 * ob->cap : 16;
        gr_log_prep_t *v = realloc(ob->items, (size_t)cap * sizeof *v);
        if (v == NULL)
            return -1;
        ob->items = v;
        ob->cap = cap;
    }
    it = &ob->items[ob->n];
    memset(it, 0, sizeof *it);
    if ((it->topic = strdup(p->topic->name)) == NULL)
        return -1;
    it->partition = p->id;
    it->topic_id = p->topic->id;
    ob->n++;
    return 0;
}

/* A partition a worker made: it gets its leader and its log. */
static void
open_prepared(gr_broker_t *b, open_batch_t *ob, gr_log_prep_t *it)
{
    gr_topic_t *t = gr_cluster_topic_by_id(b->cluster, &it->topic_id);
    gr_partition_t *p =
        t != NULL && it->partition < t->nparts ? t->parts[it->partition] : NULL;

    if (p == NULL || !p->opening) { /* deleted meanwhile */
        gr_logs_prepared_unused(b->logs, it);
        return;
    }
    if (it->err != 0)
        GR_LOG_WARN("%s-%d: making its directory on a worker failed (%s); "
                    "trying on the loop",
                    it->topic, (int)it->partition, strerror(it->err));
    p->opening = false;
    p->leader = b->node_id;
    if (open_partition(b, p) == GR_KERR_NONE)
        return;
    for (int k = 0; k < ob->nids; k++)
        if (ob->req != NULL && gr_uuid_eq(&ob->ids[k], &it->topic_id)) {
            *ob->errs[k] = GR_KERR_KAFKA_STORAGE_ERROR;
            *ob->msgs[k] = gr_str_c("The partition log could not be created.");
        }
}

static void
batch_abort(gr_req_t *req)
{
    open_batch_t *ob = req->owner;
    ob->req = NULL;
}

/* Opens the made partitions OPEN_CHUNK at a time, one loop turn each
 * (~5 ms here), so that 10,000 of them do not hold the loop for ~0.5 s. */
#define OPEN_CHUNK 64

static void
batch_done(gr_loop_t *loop, void *arg)
{
    open_batch_t *ob = arg;
    gr_broker_t *b = ob->b;

    if (b->stopping) { /* the directories are there for the next start */
        batch_free(ob);
        return;
    }
    for (;;) {
        int end = ob->n - ob->next > OPEN_CHUNK ? ob->next + OPEN_CHUNK : ob->n;
        for (int i = ob->next; i < end; i++)
            open_prepared(b, ob, &ob->items[i]);
        ob->next = end;
        if (ob->next == ob->n)
            break;
        if (gr_loop_post(loop, batch_done, ob) == 0)
            return; /* the rest at the next turn */
    }
    if (ob->req != NULL)
        batch_reply(ob);
    batch_free(ob);
}

void
gr_broker_open_async_begin(gr_broker_t *b)
{
    GR_ASSERT(b->open_batch == NULL);
    b->open_batch = calloc(1, sizeof(open_batch_t)); /* NULL: open at once */
    if (b->open_batch != NULL)
        b->open_batch->b = b;
}

/* The cluster persisted the batch's topics: the directories next (the
 * metadata first: a crash between leaves no directories of a topic id
 * nobody knows). */
static void
batch_stored(void *arg, const gr_uuid_t *failed, int nfailed, bool cancelled)
{
    open_batch_t *ob = arg;
    gr_broker_t *b = ob->b;
    int keep = 0;

    if (cancelled || b->stopping) {
        if (ob->req != NULL)
            batch_reply(ob);
        batch_free(ob);
        return;
    }
    for (int i = 0; i < nfailed; i++)
        for (int k = 0; k < ob->nids; k++)
            if (ob->req != NULL && gr_uuid_eq(&ob->ids[k], &failed[i])) {
                *ob->errs[k] = GR_KERR_KAFKA_STORAGE_ERROR;
                *ob->msgs[k] =
                    gr_str_c("The topic metadata could not be written.");
            }
    /* partitions of topics gone meanwhile (removed again) need nothing */
    for (int i = 0; i < ob->n; i++) {
        if (gr_cluster_topic_by_id(b->cluster, &ob->items[i].topic_id) ==
            NULL) {
            free(ob->items[i].topic);
            continue;
        }
        ob->items[keep++] = ob->items[i];
    }
    ob->n = keep;
    if (ob->n == 0) {
        if (ob->req != NULL)
            batch_reply(ob);
        batch_free(ob);
        return;
    }
    if (gr_logs_prepare(b->logs, ob->items, ob->n, batch_done, ob) != 0)
        batch_done(b->loop, ob); /* gr_log_open makes them, on the loop */
}

static int
batch_wait(gr_broker_t *b, open_batch_t *ob, gr_req_t *req,
           const gr_topic_waits_t *w)
{
    int n = w != NULL ? w->n : 0;
    if (ob == NULL) /* out of memory: what was done is done */
        return req != NULL ? gr_req_reply(req) : 0;
    ob->b = b;
    if (req != NULL && n > 0) {
        ob->ids = malloc((size_t)n * sizeof *ob->ids);
        ob->errs = malloc((size_t)n * sizeof *ob->errs);
        ob->msgs = malloc((size_t)n * sizeof *ob->msgs);
        if (ob->ids && ob->errs && ob->msgs) {
            memcpy(ob->ids, w->ids, (size_t)n * sizeof *ob->ids);
            memcpy(ob->errs, w->errs, (size_t)n * sizeof *ob->errs);
            memcpy(ob->msgs, w->msgs, (size_t)n * sizeof *ob->msgs);
            ob->nids = n;
        }
    }
    if (req != NULL) {
        ob->req = req;
        gr_req_defer(req, batch_abort, ob);
    }
    gr_cluster_sync(b->cluster, batch_stored, ob);
    return 0;
}

int
gr_broker_open_async_end(gr_broker_t *b, gr_req_t *req,
                         const gr_topic_waits_t *w)
{
    open_batch_t *ob = b->open_batch;

    b->open_batch = NULL;
    return batch_wait(b, ob, req, w);
}

int
gr_broker_open_async_end_then(gr_broker_t *b, gr_req_t *req,
                              void (*refill)(gr_req_t *req))
{
    open_batch_t *ob = b->open_batch;

    b->open_batch = NULL;
    if (ob == NULL) { /* out of memory: the partitions were led at once */
        refill(req);
        return gr_req_reply(req);
    }
    ob->refill = refill;
    return batch_wait(b, ob, req, NULL);
}

int
gr_broker_reply_when_stored(gr_broker_t *b, gr_req_t *req,
                            const gr_topic_waits_t *w)
{
    return batch_wait(b, calloc(1, sizeof(open_batch_t)), req, w);
}

int
gr_topic_waits_init(gr_req_t *req, gr_topic_waits_t *w, int cap)
{
    w->n = 0;
    w->cap = cap > 0 ? cap : 0;
    w->ids = gr_arena_alloc(req->a, (size_t)w->cap * sizeof *w->ids + 1);
    w->errs = gr_arena_alloc(req->a, (size_t)w->cap * sizeof *w->errs + 1);
    w->msgs = gr_arena_alloc(req->a, (size_t)w->cap * sizeof *w->msgs + 1);
    if (w->ids == NULL || w->errs == NULL || w->msgs == NULL) {
        w->cap = 0;
        return -1;
    }
    return 0;
}

void
gr_topic_waits_add(gr_topic_waits_t *w, const gr_uuid_t *id, int16_t *err,
                   gr_str_t *msg)
{
    if (w->n == w->cap)
        return;
    w->ids[w->n] = *id;
    w->errs[w->n] = err;
    w->msgs[w->n++] = msg;
}

/* cluster hook: a partition of this broker appeared (start-up, creation) */
static gr_kerr_t
partition_created(void *arg, gr_partition_t *p)
{
    gr_broker_t *b = arg;
    if (p->leader != b->node_id)
        return GR_KERR_NONE;
    if (b->open_batch != NULL && b->logs != NULL &&
        batch_add(b->open_batch, p) == 0) {
        p->leader = -1; /* until its log is open: batch_done() */
        p->opening = true;
        return GR_KERR_NONE;
    }
    return open_partition(b, p);
}

/* The cluster persisted the deletions so far: their directories may go. */
static void
deletions_stored(void *arg, const gr_uuid_t *failed, int nfailed,
                 bool cancelled)
{
    gr_broker_t *b = arg;
    (void)failed;
    (void)nfailed;
    if (b->stopping || cancelled)
        return; /* the logs are closed (every rename made) or closing */
    if (b->deleted_since_sync) {
        b->deleted_since_sync = false;
        gr_cluster_sync(b->cluster, deletions_stored, b);
        return;
    }
    b->deletions_unsynced = false;
    b->deleted_since_sync = false;
    gr_logs_trash_release(b->logs);
}

static void
partition_deleted(void *arg, gr_partition_t *p)
{
    gr_broker_t *b = arg;
    /* the directory goes once the deletion is persisted (the cluster's
     * record of it first: a crash then finishes it at the next start) */
    if (p->log != NULL && b->logs != NULL) {
        if (!b->deletions_unsynced) {
            b->deletions_unsynced = true;
            gr_logs_trash_hold(b->logs);
            gr_cluster_sync(b->cluster, deletions_stored, b);
        } else {
            b->deleted_since_sync = true;
        }
    }
    if (b->groups != NULL)
        gr_groups_partition_removed(b->groups, p);
    gr_control_partition_gone(b, p); /* its counters into the totals */
    gr_partition_gone(b, p);
    gr_partition_repl_drop(p); /* waiting produces hear it */
    gr_pstate_destroy(p->pstate);
    p->pstate = NULL;
    if (p->log != NULL) {
        gr_log_delete(p->log);
        p->log = NULL;
    }
}

/* cluster hook: the record of a deletion could not be written, so the
 * topic's file stays and the topic is back at the next start: its
 * directories, still held (deletions_stored releases them after this),
 * stay with it rather than come back empty. */
static void
deletion_failed(void *arg, const gr_uuid_t *id)
{
    gr_broker_t *b = arg;
    if (b->logs != NULL)
        gr_logs_trash_keep(b->logs, id);
}

/* txn hook: a marker on __consumer_offsets (transactional offsets) */
static void
txn_offsets_marker(void *arg, gr_partition_t *p, int64_t pid, bool commit)
{
    gr_broker_t *b = arg;
    if (b->groups != NULL)
        gr_groups_txn_complete(b->groups, p->id, pid, commit);
}

static gr_txn_coord_t *
txn_coord_new(gr_broker_t *b)
{
    gr_txn_config_t cfg;
    gr_txn_hooks_t hooks = { txn_offsets_marker, b };
    memset(&cfg, 0, sizeof cfg);
    cfg.max_timeout_ms =
        (int32_t)gr_conf_int(b->conf, GR_CONF_TRANSACTION_MAX_TIMEOUT_MS);
    cfg.id_expiration_ms =
        gr_conf_int(b->conf, GR_CONF_TRANSACTIONAL_ID_EXPIRATION_MS);
    cfg.abort_interval_ms =
        gr_conf_int(b->conf, GR_CONF_TRANSACTION_ABORT_TIMED_OUT_INTERVAL_MS);
    cfg.remove_expired_interval_ms =
        gr_conf_int(b->conf, GR_CONF_TRANSACTION_REMOVE_EXPIRED_INTERVAL_MS);
    cfg.transaction_version =
        (int16_t)gr_conf_int(b->conf, GR_CONF_GREGOR_TRANSACTION_VERSION);
    return gr_txn_coord_new(b->loop, b->cluster, b->pids, b->node_id, &cfg,
                            &hooks);
}

/* The group coordinator with the group.* and offsets.* settings; starts
 * loading __consumer_offsets. */
static int
groups_start(gr_broker_t *b)
{
    gr_groups_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.initial_rebalance_delay_ms =
        gr_conf_int(b->conf, GR_CONF_GROUP_INITIAL_REBALANCE_DELAY_MS);
    cfg.min_session_timeout_ms =
        gr_conf_int(b->conf, GR_CONF_GROUP_MIN_SESSION_TIMEOUT_MS);
    cfg.max_session_timeout_ms =
        gr_conf_int(b->conf, GR_CONF_GROUP_MAX_SESSION_TIMEOUT_MS);
    cfg.max_size = (int32_t)gr_conf_int(b->conf, GR_CONF_GROUP_MAX_SIZE);
    cfg.offsets_retention_ms =
        gr_conf_int(b->conf, GR_CONF_OFFSETS_RETENTION_MINUTES) * 60 * 1000;
    cfg.retention_check_interval_ms =
        gr_conf_int(b->conf, GR_CONF_OFFSETS_RETENTION_CHECK_INTERVAL_MS);
    cfg.offset_metadata_max_bytes =
        (int32_t)gr_conf_int(b->conf, GR_CONF_OFFSET_METADATA_MAX_BYTES);
    cfg.new_member_join_timeout_ms = 5 * 60 * 1000;
    cfg.load_bytes_per_turn =
        (int32_t)gr_conf_int(b->conf, GR_CONF_GREGOR_GROUP_LOAD_BYTES_PER_TURN);
    if (gr_groups_consumer_config(&cfg, b->conf) != 0)
        return -1;
    b->groups = gr_groups_new(b->loop, b->cluster, b->node_id, &cfg);
    if (b->groups == NULL)
        return -1;
    gr_groups_start(b->groups);
    return 0;
}

static void
clean_tick(gr_loop_t *loop, gr_timer_t *t)
{
    gr_broker_t *b = t->data;
    gr_logs_clean(b->logs, gr_loop_wall_ms(loop));
    gr_timer_start(loop, t,
                   gr_conf_int(b->conf, GR_CONF_LOG_CLEANER_BACKOFF_MS));
}

static void
maintain(gr_loop_t *loop, gr_timer_t *t)
{
    gr_broker_t *b = t->data;
    int64_t every = gr_conf_int(b->conf, GR_CONF_LOG_RETENTION_CHECK_INTERVAL_MS);
    int64_t now = gr_loop_wall_ms(loop);
    int64_t expiry = gr_conf_int(b->conf, GR_CONF_PRODUCER_ID_EXPIRATION_MS);
    gr_logs_maintain(b->logs, now);
    for (gr_topic_t *tp = b->cluster->topics; tp; tp = tp->lnext)
        for (int32_t i = 0; i < tp->nparts; i++)
            if (tp->parts[i]->pstate)
                gr_pstate_expire(tp->parts[i]->pstate, now, expiry);
    gr_timer_start(loop, t, every);
}

/* File descriptors for segment files: what the process may open, less a
 * reserve for connections and everything else. */
static int
max_open_segment_files(void)
{
    struct rlimit rl;
    rlim_t n = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        /* use the hard limit when the soft one is lower */
        if (rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
            getrlimit(RLIMIT_NOFILE, &rl);
        }
        n = rl.rlim_cur;
    }
    if (n > 1u << 20)
        n = 1u << 20;
    /* half for segment files; the rest for connections, listeners, the
     * files responses hold (max_held_files each) and everything else */
    return n / 2 > 16 ? (int)(n / 2) : 16;
}

static int
write_listeners_file(gr_broker_t *b)
{
    char tmp[PATH_MAX];
    FILE *f;
    if (b->listeners_file == NULL)
        return 0;
    snprintf(tmp, sizeof tmp, "%s.tmp", b->listeners_file);
    f = fopen(tmp, "w");
    if (f == NULL) {
        GR_LOG_ERROR("cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    for (int i = 0; i < b->nlisteners; i++)
        fprintf(f, "%s://%s:%d\n", b->listeners[i].name,
                b->listeners[i].adv_host, b->listeners[i].port);
    if (fclose(f) != 0 || rename(tmp, b->listeners_file) != 0) {
        GR_LOG_ERROR("cannot write %s: %s", b->listeners_file,
                     strerror(errno));
        return -1;
    }
    return 0;
}

static void
start_synced(void *arg, const gr_uuid_t *failed, int nfailed, bool cancelled)
{
    (void)arg;
    (void)failed;
    (void)nfailed;
    (void)cancelled;
}

/* What loading the metadata queued (the fsyncs of a new meta.properties)
 * runs a little after the broker serves, or sooner with the first change
 * (queued behind it): the first worker thread it starts costs 0.1-0.5 ms
 * on this VM, which the first requests need not wait for. */
static void
start_sync(gr_loop_t *loop, gr_timer_t *t)
{
    gr_broker_t *b = t->data;
    (void)loop;
    gr_cluster_sync(b->cluster, start_synced, b);
}

/* Every directory of the topics deleted so far is gone: the records of
 * those deletions can go. */
static void
trash_idle(void *arg)
{
    gr_broker_t *b = arg;
    if (b->cluster != NULL)
        gr_cluster_deletions_done(b->cluster);
}

/* Deletions a crash cut short (their records are still in the store)
 * are finished, as Kafka's controller resumes them; the records go once
 * the directories are gone. */
static void
finish_deletions(gr_broker_t *b)
{
    gr_cluster_t *c = b->cluster;
    int n = 0;

    for (int i = 0; i < c->ndeletions; i++) {
        const gr_deletion_t *d = &c->deletions[i];
        gr_topic_t *t = gr_cluster_topic_cstr(c, d->name);
        /* a crash before the topic's file went: the deletion was not
         * answered, and the topic stays */
        if (gr_cluster_topic_by_id(c, &d->id) != NULL) {
            GR_LOG_INFO("topic %s stays: a crash came before its deletion "
                        "was stored (nor answered)",
                        d->name);
            continue;
        }
        n += gr_logs_finish_deletion(b->logs, d->name, &d->id, d->nparts,
                                     t != NULL ? t->nparts : 0);
    }
    gr_logs_on_trash_idle(b->logs, trash_idle, b);
    if (c->ndeletions > 0 && n == 0)
        gr_cluster_deletions_done(c);
}

int
gr_broker_run(gr_broker_t *b)
{
    gr_endpoint_t eps[GR_MAX_LISTENERS];

    if (gr_listeners_open(b) != 0 || gr_conn_limits_start(b) != 0)
        return -1;
    b->workers = gr_workers_new(b->loop, 2);
    if (b->workers == NULL)
        return -1;
    /* apart from fsyncs and the rest: a client's inflation delays no
     * other work, and one request's bound at a time is what it holds */
    b->inflate_workers = gr_workers_new(b->loop, 1);
    if (b->inflate_workers == NULL)
        return -1;
    {
        gr_err_t err = 0;
        int max_files = max_open_segment_files();
        b->max_held_files = max_files / 8 > 256 ? 256
                            : max_files / 8 < 8  ? 8
                                                 : max_files / 8;
        b->logs = gr_logs_open(b->log_dir, b->loop, b->workers, max_files,
                               &err);
        if (b->logs == NULL) {
            GR_LOG_ERROR("cannot open the log directory %s: %s", b->log_dir,
                         gr_err_str(err));
            return -1;
        }
    }
    b->pids = gr_pids_open(b->log_dir);
    if (b->pids == NULL)
        return -1;
    b->scram = gr_scram_store_open(b->log_dir);
    if (b->scram == NULL)
        return -1;
    b->fetch_sessions = gr_fsessions_new((int)gr_conf_int(
        b->conf, GR_CONF_MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS));
    memset(eps, 0, sizeof eps);
    for (int i = 0; i < b->nlisteners; i++) {
        snprintf(eps[i].listener, sizeof eps[i].listener, "%s",
                 b->listeners[i].name);
        snprintf(eps[i].host, sizeof eps[i].host, "%s",
                 b->listeners[i].adv_host);
        eps[i].port = b->listeners[i].adv_port;
    }
    {
        gr_cluster_hooks_t hooks = { .partition_created = partition_created,
                                     .partition_deleted = partition_deleted,
                                     .deletion_failed = deletion_failed,
                                     .arg = b };
        b->cluster = gr_cluster_local_new(b->log_dir, b->node_id, eps,
                                          b->nlisteners, &hooks);
    }
    /* this broker's rack in Metadata (cluster mode reads every broker's
     * back from its registration) */
    if (b->cluster != NULL &&
        gr_conf_str(b->conf, GR_CONF_BROKER_RACK) != NULL &&
        (b->cluster->nodes[0].rack =
             strdup(gr_conf_str(b->conf, GR_CONF_BROKER_RACK))) == NULL)
        return -1;
    if (b->cluster == NULL || gr_cluster_load(b->cluster) != 0 ||
        authorizer_load(b) != 0)
        return -1;
    /* client telemetry, with the subscriptions the cluster loaded */
    b->telemetry = gr_telemetry_new(
        b->loop, b->workers,
        (int32_t)gr_conf_int(b->conf, GR_CONF_TELEMETRY_MAX_BYTES),
        gr_conf_str(b->conf, GR_CONF_GREGOR_CLIENT_TELEMETRY_FILE));
    if (b->telemetry == NULL)
        return -1;
    gr_configs_client_metrics_load(b);
    /* client quotas, with the ones the cluster loaded; a quota callback
     * of Java's would decide them otherwise: refused, not ignored */
    {
        const char *cb = gr_conf_extra_get(b->conf,
                                           "client.quota.callback.class");
        if (cb != NULL && *cb != '\0') {
            GR_LOG_ERROR("client.quota.callback.class=%s: Gregor applies "
                         "Kafka's default quotas (users and client-ids) and "
                         "cannot load a Java quota callback (remove the "
                         "setting)",
                         cb);
            return -1;
        }
    }
    b->client_quotas = gr_client_quotas_new(
        b->cluster, (int)gr_conf_int(b->conf, GR_CONF_QUOTA_WINDOW_NUM),
        gr_conf_int(b->conf, GR_CONF_QUOTA_WINDOW_SIZE_SECONDS) * 1000);
    if (b->client_quotas == NULL || gr_client_quotas_load(b->client_quotas) != 0)
        return -1;
    gr_client_quotas_set_mutation_window(
        b->client_quotas,
        (int)gr_conf_int(b->conf, GR_CONF_CONTROLLER_QUOTA_WINDOW_NUM),
        gr_conf_int(b->conf, GR_CONF_CONTROLLER_QUOTA_WINDOW_SIZE_SECONDS) *
            1000);
    finish_deletions(b);
    gr_cluster_set_workers(b->cluster, b->workers); /* topic files there */
    if (gr_broker_meta_start(b) != 0) /* cluster mode without ZooKeeper */
        return -1;
    gr_timer_init(&b->start_sync_timer, start_sync, b);
    gr_timer_start(b->loop, &b->start_sync_timer, 50);
    if (groups_start(b) != 0)
        return -1;
    if ((b->txn = txn_coord_new(b)) == NULL)
        return -1;
    gr_txn_coord_start(b->txn); /* loads __transaction_state */
    gr_timer_init_virtual(&b->maintain_timer, maintain, b);
    gr_timer_start(b->loop, &b->maintain_timer,
                   gr_conf_int(b->conf, GR_CONF_LOG_RETENTION_CHECK_INTERVAL_MS));
    /* dynamic broker configs loaded with the cluster; the cleaner */
    gr_timer_init_virtual(&b->cleaner_timer, clean_tick, b);
    gr_broker_config_changed(b);
    gr_loop_set_before_sleep(b->loop, before_sleep, b);
    if (gr_control_open(b) != 0)
        return -1;
    if (write_listeners_file(b) != 0)
        return -1;
    if (!b->embedded) {
        for (int i = 0; i < b->nlisteners; i++)
            printf("gregor: listening on %s://%s:%d\n", b->listeners[i].name,
                   b->listeners[i].adv_host, b->listeners[i].port);
        if (gr_control_url(b) != NULL)
            printf("gregor: control on %s\n", gr_control_url(b));
        if (gr_control_metrics_url(b) != NULL)
            printf("gregor: metrics on %s/metrics\n",
                   gr_control_metrics_url(b));
        printf("gregor: started (node %d, cluster %s, data %s) in %.1f ms\n",
               b->node_id, b->cluster->cluster_id, b->log_dir,
               (double)(gr_mono_us() - b->start_us) / 1000.0);
        fflush(stdout);
    }
    GR_LOG_INFO("serving as node %d of cluster %s", b->node_id,
                b->cluster->cluster_id);
    gr_loop_run(b->loop);
    gr_broker_meta_leave(b); /* cluster mode: controlled shutdown */
    GR_LOG_INFO("shutting down");
    gr_listeners_close(b);
    gr_conn_close_all(b);
    gr_control_close(b); /* after the connections: no request held */
    gr_groups_destroy(b->groups); /* after the connections: no waiter left */
    b->groups = NULL;
    gr_timer_stop(b->loop, &b->maintain_timer);
    gr_timer_stop(b->loop, &b->start_sync_timer);
    gr_timer_stop(b->loop, &b->cleaner_timer);
    gr_conn_limits_stop(b);
    return 0;
}

void
gr_broker_stop(gr_broker_t *b)
{
    gr_loop_stop(b->loop);
}

void
gr_broker_destroy(gr_broker_t *b)
{
    if (b == NULL)
        return;
    gr_control_close(b); /* when gr_broker_run() stopped short */
    gr_quotas_stop(b);   /* likewise (a start-up refused after them) */
    gr_txn_coord_destroy(b->txn);
    gr_groups_destroy(b->groups);
    b->groups = NULL;
    b->stopping = true; /* partitions still being made open at next start */
    if (b->cluster != NULL) /* its last topic files are written at once */
        b->cluster->stopping = true;
    /* logs first: a clean shutdown writes indexes, checkpoints, marker */
    if (b->logs) {
        /* producer state snapshots at the log end (a clean restart reads
         * no log), then the cluster forgets the logs */
        if (b->cluster)
            for (gr_topic_t *t = b->cluster->topics; t; t = t->lnext)
                for (int32_t i = 0; i < t->nparts; i++) {
                    gr_partition_t *p = t->parts[i];
                    if (p->pstate && p->log)
                        gr_pstate_snapshot(p->pstate, p->log);
                    gr_pstate_destroy(p->pstate);
                    p->pstate = NULL;
                    p->log = NULL;
                }
        gr_logs_close(b->logs);
    }
    gr_broker_meta_stop(b); /* before the workers: its last write ends */
    if (b->inflate_workers) { /* their requests were aborted */
        gr_workers_destroy(b->inflate_workers);
        gr_loop_drain_posts(b->loop);
    }
    if (b->workers) {
        gr_workers_destroy(b->workers);
        gr_loop_drain_posts(b->loop);
    }
    gr_telemetry_destroy(b->telemetry); /* its exports' posts have run */
    gr_changes_destroy(b); /* their stores have called back */
    gr_acls_destroy(b->acls);
    b->telemetry = NULL;
    gr_fsessions_destroy(b->fetch_sessions);
    gr_pids_close(b->pids);
    gr_client_quotas_destroy(b->client_quotas);
    b->client_quotas = NULL;
    gr_scram_store_close(b->scram); /* after the workers: none writes */
    b->scram = NULL;
    gr_cluster_destroy(b->cluster);
    gr_buf_fini(&b->scratch);
    gr_loop_destroy(b->loop);
    if (b->temp_dir != NULL) {
        remove_tree(b->temp_dir);
        free(b->temp_dir);
    }
    free(b->log_dir);
    free(b->listeners_file);
    free(b->dump_frames_dir);
    free(b);
}
