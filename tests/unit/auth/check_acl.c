/*
 * The authorizer (src/auth/acl.c): the check against StandardAuthorizerData's
 * rules, filters as AclBindingFilter matches, the stored text, the ACL
 * codecs on hand-written vectors (Kafka's CreateAcls/DescribeAcls/
 * DeleteAcls message definitions), and the handlers with their checks
 * through a broker (CreateAcls, DescribeAcls, DeleteAcls, Produce,
 * Metadata, InitProducerId, restart), their changes answered only once
 * stored (off the loop, in order; a failed write changes nothing) and
 * DeleteAcls bounded as Kafka's controller bounds it.
 */
#include "auth/acl_zk.h"
#include "core/buf.h"
#include "../api/brokertest.h"
#include "../unit.h"
#include "auth/acl.h"
#include "core/fault.h"
#include "core/time.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"
#include "proto/proto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static gr_acl_t
acl(int type, int pattern, const char *name, const char *principal,
    const char *host, int op, int perm)
{
    return (gr_acl_t){ .res_type = (int8_t)type,
                       .pattern = (int8_t)pattern,
                       .op = (int8_t)op,
                       .perm = (int8_t)perm,
                       .name = name,
                       .principal = principal,
                       .host = host };
}

static void
add(gr_acls_t *s, int type, int pattern, const char *name,
    const char *principal, const char *host, int op, int perm)
{
    gr_acl_t a = acl(type, pattern, name, principal, host, op, perm);
    char buf[256];
    ck_assert_ptr_null(gr_acl_invalid(&a, buf, sizeof buf));
    ck_assert_int_eq(gr_acls_add(s, &a), 0);
    ck_assert_int_eq(gr_acls_commit(s), 0);
}

static bool
can(const gr_acls_t *s, const char *principal, const char *host, int type,
    const char *name, int op)
{
    return gr_acls_authorize(s, principal, host, type, name, strlen(name), op);
}

#define ALICE "User:CN=alice"
#define BOB   "User:CN=bob"
#define H     "10.1.2.3"

START_TEST(test_literal_prefixed_wildcard)
{
    gr_acls_t *s = gr_acls_new(NULL, false);
    /* no ACL at all: denied (allow.everyone.if.no.acl.found=false) */
    ck_assert(!can(s, ALICE, H, GR_RES_TOPIC, "orders", GR_OP_READ));
    add(s, GR_RES_TOPIC, GR_PAT_LITERAL, "orders", ALICE, "*", GR_OP_READ,
        GR_PERM_ALLOW);
    ck_assert(can(s, ALICE, H, GR_RES_TOPIC, "orders", GR_OP_READ));
    ck_assert(!can(s, ALICE, H, GR_RES_TOPIC, "orders2", GR_OP_READ));
    ck_assert(!can(s, ALICE, H, GR_RES_TOPIC, "order", GR_OP_READ));
    ck_assert(!can(s, BOB, H, GR_RES_TOPIC, "orders", GR_OP_READ));
    ck_assert(!can(s, ALICE, H, GR_RES_GROUP, "orders", GR_OP_READ));
    /* PREFIXED: the prefix itself and everything under it */
    add(s, GR_RES_TOPIC, GR_PAT_PREFIXED, "app.", BOB, "*", GR_OP_WRITE,
        GR_PERM_ALLOW);
    ck_assert(can(s, BOB, H, GR_RES_TOPIC, "app.", GR_OP_WRITE));
    ck_assert(can(s, BOB, H, GR_RES_TOPIC, "app.events", GR_OP_WRITE));
    ck_assert(!can(s, BOB, H, GR_RES_TOPIC, "app", GR_OP_WRITE));
    ck_assert(!can(s, BOB, H, GR_RES_TOPIC, "apq.x", GR_OP_WRITE));
    /* prefixes that sort between others: "app.e" < "app.events" and a
     * longer non-matching one */
    add(s, GR_RES_TOPIC, GR_PAT_PREFIXED, "app.f", ALICE, "*", GR_OP_WRITE,
        GR_PERM_ALLOW);
    add(s, GR_RES_TOPIC, GR_PAT_PREFIXED, "app.eventsX", ALICE, "*",
        GR_OP_WRITE, GR_PERM_ALLOW);
    add(s, GR_RES_TOPIC, GR_PAT_PREFIXED, "a", ALICE, "*", GR_OP_WRITE,
        GR_PERM_ALLOW);
    ck_assert(can(s, ALICE, H, GR_RES_TOPIC, "app.events", GR_OP_WRITE));
    ck_assert(can(s, BOB, H, GR_RES_TOPIC, "app.events", GR_OP_WRITE));
    ck_assert(!can(s, BOB, H, GR_RES_TOPIC, "b", GR_OP_WRITE));
    /* LITERAL "*": every resource of the type */
    add(s, GR_RES_GROUP, GR_PAT_LITERAL, "*", "User:*", "*", GR_OP_READ,
        GR_PERM_ALLOW);
    ck_assert(can(s, BOB, H, GR_RES_GROUP, "any-group", GR_OP_READ));
    ck_assert(!can(s, BOB, H, GR_RES_GROUP, "any-group", GR_OP_DELETE));
    /* a PREFIXED "*" is only the prefix "*" */
    add(s, GR_RES_TRANSACTIONAL_ID, GR_PAT_PREFIXED, "*", ALICE, "*",
        GR_OP_WRITE, GR_PERM_ALLOW);
    ck_assert(!can(s, ALICE, H, GR_RES_TRANSACTIONAL_ID, "tx", GR_OP_WRITE));
    ck_assert(can(s, ALICE, H, GR_RES_TRANSACTIONAL_ID, "*tx", GR_OP_WRITE));
    gr_acls_destroy(s);
}
END_TEST

START_TEST(test_deny_wins_and_default)
{
    gr_acls_t *s = gr_acls_new(NULL, true);
    /* allow.everyone.if.no.acl.found: a resource without ACLs is open */
    ck_assert(can(s, ALICE, H, GR_RES_TOPIC, "t", GR_OP_WRITE));
    add(s, GR_RES_TOPIC, GR_PAT_PREFIXED, "t", "User:*", "*", GR_OP_ALL,
        GR_PERM_ALLOW);
    add(s, GR_RES_TOPIC, GR_PAT_LITERAL, "t", ALICE, "*", GR_OP_WRITE,
        GR_PERM_DENY);
    ck_assert(!can(s, ALICE, H, GR_RES_TOPIC, "t", GR_OP_WRITE));
    ck_assert(can(s, ALICE, H, GR_RES_TOPIC, "t", GR_OP_READ));
    ck_assert(can(s, BOB, H, GR_RES_TOPIC, "t", GR_OP_WRITE));
    ck_assert(can(s, ALICE, H, GR_RES_TOPIC, "tx", GR_OP_WRITE));
    /* a resource with someone else's ACL only is closed to the rest */
    add(s, GR_RES_GROUP, GR_PAT_LITERAL, "g", BOB, "*", GR_OP_READ,
        GR_PERM_ALLOW);
    ck_assert(!can(s, ALICE, H, GR_RES_GROUP, "g", GR_OP_READ));
    ck_assert(can(s, ALICE, H, GR_RES_GROUP, "h", GR_OP_READ));
    /* a wildcard DENY beats a literal ALLOW */
    add(s, GR_RES_GROUP, GR_PAT_LITERAL, "*", BOB, "*", GR_OP_ALL,
        GR_PERM_DENY);
    ck_assert(!can(s, BOB, H, GR_RES_GROUP, "g", GR_OP_READ));
    gr_acls_destroy(s);
}
END_TEST

START_TEST(test_implications)
{
    gr_acls_t *s = gr_acls_new(NULL, false);
    static const int implies_describe[] = { GR_OP_READ, GR_OP_WRITE,
                                            GR_OP_DELETE, GR_OP_ALTER };
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        add(s, GR_RES_TOPIC, GR_PAT_LITERAL, name, ALICE, "*",
            implies_describe[i], GR_PERM_ALLOW);
        ck_assert(can(s, ALICE, H, GR_RES_TOPIC, name, GR_OP_DESCRIBE));
        ck_assert(!can(s, ALICE, H, GR_RES_TOPIC, name, GR_OP_CREATE));
    }
    add(s, GR_RES_TOPIC, GR_PAT_LITERAL, "c", ALICE, "*", GR_OP_ALTER_CONFIGS,
        GR_PERM_ALLOW);
    ck_assert(can(s, ALICE, H, GR_RES_TOPIC, "c", GR_OP_DESCRIBE_CONFIGS));
    ck_assert(!can(s, ALICE, H, GR_RES_TOPIC, "c", GR_OP_DESCRIBE));
    add(s, GR_RES_CLUSTER, GR_PAT_LITERAL, "kafka-cluster", ALICE, "*",
        GR_OP_ALL, GR_PERM_ALLOW);
    ck_assert(can(s, ALICE, H, GR_RES_CLUSTER, "kafka-cluster",
                  GR_OP_IDEMPOTENT_WRITE));
    /* a DENY of READ does not deny DESCRIBE: implications are for ALLOW */
    add(s, GR_RES_TOPIC, GR_PAT_LITERAL, "d", ALICE, "*", GR_OP_DESCRIBE,
        GR_PERM_ALLOW);
    add(s, GR_RES_TOPIC, GR_PAT_LITERAL, "d", ALICE, "*", GR_OP_READ,
        GR_PERM_DENY);
    ck_assert(can(s, ALICE, H, GR_RES_TOPIC, "d", GR_OP_DESCRIBE));
    ck_assert(!can(s, ALICE, H, GR_RES_TOPIC, "d", GR_OP_READ));
    gr_acls_destroy(s);
}
END_TEST

START_TEST(test_hosts_and_super_users)
{
    gr_acls_t *s = gr_acls_new(" User:CN=admin ; ;User:root", false);
    add(s, GR_RES_TOPIC, GR_PAT_LITERAL, "t", ALICE, "10.1.2.3", GR_OP_READ,
        GR_PERM_ALLOW);
    add(s, GR_RES_TOPIC, GR_PAT_LITERAL, "u", ALICE, "10.1.0.0/16", GR_OP_READ,
        GR_PERM_ALLOW);
    add(s, GR_RES_TOPIC, GR_PAT_LITERAL, "v", ALICE, "fd00::/8", GR_OP_READ,
        GR_PERM_ALLOW);
    ck_assert(can(s, ALICE, "10.1.2.3", GR_RES_TOPIC, "t", GR_OP_READ));
    ck_assert(!can(s, ALICE, "10.1.2.4", GR_RES_TOPIC, "t", GR_OP_READ));
    ck_assert(can(s, ALICE, "10.1.200.9", GR_RES_TOPIC, "u", GR_OP_READ));
    ck_assert(!can(s, ALICE, "10.2.0.1", GR_RES_TOPIC, "u", GR_OP_READ));
    ck_assert(
        can(s, ALICE, "fd12:0:0:0:0:0:0:1", GR_RES_TOPIC, "v", GR_OP_READ));
    ck_assert(!can(s, ALICE, "10.1.2.3", GR_RES_TOPIC, "v", GR_OP_READ));
    ck_assert(can(s, "User:CN=admin", H, GR_RES_TOPIC, "t", GR_OP_DELETE));
    ck_assert(
        can(s, "User:root", H, GR_RES_CLUSTER, "kafka-cluster", GR_OP_ALTER));
    ck_assert(!can(s, "User:CN=admin2", H, GR_RES_TOPIC, "t", GR_OP_READ));
    gr_acls_destroy(s);
}
END_TEST

START_TEST(test_validation)
{
    char buf[256];
    gr_acl_t a = acl(GR_RES_CLUSTER, GR_PAT_LITERAL, "other", ALICE, "*",
                     GR_OP_ALTER, GR_PERM_ALLOW);
    ck_assert_str_eq(gr_acl_invalid(&a, buf, sizeof buf),
                     "The only valid name for the CLUSTER resource is "
                     "kafka-cluster");
    a = acl(GR_RES_TOPIC, GR_PAT_LITERAL, "", ALICE, "*", GR_OP_READ,
            GR_PERM_ALLOW);
    ck_assert_str_eq(gr_acl_invalid(&a, buf, sizeof buf),
                     "Invalid empty resource name");
    a = acl(GR_RES_TOPIC, GR_PAT_LITERAL, "t", "alice", "*", GR_OP_READ,
            GR_PERM_ALLOW);
    ck_assert_str_eq(gr_acl_invalid(&a, buf, sizeof buf),
                     "Could not parse principal from `alice` (no colon is "
                     "present separating the principal type from the "
                     "principal name)");
    a = acl(GR_RES_TOPIC, GR_PAT_LITERAL, "t", ALICE, "", GR_OP_READ,
            GR_PERM_ALLOW);
    ck_assert_str_eq(gr_acl_invalid(&a, buf, sizeof buf),
                     "Host pattern cannot be null or empty");
    a = acl(9, GR_PAT_LITERAL, "t", ALICE, "*", GR_OP_READ, GR_PERM_ALLOW);
    ck_assert_str_eq(gr_acl_invalid(&a, buf, sizeof buf),
                     "Invalid resourceType UNKNOWN");
    a = acl(GR_RES_TOPIC, GR_PAT_LITERAL, "t", ALICE, "10.0.0.0/33", GR_OP_READ,
            GR_PERM_ALLOW);
    ck_assert_ptr_nonnull(gr_acl_invalid(&a, buf, sizeof buf));
}
END_TEST

static int
count_cb(void *arg, const gr_acl_t *a)
{
    (void)a;
    (*(int *)arg)++;
    return 0;
}

START_TEST(test_filters_and_remove)
{
    gr_acls_t *s = gr_acls_new(NULL, false);
    gr_str_t orders = GR_STR("orders"), star = GR_STR("*");
    gr_str_t alice = GR_STR(ALICE);
    gr_acl_filter_t f = { GR_RES_ANY, GR_PAT_ANY, GR_OP_ANY, GR_PERM_ANY,
                          NULL,       NULL,       NULL };
    int n = 0;

    add(s, GR_RES_TOPIC, GR_PAT_LITERAL, "orders", ALICE, "*", GR_OP_READ,
        GR_PERM_ALLOW);
    add(s, GR_RES_TOPIC, GR_PAT_PREFIXED, "ord", ALICE, "*", GR_OP_READ,
        GR_PERM_ALLOW);
    add(s, GR_RES_TOPIC, GR_PAT_LITERAL, "*", BOB, "*", GR_OP_READ,
        GR_PERM_ALLOW);
    add(s, GR_RES_GROUP, GR_PAT_LITERAL, "orders", BOB, "*", GR_OP_READ,
        GR_PERM_ALLOW);
    /* the same binding twice is one */
    add(s, GR_RES_GROUP, GR_PAT_LITERAL, "orders", BOB, "*", GR_OP_READ,
        GR_PERM_ALLOW);
    ck_assert_uint_eq(gr_acls_count(s), 4);
    gr_acls_each(s, count_cb, &n);
    ck_assert_int_eq(n, 4);
    /* MATCH: every pattern that covers the literal name */
    f.res_type = GR_RES_TOPIC;
    f.pattern = GR_PAT_MATCH;
    f.name = &orders;
    {
        gr_acl_t a1 = acl(GR_RES_TOPIC, GR_PAT_LITERAL, "orders", ALICE, "*",
                          GR_OP_READ, GR_PERM_ALLOW);
        gr_acl_t a2 = acl(GR_RES_TOPIC, GR_PAT_PREFIXED, "ord", ALICE, "*",
                          GR_OP_READ, GR_PERM_ALLOW);
        gr_acl_t a3 = acl(GR_RES_TOPIC, GR_PAT_LITERAL, "*", BOB, "*",
                          GR_OP_READ, GR_PERM_ALLOW);
        gr_acl_t a4 = acl(GR_RES_GROUP, GR_PAT_LITERAL, "orders", BOB, "*",
                          GR_OP_READ, GR_PERM_ALLOW);
        gr_acl_t a5 = acl(GR_RES_TOPIC, GR_PAT_PREFIXED, "orders2", ALICE, "*",
                          GR_OP_READ, GR_PERM_ALLOW);
        ck_assert(gr_acl_filter_matches(&f, &a1));
        ck_assert(gr_acl_filter_matches(&f, &a2));
        ck_assert(gr_acl_filter_matches(&f, &a3));
        ck_assert(!gr_acl_filter_matches(&f, &a4));
        ck_assert(!gr_acl_filter_matches(&f, &a5));
    }
    /* ANY with a name: that exact name, any pattern type */
    f.pattern = GR_PAT_ANY;
    f.name = &star;
    ck_assert_uint_eq(gr_acls_remove(s, &f, NULL, NULL), 1);
    ck_assert_int_eq(gr_acls_commit(s), 0);
    ck_assert(!can(s, BOB, H, GR_RES_TOPIC, "x", GR_OP_READ));
    /* by principal, over every type */
    f.res_type = GR_RES_ANY;
    f.name = NULL;
    f.principal = &alice;
    ck_assert_uint_eq(gr_acls_remove(s, &f, NULL, NULL), 2);
    ck_assert_int_eq(gr_acls_commit(s), 0);
    ck_assert_uint_eq(gr_acls_count(s), 1);
    ck_assert(!can(s, ALICE, H, GR_RES_TOPIC, "orders", GR_OP_READ));
    ck_assert(can(s, BOB, H, GR_RES_GROUP, "orders", GR_OP_READ));
    gr_acls_destroy(s);
}
END_TEST

START_TEST(test_by_type)
{
    gr_acls_t *s = gr_acls_new(NULL, false);
    ck_assert(
        !gr_acls_authorize_by_type(s, ALICE, H, GR_RES_TOPIC, GR_OP_WRITE));
    add(s, GR_RES_TOPIC, GR_PAT_PREFIXED, "app.", ALICE, "*", GR_OP_WRITE,
        GR_PERM_ALLOW);
    ck_assert(
        gr_acls_authorize_by_type(s, ALICE, H, GR_RES_TOPIC, GR_OP_WRITE));
    ck_assert(!gr_acls_authorize_by_type(s, BOB, H, GR_RES_TOPIC, GR_OP_WRITE));
    /* a deny of a shorter prefix dominates the allow */
    add(s, GR_RES_TOPIC, GR_PAT_PREFIXED, "ap", ALICE, "*", GR_OP_WRITE,
        GR_PERM_DENY);
    ck_assert(
        !gr_acls_authorize_by_type(s, ALICE, H, GR_RES_TOPIC, GR_OP_WRITE));
    gr_acls_destroy(s);
}
END_TEST

START_TEST(test_text_roundtrip)
{
    gr_acls_t *s = gr_acls_new(NULL, false), *t = gr_acls_new(NULL, false);
    char *data = NULL, why[128];
    size_t len = 0;
    add(s, GR_RES_GROUP, GR_PAT_LITERAL, "a group\nwith %", "User:CN=x y,O=z",
        "*", GR_OP_READ, GR_PERM_ALLOW);
    add(s, GR_RES_TOPIC, GR_PAT_PREFIXED, "p", ALICE, "10.0.0.0/8", GR_OP_WRITE,
        GR_PERM_DENY);
    ck_assert_int_eq(gr_acls_serialize(s, &data, &len), 0);
    ck_assert_int_eq(gr_acls_parse(t, data, len, why, sizeof why), 0);
    ck_assert_uint_eq(gr_acls_count(t), 2);
    ck_assert(can(t, "User:CN=x y,O=z", H, GR_RES_GROUP, "a group\nwith %",
                  GR_OP_READ));
    ck_assert(!can(t, ALICE, "10.9.9.9", GR_RES_TOPIC, "pq", GR_OP_WRITE));
    free(data);
    ck_assert_int_eq(gr_acls_parse(t, "2 3 3\n", 6, why, sizeof why), -1);
    gr_acls_destroy(s);
    gr_acls_destroy(t);
}
END_TEST

/* --- codecs: vectors written from Kafka's message definitions */

/* CreateAcls v1 request (non-flexible; ResourcePatternType from v1) */
static const uint8_t create_acls_rq_v1[] = {
    0x00, 0x00, 0x00, 0x01,      /* Creations: 1 */
    0x02,                        /* ResourceType TOPIC */
    0x00, 0x03, 'a',  'p',  'p', /* ResourceName "app" */
    0x04,                        /* ResourcePatternType PREFIXED */
    0x00, 0x06, 'U',  's',  'e', 'r', ':', 'a', /* Principal "User:a" */
    0x00, 0x01, '*',                            /* Host "*" */
    0x04,                                       /* Operation WRITE */
    0x03,                                       /* PermissionType ALLOW */
};

/* DescribeAcls v0 request: no PatternTypeFilter (LITERAL by default) */
static const uint8_t describe_acls_rq_v0[] = {
    0x01,            /* ResourceTypeFilter ANY */
    0xff, 0xff,      /* ResourceNameFilter null */
    0xff, 0xff,      /* PrincipalFilter null */
    0x00, 0x01, '*', /* HostFilter "*" */
    0x01,            /* Operation ANY */
    0x01,            /* PermissionType ANY */
};

/* DeleteAcls v3 response (flexible) */
static const uint8_t delete_acls_rs_v3[] = {
    0x00, 0x00, 0x00, 0x00,                /* ThrottleTimeMs */
    0x02,                                  /* FilterResults: 1 (compact) */
    0x00, 0x00,                            /* ErrorCode NONE */
    0x00,                                  /* ErrorMessage null (compact) */
    0x02,                                  /* MatchingAcls: 1 */
    0x00, 0x00,                            /* ErrorCode */
    0x00,                                  /* ErrorMessage null */
    0x03,                                  /* ResourceType GROUP */
    0x02, 'g',                             /* ResourceName "g" */
    0x03,                                  /* PatternType LITERAL */
    0x07, 'U',  's',  'e',  'r', ':', 'b', /* Principal "User:b" */
    0x02, '*',                             /* Host "*" */
    0x03,                                  /* Operation READ */
    0x02,                                  /* PermissionType DENY */
    0x00,                                  /* tags: none (MatchingAcl) */
    0x00,                                  /* tags: none (FilterResult) */
    0x00,                                  /* tags: none */
};

START_TEST(test_codecs)
{
    gr_arena_t *a = gr_arena_new(4096);
    uint8_t out[256];
    gr_reader_t r;
    gr_writer_t w;

    {
        gr_create_acls_request_t m;
        r = gr_reader_init(create_acls_rq_v1, sizeof create_acls_rq_v1);
        ck_assert_int_eq(gr_create_acls_request_decode(&r, 1, a, &m), 0);
        ck_assert_uint_eq(gr_reader_remaining(&r), 0);
        ck_assert_int_eq(m.creations_cnt, 1);
        ck_assert_int_eq(m.creations[0].resource_pattern_type, GR_PAT_PREFIXED);
        ck_assert(gr_str_eq_cstr(&m.creations[0].principal, "User:a"));
        ck_assert_int_eq(m.creations[0].operation, GR_OP_WRITE);
        w = gr_writer_init(out, sizeof out, a);
        gr_create_acls_request_encode(&w, &m, 1);
        ck_assert_uint_eq((size_t)(w.p - w.start), sizeof create_acls_rq_v1);
        ck_assert_mem_eq(out, create_acls_rq_v1, sizeof create_acls_rq_v1);
    }
    {
        gr_describe_acls_request_t m;
        r = gr_reader_init(describe_acls_rq_v0, sizeof describe_acls_rq_v0);
        ck_assert_int_eq(gr_describe_acls_request_decode(&r, 0, a, &m), 0);
        ck_assert_uint_eq(gr_reader_remaining(&r), 0);
        ck_assert_int_eq(m.pattern_type_filter, GR_PAT_LITERAL);
        ck_assert_int_lt(m.resource_name_filter.len, 0);
        ck_assert(gr_str_eq_cstr(&m.host_filter, "*"));
    }
    {
        gr_delete_acls_response_t m;
        r = gr_reader_init(delete_acls_rs_v3, sizeof delete_acls_rs_v3);
        ck_assert_int_eq(gr_delete_acls_response_decode(&r, 3, a, &m), 0);
        ck_assert_uint_eq(gr_reader_remaining(&r), 0);
        ck_assert_int_eq(m.filter_results_cnt, 1);
        ck_assert_int_eq(m.filter_results[0].matching_acls_cnt, 1);
        ck_assert_int_eq(m.filter_results[0].matching_acls[0].permission_type,
                         GR_PERM_DENY);
        w = gr_writer_init(out, sizeof out, a);
        gr_delete_acls_response_encode(&w, &m, 3);
        ck_assert_uint_eq((size_t)(w.p - w.start), sizeof delete_acls_rs_v3);
        ck_assert_mem_eq(out, delete_acls_rs_v3, sizeof delete_acls_rs_v3);
    }
    gr_arena_destroy(a);
}
END_TEST

/* --- the handlers, through a broker (User:ANONYMOUS on PLAINTEXT) */

static const char *const open_conf[] = {
    "authorizer.class.name=org.apache.kafka.metadata.authorizer."
    "StandardAuthorizer",
    "allow.everyone.if.no.acl.found=true", NULL
};

static int16_t
create_acl(gr_brokertest_t *t, int type, int pattern, const char *name, int op,
           int perm, int16_t ver, const char **msg)
{
    gr_create_acls_request_t rq;
    gr_create_acls_request_acl_creation_t c;
    gr_create_acls_response_t *rs;
    gr_create_acls_request_init(&rq);
    gr_create_acls_request_acl_creation_init(&c);
    c.resource_type = (int8_t)type;
    c.resource_name = gr_str_c(name);
    c.resource_pattern_type = (int8_t)pattern;
    c.principal = GR_STR("User:ANONYMOUS");
    c.host = GR_STR("*");
    c.operation = (int8_t)op;
    c.permission_type = (int8_t)perm;
    rq.creations = &c;
    rq.creations_cnt = 1;
    rs = gr_brokertest_call(t, GR_API_CREATE_ACLS, ver, &rq);
    ck_assert_int_eq(rs->results_cnt, 1);
    if (msg != NULL)
        *msg = rs->results[0].error_message.len > 0
                   ? gr_arena_strndup(t->a, rs->results[0].error_message.ptr,
                                      (size_t)rs->results[0].error_message.len)
                   : NULL;
    return rs->results[0].error_code;
}

static int16_t
metadata_error(gr_brokertest_t *t, const char *topic)
{
    gr_metadata_request_t rq;
    gr_metadata_request_topic_t qt;
    gr_metadata_response_t *rs;
    gr_metadata_request_init(&rq);
    gr_metadata_request_topic_init(&qt);
    qt.name = gr_str_c(topic);
    rq.topics = &qt;
    rq.topics_cnt = 1;
    rq.allow_auto_topic_creation = true;
    rs = gr_brokertest_call(t, GR_API_METADATA, 12, &rq);
    ck_assert_int_eq(rs->topics_cnt, 1);
    return rs->topics[0].error_code;
}

static int
metadata_all_count(gr_brokertest_t *t)
{
    gr_metadata_request_t rq;
    gr_metadata_response_t *rs;
    gr_metadata_request_init(&rq);
    rq.topics_cnt = -1;
    rs = gr_brokertest_call(t, GR_API_METADATA, 12, &rq);
    return rs->topics_cnt;
}

static int16_t
init_pid(gr_brokertest_t *t)
{
    gr_init_producer_id_request_t rq;
    gr_init_producer_id_response_t *rs;
    gr_init_producer_id_request_init(&rq);
    rq.transactional_id = GR_STR_NULL;
    rq.transaction_timeout_ms = 60000;
    rs = gr_brokertest_call(t, GR_API_INIT_PRODUCER_ID, 4, &rq);
    return rs->error_code;
}

START_TEST(test_api_acls)
{
    gr_brokertest_t t;
    const char *msg;
    gr_brokertest_start(&t, open_conf);

    /* open: topics auto-created and described */
    ck_assert_int_eq(metadata_error(&t, "open1"), GR_KERR_NONE);
    ck_assert_int_eq(metadata_error(&t, "secret1"), GR_KERR_NONE);
    ck_assert_int_eq(init_pid(&t), GR_KERR_NONE);
    /* validation (AclApis, AclControlManager) */
    ck_assert_int_eq(create_acl(&t, GR_RES_TOPIC, GR_PAT_LITERAL, "",
                                GR_OP_READ, GR_PERM_ALLOW, 3, &msg),
                     GR_KERR_INVALID_REQUEST);
    ck_assert_str_eq(msg, "Invalid empty resource name");
    ck_assert_int_eq(create_acl(&t, GR_RES_CLUSTER, GR_PAT_LITERAL, "c",
                                GR_OP_ALTER, GR_PERM_ALLOW, 1, &msg),
                     GR_KERR_INVALID_REQUEST);
    ck_assert_int_eq(create_acl(&t, GR_RES_TOPIC, GR_PAT_MATCH, "x", GR_OP_READ,
                                GR_PERM_ALLOW, 2, &msg),
                     GR_KERR_UNKNOWN_SERVER_ERROR);
    /* a DENY of DESCRIBE on the prefix "secret": Metadata hides them */
    ck_assert_int_eq(create_acl(&t, GR_RES_TOPIC, GR_PAT_PREFIXED, "secret",
                                GR_OP_DESCRIBE, GR_PERM_DENY, 1, NULL),
                     GR_KERR_NONE);
    ck_assert_int_eq(metadata_error(&t, "secret1"),
                     GR_KERR_TOPIC_AUTHORIZATION_FAILED);
    ck_assert_int_eq(metadata_error(&t, "open1"), GR_KERR_NONE);
    ck_assert_int_eq(metadata_all_count(&t), 1);
    /* idempotence needs IDEMPOTENT_WRITE or WRITE on some topic: with a
     * DENY of IDEMPOTENT_WRITE, Kafka's authorizeByResourceType still
     * allows it here (its probe resource "hardcode" has no ACL and
     * allow.everyone.if.no.acl.found is on); ALL on the cluster first,
     * or the cluster resource, having an ACL, would refuse the ACL APIs */
    ck_assert_int_eq(create_acl(&t, GR_RES_CLUSTER, GR_PAT_LITERAL,
                                "kafka-cluster", GR_OP_ALL, GR_PERM_ALLOW, 3,
                                NULL),
                     GR_KERR_NONE);
    ck_assert_int_eq(create_acl(&t, GR_RES_CLUSTER, GR_PAT_LITERAL,
                                "kafka-cluster", GR_OP_IDEMPOTENT_WRITE,
                                GR_PERM_DENY, 3, NULL),
                     GR_KERR_NONE);
    ck_assert_int_eq(init_pid(&t), GR_KERR_NONE);
    /* durable: the same after a restart */
    gr_brokertest_restart(&t, open_conf);
    ck_assert_int_eq(metadata_error(&t, "secret1"),
                     GR_KERR_TOPIC_AUTHORIZATION_FAILED);
    {
        gr_describe_acls_request_t rq;
        gr_describe_acls_response_t *rs;
        gr_describe_acls_request_init(&rq);
        rq.resource_type_filter = GR_RES_ANY;
        rq.pattern_type_filter = GR_PAT_ANY;
        rq.resource_name_filter = GR_STR_NULL;
        rq.principal_filter = GR_STR_NULL;
        rq.host_filter = GR_STR_NULL;
        rq.operation = GR_OP_ANY;
        rq.permission_type = GR_PERM_ANY;
        rs = gr_brokertest_call(&t, GR_API_DESCRIBE_ACLS, 3, &rq);
        ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
        ck_assert_int_eq(rs->resources_cnt, 2);
        /* grouped: the cluster's two bindings under one resource */
        ck_assert_int_eq(rs->resources[0].resource_type, GR_RES_TOPIC);
        ck_assert_int_eq(rs->resources[1].acls_cnt, 2);
    }
    /* removed: open again at once */
    {
        gr_delete_acls_request_t rq;
        gr_delete_acls_request_delete_acls_filter_t f;
        gr_delete_acls_response_t *rs;
        gr_delete_acls_request_init(&rq);
        gr_delete_acls_request_delete_acls_filter_init(&f);
        f.resource_type_filter = GR_RES_TOPIC;
        f.pattern_type_filter = GR_PAT_MATCH;
        f.resource_name_filter = GR_STR("secret1");
        f.principal_filter = GR_STR_NULL;
        f.host_filter = GR_STR_NULL;
        f.operation = GR_OP_ANY;
        f.permission_type = GR_PERM_ANY;
        rq.filters = &f;
        rq.filters_cnt = 1;
        rs = gr_brokertest_call(&t, GR_API_DELETE_ACLS, 2, &rq);
        ck_assert_int_eq(rs->filter_results_cnt, 1);
        ck_assert_int_eq(rs->filter_results[0].error_code, GR_KERR_NONE);
        ck_assert_int_eq(rs->filter_results[0].matching_acls_cnt, 1);
        ck_assert(gr_str_eq_cstr(
            &rs->filter_results[0].matching_acls[0].resource_name, "secret"));
    }
    ck_assert_int_eq(metadata_error(&t, "secret1"), GR_KERR_NONE);
    gr_brokertest_stop(&t);
}
END_TEST

START_TEST(test_api_closed)
{
    static const char *const conf[] = {
        "authorizer.class.name=kafka.security.authorizer.AclAuthorizer", NULL
    };
    gr_brokertest_t t;
    gr_brokertest_start(&t, conf);
    /* nothing allowed: no super user, no ACL */
    ck_assert_int_eq(metadata_error(&t, "t1"),
                     GR_KERR_TOPIC_AUTHORIZATION_FAILED);
    ck_assert_int_eq(metadata_all_count(&t), 0);
    ck_assert_int_eq(create_acl(&t, GR_RES_TOPIC, GR_PAT_LITERAL, "t1",
                                GR_OP_ALL, GR_PERM_ALLOW, 3, NULL),
                     GR_KERR_CLUSTER_AUTHORIZATION_FAILED);
    ck_assert_int_eq(init_pid(&t), GR_KERR_CLUSTER_AUTHORIZATION_FAILED);
    gr_brokertest_stop(&t);
}
END_TEST

START_TEST(test_api_no_authorizer)
{
    gr_brokertest_t t;
    gr_brokertest_start(&t, NULL);
    ck_assert_int_eq(create_acl(&t, GR_RES_TOPIC, GR_PAT_LITERAL, "t1",
                                GR_OP_ALL, GR_PERM_ALLOW, 3, NULL),
                     GR_KERR_SECURITY_DISABLED);
    gr_brokertest_stop(&t);
}
END_TEST

/* --- the ACL changes stored before they are answered */

static void
describe_all(gr_describe_acls_request_t *rq)
{
    gr_describe_acls_request_init(rq);
    rq->resource_type_filter = GR_RES_ANY;
    rq->pattern_type_filter = GR_PAT_ANY;
    rq->resource_name_filter = GR_STR_NULL;
    rq->principal_filter = GR_STR_NULL;
    rq->host_filter = GR_STR_NULL;
    rq->operation = GR_OP_ANY;
    rq->permission_type = GR_PERM_ANY;
}

/* How many bindings DescribeAcls lists (on fd; -1: t's connection). */
static int
count_acls(gr_brokertest_t *t, int fd)
{
    gr_describe_acls_request_t rq;
    gr_describe_acls_response_t *rs;
    int n = 0;
    describe_all(&rq);
    rs = fd < 0 ? gr_brokertest_call(t, GR_API_DESCRIBE_ACLS, 3, &rq)
                : gr_brokertest_call_on(t, fd, GR_API_DESCRIBE_ACLS, 3, &rq);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    for (int32_t i = 0; i < rs->resources_cnt; i++)
        n += rs->resources[i].acls_cnt;
    return n;
}

static void
topic_read(gr_create_acls_request_t *rq,
           gr_create_acls_request_acl_creation_t *c, const char *name)
{
    gr_create_acls_request_init(rq);
    gr_create_acls_request_acl_creation_init(c);
    c->resource_type = GR_RES_TOPIC;
    c->resource_name = gr_str_c(name);
    c->resource_pattern_type = GR_PAT_LITERAL;
    c->principal = GR_STR("User:ANONYMOUS");
    c->host = GR_STR("*");
    c->operation = GR_OP_READ;
    c->permission_type = GR_PERM_ALLOW;
    rq->creations = c;
    rq->creations_cnt = 1;
}

/* A filter of every binding (name, principal NULL: any). */
static void
filter_init(gr_delete_acls_request_delete_acls_filter_t *f, const char *name,
            const char *principal)
{
    gr_delete_acls_request_delete_acls_filter_init(f);
    f->resource_type_filter = GR_RES_ANY;
    f->pattern_type_filter = name ? GR_PAT_MATCH : GR_PAT_ANY;
    f->resource_name_filter = name ? gr_str_c(name) : GR_STR_NULL;
    f->principal_filter = principal ? gr_str_c(principal) : GR_STR_NULL;
    f->host_filter = GR_STR_NULL;
    f->operation = GR_OP_ANY;
    f->permission_type = GR_PERM_ANY;
}

static gr_delete_acls_response_t *
delete_acls(gr_brokertest_t *t, gr_delete_acls_request_delete_acls_filter_t *f,
            int n)
{
    gr_delete_acls_request_t rq;
    gr_delete_acls_response_t *rs;
    gr_delete_acls_request_init(&rq);
    rq.filters = f;
    rq.filters_cnt = n;
    rs = gr_brokertest_call(t, GR_API_DELETE_ACLS, 3, &rq);
    ck_assert_int_eq(rs->filter_results_cnt, n);
    return rs;
}

/* CreateAcls is answered after the worker wrote the file, not before;
 * until then the checks and DescribeAcls see the old set; a DeleteAcls
 * that came after it (another connection) sees its binding. */
START_TEST(test_api_acls_stored_first)
{
    gr_brokertest_t t;
    gr_create_acls_request_t crq;
    gr_create_acls_request_acl_creation_t c;
    gr_create_acls_response_t *crs;
    gr_delete_acls_request_t drq;
    gr_delete_acls_request_delete_acls_filter_t f;
    gr_delete_acls_response_t *drs;
    int32_t ccorr, dcorr;
    int fd2, fd3;
    int64_t t0;

    gr_brokertest_start(&t, open_conf);
    fd2 = gr_brokertest_connect(&t);
    fd3 = gr_brokertest_connect(&t);
    gr_brokertest_hold_workers(&t);
    topic_read(&crq, &c, "t1");
    ccorr = gr_brokertest_send(&t, GR_API_CREATE_ACLS, 3, &crq);
    ck_assert(!gr_brokertest_readable(t.fd, 300));
    ck_assert_int_eq(count_acls(&t, fd2), 0); /* the loop answers others */
    gr_delete_acls_request_init(&drq);
    filter_init(&f, "t1", NULL);
    drq.filters = &f;
    drq.filters_cnt = 1;
    dcorr = gr_brokertest_send_fd(&t, fd3, GR_API_DELETE_ACLS, 3, &drq);
    ck_assert(!gr_brokertest_readable(fd3, 200));
    ck_assert(!gr_brokertest_readable(t.fd, 0));
    t0 = gr_mono_us();
    gr_brokertest_release_workers(&t);
    crs = gr_brokertest_recv(&t, GR_API_CREATE_ACLS, 3, ccorr);
    ck_assert_int_eq(crs->results_cnt, 1);
    ck_assert_int_eq(crs->results[0].error_code, GR_KERR_NONE);
    drs = gr_brokertest_recv_fd(&t, fd3, GR_API_DELETE_ACLS, 3, dcorr);
    ck_assert_int_lt(gr_mono_us() - t0, 10 * 1000000);
    ck_assert_int_eq(drs->filter_results[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(drs->filter_results[0].matching_acls_cnt, 1);
    ck_assert_int_eq(count_acls(&t, -1), 0);
    /* and one created now is there after a restart */
    ck_assert_int_eq(create_acl(&t, GR_RES_TOPIC, GR_PAT_LITERAL, "t2",
                                GR_OP_READ, GR_PERM_ALLOW, 3, NULL),
                     GR_KERR_NONE);
    close(fd2);
    close(fd3);
    gr_brokertest_restart(&t, open_conf);
    ck_assert_int_eq(count_acls(&t, -1), 1);
    gr_brokertest_stop(&t);
}
END_TEST

/* A write that fails (fault point acls.store) changes nothing: the
 * request answers UNKNOWN_SERVER_ERROR, the set is as before, in memory
 * and after a restart. */
START_TEST(test_api_acls_store_fails)
{
    gr_brokertest_t t;
    gr_delete_acls_request_delete_acls_filter_t f;
    gr_delete_acls_response_t *rs;
    const char *msg;

    gr_brokertest_start(&t, open_conf);
    ck_assert_int_eq(create_acl(&t, GR_RES_TOPIC, GR_PAT_LITERAL, "kept",
                                GR_OP_READ, GR_PERM_ALLOW, 3, NULL),
                     GR_KERR_NONE);
    gr_fault_arm("acls.store", 1);
    ck_assert_int_eq(create_acl(&t, GR_RES_TOPIC, GR_PAT_PREFIXED, "secret",
                                GR_OP_DESCRIBE, GR_PERM_DENY, 3, &msg),
                     GR_KERR_UNKNOWN_SERVER_ERROR);
    ck_assert_str_eq(msg, "The ACLs could not be stored: Input/output error");
    ck_assert_int_eq(count_acls(&t, -1), 1);
    /* the DENY is not in force */
    ck_assert_int_eq(metadata_error(&t, "secret1"), GR_KERR_NONE);
    gr_fault_arm("acls.store", 1);
    filter_init(&f, NULL, NULL);
    rs = delete_acls(&t, &f, 1);
    ck_assert_int_eq(rs->filter_results[0].error_code,
                     GR_KERR_UNKNOWN_SERVER_ERROR);
    ck_assert_int_eq(rs->filter_results[0].matching_acls_cnt, 0);
    ck_assert_int_eq(count_acls(&t, -1), 1);
    gr_fault_clear();
    gr_brokertest_restart(&t, open_conf);
    ck_assert_int_eq(count_acls(&t, -1), 1);
    ck_assert_int_eq(metadata_error(&t, "secret1"), GR_KERR_NONE);
    gr_brokertest_stop(&t);
}
END_TEST

/* Kafka's controller removes at most MAX_RECORDS_PER_USER_OP (10000)
 * bindings a request: more, and every filter answers INVALID_REQUEST,
 * nothing removed. 10001 bindings stored by hand: 10000 of User:a, one
 * of User:b. */
START_TEST(test_api_delete_acls_bound)
{
    static const char bound[] =
        "Cannot remove more than 10000 acls in a single delete operation.";
    gr_brokertest_t t;
    gr_delete_acls_request_delete_acls_filter_t f[2];
    gr_delete_acls_response_t *rs;
    char path[256];
    FILE *fp;

    gr_brokertest_start(&t, open_conf);
    gr_brokertest_halt(&t);
    snprintf(path, sizeof path, "%s/data/gregor-configs", t.dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/data/gregor-configs/acls", t.dir);
    fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    for (int i = 0; i < 10000; i++)
        fprintf(fp, "%d %d %d %d t%d User:a *\n", GR_RES_TOPIC, GR_PAT_LITERAL,
                GR_OP_READ, GR_PERM_ALLOW, i);
    fprintf(fp, "%d %d %d %d u User:b *\n", GR_RES_TOPIC, GR_PAT_LITERAL,
            GR_OP_READ, GR_PERM_ALLOW);
    ck_assert_int_eq(fclose(fp), 0);
    gr_brokertest_launch(&t, open_conf);
    ck_assert_int_eq(count_acls(&t, -1), 10001);
    /* one filter matching all */
    filter_init(&f[0], NULL, NULL);
    rs = delete_acls(&t, f, 1);
    ck_assert_int_eq(rs->filter_results[0].error_code, GR_KERR_INVALID_REQUEST);
    ck_assert(gr_str_eq_cstr(&rs->filter_results[0].error_message, bound));
    ck_assert_int_eq(rs->filter_results[0].matching_acls_cnt, 0);
    /* two that match 10001 together: both refused */
    filter_init(&f[0], NULL, "User:a");
    filter_init(&f[1], "u", NULL);
    rs = delete_acls(&t, f, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(rs->filter_results[i].error_code,
                         GR_KERR_INVALID_REQUEST);
        ck_assert(gr_str_eq_cstr(&rs->filter_results[i].error_message, bound));
    }
    ck_assert_int_eq(count_acls(&t, -1), 10001);
    /* exactly 10000: removed */
    rs = delete_acls(&t, f, 1);
    ck_assert_int_eq(rs->filter_results[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->filter_results[0].matching_acls_cnt, 10000);
    ck_assert_int_eq(count_acls(&t, -1), 1);
    gr_brokertest_restart(&t, open_conf);
    ck_assert_int_eq(count_acls(&t, -1), 1);
    gr_brokertest_stop(&t);
}
END_TEST

typedef struct grab {
    const gr_acl_t **v;
    int *n;
} grab_t;

static int
grab_acl(void *arg, const gr_acl_t *acl)
{
    grab_t *g = arg;
    g->v[(*g->n)++] = acl;
    return 0;
}

/* ZooKeeper's layout (auth/acl_zk.h): Kafka's AclAuthorizer JSON both
 * ways, the paths and the change notifications of both stores */
START_TEST(test_zk_layout)
{
    const char *json = "{\"version\":1,\"acls\":[{\"principal\":"
                       "\"User:alice\",\"permissionType\":\"Allow\","
                       "\"operation\":\"IdempotentWrite\",\"host\":\"*\"},"
                       "{\"principal\":\"User:bob\",\"permissionType\":"
                       "\"Deny\",\"operation\":\"Read\",\"host\":"
                       "\"10.0.0.1\"}]}";
    gr_acls_t *s = gr_acls_new(NULL, false);
    const gr_acl_t *v[2];
    gr_buf_t b = { 0 };
    char why[256], path[128];
    int n = 0;

    ck_assert_int_eq(gr_acl_zk_parse(s, GR_RES_TRANSACTIONAL_ID,
                                     GR_PAT_LITERAL, "tx", json,
                                     strlen(json), why, sizeof why),
                     0);
    ck_assert_int_eq(gr_acls_commit(s), 0);
    ck_assert_uint_eq(gr_acls_count(s), 2);
    ck_assert(gr_acls_authorize(s, "User:alice", "1.2.3.4",
                                GR_RES_TRANSACTIONAL_ID, "tx", 2,
                                GR_OP_IDEMPOTENT_WRITE));
    gr_acls_each(s, grab_acl, &(grab_t){ v, &n });
    ck_assert_int_eq(n, 2);
    gr_acl_zk_encode(v, 2, &b);
    ck_assert_int_eq((int)b.len, (int)strlen(json));
    ck_assert(memcmp(b.ptr, json, b.len) == 0);
    gr_buf_fini(&b);
    /* Kafka's upper-case forms are read too; bad ones refused */
    ck_assert_int_eq(gr_acl_zk_type("TRANSACTIONALID"),
                     GR_RES_TRANSACTIONAL_ID);
    ck_assert_int_eq(gr_acl_zk_type("Cluster"), GR_RES_CLUSTER);
    ck_assert_int_eq(gr_acl_zk_type("Nope"), GR_RES_UNKNOWN);
    ck_assert_int_ne(gr_acl_zk_parse(s, GR_RES_TOPIC, GR_PAT_LITERAL, "t",
                                     "{\"version\":2,\"acls\":[]}", 23, why,
                                     sizeof why),
                     0);
    ck_assert_int_ne(gr_acl_zk_parse(s, GR_RES_TOPIC, GR_PAT_LITERAL, "t",
                                     "{\"version\":1,\"acls\":[{}]}", 25, why,
                                     sizeof why),
                     0);
    ck_assert_int_eq(gr_acl_zk_parse(s, GR_RES_TOPIC, GR_PAT_LITERAL, "t", "",
                                     0, why, sizeof why),
                     0);
    /* paths and notifications */
    ck_assert_int_eq(gr_acl_zk_path(GR_RES_TOPIC, GR_PAT_LITERAL, "a", path,
                                    sizeof path),
                     0);
    ck_assert_str_eq(path, "/kafka-acl/Topic/a");
    ck_assert_int_eq(gr_acl_zk_path(GR_RES_GROUP, GR_PAT_PREFIXED, "g", path,
                                    sizeof path),
                     0);
    ck_assert_str_eq(path, "/kafka-acl-extended/prefixed/Group/g");
    ck_assert_int_ne(gr_acl_zk_path(GR_RES_TOPIC, GR_PAT_MATCH, "a", path,
                                    sizeof path),
                     0);
    gr_acl_zk_change(GR_RES_TOPIC, GR_PAT_LITERAL, "a", &b);
    ck_assert_str_eq(gr_buf_cstr(&b), "Topic:a");
    gr_buf_reset(&b);
    gr_acl_zk_change(GR_RES_TOPIC, GR_PAT_PREFIXED, "a", &b);
    ck_assert_str_eq(gr_buf_cstr(&b),
                     "{\"version\":1,\"resourceType\":\"Topic\",\"name\":"
                     "\"a\",\"patternType\":\"PREFIXED\"}");
    gr_buf_fini(&b);
    gr_acls_destroy(s);
}
END_TEST

Suite *
suite_auth_acl(void)
{
    Suite *s = suite_create("auth/acl");
    TCase *tc = tcase_create("acl");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_literal_prefixed_wildcard);
    tcase_add_test(tc, test_deny_wins_and_default);
    tcase_add_test(tc, test_implications);
    tcase_add_test(tc, test_hosts_and_super_users);
    tcase_add_test(tc, test_validation);
    tcase_add_test(tc, test_filters_and_remove);
    tcase_add_test(tc, test_by_type);
    tcase_add_test(tc, test_text_roundtrip);
    tcase_add_test(tc, test_codecs);
    tcase_add_test(tc, test_api_acls);
    tcase_add_test(tc, test_api_closed);
    tcase_add_test(tc, test_api_no_authorizer);
    tcase_add_test(tc, test_api_acls_stored_first);
    tcase_add_test(tc, test_api_acls_store_fails);
    tcase_add_test(tc, test_api_delete_acls_bound);
    tcase_add_test(tc, test_zk_layout);
    suite_add_tcase(s, tc);
    return s;
}
