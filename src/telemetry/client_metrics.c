/*
 * CLIENT_METRICS configs: see client_metrics.h. Parsing and messages
 * follow Kafka's ConfigDef (parseType, ValidList.anyNonDuplicateValues),
 * ClientMetricsConfigs.validate and parseMatchingPatterns; the order in
 * which they are checked is Kafka's: unknown keys, then metrics,
 * interval.ms and match as ConfigDef defines them, then the interval's
 * range, then the match items.
 */
#include "telemetry/client_metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const attr_names[GR_CM_NATTRS] = {
    "client_instance_id",      "client_id",
    "client_software_name",    "client_software_version",
    "client_source_address",   "client_source_port",
};

const char *
gr_cm_attr_name(gr_cm_attr_t a)
{
    return a < GR_CM_NATTRS ? attr_names[a] : NULL;
}

static const struct {
    const char *name;
    int type; /* topic_config.h's gr_tcfg_type_t numbering */
    const char *doc;
} keys_tab[] = {
    /* Kafka's documentation strings (ClientMetricsConfigs) */
    { GR_CM_INTERVAL_MS, 3, "Metrics push interval in milliseconds" },
    { GR_CM_MATCH, 7, "Client match criteria" },
    { GR_CM_METRICS, 7, "Telemetry metric name prefix list" },
};

const char *
gr_cm_key_at(int i, int *type, const char **doc)
{
    if (i < 0 || (size_t)i >= sizeof keys_tab / sizeof keys_tab[0])
        return NULL;
    if (type)
        *type = keys_tab[i].type;
    if (doc)
        *doc = keys_tab[i].doc;
    return keys_tab[i].name;
}

/* --- Java's parsing */

/* String.trim(): what is at most ' ' goes from both ends. */
static void
java_trim(const char *s, size_t *start, size_t *end)
{
    size_t b = 0, e = strlen(s);
    while (b < e && (unsigned char)s[b] <= ' ')
        b++;
    while (e > b && (unsigned char)s[e - 1] <= ' ')
        e--;
    *start = b;
    *end = e;
}

static bool
java_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\x0b' || c == '\f' ||
           c == '\r';
}

/* ConfigDef's LIST: trimmed; "" is the empty list, else it is split at
 * \s*,\s* keeping empty items; then, as ConfigDef.parseValue does for a
 * ValidList (Kafka 4), duplicates go (the first stays). Items in a; their
 * count, or -1 (ENOMEM). */
static int
parse_list(const char *value, gr_arena_t *a, char ***out)
{
    size_t b, e, i, n = 1;
    char **items;
    int k = 0;

    java_trim(value, &b, &e);
    *out = NULL;
    if (b == e)
        return 0;
    for (i = b; i < e; i++)
        n += value[i] == ',';
    if ((items = gr_arena_alloc(a, n * sizeof(*items))) == NULL)
        return -1;
    for (i = b;;) {
        size_t j = i, ie;
        while (j < e && value[j] != ',')
            j++;
        ie = j;
        while (ie > i && java_space(value[ie - 1]))
            ie--;
        if ((items[k] = gr_arena_strndup(a, value + i, ie - i)) == NULL)
            return -1;
        k++;
        for (int d = 0; d < k - 1; d++)
            if (strcmp(items[d], items[k - 1]) == 0) {
                k--;
                break;
            }
        if (j == e)
            break;
        i = j + 1;
        while (i < e && java_space(value[i]))
            i++;
    }
    *out = items;
    return k;
}

/* ValidList.anyNonDuplicateValues(true, false) on a parsed list (whose
 * duplicates are gone already): NULL or the message. */
static const char *
check_list(const char *key, char **items, int n, gr_arena_t *a)
{
    for (int i = 0; i < n; i++)
        if (items[i][0] == '\0')
            return gr_arena_printf(a,
                                   "Configuration '%s' values must not be "
                                   "empty.",
                                   key);
    return NULL;
}

/* Integer.parseInt of the trimmed value: 0, or -1. */
static int
parse_int(const char *value, int32_t *out)
{
    size_t b, e, i;
    bool neg = false;
    int64_t v = 0;

    java_trim(value, &b, &e);
    i = b;
    if (i < e && (value[i] == '-' || value[i] == '+')) {
        neg = value[i] == '-';
        i++;
    }
    if (i == e)
        return -1;
    for (; i < e; i++) {
        if (value[i] < '0' || value[i] > '9')
            return -1;
        v = v * 10 + (value[i] - '0');
        if (v > (int64_t)INT32_MAX + 1)
            return -1;
    }
    if (neg)
        v = -v;
    if (v > INT32_MAX || v < INT32_MIN)
        return -1;
    *out = (int32_t)v;
    return 0;
}

/* One match item as parseMatchingPatterns splits it (String.split("="),
 * which drops trailing empty parts; exactly two parts, trimmed): 0 with
 * the selector and the regex (in a), or -1 (illegal). */
static int
split_match(const char *item, gr_arena_t *a, gr_cm_attr_t *attr,
            char **regex)
{
    size_t end = strlen(item), b, e, kb, ke;
    const char *eq;
    char *key, *v;

    while (end > 0 && item[end - 1] == '=')
        end--;
    eq = memchr(item, '=', end);
    if (eq == NULL || memchr(eq + 1, '=', end - (size_t)(eq + 1 - item)))
        return -1;
    if ((key = gr_arena_strndup(a, item, (size_t)(eq - item))) == NULL ||
        (v = gr_arena_strndup(a, eq + 1, end - (size_t)(eq + 1 - item))) ==
            NULL)
        return -1;
    java_trim(key, &kb, &ke);
    key[ke] = '\0';
    for (int i = 0; i < GR_CM_NATTRS; i++)
        if (strcmp(key + kb, attr_names[i]) == 0) {
            *attr = (gr_cm_attr_t)i;
            java_trim(v, &b, &e);
            v[e] = '\0';
            *regex = v + b;
            return 0;
        }
    return -1;
}

typedef struct parsed {
    char **metrics, **match;
    int nmetrics, nmatch;
    int32_t interval_ms;
    bool has_interval, has_match;
} parsed_t;

static const char *
find(const char *const *keys, const char *const *values, int n,
     const char *key)
{
    const char *v = NULL;
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], key) == 0)
            v = values[i];
    return v;
}

gr_kerr_t
gr_cm_validate(const char *name, const char *const *keys,
               const char *const *values, int n, gr_arena_t *a,
               const char **msg)
{
    parsed_t p = { NULL, NULL, 0, 0, GR_CM_INTERVAL_DEFAULT, false, false };
    const char *v, *why;

    if (name == NULL || name[0] == '\0') {
        *msg = "Subscription name can't be empty";
        return GR_KERR_INVALID_REQUEST;
    }
    for (int i = 0; i < n; i++)
        if (strcmp(keys[i], GR_CM_METRICS) != 0 &&
            strcmp(keys[i], GR_CM_INTERVAL_MS) != 0 &&
            strcmp(keys[i], GR_CM_MATCH) != 0) {
            *msg = gr_arena_printf(a,
                                   "Unknown client metrics configuration: %s",
                                   keys[i]);
            return GR_KERR_INVALID_REQUEST;
        }
    if ((v = find(keys, values, n, GR_CM_METRICS)) != NULL) {
        if ((p.nmetrics = parse_list(v, a, &p.metrics)) < 0)
            goto oom;
        if ((why = check_list(GR_CM_METRICS, p.metrics, p.nmetrics, a)) !=
            NULL) {
            *msg = why;
            return GR_KERR_INVALID_CONFIG;
        }
    }
    if ((v = find(keys, values, n, GR_CM_INTERVAL_MS)) != NULL) {
        p.has_interval = true;
        if (parse_int(v, &p.interval_ms) != 0) {
            *msg = gr_arena_printf(a,
                                   "Invalid value %s for configuration "
                                   "interval.ms: Not a number of type INT",
                                   v);
            return GR_KERR_INVALID_CONFIG;
        }
    }
    if ((v = find(keys, values, n, GR_CM_MATCH)) != NULL) {
        p.has_match = true;
        if ((p.nmatch = parse_list(v, a, &p.match)) < 0)
            goto oom;
        if ((why = check_list(GR_CM_MATCH, p.match, p.nmatch, a)) != NULL) {
            *msg = why;
            return GR_KERR_INVALID_CONFIG;
        }
    }
    if (p.has_interval && (p.interval_ms < GR_CM_INTERVAL_MIN ||
                           p.interval_ms > GR_CM_INTERVAL_MAX)) {
        *msg = gr_arena_printf(a,
                               "Invalid value %d for interval.ms, interval "
                               "must be between 100 and 3600000 (1 hour)",
                               (int)p.interval_ms);
        return GR_KERR_INVALID_REQUEST;
    }
    for (int i = 0; i < p.nmatch; i++) {
        gr_cm_attr_t attr;
        char *regex, why_re[160];
        gr_regex_t re;
        if (split_match(p.match[i], a, &attr, &regex) != 0 ||
            gr_regex_compile(&re, &(gr_str_t){ regex, (int32_t)strlen(regex) },
                             why_re, sizeof why_re) != 0) {
            *msg = gr_arena_printf(a, "Illegal client matching pattern: %s",
                                   p.match[i]);
            return GR_KERR_INVALID_CONFIG;
        }
        gr_regex_free(&re);
    }
    return GR_KERR_NONE;
oom:
    *msg = "Out of memory";
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

const char *
gr_cm_describe_value(const char *key, const char *value, gr_arena_t *a)
{
    char **items;
    int n;
    int32_t v;

    if (strcmp(key, GR_CM_INTERVAL_MS) == 0) {
        if (value == NULL || parse_int(value, &v) != 0)
            v = GR_CM_INTERVAL_DEFAULT;
        return gr_arena_printf(a, "%d", (int)v);
    }
    if (value == NULL)
        return "";
    if ((n = parse_list(value, a, &items)) < 0)
        return NULL;
    {
        size_t len = 0, o = 0;
        char *s;
        for (int i = 0; i < n; i++)
            len += strlen(items[i]) + 1;
        if ((s = gr_arena_alloc(a, len + 1)) == NULL)
            return NULL;
        for (int i = 0; i < n; i++) {
            size_t l = strlen(items[i]);
            if (i > 0)
                s[o++] = ',';
            memcpy(s + o, items[i], l);
            o += l;
        }
        s[o] = '\0';
        return s;
    }
}

/* --- compiled subscriptions */

void
gr_cm_sub_destroy(gr_cm_sub_t *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->nmetrics; i++)
        free(s->metrics[i]);
    free(s->metrics);
    for (int i = 0; i < GR_CM_NATTRS; i++)
        if (s->has_match[i])
            gr_regex_free(&s->match[i]);
    free(s->name);
    free(s);
}

gr_cm_sub_t *
gr_cm_sub_new(const char *name, const char *const *keys,
              const char *const *values, int n)
{
    gr_arena_t *a = gr_arena_new(1024);
    gr_cm_sub_t *s = calloc(1, sizeof(*s));
    const char *v;
    char **items = NULL;
    int k = 0, *order = NULL;

    if (a == NULL || s == NULL || (s->name = strdup(name)) == NULL)
        goto fail;
    s->interval_ms = GR_CM_INTERVAL_DEFAULT;
    if ((v = find(keys, values, n, GR_CM_INTERVAL_MS)) != NULL &&
        parse_int(v, &s->interval_ms) != 0)
        goto fail;
    if ((v = find(keys, values, n, GR_CM_METRICS)) != NULL &&
        (k = parse_list(v, a, &items)) < 0)
        goto fail;
    /* SubscriptionInfo keeps them in a HashSet: its order */
    if (k > 0) {
        if ((s->metrics = calloc((size_t)k, sizeof(char *))) == NULL ||
            (order = malloc((size_t)k * sizeof(int))) == NULL)
            goto fail;
        gr_java_hash_order((const char *const *)items, k, GR_JAVA_HASHSET_COPY,
                           order);
        for (int i = 0; i < k; i++) {
            if ((s->metrics[i] = strdup(items[order[i]])) == NULL)
                goto fail;
            s->nmetrics++;
        }
    }
    if ((v = find(keys, values, n, GR_CM_MATCH)) != NULL) {
        char **m;
        int nm = parse_list(v, a, &m);
        if (nm < 0)
            goto fail;
        for (int i = 0; i < nm; i++) {
            gr_cm_attr_t attr;
            char *regex, why[160];
            gr_regex_t re;
            if (split_match(m[i], a, &attr, &regex) != 0 ||
                gr_regex_compile(&re,
                                 &(gr_str_t){ regex, (int32_t)strlen(regex) },
                                 why, sizeof why) != 0)
                goto fail;
            /* a HashMap by selector: the last item of one wins */
            if (s->has_match[attr])
                gr_regex_free(&s->match[attr]);
            s->match[attr] = re;
            s->has_match[attr] = true;
        }
    }
    free(order);
    gr_arena_destroy(a);
    return s;
fail:
    free(order);
    gr_arena_destroy(a);
    gr_cm_sub_destroy(s);
    return NULL;
}

bool
gr_cm_sub_matches(const gr_cm_sub_t *s, const char *const attrs[GR_CM_NATTRS])
{
    for (int i = 0; i < GR_CM_NATTRS; i++)
        if (s->has_match[i] &&
            (attrs[i] == NULL ||
             !gr_regex_matches(&s->match[i], attrs[i], strlen(attrs[i]))))
            return false;
    return true;
}

/* --- Java's hashing */

int32_t
gr_java_string_hash(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t h = 0;
    size_t i = 0;

    while (i < n) {
        uint32_t cp = 0xfffd;
        size_t k = 1;
        unsigned char c = u[i];
        if (c < 0x80) {
            cp = c;
        } else {
            size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
            if (len > 0 && len <= n - i) {
                uint32_t v = c & (0x3f >> (len - 1));
                bool ok = true;
                for (size_t j = 1; j < len; j++) {
                    if ((u[i + j] & 0xc0) != 0x80)
                        ok = false;
                    v = v << 6 | (u[i + j] & 0x3f);
                }
                if (ok && !((len == 3 && v < 0x800) ||
                            (len == 4 && (v < 0x10000 || v > 0x10ffff)) ||
                            (v >= 0xd800 && v <= 0xdfff))) {
                    cp = v;
                    k = len;
                }
            }
        }
        if (cp >= 0x10000) { /* a surrogate pair */
            h = 31 * h + (0xd800 + ((cp - 0x10000) >> 10));
            h = 31 * h + (0xdc00 + ((cp - 0x10000) & 0x3ff));
        } else {
            h = 31 * h + cp;
        }
        i += k;
    }
    return (int32_t)h;
}

typedef struct ordered {
    uint32_t bucket;
    int seq;
} ordered_t;

static int
cmp_ordered(const void *x, const void *y)
{
    const ordered_t *a = x, *b = y;
    if (a->bucket != b->bucket)
        return a->bucket < b->bucket ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

void
gr_java_hash_order(const char *const *s, int n, gr_java_map_t kind,
                   int *order)
{
    ordered_t *o = malloc((size_t)(n > 0 ? n : 1) * sizeof(*o));
    uint32_t cap = 16;

    switch (kind) {
    case GR_JAVA_HASHMAP: /* doubled when its size passes 3/4 */
        while ((uint64_t)n > cap - cap / 4)
            cap *= 2;
        break;
    case GR_JAVA_HASHSET_COPY: /* new HashSet<>(c): (int)(n / .75f) + 1 */
        while ((uint64_t)cap < (uint64_t)n * 4 / 3 + 1)
            cap *= 2;
        break;
    case GR_JAVA_CHM: /* grown once the count reaches 3/4 */
        while ((uint64_t)n >= cap - cap / 4)
            cap *= 2;
        break;
    }
    if (o == NULL) { /* insertion order, then */
        for (int i = 0; i < n; i++)
            order[i] = i;
        return;
    }
    for (int i = 0; i < n; i++) {
        uint32_t h = (uint32_t)gr_java_string_hash(s[i], strlen(s[i]));
        o[i].bucket = (h ^ (h >> 16)) & (cap - 1);
        o[i].seq = i;
    }
    qsort(o, (size_t)n, sizeof(*o), cmp_ordered);
    for (int i = 0; i < n; i++)
        order[i] = o[i].seq;
    free(o);
}
