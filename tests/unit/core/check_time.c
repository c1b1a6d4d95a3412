/* core/time: gr_utc_format against dates worked out from the calendar,
 * and against the C library over five centuries; the broker's clock,
 * real and virtual. */
#include "../unit.h"
#include "core/time.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

START_TEST(test_utc_fixed)
{
    static const struct {
        int64_t ms;
        const char *s;
    } v[] = {
        { 0, "1970-01-01T00:00:00.000Z" },
        { -1, "1969-12-31T23:59:59.999Z" },
        { -86400000, "1969-12-31T00:00:00.000Z" },
        { 951782400000, "2000-02-29T00:00:00.000Z" }, /* 400-year leap */
        { 951868800000, "2000-03-01T00:00:00.000Z" },
        { 1709251199999, "2024-02-29T23:59:59.999Z" },
        { 1709251200000, "2024-03-01T00:00:00.000Z" },
        { 4107542399000, "2100-02-28T23:59:59.000Z" }, /* not a leap year */
        { 4107542400000, "2100-03-01T00:00:00.000Z" },
        { 1798761599123, "2026-12-31T23:59:59.123Z" },
        { 253402300799999, "9999-12-31T23:59:59.999Z" },
        { -2208988800000, "1900-01-01T00:00:00.000Z" },
    };
    char out[25];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        memset(out, 'x', sizeof out);
        gr_utc_format(v[i].ms, out);
        ck_assert_str_eq(out, v[i].s);
    }
}
END_TEST

START_TEST(test_utc_libc)
{
    char out[25], want[64];
    /* every 3 days 7 hours 13 minutes 17.5 s from 1900 to 2400: each
     * hour, minute and day of the year (Feb 29 too) comes up: 55,325 dates */
    for (int64_t ms = -2208988800000; ms < 13569480000000; ms += 285197500) {
        time_t t = (time_t)(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
        struct tm tm;
        if (gmtime_r(&t, &tm) == NULL)
            ck_abort_msg("gmtime_r(%lld) failed", (long long)t);
        snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                 tm.tm_min, tm.tm_sec, (int)(ms - (int64_t)t * 1000));
        gr_utc_format(ms, out);
        if (strcmp(out, want) != 0) /* Check's own compare is slow */
            ck_abort_msg("%lld: %s, want %s", (long long)ms, out, want);
    }
}
END_TEST

START_TEST(test_clock_real)
{
    gr_clock_t c;
    int64_t m0 = gr_mono_us(), w0 = gr_wall_ms();
    gr_clock_init(&c, false);
    gr_clock_set_mono_us(&c, m0 + 3600000000); /* a real clock ignores it */
    ck_assert_int_ge(gr_clock_mono_us(&c), m0);
    ck_assert_int_lt(gr_clock_mono_us(&c), m0 + 60000000);
    ck_assert_int_ge(gr_clock_wall_ms(&c), w0);
    ck_assert_int_lt(gr_clock_wall_ms(&c), w0 + 60000);
    ck_assert_int_ge(gr_clock_wall_ms(NULL), w0); /* NULL: real */
    ck_assert_int_ge(gr_clock_mono_ms(NULL), m0 / 1000);
}
END_TEST

START_TEST(test_clock_virtual)
{
    gr_clock_t c;
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    int64_t w0 = gr_wall_ms(), m0 = gr_mono_us(), vm, vw;
    gr_clock_init(&c, true);
    vm = gr_clock_mono_us(&c);
    vw = gr_clock_wall_ms(&c);
    /* starts at the real values ... */
    ck_assert_int_ge(vm, m0);
    ck_assert_int_lt(vm, m0 + 60000000);
    ck_assert_int_ge(vw, w0);
    ck_assert_int_lt(vw, w0 + 60000);
    /* ... and stands still while real time passes */
    nanosleep(&ts, NULL);
    ck_assert_int_eq(gr_clock_mono_us(&c), vm);
    ck_assert_int_eq(gr_clock_wall_ms(&c), vw);
    /* both move together, the wall clock in whole ms of the monotonic */
    gr_clock_set_mono_us(&c, vm + 1500);
    ck_assert_int_eq(gr_clock_mono_us(&c), vm + 1500);
    ck_assert_int_eq(gr_clock_wall_ms(&c), vw + 1);
    gr_clock_set_mono_us(&c, vm + 3000);
    ck_assert_int_eq(gr_clock_wall_ms(&c), vw + 3);
    ck_assert_int_eq(gr_clock_mono_ms(&c), (vm + 3000) / 1000);
    /* never back */
    gr_clock_set_mono_us(&c, vm + 1000);
    ck_assert_int_eq(gr_clock_mono_us(&c), vm + 3000);
    gr_clock_set_mono_us(&c, vm + 86400000000);
    ck_assert_int_eq(gr_clock_wall_ms(&c), vw + 86400000);
}
END_TEST

Suite *
suite_core_time(void)
{
    Suite *s = suite_create("core/time");
    TCase *tc = tcase_create("utc");
    tcase_add_test(tc, test_utc_fixed);
    tcase_add_test(tc, test_utc_libc);
    suite_add_tcase(s, tc);
    tc = tcase_create("clock");
    tcase_add_test(tc, test_clock_real);
    tcase_add_test(tc, test_clock_virtual);
    suite_add_tcase(s, tc);
    return s;
}
