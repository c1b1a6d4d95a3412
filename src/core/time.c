/* Clocks: see time.h. */
#include "core/time.h"

#include <string.h>
#include <time.h>

int64_t
gr_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t
gr_mono_ms(void)
{
    return gr_mono_us() / 1000;
}

int64_t
gr_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Days since 1970-01-01 to a civil date as in Howard Hinnant's
 * civil_from_days: eras of 400 years (146,097 days), years counted from
 * March so that the leap day ends one. */
void
gr_utc_format(int64_t ms, char *out)
{
    int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
    int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
    int64_t sod = secs - days * 86400, z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097; /* [0, 146096] */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100); /* [0, 365] */
    int64_t mp = (5 * doy + 2) / 153;                      /* March = 0 */
    int64_t d = doy - (153 * mp + 2) / 5 + 1;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    int64_t y = yoe + era * 400 + (m <= 2);
    int64_t f[7] = {
        y, m, d, sod / 3600, sod / 60 % 60, sod % 60, ms - secs * 1000
    };
    static const char layout[] = "0000-00-00T00:00:00.000Z";
    static const int at[7] = { 3, 6, 9, 12, 15, 18, 22 }; /* last digit */

    if (f[0] < 0 || f[0] > 9999)
        f[0] = f[0] < 0 ? 0 : 9999; /* four digits, as the layout */
    memcpy(out, layout, sizeof layout);
    for (int k = 0; k < 7; k++)
        for (int p = at[k]; f[k] > 0; p--, f[k] /= 10)
            out[p] = (char)('0' + f[k] % 10);
}

/* --- the broker's clock */

void
gr_clock_init(gr_clock_t *c, bool virt)
{
    c->virt = virt;
    c->mono0_us = gr_mono_us();
    c->wall0_ms = gr_wall_ms();
    __atomic_store_n(&c->moved_us, 0, __ATOMIC_RELAXED);
}

int64_t
gr_clock_mono_us(const gr_clock_t *c)
{
    if (c == NULL || !c->virt)
        return gr_mono_us();
    return c->mono0_us + __atomic_load_n(&c->moved_us, __ATOMIC_ACQUIRE);
}

int64_t
gr_clock_mono_ms(const gr_clock_t *c)
{
    return gr_clock_mono_us(c) / 1000;
}

/* The wall clock moves with the monotonic one, in whole milliseconds of
 * it: advancing 1.5 ms twice moves both by 3 ms. */
int64_t
gr_clock_wall_ms(const gr_clock_t *c)
{
    if (c == NULL || !c->virt)
        return gr_wall_ms();
    return c->wall0_ms + __atomic_load_n(&c->moved_us, __ATOMIC_ACQUIRE) / 1000;
}

void
gr_clock_set_mono_us(gr_clock_t *c, int64_t mono_us)
{
    if (!c->virt || mono_us - c->mono0_us <= c->moved_us)
        return;
    __atomic_store_n(&c->moved_us, mono_us - c->mono0_us, __ATOMIC_RELEASE);
}
