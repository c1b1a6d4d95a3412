/*
 * Topics in ZooKeeper (cluster mode), kept as Kafka's ZooKeeper mode keeps
 * them (cluster-zookeeper.md 2.1 and 2.3; Kafka's ZkData.scala):
 *
 *   /brokers/topics/<t>     {"version":3,"partitions":{"0":[1,2,3],...},
 *                            "adding_replicas":{},"removing_replicas":{},
 *                            "topic_id":"<base64>"}   (TopicZNode)
 *   /brokers/topics/<t>/partitions/<p>/state
 *                           {"version":1,"leader":1,"leader_epoch":0,
 *                            "controller_epoch":1,"isr":[1]}
 *                                                     (TopicPartitionStateZNode)
 *   /config/topics/<t>      {"version":1,"config":{...}} (ConfigEntityZNode)
 *
 * CreateTopics on any broker: the replicas are placed as Kafka's
 * rack-unaware AdminUtils.assignReplicasToBrokers places them over the
 * registered brokers, the topic enters this broker's model at once
 * (partitions without a leader) and one multi creates the config and topic
 * znodes (Kafka's AdminZkClient writes the two one after the other); the
 * answer waits for that multi (gr_cluster_sync). A refused multi takes the
 * topic out again and the answer says so.
 *
 * The controller, reading a partition that has no state, elects its leader
 * as Kafka's onNewPartitionCreation does (the first live replica, leader
 * epoch 0) and creates the state in a multi
 * fenced by its controller epoch (gr_meta_fenced_multi): a deposed
 * controller writes nothing. When a node becomes controller it does the
 * same for every partition it knows without a state.
 *
 * Every broker watches /brokers/ids (Metadata's and DescribeCluster's
 * brokers), /brokers/topics and each state it read, so its model follows
 * ZooKeeper. That departs from Kafka, whose brokers hear the controller's
 * decisions through UpdateMetadata and LeaderAndIsr; those RPCs come with
 * replication. A broker that leads a partition opens its log; a follower
 * opens its own and fetches it from the leader (broker_replica.c).
 *
 * The ISR written is the leader alone: Kafka's is every live replica, and
 * its followers leave it when they do not fetch within
 * replica.lag.time.max.ms; here the leader adds a follower once it has
 * caught up (broker_repl.c writes the state), so the ISR says what is
 * true and acks=all means the copies there are, refused
 * (NOT_ENOUGH_REPLICAS) under a min.insync.replicas above them.
 *
 * Every broker also watches each topic's znode (a topic deleted, made
 * again, given partitions) and its config znode (overrides changed): the
 * sections on deletion, new partitions and configs below say how.
 *
 * Leaders move when brokers come and go: broker_failover.c.
 *
 * Not yet (issue 22): the leader's side of replication (ISR, HW),
 * rack-aware placement, dynamic broker configs in /config/brokers. Loop
 * thread only.
 */
#include "broker_meta_int.h"
#include "broker_replica.h"
#include "broker_repl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/topics.h"
#include "net/conn.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"

#define CREATING (-2) /* call_t.part of a topic's creation multi */
#define DELETING (-3) /* the controller deleting a topic's znodes */
#define WRITING (-4)  /* a config write, a deletion mark, new partitions */
#define GR_MAX_PARTITIONS_NEW 1000000 /* local.c's bound on a topic */

/* A call waiting for its answer: what it was about. */
typedef struct call {
    struct call *next, *prev;
    struct gr_broker_meta *bm;
    gr_uuid_t id;      /* CREATING: the topic made */
    int64_t t0_us;     /* CREATING: when it was asked */
    int32_t part;      /* a partition, CREATING, or -1 */
    int32_t node;      /* a broker id (/brokers/ids/<id>); DELETING:
                        * the attempts made */
    /* WRITING new partitions: nnew rows of rf replicas after old */
    int32_t *rows, nnew, rf, old;
    char name[GR_TOPIC_NAME_MAX + 1];
} call_t;

/* A sync waiting for the creations before it. */
typedef struct sync_wait {
    struct sync_wait *next;
    struct gr_broker_meta *bm;
    gr_cluster_sync_cb cb;
    void *arg;
    gr_uuid_t *failed; /* the creations refused before it */
    int nfailed;
} sync_wait_t;

struct gr_topics_zk {
    call_t *calls;    /* unanswered; freed at fini */
    int creating;     /* creation multis unanswered */
    int writes;       /* WRITING calls unanswered: syncs wait for them */
    sync_wait_t *waits, *waits_tail;
    gr_uuid_t *failed; /* creations refused, not yet told to a sync */
    int nfailed;
    struct gone_wait *gone; /* DeleteTopics answers waiting */
    int ndeleting;    /* DELETING calls (is_deleting's shortcut) */
    bool rearm;       /* a session began: the next listing re-reads all */
    /* the topics loaded from gregor-topics/ at start-up (a broker that
     * ran alone before): not ZooKeeper's, never dropped for missing */
    gr_uuid_t *local_ids;
    int nlocal;
    char msg[160];    /* an error message of the last call */
};

static void get_state(struct gr_broker_meta *bm, const char *topic,
                      int32_t part);
static bool is_deleting(const struct gr_topics_zk *tz, const char *name);
static bool is_local(const struct gr_topics_zk *tz, const gr_uuid_t *id);
static void topic_changed(void *arg, gr_meta_event_t ev, const char *path);
static void config_changed(void *arg, gr_meta_event_t ev, const char *path);
static void drop_missing(struct gr_broker_meta *bm, const char *const *names,
                         int n);
static void watch_topic(struct gr_broker_meta *bm, const gr_topic_t *t);
static void list_deletions(struct gr_broker_meta *bm);

static call_t *
call_new(struct gr_broker_meta *bm, const char *name, int32_t part)
{
    call_t *k = calloc(1, sizeof *k);
    if (k == NULL) {
        GR_LOG_WARN("meta: out of memory reading topics");
        return NULL;
    }
    k->bm = bm;
    k->part = part;
    k->node = -1;
    snprintf(k->name, sizeof k->name, "%s", name ? name : "");
    k->next = bm->topics->calls;
    if (k->next)
        k->next->prev = k;
    bm->topics->calls = k;
    return k;
}

static void
call_end(call_t *k)
{
    struct gr_topics_zk *tz = k->bm->topics;
    if (k->part == DELETING)
        tz->ndeleting--;
    if (k->prev)
        k->prev->next = k->next;
    else
        tz->calls = k->next;
    if (k->next)
        k->next->prev = k->prev;
    free(k->rows);
    free(k);
}

/* /brokers/topics/<topic>/partitions/<part>/state into out */
static void
state_path(char *out, size_t cap, const char *topic, int32_t part)
{
    snprintf(out, cap, "/brokers/topics/%s/partitions/%d/state", topic,
             (int)part);
}

/* --- brokers: /brokers/ids, for Metadata and placement */

static int
node_index(const gr_cluster_t *c, int32_t id)
{
    for (int i = 0; i < c->nnodes; i++)
        if (c->nodes[i].id == id)
            return i;
    return -1;
}

static void
node_drop(gr_cluster_t *c, int i)
{
    free(c->nodes[i].rack);
    free(c->nodes[i].endpoints);
    memmove(&c->nodes[i], &c->nodes[i + 1],
            (size_t)(c->nnodes - i - 1) * sizeof c->nodes[0]);
    c->nnodes--;
}

/* "NAME://host:port" (host may be [v6]) into ep; 0 or -1 */
static int
parse_endpoint(const char *s, gr_endpoint_t *ep)
{
    const char *sep = strstr(s, "://"), *host, *colon;
    size_t hl;
    char *end;
    long port;
    if (sep == NULL || sep == s || (size_t)(sep - s) >= sizeof ep->listener)
        return -1;
    memcpy(ep->listener, s, (size_t)(sep - s));
    ep->listener[sep - s] = '\0';
    host = sep + 3;
    colon = strrchr(host, ':');
    if (colon == NULL)
        return -1;
    port = strtol(colon + 1, &end, 10);
    if (*end != '\0' || port < 0 || port > 65535)
        return -1;
    hl = (size_t)(colon - host);
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        host++;
        hl -= 2;
    }
    if (hl >= sizeof ep->host)
        return -1;
    memcpy(ep->host, host, hl);
    ep->host[hl] = '\0';
    ep->port = (int32_t)port;
    return 0;
}

/* A registration (Kafka's BrokerIdZNode, version 4 and 5) into the
 * model's broker list, sorted by id. */
static void
node_read(void *arg, int rc, const void *data, size_t len,
          const gr_meta_stat_t *st)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    gr_cluster_t *c = bm->b->cluster;
    int32_t id = k->node;
    gr_arena_t *a = NULL;
    const gr_json_t *o, *eps, *rack;
    gr_endpoint_t *v = NULL;
    gr_node_t *nodes;
    char err[64];
    int n = 0, i;

    call_end(k);
    if (rc != GR_META_OK || (a = gr_arena_new(4096)) == NULL)
        return;
    gr_failover_broker_epoch(bm, id, st->czxid);
    o = gr_json_parse(a, data, len, err, sizeof err);
    eps = o != NULL ? gr_json_get(o, "endpoints") : NULL;
    if (eps == NULL || eps->type != GR_JSON_ARR || eps->n == 0 ||
        (v = calloc((size_t)eps->n, sizeof *v)) == NULL) {
        GR_LOG_WARN("meta: /brokers/ids/%d holds no endpoints we read: "
                    "\"%.*s\"",
                    (int)id, (int)(len < 200 ? len : 200), (const char *)data);
        goto out;
    }
    for (int e = 0; e < eps->n; e++)
        if (eps->kids[e].type == GR_JSON_STR &&
            parse_endpoint(eps->kids[e].s, &v[n]) == 0)
            n++;
    rack = gr_json_get(o, "rack");
    if ((i = node_index(c, id)) >= 0) {
        free(c->nodes[i].endpoints);
        free(c->nodes[i].rack);
    } else {
        nodes = realloc(c->nodes, (size_t)(c->nnodes + 1) * sizeof *nodes);
        if (nodes == NULL)
            goto out;
        c->nodes = nodes;
        for (i = c->nnodes; i > 0 && c->nodes[i - 1].id > id; i--)
            c->nodes[i] = c->nodes[i - 1];
        c->nnodes++;
        GR_LOG_INFO("meta: node %d: broker %d registered (%s:%d), %d "
                    "broker(s) now",
                    bm->b->node_id, (int)id, n ? v[0].host : "?",
                    n ? (int)v[0].port : -1, c->nnodes);
    }
    c->nodes[i].id = id;
    c->nodes[i].endpoints = v;
    c->nodes[i].nendpoints = n;
    c->nodes[i].rack = rack != NULL && rack->type == GR_JSON_STR
                           ? strdup(rack->s)
                           : NULL;
    v = NULL;
    if (bm->replicas != NULL) /* a leader's endpoint may have moved */
        gr_replicas_nodes_changed(bm->replicas);
out:
    free(v);
    gr_arena_destroy(a);
}

static void list_ids(struct gr_broker_meta *bm);

/* a child of /brokers/ids: its broker id, or -1 */
static int32_t
broker_id(const char *name)
{
    char *end;
    long v = strtol(name, &end, 10);
    return *name >= '0' && *name <= '9' && *end == '\0' && v <= INT32_MAX
               ? (int32_t)v
               : -1;
}

static void list_topics(struct gr_broker_meta *bm);

/* /brokers/ids or /brokers/topics changed: listed again, re-armed */
static void
children_changed(void *arg, gr_meta_event_t ev, const char *path)
{
    (void)ev;
    if (strcmp(path, "/brokers/ids") == 0)
        list_ids(arg);
    else
        list_topics(arg);
}

static void
ids_listed(void *arg, int rc, const char *const *names, int n,
           const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    gr_cluster_t *c = bm->b->cluster;
    char path[64];
    (void)st;
    if (rc != GR_META_OK)
        return;
    for (int i = c->nnodes - 1; i >= 0; i--) {
        int32_t id = c->nodes[i].id;
        bool listed = false;
        if (id == bm->b->node_id)
            continue; /* this broker is always in its own list */
        for (int j = 0; j < n && !listed; j++)
            listed = broker_id(names[j]) == id;
        if (!listed) {
            GR_LOG_INFO("meta: node %d: broker %d is gone from /brokers/ids",
                        bm->b->node_id, (int)id);
            node_drop(c, i);
        }
    }
    for (int j = 0; j < n; j++) {
        call_t *k;
        int32_t id = broker_id(names[j]);
        if (id < 0 || id == bm->b->node_id ||
            (k = call_new(bm, NULL, -1)) == NULL)
            continue;
        k->node = id;
        snprintf(path, sizeof path, "/brokers/ids/%d", (int)id);
        if (gr_meta_get(bm->m, path, NULL, NULL, node_read, k) != 0)
            call_end(k);
    }
    gr_failover_live(bm, names, n);
}

static void
list_ids(struct gr_broker_meta *bm)
{
    if (gr_meta_children(bm->m, "/brokers/ids", children_changed, bm, ids_listed,
                         bm) != 0)
        GR_LOG_WARN("meta: out of memory listing /brokers/ids");
}

/* --- the controller: a state for a partition with none */

static void
put_ints(gr_buf_t *b, const int32_t *v, int n)
{
    gr_buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        gr_buf_printf(b, "%s%d", i ? "," : "", (int)v[i]);
    gr_buf_putc(b, ']');
}

static void
state_made(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    call_t *k = arg;
    (void)res;
    (void)n;
    if (rc == GR_META_BADVERSION)
        GR_LOG_WARN("meta: node %d: the state of %s-%d not written: "
                    "/controller_epoch moved (this node was deposed)",
                    k->bm->b->node_id, k->name, (int)k->part);
    else if (rc != GR_META_OK && rc != GR_META_NODEEXISTS)
        GR_LOG_WARN("meta: node %d: the state of %s-%d not written: %s",
                    k->bm->b->node_id, k->name, (int)k->part,
                    gr_meta_rc_name(rc));
    call_end(k);
}

static void
path_made(void *arg, int rc, const char *path, const gr_meta_stat_t *st)
{
    (void)arg;
    (void)rc;
    (void)path;
    (void)st; /* NODEEXISTS is the rule; the multi after says the rest */
}

/* Kafka's onNewPartitionCreation for one partition: leader the first
 * live replica, leader epoch 0; the ISR the leader alone until followers
 * replicate (see the top). */
static void
make_state(struct gr_broker_meta *bm, const gr_partition_t *p)
{
    gr_cluster_t *c = bm->b->cluster;
    int32_t live[256];
    int nlive = 0;
    char path[GR_TOPIC_NAME_MAX + 64];
    gr_buf_t js = { 0 };
    gr_meta_op_t op;
    call_t *k;

    if (bm->controller_epoch < 0 || is_deleting(bm->topics, p->topic->name))
        return;
    for (int32_t r = 0; r < p->nreplicas && nlive < 256; r++)
        if (node_index(c, p->replicas[r]) >= 0)
            live[nlive++] = p->replicas[r];
    if (nlive == 0) {
        GR_LOG_WARN("meta: controller %d: %s-%d has no live replica; no "
                    "leader elected",
                    bm->b->node_id, p->topic->name, (int)p->id);
        return;
    }
    gr_buf_printf(&js, "{\"version\":1,\"leader\":%d,\"leader_epoch\":0,"
                       "\"controller_epoch\":%d,\"isr\":",
                  (int)live[0], (int)bm->controller_epoch);
    put_ints(&js, live, 1);
    gr_buf_putc(&js, '}');
    if (js.oom || (k = call_new(bm, p->topic->name, p->id)) == NULL) {
        gr_buf_fini(&js);
        return;
    }
    snprintf(path, sizeof path, "/brokers/topics/%s/partitions",
             p->topic->name);
    (void)gr_meta_create(bm->m, path, NULL, 0, 0, path_made, NULL);
    snprintf(path, sizeof path, "/brokers/topics/%s/partitions/%d",
             p->topic->name, (int)p->id);
    (void)gr_meta_create(bm->m, path, NULL, 0, 0, path_made, NULL);
    state_path(path, sizeof path, p->topic->name, p->id);
    op = (gr_meta_op_t){ GR_META_OP_CREATE, path, js.ptr, js.len, 0, -1 };
    if (gr_meta_fenced_multi(bm->m, "/controller_epoch", bm->epoch_zkversion,
                             &op, 1, state_made, k) != 0)
        call_end(k);
    gr_buf_fini(&js);
}

static bool
is_creating(const struct gr_topics_zk *tz, const gr_uuid_t *id)
{
    for (const call_t *k = tz->calls; k; k = k->next)
        if (k->part == CREATING && gr_uuid_eq(&k->id, id))
            return true;
    return false;
}

void
gr_topics_zk_controller(struct gr_broker_meta *bm)
{
    if (bm->topics == NULL)
        return;
    list_deletions(bm);
    for (gr_topic_t *t = bm->b->cluster->topics; t; t = t->lnext) {
        if (is_creating(bm->topics, &t->id))
            continue; /* its znode first: its answer reads the states */
        for (int32_t i = 0; i < t->nparts; i++)
            if (t->parts[i]->leader_epoch < 0)
                make_state(bm, t->parts[i]);
    }
    gr_failover_controller(bm);
}

/* --- partition states */

static int
int_list(const gr_json_t *v, int32_t *out, int cap)
{
    int n = 0;
    if (v == NULL || v->type != GR_JSON_ARR)
        return -1;
    for (int i = 0; i < v->n; i++) {
        if (v->kids[i].type != GR_JSON_INT || v->kids[i].i < 0 ||
            v->kids[i].i > INT32_MAX || n == cap)
            return -1;
        out[n++] = (int32_t)v->kids[i].i;
    }
    return n;
}

static int
json_int(const gr_json_t *o, const char *key, int32_t *out)
{
    const gr_json_t *v = gr_json_get(o, key);
    if (v == NULL || v->type != GR_JSON_INT || v->i < -1 || v->i > INT32_MAX)
        return -1;
    *out = (int32_t)v->i;
    return 0;
}

/* A state read: the model's leader, leader epoch and ISR; the leader's
 * log opened here when it is this broker. */
static void
apply_state(struct gr_broker_meta *bm, gr_partition_t *p, const void *data,
            size_t len, const gr_meta_stat_t *st)
{
    gr_broker_t *b = bm->b;
    gr_cluster_t *c = b->cluster;
    gr_arena_t *a = gr_arena_new(2048);
    const gr_json_t *o;
    int32_t leader, epoch, cepoch = -1, isr[256], *v;
    int32_t old_leader = p->leader, old_epoch = p->leader_epoch;
    bool had_log = p->log != NULL;
    int nisr;
    char err[64];

    if (a == NULL)
        return;
    o = gr_json_parse(a, data, len, err, sizeof err);
    if (o == NULL || json_int(o, "leader", &leader) != 0 ||
        json_int(o, "leader_epoch", &epoch) != 0 ||
        (nisr = int_list(gr_json_get(o, "isr"), isr, 256)) < 0) {
        GR_LOG_WARN("meta: the state of %s-%d is not Kafka's: \"%.*s\"",
                    p->topic->name, (int)p->id, (int)(len < 200 ? len : 200),
                    (const char *)data);
        gr_arena_destroy(a);
        return;
    }
    (void)json_int(o, "controller_epoch", &cepoch);
    gr_arena_destroy(a);
    if (epoch < p->leader_epoch)
        return; /* older than what we have */
    if (epoch == p->leader_epoch && st->version < p->state_version)
        return; /* an ISR change of ours was answered after this read */
    p->state_version = st->version;
    p->state_controller_epoch = cepoch;
    if ((v = malloc((size_t)(nisr ? nisr : 1) * sizeof *v)) == NULL)
        return;
    memcpy(v, isr, (size_t)nisr * sizeof *v);
    free(p->isr);
    p->isr = v;
    p->nisr = nisr;
    if (p->leader_epoch < 0 || p->leader != leader)
        GR_LOG_INFO("meta: node %d: %s-%d led by %d (leader epoch %d, %d "
                    "in the ISR)",
                    b->node_id, p->topic->name, (int)p->id, (int)leader,
                    (int)epoch, nisr);
    p->leader_epoch = epoch;
    p->leader = leader;
    if (leader == b->node_id && p->log == NULL && !p->opening &&
        c->hooks.partition_created != NULL &&
        c->hooks.partition_created(c->hooks.arg, p) != GR_KERR_NONE)
        GR_LOG_ERROR("%s-%d: this broker leads it but its log could not be "
                     "opened",
                     p->topic->name, (int)p->id);
    gr_failover_applied(bm, p, old_leader, old_epoch, had_log);
    if (bm->replicas != NULL) /* a follower fetches (broker_replica.c) */
        gr_replicas_partition(bm->replicas, p);
    gr_repl_partition_changed(b, p); /* broker_repl.c: ISR, watermark */
}

static gr_partition_t *
model_partition(struct gr_broker_meta *bm, const char *topic, int32_t part)
{
    gr_topic_t *t = gr_cluster_topic_cstr(bm->b->cluster, topic);
    return t != NULL && part >= 0 && part < t->nparts ? t->parts[part] : NULL;
}

static void
state_changed(void *arg, gr_meta_event_t ev, const char *path)
{
    struct gr_broker_meta *bm = arg;
    char topic[GR_TOPIC_NAME_MAX + 1];
    const char *s = path + strlen("/brokers/topics/"), *e;
    (void)ev;
    if (strncmp(path, "/brokers/topics/", 16) != 0 ||
        (e = strstr(s, "/partitions/")) == NULL ||
        (size_t)(e - s) >= sizeof topic)
        return;
    memcpy(topic, s, (size_t)(e - s));
    topic[e - s] = '\0';
    get_state(bm, topic, atoi(e + strlen("/partitions/")));
}

static void
state_stat(void *arg, int rc, const gr_meta_stat_t *st)
{
    call_t *k = arg;
    (void)st;
    if (rc == GR_META_OK) /* made meanwhile */
        get_state(k->bm, k->name, k->part);
    call_end(k);
}

static void
state_read(void *arg, int rc, const void *data, size_t len,
           const gr_meta_stat_t *st)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    gr_partition_t *p = model_partition(bm, k->name, k->part);
    char path[GR_TOPIC_NAME_MAX + 64];

    if (rc == GR_META_NONODE && p != NULL) {
        /* not elected yet: hear of its creation, or make it */
        state_path(path, sizeof path, k->name, k->part);
        if (gr_meta_exists(bm->m, path, state_changed, bm, state_stat, k) !=
            0)
            call_end(k);
        make_state(bm, p);
        return;
    }
    if (rc == GR_META_OK && p != NULL) {
        apply_state(bm, p, data, len, st);
        gr_failover_partition(bm, p);
    }
    call_end(k);
}

static void
get_state(struct gr_broker_meta *bm, const char *topic, int32_t part)
{
    char path[GR_TOPIC_NAME_MAX + 64];
    call_t *k = call_new(bm, topic, part);
    if (k == NULL)
        return;
    state_path(path, sizeof path, topic, part);
    if (gr_meta_get(bm->m, path, state_changed, bm, state_read, k) != 0)
        call_end(k);
}

void
gr_topics_zk_reread(struct gr_broker_meta *bm, const char *topic,
                    int32_t part)
{
    if (bm->topics != NULL)
        get_state(bm, topic, part);
}

/* --- topics: /brokers/topics/<t> and /config/topics/<t> */

static void
config_read(void *arg, int rc, const void *data, size_t len,
            const gr_meta_stat_t *st)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    gr_topic_t *t = gr_cluster_topic_cstr(bm->b->cluster, k->name);
    gr_arena_t *a = NULL;
    const gr_json_t *o, *cf;
    char err[64];
    (void)st;

    if (rc == GR_META_OK && t != NULL && gr_uuid_eq(&t->id, &k->id) &&
        (a = gr_arena_new(4096)) != NULL &&
        (o = gr_json_parse(a, data, len, err, sizeof err)) != NULL &&
        (cf = gr_json_get(o, "config")) != NULL && cf->type == GR_JSON_OBJ)
        for (int i = 0; i < cf->n; i++)
            if (cf->kids[i].type == GR_JSON_STR &&
                gr_topic_config_set(t, cf->kids[i].key, cf->kids[i].s) != 0)
                GR_LOG_WARN("meta: out of memory setting %s's configs",
                            t->name);
    gr_arena_destroy(a);
    if (t != NULL && gr_uuid_eq(&t->id, &k->id))
        for (int32_t i = 0; i < t->nparts; i++)
            get_state(bm, t->name, i);
    call_end(k);
}

/* Kafka's TopicZNode: the topic id and the replicas of each partition
 * (0 to n-1, each listed once), into the model with no leaders yet. */
static gr_topic_t *
topic_from_json(struct gr_broker_meta *bm, const char *name, const void *data,
                size_t len)
{
    gr_cluster_t *c = bm->b->cluster;
    gr_arena_t *a = gr_arena_new(8192);
    const gr_json_t *o, *id, *parts;
    gr_uuid_t uuid;
    gr_topic_t *t = NULL;
    int32_t reps[256];
    int n, nparts;
    char err[64];
    gr_str_t nm = gr_str_c(name);

    if (a == NULL)
        return NULL;
    o = gr_json_parse(a, data, len, err, sizeof err);
    parts = o != NULL ? gr_json_get(o, "partitions") : NULL;
    id = o != NULL ? gr_json_get(o, "topic_id") : NULL;
    if (parts == NULL || parts->type != GR_JSON_OBJ || parts->n == 0)
        goto bad;
    nparts = parts->n;
    if (id != NULL && id->type == GR_JSON_STR &&
        gr_uuid_from_base64(&uuid, id->s) == 0) {
        if (gr_cluster_topic_by_id(c, &uuid) != NULL)
            goto bad;
    } else {
        /* written without one (Kafka before 2.8): a local id */
        do
            gr_uuid_random(&uuid);
        while (gr_cluster_topic_by_id(c, &uuid) != NULL);
    }
    for (int32_t p = 0; p < nparts; p++) {
        const gr_json_t *row = NULL;
        char key[16];
        snprintf(key, sizeof key, "%d", (int)p);
        row = gr_json_get(parts, key);
        if ((n = int_list(row, reps, 256)) <= 0)
            goto bad;
        if (t == NULL &&
            (t = gr_cluster_topic_add(c, name, &uuid, nparts, (int16_t)n,
                                      gr_topic_is_internal_name(&nm))) ==
                NULL)
            goto oom;
        if (gr_topic_add_partitions(t, p + 1, -1, reps, n) != 0)
            goto oom;
        t->parts[p]->leader_epoch = -1; /* no state read yet */
        t->parts[p]->nisr = 0;
    }
    gr_arena_destroy(a);
    return t;
bad:
    GR_LOG_WARN("meta: /brokers/topics/%s is not a topic we read: \"%.*s\"",
                name, (int)(len < 200 ? len : 200), (const char *)data);
    gr_arena_destroy(a);
    if (t != NULL)
        gr_cluster_topic_remove(c, t);
    return NULL;
oom:
    GR_LOG_WARN("meta: out of memory reading topic %s", name);
    gr_arena_destroy(a);
    if (t != NULL)
        gr_cluster_topic_remove(c, t);
    return NULL;
}

static void
topic_read(void *arg, int rc, const void *data, size_t len,
           const gr_meta_stat_t *st)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    gr_topic_t *t;
    char path[GR_TOPIC_NAME_MAX + 32];
    (void)st;

    if (rc != GR_META_OK ||
        gr_cluster_topic_cstr(bm->b->cluster, k->name) != NULL ||
        (t = topic_from_json(bm, k->name, data, len)) == NULL) {
        call_end(k);
        return;
    }
    GR_LOG_INFO("meta: node %d: topic %s (%d partition(s), replication "
                "factor %d) read from ZooKeeper",
                bm->b->node_id, t->name, (int)t->nparts,
                (int)t->replication_factor);
    k->id = t->id;
    snprintf(path, sizeof path, "/config/topics/%s", k->name);
    if (gr_meta_get(bm->m, path, config_changed, bm, config_read, k) != 0)
        call_end(k);
}

static void
topics_listed(void *arg, int rc, const char *const *names, int n,
              const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    char path[GR_TOPIC_NAME_MAX + 32];
    (void)st;
    if (rc != GR_META_OK)
        return;
    drop_missing(bm, names, n);
    for (int i = 0; bm->topics->rearm && i < n; i++) {
        const gr_topic_t *t = gr_cluster_topic_cstr(bm->b->cluster, names[i]);
        if (t != NULL && !is_local(bm->topics, &t->id))
            watch_topic(bm, t); /* changes missed meanwhile read too */
    }
    bm->topics->rearm = false;
    for (int i = 0; i < n; i++) {
        call_t *k;
        if (strlen(names[i]) > GR_TOPIC_NAME_MAX ||
            gr_cluster_topic_cstr(bm->b->cluster, names[i]) != NULL ||
            (k = call_new(bm, names[i], -1)) == NULL)
            continue;
        snprintf(path, sizeof path, "/brokers/topics/%s", names[i]);
        if (gr_meta_get(bm->m, path, topic_changed, bm, topic_read, k) != 0)
            call_end(k);
    }
}

static void
list_topics(struct gr_broker_meta *bm)
{
    if (gr_meta_children(bm->m, "/brokers/topics", children_changed, bm,
                         topics_listed, bm) != 0)
        GR_LOG_WARN("meta: out of memory listing /brokers/topics");
}

/* Kafka's ClusterIdZNode, {"version":"1","id":"..."}: the first broker's
 * id is every broker's (Kafka's getOrGenerateClusterId), so clients see
 * one cluster. */
static void
cluster_id_read(void *arg, int rc, const void *data, size_t len,
                const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    gr_cluster_t *c = bm->b->cluster;
    gr_arena_t *a = NULL;
    const gr_json_t *o, *id;
    char err[64];
    (void)st;
    if (rc != GR_META_OK || (a = gr_arena_new(1024)) == NULL)
        return;
    o = gr_json_parse(a, data, len, err, sizeof err);
    id = o != NULL ? gr_json_get(o, "id") : NULL;
    if (id == NULL || id->type != GR_JSON_STR || id->slen == 0 ||
        id->slen >= sizeof c->cluster_id)
        GR_LOG_WARN("meta: /cluster/id holds no cluster id we read: \"%.*s\"",
                    (int)(len < 200 ? len : 200), (const char *)data);
    else if (strcmp(id->s, c->cluster_id) != 0) {
        GR_LOG_INFO("meta: node %d: cluster id %s from /cluster/id (its "
                    "meta.properties keeps %s)",
                    bm->b->node_id, id->s, c->cluster_id);
        memcpy(c->cluster_id, id->s, id->slen + 1);
    }
    gr_arena_destroy(a);
}

static void
cluster_id(struct gr_broker_meta *bm)
{
    char js[96];
    int n = snprintf(js, sizeof js, "{\"version\":\"1\",\"id\":\"%s\"}",
                     bm->b->cluster->cluster_id);
    if (gr_meta_create(bm->m, "/cluster", NULL, 0, 0, path_made, NULL) != 0 ||
        gr_meta_create(bm->m, "/cluster/id", js, (size_t)n, 0, path_made,
                       NULL) != 0 ||
        gr_meta_get(bm->m, "/cluster/id", NULL, NULL, cluster_id_read, bm) !=
            0)
        GR_LOG_WARN("meta: out of memory reading /cluster/id");
}

void
gr_topics_zk_session(struct gr_broker_meta *bm)
{
    if (bm->topics == NULL)
        return;
    cluster_id(bm);
    list_ids(bm);
    bm->topics->rearm = true; /* watches may have gone with a session */
    list_topics(bm);
}

/* --- creation (CreateTopics, auto-creation) */

static void flush_waits(struct gr_broker_meta *bm);

static void
note_failed(struct gr_topics_zk *tz, const gr_uuid_t *id)
{
    gr_uuid_t *v = realloc(tz->failed, (size_t)(tz->nfailed + 1) * sizeof *v);
    if (v == NULL)
        return; /* logged; the answer misses it */
    tz->failed = v;
    tz->failed[tz->nfailed++] = *id;
}

static void
topic_made(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    gr_cluster_t *c = bm->b->cluster;
    gr_topic_t *t = gr_cluster_topic_by_id(c, &k->id);
    (void)res;
    (void)n;

    bm->topics->creating--;
    if (rc != GR_META_OK) {
        GR_LOG_WARN("meta: topic %s not created in ZooKeeper: %s%s", k->name,
                    gr_meta_rc_name(rc),
                    rc == GR_META_NODEEXISTS ? " (made meanwhile elsewhere)"
                                             : "");
        note_failed(bm->topics, &k->id);
        if (t != NULL) {
            if (c->hooks.partition_deleted)
                for (int32_t i = 0; i < t->nparts; i++)
                    c->hooks.partition_deleted(c->hooks.arg, t->parts[i]);
            gr_cluster_topic_remove(c, t);
        }
        if (rc == GR_META_NODEEXISTS)
            list_topics(bm); /* the other one, skipped while ours stood */
    } else if (t != NULL) {
        GR_LOG_INFO("meta: node %d: topic %s written to ZooKeeper in %.1f ms",
                    bm->b->node_id, t->name,
                    (double)(gr_mono_us() - k->t0_us) / 1000.0);
        watch_topic(bm, t);
        for (int32_t i = 0; i < t->nparts; i++)
            get_state(bm, t->name, i);
    }
    call_end(k);
    if (bm->topics->creating == 0 && bm->topics->writes == 0)
        flush_waits(bm);
}

static int config_json(const gr_topic_t *t, gr_buf_t *config);

/* the two znodes' JSON; 0, or -1 when out of memory */
static int
topic_json(const gr_topic_t *t, gr_buf_t *topic, gr_buf_t *config)
{
    char id[23];
    gr_uuid_to_base64(&t->id, id);
    gr_buf_puts(topic, "{\"version\":3,\"partitions\":{");
    for (int32_t i = 0; i < t->nparts; i++) {
        gr_buf_printf(topic, "%s\"%d\":", i ? "," : "", (int)i);
        put_ints(topic, t->parts[i]->replicas, t->parts[i]->nreplicas);
    }
    gr_buf_printf(topic, "},\"adding_replicas\":{},\"removing_replicas\":{},"
                         "\"topic_id\":\"%s\"}",
                  id);
    return config_json(t, config) != 0 || topic->oom ? -1 : 0;
}

/* Kafka's ConfigEntityZNode of t's overrides; 0, or -1 out of memory */
static int
config_json(const gr_topic_t *t, gr_buf_t *config)
{
    gr_buf_puts(config, "{\"version\":1,\"config\":{");
    for (const gr_topic_config_t *cf = t->configs; cf; cf = cf->next) {
        gr_json_put_str(config, cf->key, strlen(cf->key));
        gr_buf_putc(config, ':');
        gr_json_put_str(config, cf->value, strlen(cf->value));
        if (cf->next)
            gr_buf_putc(config, ',');
    }
    gr_buf_puts(config, "}}");
    return config->oom ? -1 : 0;
}

static gr_kerr_t
zk_create_topic(void *arg, const gr_topic_spec_t *spec, gr_topic_t **out,
                const char **msg)
{
    struct gr_broker_meta *bm = arg;
    gr_cluster_t *c = bm->b->cluster;
    gr_buf_t tj = { 0 }, cj = { 0 };
    char tpath[GR_TOPIC_NAME_MAX + 32], cpath[GR_TOPIC_NAME_MAX + 32];
    int32_t *rows = NULL, nparts = spec->nparts;
    int16_t rf;
    gr_topic_t *t = NULL;
    gr_meta_op_t ops[2];
    gr_uuid_t id;
    gr_kerr_t err;
    call_t *k = NULL;

    *out = NULL;
    if ((err = gr_cluster_topic_spec_check(c, spec, &rf, msg)) !=
        GR_KERR_NONE)
        return err;
    if (spec->validate_only)
        return GR_KERR_NONE;
    rows = malloc((size_t)nparts * (size_t)rf * sizeof *rows);
    if (rows == NULL)
        goto oom;
    if (spec->assignment != NULL)
        for (int32_t p = 0; p < nparts; p++)
            memcpy(&rows[(size_t)p * (size_t)rf], spec->assignment[p],
                   (size_t)rf * sizeof *rows);
    else {
        uint8_t r[4];
        gr_uuid_t u;
        gr_uuid_random(&u); /* Kafka's rand.nextInt, twice */
        memcpy(r, u.b, sizeof r);
        if (gr_cluster_place(c, nparts, rf, (r[0] << 8 | r[1]) % c->nnodes,
                             (r[2] << 8 | r[3]) % c->nnodes, rows) != 0)
            goto oom;
    }
    do
        gr_uuid_random(&id);
    while (gr_cluster_topic_by_id(c, &id) != NULL);
    t = gr_cluster_topic_add(c, spec->name, &id, nparts, rf, spec->internal);
    if (t == NULL)
        goto oom;
    for (int32_t p = 0; p < nparts; p++) {
        if (gr_topic_add_partitions(t, p + 1, -1,
                                    &rows[(size_t)p * (size_t)rf], rf) != 0)
            goto oom;
        t->parts[p]->leader_epoch = -1; /* until the controller elects */
        t->parts[p]->nisr = 0;
    }
    for (int i = 0; i < spec->nconfigs; i++)
        if (gr_topic_config_set(t, spec->config_keys[i],
                                spec->config_values[i]) != 0)
            goto oom;
    if (topic_json(t, &tj, &cj) != 0 ||
        (k = call_new(bm, t->name, CREATING)) == NULL)
        goto oom;
    k->id = id;
    k->t0_us = gr_mono_us();
    snprintf(cpath, sizeof cpath, "/config/topics/%s", t->name);
    snprintf(tpath, sizeof tpath, "/brokers/topics/%s", t->name);
    ops[0] = (gr_meta_op_t){ GR_META_OP_CREATE, cpath, cj.ptr, cj.len, 0, -1 };
    ops[1] = (gr_meta_op_t){ GR_META_OP_CREATE, tpath, tj.ptr, tj.len, 0, -1 };
    if (gr_meta_multi(bm->m, ops, 2, topic_made, k) != 0)
        goto oom;
    bm->topics->creating++;
    gr_buf_fini(&tj);
    gr_buf_fini(&cj);
    free(rows);
    GR_LOG_INFO("created topic %s with %d partition(s), replication factor "
                "%d, in ZooKeeper",
                t->name, (int)nparts, (int)rf);
    *out = t;
    return GR_KERR_NONE;
oom:
    if (k != NULL)
        call_end(k);
    if (t != NULL)
        gr_cluster_topic_remove(c, t);
    gr_buf_fini(&tj);
    gr_buf_fini(&cj);
    free(rows);
    *msg = "Out of memory.";
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

/* --- deletion (Kafka's AdminZkClient.deleteTopic, TopicDeletionManager)
 *
 * DeleteTopics on any broker marks the topic, /admin/delete_topics/<t>
 * (a topic marked already is no error: Kafka swallows its
 * TopicAlreadyMarkedForDeletionException). The controller, watching
 * /admin/delete_topics, deletes the states, partition znodes and topic
 * znode, then /config/topics/<t> and the mark, each fenced by its
 * controller epoch. Kafka first has the replicas stopped (StopReplica);
 * here every broker, watching /brokers/topics/<t>, drops the topic and
 * its logs when that znode goes (topic_reread). The answer waits until
 * this broker dropped it (Kafka's DelayedDeleteTopics waits for its
 * metadata cache), at most the request's timeout. */

static bool
is_deleting(const struct gr_topics_zk *tz, const char *name)
{
    if (tz == NULL || tz->ndeleting == 0)
        return false;
    for (const call_t *k = tz->calls; k; k = k->next)
        if (k->part == DELETING && strcmp(k->name, name) == 0)
            return true;
    return false;
}

/* a write a sync waits for is answered */
static void
write_over(struct gr_broker_meta *bm)
{
    if (--bm->topics->writes == 0 && bm->topics->creating == 0)
        flush_waits(bm);
}

static void
mark_made(void *arg, int rc, const char *path, const gr_meta_stat_t *st)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    (void)path;
    (void)st;
    if (rc != GR_META_OK && rc != GR_META_NODEEXISTS) {
        GR_LOG_WARN("meta: node %d: topic %s not marked for deletion: %s",
                    bm->b->node_id, k->name, gr_meta_rc_name(rc));
        note_failed(bm->topics, &k->id);
    }
    call_end(k);
    write_over(bm);
}

static gr_kerr_t
zk_delete_topic(void *arg, gr_topic_t *t)
{
    struct gr_broker_meta *bm = arg;
    char path[GR_TOPIC_NAME_MAX + 32];
    call_t *k = call_new(bm, t->name, WRITING);
    if (k == NULL)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    k->id = t->id;
    snprintf(path, sizeof path, "/admin/delete_topics/%s", t->name);
    if (gr_meta_create(bm->m, path, NULL, 0, 0, mark_made, k) != 0) {
        call_end(k);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    bm->topics->writes++;
    GR_LOG_INFO("meta: node %d: topic %s marked for deletion", bm->b->node_id,
                t->name);
    return GR_KERR_NONE;
}

static void
fenced_done(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    (void)arg; /* NONODE is the rule (made by nobody); the topic's tells */
    (void)rc;
    (void)res;
    (void)n;
}

/* The controller deletes one znode, fenced by its epoch. */
static int
fenced_delete(struct gr_broker_meta *bm, const char *path, gr_meta_multi_cb cb,
              void *arg)
{
    gr_meta_op_t op = { GR_META_OP_DELETE, path, NULL, 0, 0, -1 };
    return gr_meta_fenced_multi(bm->m, "/controller_epoch", bm->epoch_zkversion,
                                &op, 1, cb ? cb : fenced_done, arg);
}

static void delete_start(call_t *k);

static void
mark_gone(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    call_t *k = arg;
    (void)res;
    (void)n;
    if (rc == GR_META_OK || rc == GR_META_NONODE)
        GR_LOG_INFO("meta: controller %d: topic %s deleted from ZooKeeper in "
                    "%.1f ms",
                    k->bm->b->node_id, k->name,
                    (double)(gr_mono_us() - k->t0_us) / 1000.0);
    call_end(k);
}

static void
topic_znode_gone(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    char path[GR_TOPIC_NAME_MAX + 32];
    (void)res;
    (void)n;
    if (rc == GR_META_OK || rc == GR_META_NONODE) {
        snprintf(path, sizeof path, "/config/topics/%s", k->name);
        (void)fenced_delete(bm, path, NULL, NULL);
        snprintf(path, sizeof path, "/admin/delete_topics/%s", k->name);
        if (fenced_delete(bm, path, mark_gone, k) != 0)
            call_end(k);
        return;
    }
    if (rc == GR_META_BADVERSION)
        GR_LOG_WARN("meta: node %d: topic %s not deleted: /controller_epoch "
                    "moved (this node was deposed)",
                    bm->b->node_id, k->name);
    else if (k->node < 3 && bm->controller_epoch >= 0) {
        /* a znode made meanwhile under it (a state): again */
        GR_LOG_INFO("meta: controller %d: topic %s: %s deleting its znode; "
                    "again",
                    bm->b->node_id, k->name, gr_meta_rc_name(rc));
        delete_start(k);
        return;
    } else
        GR_LOG_WARN("meta: controller %d: topic %s not deleted: %s (its mark "
                    "stays for the next controller)",
                    bm->b->node_id, k->name, gr_meta_rc_name(rc));
    call_end(k);
}

static void
parts_listed(void *arg, int rc, const char *const *names, int n,
             const gr_meta_stat_t *st)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    char path[GR_TOPIC_NAME_MAX + 64];
    (void)st;
    if (bm->controller_epoch < 0) {
        call_end(k);
        return;
    }
    /* children first: ZooKeeper answers one session's calls in order */
    for (int i = 0; rc == GR_META_OK && i < n; i++) {
        snprintf(path, sizeof path, "/brokers/topics/%s/partitions/%s/state",
                 k->name, names[i]);
        (void)fenced_delete(bm, path, NULL, NULL);
        snprintf(path, sizeof path, "/brokers/topics/%s/partitions/%s",
                 k->name, names[i]);
        (void)fenced_delete(bm, path, NULL, NULL);
    }
    snprintf(path, sizeof path, "/brokers/topics/%s/partitions", k->name);
    (void)fenced_delete(bm, path, NULL, NULL);
    snprintf(path, sizeof path, "/brokers/topics/%s", k->name);
    if (fenced_delete(bm, path, topic_znode_gone, k) != 0)
        call_end(k);
}

static void
delete_start(call_t *k)
{
    char path[GR_TOPIC_NAME_MAX + 32];
    k->node++;
    snprintf(path, sizeof path, "/brokers/topics/%s/partitions", k->name);
    if (gr_meta_children(k->bm->m, path, NULL, NULL, parts_listed, k) != 0)
        call_end(k);
}

static void
deletions_changed(void *arg, gr_meta_event_t ev, const char *path)
{
    struct gr_broker_meta *bm = arg;
    (void)ev;
    (void)path;
    if (bm->controller_epoch >= 0)
        list_deletions(bm); /* else the next controller's */
}

static void
deletions_listed(void *arg, int rc, const char *const *names, int n,
                 const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    (void)st;
    if (rc != GR_META_OK || bm->controller_epoch < 0)
        return;
    for (int i = 0; i < n; i++) {
        call_t *k;
        if (strlen(names[i]) > GR_TOPIC_NAME_MAX ||
            is_deleting(bm->topics, names[i]) ||
            (k = call_new(bm, names[i], DELETING)) == NULL)
            continue;
        bm->topics->ndeleting++;
        k->node = 0;
        k->t0_us = gr_mono_us();
        GR_LOG_INFO("meta: controller %d: deleting topic %s",
                    bm->b->node_id, names[i]);
        delete_start(k);
    }
}

static void
list_deletions(struct gr_broker_meta *bm)
{
    if (gr_meta_children(bm->m, "/admin/delete_topics", deletions_changed, bm,
                         deletions_listed, bm) != 0)
        GR_LOG_WARN("meta: out of memory listing /admin/delete_topics");
}

/* DeleteTopics answers waiting for their topics to leave the model */
typedef struct gone_wait {
    struct gone_wait *next;
    struct gr_broker_meta *bm;
    gr_req_t *req; /* NULL once its connection closed */
    gr_uuid_t *ids;
    int16_t **errs;
    gr_str_t **msgs;
    int n;
    bool synced; /* its sync called back (the marks are written) */
    bool done;   /* answered: freed once synced */
    gr_timer_t timer;
} gone_wait_t;

static void
gone_free(gone_wait_t *gw)
{
    free(gw->ids);
    free(gw->errs);
    free(gw->msgs);
    free(gw);
}

/* answered: out of the list; freed now or when its sync calls back */
static void
gone_end(gone_wait_t *gw)
{
    struct gr_topics_zk *tz = gw->bm->topics;
    gone_wait_t **pp = &tz->gone;
    while (*pp != NULL && *pp != gw)
        pp = &(*pp)->next;
    if (*pp != NULL)
        *pp = gw->next;
    gr_timer_stop(gw->bm->b->loop, &gw->timer);
    if (gw->req != NULL)
        gr_req_reply(gw->req);
    gw->req = NULL;
    gw->done = true;
    if (gw->synced)
        gone_free(gw);
}

static void
gone_check(gone_wait_t *gw)
{
    if (!gw->synced)
        return;
    for (int i = 0; i < gw->n; i++)
        if (gr_cluster_topic_by_id(gw->bm->b->cluster, &gw->ids[i]) != NULL)
            return;
    gone_end(gw);
}

static void
gone_timeout(gr_loop_t *loop, gr_timer_t *t)
{
    gone_wait_t *gw = t->data;
    (void)loop;
    for (int i = 0; gw->req != NULL && i < gw->n; i++)
        if (gr_cluster_topic_by_id(gw->bm->b->cluster, &gw->ids[i]) != NULL)
            *gw->errs[i] = GR_KERR_REQUEST_TIMED_OUT;
    gone_end(gw);
}

static void
gone_synced(void *arg, const gr_uuid_t *failed, int nfailed, bool cancelled)
{
    gone_wait_t *gw = arg;
    gw->synced = true;
    if (gw->done) { /* timed out, or the broker stopped: only freed */
        gone_free(gw);
        return;
    }
    for (int i = 0; i < gw->n; i++)
        for (int f = 0; f < nfailed; f++)
            if (gr_uuid_eq(&gw->ids[i], &failed[f])) {
                if (gw->req != NULL) {
                    *gw->errs[i] = GR_KERR_KAFKA_STORAGE_ERROR;
                    *gw->msgs[i] = gr_str_c("The topic could not be marked "
                                            "for deletion.");
                }
                memset(&gw->ids[i], 0, sizeof gw->ids[i]);
            }
    if (cancelled)
        gone_end(gw);
    else
        gone_check(gw);
}

static void
gone_abort(gr_req_t *req)
{
    gone_wait_t *gw = req->owner;
    gw->req = NULL;
}

int
gr_broker_reply_when_deleted(gr_broker_t *b, gr_req_t *req,
                             const gr_topic_waits_t *w, int32_t timeout_ms)
{
    struct gr_broker_meta *bm = b->meta;
    gone_wait_t *gw;
    if (bm == NULL || bm->topics == NULL || w->n == 0 ||
        (gw = calloc(1, sizeof *gw)) == NULL)
        return gr_broker_reply_when_stored(b, req, w);
    gw->ids = malloc((size_t)w->n * sizeof *gw->ids);
    gw->errs = malloc((size_t)w->n * sizeof *gw->errs);
    gw->msgs = malloc((size_t)w->n * sizeof *gw->msgs);
    if (gw->ids == NULL || gw->errs == NULL || gw->msgs == NULL) {
        free(gw->ids);
        free(gw->errs);
        free(gw->msgs);
        free(gw);
        return gr_broker_reply_when_stored(b, req, w);
    }
    memcpy(gw->ids, w->ids, (size_t)w->n * sizeof *gw->ids);
    memcpy(gw->errs, w->errs, (size_t)w->n * sizeof *gw->errs);
    memcpy(gw->msgs, w->msgs, (size_t)w->n * sizeof *gw->msgs);
    gw->n = w->n;
    gw->bm = bm;
    gw->req = req;
    gw->next = bm->topics->gone;
    bm->topics->gone = gw;
    gr_req_defer(req, gone_abort, gw);
    gr_timer_init(&gw->timer, gone_timeout, gw);
    /* 0: Kafka's REQUEST_TIMED_OUT at once, the deletions going on */
    gr_timer_start(b->loop, &gw->timer, timeout_ms > 0 ? timeout_ms : 0);
    gr_cluster_sync(b->cluster, gone_synced, gw);
    return 0;
}

/* t left ZooKeeper: out of the model, its logs deleted (the broker's
 * partition_deleted hook: renamed now, removed on a worker) */
static void
drop_topic(struct gr_broker_meta *bm, gr_topic_t *t, const char *why)
{
    gr_cluster_t *c = bm->b->cluster;
    gone_wait_t *gw, *next;
    GR_LOG_INFO("meta: node %d: topic %s deleted (%s)", bm->b->node_id,
                t->name, why);
    if (c->hooks.partition_deleted)
        for (int32_t i = 0; i < t->nparts; i++)
            c->hooks.partition_deleted(c->hooks.arg, t->parts[i]);
    gr_cluster_topic_remove(c, t);
    for (gw = bm->topics->gone; gw; gw = next) {
        next = gw->next;
        gone_check(gw);
    }
}

/* /brokers/topics listed: the topics of the model not in it are gone
 * (a watch lost with a session) */
static void
drop_missing(struct gr_broker_meta *bm, const char *const *names, int n)
{
    gr_topic_t *t, *next;
    for (t = bm->b->cluster->topics; t; t = next) {
        int lo = 0, hi = n;
        next = t->lnext;
        while (lo < hi) {
            int mid = (lo + hi) / 2, d = strcmp(names[mid], t->name);
            if (d == 0)
                break;
            if (d < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo >= hi && !is_creating(bm->topics, &t->id) &&
            !is_local(bm->topics, &t->id))
            drop_topic(bm, t, "not in /brokers/topics");
    }
}

static bool
is_local(const struct gr_topics_zk *tz, const gr_uuid_t *id)
{
    for (int i = 0; i < tz->nlocal; i++)
        if (gr_uuid_eq(&tz->local_ids[i], id))
            return true;
    return false;
}

/* --- a topic's znode changed: deleted, re-created, new partitions */

/* Partitions [t->nparts, n) of the topic znode's (parts) into the model,
 * leaderless until their states are read. -1 on a bad row. */
static int
add_parts(struct gr_broker_meta *bm, gr_topic_t *t, const gr_json_t *parts,
          int32_t n)
{
    int32_t reps[256], old = t->nparts;
    for (int32_t p = old; p < n; p++) {
        char key[16];
        int nr;
        snprintf(key, sizeof key, "%d", (int)p);
        if ((nr = int_list(gr_json_get(parts, key), reps, 256)) <= 0)
            return -1;
        if (gr_topic_add_partitions(t, p + 1, -1, reps, nr) != 0) {
            GR_LOG_WARN("meta: out of memory adding partitions to %s",
                        t->name);
            return -1;
        }
        t->parts[p]->leader_epoch = -1;
        t->parts[p]->nisr = 0;
    }
    if (n > old)
        GR_LOG_INFO("meta: node %d: topic %s has %d partition(s) now (%d "
                    "before)",
                    bm->b->node_id, t->name, (int)n, (int)old);
    for (int32_t p = old; p < n; p++)
        get_state(bm, t->name, p);
    return 0;
}

static void
topic_reread(void *arg, int rc, const void *data, size_t len,
             const gr_meta_stat_t *st)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    gr_topic_t *t = gr_cluster_topic_cstr(bm->b->cluster, k->name);
    gr_arena_t *a = NULL;
    const gr_json_t *o, *id, *parts;
    gr_uuid_t uuid;
    char err[64];
    (void)st;

    if (t == NULL || is_creating(bm->topics, &t->id)) {
        call_end(k); /* a topic of ours whose znode is not made yet */
        return;
    }
    if (rc == GR_META_NONODE) {
        drop_topic(bm, t, "its znode went");
        call_end(k);
        return;
    }
    if (rc != GR_META_OK || (a = gr_arena_new(8192)) == NULL) {
        call_end(k);
        return;
    }
    o = gr_json_parse(a, data, len, err, sizeof err);
    parts = o != NULL ? gr_json_get(o, "partitions") : NULL;
    id = o != NULL ? gr_json_get(o, "topic_id") : NULL;
    if (parts == NULL || parts->type != GR_JSON_OBJ ||
        parts->n > GR_MAX_PARTITIONS_NEW) {
        GR_LOG_WARN("meta: /brokers/topics/%s is not a topic we read: "
                    "\"%.*s\"",
                    k->name, (int)(len < 200 ? len : 200),
                    (const char *)data);
    } else if (id != NULL && id->type == GR_JSON_STR &&
               gr_uuid_from_base64(&uuid, id->s) == 0 &&
               !gr_uuid_eq(&uuid, &t->id)) {
        /* deleted and made again before we read it */
        drop_topic(bm, t, "made again with another id");
        list_topics(bm);
    } else if (parts->n > t->nparts && add_parts(bm, t, parts, parts->n) != 0)
        GR_LOG_WARN("meta: /brokers/topics/%s: its new partitions are not "
                    "ones we read: \"%.*s\"",
                    k->name, (int)(len < 200 ? len : 200),
                    (const char *)data);
    gr_arena_destroy(a);
    call_end(k);
}

static void
topic_changed(void *arg, gr_meta_event_t ev, const char *path)
{
    struct gr_broker_meta *bm = arg;
    const char *name = path + strlen("/brokers/topics/");
    call_t *k;
    (void)ev;
    if (strncmp(path, "/brokers/topics/", 16) != 0 ||
        strchr(name, '/') != NULL || strlen(name) > GR_TOPIC_NAME_MAX ||
        (k = call_new(bm, name, -1)) == NULL)
        return;
    if (gr_meta_get(bm->m, path, topic_changed, bm, topic_reread, k) != 0)
        call_end(k);
}

/* a topic of ours, made: its znodes watched as those of the others */
static void
watch_topic(struct gr_broker_meta *bm, const gr_topic_t *t)
{
    char path[GR_TOPIC_NAME_MAX + 32];
    snprintf(path, sizeof path, "/brokers/topics/%s", t->name);
    topic_changed(bm, GR_META_EV_CHANGED, path);
    snprintf(path, sizeof path, "/config/topics/%s", t->name);
    config_changed(bm, GR_META_EV_CHANGED, path);
}

/* --- new partitions (Kafka's AdminZkClient.createPartitions) */

static void
grow_written(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    gr_topic_t *t = gr_cluster_topic_by_id(bm->b->cluster, &k->id);
    (void)res;
    (void)n;
    if (rc != GR_META_OK) {
        GR_LOG_WARN("meta: node %d: partitions not added to %s: %s%s",
                    bm->b->node_id, k->name, gr_meta_rc_name(rc),
                    rc == GR_META_BADVERSION ? " (the topic changed meanwhile)"
                                             : "");
        note_failed(bm->topics, &k->id);
    } else if (t != NULL && t->nparts == k->old) {
        /* into the model now: the watch's read comes after this answer */
        int32_t total = k->old + k->nnew;
        for (int32_t p = k->old; p < total; p++) {
            if (gr_topic_add_partitions(t, p + 1, -1,
                                        &k->rows[(size_t)(p - k->old) *
                                                 (size_t)k->rf],
                                        k->rf) != 0)
                break; /* the watch's read tries again */
            t->parts[p]->leader_epoch = -1;
            t->parts[p]->nisr = 0;
        }
        GR_LOG_INFO("meta: node %d: topic %s has %d partition(s) now (%d "
                    "before), written to ZooKeeper",
                    bm->b->node_id, t->name, (int)t->nparts, (int)k->old);
        for (int32_t p = k->old; p < t->nparts; p++)
            get_state(bm, t->name, p);
    }
    call_end(k);
    write_over(bm);
}

/* The topic znode read: the new rows added to its partitions, written
 * back on the version read. */
static void
grow_read(void *arg, int rc, const void *data, size_t len,
          const gr_meta_stat_t *st)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    gr_arena_t *a = NULL;
    const gr_json_t *o, *parts, *id, *add, *rem;
    gr_buf_t js = { 0 };
    gr_uuid_t uuid;
    gr_meta_op_t op;
    char err[64], path[GR_TOPIC_NAME_MAX + 32], b64[23];
    const char *why = "not a topic we read";

    if (rc != GR_META_OK) {
        why = gr_meta_rc_name(rc);
        goto fail;
    }
    if ((a = gr_arena_new(8192)) == NULL)
        goto fail;
    o = gr_json_parse(a, data, len, err, sizeof err);
    parts = o != NULL ? gr_json_get(o, "partitions") : NULL;
    id = o != NULL ? gr_json_get(o, "topic_id") : NULL;
    add = o != NULL ? gr_json_get(o, "adding_replicas") : NULL;
    rem = o != NULL ? gr_json_get(o, "removing_replicas") : NULL;
    if (parts == NULL || parts->type != GR_JSON_OBJ)
        goto fail;
    if (parts->n != k->old || (id != NULL && id->type == GR_JSON_STR &&
                               (gr_uuid_from_base64(&uuid, id->s) != 0 ||
                                !gr_uuid_eq(&uuid, &k->id)))) {
        why = "the topic changed meanwhile";
        goto fail;
    }
    if ((add != NULL && add->n > 0) || (rem != NULL && rem->n > 0)) {
        why = "a reassignment is in progress";
        goto fail;
    }
    gr_uuid_to_base64(&k->id, b64);
    gr_buf_puts(&js, "{\"version\":3,\"partitions\":{");
    for (int32_t p = 0; p < k->old + k->nnew; p++) {
        int32_t reps[256];
        int nr;
        char key[16];
        gr_buf_printf(&js, "%s\"%d\":", p ? "," : "", (int)p);
        if (p >= k->old) {
            put_ints(&js, &k->rows[(size_t)(p - k->old) * (size_t)k->rf],
                     k->rf);
            continue;
        }
        snprintf(key, sizeof key, "%d", (int)p);
        if ((nr = int_list(gr_json_get(parts, key), reps, 256)) <= 0)
            goto fail;
        put_ints(&js, reps, nr);
    }
    gr_buf_printf(&js, "},\"adding_replicas\":{},\"removing_replicas\":{},"
                       "\"topic_id\":\"%s\"}",
                  b64);
    if (js.oom)
        goto fail;
    snprintf(path, sizeof path, "/brokers/topics/%s", k->name);
    op = (gr_meta_op_t){ GR_META_OP_SET, path, js.ptr, js.len, 0,
                         st->version };
    if (gr_meta_multi(bm->m, &op, 1, grow_written, k) != 0)
        goto fail;
    gr_buf_fini(&js);
    gr_arena_destroy(a);
    return;
fail:
    GR_LOG_WARN("meta: node %d: partitions not added to %s: %s",
                bm->b->node_id, k->name, why);
    note_failed(bm->topics, &k->id);
    gr_buf_fini(&js);
    gr_arena_destroy(a);
    call_end(k);
    write_over(bm);
}

/* As AdminZkClient.createPartitions: the new partitions' replicas as
 * given, else placed as AdminUtils places them, starting at the broker
 * of partition 0's first replica (its index among the brokers, sorted)
 * with the replication factor of partition 0. */
static gr_kerr_t
zk_create_partitions(void *arg, gr_topic_t *t, int32_t new_total,
                     const int32_t *const *assignment, bool validate_only,
                     const char **msg)
{
    struct gr_broker_meta *bm = arg;
    struct gr_topics_zk *tz = bm->topics;
    gr_cluster_t *c = bm->b->cluster;
    int32_t old = t->nparts, nnew = new_total - old, *rows = NULL,
            *brokers = NULL, *all = NULL;
    int16_t rf = (int16_t)t->parts[0]->nreplicas;
    char path[GR_TOPIC_NAME_MAX + 32];
    int start = 0;
    call_t *k;

    if (new_total <= old) {
        *msg = "The number of partitions can only be increased.";
        return GR_KERR_INVALID_PARTITIONS;
    }
    if (new_total > GR_MAX_PARTITIONS_NEW) {
        *msg = "The number of partitions is too large.";
        return GR_KERR_INVALID_PARTITIONS;
    }
    if (assignment != NULL)
        rf = t->replication_factor;
    else if (rf > c->nnodes) {
        snprintf(tz->msg, sizeof tz->msg,
                 "Replication factor: %d larger than available brokers: %d.",
                 (int)rf, c->nnodes);
        *msg = tz->msg;
        return GR_KERR_INVALID_REPLICATION_FACTOR;
    } else if (gr_cluster_racks_mixed(c)) {
        GR_LOG_WARN("topic %s: not all brokers have rack information for "
                    "replica rack aware assignment",
                    t->name);
        *msg = NULL; /* Kafka's AdminOperationException */
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (validate_only)
        return GR_KERR_NONE;
    if ((rows = malloc((size_t)nnew * (size_t)rf * sizeof *rows)) == NULL)
        goto oom;
    if (assignment != NULL)
        for (int32_t p = 0; p < nnew; p++)
            memcpy(&rows[(size_t)p * (size_t)rf], assignment[p],
                   (size_t)rf * sizeof *rows);
    else {
        if ((brokers = malloc((size_t)c->nnodes * sizeof *brokers)) == NULL ||
            (all = malloc((size_t)new_total * (size_t)rf * sizeof *all)) ==
                NULL)
            goto oom;
        for (int i = 0; i < c->nnodes; i++)
            brokers[i] = c->nodes[i].id;
        while (start < c->nnodes &&
               brokers[start] < t->parts[0]->replicas[0])
            start++;
        if (start == c->nnodes)
            start = 0; /* Kafka's indexWhere: -1, then max(0, -1) */
        /* the new partitions as the tail of new_total placed: Kafka
         * starts at partition old with the same start and shift */
        if (gr_cluster_place(c, new_total, rf, start, start, all) != 0)
            goto oom;
        memcpy(rows, &all[(size_t)old * (size_t)rf],
               (size_t)nnew * (size_t)rf * sizeof *rows);
    }
    if ((k = call_new(bm, t->name, WRITING)) == NULL)
        goto oom;
    k->id = t->id;
    k->rows = rows;
    k->nnew = nnew;
    k->rf = rf;
    k->old = old;
    rows = NULL;
    snprintf(path, sizeof path, "/brokers/topics/%s", t->name);
    if (gr_meta_get(bm->m, path, NULL, NULL, grow_read, k) != 0) {
        call_end(k);
        goto oom;
    }
    tz->writes++;
    free(brokers);
    free(all);
    return GR_KERR_NONE;
oom:
    free(rows);
    free(brokers);
    free(all);
    *msg = "Out of memory.";
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

/* --- topic configs (AdminZkClient.changeTopicConfig)
 *
 * An AlterConfigs or IncrementalAlterConfigs of a topic sets
 * /config/topics/<t> and makes a /config/changes/config_change_
 * notification ({"version":2,"entity_path":"topics/<t>"}) in one multi;
 * the answer waits for it (a sync). Every broker holds a data watch on
 * /config/topics/<t> (not Kafka's ConfigChangeListener on
 * /config/changes: the same news, with no sequence to follow) and takes
 * the configs it reads. */

static void
config_written(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    (void)res;
    (void)n;
    if (rc != GR_META_OK) {
        GR_LOG_WARN("meta: node %d: the configs of %s not written to "
                    "ZooKeeper: %s",
                    bm->b->node_id, k->name, gr_meta_rc_name(rc));
        note_failed(bm->topics, &k->id);
    }
    call_end(k);
    write_over(bm);
}

static gr_kerr_t
zk_store_topic_config(void *arg, gr_topic_t *t)
{
    struct gr_broker_meta *bm = arg;
    gr_buf_t cj = { 0 }, nj = { 0 };
    char cpath[GR_TOPIC_NAME_MAX + 32];
    gr_meta_op_t ops[2];
    call_t *k = NULL;

    gr_buf_puts(&nj, "{\"version\":2,\"entity_path\":");
    gr_buf_printf(&cj, "topics/%s", t->name);
    gr_json_put_str(&nj, (const char *)cj.ptr, cj.len);
    gr_buf_putc(&nj, '}');
    gr_buf_fini(&cj);
    memset(&cj, 0, sizeof cj);
    if (config_json(t, &cj) != 0 || nj.oom ||
        (k = call_new(bm, t->name, WRITING)) == NULL)
        goto oom;
    k->id = t->id;
    snprintf(cpath, sizeof cpath, "/config/topics/%s", t->name);
    ops[0] = (gr_meta_op_t){ GR_META_OP_SET, cpath, cj.ptr, cj.len, 0, -1 };
    ops[1] = (gr_meta_op_t){ GR_META_OP_CREATE,
                             "/config/changes/config_change_",
                             nj.ptr,
                             nj.len,
                             GR_META_SEQUENTIAL,
                             -1 };
    if (gr_meta_multi(bm->m, ops, 2, config_written, k) != 0)
        goto oom;
    bm->topics->writes++;
    gr_buf_fini(&cj);
    gr_buf_fini(&nj);
    return GR_KERR_NONE;
oom:
    if (k != NULL)
        call_end(k);
    gr_buf_fini(&cj);
    gr_buf_fini(&nj);
    GR_LOG_ERROR("out of memory writing the configs of %s", t->name);
    return GR_KERR_KAFKA_STORAGE_ERROR;
}

/* the same overrides, in any order */
static bool
same_configs(const gr_topic_config_t *a, const gr_topic_config_t *b)
{
    int na = 0, nb = 0;
    for (const gr_topic_config_t *x = a; x; x = x->next) {
        const char *v = gr_config_list_get(b, x->key);
        if (v == NULL || strcmp(v, x->value) != 0)
            return false;
        na++;
    }
    for (; b; b = b->next)
        nb++;
    return na == nb;
}

static void
config_reread(void *arg, int rc, const void *data, size_t len,
              const gr_meta_stat_t *st)
{
    call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    gr_topic_t *t = gr_cluster_topic_cstr(bm->b->cluster, k->name);
    gr_topic_config_t *list = NULL;
    gr_arena_t *a = NULL;
    const gr_json_t *o, *cf;
    char err[64];
    (void)st;

    if (rc != GR_META_OK || t == NULL || (a = gr_arena_new(4096)) == NULL)
        goto out;
    o = gr_json_parse(a, data, len, err, sizeof err);
    cf = o != NULL ? gr_json_get(o, "config") : NULL;
    if (cf == NULL || cf->type != GR_JSON_OBJ) {
        GR_LOG_WARN("meta: /config/topics/%s is not a config we read: "
                    "\"%.*s\"",
                    k->name, (int)(len < 200 ? len : 200),
                    (const char *)data);
        goto out;
    }
    for (int i = 0; i < cf->n; i++)
        if (cf->kids[i].type == GR_JSON_STR &&
            gr_config_list_set(&list, cf->kids[i].key, cf->kids[i].s) != 0) {
            GR_LOG_WARN("meta: out of memory setting %s's configs", t->name);
            goto out;
        }
    if (same_configs(list, t->configs))
        goto out;
    gr_config_list_free(&t->configs);
    t->configs = list;
    list = NULL;
    t->settings_gen = 0;
    gr_broker_topic_config_changed(bm->b, t);
    GR_LOG_INFO("meta: node %d: topic %s: configuration read from ZooKeeper",
                bm->b->node_id, t->name);
out:
    gr_config_list_free(&list);
    gr_arena_destroy(a);
    call_end(k);
}

static void
config_changed(void *arg, gr_meta_event_t ev, const char *path)
{
    struct gr_broker_meta *bm = arg;
    const char *name = path + strlen("/config/topics/");
    call_t *k;
    (void)ev;
    if (strncmp(path, "/config/topics/", 15) != 0 ||
        strchr(name, '/') != NULL || strlen(name) > GR_TOPIC_NAME_MAX ||
        (k = call_new(bm, name, -1)) == NULL)
        return;
    if (gr_meta_get(bm->m, path, config_changed, bm, config_reread, k) != 0)
        call_end(k);
}

/* --- syncs: after the creations before them, then the local store's */

static void
wait_done(void *arg, const gr_uuid_t *failed, int nfailed, bool cancelled)
{
    sync_wait_t *w = arg;
    gr_uuid_t *all = NULL;
    int n = w->nfailed;
    if (nfailed > 0 &&
        (all = malloc((size_t)(w->nfailed + nfailed) * sizeof *all)) != NULL) {
        memcpy(all, w->failed, (size_t)w->nfailed * sizeof *all);
        memcpy(all + w->nfailed, failed, (size_t)nfailed * sizeof *all);
        n += nfailed;
    }
    w->cb(w->arg, all ? all : w->failed, n, cancelled);
    free(all);
    free(w->failed);
    free(w);
}

static void
flush_waits(struct gr_broker_meta *bm)
{
    struct gr_topics_zk *tz = bm->topics;
    sync_wait_t *list = tz->waits;
    tz->waits = tz->waits_tail = NULL;
    while (list != NULL) {
        sync_wait_t *w = list;
        list = w->next;
        if (tz->nfailed > 0 &&
            (w->failed = malloc((size_t)tz->nfailed * sizeof *w->failed)) !=
                NULL) {
            memcpy(w->failed, tz->failed,
                   (size_t)tz->nfailed * sizeof *w->failed);
            w->nfailed = tz->nfailed;
        }
        if (list == NULL) { /* every one of them heard */
            free(tz->failed);
            tz->failed = NULL;
            tz->nfailed = 0;
        }
        bm->b->cluster->ops->sync(bm->b->cluster, wait_done, w);
    }
}

static void
zk_sync(void *arg, gr_cluster_sync_cb cb, void *cbarg)
{
    struct gr_broker_meta *bm = arg;
    struct gr_topics_zk *tz = bm->topics;
    sync_wait_t *w = calloc(1, sizeof *w);
    if (w == NULL) {
        GR_LOG_ERROR("out of memory: answering before ZooKeeper answered");
        bm->b->cluster->ops->sync(bm->b->cluster, cb, cbarg);
        return;
    }
    w->bm = bm;
    w->cb = cb;
    w->arg = cbarg;
    if (tz->waits_tail)
        tz->waits_tail->next = w;
    else
        tz->waits = w;
    tz->waits_tail = w;
    if (tz->creating == 0 && tz->writes == 0)
        flush_waits(bm);
}

static const gr_cluster_remote_t zk_remote = {
    .create_topic = zk_create_topic,
    .delete_topic = zk_delete_topic,
    .create_partitions = zk_create_partitions,
    .store_topic_config = zk_store_topic_config,
    .sync = zk_sync,
};

int
gr_topics_zk_init(struct gr_broker_meta *bm)
{
    gr_cluster_t *c = bm->b->cluster;
    if ((bm->topics = calloc(1, sizeof *bm->topics)) == NULL ||
        gr_failover_init(bm) != 0) {
        free(bm->topics);
        bm->topics = NULL;
        return -1;
    }
    if (c->ntopics > 0) {
        bm->topics->local_ids =
            malloc((size_t)c->ntopics * sizeof *bm->topics->local_ids);
        if (bm->topics->local_ids == NULL) {
            gr_failover_fini(bm);
            free(bm->topics);
            bm->topics = NULL;
            return -1;
        }
        for (gr_topic_t *t = c->topics; t; t = t->lnext)
            bm->topics->local_ids[bm->topics->nlocal++] = t->id;
    }
    c->remote = &zk_remote;
    c->remote_arg = bm;
    return 0;
}

void
gr_topics_zk_fini(struct gr_broker_meta *bm)
{
    struct gr_topics_zk *tz = bm->topics;
    gr_cluster_t *c = bm->b->cluster;
    gr_failover_fini(bm);
    if (tz == NULL)
        return;
    c->remote = NULL;
    c->remote_arg = NULL;
    while (tz->waits != NULL) {
        sync_wait_t *w = tz->waits;
        tz->waits = w->next;
        w->cb(w->arg, NULL, 0, true);
        free(w);
    }
    while (tz->gone != NULL)
        gone_end(tz->gone); /* answered with what it has */
    while (tz->calls != NULL)
        call_end(tz->calls);
    free(tz->failed);
    free(tz->local_ids);
    free(tz);
    bm->topics = NULL;
}
