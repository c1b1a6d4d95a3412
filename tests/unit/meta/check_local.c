/* meta/local: meta_local's tree against ZooKeeper's documented semantics
 * (the programmer's guide: versions, sequential names from the parent's
 * cversion as %010d, ephemerals without children, multi all or nothing,
 * one-shot watches) and its recovery from snapshot and journal. */
#include "../unit.h"
#include "../log/logtest.h"
#include "core/log.h"
#include "core/loop.h"
#include "core/worker.h"
#include "meta/meta.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOURNAL "00000000000000000000.log"

typedef struct {
    char dir[64];
    gr_loop_t *loop;
    gr_workers_t *workers;
    gr_meta_t *m;
    int sessions;
    /* the last answer */
    int answers, rc;
    char path[256];
    char data[256];
    size_t len;
    gr_meta_stat_t st;
    char names[16][64];
    int n;
    gr_meta_result_t res[8];
    char res_path[8][64];
    /* events, in order with answers: "W:<ev>:<path>" or "A" */
    char trace[1024];
} t_t;

static t_t T;

static void
on_session(void *arg, gr_meta_session_t s, int64_t id)
{
    (void)arg;
    ck_assert_int_eq(s, GR_META_SESSION_CONNECTED);
    ck_assert_int_gt(id, 0);
    T.sessions++;
}

static void
on_watch(void *arg, gr_meta_event_t ev, const char *path)
{
    char e[128];
    (void)arg;
    snprintf(e, sizeof e, "W%d:%s ", (int)ev, path);
    strcat(T.trace, e);
}

static void
answered(int rc)
{
    T.answers++;
    T.rc = rc;
    strcat(T.trace, "A ");
}

static void
on_create(void *arg, int rc, const char *path, const gr_meta_stat_t *st)
{
    (void)arg;
    answered(rc);
    T.path[0] = '\0';
    if (rc == 0) {
        snprintf(T.path, sizeof T.path, "%s", path);
        T.st = *st;
    }
}

static void
on_data(void *arg, int rc, const void *data, size_t len,
        const gr_meta_stat_t *st)
{
    (void)arg;
    answered(rc);
    T.len = 0;
    if (rc == 0) {
        ck_assert_uint_lt(len, sizeof T.data);
        memcpy(T.data, data, len);
        T.data[len] = '\0';
        T.len = len;
        T.st = *st;
    }
}

static void
on_stat(void *arg, int rc, const gr_meta_stat_t *st)
{
    (void)arg;
    answered(rc);
    if (rc == 0)
        T.st = *st;
}

static void
on_children(void *arg, int rc, const char *const *names, int n,
            const gr_meta_stat_t *st)
{
    (void)arg;
    answered(rc);
    T.n = n;
    for (int i = 0; i < n && i < 16; i++)
        snprintf(T.names[i], sizeof T.names[i], "%s", names[i]);
    if (rc == 0)
        T.st = *st;
}

static void
on_multi(void *arg, int rc, const gr_meta_result_t *res, int n)
{
    (void)arg;
    answered(rc);
    T.n = n;
    for (int i = 0; i < n && i < 8; i++) {
        T.res[i] = res[i];
        snprintf(T.res_path[i], sizeof T.res_path[i], "%s",
                 res[i].path ? res[i].path : "");
    }
}

/* Runs the loop until `want` answers have come (generous bound). */
static void
wait_answers(int want)
{
    for (int i = 0; i < 1000 && T.answers < want; i++)
        gr_loop_run_for(T.loop, 10);
    ck_assert_int_eq(T.answers, want);
}

static void
open_meta(void)
{
    gr_meta_cfg_t cfg = { T.loop, T.workers, T.dir };
    T.m = gr_meta_local_open(&cfg, on_session, NULL);
    ck_assert_ptr_nonnull(T.m);
}

static void
setup(void)
{
    memset(&T, 0, sizeof T);
    gr_log_level = GR_LOG_LEVEL_ERROR;
    strcpy(T.dir, "/tmp/gr-meta-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(T.dir));
    T.loop = gr_loop_new();
    T.workers = gr_workers_new(T.loop, 1);
    ck_assert_ptr_nonnull(T.workers);
    open_meta();
}

/* Closes, letting writes in flight finish. */
static void
close_meta(void)
{
    gr_meta_close(T.m);
    T.m = NULL;
    for (int i = 0; i < 500 && gr_workers_pending(T.workers) > 0; i++)
        gr_loop_run_for(T.loop, 10);
    gr_loop_run_for(T.loop, 10);
}

static void
teardown(void)
{
    if (T.m != NULL)
        close_meta();
    gr_workers_destroy(T.workers);
    gr_loop_drain_posts(T.loop);
    gr_loop_destroy(T.loop);
    gr_logtest_rmrf(T.dir);
}

/* synchronous helpers: each call, then its answer */
static int
create(const char *path, const char *data, int flags)
{
    int want = T.answers + 1;
    ck_assert_int_eq(gr_meta_create(T.m, path, data, data ? strlen(data) : 0,
                                    flags, on_create, NULL),
                     0);
    ck_assert_int_eq(T.answers, want - 1); /* never inside the call */
    wait_answers(want);
    return T.rc;
}

static int
get(const char *path, bool watch)
{
    int want = T.answers + 1;
    ck_assert_int_eq(gr_meta_get(T.m, path, watch ? on_watch : NULL, NULL,
                                 on_data, NULL),
                     0);
    wait_answers(want);
    return T.rc;
}

static int
exists(const char *path, bool watch)
{
    int want = T.answers + 1;
    ck_assert_int_eq(gr_meta_exists(T.m, path, watch ? on_watch : NULL, NULL,
                                    on_stat, NULL),
                     0);
    wait_answers(want);
    return T.rc;
}

static int
children(const char *path, bool watch)
{
    int want = T.answers + 1;
    ck_assert_int_eq(gr_meta_children(T.m, path, watch ? on_watch : NULL,
                                      NULL, on_children, NULL),
                     0);
    wait_answers(want);
    return T.rc;
}

static int
multi(const gr_meta_op_t *ops, int n)
{
    int want = T.answers + 1;
    ck_assert_int_eq(gr_meta_multi(T.m, ops, n, on_multi, NULL), 0);
    wait_answers(want);
    return T.rc;
}

static int
set(const char *path, const char *data, int32_t version)
{
    gr_meta_op_t op = { GR_META_OP_SET, path, data, strlen(data), 0, version };
    return multi(&op, 1);
}

static int
del(const char *path, int32_t version)
{
    gr_meta_op_t op = { GR_META_OP_DELETE, path, NULL, 0, 0, version };
    return multi(&op, 1);
}

START_TEST(test_versions)
{
    int64_t czxid;
    setup();
    wait_answers(0);
    ck_assert_int_eq(create("/a", "x", 0), GR_META_OK);
    ck_assert_str_eq(T.path, "/a");
    ck_assert_int_eq(T.st.version, 0);
    ck_assert_int_gt(T.st.czxid, 0);
    ck_assert_int_eq(T.st.ephemeral_owner, 0);
    czxid = T.st.czxid;
    ck_assert_int_eq(T.sessions, 1);
    ck_assert_int_eq(get("/a", false), GR_META_OK);
    ck_assert_str_eq(T.data, "x");
    ck_assert_int_eq(T.st.data_length, 1);
    /* setData(version) succeeds only on the current version, -1 on any */
    ck_assert_int_eq(set("/a", "y", 0), GR_META_OK);
    ck_assert_int_eq(T.res[0].st.version, 1);
    ck_assert_int_eq(set("/a", "z", 0), GR_META_BADVERSION);
    ck_assert_int_eq(set("/a", "z", -1), GR_META_OK);
    ck_assert_int_eq(get("/a", false), GR_META_OK);
    ck_assert_str_eq(T.data, "z");
    ck_assert_int_eq(T.st.version, 2);
    ck_assert_int_eq(T.st.czxid, czxid);
    ck_assert_int_gt(T.st.mzxid, czxid);
    /* delete(version) likewise */
    ck_assert_int_eq(del("/a", 1), GR_META_BADVERSION);
    ck_assert_int_eq(del("/a", 2), GR_META_OK);
    ck_assert_int_eq(get("/a", false), GR_META_NONODE);
    /* a new node of the same name is a new node: new czxid, version 0 */
    ck_assert_int_eq(create("/a", "", 0), GR_META_OK);
    ck_assert_int_gt(T.st.czxid, czxid);
    ck_assert_int_eq(T.st.version, 0);
    teardown();
}
END_TEST

START_TEST(test_errors)
{
    static const char *bad[] = { "a", "/a/", "//a", "/a//b", "/a/./b",
                                 "/a/../b", "", "/." };
    setup();
    ck_assert_int_eq(create("/a", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/a", "", 0), GR_META_NODEEXISTS);
    ck_assert_int_eq(create("/", "", 0), GR_META_NODEEXISTS);
    ck_assert_int_eq(create("/x/y", "", 0), GR_META_NONODE);
    ck_assert_int_eq(create("/a/b", "", 0), GR_META_OK);
    ck_assert_int_eq(del("/a", -1), GR_META_NOTEMPTY);
    ck_assert_int_eq(del("/nope", -1), GR_META_NONODE);
    ck_assert_int_eq(del("/", -1), GR_META_BADARGUMENTS);
    ck_assert_int_eq(set("/nope", "", -1), GR_META_NONODE);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(create(bad[i], "", 0), GR_META_BADARGUMENTS);
        ck_assert_int_eq(get(bad[i], false), GR_META_BADARGUMENTS);
    }
    /* ephemerals cannot have children */
    ck_assert_int_eq(create("/e", "", GR_META_EPHEMERAL), GR_META_OK);
    ck_assert_int_gt(T.st.ephemeral_owner, 0);
    ck_assert_int_eq(create("/e/c", "", 0), GR_META_NOCHILDRENFOREPHEMERALS);
    ck_assert_int_eq(children("/a", false), GR_META_OK);
    ck_assert_int_eq(T.n, 1);
    ck_assert_str_eq(T.names[0], "b");
    ck_assert_int_eq(children("/nope", false), GR_META_NONODE);
    teardown();
}
END_TEST

START_TEST(test_sequential)
{
    setup();
    ck_assert_int_eq(create("/q", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/q/n-", "", GR_META_SEQUENTIAL), GR_META_OK);
    ck_assert_str_eq(T.path, "/q/n-0000000000");
    ck_assert_int_eq(create("/q/n-", "", GR_META_SEQUENTIAL |
                                             GR_META_EPHEMERAL),
                     GR_META_OK);
    ck_assert_str_eq(T.path, "/q/n-0000000001");
    /* the counter is the parent's cversion: creates and deletes count */
    ck_assert_int_eq(create("/q/other", "", 0), GR_META_OK);
    ck_assert_int_eq(del("/q/other", -1), GR_META_OK);
    ck_assert_int_eq(create("/q/", "", GR_META_SEQUENTIAL), GR_META_OK);
    ck_assert_str_eq(T.path, "/q/0000000004");
    ck_assert_int_eq(exists("/q", false), GR_META_OK);
    ck_assert_int_eq(T.st.cversion, 5);
    ck_assert_int_eq(T.st.num_children, 3);
    ck_assert_int_eq(create("/nope/n-", "", GR_META_SEQUENTIAL),
                     GR_META_NONODE);
    teardown();
}
END_TEST

START_TEST(test_multi)
{
    gr_meta_op_t ok[] = {
        { GR_META_OP_CREATE, "/m", "1", 1, 0, -1 },
        { GR_META_OP_CREATE, "/m/c", "", 0, GR_META_SEQUENTIAL, -1 },
        { GR_META_OP_SET, "/m", "2", 1, 0, 0 },
        { GR_META_OP_CHECK, "/m", NULL, 0, 0, 1 },
    };
    gr_meta_op_t fail[] = {
        { GR_META_OP_CREATE, "/f", "", 0, 0, -1 },
        { GR_META_OP_SET, "/m", "3", 1, 0, -1 },
        { GR_META_OP_CHECK, "/m", NULL, 0, 0, 0 }, /* version is 1 */
        { GR_META_OP_DELETE, "/m/c0000000000", NULL, 0, 0, -1 },
    };
    setup();
    /* later ops see the earlier ones */
    ck_assert_int_eq(multi(ok, 4), GR_META_OK);
    ck_assert_int_eq(T.n, 4);
    ck_assert_str_eq(T.res_path[0], "/m");
    ck_assert_str_eq(T.res_path[1], "/m/c0000000000");
    ck_assert_int_eq(T.res[2].st.version, 1);
    ck_assert_int_eq(T.res[0].st.czxid, T.res[1].st.czxid); /* one zxid */
    /* one failure undoes everything: OK before, the error, then
     * RUNTIMEINCONSISTENCY */
    ck_assert_int_eq(multi(fail, 4), GR_META_BADVERSION);
    ck_assert_int_eq(T.res[0].rc, GR_META_OK);
    ck_assert_int_eq(T.res[1].rc, GR_META_OK);
    ck_assert_int_eq(T.res[2].rc, GR_META_BADVERSION);
    ck_assert_int_eq(T.res[3].rc, GR_META_RUNTIMEINCONSISTENCY);
    ck_assert_int_eq(exists("/f", false), GR_META_NONODE);
    ck_assert_int_eq(get("/m", false), GR_META_OK);
    ck_assert_str_eq(T.data, "2");
    ck_assert_int_eq(T.st.version, 1);
    ck_assert_int_eq(T.st.cversion, 1);
    ck_assert_int_eq(exists("/m/c0000000000", false), GR_META_OK);
    /* a delete then a create of the same node in one step */
    {
        gr_meta_op_t swap[] = {
            { GR_META_OP_DELETE, "/m/c0000000000", NULL, 0, 0, 0 },
            { GR_META_OP_CREATE, "/m/c0000000000", "n", 1, 0, -1 },
        };
        ck_assert_int_eq(multi(swap, 2), GR_META_OK);
        ck_assert_int_eq(get("/m/c0000000000", false), GR_META_OK);
        ck_assert_str_eq(T.data, "n");
    }
    ck_assert_int_eq(multi(ok, 0), GR_META_BADARGUMENTS);
    teardown();
}
END_TEST

START_TEST(test_watches_once)
{
    setup();
    ck_assert_int_eq(create("/w", "", 0), GR_META_OK);
    /* the same watcher set twice fires once */
    ck_assert_int_eq(get("/w", true), GR_META_OK);
    ck_assert_int_eq(get("/w", true), GR_META_OK);
    ck_assert_int_eq(children("/w", true), GR_META_OK);
    ck_assert_int_eq(exists("/x", true), GR_META_NONODE);
    ck_assert_int_eq(get("/y", true), GR_META_NONODE); /* sets nothing */
    T.trace[0] = '\0';
    ck_assert_int_eq(set("/w", "1", -1), GR_META_OK);
    ck_assert_int_eq(set("/w", "2", -1), GR_META_OK);
    /* the event comes before the answer to the write that fired it */
    ck_assert_str_eq(T.trace, "W3:/w A A ");
    T.trace[0] = '\0';
    ck_assert_int_eq(create("/w/c", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/w/d", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/x", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/y", "", 0), GR_META_OK);
    ck_assert_str_eq(T.trace, "W4:/w A A W1:/x A A ");
    /* delete: data and child watches hear DELETED */
    ck_assert_int_eq(get("/x", true), GR_META_OK);
    ck_assert_int_eq(children("/x", true), GR_META_OK);
    T.trace[0] = '\0';
    ck_assert_int_eq(del("/x", -1), GR_META_OK);
    ck_assert_int_eq(create("/x", "", 0), GR_META_OK);
    ck_assert(strcmp(T.trace, "W2:/x W2:/x A A ") == 0);
    /* a failed multi fires nothing */
    ck_assert_int_eq(get("/y", true), GR_META_OK);
    T.trace[0] = '\0';
    {
        gr_meta_op_t ops[] = {
            { GR_META_OP_SET, "/y", "", 0, 0, -1 },
            { GR_META_OP_CHECK, "/nope", NULL, 0, 0, -1 },
        };
        ck_assert_int_eq(multi(ops, 2), GR_META_NONODE);
    }
    ck_assert_str_eq(T.trace, "A ");
    teardown();
}
END_TEST

static off_t
file_size(const char *name)
{
    char p[128];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", T.dir, name);
    ck_assert_int_eq(stat(p, &sb), 0);
    return sb.st_size;
}

static void
journal_cut(off_t by)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", T.dir, JOURNAL);
    ck_assert_int_eq(truncate(p, file_size(JOURNAL) - by), 0);
}

static void
journal_append(const void *b, size_t n)
{
    char p[128];
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
    setup();
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
    close_meta();

    /* from the journal: everything acknowledged, the ephemeral gone */
    open_meta();
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
    close_meta();

    /* from the snapshot that start made, plus the journal after it */
    open_meta();
    ck_assert_int_eq(get("/c", false), GR_META_OK);
    ck_assert_str_eq(T.data, "x");
    ck_assert_int_eq(T.st.version, 2);
    ck_assert_int_eq(exists("/s-0000000003", false), GR_META_OK);
    ck_assert_int_eq(exists("/s-0000000002", false), GR_META_OK);
    ck_assert_int_eq(exists("/brokers/ids/1", false), GR_META_NONODE);
    ck_assert_int_eq(children("/brokers/ids", false), GR_META_OK);
    ck_assert_int_eq(T.n, 0);
    teardown();
}
END_TEST

/* a crash in the middle of the last append: that write was never
 * acknowledged, everything before it was */
START_TEST(test_torn_tail)
{
    char log[128], line[512];
    FILE *f;
    bool seen = false;

    setup();
    ck_assert_int_eq(create("/a", "1", 0), GR_META_OK);
    ck_assert_int_eq(create("/b", "2", 0), GR_META_OK);
    close_meta();
    journal_cut(3);
    journal_append("\x00\x00\x01\x00garbage", 11);

    snprintf(log, sizeof log, "%s.stderr", T.dir);
    ck_assert_ptr_nonnull(freopen(log, "w", stderr));
    gr_log_level = GR_LOG_LEVEL_WARN;
    open_meta();
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
    close_meta();
    open_meta();
    ck_assert_int_eq(get("/b", false), GR_META_OK);
    ck_assert_str_eq(T.data, "3");
    ck_assert_int_eq(get("/a", false), GR_META_OK);
    teardown();
}
END_TEST

/* garbage after whole records: nothing acknowledged is lost */
START_TEST(test_garbage_tail)
{
    setup();
    ck_assert_int_eq(create("/a", "1", 0), GR_META_OK);
    ck_assert_int_eq(create("/b", "2", 0), GR_META_OK);
    close_meta();
    journal_append("\x00\x00\x00\x10\xde\xad", 6);
    gr_log_level = -1; /* the WARN is test_torn_tail's */
    open_meta();
    ck_assert_int_eq(get("/a", false), GR_META_OK);
    ck_assert_int_eq(get("/b", false), GR_META_OK);
    ck_assert_str_eq(T.data, "2");
    teardown();
}
END_TEST

/* closed with answers and a write outstanding: no callback after close */
START_TEST(test_close_pending)
{
    setup();
    ck_assert_int_eq(gr_meta_create(T.m, "/a", "", 0, 0, on_create, NULL), 0);
    ck_assert_int_eq(gr_meta_get(T.m, "/", NULL, NULL, on_data, NULL), 0);
    gr_meta_close(T.m);
    T.m = NULL;
    for (int i = 0; i < 20; i++)
        gr_loop_run_for(T.loop, 10);
    ck_assert_int_eq(T.answers, 0);
    teardown();
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
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_versions);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_sequential);
    tcase_add_test(tc, test_multi);
    tcase_add_test(tc, test_watches_once);
    tcase_add_test(tc, test_recovery);
    tcase_add_test(tc, test_torn_tail);
    tcase_add_test(tc, test_garbage_tail);
    tcase_add_test(tc, test_close_pending);
    tcase_add_test(tc, test_parse);
    suite_add_tcase(s, tc);
    return s;
}
