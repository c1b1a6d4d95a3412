/* Fetch session cache: see fetch_session.h. */
#include "api/fetch_session.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define HBUCKETS 256

struct gr_fsessions {
    gr_fsess_t *buckets[HBUCKETS];
    gr_fsess_t *lru_head, *lru_tail;
    int count;
    int max;
    int64_t nparts; /* entries of every session (removed ones too) */
};

gr_fsessions_t *
gr_fsessions_new(int max_slots)
{
    gr_fsessions_t *m = calloc(1, sizeof(*m));
    if (m)
        m->max = max_slots;
    return m;
}

static void
sess_free(gr_fsess_t *s)
{
    for (int32_t i = 0; i < s->nparts; i++)
        free(s->parts[i].topic);
    s->owner->nparts -= s->nparts;
    free(s->parts);
    free(s->index);
    free(s);
}

bool
gr_fsessions_room(const gr_fsessions_t *m, int64_t n)
{
    return m->nparts + n <= GR_FSESS_MAX_PARTITIONS;
}

void
gr_fsessions_destroy(gr_fsessions_t *m)
{
    if (m == NULL)
        return;
    while (m->lru_head)
        gr_fsess_remove(m, m->lru_head);
    free(m);
}

int
gr_fsessions_count(const gr_fsessions_t *m)
{
    return m->count;
}

gr_fsess_t *
gr_fsess_find(gr_fsessions_t *m, int32_t id)
{
    for (gr_fsess_t *s = m->buckets[(uint32_t)id % HBUCKETS]; s; s = s->hnext)
        if (s->id == id)
            return s;
    return NULL;
}

static void
lru_unlink(gr_fsessions_t *m, gr_fsess_t *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        m->lru_head = s->next;
    if (s->next)
        s->next->prev = s->prev;
    else
        m->lru_tail = s->prev;
    s->prev = s->next = NULL;
}

static void
lru_push(gr_fsessions_t *m, gr_fsess_t *s)
{
    s->prev = NULL;
    s->next = m->lru_head;
    if (m->lru_head)
        m->lru_head->prev = s;
    m->lru_head = s;
    if (m->lru_tail == NULL)
        m->lru_tail = s;
}

void
gr_fsess_touch(gr_fsessions_t *m, gr_fsess_t *s, int64_t now_ms)
{
    s->last_used_ms = now_ms;
    lru_unlink(m, s);
    lru_push(m, s);
}

void
gr_fsess_remove(gr_fsessions_t *m, gr_fsess_t *s)
{
    gr_fsess_t **pp = &m->buckets[(uint32_t)s->id % HBUCKETS];
    while (*pp && *pp != s)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = s->hnext;
    lru_unlink(m, s);
    m->count--;
    sess_free(s);
}

gr_fsess_t *
gr_fsess_create(gr_fsessions_t *m, int64_t now_ms)
{
    gr_fsess_t *s;
    int32_t id;
    if (m->max <= 0)
        return NULL;
    if (m->count >= m->max && m->lru_tail) {
        GR_LOG_DEBUG("fetch session %d evicted (cache full)",
                     m->lru_tail->id);
        gr_fsess_remove(m, m->lru_tail);
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    do {
        uint32_t r = 0;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
            r = (uint32_t)now_ms * 2654435761u;
        id = (int32_t)(r & 0x7fffffff);
    } while (id == 0 || gr_fsess_find(m, id) != NULL);
    s->id = id;
    s->owner = m;
    s->epoch = 1;
    s->last_used_ms = now_ms;
    s->hnext = m->buckets[(uint32_t)id % HBUCKETS];
    m->buckets[(uint32_t)id % HBUCKETS] = s;
    lru_push(m, s);
    m->count++;
    return s;
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
    index_put(s, s->nparts);
    s->nparts++;
    s->owner->nparts++;
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
    s->owner->nparts -= s->nparts - n;
    s->nparts = n;
    s->dirty = false;
    if (index_rebuild(s, n) != 0) {
        /* no memory for the index: lookups find nothing, so upserts
         * add duplicates; empty the session instead */
        for (int32_t i = 0; i < s->nparts; i++)
            free(s->parts[i].topic);
        s->owner->nparts -= s->nparts;
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
