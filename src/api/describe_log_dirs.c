/*
 * DescribeLogDirs (api key 35): the broker's log directory (Gregor uses
 * one) with the size of every partition it holds (all of them, or those
 * asked for; unknown ones are left out), no lag (no future replicas), and
 * from v4 the file system's total and usable bytes.
 */
#include "api/api_int.h"
#include "log/log.h"

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
    } else {
        for (int32_t i = 0; i < rq->topics_cnt; i++) {
            const gr_describe_log_dirs_request_describable_log_dir_topic_t *q =
                &rq->topics[i];
            gr_topic_t *t = gr_cluster_topic(c, &q->topic);
            if (t == NULL)
                continue;
            if (fill_topic(req, t, q->partitions,
                           q->partitions_cnt > 0 ? q->partitions_cnt : 0,
                           &res->topics[n]) != 0)
                return gr_req_close(req, "out of memory");
            if (res->topics[n].partitions_cnt > 0)
                n++;
        }
    }
    res->topics_cnt = n;
    return gr_req_reply(req);
}
