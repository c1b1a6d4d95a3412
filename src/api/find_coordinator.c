/*
 * FindCoordinator (api key 10): the broker that coordinates a group
 * (key_type 0: the leader of the __consumer_offsets partition the group id
 * hashes to) or a transactional id (key_type 1: __transaction_state).
 * The internal topic is created on first use, as Kafka does; the answer
 * waits until it is stored and led, so it already names the coordinator. v0-v3
 * carry one key and top-level fields; v4+ a batch of keys, each with its own
 * error (find_coordinator.schema). Share coordinator keys (key_type 2, v6,
 * KIP-932) are INVALID_REQUEST: Gregor has no share groups.
 *
 * Messages, as Kafka's KafkaApis words them: v1-v3 carry the error's
 * message, "NONE" on success (Errors.NONE.message()); v4+ answer each key
 * with "" (its getCoordinator result, no message set), except an unknown
 * key type, which fails the whole request and gives every key the error's
 * message (FindCoordinatorResponse.prepareErrorResponse).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"

typedef struct coord_answer {
    gr_kerr_t error;
    int32_t node_id;
    gr_str_t host;
    int32_t port;
} coord_answer_t;

static void
lookup(gr_req_t *req, int8_t key_type, const gr_str_t *key, coord_answer_t *ans)
{
    gr_broker_t *b = req->broker;
    const char *internal;
    gr_topic_t *t;
    gr_partition_t *p;
    const gr_node_t *node;
    const gr_endpoint_t *ep;

    ans->error = GR_KERR_COORDINATOR_NOT_AVAILABLE;
    ans->node_id = -1; /* Kafka's Node.noNode() */
    ans->host = GR_STR("");
    ans->port = -1;
    /* DESCRIBE on the group or the transactional id first */
    if (key_type == GR_COORD_GROUP &&
        !gr_authz(req, GR_RES_GROUP, key, GR_OP_DESCRIBE)) {
        ans->error = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        return;
    }
    if (key_type == GR_COORD_TRANSACTION &&
        !gr_authz(req, GR_RES_TRANSACTIONAL_ID, key, GR_OP_DESCRIBE)) {
        ans->error = GR_KERR_TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
        return;
    }
    switch (key_type) {
    case GR_COORD_GROUP:
        internal = GR_TOPIC_CONSUMER_OFFSETS;
        break;
    case GR_COORD_TRANSACTION:
        /* "" too: Kafka 4.x hashes it as any other id */
        internal = GR_TOPIC_TRANSACTION_STATE;
        break;
    default:
        ans->error = GR_KERR_INVALID_REQUEST;
        return;
    }
    t = gr_cluster_topic_cstr(b->cluster, internal);
    if (t == NULL || t->nparts <= 0)
        return;
    p = t->parts[gr_cluster_coord_partition(key, t->nparts)];
    if (p->leader < 0)
        return;
    node = gr_cluster_node(b->cluster, p->leader);
    ep = node ? gr_node_endpoint(node, gr_req_listener_name(req)) : NULL;
    if (ep == NULL)
        return;
    ans->error = GR_KERR_NONE;
    ans->node_id = node->id;
    ans->host = gr_str_c(ep->host);
    ans->port = ep->port;
}

/* Key types Kafka knows (FindCoordinatorRequest.CoordinatorType); any
 * other fails the whole request. */
#define KEY_TYPE_SHARE 2

static bool
key_type_known(int8_t key_type)
{
    return key_type == GR_COORD_GROUP || key_type == GR_COORD_TRANSACTION ||
           key_type == KEY_TYPE_SHARE;
}

/* The message of a v1-v3 answer: Kafka's Errors.message(), which is the
 * error's name for NONE (it has no exception). */
static gr_str_t
message(gr_kerr_t err)
{
    return gr_str_c(err == GR_KERR_NONE ? "NONE" : gr_kerr_msg(err));
}

/* Fills the answer. Out of memory for the keys of v4+, it holds none
 * (logged). */
static void
fill(gr_req_t *req)
{
    const gr_find_coordinator_request_t *rq = req->body;
    gr_find_coordinator_response_t *rs = req->resp;
    coord_answer_t ans;

    if (req->version < 4) {
        lookup(req, rq->key_type, &rq->key, &ans);
        rs->error_code = ans.error;
        rs->error_message = message(ans.error);
        rs->node_id = ans.node_id;
        rs->host = ans.host;
        rs->port = ans.port;
        return;
    }
    /* v4+: batched keys (KIP-699) */
    rs->coordinators_cnt = 0;
    if (rq->coordinator_keys_cnt <= 0)
        return;
    rs->coordinators = gr_arena_zalloc(
        req->a, sizeof(*rs->coordinators) * (size_t)rq->coordinator_keys_cnt);
    if (rs->coordinators == NULL) {
        GR_LOG_WARN("FindCoordinator from %s: out of memory for %d keys",
                    gr_req_peer(req), rq->coordinator_keys_cnt);
        return;
    }
    rs->coordinators_cnt = rq->coordinator_keys_cnt;
    for (int32_t i = 0; i < rs->coordinators_cnt; i++) {
        gr_find_coordinator_response_coordinator_t *c = &rs->coordinators[i];
        gr_find_coordinator_response_coordinator_init(c);
        lookup(req, rq->key_type, &rq->coordinator_keys[i], &ans);
        c->key = rq->coordinator_keys[i];
        c->error_code = ans.error;
        c->error_message = key_type_known(rq->key_type)
                               ? GR_STR("")
                               : gr_str_c(gr_kerr_msg(ans.error));
        c->node_id = ans.node_id;
        c->host = ans.host;
        c->port = ans.port;
    }
}

int
gr_api_find_coordinator(gr_req_t *req)
{
    const gr_find_coordinator_request_t *rq = req->body;
    const char *internal =
        rq->key_type == GR_COORD_GROUP         ? GR_TOPIC_CONSUMER_OFFSETS
        : rq->key_type == GR_COORD_TRANSACTION ? GR_TOPIC_TRANSACTION_STATE
                                               : NULL;

    /* The internal topic's first use makes it; the answer then waits until
     * it is stored and its partitions made and led, so it names the
     * coordinator and nothing is committed to a topic a crash could lose */
    if (internal == NULL) {
        fill(req);
        return gr_req_reply(req);
    }
    return gr_topics_internal_then(req, internal, fill);
}
