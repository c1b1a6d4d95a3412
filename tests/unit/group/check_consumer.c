/*
 * Consumer groups of the KIP-848 protocol (src/group/consumer.c,
 * cg_store.c) against a real partition log in a temporary directory:
 * member and group epochs of joins, the revocation before a partition
 * moves (UNREVOKED, then UNRELEASED, then STABLE), the request checks and
 * errors with Kafka's messages, session and rebalance timeouts, static
 * members (-2 and the replacement), leaves, topic changes bumping the
 * group epoch, OffsetCommit with member epochs, the two protocols on one
 * group id, the records' bytes, and a restart that keeps the group, its
 * members' assignments and its offsets.
 */
#include "../log/logtest.h"
#include "../unit.h"
#include "cluster/cluster.h"
#include "core/log.h"
#include "core/time.h"
#include "group/group.h"
#include "group/group_int.h"
#include "log/log.h"
#include "proto/gen/consumer_protocol_subscription.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grouptest.h"

typedef struct hbr {
    gr_kerr_t err;
    char msg[512];
    char member[64];
    int32_t epoch;
    int32_t interval;
    bool has;       /* an assignment in the answer */
    uint32_t parts; /* its partitions of topic "t", as bits */
} hbr_t;

static gr_uuid_t
tid(gt_t *t, const char *topic)
{
    return gr_cluster_topic_cstr(t->cluster, topic)->id;
}

/* ConsumerGroupHeartbeat at version v: owned is a bit set of partitions of
 * "t" (-1: null, not given); topics "t" or "t,u" or NULL (unchanged). */
static void
hb_full(gt_t *t, int16_t v, const char *group, const char *member,
        int32_t epoch, const char *instance, const char *topics, int64_t owned,
        int32_t rebalance, const char *assignor, const char *regex, hbr_t *r)
{
    gr_cg_heartbeat_args_t a;
    gr_cg_heartbeat_result_t res;
    gr_cg_partitions_t op;
    int32_t parts[32], np = 0;
    gr_str_t names[4];
    int nn = 0;
    gr_arena_t *ar = gr_arena_new(4096);
    char tmp[64];

    memset(&a, 0, sizeof a);
    a.version = v;
    a.group_id = S(group);
    a.member_id = S(member ? member : "");
    a.member_epoch = epoch;
    a.instance_id = S(instance);
    a.rack_id = GR_STR_NULL;
    a.rebalance_timeout_ms = rebalance;
    a.ntopic_names = -1;
    if (topics) {
        char *save = NULL, *tok;
        snprintf(tmp, sizeof tmp, "%s", topics);
        for (tok = strtok_r(tmp, ",", &save); tok && nn < 4;
             tok = strtok_r(NULL, ",", &save))
            names[nn++] = gr_str_c(tok);
        a.topic_names = names;
        a.ntopic_names = nn;
    }
    a.topic_regex = S(regex);
    a.server_assignor = S(assignor);
    a.nowned = -1;
    if (owned >= 0) {
        for (int p = 0; p < 32; p++)
            if (owned & (1ll << p))
                parts[np++] = p;
        op.topic_id = tid(t, "t");
        op.topic_name = NULL;
        op.partitions = parts;
        op.npartitions = np;
        a.owned = &op;
        a.nowned = np ? 1 : 0;
    }
    a.client_id = S("cli");
    a.client_host = S("/127.0.0.1");
    gr_cg_heartbeat(t->g, &a, ar, &res);
    memset(r, 0, sizeof(*r));
    r->err = res.error;
    snprintf(r->msg, sizeof r->msg, "%s", res.message ? res.message : "");
    snprintf(r->member, sizeof r->member, "%s",
             res.member_id ? res.member_id : "(null)");
    r->epoch = res.member_epoch;
    r->interval = res.heartbeat_interval_ms;
    r->has = res.has_assignment;
    for (int32_t i = 0; i < res.nassignment; i++)
        if (owned < 0 || gr_uuid_eq(&res.assignment[i].topic_id, &op.topic_id))
            for (int32_t k = 0; k < res.assignment[i].npartitions; k++)
                r->parts |= 1u << res.assignment[i].partitions[k];
    gr_arena_destroy(ar);
}

static void
join(gt_t *t, const char *group, const char *member, hbr_t *r)
{
    hb_full(t, 1, group, member, 0, NULL, "t", 0, 30000, NULL, NULL, r);
    ck_assert_msg(r->err == GR_KERR_NONE, "join of %s: %s %s", member,
                  gr_kerr_name(r->err), r->msg);
}

static void
hb(gt_t *t, const char *group, const char *member, int32_t epoch, int64_t owned,
   hbr_t *r)
{
    hb_full(t, 1, group, member, epoch, NULL, NULL, owned, -1, NULL, NULL, r);
}

static const char *
state(gt_t *t, const char *group)
{
    gr_str_t g = S(group);
    return gr_group_state_name(t->g, &g);
}

static gr_cgroup_t *
cgroup(gt_t *t, const char *group)
{
    gr_str_t g = S(group);
    gr_group_t *grp = gr_groups_find(t->g, &g);
    ck_assert_ptr_nonnull(grp);
    ck_assert_int_eq(grp->type, GR_GROUP_TYPE_CONSUMER);
    return grp->cg;
}

static void
cg_init(gt_t *t)
{
    gt_init(t);
    /* targets at once: no assignment interval */
    t->g->cfg.consumer_assignment_interval_ms = 0;
}

/* --- flows */

START_TEST(test_join_and_epochs)
{
    gt_t t;
    hbr_t r;
    cg_init(&t);
    join(&t, "g", "a", &r);
    /* Kafka's groups start at epoch 1: the first join bumps it to 2 */
    ck_assert_int_eq(r.epoch, 2);
    ck_assert_str_eq(r.member, "a");
    ck_assert_int_eq(r.interval, 5000);
    ck_assert(r.has);
    ck_assert_uint_eq(r.parts, 0xf);
    ck_assert_str_eq(state(&t, "g"), "Stable");
    hb(&t, "g", "a", 2, 0xf, &r);
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    ck_assert(!r.has); /* nothing changed */
    /* a full heartbeat (rebalance timeout, subscription and owned) always
     * carries the assignment */
    hb_full(&t, 1, "g", "a", 2, NULL, "t", 0xf, 30000, NULL, NULL, &r);
    ck_assert(r.has);
    ck_assert_int_eq(cgroup(&t, "g")->epoch, 2);
    ck_assert_int_eq(cgroup(&t, "g")->assignment_epoch, 2);
    gt_fini(&t);
}
END_TEST

/* Kafka's CurrentAssignmentBuilder: a partition moves only once its owner
 * stops reporting it. */
START_TEST(test_revocation_before_reassignment)
{
    gt_t t;
    hbr_t r;
    cg_init(&t);
    join(&t, "g", "a", &r);
    hb(&t, "g", "a", 2, 0xf, &r);
    join(&t, "g", "b", &r);
    ck_assert_int_eq(r.epoch, 3); /* b: at the new epoch, nothing yet */
    ck_assert_uint_eq(r.parts, 0);
    ck_assert_str_eq(state(&t, "g"), "Reconciling");
    /* a: keeps its epoch, must revoke 2 and 3 */
    hb(&t, "g", "a", 2, 0xf, &r);
    ck_assert_int_eq(r.epoch, 2);
    ck_assert(r.has);
    ck_assert_uint_eq(r.parts, 0x3);
    {
        gr_cmember_t *m = gr_cg_member(cgroup(&t, "g"), "a", 1);
        ck_assert_int_eq(m->state, GR_CM_UNREVOKED);
        ck_assert_int_eq(m->pending.n, 1);
        ck_assert(gr_timer_armed(&m->rebalance_timer));
    }
    /* b waits: a still owns them */
    hb(&t, "g", "b", 3, 0, &r);
    ck_assert_int_eq(r.epoch, 3);
    ck_assert_uint_eq(r.parts, 0);
    ck_assert_int_eq(gr_cg_member(cgroup(&t, "g"), "b", 1)->state,
                     GR_CM_UNRELEASED);
    /* a reports 0 and 1 only: it moves to epoch 3 */
    hb(&t, "g", "a", 2, 0x3, &r);
    ck_assert_int_eq(r.epoch, 3);
    ck_assert(!gr_timer_armed(
        &gr_cg_member(cgroup(&t, "g"), "a", 1)->rebalance_timer));
    /* b gets 2 and 3 */
    hb(&t, "g", "b", 3, 0, &r);
    ck_assert_int_eq(r.epoch, 3);
    ck_assert(r.has);
    ck_assert_uint_eq(r.parts, 0xc);
    ck_assert_str_eq(state(&t, "g"), "Stable");
    /* a heartbeat of the previous epoch with owned partitions it has is
     * fine (a lost answer), another is fenced */
    hb(&t, "g", "a", 2, 0x3, &r);
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    hb(&t, "g", "a", 1, 0x3, &r);
    ck_assert_int_eq(r.err, GR_KERR_FENCED_MEMBER_EPOCH);
    ck_assert_str_eq(r.msg,
                     "The consumer group member has a smaller member epoch "
                     "(1) than the one known by the group coordinator (3). The "
                     "member must abandon all its partitions and rejoin.");
    hb(&t, "g", "a", 9, 0x3, &r);
    ck_assert_int_eq(r.err, GR_KERR_FENCED_MEMBER_EPOCH);
    /* a leaves: b takes everything */
    hb(&t, "g", "a", -1, -1, &r);
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    ck_assert_int_eq(r.epoch, -1);
    hb(&t, "g", "b", 3, 0xc, &r);
    ck_assert_int_eq(r.epoch, 4);
    ck_assert_uint_eq(r.parts, 0xf);
    gt_fini(&t);
}
END_TEST

START_TEST(test_request_errors)
{
    gt_t t;
    hbr_t r;
    cg_init(&t);
    hb_full(&t, 1, "g", "", 0, NULL, "t", 0, 1000, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_INVALID_REQUEST);
    ck_assert_str_eq(r.msg, "MemberId can't be empty.");
    ck_assert_str_eq(r.member, "(null)");
    hb_full(&t, 0, "g", "m", 0, NULL, "t", 0, -1, NULL, NULL, &r);
    ck_assert_str_eq(r.msg, "RebalanceTimeoutMs must be provided in first "
                            "request.");
    hb_full(&t, 0, "g", "m", 0, NULL, "t", 0x1, 1000, NULL, NULL, &r);
    ck_assert_str_eq(r.msg, "TopicPartitions must be empty when (re-)joining.");
    hb_full(&t, 0, "g", "m", 0, NULL, NULL, 0, 1000, NULL, NULL, &r);
    ck_assert_str_eq(r.msg,
                     "Either SubscribedTopicNames or SubscribedTopicRegex "
                     "must be non-null when (re-)joining.");
    hb_full(&t, 0, "g", "m", -2, NULL, NULL, -1, -1, NULL, NULL, &r);
    ck_assert_str_eq(r.msg, "InstanceId can't be null.");
    hb_full(&t, 0, "g", "m", -3, NULL, NULL, -1, -1, NULL, NULL, &r);
    ck_assert_str_eq(r.msg, "MemberEpoch is invalid.");
    hb_full(&t, 0, " ", "m", 0, NULL, "t", 0, 1000, NULL, NULL, &r);
    ck_assert_str_eq(r.msg, "GroupId can't be empty.");
    hb_full(&t, 1, "g", "m", 0, NULL, "t", 0, 1000, "sticky", NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_UNSUPPORTED_ASSIGNOR);
    ck_assert_str_eq(r.msg, "ServerAssignor sticky is not supported. Supported "
                            "assignors: uniform, range.");
    hb(&t, "g", "m", 3, -1, &r);
    ck_assert_int_eq(r.err, GR_KERR_GROUP_ID_NOT_FOUND);
    ck_assert_str_eq(r.msg, "Consumer group g not found.");
    /* nothing was kept of the failed joins */
    {
        gr_str_t g = S("g");
        ck_assert_ptr_null(gr_groups_find(t.g, &g));
    }
    join(&t, "g", "a", &r);
    hb(&t, "g", "x", 2, -1, &r);
    ck_assert_int_eq(r.err, GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert_str_eq(r.msg, "Member x is not a member of group g.");
    hb_full(&t, 1, "g", "r", 0, NULL, NULL, 0, 1000, NULL, "(", &r);
    ck_assert_int_eq(r.err, GR_KERR_INVALID_REGULAR_EXPRESSION);
    ck_assert_str_eq(r.msg, "SubscribedTopicRegex `(` is not a valid regular "
                            "expression: missing closing ).");
    /* group.consumer.max.size */
    t.g->cfg.consumer_max_size = 1;
    hb_full(&t, 1, "g", "b", 0, NULL, "t", 0, 1000, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_GROUP_MAX_SIZE_REACHED);
    ck_assert_str_eq(r.msg, "The consumer group has reached its maximum "
                            "capacity of 1 members.");
    hb(&t, "g", "a", 2, 0xf, &r); /* a member still is one */
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    gt_fini(&t);
}
END_TEST

START_TEST(test_static_members)
{
    gt_t t;
    hbr_t r;
    cg_init(&t);
    hb_full(&t, 1, "g", "s1", 0, "i1", "t", 0, 30000, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    hb_full(&t, 1, "g", "s1", 2, "i1", NULL, 0xf, -1, NULL, NULL, &r);
    /* the instance id is taken */
    hb_full(&t, 1, "g", "s2", 0, "i1", "t", 0, 30000, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_UNRELEASED_INSTANCE_ID);
    ck_assert_str_eq(r.msg, "Static member s2 with instance id i1 cannot join "
                            "the group because the instance id is owned by s1 "
                            "member.");
    hb_full(&t, 1, "g", "s2", 2, "i1", NULL, -1, -1, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_FENCED_INSTANCE_ID);
    /* a temporary leave keeps the assignment, epochs at 0 */
    hb_full(&t, 1, "g", "s1", -2, "i1", NULL, -1, -1, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    ck_assert_int_eq(r.epoch, -2);
    ck_assert_str_eq(state(&t, "g"), "Reconciling");
    {
        gr_cmember_t *m = gr_cg_member(cgroup(&t, "g"), "s1", 2);
        ck_assert_int_eq(m->epoch, -2);
        ck_assert_int_eq(m->assigned.n, 1);
        ck_assert_int_eq(m->assigned.t[0].epochs[0], 0);
    }
    /* back under another member id: the same partitions, no new epoch */
    hb_full(&t, 1, "g", "s2", 0, "i1", "t", 0, 30000, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    ck_assert_int_eq(r.epoch, 2);
    ck_assert_uint_eq(r.parts, 0xf);
    ck_assert_ptr_null(gr_cg_member(cgroup(&t, "g"), "s1", 2));
    ck_assert_int_eq(cgroup(&t, "g")->epoch, 2);
    ck_assert_int_eq(cgroup(&t, "g")->nmembers, 1);
    hb_full(&t, 1, "g", "s1", 2, "i1", NULL, -1, -1, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_FENCED_INSTANCE_ID);
    ck_assert_str_eq(r.msg, "Static member s1 with instance id i1 was fenced "
                            "by member s2.");
    hb_full(&t, 1, "g", "s2", -1, "i1", NULL, -1, -1, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    ck_assert_str_eq(state(&t, "g"), "Empty");
    gt_fini(&t);
}
END_TEST

/* The group's counts of regexes, assignors and instance ids against its
 * members, counted the long way. */
static void
check_indexes(gr_cgroup_t *cg)
{
    int32_t users[2] = { 0, 0 }, total = 0, inst = 0, indexed = 0;
    for (gr_cmember_t *m = cg->members; m; m = m->next) {
        if (!m->in_group)
            continue;
        ck_assert(m->indexed);
        indexed++;
        users[0] += m->assignor && strcmp(m->assignor, "uniform") == 0;
        users[1] += m->assignor && strcmp(m->assignor, "range") == 0;
        if (m->regex && *m->regex) {
            int32_t n = 0;
            bool found = false;
            for (gr_cmember_t *x = cg->members; x; x = x->next)
                n += x->in_group && x->regex && strcmp(x->regex, m->regex) == 0;
            for (int32_t i = 0; i < cg->nrcounts; i++)
                if (strcmp(cg->rcounts[i].regex, m->regex) == 0) {
                    ck_assert_int_eq(cg->rcounts[i].n, n);
                    found = true;
                }
            ck_assert(found);
        }
        if (m->instance_id) {
            gr_cmember_t *x = NULL;
            inst++;
            ck_assert_uint_gt(cg->isize, 0);
            x = cg->itab[gr_hash(m->instance_id, strlen(m->instance_id)) &
                         (cg->isize - 1)];
            while (x && x != m)
                x = x->inext;
            ck_assert_ptr_eq(x, m);
        }
    }
    for (int32_t i = 0; i < cg->nrcounts; i++)
        total += cg->rcounts[i].n;
    for (gr_cmember_t *m = cg->members; m; m = m->next)
        total -= m->in_group && m->regex && *m->regex;
    ck_assert_int_eq(total, 0);
    ck_assert_int_eq(indexed, cg->nmembers);
    ck_assert_int_eq(users[0], cg->assignor_users[0]);
    ck_assert_int_eq(users[1], cg->assignor_users[1]);
    for (uint32_t b = 0; b < cg->isize; b++)
        for (gr_cmember_t *x = cg->itab[b]; x; x = x->inext)
            inst--;
    ck_assert_int_eq(inst, 0);
}

/* Past the first sizes of the member and instance tables: 60 members, a
 * third static, a third on regexes, half on range; the counts follow
 * joins, leaves, fencing and a restart. */
START_TEST(test_many_members)
{
    gt_t t;
    hbr_t r;
    char id[16], iid[16], re[16];
    cg_init(&t);
    for (int i = 0; i < 60; i++) {
        snprintf(id, sizeof id, "m%02d", i);
        snprintf(iid, sizeof iid, "i%02d", i);
        snprintf(re, sizeof re, "t|x%d", i % 4);
        hb_full(&t, 1, "g", id, 0, i % 3 == 0 ? iid : NULL,
                i % 3 == 1 ? NULL : "t", 0, 30000, i % 2 ? "range" : NULL,
                i % 3 == 1 ? re : NULL, &r);
        ck_assert_msg(r.err == GR_KERR_NONE, "%s: %s", id, r.msg);
    }
    check_indexes(cgroup(&t, "g"));
    ck_assert_int_eq(cgroup(&t, "g")->nrcounts, 4);
    ck_assert_int_eq(cgroup(&t, "g")->assignor_users[1], 30);
    /* every instance id is found taken */
    for (int i = 0; i < 60; i += 3) {
        snprintf(iid, sizeof iid, "i%02d", i);
        hb_full(&t, 1, "g", "other", 0, iid, "t", 0, 30000, NULL, NULL, &r);
        ck_assert_int_eq(r.err, GR_KERR_UNRELEASED_INSTANCE_ID);
    }
    /* leaves of every kind: dynamic, static for good, static for now */
    for (int i = 0; i < 60; i += 2) {
        snprintf(id, sizeof id, "m%02d", i);
        snprintf(iid, sizeof iid, "i%02d", i);
        hb_full(&t, 1, "g", id, i % 4 == 0 ? -1 : -2, i % 3 == 0 ? iid : NULL,
                NULL, -1, -1, NULL, NULL, &r);
        ck_assert_int_eq(r.err, i % 4 != 0 && i % 3 != 0
                                    ? GR_KERR_INVALID_REQUEST
                                    : GR_KERR_NONE);
    }
    check_indexes(cgroup(&t, "g"));
    /* a static member back under a new id takes its own place */
    hb_full(&t, 1, "g", "back", 0, "i06", "t", 0, 30000, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    ck_assert_ptr_null(gr_cg_member(cgroup(&t, "g"), "m06", 3));
    check_indexes(cgroup(&t, "g"));
    gt_reopen(&t, true);
    t.g->cfg.consumer_assignment_interval_ms = 0;
    check_indexes(cgroup(&t, "g"));
    hb_full(&t, 1, "g", "other", 0, "i06", "t", 0, 30000, NULL, NULL, &r);
    ck_assert_int_eq(r.err, GR_KERR_UNRELEASED_INSTANCE_ID);
    ck_assert_str_eq(r.msg, "Static member other with instance id i06 cannot "
                            "join the group because the instance id is owned "
                            "by back member.");
    gt_fini(&t);
}
END_TEST

START_TEST(test_session_timeout)
{
    gt_t t;
    hbr_t r;
    cg_init(&t);
    /* b's heartbeats 100 ms apart, well within its session on a loaded
     * host; a's silence twice as long as its session */
    t.g->cfg.consumer_session_timeout_ms = 400;
    join(&t, "g", "a", &r);
    join(&t, "g", "b", &r);
    for (int i = 0, e = 3; i < 8; i++) {
        gr_loop_run_for(t.loop, 100);
        hb(&t, "g", "b", e, -1, &r); /* b stays alive */
        ck_assert_int_eq(r.err, GR_KERR_NONE);
        e = r.epoch;
    }
    hb(&t, "g", "a", 3, -1, &r);
    ck_assert_int_eq(r.err, GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert_int_eq(cgroup(&t, "g")->nmembers, 1);
    ck_assert_int_ge(cgroup(&t, "g")->epoch, 4);
    gr_loop_run_for(t.loop, 800);
    ck_assert_str_eq(state(&t, "g"), "Empty");
    gt_fini(&t);
}
END_TEST

START_TEST(test_rebalance_timeout)
{
    gt_t t;
    hbr_t r;
    cg_init(&t);
    hb_full(&t, 1, "g", "a", 0, NULL, "t", 0, 100, NULL, NULL, &r);
    hb(&t, "g", "a", 2, 0xf, &r);
    join(&t, "g", "b", &r);
    hb(&t, "g", "a", 2, 0xf, &r); /* must revoke; does not */
    ck_assert_uint_eq(r.parts, 0x3);
    gr_loop_run_for(t.loop, 250);
    hb(&t, "g", "a", 2, 0xf, &r);
    ck_assert_int_eq(r.err, GR_KERR_UNKNOWN_MEMBER_ID);
    hb(&t, "g", "b", 3, 0, &r);
    ck_assert_uint_eq(r.parts, 0xf);
    gt_fini(&t);
}
END_TEST

/* A subscribed topic that grows, or is created, bumps the group epoch at
 * the next heartbeat (Kafka's metadata hash). */
START_TEST(test_topic_changes)
{
    gt_t t;
    hbr_t r;
    const char *msg;
    gr_topic_spec_t s;
    gr_topic_t *tp;
    cg_init(&t);
    hb_full(&t, 1, "g", "a", 0, NULL, "t,u", 0, 30000, NULL, NULL, &r);
    ck_assert_int_eq(r.epoch, 2);
    ck_assert_int_eq(gr_cluster_create_partitions(
                         t.cluster, gr_cluster_topic_cstr(t.cluster, "t"), 6,
                         NULL, false, &msg),
                     GR_KERR_NONE);
    hb(&t, "g", "a", 2, 0xf, &r);
    ck_assert_int_eq(r.epoch, 3);
    ck_assert_uint_eq(r.parts, 0x3f);
    memset(&s, 0, sizeof s);
    s.name = "u";
    s.nparts = 2;
    s.replication_factor = 1;
    ck_assert_int_eq(gr_cluster_create_topic(t.cluster, &s, &tp, &msg), 0);
    hb(&t, "g", "a", 3, 0x3f, &r);
    ck_assert_int_eq(r.epoch, 4);
    ck_assert(r.has);
    gt_fini(&t);
}
END_TEST

static void
noop_cb(gr_group_waiter_t *w, const void *result)
{
    (void)w;
    (void)result;
}

static gr_kerr_t
commit2(gt_t *t, const char *group, const char *member, int32_t epoch,
        int32_t part, int16_t version)
{
    gr_group_commit_part_t p;
    gr_group_commit_args_t a;
    gr_group_waiter_t w;
    memset(&p, 0, sizeof p);
    p.topic = S("t");
    p.partition = part;
    p.offset = 42;
    p.leader_epoch = -1;
    p.metadata = S("");
    p.commit_timestamp = -1;
    memset(&a, 0, sizeof a);
    a.group_id = S(group);
    a.member_id = S(member);
    a.group_instance_id = GR_STR_NULL;
    a.generation_id = epoch;
    a.retention_ms = -1;
    a.parts = &p;
    a.nparts = 1;
    a.version = version;
    gr_group_waiter_init(&w, noop_cb, NULL);
    ck_assert(!gr_group_commit_offsets(t->g, &a, &w));
    return p.error;
}

/* Kafka's ConsumerGroup.validateOffsetCommit: the member's epoch, or an
 * older one for a partition assigned at that epoch or before. */
START_TEST(test_commit_member_epochs)
{
    gt_t t;
    hbr_t r;
    gr_str_t g = S("g"), tp = S("t"), ma = S("a"), mz = S("z");
    gr_str_t mnull = GR_STR_NULL;
    gr_group_offset_t o;
    cg_init(&t);
    join(&t, "g", "a", &r);
    hb(&t, "g", "a", 2, 0xf, &r);
    ck_assert_int_eq(commit2(&t, "g", "a", 2, 0, 9), GR_KERR_NONE);
    ck_assert_int_eq(commit2(&t, "g", "a", 3, 0, 9),
                     GR_KERR_STALE_MEMBER_EPOCH);
    ck_assert_int_eq(commit2(&t, "g", "x", 2, 0, 9), GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert_int_eq(commit2(&t, "g", "a", 2, 0, 8),
                     GR_KERR_UNSUPPORTED_VERSION);
    ck_assert_int_eq(commit2(&t, "g", "", -1, 0, 9), GR_KERR_UNKNOWN_MEMBER_ID);
    /* b joins; a moves to epoch 3 keeping 0 and 1, assigned at 2 */
    join(&t, "g", "b", &r);
    hb(&t, "g", "a", 2, 0xf, &r);
    hb(&t, "g", "a", 2, 0x3, &r);
    ck_assert_int_eq(r.epoch, 3);
    ck_assert_int_eq(commit2(&t, "g", "a", 2, 1, 9), GR_KERR_NONE);
    ck_assert_int_eq(commit2(&t, "g", "a", 2, 3, 9),
                     GR_KERR_STALE_MEMBER_EPOCH); /* no longer a's */
    ck_assert_int_eq(commit2(&t, "g", "a", 1, 1, 9),
                     GR_KERR_STALE_MEMBER_EPOCH); /* older than its epoch */
    /* OffsetFetch v9+ */
    ck_assert_int_eq(gr_group_check_member(t.g, &g, &ma, 3), GR_KERR_NONE);
    ck_assert_int_eq(gr_group_check_member(t.g, &g, &ma, 2),
                     GR_KERR_STALE_MEMBER_EPOCH);
    ck_assert_int_eq(gr_group_check_member(t.g, &g, &mz, 2),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert_int_eq(gr_group_check_member(t.g, &g, &mnull, -1), GR_KERR_NONE);
    gr_group_offset_get(t.g, &g, &tp, 1, false, &o);
    ck_assert_int_eq(o.offset, 42);
    gt_fini(&t);
}
END_TEST

/* The records in the log, in Kafka's formats, and a restart that keeps
 * the group, its members' assignments and its offsets. */
START_TEST(test_persistence)
{
    gt_t t;
    hbr_t r;
    gr_str_t g = S("g"), tp = S("t");
    gr_group_offset_t o;
    cg_init(&t);
    join(&t, "g", "a", &r);
    hb(&t, "g", "a", 2, 0xf, &r);
    join(&t, "g", "b", &r);
    hb(&t, "g", "a", 2, 0xf, &r); /* a: UNREVOKED at 2 */
    ck_assert_int_eq(commit2(&t, "g", "a", 2, 0, 9), GR_KERR_NONE);
    hb_full(&t, 1, "g", "s", 0, "inst", "t", 0, 30000, "range", NULL, &r);
    gt_reopen(&t, true);
    t.g->cfg.consumer_assignment_interval_ms = 0;
    {
        gr_cgroup_t *cg = cgroup(&t, "g");
        gr_cmember_t *a = gr_cg_member(cg, "a", 1);
        gr_cmember_t *b = gr_cg_member(cg, "b", 1);
        gr_cmember_t *s = gr_cg_member(cg, "s", 1);
        ck_assert_int_eq(cg->nmembers, 3);
        ck_assert_int_eq(cg->epoch, 4);
        ck_assert_int_eq(cg->assignment_epoch, 4);
        ck_assert_ptr_nonnull(a);
        ck_assert_int_eq(a->epoch, 2);
        ck_assert_int_eq(a->state, GR_CM_UNREVOKED);
        ck_assert_int_eq(a->assigned.t[0].n + a->pending.t[0].n, 4);
        ck_assert(gr_timer_armed(&a->rebalance_timer));
        ck_assert(gr_timer_armed(&a->session_timer));
        ck_assert_int_eq(b->epoch, 3);
        ck_assert_str_eq(s->instance_id, "inst");
        ck_assert_str_eq(s->assignor, "range");
        ck_assert_int_eq(s->rebalance_timeout_ms, 30000);
        ck_assert(b->has_target && a->has_target);
    }
    gr_group_offset_get(t.g, &g, &tp, 0, false, &o);
    ck_assert_int_eq(o.offset, 42);
    /* the members go on where they were */
    /* s's range (instance ids first) gave a partition 2: a must first
     * give up 0 and 1, still at epoch 2, then takes 2 at epoch 4 */
    hb(&t, "g", "a", 2, 0x1, &r);
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    ck_assert_int_eq(r.epoch, 2);
    ck_assert(r.has);
    ck_assert_uint_eq(r.parts, 0);
    hb(&t, "g", "a", 2, 0, &r);
    ck_assert_int_eq(r.epoch, 4);
    ck_assert_uint_eq(r.parts, 0x4);
    hb(&t, "g", "b", 3, 0, &r);
    ck_assert_int_eq(r.err, GR_KERR_NONE);
    /* and an Empty group is deleted with its records: gone after a restart */
    hb(&t, "g", "a", -1, -1, &r);
    hb(&t, "g", "b", -1, -1, &r);
    hb_full(&t, 1, "g", "s", -1, "inst", NULL, -1, -1, NULL, NULL, &r);
    ck_assert_str_eq(state(&t, "g"), "Empty");
    ck_assert_int_eq(gr_group_delete(t.g, &g), GR_KERR_NONE);
    gt_reopen(&t, true);
    ck_assert_ptr_null(gr_groups_find(t.g, &g));
    gt_fini(&t);
}
END_TEST

/* The bytes of the records, as Kafka's ConsumerGroupMetadata and
 * ConsumerGroupCurrentMemberAssignment definitions lay them out. */
START_TEST(test_records_format)
{
    gt_t t;
    hbr_t r;
    gr_topic_t *tp;
    gr_str_t g = S("fmt");
    gr_partition_t *p;
    gr_log_slice_t sl;
    gr_buf_t b = GR_BUF_INIT;
    gr_uuid_t id;
    cg_init(&t);
    join(&t, "fmt", "m", &r);
    id = tid(&t, "t");
    tp = gr_cluster_topic_cstr(t.cluster, "__consumer_offsets");
    p = tp->parts[gr_cluster_coord_partition(&g, tp->nparts)];
    ck_assert_int_eq(
        gr_log_read(p->log, 0, 1 << 16, gr_log_end_offset(p->log), true, &sl),
        0);
    ck_assert(gr_logtest_read_slice(&sl, &b));
    {
        /* ConsumerGroupMetadata: key 00 03 | 00 03 "fmt" */
        static const uint8_t key3[] = { 0, 3, 0, 3, 'f', 'm', 't' };
        /* ConsumerGroupMemberMetadata: key 00 05 | "fmt" | "m"; value
         * 00 00 | instance null | rack null | "cli" | "/127.0.0.1" ... */
        static const uint8_t key5[] = { 0, 5, 0, 3, 'f', 'm', 't', 0, 1, 'm' };
        static const uint8_t val5[] = { 0, 0, 0, 0, 4, 'c', 'l', 'i', 11, '/' };
        /* ConsumerGroupCurrentMemberAssignment value: 00 00 | epoch 2 |
         * previous 0 (updateMemberEpoch of a new member at 0) | state 0 |
         * one topic: id, 4 partitions, tag 0 (AssignmentEpochs) of 17
         * bytes: 4 epochs of 2 | no pending | no tags */
        uint8_t val8[96];
        size_t n = 0;
        static const uint8_t head8[] = { 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 2 };
        memcpy(val8, head8, sizeof head8);
        n = sizeof head8;
        memcpy(val8 + n, id.b, 16);
        n += 16;
        val8[n++] = 5; /* 4 partitions */
        for (int i = 0; i < 4; i++) {
            val8[n++] = 0, val8[n++] = 0, val8[n++] = 0, val8[n++] = (uint8_t)i;
        }
        val8[n++] = 1;  /* one tag */
        val8[n++] = 0;  /* tag 0 */
        val8[n++] = 17; /* size */
        val8[n++] = 5;
        for (int i = 0; i < 4; i++) {
            val8[n++] = 0, val8[n++] = 0, val8[n++] = 0, val8[n++] = 2;
        }
        val8[n++] = 1; /* pending: empty */
        val8[n++] = 0; /* tags */
        ck_assert(memmem(b.ptr, b.len, key3, sizeof key3) != NULL);
        ck_assert(memmem(b.ptr, b.len, key5, sizeof key5) != NULL);
        ck_assert(memmem(b.ptr, b.len, val5, sizeof val5) != NULL);
        ck_assert_msg(memmem(b.ptr, b.len, val8, n) != NULL,
                      "no CurrentMemberAssignment value as Kafka writes it");
    }
    gr_buf_fini(&b);
    gt_fini(&t);
}
END_TEST

/* Kafka's rules for the two protocols on one group id (no online
 * migration: as group.consumer.migration.policy=disabled). */
START_TEST(test_protocol_conflicts)
{
    gt_t t;
    hbr_t r;
    gr_str_t g = S("g"), ma = S("a"), mnull = GR_STR_NULL;
    gr_group_summary_t s;
    gr_arena_t *a = gr_arena_new(1024);
    cg_init(&t);
    join(&t, "g", "a", &r);
    ck_assert_int_eq(gr_cg_to_classic(cgroup(&t, "g")->grp),
                     GR_KERR_INCONSISTENT_GROUP_PROTOCOL);
    ck_assert_int_eq(gr_group_heartbeat(t.g, &g, &ma, &mnull, 2),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert_int_eq(gr_group_describe(t.g, &g, a, &s),
                     GR_KERR_GROUP_ID_NOT_FOUND);
    ck_assert_str_eq(s.message, "Group g is not a classic group.");
    ck_assert_int_eq(gr_group_delete(t.g, &g), GR_KERR_NON_EMPTY_GROUP);
    hb(&t, "g", "a", -1, -1, &r);
    /* Empty: a classic join makes it a classic group again */
    ck_assert_int_eq(gr_cg_to_classic(cgroup(&t, "g")->grp), GR_KERR_NONE);
    ck_assert_ptr_null(gr_groups_find(t.g, &g)); /* nothing left of it */
    gr_arena_destroy(a);
    gt_fini(&t);
}
END_TEST

START_TEST(test_describe)
{
    gt_t t;
    hbr_t r;
    gr_str_t g = S("g"), nope = S("nope");
    gr_cg_group_desc_t d;
    const char *msg;
    gr_arena_t *a = gr_arena_new(4096);
    cg_init(&t);
    join(&t, "g", "a", &r);
    hb(&t, "g", "a", 2, 0xf, &r);
    join(&t, "g", "b", &r);
    hb(&t, "g", "a", 2, 0xf, &r);
    ck_assert_int_eq(gr_cg_describe(t.g, &g, a, &d, &msg), GR_KERR_NONE);
    ck_assert_str_eq(d.state, "Reconciling");
    ck_assert_int_eq(d.group_epoch, 3);
    ck_assert_int_eq(d.assignment_epoch, 3);
    ck_assert_str_eq(d.assignor, "uniform");
    ck_assert_int_eq(d.nmembers, 2);
    ck_assert_str_eq(d.members[0].member_id, "a");
    /* a's assignment still has what it must revoke; its target does not */
    ck_assert_int_eq(d.members[0].assigned[0].npartitions, 4);
    ck_assert_int_eq(d.members[0].target[0].npartitions, 2);
    ck_assert_str_eq(d.members[0].assigned[0].topic_name, "t");
    ck_assert_str_eq(d.members[0].regex, "");
    ck_assert_int_eq(gr_cg_describe(t.g, &nope, a, &d, &msg),
                     GR_KERR_GROUP_ID_NOT_FOUND);
    ck_assert_str_eq(msg, "Group nope not found.");
    gr_arena_destroy(a);
    gt_fini(&t);
}
END_TEST

Suite *
suite_group_consumer(void)
{
    Suite *s = suite_create("group/consumer");
    TCase *tc = tcase_create("consumer");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_join_and_epochs);
    tcase_add_test(tc, test_revocation_before_reassignment);
    tcase_add_test(tc, test_request_errors);
    tcase_add_test(tc, test_static_members);
    tcase_add_test(tc, test_many_members);
    tcase_add_test(tc, test_session_timeout);
    tcase_add_test(tc, test_rebalance_timeout);
    tcase_add_test(tc, test_topic_changes);
    tcase_add_test(tc, test_commit_member_epochs);
    tcase_add_test(tc, test_persistence);
    tcase_add_test(tc, test_records_format);
    tcase_add_test(tc, test_protocol_conflicts);
    tcase_add_test(tc, test_describe);
    suite_add_tcase(s, tc);
    return s;
}
