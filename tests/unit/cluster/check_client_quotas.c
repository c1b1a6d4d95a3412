/* cluster/client_quotas: what AlterClientQuotas may set (Kafka's
 * ClientQuotaControlManager messages), what DescribeClientQuotas matches
 * (ClientQuotasImage), which quota holds for a (user, client-id)
 * (DefaultQuotaCallback's order), the throttle times (QuotaUtils by hand),
 * persistence over a reopen; and on a broker in this process: changes
 * answered once stored (in order; a failed write changes nothing), a
 * throttled
 * Produce answers throttle_time_ms, other APIs carry the request quota's,
 * and the connection is muted for that time. */
#include "../api/brokertest.h"
#include "../log/logtest.h"
#include "../unit.h"

#include "cluster/client_quotas.h"
#include "cluster/cluster.h"
#include "core/fault.h"
#include "core/time.h"
#include "proto/gen/proto_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gr_cluster_t *opened; /* the last cluster_open()'s, for commit() */

static gr_cluster_t *
cluster_open(gr_logtest_t *t)
{
    gr_endpoint_t ep = { "PLAINTEXT", "127.0.0.1", 9092 };
    gr_cluster_hooks_t hooks = { 0 };
    gr_cluster_t *c = gr_cluster_local_new(t->dir, 1, &ep, 1, &hooks);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(gr_cluster_load(c), 0);
    opened = c;
    return c;
}

static gr_str_t
s(const char *p)
{
    return p ? gr_str_c(p) : GR_STR_NULL;
}

static void
stored_cb(void *arg, int err)
{
    *(int *)arg = err;
}

/* prepare, store and install, as AlterClientQuotas does (the cluster has
 * no workers: the store calls back at once) */
static gr_kerr_t
commit(gr_client_quotas_t *q)
{
    gr_cluster_t *c = opened;
    gr_config_resource_t *list = NULL;
    bool changed;
    gr_kerr_t err = gr_client_quotas_prepare(q, &changed, &list);
    int stored = -1;
    if (err != GR_KERR_NONE || !changed)
        return err;
    gr_cluster_store_client_quotas(c, list, stored_cb, &stored);
    ck_assert_int_eq(stored, 0);
    ck_assert_int_eq(gr_client_quotas_install(q, list), 0);
    return GR_KERR_NONE;
}

/* alter(q, "user", "alice", "client-id", NULL, ..., NULL) then ops */
static gr_kerr_t
alter1(gr_client_quotas_t *q, gr_arena_t *a, const char *t1, const char *n1,
       const char *t2, const char *n2, const char *key, double v, bool remove,
       bool validate_only, const char **msg)
{
    gr_cq_comp_t comps[2] = { { s(t1), s(n1) }, { s(t2), s(n2) } };
    gr_cq_op_t op = { s(key), v, remove };
    gr_kerr_t err;
    *msg = NULL;
    ck_assert_int_eq(gr_client_quotas_begin(q), 0);
    err = gr_client_quotas_alter(q, comps,
                                 t1 == NULL ? 0
                                 : t2       ? 2
                                            : 1,
                                 &op, 1, validate_only, a, msg);
    ck_assert_int_eq(commit(q), GR_KERR_NONE);
    return err;
}

#define REFUSED(t1, n1, t2, n2, key, v, text)                        \
    do {                                                             \
        const char *m_;                                              \
        ck_assert_int_eq(                                            \
            alter1(q, a, t1, n1, t2, n2, key, v, false, false, &m_), \
            GR_KERR_INVALID_REQUEST);                                \
        ck_assert_str_eq(m_, text);                                  \
    } while (0)

START_TEST(test_alter_refusals)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    gr_client_quotas_t *q;
    gr_arena_t *a = gr_arena_new(4096);
    const char *msg;

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    q = gr_client_quotas_new(c, 11, 1000);
    REFUSED("user", "alice", NULL, NULL, "bogus", 1,
            "Invalid configuration key bogus");
    REFUSED("user", "alice", NULL, NULL, "producer_byte_rate", 0,
            "Quota producer_byte_rate must be greater than 0");
    REFUSED("user", "alice", NULL, NULL, "request_percentage", -1,
            "Quota request_percentage must be greater than 0");
    REFUSED("user", "alice", NULL, NULL, "request_percentage", INFINITY,
            "Quota request_percentage must be a finite number");
    REFUSED("user", "alice", NULL, NULL, "producer_byte_rate", 1.5,
            "producer_byte_rate cannot be a fractional value.");
    REFUSED("user", "alice", NULL, NULL, "consumer_byte_rate", 1e19,
            "Proposed value for consumer_byte_rate is too large for a LONG.");
    REFUSED("ip", "10.0.0.1", NULL, NULL, "connection_creation_rate", 3e9,
            "Proposed value for connection_creation_rate is too large for an "
            "INT.");
    REFUSED("user", "alice", NULL, NULL, "connection_creation_rate", 1,
            "Invalid configuration key connection_creation_rate");
    REFUSED("ip", NULL, NULL, NULL, "producer_byte_rate", 1,
            "Invalid configuration key producer_byte_rate");
    REFUSED("ip", "10.0.0.1", "user", "x", "connection_creation_rate", 1,
            "Invalid quota entity combination, IP entity shouldnot be "
            "combined with User or ClientId");
    REFUSED("ip", "nope!", NULL, NULL, "connection_creation_rate", 1,
            "nope! is not a valid IP or resolvable host.");
    REFUSED("group", "g", NULL, NULL, "producer_byte_rate", 1,
            "Unhandled client quota entity type: group");
    REFUSED("client-id", "", NULL, NULL, "producer_byte_rate", 1,
            "Empty client-id not supported");
    REFUSED(NULL, NULL, NULL, NULL, "producer_byte_rate", 1,
            "Invalid empty client quota entity");
    /* removing what is not there, or a key no entity has: no error */
    ck_assert_int_eq(
        alter1(q, a, "user", "x", NULL, NULL, "bogus", 0, true, false, &msg),
        GR_KERR_NONE);
    /* nothing was stored by any of these */
    ck_assert_ptr_null(c->client_quotas);
    {
        gr_cq_comp_t e[] = { { s("user"), s("a") },
                             { s("client-id"), s("b") } };
        gr_cq_comp_t f[] = { { s("client-id"), s("b") },
                             { s("user"), s("x") },
                             { s("user"), s("a") } };
        ck_assert(gr_client_quotas_same_entity(e, 2, f, 3));
        ck_assert(!gr_client_quotas_same_entity(e, 2, f, 2));
        ck_assert_str_eq(gr_client_quotas_entity_str(e, 2, a),
                         "ClientQuotaEntity(entries={client-id=b, user=a})");
    }
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
    gr_arena_destroy(a);
}
END_TEST

static void
set(gr_client_quotas_t *q, gr_arena_t *a, const char *t1, const char *n1,
    const char *t2, const char *n2, const char *key, double v)
{
    const char *msg;
    ck_assert_int_eq(alter1(q, a, t1, n1, t2, n2, key, v, false, false, &msg),
                     GR_KERR_NONE);
}

static double
bound(gr_client_quotas_t *q, gr_cq_type_t t, const char *user,
      const char *client)
{
    gr_str_t cid = s(client);
    return gr_client_quotas_bound(q, t, user, &cid);
}

/* Kafka's order (DefaultQuotaCallback.quotaMetricTags, as its docs list
 * it): user+client-id, user+<default>, user, <default>+client-id,
 * <default>+<default>, <default> user, client-id, <default> client-id;
 * each removed in turn uncovers the next. */
START_TEST(test_precedence)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    gr_client_quotas_t *q;
    gr_arena_t *a = gr_arena_new(4096);
    const char *msg;
    static const char *const P = "producer_byte_rate";
    struct {
        const char *t1, *n1, *t2, *n2;
    } order[] = {
        { "user", "u", "client-id", "c" },   { "user", "u", "client-id", NULL },
        { "user", "u", NULL, NULL },         { "user", NULL, "client-id", "c" },
        { "user", NULL, "client-id", NULL }, { "user", NULL, NULL, NULL },
        { "client-id", "c", NULL, NULL },    { "client-id", NULL, NULL, NULL },
    };
    int n = (int)(sizeof order / sizeof order[0]);

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    q = gr_client_quotas_new(c, 11, 1000);
    ck_assert(!gr_client_quotas_enabled(q, GR_CQT_PRODUCE));
    for (int i = 0; i < n; i++)
        set(q, a, order[i].t1, order[i].n1, order[i].t2, order[i].n2, P,
            1000 * (i + 1));
    ck_assert(gr_client_quotas_enabled(q, GR_CQT_PRODUCE));
    ck_assert(!gr_client_quotas_enabled(q, GR_CQT_FETCH));
    for (int i = 0; i < n; i++) {
        ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "u", "c"), 1000 * (i + 1));
        ck_assert_int_eq(alter1(q, a, order[i].t1, order[i].n1, order[i].t2,
                                order[i].n2, P, 0, true, false, &msg),
                         GR_KERR_NONE);
    }
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "u", "c"), -1);
    ck_assert(!gr_client_quotas_enabled(q, GR_CQT_PRODUCE));
    /* only client-id quotas: users do not matter, an empty id has none */
    set(q, a, "client-id", "c", NULL, NULL, P, 5);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "anyone", "c"), 5);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "anyone", "d"), -1);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "anyone", ""), -1);
    /* a user quota for ANONYMOUS (PLAINTEXT's principal) */
    set(q, a, "user", "ANONYMOUS", NULL, NULL, "consumer_byte_rate", 7);
    ck_assert_double_eq(bound(q, GR_CQT_FETCH, "ANONYMOUS", "x"), 7);
    ck_assert_double_eq(bound(q, GR_CQT_FETCH, "bob", "x"), -1);
    /* validate_only changes nothing */
    ck_assert_int_eq(alter1(q, a, "user", "ANONYMOUS", NULL, NULL,
                            "consumer_byte_rate", 9, false, true, &msg),
                     GR_KERR_NONE);
    ck_assert_double_eq(bound(q, GR_CQT_FETCH, "ANONYMOUS", "x"), 7);
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
    gr_arena_destroy(a);
}
END_TEST

static int
describe(gr_client_quotas_t *q, gr_arena_t *a, const gr_cq_filter_t *f, int nf,
         bool strict, gr_cq_found_t **out)
{
    const char *msg = NULL;
    int n = -1;
    ck_assert_int_eq(
        gr_client_quotas_describe(q, f, nf, strict, a, out, &n, &msg),
        GR_KERR_NONE);
    return n;
}

static void
describe_error(gr_client_quotas_t *q, gr_arena_t *a, const gr_cq_filter_t *f,
               int nf, gr_kerr_t err, const char *text)
{
    gr_cq_found_t *out;
    const char *msg = NULL;
    int n;
    ck_assert_int_eq(
        gr_client_quotas_describe(q, f, nf, false, a, &out, &n, &msg), err);
    ck_assert_str_eq(msg, text);
}

/* ClientQuotasImage.describe, and the quotas back after a reopen */
START_TEST(test_describe_and_reopen)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    gr_client_quotas_t *q;
    gr_arena_t *a = gr_arena_new(4096);
    gr_cq_found_t *out;
    gr_cq_filter_t f[2];

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    q = gr_client_quotas_new(c, 11, 1000);
    set(q, a, "user", "a/b c", NULL, NULL, "producer_byte_rate", 100);
    set(q, a, "user", "a/b c", NULL, NULL, "request_percentage", 12.5);
    set(q, a, "user", "a/b c", "client-id", "x", "consumer_byte_rate", 200);
    set(q, a, "user", NULL, NULL, NULL, "controller_mutation_rate", 3);
    set(q, a, "client-id", NULL, NULL, NULL, "producer_byte_rate", 4);
    set(q, a, "ip", "10.1.2.3", NULL, NULL, "connection_creation_rate", 5);
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(c);
    c = cluster_open(&t);
    q = gr_client_quotas_new(c, 11, 1000);
    ck_assert_int_eq(gr_client_quotas_load(q), 0);
    /* no component: everything (creation order); strict: nothing */
    ck_assert_int_eq(describe(q, a, NULL, 0, false, &out), 5);
    ck_assert_str_eq(out[0].name[0], "a/b c");
    ck_assert_int_eq(out[0].nvalues, 2);
    ck_assert_str_eq(out[0].key[0], "request_percentage");
    ck_assert_double_eq(out[0].value[0], 12.5);
    ck_assert_str_eq(out[1].type[0], "client-id"); /* before user */
    ck_assert_str_eq(out[1].type[1], "user");
    ck_assert_ptr_null(out[2].name[0]);
    ck_assert_int_eq(describe(q, a, NULL, 0, true, &out), 0);
    /* exact user: both entities with it; strict: only the user alone */
    f[0] = (gr_cq_filter_t){ s("user"), 0, s("a/b c") };
    ck_assert_int_eq(describe(q, a, f, 1, false, &out), 2);
    ck_assert_int_eq(describe(q, a, f, 1, true, &out), 1);
    /* default user; any user (defaults too) */
    f[0] = (gr_cq_filter_t){ s("user"), 1, GR_STR_NULL };
    ck_assert_int_eq(describe(q, a, f, 1, false, &out), 1);
    ck_assert_double_eq(out[0].value[0], 3);
    f[0] = (gr_cq_filter_t){ s("user"), 2, GR_STR_NULL };
    ck_assert_int_eq(describe(q, a, f, 1, false, &out), 3);
    ck_assert_int_eq(describe(q, a, f, 1, true, &out), 2);
    f[1] = (gr_cq_filter_t){ s("client-id"), 2, GR_STR_NULL };
    ck_assert_int_eq(describe(q, a, f, 2, false, &out), 1);
    f[0] = (gr_cq_filter_t){ s("ip"), 2, GR_STR_NULL };
    ck_assert_int_eq(describe(q, a, f, 1, false, &out), 1);
    ck_assert_str_eq(out[0].name[0], "10.1.2.3");
    /* refusals */
    f[0] = (gr_cq_filter_t){ s(""), 2, GR_STR_NULL };
    describe_error(q, a, f, 1, GR_KERR_INVALID_REQUEST,
                   "Invalid empty entity type.");
    f[0] = (gr_cq_filter_t){ s("group"), 2, GR_STR_NULL };
    describe_error(q, a, f, 1, GR_KERR_UNSUPPORTED_VERSION,
                   "Unsupported entity type group");
    f[0] = (gr_cq_filter_t){ s("user"), 0, GR_STR_NULL };
    describe_error(q, a, f, 1, GR_KERR_INVALID_REQUEST,
                   "Request specified MATCH_TYPE_EXACT, but set match string "
                   "to null.");
    f[0] = (gr_cq_filter_t){ s("user"), 1, s("x") };
    describe_error(q, a, f, 1, GR_KERR_INVALID_REQUEST,
                   "Request specified MATCH_TYPE_DEFAULT, but also specified "
                   "a match string.");
    f[0] = (gr_cq_filter_t){ s("user"), 2, s("x") };
    describe_error(q, a, f, 1, GR_KERR_INVALID_REQUEST,
                   "Request specified MATCH_TYPE_SPECIFIED, but also "
                   "specified a match string.");
    f[0] = (gr_cq_filter_t){ s("user"), 7, GR_STR_NULL };
    describe_error(q, a, f, 1, GR_KERR_INVALID_REQUEST, "Unknown match type 7");
    f[0] = (gr_cq_filter_t){ s("user"), 2, GR_STR_NULL };
    f[1] = (gr_cq_filter_t){ s("user"), 1, GR_STR_NULL };
    describe_error(q, a, f, 2, GR_KERR_INVALID_REQUEST,
                   "Entity type user cannot appear more than once in the "
                   "filter.");
    f[1] = (gr_cq_filter_t){ s("ip"), 2, GR_STR_NULL };
    describe_error(q, a, f, 2, GR_KERR_INVALID_REQUEST,
                   "Invalid entity filter component combination. IP filter "
                   "component should not be used with user or clientId "
                   "filter component.");
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
    gr_arena_destroy(a);
}
END_TEST

/* Alters of n client-id entities "c<from>".."c<from+n-1>" in one
 * request (begin, alter..., commit); value v, or removed when v is 0. */
static gr_kerr_t
alter_many(gr_client_quotas_t *q, gr_arena_t *a, int from, int n, double v)
{
    char name[32];
    const char *msg;
    ck_assert_int_eq(gr_client_quotas_begin(q), 0);
    for (int i = from; i < from + n; i++) {
        gr_cq_comp_t comp = { s("client-id"), GR_STR_NULL };
        gr_cq_op_t op = { s("producer_byte_rate"), v, v == 0 };
        snprintf(name, sizeof name, "c%d", i);
        comp.name = gr_str_c(gr_arena_printf(a, "%s", name));
        ck_assert_int_eq(gr_client_quotas_alter(q, &comp, 1, &op, 1, false,
                                                a, &msg),
                         GR_KERR_NONE);
    }
    return commit(q);
}

/* Thousands of entities: each still found after the table has grown
 * many times over, removals unlink the right ones, a reopen reads them
 * all back; more than Kafka's 10,000 records a request: refused whole,
 * nothing kept. */
START_TEST(test_many_entities)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    gr_client_quotas_t *q;
    gr_arena_t *a = gr_arena_new(1 << 16);
    gr_cq_found_t *out;
    gr_cq_filter_t f = { s("client-id"), 2, GR_STR_NULL };

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    q = gr_client_quotas_new(c, 11, 1000);
    ck_assert_int_eq(alter_many(q, a, 0, 6000, 1000), GR_KERR_NONE);
    ck_assert_int_eq(alter_many(q, a, 6000, 3000, 2000), GR_KERR_NONE);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "", "c0"), 1000);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "", "c5999"), 1000);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "", "c8999"), 2000);
    ck_assert_int_eq(describe(q, a, &f, 1, true, &out), 9000);
    /* c0..c2999 removed; c3000..c8999 changed to 3000 */
    ck_assert_int_eq(alter_many(q, a, 0, 3000, 0), GR_KERR_NONE);
    ck_assert_int_eq(alter_many(q, a, 3000, 6000, 3000), GR_KERR_NONE);
    ck_assert_int_eq(describe(q, a, &f, 1, true, &out), 6000);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "", "c2999"), -1);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "", "c3000"), 3000);
    /* 10,001 new entities: every one refused, none kept */
    ck_assert_int_eq(alter_many(q, a, 20000, 10001, 5),
                     GR_KERR_POLICY_VIOLATION);
    ck_assert_int_eq(describe(q, a, &f, 1, true, &out), 6000);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "", "c20000"), -1);
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(c);
    c = cluster_open(&t);
    q = gr_client_quotas_new(c, 11, 1000);
    ck_assert_int_eq(gr_client_quotas_load(q), 0);
    ck_assert_int_eq(describe(q, a, &f, 1, true, &out), 6000);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "", "c8999"), 3000);
    ck_assert_double_eq(bound(q, GR_CQT_PRODUCE, "", "c0"), -1);
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
    gr_arena_destroy(a);
}
END_TEST

/* A hand-edited quotas file naming an entity twice: one entity, in the
 * first one's place, with the last one's values (what the file said
 * last holds), the others in order. */
START_TEST(test_file_named_twice)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    gr_client_quotas_t *q;
    gr_arena_t *a = gr_arena_new(4096);
    gr_cq_found_t *out;
    char path[512];
    FILE *f;

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    gr_cluster_destroy(c);
    snprintf(path, sizeof path, "%s/gregor-configs", t.dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/gregor-configs/client-quotas", t.dir);
    ck_assert_ptr_nonnull(f = fopen(path, "w"));
    fputs("# by hand\n[clients/a]\nproducer_byte_rate=1\n"
          "[clients/b]\nproducer_byte_rate=2\n"
          "[clients/a]\nconsumer_byte_rate=3\n"
          "[clients/c]\nproducer_byte_rate=4\n"
          "[clients/a]\nproducer_byte_rate=5\n",
          f);
    fclose(f);
    c = cluster_open(&t);
    q = gr_client_quotas_new(c, 11, 1000);
    ck_assert_int_eq(gr_client_quotas_load(q), 0);
    ck_assert_int_eq(describe(q, a, NULL, 0, false, &out), 3);
    ck_assert_str_eq(out[0].name[0], "a");
    ck_assert_int_eq(out[0].nvalues, 1);
    ck_assert_str_eq(out[0].key[0], "producer_byte_rate");
    ck_assert_double_eq(out[0].value[0], 5);
    ck_assert_str_eq(out[1].name[0], "b");
    ck_assert_str_eq(out[2].name[0], "c");
    ck_assert_double_eq(bound(q, GR_CQT_FETCH, "", "a"), -1);
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
    gr_arena_destroy(a);
}
END_TEST

/* controller_mutation_rate (KIP-599) by hand: quota 2 partitions/s, 11
 * samples of 1 s (controller.quota.window.*), so a bucket of 22, full at first, refilled at 2 a
 * second; refused (strict) only once below zero. */
START_TEST(test_mutation_bucket)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    gr_client_quotas_t *q;
    gr_arena_t *a = gr_arena_new(4096);
    gr_str_t cid = s("c"), other = s("d");
    int64_t now = 1000000;

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    q = gr_client_quotas_new(c, 11, 1000);
    ck_assert_int_eq(gr_client_quotas_mutation_check(q, "u", &cid, now), 0);
    set(q, a, "client-id", "c", NULL, NULL, "controller_mutation_rate", 2);
    ck_assert(gr_client_quotas_enabled(q, GR_CQT_MUTATION));
    ck_assert_int_eq(gr_client_quotas_mutation_check(q, "u", &cid, now), 0);
    ck_assert_int_eq(gr_client_quotas_mutation_record(q, "u", &cid, 20, now),
                     0); /* 2 left */
    ck_assert_int_eq(gr_client_quotas_mutation_check(q, "u", &cid, now), 0);
    /* a topic larger than what is left passes and leaves -8: 4 s */
    ck_assert_int_eq(gr_client_quotas_mutation_record(q, "u", &cid, 10, now),
                     4000);
    ck_assert_int_eq(gr_client_quotas_mutation_check(q, "u", &cid, now), 4000);
    ck_assert_int_eq(
        gr_client_quotas_mutation_check(q, "u", &cid, now + 1000), 3000);
    ck_assert_int_eq(
        gr_client_quotas_mutation_check(q, "u", &cid, now + 3999), 1);
    /* at zero: no longer exceeded */
    ck_assert_int_eq(
        gr_client_quotas_mutation_check(q, "u", &cid, now + 4000), 0);
    /* another client id: no quota */
    ck_assert_int_eq(gr_client_quotas_mutation_record(q, "u", &other, 1e6, now),
                     0);
    ck_assert_int_eq(gr_client_quotas_mutation_check(q, "u", &other, now), 0);
    /* refilled up to the burst only: 22, then 1 more is 0.5 s */
    ck_assert_int_eq(
        gr_client_quotas_mutation_record(q, "u", &cid, 22, now + 100000), 0);
    ck_assert_int_eq(
        gr_client_quotas_mutation_record(q, "u", &cid, 1, now + 100000), 500);
    /* an owing bucket outlives the idle sweep (a new one would be full) */
    ck_assert_int_eq(
        gr_client_quotas_mutation_record(q, "u", &cid, 200, now + 100000),
        100500);
    ck_assert_int_eq(
        gr_client_quotas_mutation_check(q, "u", &cid, now + 150000), 50500);
    /* controller.quota.window.num 3: a bucket of 6 */
    gr_client_quotas_set_mutation_window(q, 3, 1000);
    ck_assert_int_eq(
        gr_client_quotas_mutation_record(q, "u", &cid, 6, now + 1000000), 0);
    ck_assert_int_eq(
        gr_client_quotas_mutation_record(q, "u", &cid, 1, now + 1000000), 500);
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
    gr_arena_destroy(a);
}
END_TEST

/* QuotaUtils.throttleTime by hand: quota 1000 B/s, 11 samples of 1 s;
 * the window is at least 10 s, so 10000 B pass at once. */
START_TEST(test_throttle_numbers)
{
    gr_logtest_t t;
    gr_cluster_t *c;
    gr_client_quotas_t *q;
    gr_arena_t *a = gr_arena_new(4096);
    gr_str_t cid = s("c"), other = s("d");
    int64_t now = 1000000;

    gr_logtest_init(&t, 64);
    c = cluster_open(&t);
    q = gr_client_quotas_new(c, 11, 1000);
    set(q, a, "client-id", "c", NULL, NULL, "producer_byte_rate", 1000);
    set(q, a, "client-id", "c", NULL, NULL, "request_percentage", 10);
    ck_assert_int_eq(
        gr_client_quotas_record(q, GR_CQT_PRODUCE, "u", &cid, 10000, now), 0);
    /* 12000 over a 10 s window: 1.2 x the quota, (0.2) x 10 s */
    ck_assert_int_eq(
        gr_client_quotas_record(q, GR_CQT_PRODUCE, "u", &cid, 2000, now), 2000);
    /* the same client id under another user shares the sensor */
    ck_assert_int_eq(
        gr_client_quotas_record(q, GR_CQT_PRODUCE, "v", &cid, 1000, now + 500),
        2500); /* 13000 over 10.5 s: 0.238 x 10500 */
    /* another client id: no quota */
    ck_assert_int_eq(
        gr_client_quotas_record(q, GR_CQT_PRODUCE, "u", &other, 1e9, now), 0);
    /* a Fetch's bytes taken back */
    set(q, a, "client-id", "c", NULL, NULL, "consumer_byte_rate", 1000);
    ck_assert_int_eq(
        gr_client_quotas_record(q, GR_CQT_FETCH, "u", &cid, 20000, now), 10000);
    gr_client_quotas_unrecord(q, GR_CQT_FETCH, "u", &cid, 20000, now);
    ck_assert_int_eq(
        gr_client_quotas_record(q, GR_CQT_FETCH, "u", &cid, 10000, now), 0);
    ck_assert_int_eq(gr_client_quotas_window_max(q, GR_CQT_FETCH, "u", &cid),
                     10000);
    /* request_percentage: bounded by the window size (1000 ms) */
    ck_assert_int_eq(
        gr_client_quotas_record(q, GR_CQT_REQUEST, "u", &cid, 500, now), 1000);
    gr_client_quotas_destroy(q);
    /* quota.window.num 3: a window of at least 2 s */
    q = gr_client_quotas_new(c, 3, 1000);
    ck_assert_int_eq(gr_client_quotas_load(q), 0);
    ck_assert_int_eq(
        gr_client_quotas_record(q, GR_CQT_PRODUCE, "u", &cid, 3000, now), 1000);
    ck_assert_int_eq(gr_client_quotas_window_max(q, GR_CQT_PRODUCE, "u", &cid),
                     2000);
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(c);
    gr_logtest_fini(&t);
    gr_arena_destroy(a);
}
END_TEST

/* --- on a broker */

/* One AlterClientQuotas entry: key = v for client-id cid. */
typedef struct quota_rq {
    gr_alter_client_quotas_request_t rq;
    gr_alter_client_quotas_request_entry_data_t e;
    gr_alter_client_quotas_request_entity_data_t ent;
    gr_alter_client_quotas_request_op_data_t op;
} quota_rq_t;

static void
quota_rq(quota_rq_t *q, const char *cid, const char *key, double v)
{
    gr_alter_client_quotas_request_init(&q->rq);
    gr_alter_client_quotas_request_entry_data_init(&q->e);
    gr_alter_client_quotas_request_entity_data_init(&q->ent);
    gr_alter_client_quotas_request_op_data_init(&q->op);
    q->ent.entity_type = gr_str_c("client-id");
    q->ent.entity_name = gr_str_c(cid);
    q->op.key = gr_str_c(key);
    q->op.value = v;
    q->e.entity = &q->ent;
    q->e.entity_cnt = 1;
    q->e.ops = &q->op;
    q->e.ops_cnt = 1;
    q->rq.entries = &q->e;
    q->rq.entries_cnt = 1;
}

static gr_alter_client_quotas_response_t *
quota_alter(gr_brokertest_t *t, const char *cid, const char *key, double v)
{
    quota_rq_t q;
    gr_alter_client_quotas_response_t *rs;
    quota_rq(&q, cid, key, v);
    rs = gr_brokertest_call(t, GR_API_ALTER_CLIENT_QUOTAS, 1, &q.rq);
    ck_assert_int_eq(rs->entries_cnt, 1);
    return rs;
}

static void
quota_set(gr_brokertest_t *t, const char *cid, const char *key, double v)
{
    ck_assert_int_eq(quota_alter(t, cid, key, v)->entries[0].error_code, 0);
}

/* DescribeClientQuotas of every entity (on fd; -1: t's connection). */
static gr_describe_client_quotas_response_t *
quota_describe(gr_brokertest_t *t, int fd)
{
    gr_describe_client_quotas_request_t rq;
    gr_describe_client_quotas_response_t *rs;
    gr_describe_client_quotas_request_init(&rq);
    rq.components_cnt = 0;
    rs = fd < 0 ? gr_brokertest_call(t, GR_API_DESCRIBE_CLIENT_QUOTAS, 1, &rq)
                : gr_brokertest_call_on(t, fd, GR_API_DESCRIBE_CLIENT_QUOTAS,
                                        1, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    return rs;
}

static int
quota_count(gr_brokertest_t *t, int fd)
{
    return quota_describe(t, fd)->entries_cnt;
}

/* AlterClientQuotas is answered once the worker stored the file; until
 * then the quota does not hold (DescribeClientQuotas, on the loop, shows
 * none); two requests from two connections apply in order. */
/* connection_creation_rate of the IP entities: an address's own, else the
 * default's, else none (INT32_MAX); two spellings of one address are one
 * (the later entity wins); removals and a reopen hold. */
static int32_t
ip_rate(gr_client_quotas_t *q, const char *text)
{
    gr_ipaddr_t ip;
    ck_assert_int_eq(gr_ipaddr_parse(&ip, text), 0);
    return gr_client_quotas_ip_rate(q, &ip);
}

START_TEST(test_ip_rates)
{
    gr_logtest_t t;
    gr_client_quotas_t *q;
    gr_arena_t *a = gr_arena_new(4096);
    const char *msg;
    const char *k = "connection_creation_rate";

    gr_logtest_init(&t, 64);
    q = gr_client_quotas_new(cluster_open(&t), 11, 1000);
    ck_assert_int_eq(gr_client_quotas_ip_rate(NULL, NULL), INT32_MAX);
    ck_assert_int_eq(ip_rate(q, "10.0.0.1"), INT32_MAX);
    ck_assert_int_eq(alter1(q, a, "ip", "10.0.0.1", NULL, NULL, k, 5, false,
                            false, &msg), GR_KERR_NONE);
    ck_assert_int_eq(alter1(q, a, "ip", "::1", NULL, NULL, k, 7, false, false,
                            &msg), GR_KERR_NONE);
    ck_assert_int_eq(alter1(q, a, "ip", "0:0::1", NULL, NULL, k, 9, false,
                            false, &msg), GR_KERR_NONE);
    ck_assert_int_eq(alter1(q, a, "ip", "10.0.0.2", NULL, NULL, k, 3, false,
                            true, &msg), GR_KERR_NONE); /* validate only */
    ck_assert_int_eq(ip_rate(q, "10.0.0.1"), 5);
    ck_assert_int_eq(ip_rate(q, "::ffff:10.0.0.1"), 5);
    ck_assert_int_eq(ip_rate(q, "::1"), 9);
    ck_assert_int_eq(ip_rate(q, "10.0.0.2"), INT32_MAX);
    ck_assert_int_eq(alter1(q, a, "ip", NULL, NULL, NULL, k, 2, false, false,
                            &msg), GR_KERR_NONE);
    ck_assert_int_eq(ip_rate(q, "10.0.0.2"), 2);
    ck_assert_int_eq(ip_rate(q, "10.0.0.1"), 5);
    /* a user's quotas do not touch them */
    ck_assert_int_eq(alter1(q, a, "user", "u", NULL, NULL, "producer_byte_rate",
                            100, false, false, &msg), GR_KERR_NONE);
    ck_assert_int_eq(alter1(q, a, "ip", "10.0.0.1", NULL, NULL, k, 0, true,
                            false, &msg), GR_KERR_NONE);
    ck_assert_int_eq(ip_rate(q, "10.0.0.1"), 2);
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(opened);
    /* reopened: the same */
    q = gr_client_quotas_new(cluster_open(&t), 11, 1000);
    ck_assert_int_eq(gr_client_quotas_load(q), 0);
    ck_assert_int_eq(ip_rate(q, "10.0.0.1"), 2);
    ck_assert_int_eq(ip_rate(q, "::1"), 9);
    gr_client_quotas_destroy(q);
    gr_cluster_destroy(opened);
    gr_arena_destroy(a);
    gr_logtest_fini(&t);
}
END_TEST

START_TEST(test_alter_stored_first)
{
    gr_brokertest_t bt;
    quota_rq_t q1, q2;
    gr_alter_client_quotas_response_t *rs;
    int32_t c1, c2;
    int fd2, fd3;

    gr_brokertest_start(&bt, NULL);
    fd2 = gr_brokertest_connect(&bt);
    fd3 = gr_brokertest_connect(&bt);
    gr_brokertest_hold_workers(&bt);
    quota_rq(&q1, "c1", "producer_byte_rate", 1000);
    c1 = gr_brokertest_send(&bt, GR_API_ALTER_CLIENT_QUOTAS, 1, &q1.rq);
    ck_assert(!gr_brokertest_readable(bt.fd, 300));
    ck_assert_int_eq(quota_count(&bt, fd2), 0);
    /* the second removes what the first set: it must come after it */
    quota_rq(&q2, "c1", "producer_byte_rate", 0);
    q2.op.remove = true;
    c2 = gr_brokertest_send_fd(&bt, fd3, GR_API_ALTER_CLIENT_QUOTAS, 1,
                               &q2.rq);
    ck_assert(!gr_brokertest_readable(fd3, 200));
    gr_brokertest_release_workers(&bt);
    rs = gr_brokertest_recv(&bt, GR_API_ALTER_CLIENT_QUOTAS, 1, c1);
    ck_assert_int_eq(rs->entries[0].error_code, GR_KERR_NONE);
    rs = gr_brokertest_recv_fd(&bt, fd3, GR_API_ALTER_CLIENT_QUOTAS, 1, c2);
    ck_assert_int_eq(rs->entries[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(quota_count(&bt, -1), 0);
    quota_set(&bt, "c2", "consumer_byte_rate", 2000);
    ck_assert_int_eq(quota_count(&bt, -1), 1);
    close(fd2);
    close(fd3);
    gr_brokertest_restart(&bt, NULL);
    ck_assert_int_eq(quota_count(&bt, -1), 1);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A write that fails (fault point client_quotas.store) changes nothing:
 * the entry answers UNKNOWN_SERVER_ERROR, the quotas are as before, in
 * memory and after a restart. */
START_TEST(test_alter_store_fails)
{
    gr_brokertest_t bt;
    gr_alter_client_quotas_response_t *rs;
    gr_describe_client_quotas_response_t *d;

    gr_brokertest_start(&bt, NULL);
    quota_set(&bt, "kept", "producer_byte_rate", 1000);
    gr_fault_arm("client_quotas.store", 1);
    rs = quota_alter(&bt, "lost", "producer_byte_rate", 5);
    ck_assert_int_eq(rs->entries[0].error_code, GR_KERR_UNKNOWN_SERVER_ERROR);
    ck_assert(gr_str_eq_cstr(
        &rs->entries[0].error_message,
        "The client quotas could not be stored: Input/output error"));
    ck_assert_int_eq(quota_count(&bt, -1), 1);
    gr_fault_arm("client_quotas.store", 1);
    rs = quota_alter(&bt, "kept", "producer_byte_rate", 7);
    ck_assert_int_eq(rs->entries[0].error_code, GR_KERR_UNKNOWN_SERVER_ERROR);
    d = quota_describe(&bt, -1);
    ck_assert_int_eq(d->entries_cnt, 1);
    ck_assert_double_eq(d->entries[0].values[0].value, 1000);
    gr_fault_clear();
    gr_brokertest_restart(&bt, NULL);
    ck_assert_int_eq(quota_count(&bt, -1), 1);
    gr_brokertest_stop(&bt);
}
END_TEST

/* The brokertest client's id is that of gr_brokertest_call ("brokertest"); a
 * request_percentage far below one request's cost throttles every API:
 * each answer carries the throttle time (bounded by the 1 s window) and
 * the next request is not read before it is over. */
START_TEST(test_request_quota_throttles)
{
    gr_brokertest_t bt;
    gr_api_versions_request_t av;
    gr_metadata_request_t md;
    gr_api_versions_response_t *avr;
    gr_metadata_response_t *mdr;
    int64_t t0, t1;

    gr_brokertest_start(&bt, NULL);
    quota_set(&bt, "brokertest", "request_percentage", 0.0001);
    gr_api_versions_request_init(&av);
    avr = gr_brokertest_call(&bt, GR_API_API_VERSIONS, 3, &av);
    ck_assert_int_gt(avr->throttle_time_ms, 0);
    ck_assert_int_le(avr->throttle_time_ms, 1000);
    gr_metadata_request_init(&md);
    md.topics_cnt = 0;
    t0 = gr_mono_us();
    mdr = gr_brokertest_call(&bt, GR_API_METADATA, 12, &md);
    t1 = gr_mono_us();
    ck_assert_int_gt(mdr->throttle_time_ms, 0);
    /* muted for the ApiVersions' throttle time before Metadata was read */
    ck_assert_int_ge(t1 - t0, (int64_t)avr->throttle_time_ms * 1000 - 20000);
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_cluster_client_quotas(void)
{
    Suite *s = suite_create("cluster/client_quotas");
    TCase *tc = tcase_create("client_quotas");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_alter_refusals);
    tcase_add_test(tc, test_precedence);
    tcase_add_test(tc, test_describe_and_reopen);
    tcase_add_test(tc, test_many_entities);
    tcase_add_test(tc, test_file_named_twice);
    tcase_add_test(tc, test_throttle_numbers);
    tcase_add_test(tc, test_mutation_bucket);
    tcase_add_test(tc, test_request_quota_throttles);
    tcase_add_test(tc, test_ip_rates);
    tcase_add_test(tc, test_alter_stored_first);
    tcase_add_test(tc, test_alter_store_fails);
    suite_add_tcase(s, tc);
    return s;
}
