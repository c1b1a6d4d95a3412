/*
 * Fetch (api key 1): reads each partition from its log up to the high
 * watermark (or the last stable offset for read_committed, with the
 * aborted transactions overlapping what is sent, from the partition's
 * aborted-transaction index) and answers with file ranges that the
 * connection sends with sendfile. Fetch v0-v3 clients get their data
 * down-converted to legacy message sets in memory by a worker thread, the
 * requests taking turns by slices, while the loop serves the others
 * (gr_fetch_job below); a v4+ response past the files one response may
 * hold copies the rest. Every answer stays within fetch.max.bytes, as
 * Kafka's.
 *
 * Long polling: when less than min_bytes is available the request waits
 * (gr_req_defer) on every partition it reads, and is answered as soon as
 * appends bring enough bytes (the partition layer wakes its waiters,
 * partition/partition.h, and waiter_wake marks it; the loop
 * completes marked fetches before sleeping) or max_wait_ms passes.
 * Fetch sessions (KIP-227, fetch_session.c) from v7.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/fetch_session.h"
#include "broker_repl.h"
#include "cluster/client_quotas.h"
#include "core/time.h"
#include "log/log.h"
#include "log/producer_state.h"
#include "log/txn_index.h"
#include "partition/partition.h"
#include "proto/records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A request waiting on a partition (partition/partition.h): woken by
 * every append to it. */
typedef struct fetch_waiter {
    gr_partition_waiter_t w; /* first: wake() casts back */
    struct fetch_ctx *ctx;
} fetch_waiter_t;

typedef struct fetch_part {
    gr_str_t topic;
    gr_uuid_t topic_id;
    int32_t partition;
    int64_t fetch_offset;
    int32_t max_bytes;
    int32_t current_leader_epoch;
    int32_t last_fetched_epoch; /* v12+, -1 none */
    int32_t sess_idx; /* index in the session's parts, -1 none */
    fetch_waiter_t waiter;
} fetch_part_t;

struct gr_fetch_job;

typedef struct fetch_ctx {
    gr_req_t *req;
    struct gr_fetch_job *job; /* partitions answered from memory, or NULL */
    bool job_queued;         /* job is the worker's: wait for its done */
    int32_t max_bytes;       /* the response's bound (fetch.max.bytes) */
    gr_file_t **files;       /* borrowed by the last build (ctx_hold) */
    int nfiles, files_cap;
    gr_fetch_response_fetchable_topic_response_t *rtopics; /* the answer's */
    gr_fetch_response_partition_data_t *rparts; /* (nparts each) */
    bool final;              /* this build is the answer (else a plan) */
    bool planned;            /* a plan left reading to the answer's build */
    fetch_part_t *parts;
    int32_t nparts;
    int32_t session_id;  /* answered in the response */
    bool incremental;
    int64_t accumulated; /* bytes available so far (estimate) */
    int32_t min_bytes;
    gr_timer_t timer;
    bool waiting;
    bool dirty;
    bool diverged; /* a follower's log diverges: no waiting */
    struct fetch_ctx *dirty_next;
} fetch_ctx_t;

/* --- waiting */

static void
mark_dirty(gr_broker_t *b, fetch_ctx_t *ctx)
{
    if (ctx->dirty)
        return;
    ctx->dirty = true;
    ctx->dirty_next = b->fetch_dirty;
    b->fetch_dirty = ctx;
}

/* partition layer: bytes were appended to a partition ctx waits on */
static void
waiter_wake(gr_partition_waiter_t *pw, size_t bytes)
{
    fetch_ctx_t *ctx = ((fetch_waiter_t *)pw)->ctx;
    ctx->accumulated += (int64_t)bytes;
    if (ctx->accumulated >= ctx->min_bytes)
        mark_dirty(ctx->req->broker, ctx);
}

/* The replica id of the request: v15+ in ReplicaState (KIP-903); -1 for
 * a consumer. */
static int32_t
fetch_replica(const gr_req_t *req)
{
    const gr_fetch_request_t *rq = req->body;
    return req->version >= 15 ? rq->replica_state.replica_id : rq->replica_id;
}

static void
waiter_link(fetch_part_t *fp, gr_partition_t *p, fetch_ctx_t *ctx)
{
    fp->waiter.ctx = ctx;
    fp->waiter.w.wake = waiter_wake;
    /* a follower reads to the log end, a consumer to the high watermark */
    fp->waiter.w.on_hw = fetch_replica(ctx->req) < 0;
    gr_partition_wait(p, &fp->waiter.w);
}

void
gr_partition_gone(gr_broker_t *b, gr_partition_t *p)
{
    while (p->waiters) {
        fetch_waiter_t *w = (fetch_waiter_t *)p->waiters;
        mark_dirty(b, w->ctx);
        gr_partition_unwait(&w->w);
    }
}

static void
stop_waiting(fetch_ctx_t *ctx)
{
    gr_broker_t *b = ctx->req->broker;
    for (int32_t i = 0; i < ctx->nparts; i++)
        gr_partition_unwait(&ctx->parts[i].waiter.w);
    gr_timer_stop(b->loop, &ctx->timer);
    if (ctx->dirty) {
        fetch_ctx_t **pp = (fetch_ctx_t **)&b->fetch_dirty;
        while (*pp && *pp != ctx)
            pp = &(*pp)->dirty_next;
        if (*pp)
            *pp = ctx->dirty_next;
        ctx->dirty = false;
    }
    ctx->waiting = false;
}

/* --- reading */

static gr_partition_t *
resolve(gr_broker_t *b, const fetch_part_t *fp, int16_t ver, gr_kerr_t *err)
{
    gr_topic_t *t;
    if (ver >= 13) {
        t = gr_cluster_topic_by_id(b->cluster, &fp->topic_id);
        if (t == NULL) {
            *err = GR_KERR_UNKNOWN_TOPIC_ID;
            return NULL;
        }
    } else {
        t = gr_cluster_topic(b->cluster, &fp->topic);
    }
    if (t == NULL || fp->partition < 0 || fp->partition >= t->nparts) {
        *err = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return NULL;
    }
    *err = GR_KERR_NONE;
    return t->parts[fp->partition];
}

int64_t
gr_partition_lso(const gr_partition_t *p)
{
    int64_t first = p->pstate ? gr_pstate_first_unstable(p->pstate) : -1;
    return first >= 0 && first < p->high_watermark ? first
                                                    : p->high_watermark;
}

typedef struct aborted_acc {
    gr_arena_t *a;
    gr_fetch_response_aborted_transaction_t *v;
    int32_t n, cap;
} aborted_acc_t;

static void
add_aborted(void *arg, const gr_aborted_txn_t *t)
{
    aborted_acc_t *acc = arg;
    if (acc->n == acc->cap) {
        int32_t cap = acc->cap ? acc->cap * 2 : 8;
        gr_fetch_response_aborted_transaction_t *v =
            gr_arena_alloc(acc->a, (size_t)cap * sizeof(*v));
        if (v == NULL)
            return;
        if (acc->n)
            memcpy(v, acc->v, (size_t)acc->n * sizeof(*v));
        acc->v = v;
        acc->cap = cap;
    }
    acc->v[acc->n].producer_id = t->producer_id;
    acc->v[acc->n].first_offset = t->first_offset;
    acc->n++;
}

/* read_committed: the aborted transactions overlapping [from, upper), as
 * Kafka's UnifiedLog.collectAbortedTransactions. */
static void
fill_aborted(gr_req_t *req, const gr_partition_t *p, int64_t from,
             int64_t upper, gr_fetch_response_partition_data_t *rp)
{
    aborted_acc_t acc = { req->a, NULL, 0, 0 };
    const gr_txnidx_t *ix = p->pstate ? gr_pstate_txnidx(p->pstate) : NULL;
    if (ix != NULL && upper > from)
        gr_txnidx_collect(ix, from, upper, add_aborted, &acc);
    rp->aborted_transactions = acc.v;
    rp->aborted_transactions_cnt = acc.n;
}

/* --- down-conversion (Fetch v0-v3)
 *
 * Each partition with records becomes an item of the request's job. The
 * loop finds the slices (index lookups); a worker preads them, converts
 * them to legacy message sets and puts the records of every item back to
 * back in one buffer, which the response then sends where it is (records
 * by reference: no copy on the loop). The first max_held_files items hold
 * their files from the start; the others (a fetch of thousands of
 * partitions must not keep thousands of files open) are found again when
 * the job comes to them, so that a queued job holds no data.
 *
 * A job runs in slices of about JOB_SLICE bytes read (or one batch), one
 * slice at a time on one worker (the other stays free for fsyncs and new
 * partitions), the jobs admitted taking turns (round-robin: a connection
 * has one request, so one job, at a time): a small fetch waits for a slice
 * of each job ahead, not for whole answers of 55 MiB. Jobs are admitted
 * while the answers they may make (what they read, at most the response's
 * bound) take no more than JOB_ACTIVE_ANSWERS times fetch.max.bytes in all;
 * a job of at most one slice is admitted at once. The others wait in the
 * order they came, holding nothing but the files of their first items. */

#define JOB_SLICE (1 << 20)
#define JOB_ACTIVE_ANSWERS 2

typedef struct mem_item {
    gr_fetch_response_partition_data_t *rp; /* in the request arena */
    const fetch_part_t *fp; /* the partition asked (the request arena) */
    gr_file_t *file;        /* a reference while held, or NULL */
    bool deferred;          /* past max_held_files: read again at its turn */
    bool partial;           /* v0-v2: the first batch is cut (overflow) */
    int64_t pos;
    int32_t len;            /* bytes of the slice */
    int64_t upper;          /* the read's upper offset (deferred) */
    int32_t max_bytes;      /* the partition's share (conversion) */
    /* the worker's (and the loop's between slices) */
    bool started, finished, failed;
    gr_kerr_t err;          /* failed: the partition's error */
    int32_t done;           /* bytes of the slice converted */
    int64_t limit;          /* what its records may take */
    size_t out_off;         /* where its records start in job->out */
    size_t out_len;         /* and their length */
} mem_item_t;

enum { JOB_NEW, JOB_PENDING, JOB_ACTIVE, JOB_RUNNING };

typedef struct gr_fetch_job {
    struct gr_fetch_job *next; /* b->fetch_active or b->fetch_pending */
    gr_broker_t *b;
    fetch_ctx_t *ctx;        /* NULL once the request is gone */
    mem_item_t *items;
    int32_t nitems, cap;
    int nfiles;              /* items with a file from the start */
    int magic;               /* down-convert to 0 or 1 */
    bool legacy;             /* v0-v2: a cut first batch is sent cut */
    int64_t budget;          /* the response's bytes left for the items */
    bool min_one;            /* the first records go whole (v3) */
    int state;               /* JOB_* */
    size_t reserve;          /* counted in b->fetch_active_bytes */
    int32_t cur;             /* the first item not finished */
    int32_t slice_end;       /* the next slice's items: [cur, slice_end) */
    gr_buf_t out;            /* worker: the items' records */
    int64_t took_us;         /* worker: time it took */
    int slices;
} fetch_job_t;

static void
job_clear(fetch_job_t *job)
{
    for (int32_t i = 0; i < job->nitems; i++)
        gr_file_unref(job->items[i].file);
    job->nitems = 0;
    job->nfiles = 0;
    gr_buf_fini(&job->out);
}

static void
job_free(fetch_job_t *job)
{
    if (job == NULL)
        return;
    job_clear(job);
    free(job->items);
    free(job);
}

/* Adds rp's slice to the request's job (made on first use): by its file
 * while the response holds fewer than max_held_files, else to be found
 * again when the job comes to it (the answer's build only; a plan just
 * notes it). -1 on ENOMEM. */
static int
job_add(fetch_ctx_t *ctx, const fetch_part_t *fp,
        gr_fetch_response_partition_data_t *rp, const gr_log_slice_t *sl,
        int32_t max_bytes)
{
    fetch_job_t *job = ctx->job;
    mem_item_t *it;
    if (job == NULL) {
        job = ctx->job = calloc(1, sizeof(*job));
        if (job == NULL)
            return -1;
        job->b = ctx->req->broker;
    }
    if (job->nitems == job->cap) {
        int32_t cap = job->cap ? job->cap * 2 : 8;
        mem_item_t *v = realloc(job->items, (size_t)cap * sizeof(*v));
        if (v == NULL)
            return -1;
        job->items = v;
        job->cap = cap;
    }
    if (ctx->nfiles + job->nfiles >= ctx->req->broker->max_held_files &&
        !ctx->final) {
        ctx->planned = true;
        return 0;
    }
    it = &job->items[job->nitems];
    memset(it, 0, sizeof(*it));
    it->rp = rp;
    it->fp = fp;
    it->pos = sl->pos;
    it->len = sl->len;
    it->upper = sl->upper_offset;
    it->max_bytes = max_bytes;
    it->partial = ctx->req->version <= 2 && sl->first_size > sl->len;
    if (it->partial) {
        /* nothing to read: the answer is an overflow entry */
    } else if (ctx->nfiles + job->nfiles < ctx->req->broker->max_held_files) {
        it->file = gr_file_ref(sl->file);
        job->nfiles++;
    } else {
        it->deferred = true;
    }
    job->nitems++;
    return 0;
}

/* Kafka's overflow entry (LazyDownConversionRecordsSend): n bytes of an
 * entry at offset -1 longer than what follows, which an old client takes
 * for a message larger than its fetch size (RecordTooLargeException),
 * where Kafka 3.x sent a v0-v2 consumer the cut first message. */
static void
put_overflow(gr_buf_t *out, int32_t n)
{
    uint8_t h[12];
    size_t at = out->len;
    gr_put_u64(h, UINT64_MAX);
    gr_put_u32(h + 8, (uint32_t)(n + 1 > GR_BATCH_HEADER_SIZE
                                     ? n + 1
                                     : GR_BATCH_HEADER_SIZE));
    if (gr_buf_reserve(out, (size_t)n) != 0)
        return;
    memset(out->ptr + at, 0, (size_t)n);
    memcpy(out->ptr + at, h, n < 12 ? (size_t)n : 12);
    out->len = at + (size_t)n;
}

/* Worker: the item's records end here. */
static void
item_finish(fetch_job_t *job, mem_item_t *it)
{
    it->finished = true;
    if (it->failed) {
        job->out.len = it->out_off;
        return;
    }
    if (job->out.len == it->out_off && it->partial && it->limit > 0)
        put_overflow(&job->out, it->len < it->limit ? it->len
                                                    : (int32_t)it->limit);
    it->out_len = job->out.len - it->out_off;
    job->budget = job->budget > (int64_t)it->out_len
                      ? job->budget - (int64_t)it->out_len
                      : 0;
    if (it->out_len > 0)
        job->min_one = false;
}

/* Worker: converts up to *left bytes of the item's slice, a part at a
 * time; the item is finished when its slice is, or its bound reached. */
static void
item_work(fetch_job_t *job, mem_item_t *it, uint8_t **raw, size_t *raw_cap,
          int64_t *left)
{
    if (!it->started) {
        it->started = true;
        it->out_off = job->out.len;
        it->limit = it->max_bytes < job->budget ? it->max_bytes : job->budget;
        if ((it->limit <= 0 && !job->min_one) || it->partial) {
            item_finish(job, it); /* the response is full, or an overflow */
            return;
        }
        if (it->limit < 0)
            it->limit = 0;
    }
    while (!it->finished && *left > 0) {
        size_t rest = (size_t)(it->len - it->done), want, whole = 0, used;
        gr_batch_hdr_t h;
        gr_kerr_t err;
        want = rest < JOB_SLICE ? rest : JOB_SLICE;
        for (int pass = 0; pass < 2; pass++) {
            if (want > *raw_cap) {
                uint8_t *p = realloc(*raw, want);
                if (p == NULL) {
                    it->failed = true;
                    it->err = GR_KERR_KAFKA_STORAGE_ERROR;
                    item_finish(job, it);
                    return;
                }
                *raw = p;
                *raw_cap = want;
            }
            if (pread(it->file->fd, *raw, want, it->pos + it->done) !=
                (ssize_t)want) {
                it->failed = true;
                it->err = GR_KERR_KAFKA_STORAGE_ERROR;
                item_finish(job, it);
                return;
            }
            /* the whole batches read; a first batch larger than the part
             * is read whole */
            while (whole + GR_BATCH_HEADER_SIZE <= want) {
                gr_batch_hdr_parse(*raw + whole, &h);
                if (h.length < 0 || gr_batch_size(&h) > want - whole)
                    break;
                whole += gr_batch_size(&h);
            }
            if (whole > 0 || want < GR_BATCH_HEADER_SIZE || pass > 0)
                break;
            gr_batch_hdr_parse(*raw, &h);
            if (h.length < 0 || gr_batch_size(&h) > rest)
                break;
            want = gr_batch_size(&h);
        }
        if (whole == 0) {
            item_finish(job, it); /* a trailing partial batch */
            return;
        }
        err = gr_records_down_convert_part(
            *raw, whole, job->magic, it->out_off + (size_t)it->limit,
            job->b->max_decompressed, job->out.len == it->out_off, &job->out,
            &used);
        if (err != GR_KERR_NONE) {
            it->failed = true;
            it->err = GR_KERR_KAFKA_STORAGE_ERROR;
            item_finish(job, it);
            return;
        }
        it->done += (int32_t)used;
        *left -= used > 0 ? (int64_t)used : 1;
        if (used < whole || it->done >= it->len)
            item_finish(job, it);
    }
}

/* On a worker: a slice of the job, items [cur, slice_end). Touches only
 * the job (and the files its items hold). */
static void
job_work(void *arg)
{
    fetch_job_t *job = arg;
    int64_t t0 = gr_mono_us(), left = JOB_SLICE;
    uint8_t *raw = NULL;
    size_t raw_cap = 0;

    if (job->out.cap == 0 && gr_buf_reserve(&job->out, job->reserve ? job->reserve : 1) != 0) {
        job->out.oom = 1;
    }
    while (job->cur < job->slice_end && left > 0 && !job->out.oom) {
        mem_item_t *it = &job->items[job->cur];
        if (!it->finished)
            item_work(job, it, &raw, &raw_cap, &left);
        if (it->finished)
            job->cur++;
    }
    free(raw);
    job->took_us += gr_mono_us() - t0;
}

static void job_done(gr_loop_t *loop, void *arg);
static void on_abort(gr_req_t *req);
static int reply(fetch_ctx_t *ctx);

static void
list_append(fetch_job_t **head, fetch_job_t **tail, fetch_job_t *job)
{
    job->next = NULL;
    if (*head == NULL)
        *head = job;
    else
        (*tail)->next = job;
    *tail = job;
}

static fetch_job_t *
list_pop(fetch_job_t **head, fetch_job_t **tail)
{
    fetch_job_t *job = *head;
    if (job != NULL) {
        *head = job->next;
        if (*head == NULL)
            *tail = NULL;
        job->next = NULL;
    }
    return job;
}

static void
list_remove(fetch_job_t **head, fetch_job_t **tail, fetch_job_t *job)
{
    fetch_job_t **pp = head, *prev = NULL;
    while (*pp != NULL && *pp != job) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    GR_ASSERT(*pp == job);
    *pp = job->next;
    if (*tail == job)
        *tail = prev;
    job->next = NULL;
}

/* Admits waiting jobs while the answers of those admitted leave room. */
static void
jobs_admit(gr_broker_t *b)
{
    size_t room = (size_t)gr_conf_int(b->conf, GR_CONF_FETCH_MAX_BYTES) *
                  JOB_ACTIVE_ANSWERS;
    while (b->fetch_pending != NULL &&
           (b->fetch_active_bytes == 0 ||
            b->fetch_active_bytes + b->fetch_pending->reserve <= room)) {
        fetch_job_t *job = list_pop(&b->fetch_pending, &b->fetch_pending_tail);
        job->state = JOB_ACTIVE;
        b->fetch_active_bytes += job->reserve;
        list_append(&b->fetch_active, &b->fetch_active_tail, job);
    }
}

/* On the loop, before a slice: the files of the deferred items it will
 * read (at most max_held_files), found again as the answer's build found
 * them. Sets slice_end; false when every item is finished. */
static bool
slice_prepare(fetch_job_t *job)
{
    gr_broker_t *b = job->b;
    gr_req_t *req = job->ctx->req;
    int64_t bytes = 0;
    int refs = 0, max_refs = b->max_held_files > 0 ? b->max_held_files : 1;
    int32_t i;

    while (job->cur < job->nitems && job->items[job->cur].finished)
        job->cur++;
    for (i = job->cur; i < job->nitems && bytes < JOB_SLICE; i++) {
        mem_item_t *it = &job->items[i];
        gr_partition_t *p;
        gr_log_slice_t sl;
        gr_kerr_t kerr;
        gr_err_t rc = GR_ERR_NOT_FOUND;
        if (it->finished)
            continue;
        if (it->deferred && it->file == NULL) {
            if (refs >= max_refs)
                break;
            p = resolve(b, it->fp, req->version, &kerr);
            if (p != NULL && p->log != NULL && !gr_log_offline(p->log))
                rc = gr_log_read(p->log, it->fp->fetch_offset, it->len,
                                 it->upper, false, &sl);
            if (rc != 0 || sl.len <= 0) {
                GR_LOG_ERROR("fetch from %s: %.*s-%d at %lld cannot be read "
                             "again: %s",
                             gr_req_peer(req), it->fp->topic.len,
                             it->fp->topic.ptr ? it->fp->topic.ptr : "",
                             it->fp->partition,
                             (long long)it->fp->fetch_offset,
                             rc != 0 ? gr_err_str(rc) : "no records");
                it->started = it->finished = it->failed = true;
                it->err = rc == GR_ERR_NOT_FOUND
                              ? GR_KERR_OFFSET_OUT_OF_RANGE
                              : GR_KERR_KAFKA_STORAGE_ERROR;
                it->out_off = job->out.len;
                continue;
            }
            it->file = gr_file_ref(sl.file);
            it->pos = sl.pos;
            if (sl.len < it->len)
                it->len = sl.len;
            refs++;
        }
        bytes += it->len - it->done;
    }
    job->slice_end = i;
    while (job->cur < job->nitems && job->items[job->cur].finished)
        job->cur++;
    return job->cur < job->nitems;
}

/* Answers the job's request with what its items made. */
static void
job_finish(fetch_job_t *job)
{
    gr_broker_t *b = job->b;
    fetch_ctx_t *ctx = job->ctx;
    int nfailed = 0;

    b->fetch_active_bytes -= job->reserve;
    job->reserve = 0;
    for (int32_t i = 0; i < job->nitems; i++) {
        mem_item_t *it = &job->items[i];
        gr_fetch_response_partition_data_t *rp = it->rp;
        rp->records.file = NULL;
        if (it->failed || job->out.oom || !it->finished) {
            rp->error_code =
                it->failed ? it->err : GR_KERR_KAFKA_STORAGE_ERROR;
            rp->records.ptr = NULL;
            rp->records.len = 0;
            nfailed++;
            continue;
        }
        rp->records.ptr = it->out_len ? job->out.ptr + it->out_off : NULL;
        rp->records.len = (int32_t)it->out_len;
        rp->records.by_ref = it->out_len > 0;
        ctx->req->file_bytes += it->out_len;
    }
    if (nfailed > 0)
        GR_LOG_ERROR("fetch from %s: %d of %d partitions could not be "
                     "read%s", gr_req_peer(ctx->req), nfailed,
                     (int)job->nitems, job->out.oom ? " (out of memory)" : "");
    GR_LOG_DEBUG("fetch from %s: %d partitions, %zu bytes read from memory "
                 "in %lld us on a worker, %d slices",
                 gr_req_peer(ctx->req), (int)job->nitems, job->out.len,
                 (long long)job->took_us, job->slices);
    /* the records are sent from the job's buffer, which the request keeps
     * until they are written */
    gr_req_hold_mem(ctx->req, job->out.ptr);
    job->out.ptr = NULL;
    job->out.len = job->out.cap = 0;
    ctx->job = NULL;
    ctx->job_queued = false;
    reply(ctx);
    job_free(job);
}

/* Starts the next slice: the first admitted job's, which then goes behind
 * the others. */
static void
jobs_run(gr_broker_t *b)
{
    while (b->fetch_running == NULL) {
        fetch_job_t *job;
        jobs_admit(b);
        job = list_pop(&b->fetch_active, &b->fetch_active_tail);
        if (job == NULL)
            return;
        if (!slice_prepare(job)) {
            job_finish(job);
            continue;
        }
        job->state = JOB_RUNNING;
        job->slices++;
        b->fetch_running = job;
        if (gr_workers_submit(b->workers, job_work, job_done, job) != 0) {
            job->out.oom = 1; /* every item fails */
            job_done(b->loop, job);
        }
    }
}

static void
job_done(gr_loop_t *loop, void *arg)
{
    fetch_job_t *job = arg;
    gr_broker_t *b = job->b;

    (void)loop;
    GR_ASSERT(b->fetch_running == job);
    b->fetch_running = NULL;
    /* the files of the items done go at once */
    for (int32_t i = 0; i < job->cur; i++)
        if (job->items[i].file != NULL) {
            gr_file_unref(job->items[i].file);
            job->items[i].file = NULL;
        }
    if (job->ctx == NULL) {
        b->fetch_active_bytes -= job->reserve;
        job_free(job);
    } else if (job->cur >= job->nitems || job->out.oom) {
        job_finish(job);
    } else {
        job->state = JOB_ACTIVE;
        list_append(&b->fetch_active, &b->fetch_active_tail, job);
    }
    if (b->stopping) {
        /* shutting down: the connections are gone, and so are the
         * requests of the jobs still queued */
        fetch_job_t *j;
        while ((j = list_pop(&b->fetch_active, &b->fetch_active_tail)))
            job_free(j);
        while ((j = list_pop(&b->fetch_pending, &b->fetch_pending_tail)))
            job_free(j);
        b->fetch_active_bytes = 0;
        return;
    }
    jobs_run(b);
}

/* Queues the request's job; the request is answered by job_finish(). */
static void
job_queue(fetch_ctx_t *ctx)
{
    gr_broker_t *b = ctx->req->broker;
    fetch_job_t *job = ctx->job;
    int64_t reads = 0;

    job->ctx = ctx;
    job->magic = ctx->req->version <= 1 ? 0 : 1;
    job->legacy = ctx->req->version <= 2;
    job->budget = ctx->max_bytes > 0 ? ctx->max_bytes : 0;
    job->min_one = ctx->req->version >= 3;
    ctx->job_queued = true;
    /* what its answer may take: what it reads, within the response's
     * bound (and a first batch) */
    for (int32_t i = 0; i < job->nitems; i++)
        reads += job->items[i].len;
    job->reserve = (size_t)(reads < job->budget ? reads : job->budget);
    if (job->nitems > 0 && job->reserve < (size_t)job->items[0].len)
        job->reserve = (size_t)job->items[0].len;
    if (job->reserve <= JOB_SLICE) {
        job->state = JOB_ACTIVE; /* one slice: at once */
        b->fetch_active_bytes += job->reserve;
        list_append(&b->fetch_active, &b->fetch_active_tail, job);
    } else {
        job->state = JOB_PENDING;
        list_append(&b->fetch_pending, &b->fetch_pending_tail, job);
    }
    jobs_run(b);
}

/* A partition's error answer: no records and the offsets unknown (-1).
 * A partition refused before the read (unknown topic or partition:
 * Kafka's FetchResponse.partitionResponse) has the schema's empty list of
 * aborted transactions; one whose read failed (ReplicaManager's
 * LogReadResult) has none (null). */
static void
part_error(gr_fetch_response_partition_data_t *rp, gr_kerr_t err, bool read)
{
    rp->error_code = err;
    rp->high_watermark = -1;
    rp->last_stable_offset = -1;
    rp->log_start_offset = -1;
    rp->aborted_transactions_cnt = read ? -1 : 0;
    rp->records.len = 0;
}

/* Whether a fetch from replica may read p: a consumer (replica_id < 0)
 * may; a broker only when it is a follower of p (Kafka's
 * Partition.followerReplicaOrThrow). */
static bool
replica_may_fetch(const gr_broker_t *b, const gr_partition_t *p,
                  int32_t replica)
{
    if (replica < 0)
        return true;
    for (int32_t i = 0; i < p->nreplicas; i++)
        if (p->replicas[i] == replica && replica != b->node_id)
            return true;
    return false;
}

/* The files the response being built borrows: referenced here until the
 * reply hands them to the request (gr_req_hold_file), so that a response
 * built again (a session's, a long poll's) or never sent drops them. */
static int
ctx_hold(fetch_ctx_t *ctx, gr_file_t *f)
{
    if (ctx->nfiles == ctx->files_cap) {
        int cap = ctx->files_cap ? ctx->files_cap * 2 : 16;
        gr_file_t **v = gr_arena_alloc(ctx->req->a, (size_t)cap * sizeof(*v));
        if (v == NULL)
            return -1;
        if (ctx->nfiles)
            memcpy(v, ctx->files, (size_t)ctx->nfiles * sizeof(*v));
        ctx->files = v;
        ctx->files_cap = cap;
    }
    ctx->files[ctx->nfiles++] = gr_file_ref(f);
    return 0;
}

/* Drops what the last build took: its files and its job (not yet
 * queued). */
static void
ctx_release(fetch_ctx_t *ctx)
{
    for (int i = 0; i < ctx->nfiles; i++)
        gr_file_unref(ctx->files[i]);
    ctx->nfiles = 0;
    if (ctx->job != NULL && !ctx->job_queued) {
        job_free(ctx->job);
        ctx->job = NULL;
    }
}

/* Fills one partition of the response; returns the record bytes given.
 * Records to be read into memory are left to the caller in *mem (len > 0;
 * rp->records.len is then the slice's length, the data not yet there). */
static int32_t
read_partition(fetch_ctx_t *ctx, const fetch_part_t *fp,
               gr_fetch_response_partition_data_t *rp, int32_t limit,
               bool *min_one, gr_log_slice_t *mem)
{
    gr_req_t *req = ctx->req;
    const gr_fetch_request_t *rq = req->body;
    gr_broker_t *b = req->broker;
    gr_kerr_t kerr;
    gr_partition_t *p = resolve(b, fp, req->version, &kerr);
    gr_log_slice_t sl;
    int64_t max_offset, leo;
    int32_t replica = fetch_replica(req);
    gr_err_t rc;

    memset(mem, 0, sizeof(*mem));
    gr_fetch_response_partition_data_init(rp);
    rp->partition_index = fp->partition;
    rp->records.len = 0; /* never null: librdkafka 2.0.2 rejects it */
    /* Kafka's handleFetchRequest: a follower needs CLUSTER_ACTION, a
     * consumer READ on the topic (after an unknown topic id, before an
     * unknown topic or partition) */
    if (kerr != GR_KERR_UNKNOWN_TOPIC_ID) {
        gr_str_t name = p != NULL ? gr_str_c(p->topic->name) : fp->topic;
        if (replica >= 0 ? !gr_authz_cluster(req, GR_OP_CLUSTER_ACTION)
                         : !gr_authz(req, GR_RES_TOPIC, &name, GR_OP_READ)) {
            part_error(rp, GR_KERR_TOPIC_AUTHORIZATION_FAILED, false);
            return 0;
        }
    }
    if (p == NULL) {
        part_error(rp, kerr, false);
        return 0;
    }
    if (p->leader != b->node_id) {
        part_error(rp, GR_KERR_NOT_LEADER_OR_FOLLOWER, true);
        return 0;
    }
    if (p->log == NULL || gr_log_offline(p->log)) {
        part_error(rp, GR_KERR_KAFKA_STORAGE_ERROR, true);
        return 0;
    }
    rp->high_watermark = p->high_watermark;
    rp->last_stable_offset = gr_partition_lso(p);
    rp->log_start_offset = gr_log_start_offset(p->log);
    /* as Kafka: a list for read_committed (filled with the records),
     * null otherwise */
    rp->aborted_transactions_cnt = rq->isolation_level == 1 ? 0 : -1;
    if (fp->current_leader_epoch >= 0 &&
        fp->current_leader_epoch != p->leader_epoch) {
        part_error(rp,
                   fp->current_leader_epoch < p->leader_epoch
                       ? GR_KERR_FENCED_LEADER_EPOCH
                       : GR_KERR_UNKNOWN_LEADER_EPOCH,
                   true);
        return 0;
    }
    if (!replica_may_fetch(b, p, replica)) {
        part_error(rp, GR_KERR_NOT_LEADER_OR_FOLLOWER, true);
        return 0;
    }
    leo = gr_log_end_offset(p->log);
    if (replica >= 0) {
        /* a follower (Partition.fetchRecords): its last fetched epoch
         * first (v12+), then a read up to the log end; its position
         * counts unless its log diverges */
        if (req->version >= 12 && fp->last_fetched_epoch >= 0) {
            int32_t e;
            int64_t end;
            gr_log_epoch_end_offset(p->log, fp->last_fetched_epoch, &e, &end);
            if (e < 0 || end < 0 || fp->fetch_offset < rp->log_start_offset) {
                GR_LOG_DEBUG("fetch from replica %d: %s-%d: no end offset "
                             "for its last fetched epoch %d (offset %lld)",
                             (int)replica, p->topic->name, p->id,
                             (int)fp->last_fetched_epoch,
                             (long long)fp->fetch_offset);
                part_error(rp, GR_KERR_OFFSET_OUT_OF_RANGE, true);
                return 0;
            }
            if (e < fp->last_fetched_epoch || end < fp->fetch_offset) {
                rp->diverging_epoch.epoch = e;
                rp->diverging_epoch.end_offset = end;
                ctx->diverged = true; /* answered at once, as Kafka */
                return 0;
            }
        }
        if (fp->fetch_offset > leo || fp->fetch_offset < rp->log_start_offset) {
            part_error(rp, GR_KERR_OFFSET_OUT_OF_RANGE, true);
            return 0;
        }
        gr_repl_follower_fetched(b, p, replica,
                                 req->version >= 15
                                     ? rq->replica_state.replica_epoch
                                     : -1,
                                 fp->fetch_offset);
        max_offset = leo;
    } else {
        max_offset = rq->isolation_level == 1 ? rp->last_stable_offset
                                              : rp->high_watermark;
        /* past the high watermark but within the log: nothing yet, as
         * Kafka's LocalLog.read bounded by it */
        if (fp->fetch_offset > leo ||
            fp->fetch_offset < rp->log_start_offset) {
            part_error(rp, GR_KERR_OFFSET_OUT_OF_RANGE, true);
            return 0;
        }
        if (fp->fetch_offset >= max_offset)
            return 0;
    }
    if (limit < 0 && fp->fetch_offset < max_offset) {
        /* a negative bound (the request's max_bytes or the partition's):
         * Kafka's LogSegment.read refuses it ("Invalid max size"), which
         * ReplicaManager.readFromLog answers as an unknown error */
        GR_LOG_ERROR("fetch from %s: invalid max size %d for %s-%d",
                     gr_req_peer(req), (int)limit, gr_log_topic(p->log), p->id);
        part_error(rp, GR_KERR_UNKNOWN_SERVER_ERROR, true);
        return 0;
    }
    if (limit < 0)
        limit = 0; /* at the end: nothing to read */
    if (limit <= 0 && !*min_one)
        return 0;
    rc = gr_log_read(p->log, fp->fetch_offset, limit, max_offset, *min_one,
                     &sl);
    if (rc == GR_ERR_NOT_FOUND) {
        part_error(rp, GR_KERR_OFFSET_OUT_OF_RANGE, true);
        return 0;
    }
    if (rc != 0) {
        GR_LOG_ERROR("reading %s-%d at %lld: %s", gr_log_topic(p->log), p->id,
                     (long long)fp->fetch_offset, gr_err_str(rc));
        part_error(rp, GR_KERR_KAFKA_STORAGE_ERROR, true);
        return 0;
    }
    if (sl.len <= 0)
        return 0;
    /* v3+: a first batch the partition's share cut is not sent at all, as
     * Kafka's ReplicaManager.readFromLog replaces an incomplete first entry
     * with nothing (the client asks again; a partial batch of no whole
     * record made the Java consumer fail: "no complete records were
     * found"). v0-v2 clients get the partial message, as from Kafka, and
     * tell the record is too large. */
    if (req->version >= 3 && sl.len < sl.first_size)
        return 0;
    if (rq->isolation_level == 1)
        fill_aborted(req, p, fp->fetch_offset, sl.upper_offset, rp);
    if (req->version <= 3) {
        /* legacy message sets: converted by a worker */
        *mem = sl;
        rp->records.len = sl.len;
    } else if (ctx->nfiles >= b->max_held_files) {
        /* enough descriptors held by this response: copy the rest (a
         * fetch of thousands of partitions must not need thousands of
         * open files at once); at most the response's bound, and only
         * for the answer */
        uint8_t *data = ctx->final ? gr_arena_alloc(req->a, (size_t)sl.len)
                                   : NULL;
        if (!ctx->final) {
            ctx->planned = true;
        } else if (data == NULL || pread(sl.file->fd, data, (size_t)sl.len,
                                         sl.pos) != sl.len) {
            rp->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
            return 0;
        }
        rp->records.ptr = data;
        rp->records.len = sl.len;
        rp->records.file = NULL;
    } else {
        /* borrowed: held until the request ends, so reading the next
         * partitions (which may close least recently used files) cannot
         * close it and let its descriptor be reused */
        if (ctx_hold(ctx, sl.file) != 0) {
            rp->error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
            return 0;
        }
        rp->records.file = sl.file;
        rp->records.off = sl.pos;
        rp->records.len = sl.len;
        rp->records.ptr = NULL;
        req->file_bytes += (size_t)sl.len;
    }
    if (rp->records.len > 0)
        *min_one = false;
    return rp->records.len;
}

/* Whether an incremental response must carry this partition. */
static bool
changed(const gr_fsess_part_t *sp, const gr_fetch_response_partition_data_t *rp)
{
    return !sp->sent || rp->error_code != GR_KERR_NONE ||
           rp->records.len > 0 || rp->diverging_epoch.epoch >= 0 ||
           rp->high_watermark != sp->sent_hw ||
           rp->last_stable_offset != sp->sent_lso ||
           rp->log_start_offset != sp->sent_log_start;
}

/* Builds the response from scratch (dropping what the last build took).
 * final: this is the answer (the session records what was sent, copies
 * are read); else a plan, to count the bytes available, which may leave
 * records unread (ctx->planned). Returns the record bytes in the
 * response, those a worker will convert counted as stored. */
static int64_t
build_response(fetch_ctx_t *ctx, bool final)
{
    gr_req_t *req = ctx->req;
    gr_fetch_response_t *rs = req->resp;
    gr_fsess_t *sess = NULL;
    int64_t remaining = ctx->max_bytes; /* may start negative (v3+) */
    bool min_one = req->version >= 3;
    int64_t total = 0;
    int32_t ntopics = 0, nrparts = 0;

    ctx_release(ctx);
    ctx->final = final;
    ctx->planned = false;
    if (ctx->session_id != 0)
        sess = gr_fsess_find(req->broker->fetch_sessions, ctx->session_id);
    req->file_bytes = 0;
    gr_fetch_response_init(rs);
    rs->session_id = ctx->session_id;
    /* the topics and the partitions of the answer, each partition once,
     * a topic's consecutive: one array of each, made at the first build
     * and reused by the next */
    if (ctx->rtopics == NULL) {
        size_t n = (size_t)(ctx->nparts ? ctx->nparts : 1);
        ctx->rtopics = gr_arena_alloc(req->a, n * sizeof(*ctx->rtopics));
        ctx->rparts = gr_arena_alloc(req->a, n * sizeof(*ctx->rparts));
        if (ctx->rtopics == NULL || ctx->rparts == NULL)
            return -1;
    }
    memset(ctx->rtopics, 0,
           (size_t)(ctx->nparts ? ctx->nparts : 1) * sizeof(*ctx->rtopics));
    rs->responses = ctx->rtopics;
    for (int32_t i = 0; i < ctx->nparts; i++) {
        const fetch_part_t *fp = &ctx->parts[i];
        gr_fetch_response_partition_data_t rp;
        gr_fetch_response_fetchable_topic_response_t *tr;
        gr_fsess_part_t *sp = NULL;
        gr_log_slice_t mem;
        int32_t got;

        got = read_partition(ctx, fp, &rp,
                             fp->max_bytes < remaining ? fp->max_bytes
                                                       : (int32_t)remaining,
                             &min_one, &mem);
        if (sess && fp->sess_idx >= 0 && fp->sess_idx < sess->nparts)
            sp = &sess->parts[fp->sess_idx];
        if (ctx->incremental && sp && !changed(sp, &rp)) {
            continue;
        }
        if (final && sp) {
            sp->sent = true;
            sp->sent_hw = rp.high_watermark;
            sp->sent_lso = rp.last_stable_offset;
            sp->sent_log_start = rp.log_start_offset;
        }
        /* never below 0, as Kafka's limitBytes = max(0, limitBytes -
         * size): a first batch taken whole leaves nothing for the rest */
        remaining = remaining - got > 0 ? remaining - got : 0;
        total += got;
        /* group consecutive partitions of one topic */
        tr = ntopics ? &rs->responses[ntopics - 1] : NULL;
        if (tr == NULL ||
            (req->version >= 13 ? !gr_uuid_eq(&tr->topic_id, &fp->topic_id)
                                : !gr_str_eq(&tr->topic, &fp->topic))) {
            tr = &rs->responses[ntopics++];
            tr->topic = fp->topic;
            tr->topic_id = fp->topic_id;
            tr->partitions = &ctx->rparts[nrparts];
            tr->partitions_cnt = 0;
        }
        tr->partitions[tr->partitions_cnt++] = rp;
        nrparts++;
        if (mem.len > 0 &&
            job_add(ctx, fp, &tr->partitions[tr->partitions_cnt - 1], &mem,
                    fp->max_bytes) != 0)
            return -1;
    }
    rs->responses_cnt = ntopics;
    return total;
}

/* Answers with the response built last: at once, or once a worker has
 * read what it carries from memory. Returns 0. */
/* The consumer_byte_rate, as KafkaApis.handleFetchRequest: the response's
 * size is recorded; over the quota it is taken back and the answer is
 * empty (FetchContext.getThrottledResponse: no partitions, the session
 * kept), the client throttled. Fetches from replicas are exempt. */
static void
fetch_quota(fetch_ctx_t *ctx)
{
    gr_req_t *req = ctx->req;
    const gr_fetch_request_t *rq = req->body;
    gr_fetch_response_t *rs = req->resp;
    gr_client_quotas_t *q = req->broker->client_quotas;
    int64_t now_ms = gr_loop_mono_ms(req->broker->loop), t;
    double size;

    if (!gr_client_quotas_enabled(q, GR_CQT_FETCH) || rq->replica_id >= 0 ||
        (req->version >= 15 && rq->replica_state.replica_id >= 0))
        return;
    size = (double)(req->api->response.size(rs, req->version) +
                    gr_resp_header_size(gr_proto_resp_header_version(
                        req->hdr.api_key, req->version)));
    t = gr_client_quotas_record(q, GR_CQT_FETCH, gr_req_user(req),
                                &req->hdr.client_id, size, now_ms);
    if (t <= 0)
        return;
    gr_client_quotas_unrecord(q, GR_CQT_FETCH, gr_req_user(req),
                              &req->hdr.client_id, size, now_ms);
    rs->responses_cnt = 0;
    rs->error_code = GR_KERR_NONE;
    req->file_bytes = 0;
    req->throttle_ms = t;
}

static int
reply(fetch_ctx_t *ctx)
{
    gr_req_t *req = ctx->req;
    if (ctx->job != NULL && ctx->job->nitems > 0) {
        /* deferred first: a job that cannot start answers at once */
        gr_req_defer(req, on_abort, ctx);
        if (!ctx->job_queued)
            job_queue(ctx);
        return 0;
    }
    fetch_quota(ctx);
    /* the borrowed files go to the request, which keeps them until its
     * response is written */
    for (int i = 0; i < ctx->nfiles; i++)
        if (gr_req_hold_file(req, ctx->files[i]) != 0) {
            ctx_release(ctx);
            return gr_req_close(req, "out of memory");
        }
    ctx_release(ctx);
    return gr_req_reply(req);
}

static void
complete(fetch_ctx_t *ctx)
{
    gr_req_t *req = ctx->req;
    if (ctx->waiting)
        stop_waiting(ctx);
    if (build_response(ctx, true) < 0) {
        ctx_release(ctx);
        gr_req_close(req, "out of memory");
        return;
    }
    reply(ctx);
}

static void
on_timeout(gr_loop_t *loop, gr_timer_t *t)
{
    (void)loop;
    complete(t->data);
}

static void
on_abort(gr_req_t *req)
{
    fetch_ctx_t *ctx = req->owner;
    if (ctx->waiting)
        stop_waiting(ctx);
    if (ctx->job_queued) {
        gr_broker_t *b = req->broker;
        fetch_job_t *job = ctx->job;
        switch (job->state) {
        case JOB_RUNNING:
            job->ctx = NULL; /* its slice's done() frees it */
            break;
        case JOB_ACTIVE:
            list_remove(&b->fetch_active, &b->fetch_active_tail, job);
            b->fetch_active_bytes -= job->reserve;
            job_free(job);
            break;
        case JOB_PENDING:
            list_remove(&b->fetch_pending, &b->fetch_pending_tail, job);
            job_free(job);
            break;
        case JOB_NEW:
            GR_ASSERT(!"a queued job is not new");
            break;
        }
        /* the room an admitted job leaves is seen when the running slice
         * ends (nothing admitted waits while no slice runs) */
        ctx->job = NULL;
        ctx->job_queued = false;
    }
    ctx_release(ctx);
}

void
gr_fetch_run_dirty(gr_broker_t *b)
{
    while (b->fetch_dirty) {
        fetch_ctx_t *ctx = b->fetch_dirty;
        b->fetch_dirty = ctx->dirty_next;
        ctx->dirty = false;
        complete(ctx);
    }
}

/* --- sessions */

/* The partitions of a sessionless request by topic (its id from v13) and
 * partition: open addressing over ctx->parts, -1 empty. */
static uint32_t
slot_hash(const gr_fetch_request_fetch_topic_t *ft, int32_t partition,
          bool by_id)
{
    return by_id ? gr_hash_tp(ft->topic_id.b, sizeof ft->topic_id.b, partition)
                 : gr_hash_tp(ft->topic.ptr,
                              ft->topic.len > 0 ? (size_t)ft->topic.len : 0,
                              partition);
}

static fetch_part_t *
slot_find(fetch_ctx_t *ctx, const int32_t *slots, uint32_t nslots,
          const gr_fetch_request_fetch_topic_t *ft, int32_t partition,
          bool by_id)
{
    uint32_t mask = nslots - 1;
    for (uint32_t h = slot_hash(ft, partition, by_id) & mask; slots[h] >= 0;
         h = (h + 1) & mask) {
        fetch_part_t *fp = &ctx->parts[slots[h]];
        if (fp->partition == partition &&
            (by_id ? gr_uuid_eq(&fp->topic_id, &ft->topic_id)
                   : gr_str_eq(&fp->topic, &ft->topic)))
            return fp;
    }
    return NULL;
}

static void
slot_put(int32_t *slots, uint32_t nslots,
         const gr_fetch_request_fetch_topic_t *ft, int32_t partition,
         bool by_id, int32_t i)
{
    uint32_t mask = nslots - 1, h = slot_hash(ft, partition, by_id) & mask;
    while (slots[h] >= 0)
        h = (h + 1) & mask;
    slots[h] = i;
}

/* Applies the request to its session and lists the partitions to read.
 * Returns a top-level error, or NONE. */
static gr_kerr_t
setup(fetch_ctx_t *ctx)
{
    gr_req_t *req = ctx->req;
    const gr_fetch_request_t *rq = req->body;
    gr_broker_t *b = req->broker;
    gr_fsess_t *sess = NULL;
    int32_t n = 0, *slots;
    uint32_t nslots;
    bool sessionful = req->version >= 7, fresh = false;
    int64_t now = gr_mono_ms();

    if (sessionful && (rq->session_epoch == 0 || rq->session_epoch == -1)) {
        /* a full fetch: a named session is closed; epoch 0 asks for a new
         * one, -1 for none (Kafka's FetchManager.newContext; any other
         * epoch, below -1 too, is an incremental fetch's, which no
         * session has: FetchMetadata.isFull) */
        if (rq->session_id != 0) {
            sess = gr_fsess_find(b->fetch_sessions, rq->session_id);
            if (sess)
                gr_fsess_remove(b->fetch_sessions, sess);
            sess = NULL;
        }
        if (rq->session_epoch == 0) {
            sess = gr_fsess_new();
            if (sess == NULL)
                return GR_KERR_UNKNOWN_SERVER_ERROR;
            fresh = true;
        }
    } else if (sessionful) {
        sess = gr_fsess_find(b->fetch_sessions, rq->session_id);
        if (sess == NULL) {
            GR_LOG_DEBUG("fetch session %d from %s not found", rq->session_id,
                         gr_req_peer(req));
            return GR_KERR_FETCH_SESSION_ID_NOT_FOUND;
        }
        if (sess->epoch != rq->session_epoch) {
            GR_LOG_DEBUG("fetch session %d from %s: epoch %d, expected %d",
                         rq->session_id, gr_req_peer(req), rq->session_epoch,
                         sess->epoch);
            return GR_KERR_INVALID_FETCH_SESSION_EPOCH;
        }
        if (sess->uses_topic_ids != (req->version >= 13)) {
            GR_LOG_DEBUG("fetch session %d from %s: made %s topic ids, "
                         "used by Fetch v%d",
                         rq->session_id, gr_req_peer(req),
                         sess->uses_topic_ids ? "with" : "without",
                         req->version);
            return GR_KERR_FETCH_SESSION_TOPIC_ID_ERROR;
        }
        ctx->incremental = true;
    }

    if (sess != NULL) {
        /* the request's partitions update the session, forgotten leave;
         * no more than all sessions may hold are taken in */
        int64_t most = gr_fsessions_max_partitions(b->fetch_sessions);
        for (int32_t i = 0; i < rq->topics_cnt && sess != NULL; i++) {
            const gr_fetch_request_fetch_topic_t *ft = &rq->topics[i];
            for (int32_t k = 0; k < ft->partitions_cnt; k++) {
                const gr_fetch_request_fetch_partition_t *fq =
                    &ft->partitions[k];
                gr_fsess_part_t *sp = gr_fsess_part_upsert(
                    sess, &ft->topic, req->version >= 13 ? &ft->topic_id : NULL,
                    fq->partition);
                if (sp == NULL) {
                    if (fresh)
                        gr_fsess_free(sess);
                    return GR_KERR_UNKNOWN_SERVER_ERROR;
                }
                sp->fetch_offset = fq->fetch_offset;
                sp->max_bytes = fq->partition_max_bytes;
                sp->current_leader_epoch = fq->current_leader_epoch;
                sp->last_fetched_epoch =
                    req->version >= 12 ? fq->last_fetched_epoch : -1;
                if (sess->nparts > most) {
                    GR_LOG_DEBUG("fetch from %s: more partitions than the "
                                 "%lld sessions may hold, answering without "
                                 "a session",
                                 gr_req_peer(req), (long long)most);
                    if (!fresh) {
                        gr_fsess_remove(b->fetch_sessions, sess);
                        return GR_KERR_FETCH_SESSION_ID_NOT_FOUND;
                    }
                    gr_fsess_free(sess);
                    sess = NULL;
                    break;
                }
            }
        }
    }
    if (sess != NULL) {
        for (int32_t i = 0; i < rq->forgotten_topics_data_cnt; i++) {
            const gr_fetch_request_forgotten_topic_t *ft =
                &rq->forgotten_topics_data[i];
            for (int32_t k = 0; k < ft->partitions_cnt; k++)
                gr_fsess_part_remove(sess, &ft->topic,
                                     req->version >= 13 ? &ft->topic_id : NULL,
                                     ft->partitions[k]);
        }
        gr_fsess_compact(sess);
        if (fresh) {
            /* a place in the cache, or none: the client goes on with full
             * fetches (session id 0), as Kafka's maybeCreateSession */
            bool follower = (req->version >= 15 ? rq->replica_state.replica_id
                                                : rq->replica_id) >= 0;
            if (gr_fsessions_add(b->fetch_sessions, sess, follower,
                                 req->version >= 13, now) == 0) {
                GR_LOG_DEBUG("fetch from %s: no session for %d partitions",
                             gr_req_peer(req), (int)sess->nparts);
                gr_fsess_free(sess);
                sess = NULL;
            }
        } else if (sess->nparts == 0) {
            /* every partition forgotten: the session closes and the fetch
             * is answered without one (Kafka: SessionlessFetchContext) */
            gr_fsess_remove(b->fetch_sessions, sess);
            sess = NULL;
            ctx->incremental = false;
        } else if (!gr_fsess_touch(b->fetch_sessions, sess, now)) {
            GR_LOG_DEBUG("fetch session %d from %s closed: its %d partitions "
                         "pass the bound on partitions in sessions",
                         sess->id, gr_req_peer(req), (int)sess->nparts);
            gr_fsess_remove(b->fetch_sessions, sess);
            return GR_KERR_FETCH_SESSION_ID_NOT_FOUND;
        } else {
            sess->epoch = gr_fsess_next_epoch(sess->epoch);
        }
    }
    if (sess != NULL) {
        ctx->session_id = sess->id;
        ctx->parts = gr_arena_zalloc(req->a, (size_t)(sess->nparts ? sess->nparts
                                                                   : 1) *
                                                 sizeof(*ctx->parts));
        if (ctx->parts == NULL)
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        for (int32_t i = 0; i < sess->nparts; i++) {
            const gr_fsess_part_t *sp = &sess->parts[i];
            fetch_part_t *fp = &ctx->parts[n++];
            fp->topic.ptr = gr_arena_strndup(req->a, sp->topic,
                                             strlen(sp->topic));
            fp->topic.len = (int32_t)strlen(sp->topic);
            fp->topic_id = sp->topic_id;
            fp->partition = sp->partition;
            fp->fetch_offset = sp->fetch_offset;
            fp->max_bytes = sp->max_bytes;
            fp->current_leader_epoch = sp->current_leader_epoch;
            fp->last_fetched_epoch = sp->last_fetched_epoch;
            fp->sess_idx = i;
        }
        ctx->nparts = n;
        return GR_KERR_NONE;
    }

    /* sessionless: the request's partitions, each once, as the map of
     * Kafka's FetchRequest.fetchData keeps them: a partition named twice
     * keeps its first place and takes the later fields */
    for (int32_t i = 0; i < rq->topics_cnt; i++)
        n += rq->topics[i].partitions_cnt > 0 ? rq->topics[i].partitions_cnt
                                              : 0;
    ctx->parts = gr_arena_zalloc(req->a, (size_t)(n ? n : 1) *
                                             sizeof(*ctx->parts));
    nslots = 4;
    while (nslots < 2 * (uint32_t)n)
        nslots *= 2;
    slots = gr_arena_alloc(req->a, nslots * sizeof(*slots));
    if (ctx->parts == NULL || slots == NULL)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    memset(slots, 0xff, nslots * sizeof(*slots));
    n = 0;
    for (int32_t i = 0; i < rq->topics_cnt; i++) {
        const gr_fetch_request_fetch_topic_t *ft = &rq->topics[i];
        for (int32_t k = 0; k < ft->partitions_cnt; k++) {
            fetch_part_t *fp =
                slot_find(ctx, slots, nslots, ft, ft->partitions[k].partition,
                          req->version >= 13);
            if (fp == NULL) {
                fp = &ctx->parts[n];
                slot_put(slots, nslots, ft, ft->partitions[k].partition,
                         req->version >= 13, n++);
            }
            fp->topic = ft->topic;
            fp->topic_id = ft->topic_id;
            fp->partition = ft->partitions[k].partition;
            fp->fetch_offset = ft->partitions[k].fetch_offset;
            fp->max_bytes = ft->partitions[k].partition_max_bytes;
            fp->current_leader_epoch = ft->partitions[k].current_leader_epoch;
            fp->last_fetched_epoch = req->version >= 12
                                         ? ft->partitions[k].last_fetched_epoch
                                         : -1;
            fp->sess_idx = -1;
        }
    }
    ctx->nparts = n;
    return GR_KERR_NONE;
}

int
gr_api_fetch(gr_req_t *req)
{
    const gr_fetch_request_t *rq = req->body;
    gr_fetch_response_t *rs = req->resp;
    fetch_ctx_t *ctx = gr_arena_zalloc(req->a, sizeof(*ctx));
    gr_kerr_t err;
    int64_t got, max_bytes;

    if (ctx == NULL)
        return gr_req_close(req, "out of memory");
    ctx->req = req;
    /* the response's bound, as KafkaApis.handleFetchRequest: the smaller
     * of the request's (none below v3: Int.MaxValue) and fetch.max.bytes;
     * min_bytes no more than that */
    max_bytes = gr_conf_int(req->broker->conf, GR_CONF_FETCH_MAX_BYTES);
    if (req->version >= 3 && rq->max_bytes < max_bytes)
        max_bytes = rq->max_bytes;
    /* and what the consumer_byte_rate lets a quota window carry
     * (maxValueInQuotaWindow) */
    got = gr_client_quotas_window_max(req->broker->client_quotas,
                                      GR_CQT_FETCH, gr_req_user(req),
                                      &req->hdr.client_id);
    if (got < max_bytes)
        max_bytes = got;
    ctx->max_bytes = (int32_t)max_bytes;
    ctx->min_bytes = rq->min_bytes < ctx->max_bytes ? rq->min_bytes
                                                    : ctx->max_bytes;
    err = setup(ctx);
    if (err != GR_KERR_NONE) {
        rs->error_code = err;
        rs->session_id = 0;
        rs->responses_cnt = 0;
        return gr_req_reply(req);
    }
    got = build_response(ctx, false);
    if (got < 0) {
        ctx_release(ctx);
        return gr_req_close(req, "out of memory");
    }
    if (got >= ctx->min_bytes || rq->max_wait_ms <= 0 || ctx->nparts == 0 ||
        ctx->diverged) {
        /* answer now: the session records what it saw, what the plan
         * left is read */
        if (ctx->session_id != 0 || ctx->planned) {
            got = build_response(ctx, true);
            if (got < 0) {
                ctx_release(ctx);
                return gr_req_close(req, "out of memory");
            }
        }
        return reply(ctx);
    }
    /* wait for data on every readable partition; what this build took is
     * taken again by the one that answers */
    ctx_release(ctx);
    ctx->accumulated = got;
    for (int32_t i = 0; i < ctx->nparts; i++) {
        gr_kerr_t k;
        gr_partition_t *p = resolve(req->broker, &ctx->parts[i], req->version,
                                    &k);
        if (p != NULL)
            waiter_link(&ctx->parts[i], p, ctx);
    }
    gr_timer_init(&ctx->timer, on_timeout, ctx);
    gr_timer_start(req->broker->loop, &ctx->timer, rq->max_wait_ms);
    ctx->waiting = true;
    return gr_req_defer(req, on_abort, ctx);
}
