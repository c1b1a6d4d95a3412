/*
 * ListTransactions (api key 66): the transactional ids the coordinator
 * (src/txn/) holds, filtered by state names (unknown names are echoed in
 * unknown_state_filters and match nothing), producer ids and, from v1,
 * a minimum running time (duration_filter, -1: none) and, from v2, a
 * regular expression the whole transactional id must match (KIP-1152;
 * Java's syntax, see core/regex.h; an invalid one is
 * INVALID_REGULAR_EXPRESSION), as Kafka's
 * TransactionStateManager.listTransactionStates.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "core/regex.h"
#include "txn/txn.h"

#include <stdio.h>

typedef gr_list_transactions_response_transaction_state_t state_t;

typedef struct collect {
    gr_arena_t *a;
    state_t *v;
    int32_t n, cap;
    bool oom;
    const gr_regex_t *pattern; /* NULL: any id */
    gr_req_t *req;
} collect_t;

static void
add_state(void *arg, const char *txn_id, int64_t producer_id, const char *state)
{
    collect_t *c = arg;
    if (c->pattern && !gr_regex_matches(c->pattern, txn_id, strlen(txn_id)))
        return;
    /* the transactional ids the client may DESCRIBE */
    if (!gr_authz_cstr(c->req, GR_RES_TRANSACTIONAL_ID, txn_id,
                       GR_OP_DESCRIBE))
        return;
    if (c->n == c->cap) {
        int32_t cap = c->cap ? c->cap * 2 : 16;
        state_t *v = gr_arena_alloc(c->a, (size_t)cap * sizeof(*v));
        if (v == NULL) {
            c->oom = true;
            return;
        }
        if (c->n)
            memcpy(v, c->v, (size_t)c->n * sizeof(*v));
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n].transactional_id.ptr =
        gr_arena_strndup(c->a, txn_id, strlen(txn_id));
    c->v[c->n].transactional_id.len = (int32_t)strlen(txn_id);
    c->v[c->n].producer_id = producer_id;
    c->v[c->n].transaction_state = gr_str_c(state);
    if (c->v[c->n].transactional_id.ptr == NULL)
        c->oom = true;
    c->n++;
}

int
gr_api_list_transactions(gr_req_t *req)
{
    const gr_list_transactions_request_t *rq = req->body;
    gr_list_transactions_response_t *rs = req->resp;
    int32_t ns = rq->state_filters_cnt > 0 ? rq->state_filters_cnt : 0;
    collect_t c = { req->a, NULL, 0, 0, false, NULL, req };
    uint32_t states = 0;
    bool unknown_only = false;
    gr_regex_t re;
    char why[160];

    /* transactional_id_pattern is a v2 field: null before; "" is no
     * filter, as Kafka's */
    if (rq->transactional_id_pattern.len > 0) {
        if (gr_regex_compile(&re, &rq->transactional_id_pattern, why,
                             sizeof why) != 0) {
            GR_LOG_INFO("ListTransactions from %s: pattern %.*s: %s",
                        gr_req_peer(req), rq->transactional_id_pattern.len,
                        rq->transactional_id_pattern.ptr, why);
            rs->error_code = GR_KERR_INVALID_REGULAR_EXPRESSION;
            return gr_req_reply(req);
        }
        c.pattern = &re;
    }

    rs->unknown_state_filters =
        gr_arena_zalloc(req->a, (size_t)(ns + 1) * sizeof(gr_str_t));
    if (rs->unknown_state_filters == NULL)
        return gr_req_close(req, "out of memory");
    rs->unknown_state_filters_cnt = 0;
    for (int32_t i = 0; i < ns; i++) {
        int s = gr_txn_state_from_name(&rq->state_filters[i]);
        if (s < 0)
            rs->unknown_state_filters[rs->unknown_state_filters_cnt++] =
                rq->state_filters[i];
        else
            states |= 1u << s;
    }
    /* only unknown names: nothing matches (Kafka's filter is then an
     * empty set of states, which it treats as "any" only when no name
     * was given) */
    unknown_only = ns > 0 && states == 0;
    rs->error_code = GR_KERR_NONE;
    if (!unknown_only)
        rs->error_code = gr_txn_list(
            req->broker->txn, states, rq->producer_id_filters,
            rq->producer_id_filters_cnt > 0 ? rq->producer_id_filters_cnt : 0,
            rq->duration_filter, add_state, &c);
    if (c.pattern)
        gr_regex_free(&re);
    if (c.oom)
        return gr_req_close(req, "out of memory");
    rs->transaction_states = c.v;
    rs->transaction_states_cnt = c.n;
    return gr_req_reply(req);
}
