/*
 * The check sites' helpers (authz.h): the request's principal and peer
 * into the authorizer.
 */
#include "api/authz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/configs.h"
#include "broker.h"
#include "broker_acls.h"
#include "cluster/cluster.h"
#include "core/log.h"
#include "core/worker.h"

bool
gr_authz_on(const gr_req_t *req)
{
    return req->broker->acls != NULL;
}

bool
gr_authz(gr_req_t *req, int type, const gr_str_t *name, int op)
{
    const gr_acls_t *s = req->broker->acls;
    bool ok;
    if (s == NULL)
        return true;
    ok = gr_acls_authorize(s, gr_req_principal(req), gr_req_peer_host(req),
                           type, name->len > 0 ? name->ptr : "",
                           name->len > 0 ? (size_t)name->len : 0, op);
    if (!ok)
        GR_LOG_DEBUG("authorizer: %s from %s denied %s on %s:%.*s (%s)",
                     gr_req_principal(req), gr_req_peer_host(req),
                     gr_acl_op_name(op), gr_acl_res_name(type),
                     name->len > 0 ? (int)name->len : 0,
                     name->len > 0 ? name->ptr : "", req->api->name);
    return ok;
}

bool
gr_authz_cstr(gr_req_t *req, int type, const char *name, int op)
{
    gr_str_t s = gr_str_c(name);
    return gr_authz(req, type, &s, op);
}

bool
gr_authz_cluster(gr_req_t *req, int op)
{
    return gr_authz_cstr(req, GR_RES_CLUSTER, GR_ACL_CLUSTER_NAME, op);
}

bool
gr_authz_by_type(gr_req_t *req, int type, int op)
{
    const gr_acls_t *s = req->broker->acls;
    if (s == NULL)
        return true;
    return gr_acls_authorize_by_type(s, gr_req_principal(req),
                                     gr_req_peer_host(req), type, op);
}

int32_t
gr_authz_ops(gr_req_t *req, int type, const gr_str_t *name)
{
    static const int32_t supported[GR_RES__COUNT] = {
        [GR_RES_TOPIC] = 1 << GR_OP_READ | 1 << GR_OP_WRITE |
                         1 << GR_OP_CREATE | 1 << GR_OP_DESCRIBE |
                         1 << GR_OP_DELETE | 1 << GR_OP_ALTER |
                         1 << GR_OP_DESCRIBE_CONFIGS | 1 << GR_OP_ALTER_CONFIGS,
        [GR_RES_GROUP] = 1 << GR_OP_READ | 1 << GR_OP_DESCRIBE |
                         1 << GR_OP_DELETE | 1 << GR_OP_DESCRIBE_CONFIGS |
                         1 << GR_OP_ALTER_CONFIGS,
        [GR_RES_CLUSTER] = 1 << GR_OP_CREATE | 1 << GR_OP_CLUSTER_ACTION |
                           1 << GR_OP_DESCRIBE_CONFIGS |
                           1 << GR_OP_ALTER_CONFIGS |
                           1 << GR_OP_IDEMPOTENT_WRITE | 1 << GR_OP_ALTER |
                           1 << GR_OP_DESCRIBE,
        [GR_RES_TRANSACTIONAL_ID] = 1 << GR_OP_DESCRIBE | 1 << GR_OP_WRITE |
                                    1 << GR_OP_TWO_PHASE_COMMIT,
        [GR_RES_DELEGATION_TOKEN] = 1 << GR_OP_DESCRIBE,
        [GR_RES_USER] = 1 << GR_OP_CREATE_TOKENS | 1 << GR_OP_DESCRIBE_TOKENS,
    };
    const gr_acls_t *s = req->broker->acls;
    int32_t ops = supported[type], out = 0;
    if (s == NULL)
        return ops;
    for (int op = 0; op < GR_OP__COUNT; op++)
        if ((ops & (1 << op)) &&
            gr_acls_authorize(s, gr_req_principal(req), gr_req_peer_host(req),
                              type, name->len > 0 ? name->ptr : "",
                              name->len > 0 ? (size_t)name->len : 0, op))
            out |= 1 << op;
    return out;
}

gr_kerr_t
gr_authz_config(gr_req_t *req, int8_t config_type, const gr_str_t *name, int op)
{
    switch (config_type) {
    case GR_RESOURCE_BROKER:
    case GR_RESOURCE_BROKER_LOGGER:
    case GR_RESOURCE_CLIENT_METRICS:
        return gr_authz_cluster(req, op) ? GR_KERR_NONE
                                         : GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
    case GR_RESOURCE_TOPIC:
        return gr_authz(req, GR_RES_TOPIC, name, op)
                   ? GR_KERR_NONE
                   : GR_KERR_TOPIC_AUTHORIZATION_FAILED;
    case GR_RESOURCE_GROUP:
        return gr_authz(req, GR_RES_GROUP, name, op)
                   ? GR_KERR_NONE
                   : GR_KERR_GROUP_AUTHORIZATION_FAILED;
    default:
        return GR_KERR_NONE;
    }
}

/* A changed copy on its way to the file: indexed and written as text
 * on a worker (nothing else touches the copy until it is installed),
 * then stored by the cluster (itself off the loop). */
typedef struct acl_write {
    gr_broker_t *b;
    gr_acls_t *next;
    char *data;
    size_t len;
    int err;
    void (*cb)(void *arg, int err);
    void *arg;
} acl_write_t;

static void
acl_write_work(void *arg)
{
    acl_write_t *w = arg;
    if (gr_acls_commit(w->next) != 0 ||
        gr_acls_serialize(w->next, &w->data, &w->len) != 0)
        w->err = ENOMEM;
}

static void
acl_write_done(gr_loop_t *loop, void *arg)
{
    acl_write_t *w = arg;
    (void)loop;
    if (w->err != 0) {
        GR_LOG_ERROR("cannot persist the ACLs: out of memory");
        w->cb(w->arg, w->err);
    } else if (gr_acls_zk_store(w->b, w->b->acls, w->next, w->cb,
                                w->arg)) {
        free(w->data); /* cluster mode: ZooKeeper, not the ACL file */
    } else {
        gr_cluster_store_acls(w->b->cluster, w->data, w->len, w->cb, w->arg);
    }
    free(w);
}

void
gr_authz_acls_store(gr_broker_t *b, void *state,
                    void (*cb)(void *arg, int err), void *arg)
{
    acl_write_t *w = calloc(1, sizeof *w);

    if (w == NULL) {
        GR_LOG_ERROR("cannot persist the ACLs: out of memory");
        cb(arg, ENOMEM);
        return;
    }
    *w = (acl_write_t){ .b = b, .next = state, .cb = cb, .arg = arg };
    /* stopping: the workers are going, the cluster writes at once */
    if (b->stopping || b->workers == NULL ||
        gr_workers_submit(b->workers, acl_write_work, acl_write_done, w) !=
            0) {
        acl_write_work(w);
        acl_write_done(b->loop, w);
    }
}

void
gr_authz_acls_install(gr_broker_t *b, gr_acls_t *next, int err)
{
    if (err != 0) {
        gr_acls_destroy(next);
        return;
    }
    gr_acls_destroy(b->acls);
    b->acls = next;
}

const char *
gr_authz_store_failed_msg(gr_req_t *req, const char *what, int err)
{
    return gr_arena_printf(req->a, "The %s could not be stored: %s", what,
                           strerror(err));
}
