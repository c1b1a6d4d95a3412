/*
 * JoinGroup (api key 11): maps the request onto gr_group_join() and words
 * the answer per version. The coordinator may hold the request until the
 * rebalance completes: the handler then defers it, and the connection's
 * abort callback cancels the waiter so the coordinator never answers a
 * request that is gone (join_group.schema; Kafka's KafkaApis
 * handleJoinGroupRequest).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "group/group.h"

#include <string.h>

typedef struct join_ctx {
    gr_req_t *req;
    gr_group_waiter_t w;
} join_ctx_t;

static gr_str_t
adup(gr_req_t *req, const char *s)
{
    if (s == NULL)
        return GR_STR_NULL;
    return (gr_str_t){ gr_arena_strndup(req->a, s, strlen(s)),
                       (int32_t)strlen(s) };
}

static void
join_done(gr_group_waiter_t *w, const void *result)
{
    const gr_group_join_result_t *r = result;
    join_ctx_t *ctx = w->arg;
    gr_req_t *req = ctx->req;
    gr_join_group_response_t *rs = req->resp;

    rs->error_code = r->error;
    rs->generation_id = r->generation_id;
    rs->member_id = adup(req, r->member_id ? r->member_id : "");
    rs->leader = adup(req, r->leader_id ? r->leader_id : "");
    rs->skip_assignment = r->skip_assignment;
    /* ProtocolType exists from v7 (nullable); ProtocolName is nullable
     * from v7 only, so older versions get "" when there is none */
    rs->protocol_type = adup(req, r->protocol_type);
    rs->protocol_name = adup(req, r->protocol_name);
    if (rs->protocol_name.len < 0 && req->version < 7)
        rs->protocol_name = GR_STR("");
    rs->members_cnt = r->nmembers;
    rs->members = gr_arena_zalloc(req->a, sizeof(*rs->members) *
                                              (size_t)(r->nmembers + 1));
    if (rs->members == NULL) {
        gr_req_close(req, "out of memory");
        return;
    }
    for (int32_t i = 0; i < r->nmembers; i++) {
        gr_join_group_response_member_t *m = &rs->members[i];
        gr_join_group_response_member_init(m);
        m->member_id = adup(req, r->members[i].member_id);
        m->group_instance_id = adup(req, r->members[i].group_instance_id);
        m->metadata.len = r->members[i].metadata.len;
        m->metadata.ptr =
            m->metadata.len > 0
                ? gr_arena_memdup(req->a, r->members[i].metadata.ptr,
                                  (size_t)m->metadata.len)
                : NULL;
        if (m->member_id.ptr == NULL ||
            (m->metadata.len > 0 && m->metadata.ptr == NULL)) {
            gr_req_close(req, "out of memory");
            return;
        }
    }
    gr_req_reply(req);
}

static void
join_abort(gr_req_t *req)
{
    join_ctx_t *ctx = req->owner;
    gr_group_waiter_cancel(&ctx->w);
}

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

int
gr_api_join_group(gr_req_t *req)
{
    const gr_join_group_request_t *rq = req->body;
    join_ctx_t *ctx = gr_arena_zalloc(req->a, sizeof(*ctx));
    gr_group_protocol_t *protos;
    gr_group_join_args_t a;
    int32_t n = rq->protocols_cnt > 0 ? rq->protocols_cnt : 0;

    protos = gr_arena_zalloc(req->a, sizeof(*protos) * (size_t)(n + 1));
    if (ctx == NULL || protos == NULL)
        return gr_req_close(req, "out of memory");
    /* READ on the group (Kafka's JoinGroupRequest.getErrorResponse) */
    if (!gr_authz(req, GR_RES_GROUP, &rq->group_id, GR_OP_READ)) {
        gr_join_group_response_t *rs = req->resp;
        rs->error_code = GR_KERR_GROUP_AUTHORIZATION_FAILED;
        rs->generation_id = -1;
        rs->protocol_type = GR_STR_NULL;
        rs->protocol_name = req->version >= 7 ? GR_STR_NULL : GR_STR("");
        rs->leader = GR_STR("");
        rs->member_id = GR_STR("");
        rs->members_cnt = 0;
        return gr_req_reply(req);
    }
    for (int32_t i = 0; i < n; i++) {
        protos[i].name = rq->protocols[i].name;
        protos[i].metadata = rq->protocols[i].metadata;
    }
    memset(&a, 0, sizeof a);
    a.group_id = rq->group_id;
    a.member_id = rq->member_id;
    a.group_instance_id = rq->group_instance_id; /* "5+": null before */
    a.client_id = req->hdr.client_id;
    a.client_host = client_host(req);
    a.protocol_type = rq->protocol_type;
    a.reason = rq->reason;
    a.session_timeout_ms = rq->session_timeout_ms;
    /* v0 has no rebalance timeout: Kafka uses the session timeout */
    a.rebalance_timeout_ms =
        req->version == 0 ? rq->session_timeout_ms : rq->rebalance_timeout_ms;
    a.protocols = protos;
    a.nprotocols = n;
    /* KIP-394: MEMBER_ID_REQUIRED only for clients that know it (v4+) */
    a.require_known_member_id = req->version >= 4;
    /* KIP-814: a rejoining static leader skips the assignment (v9+) */
    a.supports_skip_assignment = req->version >= 9;

    ctx->req = req;
    gr_group_waiter_init(&ctx->w, join_done, ctx);
    /* answered during the call: req may be over already, touch nothing */
    if (!gr_group_join(req->broker->groups, &a, &ctx->w))
        return 0;
    return gr_req_defer(req, join_abort, ctx);
}
