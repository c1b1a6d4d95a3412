/*
 * DescribeTopicPartitions (api key 75, KIP-966): topics and their
 * partitions, a page at a time, as Kafka's DescribeTopicPartitionsRequest
 * Handler and KRaftMetadataCache.describeTopicResponse answer it. The Java
 * Admin client's describeTopics uses it. An empty topic list means every
 * topic; topics come sorted by name from the cursor's on; at most
 * min(response_partition_limit, max.request.partition.size.limit)
 * partitions (at least one) go in one answer, and next_cursor says where
 * the next page starts. Unknown names are UNKNOWN_TOPIC_OR_PARTITION (or
 * INVALID_TOPIC_EXCEPTION); a cursor outside the topic list asked for, or
 * with a negative partition, is INVALID_REQUEST for every topic asked for.
 * With an authorizer a topic the client may not DESCRIBE is left out of an
 * every-topic answer, and TOPIC_AUTHORIZATION_FAILED (after the page) when
 * named; the others carry the operations the client may do.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"

#include <stdlib.h>
#include <string.h>

typedef gr_describe_topic_partitions_response_topic_t rtopic_t;

static int
cmp_name(const void *a, const void *b)
{
    return gr_str_cmp(a, b);
}

/* Every request topic answered with err (Kafka's getErrorResponse). */
static int
reply_error(gr_req_t *req, gr_kerr_t err)
{
    const gr_describe_topic_partitions_request_t *rq = req->body;
    gr_describe_topic_partitions_response_t *rs = req->resp;
    int32_t n = rq->topics_cnt > 0 ? rq->topics_cnt : 0;

    rs->topics = gr_arena_zalloc(req->a, (size_t)(n + 1) * sizeof(*rs->topics));
    if (rs->topics == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        gr_describe_topic_partitions_response_topic_init(&rs->topics[i]);
        rs->topics[i].name = rq->topics[i].name;
        rs->topics[i].error_code = err;
    }
    rs->topics_cnt = n;
    return gr_req_reply(req);
}

/* Partitions [start, end) of t into rt. 0 or -1 (out of memory). */
static int
fill_partitions(gr_req_t *req, rtopic_t *rt, const gr_topic_t *t,
                int32_t start, int32_t end)
{
    int32_t n = end > start ? end - start : 0;
    rt->partitions = gr_arena_zalloc(req->a, (size_t)(n + 1) *
                                                 sizeof(*rt->partitions));
    if (rt->partitions == NULL)
        return -1;
    for (int32_t i = 0; i < n; i++) {
        const gr_partition_t *p = t->parts[start + i];
        gr_describe_topic_partitions_response_partition_t *rp =
            &rt->partitions[i];
        gr_describe_topic_partitions_response_partition_init(rp);
        rp->partition_index = p->id;
        rp->leader_id = p->leader;
        rp->leader_epoch = p->leader_epoch;
        rp->replica_nodes = p->replicas;
        rp->replica_nodes_cnt = p->nreplicas;
        rp->isr_nodes = p->isr;
        rp->isr_nodes_cnt = p->nisr;
        /* no eligible leader replicas (KIP-966's ELR): empty, not null */
        rp->eligible_leader_replicas_cnt = 0;
        rp->last_known_elr_cnt = 0;
        rp->offline_replicas_cnt = 0;
    }
    rt->partitions_cnt = n;
    return 0;
}

int
gr_api_describe_topic_partitions(gr_req_t *req)
{
    const gr_describe_topic_partitions_request_t *rq = req->body;
    gr_describe_topic_partitions_response_t *rs = req->resp;
    gr_cluster_t *c = req->broker->cluster;
    bool all = rq->topics_cnt <= 0;
    gr_str_t cursor = rq->cursor_null ? GR_STR("") : rq->cursor.topic_name;
    int32_t nmax = all ? c->ntopics : rq->topics_cnt, n = 0, k = 0;
    int64_t limit, remaining;
    bool cursor_listed = false;
    gr_str_t *names, *denied;
    int32_t ndenied = 0;

    names = gr_arena_alloc(req->a, (size_t)(nmax + 1) * sizeof(*names));
    denied = gr_arena_alloc(req->a, (size_t)(nmax + 1) * sizeof(*denied));
    rs->topics = gr_arena_zalloc(req->a, (size_t)(nmax + 1) *
                                             sizeof(*rs->topics));
    if (names == NULL || denied == NULL || rs->topics == NULL)
        return gr_req_close(req, "out of memory");
    if (all) {
        for (gr_topic_t *t = c->topics; t; t = t->lnext) {
            gr_str_t s = gr_str_c(t->name);
            if (cmp_name(&s, &cursor) >= 0)
                names[n++] = s;
        }
    } else {
        for (int32_t i = 0; i < rq->topics_cnt; i++)
            if (cmp_name(&rq->topics[i].name, &cursor) >= 0)
                names[n++] = rq->topics[i].name;
    }
    qsort(names, (size_t)n, sizeof(*names), cmp_name);
    /* a name asked for twice is answered once */
    for (int32_t i = 0; i < n; i++) {
        if (k > 0 && cmp_name(&names[k - 1], &names[i]) == 0)
            continue;
        names[k++] = names[i];
        cursor_listed |= cmp_name(&names[i], &cursor) == 0;
    }
    n = k;
    if (!rq->cursor_null && ((!all && !cursor_listed) ||
                             rq->cursor.partition_index < 0)) {
        GR_LOG_INFO("DescribeTopicPartitions from %s: cursor %.*s:%d is not "
                    "in the topics asked for or not a partition",
                    gr_req_peer(req), cursor.len, cursor.ptr,
                    rq->cursor.partition_index);
        return reply_error(req, GR_KERR_INVALID_REQUEST);
    }
    /* DESCRIBE on each topic (Kafka's handler filters after the cursor
     * checks) */
    for (int32_t i = k = 0; i < n; i++) {
        if (gr_authz(req, GR_RES_TOPIC, &names[i], GR_OP_DESCRIBE))
            names[k++] = names[i];
        else if (!all)
            denied[ndenied++] = names[i];
    }
    n = k;

    limit = gr_conf_int(req->broker->conf,
                        GR_CONF_MAX_REQUEST_PARTITION_SIZE_LIMIT);
    if (rq->response_partition_limit < limit)
        limit = rq->response_partition_limit;
    remaining = limit > 1 ? limit : 1;
    k = 0;
    for (int32_t i = 0; i < n; i++) {
        rtopic_t *rt = &rs->topics[k];
        gr_topic_t *t;
        int32_t start, end;

        if (remaining == 0) {
            rs->next_cursor_null = false;
            rs->next_cursor.topic_name = names[i];
            rs->next_cursor.partition_index = 0;
            break;
        }
        gr_describe_topic_partitions_response_topic_init(rt);
        rt->name = names[i];
        rt->is_internal = gr_topic_is_internal_name(&names[i]);
        rt->topic_authorized_operations =
            gr_authz_ops(req, GR_RES_TOPIC, &names[i]);
        k++;
        t = gr_cluster_topic(c, &names[i]);
        if (t == NULL) {
            rt->error_code = gr_topic_name_invalid(&names[i]) != NULL
                                 ? GR_KERR_INVALID_TOPIC_EXCEPTION
                                 : GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
            continue;
        }
        rt->topic_id = t->id;
        rt->is_internal = t->internal;
        start = cmp_name(&names[i], &cursor) == 0 && !rq->cursor_null
                    ? rq->cursor.partition_index
                    : 0;
        end = (int64_t)start + remaining < t->nparts
                  ? (int32_t)(start + remaining)
                  : t->nparts;
        if (fill_partitions(req, rt, t, start, end) != 0)
            return gr_req_close(req, "out of memory");
        if (end < t->nparts) {
            rs->next_cursor_null = false;
            rs->next_cursor.topic_name = names[i];
            rs->next_cursor.partition_index = end;
            break;
        }
        remaining -= rt->partitions_cnt;
    }
    for (int32_t i = 0; i < ndenied; i++) {
        rtopic_t *rt = &rs->topics[k++];
        gr_describe_topic_partitions_response_topic_init(rt);
        rt->name = denied[i];
        rt->error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        rt->topic_authorized_operations = INT32_MIN;
        rt->partitions_cnt = 0;
    }
    rs->topics_cnt = k;
    return gr_req_reply(req);
}
