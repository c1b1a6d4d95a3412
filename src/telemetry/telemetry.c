/*
 * Client telemetry: the subscriptions, the instance cache and the Get and
 * Push checks of Kafka's ClientMetricsManager and ClientMetricsInstance
 * (see telemetry.h); exports are handed to workers (export.c).
 *
 * The cache is a hash table of instances by id with an LRU list (most
 * recently used first) bounded at GR_TELEMETRY_CACHE_MAX, as Kafka's
 * LRUCache; each instance has its expiry timer, re-armed by each request
 * (Kafka's ExpirationTimerTask). The connection map is Kafka's
 * clientConnectionIdMap: connection id -> the instance that connection
 * last made. Java's iteration orders are followed where they show on the
 * wire: the requested metrics and the subscription id depend on the
 * order of Kafka's HashSet of metric names, which depends on that of its
 * map of subscriptions (client_metrics.h, gr_java_hash_order).
 */
#include "telemetry/telemetry.h"
#include "core/arena.h"
#include "core/crc32c.h"
#include "core/json.h"
#include "core/log.h"
#include "core/time.h"
#include "telemetry/client_metrics.h"
#include "telemetry/telemetry_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HSIZE 32768 /* instance buckets: twice the cache's bound */

typedef struct instance {
    gr_telemetry_t *t;
    gr_uuid_t id;
    char *attrs[GR_CM_NATTRS]; /* from the request that first named it */
    int32_t subscription_id;
    int32_t push_interval_ms;
    uint32_t version; /* of the subscriptions it was made from */
    char **metrics;
    int nmetrics;
    int64_t last_get_ms, last_push_ms;
    bool terminating;
    gr_kerr_t last_error;
    gr_timer_t expiry;
    uint64_t expiry_conn; /* the connection of the timer's request */
    char *latest;         /* its latest push's lines (keep_latest), or NULL */
    size_t latest_len;
    struct instance *hnext;
    struct instance *lru_prev, *lru_next;
} instance_t;

typedef struct conn_ent {
    struct conn_ent *next;
    uint64_t conn_id;
    gr_uuid_t id;
} conn_ent_t;

struct gr_telemetry {
    gr_loop_t *loop;
    gr_workers_t *workers;
    int32_t max_bytes;
    int sink_fd; /* -1: none */
    int32_t cache_expiry_ms;
    gr_cm_sub_t **subs; /* in creation order */
    int nsubs, subs_cap;
    uint32_t version;
    instance_t **htab; /* HSIZE buckets, made at the first instance */
    int ninst;
    instance_t *lru_head, *lru_tail;
    conn_ent_t **ctab;
    uint32_t csize;
    int nconn;
    int jobs; /* exports on workers */
    bool keep_latest;
    int64_t latest_bytes, latest_dropped;
};

/* Kafka's SUPPORTED_COMPRESSION_TYPES, in its order: zstd, lz4, gzip,
 * snappy */
static const int8_t compression_types[] = { 4, 3, 1, 2 };

gr_telemetry_t *
gr_telemetry_new(gr_loop_t *loop, gr_workers_t *workers, int32_t max_bytes,
                 const char *sink_path)
{
    gr_telemetry_t *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->loop = loop;
    t->workers = workers;
    t->max_bytes = max_bytes;
    t->cache_expiry_ms = GR_TELEMETRY_CACHE_EXPIRY_MS;
    t->sink_fd = -1;
    if (sink_path != NULL) {
        t->sink_fd = open(sink_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                          0644);
        if (t->sink_fd < 0) {
            GR_LOG_ERROR("gregor.client.telemetry.file %s: %s", sink_path,
                         strerror(errno));
            free(t);
            return NULL;
        }
        GR_LOG_INFO("client telemetry: pushed metrics go to %s", sink_path);
    }
    return t;
}

static void instance_free(instance_t *in);

void
gr_telemetry_destroy(gr_telemetry_t *t)
{
    if (t == NULL)
        return;
    GR_ASSERT(t->jobs == 0);
    while (t->lru_head != NULL) {
        instance_t *in = t->lru_head;
        t->lru_head = in->lru_next;
        instance_free(in);
    }
    for (uint32_t i = 0; i < t->csize; i++)
        while (t->ctab[i] != NULL) {
            conn_ent_t *e = t->ctab[i];
            t->ctab[i] = e->next;
            free(e);
        }
    free(t->ctab);
    free(t->htab);
    for (int i = 0; i < t->nsubs; i++)
        gr_cm_sub_destroy(t->subs[i]);
    free(t->subs);
    if (t->sink_fd >= 0)
        close(t->sink_fd);
    free(t);
}

bool
gr_telemetry_exporting(const gr_telemetry_t *t)
{
    /* kept for the metrics: advertised once a subscription asks clients
     * for metrics (without one they would push nothing) */
    return t != NULL && (t->sink_fd >= 0 || (t->keep_latest && t->nsubs > 0));
}

void
gr_telemetry_keep_latest(gr_telemetry_t *t, bool on)
{
    if (t != NULL)
        t->keep_latest = on;
}

int64_t
gr_telemetry_latest_dropped(const gr_telemetry_t *t)
{
    return t != NULL ? t->latest_dropped : 0;
}

int64_t
gr_telemetry_latest_bytes(const gr_telemetry_t *t)
{
    return t != NULL ? t->latest_bytes : 0;
}

void
gr_telemetry_latest_foreach(gr_telemetry_t *t, gr_telemetry_latest_cb cb,
                            void *arg)
{
    if (t == NULL)
        return;
    for (instance_t *in = t->lru_head; in != NULL; in = in->lru_next) {
        char b64[23];
        const char *cid = in->attrs[GR_CM_CLIENT_ID];
        if (in->latest == NULL)
            continue;
        gr_uuid_to_base64(&in->id, b64);
        cb(arg, b64, cid != NULL ? cid : "", in->latest, in->latest_len);
    }
}

void
gr_telemetry_set_cache_expiry(gr_telemetry_t *t, int32_t ms)
{
    t->cache_expiry_ms = ms;
}

/* --- subscriptions */

int
gr_telemetry_subscribe(gr_telemetry_t *t, const char *name,
                       const char *const *keys, const char *const *values,
                       int n)
{
    gr_cm_sub_t *s = NULL;
    int i;

    for (i = 0; i < t->nsubs; i++)
        if (strcmp(t->subs[i]->name, name) == 0)
            break;
    if (n == 0) {
        /* updateSubscription with no configs: removed, if it was there */
        if (i == t->nsubs)
            return 0;
        gr_cm_sub_destroy(t->subs[i]);
        memmove(&t->subs[i], &t->subs[i + 1],
                (size_t)(t->nsubs - i - 1) * sizeof(*t->subs));
        t->nsubs--;
        t->version++;
        GR_LOG_DEBUG("client metrics subscription %s removed", name);
        return 0;
    }
    if ((s = gr_cm_sub_new(name, keys, values, n)) == NULL)
        return -1;
    if (i == t->nsubs) {
        if (t->nsubs == t->subs_cap) {
            int cap = t->subs_cap ? 2 * t->subs_cap : 8;
            gr_cm_sub_t **v = realloc(t->subs, (size_t)cap * sizeof(*v));
            if (v == NULL) {
                gr_cm_sub_destroy(s);
                return -1;
            }
            t->subs = v;
            t->subs_cap = cap;
        }
        t->subs[t->nsubs++] = s;
    } else {
        gr_cm_sub_destroy(t->subs[i]);
        t->subs[i] = s;
    }
    t->version++;
    GR_LOG_DEBUG("client metrics subscription %s: %d metric prefixes every "
                "%d ms",
                name, s->nmetrics, (int)s->interval_ms);
    return 0;
}

/* --- the instance cache */

static uint32_t
id_bucket(const gr_uuid_t *id)
{
    return gr_hash(id->b, sizeof id->b) & (HSIZE - 1);
}

static void
lru_unlink(gr_telemetry_t *t, instance_t *in)
{
    if (in->lru_prev)
        in->lru_prev->lru_next = in->lru_next;
    else
        t->lru_head = in->lru_next;
    if (in->lru_next)
        in->lru_next->lru_prev = in->lru_prev;
    else
        t->lru_tail = in->lru_prev;
    in->lru_prev = in->lru_next = NULL;
}

static void
lru_push(gr_telemetry_t *t, instance_t *in)
{
    in->lru_prev = NULL;
    in->lru_next = t->lru_head;
    if (t->lru_head)
        t->lru_head->lru_prev = in;
    else
        t->lru_tail = in;
    t->lru_head = in;
}

static void
instance_free(instance_t *in)
{
    if (in == NULL)
        return;
    gr_timer_stop(in->t->loop, &in->expiry);
    in->t->latest_bytes -= (int64_t)in->latest_len;
    free(in->latest);
    for (int i = 0; i < GR_CM_NATTRS; i++)
        free(in->attrs[i]);
    for (int i = 0; i < in->nmetrics; i++)
        free(in->metrics[i]);
    free(in->metrics);
    free(in);
}

/* Takes in out of the table and the LRU list (not freed). */
static void
cache_unlink(gr_telemetry_t *t, instance_t *in)
{
    instance_t **pp = &t->htab[id_bucket(&in->id)];
    while (*pp != in)
        pp = &(*pp)->hnext;
    *pp = in->hnext;
    lru_unlink(t, in);
    t->ninst--;
}

/* LRUCache.get: the instance (now the most recent), or NULL. */
static instance_t *
cache_get(gr_telemetry_t *t, const gr_uuid_t *id)
{
    instance_t *in;
    if (t->htab == NULL)
        return NULL;
    for (in = t->htab[id_bucket(id)]; in; in = in->hnext)
        if (gr_uuid_eq(&in->id, id)) {
            lru_unlink(t, in);
            lru_push(t, in);
            return in;
        }
    return NULL;
}

/* LRUCache.put: in replaces any instance of its id (freed) and the least
 * recently used goes past the bound. 0, or -1 (ENOMEM). */
static int
cache_put(gr_telemetry_t *t, instance_t *in)
{
    instance_t *old;
    if (t->htab == NULL &&
        (t->htab = calloc(HSIZE, sizeof(*t->htab))) == NULL)
        return -1;
    for (old = t->htab[id_bucket(&in->id)]; old; old = old->hnext)
        if (gr_uuid_eq(&old->id, &in->id))
            break;
    if (old != NULL) {
        cache_unlink(t, old);
        instance_free(old);
    }
    in->hnext = t->htab[id_bucket(&in->id)];
    t->htab[id_bucket(&in->id)] = in;
    lru_push(t, in);
    t->ninst++;
    if (t->ninst > GR_TELEMETRY_CACHE_MAX) {
        instance_t *eldest = t->lru_tail;
        char b64[23];
        gr_uuid_to_base64(&eldest->id, b64);
        GR_LOG_DEBUG("client telemetry: instance %s evicted from the full "
                     "cache",
                     b64);
        cache_unlink(t, eldest);
        instance_free(eldest);
    }
    return 0;
}

/* --- the connection map */

static conn_ent_t **
conn_slot(gr_telemetry_t *t, uint64_t conn_id)
{
    conn_ent_t **pp;
    if (t->csize == 0)
        return NULL;
    for (pp = &t->ctab[conn_id & (t->csize - 1)]; *pp; pp = &(*pp)->next)
        if ((*pp)->conn_id == conn_id)
            break;
    return pp;
}

static void
conn_put(gr_telemetry_t *t, uint64_t conn_id, const gr_uuid_t *id)
{
    conn_ent_t **pp, *e;
    if (conn_id == 0)
        return;
    if (t->nconn >= (int)t->csize) { /* grow: 1 entry a bucket */
        uint32_t n = t->csize ? 2 * t->csize : 256;
        conn_ent_t **v = calloc(n, sizeof(*v));
        if (v == NULL && t->csize == 0)
            return; /* the instance still expires */
        if (v != NULL) {
            for (uint32_t i = 0; i < t->csize; i++)
                while (t->ctab[i]) {
                    e = t->ctab[i];
                    t->ctab[i] = e->next;
                    e->next = v[e->conn_id & (n - 1)];
                    v[e->conn_id & (n - 1)] = e;
                }
            free(t->ctab);
            t->ctab = v;
            t->csize = n;
        }
    }
    pp = conn_slot(t, conn_id);
    if (*pp != NULL) {
        (*pp)->id = *id;
        return;
    }
    if ((e = calloc(1, sizeof(*e))) == NULL)
        return;
    e->conn_id = conn_id;
    e->id = *id;
    *pp = e;
    t->nconn++;
}

/* Removes the entry of conn_id; true with its instance id in *id. */
static bool
conn_take(gr_telemetry_t *t, uint64_t conn_id, gr_uuid_t *id)
{
    conn_ent_t **pp = conn_slot(t, conn_id), *e;
    if (pp == NULL || *pp == NULL)
        return false;
    e = *pp;
    *pp = e->next;
    *id = e->id;
    free(e);
    t->nconn--;
    return true;
}

void
gr_telemetry_conn_closed(gr_telemetry_t *t, uint64_t conn_id)
{
    gr_uuid_t id;
    instance_t *in;
    if (!conn_take(t, conn_id, &id))
        return;
    if ((in = cache_get(t, &id)) != NULL) {
        cache_unlink(t, in);
        instance_free(in);
    }
}

static void
expired(gr_loop_t *loop, gr_timer_t *tm)
{
    instance_t *in = tm->data;
    gr_telemetry_t *t = in->t;
    gr_uuid_t id;
    (void)loop;
    /* as the ExpirationTimerTask: the map entry of its connection goes,
     * whichever instance it names, and the instance */
    conn_take(t, in->expiry_conn, &id);
    cache_unlink(t, in);
    instance_free(in);
}

/* --- making instances */

/* Java's Uuid.hashCode(). */
static int32_t
uuid_hash(const gr_uuid_t *id)
{
    uint64_t msb = 0, lsb = 0, x;
    for (int i = 0; i < 8; i++) {
        msb = msb << 8 | id->b[i];
        lsb = lsb << 8 | id->b[8 + i];
    }
    x = msb ^ lsb;
    return (int32_t)((uint32_t)(x >> 32) ^ (uint32_t)x);
}

/* Kafka's createClientInstance: the metrics of every matching
 * subscription (in its map's order) into a HashSet, "*" alone if one asks
 * for all; the smallest interval; the subscription id over Java's text of
 * the set. NULL on ENOMEM; attrs are taken over on success. */
static instance_t *
instance_make(gr_telemetry_t *t, const gr_uuid_t *id,
              char *attrs[GR_CM_NATTRS])
{
    instance_t *in = calloc(1, sizeof(*in));
    const char **names = NULL, **all = NULL;
    int *sorder = NULL, *morder = NULL, nall = 0, cap = 0;
    bool star = false;
    gr_buf_t text = GR_BUF_INIT;

    if (in == NULL)
        return NULL;
    in->t = t;
    in->id = *id;
    in->version = t->version;
    in->push_interval_ms = GR_CM_INTERVAL_DEFAULT;
    in->last_error = GR_KERR_NONE;
    gr_timer_init(&in->expiry, expired, in);
    if (t->nsubs > 0) {
        names = malloc((size_t)t->nsubs * sizeof(*names));
        sorder = malloc((size_t)t->nsubs * sizeof(*sorder));
        if (names == NULL || sorder == NULL)
            goto fail;
        for (int i = 0; i < t->nsubs; i++)
            names[i] = t->subs[i]->name;
        gr_java_hash_order(names, t->nsubs, GR_JAVA_CHM, sorder);
    }
    for (int k = 0; k < t->nsubs; k++) {
        const gr_cm_sub_t *s = t->subs[sorder[k]];
        if (!gr_cm_sub_matches(s, (const char *const *)attrs))
            continue;
        for (int i = 0; i < s->nmetrics; i++) {
            bool dup = false;
            star |= strcmp(s->metrics[i], "*") == 0;
            for (int j = 0; j < nall && !dup; j++)
                dup = strcmp(all[j], s->metrics[i]) == 0;
            if (dup)
                continue;
            if (nall == cap) {
                const char **v;
                cap = cap ? 2 * cap : 16;
                if ((v = realloc(all, (size_t)cap * sizeof(*v))) == NULL)
                    goto fail;
                all = v;
            }
            all[nall++] = s->metrics[i];
        }
        if (s->interval_ms < in->push_interval_ms)
            in->push_interval_ms = s->interval_ms;
    }
    if (star) {
        all[0] = "*";
        nall = 1;
    }
    if (nall > 0) {
        if ((morder = malloc((size_t)nall * sizeof(*morder))) == NULL ||
            (in->metrics = calloc((size_t)nall, sizeof(char *))) == NULL)
            goto fail;
        gr_java_hash_order(all, nall, GR_JAVA_HASHMAP, morder);
        for (int i = 0; i < nall; i++) {
            if ((in->metrics[i] = strdup(all[morder[i]])) == NULL)
                goto fail;
            in->nmetrics++;
        }
    }
    /* computeSubscriptionId: (metrics.toString() + pushIntervalMs) */
    gr_buf_putc(&text, '[');
    for (int i = 0; i < in->nmetrics; i++) {
        if (i > 0)
            gr_buf_puts(&text, ", ");
        gr_buf_puts(&text, in->metrics[i]);
    }
    gr_buf_printf(&text, "]%d", (int)in->push_interval_ms);
    if (text.oom)
        goto fail;
    in->subscription_id =
        (int32_t)gr_crc32c(text.ptr, text.len) ^ uuid_hash(id);
    gr_buf_fini(&text);
    memcpy(in->attrs, attrs, sizeof in->attrs);
    memset(attrs, 0, GR_CM_NATTRS * sizeof(char *));
    free(names);
    free(sorder);
    free(morder);
    free(all);
    return in;
fail:
    gr_buf_fini(&text);
    free(names);
    free(sorder);
    free(morder);
    free(all);
    instance_free(in);
    return NULL;
}

/* The attributes of a request's client (ClientMetricsInstanceMetadata):
 * malloc'ed, NULL for a null one. 0, or -1 (ENOMEM: all freed). */
static int
client_attrs(const gr_uuid_t *id, const gr_telemetry_client_t *cl,
             char *attrs[GR_CM_NATTRS])
{
    char b64[23], port[16];
    const char *v[GR_CM_NATTRS];
    gr_uuid_to_base64(id, b64);
    snprintf(port, sizeof port, "%d", cl->source_port);
    v[GR_CM_CLIENT_INSTANCE_ID] = b64;
    v[GR_CM_CLIENT_ID] = cl->client_id;
    v[GR_CM_CLIENT_SOFTWARE_NAME] = cl->software_name;
    v[GR_CM_CLIENT_SOFTWARE_VERSION] = cl->software_version;
    v[GR_CM_CLIENT_SOURCE_ADDRESS] =
        cl->source_address && cl->source_address[0] ? cl->source_address
                                                    : NULL;
    v[GR_CM_CLIENT_SOURCE_PORT] = cl->source_port >= 0 ? port : NULL;
    for (int i = 0; i < GR_CM_NATTRS; i++) {
        attrs[i] = v[i] ? strdup(v[i]) : NULL;
        if (v[i] && attrs[i] == NULL) {
            for (int j = 0; j < i; j++)
                free(attrs[j]);
            return -1;
        }
    }
    return 0;
}

/* Kafka's clientInstance(): the cached instance of id, made if missing or
 * made again if the subscriptions changed since; its expiry renewed. NULL
 * on ENOMEM. */
static instance_t *
instance_for(gr_telemetry_t *t, const gr_uuid_t *id,
             const gr_telemetry_client_t *cl)
{
    instance_t *in = cache_get(t, id), *fresh;
    char *attrs[GR_CM_NATTRS];
    int64_t expiry;

    if (in == NULL) {
        if (client_attrs(id, cl, attrs) != 0)
            return NULL;
        if ((in = instance_make(t, id, attrs)) == NULL ||
            cache_put(t, in) != 0) {
            for (int i = 0; i < GR_CM_NATTRS; i++)
                free(attrs[i]);
            instance_free(in);
            return NULL;
        }
        conn_put(t, cl->conn_id, id);
    } else if (in->version < t->version) {
        /* made again with the metadata it was first seen with */
        if ((fresh = instance_make(t, id, in->attrs)) == NULL)
            return NULL;
        cache_unlink(t, in);
        instance_free(in);
        in = fresh;
        if (cache_put(t, in) != 0) {
            instance_free(in);
            return NULL;
        }
        conn_put(t, cl->conn_id, id);
    }
    expiry = (int64_t)in->push_interval_ms * 3;
    if (expiry < t->cache_expiry_ms)
        expiry = t->cache_expiry_ms;
    in->expiry_conn = cl->conn_id;
    gr_timer_start(t->loop, &in->expiry, expiry);
    return in;
}

static bool
reserved(const gr_uuid_t *id)
{
    static const gr_uuid_t one = { { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                     0, 0, 1 } };
    return gr_uuid_is_zero(id) || gr_uuid_eq(id, &one);
}

/* generateNewClientId(): Uuid.randomUuid() (not reserved, no "-" in its
 * text) not in the cache. */
static void
new_id(gr_telemetry_t *t, gr_uuid_t *id)
{
    char b64[23];
    for (;;) {
        gr_uuid_random(id);
        gr_uuid_to_base64(id, b64);
        if (reserved(id) || strchr(b64, '-') != NULL)
            continue;
        if (cache_get(t, id) == NULL)
            return;
    }
}

/* --- Get and Push */

gr_kerr_t
gr_telemetry_get(gr_telemetry_t *t, const gr_uuid_t *requested,
                 const gr_telemetry_client_t *cl, struct gr_arena *a,
                 gr_telemetry_subscription_t *out)
{
    int64_t now = gr_wall_ms();
    gr_uuid_t id = *requested;
    instance_t *in;
    const char **m;

    memset(out, 0, sizeof *out);
    if (gr_uuid_is_zero(&id))
        new_id(t, &id);
    if ((in = instance_for(t, &id, cl)) == NULL)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    /* maybeUpdateGetRequestTimestamp */
    if (now - (in->last_get_ms > in->last_push_ms ? in->last_get_ms
                                                  : in->last_push_ms) >=
        in->push_interval_ms) {
        in->last_get_ms = now;
    } else if (in->last_error != GR_KERR_UNKNOWN_SUBSCRIPTION_ID &&
               in->last_error != GR_KERR_UNSUPPORTED_COMPRESSION_TYPE) {
        GR_LOG_DEBUG("GetTelemetrySubscriptions from %s arrived before the "
                     "next push interval",
                     cl->peer);
        return GR_KERR_THROTTLING_QUOTA_EXCEEDED;
    }
    in->last_error = GR_KERR_NONE;
    if ((m = gr_arena_alloc(a, (size_t)(in->nmetrics + 1) * sizeof(*m))) ==
        NULL)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    for (int i = 0; i < in->nmetrics; i++)
        m[i] = in->metrics[i];
    out->client_instance_id = id;
    out->subscription_id = in->subscription_id;
    out->push_interval_ms = in->push_interval_ms;
    out->telemetry_max_bytes = t->max_bytes;
    out->metrics = m;
    out->nmetrics = in->nmetrics;
    out->compression_types = compression_types;
    out->ncompression_types = (int)sizeof compression_types;
    return GR_KERR_NONE;
}

/* validatePushRequest, with maybeUpdatePushRequestTimestamp. */
static gr_kerr_t
push_check(gr_telemetry_t *t, instance_t *in, const gr_telemetry_push_t *p,
           int64_t now)
{
    bool accept;
    if (in->terminating)
        return GR_KERR_INVALID_REQUEST;
    accept = in->last_get_ms > in->last_push_ms ||
             now - in->last_push_ms >= in->push_interval_ms;
    if (accept)
        in->last_push_ms = now;
    else if (!p->terminating)
        return GR_KERR_THROTTLING_QUOTA_EXCEEDED;
    if (p->subscription_id != in->subscription_id)
        return GR_KERR_UNKNOWN_SUBSCRIPTION_ID;
    if (p->compression_type < 0 || p->compression_type > 4)
        return GR_KERR_UNSUPPORTED_COMPRESSION_TYPE;
    if (p->metrics_len > (size_t)t->max_bytes)
        return GR_KERR_TELEMETRY_TOO_LARGE;
    return GR_KERR_NONE;
}

static void
job_free(gr_telemetry_job_t *job)
{
    gr_buf_fini(&job->latest);
    free(job->payload);
    free(job->prefix);
    free(job->client_id);
    free(job->peer);
    free(job);
}

/* The export's end, on the loop: the instance's last error, a log line,
 * the answer. */
static void
job_finish(gr_telemetry_job_t *job)
{
    gr_telemetry_t *t = job->t;
    instance_t *in = NULL;
    char b64[23];

    gr_uuid_to_base64(&job->id, b64);
    if (t->htab != NULL)
        for (in = t->htab[id_bucket(&job->id)]; in; in = in->hnext)
            if (gr_uuid_eq(&in->id, &job->id))
                break;
    if (in != NULL)
        in->last_error = job->err;
    if (in != NULL && job->keep && job->err == GR_KERR_NONE) {
        size_t n = job->latest.len;
        if (!job->latest_ok) {
            t->latest_dropped++; /* over GR_TELEMETRY_LATEST_MAX */
        } else if (t->latest_bytes - (int64_t)in->latest_len + (int64_t)n >
                   GR_TELEMETRY_LATEST_TOTAL) {
            t->latest_dropped++;
        } else {
            t->latest_bytes += (int64_t)n - (int64_t)in->latest_len;
            free(in->latest);
            in->latest = (char *)job->latest.ptr; /* taken over */
            in->latest_len = n;
            if (n == 0) {
                free(in->latest);
                in->latest = NULL;
            }
            memset(&job->latest, 0, sizeof job->latest);
        }
    }
    if (job->err != GR_KERR_NONE)
        GR_LOG_WARN("client telemetry: cannot export the metrics of client "
                    "instance %s (client %s, %s): %s; INVALID_RECORD",
                    b64, job->client_id, job->peer, job->why);
    else if (job->sink_fd >= 0)
        GR_LOG_DEBUG("client telemetry: client instance %s (client %s, %s) "
                     "pushed %lld metrics, %lld data points (%zu bytes, %zu "
                     "decoded, in %lld us)",
                     b64, job->client_id, job->peer,
                     (long long)job->st.metrics, (long long)job->st.points,
                     job->len, job->decompressed, (long long)job->us);
    else
        GR_LOG_DEBUG("client telemetry: client instance %s (client %s, %s) "
                     "pushed %zu bytes of metrics; no telemetry file, "
                     "dropped",
                     b64, job->client_id, job->peer, job->len);
}

static void
job_done(gr_loop_t *loop, void *arg)
{
    gr_telemetry_job_t *job = arg;
    (void)loop;
    job->t->jobs--;
    job_finish(job);
    if (!job->forgotten)
        job->done(job->arg, job->err);
    job_free(job);
}

static void
job_work(void *arg)
{
    gr_telemetry_export_run(arg);
}

void
gr_telemetry_job_forget(gr_telemetry_job_t *job)
{
    job->forgotten = true;
}

/* A new export of p's metrics; NULL on ENOMEM. */
static gr_telemetry_job_t *
job_new(gr_telemetry_t *t, const gr_telemetry_push_t *p,
        const gr_telemetry_client_t *cl)
{
    gr_telemetry_job_t *job = calloc(1, sizeof(*job));
    gr_buf_t prefix = GR_BUF_INIT;
    char b64[23];
    const char *cid = cl->client_id ? cl->client_id : "";

    if (job == NULL)
        return NULL;
    job->t = t;
    job->id = p->client_instance_id;
    job->codec = p->compression_type;
    job->max_bytes = (size_t)t->max_bytes;
    job->sink_fd = t->sink_fd;
    job->keep = t->keep_latest;
    job->len = p->metrics_len;
    gr_uuid_to_base64(&p->client_instance_id, b64);
    gr_buf_puts(&prefix, "\"client_instance_id\":\"");
    gr_buf_puts(&prefix, b64);
    gr_buf_puts(&prefix, "\",\"client_id\":");
    gr_json_put_str(&prefix, cid, strlen(cid));
    gr_buf_putc(&prefix, ',');
    gr_buf_putc(&prefix, '\0');
    job->payload = malloc(p->metrics_len);
    job->client_id = strdup(cid);
    job->peer = strdup(cl->peer ? cl->peer : "?");
    if (prefix.oom || job->payload == NULL || job->client_id == NULL ||
        job->peer == NULL) {
        gr_buf_fini(&prefix);
        job_free(job);
        return NULL;
    }
    job->prefix = (char *)prefix.ptr; /* taken over */
    memcpy(job->payload, p->metrics, p->metrics_len);
    return job;
}

gr_kerr_t
gr_telemetry_push(gr_telemetry_t *t, const gr_telemetry_push_t *p,
                  const gr_telemetry_client_t *cl, gr_telemetry_done_cb done,
                  void *arg, gr_telemetry_job_t **jobp)
{
    int64_t now = gr_wall_ms();
    gr_telemetry_job_t *job;
    instance_t *in;
    gr_kerr_t err;

    *jobp = NULL;
    if (reserved(&p->client_instance_id)) {
        GR_LOG_DEBUG("PushTelemetry from %s: invalid client instance id",
                     cl->peer);
        return GR_KERR_INVALID_REQUEST;
    }
    if ((in = instance_for(t, &p->client_instance_id, cl)) == NULL)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    err = push_check(t, in, p, now);
    in->terminating = p->terminating; /* Kafka's finally */
    if (err != GR_KERR_NONE) {
        GR_LOG_DEBUG("PushTelemetry from %s: %s", cl->peer,
                     gr_kerr_name(err));
        in->last_error = err;
        return err;
    }
    if (p->metrics_len == 0) {
        in->last_error = GR_KERR_NONE;
        return GR_KERR_NONE;
    }
    if ((job = job_new(t, p, cl)) == NULL)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    job->done = done;
    job->arg = arg;
    if (t->workers != NULL &&
        gr_workers_submit(t->workers, job_work, job_done, job) == 0) {
        t->jobs++;
        *jobp = job;
        return GR_KERR_NONE;
    }
    /* no worker: here and now */
    gr_telemetry_export_run(job);
    job_finish(job);
    err = job->err;
    job_free(job);
    return err;
}
