/*
 * Connection quotas: see quota.h. Kafka's ConnectionQuotas.inc() in the
 * order it runs: waitForConnectionSlot (record the connection in the
 * broker's rate, unless the listener is the protected inter-broker one,
 * and in the listener's; wait for the throttle time and for a slot), then
 * the per-address count (over its limit: TooManyConnectionsException,
 * closed at once). Kafka's acceptor thread blocks while it waits; here the
 * listener stops accepting and keeps the one socket it accepted, which
 * goes on when the wait is over.
 *
 * Then, as Kafka's recordIpConnectionMaybeThrottle, the address's
 * connection_creation_rate (an IP entity's client quota, KIP-612): when
 * one holds, the connection is recorded on the address's rate; over it,
 * the connection is taken back from that rate and the broker's and
 * listener's, is not read and is closed when the throttle time is over
 * (Kafka's acceptor keeps such sockets in throttledSockets and closes them
 * from its loop): the client sees its connection open and closed without
 * an answer, and retries after its backoff. The socket goes into a heap
 * closed by a timer; nothing waits.
 */
#include "net/quota.h"
#include "broker.h"
#include "cluster/client_quotas.h"
#include "cluster/cluster.h"
#include "core/log.h"
#include "core/time.h"
#include "core/worker.h"
#include "net/conn.h"
#include "net/listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

/* how long accepts pause when accept(2) runs out of descriptors (nginx's
 * accept_mutex_delay), and how often that is logged */
#define EXHAUSTED_PAUSE_MS 500
#define LOG_EVERY_US       (10 * 1000000)
/* descriptors kept from connections beyond the segment files' half:
 * listeners, the loop, workers, log and metadata files */
#define FD_RESERVE 64

static uint32_t
ip_hash(const gr_ipaddr_t *a)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (int i = 0; i < 16; i++)
        h = (h ^ a->a[i]) * 16777619u;
    return h;
}

/* --- per-address counts: open addressing, linear probing, tombstones */

typedef struct ip_slot {
    gr_ipaddr_t addr;
    int32_t count; /* 0: a tombstone when used */
    bool used;
} ip_slot_t;

typedef struct ip_override {
    gr_ipaddr_t addr;
    int32_t max;
} ip_override_t;

struct gr_iptab {
    ip_slot_t *slots;
    size_t cap;  /* a power of two */
    size_t used; /* slots ever taken since the last rehash */
    size_t live; /* addresses with connections */
    int32_t dflt;
    ip_override_t *ov;
    int nov;
};

gr_iptab_t *
gr_iptab_new(void)
{
    gr_iptab_t *t = calloc(1, sizeof(*t));
    if (t == NULL)
        return NULL;
    t->dflt = INT32_MAX;
    return t;
}

void
gr_iptab_destroy(gr_iptab_t *t)
{
    if (t == NULL)
        return;
    free(t->slots);
    free(t->ov);
    free(t);
}

static ip_slot_t *
ip_find(const gr_iptab_t *t, const gr_ipaddr_t *a)
{
    size_t i;
    if (t->cap == 0)
        return NULL;
    for (i = ip_hash(a) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        ip_slot_t *s = &t->slots[i];
        if (!s->used)
            return NULL;
        if (memcmp(&s->addr, a, sizeof *a) == 0)
            return s;
    }
}

static int
ip_rehash(gr_iptab_t *t, size_t cap)
{
    ip_slot_t *old = t->slots, *slots = calloc(cap, sizeof(*slots));
    size_t ocap = t->cap;
    if (slots == NULL)
        return -1;
    t->slots = slots;
    t->cap = cap;
    t->used = 0;
    for (size_t i = 0; i < ocap; i++) {
        size_t j;
        if (!old[i].used || old[i].count == 0)
            continue;
        for (j = ip_hash(&old[i].addr) & (cap - 1); slots[j].used;
             j = (j + 1) & (cap - 1))
            ;
        slots[j] = old[i];
        t->used++;
    }
    free(old);
    return 0;
}

int
gr_iptab_count(const gr_iptab_t *t, const gr_ipaddr_t *a)
{
    const ip_slot_t *s = ip_find(t, a);
    return s ? s->count : 0;
}

int
gr_iptab_add(gr_iptab_t *t, const gr_ipaddr_t *a, int delta)
{
    ip_slot_t *s = ip_find(t, a);
    if (s == NULL) {
        size_t i;
        if (delta <= 0)
            return 0; /* nothing counted for a: Kafka logs an error */
        /* at most half the slots used, tombstones included; a rehash
         * drops the tombstones, to a power of two at least 4 x live */
        if ((t->used + 1) * 2 > t->cap) {
            size_t cap = 16;
            while (cap < (t->live + 1) * 4)
                cap *= 2;
            if (ip_rehash(t, cap) != 0)
                return -1;
        }
        for (i = ip_hash(a) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
            s = &t->slots[i];
            if (!s->used ||
                (s->count == 0 && memcmp(&s->addr, a, sizeof *a) == 0))
                break;
        }
        if (!s->used)
            t->used++;
        s->used = true;
        s->addr = *a;
        s->count = 0;
    }
    if (s->count == 0 && delta > 0)
        t->live++;
    s->count += delta;
    if (s->count <= 0) {
        s->count = 0; /* a tombstone, reused by the same address */
        t->live--;
    }
    return 0;
}

int32_t
gr_iptab_max(const gr_iptab_t *t, const gr_ipaddr_t *a)
{
    for (int i = 0; i < t->nov; i++)
        if (memcmp(&t->ov[i].addr, a, sizeof *a) == 0)
            return t->ov[i].max;
    return t->dflt;
}

int
gr_iptab_set_limits(gr_iptab_t *t, int32_t dflt, const gr_ipaddr_t *addrs,
                    const int32_t *counts, int n)
{
    ip_override_t *ov = NULL;
    int nov = 0;
    if (n > 0 && (ov = calloc((size_t)n, sizeof(*ov))) == NULL)
        return -1;
    for (int i = 0; i < n; i++) {
        int k;
        for (k = 0; k < nov; k++)
            if (memcmp(&ov[k].addr, &addrs[i], sizeof addrs[i]) == 0)
                break;
        ov[k].addr = addrs[i];
        ov[k].max = counts[i]; /* a map: the last one wins */
        if (k == nov)
            nov++;
    }
    free(t->ov);
    t->ov = ov;
    t->nov = nov;
    t->dflt = dflt;
    return 0;
}

/* --- the broker's quotas */

typedef struct gr_quotas {
    gr_broker_t *b;
    gr_iptab_t *ips;
    int64_t max_conns; /* max.connections */
    int64_t max_rate;  /* max.connection.creation.rate */
    gr_rate_t rate;    /* the broker's connections (not inter-broker) */
    int64_t fd_budget; /* connections RLIMIT_NOFILE leaves */
    bool exhausted;    /* accept(2) ran out: every listener waits */
    gr_timer_t exhausted_timer;
    int64_t exhausted_log_us, exhausted_unlogged;
    bool slot_freed; /* a connection closed since before_sleep */
    uint64_t gen;    /* configurations made, for late name lookups */
    int jobs;        /* lookups on workers */
    bool stopped;
    char *overrides; /* the max.connections.per.ip.overrides applied */
    int64_t per_ip;  /* and the max.connections.per.ip */
    /* connection_creation_rate per address: the rates (a hash), the
     * sockets throttled (a heap by the time they close) */
    struct ip_sensor **sens;
    size_t sens_cap, nsens;
    int64_t sens_swept_ms;
    /* every connection rate's samples (quota.window.num) of win_ms
     * (quota.window.size.seconds), as Kafka's rateQuotaMetricConfig;
     * win_ms is also the longest throttle (its maxThrottleTimeMs) */
    int samples;
    int64_t win_ms;
    struct delayed_close *dl;
    int ndl, dl_cap;
    gr_timer_t dl_timer;
    int64_t throttle_log_us, throttled_unlogged;
} gr_quotas_t;

typedef struct ip_sensor {
    struct ip_sensor *next;
    gr_ipaddr_t addr;
    int64_t last_ms;
    gr_rate_t rate;
} ip_sensor_t;

typedef struct delayed_close {
    int64_t end_ms;
    int fd;
} delayed_close_t;

static gr_quotas_t *
quotas_of(gr_broker_t *b)
{
    return b->quotas;
}

static int64_t
now_ms(void)
{
    return gr_mono_us() / 1000;
}

/* Connections may use what the segment files' half of RLIMIT_NOFILE
 * (broker.c's max_open_segment_files) and a reserve leave. */
static int64_t
fd_budget(void)
{
    struct rlimit rl;
    int64_t n = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        n = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 20)
                ? 1 << 20
                : (int64_t)rl.rlim_cur;
    n = n - n / 2 - FD_RESERVE;
    return n > 8 ? n : 8;
}

static void
listener_events(gr_listener_t *l)
{
    gr_quotas_t *q = quotas_of(l->broker);
    bool on = l->held_fd < 0 && !(q && q->exhausted);
    if (on == l->accepting)
        return;
    l->accepting = on;
    for (int i = 0; i < l->nfds; i++)
        gr_loop_io_set(l->broker->loop, &l->io[i], on ? GR_IO_READ : 0);
}

/* Kafka's protectedListener: the inter-broker listener, when there are
 * other listeners. */
static bool
is_protected(const gr_listener_t *l)
{
    return l->inter_broker && l->broker->nlisteners > 1;
}

/* connectionSlotAvailable, and Gregor's descriptor bound: NULL when l may
 * take a connection, else the limit that is full (*limit: its value). */
static const char *
slot_taken(const gr_listener_t *l, int64_t *limit)
{
    gr_quotas_t *q = quotas_of(l->broker);
    if (l->nconns >= l->max_conns) {
        *limit = l->max_conns;
        return "the listener's max.connections";
    }
    if (l->broker->nconns >= q->fd_budget) {
        *limit = q->fd_budget;
        return "the descriptors RLIMIT_NOFILE leaves for connections";
    }
    if (is_protected(l) || l->broker->nconns < q->max_conns)
        return NULL;
    *limit = q->max_conns;
    return "max.connections";
}

static bool
log_due(int64_t *last_us)
{
    int64_t now = gr_mono_us();
    if (*last_us != 0 && now - *last_us < LOG_EVERY_US)
        return false;
    *last_us = now;
    return true;
}

/* --- connection_creation_rate per address */

/* A sensor nobody recorded on for samples x window holds nothing (every
 * sample expired: gr_rate purges them) and goes at the next sweep, done
 * at most once per such span (Kafka keeps an IP's sensor an hour, to the
 * same effect). */
static void
sensors_sweep(gr_quotas_t *q, int64_t now)
{
    int64_t expire = (int64_t)q->samples * q->win_ms;
    if (now - q->sens_swept_ms < expire)
        return;
    q->sens_swept_ms = now;
    for (size_t i = 0; i < q->sens_cap; i++) {
        ip_sensor_t **pp = &q->sens[i];
        while (*pp) {
            ip_sensor_t *x = *pp;
            if (now - x->last_ms >= expire) {
                *pp = x->next;
                free(x);
                q->nsens--;
            } else {
                pp = &x->next;
            }
        }
    }
}

static void
sensors_free(gr_quotas_t *q)
{
    for (size_t i = 0; i < q->sens_cap; i++)
        while (q->sens[i]) {
            ip_sensor_t *x = q->sens[i];
            q->sens[i] = x->next;
            free(x);
        }
    free(q->sens);
    q->sens = NULL;
    q->sens_cap = q->nsens = 0;
}

/* The rate of address a, made when missing; NULL when out of memory. */
static ip_sensor_t *
sensor_get(gr_quotas_t *q, const gr_ipaddr_t *a)
{
    ip_sensor_t *x;
    size_t h;
    if (q->nsens >= q->sens_cap) { /* at most one per bucket on average */
        size_t cap = q->sens_cap ? q->sens_cap * 2 : 64;
        ip_sensor_t **nb = calloc(cap, sizeof(*nb));
        if (nb == NULL && q->sens_cap == 0)
            return NULL;
        for (size_t i = 0; nb != NULL && i < q->sens_cap; i++)
            while (q->sens[i]) {
                ip_sensor_t *y = q->sens[i];
                q->sens[i] = y->next;
                h = ip_hash(&y->addr) & (cap - 1);
                y->next = nb[h];
                nb[h] = y;
            }
        if (nb != NULL) {
            free(q->sens);
            q->sens = nb;
            q->sens_cap = cap;
        }
    }
    h = ip_hash(a) & (q->sens_cap - 1);
    for (x = q->sens[h]; x; x = x->next)
        if (memcmp(&x->addr, a, sizeof *a) == 0)
            return x;
    if ((x = calloc(1, sizeof(*x))) == NULL)
        return NULL;
    x->addr = *a;
    x->rate.samples = q->samples;
    x->rate.win_ms = q->win_ms;
    x->next = q->sens[h];
    q->sens[h] = x;
    q->nsens++;
    return x;
}

/* the heap of throttled sockets, earliest close first */
static void
dl_swap(delayed_close_t *d, int i, int j)
{
    delayed_close_t t = d[i];
    d[i] = d[j];
    d[j] = t;
}

static void
dl_pop(gr_quotas_t *q)
{
    int i = 0;
    q->dl[0] = q->dl[--q->ndl];
    for (;;) {
        int c = 2 * i + 1, m = i;
        if (c < q->ndl && q->dl[c].end_ms < q->dl[m].end_ms)
            m = c;
        if (c + 1 < q->ndl && q->dl[c + 1].end_ms < q->dl[m].end_ms)
            m = c + 1;
        if (m == i)
            return;
        dl_swap(q->dl, i, m);
        i = m;
    }
}

static void
dl_arm(gr_quotas_t *q)
{
    int64_t wait;
    if (gr_timer_armed(&q->dl_timer))
        gr_timer_stop(q->b->loop, &q->dl_timer);
    if (q->ndl == 0)
        return;
    wait = q->dl[0].end_ms - now_ms();
    gr_timer_start(q->b->loop, &q->dl_timer, wait > 0 ? wait : 0);
}

/* closeThrottledConnections */
static void
dl_due(gr_loop_t *loop, gr_timer_t *t)
{
    gr_quotas_t *q = t->data;
    int64_t now = now_ms();
    (void)loop;
    while (q->ndl > 0 && q->dl[0].end_ms <= now) {
        close(q->dl[0].fd);
        dl_pop(q);
    }
    dl_arm(q);
}

/* Closes fd end_ms from now (at once when out of memory, or when the
 * sockets waiting would take the descriptors connections may use). */
static void
dl_push(gr_quotas_t *q, int fd, int64_t end_ms)
{
    int i;
    if (q->ndl + q->b->nconns >= q->fd_budget) {
        close(fd);
        return;
    }
    if (q->ndl == q->dl_cap) {
        int cap = q->dl_cap ? q->dl_cap * 2 : 16;
        delayed_close_t *d = realloc(q->dl, (size_t)cap * sizeof(*d));
        if (d == NULL) {
            close(fd);
            return;
        }
        q->dl = d;
        q->dl_cap = cap;
    }
    i = q->ndl++;
    q->dl[i].fd = fd;
    q->dl[i].end_ms = end_ms;
    while (i > 0 && q->dl[(i - 1) / 2].end_ms > q->dl[i].end_ms) {
        dl_swap(q->dl, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    if (i == 0)
        dl_arm(q);
}

static void
host_text(const struct sockaddr *sa, char *host, size_t n)
{
    snprintf(host, n, "?");
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, host,
                  (socklen_t)n);
    else if (sa->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr,
                  host, (socklen_t)n);
}

/* recordIpConnectionMaybeThrottle: true when ip is over its
 * connection_creation_rate; fd is then the throttled one's, closed
 * later. */
static bool
ip_throttled(gr_listener_t *l, int fd, const gr_ipaddr_t *ip,
             const struct sockaddr *sa)
{
    gr_quotas_t *q = quotas_of(l->broker);
    int32_t bound = gr_client_quotas_ip_rate(l->broker->client_quotas, ip);
    int64_t now, t;
    ip_sensor_t *x;

    if (bound == INT32_MAX) /* QuotaConfig.IP_CONNECTION_RATE_DEFAULT */
        return false;
    now = now_ms();
    sensors_sweep(q, now);
    if ((x = sensor_get(q, ip)) == NULL) {
        GR_LOG_WARN("out of memory measuring connections per address");
        return false;
    }
    x->last_ms = now;
    t = gr_rate_record_throttle(&x->rate, (double)bound, now, q->win_ms);
    if (t <= 0)
        return false;
    /* taken back from every rate it was recorded on (updateListenerMetrics) */
    gr_rate_record(&x->rate, -1, now);
    if (!is_protected(l))
        gr_rate_record(&q->rate, -1, now);
    gr_rate_record(&l->rate, -1, now);
    if (log_due(&q->throttle_log_us)) {
        char host[INET6_ADDRSTRLEN];
        host_text(sa, host, sizeof host);
        GR_LOG_INFO("connection from %s on %s throttled: over its "
                    "connection_creation_rate of %d a second, closed in %lld "
                    "ms unread (%lld more throttled since the last such line)",
                    host, l->name, bound, (long long)t,
                    (long long)q->throttled_unlogged);
        q->throttled_unlogged = 0;
    } else {
        q->throttled_unlogged++;
    }
    dl_push(q, fd, now + t);
    return true;
}

/* Takes fd on as a connection of l, unless its address is at its limit
 * (closed at once, as Kafka's TooManyConnectionsException). */
static void
admit(gr_listener_t *l, int fd, const struct sockaddr *sa, socklen_t salen)
{
    gr_quotas_t *q = quotas_of(l->broker);
    gr_ipaddr_t ip;
    int count;
    int32_t max;

    gr_ipaddr_from_sockaddr(&ip, sa);
    if (ip_throttled(l, fd, &ip, sa))
        return;
    count = gr_iptab_count(q->ips, &ip);
    max = gr_iptab_max(q->ips, &ip);
    if (count >= max) {
        if (log_due(&l->reject_log_us)) {
            char host[INET6_ADDRSTRLEN];
            host_text(sa, host, sizeof host);
            GR_LOG_INFO("Rejected connection from %s, address already has the "
                        "configured maximum of %d connections (%s; %lld more "
                        "rejected on %s since the last such line)",
                        host, max, "max.connections.per.ip",
                        (long long)l->rejected, l->name);
            l->rejected = 0;
        } else {
            l->rejected++;
        }
        close(fd);
        return;
    }
    /* past max.connections on the inter-broker listener: another
     * listener's connection goes before the loop sleeps */
    if (gr_conn_new(l->broker, l, fd, sa, salen) == NULL)
        close(fd);
}

static void
throttle_end(gr_loop_t *loop, gr_timer_t *t)
{
    gr_listener_t *l = t->data;
    (void)loop;
    if (l->held_fd >= 0) {
        int64_t limit;
        if (slot_taken(l, &limit) == NULL) {
            int fd = l->held_fd;
            l->held_fd = -1;
            admit(l, fd, (struct sockaddr *)&l->held_addr, l->held_len);
        }
    }
    listener_events(l);
}

void
gr_quotas_accept(gr_listener_t *l, int fd, const struct sockaddr *sa,
                 socklen_t salen)
{
    gr_quotas_t *q = quotas_of(l->broker);
    int64_t now = now_ms(), throttle = 0, lt, limit = 0;
    const char *full;

    /* recordConnectionAndGetThrottleTimeMs */
    if (!is_protected(l))
        throttle = gr_rate_record_throttle(&q->rate, (double)q->max_rate, now,
                                           q->win_ms);
    lt = gr_rate_record_throttle(&l->rate, (double)l->max_rate, now,
                                 q->win_ms);
    if (lt > throttle)
        throttle = lt;
    full = slot_taken(l, &limit);
    if (throttle <= 0 && full == NULL) {
        admit(l, fd, sa, salen);
        return;
    }
    /* waitForConnectionSlot: this socket waits, and l takes no more */
    l->held_fd = fd;
    memcpy(&l->held_addr, sa, salen);
    l->held_len = salen;
    l->held_until_us = gr_mono_us() + throttle * 1000;
    if (throttle > 0) {
        GR_LOG_DEBUG("connections on %s throttled for %lld ms "
                     "(max.connection.creation.rate)",
                     l->name, (long long)throttle);
        gr_timer_start(l->broker->loop, &l->throttle_timer, throttle);
    } else if (log_due(&l->wait_log_us)) {
        GR_LOG_INFO("new connections on %s wait: %s (%lld) reached", l->name,
                    full, (long long)limit);
    }
    listener_events(l);
}

static void
exhausted_end(gr_loop_t *loop, gr_timer_t *t)
{
    gr_quotas_t *q = t->data;
    (void)loop;
    q->exhausted = false;
    for (int i = 0; i < q->b->nlisteners; i++)
        listener_events(&q->b->listeners[i]);
}

void
gr_quotas_accept_exhausted(gr_listener_t *l, int err)
{
    gr_quotas_t *q = quotas_of(l->broker);
    if (log_due(&q->exhausted_log_us)) {
        GR_LOG_WARN("accept on %s: %s: new connections wait %d ms at a time "
                    "(%lld more such pauses since the last such line; %d "
                    "connections open)",
                    l->name, strerror(err), EXHAUSTED_PAUSE_MS,
                    (long long)q->exhausted_unlogged, l->broker->nconns);
        q->exhausted_unlogged = 0;
    } else {
        q->exhausted_unlogged++;
    }
    q->exhausted = true;
    for (int i = 0; i < l->broker->nlisteners; i++)
        listener_events(&l->broker->listeners[i]);
    gr_timer_start(l->broker->loop, &q->exhausted_timer, EXHAUSTED_PAUSE_MS);
}

void
gr_quotas_conn_opened(gr_listener_t *l, const gr_ipaddr_t *ip)
{
    gr_quotas_t *q = quotas_of(l->broker);
    l->nconns++;
    /* out of memory: the address goes uncounted (its limit is not
     * applied to this connection), as good as it gets */
    if (gr_iptab_add(q->ips, ip, 1) != 0)
        GR_LOG_WARN("out of memory counting connections per address");
}

void
gr_quotas_conn_closed(gr_listener_t *l, const gr_ipaddr_t *ip)
{
    gr_quotas_t *q = quotas_of(l->broker);
    l->nconns--;
    gr_iptab_add(q->ips, ip, -1);
    q->slot_freed = true;
}

void
gr_quotas_before_sleep(gr_broker_t *b)
{
    gr_quotas_t *q = quotas_of(b);
    if (q == NULL)
        return;
    /* Kafka's closeExcessConnections, after max.connections was lowered:
     * one connection of another listener than the inter-broker one a turn
     * per processor; here all of them at once */
    while (b->nconns > q->max_conns &&
           gr_conn_close_lru(b, "max.connections exceeded"))
        ;
    if (!q->slot_freed)
        return;
    q->slot_freed = false;
    for (int i = 0; i < b->nlisteners; i++) {
        gr_listener_t *l = &b->listeners[i];
        if (l->held_fd >= 0 && gr_mono_us() >= l->held_until_us &&
            !gr_timer_armed(&l->throttle_timer))
            throttle_end(b->loop, &l->throttle_timer);
    }
}

/* --- configuration */

/* The value of base key id with dynamic lists bl (this broker's) and dl
 * (the cluster default's), else its static value or default. */
static const char *
base_value(gr_broker_t *b, gr_conf_id_t id, const gr_topic_config_t *bl,
           const gr_topic_config_t *dl)
{
    const char *name = gr_conf_name(id), *v;
    if ((v = gr_config_list_get(bl, name)) != NULL ||
        (v = gr_config_list_get(dl, name)) != NULL ||
        (v = gr_conf_layer_str(b->conf, id, GR_CONF_STATIC)) != NULL)
        return v;
    return gr_conf_layer_str(b->conf, id, GR_CONF_DEFAULT);
}

/* A listener-level setting Kafka reads under the listener's prefix
 * (valuesWithPrefixOverride: the prefixed key wins over the base key in
 * any layer): the value in bl, dl or the static configuration; NULL when
 * none sets it. */
static const char *
listener_setting(gr_broker_t *b, const char *lname, gr_conf_id_t base,
                 const gr_topic_config_t *bl, const gr_topic_config_t *dl)
{
    char key[256], lower[64];
    const char *v = NULL, *k, *sv;
    size_t i;
    for (i = 0; lname[i] && i < sizeof lower - 1; i++)
        lower[i] = (char)(lname[i] >= 'A' && lname[i] <= 'Z' ? lname[i] + 32
                                                             : lname[i]);
    lower[i] = '\0';
    snprintf(key, sizeof key, "listener.name.%s.%s", lower, gr_conf_name(base));
    if ((v = gr_config_list_get(bl, key)) == NULL)
        v = gr_config_list_get(dl, key);
    for (int j = 0; v == NULL && gr_conf_extra_at(b->conf, j, &k, &sv); j++)
        if (strcmp(k, key) == 0)
            v = sv;
    return v;
}

static int64_t
setting_int(const char *v, int64_t dflt)
{
    char *end;
    long long x;
    if (v == NULL)
        return dflt;
    errno = 0;
    x = strtoll(v, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    return errno || end == v || *end || x < 0 ? dflt : x;
}

/* l's max.connections and max.connection.creation.rate with the dynamic
 * lists bl and dl. */
static void
listener_limits(gr_broker_t *b, const gr_listener_t *l,
                const gr_topic_config_t *bl, const gr_topic_config_t *dl,
                int64_t *max_conns, int64_t *max_rate)
{
    *max_conns = setting_int(
        listener_setting(b, l->name, GR_CONF_MAX_CONNECTIONS, bl, dl),
        setting_int(base_value(b, GR_CONF_MAX_CONNECTIONS, bl, dl), INT32_MAX));
    *max_rate = setting_int(
        listener_setting(b, l->name, GR_CONF_MAX_CONNECTION_CREATION_RATE, bl,
                         dl),
        setting_int(base_value(b, GR_CONF_MAX_CONNECTION_CREATION_RATE, bl, dl),
                    INT32_MAX));
}

const char *
gr_quotas_check_dynamic(gr_broker_t *b, const gr_topic_config_t *bl,
                        const gr_topic_config_t *dl, char *msg, size_t n)
{
    const gr_topic_config_t *obl =
        b->cluster ? b->cluster->broker_configs : NULL;
    const gr_topic_config_t *odl =
        b->cluster ? b->cluster->default_broker_configs : NULL;
    const char *ov =
        base_value(b, GR_CONF_MAX_CONNECTIONS_PER_IP_OVERRIDES, bl, dl);

    /* new KafkaConfig(...): its validateValues */
    if (gr_conf_ip_overrides(ov, NULL, NULL, msg, n) != NULL)
        return msg;
    if (setting_int(base_value(b, GR_CONF_MAX_CONNECTIONS_PER_IP, bl, dl), 1) ==
            0 &&
        (ov == NULL || ov[0] == '\0')) {
        snprintf(msg, n,
                 "requirement failed: max.connections.per.ip can be set to "
                 "zero only if max.connections.per.ip.overrides property is "
                 "set.");
        return msg;
    }
    /* each listener's ListenerConnectionQuota.validateReconfiguration,
     * when its values change */
    for (int i = 0; i < b->nlisteners; i++) {
        int64_t omc, orate, mc, rate;
        listener_limits(b, &b->listeners[i], obl, odl, &omc, &orate);
        listener_limits(b, &b->listeners[i], bl, dl, &mc, &rate);
        if (mc == omc && rate == orate)
            continue;
        if (mc <= 0 || rate <= 0) {
            snprintf(msg, n,
                     "Invalid value org.apache.kafka.common.config."
                     "ConfigException: Invalid %s %lld for configuration "
                     "Invalid dynamic configuration",
                     mc <= 0 ? "max.connections"
                             : "max.connection.creation.rate",
                     (long long)(mc <= 0 ? mc : rate));
            return msg;
        }
    }
    return NULL;
}

typedef struct ov_list {
    int n, cap;
    char **hosts;
    gr_ipaddr_t *addrs;
    int32_t *counts;
    bool *resolved;
    bool oom;
    uint64_t gen;
    gr_quotas_t *q;
} ov_list_t;

static void
ov_free(ov_list_t *o)
{
    for (int i = 0; i < o->n; i++)
        free(o->hosts[i]);
    free(o->hosts);
    free(o->addrs);
    free(o->counts);
    free(o->resolved);
    free(o);
}

static void
ov_add(const char *host, int32_t count, void *arg)
{
    ov_list_t *o = arg;
    if (o->n == o->cap) {
        int cap = o->cap ? o->cap * 2 : 8;
        char **h = realloc(o->hosts, (size_t)cap * sizeof(*h));
        gr_ipaddr_t *a = h ? realloc(o->addrs, (size_t)cap * sizeof(*a)) : NULL;
        int32_t *c = a ? realloc(o->counts, (size_t)cap * sizeof(*c)) : NULL;
        bool *r = c ? realloc(o->resolved, (size_t)cap * sizeof(*r)) : NULL;
        if (h)
            o->hosts = h;
        if (a)
            o->addrs = a;
        if (c)
            o->counts = c;
        if (r)
            o->resolved = r;
        if (r == NULL) {
            o->oom = true;
            return;
        }
        o->cap = cap;
    }
    if ((o->hosts[o->n] = strdup(host)) == NULL) {
        o->oom = true;
        return;
    }
    o->counts[o->n] = count;
    /* InetAddress.getByName: "" is the loopback address; a numeric one
     * is itself; a name is looked up (on a worker) */
    o->resolved[o->n] =
        gr_ipaddr_parse(&o->addrs[o->n], host[0] ? host : "127.0.0.1") == 0;
    o->n++;
}

/* On a worker: looks the names up, as InetAddress.getByName (its first
 * address, IPv4 first). */
static void
ov_resolve(void *arg)
{
    ov_list_t *o = arg;
    for (int i = 0; i < o->n; i++) {
        struct addrinfo hints, *res = NULL, *ai, *pick = NULL;
        if (o->resolved[i])
            continue;
        memset(&hints, 0, sizeof hints);
        hints.ai_socktype = SOCK_STREAM;
        if (getaddrinfo(o->hosts[i], NULL, &hints, &res) != 0)
            continue;
        for (ai = res; ai; ai = ai->ai_next)
            if (pick == NULL ||
                (ai->ai_family == AF_INET && pick->ai_family != AF_INET))
                pick = ai;
        if (pick != NULL) {
            gr_ipaddr_from_sockaddr(&o->addrs[i], pick->ai_addr);
            o->resolved[i] = true;
        }
        freeaddrinfo(res);
    }
}

static void quotas_free(gr_quotas_t *q);

static void
ov_apply(gr_quotas_t *q, ov_list_t *o)
{
    gr_ipaddr_t *addrs = calloc((size_t)(o->n + 1), sizeof(*addrs));
    int32_t *counts = calloc((size_t)(o->n + 1), sizeof(*counts));
    int n = 0;
    if (addrs == NULL || counts == NULL) {
        GR_LOG_WARN("out of memory applying max.connections.per.ip.overrides");
        free(addrs);
        free(counts);
        return;
    }
    for (int i = 0; i < o->n; i++) {
        if (!o->resolved[i]) {
            GR_LOG_WARN("max.connections.per.ip.overrides: cannot resolve "
                        "%s; its override (%d) is not applied",
                        o->hosts[i], o->counts[i]);
            continue;
        }
        addrs[n] = o->addrs[i];
        counts[n++] = o->counts[i];
    }
    if (gr_iptab_set_limits(
            q->ips,
            (int32_t)gr_conf_int(q->b->conf, GR_CONF_MAX_CONNECTIONS_PER_IP),
            addrs, counts, n) != 0)
        GR_LOG_WARN("out of memory applying max.connections.per.ip.overrides");
    free(addrs);
    free(counts);
}

static void
ov_resolved(gr_loop_t *loop, void *arg)
{
    ov_list_t *o = arg;
    gr_quotas_t *q = o->q;
    (void)loop;
    q->jobs--;
    if (!q->stopped && o->gen == q->gen)
        ov_apply(q, o);
    ov_free(o);
    if (q->stopped && q->jobs == 0)
        quotas_free(q);
}

/* Applies max.connections.per.ip and its overrides. At start-up (before
 * the loop runs) names are looked up at once, and one that does not
 * resolve stops the start as Kafka's UnknownHostException does: -1;
 * later, on a worker, and such a name is left out (logged). */
static int
configure_overrides(gr_quotas_t *q, bool starting)
{
    const char *v =
        gr_conf_str(q->b->conf, GR_CONF_MAX_CONNECTIONS_PER_IP_OVERRIDES);
    char msg[512];
    ov_list_t *o;
    bool names = false;

    if (v == NULL)
        v = "";
    q->gen++;
    o = calloc(1, sizeof(*o));
    if (o == NULL) {
        GR_LOG_ERROR("out of memory applying max.connections.per.ip.overrides");
        return -1;
    }
    o->q = q;
    o->gen = q->gen;
    /* checked when set (conf.c, gr_quotas_check_dynamic) */
    if (gr_conf_ip_overrides(v, ov_add, o, msg, sizeof msg) != NULL)
        GR_LOG_WARN("max.connections.per.ip.overrides=%s is not valid: %s; "
                    "no overrides apply",
                    v, msg);
    if (o->oom)
        GR_LOG_WARN("out of memory applying max.connections.per.ip.overrides");
    for (int i = 0; i < o->n; i++)
        names |= !o->resolved[i];
    if (names && starting) {
        ov_resolve(o);
        for (int i = 0; i < o->n; i++) {
            if (o->resolved[i])
                continue;
            GR_LOG_ERROR("max.connections.per.ip.overrides: %s: cannot "
                         "resolve the host name",
                         o->hosts[i]);
            ov_free(o);
            return -1;
        }
        names = false;
    }
    /* the numeric ones at once; names once looked up */
    ov_apply(q, o);
    if (names && q->b->workers != NULL &&
        gr_workers_submit(q->b->workers, ov_resolve, ov_resolved, o) == 0) {
        q->jobs++;
        return 0;
    }
    if (names)
        GR_LOG_WARN("max.connections.per.ip.overrides: host names could not "
                    "be looked up; only numeric addresses apply");
    ov_free(o);
    return 0;
}

static int
configure(gr_broker_t *b, bool starting)
{
    gr_quotas_t *q = quotas_of(b);
    const char *ib, *k, *v;
    const char *ov;
    int rc = 0;
    if (q == NULL)
        return 0;
    q->max_conns = gr_conf_int(b->conf, GR_CONF_MAX_CONNECTIONS);
    q->max_rate = gr_conf_int(b->conf, GR_CONF_MAX_CONNECTION_CREATION_RATE);
    q->fd_budget = fd_budget(); /* after broker.c raised RLIMIT_NOFILE */
    ov = gr_conf_str(b->conf, GR_CONF_MAX_CONNECTIONS_PER_IP_OVERRIDES);
    if (q->overrides == NULL || strcmp(q->overrides, ov ? ov : "") != 0 ||
        q->per_ip != gr_conf_int(b->conf, GR_CONF_MAX_CONNECTIONS_PER_IP)) {
        q->per_ip = gr_conf_int(b->conf, GR_CONF_MAX_CONNECTIONS_PER_IP);
        free(q->overrides);
        q->overrides = strdup(ov ? ov : "");
        rc = configure_overrides(q, starting);
    }
    /* the inter-broker listener: inter.broker.listener.name, else the
     * listener named after security.inter.broker.protocol (PLAINTEXT) */
    ib = gr_conf_str(b->conf, GR_CONF_INTER_BROKER_LISTENER_NAME);
    for (int j = 0; ib == NULL && gr_conf_extra_at(b->conf, j, &k, &v); j++)
        if (strcmp(k, "security.inter.broker.protocol") == 0)
            ib = v;
    if (ib == NULL)
        ib = "PLAINTEXT";
    for (int i = 0; i < b->nlisteners; i++) {
        gr_listener_t *l = &b->listeners[i];
        l->inter_broker = strcasecmp(l->name, ib) == 0;
        listener_limits(b, l, b->cluster ? b->cluster->broker_configs : NULL,
                        b->cluster ? b->cluster->default_broker_configs : NULL,
                        &l->max_conns, &l->max_rate);
    }
    /* a raised limit lets waiting listeners go on (Kafka's notifyAll) */
    q->slot_freed = true;
    return rc;
}

void
gr_quotas_configure(gr_broker_t *b)
{
    configure(b, false);
}

int
gr_quotas_start(gr_broker_t *b)
{
    gr_quotas_t *q = calloc(1, sizeof(*q));
    if (q == NULL || (q->ips = gr_iptab_new()) == NULL) {
        free(q);
        GR_LOG_ERROR("out of memory for the connection quotas");
        return -1;
    }
    q->b = b;
    q->samples = (int)gr_conf_int(b->conf, GR_CONF_QUOTA_WINDOW_NUM);
    q->win_ms = gr_conf_int(b->conf, GR_CONF_QUOTA_WINDOW_SIZE_SECONDS) * 1000;
    if (q->samples <= 0 || q->samples > GR_RATE_SAMPLES_MAX)
        q->samples = GR_RATE_SAMPLES;
    if (q->win_ms <= 0)
        q->win_ms = GR_RATE_WINDOW_MS;
    q->rate.samples = q->samples;
    q->rate.win_ms = q->win_ms;
    gr_timer_init(&q->exhausted_timer, exhausted_end, q);
    gr_timer_init(&q->dl_timer, dl_due, q);
    b->quotas = q;
    for (int i = 0; i < b->nlisteners; i++) {
        gr_listener_t *l = &b->listeners[i];
        l->held_fd = -1;
        l->accepting = true;
        l->rate.samples = q->samples;
        l->rate.win_ms = q->win_ms;
        gr_timer_init(&l->throttle_timer, throttle_end, l);
    }
    if (configure(b, true) != 0) {
        gr_quotas_stop(b);
        return -1;
    }
    return 0;
}

static void
quotas_free(gr_quotas_t *q)
{
    gr_iptab_destroy(q->ips);
    free(q->overrides);
    sensors_free(q);
    free(q->dl);
    free(q);
}

void
gr_quotas_stop(gr_broker_t *b)
{
    gr_quotas_t *q = quotas_of(b);
    if (q == NULL)
        return;
    gr_timer_stop(b->loop, &q->exhausted_timer);
    gr_timer_stop(b->loop, &q->dl_timer);
    for (int i = 0; i < q->ndl; i++)
        close(q->dl[i].fd);
    q->ndl = 0;
    for (int i = 0; i < b->nlisteners; i++) {
        gr_listener_t *l = &b->listeners[i];
        gr_timer_stop(b->loop, &l->throttle_timer);
        if (l->held_fd >= 0)
            close(l->held_fd);
        l->held_fd = -1;
    }
    b->quotas = NULL;
    q->stopped = true;
    if (q->jobs == 0)
        quotas_free(q);
}
