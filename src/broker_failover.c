/*
 * Leader failover (cluster mode): what Kafka's ZooKeeper-mode controller
 * does when brokers come and go (KafkaController.onBrokerFailure,
 * onBrokerStartup, onControllerFailover; cluster-zookeeper.md 2.3, 4.4).
 *
 * Every broker lists /brokers/ids (broker_topics.c); the list, with this
 * broker, is the live set here. On the controller, a change of it (a
 * broker gone, back, or bounced: its registration's czxid, the broker
 * epoch, changed between two readings), its own election and every state
 * it reads put the partitions concerned through gr_election_decide
 * (cluster/election.h): a partition whose leader went gets the first live
 * replica of its ISR (none: no leader, leader -1, unless
 * unclean.leader.election.enable, the topic's or the broker's), a gone
 * follower leaves the ISR, a leaderless partition gets a leader again
 * when an ISR member returns. A bounced broker counts as gone, then back,
 * in one decision (Kafka's onBrokerFailure then onBrokerStartup of its
 * bouncedBrokers): a partition it led moves to the next ISR member or,
 * alone in the ISR, stays with it at a new epoch.
 *
 * A decision is made on the state as ZooKeeper holds it: the state znode
 * is read again, decided on, and written at the next leader epoch with a
 * set conditioned on the version read, inside a multi fenced by the
 * controller epoch (gr_meta_fenced_multi). The leader's own ISR writes
 * are conditioned the same way, so neither loses the other's: a
 * BADVERSION reads and decides again (a few times), a moved fence means
 * this node was deposed and writes nothing more. Each partition has at
 * most one read-decide-write under way; one asked for meanwhile runs
 * after it. The writes go out together, pipelined (Kafka's
 * updateLeaderAndIsr sends one fenced set per partition the same way),
 * so a broker leading fifty partitions costs fifty asynchronous
 * round trips, the loop never waiting.
 *
 * Brokers hear the new states through their watches (broker_topics.c
 * apply_state), not LeaderAndIsr (a departure, documented there).
 * Loop thread only.
 */
#include "broker_meta_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "cluster/election.h"
#include "core/arena.h"
#include "core/buf.h"
#include "core/conf.h"
#include "core/json.h"
#include "core/log.h"
#include "group/group.h"
#include "log/log.h"
#include "partition/partition.h"

#define MAX_REPLICAS 256
#define MAX_RETRIES 8 /* BADVERSIONs in a row before giving up (logged) */

typedef struct live {
    int32_t id;
    int64_t czxid; /* its registration's, -1 until read */
} live_t;

/* a read-decide-write under way for one partition */
typedef struct fo_call {
    struct fo_call *next, *prev;
    struct gr_broker_meta *bm;
    int32_t part;
    int32_t bounced; /* a broker to count as gone then back, or -1 */
    int tries;
    bool again;   /* asked for again meanwhile */
    bool leaving; /* this broker's controlled shutdown (not the controller) */
    char topic[GR_TOPIC_NAME_MAX + 1];
} fo_call_t;

struct gr_failover {
    live_t *live;
    int nlive;
    bool known; /* /brokers/ids listed at least once */
    fo_call_t *calls;
    /* controlled shutdown: the controller epoch read, its version (the
     * fence), the calls under way, the partitions moved, those left */
    bool leaving;
    int32_t sd_epoch, sd_version;
    int sd_pending, sd_moved, sd_failed, sd_kept, sd_tries;
};

static bool
is_controller(const struct gr_broker_meta *bm)
{
    return bm->controller_epoch >= 0 && bm->failover != NULL &&
           bm->failover->known;
}

/* the live ids (this broker's own among them), but bounced, into out
 * (room for nlive + 1); their number */
static int
live_ids(const struct gr_broker_meta *bm, int32_t bounced, int32_t *out)
{
    const struct gr_failover *fo = bm->failover;
    int n = 0;
    bool self = false;
    for (int i = 0; i < fo->nlive; i++)
        if (fo->live[i].id != bounced) {
            out[n++] = fo->live[i].id;
            self = self || fo->live[i].id == bm->b->node_id;
        }
    if (!self && bm->b->node_id != bounced)
        out[n++] = bm->b->node_id; /* registered: it is controller */
    return n;
}

static bool
unclean(const struct gr_broker_meta *bm, const gr_topic_t *t)
{
    const char *v =
        gr_topic_config_get(t, "unclean.leader.election.enable");
    if (v != NULL)
        return strcmp(v, "true") == 0;
    return gr_conf_bool(bm->b->conf, GR_CONF_UNCLEAN_LEADER_ELECTION_ENABLE);
}

/* The decision for a partition whose replicas are p's, state (leader,
 * isr) as given; a bounced broker counts as gone then back. */
static bool
decide(const struct gr_broker_meta *bm, const gr_partition_t *p,
       int32_t leader, const int32_t *isr, int nisr, int32_t bounced,
       int32_t *new_leader, int32_t *new_isr, int *new_nisr)
{
    int32_t *live = malloc(((size_t)bm->failover->nlive + 1) * sizeof *live);
    int32_t mid[MAX_REPLICAS + 1];
    gr_election_t in = { p->replicas, p->nreplicas, isr, nisr, leader,
                         live, 0, unclean(bm, p->topic) };
    bool ch, member = bounced >= 0 && bounced == leader;
    int nmid;

    for (int i = 0; i < nisr && bounced >= 0; i++)
        member = member || isr[i] == bounced;
    if (live == NULL) {
        GR_LOG_WARN("meta: out of memory electing a leader for %s-%d",
                    p->topic->name, (int)p->id);
        return false;
    }
    if (!member) {
        in.nlive = live_ids(bm, -1, live);
        ch = gr_election_decide(&in, new_leader, new_isr, new_nisr);
        free(live);
        return ch;
    }
    /* gone: */
    in.nlive = live_ids(bm, bounced, live);
    ch = gr_election_decide(&in, new_leader, mid, &nmid);
    if (!ch) {
        memcpy(mid, isr, (size_t)nisr * sizeof *mid);
        nmid = nisr;
        *new_leader = leader;
    }
    /* then back: */
    in.isr = mid;
    in.nisr = nmid;
    in.leader = *new_leader;
    in.nlive = live_ids(bm, -1, live);
    if (!gr_election_decide(&in, new_leader, new_isr, new_nisr)) {
        memcpy(new_isr, mid, (size_t)nmid * sizeof *mid);
        *new_nisr = nmid;
    }
    free(live);
    return true; /* its leadership or membership began again */
}

/* Controlled shutdown: p's state with this broker counted gone. A
 * partition it leads moves only to a live member of its ISR (Kafka's
 * ControlledShutdownLeaderElectionStrategy): one it leads alone stays
 * with it, until its session goes. */
static bool
decide_leaving(const struct gr_broker_meta *bm, const gr_partition_t *p,
               int32_t leader, const int32_t *isr, int nisr,
               int32_t *new_leader, int32_t *new_isr, int *new_nisr)
{
    int32_t *live = malloc(((size_t)bm->failover->nlive + 1) * sizeof *live);
    gr_election_t in = { p->replicas, p->nreplicas, isr, nisr, leader,
                         live, 0, false };
    bool ch;
    if (live == NULL)
        return false;
    in.nlive = live_ids(bm, bm->b->node_id, live);
    ch = gr_election_decide(&in, new_leader, new_isr, new_nisr);
    free(live);
    if (ch && leader == bm->b->node_id && *new_leader < 0) {
        bm->failover->sd_kept++;
        return false;
    }
    return ch;
}

/* --- calls */

static fo_call_t *
call_find(struct gr_failover *fo, const char *topic, int32_t part)
{
    for (fo_call_t *k = fo->calls; k; k = k->next)
        if (!k->leaving && k->part == part && strcmp(k->topic, topic) == 0)
            return k;
    return NULL;
}

static void
call_end(fo_call_t *k)
{
    struct gr_failover *fo = k->bm->failover;
    if (k->prev)
        k->prev->next = k->next;
    else
        fo->calls = k->next;
    if (k->next)
        k->next->prev = k->prev;
    free(k);
}

static gr_partition_t *
model_partition(struct gr_broker_meta *bm, const char *topic, int32_t part)
{
    gr_topic_t *t = gr_cluster_topic_cstr(bm->b->cluster, topic);
    return t != NULL && part >= 0 && part < t->nparts ? t->parts[part] : NULL;
}

static void read_state(fo_call_t *k);
static void check(struct gr_broker_meta *bm, gr_partition_t *p,
                  int32_t bounced);

/* the call's done: again if asked meanwhile */
static void leaving_done(struct gr_broker_meta *bm);

static void
call_done(fo_call_t *k)
{
    struct gr_broker_meta *bm = k->bm;
    if (k->leaving) {
        call_end(k);
        if (--bm->failover->sd_pending == 0)
            leaving_done(bm);
        return;
    }
    gr_partition_t *p = k->again ? model_partition(bm, k->topic, k->part)
                                 : NULL;
    int32_t bounced = k->bounced;
    call_end(k);
    if (p != NULL)
        check(bm, p, bounced);
}

static void
put_ints(gr_buf_t *b, const int32_t *v, int n)
{
    gr_buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        gr_buf_printf(b, "%s%d", i ? "," : "", (int)v[i]);
    gr_buf_putc(b, ']');
}

static void
written(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    fo_call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;

    if (rc == GR_META_OK) {
        k->bounced = -1;
        if (k->leaving)
            bm->failover->sd_moved++;
        call_done(k);
        return;
    }
    if (k->leaving)
        bm->failover->sd_failed++;
    if (rc == GR_META_BADVERSION && n > 0 &&
        res[0].rc == GR_META_BADVERSION && ++k->tries < MAX_RETRIES) {
        /* the leader's ISR write (or another's) came first: again */
        read_state(k);
        return;
    }
    if (rc == GR_META_BADVERSION && (n == 0 || res[0].rc != GR_META_BADVERSION))
        GR_LOG_WARN("meta: controller %d: the state of %s-%d not written: "
                    "/controller_epoch moved (this node was deposed)",
                    bm->b->node_id, k->topic, (int)k->part);
    else if (rc != GR_META_NONODE) /* NONODE: the topic is being deleted */
        GR_LOG_WARN("meta: controller %d: the state of %s-%d not written: "
                    "%s",
                    bm->b->node_id, k->topic, (int)k->part,
                    gr_meta_rc_name(rc));
    k->again = false; /* the next session, or election, decides anew */
    call_done(k);
}

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
    if (v == NULL || v->type != GR_JSON_INT || v->i < -1 || v->i >= INT32_MAX)
        return -1;
    *out = (int32_t)v->i;
    return 0;
}

static void
state_read(void *arg, int rc, const void *data, size_t len,
           const gr_meta_stat_t *st)
{
    fo_call_t *k = arg;
    struct gr_broker_meta *bm = k->bm;
    gr_partition_t *p = model_partition(bm, k->topic, k->part);
    gr_arena_t *a = NULL;
    const gr_json_t *o;
    int32_t leader, epoch, isr[MAX_REPLICAS], nl, nisr_new[MAX_REPLICAS + 1];
    int nisr, nn;
    char err[64], path[GR_TOPIC_NAME_MAX + 64];
    gr_buf_t js = { 0 };
    gr_meta_op_t op;

    if (rc != GR_META_OK || p == NULL ||
        (!k->leaving && !is_controller(bm)) ||
        (a = gr_arena_new(2048)) == NULL) {
        call_done(k); /* no state yet: make_state's (broker_topics.c) */
        return;
    }
    o = gr_json_parse(a, data, len, err, sizeof err);
    if (o == NULL || json_int(o, "leader", &leader) != 0 ||
        json_int(o, "leader_epoch", &epoch) != 0 || epoch < 0 ||
        (nisr = int_list(gr_json_get(o, "isr"), isr, MAX_REPLICAS)) < 0) {
        GR_LOG_WARN("meta: controller %d: the state of %s-%d is not "
                    "Kafka's; not decided on: \"%.*s\"",
                    bm->b->node_id, k->topic, (int)k->part,
                    (int)(len < 200 ? len : 200), (const char *)data);
        gr_arena_destroy(a);
        call_done(k);
        return;
    }
    gr_arena_destroy(a);
    if (k->leaving ? !decide_leaving(bm, p, leader, isr, nisr, &nl, nisr_new,
                                     &nn)
                   : !decide(bm, p, leader, isr, nisr, k->bounced, &nl,
                             nisr_new, &nn)) {
        call_done(k);
        return;
    }
    gr_buf_printf(&js, "{\"controller_epoch\":%d,\"leader\":%d,"
                       "\"version\":1,\"leader_epoch\":%d,\"isr\":",
                  (int)(k->leaving ? bm->failover->sd_epoch
                                   : bm->controller_epoch),
                  (int)nl, (int)epoch + 1);
    put_ints(&js, nisr_new, nn);
    gr_buf_putc(&js, '}');
    if (js.oom) {
        gr_buf_fini(&js);
        call_done(k);
        return;
    }
    GR_LOG_INFO("meta: %s %d: %s-%d: leader %d -> %d (leader epoch %d), %d "
                "in the ISR%s",
                k->leaving ? "controlled shutdown of" : "controller",
                bm->b->node_id, k->topic, (int)k->part, (int)leader, (int)nl,
                (int)epoch + 1, nn,
                nl < 0 ? ": no live replica of its ISR (offline)" : "");
    snprintf(path, sizeof path, "/brokers/topics/%s/partitions/%d/state",
             k->topic, (int)k->part);
    op = (gr_meta_op_t){ GR_META_OP_SET, path, js.ptr, js.len, 0,
                         st->version };
    if (gr_meta_fenced_multi(bm->m, "/controller_epoch",
                             k->leaving ? bm->failover->sd_version
                                        : bm->epoch_zkversion,
                             &op, 1, written, k) != 0)
        call_done(k);
    gr_buf_fini(&js);
}

static void
read_state(fo_call_t *k)
{
    char path[GR_TOPIC_NAME_MAX + 64];
    snprintf(path, sizeof path, "/brokers/topics/%s/partitions/%d/state",
             k->topic, (int)k->part);
    if (gr_meta_get(k->bm->m, path, NULL, NULL, state_read, k) != 0)
        call_done(k);
}

/* p through the rule on the model's state; read, decided and written
 * when it would change */
static void
check(struct gr_broker_meta *bm, gr_partition_t *p, int32_t bounced)
{
    struct gr_failover *fo = bm->failover;
    int32_t nl, isr[MAX_REPLICAS + 1];
    int nn;
    fo_call_t *k;

    if (!is_controller(bm) || p->leader_epoch < 0 ||
        p->nisr > MAX_REPLICAS || p->nreplicas > MAX_REPLICAS)
        return; /* no state read yet: make_state's */
    if (!decide(bm, p, p->leader, p->isr, p->nisr, bounced, &nl, isr, &nn))
        return;
    if ((k = call_find(fo, p->topic->name, p->id)) != NULL) {
        k->again = true;
        if (bounced >= 0)
            k->bounced = bounced;
        return;
    }
    if ((k = calloc(1, sizeof *k)) == NULL) {
        GR_LOG_WARN("meta: out of memory electing a leader for %s-%d",
                    p->topic->name, (int)p->id);
        return;
    }
    k->bm = bm;
    k->part = p->id;
    k->bounced = bounced;
    snprintf(k->topic, sizeof k->topic, "%s", p->topic->name);
    k->next = fo->calls;
    if (k->next)
        k->next->prev = k;
    fo->calls = k;
    read_state(k);
}

static void
check_all(struct gr_broker_meta *bm, int32_t bounced)
{
    if (!is_controller(bm))
        return;
    for (gr_topic_t *t = bm->b->cluster->topics; t; t = t->lnext)
        for (int32_t i = 0; i < t->nparts; i++)
            check(bm, t->parts[i], bounced);
}

/* --- entry points (broker_meta_int.h) */

int
gr_failover_init(struct gr_broker_meta *bm)
{
    return (bm->failover = calloc(1, sizeof *bm->failover)) != NULL ? 0 : -1;
}

void
gr_failover_fini(struct gr_broker_meta *bm)
{
    struct gr_failover *fo = bm->failover;
    if (fo == NULL)
        return;
    while (fo->calls != NULL)
        call_end(fo->calls);
    free(fo->live);
    free(fo);
    bm->failover = NULL;
}

static int32_t
id_of(const char *name)
{
    char *end;
    long v = strtol(name, &end, 10);
    return *name >= '0' && *name <= '9' && *end == '\0' && v <= INT32_MAX
               ? (int32_t)v
               : -1;
}

void
gr_failover_live(struct gr_broker_meta *bm, const char *const *names, int n)
{
    struct gr_failover *fo = bm->failover;
    live_t *v = calloc((size_t)n + 1, sizeof *v);
    int nv = 0;
    if (fo == NULL)
        return;
    if (v == NULL) {
        GR_LOG_WARN("meta: out of memory reading /brokers/ids");
        return;
    }
    for (int i = 0; i < n; i++) {
        int32_t id = id_of(names[i]);
        if (id < 0)
            continue;
        v[nv].id = id;
        v[nv].czxid = -1;
        for (int j = 0; j < fo->nlive; j++)
            if (fo->live[j].id == id)
                v[nv].czxid = fo->live[j].czxid;
        nv++;
    }
    free(fo->live);
    fo->live = v;
    fo->nlive = nv;
    fo->known = true;
    check_all(bm, -1);
}

void
gr_failover_broker_epoch(struct gr_broker_meta *bm, int32_t id,
                         int64_t czxid)
{
    struct gr_failover *fo = bm->failover;
    if (fo == NULL)
        return;
    for (int i = 0; i < fo->nlive; i++) {
        int64_t had = fo->live[i].czxid;
        if (fo->live[i].id != id)
            continue;
        fo->live[i].czxid = czxid;
        if (had >= 0 && had != czxid) {
            GR_LOG_INFO("meta: node %d: broker %d came back (broker epoch "
                        "%" PRId64 ", was %" PRId64 ")",
                        bm->b->node_id, (int)id, czxid, had);
            check_all(bm, id);
        }
        return;
    }
}

void
gr_failover_controller(struct gr_broker_meta *bm)
{
    check_all(bm, -1);
}

void
gr_failover_partition(struct gr_broker_meta *bm, gr_partition_t *p)
{
    check(bm, p, -1);
}

/* --- leadership applied on this broker */

void
gr_failover_applied(struct gr_broker_meta *bm, gr_partition_t *p,
                    int32_t old_leader, int32_t old_epoch, bool had_log)
{
    gr_broker_t *b = bm->b;
    int32_t self = b->node_id;
    bool was = old_leader == self, is = p->leader == self;

    if (is && had_log && p->log != NULL &&
        (!was || p->leader_epoch != old_epoch)) {
        /* (a log opened just now has its epoch from open_partition) */
        /* Kafka's makeLeader: the new epoch begins at the log end */
        gr_partition_set_leader_epoch(p, p->leader_epoch, self);
        if (!was) {
            GR_LOG_INFO("%s-%d: this broker leads it again (leader epoch "
                        "%d, from offset %" PRId64 ")",
                        p->topic->name, (int)p->id, (int)p->leader_epoch,
                        gr_log_end_offset(p->log));
            if (b->groups != NULL) /* __consumer_offsets: load it */
                gr_groups_partition_added(b->groups, p);
        }
    }
    if (was && !is) {
        GR_LOG_INFO("%s-%d: this broker no longer leads it (leader %d, "
                    "leader epoch %d); its log stays open",
                    p->topic->name, (int)p->id, (int)p->leader,
                    (int)p->leader_epoch);
        /* long polls on it answer (NOT_LEADER_OR_FOLLOWER), and the
         * groups of a __consumer_offsets partition go: NOT_COORDINATOR
         * until it leads again (Kafka's onResignation) */
        gr_partition_gone(b, p);
        if (b->groups != NULL)
            gr_groups_partition_removed(b->groups, p);
    }
}

/* --- controlled shutdown (Kafka's ControlledShutdown, done here) */

static void leaving_pass(struct gr_broker_meta *bm);

static void
leaving_done(struct gr_broker_meta *bm)
{
    struct gr_failover *fo = bm->failover;
    if (fo->sd_failed > 0 &&
        fo->sd_tries <
            atoi(gr_conf_extra_get(bm->b->conf,
                                   "controlled.shutdown.max.retries")
                     ?: "3")) {
        GR_LOG_WARN("meta: controlled shutdown of %d: %d partition(s) not "
                    "moved; again (try %d)",
                    bm->b->node_id, fo->sd_failed, fo->sd_tries + 1);
        leaving_pass(bm);
        return;
    }
    GR_LOG_INFO("meta: controlled shutdown of %d: %d partition state(s) "
                "moved to other brokers, %d led alone (they go with the "
                "session), %d not moved",
                bm->b->node_id, fo->sd_moved, fo->sd_kept, fo->sd_failed);
    fo->leaving = false;
    gr_loop_stop(bm->b->loop);
}

static void
leaving_epoch_read(void *arg, int rc, const void *data, size_t len,
                   const gr_meta_stat_t *st)
{
    struct gr_broker_meta *bm = arg;
    struct gr_failover *fo = bm->failover;
    int32_t self = bm->b->node_id;

    if (rc != GR_META_OK ||
        gr_broker_meta_parse_epoch(data, len, &fo->sd_epoch) != 0) {
        GR_LOG_WARN("meta: controlled shutdown of %d: /controller_epoch "
                    "not read (%s); stopping without it",
                    self, gr_meta_rc_name(rc));
        fo->leaving = false;
        gr_loop_stop(bm->b->loop);
        return;
    }
    fo->sd_version = st->version;
    fo->sd_failed = 0;
    fo->sd_pending = 1; /* this pass, until every call is out */
    for (gr_topic_t *t = bm->b->cluster->topics; t; t = t->lnext)
        for (int32_t i = 0; i < t->nparts; i++) {
            gr_partition_t *p = t->parts[i];
            bool in_isr = false;
            fo_call_t *k;
            for (int j = 0; j < p->nisr; j++)
                in_isr = in_isr || p->isr[j] == self;
            if ((p->leader != self && !in_isr) ||
                (k = calloc(1, sizeof *k)) == NULL)
                continue;
            k->bm = bm;
            k->part = p->id;
            k->bounced = -1;
            k->leaving = true;
            snprintf(k->topic, sizeof k->topic, "%s", t->name);
            k->next = fo->calls;
            if (k->next)
                k->next->prev = k;
            fo->calls = k;
            fo->sd_pending++;
            read_state(k);
        }
    if (--fo->sd_pending == 0)
        leaving_done(bm);
}

static void
leaving_pass(struct gr_broker_meta *bm)
{
    bm->failover->sd_tries++;
    if (gr_meta_get(bm->m, "/controller_epoch", NULL, NULL,
                    leaving_epoch_read, bm) != 0) {
        bm->failover->leaving = false;
        gr_loop_stop(bm->b->loop);
    }
}

int64_t
gr_failover_controlled_shutdown(struct gr_broker_meta *bm)
{
    struct gr_failover *fo = bm->failover;
    const char *en =
        gr_conf_extra_get(bm->b->conf, "controlled.shutdown.enable");
    const char *bo =
        gr_conf_extra_get(bm->b->conf, "controlled.shutdown.retry.backoff.ms");
    const char *mr =
        gr_conf_extra_get(bm->b->conf, "controlled.shutdown.max.retries");
    int32_t self = bm->b->node_id;
    bool any = false;

    if (fo == NULL || bm->broker_epoch < 0 ||
        (en != NULL && strcmp(en, "false") == 0))
        return 0;
    for (gr_topic_t *t = bm->b->cluster->topics; t && !any; t = t->lnext)
        for (int32_t i = 0; i < t->nparts && !any; i++) {
            const gr_partition_t *p = t->parts[i];
            any = p->leader == self && p->nisr > 1;
            for (int j = 0; j < p->nisr && !any; j++)
                any = p->isr[j] == self && p->leader != self;
        }
    if (!any)
        return 0; /* nothing another broker could take */
    GR_LOG_INFO("meta: controlled shutdown of %d: moving its partitions "
                "before it stops",
                self);
    fo->leaving = true;
    fo->sd_tries = 0;
    leaving_pass(bm);
    /* Kafka's bound: its retries, each a backoff apart */
    return ((mr ? atoll(mr) : 3) + 1) * (bo ? atoll(bo) : 5000);
}
