/* api/fetch_session: the session cache's partition index, order,
 * removal and compaction; eviction in Kafka's order (FetchSessionCacheShard:
 * stale first, then by privilege, size and id, only sessions old enough)
 * and the bound on partitions held. */
#include "../unit.h"

#include "api/fetch_session.h"

#include <stdio.h>
#include <string.h>

static gr_str_t
name_of(char *buf, size_t n, int i)
{
    snprintf(buf, n, "topic-%d", i % 7);
    return gr_str_c(buf);
}

START_TEST(test_upsert_find_order)
{
    gr_fsessions_t *m = gr_fsessions_new(10);
    gr_fsess_t *s = gr_fsess_new();
    char buf[32];

    ck_assert_ptr_nonnull(s);
    for (int i = 0; i < 5000; i++) {
        gr_str_t t = name_of(buf, sizeof buf, i);
        gr_fsess_part_t *p = gr_fsess_part_upsert(s, &t, NULL, i);
        ck_assert_ptr_nonnull(p);
        p->fetch_offset = i;
    }
    ck_assert_int_eq(s->nparts, 5000);
    /* the same keys again: found, not added */
    for (int i = 0; i < 5000; i++) {
        gr_str_t t = name_of(buf, sizeof buf, i);
        ck_assert_int_eq(gr_fsess_part_upsert(s, &t, NULL, i)->fetch_offset, i);
    }
    ck_assert_int_eq(s->nparts, 5000);
    ck_assert_int_ne(gr_fsessions_add(m, s, false, false, 0), 0);
    ck_assert_int_eq(gr_fsessions_partitions(m), 5000);
    /* forget every third; the rest keep their order */
    for (int i = 0; i < 5000; i += 3) {
        gr_str_t t = name_of(buf, sizeof buf, i);
        gr_fsess_part_remove(s, &t, NULL, i);
    }
    gr_fsess_compact(s);
    ck_assert_int_eq(s->nparts, 5000 - 1667);
    for (int i = 1, k = 0; i < 5000; i++) {
        if (i % 3 == 0)
            continue;
        ck_assert_int_eq(s->parts[k++].fetch_offset, i);
    }
    for (int i = 0; i < 5000; i++) {
        gr_str_t t = name_of(buf, sizeof buf, i);
        gr_fsess_part_t *p = gr_fsess_part_upsert(s, &t, NULL, i);
        ck_assert_int_eq(p->fetch_offset, i % 3 == 0 ? 0 : i);
    }
    /* the cache counts sizes at the last touch */
    ck_assert_int_eq(gr_fsessions_partitions(m), 5000);
    ck_assert(gr_fsess_touch(m, s, 1));
    ck_assert_int_eq(gr_fsessions_partitions(m), 5000);
    ck_assert(gr_fsessions_is_valid(m));
    gr_fsessions_destroy(m);
}
END_TEST

START_TEST(test_topic_ids_and_removed_then_added)
{
    gr_fsessions_t *m = gr_fsessions_new(10);
    gr_fsess_t *s = gr_fsess_new();
    gr_str_t empty = gr_str_c("");
    gr_uuid_t a, b;

    memset(&a, 1, sizeof a);
    memset(&b, 2, sizeof b);
    gr_fsess_part_upsert(s, &empty, &a, 0)->fetch_offset = 10;
    gr_fsess_part_upsert(s, &empty, &b, 0)->fetch_offset = 20;
    ck_assert_int_eq(s->nparts, 2);
    ck_assert_int_eq(gr_fsess_part_upsert(s, &empty, &a, 0)->fetch_offset, 10);
    /* removed and named again in the same request: a new entry */
    gr_fsess_part_remove(s, &empty, &a, 0);
    ck_assert_int_eq(gr_fsess_part_upsert(s, &empty, &a, 0)->fetch_offset, 0);
    gr_fsess_compact(s);
    ck_assert_int_eq(s->nparts, 2);
    ck_assert_int_eq(s->parts[0].fetch_offset, 20);
    /* evicting a session gives its partitions back */
    ck_assert_int_ne(gr_fsessions_add(m, s, false, true, 0), 0);
    ck_assert_int_eq(gr_fsessions_partitions(m), 2);
    gr_fsess_remove(m, s);
    ck_assert_int_eq(gr_fsessions_partitions(m), 0);
    ck_assert(gr_fsessions_is_valid(m));
    gr_fsessions_destroy(m);
}
END_TEST


/* A session of n partitions of topic "t" made at now_ms; its id, or 0. */
static int32_t
add(gr_fsessions_t *m, int n, bool privileged, int64_t now_ms)
{
    gr_fsess_t *s = gr_fsess_new();
    gr_str_t t = gr_str_c("t");
    int32_t id;
    ck_assert_ptr_nonnull(s);
    for (int i = 0; i < n; i++)
        ck_assert_ptr_nonnull(gr_fsess_part_upsert(s, &t, NULL, i));
    id = gr_fsessions_add(m, s, privileged, false, now_ms);
    if (id == 0)
        gr_fsess_free(s);
    ck_assert(gr_fsessions_is_valid(m));
    return id;
}

static void
use(gr_fsessions_t *m, int32_t id, int64_t now_ms)
{
    gr_fsess_t *s = gr_fsess_find(m, id);
    ck_assert_ptr_nonnull(s);
    ck_assert(gr_fsess_touch(m, s, now_ms));
    ck_assert(gr_fsessions_is_valid(m));
}

#define ALIVE(m, id) (gr_fsess_find((m), (id)) != NULL)

/* A full cache: a new client session takes no young session's slot, and
 * no old one of its size or larger: many new small sessions (an attack)
 * evict nobody in use. */
START_TEST(test_full_cache_keeps_young_sessions)
{
    gr_fsessions_t *m = gr_fsessions_new(3);
    int32_t a = add(m, 5, false, 0), b = add(m, 5, false, 1),
            c = add(m, 5, false, 2);

    ck_assert(a && b && c);
    /* young (within eviction_ms of their creation): not evictable by a
     * client, whatever its size */
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(add(m, i % 2 ? 1 : 50, false, 1000 + i), 0);
    ck_assert(ALIVE(m, a) && ALIVE(m, b) && ALIVE(m, c));
    /* in use past eviction_ms: evictable, but only by a larger one */
    use(m, a, 130000);
    use(m, b, 130001);
    use(m, c, 130002);
    ck_assert_int_eq(add(m, 5, false, 130003), 0);
    ck_assert_int_eq(add(m, 1, false, 130004), 0);
    ck_assert_int_ne(add(m, 6, false, 130005), 0);
    ck_assert_int_eq(gr_fsessions_count(m), 3);
    /* the smallest, then the lowest id: one of a, b, c went */
    ck_assert_int_eq(ALIVE(m, a) + ALIVE(m, b) + ALIVE(m, c), 2);
    gr_fsessions_destroy(m);
}
END_TEST

/* Eviction order: a session unused for eviction_ms goes first (the least
 * recently used), whatever its size; then the evictable ones by size. */
START_TEST(test_eviction_order)
{
    gr_fsessions_t *m = gr_fsessions_new(3);
    int32_t big = add(m, 100, false, 0), small = add(m, 2, false, 10),
            mid = add(m, 10, false, 20), x, y;

    /* all in use until 200000: old enough to be evictable by size */
    use(m, big, 200000);
    use(m, mid, 200010);
    use(m, small, 200020);
    /* a session of 11 evicts the smallest (2), not mid (10) */
    x = add(m, 11, false, 200030);
    ck_assert_int_ne(x, 0);
    ck_assert(!ALIVE(m, small) && ALIVE(m, mid) && ALIVE(m, big));
    /* x is young: the next larger one evicts mid (10), not x (11) */
    y = add(m, 50, false, 200040);
    ck_assert_int_ne(y, 0);
    ck_assert(!ALIVE(m, mid) && ALIVE(m, big) && ALIVE(m, x));
    /* big unused for more than eviction_ms: stale, evicted by any new
     * session before the others, even by a smaller one */
    use(m, x, 330000);
    use(m, y, 330000);
    ck_assert_int_ne(add(m, 1, false, 330001), 0);
    ck_assert(!ALIVE(m, big) && ALIVE(m, x) && ALIVE(m, y));
    gr_fsessions_destroy(m);
}
END_TEST

/* A follower's session (privileged) evicts any client session, the
 * smallest first, young or not; a client session never evicts a
 * privileged one (EvictableKey ranks privileged above), which only a
 * larger privileged one evicts once old. */
START_TEST(test_privileged_sessions)
{
    gr_fsessions_t *m = gr_fsessions_new(2);
    int32_t c1 = add(m, 20, false, 0), c2 = add(m, 10, false, 1), f1, f2;

    f1 = add(m, 1, true, 2);
    ck_assert_int_ne(f1, 0);
    ck_assert(ALIVE(m, c1) && !ALIVE(m, c2));
    f2 = add(m, 1, true, 3);
    ck_assert_int_ne(f2, 0);
    ck_assert(!ALIVE(m, c1) && ALIVE(m, f1));
    /* two young privileged sessions: neither a follower nor a client gets
     * a slot */
    ck_assert_int_eq(add(m, 1000, true, 4), 0);
    ck_assert_int_eq(add(m, 1000, false, 5), 0);
    /* once old, a larger privileged session evicts the smaller one; a
     * client one still does not */
    use(m, f1, 150000);
    use(m, f2, 150000);
    ck_assert_int_eq(add(m, 1000, false, 150001), 0);
    ck_assert_int_ne(add(m, 2, true, 150002), 0);
    ck_assert_int_eq(ALIVE(m, f1) + ALIVE(m, f2), 1);
    gr_fsessions_destroy(m);
}
END_TEST

/* The bound on partitions held: a new session past it evicts by the same
 * rule or gets none; a session grown past it fails its touch. */
START_TEST(test_partition_bound)
{
    gr_fsessions_t *m = gr_fsessions_new(100);
    gr_str_t t = gr_str_c("u");
    gr_fsess_t *s;
    int32_t a, b, c;

    gr_fsessions_set_limits(m, GR_FSESS_EVICTION_MS, 100);
    a = add(m, 40, false, 0);
    b = add(m, 40, false, 1);
    ck_assert(a && b);
    /* 30 more would make 110: nothing is evictable yet */
    ck_assert_int_eq(add(m, 30, false, 2), 0);
    ck_assert_int_eq(gr_fsessions_partitions(m), 80);
    ck_assert_int_ne(c = add(m, 20, false, 3), 0);
    ck_assert_int_eq(gr_fsessions_partitions(m), 100);
    /* a grows past the bound: its touch fails, the others stay */
    s = gr_fsess_find(m, a);
    ck_assert_ptr_nonnull(gr_fsess_part_upsert(s, &t, NULL, 0));
    ck_assert(!gr_fsess_touch(m, s, 4));
    gr_fsess_remove(m, s);
    ck_assert_int_eq(gr_fsessions_partitions(m), 60);
    ck_assert(ALIVE(m, b) && ALIVE(m, c));
    /* once old and in use, a larger new one evicts the smallest for
     * room: c (20), then b (40) would be needed for 80 */
    use(m, b, 200000);
    use(m, c, 200000);
    ck_assert_int_ne(add(m, 50, false, 200001), 0);
    ck_assert(!ALIVE(m, c) && ALIVE(m, b));
    ck_assert_int_eq(gr_fsessions_partitions(m), 90);
    gr_fsessions_destroy(m);
}
END_TEST

/* max.incremental.fetch.session.cache.slots=0: no sessions at all. */
START_TEST(test_no_slots)
{
    gr_fsessions_t *m = gr_fsessions_new(0);
    ck_assert_int_eq(add(m, 1, false, 0), 0);
    ck_assert_int_eq(add(m, 1, true, 1), 0);
    ck_assert_int_eq(gr_fsessions_count(m), 0);
    gr_fsessions_destroy(m);
}
END_TEST

Suite *
suite_api_fetch_session(void)
{
    Suite *s = suite_create("api/fetch_session");
    TCase *tc = tcase_create("fetch_session");
    tcase_add_test(tc, test_upsert_find_order);
    tcase_add_test(tc, test_topic_ids_and_removed_then_added);
    tcase_add_test(tc, test_full_cache_keeps_young_sessions);
    tcase_add_test(tc, test_eviction_order);
    tcase_add_test(tc, test_privileged_sessions);
    tcase_add_test(tc, test_partition_bound);
    tcase_add_test(tc, test_no_slots);
    suite_add_tcase(s, tc);
    return s;
}
