/* Replica placement (gr_cluster_place_replicas) against the assignment
 * Kafka's AdminUtils.assignReplicasToBrokersRackUnaware gives with a fixed
 * start index (the table its AdminZkClientTest.testReplicaAssignment
 * expects), then other start and shift values worked by hand; and the
 * rack-aware placement (gr_cluster_place_replicas_rack) against Kafka's
 * AdminRackAwareTest: its one table, its rack-alternated lists, and its
 * distribution checks (every start and shift here, where Kafka draws
 * them at random). */
#include "../unit.h"

#include "cluster/cluster.h"

/* places nparts x rf over brokers and compares with want, row by row */
static void
expect(const int32_t *brokers, int nb, int32_t nparts, int16_t rf, int start,
       int shift, const int32_t *want)
{
    int32_t rows[64];
    ck_assert_int_le(nparts * rf, 64);
    gr_cluster_place_replicas(brokers, nb, nparts, rf, start, shift, rows);
    for (int i = 0; i < nparts * rf; i++)
        ck_assert_msg(rows[i] == want[i], "partition %d replica %d: %d, not %d",
                      i / rf, i % rf, (int)rows[i], (int)want[i]);
}

/* five brokers 0-4, ten partitions, rf 3, fixedStartIndex 0 (start and
 * shift 0): the second round shifts the followers by one */
START_TEST(test_five_brokers_two_rounds)
{
    const int32_t brokers[] = { 0, 1, 2, 3, 4 };
    const int32_t want[10][3] = {
        { 0, 1, 2 }, { 1, 2, 3 }, { 2, 3, 4 }, { 3, 4, 0 }, { 4, 0, 1 },
        { 0, 2, 3 }, { 1, 3, 4 }, { 2, 4, 0 }, { 3, 0, 1 }, { 4, 1, 2 },
    };
    expect(brokers, 5, 10, 3, 0, 0, &want[0][0]);
}
END_TEST

/* the ids, not their indexes, are placed; start and shift offset it */
START_TEST(test_start_and_shift)
{
    const int32_t brokers[] = { 1, 2, 3 };
    const int32_t want[4][3] = {
        { 3, 2, 1 }, { 1, 3, 2 }, { 2, 1, 3 }, { 3, 1, 2 },
    };
    expect(brokers, 3, 4, 3, 2, 1, &want[0][0]);
}
END_TEST

/* one broker, replication factor 1 (no follower, no modulo by zero) */
START_TEST(test_one_broker)
{
    const int32_t brokers[] = { 7 }, want[] = { 7, 7, 7 };
    expect(brokers, 1, 3, 1, 0, 0, want);
}
END_TEST

/* rack-aware: places and checks the rows against want (when given) */
static void
expect_rack(const int32_t *brokers, const char *const *racks, int nb,
            int32_t nparts, int16_t rf, int start, int shift,
            const int32_t *want, int32_t *rows)
{
    ck_assert_int_eq(gr_cluster_place_replicas_rack(brokers, racks, nb,
                                                    nparts, rf, start, shift,
                                                    rows),
                     0);
    for (int i = 0; want != NULL && i < nparts * rf; i++)
        ck_assert_msg(rows[i] == want[i], "partition %d replica %d: %d, not %d",
                      i / rf, i % rf, (int)rows[i], (int)want[i]);
}

static const char *
rack_of(const int32_t *brokers, const char *const *racks, int nb, int32_t id)
{
    for (int i = 0; i < nb; i++)
        if (brokers[i] == id)
            return racks[i];
    ck_abort_msg("broker %d placed but not given", (int)id);
    return NULL;
}

/* RackAwareTest.checkReplicaDistribution: no broker twice in a
 * partition; with racks, the partition's replicas on want_racks racks;
 * with leaders, nparts / nb leaders per broker; with replicas,
 * nparts * rf / nb replicas per broker */
static void
check_distribution(const int32_t *brokers, const char *const *racks, int nb,
                   int32_t nparts, int16_t rf, const int32_t *rows,
                   int want_racks, bool leaders, bool replicas)
{
    int nlead[16] = { 0 }, nrep[16] = { 0 };
    ck_assert_int_le(nb, 16);
    for (int32_t p = 0; p < nparts; p++) {
        const int32_t *row = &rows[p * rf];
        int distinct = 0;
        for (int j = 0; j < rf; j++) {
            bool seen = false;
            for (int i = 0; i < j; i++) {
                ck_assert_msg(row[i] != row[j], "partition %d: broker %d twice",
                              (int)p, (int)row[j]);
                seen = seen || strcmp(rack_of(brokers, racks, nb, row[i]),
                                      rack_of(brokers, racks, nb, row[j])) == 0;
            }
            distinct += !seen;
            for (int i = 0; i < nb; i++)
                if (brokers[i] == row[j]) {
                    nrep[i]++;
                    nlead[i] += j == 0;
                }
        }
        if (want_racks > 0)
            ck_assert_msg(distinct == want_racks,
                          "partition %d on %d racks, not %d", (int)p, distinct,
                          want_racks);
    }
    for (int i = 0; i < nb; i++) {
        if (leaders)
            ck_assert_msg(nlead[i] == nparts / nb, "broker %d leads %d",
                          (int)brokers[i], nlead[i]);
        if (replicas)
            ck_assert_msg(nrep[i] == nparts * rf / nb, "broker %d has %d",
                          (int)brokers[i], nrep[i]);
    }
}

/* testGetRackAlternatedBrokerListAndAssignReplicasToBrokers: the list
 * 0, 3, 1, 5, 4, 2 (rf 1 shows it), without broker 5 0, 3, 1, 4, 2, and
 * the seven partitions Kafka expects with fixedStartIndex 0 */
START_TEST(test_rack_kafka_table)
{
    const int32_t brokers[] = { 0, 1, 2, 3, 4, 5 };
    const char *const racks[] = { "rack1", "rack3", "rack3",
                                  "rack2", "rack2", "rack1" };
    const int32_t list6[] = { 0, 3, 1, 5, 4, 2 }, list5[] = { 0, 3, 1, 4, 2 };
    const int32_t want[7][3] = {
        { 0, 3, 1 }, { 3, 1, 5 }, { 1, 5, 4 }, { 5, 4, 2 },
        { 4, 2, 0 }, { 2, 0, 3 }, { 0, 4, 2 },
    };
    int32_t rows[64];
    expect_rack(brokers, racks, 6, 6, 1, 0, 0, list6, rows);
    expect_rack(brokers, racks, 5, 5, 1, 0, 0, list5, rows);
    expect_rack(brokers, racks, 6, 7, 3, 0, 0, &want[0][0], rows);
}
END_TEST

/* testAssignmentWithRackAware (start 2) and ...WithRandomStartIndex, the
 * 2-replica ones with 12 and 6 partitions and ...And3Brokers, and
 * testRackAwareExpansion's brokers 6-11: even racks, leaders, replicas */
START_TEST(test_rack_even)
{
    const int32_t b6[] = { 0, 1, 2, 3, 4, 5 }, b611[] = { 6, 7, 8, 9, 10, 11 },
                  b3[] = { 0, 1, 4 };
    const char *const r6[] = { "rack1", "rack2", "rack2",
                               "rack3", "rack3", "rack1" };
    const char *const r3[] = { "rack1", "rack2", "rack3" };
    int32_t rows[64];
    for (int s = 0; s < 6; s++)
        for (int h = 0; h < 6; h++) {
            expect_rack(b6, r6, 6, 6, 3, s, h, NULL, rows);
            check_distribution(b6, r6, 6, 6, 3, rows, 3, true, true);
            expect_rack(b6, r6, 6, 12, 2, s, h, NULL, rows);
            check_distribution(b6, r6, 6, 12, 2, rows, 2, true, true);
            expect_rack(b6, r6, 6, 6, 2, s, h, NULL, rows);
            check_distribution(b6, r6, 6, 6, 2, rows, 2, true, true);
            expect_rack(b611, r6, 6, 12, 2, s, h, NULL, rows);
            check_distribution(b611, r6, 6, 12, 2, rows, 2, true, true);
        }
    for (int s = 0; s < 3; s++)
        for (int h = 0; h < 3; h++) {
            expect_rack(b3, r3, 3, 6, 2, s, h, NULL, rows);
            check_distribution(b3, r3, 3, 6, 2, rows, 2, true, true);
        }
}
END_TEST

/* ...WithUnevenReplicas (13 partitions: racks only) and ...WithUnevenRacks
 * (rack1 has three brokers: racks and leaders) */
START_TEST(test_rack_uneven)
{
    const int32_t b[] = { 0, 1, 2, 3, 4, 5 };
    const char *const r6[] = { "rack1", "rack2", "rack2",
                               "rack3", "rack3", "rack1" };
    const char *const ru[] = { "rack1", "rack1", "rack2",
                               "rack3", "rack3", "rack1" };
    int32_t rows[64];
    expect_rack(b, r6, 6, 13, 3, 0, 0, NULL, rows);
    check_distribution(b, r6, 6, 13, 3, rows, 3, false, false);
    for (int s = 0; s < 6; s++)
        for (int h = 0; h < 6; h++) {
            expect_rack(b, ru, 6, 12, 3, s, h, NULL, rows);
            check_distribution(b, ru, 6, 12, 3, rows, 3, true, false);
        }
}
END_TEST

/* testMoreReplicasThanRacks (rf 5 over 3 racks: all 3 used),
 * testLessReplicasThanRacks (rf 2: 2 racks), testSingleRack (one rack,
 * a leader each), testSkipBrokerWithReplicaAlreadyAssigned (rf 4 over
 * racks a, b, c, a, a with start 2: no broker twice) */
START_TEST(test_rack_more_less_single_skip)
{
    const int32_t b[] = { 0, 1, 2, 3, 4, 5 };
    const char *const r[] = { "rack1", "rack2", "rack2",
                              "rack3", "rack3", "rack2" };
    const char *const one[] = { "rack1", "rack1", "rack1",
                                "rack1", "rack1", "rack1" };
    const char *const skip[] = { "a", "b", "c", "a", "a" };
    int32_t rows[64];
    for (int s = 0; s < 6; s++)
        for (int h = 0; h < 6; h++) {
            expect_rack(b, r, 6, 6, 5, s, h, NULL, rows);
            check_distribution(b, r, 6, 6, 5, rows, 3, false, false);
            expect_rack(b, r, 6, 6, 2, s, h, NULL, rows);
            check_distribution(b, r, 6, 6, 2, rows, 2, false, false);
            expect_rack(b, one, 6, 6, 3, s, h, NULL, rows);
            check_distribution(b, one, 6, 6, 3, rows, 1, true, false);
        }
    expect_rack(b, skip, 5, 6, 4, 2, 2, NULL, rows);
    check_distribution(b, skip, 5, 6, 4, rows, 0, false, false);
}
END_TEST

/* one broker with a rack, replication factor 1 */
START_TEST(test_rack_one_broker)
{
    const int32_t brokers[] = { 7 }, want[] = { 7, 7 };
    const char *const racks[] = { "r" };
    int32_t rows[2];
    expect_rack(brokers, racks, 1, 2, 1, 0, 0, want, rows);
}
END_TEST

Suite *
suite_cluster_placement(void)
{
    Suite *s = suite_create("cluster/placement");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_five_brokers_two_rounds);
    tcase_add_test(tc, test_start_and_shift);
    tcase_add_test(tc, test_one_broker);
    tcase_add_test(tc, test_rack_kafka_table);
    tcase_add_test(tc, test_rack_even);
    tcase_add_test(tc, test_rack_uneven);
    tcase_add_test(tc, test_rack_more_less_single_skip);
    tcase_add_test(tc, test_rack_one_broker);
    suite_add_tcase(s, tc);
    return s;
}
