/*
 * librdkafka's high-level consumer in a group against gregor.
 *
 *   group consume TOPIC GROUP MAX OUTFILE
 *       joins GROUP, reads at most MAX messages (stops early when every
 *       assigned partition is at its end), appends each value to OUTFILE,
 *       commits synchronously and closes: run it again (after restarting
 *       the consumer or the broker) and the values read must continue
 *       with no loss and no duplicate.
 *   group split TOPIC GROUP ASSIGNOR N PARTS
 *       N consumers with partition.assignment.strategy ASSIGNOR (range,
 *       roundrobin, cooperative-sticky) share PARTS partitions evenly and
 *       disjointly; then they leave one by one (LeaveGroup) and the rest
 *       take over every partition each time.
 *   group kill TOPIC GROUP ASSIGNOR PARTS
 *       a child process joins and is SIGKILLed: it stops heartbeating,
 *       and after the session timeout the parent's consumer gets every
 *       partition (prints how long that took).
 *   group static TOPIC GROUP PARTS
 *       a static member (group.instance.id) closes and comes back within
 *       its session timeout: it gets the same partitions, and the other
 *       member sees no rebalance.
 *   group follow TOPIC GROUP N OUTFILE
 *       stays in GROUP until it has read N distinct values (60 s at most),
 *       committing after each message, while the script restarts the
 *       broker under it: the group is loaded back and the member goes on.
 *   group admin GROUP TOPIC
 *       ListConsumerGroups, DescribeConsumerGroups, DeleteGroups: while a
 *       member is in GROUP it is listed Stable with that member, deleting
 *       it fails with NON_EMPTY_GROUP; once it left it is Empty, deleting
 *       works and it is no longer listed.
 */
#include "common.h"

#include <signal.h>
#include <stdbool.h>
#include <sys/wait.h>

#define MAXP 64

typedef struct cons {
    rd_kafka_t *rk;
    char name[32];
    int assigned[MAXP]; /* partition -> 1 */
    int rebalances;
    int revokes;
    long long msgs;
    int eofs;
} cons_t;

static int nparts_total = MAXP;

static int
count(const cons_t *c)
{
    int n = 0;
    for (int i = 0; i < MAXP; i++)
        n += c->assigned[i];
    return n;
}

static void
rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t err,
             rd_kafka_topic_partition_list_t *parts, void *opaque)
{
    cons_t *c = opaque;
    bool coop = strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
    rd_kafka_error_t *e = NULL;
    c->rebalances++;
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        if (coop)
            e = rd_kafka_incremental_assign(rk, parts);
        else
            rd_kafka_assign(rk, parts);
        if (!coop)
            memset(c->assigned, 0, sizeof c->assigned);
        for (int i = 0; i < parts->cnt; i++)
            if (parts->elems[i].partition < MAXP)
                c->assigned[parts->elems[i].partition] = 1;
    } else {
        c->revokes++;
        if (coop)
            e = rd_kafka_incremental_unassign(rk, parts);
        else
            rd_kafka_assign(rk, NULL);
        if (!coop)
            memset(c->assigned, 0, sizeof c->assigned);
        else
            for (int i = 0; i < parts->cnt; i++)
                if (parts->elems[i].partition < MAXP)
                    c->assigned[parts->elems[i].partition] = 0;
    }
    if (e) {
        fprintf(stderr, "%s: incremental (un)assign: %s\n", c->name,
                rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
    }
    printf("%s: %s %d partition(s), now %d\n", c->name,
           err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS ? "assigned" : "revoked",
           parts->cnt, count(c));
    fflush(stdout);
}

static void
cons_init(cons_t *c, const char *name, const char *group, const char *assignor,
          const char *instance, const char *session_ms, const char *topic)
{
    char err[512];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_topic_partition_list_t *sub;
    memset(c, 0, sizeof(*c));
    snprintf(c->name, sizeof c->name, "%s", name);
    conf_set(conf, "group.id", group);
    conf_set(conf, "client.id", name);
    conf_set(conf, "auto.offset.reset", "earliest");
    conf_set(conf, "enable.auto.commit", "false");
    conf_set(conf, "enable.partition.eof", "true");
    conf_set(conf, "session.timeout.ms", session_ms ? session_ms : "3000");
    conf_set(conf, "heartbeat.interval.ms", "300");
    conf_set(conf, "topic.metadata.refresh.interval.ms", "1000");
    if (assignor)
        conf_set(conf, "partition.assignment.strategy", assignor);
    if (instance)
        conf_set(conf, "group.instance.id", instance);
    rd_kafka_conf_set_rebalance_cb(conf, rebalance_cb);
    rd_kafka_conf_set_opaque(conf, c);
    c->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (c->rk == NULL)
        fail("consumer %s: %s", name, err);
    rd_kafka_poll_set_consumer(c->rk);
    sub = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(sub, topic, RD_KAFKA_PARTITION_UA);
    if (rd_kafka_subscribe(c->rk, sub))
        fail("subscribe");
    rd_kafka_topic_partition_list_destroy(sub);
}

static void
cons_poll(cons_t *c, int ms)
{
    rd_kafka_message_t *m = rd_kafka_consumer_poll(c->rk, ms);
    if (m == NULL)
        return;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF)
        c->eofs++;
    else if (m->err)
        fprintf(stderr, "%s: %s\n", c->name, rd_kafka_message_errstr(m));
    else
        c->msgs++;
    rd_kafka_message_destroy(m);
}

static void
cons_close(cons_t *c)
{
    rd_kafka_resp_err_t e = rd_kafka_consumer_close(c->rk);
    if (e)
        fprintf(stderr, "%s: close: %s\n", c->name, rd_kafka_err2str(e));
    rd_kafka_destroy(c->rk);
    c->rk = NULL;
}

/* Polls every live consumer until they share parts partitions disjointly
 * and evenly, unchanged for settle_ms; false after limit_ms. */
static bool
wait_split(cons_t *cs, int n, int parts, int settle_ms, int limit_ms)
{
    long long deadline = now_ms() + limit_ms, good_since = 0;
    while (now_ms() < deadline) {
        int seen[MAXP] = { 0 }, total = 0, live = 0, lo = parts, hi = 0;
        bool ok = true;
        for (int i = 0; i < n; i++)
            if (cs[i].rk)
                cons_poll(&cs[i], 10);
        for (int i = 0; i < n; i++) {
            int k;
            if (!cs[i].rk)
                continue;
            live++;
            k = count(&cs[i]);
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
            for (int p = 0; p < MAXP; p++)
                if (cs[i].assigned[p]) {
                    ok &= p < parts && !seen[p];
                    seen[p] = 1;
                    total++;
                }
        }
        ok &= total == parts && live > 0 && hi - lo <= 1;
        if (!ok) {
            good_since = 0;
            continue;
        }
        if (good_since == 0)
            good_since = now_ms();
        if (now_ms() - good_since >= settle_ms)
            return true;
    }
    return false;
}

static void
show(cons_t *cs, int n)
{
    for (int i = 0; i < n; i++) {
        if (!cs[i].rk)
            continue;
        printf("  %s:", cs[i].name);
        for (int p = 0; p < MAXP; p++)
            if (cs[i].assigned[p])
                printf(" %d", p);
        printf(" (%d rebalance callbacks)\n", cs[i].rebalances);
    }
    fflush(stdout);
}

/* --- consume */

static int
cmd_consume(const char *topic, const char *group, int max, const char *out)
{
    cons_t c;
    FILE *f = fopen(out, "a");
    long long deadline = now_ms() + 60000, idle_since = 0;
    int got = 0;
    rd_kafka_resp_err_t e;
    int eof[MAXP] = { 0 };

    if (f == NULL)
        fail("cannot open %s", out);
    cons_init(&c, "resume", group, "range", NULL, "6000", topic);
    while (got < max && now_ms() < deadline) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c.rk, 100);
        int assigned = count(&c), at_end = 0;
        if (m != NULL) {
            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                if (m->partition < MAXP)
                    eof[m->partition] = 1;
            } else if (m->err) {
                fprintf(stderr, "consume: %s\n", rd_kafka_message_errstr(m));
            } else {
                fprintf(f, "%.*s\n", (int)m->len, (const char *)m->payload);
                got++;
                if (m->partition < MAXP)
                    eof[m->partition] = 0;
            }
            rd_kafka_message_destroy(m);
        }
        for (int p = 0; p < MAXP; p++)
            at_end += c.assigned[p] && eof[p];
        if (assigned > 0 && at_end == assigned) {
            if (idle_since == 0)
                idle_since = now_ms();
            else if (now_ms() - idle_since > 1000)
                break; /* caught up */
        } else {
            idle_since = 0;
        }
    }
    fclose(f);
    if (got > 0) {
        e = rd_kafka_commit(c.rk, NULL, 0 /* sync */);
        if (e)
            fail("commit: %s", rd_kafka_err2str(e));
    }
    printf("consumed %d message(s), committed\n", got);
    cons_close(&c);
    return 0;
}

/* --- follow */

static int
cmd_follow(const char *topic, const char *group, int n, const char *out)
{
    cons_t c;
    FILE *f = fopen(out, "w");
    char *seen = calloc((size_t)n + 1, 1);
    long long deadline = now_ms() + 90000;
    int distinct = 0, total = 0, commit_errors = 0;

    if (f == NULL || seen == NULL)
        fail("cannot open %s", out);
    cons_init(&c, "follow", group, "range", NULL, "10000", topic);
    while (distinct < n && now_ms() < deadline) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c.rk, 100);
        rd_kafka_resp_err_t e;
        int v;
        if (m == NULL)
            continue;
        if (m->err) {
            if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
                printf("follow: %s\n", rd_kafka_message_errstr(m));
            rd_kafka_message_destroy(m);
            continue;
        }
        v = atoi((const char *)m->payload);
        fprintf(f, "%d\n", v);
        fflush(f);
        total++;
        if (v >= 1 && v <= n && !seen[v]) {
            seen[v] = 1;
            distinct++;
        }
        e = rd_kafka_commit_message(c.rk, m, 0 /* sync */);
        if (e) {
            commit_errors++;
            printf("follow: commit: %s\n", rd_kafka_err2str(e));
        }
        rd_kafka_message_destroy(m);
    }
    fclose(f);
    printf("follow: read %d value(s), %d distinct of %d, %d commit "
           "error(s), %d rebalance callback(s)\n",
           total, distinct, n, commit_errors, c.rebalances);
    cons_close(&c);
    free(seen);
    return distinct == n ? 0 : 1;
}

/* --- split */

static int
cmd_split(const char *topic, const char *group, const char *assignor, int n,
          int parts)
{
    cons_t cs[8];
    if (n < 1 || n > 8 || parts > MAXP)
        fail("bad arguments");
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "c%d", i);
        cons_init(&cs[i], name, group, assignor, NULL, "3000", topic);
    }
    if (!wait_split(cs, n, parts, 1500, 40000)) {
        show(cs, n);
        fail("%d consumers did not split %d partitions (%s)", n, parts,
             assignor);
    }
    printf("%d consumers split %d partitions (%s):\n", n, parts, assignor);
    show(cs, n);
    for (int k = n - 1; k > 0; k--) {
        long long t0 = now_ms();
        cons_close(&cs[k]);
        if (!wait_split(cs, n, parts, 1000, 40000)) {
            show(cs, n);
            fail("after c%d left, the others did not take over", k);
        }
        printf("c%d left; %d consumer(s) cover all partitions after %lld ms:\n",
               k, k, now_ms() - t0 - 1000);
        show(cs, n);
    }
    cons_close(&cs[0]);
    return 0;
}

/* --- kill */

static int
cmd_kill(const char *topic, const char *group, const char *assignor, int parts)
{
    cons_t c;
    pid_t child;
    long long t0, deadline;
    int status;

    fflush(stdout);
    child = fork();
    if (child < 0)
        fail("fork");
    if (child == 0) {
        cons_t k;
        cons_init(&k, "victim", group, assignor, NULL, "3000", topic);
        for (;;)
            cons_poll(&k, 100);
    }
    cons_init(&c, "survivor", group, assignor, NULL, "3000", topic);
    deadline = now_ms() + 40000;
    while (now_ms() < deadline) {
        int n = count(&c);
        cons_poll(&c, 50);
        if (n > 0 && n < parts)
            break;
    }
    if (count(&c) == 0 || count(&c) >= parts) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        fail("the two consumers never split the partitions (%d)", count(&c));
    }
    /* let the split settle, then the child stops heartbeating for good */
    for (long long t = now_ms() + 1000; now_ms() < t;)
        cons_poll(&c, 50);
    printf("survivor has %d of %d partitions; killing the other member\n",
           count(&c), parts);
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    t0 = now_ms();
    deadline = t0 + 40000;
    while (now_ms() < deadline && count(&c) < parts)
        cons_poll(&c, 50);
    if (count(&c) < parts)
        fail("the survivor did not take over (%d of %d)", count(&c), parts);
    printf("survivor took over all %d partitions %lld ms after the kill "
           "(session.timeout.ms 3000)\n",
           parts, now_ms() - t0);
    if (now_ms() - t0 < 1500)
        fail("took over before the session could have expired");
    cons_close(&c);
    return 0;
}

/* --- static membership */

static int
cmd_static(const char *topic, const char *group, int parts)
{
    cons_t cs[2];
    int before[MAXP], rebal_a;
    long long t0;

    cons_init(&cs[0], "dynamic", group, "range", NULL, "6000", topic);
    cons_init(&cs[1], "static", group, "range", "instance-1", "6000", topic);
    if (!wait_split(cs, 2, parts, 1500, 40000)) {
        show(cs, 2);
        fail("the two members did not split the partitions");
    }
    show(cs, 2);
    memcpy(before, cs[1].assigned, sizeof before);
    rebal_a = cs[0].rebalances;
    /* a static member closes without LeaveGroup and comes back within its
     * session timeout */
    cons_close(&cs[1]);
    t0 = now_ms();
    cons_init(&cs[1], "static", group, "range", "instance-1", "6000", topic);
    while (now_ms() - t0 < 20000 && count(&cs[1]) == 0) {
        cons_poll(&cs[0], 10);
        cons_poll(&cs[1], 10);
    }
    /* and keeps running a while: no rebalance may follow */
    for (long long t = now_ms() + 3000; now_ms() < t;) {
        cons_poll(&cs[0], 10);
        cons_poll(&cs[1], 10);
    }
    show(cs, 2);
    if (memcmp(before, cs[1].assigned, sizeof before) != 0)
        fail("the static member came back with other partitions");
    if (cs[0].rebalances != rebal_a)
        fail("the other member was rebalanced (%d -> %d callbacks)", rebal_a,
             cs[0].rebalances);
    printf("static member rejoined in %lld ms with its partitions, no "
           "rebalance\n",
           now_ms() - t0 - 3000);
    cons_close(&cs[0]);
    cons_close(&cs[1]);
    return 0;
}

/* --- admin */

static rd_kafka_event_t *
admin_wait(rd_kafka_queue_t *q, rd_kafka_event_type_t type)
{
    for (;;) {
        rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 30000);
        if (ev == NULL)
            fail("admin request timed out");
        if (rd_kafka_event_type(ev) == type)
            return ev;
        rd_kafka_event_destroy(ev);
    }
}

/* The group's state in ListConsumerGroups, or NULL when not listed. */
static const char *
listed_state(rd_kafka_t *rk, const char *group)
{
    static char state[64];
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_event_t *ev;
    const rd_kafka_ListConsumerGroups_result_t *res;
    const rd_kafka_ConsumerGroupListing_t **v;
    size_t n;
    const char *found = NULL;

    rd_kafka_ListConsumerGroups(rk, NULL, q);
    ev = admin_wait(q, RD_KAFKA_EVENT_LISTCONSUMERGROUPS_RESULT);
    if (rd_kafka_event_error(ev))
        fail("ListConsumerGroups: %s", rd_kafka_event_error_string(ev));
    res = rd_kafka_event_ListConsumerGroups_result(ev);
    v = rd_kafka_ListConsumerGroups_result_valid(res, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(rd_kafka_ConsumerGroupListing_group_id(v[i]), group) == 0) {
            snprintf(state, sizeof state, "%s",
                     rd_kafka_consumer_group_state_name(
                         rd_kafka_ConsumerGroupListing_state(v[i])));
            found = state;
        }
    rd_kafka_event_destroy(ev);
    rd_kafka_queue_destroy(q);
    return found;
}

static void
describe(rd_kafka_t *rk, const char *group, const char *want_state,
         int want_members)
{
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_event_t *ev;
    const rd_kafka_ConsumerGroupDescription_t **v;
    const char *groups[1] = { group };
    const char *state;
    size_t n;
    int members;

    rd_kafka_DescribeConsumerGroups(rk, groups, 1, NULL, q);
    ev = admin_wait(q, RD_KAFKA_EVENT_DESCRIBECONSUMERGROUPS_RESULT);
    if (rd_kafka_event_error(ev))
        fail("DescribeConsumerGroups: %s", rd_kafka_event_error_string(ev));
    v = rd_kafka_DescribeConsumerGroups_result_groups(
        rd_kafka_event_DescribeConsumerGroups_result(ev), &n);
    if (n != 1)
        fail("DescribeConsumerGroups: %zu groups", n);
    if (rd_kafka_ConsumerGroupDescription_error(v[0]))
        fail("DescribeConsumerGroups: %s",
             rd_kafka_error_string(
                 rd_kafka_ConsumerGroupDescription_error(v[0])));
    state = rd_kafka_consumer_group_state_name(
        rd_kafka_ConsumerGroupDescription_state(v[0]));
    members = (int)rd_kafka_ConsumerGroupDescription_member_count(v[0]);
    printf("describe %s: state %s, %d member(s), assignor %s\n", group, state,
           members, rd_kafka_ConsumerGroupDescription_partition_assignor(v[0]));
    if (strcmp(state, want_state) != 0 || members != want_members)
        fail("describe %s: want %s with %d member(s)", group, want_state,
             want_members);
    for (int i = 0; i < members; i++) {
        const rd_kafka_MemberDescription_t *m =
            rd_kafka_ConsumerGroupDescription_member(v[0], (size_t)i);
        const rd_kafka_topic_partition_list_t *a =
            rd_kafka_MemberAssignment_partitions(
                rd_kafka_MemberDescription_assignment(m));
        printf("  member %s client %s host %s: %d partition(s)\n",
               rd_kafka_MemberDescription_consumer_id(m),
               rd_kafka_MemberDescription_client_id(m),
               rd_kafka_MemberDescription_host(m), a ? a->cnt : -1);
        if (strcmp(rd_kafka_MemberDescription_client_id(m), "admin-member") ||
            a == NULL || a->cnt < 1)
            fail("member description is wrong");
    }
    rd_kafka_event_destroy(ev);
    rd_kafka_queue_destroy(q);
}

static rd_kafka_resp_err_t
delete_group(rd_kafka_t *rk, const char *group)
{
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_DeleteGroup_t *dg = rd_kafka_DeleteGroup_new(group);
    rd_kafka_event_t *ev;
    const rd_kafka_group_result_t **r;
    size_t n;
    rd_kafka_resp_err_t err;

    rd_kafka_DeleteGroups(rk, &dg, 1, NULL, q);
    rd_kafka_DeleteGroup_destroy(dg);
    ev = admin_wait(q, RD_KAFKA_EVENT_DELETEGROUPS_RESULT);
    r = rd_kafka_DeleteGroups_result_groups(
        rd_kafka_event_DeleteGroups_result(ev), &n);
    if (n != 1)
        fail("DeleteGroups: %zu results", n);
    err = rd_kafka_group_result_error(r[0])
              ? rd_kafka_error_code(rd_kafka_group_result_error(r[0]))
              : RD_KAFKA_RESP_ERR_NO_ERROR;
    rd_kafka_event_destroy(ev);
    rd_kafka_queue_destroy(q);
    return err;
}

/* DeleteConsumerGroupOffsets (OffsetDelete) of partition 0: the error of
 * the request, *perr the partition's. */
static rd_kafka_resp_err_t
delete_offset(rd_kafka_t *rk, const char *group, const char *topic,
              rd_kafka_resp_err_t *perr)
{
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_topic_partition_list_t *parts =
        rd_kafka_topic_partition_list_new(1);
    rd_kafka_DeleteConsumerGroupOffsets_t *d;
    rd_kafka_event_t *ev;
    const rd_kafka_group_result_t **r;
    const rd_kafka_topic_partition_list_t *res;
    size_t n;
    rd_kafka_resp_err_t err;

    rd_kafka_topic_partition_list_add(parts, topic, 0);
    d = rd_kafka_DeleteConsumerGroupOffsets_new(group, parts);
    rd_kafka_DeleteConsumerGroupOffsets(rk, &d, 1, NULL, q);
    rd_kafka_DeleteConsumerGroupOffsets_destroy(d);
    rd_kafka_topic_partition_list_destroy(parts);
    ev = admin_wait(q, RD_KAFKA_EVENT_DELETECONSUMERGROUPOFFSETS_RESULT);
    err = rd_kafka_event_error(ev);
    *perr = RD_KAFKA_RESP_ERR_NO_ERROR;
    if (!err) {
        r = rd_kafka_DeleteConsumerGroupOffsets_result_groups(
            rd_kafka_event_DeleteConsumerGroupOffsets_result(ev), &n);
        res = n == 1 ? rd_kafka_group_result_partitions(r[0]) : NULL;
        if (n == 1 && rd_kafka_group_result_error(r[0]))
            err = rd_kafka_error_code(rd_kafka_group_result_error(r[0]));
        if (res && res->cnt == 1)
            *perr = res->elems[0].err;
    }
    rd_kafka_event_destroy(ev);
    rd_kafka_queue_destroy(q);
    return err;
}

/* ListConsumerGroupOffsets (OffsetFetch) of partition 0. */
static int64_t
committed(rd_kafka_t *rk, const char *group, const char *topic)
{
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    rd_kafka_topic_partition_list_t *parts =
        rd_kafka_topic_partition_list_new(1);
    rd_kafka_ListConsumerGroupOffsets_t *l;
    rd_kafka_event_t *ev;
    const rd_kafka_group_result_t **r;
    const rd_kafka_topic_partition_list_t *res;
    size_t n;
    int64_t off = -2;

    rd_kafka_topic_partition_list_add(parts, topic, 0);
    l = rd_kafka_ListConsumerGroupOffsets_new(group, parts);
    rd_kafka_ListConsumerGroupOffsets(rk, &l, 1, NULL, q);
    rd_kafka_ListConsumerGroupOffsets_destroy(l);
    rd_kafka_topic_partition_list_destroy(parts);
    ev = admin_wait(q, RD_KAFKA_EVENT_LISTCONSUMERGROUPOFFSETS_RESULT);
    if (rd_kafka_event_error(ev))
        fail("ListConsumerGroupOffsets: %s", rd_kafka_event_error_string(ev));
    r = rd_kafka_ListConsumerGroupOffsets_result_groups(
        rd_kafka_event_ListConsumerGroupOffsets_result(ev), &n);
    res = n == 1 ? rd_kafka_group_result_partitions(r[0]) : NULL;
    if (res && res->cnt == 1)
        off = res->elems[0].offset;
    rd_kafka_event_destroy(ev);
    rd_kafka_queue_destroy(q);
    return off;
}

static int
cmd_admin(const char *group, const char *topic)
{
    char err[512];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_t *admin = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    cons_t c;
    const char *st;
    rd_kafka_resp_err_t e;

    if (admin == NULL)
        fail("admin client: %s", err);
    cons_init(&c, "admin-member", group, "range", NULL, "6000", topic);
    while (count(&c) == 0)
        cons_poll(&c, 100);
    for (long long t = now_ms() + 500; now_ms() < t;)
        cons_poll(&c, 50);
    st = listed_state(admin, group);
    printf("listed %s: %s\n", group, st ? st : "(not listed)");
    if (st == NULL || strcmp(st, "Stable") != 0)
        fail("a group with a member is listed as %s", st ? st : "nothing");
    describe(admin, group, "Stable", 1);
    e = delete_group(admin, group);
    printf("delete while a member is in it: %s\n", rd_kafka_err2name(e));
    if (e != RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP)
        fail("want NON_EMPTY_GROUP");
    {
        /* a commit, then OffsetDelete while subscribed */
        rd_kafka_topic_partition_list_t *o =
            rd_kafka_topic_partition_list_new(1);
        rd_kafka_resp_err_t perr;
        rd_kafka_topic_partition_list_add(o, topic, 0)->offset = 7;
        e = rd_kafka_commit(c.rk, o, 0);
        rd_kafka_topic_partition_list_destroy(o);
        if (e)
            fail("commit: %s", rd_kafka_err2str(e));
        printf("committed: %lld\n", (long long)committed(admin, group, topic));
        if (committed(admin, group, topic) != 7)
            fail("want 7");
        e = delete_offset(admin, group, topic, &perr);
        printf("offset delete while subscribed: %s / %s\n",
               rd_kafka_err2name(e), rd_kafka_err2name(perr));
        if (e != RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC &&
            perr != RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC)
            fail("want GROUP_SUBSCRIBED_TO_TOPIC");
    }
    cons_close(&c);
    st = listed_state(admin, group);
    printf("listed %s after the member left: %s\n", group,
           st ? st : "(not listed)");
    if (st == NULL || strcmp(st, "Empty") != 0)
        fail("want Empty");
    describe(admin, group, "Empty", 0);
    {
        rd_kafka_resp_err_t perr;
        e = delete_offset(admin, group, topic, &perr);
        printf("offset delete of the empty group: %s / %s, committed now "
               "%lld\n",
               rd_kafka_err2name(e), rd_kafka_err2name(perr),
               (long long)committed(admin, group, topic));
        if (e || perr || committed(admin, group, topic) != -1001)
            fail("want NO_ERROR and no committed offset");
    }
    /* the group went with its last offset (Kafka: Empty without offsets
     * is Dead) */
    e = delete_group(admin, group);
    printf("delete of the emptied group: %s\n", rd_kafka_err2name(e));
    if (e != RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND)
        fail("want GROUP_ID_NOT_FOUND");
    /* again with an offset left, for DeleteGroups proper */
    cons_init(&c, "admin-member", group, "range", NULL, "6000", topic);
    while (count(&c) == 0)
        cons_poll(&c, 100);
    {
        rd_kafka_topic_partition_list_t *o =
            rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(o, topic, 1)->offset = 3;
        if (rd_kafka_commit(c.rk, o, 0))
            fail("commit");
        rd_kafka_topic_partition_list_destroy(o);
    }
    cons_close(&c);
    e = delete_group(admin, group);
    printf("delete of the empty group: %s\n", rd_kafka_err2name(e));
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
        fail("want NO_ERROR");
    st = listed_state(admin, group);
    if (st != NULL)
        fail("a deleted group is still listed (%s)", st);
    e = delete_group(admin, group);
    printf("delete again: %s\n", rd_kafka_err2name(e));
    if (e != RD_KAFKA_RESP_ERR_GROUP_ID_NOT_FOUND)
        fail("want GROUP_ID_NOT_FOUND");
    rd_kafka_destroy(admin);
    return 0;
}

int
main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    (void)nparts_total;
    if (argc >= 6 && strcmp(argv[1], "consume") == 0)
        return cmd_consume(argv[2], argv[3], atoi(argv[4]), argv[5]);
    if (argc >= 7 && strcmp(argv[1], "split") == 0)
        return cmd_split(argv[2], argv[3], argv[4], atoi(argv[5]),
                         atoi(argv[6]));
    if (argc >= 6 && strcmp(argv[1], "kill") == 0)
        return cmd_kill(argv[2], argv[3], argv[4], atoi(argv[5]));
    if (argc >= 5 && strcmp(argv[1], "static") == 0)
        return cmd_static(argv[2], argv[3], atoi(argv[4]));
    if (argc >= 6 && strcmp(argv[1], "follow") == 0)
        return cmd_follow(argv[2], argv[3], atoi(argv[4]), argv[5]);
    if (argc >= 4 && strcmp(argv[1], "admin") == 0)
        return cmd_admin(argv[2], argv[3]);
    fail("usage: group consume|follow|split|kill|static|admin ... (see "
         "group.c)");
}
