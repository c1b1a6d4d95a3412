/*
 * ElectLeaders (api key 43): preferred (0) or unclean (1) leader election.
 * On a single broker every partition's leader is its only replica, the
 * preferred one and alive, so no election is ever needed: each partition
 * asked for is ELECTION_NOT_NEEDED (or UNKNOWN_TOPIC_OR_PARTITION), and a
 * request for all partitions (null) lists every topic with no partitions,
 * as Kafka's controller leaves out those that need nothing. A timeout of 0
 * or less has run out before the election starts: REQUEST_TIMED_OUT for
 * the request and each partition (without a message), as Kafka's
 * controller answers a past deadline.
 */
#include "api/api_int.h"
#include "api/authz.h"

typedef gr_elect_leaders_response_replica_election_result_t eresult_t;

/* Every topic, each with no partitions to report (the null request). */
static int
every_topic(gr_req_t *req, gr_elect_leaders_response_t *rs)
{
    gr_cluster_t *c = req->broker->cluster;
    int32_t n = 0;

    rs->replica_election_results = gr_arena_zalloc(
        req->a,
        (size_t)(c->ntopics ? c->ntopics : 1) * sizeof(eresult_t));
    if (rs->replica_election_results == NULL)
        return -1;
    for (const gr_topic_t *t = c->topics; t; t = t->lnext) {
        eresult_t *r = &rs->replica_election_results[n++];
        r->topic = gr_str_c(t->name);
        r->partition_result = NULL;
        r->partition_result_cnt = 0;
    }
    rs->replica_election_results_cnt = n;
    return 0;
}

int
gr_api_elect_leaders(gr_req_t *req)
{
    const gr_elect_leaders_request_t *rq = req->body;
    gr_elect_leaders_response_t *rs = req->resp;
    gr_cluster_t *c = req->broker->cluster;
    int32_t n = rq->topic_partitions_cnt > 0 ? rq->topic_partitions_cnt : 0;
    gr_kerr_t all = GR_KERR_NONE; /* the error of every partition */
    const char *all_msg = NULL;

    /* election_type is v1+; the decoder gives 0 (preferred) before. An
     * unknown one fails the controller's request (InvalidRequestException
     * "Unknown election type N"): the request's getErrorResponse gives it
     * to the request and to each partition asked for */
    /* ALTER on the cluster first (ControllerApis.handleElectLeaders) */
    if (!gr_authz_cluster(req, GR_OP_ALTER)) {
        all = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        all_msg = "Request ElectLeaders needs ALTER permission.";
    } else if (rq->election_type != 0 && rq->election_type != 1) {
        all = GR_KERR_INVALID_REQUEST;
        all_msg = gr_arena_printf(req->a, "Unknown election type %d",
                                  rq->election_type);
    } else if (rq->timeout_ms <= 0) {
        all = GR_KERR_REQUEST_TIMED_OUT;
    }
    rs->error_code = all; /* top-level: v1+ */
    if (rq->topic_partitions_cnt < 0 && all == GR_KERR_NONE)
        return every_topic(req, rs) != 0 ? gr_req_close(req, "out of memory")
                                         : gr_req_reply(req);
    rs->replica_election_results = gr_arena_zalloc(
        req->a, (size_t)n * sizeof(*rs->replica_election_results));
    if (n && rs->replica_election_results == NULL)
        return gr_req_close(req, "out of memory");
    rs->replica_election_results_cnt = n;
    for (int32_t i = 0; i < n; i++) {
        const gr_elect_leaders_request_topic_partitions_t *q =
            &rq->topic_partitions[i];
        eresult_t *r = &rs->replica_election_results[i];
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
            /* the messages of Kafka's ReplicationControlManager.electLeader
             * and ApiError(ELECTION_NOT_NEEDED) */
            if (all != GR_KERR_NONE) {
                pr->error_code = all;
                pr->error_message = all_msg ? gr_str_c(all_msg) : GR_STR_NULL;
            } else if (t == NULL) {
                pr->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
                pr->error_message = gr_str_c(gr_arena_printf(
                    req->a, "No such topic as %.*s", q->topic.len,
                    q->topic.ptr));
            } else if (id < 0 || id >= t->nparts) {
                pr->error_code = GR_KERR_UNKNOWN_TOPIC_OR_PARTITION;
                pr->error_message = gr_str_c(gr_arena_printf(
                    req->a, "No such partition as %s-%d", t->name, id));
            } else {
                pr->error_code = GR_KERR_ELECTION_NOT_NEEDED;
                pr->error_message =
                    gr_str_c(gr_kerr_msg(GR_KERR_ELECTION_NOT_NEEDED));
            }
        }
    }
    return gr_req_reply(req);
}
