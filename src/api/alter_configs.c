/*
 * AlterConfigs (api key 33): replaces the whole set of a topic's config
 * overrides, of the dynamic broker configs of this broker or of every
 * broker (resource name ""), or of a client metrics subscription (KIP-714;
 * none given removes it), with the configs given. Everything is checked
 * first, in the order and words of Kafka's broker and controller
 * (api/configs.c); nothing changes on an error; validate_only checks and
 * stops. The request waits its turn among the stored changes
 * (api/change.h) and is answered once its changes are persisted through
 * the cluster ops; broker and client-metrics changes take effect then.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/change.h"
#include "api/configs.h"

/* The resource's configs as changes, in the arena; NULL on ENOMEM. */
static gr_config_change_t *
changes(gr_req_t *req,
        const gr_alter_configs_request_alter_configs_resource_t *r, int *n)
{
    gr_config_change_t *ch;
    *n = r->configs_cnt > 0 ? r->configs_cnt : 0;
    ch = gr_arena_zalloc(req->a, (size_t)(*n ? *n : 1) * sizeof(*ch));
    if (ch == NULL)
        return NULL;
    for (int i = 0; i < *n; i++) {
        const gr_alter_configs_request_alterable_config_t *c = &r->configs[i];
        ch[i].op = GR_CONFIG_SET;
        ch[i].key = gr_arena_strndup(req->a, c->name.ptr ? c->name.ptr : "",
                                     c->name.len > 0 ? (size_t)c->name.len : 0);
        ch[i].value =
            c->value.len < 0
                ? NULL
                : gr_arena_strndup(req->a, c->value.ptr ? c->value.ptr : "",
                                   (size_t)c->value.len);
        if (ch[i].key == NULL || (c->value.len >= 0 && ch[i].value == NULL))
            return NULL;
    }
    return ch;
}

static int
alter_apply(gr_req_t *req, void **state)
{
    const gr_alter_configs_request_t *rq = req->body;
    gr_alter_configs_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    int32_t n = rq->resources_cnt > 0 ? rq->resources_cnt : 0;
    int8_t *types =
        gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(*types));
    gr_str_t *names =
        gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(*names));
    bool *repeated;
    gr_configs_pending_t *p = gr_configs_pending_new(n);

    rs->responses = gr_arena_zalloc(req->a, (size_t)n * sizeof(*rs->responses));
    if ((n && rs->responses == NULL) || types == NULL || names == NULL ||
        p == NULL)
        return gr_configs_pending_close(req, p);
    for (int32_t i = 0; i < n; i++) {
        types[i] = rq->resources[i].resource_type;
        names[i] = rq->resources[i].resource_name;
    }
    /* Kafka's broker refuses a resource given twice first, each time */
    if ((repeated = gr_configs_repeated_resources(req->a, types, names, n)) ==
        NULL)
        return gr_configs_pending_close(req, p);
    rs->responses_cnt = n;
    for (int32_t i = 0; i < n; i++) {
        const gr_alter_configs_request_alter_configs_resource_t *r =
            &rq->resources[i];
        gr_alter_configs_response_alter_configs_resource_response_t *res =
            &rs->responses[i];
        const char *msg = NULL;
        gr_kerr_t err = GR_KERR_NONE;
        gr_config_change_t *ch;
        gr_topic_t *t;
        int nch;

        gr_alter_configs_response_alter_configs_resource_response_init(res);
        res->resource_type = r->resource_type;
        res->resource_name = r->resource_name;
        ch = changes(req, r, &nch);
        if (ch == NULL)
            return gr_configs_pending_close(req, p);
        /* Kafka's broker: duplicate keys and null values first, for every
         * resource (ConfigAdminManager.preprocess) */
        if (repeated[i]) {
            err = GR_KERR_INVALID_REQUEST;
            msg = GR_CONFIGS_REPEATED_MSG;
        } else {
            err = gr_configs_preprocess(ch, nch, true, req->a, &msg);
        }
        if (err != GR_KERR_NONE) {
            /* answered below */
        } else if ((err = gr_authz_config(req, r->resource_type,
                                          &r->resource_name,
                                          GR_OP_ALTER_CONFIGS)) !=
                   GR_KERR_NONE) {
            msg = gr_kerr_msg(err); /* ALTER_CONFIGS on the resource */
        } else if (r->resource_type == GR_RESOURCE_TOPIC) {
            err = gr_configs_alter_topic_named(b, p, &r->resource_name, ch, nch,
                                               true, rq->validate_only,
                                               req->a, &msg, &t);
        } else if (r->resource_type == GR_RESOURCE_BROKER) {
            bool per_broker;
            err = gr_configs_broker_resource(b, &r->resource_name,
                                             GR_CFGRES_ALTER_BROKER,
                                             &per_broker, req->a, &msg);
            if (err == GR_KERR_NONE)
                err = gr_configs_alter_broker(b, p, per_broker, ch, nch, true,
                                              rq->validate_only, req->a, &msg);
        } else if (r->resource_type == GR_RESOURCE_CLIENT_METRICS) {
            char *name = gr_arena_strndup(
                req->a, r->resource_name.ptr ? r->resource_name.ptr : "",
                r->resource_name.len > 0 ? (size_t)r->resource_name.len : 0);
            if (name == NULL)
                return gr_configs_pending_close(req, p);
            err = gr_configs_alter_client_metrics(b, p, name, ch, nch, true,
                                                  rq->validate_only, req->a,
                                                  &msg);
        } else if (r->resource_type == GR_RESOURCE_GROUP) {
            err = GR_KERR_INVALID_REQUEST;
            msg = "Unsupported resource type: 32";
        } else {
            err = GR_KERR_INVALID_REQUEST;
            msg = gr_arena_printf(req->a, "Unknown resource type %d",
                                  r->resource_type);
        }
        res->error_code = err;
        res->error_message =
            err != GR_KERR_NONE && msg ? gr_str_c(msg) : GR_STR_NULL;
        gr_configs_pending_answer(p, &res->error_code, &res->error_message);
    }
    return gr_configs_pending_end(p, state);
}

static const gr_change_ops_t alter_ops = {
    .what = "configs (AlterConfigs)",
    .apply = alter_apply,
    .store = gr_configs_store,
    .done = gr_configs_done,
};

int
gr_api_alter_configs(gr_req_t *req)
{
    return gr_change_submit(req, &alter_ops);
}
