/*
 * Broker life cycle: configuration -> data directory -> listeners -> cluster
 * metadata -> serve -> orderly shutdown. See broker.h.
 */
#include "broker.h"
#include "api/api_int.h"
#include "api/fetch_session.h"
#include "cluster/cluster.h"
#include "cluster/topic_config.h"
#include "log/log.h"
#include "core/log.h"
#include "core/time.h"
#include "net/conn.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

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
    b->start_us = gr_mono_us();
    b->node_id = gr_conf_node_id(conf);
    b->max_request_bytes = gr_conf_int(conf, GR_CONF_SOCKET_REQUEST_MAX_BYTES);
    /* a compressed batch may inflate; bound what one batch may expand to */
    b->max_decompressed = (size_t)256 << 20;
    b->listeners_file = listeners_file ? strdup(listeners_file) : NULL;
    b->dump_frames_dir = dump_frames_dir ? strdup(dump_frames_dir) : NULL;
    dir = gr_conf_log_dir(conf);
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
    if (b->loop == NULL) {
        gr_broker_destroy(b);
        return NULL;
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
static void
log_config(gr_broker_t *b, gr_topic_t *t, gr_log_config_t *cfg)
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
}

/* cluster hook: a partition of this broker appeared (start-up, creation) */
static gr_kerr_t
partition_created(void *arg, gr_partition_t *p)
{
    gr_broker_t *b = arg;
    gr_log_config_t cfg;
    gr_err_t err = 0;
    if (p->leader != b->node_id)
        return GR_KERR_NONE;
    log_config(b, p->topic, &cfg);
    p->log = gr_log_open(b->logs, p->topic->name, p->id, &p->topic->id, &cfg,
                         &err);
    if (p->log == NULL) {
        GR_LOG_ERROR("cannot open the log of %s-%d: %s", p->topic->name, p->id,
                     gr_err_str(err));
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    p->high_watermark = gr_log_end_offset(p->log);
    return GR_KERR_NONE;
}

static void
partition_deleted(void *arg, gr_partition_t *p)
{
    gr_broker_t *b = arg;
    gr_partition_gone(b, p);
    if (p->log != NULL) {
        gr_log_delete(p->log);
        p->log = NULL;
    }
}

static void
maintain(gr_loop_t *loop, gr_timer_t *t)
{
    gr_broker_t *b = t->data;
    int64_t every = gr_conf_int(b->conf, GR_CONF_LOG_RETENTION_CHECK_INTERVAL_MS);
    gr_logs_maintain(b->logs, gr_wall_ms());
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
    return n > 512 ? (int)(n / 2) : (int)(n > 64 ? n - 48 : 16);
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

int
gr_broker_run(gr_broker_t *b)
{
    gr_endpoint_t eps[GR_MAX_LISTENERS];

    if (gr_listeners_open(b) != 0 || gr_conn_limits_start(b) != 0)
        return -1;
    b->workers = gr_workers_new(b->loop, 2);
    if (b->workers == NULL)
        return -1;
    {
        gr_err_t err = 0;
        b->logs = gr_logs_open(b->log_dir, b->loop, b->workers,
                               max_open_segment_files(), &err);
        if (b->logs == NULL) {
            GR_LOG_ERROR("cannot open the log directory %s: %s", b->log_dir,
                         gr_err_str(err));
            return -1;
        }
    }
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
        gr_cluster_hooks_t hooks = {partition_created, partition_deleted, b};
        b->cluster = gr_cluster_local_new(b->log_dir, b->node_id, eps,
                                          b->nlisteners, &hooks);
    }
    if (b->cluster == NULL || gr_cluster_load(b->cluster) != 0)
        return -1;
    gr_timer_init(&b->maintain_timer, maintain, b);
    gr_timer_start(b->loop, &b->maintain_timer,
                   gr_conf_int(b->conf, GR_CONF_LOG_RETENTION_CHECK_INTERVAL_MS));
    if (gr_conf_str(b->conf, GR_CONF_ZOOKEEPER_CONNECT))
        GR_LOG_INFO("zookeeper.connect is set but not used: Gregor runs as a "
                    "single broker");
    gr_loop_set_before_sleep(b->loop, before_sleep, b);
    if (write_listeners_file(b) != 0)
        return -1;
    for (int i = 0; i < b->nlisteners; i++)
        printf("gregor: listening on %s://%s:%d\n", b->listeners[i].name,
               b->listeners[i].adv_host, b->listeners[i].port);
    printf("gregor: started (node %d, cluster %s, data %s) in %.1f ms\n",
           b->node_id, b->cluster->cluster_id, b->log_dir,
           (double)(gr_mono_us() - b->start_us) / 1000.0);
    fflush(stdout);
    GR_LOG_INFO("serving as node %d of cluster %s", b->node_id,
                b->cluster->cluster_id);
    gr_loop_run(b->loop);
    GR_LOG_INFO("shutting down");
    gr_listeners_close(b);
    gr_conn_close_all(b);
    gr_timer_stop(b->loop, &b->maintain_timer);
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
    /* logs first: a clean shutdown writes indexes, checkpoints, marker */
    if (b->logs) {
        /* the cluster still points at the logs: forget them */
        if (b->cluster)
            for (gr_topic_t *t = b->cluster->topics; t; t = t->lnext)
                for (int32_t i = 0; i < t->nparts; i++)
                    t->parts[i]->log = NULL;
        gr_logs_close(b->logs);
    }
    if (b->workers) {
        gr_workers_destroy(b->workers);
        gr_loop_drain_posts(b->loop);
    }
    gr_fsessions_destroy(b->fetch_sessions);
    gr_cluster_destroy(b->cluster);
    gr_buf_fini(&b->scratch);
    gr_loop_destroy(b->loop);
    free(b->log_dir);
    free(b->listeners_file);
    free(b->dump_frames_dir);
    free(b);
}
