/*
 * AlterUserScramCredentials (api key 51): SCRAM credentials set from a
 * salt and salted password the client computed (the password never comes
 * here) and removed, as Kafka's ScramControlManager.alterCredentials. Per
 * user, its deletions then its upsertions are looked at in order: a second
 * change of the same user is DUPLICATE_RESOURCE, an empty name or too few
 * or many iterations ([4096, 16384]) UNACCEPTABLE_CREDENTIAL, a mechanism
 * other than 1 (SCRAM-SHA-256) and 2 (SCRAM-SHA-512)
 * UNSUPPORTED_SASL_MECHANISM, deleting what does not exist
 * RESOURCE_NOT_FOUND, with Kafka's messages. The results list the
 * deletions done, then the upsertions, then the errors, as Kafka's. The
 * changes are made at the request's turn among the stored admin changes
 * (api/change.h) on a copy of the credentials, written, and count for
 * logins and are answered once durable, as Kafka's controller applies a
 * change once its records are committed; a write that fails changes
 * nothing and each change answers UNKNOWN_SERVER_ERROR (as CreateAcls and
 * AlterClientQuotas). The stored key and server key are computed here as Kafka's
 * ScramFormatter does. ALTER on the cluster first (ControllerApis):
 * without it every user named gets CLUSTER_AUTHORIZATION_FAILED, once each
 * and sorted, as the request's getErrorResponse.
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/change.h"
#include "broker.h"
#include "net/scram.h"

#include <openssl/crypto.h>
#include <stdlib.h>
#include <string.h>

typedef gr_alter_user_scram_credentials_request_scram_credential_deletion_t
    del_t;
typedef gr_alter_user_scram_credentials_request_scram_credential_upsertion_t
    ups_t;
typedef gr_alter_user_scram_credentials_response_alter_user_scram_credentials_result_t
    result_t;

typedef struct entry {
    gr_str_t name;
    int32_t pos; /* deletions first, then upsertions: their order */
    bool del;
    int32_t idx;
} entry_t;

static int
cmp_entry(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    int c = gr_str_cmp(&x->name, &y->name);
    return c != 0 ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* One user's outcome. */
typedef struct outcome {
    gr_str_t name;
    const del_t *del;
    const ups_t *ups;
    int16_t err;
    const char *msg;
} outcome_t;

static bool
name_cstr(const gr_str_t *s, char *out, size_t n)
{
    if (s->len < 0 || (size_t)s->len >= n)
        return false;
    memcpy(out, s->ptr, (size_t)s->len);
    out[s->len] = '\0';
    return true;
}

/* Kafka's validateScramUsernameAndMechanism */
static int16_t
check_name_mech(const gr_str_t *name, int8_t mech, const char **msg)
{
    if (name->len <= 0) {
        *msg = "Username must not be empty";
        return GR_KERR_UNACCEPTABLE_CREDENTIAL;
    }
    if (gr_scram_mech_name(mech) == NULL) {
        *msg = "Unknown SCRAM mechanism";
        return GR_KERR_UNSUPPORTED_SASL_MECHANISM;
    }
    return GR_KERR_NONE;
}

static void
decide(const gr_scram_store_t *s,
       const gr_alter_user_scram_credentials_request_t *rq, const entry_t *e,
       int32_t n, outcome_t *o)
{
    static const char dup[] =
        "A user credential cannot be altered twice in the same request";
    memset(o, 0, sizeof *o);
    o->name = e[0].name;
    for (int32_t i = 0; i < n; i++) {
        const char *msg = NULL;
        int16_t err;
        if (o->err != GR_KERR_NONE)
            continue;
        if (e[i].del) {
            const del_t *d = &rq->deletions[e[i].idx];
            char user[1024];
            if (o->del != NULL) {
                o->del = NULL;
                o->err = GR_KERR_DUPLICATE_RESOURCE;
                o->msg = dup;
                continue;
            }
            err = check_name_mech(&d->name, d->mechanism, &msg);
            if (err == GR_KERR_NONE &&
                (!name_cstr(&d->name, user, sizeof user) ||
                 gr_scram_store_get(s, user, d->mechanism) == NULL)) {
                err = GR_KERR_RESOURCE_NOT_FOUND;
                msg = "Attempt to delete a user credential that does not "
                      "exist";
            }
            if (err != GR_KERR_NONE) {
                o->err = err;
                o->msg = msg;
                continue;
            }
            o->del = d;
        } else {
            const ups_t *u = &rq->upsertions[e[i].idx];
            if (o->del != NULL || o->ups != NULL) {
                o->del = NULL;
                o->ups = NULL;
                o->err = GR_KERR_DUPLICATE_RESOURCE;
                o->msg = dup;
                continue;
            }
            err = check_name_mech(&u->name, u->mechanism, &msg);
            if (err == GR_KERR_NONE &&
                u->iterations < GR_SCRAM_MIN_ITERATIONS) {
                err = GR_KERR_UNACCEPTABLE_CREDENTIAL;
                msg = "Too few iterations";
            } else if (err == GR_KERR_NONE &&
                       u->iterations > GR_SCRAM_MAX_ITERATIONS) {
                err = GR_KERR_UNACCEPTABLE_CREDENTIAL;
                msg = "Too many iterations";
            }
            if (err != GR_KERR_NONE) {
                o->err = err;
                o->msg = msg;
                continue;
            }
            o->ups = u;
        }
    }
}

/* Applies o (a deletion or an upsertion) to the store. */
static int16_t
apply(gr_scram_store_t *s, const outcome_t *o, const char **msg)
{
    char user[1024];
    if (!name_cstr(&o->name, user, sizeof user)) {
        *msg = "Username too long";
        return GR_KERR_UNACCEPTABLE_CREDENTIAL;
    }
    if (o->del != NULL) {
        gr_scram_store_set(s, user, o->del->mechanism, 0, NULL, 0, NULL, NULL);
        return GR_KERR_NONE;
    }
    {
        const ups_t *u = o->ups;
        int type = u->mechanism;
        size_t h = gr_scram_hash_len(type);
        uint8_t ck[GR_SCRAM_MAX_HASH], sk[GR_SCRAM_MAX_HASH],
            vk[GR_SCRAM_MAX_HASH];
        size_t pl =
            u->salted_password.len > 0 ? (size_t)u->salted_password.len : 0;
        const uint8_t *sp =
            pl > 0 ? u->salted_password.ptr : (const uint8_t *)"";
        int rc;
        rc = gr_scram_hmac(type, sp, pl, "Client Key", 10, ck) != 0 ||
             gr_scram_hash(type, ck, h, sk) != 0 ||
             gr_scram_hmac(type, sp, pl, "Server Key", 10, vk) != 0 ||
             gr_scram_store_set(
                 s, user, type, u->iterations,
                 u->salt.len > 0 ? u->salt.ptr : (const uint8_t *)"",
                 u->salt.len > 0 ? (size_t)u->salt.len : 0, sk, vk) != 0;
        OPENSSL_cleanse(ck, sizeof ck);
        if (rc) {
            *msg = "out of memory";
            return GR_KERR_UNKNOWN_SERVER_ERROR;
        }
    }
    return GR_KERR_NONE;
}

/* At the request's turn (change.h): the outcomes against the
 * credentials as they are now, made on a copy (*state) to be stored. */
static int
alter_apply(gr_req_t *req, void **state)
{
    const gr_alter_user_scram_credentials_request_t *rq = req->body;
    gr_alter_user_scram_credentials_response_t *rs = req->resp;
    gr_scram_store_t *cur = req->broker->scram, *s;
    int32_t nd = rq->deletions_cnt > 0 ? rq->deletions_cnt : 0;
    int32_t nu = rq->upsertions_cnt > 0 ? rq->upsertions_cnt : 0;
    int32_t n = nd + nu, nout = 0;
    uint64_t bytes = 16, max = gr_api_answer_max(req);
    entry_t *e = gr_arena_alloc(req->a, sizeof(*e) * (size_t)(n + 1));
    outcome_t *o = gr_arena_alloc(req->a, sizeof(*o) * (size_t)(n + 1));
    bool changed = false;

    if (e == NULL || o == NULL) {
        gr_req_close(req, "out of memory");
        return -1;
    }
    for (int32_t i = 0; i < nd; i++)
        e[i] = (entry_t){ rq->deletions[i].name, i, true, i };
    for (int32_t i = 0; i < nu; i++)
        e[nd + i] = (entry_t){ rq->upsertions[i].name, nd + i, false, i };
    qsort(e, (size_t)n, sizeof(*e), cmp_entry);
    for (int32_t i = 0, k; i < n; i = k) {
        for (k = i + 1; k < n && gr_str_eq(&e[k].name, &e[i].name); k++)
            ;
        decide(cur, rq, e + i, k - i, &o[nout]);
        bytes += 8 + (uint64_t)(o[nout].name.len > 0 ? o[nout].name.len : 0) +
                 (o[nout].msg ? strlen(o[nout].msg) : 0);
        if (max > 0 && bytes > max) {
            gr_api_answer_refuse(req, bytes);
            return -1;
        }
        nout++;
    }
    rs->results =
        gr_arena_zalloc(req->a, sizeof(result_t) * (size_t)(nout + 1));
    if (rs->results == NULL || (s = gr_scram_store_copy(cur)) == NULL) {
        gr_req_close(req, "out of memory");
        return -1;
    }
    /* deletions done, upsertions done, errors: Kafka's order */
    for (int pass = 0; pass < 3; pass++) {
        for (int32_t i = 0; i < nout; i++) {
            outcome_t *x = &o[i];
            result_t *r;
            if ((pass == 0) != (x->del != NULL) ||
                (pass == 1) != (x->ups != NULL) ||
                (pass == 2) != (x->err != GR_KERR_NONE))
                continue;
            if (pass < 2) {
                const char *msg = NULL;
                int16_t err = apply(s, x, &msg);
                if (err != GR_KERR_NONE) {
                    x->del = NULL;
                    x->ups = NULL;
                    x->err = err;
                    x->msg = msg;
                    continue; /* listed with the errors */
                }
                changed = true;
                GR_LOG_INFO("SCRAM credential of user %.*s to be %s (%s, "
                            "from %s)",
                            x->name.len, x->name.ptr,
                            pass == 0 ? "deleted" : "set",
                            gr_scram_mech_name(pass == 0 ? x->del->mechanism
                                                         : x->ups->mechanism),
                            gr_req_peer(req));
            }
            r = &rs->results[rs->results_cnt++];
            r->user = x->name;
            r->error_code = x->err;
            r->error_message =
                x->msg ? (gr_str_t){ x->msg, (int32_t)strlen(x->msg) }
                       : GR_STR_NULL;
        }
    }
    if (!changed) {
        gr_scram_store_close(s);
        return 0;
    }
    *state = s;
    return 1;
}

static void
alter_store(gr_broker_t *b, void *state, gr_cluster_stored_cb cb, void *arg)
{
    gr_scram_store_write(b, b->scram, state, cb, arg);
}

static void
alter_done(gr_broker_t *b, gr_req_t *req, void *state, int err)
{
    gr_alter_user_scram_credentials_response_t *rs;
    const char *msg;

    if (err == 0) {
        gr_scram_store_install(b->scram, state);
        return;
    }
    gr_scram_store_close(state);
    if (req == NULL)
        return;
    /* nothing changed: each change says so */
    rs = req->resp;
    msg = gr_authz_store_failed_msg(req, "SCRAM credentials", err);
    for (int32_t i = 0; i < rs->results_cnt; i++) {
        if (rs->results[i].error_code != GR_KERR_NONE)
            continue;
        rs->results[i].error_code = GR_KERR_UNKNOWN_SERVER_ERROR;
        rs->results[i].error_message = msg ? gr_str_c(msg) : GR_STR_NULL;
    }
}

static const gr_change_ops_t alter_ops = {
    .what = "SCRAM credentials",
    .apply = alter_apply,
    .store = alter_store,
    .done = alter_done,
};

int
gr_api_alter_user_scram_credentials(gr_req_t *req)
{
    const gr_alter_user_scram_credentials_request_t *rq = req->body;
    gr_alter_user_scram_credentials_response_t *rs = req->resp;
    int32_t nd = rq->deletions_cnt > 0 ? rq->deletions_cnt : 0;
    int32_t nu = rq->upsertions_cnt > 0 ? rq->upsertions_cnt : 0;
    int32_t n = nd + nu;
    entry_t *e;

    if (gr_authz_cluster(req, GR_OP_ALTER))
        return gr_change_submit(req, &alter_ops);
    e = gr_arena_alloc(req->a, sizeof(*e) * (size_t)(n + 1));
    rs->results = gr_arena_zalloc(req->a, sizeof(result_t) * (size_t)(n + 1));
    if (e == NULL || rs->results == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < nd; i++)
        e[i] = (entry_t){ rq->deletions[i].name, i, true, i };
    for (int32_t i = 0; i < nu; i++)
        e[nd + i] = (entry_t){ rq->upsertions[i].name, nd + i, false, i };
    qsort(e, (size_t)n, sizeof(*e), cmp_entry);
    for (int32_t i = 0, k; i < n; i = k) {
        result_t *r = &rs->results[rs->results_cnt++];
        for (k = i + 1; k < n && gr_str_eq(&e[k].name, &e[i].name); k++)
            ;
        r->user = e[i].name;
        r->error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        r->error_message = GR_STR("Request AlterUserScramCredentials "
                                  "needs ALTER permission.");
    }
    return gr_req_reply(req);
}
