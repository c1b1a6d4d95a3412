/*
 * Persistence of groups and offsets: the records of __consumer_offsets in
 * Kafka's formats (../shared/reference/kafka-internal-records/), written
 * with the generated codecs of protocol/offset_commit_{key,value}.schema
 * and protocol/group_metadata_{key,value}.schema.
 *
 *   key    INT16 version, then the key struct:
 *            0, 1  OffsetCommitKey    group, topic, partition
 *            2     GroupMetadataKey   group
 *   value  INT16 version, then the value struct; null is a tombstone
 *            OffsetCommitValue v3 (v1 when the commit carries an
 *            explicit retention: expire_timestamp), GroupMetadataValue v3
 *
 * Gregor writes key versions 1 and 2 and value versions 3 (1), as Kafka
 * 2.3-3.x do; it reads every version. Records are appended uncompressed,
 * as Kafka's offsets.topic.compression.codec default does, one batch per
 * operation, through the partition log (so Kafka's tools can read them).
 * Loop thread only.
 */
#include "core/time.h"
#include "group/group_int.h"
#include "log/log.h"
#include "partition/partition.h"
#include "proto/gen/group_metadata_key.h"
#include "proto/gen/group_metadata_value.h"
#include "proto/gen/offset_commit_key.h"
#include "proto/gen/offset_commit_value.h"

#include <stdlib.h>
#include <string.h>

#define KEY_OFFSET_V          1
#define KEY_GROUP_V           2
#define VALUE_OFFSET_V        3
#define VALUE_OFFSET_EXPIRE_V 1
#define VALUE_GROUP_V         3

/* Encodes version + message into out, sized first. */
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

static gr_str_t
cs(const char *s)
{
    return s ? gr_str_c(s) : GR_STR_NULL;
}

void
gr_store_offset_key(gr_buf_t *out, const char *group, const char *topic,
                    int32_t partition)
{
    gr_offset_commit_key_t k;
    gr_offset_commit_key_init(&k);
    k.group = cs(group);
    k.topic = cs(topic ? topic : "");
    k.partition = partition;
    ENCODE(out, KEY_OFFSET_V, offset_commit_key, &k);
}

void
gr_store_add_commit(gr_batch_builder_t *bb, gr_buf_t *k, gr_buf_t *v,
                    const char *group, const gr_group_commit_part_t *p,
                    int64_t commit_ts, int64_t expire_ts, int64_t now)
{
    gr_offset_commit_key_t key;
    gr_offset_commit_value_t val;
    gr_bytes_t kb, vb;

    gr_offset_commit_key_init(&key);
    key.group = cs(group);
    key.topic = p->topic.len >= 0 ? p->topic : gr_str_c("");
    key.partition = p->partition;
    gr_offset_commit_value_init(&val);
    val.offset = p->offset;
    val.leader_epoch = p->leader_epoch;
    val.metadata = p->metadata.len >= 0 ? p->metadata : gr_str_c("");
    val.commit_timestamp = commit_ts;
    val.expire_timestamp = expire_ts;
    gr_buf_reset(k);
    gr_buf_reset(v);
    ENCODE(k, KEY_OFFSET_V, offset_commit_key, &key);
    if (expire_ts >= 0)
        ENCODE(v, VALUE_OFFSET_EXPIRE_V, offset_commit_value, &val);
    else
        ENCODE(v, VALUE_OFFSET_V, offset_commit_value, &val);
    kb = (gr_bytes_t){ k->ptr, (int32_t)k->len };
    vb = (gr_bytes_t){ v->ptr, (int32_t)v->len };
    gr_batch_builder_add(bb, now, &kb, &vb, 0, NULL, 0);
}

void
gr_store_group_key(gr_buf_t *out, const char *group)
{
    gr_group_metadata_key_t k;
    gr_group_metadata_key_init(&k);
    k.group = cs(group);
    ENCODE(out, KEY_GROUP_V, group_metadata_key, &k);
}

void
gr_store_group_value(gr_buf_t *out, const gr_group_t *grp,
                     const gr_bytes_t *assign)
{
    gr_group_metadata_value_t v;
    gr_group_metadata_value_member_metadata_t *mm;
    int32_t i = 0;

    gr_group_metadata_value_init(&v);
    v.protocol_type = cs(grp->protocol_type ? grp->protocol_type : "");
    v.generation = grp->generation;
    v.protocol = cs(grp->protocol_name);
    v.leader = grp->leader ? cs(grp->leader->member_id) : GR_STR_NULL;
    v.current_state_timestamp = grp->state_ts;
    mm = calloc((size_t)(grp->nmembers ? grp->nmembers : 1), sizeof(*mm));
    GR_ASSERT(mm != NULL);
    for (const gr_member_t *m = grp->members; m; m = m->next, i++) {
        const gr_member_proto_t *p = gr_member_proto(m, grp->protocol_name);
        gr_group_metadata_value_member_metadata_init(&mm[i]);
        mm[i].member_id = cs(m->member_id);
        mm[i].group_instance_id = cs(m->group_instance_id);
        mm[i].client_id = cs(m->client_id);
        mm[i].client_host = cs(m->client_host);
        mm[i].rebalance_timeout = m->rebalance_timeout_ms;
        mm[i].session_timeout = m->session_timeout_ms;
        mm[i].subscription = p ? (gr_bytes_t){ p->metadata, p->metadata_len }
                               : (gr_bytes_t){ NULL, 0 };
        if (assign)
            mm[i].assignment =
                assign[i].len >= 0 ? assign[i] : (gr_bytes_t){ NULL, 0 };
        else
            mm[i].assignment = (gr_bytes_t){ m->assignment, m->assignment_len };
    }
    v.members = mm;
    v.members_cnt = grp->nmembers;
    ENCODE(out, VALUE_GROUP_V, group_metadata_value, &v);
    free(mm);
}

/* --- appending */

gr_partition_t *
gr_groups_partition(gr_groups_t *g, int32_t partition)
{
    gr_topic_t *t = gr_cluster_topic_cstr(g->cluster, "__consumer_offsets");
    if (t == NULL || partition < 0 || partition >= t->nparts)
        return NULL;
    return t->parts[partition];
}

gr_kerr_t
gr_store_append(gr_groups_t *g, int32_t partition, gr_batch_builder_t *bb,
                bool *flush_due)
{
    gr_partition_t *p = gr_groups_partition(g, partition);
    gr_buf_t out = GR_BUF_INIT;
    /* a transactional offset commit (producerId >= 0) opens the
     * producer's transaction on the partition, as a Produce would; the
     * caller decides whether to wait for a flush (gr_store_flush) */
    gr_partition_append_args_t args = { .self_id = g->node_id,
                                        .now_ms = gr_loop_wall_ms(g->loop),
                                        .caller_flushes = true };
    gr_partition_append_result_t res;
    gr_kerr_t kerr;

    *flush_due = false;
    if (p == NULL || p->log == NULL)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    if (p->leader != g->node_id)
        return GR_KERR_NOT_COORDINATOR;
    if (gr_batch_builder_finish(bb, 0, &out) != 0 || out.oom) {
        gr_buf_fini(&out);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    kerr = gr_partition_append(p, out.ptr, out.len, &args, &res);
    gr_buf_fini(&out);
    if (kerr != GR_KERR_NONE)
        /* Kafka's storeOffsets/storeGroup: a storage error means "not the
         * coordinator any more" to the client, which looks again */
        return GR_KERR_NOT_COORDINATOR;
    *flush_due = res.flush_due;
    return GR_KERR_NONE;
}

/* A flush in flight for a waiter; freed by its callback. */
typedef struct flush_ticket {
    gr_group_waiter_t *w; /* NULL once answered or cancelled */
} flush_ticket_t;

static void
flush_done(gr_log_t *l, gr_err_t err, void *arg)
{
    flush_ticket_t *t = arg;
    gr_kerr_t k = err ? GR_KERR_NOT_COORDINATOR : GR_KERR_NONE;
    (void)l;
    if (err)
        GR_LOG_ERROR("flush of %s-%d failed: %s", gr_log_topic(l),
                     gr_log_partition(l), gr_err_str(err));
    gr_waiter_fire(&t->w, &k);
    free(t);
}

void
gr_store_flush(gr_groups_t *g, int32_t partition, gr_group_waiter_t *w)
{
    gr_partition_t *p = gr_groups_partition(g, partition);
    flush_ticket_t *t;
    gr_kerr_t k = GR_KERR_NOT_COORDINATOR;

    if (p == NULL || p->log == NULL) {
        if (w)
            gr_waiter_now(w, &k);
        return;
    }
    if (w == NULL) {
        gr_log_flush(p->log, NULL, NULL);
        return;
    }
    t = calloc(1, sizeof(*t));
    if (t == NULL || gr_log_flush(p->log, flush_done, t) != 0) {
        free(t);
        gr_waiter_now(w, &k);
        return;
    }
    gr_waiter_hold(&t->w, w);
}

gr_kerr_t
gr_store_group(gr_group_t *grp, const gr_bytes_t *assign)
{
    gr_batch_builder_t bb;
    gr_buf_t k = GR_BUF_INIT, v = GR_BUF_INIT;
    gr_bytes_t kb, vb;
    bool flush_due;
    gr_kerr_t err;

    gr_store_group_key(&k, grp->id);
    gr_store_group_value(&v, grp, assign);
    kb = (gr_bytes_t){ k.ptr, (int32_t)k.len };
    vb = (gr_bytes_t){ v.ptr, (int32_t)v.len };
    gr_batch_builder_init(&bb, 0, 0, -1, -1, -1);
    gr_batch_builder_add(&bb, gr_loop_wall_ms(grp->g->loop), &kb, &vb, 0, NULL,
                         0);
    err = k.oom || v.oom
              ? GR_KERR_UNKNOWN_SERVER_ERROR
              : gr_store_append(grp->g, grp->partition, &bb, &flush_due);
    gr_batch_builder_fini(&bb);
    gr_buf_fini(&k);
    gr_buf_fini(&v);
    if (err == GR_KERR_NONE) {
        grp->has_metadata = true;
        if (flush_due)
            gr_store_flush(grp->g, grp->partition, NULL);
    }
    return err;
}

gr_kerr_t
gr_store_tombstones(gr_group_t *grp, gr_offset_t **offs, int32_t n,
                    bool tomb_group)
{
    gr_batch_builder_t bb;
    gr_buf_t k = GR_BUF_INIT;
    gr_bytes_t null = { NULL, -1 };
    int64_t now = gr_loop_wall_ms(grp->g->loop);
    bool flush_due;
    gr_kerr_t err;

    if (n == 0 && !tomb_group)
        return GR_KERR_NONE;
    gr_batch_builder_init(&bb, 0, 0, -1, -1, -1);
    for (int32_t i = 0; i < n; i++) {
        gr_bytes_t kb;
        gr_buf_reset(&k);
        gr_store_offset_key(&k, grp->id, offs[i]->topic, offs[i]->partition);
        kb = (gr_bytes_t){ k.ptr, (int32_t)k.len };
        gr_batch_builder_add(&bb, now, &kb, &null, 0, NULL, 0);
    }
    if (tomb_group) {
        gr_bytes_t kb;
        gr_buf_reset(&k);
        gr_store_group_key(&k, grp->id);
        kb = (gr_bytes_t){ k.ptr, (int32_t)k.len };
        gr_batch_builder_add(&bb, now, &kb, &null, 0, NULL, 0);
    }
    err = k.oom ? GR_KERR_UNKNOWN_SERVER_ERROR
                : gr_store_append(grp->g, grp->partition, &bb, &flush_due);
    gr_batch_builder_fini(&bb);
    gr_buf_fini(&k);
    if (err == GR_KERR_NONE && flush_due)
        gr_store_flush(grp->g, grp->partition, NULL);
    return err;
}

/* --- loading */

static void
load_group_value(gr_group_t *grp, const gr_group_metadata_value_t *v)
{
    gr_member_t *m, *next, **tail = &grp->members;
    if (grp->type == GR_GROUP_TYPE_CONSUMER) {
        /* Kafka's replay puts a classic group in the place of whatever
         * had the id (a consumer group tombstones itself first) */
        gr_cg_free(grp->cg);
        grp->cg = NULL;
        grp->type = GR_GROUP_TYPE_CLASSIC;
    }
    for (m = grp->members; m; m = next) {
        next = m->next;
        gr_member_free(m);
    }
    grp->members = NULL;
    grp->leader = NULL;
    grp->nmembers = 0;
    free(grp->protocol_type);
    free(grp->protocol_name);
    grp->protocol_type =
        v->protocol_type.len > 0 ? gr_group_strdup(&v->protocol_type) : NULL;
    grp->protocol_name = gr_group_strdup(&v->protocol);
    grp->generation = v->generation;
    grp->state_ts = v->current_state_timestamp;
    grp->has_metadata = true;
    for (int32_t i = 0; i < v->members_cnt; i++) {
        const gr_group_metadata_value_member_metadata_t *mm = &v->members[i];
        gr_group_join_args_t a;
        gr_group_protocol_t proto;
        char *id = gr_group_strdup(&mm->member_id);
        memset(&a, 0, sizeof a);
        a.group_instance_id = mm->group_instance_id;
        a.client_id = mm->client_id;
        a.client_host = mm->client_host;
        a.session_timeout_ms = mm->session_timeout;
        a.rebalance_timeout_ms = mm->rebalance_timeout;
        proto.name = v->protocol.len >= 0 ? v->protocol : GR_STR("");
        proto.metadata = mm->subscription;
        a.protocols = &proto;
        a.nprotocols = 1;
        m = gr_member_new(grp, id ? id : "", &a);
        free(id);
        m->assignment_len = mm->assignment.len > 0 ? mm->assignment.len : 0;
        m->assignment = malloc((size_t)m->assignment_len + 1);
        GR_ASSERT(m->assignment != NULL);
        if (m->assignment_len)
            memcpy(m->assignment, mm->assignment.ptr,
                   (size_t)m->assignment_len);
        *tail = m;
        tail = &m->next;
        grp->nmembers++;
        if (v->leader.len >= 0 && gr_str_eq_cstr(&v->leader, m->member_id))
            grp->leader = m;
    }
    if (grp->leader == NULL)
        grp->leader = grp->members;
}

static void
clear_group_metadata(gr_group_t *grp)
{
    gr_group_metadata_value_t none;
    gr_group_metadata_value_init(&none);
    none.protocol = GR_STR_NULL;
    none.current_state_timestamp = -1;
    load_group_value(grp, &none);
    grp->has_metadata = false;
    free(grp->protocol_type);
    grp->protocol_type = NULL;
    grp->generation = 0;
}

void
gr_store_apply(gr_groups_t *g, int32_t partition, const gr_record_t *r,
               int64_t txn_pid)
{
    gr_reader_t rd, vr;
    int16_t kver, vver;
    gr_group_t *grp;

    if (r->key.len < 2)
        return;
    rd = gr_reader_init(r->key.ptr, (size_t)r->key.len);
    kver = gr_rd_i16(&rd);
    gr_arena_reset(g->a);
    if (kver == 0 || kver == 1) {
        gr_offset_commit_key_t k;
        gr_offset_commit_value_t v;
        gr_offset_t *o;
        if (gr_offset_commit_key_decode(&rd, kver, g->a, &k) != 0)
            goto bad;
        grp = gr_groups_find(g, &k.group);
        if (r->value.len < 0) {
            if (grp != NULL && k.topic.len >= 0)
                gr_offsets_del(grp, k.topic.ptr, k.topic.len, k.partition);
            return;
        }
        if (r->value.len < 2)
            goto bad;
        vr = gr_reader_init(r->value.ptr, (size_t)r->value.len);
        vver = gr_rd_i16(&vr);
        if (vver < 0 || vver > 4 ||
            gr_offset_commit_value_decode(&vr, vver, g->a, &v) != 0)
            goto bad;
        if (grp == NULL)
            grp = gr_groups_create(g, &k.group, partition);
        o = calloc(1, sizeof(*o));
        GR_ASSERT(o != NULL);
        o->topic = gr_group_strdup(&k.topic);
        o->partition = k.partition;
        o->offset = v.offset;
        o->leader_epoch = v.leader_epoch;
        gr_offset_set_metadata(o, &v.metadata);
        o->commit_ts = v.commit_timestamp;
        o->expire_ts = vver == 1 ? v.expire_timestamp : -1;
        GR_ASSERT(o->topic);
        if (txn_pid >= 0)
            gr_group_txn_put(grp, txn_pid, o);
        else
            gr_offsets_put(grp, o);
        return;
    }
    if (kver == 2) {
        gr_group_metadata_key_t k;
        gr_group_metadata_value_t v;
        if (gr_group_metadata_key_decode(&rd, kver, g->a, &k) != 0)
            goto bad;
        grp = gr_groups_find(g, &k.group);
        if (r->value.len < 0) {
            if (grp != NULL && grp->type == GR_GROUP_TYPE_CLASSIC)
                clear_group_metadata(grp);
            return;
        }
        if (r->value.len < 2)
            goto bad;
        vr = gr_reader_init(r->value.ptr, (size_t)r->value.len);
        vver = gr_rd_i16(&vr);
        if (vver < 0 || vver > 4 ||
            gr_group_metadata_value_decode(&vr, vver, g->a, &v) != 0)
            goto bad;
        if (grp == NULL)
            grp = gr_groups_create(g, &k.group, partition);
        load_group_value(grp, &v);
        return;
    }
    if (kver >= 3) {
        /* KIP-848 records (share and streams groups are skipped there) */
        gr_cg_store_apply(g, partition, kver, r);
        return;
    }
    return;
bad:
    GR_LOG_WARN("__consumer_offsets-%d offset %lld: undecodable record "
                "(key version %d) skipped",
                partition, (long long)r->offset, kver);
}
