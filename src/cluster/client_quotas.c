/*
 * Client quotas: see client_quotas.h. The entities live in a list (the
 * order they were created, which DescribeClientQuotas answers in) and a
 * hash by their resource name; the rates in a hash of sensors by (type,
 * user tag, client-id tag), Kafka's sensor names. A sensor nobody
 * recorded on for a whole window (samples x size) holds nothing any more
 * and goes at the next sweep (Kafka keeps it an hour, to the same effect).
 */
#include "cluster/client_quotas.h"
#include "cluster/cluster.h"
#include "core/buf.h"
#include "core/log.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUCKETS 1024

enum { C_USER, C_CLIENT, C_IP, C__N };

static const char *const comp_type[C__N] = { "user", "client-id", "ip" };
static const char *const comp_dir[C__N] = { "users", "clients", "ips" };

static const char *const key_names[GR_CQ__N] = {
    "request_percentage",       "producer_byte_rate",
    "consumer_byte_rate",       "controller_mutation_rate",
    "connection_creation_rate",
};

typedef enum { T_DOUBLE, T_LONG, T_INT } key_type_t;

static const key_type_t key_types[GR_CQ__N] = {
    T_DOUBLE, T_LONG, T_LONG, T_DOUBLE, T_INT,
};

/* the rate each key bounds (-1: connection_creation_rate, measured per
 * address by net/quota.c) */
static const int key_rate[GR_CQ__N] = {
    GR_CQT_REQUEST, GR_CQT_PRODUCE, GR_CQT_FETCH, GR_CQT_MUTATION, -1,
};

typedef struct entry {
    struct entry *next, *prev, *hnext;
    uint32_t hash; /* str_hash of rname */
    bool has[C__N];
    char *name[C__N]; /* NULL: the default */
    char *rname;      /* the resource name (and hash key) */
    double v[GR_CQ__N];
    unsigned set; /* 1 << key */
} entry_t;

typedef struct sensor {
    struct sensor *hnext;
    char *key;
    int64_t last_ms;
    gr_rate_t rate;
    /* GR_CQT_MUTATION: the bucket (partitions; starts empty at time 0,
     * so full when first used) and the quota it last refilled at */
    double tokens;
    int64_t tokens_ms;
    double bound;
} sensor_t;

struct gr_client_quotas {
    gr_cluster_t *c;
    int samples;
    int64_t win_ms;
    int64_t burst_ms; /* controller_mutation_rate: samples x window */
    entry_t *entries, *tail;
    /* by rname: esize buckets (a power of 2), doubled as nentries
     * passes it so a lookup stays a few compares at any count */
    entry_t **ehash;
    uint32_t esize, nentries;
    /* per rate type: entities holding its key, by kind (Kafka's
     * activeQuotaEntities: 1 client-id, 2 user, 4 both) */
    int active[GR_CQT__N][5];
    sensor_t *shash[NBUCKETS];
    int nsensors;
    int64_t swept_ms;
    /* between begin and commit: each entity changed as it was before
     * (newest first), the records Kafka would write (keys set, changed
     * or removed) */
    struct undo *undo;
    int nchanged;
    int64_t records;
    /* connection_creation_rate of the IP entities (Kafka's
     * connectionRatePerIp, by address, sorted) and of the default one */
    struct ip_rate *ip_rates;
    int nip_rates;
    int32_t ip_default;
};

typedef struct ip_rate {
    gr_ipaddr_t addr;
    int32_t rate;
} ip_rate_t;

/* An entity before a request changed it: a copy (NULL: it did not
 * exist) under its name. */
typedef struct undo {
    struct undo *next;
    char *rname;
    entry_t *was;
} undo_t;

const char *
gr_cq_key_name(gr_cq_key_t k)
{
    return key_names[k];
}

static uint32_t
str_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* Kafka's Sanitizer.sanitize: URL-encoded (UTF-8 bytes), space and '*'
 * as %20 and %2A: only [A-Za-z0-9._-] stay as they are. */
static void
put_sanitized(gr_buf_t *b, const char *p, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        uint8_t ch = (uint8_t)p[i];
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
            (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-') {
            gr_buf_putc(b, (char)ch);
        } else {
            char e[3] = { '%', hex[ch >> 4], hex[ch & 15] };
            gr_buf_append(b, e, 3);
        }
    }
}

/* The resource name of an entity: has[i], names (NULL default, len). */
static void
rname_build(gr_buf_t *b, const bool *has, const char *const *name,
            const size_t *len)
{
    bool first = true;
    gr_buf_reset(b);
    for (int i = 0; i < C__N; i++) {
        if (!has[i])
            continue;
        if (!first)
            gr_buf_putc(b, '/');
        first = false;
        gr_buf_puts(b, comp_dir[i]);
        gr_buf_putc(b, '/');
        if (name[i] == NULL)
            gr_buf_puts(b, "<default>");
        else
            put_sanitized(b, name[i], len[i]);
    }
}

static entry_t *
entry_find(const gr_client_quotas_t *q, const char *rname)
{
    uint32_t h = str_hash(rname);
    for (entry_t *e = q->ehash[h & (q->esize - 1)]; e; e = e->hnext)
        if (e->hash == h && strcmp(e->rname, rname) == 0)
            return e;
    return NULL;
}

static int
kind_of(const entry_t *e)
{
    if (e->has[C_USER] && e->has[C_CLIENT])
        return 4;
    return e->has[C_USER] ? 2 : e->has[C_CLIENT] ? 1 : 0;
}

/* Counts e's keys in (d 1) or out of (d -1) the active entities. */
static void
entry_count(gr_client_quotas_t *q, const entry_t *e, int d)
{
    int kind = kind_of(e);
    if (kind == 0)
        return;
    for (int k = 0; k < GR_CQ__N; k++)
        if ((e->set & (1u << k)) && key_rate[k] >= 0)
            q->active[key_rate[k]][kind] += d;
}

static void
entry_free(entry_t *e)
{
    if (e == NULL)
        return;
    for (int i = 0; i < C__N; i++)
        free(e->name[i]);
    free(e->rname);
    free(e);
}

static void
entry_unlink(gr_client_quotas_t *q, entry_t *e)
{
    entry_t **pp = &q->ehash[e->hash & (q->esize - 1)];
    while (*pp != e)
        pp = &(*pp)->hnext;
    *pp = e->hnext;
    q->nentries--;
    if (e->prev)
        e->prev->next = e->next;
    else
        q->entries = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        q->tail = e->prev;
    e->next = e->prev = NULL;
}

/* Doubles the buckets; out of memory, the table stays as it is (slower,
 * still right). */
static void
entries_rehash(gr_client_quotas_t *q)
{
    uint32_t n = q->esize * 2;
    entry_t **h = calloc(n, sizeof(*h));
    if (h == NULL)
        return;
    for (entry_t *e = q->entries; e; e = e->next) {
        e->hnext = h[e->hash & (n - 1)];
        h[e->hash & (n - 1)] = e;
    }
    free(q->ehash);
    q->ehash = h;
    q->esize = n;
}

static void
entry_link(gr_client_quotas_t *q, entry_t *e)
{
    uint32_t h;
    e->hash = str_hash(e->rname);
    if (q->nentries >= q->esize)
        entries_rehash(q);
    h = e->hash & (q->esize - 1);
    e->hnext = q->ehash[h];
    q->ehash[h] = e;
    q->nentries++;
    e->next = NULL;
    e->prev = q->tail;
    if (q->tail)
        q->tail->next = e;
    else
        q->entries = e;
    q->tail = e;
}

gr_client_quotas_t *
gr_client_quotas_new(gr_cluster_t *c, int samples, int64_t win_ms)
{
    gr_client_quotas_t *q = calloc(1, sizeof(*q));
    if (q == NULL)
        return NULL;
    q->esize = NBUCKETS;
    if ((q->ehash = calloc(q->esize, sizeof(*q->ehash))) == NULL) {
        free(q);
        return NULL;
    }
    q->c = c;
    q->samples = samples > 0 && samples <= GR_RATE_SAMPLES_MAX
                     ? samples
                     : GR_RATE_SAMPLES;
    q->win_ms = win_ms > 0 ? win_ms : GR_RATE_WINDOW_MS;
    q->burst_ms = 11 * 1000;
    q->ip_default = INT32_MAX;
    return q;
}

void
gr_client_quotas_set_mutation_window(gr_client_quotas_t *q, int samples,
                                     int64_t win_ms)
{
    if (samples > 0 && win_ms > 0)
        q->burst_ms = (int64_t)samples * win_ms;
}

static void
entries_free(gr_client_quotas_t *q)
{
    while (q->entries) {
        entry_t *e = q->entries;
        q->entries = e->next;
        entry_free(e);
    }
    q->tail = NULL;
    memset(q->ehash, 0, q->esize * sizeof(*q->ehash));
    q->nentries = 0;
    memset(q->active, 0, sizeof q->active);
}

static void
undo_free(gr_client_quotas_t *q)
{
    while (q->undo) {
        undo_t *u = q->undo;
        q->undo = u->next;
        entry_free(u->was);
        free(u->rname);
        free(u);
    }
    q->nchanged = 0;
    q->records = 0;
}

/* A copy of e (its names, values and counts), or NULL. */
static entry_t *
entry_clone(const entry_t *e)
{
    entry_t *c = calloc(1, sizeof(*c));
    if (c == NULL || (c->rname = strdup(e->rname)) == NULL)
        goto fail;
    for (int i = 0; i < C__N; i++) {
        c->has[i] = e->has[i];
        if (e->name[i] != NULL && (c->name[i] = strdup(e->name[i])) == NULL)
            goto fail;
    }
    memcpy(c->v, e->v, sizeof c->v);
    c->set = e->set;
    return c;
fail:
    entry_free(c);
    return NULL;
}

static void
sensors_free(gr_client_quotas_t *q)
{
    for (int i = 0; i < NBUCKETS; i++)
        while (q->shash[i]) {
            sensor_t *s = q->shash[i];
            q->shash[i] = s->hnext;
            free(s->key);
            free(s);
        }
    q->nsensors = 0;
}

void
gr_client_quotas_destroy(gr_client_quotas_t *q)
{
    if (q == NULL)
        return;
    entries_free(q);
    undo_free(q);
    sensors_free(q);
    free(q->ip_rates);
    free(q->ehash);
    free(q);
}

/* --- parsing the persisted form */

static int
unhex(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

/* "users/a%20b/clients/<default>" -> has, names (malloc'd). 0 or -1. */
static int
rname_parse(const char *s, bool *has, char **name)
{
    while (*s) {
        const char *slash = strchr(s, '/'), *end;
        int t = -1;
        size_t n;
        char *o;
        if (slash == NULL)
            return -1;
        for (int i = 0; i < C__N; i++)
            if ((size_t)(slash - s) == strlen(comp_dir[i]) &&
                memcmp(s, comp_dir[i], (size_t)(slash - s)) == 0)
                t = i;
        if (t < 0 || has[t])
            return -1;
        has[t] = true;
        s = slash + 1;
        end = strchr(s, '/');
        n = end ? (size_t)(end - s) : strlen(s);
        if (n == 9 && memcmp(s, "<default>", 9) == 0) {
            name[t] = NULL;
        } else {
            if ((name[t] = o = malloc(n + 1)) == NULL)
                return -1;
            for (size_t i = 0; i < n; i++) {
                if (s[i] == '%' && i + 2 < n + 1 && unhex(s[i + 1]) >= 0 &&
                    unhex(s[i + 2]) >= 0) {
                    *o++ = (char)(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
                    i += 2;
                } else {
                    *o++ = s[i];
                }
            }
            *o = '\0';
        }
        s += n;
        if (*s == '/')
            s++;
    }
    return 0;
}

/* An IP rate with its entity's place in the list, to sort by address
 * and keep, of one address, the entity made later. */
typedef struct ip_rate_at {
    ip_rate_t v;
    int pos;
} ip_rate_at_t;

static int
ip_rate_at_cmp(const void *x, const void *y)
{
    const ip_rate_at_t *a = x, *b = y;
    int c = memcmp(&a->v.addr, &b->v.addr, sizeof a->v.addr);
    return c != 0 ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

static int
ip_rate_cmp(const void *x, const void *y)
{
    const ip_rate_t *a = x, *b = y;
    return memcmp(&a->addr, &b->addr, sizeof a->addr);
}

/* The IP entities' connection_creation_rate by address, as Kafka's
 * ConnectionQuotas keeps them (one InetAddress each: two spellings of an
 * address are one, the entity made later wins), with Kafka's toInt of
 * the value. 0, or -1 when out of memory (then none holds). */
static int
ip_rates_build(gr_client_quotas_t *q)
{
    const unsigned bit = 1u << GR_CQ_CONNECTION_CREATION_RATE;
    int n = 0, k = 0;
    ip_rate_at_t *t = NULL;

    free(q->ip_rates);
    q->ip_rates = NULL;
    q->nip_rates = 0;
    q->ip_default = INT32_MAX;
    for (const entry_t *e = q->entries; e; e = e->next)
        if (e->has[C_IP] && (e->set & bit) && e->name[C_IP] != NULL)
            n++;
    if (n > 0 && (t = calloc((size_t)n, sizeof(*t))) == NULL)
        return -1;
    for (const entry_t *e = q->entries; e; e = e->next) {
        if (!e->has[C_IP] || !(e->set & bit))
            continue;
        if (e->name[C_IP] == NULL) {
            q->ip_default = (int32_t)e->v[GR_CQ_CONNECTION_CREATION_RATE];
            continue;
        }
        if (gr_ipaddr_parse(&t[k].v.addr, e->name[C_IP]) != 0)
            continue; /* checked when set */
        t[k].v.rate = (int32_t)e->v[GR_CQ_CONNECTION_CREATION_RATE];
        t[k].pos = k;
        k++;
    }
    if (k > 0) {
        qsort(t, (size_t)k, sizeof(*t), ip_rate_at_cmp);
        if ((q->ip_rates = calloc((size_t)k, sizeof(*q->ip_rates))) == NULL) {
            free(t);
            return -1;
        }
    }
    n = 0;
    for (int i = 0; i < k; i++) {
        ip_rate_t *r = q->ip_rates;
        if (n > 0 && ip_rate_cmp(&r[n - 1], &t[i].v) == 0)
            r[n - 1] = t[i].v;
        else
            r[n++] = t[i].v;
    }
    q->nip_rates = n;
    free(t);
    return 0;
}

int32_t
gr_client_quotas_ip_rate(const gr_client_quotas_t *q, const gr_ipaddr_t *ip)
{
    ip_rate_t key;
    const ip_rate_t *r;
    if (q == NULL)
        return INT32_MAX;
    key.addr = *ip;
    r = q->nip_rates > 0 ? bsearch(&key, q->ip_rates, (size_t)q->nip_rates,
                                   sizeof(*q->ip_rates), ip_rate_cmp)
                         : NULL;
    return r != NULL ? r->rate : q->ip_default;
}

int
gr_client_quotas_load(gr_client_quotas_t *q)
{
    for (gr_config_resource_t *r = q->c->client_quotas; r; r = r->next) {
        entry_t *e = calloc(1, sizeof(*e));
        if (e == NULL || (e->rname = strdup(r->name)) == NULL) {
            entry_free(e);
            return -1;
        }
        if (rname_parse(r->name, e->has, e->name) != 0) {
            GR_LOG_WARN("client quota entity %s does not parse; left out",
                        r->name);
            entry_free(e);
            continue;
        }
        for (const gr_topic_config_t *cf = r->configs; cf; cf = cf->next) {
            char *end;
            double v = strtod(cf->value, &end);
            int k;
            for (k = 0; k < GR_CQ__N; k++)
                if (strcmp(cf->key, key_names[k]) == 0)
                    break;
            if (k == GR_CQ__N || *end != '\0' || !(v > 0)) {
                GR_LOG_WARN("client quota %s of %s (%s) is not valid; left "
                            "out",
                            cf->key, r->name, cf->value);
                continue;
            }
            e->v[k] = v;
            e->set |= 1u << k;
        }
        if (e->set == 0 || entry_find(q, e->rname) != NULL) {
            entry_free(e);
            continue;
        }
        entry_link(q, e);
        entry_count(q, e, 1);
    }
    return ip_rates_build(q);
}

/* --- AlterClientQuotas */

static int
comp_index(const gr_str_t *type)
{
    for (int i = 0; i < C__N; i++)
        if (gr_str_eq_cstr(type, comp_type[i]))
            return i;
    return -1;
}

bool
gr_client_quotas_same_entity(const gr_cq_comp_t *x, int nx,
                             const gr_cq_comp_t *y, int ny)
{
    /* every type of x has y's last name for it, and the other way */
    for (int pass = 0; pass < 2; pass++) {
        const gr_cq_comp_t *a = pass ? y : x, *b = pass ? x : y;
        int na = pass ? ny : nx, nb = pass ? nx : ny;
        for (int i = 0; i < na; i++) {
            const gr_cq_comp_t *la = NULL, *lb = NULL;
            for (int j = 0; j < na; j++)
                if (gr_str_eq(&a[j].type, &a[i].type))
                    la = &a[j];
            for (int j = 0; j < nb; j++)
                if (gr_str_eq(&b[j].type, &a[i].type))
                    lb = &b[j];
            if (lb == NULL)
                return false;
            if (gr_str_is_null(&la->name) != gr_str_is_null(&lb->name) ||
                (!gr_str_is_null(&la->name) &&
                 !gr_str_eq(&la->name, &lb->name)))
                return false;
        }
    }
    return true;
}

/* The distinct types of an entry, the last name of each (as Kafka's
 * HashMap keeps them): idx[] into comps, n of them. At most DISTINCT_MAX
 * are kept: past the three known types, more only name unknown types,
 * which refuse the entry whichever is named (linear in n, not n^2). */
#define DISTINCT_MAX 11
static int
distinct(const gr_cq_comp_t *comps, int n, int *idx)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int j;
        for (j = 0; j < k; j++)
            if (gr_str_eq(&comps[idx[j]].type, &comps[i].type))
                break;
        if (j < k)
            idx[j] = i;
        else if (k < DISTINCT_MAX)
            idx[k++] = i;
    }
    return k;
}

static int
cmp_cstr(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

const char *
gr_client_quotas_entity_key(const gr_cq_comp_t *comps, int n, gr_arena_t *a)
{
    int *idx = gr_arena_alloc(a, (size_t)(n > 0 ? n : 1) * sizeof(int));
    const char **parts;
    gr_buf_t b = GR_BUF_INIT;
    const char *out = NULL;
    int k;

    if (idx == NULL)
        return NULL;
    k = distinct(comps, n, idx);
    if ((parts = gr_arena_alloc(a, (size_t)(k ? k : 1) * sizeof(*parts))) ==
        NULL)
        return NULL;
    for (int i = 0; i < k; i++) {
        const gr_cq_comp_t *c = &comps[idx[i]];
        gr_buf_reset(&b);
        put_sanitized(&b, c->type.ptr, (size_t)(c->type.len > 0 ? c->type.len : 0));
        if (gr_str_is_null(&c->name)) {
            gr_buf_puts(&b, "=~");
        } else {
            gr_buf_puts(&b, "=+");
            put_sanitized(&b, c->name.ptr, (size_t)c->name.len);
        }
        if ((parts[i] = gr_arena_strndup(a, gr_buf_cstr(&b), b.len)) == NULL)
            goto out;
    }
    qsort(parts, (size_t)k, sizeof(*parts), cmp_cstr);
    gr_buf_reset(&b);
    for (int i = 0; i < k; i++) {
        gr_buf_puts(&b, parts[i]);
        gr_buf_putc(&b, ',');
    }
    out = gr_arena_strndup(a, gr_buf_cstr(&b), b.len);
out:
    gr_buf_fini(&b);
    return out;
}

const char *
gr_client_quotas_entity_str(const gr_cq_comp_t *comps, int n, gr_arena_t *a)
{
    /* HashMap order of the known types: client-id, user; ip alone */
    static const int order[] = { C_IP, C_CLIENT, C_USER };
    gr_buf_t b = GR_BUF_INIT;
    const char *out;
    int *idx = gr_arena_alloc(a, (size_t)(n > 0 ? n : 1) * sizeof(int));
    int k = idx ? distinct(comps, n, idx) : 0;
    bool first = true;

    gr_buf_puts(&b, "ClientQuotaEntity(entries={");
    for (int pass = 0; pass < 4; pass++)
        for (int i = 0; i < k; i++) {
            const gr_cq_comp_t *c = &comps[idx[i]];
            int t = comp_index(&c->type);
            if (pass < 3 ? t != order[pass] : t >= 0)
                continue;
            if (!first)
                gr_buf_puts(&b, ", ");
            first = false;
            gr_buf_append(&b, c->type.ptr,
                          (size_t)(c->type.len > 0 ? c->type.len : 0));
            gr_buf_putc(&b, '=');
            if (gr_str_is_null(&c->name))
                gr_buf_puts(&b, "null");
            else
                gr_buf_append(&b, c->name.ptr, (size_t)c->name.len);
        }
    gr_buf_puts(&b, "})");
    out = gr_arena_strndup(a, gr_buf_cstr(&b), b.len);
    gr_buf_fini(&b);
    return out ? out : "ClientQuotaEntity";
}

/* ClientQuotaControlManager.validateQuotaKeyValue */
static gr_kerr_t
check_value(int k, const gr_str_t *key, double v, gr_arena_t *a,
            const char **msg)
{
    const char *kn = key_names[k];
    (void)key;
    if (!isfinite(v)) {
        *msg = gr_arena_printf(a, "Quota %s must be a finite number", kn);
        return GR_KERR_INVALID_REQUEST;
    }
    if (v <= 0) {
        *msg = gr_arena_printf(a, "Quota %s must be greater than 0", kn);
        return GR_KERR_INVALID_REQUEST;
    }
    switch (key_types[k]) {
    case T_DOUBLE:
        return GR_KERR_NONE;
    case T_LONG:
        if (v > 9.223372036854776E18) {
            *msg = gr_arena_printf(a,
                                   "Proposed value for %s is too large for "
                                   "a LONG.",
                                   kn);
            return GR_KERR_INVALID_REQUEST;
        }
        break;
    case T_INT:
        if (v > 2147483647.0) {
            *msg = gr_arena_printf(a,
                                   "Proposed value for %s is too large for "
                                   "an INT.",
                                   kn);
            return GR_KERR_INVALID_REQUEST;
        }
        break;
    }
    /* Math.abs(value % 1.0): doubles from 2^53 on are whole */
    if (v < 9007199254740992.0 && v - (double)(int64_t)v > 1.0E-6) {
        *msg = gr_arena_printf(a, "%s cannot be a fractional value.", kn);
        return GR_KERR_INVALID_REQUEST;
    }
    return GR_KERR_NONE;
}

static char *
str_dup(const gr_str_t *s)
{
    char *p = malloc((size_t)s->len + 1);
    if (p != NULL) {
        memcpy(p, s->ptr, (size_t)s->len);
        p[s->len] = '\0';
    }
    return p;
}

/* The entity's values as a config list (for the cluster to persist). */
static int
entry_configs(const double *v, unsigned set, gr_topic_config_t **out)
{
    *out = NULL;
    for (int k = 0; k < GR_CQ__N; k++) {
        char num[40];
        if (!(set & (1u << k)))
            continue;
        snprintf(num, sizeof num, "%.17g", v[k]);
        if (gr_config_list_set(out, key_names[k], num) != 0) {
            gr_config_list_free(out);
            return -1;
        }
    }
    return 0;
}

gr_kerr_t
gr_client_quotas_alter(gr_client_quotas_t *q, const gr_cq_comp_t *comps,
                       int ncomps, const gr_cq_op_t *ops, int nops,
                       bool validate_only, gr_arena_t *a, const char **msg)
{
    int *idx =
        gr_arena_alloc(a, (size_t)(ncomps > 0 ? ncomps : 1) * sizeof(int));
    bool has[C__N] = { false };
    const char *name[C__N] = { NULL };
    size_t len[C__N] = { 0 };
    double v[GR_CQ__N];
    unsigned set;
    gr_buf_t rn = GR_BUF_INIT;
    gr_topic_config_t *configs = NULL;
    entry_t *e;
    gr_kerr_t err = GR_KERR_NONE;
    int n;

    if (idx == NULL)
        goto oom;
    /* validateEntity */
    n = distinct(comps, ncomps, idx);
    if (n == 0) {
        *msg = "Invalid empty client quota entity";
        return GR_KERR_INVALID_REQUEST;
    }
    for (int i = 0; i < n; i++) {
        const gr_cq_comp_t *c = &comps[idx[i]];
        int t = comp_index(&c->type);
        if (t < 0) {
            *msg =
                gr_arena_printf(a, "Unhandled client quota entity type: %.*s",
                                c->type.len > 0 ? c->type.len : 0,
                                c->type.ptr ? c->type.ptr : "");
            return GR_KERR_INVALID_REQUEST;
        }
        if (!gr_str_is_null(&c->name) && c->name.len == 0) {
            *msg = gr_arena_printf(a, "Empty %s not supported", comp_type[t]);
            return GR_KERR_INVALID_REQUEST;
        }
        has[t] = true;
        if (!gr_str_is_null(&c->name)) {
            name[t] = gr_arena_strndup(a, c->name.ptr, (size_t)c->name.len);
            len[t] = (size_t)c->name.len;
            if (name[t] == NULL)
                goto oom;
        }
    }
    /* configKeysForEntityType */
    if (has[C_IP]) {
        gr_ipaddr_t ip;
        if (has[C_USER] || has[C_CLIENT]) {
            *msg = "Invalid quota entity combination, IP entity shouldnot be "
                   "combined with User or ClientId";
            return GR_KERR_INVALID_REQUEST;
        }
        /* Kafka resolves a host name here (InetAddress.getByName); the
         * loop does not wait for DNS: numeric addresses only */
        if (name[C_IP] != NULL && gr_ipaddr_parse(&ip, name[C_IP]) != 0) {
            *msg = gr_arena_printf(
                a, "%s is not a valid IP or resolvable host.", name[C_IP]);
            return GR_KERR_INVALID_REQUEST;
        }
    }
    rname_build(&rn, has, name, len);
    e = entry_find(q, gr_buf_cstr(&rn));
    set = e ? e->set : 0;
    for (int k = 0; k < GR_CQ__N; k++)
        v[k] = e ? e->v[k] : 0;
    for (int i = 0; i < nops; i++) {
        const gr_cq_op_t *op = &ops[i];
        int k;
        for (k = 0; k < GR_CQ__N; k++)
            if (gr_str_eq_cstr(&op->key, key_names[k]))
                break;
        /* a key is valid for the entity's kind: connection_creation_rate
         * for an IP only, the other four never for one */
        if (k < GR_CQ__N && (k == GR_CQ_CONNECTION_CREATION_RATE) != has[C_IP])
            k = GR_CQ__N;
        if (op->remove) {
            if (k < GR_CQ__N)
                set &= ~(1u << k);
            continue; /* removing what is not there is no error */
        }
        if (k == GR_CQ__N) {
            *msg = gr_arena_printf(a, "Invalid configuration key %.*s",
                                   op->key.len > 0 ? op->key.len : 0,
                                   op->key.ptr ? op->key.ptr : "");
            err = GR_KERR_INVALID_REQUEST;
            goto out;
        }
        if ((err = check_value(k, &op->key, op->value, a, msg)) != GR_KERR_NONE)
            goto out;
        set |= 1u << k;
        v[k] = op->value;
    }
    if (validate_only)
        goto out;
    if (e != NULL && e->set == set) {
        bool same = true;
        for (int k = 0; k < GR_CQ__N; k++)
            if ((set & (1u << k)) && e->v[k] != v[k])
                same = false;
        if (same)
            goto out; /* no record, as Kafka writes none */
    }
    if (e == NULL && set == 0)
        goto out;
    /* the entity as it was, for an undo; then the records Kafka writes */
    {
        undo_t *u = calloc(1, sizeof(*u));
        if (u == NULL || (u->rname = strdup(gr_buf_cstr(&rn))) == NULL ||
            (e != NULL && (u->was = entry_clone(e)) == NULL)) {
            if (u != NULL)
                free(u->rname);
            free(u);
            goto oom;
        }
        u->next = q->undo;
        q->undo = u;
        q->nchanged++;
        for (int k = 0; k < GR_CQ__N; k++) {
            bool had = e && (e->set & (1u << k)), has_k = set & (1u << k);
            if (had != has_k || (has_k && e->v[k] != v[k]))
                q->records++;
        }
    }
    if (e == NULL) {
        if ((e = calloc(1, sizeof(*e))) == NULL ||
            (e->rname = strdup(gr_buf_cstr(&rn))) == NULL)
            goto oom_entry;
        for (int i = 0; i < C__N; i++) {
            gr_str_t s = { name[i], (int32_t)len[i] };
            e->has[i] = has[i];
            if (name[i] != NULL && (e->name[i] = str_dup(&s)) == NULL)
                goto oom_entry;
        }
        entry_link(q, e);
    } else {
        entry_count(q, e, -1);
    }
    e->set = set;
    for (int k = 0; k < GR_CQ__N; k++)
        e->v[k] = (set & (1u << k)) ? v[k] : 0;
    entry_count(q, e, 1);
    GR_LOG_DEBUG("client quotas of %s %s", e->rname,
                 set == 0 ? "removed" : "changed");
    if (set == 0) {
        entry_unlink(q, e);
        entry_free(e);
    }
out:
    gr_buf_fini(&rn);
    gr_config_list_free(&configs);
    return err;
oom_entry:
    /* the undo recorded puts back what was (nothing was linked) */
    entry_free(e);
    gr_buf_fini(&rn);
    *msg = "Out of memory";
    return GR_KERR_UNKNOWN_SERVER_ERROR;
oom:
    gr_buf_fini(&rn);
    gr_config_list_free(&configs);
    *msg = "Out of memory";
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

int
gr_client_quotas_begin(gr_client_quotas_t *q)
{
    undo_free(q);
    return 0;
}

/* Puts back every entity the request changed, newest change first. */
static void
undo_all(gr_client_quotas_t *q)
{
    for (undo_t *u = q->undo; u; u = u->next) {
        entry_t *e = entry_find(q, u->rname);
        if (e != NULL) {
            entry_count(q, e, -1);
            entry_unlink(q, e);
            entry_free(e);
        }
        if (u->was != NULL) {
            entry_link(q, u->was);
            entry_count(q, u->was, 1);
            u->was = NULL;
        }
    }
    undo_free(q);
}

/* The persisted form of every entity, in creation order (NULL with
 * *oom set when out of memory). O(entities). */
static gr_config_resource_t *
resources_of(const gr_client_quotas_t *q, bool *oom)
{
    gr_config_resource_t *list = NULL, **tail = &list;
    *oom = false;
    for (const entry_t *e = q->entries; e; e = e->next) {
        gr_config_resource_t *r = calloc(1, sizeof(*r));
        if (r == NULL || (r->name = strdup(e->rname)) == NULL ||
            entry_configs(e->v, e->set, &r->configs) != 0) {
            if (r != NULL)
                free(r->name);
            free(r);
            gr_config_resources_free(&list);
            *oom = true;
            return NULL;
        }
        *tail = r;
        tail = &r->next;
    }
    return list;
}

bool
gr_client_quotas_over_batch(const gr_client_quotas_t *q)
{
    return q->records > GR_CQ_MAX_RECORDS;
}

gr_kerr_t
gr_client_quotas_prepare(gr_client_quotas_t *q, bool *changed,
                         gr_config_resource_t **out)
{
    bool oom;
    int n = q->nchanged;

    *out = NULL;
    *changed = false;
    if (q->records > GR_CQ_MAX_RECORDS) {
        GR_LOG_INFO("AlterClientQuotas of %lld changes refused: more than "
                    "%d (Kafka's excessively large batch)",
                    (long long)q->records, GR_CQ_MAX_RECORDS);
        undo_all(q);
        return GR_KERR_POLICY_VIOLATION;
    }
    if (q->undo == NULL)
        return GR_KERR_NONE;
    *out = resources_of(q, &oom);
    /* as before until stored: the stored list comes back by install */
    undo_all(q);
    if (oom)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    *changed = true;
    GR_LOG_DEBUG("client quotas: %d entit%s to change", n,
                 n == 1 ? "y" : "ies");
    return GR_KERR_NONE;
}

int
gr_client_quotas_install(gr_client_quotas_t *q, gr_config_resource_t *list)
{
    int n = 0;

    gr_config_resources_free(&q->c->client_quotas);
    q->c->client_quotas = list;
    entries_free(q);
    if (gr_client_quotas_load(q) != 0) {
        GR_LOG_ERROR("client quotas: out of memory taking the stored ones; "
                     "some hold from the next start only");
        return -1;
    }
    for (const entry_t *e = q->entries; e; e = e->next)
        n++;
    GR_LOG_INFO("client quotas stored: %d entit%s", n, n == 1 ? "y" : "ies");
    return 0;
}

/* --- DescribeClientQuotas */

/* Whether e has type t named as m (m NULL: the default). */
static bool
entry_exact(const entry_t *e, int t, const char *m)
{
    if (!e->has[t])
        return false;
    if (m == NULL || e->name[t] == NULL)
        return m == NULL && e->name[t] == NULL;
    return strcmp(m, e->name[t]) == 0;
}

gr_kerr_t
gr_client_quotas_describe(gr_client_quotas_t *q, const gr_cq_filter_t *f,
                          int nf, bool strict, gr_arena_t *a,
                          gr_cq_found_t **out, int *nout, const char **msg)
{
    bool exact[C__N] = { false }, any[C__N] = { false };
    const char *match[C__N] = { NULL };
    int nexact = 0, nany = 0, n = 0, cap = 0;
    gr_cq_found_t *found = NULL;

    for (int i = 0; i < nf; i++) {
        const gr_cq_filter_t *c = &f[i];
        int t;
        if (c->type.len <= 0) {
            *msg = "Invalid empty entity type.";
            return GR_KERR_INVALID_REQUEST;
        }
        t = comp_index(&c->type);
        if (t >= 0 && (exact[t] || any[t])) {
            *msg = gr_arena_printf(a,
                                   "Entity type %s cannot appear more than "
                                   "once in the filter.",
                                   comp_type[t]);
            return GR_KERR_INVALID_REQUEST;
        }
        if (t < 0) {
            *msg = gr_arena_printf(a, "Unsupported entity type %.*s",
                                   c->type.len, c->type.ptr);
            return GR_KERR_UNSUPPORTED_VERSION;
        }
        switch (c->match_type) {
        case 0:
            if (gr_str_is_null(&c->match)) {
                *msg = "Request specified MATCH_TYPE_EXACT, but set match "
                       "string to null.";
                return GR_KERR_INVALID_REQUEST;
            }
            exact[t] = true;
            match[t] = gr_arena_strndup(a, c->match.ptr, (size_t)c->match.len);
            if (match[t] == NULL)
                goto oom;
            nexact++;
            break;
        case 1:
            if (!gr_str_is_null(&c->match)) {
                *msg = "Request specified MATCH_TYPE_DEFAULT, but also "
                       "specified a match string.";
                return GR_KERR_INVALID_REQUEST;
            }
            exact[t] = true;
            nexact++;
            break;
        case 2:
            if (!gr_str_is_null(&c->match)) {
                *msg = "Request specified MATCH_TYPE_SPECIFIED, but also "
                       "specified a match string.";
                return GR_KERR_INVALID_REQUEST;
            }
            any[t] = true;
            nany++;
            break;
        default:
            *msg = gr_arena_printf(a, "Unknown match type %d", c->match_type);
            return GR_KERR_INVALID_REQUEST;
        }
    }
    if ((exact[C_IP] || any[C_IP]) &&
        (exact[C_USER] || any[C_USER] || exact[C_CLIENT] || any[C_CLIENT])) {
        *msg = "Invalid entity filter component combination. IP filter "
               "component should not be used with user or clientId filter "
               "component.";
        return GR_KERR_INVALID_REQUEST;
    }
    for (const entry_t *e = q->entries; e; e = e->next) {
        int ncomps = 0;
        bool ok = true;
        gr_cq_found_t *fo;
        for (int t = 0; t < C__N; t++) {
            ncomps += e->has[t];
            if (exact[t] && !entry_exact(e, t, match[t]))
                ok = false;
            if (any[t] && !e->has[t])
                ok = false;
        }
        /* no component: everything, unless strict */
        if (!ok || (nexact + nany == 0 && strict))
            continue;
        if (strict && ncomps != nexact + nany)
            continue;
        if (n == cap) {
            gr_cq_found_t *nf2;
            cap = cap ? 2 * cap : 8;
            nf2 = gr_arena_alloc(a, (size_t)cap * sizeof(*nf2));
            if (nf2 == NULL)
                goto oom;
            if (n > 0)
                memcpy(nf2, found, (size_t)n * sizeof(*nf2));
            found = nf2;
        }
        fo = &found[n++];
        memset(fo, 0, sizeof(*fo));
        /* Kafka's HashMap order: ip, client-id, user */
        {
            static const int order[] = { C_IP, C_CLIENT, C_USER };
            for (int i = 0; i < 3; i++) {
                int t = order[i];
                if (!e->has[t])
                    continue;
                fo->type[fo->ncomps] = comp_type[t];
                fo->name[fo->ncomps++] = e->name[t];
            }
        }
        for (int k = 0; k < GR_CQ__N; k++)
            if (e->set & (1u << k)) {
                fo->key[fo->nvalues] = key_names[k];
                fo->value[fo->nvalues++] = e->v[k];
            }
    }
    *out = found;
    *nout = n;
    return GR_KERR_NONE;
oom:
    *msg = "Out of memory";
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

/* --- enforcement */

static int
key_of_type(gr_cq_type_t t)
{
    switch (t) {
    case GR_CQT_PRODUCE:
        return GR_CQ_PRODUCER_BYTE_RATE;
    case GR_CQT_FETCH:
        return GR_CQ_CONSUMER_BYTE_RATE;
    case GR_CQT_REQUEST:
        return GR_CQ_REQUEST_PERCENTAGE;
    case GR_CQT_MUTATION:
        return GR_CQ_CONTROLLER_MUTATION_RATE;
    case GR_CQT__N:
        break;
    }
    return GR_CQ_REQUEST_PERCENTAGE;
}

bool
gr_client_quotas_enabled(const gr_client_quotas_t *q, gr_cq_type_t t)
{
    return q != NULL &&
           (q->active[t][1] > 0 || q->active[t][2] > 0 || q->active[t][4] > 0);
}

/* The entity (u: user name or NULL default, has_u...) holding key k. */
static const entry_t *
lookup(gr_client_quotas_t *q, gr_buf_t *b, int k, bool has_u, const char *u,
       bool has_c, const char *c, size_t clen)
{
    bool has[C__N] = { has_u, has_c, false };
    const char *name[C__N] = { u, c, NULL };
    size_t len[C__N] = { u ? strlen(u) : 0, clen, 0 };
    const entry_t *e;
    rname_build(b, has, name, len);
    e = entry_find(q, gr_buf_cstr(b));
    return e != NULL && (e->set & (1u << k)) ? e : NULL;
}

/* Kafka's quotaMetricTags (which sensor) and quotaLimit (which bound):
 * tag_u, tag_c: whether the tags name the user and the client; *bound
 * -1 when none holds. */
static void
resolve(gr_client_quotas_t *q, gr_cq_type_t t, const char *user,
        const char *client, size_t clen, gr_buf_t *b, bool *tag_u, bool *tag_c,
        double *bound)
{
    int k = key_of_type(t), mask = 0;
    const entry_t *e = NULL;
    if (q->active[t][1] > 0)
        mask |= 1;
    if (q->active[t][2] > 0)
        mask |= 2;
    if (q->active[t][4] > 0)
        mask |= 4;
    switch (mask) {
    case 0:
    case 1:
        *tag_u = false, *tag_c = true;
        break;
    case 2:
        *tag_u = true, *tag_c = false;
        break;
    case 4:
        *tag_u = *tag_c = true;
        break;
    default:
        *tag_u = *tag_c = true;
        if (lookup(q, b, k, true, user, true, client, clen) ||
            lookup(q, b, k, true, user, true, NULL, 0))
            break;
        *tag_c = false;
        if (lookup(q, b, k, true, user, false, NULL, 0))
            break;
        *tag_c = true;
        if (lookup(q, b, k, true, NULL, true, client, clen) ||
            lookup(q, b, k, true, NULL, true, NULL, 0))
            break;
        *tag_c = false;
        if (lookup(q, b, k, true, NULL, false, NULL, 0))
            break;
        *tag_u = false, *tag_c = true;
        break;
    }
    /* an empty tag is no name (Kafka tests isEmpty) */
    if (*tag_u && user[0] == '\0')
        *tag_u = false;
    if (*tag_c && clen == 0)
        *tag_c = false;
    /* DefaultQuotaCallback.findQuota over the tags */
    if (*tag_u && *tag_c) {
        if ((e = lookup(q, b, k, true, user, true, client, clen)) == NULL &&
            (e = lookup(q, b, k, true, user, true, NULL, 0)) == NULL &&
            (e = lookup(q, b, k, true, NULL, true, client, clen)) == NULL)
            e = lookup(q, b, k, true, NULL, true, NULL, 0);
    } else if (*tag_u) {
        if ((e = lookup(q, b, k, true, user, false, NULL, 0)) == NULL)
            e = lookup(q, b, k, true, NULL, false, NULL, 0);
    } else if (*tag_c) {
        if ((e = lookup(q, b, k, false, NULL, true, client, clen)) == NULL)
            e = lookup(q, b, k, false, NULL, true, NULL, 0);
    }
    *bound = e ? e->v[k] : -1;
}

/* Frees sensors idle for a whole window (every second at most). */
static void
sweep(gr_client_quotas_t *q, int64_t now_ms)
{
    int64_t expire = (int64_t)q->samples * q->win_ms;
    if (now_ms - q->swept_ms < 1000)
        return;
    q->swept_ms = now_ms;
    for (int i = 0; i < NBUCKETS; i++) {
        sensor_t **pp = &q->shash[i];
        while (*pp) {
            sensor_t *s = *pp;
            /* a bucket goes once it would be full again: a new one is */
            bool owes = s->bound > 0 &&
                        s->tokens + s->bound * (double)(now_ms - s->tokens_ms) /
                                        1000.0 <
                            s->bound * (double)q->burst_ms / 1000.0;
            if (now_ms - s->last_ms > expire && !owes) {
                *pp = s->hnext;
                free(s->key);
                free(s);
                q->nsensors--;
            } else {
                pp = &s->hnext;
            }
        }
    }
}

/* The sensor of (t, tags), made when missing (NULL: out of memory). */
static sensor_t *
sensor_get(gr_client_quotas_t *q, gr_cq_type_t t, bool tag_u, const char *user,
           bool tag_c, const char *client, size_t clen, gr_buf_t *b)
{
    sensor_t *s;
    uint32_t h;
    gr_buf_reset(b);
    gr_buf_putc(b, (char)('0' + t));
    gr_buf_putc(b, ':');
    if (tag_u)
        put_sanitized(b, user, strlen(user));
    gr_buf_putc(b, ':');
    if (tag_c)
        put_sanitized(b, client, clen);
    h = str_hash(gr_buf_cstr(b)) % NBUCKETS;
    for (s = q->shash[h]; s; s = s->hnext)
        if (strcmp(s->key, gr_buf_cstr(b)) == 0)
            return s;
    if ((s = calloc(1, sizeof(*s))) == NULL ||
        (s->key = strdup(gr_buf_cstr(b))) == NULL) {
        free(s);
        return NULL;
    }
    s->rate.samples = q->samples;
    s->rate.win_ms = q->win_ms;
    s->hnext = q->shash[h];
    q->shash[h] = s;
    q->nsensors++;
    return s;
}

/* Resolves (user, client_id) for t: the sensor and the bound. */
static sensor_t *
find_sensor(gr_client_quotas_t *q, gr_cq_type_t t, const char *user,
            const gr_str_t *client_id, double *bound)
{
    gr_buf_t b = GR_BUF_INIT;
    const char *client = client_id && client_id->len > 0 ? client_id->ptr : "";
    size_t clen = client_id && client_id->len > 0 ? (size_t)client_id->len : 0;
    bool tag_u, tag_c;
    sensor_t *s = NULL;
    resolve(q, t, user ? user : "", client, clen, &b, &tag_u, &tag_c, bound);
    if (*bound > 0)
        s = sensor_get(q, t, tag_u, user ? user : "", tag_c, client, clen, &b);
    gr_buf_fini(&b);
    return s;
}

int64_t
gr_client_quotas_record(gr_client_quotas_t *q, gr_cq_type_t t, const char *user,
                        const gr_str_t *client_id, double v, int64_t now_ms)
{
    double bound;
    sensor_t *s;
    int64_t ms;
    if (!gr_client_quotas_enabled(q, t))
        return 0;
    sweep(q, now_ms);
    if ((s = find_sensor(q, t, user, client_id, &bound)) == NULL)
        return 0; /* no quota holds (or out of memory: none enforced) */
    s->last_ms = now_ms;
    ms = gr_rate_record_value_throttle(&s->rate, v, bound, now_ms);
    if (t == GR_CQT_REQUEST && ms > q->win_ms)
        ms = q->win_ms; /* boundedThrottleTime: quota.window.size */
    return ms;
}

void
gr_client_quotas_unrecord(gr_client_quotas_t *q, gr_cq_type_t t,
                          const char *user, const gr_str_t *client_id, double v,
                          int64_t now_ms)
{
    double bound;
    sensor_t *s;
    if (!gr_client_quotas_enabled(q, t))
        return;
    if ((s = find_sensor(q, t, user, client_id, &bound)) != NULL)
        gr_rate_record(&s->rate, -v, now_ms);
}

/* TokenBucket.refill at now_ms with quota bound: *s's tokens. */
static double
bucket_refill(sensor_t *s, const gr_client_quotas_t *q, double bound,
              int64_t now_ms)
{
    double burst = ((double)q->burst_ms / 1000.0) * bound;
    double t = s->tokens + bound * ((double)(now_ms - s->tokens_ms) / 1000.0);
    if (s->tokens_ms == 0)
        t = burst; /* a new bucket (Kafka's refills from the epoch) */
    s->tokens = t < burst ? t : burst;
    s->tokens_ms = now_ms;
    s->bound = bound;
    return s->tokens;
}

/* ControllerMutationQuotaManager.throttleTimeMs: the time the bucket
 * needs to be back at zero, Math.round(-tokens / quota x 1000). */
static int64_t
bucket_throttle(const sensor_t *s, double bound)
{
    double ms = -s->tokens / bound * 1000.0;
    if (ms <= 0)
        return 0;
    return ms < 9.2e18 ? (int64_t)(ms + 0.5) : INT64_MAX; /* ms > 0 */
}

static sensor_t *
bucket_find(gr_client_quotas_t *q, const char *user,
            const gr_str_t *client_id, int64_t now_ms, double *bound)
{
    sensor_t *s;
    if (!gr_client_quotas_enabled(q, GR_CQT_MUTATION))
        return NULL;
    sweep(q, now_ms);
    if ((s = find_sensor(q, GR_CQT_MUTATION, user, client_id, bound)) == NULL)
        return NULL; /* no quota holds (or out of memory: none enforced) */
    s->last_ms = now_ms;
    bucket_refill(s, q, *bound, now_ms);
    return s;
}

int64_t
gr_client_quotas_mutation_check(gr_client_quotas_t *q, const char *user,
                                const gr_str_t *client_id, int64_t now_ms)
{
    double bound;
    sensor_t *s = bucket_find(q, user, client_id, now_ms, &bound);
    /* Sensor.checkQuotas: a TokenBucket is exceeded below zero only */
    return s != NULL && s->tokens < 0 ? bucket_throttle(s, bound) : 0;
}

int64_t
gr_client_quotas_mutation_record(gr_client_quotas_t *q, const char *user,
                                 const gr_str_t *client_id, double permits,
                                 int64_t now_ms)
{
    double bound, burst;
    sensor_t *s = bucket_find(q, user, client_id, now_ms, &bound);
    if (s == NULL)
        return 0;
    burst = ((double)q->burst_ms / 1000.0) * bound;
    s->tokens -= permits;
    if (s->tokens > burst)
        s->tokens = burst;
    return bucket_throttle(s, bound);
}

double
gr_client_quotas_bound(gr_client_quotas_t *q, gr_cq_type_t t, const char *user,
                       const gr_str_t *client_id)
{
    gr_buf_t b = GR_BUF_INIT;
    const char *client = client_id && client_id->len > 0 ? client_id->ptr : "";
    size_t clen = client_id && client_id->len > 0 ? (size_t)client_id->len : 0;
    bool tag_u, tag_c;
    double bound = -1;
    if (gr_client_quotas_enabled(q, t))
        resolve(q, t, user ? user : "", client, clen, &b, &tag_u, &tag_c,
                &bound);
    gr_buf_fini(&b);
    return bound;
}

int64_t
gr_client_quotas_window_max(gr_client_quotas_t *q, gr_cq_type_t t,
                            const char *user, const gr_str_t *client_id)
{
    double bound = gr_client_quotas_bound(q, t, user, client_id), m;
    if (bound <= 0)
        return INT64_MAX;
    m = bound * (double)(q->samples - 1) * ((double)q->win_ms / 1000.0);
    return m < 9.2e18 ? (int64_t)m : INT64_MAX;
}
