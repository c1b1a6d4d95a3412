/* The single-broker cluster persists topic changes on a worker: in order,
 * durable when gr_cluster_sync() calls back, a failed creation undone, and
 * what is queued at the end written before the cluster goes; and the
 * client-metrics resources, written whole. */
#include "../unit.h"
#include "../log/logtest.h"

#include "cluster/cluster.h"
#include "core/fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    int called;
    int nfailed;
    gr_uuid_t failed[4];
    bool cancelled;
} synced_t;

static void
on_sync(void *arg, const gr_uuid_t *failed, int nfailed, bool cancelled)
{
    synced_t *s = arg;
    s->called++;
    s->nfailed = nfailed;
    for (int i = 0; i < nfailed && i < 4; i++)
        s->failed[i] = failed[i];
    s->cancelled = cancelled;
}

static gr_cluster_t *
cluster_open(gr_logtest_t *t)
{
    gr_endpoint_t ep = { "PLAINTEXT", "127.0.0.1", 9092 };
    gr_cluster_hooks_t hooks = { 0 };
    gr_cluster_t *c = gr_cluster_local_new(t->dir, 1, &ep, 1, &hooks);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(gr_cluster_load(c), 0);
    gr_cluster_set_workers(c, t->workers);
    return c;
}

static gr_topic_t *
create(gr_cluster_t *c, const char *name, const char *retention)
{
    const char *keys[] = { "retention.ms" }, *vals[] = { retention };
    gr_topic_spec_t s;
    gr_topic_t *tp = NULL;
    const char *msg = NULL;
    memset(&s, 0, sizeof s);
    s.name = name;
    s.nparts = 2;
    s.replication_factor = 1;
    s.config_keys = keys;
    s.config_values = vals;
    s.nconfigs = retention != NULL ? 1 : 0;
    ck_assert_int_eq(gr_cluster_create_topic(c, &s, &tp, &msg), GR_KERR_NONE);
    ck_assert_ptr_nonnull(tp);
    return tp;
}

/* The text of <dir>/gregor-topics/<name>, or "" when there is none. */
static const char *
topic_file(gr_logtest_t *t, const char *name)
{
    static char text[4096];
    char path[256];
    FILE *f;
    size_t n;
    snprintf(path, sizeof path, "%s/gregor-topics/%s", t->dir, name);
    text[0] = '\0';
    if ((f = fopen(path, "r")) == NULL)
        return text;
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static void
sync_wait(gr_logtest_t *t, gr_cluster_t *c, synced_t *s)
{
    memset(s, 0, sizeof *s);
    gr_cluster_sync(c, on_sync, s);
    ck_assert(gr_logtest_wait(t, &s->called));
    ck_assert_int_eq(s->called, 1);
}

typedef struct {
    int called;
    int err;
} stored_t;

static void
on_stored(void *arg, int err)
{
    stored_t *st = arg;
    st->err = err;
    st->called++;
}

/* Stores c's client-metrics resources, as AlterConfigs does, and waits
 * for the worker's answer. */
static void
store_client_metrics(gr_logtest_t *t, gr_cluster_t *c)
{
    stored_t st = { 0, -1 };
    gr_cluster_store_client_metrics(c, c->client_metrics, on_stored, &st);
    ck_assert(gr_logtest_wait(t, &st.called));
    ck_assert_int_eq(st.called, 1);
    ck_assert_int_eq(st.err, 0);
}

/* A new store writes meta.properties at load (a failure stops the start)
 * and leaves its fsyncs to the first worker job: a sync completes, and the
 * next load reads the same cluster id. */
START_TEST(test_new_meta_synced_on_worker)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    synced_t s;
    char path[512], id[23];
    FILE *f;

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    snprintf(path, sizeof path, "%s/meta.properties", t.dir);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    memcpy(id, c->cluster_id, sizeof id);
    sync_wait(&t, c, &s);
    ck_assert_int_eq(s.nfailed, 0);
    gr_cluster_destroy(c);
    c = cluster_open(&t);
    ck_assert_str_eq(c->cluster_id, id);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_changes_durable_at_sync)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    gr_topic_t *a, *b;
    synced_t s;
    char id[23];

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    a = create(c, "a", NULL);
    b = create(c, "b", "1000");
    gr_uuid_to_base64(&b->id, id);
    /* the model has them at once */
    ck_assert_ptr_eq(gr_cluster_topic_cstr(c, "a"), a);
    sync_wait(&t, c, &s);
    ck_assert_int_eq(s.nfailed, 0);
    ck_assert(!s.cancelled);
    ck_assert_ptr_nonnull(strstr(topic_file(&t, "a"), "partitions=2\n"));
    ck_assert_ptr_nonnull(strstr(topic_file(&t, "b"), id));
    ck_assert_ptr_nonnull(
        strstr(topic_file(&t, "b"), "config.retention.ms=1000\n"));

    /* a deletion, a config change and a new partition count, in order */
    ck_assert_int_eq(gr_cluster_delete_topic(c, a), GR_KERR_NONE);
    ck_assert_ptr_null(gr_cluster_topic_cstr(c, "a"));
    ck_assert_int_eq(gr_topic_config_set(b, "retention.ms", "2000"), 0);
    ck_assert_int_eq(gr_cluster_store_topic_config(c, b), GR_KERR_NONE);
    ck_assert_int_eq(gr_topic_config_set(b, "retention.ms", "3000"), 0);
    ck_assert_int_eq(gr_cluster_store_topic_config(c, b), GR_KERR_NONE);
    a = create(c, "a", "5");
    sync_wait(&t, c, &s);
    ck_assert_int_eq(s.nfailed, 0);
    ck_assert_ptr_nonnull(
        strstr(topic_file(&t, "b"), "config.retention.ms=3000\n"));
    ck_assert_ptr_nonnull(
        strstr(topic_file(&t, "a"), "config.retention.ms=5\n"));
    gr_uuid_to_base64(&a->id, id);
    ck_assert_ptr_nonnull(strstr(topic_file(&t, "a"), id));

    /* nothing queued: the callback runs at once */
    memset(&s, 0, sizeof s);
    gr_cluster_sync(c, on_sync, &s);
    ck_assert_int_eq(s.called, 1);

    ck_assert_int_eq(gr_cluster_delete_topic(c, a), GR_KERR_NONE);
    /* as gr_broker_destroy: the workers' results, then the end */
    c->stopping = true;
    gr_logtest_settle(&t);
    gr_cluster_destroy(c);
    ck_assert_str_eq(topic_file(&t, "a"), "");
    c = cluster_open(&t);
    ck_assert_ptr_null(gr_cluster_topic_cstr(c, "a"));
    b = gr_cluster_topic_cstr(c, "b");
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(gr_topic_config_get(b, "retention.ms"), "3000");
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
}
END_TEST

/* A write a crash cut short leaves <name>~, which a start removes and
 * never loads as a topic; a topic named like a temporary file ("x.tmp")
 * is a topic. */
START_TEST(test_interrupted_write_left)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    synced_t s;
    char from[256], to[256];

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    create(c, "x.tmp", NULL);
    sync_wait(&t, c, &s);
    c->stopping = true;
    gr_logtest_settle(&t);
    gr_cluster_destroy(c);
    /* a copy of a topic file as the tmp file of topic "y" */
    snprintf(from, sizeof from, "%s/gregor-topics/x.tmp", t.dir);
    snprintf(to, sizeof to, "%s/gregor-topics/y~", t.dir);
    ck_assert_int_eq(link(from, to), 0);
    c = cluster_open(&t);
    ck_assert_int_eq(c->ntopics, 1);
    ck_assert_ptr_nonnull(gr_cluster_topic_cstr(c, "x.tmp"));
    ck_assert_int_eq(access(to, F_OK), -1);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_failed_creation_undone)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    gr_topic_t *x;
    gr_uuid_t xid;
    synced_t s;

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    create(c, "ok1", NULL);
    ck_assert_int_eq(gr_fault_arm_spec("topic.store@/x:1"), 0);
    x = create(c, "x", NULL);
    xid = x->id;
    create(c, "ok2", NULL);
    sync_wait(&t, c, &s);
    gr_fault_clear();
    ck_assert_int_eq(s.nfailed, 1);
    ck_assert(gr_uuid_eq(&s.failed[0], &xid));
    ck_assert_ptr_null(gr_cluster_topic_cstr(c, "x"));
    ck_assert_ptr_null(gr_cluster_topic_by_id(c, &xid));
    ck_assert_str_eq(topic_file(&t, "x"), "");
    ck_assert_str_ne(topic_file(&t, "ok1"), "");
    ck_assert_str_ne(topic_file(&t, "ok2"), "");
    /* the failure was reported once */
    sync_wait(&t, c, &s);
    ck_assert_int_eq(s.nfailed, 0);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_stopping_writes_the_rest)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    synced_t s;
    char name[16];

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof name, "t%d", i);
        create(c, name, NULL);
    }
    memset(&s, 0, sizeof s);
    gr_cluster_sync(c, on_sync, &s);
    /* as gr_broker_destroy: stopping, the workers' results, then the end */
    c->stopping = true;
    gr_logtest_settle(&t);
    gr_cluster_destroy(c);
    ck_assert_int_eq(s.called, 1);
    ck_assert(s.cancelled);
    c = cluster_open(&t);
    ck_assert_int_eq(c->ntopics, 50);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
}
END_TEST

/* CLIENT_METRICS resources: all in gregor-configs/client-metrics, names
 * and values of any bytes but NUL, back in creation order; what an
 * interrupted write leaves (client-metrics~) is never read, and a
 * resource without configs is not kept. */
START_TEST(test_client_metrics_stored)
{
    static const char *const names[] = { "plain", "[x]", "a\nb\\c=d" };
    gr_logtest_t t;
    gr_cluster_t *c;
    gr_config_resource_t *r;
    char path[256];
    FILE *f;
    int i = 0;

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    for (int k = 0; k < 3; k++) {
        gr_topic_config_t *list = NULL;
        ck_assert_int_eq(gr_config_list_set(&list, "metrics", names[k]), 0);
        ck_assert_int_eq(gr_config_list_set(&list, "match",
                                            "client_id=\r\n,x"),
                         0);
        ck_assert_int_eq(gr_config_resource_set(&c->client_metrics, names[k],
                                                list),
                         0);
    }
    ck_assert_int_eq(gr_config_resource_set(&c->client_metrics, "gone",
                                            NULL),
                     0);
    store_client_metrics(&t, c);
    gr_cluster_destroy(c);
    /* a later write that a crash cut short */
    snprintf(path, sizeof path, "%s/gregor-configs/client-metrics~", t.dir);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fputs("[torn]\nmetrics=", f);
    fclose(f);
    c = cluster_open(&t);
    for (r = c->client_metrics; r; r = r->next, i++) {
        ck_assert_str_eq(r->name, names[i]);
        ck_assert_str_eq(gr_config_list_get(r->configs, "metrics"), names[i]);
        ck_assert_str_eq(gr_config_list_get(r->configs, "match"),
                         "client_id=\r\n,x");
    }
    ck_assert_int_eq(i, 3);
    ck_assert_ptr_null(gr_config_resource_find(c->client_metrics, "torn"));
    /* the last goes: an empty file, nothing loaded */
    for (int k = 0; k < 3; k++)
        ck_assert_int_eq(gr_config_resource_set(&c->client_metrics, names[k],
                                                NULL),
                         0);
    store_client_metrics(&t, c);
    gr_cluster_destroy(c);
    c = cluster_open(&t);
    ck_assert_ptr_null(c->client_metrics);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
}
END_TEST

Suite *
suite_cluster_store(void)
{
    Suite *s = suite_create("cluster/store");
    TCase *tc = tcase_create("store");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_new_meta_synced_on_worker);
    tcase_add_test(tc, test_changes_durable_at_sync);
    tcase_add_test(tc, test_interrupted_write_left);
    tcase_add_test(tc, test_failed_creation_undone);
    tcase_add_test(tc, test_stopping_writes_the_rest);
    tcase_add_test(tc, test_client_metrics_stored);
    suite_add_tcase(s, tc);
    return s;
}
