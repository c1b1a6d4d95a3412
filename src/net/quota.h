/*
 * Connection quotas, as Kafka 4.4's ConnectionQuotas and Acceptor apply
 * them; listener.c asks before it takes a connection on:
 *
 *   max.connections               broker-wide; a listener whose slots are
 *                                 taken stops accepting until one frees
 *                                 (the socket accepted waits with it);
 *                                 the inter-broker listener may pass it,
 *                                 and then the least recently active
 *                                 connection of another listener is closed
 *   listener.name.<l>.max.connections
 *                                 the same per listener (else the broker's)
 *   max.connection.creation.rate  new connections a second, broker-wide
 *                                 (not counting the inter-broker listener)
 *   listener.name.<l>.max.connection.creation.rate
 *                                 per listener (else the broker's); over
 *                                 either, the listener stops accepting for
 *                                 the throttle time Kafka computes
 *   max.connections.per.ip, max.connections.per.ip.overrides
 *                                 per client address over all listeners;
 *                                 a connection over it is closed at once
 *   connection_creation_rate      an IP entity's client quota (else the
 *                                 default IP entity's; KIP-612): over it
 *                                 a connection is not read and is closed
 *                                 after its throttle time
 *
 * Rates are Kafka's Rate over 11 samples of 1 s (quota.window.num and
 * quota.window.size.seconds at their defaults): measured over at least 10
 * s, so a burst of 10 x the rate goes through first. Gregor adds a bound
 * Kafka leaves to the operating system: connections take at most the
 * descriptors RLIMIT_NOFILE leaves once the segment files have their half
 * (and a reserve); at that bound a listener waits as for max.connections.
 * Loop thread only.
 */
#ifndef GR_NET_QUOTA_H
#define GR_NET_QUOTA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct gr_broker gr_broker_t;
typedef struct gr_listener gr_listener_t;

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

/* A client address as Kafka keys its counts (InetAddress equality): IPv4
 * and IPv4-mapped IPv6 alike, IPv6 without its scope. */
typedef struct gr_ipaddr {
    uint8_t a[16];
} gr_ipaddr_t;

void gr_ipaddr_from_sockaddr(gr_ipaddr_t *out, const struct sockaddr *sa);
/* A numeric address (IPv4 dotted or IPv6): 0, or -1. */
int gr_ipaddr_parse(gr_ipaddr_t *out, const char *text);

/* Connections per address, and the per-address limits. */
typedef struct gr_iptab gr_iptab_t;

gr_iptab_t *gr_iptab_new(void);
void gr_iptab_destroy(gr_iptab_t *t);
int gr_iptab_count(const gr_iptab_t *t, const gr_ipaddr_t *a);
/* +1 or -1 to a's count; 0, or -1 when out of memory (count unchanged). */
int gr_iptab_add(gr_iptab_t *t, const gr_ipaddr_t *a, int delta);
/* The limit for a: its override, else the default. */
int32_t gr_iptab_max(const gr_iptab_t *t, const gr_ipaddr_t *a);
/* Sets the default and replaces the overrides (n of them; later ones win
 * for the same address). 0, or -1 when out of memory (unchanged). */
int gr_iptab_set_limits(gr_iptab_t *t, int32_t dflt, const gr_ipaddr_t *addrs,
                        const int32_t *counts, int n);

/* The broker's quotas (broker->quotas). */
int gr_quotas_start(gr_broker_t *b);
void gr_quotas_stop(gr_broker_t *b);
/* Reads the settings again (start-up and dynamic config changes): the
 * limits take effect at once, listeners waiting for a slot look again,
 * and over a lowered max.connections connections are closed as Kafka
 * does. */
void gr_quotas_configure(gr_broker_t *b);

struct gr_topic_config;
/* What Kafka refuses of a dynamic change that leaves this broker's
 * dynamic configs bl and the cluster default's dl, past their types: the
 * overrides that do not parse, max.connections.per.ip 0 without
 * overrides, a listener's max.connections or max.connection.creation.rate
 * changed to 0. NULL, or msg (n bytes, filled) in Kafka's words. */
const char *gr_quotas_check_dynamic(gr_broker_t *b,
                                    const struct gr_topic_config *bl,
                                    const struct gr_topic_config *dl, char *msg,
                                    size_t n);

/* An accepted socket on l: taken on (a connection), closed (over its
 * address's limit), or held while l stops accepting (over a limit or a
 * rate: l->held_fd, taken on when the limit allows). */
void gr_quotas_accept(gr_listener_t *l, int fd, const struct sockaddr *sa,
                      socklen_t salen);
/* accept(2) failed for want of descriptors or memory: every listener stops
 * accepting for a while (one log line per interval). */
void gr_quotas_accept_exhausted(gr_listener_t *l, int err);
/* A connection of l from ip opened / closed (conn.c). */
void gr_quotas_conn_opened(gr_listener_t *l, const gr_ipaddr_t *ip);
void gr_quotas_conn_closed(gr_listener_t *l, const gr_ipaddr_t *ip);
/* Before the loop sleeps: listeners waiting for a slot that a closed
 * connection freed go on; connections over a lowered limit are closed. */
void gr_quotas_before_sleep(gr_broker_t *b);

#endif
