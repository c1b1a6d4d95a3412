/*
 * Shared helpers for the librdkafka compat programs: bootstrap from
 * GR_BOOTSTRAP, error-checked config, a uniform failure exit.
 * Programs exit 0 (pass) or 1 (fail).
 */
#ifndef GR_COMPAT_COMMON_H
#define GR_COMPAT_COMMON_H

#include <librdkafka/rdkafka.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline void
fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static inline void
fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static inline const char *
bootstrap(void)
{
    const char *b = getenv("GR_BOOTSTRAP");
    if (b == NULL || !*b)
        fail("GR_BOOTSTRAP is not set");
    return b;
}

static inline void
conf_set(rd_kafka_conf_t *conf, const char *k, const char *v)
{
    char err[512];
    if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK)
        fail("config %s=%s: %s", k, v, err);
}

static inline rd_kafka_conf_t *
base_conf(void)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    conf_set(conf, "bootstrap.servers", bootstrap());
    if (getenv("GR_DEBUG"))
        conf_set(conf, "debug", getenv("GR_DEBUG"));
    return conf;
}

/* For clients that live through broker restarts (the crash loop): retry
 * and reconnect quickly, and keep the expected disconnects out of the log. */
static inline void
conf_restarts(rd_kafka_conf_t *conf)
{
    conf_set(conf, "retry.backoff.ms", "50");
    conf_set(conf, "reconnect.backoff.ms", "20");
    conf_set(conf, "reconnect.backoff.max.ms", "200");
    conf_set(conf, "request.timeout.ms", "5000");
    conf_set(conf, "log_level", "2");
}

static inline long long
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif
