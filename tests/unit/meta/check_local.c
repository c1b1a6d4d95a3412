/* meta/local: meta_local's recovery from snapshot and journal, and its
 * close; "meta/contract" runs the engine-neutral cases of contract.c over
 * it (the same cases tests/zk/check_meta_zk.c runs over ZooKeeper). */
#include "../unit.h"
#include "../log/logtest.h"
#include "contract.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/worker.h"
#include "meta/meta.h"
#include "txn/pid.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOURNAL "00000000000000000000.log"

static void
local_fresh(char *where, size_t n)
{
    snprintf(where, n, "/tmp/gr-meta-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(where));
}

static gr_meta_t *
local_open(gr_loop_t *loop, gr_workers_t *workers, const char *where,
           gr_meta_session_cb cb, void *arg)
{
    gr_meta_cfg_t cfg = { .loop = loop, .workers = workers, .dir = where };
    return gr_meta_local_open(&cfg, cb, arg);
}

static const meta_engine_t local_engine = {
    .name = "local",
    .fresh = local_fresh,
    .open = local_open,
    .remove = gr_logtest_rmrf,
    .multi_create_stat = true,
};

static off_t
file_size(const char *name)
{
    char p[600];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", T.dir, name);
    ck_assert_int_eq(stat(p, &sb), 0);
    return sb.st_size;
}

static void
journal_cut(off_t by)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", T.dir, JOURNAL);
    ck_assert_int_eq(truncate(p, file_size(JOURNAL) - by), 0);
}

static void
journal_append(const void *b, size_t n)
{
    char p[600];
    int fd;
    snprintf(p, sizeof p, "%s/%s", T.dir, JOURNAL);
    fd = open(p, O_WRONLY | O_APPEND);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b, n), (ssize_t)n);
    close(fd);
}

START_TEST(test_recovery)
{
    int64_t czxid, eph;
    meta_setup();
    ck_assert_int_eq(create("/brokers", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/brokers/ids", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/brokers/ids/1", "{}", GR_META_EPHEMERAL),
                     GR_META_OK);
    eph = T.st.ephemeral_owner;
    ck_assert_int_eq(create("/c", "v", 0), GR_META_OK);
    czxid = T.st.czxid;
    ck_assert_int_eq(set("/c", "w", 0), GR_META_OK);
    ck_assert_int_eq(create("/s-", "", GR_META_SEQUENTIAL), GR_META_OK);
    ck_assert_str_eq(T.path, "/s-0000000002");
    ck_assert_int_gt(file_size(JOURNAL), 0);
    meta_close();

    /* from the journal: everything acknowledged, the ephemeral gone */
    meta_open();
    ck_assert_int_eq(get("/c", false), GR_META_OK);
    ck_assert_str_eq(T.data, "w");
    ck_assert_int_eq(T.st.version, 1);
    ck_assert_int_eq(T.st.czxid, czxid);
    ck_assert_int_eq(exists("/brokers/ids/1", false), GR_META_NONODE);
    ck_assert_int_eq(create("/brokers/ids/1", "{}", GR_META_EPHEMERAL),
                     GR_META_OK);
    ck_assert_int_ne(T.st.ephemeral_owner, eph); /* a new session */
    ck_assert_int_gt(T.st.czxid, czxid); /* a new broker epoch */
    ck_assert_int_eq(create("/s-", "", GR_META_SEQUENTIAL), GR_META_OK);
    ck_assert_str_eq(T.path, "/s-0000000003"); /* root cversion went on */
    ck_assert_int_eq(set("/c", "x", 1), GR_META_OK);
    meta_close();

    /* from the snapshot that start made, plus the journal after it */
    meta_open();
    ck_assert_int_eq(get("/c", false), GR_META_OK);
    ck_assert_str_eq(T.data, "x");
    ck_assert_int_eq(T.st.version, 2);
    ck_assert_int_eq(exists("/s-0000000003", false), GR_META_OK);
    ck_assert_int_eq(exists("/s-0000000002", false), GR_META_OK);
    ck_assert_int_eq(exists("/brokers/ids/1", false), GR_META_NONODE);
    ck_assert_int_eq(children("/brokers/ids", false), GR_META_OK);
    ck_assert_int_eq(T.n, 0);
    meta_teardown();
}
END_TEST

/* a crash in the middle of the last append: that write was never
 * acknowledged, everything before it was */
START_TEST(test_torn_tail)
{
    char log[600], line[512];
    FILE *f;
    bool seen = false;

    meta_setup();
    ck_assert_int_eq(create("/a", "1", 0), GR_META_OK);
    ck_assert_int_eq(create("/b", "2", 0), GR_META_OK);
    meta_close();
    journal_cut(3);
    journal_append("\x00\x00\x01\x00garbage", 11);

    snprintf(log, sizeof log, "%s.stderr", T.dir);
    ck_assert_ptr_nonnull(freopen(log, "w", stderr));
    gr_log_level = GR_LOG_LEVEL_WARN;
    meta_open();
    fflush(stderr);
    gr_log_level = GR_LOG_LEVEL_ERROR;
    ck_assert_int_eq(get("/a", false), GR_META_OK);
    ck_assert_str_eq(T.data, "1");
    ck_assert_int_eq(get("/b", false), GR_META_NONODE);
    f = fopen(log, "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f) != NULL)
        seen |= strstr(line, "dropped") != NULL &&
                strstr(line, JOURNAL) != NULL;
    fclose(f);
    unlink(log);
    ck_assert(seen);
    /* the store goes on from there, and the next start reads it whole */
    ck_assert_int_eq(create("/b", "3", 0), GR_META_OK);
    meta_close();
    meta_open();
    ck_assert_int_eq(get("/b", false), GR_META_OK);
    ck_assert_str_eq(T.data, "3");
    ck_assert_int_eq(get("/a", false), GR_META_OK);
    meta_teardown();
}
END_TEST

/* garbage after whole records: nothing acknowledged is lost */
START_TEST(test_garbage_tail)
{
    meta_setup();
    ck_assert_int_eq(create("/a", "1", 0), GR_META_OK);
    ck_assert_int_eq(create("/b", "2", 0), GR_META_OK);
    meta_close();
    journal_append("\x00\x00\x00\x10\xde\xad", 6);
    gr_log_level = -1; /* the WARN is test_torn_tail's */
    meta_open();
    ck_assert_int_eq(get("/a", false), GR_META_OK);
    ck_assert_int_eq(get("/b", false), GR_META_OK);
    ck_assert_str_eq(T.data, "2");
    meta_teardown();
}
END_TEST

/* closed with answers and a write outstanding: no callback after close */
START_TEST(test_close_pending)
{
    meta_setup();
    ck_assert_int_eq(gr_meta_create(T.m, "/a", "", 0, 0, on_create, NULL), 0);
    ck_assert_int_eq(gr_meta_get(T.m, "/", NULL, NULL, on_data, NULL), 0);
    gr_meta_close(T.m);
    T.m = NULL;
    for (int i = 0; i < 20; i++)
        gr_loop_run_for(T.loop, 10);
    ck_assert_int_eq(T.answers, 0);
    meta_teardown();
}
END_TEST

/* gr_pids_next until an id (the loop run while GR_PID_PENDING) */
static int64_t
pid_wait(gr_pids_t *p)
{
    int64_t id = GR_PID_PENDING;
    for (int i = 0; i < 500 && (id = gr_pids_next(p)) == GR_PID_PENDING; i++)
        gr_loop_run_for(T.loop, 10);
    return id;
}

/* txn/pid.c's cluster mode over the store: two brokers take blocks of
 * /latest_producer_id_block at once (one loses the version race and
 * reads again), ids are never shared, the next block is taken at 90%
 * so the 1001st id needs no wait, a restarted broker takes a fresh
 * block. */
START_TEST(test_pid_blocks)
{
    gr_pids_t *a, *b;
    int64_t ida, idb, id;
    meta_setup();
    /* Kafka makes the node at start-up, empty */
    ck_assert_int_eq(create(GR_PID_ZNODE, "", 0), GR_META_OK);
    a = gr_pids_open(T.dir);
    b = gr_pids_open(T.dir);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    gr_pids_use_meta(a, T.m, 1);
    gr_pids_use_meta(b, T.m, 2);
    ck_assert_int_eq(gr_pids_next(a), GR_PID_PENDING); /* never waits */
    ida = pid_wait(a);
    idb = pid_wait(b);
    ck_assert_int_eq(ida, 0);
    ck_assert_int_eq(idb, 1000); /* read again after BADVERSION */
    for (int i = 1; i < 900; i++)
        ck_assert_int_eq(gr_pids_next(a), i);
    /* the 900th id asked for the next block */
    for (int i = 0; i < 20; i++)
        gr_loop_run_for(T.loop, 10);
    ck_assert_int_eq(get(GR_PID_ZNODE, false), GR_META_OK);
    ck_assert_str_eq(T.data, "{\"version\":1,\"broker\":1,"
                             "\"block_start\":\"2000\","
                             "\"block_end\":\"2999\"}");
    for (int i = 900; i < 1000; i++)
        ck_assert_int_eq(gr_pids_next(a), i);
    ck_assert_int_eq(gr_pids_next(a), 2000);
    ck_assert_int_eq(gr_pids_next(b), 1001);
    /* b restarted: a fresh block, 1002-1999 never given */
    gr_pids_close(b);
    b = gr_pids_open(T.dir);
    ck_assert_ptr_nonnull(b);
    gr_pids_use_meta(b, T.m, 2);
    id = pid_wait(b);
    ck_assert_int_eq(id, 3000);
    ck_assert_int_eq(get(GR_PID_ZNODE, false), GR_META_OK);
    ck_assert_str_eq(T.data, "{\"version\":1,\"broker\":2,"
                             "\"block_start\":\"3000\","
                             "\"block_end\":\"3999\"}");
    {
        /* nothing of the local file in cluster mode */
        char path[600];
        snprintf(path, sizeof path, "%s/gregor-producer-ids", T.dir);
        ck_assert_int_ne(access(path, F_OK), 0);
    }
    gr_pids_close(a);
    gr_pids_close(b);
    meta_teardown();
}
END_TEST

/* the parser the fuzz target drives: a snapshot is all or nothing */
START_TEST(test_parse)
{
    size_t ok = 7;
    static const uint8_t junk[] = "GRMS\0\0\0\1 not a snapshot at all";
    ck_assert_int_eq(gr_meta_local_parse(NULL, 0, NULL, 0, &ok), 0);
    ck_assert_uint_eq(ok, 0);
    ck_assert_int_eq(gr_meta_local_parse(junk, sizeof junk, NULL, 0, &ok), -1);
    ck_assert_int_eq(gr_meta_local_parse(NULL, 0, junk, sizeof junk, &ok), 0);
    ck_assert_uint_eq(ok, 0);
}
END_TEST

Suite *
suite_meta_local(void)
{
    Suite *s = suite_create("meta/local");
    TCase *tc = tcase_create("local");
    meta_engine = &local_engine;
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_recovery);
    tcase_add_test(tc, test_torn_tail);
    tcase_add_test(tc, test_garbage_tail);
    tcase_add_test(tc, test_close_pending);
    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_pid_blocks);
    suite_add_tcase(s, tc);
    return s;
}

Suite *
suite_meta_contract(void)
{
    Suite *s = suite_create("meta/contract");
    TCase *tc = tcase_create("local");
    tcase_set_timeout(tc, 30);
    meta_contract_add(tc, &local_engine);
    suite_add_tcase(s, tc);
    return s;
}
