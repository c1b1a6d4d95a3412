/*
 * ConsumerGroupHeartbeat (api key 68, KIP-848): a member of a consumer
 * group joins (epoch 0), heartbeats with its owned partitions, or leaves
 * (-1; a static member's -2 keeps its assignment for its session). The
 * coordinator (src/group/consumer.c) computes the target assignment and
 * the member's next epoch; this file maps the fields. v1 adds
 * SubscribedTopicRegex and makes the client name the member (KIP-1082):
 * an empty member id is INVALID_REQUEST from v1 on (consumer_group_
 * heartbeat.schema).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

#include <string.h>

/* Kafka's clientHost: the peer address as Java prints it, "/127.0.0.1". */
static gr_str_t
client_host(gr_req_t *req)
{
    const char *peer = gr_req_peer(req);
    const char *colon = strrchr(peer, ':');
    size_t n = colon ? (size_t)(colon - peer) : strlen(peer);
    char *h;
    if (n >= 2 && peer[0] == '[' && peer[n - 1] == ']') {
        peer++;
        n -= 2;
    }
    h = gr_arena_printf(req->a, "/%.*s", (int)n, peer);
    return h ? gr_str_c(h) : GR_STR("");
}

static gr_str_t
cs(const char *s)
{
    return s ? gr_str_c(s) : GR_STR_NULL;
}

int
gr_api_consumer_group_heartbeat(gr_req_t *req)
{
    const gr_consumer_group_heartbeat_request_t *rq = req->body;
    gr_consumer_group_heartbeat_response_t *rs = req->resp;
    gr_cg_partitions_t *owned = NULL;
    gr_cg_heartbeat_result_t r;
    gr_cg_heartbeat_args_t a;

    /* READ on the group, DESCRIBE on every subscribed topic name */
    if (!gr_authz(req, GR_RES_GROUP, &rq->group_id, GR_OP_READ)) {
        rs->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        return gr_req_reply(req);
    }
    for (int32_t i = 0; i < rq->subscribed_topic_names_cnt; i++)
        if (!gr_authz(req, GR_RES_TOPIC, &rq->subscribed_topic_names[i],
                      GR_OP_DESCRIBE)) {
            rs->error_code = GR_KERR_TOPIC_AUTHORIZATION_FAILED;
            return gr_req_reply(req);
        }
    if (rq->topic_partitions_cnt > 0) {
        owned = gr_arena_zalloc(req->a, sizeof(*owned) *
                                            (size_t)rq->topic_partitions_cnt);
        if (owned == NULL)
            return gr_req_close(req, "out of memory");
        for (int32_t i = 0; i < rq->topic_partitions_cnt; i++) {
            owned[i].topic_id = rq->topic_partitions[i].topic_id;
            owned[i].partitions = rq->topic_partitions[i].partitions;
            owned[i].npartitions = rq->topic_partitions[i].partitions_cnt > 0
                                       ? rq->topic_partitions[i].partitions_cnt
                                       : 0;
        }
    }
    memset(&a, 0, sizeof a);
    a.version = req->version;
    a.group_id = rq->group_id;
    a.member_id = rq->member_id;
    a.member_epoch = rq->member_epoch;
    a.instance_id = rq->instance_id;
    a.rack_id = rq->rack_id;
    a.rebalance_timeout_ms = rq->rebalance_timeout_ms;
    a.topic_names = rq->subscribed_topic_names;
    a.ntopic_names = rq->subscribed_topic_names_cnt;
    a.topic_regex = rq->subscribed_topic_regex; /* "1+": null before */
    a.server_assignor = rq->server_assignor;
    a.owned = owned;
    a.nowned = rq->topic_partitions_cnt;
    a.client_id = req->hdr.client_id;
    a.client_host = client_host(req);
    gr_cg_heartbeat(req->broker->groups, &a, req->a, &r);

    rs->error_code = r.error;
    rs->error_message = cs(r.message);
    rs->member_id = cs(r.member_id);
    rs->member_epoch = r.member_epoch;
    rs->heartbeat_interval_ms = r.heartbeat_interval_ms;
    rs->assignment_null = !r.has_assignment;
    if (r.has_assignment) {
        gr_consumer_group_heartbeat_response_topic_partitions_t *tp =
            gr_arena_zalloc(req->a, sizeof(*tp) * (size_t)(r.nassignment + 1));
        if (tp == NULL)
            return gr_req_close(req, "out of memory");
        for (int32_t i = 0; i < r.nassignment; i++) {
            tp[i].topic_id = r.assignment[i].topic_id;
            tp[i].partitions = r.assignment[i].partitions;
            tp[i].partitions_cnt = r.assignment[i].npartitions;
        }
        rs->assignment.topic_partitions = tp;
        rs->assignment.topic_partitions_cnt = r.nassignment;
    }
    return gr_req_reply(req);
}
