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

/* Which of the request's partitions, in order, name a (topic, partition)
 * listed more than once: Kafka answers every such entry INVALID_REQUEST.
 * The keys are the topic name's bytes and then the index's, so a topic
 * repeated across entries counts too. NULL when out of memory. */
static bool *
repeated_partitions(gr_req_t *req, const gr_list_offsets_request_t *rq,
                    int32_t nt)
{
    int64_t n = 0;
    int32_t m = 0;
    gr_str_t *keys;

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
            keys[m++] = (gr_str_t){ b, (int32_t)(len + sizeof(int32_t)) };
        }
    }
    return gr_str_repeats(req->a, keys, sizeof(*keys), m);
}

int
gr_api_list_offsets(gr_req_t *req)
{
    const gr_list_offsets_request_t *rq = req->body;
    gr_list_offsets_response_t *rs = req->resp;
    int32_t nt = rq->topics_cnt > 0 ? rq->topics_cnt : 0;
    bool *dup = repeated_partitions(req, rq, nt);
    int32_t e = 0; /* the entry's place among all partitions */

    rs->topics = gr_arena_zalloc(req->a, (size_t)(nt ? nt : 1) *
                                             sizeof(*rs->topics));
    if (rs->topics == NULL || dup == NULL)
        return gr_req_close(req, "out of memory");
    rs->topics_cnt = nt;
    for (int32_t i = 0; i < nt; i++) {
        const gr_list_offsets_request_list_offsets_topic_t *qt = &rq->topics[i];
        gr_list_offsets_response_list_offsets_topic_response_t *rt =
            &rs->topics[i];
        gr_topic_t *t = gr_cluster_topic(req->broker->cluster, &qt->name);
        int32_t np = qt->partitions_cnt > 0 ? qt->partitions_cnt : 0;
        rt->name = qt->name;
        rt->partitions = gr_arena_alloc(req->a, (size_t)(np ? np : 1) *
                                                    sizeof(*rt->partitions));
        if (rt->partitions == NULL)
            return gr_req_close(req, "out of memory");
        rt->partitions_cnt = np;
        for (int32_t k = 0; k < np; k++) {
            list_partition(req, rq, t, &qt->partitions[k], &rt->partitions[k]);
            if (dup[e++]) {
                rt->partitions[k].error_code = GR_KERR_INVALID_REQUEST;
                rt->partitions[k].offset = -1;
                rt->partitions[k].timestamp = -1;
            }
        }
    }
    return gr_req_reply(req);
}
