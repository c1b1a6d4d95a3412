/*
 * DescribeConfigs (api key 32): the configs of topics, of this broker (or
 * the cluster-wide dynamic defaults), of its logger and of client metrics
 * subscriptions (KIP-714), each with its
 * value, source (v1+), synonyms (v1+, when asked), read-only and sensitive
 * flags (sensitive values are null), type and documentation (v3+, when
 * asked). Entries come from api/configs.c over the config table. A
 * resource type Kafka does not know fails the whole request, as Kafka's
 * authorization of it throws. A resource listed twice is described
 * twice, as Kafka's ConfigHelper.describeConfigs maps every entry: the
 * second time is a copy of the first, and the answer is bounded as it
 * grows (gr_api_answer_max: a broker's configs listed a million times
 * would be gigabytes).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/configs.h"
#include "api/topics.h"

#include <string.h>

typedef gr_describe_configs_response_describe_configs_resource_result_t
    result_t;

static bool
wanted(const gr_describe_configs_request_describe_configs_resource_t *r,
       const gr_nameset_t *keys, const char *name)
{
    /* null or empty: every config (Kafka's toDescribeConfigsResult) */
    if (r->configuration_keys_cnt <= 0)
        return true;
    if (keys != NULL)
        return gr_nameset_has(keys, name, strlen(name));
    for (int32_t i = 0; i < r->configuration_keys_cnt; i++)
        if (gr_str_eq_cstr(&r->configuration_keys[i], name))
            return true;
    return false;
}

/* Fills out from e as the request's version and flags say. */
static int
fill(gr_req_t *req, const gr_config_entry_t *e, result_t *out)
{
    const gr_describe_configs_request_t *rq = req->body;
    gr_describe_configs_response_describe_configs_resource_result_init(out);
    out->name = gr_str_c(e->name);
    out->value = e->value ? gr_str_c(e->value) : GR_STR_NULL;
    out->read_only = e->read_only;
    /* v0 has is_default where later versions have the source */
    out->is_default = e->source == GR_CFGSRC_DEFAULT;
    out->config_source = (int8_t)e->source;
    out->is_sensitive = e->sensitive;
    out->config_type = (int8_t)e->type;
    out->documentation =
        rq->include_documentation && e->doc ? gr_str_c(e->doc) : GR_STR_NULL;
    if (rq->include_synonyms && e->nsyn > 0) {
        out->synonyms =
            gr_arena_zalloc(req->a, (size_t)e->nsyn * sizeof(*out->synonyms));
        if (out->synonyms == NULL)
            return -1;
        for (int i = 0; i < e->nsyn; i++) {
            out->synonyms[i].name = gr_str_c(e->syn[i].name);
            out->synonyms[i].value =
                e->syn[i].value ? gr_str_c(e->syn[i].value) : GR_STR_NULL;
            out->synonyms[i].source = (int8_t)e->syn[i].source;
        }
        out->synonyms_cnt = e->nsyn;
    }
    return 0;
}

/* Room for n more results in res (grown in the arena). */
static result_t *
more(gr_req_t *req, gr_describe_configs_response_describe_configs_result_t *res,
     int32_t *cap)
{
    if (res->configs_cnt == *cap) {
        int32_t ncap = *cap ? *cap * 2 : 64;
        result_t *p = gr_arena_alloc(req->a, (size_t)ncap * sizeof(*p));
        if (p == NULL)
            return NULL;
        if (res->configs_cnt)
            memcpy(p, res->configs, (size_t)res->configs_cnt * sizeof(*p));
        res->configs = p;
        *cap = ncap;
    }
    return &res->configs[res->configs_cnt++];
}

static int
describe_topic(gr_req_t *req,
               const gr_describe_configs_request_describe_configs_resource_t *r,
               const gr_nameset_t *keys,
               gr_describe_configs_response_describe_configs_result_t *res)
{
    gr_broker_t *b = req->broker;
    const char *why = gr_topic_name_error(&r->resource_name, req->a);
    const gr_topic_config_def_t *d;
    gr_topic_t *t;
    int32_t cap = 0;

    if (why != NULL) {
        res->error_code = GR_KERR_INVALID_TOPIC_EXCEPTION;
        res->error_message = gr_str_c(why);
        return 0;
    }
    t = gr_cluster_topic(b->cluster, &r->resource_name);
    if (t == NULL) {
        res->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return 0;
    }
    for (int i = 0; (d = gr_topic_config_def_at(i)) != NULL; i++) {
        gr_config_entry_t e;
        result_t *out;
        if (!wanted(r, keys, d->name) ||
            (gr_topic_config_is_legacy(d) &&
             gr_topic_config_get(t, d->name) == NULL))
            continue;
        if (gr_configs_topic_described(b, t, d, req->a, &e) != 0 ||
            (out = more(req, res, &cap)) == NULL || fill(req, &e, out) != 0)
            return -1;
    }
    return 0;
}

static int
describe_broker(
    gr_req_t *req,
    const gr_describe_configs_request_describe_configs_resource_t *r,
    const gr_nameset_t *keys,
    gr_describe_configs_response_describe_configs_result_t *res)
{
    gr_broker_t *b = req->broker;
    const char *msg = NULL, *key, *value;
    gr_config_entry_t e0;
    bool per_broker;
    int32_t cap = 0;
    gr_kerr_t err;

    err = gr_configs_broker_resource(b, &r->resource_name,
                                     GR_CFGRES_DESCRIBE_BROKER, &per_broker,
                                     req->a, &msg);
    if (err != GR_KERR_NONE) {
        res->error_code = err;
        res->error_message = gr_str_c(msg);
        return 0;
    }
    for (int id = 0; id < GR_CONF__COUNT; id++) {
        gr_config_entry_t e;
        result_t *out;
        int rc;
        if (!wanted(r, keys, gr_conf_name((gr_conf_id_t)id)))
            continue;
        rc = gr_configs_broker_entry(b, (gr_conf_id_t)id, per_broker, req->a,
                                     &e);
        if (rc < 0)
            return -1;
        if (rc == 0)
            continue;
        if ((out = more(req, res, &cap)) == NULL || fill(req, &e, out) != 0)
            return -1;
    }
    /* Kafka lists every key the broker was started with */
    for (int i = 0; per_broker && gr_conf_extra_at(b->conf, i, &key, &value);
         i++) {
        gr_config_entry_t e;
        result_t *out;
        if (!wanted(r, keys, key) || gr_conf_listener_key(key, NULL, 0) >= 0)
            continue; /* a listener's connection quota: below */
        gr_configs_extra_entry(key, value, &e);
        if ((out = more(req, res, &cap)) == NULL || fill(req, &e, out) != 0)
            return -1;
    }
    for (int i = 0; gr_configs_listener_entry_at(b, per_broker, i, &e0); i++) {
        result_t *out;
        if (!wanted(r, keys, e0.name))
            continue;
        if ((out = more(req, res, &cap)) == NULL || fill(req, &e0, out) != 0)
            return -1;
    }
    /* and the keys nobody knows that AlterConfigs set (Kafka keeps them) */
    for (int i = 0; gr_configs_unknown_entry_at(b, per_broker, i, &e0); i++) {
        result_t *out;
        if (!wanted(r, keys, e0.name))
            continue;
        if ((out = more(req, res, &cap)) == NULL || fill(req, &e0, out) != 0)
            return -1;
    }
    return 0;
}

static int
describe_logger(
    gr_req_t *req,
    const gr_describe_configs_request_describe_configs_resource_t *r,
    const gr_nameset_t *keys,
    gr_describe_configs_response_describe_configs_result_t *res)
{
    const char *msg = NULL;
    gr_config_entry_t *e;
    bool per_broker;
    int32_t cap = 0;
    int n;
    gr_kerr_t err = gr_configs_broker_resource(req->broker, &r->resource_name,
                                               GR_CFGRES_DESCRIBE_LOGGER,
                                               &per_broker, req->a, &msg);
    if (err != GR_KERR_NONE) {
        res->error_code = err;
        res->error_message = gr_str_c(msg);
        return 0;
    }
    n = gr_configs_logger_entries(req->a, &e);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        result_t *out;
        if (!wanted(r, keys, e[i].name))
            continue;
        if ((out = more(req, res, &cap)) == NULL || fill(req, &e[i], out) != 0)
            return -1;
    }
    return 0;
}

/* CLIENT_METRICS: any non-empty name has the three configs (defaults
 * for a subscription never made), as Kafka's ConfigHelper answers. */
static int
describe_client_metrics(
    gr_req_t *req,
    const gr_describe_configs_request_describe_configs_resource_t *r,
    const gr_nameset_t *keys,
    gr_describe_configs_response_describe_configs_result_t *res)
{
    gr_config_entry_t *e;
    int32_t cap = 0;
    char *name;
    int n;

    if (r->resource_name.len <= 0) {
        res->error_code = GR_KERR_INVALID_REQUEST;
        res->error_message =
            gr_str_c("Client metrics subscription name must not be empty");
        return 0;
    }
    name = gr_arena_strndup(req->a, r->resource_name.ptr,
                            (size_t)r->resource_name.len);
    if (name == NULL ||
        (n = gr_configs_client_metrics_entries(req->broker, name, req->a,
                                               &e)) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        result_t *out;
        if (!wanted(r, keys, e[i].name))
            continue;
        if ((out = more(req, res, &cap)) == NULL || fill(req, &e[i], out) != 0)
            return -1;
    }
    return 0;
}

/* Whether a and b ask for the same configs of the same resource (their
 * names are equal). */
static bool
same_resource(const gr_describe_configs_request_describe_configs_resource_t *a,
              const gr_describe_configs_request_describe_configs_resource_t *b)
{
    if (a->resource_type != b->resource_type ||
        a->configuration_keys_cnt != b->configuration_keys_cnt)
        return false;
    for (int32_t i = 0; i < a->configuration_keys_cnt; i++)
        if (!gr_str_eq(&a->configuration_keys[i], &b->configuration_keys[i]))
            return false;
    return true;
}

static bool
known_type(int8_t type)
{
    return type == GR_RESOURCE_TOPIC || type == GR_RESOURCE_BROKER ||
           type == GR_RESOURCE_BROKER_LOGGER ||
           type == GR_RESOURCE_CLIENT_METRICS || type == GR_RESOURCE_GROUP;
}

/* One resource the client may describe, by its type. 0 or -1 (out of
 * memory). */
static int
describe_one(gr_req_t *req,
             const gr_describe_configs_request_describe_configs_resource_t *r,
             gr_nameset_t *keys,
             gr_describe_configs_response_describe_configs_result_t *res)
{
    switch (r->resource_type) {
    case GR_RESOURCE_TOPIC:
        return describe_topic(req, r, keys, res);
    case GR_RESOURCE_BROKER:
        return describe_broker(req, r, keys, res);
    case GR_RESOURCE_BROKER_LOGGER:
        return describe_logger(req, r, keys, res);
    case GR_RESOURCE_CLIENT_METRICS:
        return describe_client_metrics(req, r, keys, res);
    default:
        res->error_code = GR_KERR_INVALID_REQUEST;
        res->error_message =
            gr_str_c(gr_arena_printf(req->a,
                                     "Unsupported resource type: "
                                     "%d",
                                     r->resource_type));
        break;
    }
    return 0;
}

int
gr_api_describe_configs(gr_req_t *req)
{
    const gr_describe_configs_request_t *rq = req->body;
    gr_describe_configs_response_t *rs = req->resp;
    int32_t n = rq->resources_cnt > 0 ? rq->resources_cnt : 0, *firsts;
    uint64_t bytes = 0, max = gr_api_answer_max(req);

    rs->results = gr_arena_zalloc(req->a, (size_t)n * sizeof(*rs->results));
    if (n && rs->results == NULL)
        return gr_req_close(req, "out of memory");
    rs->results_cnt = n;
    /* Kafka's authorization of the resources throws on a type it does not
     * know, and the request's error answer gives every resource
     * INVALID_REQUEST with the error's own message */
    for (int32_t i = 0; i < n; i++)
        if (!known_type(rq->resources[i].resource_type)) {
            GR_LOG_INFO("DescribeConfigs from %s: unexpected resource type "
                        "%d for resource %.*s",
                        gr_req_peer(req), rq->resources[i].resource_type,
                        (int)(rq->resources[i].resource_name.len > 0
                                  ? rq->resources[i].resource_name.len
                                  : 0),
                        rq->resources[i].resource_name.ptr);
            for (int32_t k = 0; k < n; k++) {
                gr_describe_configs_response_describe_configs_result_init(
                    &rs->results[k]);
                rs->results[k].resource_type = rq->resources[k].resource_type;
                rs->results[k].resource_name = rq->resources[k].resource_name;
                rs->results[k].error_code = GR_KERR_INVALID_REQUEST;
                rs->results[k].error_message =
                    gr_str_c(gr_kerr_msg(GR_KERR_INVALID_REQUEST));
            }
            return gr_req_reply(req);
        }
    firsts =
        gr_topics_first_of(req->a, n ? &rq->resources[0].resource_name : NULL,
                           sizeof(rq->resources[0]), n);
    if (firsts == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i++) {
        const gr_describe_configs_request_describe_configs_resource_t *r =
            &rq->resources[i];
        gr_describe_configs_response_describe_configs_result_t *res =
            &rs->results[i];
        gr_nameset_t *keys;
        int rc = 0;

        if (firsts[i] != i && same_resource(r, &rq->resources[firsts[i]])) {
            *res = rs->results[firsts[i]]; /* listed before: the same */
            bytes += gr_describe_configs_response_describe_configs_result_size(
                res, req->version);
            if (bytes > max)
                return gr_api_answer_refuse(req, bytes);
            continue;
        }
        /* many keys are looked up in a set, not each compared with
         * every config's name */
        keys = NULL;
        if (r->configuration_keys_cnt > 8 &&
            (keys = gr_nameset_new(req->a, r->configuration_keys,
                                   sizeof(r->configuration_keys[0]),
                                   r->configuration_keys_cnt)) == NULL)
            return gr_req_close(req, "out of memory");
        gr_describe_configs_response_describe_configs_result_init(res);
        res->resource_type = r->resource_type;
        res->resource_name = r->resource_name;
        /* Kafka's DescribeConfigsResult has "" where no message is set:
         * on success and for an unknown topic */
        res->error_message = GR_STR("");
        /* DESCRIBE_CONFIGS on the resource (ConfigHelper): the error with
         * its default message, no configs */
        res->error_code = gr_authz_config(req, r->resource_type,
                                          &r->resource_name,
                                          GR_OP_DESCRIBE_CONFIGS);
        if (res->error_code != GR_KERR_NONE) {
            res->error_message = gr_str_c(gr_kerr_msg(res->error_code));
            res->configs_cnt = 0;
        } else {
            rc = describe_one(req, r, keys, res);
        }
        if (rc != 0)
            return gr_req_close(req, "out of memory");
        bytes += gr_describe_configs_response_describe_configs_result_size(
            res, req->version);
        if (bytes > max)
            return gr_api_answer_refuse(req, bytes);
    }
    return gr_req_reply(req);
}
