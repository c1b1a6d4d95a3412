/*
 * Config entries and config changes for the config APIs: see configs.h.
 * Sources, synonyms and read-only flags follow Kafka's ConfigHelper and
 * DynamicBrokerConfig; messages are Kafka's where it has one.
 */
#include "api/configs.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

gr_kerr_t
gr_configs_broker_resource(gr_broker_t *b, const gr_str_t *name, bool logger,
                           bool *per_broker, gr_arena_t *a, const char **msg)
{
    char *s, *end;
    long id;

    if (name->len <= 0) {
        if (logger) {
            *msg = "Broker id must not be empty";
            return GR_KERR_INVALID_REQUEST;
        }
        *per_broker = false;
        return GR_KERR_NONE;
    }
    s = gr_arena_strndup(a, name->ptr, (size_t)name->len);
    if (s == NULL) {
        *msg = "Out of memory";
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    id = strtol(s, &end, 10);
    if (*end != '\0' || end == s) {
        *msg = gr_arena_printf(a,
                               "Broker id must be an integer, but it is: "
                               "%s",
                               s);
        return GR_KERR_INVALID_REQUEST;
    }
    if (id != b->node_id) {
        *msg = logger ? gr_arena_printf(a,
                                        "Unexpected broker id, expected %d "
                                        "but received %s",
                                        b->node_id, s)
                      : gr_arena_printf(a,
                                        "Unexpected broker id, expected %d "
                                        "or empty string, but received %s",
                                        b->node_id, s);
        return GR_KERR_INVALID_REQUEST;
    }
    *per_broker = true;
    return GR_KERR_NONE;
}

/* --- changes */

/* value with items added (APPEND) or removed (SUBTRACT), in a. */
static char *
list_edit(gr_arena_t *a, const char *cur, const char *items, bool append)
{
    char *out = gr_arena_strndup(a, "", 0), *tmp, *tok, *save = NULL;
    char *curcopy = gr_arena_strndup(a, cur ? cur : "", cur ? strlen(cur) : 0);
    char *itcopy = gr_arena_strndup(a, items, strlen(items));
    const char *sep = "";

    if (out == NULL || curcopy == NULL || itcopy == NULL)
        return NULL;
    /* the current items, less those subtracted */
    for (tmp = curcopy; (tok = strtok_r(tmp, ",", &save)) != NULL; tmp = NULL) {
        char *it, *s2 = NULL, *ic;
        bool drop = false;
        while (*tok == ' ')
            tok++;
        if (!*tok)
            continue;
        if (!append) {
            ic = gr_arena_strndup(a, items, strlen(items));
            for (it = strtok_r(ic, ",", &s2); it;
                 it = strtok_r(NULL, ",", &s2)) {
                while (*it == ' ')
                    it++;
                if (strcmp(it, tok) == 0)
                    drop = true;
            }
        }
        if (!drop) {
            out = gr_arena_printf(a, "%s%s%s", out, sep, tok);
            sep = ",";
        }
    }
    if (append) {
        for (tmp = itcopy; (tok = strtok_r(tmp, ",", &save)) != NULL;
             tmp = NULL) {
            char needle[512];
            while (*tok == ' ')
                tok++;
            snprintf(needle, sizeof needle, ",%s,", tok);
            if (!*tok || strstr(gr_arena_printf(a, ",%s,", out), needle))
                continue;
            out = gr_arena_printf(a, "%s%s%s", out, sep, tok);
            sep = ",";
        }
    }
    return out;
}

static gr_kerr_t
dup_keys(const gr_config_change_t *ch, int n, gr_arena_t *a, const char **msg)
{
    gr_str_t *keys = gr_arena_alloc(a, (size_t)(n > 0 ? n : 1) * sizeof(*keys));
    bool *dup = NULL;

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
    return GR_KERR_NONE;
}

/* Applies ch to *list (a copy the caller owns); cur() gives a key's
 * current effective value for APPEND/SUBTRACT. */
typedef const char *(*current_fn)(void *arg, const char *key, char *buf,
                                  size_t n);
typedef const char *(*check_fn)(void *arg, const char *key, const char *value,
                                gr_kerr_t *err, gr_arena_t *a);

static gr_kerr_t
apply_changes(gr_topic_config_t **list, const gr_config_change_t *ch, int n,
              gr_tcfg_type_t (*type_of)(const char *key), current_fn cur,
              check_fn check, void *arg, gr_arena_t *a, const char **msg)
{
    for (int i = 0; i < n; i++) {
        const char *key = ch[i].key, *value = ch[i].value, *why;
        char buf[256];
        gr_kerr_t err = GR_KERR_NONE;

        switch (ch[i].op) {
        case GR_CONFIG_SET:
            if (value == NULL) {
                *msg = gr_arena_printf(a, "Null value not supported for : %s",
                                       key);
                return GR_KERR_INVALID_REQUEST;
            }
            break;
        case GR_CONFIG_DELETE:
            value = NULL;
            break;
        case GR_CONFIG_APPEND:
        case GR_CONFIG_SUBTRACT: {
            const char *c;
            if (type_of(key) != GR_TCFG_LIST) {
                *msg = gr_arena_printf(
                    a, "Config value %s is not allowed for config key: %s",
                    ch[i].op == GR_CONFIG_APPEND ? "append" : "subtract", key);
                return GR_KERR_INVALID_CONFIG;
            }
            if (value == NULL) {
                *msg = gr_arena_printf(a, "Null value not supported for : %s",
                                       key);
                return GR_KERR_INVALID_REQUEST;
            }
            c = gr_config_list_get(*list, key);
            if (c == NULL)
                c = cur(arg, key, buf, sizeof buf);
            value = list_edit(a, c, value, ch[i].op == GR_CONFIG_APPEND);
            if (value == NULL) {
                *msg = "Out of memory";
                return GR_KERR_UNKNOWN_SERVER_ERROR;
            }
            break;
        }
        }
        why = check(arg, key, value, &err, a);
        if (why != NULL) {
            *msg = why;
            return err;
        }
        if (gr_config_list_set(list, key, value) != 0) {
            *msg = "Out of memory";
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        }
    }
    return GR_KERR_NONE;
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

static gr_tcfg_type_t
topic_type(const char *key)
{
    const gr_topic_config_def_t *d = gr_topic_config_def_find(key);
    return d ? d->type : GR_TCFG_UNKNOWN;
}

typedef struct topic_arg {
    gr_broker_t *b;
    gr_topic_t *t;
} topic_arg_t;

static const char *
topic_current(void *arg, const char *key, char *buf, size_t n)
{
    topic_arg_t *ta = arg;
    return gr_topic_config_value(ta->b->conf, ta->t, key, buf, n);
}

static const char *
topic_check(void *arg, const char *key, const char *value, gr_kerr_t *err,
            gr_arena_t *a)
{
    const char *why;
    (void)arg;
    if (value == NULL) {
        if (gr_topic_config_def_find(key) != NULL)
            return NULL;
        why = gr_topic_config_check(key, "");
    } else {
        why = gr_topic_config_check(key, value);
    }
    *err = GR_KERR_INVALID_CONFIG;
    return why ? gr_arena_strndup(a, why, strlen(why)) : NULL;
}

gr_kerr_t
gr_configs_alter_topic(gr_broker_t *b, gr_topic_t *t,
                       const gr_config_change_t *ch, int n, bool replace,
                       bool validate_only, gr_arena_t *a, const char **msg)
{
    topic_arg_t ta = { b, t };
    gr_topic_config_t *list, *old;
    gr_kerr_t err;
    bool oom;

    if (!replace && (err = dup_keys(ch, n, a, msg)) != GR_KERR_NONE)
        return err;
    list = replace ? NULL : list_copy(t->configs, &oom);
    if (!replace && oom) {
        gr_config_list_free(&list);
        *msg = "Out of memory";
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    err = apply_changes(&list, ch, n, topic_type, topic_current, topic_check,
                        &ta, a, msg);
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
    gr_config_list_free(&old);
    gr_broker_topic_config_changed(b, t);
    GR_LOG_INFO("topic %s: configuration changed", t->name);
    for (int i = 0; i < n; i++)
        if (ch[i].op != GR_CONFIG_DELETE)
            gr_configs_note_legacy(t, ch[i].key);
    return GR_KERR_NONE;
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

static gr_tcfg_type_t
broker_type(const char *key)
{
    int id = gr_conf_lookup(key);
    return id < 0 ? GR_TCFG_UNKNOWN : gr_broker_config_def(id)->type;
}

static const char *
broker_current(void *arg, const char *key, char *buf, size_t n)
{
    gr_broker_t *b = arg;
    const char *v = gr_conf_str(b->conf, gr_conf_lookup(key));
    snprintf(buf, n, "%s", v ? v : "");
    return buf;
}

static const char *
broker_check(void *arg, const char *key, const char *value, gr_kerr_t *err,
             gr_arena_t *a)
{
    int id = gr_conf_lookup(key);
    const char *why;
    (void)arg;
    if (id < 0 || gr_broker_config_def(id)->scope != GR_BCFG_DYNAMIC) {
        *err = GR_KERR_INVALID_REQUEST;
        return gr_arena_printf(a,
                               "Cannot update these configs dynamically: "
                               "Set(%s)",
                               key);
    }
    if (value == NULL)
        return NULL;
    why = gr_broker_config_check(id, value);
    *err = GR_KERR_INVALID_CONFIG;
    return why ? gr_arena_strndup(a, why, strlen(why)) : NULL;
}

gr_kerr_t
gr_configs_alter_broker(gr_broker_t *b, bool per_broker,
                        const gr_config_change_t *ch, int n, bool replace,
                        bool validate_only, gr_arena_t *a, const char **msg)
{
    gr_cluster_t *c = b->cluster;
    gr_topic_config_t **target =
        per_broker ? &c->broker_configs : &c->default_broker_configs;
    gr_topic_config_t *list, *old;
    gr_kerr_t err;
    bool oom;

    if (!replace && (err = dup_keys(ch, n, a, msg)) != GR_KERR_NONE)
        return err;
    list = replace ? NULL : list_copy(*target, &oom);
    if (!replace && oom) {
        gr_config_list_free(&list);
        *msg = "Out of memory";
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    err = apply_changes(&list, ch, n, broker_type, broker_current, broker_check,
                        b, a, msg);
    if (err != GR_KERR_NONE || validate_only) {
        gr_config_list_free(&list);
        return err;
    }
    old = *target;
    *target = list;
    err = gr_cluster_store_broker_config(c, per_broker);
    if (err != GR_KERR_NONE) {
        *target = old;
        gr_config_list_free(&list);
        *msg = "The broker configuration could not be persisted.";
        return err;
    }
    gr_config_list_free(&old);
    gr_broker_config_changed(b);
    GR_LOG_INFO("dynamic broker configuration (%s) changed",
                per_broker ? "this broker" : "cluster default");
    return GR_KERR_NONE;
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
    gr_kerr_t err;

    if ((err = dup_keys(ch, n, a, msg)) != GR_KERR_NONE)
        return err;
    for (int i = 0; i < n; i++) {
        if (strcmp(ch[i].key, "root") != 0) {
            *msg = gr_arena_printf(a, "Logger %s does not exist", ch[i].key);
            return GR_KERR_INVALID_CONFIG;
        }
        switch (ch[i].op) {
        case GR_CONFIG_SET:
            if (ch[i].value != NULL && strcmp(ch[i].value, "FATAL") == 0)
                level = GR_LOG_LEVEL_ERROR;
            for (int k = 0; k < 5 && ch[i].value; k++)
                if (strcmp(ch[i].value, level_names[k]) == 0)
                    level = k;
            if (level < 0) {
                *msg = gr_arena_printf(
                    a,
                    "Cannot set the log level of root to %s as it is not a "
                    "supported log level. Valid log levels are FATAL, ERROR, "
                    "WARN, INFO, DEBUG, TRACE",
                    ch[i].value ? ch[i].value : "null");
                return GR_KERR_INVALID_CONFIG;
            }
            break;
        case GR_CONFIG_DELETE:
            *msg = "Removing the log level of the root logger is not allowed";
            return GR_KERR_INVALID_REQUEST;
        case GR_CONFIG_APPEND:
        case GR_CONFIG_SUBTRACT:
            *msg = gr_arena_printf(a,
                                   "%s operation is not allowed for the "
                                   "BROKER_LOGGER resource",
                                   ch[i].op == GR_CONFIG_APPEND ? "APPEND"
                                                                : "SUBTRACT");
            return GR_KERR_INVALID_REQUEST;
        }
    }
    if (!validate_only && level >= 0) {
        gr_log_level = level;
        GR_LOG_INFO("log level set to %s", level_names[level]);
    }
    return GR_KERR_NONE;
}
