/* Fixtures for the group suites: see grouptest.h. */
#include "grouptest.h"

#include "../log/logtest.h"
#include "../unit.h"
#include "core/log.h"
#include "core/loop.h"

#include <stdlib.h>
#include <string.h>

static gr_kerr_t
part_created(void *arg, gr_partition_t *p)
{
    gt_t *t = arg;
    gr_log_config_t cfg;
    gr_err_t err = 0;
    gr_log_config_default(&cfg);
    if (t->flush_messages > 0)
        cfg.flush_messages = t->flush_messages;
    p->log =
        gr_log_open(t->logs, p->topic->name, p->id, &p->topic->id, &cfg, &err);
    ck_assert_ptr_nonnull(p->log);
    p->high_watermark = gr_log_end_offset(p->log);
    if (t->g)
        gr_groups_partition_added(t->g, p);
    return GR_KERR_NONE;
}

void
gt_open_all(gt_t *t, bool start)
{
    gr_err_t err = 0;
    gr_endpoint_t ep;
    gr_cluster_hooks_t hooks = { .partition_created = part_created, .arg = t };
    memset(&ep, 0, sizeof ep);
    strcpy(ep.listener, "PLAINTEXT");
    strcpy(ep.host, "127.0.0.1");
    ep.port = 9092;
    t->logs = gr_logs_open(t->dir, t->loop, t->workers, 64, &err);
    ck_assert_ptr_nonnull(t->logs);
    t->cluster = gr_cluster_local_new(t->dir, 1, &ep, 1, &hooks);
    ck_assert_ptr_nonnull(t->cluster);
    ck_assert_int_eq(gr_cluster_load(t->cluster), 0);
    if (gr_cluster_topic_cstr(t->cluster, "__consumer_offsets") == NULL) {
        gr_topic_spec_t s;
        gr_topic_t *tp;
        const char *msg;
        memset(&s, 0, sizeof s);
        s.name = "__consumer_offsets";
        s.nparts = NPARTS;
        s.replication_factor = 1;
        s.internal = true;
        ck_assert_int_eq(gr_cluster_create_topic(t->cluster, &s, &tp, &msg), 0);
        s.name = "t";
        s.nparts = 4;
        s.internal = false;
        ck_assert_int_eq(gr_cluster_create_topic(t->cluster, &s, &tp, &msg), 0);
    }
    t->g = gr_groups_new(t->loop, t->cluster, 1, &t->cfg);
    ck_assert_ptr_nonnull(t->g);
    if (start)
        gr_groups_start(t->g);
}

void
gt_close_all(gt_t *t)
{
    gr_groups_destroy(t->g);
    t->g = NULL;
    for (gr_topic_t *tp = t->cluster->topics; tp; tp = tp->lnext)
        for (int32_t i = 0; i < tp->nparts; i++)
            tp->parts[i]->log = NULL;
    gr_logs_close(t->logs);
    gr_cluster_destroy(t->cluster);
}

void
gt_init(gt_t *t)
{
    memset(t, 0, sizeof(*t));
    gr_log_level = GR_LOG_LEVEL_ERROR;
    strcpy(t->dir, "/tmp/gr-group-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t->dir));
    t->loop = gr_loop_new();
    t->workers = gr_workers_new(t->loop, 1);
    t->cfg.initial_rebalance_delay_ms = 0;
    t->cfg.min_session_timeout_ms = 10;
    t->cfg.max_session_timeout_ms = 60000;
    t->cfg.max_size = 100;
    t->cfg.offsets_retention_ms = 60000;
    t->cfg.retention_check_interval_ms = 600000;
    t->cfg.offset_metadata_max_bytes = 16;
    t->cfg.new_member_join_timeout_ms = 300000;
    gt_open_all(t, true);
    gr_groups_load_all_now(t->g);
}

void
gt_reopen(gt_t *t, bool load_now)
{
    gt_close_all(t);
    gt_open_all(t, true);
    if (load_now)
        gr_groups_load_all_now(t->g);
}

void
gt_fini(gt_t *t)
{
    gt_close_all(t);
    gr_workers_destroy(t->workers);
    gr_loop_drain_posts(t->loop);
    gr_loop_destroy(t->loop);
    gr_logtest_rmrf(t->dir);
}
