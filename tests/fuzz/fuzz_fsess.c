/*
 * Fuzz target "fsess": the fetch session cache (src/api/fetch_session.c)
 * driven by a script of operations, as clients drive it with Fetch v7+
 * (new sessions, incremental fetches adding and forgetting partitions,
 * closed sessions, time passing). Input:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    1 max.incremental.fetch.session.cache.slots (byte % 16)
 *        1    1 bound on partitions held: 1 + byte * 2
 *        2    1 eviction time: byte * 1000 ms
 *        3   3n operations: OP A B
 *
 *   OP % 8  0 new session of A % 40 partitions of topic B % 4 (B bit 7:
 *             privileged, bit 6: by topic id)
 *           1 session A (of those alive) names B % 8 partitions, some
 *             new, then is touched
 *           2 session A forgets every partition whose number is below
 *             B % 40, then is touched (or closed when empty)
 *           3 session A is closed
 *           4 time passes: A * 1000 + B ms
 *           5 find of id A << 8 | B
 *           6 session A names its own partitions again (no change)
 *           7 session A is touched
 *
 * After each: the cache's invariants (gr_fsessions_is_valid: orderings,
 * counts), at most max slots, at most the partition bound, and every
 * session the script holds is found under its id unless evicted; a
 * touch that fails (the bound) closes the session, as fetch.c does.
 */
#include "fuzz.h"

#include "api/fetch_session.h"

#include <stdbool.h>
#include <string.h>

#define MAXLIVE 64

static void
name(gr_fsess_t *s, int topic, int partition, bool by_id)
{
    static const char *const topics[] = { "a", "b", "c", "d" };
    gr_str_t t = gr_str_c(topics[topic & 3]);
    gr_uuid_t id;
    memset(&id, 0, sizeof id);
    id.b[0] = (uint8_t)(topic + 1);
    gr_fsess_part_t *p =
        gr_fsess_part_upsert(s, &t, by_id ? &id : NULL, partition);
    if (p != NULL)
        p->fetch_offset = partition;
}

int
gr_fuzz_fsess(const uint8_t *data, size_t n)
{
    gr_fsessions_t *m;
    int32_t live[MAXLIVE];
    int nlive = 0, max_slots;
    int64_t now = 0, bound;

    if (n < 3)
        return 0;
    max_slots = data[0] % 16;
    bound = 1 + (int64_t)data[1] * 2;
    m = gr_fsessions_new(max_slots);
    if (m == NULL)
        return 0;
    gr_fsessions_set_limits(m, (int64_t)data[2] * 1000, bound);
    for (size_t at = 3; at + 3 <= n; at += 3) {
        int op = data[at] % 8, a = data[at + 1], b = data[at + 2];
        gr_fsess_t *s = NULL;
        if (op != 0 && op != 4 && op != 5 && nlive > 0) {
            s = gr_fsess_find(m, live[a % nlive]);
            GR_FUZZ_CHECK(s != NULL);
        }
        switch (op) {
        case 0: {
            gr_fsess_t *ns = gr_fsess_new();
            int32_t id;
            if (ns == NULL)
                break;
            for (int i = 0; i < a % 40; i++)
                name(ns, b % 4, i, (b & 0x40) != 0);
            gr_fsess_compact(ns);
            id = gr_fsessions_add(m, ns, (b & 0x80) != 0, (b & 0x40) != 0, now);
            if (id == 0) {
                gr_fsess_free(ns);
                break;
            }
            GR_FUZZ_CHECK(gr_fsess_find(m, id) == ns && ns->epoch == 1);
            if (nlive < MAXLIVE)
                live[nlive++] = id;
            break;
        }
        case 1:
        case 6:
            if (s == NULL)
                break;
            if (op == 1) {
                for (int i = 0; i < b % 8; i++)
                    name(s, (a + i) % 4, (b * 7 + i) % 50, s->uses_topic_ids);
            } else {
                int32_t before = s->nparts;
                for (int32_t i = 0; i < s->nparts; i++) {
                    gr_str_t t = gr_str_c(s->parts[i].topic);
                    GR_FUZZ_CHECK(
                        gr_fsess_part_upsert(
                            s, &t,
                            s->uses_topic_ids ? &s->parts[i].topic_id : NULL,
                            s->parts[i].partition) == &s->parts[i]);
                }
                GR_FUZZ_CHECK(s->nparts == before);
            }
            gr_fsess_compact(s);
            if (!gr_fsess_touch(m, s, now))
                gr_fsess_remove(m, s);
            break;
        case 2:
            if (s == NULL)
                break;
            for (int32_t i = 0; i < s->nparts; i++)
                if (s->parts[i].partition < b % 40) {
                    gr_str_t t = gr_str_c(s->parts[i].topic);
                    gr_fsess_part_remove(
                        s, &t, s->uses_topic_ids ? &s->parts[i].topic_id : NULL,
                        s->parts[i].partition);
                }
            gr_fsess_compact(s);
            for (int32_t i = 0; i < s->nparts; i++)
                GR_FUZZ_CHECK(s->parts[i].partition >= b % 40);
            if (s->nparts == 0 || !gr_fsess_touch(m, s, now))
                gr_fsess_remove(m, s);
            break;
        case 3:
            if (s != NULL)
                gr_fsess_remove(m, s);
            break;
        case 4:
            now += (int64_t)a * 1000 + b;
            break;
        case 5: {
            gr_fsess_t *f = gr_fsess_find(m, a << 8 | b);
            GR_FUZZ_CHECK(f == NULL || f->id == (a << 8 | b));
            break;
        }
        case 7:
            if (s != NULL && !gr_fsess_touch(m, s, now))
                gr_fsess_remove(m, s);
            break;
        }
        GR_FUZZ_CHECK(gr_fsessions_is_valid(m));
        GR_FUZZ_CHECK(gr_fsessions_count(m) <= max_slots);
        GR_FUZZ_CHECK(gr_fsessions_partitions(m) <= bound);
        /* forget the ids of sessions closed or evicted */
        for (int i = 0; i < nlive;)
            if (gr_fsess_find(m, live[i]) == NULL)
                live[i] = live[--nlive];
            else
                i++;
    }
    gr_fsessions_destroy(m);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_fsess)
