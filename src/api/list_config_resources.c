/*
 * ListConfigResources (api key 74, KIP-1142; v0 was KIP-714's
 * ListClientMetricsResources): the config resources there are, as Kafka's
 * KafkaApis.handleListConfigResources lists them. v0 has no ResourceTypes
 * and lists the client metrics subscriptions; v1 lists the types asked
 * for, or all it supports when none is (topics, brokers, broker loggers,
 * client metrics, groups). A type outside those is UNSUPPORTED_VERSION
 * with nothing listed. The answer goes by type in Kafka's order (groups,
 * client metrics, broker loggers, brokers, topics), whatever the request's
 * order, each type once: groups with dynamic configs (Gregor keeps none),
 * the subscriptions (in the order of Kafka's map of them), this broker's
 * id as a broker logger and a broker, then every topic. Without an
 * authorizer the cluster's DESCRIBE_CONFIGS is allowed.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/configs.h"
#include "telemetry/client_metrics.h"

#include <stdio.h>
#include <stdlib.h>

typedef gr_list_config_resources_response_config_resource_t res_t;

static const int8_t supported_v1[] = {
    GR_RESOURCE_TOPIC, GR_RESOURCE_BROKER, GR_RESOURCE_BROKER_LOGGER,
    GR_RESOURCE_CLIENT_METRICS, GR_RESOURCE_GROUP
};

static bool
wanted(const gr_list_config_resources_request_t *rq, int16_t ver,
       int8_t type)
{
    /* ResourceTypes is a v1 field; empty: every supported type */
    if (ver == 0)
        return type == GR_RESOURCE_CLIENT_METRICS;
    if (rq->resource_types_cnt <= 0)
        return true;
    for (int32_t i = 0; i < rq->resource_types_cnt; i++)
        if (rq->resource_types[i] == type)
            return true;
    return false;
}

static void
add(res_t *v, int32_t *n, const char *name, int8_t type)
{
    gr_list_config_resources_response_config_resource_init(&v[*n]);
    v[*n].resource_name = gr_str_c(name);
    v[*n].resource_type = type;
    (*n)++;
}

int
gr_api_list_config_resources(gr_req_t *req)
{
    const gr_list_config_resources_request_t *rq = req->body;
    gr_list_config_resources_response_t *rs = req->resp;
    gr_cluster_t *c = req->broker->cluster;
    int32_t nsubs = 0, n = 0, cap;
    const char **names;
    int *order;
    char *id;

    /* DESCRIBE_CONFIGS on the cluster */
    if (!gr_authz_cluster(req, GR_OP_DESCRIBE_CONFIGS)) {
        rs->error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        return gr_req_reply(req);
    }

    if (req->version >= 1)
        for (int32_t i = 0; i < rq->resource_types_cnt; i++) {
            bool ok = false;
            for (size_t k = 0; k < sizeof supported_v1; k++)
                ok |= rq->resource_types[i] == supported_v1[k];
            if (!ok) {
                GR_LOG_INFO("ListConfigResources from %s: resource type %d "
                            "is not supported",
                            gr_req_peer(req), rq->resource_types[i]);
                rs->error_code = GR_KERR_UNSUPPORTED_VERSION;
                rs->config_resources_cnt = 0;
                return gr_req_reply(req);
            }
        }
    for (gr_config_resource_t *r = c->client_metrics; r; r = r->next)
        nsubs++;
    cap = nsubs + c->ntopics + 2;
    rs->config_resources = gr_arena_zalloc(req->a, (size_t)cap * sizeof(res_t));
    names = gr_arena_alloc(req->a, (size_t)(nsubs + 1) * sizeof(*names));
    order = gr_arena_alloc(req->a, (size_t)(nsubs + 1) * sizeof(*order));
    id = gr_arena_printf(req->a, "%d", req->broker->node_id);
    if (rs->config_resources == NULL || names == NULL || order == NULL ||
        id == NULL)
        return gr_req_close(req, "out of memory");
    /* GROUP: the groups with dynamic configs; Gregor has no group configs */
    if (wanted(rq, req->version, GR_RESOURCE_CLIENT_METRICS)) {
        int32_t k = 0;
        for (gr_config_resource_t *r = c->client_metrics; r; r = r->next)
            names[k++] = r->name;
        gr_java_hash_order(names, nsubs, GR_JAVA_CHM, order);
        for (int32_t i = 0; i < nsubs; i++)
            add(rs->config_resources, &n, names[order[i]],
                GR_RESOURCE_CLIENT_METRICS);
    }
    if (wanted(rq, req->version, GR_RESOURCE_BROKER_LOGGER))
        add(rs->config_resources, &n, id, GR_RESOURCE_BROKER_LOGGER);
    if (wanted(rq, req->version, GR_RESOURCE_BROKER))
        add(rs->config_resources, &n, id, GR_RESOURCE_BROKER);
    if (wanted(rq, req->version, GR_RESOURCE_TOPIC))
        for (gr_topic_t *t = c->topics; t; t = t->lnext)
            add(rs->config_resources, &n, t->name, GR_RESOURCE_TOPIC);
    rs->config_resources_cnt = n;
    return gr_req_reply(req);
}
