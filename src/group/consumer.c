/*
 * Consumer groups (KIP-848): the group coordinator's side of the consumer
 * rebalance protocol, as Kafka 4.4's GroupMetadataManager runs it
 * (consumerGroupHeartbeat, consumerGroupLeave, the session and rebalance
 * timeouts), with ConsumerGroup's and ConsumerGroupMember's bookkeeping,
 * CurrentAssignmentBuilder's reconciliation and TargetAssignmentBuilder
 * (the assignors are in assignor.c). The states are drawn in group_int.h.
 *
 * Every operation reads the state, builds the records of its outcome and
 * hands them to gr_cg_commit() (cg_store.c), which appends them and only
 * then replays them onto the state: the state is always what the log
 * says. While an operation computes, the member's next state is a value
 * (gr_cmember_t copy) pointing into the state or the operation's arena.
 *
 * Where Kafka iterates hash maps, this iterates in a fixed order (members
 * in join order, topics by name): outcomes are Kafka's up to ties.
 * Loop thread only; allocation failures abort (the coordinator's policy).
 */
#include "core/regex.h"
#include "core/time.h"
#include "group/assignor.h"
#include "group/group_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- allocation */

static void *
az(gr_arena_t *a, size_t n)
{
    void *p = gr_arena_zalloc(a, n ? n : 1);
    GR_ASSERT(p != NULL);
    return p;
}

static char *
adup(gr_arena_t *a, const char *s)
{
    char *p;
    if (s == NULL)
        return NULL;
    p = gr_arena_strndup(a, s, strlen(s));
    GR_ASSERT(p != NULL);
    return p;
}

static char *
adup_str(gr_arena_t *a, const gr_str_t *s)
{
    char *p;
    if (s->len < 0)
        return NULL;
    p = gr_arena_strndup(a, s->ptr, (size_t)s->len);
    GR_ASSERT(p != NULL);
    return p;
}

static bool
str_eq(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

/* --- assignments */

void
gr_cg_assign_free(gr_cg_assign_t *a)
{
    for (int32_t i = 0; i < a->n; i++) {
        free(a->t[i].parts);
        free(a->t[i].epochs);
    }
    free(a->t);
    a->t = NULL;
    a->n = 0;
}

void
gr_cg_assign_copy(gr_cg_assign_t *dst, const gr_cg_assign_t *src,
                  int32_t fill_epoch)
{
    dst->n = src->n;
    dst->t = calloc((size_t)(src->n ? src->n : 1), sizeof(*dst->t));
    GR_ASSERT(dst->t != NULL);
    for (int32_t i = 0; i < src->n; i++) {
        const gr_cg_tp_t *s = &src->t[i];
        gr_cg_tp_t *d = &dst->t[i];
        size_t sz = sizeof(int32_t) * (size_t)(s->n ? s->n : 1);
        d->id = s->id;
        d->n = s->n;
        d->parts = malloc(sz);
        GR_ASSERT(d->parts != NULL);
        if (s->n)
            memcpy(d->parts, s->parts, sizeof(int32_t) * (size_t)s->n);
        d->epochs = NULL;
        if (s->epochs || fill_epoch >= 0) {
            d->epochs = malloc(sz);
            GR_ASSERT(d->epochs != NULL);
            for (int32_t k = 0; k < s->n; k++)
                d->epochs[k] = s->epochs ? s->epochs[k] : fill_epoch;
        }
    }
}

static int
id_cmp(const gr_uuid_t *a, const gr_uuid_t *b)
{
    return memcmp(a->b, b->b, 16);
}

static const gr_cg_tp_t *
a_topic(const gr_cg_assign_t *a, const gr_uuid_t *id)
{
    int32_t lo = 0, hi = a->n - 1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        int c = id_cmp(&a->t[mid].id, id);
        if (c == 0)
            return &a->t[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return NULL;
}

/* The index of p in tp, or -1. */
static int32_t
tp_find(const gr_cg_tp_t *tp, int32_t p)
{
    int32_t lo = 0, hi = tp ? tp->n - 1 : -1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        if (tp->parts[mid] == p)
            return mid;
        if (tp->parts[mid] < p)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static bool
a_has(const gr_cg_assign_t *a, const gr_uuid_t *id, int32_t p)
{
    return tp_find(a_topic(a, id), p) >= 0;
}

/* Equal partitions (and epochs when both have them). */
static bool
a_eq(const gr_cg_assign_t *x, const gr_cg_assign_t *y, bool epochs)
{
    if (x->n != y->n)
        return false;
    for (int32_t i = 0; i < x->n; i++) {
        const gr_cg_tp_t *a = &x->t[i], *b = &y->t[i];
        if (id_cmp(&a->id, &b->id) != 0 || a->n != b->n ||
            memcmp(a->parts, b->parts, sizeof(int32_t) * (size_t)a->n) != 0)
            return false;
        if (epochs && (a->epochs != NULL) != (b->epochs != NULL))
            return false;
        if (epochs && a->epochs &&
            memcmp(a->epochs, b->epochs, sizeof(int32_t) * (size_t)a->n) != 0)
            return false;
    }
    return true;
}

static bool
a_empty(const gr_cg_assign_t *a)
{
    return a->n == 0;
}

/* An assignment under construction (arena): triples, sorted at the end. */
typedef struct ab {
    gr_arena_t *a;
    struct abe {
        gr_uuid_t id;
        int32_t p, e;
    } * v;
    int32_t n, cap;
    bool epochs;
} ab_t;

static void
ab_init(ab_t *b, gr_arena_t *a, bool epochs)
{
    memset(b, 0, sizeof(*b));
    b->a = a;
    b->epochs = epochs;
}

static void
ab_add(ab_t *b, const gr_uuid_t *id, int32_t p, int32_t e)
{
    if (b->n == b->cap) {
        int32_t cap = b->cap ? b->cap * 2 : 32;
        struct abe *v = az(b->a, sizeof(*v) * (size_t)cap);
        if (b->n)
            memcpy(v, b->v, sizeof(*v) * (size_t)b->n);
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n].id = *id;
    b->v[b->n].p = p;
    b->v[b->n].e = e;
    b->n++;
}

static int
abe_cmp(const void *x, const void *y)
{
    const struct abe *a = x, *b = y;
    int c = id_cmp(&a->id, &b->id);
    if (c != 0)
        return c;
    return a->p < b->p ? -1 : a->p > b->p;
}

static gr_cg_assign_t
ab_finish(ab_t *b)
{
    gr_cg_assign_t out = { NULL, 0 };
    int32_t nt = 0;
    if (b->n > 1)
        qsort(b->v, (size_t)b->n, sizeof(*b->v), abe_cmp);
    for (int32_t i = 0; i < b->n; i++)
        if (i == 0 || id_cmp(&b->v[i].id, &b->v[i - 1].id) != 0)
            nt++;
    out.t = az(b->a, sizeof(*out.t) * (size_t)nt);
    for (int32_t i = 0; i < b->n; i++) {
        gr_cg_tp_t *tp;
        if (i == 0 || id_cmp(&b->v[i].id, &b->v[i - 1].id) != 0) {
            int32_t j = i;
            while (j < b->n && id_cmp(&b->v[j].id, &b->v[i].id) == 0)
                j++;
            tp = &out.t[out.n++];
            tp->id = b->v[i].id;
            tp->parts = az(b->a, sizeof(int32_t) * (size_t)(j - i));
            tp->epochs =
                b->epochs ? az(b->a, sizeof(int32_t) * (size_t)(j - i)) : NULL;
        }
        tp = &out.t[out.n - 1];
        if (tp->n > 0 && tp->parts[tp->n - 1] == b->v[i].p)
            continue; /* a duplicate */
        if (tp->epochs)
            tp->epochs[tp->n] = b->v[i].e;
        tp->parts[tp->n++] = b->v[i].p;
    }
    return out;
}

/* --- partition epochs: (topic, partition) -> the owner's epoch */

static uint32_t
pe_hash(const gr_uuid_t *id, int32_t p)
{
    uint32_t h = 2166136261u;
    for (int i = 0; i < 16; i++) {
        h ^= id->b[i];
        h *= 16777619u;
    }
    h ^= (uint32_t)p;
    h *= 16777619u;
    return h;
}

static gr_cg_pe_t *
pe_slot(const gr_cgroup_t *cg, const gr_uuid_t *id, int32_t p)
{
    uint32_t i;
    if (cg->pecap == 0)
        return NULL;
    i = pe_hash(id, p) & (cg->pecap - 1);
    for (;; i = (i + 1) & (cg->pecap - 1)) {
        gr_cg_pe_t *e = &cg->pe[i];
        if (e->part < 0 || (e->part == p && id_cmp(&e->id, id) == 0))
            return e;
    }
}

static int32_t
pe_get(const gr_cgroup_t *cg, const gr_uuid_t *id, int32_t p)
{
    gr_cg_pe_t *e = pe_slot(cg, id, p);
    return e && e->part >= 0 ? e->epoch : -1;
}

static void
pe_grow(gr_cgroup_t *cg)
{
    gr_cg_pe_t *old = cg->pe;
    uint32_t oldcap = cg->pecap;
    cg->pecap = oldcap ? oldcap * 2 : 64;
    cg->pe = malloc(sizeof(*cg->pe) * cg->pecap);
    GR_ASSERT(cg->pe != NULL);
    for (uint32_t i = 0; i < cg->pecap; i++)
        cg->pe[i].part = -1;
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i].part >= 0)
            *pe_slot(cg, &old[i].id, old[i].part) = old[i];
    free(old);
}

void
gr_cg_pe_add(gr_cgroup_t *cg, const gr_cg_assign_t *a, int32_t epoch)
{
    for (int32_t i = 0; i < a->n; i++)
        for (int32_t k = 0; k < a->t[i].n; k++) {
            gr_cg_pe_t *e;
            if ((cg->pecount + 1) * 2 > cg->pecap)
                pe_grow(cg);
            e = pe_slot(cg, &a->t[i].id, a->t[i].parts[k]);
            if (e->part < 0) {
                e->id = a->t[i].id;
                e->part = a->t[i].parts[k];
                e->epoch = epoch;
                cg->pecount++;
            } else if (e->epoch < epoch) {
                e->epoch = epoch;
            } else {
                /* Kafka throws here (a partition owned twice): the
                 * records say so, the later owner wins */
                GR_LOG_WARN("group %s: partition %d owned at epoch %d, "
                            "given again at %d",
                            cg->grp->id, (int)e->part, (int)e->epoch,
                            (int)epoch);
                e->epoch = epoch;
            }
        }
}

/* Deletes slot i (backward-shift, linear probing). */
static void
pe_del(gr_cgroup_t *cg, uint32_t i)
{
    uint32_t mask = cg->pecap - 1, j = i;
    cg->pe[i].part = -1;
    cg->pecount--;
    for (;;) {
        uint32_t home;
        j = (j + 1) & mask;
        if (cg->pe[j].part < 0)
            return;
        home = pe_hash(&cg->pe[j].id, cg->pe[j].part) & mask;
        /* j's entry may move to i unless its home lies in (i, j] */
        if ((j > i && (home <= i || home > j)) ||
            (j < i && (home <= i && home > j))) {
            cg->pe[i] = cg->pe[j];
            cg->pe[j].part = -1;
            i = j;
        }
    }
}

void
gr_cg_pe_remove(gr_cgroup_t *cg, const gr_cg_assign_t *a, int32_t epoch)
{
    for (int32_t i = 0; i < a->n; i++)
        for (int32_t k = 0; k < a->t[i].n; k++) {
            gr_cg_pe_t *e = pe_slot(cg, &a->t[i].id, a->t[i].parts[k]);
            /* only the owner's own epoch goes (Kafka's
             * removePartitionEpochs) */
            if (e && e->part >= 0 && e->epoch == epoch)
                pe_del(cg, (uint32_t)(e - cg->pe));
        }
}

/* --- subscribed topic names, counted */

static int32_t
subs_find(const gr_cgroup_t *cg, const char *name, bool *found)
{
    int32_t lo = 0, hi = cg->nsubs - 1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        int c = strcmp(cg->subs[mid].name, name);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    *found = false;
    return lo;
}

void
gr_cg_subs_add(gr_cgroup_t *cg, char *const *names, int32_t n, int d,
               bool regex)
{
    for (int32_t i = 0; i < n; i++) {
        bool found;
        int32_t at = subs_find(cg, names[i], &found);
        gr_cg_sub_t *s;
        if (!found) {
            if (d < 0)
                continue;
            if (cg->nsubs == cg->subscap) {
                cg->subscap = cg->subscap ? cg->subscap * 2 : 8;
                cg->subs =
                    realloc(cg->subs, sizeof(*cg->subs) * (size_t)cg->subscap);
                GR_ASSERT(cg->subs != NULL);
            }
            memmove(cg->subs + at + 1, cg->subs + at,
                    sizeof(*cg->subs) * (size_t)(cg->nsubs - at));
            cg->subs[at].name = strdup(names[i]);
            GR_ASSERT(cg->subs[at].name != NULL);
            cg->subs[at].by_name = cg->subs[at].by_regex = 0;
            cg->nsubs++;
        }
        s = &cg->subs[at];
        if (regex)
            s->by_regex += d;
        else
            s->by_name += d;
        if (s->by_name <= 0 && s->by_regex <= 0) {
            free(s->name);
            memmove(cg->subs + at, cg->subs + at + 1,
                    sizeof(*cg->subs) * (size_t)(cg->nsubs - at - 1));
            cg->nsubs--;
        }
    }
}

bool
gr_cg_subscribed_to(const gr_cgroup_t *cg, const char *topic)
{
    bool found;
    subs_find(cg, topic, &found);
    return found;
}

/* --- the group and its members */

static void session_expired(gr_loop_t *loop, gr_timer_t *t);
static void regex_resolve(gr_loop_t *loop, gr_timer_t *t);
static void rebalance_expired(gr_loop_t *loop, gr_timer_t *t);

gr_cgroup_t *
gr_cg_new(gr_group_t *grp)
{
    gr_cgroup_t *cg = calloc(1, sizeof(*cg));
    GR_ASSERT(cg != NULL);
    cg->grp = grp;
    cg->epoch = 1; /* Kafka's ModernGroup starts at 1, the first join
                    * bumps it to 2 */
    cg->assignment_epoch = 1;
    cg->msize = 16;
    cg->mtab = calloc(cg->msize, sizeof(*cg->mtab));
    gr_timer_init(&cg->regex_timer, regex_resolve, cg);
    GR_ASSERT(cg->mtab != NULL);
    return cg;
}

static void
member_free(gr_loop_t *loop, gr_cmember_t *m)
{
    gr_timer_stop(loop, &m->session_timer);
    gr_timer_stop(loop, &m->rebalance_timer);
    free(m->id);
    free(m->instance_id);
    free(m->rack_id);
    free(m->client_id);
    free(m->client_host);
    for (int32_t i = 0; i < m->ntopics; i++)
        free(m->topics[i]);
    free(m->topics);
    free(m->regex);
    free(m->assignor);
    gr_cg_assign_free(&m->assigned);
    gr_cg_assign_free(&m->pending);
    gr_cg_assign_free(&m->target);
    free(m);
}

void
gr_cg_free(gr_cgroup_t *cg)
{
    gr_loop_t *loop;
    gr_cmember_t *m, *next;
    gr_cg_regex_t *re, *rn;
    if (cg == NULL)
        return;
    loop = cg->grp->g->loop;
    gr_timer_stop(loop, &cg->regex_timer);
    for (m = cg->members; m; m = next) {
        next = m->next;
        member_free(loop, m);
    }
    for (re = cg->regexes; re; re = rn) {
        rn = re->next;
        free(re->regex);
        for (int32_t i = 0; i < re->ntopics; i++)
            free(re->topics[i]);
        free(re->topics);
        free(re);
    }
    for (int32_t i = 0; i < cg->nsubs; i++)
        free(cg->subs[i].name);
    free(cg->subs);
    free(cg->mtab);
    free(cg->pe);
    for (int32_t i = 0; i < cg->nrcounts; i++)
        free(cg->rcounts[i].regex);
    free(cg->rcounts);
    free(cg->itab);
    free(cg);
}

void
gr_cg_convert(gr_group_t *grp)
{
    GR_ASSERT(grp->nmembers == 0);
    if (grp->type == GR_GROUP_TYPE_CONSUMER)
        return;
    grp->type = GR_GROUP_TYPE_CONSUMER;
    grp->cg = gr_cg_new(grp);
    grp->state = GR_GROUP_EMPTY;
}

static uint32_t
mhash(const char *id, size_t len)
{
    return gr_hash(id, len);
}

gr_cmember_t *
gr_cg_member(gr_cgroup_t *cg, const char *id, size_t len)
{
    gr_cmember_t *m = cg->mtab[mhash(id, len) & (cg->msize - 1)];
    for (; m; m = m->hnext)
        if (strlen(m->id) == len && memcmp(m->id, id, len) == 0)
            return m;
    return NULL;
}

static void
mrehash(gr_cgroup_t *cg)
{
    uint32_t n = cg->msize * 2;
    gr_cmember_t **t = calloc(n, sizeof(*t));
    GR_ASSERT(t != NULL);
    for (gr_cmember_t *m = cg->members; m; m = m->next) {
        uint32_t b = mhash(m->id, strlen(m->id)) & (n - 1);
        m->hnext = t[b];
        t[b] = m;
    }
    free(cg->mtab);
    cg->mtab = t;
    cg->msize = n;
}

gr_cmember_t *
gr_cg_member_get(gr_cgroup_t *cg, const char *id)
{
    gr_cmember_t *m = gr_cg_member(cg, id, strlen(id));
    uint32_t b;
    if (m != NULL)
        return m;
    m = calloc(1, sizeof(*m));
    GR_ASSERT(m != NULL);
    m->cg = cg;
    m->id = strdup(id);
    GR_ASSERT(m->id != NULL);
    /* Kafka's ConsumerGroupMember.Builder defaults */
    m->epoch = 0;
    m->prev_epoch = -1;
    m->state = GR_CM_STABLE;
    m->rebalance_timeout_ms = -1;
    gr_timer_init_virtual(&m->session_timer, session_expired, m);
    gr_timer_init_virtual(&m->rebalance_timer, rebalance_expired, m);
    /* last in the join order */
    m->prev = cg->mlast;
    if (cg->mlast)
        cg->mlast->next = m;
    else
        cg->members = m;
    cg->mlast = m;
    cg->mcount++;
    if (cg->mcount > cg->msize) {
        mrehash(cg); /* puts m in its bucket too */
        return m;
    }
    b = mhash(m->id, strlen(m->id)) & (cg->msize - 1);
    m->hnext = cg->mtab[b];
    cg->mtab[b] = m;
    return m;
}

/* --- the group's indexes: regexes, assignors, instance ids */

/* The slot of regex in cg->rcounts (sorted), or where it would go. */
static int32_t
rcount_slot(const gr_cgroup_t *cg, const char *regex, bool *found)
{
    int32_t lo = 0, hi = cg->nrcounts - 1;
    *found = false;
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        int c = strcmp(cg->rcounts[mid].regex, regex);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The in_group members whose regex is regex. */
static int32_t
rcount(const gr_cgroup_t *cg, const char *regex)
{
    bool found;
    int32_t at;
    if (regex == NULL || !*regex)
        return 0;
    at = rcount_slot(cg, regex, &found);
    return found ? cg->rcounts[at].n : 0;
}

static void
rcount_adj(gr_cgroup_t *cg, const char *regex, int d)
{
    bool found;
    int32_t at = rcount_slot(cg, regex, &found);
    if (!found) {
        GR_ASSERT(d > 0);
        if (cg->nrcounts == cg->rcountcap) {
            int32_t cap = cg->rcountcap ? cg->rcountcap * 2 : 4;
            struct gr_cg_rcount *v =
                realloc(cg->rcounts, sizeof(*v) * (size_t)cap);
            GR_ASSERT(v != NULL);
            cg->rcounts = v;
            cg->rcountcap = cap;
        }
        memmove(cg->rcounts + at + 1, cg->rcounts + at,
                sizeof(*cg->rcounts) * (size_t)(cg->nrcounts - at));
        cg->rcounts[at].regex = strdup(regex);
        GR_ASSERT(cg->rcounts[at].regex != NULL);
        cg->rcounts[at].n = 0;
        cg->nrcounts++;
    }
    cg->rcounts[at].n += d;
    if (cg->rcounts[at].n == 0) {
        free(cg->rcounts[at].regex);
        memmove(cg->rcounts + at, cg->rcounts + at + 1,
                sizeof(*cg->rcounts) * (size_t)(cg->nrcounts - at - 1));
        cg->nrcounts--;
    }
}

/* The slot in assignor_users of the assignor named a, or -1. */
static int
assignor_slot(const char *a)
{
    if (a == NULL)
        return -1;
    if (strcmp(a, "uniform") == 0)
        return 0;
    if (strcmp(a, "range") == 0)
        return 1;
    return -1;
}

static uint32_t
ihash(const char *iid)
{
    return gr_hash(iid, strlen(iid));
}

static void
irehash(gr_cgroup_t *cg, uint32_t n)
{
    gr_cmember_t **t = calloc(n, sizeof(*t));
    GR_ASSERT(t != NULL);
    for (uint32_t b = 0; b < cg->isize; b++) {
        gr_cmember_t *m = cg->itab[b], *next;
        for (; m; m = next) {
            uint32_t nb = ihash(m->instance_id) & (n - 1);
            next = m->inext;
            m->inext = t[nb];
            t[nb] = m;
        }
    }
    free(cg->itab);
    cg->itab = t;
    cg->isize = n;
}

void
gr_cg_index(gr_cgroup_t *cg, gr_cmember_t *m, int d)
{
    int slot;
    if ((d > 0) == m->indexed || (d > 0 && !m->in_group))
        return;
    m->indexed = d > 0;
    if (m->regex && *m->regex)
        rcount_adj(cg, m->regex, d);
    slot = assignor_slot(m->assignor);
    if (slot >= 0)
        cg->assignor_users[slot] += d;
    if (m->instance_id == NULL)
        return;
    if (d > 0) {
        uint32_t b;
        if (cg->isize == 0 || (uint32_t)cg->nmembers > cg->isize)
            irehash(cg, cg->isize ? cg->isize * 2 : 16);
        b = ihash(m->instance_id) & (cg->isize - 1);
        m->inext = cg->itab[b];
        cg->itab[b] = m;
    } else {
        gr_cmember_t **pp = &cg->itab[ihash(m->instance_id) & (cg->isize - 1)];
        while (*pp != m)
            pp = &(*pp)->inext;
        *pp = m->inext;
        m->inext = NULL;
    }
}

void
gr_cg_member_drop(gr_cgroup_t *cg, gr_cmember_t *m)
{
    gr_cmember_t **pp;
    gr_cg_index(cg, m, -1);
    if (m->prev)
        m->prev->next = m->next;
    else
        cg->members = m->next;
    if (m->next)
        m->next->prev = m->prev;
    else
        cg->mlast = m->prev;
    pp = &cg->mtab[mhash(m->id, strlen(m->id)) & (cg->msize - 1)];
    while (*pp != m)
        pp = &(*pp)->hnext;
    *pp = m->hnext;
    cg->mcount--;
    member_free(cg->grp->g->loop, m);
}

static gr_cmember_t *
static_member(const gr_cgroup_t *cg, const char *iid)
{
    gr_cmember_t *m;
    if (iid == NULL || cg->isize == 0)
        return NULL;
    for (m = cg->itab[ihash(iid) & (cg->isize - 1)]; m; m = m->inext)
        if (strcmp(m->instance_id, iid) == 0)
            return m;
    return NULL;
}

static bool
reconciled_to(const gr_cmember_t *m, int32_t epoch)
{
    return m->state == GR_CM_STABLE && m->epoch == epoch;
}

const char *
gr_cg_state_str(const gr_cgroup_t *cg)
{
    if (cg->nmembers == 0)
        return "Empty";
    if (cg->epoch > cg->assignment_epoch)
        return "Assigning";
    for (const gr_cmember_t *m = cg->members; m; m = m->next)
        if (m->in_group && !reconciled_to(m, cg->assignment_epoch))
            return "Reconciling";
    return "Stable";
}

/* --- an operation */

typedef struct op {
    gr_groups_t *g;
    gr_group_t *grp;
    gr_cgroup_t *cg;
    gr_arena_t *a;
    gr_cg_recs_t rs;
    int64_t now;
    bool created;       /* the group exists for this operation only so far */
    gr_cgroup_t *tmp;   /* an empty state to compute with, for a group that
                         * becomes a consumer group by this operation's
                         * records (their replay converts it) */
    bool regex_pending; /* start the regex resolution once committed */
    gr_kerr_t err;
    const char *msg;
} op_t;

static void __attribute__((format(printf, 3, 4)))
fail(op_t *op, gr_kerr_t err, const char *fmt, ...)
{
    va_list ap;
    char buf[512];
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    op->err = err;
    op->msg = adup(op->a, buf);
}

/* Topics by name or id from the cluster (what Kafka's metadata image
 * knows). */
static const gr_topic_t *
topic_named(const op_t *op, const char *name)
{
    return gr_cluster_topic_cstr(op->g->cluster, name);
}

static const gr_topic_t *
topic_id(const gr_groups_t *g, const gr_uuid_t *id)
{
    return gr_cluster_topic_by_id(g->cluster, id);
}

static const gr_cg_regex_t *
regex_find(const gr_cgroup_t *cg, const char *regex)
{
    if (regex == NULL || !*regex)
        return NULL;
    for (const gr_cg_regex_t *re = cg->regexes; re; re = re->next)
        if (strcmp(re->regex, regex) == 0)
            return re;
    return NULL;
}

/* The ids of the existing topics m subscribes to (by name, or through
 * its resolved regex), ascending: Kafka's TopicIds. */
typedef struct idset {
    gr_uuid_t *v;
    int32_t n;
} idset_t;

static int
uuid_qcmp(const void *a, const void *b)
{
    return id_cmp(a, b);
}

static void
idset_add_names(op_t *op, idset_t *s, int32_t *cap, char *const *names,
                int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        const gr_topic_t *t = topic_named(op, names[i]);
        if (t == NULL)
            continue;
        if (s->n == *cap) {
            gr_uuid_t *v;
            *cap = *cap ? *cap * 2 : 8;
            v = az(op->a, sizeof(*v) * (size_t)*cap);
            if (s->n)
                memcpy(v, s->v, sizeof(*v) * (size_t)s->n);
            s->v = v;
        }
        s->v[s->n++] = t->id;
    }
}

static idset_t
member_topic_ids(op_t *op, const gr_cmember_t *m)
{
    idset_t s = { NULL, 0 };
    int32_t cap = 0, k = 0;
    const gr_cg_regex_t *re = regex_find(op->cg, m->regex);
    idset_add_names(op, &s, &cap, m->topics, m->ntopics);
    if (re)
        idset_add_names(op, &s, &cap, re->topics, re->ntopics);
    if (s.n > 1)
        qsort(s.v, (size_t)s.n, sizeof(*s.v), uuid_qcmp);
    for (int32_t i = 0; i < s.n; i++)
        if (k == 0 || id_cmp(&s.v[i], &s.v[k - 1]) != 0)
            s.v[k++] = s.v[i];
    s.n = k;
    return s;
}

static bool
idset_has(const idset_t *s, const gr_uuid_t *id)
{
    return bsearch(id, s->v, (size_t)s->n, sizeof(*s->v), uuid_qcmp) != NULL;
}

/* --- reconciliation (Kafka's CurrentAssignmentBuilder) */

typedef struct owned {
    const gr_cg_partitions_t *v;
    int32_t n; /* -1: not given */
} owned_t;

/* Whether the member still reports owning a partition of a (an owned list
 * not given counts as owning them). */
static bool
owns_revoked(const owned_t *o, const gr_cg_assign_t *a)
{
    if (o->n < 0)
        return true;
    for (int32_t i = 0; i < o->n; i++) {
        const gr_cg_tp_t *tp = a_topic(a, &o->v[i].topic_id);
        if (tp == NULL)
            continue;
        for (int32_t k = 0; k < o->v[i].npartitions; k++)
            if (tp_find(tp, o->v[i].partitions[k]) >= 0)
                return true;
    }
    return false;
}

/* Kafka's Builder.updateMemberEpoch: the previous epoch is the current. */
static void
update_epoch(gr_cmember_t *m, int32_t epoch)
{
    m->prev_epoch = m->epoch;
    m->epoch = epoch;
}

static gr_cmember_t
compute_next(op_t *op, const gr_cmember_t *m, int32_t member_epoch,
             int32_t target_epoch, const gr_cg_assign_t *target,
             const owned_t *owned)
{
    idset_t subs = member_topic_ids(op, m);
    gr_cmember_t out = *m;
    ab_t keep, revoke, add;
    gr_cg_assign_t nk, nr, na;
    bool unreleased = false;
    int32_t i = 0, j = 0;

    ab_init(&keep, op->a, true);
    ab_init(&revoke, op->a, true);
    ab_init(&add, op->a, true);
    /* the union of the target's topics and the assigned ones */
    while (i < target->n || j < m->assigned.n) {
        const gr_cg_tp_t *tt = NULL, *ct = NULL;
        int c;
        if (i >= target->n)
            c = 1;
        else if (j >= m->assigned.n)
            c = -1;
        else
            c = id_cmp(&target->t[i].id, &m->assigned.t[j].id);
        if (c <= 0)
            tt = &target->t[i++];
        if (c >= 0)
            ct = &m->assigned.t[j++];
        if (tt && !idset_has(&subs, &tt->id))
            tt = NULL; /* no longer subscribed: nothing of it is wanted */
        if (ct)
            for (int32_t k = 0; k < ct->n; k++) {
                if (tt && tp_find(tt, ct->parts[k]) >= 0)
                    ab_add(&keep, &ct->id, ct->parts[k],
                           ct->epochs ? ct->epochs[k] : member_epoch);
                else
                    ab_add(&revoke, &ct->id, ct->parts[k],
                           ct->epochs ? ct->epochs[k] : member_epoch);
            }
        if (tt)
            for (int32_t k = 0; k < tt->n; k++) {
                int32_t p = tt->parts[k];
                if (ct && tp_find(ct, p) >= 0)
                    continue;
                /* another member still owns it: wait (unless this member
                 * itself is revoking it) */
                if (pe_get(op->cg, &tt->id, p) != -1 &&
                    !a_has(&m->pending, &tt->id, p)) {
                    unreleased = true;
                    continue;
                }
                ab_add(&add, &tt->id, p, target_epoch);
            }
    }
    nk = ab_finish(&keep);
    nr = ab_finish(&revoke);
    if (!a_empty(&nr) && owns_revoked(owned, &nr)) {
        out.state = GR_CM_UNREVOKED;
        update_epoch(&out, member_epoch);
        out.assigned = nk;
        out.pending = nr;
        return out;
    }
    for (int32_t k = 0; k < add.n; k++)
        ab_add(&keep, &add.v[k].id, add.v[k].p, add.v[k].e);
    na = add.n ? ab_finish(&keep) : nk;
    out.state = unreleased ? GR_CM_UNRELEASED : GR_CM_STABLE;
    update_epoch(&out, target_epoch);
    out.assigned = na;
    out.pending = (gr_cg_assign_t){ NULL, 0 };
    return out;
}

/* The subscription changed while the target did not: partitions of topics
 * no longer subscribed move to pending revocation. */
static gr_cmember_t
update_current(op_t *op, const gr_cmember_t *m, const owned_t *owned)
{
    idset_t subs = member_topic_ids(op, m);
    gr_cmember_t out = *m;
    gr_cg_assign_t na, np;

    if (subs.n == 0 && a_empty(&m->pending)) {
        na = (gr_cg_assign_t){ NULL, 0 };
        np = m->assigned;
    } else {
        ab_t keep, pend;
        ab_init(&keep, op->a, true);
        ab_init(&pend, op->a, true);
        for (int32_t i = 0; i < m->pending.n; i++)
            for (int32_t k = 0; k < m->pending.t[i].n; k++)
                ab_add(&pend, &m->pending.t[i].id, m->pending.t[i].parts[k],
                       m->pending.t[i].epochs ? m->pending.t[i].epochs[k]
                                              : m->epoch);
        for (int32_t i = 0; i < m->assigned.n; i++) {
            const gr_cg_tp_t *tp = &m->assigned.t[i];
            ab_t *to = idset_has(&subs, &tp->id) ? &keep : &pend;
            for (int32_t k = 0; k < tp->n; k++)
                ab_add(to, &tp->id, tp->parts[k],
                       tp->epochs ? tp->epochs[k] : m->epoch);
        }
        na = ab_finish(&keep);
        np = ab_finish(&pend);
    }
    if (a_eq(&na, &m->assigned, true))
        return *m;
    if (!a_empty(&np) && owns_revoked(owned, &np)) {
        out.state = GR_CM_UNREVOKED;
        update_epoch(&out, m->epoch);
        out.assigned = na;
        out.pending = np;
        return out;
    }
    update_epoch(&out, m->epoch);
    out.assigned = na;
    return out;
}

static gr_cmember_t
reconcile_build(op_t *op, const gr_cmember_t *m, int32_t target_epoch,
                const gr_cg_assign_t *target, bool sub_changed,
                const owned_t *owned)
{
    switch (m->state) {
    case GR_CM_STABLE:
        if (m->epoch != target_epoch)
            return compute_next(op, m, m->epoch, target_epoch, target, owned);
        if (sub_changed)
            return update_current(op, m, owned);
        return *m;
    case GR_CM_UNREVOKED:
        if (owns_revoked(owned, &m->pending))
            return sub_changed ? update_current(op, m, owned) : *m;
        return compute_next(op, m, m->epoch, target_epoch, target, owned);
    case GR_CM_UNRELEASED:
        return compute_next(op, m, m->epoch, target_epoch, target, owned);
    }
    /* UNKNOWN: only a member that gave up everything may go on */
    if (owned->n != 0) {
        fail(op, GR_KERR_FENCED_MEMBER_EPOCH,
             "The consumer group member is in a unknown state. The member "
             "must abandon all its partitions and rejoin.");
        return *m;
    }
    return compute_next(op, m, target_epoch, target_epoch, target, owned);
}

static bool
member_current_eq(const gr_cmember_t *a, const gr_cmember_t *b)
{
    return a->epoch == b->epoch && a->prev_epoch == b->prev_epoch &&
           a->state == b->state && a_eq(&a->assigned, &b->assigned, true) &&
           a_eq(&a->pending, &b->pending, true);
}

/* Kafka's maybeReconcile: the member's next current assignment, with its
 * record when it changed. *timer: 1 to start the rebalance timeout, -1 to
 * cancel it, 0 to leave it. */
static gr_cmember_t
maybe_reconcile(op_t *op, const gr_cmember_t *m, int32_t target_epoch,
                const gr_cg_assign_t *target, bool sub_changed,
                const owned_t *owned, int *timer)
{
    gr_cmember_t out;
    *timer = 0;
    if (!sub_changed && reconciled_to(m, target_epoch))
        return *m;
    out = reconcile_build(op, m, target_epoch, target, sub_changed, owned);
    if (op->err != GR_KERR_NONE)
        return *m;
    if (!member_current_eq(&out, m)) {
        gr_cg_rec_current(&op->rs, &out);
        *timer = out.state == GR_CM_UNREVOKED ? 1 : -1;
        GR_LOG_DEBUG("group %s: member %s now at epoch %d (previous %d), "
                     "state %d",
                     op->grp->id, out.id, (int)out.epoch, (int)out.prev_epoch,
                     (int)out.state);
    }
    return out;
}

/* --- subscriptions and the metadata hash */

/* The subscribed names of the group once m becomes upd (either NULL):
 * arena copies of the counted names, sorted. */
typedef struct subview {
    gr_cg_sub_t *v;
    int32_t n;
} subview_t;

static void
subview_adj(op_t *op, subview_t *s, char *const *names, int32_t n, int d)
{
    for (int32_t i = 0; i < n; i++) {
        int32_t lo = 0, hi = s->n - 1, at;
        bool found = false;
        while (lo <= hi) {
            int32_t mid = (lo + hi) / 2;
            int c = strcmp(s->v[mid].name, names[i]);
            if (c == 0) {
                found = true;
                lo = mid;
                break;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid - 1;
        }
        at = lo;
        if (!found) {
            gr_cg_sub_t *v;
            if (d < 0)
                continue;
            v = az(op->a, sizeof(*v) * (size_t)(s->n + 1));
            if (at)
                memcpy(v, s->v, sizeof(*v) * (size_t)at);
            if (s->n - at)
                memcpy(v + at + 1, s->v + at,
                       sizeof(*v) * (size_t)(s->n - at));
            v[at].name = names[i];
            v[at].by_name = v[at].by_regex = 0;
            s->v = v;
            s->n++;
        }
        s->v[at].by_name += d;
    }
}

static subview_t
subview(op_t *op, const gr_cmember_t *m, const gr_cmember_t *upd)
{
    subview_t s;
    int32_t k = 0;
    s.n = op->cg->nsubs;
    s.v = az(op->a, sizeof(*s.v) * (size_t)(s.n ? s.n : 1));
    if (s.n)
        memcpy(s.v, op->cg->subs, sizeof(*s.v) * (size_t)s.n);
    if (m)
        subview_adj(op, &s, m->topics, m->ntopics, -1);
    if (upd)
        subview_adj(op, &s, upd->topics, upd->ntopics, 1);
    /* a regex whose last subscriber goes takes its topics with it */
    if (m && m->regex && *m->regex &&
        !str_eq(m->regex, upd ? upd->regex : NULL)) {
        if (rcount(op->cg, m->regex) == 1) {
            const gr_cg_regex_t *re = regex_find(op->cg, m->regex);
            for (int32_t i = 0; re && i < re->ntopics; i++)
                for (int32_t j = 0; j < s.n; j++)
                    if (strcmp(s.v[j].name, re->topics[i]) == 0)
                        s.v[j].by_regex--;
        }
    }
    for (int32_t i = 0; i < s.n; i++)
        if (s.v[i].by_name > 0 || s.v[i].by_regex > 0)
            s.v[k++] = s.v[i];
    s.n = k;
    return s;
}

static uint64_t
fnv64(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Kafka's computeMetadataHash: a hash of every subscribed topic that
 * exists (its id, name and partition count), in name order. Ours is
 * FNV-1a rather than Kafka's XXH3: the value only ever meets itself. */
static int64_t
metadata_hash(op_t *op, const subview_t *s)
{
    uint64_t h = 14695981039346656037ull;
    int any = 0;
    for (int32_t i = 0; i < s->n; i++) {
        const gr_topic_t *t = topic_named(op, s->v[i].name);
        uint64_t th = 14695981039346656037ull;
        int32_t np;
        if (t == NULL)
            continue;
        np = t->nparts;
        th = fnv64(th, t->id.b, 16);
        th = fnv64(th, t->name, strlen(t->name));
        th = fnv64(th, &np, sizeof np);
        h = fnv64(h, &th, sizeof th);
        any = 1;
    }
    return any ? (int64_t)h : 0;
}

static const char *
nonempty(const char *r)
{
    return r && *r ? r : NULL;
}

/* The distinct regexes in use once one member's counted regex from (or
 * NULL) becomes to (or NULL), and one of them (the only one when 1). */
static int32_t
regex_count_swap(const gr_cgroup_t *cg, const char *from, const char *to,
                 const char **one)
{
    int32_t n = cg->nrcounts;
    bool gone;
    from = nonempty(from);
    to = nonempty(to);
    gone = from && !str_eq(from, to) && rcount(cg, from) == 1;
    n -= gone;
    if (to && !str_eq(from, to) && rcount(cg, to) == 0)
        n++;
    *one = to;
    for (int32_t i = 0; *one == NULL && i < cg->nrcounts; i++)
        if (!(gone && strcmp(cg->rcounts[i].regex, from) == 0))
            *one = cg->rcounts[i].regex;
    return n;
}

/* The members whose regex is regex once m becomes upd (either NULL). */
static int32_t
regex_users_after(const gr_cgroup_t *cg, const char *regex,
                  const gr_cmember_t *m, const gr_cmember_t *upd)
{
    int32_t n = rcount(cg, regex);
    if (m && m->indexed && str_eq(nonempty(m->regex), regex))
        n--;
    if (upd && str_eq(nonempty(upd->regex), regex))
        n++;
    return n;
}

static int32_t
regex_count(const gr_cgroup_t *cg, const gr_cmember_t *m,
            const gr_cmember_t *upd, const char **one)
{
    /* distinct regexes in use once m becomes upd */
    return regex_count_swap(cg, m && m->indexed ? m->regex : NULL,
                            upd ? upd->regex : NULL, one);
}

/* Kafka's ConsumerGroup.subscriptionType. */
static bool
homogeneous(const gr_cgroup_t *cg, const subview_t *s, const gr_cmember_t *m,
            const gr_cmember_t *upd, int32_t nmembers)
{
    const char *one;
    int32_t nregex = regex_count(cg, m, upd, &one);
    if (nregex == 0) {
        for (int32_t i = 0; i < s->n; i++)
            if (s->v[i].by_name != nmembers)
                return false;
        return true;
    }
    if (nregex == 1) {
        if (regex_users_after(cg, one, m, upd) != nmembers)
            return false;
        for (int32_t i = 0; i < s->n; i++)
            if (!(s->v[i].by_regex == 1 && s->v[i].by_name <= 0))
                return false;
        return true;
    }
    return false;
}

/* --- the preferred server assignor */

/* The assignor most members ask for (once m becomes upd), or NULL. */
static const char *
preferred_assignor(const op_t *op, const gr_cmember_t *m,
                   const gr_cmember_t *upd)
{
    const gr_groups_config_t *cfg = &op->g->cfg;
    int32_t best = 0;
    const char *name = NULL;
    for (int32_t i = 0; i < cfg->consumer_nassignors; i++) {
        const char *a = cfg->consumer_assignors[i];
        int slot = assignor_slot(a);
        int32_t n = slot >= 0 ? op->cg->assignor_users[slot] : 0;
        if (m && m->indexed && str_eq(m->assignor, a))
            n--;
        if (upd)
            n += str_eq(upd->assignor, a);
        if (n > best) {
            best = n;
            name = a;
        }
    }
    return name;
}

static const char *
default_assignor(const gr_groups_t *g)
{
    return g->cfg.consumer_assignors[0];
}

/* --- the target assignment (Kafka's TargetAssignmentBuilder) */

static const gr_cg_assign_t *
last_target(const gr_cgroup_t *cg, const gr_cmember_t *upd)
{
    static const gr_cg_assign_t none = { NULL, 0 };
    const gr_cmember_t *m;
    if (upd->instance_id) {
        m = static_member(cg, upd->instance_id);
        return m && m->has_target ? &m->target : &none;
    }
    m = gr_cg_member((gr_cgroup_t *)cg, upd->id, strlen(upd->id));
    return m && m->has_target ? &m->target : &none;
}

typedef struct spec_member {
    const gr_cmember_t *m;     /* the member (upd for the updated) */
    const gr_cg_assign_t *old; /* previous target, NULL: none */
} spec_member_t;

static int
topic_name_cmp(const void *a, const void *b)
{
    const gr_asg_topic_t *x = a, *y = b;
    return strcmp(x->name, y->name);
}

typedef struct topic_ix {
    gr_uuid_t id;
    int32_t ix;
} topic_ix_t;

static int
topic_ix_cmp(const void *a, const void *b)
{
    return id_cmp(&((const topic_ix_t *)a)->id, &((const topic_ix_t *)b)->id);
}

/* Computes the target assignment of group epoch epoch with upd in place of
 * m (m NULL for a new member); its records go to op->rs. Returns upd's
 * target (arena). */
static gr_cg_assign_t
compute_target(op_t *op, int32_t epoch, const gr_cmember_t *m,
               const gr_cmember_t *upd, bool homog, const char *assignor)
{
    gr_cgroup_t *cg = op->cg;
    spec_member_t *sm;
    int32_t nsm = 0, nt = 0, tcap = 0, res_ix = -1;
    gr_asg_spec_t spec;
    gr_asg_topic_t *topics = NULL;
    topic_ix_t *byid;
    gr_asg_member_t *am;
    const gr_cmember_t *replaced = NULL;
    gr_assignor_fn fn = gr_assignor_find(assignor, strlen(assignor));
    gr_cg_assign_t result = { NULL, 0 };
    int64_t t0 = gr_mono_us();

    GR_ASSERT(fn != NULL);
    sm = az(op->a, sizeof(*sm) * (size_t)(cg->nmembers + 1));
    if (upd->instance_id) {
        const gr_cmember_t *s = static_member(cg, upd->instance_id);
        if (s && strcmp(s->id, upd->id) != 0)
            replaced = s; /* its target becomes upd's */
    }
    for (const gr_cmember_t *x = cg->members; x; x = x->next) {
        if (!x->in_group || x == replaced)
            continue;
        if (strcmp(x->id, upd->id) == 0) {
            sm[nsm].m = upd;
            res_ix = nsm;
        } else {
            sm[nsm].m = x;
        }
        sm[nsm].old = x->has_target ? &x->target : NULL;
        nsm++;
    }
    if (res_ix < 0) {
        gr_cmember_t *x = gr_cg_member(cg, upd->id, strlen(upd->id));
        res_ix = nsm;
        sm[nsm].m = upd;
        sm[nsm].old = replaced && replaced->has_target ? &replaced->target
                      : x && x->has_target             ? &x->target
                                                       : NULL;
        nsm++;
    } else if (replaced && replaced->has_target) {
        sm[res_ix].old = &replaced->target;
    }
    (void)m;
    /* the topics: what the members subscribe to and exists, by name */
    am = az(op->a, sizeof(*am) * (size_t)nsm);
    for (int32_t i = 0; i < nsm; i++) {
        const gr_cmember_t *x = sm[i].m;
        const gr_cg_regex_t *re = regex_find(cg, x->regex);
        for (int pass = 0; pass < 2; pass++) {
            char *const *names = pass ? (re ? re->topics : NULL) : x->topics;
            int32_t n = pass ? (re ? re->ntopics : 0) : x->ntopics;
            for (int32_t k = 0; k < n; k++) {
                const gr_topic_t *t = topic_named(op, names[k]);
                bool dup = false;
                if (t == NULL)
                    continue;
                for (int32_t j = 0; j < nt && !dup; j++)
                    dup = topics[j].name == t->name;
                if (dup)
                    continue;
                if (nt == tcap) {
                    gr_asg_topic_t *v;
                    tcap = tcap ? tcap * 2 : 8;
                    v = az(op->a, sizeof(*v) * (size_t)tcap);
                    if (nt)
                        memcpy(v, topics, sizeof(*v) * (size_t)nt);
                    topics = v;
                }
                topics[nt].id = t->id;
                topics[nt].name = t->name;
                topics[nt].nparts = t->nparts;
                nt++;
            }
        }
    }
    if (nt > 1)
        qsort(topics, (size_t)nt, sizeof(*topics), topic_name_cmp);
    byid = az(op->a, sizeof(*byid) * (size_t)(nt ? nt : 1));
    for (int32_t j = 0; j < nt; j++) {
        topics[j].owner =
            az(op->a, sizeof(int32_t) *
                          (size_t)(topics[j].nparts ? topics[j].nparts : 1));
        for (int32_t p = 0; p < topics[j].nparts; p++)
            topics[j].owner[p] = -1;
        byid[j].id = topics[j].id;
        byid[j].ix = j;
    }
    if (nt > 1)
        qsort(byid, (size_t)nt, sizeof(*byid), topic_ix_cmp);
    for (int32_t i = 0; i < nsm; i++) {
        const gr_cmember_t *x = sm[i].m;
        idset_t ids = member_topic_ids(op, x);
        int32_t *tix = az(op->a, sizeof(int32_t) * (size_t)(ids.n ? ids.n : 1));
        int32_t n = 0;
        for (int32_t k = 0; k < ids.n; k++) {
            topic_ix_t key = { ids.v[k], 0 };
            topic_ix_t *f =
                bsearch(&key, byid, (size_t)nt, sizeof(*byid), topic_ix_cmp);
            if (f)
                tix[n++] = f->ix;
        }
        /* ascending topic indexes */
        for (int32_t a = 1; a < n; a++)
            for (int32_t b = a; b > 0 && tix[b - 1] > tix[b]; b--) {
                int32_t tmp = tix[b];
                tix[b] = tix[b - 1];
                tix[b - 1] = tmp;
            }
        am[i].member_id = x->id;
        am[i].instance_id = x->instance_id;
        am[i].topics = tix;
        am[i].ntopics = n;
        /* the previous owners, for the topics the member still wants */
        if (sm[i].old)
            for (int32_t k = 0; k < sm[i].old->n; k++) {
                const gr_cg_tp_t *tp = &sm[i].old->t[k];
                topic_ix_t key = { tp->id, 0 };
                topic_ix_t *f;
                bool sub = false;
                f = bsearch(&key, byid, (size_t)nt, sizeof(*byid),
                            topic_ix_cmp);
                if (f == NULL)
                    continue;
                for (int32_t q = 0; q < n; q++)
                    sub |= tix[q] == f->ix;
                if (!sub)
                    continue;
                for (int32_t q = 0; q < tp->n; q++)
                    if (tp->parts[q] >= 0 &&
                        tp->parts[q] < topics[f->ix].nparts)
                        topics[f->ix].owner[tp->parts[q]] = i;
            }
    }
    spec.topics = topics;
    spec.ntopics = nt;
    spec.members = am;
    spec.nmembers = nsm;
    spec.homogeneous = homog;
    if (fn(&spec) != 0) {
        fail(op, GR_KERR_UNKNOWN_SERVER_ERROR,
             "Failed to compute a new target assignment for epoch %d: "
             "Partitions were left unassigned",
             (int)epoch);
        return result;
    }
    /* each member's new target; records for those that changed */
    {
        ab_t *abs = az(op->a, sizeof(*abs) * (size_t)nsm);
        for (int32_t i = 0; i < nsm; i++)
            ab_init(&abs[i], op->a, false);
        for (int32_t j = 0; j < nt; j++)
            for (int32_t p = 0; p < topics[j].nparts; p++) {
                int32_t o = topics[j].owner[p];
                if (o >= 0 && o < nsm)
                    ab_add(&abs[o], &topics[j].id, p, 0);
            }
        for (int32_t i = 0; i < nsm; i++) {
            gr_cg_assign_t na = ab_finish(&abs[i]);
            if (sm[i].old == NULL || !a_eq(&na, sm[i].old, false))
                gr_cg_rec_target(&op->rs, sm[i].m->id, &na);
            if (i == res_ix)
                result = na;
        }
    }
    gr_cg_rec_target_meta(&op->rs, epoch, op->now);
    GR_LOG_INFO("group %s: computed a new target assignment for epoch %d "
                "with '%s' assignor in %lldms (%d member(s), %d topic(s))",
                op->grp->id, (int)epoch, assignor,
                (long long)((gr_mono_us() - t0) / 1000), (int)nsm, (int)nt);
    return result;
}

/* --- fencing */

/* Kafka's consumerGroupFenceMembers: the records removing the n members;
 * they must be in_group. */
static void
fence_records(op_t *op, gr_cmember_t *const *ms, int32_t n)
{
    gr_cgroup_t *cg = op->cg;
    subview_t s;
    s.n = cg->nsubs;
    s.v = az(op->a, sizeof(*s.v) * (size_t)(s.n ? s.n : 1));
    if (s.n)
        memcpy(s.v, cg->subs, sizeof(*s.v) * (size_t)s.n);
    for (int32_t i = 0; i < n; i++) {
        gr_cg_rec_tomb(&op->rs, GR_CG_REC_CURRENT, ms[i]->id);
        gr_cg_rec_tomb(&op->rs, GR_CG_REC_TARGET_MEMBER, ms[i]->id);
        gr_cg_rec_tomb(&op->rs, GR_CG_REC_MEMBER, ms[i]->id);
        subview_adj(op, &s, ms[i]->topics, ms[i]->ntopics, -1);
    }
    /* regexes no remaining member uses */
    for (const gr_cg_regex_t *re = cg->regexes; re; re = re->next) {
        int32_t users = rcount(cg, re->regex), leaving = 0;
        for (int32_t i = 0; i < n; i++)
            leaving += str_eq(ms[i]->regex, re->regex);
        if (users == leaving) {
            gr_cg_rec_tomb(&op->rs, GR_CG_REC_REGEX, re->regex);
            for (int32_t i = 0; i < re->ntopics; i++)
                for (int32_t j = 0; j < s.n; j++)
                    if (strcmp(s.v[j].name, re->topics[i]) == 0)
                        s.v[j].by_regex--;
        }
    }
    {
        int32_t k = 0;
        for (int32_t i = 0; i < s.n; i++)
            if (s.v[i].by_name > 0 || s.v[i].by_regex > 0)
                s.v[k++] = s.v[i];
        s.n = k;
    }
    gr_cg_rec_epoch(&op->rs, cg->epoch + 1, metadata_hash(op, &s));
    GR_LOG_INFO("group %s: bumped group epoch to %d (%d member(s) removed)",
                op->grp->id, (int)(cg->epoch + 1), (int)n);
    if (cg->nmembers == n)
        gr_cg_rec_target_meta(&op->rs, cg->epoch + 1, 0);
}

static void
op_init(op_t *op, gr_groups_t *g, gr_group_t *grp, gr_arena_t *a)
{
    memset(op, 0, sizeof(*op));
    op->g = g;
    op->grp = grp;
    op->cg = grp ? grp->cg : NULL;
    op->a = a;
    op->rs.a = a;
    op->now = gr_loop_wall_ms(g->loop);
}

/* Fences m now (a timeout): its records are written and applied. */
static void
fence_now(gr_cmember_t *m, const char *why)
{
    gr_cgroup_t *cg = m->cg;
    gr_group_t *grp = cg->grp;
    gr_arena_t *a = gr_arena_new(4096);
    gr_kerr_t err;
    bool gone;
    op_t op;

    GR_ASSERT(a != NULL);
    op_init(&op, grp->g, grp, a);
    GR_LOG_INFO("group %s: member %s fenced from the group because %s", grp->id,
                m->id, why);
    fence_records(&op, &m, 1);
    err = gr_cg_commit(grp, &op.rs, &gone);
    if (err != GR_KERR_NONE)
        GR_LOG_ERROR("group %s: could not fence a member: %s", grp->id,
                     gr_kerr_name(err));
    gr_arena_destroy(a);
}

static void
session_expired(gr_loop_t *loop, gr_timer_t *t)
{
    gr_cmember_t *m = t->data;
    (void)loop;
    fence_now(m, "the member session expired");
}

static void
rebalance_expired(gr_loop_t *loop, gr_timer_t *t)
{
    gr_cmember_t *m = t->data;
    char why[128];
    (void)loop;
    if (m->epoch != m->rebalance_epoch)
        return; /* it moved on meanwhile */
    snprintf(why, sizeof why,
             "it failed to transition from epoch %d within %dms",
             (int)m->rebalance_epoch, (int)m->rebalance_timeout_ms);
    fence_now(m, why);
}

static void
session_start(gr_groups_t *g, gr_cmember_t *m)
{
    gr_timer_start(g->loop, &m->session_timer,
                   g->cfg.consumer_session_timeout_ms);
}

static void
rebalance_timer(gr_groups_t *g, gr_cmember_t *m, int what)
{
    if (what > 0) {
        m->rebalance_epoch = m->epoch;
        gr_timer_start(g->loop, &m->rebalance_timer,
                       m->rebalance_timeout_ms > 0 ? m->rebalance_timeout_ms
                                                   : 0);
    } else if (what < 0) {
        gr_timer_stop(g->loop, &m->rebalance_timer);
    }
}

void
gr_cg_loaded(gr_group_t *grp)
{
    gr_cgroup_t *cg = grp->cg;
    gr_cmember_t *m, *next;
    int32_t n = 0;
    for (m = cg->members; m; m = next) {
        next = m->next;
        if (!m->in_group) {
            /* a target without a member: Kafka keeps it apart; it has
             * no use without one */
            gr_cg_member_drop(cg, m);
            continue;
        }
        n++;
        session_start(grp->g, m);
        if (m->state == GR_CM_UNREVOKED)
            rebalance_timer(grp->g, m, 1);
    }
    GR_LOG_INFO("loaded consumer group %s with %d member(s), epoch %d", grp->id,
                (int)n, (int)cg->epoch);
}


/* --- regular expressions (Kafka's maybeUpdateRegularExpressions and
 * TopicRegexResolver, resolved at once rather than in the background) */

/* What changes when topics come or go: their number and the newest. */
static int64_t
topics_fp(const gr_groups_t *g)
{
    const gr_cluster_t *c = g->cluster;
    uint64_t h = fnv64(14695981039346656037ull, &c->ntopics, sizeof c->ntopics);
    if (c->topics_tail)
        h = fnv64(h, c->topics_tail->id.b, 16);
    return (int64_t)(h >> 1);
}

static bool
names_eq(char *const *a, int32_t na, char *const *b, int32_t nb)
{
    if (na != nb)
        return false;
    for (int32_t i = 0; i < na; i++)
        if (strcmp(a[i], b[i]) != 0)
            return false;
    return true;
}

static int
cstr_qcmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

enum regex_status { REGEX_NO_CHANGE, REGEX_UPDATED, REGEX_RESOLVED };

/* An RE2-style check of the regex's syntax first, for RE2J's words where
 * the POSIX translator would say it its own way; then the translator
 * (src/core/regex.h), which serves the subset both share. NULL when
 * valid, else the description (static or in a). */
static const char *
regex_invalid(gr_arena_t *a, const char *re)
{
    char why[256];
    gr_regex_t rx;
    gr_str_t pat = gr_str_c(re);
    int depth = 0;
    bool in_class = false;
    for (const char *p = re; *p; p++) {
        if (*p == '\\') {
            if (p[1] == '\0')
                return "trailing backslash at end of expression";
            p++;
            continue;
        }
        if (in_class) {
            in_class = *p != ']';
            continue;
        }
        if (*p == '[') {
            in_class = true;
            if (p[1] == '^')
                p++;
            if (p[1] == ']')
                p++;
        } else if (*p == '(') {
            depth++;
        } else if (*p == ')') {
            if (--depth < 0)
                return "unexpected )";
        } else if ((*p == '*' || *p == '+' || *p == '?') &&
                   (p == re || p[-1] == '(' || p[-1] == '|')) {
            return gr_arena_printf(a,
                                   "missing argument to repetition "
                                   "operator: %c",
                                   *p);
        }
    }
    if (in_class)
        return "missing closing ]";
    if (depth > 0)
        return "missing closing )";
    if (gr_regex_compile(&rx, &pat, why, sizeof why) != 0)
        return gr_arena_strndup(a, why, strlen(why));
    gr_regex_free(&rx);
    return NULL;
}

static void regex_resolve(gr_loop_t *loop, gr_timer_t *t);

/* Kafka's maybeUpdateRegularExpressions: the status of cur's regex once
 * it becomes new_regex (changed), the tombstone of a regex it was the
 * last to use, and the group's regexes resolved in the background when
 * due (a new one, new topics after 10 s, or
 * group.consumer.regex.refresh.interval.ms): a zero-delay timer resolves
 * them and bumps the epoch, as Kafka's executor does. false with op->err
 * set for an invalid new regex. */
static bool
regex_update(op_t *op, const gr_cmember_t *cur, const char *old_regex,
             const char *new_regex, bool changed, enum regex_status *status)
{
    gr_cgroup_t *cg = op->cg;
    bool require = false;
    int32_t nset = 0, nresolved = 0;
    int64_t last;

    *status = REGEX_NO_CHANGE;
    if (changed) {
        *status = REGEX_UPDATED;
        if (old_regex && *old_regex && rcount(cg, old_regex) == 1)
            gr_cg_rec_tomb(&op->rs, GR_CG_REC_REGEX, old_regex);
        if (new_regex && *new_regex) {
            if (rcount(cg, new_regex) == 0) {
                const char *why = regex_invalid(op->a, new_regex);
                if (why != NULL) {
                    fail(op, GR_KERR_INVALID_REGULAR_EXPRESSION,
                         "SubscribedTopicRegex `%s` is not a valid regular "
                         "expression: %s.",
                         new_regex, why);
                    return false;
                }
                require = true;
            } else if (regex_find(cg, new_regex)) {
                *status = REGEX_RESOLVED;
            }
        } else if (old_regex && *old_regex) {
            *status = REGEX_RESOLVED;
        }
    }
    /* the regexes in use once cur's changes */
    {
        const char *from = cur && cur->indexed ? cur->regex : NULL;
        const char *one;
        nset = regex_count_swap(cg, from, changed ? new_regex : from, &one);
    }
    if (!require && cg->nrcounts == 0)
        return true;
    if (gr_timer_armed(&cg->regex_timer))
        return true;
    last = cg->regexes ? cg->regex_refresh_ts : INT64_MIN;
    if (last != INT64_MIN && op->now <= last + 10000)
        return true;
    for (const gr_cg_regex_t *re = cg->regexes; re; re = re->next)
        nresolved++;
    require |= nset != nresolved;
    require |= cg->regexes != NULL && cg->regex_fp != topics_fp(op->g);
    require |= last == INT64_MIN ||
               op->now > last + op->g->cfg.consumer_regex_refresh_interval_ms;
    if (require && nset > 0 && op->tmp == NULL)
        gr_timer_start(op->g->loop, &cg->regex_timer, 0);
    else if (require && nset > 0)
        op->regex_pending = true; /* once the group exists */
    return true;
}

/* Kafka's TopicRegexResolver and handleRegularExpressionsResult: every
 * regex the members use, matched against every topic; the records of
 * those that changed, and a group epoch bump when one did or the
 * metadata hash moved. */
static void
regex_resolve(gr_loop_t *loop, gr_timer_t *t)
{
    gr_cgroup_t *cg = t->data;
    gr_group_t *grp = cg->grp;
    gr_arena_t *a = gr_arena_new(8192);
    int64_t fp = topics_fp(grp->g);
    bool bump = false, gone;
    subview_t sv = { NULL, 0 };
    const char **set;
    int32_t nset = 0;
    gr_kerr_t err;
    op_t op;

    (void)loop;
    GR_ASSERT(a != NULL);
    op_init(&op, grp->g, grp, a);
    set = az(a, sizeof(*set) * (size_t)(cg->nrcounts + 1));
    for (int32_t i = 0; i < cg->nrcounts; i++)
        set[nset++] = cg->rcounts[i].regex;
    /* the subscribed names: by name, and through the regexes as
     * resolved now */
    sv.v = az(a, sizeof(*sv.v) * (size_t)(cg->nsubs + 1));
    for (int32_t i = 0; i < cg->nsubs; i++)
        if (cg->subs[i].by_name > 0) {
            sv.v[sv.n] = cg->subs[i];
            sv.v[sv.n++].by_regex = 0;
        }
    for (int32_t i = 0; i < nset; i++) {
        const gr_cg_regex_t *old = regex_find(cg, set[i]);
        char **names =
            az(a, sizeof(*names) * (size_t)(grp->g->cluster->ntopics + 1));
        int32_t n = 0;
        gr_regex_t re;
        gr_str_t pat = gr_str_c(set[i]);
        char why[256];
        if (gr_regex_compile(&re, &pat, why, sizeof why) == 0) {
            for (gr_topic_t *tp = grp->g->cluster->topics; tp; tp = tp->lnext)
                if (gr_regex_matches(&re, tp->name, strlen(tp->name)))
                    names[n++] = tp->name;
            gr_regex_free(&re);
        } else {
            GR_LOG_ERROR("group %s: cannot parse regular expression '%s' "
                         "(%s): ignored",
                         grp->id, set[i], why);
        }
        if (n > 1)
            qsort(names, (size_t)n, sizeof(*names), cstr_qcmp);
        if (old == NULL || !names_eq(old->topics, old->ntopics, names, n))
            bump = true;
        subview_adj(&op, &sv, names, n, 1);
        gr_cg_rec_regex(&op.rs, set[i], names, n, fp, op.now);
    }
    GR_LOG_INFO("group %s: scanned %d topic(s) to refresh %d regular "
                "expression(s)",
                grp->id, (int)grp->g->cluster->ntopics, (int)nset);
    {
        int64_t hash = metadata_hash(&op, &sv);
        if (hash != cg->metadata_hash)
            bump = true;
        if (bump && nset > 0) {
            gr_cg_rec_epoch(&op.rs, cg->epoch + 1, hash);
            GR_LOG_INFO("group %s: bumped group epoch to %d", grp->id,
                        (int)(cg->epoch + 1));
        }
    }
    err = gr_cg_commit(grp, &op.rs, &gone);
    if (err != GR_KERR_NONE)
        GR_LOG_ERROR("group %s: could not update its regular expressions: %s",
                     grp->id, gr_kerr_name(err));
    gr_arena_destroy(a);
}

/* --- ConsumerGroupHeartbeat */

static bool
blank(const gr_str_t *s)
{
    /* Java's trim().isEmpty(): every character <= ' ' */
    if (s->len < 0)
        return false;
    for (int32_t i = 0; i < s->len; i++)
        if ((uint8_t)s->ptr[i] > ' ')
            return false;
    return true;
}

/* GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid. */
static bool
validate_request(op_t *op, const gr_cg_heartbeat_args_t *a)
{
    const gr_groups_config_t *cfg = &op->g->cfg;
    if ((a->version >= 1 || a->member_epoch > 0 || a->member_epoch == -1) &&
        blank(&a->member_id)) {
        fail(op, GR_KERR_INVALID_REQUEST, "MemberId can't be empty.");
        return false;
    }
    if (blank(&a->group_id)) {
        fail(op, GR_KERR_INVALID_REQUEST, "GroupId can't be empty.");
        return false;
    }
    if (blank(&a->instance_id)) {
        fail(op, GR_KERR_INVALID_REQUEST, "InstanceId can't be empty.");
        return false;
    }
    if (blank(&a->rack_id)) {
        fail(op, GR_KERR_INVALID_REQUEST, "RackId can't be empty.");
        return false;
    }
    if (a->member_epoch == 0) {
        if (a->rebalance_timeout_ms == -1) {
            fail(op, GR_KERR_INVALID_REQUEST,
                 "RebalanceTimeoutMs must be provided in first request.");
            return false;
        }
        if (a->nowned != 0) {
            fail(op, GR_KERR_INVALID_REQUEST,
                 "TopicPartitions must be empty when (re-)joining.");
            return false;
        }
        if (a->ntopic_names < 0 && a->topic_regex.len < 0) {
            fail(op, GR_KERR_INVALID_REQUEST,
                 "Either SubscribedTopicNames or SubscribedTopicRegex must be "
                 "non-null when (re-)joining.");
            return false;
        }
    } else if (a->member_epoch == -2) {
        if (a->instance_id.len < 0) {
            fail(op, GR_KERR_INVALID_REQUEST, "InstanceId can't be null.");
            return false;
        }
    } else if (a->member_epoch < -2) {
        fail(op, GR_KERR_INVALID_REQUEST, "MemberEpoch is invalid.");
        return false;
    }
    if (a->server_assignor.len >= 0) {
        bool ok = false;
        for (int32_t i = 0; i < cfg->consumer_nassignors; i++)
            ok |=
                gr_str_eq_cstr(&a->server_assignor, cfg->consumer_assignors[i]);
        if (!ok) {
            /* Kafka joins a HashSet of the names: "uniform, range" for
             * the built-in two */
            char list[32];
            bool r = false, u = false;
            for (int32_t i = 0; i < cfg->consumer_nassignors; i++) {
                r |= strcmp(cfg->consumer_assignors[i], "range") == 0;
                u |= strcmp(cfg->consumer_assignors[i], "uniform") == 0;
            }
            snprintf(list, sizeof list, "%s%s%s", u ? "uniform" : "",
                     r && u ? ", " : "", r ? "range" : "");
            fail(op, GR_KERR_UNSUPPORTED_ASSIGNOR,
                 "ServerAssignor %.*s is not supported. Supported assignors: "
                 "%s.",
                 (int)a->server_assignor.len, a->server_assignor.ptr, list);
            return false;
        }
    }
    return true;
}

/* Kafka's throwIfConsumerGroupMemberEpochIsInvalid. */
static bool
check_epoch(op_t *op, const gr_cmember_t *m, int32_t epoch,
            const owned_t *owned)
{
    if (epoch == 0)
        return true;
    if (epoch > m->epoch) {
        fail(op, GR_KERR_FENCED_MEMBER_EPOCH,
             "The consumer group member has a greater member epoch (%d) than "
             "the one known by the group coordinator (%d). The member must "
             "abandon all its partitions and rejoin.",
             (int)epoch, (int)m->epoch);
        return false;
    }
    if (epoch < m->epoch) {
        bool subset = owned->n >= 0;
        for (int32_t i = 0; subset && i < owned->n; i++) {
            const gr_cg_tp_t *tp = a_topic(&m->assigned, &owned->v[i].topic_id);
            if (tp == NULL) {
                subset = false;
                break;
            }
            for (int32_t k = 0; k < owned->v[i].npartitions && subset; k++)
                subset = tp_find(tp, owned->v[i].partitions[k]) >= 0;
        }
        if (!(epoch == m->prev_epoch && subset)) {
            fail(op, GR_KERR_FENCED_MEMBER_EPOCH,
                 "The consumer group member has a smaller member epoch (%d) "
                 "than the one known by the group coordinator (%d). The "
                 "member must abandon all its partitions and rejoin.",
                 (int)epoch, (int)m->epoch);
            return false;
        }
    }
    return true;
}

static char **
names_from(op_t *op, const gr_str_t *names, int32_t n, int32_t *out_n)
{
    char **v = az(op->a, sizeof(*v) * (size_t)(n > 0 ? n : 1));
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++)
        if (names[i].len >= 0)
            v[k++] = adup_str(op->a, &names[i]);
    for (int32_t i = 1; i < k; i++)
        for (int32_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
            char *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    *out_n = 0;
    for (int32_t i = 0; i < k; i++)
        if (*out_n == 0 || strcmp(v[i], v[*out_n - 1]) != 0)
            v[(*out_n)++] = v[i];
    return v;
}

static bool
subscription_eq(const gr_cmember_t *a, const gr_cmember_t *b)
{
    return str_eq(a->instance_id, b->instance_id) &&
           str_eq(a->rack_id, b->rack_id) &&
           str_eq(a->client_id, b->client_id) &&
           str_eq(a->client_host, b->client_host) &&
           names_eq(a->topics, a->ntopics, b->topics, b->ntopics) &&
           str_eq(a->regex && *a->regex ? a->regex : NULL,
                  b->regex && *b->regex ? b->regex : NULL) &&
           str_eq(a->assignor, b->assignor) &&
           a->rebalance_timeout_ms == b->rebalance_timeout_ms;
}

static gr_cg_partitions_t *
to_partitions(op_t *op, const gr_cg_assign_t *a, bool names, int32_t *n)
{
    gr_cg_partitions_t *v = az(op->a, sizeof(*v) * (size_t)(a->n ? a->n : 1));
    int32_t k = 0;
    for (int32_t i = 0; i < a->n; i++) {
        const gr_topic_t *t = NULL;
        if (names) {
            /* Kafka's describe skips topics the metadata no longer has */
            t = topic_id(op->g, &a->t[i].id);
            if (t == NULL)
                continue;
        }
        v[k].topic_id = a->t[i].id;
        v[k].topic_name = t ? adup(op->a, t->name) : NULL;
        v[k].partitions = gr_arena_memdup(
            op->a, a->t[i].parts,
            sizeof(int32_t) * (size_t)(a->t[i].n ? a->t[i].n : 1));
        GR_ASSERT(v[k].partitions != NULL);
        v[k].npartitions = a->t[i].n;
        k++;
    }
    *n = k;
    return v;
}

/* Kafka's consumerGroupLeave. */
static void
leave(op_t *op, const gr_cg_heartbeat_args_t *a, gr_cg_heartbeat_result_t *out)
{
    gr_cgroup_t *cg = op->cg;
    gr_cmember_t *m;
    char *mid = adup_str(op->a, &a->member_id);
    char *iid = adup_str(op->a, &a->instance_id);
    bool gone;

    if (iid == NULL) {
        m = gr_cg_member(cg, a->member_id.ptr, (size_t)a->member_id.len);
        if (m == NULL || !m->in_group) {
            fail(op, GR_KERR_UNKNOWN_MEMBER_ID,
                 "Member %s is not a member of group %s.", mid, op->grp->id);
            return;
        }
        GR_LOG_INFO("group %s: member %s left the consumer group", op->grp->id,
                    mid);
    } else {
        m = static_member(cg, iid);
        if (m == NULL) {
            fail(op, GR_KERR_UNKNOWN_MEMBER_ID, "Instance id %s is unknown.",
                 iid);
            return;
        }
        if (strcmp(m->id, mid) != 0) {
            GR_LOG_INFO("group %s: static member %s with instance id %s is "
                        "fenced by existing member %s",
                        op->grp->id, mid, iid, m->id);
            fail(op, GR_KERR_FENCED_INSTANCE_ID,
                 "Static member %s with instance id %s was fenced by member "
                 "%s.",
                 mid, iid, m->id);
            return;
        }
        if (a->member_epoch == -2) {
            /* a temporary leave: the member keeps its assignment (epochs
             * reset to 0) until its session times out */
            gr_cmember_t upd = *m;
            upd.epoch = -2;
            upd.pending = (gr_cg_assign_t){ NULL, 0 };
            upd.assigned = m->assigned;
            {
                ab_t b;
                ab_init(&b, op->a, true);
                for (int32_t i = 0; i < m->assigned.n; i++)
                    for (int32_t k = 0; k < m->assigned.t[i].n; k++)
                        ab_add(&b, &m->assigned.t[i].id,
                               m->assigned.t[i].parts[k], 0);
                upd.assigned = ab_finish(&b);
            }
            GR_LOG_INFO("group %s: static member %s with instance id %s "
                        "temporarily left the consumer group",
                        op->grp->id, mid, iid);
            gr_cg_rec_current(&op->rs, &upd);
            op->err = gr_cg_commit(op->grp, &op->rs, &gone);
            if (op->err == GR_KERR_NONE) {
                out->member_id = adup(op->a, m->id);
                out->member_epoch = -2;
            }
            return;
        }
        GR_LOG_INFO("group %s: static member %s with instance id %s left the "
                    "consumer group",
                    op->grp->id, mid, iid);
    }
    fence_records(op, &m, 1);
    op->err = gr_cg_commit(op->grp, &op->rs, &gone);
    if (op->err == GR_KERR_NONE) {
        out->member_id = mid;
        out->member_epoch = a->member_epoch;
    }
}

/* Kafka's getOrMaybeCreateConsumerGroup: false with op->err set. */
static bool
find_group(op_t *op, const gr_cg_heartbeat_args_t *a, int32_t partition)
{
    bool create = a->member_epoch == 0;
    gr_group_t *grp = gr_groups_find(op->g, &a->group_id);
    if (grp == NULL) {
        if (!create) {
            fail(op, GR_KERR_GROUP_ID_NOT_FOUND,
                 "Consumer group %.*s not found.", (int)a->group_id.len,
                 a->group_id.ptr);
            return false;
        }
        grp = gr_groups_create(op->g, &a->group_id, partition);
        op->created = true;
    }
    if (grp->type == GR_GROUP_TYPE_CLASSIC) {
        bool empty = grp->state == GR_GROUP_EMPTY && grp->nmembers == 0;
        if (create && empty) {
            /* an empty classic group (or one holding offsets only)
             * becomes a consumer group; its offsets stay */
            if (grp->has_metadata)
                gr_cg_rec_tomb(&op->rs, GR_CG_REC_CLASSIC_GROUP, NULL);
            if (!op->created)
                GR_LOG_INFO("group %s: converting the empty classic group to "
                            "a consumer group",
                            grp->id);
            op->tmp = gr_cg_new(grp);
        } else if (create) {
            /* online upgrade of a classic group with members: not served
             * (docs/compatibility.md), answered as Kafka does with
             * group.consumer.migration.policy=disabled */
            GR_LOG_INFO("group %s: cannot upgrade the classic group to a "
                        "consumer group: online migration is not served",
                        grp->id);
            fail(op, GR_KERR_GROUP_ID_NOT_FOUND,
                 "Cannot upgrade classic group %s to consumer group because "
                 "online upgrade is disabled.",
                 grp->id);
            return false;
        } else {
            fail(op, GR_KERR_GROUP_ID_NOT_FOUND,
                 "Group %s is not a consumer group.", grp->id);
            return false;
        }
    }
    op->grp = grp;
    op->cg = op->tmp ? op->tmp : grp->cg;
    return true;
}

static void
heartbeat(op_t *op, const gr_cg_heartbeat_args_t *a,
          gr_cg_heartbeat_result_t *out)
{
    gr_cgroup_t *cg = op->cg;
    const gr_groups_config_t *cfg = &op->g->cfg;
    owned_t owned = { a->owned, a->nowned };
    gr_cmember_t *cur = NULL; /* the member in the state, if any */
    gr_cmember_t member;      /* Kafka's `member` */
    gr_cmember_t upd;         /* Kafka's `updatedMember` */
    char *mid, *iid = adup_str(op->a, &a->instance_id);
    bool names_changed, assignor_changed, regex_changed, bump;
    enum regex_status rstatus;
    bool replaced = false, is_new, homog, gone, send_assignment;
    int32_t group_epoch = cg->epoch, target_epoch, nmembers;
    gr_cg_assign_t target;
    const char *assignor;
    subview_t sv;
    int64_t hash;
    int timer = 0;

    /* throwIfConsumerGroupIsFull */
    if (!(iid && static_member(cg, iid)) &&
        cg->nmembers >= cfg->consumer_max_size) {
        gr_cmember_t *x =
            a->member_id.len > 0
                ? gr_cg_member(cg, a->member_id.ptr, (size_t)a->member_id.len)
                : NULL;
        if (x == NULL || !x->in_group) {
            fail(op, GR_KERR_GROUP_MAX_SIZE_REACHED,
                 "The consumer group has reached its maximum capacity of %d "
                 "members.",
                 (int)cfg->consumer_max_size);
            return;
        }
    }
    if (a->member_id.len <= 0) {
        /* v0 lets the coordinator name the member: Uuid.toString */
        gr_uuid_t u;
        char b64[23];
        gr_uuid_random(&u);
        gr_uuid_to_base64(&u, b64);
        mid = adup(op->a, b64);
    } else {
        mid = adup_str(op->a, &a->member_id);
    }
    cur = gr_cg_member(cg, mid, strlen(mid));
    if (cur && !cur->in_group)
        cur = NULL;
    if (iid == NULL) {
        if (cur == NULL && a->member_epoch != 0) {
            fail(op, GR_KERR_UNKNOWN_MEMBER_ID,
                 "Member %s is not a member of group %s.", mid, op->grp->id);
            return;
        }
        if (cur && !check_epoch(op, cur, a->member_epoch, &owned))
            return;
        if (cur == NULL)
            GR_LOG_INFO("group %s: member %s joins the consumer group using "
                        "the consumer protocol",
                        op->grp->id, mid);
    } else {
        gr_cmember_t *st = static_member(cg, iid);
        if (a->member_epoch == 0) {
            if (st != NULL) {
                if (st->epoch != -2) {
                    GR_LOG_INFO("group %s: static member %s with instance id "
                                "%s cannot join the group because the "
                                "instance id is owned by member %s",
                                op->grp->id, mid, iid, st->id);
                    fail(op, GR_KERR_UNRELEASED_INSTANCE_ID,
                         "Static member %s with instance id %s cannot join "
                         "the group because the instance id is owned by %s "
                         "member.",
                         mid, iid, st->id);
                    return;
                }
                /* replaceMember (its records below): the new member
                 * takes the old one's subscription and target, at
                 * epoch 0 */
                member = *st;
                member.id = mid;
                member.epoch = 0;
                member.prev_epoch = 0;
                replaced = true;
                cur = st;
            } else {
                if (cur == NULL)
                    GR_LOG_INFO("group %s: static member %s with instance id "
                                "%s joins the consumer group using the "
                                "consumer protocol",
                                op->grp->id, mid, iid);
            }
        } else {
            if (st == NULL) {
                fail(op, GR_KERR_UNKNOWN_MEMBER_ID,
                     "Instance id %s is unknown.", iid);
                return;
            }
            if (strcmp(st->id, mid) != 0) {
                GR_LOG_INFO("group %s: static member %s with instance id %s "
                            "is fenced by existing member %s",
                            op->grp->id, mid, iid, st->id);
                fail(op, GR_KERR_FENCED_INSTANCE_ID,
                     "Static member %s with instance id %s was fenced by "
                     "member %s.",
                     mid, iid, st->id);
                return;
            }
            if (!check_epoch(op, st, a->member_epoch, &owned))
                return;
            cur = st;
        }
    }
    is_new = cur == NULL;
    if (!replaced) {
        if (cur) {
            member = *cur;
        } else {
            memset(&member, 0, sizeof member);
            member.id = mid;
            member.prev_epoch = -1;
            member.state = GR_CM_STABLE;
            member.rebalance_timeout_ms = -1;
            member.client_id = "";
            member.client_host = "";
        }
    }
    /* the updated member: what the request changes */
    upd = member;
    if (iid)
        upd.instance_id = iid;
    if (a->rack_id.len >= 0)
        upd.rack_id = adup_str(op->a, &a->rack_id);
    if (a->rebalance_timeout_ms != -1)
        upd.rebalance_timeout_ms = a->rebalance_timeout_ms;
    if (a->server_assignor.len >= 0)
        upd.assignor = adup_str(op->a, &a->server_assignor);
    if (a->ntopic_names >= 0)
        upd.topics =
            names_from(op, a->topic_names, a->ntopic_names, &upd.ntopics);
    if (a->topic_regex.len >= 0)
        upd.regex = adup_str(op->a, &a->topic_regex);
    upd.client_id = adup_str(op->a, &a->client_id);
    if (upd.client_id == NULL)
        upd.client_id = "";
    upd.client_host = adup_str(op->a, &a->client_host);
    /* the regex (maybeUpdateRegularExpressions) */
    regex_changed = !str_eq(member.regex && *member.regex ? member.regex : NULL,
                            upd.regex && *upd.regex ? upd.regex : NULL);
    if (replaced) {
        gr_cg_rec_tomb(&op->rs, GR_CG_REC_CURRENT, cur->id);
        gr_cg_rec_tomb(&op->rs, GR_CG_REC_TARGET_MEMBER, cur->id);
        gr_cg_rec_tomb(&op->rs, GR_CG_REC_MEMBER, cur->id);
        gr_cg_rec_member(&op->rs, &member);
        gr_cg_rec_target(&op->rs, mid,
                         cur->has_target ? &cur->target
                                         : &(gr_cg_assign_t){ NULL, 0 });
        gr_cg_rec_current(&op->rs, &member);
        GR_LOG_INFO("group %s: static member with instance id %s re-joins "
                    "the consumer group using the consumer protocol; member "
                    "%s replaces member %s",
                    op->grp->id, iid, mid, cur->id);
    }
    /* hasMemberSubscriptionChanged */
    names_changed = false;
    if (!subscription_eq(&member, &upd) || is_new) {
        gr_cg_rec_member(&op->rs, &upd);
        names_changed =
            !names_eq(member.topics, member.ntopics, upd.topics, upd.ntopics);
    }
    if (!regex_update(op, is_new ? NULL : cur, member.regex, upd.regex,
                      regex_changed, &rstatus))
        return;
    {
        const char *pa = preferred_assignor(op, NULL, NULL);
        const char *pb = preferred_assignor(op, is_new ? NULL : cur, &upd);
        assignor_changed = !str_eq(pa ? pa : default_assignor(op->g),
                                   pb ? pb : default_assignor(op->g));
        assignor = pb ? pb : default_assignor(op->g);
    }
    bump = names_changed || rstatus == REGEX_RESOLVED || assignor_changed;
    /* updateSubscriptionMetadata, at every heartbeat: the hash also moves
     * when a subscribed topic is created, deleted or grows */
    sv = subview(op, is_new ? NULL : cur, &upd);
    hash = metadata_hash(op, &sv);
    if (hash != cg->metadata_hash)
        bump = true;
    nmembers = cg->nmembers + (is_new && !replaced ? 1 : 0);
    homog = homogeneous(cg, &sv, is_new ? NULL : cur, &upd, nmembers);
    if (bump) {
        group_epoch++;
        gr_cg_rec_epoch(&op->rs, group_epoch, hash);
        GR_LOG_INFO("group %s: bumped group epoch to %d", op->grp->id,
                    (int)group_epoch);
    }
    if (cg->has_partition_metadata)
        gr_cg_rec_tomb(&op->rs, GR_CG_REC_PARTITION_METADATA, NULL);
    /* maybeUpdateTargetAssignment */
    if (cg->assignment_epoch >= group_epoch ||
        !(cg->assignment_ts == 0 || cfg->consumer_assignment_interval_ms == 0 ||
          op->now >=
              cg->assignment_ts + cfg->consumer_assignment_interval_ms)) {
        target_epoch = cg->assignment_epoch;
        target = *last_target(cg, &upd);
    } else {
        target_epoch = group_epoch;
        target = compute_target(op, group_epoch, is_new ? NULL : cur, &upd,
                                homog, assignor);
        if (op->err != GR_KERR_NONE)
            return;
    }
    upd = maybe_reconcile(op, &upd, target_epoch, &target,
                          names_changed || regex_changed, &owned, &timer);
    if (op->err != GR_KERR_NONE)
        return;
    /* decided before the commit: member points into the state the
     * commit's replay replaces */
    send_assignment =
        a->member_epoch == 0 ||
        (a->rebalance_timeout_ms != -1 &&
         (a->ntopic_names >= 0 || a->topic_regex.len >= 0) && a->nowned >= 0) ||
        !a_eq(&member.assigned, &upd.assigned, true);
    op->err = gr_cg_commit(op->grp, &op->rs, &gone);
    if (op->err != GR_KERR_NONE || gone)
        return;
    GR_ASSERT(op->grp->type == GR_GROUP_TYPE_CONSUMER);
    if (op->regex_pending)
        gr_timer_start(op->g->loop, &op->grp->cg->regex_timer, 0);
    {
        gr_cmember_t *m = gr_cg_member(op->grp->cg, mid, strlen(mid));
        if (m != NULL) {
            session_start(op->g, m);
            rebalance_timer(op->g, m, timer);
        }
    }
    out->member_id = mid;
    out->member_epoch = upd.epoch;
    out->heartbeat_interval_ms = cfg->consumer_heartbeat_interval_ms;
    if (send_assignment) {
        out->has_assignment = true;
        out->assignment =
            to_partitions(op, &upd.assigned, false, &out->nassignment);
    }
}

void
gr_cg_heartbeat(gr_groups_t *g, const gr_cg_heartbeat_args_t *a,
                gr_arena_t *arena, gr_cg_heartbeat_result_t *out)
{
    int32_t part = -1;
    gr_kerr_t err;
    op_t op;

    memset(out, 0, sizeof(*out));
    op_init(&op, g, NULL, arena);
    if (!validate_request(&op, a))
        goto done;
    err = gr_groups_validate(g, &a->group_id, false, &part);
    if (err != GR_KERR_NONE) {
        /* the runtime's errors carry their default message */
        op.err = err;
        op.msg = gr_kerr_msg(err);
        goto done;
    }
    if (a->member_epoch == -1 || a->member_epoch == -2) {
        gr_group_t *grp = gr_groups_find(g, &a->group_id);
        if (grp == NULL || grp->type != GR_GROUP_TYPE_CONSUMER) {
            fail(&op, GR_KERR_GROUP_ID_NOT_FOUND,
                 grp ? "Group %.*s is not a consumer group."
                     : "Group %.*s not found.",
                 (int)a->group_id.len, a->group_id.ptr);
            goto done;
        }
        op.grp = grp;
        op.cg = grp->cg;
        leave(&op, a, out);
        goto done;
    }
    if (!find_group(&op, a, part))
        goto done;
    heartbeat(&op, a, out);
    gr_cg_free(op.tmp);
    /* a group this heartbeat created and could not keep */
    if (op.err != GR_KERR_NONE && op.created &&
        op.grp->type == GR_GROUP_TYPE_CLASSIC && op.grp->nmembers == 0 &&
        !op.grp->has_metadata && op.grp->ocount == 0 && !op.grp->txn_offsets)
        gr_groups_remove(g, op.grp);
done:
    out->error = op.err;
    out->message = op.err != GR_KERR_NONE ? op.msg : NULL;
    if (op.err != GR_KERR_NONE) {
        out->member_id = NULL;
        out->member_epoch = 0;
        out->heartbeat_interval_ms = 0;
        out->has_assignment = false;
        GR_LOG_DEBUG("ConsumerGroupHeartbeat of group %.*s: %s%s%s",
                     (int)(a->group_id.len > 0 ? a->group_id.len : 0),
                     a->group_id.len > 0 ? a->group_id.ptr : "",
                     gr_kerr_name(op.err), op.msg ? ": " : "",
                     op.msg ? op.msg : "");
    }
}

/* --- ConsumerGroupDescribe */

gr_kerr_t
gr_cg_describe(gr_groups_t *g, const gr_str_t *group_id, gr_arena_t *a,
               gr_cg_group_desc_t *out, const char **message)
{
    int32_t part, k = 0;
    gr_kerr_t err = gr_groups_validate(g, group_id, false, &part);
    gr_group_t *grp;
    gr_cgroup_t *cg;
    const char *assignor;
    op_t op;

    memset(out, 0, sizeof(*out));
    *message = NULL;
    if (err != GR_KERR_NONE)
        return err;
    grp = gr_groups_find(g, group_id);
    if (grp == NULL || grp->type != GR_GROUP_TYPE_CONSUMER) {
        *message = gr_arena_printf(a,
                                   grp ? "Group %.*s is not a consumer group."
                                       : "Group %.*s not found.",
                                   (int)group_id->len, group_id->ptr);
        return GR_KERR_GROUP_ID_NOT_FOUND;
    }
    cg = grp->cg;
    op_init(&op, g, grp, a);
    assignor = preferred_assignor(&op, NULL, NULL);
    out->state = gr_cg_state_str(cg);
    out->group_epoch = cg->epoch;
    out->assignment_epoch = cg->assignment_epoch;
    out->assignor = assignor ? assignor : default_assignor(g);
    out->members = az(a, sizeof(*out->members) * (size_t)(cg->nmembers + 1));
    for (gr_cmember_t *m = cg->members; m; m = m->next) {
        gr_cg_member_desc_t *d;
        ab_t b;
        gr_cg_assign_t both;
        if (!m->in_group)
            continue;
        d = &out->members[k++];
        d->member_id = adup(a, m->id);
        d->instance_id = adup(a, m->instance_id);
        d->rack_id = adup(a, m->rack_id);
        d->member_epoch = m->epoch;
        d->client_id = adup(a, m->client_id ? m->client_id : "");
        d->client_host = adup(a, m->client_host ? m->client_host : "");
        d->topics = az(a, sizeof(char *) * (size_t)(m->ntopics + 1));
        for (int32_t i = 0; i < m->ntopics; i++)
            d->topics[i] = adup(a, m->topics[i]);
        d->ntopics = m->ntopics;
        /* Kafka's member default regex is "": described as "" too */
        d->regex = adup(a, m->regex ? m->regex : "");
        /* the assignment includes the partitions pending revocation */
        ab_init(&b, a, false);
        for (int pass = 0; pass < 2; pass++) {
            const gr_cg_assign_t *x = pass ? &m->pending : &m->assigned;
            for (int32_t i = 0; i < x->n; i++)
                for (int32_t j = 0; j < x->t[i].n; j++)
                    ab_add(&b, &x->t[i].id, x->t[i].parts[j], 0);
        }
        both = ab_finish(&b);
        d->assigned = to_partitions(&op, &both, true, &d->nassigned);
        d->target = to_partitions(&op, &m->target, true, &d->ntarget);
        d->classic = false;
    }
    out->nmembers = k;
    return GR_KERR_NONE;
}

/* --- offsets and deletion */

gr_kerr_t
gr_cg_validate_commit(gr_group_t *grp, const gr_str_t *member_id,
                      const gr_str_t *instance_id, int32_t epoch, bool txn,
                      int16_t version, gr_cmember_t **out, gr_arena_t *a,
                      const char **msg)
{
    gr_cgroup_t *cg = grp->cg;
    gr_cmember_t *m;

    *out = NULL;
    *msg = NULL;
    if (epoch < 0 && cg->nmembers == 0)
        return GR_KERR_NONE;
    if (txn && epoch == -1 && member_id->len == 0 && instance_id->len < 0)
        return GR_KERR_NONE;
    m = member_id->len >= 0
            ? gr_cg_member(cg, member_id->ptr, (size_t)member_id->len)
            : NULL;
    if (m == NULL || !m->in_group) {
        *msg =
            gr_arena_printf(a, "Member %.*s is not a member of group %s.",
                            member_id->len > 0 ? (int)member_id->len : 0,
                            member_id->len > 0 ? member_id->ptr : "", grp->id);
        return GR_KERR_UNKNOWN_MEMBER_ID;
    }
    if (!txn && version < 9) {
        *msg = "OffsetCommit version 9 or above must be used by members "
               "using the consumer group protocol";
        return GR_KERR_UNSUPPORTED_VERSION;
    }
    if (epoch == m->epoch)
        return GR_KERR_NONE;
    if (epoch > m->epoch) {
        *msg = gr_arena_printf(a,
                               "Received member epoch %d is newer than "
                               "current member epoch %d.",
                               (int)epoch, (int)m->epoch);
        return GR_KERR_STALE_MEMBER_EPOCH;
    }
    *out = m; /* an older epoch: per partition */
    return GR_KERR_NONE;
}

gr_kerr_t
gr_cg_validate_commit_part(const gr_cmember_t *m, int32_t epoch,
                           const char *topic, int32_t partition)
{
    const gr_topic_t *t = gr_cluster_topic_cstr(m->cg->grp->g->cluster, topic);
    int32_t ae = -1, i;
    if (t != NULL) {
        const gr_cg_tp_t *tp = a_topic(&m->assigned, &t->id);
        if ((i = tp_find(tp, partition)) >= 0)
            ae = tp->epochs ? tp->epochs[i] : m->epoch;
        else if ((tp = a_topic(&m->pending, &t->id)) &&
                 (i = tp_find(tp, partition)) >= 0)
            ae = tp->epochs ? tp->epochs[i] : m->epoch;
    }
    if (ae < 0) {
        GR_LOG_INFO("group %s: commit of %s-%d at epoch %d refused: the "
                    "partition is not assigned or pending revocation for "
                    "member %s",
                    m->cg->grp->id, topic, (int)partition, (int)epoch, m->id);
        return GR_KERR_STALE_MEMBER_EPOCH;
    }
    if (epoch < ae) {
        GR_LOG_INFO("group %s: commit of %s-%d refused: member epoch %d is "
                    "older than the assignment epoch %d",
                    m->cg->grp->id, topic, (int)partition, (int)epoch, (int)ae);
        return GR_KERR_STALE_MEMBER_EPOCH;
    }
    return GR_KERR_NONE;
}

gr_kerr_t
gr_cg_validate_fetch(gr_group_t *grp, const gr_str_t *member_id, int32_t epoch)
{
    gr_cmember_t *m;
    if (member_id->len < 0 && epoch < 0)
        return GR_KERR_NONE;
    m = member_id->len >= 0
            ? gr_cg_member(grp->cg, member_id->ptr, (size_t)member_id->len)
            : NULL;
    if (m == NULL || !m->in_group)
        return GR_KERR_UNKNOWN_MEMBER_ID;
    if (epoch != m->epoch)
        return GR_KERR_STALE_MEMBER_EPOCH;
    return GR_KERR_NONE;
}

void
gr_cg_tombstones(gr_group_t *grp, gr_cg_recs_t *rs)
{
    gr_cgroup_t *cg = grp->cg;
    for (gr_cmember_t *m = cg->members; m; m = m->next)
        if (m->in_group)
            gr_cg_rec_tomb(rs, GR_CG_REC_CURRENT, m->id);
    for (gr_cmember_t *m = cg->members; m; m = m->next)
        if (m->has_target)
            gr_cg_rec_tomb(rs, GR_CG_REC_TARGET_MEMBER, m->id);
    gr_cg_rec_tomb(rs, GR_CG_REC_TARGET_METADATA, NULL);
    for (gr_cmember_t *m = cg->members; m; m = m->next)
        if (m->in_group)
            gr_cg_rec_tomb(rs, GR_CG_REC_MEMBER, m->id);
    for (gr_cg_regex_t *re = cg->regexes; re; re = re->next)
        gr_cg_rec_tomb(rs, GR_CG_REC_REGEX, re->regex);
    gr_cg_rec_tomb(rs, GR_CG_REC_PARTITION_METADATA, NULL);
    gr_cg_rec_tomb(rs, GR_CG_REC_METADATA, NULL);
}

gr_kerr_t
gr_cg_check_commit(gr_group_t *grp, const gr_str_t *member_id,
                   const gr_str_t *instance_id, int32_t epoch, bool txn,
                   int16_t version, const gr_group_commit_part_t *parts,
                   int32_t n)
{
    gr_arena_t *a = gr_arena_new(512);
    const char *msg = NULL;
    gr_cmember_t *m = NULL;
    gr_kerr_t err;

    GR_ASSERT(a != NULL);
    err = gr_cg_validate_commit(grp, member_id, instance_id, epoch, txn,
                                version, &m, a, &msg);
    if (err != GR_KERR_NONE)
        GR_LOG_INFO("group %s: %s commit refused: %s", grp->id,
                    txn ? "transactional offset" : "offset",
                    msg ? msg : gr_kerr_name(err));
    for (int32_t i = 0; err == GR_KERR_NONE && m != NULL && i < n; i++) {
        char *topic;
        if (parts[i].error != GR_KERR_NONE || parts[i].topic.len < 0)
            continue;
        topic =
            gr_arena_strndup(a, parts[i].topic.ptr, (size_t)parts[i].topic.len);
        GR_ASSERT(topic != NULL);
        err = gr_cg_validate_commit_part(m, epoch, topic, parts[i].partition);
    }
    gr_arena_destroy(a);
    return err;
}

/* --- the classic APIs on a consumer group */

gr_kerr_t
gr_cg_to_classic(gr_group_t *grp)
{
    gr_arena_t *a;
    gr_cg_recs_t rs;
    gr_kerr_t err;
    bool gone;

    if (grp->cg->nmembers > 0) {
        GR_LOG_INFO("group %s: cannot join the consumer group with the "
                    "classic protocol because the group migration is "
                    "disabled",
                    grp->id);
        return GR_KERR_INCONSISTENT_GROUP_PROTOCOL;
    }
    a = gr_arena_new(1024);
    GR_ASSERT(a != NULL);
    rs = (gr_cg_recs_t){ a, NULL, 0, 0 };
    gr_cg_tombstones(grp, &rs);
    err = gr_cg_commit(grp, &rs, &gone);
    gr_arena_destroy(a);
    if (err == GR_KERR_NONE)
        GR_LOG_INFO("group %s: converted the empty consumer group to a "
                    "classic group",
                    gone ? "(gone)" : grp->id);
    return err;
}

gr_kerr_t
gr_cg_classic_member_check(gr_group_t *grp, const gr_str_t *member_id,
                           const gr_str_t *instance_id)
{
    if (instance_id->len >= 0) {
        char *iid = gr_group_strdup(instance_id);
        gr_cmember_t *m = static_member(grp->cg, iid);
        free(iid);
        if (m && !gr_str_eq_cstr(member_id, m->id))
            return GR_KERR_FENCED_INSTANCE_ID;
    }
    return GR_KERR_UNKNOWN_MEMBER_ID;
}

gr_kerr_t
gr_cg_leave_members(gr_group_t *grp, gr_group_leaver_t *l, int32_t n)
{
    gr_cgroup_t *cg = grp->cg;
    gr_arena_t *a = gr_arena_new(4096);
    gr_cmember_t **ms;
    int32_t k = 0;
    op_t op;
    bool gone;

    GR_ASSERT(a != NULL);
    op_init(&op, grp->g, grp, a);
    ms = az(a, sizeof(*ms) * (size_t)(n > 0 ? n : 1));
    for (int32_t i = 0; i < n; i++) {
        gr_cmember_t *m;
        bool dup = false;
        l[i].error = GR_KERR_NONE;
        if (l[i].group_instance_id.len < 0) {
            m = gr_cg_member(
                cg, l[i].member_id.ptr,
                (size_t)(l[i].member_id.len > 0 ? l[i].member_id.len : 0));
            if (m == NULL || !m->in_group) {
                l[i].error = GR_KERR_UNKNOWN_MEMBER_ID;
                continue;
            }
        } else {
            char *iid = adup_str(a, &l[i].group_instance_id);
            m = static_member(cg, iid);
            if (m == NULL) {
                l[i].error = GR_KERR_UNKNOWN_MEMBER_ID;
                continue;
            }
            if (l[i].member_id.len > 0 &&
                !gr_str_eq_cstr(&l[i].member_id, m->id)) {
                l[i].error = GR_KERR_FENCED_INSTANCE_ID;
                continue;
            }
        }
        GR_LOG_INFO("group %s: member %s has left the group through an "
                    "explicit LeaveGroup request",
                    grp->id, m->id);
        for (int32_t j = 0; j < k; j++)
            dup |= ms[j] == m;
        if (!dup)
            ms[k++] = m;
    }
    if (k > 0) {
        fence_records(&op, ms, k);
        op.err = gr_cg_commit(grp, &op.rs, &gone);
    }
    gr_arena_destroy(a);
    return op.err;
}

gr_kerr_t
gr_cg_delete(gr_group_t *grp)
{
    gr_groups_t *g = grp->g;
    gr_offset_t **v;
    gr_arena_t *a;
    gr_cg_recs_t rs;
    int32_t n;
    gr_kerr_t err;
    bool gone;

    if (grp->cg->nmembers > 0)
        return GR_KERR_NON_EMPTY_GROUP;
    v = gr_offsets_sorted(grp, &n);
    err = n > 0 ? gr_store_tombstones(grp, v, n, false) : GR_KERR_NONE;
    free(v);
    if (err != GR_KERR_NONE)
        return err;
    gr_offsets_free_all(grp);
    a = gr_arena_new(1024);
    GR_ASSERT(a != NULL);
    rs = (gr_cg_recs_t){ a, NULL, 0, 0 };
    gr_cg_tombstones(grp, &rs);
    err = gr_cg_commit(grp, &rs, &gone);
    gr_arena_destroy(a);
    if (err != GR_KERR_NONE)
        return err;
    GR_LOG_INFO("consumer group %s deleted (%d offset(s))", gone ? "" : grp->id,
                (int)n);
    if (!gone)
        gr_groups_remove(g, grp);
    return GR_KERR_NONE;
}
