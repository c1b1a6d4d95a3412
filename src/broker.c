/*
 * Broker life cycle: configuration -> data directory -> listeners -> cluster
 * metadata -> serve -> orderly shutdown. See broker.h.
 */
#include "broker.h"
#include "cluster/cluster.h"
#include "core/log.h"
#include "core/time.h"
#include "net/conn.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    gr_conn_reap(arg);
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

    if (gr_listeners_open(b) != 0)
        return -1;
    memset(eps, 0, sizeof eps);
    for (int i = 0; i < b->nlisteners; i++) {
        snprintf(eps[i].listener, sizeof eps[i].listener, "%s",
                 b->listeners[i].name);
        snprintf(eps[i].host, sizeof eps[i].host, "%s",
                 b->listeners[i].adv_host);
        eps[i].port = b->listeners[i].adv_port;
    }
    b->cluster =
        gr_cluster_local_new(b->log_dir, b->node_id, eps, b->nlisteners, NULL);
    if (b->cluster == NULL || gr_cluster_load(b->cluster) != 0)
        return -1;
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
    gr_cluster_destroy(b->cluster);
    gr_loop_destroy(b->loop);
    free(b->log_dir);
    free(b->listeners_file);
    free(b->dump_frames_dir);
    free(b);
}
