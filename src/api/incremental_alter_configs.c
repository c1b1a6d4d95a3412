/*
 * IncrementalAlterConfigs (api key 44): changes single configs of a topic,
 * of the dynamic broker configs (this broker or resource "" for every
 * broker), of the broker's logger or of a client metrics subscription
 * (KIP-714; made by its first change, removed with its last config): SET,
 * DELETE (back to the default), APPEND and SUBTRACT (list configs only).
 * Checks, persistence and effect as AlterConfigs (api/configs.c,
 * api/client_metrics_configs.c): at its turn among the stored changes
 * (api/change.h), answered once what it changed is stored.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/change.h"
#include "api/configs.h"

typedef gr_incremental_alter_configs_request_alter_configs_resource_t
    resource_t;

/* The resource's changes in the arena; NULL on ENOMEM. *unknown_op is
 * set when an operation is none of the four. */
static gr_config_change_t *
changes(gr_req_t *req, const resource_t *r, int *n, bool *unknown_op)
{
    gr_config_change_t *ch;
    *n = r->configs_cnt > 0 ? r->configs_cnt : 0;
    *unknown_op = false;
    ch = gr_arena_zalloc(req->a, (size_t)(*n ? *n : 1) * sizeof(*ch));
    if (ch == NULL)
        return NULL;
    for (int i = 0; i < *n; i++) {
        const gr_incremental_alter_configs_request_alterable_config_t *c =
            &r->configs[i];
        if (c->config_operation < GR_CONFIG_SET ||
            c->config_operation > GR_CONFIG_SUBTRACT)
            *unknown_op = true;
        ch[i].op = (gr_config_op_t)c->config_operation;
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

/* A resource Kafka's broker forwards to its controller unchecked (a
 * BROKER one goes there too, once the broker has checked it). */
static bool
forwarded(int8_t type)
{
    return type == GR_RESOURCE_TOPIC || type == GR_RESOURCE_CLIENT_METRICS ||
           type == GR_RESOURCE_GROUP;
}

static int
alter_apply(gr_req_t *req, void **state)
{
    const gr_incremental_alter_configs_request_t *rq = req->body;
    gr_incremental_alter_configs_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    int32_t n = rq->resources_cnt > 0 ? rq->resources_cnt : 0;
    gr_config_change_t **chs;
    int *nchs;
    gr_kerr_t *pre;
    const char **premsg;
    bool *bad_op, *repeated, controller_fails = false;
    int8_t *types;
    gr_str_t *names;
    gr_configs_pending_t *p = gr_configs_pending_new(n);

    rs->responses = gr_arena_zalloc(req->a, (size_t)n * sizeof(*rs->responses));
    chs = gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(*chs));
    nchs = gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(*nchs));
    pre = gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(*pre));
    premsg = gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(*premsg));
    bad_op = gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(*bad_op));
    types = gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(*types));
    names = gr_arena_zalloc(req->a, (size_t)(n ? n : 1) * sizeof(*names));
    if ((n && rs->responses == NULL) || chs == NULL || nchs == NULL ||
        pre == NULL || premsg == NULL || bad_op == NULL || types == NULL ||
        names == NULL || p == NULL)
        return gr_configs_pending_close(req, p);
    for (int32_t i = 0; i < n; i++) {
        types[i] = rq->resources[i].resource_type;
        names[i] = rq->resources[i].resource_name;
    }
    if ((repeated = gr_configs_repeated_resources(req->a, types, names, n)) ==
        NULL)
        return gr_configs_pending_close(req, p);
    rs->responses_cnt = n;
    /* Kafka's broker refuses a resource given twice, then checks every
     * resource (duplicate keys, null values); an unknown operation in a
     * resource it then forwards fails
     * its controller's whole batch (AlterConfigOp.OpType.forId is null
     * there): UNKNOWN_SERVER_ERROR for each resource forwarded, a BROKER
     * one included once the broker's checks pass */
    for (int32_t i = 0; i < n; i++) {
        const resource_t *r = &rq->resources[i];
        chs[i] = changes(req, r, &nchs[i], &bad_op[i]);
        if (chs[i] == NULL)
            return gr_configs_pending_close(req, p);
        if (repeated[i]) {
            pre[i] = GR_KERR_INVALID_REQUEST;
            premsg[i] = GR_CONFIGS_REPEATED_MSG;
            continue;
        }
        pre[i] = gr_configs_preprocess(chs[i], nchs[i], false, req->a,
                                       &premsg[i]);
        if (pre[i] == GR_KERR_NONE && forwarded(r->resource_type) &&
            bad_op[i])
            controller_fails = true;
    }
    if (controller_fails)
        GR_LOG_INFO("IncrementalAlterConfigs from %s: an unknown config "
                    "operation; its resources but the logger's fail as "
                    "Kafka's controller fails them",
                    gr_req_peer(req));
    for (int32_t i = 0; i < n; i++) {
        const resource_t *r = &rq->resources[i];
        gr_incremental_alter_configs_response_alter_configs_resource_response_t
            *res = &rs->responses[i];
        const char *msg = premsg[i];
        gr_kerr_t err = pre[i];
        gr_config_change_t *ch = chs[i];
        gr_topic_t *t;
        bool per_broker;
        int nch = nchs[i];

        gr_incremental_alter_configs_response_alter_configs_resource_response_init(
            res);
        res->resource_type = r->resource_type;
        res->resource_name = r->resource_name;
        if (err != GR_KERR_NONE) {
            /* answered below */
        } else if ((err = gr_authz_config(req, r->resource_type,
                                          &r->resource_name,
                                          GR_OP_ALTER_CONFIGS)) !=
                   GR_KERR_NONE) {
            msg = gr_kerr_msg(err); /* ALTER_CONFIGS on the resource */
        } else if (controller_fails && forwarded(r->resource_type)) {
            err = GR_KERR_UNKNOWN_SERVER_ERROR;
            msg = NULL;
        } else if (r->resource_type == GR_RESOURCE_TOPIC) {
            err = gr_configs_alter_topic_named(b, p, &r->resource_name, ch, nch,
                                               false, rq->validate_only,
                                               req->a, &msg, &t);
        } else if (r->resource_type == GR_RESOURCE_BROKER) {
            err = gr_configs_broker_resource(b, &r->resource_name,
                                             GR_CFGRES_ALTER_BROKER,
                                             &per_broker, req->a, &msg);
            if (err == GR_KERR_NONE && bad_op[i]) {
                for (int k = 0; k < nch; k++)
                    if (ch[k].op < GR_CONFIG_SET ||
                        ch[k].op > GR_CONFIG_SUBTRACT) {
                        msg = gr_arena_printf(req->a,
                                              "Unknown operations type %d",
                                              (int)ch[k].op);
                        break;
                    }
                err = GR_KERR_INVALID_REQUEST;
            } else if (err == GR_KERR_NONE && controller_fails) {
                err = gr_configs_alter_broker(b, NULL, per_broker, ch, nch,
                                              false, true, req->a, &msg);
                if (err == GR_KERR_NONE) {
                    err = GR_KERR_UNKNOWN_SERVER_ERROR;
                    msg = NULL;
                }
            } else if (err == GR_KERR_NONE) {
                err = gr_configs_alter_broker(b, p, per_broker, ch, nch,
                                              false, rq->validate_only, req->a,
                                              &msg);
            }
        } else if (r->resource_type == GR_RESOURCE_CLIENT_METRICS) {
            char *name = gr_arena_strndup(
                req->a, r->resource_name.ptr ? r->resource_name.ptr : "",
                r->resource_name.len > 0 ? (size_t)r->resource_name.len : 0);
            if (name == NULL)
                return gr_configs_pending_close(req, p);
            err = gr_configs_alter_client_metrics(b, p, name, ch, nch, false,
                                                  rq->validate_only, req->a,
                                                  &msg);
        } else if (r->resource_type == GR_RESOURCE_BROKER_LOGGER) {
            err = gr_configs_broker_resource(b, &r->resource_name,
                                             GR_CFGRES_ALTER_LOGGER,
                                             &per_broker, req->a, &msg);
            if (err == GR_KERR_NONE)
                err = gr_configs_alter_logger(ch, nch, rq->validate_only,
                                              req->a, &msg);
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
    .what = "configs (IncrementalAlterConfigs)",
    .apply = alter_apply,
    .store = gr_configs_store,
    .done = gr_configs_done,
};

int
gr_api_incremental_alter_configs(gr_req_t *req)
{
    return gr_change_submit(req, &alter_ops);
}
