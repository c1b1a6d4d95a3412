/*
 * DescribeTransactions (api key 65): the state of transactional ids as the
 * coordinator (src/txn/) holds them: state name, timeout, start time,
 * producer id and epoch, and the partitions of the open transaction
 * grouped by topic. Errors are per id (TRANSACTIONAL_ID_NOT_FOUND, ...).
 * An id listed twice is described twice, as Kafka does: the second time
 * is a copy of the first, and the answer is bounded as it grows
 * (gr_api_answer_max).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"
#include "txn/txn.h"

typedef gr_describe_transactions_response_transaction_state_t state_t;
typedef gr_describe_transactions_response_topic_data_t topic_data_t;

/* info's partitions (sorted by topic) grouped into topics. */
static int
fill_topics(gr_req_t *req, const gr_txn_info_t *info, state_t *st)
{
    st->topics = gr_arena_zalloc(req->a, (size_t)(info->nparts + 1) *
                                             sizeof(*st->topics));
    if (st->topics == NULL)
        return -1;
    st->topics_cnt = 0;
    for (int i = 0; i < info->nparts;) {
        topic_data_t *td;
        int j = i;
        while (j < info->nparts &&
               gr_str_eq(&info->parts[j].topic, &info->parts[i].topic))
            j++;
        /* the topics the client may DESCRIBE */
        if (!gr_authz(req, GR_RES_TOPIC, &info->parts[i].topic,
                      GR_OP_DESCRIBE)) {
            i = j;
            continue;
        }
        td = &st->topics[st->topics_cnt++];
        td->topic = info->parts[i].topic;
        td->partitions =
            gr_arena_alloc(req->a, (size_t)(j - i) * sizeof(int32_t));
        if (td->partitions == NULL)
            return -1;
        td->partitions_cnt = j - i;
        for (int k = i; k < j; k++)
            td->partitions[k - i] = info->parts[k].partition;
        i = j;
    }
    return 0;
}

int
gr_api_describe_transactions(gr_req_t *req)
{
    const gr_describe_transactions_request_t *rq = req->body;
    gr_describe_transactions_response_t *rs = req->resp;
    int32_t n = rq->transactional_ids_cnt > 0 ? rq->transactional_ids_cnt : 0;
    uint64_t bytes = 0, max = gr_api_answer_max(req);
    int32_t *firsts;

    rs->transaction_states =
        gr_arena_zalloc(req->a, (size_t)(n + 1) * sizeof(state_t));
    firsts = gr_topics_first_of(req->a, n ? &rq->transactional_ids[0] : NULL,
                                sizeof(rq->transactional_ids[0]), n);
    if (rs->transaction_states == NULL || firsts == NULL)
        return gr_req_close(req, "out of memory");
    rs->transaction_states_cnt = n;
    for (int32_t i = 0; i < n; i++) {
        state_t *st = &rs->transaction_states[i];
        gr_txn_info_t info;
        gr_kerr_t kerr;

        if (firsts[i] != i) {
            *st = rs->transaction_states[firsts[i]]; /* listed before */
        } else {
            /* DESCRIBE on the transactional id */
            kerr = !gr_authz(req, GR_RES_TRANSACTIONAL_ID,
                             &rq->transactional_ids[i], GR_OP_DESCRIBE)
                       ? GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                       : gr_txn_describe(req->broker->txn,
                                         &rq->transactional_ids[i], req->a,
                                         &info);
            gr_describe_transactions_response_transaction_state_init(st);
            st->transactional_id = rq->transactional_ids[i];
            st->error_code = kerr;
            /* an id in error keeps the response's defaults, as Kafka's
             * TransactionState with only its error code set: state "",
             * producer id, epoch, timeout and start time 0 */
            st->transaction_state = gr_str_c("");
            if (kerr == GR_KERR_NONE) {
                st->transaction_state = gr_str_c(info.state);
                st->transaction_timeout_ms = info.timeout_ms;
                st->transaction_start_time_ms = info.start_ms;
                st->producer_id = info.producer_id;
                st->producer_epoch = info.producer_epoch;
                if (fill_topics(req, &info, st) != 0)
                    return gr_req_close(req, "out of memory");
            }
        }
        bytes += gr_describe_transactions_response_transaction_state_size(
            st, req->version);
        if (bytes > max)
            return gr_api_answer_refuse(req, bytes);
    }
    return gr_req_reply(req);
}
