/*
 * The broker's place in the coordination store (src/meta/): at start-up
 * it opens meta_local under <log.dirs>/__cluster_metadata_local/, makes
 * Kafka's persistent paths, registers /brokers/ids/<node.id> (ephemeral;
 * its czxid is the broker epoch) and wins /controller, raising
 * /controller_epoch by one in the same multi, as Kafka's
 * registerControllerAndIncrementControllerEpoch does
 * (cluster-zookeeper.md 2.2). Nothing reads these yet: the controller
 * that will act on them is the next step of issue 22. A failure here is
 * logged and changes nothing else.
 */
#include "broker.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/time.h"
#include "meta/meta.h"

#define META_DIR "__cluster_metadata_local"

struct gr_broker_meta {
    gr_broker_t *b;
    gr_meta_t *m;
    int64_t broker_epoch;     /* czxid of /brokers/ids/<id>; -1 before */
    int32_t controller_epoch; /* -1 until elected */
};

/* Kafka's PersistentZkPaths that the later steps use */
static const char *const persistent[] = {
    "/brokers",     "/brokers/ids",          "/brokers/topics",
    "/config",      "/config/topics",        "/config/changes",
    "/admin",       "/admin/delete_topics",  "/isr_change_notification",
};

static void read_epoch(struct gr_broker_meta *bm);

static void
elected(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    struct gr_broker_meta *bm = arg;
    (void)res;
    (void)n;
    if (rc != GR_META_OK) {
        GR_LOG_WARN("meta: node %d did not become controller: %s",
                    bm->b->node_id, gr_meta_rc_name(rc));
        return;
    }
    GR_LOG_INFO("meta: node %d registered (broker epoch %" PRId64
                ") and elected controller (controller epoch %" PRId32 ")",
                bm->b->node_id, bm->broker_epoch, bm->controller_epoch);
}

static void
epoch_made(void *arg, int rc, const char *path, const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    (void)path;
    (void)st;
    if (rc != GR_META_OK && rc != GR_META_NODEEXISTS) {
        GR_LOG_WARN("meta: cannot create /controller_epoch: %s",
                    gr_meta_rc_name(rc));
        return;
    }
    read_epoch(bm);
}

static void
epoch_read(void *arg, int rc, const void *data, size_t len,
           const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    char txt[16], ctl[128], epoch[16];
    long e;
    char *end;
    gr_meta_op_t ops[2];

    if (rc == GR_META_NONODE) {
        /* Kafka's InitialControllerEpoch, 0: the first controller is 1 */
        if (gr_meta_create(bm->m, "/controller_epoch", "0", 1, 0, epoch_made,
                           bm) != 0)
            GR_LOG_WARN("meta: out of memory electing the controller");
        return;
    }
    if (rc != GR_META_OK || len == 0 || len >= sizeof txt) {
        GR_LOG_WARN("meta: /controller_epoch unreadable: %s",
                    gr_meta_rc_name(rc));
        return;
    }
    memcpy(txt, data, len);
    txt[len] = '\0';
    e = strtol(txt, &end, 10);
    if (*end != '\0' || e < 0 || e >= INT32_MAX) {
        GR_LOG_WARN("meta: /controller_epoch holds \"%s\"", txt);
        return;
    }
    bm->controller_epoch = (int32_t)e + 1;
    snprintf(epoch, sizeof epoch, "%" PRId32, bm->controller_epoch);
    snprintf(ctl, sizeof ctl,
             "{\"version\":1,\"brokerid\":%d,\"timestamp\":\"%" PRId64 "\"}",
             (int)bm->b->node_id, gr_wall_ms());
    ops[0] = (gr_meta_op_t){ GR_META_OP_CREATE, "/controller", ctl,
                             strlen(ctl), GR_META_EPHEMERAL, -1 };
    ops[1] = (gr_meta_op_t){ GR_META_OP_SET, "/controller_epoch", epoch,
                             strlen(epoch), 0, st->version };
    if (gr_meta_multi(bm->m, ops, 2, elected, bm) != 0)
        GR_LOG_WARN("meta: out of memory electing the controller");
}

static void
read_epoch(struct gr_broker_meta *bm)
{
    if (gr_meta_get(bm->m, "/controller_epoch", NULL, NULL, epoch_read, bm) !=
        0)
        GR_LOG_WARN("meta: out of memory electing the controller");
}

static void
path_made(void *arg, int rc, const char *path, const gr_meta_stat_t *st)
{
    (void)arg;
    (void)path;
    (void)st;
    if (rc != GR_META_OK && rc != GR_META_NODEEXISTS)
        GR_LOG_WARN("meta: cannot create a top-level path: %s",
                    gr_meta_rc_name(rc));
}

static void
registered(void *arg, int rc, const char *path, const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    if (rc != GR_META_OK) {
        GR_LOG_WARN("meta: cannot register node %d: %s", bm->b->node_id,
                    gr_meta_rc_name(rc));
        return;
    }
    (void)path;
    bm->broker_epoch = st->czxid;
    read_epoch(bm);
}

/* Kafka's BrokerIdZNode JSON, version 5 */
static size_t
broker_json(const gr_broker_t *b, char *out, size_t cap)
{
    size_t n = 0;
    const char *sep = "";
#define PUT(...)                                                    \
    do {                                                            \
        int w_ = snprintf(out + n, n < cap ? cap - n : 0, __VA_ARGS__); \
        n += w_ > 0 ? (size_t)w_ : 0;                               \
    } while (0)
    PUT("{\"version\":5,\"host\":\"%s\",\"port\":%d,\"jmx_port\":-1,"
        "\"features\":{},\"endpoints\":[",
        b->nlisteners ? b->listeners[0].adv_host : "",
        b->nlisteners ? b->listeners[0].adv_port : -1);
    for (int i = 0; i < b->nlisteners; i++, sep = ",")
        PUT("%s\"%s://%s:%d\"", sep, b->listeners[i].name,
            b->listeners[i].adv_host, b->listeners[i].adv_port);
    PUT("],\"listener_security_protocol_map\":{");
    sep = "";
    for (int i = 0; i < b->nlisteners; i++, sep = ",")
        PUT("%s\"%s\":\"%s\"", sep, b->listeners[i].name,
            b->listeners[i].protocol);
    PUT("},\"timestamp\":\"%" PRId64 "\"}", gr_wall_ms());
#undef PUT
    return n;
}

static void
connected(void *arg, gr_meta_session_t state, int64_t session_id)
{
    struct gr_broker_meta *bm = arg;
    char path[64], json[4096];
    size_t len;

    if (state != GR_META_SESSION_CONNECTED)
        return; /* meta_local's session never ends */
    GR_LOG_DEBUG("meta: session %" PRId64 " connected", session_id);
    for (size_t i = 0; i < sizeof persistent / sizeof persistent[0]; i++)
        if (gr_meta_create(bm->m, persistent[i], NULL, 0, 0, path_made,
                           NULL) != 0)
            goto oom;
    len = broker_json(bm->b, json, sizeof json);
    if (len >= sizeof json) {
        GR_LOG_WARN("meta: node %d's registration is too long",
                    bm->b->node_id);
        return;
    }
    snprintf(path, sizeof path, "/brokers/ids/%d", (int)bm->b->node_id);
    if (gr_meta_create(bm->m, path, json, len, GR_META_EPHEMERAL, registered,
                       bm) == 0)
        return;
oom:
    GR_LOG_WARN("meta: out of memory registering node %d", bm->b->node_id);
}

int
gr_broker_meta_start(gr_broker_t *b)
{
    struct gr_broker_meta *bm = calloc(1, sizeof(*bm));
    char *dir = NULL;
    gr_meta_cfg_t cfg;

    if (bm == NULL || asprintf(&dir, "%s/%s", b->log_dir, META_DIR) < 0) {
        free(bm);
        return -1;
    }
    bm->b = b;
    bm->broker_epoch = -1;
    bm->controller_epoch = -1;
    cfg = (gr_meta_cfg_t){ b->loop, b->workers, dir };
    bm->m = gr_meta_local_open(&cfg, connected, bm);
    free(dir);
    if (bm->m == NULL) {
        free(bm);
        return -1;
    }
    b->meta = bm;
    return 0;
}

void
gr_broker_meta_stop(gr_broker_t *b)
{
    if (b->meta == NULL)
        return;
    gr_meta_close(b->meta->m);
    free(b->meta);
    b->meta = NULL;
}
