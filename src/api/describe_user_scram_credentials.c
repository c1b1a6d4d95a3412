/*
 * DescribeUserScramCredentials (api key 50): the mechanisms and iteration
 * counts of users' SCRAM credentials (net/scram.h), never their keys, as
 * Kafka's ScramImage.describe: no users (or a null list) describes every
 * user that has one; a user without any is RESOURCE_NOT_FOUND, a user
 * named twice DUPLICATE_RESOURCE (once), with Kafka's messages. Duplicates
 * are found by sorting the names (a request can hold millions), and the
 * answer is bounded as other growing answers (api_int.h). DESCRIBE on the
 * cluster first (KafkaApis): without it the request's error answer,
 * CLUSTER_AUTHORIZATION_FAILED at the top and for each user named (with
 * no name, as Kafka's getErrorResponse).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "net/scram.h"

#include <stdlib.h>
#include <string.h>

typedef gr_describe_user_scram_credentials_response_describe_user_scram_credentials_result_t
    result_t;
typedef gr_describe_user_scram_credentials_response_credential_info_t info_t;

typedef struct uname {
    gr_str_t name;
    int32_t pos;
} uname_t;

static int
cmp_name(const void *a, const void *b)
{
    const uname_t *x = a, *y = b;
    int c = gr_str_cmp(&x->name, &y->name);
    return c != 0 ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

static gr_str_t
message(gr_req_t *req, const char *prefix, const gr_str_t *user)
{
    size_t pl = strlen(prefix), ul = user->len > 0 ? (size_t)user->len : 0;
    char *m = gr_arena_alloc(req->a, pl + ul + 1);
    if (m == NULL)
        return GR_STR_NULL;
    memcpy(m, prefix, pl);
    if (ul > 0)
        memcpy(m + pl, user->ptr, ul);
    return (gr_str_t){ m, (int32_t)(pl + ul) };
}

/* the user's credentials into r; false when it has none */
static bool
fill_infos(gr_req_t *req, const gr_scram_store_t *s, const char *user,
           result_t *r)
{
    info_t *in = gr_arena_zalloc(req->a, 2 * sizeof(*in));
    int n = 0;
    if (in == NULL)
        return false;
    for (int type = GR_SCRAM_SHA_256; type <= GR_SCRAM_SHA_512; type++) {
        const gr_scram_cred_t *c = gr_scram_store_get(s, user, type);
        if (c == NULL)
            continue;
        in[n].mechanism = (int8_t)type;
        in[n].iterations = c->iterations;
        n++;
    }
    r->credential_infos = in;
    r->credential_infos_cnt = n;
    return n > 0;
}

int
gr_api_describe_user_scram_credentials(gr_req_t *req)
{
    const gr_describe_user_scram_credentials_request_t *rq = req->body;
    gr_describe_user_scram_credentials_response_t *rs = req->resp;
    const gr_scram_store_t *s = req->broker->scram;
    uint64_t bytes = 16, max = gr_api_answer_max(req);
    uname_t *names;
    int32_t n = 0, k = 0;

    if (!gr_authz_cluster(req, GR_OP_DESCRIBE)) {
        int32_t nu = rq->users_cnt > 0 ? rq->users_cnt : 0;
        rs->error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        rs->error_message = GR_STR("Cluster authorization failed.");
        rs->results =
            gr_arena_zalloc(req->a, sizeof(result_t) * (size_t)(nu + 1));
        if (rs->results == NULL)
            return gr_req_close(req, "out of memory");
        for (int32_t i = 0; i < nu; i++) {
            rs->results[i].user = GR_STR("");
            rs->results[i].error_code = rs->error_code;
            rs->results[i].error_message = rs->error_message;
        }
        rs->results_cnt = nu;
        return gr_req_reply(req);
    }
    if (rq->users_cnt <= 0) {
        /* every user with a credential, once */
        for (const gr_scram_cred_t *c; (c = gr_scram_store_at(s, n)); n++)
            ;
        names = gr_arena_alloc(req->a, sizeof(*names) * (size_t)(n + 1));
        if (names == NULL)
            return gr_req_close(req, "out of memory");
        for (int32_t i = 0; i < n; i++) {
            const gr_scram_cred_t *c = gr_scram_store_at(s, i);
            names[i].name = (gr_str_t){ c->user, (int32_t)strlen(c->user) };
            names[i].pos = i;
        }
    } else {
        n = rq->users_cnt;
        names = gr_arena_alloc(req->a, sizeof(*names) * (size_t)n);
        if (names == NULL)
            return gr_req_close(req, "out of memory");
        for (int32_t i = 0; i < n; i++) {
            names[i].name = rq->users[i].name;
            names[i].pos = i;
        }
    }
    qsort(names, (size_t)n, sizeof(*names), cmp_name);
    rs->results = gr_arena_zalloc(req->a, sizeof(result_t) * (size_t)(n + 1));
    if (rs->results == NULL)
        return gr_req_close(req, "out of memory");
    for (int32_t i = 0; i < n; i = k) {
        result_t *r = &rs->results[rs->results_cnt++];
        char user[1024];
        bool dup;
        for (k = i + 1; k < n && gr_str_eq(&names[k].name, &names[i].name); k++)
            ;
        dup = k - i > 1 && rq->users_cnt > 0;
        r->user = names[i].name;
        if (dup) {
            r->error_code = GR_KERR_DUPLICATE_RESOURCE;
            r->error_message = message(
                req,
                "Cannot describe SCRAM credentials for the same user twice "
                "in a single request: ",
                &r->user);
        } else if (r->user.len < 0 || (size_t)r->user.len >= sizeof user ||
                   (memcpy(user, r->user.ptr, (size_t)r->user.len),
                    user[r->user.len] = '\0', !fill_infos(req, s, user, r))) {
            r->credential_infos_cnt = 0;
            r->error_code = GR_KERR_RESOURCE_NOT_FOUND;
            r->error_message = message(
                req,
                "Attempt to describe a user credential that does not exist: ",
                &r->user);
        }
        bytes +=
            16 + (uint64_t)(r->user.len > 0 ? r->user.len : 0) +
            (uint64_t)(r->error_message.len > 0 ? r->error_message.len : 0) +
            12;
        if (max > 0 && bytes > max)
            return gr_api_answer_refuse(req, bytes);
    }
    rs->error_code = GR_KERR_NONE;
    return gr_req_reply(req);
}
