/* Replica placement (gr_cluster_place_replicas) against the assignment
 * Kafka's AdminUtils.assignReplicasToBrokersRackUnaware gives with a fixed
 * start index (the table its AdminZkClientTest.testReplicaAssignment
 * expects), then other start and shift values worked by hand. */
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

Suite *
suite_cluster_placement(void)
{
    Suite *s = suite_create("cluster/placement");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_five_brokers_two_rounds);
    tcase_add_test(tc, test_start_and_shift);
    tcase_add_test(tc, test_one_broker);
    suite_add_tcase(s, tc);
    return s;
}
