/*
 * DescribeLogDirs (api key 35): the broker's log directory (Gregor uses
 * one) with the size of every partition it holds (all of them, or those
 * asked for; unknown ones are left out), no lag (no future replicas), and
 * from v4 the file system's total and usable bytes. The partitions asked
 * for are a set, as Kafka's handleDescribeLogDirsRequest takes them: a
 * topic listed twice is one entry with the partitions of both, and a
 * partition listed twice is described once (listed a million times, it
 * made an answer five times the request's size).
 */
#include "api/api_int.h"
#include "api/authz.h"
#include "api/topics.h"
#include "log/log.h"

#include <string.h>

#include <sys/statvfs.h>

typedef gr_describe_log_dirs_response_describe_log_dirs_topic_t dtopic_t;
typedef gr_describe_log_dirs_response_describe_log_dirs_partition_t dpart_t;

/* Fills dt with t's hosted partitions among wanted (NULL: all). */
static int
fill_topic(gr_req_t *req, gr_topic_t *t, const int32_t *wanted, int32_t nw,
           dtopic_t *dt)
{
    int32_t cap = wanted ? nw : t->nparts, n = 0;
    dt->name = gr_str_c(t->name);
    dt->partitions = gr_arena_zalloc(req->a, (size_t)(cap > 0 ? cap : 1) *
                                                 sizeof(*dt->partitions));
    if (dt->partitions == NULL)
        return -1;
    for (int32_t i = 0; i < cap; i++) {
        int32_t id = wanted ? wanted[i] : i;
        gr_partition_t *p;
        if (id < 0 || id >= t->nparts)
            continue;
        p = t->parts[id];
        if (p->log == NULL)
            continue;
        dt->partitions[n].partition_index = id;
        dt->partitions[n].partition_size = gr_log_size_bytes(p->log);
        dt->partitions[n].offset_lag = 0;
        dt->partitions[n].is_future_key = false;
        n++;
    }
    dt->partitions_cnt = n;
    return 0;
}

/* The partitions the request names, each once, into res->topics (room
 * for one a request topic); *np set to the topics answered. 0 or -1
 * (out of memory). */
static int
asked(gr_req_t *req,
      gr_describe_log_dirs_response_describe_log_dirs_result_t *res,
      int32_t *np)
{
    const gr_describe_log_dirs_request_t *rq = req->body;
    int32_t nt = rq->topics_cnt, n = 0, *firsts, *count, *m;
    gr_topic_t **tp;
    int32_t **wanted;
    uint8_t **seen;

    firsts = gr_topics_first_of(req->a, nt ? &rq->topics[0].topic : NULL,
                                sizeof(rq->topics[0]), nt);
    count = gr_arena_zalloc(req->a, (size_t)(nt + 1) * sizeof(*count));
    m = gr_arena_zalloc(req->a, (size_t)(nt + 1) * sizeof(*m));
    tp = gr_arena_zalloc(req->a, (size_t)(nt + 1) * sizeof(*tp));
    wanted = gr_arena_zalloc(req->a, (size_t)(nt + 1) * sizeof(*wanted));
    seen = gr_arena_zalloc(req->a, (size_t)(nt + 1) * sizeof(*seen));
    if (firsts == NULL || count == NULL || m == NULL || tp == NULL ||
        wanted == NULL || seen == NULL)
        return -1;
    /* each distinct topic (its first entry i) gathers the partitions of
     * every entry naming it */
    for (int32_t k = 0; k < nt; k++)
        if (rq->topics[k].partitions_cnt > 0)
            count[firsts[k]] += rq->topics[k].partitions_cnt;
    for (int32_t i = 0; i < nt; i++) {
        gr_topic_t *t;
        if (firsts[i] != i || count[i] == 0 ||
            (t = gr_cluster_topic(req->broker->cluster,
                                  &rq->topics[i].topic)) == NULL)
            continue;
        tp[i] = t;
        wanted[i] = gr_arena_alloc(req->a, (size_t)count[i] * sizeof(int32_t));
        seen[i] = gr_arena_zalloc(req->a, (size_t)t->nparts / 8 + 1);
        if (wanted[i] == NULL || seen[i] == NULL)
            return -1;
    }
    for (int32_t k = 0; k < nt; k++) {
        const gr_describe_log_dirs_request_describable_log_dir_topic_t *e =
            &rq->topics[k];
        int32_t i = firsts[k];
        if (tp[i] == NULL)
            continue;
        for (int32_t j = 0; j < e->partitions_cnt; j++) {
            int32_t id = e->partitions[j];
            if (id < 0 || id >= tp[i]->nparts ||
                (seen[i][id / 8] & (1u << (id % 8))))
                continue;
            seen[i][id / 8] |= (uint8_t)(1u << (id % 8));
            wanted[i][m[i]++] = id;
        }
    }
    for (int32_t i = 0; i < nt; i++) {
        if (tp[i] == NULL)
            continue;
        if (fill_topic(req, tp[i], wanted[i], m[i], &res->topics[n]) != 0)
            return -1;
        if (res->topics[n].partitions_cnt > 0)
            n++;
    }
    *np = n;
    return 0;
}

int
gr_api_describe_log_dirs(gr_req_t *req)
{
    const gr_describe_log_dirs_request_t *rq = req->body;
    gr_describe_log_dirs_response_t *rs = req->resp;
    gr_broker_t *b = req->broker;
    gr_cluster_t *c = b->cluster;
    gr_describe_log_dirs_response_describe_log_dirs_result_t *res;
    struct statvfs vfs;
    int32_t n = 0, cap;

    /* DESCRIBE on the cluster (v3+ carries the error; before, nothing) */
    if (!gr_authz_cluster(req, GR_OP_DESCRIBE)) {
        rs->error_code = GR_KERR_CLUSTER_AUTHORIZATION_FAILED;
        rs->results_cnt = 0;
        return gr_req_reply(req);
    }

    rs->results = res = gr_arena_zalloc(req->a, sizeof(*res));
    if (res == NULL)
        return gr_req_close(req, "out of memory");
    rs->results_cnt = 1;
    gr_describe_log_dirs_response_describe_log_dirs_result_init(res);
    res->log_dir = gr_str_c(b->log_dir);
    if (statvfs(b->log_dir, &vfs) == 0) {
        res->total_bytes = (int64_t)vfs.f_blocks * (int64_t)vfs.f_frsize;
        res->usable_bytes = (int64_t)vfs.f_bavail * (int64_t)vfs.f_frsize;
    }
    /* topics null: every partition here */
    cap = rq->topics_cnt < 0 ? c->ntopics : rq->topics_cnt;
    res->topics = gr_arena_zalloc(req->a, (size_t)(cap > 0 ? cap : 1) *
                                              sizeof(*res->topics));
    if (res->topics == NULL)
        return gr_req_close(req, "out of memory");
    if (rq->topics_cnt < 0) {
        for (gr_topic_t *t = c->topics; t; t = t->lnext)
            if (fill_topic(req, t, NULL, 0, &res->topics[n++]) != 0)
                return gr_req_close(req, "out of memory");
    } else if (asked(req, res, &n) != 0) {
        return gr_req_close(req, "out of memory");
    }
    res->topics_cnt = n;
    return gr_req_reply(req);
}
