/*
 * CreatePartitions (api key 37): raises a topic's partition count through
 * the cluster ops, with an optional replica assignment for the new
 * partitions; validate_only checks and stops. New partitions get their
 * logs at once (the cluster's partition_created hook).
 */
#include "api/api_int.h"
#include "api/topics.h"

typedef gr_create_partitions_request_create_partitions_topic_t ptopic_t;

static gr_kerr_t
check_assignment(gr_req_t *req, const ptopic_t *qt, const gr_topic_t *t,
                 const int32_t *const **rows, const char **msg)
{
    gr_cluster_t *c = req->broker->cluster;
    int32_t added = qt->count - t->nparts;
    const int32_t **out;

    if (qt->assignments_cnt != added) {
        *msg = gr_arena_printf(req->a,
                               "Increasing the number of partitions by %d "
                               "but %d assignments provided.",
                               added, qt->assignments_cnt);
        return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
    }
    out = gr_arena_zalloc(req->a, (size_t)added * sizeof(*out));
    if (out == NULL) {
        *msg = "Out of memory";
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    for (int32_t p = 0; p < added; p++) {
        const gr_create_partitions_request_create_partitions_assignment_t *a =
            &qt->assignments[p];
        if (a->broker_ids_cnt != t->replication_factor) {
            *msg = gr_arena_printf(req->a,
                                   "Inconsistent replication factor between "
                                   "partitions, partition 0 has %d while "
                                   "partitions [%d] have replication factors "
                                   "[%d], respectively.",
                                   t->replication_factor, t->nparts + p,
                                   a->broker_ids_cnt);
            return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
        }
        for (int32_t i = 0; i < a->broker_ids_cnt; i++) {
            for (int32_t j = 0; j < i; j++)
                if (a->broker_ids[i] == a->broker_ids[j]) {
                    *msg = gr_arena_printf(req->a,
                                           "Duplicate brokers not allowed in "
                                           "replica assignment: %d for "
                                           "partition id %d.",
                                           a->broker_ids[i], t->nparts + p);
                    return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
                }
            if (gr_cluster_node(c, a->broker_ids[i]) == NULL) {
                *msg = gr_arena_printf(req->a,
                                       "Unknown broker(s) in replica "
                                       "assignment: %d.",
                                       a->broker_ids[i]);
                return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
            }
        }
        out[p] = a->broker_ids;
    }
    *rows = out;
    return GR_KERR_NONE;
}

int
gr_api_create_partitions(gr_req_t *req)
{
    const gr_create_partitions_request_t *rq = req->body;
    gr_create_partitions_response_t *rs = req->resp;
    gr_cluster_t *c = req->broker->cluster;
    int32_t n = rq->topics_cnt > 0 ? rq->topics_cnt : 0;
    int64_t added = 0; /* partitions this request adds so far */
    gr_topic_waits_t w;
    bool *dup;

    rs->results = gr_arena_zalloc(req->a, (size_t)n * sizeof(*rs->results));
    dup = gr_str_repeats(req->a, n ? &rq->topics[0].name : NULL,
                         sizeof(rq->topics[0]), n);
    if ((n && rs->results == NULL) || dup == NULL)
        return gr_req_close(req, "out of memory");
    rs->results_cnt = n;
    /* the new partitions' directories are made on a worker; the answer
     * waits for them */
    if (gr_topic_waits_init(req, &w, n) != 0)
        return gr_req_close(req, "out of memory");
    if (!rq->validate_only)
        gr_broker_open_async_begin(req->broker);
    for (int32_t i = 0; i < n; i++) {
        const ptopic_t *qt = &rq->topics[i];
        gr_create_partitions_response_create_partitions_topic_result_t *res =
            &rs->results[i];
        const int32_t *const *rows = NULL;
        const char *msg = NULL;
        gr_kerr_t err = GR_KERR_NONE;
        gr_topic_t *t;

        gr_create_partitions_response_create_partitions_topic_result_init(res);
        res->name = qt->name;
        if (dup[i]) {
            err = GR_KERR_INVALID_REQUEST;
            msg = "Duplicate topic in request.";
        }
        t = gr_cluster_topic(c, &qt->name);
        if (err != GR_KERR_NONE) {
            /* the duplicate, as set */
        } else if (t == NULL) {
            err = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
            msg = gr_arena_printf(req->a, "The topic '%.*s' does not exist.",
                                  qt->name.len, qt->name.ptr);
        } else if (qt->count == t->nparts) {
            err = GR_KERR_INVALID_PARTITIONS;
            msg = gr_arena_printf(req->a, "Topic already has %d partitions.",
                                  t->nparts);
        } else if (qt->count < t->nparts) {
            err = GR_KERR_INVALID_PARTITIONS;
            msg = gr_arena_printf(req->a,
                                  "Topic currently has %d partitions, which "
                                  "is higher than the requested %d.",
                                  t->nparts, qt->count);
        } else if ((added += (int64_t)qt->count - t->nparts) >
                   GR_MAX_PARTITIONS_PER_REQUEST) {
            /* as Kafka's controller, whose records for one request are
             * bounded (MAX_RECORDS_PER_USER_OP) */
            err = GR_KERR_POLICY_VIOLATION;
            msg = "Excessively large number of partitions per request.";
        } else if (qt->assignments_cnt > 0 &&
                   (err = check_assignment(req, qt, t, &rows, &msg)) !=
                       GR_KERR_NONE) {
            /* err, msg set */
        } else {
            err = gr_cluster_create_partitions(c, t, qt->count, rows,
                                               rq->validate_only, &msg);
            if (err == GR_KERR_NONE && !rq->validate_only) {
                GR_LOG_INFO("topic %s now has %d partitions (%s)", t->name,
                            t->nparts, gr_req_peer(req));
                gr_topic_waits_add(&w, &t->id, &res->error_code,
                                   &res->error_message);
            }
        }
        res->error_code = err;
        res->error_message =
            err != GR_KERR_NONE && msg ? gr_str_c(msg) : GR_STR_NULL;
    }
    if (rq->validate_only)
        return gr_req_reply(req);
    return gr_broker_open_async_end(req->broker, req, &w);
}
