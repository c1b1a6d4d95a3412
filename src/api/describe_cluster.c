/*
 * DescribeCluster (api key 60): the cluster id, the controller and the
 * brokers, with each broker's endpoint on the listener the request came
 * in on (as Metadata). Only broker endpoints are served (v1 endpoint_type
 * 1); asking this broker for controllers is MISMATCHED_ENDPOINT_TYPE, for
 * another type UNSUPPORTED_ENDPOINT_TYPE.
 */
#include "api/api_int.h"
#include "api/authz.h"


int
gr_api_describe_cluster(gr_req_t *req)
{
    const gr_describe_cluster_request_t *rq = req->body;
    gr_describe_cluster_response_t *rs = req->resp;
    gr_cluster_t *c = req->broker->cluster;
    const char *listener = gr_req_listener_name(req);
    gr_str_t cl = gr_str_c(GR_ACL_CLUSTER_NAME);
    int n = 0;

    /* endpoint_type is a v1 field; the decoder gives 1 (brokers) before.
     * As Kafka's AuthHelper.computeDescribeClusterResponse: a type it does
     * not know (EndpointType.fromId: 1 broker, 2 controller) is
     * UNSUPPORTED_ENDPOINT_TYPE, a controller one MISMATCHED_ENDPOINT_TYPE
     * (INVALID_REQUEST at v0, which cannot ask), each with nothing else
     * set: cluster id "", controller -1, no brokers */
    if (rq->endpoint_type != 1 && rq->endpoint_type != 2) {
        rs->error_code = req->version == 0 ? GR_KERR_INVALID_REQUEST
                                           : GR_KERR_UNSUPPORTED_ENDPOINT_TYPE;
        rs->error_message = gr_str_c(gr_arena_printf(
            req->a, "Unsupported endpoint type %d", rq->endpoint_type));
        return gr_req_reply(req);
    }
    if (rq->endpoint_type != 1) {
        rs->error_code = req->version == 0 ? GR_KERR_INVALID_REQUEST
                                           : GR_KERR_MISMATCHED_ENDPOINT_TYPE;
        rs->error_message = gr_str_c("The request was sent to an endpoint of "
                                     "type BROKER, but we wanted an endpoint "
                                     "of type CONTROLLER");
        return gr_req_reply(req);
    }
    rs->endpoint_type = 1;
    rs->cluster_id = gr_str_c(c->cluster_id);
    rs->controller_id = c->controller_id;
    rs->brokers =
        gr_arena_zalloc(req->a, (size_t)c->nnodes * sizeof(*rs->brokers));
    if (c->nnodes && rs->brokers == NULL)
        return gr_req_close(req, "out of memory");
    for (int i = 0; i < c->nnodes; i++) {
        const gr_endpoint_t *ep = gr_node_endpoint(&c->nodes[i], listener);
        if (ep == NULL)
            continue;
        rs->brokers[n].broker_id = c->nodes[i].id;
        rs->brokers[n].host = gr_str_c(ep->host);
        rs->brokers[n].port = ep->port;
        rs->brokers[n].rack =
            c->nodes[i].rack ? gr_str_c(c->nodes[i].rack) : GR_STR_NULL;
        n++;
    }
    rs->brokers_cnt = n;
    rs->cluster_authorized_operations =
        !rq->include_cluster_authorized_operations ? INT32_MIN
        : gr_authz_cluster(req, GR_OP_DESCRIBE)
            ? gr_authz_ops(req, GR_RES_CLUSTER, &cl)
            : 0;
    return gr_req_reply(req);
}
