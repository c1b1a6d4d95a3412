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
    free(s->parts);
    free(s);
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
    if (p->partition != partition)
        return false;
    if (topic_id && !gr_uuid_is_zero(topic_id))
        return gr_uuid_eq(&p->topic_id, topic_id);
    return topic->len >= 0 && strlen(p->topic) == (size_t)topic->len &&
           memcmp(p->topic, topic->ptr, (size_t)topic->len) == 0;
}

gr_fsess_part_t *
gr_fsess_part_upsert(gr_fsess_t *s, const gr_str_t *topic,
                     const gr_uuid_t *topic_id, int32_t partition)
{
    gr_fsess_part_t *p;
    for (int32_t i = 0; i < s->nparts; i++)
        if (part_matches(&s->parts[i], topic, topic_id, partition))
            return &s->parts[i];
    if (s->nparts == s->cap) {
        int32_t cap = s->cap ? s->cap * 2 : 8;
        gr_fsess_part_t *np = realloc(s->parts, (size_t)cap * sizeof(*np));
        if (np == NULL)
            return NULL;
        s->parts = np;
        s->cap = cap;
    }
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
    s->nparts++;
    return p;
}

void
gr_fsess_part_remove(gr_fsess_t *s, const gr_str_t *topic,
                     const gr_uuid_t *topic_id, int32_t partition)
{
    for (int32_t i = 0; i < s->nparts; i++) {
        if (part_matches(&s->parts[i], topic, topic_id, partition)) {
            free(s->parts[i].topic);
            memmove(&s->parts[i], &s->parts[i + 1],
                    (size_t)(s->nparts - i - 1) * sizeof(s->parts[0]));
            s->nparts--;
            return;
        }
    }
}

int32_t
gr_fsess_next_epoch(int32_t e)
{
    return e >= INT32_MAX ? 1 : e + 1;
}
