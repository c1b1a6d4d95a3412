/* core/loop: timers, real and virtual, under gr_loop_advance(): order,
 * the clock each callback sees, timers armed from callbacks, stops, and
 * the real timers and I/O that a virtual clock leaves alone. */
#include "../unit.h"
#include "core/loop.h"
#include "core/time.h"

#include <string.h>

typedef struct rec {
    int n;
    int order[16];       /* tags of the timers fired, in order */
    int64_t at_ms[16];   /* the loop's monotonic ms when each fired */
    int64_t wall_ms[16]; /* and its wall clock */
} rec_t;

typedef struct tmr {
    gr_timer_t t;
    int tag;
    rec_t *rec;
    int64_t again_ms; /* >= 0: re-arms itself this far ahead, once */
} tmr_t;

static void
fired(gr_loop_t *loop, gr_timer_t *t)
{
    tmr_t *x = t->data;
    rec_t *r = x->rec;
    ck_assert_int_lt(r->n, 16);
    r->order[r->n] = x->tag;
    r->at_ms[r->n] = gr_loop_mono_ms(loop);
    r->wall_ms[r->n] = gr_loop_wall_ms(loop);
    r->n++;
    if (x->again_ms >= 0) {
        int64_t a = x->again_ms;
        x->again_ms = -1;
        gr_timer_start(loop, t, a);
    }
}

static void
mk(tmr_t *x, int tag, rec_t *r, bool virt)
{
    memset(x, 0, sizeof *x);
    x->tag = tag;
    x->rec = r;
    x->again_ms = -1;
    if (virt)
        gr_timer_init_virtual(&x->t, fired, x);
    else
        gr_timer_init(&x->t, fired, x);
}

START_TEST(test_advance_order)
{
    gr_loop_t *loop = gr_loop_new();
    rec_t r = { 0 };
    tmr_t a, b, c, d;
    int64_t m0, w0;

    gr_loop_virtual_clock(loop);
    m0 = gr_loop_mono_ms(loop);
    w0 = gr_loop_wall_ms(loop);
    mk(&a, 1, &r, true);
    mk(&b, 2, &r, true);
    mk(&c, 3, &r, true);
    mk(&d, 4, &r, true);
    gr_timer_start(loop, &c.t, 30000);
    gr_timer_start(loop, &a.t, 10000);
    gr_timer_start(loop, &b.t, 20000);
    gr_timer_start(loop, &d.t, 25000);
    gr_timer_stop(loop, &d.t); /* stopped: never fires */
    a.again_ms = 15000;        /* a again at 25 s: between b and c */

    /* real time passing moves nothing */
    gr_loop_run_for(loop, 30);
    ck_assert_int_eq(r.n, 0);
    ck_assert_int_eq(gr_loop_mono_ms(loop), m0);

    /* 9.999 s: none due yet */
    ck_assert_int_eq(gr_loop_advance(loop, 9999), 0);
    ck_assert_int_eq(r.n, 0);
    ck_assert_int_eq(gr_loop_mono_ms(loop), m0 + 9999);
    /* to 20 s: a (10 s) then b (20 s), each at its own time */
    ck_assert_int_eq(gr_loop_advance(loop, 10001), 2);
    ck_assert_int_eq(r.n, 2);
    ck_assert_int_eq(r.order[0], 1);
    ck_assert_int_eq(r.at_ms[0], m0 + 10000);
    ck_assert_int_eq(r.wall_ms[0], w0 + 10000);
    ck_assert_int_eq(r.order[1], 2);
    ck_assert_int_eq(r.at_ms[1], m0 + 20000);
    /* an hour: a's second round (25 s) before c (30 s); then the clock
     * stands at the end */
    ck_assert_int_eq(gr_loop_advance(loop, 3600000 - 20000), 2);
    ck_assert_int_eq(r.n, 4);
    ck_assert_int_eq(r.order[2], 1);
    ck_assert_int_eq(r.at_ms[2], m0 + 25000);
    ck_assert_int_eq(r.order[3], 3);
    ck_assert_int_eq(r.at_ms[3], m0 + 30000);
    ck_assert_int_eq(gr_loop_mono_ms(loop), m0 + 3600000);
    ck_assert_int_eq(gr_loop_wall_ms(loop), w0 + 3600000);
    ck_assert(!gr_timer_armed(&a.t) && !gr_timer_armed(&d.t));
    ck_assert_int_eq(gr_loop_advance(loop, -1), -1);
    ck_assert_int_eq(gr_loop_advance(loop, GR_LOOP_ADVANCE_MAX_MS + 1), -1);
    gr_loop_destroy(loop);
}
END_TEST

/* A callback arming a timer within the advance sees it fire in the same
 * advance; one beyond it waits. */
START_TEST(test_advance_chain)
{
    gr_loop_t *loop = gr_loop_new();
    rec_t r = { 0 };
    tmr_t a, b;
    int64_t m0;
    gr_loop_virtual_clock(loop);
    m0 = gr_loop_mono_ms(loop);
    mk(&a, 1, &r, true);
    mk(&b, 2, &r, true);
    gr_timer_start(loop, &a.t, 1000);
    a.again_ms = 0; /* delay 0 at 1 s: fires at 1 s, in this advance */
    gr_timer_start(loop, &b.t, 5000);
    b.again_ms = 5000; /* at 10 s: beyond this advance */
    ck_assert_int_eq(gr_loop_advance(loop, 6000), 3);
    ck_assert_int_eq(r.order[0], 1);
    ck_assert_int_eq(r.order[1], 1);
    ck_assert_int_eq(r.at_ms[1], m0 + 1000);
    ck_assert_int_eq(r.order[2], 2);
    ck_assert(gr_timer_armed(&b.t));
    ck_assert_int_eq(gr_loop_advance(loop, 3999), 0);
    ck_assert_int_eq(gr_loop_advance(loop, 1), 1);
    ck_assert_int_eq(r.at_ms[3], m0 + 10000);
    gr_loop_destroy(loop);
}
END_TEST

/* Real timers keep real time under a virtual clock, and a virtual timer
 * armed with no delay runs on the loop's next turn, unadvanced. */
START_TEST(test_virtual_leaves_real)
{
    gr_loop_t *loop = gr_loop_new();
    rec_t r = { 0 };
    tmr_t real, soon, later;
    int64_t t0;
    gr_loop_virtual_clock(loop);
    mk(&real, 1, &r, false);
    mk(&soon, 2, &r, true);
    mk(&later, 3, &r, true);
    gr_timer_start(loop, &real.t, 20);
    gr_timer_start(loop, &soon.t, 0);
    gr_timer_start(loop, &later.t, 10);
    /* advancing does not fire the real timer */
    ck_assert_int_eq(gr_loop_advance(loop, 0), 1); /* soon: due now */
    ck_assert_int_eq(r.n, 1);
    ck_assert_int_eq(r.order[0], 2);
    ck_assert(gr_timer_armed(&real.t));
    t0 = gr_mono_us();
    gr_loop_run_for(loop, 200);
    ck_assert_int_ge(gr_mono_us() - t0, 150000); /* ran its 200 ms */
    ck_assert_int_eq(r.n, 2);
    ck_assert_int_eq(r.order[1], 1); /* the real one, not `later` */
    ck_assert(gr_timer_armed(&later.t));
    /* armed with no delay: the next turn fires it */
    gr_timer_start(loop, &soon.t, 0);
    gr_loop_run_for(loop, 50);
    ck_assert_int_eq(r.n, 3);
    ck_assert_int_eq(r.order[2], 2);
    gr_timer_stop(loop, &later.t);
    gr_loop_destroy(loop);
}
END_TEST

/* Without a virtual clock, virtual timers are real ones and advancing is
 * refused. */
START_TEST(test_real_clock)
{
    gr_loop_t *loop = gr_loop_new();
    rec_t r = { 0 };
    tmr_t a, b;
    mk(&a, 1, &r, true);
    mk(&b, 2, &r, false);
    gr_timer_start(loop, &a.t, 20);
    gr_timer_start(loop, &b.t, 10);
    ck_assert_int_eq(gr_loop_advance(loop, 1000), -1);
    ck_assert(!gr_loop_clock(loop)->virt);
    gr_loop_run_for(loop, 300);
    ck_assert_int_eq(r.n, 2);
    ck_assert_int_eq(r.order[0], 2);
    ck_assert_int_eq(r.order[1], 1);
    gr_loop_destroy(loop);
}
END_TEST

Suite *
suite_core_loop(void)
{
    Suite *s = suite_create("core/loop");
    TCase *tc = tcase_create("virtual");
    tcase_add_test(tc, test_advance_order);
    tcase_add_test(tc, test_advance_chain);
    tcase_add_test(tc, test_virtual_leaves_real);
    tcase_add_test(tc, test_real_clock);
    suite_add_tcase(s, tc);
    return s;
}
