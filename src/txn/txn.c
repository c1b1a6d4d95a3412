/*
 * The transaction state machine (see the table in txn.h): which request
 * may do what in which state, and the transitions it leads to, after
 * Kafka's TransactionCoordinator (the checks) and TransactionMetadata
 * (prepare*, completeTransitionTo), for transaction version 0 (the one
 * EndTxn v0-v4 clients speak: no epoch bump per transaction) and 2 (KIP-890
 * part 2: EndTxn v5; every end bumps the epoch, partitions are added by
 * the Produce and TxnOffsetCommit themselves). Nothing here does I/O: the
 * coordinator logs a transition, then applies it.
 */
#include "core/log.h"
#include "txn/txn_int.h"

#include <stdlib.h>
#include <string.h>

static const char *const state_names[GR_TXN_NSTATES] = {
    "Empty",          "Ongoing",       "PrepareCommit", "PrepareAbort",
    "CompleteCommit", "CompleteAbort", "Dead",          "PrepareEpochFence",
};

const char *
gr_txn_state_name(gr_txn_state_t s)
{
    switch (s) {
    case GR_TXN_EMPTY:
    case GR_TXN_ONGOING:
    case GR_TXN_PREPARE_COMMIT:
    case GR_TXN_PREPARE_ABORT:
    case GR_TXN_COMPLETE_COMMIT:
    case GR_TXN_COMPLETE_ABORT:
    case GR_TXN_DEAD:
    case GR_TXN_PREPARE_EPOCH_FENCE:
        return state_names[s];
    }
    return "Unknown";
}

int
gr_txn_state_from_name(const gr_str_t *name)
{
    for (int i = 0; i < GR_TXN_NSTATES; i++)
        if (gr_str_eq_cstr(name, state_names[i]))
            return i;
    return -1;
}

static bool
exhausted(int16_t epoch)
{
    return epoch >= GR_TXN_EPOCH_EXHAUSTED;
}

bool
gr_txn_epoch_exhausted(const gr_txn_t *txn)
{
    return exhausted(txn->epoch);
}

gr_txn_t *
gr_txn_new(const gr_str_t *id, int64_t producer_id, int32_t timeout_ms,
           int64_t now_ms)
{
    gr_txn_t *txn = calloc(1, sizeof(*txn));
    if (txn == NULL)
        return NULL;
    txn->id = malloc((size_t)id->len + 1);
    if (txn->id == NULL) {
        free(txn);
        return NULL;
    }
    memcpy(txn->id, id->ptr, (size_t)id->len);
    txn->id[id->len] = '\0';
    txn->id_len = id->len;
    txn->producer_id = producer_id;
    txn->prev_producer_id = -1;
    txn->next_producer_id = -1;
    txn->epoch = -1;
    txn->last_epoch = -1;
    txn->timeout_ms = timeout_ms;
    txn->state = GR_TXN_EMPTY;
    txn->start_ms = -1;
    txn->update_ms = now_ms;
    return txn;
}

void
gr_txn_free(gr_txn_t *txn)
{
    if (txn == NULL)
        return;
    for (int i = 0; i < txn->nparts; i++)
        free(txn->parts[i].topic);
    free(txn->parts);
    free(txn->slots);
    free(txn->id);
    free(txn);
}

bool
gr_txn_has_part(const gr_txn_t *txn, const gr_str_t *topic, int32_t partition)
{
    uint32_t mask = (uint32_t)txn->nslots - 1, h;
    if (txn->nslots == 0 || topic->len < 0)
        return false;
    for (h = gr_hash_tp(topic->ptr, (size_t)topic->len, partition) & mask;
         txn->slots[h] >= 0; h = (h + 1) & mask) {
        const gr_txn_part_t *p = &txn->parts[txn->slots[h]];
        if (p->partition == partition && gr_str_eq_cstr(topic, p->topic))
            return true;
    }
    return false;
}

static void
slot_put(gr_txn_t *txn, int32_t i)
{
    const gr_txn_part_t *p = &txn->parts[i];
    uint32_t mask = (uint32_t)txn->nslots - 1;
    uint32_t h = gr_hash_tp(p->topic, strlen(p->topic), p->partition) & mask;
    while (txn->slots[h] >= 0)
        h = (h + 1) & mask;
    txn->slots[h] = i;
}

/* A transition from txn keeping what the new state does not change. */
static void
transit_init(const gr_txn_t *txn, gr_txn_state_t state, int64_t now_ms,
             gr_txn_transit_t *t)
{
    memset(t, 0, sizeof(*t));
    t->state = state;
    t->producer_id = txn->producer_id;
    t->prev_producer_id = txn->producer_id; /* as Kafka's transit */
    t->next_producer_id = txn->next_producer_id;
    t->epoch = txn->epoch;
    t->last_epoch = txn->last_epoch;
    t->client_version = txn->client_version;
    t->timeout_ms = txn->timeout_ms;
    t->start_ms = txn->start_ms;
    t->update_ms = now_ms;
}

/* --- InitProducerId */

/* KIP-360: an expected id is valid when the id is new (no epoch yet), is
 * the current one, or is the one before a rotation whose epoch was
 * exhausted (a retry that missed its answer). */
static bool
expected_pid_valid(const gr_txn_t *txn, gr_pid_t expect)
{
    return txn->epoch == -1 || expect.id == txn->producer_id ||
           (expect.id == txn->prev_producer_id && exhausted(expect.epoch));
}

/* Kafka's prepareIncrementProducerEpoch. */
static gr_kerr_t
increment_epoch(const gr_txn_t *txn, int32_t timeout_ms, gr_pid_t expect,
                int64_t now_ms, gr_txn_transit_t *t)
{
    int16_t epoch, last;
    bool bump_ok = !exhausted(txn->epoch);

    if (expect.id < 0) {
        epoch = (int16_t)(txn->epoch + 1);
        last = -1;
    } else if (txn->epoch == -1 || expect.epoch == txn->epoch) {
        /* the producer goes on after an error: bump, remember the epoch */
        epoch = (int16_t)(txn->epoch + 1);
        last = txn->epoch;
    } else if (expect.epoch == txn->last_epoch) {
        /* a retry of a bump that succeeded: the same answer */
        epoch = txn->epoch;
        last = txn->last_epoch;
        bump_ok = true;
    } else {
        return GR_KERR_PRODUCER_FENCED;
    }
    if (!bump_ok) /* Kafka: IllegalStateException; the producer is old */
        return GR_KERR_PRODUCER_FENCED;
    transit_init(txn, GR_TXN_EMPTY, now_ms, t);
    t->epoch = epoch;
    t->last_epoch = last;
    t->timeout_ms = timeout_ms;
    t->start_ms = -1;
    return GR_KERR_NONE;
}

gr_txn_init_action_t
gr_txn_prepare_init(const gr_txn_t *txn, int32_t timeout_ms, gr_pid_t expect,
                    int64_t now_ms, gr_txn_transit_t *t, gr_kerr_t *err)
{
    *err = GR_KERR_NONE;
    if (expect.id >= 0 && !expected_pid_valid(txn, expect)) {
        *err = GR_KERR_PRODUCER_FENCED;
        return GR_TXN_INIT_ERROR;
    }
    switch (txn->state) {
    case GR_TXN_PREPARE_COMMIT:
    case GR_TXN_PREPARE_ABORT:
        /* the markers are being written: the client backs off, retries */
        *err = GR_KERR_CONCURRENT_TRANSACTIONS;
        return GR_TXN_INIT_ERROR;
    case GR_TXN_EMPTY:
    case GR_TXN_COMPLETE_COMMIT:
    case GR_TXN_COMPLETE_ABORT:
        if (exhausted(txn->epoch) &&
            (expect.id < 0 || expect.epoch == txn->epoch))
            return GR_TXN_INIT_ROTATE;
        *err = increment_epoch(txn, timeout_ms, expect, now_ms, t);
        return *err == GR_KERR_NONE ? GR_TXN_INIT_BUMP : GR_TXN_INIT_ERROR;
    case GR_TXN_ONGOING:
        /* abort it with a bumped epoch; the client retries and then gets
         * a second bump (or a new id when that exhausts the epochs) */
        return GR_TXN_INIT_FENCE;
    case GR_TXN_DEAD:
    case GR_TXN_PREPARE_EPOCH_FENCE:
        /* never held (Kafka: IllegalStateException) */
        *err = GR_KERR_CONCURRENT_TRANSACTIONS;
        return GR_TXN_INIT_ERROR;
    }
    *err = GR_KERR_UNKNOWN_SERVER_ERROR;
    return GR_TXN_INIT_ERROR;
}

void
gr_txn_prepare_rotate(const gr_txn_t *txn, int64_t new_pid, int32_t timeout_ms,
                      bool record_last_epoch, int64_t now_ms,
                      gr_txn_transit_t *t)
{
    transit_init(txn, GR_TXN_EMPTY, now_ms, t);
    t->producer_id = new_pid;
    t->epoch = 0;
    t->last_epoch = record_last_epoch ? txn->epoch : -1;
    t->timeout_ms = timeout_ms;
    t->start_ms = -1;
}

void
gr_txn_fence(gr_txn_t *txn)
{
    GR_ASSERT(txn->state == GR_TXN_ONGOING && txn->epoch < INT16_MAX);
    /* after a fence whose record was not logged the epoch is bumped
     * already: no second bump (hasFailedEpochFence) */
    if (!txn->failed_fence)
        txn->epoch++;
    txn->last_epoch = -1;
}

/* --- AddPartitionsToTxn, AddOffsetsToTxn */

gr_kerr_t
gr_txn_prepare_add(const gr_txn_t *txn, gr_pid_t pid, const gr_txn_tp_t *tps,
                   int n, int16_t client_version, int64_t now_ms,
                   gr_txn_transit_t *t, bool *noop)
{
    bool all = true;
    *noop = false;
    if (txn->producer_id != pid.id)
        return GR_KERR_INVALID_PRODUCER_ID_MAPPING;
    if (txn->epoch != pid.epoch)
        return GR_KERR_PRODUCER_FENCED;
    switch (txn->state) {
    case GR_TXN_PREPARE_COMMIT:
    case GR_TXN_PREPARE_ABORT:
    case GR_TXN_PREPARE_EPOCH_FENCE:
        return GR_KERR_CONCURRENT_TRANSACTIONS;
    case GR_TXN_DEAD:
        return GR_KERR_INVALID_PRODUCER_ID_MAPPING;
    case GR_TXN_ONGOING:
        for (int i = 0; i < n && all; i++)
            all = gr_txn_has_part(txn, &tps[i].topic, tps[i].partition);
        if (all) {
            *noop = true; /* nothing new: answer at once */
            return GR_KERR_NONE;
        }
        transit_init(txn, GR_TXN_ONGOING, now_ms, t);
        break;
    case GR_TXN_EMPTY:
    case GR_TXN_COMPLETE_COMMIT:
    case GR_TXN_COMPLETE_ABORT:
        transit_init(txn, GR_TXN_ONGOING, now_ms, t);
        t->start_ms = now_ms; /* a new transaction starts */
        break;
    }
    t->add = tps;
    t->nadd = n;
    t->client_version = client_version;
    return GR_KERR_NONE;
}

gr_kerr_t
gr_txn_check_verify(const gr_txn_t *txn, gr_pid_t pid)
{
    if (txn->producer_id != pid.id)
        return GR_KERR_INVALID_PRODUCER_ID_MAPPING;
    if (txn->epoch != pid.epoch)
        return GR_KERR_PRODUCER_FENCED;
    switch (txn->state) {
    case GR_TXN_PREPARE_COMMIT:
    case GR_TXN_PREPARE_ABORT:
    case GR_TXN_PREPARE_EPOCH_FENCE:
        return GR_KERR_CONCURRENT_TRANSACTIONS;
    case GR_TXN_DEAD:
        return GR_KERR_INVALID_PRODUCER_ID_MAPPING;
    case GR_TXN_EMPTY:
    case GR_TXN_ONGOING:
    case GR_TXN_COMPLETE_COMMIT:
    case GR_TXN_COMPLETE_ABORT:
        break;
    }
    return GR_KERR_NONE;
}

/* --- EndTxn */

/* Transaction version 0: the client's epoch is the current one; the
 * coordinator's own abort carries the bumped epoch (Kafka's
 * endTransactionWithTV1). */
static gr_kerr_t
prepare_end_v0(const gr_txn_t *txn, gr_pid_t pid, bool commit,
               bool from_client, int64_t now_ms, gr_txn_transit_t *t,
               bool *noop)
{
    if (txn->producer_id != pid.id)
        return GR_KERR_INVALID_PRODUCER_ID_MAPPING;
    if ((from_client && pid.epoch != txn->epoch) || pid.epoch < txn->epoch)
        return GR_KERR_PRODUCER_FENCED;
    switch (txn->state) {
    case GR_TXN_ONGOING:
        transit_init(txn, commit ? GR_TXN_PREPARE_COMMIT : GR_TXN_PREPARE_ABORT,
                     now_ms, t);
        return GR_KERR_NONE;
    case GR_TXN_COMPLETE_COMMIT:
        if (!commit)
            return GR_KERR_INVALID_TXN_STATE;
        *noop = true; /* a retry of a commit that is done */
        return GR_KERR_NONE;
    case GR_TXN_COMPLETE_ABORT:
        if (commit)
            return GR_KERR_INVALID_TXN_STATE;
        *noop = true;
        return GR_KERR_NONE;
    case GR_TXN_PREPARE_COMMIT:
        return commit ? GR_KERR_CONCURRENT_TRANSACTIONS
                      : GR_KERR_INVALID_TXN_STATE;
    case GR_TXN_PREPARE_ABORT:
        return commit ? GR_KERR_INVALID_TXN_STATE
                      : GR_KERR_CONCURRENT_TRANSACTIONS;
    case GR_TXN_EMPTY:
        return GR_KERR_INVALID_TXN_STATE;
    case GR_TXN_DEAD:
        return GR_KERR_INVALID_PRODUCER_ID_MAPPING;
    case GR_TXN_PREPARE_EPOCH_FENCE:
        return GR_KERR_CONCURRENT_TRANSACTIONS;
    }
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

/* Kafka's prepareAbortOrCommit for transaction version 2: the epoch goes
 * up by one (the markers carry it), the one before is remembered;
 * no_partition_added: an abort with no transaction open (its start time
 * is now). */
static void
abort_or_commit_v2(const gr_txn_t *txn, gr_txn_state_t state,
                   int64_t next_pid, bool no_partition_added, int64_t now_ms,
                   gr_txn_transit_t *t)
{
    transit_init(txn, state, now_ms, t);
    if (!(txn->epoch == INT16_MAX && state == GR_TXN_PREPARE_ABORT))
        t->epoch = (int16_t)(txn->epoch + 1);
    t->last_epoch = txn->epoch;
    t->start_ms = no_partition_added ? now_ms : txn->start_ms;
    t->next_producer_id = next_pid;
    t->client_version = 2;
}

/* Transaction version 2 (Kafka's endTransaction with a client transaction
 * version that supports the epoch bump). */
static gr_kerr_t
prepare_end_v2(const gr_txn_t *txn, gr_pid_t pid, bool commit,
               bool from_client, int64_t next_pid, int64_t now_ms,
               gr_txn_transit_t *t, bool *noop)
{
    /* a retry of an end whose answer was lost: the epoch (or, after an
     * exhausted one, the producer id) has moved on since */
    bool retry_overflow = from_client && txn->prev_producer_id == pid.id &&
                          pid.epoch == GR_TXN_EPOCH_EXHAUSTED &&
                          txn->epoch == 0;
    bool retry_bump = from_client && txn->epoch == pid.epoch + 1;
    bool retry = retry_bump || retry_overflow, valid = false;

    if (!from_client) {
        valid = pid.epoch >= txn->epoch; /* the coordinator's fence */
    } else {
        switch (txn->state) {
        case GR_TXN_ONGOING:
        case GR_TXN_EMPTY:
        case GR_TXN_DEAD:
        case GR_TXN_PREPARE_EPOCH_FENCE:
            valid = pid.epoch == txn->epoch;
            break;
        case GR_TXN_PREPARE_COMMIT:
        case GR_TXN_PREPARE_ABORT:
            valid = retry_bump;
            break;
        case GR_TXN_COMPLETE_COMMIT:
        case GR_TXN_COMPLETE_ABORT:
            valid = retry || pid.epoch == txn->epoch;
            break;
        }
    }
    if (txn->producer_id != pid.id && !retry_overflow)
        return GR_KERR_INVALID_PRODUCER_ID_MAPPING;
    if (!valid)
        return GR_KERR_PRODUCER_FENCED;
    switch (txn->state) {
    case GR_TXN_ONGOING:
        abort_or_commit_v2(txn,
                           commit ? GR_TXN_PREPARE_COMMIT
                                  : GR_TXN_PREPARE_ABORT,
                           next_pid, false, now_ms, t);
        return GR_KERR_NONE;
    case GR_TXN_COMPLETE_COMMIT:
        if (commit != retry)
            return GR_KERR_INVALID_TXN_STATE;
        if (commit) {
            *noop = true;
            return GR_KERR_NONE;
        }
        abort_or_commit_v2(txn, GR_TXN_PREPARE_ABORT, next_pid, true, now_ms,
                           t);
        return GR_KERR_NONE;
    case GR_TXN_COMPLETE_ABORT:
        if (commit)
            return GR_KERR_INVALID_TXN_STATE;
        if (retry) {
            *noop = true;
            return GR_KERR_NONE;
        }
        abort_or_commit_v2(txn, GR_TXN_PREPARE_ABORT, next_pid, true, now_ms,
                           t);
        return GR_KERR_NONE;
    case GR_TXN_EMPTY:
        if (commit)
            return GR_KERR_INVALID_TXN_STATE;
        abort_or_commit_v2(txn, GR_TXN_PREPARE_ABORT, next_pid, true, now_ms,
                           t);
        return GR_KERR_NONE;
    case GR_TXN_PREPARE_COMMIT:
        return commit ? GR_KERR_CONCURRENT_TRANSACTIONS
                      : GR_KERR_INVALID_TXN_STATE;
    case GR_TXN_PREPARE_ABORT:
        return commit ? GR_KERR_INVALID_TXN_STATE
                      : GR_KERR_CONCURRENT_TRANSACTIONS;
    case GR_TXN_DEAD:
        return GR_KERR_INVALID_PRODUCER_ID_MAPPING;
    case GR_TXN_PREPARE_EPOCH_FENCE:
        return GR_KERR_CONCURRENT_TRANSACTIONS;
    }
    return GR_KERR_UNKNOWN_SERVER_ERROR;
}

gr_kerr_t
gr_txn_prepare_end(const gr_txn_t *txn, gr_pid_t pid, bool commit,
                   bool from_client, bool tv2, int64_t next_pid,
                   int64_t now_ms, gr_txn_transit_t *t, bool *noop)
{
    *noop = false;
    return tv2 ? prepare_end_v2(txn, pid, commit, from_client, next_pid,
                                now_ms, t, noop)
               : prepare_end_v0(txn, pid, commit, from_client, now_ms, t,
                                noop);
}

void
gr_txn_prepare_complete(const gr_txn_t *txn, int64_t now_ms,
                        gr_txn_transit_t *t)
{
    GR_ASSERT(txn->state == GR_TXN_PREPARE_COMMIT ||
              txn->state == GR_TXN_PREPARE_ABORT);
    transit_init(txn,
                 txn->state == GR_TXN_PREPARE_COMMIT ? GR_TXN_COMPLETE_COMMIT
                                                     : GR_TXN_COMPLETE_ABORT,
                 now_ms, t);
    /* transaction version 2, epoch exhausted: the next producer id takes
     * over with epoch 0 (Kafka's prepareComplete) */
    if (txn->client_version >= 2 && txn->next_producer_id >= 0) {
        t->producer_id = txn->next_producer_id;
        t->epoch = 0;
    }
    t->next_producer_id = -1;
}

bool
gr_txn_expired(const gr_txn_t *txn, int64_t now_ms, int64_t expiration_ms)
{
    switch (txn->state) {
    case GR_TXN_EMPTY:
    case GR_TXN_COMPLETE_COMMIT:
    case GR_TXN_COMPLETE_ABORT:
        return txn->update_ms <= now_ms - expiration_ms;
    case GR_TXN_ONGOING:
    case GR_TXN_PREPARE_COMMIT:
    case GR_TXN_PREPARE_ABORT:
    case GR_TXN_DEAD:
    case GR_TXN_PREPARE_EPOCH_FENCE:
        break;
    }
    return false;
}

bool
gr_txn_timed_out(const gr_txn_t *txn, int64_t now_ms)
{
    return txn->state == GR_TXN_ONGOING &&
           txn->start_ms + txn->timeout_ms < now_ms;
}

/* --- applying a logged transition */

int
gr_txn_add_part(gr_txn_t *txn, const gr_str_t *topic, int32_t partition)
{
    gr_txn_part_t *p;
    if (gr_txn_has_part(txn, topic, partition))
        return 0;
    if (2 * (txn->nparts + 1) >= txn->nslots) { /* grow and rehash */
        int n = txn->nslots ? txn->nslots * 2 : 16;
        int32_t *v = malloc((size_t)n * sizeof(*v));
        if (v == NULL)
            return -1;
        memset(v, 0xff, (size_t)n * sizeof(*v));
        free(txn->slots);
        txn->slots = v;
        txn->nslots = n;
        for (int32_t i = 0; i < txn->nparts; i++)
            slot_put(txn, i);
    }
    if (txn->nparts == txn->parts_cap) {
        int cap = txn->parts_cap ? txn->parts_cap * 2 : 4;
        gr_txn_part_t *v = realloc(txn->parts, (size_t)cap * sizeof(*v));
        if (v == NULL)
            return -1;
        txn->parts = v;
        txn->parts_cap = cap;
    }
    p = &txn->parts[txn->nparts];
    p->topic = malloc((size_t)topic->len + 1);
    if (p->topic == NULL)
        return -1;
    memcpy(p->topic, topic->ptr, (size_t)topic->len);
    p->topic[topic->len] = '\0';
    p->partition = partition;
    p->marked = false;
    slot_put(txn, txn->nparts++);
    return 0;
}

void
gr_txn_clear_parts(gr_txn_t *txn)
{
    for (int i = 0; i < txn->nparts; i++)
        free(txn->parts[i].topic);
    txn->nparts = 0;
    if (txn->nslots > 0)
        memset(txn->slots, 0xff, (size_t)txn->nslots * sizeof(*txn->slots));
}

int
gr_txn_apply(gr_txn_t *txn, const gr_txn_transit_t *t)
{
    int rc = 0;
    /* every field of the transition, as Kafka's completeTransitionTo:
     * transitions that do not change one carry txn's value */
    txn->timeout_ms = t->timeout_ms;
    txn->producer_id = t->producer_id;
    txn->prev_producer_id = t->prev_producer_id;
    txn->next_producer_id = t->next_producer_id;
    txn->epoch = t->epoch;
    txn->last_epoch = t->last_epoch;
    txn->client_version = t->client_version;
    switch (t->state) {
    case GR_TXN_EMPTY: /* InitProducerId */
        txn->start_ms = -1;
        gr_txn_clear_parts(txn);
        break;
    case GR_TXN_ONGOING: /* AddPartitions */
        txn->start_ms = t->start_ms;
        for (int i = 0; i < t->nadd && rc == 0; i++)
            rc = gr_txn_add_part(txn, &t->add[i].topic, t->add[i].partition);
        break;
    case GR_TXN_PREPARE_COMMIT: /* EndTxn */
    case GR_TXN_PREPARE_ABORT:
        txn->start_ms = t->start_ms; /* TV2's abort with no transaction */
        for (int i = 0; i < txn->nparts; i++)
            txn->parts[i].marked = false;
        txn->completing = true;
        break;
    case GR_TXN_COMPLETE_COMMIT: /* every marker written */
    case GR_TXN_COMPLETE_ABORT:
        txn->start_ms = t->start_ms;
        txn->completing = false;
        txn->failed_fence = false;
        gr_txn_clear_parts(txn);
        break;
    case GR_TXN_DEAD:
    case GR_TXN_PREPARE_EPOCH_FENCE:
        GR_ASSERT(!"not a state to apply");
        break;
    }
    txn->update_ms = t->update_ms;
    txn->state = t->state;
    return rc;
}
