/* Fetch session cache: see fetch_session.h. */
#include "api/fetch_session.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define HBUCKETS 256

/* The cache's orderings, Kafka's TreeMaps, as binary heaps of sessions
 * (each session knows its place in each, heap_pos):
 *   LRU   every session, by (last_used_ms, id): Kafka's lastUsed;
 *   ALL   sessions older than eviction_ms at their last touch, by
 *         (privileged, size, id): evictableByAll;
 *   PRIV  those and every unprivileged session: evictableByPrivileged. */
enum { H_LRU, H_ALL, H_PRIV, H_COUNT };

typedef struct heap {
    gr_fsess_t **v;
    int32_t n, cap;
} heap_t;

struct gr_fsessions {
    gr_fsess_t *buckets[HBUCKETS];
    heap_t heaps[H_COUNT];
    int count;
    int max;
    int64_t eviction_ms;
    int64_t max_partitions;
    int64_t nparts; /* cached sizes of the sessions in the cache */
};

/* Whether a comes before b in heap h. */
static bool
before(int h, const gr_fsess_t *a, const gr_fsess_t *b)
{
    if (h == H_LRU) {
        if (a->last_used_ms != b->last_used_ms)
            return a->last_used_ms < b->last_used_ms;
        return a->id < b->id;
    }
    /* EvictableKey: unprivileged first, then smaller, then lower id */
    if (a->privileged != b->privileged)
        return !a->privileged;
    if (a->cached_size != b->cached_size)
        return a->cached_size < b->cached_size;
    return a->id < b->id;
}

static void
heap_set(heap_t *hp, int h, int32_t i, gr_fsess_t *s)
{
    hp->v[i] = s;
    s->heap_pos[h] = i;
}

static void
heap_up(heap_t *hp, int h, int32_t i)
{
    gr_fsess_t *s = hp->v[i];
    while (i > 0) {
        int32_t parent = (i - 1) / 2;
        if (!before(h, s, hp->v[parent]))
            break;
        heap_set(hp, h, i, hp->v[parent]);
        i = parent;
    }
    heap_set(hp, h, i, s);
}

static void
heap_down(heap_t *hp, int h, int32_t i)
{
    gr_fsess_t *s = hp->v[i];
    for (;;) {
        int32_t c = 2 * i + 1;
        if (c >= hp->n)
            break;
        if (c + 1 < hp->n && before(h, hp->v[c + 1], hp->v[c]))
            c++;
        if (!before(h, hp->v[c], s))
            break;
        heap_set(hp, h, i, hp->v[c]);
        i = c;
    }
    heap_set(hp, h, i, s);
}

static int
heap_push(gr_fsessions_t *m, int h, gr_fsess_t *s)
{
    heap_t *hp = &m->heaps[h];
    if (hp->n == hp->cap) {
        int32_t cap = hp->cap ? hp->cap * 2 : 64;
        gr_fsess_t **v = realloc(hp->v, (size_t)cap * sizeof(*v));
        if (v == NULL)
            return -1;
        hp->v = v;
        hp->cap = cap;
    }
    hp->v[hp->n++] = s;
    heap_up(hp, h, hp->n - 1);
    return 0;
}

static void
heap_remove(gr_fsessions_t *m, int h, gr_fsess_t *s)
{
    heap_t *hp = &m->heaps[h];
    int32_t i = s->heap_pos[h];
    if (i < 0)
        return;
    s->heap_pos[h] = -1;
    hp->n--;
    if (i == hp->n)
        return;
    heap_set(hp, h, i, hp->v[hp->n]);
    heap_up(hp, h, i);
    heap_down(hp, h, hp->v[i]->heap_pos[h]);
}

static gr_fsess_t *
heap_first(const gr_fsessions_t *m, int h)
{
    return m->heaps[h].n > 0 ? m->heaps[h].v[0] : NULL;
}

gr_fsessions_t *
gr_fsessions_new(int max_slots)
{
    gr_fsessions_t *m = calloc(1, sizeof(*m));
    if (m) {
        m->max = max_slots;
        m->eviction_ms = GR_FSESS_EVICTION_MS;
        m->max_partitions = GR_FSESS_MAX_PARTITIONS;
    }
    return m;
}

void
gr_fsessions_set_limits(gr_fsessions_t *m, int64_t eviction_ms,
                        int64_t max_partitions)
{
    m->eviction_ms = eviction_ms;
    m->max_partitions = max_partitions;
}

gr_fsess_t *
gr_fsess_new(void)
{
    gr_fsess_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    s->epoch = 1;
    s->cached_size = -1;
    for (int h = 0; h < H_COUNT; h++)
        s->heap_pos[h] = -1;
    return s;
}

void
gr_fsess_free(gr_fsess_t *s)
{
    if (s == NULL)
        return;
    for (int32_t i = 0; i < s->nparts; i++)
        free(s->parts[i].topic);
    free(s->parts);
    free(s->index);
    free(s);
}

void
gr_fsessions_destroy(gr_fsessions_t *m)
{
    if (m == NULL)
        return;
    for (int b = 0; b < HBUCKETS; b++)
        while (m->buckets[b] != NULL)
            gr_fsess_remove(m, m->buckets[b]);
    for (int h = 0; h < H_COUNT; h++)
        free(m->heaps[h].v);
    free(m);
}

int
gr_fsessions_count(const gr_fsessions_t *m)
{
    return m->count;
}

int64_t
gr_fsessions_max_partitions(const gr_fsessions_t *m)
{
    return m->max_partitions;
}

int64_t
gr_fsessions_partitions(const gr_fsessions_t *m)
{
    return m->nparts;
}

gr_fsess_t *
gr_fsess_find(gr_fsessions_t *m, int32_t id)
{
    for (gr_fsess_t *s = m->buckets[(uint32_t)id % HBUCKETS]; s; s = s->hnext)
        if (s->id == id)
            return s;
    return NULL;
}

void
gr_fsess_remove(gr_fsessions_t *m, gr_fsess_t *s)
{
    gr_fsess_t **pp = &m->buckets[(uint32_t)s->id % HBUCKETS];
    while (*pp && *pp != s)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = s->hnext;
    for (int h = 0; h < H_COUNT; h++)
        heap_remove(m, h, s);
    m->count--;
    if (s->cached_size > 0)
        m->nparts -= s->cached_size;
    gr_fsess_free(s);
}

/* Kafka's tryEvict: frees one slot for a session of (privileged, size),
 * not taking self; whether one was freed. */
static bool
try_evict(gr_fsessions_t *m, bool privileged, int32_t size, int64_t now_ms,
          const gr_fsess_t *self)
{
    gr_fsess_t *s = heap_first(m, H_LRU);
    if (s != NULL && s != self && now_ms - s->last_used_ms > m->eviction_ms) {
        GR_LOG_DEBUG("fetch session %d evicted: unused for %lld ms", s->id,
                     (long long)(now_ms - s->last_used_ms));
        gr_fsess_remove(m, s);
        return true;
    }
    s = heap_first(m, privileged ? H_PRIV : H_ALL);
    if (s == NULL || s == self)
        return false;
    /* the new one's key (privileged, size, id 0) must not rank below */
    if (privileged != s->privileged ? !privileged : size <= s->cached_size)
        return false;
    GR_LOG_DEBUG("fetch session %d (%d partitions) evicted for one of %d",
                 s->id, (int)s->cached_size, (int)size);
    gr_fsess_remove(m, s);
    return true;
}

/* Room for grow more partitions, evicting as try_evict() does; whether
 * there is. */
static bool
partitions_room(gr_fsessions_t *m, int64_t grow, bool privileged, int32_t size,
                int64_t now_ms, const gr_fsess_t *self)
{
    while (m->nparts + grow > m->max_partitions)
        if (!try_evict(m, privileged, size, now_ms, self))
            return false;
    return true;
}

/* Kafka's touch: s (out of the orderings, or in them) was used at now_ms
 * with s->nparts partitions; false (s untouched, out of the orderings)
 * when they pass the partition bound. */
static bool
touch(gr_fsessions_t *m, gr_fsess_t *s, int64_t now_ms)
{
    int64_t old = s->cached_size > 0 ? s->cached_size : 0;
    bool old_enough;
    for (int h = 0; h < H_COUNT; h++)
        heap_remove(m, h, s);
    if (s->nparts > old && !partitions_room(m, s->nparts - old, s->privileged,
                                            s->nparts, now_ms, s))
        return false;
    s->last_used_ms = now_ms;
    m->nparts += s->nparts - old;
    s->cached_size = s->nparts;
    old_enough = now_ms - s->creation_ms > m->eviction_ms;
    /* the orderings' arrays grow only here; without memory the session is
     * simply not evictable this time */
    heap_push(m, H_LRU, s);
    if (!s->privileged || old_enough)
        heap_push(m, H_PRIV, s);
    if (old_enough)
        heap_push(m, H_ALL, s);
    return true;
}

bool
gr_fsess_touch(gr_fsessions_t *m, gr_fsess_t *s, int64_t now_ms)
{
    return touch(m, s, now_ms);
}

int32_t
gr_fsessions_add(gr_fsessions_t *m, gr_fsess_t *s, bool privileged,
                 bool uses_topic_ids, int64_t now_ms)
{
    int32_t id;
    if (m->count >= m->max &&
        !try_evict(m, privileged, s->nparts, now_ms, NULL)) {
        GR_LOG_DEBUG("no fetch session for privileged=%d, size=%d: the %d "
                     "slots are taken",
                     privileged, (int)s->nparts, m->max);
        return 0;
    }
    s->privileged = privileged;
    s->uses_topic_ids = uses_topic_ids;
    s->creation_ms = now_ms;
    s->cached_size = -1;
    do {
        uint32_t r = 0;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
            r = (uint32_t)now_ms * 2654435761u + (uint32_t)m->count;
        id = (int32_t)(r & 0x7fffffff);
    } while (id == 0 || gr_fsess_find(m, id) != NULL);
    s->id = id;
    if (!touch(m, s, now_ms)) {
        GR_LOG_DEBUG("no fetch session for privileged=%d, size=%d: %lld of "
                     "%lld partitions held by sessions",
                     privileged, (int)s->nparts, (long long)m->nparts,
                     (long long)m->max_partitions);
        s->id = 0;
        return 0;
    }
    s->epoch = 1;
    s->hnext = m->buckets[(uint32_t)id % HBUCKETS];
    m->buckets[(uint32_t)id % HBUCKETS] = s;
    m->count++;
    return id;
}

bool
gr_fsessions_is_valid(const gr_fsessions_t *m)
{
    int64_t nparts = 0;
    int count = 0;
    for (int b = 0; b < HBUCKETS; b++)
        for (const gr_fsess_t *s = m->buckets[b]; s; s = s->hnext) {
            bool old = s->last_used_ms - s->creation_ms > m->eviction_ms;
            count++;
            nparts += s->cached_size > 0 ? s->cached_size : 0;
            if (s->id == 0 || (uint32_t)s->id % HBUCKETS != (uint32_t)b ||
                s->heap_pos[H_LRU] < 0 || (s->heap_pos[H_ALL] >= 0) != old ||
                (s->heap_pos[H_PRIV] >= 0) != (!s->privileged || old))
                return false;
        }
    if (count != m->count || nparts != m->nparts ||
        m->heaps[H_LRU].n != count || (m->max >= 0 && count > m->max))
        return false;
    for (int h = 0; h < H_COUNT; h++) {
        const heap_t *hp = &m->heaps[h];
        for (int32_t i = 0; i < hp->n; i++) {
            if (hp->v[i]->heap_pos[h] != i)
                return false;
            if (i > 0 && before(h, hp->v[i], hp->v[(i - 1) / 2]))
                return false;
        }
    }
    return true;
}

static bool
part_matches(const gr_fsess_part_t *p, const gr_str_t *topic,
             const gr_uuid_t *topic_id, int32_t partition)
{
    if (p->removed || p->partition != partition)
        return false;
    if (topic_id && !gr_uuid_is_zero(topic_id))
        return gr_uuid_eq(&p->topic_id, topic_id);
    return topic->len >= 0 && strlen(p->topic) == (size_t)topic->len &&
           memcmp(p->topic, topic->ptr, (size_t)topic->len) == 0;
}

/* The hash of the key a lookup uses: the topic id when given, else the
 * name; then the partition. */
static uint32_t
lookup_hash(const gr_str_t *topic, const gr_uuid_t *topic_id, int32_t partition)
{
    if (topic_id && !gr_uuid_is_zero(topic_id))
        return gr_hash_tp(topic_id, sizeof(*topic_id), partition);
    return gr_hash_tp(topic->ptr, topic->len > 0 ? (size_t)topic->len : 0,
                      partition);
}

static uint32_t
entry_hash(const gr_fsess_part_t *p)
{
    if (!gr_uuid_is_zero(&p->topic_id))
        return gr_hash_tp(&p->topic_id, sizeof(p->topic_id), p->partition);
    return gr_hash_tp(p->topic, strlen(p->topic), p->partition);
}

static void
index_put(gr_fsess_t *s, int32_t i)
{
    uint32_t mask = (uint32_t)s->index_cap - 1;
    uint32_t k = entry_hash(&s->parts[i]) & mask;
    while (s->index[k] >= 0)
        k = (k + 1) & mask;
    s->index[k] = i;
}

/* Rebuilds the index for at least want entries; -1 on ENOMEM. */
static int
index_rebuild(gr_fsess_t *s, int32_t want)
{
    int32_t cap = 16;
    int32_t *ix;
    while (cap <= 2 * want)
        cap *= 2;
    ix = malloc((size_t)cap * sizeof(*ix));
    if (ix == NULL)
        return -1;
    free(s->index);
    s->index = ix;
    s->index_cap = cap;
    memset(ix, 0xff, (size_t)cap * sizeof(*ix));
    for (int32_t i = 0; i < s->nparts; i++)
        if (!s->parts[i].removed)
            index_put(s, i);
    return 0;
}

static gr_fsess_part_t *
part_find(gr_fsess_t *s, const gr_str_t *topic, const gr_uuid_t *topic_id,
          int32_t partition)
{
    uint32_t mask, k;
    if (s->index_cap == 0)
        return NULL;
    mask = (uint32_t)s->index_cap - 1;
    for (k = lookup_hash(topic, topic_id, partition) & mask; s->index[k] >= 0;
         k = (k + 1) & mask)
        if (part_matches(&s->parts[s->index[k]], topic, topic_id, partition))
            return &s->parts[s->index[k]];
    return NULL;
}

gr_fsess_part_t *
gr_fsess_part_upsert(gr_fsess_t *s, const gr_str_t *topic,
                     const gr_uuid_t *topic_id, int32_t partition)
{
    gr_fsess_part_t *p = part_find(s, topic, topic_id, partition);
    if (p != NULL)
        return p;
    if (s->nparts == s->cap) {
        int32_t cap = s->cap ? s->cap * 2 : 8;
        gr_fsess_part_t *np = realloc(s->parts, (size_t)cap * sizeof(*np));
        if (np == NULL)
            return NULL;
        s->parts = np;
        s->cap = cap;
    }
    if (2 * (s->nparts + 1) >= s->index_cap &&
        index_rebuild(s, s->nparts + 1) != 0)
        return NULL;
    p = &s->parts[s->nparts];
    memset(p, 0, sizeof *p);
    p->topic = malloc((size_t)(topic->len > 0 ? topic->len : 0) + 1);
    if (p->topic == NULL)
        return NULL;
    if (topic->len > 0)
        memcpy(p->topic, topic->ptr, (size_t)topic->len);
    p->topic[topic->len > 0 ? topic->len : 0] = '\0';
    if (topic_id)
        p->topic_id = *topic_id;
    p->partition = partition;
    p->current_leader_epoch = -1;
    p->last_fetched_epoch = -1;
    index_put(s, s->nparts);
    s->nparts++;
    return p;
}

void
gr_fsess_part_remove(gr_fsess_t *s, const gr_str_t *topic,
                     const gr_uuid_t *topic_id, int32_t partition)
{
    gr_fsess_part_t *p = part_find(s, topic, topic_id, partition);
    if (p != NULL) {
        p->removed = true; /* stays in the index until compaction */
        s->dirty = true;
    }
}

void
gr_fsess_compact(gr_fsess_t *s)
{
    int32_t n = 0;
    if (!s->dirty)
        return;
    for (int32_t i = 0; i < s->nparts; i++) {
        if (s->parts[i].removed) {
            free(s->parts[i].topic);
            continue;
        }
        s->parts[n++] = s->parts[i];
    }
    s->nparts = n;
    s->dirty = false;
    if (index_rebuild(s, n) != 0) {
        /* no memory for the index: lookups find nothing, so upserts
         * add duplicates; empty the session instead */
        for (int32_t i = 0; i < s->nparts; i++)
            free(s->parts[i].topic);
        s->nparts = 0;
        free(s->index);
        s->index = NULL;
        s->index_cap = 0;
    }
}

int32_t
gr_fsess_next_epoch(int32_t e)
{
    return e >= INT32_MAX ? 1 : e + 1;
}
