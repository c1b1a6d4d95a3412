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

#include "core/ipaddr.h"
#include "core/rate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct gr_broker gr_broker_t;
typedef struct gr_listener gr_listener_t;

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
