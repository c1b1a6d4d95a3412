/*
 * gr_rate_t: Kafka's Rate over a WindowedSum (org.apache.kafka.common.
 * metrics.stats), as its quotas measure: connection creation rates
 * (net/quota.c) and client quotas (cluster/client_quotas.c). Not
 * thread-safe: each rate belongs to one thread (the loop's).
 */
#ifndef GR_CORE_RATE_H
#define GR_CORE_RATE_H

#include <stdint.h>

/* Kafka's Rate with a WindowedSum (SampledStat): samples of win_ms,
 * `samples` of them measured, one more kept as the current one. All-zero
 * is an empty rate with Kafka's defaults (quota.window.num 11 of
 * quota.window.size.seconds 1); client quotas set both from the config
 * (at most GR_RATE_SAMPLES_MAX samples) before the first record. */
#define GR_RATE_SAMPLES     11
#define GR_RATE_WINDOW_MS   1000
#define GR_RATE_SAMPLES_MAX 100

typedef struct gr_rate {
    struct {
        int64_t start_ms, last_ms; /* startTimeMs, lastEventMs */
        double value;
        int64_t events;
    } s[GR_RATE_SAMPLES_MAX + 1];
    int n;          /* samples made so far */
    int cur;        /* the current one */
    int samples;    /* 0: GR_RATE_SAMPLES */
    int64_t win_ms; /* 0: GR_RATE_WINDOW_MS */
} gr_rate_t;

/* Records v at now_ms (Sensor.record). */
void gr_rate_record(gr_rate_t *r, double v, int64_t now_ms);
/* The rate a second at now_ms (Rate.measure). */
double gr_rate_measure(gr_rate_t *r, int64_t now_ms);
/* Rate.windowSize: the span (ms) the rate is measured over. */
int64_t gr_rate_window_ms(gr_rate_t *r, int64_t now_ms);
/* Records one event against quota bound: 0 when the rate stays within it,
 * else the throttle time in ms (QuotaUtils.boundedThrottleTime: the time
 * the excess takes to drain at the bound, at most max_ms). */
int64_t gr_rate_record_throttle(gr_rate_t *r, double bound, int64_t now_ms,
                                int64_t max_ms);
/* Records v against quota bound as Kafka's Sensor.record(v, now, true)
 * and QuotaUtils.throttleTime: 0 when the rate stays within the bound,
 * else the time in ms the excess takes to drain at the bound over the
 * window (rounded; not bounded). */
int64_t gr_rate_record_value_throttle(gr_rate_t *r, double v, double bound,
                                      int64_t now_ms);

#endif
