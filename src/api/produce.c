/*
 * Produce (api key 0): checks a request in the order Kafka does, each
 * stage answering the partitions it refuses, and appends the rest:
 *
 *   1. the whole request (KafkaApis.handleProduceRequest): a first batch
 *      that is transactional needs a transactional id (else every
 *      partition is TRANSACTIONAL_ID_AUTHORIZATION_FAILED), and a first
 *      batch whose size or magic field is corrupt fails the request too
 *      (Kafka reads it before anything else);
 *   2. each partition: its topic (by id from v13, KIP-516) and partition,
 *      then the records' shape (ProduceRequest.validateRecords: exactly
 *      one whole magic-2 batch; trailing bytes that make no batch are left
 *      out, as Kafka's trimInvalidBytes does);
 *   3. the producer of the batches (ReplicaManager.handleProduceAppend):
 *      one transactional producer per request;
 *   4. transactions (KIP-890): a transactional partition must be in its
 *      transaction. v12+ is transaction version 2 (Kafka's ADD_PARTITION
 *      operation): the client sent no AddPartitionsToTxn, so the
 *      partitions join the transaction here, in one transition; below v12
 *      the coordinator verifies it (part 1, Kafka's default
 *      transaction.partition.verification.enable);
 *   5. acks;
 *   6. the append (ReplicaManager.appendToLocalLog): internal topics,
 *      leadership, min.insync.replicas, then the batch as Kafka's
 *      UnifiedLog and LogValidator check it (src/proto/records.c) and the
 *      producer's sequence and epoch; v0-v2 message sets are converted to
 *      a v2 batch, and the topic's compression.type may recompress.
 *
 * Answers follow Kafka's: a refused partition has base offset -1 and the
 * log start offset only where Kafka's append reports it (errors of the
 * append but CORRUPT_MESSAGE and MESSAGE_TOO_LARGE); an error message
 * only for the records rejected one by one (KIP-467) and the
 * verification's errors, the other explanations go to the log. acks=0 gets
 * no response (a request failing as a whole closes the connection, as
 * Kafka's); otherwise the answer goes out once the data is as durable as
 * configured (the page cache, or an fsync when flush.messages is
 * reached).
 *
 * What LogValidator does to a batch before it is appended (inflate and
 * check the records, convert a v0-v2 message set, recompress for the
 * topic's compression.type) may take far more memory and time than the
 * request's bytes: prepare() does it, between stages 3 and 4. The records
 * of one request may take at most socket.request.max.bytes once inflated
 * or converted (broker.h, max_decompressed: Kafka has no such bound, it
 * streams the records); a partition past it is MESSAGE_TOO_LARGE, as is a
 * converted or recompressed batch larger than max.message.bytes (Kafka's
 * UnifiedLog check). Only a v3+ batch whose records inflate to at most
 * INLINE_BYTES is prepared on the loop; the others go, in one job, to the
 * broker's inflation worker while the request is held (the connection
 * reads nothing more meanwhile, so a producer's batches are still
 * appended in the order it sent them), and stages 4-6 run when the job
 * is back: the partitions are looked up again, and the transaction check
 * and the append happen in the same loop turn, as before.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"
#include "broker_repl.h"
#include "cluster/topic_config.h"
#include "core/fault.h"
#include "core/time.h"
#include "core/worker.h"
#include "log/log.h"
#include "log/producer_state.h"
#include "partition/partition.h"
#include "proto/records.h"
#include "txn/txn.h"

#include <stdio.h>
#include <stdlib.h>

/* The most a batch's records may inflate to for it to be prepared on the
 * loop. gzip, the slowest codec to inflate, takes 0.1 ms for 64 KiB of
 * JSON-like records here (tests/bench/compress_bench: 400-650 MB/s), a
 * worker round trip 5 us (at worst 2 ms on this shared VM): above it the
 * loop's time per batch grows, the handoff's does not. Below it a small
 * batch does not wait behind large ones queued for the worker. */
#define INLINE_BYTES (64 << 10)

typedef gr_produce_response_partition_produce_response_t part_resp_t;

/* One partition of the request on its way through the stages. */
typedef struct part {
    const gr_produce_request_topic_produce_data_t *td;
    const gr_produce_request_partition_produce_data_t *pd;
    part_resp_t *prs;
    gr_topic_t *t;      /* found again after the worker */
    gr_uuid_t topic_id; /* t's, to tell it from a topic made since */
    size_t size;  /* the batch's bytes (what the log takes) */
    bool pending; /* not answered yet */
    bool legacy;  /* a v0-v2 message set (magic 0 or 1) */
    bool txn;     /* a transactional batch with a producer id */
    gr_pid_t pid; /* its producer, when txn */
    /* what prepare() made of the batch, once prepared */
    bool prepared;
    bool log_append_time; /* the topic's, when prepared */
    int64_t now_ms;       /* the clock it was prepared with */
    gr_kerr_t verr;
    gr_validate_result_t vr; /* its strings in req->a or static */
    uint8_t *batch;          /* what to append: in the frame or the job */
    size_t batch_n;
} part_t;

/* What a response waits for: the flushes log.flush.* asks for, and with
 * acks=all on a partition with followers the high watermark passing the
 * batch (Kafka's DelayedProduce, bounded by the request's timeout_ms).
 * Heap-allocated because the request may be aborted (connection gone)
 * while fsyncs are in flight. */
struct flush_wait;

typedef struct ack_part {
    gr_partition_waiter_t w; /* first: ack_wake casts back */
    struct flush_wait *fw;
    part_resp_t *prs;
    int64_t required; /* the high watermark that acknowledges it */
    bool waiting;
} ack_part_t;

typedef struct flush_wait {
    gr_req_t *req; /* NULL once aborted */
    int pending;   /* flushes and acks outstanding, 1 while set up */
    bool failed;
    gr_broker_t *b;
    gr_timer_t timer; /* the request's timeout_ms, once acks wait */
    bool timing;
    int nacks, acks_cap;
    ack_part_t acks[];
} flush_wait_t;

static void
fw_release(flush_wait_t *fw)
{
    if (--fw->pending > 0)
        return;
    if (fw->timing)
        gr_timer_stop(fw->b->loop, &fw->timer);
    if (fw->req != NULL) {
        if (fw->failed) {
            /* appended but not made durable as configured: fail the
             * partitions that waited, the client will retry */
            gr_produce_response_t *rs = fw->req->resp;
            for (int32_t i = 0; i < rs->responses_cnt; i++)
                for (int32_t k = 0; k < rs->responses[i].partition_responses_cnt;
                     k++) {
                    gr_produce_response_partition_produce_response_t *p =
                        &rs->responses[i].partition_responses[k];
                    if (p->error_code == GR_KERR_NONE && p->base_offset >= 0)
                        p->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
                }
        }
        gr_req_reply(fw->req);
    }
    free(fw);
}

static void
flush_done(gr_log_t *l, gr_err_t err, void *arg)
{
    flush_wait_t *fw = arg;
    (void)l;
    if (err != 0)
        fw->failed = true;
    fw_release(fw);
}

/* One ack answered (err), no longer waiting. */
static void
ack_end(ack_part_t *ap, gr_kerr_t err)
{
    gr_partition_ack_unwait(&ap->w);
    ap->waiting = false;
    if (err != GR_KERR_NONE)
        ap->prs->error_code = err;
    fw_release(ap->fw);
}

/* partition layer: the high watermark moved, the ISR changed, or p is no
 * longer led here (w->p NULL). Kafka's checkEnoughReplicasReachOffset. */
static void
ack_wake(gr_partition_waiter_t *w, size_t bytes)
{
    ack_part_t *ap = (ack_part_t *)w;
    gr_partition_t *p = w->p;
    const int32_t *max;
    int nmax;
    (void)bytes;

    if (p == NULL || p->repl == NULL) {
        ack_end(ap, GR_KERR_NOT_LEADER_OR_FOLLOWER);
        return;
    }
    if (p->high_watermark < ap->required)
        return;
    gr_partition_maximal_isr(p, &max, &nmax);
    ack_end(ap, nmax >= p->repl->min_isr
                    ? GR_KERR_NONE
                    : GR_KERR_NOT_ENOUGH_REPLICAS_AFTER_APPEND);
}

static void
ack_timeout(gr_loop_t *loop, gr_timer_t *t)
{
    flush_wait_t *fw = t->data;
    int n = fw->nacks;
    (void)loop;
    fw->timing = false;
    fw->pending++; /* held while the acks go */
    for (int i = 0; i < n; i++)
        if (fw->acks[i].waiting) {
            GR_LOG_DEBUG("produce to %s-%d: acks=all timed out below the "
                         "high watermark %lld (needs %lld)",
                         fw->acks[i].w.p->topic->name, fw->acks[i].w.p->id,
                         (long long)fw->acks[i].w.p->high_watermark,
                         (long long)fw->acks[i].required);
            ack_end(&fw->acks[i], GR_KERR_REQUEST_TIMED_OUT);
        }
    fw_release(fw);
}

/* The request is gone (or needs no answer): the acks stop waiting. */
static void
fw_abandon(flush_wait_t *fw)
{
    fw->req = NULL;
    if (fw->timing)
        gr_timer_stop(fw->b->loop, &fw->timer);
    fw->timing = false;
    fw->pending++;
    for (int i = 0; i < fw->nacks; i++)
        if (fw->acks[i].waiting)
            ack_end(&fw->acks[i], GR_KERR_NONE);
    fw_release(fw);
}

static void
flush_abort(gr_req_t *req)
{
    fw_abandon(req->owner); /* flush_done frees it if a flush is out */
}

static int
add_record(void *arg, const gr_batch_hdr_t *h, const gr_record_t *r)
{
    (void)h;
    gr_batch_builder_add(arg, r->timestamp, &r->key, &r->value, r->headers_cnt,
                         r->headers, r->headers_len);
    return 0;
}

/* Rebuilds the batches of buf with another codec (the topic's
 * compression.type), keeping records, timestamps, headers and producer
 * fields. */
static gr_kerr_t
recompress(const uint8_t *buf, size_t n, int codec, size_t max_bytes,
           gr_buf_t *scratch, gr_buf_t *out)
{
    size_t pos = 0;
    while (pos < n) {
        gr_batch_hdr_t h;
        gr_batch_builder_t bb;
        gr_kerr_t err;
        size_t before = out->len;
        gr_batch_hdr_parse(buf + pos, &h);
        gr_batch_builder_init(&bb, codec,
                              (int16_t)(h.attributes & ~GR_ATTR_CODEC_MASK),
                              h.producer_id, h.producer_epoch,
                              h.base_sequence);
        err = gr_batch_foreach_record(buf + pos, gr_batch_size(&h), scratch,
                                      max_bytes, add_record, &bb);
        if (err == GR_KERR_NONE) {
            int64_t maxts = h.max_timestamp;
            if (gr_batch_builder_finish(&bb, 0, out) != 0)
                err = GR_KERR_UNKNOWN_SERVER_ERROR;
            else /* keep the validated maxTimestamp (LogAppendTime too) */
                gr_batch_set_max_timestamp(out->ptr + before, maxts);
        }
        gr_batch_builder_fini(&bb);
        if (err != GR_KERR_NONE)
            return err;
        /* the CRC covers maxTimestamp: recompute */
        gr_batch_crc_stamp(out->ptr + before, out->len - before);
        pos += gr_batch_size(&h);
    }
    return GR_KERR_NONE;
}

/* Whether any batch of buf has a codec other than `codec`. */
static bool
needs_recompression(const uint8_t *buf, size_t n, int codec)
{
    size_t pos = 0;
    while (pos + GR_BATCH_HEADER_SIZE <= n) {
        gr_batch_hdr_t h;
        gr_batch_hdr_parse(buf + pos, &h);
        if (gr_batch_codec(&h) != codec)
            return true;
        pos += gr_batch_size(&h);
    }
    return false;
}

/* A refused partition as Kafka's PartitionResponse: offsets and times
 * unknown (-1); msg (or NULL) answered from v8. */
static void
set_error(gr_req_t *req, part_resp_t *prs, gr_kerr_t err, const char *msg)
{
    prs->error_code = err;
    prs->base_offset = -1;
    prs->log_append_time_ms = -1;
    prs->log_start_offset = -1;
    if (msg && req->version >= 8)
        prs->error_message = gr_str_c(msg);
}

/* An error of the append itself (stage 6): Kafka's processFailedRecord
 * answers the partition's log start offset, but appendToLocalLog passes
 * CORRUPT_MESSAGE and MESSAGE_TOO_LARGE on without it. */
static void
set_append_error(gr_req_t *req, gr_partition_t *p, part_resp_t *prs,
                 gr_kerr_t err, const char *msg)
{
    set_error(req, prs, err, msg);
    if (err != GR_KERR_CORRUPT_MESSAGE && err != GR_KERR_MESSAGE_TOO_LARGE &&
        err != GR_KERR_RECORD_LIST_TOO_LARGE)
        prs->log_start_offset = gr_log_start_offset(p->log);
}

/* A validation failure. Records rejected one by one (KIP-467: Kafka's
 * RecordValidationException, the one error of the append with a message)
 * are listed from v8, so the client fails only those and retries the
 * others of the batch. */
static void
set_validation_error(gr_req_t *req, gr_partition_t *p, part_resp_t *prs,
                     gr_kerr_t err, const gr_validate_result_t *vr)
{
    set_append_error(req, p, prs, err,
                     vr->nrecord_errors > 0 ? vr->message : NULL);
    if (req->version < 8 || vr->record_errors == NULL)
        return;
    prs->record_errors = gr_arena_alloc(
        req->a, (size_t)vr->nrecord_errors * sizeof(*prs->record_errors));
    if (prs->record_errors == NULL)
        return;
    for (int32_t i = 0; i < vr->nrecord_errors; i++) {
        prs->record_errors[i].batch_index = vr->record_errors[i].index;
        prs->record_errors[i].batch_index_error_message =
            gr_str_c(vr->record_errors[i].message);
    }
    prs->record_errors_cnt = vr->nrecord_errors;
}

static const uint8_t *
records(const part_t *pt, size_t *n)
{
    *n = pt->pd->records.len > 0 ? (size_t)pt->pd->records.len : 0;
    return pt->pd->records.ptr;
}

/* Stage 1 (KafkaApis.handleProduceRequest, before the partitions): NONE,
 * or the error every partition is answered with (*msg: Kafka's message
 * for it, or NULL). Kafka reads the first batch of each partition until
 * one is transactional (RequestUtils.hasTransactionalRecords); a size or
 * magic field it cannot take on the way throws, failing the request. */
static gr_kerr_t
first_look(gr_req_t *req, const gr_produce_request_t *rq, const char **msg)
{
    char why[128];
    *msg = NULL;
    for (int32_t i = 0; i < rq->topic_data_cnt; i++) {
        const gr_produce_request_topic_produce_data_t *td = &rq->topic_data[i];
        for (int32_t k = 0; k < td->partition_data_cnt; k++) {
            const gr_produce_request_partition_produce_data_t *pd =
                &td->partition_data[k];
            size_t n = pd->records.len > 0 ? (size_t)pd->records.len : 0;
            int r = gr_records_first_transactional(pd->records.ptr, n, why,
                                                   sizeof why);
            if (r < 0) {
                GR_LOG_DEBUG("produce from %s refused: partition %d: %s",
                             gr_req_peer(req), pd->index, why);
                *msg = gr_arena_printf(req->a, "%s", why);
                return GR_KERR_CORRUPT_MESSAGE;
            }
            if (r == 0)
                continue;
            if (gr_str_is_null(&rq->transactional_id)) {
                GR_LOG_DEBUG("produce from %s refused: transactional records "
                             "without a transactional id",
                             gr_req_peer(req));
                return GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
            }
            /* WRITE on the transactional id */
            if (!gr_authz(req, GR_RES_TRANSACTIONAL_ID, &rq->transactional_id,
                          GR_OP_WRITE))
                return GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
            return GR_KERR_NONE;
        }
    }
    return GR_KERR_NONE;
}

/* Stage 2 (KafkaApis, per partition): the topic and partition, then the
 * records' shape. NONE, or UNKNOWN_SERVER_ERROR when Kafka fails the whole
 * request (a codec id that does not exist, read below v7). */
static gr_kerr_t
check_partition(gr_req_t *req, part_t *pt)
{
    char why[160];
    size_t n;
    const uint8_t *buf = records(pt, &n);
    int magic = gr_records_magic(buf, n);
    gr_kerr_t err;

    if (pt->t == NULL && req->version >= 13) {
        set_error(req, pt->prs, GR_KERR_UNKNOWN_TOPIC_ID, NULL);
        return GR_KERR_NONE;
    }
    /* WRITE on the topic, known or not (Kafka checks before it looks) */
    {
        gr_str_t name = pt->t != NULL ? gr_str_c(pt->t->name) : pt->td->name;
        if (!gr_authz(req, GR_RES_TOPIC, &name, GR_OP_WRITE)) {
            set_error(req, pt->prs, GR_KERR_TOPIC_AUTHORIZATION_FAILED, NULL);
            return GR_KERR_NONE;
        }
    }
    if (pt->t == NULL || pt->pd->index < 0 || pt->pd->index >= pt->t->nparts) {
        set_error(req, pt->prs, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION, NULL);
        return GR_KERR_NONE;
    }
    if (req->version < 3 && (magic == 0 || magic == 1)) {
        /* converted and checked at the append (Kafka never checked the
         * shape below v3) */
        pt->legacy = true;
        pt->size = n;
        pt->pending = true;
        return GR_KERR_NONE;
    }
    err = gr_records_check_produce(buf, n, req->version, &pt->size, why,
                                   sizeof why);
    if (err == GR_KERR_UNKNOWN_SERVER_ERROR) {
        GR_LOG_DEBUG("produce to %s-%d from %s refused as a whole: %s",
                     pt->t->name, pt->pd->index, gr_req_peer(req), why);
        return err;
    }
    if (err != GR_KERR_NONE) {
        GR_LOG_DEBUG("produce to %s-%d from %s rejected: %s (%s)", pt->t->name,
                     pt->pd->index, gr_req_peer(req), gr_kerr_name(err), why);
        set_error(req, pt->prs, err, NULL);
        return GR_KERR_NONE;
    }
    pt->pending = true;
    return GR_KERR_NONE;
}

/* Stage 3 (ReplicaManager.handleProduceAppend): the producer of each
 * pending batch. NONE, or the error that fails the whole request (*msg:
 * Kafka's message, or NULL): a batch too short for its producer fields
 * (Kafka reads past it), two transactional producers. */
static gr_kerr_t
find_producers(gr_req_t *req, part_t *parts, int32_t np, const char **msg)
{
    gr_pid_t first = GR_PID_NONE;
    *msg = NULL;
    for (int32_t i = 0; i < np; i++) {
        part_t *pt = &parts[i];
        int64_t id;
        int16_t epoch;
        bool txn;
        size_t n;
        if (!pt->pending || pt->legacy)
            continue;
        if (gr_records_producer(records(pt, &n), pt->size, &id, &epoch, &txn) !=
            0) {
            GR_LOG_DEBUG("produce from %s refused as a whole: the batch to "
                         "%s-%d is too short for its producer fields",
                         gr_req_peer(req), pt->t->name, pt->pd->index);
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        }
        if (id < 0 || !txn)
            continue;
        pt->txn = true;
        pt->pid = (gr_pid_t){ id, epoch };
        if (first.id >= 0 && (first.id != id || first.epoch != epoch)) {
            *msg = "Transactional records contained more than one producer ID";
            GR_LOG_DEBUG("produce from %s refused as a whole: %s",
                         gr_req_peer(req), *msg);
            return GR_KERR_INVALID_PRODUCER_ID_MAPPING;
        }
        first = pt->pid;
    }
    return GR_KERR_NONE;
}

/* A transactional partition that is not in its transaction, answered as
 * Kafka's ReplicaManager.postVerificationCallback words it. */
static void
txn_refuse(gr_req_t *req, part_t *pt, gr_kerr_t err)
{
    const char *msg = NULL;
    GR_LOG_DEBUG("produce to %s-%d from %s: producer %lld epoch %d: %s",
                 pt->t->name, pt->pd->index, gr_req_peer(req),
                 (long long)pt->pid.id, pt->pid.epoch, gr_kerr_name(err));
    if (err == GR_KERR_INVALID_TXN_STATE) {
        msg = "Partition was not added to the transaction";
    } else if (err == GR_KERR_NETWORK_EXCEPTION ||
               err == GR_KERR_COORDINATOR_LOAD_IN_PROGRESS ||
               err == GR_KERR_COORDINATOR_NOT_AVAILABLE ||
               err == GR_KERR_NOT_COORDINATOR ||
               (err == GR_KERR_CONCURRENT_TRANSACTIONS && req->version < 12)) {
        /* v12+ retries CONCURRENT_TRANSACTIONS as it is */
        msg = gr_arena_printf(req->a,
                              "Unable to verify the partition has been added "
                              "to the transaction. Underlying error: %s",
                              gr_kerr_name(err));
        err = GR_KERR_NOT_ENOUGH_REPLICAS;
    }
    set_error(req, pt->prs, err, msg);
    pt->pending = false;
}

/* Stage 4: the pending transactional partitions must be in the
 * transaction (see the file header). Partitions where the producer's
 * transaction is open at its epoch need no question to the coordinator;
 * the others are asked about together. */
static void
check_txn(gr_req_t *req, const gr_produce_request_t *rq, part_t *parts,
          int32_t np)
{
    gr_txn_tp_t *tps = gr_arena_alloc(req->a, (size_t)(np + 1) * sizeof(*tps));
    int32_t *idx = gr_arena_alloc(req->a, (size_t)(np + 1) * sizeof(*idx));
    gr_kerr_t *errs = gr_arena_alloc(req->a, (size_t)(np + 1) * sizeof(*errs));
    gr_pid_t pid = GR_PID_NONE;
    gr_kerr_t err;
    int nask = 0;

    for (int32_t i = 0; i < np; i++) {
        part_t *pt = &parts[i];
        bool ask;
        if (!pt->pending || !pt->txn)
            continue;
        if (tps == NULL || idx == NULL || errs == NULL) {
            txn_refuse(req, pt, GR_KERR_UNKNOWN_SERVER_ERROR);
            continue;
        }
        err = gr_txn_verify_start(pt->t->parts[pt->pd->index], pt->pid, &ask);
        if (err != GR_KERR_NONE) {
            txn_refuse(req, pt, err);
            continue;
        }
        if (!ask)
            continue;
        pid = pt->pid; /* one producer: find_producers */
        tps[nask].topic = gr_str_c(pt->t->name);
        tps[nask].partition = pt->pd->index;
        idx[nask++] = i;
    }
    if (nask == 0)
        return;
    if (req->version >= 12) {
        err = gr_txn_add_partitions(req->broker->txn, &rq->transactional_id,
                                    pid, tps, nask, 2);
        for (int i = 0; i < nask; i++)
            errs[i] = err;
    } else {
        err = gr_txn_verify_partitions(req->broker->txn, &rq->transactional_id,
                                       pid, tps, nask, errs);
        if (err != GR_KERR_NONE)
            for (int i = 0; i < nask; i++)
                errs[i] = err;
    }
    for (int i = 0; i < nask; i++) {
        err = gr_txn_verify_error(errs[i], req->version >= 11);
        if (err != GR_KERR_NONE)
            txn_refuse(req, &parts[idx[i]], err);
    }
}

/* The producer's sequence and epoch for the batch buf (Kafka's
 * ProducerAppendInfo). NONE to append; an error (answered); or NONE with
 * *dup when the batch is a duplicate of one of the producer's last five,
 * answered with the original's offsets and timestamp and not appended
 * again. */
static gr_kerr_t
check_producer(gr_req_t *req, gr_partition_t *p, const uint8_t *buf,
               part_resp_t *prs, bool *dup)
{
    gr_batch_hdr_t h;
    gr_pcheck_t chk;
    gr_kerr_t err;

    *dup = false;
    if (p->pstate == NULL) {
        set_error(req, prs, GR_KERR_KAFKA_STORAGE_ERROR, NULL);
        return GR_KERR_KAFKA_STORAGE_ERROR;
    }
    gr_batch_hdr_parse(buf, &h);
    err = gr_pstate_check(p->pstate, &h, &chk);
    if (err != GR_KERR_NONE) {
        GR_LOG_DEBUG("produce to %s-%d: producer %lld epoch %d seq %d: %s (%s)",
                     p->topic->name, p->id, (long long)h.producer_id,
                     h.producer_epoch, h.base_sequence, gr_kerr_name(err),
                     chk.message ? chk.message : "");
        set_append_error(req, p, prs, err, NULL);
        return err;
    }
    if (chk.duplicate) {
        GR_LOG_DEBUG("produce to %s-%d: duplicate batch of producer %lld "
                     "(seq %d) at offset %lld",
                     p->topic->name, p->id, (long long)h.producer_id,
                     h.base_sequence, (long long)chk.dup_first_offset);
        prs->base_offset = chk.dup_first_offset;
        prs->log_append_time_ms = chk.dup_timestamp;
        prs->log_start_offset = gr_log_start_offset(p->log);
        *dup = true;
    }
    return GR_KERR_NONE;
}

/* --- preparing batches (see the file header) */

/* A batch's LogValidator work, on the loop or on the worker. In: the batch
 * (the frame's, or the job's copy) and how to check it; out: the verdict
 * and, for a conversion or recompression, the batch to append. */
typedef struct prep {
    uint8_t *buf;
    size_t n;
    bool legacy;
    int codec;             /* compression.type: a codec, or -1 (producer) */
    gr_validate_opts_t vo; /* max_decompressed and scratch: prepare()'s */
    gr_kerr_t err;
    gr_validate_result_t vr;
    gr_buf_t out; /* converted or recompressed; empty: buf */
} prep_t;

/* Does pp's work within limit bytes of inflated or converted records,
 * with scratch to inflate into and a for the record errors. On the loop
 * (on_loop) it returns 1 instead, the batch unchanged, when the work
 * belongs on the worker: a conversion, a recompression, or records that
 * inflate past limit while the request's bound is larger (more_left).
 * Otherwise 0, pp->err the partition's error. Any thread. */
static int
prepare(prep_t *pp, size_t limit, bool on_loop, bool more_left,
        gr_buf_t *scratch, gr_arena_t *a)
{
    gr_validate_opts_t vo = pp->vo;
    bool recode = !pp->legacy && pp->codec >= 0 &&
                  needs_recompression(pp->buf, pp->n, pp->codec);

    if (on_loop && (pp->legacy || recode))
        return 1;
    vo.max_decompressed = limit;
    vo.scratch = scratch;
    if (pp->legacy) {
        /* Kafka's LogValidator converts with the topic's codec, or the
         * wrappers' */
        pp->err =
            gr_legacy_to_v2(pp->buf, pp->n, &vo, pp->codec, &pp->out, &pp->vr);
    } else {
        pp->err = gr_records_validate(pp->buf, pp->n, &vo, a, &pp->vr);
        if (on_loop && more_left && pp->vr.over_limit)
            return 1;
        if (pp->err == GR_KERR_NONE && recode) {
            pp->err = recompress(pp->buf, pp->vr.valid_bytes, pp->codec, limit,
                                 scratch, &pp->out);
            if (pp->err != GR_KERR_NONE)
                pp->vr.message = "Recompressing the batch failed.";
        }
    }
    /* UnifiedLog: a batch converted or recompressed is checked against
     * max.message.bytes again (RecordTooLargeException) */
    if (pp->err == GR_KERR_NONE && pp->out.len > (size_t)vo.max_message_bytes) {
        snprintf(pp->vr.why, sizeof pp->vr.why,
                 "Message batch size is %zu bytes in append to partition "
                 "%s-%d which exceeds the maximum configured size of %d.",
                 pp->out.len, vo.topic ? vo.topic : "?", vo.partition,
                 vo.max_message_bytes);
        pp->vr.message = pp->vr.why;
        pp->err = GR_KERR_MESSAGE_TOO_LARGE;
    }
    return 0;
}

/* The work of a request's partitions that could not be prepared on the
 * loop, for the inflation worker. The worker owns it from submission to
 * done(); then the loop frees it. */
typedef struct job_part {
    int32_t idx; /* in the request's parts */
    prep_t pp;   /* pp.buf: a copy, the job's */
} job_part_t;

typedef struct inflate_job {
    gr_broker_t *b;
    gr_req_t *req; /* the request, its copy once detached, or NULL */
    part_t *parts; /* req's (loop thread only) */
    int32_t np;
    size_t left;   /* of the request's bound on inflated records */
    gr_arena_t *a; /* the worker's: topic names, record errors */
    /* detached (the client went away first): what finish() needs of the
     * request, in da (loop thread only) */
    gr_arena_t *da;
    gr_req_t dreq;
    gr_produce_request_t drq;
    int n;
    job_part_t jp[];
} inflate_job_t;

static void
job_free(inflate_job_t *job)
{
    for (int i = 0; i < job->n; i++) {
        free(job->jp[i].pp.buf);
        gr_buf_fini(&job->jp[i].pp.out);
    }
    gr_arena_destroy(job->a);
    gr_arena_destroy(job->da);
    free(job);
}

/* On the worker: each batch in turn, within what is left of the bound; the
 * scratch is the job's and goes with it. */
static void
inflate_work(void *arg)
{
    inflate_job_t *job = arg;
    gr_buf_t scratch = GR_BUF_INIT;
    for (int i = 0; i < job->n; i++) {
        prep_t *pp = &job->jp[i].pp;
        prepare(pp, job->left, false, false, &scratch, job->a);
        job->left -= pp->vr.inflated < job->left ? pp->vr.inflated : job->left;
        scratch.len = 0;
    }
    gr_buf_fini(&scratch);
}

/* Takes the verdict of pp into pt; its strings are copied to req->a when
 * they are the job's (copy_errors) or pp's own (the message). The batch to
 * append stays where it is (frame or job) until the append. */
static void
take(gr_req_t *req, part_t *pt, prep_t *pp, bool copy_errors)
{
    gr_validate_result_t *vr = &pt->vr;
    pt->prepared = true;
    pt->verr = pp->err;
    *vr = pp->vr;
    if (pp->vr.message != NULL)
        vr->message = gr_arena_printf(req->a, "%s", pp->vr.message);
    if (copy_errors && vr->record_errors != NULL) {
        int32_t n = vr->nrecord_errors;
        gr_record_error_t *e = gr_arena_alloc(req->a, (size_t)n * sizeof(*e));
        for (int32_t i = 0; e != NULL && i < n; i++) {
            e[i].index = pp->vr.record_errors[i].index;
            e[i].message =
                gr_arena_printf(req->a, "%s", pp->vr.record_errors[i].message);
        }
        vr->record_errors = e; /* NULL: the count alone, as without arena */
    }
    if (pp->out.len > 0) {
        pt->batch = pp->out.ptr;
        pt->batch_n = pp->out.len;
    } else {
        pt->batch = pp->buf;
        pt->batch_n = vr->valid_bytes;
    }
}

static int finish(gr_req_t *req, part_t *parts, int32_t np, bool deferred);

/* Back on the loop: the verdicts into the request's partitions, then
 * stages 4-6. */
static void
inflate_done(gr_loop_t *loop, void *arg)
{
    inflate_job_t *job = arg;
    (void)loop;
    if (job->req != NULL && job->b->stopping) {
        GR_LOG_INFO("produce from %s: shutting down; its records are not "
                    "appended",
                    gr_req_peer(job->req));
    } else if (job->req != NULL) {
        for (int i = 0; i < job->n; i++)
            take(job->req, &job->parts[job->jp[i].idx], &job->jp[i].pp, true);
        finish(job->req, job->parts, job->np, true);
    }
    job_free(job);
}

/* A copy of what finish() reads of the request, in a (the request is
 * freed once its abort callback returns): the producer's acks and
 * transactional id, each pending partition's topic and index, and the
 * batches prepared on the loop (the frame's). Answers go to copies of
 * the partition responses that nobody reads. 0 or -1 (out of memory). */
static int
detach(inflate_job_t *job, gr_req_t *req, gr_arena_t *a)
{
    const gr_produce_request_t *rq = req->body;
    part_t *parts =
        gr_arena_memdup(a, job->parts, (size_t)job->np * sizeof(*parts));
    if (parts == NULL)
        return -1;
    job->dreq = *req;
    job->dreq.a = a;
    job->dreq.conn = NULL;
    job->dreq.resp = NULL;
    job->dreq.body = &job->drq;
    gr_produce_request_init(&job->drq);
    job->drq.acks = rq->acks;
    job->drq.transactional_id = rq->transactional_id;
    if (rq->transactional_id.len > 0 &&
        (job->drq.transactional_id.ptr =
             gr_arena_memdup(a, rq->transactional_id.ptr,
                             (size_t)rq->transactional_id.len)) == NULL)
        return -1;
    for (int32_t i = 0; i < job->np; i++) {
        part_t *pt = &parts[i];
        gr_produce_request_topic_produce_data_t *td;
        gr_produce_request_partition_produce_data_t *pd;
        if (!pt->pending)
            continue;
        td = gr_arena_memdup(a, pt->td, sizeof(*td));
        pd = gr_arena_memdup(a, pt->pd, sizeof(*pd));
        pt->prs = gr_arena_zalloc(a, sizeof(*pt->prs));
        if (td == NULL || pd == NULL || pt->prs == NULL)
            return -1;
        td->partition_data = NULL;
        td->partition_data_cnt = 0;
        if (td->name.len > 0 &&
            (td->name.ptr = gr_arena_memdup(a, td->name.ptr,
                                            (size_t)td->name.len)) == NULL)
            return -1;
        pd->records.ptr = NULL;
        pd->records.len = 0;
        pt->td = td;
        pt->pd = pd;
        if (!pt->prepared)
            continue; /* the job's: its strings and batch come with it */
        pt->vr.record_errors = NULL; /* for a response nobody reads */
        if (pt->vr.message != NULL &&
            (pt->vr.message = gr_arena_printf(a, "%s", pt->vr.message)) == NULL)
            return -1;
        if (pt->verr == GR_KERR_NONE &&
            (pt->batch = gr_arena_memdup(a, pt->batch, pt->batch_n)) == NULL)
            return -1;
    }
    job->parts = parts;
    job->req = &job->dreq;
    return 0;
}

/* The client went away while the worker has its batches: Kafka appends
 * what it has read all the same (an acks=0 producer may well close at
 * once), so the job takes over and appends without answering. */
static void
inflate_abort(gr_req_t *req)
{
    inflate_job_t *job = req->owner;
    job->da = gr_arena_new(4096);
    if (job->da == NULL || detach(job, req, job->da) != 0) {
        GR_LOG_WARN("produce from %s: out of memory; the records of a "
                    "request whose client went away are dropped",
                    gr_req_peer(req));
        job->req = NULL; /* inflate_done frees it */
    }
}

/* How the batch of pt is checked, from its topic's settings (now: the
 * clock of LogAppendTime and the timestamp bounds). */
static void
prep_init(gr_req_t *req, part_t *pt, prep_t *pp, int64_t now)
{
    const gr_topic_settings_t *ts = gr_topic_settings(req->broker->conf, pt->t);
    size_t n;
    memset(pp, 0, sizeof *pp);
    pp->buf = (uint8_t *)records(pt, &n); /* the frame: ours to patch */
    pp->n = pt->size;
    pp->legacy = pt->legacy;
    pp->codec =
        ts->compression == GR_TOPIC_COMPRESSION_PRODUCER ? -1 : ts->compression;
    pp->vo.produce_version = req->version;
    pp->vo.max_message_bytes = ts->max_message_bytes;
    pp->vo.log_append_time = ts->log_append_time;
    pp->vo.now_ms = now;
    pp->vo.compacted = ts->cleanup_compact;
    pp->vo.ts_before_max_ms = ts->ts_before_max_ms;
    pp->vo.ts_after_max_ms = ts->ts_after_max_ms;
    pp->vo.topic = pt->t->name;
    pp->vo.partition = pt->pd->index;
    pt->log_append_time = ts->log_append_time;
    pt->now_ms = now;
}

/* Between stages 3 and 4: prepares the pending partitions' batches, on
 * the loop where that is cheap and on the worker otherwise, then goes on
 * with stages 4-6 (at once, or when the worker is done). */
static int
prepare_all(gr_req_t *req, part_t *parts, int32_t np)
{
    const gr_produce_request_t *rq = req->body;
    gr_broker_t *b = req->broker;
    size_t left = b->max_decompressed;
    inflate_job_t *job = NULL;
    int64_t now = gr_loop_wall_ms(b->loop);

    if (rq->acks != 0 && rq->acks != 1 && rq->acks != -1)
        return finish(req, parts, np, false); /* stage 5 refuses them all */
    for (int32_t i = 0; i < np; i++) {
        part_t *pt = &parts[i];
        prep_t pp;
        size_t limit = left < INLINE_BYTES ? left : INLINE_BYTES;
        job_part_t *jp;
        if (!pt->pending)
            continue;
        prep_init(req, pt, &pp, now);
        if (prepare(&pp, limit, true, left > limit, &b->scratch, req->a) == 0) {
            take(req, pt, &pp, false);
            left -= pp.vr.inflated < left ? pp.vr.inflated : left;
            continue;
        }
        if (job == NULL) {
            job = calloc(1, sizeof(*job) + (size_t)np * sizeof(job->jp[0]));
            if (job == NULL || (job->a = gr_arena_new(4096)) == NULL) {
                free(job);
                return gr_req_close(req, "out of memory");
            }
            job->b = b;
            job->req = req;
            job->parts = parts;
            job->np = np;
        }
        /* the worker's own copies: the frame goes if the connection does */
        jp = &job->jp[job->n];
        jp->idx = i;
        jp->pp = pp;
        jp->pp.buf = malloc(pp.n ? pp.n : 1);
        jp->pp.vo.topic = gr_arena_printf(job->a, "%s", pt->t->name);
        if (jp->pp.buf == NULL || jp->pp.vo.topic == NULL) {
            free(jp->pp.buf);
            job_free(job);
            return gr_req_close(req, "out of memory");
        }
        memcpy(jp->pp.buf, pp.buf, pp.n);
        job->n++;
    }
    if (job == NULL)
        return finish(req, parts, np, false);
    job->left = left;
    if (b->inflate_workers == NULL ||
        gr_workers_submit(b->inflate_workers, inflate_work, inflate_done,
                          job) != 0) {
        /* no worker to be had: the work is done here, late but right */
        GR_LOG_WARN("produce from %s: no inflation worker; its batches are "
                    "checked on the loop",
                    gr_req_peer(req));
        job->req = NULL;
        inflate_work(job);
        for (int i = 0; i < job->n; i++)
            take(req, &parts[job->jp[i].idx], &job->jp[i].pp, true);
        finish(req, parts, np, false);
        job_free(job);
        return 0;
    }
    return gr_req_defer(req, inflate_abort, job);
}

/* Stage 6: appends one partition's batch. Returns 1 when the response
 * must wait for a flush of the partition's log. */
static flush_wait_t *
fw_new(gr_req_t *req, int32_t np)
{
    flush_wait_t *fw = calloc(1, sizeof(*fw) +
                                     (size_t)np * sizeof(fw->acks[0]));
    if (fw == NULL)
        return NULL;
    fw->pending = 1; /* released after the loop over partitions */
    fw->b = req->broker;
    fw->acks_cap = np;
    return fw;
}

static int
append_partition(gr_req_t *req, const gr_produce_request_t *rq,
                 const part_t *pt, int32_t np, flush_wait_t **fw)
{
    gr_broker_t *b = req->broker;
    gr_topic_t *t = pt->t;
    part_resp_t *prs = pt->prs;
    gr_partition_t *p = t->parts[pt->pd->index];
    const gr_topic_settings_t *ts;
    const gr_validate_result_t *vr;
    gr_partition_append_args_t args = { .self_id = b->node_id,
                                        .now_ms = pt->now_ms,
                                        .caller_flushes = rq->acks != 0 };
    gr_partition_append_result_t res;
    gr_kerr_t kerr;
    uint8_t *buf;
    size_t n;
    bool dup;

    if (t->internal) {
        GR_LOG_DEBUG("produce to %s-%d from %s refused: internal topic",
                     t->name, p->id, gr_req_peer(req));
        set_error(req, prs, GR_KERR_INVALID_TOPIC_EXCEPTION, NULL);
        return 0;
    }
    /* asked before anything else of the partition, as Kafka does; the
     * append checks it again */
    kerr = gr_partition_check_leader(p, b->node_id);
    if (kerr != GR_KERR_NONE) {
        set_error(req, prs, kerr, NULL);
        return 0;
    }
    ts = gr_topic_settings(b->conf, t);
    if (p->repl != NULL)
        gr_repl_min_isr(b, p); /* the ack rules' copy */
    /* Kafka's effectiveMinIsr: never more than the partition's replicas
     * (min.insync.replicas 2 on one replica takes acks=all) */
    if (rq->acks == -1 &&
        p->nisr < (ts->min_insync_replicas < p->nreplicas
                       ? ts->min_insync_replicas
                       : p->nreplicas)) {
        GR_LOG_DEBUG("produce to %s-%d refused: %d in-sync replicas, "
                     "min.insync.replicas %d",
                     t->name, p->id, p->nisr, ts->min_insync_replicas);
        set_append_error(req, p, prs, GR_KERR_NOT_ENOUGH_REPLICAS, NULL);
        return 0;
    }

    /* the batch as prepare() left it (every pending partition was) */
    GR_ASSERT(pt->prepared);
    buf = pt->batch;
    n = pt->batch_n;
    vr = &pt->vr;
    if (pt->verr != GR_KERR_NONE) {
        GR_LOG_DEBUG("produce to %s-%d from %s rejected: %s (%s)", t->name,
                     p->id, gr_req_peer(req), gr_kerr_name(pt->verr),
                     vr->message ? vr->message : "");
        set_validation_error(req, p, prs, pt->verr, vr);
        return 0;
    }
    if (vr->producer_id >= 0) {
        /* idempotence: sequences and epochs per producer (Kafka's
         * ProducerAppendInfo); a duplicate of one of the last five batches
         * is answered with its original offsets and not appended again */
        if (check_producer(req, p, buf, prs, &dup) != GR_KERR_NONE || dup)
            return 0;
    }

    kerr = gr_partition_append(p, buf, n, &args, &res);
    if (kerr != GR_KERR_NONE) {
        set_error(req, prs, kerr, NULL);
        return 0;
    }
    prs->base_offset = res.first_offset;
    prs->log_append_time_ms = pt->log_append_time ? pt->now_ms : -1;
    prs->log_start_offset = res.log_start_offset;
    if (rq->acks == -1 && p->repl != NULL &&
        p->high_watermark < gr_log_end_offset(p->log)) {
        /* acks=all with followers: answered once the high watermark
         * passes the batch (a delayed produce) */
        ack_part_t *ap;
        if (*fw == NULL && (*fw = fw_new(req, np)) == NULL)
            return 0;
        GR_ASSERT((*fw)->nacks < (*fw)->acks_cap);
        ap = &(*fw)->acks[(*fw)->nacks++];
        ap->fw = *fw;
        ap->prs = prs;
        ap->required = gr_log_end_offset(p->log);
        ap->waiting = true;
        ap->w.wake = ack_wake;
        gr_partition_ack_wait(p, &ap->w);
        (*fw)->pending++;
    }
    if (res.flush_due && rq->acks != 0) {
        /* acks=1 and all are answered once the flush is done */
        if (*fw == NULL && (*fw = fw_new(req, np)) == NULL)
            return 0;
        if (gr_log_flush(p->log, flush_done, *fw) == 0)
            (*fw)->pending++;
        return 1;
    }
    return 0;
}

/* Every partition of the response answered with err (msg: from v8), as
 * Kafka's ProduceRequest.getErrorResponse. */
static int
fail_request(gr_req_t *req, const gr_produce_request_t *rq, part_t *parts,
             int32_t np, gr_kerr_t err, const char *msg)
{
    if (rq->acks == 0)
        return gr_req_close(req, "produce refused as a whole with acks=0");
    for (int32_t i = 0; i < np; i++) {
        set_error(req, parts[i].prs, err, msg);
        parts[i].prs->record_errors_cnt = 0;
    }
    return gr_req_reply(req);
}

int
gr_api_produce(gr_req_t *req)
{
    const gr_produce_request_t *rq = req->body;
    gr_produce_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    part_t *parts;
    int32_t np = 0, k = 0;
    const char *msg;
    gr_kerr_t err;

    rs->responses = gr_arena_zalloc(req->a, (size_t)(rq->topic_data_cnt > 0
                                                         ? rq->topic_data_cnt
                                                         : 0) *
                                                sizeof(*rs->responses));
    if (rq->topic_data_cnt > 0 && rs->responses == NULL)
        return gr_req_close(req, "out of memory");
    rs->responses_cnt = rq->topic_data_cnt > 0 ? rq->topic_data_cnt : 0;
    for (int32_t i = 0; i < rs->responses_cnt; i++)
        np += rq->topic_data[i].partition_data_cnt > 0
                  ? rq->topic_data[i].partition_data_cnt
                  : 0;
    parts = gr_arena_zalloc(req->a, (size_t)(np + 1) * sizeof(*parts));
    if (parts == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < rs->responses_cnt; i++) {
        const gr_produce_request_topic_produce_data_t *td = &rq->topic_data[i];
        gr_produce_response_topic_produce_response_t *tr = &rs->responses[i];
        gr_topic_t *t = req->version >= 13
                            ? gr_cluster_topic_by_id(b->cluster, &td->topic_id)
                            : gr_cluster_topic(b->cluster, &td->name);
        int32_t n = td->partition_data_cnt > 0 ? td->partition_data_cnt : 0;

        tr->name = td->name;
        tr->topic_id = td->topic_id; /* v13+ */
        tr->partition_responses = gr_arena_alloc(
            req->a, (size_t)n * sizeof(*tr->partition_responses));
        if (n && tr->partition_responses == NULL)
            return gr_req_close(req, "out of memory");
        tr->partition_responses_cnt = n;
        for (int32_t j = 0; j < n; j++, k++) {
            part_resp_t *prs = &tr->partition_responses[j];
            gr_produce_response_partition_produce_response_init(prs);
            prs->index = td->partition_data[j].index;
            prs->base_offset = -1;
            parts[k].td = td;
            parts[k].pd = &td->partition_data[j];
            parts[k].prs = prs;
            parts[k].t = t;
            if (t != NULL)
                parts[k].topic_id = t->id;
        }
    }

    err = first_look(req, rq, &msg);
    if (err != GR_KERR_NONE)
        return fail_request(req, rq, parts, np, err, msg);
    for (int32_t i = 0; i < np; i++)
        if (check_partition(req, &parts[i]) != GR_KERR_NONE)
            return fail_request(req, rq, parts, np,
                                GR_KERR_UNKNOWN_SERVER_ERROR, NULL);
    err = find_producers(req, parts, np, &msg);
    if (err != GR_KERR_NONE)
        return fail_request(req, rq, parts, np, err, msg);
    return prepare_all(req, parts, np);
}

/* After the worker: each pending partition's topic as it is now; one
 * deleted (or deleted and made again) meanwhile is unknown. */
static void
refind(gr_req_t *req, part_t *parts, int32_t np)
{
    gr_cluster_t *c = req->broker->cluster;
    for (int32_t i = 0; i < np; i++) {
        part_t *pt = &parts[i];
        gr_topic_t *t;
        if (!pt->pending)
            continue;
        t = req->version >= 13 ? gr_cluster_topic_by_id(c, &pt->td->topic_id)
                               : gr_cluster_topic(c, &pt->td->name);
        if (t == NULL || !gr_uuid_eq(&t->id, &pt->topic_id) ||
            pt->pd->index >= t->nparts) {
            GR_LOG_DEBUG("produce from %s: partition %d: its topic went away "
                         "while the records were checked",
                         gr_req_peer(req), pt->pd->index);
            set_error(req, pt->prs,
                      req->version >= 13 ? GR_KERR_UNKNOWN_TOPIC_ID
                                         : GR_KERR_UNKNOWN_TOPIC_OR_PARTITION,
                      NULL);
            pt->pending = false;
            continue;
        }
        pt->t = t;
    }
}

/* Stages 4-6 and the answer, once the batches are prepared (deferred: the
 * request was held for the worker). */
static int
finish(gr_req_t *req, part_t *parts, int32_t np, bool deferred)
{
    const gr_produce_request_t *rq = req->body;
    flush_wait_t *fw = NULL;

    if (deferred)
        refind(req, parts, np);
    /* Kafka skips the check below v12 with
     * transaction.partition.verification.enable=false (ReplicaManager) */
    if (!gr_str_is_null(&rq->transactional_id) &&
        (req->version >= 12 ||
         gr_conf_bool(req->broker->conf,
                      GR_CONF_TRANSACTION_PARTITION_VERIFICATION_ENABLE)))
        check_txn(req, rq, parts, np);
    for (int32_t i = 0; i < np; i++) {
        if (!parts[i].pending)
            continue;
        if (rq->acks != 0 && rq->acks != 1 && rq->acks != -1)
            set_error(req, parts[i].prs, GR_KERR_INVALID_REQUIRED_ACKS, NULL);
        else
            append_partition(req, rq, &parts[i], np, &fw);
    }
    if (rq->acks == 0 || req->conn == NULL) {
        /* no response (none asked, or nobody left to read it: detached);
         * any flush just runs */
        if (fw != NULL) {
            fw_abandon(fw);
            fw_release(fw);
        }
        return req->conn != NULL ? gr_req_noreply(req) : 0;
    }
    if (GR_FAULT("produce.response", NULL)) {
        /* test point: the appends are done, the answer is lost (the client
         * retries; idempotence must catch the duplicate) */
        GR_LOG_WARN("fault produce.response: dropping the Produce response "
                    "to %s",
                    gr_req_peer(req));
        if (fw != NULL) {
            fw_abandon(fw);
            fw_release(fw);
        }
        return gr_req_close(req, "fault: produce response dropped");
    }
    if (fw != NULL) {
        fw->req = req;
        gr_req_defer(req, flush_abort, fw);
        if (fw->nacks > 0 && fw->pending > 1) {
            gr_timer_init(&fw->timer, ack_timeout, fw);
            gr_timer_start(req->broker->loop, &fw->timer,
                           rq->timeout_ms > 0 ? rq->timeout_ms : 0);
            fw->timing = true;
        }
        fw_release(fw);
        return 0;
    }
    return gr_req_reply(req);
}
