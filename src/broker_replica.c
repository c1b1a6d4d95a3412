/*
 * The follower side of replication (cluster mode), as Kafka's
 * ReplicaFetcherManager / AbstractFetcherThread / ReplicaFetcherThread
 * speak it (cluster-zookeeper.md 2.4 and 4.5):
 *
 *   - a broker that is a replica of a partition but not its leader opens
 *     the partition's log (the directory made on a worker) and fetches it
 *     from the leader: one fetcher, one connection, per leader broker (to
 *     its inter-broker listener's endpoint in /brokers/ids). Kafka's
 *     num.replica.fetchers spreads a leader's partitions over several
 *     connections; one is enough here (the key is read, not used);
 *   - each fetch is Kafka's: Fetch at the newest version Gregor serves
 *     (ReplicaState {broker id, broker epoch}, v15+), sessionless
 *     (session 0, epoch -1: a full fetch each time), per partition the
 *     log end offset as FetchOffset, the leader epoch the state gave as
 *     CurrentLeaderEpoch, the cache's latest epoch as LastFetchedEpoch,
 *     the log start; replica.fetch.wait.max.ms, .min.bytes, .max.bytes,
 *     .response.max.bytes; replica.fetch.backoff.ms after an error;
 *   - the records are appended as the leader wrote them (offsets and
 *     epochs kept: gr_partition_append_follower), the high watermark is
 *     min(log end, the leader's);
 *   - truncation by leader epoch, never by high watermark (KIP-101,
 *     KIP-279): a partition newly followed (or whose leader epoch moved)
 *     whose log has an epoch asks the leader for the end of its latest
 *     epoch (OffsetForLeaderEpoch v4) and cuts its log to min(log end,
 *     that end); a Fetch answer's DivergingEpoch (KAFKA-10554) cuts the
 *     same way, to min(its end offset, the end this log has for that
 *     epoch); OFFSET_OUT_OF_RANGE asks the leader's log start
 *     (ListOffsets EARLIEST): below it the log starts afresh there
 *     (Kafka's truncateFullyAndStartAt), and at the batch holding it
 *     when the leader's first batch begins before; else the epochs cut.
 *
 * A peer's bad answer (undecodable, a corrupt batch, an offset behind the
 * log end) is a logged error and a backoff for the partition or the
 * connection, never a crash. Loop thread only.
 */
#include "broker_replica.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/dispatch.h"
#include "broker_meta_int.h"
#include "core/conf.h"
#include "core/log.h"
#include "core/time.h"
#include "log/log.h"
#include "log/producer_state.h"
#include "net/client.h"
#include "partition/partition.h"
#include "proto/gen/api_keys.h"
#include "proto/gen/fetch.h"
#include "proto/gen/list_offsets.h"
#include "proto/gen/offset_for_leader_epoch.h"
#include "proto/proto.h"

#define OFLE_VERSION 4 /* OffsetForLeaderEpoch: ReplicaId v3+, flexible v4 */
#define LIST_VERSION 7 /* ListOffsets: flexible v6+ */

enum part_state {
    P_OPENING,    /* its log is being made (a worker) */
    P_TRUNCATING, /* OffsetForLeaderEpoch first */
    P_FETCHING,
    P_LISTING,    /* out of the leader's range: its log start (ListOffsets) */
    P_FAILED,     /* its log could not be opened: nothing more */
};

typedef struct fetcher fetcher_t;

/* A partition this broker follows. */
typedef struct rpart {
    struct rpart *next;
    gr_replicas_t *r;
    fetcher_t *f; /* its leader's fetcher; NULL while opening */
    gr_uuid_t topic_id;
    int32_t partition;
    int32_t leader, leader_epoch; /* as last applied */
    int state;
    bool in_request; /* part of the request in flight */
    int64_t sent_offset;  /* the fetch offset it asked for */
    int64_t backoff_until_us;
    gr_log_prep_t prep;   /* while opening */
    bool prep_abandoned;  /* gone while its directory was being made */
} rpart_t;

enum { REQ_NONE, REQ_FETCH, REQ_OFLE, REQ_LIST };

struct fetcher {
    fetcher_t *next;
    gr_replicas_t *r;
    int32_t leader;
    char host[256];
    int32_t port;
    gr_client_t *cl;
    bool connecting;
    int req;          /* the request in flight */
    int16_t req_ver;
    int32_t corr;
    gr_timer_t timer; /* backoff, reconnect, next round */
    int64_t reconnect_at_us;
};

struct gr_replicas {
    gr_broker_t *b;
    rpart_t *parts;
    fetcher_t *fetchers;
    char listener[64];
    int32_t wait_ms, min_bytes, max_bytes, resp_max_bytes;
    int64_t backoff_ms;
    int16_t fetch_ver;
};

static void fetcher_kick(fetcher_t *f);
static int restart_at(struct rpart *rp, gr_partition_t *p, int64_t offset,
                      const char *why);
static void part_attach(gr_replicas_t *r, rpart_t *rp, gr_partition_t *p);

/* --- helpers */

static gr_partition_t *
part_model(gr_replicas_t *r, const rpart_t *rp)
{
    gr_topic_t *t = gr_cluster_topic_by_id(r->b->cluster, &rp->topic_id);
    return t != NULL && rp->partition < t->nparts ? t->parts[rp->partition]
                                                  : NULL;
}

static bool
is_replica(const gr_partition_t *p, int32_t id)
{
    for (int32_t i = 0; i < p->nreplicas; i++)
        if (p->replicas[i] == id)
            return true;
    return false;
}

static rpart_t *
part_find(gr_replicas_t *r, const gr_partition_t *p)
{
    for (rpart_t *rp = r->parts; rp; rp = rp->next)
        if (rp->partition == p->id && gr_uuid_eq(&rp->topic_id, &p->topic->id))
            return rp;
    return NULL;
}

static void
backoff(rpart_t *rp)
{
    rp->backoff_until_us = gr_mono_us() + rp->r->backoff_ms * 1000;
}

/* The leader's endpoint on the inter-broker listener: 0 or -1. */
static int
leader_endpoint(gr_replicas_t *r, int32_t leader, char *host, size_t cap,
                int32_t *port)
{
    const gr_node_t *n = gr_cluster_node(r->b->cluster, leader);
    if (n == NULL)
        return -1;
    for (int i = 0; i < n->nendpoints; i++)
        if (strcmp(n->endpoints[i].listener, r->listener) == 0) {
            snprintf(host, cap, "%s", n->endpoints[i].host);
            *port = n->endpoints[i].port;
            return 0;
        }
    return -1;
}

/* --- decoding a peer's answer (fuzzed: tests/fuzz/fuzz_replica.c) */

int
gr_replica_decode_response(int16_t key, int16_t ver, const uint8_t *frame,
                           size_t n, gr_arena_t *a, int32_t *corr, void *out)
{
    gr_reader_t rd = gr_reader_init(frame, n);
    int rc;
    rd.mem_left = (uint64_t)n * 8 + 65536; /* arrays a frame can hold */
    *corr = gr_rd_i32(&rd);
    if (gr_proto_resp_header_version(key, ver) >= 1)
        gr_rd_skip_tags(&rd);
    if (rd.err)
        return -1;
    if (key == GR_API_FETCH)
        rc = gr_fetch_response_decode(&rd, ver, a, out);
    else if (key == GR_API_LIST_OFFSETS)
        rc = gr_list_offsets_response_decode(&rd, ver, a, out);
    else if (key == GR_API_OFFSET_FOR_LEADER_EPOCH)
        rc = gr_offset_for_leader_epoch_response_decode(&rd, ver, a, out);
    else
        return -1;
    return rc != 0 || rd.err ? -1 : 0;
}

/* --- the log: opened on a worker, then on the loop */

static void
part_free(rpart_t *rp)
{
    free(rp->prep.topic);
    free(rp);
}

static void
part_unlink(gr_replicas_t *r, rpart_t *rp)
{
    for (rpart_t **pp = &r->parts; *pp; pp = &(*pp)->next)
        if (*pp == rp) {
            *pp = rp->next;
            break;
        }
    rp->next = NULL;
}

static void
log_opened(gr_replicas_t *r, rpart_t *rp, gr_partition_t *p)
{
    gr_broker_t *b = r->b;
    gr_log_config_t cfg;
    gr_err_t err = 0;

    gr_broker_log_config(b, p->topic, &cfg);
    p->log = gr_log_open(b->logs, p->topic->name, p->id, &p->topic->id, &cfg,
                         &err);
    if (p->log == NULL) {
        GR_LOG_ERROR("%s-%d: this broker follows it but its log could not be "
                     "opened: %s",
                     p->topic->name, (int)p->id, gr_err_str(err));
        rp->state = P_FAILED;
        return;
    }
    /* a follower: the high watermark is the checkpointed one, at most
     * the log end, until the leader says more */
    p->high_watermark = 0;
    gr_partition_follower_hw(p, INT64_MAX);
    p->stats.leo_base = gr_log_end_offset(p->log);
    p->pstate = gr_pstate_new(p->topic->name, p->id);
    if (p->pstate == NULL || gr_pstate_load(p->pstate, p->log) != 0)
        GR_LOG_WARN("%s-%d: producer state could not be rebuilt",
                    p->topic->name, (int)p->id);
    GR_LOG_INFO("%s-%d: follower of %d, log end %" PRId64
                ", latest leader epoch %d",
                p->topic->name, (int)p->id, (int)p->leader,
                gr_log_end_offset(p->log), (int)gr_log_leader_epoch(p->log));
    part_attach(r, rp, p);
}

static void
prep_done(gr_loop_t *loop, void *arg)
{
    rpart_t *rp = arg;
    gr_replicas_t *r = rp->r;
    gr_partition_t *p;
    (void)loop;

    if (rp->prep_abandoned || r == NULL) {
        if (r != NULL && !r->b->stopping)
            gr_logs_prepared_unused(r->b->logs, &rp->prep);
        part_free(rp);
        return;
    }
    p = part_model(r, rp);
    if (p == NULL || r->b->stopping) {
        part_unlink(r, rp);
        if (!r->b->stopping)
            gr_logs_prepared_unused(r->b->logs, &rp->prep);
        part_free(rp);
        return;
    }
    if (rp->prep.err != 0)
        GR_LOG_WARN("%s-%d: making its directory on a worker failed (%s); "
                    "trying on the loop",
                    p->topic->name, (int)p->id, strerror(rp->prep.err));
    if (p->log != NULL) /* opened meanwhile (leader) */
        part_attach(r, rp, p);
    else
        log_opened(r, rp, p);
}

/* --- fetchers */

static fetcher_t *
fetcher_get(gr_replicas_t *r, int32_t leader)
{
    fetcher_t *f;
    for (f = r->fetchers; f; f = f->next)
        if (f->leader == leader)
            return f;
    return NULL;
}

static void fetcher_timer(gr_loop_t *loop, gr_timer_t *t);
static void on_connected(void *arg);
static void on_frame(void *arg, const uint8_t *p, size_t n);
static void on_closed(void *arg, int err);

static fetcher_t *
fetcher_new(gr_replicas_t *r, int32_t leader)
{
    fetcher_t *f = calloc(1, sizeof *f);
    gr_client_hooks_t h = { on_connected, on_frame, on_closed, NULL };
    if (f == NULL)
        return NULL;
    h.arg = f;
    f->r = r;
    f->leader = leader;
    f->cl = gr_client_new(r->b->loop, r->b->workers, &h,
                          (size_t)r->resp_max_bytes + (16u << 20));
    if (f->cl == NULL) {
        free(f);
        return NULL;
    }
    gr_timer_init(&f->timer, fetcher_timer, f);
    f->next = r->fetchers;
    r->fetchers = f;
    return f;
}

static void
fetcher_free(fetcher_t *f, bool now)
{
    gr_replicas_t *r = f->r;
    for (fetcher_t **pp = &r->fetchers; *pp; pp = &(*pp)->next)
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    gr_timer_stop(r->b->loop, &f->timer);
    if (now)
        gr_client_free_now(f->cl);
    else
        gr_client_free(f->cl); /* its socket's event may be pending */
    free(f);
}

static bool
fetcher_used(const fetcher_t *f)
{
    for (rpart_t *rp = f->r->parts; rp; rp = rp->next)
        if (rp->f == f)
            return true;
    return false;
}

/* The connection is dropped: what was in flight is forgotten. */
static void
fetcher_disconnect(fetcher_t *f)
{
    gr_client_close(f->cl);
    f->connecting = false;
    f->req = REQ_NONE;
    for (rpart_t *rp = f->r->parts; rp; rp = rp->next)
        if (rp->f == f)
            rp->in_request = false;
}

/* p follows leader now: into that leader's fetcher. */
static void
part_attach(gr_replicas_t *r, rpart_t *rp, gr_partition_t *p)
{
    fetcher_t *f = fetcher_get(r, p->leader), *old = rp->f;

    if (f == NULL && (f = fetcher_new(r, p->leader)) == NULL) {
        GR_LOG_ERROR("%s-%d: out of memory starting its fetcher",
                     p->topic->name, (int)p->id);
        return;
    }
    rp->f = f;
    rp->leader = p->leader;
    rp->leader_epoch = p->leader_epoch;
    rp->in_request = false;
    rp->backoff_until_us = 0;
    /* Kafka's makeFollower: truncate first when the log knows an epoch */
    rp->state = gr_log_leader_epoch(p->log) >= 0 ? P_TRUNCATING : P_FETCHING;
    if (old != NULL && old != f && !fetcher_used(old))
        fetcher_free(old, false);
    fetcher_kick(f);
}

static void
part_drop(gr_replicas_t *r, rpart_t *rp)
{
    fetcher_t *f = rp->f;
    part_unlink(r, rp);
    if (rp->state == P_OPENING) {
        rp->prep_abandoned = true; /* prep_done frees it */
        return;
    }
    if (f != NULL && rp->in_request)
        fetcher_disconnect(f); /* its answer would be about nobody */
    part_free(rp);
    if (f != NULL && !fetcher_used(f))
        fetcher_free(f, false);
    else if (f != NULL)
        fetcher_kick(f);
}

/* --- requests */

static int
send_frame(fetcher_t *f, int16_t key, int16_t ver, const void *body,
           size_t (*size)(const void *, int16_t),
           void (*enc)(gr_writer_t *, const void *, int16_t))
{
    gr_req_header_t h;
    size_t hn, bn, total;
    uint8_t *buf;
    gr_writer_t w;
    int rc;

    memset(&h, 0, sizeof h);
    h.api_key = key;
    h.api_version = ver;
    h.correlation_id = ++f->corr;
    h.client_id = gr_str_c("gregor-replica-fetcher");
    hn = gr_req_header_size(&h);
    bn = size(body, ver);
    total = 4 + hn + bn;
    if ((buf = malloc(total)) == NULL)
        return -1;
    w = gr_writer_init(buf, total, NULL);
    gr_wr_i32(&w, (int32_t)(hn + bn));
    gr_req_header_encode(&w, &h);
    enc(&w, body, ver);
    rc = w.err || (size_t)(w.p - buf) != total
             ? -1
             : gr_client_send(f->cl, buf, total);
    free(buf);
    if (rc == 0) {
        f->req = key == GR_API_FETCH   ? REQ_FETCH
                 : key == GR_API_LIST_OFFSETS ? REQ_LIST
                                              : REQ_OFLE;
        f->req_ver = ver;
    }
    return rc;
}

static size_t
fetch_size(const void *m, int16_t v)
{
    return gr_fetch_request_size(m, v);
}
static void
fetch_enc(gr_writer_t *w, const void *m, int16_t v)
{
    gr_fetch_request_encode(w, m, v);
}
static size_t
ofle_size(const void *m, int16_t v)
{
    return gr_offset_for_leader_epoch_request_size(m, v);
}
static void
ofle_enc(gr_writer_t *w, const void *m, int16_t v)
{
    gr_offset_for_leader_epoch_request_encode(w, m, v);
}

static size_t
list_size(const void *m, int16_t v)
{
    return gr_list_offsets_request_size(m, v);
}
static void
list_enc(gr_writer_t *w, const void *m, int16_t v)
{
    gr_list_offsets_request_encode(w, m, v);
}

/* Ready to be asked about now: 0, else when (mono us; INT64_MAX never). */
static int64_t
part_ready(const rpart_t *rp, int state, int64_t now)
{
    if (rp->state != state)
        return INT64_MAX;
    return rp->backoff_until_us > now ? rp->backoff_until_us : 0;
}

/* OffsetForLeaderEpoch for the partitions truncating: 1 sent, 0 none,
 * -1 failed. One topic entry per partition (topics may repeat). */
static int
send_ofle(fetcher_t *f, int64_t now, int64_t *next)
{
    gr_replicas_t *r = f->r;
    gr_offset_for_leader_epoch_request_t rq;
    gr_offset_for_leader_epoch_request_offset_for_leader_topic_t *tv;
    gr_offset_for_leader_epoch_request_offset_for_leader_partition_t *pv;
    int n = 0, k = 0, rc;

    /* the ready ones; the others' backoff ends bound the next round
     * (none ready: no request, and the round's timer is all that comes
     * back to them) */
    for (rpart_t *rp = r->parts; rp; rp = rp->next) {
        int64_t t;
        if (rp->f != f)
            continue;
        if ((t = part_ready(rp, P_TRUNCATING, now)) == 0)
            n++;
        else if (t < *next)
            *next = t;
    }
    if (n == 0)
        return 0;
    tv = calloc((size_t)n, sizeof *tv);
    pv = calloc((size_t)n, sizeof *pv);
    if (tv == NULL || pv == NULL) {
        free(tv);
        free(pv);
        return -1;
    }
    for (rpart_t *rp = r->parts; rp && k < n; rp = rp->next) {
        gr_partition_t *p;
        int64_t t;
        if (rp->f != f || (t = part_ready(rp, P_TRUNCATING, now)) != 0) {
            if (rp->f == f && t < *next)
                *next = t;
            continue;
        }
        p = part_model(r, rp);
        if (p == NULL || p->log == NULL)
            continue;
        gr_offset_for_leader_epoch_request_offset_for_leader_topic_init(&tv[k]);
        gr_offset_for_leader_epoch_request_offset_for_leader_partition_init(
            &pv[k]);
        tv[k].topic = gr_str_c(p->topic->name);
        tv[k].partitions = &pv[k];
        tv[k].partitions_cnt = 1;
        pv[k].partition = p->id;
        pv[k].current_leader_epoch = rp->leader_epoch;
        pv[k].leader_epoch = gr_log_leader_epoch(p->log);
        rp->in_request = true;
        k++;
    }
    gr_offset_for_leader_epoch_request_init(&rq);
    rq.replica_id = r->b->node_id;
    rq.topics = tv;
    rq.topics_cnt = k;
    rc = k == 0 ? 0
                : send_frame(f, GR_API_OFFSET_FOR_LEADER_EPOCH, OFLE_VERSION,
                             &rq, ofle_size, ofle_enc) == 0
                      ? 1
                      : -1;
    free(tv);
    free(pv);
    return rc;
}

/* ListOffsets (EARLIEST) for the partitions out of range (Kafka's
 * fetchEarliestOffsetFromLeader): 1 sent, 0 none, -1 failed. */
static int
send_list(fetcher_t *f, int64_t now, int64_t *next)
{
    gr_replicas_t *r = f->r;
    gr_list_offsets_request_t rq;
    gr_list_offsets_request_list_offsets_topic_t *tv;
    gr_list_offsets_request_list_offsets_partition_t *pv;
    int n = 0, k = 0, rc;

    /* the ready ones; the others' backoff ends bound the next round
     * (none ready: no request, and the round's timer is all that comes
     * back to them) */
    for (rpart_t *rp = r->parts; rp; rp = rp->next) {
        int64_t t;
        if (rp->f != f)
            continue;
        if ((t = part_ready(rp, P_LISTING, now)) == 0)
            n++;
        else if (t < *next)
            *next = t;
    }
    if (n == 0)
        return 0;
    tv = calloc((size_t)n, sizeof *tv);
    pv = calloc((size_t)n, sizeof *pv);
    if (tv == NULL || pv == NULL) {
        free(tv);
        free(pv);
        return -1;
    }
    for (rpart_t *rp = r->parts; rp && k < n; rp = rp->next) {
        gr_partition_t *p;
        int64_t t;
        if (rp->f != f || (t = part_ready(rp, P_LISTING, now)) != 0) {
            if (rp->f == f && t < *next)
                *next = t;
            continue;
        }
        p = part_model(r, rp);
        if (p == NULL || p->log == NULL)
            continue;
        gr_list_offsets_request_list_offsets_topic_init(&tv[k]);
        gr_list_offsets_request_list_offsets_partition_init(&pv[k]);
        tv[k].name = gr_str_c(p->topic->name);
        tv[k].partitions = &pv[k];
        tv[k].partitions_cnt = 1;
        pv[k].partition_index = p->id;
        pv[k].current_leader_epoch = rp->leader_epoch;
        pv[k].timestamp = -2; /* EARLIEST */
        rp->in_request = true;
        k++;
    }
    gr_list_offsets_request_init(&rq);
    rq.replica_id = r->b->node_id;
    rq.isolation_level = 0;
    rq.topics = tv;
    rq.topics_cnt = k;
    rc = k == 0 ? 0
                : send_frame(f, GR_API_LIST_OFFSETS, LIST_VERSION, &rq,
                             list_size, list_enc) == 0
                      ? 1
                      : -1;
    free(tv);
    free(pv);
    return rc;
}

/* A Fetch for the partitions fetching: 1 sent, 0 none, -1 failed. */
static int
send_fetch(fetcher_t *f, int64_t now, int64_t *next)
{
    gr_replicas_t *r = f->r;
    gr_fetch_request_t rq;
    gr_fetch_request_fetch_topic_t *tv;
    gr_fetch_request_fetch_partition_t *pv;
    int n = 0, k = 0, rc;
    int16_t ver = r->fetch_ver;

    /* the ready ones; the others' backoff ends bound the next round
     * (none ready: no request, and the round's timer is all that comes
     * back to them) */
    for (rpart_t *rp = r->parts; rp; rp = rp->next) {
        int64_t t;
        if (rp->f != f)
            continue;
        if ((t = part_ready(rp, P_FETCHING, now)) == 0)
            n++;
        else if (t < *next)
            *next = t;
    }
    if (n == 0)
        return 0;
    tv = calloc((size_t)n, sizeof *tv);
    pv = calloc((size_t)n, sizeof *pv);
    if (tv == NULL || pv == NULL) {
        free(tv);
        free(pv);
        return -1;
    }
    for (rpart_t *rp = r->parts; rp && k < n; rp = rp->next) {
        gr_partition_t *p;
        int64_t t;
        if (rp->f != f || (t = part_ready(rp, P_FETCHING, now)) != 0) {
            if (rp->f == f && t < *next)
                *next = t;
            continue;
        }
        p = part_model(r, rp);
        if (p == NULL || p->log == NULL)
            continue;
        gr_fetch_request_fetch_topic_init(&tv[k]);
        gr_fetch_request_fetch_partition_init(&pv[k]);
        tv[k].topic = gr_str_c(p->topic->name); /* v12 and older */
        tv[k].topic_id = p->topic->id;          /* v13+ */
        tv[k].partitions = &pv[k];
        tv[k].partitions_cnt = 1;
        pv[k].partition = p->id;
        pv[k].current_leader_epoch = rp->leader_epoch;
        pv[k].fetch_offset = gr_log_end_offset(p->log);
        pv[k].last_fetched_epoch = gr_log_leader_epoch(p->log);
        pv[k].log_start_offset = gr_log_start_offset(p->log);
        pv[k].partition_max_bytes = r->max_bytes;
        pv[k].high_watermark = p->high_watermark; /* v18 */
        rp->sent_offset = pv[k].fetch_offset;
        rp->in_request = true;
        k++;
    }
    gr_fetch_request_init(&rq);
    rq.replica_id = r->b->node_id; /* v14 and older */
    rq.replica_state.replica_id = r->b->node_id;
    rq.replica_state.replica_epoch =
        r->b->meta != NULL ? r->b->meta->broker_epoch : -1;
    rq.max_wait_ms = r->wait_ms;
    rq.min_bytes = r->min_bytes;
    rq.max_bytes = r->resp_max_bytes;
    rq.isolation_level = 0;
    rq.session_id = 0;
    rq.session_epoch = -1; /* no session: a full fetch every time */
    rq.topics = tv;
    rq.topics_cnt = k;
    rq.forgotten_topics_data_cnt = 0;
    rc = k == 0 ? 0
                : send_frame(f, GR_API_FETCH, ver, &rq, fetch_size,
                             fetch_enc) == 0
                      ? 1
                      : -1;
    free(tv);
    free(pv);
    return rc;
}

/* Connect, or send the next request, or wait for the next backoff. */
static void
fetcher_round(fetcher_t *f)
{
    gr_replicas_t *r = f->r;
    int64_t now = gr_mono_us(), next = INT64_MAX;
    char host[256];
    int32_t port = -1;
    int rc;

    if (r->b->stopping)
        return;
    /* partitions whose topic went (deleted): forgotten */
    for (rpart_t *rp = r->parts, *nx; rp; rp = nx) {
        nx = rp->next;
        if (rp->f == f && !rp->in_request && rp->state != P_OPENING &&
            part_model(r, rp) == NULL) {
            part_unlink(r, rp);
            part_free(rp);
        }
    }
    if (!fetcher_used(f)) { /* kept for a partition to come (freed only
                               * outside the client's callbacks) */
        fetcher_disconnect(f);
        return;
    }
    if (!gr_client_up(f->cl)) {
        if (f->connecting)
            return;
        if (f->reconnect_at_us > now) {
            gr_timer_start(r->b->loop, &f->timer,
                           (f->reconnect_at_us - now) / 1000 + 1);
            return;
        }
        if (leader_endpoint(r, f->leader, host, sizeof host, &port) != 0) {
            /* not registered (yet, or gone): the brokers' change wakes us */
            f->reconnect_at_us = now + r->backoff_ms * 1000;
            gr_timer_start(r->b->loop, &f->timer, r->backoff_ms);
            return;
        }
        snprintf(f->host, sizeof f->host, "%s", host);
        f->port = port;
        if (gr_client_connect(f->cl, host, port) != 0) {
            f->reconnect_at_us = now + r->backoff_ms * 1000;
            gr_timer_start(r->b->loop, &f->timer, r->backoff_ms);
            return;
        }
        f->connecting = true;
        return;
    }
    if (f->req != REQ_NONE)
        return;
    rc = send_ofle(f, now, &next);
    if (rc == 0)
        rc = send_list(f, now, &next);
    if (rc == 0)
        rc = send_fetch(f, now, &next);
    if (rc < 0) {
        GR_LOG_WARN("replica fetcher for broker %d: cannot send a request; "
                    "reconnecting",
                    (int)f->leader);
        fetcher_disconnect(f);
        f->reconnect_at_us = now + r->backoff_ms * 1000;
        gr_timer_start(r->b->loop, &f->timer, r->backoff_ms);
        return;
    }
    if (rc == 0 && next != INT64_MAX)
        gr_timer_start(r->b->loop, &f->timer,
                       next > now ? (next - now) / 1000 + 1 : 0);
}

static void
fetcher_timer(gr_loop_t *loop, gr_timer_t *t)
{
    (void)loop;
    fetcher_round(t->data);
}

static void
fetcher_kick(fetcher_t *f)
{
    if (f->req == REQ_NONE)
        gr_timer_start(f->r->b->loop, &f->timer, 0);
}

static void
on_connected(void *arg)
{
    fetcher_t *f = arg;
    f->connecting = false;
    GR_LOG_INFO("replica fetcher: node %d connected to leader %d at %s:%d",
                (int)f->r->b->node_id, (int)f->leader, f->host, (int)f->port);
    fetcher_round(f);
}

static void
on_closed(void *arg, int err)
{
    fetcher_t *f = arg;
    gr_replicas_t *r = f->r;
    GR_LOG_WARN("replica fetcher: the connection to leader %d (%s:%d) "
                "closed: %s; again in %" PRId64 " ms",
                (int)f->leader, f->host, (int)f->port, strerror(err),
                r->backoff_ms);
    fetcher_disconnect(f);
    f->reconnect_at_us = gr_mono_us() + r->backoff_ms * 1000;
    gr_timer_start(r->b->loop, &f->timer, r->backoff_ms);
}

/* --- answers */

static rpart_t *
part_in_request(fetcher_t *f, const gr_uuid_t *id, const gr_str_t *name,
                int32_t partition)
{
    for (rpart_t *rp = f->r->parts; rp; rp = rp->next) {
        gr_partition_t *p;
        if (rp->f != f || !rp->in_request || rp->partition != partition)
            continue;
        if (id != NULL && gr_uuid_eq(&rp->topic_id, id))
            return rp;
        if (name != NULL && (p = part_model(f->r, rp)) != NULL &&
            gr_str_eq_cstr(name, p->topic->name))
            return rp;
    }
    return NULL;
}

/* Truncates p's log to offset (Kafka's truncateTo): the producer state
 * is rebuilt from the log; the fetch restarts at the new end. */
static int
truncate_to(rpart_t *rp, gr_partition_t *p, int64_t offset, const char *why)
{
    int64_t leo = gr_log_end_offset(p->log);
    gr_err_t err;

    if (offset >= leo) {
        int32_t e0 = gr_log_leader_epoch(p->log);
        /* the epoch cache still loses what starts at the log end */
        (void)gr_log_truncate_to(p->log, offset);
        GR_LOG_INFO("%s-%d: %s: nothing to truncate (log end %" PRId64
                    ", leader's end %" PRId64 ")%s",
                    p->topic->name, (int)p->id, why, leo, offset,
                    gr_log_leader_epoch(p->log) != e0
                        ? "; epochs starting at the log end dropped"
                        : "");
        return 0;
    }
    err = gr_log_truncate_to(p->log, offset);
    if (err != 0) {
        GR_LOG_ERROR("%s-%d: truncating to %" PRId64 " failed: %s",
                     p->topic->name, (int)p->id, offset, gr_err_str(err));
        backoff(rp);
        return -1;
    }
    GR_LOG_INFO("%s-%d: %s: truncated from %" PRId64 " to %" PRId64,
                p->topic->name, (int)p->id, why, leo,
                gr_log_end_offset(p->log));
    gr_pstate_destroy(p->pstate);
    p->pstate = gr_pstate_new(p->topic->name, p->id);
    if (p->pstate == NULL || gr_pstate_load(p->pstate, p->log) != 0)
        GR_LOG_WARN("%s-%d: producer state could not be rebuilt",
                    p->topic->name, (int)p->id);
    if (p->high_watermark > gr_log_end_offset(p->log))
        gr_partition_follower_hw(p, p->high_watermark);
    return 0;
}

static void
fetch_partition(fetcher_t *f, rpart_t *rp,
                const gr_fetch_response_partition_data_t *d)
{
    gr_partition_t *p = part_model(f->r, rp);
    const char *why = NULL;
    size_t used = 0;
    gr_kerr_t k;

    rp->in_request = false;
    if (p == NULL || p->log == NULL || rp->state != P_FETCHING ||
        gr_log_end_offset(p->log) != rp->sent_offset)
        return; /* changed meanwhile: the next round asks again */
    switch (d->error_code) {
    case GR_KERR_NONE:
        break;
    case GR_KERR_OFFSET_OUT_OF_RANGE:
        /* Kafka's handleOutOfRangeError: the leader's log start first;
         * below it the log restarts there, else the epochs say where we
         * diverged */
        GR_LOG_INFO("%s-%d: fetch offset %" PRId64 " out of leader %d's "
                    "range: asking for its log start",
                    p->topic->name, (int)p->id, rp->sent_offset,
                    (int)f->leader);
        rp->state = P_LISTING;
        return;
    default:
        /* NOT_LEADER_OR_FOLLOWER, FENCED/UNKNOWN_LEADER_EPOCH, unknown
         * topic...: the state in ZooKeeper moves us; until then, wait */
        GR_LOG_DEBUG("%s-%d: fetch from %d: %s", p->topic->name, (int)p->id,
                     (int)f->leader, gr_kerr_name(d->error_code));
        backoff(rp);
        return;
    }
    if (d->diverging_epoch.epoch >= 0 && d->diverging_epoch.end_offset >= 0) {
        /* KAFKA-10554: truncate to min(the leader's end of that epoch,
         * ours) */
        int32_t e;
        int64_t end;
        gr_log_epoch_end_offset(p->log, d->diverging_epoch.epoch, &e, &end);
        if (end < 0 || d->diverging_epoch.end_offset < end)
            end = d->diverging_epoch.end_offset;
        (void)truncate_to(rp, p, end, "diverging epoch");
        return;
    }
    if (d->records.len >= GR_BATCH_HEADER_SIZE && d->records.ptr != NULL &&
        gr_log_end_offset(p->log) == gr_log_start_offset(p->log)) {
        /* an empty log started inside the leader's first batch (its log
         * start): it restarts at that batch (Kafka's
         * appendRecordsToFollowerOrFutureReplica on
         * UnexpectedAppendOffsetException) */
        gr_batch_hdr_t h;
        int64_t leo = gr_log_end_offset(p->log);
        gr_batch_hdr_parse(d->records.ptr, &h);
        if (h.base_offset < leo && gr_batch_last_offset(&h) >= leo &&
            restart_at(rp, p, h.base_offset,
                       "inside the leader's first batch") != 0)
            return;
    }
    if (d->records.len > 0 && d->records.ptr != NULL) {
        k = gr_partition_append_follower(p, d->records.ptr,
                                         (size_t)d->records.len,
                                         d->high_watermark, &used, &why);
        if (k != GR_KERR_NONE) {
            GR_LOG_ERROR("%s-%d: the records fetched from leader %d at %" PRId64
                         " were not appended: %s%s%s",
                         p->topic->name, (int)p->id, (int)f->leader,
                         rp->sent_offset, gr_kerr_name(k), why ? ": " : "",
                         why ? why : "");
            backoff(rp);
            return;
        }
    } else {
        gr_partition_follower_hw(p, d->high_watermark);
    }
}

static void
fetch_answer(fetcher_t *f, const gr_fetch_response_t *rs)
{
    if (rs->error_code != GR_KERR_NONE) {
        GR_LOG_WARN("replica fetcher: leader %d answers the fetch with %s",
                    (int)f->leader, gr_kerr_name(rs->error_code));
        for (rpart_t *rp = f->r->parts; rp; rp = rp->next)
            if (rp->f == f && rp->in_request)
                backoff(rp);
    }
    for (int32_t i = 0; i < rs->responses_cnt; i++) {
        const gr_fetch_response_fetchable_topic_response_t *t =
            &rs->responses[i];
        for (int32_t j = 0; j < t->partitions_cnt; j++) {
            const gr_fetch_response_partition_data_t *d = &t->partitions[j];
            rpart_t *rp = f->req_ver >= 13
                              ? part_in_request(f, &t->topic_id, NULL,
                                                d->partition_index)
                              : part_in_request(f, NULL, &t->topic,
                                                d->partition_index);
            if (rp != NULL)
                fetch_partition(f, rp, d);
        }
    }
}

static void
ofle_answer(fetcher_t *f, const gr_offset_for_leader_epoch_response_t *rs)
{
    for (int32_t i = 0; i < rs->topics_cnt; i++) {
        const gr_offset_for_leader_epoch_response_offset_for_leader_topic_result_t
            *t = &rs->topics[i];
        for (int32_t j = 0; j < t->partitions_cnt; j++) {
            const gr_offset_for_leader_epoch_response_epoch_end_offset_t *d =
                &t->partitions[j];
            rpart_t *rp = part_in_request(f, NULL, &t->topic, d->partition);
            gr_partition_t *p;
            if (rp == NULL)
                continue;
            rp->in_request = false;
            p = part_model(f->r, rp);
            if (p == NULL || p->log == NULL || rp->state != P_TRUNCATING)
                continue;
            if (d->error_code != GR_KERR_NONE) {
                GR_LOG_DEBUG("%s-%d: OffsetForLeaderEpoch from %d: %s",
                             p->topic->name, (int)p->id, (int)f->leader,
                             gr_kerr_name(d->error_code));
                backoff(rp);
                continue;
            }
            if (d->end_offset >= 0) {
                /* KIP-279: the leader's end for the largest epoch <= ours;
                 * when that epoch is below ours, our own end for it */
                int64_t end = d->end_offset;
                int32_t e;
                int64_t mine;
                gr_log_epoch_end_offset(p->log, d->leader_epoch, &e, &mine);
                if (mine >= 0 && mine < end)
                    end = mine;
                if (truncate_to(rp, p, end, "leader epoch") != 0)
                    continue; /* again after the backoff */
            } else {
                /* the leader knows no epoch at or below ours: Kafka keeps
                 * its log up to its high watermark there; ours keeps it
                 * all and lets the fetch's checks say more */
                GR_LOG_WARN("%s-%d: leader %d has no end offset for epoch "
                            "%d; fetching without truncating",
                            p->topic->name, (int)p->id, (int)f->leader,
                            (int)gr_log_leader_epoch(p->log));
            }
            rp->state = P_FETCHING;
        }
    }
}

/* Restarts p's log empty at offset (truncateFullyAndStartAt). */
static int
restart_at(rpart_t *rp, gr_partition_t *p, int64_t offset, const char *why)
{
    int64_t leo = gr_log_end_offset(p->log);
    gr_err_t err = gr_log_truncate_fully(p->log, offset);
    if (err != 0) {
        GR_LOG_ERROR("%s-%d: restarting the log at %" PRId64 " failed: %s",
                     p->topic->name, (int)p->id, offset, gr_err_str(err));
        backoff(rp);
        return -1;
    }
    GR_LOG_INFO("%s-%d: log end %" PRId64 " %s: the log restarts empty at "
                "%" PRId64,
                p->topic->name, (int)p->id, leo, why, offset);
    gr_pstate_destroy(p->pstate);
    p->pstate = gr_pstate_new(p->topic->name, p->id);
    if (p->pstate == NULL || gr_pstate_load(p->pstate, p->log) != 0)
        GR_LOG_WARN("%s-%d: producer state could not be rebuilt",
                    p->topic->name, (int)p->id);
    p->high_watermark = offset;
    gr_partition_follower_hw(p, offset);
    return 0;
}

static void
list_answer(fetcher_t *f, const gr_list_offsets_response_t *rs)
{
    for (int32_t i = 0; i < rs->topics_cnt; i++) {
        const gr_list_offsets_response_list_offsets_topic_response_t *t =
            &rs->topics[i];
        for (int32_t j = 0; j < t->partitions_cnt; j++) {
            const gr_list_offsets_response_list_offsets_partition_response_t
                *d = &t->partitions[j];
            rpart_t *rp = part_in_request(f, NULL, &t->name,
                                          d->partition_index);
            gr_partition_t *p;
            if (rp == NULL)
                continue;
            rp->in_request = false;
            p = part_model(f->r, rp);
            if (p == NULL || p->log == NULL || rp->state != P_LISTING)
                continue;
            if (d->error_code != GR_KERR_NONE || d->offset < 0) {
                backoff(rp);
                continue;
            }
            if (d->offset > gr_log_end_offset(p->log)) {
                if (restart_at(rp, p, d->offset,
                               "below the leader's log start") == 0)
                    rp->state = P_FETCHING;
                continue;
            }
            /* in the leader's range at its start: its end is below ours
             * (Kafka asks its latest offset); the epochs cut to it */
            rp->state = gr_log_leader_epoch(p->log) >= 0 ? P_TRUNCATING
                                                         : P_FETCHING;
            backoff(rp);
        }
    }
}

static void
on_frame(void *arg, const uint8_t *frame, size_t n)
{
    fetcher_t *f = arg;
    gr_arena_t *a;
    int32_t corr;
    union {
        gr_fetch_response_t fetch;
        gr_offset_for_leader_epoch_response_t ofle;
        gr_list_offsets_response_t list;
    } u;
    int16_t key = f->req == REQ_FETCH  ? GR_API_FETCH
                  : f->req == REQ_LIST ? GR_API_LIST_OFFSETS
                                       : GR_API_OFFSET_FOR_LEADER_EPOCH;

    if (f->req == REQ_NONE) {
        GR_LOG_WARN("replica fetcher: an answer nobody asked for from leader "
                    "%d; reconnecting",
                    (int)f->leader);
        on_closed(f, EPROTO);
        return;
    }
    if ((a = gr_arena_new(16384)) == NULL) {
        on_closed(f, ENOMEM);
        return;
    }
    memset(&u, 0, sizeof u);
    if (gr_replica_decode_response(key, f->req_ver, frame, n, a, &corr, &u) !=
            0 ||
        corr != f->corr) {
        GR_LOG_ERROR("replica fetcher: leader %d sent an answer that does not "
                     "decode (%s v%d, %zu bytes, correlation %d of %d); "
                     "reconnecting",
                     (int)f->leader,
                     key == GR_API_FETCH          ? "Fetch"
                     : key == GR_API_LIST_OFFSETS ? "ListOffsets"
                                                  : "OffsetForLeaderEpoch",
                     (int)f->req_ver, n, (int)corr, (int)f->corr);
        gr_arena_destroy(a);
        on_closed(f, EPROTO);
        return;
    }
    f->req = REQ_NONE;
    if (key == GR_API_FETCH)
        fetch_answer(f, &u.fetch);
    else if (key == GR_API_LIST_OFFSETS)
        list_answer(f, &u.list);
    else
        ofle_answer(f, &u.ofle);
    gr_arena_destroy(a);
    for (rpart_t *rp = f->r->parts; rp; rp = rp->next)
        if (rp->f == f)
            rp->in_request = false;
    fetcher_round(f);
}

/* --- the state from ZooKeeper */

void
gr_replicas_partition(gr_replicas_t *r, gr_partition_t *p)
{
    gr_broker_t *b = r->b;
    rpart_t *rp = part_find(r, p);
    bool follow = p->leader >= 0 && p->leader != b->node_id &&
                  is_replica(p, b->node_id);

    if (!follow) {
        if (rp != NULL) {
            GR_LOG_INFO("%s-%d: no longer fetched (leader %d)", p->topic->name,
                        (int)p->id, (int)p->leader);
            /* makeLeader's epoch and the groups' load are
             * gr_failover_applied's (broker_failover.c), before this */
            part_drop(r, rp);
        }
        return;
    }
    if (rp != NULL) {
        if (rp->state == P_OPENING || rp->state == P_FAILED)
            return;
        if (rp->leader != p->leader || rp->leader_epoch != p->leader_epoch)
            part_attach(r, rp, p); /* a new leader or epoch: truncate */
        return;
    }
    if ((rp = calloc(1, sizeof *rp)) == NULL) {
        GR_LOG_ERROR("%s-%d: out of memory following it", p->topic->name,
                     (int)p->id);
        return;
    }
    rp->r = r;
    rp->topic_id = p->topic->id;
    rp->partition = p->id;
    rp->leader = p->leader;
    rp->leader_epoch = p->leader_epoch;
    rp->next = r->parts;
    r->parts = rp;
    if (p->log != NULL) { /* a leader before (its groups dropped by
                           * gr_failover_applied), or opened by someone */
        part_attach(r, rp, p);
        return;
    }
    rp->state = P_OPENING;
    rp->prep.topic = strdup(p->topic->name);
    rp->prep.partition = p->id;
    rp->prep.topic_id = p->topic->id;
    if (rp->prep.topic == NULL ||
        gr_logs_prepare(b->logs, &rp->prep, 1, prep_done, rp) != 0)
        log_opened(r, rp, p); /* gr_log_open makes it, on the loop */
}

void
gr_replicas_partition_gone(gr_replicas_t *r, gr_partition_t *p)
{
    rpart_t *rp = part_find(r, p);
    if (rp != NULL)
        part_drop(r, rp);
}

void
gr_replicas_nodes_changed(gr_replicas_t *r)
{
    for (fetcher_t *f = r->fetchers; f; f = f->next) {
        char host[256];
        int32_t port;
        if (!gr_client_up(f->cl) && !f->connecting) {
            f->reconnect_at_us = 0;
            fetcher_kick(f);
            continue;
        }
        if (leader_endpoint(r, f->leader, host, sizeof host, &port) == 0 &&
            (strcmp(host, f->host) != 0 || port != f->port)) {
            GR_LOG_INFO("replica fetcher: leader %d moved to %s:%d; "
                        "reconnecting",
                        (int)f->leader, host, (int)port);
            fetcher_disconnect(f);
            f->reconnect_at_us = 0;
            fetcher_kick(f);
        }
    }
}

gr_replicas_t *
gr_replicas_new(gr_broker_t *b)
{
    gr_replicas_t *r;
    const char *name = gr_conf_str(b->conf, GR_CONF_INTER_BROKER_LISTENER_NAME);
    const char *proto =
        gr_conf_str(b->conf, GR_CONF_SECURITY_INTER_BROKER_PROTOCOL);
    const gr_api_entry_t *e = gr_api_find(GR_API_FETCH);
    int16_t vmin = 0, vmax = -1;
    int i;

    if (name == NULL || name[0] == '\0')
        name = proto != NULL && proto[0] != '\0' ? proto : "PLAINTEXT";
    for (i = 0; i < b->nlisteners; i++)
        if (strcasecmp(b->listeners[i].name, name) == 0)
            break;
    if (i == b->nlisteners) {
        GR_LOG_ERROR("cluster mode: the inter-broker listener %s is not one "
                     "of this broker's listeners",
                     name);
        return NULL;
    }
    if (strcasecmp(b->listeners[i].protocol, "PLAINTEXT") != 0) {
        GR_LOG_ERROR("cluster mode: the inter-broker listener %s is %s; the "
                     "replica fetcher speaks PLAINTEXT only for now",
                     name, b->listeners[i].protocol);
        return NULL;
    }
    if ((r = calloc(1, sizeof *r)) == NULL)
        return NULL;
    r->b = b;
    snprintf(r->listener, sizeof r->listener, "%s", b->listeners[i].name);
    r->wait_ms = (int32_t)gr_conf_int(b->conf, GR_CONF_REPLICA_FETCH_WAIT_MAX_MS);
    r->min_bytes = (int32_t)gr_conf_int(b->conf, GR_CONF_REPLICA_FETCH_MIN_BYTES);
    r->max_bytes = (int32_t)gr_conf_int(b->conf, GR_CONF_REPLICA_FETCH_MAX_BYTES);
    r->resp_max_bytes =
        (int32_t)gr_conf_int(b->conf, GR_CONF_REPLICA_FETCH_RESPONSE_MAX_BYTES);
    r->backoff_ms = gr_conf_int(b->conf, GR_CONF_REPLICA_FETCH_BACKOFF_MS);
    if (e != NULL)
        gr_api_served(b, e, &vmin, &vmax);
    r->fetch_ver = vmax >= 4 ? vmax : 4;
    if (gr_conf_int(b->conf, GR_CONF_NUM_REPLICA_FETCHERS) > 1)
        GR_LOG_INFO("num.replica.fetchers=%" PRId64 ": one fetcher per leader "
                    "broker here",
                    gr_conf_int(b->conf, GR_CONF_NUM_REPLICA_FETCHERS));
    return r;
}

void
gr_replicas_destroy(gr_replicas_t *r)
{
    if (r == NULL)
        return;
    while (r->parts != NULL) {
        rpart_t *rp = r->parts;
        r->parts = rp->next;
        if (rp->state == P_OPENING) {
            rp->prep_abandoned = true;
            rp->r = NULL; /* prep_done frees it */
            continue;
        }
        part_free(rp);
    }
    while (r->fetchers != NULL)
        fetcher_free(r->fetchers, true);
    free(r);
}
