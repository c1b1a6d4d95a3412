/* The gr_meta contract over any engine (contract.h): ZooKeeper's
 * documented semantics (the programmer's guide: versions, sequential
 * names from the parent's cversion as %010d, ephemerals without children
 * and gone with their session, multi all or nothing, one-shot watches,
 * events before the answer that follows them) as meta.h promises them. */
#include "contract.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"

t_t T;
const meta_engine_t *meta_engine;

static void
on_session(void *arg, gr_meta_session_t s, int64_t id)
{
    (void)arg;
    ck_assert_int_eq(s, GR_META_SESSION_CONNECTED);
    ck_assert_int_gt(id, 0);
    T.sessions++;
    T.session_id = id;
}

void
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

void
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

void
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
void
wait_answers(int want)
{
    for (int i = 0; i < 1500 && T.answers < want; i++)
        gr_loop_run_for(T.loop, 10);
    ck_assert_int_eq(T.answers, want);
}

void
meta_open(void)
{
    T.m = meta_engine->open(T.loop, T.workers, T.dir, on_session, NULL);
    ck_assert_ptr_nonnull(T.m);
}

void
meta_setup(void)
{
    memset(&T, 0, sizeof T);
    gr_log_level = GR_LOG_LEVEL_ERROR;
    meta_engine->fresh(T.dir, sizeof T.dir);
    T.loop = gr_loop_new();
    T.workers = gr_workers_new(T.loop, 1);
    ck_assert_ptr_nonnull(T.workers);
    meta_open();
}

/* Closes, letting writes in flight finish. */
void
meta_close(void)
{
    gr_meta_close(T.m);
    T.m = NULL;
    for (int i = 0; i < 500 && gr_workers_pending(T.workers) > 0; i++)
        gr_loop_run_for(T.loop, 10);
    gr_loop_run_for(T.loop, 10);
}

void
meta_teardown(void)
{
    if (T.m != NULL)
        meta_close();
    gr_workers_destroy(T.workers);
    gr_loop_drain_posts(T.loop);
    gr_loop_destroy(T.loop);
    if (meta_engine->remove != NULL)
        meta_engine->remove(T.dir);
}

/* synchronous helpers: each call, then its answer */
int
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

int
get(const char *path, bool watch)
{
    int want = T.answers + 1;
    ck_assert_int_eq(gr_meta_get(T.m, path, watch ? on_watch : NULL, NULL,
                                 on_data, NULL),
                     0);
    wait_answers(want);
    return T.rc;
}

int
exists(const char *path, bool watch)
{
    int want = T.answers + 1;
    ck_assert_int_eq(gr_meta_exists(T.m, path, watch ? on_watch : NULL, NULL,
                                    on_stat, NULL),
                     0);
    wait_answers(want);
    return T.rc;
}

int
children(const char *path, bool watch)
{
    int want = T.answers + 1;
    ck_assert_int_eq(gr_meta_children(T.m, path, watch ? on_watch : NULL,
                                      NULL, on_children, NULL),
                     0);
    wait_answers(want);
    return T.rc;
}

int
multi(const gr_meta_op_t *ops, int n)
{
    int want = T.answers + 1;
    ck_assert_int_eq(gr_meta_multi(T.m, ops, n, on_multi, NULL), 0);
    ck_assert_int_eq(T.answers, want - 1);
    wait_answers(want);
    return T.rc;
}

int
set(const char *path, const char *data, int32_t version)
{
    gr_meta_op_t op = { GR_META_OP_SET, path, data, strlen(data), 0, version };
    return multi(&op, 1);
}

int
del(const char *path, int32_t version)
{
    gr_meta_op_t op = { GR_META_OP_DELETE, path, NULL, 0, 0, version };
    return multi(&op, 1);
}

START_TEST(test_versions)
{
    int64_t czxid;
    meta_setup();
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
    meta_teardown();
}
END_TEST

START_TEST(test_errors)
{
    static const char *bad[] = { "a", "/a/", "//a", "/a//b", "/a/./b",
                                 "/a/../b", "", "/." };
    meta_setup();
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
    ck_assert_int_eq(T.st.ephemeral_owner, T.session_id);
    ck_assert_int_eq(create("/e/c", "", 0), GR_META_NOCHILDRENFOREPHEMERALS);
    ck_assert_int_eq(children("/a", false), GR_META_OK);
    ck_assert_int_eq(T.n, 1);
    ck_assert_str_eq(T.names[0], "b");
    ck_assert_int_eq(children("/nope", false), GR_META_NONODE);
    meta_teardown();
}
END_TEST

START_TEST(test_sequential)
{
    meta_setup();
    ck_assert_int_eq(create("/q", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/q/n-", "", GR_META_SEQUENTIAL), GR_META_OK);
    ck_assert_str_eq(T.path, "/q/n-0000000000");
    ck_assert_int_eq(create("/q/n-", "", GR_META_SEQUENTIAL |
                                             GR_META_EPHEMERAL),
                     GR_META_OK);
    ck_assert_str_eq(T.path, "/q/n-0000000001");
    /* the counter is the parent's cversion, which creates and deletes
     * raise; but ZooKeeper names a sequential node from the cversion its
     * leader's request processor holds, which a delete not yet applied
     * there leaves one behind: 3 or 4 here (4 on meta_local), never less
     * than the creates before it */
    ck_assert_int_eq(create("/q/other", "", 0), GR_META_OK);
    ck_assert_int_eq(del("/q/other", -1), GR_META_OK);
    ck_assert_int_eq(create("/q/", "", GR_META_SEQUENTIAL), GR_META_OK);
    ck_assert(strcmp(T.path, "/q/0000000003") == 0 ||
              strcmp(T.path, "/q/0000000004") == 0);
    ck_assert_int_eq(exists("/q", false), GR_META_OK);
    ck_assert_int_eq(T.st.cversion, 5);
    ck_assert_int_eq(T.st.num_children, 3);
    /* children come sorted by byte order */
    ck_assert_int_eq(children("/q", false), GR_META_OK);
    ck_assert_int_eq(T.n, 3);
    ck_assert(strncmp(T.names[0], "000000000", 9) == 0);
    ck_assert_str_eq(T.names[1], "n-0000000000");
    ck_assert_str_eq(T.names[2], "n-0000000001");
    ck_assert_int_eq(create("/nope/n-", "", GR_META_SEQUENTIAL),
                     GR_META_NONODE);
    meta_teardown();
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
    meta_setup();
    /* later ops see the earlier ones */
    ck_assert_int_eq(multi(ok, 4), GR_META_OK);
    ck_assert_int_eq(T.n, 4);
    ck_assert_str_eq(T.res_path[0], "/m");
    ck_assert_str_eq(T.res_path[1], "/m/c0000000000");
    ck_assert_int_eq(T.res[2].st.version, 1);
    if (meta_engine->multi_create_stat)
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
    /* a bad op refuses the whole multi, before anything is done */
    {
        gr_meta_op_t badop[] = {
            { GR_META_OP_CREATE, "/g", "", 0, 0, -1 },
            { GR_META_OP_SET, "/m/", "", 0, 0, -1 },
            { GR_META_OP_CHECK, "/m", NULL, 0, 0, -1 },
        };
        ck_assert_int_eq(multi(badop, 3), GR_META_BADARGUMENTS);
        ck_assert_int_eq(T.res[1].rc, GR_META_BADARGUMENTS);
        ck_assert_int_eq(T.res[2].rc, GR_META_RUNTIMEINCONSISTENCY);
        ck_assert_int_eq(exists("/g", false), GR_META_NONODE);
    }
    ck_assert_int_eq(multi(ok, 0), GR_META_BADARGUMENTS);
    meta_teardown();
}
END_TEST

START_TEST(test_watches_once)
{
    meta_setup();
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
    ck_assert_str_eq(T.trace, "W2:/x W2:/x A A ");
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
    meta_teardown();
}
END_TEST

/* events in the order of the writes that fired them, the root's too */
START_TEST(test_watches_in_order)
{
    gr_meta_op_t both[] = {
        { GR_META_OP_SET, "/o1", "m", 1, 0, -1 },
        { GR_META_OP_SET, "/o2", "m", 1, 0, -1 },
    };
    meta_setup();
    ck_assert_int_eq(create("/o1", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/o2", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/o3", "", 0), GR_META_OK);
    ck_assert_int_eq(get("/o1", true), GR_META_OK);
    ck_assert_int_eq(exists("/o2", true), GR_META_OK);
    ck_assert_int_eq(children("/", true), GR_META_OK);
    T.trace[0] = '\0';
    ck_assert_int_eq(set("/o2", "a", -1), GR_META_OK);
    ck_assert_int_eq(set("/o3", "a", -1), GR_META_OK); /* not watched */
    ck_assert_int_eq(set("/o1", "a", -1), GR_META_OK);
    ck_assert_int_eq(create("/o4", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/o5", "", 0), GR_META_OK);
    ck_assert_str_eq(T.trace, "W3:/o2 A A W3:/o1 A W4:/ A A ");
    /* within one multi: in the order of its ops */
    ck_assert_int_eq(get("/o2", true), GR_META_OK);
    ck_assert_int_eq(get("/o1", true), GR_META_OK);
    T.trace[0] = '\0';
    ck_assert_int_eq(multi(both, 2), GR_META_OK);
    ck_assert_str_eq(T.trace, "W3:/o1 W3:/o2 A ");
    meta_teardown();
}
END_TEST

/* a closed session's ephemerals are gone for the next one; the
 * persistent nodes stay */
START_TEST(test_ephemerals_go_with_session)
{
    int64_t owner;
    int rc = GR_META_OK;
    meta_setup();
    ck_assert_int_eq(create("/p", "", 0), GR_META_OK);
    ck_assert_int_eq(create("/p/e", "", GR_META_EPHEMERAL), GR_META_OK);
    owner = T.st.ephemeral_owner;
    ck_assert_int_eq(owner, T.session_id);
    meta_close();
    meta_open();
    wait_answers(T.answers); /* the new session */
    for (int i = 0; i < 1000 && T.sessions < 2; i++)
        gr_loop_run_for(T.loop, 10);
    ck_assert_int_eq(T.sessions, 2);
    ck_assert_int_ne(T.session_id, owner);
    /* gone at once on meta_local; on ZooKeeper once the server that
     * answers has applied the close (a moment): bounded at 10 s */
    for (int i = 0; i < 200 && (rc = exists("/p/e", false)) == GR_META_OK;
         i++)
        usleep(50000);
    ck_assert_int_eq(rc, GR_META_NONODE);
    ck_assert_int_eq(exists("/p", false), GR_META_OK);
    ck_assert_int_eq(create("/p/e", "", GR_META_EPHEMERAL), GR_META_OK);
    ck_assert_int_eq(T.st.ephemeral_owner, T.session_id);
    meta_teardown();
}
END_TEST

static int
fenced(int32_t version, const char *data)
{
    gr_meta_op_t op = { GR_META_OP_SET, "/state", data, strlen(data), 0, -1 };
    int want = T.answers + 1;
    ck_assert_int_eq(gr_meta_fenced_multi(T.m, "/controller_epoch", version,
                                          &op, 1, on_multi, NULL),
                     0);
    wait_answers(want);
    return T.rc;
}

/* Kafka's controller-epoch fencing: a controller's writes check the
 * version of /controller_epoch its election set; once another election
 * moved it on, the deposed one's writes change nothing */
START_TEST(test_fenced_multi)
{
    int32_t va, vb;
    meta_setup();
    ck_assert_int_eq(create("/controller_epoch", "0", 0), GR_META_OK);
    ck_assert_int_eq(create("/state", "", 0), GR_META_OK);
    ck_assert_int_eq(set("/controller_epoch", "1", 0), GR_META_OK); /* A */
    va = T.res[0].st.version;
    ck_assert_int_eq(fenced(va, "a"), GR_META_OK);
    ck_assert_int_eq(T.n, 1); /* the check's result taken off */
    ck_assert_int_eq(T.res[0].rc, GR_META_OK);
    ck_assert_int_eq(T.res[0].st.version, 1); /* /state's */
    ck_assert_int_eq(set("/controller_epoch", "2", va), GR_META_OK); /* B */
    vb = T.res[0].st.version;
    ck_assert_int_eq(fenced(va, "zombie"), GR_META_BADVERSION);
    ck_assert_int_eq(T.n, 1);
    ck_assert_int_eq(T.res[0].rc, GR_META_RUNTIMEINCONSISTENCY);
    ck_assert_int_eq(get("/state", false), GR_META_OK);
    ck_assert_str_eq(T.data, "a");
    ck_assert_int_eq(fenced(vb, "b"), GR_META_OK);
    ck_assert_int_eq(get("/state", false), GR_META_OK);
    ck_assert_str_eq(T.data, "b");
    /* the fence gone is a fence moved */
    {
        gr_meta_op_t op = { GR_META_OP_SET, "/state", "c", 1, 0, -1 };
        ck_assert_int_eq(del("/controller_epoch", -1), GR_META_OK);
        ck_assert_int_eq(gr_meta_fenced_multi(T.m, "/controller_epoch", vb,
                                              &op, 1, on_multi, NULL),
                         0);
        wait_answers(T.answers + 1);
        ck_assert_int_eq(T.rc, GR_META_BADVERSION);
    }
    meta_teardown();
}
END_TEST

void
meta_contract_add(TCase *tc, const meta_engine_t *e)
{
    meta_engine = e;
    tcase_add_test(tc, test_versions);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_sequential);
    tcase_add_test(tc, test_multi);
    tcase_add_test(tc, test_watches_once);
    tcase_add_test(tc, test_watches_in_order);
    tcase_add_test(tc, test_ephemerals_go_with_session);
    tcase_add_test(tc, test_fenced_multi);
}
