/* Kafka's Rate: see rate.h. */
#include "core/rate.h"

#include <string.h>

/* SampledStat.current / advance / purgeObsoleteSamples, for a WindowedSum
 * with MetricConfig samples r->samples of r->win_ms. */
static int
rate_samples(const gr_rate_t *r)
{
    return r->samples > 0 ? r->samples : GR_RATE_SAMPLES;
}

static int64_t
rate_win(const gr_rate_t *r)
{
    return r->win_ms > 0 ? r->win_ms : GR_RATE_WINDOW_MS;
}

static void
rate_purge(gr_rate_t *r, int64_t now_ms)
{
    int64_t expire = (int64_t)rate_samples(r) * rate_win(r);
    for (int i = 0; i < r->n; i++) {
        if (now_ms - r->s[i].last_ms < expire)
            continue;
        r->s[i].start_ms = r->s[i].last_ms = now_ms;
        r->s[i].value = 0;
        r->s[i].events = 0;
    }
}

static void
rate_new_sample(gr_rate_t *r, int i, int64_t now_ms)
{
    r->s[i].start_ms = r->s[i].last_ms = now_ms;
    r->s[i].value = 0;
    r->s[i].events = 0;
}

void
gr_rate_record(gr_rate_t *r, double v, int64_t now_ms)
{
    if (r->n == 0) {
        rate_new_sample(r, 0, now_ms);
        r->n = 1;
        r->cur = 0;
    }
    if (now_ms - r->s[r->cur].start_ms >= rate_win(r)) {
        /* advance: one slot more than the samples measured */
        r->cur = (r->cur + 1) % (rate_samples(r) + 1);
        if (r->cur >= r->n)
            r->n = r->cur + 1;
        rate_new_sample(r, r->cur, now_ms);
    }
    r->s[r->cur].value += v;
    r->s[r->cur].events++;
    r->s[r->cur].last_ms = now_ms;
}

int64_t
gr_rate_window_ms(gr_rate_t *r, int64_t now_ms)
{
    int64_t oldest, elapsed, win = rate_win(r);
    int64_t full;
    int samples = rate_samples(r);
    rate_purge(r, now_ms);
    if (r->n == 0) {
        rate_new_sample(r, 0, now_ms);
        r->n = 1;
        r->cur = 0;
    }
    oldest = r->s[0].start_ms;
    for (int i = 1; i < r->n; i++)
        if (r->s[i].start_ms < oldest)
            oldest = r->s[i].start_ms;
    elapsed = now_ms - oldest;
    full = elapsed / win;
    if (full < samples - 1)
        elapsed += (samples - 1 - full) * win;
    return elapsed > 1 ? elapsed : 1;
}

double
gr_rate_measure(gr_rate_t *r, int64_t now_ms)
{
    double sum = 0;
    int64_t window;
    rate_purge(r, now_ms);
    for (int i = 0; i < r->n; i++)
        sum += r->s[i].value;
    window = gr_rate_window_ms(r, now_ms);
    return sum / ((double)window / 1000.0);
}

int64_t
gr_rate_record_value_throttle(gr_rate_t *r, double v, double bound,
                              int64_t now_ms)
{
    double value, t;
    gr_rate_record(r, v, now_ms);
    value = gr_rate_measure(r, now_ms);
    if (value <= bound) /* Quota.acceptable */
        return 0;
    /* QuotaUtils.throttleTime: Math.round (t > 0 here) */
    t = (value - bound) / bound * (double)gr_rate_window_ms(r, now_ms) + 0.5;
    return t < (double)INT32_MAX ? (int64_t)t : INT32_MAX;
}

int64_t
gr_rate_record_throttle(gr_rate_t *r, double bound, int64_t now_ms,
                        int64_t max_ms)
{
    /* QuotaUtils.boundedThrottleTime */
    int64_t t = gr_rate_record_value_throttle(r, 1, bound, now_ms);
    return t < max_ms ? t : max_ms;
}
