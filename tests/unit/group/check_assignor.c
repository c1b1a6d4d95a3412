/*
 * The server-side assignors (src/group/assignor.c): the range assignor
 * against the expected outputs of Kafka's RangeAssignorTest (first
 * assignments, static members ordered by instance id), the uniform
 * assignor's homogeneous and heterogeneous algorithms against outcomes
 * worked out by hand from Kafka 4.4's UniformHomogeneousAssignmentBuilder
 * and UniformHeterogeneousAssignmentBuilder, and, on random groups, the
 * properties Kafka's tests assert: every subscribed partition assigned
 * once to a subscriber, balance, and stickiness (a second run changes
 * nothing).
 */
#include "../unit.h"
#include "group/assignor.h"

#include <stdarg.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#define MAXT 8
#define MAXM 16
#define MAXP 64

typedef struct fix {
    gr_asg_topic_t t[MAXT];
    int32_t owner[MAXT][MAXP];
    gr_asg_member_t m[MAXM];
    int32_t subs[MAXM][MAXT];
    char ids[MAXM][16];
    gr_asg_spec_t s;
} fix_t;

static void
fix_init(fix_t *f, int nt, const int *nparts, int nm, bool homog)
{
    memset(f, 0, sizeof(*f));
    for (int i = 0; i < nt; i++) {
        static const char *names[] = { "t1", "t2", "t3", "t4",
                                       "t5", "t6", "t7", "t8" };
        f->t[i].name = names[i];
        f->t[i].id.b[0] = (uint8_t)(0x10 * (i + 1)); /* ids in name order */
        f->t[i].nparts = nparts[i];
        f->t[i].owner = f->owner[i];
        for (int p = 0; p < MAXP; p++)
            f->owner[i][p] = -1;
    }
    for (int i = 0; i < nm; i++) {
        snprintf(f->ids[i], sizeof f->ids[i], "member%c", 'A' + i);
        f->m[i].member_id = f->ids[i];
        f->m[i].topics = f->subs[i];
    }
    f->s.topics = f->t;
    f->s.ntopics = nt;
    f->s.members = f->m;
    f->s.nmembers = nm;
    f->s.homogeneous = homog;
}

/* Member i subscribes to the topics listed (indexes, ascending, -1 ends). */
static void
sub(fix_t *f, int i, ...)
{
    va_list ap;
    int t;
    va_start(ap, i);
    f->m[i].ntopics = 0;
    while ((t = va_arg(ap, int)) >= 0)
        f->subs[i][f->m[i].ntopics++] = t;
    va_end(ap);
}

/* The partitions of topic t member m owns, as "0,1" */
static const char *
owned(const fix_t *f, int t, int m)
{
    static char buf[8][128];
    static int next;
    char *b = buf[next++ % 8];
    size_t n = 0;
    b[0] = '\0';
    for (int p = 0; p < f->t[t].nparts; p++)
        if (f->owner[t][p] == m)
            n += (size_t)snprintf(b + n, 128 - n, "%s%d", n ? "," : "", p);
    return b;
}

static int
size_of(const fix_t *f, int m)
{
    int n = 0;
    for (int t = 0; t < f->s.ntopics; t++)
        for (int p = 0; p < f->t[t].nparts; p++)
            n += f->owner[t][p] == m;
    return n;
}

static bool
subscribes(const fix_t *f, int m, int t)
{
    for (int i = 0; i < f->m[m].ntopics; i++)
        if (f->m[m].topics[i] == t)
            return true;
    return false;
}

/* Every partition of a subscribed topic has one owner, a subscriber; the
 * others none. */
static void
check_complete(const fix_t *f)
{
    for (int t = 0; t < f->s.ntopics; t++) {
        bool any = false;
        for (int m = 0; m < f->s.nmembers; m++)
            any |= subscribes(f, m, t);
        for (int p = 0; p < f->t[t].nparts; p++) {
            int o = f->owner[t][p];
            if (!any) {
                ck_assert_int_eq(o, -1);
                continue;
            }
            ck_assert_msg(o >= 0 && o < f->s.nmembers, "t%d-%d: owner %d", t, p,
                          o);
            ck_assert_msg(subscribes(f, o, t),
                          "t%d-%d: owner %d not subscribed", t, p, o);
        }
    }
}

/* Kafka's assertion of a balanced uniform assignment: a member with two
 * partitions more than another owns none of a topic the other takes. */
static void
check_balanced(const fix_t *f)
{
    for (int a = 0; a < f->s.nmembers; a++)
        for (int b = 0; b < f->s.nmembers; b++) {
            if (size_of(f, a) <= size_of(f, b) + 1)
                continue;
            for (int t = 0; t < f->s.ntopics; t++)
                if (subscribes(f, b, t))
                    ck_assert_msg(owned(f, t, a)[0] == '\0',
                                  "member %d (%d) could give member %d (%d) a "
                                  "partition of t%d",
                                  a, size_of(f, a), b, size_of(f, b), t);
        }
}

/* --- range: RangeAssignorTest's first assignments */

START_TEST(test_range_two_members_two_topics)
{
    fix_t f;
    int np[] = { 3, 0, 2 }; /* topic1: 3, topic3: 2 (t2 unused) */
    fix_init(&f, 3, np, 2, true);
    sub(&f, 0, 0, 2, -1);
    sub(&f, 1, 0, 2, -1);
    ck_assert_int_eq(gr_assign_range(&f.s), 0);
    ck_assert_str_eq(owned(&f, 0, 0), "0,1");
    ck_assert_str_eq(owned(&f, 2, 0), "0");
    ck_assert_str_eq(owned(&f, 0, 1), "2");
    ck_assert_str_eq(owned(&f, 2, 1), "1");
}
END_TEST

START_TEST(test_range_three_members_different_subscriptions)
{
    fix_t f;
    int np[] = { 3, 3, 2 };
    fix_init(&f, 3, np, 3, false);
    sub(&f, 0, 0, 1, -1); /* A: topic1, topic2 */
    sub(&f, 1, 2, -1);    /* B: topic3 */
    sub(&f, 2, 1, 2, -1); /* C: topic2, topic3 */
    ck_assert_int_eq(gr_assign_range(&f.s), 0);
    ck_assert_str_eq(owned(&f, 0, 0), "0,1,2");
    ck_assert_str_eq(owned(&f, 1, 0), "0,1");
    ck_assert_str_eq(owned(&f, 2, 1), "0");
    ck_assert_str_eq(owned(&f, 1, 2), "2");
    ck_assert_str_eq(owned(&f, 2, 2), "1");
}
END_TEST

START_TEST(test_range_more_members_than_partitions)
{
    fix_t f;
    int np[] = { 3, 0, 2 };
    fix_init(&f, 3, np, 3, true);
    for (int m = 0; m < 3; m++)
        sub(&f, m, 0, 2, -1);
    ck_assert_int_eq(gr_assign_range(&f.s), 0);
    ck_assert_str_eq(owned(&f, 0, 0), "0");
    ck_assert_str_eq(owned(&f, 2, 0), "0");
    ck_assert_str_eq(owned(&f, 0, 1), "1");
    ck_assert_str_eq(owned(&f, 2, 1), "1");
    ck_assert_str_eq(owned(&f, 0, 2), "2");
    ck_assert_str_eq(owned(&f, 2, 2), "");
}
END_TEST

/* RangeAssignorTest.testMixedStaticMembership: instance ids sort first,
 * then member ids; a static member back under another member id keeps
 * its range */
START_TEST(test_range_static_members_first)
{
    fix_t f;
    int np[] = { 5 };
    char before[3][16];
    fix_init(&f, 1, np, 3, true);
    for (int m = 0; m < 3; m++)
        sub(&f, m, 0, -1);
    f.m[0].instance_id = "instanceA";
    f.m[1].member_id = "a-dynamic"; /* sorts before the others by id */
    f.m[2].instance_id = "instanceC";
    ck_assert_int_eq(gr_assign_range(&f.s), 0);
    ck_assert_str_eq(owned(&f, 0, 0), "0,1");
    ck_assert_str_eq(owned(&f, 0, 2), "2,3");
    ck_assert_str_eq(owned(&f, 0, 1), "4");
    for (int m = 0; m < 3; m++)
        snprintf(before[m], sizeof before[m], "%s", owned(&f, 0, m));
    f.m[0].member_id = "memberA1"; /* instanceA rejoined */
    ck_assert_int_eq(gr_assign_range(&f.s), 0);
    for (int m = 0; m < 3; m++)
        ck_assert_str_eq(owned(&f, 0, m), before[m]);
}
END_TEST

/* --- uniform, homogeneous (worked through UniformHomogeneous-
 * AssignmentBuilder) */

START_TEST(test_uniform_first_assignment)
{
    fix_t f;
    int np[] = { 3, 2 };
    fix_init(&f, 2, np, 2, true);
    sub(&f, 0, 0, 1, -1);
    sub(&f, 1, 0, 1, -1);
    ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
    /* 5 partitions: quotas 2 and 3; the unassigned list in topic order */
    ck_assert_str_eq(owned(&f, 0, 0), "0,1");
    ck_assert_str_eq(owned(&f, 1, 0), "");
    ck_assert_str_eq(owned(&f, 0, 1), "2");
    ck_assert_str_eq(owned(&f, 1, 1), "0,1");
    check_complete(&f);
    check_balanced(&f);
}
END_TEST

START_TEST(test_uniform_sticky_when_a_member_joins)
{
    fix_t f;
    int np[] = { 6 };
    fix_init(&f, 1, np, 2, true);
    sub(&f, 0, 0, -1);
    sub(&f, 1, 0, -1);
    ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
    ck_assert_str_eq(owned(&f, 0, 0), "0,1,2");
    ck_assert_str_eq(owned(&f, 0, 1), "3,4,5");
    /* a third member: each keeps its first two, the third gets the rest */
    f.s.nmembers = 3;
    snprintf(f.ids[2], sizeof f.ids[2], "memberC");
    f.m[2].member_id = f.ids[2];
    f.m[2].topics = f.subs[2];
    sub(&f, 2, 0, -1);
    ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
    ck_assert_str_eq(owned(&f, 0, 0), "0,1");
    ck_assert_str_eq(owned(&f, 0, 1), "3,4");
    ck_assert_str_eq(owned(&f, 0, 2), "2,5");
    /* a member leaves: its partitions go to who is short */
    for (int p = 0; p < 6; p++)
        if (f.owner[0][p] == 1)
            f.owner[0][p] = -1;
        else if (f.owner[0][p] == 2)
            f.owner[0][p] = 1;
    f.s.nmembers = 2;
    f.m[1] = f.m[2];
    ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
    ck_assert_str_eq(owned(&f, 0, 0), "0,1,3");
    ck_assert_str_eq(owned(&f, 0, 1), "2,4,5");
    check_complete(&f);
}
END_TEST

/* The extra partitions stay with those that have them when the counts do
 * not divide (Kafka's remainingMembersToGetAnExtraPartition). */
START_TEST(test_uniform_extra_partitions_stay)
{
    fix_t f;
    int np[] = { 7 };
    fix_init(&f, 1, np, 3, true);
    for (int m = 0; m < 3; m++)
        sub(&f, m, 0, -1);
    /* before: A 0,1 (2), B 2,3,4 (3), C 5,6 (2): quotas 3,2,2 in order */
    f.owner[0][0] = f.owner[0][1] = 0;
    f.owner[0][2] = f.owner[0][3] = f.owner[0][4] = 1;
    f.owner[0][5] = f.owner[0][6] = 2;
    ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
    ck_assert_str_eq(owned(&f, 0, 0), "0,1");
    ck_assert_str_eq(owned(&f, 0, 1), "2,3,4");
    ck_assert_str_eq(owned(&f, 0, 2), "5,6");
}
END_TEST

/* --- uniform, heterogeneous */

START_TEST(test_uniform_heterogeneous_first)
{
    fix_t f;
    int np[] = { 3, 3, 2 };
    fix_init(&f, 3, np, 3, false);
    sub(&f, 0, 0, 1, -1); /* A: t1, t2 */
    sub(&f, 1, 2, -1);    /* B: t3 */
    sub(&f, 2, 1, 2, -1); /* C: t2, t3 */
    ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
    /* topics by partitions per subscriber: t1 (3/1), t2 (3/2), t3 (2/2);
     * t1 all to A; t2 to the least loaded of A and C: all to C, A has
     * three already; t3 all to B; the balance pass then finds nothing
     * more than one apart (3, 2, 3) */
    ck_assert_str_eq(owned(&f, 0, 0), "0,1,2");
    ck_assert_str_eq(owned(&f, 1, 2), "0,1,2");
    ck_assert_str_eq(owned(&f, 2, 1), "0,1");
    check_complete(&f);
    check_balanced(&f);
}
END_TEST

START_TEST(test_uniform_heterogeneous_sticky)
{
    fix_t f;
    int np[] = { 4, 4 };
    fix_init(&f, 2, np, 3, false);
    sub(&f, 0, 0, 1, -1);
    sub(&f, 1, 0, -1);
    sub(&f, 2, 1, -1);
    ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
    check_complete(&f);
    check_balanced(&f);
    {
        int32_t before[2][4];
        memcpy(before[0], f.owner[0], sizeof before[0]);
        memcpy(before[1], f.owner[1], sizeof before[1]);
        ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
        ck_assert(memcmp(before[0], f.owner[0], sizeof before[0]) == 0);
        ck_assert(memcmp(before[1], f.owner[1], sizeof before[1]) == 0);
    }
    /* B unsubscribes: what it had of t1 goes to A */
    sub(&f, 1, 1, -1);
    ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
    check_complete(&f);
    check_balanced(&f);
    ck_assert_str_eq(owned(&f, 0, 0), "0,1,2,3");
}
END_TEST

/* Random groups: complete, balanced and stable, both algorithms and
 * range (complete only: range does not balance across topics). */
START_TEST(test_random_properties)
{
    srand(4242);
    for (int round = 0; round < 300; round++) {
        fix_t f;
        int nt = 1 + rand() % 4, nm = 1 + rand() % 8, np[MAXT];
        bool homog = rand() % 2;
        for (int i = 0; i < nt; i++)
            np[i] = rand() % 12;
        fix_init(&f, nt, np, nm, homog);
        for (int m = 0; m < nm; m++) {
            f.m[m].ntopics = 0;
            for (int t = 0; t < nt; t++)
                if (homog ? true : rand() % 2)
                    f.subs[m][f.m[m].ntopics++] = t;
        }
        if (homog && f.m[0].ntopics == 0)
            continue;
        /* a previous target: random owners among subscribers */
        for (int t = 0; t < nt; t++)
            for (int p = 0; p < np[t]; p++) {
                int o = rand() % (nm + 1) - 1;
                f.owner[t][p] = o >= 0 && subscribes(&f, o, t) ? o : -1;
            }
        ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
        check_complete(&f);
        if (homog || nt == 1)
            check_balanced(&f);
        {
            int32_t before[MAXT][MAXP];
            memcpy(before, f.owner, sizeof before);
            ck_assert_int_eq(gr_assign_uniform(&f.s), 0);
            ck_assert_msg(memcmp(before, f.owner, sizeof before) == 0,
                          "round %d: a second run moved partitions", round);
        }
        ck_assert_int_eq(gr_assign_range(&f.s), 0);
        check_complete(&f);
    }
}
END_TEST

START_TEST(test_find_and_uuid_order)
{
    gr_uuid_t a, b;
    ck_assert_ptr_eq((void *)gr_assignor_find("uniform", 7),
                     (void *)gr_assign_uniform);
    ck_assert_ptr_eq((void *)gr_assignor_find("range", 5),
                     (void *)gr_assign_range);
    ck_assert_ptr_null((void *)gr_assignor_find("sticky", 6));
    /* Java's Uuid.compareTo compares signed longs: 0x80.. < 0x00.. */
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.b[0] = 0x80;
    b.b[0] = 0x01;
    ck_assert_int_lt(gr_uuid_java_cmp(&a, &b), 0);
    ck_assert_int_gt(gr_uuid_java_cmp(&b, &a), 0);
    ck_assert_int_eq(gr_uuid_java_cmp(&a, &a), 0);
}
END_TEST

Suite *
suite_group_assignor(void)
{
    Suite *s = suite_create("group/assignor");
    TCase *tc = tcase_create("assignor");
    tcase_add_test(tc, test_range_two_members_two_topics);
    tcase_add_test(tc, test_range_three_members_different_subscriptions);
    tcase_add_test(tc, test_range_more_members_than_partitions);
    tcase_add_test(tc, test_range_static_members_first);
    tcase_add_test(tc, test_uniform_first_assignment);
    tcase_add_test(tc, test_uniform_sticky_when_a_member_joins);
    tcase_add_test(tc, test_uniform_extra_partitions_stay);
    tcase_add_test(tc, test_uniform_heterogeneous_first);
    tcase_add_test(tc, test_uniform_heterogeneous_sticky);
    tcase_add_test(tc, test_random_properties);
    tcase_add_test(tc, test_find_and_uuid_order);
    suite_add_tcase(s, tc);
    return s;
}
