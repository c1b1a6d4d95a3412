/*
 * CreateTopics (api key 19): creates topics through the cluster ops, with a
 * partition count and replication factor (-1: num.partitions and
 * default.replication.factor) or an explicit replica assignment, and
 * config overrides checked against the config table (INVALID_CONFIG naming
 * key and value). validate_only checks everything and creates nothing.
 * v5+ answers with the partitions, replication factor and every config of
 * the topic (with sources); v7+ with the topic id.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/configs.h"
#include "api/topics.h"

#include <string.h>

typedef gr_create_topics_request_creatable_topic_t ctopic_t;
typedef gr_create_topics_response_creatable_topic_result_t cresult_t;

static char *
cstr(gr_req_t *req, const gr_str_t *s)
{
    return gr_arena_strndup(req->a, s->ptr ? s->ptr : "",
                            s->len > 0 ? (size_t)s->len : 0);
}

/* Kafka's name collision rule: '.' and '_' may not tell two topics apart
 * (their metric names would clash). */
static const gr_topic_t *
collides(gr_cluster_t *c, const char *name)
{
    for (const gr_topic_t *t = c->topics; t; t = t->lnext) {
        const char *a = t->name, *b = name;
        while (*a && *b &&
               (*a == *b ||
                ((*a == '.' || *a == '_') && (*b == '.' || *b == '_')))) {
            a++;
            b++;
        }
        if (*a == '\0' && *b == '\0')
            return t;
    }
    return NULL;
}

/* Checks the replica assignment as Kafka's controller does (createTopic):
 * each entry in the order listed (a partition listed twice, then its
 * replicas), then the indexes must be 0 to n - 1. Gives the partition
 * count and replication factor it implies, and the rows for the cluster
 * ops. */
static gr_kerr_t
check_assignment(gr_req_t *req, const ctopic_t *qt, int32_t *nparts,
                 int16_t *rf, const int32_t *const **rows, const char **msg)
{
    int32_t n = qt->assignments_cnt;
    const int32_t **out = gr_arena_zalloc(req->a, (size_t)n * sizeof(*out));
    /* each partition's assignment, by index (a listed index below n) */
    const gr_create_topics_request_creatable_replica_assignment_t **at =
        gr_arena_zalloc(req->a, (size_t)n * sizeof(*at));
    gr_str_t *keys = gr_arena_alloc(req->a, (size_t)n * sizeof(*keys));
    int32_t have = 0; /* replicas of the partitions before */
    int32_t *firsts;
    gr_kerr_t err;

    if (out == NULL || at == NULL || keys == NULL) {
        *msg = NULL;
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    /* which entries list a partition an earlier one did (any index, found
     * by sorting: a request may list many) */
    for (int32_t k = 0; k < n; k++)
        keys[k] = (gr_str_t){
            (const char *)&qt->assignments[k].partition_index,
            (int32_t)sizeof(int32_t)
        };
    firsts = gr_topics_first_of(req->a, keys, sizeof(*keys), n);
    if (firsts == NULL) {
        *msg = NULL;
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    for (int32_t k = 0; k < n; k++) {
        const gr_create_topics_request_creatable_replica_assignment_t *ra =
            &qt->assignments[k];
        int32_t p = ra->partition_index;
        if (firsts[k] != k) {
            *msg = gr_arena_printf(req->a,
                                   "Found multiple manual partition "
                                   "assignments for partition %d",
                                   p);
            return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
        }
        err = gr_topics_check_replicas(req->broker->cluster, req->a,
                                       ra->broker_ids, ra->broker_ids_cnt,
                                       have, msg);
        if (err != GR_KERR_NONE)
            return err;
        have = ra->broker_ids_cnt;
        if (p >= 0 && p < n)
            at[p] = ra;
    }
    for (int32_t p = 0; p < n; p++) {
        if (at[p] == NULL) {
            *msg = "partitions should be a consecutive 0-based integer "
                   "sequence";
            return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
        }
        out[p] = at[p]->broker_ids;
    }
    *nparts = n;
    *rf = (int16_t)have;
    *rows = out;
    return GR_KERR_NONE;
}

/* v5+: every config of the (new or would-be) topic, with its source;
 * without DESCRIBE_CONFIGS on the topic none, nor its partition count and
 * replication factor, and topic_config_error_code TOPIC_AUTHORIZATION_
 * FAILED (Kafka's ReplicationControlManager.createTopic). */
static int
fill_configs(gr_req_t *req, const gr_topic_t *t, cresult_t *res)
{
    const gr_topic_config_def_t *d;
    int n = 0;
    if (!gr_authz(req, GR_RES_TOPIC, &res->name, GR_OP_DESCRIBE_CONFIGS)) {
        res->configs_cnt = 0;
        res->num_partitions = -1;
        res->replication_factor = -1;
        res->topic_config_error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
        return 0;
    }
    while (gr_topic_config_def_at(n) != NULL)
        n++;
    res->configs = gr_arena_zalloc(req->a, (size_t)n * sizeof(*res->configs));
    if (res->configs == NULL)
        return -1;
    n = 0;
    for (int i = 0; (d = gr_topic_config_def_at(i)) != NULL; i++) {
        gr_create_topics_response_creatable_topic_configs_t *o;
        gr_config_entry_t e;
        if (gr_topic_config_is_legacy(d) && gr_topic_config_get(t, d->name) ==
                                                NULL)
            continue;
        o = &res->configs[n++];
        if (gr_configs_topic_entry(req->broker, t, d, req->a, &e) != 0)
            return -1;
        gr_create_topics_response_creatable_topic_configs_init(o);
        o->name = gr_str_c(e.name);
        o->value = e.value ? gr_str_c(e.value) : GR_STR_NULL;
        o->read_only = e.read_only;
        o->config_source = (int8_t)e.source;
        o->is_sensitive = e.sensitive;
    }
    res->configs_cnt = n;
    return 0;
}

static int
create_one(gr_req_t *req, const ctopic_t *qt, cresult_t *res)
{
    const gr_create_topics_request_t *rq = req->body;
    gr_broker_t *b = req->broker;
    gr_cluster_t *c = b->cluster;
    gr_topic_spec_t spec;
    const int32_t *const *rows = NULL;
    const char *msg = NULL, **keys, **vals;
    const gr_topic_t *other;
    gr_topic_t *t = NULL;
    int32_t nparts = qt->num_partitions;
    int16_t rf = qt->replication_factor;
    int ncfg = qt->configs_cnt > 0 ? qt->configs_cnt : 0;
    gr_kerr_t err;

    /* in the order of Kafka's ReplicationControlManager.createTopics,
     * where a later check's error replaces an earlier one's: the name,
     * its collision with a topic, its existence; then the configs (null
     * values, then each value); then the partitions (createTopic) */
    err = GR_KERR_NONE;
    if ((msg = gr_topic_name_error(&qt->name, req->a)) != NULL)
        err = GR_KERR_INVALID_TOPIC_EXCEPTION;
    if ((other = collides(c, cstr(req, &qt->name))) != NULL) {
        err = GR_KERR_INVALID_TOPIC_EXCEPTION;
        msg = gr_arena_printf(req->a,
                              "Topic '%.*s' collides with existing topic: %s",
                              qt->name.len, qt->name.ptr, other->name);
    }
    if (gr_cluster_topic(c, &qt->name) != NULL) {
        err = GR_KERR_TOPIC_ALREADY_EXISTS;
        msg = gr_arena_printf(req->a, "Topic '%.*s' already exists.",
                              qt->name.len, qt->name.ptr);
    }
    if (err != GR_KERR_NONE) {
        res->error_code = err;
        goto fail;
    }
    keys = gr_arena_zalloc(req->a, (size_t)(ncfg + 1) * sizeof(*keys));
    vals = gr_arena_zalloc(req->a, (size_t)(ncfg + 1) * sizeof(*vals));
    if (keys == NULL || vals == NULL)
        return -1;
    for (int i = 0; i < ncfg; i++) {
        const gr_create_topics_request_creatable_topic_config_t *cf =
            &qt->configs[i];
        keys[i] = cstr(req, &cf->name);
        vals[i] = cf->value.len < 0 ? NULL : cstr(req, &cf->value);
        if (keys[i] == NULL || (cf->value.len >= 0 && vals[i] == NULL))
            return -1;
        if (vals[i] == NULL) {
            /* Kafka names every key without a value, joined by "," */
            const char *sep = msg == NULL ? "" : ",";
            res->error_code = GR_KERR_INVALID_CONFIG;
            msg = gr_arena_printf(req->a, "%s%s%s",
                                  msg ? msg
                                      : "Null value not supported for topic "
                                        "configs: ",
                                  sep, keys[i]);
            if (msg == NULL)
                return -1;
        }
    }
    if (msg != NULL)
        goto fail;
    for (int i = 0; i < ncfg; i++) {
        if ((msg = gr_topic_config_check(keys[i], vals[i])) != NULL) {
            res->error_code = GR_KERR_INVALID_CONFIG;
            msg = gr_arena_strndup(req->a, msg, strlen(msg));
            goto fail;
        }
    }
    if (qt->assignments_cnt > 0) {
        if (rf != -1) {
            res->error_code = GR_KERR_INVALID_REQUEST;
            msg = "A manual partition assignment was specified, but "
                  "replication factor was not set to -1.";
            goto fail;
        }
        if (nparts != -1) {
            res->error_code = GR_KERR_INVALID_REQUEST;
            msg = "A manual partition assignment was specified, but "
                  "numPartitions was not set to -1.";
            goto fail;
        }
        err = check_assignment(req, qt, &nparts, &rf, &rows, &msg);
        if (err == GR_KERR_UNKNOWN_SERVER_ERROR)
            return -1; /* out of memory */
        if (err != GR_KERR_NONE) {
            res->error_code = err;
            goto fail;
        }
    } else {
        if (rf < -1 || rf == 0) {
            res->error_code = GR_KERR_INVALID_REPLICATION_FACTOR;
            msg = "Replication factor must be larger than 0, or -1 to use "
                  "the default value.";
            goto fail;
        }
        if (nparts < -1 || nparts == 0) {
            res->error_code = GR_KERR_INVALID_PARTITIONS;
            msg = "Number of partitions was set to an invalid non-positive "
                  "value.";
            goto fail;
        }
        if (nparts == -1)
            nparts = (int32_t)gr_conf_int(b->conf, GR_CONF_NUM_PARTITIONS);
        if (rf == -1)
            rf = (int16_t)gr_conf_int(b->conf,
                                      GR_CONF_DEFAULT_REPLICATION_FACTOR);
        if (rf > c->nnodes) {
            /* the placer's (StripedReplicaPlacer) words after Kafka's
             * prefix */
            res->error_code = GR_KERR_INVALID_REPLICATION_FACTOR;
            msg = gr_arena_printf(req->a,
                                  "Unable to replicate the partition %d "
                                  "time(s): The target replication factor of "
                                  "%d cannot be reached because only %d "
                                  "broker(s) are registered or some brokers "
                                  "have all their log directories cordoned.",
                                  rf, rf, c->nnodes);
            goto fail;
        }
    }
    memset(&spec, 0, sizeof spec);
    spec.name = cstr(req, &qt->name);
    spec.nparts = nparts;
    spec.replication_factor = rf;
    spec.assignment = rows;
    spec.config_keys = keys;
    spec.config_values = vals;
    spec.nconfigs = ncfg;
    spec.validate_only = rq->validate_only;
    /* __consumer_offsets, __transaction_state: internal, as Kafka has it by
     * name whoever creates them */
    spec.internal = gr_topic_is_internal_name(&qt->name);
    /* the controller_mutation_rate, once every check passed
     * (ReplicationControlManager.createTopic); strict from v6 */
    if ((err = gr_topics_mutation_check(req, 6)) != GR_KERR_NONE) {
        res->error_code = err;
        msg = gr_kerr_msg(err);
        goto fail;
    }
    err = gr_cluster_create_topic(c, &spec, &t, &msg);
    if (err != GR_KERR_NONE) {
        res->error_code = err;
        goto fail;
    }
    gr_topics_mutation_record(req, 6, nparts);
    res->num_partitions = nparts;
    res->replication_factor = rf;
    if (t != NULL) {
        res->topic_id = t->id;
        GR_LOG_INFO("topic %s created by %s (CreateTopics v%d)", t->name,
                    gr_req_peer(req), req->version);
        for (int i = 0; i < ncfg; i++)
            gr_configs_note_legacy(t, keys[i]);
        return fill_configs(req, t, res);
    }
    /* validate_only: a fresh id (Kafka's controller draws the id before
     * it knows the request only validates, and answers it, v7+) and the
     * configs the topic would have */
    gr_uuid_random(&res->topic_id);
    {
        gr_topic_t would;
        int rc;
        memset(&would, 0, sizeof would);
        for (int i = 0; i < ncfg; i++)
            if (gr_config_list_set(&would.configs, keys[i], vals[i]) != 0)
                return -1;
        rc = fill_configs(req, &would, res);
        gr_config_list_free(&would.configs);
        return rc;
    }
fail:
    res->error_message = msg ? gr_str_c(msg) : GR_STR_NULL;
    return 0;
}

/* Hands the created topics to gr_broker_open_async_end(), which answers. */
static int
open_async_end(gr_req_t *req, gr_create_topics_response_t *rs)
{
    gr_topic_waits_t w;

    /* out of memory: the answer then only misses a storage error */
    gr_topic_waits_init(req, &w, rs->topics_cnt);
    for (int32_t i = 0; i < rs->topics_cnt; i++) {
        cresult_t *res = &rs->topics[i];
        if (res->error_code == GR_KERR_NONE && !gr_uuid_is_zero(&res->topic_id))
            gr_topic_waits_add(&w, &res->topic_id, &res->error_code,
                               &res->error_message);
    }
    return gr_broker_open_async_end(req->broker, req, &w);
}

/* Kafka's KRaft metadata log: never a topic (ControllerApis.createTopics) */
static bool
is_metadata_log(const gr_str_t *name)
{
    return gr_str_eq_cstr(name, "__cluster_metadata");
}

/* A result that only says err (and msg) for the request's entry qt. */
static void
refuse(cresult_t *res, const ctopic_t *qt, gr_kerr_t err, const char *msg)
{
    gr_create_topics_response_creatable_topic_result_init(res);
    res->name = qt->name;
    res->error_code = err;
    res->error_message = msg ? gr_str_c(msg) : GR_STR_NULL;
}

/*
 * As Kafka's ControllerApis.createTopics: a name listed more than once is
 * answered once, INVALID_REQUEST "Duplicate topic name.", after the
 * results of the other topics (in request order), and __cluster_metadata
 * is refused; the rest go to the controller, which refuses the whole
 * request when they would make more than MAX_PARTITIONS_PER_BATCH
 * partitions in all: then every entry of the request, repeated ones
 * included, is POLICY_VIOLATION (CreateTopicsRequest.getErrorResponse).
 */
int
gr_api_create_topics(gr_req_t *req)
{
    const gr_create_topics_request_t *rq = req->body;
    gr_create_topics_response_t *rs = req->resp;
    int32_t n = rq->topics_cnt > 0 ? rq->topics_cnt : 0, k = 0;
    int64_t total = 0;
    int32_t *firsts;
    bool *dup, *denied;
    /* CREATE on the cluster, else on each topic (ControllerApis) */
    bool cluster_create = gr_authz_cluster(req, GR_OP_CREATE);

    rs->topics = gr_arena_zalloc(req->a, (size_t)n * sizeof(*rs->topics));
    firsts = gr_topics_first_of(req->a, n ? &rq->topics[0].name : NULL,
                                sizeof(rq->topics[0]), n);
    dup = gr_str_repeats(req->a, n ? &rq->topics[0].name : NULL,
                         sizeof(rq->topics[0]), n);
    denied = gr_arena_zalloc(req->a, (size_t)(n + 1) * sizeof(*denied));
    if ((n && rs->topics == NULL) || firsts == NULL || dup == NULL ||
        denied == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++)
        denied[i] = !cluster_create && !dup[i] &&
                    !is_metadata_log(&rq->topics[i].name) &&
                    !gr_authz(req, GR_RES_TOPIC, &rq->topics[i].name,
                              GR_OP_CREATE);

    /* counted as the controller's validateTotalNumberOfPartitions counts,
     * before any other check: each partition is a directory and files
     * made on the event loop */
    for (int32_t i = 0; i < n; i++) {
        const ctopic_t *qt = &rq->topics[i];
        if (dup[i] || denied[i] || is_metadata_log(&qt->name))
            continue;
        if (qt->assignments_cnt > 0)
            total += qt->assignments_cnt;
        else if (qt->num_partitions == -1)
            total += gr_conf_int(req->broker->conf, GR_CONF_NUM_PARTITIONS);
        else if (qt->num_partitions > 0)
            total += qt->num_partitions;
    }
    if (total > GR_MAX_PARTITIONS_PER_REQUEST) {
        for (int32_t i = 0; i < n; i++)
            refuse(&rs->topics[i], &rq->topics[i], GR_KERR_POLICY_VIOLATION,
                   "Excessively large number of partitions per request.");
        rs->topics_cnt = n;
        return gr_req_reply(req);
    }

    /* the partitions' directories are made on a worker; the answer waits
     * for them */
    if (!rq->validate_only)
        gr_broker_open_async_begin(req->broker);
    for (int32_t i = 0; i < n; i++) {
        const ctopic_t *qt = &rq->topics[i];
        cresult_t *res;

        if (dup[i] || denied[i] || is_metadata_log(&qt->name))
            continue;
        res = &rs->topics[k++];
        gr_create_topics_response_creatable_topic_result_init(res);
        res->name = qt->name;
        res->error_message = GR_STR_NULL;
        if (create_one(req, qt, res) != 0) {
            if (!rq->validate_only)
                gr_broker_open_async_end(req->broker, NULL, NULL);
            return gr_req_close(req, "out of memory");
        }
    }
    for (int32_t i = 0; i < n; i++)
        if (dup[i] && firsts[i] == i)
            refuse(&rs->topics[k++], &rq->topics[i], GR_KERR_INVALID_REQUEST,
                   "Duplicate topic name.");
    for (int32_t i = 0; i < n; i++)
        if (!dup[i] && is_metadata_log(&rq->topics[i].name))
            refuse(&rs->topics[k++], &rq->topics[i], GR_KERR_INVALID_REQUEST,
                   "Creation of internal topic __cluster_metadata is "
                   "prohibited.");
    for (int32_t i = 0; i < n; i++)
        if (denied[i])
            refuse(&rs->topics[k++], &rq->topics[i],
                   GR_KERR_TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
    rs->topics_cnt = k;
    if (rq->validate_only)
        return gr_req_reply(req);
    return open_async_end(req, rs);
}
