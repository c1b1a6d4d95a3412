/*
 * CLIENT_METRICS config resources for the config APIs (see configs.h):
 * described as Kafka's ConfigHelper.createClientMetricsConfigEntry does
 * (source CLIENT_METRICS_CONFIG when set, else DEFAULT_CONFIG; one
 * synonym when set; never read-only or sensitive), changed as Kafka's
 * broker checks a request (ConfigAdminManager.preprocess: duplicate keys,
 * null values) and its controller applies it
 * (ConfigurationControlManager: APPEND and SUBTRACT only on keys its
 * schema knows as lists, none of these; values of at most 32767 bytes;
 * then ControllerConfigurationValidator over the configs that result). The list is the cluster's; src/telemetry/ gets
 * every change.
 */
#include "api/api_int.h"
#include "api/configs.h"
#include "telemetry/client_metrics.h"
#include "telemetry/telemetry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VALUE_MAX 32767 /* ConfigurationControlManager's Short.MAX_VALUE */

int
gr_configs_client_metrics_entries(gr_broker_t *b, const char *name,
                                  gr_arena_t *a, gr_config_entry_t **out)
{
    gr_config_resource_t *r =
        gr_config_resource_find(b->cluster->client_metrics, name);
    gr_config_entry_t *e;
    const char *key, *doc;
    int type, n = 0;

    while (gr_cm_key_at(n, NULL, NULL) != NULL)
        n++;
    if ((e = gr_arena_zalloc(a, (size_t)n * sizeof(*e))) == NULL)
        return -1;
    for (int i = 0; (key = gr_cm_key_at(i, &type, &doc)) != NULL; i++) {
        const char *set = r ? gr_config_list_get(r->configs, key) : NULL;
        e[i].name = key;
        e[i].value = gr_cm_describe_value(key, set, a);
        if (e[i].value == NULL)
            return -1;
        e[i].type = (gr_tcfg_type_t)type;
        e[i].doc = doc;
        e[i].source = set ? GR_CFGSRC_CLIENT_METRICS : GR_CFGSRC_DEFAULT;
        if (set) {
            e[i].syn[0].name = key;
            e[i].syn[0].value = e[i].value;
            e[i].syn[0].source = GR_CFGSRC_CLIENT_METRICS;
            e[i].nsyn = 1;
        }
    }
    *out = e;
    return n;
}

/* Whether two lists hold the same keys and values. */
static bool
same_configs(const gr_topic_config_t *x, const gr_topic_config_t *y)
{
    int nx = 0, ny = 0;
    for (const gr_topic_config_t *c = x; c; c = c->next, nx++) {
        const char *v = gr_config_list_get(y, c->key);
        if (v == NULL || strcmp(v, c->value) != 0)
            return false;
    }
    for (const gr_topic_config_t *c = y; c; c = c->next)
        ny++;
    return nx == ny;
}

/* The subscription's configs (checked: Kafka's three keys at most) to
 * client telemetry (none: it goes). */
static int
subscribe(gr_broker_t *b, const char *name, const gr_topic_config_t *list)
{
    const char *keys[3], *values[3];
    int n = 0;
    for (const gr_topic_config_t *c = list; c && n < 3; c = c->next) {
        keys[n] = c->key;
        values[n++] = c->value;
    }
    if (b->telemetry == NULL)
        return 0;
    return gr_telemetry_subscribe(b->telemetry, name, keys, values, n);
}

/* Preprocessing as Kafka's broker does it: duplicate keys, then null
 * values where a value is needed. */
static gr_kerr_t
preprocess(const gr_config_change_t *ch, int n, bool replace, gr_arena_t *a,
           const char **msg)
{
    gr_buf_t nulls = GR_BUF_INIT;
    gr_kerr_t err = GR_KERR_NONE;

    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strcmp(ch[i].key, ch[j].key) == 0) {
                *msg = "Error due to duplicate config keys";
                return GR_KERR_INVALID_REQUEST;
            }
    for (int i = 0; i < n; i++)
        if (ch[i].value == NULL && (replace || ch[i].op != GR_CONFIG_DELETE)) {
            if (nulls.len > 0)
                gr_buf_puts(&nulls, ", ");
            gr_buf_puts(&nulls, ch[i].key);
        }
    if (nulls.len > 0) {
        *msg = gr_arena_printf(a, "Null value not supported for : %s",
                               gr_buf_cstr(&nulls));
        err = GR_KERR_INVALID_REQUEST;
    }
    gr_buf_fini(&nulls);
    return err;
}

/* A copy of list in *out: 0, or -1 when out of memory (*out NULL). */
static int
resources_copy(const gr_config_resource_t *list, gr_config_resource_t **out)
{
    *out = NULL;
    for (const gr_config_resource_t *r = list; r; r = r->next) {
        bool oom = false;
        gr_topic_config_t *cf = gr_config_list_copy(r->configs, &oom);
        if (oom || gr_config_resource_set(out, r->name, cf) != 0) {
            gr_config_list_free(&cf);
            gr_config_resources_free(out);
            return -1;
        }
    }
    return 0;
}

gr_kerr_t
gr_configs_alter_client_metrics(gr_broker_t *b, gr_configs_pending_t *p,
                                const char *name, const gr_config_change_t *ch,
                                int n, bool replace, bool validate_only,
                                gr_arena_t *a, const char **msg)
{
    gr_cluster_t *c = b->cluster;
    /* as an earlier resource of the request left them */
    gr_config_resource_t *r = gr_config_resource_find(
        p != NULL && p->has_cm ? p->cm : c->client_metrics, name);
    gr_topic_config_t *list = NULL;
    const char **keys, **values;
    gr_kerr_t err;
    bool oom = false, had = r != NULL;
    int nk = 0;

    if ((err = preprocess(ch, n, replace, a, msg)) != GR_KERR_NONE)
        return err;
    if (!replace && r != NULL && (list = gr_config_list_copy(r->configs, &oom),
                                  oom))
        goto oom;
    for (int i = 0; i < n; i++) {
        const char *v = ch[i].value;
        if (!replace && ch[i].op == GR_CONFIG_DELETE) {
            v = NULL;
        } else if (!replace && (ch[i].op == GR_CONFIG_APPEND ||
                                ch[i].op == GR_CONFIG_SUBTRACT)) {
            /* Kafka's controller splits only the keys its config schema
             * knows as lists, which has no CLIENT_METRICS keys: metrics
             * and match are refused too (as Kafka 4.4 answers) */
            *msg = gr_arena_printf(a,
                                   "Can't %s to key %s because its type is "
                                   "not LIST.",
                                   ch[i].op == GR_CONFIG_APPEND ? "APPEND"
                                                                : "SUBTRACT",
                                   ch[i].key);
            err = GR_KERR_INVALID_CONFIG;
            goto out;
        }
        if (v != NULL && strlen(v) > VALUE_MAX) {
            *msg = "The configuration value cannot be added because it "
                   "exceeds the maximum value size of 32767 bytes.";
            err = GR_KERR_INVALID_CONFIG;
            goto out;
        }
        if (gr_config_list_set(&list, ch[i].key, v) != 0)
            goto oom;
    }
    for (const gr_topic_config_t *cf = list; cf; cf = cf->next)
        nk++;
    keys = gr_arena_alloc(a, (size_t)(nk + 1) * sizeof(*keys));
    values = gr_arena_alloc(a, (size_t)(nk + 1) * sizeof(*values));
    if (keys == NULL || values == NULL)
        goto oom;
    nk = 0;
    for (const gr_topic_config_t *cf = list; cf; cf = cf->next) {
        keys[nk] = cf->key;
        values[nk++] = cf->value;
    }
    err = gr_cm_validate(name, keys, values, nk, a, msg);
    if (err != GR_KERR_NONE || validate_only)
        goto out;
    if (same_configs(r ? r->configs : NULL, list))
        goto out; /* no record: nothing changes, no version */
    /* the request's copy of the list takes list (or loses the
     * resource): the cluster's is replaced once it is stored */
    GR_ASSERT(p != NULL && p->n < p->cap);
    if (!p->has_cm) {
        if (resources_copy(c->client_metrics, &p->cm) != 0)
            goto oom;
        p->has_cm = true;
    }
    if ((p->items[p->n].name = strdup(name)) == NULL ||
        gr_config_resource_set(&p->cm, name, list) != 0) {
        free(p->items[p->n].name);
        p->items[p->n].name = NULL;
        goto oom;
    }
    list = NULL;
    p->items[p->n].kind = GR_CONFIGS_CLIENT_METRICS;
    p->items[p->n++].had = had;
out:
    gr_config_list_free(&list);
    return err;
oom:
    gr_config_list_free(&list);
    *msg = "Out of memory";
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

void
gr_configs_client_metrics_done(gr_broker_t *b, gr_configs_pending_t *p,
                               int err)
{
    gr_cluster_t *c = b->cluster;
    if (!p->has_cm || err != 0)
        return; /* dropped with p */
    gr_config_resources_free(&c->client_metrics);
    c->client_metrics = p->cm;
    p->cm = NULL;
    for (int i = 0; i < p->n; i++) {
        const gr_configs_item_t *it = &p->items[i];
        gr_config_resource_t *r;
        if (it->kind != GR_CONFIGS_CLIENT_METRICS)
            continue;
        r = gr_config_resource_find(c->client_metrics, it->name);
        if (!b->stopping && subscribe(b, it->name, r ? r->configs : NULL) != 0)
            GR_LOG_ERROR("client metrics subscription %s: out of memory; "
                         "clients keep the old one",
                         it->name);
        GR_LOG_INFO("client metrics subscription %s %s", it->name,
                    r == NULL ? "removed" : it->had ? "changed" : "created");
    }
}

void
gr_configs_client_metrics_load(gr_broker_t *b)
{
    gr_arena_t *a = gr_arena_new(4096);
    if (a == NULL)
        return;
    for (gr_config_resource_t *r = b->cluster->client_metrics; r;
         r = r->next) {
        const char **keys, **values, *msg = "";
        int n = 0;
        for (const gr_topic_config_t *cf = r->configs; cf; cf = cf->next)
            n++;
        keys = gr_arena_alloc(a, (size_t)n * sizeof(*keys));
        values = gr_arena_alloc(a, (size_t)n * sizeof(*values));
        if (keys == NULL || values == NULL) {
            GR_LOG_ERROR("client metrics subscription %s: out of memory",
                         r->name);
            continue;
        }
        n = 0;
        for (const gr_topic_config_t *cf = r->configs; cf; cf = cf->next) {
            keys[n] = cf->key;
            values[n++] = cf->value;
        }
        if (gr_cm_validate(r->name, keys, values, n, a, &msg) !=
            GR_KERR_NONE) {
            GR_LOG_WARN("client metrics subscription %s is not valid (%s); "
                        "left out",
                        r->name, msg);
            continue;
        }
        if (subscribe(b, r->name, r->configs) != 0)
            GR_LOG_ERROR("client metrics subscription %s: out of memory",
                         r->name);
        gr_arena_reset(a);
    }
    gr_arena_destroy(a);
}
