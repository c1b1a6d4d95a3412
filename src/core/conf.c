/*
 * Configuration: see conf.h. Values are kept as strings (what the user wrote)
 * and checked once in gr_conf_finish(), which also parses numbers.
 */
#include "core/conf.h"
#include "core/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum ctype { INT, BOOL, STRING, LIST, PASSWORD };

typedef struct key_info {
    const char *name;
    enum ctype type;
    const char *def;
    int64_t min;
    int64_t max;
} key_info_t;

static const key_info_t keys[GR_CONF__COUNT] = {
#define X(id, name, type, def, min, max) {name, type, def, min, max},
#include "core/conf.def"
#undef X
};

static const char *const kafka_keys[] = {
#define K(name) name,
#define T(name)
#include "core/kafka_keys.def"
#undef K
#undef T
};

typedef struct extra {
    struct extra *next;
    char *key;
    char *value;
} extra_t;

struct gr_conf {
    char *vals[GR_CONF__COUNT]; /* user values; NULL: default */
    int64_t ints[GR_CONF__COUNT]; /* parsed effective values */
    extra_t *extras; /* keys Gregor does not implement */
    /* dynamic values ([GR_CONF_DYNAMIC_BROKER], [GR_CONF_DYNAMIC_DEFAULT]),
     * set at run time; they win over vals */
    char *dyn[2][GR_CONF__COUNT];
};

gr_conf_t *
gr_conf_new(void)
{
    return calloc(1, sizeof(gr_conf_t));
}

void
gr_conf_destroy(gr_conf_t *conf)
{
    extra_t *e, *next;
    if (conf == NULL)
        return;
    for (int i = 0; i < GR_CONF__COUNT; i++) {
        free(conf->vals[i]);
        free(conf->dyn[0][i]);
        free(conf->dyn[1][i]);
    }
    for (e = conf->extras; e; e = next) {
        next = e->next;
        free(e->key);
        free(e->value);
        free(e);
    }
    free(conf);
}

int
gr_conf_lookup(const char *name)
{
    for (int i = 0; i < GR_CONF__COUNT; i++)
        if (strcmp(keys[i].name, name) == 0)
            return i;
    return -1;
}

const char *
gr_conf_name(gr_conf_id_t id)
{
    return keys[id].name;
}

int
gr_conf_set(gr_conf_t *conf, const char *key, const char *value)
{
    int i = gr_conf_lookup(key);
    char *v = strdup(value);
    if (v == NULL)
        return -1;
    if (i >= 0) {
        free(conf->vals[i]);
        conf->vals[i] = v;
        return 0;
    }
    for (extra_t *e = conf->extras; e; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            free(e->value);
            e->value = v;
            return 0;
        }
    }
    extra_t *e = calloc(1, sizeof(*e));
    if (e == NULL || (e->key = strdup(key)) == NULL) {
        free(e);
        free(v);
        return -1;
    }
    e->value = v;
    /* keep file order for the log lines */
    extra_t **pp = &conf->extras;
    while (*pp)
        pp = &(*pp)->next;
    *pp = e;
    return 0;
}

static char *
trim(char *s)
{
    char *end;
    while (*s == ' ' || *s == '\t' || *s == '\f')
        s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' ||
                       end[-1] == '\n' || end[-1] == '\f'))
        *--end = '\0';
    return s;
}

int
gr_conf_set_kv(gr_conf_t *conf, const char *kv)
{
    char *copy = strdup(kv), *eq, *k, *v;
    int rc;
    if (copy == NULL)
        return -1;
    eq = strchr(copy, '=');
    if (eq == NULL || eq == copy) {
        free(copy);
        return -1;
    }
    *eq = '\0';
    k = trim(copy);
    v = trim(eq + 1);
    rc = *k ? gr_conf_set(conf, k, v) : -1;
    free(copy);
    return rc;
}

/* Java properties unescaping of one logical line, in place. */
static void
unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (*s != '\\' || s[1] == '\0') {
            *o++ = *s;
            continue;
        }
        s++;
        switch (*s) {
        case 't':
            *o++ = '\t';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 'f':
            *o++ = '\f';
            break;
        default:
            *o++ = *s;
        }
    }
    *o = '\0';
}

int
gr_conf_load_file(gr_conf_t *conf, const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, *logical = NULL;
    size_t cap = 0, llen = 0;
    ssize_t n;
    int rc = 0, lineno = 0;

    if (f == NULL) {
        GR_LOG_ERROR("cannot open config file %s: %s", path, strerror(errno));
        return -1;
    }
    while ((n = getline(&line, &cap, f)) >= 0) {
        char *s, *k, *v, *p;
        size_t slen;
        int cont;

        lineno++;
        s = line;
        /* a continuation line drops its leading blanks */
        if (llen == 0) {
            s = trim(s);
            if (*s == '#' || *s == '!' || *s == '\0')
                continue;
        } else {
            s = trim(s);
        }
        slen = strlen(s);
        /* an odd number of trailing backslashes continues the line */
        {
            size_t bs = 0;
            while (bs < slen && s[slen - 1 - bs] == '\\')
                bs++;
            cont = bs % 2 == 1;
            if (cont)
                s[--slen] = '\0';
        }
        p = realloc(logical, llen + slen + 1);
        if (p == NULL) {
            rc = -1;
            break;
        }
        logical = p;
        memcpy(logical + llen, s, slen + 1);
        llen += slen;
        if (cont)
            continue;
        llen = 0;
        /* key ends at the first unescaped '=', ':' or blank */
        k = logical;
        for (p = k; *p; p++) {
            if (*p == '\\' && p[1]) {
                p++;
                continue;
            }
            if (*p == '=' || *p == ':' || *p == ' ' || *p == '\t')
                break;
        }
        v = p;
        if (*v) {
            *v++ = '\0';
            while (*v == ' ' || *v == '\t')
                v++;
            if (v[-1] != '=' && v[-1] != ':' && (*v == '=' || *v == ':'))
                v++;
            v = trim(v);
        }
        unescape(k);
        unescape(v);
        if (gr_conf_set(conf, k, v) != 0) {
            GR_LOG_ERROR("%s:%d: cannot store %s", path, lineno, k);
            rc = -1;
            break;
        }
    }
    free(line);
    free(logical);
    fclose(f);
    return rc;
}

static int
parse_int(const char *s, int64_t *out)
{
    char *end;
    long long v;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || *trim(end) != '\0')
        return -1;
    *out = v;
    return 0;
}

static int
parse_bool(const char *s)
{
    if (strcasecmp(s, "true") == 0)
        return 1;
    if (strcasecmp(s, "false") == 0)
        return 0;
    return -1;
}

static int
is_kafka_key(const char *k)
{
    for (size_t i = 0; i < sizeof kafka_keys / sizeof kafka_keys[0]; i++)
        if (strcmp(kafka_keys[i], k) == 0)
            return 1;
    /* listener-prefixed security settings: listener.name.<l>.<key> */
    if (strncmp(k, "listener.name.", 14) == 0)
        return 1;
    return 0;
}

/* gregor.temp.data=true (--temp-data) is for a broker that lives as long
 * as a test run: these keys, unless given, take the values test setups
 * give Kafka (Testcontainers' among them): a consumer group's first
 * rebalance does not wait 3 s for more members, and the internal topics
 * are made with one partition each instead of 50; and Gregor's control
 * listener (src/control/) is on, on loopback. */
static const struct {
    gr_conf_id_t id;
    const char *value;
} test_defaults[] = {
    { GR_CONF_GROUP_INITIAL_REBALANCE_DELAY_MS, "0" },
    { GR_CONF_OFFSETS_TOPIC_NUM_PARTITIONS, "1" },
    { GR_CONF_TRANSACTION_STATE_LOG_NUM_PARTITIONS, "1" },
    /* Gregor's own: a test broker has its control listener on loopback */
    { GR_CONF_GREGOR_CONTROL_LISTENER, "http://127.0.0.1:0" },
};

static void
apply_test_defaults(gr_conf_t *conf)
{
    const char *v = conf->vals[GR_CONF_GREGOR_TEMP_DATA];
    if (v == NULL || parse_bool(v) != 1)
        return;
    for (size_t i = 0; i < sizeof test_defaults / sizeof test_defaults[0];
         i++) {
        gr_conf_id_t id = test_defaults[i].id;
        if (conf->vals[id] != NULL)
            continue; /* given: it wins */
        if ((conf->vals[id] = strdup(test_defaults[i].value)) == NULL)
            continue; /* Kafka's default then */
        GR_LOG_INFO("gregor.temp.data: %s=%s (a test broker's default; "
                    "set it to override)",
                    keys[id].name, conf->vals[id]);
    }
}

int
gr_conf_finish(gr_conf_t *conf)
{
    int rc = 0;
    apply_test_defaults(conf);
    for (int i = 0; i < GR_CONF__COUNT; i++) {
        const char *v = conf->vals[i] ? conf->vals[i] : keys[i].def;
        if (v == NULL)
            continue;
        switch (keys[i].type) {
        case INT: {
            int64_t x;
            if (parse_int(v, &x) != 0 || x < keys[i].min || x > keys[i].max) {
                GR_LOG_ERROR("invalid value %s for configuration %s: expected "
                             "an integer in [%lld, %lld]",
                             v, keys[i].name, (long long)keys[i].min,
                             (long long)keys[i].max);
                rc = -1;
            } else {
                conf->ints[i] = x;
            }
            break;
        }
        case BOOL: {
            int b = parse_bool(v);
            if (b < 0) {
                GR_LOG_ERROR("invalid value %s for configuration %s: expected "
                             "true or false",
                             v, keys[i].name);
                rc = -1;
            } else {
                conf->ints[i] = b;
            }
            break;
        }
        case STRING:
        case LIST:
        case PASSWORD:
            break;
        }
    }
    if (rc == 0 && conf->ints[GR_CONF_TRANSACTION_TWO_PHASE_COMMIT_ENABLE]) {
        GR_LOG_ERROR("transaction.two.phase.commit.enable=true: Gregor has "
                     "no two-phase commit transactions (KIP-939); leave it "
                     "false (InitProducerId with enable2Pc is then refused, "
                     "as Kafka refuses it)");
        rc = -1;
    }
    if (rc == 0) {
        char msg[512];
        const char *ov = gr_conf_str(conf, GR_CONF_MAX_CONNECTIONS_PER_IP_OVERRIDES);
        if (gr_conf_ip_overrides(ov, NULL, NULL, msg, sizeof msg) != NULL) {
            GR_LOG_ERROR("invalid value %s for configuration %s: %s", ov,
                         keys[GR_CONF_MAX_CONNECTIONS_PER_IP_OVERRIDES].name,
                         msg);
            rc = -1;
        } else if (conf->ints[GR_CONF_MAX_CONNECTIONS_PER_IP] == 0 &&
                   (ov == NULL || ov[0] == '\0')) {
            /* KafkaConfig.validateValues */
            GR_LOG_ERROR("max.connections.per.ip can be set to zero only if "
                         "max.connections.per.ip.overrides property is set.");
            rc = -1;
        }
    }
    for (extra_t *e = conf->extras; e; e = e->next) {
        char msg[512];
        int base = gr_conf_listener_key(e->key, NULL, 0);
        if (base >= 0) {
            /* a listener's own limit, of its base key's type and range */
            if (gr_conf_check((gr_conf_id_t)base, e->value, msg,
                              sizeof msg) != NULL) {
                GR_LOG_ERROR("invalid value %s for configuration %s: "
                             "expected an integer in [%lld, %lld]",
                             e->value, e->key, (long long)keys[base].min,
                             (long long)keys[base].max);
                rc = -1;
            }
            continue;
        }
        const char *dot = strncmp(e->key, "listener.name.", 14) == 0
                              ? strchr(e->key + 14, '.')
                              : NULL;
        /* listener.name.<l>.<key> of a key Gregor implements: the
         * listener's own value (the ssl.* of net/tls.c) */
        if (dot != NULL && gr_conf_lookup(dot + 1) >= 0)
            continue;
        /* listener.name.<l>.<mechanism>.<key>: a SASL mechanism's own
         * sasl.jaas.config or connections.max.reauth.ms (net/sasl.c) */
        if (dot != NULL && strchr(dot + 1, '.') != NULL &&
            (!strcmp(strchr(dot + 1, '.') + 1, "sasl.jaas.config") ||
             !strcmp(strchr(dot + 1, '.') + 1, "connections.max.reauth.ms")))
            continue;
        /* listener.name.<l>.oauthbearer.<key>: OAUTHBEARER's own value of
         * a key Gregor implements (net/sasl_oauth.c checks it) */
        if (dot != NULL && strncmp(dot + 1, "oauthbearer.", 12) == 0 &&
            gr_conf_lookup(dot + 13) >= 0)
            continue;
        if (is_kafka_key(e->key))
            GR_LOG_INFO("configuration %s is a Kafka setting Gregor does not "
                        "use; ignored",
                        e->key);
        else
            GR_LOG_WARN("the configuration '%s' was supplied but isn't a "
                        "known config",
                        e->key);
    }
    return rc;
}

int64_t
gr_conf_int(const gr_conf_t *conf, gr_conf_id_t id)
{
    return conf->ints[id];
}

bool
gr_conf_bool(const gr_conf_t *conf, gr_conf_id_t id)
{
    return conf->ints[id] != 0;
}

/* The value given by the user in any layer, NULL when only defaulted. */
static const char *
user_value(const gr_conf_t *conf, int id)
{
    if (conf->dyn[GR_CONF_DYNAMIC_BROKER][id])
        return conf->dyn[GR_CONF_DYNAMIC_BROKER][id];
    if (conf->dyn[GR_CONF_DYNAMIC_DEFAULT][id])
        return conf->dyn[GR_CONF_DYNAMIC_DEFAULT][id];
    return conf->vals[id];
}

const char *
gr_conf_str(const gr_conf_t *conf, gr_conf_id_t id)
{
    const char *v = user_value(conf, id);
    return v ? v : keys[id].def;
}

bool
gr_conf_is_set(const gr_conf_t *conf, gr_conf_id_t id)
{
    return gr_conf_str(conf, id) != NULL;
}

const char *
gr_conf_layer_str(const gr_conf_t *conf, gr_conf_id_t id, gr_conf_layer_t layer)
{
    switch (layer) {
    case GR_CONF_DYNAMIC_BROKER:
    case GR_CONF_DYNAMIC_DEFAULT:
        return conf->dyn[layer][id];
    case GR_CONF_STATIC:
        return conf->vals[id];
    case GR_CONF_DEFAULT:
        return keys[id].def;
    }
    return NULL;
}

const char *
gr_conf_check(gr_conf_id_t id, const char *value, char *msg, size_t n)
{
    int64_t x;
    switch (keys[id].type) {
    case INT:
        if (parse_int(value, &x) != 0) {
            snprintf(msg, n,
                     "Invalid value %s for configuration %s: Not a number",
                     value, keys[id].name);
            return msg;
        }
        if (x < keys[id].min || x > keys[id].max) {
            snprintf(msg, n,
                     "Invalid value %s for configuration %s: Value must be "
                     "in [%lld, %lld]",
                     value, keys[id].name, (long long)keys[id].min,
                     (long long)keys[id].max);
            return msg;
        }
        return NULL;
    case BOOL:
        if (parse_bool(value) < 0) {
            snprintf(msg, n,
                     "Invalid value %s for configuration %s: Expected value "
                     "to be either true or false",
                     value, keys[id].name);
            return msg;
        }
        return NULL;
    case STRING:
    case LIST:
    case PASSWORD:
        return NULL;
    }
    return NULL;
}

int
gr_conf_set_dynamic(gr_conf_t *conf, gr_conf_layer_t layer, gr_conf_id_t id,
                    const char *value)
{
    char msg[256], *v = NULL;
    const char *eff;
    GR_ASSERT(layer == GR_CONF_DYNAMIC_BROKER ||
              layer == GR_CONF_DYNAMIC_DEFAULT);
    if (value != NULL) {
        if (gr_conf_check(id, value, msg, sizeof msg) != NULL)
            return -1;
        if ((v = strdup(value)) == NULL)
            return -1;
    }
    free(conf->dyn[layer][id]);
    conf->dyn[layer][id] = v;
    /* the parsed effective value follows */
    eff = gr_conf_str(conf, id);
    if (eff != NULL && keys[id].type == INT)
        parse_int(eff, &conf->ints[id]);
    else if (eff != NULL && keys[id].type == BOOL)
        conf->ints[id] = parse_bool(eff) == 1;
    else
        conf->ints[id] = 0;
    return 0;
}

bool
gr_conf_extra_at(const gr_conf_t *conf, int i, const char **key,
                 const char **value)
{
    const extra_t *e = conf->extras;
    while (e != NULL && i-- > 0)
        e = e->next;
    if (e == NULL)
        return false;
    *key = e->key;
    *value = e->value;
    return true;
}

const char *
gr_conf_extra_get(const gr_conf_t *conf, const char *key)
{
    for (const extra_t *e = conf->extras; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e->value;
    return NULL;
}

bool
gr_conf_is_sensitive(gr_conf_id_t id)
{
    return keys[id].type == PASSWORD;
}

bool
gr_conf_is_kafka_key(const char *name)
{
    return is_kafka_key(name);
}

int64_t
gr_conf_retention_ms(const gr_conf_t *conf)
{
    int64_t v;
    if (user_value(conf, GR_CONF_LOG_RETENTION_MS))
        v = conf->ints[GR_CONF_LOG_RETENTION_MS];
    else if (user_value(conf, GR_CONF_LOG_RETENTION_MINUTES))
        v = conf->ints[GR_CONF_LOG_RETENTION_MINUTES] * 60000;
    else
        v = conf->ints[GR_CONF_LOG_RETENTION_HOURS] * 3600000;
    return v < 0 ? -1 : v;
}

int64_t
gr_conf_roll_ms(const gr_conf_t *conf)
{
    if (user_value(conf, GR_CONF_LOG_ROLL_MS))
        return conf->ints[GR_CONF_LOG_ROLL_MS];
    return conf->ints[GR_CONF_LOG_ROLL_HOURS] * 3600000;
}

int32_t
gr_conf_node_id(const gr_conf_t *conf)
{
    if (conf->ints[GR_CONF_NODE_ID] >= 0)
        return (int32_t)conf->ints[GR_CONF_NODE_ID];
    if (conf->ints[GR_CONF_BROKER_ID] >= 0)
        return (int32_t)conf->ints[GR_CONF_BROKER_ID];
    return 1;
}

const char *
gr_conf_log_dir(const gr_conf_t *conf)
{
    static _Thread_local char first[4096]; /* brokers of one process */
    const char *v = gr_conf_str(conf, GR_CONF_LOG_DIRS);
    const char *items[1];
    if (v && gr_conf_list_split(v, first, sizeof first, items, 1) == 1)
        return items[0];
    return gr_conf_str(conf, GR_CONF_LOG_DIR);
}

/* Java's Character.isWhitespace for the ASCII blanks of regex \s. */
static int
is_jspace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
}

/* [p, p + *len) without the characters <= ' ' at both ends (String.trim). */
static const char *
jtrim_range(const char *p, size_t *len)
{
    while (*len > 0 && (unsigned char)*p <= ' ') {
        p++;
        (*len)--;
    }
    while (*len > 0 && (unsigned char)p[*len - 1] <= ' ')
        (*len)--;
    return p;
}

/* Integer.parseInt of [p, p + len): 0, or -1 (NumberFormatException). */
static int
java_parse_int(const char *p, size_t len, int32_t *out)
{
    int64_t v = 0;
    size_t i = 0;
    bool neg = false;
    if (len > 0 && (p[0] == '+' || p[0] == '-')) {
        neg = p[0] == '-';
        i = 1;
    }
    if (i == len)
        return -1;
    for (; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (p[i] - '0');
        if (v > (int64_t)INT32_MAX + 1)
            return -1;
    }
    if (neg)
        v = -v;
    if (v < INT32_MIN || v > INT32_MAX)
        return -1;
    *out = (int32_t)v;
    return 0;
}

/* Utils.validHostPattern: [0-9a-zA-Z\-%._:]* */
static bool
valid_host_pattern(const char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = p[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
              (c >= 'A' && c <= 'Z') || c == '-' || c == '%' || c == '.' ||
              c == '_' || c == ':'))
            return false;
    }
    return true;
}

/* The next item of a String.split("\\s*,\\s*") of v (vlen bytes) from
 * *pos: a match starts at the blanks before the next comma and ends after
 * the blanks behind it. false after the last item. */
static bool
split_next(const char *v, size_t vlen, size_t *pos, const char **item,
           size_t *len)
{
    const char *c;
    size_t start, end;
    if (*pos > vlen)
        return false;
    c = memchr(v + *pos, ',', vlen - *pos);
    if (c == NULL) {
        *item = v + *pos;
        *len = vlen - *pos;
        *pos = vlen + 1;
        return true;
    }
    start = end = (size_t)(c - v);
    while (start > *pos && is_jspace(v[start - 1]))
        start--;
    end++;
    while (end < vlen && is_jspace(v[end]))
        end++;
    *item = v + *pos;
    *len = start - *pos;
    *pos = end;
    return true;
}

/* Whether v has an item after *pos that is not empty (split drops the
 * trailing empty ones). */
static bool
more_items(const char *v, size_t vlen, size_t pos)
{
    for (; pos < vlen; pos++)
        if (v[pos] != ',' && !is_jspace(v[pos]))
            return true;
    return false;
}

const char *
gr_conf_ip_overrides(const char *value, gr_conf_override_fn fn, void *arg,
                     char *msg, size_t n)
{
    const char *key = keys[GR_CONF_MAX_CONNECTIONS_PER_IP_OVERRIDES].name;
    size_t vlen;
    char host[256];

    if (value == NULL || value[0] == '\0')
        return NULL; /* Csv.parseCsvMap: an empty map */
    vlen = strlen(value);
    /* parseCsvMap (every item needs a colon), then the counts
     * (Integer.parseInt), then the hosts (validHostPattern), then fn */
    for (int pass = 0; pass < 4; pass++) {
        const char *it;
        size_t pos = 0, len;
        while (split_next(value, vlen, &pos, &it, &len)) {
            const char *colon = NULL, *h, *c;
            size_t hlen, clen;
            int32_t count = 0;
            if (len == 0 && !more_items(value, vlen, pos))
                break;
            for (size_t k = 0; k < len; k++)
                if (it[k] == ':')
                    colon = it + k;
            if (colon == NULL) {
                snprintf(msg, n,
                         "Error parsing configuration property '%s': begin "
                         "0, end -1, length %zu",
                         key, len);
                return msg;
            }
            if (pass == 0)
                continue;
            hlen = (size_t)(colon - it);
            clen = len - hlen - 1;
            h = jtrim_range(it, &hlen);
            c = jtrim_range(colon + 1, &clen);
            if (java_parse_int(c, clen, &count) != 0) {
                snprintf(msg, n, "For input string: \"%.*s\"", (int)clen, c);
                return msg;
            }
            if (pass == 2 && !valid_host_pattern(h, hlen)) {
                snprintf(msg, n, "%s contains invalid addresses : %.*s", key,
                         (int)hlen, h);
                return msg;
            }
            if (pass == 3 && fn != NULL) {
                if (hlen >= sizeof host)
                    hlen = sizeof host - 1;
                memcpy(host, h, hlen);
                host[hlen] = '\0';
                fn(host, count, arg);
            }
        }
    }
    return NULL;
}

int
gr_conf_listener_key(const char *key, char *listener, size_t n)
{
    static const gr_conf_id_t bases[] = { GR_CONF_MAX_CONNECTIONS,
                                          GR_CONF_MAX_CONNECTION_CREATION_RATE };
    const char *l, *dot;
    if (strncmp(key, "listener.name.", 14) != 0)
        return -1;
    l = key + 14;
    /* LISTENER_CONFIG_REGEX: listener\.name\.[^.]*\.(.*) */
    if ((dot = strchr(l, '.')) == NULL)
        return -1;
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        if (strcmp(dot + 1, keys[bases[i]].name) != 0)
            continue;
        if (listener != NULL && n > 0) {
            size_t len = (size_t)(dot - l) < n - 1 ? (size_t)(dot - l) : n - 1;
            memcpy(listener, l, len);
            listener[len] = '\0';
        }
        return (int)bases[i];
    }
    return -1;
}

int
gr_conf_list_split(const char *value, char *buf, size_t bufsize,
                   const char **items, int max)
{
    int n = 0;
    char *s, *tok, *save = NULL;
    if (value == NULL || strlen(value) >= bufsize)
        return 0;
    strcpy(buf, value);
    for (s = buf; (tok = strtok_r(s, ",", &save)) != NULL; s = NULL) {
        tok = trim(tok);
        if (*tok && n < max)
            items[n++] = tok;
    }
    return n;
}
