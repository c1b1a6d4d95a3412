/*
 * Produce (api key 0): validates each partition's records as Kafka's
 * LogValidator does (src/proto/records.c), converts legacy message sets
 * (v0-v2) to v2 batches, recompresses when the topic's compression.type
 * asks for another codec, and appends to the partition log. Errors are per
 * partition; nothing of a partition whose records are bad is appended.
 * acks=0 gets no response; otherwise the answer goes out once the data is
 * as durable as configured (the page cache, or an fsync when
 * flush.messages is reached). A single broker is the whole ISR, so acks=-1
 * needs only min.insync.replicas <= 1. v13 names topics by id (KIP-516):
 * an unknown id is UNKNOWN_TOPIC_ID. v12+ is transaction version 2
 * (KIP-890 part 2, Kafka's ADD_PARTITION operation): a transactional
 * producer sent no AddPartitionsToTxn, so the request's partitions join
 * its transaction here first, in one transition; when that fails they are
 * answered with the error, mapped as Kafka's ReplicaManager maps it, and
 * nothing is appended to them.
 */
#include "api/api_int.h"
#include "api/topics.h"
#include "cluster/topic_config.h"
#include "core/crc32c.h"
#include "core/time.h"
#include "core/fault.h"
#include "log/log.h"
#include "log/producer_state.h"
#include "proto/records.h"
#include "txn/txn.h"

#include <stdio.h>
#include <stdlib.h>

/* The flushes a response waits for; heap-allocated because the request may
 * be aborted (connection gone) while fsyncs are in flight. */
typedef struct flush_wait {
    gr_req_t *req; /* NULL once aborted */
    int pending;
    bool failed;
} flush_wait_t;

static void
flush_done(gr_log_t *l, gr_err_t err, void *arg)
{
    flush_wait_t *fw = arg;
    (void)l;
    if (err != 0)
        fw->failed = true;
    if (--fw->pending > 0)
        return;
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
flush_abort(gr_req_t *req)
{
    flush_wait_t *fw = req->owner;
    fw->req = NULL; /* flush_done frees it */
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
                gr_put_u64(out->ptr + before + GR_BATCH_OFF_MAX_TS,
                           (uint64_t)maxts);
        }
        gr_batch_builder_fini(&bb);
        if (err != GR_KERR_NONE)
            return err;
        /* the CRC covers maxTimestamp: recompute */
        gr_put_u32(out->ptr + before + GR_BATCH_OFF_CRC,
                   gr_crc32c(out->ptr + before + GR_BATCH_OFF_ATTRIBUTES,
                             out->len - before - GR_BATCH_OFF_ATTRIBUTES));
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

static void
set_error(gr_req_t *req, gr_produce_response_partition_produce_response_t *prs,
          gr_kerr_t err, const char *msg)
{
    prs->error_code = err;
    if (msg && req->version >= 8)
        prs->error_message = gr_str_c(msg);
}

/* A validation failure: from v8 the records rejected one by one (KIP-467),
 * so the client fails only those and retries the others of the batch. */
static void
set_validation_error(gr_req_t *req,
                     gr_produce_response_partition_produce_response_t *prs,
                     gr_kerr_t err, const gr_validate_result_t *vr)
{
    set_error(req, prs, err, vr->message);
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

/* Producer checks of every batch of buf with a producer id. Returns the
 * partition's error; a duplicate sets prs's offsets (error NONE) so the
 * caller appends nothing. */
static gr_kerr_t
check_producer(gr_req_t *req, gr_partition_t *p, const uint8_t *buf,
               size_t n, gr_produce_response_partition_produce_response_t *prs)
{
    size_t pos = 0;
    if (p->pstate == NULL) {
        prs->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
        return prs->error_code;
    }
    while (pos + GR_BATCH_HEADER_SIZE <= n) {
        gr_batch_hdr_t h;
        gr_pcheck_t chk;
        gr_kerr_t err;
        gr_batch_hdr_parse(buf + pos, &h);
        pos += gr_batch_size(&h);
        if (h.producer_id < 0)
            continue;
        err = gr_pstate_check(p->pstate, &h, &chk);
        if (err != GR_KERR_NONE) {
            GR_LOG_DEBUG("produce to %s-%d: producer %lld epoch %d seq %d: %s",
                         p->topic->name, p->id, (long long)h.producer_id,
                         h.producer_epoch, h.base_sequence, gr_kerr_name(err));
            set_error(req, prs, err, chk.message);
            return err;
        }
        if (chk.duplicate) {
            /* Produce carries one batch from v3 on: its original offsets */
            GR_LOG_DEBUG("produce to %s-%d: duplicate batch of producer %lld "
                         "(seq %d) at offset %lld",
                         p->topic->name, p->id, (long long)h.producer_id,
                         h.base_sequence, (long long)chk.dup_first_offset);
            prs->base_offset = chk.dup_first_offset;
            prs->log_start_offset = gr_log_start_offset(p->log);
            return GR_KERR_NONE;
        }
    }
    return GR_KERR_NONE;
}

/* The producer of pd's records when they are transactional (the first
 * batch's header says), for the partitions v12+ adds to the transaction. */
static bool
transactional_pid(const gr_produce_request_partition_produce_data_t *pd,
                  gr_pid_t *pid)
{
    gr_batch_hdr_t h;
    if (pd->records.len < GR_BATCH_HEADER_SIZE ||
        gr_records_magic(pd->records.ptr, (size_t)pd->records.len) != 2)
        return false;
    gr_batch_hdr_parse(pd->records.ptr, &h);
    if (!(h.attributes & GR_ATTR_TRANSACTIONAL) || h.producer_id < 0)
        return false;
    *pid = (gr_pid_t){ h.producer_id, h.producer_epoch };
    return true;
}

/* v12+: the transactional partitions of the request join the producer's
 * transaction (one transition). NONE, or the error every transactional
 * partition is answered with (*msg: its message). */
static gr_kerr_t
add_to_txn(gr_req_t *req, const gr_produce_request_t *rq, const char **msg)
{
    gr_cluster_t *c = req->broker->cluster;
    gr_txn_tp_t *tps;
    gr_pid_t pid = GR_PID_NONE;
    int n = 0, cap = 0;
    gr_kerr_t err;

    *msg = NULL;
    for (int32_t i = 0; i < rq->topic_data_cnt; i++)
        cap += rq->topic_data[i].partition_data_cnt > 0
                   ? rq->topic_data[i].partition_data_cnt
                   : 0;
    tps = gr_arena_alloc(req->a, (size_t)(cap + 1) * sizeof(*tps));
    if (tps == NULL)
        return GR_KERR_UNKNOWN_SERVER_ERROR;
    for (int32_t i = 0; i < rq->topic_data_cnt; i++) {
        const gr_produce_request_topic_produce_data_t *td = &rq->topic_data[i];
        gr_topic_t *t = req->version >= 13
                            ? gr_cluster_topic_by_id(c, &td->topic_id)
                            : gr_cluster_topic(c, &td->name);
        for (int32_t k = 0; t && k < td->partition_data_cnt; k++) {
            const gr_produce_request_partition_produce_data_t *pd =
                &td->partition_data[k];
            if (pd->index < 0 || pd->index >= t->nparts || t->internal ||
                !transactional_pid(pd, &pid))
                continue;
            tps[n].topic = gr_str_c(t->name);
            tps[n++].partition = pd->index;
        }
    }
    if (n == 0)
        return GR_KERR_NONE;
    err = gr_txn_add_partitions(req->broker->txn, &rq->transactional_id, pid,
                                tps, n, 2);
    switch (err) {
    case GR_KERR_NONE:
    case GR_KERR_CONCURRENT_TRANSACTIONS: /* retriable as it is */
        return err;
    case GR_KERR_INVALID_TXN_STATE:
        *msg = "Partition was not added to the transaction";
        return err;
    case GR_KERR_PRODUCER_FENCED:
        return GR_KERR_INVALID_PRODUCER_EPOCH;
    case GR_KERR_COORDINATOR_LOAD_IN_PROGRESS:
    case GR_KERR_COORDINATOR_NOT_AVAILABLE:
    case GR_KERR_NOT_COORDINATOR:
        *msg = gr_arena_printf(req->a,
                               "Unable to verify the partition has been "
                               "added to the transaction. Underlying error: "
                               "%s",
                               gr_kerr_name(err));
        return GR_KERR_NOT_ENOUGH_REPLICAS;
    default:
        return err;
    }
}

/* Appends one partition's records. Returns 1 when the response must wait
 * for a flush of the partition's log. txn_err: a v12+ transactional
 * partition's failure to join the transaction (add_to_txn). */
static int
produce_partition(gr_req_t *req, const gr_produce_request_t *rq,
                  gr_topic_t *t,
                  const gr_produce_request_partition_produce_data_t *pd,
                  gr_produce_response_partition_produce_response_t *prs,
                  flush_wait_t **fw, gr_kerr_t txn_err, const char *txn_msg)
{
    gr_broker_t *b = req->broker;
    const gr_topic_settings_t *ts;
    gr_partition_t *p;
    gr_validate_opts_t vo;
    gr_validate_result_t vr;
    gr_log_append_info_t info;
    gr_kerr_t err;
    uint8_t *buf;
    size_t n;
    gr_err_t rc;
    int magic;

    if (t == NULL && req->version >= 13) {
        prs->error_code = GR_KERR_UNKNOWN_TOPIC_ID;
        return 0;
    }
    if (t == NULL || pd->index < 0 || pd->index >= t->nparts) {
        prs->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
        return 0;
    }
    p = t->parts[pd->index];
    if (p->leader != b->node_id) {
        prs->error_code = GR_KERR_NOT_LEADER_OR_FOLLOWER;
        return 0;
    }
    if (t->internal) {
        set_error(req, prs, GR_KERR_INVALID_TOPIC_EXCEPTION,
                  "Cannot append to an internal topic.");
        return 0;
    }
    if (p->log == NULL || gr_log_offline(p->log)) {
        prs->error_code = GR_KERR_KAFKA_STORAGE_ERROR;
        return 0;
    }
    if (txn_err != GR_KERR_NONE) {
        gr_pid_t pid;
        if (transactional_pid(pd, &pid)) {
            set_error(req, prs, txn_err, txn_msg);
            return 0;
        }
    }
    ts = gr_topic_settings(b->conf, t);
    /* Kafka's effectiveMinIsr: never more than the partition's replicas
     * (min.insync.replicas 2 on one replica takes acks=all) */
    if (rq->acks == -1 &&
        p->nisr < (ts->min_insync_replicas < p->nreplicas
                       ? ts->min_insync_replicas
                       : p->nreplicas)) {
        set_error(req, prs, GR_KERR_NOT_ENOUGH_REPLICAS,
                  "Messages are rejected since there are fewer in-sync "
                  "replicas than required.");
        return 0;
    }

    memset(&vo, 0, sizeof vo);
    vo.produce_version = req->version;
    vo.max_message_bytes = ts->max_message_bytes;
    vo.log_append_time = ts->log_append_time;
    vo.now_ms = gr_wall_ms();
    vo.compacted = ts->cleanup_compact;
    vo.ts_before_max_ms = ts->ts_before_max_ms;
    vo.ts_after_max_ms = ts->ts_after_max_ms;
    vo.max_decompressed = b->max_decompressed;
    vo.scratch = &b->scratch;
    vo.topic = t->name;
    vo.partition = p->id;

    /* the frame is the connection's read buffer: ours to patch in place */
    buf = (uint8_t *)pd->records.ptr;
    n = pd->records.len > 0 ? (size_t)pd->records.len : 0;
    magic = gr_records_magic(buf, n);
    if (req->version < 3 && (magic == 0 || magic == 1)) {
        gr_buf_t *conv = gr_arena_zalloc(req->a, sizeof(*conv));
        err = gr_legacy_to_v2(buf, n, &vo, conv, &vr);
        if (err == GR_KERR_NONE) {
            /* keep the converted batch for the request's lifetime */
            buf = gr_arena_memdup(req->a, conv->ptr, conv->len);
            n = conv->len;
        }
        gr_buf_fini(conv);
        if (err == GR_KERR_NONE && buf == NULL)
            err = GR_KERR_UNKNOWN_SERVER_ERROR;
    } else {
        err = gr_records_validate(buf, n, &vo, req->a, &vr);
    }
    if (err != GR_KERR_NONE) {
        GR_LOG_DEBUG("produce to %s-%d from %s rejected: %s (%s)", t->name,
                     p->id, gr_req_peer(req), gr_kerr_name(err),
                     vr.message ? vr.message : "");
        set_validation_error(req, prs, err, &vr);
        return 0;
    }
    if (vr.producer_id >= 0) {
        /* idempotence: sequences and epochs per producer (Kafka's
         * ProducerAppendInfo); a duplicate of one of the last five batches
         * is answered with its original offsets and not appended again */
        gr_kerr_t perr = check_producer(req, p, buf, n, prs);
        if (perr != GR_KERR_NONE || prs->base_offset >= 0)
            return 0;
    }
    if (ts->compression != GR_TOPIC_COMPRESSION_PRODUCER &&
        needs_recompression(buf, n, ts->compression)) {
        gr_buf_t out = GR_BUF_INIT;
        err = recompress(buf, n, ts->compression, b->max_decompressed,
                         &b->scratch, &out);
        if (err == GR_KERR_NONE) {
            buf = gr_arena_memdup(req->a, out.ptr, out.len);
            n = out.len;
            if (buf == NULL)
                err = GR_KERR_UNKNOWN_SERVER_ERROR;
        }
        gr_buf_fini(&out);
        if (err != GR_KERR_NONE) {
            set_error(req, prs, err, "Recompression failed.");
            return 0;
        }
    }

    rc = gr_log_append(p->log, buf, n, p->leader_epoch, &info);
    if (rc != 0) {
        GR_LOG_ERROR("append to %s-%d failed: %s", t->name, p->id,
                     gr_err_str(rc));
        set_error(req, prs, GR_KERR_KAFKA_STORAGE_ERROR,
                  "The partition's log could not be written.");
        return 0;
    }
    prs->base_offset = info.first_offset;
    prs->log_append_time_ms = ts->log_append_time ? vo.now_ms : -1;
    prs->log_start_offset = info.log_start_offset;
    if (vr.producer_id >= 0 && p->pstate != NULL) {
        /* the batches now carry their offsets */
        size_t pos = 0;
        while (pos + GR_BATCH_HEADER_SIZE <= n) {
            gr_batch_hdr_t h;
            gr_batch_hdr_parse(buf + pos, &h);
            if (h.producer_id >= 0)
                gr_pstate_append(p->pstate, &h, vo.now_ms);
            pos += gr_batch_size(&h);
        }
    }
    gr_partition_appended(b, p, n);
    if (info.flush_due && rq->acks != 0) {
        if (*fw == NULL) {
            *fw = calloc(1, sizeof(**fw));
            if (*fw == NULL)
                return 0;
            (*fw)->pending = 1; /* released after the loop over partitions */
        }
        if (gr_log_flush(p->log, flush_done, *fw) == 0)
            (*fw)->pending++;
        return 1;
    }
    if (info.flush_due)
        gr_log_flush(p->log, NULL, NULL);
    return 0;
}

int
gr_api_produce(gr_req_t *req)
{
    const gr_produce_request_t *rq = req->body;
    gr_produce_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    flush_wait_t *fw = NULL;
    bool bad_acks = rq->acks != 0 && rq->acks != 1 && rq->acks != -1;
    gr_kerr_t txn_err = GR_KERR_NONE;
    const char *txn_msg = NULL;

    rs->responses = gr_arena_zalloc(req->a, (size_t)(rq->topic_data_cnt > 0
                                                         ? rq->topic_data_cnt
                                                         : 0) *
                                                sizeof(*rs->responses));
    if (rq->topic_data_cnt > 0 && rs->responses == NULL)
        return gr_req_close(req, "out of memory");
    rs->responses_cnt = rq->topic_data_cnt > 0 ? rq->topic_data_cnt : 0;
    if (req->version >= 12 && rq->transactional_id.len > 0 && !bad_acks)
        txn_err = add_to_txn(req, rq, &txn_msg);
    for (int32_t i = 0; i < rs->responses_cnt; i++) {
        const gr_produce_request_topic_produce_data_t *td = &rq->topic_data[i];
        gr_produce_response_topic_produce_response_t *tr = &rs->responses[i];
        gr_topic_t *t = req->version >= 13
                            ? gr_cluster_topic_by_id(b->cluster, &td->topic_id)
                            : gr_cluster_topic(b->cluster, &td->name);
        int32_t np = td->partition_data_cnt > 0 ? td->partition_data_cnt : 0;

        tr->name = td->name;
        tr->topic_id = td->topic_id; /* v13+ */
        tr->partition_responses =
            gr_arena_alloc(req->a, (size_t)np * sizeof(*tr->partition_responses));
        if (np && tr->partition_responses == NULL)
            return gr_req_close(req, "out of memory");
        tr->partition_responses_cnt = np;
        for (int32_t k = 0; k < np; k++) {
            gr_produce_response_partition_produce_response_t *prs =
                &tr->partition_responses[k];
            gr_produce_response_partition_produce_response_init(prs);
            prs->index = td->partition_data[k].index;
            prs->base_offset = -1;
            if (bad_acks) {
                prs->error_code = GR_KERR_INVALID_REQUIRED_ACKS;
                continue;
            }
            produce_partition(req, rq, t, &td->partition_data[k], prs, &fw,
                              txn_err, txn_msg);
        }
    }
    if (rq->acks == 0) {
        /* no response; any flush just runs */
        if (fw != NULL && --fw->pending == 0)
            free(fw);
        else if (fw != NULL)
            fw->req = NULL;
        return gr_req_noreply(req);
    }
    if (GR_FAULT("produce.response", NULL)) {
        /* test point: the appends are done, the answer is lost (the client
         * retries; idempotence must catch the duplicate) */
        GR_LOG_WARN("fault produce.response: dropping the Produce response "
                    "to %s",
                    gr_req_peer(req));
        if (fw != NULL && --fw->pending == 0)
            free(fw);
        else if (fw != NULL)
            fw->req = NULL;
        return gr_req_close(req, "fault: produce response dropped");
    }
    if (fw != NULL) {
        fw->req = req;
        gr_req_defer(req, flush_abort, fw);
        if (--fw->pending == 0) {
            gr_req_reply(req);
            free(fw);
        }
        return 0;
    }
    return gr_req_reply(req);
}
