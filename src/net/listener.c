/* Listeners: see listener.h. */
#include "net/listener.h"
#include "broker.h"
#include "core/log.h"
#include "core/time.h"
#include "net/conn.h"
#include "net/sasl.h"
#include "net/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Takes pending connections while the listener accepts; the quotas
 * (quota.c) decide what becomes of each, and may stop the listener. */
static void
accept_cb(gr_loop_t *loop, gr_io_t *io, uint32_t events)
{
    gr_listener_t *l = io->data;
    (void)loop;
    (void)events;
    for (int i = 0; i < 64 && l->accepting; i++) {
        struct sockaddr_storage ss;
        socklen_t slen = sizeof ss;
        int fd = accept4(io->fd, (struct sockaddr *)&ss, &slen,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            switch (errno) {
            case EAGAIN:
#if EWOULDBLOCK != EAGAIN
            case EWOULDBLOCK:
#endif
                return;
            case EMFILE:
            case ENFILE:
            case ENOBUFS:
            case ENOMEM:
                gr_quotas_accept_exhausted(l, errno);
                return;
            case EINTR:
            case ECONNABORTED:
            case EPROTO:
            case EPERM:
            case ENETDOWN:
            case ENOPROTOOPT:
            case EHOSTDOWN:
            case ENONET:
            case EHOSTUNREACH:
            case EOPNOTSUPP:
            case ENETUNREACH:
                continue; /* that connection's own failure (accept(2)) */
            default:
                if (gr_mono_us() - l->error_log_us >= 10000000) {
                    l->error_log_us = gr_mono_us();
                    GR_LOG_WARN("accept on %s: %s", l->name, strerror(errno));
                }
                return;
            }
        }
        gr_quotas_accept(l, fd, (struct sockaddr *)&ss, slen);
    }
}

/* Splits "NAME://host:port"; host may be [v6]. */
static int
parse_listener(const char *s, char *name, size_t nsz, char *host, size_t hsz,
               int *port)
{
    const char *sep = strstr(s, "://"), *h, *colon;
    char *end;
    long p;
    if (sep == NULL || sep == s || (size_t)(sep - s) >= nsz)
        return -1;
    memcpy(name, s, (size_t)(sep - s));
    name[sep - s] = '\0';
    h = sep + 3;
    if (*h == '[') {
        const char *rb = strchr(h, ']');
        if (rb == NULL || rb[1] != ':')
            return -1;
        if ((size_t)(rb - h - 1) >= hsz)
            return -1;
        memcpy(host, h + 1, (size_t)(rb - h - 1));
        host[rb - h - 1] = '\0';
        colon = rb + 1;
    } else {
        colon = strrchr(h, ':');
        if (colon == NULL || (size_t)(colon - h) >= hsz)
            return -1;
        memcpy(host, h, (size_t)(colon - h));
        host[colon - h] = '\0';
    }
    errno = 0;
    p = strtol(colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || p < 0 || p > 65535)
        return -1;
    *port = (int)p;
    return 0;
}

static int
in_list(const char *list, const char *name)
{
    char buf[1024];
    const char *items[32];
    int n = gr_conf_list_split(list, buf, sizeof buf, items, 32);
    for (int i = 0; i < n; i++)
        if (strcmp(items[i], name) == 0)
            return 1;
    return 0;
}

/* The security protocol of listener `name`, from the protocol map. */
static int
protocol_of(gr_broker_t *b, const char *name, char *out, size_t osz)
{
    char buf[2048];
    const char *items[64];
    int n = gr_conf_list_split(
        gr_conf_str(b->conf, GR_CONF_LISTENER_SECURITY_PROTOCOL_MAP), buf,
        sizeof buf, items, 64);
    for (int i = 0; i < n; i++) {
        const char *c = strchr(items[i], ':');
        if (c && (size_t)(c - items[i]) == strlen(name) &&
            strncmp(items[i], name, (size_t)(c - items[i])) == 0) {
            snprintf(out, osz, "%s", c + 1);
            return 0;
        }
    }
    /* Kafka: a listener name that is a protocol name maps to itself */
    if (!strcmp(name, "PLAINTEXT") || !strcmp(name, "SSL") ||
        !strcmp(name, "SASL_PLAINTEXT") || !strcmp(name, "SASL_SSL")) {
        size_t len = strlen(name) < osz ? strlen(name) : osz - 1;
        memmove(out, name, len);
        out[len] = '\0';
        return 0;
    }
    return -1;
}

static int
bind_one(gr_listener_t *l, const struct sockaddr *sa, socklen_t slen,
         int backlog)
{
    int fd, one = 1;
    if (l->nfds >= GR_LISTENER_MAX_FDS)
        return -1;
    fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (sa->sa_family == AF_INET6) {
        /* "all addresses" binds :: for both families; a specific v6
         * address stays v6 only */
        int v6only = l->host[0] != '\0';
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    }
    if (bind(fd, sa, slen) != 0 || listen(fd, backlog) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    l->io[l->nfds].fd = fd;
    l->io[l->nfds].cb = accept_cb;
    l->io[l->nfds].data = l;
    l->nfds++;
    return fd;
}

static int
bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t slen = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &slen) != 0)
        return -1;
    if (ss.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

static void
set_port(struct sockaddr *sa, int port)
{
    if (sa->sa_family == AF_INET)
        ((struct sockaddr_in *)sa)->sin_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in6 *)sa)->sin6_port = htons((uint16_t)port);
}

static void
close_fds(gr_listener_t *l)
{
    for (int i = 0; i < l->nfds; i++)
        close(l->io[i].fd);
    l->nfds = 0;
}

/* The addresses to bind for l->host: "localhost" is the two loopbacks (not
 * whatever /etc/hosts lists), "" every address (:: takes both families when
 * the host has IPv6), anything else what the resolver returns. */
static int
resolve(gr_listener_t *l, struct sockaddr_storage *out, socklen_t *lens,
        int max)
{
    struct addrinfo hints, *res = NULL, *ai;
    int n = 0, rc;

    if (strcmp(l->host, "localhost") == 0) {
        struct sockaddr_in *in4 = (struct sockaddr_in *)&out[0];
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&out[1];
        memset(out, 0, 2 * sizeof(*out));
        in4->sin_family = AF_INET;
        in4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        lens[0] = sizeof(*in4);
        in6->sin6_family = AF_INET6;
        in6->sin6_addr = in6addr_loopback;
        lens[1] = sizeof(*in6);
        return 2;
    }
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    if (l->host[0] == '\0')
        hints.ai_family = AF_INET6;
    rc = getaddrinfo(l->host[0] ? l->host : NULL, "0", &hints, &res);
    if (rc != 0 && l->host[0] == '\0') {
        hints.ai_family = AF_INET; /* no IPv6 on this host */
        rc = getaddrinfo(NULL, "0", &hints, &res);
    }
    if (rc != 0) {
        GR_LOG_ERROR("listener %s: cannot resolve '%s': %s", l->name, l->host,
                     gai_strerror(rc));
        return -1;
    }
    for (ai = res; ai && n < max; ai = ai->ai_next) {
        int dup = 0;
        for (int i = 0; i < n; i++)
            if (lens[i] == ai->ai_addrlen &&
                memcmp(&out[i], ai->ai_addr, ai->ai_addrlen) == 0)
                dup = 1;
        if (dup)
            continue;
        memcpy(&out[n], ai->ai_addr, ai->ai_addrlen);
        lens[n++] = ai->ai_addrlen;
    }
    freeaddrinfo(res);
    return n;
}

/* Binds every address of l->host on one port (l->port, or a free one). */
static int
bind_listener(gr_listener_t *l, int backlog)
{
    struct sockaddr_storage addrs[GR_LISTENER_MAX_FDS];
    socklen_t lens[GR_LISTENER_MAX_FDS];
    int naddrs = resolve(l, addrs, lens, GR_LISTENER_MAX_FDS);

    if (naddrs <= 0)
        return -1;
    for (int attempt = 0; attempt < 20; attempt++) {
        int want = l->port, e = 0, failed = 0;
        for (int i = 0; i < naddrs; i++) {
            int fd;
            set_port((struct sockaddr *)&addrs[i], want);
            fd = bind_one(l, (struct sockaddr *)&addrs[i], lens[i], backlog);
            if (fd < 0) {
                /* ::1 may be absent on hosts without IPv6: skip it when
                 * another address is bound */
                if (addrs[i].ss_family == AF_INET6 &&
                    (errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT) &&
                    naddrs > 1)
                    continue;
                e = errno;
                failed = 1;
                break;
            }
            if (want == 0)
                want = bound_port(fd);
        }
        if (!failed && l->nfds > 0) {
            l->port = want;
            return 0;
        }
        close_fds(l);
        if (l->port != 0 || e != EADDRINUSE) {
            GR_LOG_ERROR("listener %s: cannot bind %s:%d: %s", l->name,
                         l->host[0] ? l->host : "*", l->port,
                         strerror(e ? e : EADDRNOTAVAIL));
            return -1;
        }
        /* the free port of the first address was taken on another: retry */
    }
    GR_LOG_ERROR("listener %s: no free port found", l->name);
    return -1;
}

static void
set_advertised(gr_broker_t *b)
{
    char buf[4096];
    const char *items[GR_MAX_LISTENERS];
    const char *adv = gr_conf_str(b->conf, GR_CONF_ADVERTISED_LISTENERS);
    int n = adv ? gr_conf_list_split(adv, buf, sizeof buf, items,
                                     GR_MAX_LISTENERS)
                : 0;

    for (int i = 0; i < b->nlisteners; i++) {
        gr_listener_t *l = &b->listeners[i];
        snprintf(l->adv_host, sizeof l->adv_host, "%s", l->host);
        l->adv_port = l->port;
        for (int j = 0; j < n; j++) {
            char name[64], host[256];
            int port;
            if (parse_listener(items[j], name, sizeof name, host, sizeof host,
                               &port) == 0 &&
                strcmp(name, l->name) == 0) {
                snprintf(l->adv_host, sizeof l->adv_host, "%s", host);
                /* port 0 advertised means "the port bound" */
                l->adv_port = port ? port : l->port;
            }
        }
        if (l->adv_host[0] == '\0') {
            /* as Kafka: an unspecified host advertises the host name */
            if (gethostname(l->adv_host, sizeof l->adv_host) != 0)
                snprintf(l->adv_host, sizeof l->adv_host, "localhost");
        }
    }
}

int
gr_listeners_open(gr_broker_t *b)
{
    char buf[4096];
    const char *items[GR_MAX_LISTENERS];
    const char *ctl = gr_conf_str(b->conf, GR_CONF_CONTROLLER_LISTENER_NAMES);
    int backlog = (int)gr_conf_int(b->conf, GR_CONF_SOCKET_LISTEN_BACKLOG_SIZE);
    int n = gr_conf_list_split(gr_conf_str(b->conf, GR_CONF_LISTENERS), buf,
                               sizeof buf, items, GR_MAX_LISTENERS);

    for (int i = 0; i < n; i++) {
        gr_listener_t *l = &b->listeners[b->nlisteners];
        memset(l, 0, sizeof *l);
        l->broker = b;
        l->held_fd = -1;
        l->accepting = true;
        if (parse_listener(items[i], l->name, sizeof l->name, l->host,
                           sizeof l->host, &l->port) != 0) {
            GR_LOG_ERROR("invalid value %s for configuration listeners: "
                         "expected NAME://host:port",
                         items[i]);
            return -1;
        }
        if (ctl && in_list(ctl, l->name)) {
            GR_LOG_INFO("listener %s is a controller listener "
                        "(controller.listener.names); not bound: Gregor has "
                        "no KRaft controller",
                        l->name);
            continue;
        }
        for (int j = 0; j < b->nlisteners; j++) {
            if (strcmp(b->listeners[j].name, l->name) == 0) {
                GR_LOG_ERROR("invalid value for configuration listeners: "
                             "listener name %s appears twice",
                             l->name);
                return -1;
            }
        }
        if (protocol_of(b, l->name, l->protocol, sizeof l->protocol) != 0) {
            GR_LOG_ERROR("listener %s has no security protocol in "
                         "listener.security.protocol.map",
                         l->name);
            return -1;
        }
        if (strcmp(l->protocol, "PLAINTEXT") != 0 &&
            strcmp(l->protocol, "SSL") != 0 &&
            strcmp(l->protocol, "SASL_PLAINTEXT") != 0 &&
            strcmp(l->protocol, "SASL_SSL") != 0) {
            GR_LOG_ERROR("listener %s: unknown security protocol %s "
                         "(PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)",
                         l->name, l->protocol);
            return -1;
        }
        if (strcmp(l->protocol, "SSL") == 0 ||
            strcmp(l->protocol, "SASL_SSL") == 0) {
            if ((l->tls = gr_tls_ctx_new(b->conf, l->name)) == NULL)
                return -1;
        }
        if (strncmp(l->protocol, "SASL_", 5) == 0 &&
            (l->sasl = gr_sasl_listener_new(b->conf, l->name)) == NULL) {
            gr_tls_ctx_free(l->tls);
            l->tls = NULL;
            return -1;
        }
        if (bind_listener(l, backlog) != 0) {
            gr_tls_ctx_free(l->tls);
            l->tls = NULL;
            gr_sasl_listener_free(l->sasl);
            l->sasl = NULL;
            return -1;
        }
        for (int k = 0; k < l->nfds; k++)
            gr_loop_io_add(b->loop, &l->io[k], GR_IO_READ);
        b->nlisteners++;
    }
    if (b->nlisteners == 0) {
        GR_LOG_ERROR("no listener to serve clients on (listeners=%s)",
                     gr_conf_str(b->conf, GR_CONF_LISTENERS));
        return -1;
    }
    set_advertised(b);
    return 0;
}

void
gr_listeners_close(gr_broker_t *b)
{
    for (int i = 0; i < b->nlisteners; i++) {
        gr_listener_t *l = &b->listeners[i];
        for (int k = 0; k < l->nfds; k++)
            gr_loop_io_del(b->loop, &l->io[k]);
        close_fds(l);
        gr_tls_ctx_free(l->tls);
        l->tls = NULL;
        gr_sasl_listener_free(l->sasl);
        l->sasl = NULL;
    }
    b->nlisteners = 0;
}

gr_listener_t *
gr_listener_find(gr_broker_t *b, const char *name)
{
    for (int i = 0; i < b->nlisteners; i++)
        if (strcmp(b->listeners[i].name, name) == 0)
            return &b->listeners[i];
    return NULL;
}
