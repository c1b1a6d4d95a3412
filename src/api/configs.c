/*
 * Config entries and config changes for the config APIs: see configs.h.
 * Sources, synonyms and read-only flags follow Kafka's ConfigHelper and
 * DynamicBrokerConfig; checks and messages follow Kafka's broker
 * (ConfigAdminManager, RuntimeLoggerManager) and controller
 * (ConfigurationControlManager) in their order.
 */
#include "api/configs.h"
#include "core/log.h"
#include "net/conn.h"
#include "net/quota.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ConfigurationControlManager: a value longer than Short.MAX_VALUE */
#define VALUE_MAX 32767

static const gr_conf_layer_t layers[] = { GR_CONF_DYNAMIC_BROKER,
                                          GR_CONF_DYNAMIC_DEFAULT,
                                          GR_CONF_STATIC, GR_CONF_DEFAULT };

static gr_config_source_t
layer_source(gr_conf_layer_t l)
{
    switch (l) {
    case GR_CONF_DYNAMIC_BROKER:
        return GR_CFGSRC_DYNAMIC_BROKER;
    case GR_CONF_DYNAMIC_DEFAULT:
        return GR_CFGSRC_DYNAMIC_DEFAULT;
    case GR_CONF_STATIC:
        return GR_CFGSRC_STATIC;
    case GR_CONF_DEFAULT:
        return GR_CFGSRC_DEFAULT;
    }
    return GR_CFGSRC_UNKNOWN;
}

/* The value of id in a layer as Kafka has it: node.id has no default
 * there (Gregor's -1 stands for "not set"), and either of node.id and
 * broker.id set alone sets the other (AbstractKafkaConfig
 * .populateSynonyms). */
static const char *
layer_value(const gr_conf_t *conf, gr_conf_id_t id, gr_conf_layer_t l)
{
    const char *v = gr_conf_layer_str(conf, id, l);
    if (id == GR_CONF_NODE_ID && l == GR_CONF_DEFAULT)
        return NULL;
    if (v == NULL && l == GR_CONF_STATIC && id == GR_CONF_NODE_ID)
        return gr_conf_layer_str(conf, GR_CONF_BROKER_ID, l);
    if (v == NULL && l == GR_CONF_STATIC && id == GR_CONF_BROKER_ID)
        return gr_conf_layer_str(conf, GR_CONF_NODE_ID, l);
    return v;
}

static void
add_syn(gr_config_entry_t *e, const char *name, const char *value,
        gr_config_source_t src)
{
    if (e->nsyn == GR_CONFIG_SYN_MAX)
        return;
    e->syn[e->nsyn].name = name;
    e->syn[e->nsyn].value = e->sensitive ? NULL : value;
    e->syn[e->nsyn].source = src;
    e->nsyn++;
}

/* Kafka's configSynonyms: per source (most precedent first), each synonym
 * name that source sets. */
static void
broker_synonyms(const gr_conf_t *conf, const int *ids, int n,
                gr_config_entry_t *e)
{
    for (size_t k = 0; k < sizeof layers / sizeof layers[0]; k++)
        for (int i = 0; i < n; i++) {
            const char *v = layer_value(conf, (gr_conf_id_t)ids[i], layers[k]);
            if (v != NULL)
                add_syn(e, gr_conf_name((gr_conf_id_t)ids[i]), v,
                        layer_source(layers[k]));
        }
}

/* v as DescribeConfigs prints a value of d, in a. */
static const char *
canonical(gr_arena_t *a, const gr_topic_config_def_t *d, const char *v)
{
    size_t n = strlen(v) + 32;
    char *buf = gr_arena_alloc(a, n);
    const char *c;
    if (buf == NULL)
        return NULL;
    c = gr_topic_config_canonical(d, v, buf, n);
    return c == buf || c == v ? c : gr_arena_strndup(a, c, strlen(c));
}

static int
topic_entry(gr_broker_t *b, const gr_topic_t *t, const gr_topic_config_def_t *d,
            bool parsed, gr_arena_t *a, gr_config_entry_t *e)
{
    const char *ov = t ? gr_topic_config_get(t, d->name) : NULL;
    const char *ksyn = gr_topic_config_kafka_synonym(d);
    char buf[64];
    int ids[GR_CONFIG_SYNONYMS_MAX], n = 0;

    memset(e, 0, sizeof(*e));
    e->name = d->name;
    e->type = d->type;
    e->doc = d->doc;
    e->sensitive = d->type == GR_TCFG_PASSWORD;
    e->read_only = false;
    if (ov != NULL) {
        e->value = parsed ? canonical(a, d, ov)
                          : gr_arena_strndup(a, ov, strlen(ov));
        if (e->value == NULL)
            return -1;
        add_syn(e, d->name, e->value, GR_CFGSRC_TOPIC);
    } else {
        const char *v =
            gr_topic_config_value(b->conf, t, d->name, buf, sizeof buf);
        e->value = parsed ? canonical(a, d, v)
                          : gr_arena_strndup(a, v, strlen(v));
        if (e->value == NULL)
            return -1;
    }
    while (n < GR_CONFIG_SYNONYMS_MAX && d->synonyms[n] >= 0) {
        ids[n] = d->synonyms[n];
        n++;
    }
    if (n > 0) {
        /* as Kafka's configSynonyms: the broker synonyms start at the
         * primary name (log.retention.ms for retention.ms) or are none,
         * so an unset log.retention.ms hides log.retention.hours */
        int first = e->nsyn, drop = first, k = first;
        broker_synonyms(b->conf, ids, n, e);
        while (drop < e->nsyn &&
               strcmp(e->syn[drop].name, gr_conf_name((gr_conf_id_t)ids[0])) !=
                   0)
            drop++;
        for (int i = drop; i < e->nsyn; i++)
            e->syn[k++] = e->syn[i];
        e->nsyn = k;
    } else if (ksyn != NULL) {
        /* Kafka's broker key of that name: set in the static
         * configuration (as Gregor takes it for the default), else
         * Kafka's default, which is the topic key's */
        const char *sv = gr_topic_config_static_extra(b->conf, ksyn);
        if (sv != NULL && gr_topic_config_check(d->name, sv) == NULL)
            add_syn(e, ksyn, sv, GR_CFGSRC_STATIC);
        add_syn(e, ksyn, d->def, GR_CFGSRC_DEFAULT);
    }
    e->source = e->nsyn > 0 ? e->syn[0].source : GR_CFGSRC_DEFAULT;
    if (e->sensitive)
        e->value = NULL;
    return 0;
}

int
gr_configs_topic_entry(gr_broker_t *b, const gr_topic_t *t,
                       const gr_topic_config_def_t *d, gr_arena_t *a,
                       gr_config_entry_t *e)
{
    return topic_entry(b, t, d, false, a, e);
}

int
gr_configs_topic_described(gr_broker_t *b, const gr_topic_t *t,
                           const gr_topic_config_def_t *d, gr_arena_t *a,
                           gr_config_entry_t *e)
{
    return topic_entry(b, t, d, true, a, e);
}

int
gr_configs_broker_entry(gr_broker_t *b, gr_conf_id_t id, bool per_broker,
                        gr_arena_t *a, gr_config_entry_t *e)
{
    const gr_broker_config_def_t *d = gr_broker_config_def(id);
    const char *v = NULL;
    int ids[GR_CONFIG_SYNONYMS_MAX], n, drop = 0;

    memset(e, 0, sizeof(*e));
    if (per_broker) {
        for (size_t k = 0; v == NULL && k < sizeof layers / sizeof layers[0];
             k++)
            v = layer_value(b->conf, id, layers[k]);
        /* a key Kafka 4.4 does not have: listed only where set, as Kafka
         * lists a key it does not define */
        if (d->unlisted &&
            gr_conf_layer_str(b->conf, id, GR_CONF_STATIC) == NULL &&
            gr_conf_layer_str(b->conf, id, GR_CONF_DYNAMIC_BROKER) == NULL &&
            gr_conf_layer_str(b->conf, id, GR_CONF_DYNAMIC_DEFAULT) == NULL)
            return 0;
    } else {
        v = gr_conf_layer_str(b->conf, id, GR_CONF_DYNAMIC_DEFAULT);
    }
    /* a key without a value (log.retention.ms by default) is described
     * with a null one on a broker, as Kafka's nonInternalValues lists it;
     * the defaults resource lists only what is set */
    if (v == NULL && !per_broker)
        return 0;
    /* neither set (Kafka would not start): the id in use */
    if (per_broker && (id == GR_CONF_NODE_ID || id == GR_CONF_BROKER_ID) &&
        layer_value(b->conf, id, GR_CONF_STATIC) == NULL)
        v = gr_arena_printf(a, "%d", b->node_id);
    e->name = gr_conf_name(id);
    e->type = d->type != GR_TCFG_UNKNOWN ? d->type : GR_TCFG_STRING;
    e->sensitive = gr_conf_is_sensitive(id) || d->type == GR_TCFG_PASSWORD;
    if (e->sensitive)
        e->type = GR_TCFG_PASSWORD;
    e->read_only = d->scope == GR_BCFG_READ_ONLY;
    e->doc = d->doc;
    e->value = e->sensitive || v == NULL ? NULL
                                         : gr_arena_strndup(a, v, strlen(v));
    if (!e->sensitive && v != NULL && e->value == NULL)
        return -1;
    n = gr_broker_config_synonyms(id, ids);
    broker_synonyms(b->conf, ids, n, e);
    /* as Kafka: what precedes the config's own name goes (describing
     * log.retention.hours does not start with log.retention.ms), and the
     * defaults resource shows only the dynamic defaults */
    while (drop < e->nsyn && strcmp(e->syn[drop].name, e->name) != 0)
        drop++;
    {
        int k = 0;
        for (int i = drop; i < e->nsyn; i++)
            if (per_broker || e->syn[i].source == GR_CFGSRC_DYNAMIC_DEFAULT)
                e->syn[k++] = e->syn[i];
        e->nsyn = k;
    }
    e->source = e->nsyn > 0 ? e->syn[0].source : GR_CFGSRC_DEFAULT;
    return 1;
}

static bool
secret_name(const char *key)
{
    return strstr(key, "password") != NULL || strstr(key, "jaas") != NULL ||
           strstr(key, "secret") != NULL;
}

void
gr_configs_extra_entry(const char *key, const char *value, gr_config_entry_t *e)
{
    memset(e, 0, sizeof(*e));
    e->name = key;
    e->sensitive = secret_name(key);
    e->type = e->sensitive ? GR_TCFG_PASSWORD : GR_TCFG_STRING;
    e->value = e->sensitive ? NULL : value;
    e->read_only = true;
    e->source = GR_CFGSRC_STATIC;
    add_syn(e, key, value, GR_CFGSRC_STATIC);
}

/* A key AlterConfigs may keep on a broker resource without effect: one
 * neither Gregor nor Kafka knows (Kafka refuses its own read-only keys,
 * and Gregor those of Kafka's it does not implement). */
static bool
unknown_key(const char *key)
{
    return gr_conf_lookup(key) < 0 && !gr_conf_is_kafka_key(key);
}

bool
gr_configs_unknown_entry_at(gr_broker_t *b, bool per_broker, int i,
                            gr_config_entry_t *e)
{
    const gr_cluster_t *c = b->cluster;
    const gr_topic_config_t *own = per_broker ? c->broker_configs : NULL;
    const gr_topic_config_t *cf;

    /* this broker's own keys, then the defaults' it does not have */
    for (cf = own; cf; cf = cf->next)
        if (unknown_key(cf->key) && i-- == 0)
            break;
    if (cf == NULL)
        for (cf = c->default_broker_configs; cf; cf = cf->next)
            if (unknown_key(cf->key) &&
                gr_config_list_get(own, cf->key) == NULL && i-- == 0)
                break;
    if (cf == NULL)
        return false;
    memset(e, 0, sizeof(*e));
    e->name = cf->key;
    e->sensitive = true; /* maybeSensitive of a key without a type */
    e->read_only = true;
    e->type = GR_TCFG_UNKNOWN;
    if (gr_config_list_get(own, cf->key) != NULL)
        add_syn(e, cf->key, NULL, GR_CFGSRC_DYNAMIC_BROKER);
    if (gr_config_list_get(c->default_broker_configs, cf->key) != NULL)
        add_syn(e, cf->key, NULL, GR_CFGSRC_DYNAMIC_DEFAULT);
    e->source = e->syn[0].source;
    return true;
}

/* A listener-level key's value in layer l: this broker's dynamic list,
 * the cluster default's, the static configuration; NULL elsewhere. */
static const char *
listener_layer_value(gr_broker_t *b, const char *key, gr_conf_layer_t l)
{
    switch (l) {
    case GR_CONF_DYNAMIC_BROKER:
        return gr_config_list_get(b->cluster->broker_configs, key);
    case GR_CONF_DYNAMIC_DEFAULT:
        return gr_config_list_get(b->cluster->default_broker_configs, key);
    case GR_CONF_STATIC:
        return gr_topic_config_static_extra(b->conf, key);
    case GR_CONF_DEFAULT:
        return NULL;
    }
    return NULL;
}

bool
gr_configs_listener_entry_at(gr_broker_t *b, bool per_broker, int i,
                             gr_config_entry_t *e)
{
    const gr_cluster_t *c = b->cluster;
    const char *key = NULL, *k, *v;
    int base = -1;

    /* this broker's keys, the defaults' it does not have, the static ones
     * neither has; the defaults resource: the defaults' */
    for (const gr_topic_config_t *cf = per_broker ? c->broker_configs : NULL;
         key == NULL && cf; cf = cf->next)
        if (gr_conf_listener_key(cf->key, NULL, 0) >= 0 && i-- == 0)
            key = cf->key;
    for (const gr_topic_config_t *cf = c->default_broker_configs;
         key == NULL && cf; cf = cf->next)
        if (gr_conf_listener_key(cf->key, NULL, 0) >= 0 &&
            (!per_broker || gr_config_list_get(c->broker_configs, cf->key) ==
                                NULL) &&
            i-- == 0)
            key = cf->key;
    for (int j = 0; per_broker && key == NULL && gr_conf_extra_at(b->conf, j, &k, &v);
         j++)
        if (gr_conf_listener_key(k, NULL, 0) >= 0 &&
            gr_config_list_get(c->broker_configs, k) == NULL &&
            gr_config_list_get(c->default_broker_configs, k) == NULL &&
            i-- == 0)
            key = k;
    if (key == NULL)
        return false;
    base = gr_conf_listener_key(key, NULL, 0);
    memset(e, 0, sizeof(*e));
    e->name = key;
    e->type = GR_TCFG_INT;
    e->read_only = true; /* as Kafka describes a listener's key */
    /* brokerConfigSynonyms(name, matchListenerOverride): the key and its
     * base key, per source */
    for (size_t l = 0; l < sizeof layers / sizeof layers[0]; l++) {
        if (!per_broker && layers[l] != GR_CONF_DYNAMIC_DEFAULT)
            continue;
        if ((v = listener_layer_value(b, key, layers[l])) != NULL)
            add_syn(e, key, v, layer_source(layers[l]));
        if ((v = layer_value(b->conf, (gr_conf_id_t)base, layers[l])) != NULL)
            add_syn(e, gr_conf_name((gr_conf_id_t)base), v,
                    layer_source(layers[l]));
    }
    e->value = e->nsyn > 0 ? e->syn[0].value : NULL;
    e->source = e->nsyn > 0 ? e->syn[0].source : GR_CFGSRC_UNKNOWN;
    return true;
}

/* name as Java's Integer.parseInt reads it: an optional sign and digits
 * in int range. 0, or -1. */
static int
java_int(const char *s, long *out)
{
    char *end;
    long v;
    const char *p = s + (*s == '+' || *s == '-');
    if (*p < '0' || *p > '9')
        return -1;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return -1;
    v = strtol(s, &end, 10);
    if (*end != '\0' || v < INT32_MIN || v > INT32_MAX)
        return -1;
    *out = v;
    return 0;
}

gr_kerr_t
gr_configs_broker_resource(gr_broker_t *b, const gr_str_t *name,
                           gr_config_resource_use_t use, bool *per_broker,
                           gr_arena_t *a, const char **msg)
{
    bool describe =
        use == GR_CFGRES_DESCRIBE_BROKER || use == GR_CFGRES_DESCRIBE_LOGGER;
    char *s;
    long id;

    if (name->len <= 0 && use == GR_CFGRES_DESCRIBE_LOGGER) {
        *msg = "Broker id must not be empty";
        return GR_KERR_INVALID_REQUEST;
    }
    if (name->len <= 0 && use != GR_CFGRES_ALTER_LOGGER) {
        *per_broker = false;
        return GR_KERR_NONE;
    }
    s = gr_arena_strndup(a, name->ptr ? name->ptr : "",
                         name->len > 0 ? (size_t)name->len : 0);
    if (s == NULL) {
        *msg = "Out of memory";
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (java_int(s, &id) != 0) {
        *msg = gr_arena_printf(a, "%s id must be an integer, but it is: %s",
                               describe ? "Broker" : "Node", s);
        return GR_KERR_INVALID_REQUEST;
    }
    if (id != b->node_id) {
        switch (use) {
        case GR_CFGRES_DESCRIBE_BROKER:
            *msg = gr_arena_printf(a,
                                   "Unexpected broker id, expected %d or "
                                   "empty string, but received %s",
                                   b->node_id, s);
            break;
        case GR_CFGRES_DESCRIBE_LOGGER:
            *msg = gr_arena_printf(a,
                                   "Unexpected broker id, expected %d but "
                                   "received %s",
                                   b->node_id, s);
            break;
        case GR_CFGRES_ALTER_BROKER:
            *msg = gr_arena_printf(a,
                                   "Unexpected broker id, expected %d, but "
                                   "received %s",
                                   b->node_id, s);
            break;
        case GR_CFGRES_ALTER_LOGGER:
            *msg = gr_arena_printf(a,
                                   "Unexpected node id. Expected %d, but "
                                   "received %ld",
                                   b->node_id, id);
            break;
        }
        return GR_KERR_INVALID_REQUEST;
    }
    *per_broker = true;
    return GR_KERR_NONE;
}

/* --- changes */

bool *
gr_configs_repeated_resources(gr_arena_t *a, const int8_t *types,
                              const gr_str_t *names, int n)
{
    gr_str_t *keys = gr_arena_alloc(a, (size_t)(n > 0 ? n : 1) * sizeof(*keys));
    if (keys == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        size_t len = names[i].len > 0 ? (size_t)names[i].len : 0;
        char *k = gr_arena_alloc(a, len + 1);
        if (k == NULL)
            return NULL;
        k[0] = (char)types[i]; /* the type, then the name */
        if (len)
            memcpy(k + 1, names[i].ptr, len);
        keys[i] = (gr_str_t){ k, (int32_t)(len + 1) };
    }
    return gr_str_repeats(a, keys, sizeof(*keys), n);
}

gr_kerr_t
gr_configs_preprocess(const gr_config_change_t *ch, int n, bool replace,
                      gr_arena_t *a, const char **msg)
{
    gr_str_t *keys = gr_arena_alloc(a, (size_t)(n > 0 ? n : 1) * sizeof(*keys));
    bool *dup = NULL;
    gr_buf_t nulls = GR_BUF_INIT;

    for (int i = 0; keys != NULL && i < n; i++)
        keys[i] = gr_str_c(ch[i].key);
    if (keys == NULL ||
        (dup = gr_str_repeats(a, keys, sizeof(*keys), n)) == NULL) {
        *msg = "Out of memory";
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    for (int i = 0; i < n; i++)
        if (dup[i]) {
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
        gr_buf_fini(&nulls);
        return GR_KERR_INVALID_REQUEST;
    }
    gr_buf_fini(&nulls);
    return GR_KERR_NONE;
}

/* s split as Java's s.split(","): no comma, s itself; else the pieces
 * less the empty ones at the end. In a; NULL on ENOMEM. */
static char **
jsplit(gr_arena_t *a, const char *s, int *n)
{
    int cap = 1, k = 0;
    char **out, *copy = gr_arena_strndup(a, s, strlen(s)), *p;
    for (const char *q = s; *q; q++)
        cap += *q == ',';
    out = gr_arena_alloc(a, (size_t)cap * sizeof(*out));
    if (copy == NULL || out == NULL)
        return NULL;
    for (p = copy;;) {
        char *c = strchr(p, ',');
        out[k++] = p;
        if (c == NULL)
            break;
        *c = '\0';
        p = c + 1;
    }
    while (cap > 1 && k > 0 && out[k - 1][0] == '\0')
        k--;
    *n = k;
    return out;
}

static int
index_of(char **items, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (items[i] != NULL && strcmp(items[i], s) == 0)
            return i;
    return -1;
}

/* A list value edited as Kafka's controller does for a topic (topic true:
 * the current items less empty ones, an APPENDed item once, a SUBTRACTed
 * one removed once) or its broker does for a broker config (the current
 * items as split, APPENDed items not among them, a multiset difference
 * for SUBTRACT). Joined by commas in a; NULL on ENOMEM. */
static char *
list_edit(gr_arena_t *a, const char *cur, const char *items, bool append,
          bool topic)
{
    int nc = 0, ni = 0, n = 0;
    char **c = jsplit(a, cur ? cur : "", &nc), **it = jsplit(a, items, &ni);
    char **out;
    gr_buf_t b = GR_BUF_INIT;
    char *res;

    if (c == NULL || it == NULL ||
        (out = gr_arena_alloc(a, (size_t)(nc + ni + 1) * sizeof(*out))) ==
            NULL)
        return NULL;
    for (int i = 0; i < nc; i++)
        if (!topic || c[i][0] != '\0')
            out[n++] = c[i];
    if (!topic && nc == 1 && c[0][0] == '\0')
        n = 0; /* an empty value has no items */
    for (int i = 0; i < ni; i++) {
        int at = index_of(out, n, it[i]);
        if (append && (topic ? index_of(out, n, it[i]) < 0
                             : index_of(c, nc, it[i]) < 0))
            out[n++] = it[i];
        else if (!append && at >= 0)
            out[at] = NULL;
    }
    for (int i = 0, sep = 0; i < n; i++)
        if (out[i] != NULL) {
            if (sep++)
                gr_buf_putc(&b, ',');
            gr_buf_puts(&b, out[i]);
        }
    res = gr_arena_strndup(a, b.len ? gr_buf_cstr(&b) : "", b.len);
    gr_buf_fini(&b);
    return res;
}

static gr_topic_config_t *
list_copy(const gr_topic_config_t *src, bool *oom)
{
    gr_topic_config_t *out = NULL;
    *oom = false;
    for (const gr_topic_config_t *cf = src; cf; cf = cf->next)
        if (gr_config_list_set(&out, cf->key, cf->value) != 0)
            *oom = true;
    return out;
}

static const char *
op_name(gr_config_op_t op)
{
    return op == GR_CONFIG_APPEND ? "APPEND" : "SUBTRACT";
}

/* The effective value of a LONG key for the overrides list. */
static int64_t
effective_long(gr_broker_t *b, const gr_topic_config_t *list, const char *key)
{
    gr_topic_t tmp;
    char buf[64];
    const char *v;
    memset(&tmp, 0, sizeof tmp);
    tmp.configs = (gr_topic_config_t *)list;
    v = gr_topic_config_value(b->conf, &tmp, key, buf, sizeof buf);
    return v ? strtoll(v, NULL, 10) : 0;
}

/* The overrides t would have after ch, checked as Kafka's controller
 * does (ConfigurationControlManager, then ControllerConfigurationValidator
 * and LogConfig.validate): APPEND and SUBTRACT on list keys only, values
 * of at most 32767 bytes, the topic name (name: for a topic not found),
 * the key names, each value in the order LogConfig defines the keys, then
 * min.compaction.lag.ms against max.compaction.lag.ms. */
static gr_kerr_t
topic_changes(gr_broker_t *b, const gr_topic_t *t, const gr_str_t *name,
              const gr_config_change_t *ch, int n, bool replace, gr_arena_t *a,
              const char **msg, gr_topic_config_t **list)
{
    const char **vals = gr_arena_zalloc(a, (size_t)(n ? n : 1) * sizeof(*vals));
    bool *done = gr_arena_zalloc(a, (size_t)(n ? n : 1) * sizeof(*done));
    const char *why;
    int64_t min_lag, max_lag;
    bool oom;

    if (vals == NULL || done == NULL)
        goto oom;
    *list = replace ? NULL : list_copy(t->configs, &oom);
    if (!replace && oom)
        goto oom;
    for (int i = 0; i < n; i++) {
        const gr_topic_config_def_t *d = gr_topic_config_def_find(ch[i].key);
        const char *cur;
        switch (ch[i].op) {
        case GR_CONFIG_SET:
            vals[i] = ch[i].value;
            break;
        case GR_CONFIG_DELETE:
            vals[i] = NULL;
            break;
        case GR_CONFIG_APPEND:
        case GR_CONFIG_SUBTRACT:
            if (d == NULL || d->type != GR_TCFG_LIST) {
                *msg = gr_arena_printf(a,
                                       "Can't %s to key %s because its type "
                                       "is not LIST.",
                                       op_name(ch[i].op), ch[i].key);
                return GR_KERR_INVALID_CONFIG;
            }
            /* the override, else the key's own default (Kafka's
             * configSchema.getDefault), not the broker's */
            cur = gr_config_list_get(*list, ch[i].key);
            if (cur == NULL)
                cur = d->synonyms[0] >= 0
                          ? gr_conf_layer_str(b->conf,
                                              (gr_conf_id_t)d->synonyms[0],
                                              GR_CONF_DEFAULT)
                          : d->def;
            vals[i] = list_edit(a, cur, ch[i].value,
                                ch[i].op == GR_CONFIG_APPEND, true);
            if (vals[i] == NULL)
                goto oom;
            break;
        }
        if (gr_config_list_set(list, ch[i].key, vals[i]) != 0)
            goto oom;
    }
    for (int i = 0; i < n; i++)
        if (vals[i] != NULL && strlen(vals[i]) > VALUE_MAX) {
            *msg = "The configuration value cannot be added because it "
                   "exceeds the maximum value size of 32767 bytes.";
            return GR_KERR_INVALID_CONFIG;
        }
    if (name != NULL && name->len <= 0) {
        *msg = "Default topic resources are not allowed.";
        return GR_KERR_INVALID_REQUEST;
    }
    if (name != NULL && (why = gr_topic_name_error(name, a)) != NULL) {
        *msg = why;
        return GR_KERR_INVALID_TOPIC_EXCEPTION;
    }
    /* a DELETE of a key that is not there changes nothing: not checked */
    for (int i = 0; i < n; i++)
        if (vals[i] != NULL && gr_topic_config_def_find(ch[i].key) == NULL) {
            *msg = gr_arena_printf(a, "Unknown topic config name: %s",
                                   ch[i].key);
            return GR_KERR_INVALID_CONFIG;
        }
    for (int k = 0; k < n; k++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (!done[i] &&
                (best < 0 || gr_topic_config_kafka_rank(ch[i].key) <
                                 gr_topic_config_kafka_rank(ch[best].key)))
                best = i;
        done[best] = true;
        if (vals[best] != NULL &&
            (why = gr_topic_config_check(ch[best].key, vals[best])) != NULL) {
            *msg = gr_arena_strndup(a, why, strlen(why));
            return GR_KERR_INVALID_CONFIG;
        }
    }
    /* LogConfig.validateValues, over the values in effect */
    min_lag = effective_long(b, *list, "min.compaction.lag.ms");
    max_lag = effective_long(b, *list, "max.compaction.lag.ms");
    if (min_lag > max_lag) {
        *msg = gr_arena_printf(a,
                               "conflict topic config setting "
                               "min.compaction.lag.ms (%lld) > "
                               "max.compaction.lag.ms (%lld)",
                               (long long)min_lag, (long long)max_lag);
        return GR_KERR_INVALID_CONFIG;
    }
    return GR_KERR_NONE;
oom:
    *msg = "Out of memory";
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

gr_kerr_t
gr_configs_alter_topic(gr_broker_t *b, gr_configs_pending_t *p, gr_topic_t *t,
                       const gr_config_change_t *ch, int n, bool replace,
                       bool validate_only, gr_arena_t *a, const char **msg)
{
    gr_topic_config_t *list = NULL, *old;
    gr_kerr_t err;

    err = topic_changes(b, t, NULL, ch, n, replace, a, msg, &list);
    if (err != GR_KERR_NONE || validate_only) {
        gr_config_list_free(&list);
        return err;
    }
    old = t->configs;
    t->configs = list;
    t->settings_gen = 0;
    err = gr_cluster_store_topic_config(b->cluster, t);
    if (err != GR_KERR_NONE) {
        t->configs = old;
        gr_config_list_free(&list);
        *msg = "The topic's configuration could not be persisted.";
        return err;
    }
    /* the old ones are back if the file cannot be written */
    GR_ASSERT(p != NULL && p->n < p->cap);
    p->items[p->n].kind = GR_CONFIGS_TOPIC;
    p->items[p->n].id = t->id;
    p->items[p->n++].old = old;
    gr_broker_topic_config_changed(b, t);
    GR_LOG_INFO("topic %s: configuration changed", t->name);
    for (int i = 0; i < n; i++)
        if (ch[i].op != GR_CONFIG_DELETE)
            gr_configs_note_legacy(t, ch[i].key);
    return GR_KERR_NONE;
}

gr_kerr_t
gr_configs_alter_topic_named(gr_broker_t *b, gr_configs_pending_t *p,
                             const gr_str_t *name,
                             const gr_config_change_t *ch, int n,
                             bool replace, bool validate_only, gr_arena_t *a,
                             const char **msg, gr_topic_t **t)
{
    gr_topic_t none;
    gr_topic_config_t *list = NULL;
    gr_kerr_t err;

    /* a topic found has a valid name */
    *t = gr_topic_name_invalid(name) == NULL
             ? gr_cluster_topic(b->cluster, name)
             : NULL;
    if (*t != NULL)
        return gr_configs_alter_topic(b, p, *t, ch, n, replace,
                                      validate_only, a, msg);
    /* Kafka's controller checks the name and the configs before it looks
     * for the topic */
    memset(&none, 0, sizeof none);
    err = topic_changes(b, &none, name, ch, n, replace, a, msg, &list);
    gr_config_list_free(&list);
    if (err != GR_KERR_NONE)
        return err;
    *msg = gr_arena_printf(a, "The topic '%.*s' does not exist.",
                           (int)name->len, name->ptr);
    return GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
}

void
gr_configs_note_legacy(const gr_topic_t *t, const char *key)
{
    const gr_topic_config_def_t *d = gr_topic_config_def_find(key);
    const char *v = gr_topic_config_get(t, key);
    if (d == NULL || !gr_topic_config_is_legacy(d) || v == NULL)
        return;
    GR_LOG_INFO("topic %s: %s=%s is kept as Kafka 3.x kept it (a Kafka 4.x "
                "broker no longer knows it)%s",
                t->name, key, v,
                strcmp(key, "message.downconversion.enable") == 0
                    ? "; it governs Fetch v0-v3"
                    : "; it has no effect");
}

/* Java's String.hashCode of an ASCII or UTF-8 key (as its chars for
 * ASCII, which config names are). */
static uint32_t
java_hash(const char *s)
{
    uint32_t h = 0;
    for (; *s; s++)
        h = 31 * h + (unsigned char)*s;
    return h;
}

/* keys (n of them, in the order given) joined as Java prints a HashSet of
 * them, which Kafka's "Cannot update these configs dynamically: [...]"
 * is: by hash bucket of a table sized for total entries, then in the
 * order added. In a. */
static const char *
java_set_text(gr_arena_t *a, const char **keys, int n, int total)
{
    uint32_t cap = 16, need = (uint32_t)((float)total / .75f) + 1;
    gr_buf_t b = GR_BUF_INIT;
    bool *done = gr_arena_zalloc(a, (size_t)(n ? n : 1) * sizeof(*done));
    char *res;

    while (cap < need)
        cap <<= 1;
    gr_buf_putc(&b, '[');
    for (int out = 0; done != NULL && out < n; out++) {
        int best = -1;
        uint32_t bb = 0;
        for (int i = 0; i < n; i++) {
            uint32_t h = java_hash(keys[i]);
            uint32_t bucket = (h ^ (h >> 16)) & (cap - 1);
            if (!done[i] && (best < 0 || bucket < bb)) {
                best = i;
                bb = bucket;
            }
        }
        done[best] = true;
        if (out)
            gr_buf_puts(&b, ", ");
        gr_buf_puts(&b, keys[best]);
    }
    gr_buf_putc(&b, ']');
    res = gr_arena_strndup(a, gr_buf_cstr(&b), b.len);
    gr_buf_fini(&b);
    return res;
}

gr_kerr_t
gr_configs_alter_broker(gr_broker_t *b, gr_configs_pending_t *p,
                        bool per_broker, const gr_config_change_t *ch, int n,
                        bool replace, bool validate_only, gr_arena_t *a,
                        const char **msg)
{
    gr_cluster_t *c = b->cluster;
    /* a level changed earlier in the request is seen as it is to be */
    const gr_topic_config_t *level[2] = { c->default_broker_configs,
                                          c->broker_configs };
    const gr_topic_config_t **target = &level[per_broker];
    gr_topic_config_t *list;
    const char **fixed, *why;
    int nfixed = 0, total = 0;
    gr_kerr_t err = GR_KERR_NONE;
    bool oom = false;

    for (int k = 0; k < 2; k++)
        if (p != NULL && p->has_broker[k])
            level[k] = p->broker[k];
    list = replace ? NULL : list_copy(*target, &oom);
    if (oom)
        goto oom;
    /* ConfigAdminManager.prepareIncrementalConfigs */
    for (int i = 0; i < n; i++) {
        int id = gr_conf_lookup(ch[i].key);
        const char *v = ch[i].value;
        if (ch[i].op == GR_CONFIG_DELETE) {
            v = NULL;
        } else if (ch[i].op == GR_CONFIG_APPEND ||
                   ch[i].op == GR_CONFIG_SUBTRACT) {
            const char *cur;
            if (unknown_key(ch[i].key)) {
                *msg = gr_arena_printf(a, "Unknown config name: %s",
                                       ch[i].key);
                err = GR_KERR_INVALID_CONFIG;
                goto out;
            }
            if (id >= 0 && gr_broker_config_def(id)->type != GR_TCFG_LIST) {
                *msg = gr_arena_printf(a,
                                       "Config value %s is not allowed for "
                                       "config key: %s",
                                       ch[i].op == GR_CONFIG_APPEND
                                           ? "append"
                                           : "subtract",
                                       ch[i].key);
                err = GR_KERR_INVALID_CONFIG;
                goto out;
            }
            /* the resource's value, else the key's default */
            cur = gr_config_list_get(list, ch[i].key);
            if (cur == NULL && id >= 0)
                cur = gr_conf_layer_str(b->conf, id, GR_CONF_DEFAULT);
            if ((v = list_edit(a, cur, ch[i].value,
                               ch[i].op == GR_CONFIG_APPEND, false)) == NULL)
                goto oom;
        }
        /* kept as Kafka parses it: trimmed (the broker's own parse of a
         * value does not trim) */
        if (v != NULL && (id >= 0 || gr_conf_listener_key(ch[i].key, NULL,
                                                          0) >= 0)) {
            size_t len = strlen(v);
            while (len > 0 && (unsigned char)v[len - 1] <= ' ')
                len--;
            while (len > 0 && (unsigned char)*v <= ' ') {
                v++;
                len--;
            }
            if ((v = gr_arena_strndup(a, v, len)) == NULL)
                goto oom;
        }
        if (gr_config_list_set(&list, ch[i].key, v) != 0)
            goto oom;
    }
    /* DynamicBrokerConfig.validateConfigs: every key that cannot change
     * at run time at once (Gregor's read-only keys and Kafka's keys it
     * does not implement), then the values by their types */
    for (gr_topic_config_t *cf = list; cf; cf = cf->next)
        total++;
    if ((fixed = gr_arena_zalloc(a, (size_t)(total + 1) * sizeof(*fixed))) ==
        NULL)
        goto oom;
    for (gr_topic_config_t *cf = list; cf; cf = cf->next) {
        int id = gr_conf_lookup(cf->key);
        /* a listener's max.connections and max.connection.creation.rate
         * are dynamic (Kafka's ListenerConnectionQuota), at both levels */
        if (id < 0 && gr_conf_listener_key(cf->key, NULL, 0) >= 0)
            continue;
        if (id >= 0 ? gr_broker_config_def(id)->scope != GR_BCFG_DYNAMIC
                    : !unknown_key(cf->key))
            fixed[nfixed++] = cf->key;
    }
    if (nfixed > 0) {
        *msg = gr_arena_printf(a, "Cannot update these configs dynamically: %s",
                               java_set_text(a, fixed, nfixed, total));
        err = GR_KERR_INVALID_REQUEST;
        goto out;
    }
    for (gr_topic_config_t *cf = list; cf; cf = cf->next) {
        int id = gr_conf_lookup(cf->key);
        /* a listener's key has its base key's type, named so in the
         * message (DynamicBrokerConfig strips the listener prefix) */
        if (id < 0)
            id = gr_conf_listener_key(cf->key, NULL, 0);
        if (id >= 0 && (why = gr_broker_config_check(id, cf->value)) != NULL) {
            *msg = gr_arena_strndup(a, why, strlen(why));
            err = GR_KERR_INVALID_REQUEST;
            goto out;
        }
    }
    /* then the new configuration as a whole (KafkaConfig and the
     * listeners' connection quotas) */
    {
        char qmsg[512];
        if ((why = gr_quotas_check_dynamic(
                 b, per_broker ? list : level[1],
                 per_broker ? level[0] : list, qmsg, sizeof qmsg)) != NULL) {
            *msg = gr_arena_strndup(a, why, strlen(why));
            err = GR_KERR_INVALID_REQUEST;
            goto out;
        }
    }
    /* the controller's ConfigurationControlManager */
    for (int i = 0; i < n; i++) {
        const char *v = gr_config_list_get(list, ch[i].key);
        if (v != NULL && strlen(v) > VALUE_MAX) {
            *msg = "The configuration value cannot be added because it "
                   "exceeds the maximum value size of 32767 bytes.";
            err = GR_KERR_INVALID_CONFIG;
            goto out;
        }
    }
    if (validate_only)
        goto out;
    /* in effect once stored (gr_configs_done) */
    GR_ASSERT(p != NULL && p->n < p->cap);
    gr_config_list_free(&p->broker[per_broker]);
    p->broker[per_broker] = list;
    p->has_broker[per_broker] = true;
    p->items[p->n++].kind =
        per_broker ? GR_CONFIGS_BROKER_THIS : GR_CONFIGS_BROKER_DEFAULT;
    for (int i = 0; i < n; i++)
        if (ch[i].op != GR_CONFIG_DELETE && unknown_key(ch[i].key))
            GR_LOG_INFO("dynamic broker config %s is kept and has no effect: "
                        "neither Gregor nor Kafka knows it",
                        ch[i].key);
    return GR_KERR_NONE;
oom:
    *msg = "Out of memory";
    err = GR_KERR_UNKNOWN_SERVER_ERROR;
out:
    gr_config_list_free(&list);
    return err;
}

/* --- changes stored before they hold (configs.h) */

gr_configs_pending_t *
gr_configs_pending_new(int n)
{
    gr_configs_pending_t *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->cap = n > 0 ? n : 1;
    if ((p->items = calloc((size_t)p->cap, sizeof *p->items)) == NULL) {
        free(p);
        return NULL;
    }
    return p;
}

void
gr_configs_pending_free(gr_configs_pending_t *p)
{
    if (p == NULL)
        return;
    gr_config_list_free(&p->broker[0]);
    gr_config_list_free(&p->broker[1]);
    gr_config_resources_free(&p->cm);
    for (int i = 0; i < p->n; i++) {
        free(p->items[i].name);
        gr_config_list_free(&p->items[i].old);
    }
    free(p->items);
    free(p);
}

int
gr_configs_pending_end(gr_configs_pending_t *p, void **state)
{
    if (p->n == 0) {
        gr_configs_pending_free(p);
        return 0;
    }
    *state = p;
    return 1;
}

int
gr_configs_pending_close(struct gr_req *req, gr_configs_pending_t *p)
{
    gr_configs_pending_free(p);
    gr_req_close(req, "out of memory");
    return -1;
}

void
gr_configs_pending_answer(gr_configs_pending_t *p, int16_t *code,
                          gr_str_t *msg)
{
    for (; p->answered < p->n; p->answered++) {
        p->items[p->answered].code = code;
        p->items[p->answered].msg = msg;
    }
}

/* One part of the store is over; the last calls back (the first error). */
static void
part_over(gr_configs_pending_t *p)
{
    int err = 0;
    if (--p->waiting > 0)
        return;
    for (int k = 0; k < 3 && err == 0; k++)
        err = p->part[k].err;
    p->cb(p->arg, err);
}

static void
part_stored(void *arg, int err)
{
    struct gr_configs_part *part = arg;
    part->err = err;
    part_over(part->p);
}

static void
topics_synced(void *arg, const gr_uuid_t *failed, int nfailed, bool cancelled)
{
    gr_configs_pending_t *p = arg;
    (void)cancelled; /* the broker stops: gr_configs_done only frees */
    for (int i = 0; i < p->n; i++)
        for (int k = 0; k < nfailed; k++)
            if (p->items[i].kind == GR_CONFIGS_TOPIC &&
                gr_uuid_eq(&p->items[i].id, &failed[k]))
                p->items[i].failed = true;
    part_over(p);
}

void
gr_configs_store(gr_broker_t *b, void *state, gr_cluster_stored_cb cb,
                 void *arg)
{
    gr_configs_pending_t *p = state;
    gr_cluster_t *c = b->cluster;
    bool topics = false;

    p->cb = cb;
    p->arg = arg;
    p->waiting = 1; /* until everything is handed over */
    for (int k = 0; k < 3; k++)
        p->part[k].p = p;
    for (int k = 0; k < 2; k++)
        if (p->has_broker[k]) {
            p->waiting++;
            gr_cluster_store_broker_config(c, k == 1, p->broker[k],
                                           part_stored, &p->part[k]);
        }
    if (p->has_cm) {
        p->waiting++;
        gr_cluster_store_client_metrics(c, p->cm, part_stored,
                                        &p->part[GR_CONFIGS_CLIENT_METRICS]);
    }
    for (int i = 0; i < p->n; i++)
        topics |= p->items[i].kind == GR_CONFIGS_TOPIC;
    if (topics) { /* their files were queued when they changed */
        p->waiting++;
        gr_cluster_sync(c, topics_synced, p);
    }
    part_over(p);
}

void
gr_configs_done(gr_broker_t *b, struct gr_req *req, void *state, int err)
{
    gr_configs_pending_t *p = state;
    gr_cluster_t *c = b->cluster;
    bool changed = false;

    (void)err; /* each part's own */
    for (int k = 0; k < 2; k++) {
        gr_topic_config_t **target =
            k ? &c->broker_configs : &c->default_broker_configs;
        if (!p->has_broker[k] || p->part[k].err != 0)
            continue;
        gr_config_list_free(target);
        *target = p->broker[k];
        p->broker[k] = NULL;
        changed = true;
        GR_LOG_INFO("dynamic broker configuration (%s) changed",
                    k ? "this broker" : "cluster default");
    }
    if (changed && !b->stopping)
        gr_broker_config_changed(b);
    gr_configs_client_metrics_done(b, p,
                                   p->part[GR_CONFIGS_CLIENT_METRICS].err);
    /* a topic whose file was not written has its configs as before: as
     * its file has them, unless a later write of the topic (new
     * partitions) took the new ones there */
    for (int i = 0; i < p->n && !b->stopping; i++) {
        gr_configs_item_t *it = &p->items[i];
        gr_topic_t *t;
        if (it->kind != GR_CONFIGS_TOPIC || !it->failed ||
            (t = gr_cluster_topic_by_id(c, &it->id)) == NULL)
            continue;
        gr_config_list_free(&t->configs);
        t->configs = it->old;
        it->old = NULL;
        t->settings_gen = 0;
        gr_broker_topic_config_changed(b, t);
        GR_LOG_ERROR("topic %s: configuration change not stored; the "
                     "configuration before it holds again",
                     t->name);
    }
    for (int i = 0; req != NULL && i < p->n; i++) {
        gr_configs_item_t *it = &p->items[i];
        const char *msg = NULL;
        if (it->code == NULL)
            continue;
        if (it->kind == GR_CONFIGS_TOPIC && it->failed)
            msg = "The topic metadata could not be written.";
        else if (it->kind == GR_CONFIGS_CLIENT_METRICS &&
                 p->part[it->kind].err != 0)
            msg = "The client metrics subscriptions could not be persisted.";
        else if (it->kind != GR_CONFIGS_TOPIC &&
                 it->kind != GR_CONFIGS_CLIENT_METRICS &&
                 p->part[it->kind].err != 0)
            msg = "The broker configuration could not be persisted.";
        if (msg != NULL) {
            *it->code = GR_KERR_KAFKA_STORAGE_ERROR;
            *it->msg = gr_str_c(msg);
        }
    }
    gr_configs_pending_free(p);
}

/* --- BROKER_LOGGER: one logger, "root" */

static const char *const level_names[] = { "ERROR", "WARN", "INFO", "DEBUG",
                                           "TRACE" };

int
gr_configs_logger_entries(gr_arena_t *a, gr_config_entry_t **out)
{
    gr_config_entry_t *e = gr_arena_zalloc(a, sizeof(*e));
    if (e == NULL)
        return -1;
    e->name = "root";
    e->value = level_names[gr_log_level < 0   ? 0
                           : gr_log_level > 4 ? 4
                                              : gr_log_level];
    e->source = GR_CFGSRC_BROKER_LOGGER;
    e->type = GR_TCFG_UNKNOWN; /* Kafka sets none */
    *out = e;
    return 1;
}

gr_kerr_t
gr_configs_alter_logger(const gr_config_change_t *ch, int n, bool validate_only,
                        gr_arena_t *a, const char **msg)
{
    int level = -1;

    /* RuntimeLoggerManager.validateLogLevelConfigs, in order */
    for (int i = 0; i < n; i++) {
        bool root = strcmp(ch[i].key, "root") == 0;
        switch (ch[i].op) {
        case GR_CONFIG_SET:
            if (!root) {
                *msg = gr_arena_printf(a, "Logger %s does not exist!",
                                       ch[i].key);
                return GR_KERR_INVALID_CONFIG;
            }
            level = -1;
            if (ch[i].value != NULL && strcmp(ch[i].value, "FATAL") == 0)
                level = GR_LOG_LEVEL_ERROR;
            for (int k = 0; k < 5 && ch[i].value; k++)
                if (strcmp(ch[i].value, level_names[k]) == 0)
                    level = k;
            if (level < 0) {
                *msg = gr_arena_printf(
                    a,
                    "Cannot set the log level of root to %s as it is not a "
                    "supported log level. Valid log levels are DEBUG, ERROR, "
                    "FATAL, INFO, TRACE, WARN",
                    ch[i].value ? ch[i].value : "null");
                return GR_KERR_INVALID_CONFIG;
            }
            break;
        case GR_CONFIG_DELETE:
            if (!root) {
                *msg = gr_arena_printf(a, "Logger %s does not exist!",
                                       ch[i].key);
                return GR_KERR_INVALID_CONFIG;
            }
            *msg = "Removing the log level of the root logger is not allowed";
            return GR_KERR_INVALID_REQUEST;
        case GR_CONFIG_APPEND:
        case GR_CONFIG_SUBTRACT:
            *msg = gr_arena_printf(a,
                                   "%s operation is not allowed for the "
                                   "BROKER_LOGGER resource",
                                   op_name(ch[i].op));
            return GR_KERR_INVALID_REQUEST;
        default:
            *msg = gr_arena_printf(a,
                                   "Unknown operation type %d is not allowed "
                                   "for the BROKER_LOGGER resource",
                                   (int)ch[i].op);
            return GR_KERR_INVALID_REQUEST;
        }
    }
    if (!validate_only && level >= 0) {
        gr_log_level = level;
        GR_LOG_INFO("log level set to %s", level_names[level]);
    }
    return GR_KERR_NONE;
}
