/*
 * ListOffsets (api key 2): the earliest offset, the latest (the high
 * watermark, or the last stable offset for read_committed from v2), the
 * offset of the largest timestamp (v7+), or the first offset whose record
 * timestamp is at or after a given time (the time index finds the batch,
 * its records give the offset). v0 answers with the old list form.
 * Without tiered storage the latest tiered offset (v9) and the earliest
 * pending upload (v11) are -1, and the earliest local one (v8) is the
 * log start, as Kafka's UnifiedLog answers with remote storage off.
 */
#include "api/api_int.h"
#include "api/topics.h"
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

/* Searches the records of the batch(es) in slice. 0 or -1 (I/O). */
static int
search_slice(gr_broker_t *b, const gr_log_slice_t *sl, ts_search_t *s)
{
    uint8_t *buf;
    size_t pos = 0;
    if (sl->len <= 0)
        return 0;
    buf = malloc((size_t)sl->len);
    if (buf == NULL || pread(sl->file->fd, buf, (size_t)sl->len, sl->pos) !=
                           sl->len) {
        free(buf);
        return -1;
    }
    while (pos + GR_BATCH_HEADER_SIZE <= (size_t)sl->len) {
        gr_batch_hdr_t h;
        gr_batch_hdr_parse(buf + pos, &h);
        if (gr_batch_size(&h) > (size_t)sl->len - pos)
            break;
        if (!(h.attributes & GR_ATTR_CONTROL))
            gr_batch_foreach_record(buf + pos, gr_batch_size(&h), &b->scratch,
                                    b->max_decompressed, visit, s);
        if (s->offset >= 0 && !s->want_max)
            break;
        pos += gr_batch_size(&h);
    }
    free(buf);
    return 0;
}

static void
list_partition(gr_req_t *req, const gr_list_offsets_request_t *rq,
               gr_topic_t *t,
               const gr_list_offsets_request_list_offsets_partition_t *qp,
               gr_list_offsets_response_list_offsets_partition_response_t *rp)
{
    gr_broker_t *b = req->broker;
    gr_partition_t *p;
    int64_t hw, visible, offset = -1, ts = -1;

    gr_list_offsets_response_list_offsets_partition_response_init(rp);
    rp->partition_index = qp->partition_index;
    rp->offset = -1;
    rp->timestamp = -1;
    if (t == NULL || qp->partition_index < 0 ||
        qp->partition_index >= t->nparts) {
        rp->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return;
    }
    p = t->parts[qp->partition_index];
    if (p->leader != b->node_id) {
        rp->error_code = GR_KERR_NOT_LEADER_OR_FOLLOWER;
        return;
    }
    if (p->log == NULL || gr_log_offline(p->log)) {
        rp->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
        return;
    }
    if (qp->current_leader_epoch >= 0 &&
        qp->current_leader_epoch != p->leader_epoch) {
        rp->error_code = qp->current_leader_epoch < p->leader_epoch
                             ? GR_KERR_FENCED_LEADER_EPOCH
                             : GR_KERR_UNKNOWN_LEADER_EPOCH;
        return;
    }
    hw = p->high_watermark;
    visible = rq->isolation_level == 1 ? gr_partition_lso(p) : hw;
    switch (qp->timestamp) {
    case TS_LATEST:
        offset = visible;
        break;
    case TS_EARLIEST:
    case TS_EARLIEST_LOCAL:
        offset = gr_log_start_offset(p->log);
        break;
    case TS_LATEST_TIERED:
    case TS_EARLIEST_PENDING_UPLOAD:
        offset = -1; /* no tiered storage: -1 and epoch -1, as Kafka's */
        break;
    case TS_MAX_TIMESTAMP: {
        int64_t mts, moff;
        gr_log_slice_t sl;
        gr_log_max_timestamp(p->log, &mts, &moff);
        if (moff >= 0 && moff < visible &&
            gr_log_read(p->log, moff, 1, visible, true, &sl) == 0) {
            ts_search_t s = {0, true, visible, -1, -1};
            if (search_slice(b, &sl, &s) != 0) {
                rp->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
                return;
            }
            offset = s.offset;
            ts = s.timestamp;
        }
        break;
    }
    default: {
        gr_log_slice_t sl;
        ts_search_t s = {qp->timestamp, false, visible, -1, -1};
        if (qp->timestamp < 0) {
            rp->error_code = GR_KERR_INVALID_REQUEST;
            return;
        }
        if (gr_log_find_timestamp(p->log, qp->timestamp, &sl) != 0 ||
            search_slice(b, &sl, &s) != 0) {
            rp->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
            return;
        }
        offset = s.offset;
        ts = s.timestamp;
        break;
    }
    }
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
        for (int32_t k = 0; k < qt->partitions_cnt; k++, e++) {
            const gr_list_offsets_request_list_offsets_partition_t *qp =
                &qt->partitions[k];
            gr_list_offsets_response_list_offsets_partition_response_t *rp;
            if (pfirst[e] != e)
                continue;
            rp = &rt->partitions[rt->partitions_cnt++];
            if (dup[e])
                error_partition(qp, GR_KERR_INVALID_REQUEST, rp);
            else if (timestamp_unsupported(qp->timestamp, req->version))
                error_partition(qp, GR_KERR_UNSUPPORTED_VERSION, rp);
            else
                list_partition(req, rq, t, qp, rp);
        }
    }
    return gr_req_reply(req);
}
