/*
 * WriteTxnMarkers (api key 27): COMMIT or ABORT markers written to the
 * partitions named, as a transaction coordinator asks a partition leader
 * to (Kafka's handleWriteTxnMarkersRequest). Gregor's own coordinator
 * appends its markers in process (src/txn/markers.c); this API serves
 * tools and tests that drive markers by hand. Errors are per partition.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "txn/txn.h"

typedef gr_write_txn_markers_request_writable_txn_marker_t marker_t;
typedef gr_write_txn_markers_response_writable_txn_marker_result_t result_t;
typedef gr_write_txn_markers_response_writable_txn_marker_topic_result_t
    topic_result_t;
typedef gr_write_txn_markers_response_writable_txn_marker_partition_result_t
    part_result_t;

static int
one_marker(gr_req_t *req, const marker_t *m, result_t *r, bool allowed)
{
    gr_broker_t *b = req->broker;
    int32_t nt = m->topics_cnt > 0 ? m->topics_cnt : 0;

    r->producer_id = m->producer_id;
    r->topics = gr_arena_zalloc(req->a, (size_t)(nt + 1) * sizeof(*r->topics));
    if (r->topics == NULL)
        return -1;
    r->topics_cnt = nt;
    for (int32_t i = 0; i < nt; i++) {
        topic_result_t *tr = &r->topics[i];
        int32_t np = m->topics[i].partition_indexes_cnt > 0
                         ? m->topics[i].partition_indexes_cnt
                         : 0;
        tr->name = m->topics[i].name;
        tr->partitions =
            gr_arena_zalloc(req->a, (size_t)(np + 1) * sizeof(part_result_t));
        if (tr->partitions == NULL)
            return -1;
        tr->partitions_cnt = np;
        for (int32_t k = 0; k < np; k++) {
            int32_t idx = m->topics[i].partition_indexes[k];
            gr_partition_t *p =
                gr_cluster_partition(b->cluster, &tr->name, idx);
            tr->partitions[k].partition_index = idx;
            tr->partitions[k].error_code =
                !allowed    ? GR_KERR_CLUSTER_AUTHORIZATION_FAILED
                : p == NULL ? GR_KERR_UNKNOWN_TOPIC_OR_PARTITION
                          : gr_txn_write_marker(
                                b->txn, p,
                                (gr_pid_t){ m->producer_id, m->producer_epoch },
                                m->transaction_result, m->coordinator_epoch);
        }
    }
    return 0;
}

int
gr_api_write_txn_markers(gr_req_t *req)
{
    const gr_write_txn_markers_request_t *rq = req->body;
    gr_write_txn_markers_response_t *rs = req->resp;
    int32_t n = rq->markers_cnt > 0 ? rq->markers_cnt : 0;
    /* ALTER or CLUSTER_ACTION on the cluster, else every partition
     * CLUSTER_AUTHORIZATION_FAILED */
    bool allowed = gr_authz_cluster(req, GR_OP_ALTER) ||
                   gr_authz_cluster(req, GR_OP_CLUSTER_ACTION);

    rs->markers = gr_arena_zalloc(req->a, (size_t)(n + 1) * sizeof(result_t));
    if (rs->markers == NULL)
        return gr_req_close(req, "out of memory");
    rs->markers_cnt = n;
    for (int32_t i = 0; i < n; i++)
        if (one_marker(req, &rq->markers[i], &rs->markers[i], allowed) != 0)
            return gr_req_close(req, "out of memory");
    return gr_req_reply(req);
}
