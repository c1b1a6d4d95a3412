/*
 * DeleteTopics (api key 20): deletes topics by name (v0-v5 topic_names,
 * v6 topics[].name) or by id (v6 topics[].topic_id) through the cluster
 * ops; each partition's log directory is renamed at once and removed by a
 * worker (src/log). Unknown names give UNKNOWN_TOPIC_OR_PARTITION, unknown
 * ids UNKNOWN_TOPIC_ID; delete.topic.enable=false refuses every deletion
 * (TOPIC_DELETION_DISABLED, INVALID_REQUEST before v3 which lacks it).
 * Kafka deletes its internal topics too; Gregor refuses (the group and
 * transaction coordinators keep their state there).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"

#include <stdlib.h>
#include <string.h>

typedef gr_delete_topics_response_deletable_topic_result_t dresult_t;

static const gr_uuid_t zero_id;

/* Appends an answer for name (null for one by id) and id. */
static void
add(gr_delete_topics_response_t *rs, const gr_str_t *name, const gr_uuid_t *id,
    gr_kerr_t err, const char *msg)
{
    dresult_t *res = &rs->responses[rs->responses_cnt++];
    gr_delete_topics_response_deletable_topic_result_init(res);
    res->name = *name;
    res->topic_id = *id;
    res->error_code = err;
    res->error_message = msg ? gr_str_c(msg) : GR_STR_NULL;
}

/* One topic to delete: found by its id or by its name. */
typedef struct victim {
    gr_topic_t *t;
    bool dropped; /* named again by name: refused, not deleted */
} victim_t;

static int
cmp_victim(const void *x, const void *y)
{
    const victim_t *a = x, *b = y;
    return memcmp(a->t->id.b, b->t->id.b, sizeof a->t->id.b);
}

static int
cmp_uuid(const void *x, const void *y)
{
    return memcmp(((const gr_uuid_t *)x)->b, ((const gr_uuid_t *)y)->b,
                  sizeof(((const gr_uuid_t *)x)->b));
}

/* Deletes t and answers for it. */
static void
delete_one(gr_req_t *req, gr_delete_topics_response_t *rs, gr_topic_t *t)
{
    gr_broker_t *b = req->broker;
    gr_str_t name = gr_str_c(gr_arena_strndup(req->a, t->name,
                                              strlen(t->name)));
    gr_uuid_t id;
    gr_kerr_t err;
    int32_t nparts;

    if (t->internal) {
        /* the coordinators' state lives there (Kafka deletes them) */
        add(rs, &name, &t->id, GR_KERR_INVALID_REQUEST,
            "Internal topics (__consumer_offsets, __transaction_state) "
            "cannot be deleted.");
        return;
    }
    /* the controller_mutation_rate: the topic's partitions
     * (ReplicationControlManager.deleteTopic); strict from v5 */
    if ((err = gr_topics_mutation_check(req, 5)) != GR_KERR_NONE) {
        add(rs, &name, &t->id, err, gr_kerr_msg(err));
        return;
    }
    nparts = t->nparts;
    GR_LOG_INFO("topic %s deleted by %s (DeleteTopics v%d)", t->name,
                gr_req_peer(req), req->version);
    id = t->id; /* t may be gone after the call */
    err = gr_cluster_delete_topic(b->cluster, t);
    if (err == GR_KERR_NONE)
        gr_topics_mutation_record(req, 5, nparts);
    add(rs, &name, &id, err,
        err != GR_KERR_NONE ? "The topic could not be deleted." : NULL);
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
    return gr_broker_reply_when_deleted(
        req->broker, req, &w,
        ((const gr_delete_topics_request_t *)req->body)->timeout_ms);
}

/*
 * As Kafka's ControllerApis.deleteTopics: with deletion disabled every
 * entry is refused (no message, as the request's getErrorResponse gives
 * it). Else an entry with neither name nor id, or both, is refused; a name
 * or an id listed more than once is answered once, "Duplicate topic
 * name."/"Duplicate topic id."; an unknown id is UNKNOWN_TOPIC_ID, an
 * unknown name UNKNOWN_TOPIC_OR_PARTITION (their default messages); a name
 * whose topic's id the request also gives is refused and that topic is not
 * deleted; the rest are deleted, one answer each. Kafka shuffles the
 * answers; they come here in that order.
 */
int
gr_api_delete_topics(gr_req_t *req)
{
    const gr_delete_topics_request_t *rq = req->body;
    gr_delete_topics_response_t *rs = req->resp;
    gr_cluster_t *c = req->broker->cluster;
    /* v6 lists topics (name or id), before it topic_names */
    bool v6 = req->version >= 6;
    int32_t n = v6 ? rq->topics_cnt : rq->topic_names_cnt;
    gr_str_t *names, *ids; /* each entry's name or id key, else null */
    int32_t *first_name, *first_id, nv = 0, nid, ntwice = 0;
    bool *dup_name, *dup_id;
    gr_uuid_t *twice; /* the ids given more than once, sorted */
    victim_t *v;
    /* DELETE on the cluster, else DESCRIBE and DELETE on each topic */
    bool cluster_delete = gr_authz_cluster(req, GR_OP_DELETE);

    if (n < 0)
        n = 0;
    rs->responses = gr_arena_zalloc(req->a, (size_t)(n ? n : 1) *
                                                sizeof(*rs->responses));
    if (rs->responses == NULL)
        return gr_req_close(req, "out of memory");
    rs->responses_cnt = 0;
    if (!gr_conf_bool(req->broker->conf, GR_CONF_DELETE_TOPIC_ENABLE)) {
        /* before v3: InvalidRequestException("This version does not
         * support topic deletion."), its code only */
        gr_kerr_t err = req->version < 3 ? GR_KERR_INVALID_REQUEST
                                         : GR_KERR_TOPIC_DELETION_DISABLED;
        for (int32_t i = 0; i < n; i++)
            add(rs, v6 ? &rq->topics[i].name : &rq->topic_names[i],
                v6 ? &rq->topics[i].topic_id : &zero_id, err, NULL);
        return gr_req_reply(req);
    }

    names = gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*names));
    ids = gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*ids));
    v = gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*v));
    twice = gr_arena_alloc(req->a, (size_t)(n ? n : 1) * sizeof(*twice));
    if (names == NULL || ids == NULL || v == NULL || twice == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        const gr_str_t *name = v6 ? &rq->topics[i].name : &rq->topic_names[i];
        const gr_uuid_t *id = v6 ? &rq->topics[i].topic_id : &zero_id;
        names[i] = ids[i] = GR_STR_NULL;
        if (name->len < 0 && gr_uuid_is_zero(id))
            add(rs, name, id, GR_KERR_INVALID_REQUEST,
                "Neither topic name nor id were specified.");
        else if (name->len < 0)
            ids[i] = (gr_str_t){ (const char *)id->b, (int32_t)sizeof(id->b) };
        else if (gr_uuid_is_zero(id))
            names[i] = *name;
        else
            add(rs, name, id, GR_KERR_INVALID_REQUEST,
                "You may not specify both topic name and topic id.");
    }
    first_name = gr_topics_first_of(req->a, names, sizeof(*names), n);
    first_id = gr_topics_first_of(req->a, ids, sizeof(*ids), n);
    dup_name = gr_str_repeats(req->a, names, sizeof(*names), n);
    dup_id = gr_str_repeats(req->a, ids, sizeof(*ids), n);
    if (first_name == NULL || first_id == NULL || dup_name == NULL ||
        dup_id == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        gr_str_t null = GR_STR_NULL;
        if (dup_name[i] && first_name[i] == i)
            add(rs, &names[i], &zero_id, GR_KERR_INVALID_REQUEST,
                "Duplicate topic name.");
        if (dup_id[i] && first_id[i] == i) {
            add(rs, &null, &rq->topics[i].topic_id, GR_KERR_INVALID_REQUEST,
                "Duplicate topic id.");
            twice[ntwice++] = rq->topics[i].topic_id;
        }
    }
    qsort(twice, (size_t)ntwice, sizeof(*twice), cmp_uuid);
    /* the ids given once */
    for (int32_t i = 0; i < n; i++) {
        gr_str_t null = GR_STR_NULL;
        gr_topic_t *t;
        if (ids[i].len < 0 || dup_id[i])
            continue;
        t = gr_cluster_topic_by_id(c, &rq->topics[i].topic_id);
        if (t == NULL)
            add(rs, &null, &rq->topics[i].topic_id, GR_KERR_UNKNOWN_TOPIC_ID,
                gr_kerr_msg(GR_KERR_UNKNOWN_TOPIC_ID));
        else if (!cluster_delete &&
                 !gr_authz_cstr(req, GR_RES_TOPIC, t->name, GR_OP_DELETE)) {
            gr_str_t name = gr_str_c(t->name);
            /* the name only to a client that may describe the topic */
            add(rs,
                gr_authz(req, GR_RES_TOPIC, &name, GR_OP_DESCRIBE) ? &name
                                                                   : &null,
                &rq->topics[i].topic_id, GR_KERR_TOPIC_AUTHORIZATION_FAILED,
                gr_kerr_msg(GR_KERR_TOPIC_AUTHORIZATION_FAILED));
        } else
            v[nv++] = (victim_t){ t, false };
    }
    qsort(v, (size_t)nv, sizeof(*v), cmp_victim);
    nid = nv;
    /* the names given once: a topic an id named too is refused */
    for (int32_t i = 0; i < n; i++) {
        gr_topic_t *t;
        victim_t key, *hit;
        bool id_twice;
        if (names[i].len < 0 || dup_name[i])
            continue;
        if (!cluster_delete &&
            !gr_authz(req, GR_RES_TOPIC, &names[i], GR_OP_DESCRIBE)) {
            add(rs, &names[i], &zero_id, GR_KERR_TOPIC_AUTHORIZATION_FAILED,
                gr_kerr_msg(GR_KERR_TOPIC_AUTHORIZATION_FAILED));
            continue;
        }
        t = gr_cluster_topic(c, &names[i]);
        if (t != NULL && !cluster_delete &&
            !gr_authz(req, GR_RES_TOPIC, &names[i], GR_OP_DELETE)) {
            add(rs, &names[i], &zero_id, GR_KERR_TOPIC_AUTHORIZATION_FAILED,
                gr_kerr_msg(GR_KERR_TOPIC_AUTHORIZATION_FAILED));
            continue;
        }
        if (t == NULL) {
            add(rs, &names[i], &zero_id, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION,
                gr_kerr_msg(GR_KERR_UNKNOWN_TOPIC_OR_PARTITION));
            continue;
        }
        key.t = t;
        hit = nid ? bsearch(&key, v, (size_t)nid, sizeof(*v), cmp_victim)
                  : NULL;
        id_twice = ntwice && bsearch(&t->id, twice, (size_t)ntwice,
                                     sizeof(*twice), cmp_uuid) != NULL;
        if (hit != NULL || id_twice) {
            if (hit != NULL)
                hit->dropped = true;
            add(rs, &names[i], &t->id, GR_KERR_INVALID_REQUEST,
                "The provided topic name maps to an ID that was already "
                "supplied.");
            continue;
        }
        v[nv++] = (victim_t){ t, false };
    }
    for (int32_t i = 0; i < nv; i++)
        if (!v[i].dropped)
            delete_one(req, rs, v[i].t);
    return reply_when_stored(req, rs);
}
