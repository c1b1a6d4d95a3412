/*
 * ListOffsets (api key 2): the earliest offset, the latest (the high
 * watermark, or the last stable offset for read_committed from v2), the
 * offset of the largest timestamp (v7+), or the first offset whose record
 * timestamp is at or after a given time (the time index finds the batch,
 * its records give the offset). v0 answers with the old list form.
 * Without tiered storage the latest tiered offset (v9) and the earliest
 * pending upload (v11) are -1, and the earliest local one (v8) is the
 * log start, as Kafka's UnifiedLog answers with remote storage off.
 * Searches through records run on a worker (below).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"
#include "core/time.h"
#include "core/worker.h"
#include "log/log.h"
#include "proto/records.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TS_LATEST          (-1)
#define TS_EARLIEST        (-2)
#define TS_MAX_TIMESTAMP   (-3)
#define TS_EARLIEST_LOCAL  (-4)
#define TS_LATEST_TIERED   (-5)
#define TS_EARLIEST_PENDING_UPLOAD (-6) /* v11, KIP-1023 */

typedef struct ts_search {
    int64_t target;    /* first record with timestamp >= target */
    bool want_max;     /* or the record with the largest timestamp */
    int64_t limit;     /* offsets at or above are not visible */
    int64_t offset;
    int64_t timestamp;
} ts_search_t;

static int
visit(void *arg, const gr_batch_hdr_t *h, const gr_record_t *r)
{
    ts_search_t *s = arg;
    int64_t ts = (h->attributes & GR_ATTR_LOG_APPEND_TIME) ? h->max_timestamp
                                                            : r->timestamp;
    if (r->offset >= s->limit)
        return 1;
    if (s->want_max) {
        if (ts > s->timestamp || s->offset < 0) {
            s->timestamp = ts;
            s->offset = r->offset;
        }
        return 0;
    }
    if (ts >= s->target) {
        s->offset = r->offset;
        s->timestamp = ts;
        return 1;
    }
    return 0;
}

/* Searches the records of the batch(es) in buf (a slice read from the
 * log), inflating into scratch at most max_bytes of each batch's. */
static void
search_records(const uint8_t *buf, size_t len, gr_buf_t *scratch,
               size_t max_bytes, ts_search_t *s)
{
    size_t pos = 0;
    while (pos + GR_BATCH_HEADER_SIZE <= len) {
        gr_batch_hdr_t h;
        gr_batch_hdr_parse(buf + pos, &h);
        if (gr_batch_size(&h) > len - pos)
            break;
        if (!(h.attributes & GR_ATTR_CONTROL))
            gr_batch_foreach_record(buf + pos, gr_batch_size(&h), scratch,
                                    max_bytes, visit, s);
        scratch->len = 0;
        if (s->offset >= 0 && !s->want_max)
            break;
        pos += gr_batch_size(&h);
    }
}

/* The partition of t that qp names, if it may be listed here; else NULL
 * with rp answered with the error. */
static gr_partition_t *
usable_partition(gr_req_t *req, gr_topic_t *t,
                 const gr_list_offsets_request_list_offsets_partition_t *qp,
                 gr_list_offsets_response_list_offsets_partition_response_t *rp)
{
    gr_partition_t *p;
    if (t == NULL || qp->partition_index < 0 ||
        qp->partition_index >= t->nparts) {
        rp->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return NULL;
    }
    p = t->parts[qp->partition_index];
    if (p->leader != req->broker->node_id) {
        rp->error_code = GR_KERR_NOT_LEADER_OR_FOLLOWER;
        return NULL;
    }
    if (p->log == NULL || gr_log_offline(p->log)) {
        rp->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
        return NULL;
    }
    if (qp->current_leader_epoch >= 0 &&
        qp->current_leader_epoch != p->leader_epoch) {
        rp->error_code = qp->current_leader_epoch < p->leader_epoch
                             ? GR_KERR_FENCED_LEADER_EPOCH
                             : GR_KERR_UNKNOWN_LEADER_EPOCH;
        return NULL;
    }
    return p;
}

/* A partition's answer: offset and ts (-1: none), in the form of the
 * request's version. */
static void
answer(gr_req_t *req, const gr_partition_t *p,
       const gr_list_offsets_request_list_offsets_partition_t *qp,
       gr_list_offsets_response_list_offsets_partition_response_t *rp,
       int64_t offset, int64_t ts)
{
    if (req->version == 0) {
        /* v0: a list, newest first, of at most max_num_offsets */
        int64_t *offs = gr_arena_alloc(req->a, sizeof(int64_t));
        rp->old_style_offsets = offs;
        rp->old_style_offsets_cnt = 0;
        if (offs && offset >= 0 && qp->max_num_offsets > 0) {
            offs[0] = offset;
            rp->old_style_offsets_cnt = 1;
        }
        return;
    }
    rp->offset = offset;
    rp->timestamp = ts;
    rp->leader_epoch = offset >= 0 ? p->leader_epoch : -1;
}

/* --- searches through records, on a worker
 *
 * A timestamp (or the max timestamp) whose batch the indexes find is
 * answered from that batch's records: read, inflated when compressed, and
 * walked. That runs on the inflation worker (b->inflate_workers, Produce's:
 * one thread, one job at a time, so what jobs hold at once is one batch
 * and its inflated records), the request held (gr_req_defer) and its
 * connection reading nothing more meanwhile, so answers keep their order.
 * The request's searches go in rounds of at most max_held_files files (a
 * request naming thousands of partitions keeps no more files open than a
 * Fetch answer); a file is held for its round, so a segment deleted
 * meanwhile (retention, topic deletion) is still read. Each round's
 * partitions are looked up again when it comes back, by name and topic id:
 * one deleted meanwhile is UNKNOWN_TOPIC_OR_PARTITION, one whose leadership
 * moved NOT_LEADER_OR_FOLLOWER, as Kafka would have answered a moment
 * later. The earliest and latest offsets, and whatever the indexes answer
 * without records, stay on the loop. */

typedef struct search_item {
    /* the request's (loop thread only, while the request lives) */
    gr_list_offsets_response_list_offsets_partition_response_t *rp;
    const gr_list_offsets_request_list_offsets_partition_t *qp;
    const gr_str_t *topic;
    gr_uuid_t topic_id;
    /* this round's slice: the worker reads it */
    gr_file_t *file; /* a reference, or NULL: answered, or not yet sliced */
    int64_t pos;
    int32_t len;
    ts_search_t s;
    bool failed; /* worker: the read failed */
} search_item_t;

typedef struct lo_job {
    gr_broker_t *b;
    gr_req_t *req;        /* NULL once the connection is gone */
    search_item_t *items; /* every search of the request */
    int32_t n, cap;
    int32_t next;       /* the first item not yet sliced */
    int32_t first, end; /* the round running: items [first, end) */
    size_t max_bytes;   /* a batch's records inflated at most */
    bool deferred;
    int64_t took_us; /* worker: the round's time */
} lo_job_t;

static void
job_free(lo_job_t *job)
{
    if (job == NULL)
        return;
    for (int32_t i = 0; i < job->n; i++)
        gr_file_unref(job->items[i].file);
    free(job->items);
    free(job);
}

/* Notes a partition whose answer needs its records; the job is made on
 * first use. -1 on ENOMEM. */
static int
job_add(gr_req_t *req, lo_job_t **jobp, const gr_str_t *topic,
        const gr_uuid_t *id,
        const gr_list_offsets_request_list_offsets_partition_t *qp,
        gr_list_offsets_response_list_offsets_partition_response_t *rp)
{
    lo_job_t *job = *jobp;
    search_item_t *it;
    if (job == NULL) {
        job = *jobp = calloc(1, sizeof(*job));
        if (job == NULL)
            return -1;
        job->b = req->broker;
        job->req = req;
        job->max_bytes = req->broker->max_decompressed;
    }
    if (job->n == job->cap) {
        int32_t cap = job->cap ? job->cap * 2 : 8;
        search_item_t *v = realloc(job->items, (size_t)cap * sizeof(*v));
        if (v == NULL)
            return -1;
        job->items = v;
        job->cap = cap;
    }
    it = &job->items[job->n++];
    memset(it, 0, sizeof(*it));
    it->rp = rp;
    it->qp = qp;
    it->topic = topic;
    it->topic_id = *id;
    return 0;
}

/* On the worker: reads and searches the round's slices. Touches only the
 * job's items and the files they hold. */
static void
job_work(void *arg)
{
    lo_job_t *job = arg;
    int64_t t0 = gr_mono_us();
    gr_buf_t scratch = GR_BUF_INIT;
    uint8_t *raw = NULL;
    size_t raw_cap = 0;

    for (int32_t i = job->first; i < job->end; i++) {
        search_item_t *it = &job->items[i];
        if (it->file == NULL)
            continue;
        if ((size_t)it->len > raw_cap) {
            uint8_t *p = realloc(raw, (size_t)it->len);
            if (p == NULL) {
                it->failed = true;
                continue;
            }
            raw = p;
            raw_cap = (size_t)it->len;
        }
        if (pread(it->file->fd, raw, (size_t)it->len, it->pos) != it->len) {
            it->failed = true;
            continue;
        }
        search_records(raw, (size_t)it->len, &scratch, job->max_bytes, &it->s);
    }
    free(raw);
    gr_buf_fini(&scratch);
    job->took_us = gr_mono_us() - t0;
}

/* The item's partition as it is now: NULL (rp answered with the error)
 * when its topic was deleted (or made again) or the partition can no
 * longer be read here. */
static gr_partition_t *
lookup_again(gr_req_t *req, search_item_t *it)
{
    gr_topic_t *t = gr_cluster_topic(req->broker->cluster, it->topic);
    if (t != NULL && !gr_uuid_eq(&t->id, &it->topic_id))
        t = NULL;
    return usable_partition(req, t, it->qp, it->rp);
}

/* Finds the slice each item from job->next must search, answering at once
 * those that need none (or whose slice cannot be found: rp answered with
 * the error), until max_held_files files are held: the round. Returns the
 * number of slices to read. */
static int32_t
round_prepare(lo_job_t *job)
{
    gr_req_t *req = job->req;
    const gr_list_offsets_request_t *rq = req->body;
    int32_t nfiles = 0;
    int32_t max_files = job->b->max_held_files > 0 ? job->b->max_held_files : 1;

    job->first = job->next;
    while (job->next < job->n && nfiles < max_files) {
        search_item_t *it = &job->items[job->next++];
        gr_partition_t *p = lookup_again(req, it);
        int64_t visible;
        gr_log_slice_t sl;
        if (p == NULL)
            continue;
        visible =
            rq->isolation_level == 1 ? gr_partition_lso(p) : p->high_watermark;
        memset(&sl, 0, sizeof(sl));
        if (it->qp->timestamp == TS_MAX_TIMESTAMP) {
            int64_t mts, moff;
            it->s = (ts_search_t){ 0, true, visible, -1, -1 };
            gr_log_max_timestamp(p->log, &mts, &moff);
            if (moff < 0 || moff >= visible ||
                gr_log_read(p->log, moff, 1, visible, true, &sl) != 0)
                sl.len = 0;
        } else {
            it->s = (ts_search_t){ it->qp->timestamp, false, visible, -1, -1 };
            if (gr_log_find_timestamp(p->log, it->qp->timestamp, &sl) != 0) {
                it->rp->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
                continue;
            }
        }
        if (sl.len <= 0) {
            /* the indexes answer: no record at or after the time */
            answer(req, p, it->qp, it->rp, -1, -1);
            continue;
        }
        it->file = gr_file_ref(sl.file);
        it->pos = sl.pos;
        it->len = sl.len;
        nfiles++;
    }
    job->end = job->next;
    return nfiles;
}

static void job_done(gr_loop_t *loop, void *arg);

static void
job_abort(gr_req_t *req)
{
    lo_job_t *job = req->owner;
    job->req = NULL; /* the round running frees it when back */
}

/* Runs the rounds left: each on the worker, the last answered by its
 * done(). Returns what gr_req_reply() returns, or 0 when deferred. */
static int
job_run(lo_job_t *job)
{
    gr_req_t *req = job->req;
    gr_broker_t *b = job->b;

    while (job->next < job->n) {
        if (round_prepare(job) == 0)
            continue;
        if (b->inflate_workers != NULL &&
            gr_workers_submit(b->inflate_workers, job_work, job_done, job) ==
                0) {
            if (!job->deferred) {
                job->deferred = true;
                gr_req_defer(req, job_abort, job);
            }
            return 0;
        }
        /* no worker to be had: the search is done here, late but right */
        GR_LOG_WARN("list offsets from %s: no worker; its records are "
                    "searched on the loop",
                    gr_req_peer(req));
        job_work(job);
        job_done(b->loop, job);
        return 0;
    }
    job_free(job);
    return gr_req_reply(req);
}

/* Back on the loop: the round's answers, their partitions looked up again,
 * then the next round or the reply. */
static void
job_done(gr_loop_t *loop, void *arg)
{
    lo_job_t *job = arg;
    gr_req_t *req = job->req;
    int32_t nread = 0;

    (void)loop;
    for (int32_t i = job->first; i < job->end; i++) {
        search_item_t *it = &job->items[i];
        gr_partition_t *p;
        if (it->file == NULL)
            continue;
        gr_file_unref(it->file);
        it->file = NULL;
        nread++;
        if (req == NULL || (p = lookup_again(req, it)) == NULL)
            continue;
        if (it->failed) {
            GR_LOG_ERROR("list offsets of %.*s-%d: the records at %lld "
                         "could not be read",
                         (int)it->topic->len, it->topic->ptr,
                         it->qp->partition_index, (long long)it->pos);
            it->rp->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
            continue;
        }
        answer(req, p, it->qp, it->rp, it->s.offset, it->s.timestamp);
    }
    if (req == NULL) {
        job_free(job);
        return;
    }
    GR_LOG_DEBUG("list offsets from %s: %d partitions searched in %lld us "
                 "on a worker",
                 gr_req_peer(req), (int)nread, (long long)job->took_us);
    job_run(job);
}

/* Answers one partition, or leaves it to the job (*jobp) when its records
 * must be searched. -1 on ENOMEM. */
static int
list_partition(gr_req_t *req, const gr_list_offsets_request_t *rq,
               gr_topic_t *t, const gr_str_t *topic,
               const gr_list_offsets_request_list_offsets_partition_t *qp,
               gr_list_offsets_response_list_offsets_partition_response_t *rp,
               lo_job_t **jobp)
{
    gr_partition_t *p;
    int64_t offset = -1;

    gr_list_offsets_response_list_offsets_partition_response_init(rp);
    rp->partition_index = qp->partition_index;
    rp->offset = -1;
    rp->timestamp = -1;
    if ((p = usable_partition(req, t, qp, rp)) == NULL)
        return 0;
    switch (qp->timestamp) {
    case TS_LATEST:
        offset =
            rq->isolation_level == 1 ? gr_partition_lso(p) : p->high_watermark;
        break;
    case TS_EARLIEST:
    case TS_EARLIEST_LOCAL:
        offset = gr_log_start_offset(p->log);
        break;
    case TS_LATEST_TIERED:
    case TS_EARLIEST_PENDING_UPLOAD:
        offset = -1; /* no tiered storage: -1 and epoch -1, as Kafka's */
        break;
    default:
        if (qp->timestamp < 0 && qp->timestamp != TS_MAX_TIMESTAMP) {
            rp->error_code = GR_KERR_INVALID_REQUEST;
            return 0;
        }
        /* found from the records: the job's */
        return job_add(req, jobp, topic, &t->id, qp, rp);
    }
    answer(req, p, qp, rp, offset, -1);
    return 0;
}

/* Whether Kafka refuses timestamp at version with UNSUPPORTED_VERSION
 * (ReplicaManager.isListOffsetsTimestampUnsupported): a negative one it
 * does not know, or one newer than the version (-1, -2 from v1, -3 v7, -4
 * v8, -5 v9, -6 v11). v0 is served for Kafka 3.x clients, as 3.x served
 * -1 and -2 there. */
static bool
timestamp_unsupported(int64_t ts, int16_t version)
{
    int16_t min;
    if (ts >= 0 || version == 0)
        return false;
    switch (ts) {
    case TS_LATEST:
    case TS_EARLIEST:
        min = 1;
        break;
    case TS_MAX_TIMESTAMP:
        min = 7;
        break;
    case TS_EARLIEST_LOCAL:
        min = 8;
        break;
    case TS_LATEST_TIERED:
        min = 9;
        break;
    case TS_EARLIEST_PENDING_UPLOAD:
        min = 11;
        break;
    default:
        return true;
    }
    return version < min;
}

/* A partition answered with err only: offset, timestamp and leader epoch
 * -1, as Kafka's buildErrorResponse. */
static void
error_partition(const gr_list_offsets_request_list_offsets_partition_t *qp,
                gr_kerr_t err,
                gr_list_offsets_response_list_offsets_partition_response_t *rp)
{
    gr_list_offsets_response_list_offsets_partition_response_init(rp);
    rp->partition_index = qp->partition_index;
    rp->error_code = err;
    rp->offset = -1;
    rp->timestamp = -1;
    rp->leader_epoch = -1;
    rp->old_style_offsets = NULL;
    rp->old_style_offsets_cnt = 0;
}

/* Each request partition's key: the topic name's bytes and then the
 * index's. NULL when out of memory. */
static gr_str_t *
partition_keys(gr_req_t *req, const gr_list_offsets_request_t *rq, int32_t nt,
               int32_t *m)
{
    int64_t n = 0;
    gr_str_t *keys;

    *m = 0;
    for (int32_t i = 0; i < nt; i++)
        n +=
            rq->topics[i].partitions_cnt > 0 ? rq->topics[i].partitions_cnt : 0;
    if (n > INT32_MAX)
        return NULL;
    keys = gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*keys));
    if (keys == NULL)
        return NULL;
    for (int32_t i = 0; i < nt; i++) {
        const gr_str_t *name = &rq->topics[i].name;
        size_t len = name->len > 0 ? (size_t)name->len : 0;
        for (int32_t k = 0; k < rq->topics[i].partitions_cnt; k++) {
            char *b = gr_arena_alloc(req->a, len + sizeof(int32_t));
            if (b == NULL)
                return NULL;
            if (len)
                memcpy(b, name->ptr, len);
            memcpy(b + len, &rq->topics[i].partitions[k].partition_index,
                   sizeof(int32_t));
            keys[(*m)++] = (gr_str_t){ b, (int32_t)(len + sizeof(int32_t)) };
        }
    }
    return keys;
}

/* An isolation level other than 0 and 1 (v2+): Kafka's
 * IsolationLevel.forId throws, and the request's getErrorResponse answers
 * every partition as listed UNKNOWN_SERVER_ERROR. */
static int
bad_isolation(gr_req_t *req, const gr_list_offsets_request_t *rq,
              gr_list_offsets_response_t *rs, int32_t nt)
{
    GR_LOG_DEBUG("ListOffsets v%d from %s: unknown isolation level %d",
                 req->version, gr_req_peer(req), rq->isolation_level);
    rs->topics_cnt = nt;
    for (int32_t i = 0; i < nt; i++) {
        const gr_list_offsets_request_list_offsets_topic_t *qt = &rq->topics[i];
        gr_list_offsets_response_list_offsets_topic_response_t *rt =
            &rs->topics[i];
        int32_t np = qt->partitions_cnt > 0 ? qt->partitions_cnt : 0;
        rt->name = qt->name;
        rt->partitions = gr_arena_alloc(req->a, (size_t)(np ? np : 1) *
                                                    sizeof(*rt->partitions));
        if (rt->partitions == NULL)
            return gr_req_close(req, "out of memory");
        rt->partitions_cnt = np;
        for (int32_t k = 0; k < np; k++)
            error_partition(&qt->partitions[k], GR_KERR_UNKNOWN_SERVER_ERROR,
                            &rt->partitions[k]);
    }
    return gr_req_reply(req);
}

/*
 * As Kafka's ReplicaManager.fetchOffset, which keys its answers by
 * partition and groups them by topic: a topic listed in several entries is
 * answered in one (the first's place), a partition listed more than once
 * once, INVALID_REQUEST (its duplicatePartitions).
 */
int
gr_api_list_offsets(gr_req_t *req)
{
    const gr_list_offsets_request_t *rq = req->body;
    gr_list_offsets_response_t *rs = req->resp;
    int32_t nt = rq->topics_cnt > 0 ? rq->topics_cnt : 0;
    int32_t m, e, nout = 0;
    int32_t *tfirst, *pfirst, *slot;
    gr_str_t *keys;
    bool *dup;
    lo_job_t *job = NULL;

    rs->topics = gr_arena_zalloc(req->a, (size_t)(nt ? nt : 1) *
                                             sizeof(*rs->topics));
    if (rs->topics == NULL)
        return gr_req_close(req, "out of memory");
    if (rq->isolation_level != 0 && rq->isolation_level != 1)
        return bad_isolation(req, rq, rs, nt);

    keys = partition_keys(req, rq, nt, &m);
    tfirst = gr_topics_first_of(req->a, nt ? &rq->topics[0].name : NULL,
                                sizeof(rq->topics[0]), nt);
    pfirst = keys ? gr_topics_first_of(req->a, keys, sizeof(*keys), m) : NULL;
    dup = keys ? gr_str_repeats(req->a, keys, sizeof(*keys), m) : NULL;
    slot = gr_arena_alloc(req->a, (size_t)(nt ? nt : 1) * sizeof(*slot));
    if (tfirst == NULL || pfirst == NULL || dup == NULL || slot == NULL)
        return gr_req_close(req, "out of memory");
    /* each distinct topic's answer, and how many partitions it lists */
    e = 0;
    for (int32_t i = 0; i < nt; i++) {
        const gr_list_offsets_request_list_offsets_topic_t *qt = &rq->topics[i];
        gr_list_offsets_response_list_offsets_topic_response_t *rt;
        if (tfirst[i] == i) {
            slot[i] = nout++;
            rs->topics[slot[i]].name = qt->name;
        } else {
            slot[i] = slot[tfirst[i]];
        }
        rt = &rs->topics[slot[i]];
        for (int32_t k = 0; k < qt->partitions_cnt; k++, e++)
            if (pfirst[e] == e)
                rt->partitions_cnt++;
    }
    rs->topics_cnt = nout;
    for (int32_t j = 0; j < nout; j++) {
        gr_list_offsets_response_list_offsets_topic_response_t *rt =
            &rs->topics[j];
        rt->partitions = gr_arena_alloc(req->a, (size_t)(rt->partitions_cnt
                                                             ? rt->partitions_cnt
                                                             : 1) *
                                                    sizeof(*rt->partitions));
        if (rt->partitions == NULL)
            return gr_req_close(req, "out of memory");
        rt->partitions_cnt = 0;
    }
    e = 0;
    for (int32_t i = 0; i < nt; i++) {
        const gr_list_offsets_request_list_offsets_topic_t *qt = &rq->topics[i];
        gr_list_offsets_response_list_offsets_topic_response_t *rt =
            &rs->topics[slot[i]];
        gr_topic_t *t = gr_cluster_topic(req->broker->cluster, &qt->name);
        /* DESCRIBE on the topic first (Kafka's partitionByAuthorized) */
        bool denied = !gr_authz(req, GR_RES_TOPIC, &qt->name, GR_OP_DESCRIBE);
        for (int32_t k = 0; k < qt->partitions_cnt; k++, e++) {
            const gr_list_offsets_request_list_offsets_partition_t *qp =
                &qt->partitions[k];
            gr_list_offsets_response_list_offsets_partition_response_t *rp;
            if (pfirst[e] != e)
                continue;
            rp = &rt->partitions[rt->partitions_cnt++];
            if (denied)
                error_partition(qp, GR_KERR_TOPIC_AUTHORIZATION_FAILED, rp);
            else if (dup[e])
                error_partition(qp, GR_KERR_INVALID_REQUEST, rp);
            else if (timestamp_unsupported(qp->timestamp, req->version))
                error_partition(qp, GR_KERR_UNSUPPORTED_VERSION, rp);
            else if (list_partition(req, rq, t, &qt->name, qp, rp, &job) != 0) {
                job_free(job);
                return gr_req_close(req, "out of memory");
            }
        }
    }
    if (job != NULL)
        return job_run(job);
    return gr_req_reply(req);
}
