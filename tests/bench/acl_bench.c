/*
 * What one authorizer check costs (src/auth/acl.c), with 10,000 ACLs:
 * 4,000 LITERAL topics, 4,000 PREFIXED topic prefixes, 1,000 groups and
 * 1,000 transactional ids, for 100 principals; checks of a literal hit,
 * a prefixed hit, a miss (denied: no ACL covers it) and a super user.
 * Prints ns per check. Built with the broker, never run by make check.
 */
#include "auth/acl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double
bench(const gr_acls_t *s, const char *principal, int type, const char *name,
      int op, bool want)
{
    size_t n = strlen(name);
    const int iters = 2000000;
    double t0 = now_ns();
    int ok = 0;
    for (int i = 0; i < iters; i++)
        ok += gr_acls_authorize(s, principal, "10.0.0.7", type, name, n, op);
    if ((ok == iters) != want) {
        fprintf(stderr, "acl_bench: %s on %s: unexpected answer\n", principal,
                name);
        exit(1);
    }
    return (now_ns() - t0) / iters;
}

int
main(void)
{
    gr_acls_t *s = gr_acls_new("User:admin", false);
    char name[64], principal[64];
    double t0;

    for (int i = 0; i < 10000; i++) {
        gr_acl_t a = { .op = GR_OP_WRITE, .perm = GR_PERM_ALLOW, .host = "*" };
        snprintf(principal, sizeof principal, "User:CN=app%d", i % 100);
        a.principal = principal;
        a.name = name;
        if (i < 4000) {
            a.res_type = GR_RES_TOPIC;
            a.pattern = GR_PAT_LITERAL;
            snprintf(name, sizeof name, "topic-%05d", i);
        } else if (i < 8000) {
            a.res_type = GR_RES_TOPIC;
            a.pattern = GR_PAT_PREFIXED;
            snprintf(name, sizeof name, "team%04d.", i - 4000);
        } else if (i < 9000) {
            a.res_type = GR_RES_GROUP;
            a.pattern = GR_PAT_LITERAL;
            a.op = GR_OP_READ;
            snprintf(name, sizeof name, "group-%d", i);
        } else {
            a.res_type = GR_RES_TRANSACTIONAL_ID;
            a.pattern = GR_PAT_LITERAL;
            snprintf(name, sizeof name, "txn-%d", i);
        }
        if (gr_acls_add(s, &a) != 0)
            return 1;
    }
    t0 = now_ns();
    if (gr_acls_commit(s) != 0)
        return 1;
    printf("index of %zu ACLs built in %.2f ms\n", gr_acls_count(s),
           (now_ns() - t0) / 1e6);
    printf("literal hit   %6.1f ns/check\n",
           bench(s, "User:CN=app42", GR_RES_TOPIC, "topic-00042", GR_OP_WRITE,
                 true));
    printf("literal DESCRIBE (implied) %6.1f ns/check\n",
           bench(s, "User:CN=app42", GR_RES_TOPIC, "topic-00042",
                 GR_OP_DESCRIBE, true));
    printf("prefixed hit  %6.1f ns/check\n",
           bench(s, "User:CN=app0", GR_RES_TOPIC, "team1200.orders.v2",
                 GR_OP_WRITE, true));
    printf("miss (denied) %6.1f ns/check\n",
           bench(s, "User:CN=app0", GR_RES_TOPIC, "unknown.topic.name",
                 GR_OP_WRITE, false));
    printf("super user    %6.1f ns/check\n",
           bench(s, "User:admin", GR_RES_TOPIC, "x", GR_OP_WRITE, true));
    gr_acls_destroy(s);
    return 0;
}
