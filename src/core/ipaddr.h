/*
 * gr_ipaddr_t: a client's address as Kafka keys its per-address counts
 * and quotas.
 */
#ifndef GR_CORE_IPADDR_H
#define GR_CORE_IPADDR_H

#include <stdint.h>
#include <sys/socket.h>

/* A client address as Kafka keys its counts (InetAddress equality): IPv4
 * and IPv4-mapped IPv6 alike, IPv6 without its scope. */
typedef struct gr_ipaddr {
    uint8_t a[16];
} gr_ipaddr_t;

void gr_ipaddr_from_sockaddr(gr_ipaddr_t *out, const struct sockaddr *sa);
/* A numeric address (IPv4 dotted or IPv6): 0, or -1. */
int gr_ipaddr_parse(gr_ipaddr_t *out, const char *text);

#endif
