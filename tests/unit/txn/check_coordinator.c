/*
 * txn/coordinator: the coordinator over a real single-broker cluster in a
 * temporary directory (partition logs, producer state, __transaction_state)
 * with a test clock: commit and abort write their markers and move the
 * last stable offset; state survives a restart and Prepare* transactions
 * are completed by it; timeouts abort with an epoch bump; expired ids are
 * tombstoned; a marker that cannot be written is retried; the offsets hook
 * hears of markers on __consumer_offsets.
 */
#include "../unit.h"

#include "../log/logtest.h"
#include "core/fault.h"
#include "core/log.h"
#include "group/group.h"
#include "log/producer_state.h"
#include "log/txn_index.h"
#include "proto/records.h"
#include "txn/txn_int.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct fx {
    gr_logtest_t lt;
    gr_cluster_t *c;
    gr_pids_t *pids;
    gr_txn_coord_t *tc;
    int marks; /* offsets hook calls */
    int64_t mark_pid;
    bool mark_commit;
    gr_groups_t *groups; /* when a test runs the group coordinator */
} fx_t;


static int64_t fake_now = 1700000000000LL;
static int16_t fx_tv; /* the coordinator's transaction.version */

static int64_t
clock_ms(void)
{
    return fake_now;
}

static gr_kerr_t
created(void *arg, gr_partition_t *p)
{
    fx_t *f = arg;
    gr_log_config_t cfg = gr_logtest_config();
    gr_err_t err = 0;
    if (strcmp(p->topic->name, "compact") == 0) {
        cfg.cleanup_compact = true;
        cfg.cleanup_delete = false;
        cfg.segment_bytes = 300; /* a few batches a segment */
        cfg.min_cleanable_ratio = 0.0;
        cfg.index_interval_bytes = 100;
    }
    p->log =
        gr_log_open(f->lt.m, p->topic->name, p->id, &p->topic->id, &cfg, &err);
    ck_assert_ptr_nonnull(p->log);
    p->high_watermark = gr_log_end_offset(p->log);
    p->pstate = gr_pstate_new(p->topic->name, p->id);
    ck_assert_int_eq(gr_pstate_load(p->pstate, p->log), 0);
    return GR_KERR_NONE;
}

static void
deleted(void *arg, gr_partition_t *p)
{
    (void)arg;
    gr_pstate_destroy(p->pstate);
    p->pstate = NULL;
    if (p->log)
        gr_log_delete(p->log);
    p->log = NULL;
}

static void
offsets_marker(void *arg, gr_partition_t *p, int64_t pid, bool commit)
{
    fx_t *f = arg;
    ck_assert_str_eq(p->topic->name, "__consumer_offsets");
    f->marks++;
    f->mark_pid = pid;
    f->mark_commit = commit;
    if (f->groups)
        gr_groups_txn_complete(f->groups, p->id, pid, commit);
}

static void
start(fx_t *f)
{
    gr_endpoint_t ep;
    gr_cluster_hooks_t ch = { .partition_created = created,
                              .partition_deleted = deleted,
                              .arg = f };
    gr_txn_hooks_t th = { offsets_marker, f };
    gr_txn_config_t cfg;

    memset(&ep, 0, sizeof ep);
    strcpy(ep.listener, "PLAINTEXT");
    strcpy(ep.host, "127.0.0.1");
    ep.port = 9092;
    f->c = gr_cluster_local_new(f->lt.dir, 1, &ep, 1, &ch);
    ck_assert_ptr_nonnull(f->c);
    ck_assert_int_eq(gr_cluster_load(f->c), 0);
    f->pids = gr_pids_open(f->lt.dir);
    ck_assert_ptr_nonnull(f->pids);
    memset(&cfg, 0, sizeof cfg);
    cfg.max_timeout_ms = 900000;
    cfg.id_expiration_ms = 3600000;
    cfg.abort_interval_ms = 10000;
    cfg.remove_expired_interval_ms = 3600000;
    cfg.clock_ms = clock_ms;
    cfg.transaction_version = fx_tv;
    f->tc = gr_txn_coord_new(NULL, f->c, f->pids, 1, &cfg, &th);
    ck_assert_ptr_nonnull(f->tc);
    gr_txn_coord_start(f->tc);
}

/* A clean stop (kill: no producer snapshots) and a new start. */
static void
restart(fx_t *f, bool clean)
{
    gr_txn_coord_destroy(f->tc);
    for (gr_topic_t *t = f->c->topics; t; t = t->lnext)
        for (int32_t i = 0; i < t->nparts; i++) {
            gr_partition_t *p = t->parts[i];
            if (clean)
                gr_pstate_snapshot(p->pstate, p->log);
            gr_pstate_destroy(p->pstate);
            p->pstate = NULL;
            p->log = NULL;
        }
    gr_cluster_destroy(f->c);
    gr_pids_close(f->pids);
    gr_logtest_reopen(&f->lt, 64);
    start(f);
}

static void
topic(fx_t *f, const char *name, int32_t nparts, bool internal)
{
    gr_topic_spec_t spec;
    gr_topic_t *t;
    const char *msg = NULL;
    memset(&spec, 0, sizeof spec);
    spec.name = name;
    spec.nparts = nparts;
    spec.replication_factor = 1;
    spec.internal = internal;
    ck_assert_int_eq(gr_cluster_create_topic(f->c, &spec, &t, &msg),
                     GR_KERR_NONE);
}

static void
fx_init(fx_t *f)
{
    memset(f, 0, sizeof *f);
    gr_logtest_init(&f->lt, 64);
    gr_log_level = GR_LOG_LEVEL_ERROR;
    start(f);
    topic(f, "t", 2, false);
    topic(f, "__transaction_state", 3, true);
}

static void
fx_fini(fx_t *f)
{
    gr_txn_coord_destroy(f->tc);
    for (gr_topic_t *t = f->c->topics; t; t = t->lnext)
        for (int32_t i = 0; i < t->nparts; i++) {
            gr_pstate_destroy(t->parts[i]->pstate);
            t->parts[i]->pstate = NULL;
            t->parts[i]->log = NULL;
        }
    gr_cluster_destroy(f->c);
    gr_pids_close(f->pids);
    gr_logtest_fini(&f->lt);
    gr_fault_clear();
}

static gr_partition_t *
part(fx_t *f, const char *t, int32_t i)
{
    gr_str_t s = gr_str_c(t);
    return gr_cluster_partition(f->c, &s, i);
}

/* Appends a transactional batch of n records of producer pid to t-i, as
 * Produce does. */
static int64_t
produce(fx_t *f, int32_t i, gr_pid_t pid, int32_t seq, int n)
{
    gr_partition_t *p = part(f, "t", i);
    gr_batch_builder_t bb;
    gr_buf_t out = GR_BUF_INIT;
    gr_log_append_info_t info;
    gr_batch_hdr_t h;
    gr_pcheck_t chk;
    gr_bytes_t v = { (const uint8_t *)"v", 1 }, k = { NULL, -1 };

    gr_batch_builder_init(&bb, GR_CODEC_NONE, GR_ATTR_TRANSACTIONAL, pid.id,
                          pid.epoch, seq);
    for (int r = 0; r < n; r++)
        gr_batch_builder_add(&bb, fake_now, &k, &v, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &out), 0);
    gr_batch_builder_fini(&bb);
    gr_batch_hdr_parse(out.ptr, &h);
    ck_assert_int_eq(gr_pstate_check(p->pstate, &h, &chk), GR_KERR_NONE);
    ck_assert_int_eq(gr_log_append(p->log, out.ptr, out.len, 0, &info), 0);
    gr_batch_hdr_parse(out.ptr, &h);
    gr_pstate_append(p->pstate, &h, fake_now);
    p->high_watermark = gr_log_end_offset(p->log);
    gr_buf_fini(&out);
    return info.first_offset;
}

static int64_t
lso(fx_t *f, int32_t i)
{
    gr_partition_t *p = part(f, "t", i);
    int64_t first = gr_pstate_first_unstable(p->pstate);
    return first >= 0 ? first : p->high_watermark;
}

static const char *
state(fx_t *f, const char *id)
{
    static char buf[32];
    gr_str_t s = gr_str_c(id);
    gr_arena_t *a = gr_arena_new(1024);
    gr_txn_info_t info;
    gr_kerr_t err = gr_txn_describe(f->tc, &s, a, &info);
    snprintf(buf, sizeof buf, "%s", err == GR_KERR_NONE ? info.state : "-");
    gr_arena_destroy(a);
    return buf;
}

static void
count_cb(void *arg, const gr_aborted_txn_t *t)
{
    (void)t;
    (*(int *)arg)++;
}

static int
aborted_c(fx_t *f)
{
    int n = 0;
    gr_txnidx_collect(gr_pstate_txnidx(part(f, "compact", 0)->pstate), 0,
                      INT64_MAX, count_cb, &n);
    return n;
}

static int
aborted(fx_t *f, int32_t i)
{
    int n = 0;
    gr_txnidx_collect(gr_pstate_txnidx(part(f, "t", i)->pstate), 0, INT64_MAX,
                      count_cb, &n);
    return n;
}

static const gr_str_t TX = GR_STR("tx-1");

/* EndTxn v0-v4 (transaction version 0) */
static gr_kerr_t
end_v0(gr_txn_coord_t *tc, gr_pid_t pid, bool commit)
{
    gr_pid_t out;
    return gr_txn_end(tc, &TX, pid, commit, 0, &out);
}

static gr_pid_t
init(fx_t *f, int32_t timeout_ms)
{
    gr_pid_t pid;
    ck_assert_int_eq(gr_txn_init_pid(f->tc, &TX, timeout_ms, GR_PID_NONE, &pid),
                     GR_KERR_NONE);
    return pid;
}

static void
add(fx_t *f, gr_pid_t pid, const char *t, int32_t i)
{
    gr_txn_tp_t tp = { gr_str_c(t), i };
    ck_assert_int_eq(gr_txn_add_partitions(f->tc, &TX, pid, &tp, 1, 0),
                     GR_KERR_NONE);
}

/* A transactional id with a NUL byte is refused as an empty one is:
 * ids are kept as C strings (docs/compatibility.md). */
START_TEST(test_txn_id_with_nul)
{
    fx_t f;
    gr_pid_t pid;
    gr_str_t nul = { "tx-1\0b", 6 };
    fx_init(&f);
    ck_assert_int_eq(gr_txn_init_pid(f.tc, &nul, 60000, GR_PID_NONE, &pid),
                     GR_KERR_INVALID_REQUEST);
    pid = init(&f, 60000); /* "tx-1" itself is fine */
    ck_assert_int_eq(pid.epoch, 0);
    fx_fini(&f);
}
END_TEST

START_TEST(test_commit_and_abort)
{
    fx_t f;
    gr_pid_t pid;
    fx_init(&f);
    pid = init(&f, 60000);
    ck_assert_int_eq(pid.epoch, 0);
    ck_assert_str_eq(state(&f, "tx-1"), "Empty");
    add(&f, pid, "t", 0);
    add(&f, pid, "t", 1);
    produce(&f, 0, pid, 0, 3);
    produce(&f, 1, pid, 0, 2);
    ck_assert_int_eq(lso(&f, 0), 0);
    ck_assert_str_eq(state(&f, "tx-1"), "Ongoing");
    ck_assert_int_eq(end_v0(f.tc, pid, true), GR_KERR_NONE);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteCommit");
    /* markers at 3 and 2: the LSO is the log end */
    ck_assert_int_eq(part(&f, "t", 0)->high_watermark, 4);
    ck_assert_int_eq(lso(&f, 0), 4);
    ck_assert_int_eq(lso(&f, 1), 3);
    ck_assert_int_eq(aborted(&f, 0), 0);

    add(&f, pid, "t", 0);
    produce(&f, 0, pid, 3, 1);
    ck_assert_int_eq(end_v0(f.tc, pid, false), GR_KERR_NONE);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteAbort");
    ck_assert_int_eq(lso(&f, 0), 6);
    ck_assert_int_eq(aborted(&f, 0), 1);
    /* a partition the transaction added but did not write: a marker, no
     * aborted-transaction entry */
    ck_assert_int_eq(aborted(&f, 1), 0);
    fx_fini(&f);
}
END_TEST

START_TEST(test_restart_keeps_state)
{
    fx_t f;
    gr_pid_t pid, pid2;
    fx_init(&f);
    pid = init(&f, 60000);
    add(&f, pid, "t", 0);
    produce(&f, 0, pid, 0, 2);
    ck_assert_int_eq(end_v0(f.tc, pid, false), GR_KERR_NONE);
    restart(&f, false);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteAbort");
    ck_assert_int_eq(aborted(&f, 0), 1); /* the index was read back */
    /* the next InitProducerId bumps the epoch the log had */
    pid2 = init(&f, 60000);
    ck_assert_int_eq(pid2.id, pid.id);
    ck_assert_int_eq(pid2.epoch, 1);
    /* an Ongoing transaction is loaded with its partitions */
    add(&f, pid2, "t", 1);
    restart(&f, true);
    ck_assert_str_eq(state(&f, "tx-1"), "Ongoing");
    ck_assert_int_eq(end_v0(f.tc, pid2, true), GR_KERR_NONE);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteCommit");
    /* ids are never reused */
    {
        gr_str_t other = GR_STR("tx-2");
        gr_pid_t p3;
        ck_assert_int_eq(gr_txn_init_pid(f.tc, &other, 1000, GR_PID_NONE, &p3),
                         GR_KERR_NONE);
        ck_assert_int_gt(p3.id, pid.id);
    }
    fx_fini(&f);
}
END_TEST

START_TEST(test_prepare_completed_after_restart)
{
    fx_t f;
    gr_pid_t pid;
    fx_init(&f);
    pid = init(&f, 60000);
    add(&f, pid, "t", 0);
    produce(&f, 0, pid, 0, 2);
    gr_fault_arm_spec("txn.marker:1:0");
    ck_assert_int_eq(end_v0(f.tc, pid, true), GR_KERR_NONE);
    ck_assert_str_eq(state(&f, "tx-1"), "PrepareCommit");
    ck_assert_int_eq(lso(&f, 0), 0);
    /* while completing: CONCURRENT_TRANSACTIONS */
    {
        gr_pid_t out;
        gr_txn_tp_t tp = { GR_STR("t"), 1 };
        ck_assert_int_eq(gr_txn_init_pid(f.tc, &TX, 1000, GR_PID_NONE, &out),
                         GR_KERR_CONCURRENT_TRANSACTIONS);
        ck_assert_int_eq(gr_txn_add_partitions(f.tc, &TX, pid, &tp, 1, 0),
                         GR_KERR_CONCURRENT_TRANSACTIONS);
        ck_assert_int_eq(end_v0(f.tc, pid, true),
                         GR_KERR_CONCURRENT_TRANSACTIONS);
    }
    /* the retry still fails, then works */
    gr_txn_coord_tick(f.tc);
    ck_assert_str_eq(state(&f, "tx-1"), "PrepareCommit");
    restart(&f, false);
    gr_fault_clear();
    ck_assert_str_eq(state(&f, "tx-1"), "PrepareCommit");
    gr_txn_coord_tick(f.tc);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteCommit");
    ck_assert_int_eq(lso(&f, 0), 3);
    /* and a restart with the faults gone completes at once */
    fx_fini(&f);
}
END_TEST

START_TEST(test_prepare_completed_at_load)
{
    fx_t f;
    gr_pid_t pid;
    fx_init(&f);
    pid = init(&f, 60000);
    add(&f, pid, "t", 0);
    produce(&f, 0, pid, 0, 1);
    gr_fault_arm_spec("txn.marker:1:0");
    ck_assert_int_eq(end_v0(f.tc, pid, false), GR_KERR_NONE);
    gr_fault_clear();
    restart(&f, false);
    /* the load writes the markers and logs CompleteAbort */
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteAbort");
    ck_assert_int_eq(aborted(&f, 0), 1);
    ck_assert_int_eq(lso(&f, 0), 2);
    fx_fini(&f);
}
END_TEST

START_TEST(test_txn_index_rebuilt)
{
    fx_t f;
    gr_pid_t pid;
    char path[4096];
    FILE *fp;
    fx_init(&f);
    pid = init(&f, 60000);
    add(&f, pid, "t", 0);
    produce(&f, 0, pid, 0, 2);
    ck_assert_int_eq(end_v0(f.tc, pid, false), GR_KERR_NONE);
    gr_logtest_seg_path(path, &f.lt, "t", 0, 0, ".txnindex");
    ck_assert_int_eq(gr_logtest_file_size(path), GR_TXNIDX_ENTRY);
    /* lost (a crash before the write reached the file): the replay of the
     * log after the last snapshot (none) adds it again */
    unlink(path);
    restart(&f, false);
    ck_assert_int_eq(aborted(&f, 0), 1);
    ck_assert_int_eq(gr_logtest_file_size(path), GR_TXNIDX_ENTRY);
    /* damaged, with a snapshot past the abort: rebuilt from the whole log */
    fp = fopen(path, "ab");
    fputs("junk", fp);
    fclose(fp);
    restart(&f, true);
    ck_assert_int_eq(aborted(&f, 0), 1);
    ck_assert_int_eq(gr_logtest_file_size(path), GR_TXNIDX_ENTRY);
    ck_assert_int_eq(lso(&f, 0), 3);
    fx_fini(&f);
}
END_TEST

/* One batch of one keyed record to compact-0: transactional for pid (its
 * epoch, sequence seq), plain when pid.id < 0. */
static void
put_kv(fx_t *f, gr_pid_t pid, int32_t seq, const char *k, const char *v)
{
    gr_partition_t *p = part(f, "compact", 0);
    gr_batch_builder_t bb;
    gr_buf_t out = GR_BUF_INIT;
    gr_log_append_info_t info;
    gr_batch_hdr_t h;
    gr_bytes_t kb = { (const uint8_t *)k, (int32_t)strlen(k) };
    gr_bytes_t vb = { (const uint8_t *)v, (int32_t)strlen(v) };

    gr_batch_builder_init(&bb, GR_CODEC_NONE,
                          pid.id >= 0 ? GR_ATTR_TRANSACTIONAL : 0, pid.id,
                          pid.id >= 0 ? pid.epoch : -1, pid.id >= 0 ? seq : -1);
    gr_batch_builder_add(&bb, fake_now, &kb, &vb, 0, NULL, 0);
    ck_assert_int_eq(gr_batch_builder_finish(&bb, 0, &out), 0);
    gr_batch_builder_fini(&bb);
    ck_assert_int_eq(gr_log_append(p->log, out.ptr, out.len, 0, &info), 0);
    gr_batch_hdr_parse(out.ptr, &h);
    if (pid.id >= 0)
        gr_pstate_append(p->pstate, &h, fake_now);
    p->high_watermark = gr_log_end_offset(p->log);
    gr_buf_fini(&out);
}

typedef struct kvs {
    char all[2048]; /* "k=v " for every data record, in log order */
} kvs_t;

static int
kv_record(void *arg, const gr_batch_hdr_t *h, const gr_record_t *r)
{
    kvs_t *s = arg;
    size_t n = strlen(s->all);
    (void)h;
    snprintf(s->all + n, sizeof s->all - n, "%.*s=%.*s ", (int)r->key.len,
             (const char *)r->key.ptr, (int)r->value.len,
             (const char *)r->value.ptr);
    return 0;
}

static int
kv_batch(void *arg, const uint8_t *batch, size_t n)
{
    gr_batch_hdr_t h;
    gr_buf_t scratch = GR_BUF_INIT;
    gr_batch_hdr_parse(batch, &h);
    if (!(h.attributes & GR_ATTR_CONTROL))
        gr_batch_foreach_record(batch, n, &scratch, 1 << 20, kv_record, arg);
    gr_buf_fini(&scratch);
    return 0;
}

static const char *
log_kvs(fx_t *f, kvs_t *s)
{
    memset(s, 0, sizeof *s);
    ck_assert_int_eq(gr_log_scan(part(f, "compact", 0)->log, 0, kv_batch, s),
                     0);
    return s->all;
}

static void
clean(fx_t *f)
{
    gr_logs_set_cleaner(f->lt.m, 1, 1 << 20);
    for (int rounds = 0; rounds < 20; rounds++) {
        int started = gr_logs_clean(f->lt.m, fake_now);
        gr_logtest_settle(&f->lt);
        if (started == 0 && !gr_log_cleaning(part(f, "compact", 0)->log))
            break;
    }
}

START_TEST(test_compaction_with_transactions)
{
    fx_t f;
    gr_pid_t pid, none = GR_PID_NONE;
    gr_txn_tp_t tp = { GR_STR("compact"), 0 };
    kvs_t s;
    int64_t before;

    fx_init(&f);
    topic(&f, "compact", 1, false);
    pid = init(&f, 60000);
    put_kv(&f, none, 0, "k1", "committed");
    /* an aborted value of k1 must not shadow the committed one */
    ck_assert_int_eq(gr_txn_add_partitions(f.tc, &TX, pid, &tp, 1, 0),
                     GR_KERR_NONE);
    put_kv(&f, pid, 0, "k1", "aborted");
    ck_assert_int_eq(end_v0(f.tc, pid, false), GR_KERR_NONE);
    for (int i = 0; i < 6; i++)
        put_kv(&f, none, 0, "k2", "old");
    /* an open transaction: nothing at or past its first offset is
     * compacted */
    ck_assert_int_eq(gr_txn_add_partitions(f.tc, &TX, pid, &tp, 1, 0),
                     GR_KERR_NONE);
    put_kv(&f, pid, 1, "k2", "open");
    for (int i = 0; i < 6; i++)
        put_kv(&f, none, 0, "k3", "x");
    ck_assert_int_eq(aborted_c(&f), 1);
    before = gr_log_segment_count(part(&f, "compact", 0)->log);
    clean(&f);
    ck_assert_int_gt(gr_logs_cleaner_stats(f.lt.m)->cleanings, 0);
    ck_assert_int_lt(gr_log_segment_count(part(&f, "compact", 0)->log), before);
    log_kvs(&f, &s);
    ck_assert_ptr_nonnull(strstr(s.all, "k1=committed "));
    ck_assert_ptr_null(strstr(s.all, "k1=aborted"));
    ck_assert_ptr_nonnull(strstr(s.all, "k2=old k2=open ")); /* one old */
    ck_assert_ptr_null(strstr(s.all, "k2=old k2=old"));
    /* the abort's index entry followed the merged segments */
    ck_assert_int_eq(aborted_c(&f), 1);
    restart(&f, false);
    ck_assert_int_eq(aborted_c(&f), 1);
    /* committed: the open value wins from the next cleaning on */
    ck_assert_int_eq(end_v0(f.tc, pid, true), GR_KERR_NONE);
    for (int i = 0; i < 6; i++)
        put_kv(&f, none, 0, "k4", "y");
    clean(&f);
    log_kvs(&f, &s);
    ck_assert_ptr_null(strstr(s.all, "k2=old"));
    ck_assert_ptr_nonnull(strstr(s.all, "k2=open "));
    ck_assert_ptr_nonnull(strstr(s.all, "k1=committed "));
    fx_fini(&f);
}
END_TEST

START_TEST(test_timeout_aborts_with_bump)
{
    fx_t f;
    gr_pid_t pid, out;
    fx_init(&f);
    pid = init(&f, 5000);
    add(&f, pid, "t", 0);
    produce(&f, 0, pid, 0, 1);
    fake_now += 5000;
    gr_txn_coord_tick(f.tc);
    ck_assert_str_eq(state(&f, "tx-1"), "Ongoing"); /* not past it yet */
    fake_now += 1;
    gr_txn_coord_tick(f.tc);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteAbort");
    ck_assert_int_eq(aborted(&f, 0), 1);
    /* the abandoned producer is fenced everywhere */
    ck_assert_int_eq(end_v0(f.tc, pid, true), GR_KERR_PRODUCER_FENCED);
    ck_assert_int_eq(
        gr_pstate_check_marker(part(&f, "t", 0)->pstate, pid.id, pid.epoch, 0),
        GR_KERR_INVALID_PRODUCER_EPOCH);
    /* the next instance gets epoch 2 */
    ck_assert_int_eq(gr_txn_init_pid(f.tc, &TX, 5000, GR_PID_NONE, &out),
                     GR_KERR_NONE);
    ck_assert_int_eq(out.epoch, 2);
    fx_fini(&f);
}
END_TEST

static gr_txn_t *
txn_of(fx_t *f)
{
    for (uint32_t i = 0; i < f->tc->tab_size; i++)
        for (gr_txn_t *t = f->tc->tab[i]; t; t = t->hnext)
            if (gr_str_eq_cstr(&TX, t->id))
                return t;
    return NULL;
}

/* At transaction.version 0 (loop 0) and 2 (loop 1) alike, as Kafka: the
 * abort of the fence bumps the epoch once, the retried InitProducerId
 * once more. */
START_TEST(test_fence_by_new_instance)
{
    fx_t f;
    gr_pid_t pid, out;
    fx_tv = _i ? 2 : 0;
    fx_init(&f);
    pid = init(&f, 60000);
    add(&f, pid, "t", 0);
    produce(&f, 0, pid, 0, 1);
    /* a second instance: the open transaction is aborted, retry */
    ck_assert_int_eq(gr_txn_init_pid(f.tc, &TX, 60000, GR_PID_NONE, &out),
                     GR_KERR_CONCURRENT_TRANSACTIONS);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteAbort");
    ck_assert_int_eq(txn_of(&f)->epoch, 1);
    ck_assert_int_eq(gr_txn_init_pid(f.tc, &TX, 60000, GR_PID_NONE, &out),
                     GR_KERR_NONE);
    ck_assert_int_eq(out.epoch, 2);
    ck_assert_int_eq(lso(&f, 0), 2);
    fx_fini(&f);
    fx_tv = 0;
}
END_TEST

START_TEST(test_expiration)
{
    fx_t f;
    gr_pid_t pid;
    gr_str_t other = GR_STR("tx-2");
    fx_init(&f);
    pid = init(&f, 60000);
    add(&f, pid, "t", 0);
    ck_assert_int_eq(gr_txn_init_pid(f.tc, &other, 1000, GR_PID_NONE, &pid),
                     GR_KERR_NONE);
    fake_now += 3600001;
    gr_txn_coord_tick(f.tc); /* tx-1 is Ongoing: timed out, aborted */
    gr_txn_coord_tick(f.tc);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteAbort");
    ck_assert_str_eq(state(&f, "tx-2"), "-"); /* expired */
    restart(&f, false);
    ck_assert_str_eq(state(&f, "tx-2"), "-"); /* its tombstone was loaded */
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteAbort");
    fake_now += 3600001;
    gr_txn_coord_tick(f.tc);
    ck_assert_str_eq(state(&f, "tx-1"), "-");
    fx_fini(&f);
}
END_TEST

START_TEST(test_offsets_partition_marker)
{
    fx_t f;
    gr_pid_t pid;
    fx_init(&f);
    topic(&f, "__consumer_offsets", 2, true);
    pid = init(&f, 60000);
    add(&f, pid, "__consumer_offsets", 1);
    ck_assert_int_eq(end_v0(f.tc, pid, true), GR_KERR_NONE);
    ck_assert_int_eq(f.marks, 1);
    ck_assert_int_eq(f.mark_pid, pid.id);
    ck_assert(f.mark_commit);
    fx_fini(&f);
}
END_TEST

START_TEST(test_loading)
{
    fx_t f;
    gr_pid_t pid;
    gr_txn_coord_t *tc;
    gr_txn_config_t cfg;
    gr_arena_t *a = gr_arena_new(512);
    gr_txn_info_t info;
    fx_init(&f);
    pid = init(&f, 60000);
    add(&f, pid, "t", 0);
    /* a second coordinator over the same logs, with a loop: its load runs
     * a slice per loop turn, and until then ids answer LOAD_IN_PROGRESS */
    memset(&cfg, 0, sizeof cfg);
    cfg.max_timeout_ms = 900000;
    cfg.id_expiration_ms = 3600000;
    cfg.abort_interval_ms = 10000;
    cfg.remove_expired_interval_ms = 3600000;
    cfg.clock_ms = clock_ms;
    tc = gr_txn_coord_new(f.lt.loop, f.c, f.pids, 1, &cfg, NULL);
    gr_txn_coord_start(tc);
    ck_assert_int_eq(end_v0(tc, pid, true),
                     GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
    ck_assert_int_eq(gr_txn_describe(tc, &TX, a, &info),
                     GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
    gr_txn_coord_load_all_now(tc);
    ck_assert_int_eq(gr_txn_describe(tc, &TX, a, &info), GR_KERR_NONE);
    ck_assert_str_eq(info.state, "Ongoing");
    ck_assert_int_eq(info.nparts, 1);
    gr_txn_coord_destroy(tc);
    gr_arena_destroy(a);
    fx_fini(&f);
}
END_TEST

/* --- the seam with the group coordinator: TxnOffsetCommit */

static void
groups_start(fx_t *f)
{
    gr_groups_config_t cfg;
    gr_topic_t *t = gr_cluster_topic_cstr(f->c, "__consumer_offsets");
    memset(&cfg, 0, sizeof cfg);
    cfg.max_session_timeout_ms = 300000;
    cfg.max_size = 100;
    cfg.offsets_retention_ms = 7 * 24 * 3600 * 1000LL;
    cfg.retention_check_interval_ms = 600000;
    cfg.offset_metadata_max_bytes = 4096;
    cfg.new_member_join_timeout_ms = 300000;
    cfg.load_bytes_per_turn = 1 << 20;
    f->groups = gr_groups_new(f->lt.loop, f->c, 1, &cfg);
    ck_assert_ptr_nonnull(f->groups);
    gr_groups_start(f->groups);
    for (int32_t i = 0; t && i < t->nparts; i++)
        gr_groups_partition_added(f->groups, t->parts[i]);
    gr_groups_load_all_now(f->groups);
}

static void
groups_stop(fx_t *f)
{
    gr_groups_destroy(f->groups);
    f->groups = NULL;
}

static void
waiter_cb(gr_group_waiter_t *w, const void *result)
{
    *(gr_kerr_t *)w->arg = *(const gr_kerr_t *)result;
}

static gr_kerr_t
txn_commit(fx_t *f, gr_pid_t pid, int64_t offset)
{
    gr_group_commit_part_t part;
    gr_group_txn_commit_args_t a;
    gr_group_waiter_t w;
    gr_kerr_t res = -1;
    memset(&part, 0, sizeof part);
    part.topic = GR_STR("t");
    part.partition = 0;
    part.offset = offset;
    part.leader_epoch = -1;
    part.metadata = GR_STR("");
    part.commit_timestamp = -1;
    memset(&a, 0, sizeof a);
    a.group_id = GR_STR("g");
    a.member_id = GR_STR("");
    a.group_instance_id = GR_STR_NULL;
    a.generation_id = -1;
    a.producer_id = pid.id;
    a.producer_epoch = pid.epoch;
    a.parts = &part;
    a.nparts = 1;
    gr_group_waiter_init(&w, waiter_cb, &res);
    ck_assert(!gr_group_txn_commit_offsets(f->groups, &a, &w));
    ck_assert_int_eq(res, GR_KERR_NONE);
    return part.error;
}

static int64_t
group_offset(fx_t *f, bool require_stable, gr_kerr_t *err)
{
    gr_group_offset_t o;
    gr_str_t g = GR_STR("g"), t = GR_STR("t");
    gr_group_offset_get(f->groups, &g, &t, 0, require_stable, &o);
    *err = o.error;
    return o.offset;
}

/* The group's whole list (OffsetFetch with null topics). */
static void
all_offsets_cb(void *arg, const char *topic, int32_t partition,
               const gr_group_offset_t *o)
{
    gr_group_offset_t *out = arg;
    (void)topic;
    if (partition == 0)
        *out = *o;
}

static int64_t
group_offset_all(fx_t *f, bool require_stable, gr_kerr_t *err)
{
    gr_group_offset_t o = { -2, -1, GR_STR(""), GR_KERR_NONE };
    gr_str_t g = GR_STR("g");
    gr_group_offsets_foreach(f->groups, &g, require_stable, all_offsets_cb,
                             &o);
    *err = o.error;
    return o.offset;
}

START_TEST(test_txn_offset_commit)
{
    fx_t f;
    gr_pid_t pid;
    gr_kerr_t err;
    gr_str_t g = GR_STR("g");
    fx_init(&f);
    topic(&f, "__consumer_offsets", 3, true);
    groups_start(&f);
    pid = init(&f, 60000);
    add(&f, pid, "__consumer_offsets", gr_cluster_coord_partition(&g, 3));
    ck_assert_int_eq(txn_commit(&f, pid, 17), GR_KERR_NONE);
    /* pending: not visible, and unstable for require_stable */
    ck_assert_int_eq(group_offset(&f, false, &err), -1);
    ck_assert_int_eq(group_offset(&f, true, &err), -1);
    ck_assert_int_eq(err, GR_KERR_UNSTABLE_OFFSET_COMMIT);
    ck_assert_int_eq(end_v0(f.tc, pid, false), GR_KERR_NONE);
    ck_assert_int_eq(group_offset(&f, true, &err), -1); /* dropped */
    ck_assert_int_eq(err, GR_KERR_NONE);
    add(&f, pid, "__consumer_offsets", gr_cluster_coord_partition(&g, 3));
    ck_assert_int_eq(txn_commit(&f, pid, 42), GR_KERR_NONE);
    ck_assert_int_eq(end_v0(f.tc, pid, true), GR_KERR_NONE);
    ck_assert_int_eq(group_offset(&f, true, &err), 42);
    /* pending over a committed offset: the whole list says so too, with
     * require_stable (Kafka's fetchAllOffsets), and shows 42 without */
    add(&f, pid, "__consumer_offsets", gr_cluster_coord_partition(&g, 3));
    ck_assert_int_eq(txn_commit(&f, pid, 50), GR_KERR_NONE);
    ck_assert_int_eq(group_offset_all(&f, true, &err), -1);
    ck_assert_int_eq(err, GR_KERR_UNSTABLE_OFFSET_COMMIT);
    ck_assert_int_eq(group_offset_all(&f, false, &err), 42);
    ck_assert_int_eq(err, GR_KERR_NONE);
    ck_assert_int_eq(end_v0(f.tc, pid, true), GR_KERR_NONE);
    ck_assert_int_eq(group_offset_all(&f, true, &err), 50);
    /* a commit left in PrepareCommit: after a restart the coordinator
     * writes the marker while the group partition loads */
    add(&f, pid, "__consumer_offsets", gr_cluster_coord_partition(&g, 3));
    ck_assert_int_eq(txn_commit(&f, pid, 99), GR_KERR_NONE);
    gr_fault_arm_spec("txn.marker:1:0");
    ck_assert_int_eq(end_v0(f.tc, pid, true), GR_KERR_NONE);
    gr_fault_clear();
    groups_stop(&f);
    restart(&f, false); /* the txn coordinator completes it at start */
    groups_start(&f);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteCommit");
    ck_assert_int_eq(group_offset(&f, true, &err), 99);
    ck_assert_int_eq(err, GR_KERR_NONE);
    /* and a plain restart loads the same */
    groups_stop(&f);
    restart(&f, true);
    groups_start(&f);
    ck_assert_int_eq(group_offset(&f, true, &err), 99);
    groups_stop(&f);
    fx_fini(&f);
}
END_TEST

START_TEST(test_requests_need_the_topic)
{
    fx_t f;
    gr_pid_t pid;
    gr_arena_t *a;
    gr_txn_info_t info;
    memset(&f, 0, sizeof f);
    gr_logtest_init(&f.lt, 64);
    start(&f);
    /* no __transaction_state: nothing known, nothing can be logged */
    ck_assert_int_eq(gr_txn_init_pid(f.tc, &TX, 1000, GR_PID_NONE, &pid),
                     GR_KERR_COORDINATOR_NOT_AVAILABLE);
    a = gr_arena_new(512);
    ck_assert_int_eq(gr_txn_describe(f.tc, &TX, a, &info),
                     GR_KERR_TRANSACTIONAL_ID_NOT_FOUND);
    gr_arena_destroy(a);
    ck_assert_int_eq(gr_txn_init_pid(f.tc, &TX, 900001, GR_PID_NONE, &pid),
                     GR_KERR_INVALID_TRANSACTION_TIMEOUT);
    {
        gr_str_t empty = GR_STR("");
        ck_assert_int_eq(gr_txn_init_pid(f.tc, &empty, 1000, GR_PID_NONE, &pid),
                         GR_KERR_INVALID_REQUEST);
        ck_assert_int_eq(gr_txn_end(f.tc, &empty, pid, true, 0, &pid),
                         GR_KERR_INVALID_REQUEST);
    }
    fx_fini(&f);
}
END_TEST


/* --- transaction version 2 (KIP-890 part 2) */

static gr_kerr_t
end_v2(gr_txn_coord_t *tc, gr_pid_t pid, bool commit, gr_pid_t *next)
{
    return gr_txn_end(tc, &TX, pid, commit, 2, next);
}

static void
add_v2(fx_t *f, gr_pid_t pid, const char *t, int32_t i)
{
    gr_txn_tp_t tp = { gr_str_c(t), i };
    ck_assert_int_eq(gr_txn_add_partitions(f->tc, &TX, pid, &tp, 1, 2),
                     GR_KERR_NONE);
}

static void
epoch_cb(void *arg, const gr_pinfo_t *p)
{
    *(int16_t *)arg = p->epoch;
}

/* The epoch t-i's producer state holds (the last marker's). */
static int16_t
part_epoch(fx_t *f, int32_t i)
{
    int16_t e = -2;
    gr_pstate_foreach(part(f, "t", i)->pstate, epoch_cb, &e);
    return e;
}

START_TEST(test_tv2_epoch_bump_per_transaction)
{
    fx_t f;
    gr_pid_t pid, next, again;

    fx_tv = 2;
    fx_init(&f);
    pid = init(&f, 60000);
    ck_assert_int_eq(pid.epoch, 0);
    /* the partition joins through the Produce (no AddPartitionsToTxn) */
    add_v2(&f, pid, "t", 0);
    produce(&f, 0, pid, 0, 3);
    ck_assert_int_eq(end_v2(f.tc, pid, true, &next), GR_KERR_NONE);
    ck_assert_int_eq(next.id, pid.id);
    ck_assert_int_eq(next.epoch, 1);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteCommit");
    ck_assert_int_eq(lso(&f, 0), 4);
    /* the marker carried the bumped epoch */
    ck_assert_int_eq(part_epoch(&f, 0), 1);
    /* the answer was lost: the retry with the old epoch is answered the
     * same */
    ck_assert_int_eq(end_v2(f.tc, pid, true, &again), GR_KERR_NONE);
    ck_assert_int_eq(again.id, next.id);
    ck_assert_int_eq(again.epoch, 1);
    /* no transaction open: a commit is refused, older epochs fenced */
    ck_assert_int_eq(end_v2(f.tc, next, true, &again),
                     GR_KERR_INVALID_TXN_STATE);
    ck_assert_int_eq(again.id, -1);
    /* the next transaction, at the new epoch, its sequences from 0 */
    add_v2(&f, next, "t", 0);
    produce(&f, 0, next, 0, 2);
    pid = next;
    ck_assert_int_eq(end_v2(f.tc, pid, false, &next), GR_KERR_NONE);
    ck_assert_int_eq(next.epoch, 2);
    ck_assert_int_eq(aborted(&f, 0), 1);
    ck_assert_int_eq(part_epoch(&f, 0), 2);
    /* an abort with nothing open still bumps (it fences) */
    pid = next;
    ck_assert_int_eq(end_v2(f.tc, pid, false, &next), GR_KERR_NONE);
    ck_assert_int_eq(next.epoch, 3);
    ck_assert_int_eq(end_v2(f.tc, (gr_pid_t){ pid.id, 1 }, false, &again),
                     GR_KERR_PRODUCER_FENCED);
    /* a TV1 client's EndTxn v4 on the same id: no bump */
    add(&f, next, "t", 1);
    ck_assert_int_eq(gr_txn_end(f.tc, &TX, next, true, 0, &again),
                     GR_KERR_NONE);
    ck_assert_int_eq(txn_of(&f)->epoch, 3);
    /* the v1 records bring all of it back */
    restart(&f, true);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteCommit");
    ck_assert_int_eq(txn_of(&f)->epoch, 3);
    ck_assert_int_eq(txn_of(&f)->client_version, 0);
    add_v2(&f, next, "t", 1);
    ck_assert_int_eq(txn_of(&f)->client_version, 2);
    fx_fini(&f);
    fx_tv = 0;
}
END_TEST

/* An exhausted epoch: the end allocates the next producer id, which the
 * producer goes on with at epoch 0; a retry of that end still works. */
START_TEST(test_tv2_epoch_exhausted)
{
    fx_t f;
    gr_pid_t pid, next, again;
    gr_txn_t *txn;

    fx_tv = 2;
    fx_init(&f);
    pid = init(&f, 60000);
    txn = txn_of(&f);
    txn->epoch = GR_TXN_EPOCH_EXHAUSTED;
    pid.epoch = GR_TXN_EPOCH_EXHAUSTED;
    add_v2(&f, pid, "t", 0);
    produce(&f, 0, pid, 0, 1);
    ck_assert_int_eq(end_v2(f.tc, pid, true, &next), GR_KERR_NONE);
    ck_assert_int_ne(next.id, pid.id);
    ck_assert_int_eq(next.epoch, 0);
    ck_assert_int_eq(txn->producer_id, next.id);
    ck_assert_int_eq(txn->prev_producer_id, pid.id);
    ck_assert_int_eq(part_epoch(&f, 0), INT16_MAX); /* the marker's */
    ck_assert_int_eq(end_v2(f.tc, pid, true, &again), GR_KERR_NONE);
    ck_assert_int_eq(again.id, next.id);
    ck_assert_int_eq(again.epoch, 0);
    add_v2(&f, next, "t", 0);
    ck_assert_str_eq(state(&f, "tx-1"), "Ongoing");
    fx_fini(&f);
    fx_tv = 0;
}
END_TEST

/* The coordinator's own abort at transaction.version 2 (a timeout): the
 * fence bumps the epoch and so does the end, as Kafka ends its aborts at
 * the cluster's level. */
START_TEST(test_tv2_timeout_abort)
{
    fx_t f;
    gr_pid_t pid, out;

    fx_tv = 2;
    fx_init(&f);
    pid = init(&f, 5000);
    add_v2(&f, pid, "t", 0);
    produce(&f, 0, pid, 0, 1);
    fake_now += 5001;
    gr_txn_coord_tick(f.tc);
    ck_assert_str_eq(state(&f, "tx-1"), "CompleteAbort");
    /* one bump, as Kafka 4.4 at transaction.version 2 (0 -> 1) */
    ck_assert_int_eq(txn_of(&f)->epoch, pid.epoch + 1);
    ck_assert_int_eq(txn_of(&f)->last_epoch, pid.epoch);
    ck_assert_int_eq(part_epoch(&f, 0), pid.epoch + 1);
    ck_assert_int_eq(aborted(&f, 0), 1);
    /* the producer's end at the epoch before is taken as a retry of the
     * end that was an abort: a commit is INVALID_TXN_STATE, an abort
     * succeeds; a version 1 client (EndTxn v4) is fenced */
    ck_assert_int_eq(end_v2(f.tc, pid, true, &out),
                     GR_KERR_INVALID_TXN_STATE);
    ck_assert_int_eq(end_v2(f.tc, pid, false, &out), GR_KERR_NONE);
    ck_assert_int_eq(out.epoch, pid.epoch + 1);
    ck_assert_int_eq(gr_txn_end(f.tc, &TX, pid, true, 0, &out),
                     GR_KERR_PRODUCER_FENCED);
    fx_fini(&f);
    fx_tv = 0;
}
END_TEST

/* The broker's side of transaction verification: the partition's own
 * producer state first (UnifiedLog.maybeStartTransactionVerification),
 * then the coordinator's answer as AddPartitionsToTxnManager words it. */
START_TEST(test_verify_start_and_words)
{
    gr_partition_t p;
    gr_batch_hdr_t h;
    bool ask;

    memset(&p, 0, sizeof p);
    ck_assert_int_eq(gr_txn_verify_start(&p, (gr_pid_t){ 7, 1 }, &ask),
                     GR_KERR_KAFKA_STORAGE_ERROR);
    p.pstate = gr_pstate_new("t", 0);
    ck_assert_ptr_nonnull(p.pstate);
    /* no state of the producer: ask the coordinator */
    ck_assert_int_eq(gr_txn_verify_start(&p, (gr_pid_t){ 7, 1 }, &ask),
                     GR_KERR_NONE);
    ck_assert(ask);
    /* its transaction open here at epoch 1 */
    memset(&h, 0, sizeof h);
    h.producer_id = 7;
    h.producer_epoch = 1;
    h.attributes = GR_ATTR_TRANSACTIONAL;
    h.max_timestamp = 1;
    gr_pstate_append(p.pstate, &h, 1);
    ck_assert_int_eq(gr_txn_verify_start(&p, (gr_pid_t){ 7, 1 }, &ask),
                     GR_KERR_NONE);
    ck_assert(!ask);
    ck_assert_int_eq(gr_txn_verify_start(&p, (gr_pid_t){ 7, 2 }, &ask),
                     GR_KERR_NONE);
    ck_assert(ask);
    ck_assert_int_eq(gr_txn_verify_start(&p, (gr_pid_t){ 7, 0 }, &ask),
                     GR_KERR_INVALID_PRODUCER_EPOCH);
    gr_pstate_destroy(p.pstate);

    ck_assert_int_eq(gr_txn_verify_error(GR_KERR_PRODUCER_FENCED, false),
                     GR_KERR_INVALID_PRODUCER_EPOCH);
    ck_assert_int_eq(gr_txn_verify_error(GR_KERR_PRODUCER_FENCED, true),
                     GR_KERR_INVALID_PRODUCER_EPOCH);
    ck_assert_int_eq(gr_txn_verify_error(GR_KERR_TRANSACTION_ABORTABLE, false),
                     GR_KERR_INVALID_TXN_STATE);
    ck_assert_int_eq(gr_txn_verify_error(GR_KERR_TRANSACTION_ABORTABLE, true),
                     GR_KERR_TRANSACTION_ABORTABLE);
    ck_assert_int_eq(
        gr_txn_verify_error(GR_KERR_CONCURRENT_TRANSACTIONS, false),
        GR_KERR_CONCURRENT_TRANSACTIONS);
    ck_assert_int_eq(gr_txn_verify_error(GR_KERR_NONE, false), GR_KERR_NONE);
}
END_TEST

Suite *
suite_txn_coordinator(void)
{
    Suite *s = suite_create("txn/coordinator");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_commit_and_abort);
    tcase_add_test(tc, test_txn_id_with_nul);
    tcase_add_test(tc, test_restart_keeps_state);
    tcase_add_test(tc, test_prepare_completed_after_restart);
    tcase_add_test(tc, test_prepare_completed_at_load);
    tcase_add_test(tc, test_txn_index_rebuilt);
    tcase_add_test(tc, test_compaction_with_transactions);
    tcase_add_test(tc, test_timeout_aborts_with_bump);
    tcase_add_loop_test(tc, test_fence_by_new_instance, 0, 2);
    tcase_add_test(tc, test_expiration);
    tcase_add_test(tc, test_offsets_partition_marker);
    tcase_add_test(tc, test_loading);
    tcase_add_test(tc, test_txn_offset_commit);
    tcase_add_test(tc, test_requests_need_the_topic);
    tcase_add_test(tc, test_tv2_epoch_bump_per_transaction);
    tcase_add_test(tc, test_tv2_epoch_exhausted);
    tcase_add_test(tc, test_tv2_timeout_abort);
    tcase_add_test(tc, test_verify_start_and_words);
    suite_add_tcase(s, tc);
    return s;
}
