/*
 * The metrics: what the control module's hooks count per API, the
 * partitions' counters (gr_partition_stats_t) and the state that exists
 * anyway (logs, groups, connections, memory), written at each GET
 * /metrics as Prometheus text (prom.h).
 *
 * Names. Where Kafka has the metric, it is Kafka's JMX name as the
 * Prometheus JMX exporter's example configuration for Kafka
 * (example_configs/kafka-2_0_0.yml, lowercaseOutputName) turns it into a
 * Prometheus name: kafka.server:type=BrokerTopicMetrics,
 * name=MessagesInPerSec,topic=T is kafka_server_brokertopicmetrics_
 * messagesin_total{topic="T"}, a Yammer gauge kafka.log:type=Log,
 * name=Size,topic=T,partition=P is kafka_log_log_size{topic,partition};
 * a topic metric also comes without the topic label (Kafka's all-topics
 * MBean). Consumer group offsets and lag, which Kafka leaves to tools,
 * take kafka_exporter's names (kafka_consumergroup_lag{consumergroup,
 * topic,partition}); the process's, the Prometheus client libraries'
 * (process_resident_memory_bytes); what only Gregor has starts gregor_.
 * The README's "Metrics" section lists them all.
 *
 * Cost. The hooks run once per request (a few adds, a walk over the
 * answer's partitions for Produce and Fetch, no allocation but an API's
 * first error array); per-partition counters are plain adds in
 * gr_partition_t; everything else is read when scraped. A scrape copies
 * the numbers on the loop (one pass over partitions, groups and their
 * offsets into an arena: 0.5 us a partition) and writes the text on a
 * worker, which costs five times more. Loop thread only, but for the
 * text's writing.
 */
#include "control/control_int.h"
#include "core/json.h"
#include "control/prom.h"

#include "api/dispatch.h"
#include "core/log.h"
#include "core/time.h"
#include "group/group.h"
#include "log/log.h"
#include "proto/gen/proto_table.h"
#include "telemetry/telemetry.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Upper bounds of the latency buckets, in ms (the last is +Inf). */
static const double bucket_ms[GR_METRICS_BUCKETS - 1] = {
    0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000,
};

int
gr_metrics_init(gr_control_t *c)
{
    c->metrics = calloc(1, sizeof *c->metrics);
    return c->metrics != NULL ? 0 : -1;
}

void
gr_metrics_fini(gr_control_t *c)
{
    if (c->metrics == NULL)
        return;
    /* their texts are still written; their answers go nowhere */
    while (c->metrics->scrapes_inflight != NULL)
        gr_metrics_scrape_forget(c->metrics->scrapes_inflight);
    for (int i = 0; i < GR_API__MAX; i++)
        free(c->metrics->api[i].errors);
    free(c->metrics);
    c->metrics = NULL;
}

/* --- what the hooks count */

/* The errors Kafka's ReplicaManager answers a partition with without
 * counting a failed request (appendToLocalLog's and readFromLog's
 * expected exceptions); any other error counts one. */
static bool
produce_expected(gr_kerr_t e)
{
    return e == GR_KERR_NONE || e == GR_KERR_UNKNOWN_TOPIC_OR_PARTITION ||
           e == GR_KERR_NOT_LEADER_OR_FOLLOWER ||
           e == GR_KERR_MESSAGE_TOO_LARGE ||
           e == GR_KERR_RECORD_LIST_TOO_LARGE || e == GR_KERR_CORRUPT_MESSAGE ||
           e == GR_KERR_KAFKA_STORAGE_ERROR || e == GR_KERR_UNKNOWN_TOPIC_ID;
}

static bool
fetch_expected(gr_kerr_t e)
{
    return e == GR_KERR_NONE || e == GR_KERR_UNKNOWN_TOPIC_OR_PARTITION ||
           e == GR_KERR_NOT_LEADER_OR_FOLLOWER ||
           e == GR_KERR_UNKNOWN_LEADER_EPOCH ||
           e == GR_KERR_FENCED_LEADER_EPOCH ||
           e == GR_KERR_REPLICA_NOT_AVAILABLE ||
           e == GR_KERR_KAFKA_STORAGE_ERROR ||
           e == GR_KERR_INCONSISTENT_TOPIC_ID ||
           e == GR_KERR_OFFSET_OUT_OF_RANGE;
}

/* The partition an answer names, by topic name or (newer versions) id. */
static gr_partition_t *
part_of(gr_control_t *c, const gr_str_t *name, const gr_uuid_t *id,
        int32_t index)
{
    gr_topic_t *t = NULL;
    if (id != NULL && !gr_uuid_is_zero(id))
        t = gr_cluster_topic_by_id(c->b->cluster, id);
    else if (name->len > 0)
        t = gr_cluster_topic(c->b->cluster, name);
    if (t == NULL || index < 0 || index >= t->nparts)
        return NULL;
    return t->parts[index];
}

void
gr_metrics_request(gr_control_t *c, gr_req_t *req)
{
    gr_metrics_t *m = c->metrics;
    int16_t key = req->hdr.api_key, ver = req->version;
    const gr_produce_request_t *rq;

    if (m == NULL || key < 0 || key >= GR_API__MAX)
        return;
    m->api[key].requests[ver >= 0 && ver < GR_METRICS_VERSIONS
                             ? ver
                             : GR_METRICS_VERSIONS - 1]++;
    if (key != GR_API_PRODUCE)
        return;
    rq = req->body;
    if (rq->acks != 0)
        return; /* counted with the answer */
    /* acks=0: no answer tells how it went; counted as it arrives */
    for (int32_t i = 0; i < rq->topic_data_cnt; i++) {
        const gr_produce_request_topic_produce_data_t *td = &rq->topic_data[i];
        for (int32_t k = 0; k < td->partition_data_cnt; k++) {
            gr_partition_t *p = part_of(c, &td->name, &td->topic_id,
                                        td->partition_data[k].index);
            if (p != NULL)
                p->stats.produce_total++;
        }
    }
}

static void
count_error(void *arg, gr_kerr_t err)
{
    gr_api_metrics_t *am = arg;
    int i = err + 1;
    if (am->errors == NULL &&
        (am->errors = calloc(GR_METRICS_ERRORS, sizeof *am->errors)) == NULL)
        return;
    if (i < 0 || i >= GR_METRICS_ERRORS)
        i = 0; /* outside the table: UNKNOWN_SERVER_ERROR */
    am->errors[i]++;
}

static void
produce_answered(gr_control_t *c, gr_req_t *req)
{
    const gr_produce_response_t *rs = req->resp;
    for (int32_t i = 0; i < rs->responses_cnt; i++) {
        const gr_produce_response_topic_produce_response_t *tr =
            &rs->responses[i];
        for (int32_t k = 0; k < tr->partition_responses_cnt; k++) {
            const gr_produce_response_partition_produce_response_t *pr =
                &tr->partition_responses[k];
            gr_partition_t *p = part_of(c, &tr->name, &tr->topic_id, pr->index);
            if (p == NULL)
                continue;
            p->stats.produce_total++;
            if (!produce_expected(pr->error_code))
                p->stats.produce_failed++;
        }
    }
}

static void
fetch_answered(gr_control_t *c, gr_req_t *req)
{
    const gr_fetch_request_t *rq = req->body;
    const gr_fetch_response_t *rs = req->resp;
    if (rq->replica_id >= 0 || rq->replica_state.replica_id >= 0)
        return; /* a follower's: Kafka's replication metrics */
    for (int32_t i = 0; i < rs->responses_cnt; i++) {
        const gr_fetch_response_fetchable_topic_response_t *tr =
            &rs->responses[i];
        for (int32_t k = 0; k < tr->partitions_cnt; k++) {
            const gr_fetch_response_partition_data_t *pd = &tr->partitions[k];
            gr_partition_t *p =
                part_of(c, &tr->topic, &tr->topic_id, pd->partition_index);
            if (p == NULL)
                continue;
            p->stats.fetch_total++;
            if (!fetch_expected(pd->error_code))
                p->stats.fetch_failed++;
            if (pd->records.len > 0)
                p->stats.bytes_out += pd->records.len;
        }
    }
}

void
gr_metrics_reply(gr_control_t *c, gr_req_t *req, int64_t wait_us)
{
    gr_metrics_t *m = c->metrics;
    int16_t key = req->hdr.api_key;
    gr_api_metrics_t *am;
    int64_t us;
    int b = 0;

    if (m == NULL || key < 0 || key >= GR_API__MAX || req->resp == NULL)
        return;
    am = &m->api[key];
    us = gr_mono_us() - req->start_us + wait_us;
    if (us < 0)
        us = 0;
    while (b < GR_METRICS_BUCKETS - 1 && (double)us / 1000.0 > bucket_ms[b])
        b++;
    am->latency[b]++;
    am->latency_count++;
    am->latency_sum_us += us;
    gr_shape_errors_foreach(req, count_error, am);
    if (key == GR_API_PRODUCE)
        produce_answered(c, req);
    else if (key == GR_API_FETCH)
        fetch_answered(c, req);
}

void
gr_control_partition_gone(gr_broker_t *b, gr_partition_t *p)
{
    gr_metrics_t *m;
    if (b->control == NULL || (m = b->control->metrics) == NULL)
        return;
    m->gone.bytes_in += p->stats.bytes_in;
    m->gone.bytes_out += p->stats.bytes_out;
    m->gone.produce_total += p->stats.produce_total;
    m->gone.produce_failed += p->stats.produce_failed;
    m->gone.fetch_total += p->stats.fetch_total;
    m->gone.fetch_failed += p->stats.fetch_failed;
    if (p->log != NULL)
        m->gone_messages += gr_log_end_offset(p->log) - p->stats.leo_base;
}

/* --- the scrape: a snapshot on the loop, the text on a worker
 *
 * With 5000 partitions on this VM the snapshot takes 2.6 ms of the
 * loop's CPU (0.5 us a partition: a few cache misses each) and the text
 * 7 to 10 ms (25,000 lines), the process's figures 5 ms more (listing
 * /proc/self/fd: 5000 open files): those two run on a worker. */

typedef struct snap_topic {
    const char *name;
    gr_partition_stats_t s;
    int64_t messages;
} snap_topic_t;

typedef struct snap_part {
    int32_t topic; /* index in topics */
    int32_t id;
    int64_t size, start, end, hw;
    int32_t segments;
} snap_part_t;

typedef struct snap_offset {
    int32_t group; /* index in groups */
    const char *topic;
    int32_t partition;
    int64_t offset;
    int64_t lag; /* -1: the partition is not known */
} snap_offset_t;

typedef struct snap_group {
    const char *id, *state;
    int32_t members; /* -1: not described */
} snap_group_t;

typedef struct snap_tele {
    const char *id, *client_id, *lines;
    size_t len;
} snap_tele_t;

struct gr_scrape {
    gr_control_t *c; /* NULL once forgotten */
    gr_scrape_cb cb;
    void *arg;
    gr_scrape_t *prev, *next; /* c->metrics->scrapes */
    gr_arena_t *a;            /* every string and array below */
    bool oom;
    /* the snapshot */
    gr_api_metrics_t api[GR_API__MAX];
    snap_topic_t *topics, all;
    int ntopics;
    snap_part_t *parts;
    int nparts;
    int64_t replicas[8];
    int nlisteners;
    const char *listener[GR_MAX_LISTENERS];
    int64_t per_listener[GR_MAX_LISTENERS];
    int64_t ops[3], watched[3]; /* Produce, Fetch, DeleteRecords */
    snap_group_t *groups;
    int ngroups, groups_cap;
    snap_offset_t *offsets;
    int noffsets, offsets_cap;
    int64_t per_state[5], group_offsets;
    snap_tele_t *tele;
    int ntele, tele_cap;
    int64_t tele_dropped, tele_bytes;
    int64_t rss, vsz, fds, max_fds, pool_used, pool_avail;
    double cpu_s, start_s;
    int64_t faults, injected, scrapes, snapshot_us, format_us;
    /* the text */
    gr_buf_t out;
};

static void *
snap_alloc(gr_scrape_t *sc, size_t n)
{
    void *p = gr_arena_alloc(sc->a, n ? n : 1);
    if (p == NULL)
        sc->oom = true;
    return p;
}

static const char *
snap_str(gr_scrape_t *sc, const char *s)
{
    char *p = gr_arena_strndup(sc->a, s, strlen(s));
    if (p == NULL)
        sc->oom = true;
    return p != NULL ? p : "";
}

/* Room for one more of an array that grows in the arena. */
static bool
snap_grow(gr_scrape_t *sc, void **arr, int n, int *cap, size_t size)
{
    void *v;
    if (n < *cap)
        return true;
    v = snap_alloc(sc, (size_t)(*cap ? 2 * *cap : 64) * size);
    if (v == NULL)
        return false;
    if (n > 0)
        memcpy(v, *arr, (size_t)n * size);
    *arr = v;
    *cap = *cap ? 2 * *cap : 64;
    return true;
}

static void
sums_add(snap_topic_t *to, const gr_partition_stats_t *s, int64_t messages)
{
    to->s.bytes_in += s->bytes_in;
    to->s.bytes_out += s->bytes_out;
    to->s.produce_total += s->produce_total;
    to->s.produce_failed += s->produce_failed;
    to->s.fetch_total += s->fetch_total;
    to->s.fetch_failed += s->fetch_failed;
    to->messages += messages;
}

static void
snap_topics(gr_scrape_t *sc)
{
    gr_control_t *c = sc->c;
    gr_broker_t *b = c->b;
    gr_cluster_t *cl = b->cluster;
    int np = 0, ti = 0;
    int64_t parts = 0, leaders = 0, under = 0, offline_here = 0, offline = 0;

    for (gr_topic_t *t = cl->topics; t != NULL; t = t->lnext)
        np += t->nparts;
    sc->topics = snap_alloc(sc, (size_t)cl->ntopics * sizeof *sc->topics);
    sc->parts = snap_alloc(sc, (size_t)np * sizeof *sc->parts);
    if (sc->topics == NULL || sc->parts == NULL)
        return;
    memset(&sc->all, 0, sizeof sc->all);
    sums_add(&sc->all, &c->metrics->gone, c->metrics->gone_messages);
    for (gr_topic_t *t = cl->topics; t != NULL && ti < cl->ntopics;
         t = t->lnext, ti++) {
        snap_topic_t *st = &sc->topics[ti];
        memset(st, 0, sizeof *st);
        st->name = snap_str(sc, t->name);
        for (int32_t i = 0; i < t->nparts; i++) {
            const gr_partition_t *p = t->parts[i];
            bool here = false;
            for (int32_t r = 0; r < p->nreplicas; r++)
                here |= p->replicas[r] == b->node_id;
            if (p->leader < 0)
                offline++;
            if (here && (p->log == NULL || gr_log_offline(p->log)))
                offline_here++;
            if (here && p->leader == b->node_id) {
                leaders++;
                under += p->nisr < p->nreplicas;
            }
            if (p->log == NULL) {
                sums_add(st, &p->stats, 0);
                continue;
            }
            sums_add(st, &p->stats,
                     gr_log_end_offset(p->log) - p->stats.leo_base);
            parts += here && !gr_log_offline(p->log);
            if (sc->nparts < np) {
                snap_part_t *sp = &sc->parts[sc->nparts++];
                sp->topic = ti;
                sp->id = p->id;
                sp->size = gr_log_size_bytes(p->log);
                sp->start = gr_log_start_offset(p->log);
                sp->end = gr_log_end_offset(p->log);
                sp->hw = p->high_watermark;
                sp->segments = gr_log_segment_count(p->log);
            }
        }
        sums_add(&sc->all, &st->s, st->messages);
    }
    sc->ntopics = ti;
    sc->replicas[0] = parts;
    sc->replicas[1] = leaders;
    sc->replicas[2] = under;
    sc->replicas[3] = offline_here;
    sc->replicas[4] = 1; /* the active controller: this broker */
    sc->replicas[5] = offline;
    sc->replicas[6] = cl->ntopics;
    sc->replicas[7] = np;
}

static void
snap_requests(gr_scrape_t *sc)
{
    gr_metrics_t *m = sc->c->metrics;
    memcpy(sc->api, m->api, sizeof sc->api);
    for (int k = 0; k < GR_API__MAX; k++) {
        int64_t *e;
        if (m->api[k].errors == NULL)
            continue;
        e = snap_alloc(sc, GR_METRICS_ERRORS * sizeof *e);
        if (e != NULL)
            memcpy(e, m->api[k].errors, GR_METRICS_ERRORS * sizeof *e);
        sc->api[k].errors = e;
    }
}

static void
conn_visit(void *arg, const char *listener, const gr_req_t *req)
{
    gr_scrape_t *sc = arg;
    gr_broker_t *b = sc->c->b;
    int which = -1;
    int64_t parts = 0;
    for (int i = 0; i < b->nlisteners; i++)
        if (strcmp(b->listeners[i].name, listener) == 0) {
            sc->per_listener[i]++;
            break;
        }
    if (req == NULL || !req->deferred || req->done || req->body == NULL)
        return;
    if (req->hdr.api_key == GR_API_PRODUCE) {
        const gr_produce_request_t *rq = req->body;
        which = 0;
        for (int32_t i = 0; i < rq->topic_data_cnt; i++)
            parts += rq->topic_data[i].partition_data_cnt;
    } else if (req->hdr.api_key == GR_API_FETCH) {
        const gr_fetch_request_t *rq = req->body;
        which = 1;
        for (int32_t i = 0; i < rq->topics_cnt; i++)
            parts += rq->topics[i].partitions_cnt;
    } else if (req->hdr.api_key == GR_API_DELETE_RECORDS) {
        const gr_delete_records_request_t *rq = req->body;
        which = 2;
        for (int32_t i = 0; i < rq->topics_cnt; i++)
            parts += rq->topics[i].partitions_cnt;
    }
    if (which < 0)
        return;
    sc->ops[which]++;
    sc->watched[which] += parts;
}

static void
snap_connections(gr_scrape_t *sc)
{
    gr_broker_t *b = sc->c->b;
    sc->nlisteners = b->nlisteners;
    for (int i = 0; i < b->nlisteners; i++)
        sc->listener[i] = snap_str(sc, b->listeners[i].name);
    gr_conn_foreach(b, conn_visit, sc);
}

static const char *const group_states[5] = {
    "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty"
};

typedef struct offset_ctx {
    gr_scrape_t *sc;
    int32_t group;
} offset_ctx_t;

static void
offset_visit(void *arg, const char *topic, int32_t partition,
             const gr_group_offset_t *off)
{
    offset_ctx_t *oc = arg;
    gr_scrape_t *sc = oc->sc;
    gr_topic_t *t;
    snap_offset_t *so;
    if (off->offset < 0 || !snap_grow(sc, (void **)&sc->offsets, sc->noffsets,
                                      &sc->offsets_cap, sizeof *sc->offsets))
        return;
    t = gr_cluster_topic_cstr(sc->c->b->cluster, topic);
    so = &sc->offsets[sc->noffsets++];
    so->group = oc->group;
    so->topic = snap_str(sc, topic);
    so->partition = partition;
    so->offset = off->offset;
    so->lag = -1;
    /* against the high watermark, as kafka-consumer-groups.sh does
     * (ListOffsets latest) */
    if (t != NULL && partition >= 0 && partition < t->nparts) {
        int64_t lag = t->parts[partition]->high_watermark - off->offset;
        so->lag = lag > 0 ? lag : 0;
    }
    sc->group_offsets++;
}

static void
snap_groups(gr_scrape_t *sc)
{
    gr_groups_t *g = sc->c->b->groups;
    gr_group_overview_t *list = NULL;
    gr_arena_t *scratch;
    int32_t n = 0;
    if (g == NULL)
        return;
    scratch = gr_arena_new(16 * 1024);
    gr_groups_list(g, sc->a, &list, &n); /* copied into the arena */
    for (int32_t i = 0; i < n; i++) {
        gr_str_t id = gr_str_c(list[i].group_id);
        gr_group_summary_t sum;
        offset_ctx_t oc = { sc, sc->ngroups };
        snap_group_t *sg;
        if (!snap_grow(sc, (void **)&sc->groups, sc->ngroups, &sc->groups_cap,
                       sizeof *sc->groups))
            break;
        sg = &sc->groups[sc->ngroups++];
        sg->id = list[i].group_id;
        sg->state = list[i].state;
        sg->members = -1;
        for (int k = 0; k < 5; k++)
            if (strcmp(list[i].state, group_states[k]) == 0)
                sc->per_state[k]++;
        /* only the count is kept: the members' bytes go with scratch */
        memset(&sum, 0, sizeof sum);
        if (scratch != NULL &&
            gr_group_describe(g, &id, scratch, &sum) == GR_KERR_NONE)
            sg->members = sum.nmembers;
        if (scratch != NULL)
            gr_arena_reset(scratch);
        gr_group_offsets_foreach(g, &id, false, offset_visit, &oc);
    }
    gr_arena_destroy(scratch);
}

static void
tele_visit(void *arg, const char *id, const char *cid, const char *lines,
           size_t len)
{
    gr_scrape_t *sc = arg;
    snap_tele_t *st;
    char *copy;
    if (!snap_grow(sc, (void **)&sc->tele, sc->ntele, &sc->tele_cap,
                   sizeof *sc->tele) ||
        (copy = snap_alloc(sc, len)) == NULL)
        return;
    memcpy(copy, lines, len);
    st = &sc->tele[sc->ntele++];
    st->id = snap_str(sc, id);
    st->client_id = snap_str(sc, cid);
    st->lines = copy;
    st->len = len;
}

static int64_t
open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int64_t n = 0;
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

static void
snap_process(gr_scrape_t *sc)
{
    gr_control_t *c = sc->c;
    gr_broker_t *b = c->b;

    sc->start_s = (double)(int64_t)((double)gr_wall_ms() -
                                    (double)(gr_mono_us() - b->start_us) /
                                        1000.0) /
                  1000.0;
    sc->pool_used = b->queued_bytes;
    sc->pool_avail = b->queued_max_bytes > 0
                         ? b->queued_max_bytes - b->queued_bytes
                         : INT64_MAX;
    for (gr_fault_t *ft = c->faults; ft != NULL; ft = ft->next)
        sc->faults++;
    sc->injected = c->stat_injected;
    sc->scrapes = ++c->metrics->scrapes;
    sc->format_us = c->metrics->scrape_us;
    sc->tele_dropped = gr_telemetry_latest_dropped(b->telemetry);
    sc->tele_bytes = gr_telemetry_latest_bytes(b->telemetry);
}

/* The process's memory, descriptors and CPU: read by the worker (the
 * descriptors' listing alone takes 1 ms per thousand open files). */
static void
read_process(gr_scrape_t *sc)
{
    long page = sysconf(_SC_PAGESIZE);
    unsigned long long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "re");
    struct rusage ru;
    struct rlimit rl;

    if (f != NULL) {
        if (fscanf(f, "%llu %llu", &size, &resident) != 2)
            size = resident = 0;
        fclose(f);
    }
    sc->rss = (int64_t)resident * page;
    sc->vsz = (int64_t)size * page;
    sc->fds = open_fds();
    sc->max_fds =
        getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (int64_t)rl.rlim_cur : -1;
    sc->cpu_s = -1;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        sc->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* --- writing the text (any thread: it reads only the snapshot) */

static const char *
api_name(int16_t key)
{
    const gr_proto_api_t *a = gr_proto_api(key);
    return a != NULL ? a->name : "Unknown";
}

static const struct {
    const char *name, *help;
} topic_families[] = {
    { "kafka_server_brokertopicmetrics_messagesin_total",
      "Records appended (kafka.server:type=BrokerTopicMetrics,"
      "name=MessagesInPerSec): the log end offset's growth since start." },
    { "kafka_server_brokertopicmetrics_bytesin_total",
      "Bytes appended (BrokerTopicMetrics BytesInPerSec)." },
    { "kafka_server_brokertopicmetrics_bytesout_total",
      "Bytes of records in consumers' Fetch answers (BrokerTopicMetrics "
      "BytesOutPerSec)." },
    { "kafka_server_brokertopicmetrics_totalproducerequests_total",
      "Produce partitions handled (BrokerTopicMetrics "
      "TotalProduceRequestsPerSec)." },
    { "kafka_server_brokertopicmetrics_failedproducerequests_total",
      "Produce partitions failed with an unexpected error (BrokerTopicMetrics "
      "FailedProduceRequestsPerSec)." },
    { "kafka_server_brokertopicmetrics_totalfetchrequests_total",
      "Fetch partitions handled (BrokerTopicMetrics "
      "TotalFetchRequestsPerSec)." },
    { "kafka_server_brokertopicmetrics_failedfetchrequests_total",
      "Fetch partitions failed with an unexpected error (BrokerTopicMetrics "
      "FailedFetchRequestsPerSec)." },
};

static int64_t
ts_value(const snap_topic_t *ts, size_t which)
{
    const int64_t v[] = { ts->messages,         ts->s.bytes_in,
                          ts->s.bytes_out,      ts->s.produce_total,
                          ts->s.produce_failed, ts->s.fetch_total,
                          ts->s.fetch_failed };
    return which < sizeof v / sizeof v[0] ? v[which] : 0;
}

static void
gauge(gr_buf_t *o, const char *name, const char *help, int64_t v)
{
    gr_prom_sample_t s;
    gr_prom_family(o, name, "gauge", help);
    s = gr_prom_begin(o, name, NULL);
    gr_prom_end_int(&s, v);
}

static void
counter(gr_buf_t *o, const char *name, const char *help, int64_t v)
{
    gr_prom_sample_t s;
    gr_prom_family(o, name, "counter", help);
    s = gr_prom_begin(o, name, NULL);
    gr_prom_end_int(&s, v);
}

static void
write_topics(const gr_scrape_t *sc, gr_buf_t *o)
{
    for (size_t f = 0; f < sizeof topic_families / sizeof topic_families[0];
         f++) {
        gr_prom_sample_t s;
        gr_prom_family(o, topic_families[f].name, "counter",
                       topic_families[f].help);
        s = gr_prom_begin(o, topic_families[f].name, NULL);
        gr_prom_end_int(&s, ts_value(&sc->all, f));
        for (int i = 0; i < sc->ntopics; i++) {
            s = gr_prom_begin(o, topic_families[f].name, NULL);
            gr_prom_label(&s, "topic", sc->topics[i].name, (size_t)-1);
            gr_prom_end_int(&s, ts_value(&sc->topics[i], f));
        }
    }
}

static const struct {
    const char *name, *help;
} part_families[] = {
    { "kafka_log_log_size",
      "Bytes of the partition's log, every segment (Log Size)." },
    { "kafka_log_log_logstartoffset",
      "The log start offset (Log LogStartOffset)." },
    { "kafka_log_log_logendoffset",
      "The log end offset, the next offset (Log LogEndOffset)." },
    { "kafka_log_log_numlogsegments",
      "Segments of the log (Log NumLogSegments)." },
    { "gregor_partition_high_watermark",
      "The high watermark (Kafka has no metric for it)." },
};

static void
write_partitions(const gr_scrape_t *sc, gr_buf_t *o)
{
    for (size_t f = 0; f < sizeof part_families / sizeof part_families[0];
         f++) {
        gr_prom_family(o, part_families[f].name, "gauge",
                       part_families[f].help);
        for (int i = 0; i < sc->nparts; i++) {
            const snap_part_t *p = &sc->parts[i];
            const int64_t v[] = { p->size, p->start, p->end, p->segments,
                                  p->hw };
            gr_prom_sample_t s = gr_prom_begin(o, part_families[f].name, NULL);
            gr_prom_label(&s, "topic", sc->topics[p->topic].name, (size_t)-1);
            gr_prom_label_int(&s, "partition", p->id);
            gr_prom_end_int(&s, v[f]);
        }
    }
}

static void
write_replicas(const gr_scrape_t *sc, gr_buf_t *o)
{
    static const struct {
        const char *name, *help;
    } g[8] = {
        { "kafka_server_replicamanager_partitioncount",
          "Partitions this broker hosts (ReplicaManager PartitionCount)." },
        { "kafka_server_replicamanager_leadercount",
          "Partitions this broker leads (ReplicaManager LeaderCount)." },
        { "kafka_server_replicamanager_underreplicatedpartitions",
          "Led partitions with fewer in-sync replicas than replicas "
          "(ReplicaManager UnderReplicatedPartitions)." },
        { "kafka_server_replicamanager_offlinereplicacount",
          "Partitions assigned here whose log is not open or is offline "
          "(ReplicaManager OfflineReplicaCount)." },
        { "kafka_controller_kafkacontroller_activecontrollercount",
          "1: this broker decides the cluster's metadata (KafkaController "
          "ActiveControllerCount)." },
        { "kafka_controller_kafkacontroller_offlinepartitionscount",
          "Partitions without a leader (KafkaController "
          "OfflinePartitionsCount)." },
        { "kafka_controller_kafkacontroller_globaltopiccount",
          "Topics in the cluster (KafkaController GlobalTopicCount)." },
        { "kafka_controller_kafkacontroller_globalpartitioncount",
          "Partitions in the cluster (KafkaController "
          "GlobalPartitionCount)." },
    };
    for (int i = 0; i < 8; i++)
        gauge(o, g[i].name, g[i].help, sc->replicas[i]);
}

static void
write_requests(const gr_scrape_t *sc, gr_buf_t *o)
{
    static const char rq_name[] = "kafka_network_requestmetrics_requests_total";
    static const char er_name[] = "kafka_network_requestmetrics_errors_total";
    static const char lt_name[] = "kafka_network_requestmetrics_totaltimems";

    gr_prom_family(o, rq_name, "counter",
                   "Requests decoded, per API and version "
                   "(kafka.network:type=RequestMetrics,name=RequestsPerSec).");
    for (int k = 0; k < GR_API__MAX; k++)
        for (int v = 0; v < GR_METRICS_VERSIONS; v++) {
            gr_prom_sample_t s;
            if (sc->api[k].requests[v] == 0)
                continue;
            s = gr_prom_begin(o, rq_name, NULL);
            gr_prom_label(&s, "request", api_name((int16_t)k), (size_t)-1);
            gr_prom_label_int(&s, "version", v);
            gr_prom_end_int(&s, sc->api[k].requests[v]);
        }
    gr_prom_family(o, er_name, "counter",
                   "Errors in answers, per API and error, NONE included: the "
                   "top-level error and every partition's, topic's or "
                   "group's (RequestMetrics ErrorsPerSec).");
    for (int k = 0; k < GR_API__MAX; k++) {
        if (sc->api[k].errors == NULL)
            continue;
        for (int e = 0; e < GR_METRICS_ERRORS; e++) {
            gr_prom_sample_t s;
            if (sc->api[k].errors[e] == 0)
                continue;
            s = gr_prom_begin(o, er_name, NULL);
            gr_prom_label(&s, "request", api_name((int16_t)k), (size_t)-1);
            gr_prom_label(&s, "error", gr_kerr_name((gr_kerr_t)(e - 1)),
                          (size_t)-1);
            gr_prom_end_int(&s, sc->api[k].errors[e]);
        }
    }
    gr_prom_family(o, lt_name, "histogram",
                   "Milliseconds from a request's arrival to its answer "
                   "(RequestMetrics TotalTimeMs).");
    for (int k = 0; k < GR_API__MAX; k++) {
        const gr_api_metrics_t *am = &sc->api[k];
        gr_prom_sample_t s;
        int64_t cum = 0;
        if (am->latency_count == 0)
            continue;
        for (int b = 0; b < GR_METRICS_BUCKETS; b++) {
            char le[16];
            cum += am->latency[b];
            if (b < GR_METRICS_BUCKETS - 1)
                snprintf(le, sizeof le, "%g", bucket_ms[b]);
            else
                snprintf(le, sizeof le, "+Inf");
            s = gr_prom_begin(o, lt_name, "_bucket");
            gr_prom_label(&s, "request", api_name((int16_t)k), (size_t)-1);
            gr_prom_label(&s, "le", le, (size_t)-1);
            gr_prom_end_int(&s, cum);
        }
        s = gr_prom_begin(o, lt_name, "_sum");
        gr_prom_label(&s, "request", api_name((int16_t)k), (size_t)-1);
        gr_prom_end_double(&s, (double)am->latency_sum_us / 1000.0);
        s = gr_prom_begin(o, lt_name, "_count");
        gr_prom_label(&s, "request", api_name((int16_t)k), (size_t)-1);
        gr_prom_end_int(&s, am->latency_count);
    }
}

static void
write_connections(const gr_scrape_t *sc, gr_buf_t *o)
{
    static const char *const ops[] = { "Produce", "Fetch", "DeleteRecords" };
    static const char cn_name[] =
        "kafka_server_socket_server_metrics_connection_count";
    static const char ps_name[] =
        "kafka_server_delayedoperationpurgatory_purgatorysize";
    static const char nd_name[] =
        "kafka_server_delayedoperationpurgatory_numdelayedoperations";

    gr_prom_family(o, cn_name, "gauge",
                   "Open client connections per listener (socket-server-"
                   "metrics connection-count).");
    for (int i = 0; i < sc->nlisteners; i++) {
        gr_prom_sample_t s = gr_prom_begin(o, cn_name, NULL);
        gr_prom_label(&s, "listener", sc->listener[i], (size_t)-1);
        gr_prom_end_int(&s, sc->per_listener[i]);
    }
    gr_prom_family(o, nd_name, "gauge",
                   "Requests waiting (an acks=all Produce for its flush, a "
                   "Fetch for data, a DeleteRecords) (DelayedOperationPurgatory "
                   "NumDelayedOperations).");
    for (int i = 0; i < 3; i++) {
        gr_prom_sample_t s = gr_prom_begin(o, nd_name, NULL);
        gr_prom_label(&s, "delayedOperation", ops[i], (size_t)-1);
        gr_prom_end_int(&s, sc->ops[i]);
    }
    gr_prom_family(o, ps_name, "gauge",
                   "The partitions the waiting requests watch "
                   "(DelayedOperationPurgatory PurgatorySize).");
    for (int i = 0; i < 3; i++) {
        gr_prom_sample_t s = gr_prom_begin(o, ps_name, NULL);
        gr_prom_label(&s, "delayedOperation", ops[i], (size_t)-1);
        gr_prom_end_int(&s, sc->watched[i]);
    }
}

static void
write_groups(const gr_scrape_t *sc, gr_buf_t *o)
{
    static const char *const state_metric[5] = {
        "kafka_coordinator_group_groupmetadatamanager_"
        "numgroupspreparingrebalance",
        "kafka_coordinator_group_groupmetadatamanager_"
        "numgroupscompletingrebalance",
        "kafka_coordinator_group_groupmetadatamanager_numgroupsstable",
        "kafka_coordinator_group_groupmetadatamanager_numgroupsdead",
        "kafka_coordinator_group_groupmetadatamanager_numgroupsempty",
    };
    gr_prom_sample_t s;

    gauge(o, "kafka_coordinator_group_groupmetadatamanager_numgroups",
          "Consumer groups this broker coordinates (GroupMetadataManager "
          "NumGroups).",
          sc->ngroups);
    for (int k = 0; k < 5; k++)
        gauge(o, state_metric[k],
              "Groups in that state (GroupMetadataManager NumGroups<State>).",
              sc->per_state[k]);
    gauge(o, "kafka_coordinator_group_groupmetadatamanager_numoffsets",
          "Committed offsets (GroupMetadataManager NumOffsets).",
          sc->group_offsets);
    gr_prom_family(o, "gregor_consumergroup_state", "gauge",
                   "1 for each group, its state as DescribeGroups names it.");
    for (int i = 0; i < sc->ngroups; i++) {
        s = gr_prom_begin(o, "gregor_consumergroup_state", NULL);
        gr_prom_label(&s, "consumergroup", sc->groups[i].id, (size_t)-1);
        gr_prom_label(&s, "state", sc->groups[i].state, (size_t)-1);
        gr_prom_end_int(&s, 1);
    }
    gr_prom_family(o, "kafka_consumergroup_members", "gauge",
                   "Members of the group (kafka_exporter's name).");
    for (int i = 0; i < sc->ngroups; i++) {
        if (sc->groups[i].members < 0)
            continue;
        s = gr_prom_begin(o, "kafka_consumergroup_members", NULL);
        gr_prom_label(&s, "consumergroup", sc->groups[i].id, (size_t)-1);
        gr_prom_end_int(&s, sc->groups[i].members);
    }
    gr_prom_family(o, "kafka_consumergroup_current_offset", "gauge",
                   "The group's committed offset of the partition "
                   "(kafka_exporter's name).");
    for (int i = 0; i < sc->noffsets; i++) {
        const snap_offset_t *so = &sc->offsets[i];
        s = gr_prom_begin(o, "kafka_consumergroup_current_offset", NULL);
        gr_prom_label(&s, "consumergroup", sc->groups[so->group].id,
                      (size_t)-1);
        gr_prom_label(&s, "topic", so->topic, (size_t)-1);
        gr_prom_label_int(&s, "partition", so->partition);
        gr_prom_end_int(&s, so->offset);
    }
    gr_prom_family(o, "kafka_consumergroup_lag", "gauge",
                   "High watermark less the committed offset, at least 0 "
                   "(kafka_exporter's name).");
    for (int i = 0; i < sc->noffsets; i++) {
        const snap_offset_t *so = &sc->offsets[i];
        if (so->lag < 0)
            continue;
        s = gr_prom_begin(o, "kafka_consumergroup_lag", NULL);
        gr_prom_label(&s, "consumergroup", sc->groups[so->group].id,
                      (size_t)-1);
        gr_prom_label(&s, "topic", so->topic, (size_t)-1);
        gr_prom_label_int(&s, "partition", so->partition);
        gr_prom_end_int(&s, so->lag);
    }
}

/* client telemetry (KIP-714): each instance's latest push */

static void
tele_value(gr_prom_sample_t *s, const gr_json_t *v)
{
    if (v->type == GR_JSON_INT)
        gr_prom_end_int(s, v->i);
    else if (v->type == GR_JSON_DBL)
        gr_prom_end_double(s, v->d);
    else if (strcmp(v->s, "NaN") == 0)
        gr_prom_end_double(s, NAN);
    else
        gr_prom_end_double(s, v->s[0] == '-' ? -INFINITY : INFINITY);
}

/* One line of otlp.h's form as a sample: the instance, the client id,
 * the metric's name and the point's attributes (scalars) as labels. */
static void
tele_line(gr_buf_t *o, gr_arena_t *a, const snap_tele_t *st, const char *p,
          size_t n)
{
    static const char *const reserved[] = { "client_instance_id", "client_id",
                                            "metric" };
    char err[64], names[16][64];
    int nnames = 0;
    const gr_json_t *j = gr_json_parse_floats(a, p, n, err, sizeof err);
    const gr_json_t *name, *v, *attrs;
    gr_prom_sample_t s;

    if (j == NULL || (name = gr_json_get(j, "metric")) == NULL ||
        name->type != GR_JSON_STR || (v = gr_json_get(j, "value")) == NULL ||
        !(v->type == GR_JSON_INT || v->type == GR_JSON_DBL ||
          (v->type == GR_JSON_STR &&
           (strcmp(v->s, "NaN") == 0 || strcmp(v->s, "Infinity") == 0 ||
            strcmp(v->s, "-Infinity") == 0))))
        return; /* a point without a value */
    s = gr_prom_begin(o, "gregor_client_telemetry", NULL);
    gr_prom_label(&s, "client_instance_id", st->id, (size_t)-1);
    gr_prom_label(&s, "client_id", st->client_id, (size_t)-1);
    gr_prom_label(&s, "metric", name->s, name->slen);
    attrs = gr_json_get(j, "attributes");
    for (int i = 0; attrs != NULL && attrs->type == GR_JSON_OBJ &&
                    i < attrs->n && nnames < 16;
         i++) {
        const gr_json_t *kv = &attrs->kids[i];
        char val[64];
        const char *vs = val;
        size_t vn = 0;
        bool dup = false;
        gr_prom_sanitize(names[nnames], sizeof names[nnames], kv->key,
                         strlen(kv->key), true);
        for (int k = 0; k < 3; k++)
            dup |= strcmp(names[nnames], reserved[k]) == 0;
        for (int k = 0; k < nnames; k++)
            dup |= strcmp(names[nnames], names[k]) == 0;
        if (dup)
            continue; /* a label twice is not valid */
        switch (kv->type) {
        case GR_JSON_STR:
            vs = kv->s;
            vn = kv->slen;
            break;
        case GR_JSON_INT:
            vn = (size_t)snprintf(val, sizeof val, "%lld", (long long)kv->i);
            break;
        case GR_JSON_DBL:
            vn = (size_t)snprintf(val, sizeof val, "%.17g", kv->d);
            break;
        case GR_JSON_BOOL:
            vn = (size_t)snprintf(val, sizeof val, "%s",
                                  kv->b ? "true" : "false");
            break;
        case GR_JSON_NULL:
        case GR_JSON_ARR:
        case GR_JSON_OBJ:
            continue; /* not label values */
        }
        gr_prom_label(&s, names[nnames++], vs, vn);
    }
    tele_value(&s, v);
}

static void
write_telemetry(const gr_scrape_t *sc, gr_buf_t *o)
{
    gr_arena_t *a = gr_arena_new(16 * 1024);
    gr_prom_family(o, "gregor_client_telemetry", "gauge",
                   "The latest value of each data point a client pushed "
                   "(KIP-714 PushTelemetry, gauges and sums), labelled with "
                   "the client instance, the client id, the metric's name "
                   "and the point's attributes.");
    for (int i = 0; a != NULL && i < sc->ntele; i++) {
        const char *p = sc->tele[i].lines, *end = p + sc->tele[i].len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
            if (n > 0)
                tele_line(o, a, &sc->tele[i], p, n);
            gr_arena_reset(a);
            p += n + 1;
        }
    }
    gr_arena_destroy(a);
    counter(o, "gregor_client_telemetry_dropped_total",
            "Pushes whose points were not kept: over 64 KiB of points, or "
            "4 MiB for all clients.",
            sc->tele_dropped);
    gauge(o, "gregor_client_telemetry_bytes",
          "Memory of the points kept (their JSON lines).", sc->tele_bytes);
}

static void
write_process(gr_scrape_t *sc, gr_buf_t *o)
{
    gr_prom_sample_t s;
    read_process(sc);
    gauge(o, "process_resident_memory_bytes",
          "Resident set size (/proc/self/statm).", sc->rss);
    gauge(o, "process_virtual_memory_bytes",
          "Virtual memory size (/proc/self/statm).", sc->vsz);
    gauge(o, "process_open_fds", "Open file descriptors.", sc->fds);
    if (sc->max_fds >= 0)
        gauge(o, "process_max_fds", "The limit on file descriptors.",
              sc->max_fds);
    if (sc->cpu_s >= 0) {
        gr_prom_family(o, "process_cpu_seconds_total", "counter",
                       "User and system CPU time.");
        s = gr_prom_begin(o, "process_cpu_seconds_total", NULL);
        gr_prom_end_double(&s, sc->cpu_s);
    }
    gr_prom_family(o, "process_start_time_seconds", "gauge",
                   "When the broker started, in seconds since the epoch.");
    s = gr_prom_begin(o, "process_start_time_seconds", NULL);
    gr_prom_end_double(&s, sc->start_s);
    gauge(o, "kafka_network_socketserver_memorypoolused",
          "Bytes of read buffers beyond their first 16 KiB, which "
          "queued.max.request.bytes bounds (SocketServer MemoryPoolUsed).",
          sc->pool_used);
    gauge(o, "kafka_network_socketserver_memorypoolavailable",
          "queued.max.request.bytes less what is used (SocketServer "
          "MemoryPoolAvailable); unbounded: the largest long, as Kafka.",
          sc->pool_avail);
    gauge(o, "gregor_control_request_log_bytes",
          "Memory of the control interface's request log.",
          (int64_t)(GR_CTL_LOG_SIZE * sizeof(gr_ctl_logent_t)));
}

static void
write_all(gr_scrape_t *sc)
{
    gr_buf_t *o = &sc->out;
    gr_prom_sample_t s;
    int64_t t0 = gr_mono_us();

    gr_prom_family(o, "gregor_build_info", "gauge",
                   "1, with the version of Gregor serving.");
    s = gr_prom_begin(o, "gregor_build_info", NULL);
    gr_prom_label(&s, "version", PACKAGE_VERSION, (size_t)-1);
    gr_prom_end_int(&s, 1);
    gauge(o, "kafka_server_kafkaserver_brokerstate",
          "The broker's state (KafkaServer BrokerState): 3, running.", 3);
    write_topics(sc, o);
    write_partitions(sc, o);
    write_replicas(sc, o);
    write_requests(sc, o);
    write_connections(sc, o);
    write_groups(sc, o);
    write_telemetry(sc, o);
    write_process(sc, o);
    gauge(o, "gregor_control_faults", "Faults armed (the control interface).",
          sc->faults);
    counter(o, "gregor_control_injected_total",
            "Requests a fault of the control interface applied to.",
            sc->injected);
    counter(o, "gregor_metrics_scrapes_total",
            "Scrapes of /metrics, this one included.", sc->scrapes);
    gr_prom_family(o, "gregor_metrics_scrape_duration_seconds", "gauge",
                   "This scrape's snapshot, taken on the broker's loop, and "
                   "the previous scrape's text, written on a worker.");
    s = gr_prom_begin(o, "gregor_metrics_scrape_duration_seconds", NULL);
    gr_prom_label(&s, "phase", "snapshot", (size_t)-1);
    gr_prom_end_double(&s, (double)sc->snapshot_us / 1e6);
    s = gr_prom_begin(o, "gregor_metrics_scrape_duration_seconds", NULL);
    gr_prom_label(&s, "phase", "text", (size_t)-1);
    gr_prom_end_double(&s, (double)sc->format_us / 1e6);
    sc->format_us = gr_mono_us() - t0;
}

/* --- the job */

static void
scrape_unlink(gr_scrape_t *sc)
{
    gr_metrics_t *m = sc->c != NULL ? sc->c->metrics : NULL;
    if (m == NULL)
        return;
    if (sc->prev != NULL)
        sc->prev->next = sc->next;
    else
        m->scrapes_inflight = sc->next;
    if (sc->next != NULL)
        sc->next->prev = sc->prev;
    sc->prev = sc->next = NULL;
}

static void
scrape_free(gr_scrape_t *sc)
{
    gr_buf_fini(&sc->out);
    gr_arena_destroy(sc->a);
    free(sc);
}

static void
scrape_work(void *arg)
{
    write_all(arg);
}

/* On the loop: the text is written. */
static void
scrape_done(gr_loop_t *loop, void *arg)
{
    gr_scrape_t *sc = arg;
    (void)loop;
    if (sc->c != NULL) {
        sc->c->metrics->scrape_us = sc->format_us;
        scrape_unlink(sc);
        if (sc->out.oom) {
            gr_buf_reset(&sc->out);
            gr_buf_puts(&sc->out, "# out of memory\n");
        }
        sc->cb(sc->arg, 200, &sc->out);
    }
    scrape_free(sc);
}

int
gr_metrics_scrape(gr_control_t *c, gr_scrape_cb cb, void *arg,
                  gr_scrape_t **out)
{
    gr_scrape_t *sc = calloc(1, sizeof *sc);
    gr_metrics_t *m = c->metrics;
    int64_t t0 = gr_mono_us();

    *out = NULL;
    if (sc == NULL || (sc->a = gr_arena_new(64 * 1024)) == NULL) {
        free(sc);
        return -1;
    }
    sc->c = c;
    sc->cb = cb;
    sc->arg = arg;
    snap_topics(sc);
    snap_requests(sc);
    snap_connections(sc);
    snap_groups(sc);
    gr_telemetry_latest_foreach(c->b->telemetry, tele_visit, sc);
    snap_process(sc);
    sc->snapshot_us = gr_mono_us() - t0;
    if (sc->oom) {
        GR_LOG_WARN("metrics: out of memory taking the snapshot");
        scrape_free(sc);
        return -1;
    }
    sc->next = m->scrapes_inflight;
    if (m->scrapes_inflight != NULL)
        m->scrapes_inflight->prev = sc;
    m->scrapes_inflight = sc;
    if (c->b->workers == NULL ||
        gr_workers_submit(c->b->workers, scrape_work, scrape_done, sc) != 0) {
        /* no worker: here and now */
        write_all(sc);
        scrape_done(c->b->loop, sc);
        return 0;
    }
    *out = sc;
    return 0;
}

void
gr_metrics_scrape_forget(gr_scrape_t *sc)
{
    if (sc == NULL)
        return;
    scrape_unlink(sc);
    sc->c = NULL;
}
