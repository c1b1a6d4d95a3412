/* Topic creation on demand: see topics.h. */
#include "api/topics.h"
#include "cluster/client_quotas.h"
#include "core/time.h"
#include "core/log.h"
#include "net/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool
gr_topic_is_internal_name(const gr_str_t *name)
{
    return gr_str_eq_cstr(name, GR_TOPIC_CONSUMER_OFFSETS) ||
           gr_str_eq_cstr(name, GR_TOPIC_TRANSACTION_STATE);
}

typedef struct fkey {
    const char *ptr;
    int32_t len;
    int32_t i;
} fkey_t;

static int
fkey_cmp(const void *x, const void *y)
{
    const fkey_t *a = x, *b = y;
    int c;

    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    c = a->len > 0 ? memcmp(a->ptr, b->ptr, (size_t)a->len) : 0;
    if (c != 0)
        return c;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* The first-of by sorting copies of the keys: O(n log n) whatever the
 * keys (see gr_topics_first_of). */
static int32_t *
first_of_sorted(gr_arena_t *a, const gr_str_t *first, size_t stride, int32_t n,
                int32_t *out)
{
    fkey_t *k = gr_arena_alloc(a, n > 0 ? (size_t)n * sizeof(*k) : 1);
    int32_t m = 0;

    if (k == NULL)
        return NULL;
    for (int32_t i = 0; i < n; i++) {
        const gr_str_t *s =
            (const gr_str_t *)(const void *)((const char *)first +
                                             (size_t)i * stride);
        out[i] = i;
        if (s->len >= 0)
            k[m++] = (fkey_t){ s->ptr, s->len, i };
    }
    /* equal keys sort together, the first listed first */
    qsort(k, (size_t)m, sizeof(*k), fkey_cmp);
    for (int32_t j = 1; j < m; j++)
        if (k[j].len == k[j - 1].len &&
            (k[j].len == 0 ||
             memcmp(k[j].ptr, k[j - 1].ptr, (size_t)k[j].len) == 0))
            out[k[j].i] = out[k[j - 1].i];
    return out;
}

static const gr_str_t *
key_at(const gr_str_t *first, size_t stride, int32_t i)
{
    return (const gr_str_t *)(const void *)((const char *)first +
                                            (size_t)i * stride);
}

/* A key's hash, seeded per process (FNV-1a from a random basis), so that
 * names colliding in the table cannot be made in advance; if they are
 * anyway, the probes run out and the sort takes over. */
static uint32_t
key_hash(const gr_str_t *s)
{
    static uint32_t seed;
    uint32_t h;

    if (seed == 0) {
        gr_uuid_t u;
        gr_uuid_random(&u);
        memcpy(&seed, u.b, sizeof seed);
        seed |= 1;
    }
    h = 2166136261u ^ seed;
    for (int32_t i = 0; i < s->len; i++)
        h = (h ^ (uint8_t)s->ptr[i]) * 16777619u;
    return h ^ (h >> 15);
}

int32_t *
gr_topics_first_of(gr_arena_t *a, const gr_str_t *first, size_t stride,
                   int32_t n)
{
    int32_t *out = gr_arena_alloc(a, n > 0 ? (size_t)n * sizeof(*out) : 1);
    int64_t probes = 16 * (int64_t)n + 64; /* then the sort */
    uint32_t cap = 16, mask;
    int32_t *slots;

    if (out == NULL)
        return NULL;
    while (cap < 2 * (uint32_t)n)
        cap *= 2;
    slots = gr_arena_alloc(a, (size_t)cap * sizeof(*slots));
    if (slots == NULL)
        return first_of_sorted(a, first, stride, n, out);
    memset(slots, 0xff, (size_t)cap * sizeof(*slots)); /* -1: empty */
    mask = cap - 1;
    for (int32_t i = 0; i < n; i++) {
        const gr_str_t *s = key_at(first, stride, i);
        uint32_t h;

        out[i] = i;
        if (s->len < 0)
            continue;
        for (h = key_hash(s) & mask; slots[h] != -1; h = (h + 1) & mask) {
            const gr_str_t *o = key_at(first, stride, slots[h]);
            if (o->len == s->len &&
                (s->len == 0 || memcmp(o->ptr, s->ptr, (size_t)s->len) == 0)) {
                out[i] = slots[h];
                break;
            }
            if (--probes < 0)
                return first_of_sorted(a, first, stride, n, out);
        }
        if (out[i] == i)
            slots[h] = i;
    }
    return out;
}

struct gr_nameset {
    const gr_str_t *first;
    size_t stride;
    int32_t n;
    uint32_t mask;
    int32_t *slots; /* indexes of keys, -1 empty; NULL: search the list */
};

static bool
key_is(const gr_str_t *k, const char *name, size_t len)
{
    return k->len >= 0 && (size_t)k->len == len &&
           (len == 0 || memcmp(k->ptr, name, len) == 0);
}

gr_nameset_t *
gr_nameset_new(gr_arena_t *a, const gr_str_t *first, size_t stride, int32_t n)
{
    gr_nameset_t *set = gr_arena_zalloc(a, sizeof(*set));
    int64_t probes = 16 * (int64_t)n + 64;
    uint32_t cap = 16;

    if (set == NULL)
        return NULL;
    set->first = first;
    set->stride = stride;
    set->n = n > 0 ? n : 0;
    while (cap < 2 * (uint32_t)set->n)
        cap *= 2;
    set->slots = gr_arena_alloc(a, (size_t)cap * sizeof(*set->slots));
    if (set->slots == NULL)
        return NULL;
    memset(set->slots, 0xff, (size_t)cap * sizeof(*set->slots));
    set->mask = cap - 1;
    for (int32_t i = 0; i < set->n; i++) {
        const gr_str_t *s = key_at(first, stride, i);
        uint32_t h;
        bool dup = false;
        if (s->len < 0)
            continue;
        for (h = key_hash(s) & set->mask; set->slots[h] != -1 && !dup;
             h = (h + 1) & set->mask) {
            dup = key_is(key_at(first, stride, set->slots[h]), s->ptr,
                         (size_t)s->len);
            if (!dup && --probes < 0) {
                set->slots = NULL; /* colliding keys: search the list */
                return set;
            }
        }
        if (!dup)
            set->slots[h] = i;
    }
    return set;
}

bool
gr_nameset_has(const gr_nameset_t *set, const char *name, size_t len)
{
    gr_str_t k = { name, (int32_t)len };
    uint32_t h;

    if (set->slots == NULL) {
        for (int32_t i = 0; i < set->n; i++)
            if (key_is(key_at(set->first, set->stride, i), name, len))
                return true;
        return false;
    }
    for (h = key_hash(&k) & set->mask; set->slots[h] != -1;
         h = (h + 1) & set->mask)
        if (key_is(key_at(set->first, set->stride, set->slots[h]), name, len))
            return true;
    return false;
}

static int
cmp_int32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return a < b ? -1 : a > b;
}

gr_kerr_t
gr_topics_check_replicas(gr_cluster_t *c, gr_arena_t *a, const int32_t *ids,
                         int32_t n, int32_t rf, const char **msg)
{
    int32_t *sorted;

    if (n <= 0) {
        *msg = "The manual partition assignment includes an empty replica "
               "list.";
        return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
    }
    sorted = gr_arena_alloc(a, (size_t)n * sizeof(*sorted));
    if (sorted == NULL) {
        *msg = NULL;
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    memcpy(sorted, ids, (size_t)n * sizeof(*sorted));
    qsort(sorted, (size_t)n, sizeof(*sorted), cmp_int32);
    for (int32_t i = 0; i < n; i++) {
        if (gr_cluster_node(c, sorted[i]) == NULL) {
            *msg = gr_arena_printf(a,
                                   "The manual partition assignment includes "
                                   "broker %d, but no such broker is "
                                   "registered.",
                                   sorted[i]);
            return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
        }
        if (i > 0 && sorted[i] == sorted[i - 1]) {
            *msg = gr_arena_printf(a,
                                   "The manual partition assignment includes "
                                   "the broker %d more than once.",
                                   sorted[i]);
            return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
        }
    }
    if (rf > 0 && n != rf) {
        *msg = gr_arena_printf(a,
                               "The manual partition assignment includes a "
                               "partition with %d replica(s), but this is not "
                               "consistent with previous partitions, which "
                               "have %d replica(s).",
                               n, rf);
        return GR_KERR_INVALID_REPLICA_ASSIGNMENT;
    }
    return GR_KERR_NONE;
}

gr_kerr_t
gr_topics_auto_create(gr_broker_t *b, const gr_str_t *name, gr_topic_t **out,
                      const char **msg)
{
    char cname[GR_TOPIC_NAME_MAX + 1];
    gr_topic_spec_t spec;
    const char *keys[2], *vals[2];
    char segbuf[32];

    *out = NULL;
    if (name->len <= 0 || name->len > GR_TOPIC_NAME_MAX) {
        *msg = gr_topic_name_invalid(name);
        return GR_KERR_INVALID_TOPIC_EXCEPTION;
    }
    memcpy(cname, name->ptr, (size_t)name->len);
    cname[name->len] = '\0';
    memset(&spec, 0, sizeof spec);
    spec.name = cname;
    if (strcmp(cname, GR_TOPIC_CONSUMER_OFFSETS) == 0) {
        spec.internal = true;
        spec.nparts = (int32_t)gr_conf_int(b->conf,
                                           GR_CONF_OFFSETS_TOPIC_NUM_PARTITIONS);
        spec.replication_factor = (int16_t)gr_conf_int(
            b->conf, GR_CONF_OFFSETS_TOPIC_REPLICATION_FACTOR);
        snprintf(segbuf, sizeof segbuf, "%lld",
                 (long long)gr_conf_int(b->conf,
                                        GR_CONF_OFFSETS_TOPIC_SEGMENT_BYTES));
    } else if (strcmp(cname, GR_TOPIC_TRANSACTION_STATE) == 0) {
        spec.internal = true;
        spec.nparts = (int32_t)gr_conf_int(
            b->conf, GR_CONF_TRANSACTION_STATE_LOG_NUM_PARTITIONS);
        spec.replication_factor = (int16_t)gr_conf_int(
            b->conf, GR_CONF_TRANSACTION_STATE_LOG_REPLICATION_FACTOR);
        snprintf(segbuf, sizeof segbuf, "%lld",
                 (long long)gr_conf_int(
                     b->conf, GR_CONF_TRANSACTION_STATE_LOG_SEGMENT_BYTES));
    } else {
        spec.nparts = (int32_t)gr_conf_int(b->conf, GR_CONF_NUM_PARTITIONS);
        spec.replication_factor =
            (int16_t)gr_conf_int(b->conf, GR_CONF_DEFAULT_REPLICATION_FACTOR);
    }
    if (spec.internal) {
        /* as Kafka creates them: compacted, segment size from the broker */
        keys[0] = "cleanup.policy";
        vals[0] = "compact";
        keys[1] = "segment.bytes";
        vals[1] = segbuf;
        spec.config_keys = keys;
        spec.config_values = vals;
        spec.nconfigs = 2;
        /* internal topics follow the live brokers (logged by the cluster) */
    } else if (spec.replication_factor > b->cluster->nnodes) {
        *msg = "default.replication.factor is larger than the number of "
               "live brokers";
        GR_LOG_WARN("cannot auto-create topic %s: default.replication.factor "
                    "%d > %d live broker(s)",
                    cname, spec.replication_factor, b->cluster->nnodes);
        return GR_KERR_INVALID_REPLICATION_FACTOR;
    }
    return gr_cluster_create_topic(b->cluster, &spec, out, msg);
}

gr_topic_t *
gr_topics_internal(gr_broker_t *b, const char *name)
{
    gr_topic_t *t = gr_cluster_topic_cstr(b->cluster, name);
    const char *msg = NULL;
    gr_str_t s = gr_str_c(name);
    if (t != NULL)
        return t;
    if (gr_topics_auto_create(b, &s, &t, &msg) != GR_KERR_NONE) {
        GR_LOG_ERROR("cannot create internal topic %s: %s", name,
                     msg ? msg : "unknown error");
        return NULL;
    }
    return t;
}

int
gr_topics_internal_then(gr_req_t *req, const char *name,
                        void (*answer)(gr_req_t *req))
{
    gr_broker_t *b = req->broker;

    if (gr_cluster_topic_cstr(b->cluster, name) != NULL) {
        answer(req);
        return gr_req_reply(req);
    }
    gr_broker_open_async_begin(b);
    gr_topics_internal(b, name);
    return gr_broker_open_async_end_then(b, req, answer);
}

gr_kerr_t
gr_topics_mutation_check(gr_req_t *req, int strict_since)
{
    int64_t t;
    if (req->version < strict_since)
        return GR_KERR_NONE;
    t = gr_client_quotas_mutation_check(req->broker->client_quotas,
                                        gr_req_user(req), &req->hdr.client_id,
                                        gr_loop_mono_ms(req->broker->loop));
    if (t <= 0)
        return GR_KERR_NONE;
    req->throttle_ms = t; /* the last refusal's (lastThrottleTimeMs) */
    return GR_KERR_THROTTLING_QUOTA_EXCEEDED;
}

void
gr_topics_mutation_record(gr_req_t *req, int strict_since, int64_t n)
{
    int64_t t = gr_client_quotas_mutation_record(
        req->broker->client_quotas, gr_req_user(req), &req->hdr.client_id,
        (double)n, gr_loop_mono_ms(req->broker->loop));
    /* strict records without checking (StrictControllerMutationQuota) */
    if (req->version < strict_since && t > 0)
        req->throttle_ms = t;
}
