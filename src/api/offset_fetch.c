/*
 * OffsetFetch (api key 9): committed offsets of one group (v0-v7; all of
 * them for a null topic list, v2+) or of several (v8+, each with its own
 * error). A partition without a commit answers offset -1 and metadata "".
 * Errors of the group: per partition in v0-v1, at the top level in v2-v7,
 * per group in v8+ (Kafka's OffsetFetchRequest.getErrorResponse).
 * require_stable (v7+): an offset a transaction holds (TxnOffsetCommit,
 * not yet committed by its marker) answers UNSTABLE_OFFSET_COMMIT.
 * v9+ names the member and its epoch: a consumer group answers
 * UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH for the group (KIP-848).
 * v10 names topics by id (KIP-848): an unknown id answers UNKNOWN_TOPIC_ID
 * in each partition, and a group's full list leaves out topics that no
 * longer exist, as Kafka's KafkaApis.fetchOffsetsForGroup and
 * fetchAllOffsetsForGroup. A partition or group listed twice is answered
 * twice, as Kafka answers every entry; the answer is bounded as it grows
 * (gr_api_answer_max: a partition committed with 4 KB of metadata listed
 * a million times would be gigabytes), each partition counted at its
 * encoded size at the most (its fields, metadata and tags).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

#include <string.h>

/* One group's answer, in the v8+ shape; v0-v7 copy it into theirs. */
typedef struct fetch_out {
    gr_req_t *req;
    gr_offset_fetch_response_topics_t *topics;
    int32_t ntopics;
    int32_t cap;
    bool oom;
    bool over;       /* the answer passed gr_api_answer_max */
    uint64_t *bytes; /* the answer's so far (all groups') */
} fetch_out_t;

/* Counts n bytes of o's answer; o->over once past the bound. */
static bool
count(fetch_out_t *o, uint64_t n)
{
    *o->bytes += n;
    if (*o->bytes > gr_api_answer_max(o->req))
        o->over = true;
    return !o->over;
}

static gr_offset_fetch_response_topics_t *
out_topic(fetch_out_t *o, const char *name, int32_t len, int32_t nparts)
{
    gr_offset_fetch_response_topics_t *t;
    /* name (2 + len), partition count (4), tags, id (16, v10) */
    if (!count(o, 24 + (uint64_t)len))
        return NULL;
    if (o->ntopics == o->cap) {
        int32_t cap = o->cap ? o->cap * 2 : 8;
        gr_offset_fetch_response_topics_t *v =
            gr_arena_zalloc(o->req->a, sizeof(*v) * (size_t)cap);
        if (v == NULL) {
            o->oom = true;
            return NULL;
        }
        if (o->ntopics)
            memcpy(v, o->topics, sizeof(*v) * (size_t)o->ntopics);
        o->topics = v;
        o->cap = cap;
    }
    t = &o->topics[o->ntopics++];
    t->name = (gr_str_t){ gr_arena_strndup(o->req->a, name, (size_t)len), len };
    t->partitions = gr_arena_zalloc(o->req->a, sizeof(*t->partitions) *
                                                   (size_t)(nparts + 1));
    t->partitions_cnt = 0;
    if (t->name.ptr == NULL || t->partitions == NULL)
        o->oom = true;
    return o->oom ? NULL : t;
}

static void
put_part(gr_req_t *req, gr_offset_fetch_response_partitions_t *p,
         int32_t partition, const gr_group_offset_t *go)
{
    /* the caller has counted it (part_bytes). The metadata is the
     * group's, not a copy: it stays valid until the next change, and the
     * answer is encoded before this request's handler returns (a copy
     * each made a partition committed with 4 KB of metadata, listed
     * 200,000 times, 800 MB) */
    (void)req;
    p->partition_index = partition;
    p->committed_offset = go->offset;
    p->committed_leader_epoch = go->leader_epoch;
    p->metadata = go->metadata;
    p->error_code = go->error;
}

/* The most one partition's answer takes: index, offset, epoch, metadata
 * (2 + len), error, tags. */
static uint64_t
part_bytes(const gr_group_offset_t *go)
{
    return 24 + (uint64_t)(go->metadata.len > 0 ? go->metadata.len : 0);
}

/* all offsets: topics come sorted, so a topic is contiguous */
typedef struct all_ctx {
    fetch_out_t *o;
    gr_offset_fetch_response_topics_t *cur;
    int32_t cur_cap;
} all_ctx_t;

static void
all_cb(void *arg, const char *topic, int32_t partition,
       const gr_group_offset_t *go)
{
    all_ctx_t *c = arg;
    fetch_out_t *o = c->o;
    if (o->oom || o->over)
        return;
    /* a group's full list leaves out the topics the client may not
     * DESCRIBE (Kafka's fetchAllOffsetsForGroup) */
    if (!gr_authz_cstr(o->req, GR_RES_TOPIC, topic, GR_OP_DESCRIBE) ||
        !count(o, part_bytes(go)))
        return;
    if (c->cur == NULL || strcmp(c->cur->name.ptr, topic) != 0 ||
        c->cur->partitions_cnt == c->cur_cap) {
        if (c->cur != NULL && strcmp(c->cur->name.ptr, topic) == 0) {
            /* grow this topic's partitions */
            gr_offset_fetch_response_partitions_t *v = gr_arena_zalloc(
                o->req->a, sizeof(*v) * (size_t)(c->cur_cap * 2));
            if (v == NULL) {
                o->oom = true;
                return;
            }
            memcpy(v, c->cur->partitions,
                   sizeof(*v) * (size_t)c->cur->partitions_cnt);
            c->cur->partitions = v;
            c->cur_cap *= 2;
        } else {
            c->cur = out_topic(o, topic, (int32_t)strlen(topic), 16);
            c->cur_cap = 16;
            if (c->cur == NULL)
                return;
        }
    }
    put_part(o->req, &c->cur->partitions[c->cur->partitions_cnt++], partition,
             go);
}

/* Fills o for one group; returns the group's error. */
static gr_kerr_t
fetch_group(gr_req_t *req, const gr_str_t *group_id,
            const gr_offset_fetch_request_topics_t *topics, int32_t ntopics,
            bool require_stable, fetch_out_t *o)
{
    gr_groups_t *g = req->broker->groups;
    gr_kerr_t err;
    /* DESCRIBE on the group first */
    if (!gr_authz(req, GR_RES_GROUP, group_id, GR_OP_DESCRIBE))
        return GR_KERR_GROUP_AUTHORIZATION_FAILED;
    err = gr_group_check(g, group_id, true);
    if (err != GR_KERR_NONE)
        return err;
    if (ntopics < 0) {
        all_ctx_t c = { o, NULL, 0 };
        gr_group_offsets_foreach(g, group_id, require_stable, all_cb, &c);
        return GR_KERR_NONE;
    }
    for (int32_t i = 0; i < ntopics && !o->oom && !o->over; i++) {
        int32_t np = topics[i].partition_indexes_cnt > 0
                         ? topics[i].partition_indexes_cnt
                         : 0;
        gr_offset_fetch_response_topics_t *t =
            out_topic(o, topics[i].name.ptr ? topics[i].name.ptr : "",
                      topics[i].name.len > 0 ? topics[i].name.len : 0, np);
        if (t == NULL)
            break;
        t->topic_id = topics[i].topic_id; /* v10+ */
        for (int32_t k = 0; k < np; k++) {
            gr_group_offset_t go;
            if (req->version >= 10 && topics[i].name.len < 0) {
                /* an id resolve_ids() did not find */
                go = (gr_group_offset_t){ -1, -1, GR_STR(""),
                                          GR_KERR_UNKNOWN_TOPIC_ID };
            } else if (!gr_authz(req, GR_RES_TOPIC, &topics[i].name,
                                 GR_OP_DESCRIBE)) {
                go = (gr_group_offset_t){ -1, -1, GR_STR(""),
                                          GR_KERR_TOPIC_AUTHORIZATION_FAILED };
            } else {
                gr_group_offset_get(g, group_id, &topics[i].name,
                                    topics[i].partition_indexes[k],
                                    require_stable, &go);
            }
            if (!count(o, part_bytes(&go)))
                break;
            put_part(req, &t->partitions[t->partitions_cnt++],
                     topics[i].partition_indexes[k], &go);
        }
    }
    return GR_KERR_NONE;
}

/* v10: the request's topic ids as names (null where the id is unknown),
 * in a copy of the list; NULL when out of memory. */
static gr_offset_fetch_request_topics_t *
resolve_ids(gr_req_t *req, const gr_offset_fetch_request_topics_t *topics,
            int32_t n)
{
    gr_offset_fetch_request_topics_t *v =
        gr_arena_zalloc(req->a, sizeof(*v) * (size_t)(n + 1));
    if (v == NULL)
        return NULL;
    for (int32_t i = 0; i < n; i++) {
        gr_topic_t *t =
            gr_cluster_topic_by_id(req->broker->cluster, &topics[i].topic_id);
        v[i] = topics[i];
        v[i].name = t ? gr_str_c(t->name) : GR_STR_NULL;
    }
    return v;
}

/* v10, a group's full list: each topic's id, without the topics that no
 * longer exist. */
static void
set_ids(gr_req_t *req, fetch_out_t *o)
{
    int32_t k = 0;
    for (int32_t i = 0; i < o->ntopics; i++) {
        gr_topic_t *t = gr_cluster_topic(req->broker->cluster,
                                         &o->topics[i].name);
        if (t == NULL)
            continue;
        o->topics[k] = o->topics[i];
        o->topics[k++].topic_id = t->id;
    }
    o->ntopics = k;
}

/* v0-v7: one group, topics in the old shape */
static int
fetch_v0_7(gr_req_t *req)
{
    const gr_offset_fetch_request_t *rq = req->body;
    gr_offset_fetch_response_t *rs = req->resp;
    uint64_t bytes = 0;
    fetch_out_t o = { req, NULL, 0, 0, false, false, &bytes };
    gr_offset_fetch_request_topics_t *qt = NULL;
    /* v0-v1 have no null list; an empty one fetches nothing */
    int32_t n = rq->topics_cnt;
    gr_kerr_t err;

    if (n > 0) {
        qt = gr_arena_zalloc(req->a, sizeof(*qt) * (size_t)n);
        if (qt == NULL)
            return gr_req_close(req, "out of memory");
        for (int32_t i = 0; i < n; i++) {
            qt[i].name = rq->topics[i].name;
            qt[i].partition_indexes = rq->topics[i].partition_indexes;
            qt[i].partition_indexes_cnt = rq->topics[i].partition_indexes_cnt;
        }
    }
    err = fetch_group(req, &rq->group_id, qt, n, rq->require_stable, &o);
    if (o.oom)
        return gr_req_close(req, "out of memory");
    if (o.over)
        return gr_api_answer_refuse(req, bytes);
    if (err != GR_KERR_NONE && req->version >= 2) {
        rs->error_code = err;
        rs->topics_cnt = 0;
        return gr_req_reply(req);
    }
    if (err != GR_KERR_NONE) {
        /* v0-v1: the error in every partition asked for */
        gr_group_offset_t none = { -1, -1, GR_STR(""), err };
        for (int32_t i = 0; i < n; i++) {
            int32_t np = qt[i].partition_indexes_cnt > 0
                             ? qt[i].partition_indexes_cnt
                             : 0;
            gr_offset_fetch_response_topics_t *t =
                out_topic(&o, qt[i].name.ptr ? qt[i].name.ptr : "",
                          qt[i].name.len > 0 ? qt[i].name.len : 0, np);
            if (o.over)
                return gr_api_answer_refuse(req, bytes);
            if (t == NULL)
                return gr_req_close(req, "out of memory");
            for (int32_t k = 0; k < np; k++) {
                if (!count(&o, part_bytes(&none)))
                    return gr_api_answer_refuse(req, bytes);
                put_part(req, &t->partitions[t->partitions_cnt++],
                         qt[i].partition_indexes[k], &none);
            }
        }
    }
    rs->error_code = GR_KERR_NONE;
    rs->topics_cnt = o.ntopics;
    rs->topics =
        gr_arena_zalloc(req->a, sizeof(*rs->topics) * (size_t)(o.ntopics + 1));
    if (rs->topics == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < o.ntopics; i++) {
        gr_offset_fetch_response_topic_t *t = &rs->topics[i];
        t->name = o.topics[i].name;
        t->partitions_cnt = o.topics[i].partitions_cnt;
        t->partitions = gr_arena_zalloc(
            req->a, sizeof(*t->partitions) * (size_t)(t->partitions_cnt + 1));
        if (t->partitions == NULL)
            return gr_req_close(req, "out of memory");
        for (int32_t k = 0; k < t->partitions_cnt; k++) {
            const gr_offset_fetch_response_partitions_t *p =
                &o.topics[i].partitions[k];
            t->partitions[k].partition_index = p->partition_index;
            t->partitions[k].committed_offset = p->committed_offset;
            t->partitions[k].committed_leader_epoch = p->committed_leader_epoch;
            t->partitions[k].metadata = p->metadata;
            t->partitions[k].error_code = p->error_code;
        }
    }
    return gr_req_reply(req);
}

int
gr_api_offset_fetch(gr_req_t *req)
{
    const gr_offset_fetch_request_t *rq = req->body;
    gr_offset_fetch_response_t *rs = req->resp;
    uint64_t bytes = 0;
    int32_t n;

    if (req->version < 8)
        return fetch_v0_7(req);
    n = rq->groups_cnt > 0 ? rq->groups_cnt : 0;
    rs->groups_cnt = n;
    rs->groups = gr_arena_zalloc(req->a, sizeof(*rs->groups) * (size_t)(n + 1));
    if (rs->groups == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        const gr_offset_fetch_request_group_t *qg = &rq->groups[i];
        gr_offset_fetch_response_group_t *rg = &rs->groups[i];
        fetch_out_t o = { req, NULL, 0, 0, false, false, &bytes };
        const gr_offset_fetch_request_topics_t *qt = qg->topics;
        rg->group_id = qg->group_id;
        if (req->version >= 10 && qg->topics_cnt > 0) {
            qt = resolve_ids(req, qg->topics, qg->topics_cnt);
            if (qt == NULL)
                return gr_req_close(req, "out of memory");
        }
        /* v9+ names the member: a consumer group checks its epoch
         * (KIP-848; member_id null and epoch -1 before v9) */
        rg->error_code =
            !gr_authz(req, GR_RES_GROUP, &qg->group_id, GR_OP_DESCRIBE)
                ? GR_KERR_GROUP_AUTHORIZATION_FAILED
                : gr_group_check(req->broker->groups, &qg->group_id, true);
        if (rg->error_code == GR_KERR_NONE)
            rg->error_code =
                gr_group_check_member(req->broker->groups, &qg->group_id,
                                      &qg->member_id, qg->member_epoch);
        if (rg->error_code == GR_KERR_NONE)
            rg->error_code = fetch_group(req, &qg->group_id, qt,
                                         qg->topics_cnt, rq->require_stable,
                                         &o);
        if (o.oom)
            return gr_req_close(req, "out of memory");
        /* the group's id, error, topic count, tags */
        if (o.over || !count(&o, 16 + (uint64_t)qg->group_id.len))
            return gr_api_answer_refuse(req, bytes);
        if (req->version >= 10 && qg->topics_cnt < 0)
            set_ids(req, &o);
        rg->topics = o.topics;
        rg->topics_cnt = rg->error_code == GR_KERR_NONE ? o.ntopics : 0;
    }
    return gr_req_reply(req);
}
