/*
 * The uniform and range assignors (assignor.h), ported from Kafka 4.4's
 * UniformHomogeneousAssignmentBuilder, UniformHeterogeneousAssignmentBuilder
 * and RangeAssignor: the same steps in the same order, on arrays indexed by
 * member and topic instead of hash maps. Allocation failures abort (the
 * coordinator's policy, GR_ASSERT).
 */
#include "group/assignor.h"

#include "core/log.h"

#include <stdlib.h>
#include <string.h>

static void *
xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    GR_ASSERT(p != NULL);
    return p;
}

static int64_t
be64(const uint8_t *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return (int64_t)v;
}

int
gr_uuid_java_cmp(const gr_uuid_t *a, const gr_uuid_t *b)
{
    int64_t am = be64(a->b), bm = be64(b->b);
    int64_t al = be64(a->b + 8), bl = be64(b->b + 8);
    if (am != bm)
        return am < bm ? -1 : 1;
    if (al != bl)
        return al < bl ? -1 : 1;
    return 0;
}

static bool
subscribes(const gr_asg_member_t *m, int32_t t)
{
    for (int32_t i = 0; i < m->ntopics; i++)
        if (m->topics[i] == t)
            return true;
    return false;
}

/* --- uniform, homogeneous (every member subscribes to the same topics) */

typedef struct tp {
    int32_t t, p;
} tp_t;

static int
uniform_homogeneous(gr_asg_spec_t *s)
{
    const gr_asg_member_t *first = &s->members[0];
    int32_t total = 0, nun = 0, nunfilled = 0, min_quota, extra;
    tp_t *un;
    int32_t *unfilled_m, *unfilled_q;
    int32_t next = 0, cap = 0;
    int rc = 0;

    if (first->ntopics == 0)
        return 0;
    for (int32_t i = 0; i < first->ntopics; i++)
        cap += s->topics[first->topics[i]].nparts;
    un = xcalloc((size_t)cap, sizeof(*un));
    unfilled_m = xcalloc((size_t)s->nmembers, sizeof(int32_t));
    unfilled_q = xcalloc((size_t)s->nmembers, sizeof(int32_t));
    /* the partitions no member had */
    for (int32_t i = 0; i < first->ntopics; i++) {
        gr_asg_topic_t *t = &s->topics[first->topics[i]];
        for (int32_t p = 0; p < t->nparts; p++)
            if (t->owner[p] < 0)
                un[nun++] = (tp_t){ first->topics[i], p };
        total += t->nparts;
    }
    min_quota = total / s->nmembers;
    extra = total % s->nmembers;
    /* maybeRevokePartitions: each member keeps what it had up to its
     * quota, the rest becomes unassigned */
    for (int32_t m = 0; m < s->nmembers; m++) {
        int32_t quota = min_quota;
        bool has_extra = false;
        if (extra > 0) {
            quota++;
            has_extra = true;
        }
        for (int32_t i = 0; i < first->ntopics; i++) {
            gr_asg_topic_t *t = &s->topics[first->topics[i]];
            int32_t owned = 0;
            for (int32_t p = 0; p < t->nparts; p++)
                owned += t->owner[p] == m;
            if (owned <= quota) {
                quota -= owned;
                continue;
            }
            for (int32_t p = 0; p < t->nparts; p++) {
                if (t->owner[p] != m)
                    continue;
                if (quota > 0) {
                    quota--;
                    continue;
                }
                t->owner[p] = -1;
                un[nun++] = (tp_t){ first->topics[i], p };
            }
        }
        if (quota > 0 && has_extra && s->nmembers - m > extra) {
            quota--;
            has_extra = false;
        }
        if (quota > 0) {
            unfilled_m[nunfilled] = m;
            unfilled_q[nunfilled++] = quota;
        }
        if (has_extra)
            extra--;
    }
    /* assignRemainingPartitions, in order */
    for (int32_t i = 0; i < nunfilled; i++)
        for (int32_t q = 0; q < unfilled_q[i] && next < nun; q++, next++)
            s->topics[un[next].t].owner[un[next].p] = unfilled_m[i];
    if (next < nun) {
        GR_LOG_ERROR("uniform assignor: %d partition(s) left unassigned",
                     (int)(nun - next));
        rc = -1;
    }
    free(un);
    free(unfilled_m);
    free(unfilled_q);
    return rc;
}

/* --- uniform, heterogeneous */

typedef struct het {
    gr_asg_spec_t *s;
    int32_t **subs; /* per topic: subscribing member indexes, member order */
    int32_t *nsubs;
    int32_t *sizes; /* partitions per member in the target */
} het_t;

typedef struct balancer {
    het_t *h;
    int32_t *sorted;
    int32_t nsorted;
    int32_t least_end, least_count, next_least;
    int32_t most_start, most_end, most_count, next_most;
} balancer_t;

static het_t *sort_h; /* qsort context (the loop thread only sorts) */

static int
member_cmp(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    if (sort_h->sizes[x] != sort_h->sizes[y])
        return sort_h->sizes[x] < sort_h->sizes[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int
topic_cmp(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    const gr_asg_topic_t *tx = &sort_h->s->topics[x],
                         *ty = &sort_h->s->topics[y];
    double rx = (double)tx->nparts / (double)sort_h->nsubs[x];
    double ry = (double)ty->nparts / (double)sort_h->nsubs[y];
    /* more partitions per subscriber first, then fewer subscribers, then
     * the topic id */
    if (rx != ry)
        return ry < rx ? -1 : 1;
    if (sort_h->nsubs[x] != sort_h->nsubs[y])
        return sort_h->nsubs[x] < sort_h->nsubs[y] ? -1 : 1;
    return gr_uuid_java_cmp(&tx->id, &ty->id);
}

/* Returns the imbalance of the subscribers of the topic. */
static int32_t
bal_init(balancer_t *b, const int32_t *members, int32_t n)
{
    int32_t *sz = b->h->sizes;
    if (n)
        memcpy(b->sorted, members, sizeof(*members) * (size_t)n);
    b->nsorted = n;
    sort_h = b->h;
    if (n > 1)
        qsort(b->sorted, (size_t)n, sizeof(*b->sorted), member_cmp);
    b->least_end = 0;
    b->least_count = sz[b->sorted[0]] - 1;
    b->next_least = 0;
    b->most_start = n;
    b->most_end = n;
    b->most_count = sz[b->sorted[n - 1]] + 1;
    b->next_most = n - 1;
    return sz[b->sorted[n - 1]] - sz[b->sorted[0]];
}

static int32_t
bal_next_least(balancer_t *b)
{
    int32_t *sz = b->h->sizes;
    int32_t m;
    if (b->next_least >= b->least_end) {
        b->least_count++;
        while (b->least_end < b->nsorted &&
               sz[b->sorted[b->least_end]] == b->least_count)
            b->least_end++;
        b->next_least = 0;
    }
    m = b->sorted[b->next_least];
    b->next_least++;
    return m;
}

static int32_t
bal_next_most(balancer_t *b)
{
    int32_t *sz = b->h->sizes;
    int32_t m;
    if (b->next_most < b->most_start) {
        if (b->most_end <= b->most_start && b->most_start > 0)
            b->most_count = sz[b->sorted[b->most_start - 1]];
        else
            b->most_count--;
        while (b->most_start > 0 &&
               sz[b->sorted[b->most_start - 1]] == b->most_count)
            b->most_start--;
        b->next_most = b->most_end - 1;
    }
    if (b->next_most < 0)
        return -1;
    m = b->sorted[b->next_most];
    b->next_most--;
    return m;
}

static void
bal_exclude_most(balancer_t *b)
{
    int32_t m = b->sorted[b->next_most + 1];
    b->sorted[b->next_most + 1] = b->sorted[b->most_end - 1];
    b->sorted[b->most_end - 1] = m;
    b->most_end--;
}

static bool
bal_balanced(const balancer_t *b)
{
    return b->most_count - b->least_count <= 1;
}

static void
assign_partition(het_t *h, int32_t t, int32_t p, int32_t m)
{
    int32_t old = h->s->topics[t].owner[p];
    if (old >= 0)
        h->sizes[old]--;
    h->s->topics[t].owner[p] = m;
    h->sizes[m]++;
}

static int32_t *part_owner; /* qsort context of balance_topic */

static int
part_cmp(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    if (part_owner[x] != part_owner[y])
        return part_owner[x] < part_owner[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int32_t
balance_topic(het_t *h, balancer_t *b, int32_t t, int32_t *parts,
              int32_t *start, int32_t *end)
{
    gr_asg_topic_t *topic = &h->s->topics[t];
    int32_t n = topic->nparts, moved = 0;

    if (bal_init(b, h->subs[t], h->nsubs[t]) <= 1)
        return 0;
    for (int32_t p = 0; p < n; p++)
        parts[p] = p;
    part_owner = topic->owner;
    if (n > 1)
        qsort(parts, (size_t)n, sizeof(*parts), part_cmp);
    for (int32_t m = 0; m < h->s->nmembers; m++)
        start[m] = end[m] = -1;
    for (int32_t i = 0; i < n; i++) {
        int32_t o = topic->owner[parts[i]];
        if (o < 0)
            continue;
        if (start[o] < 0)
            start[o] = i;
        end[o] = i + 1;
    }
    while (!bal_balanced(b)) {
        int32_t most, least, p;
        while ((most = bal_next_most(b)) != -1 &&
               !(end[most] >= 0 && end[most] - start[most] > 0))
            bal_exclude_most(b);
        if (most == -1)
            break;
        p = parts[end[most] - 1];
        end[most]--;
        least = bal_next_least(b);
        if (bal_balanced(b))
            break;
        assign_partition(h, t, p, least);
        moved++;
    }
    return moved;
}

static int
uniform_heterogeneous(gr_asg_spec_t *s)
{
    het_t h = { s, NULL, NULL, NULL };
    balancer_t b;
    int32_t *order, norder = 0, maxparts = 0;
    int32_t *parts, *start, *end;

    h.subs = xcalloc((size_t)s->ntopics, sizeof(*h.subs));
    h.nsubs = xcalloc((size_t)s->ntopics, sizeof(*h.nsubs));
    h.sizes = xcalloc((size_t)s->nmembers, sizeof(*h.sizes));
    for (int32_t t = 0; t < s->ntopics; t++) {
        h.subs[t] = xcalloc((size_t)s->nmembers, sizeof(int32_t));
        if (s->topics[t].nparts > maxparts)
            maxparts = s->topics[t].nparts;
    }
    for (int32_t m = 0; m < s->nmembers; m++)
        for (int32_t i = 0; i < s->members[m].ntopics; i++) {
            int32_t t = s->members[m].topics[i];
            h.subs[t][h.nsubs[t]++] = m;
        }
    /* maybeRevokePartitions: a member keeps what it had of the topics it
     * still subscribes to (the caller recorded no other owner) */
    for (int32_t t = 0; t < s->ntopics; t++)
        for (int32_t p = 0; p < s->topics[t].nparts; p++) {
            int32_t o = s->topics[t].owner[p];
            if (o >= 0 && !subscribes(&s->members[o], t))
                s->topics[t].owner[p] = o = -1;
            if (o >= 0)
                h.sizes[o]++;
        }
    b.h = &h;
    b.sorted = xcalloc((size_t)s->nmembers, sizeof(int32_t));
    order = xcalloc((size_t)s->ntopics, sizeof(int32_t));
    /* assignRemainingPartitions: topics in the comparator's order, each
     * partition to the least loaded subscriber */
    for (int32_t t = 0; t < s->ntopics; t++) {
        bool any = false;
        if (h.nsubs[t] == 0)
            continue;
        for (int32_t p = 0; p < s->topics[t].nparts && !any; p++)
            any = s->topics[t].owner[p] < 0;
        if (any)
            order[norder++] = t;
    }
    sort_h = &h;
    if (norder > 1)
        qsort(order, (size_t)norder, sizeof(*order), topic_cmp);
    for (int32_t i = 0; i < norder; i++) {
        int32_t t = order[i];
        bal_init(&b, h.subs[t], h.nsubs[t]);
        for (int32_t p = 0; p < s->topics[t].nparts; p++)
            if (s->topics[t].owner[p] < 0)
                assign_partition(&h, t, p, bal_next_least(&b));
    }
    /* balance: the topics two members or more subscribe to, up to 16
     * rounds, until a whole round moved nothing */
    norder = 0;
    for (int32_t t = 0; t < s->ntopics; t++)
        if (h.nsubs[t] >= 2)
            order[norder++] = t;
    if (norder > 0) {
        int32_t last = -1;
        parts = xcalloc((size_t)maxparts, sizeof(int32_t));
        start = xcalloc((size_t)s->nmembers, sizeof(int32_t));
        end = xcalloc((size_t)s->nmembers, sizeof(int32_t));
        sort_h = &h;
        if (norder > 1)
            qsort(order, (size_t)norder, sizeof(*order), topic_cmp);
        for (int round = 0; round < 16; round++) {
            for (int32_t i = 0; i < norder; i++) {
                if (i == last)
                    goto balanced;
                if (balance_topic(&h, &b, order[i], parts, start, end) > 0 ||
                    last == -1)
                    last = i;
            }
        }
    balanced:
        free(parts);
        free(start);
        free(end);
    }
    for (int32_t t = 0; t < s->ntopics; t++)
        free(h.subs[t]);
    free(h.subs);
    free(h.nsubs);
    free(h.sizes);
    free(b.sorted);
    free(order);
    return 0;
}

int
gr_assign_uniform(gr_asg_spec_t *s)
{
    if (s->nmembers == 0)
        return 0;
    if (s->homogeneous)
        return uniform_homogeneous(s);
    return uniform_heterogeneous(s);
}

/* --- range */

typedef struct range_topic {
    int32_t nmembers, min_quota, extra, next;
    bool computed;
} range_topic_t;

static gr_asg_spec_t *range_s; /* qsort context */

static int
range_member_cmp(const void *a, const void *b)
{
    const gr_asg_member_t *x = &range_s->members[*(const int32_t *)a];
    const gr_asg_member_t *y = &range_s->members[*(const int32_t *)b];
    if (x->instance_id && y->instance_id)
        return strcmp(x->instance_id, y->instance_id);
    if (x->instance_id)
        return -1;
    if (y->instance_id)
        return 1;
    return strcmp(x->member_id, y->member_id);
}

int
gr_assign_range(gr_asg_spec_t *s)
{
    range_topic_t *rt;
    int32_t *order;

    for (int32_t t = 0; t < s->ntopics; t++)
        for (int32_t p = 0; p < s->topics[t].nparts; p++)
            s->topics[t].owner[p] = -1;
    if (s->nmembers == 0)
        return 0;
    rt = xcalloc((size_t)s->ntopics, sizeof(*rt));
    order = xcalloc((size_t)s->nmembers, sizeof(*order));
    for (int32_t m = 0; m < s->nmembers; m++) {
        order[m] = m;
        for (int32_t i = 0; i < s->members[m].ntopics; i++)
            rt[s->members[m].topics[i]].nmembers++;
    }
    range_s = s;
    if (s->nmembers > 1)
        qsort(order, (size_t)s->nmembers, sizeof(*order), range_member_cmp);
    /* each member in order takes the next range of each of its topics:
     * the quota, plus one while the remainder lasts */
    for (int32_t k = 0; k < s->nmembers; k++) {
        const gr_asg_member_t *m = &s->members[order[k]];
        for (int32_t i = 0; i < m->ntopics; i++) {
            int32_t t = m->topics[i], start, end, quota;
            range_topic_t *r = &rt[t];
            if (!r->computed) {
                r->min_quota = s->topics[t].nparts / r->nmembers;
                r->extra = s->topics[t].nparts % r->nmembers;
                r->computed = true;
            }
            start = r->next;
            quota = r->min_quota;
            if (r->extra > 0) {
                quota++;
                r->extra--;
            }
            end = start + quota < s->topics[t].nparts ? start + quota
                                                      : s->topics[t].nparts;
            r->next = end;
            for (int32_t p = start; p < end; p++)
                s->topics[t].owner[p] = order[k];
        }
    }
    free(rt);
    free(order);
    return 0;
}

gr_assignor_fn
gr_assignor_find(const char *name, size_t len)
{
    if (len == 7 && memcmp(name, "uniform", 7) == 0)
        return gr_assign_uniform;
    if (len == 5 && memcmp(name, "range", 5) == 0)
        return gr_assign_range;
    return NULL;
}
