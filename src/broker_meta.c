/*
 * The broker's place in the coordination store (src/meta/). Without
 * zookeeper.connect it opens meta_local under
 * <log.dirs>/__cluster_metadata_local/; with it, meta_zk on that ensemble
 * (cluster mode). Either way, at every new session it makes Kafka's
 * persistent paths, registers /brokers/ids/<node.id> (ephemeral; its
 * czxid is the broker epoch) and runs Kafka's controller election
 * (cluster-zookeeper.md 2.2, KafkaController.elect): whoever creates the
 * ephemeral /controller, raising /controller_epoch by one in the same
 * multi (registerControllerAndIncrementControllerEpoch), is controller;
 * the others watch /controller and run again when it goes. Nothing acts
 * on the controller role yet: replication is the next step of issue 22.
 *
 * Sessions (meta.h): SUSPENDED pauses nothing yet (nothing acts) but is
 * logged; EXPIRED resigns the controller role and forgets the broker
 * epoch, and the next CONNECTED registers and elects again (Kafka's
 * Expire, then RegisterBrokerAndReelect). A write answered CONNECTIONLOSS
 * is left to that next CONNECTED, which re-reads: a create found existing
 * with our own session as owner was ours (Kafka's CheckedEphemeral).
 */
#include "broker.h"
#include "broker_acls.h"
#include "broker_meta_int.h"
#include "broker_replica.h"
#include "broker_repl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/conf.h"
#include "core/json.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/time.h"
#include "meta/meta.h"
#include "txn/pid.h"

#define META_DIR "__cluster_metadata_local"


/* Kafka's PersistentZkPaths that the later steps use */
static const char *const persistent[] = {
    "/brokers",     "/brokers/ids",          "/brokers/topics",
    "/config",      "/config/topics",        "/config/changes",
    "/admin",       "/admin/delete_topics",  "/isr_change_notification",
};

static void elect(struct gr_broker_meta *bm);
static void do_register(struct gr_broker_meta *bm);

static double
since_session_ms(const struct gr_broker_meta *bm)
{
    return (double)(gr_mono_us() - bm->session_us) / 1000.0;
}

int
gr_broker_meta_parse_epoch(const void *data, size_t len, int32_t *epoch)
{
    char txt[16], *end;
    long e;
    if (data == NULL || len == 0 || len >= sizeof txt)
        return -1;
    memcpy(txt, data, len);
    txt[len] = '\0';
    e = strtol(txt, &end, 10);
    if (*end != '\0' || txt[0] < '0' || txt[0] > '9' || e < 0 ||
        e >= INT32_MAX)
        return -1;
    *epoch = (int32_t)e;
    return 0;
}

int
gr_broker_meta_parse_controller(const void *data, size_t len, int32_t *id)
{
    gr_arena_t *a;
    const gr_json_t *o, *v;
    char err[64];
    int rc = -1;
    if (data == NULL || (a = gr_arena_new(1024)) == NULL)
        return -1;
    o = gr_json_parse(a, data, len, err, sizeof err);
    v = o != NULL ? gr_json_get(o, "brokerid") : NULL;
    if (v != NULL && v->type == GR_JSON_INT && v->i >= 0 &&
        v->i <= INT32_MAX) {
        *id = (int32_t)v->i;
        rc = 0;
    }
    gr_arena_destroy(a);
    return rc;
}

static void
resign(struct gr_broker_meta *bm, const char *why)
{
    if (bm->controller_epoch < 0)
        return;
    GR_LOG_WARN("meta: node %d resigned as controller (controller epoch "
                "%" PRId32 "): %s",
                bm->b->node_id, bm->controller_epoch, why);
    bm->controller_epoch = -1;
    bm->epoch_zkversion = -1;
}

static void
elected(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    struct gr_broker_meta *bm = arg;
    if (rc == GR_META_NODEEXISTS || rc == GR_META_BADVERSION) {
        elect(bm); /* another won: read it, watch it */
        return;
    }
    if (rc != GR_META_OK) {
        /* CONNECTIONLOSS, SESSIONEXPIRED: the next session re-reads */
        GR_LOG_DEBUG("meta: node %d's election: %s", bm->b->node_id,
                     gr_meta_rc_name(rc));
        return;
    }
    bm->controller_epoch = bm->pending_epoch;
    bm->epoch_zkversion = n > 1 ? res[1].st.version : -1;
    bm->controller_id = bm->b->node_id;
    bm->b->cluster->controller_id = bm->controller_id;
    GR_LOG_INFO("meta: node %d registered (broker epoch %" PRId64
                ") and elected controller (controller epoch %" PRId32
                ", %.1f ms after the session began)",
                bm->b->node_id, bm->broker_epoch, bm->controller_epoch,
                since_session_ms(bm));
    gr_topics_zk_controller(bm);
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
    elect(bm);
}

/* /controller_epoch read: the multi that makes this node controller */
static void
epoch_read(void *arg, int rc, const void *data, size_t len,
           const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    char ctl[128], epoch[16];
    int32_t e;
    gr_meta_op_t ops[2];

    if (rc == GR_META_NONODE) {
        /* Kafka's InitialControllerEpoch, 0: the first controller is 1 */
        if (gr_meta_create(bm->m, "/controller_epoch", "0", 1, 0, epoch_made,
                           bm) != 0)
            GR_LOG_WARN("meta: out of memory electing the controller");
        return;
    }
    if (rc != GR_META_OK)
        return; /* lost with the session: the next one elects */
    if (gr_broker_meta_parse_epoch(data, len, &e) != 0) {
        GR_LOG_WARN("meta: /controller_epoch holds \"%.*s\", not an epoch",
                    (int)(len < 32 ? len : 32), (const char *)data);
        return;
    }
    bm->pending_epoch = e + 1;
    snprintf(epoch, sizeof epoch, "%" PRId32, bm->pending_epoch);
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

/* ours from an answer lost with the connection: the epoch it set */
static void
own_epoch_read(void *arg, int rc, const void *data, size_t len,
               const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    int32_t e;
    if (rc != GR_META_OK || gr_broker_meta_parse_epoch(data, len, &e) != 0)
        return;
    bm->controller_epoch = e;
    bm->epoch_zkversion = st->version;
    bm->controller_id = bm->b->node_id;
    bm->b->cluster->controller_id = bm->controller_id;
    GR_LOG_INFO("meta: node %d registered (broker epoch %" PRId64
                ") and elected controller (controller epoch %" PRId32
                ", %.1f ms after the session began)",
                bm->b->node_id, bm->broker_epoch, e, since_session_ms(bm));
    gr_topics_zk_controller(bm);
}

static void
controller_read(void *arg, int rc, const void *data, size_t len,
                const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    int32_t id;
    (void)st;
    if (rc == GR_META_NONODE) {
        elect(bm); /* gone meanwhile */
        return;
    }
    if (rc != GR_META_OK)
        return;
    if (gr_broker_meta_parse_controller(data, len, &id) != 0) {
        GR_LOG_WARN("meta: /controller holds no brokerid: \"%.*s\"",
                    (int)(len < 128 ? len : 128), (const char *)data);
        return;
    }
    if (id != bm->controller_id)
        GR_LOG_INFO("meta: node %d: the controller is node %" PRId32,
                    bm->b->node_id, id);
    bm->controller_id = id;
    if (bm->zk)
        bm->b->cluster->controller_id = id;
}

static void
controller_changed(void *arg, gr_meta_event_t ev, const char *path)
{
    struct gr_broker_meta *bm = arg;
    (void)path;
    if (ev == GR_META_EV_DELETED) {
        resign(bm, "/controller was deleted");
        bm->controller_id = -1;
        if (bm->zk)
            bm->b->cluster->controller_id = -1;
    }
    elect(bm); /* re-reads and re-arms */
}

static void
controller_stat(void *arg, int rc, const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    if (rc == GR_META_NONODE) {
        if (gr_meta_get(bm->m, "/controller_epoch", NULL, NULL, epoch_read,
                        bm) != 0)
            GR_LOG_WARN("meta: out of memory electing the controller");
        return;
    }
    if (rc != GR_META_OK)
        return;
    if (st->ephemeral_owner == bm->session) {
        if (bm->controller_epoch < 0 &&
            gr_meta_get(bm->m, "/controller_epoch", NULL, NULL,
                        own_epoch_read, bm) != 0)
            GR_LOG_WARN("meta: out of memory electing the controller");
        return;
    }
    resign(bm, "another node holds /controller");
    if (gr_meta_get(bm->m, "/controller", NULL, NULL, controller_read, bm) !=
        0)
        GR_LOG_WARN("meta: out of memory reading /controller");
}

/* KafkaController.elect: who holds /controller (watched), or take it. */
static void
elect(struct gr_broker_meta *bm)
{
    if (bm->broker_epoch < 0)
        return; /* registration first; it elects once done */
    if (gr_meta_exists(bm->m, "/controller", controller_changed, bm,
                       controller_stat, bm) != 0)
        GR_LOG_WARN("meta: out of memory electing the controller");
}

static void
path_made(void *arg, int rc, const char *path, const gr_meta_stat_t *st)
{
    (void)arg;
    (void)path;
    (void)st;
    if (rc != GR_META_OK && rc != GR_META_NODEEXISTS &&
        rc != GR_META_CONNECTIONLOSS && rc != GR_META_SESSIONEXPIRED)
        GR_LOG_WARN("meta: cannot create a top-level path: %s",
                    gr_meta_rc_name(rc));
}

static void
registration_gone(void *arg, gr_meta_event_t ev, const char *path)
{
    struct gr_broker_meta *bm = arg;
    (void)path;
    if (ev == GR_META_EV_DELETED && bm->broker_epoch < 0)
        do_register(bm);
}

/* /brokers/ids/<id> existed: ours (an answer lost), or another's */
static void
registration_stat(void *arg, int rc, const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    if (rc == GR_META_NONODE) {
        do_register(bm);
        return;
    }
    if (rc != GR_META_OK)
        return;
    if (st->ephemeral_owner == bm->session) {
        bm->broker_epoch = st->czxid;
        elect(bm);
        return;
    }
    GR_LOG_WARN("meta: %s is held by another session (0x%" PRIx64 "): this "
                "node's earlier run, until ZooKeeper expires it, or another "
                "broker with broker.id %d; waiting for it to go",
                bm->reg_path, st->ephemeral_owner, bm->b->node_id);
}

static void
registered(void *arg, int rc, const char *path, const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    (void)path;
    if (rc == GR_META_NODEEXISTS) {
        if (gr_meta_exists(bm->m, bm->reg_path, registration_gone, bm,
                           registration_stat, bm) != 0)
            GR_LOG_WARN("meta: out of memory registering node %d",
                        bm->b->node_id);
        return;
    }
    if (rc != GR_META_OK) {
        if (rc != GR_META_CONNECTIONLOSS && rc != GR_META_SESSIONEXPIRED)
            GR_LOG_WARN("meta: cannot register node %d: %s", bm->b->node_id,
                        gr_meta_rc_name(rc));
        return;
    }
    bm->broker_epoch = st->czxid;
    if (bm->zk)
        GR_LOG_INFO("meta: node %d registered at %s (broker epoch %" PRId64
                    ", %.1f ms after the session began)",
                    bm->b->node_id, bm->reg_path, bm->broker_epoch,
                    since_session_ms(bm));
    elect(bm);
}

/* Kafka's BrokerIdZNode JSON, version 5 */
static size_t
broker_json(const gr_broker_t *b, char *out, size_t cap)
{
    size_t n = 0;
    const char *sep = "";
    const char *rack = gr_conf_str(b->conf, GR_CONF_BROKER_RACK);
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
    PUT("},");
    if (rack != NULL) { /* BrokerIdZNode: only when broker.rack is set */
        gr_buf_t q = { 0 };
        gr_json_put_str(&q, rack, strlen(rack));
        PUT("\"rack\":%s,", q.len ? gr_buf_cstr(&q) : "\"\"");
        gr_buf_fini(&q);
    }
    PUT("\"timestamp\":\"%" PRId64 "\"}", gr_wall_ms());
#undef PUT
    return n;
}

static void
do_register(struct gr_broker_meta *bm)
{
    char json[4096];
    size_t len = broker_json(bm->b, json, sizeof json);
    if (len >= sizeof json) {
        GR_LOG_WARN("meta: node %d's registration is too long",
                    bm->b->node_id);
        return;
    }
    if (gr_meta_create(bm->m, bm->reg_path, json, len, GR_META_EPHEMERAL,
                       registered, bm) != 0)
        GR_LOG_WARN("meta: out of memory registering node %d",
                    bm->b->node_id);
}

static void
session_changed(void *arg, gr_meta_session_t state, int64_t session_id)
{
    struct gr_broker_meta *bm = arg;

    switch (state) {
    case GR_META_SESSION_SUSPENDED:
        GR_LOG_WARN("meta: ZooKeeper session 0x%" PRIx64 " suspended "
                    "(disconnected); node %d waits for it to come back or "
                    "expire",
                    session_id, bm->b->node_id);
        return;
    case GR_META_SESSION_EXPIRED:
        resign(bm, "its ZooKeeper session expired");
        GR_LOG_WARN("meta: node %d's registration went with session 0x%" PRIx64
                    "; registering again with the next",
                    bm->b->node_id, session_id);
        bm->broker_epoch = -1;
        bm->controller_id = -1;
        if (bm->zk)
            bm->b->cluster->controller_id = -1;
        return;
    case GR_META_SESSION_CONNECTED:
        break;
    }
    if (session_id == bm->session) {
        /* the same session back: re-read what a lost answer may hide */
        GR_LOG_INFO("meta: ZooKeeper session 0x%" PRIx64 " resumed",
                    session_id);
        if (bm->broker_epoch < 0)
            do_register(bm);
        else
            elect(bm);
        gr_topics_zk_session(bm);
        gr_acls_zk_session(bm);
        return;
    }
    GR_LOG_DEBUG("meta: session %" PRId64 " connected", session_id);
    bm->session = session_id;
    bm->session_us = gr_mono_us();
    bm->broker_epoch = -1;
    for (size_t i = 0; i < sizeof persistent / sizeof persistent[0]; i++)
        if (gr_meta_create(bm->m, persistent[i], NULL, 0, 0, path_made,
                           NULL) != 0) {
            GR_LOG_WARN("meta: out of memory registering node %d",
                        bm->b->node_id);
            return;
        }
    do_register(bm);
    gr_topics_zk_session(bm);
    gr_acls_zk_session(bm);
}

int
gr_broker_meta_start(gr_broker_t *b)
{
    struct gr_broker_meta *bm = calloc(1, sizeof(*bm));
    const char *zk = gr_conf_str(b->conf, GR_CONF_ZOOKEEPER_CONNECT);
    const char *roles = gr_conf_extra_get(b->conf, "process.roles");
    char *dir = NULL;
    gr_meta_cfg_t cfg = { 0 };

    if (bm == NULL)
        return -1;
    bm->b = b;
    bm->broker_epoch = -1;
    bm->controller_epoch = -1;
    bm->epoch_zkversion = -1;
    bm->controller_id = -1;
    snprintf(bm->reg_path, sizeof bm->reg_path, "/brokers/ids/%d",
             (int)b->node_id);
    cfg.loop = b->loop;
    cfg.workers = b->workers;
    if (zk != NULL && roles != NULL && *roles != '\0') {
        /* Kafka's rule: process.roles makes it KRaft, with no ZooKeeper */
        GR_LOG_INFO("zookeeper.connect is set but not used: process.roles "
                    "makes this a KRaft configuration, and Gregor runs it as "
                    "a single broker");
        zk = NULL;
    }
    if (zk != NULL && *zk != '\0') {
        bm->zk = true;
        cfg.connect = zk;
        cfg.session_timeout_ms =
            (int)gr_conf_int(b->conf, GR_CONF_ZOOKEEPER_SESSION_TIMEOUT_MS);
        cfg.connection_timeout_ms =
            gr_conf_is_set(b->conf, GR_CONF_ZOOKEEPER_CONNECTION_TIMEOUT_MS)
                ? (int)gr_conf_int(b->conf,
                                   GR_CONF_ZOOKEEPER_CONNECTION_TIMEOUT_MS)
                : cfg.session_timeout_ms;
        bm->m = gr_meta_zk_open(&cfg, session_changed, bm);
        if (bm->m != NULL)
            GR_LOG_WARN("cluster mode (zookeeper.connect=%s): node %d "
                        "registers in ZooKeeper and takes part in the "
                        "controller election; topics are made there and every "
                        "broker lists them; followers copy their partitions' "
                        "logs and join the ISR, but no leader moves when a "
                        "broker goes",
                        zk, b->node_id);
    } else {
        if (asprintf(&dir, "%s/%s", b->log_dir, META_DIR) < 0) {
            free(bm);
            return -1;
        }
        cfg.dir = dir;
        bm->m = gr_meta_local_open(&cfg, session_changed, bm);
        free(dir);
    }
    if (bm->m == NULL) {
        bool fatal = bm->zk;
        free(bm);
        if (fatal) /* cluster mode cannot run without its ensemble */
            return -1;
        GR_LOG_WARN("meta: the coordination store did not open; serving "
                    "without it");
        return 0;
    }
    b->meta = bm;
    if (bm->zk && (gr_topics_zk_init(bm) != 0 || gr_repl_init(bm) != 0)) {
        gr_broker_meta_stop(b);
        return -1;
    }
    if (bm->zk && gr_acls_zk_init(bm) != 0) {
        gr_broker_meta_stop(b);
        return -1;
    }
    if (bm->zk && (bm->replicas = gr_replicas_new(b)) == NULL) {
        gr_broker_meta_stop(b);
        return -1;
    }
    /* producer ids in blocks from /latest_producer_id_block (txn/pid.h) */
    if (bm->zk && b->pids != NULL)
        gr_pids_use_meta(b->pids, bm->m, b->node_id);
    return 0;
}

void
gr_broker_meta_leave(gr_broker_t *b)
{
    int64_t ms;
    if (b->meta == NULL || !b->meta->zk)
        return;
    ms = gr_failover_controlled_shutdown(b->meta);
    if (ms > 0) /* the loop serves on until the states are written */
        gr_loop_run_for(b->loop, ms);
}

void
gr_broker_meta_stop(gr_broker_t *b)
{
    if (b->meta == NULL)
        return;
    gr_replicas_destroy(b->meta->replicas);
    b->meta->replicas = NULL;
    if (b->meta->zk && b->pids != NULL)
        gr_pids_drop_meta(b->pids);
    gr_meta_close(b->meta->m);
    gr_repl_fini(b->meta);
    gr_topics_zk_fini(b->meta);
    gr_acls_zk_fini(b->meta);
    free(b->meta);
    b->meta = NULL;
}
