/*
 * Metadata (api key 3): brokers, cluster id, controller and the topics asked
 * for (all of them for a null list, or an empty one before v1), creating
 * missing topics when both the client (v4+ allow_auto_topic_creation) and
 * auto.create.topics.enable allow it. Topics are looked up by id from v12
 * (by_ids).
 *
 * With an authorizer (Kafka's handleTopicMetadataRequest): a topic the
 * client may not DESCRIBE is left out of an all-topics answer and is
 * TOPIC_AUTHORIZATION_FAILED when named (by id: with a null name);
 * auto-creation needs CREATE on the cluster or on the topic (else
 * TOPIC_AUTHORIZATION_FAILED); the authorized-operations fields are the
 * bits of what the client may do (the cluster's only with DESCRIBE on it,
 * else 0).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"
#include "cluster/cluster.h"

static int
fill_topic(gr_req_t *req, gr_metadata_response_topic_t *rt, gr_topic_t *t)
{
    const gr_metadata_request_t *rq = req->body;
    rt->error_code = GR_KERR_NONE;
    rt->name = gr_str_c(t->name);
    rt->topic_id = t->id;
    rt->is_internal = t->internal;
    gr_str_t name = gr_str_c(t->name);
    rt->topic_authorized_operations =
        rq->include_topic_authorized_operations
            ? gr_authz_ops(req, GR_RES_TOPIC, &name)
            : INT32_MIN;
    rt->partitions = gr_arena_zalloc(req->a, (size_t)t->nparts *
                                                 sizeof(*rt->partitions));
    if (t->nparts && rt->partitions == NULL)
        return -1;
    rt->partitions_cnt = t->nparts;
    for (int32_t i = 0; i < t->nparts; i++) {
        const gr_partition_t *p = t->parts[i];
        gr_metadata_response_partition_t *rp = &rt->partitions[i];
        rp->error_code = p->leader < 0 ? GR_KERR_LEADER_NOT_AVAILABLE
                                       : GR_KERR_NONE;
        rp->partition_index = p->id;
        rp->leader_id = p->leader;
        rp->leader_epoch = p->leader_epoch;
        rp->replica_nodes = p->replicas;
        rp->replica_nodes_cnt = p->nreplicas;
        rp->isr_nodes = p->isr;
        rp->isr_nodes_cnt = p->nisr;
        rp->offline_replicas = NULL;
        rp->offline_replicas_cnt = 0;
    }
    return 0;
}

static void
topic_error(gr_metadata_response_topic_t *rt, const gr_str_t *name,
            const gr_uuid_t *id, gr_kerr_t err)
{
    rt->error_code = err;
    rt->name = *name;
    rt->topic_authorized_operations = INT32_MIN;
    if (id)
        rt->topic_id = *id;
    rt->partitions = NULL;
    rt->partitions_cnt = 0;
}

/* The partitions auto-creation would make for the request's unknown
 * topics (num.partitions each; an estimate: internal topics have more). */
static int64_t
auto_create_count(gr_broker_t *b, const gr_metadata_request_t *rq)
{
    int64_t n = 0, per = gr_conf_int(b->conf, GR_CONF_NUM_PARTITIONS);
    for (int32_t i = 0; i < rq->topics_cnt; i++) {
        const gr_str_t *name = &rq->topics[i].name;
        if (name->len < 0)
            continue;
        if (gr_topic_is_internal_name(name))
            return INT64_MAX; /* 50 partitions by default */
        if (gr_cluster_topic(b->cluster, name) == NULL)
            n += per;
    }
    return n;
}

/* The answer of a request that auto-created topics, once they are stored
 * and their partitions led: the entries that said LEADER_NOT_AVAILABLE
 * while the topics were being made (and those of the topics it named
 * that were there: nothing of the model is held across the wait) say
 * what is now. */
static void
refill_created(gr_req_t *req)
{
    gr_metadata_response_t *rs = req->resp;
    for (int32_t i = 0; i < rs->topics_cnt; i++) {
        gr_metadata_response_topic_t *rt = &rs->topics[i];
        gr_str_t name = rt->name; /* the request's, as topic_error set it */
        gr_topic_t *t;
        if (rt->error_code != GR_KERR_LEADER_NOT_AVAILABLE || name.len < 0)
            continue;
        t = gr_cluster_topic(req->broker->cluster, &name);
        if (t != NULL && fill_topic(req, rt, t) != 0)
            topic_error(rt, &name, NULL,
                        GR_KERR_LEADER_NOT_AVAILABLE); /* out of memory */
    }
}

/* The topics a request names, auto-created if allowed, each name once
 * (Kafka's handleTopicMetadataRequest takes the names as a set: a name
 * listed twice is described once, a null name likewise). 0 or -1 (out of
 * memory). */
static int
named_topics(gr_req_t *req, const gr_metadata_request_t *rq,
             gr_metadata_response_t *rs, bool allow_create, bool deferred)
{
    gr_broker_t *b = req->broker;
    gr_cluster_t *c = b->cluster;
    bool capped = false; /* auto-creation stopped at the cap */
    int64_t created = 0; /* partitions auto-created so far */
    bool null_seen = false;
    int32_t n = 0, *firsts;

    firsts = gr_topics_first_of(req->a, rq->topics_cnt ? &rq->topics[0].name
                                                       : NULL,
                                sizeof(rq->topics[0]), rq->topics_cnt);
    if (firsts == NULL)
        return -1;
    /* room for each name once: a name listed a million times is one
     * entry, not a million */
    for (int32_t i = 0; i < rq->topics_cnt; i++)
        if (firsts[i] == i && (rq->topics[i].name.len >= 0 || !null_seen)) {
            null_seen = null_seen || rq->topics[i].name.len < 0;
            n++;
        }
    rs->topics = gr_arena_zalloc(req->a, (size_t)n * sizeof(*rs->topics));
    if (n && rs->topics == NULL)
        return -1;
    n = 0;
    null_seen = false;
    for (int32_t i = 0; i < rq->topics_cnt; i++) {
        const gr_metadata_request_topic_t *qt = &rq->topics[i];
        gr_metadata_response_topic_t *rt;
        gr_topic_t *t;
        const char *msg = NULL;
        gr_kerr_t err;

        if (firsts[i] != i || (qt->name.len < 0 && null_seen))
            continue;
        null_seen = null_seen || qt->name.len < 0;
        rt = &rs->topics[n++];
        rs->topics_cnt = n;
        if (req->version >= 10 && qt->name.len < 0) {
            /* a null name and no id (a request by id has gone to
             * by_ids) */
            topic_error(rt, &qt->name, &qt->topic_id,
                        GR_KERR_UNKNOWN_TOPIC_ID);
            continue;
        }
        if (!gr_authz(req, GR_RES_TOPIC, &qt->name, GR_OP_DESCRIBE)) {
            topic_error(rt, &qt->name, NULL,
                        GR_KERR_TOPIC_AUTHORIZATION_FAILED);
            continue;
        }
        t = gr_cluster_topic(c, &qt->name);
        if (t != NULL && deferred) {
            /* filled when the answer goes (refill_created): until then
             * the topic may go, or its ISR change, and the entry would
             * point into what was freed */
            topic_error(rt, &qt->name, NULL, GR_KERR_LEADER_NOT_AVAILABLE);
            continue;
        }
        if (t != NULL) {
            if (fill_topic(req, rt, t) != 0)
                return -1;
            continue;
        }
        if (allow_create &&
            gr_conf_bool(b->conf, GR_CONF_AUTO_CREATE_TOPICS_ENABLE) &&
            !gr_authz_cluster(req, GR_OP_CREATE) &&
            !gr_authz(req, GR_RES_TOPIC, &qt->name, GR_OP_CREATE)) {
            topic_error(rt, &qt->name, NULL,
                        GR_KERR_TOPIC_AUTHORIZATION_FAILED);
            continue;
        }
        if (gr_topic_name_invalid(&qt->name) != NULL) {
            topic_error(rt, &qt->name, NULL,
                        GR_KERR_INVALID_TOPIC_EXCEPTION);
            continue;
        }
        if (!allow_create ||
            (!gr_conf_bool(b->conf, GR_CONF_AUTO_CREATE_TOPICS_ENABLE) &&
             !gr_topic_is_internal_name(&qt->name))) {
            topic_error(rt, &qt->name, NULL,
                        GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
            continue;
        }
        /* as CreateTopics: at most GR_MAX_PARTITIONS_PER_REQUEST made
         * by one request (Kafka batches auto-creations into CreateTopics,
         * which its controller bounds); the rest are retriable and come
         * with the client's next Metadata */
        created += gr_conf_int(b->conf, GR_CONF_NUM_PARTITIONS);
        if (created > GR_MAX_PARTITIONS_PER_REQUEST) {
            if (!capped)
                GR_LOG_WARN("Metadata from %s names more topics to create "
                            "than %d partitions: the rest wait for the next "
                            "request",
                            gr_req_peer(req), GR_MAX_PARTITIONS_PER_REQUEST);
            capped = true;
            topic_error(rt, &qt->name, NULL, GR_KERR_LEADER_NOT_AVAILABLE);
            continue;
        }
        err = gr_topics_auto_create(b, &qt->name, &t, &msg);
        if (err != GR_KERR_NONE) {
            GR_LOG_WARN("auto-creating topic %.*s for %s: %s (%s)",
                        (int)qt->name.len, qt->name.ptr, gr_req_peer(req),
                        gr_kerr_name(err), msg ? msg : "");
            topic_error(rt, &qt->name, NULL,
                        err == GR_KERR_INVALID_REPLICATION_FACTOR
                            ? GR_KERR_INVALID_REPLICATION_FACTOR
                            : GR_KERR_LEADER_NOT_AVAILABLE);
            continue;
        }
        /* the answer waits for the creation (deferred is true): its
         * entry is filled then, from what the creation left (a topic
         * that lost a race with another broker's is freed meanwhile) */
        topic_error(rt, &qt->name, NULL, GR_KERR_LEADER_NOT_AVAILABLE);
    }
    return 0;
}

/* Whether the request names topics by id: any entry with an id (v10+),
 * as Kafka's MetadataRequest.topicIds; then the names do not count. A
 * null name before v12 goes the same way (to be refused). */
static bool
uses_ids(const gr_req_t *req, const gr_metadata_request_t *rq)
{
    if (req->version < 10)
        return false;
    for (int32_t i = 0; i < rq->topics_cnt; i++)
        if (!gr_uuid_is_zero(&rq->topics[i].topic_id) ||
            (req->version < 12 && rq->topics[i].name.len < 0))
            return true;
    return false;
}

/* A request by id, as Kafka's handleTopicMetadataRequest: before v12 an
 * id or a null name is INVALID_REQUEST for the whole request (its
 * getErrorResponse: every topic named, "" for a null name, no brokers);
 * from v12 each distinct id is described, or UNKNOWN_TOPIC_ID with a null
 * name, and the entries without one are left out. */
static int
by_ids(gr_req_t *req, const gr_metadata_request_t *rq,
       gr_metadata_response_t *rs)
{
    int32_t n = 0, *firsts;
    gr_str_t *keys;

    if (req->version < 12) {
        rs->topics = gr_arena_zalloc(req->a, (size_t)rq->topics_cnt *
                                                 sizeof(*rs->topics));
        if (rq->topics_cnt && rs->topics == NULL)
            return -1;
        GR_LOG_DEBUG("Metadata v%d from %s names topics by id: "
                     "INVALID_REQUEST (ids are for v12+)",
                     req->version, gr_req_peer(req));
        for (int32_t i = 0; i < rq->topics_cnt; i++) {
            const gr_metadata_request_topic_t *qt = &rq->topics[i];
            gr_str_t name = qt->name.len < 0 ? gr_str_c("") : qt->name;
            topic_error(&rs->topics[i], &name, &qt->topic_id,
                        GR_KERR_INVALID_REQUEST);
        }
        rs->topics_cnt = rq->topics_cnt;
        rs->brokers_cnt = 0;
        rs->cluster_id = GR_STR_NULL;
        rs->controller_id = -1;
        rs->error_code = GR_KERR_INVALID_REQUEST;
        return 0;
    }
    /* each id once, found by sorting (comparing each id with those before
     * it held the loop 5.7 s for 100,000 ids) */
    keys = gr_arena_alloc(req->a, (size_t)(rq->topics_cnt + 1) * sizeof(*keys));
    if (keys == NULL)
        return -1;
    for (int32_t i = 0; i < rq->topics_cnt; i++) {
        const gr_uuid_t *id = &rq->topics[i].topic_id;
        keys[i].ptr = (const char *)id->b;
        keys[i].len = gr_uuid_is_zero(id) ? -1 : (int32_t)sizeof(id->b);
        n += keys[i].len > 0;
    }
    firsts = gr_topics_first_of(req->a, keys, sizeof(*keys), rq->topics_cnt);
    rs->topics = gr_arena_zalloc(req->a, (size_t)n * sizeof(*rs->topics));
    if (firsts == NULL || (n && rs->topics == NULL))
        return -1;
    n = 0;
    for (int32_t i = 0; i < rq->topics_cnt; i++) {
        const gr_uuid_t *id = &rq->topics[i].topic_id;
        gr_topic_t *t;
        if (keys[i].len < 0 || firsts[i] != i)
            continue;
        t = gr_cluster_topic_by_id(req->broker->cluster, id);
        if (t == NULL) {
            gr_str_t null = GR_STR_NULL;
            topic_error(&rs->topics[n++], &null, id, GR_KERR_UNKNOWN_TOPIC_ID);
        } else if (!gr_authz_cstr(req, GR_RES_TOPIC, t->name,
                                  GR_OP_DESCRIBE)) {
            gr_str_t null = GR_STR_NULL;
            topic_error(&rs->topics[n++], &null, id,
                        GR_KERR_TOPIC_AUTHORIZATION_FAILED);
        } else if (fill_topic(req, &rs->topics[n++], t) != 0) {
            return -1;
        }
    }
    rs->topics_cnt = n;
    return 0;
}

int
gr_api_metadata(gr_req_t *req)
{
    const gr_metadata_request_t *rq = req->body;
    gr_metadata_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    gr_cluster_t *c = b->cluster;
    const char *listener = gr_req_listener_name(req);
    bool all = rq->topics_cnt < 0 || (req->version == 0 && rq->topics_cnt == 0);
    /* v0-v3 have no flag: those clients expect auto-creation */
    bool allow_create = req->version < 4 || rq->allow_auto_topic_creation;
    int n = 0, rc;
    bool async;

    /* brokers: each node's endpoint on the listener this request came in */
    rs->brokers =
        gr_arena_zalloc(req->a, (size_t)c->nnodes * sizeof(*rs->brokers));
    if (rs->brokers == NULL)
        return gr_req_close(req, "out of memory");
    for (int i = 0; i < c->nnodes; i++) {
        const gr_endpoint_t *ep = gr_node_endpoint(&c->nodes[i], listener);
        if (ep == NULL)
            continue;
        rs->brokers[n].node_id = c->nodes[i].id;
        rs->brokers[n].host = gr_str_c(ep->host);
        rs->brokers[n].port = ep->port;
        rs->brokers[n].rack =
            c->nodes[i].rack ? gr_str_c(c->nodes[i].rack) : GR_STR_NULL;
        n++;
    }
    rs->brokers_cnt = n;
    rs->cluster_id = gr_str_c(c->cluster_id);
    rs->controller_id = c->controller_id;
    if (req->version >= 8 && req->version <= 10 &&
        rq->include_cluster_authorized_operations) {
        gr_str_t cl = gr_str_c(GR_ACL_CLUSTER_NAME);
        rs->cluster_authorized_operations =
            gr_authz_cluster(req, GR_OP_DESCRIBE)
                ? gr_authz_ops(req, GR_RES_CLUSTER, &cl)
                : 0;
    }

    if (all) {
        gr_topic_t *t;
        n = 0;
        rs->topics =
            gr_arena_zalloc(req->a, (size_t)c->ntopics * sizeof(*rs->topics));
        if (c->ntopics && rs->topics == NULL)
            return gr_req_close(req, "out of memory");
        for (t = c->topics; t; t = t->lnext)
            if (gr_authz_cstr(req, GR_RES_TOPIC, t->name, GR_OP_DESCRIBE) &&
                fill_topic(req, &rs->topics[n++], t) != 0)
                return gr_req_close(req, "out of memory");
        rs->topics_cnt = n;
        return gr_req_reply(req);
    }

    if (uses_ids(req, rq))
        return by_ids(req, rq, rs) != 0 ? gr_req_close(req, "out of memory")
                                        : gr_req_reply(req);
    rs->topics_cnt = 0; /* named_topics makes and counts them */
    /* Auto-created topics get their partitions made on a worker once the
     * cluster has stored the topics, and the answer waits for that: it
     * shows them led (a client's first Metadata, as test suites expect),
     * and nothing is acknowledged for a topic a crash could still lose
     * (its records would be left in a directory of an unknown topic). */
    async = allow_create && auto_create_count(b, rq) > 0;
    if (async)
        gr_broker_open_async_begin(b);
    rc = named_topics(req, rq, rs, allow_create, async);
    if (async) {
        if (rc != 0) {
            gr_broker_open_async_end(b, NULL, NULL);
            return gr_req_close(req, "out of memory");
        }
        return gr_broker_open_async_end_then(b, req, refill_created);
    }
    if (rc != 0)
        return gr_req_close(req, "out of memory");
    return gr_req_reply(req);
}
