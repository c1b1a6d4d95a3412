/*
 * DeleteTopics (api key 20): deletes topics by name (v0-v5 topic_names,
 * v6 topics[].name) or by id (v6 topics[].topic_id) through the cluster
 * ops; each partition's log directory is renamed at once and removed by a
 * worker (src/log). Unknown names give UNKNOWN_TOPIC_OR_PARTITION, unknown
 * ids UNKNOWN_TOPIC_ID; delete.topic.enable=false refuses every deletion
 * (TOPIC_DELETION_DISABLED, INVALID_REQUEST before v3 which lacks it).
 */
#include "api/api_int.h"
#include "api/topics.h"

typedef gr_delete_topics_response_deletable_topic_result_t dresult_t;

/* One deletion: name (len -1 when by id) or id. */
static void
delete_one(gr_req_t *req, const gr_str_t *name, const gr_uuid_t *id, bool dup,
           dresult_t *res)
{
    gr_broker_t *b = req->broker;
    bool by_id = name->len < 0;
    gr_topic_t *t;
    const char *msg = NULL;
    gr_kerr_t err;

    gr_delete_topics_response_deletable_topic_result_init(res);
    res->name = *name;
    res->error_message = GR_STR_NULL;
    if (id != NULL)
        res->topic_id = *id;
    if (dup) {
        res->error_code = GR_KERR_INVALID_REQUEST;
        res->error_message =
            gr_str_c(by_id ? "Duplicate topic id." : "Duplicate topic name.");
        return;
    }
    if (by_id && (id == NULL || gr_uuid_is_zero(id))) {
        res->error_code = GR_KERR_INVALID_REQUEST;
        res->error_message = gr_str_c("Neither topic name nor id were "
                                      "specified.");
        return;
    }
    if (!by_id && id != NULL && !gr_uuid_is_zero(id)) {
        res->error_code = GR_KERR_INVALID_REQUEST;
        res->error_message = gr_str_c("You may not specify both topic name "
                                      "and topic id.");
        return;
    }
    t = by_id ? gr_cluster_topic_by_id(b->cluster, id)
              : gr_cluster_topic(b->cluster, name);
    if (t == NULL) {
        res->error_code = by_id ? GR_KERR_UNKNOWN_TOPIC_ID
                                : GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return;
    }
    res->name = gr_str_c(gr_arena_strndup(req->a, t->name, strlen(t->name)));
    res->topic_id = t->id;
    if (!gr_conf_bool(b->conf, GR_CONF_DELETE_TOPIC_ENABLE)) {
        res->error_code = req->version < 3 ? GR_KERR_INVALID_REQUEST
                                           : GR_KERR_TOPIC_DELETION_DISABLED;
        res->error_message = gr_str_c("Topic deletion is disabled.");
        return;
    }
    if (t->internal) {
        /* the coordinators' state lives there */
        res->error_code = GR_KERR_INVALID_REQUEST;
        res->error_message =
            gr_str_c("Internal topics (__consumer_offsets, "
                     "__transaction_state) cannot be deleted.");
        return;
    }
    GR_LOG_INFO("topic %s deleted by %s (DeleteTopics v%d)", t->name,
                gr_req_peer(req), req->version);
    err = gr_cluster_delete_topic(b->cluster, t);
    if (err != GR_KERR_NONE) {
        msg = "The topic could not be deleted.";
        res->error_code = err;
        res->error_message = gr_str_c(msg);
    }
}

/* The answer waits until the deletions are persisted. */
static int
reply_when_stored(gr_req_t *req, gr_delete_topics_response_t *rs)
{
    gr_topic_waits_t w;

    /* out of memory: the answer then only misses a storage error */
    gr_topic_waits_init(req, &w, rs->responses_cnt);
    for (int32_t i = 0; i < rs->responses_cnt; i++) {
        dresult_t *res = &rs->responses[i];
        if (res->error_code == GR_KERR_NONE && !gr_uuid_is_zero(&res->topic_id))
            gr_topic_waits_add(&w, &res->topic_id, &res->error_code,
                               &res->error_message);
    }
    return gr_broker_reply_when_stored(req->broker, req, &w);
}

int
gr_api_delete_topics(gr_req_t *req)
{
    const gr_delete_topics_request_t *rq = req->body;
    gr_delete_topics_response_t *rs = req->resp;
    /* v6 lists topics (name or id), before it topic_names */
    bool v6 = req->version >= 6;
    int32_t n = v6 ? rq->topics_cnt : rq->topic_names_cnt;
    gr_str_t *ids = NULL; /* v6 entries by id: the id's bytes, else null */
    bool *dup_name, *dup_id;

    if (n < 0)
        n = 0;
    rs->responses = gr_arena_zalloc(req->a, (size_t)n * sizeof(*rs->responses));
    if (v6) {
        dup_name = gr_str_repeats(req->a, n ? &rq->topics[0].name : NULL,
                                  sizeof(rq->topics[0]), n);
        ids = gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*ids));
        for (int32_t i = 0; ids != NULL && i < n; i++)
            ids[i] = rq->topics[i].name.len < 0
                         ? (gr_str_t){ (const char *)rq->topics[i].topic_id.b,
                                       (int32_t)sizeof(gr_uuid_t) }
                         : GR_STR_NULL;
        dup_id = ids ? gr_str_repeats(req->a, ids, sizeof(*ids), n) : NULL;
    } else {
        dup_name = gr_str_repeats(req->a, rq->topic_names,
                                  sizeof(*rq->topic_names), n);
        dup_id = dup_name;
    }
    if ((n && rs->responses == NULL) || dup_name == NULL || dup_id == NULL)
        return gr_req_close(req, "out of memory");
    rs->responses_cnt = n;
    for (int32_t i = 0; i < n; i++) {
        const gr_str_t *name = v6 ? &rq->topics[i].name : &rq->topic_names[i];
        const gr_uuid_t *id = v6 ? &rq->topics[i].topic_id : NULL;
        delete_one(req, name, id, dup_name[i] || dup_id[i], &rs->responses[i]);
    }
    return reply_when_stored(req, rs);
}
