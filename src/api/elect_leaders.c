/*
 * ElectLeaders (api key 43): preferred (0) or unclean (1) leader election.
 * On a single broker every partition's leader is its only replica, the
 * preferred one and alive, so no election is ever needed: each partition
 * asked for is ELECTION_NOT_NEEDED (or UNKNOWN_TOPIC_OR_PARTITION), and a
 * request for all partitions (null) lists none, as Kafka leaves out those
 * that need nothing. A timeout of 0 or less has run out before the
 * election starts: REQUEST_TIMED_OUT for the request and each partition
 * (without a message), as Kafka's controller answers a past deadline.
 */
#include "api/api_int.h"

int
gr_api_elect_leaders(gr_req_t *req)
{
    const gr_elect_leaders_request_t *rq = req->body;
    gr_elect_leaders_response_t *rs = req->resp;
    gr_cluster_t *c = req->broker->cluster;
    int32_t n = rq->topic_partitions_cnt > 0 ? rq->topic_partitions_cnt : 0;

    /* election_type is v1+; the decoder gives 0 (preferred) before */
    if (rq->election_type != 0 && rq->election_type != 1) {
        rs->error_code = GR_KERR_INVALID_REQUEST; /* top-level: v1+ */
        return gr_req_reply(req);
    }
    rs->replica_election_results = gr_arena_zalloc(
        req->a, (size_t)n * sizeof(*rs->replica_election_results));
    if (n && rs->replica_election_results == NULL)
        return gr_req_close(req, "out of memory");
    rs->replica_election_results_cnt = n;
    if (rq->timeout_ms <= 0)
        rs->error_code = GR_KERR_REQUEST_TIMED_OUT; /* top-level: v1+ */
    for (int32_t i = 0; i < n; i++) {
        const gr_elect_leaders_request_topic_partitions_t *q =
            &rq->topic_partitions[i];
        gr_elect_leaders_response_replica_election_result_t *r =
            &rs->replica_election_results[i];
        gr_topic_t *t = gr_cluster_topic(c, &q->topic);
        int32_t np = q->partitions_cnt > 0 ? q->partitions_cnt : 0;

        r->topic = q->topic;
        r->partition_result =
            gr_arena_zalloc(req->a, (size_t)np * sizeof(*r->partition_result));
        if (np && r->partition_result == NULL)
            return gr_req_close(req, "out of memory");
        r->partition_result_cnt = np;
        for (int32_t k = 0; k < np; k++) {
            gr_elect_leaders_response_partition_result_t *pr =
                &r->partition_result[k];
            int32_t id = q->partitions[k];
            pr->partition_id = id;
            if (rq->timeout_ms <= 0) {
                pr->error_code = GR_KERR_REQUEST_TIMED_OUT;
                pr->error_message = GR_STR_NULL;
            } else if (t == NULL || id < 0 || id >= t->nparts) {
                pr->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
                pr->error_message = gr_str_c("The partition does not exist.");
            } else {
                pr->error_code = GR_KERR_ELECTION_NOT_NEEDED;
                pr->error_message = gr_str_c("Leader election not needed for "
                                             "topic partition.");
            }
        }
    }
    return gr_req_reply(req);
}
