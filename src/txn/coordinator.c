/*
 * The transaction coordinator: see txn.h. Holds every transactional id
 * this broker coordinates in a hash, writes each transition as a record of
 * __transaction_state before applying it (Kafka's TransactionStateManager
 * appendTransactionToLog), loads the records at start-up (a bounded slice
 * per loop turn), aborts timed-out transactions and removes expired ids on
 * timers. The decisions are
 * txn.c's; the markers markers.c's.
 *
 * Records (Kafka's TransactionLog): key = version int16 (0) +
 * TransactionLogKey v0; value = version int16 (0 written, 0-1 read) +
 * TransactionLogValue, or null (a tombstone: the id expired). One record
 * per batch, uncompressed, no producer id, CreateTime.
 */
#include "core/log.h"
#include "core/time.h"
#include "log/log.h"
#include "log/producer_state.h"
#include "partition/partition.h"
#include "proto/gen/transaction_log_key.h"
#include "proto/gen/transaction_log_value.h"
#include "proto/records.h"
#include "txn/txn_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TXN_TOPIC           "__transaction_state"
#define RECORD_VERSION      0    /* the key version written */
#define MARKER_RETRY_MS     1000 /* markers that failed are tried again */
#define LOAD_MAX_BATCH      (16 << 20)
#define LOAD_BYTES_PER_TURN (1 << 20) /* start-up load, per loop turn */

int64_t
gr_txn_now(const gr_txn_coord_t *tc)
{
    return tc->cfg.clock_ms ? tc->cfg.clock_ms() : gr_loop_wall_ms(tc->loop);
}

/* --- the id hash */

static gr_txn_t *
find(const gr_txn_coord_t *tc, const gr_str_t *id)
{
    uint32_t h = gr_hash(id->ptr, (size_t)id->len) & (tc->tab_size - 1);
    for (gr_txn_t *t = tc->tab[h]; t; t = t->hnext)
        if (t->id_len == id->len &&
            memcmp(t->id, id->ptr, (size_t)id->len) == 0)
            return t;
    return NULL;
}

static int
insert(gr_txn_coord_t *tc, gr_txn_t *txn)
{
    uint32_t h;
    if ((uint32_t)tc->count + 1 > tc->tab_size) {
        uint32_t n = tc->tab_size * 2;
        gr_txn_t **tab = calloc(n, sizeof(*tab));
        if (tab == NULL)
            return -1;
        for (uint32_t i = 0; i < tc->tab_size; i++) {
            gr_txn_t *t = tc->tab[i], *next;
            for (; t; t = next) {
                next = t->hnext;
                h = gr_hash(t->id, (size_t)t->id_len) & (n - 1);
                t->hnext = tab[h];
                tab[h] = t;
            }
        }
        free(tc->tab);
        tc->tab = tab;
        tc->tab_size = n;
    }
    h = gr_hash(txn->id, (size_t)txn->id_len) & (tc->tab_size - 1);
    txn->hnext = tc->tab[h];
    tc->tab[h] = txn;
    tc->count++;
    return 0;
}

static void
remove_txn(gr_txn_coord_t *tc, gr_txn_t *txn)
{
    gr_txn_t **pp =
        &tc->tab[gr_hash(txn->id, (size_t)txn->id_len) & (tc->tab_size - 1)];
    while (*pp && *pp != txn)
        pp = &(*pp)->hnext;
    if (*pp) {
        *pp = txn->hnext;
        tc->count--;
    }
    gr_txn_free(txn);
}

/* --- the log */

static gr_partition_t *
state_partition(gr_txn_coord_t *tc, int32_t idx, gr_kerr_t *err)
{
    gr_topic_t *t = gr_cluster_topic_cstr(tc->cluster, TXN_TOPIC);
    gr_partition_t *p;
    if (t == NULL || idx < 0 || idx >= t->nparts) {
        *err = GR_KERR_COORDINATOR_NOT_AVAILABLE;
        return NULL;
    }
    p = t->parts[idx];
    if (p->leader != tc->node_id) {
        *err = GR_KERR_NOT_COORDINATOR;
        return NULL;
    }
    if (p->log == NULL) {
        *err = GR_KERR_COORDINATOR_NOT_AVAILABLE;
        return NULL;
    }
    *err = GR_KERR_NONE;
    return p;
}

gr_partition_t *
gr_txn_log_partition(gr_txn_coord_t *tc, const gr_str_t *txn_id, gr_kerr_t *err)
{
    gr_topic_t *t = gr_cluster_topic_cstr(tc->cluster, TXN_TOPIC);
    if (t == NULL) {
        *err = GR_KERR_COORDINATOR_NOT_AVAILABLE;
        return NULL;
    }
    {
        int32_t idx = gr_cluster_coord_partition(txn_id, t->nparts);
        if (gr_txn_loading(tc, idx)) {
            *err = GR_KERR_COORDINATOR_LOAD_IN_PROGRESS;
            return NULL;
        }
        return state_partition(tc, idx, err);
    }
}

bool
gr_txn_loading(const gr_txn_coord_t *tc, int32_t idx)
{
    return idx >= 0 && idx < tc->nload && tc->load_next[idx] >= 0;
}

static int
cmp_tp(const void *a, const void *b)
{
    const gr_txn_tp_t *x = a, *y = b;
    int32_t n = x->topic.len < y->topic.len ? x->topic.len : y->topic.len;
    int c = memcmp(x->topic.ptr, y->topic.ptr, (size_t)n);
    if (c != 0)
        return c;
    if (x->topic.len != y->topic.len)
        return x->topic.len < y->topic.len ? -1 : 1;
    return x->partition < y->partition ? -1 : x->partition > y->partition;
}

/* The partitions of txn plus add, sorted, without duplicates, in a. */
static int
sorted_parts(const gr_txn_t *txn, const gr_txn_tp_t *add, int nadd,
             gr_arena_t *a, gr_txn_tp_t **out)
{
    gr_txn_tp_t *v =
        gr_arena_alloc(a, (size_t)(txn->nparts + nadd + 1) * sizeof(*v));
    int n = 0, k = 0;
    if (v == NULL)
        return -1;
    for (int i = 0; i < txn->nparts; i++) {
        v[n].topic = gr_str_c(txn->parts[i].topic);
        v[n++].partition = txn->parts[i].partition;
    }
    for (int i = 0; i < nadd; i++)
        v[n++] = add[i];
    qsort(v, (size_t)n, sizeof(*v), cmp_tp);
    for (int i = 0; i < n; i++)
        if (k == 0 || cmp_tp(&v[k - 1], &v[i]) != 0)
            v[k++] = v[i];
    *out = v;
    return k;
}

/* Appends one record (value NULL: a tombstone) to p. */
static gr_kerr_t
append_record(gr_txn_coord_t *tc, gr_partition_t *p, const gr_bytes_t *key,
              const gr_bytes_t *value)
{
    gr_batch_builder_t bb;
    gr_buf_t out = GR_BUF_INIT;
    gr_bytes_t none = { NULL, -1 };
    gr_partition_append_args_t args = { .self_id = tc->node_id,
                                        .now_ms = gr_txn_now(tc) };
    gr_partition_append_result_t res;
    gr_kerr_t kerr = GR_KERR_NONE;
    gr_err_t err;

    gr_batch_builder_init(&bb, GR_CODEC_NONE, 0, -1, -1, -1);
    gr_batch_builder_add(&bb, gr_txn_now(tc), key, value ? value : &none, 0,
                         NULL, 0);
    err = gr_batch_builder_finish(&bb, 0, &out);
    gr_batch_builder_fini(&bb);
    if (err == 0)
        kerr = gr_partition_append(p, out.ptr, out.len, &args, &res);
    if (err != 0 || kerr != GR_KERR_NONE) {
        GR_LOG_ERROR("%s-%d: cannot append a transaction state record: %s",
                     TXN_TOPIC, p->id,
                     err != 0 ? gr_err_str(err) : gr_kerr_name(kerr));
        gr_buf_fini(&out);
        /* Kafka answers a failed append to its log NOT_COORDINATOR: the
         * client looks the coordinator up again and retries */
        return GR_KERR_NOT_COORDINATOR;
    }
    gr_buf_fini(&out);
    return GR_KERR_NONE;
}

static gr_bytes_t
encode_key(gr_arena_t *a, const char *id, int32_t id_len)
{
    gr_transaction_log_key_t k;
    gr_bytes_t out = { NULL, 0 };
    gr_writer_t w;
    size_t size;
    uint8_t *buf;

    gr_transaction_log_key_init(&k);
    k.transactional_id.ptr = id;
    k.transactional_id.len = id_len;
    size = 2 + gr_transaction_log_key_size(&k, RECORD_VERSION);
    buf = gr_arena_alloc(a, size);
    if (buf == NULL)
        return out;
    w = gr_writer_init(buf, size, a);
    gr_wr_i16(&w, RECORD_VERSION);
    gr_transaction_log_key_encode(&w, &k, RECORD_VERSION);
    out.ptr = buf;
    out.len = (int32_t)size;
    return out;
}

/* The value of txn after t (Kafka's TransactionLog.valueToBytes): version
 * 1 (flexible, with the tagged previous and next producer ids and the
 * client's transaction version) once transaction.version is 2, else 0. */
static gr_bytes_t
encode_value(gr_arena_t *a, const gr_txn_t *txn, const gr_txn_transit_t *t,
             int16_t vver)
{
    gr_transaction_log_value_t v;
    gr_bytes_t out = { NULL, 0 };
    gr_txn_tp_t *tps = NULL;
    gr_writer_t w;
    size_t size;
    uint8_t *buf;
    int n = 0;

    gr_transaction_log_value_init(&v);
    v.producer_id = t->producer_id;
    v.previous_producer_id = t->prev_producer_id;
    v.next_producer_id = t->next_producer_id;
    v.client_transaction_version = t->client_version;
    v.producer_epoch = t->epoch;
    v.transaction_timeout_ms = t->timeout_ms;
    v.transaction_status = (int8_t)t->state;
    v.transaction_last_update_timestamp_ms = t->update_ms;
    v.transaction_start_timestamp_ms = t->start_ms;
    v.transaction_partitions_cnt = -1; /* Empty: null */
    if (t->state == GR_TXN_ONGOING || t->state == GR_TXN_PREPARE_COMMIT ||
        t->state == GR_TXN_PREPARE_ABORT) {
        n = sorted_parts(txn, t->add, t->nadd, a, &tps);
        if (n < 0)
            return out;
    }
    if (t->state != GR_TXN_EMPTY) {
        /* one PartitionsSchema per topic */
        v.transaction_partitions = gr_arena_zalloc(
            a, (size_t)(n + 1) * sizeof(*v.transaction_partitions));
        if (v.transaction_partitions == NULL)
            return out;
        v.transaction_partitions_cnt = 0;
        for (int i = 0; i < n;) {
            gr_transaction_log_value_partitions_schema_t *ps =
                &v.transaction_partitions[v.transaction_partitions_cnt++];
            int j = i;
            while (j < n && gr_str_eq(&tps[j].topic, &tps[i].topic))
                j++;
            ps->topic = tps[i].topic;
            ps->partition_ids =
                gr_arena_alloc(a, (size_t)(j - i) * sizeof(int32_t));
            if (ps->partition_ids == NULL)
                return out;
            ps->partition_ids_cnt = j - i;
            for (int k = i; k < j; k++)
                ps->partition_ids[k - i] = tps[k].partition;
            i = j;
        }
    }
    size = 2 + gr_transaction_log_value_size(&v, vver);
    buf = gr_arena_alloc(a, size);
    if (buf == NULL)
        return out;
    w = gr_writer_init(buf, size, a);
    gr_wr_i16(&w, vver);
    gr_transaction_log_value_encode(&w, &v, vver);
    out.ptr = buf;
    out.len = (int32_t)size;
    return out;
}

gr_kerr_t
gr_txn_log_transit(gr_txn_coord_t *tc, gr_txn_t *txn, const gr_txn_transit_t *t)
{
    gr_arena_t *a = gr_arena_new(1024);
    gr_partition_t *p;
    gr_bytes_t key, value;
    gr_kerr_t err;

    if (a == NULL)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    p = state_partition(tc, txn->log_partition, &err);
    if (p != NULL) {
        key = encode_key(a, txn->id, txn->id_len);
        value = encode_value(a, txn, t,
                             tc->cfg.transaction_version >= 2 ? 1 : 0);
        if (key.ptr == NULL || value.ptr == NULL)
            err = GR_KERR_COORDINATOR_NOT_AVAILABLE;
        else
            err = append_record(tc, p, &key, &value);
    }
    if (err == GR_KERR_NONE) {
        GR_LOG_DEBUG("transactional id %s: %s -> %s (producer %" PRId64
                     " epoch %d)",
                     txn->id, gr_txn_state_name(txn->state),
                     gr_txn_state_name(t->state), t->producer_id, t->epoch);
        if (gr_txn_apply(txn, t) != 0)
            GR_LOG_ERROR("transactional id %s: out of memory applying a "
                         "transition",
                         txn->id);
    }
    gr_arena_destroy(a);
    return err;
}

/* Tombstone for an expired id, then it is dropped. */
static gr_kerr_t
log_tombstone(gr_txn_coord_t *tc, gr_txn_t *txn)
{
    gr_arena_t *a = gr_arena_new(256);
    gr_partition_t *p;
    gr_bytes_t key;
    gr_kerr_t err;
    if (a == NULL)
        return GR_KERR_COORDINATOR_NOT_AVAILABLE;
    p = state_partition(tc, txn->log_partition, &err);
    if (p != NULL) {
        key = encode_key(a, txn->id, txn->id_len);
        err = key.ptr ? append_record(tc, p, &key, NULL)
                      : GR_KERR_COORDINATOR_NOT_AVAILABLE;
    }
    gr_arena_destroy(a);
    return err;
}

/* --- loading */

typedef struct load_ctx {
    gr_txn_coord_t *tc;
    int32_t partition;
    gr_arena_t *a;
    int64_t records;
} load_ctx_t;

static void
load_value(load_ctx_t *lc, const gr_str_t *id, const gr_bytes_t *value)
{
    gr_txn_coord_t *tc = lc->tc;
    gr_txn_t *txn = find(tc, id);
    gr_transaction_log_value_t v;
    gr_reader_t r;
    int16_t ver;

    if (value->len < 0) { /* tombstone */
        if (txn != NULL)
            remove_txn(tc, txn);
        return;
    }
    if (value->len < 2)
        goto bad;
    ver = (int16_t)gr_get_u16(value->ptr);
    r = gr_reader_init(value->ptr + 2, (size_t)value->len - 2);
    if (ver < 0 || ver > 1 ||
        gr_transaction_log_value_decode(&r, ver, lc->a, &v) != 0 ||
        v.transaction_status < 0 || v.transaction_status >= GR_TXN_NSTATES)
        goto bad;
    if (txn == NULL) {
        txn = gr_txn_new(id, v.producer_id, v.transaction_timeout_ms, 0);
        if (txn == NULL || insert(tc, txn) != 0) {
            gr_txn_free(txn);
            GR_LOG_ERROR("out of memory loading transactional id %.*s",
                         (int)id->len, id->ptr);
            return;
        }
    }
    txn->log_partition = lc->partition;
    txn->producer_id = v.producer_id;
    txn->prev_producer_id = v.previous_producer_id;
    txn->next_producer_id = v.next_producer_id;
    txn->epoch = v.producer_epoch;
    txn->last_epoch = -1; /* not in the log (Kafka likewise) */
    txn->timeout_ms = v.transaction_timeout_ms;
    txn->state = (gr_txn_state_t)v.transaction_status;
    txn->start_ms = v.transaction_start_timestamp_ms;
    txn->update_ms = v.transaction_last_update_timestamp_ms;
    txn->client_version = v.client_transaction_version;
    txn->completing = false;
    txn->failed_fence = false;
    gr_txn_clear_parts(txn);
    if (txn->state != GR_TXN_EMPTY) {
        for (int32_t i = 0; i < v.transaction_partitions_cnt; i++) {
            const gr_transaction_log_value_partitions_schema_t *ps =
                &v.transaction_partitions[i];
            gr_str_t topic = ps->topic;
            for (int32_t k = 0; k < ps->partition_ids_cnt; k++)
                if (gr_txn_add_part(txn, &topic, ps->partition_ids[k]) != 0)
                    GR_LOG_ERROR("out of memory loading transactional id "
                                 "%s",
                                 txn->id);
        }
    }
    return;
bad:
    GR_LOG_WARN("%s-%d: transactional id %.*s: a value that cannot be read; "
                "ignored",
                TXN_TOPIC, lc->partition, (int)id->len, id->ptr);
}

static int
load_record(void *arg, const gr_batch_hdr_t *h, const gr_record_t *rec)
{
    load_ctx_t *lc = arg;
    gr_transaction_log_key_t k;
    gr_reader_t r;
    int16_t ver;
    (void)h;

    gr_arena_reset(lc->a);
    lc->records++;
    if (rec->key.len < 2) {
        GR_LOG_WARN("%s-%d: a record without a key at offset %" PRId64
                    "; ignored",
                    TXN_TOPIC, lc->partition, rec->offset);
        return 0;
    }
    ver = (int16_t)gr_get_u16(rec->key.ptr);
    r = gr_reader_init(rec->key.ptr + 2, (size_t)rec->key.len - 2);
    if (ver != 0 || gr_transaction_log_key_decode(&r, ver, lc->a, &k) != 0) {
        GR_LOG_WARN("%s-%d: unknown key version %d at offset %" PRId64
                    "; ignored",
                    TXN_TOPIC, lc->partition, ver, rec->offset);
        return 0;
    }
    load_value(lc, &k.transactional_id, &rec->value);
    return 0;
}

static int
load_batch(void *arg, const uint8_t *batch, size_t n)
{
    load_ctx_t *lc = arg;
    gr_batch_hdr_t h;
    gr_kerr_t err;
    gr_batch_hdr_parse(batch, &h);
    if (h.attributes & GR_ATTR_CONTROL)
        return 0;
    err = gr_batch_foreach_record(batch, n, &lc->tc->scratch, LOAD_MAX_BATCH,
                                  load_record, lc);
    if (err != GR_KERR_NONE)
        GR_LOG_WARN("%s-%d: batch at offset %" PRId64 " cannot be read (%s); "
                    "ignored",
                    TXN_TOPIC, lc->partition, h.base_offset, gr_kerr_name(err));
    return 0;
}

/* Partition idx is loaded: its transactions whose decision was logged
 * get their markers written again (Kafka's
 * loadTransactionsForTxnTopicPartition). */
static void
partition_loaded(gr_txn_coord_t *tc, int32_t idx)
{
    int completing = 0;
    tc->load_next[idx] = -1;
    tc->loading--;
    for (uint32_t i = 0; i < tc->tab_size; i++)
        for (gr_txn_t *txn = tc->tab[i]; txn; txn = txn->hnext)
            if (txn->log_partition == idx &&
                (txn->state == GR_TXN_PREPARE_COMMIT ||
                 txn->state == GR_TXN_PREPARE_ABORT)) {
                txn->completing = true;
                completing++;
            }
    for (uint32_t i = 0; i < tc->tab_size && completing > 0; i++)
        for (gr_txn_t *txn = tc->tab[i]; txn; txn = txn->hnext)
            if (txn->log_partition == idx && txn->completing) {
                GR_LOG_INFO("transactional id %s: completing %s after a "
                            "restart",
                            txn->id, gr_txn_state_name(txn->state));
                gr_txn_markers_write(tc, txn);
            }
    if (tc->loading == 0)
        GR_LOG_INFO("transaction coordinator: %d transactional id(s) loaded "
                    "from %" PRId64 " record(s) in %.1f ms",
                    tc->count, tc->load_records,
                    (double)(gr_mono_us() - tc->load_start_us) / 1000.0);
}

typedef struct step_ctx {
    load_ctx_t lc;
    int64_t next;  /* offset after the last batch read */
    int64_t bytes; /* read this turn */
    bool stopped;  /* the turn's budget is used up */
} step_ctx_t;

static int
load_step_batch(void *arg, const uint8_t *batch, size_t n)
{
    step_ctx_t *sc = arg;
    gr_batch_hdr_t h;
    gr_batch_hdr_parse(batch, &h);
    load_batch(&sc->lc, batch, n);
    sc->next = gr_batch_last_offset(&h) + 1;
    sc->bytes += (int64_t)n;
    if (sc->bytes >= LOAD_BYTES_PER_TURN) {
        sc->stopped = true;
        return 1;
    }
    return 0;
}

/* Loads the next slice of the first partition still loading. */
static void
load_step(gr_txn_coord_t *tc)
{
    gr_topic_t *t = gr_cluster_topic_cstr(tc->cluster, TXN_TOPIC);
    step_ctx_t sc;
    int32_t idx = 0;
    gr_err_t err;

    while (idx < tc->nload && tc->load_next[idx] < 0)
        idx++;
    if (idx == tc->nload)
        return;
    if (t == NULL || idx >= t->nparts || t->parts[idx]->log == NULL) {
        partition_loaded(tc, idx); /* gone meanwhile */
        return;
    }
    memset(&sc, 0, sizeof sc);
    sc.lc.tc = tc;
    sc.lc.partition = idx;
    sc.lc.a = gr_arena_new(4096);
    sc.next = tc->load_next[idx];
    if (sc.lc.a == NULL) {
        GR_LOG_ERROR("out of memory loading %s-%d", TXN_TOPIC, idx);
        partition_loaded(tc, idx);
        return;
    }
    err = gr_log_scan(t->parts[idx]->log, tc->load_next[idx], load_step_batch,
                      &sc);
    gr_arena_destroy(sc.lc.a);
    tc->load_records += sc.lc.records;
    if (err != 0)
        GR_LOG_ERROR("%s-%d: loading transaction state at offset %" PRId64
                     ": %s; the rest is skipped",
                     TXN_TOPIC, idx, sc.next, gr_err_str(err));
    if (sc.stopped && err == 0)
        tc->load_next[idx] = sc.next;
    else
        partition_loaded(tc, idx);
}

static void
on_load_timer(gr_loop_t *loop, gr_timer_t *t)
{
    gr_txn_coord_t *tc = t->data;
    load_step(tc);
    if (tc->loading > 0)
        gr_timer_start(loop, t, 0);
}

/* Starts loading every partition of __transaction_state led here. */
static void
load_start(gr_txn_coord_t *tc)
{
    gr_topic_t *t = gr_cluster_topic_cstr(tc->cluster, TXN_TOPIC);
    tc->load_start_us = gr_mono_us();
    if (t == NULL)
        return;
    tc->load_next = calloc((size_t)t->nparts, sizeof(*tc->load_next));
    if (tc->load_next == NULL) {
        GR_LOG_ERROR("out of memory: %s is not loaded", TXN_TOPIC);
        return;
    }
    tc->nload = t->nparts;
    for (int32_t i = 0; i < t->nparts; i++) {
        gr_partition_t *p = t->parts[i];
        if (p->leader == tc->node_id && p->log != NULL) {
            tc->load_next[i] = 0;
            tc->loading++;
        } else {
            tc->load_next[i] = -1;
        }
    }
}

/* gr_pids_next's failure as InitProducerId answers it: a block still
 * being taken from ZooKeeper is retriable, as Kafka's
 * COORDINATOR_LOAD_IN_PROGRESS from its RPCProducerIdManager. */
static gr_kerr_t
pid_error(int64_t rc)
{
    return rc == GR_PID_PENDING ? GR_KERR_COORDINATOR_LOAD_IN_PROGRESS
                                : GR_KERR_COORDINATOR_NOT_AVAILABLE;
}

/* gr_txn_prepare_end, with a new producer id for a transaction version 2
 * end whose epoch is exhausted. */
static gr_kerr_t
end_prepare(gr_txn_coord_t *tc, gr_txn_t *txn, gr_pid_t pid, bool commit,
            bool from_client, bool tv2, gr_txn_transit_t *t, bool *noop)
{
    int64_t next = -1;
    if (tv2 && gr_txn_epoch_exhausted(txn) && txn->producer_id == pid.id &&
        pid.epoch >= txn->epoch &&
        (txn->state == GR_TXN_ONGOING || txn->state == GR_TXN_EMPTY ||
         txn->state == GR_TXN_COMPLETE_COMMIT ||
         txn->state == GR_TXN_COMPLETE_ABORT)) {
        next = gr_pids_next(tc->pids);
        if (next < 0)
            return pid_error(next);
        GR_LOG_INFO("transactional id %s: epochs of producer %" PRId64
                    " exhausted; producer %" PRId64 " follows it",
                    txn->id, txn->producer_id, next);
    }
    return gr_txn_prepare_end(txn, pid, commit, from_client, tv2, next,
                              gr_txn_now(tc), t, noop);
}

/* --- timers */

/* The coordinator's abort of an Ongoing transaction: the epoch is bumped
 * once (fencing the producer), then PrepareAbort and its markers. Kafka
 * ends its own aborts at the cluster's transaction.version
 * (txnManager.transactionVersionLevel), not the transaction's: at 0 and
 * 1 the fence's epoch is the transaction's from then on and the abort
 * keeps it (endTransactionWithTV1); at 2 the fence is dropped and the
 * abort makes the one bump (endTransaction, prepareAbortOrCommit). */
static gr_kerr_t
fence_and_abort(gr_txn_coord_t *tc, gr_txn_t *txn)
{
    gr_txn_transit_t t;
    gr_kerr_t err;
    bool noop, tv2 = tc->cfg.transaction_version >= 2;
    gr_pid_t fence;

    if (txn->epoch == INT16_MAX) {
        GR_LOG_ERROR("transactional id %s: epoch %d cannot be bumped to "
                     "fence its producer",
                     txn->id, txn->epoch);
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    if (tv2) {
        fence.id = txn->producer_id;
        fence.epoch = (int16_t)(txn->epoch + 1);
    } else {
        gr_txn_fence(txn);
        fence = (gr_pid_t){ txn->producer_id, txn->epoch };
    }
    err = end_prepare(tc, txn, fence, false, false, tv2, &t, &noop);
    if (err == GR_KERR_NONE && !noop)
        err = gr_txn_log_transit(tc, txn, &t);
    if (err != GR_KERR_NONE) {
        txn->failed_fence = true;
        GR_LOG_WARN("transactional id %s: fencing epoch %d was not logged: "
                    "%s",
                    txn->id, txn->epoch, gr_kerr_name(err));
        return err;
    }
    gr_txn_markers_write(tc, txn);
    return GR_KERR_NONE;
}

static void
abort_timed_out(gr_txn_coord_t *tc)
{
    int64_t now = gr_txn_now(tc);
    for (uint32_t i = 0; i < tc->tab_size; i++)
        for (gr_txn_t *txn = tc->tab[i]; txn; txn = txn->hnext)
            if (gr_txn_timed_out(txn, now) &&
                !gr_txn_loading(tc, txn->log_partition)) {
                GR_LOG_INFO("transactional id %s: transaction of producer "
                            "%" PRId64 " epoch %d timed out after %d ms; "
                            "aborting it",
                            txn->id, txn->producer_id, txn->epoch,
                            txn->timeout_ms);
                fence_and_abort(tc, txn);
            }
}

static void
retry_markers(gr_txn_coord_t *tc)
{
    for (uint32_t i = 0; i < tc->tab_size; i++)
        for (gr_txn_t *txn = tc->tab[i]; txn; txn = txn->hnext)
            if (txn->completing && !gr_txn_loading(tc, txn->log_partition))
                gr_txn_markers_write(tc, txn);
}

static void
remove_expired(gr_txn_coord_t *tc)
{
    int64_t now = gr_txn_now(tc);
    int n = 0;
    for (uint32_t i = 0; i < tc->tab_size; i++) {
        gr_txn_t *txn = tc->tab[i], *next;
        for (; txn; txn = next) {
            next = txn->hnext;
            if (txn->completing || gr_txn_loading(tc, txn->log_partition) ||
                !gr_txn_expired(txn, now, tc->cfg.id_expiration_ms))
                continue;
            if (log_tombstone(tc, txn) == GR_KERR_NONE) {
                GR_LOG_INFO("transactional id %s expired (idle since %" PRId64
                            ")",
                            txn->id, txn->update_ms);
                remove_txn(tc, txn);
                n++;
            }
        }
    }
    (void)n;
}

static void
on_abort_timer(gr_loop_t *loop, gr_timer_t *t)
{
    gr_txn_coord_t *tc = t->data;
    abort_timed_out(tc);
    gr_timer_start(loop, t, tc->cfg.abort_interval_ms);
}

static void
on_expire_timer(gr_loop_t *loop, gr_timer_t *t)
{
    gr_txn_coord_t *tc = t->data;
    remove_expired(tc);
    gr_timer_start(loop, t, tc->cfg.remove_expired_interval_ms);
}

static void
on_retry_timer(gr_loop_t *loop, gr_timer_t *t)
{
    (void)loop;
    retry_markers(t->data);
}

void
gr_txn_coord_tick(gr_txn_coord_t *tc)
{
    abort_timed_out(tc);
    retry_markers(tc);
    remove_expired(tc);
}

/* --- life cycle */

gr_txn_coord_t *
gr_txn_coord_new(gr_loop_t *loop, gr_cluster_t *cluster, gr_pids_t *pids,
                 int32_t node_id, const gr_txn_config_t *cfg,
                 const gr_txn_hooks_t *hooks)
{
    gr_txn_coord_t *tc = calloc(1, sizeof(*tc));
    if (tc == NULL)
        return NULL;
    tc->loop = loop;
    tc->cluster = cluster;
    tc->pids = pids;
    tc->node_id = node_id;
    tc->cfg = *cfg;
    if (hooks)
        tc->hooks = *hooks;
    tc->tab_size = 64;
    tc->tab = calloc(tc->tab_size, sizeof(*tc->tab));
    if (tc->tab == NULL) {
        free(tc);
        return NULL;
    }
    gr_timer_init_virtual(&tc->abort_timer, on_abort_timer, tc);
    gr_timer_init_virtual(&tc->expire_timer, on_expire_timer, tc);
    gr_timer_init(&tc->retry_timer, on_retry_timer, tc);
    gr_timer_init(&tc->load_timer, on_load_timer, tc);
    return tc;
}

void
gr_txn_coord_destroy(gr_txn_coord_t *tc)
{
    if (tc == NULL)
        return;
    if (tc->loop) {
        gr_timer_stop(tc->loop, &tc->abort_timer);
        gr_timer_stop(tc->loop, &tc->expire_timer);
        gr_timer_stop(tc->loop, &tc->retry_timer);
        gr_timer_stop(tc->loop, &tc->load_timer);
    }
    free(tc->load_next);
    for (uint32_t i = 0; i < tc->tab_size; i++) {
        gr_txn_t *txn = tc->tab[i], *next;
        for (; txn; txn = next) {
            next = txn->hnext;
            gr_txn_free(txn);
        }
    }
    free(tc->tab);
    gr_buf_fini(&tc->scratch);
    free(tc);
}

void
gr_txn_coord_start(gr_txn_coord_t *tc)
{
    load_start(tc);
    if (tc->loop == NULL) /* tests: at once */
        while (tc->loading > 0)
            load_step(tc);
    tc->started = true;
    if (tc->loop) {
        if (tc->loading > 0)
            gr_timer_start(tc->loop, &tc->load_timer, 0);
        gr_timer_start(tc->loop, &tc->abort_timer, tc->cfg.abort_interval_ms);
        gr_timer_start(tc->loop, &tc->expire_timer,
                       tc->cfg.remove_expired_interval_ms);
    }
}

void
gr_txn_coord_load_all_now(gr_txn_coord_t *tc)
{
    while (tc->loading > 0)
        load_step(tc);
    if (tc->loop)
        gr_timer_stop(tc->loop, &tc->load_timer);
}

void
gr_txn_retry_later(gr_txn_coord_t *tc)
{
    if (tc->loop && !gr_timer_armed(&tc->retry_timer))
        gr_timer_start(tc->loop, &tc->retry_timer, MARKER_RETRY_MS);
}

/* An id the coordinator refuses (INVALID_REQUEST): empty, as Kafka, or
 * with a NUL byte, which Kafka accepts but Gregor's C-string ids cannot
 * keep apart from another (docs/compatibility.md). */
static bool
txn_id_invalid(const gr_str_t *txn_id)
{
    if (txn_id->len <= 0)
        return true;
    if (memchr(txn_id->ptr, '\0', (size_t)txn_id->len) != NULL) {
        GR_LOG_WARN("transactional id of %d bytes with a NUL byte: refused "
                    "(INVALID_REQUEST)",
                    (int)txn_id->len);
        return true;
    }
    return false;
}

/* --- requests */

gr_kerr_t
gr_txn_init_pid(gr_txn_coord_t *tc, const gr_str_t *txn_id, int32_t timeout_ms,
                gr_pid_t expect, gr_pid_t *out)
{
    int64_t now = gr_txn_now(tc);
    gr_txn_transit_t t;
    gr_partition_t *p;
    gr_txn_t *txn;
    gr_kerr_t err;

    *out = GR_PID_NONE;
    if (txn_id_invalid(txn_id))
        return GR_KERR_INVALID_REQUEST;
    if (timeout_ms <= 0 || timeout_ms > tc->cfg.max_timeout_ms)
        return GR_KERR_INVALID_TRANSACTION_TIMEOUT;
    p = gr_txn_log_partition(tc, txn_id, &err);
    if (p == NULL)
        return err;
    txn = find(tc, txn_id);
    if (txn == NULL) {
        int64_t pid = gr_pids_next(tc->pids);
        if (pid < 0)
            return pid_error(pid);
        txn = gr_txn_new(txn_id, pid, timeout_ms, now);
        if (txn == NULL || insert(tc, txn) != 0) {
            gr_txn_free(txn);
            return GR_KERR_COORDINATOR_NOT_AVAILABLE;
        }
        txn->log_partition = p->id;
    }
    switch (gr_txn_prepare_init(txn, timeout_ms, expect, now, &t, &err)) {
    case GR_TXN_INIT_ERROR:
        return err;
    case GR_TXN_INIT_ROTATE: {
        int64_t pid = gr_pids_next(tc->pids);
        if (pid < 0)
            return pid_error(pid);
        GR_LOG_INFO("transactional id %s: epochs of producer %" PRId64
                    " exhausted; new producer id %" PRId64,
                    txn->id, txn->producer_id, pid);
        gr_txn_prepare_rotate(txn, pid, timeout_ms, expect.id >= 0, now, &t);
        break;
    }
    case GR_TXN_INIT_BUMP:
        break;
    case GR_TXN_INIT_FENCE:
        GR_LOG_INFO("transactional id %s: InitProducerId during a "
                    "transaction: fencing epoch %d and aborting",
                    txn->id, txn->epoch);
        err = fence_and_abort(tc, txn);
        return err != GR_KERR_NONE ? err : GR_KERR_CONCURRENT_TRANSACTIONS;
    }
    err = gr_txn_log_transit(tc, txn, &t);
    if (err == GR_KERR_NONE) {
        out->id = txn->producer_id;
        out->epoch = txn->epoch;
        GR_LOG_INFO("transactional id %s: producer %" PRId64 " epoch %d",
                    txn->id, out->id, out->epoch);
    }
    return err;
}

/* The id's metadata, or NULL with *err. */
static gr_txn_t *
lookup(gr_txn_coord_t *tc, const gr_str_t *txn_id, gr_kerr_t *err)
{
    gr_txn_t *txn;
    if (txn_id_invalid(txn_id)) {
        *err = GR_KERR_INVALID_REQUEST;
        return NULL;
    }
    if (gr_txn_log_partition(tc, txn_id, err) == NULL)
        return NULL;
    txn = find(tc, txn_id);
    if (txn == NULL)
        *err = GR_KERR_INVALID_PRODUCER_ID_MAPPING;
    return txn;
}

gr_kerr_t
gr_txn_add_partitions(gr_txn_coord_t *tc, const gr_str_t *txn_id, gr_pid_t pid,
                      const gr_txn_tp_t *tps, int n, int16_t client_version)
{
    gr_txn_transit_t t;
    gr_kerr_t err;
    bool noop;
    gr_txn_t *txn = lookup(tc, txn_id, &err);
    if (txn == NULL)
        return err;
    err = gr_txn_prepare_add(txn, pid, tps, n, client_version, gr_txn_now(tc),
                             &t, &noop);
    if (err != GR_KERR_NONE || noop)
        return err;
    return gr_txn_log_transit(tc, txn, &t);
}

gr_kerr_t
gr_txn_verify_partitions(gr_txn_coord_t *tc, const gr_str_t *txn_id,
                         gr_pid_t pid, const gr_txn_tp_t *tps, int n,
                         gr_kerr_t *errs)
{
    gr_kerr_t err;
    gr_txn_t *txn = lookup(tc, txn_id, &err);
    if (txn == NULL)
        return err;
    err = gr_txn_check_verify(txn, pid);
    if (err != GR_KERR_NONE)
        return err;
    for (int i = 0; i < n; i++)
        errs[i] = gr_txn_has_part(txn, &tps[i].topic, tps[i].partition)
                      ? GR_KERR_NONE
                      : GR_KERR_TRANSACTION_ABORTABLE;
    return GR_KERR_NONE;
}

gr_kerr_t
gr_txn_verify_start(gr_partition_t *p, gr_pid_t pid, bool *ask)
{
    int16_t epoch;
    bool open;

    *ask = false;
    if (p->pstate == NULL)
        return GR_KERR_KAFKA_STORAGE_ERROR;
    if (gr_pstate_producer(p->pstate, pid.id, &epoch, &open)) {
        if (pid.epoch < epoch)
            return GR_KERR_INVALID_PRODUCER_EPOCH;
        if (open && pid.epoch == epoch)
            return GR_KERR_NONE;
    }
    *ask = true;
    return GR_KERR_NONE;
}

gr_kerr_t
gr_txn_verify_error(gr_kerr_t err, bool generic_errors)
{
    if (err == GR_KERR_PRODUCER_FENCED)
        return GR_KERR_INVALID_PRODUCER_EPOCH;
    if (err == GR_KERR_TRANSACTION_ABORTABLE && !generic_errors)
        return GR_KERR_INVALID_TXN_STATE;
    return err;
}

gr_kerr_t
gr_txn_end(gr_txn_coord_t *tc, const gr_str_t *txn_id, gr_pid_t pid,
           bool commit, int16_t client_version, gr_pid_t *out)
{
    gr_txn_transit_t t;
    gr_kerr_t err;
    bool noop;
    gr_txn_t *txn = lookup(tc, txn_id, &err);

    *out = GR_PID_NONE;
    if (txn == NULL)
        return err;
    err = end_prepare(tc, txn, pid, commit, true, client_version >= 2, &t,
                      &noop);
    if (err != GR_KERR_NONE)
        return err;
    if (noop) {
        /* a retry: the producer's current id and epoch */
        *out = (gr_pid_t){ txn->producer_id, txn->epoch };
        return GR_KERR_NONE;
    }
    err = gr_txn_log_transit(tc, txn, &t);
    if (err != GR_KERR_NONE)
        return err;
    /* what the producer goes on with once CompleteX is logged (Kafka
     * answers with prepareComplete's id and epoch, not waiting for the
     * markers) */
    *out = txn->next_producer_id >= 0
               ? (gr_pid_t){ txn->next_producer_id, 0 }
               : (gr_pid_t){ txn->producer_id, txn->epoch };
    GR_LOG_DEBUG("transactional id %s: %s of producer %" PRId64 " epoch %d "
                 "over %d partition(s)",
                 txn->id, commit ? "commit" : "abort", txn->producer_id,
                 txn->epoch, txn->nparts);
    /* the decision is logged: the answer is NONE whatever the markers do
     * (they are retried until written) */
    gr_txn_markers_write(tc, txn);
    return GR_KERR_NONE;
}

gr_kerr_t
gr_txn_describe(gr_txn_coord_t *tc, const gr_str_t *txn_id, gr_arena_t *a,
                gr_txn_info_t *out)
{
    gr_txn_t *txn;
    gr_kerr_t err;
    memset(out, 0, sizeof(*out));
    out->start_ms = -1;
    out->producer_id = -1;
    out->producer_epoch = -1;
    if (txn_id_invalid(txn_id))
        return GR_KERR_INVALID_REQUEST;
    if (gr_cluster_topic_cstr(tc->cluster, TXN_TOPIC) == NULL)
        return GR_KERR_TRANSACTIONAL_ID_NOT_FOUND; /* none was ever made */
    if (gr_txn_log_partition(tc, txn_id, &err) == NULL)
        return err;
    txn = find(tc, txn_id);
    if (txn == NULL || txn->state == GR_TXN_DEAD)
        return GR_KERR_TRANSACTIONAL_ID_NOT_FOUND;
    out->state = gr_txn_state_name(txn->state);
    out->timeout_ms = txn->timeout_ms;
    out->start_ms = txn->start_ms;
    out->producer_id = txn->producer_id;
    out->producer_epoch = txn->epoch;
    out->nparts = sorted_parts(txn, NULL, 0, a, &out->parts);
    if (out->nparts < 0) {
        out->nparts = 0;
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    }
    return GR_KERR_NONE;
}

gr_kerr_t
gr_txn_list(gr_txn_coord_t *tc, uint32_t states, const int64_t *pids, int npids,
            int64_t duration_ms, gr_txn_list_cb cb, void *arg)
{
    int64_t now = gr_txn_now(tc);
    if (tc->loading > 0)
        return GR_KERR_COORDINATOR_LOAD_IN_PROGRESS;
    for (uint32_t i = 0; i < tc->tab_size; i++)
        for (gr_txn_t *txn = tc->tab[i]; txn; txn = txn->hnext) {
            bool pid_ok = npids == 0;
            if (txn->state == GR_TXN_DEAD)
                continue;
            if (states != 0 && !(states & (1u << txn->state)))
                continue;
            for (int k = 0; k < npids && !pid_ok; k++)
                pid_ok = pids[k] == txn->producer_id;
            if (!pid_ok)
                continue;
            /* Kafka: excluded when now - start <= duration */
            if (duration_ms >= 0 && now - txn->start_ms <= duration_ms)
                continue;
            cb(arg, txn->id, txn->producer_id, gr_txn_state_name(txn->state));
        }
    return GR_KERR_NONE;
}

gr_kerr_t
gr_txn_write_marker(gr_txn_coord_t *tc, gr_partition_t *p, gr_pid_t pid,
                    bool commit, int32_t coordinator_epoch)
{
    return gr_txn_marker_append(tc, p, pid.id, pid.epoch, commit,
                                coordinator_epoch);
}
