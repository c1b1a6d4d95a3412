/* The controller's election rule (gr_election_decide) against the cases
 * Kafka's controller meets: a leader gone with live ISR members, an ISR
 * follower gone, no live ISR member (clean and unclean), a broker back,
 * nothing to change. */
#include "../unit.h"

#include "cluster/election.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* decides and compares; want_isr NULL: no change expected */
static void
expect(const int32_t *reps, int nr, const int32_t *isr, int ni,
       int32_t leader, const int32_t *live, int nl, bool unclean,
       int32_t want_leader, const int32_t *want_isr, int want_n)
{
    gr_election_t in = { reps, nr, isr, ni, leader, live, nl, unclean };
    int32_t out[16], l = -7;
    int n = -1;
    bool ch = gr_election_decide(&in, &l, out, &n);
    ck_assert_int_eq(ch, want_isr != NULL);
    if (want_isr == NULL)
        return;
    ck_assert_int_eq(l, want_leader);
    ck_assert_int_eq(n, want_n);
    for (int i = 0; i < n; i++)
        ck_assert_msg(out[i] == want_isr[i], "isr[%d]: %d, not %d", i,
                      (int)out[i], (int)want_isr[i]);
}

/* the leader goes: the first replica in assignment order that is live
 * and in the ISR leads, whatever the ISR's order */
START_TEST(test_leader_gone)
{
    const int32_t reps[] = { 1, 2, 3 }, isr[] = { 1, 3, 2 }, live[] = { 3, 2 };
    const int32_t want[] = { 3, 2 };
    expect(reps, 3, isr, 3, 1, live, 2, false, 2, want, 2);
}
END_TEST

/* a replica outside the ISR does not lead, even first in the assignment */
START_TEST(test_leader_gone_skips_out_of_sync)
{
    const int32_t reps[] = { 1, 2, 3 }, isr[] = { 1, 3 }, live[] = { 2, 3 };
    const int32_t want[] = { 3 };
    expect(reps, 3, isr, 2, 1, live, 2, false, 3, want, 1);
}
END_TEST

/* a follower goes: it leaves the ISR, the leader stays */
START_TEST(test_follower_gone)
{
    const int32_t reps[] = { 1, 2, 3 }, isr[] = { 1, 2, 3 }, live[] = { 1, 3 };
    const int32_t want[] = { 1, 3 };
    expect(reps, 3, isr, 3, 1, live, 2, false, 1, want, 2);
}
END_TEST

/* a follower outside the ISR goes: nothing to change */
START_TEST(test_nothing_to_change)
{
    const int32_t reps[] = { 1, 2, 3 }, isr[] = { 1, 2 }, live[] = { 1, 2 };
    const int32_t all[] = { 1, 2, 3 };
    expect(reps, 3, isr, 2, 1, live, 2, false, 0, NULL, 0);
    expect(reps, 3, isr, 2, 1, all, 3, false, 0, NULL, 0);
}
END_TEST

/* the only ISR member goes, clean: no leader, the ISR kept as it is */
START_TEST(test_last_isr_member_gone)
{
    const int32_t reps[] = { 1, 2, 3 }, isr[] = { 1 }, live[] = { 2, 3 };
    const int32_t want[] = { 1 };
    expect(reps, 3, isr, 1, 1, live, 2, false, -1, want, 1);
    /* and then nothing more to do until it returns */
    expect(reps, 3, want, 1, -1, live, 2, false, 0, NULL, 0);
}
END_TEST

/* two ISR members go at once, clean: the old leader is the one kept */
START_TEST(test_all_isr_gone_keeps_leader)
{
    const int32_t reps[] = { 1, 2, 3 }, isr[] = { 1, 2 }, live[] = { 3 };
    const int32_t want[] = { 2 };
    expect(reps, 3, isr, 2, 2, live, 1, false, -1, want, 1);
}
END_TEST

/* unclean: the first live replica leads, the ISR it alone */
START_TEST(test_unclean)
{
    const int32_t reps[] = { 1, 2, 3 }, isr[] = { 1 }, live[] = { 3, 2 };
    const int32_t want[] = { 2 };
    expect(reps, 3, isr, 1, 1, live, 2, true, 2, want, 1);
}
END_TEST

/* unclean with no live replica at all: no leader, the ISR kept */
START_TEST(test_unclean_none_live)
{
    const int32_t reps[] = { 1, 2 }, isr[] = { 1 }, live[] = { 5 };
    const int32_t want[] = { 1 };
    expect(reps, 2, isr, 1, 1, live, 1, true, -1, want, 1);
}
END_TEST

/* the kept ISR member returns: it leads again */
START_TEST(test_returns)
{
    const int32_t reps[] = { 1, 2, 3 }, isr[] = { 1 }, live[] = { 1, 2, 3 };
    const int32_t want[] = { 1 };
    expect(reps, 3, isr, 1, -1, live, 3, false, 1, want, 1);
}
END_TEST

/* a replica outside the ISR returns to a leaderless partition: clean,
 * still no leader; unclean, it leads */
START_TEST(test_returns_out_of_sync)
{
    const int32_t reps[] = { 1, 2, 3 }, isr[] = { 1 }, live[] = { 2 };
    const int32_t want[] = { 2 };
    expect(reps, 3, isr, 1, -1, live, 1, false, 0, NULL, 0);
    expect(reps, 3, isr, 1, -1, live, 1, true, 2, want, 1);
}
END_TEST

/* a leader outside its own ISR is left alone */
START_TEST(test_leader_outside_isr)
{
    const int32_t reps[] = { 1, 2 }, isr[] = { 2 }, live[] = { 1 };
    expect(reps, 2, isr, 1, 1, live, 1, false, 0, NULL, 0);
}
END_TEST

Suite *
suite_cluster_election(void)
{
    Suite *s = suite_create("cluster/election");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_leader_gone);
    tcase_add_test(tc, test_leader_gone_skips_out_of_sync);
    tcase_add_test(tc, test_follower_gone);
    tcase_add_test(tc, test_nothing_to_change);
    tcase_add_test(tc, test_last_isr_member_gone);
    tcase_add_test(tc, test_all_isr_gone_keeps_leader);
    tcase_add_test(tc, test_unclean);
    tcase_add_test(tc, test_unclean_none_live);
    tcase_add_test(tc, test_returns);
    tcase_add_test(tc, test_returns_out_of_sync);
    tcase_add_test(tc, test_leader_outside_isr);
    suite_add_tcase(s, tc);
    return s;
}
