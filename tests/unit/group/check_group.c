/*
 * The group coordinator (src/group/) against a real partition log in a
 * temporary directory: every group state against every group request (the
 * table in group_int.h), then the flows one by one (MEMBER_ID_REQUIRED,
 * protocol votes, leader, static members, session, rebalance and pending
 * timeouts, group.max.size, cancelled waiters, offsets and their metadata,
 * retention, persistence across a restart, COORDINATOR_LOAD_IN_PROGRESS).
 * Timers run on a real loop for a few hundred milliseconds at most.
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

/* ConsumerProtocolSubscription v1 for topics "a,b" */
static gr_bytes_t
subscription(const char *topics)
{
    static uint8_t buf[8][256];
    static int next;
    uint8_t *b = buf[next++ % 8];
    gr_consumer_protocol_subscription_t s;
    gr_str_t names[4];
    char tmp[128], *save = NULL, *tok;
    int n = 0;
    gr_writer_t w;
    size_t len;

    snprintf(tmp, sizeof tmp, "%s", topics);
    for (tok = strtok_r(tmp, ",", &save); tok && n < 4;
         tok = strtok_r(NULL, ",", &save))
        names[n++] = gr_str_c(tok); /* encoded before tmp goes */
    gr_consumer_protocol_subscription_init(&s);
    s.topics = names;
    s.topics_cnt = n;
    s.owned_partitions_cnt = 0;
    len = 2 + gr_consumer_protocol_subscription_size(&s, 1);
    ck_assert_uint_le(len, 256);
    w = gr_writer_init(b, len, NULL);
    gr_wr_i16(&w, 1);
    gr_consumer_protocol_subscription_encode(&w, &s, 1);
    return (gr_bytes_t){ b, (int32_t)len };
}

/* The metadata every protocol of the next joins carries, when set
 * (len > 0); else subscription("t"). */
static gr_bytes_t join_metadata;

typedef struct jres {
    gr_group_waiter_t w;
    int fired;
    gr_kerr_t err;
    int32_t gen;
    char member[128];
    char leader[128];
    char proto[32];
    int nmembers;
    bool skip;
} jres_t;

static void
join_cb(gr_group_waiter_t *w, const void *result)
{
    const gr_group_join_result_t *r = result;
    jres_t *j = w->arg;
    j->fired++;
    j->err = r->error;
    j->gen = r->generation_id;
    snprintf(j->member, sizeof j->member, "%s", r->member_id);
    snprintf(j->leader, sizeof j->leader, "%s", r->leader_id);
    snprintf(j->proto, sizeof j->proto, "%s",
             r->protocol_name ? r->protocol_name : "(null)");
    j->nmembers = r->nmembers;
    j->skip = r->skip_assignment;
}

/* JoinGroup; protos "range,roundrobin" (each with a subscription of
 * topic "t"); returns whether the answer is pending. */
static bool
join_full(gt_t *t, const char *group, const char *member, const char *inst,
          const char *protos, int32_t session, int32_t rebalance,
          bool require_known, bool skip, jres_t *j)
{
    gr_group_protocol_t p[4];
    gr_group_join_args_t a;
    char tmp[64], *save = NULL, *tok, mid[128];
    int n = 0;
    snprintf(mid, sizeof mid, "%s", member ? member : ""); /* may be j's */
    member = mid;
    snprintf(tmp, sizeof tmp, "%s", protos);
    for (tok = strtok_r(tmp, ",", &save); tok && n < 4;
         tok = strtok_r(NULL, ",", &save)) {
        p[n].name = gr_str_c(tok); /* copied by the coordinator */
        p[n].metadata =
            join_metadata.len > 0 ? join_metadata : subscription("t");
        n++;
    }
    memset(&a, 0, sizeof a);
    a.group_id = S(group);
    a.member_id = S(member ? member : "");
    a.group_instance_id = S(inst);
    a.client_id = S("cli");
    a.client_host = S("/127.0.0.1");
    a.protocol_type = S("consumer");
    a.reason = GR_STR_NULL;
    a.session_timeout_ms = session;
    a.rebalance_timeout_ms = rebalance;
    a.protocols = p;
    a.nprotocols = n;
    a.require_known_member_id = require_known;
    a.supports_skip_assignment = skip;
    memset(j, 0, sizeof(*j));
    gr_group_waiter_init(&j->w, join_cb, j);
    return gr_group_join(t->g, &a, &j->w);
}

static bool
join(gt_t *t, const char *group, const char *member, jres_t *j)
{
    return join_full(t, group, member, NULL, "range,roundrobin", 10000, 10000,
                     false, false, j);
}

typedef struct sres {
    gr_group_waiter_t w;
    int fired;
    gr_kerr_t err;
    char assignment[64];
} sres_t;

static void
sync_cb(gr_group_waiter_t *w, const void *result)
{
    const gr_group_sync_result_t *r = result;
    sres_t *s = w->arg;
    s->fired++;
    s->err = r->error;
    snprintf(s->assignment, sizeof s->assignment, "%.*s",
             r->assignment.len > 0 ? (int)r->assignment.len : 0,
             r->assignment.len > 0 ? (const char *)r->assignment.ptr : "");
}

/* SyncGroup; the leader assigns "A-<member id prefix>" to each member
 * listed in assign (member ids). */
static bool
sync_full(gt_t *t, const char *group, const char *member, const char *inst,
          int32_t gen, const char **assign, int nassign, sres_t *s)
{
    gr_group_assignment_t as[8];
    gr_group_sync_args_t a;
    for (int i = 0; i < nassign; i++) {
        as[i].member_id = S(assign[i]);
        as[i].assignment = (gr_bytes_t){ (const uint8_t *)"assigned", 8 };
    }
    memset(&a, 0, sizeof a);
    a.group_id = S(group);
    a.member_id = S(member);
    a.group_instance_id = S(inst);
    a.protocol_type = GR_STR_NULL;
    a.protocol_name = GR_STR_NULL;
    a.generation_id = gen;
    a.assignments = as;
    a.nassignments = nassign;
    memset(s, 0, sizeof(*s));
    gr_group_waiter_init(&s->w, sync_cb, s);
    return gr_group_sync(t->g, &a, &s->w);
}

static bool
sync_g(gt_t *t, const char *group, const char *member, int32_t gen, bool leader,
       sres_t *s)
{
    const char *self[1] = { member };
    return sync_full(t, group, member, NULL, gen, self, leader ? 1 : 0, s);
}

static gr_kerr_t
heartbeat(gt_t *t, const char *group, const char *member, int32_t gen)
{
    gr_str_t g = S(group), m = S(member), i = GR_STR_NULL;
    return gr_group_heartbeat(t->g, &g, &m, &i, gen);
}

static gr_kerr_t
leave(gt_t *t, const char *group, const char *member, gr_kerr_t *merr)
{
    gr_group_leaver_t l;
    gr_str_t g = S(group);
    gr_kerr_t err;
    memset(&l, 0, sizeof l);
    l.member_id = S(member);
    l.group_instance_id = GR_STR_NULL;
    l.reason = GR_STR_NULL;
    err = gr_group_leave(t->g, &g, &l, 1);
    *merr = l.error;
    return err;
}

typedef struct cres {
    gr_group_waiter_t w;
    int fired;
    gr_kerr_t flush;
} cres_t;

static void
commit_cb(gr_group_waiter_t *w, const void *result)
{
    cres_t *c = w->arg;
    c->fired++;
    c->flush = *(const gr_kerr_t *)result;
}

/* Commits offset (metadata md, epoch 7) for topic/partition; the error. */
static gr_kerr_t
commit_full(gt_t *t, const char *group, const char *member, int32_t gen,
            const char *topic, int32_t part, int64_t offset, const char *md,
            int64_t retention)
{
    gr_group_commit_part_t p;
    gr_group_commit_args_t a;
    cres_t c;
    memset(&p, 0, sizeof p);
    p.topic = S(topic);
    p.partition = part;
    p.offset = offset;
    p.leader_epoch = 7;
    p.metadata = S(md);
    p.commit_timestamp = -1;
    memset(&a, 0, sizeof a);
    a.group_id = S(group);
    a.member_id = S(member ? member : "");
    a.group_instance_id = GR_STR_NULL;
    a.generation_id = gen;
    a.retention_ms = retention;
    a.parts = &p;
    a.nparts = 1;
    memset(&c, 0, sizeof c);
    gr_group_waiter_init(&c.w, commit_cb, &c);
    ck_assert(!gr_group_commit_offsets(t->g, &a, &c.w));
    ck_assert_int_eq(c.fired, 1);
    ck_assert_int_eq(c.flush, GR_KERR_NONE);
    return p.error;
}

static gr_kerr_t
commit(gt_t *t, const char *group, const char *member, int32_t gen,
       int64_t offset)
{
    return commit_full(t, group, member, gen, "t", 0, offset, "md", -1);
}

static int64_t
fetched(gt_t *t, const char *group, const char *topic, int32_t part,
        gr_group_offset_t *o)
{
    gr_str_t g = S(group), tp = S(topic);
    gr_group_offset_t tmp;
    if (o == NULL)
        o = &tmp;
    gr_group_offset_get(t->g, &g, &tp, part, false, o);
    return o->offset;
}

static const char *
state(gt_t *t, const char *group)
{
    gr_str_t g = S(group);
    return gr_group_state_name(t->g, &g);
}

/* Runs the loop until *fired (5 s at most: generous under sanitizers). */
static void
wait_fired(gt_t *t, const int *fired)
{
    for (int i = 0; i < 1000 && !*fired; i++)
        gr_loop_run_for(t->loop, 5);
}

/* A one-member Stable group; member id and generation out. */
static void
make_stable(gt_t *t, const char *group, char *member, int32_t *gen)
{
    jres_t j;
    sres_t s;
    ck_assert(join(t, group, "", &j));
    wait_fired(t, &j.fired); /* the initial delay (0) passes */
    ck_assert_int_eq(j.fired, 1);
    ck_assert_int_eq(j.err, GR_KERR_NONE);
    ck_assert_str_eq(j.leader, j.member);
    ck_assert(!sync_g(t, group, j.member, j.gen, true, &s));
    ck_assert_int_eq(s.err, GR_KERR_NONE);
    ck_assert_str_eq(state(t, group), "Stable");
    strcpy(member, j.member);
    *gen = j.gen;
}

/* --- every state against every request */

enum { ST_EMPTY, ST_PREPARING, ST_COMPLETING, ST_STABLE, ST_UNKNOWN, NST };
static const char *const state_names[NST] = { "Empty", "PreparingRebalance",
                                              "CompletingRebalance", "Stable",
                                              "Dead" };

enum {
    RQ_JOIN_KNOWN,
    RQ_JOIN_NEW,
    RQ_SYNC,
    RQ_HEARTBEAT,
    RQ_HEARTBEAT_OLD_GEN,
    RQ_LEAVE,
    RQ_COMMIT_MEMBER,
    RQ_COMMIT_SIMPLE,
    RQ_FETCH,
    RQ_DELETE_OFFSETS_OTHER,
    RQ_DELETE_OFFSETS_SUBSCRIBED,
    RQ_DESCRIBE,
    RQ_LIST,
    RQ_DELETE_GROUP,
    NRQ
};
static const char *const rq_names[NRQ] = { "JoinGroup(member)",
                                           "JoinGroup(new)",
                                           "SyncGroup",
                                           "Heartbeat",
                                           "Heartbeat(gen+1)",
                                           "LeaveGroup",
                                           "OffsetCommit(member)",
                                           "OffsetCommit(simple)",
                                           "OffsetFetch",
                                           "OffsetDelete(other)",
                                           "OffsetDelete(subscribed)",
                                           "DescribeGroups",
                                           "ListGroups",
                                           "DeleteGroups" };

#define N_  GR_KERR_NONE
#define UMI GR_KERR_UNKNOWN_MEMBER_ID
#define RIP GR_KERR_REBALANCE_IN_PROGRESS
#define ILG GR_KERR_ILLEGAL_GENERATION
#define MIR GR_KERR_MEMBER_ID_REQUIRED
#define GNF GR_KERR_GROUP_ID_NOT_FOUND
#define NEG GR_KERR_NON_EMPTY_GROUP
#define SUB GR_KERR_GROUP_SUBSCRIBED_TO_TOPIC

/* The answers (group_int.h's table; requests by member A with its
 * generation). Join of a known member completes at once here because
 * every other member is already waiting. */
static const gr_kerr_t expect[NST][NRQ] = {
    /*            JOINk JOINn SYNC HB  HB+1 LEAVE CMm  CMs FETCH DELo DELs DESC
       LIST DELG */
    [ST_EMPTY] = { UMI, MIR, UMI, UMI, UMI, UMI, UMI, N_, N_, N_, N_, N_, N_,
                   N_ },
    [ST_PREPARING] = { N_, MIR, RIP, RIP, ILG, N_, N_, UMI, N_, N_, SUB, N_, N_,
                       NEG },
    [ST_COMPLETING] = { N_, MIR, N_, N_, ILG, N_, RIP, UMI, N_, N_, SUB, N_, N_,
                        NEG },
    [ST_STABLE] = { N_, MIR, N_, N_, ILG, N_, N_, UMI, N_, N_, SUB, N_, N_,
                    NEG },
    [ST_UNKNOWN] = { UMI, MIR, UMI, UMI, UMI, UMI, ILG, N_, N_, GNF, GNF, GNF,
                     N_, GNF },
};

typedef struct built {
    char member[128];
    int32_t gen;
    jres_t other; /* PreparingRebalance: the held join of member B */
    jres_t a;     /* CompletingRebalance: member A's join */
} built_t;

static void
build(gt_t *t, const char *group, int st, built_t *b)
{
    gr_kerr_t merr;
    memset(b, 0, sizeof(*b));
    switch (st) {
    case ST_EMPTY:
        make_stable(t, group, b->member, &b->gen);
        ck_assert_int_eq(leave(t, group, b->member, &merr), GR_KERR_NONE);
        ck_assert_int_eq(merr, GR_KERR_NONE);
        b->gen++; /* the empty generation */
        break;
    case ST_PREPARING:
        make_stable(t, group, b->member, &b->gen);
        ck_assert(join(t, group, "", &b->other)); /* held: A must rejoin */
        break;
    case ST_COMPLETING:
        ck_assert(join(t, group, "", &b->a));
        wait_fired(t, &b->a.fired);
        ck_assert_int_eq(b->a.fired, 1);
        strcpy(b->member, b->a.member);
        b->gen = b->a.gen;
        break;
    case ST_STABLE:
        make_stable(t, group, b->member, &b->gen);
        break;
    case ST_UNKNOWN:
        strcpy(b->member, "unknown-member");
        b->gen = 1;
        break;
    }
    ck_assert_str_eq(state(t, group), state_names[st]);
}

static gr_kerr_t
run_request(gt_t *t, const char *group, int rq, built_t *b, int st)
{
    gr_str_t g = S(group);
    switch (rq) {
    case RQ_JOIN_KNOWN: {
        jres_t j;
        bool held = join(t, group, b->member, &j);
        ck_assert_msg(!held, "JoinGroup held");
        return j.err;
    }
    case RQ_JOIN_NEW: {
        jres_t j;
        ck_assert(!join_full(t, group, "", NULL, "range", 10000, 10000, true,
                             false, &j));
        return j.err;
    }
    case RQ_SYNC: {
        sres_t s;
        ck_assert(!sync_g(t, group, b->member, b->gen, true, &s));
        return s.err;
    }
    case RQ_HEARTBEAT:
        return heartbeat(t, group, b->member, b->gen);
    case RQ_HEARTBEAT_OLD_GEN:
        return heartbeat(t, group, b->member, b->gen + 1);
    case RQ_LEAVE: {
        gr_kerr_t merr, err = leave(t, group, b->member, &merr);
        ck_assert_int_eq(err, GR_KERR_NONE);
        return merr;
    }
    case RQ_COMMIT_MEMBER:
        return commit(t, group, b->member, b->gen, 5);
    case RQ_COMMIT_SIMPLE:
        return commit(t, group, "", -1, 5);
    case RQ_FETCH: {
        gr_kerr_t err = gr_group_check(t->g, &g, true);
        ck_assert_int_eq(fetched(t, group, "t", 0, NULL), -1);
        return err;
    }
    case RQ_DELETE_OFFSETS_OTHER:
    case RQ_DELETE_OFFSETS_SUBSCRIBED: {
        gr_group_delete_part_t p;
        gr_kerr_t err;
        memset(&p, 0, sizeof p);
        p.topic = S(rq == RQ_DELETE_OFFSETS_OTHER ? "other" : "t");
        p.partition = 0;
        err = gr_group_delete_offsets(t->g, &g, &p, 1);
        return err != GR_KERR_NONE ? err : p.error;
    }
    case RQ_DESCRIBE: {
        gr_arena_t *a = gr_arena_new(1024);
        gr_group_summary_t s;
        gr_kerr_t err = gr_group_describe(t->g, &g, a, &s);
        ck_assert_str_eq(s.state, state_names[st]);
        ck_assert_int_eq(s.nmembers, st == ST_EMPTY || st == ST_UNKNOWN ? 0
                                     : st == ST_PREPARING               ? 2
                                                                        : 1);
        if (st == ST_STABLE) {
            ck_assert_str_eq(s.protocol, "range");
            ck_assert_int_eq(s.members[0].assignment.len, 8);
            ck_assert_int_gt(s.members[0].metadata.len, 0);
        } else {
            ck_assert_str_eq(s.protocol, "");
        }
        if (st == ST_PREPARING) {
            /* A keeps its assignment while the group rebalances, as
             * Kafka's describeNoMetadata; B is new and has none */
            ck_assert_int_eq(s.members[0].assignment.len, 8);
            ck_assert_int_eq(s.members[0].metadata.len, 0);
            ck_assert_int_eq(s.members[1].assignment.len, 0);
        }
        gr_arena_destroy(a);
        return err;
    }
    case RQ_LIST: {
        gr_arena_t *a = gr_arena_new(1024);
        gr_group_overview_t *v;
        int32_t n;
        gr_kerr_t err = gr_groups_list(t->g, a, &v, &n);
        int found = 0;
        for (int32_t i = 0; i < n; i++)
            if (strcmp(v[i].group_id, group) == 0) {
                found++;
                ck_assert_str_eq(v[i].state, state_names[st]);
                ck_assert_str_eq(v[i].protocol_type, "consumer");
            }
        ck_assert_int_eq(found, st == ST_UNKNOWN ? 0 : 1);
        gr_arena_destroy(a);
        return err;
    }
    case RQ_DELETE_GROUP:
        return gr_group_delete(t->g, &g);
    }
    return -1;
}

/* The topics a consumer group is subscribed to, for OffsetDelete: read
 * as the subscription's version 0 prefix whatever version it names
 * (kafka-go names 1 and sends 0's fields); one that cannot be read
 * counts as every topic, as Kafka's ClassicGroup.isSubscribedToTopic. */
START_TEST(test_subscribed_topics)
{
    gt_t t;
    char member[128];
    int32_t gen;
    uint8_t v1_as_v0[64], junk[3] = { 0, 0, 0x7f };
    gr_consumer_protocol_subscription_t sub;
    gr_str_t name = gr_str_c("a");
    gr_writer_t w;
    gr_group_delete_part_t dp;
    gr_str_t g1 = S("g1"), g2 = S("g2");

    gr_consumer_protocol_subscription_init(&sub);
    sub.topics = &name;
    sub.topics_cnt = 1;
    w = gr_writer_init(v1_as_v0, sizeof v1_as_v0, NULL);
    gr_wr_i16(&w, 1);
    gr_consumer_protocol_subscription_encode(&w, &sub, 0);
    gt_init(&t);
    join_metadata = (gr_bytes_t){
        v1_as_v0,
        (int32_t)(2 + gr_consumer_protocol_subscription_size(&sub, 0))
    };
    make_stable(&t, "g1", member, &gen);
    join_metadata = (gr_bytes_t){ junk, sizeof junk };
    make_stable(&t, "g2", member, &gen);
    join_metadata = (gr_bytes_t){ NULL, 0 };
    memset(&dp, 0, sizeof dp);
    dp.partition = 0;
    dp.topic = S("a");
    ck_assert_int_eq(gr_group_delete_offsets(t.g, &g1, &dp, 1), GR_KERR_NONE);
    ck_assert_int_eq(dp.error, GR_KERR_GROUP_SUBSCRIBED_TO_TOPIC);
    dp.topic = S("other");
    dp.error = GR_KERR_NONE;
    ck_assert_int_eq(gr_group_delete_offsets(t.g, &g1, &dp, 1), GR_KERR_NONE);
    ck_assert_int_eq(dp.error, GR_KERR_NONE);
    ck_assert_int_eq(gr_group_delete_offsets(t.g, &g2, &dp, 1), GR_KERR_NONE);
    ck_assert_int_eq(dp.error, GR_KERR_GROUP_SUBSCRIBED_TO_TOPIC);
    gt_fini(&t);
}
END_TEST

/* A group id with a NUL byte is refused: groups are kept under C-string
 * ids, and "g\0a" would be taken for "g" (docs/compatibility.md). */
START_TEST(test_group_id_with_nul)
{
    gt_t t;
    char member[128];
    int32_t gen, part;
    gr_str_t nul = { "g\0a", 3 }, plain = GR_STR("g");

    gt_init(&t);
    make_stable(&t, "g", member, &gen);
    ck_assert_int_eq(gr_groups_validate(t.g, &nul, true, &part),
                     GR_KERR_INVALID_GROUP_ID);
    ck_assert_int_eq(gr_groups_validate(t.g, &plain, true, &part),
                     GR_KERR_NONE);
    gt_fini(&t);
}
END_TEST

START_TEST(test_state_x_request)
{
    gt_t t;
    built_t *held[NRQ];
    int nheld = 0;
    gt_init(&t);
    for (int st = 0; st < NST; st++)
        for (int rq = 0; rq < NRQ; rq++) {
            char group[64];
            built_t *b = calloc(1, sizeof(*b));
            gr_kerr_t got;
            snprintf(group, sizeof group, "g-%d-%d", st, rq);
            build(&t, group, st, b);
            got = run_request(&t, group, rq, b, st);
            ck_assert_msg(got == expect[st][rq], "%s in %s: %s, want %s",
                          rq_names[rq], state_names[st], gr_kerr_name(got),
                          gr_kerr_name(expect[st][rq]));
            /* b->other stays held until gt_fini answers it */
            if (st == ST_PREPARING)
                held[nheld++] = b;
            else
                free(b);
        }
    gt_fini(&t);
    while (nheld > 0)
        free(held[--nheld]);
}
END_TEST

/* Coordinator errors come before any state. */
START_TEST(test_coordinator_errors)
{
    gt_t t;
    jres_t j;
    sres_t s;
    gr_str_t empty = S("");
    gt_init(&t);
    ck_assert(!join(&t, "", "", &j));
    ck_assert_int_eq(j.err, GR_KERR_INVALID_GROUP_ID);
    ck_assert(!sync_g(&t, "", "m", 1, false, &s));
    ck_assert_int_eq(s.err, GR_KERR_INVALID_GROUP_ID);
    ck_assert_int_eq(heartbeat(&t, "", "m", 1), GR_KERR_INVALID_GROUP_ID);
    /* OffsetCommit and OffsetFetch accept "" */
    ck_assert_int_eq(gr_group_check(t.g, &empty, true), GR_KERR_NONE);
    ck_assert_int_eq(commit(&t, "", "", -1, 3), GR_KERR_NONE);
    ck_assert_int_eq(fetched(&t, "", "t", 0, NULL), 3);
    /* OffsetDelete does not (Kafka's deleteOffsets: isGroupIdNotEmpty),
     * and the offset stays */
    {
        gr_group_delete_part_t dp;
        memset(&dp, 0, sizeof dp);
        dp.topic = S("t");
        dp.partition = 0;
        ck_assert_int_eq(gr_group_delete_offsets(t.g, &empty, &dp, 1),
                         GR_KERR_INVALID_GROUP_ID);
        ck_assert_int_eq(fetched(&t, "", "t", 0, NULL), 3);
    }
    /* session timeout bounds */
    ck_assert(!join_full(&t, "g", "", NULL, "range", 5, 100, false, false, &j));
    ck_assert_int_eq(j.err, GR_KERR_INVALID_SESSION_TIMEOUT);
    ck_assert(
        !join_full(&t, "g", "", NULL, "range", 60001, 100, false, false, &j));
    ck_assert_int_eq(j.err, GR_KERR_INVALID_SESSION_TIMEOUT);
    /* the partition is not led here */
    {
        gr_topic_t *tp = gr_cluster_topic_cstr(t.cluster, "__consumer_offsets");
        gr_str_t g = S("g");
        int32_t p = gr_cluster_coord_partition(&g, tp->nparts);
        tp->parts[p]->leader = 2;
        ck_assert(!join(&t, "g", "", &j));
        ck_assert_int_eq(j.err, GR_KERR_NOT_COORDINATOR);
        ck_assert_int_eq(commit(&t, "g", "", -1, 1), GR_KERR_NOT_COORDINATOR);
        tp->parts[p]->leader = 1;
    }
    gt_fini(&t);
}
END_TEST

/* --- flows */

START_TEST(test_member_id_required)
{
    gt_t t;
    jres_t j, j2;
    char id[128];
    gt_init(&t);
    ck_assert(
        !join_full(&t, "g", "", NULL, "range", 10000, 10000, true, false, &j));
    ck_assert_int_eq(j.err, GR_KERR_MEMBER_ID_REQUIRED);
    ck_assert_int_eq(j.gen, -1);
    ck_assert(strncmp(j.member, "cli-", 4) == 0);
    ck_assert_int_eq(strlen(j.member), 4 + 36);
    strcpy(id, j.member);
    /* the id handed out is accepted */
    ck_assert(
        join_full(&t, "g", id, NULL, "range", 10000, 10000, true, false, &j2));
    wait_fired(&t, &j2.fired);
    ck_assert_int_eq(j2.fired, 1);
    ck_assert_int_eq(j2.err, GR_KERR_NONE);
    ck_assert_str_eq(j2.member, id);
    ck_assert_str_eq(j2.leader, id);
    ck_assert_int_eq(j2.gen, 1);
    ck_assert_int_eq(j2.nmembers, 1);
    /* an id never handed out is not */
    ck_assert(!join_full(&t, "g", "made-up", NULL, "range", 10000, 10000, true,
                         false, &j));
    ck_assert_int_eq(j.err, GR_KERR_UNKNOWN_MEMBER_ID);
    gt_fini(&t);
}
END_TEST

START_TEST(test_pending_member_expires)
{
    gt_t t;
    jres_t j;
    gt_init(&t);
    ck_assert(!join_full(&t, "g", "", NULL, "range", 50, 50, true, false, &j));
    ck_assert_int_eq(j.err, GR_KERR_MEMBER_ID_REQUIRED);
    gr_loop_run_for(t.loop, 150);
    {
        char id[128];
        strcpy(id, j.member);
        ck_assert(
            !join_full(&t, "g", id, NULL, "range", 50, 50, true, false, &j));
        ck_assert_int_eq(j.err, GR_KERR_UNKNOWN_MEMBER_ID);
    }
    gt_fini(&t);
}
END_TEST

START_TEST(test_protocol_votes_and_leader)
{
    gt_t t;
    jres_t a, b, c, d;
    gt_init(&t);
    t.cfg.initial_rebalance_delay_ms = 50;
    gr_groups_destroy(t.g);
    t.g = gr_groups_new(t.loop, t.cluster, 1, &t.cfg);
    gr_groups_start(t.g);
    gr_groups_load_all_now(t.g);
    /* range is everyone's, roundrobin two members' first choice */
    ck_assert(join_full(&t, "g", "", NULL, "range,roundrobin", 10000, 10000,
                        false, false, &a));
    ck_assert(join_full(&t, "g", "", NULL, "roundrobin,range", 10000, 10000,
                        false, false, &b));
    ck_assert(join_full(&t, "g", "", NULL, "roundrobin,range,sticky", 10000,
                        10000, false, false, &c));
    /* no common protocol with the group */
    ck_assert(!join_full(&t, "g", "", NULL, "sticky", 10000, 10000, false,
                         false, &d));
    ck_assert_int_eq(d.err, GR_KERR_INCONSISTENT_GROUP_PROTOCOL);
    gr_loop_run_for(t.loop, 200);
    ck_assert_int_eq(a.fired + b.fired + c.fired, 3);
    ck_assert_str_eq(a.proto, "roundrobin");
    ck_assert_int_eq(a.gen, 1);
    /* the first member leads and alone gets the members */
    ck_assert_str_eq(a.leader, a.member);
    ck_assert_str_eq(b.leader, a.member);
    ck_assert_int_eq(a.nmembers, 3);
    ck_assert_int_eq(b.nmembers, 0);
    ck_assert_int_eq(c.nmembers, 0);
    gt_fini(&t);
}
END_TEST

START_TEST(test_sync_propagates)
{
    gt_t t;
    jres_t a, b;
    sres_t sa, sb;
    const char *ids[2];
    gt_init(&t);
    ck_assert(join(&t, "g", "", &a));
    ck_assert(join(&t, "g", "", &b));
    wait_fired(&t, &a.fired);
    wait_fired(&t, &b.fired);
    ck_assert_int_eq(a.fired + b.fired, 2);
    ck_assert_str_eq(state(&t, "g"), "CompletingRebalance");
    /* the follower waits for the leader */
    ck_assert(sync_g(&t, "g", b.member, b.gen, false, &sb));
    ck_assert_int_eq(sb.fired, 0);
    ids[0] = a.member;
    ids[1] = b.member;
    ck_assert(!sync_full(&t, "g", a.member, NULL, a.gen, ids, 2, &sa));
    ck_assert_int_eq(sa.err, GR_KERR_NONE);
    ck_assert_int_eq(sb.fired, 1);
    ck_assert_int_eq(sb.err, GR_KERR_NONE);
    ck_assert_str_eq(sb.assignment, "assigned");
    ck_assert_str_eq(state(&t, "g"), "Stable");
    /* a follower joining again with the same metadata: no rebalance */
    ck_assert(!join(&t, "g", b.member, &b));
    ck_assert_int_eq(b.err, GR_KERR_NONE);
    ck_assert_int_eq(b.gen, 1);
    ck_assert_str_eq(state(&t, "g"), "Stable");
    gt_fini(&t);
}
END_TEST

START_TEST(test_rebalance_on_leave_and_pending_sync)
{
    gt_t t;
    jres_t a, b;
    sres_t s;
    gr_kerr_t merr;
    gt_init(&t);
    ck_assert(
        join_full(&t, "g", "", NULL, "range", 10000, 200, false, false, &a));
    ck_assert(
        join_full(&t, "g", "", NULL, "range", 10000, 200, false, false, &b));
    wait_fired(&t, &a.fired);
    wait_fired(&t, &b.fired);
    ck_assert(!sync_full(&t, "g", a.member, NULL, a.gen, NULL, 0, &s));
    ck_assert_str_eq(state(&t, "g"), "Stable");
    /* b never syncs: after the rebalance timeout it is removed */
    for (int i = 0; i < 400 && strcmp(state(&t, "g"), "Stable") == 0; i++)
        gr_loop_run_for(t.loop, 5);
    ck_assert_str_eq(state(&t, "g"), "PreparingRebalance");
    ck_assert_int_eq(heartbeat(&t, "g", a.member, 1),
                     GR_KERR_REBALANCE_IN_PROGRESS);
    ck_assert_int_eq(heartbeat(&t, "g", b.member, 1),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert(!join_full(&t, "g", a.member, NULL, "range", 10000, 200, false,
                         false, &a));
    ck_assert_int_eq(a.err, GR_KERR_NONE);
    ck_assert_int_eq(a.gen, 2);
    ck_assert_int_eq(a.nmembers, 1);
    /* the last member leaves: Empty */
    ck_assert_int_eq(leave(&t, "g", a.member, &merr), GR_KERR_NONE);
    ck_assert_int_eq(merr, GR_KERR_NONE);
    ck_assert_str_eq(state(&t, "g"), "Empty");
    gt_fini(&t);
}
END_TEST

START_TEST(test_session_timeout)
{
    gt_t t;
    jres_t a, b;
    sres_t s;
    gt_init(&t);
    ck_assert(
        join_full(&t, "g", "", NULL, "range", 300, 5000, false, false, &a));
    ck_assert(
        join_full(&t, "g", "", NULL, "range", 300, 5000, false, false, &b));
    wait_fired(&t, &a.fired);
    wait_fired(&t, &b.fired);
    ck_assert(!sync_full(&t, "g", a.member, NULL, a.gen, NULL, 0, &s));
    ck_assert(!sync_full(&t, "g", b.member, NULL, b.gen, NULL, 0, &s));
    /* only a heartbeats */
    for (int i = 0; i < 25 && strcmp(state(&t, "g"), "Stable") == 0; i++) {
        gr_loop_run_for(t.loop, 40);
        heartbeat(&t, "g", a.member, 1);
    }
    ck_assert_str_eq(state(&t, "g"), "PreparingRebalance");
    ck_assert_int_eq(heartbeat(&t, "g", b.member, 1),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert(!join_full(&t, "g", a.member, NULL, "range", 300, 5000, false,
                         false, &a));
    ck_assert_int_eq(a.gen, 2);
    ck_assert_int_eq(a.nmembers, 1);
    gt_fini(&t);
}
END_TEST

START_TEST(test_rebalance_timeout_drops_silent_member)
{
    gt_t t;
    jres_t a, b, a2;
    sres_t s;
    gt_init(&t);
    ck_assert(
        join_full(&t, "g", "", NULL, "range", 10000, 150, false, false, &a));
    ck_assert(
        join_full(&t, "g", "", NULL, "range", 10000, 150, false, false, &b));
    wait_fired(&t, &a.fired);
    wait_fired(&t, &b.fired);
    ck_assert(!sync_full(&t, "g", a.member, NULL, 1, NULL, 0, &s));
    ck_assert(!sync_full(&t, "g", b.member, NULL, 1, NULL, 0, &s));
    /* a rejoins with new metadata; b does not rejoin */
    ck_assert(join_full(&t, "g", a.member, NULL, "roundrobin,range", 10000, 150,
                        false, false, &a2));
    ck_assert_str_eq(state(&t, "g"), "PreparingRebalance");
    heartbeat(&t, "g", b.member, 1); /* alive, but not rejoining */
    gr_loop_run_for(t.loop, 300);
    ck_assert_int_eq(a2.fired, 1);
    ck_assert_int_eq(a2.gen, 2);
    ck_assert_int_eq(a2.nmembers, 1);
    ck_assert_str_eq(a2.proto, "roundrobin");
    ck_assert_int_eq(heartbeat(&t, "g", b.member, 2),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    gt_fini(&t);
}
END_TEST

START_TEST(test_static_member)
{
    gt_t t;
    jres_t a, b, a2, f;
    sres_t s;
    gr_str_t g = S("g"), inst = S("i1");
    char old[128];
    gt_init(&t);
    ck_assert(
        join_full(&t, "g", "", "i1", "range", 10000, 10000, true, false, &a));
    ck_assert(join(&t, "g", "", &b)); /* dynamic, v3 style */
    wait_fired(&t, &a.fired);
    wait_fired(&t, &b.fired);
    ck_assert_int_eq(a.err, GR_KERR_NONE); /* static: no MEMBER_ID_REQUIRED */
    ck_assert(strncmp(a.member, "i1-", 3) == 0);
    ck_assert(!sync_full(&t, "g", a.member, "i1", 1, NULL, 0, &s));
    ck_assert(!sync_g(&t, "g", b.member, 1, false, &s));
    ck_assert_str_eq(state(&t, "g"), "Stable");
    strcpy(old, a.member);
    /* the instance comes back with no member id: no rebalance */
    ck_assert(
        !join_full(&t, "g", "", "i1", "range", 10000, 10000, true, false, &a2));
    ck_assert_int_eq(a2.err, GR_KERR_NONE);
    ck_assert_int_eq(a2.gen, 1);
    ck_assert_str_ne(a2.member, old);
    ck_assert_str_eq(a2.leader, old); /* the old leader id, by design */
    ck_assert_str_eq(state(&t, "g"), "Stable");
    ck_assert_int_eq(heartbeat(&t, "g", b.member, 1), GR_KERR_NONE);
    /* the old id is fenced */
    {
        gr_str_t m = S(old);
        ck_assert_int_eq(gr_group_heartbeat(t.g, &g, &m, &inst, 1),
                         GR_KERR_FENCED_INSTANCE_ID);
        m = S(a2.member);
        ck_assert_int_eq(gr_group_heartbeat(t.g, &g, &m, &inst, 1),
                         GR_KERR_NONE);
    }
    ck_assert(
        !join_full(&t, "g", old, "i1", "range", 10000, 10000, true, false, &f));
    ck_assert_int_eq(f.err, GR_KERR_FENCED_INSTANCE_ID);
    /* its assignment is still there */
    ck_assert(!sync_full(&t, "g", a2.member, "i1", 1, NULL, 0, &s));
    ck_assert_int_eq(s.err, GR_KERR_NONE);
    /* v9: the rejoining static leader learns it leads, skipping the
     * assignment */
    ck_assert(
        !join_full(&t, "g", "", "i1", "range", 10000, 10000, true, true, &f));
    ck_assert_int_eq(f.err, GR_KERR_NONE);
    ck_assert(f.skip);
    ck_assert_str_eq(f.leader, f.member);
    ck_assert_int_eq(f.nmembers, 2);
    /* leaving by instance id alone (KIP-345 admin removal) */
    {
        gr_group_leaver_t l;
        memset(&l, 0, sizeof l);
        l.member_id = S("");
        l.group_instance_id = inst;
        l.reason = GR_STR_NULL;
        ck_assert_int_eq(gr_group_leave(t.g, &g, &l, 1), GR_KERR_NONE);
        ck_assert_int_eq(l.error, GR_KERR_NONE);
    }
    ck_assert_str_eq(state(&t, "g"), "PreparingRebalance");
    gt_fini(&t);
}
END_TEST

/* Kafka's ClassicGroup.validateMember for every request of a member: an
 * instance id no static member has is UNKNOWN_MEMBER_ID, even with a
 * known member id; a known one with another member id is
 * FENCED_INSTANCE_ID. */
static gr_kerr_t
commit_as(gt_t *t, const char *member, const char *inst, int32_t gen)
{
    gr_group_commit_part_t p;
    gr_group_commit_args_t a;
    cres_t c;
    memset(&p, 0, sizeof p);
    p.topic = S("t");
    p.partition = 0;
    p.offset = 9;
    p.leader_epoch = -1;
    p.metadata = S("");
    p.commit_timestamp = -1;
    memset(&a, 0, sizeof a);
    a.group_id = S("g");
    a.member_id = S(member);
    a.group_instance_id = S(inst);
    a.generation_id = gen;
    a.retention_ms = -1;
    a.parts = &p;
    a.nparts = 1;
    memset(&c, 0, sizeof c);
    gr_group_waiter_init(&c.w, commit_cb, &c);
    ck_assert(!gr_group_commit_offsets(t->g, &a, &c.w));
    return p.error;
}

START_TEST(test_validate_member)
{
    gt_t t;
    jres_t a, b;
    sres_t s;
    gr_str_t g = S("g"), i1 = S("i1"), i2 = S("i2"), ma, mb;
    gr_group_leaver_t l;
    gt_init(&t);
    ck_assert(
        join_full(&t, "g", "", "i1", "range", 10000, 10000, true, false, &a));
    ck_assert(join(&t, "g", "", &b));
    wait_fired(&t, &a.fired);
    wait_fired(&t, &b.fired);
    ck_assert(!sync_full(&t, "g", a.member, "i1", 1, NULL, 0, &s));
    ck_assert(!sync_g(&t, "g", b.member, 1, false, &s));
    ck_assert_str_eq(state(&t, "g"), "Stable");
    ma = S(a.member);
    mb = S(b.member);

    /* another instance id than its own */
    ck_assert_int_eq(gr_group_heartbeat(t.g, &g, &ma, &i2, 1),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert(!sync_full(&t, "g", a.member, "i2", 1, NULL, 0, &s));
    ck_assert_int_eq(s.err, GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert_int_eq(commit_as(&t, a.member, "i2", 1),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    memset(&l, 0, sizeof l);
    l.member_id = ma;
    l.group_instance_id = i2;
    l.reason = GR_STR_NULL;
    ck_assert_int_eq(gr_group_leave(t.g, &g, &l, 1), GR_KERR_NONE);
    ck_assert_int_eq(l.error, GR_KERR_UNKNOWN_MEMBER_ID);
    /* a dynamic member naming the static member's instance id */
    ck_assert_int_eq(gr_group_heartbeat(t.g, &g, &mb, &i1, 1),
                     GR_KERR_FENCED_INSTANCE_ID);
    ck_assert_int_eq(commit_as(&t, b.member, "i1", 1),
                     GR_KERR_FENCED_INSTANCE_ID);
    l.member_id = mb;
    l.group_instance_id = i1;
    ck_assert_int_eq(gr_group_leave(t.g, &g, &l, 1), GR_KERR_NONE);
    ck_assert_int_eq(l.error, GR_KERR_FENCED_INSTANCE_ID);
    /* nobody left, nothing rebalanced */
    ck_assert_str_eq(state(&t, "g"), "Stable");
    ck_assert_int_eq(gr_group_heartbeat(t.g, &g, &ma, &i1, 1), GR_KERR_NONE);
    ck_assert_int_eq(heartbeat(&t, "g", b.member, 1), GR_KERR_NONE);
    ck_assert_int_eq(commit_as(&t, a.member, "i1", 1), GR_KERR_NONE);
    gt_fini(&t);
}
END_TEST

/* A commit with no generation while the group is Empty is a simple
 * consumer's, whatever member id it names (Kafka's validateOffsetCommit);
 * with members it is UNKNOWN_MEMBER_ID. */
START_TEST(test_commit_no_generation)
{
    gt_t t;
    char member[128];
    int32_t gen;
    gr_kerr_t merr;
    gt_init(&t);
    make_stable(&t, "g", member, &gen);
    ck_assert_int_eq(commit(&t, "g", "", -1, 4), GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert_int_eq(commit(&t, "g", "someone", -1, 4),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert_int_eq(leave(&t, "g", member, &merr), GR_KERR_NONE);
    ck_assert_str_eq(state(&t, "g"), "Empty");
    ck_assert_int_eq(commit(&t, "g", "someone", -1, 4), GR_KERR_NONE);
    ck_assert_int_eq(commit_as(&t, "someone", "i9", -1), GR_KERR_NONE);
    ck_assert_int_eq(fetched(&t, "g", "t", 0, NULL), 9);
    /* a generation is still checked */
    ck_assert_int_eq(commit(&t, "g", "someone", gen + 1, 4),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    gt_fini(&t);
}
END_TEST

START_TEST(test_leave_batch)
{
    gt_t t;
    jres_t a, b;
    gr_group_leaver_t l[3];
    gr_str_t g = S("g");
    gt_init(&t);
    ck_assert(join(&t, "g", "", &a));
    ck_assert(join(&t, "g", "", &b));
    wait_fired(&t, &a.fired);
    wait_fired(&t, &b.fired);
    memset(l, 0, sizeof l);
    l[0].member_id = S(a.member);
    l[1].member_id = S("nobody");
    l[2].member_id = S(b.member);
    for (int i = 0; i < 3; i++)
        l[i].group_instance_id = l[i].reason = GR_STR_NULL;
    ck_assert_int_eq(gr_group_leave(t.g, &g, l, 3), GR_KERR_NONE);
    ck_assert_int_eq(l[0].error, GR_KERR_NONE);
    ck_assert_int_eq(l[1].error, GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert_int_eq(l[2].error, GR_KERR_NONE);
    ck_assert_str_eq(state(&t, "g"), "Empty");
    gt_fini(&t);
}
END_TEST

START_TEST(test_max_size)
{
    gt_t t;
    jres_t j;
    char m[128];
    int32_t gen;
    gt_init(&t);
    t.cfg.max_size = 1;
    gr_groups_destroy(t.g);
    t.g = gr_groups_new(t.loop, t.cluster, 1, &t.cfg);
    gr_groups_start(t.g);
    gr_groups_load_all_now(t.g);
    make_stable(&t, "g", m, &gen);
    ck_assert(!join(&t, "g", "", &j));
    ck_assert_int_eq(j.err, GR_KERR_GROUP_MAX_SIZE_REACHED);
    ck_assert_int_eq(heartbeat(&t, "g", m, gen), GR_KERR_NONE);
    gt_fini(&t);
}
END_TEST

/* A request whose connection closed is never answered; the group goes
 * on as if it had been. */
START_TEST(test_cancelled_waiter)
{
    gt_t t;
    jres_t a;
    sres_t s;
    char id[128];
    gt_init(&t);
    ck_assert(
        join_full(&t, "g", "", NULL, "range", 10000, 10000, false, false, &a));
    gr_group_waiter_cancel(&a.w);
    for (int i = 0; i < 1000 && strcmp(state(&t, "g"), "CompletingRebalance");
         i++)
        gr_loop_run_for(t.loop, 5);
    ck_assert_int_eq(a.fired, 0);
    ck_assert_str_eq(state(&t, "g"), "CompletingRebalance");
    /* the member exists: its id is in the group's description */
    {
        gr_arena_t *ar = gr_arena_new(1024);
        gr_group_summary_t sum;
        gr_str_t g = S("g");
        ck_assert_int_eq(gr_group_describe(t.g, &g, ar, &sum), GR_KERR_NONE);
        ck_assert_int_eq(sum.nmembers, 1);
        strcpy(id, sum.members[0].member_id);
        gr_arena_destroy(ar);
    }
    /* a sync held and cancelled */
    ck_assert(!sync_g(&t, "g", id, 1, true, &s));
    ck_assert_int_eq(s.err, GR_KERR_NONE);
    gt_fini(&t);
}
END_TEST

static void
count_cb(void *arg, const char *topic, int32_t partition,
         const gr_group_offset_t *go)
{
    int *n = arg;
    (void)go;
    (void)partition;
    /* "a" before "t" */
    ck_assert_str_eq(topic, *n == 0 ? "a" : "t");
    (*n)++;
}

START_TEST(test_offsets)
{
    gt_t t;
    gr_group_offset_t o;
    char m[128];
    int32_t gen;
    gt_init(&t);
    /* a simple consumer: metadata, leader epoch */
    ck_assert_int_eq(commit_full(&t, "s", "", -1, "t", 1, 42, "hello", -1),
                     GR_KERR_NONE);
    ck_assert_int_eq(fetched(&t, "s", "t", 1, &o), 42);
    ck_assert(gr_str_eq_cstr(&o.metadata, "hello"));
    ck_assert_int_eq(o.leader_epoch, 7);
    ck_assert_int_eq(fetched(&t, "s", "t", 2, &o), -1);
    ck_assert(gr_str_eq_cstr(&o.metadata, ""));
    ck_assert_int_eq(o.leader_epoch, -1);
    /* offset.metadata.max.bytes (16 here) */
    ck_assert_int_eq(
        commit_full(&t, "s", "", -1, "t", 1, 43, "0123456789abcdefX", -1),
        GR_KERR_OFFSET_METADATA_TOO_LARGE);
    ck_assert_int_eq(fetched(&t, "s", "t", 1, NULL), 42);
    /* a member commits with its generation only */
    make_stable(&t, "g", m, &gen);
    ck_assert_int_eq(commit(&t, "g", m, gen, 10), GR_KERR_NONE);
    ck_assert_int_eq(commit(&t, "g", m, gen + 1, 11),
                     GR_KERR_ILLEGAL_GENERATION);
    ck_assert_int_eq(commit(&t, "g", "other", gen, 11),
                     GR_KERR_UNKNOWN_MEMBER_ID);
    ck_assert_int_eq(fetched(&t, "g", "t", 0, NULL), 10);
    /* all offsets, sorted */
    ck_assert_int_eq(commit_full(&t, "s", "", -1, "a", 0, 1, NULL, -1),
                     GR_KERR_NONE);
    {
        int n = 0;
        gr_str_t s = S("s");
        gr_group_offsets_foreach(t.g, &s, false, count_cb, &n);
        ck_assert_int_eq(n, 2);
    }
    gt_fini(&t);
}
END_TEST

/* flush.messages=1: the commit is answered once the flush is done; a
 * cancelled waiter is not called. */
START_TEST(test_commit_waits_for_flush)
{
    gt_t t;
    gr_group_commit_part_t p;
    gr_group_commit_args_t a;
    cres_t c;
    gt_init(&t);
    t.flush_messages = 1;
    gt_reopen(&t, true);
    for (int round = 0; round < 2; round++) {
        memset(&p, 0, sizeof p);
        p.topic = S("t");
        p.offset = 11 + round;
        p.leader_epoch = -1;
        p.metadata = GR_STR_NULL;
        p.commit_timestamp = -1;
        memset(&a, 0, sizeof a);
        a.group_id = S("f");
        a.member_id = S("");
        a.group_instance_id = GR_STR_NULL;
        a.generation_id = -1;
        a.retention_ms = -1;
        a.parts = &p;
        a.nparts = 1;
        memset(&c, 0, sizeof c);
        gr_group_waiter_init(&c.w, commit_cb, &c);
        ck_assert(gr_group_commit_offsets(t.g, &a, &c.w));
        ck_assert_int_eq(c.fired, 0);
        ck_assert_int_eq(p.error, GR_KERR_NONE);
        if (round == 1)
            gr_group_waiter_cancel(&c.w);
        for (int i = 0; i < 500 && !c.fired; i++)
            gr_loop_run_for(t.loop, 5);
        gr_loop_run_for(t.loop, 20);
        ck_assert_int_eq(c.fired, round == 0 ? 1 : 0);
        ck_assert_int_eq(c.flush, GR_KERR_NONE);
        ck_assert_int_eq(fetched(&t, "f", "t", 0, NULL), 11 + round);
    }
    gt_fini(&t);
}
END_TEST

START_TEST(test_persistence)
{
    gt_t t;
    char m[128];
    int32_t gen;
    gr_group_offset_t o;
    gr_str_t g = S("g");
    gt_init(&t);
    make_stable(&t, "g", m, &gen);
    ck_assert_int_eq(commit_full(&t, "g", m, gen, "t", 2, 77, "meta", -1),
                     GR_KERR_NONE);
    ck_assert_int_eq(commit(&t, "simple", "", -1, 5), GR_KERR_NONE);
    ck_assert_int_eq(commit(&t, "gone", "", -1, 5), GR_KERR_NONE);
    ck_assert_int_eq(commit(&t, "deloff", "", -1, 9), GR_KERR_NONE);
    {
        gr_str_t d = S("gone");
        ck_assert_int_eq(gr_group_delete(t.g, &d), GR_KERR_NONE);
    }
    {
        gr_group_delete_part_t p;
        gr_str_t d = S("deloff");
        memset(&p, 0, sizeof p);
        p.topic = S("t");
        ck_assert_int_eq(gr_group_delete_offsets(t.g, &d, &p, 1), GR_KERR_NONE);
        ck_assert_int_eq(p.error, GR_KERR_NONE);
    }
    gt_reopen(&t, true);
    ck_assert_int_eq(fetched(&t, "g", "t", 2, &o), 77);
    ck_assert(gr_str_eq_cstr(&o.metadata, "meta"));
    ck_assert_int_eq(o.leader_epoch, 7);
    ck_assert_int_eq(fetched(&t, "simple", "t", 0, NULL), 5);
    ck_assert_str_eq(state(&t, "gone"), "Dead");
    ck_assert_int_eq(fetched(&t, "gone", "t", 0, NULL), -1);
    ck_assert_str_eq(state(&t, "deloff"), "Dead");
    /* the group comes back Stable, with its member and generation */
    ck_assert_str_eq(state(&t, "g"), "Stable");
    ck_assert_int_eq(heartbeat(&t, "g", m, gen), GR_KERR_NONE);
    {
        gr_arena_t *a = gr_arena_new(1024);
        gr_group_summary_t s;
        ck_assert_int_eq(gr_group_describe(t.g, &g, a, &s), GR_KERR_NONE);
        ck_assert_int_eq(s.nmembers, 1);
        ck_assert_str_eq(s.members[0].member_id, m);
        ck_assert_str_eq(s.members[0].client_host, "/127.0.0.1");
        ck_assert_int_eq(s.members[0].assignment.len, 8);
        ck_assert_str_eq(s.protocol, "range");
        gr_arena_destroy(a);
    }
    /* and the member must keep heartbeating (session 10 s here: the sync
     * answers from the stored assignment) */
    {
        sres_t s;
        ck_assert(!sync_g(&t, "g", m, gen, false, &s));
        ck_assert_int_eq(s.err, GR_KERR_NONE);
        ck_assert_str_eq(s.assignment, "assigned");
    }
    gt_fini(&t);
}
END_TEST

START_TEST(test_load_in_progress)
{
    gt_t t;
    gr_str_t g = S("many");
    jres_t j;
    sres_t s;
    gt_init(&t);
    for (int i = 0; i < 300; i++)
        ck_assert_int_eq(
            commit_full(&t, "many", "", -1, "t", i % 4, i, "x", -1),
            GR_KERR_NONE);
    t.cfg.load_bytes_per_turn = 256; /* a few batches per loop turn */
    gt_reopen(&t, false);
    ck_assert(gr_groups_loading(t.g));
    ck_assert_int_eq(gr_group_check(t.g, &g, true),
                     GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
    ck_assert(!join(&t, "many", "", &j));
    ck_assert_int_eq(j.err, GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
    /* older clients' answers while loading */
    ck_assert_int_eq(heartbeat(&t, "many", "m", 1), GR_KERR_NONE);
    ck_assert(!sync_g(&t, "many", "m", 1, false, &s));
    ck_assert_int_eq(s.err, GR_KERR_REBALANCE_IN_PROGRESS);
    {
        gr_arena_t *a = gr_arena_new(1024);
        gr_group_overview_t *v;
        int32_t n;
        ck_assert_int_eq(gr_groups_list(t.g, a, &v, &n),
                         GR_KERR_COORDINATOR_LOAD_IN_PROGRESS);
        gr_arena_destroy(a);
    }
    for (int i = 0; i < 200 && gr_groups_loading(t.g); i++)
        gr_loop_run_for(t.loop, 5);
    ck_assert(!gr_groups_loading(t.g));
    ck_assert_int_eq(gr_group_check(t.g, &g, true), GR_KERR_NONE);
    for (int p = 0; p < 4; p++)
        ck_assert_int_eq(fetched(&t, "many", "t", p, NULL), 296 + p);
    gt_fini(&t);
}
END_TEST

/* Stopping while members are half loaded frees them cleanly. */
START_TEST(test_destroy_while_loading)
{
    gt_t t;
    char m[128];
    int32_t gen;
    gt_init(&t);
    for (int i = 0; i < 60; i++) {
        char g[16];
        snprintf(g, sizeof g, "s%d", i);
        make_stable(&t, g, m, &gen);
    }
    t.cfg.load_bytes_per_turn = 100;
    gt_reopen(&t, false);
    ck_assert(gr_groups_loading(t.g));
    gr_loop_run_for(t.loop, 1); /* some turns: groups half loaded */
    gt_reopen(&t, false);
    for (int i = 0; i < 500 && gr_groups_loading(t.g); i++)
        gr_loop_run_for(t.loop, 2);
    ck_assert(!gr_groups_loading(t.g));
    ck_assert_str_eq(state(&t, "s59"), "Stable");
    gt_fini(&t);
}
END_TEST

START_TEST(test_retention)
{
    gt_t t;
    char m[128];
    int32_t gen;
    gr_kerr_t merr;
    int64_t later;
    gt_init(&t);
    later = gr_wall_ms() + t.cfg.offsets_retention_ms + 1000;
    /* simple consumer: by commit time; the group goes with its offsets */
    ck_assert_int_eq(commit(&t, "simple", "", -1, 1), GR_KERR_NONE);
    /* v2-v4 explicit retention: by expire timestamp */
    ck_assert_int_eq(commit_full(&t, "explicit", "", -1, "t", 0, 1, "", 1),
                     GR_KERR_NONE);
    /* a stable consumer group keeps the offsets of what it subscribes to */
    make_stable(&t, "stable", m, &gen);
    ck_assert_int_eq(commit(&t, "stable", m, gen, 4), GR_KERR_NONE);
    ck_assert_int_eq(commit_full(&t, "stable", m, gen, "other", 0, 4, "", -1),
                     GR_KERR_NONE);
    /* an empty group: from when it became empty */
    make_stable(&t, "empty", m, &gen);
    ck_assert_int_eq(commit(&t, "empty", m, gen, 4), GR_KERR_NONE);
    ck_assert_int_eq(leave(&t, "empty", m, &merr), GR_KERR_NONE);

    ck_assert_int_eq(gr_groups_expire_offsets(t.g, gr_wall_ms() + 100), 1);
    ck_assert_str_eq(state(&t, "explicit"), "Dead");
    ck_assert_int_eq(gr_groups_expire_offsets(t.g, later), 3);
    ck_assert_str_eq(state(&t, "simple"), "Dead");
    ck_assert_str_eq(state(&t, "empty"), "Dead");
    ck_assert_int_eq(fetched(&t, "stable", "t", 0, NULL), 4);
    ck_assert_int_eq(fetched(&t, "stable", "other", 0, NULL), -1);
    /* and that survives a restart (the tombstones are in the log) */
    gt_reopen(&t, true);
    ck_assert_str_eq(state(&t, "simple"), "Dead");
    ck_assert_int_eq(fetched(&t, "stable", "other", 0, NULL), -1);
    ck_assert_int_eq(fetched(&t, "stable", "t", 0, NULL), 4);
    gt_fini(&t);
}
END_TEST

START_TEST(test_records_format)
{
    /* what lands in __consumer_offsets: key v1 / value v3 offsets and a
     * key v2 group record, as Kafka 2.3-3.x write them */
    gt_t t;
    gr_topic_t *tp;
    gr_str_t g = S("fmt");
    gr_partition_t *p;
    gr_log_slice_t sl;
    gr_buf_t b = GR_BUF_INIT;
    gt_init(&t);
    ck_assert_int_eq(commit_full(&t, "fmt", "", -1, "t", 3, 99, "md", -1),
                     GR_KERR_NONE);
    tp = gr_cluster_topic_cstr(t.cluster, "__consumer_offsets");
    p = tp->parts[gr_cluster_coord_partition(&g, tp->nparts)];
    ck_assert_int_eq(gr_log_end_offset(p->log), 1);
    ck_assert_int_eq(gr_log_read(p->log, 0, 4096, 1, true, &sl), 0);
    ck_assert(gr_logtest_read_slice(&sl, &b));
    {
        /* the record's key: 00 01 | 00 03 "fmt" | 00 01 "t" | 00 00 00 03 */
        static const uint8_t key[] = { 0, 1, 0,   3, 'f', 'm', 't',
                                       0, 1, 't', 0, 0,   0,   3 };
        /* value: 00 03 | offset 99 | epoch 7 | 00 02 "md" | ts */
        static const uint8_t val[] = { 0,  3, 0, 0, 0, 0, 0, 0,   0,
                                       99, 0, 0, 0, 7, 0, 2, 'm', 'd' };
        ck_assert(memmem(b.ptr, b.len, key, sizeof key) != NULL);
        ck_assert(memmem(b.ptr, b.len, val, sizeof val) != NULL);
    }
    gr_buf_fini(&b);
    gt_fini(&t);
}
END_TEST

Suite *
suite_group_group(void)
{
    Suite *s = suite_create("group/group");
    TCase *tc = tcase_create("group");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_state_x_request);
    tcase_add_test(tc, test_subscribed_topics);
    tcase_add_test(tc, test_group_id_with_nul);
    tcase_add_test(tc, test_coordinator_errors);
    tcase_add_test(tc, test_member_id_required);
    tcase_add_test(tc, test_pending_member_expires);
    tcase_add_test(tc, test_protocol_votes_and_leader);
    tcase_add_test(tc, test_sync_propagates);
    tcase_add_test(tc, test_rebalance_on_leave_and_pending_sync);
    tcase_add_test(tc, test_session_timeout);
    tcase_add_test(tc, test_rebalance_timeout_drops_silent_member);
    tcase_add_test(tc, test_static_member);
    tcase_add_test(tc, test_validate_member);
    tcase_add_test(tc, test_commit_no_generation);
    tcase_add_test(tc, test_leave_batch);
    tcase_add_test(tc, test_max_size);
    tcase_add_test(tc, test_cancelled_waiter);
    tcase_add_test(tc, test_offsets);
    tcase_add_test(tc, test_commit_waits_for_flush);
    tcase_add_test(tc, test_persistence);
    tcase_add_test(tc, test_load_in_progress);
    tcase_add_test(tc, test_destroy_while_loading);
    tcase_add_test(tc, test_retention);
    tcase_add_test(tc, test_records_format);
    suite_add_tcase(s, tc);
    return s;
}
