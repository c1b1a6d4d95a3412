/*
 * CreatePartitions (api key 37): raises a topic's partition count through
 * the cluster ops, with an optional replica assignment for the new
 * partitions; validate_only checks and stops. New partitions get their
 * logs at once (the cluster's partition_created hook).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"

typedef gr_create_partitions_request_create_partitions_topic_t ptopic_t;

/* The assignment of the new partitions, as Kafka's controller checks it
 * (createPartitions): one per new partition, each with the topic's
 * replication factor (gr_topics_check_replicas). */
static gr_kerr_t
check_assignment(gr_req_t *req, const ptopic_t *qt, const gr_topic_t *t,
                 const int32_t *const **rows, const char **msg)
{
    int32_t added = qt->count - t->nparts;
    const int32_t **out;
    gr_kerr_t err;

    if (qt->assignments_cnt != added) {
        *msg = gr_arena_printf(req->a,
                               "Attempted to add %d additional partition(s), "
                               "but only %d assignment(s) were specified.",
                               added, qt->assignments_cnt);
        return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
    }
    out = gr_arena_zalloc(req->a, (size_t)(added ? added : 1) * sizeof(*out));
    if (out == NULL) {
        *msg = NULL;
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    for (int32_t p = 0; p < added; p++) {
        const gr_create_partitions_request_create_partitions_assignment_t *a =
            &qt->assignments[p];
        err = gr_topics_check_replicas(req->broker->cluster, req->a,
                                       a->broker_ids, a->broker_ids_cnt,
                                       t->replication_factor, msg);
        if (err != GR_KERR_NONE)
            return err;
        out[p] = a->broker_ids;
    }
    *rows = out;
    return GR_KERR_NONE;
}

/* One topic of the request, listed once: err and msg set as Kafka's
 * ReplicationControlManager.createPartitions answers. */
static gr_kerr_t
grow_one(gr_req_t *req, const ptopic_t *qt, gr_topic_waits_t *w,
         gr_create_partitions_response_create_partitions_topic_result_t *res,
         const char **msg)
{
    const gr_create_partitions_request_t *rq = req->body;
    gr_cluster_t *c = req->broker->cluster;
    gr_topic_t *t = gr_cluster_topic(c, &qt->name);
    const int32_t *const *rows = NULL;
    int32_t before;
    gr_kerr_t err;

    *msg = NULL;
    if (t == NULL) /* UnknownTopicOrPartitionException(): no message */
        return GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
    if (qt->count == t->nparts) {
        *msg = gr_arena_printf(req->a, "Topic already has %d partition(s).",
                               t->nparts);
        return GR_KERR_INVALID_PARTITIONS;
    }
    if (qt->count < t->nparts) {
        *msg = gr_arena_printf(req->a,
                               "The topic %s currently has %d partition(s); "
                               "%d would not be an increase.",
                               t->name, t->nparts, qt->count);
        return GR_KERR_INVALID_PARTITIONS;
    }
    /* an empty list is an assignment too (of none) */
    if (qt->assignments_cnt >= 0 &&
        (err = check_assignment(req, qt, t, &rows, msg)) != GR_KERR_NONE)
        return err;
    /* the controller_mutation_rate: the partitions added; strict from v3 */
    if ((err = gr_topics_mutation_check(req, 3)) != GR_KERR_NONE) {
        *msg = gr_kerr_msg(err);
        return err;
    }
    before = t->nparts;
    err = gr_cluster_create_partitions(c, t, qt->count, rows, rq->validate_only,
                                       msg);
    if (err == GR_KERR_NONE)
        gr_topics_mutation_record(req, 3, (int64_t)qt->count - before);
    if (err == GR_KERR_NONE && !rq->validate_only) {
        GR_LOG_INFO("topic %s now has %d partitions (%s)", t->name, qt->count,
                    gr_req_peer(req));
        gr_topic_waits_add(w, &t->id, &res->error_code, &res->error_message);
    }
    return err;
}

/*
 * As Kafka's ControllerApis.createPartitions: a name listed more than once
 * is answered once, INVALID_REQUEST "Duplicate topic name.", ahead of the
 * others (in request order); those go to the controller, which refuses the
 * whole request when they would add more than MAX_PARTITIONS_PER_BATCH
 * partitions in all: then every entry, repeated ones too, is
 * POLICY_VIOLATION (CreatePartitionsRequest.getErrorResponse).
 */
int
gr_api_create_partitions(gr_req_t *req)
{
    const gr_create_partitions_request_t *rq = req->body;
    gr_create_partitions_response_t *rs = req->resp;
    gr_cluster_t *c = req->broker->cluster;
    int32_t n = rq->topics_cnt > 0 ? rq->topics_cnt : 0, k = 0;
    int64_t added = 0; /* partitions the request adds */
    gr_topic_waits_t w;
    int32_t *firsts;
    bool *dup, *denied;

    rs->results = gr_arena_zalloc(req->a, (size_t)n * sizeof(*rs->results));
    firsts = gr_topics_first_of(req->a, n ? &rq->topics[0].name : NULL,
                                sizeof(rq->topics[0]), n);
    dup = gr_str_repeats(req->a, n ? &rq->topics[0].name : NULL,
                         sizeof(rq->topics[0]), n);
    denied = gr_arena_zalloc(req->a, (size_t)(n + 1) * sizeof(*denied));
    if ((n && rs->results == NULL) || firsts == NULL || dup == NULL ||
        denied == NULL)
        return gr_req_close(req, "out of memory");
    /* ALTER on each topic (ControllerApis.createPartitions): the others
     * TOPIC_AUTHORIZATION_FAILED after the duplicates, not counted */
    for (int32_t i = 0; i < n; i++)
        denied[i] = !dup[i] && !gr_authz(req, GR_RES_TOPIC, &rq->topics[i].name,
                                         GR_OP_ALTER);
    /* validateTotalNumberOfPartitions: what the known topics listed once
     * would gain */
    for (int32_t i = 0; i < n; i++) {
        const ptopic_t *qt = &rq->topics[i];
        gr_topic_t *t =
            dup[i] || denied[i] ? NULL : gr_cluster_topic(c, &qt->name);
        if (t != NULL && qt->count > t->nparts)
            added += (int64_t)qt->count - t->nparts;
    }
    if (added > GR_MAX_PARTITIONS_PER_REQUEST) {
        for (int32_t i = 0; i < n; i++) {
            gr_create_partitions_response_create_partitions_topic_result_t
                *res = &rs->results[i];
            gr_create_partitions_response_create_partitions_topic_result_init(
                res);
            res->name = rq->topics[i].name;
            res->error_code = GR_KERR_POLICY_VIOLATION;
            res->error_message = gr_str_c("Excessively large number of "
                                          "additional partitions per "
                                          "request.");
        }
        rs->results_cnt = n;
        return gr_req_reply(req);
    }
    for (int32_t i = 0; i < n; i++) {
        gr_create_partitions_response_create_partitions_topic_result_t *res;
        if (!dup[i] || firsts[i] != i)
            continue;
        res = &rs->results[k++];
        gr_create_partitions_response_create_partitions_topic_result_init(res);
        res->name = rq->topics[i].name;
        res->error_code = GR_KERR_INVALID_REQUEST;
        res->error_message = gr_str_c("Duplicate topic name.");
    }
    for (int32_t i = 0; i < n; i++) {
        gr_create_partitions_response_create_partitions_topic_result_t *res;
        if (!denied[i])
            continue;
        res = &rs->results[k++];
        gr_create_partitions_response_create_partitions_topic_result_init(res);
        res->name = rq->topics[i].name;
        res->error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        res->error_message = GR_STR_NULL;
    }
    /* the new partitions' directories are made on a worker; the answer
     * waits for them */
    if (gr_topic_waits_init(req, &w, n) != 0)
        return gr_req_close(req, "out of memory");
    if (!rq->validate_only)
        gr_broker_open_async_begin(req->broker);
    for (int32_t i = 0; i < n; i++) {
        const ptopic_t *qt = &rq->topics[i];
        gr_create_partitions_response_create_partitions_topic_result_t *res;
        const char *msg;
        gr_kerr_t err;

        if (dup[i] || denied[i])
            continue;
        res = &rs->results[k++];
        gr_create_partitions_response_create_partitions_topic_result_init(res);
        res->name = qt->name;
        err = grow_one(req, qt, &w, res, &msg);
        res->error_code = err;
        res->error_message =
            err != GR_KERR_NONE && msg ? gr_str_c(msg) : GR_STR_NULL;
    }
    rs->results_cnt = k;
    if (rq->validate_only)
        return gr_req_reply(req);
    return gr_broker_open_async_end(req->broker, req, &w);
}
