/*
 * The records of consumer groups (KIP-848) in __consumer_offsets, in Kafka
 * 4.4's formats: building them (an operation's outcome), appending them in
 * one batch, and replaying them onto the state, which the start-up load
 * does too. The key's version is the record type (group_int.h,
 * GR_CG_REC_*); every value is version 0 (flexible). Loop thread only.
 *
 *   type  key                 value
 *   3     group               ConsumerGroupMetadata: epoch, metadata hash
 *   4     group               ConsumerGroupPartitionMetadata (pre-4.0:
 *                             read as present, only ever tombstoned)
 *   5     group, member       ConsumerGroupMemberMetadata: subscription
 *   6     group               ConsumerGroupTargetAssignmentMetadata
 *   7     group, member       ConsumerGroupTargetAssignmentMember
 *   8     group, member       ConsumerGroupCurrentMemberAssignment
 *   16    group, regex        ConsumerGroupRegularExpression
 */
#include "core/time.h"
#include "group/group_int.h"
#include "proto/gen/consumer_group_current_member_assignment_key.h"
#include "proto/gen/consumer_group_current_member_assignment_value.h"
#include "proto/gen/consumer_group_member_metadata_key.h"
#include "proto/gen/consumer_group_member_metadata_value.h"
#include "proto/gen/consumer_group_metadata_key.h"
#include "proto/gen/consumer_group_metadata_value.h"
#include "proto/gen/consumer_group_partition_metadata_key.h"
#include "proto/gen/consumer_group_regular_expression_key.h"
#include "proto/gen/consumer_group_regular_expression_value.h"
#include "proto/gen/consumer_group_target_assignment_member_key.h"
#include "proto/gen/consumer_group_target_assignment_member_value.h"
#include "proto/gen/consumer_group_target_assignment_metadata_key.h"
#include "proto/gen/consumer_group_target_assignment_metadata_value.h"

#include <stdlib.h>
#include <string.h>

typedef gr_consumer_group_metadata_value_t meta_v_t;
typedef gr_consumer_group_member_metadata_value_t member_v_t;
typedef gr_consumer_group_target_assignment_metadata_value_t tmeta_v_t;
typedef gr_consumer_group_target_assignment_member_value_t target_v_t;
typedef gr_consumer_group_target_assignment_member_value_topic_partition_t
    target_tp_t;
typedef gr_consumer_group_current_member_assignment_value_t current_v_t;
typedef gr_consumer_group_current_member_assignment_value_topic_partitions_t
    current_tp_t;
typedef gr_consumer_group_regular_expression_value_t regex_v_t;

static void *
az(gr_arena_t *a, size_t n)
{
    void *p = gr_arena_zalloc(a, n ? n : 1);
    GR_ASSERT(p != NULL);
    return p;
}

static gr_str_t
astr(gr_arena_t *a, const char *s)
{
    if (s == NULL)
        return GR_STR_NULL;
    return (gr_str_t){ gr_arena_strndup(a, s, strlen(s)), (int32_t)strlen(s) };
}

static const char *
acstr(gr_arena_t *a, const char *s)
{
    char *p;
    if (s == NULL)
        return NULL;
    p = gr_arena_strndup(a, s, strlen(s));
    GR_ASSERT(p != NULL);
    return p;
}

static gr_cg_rec_t *
rec_add(gr_cg_recs_t *rs, int16_t type, const char *key2, void *value)
{
    gr_cg_rec_t *r;
    if (rs->n == rs->cap) {
        int32_t cap = rs->cap ? rs->cap * 2 : 16;
        gr_cg_rec_t *v = az(rs->a, sizeof(*v) * (size_t)cap);
        if (rs->n)
            memcpy(v, rs->r, sizeof(*v) * (size_t)rs->n);
        rs->r = v;
        rs->cap = cap;
    }
    r = &rs->r[rs->n++];
    r->type = type;
    r->key2 = acstr(rs->a, key2);
    r->tomb = value == NULL;
    r->value = value;
    return r;
}

void
gr_cg_rec_epoch(gr_cg_recs_t *rs, int32_t epoch, int64_t hash)
{
    meta_v_t *v = az(rs->a, sizeof(*v));
    gr_consumer_group_metadata_value_init(v);
    v->epoch = epoch;
    v->metadata_hash = hash;
    rec_add(rs, GR_CG_REC_METADATA, NULL, v);
}

void
gr_cg_rec_member(gr_cg_recs_t *rs, const gr_cmember_t *m)
{
    member_v_t *v = az(rs->a, sizeof(*v));
    gr_consumer_group_member_metadata_value_init(v);
    v->instance_id = astr(rs->a, m->instance_id);
    v->rack_id = astr(rs->a, m->rack_id);
    v->client_id = astr(rs->a, m->client_id ? m->client_id : "");
    v->client_host = astr(rs->a, m->client_host ? m->client_host : "");
    v->subscribed_topic_names =
        az(rs->a, sizeof(gr_str_t) * (size_t)m->ntopics);
    for (int32_t i = 0; i < m->ntopics; i++)
        v->subscribed_topic_names[i] = astr(rs->a, m->topics[i]);
    v->subscribed_topic_names_cnt = m->ntopics;
    /* Kafka's member default is "" (no regex) */
    v->subscribed_topic_regex = astr(rs->a, m->regex ? m->regex : "");
    v->rebalance_timeout_ms = m->rebalance_timeout_ms;
    v->server_assignor = astr(rs->a, m->assignor);
    rec_add(rs, GR_CG_REC_MEMBER, m->id, v);
}

void
gr_cg_rec_target(gr_cg_recs_t *rs, const char *member_id,
                 const gr_cg_assign_t *a)
{
    target_v_t *v = az(rs->a, sizeof(*v));
    gr_consumer_group_target_assignment_member_value_init(v);
    v->topic_partitions = az(rs->a, sizeof(target_tp_t) * (size_t)a->n);
    v->topic_partitions_cnt = a->n;
    for (int32_t i = 0; i < a->n; i++) {
        target_tp_t *tp = &v->topic_partitions[i];
        gr_consumer_group_target_assignment_member_value_topic_partition_init(
            tp);
        tp->topic_id = a->t[i].id;
        tp->partitions = gr_arena_memdup(
            rs->a, a->t[i].parts,
            sizeof(int32_t) * (size_t)(a->t[i].n ? a->t[i].n : 1));
        tp->partitions_cnt = a->t[i].n;
    }
    rec_add(rs, GR_CG_REC_TARGET_MEMBER, member_id, v);
}

void
gr_cg_rec_target_meta(gr_cg_recs_t *rs, int32_t epoch, int64_t ts)
{
    tmeta_v_t *v = az(rs->a, sizeof(*v));
    gr_consumer_group_target_assignment_metadata_value_init(v);
    v->assignment_epoch = epoch;
    v->assignment_timestamp = ts;
    rec_add(rs, GR_CG_REC_TARGET_METADATA, NULL, v);
}

static void
current_tps(gr_arena_t *a, const gr_cg_assign_t *src, current_tp_t **out,
            int32_t *cnt)
{
    *out = az(a, sizeof(current_tp_t) * (size_t)src->n);
    *cnt = src->n;
    for (int32_t i = 0; i < src->n; i++) {
        current_tp_t *tp = &(*out)[i];
        size_t sz = sizeof(int32_t) * (size_t)(src->t[i].n ? src->t[i].n : 1);
        gr_consumer_group_current_member_assignment_value_topic_partitions_init(
            tp);
        tp->topic_id = src->t[i].id;
        tp->partitions = az(a, sz);
        memcpy(tp->partitions, src->t[i].parts,
               sizeof(int32_t) * (size_t)src->t[i].n);
        tp->partitions_cnt = src->t[i].n;
        /* Kafka 4.4 writes the assignment epochs, one per partition */
        tp->assignment_epochs = az(a, sz);
        for (int32_t k = 0; k < src->t[i].n; k++)
            tp->assignment_epochs[k] =
                src->t[i].epochs ? src->t[i].epochs[k] : 0;
        tp->assignment_epochs_cnt = src->t[i].n;
    }
}

void
gr_cg_rec_current(gr_cg_recs_t *rs, const gr_cmember_t *m)
{
    current_v_t *v = az(rs->a, sizeof(*v));
    gr_consumer_group_current_member_assignment_value_init(v);
    v->member_epoch = m->epoch;
    v->previous_member_epoch = m->prev_epoch;
    v->state = m->state;
    current_tps(rs->a, &m->assigned, &v->assigned_partitions,
                &v->assigned_partitions_cnt);
    current_tps(rs->a, &m->pending, &v->partitions_pending_revocation,
                &v->partitions_pending_revocation_cnt);
    rec_add(rs, GR_CG_REC_CURRENT, m->id, v);
}

void
gr_cg_rec_regex(gr_cg_recs_t *rs, const char *regex, char **topics,
                int32_t ntopics, int64_t version, int64_t ts)
{
    regex_v_t *v = az(rs->a, sizeof(*v));
    gr_consumer_group_regular_expression_value_init(v);
    v->topics = az(rs->a, sizeof(gr_str_t) * (size_t)ntopics);
    for (int32_t i = 0; i < ntopics; i++)
        v->topics[i] = astr(rs->a, topics[i]); /* sorted, as Kafka's */
    v->topics_cnt = ntopics;
    v->version = version;
    v->timestamp = ts;
    rec_add(rs, GR_CG_REC_REGEX, regex, v);
}

void
gr_cg_rec_tomb(gr_cg_recs_t *rs, int16_t type, const char *key2)
{
    rec_add(rs, type, key2, NULL);
}

/* --- encoding */

#define ENCODE(out, ver, type, msg)                             \
    do {                                                        \
        size_t n_ = 2 + gr_##type##_size((msg), (ver));         \
        gr_writer_t w_;                                         \
        gr_buf_reserve((out), n_);                              \
        if ((out)->oom)                                         \
            break;                                              \
        w_ = gr_writer_init((out)->ptr + (out)->len, n_, NULL); \
        gr_wr_i16(&w_, (ver));                                  \
        gr_##type##_encode(&w_, (msg), (ver));                  \
        GR_ASSERT(!w_.err && w_.p == w_.end);                   \
        (out)->len += n_;                                       \
    } while (0)

/* A key of one group id, or of a group id and a second string. */
#define KEY1(out, ver, type, group)    \
    do {                               \
        gr_##type##_t k_;              \
        gr_##type##_init(&k_);         \
        k_.group_id = gr_str_c(group); \
        ENCODE(out, ver, type, &k_);   \
    } while (0)
#define KEY2(out, ver, type, group, field, v2) \
    do {                                       \
        gr_##type##_t k_;                      \
        gr_##type##_init(&k_);                 \
        k_.group_id = gr_str_c(group);         \
        k_.field = gr_str_c((v2) ? (v2) : ""); \
        ENCODE(out, ver, type, &k_);           \
    } while (0)

/* The key and value bytes of r (value empty for a tombstone). */
static void
encode(const char *group, const gr_cg_rec_t *r, gr_buf_t *k, gr_buf_t *v)
{
    gr_buf_reset(k);
    gr_buf_reset(v);
    switch (r->type) {
    case GR_CG_REC_CLASSIC_GROUP:
        gr_store_group_key(k, group);
        return; /* a tombstone */
    case GR_CG_REC_METADATA:
        KEY1(k, r->type, consumer_group_metadata_key, group);
        break;
    case GR_CG_REC_PARTITION_METADATA:
        KEY1(k, r->type, consumer_group_partition_metadata_key, group);
        break;
    case GR_CG_REC_MEMBER:
        KEY2(k, r->type, consumer_group_member_metadata_key, group, member_id,
             r->key2);
        break;
    case GR_CG_REC_TARGET_METADATA:
        KEY1(k, r->type, consumer_group_target_assignment_metadata_key, group);
        break;
    case GR_CG_REC_TARGET_MEMBER:
        KEY2(k, r->type, consumer_group_target_assignment_member_key, group,
             member_id, r->key2);
        break;
    case GR_CG_REC_CURRENT:
        KEY2(k, r->type, consumer_group_current_member_assignment_key, group,
             member_id, r->key2);
        break;
    case GR_CG_REC_REGEX:
        KEY2(k, r->type, consumer_group_regular_expression_key, group,
             regular_expression, r->key2);
        break;
    default:
        GR_ASSERT(!"a consumer group record of no known type");
    }
    if (r->tomb)
        return;
    switch (r->type) {
    case GR_CG_REC_METADATA:
        ENCODE(v, 0, consumer_group_metadata_value, (meta_v_t *)r->value);
        break;
    case GR_CG_REC_MEMBER:
        ENCODE(v, 0, consumer_group_member_metadata_value,
               (member_v_t *)r->value);
        break;
    case GR_CG_REC_TARGET_METADATA:
        ENCODE(v, 0, consumer_group_target_assignment_metadata_value,
               (tmeta_v_t *)r->value);
        break;
    case GR_CG_REC_TARGET_MEMBER:
        ENCODE(v, 0, consumer_group_target_assignment_member_value,
               (target_v_t *)r->value);
        break;
    case GR_CG_REC_CURRENT:
        ENCODE(v, 0, consumer_group_current_member_assignment_value,
               (current_v_t *)r->value);
        break;
    case GR_CG_REC_REGEX:
        ENCODE(v, 0, consumer_group_regular_expression_value,
               (regex_v_t *)r->value);
        break;
    default:
        GR_ASSERT(!"a consumer group record without a value encoding");
    }
}

gr_kerr_t
gr_cg_commit(gr_group_t *grp, gr_cg_recs_t *rs, bool *gone)
{
    gr_batch_builder_t bb;
    gr_buf_t k = GR_BUF_INIT, v = GR_BUF_INIT;
    int64_t now = gr_loop_wall_ms(grp->g->loop);
    bool flush_due = false, oom = false;
    gr_groups_t *g = grp->g;
    gr_kerr_t err;

    *gone = false;
    if (rs->n == 0)
        return GR_KERR_NONE;
    gr_batch_builder_init(&bb, 0, 0, -1, -1, -1);
    for (int32_t i = 0; i < rs->n; i++) {
        gr_bytes_t kb, vb;
        encode(grp->id, &rs->r[i], &k, &v);
        oom |= k.oom || v.oom;
        kb = (gr_bytes_t){ k.ptr, (int32_t)k.len };
        vb = rs->r[i].tomb ? (gr_bytes_t){ NULL, -1 }
                           : (gr_bytes_t){ v.ptr, (int32_t)v.len };
        gr_batch_builder_add(&bb, now, &kb, &vb, 0, NULL, 0);
    }
    err = oom ? GR_KERR_UNKNOWN_SERVER_ERROR
              : gr_store_append(g, grp->partition, &bb, &flush_due);
    gr_batch_builder_fini(&bb);
    gr_buf_fini(&k);
    gr_buf_fini(&v);
    if (err != GR_KERR_NONE) {
        GR_LOG_WARN("group %s: %d record(s) not written: %s", grp->id,
                    (int)rs->n, gr_kerr_name(err));
        return err;
    }
    if (flush_due)
        gr_store_flush(g, grp->partition, NULL);
    for (int32_t i = 0; i < rs->n; i++)
        gr_cg_replay(grp, &rs->r[i]);
    /* an epoch tombstone turned the group back into an empty classic
     * one: it stays only for its offsets */
    if (grp->type == GR_GROUP_TYPE_CLASSIC && grp->nmembers == 0 &&
        grp->npending == 0 && grp->ocount == 0 && !grp->txn_offsets &&
        !grp->has_metadata) {
        gr_groups_remove(g, grp);
        *gone = true;
    }
    return GR_KERR_NONE;
}

/* --- replaying */

static char *
sdup(const gr_str_t *s)
{
    return gr_group_strdup(s); /* NULL for null */
}

static int
scmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted unique heap copies of names. */
static char **
names_dup(const gr_str_t *names, int32_t n, int32_t *out_n)
{
    char **v = calloc((size_t)(n > 0 ? n : 1), sizeof(*v));
    int32_t k = 0;
    GR_ASSERT(v != NULL);
    for (int32_t i = 0; i < n; i++) {
        if (names[i].len < 0)
            continue;
        v[k] = sdup(&names[i]);
        GR_ASSERT(v[k] != NULL);
        k++;
    }
    if (k > 1)
        qsort(v, (size_t)k, sizeof(*v), scmp);
    *out_n = 0;
    for (int32_t i = 0; i < k; i++) {
        if (*out_n > 0 && strcmp(v[i], v[*out_n - 1]) == 0)
            free(v[i]);
        else
            v[(*out_n)++] = v[i];
    }
    return v;
}

static void
names_free(char **v, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static int
tp_cmp(const void *a, const void *b)
{
    return memcmp(((const gr_cg_tp_t *)a)->id.b, ((const gr_cg_tp_t *)b)->id.b,
                  16);
}

/* A heap assignment from a record's topic list: parts[i]/epochs[i] of
 * topic i (epochs NULL: every partition at fill_epoch; fill_epoch < 0:
 * no epochs). Topics and partitions sorted, duplicates dropped. */
static void
assign_from(gr_cg_assign_t *dst, int32_t n, const gr_uuid_t *ids,
            int32_t *const *parts, const int32_t *nparts,
            int32_t *const *epochs, const int32_t *nepochs, int32_t fill_epoch)
{
    int32_t k = 0;
    dst->t = calloc((size_t)(n > 0 ? n : 1), sizeof(*dst->t));
    GR_ASSERT(dst->t != NULL);
    for (int32_t i = 0; i < n; i++) {
        gr_cg_tp_t *tp = &dst->t[k];
        int32_t np = nparts[i] > 0 ? nparts[i] : 0, w = 0;
        bool ep = epochs && epochs[i] && nepochs[i] == np;
        if (np == 0)
            continue;
        tp->id = ids[i];
        tp->parts = malloc(sizeof(int32_t) * (size_t)np);
        tp->epochs =
            fill_epoch >= 0 || ep ? malloc(sizeof(int32_t) * (size_t)np) : NULL;
        GR_ASSERT(tp->parts != NULL);
        /* pairs sorted together: sort indexes by partition */
        for (int32_t j = 0; j < np; j++) {
            int32_t p = parts[i][j], e = ep ? epochs[i][j] : fill_epoch, at;
            for (at = w; at > 0 && tp->parts[at - 1] > p; at--)
                ;
            if (at > 0 && tp->parts[at - 1] == p)
                continue;
            memmove(tp->parts + at + 1, tp->parts + at,
                    sizeof(int32_t) * (size_t)(w - at));
            tp->parts[at] = p;
            if (tp->epochs) {
                memmove(tp->epochs + at + 1, tp->epochs + at,
                        sizeof(int32_t) * (size_t)(w - at));
                tp->epochs[at] = e;
            }
            w++;
        }
        tp->n = w;
        k++;
    }
    if (k > 1)
        qsort(dst->t, (size_t)k, sizeof(*dst->t), tp_cmp);
    /* the same topic twice: keep the first (a malformed record) */
    dst->n = k > 0 ? 1 : 0;
    for (int32_t i = 1; i < k; i++) {
        if (memcmp(dst->t[i].id.b, dst->t[dst->n - 1].id.b, 16) == 0) {
            free(dst->t[i].parts);
            free(dst->t[i].epochs);
        } else {
            dst->t[dst->n++] = dst->t[i];
        }
    }
}

static void
assign_from_target(gr_cg_assign_t *dst, const target_v_t *v)
{
    int32_t n = v->topic_partitions_cnt > 0 ? v->topic_partitions_cnt : 0;
    gr_uuid_t *ids = calloc((size_t)n + 1, sizeof(*ids));
    int32_t **parts = calloc((size_t)n + 1, sizeof(*parts));
    int32_t *np = calloc((size_t)n + 1, sizeof(*np));
    GR_ASSERT(ids && parts && np);
    for (int32_t i = 0; i < n; i++) {
        ids[i] = v->topic_partitions[i].topic_id;
        parts[i] = v->topic_partitions[i].partitions;
        np[i] = v->topic_partitions[i].partitions_cnt;
    }
    assign_from(dst, n, ids, parts, np, NULL, NULL, -1);
    free(ids);
    free(parts);
    free(np);
}

static void
assign_from_current(gr_cg_assign_t *dst, const current_tp_t *tps, int32_t cnt,
                    int32_t member_epoch)
{
    int32_t n = cnt > 0 ? cnt : 0;
    gr_uuid_t *ids = calloc((size_t)n + 1, sizeof(*ids));
    int32_t **parts = calloc((size_t)n + 1, sizeof(*parts));
    int32_t **eps = calloc((size_t)n + 1, sizeof(*eps));
    int32_t *np = calloc((size_t)n + 1, sizeof(*np));
    int32_t *ne = calloc((size_t)n + 1, sizeof(*ne));
    GR_ASSERT(ids && parts && eps && np && ne);
    for (int32_t i = 0; i < n; i++) {
        ids[i] = tps[i].topic_id;
        parts[i] = tps[i].partitions;
        np[i] = tps[i].partitions_cnt;
        /* Kafka's assignmentFromTopicPartitions: without epochs (records
         * before 4.4) every partition is at the member epoch */
        eps[i] =
            tps[i].assignment_epochs_cnt > 0 ? tps[i].assignment_epochs : NULL;
        ne[i] = tps[i].assignment_epochs_cnt;
    }
    assign_from(dst, n, ids, parts, np, eps, ne, member_epoch);
    free(ids);
    free(parts);
    free(eps);
    free(np);
    free(ne);
}

static void
regex_free(gr_cg_regex_t *re)
{
    free(re->regex);
    names_free(re->topics, re->ntopics);
    free(re);
}

static void
replay_member(gr_cgroup_t *cg, const char *id, const member_v_t *v)
{
    gr_cmember_t *m = gr_cg_member_get(cg, id);
    char **topics;
    int32_t ntopics;

    if (v == NULL) {
        if (!m->in_group) {
            if (!m->has_target)
                gr_cg_member_drop(cg, m);
            return;
        }
        gr_cg_subs_add(cg, m->topics, m->ntopics, -1, false);
        gr_cg_index(cg, m, -1);
        m->in_group = false;
        cg->nmembers--;
        gr_cg_pe_remove(cg, &m->assigned, m->epoch);
        gr_cg_pe_remove(cg, &m->pending, m->epoch);
        gr_cg_member_drop(cg, m);
        return;
    }
    topics = names_dup(v->subscribed_topic_names, v->subscribed_topic_names_cnt,
                       &ntopics);
    gr_cg_index(cg, m, -1);
    if (m->in_group)
        gr_cg_subs_add(cg, m->topics, m->ntopics, -1, false);
    names_free(m->topics, m->ntopics);
    m->topics = topics;
    m->ntopics = ntopics;
    gr_cg_subs_add(cg, m->topics, m->ntopics, 1, false);
    free(m->instance_id);
    free(m->rack_id);
    free(m->client_id);
    free(m->client_host);
    free(m->regex);
    free(m->assignor);
    m->instance_id = sdup(&v->instance_id);
    m->rack_id = sdup(&v->rack_id);
    m->client_id = sdup(&v->client_id);
    m->client_host = sdup(&v->client_host);
    m->regex = v->subscribed_topic_regex.len > 0
                   ? sdup(&v->subscribed_topic_regex)
                   : NULL;
    m->assignor = sdup(&v->server_assignor);
    m->rebalance_timeout_ms = v->rebalance_timeout_ms;
    if (!m->in_group) {
        m->in_group = true;
        cg->nmembers++;
    }
    gr_cg_index(cg, m, 1);
}

static void
replay_current(gr_cgroup_t *cg, const char *id, const current_v_t *v)
{
    gr_cmember_t *m =
        v ? gr_cg_member_get(cg, id) : gr_cg_member(cg, id, strlen(id));
    if (m == NULL)
        return;
    gr_cg_pe_remove(cg, &m->assigned, m->epoch);
    gr_cg_pe_remove(cg, &m->pending, m->epoch);
    gr_cg_assign_free(&m->assigned);
    gr_cg_assign_free(&m->pending);
    if (v == NULL) {
        m->epoch = -1;
        m->prev_epoch = -1;
        return;
    }
    m->epoch = v->member_epoch;
    m->prev_epoch = v->previous_member_epoch;
    m->state = v->state == GR_CM_STABLE || v->state == GR_CM_UNREVOKED ||
                       v->state == GR_CM_UNRELEASED
                   ? v->state
                   : GR_CM_UNKNOWN;
    assign_from_current(&m->assigned, v->assigned_partitions,
                        v->assigned_partitions_cnt, v->member_epoch);
    assign_from_current(&m->pending, v->partitions_pending_revocation,
                        v->partitions_pending_revocation_cnt, v->member_epoch);
    gr_cg_pe_add(cg, &m->assigned, m->epoch);
    gr_cg_pe_add(cg, &m->pending, m->epoch);
    if (!m->in_group) {
        m->in_group = true;
        cg->nmembers++;
        gr_cg_index(cg, m, 1);
    }
}

static void
replay_target(gr_cgroup_t *cg, const char *id, const target_v_t *v)
{
    gr_cmember_t *m =
        v ? gr_cg_member_get(cg, id) : gr_cg_member(cg, id, strlen(id));
    if (m == NULL)
        return;
    gr_cg_assign_free(&m->target);
    if (v == NULL) {
        m->has_target = false;
        if (!m->in_group)
            gr_cg_member_drop(cg, m);
        return;
    }
    assign_from_target(&m->target, v);
    m->has_target = true;
}

static void
replay_regex(gr_cgroup_t *cg, const char *regex, const regex_v_t *v)
{
    gr_cg_regex_t **pp = &cg->regexes, *re;
    for (; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->regex, regex) == 0)
            break;
    if (*pp != NULL) {
        re = *pp;
        gr_cg_subs_add(cg, re->topics, re->ntopics, -1, true);
        *pp = re->next;
        regex_free(re);
    }
    if (v == NULL)
        return;
    re = calloc(1, sizeof(*re));
    GR_ASSERT(re != NULL);
    re->regex = strdup(regex);
    GR_ASSERT(re->regex != NULL);
    re->topics = names_dup(v->topics, v->topics_cnt, &re->ntopics);
    re->version = v->version;
    re->ts = v->timestamp;
    if (re->ts > cg->regex_refresh_ts)
        cg->regex_refresh_ts = re->ts;
    cg->regex_fp = re->version;
    gr_cg_subs_add(cg, re->topics, re->ntopics, 1, true);
    re->next = cg->regexes;
    cg->regexes = re;
}

void
gr_cg_replay(gr_group_t *grp, const gr_cg_rec_t *r)
{
    gr_cgroup_t *cg;

    if (r->type == GR_CG_REC_CLASSIC_GROUP) {
        /* the empty classic group this one was: its metadata goes */
        grp->has_metadata = false;
        free(grp->protocol_type);
        free(grp->protocol_name);
        grp->protocol_type = grp->protocol_name = NULL;
        return;
    }
    if (grp->type != GR_GROUP_TYPE_CONSUMER) {
        if (r->tomb)
            return; /* nothing of a consumer group to delete */
        gr_cg_convert(grp);
    }
    cg = grp->cg;
    switch (r->type) {
    case GR_CG_REC_METADATA:
        if (r->tomb) {
            /* the group is gone (deleted, or now classic): its offsets
             * stay, as Kafka keeps them apart from the group */
            gr_cg_free(cg);
            grp->cg = NULL;
            grp->type = GR_GROUP_TYPE_CLASSIC;
            return;
        }
        cg->epoch = ((const meta_v_t *)r->value)->epoch;
        cg->metadata_hash = ((const meta_v_t *)r->value)->metadata_hash;
        cg->has_epoch_record = true;
        return;
    case GR_CG_REC_PARTITION_METADATA:
        cg->has_partition_metadata = !r->tomb;
        return;
    case GR_CG_REC_MEMBER:
        replay_member(cg, r->key2, r->value);
        return;
    case GR_CG_REC_TARGET_METADATA:
        if (r->tomb) {
            cg->assignment_epoch = -1;
            cg->assignment_ts = 0;
            return;
        }
        cg->assignment_epoch = ((const tmeta_v_t *)r->value)->assignment_epoch;
        cg->assignment_ts = ((const tmeta_v_t *)r->value)->assignment_timestamp;
        return;
    case GR_CG_REC_TARGET_MEMBER:
        replay_target(cg, r->key2, r->value);
        return;
    case GR_CG_REC_CURRENT:
        replay_current(cg, r->key2, r->value);
        return;
    case GR_CG_REC_REGEX:
        replay_regex(cg, r->key2, r->value);
        return;
    }
}

/* --- the start-up load */

void
gr_cg_store_apply(gr_groups_t *g, int32_t partition, int16_t kver,
                  const gr_record_t *r)
{
    gr_reader_t rd = gr_reader_init(r->key.ptr + 2, (size_t)r->key.len - 2);
    gr_cg_rec_t rec;
    gr_str_t group_id;
    gr_group_t *grp;
    void *value = NULL;
    int rc = 0;

    memset(&rec, 0, sizeof rec);
    rec.type = kver;
#define DEC1(type)                                         \
    do {                                                   \
        gr_##type##_t k_;                                  \
        if (gr_##type##_decode(&rd, kver, g->a, &k_) != 0) \
            goto bad;                                      \
        group_id = k_.group_id;                            \
    } while (0)
#define DEC2(type, field)                                                      \
    do {                                                                       \
        gr_##type##_t k_;                                                      \
        if (gr_##type##_decode(&rd, kver, g->a, &k_) != 0 || k_.field.len < 0) \
            goto bad;                                                          \
        group_id = k_.group_id;                                                \
        rec.key2 = gr_arena_strndup(g->a, k_.field.ptr, (size_t)k_.field.len); \
        GR_ASSERT(rec.key2 != NULL);                                           \
    } while (0)
    switch (kver) {
    case GR_CG_REC_METADATA:
        DEC1(consumer_group_metadata_key);
        break;
    case GR_CG_REC_PARTITION_METADATA:
        DEC1(consumer_group_partition_metadata_key);
        break;
    case GR_CG_REC_TARGET_METADATA:
        DEC1(consumer_group_target_assignment_metadata_key);
        break;
    case GR_CG_REC_MEMBER:
        DEC2(consumer_group_member_metadata_key, member_id);
        break;
    case GR_CG_REC_TARGET_MEMBER:
        DEC2(consumer_group_target_assignment_member_key, member_id);
        break;
    case GR_CG_REC_CURRENT:
        DEC2(consumer_group_current_member_assignment_key, member_id);
        break;
    case GR_CG_REC_REGEX:
        DEC2(consumer_group_regular_expression_key, regular_expression);
        break;
    default:
        return; /* share and streams groups: not ours */
    }
    if (group_id.len < 0)
        goto bad;
    if (r->value.len >= 0) {
        gr_reader_t vr;
        int16_t vver;
        if (r->value.len < 2)
            goto bad;
        vr = gr_reader_init(r->value.ptr, (size_t)r->value.len);
        vver = gr_rd_i16(&vr);
        if (vver != 0)
            goto bad;
        switch (kver) {
        case GR_CG_REC_METADATA:
            value = az(g->a, sizeof(meta_v_t));
            rc = gr_consumer_group_metadata_value_decode(&vr, 0, g->a, value);
            break;
        case GR_CG_REC_PARTITION_METADATA:
            value = az(g->a, 1); /* present; its content is not used */
            break;
        case GR_CG_REC_MEMBER:
            value = az(g->a, sizeof(member_v_t));
            rc = gr_consumer_group_member_metadata_value_decode(&vr, 0, g->a,
                                                                value);
            break;
        case GR_CG_REC_TARGET_METADATA:
            value = az(g->a, sizeof(tmeta_v_t));
            rc = gr_consumer_group_target_assignment_metadata_value_decode(
                &vr, 0, g->a, value);
            break;
        case GR_CG_REC_TARGET_MEMBER:
            value = az(g->a, sizeof(target_v_t));
            rc = gr_consumer_group_target_assignment_member_value_decode(
                &vr, 0, g->a, value);
            break;
        case GR_CG_REC_CURRENT:
            value = az(g->a, sizeof(current_v_t));
            rc = gr_consumer_group_current_member_assignment_value_decode(
                &vr, 0, g->a, value);
            break;
        case GR_CG_REC_REGEX:
            value = az(g->a, sizeof(regex_v_t));
            rc = gr_consumer_group_regular_expression_value_decode(&vr, 0, g->a,
                                                                   value);
            break;
        }
        if (rc != 0)
            goto bad;
    }
    rec.tomb = value == NULL;
    rec.value = value;
    grp = gr_groups_find(g, &group_id);
    if (grp == NULL) {
        if (rec.tomb)
            return;
        grp = gr_groups_create(g, &group_id, partition);
    }
    if (grp->type == GR_GROUP_TYPE_CLASSIC &&
        (grp->nmembers > 0 || grp->protocol_type != NULL)) {
        /* Kafka writes the classic group's tombstone first when it
         * converts a group; a log without it is not Kafka's */
        GR_LOG_WARN("__consumer_offsets-%d offset %lld: consumer group "
                    "record for classic group %s skipped",
                    partition, (long long)r->offset, grp->id);
        return;
    }
    gr_cg_replay(grp, &rec);
    return;
bad:
    GR_LOG_WARN("__consumer_offsets-%d offset %lld: undecodable consumer "
                "group record (type %d) skipped",
                partition, (long long)r->offset, kver);
}
