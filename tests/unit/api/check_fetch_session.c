/* api/fetch_session: the session cache's partition index, order,
 * removal, compaction and the bound on partitions held. */
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
    gr_fsess_t *s = gr_fsess_create(m, 0);
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
    ck_assert(!gr_fsessions_room(m, GR_FSESS_MAX_PARTITIONS - 4999));
    ck_assert(gr_fsessions_room(m, GR_FSESS_MAX_PARTITIONS - 5000));
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
    ck_assert(!gr_fsessions_room(m, GR_FSESS_MAX_PARTITIONS - 4999));
    gr_fsessions_destroy(m);
}
END_TEST

START_TEST(test_topic_ids_and_removed_then_added)
{
    gr_fsessions_t *m = gr_fsessions_new(10);
    gr_fsess_t *s = gr_fsess_create(m, 0);
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
    gr_fsess_remove(m, s);
    ck_assert(gr_fsessions_room(m, GR_FSESS_MAX_PARTITIONS));
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
    suite_add_tcase(s, tc);
    return s;
}
