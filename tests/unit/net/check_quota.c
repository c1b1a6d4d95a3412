/* net/quota: Kafka's connection quotas. The rate and the per-address
 * table by their numbers (Kafka's Rate and ConnectionQuotas computed by
 * hand); the accept path on a broker in this process, over real
 * connections: per-address limits close at once, max.connections and the
 * creation rate make new connections wait, the inter-broker listener
 * closes another listener's least recently used connection, and accept(2)
 * out of descriptors pauses the listener instead of spinning. */
#include "../api/brokertest.h"
#include "../unit.h"

#include "net/quota.h"
#include "proto/gen/proto_table.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --- Kafka's Rate: 11 samples of 1 s */

START_TEST(test_rate_kafka_numbers)
{
    gr_rate_t r;
    memset(&r, 0, sizeof r);
    /* the first window is measured as 10 s: 100 at once are 10/s */
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(gr_rate_record_throttle(&r, 10, 5000, 1000), 0);
    ck_assert_int_eq(gr_rate_window_ms(&r, 5000), 10000);
    /* the 101st: (10.1 - 10) / 10 * 10000 ms */
    ck_assert_int_eq(gr_rate_record_throttle(&r, 10, 5000, 1000), 100);
    /* 999 ms on the window is 10.999 s: 102 / 10.999 is within 10/s */
    ck_assert_int_eq(gr_rate_window_ms(&r, 5999), 10999);
    ck_assert_int_eq(gr_rate_record_throttle(&r, 10, 5999, 1000), 0);
    /* a full window later the span is 1 s + 9 s: 103 / 10 s is 10.3/s,
     * 300 ms (Kafka's window shrinks as a sample completes) */
    ck_assert_int_eq(gr_rate_window_ms(&r, 6000), 10000);
    ck_assert_int_eq(gr_rate_record_throttle(&r, 10, 6000, 1000), 300);
    /* far over: bounded by quota.window.size.seconds */
    for (int i = 0; i < 50; i++)
        gr_rate_record(&r, 1, 6000);
    ck_assert_int_eq(gr_rate_record_throttle(&r, 10, 6000, 1000), 1000);
    /* 11 s after the last event everything has expired */
    ck_assert_int_eq(gr_rate_record_throttle(&r, 10, 17000, 1000), 0);
    ck_assert(gr_rate_measure(&r, 17000) < 0.2);
}
END_TEST

/* One a second for a minute through the 12 slots: the rate is 1/s. */
START_TEST(test_rate_steady)
{
    gr_rate_t r;
    memset(&r, 0, sizeof r);
    for (int64_t t = 0; t < 60000; t += 1000)
        ck_assert_int_eq(gr_rate_record_throttle(&r, 1.2, t, 1000), 0);
    ck_assert(gr_rate_measure(&r, 59000) > 0.9);
    ck_assert(gr_rate_measure(&r, 59000) < 1.2);
    ck_assert(r.n <= GR_RATE_SAMPLES + 1);
}
END_TEST

/* --- per-address counts */

START_TEST(test_iptab)
{
    gr_iptab_t *t = gr_iptab_new();
    gr_ipaddr_t a, b, mapped, ov[3];
    int32_t counts[3] = { 2, 0, 5 };
    struct sockaddr_in in4;
    struct sockaddr_in6 in6;

    ck_assert_int_eq(gr_ipaddr_parse(&a, "10.0.0.1"), 0);
    ck_assert_int_eq(gr_ipaddr_parse(&b, "::1"), 0);
    ck_assert_int_eq(gr_ipaddr_parse(&mapped, "::ffff:10.0.0.1"), 0);
    ck_assert_int_eq(gr_ipaddr_parse(&ov[0], "no.such.name"), -1);
    /* an IPv4 address and its IPv4-mapped form are one (InetAddress) */
    ck_assert_mem_eq(&a, &mapped, sizeof a);
    memset(&in4, 0, sizeof in4);
    in4.sin_family = AF_INET;
    inet_pton(AF_INET, "10.0.0.1", &in4.sin_addr);
    gr_ipaddr_from_sockaddr(&mapped, (struct sockaddr *)&in4);
    ck_assert_mem_eq(&a, &mapped, sizeof a);
    memset(&in6, 0, sizeof in6);
    in6.sin6_family = AF_INET6;
    in6.sin6_scope_id = 3; /* not part of the key */
    inet_pton(AF_INET6, "::1", &in6.sin6_addr);
    gr_ipaddr_from_sockaddr(&mapped, (struct sockaddr *)&in6);
    ck_assert_mem_eq(&b, &mapped, sizeof b);

    ck_assert_int_eq(gr_iptab_count(t, &a), 0);
    ck_assert_int_eq(gr_iptab_add(t, &a, 1), 0);
    ck_assert_int_eq(gr_iptab_add(t, &a, 1), 0);
    ck_assert_int_eq(gr_iptab_add(t, &b, 1), 0);
    ck_assert_int_eq(gr_iptab_count(t, &a), 2);
    ck_assert_int_eq(gr_iptab_count(t, &b), 1);
    gr_iptab_add(t, &a, -1);
    gr_iptab_add(t, &a, -1);
    gr_iptab_add(t, &a, -1); /* below zero: stays 0 */
    ck_assert_int_eq(gr_iptab_count(t, &a), 0);
    ck_assert_int_eq(gr_iptab_count(t, &b), 1);
    /* many addresses come and go: the table rehashes, counts stay */
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 5000; i++) {
            gr_ipaddr_t x;
            char s[32];
            snprintf(s, sizeof s, "10.%d.%d.%d", round, i / 256, i % 256);
            ck_assert_int_eq(gr_ipaddr_parse(&x, s), 0);
            ck_assert_int_eq(gr_iptab_add(t, &x, 1), 0);
        }
        for (int i = 0; i < 5000; i++) {
            gr_ipaddr_t x;
            char s[32];
            snprintf(s, sizeof s, "10.%d.%d.%d", round, i / 256, i % 256);
            gr_ipaddr_parse(&x, s);
            ck_assert_int_eq(gr_iptab_count(t, &x), 1);
            gr_iptab_add(t, &x, -1);
        }
    }
    ck_assert_int_eq(gr_iptab_count(t, &b), 1);

    /* limits: the default, overrides (the last of an address wins) */
    ck_assert_int_eq(gr_iptab_max(t, &a), INT32_MAX);
    gr_ipaddr_parse(&ov[0], "10.0.0.1");
    gr_ipaddr_parse(&ov[1], "::1");
    gr_ipaddr_parse(&ov[2], "::ffff:10.0.0.1");
    ck_assert_int_eq(gr_iptab_set_limits(t, 7, ov, counts, 3), 0);
    ck_assert_int_eq(gr_iptab_max(t, &a), 5);
    ck_assert_int_eq(gr_iptab_max(t, &b), 0);
    gr_ipaddr_parse(&mapped, "10.9.9.9");
    ck_assert_int_eq(gr_iptab_max(t, &mapped), 7);
    gr_iptab_destroy(t);
}
END_TEST

/* --- the accept path */

static int64_t
ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The port of the n-th listener the broker wrote. */
static int
listener_port(const gr_brokertest_t *bt, int n)
{
    char path[128], line[256];
    FILE *f;
    int port = -1;
    snprintf(path, sizeof path, "%s/listeners", bt->dir);
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; fgets(line, sizeof line, f) != NULL; i++)
        if (i == n)
            port = atoi(strrchr(line, ':') + 1);
    fclose(f);
    ck_assert_int_gt(port, 0);
    return port;
}

static int
connect_to(int port)
{
    struct sockaddr_in sa;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    return fd;
}

/* ApiVersions v0, client id "" */
static const uint8_t api_versions[] = { 0, 0, 0, 10, 0, 18, 0,
                                        0, 0, 0, 0,  1, 0,  0 };

/* What became of a request on fd within ms: 1 answered, 0 closed, -1
 * neither. */
static int
outcome(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    uint8_t buf[4096];
    ssize_t n;
    if (send(fd, api_versions, sizeof api_versions, MSG_NOSIGNAL) < 0)
        return 0;
    if (poll(&p, 1, ms) <= 0)
        return -1;
    n = recv(fd, buf, sizeof buf, 0);
    return n > 0 ? 1 : 0;
}

/* Waits for the answer of a request sent before (outcome() == -1). */
static int
later(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    uint8_t buf[4096];
    if (poll(&p, 1, ms) <= 0)
        return -1;
    return recv(fd, buf, sizeof buf, 0) > 0 ? 1 : 0;
}

static void
call_once(gr_brokertest_t *bt)
{
    gr_api_versions_request_t rq;
    gr_api_versions_response_t *rs;
    gr_api_versions_request_init(&rq);
    rs = gr_brokertest_call(bt, GR_API_API_VERSIONS, 0, &rq);
    ck_assert_int_eq(rs->error_code, 0);
}

/* max.connections.per.ip and its overrides: every test connection comes
 * from 127.0.0.1, which may have 3 (the test's own and two more); the
 * fourth is closed at once, and a freed slot is usable again. */
START_TEST(test_per_ip_limit)
{
    static const char *const ov[] = {
        "max.connections.per.ip=1",
        "max.connections.per.ip.overrides=127.0.0.1:3,10.0.0.1:1", NULL
    };
    gr_brokertest_t bt;
    int port, c1, c2, c3, c4;

    gr_brokertest_start(&bt, ov);
    call_once(&bt);
    port = listener_port(&bt, 0);
    c1 = connect_to(port);
    c2 = connect_to(port);
    ck_assert_int_eq(outcome(c1, 2000), 1);
    ck_assert_int_eq(outcome(c2, 2000), 1);
    c3 = connect_to(port);
    ck_assert_int_eq(outcome(c3, 2000), 0); /* closed, not answered */
    close(c3);
    close(c1);
    usleep(100 * 1000);
    c4 = connect_to(port);
    ck_assert_int_eq(outcome(c4, 2000), 1);
    call_once(&bt);
    close(c2);
    close(c4);
    gr_brokertest_stop(&bt);
}
END_TEST

/* max.connections: a new connection waits (Kafka's acceptor blocks),
 * neither served nor closed, and goes on once a slot frees. */
START_TEST(test_max_connections_waits)
{
    static const char *const ov[] = { "max.connections=2", NULL };
    gr_brokertest_t bt;
    int port, c1, c2, c3;

    gr_brokertest_start(&bt, ov);
    call_once(&bt);
    port = listener_port(&bt, 0);
    c1 = connect_to(port);
    ck_assert_int_eq(outcome(c1, 2000), 1);
    c2 = connect_to(port);
    ck_assert_int_eq(outcome(c2, 500), -1);
    c3 = connect_to(port); /* in the backlog behind c2 */
    ck_assert_int_eq(outcome(c3, 200), -1);
    close(c1);
    ck_assert_int_eq(later(c2, 2000), 1);
    ck_assert_int_eq(later(c3, 300), -1); /* still full */
    call_once(&bt);
    close(c2);
    ck_assert_int_eq(later(c3, 2000), 1);
    close(c3);
    gr_brokertest_stop(&bt);
}
END_TEST

/* With the overrides ov, n connections (the test's own first) go through
 * a listener at once and the next waits 350-1500 ms, then is served. */
static void
burst_then_wait(const char *const *ov, int n)
{
    gr_brokertest_t bt;
    int port, fds[32];
    int64_t t0, waited;

    ck_assert_int_le(n, 32);
    gr_brokertest_start(&bt, ov);
    call_once(&bt); /* the test's own connection was the first */
    port = listener_port(&bt, 0);
    for (int i = 0; i < n - 1; i++) {
        fds[i] = connect_to(port);
        ck_assert_int_eq(outcome(fds[i], 2000), 1);
    }
    t0 = ms_now();
    fds[n - 1] = connect_to(port);
    ck_assert_int_eq(outcome(fds[n - 1], 5000), 1);
    waited = ms_now() - t0;
    ck_assert_msg(waited >= 350 && waited < 1500, "waited %lld ms",
                  (long long)waited);
    for (int i = 0; i < n; i++)
        close(fds[i]);
    call_once(&bt);
    gr_brokertest_stop(&bt);
}

/* A listener's max.connection.creation.rate (2/s): Kafka's window lets 20
 * through, the 21st waits (21 / 10 s over 2/s: 500 ms), then is served. */
START_TEST(test_creation_rate_throttles)
{
    static const char *const ov[] = {
        "listener.name.plaintext.max.connection.creation.rate=2", NULL
    };
    burst_then_wait(ov, 21);
}
END_TEST

/* The same over quota.window.num=3 (Kafka's rateQuotaMetricConfig: the
 * connection rates use the quota windows): measured over at least 2 s,
 * 4 go through at 2/s, the 5th waits (5 / 2 s over 2/s: 500 ms). With
 * Kafka's default 11 windows the 5th would pass. */
START_TEST(test_creation_rate_windows)
{
    static const char *const ov[] = {
        "listener.name.plaintext.max.connection.creation.rate=2",
        "quota.window.num=3", NULL
    };
    burst_then_wait(ov, 5);
}
END_TEST

/* Two listeners, max.connections=2: PLAINTEXT is the inter-broker one
 * (security.inter.broker.protocol's default) and may pass it; when it
 * does, EXTERNAL's least recently used connection is closed, and
 * EXTERNAL's new connections wait. */
START_TEST(test_inter_broker_listener_evicts)
{
    static const char *const ov[] = {
        "listeners=PLAINTEXT://127.0.0.1:0,EXTERNAL://127.0.0.1:0",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,EXTERNAL:"
        "PLAINTEXT",
        "max.connections=2", NULL
    };
    gr_brokertest_t bt;
    int ext, pl, e1, e2, p2;

    gr_brokertest_start(&bt, ov);
    call_once(&bt); /* PLAINTEXT: 1 */
    pl = listener_port(&bt, 0);
    ext = listener_port(&bt, 1);
    e1 = connect_to(ext);
    ck_assert_int_eq(outcome(e1, 2000), 1); /* 2 */
    e2 = connect_to(ext);
    ck_assert_int_eq(outcome(e2, 400), -1); /* waits */
    p2 = connect_to(pl);
    ck_assert_int_eq(outcome(p2, 2000), 1); /* 3: over the limit */
    ck_assert_int_eq(later(e1, 2000), 0);   /* EXTERNAL's LRU closed */
    ck_assert_int_eq(later(e2, 300), -1);   /* still 2: still waits */
    close(p2);
    ck_assert_int_eq(later(e2, 2000), 1);
    close(e1);
    close(e2);
    call_once(&bt);
    gr_brokertest_stop(&bt);
}
END_TEST

static double
cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* accept(2) out of descriptors (EMFILE): the listener pauses instead of
 * spinning on the pending connections, the connections it has are served,
 * and once descriptors are back the waiting ones are taken on. The
 * clients are a child process's (their descriptors are not ours). */
START_TEST(test_accept_emfile_pauses)
{
    gr_brokertest_t bt;
    struct rlimit rl, low;
    int port, to_child[2], from_child[2], fillers[4096], nfill = 0;
    pid_t pid;
    double cpu0, cpu;
    char c;

    gr_brokertest_start(&bt, NULL);
    call_once(&bt);
    port = listener_port(&bt, 0);
    ck_assert_int_eq(pipe(to_child), 0);
    ck_assert_int_eq(pipe(from_child), 0);
    /* no descriptor left for the broker to accept with: the limit at the
     * descriptors open, the holes below it filled */
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    low = rl;
    low.rlim_cur = 0;
    for (int fd = 0; fd < 4096; fd++)
        if (fcntl(fd, F_GETFD) != -1)
            low.rlim_cur = (rlim_t)fd + 1;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &low), 0);
    while (nfill < 4096 && (fillers[nfill] = open("/dev/null", O_RDONLY)) >= 0)
        nfill++;
    ck_assert_int_eq(errno, EMFILE);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* its own descriptors back; 20 connections, each sends
         * ApiVersions; reports how many were answered when asked */
        int fds[20], served = 0;
        char go;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            _exit(5);
        for (int i = 0; i < 20; i++) {
            struct sockaddr_in sa;
            fds[i] = socket(AF_INET, SOCK_STREAM, 0);
            memset(&sa, 0, sizeof sa);
            sa.sin_family = AF_INET;
            sa.sin_port = htons((uint16_t)port);
            sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            if (connect(fds[i], (struct sockaddr *)&sa, sizeof sa) != 0 ||
                send(fds[i], api_versions, sizeof api_versions, MSG_NOSIGNAL) <
                    0)
                _exit(2);
        }
        if (write(from_child[1], "c", 1) != 1 || read(to_child[0], &go, 1) != 1)
            _exit(3);
        for (int i = 0; i < 20; i++) {
            struct pollfd p = { .fd = fds[i], .events = POLLIN };
            char buf[256];
            if (poll(&p, 1, 3000) == 1 && recv(fds[i], buf, sizeof buf, 0) > 0)
                served++;
        }
        go = (char)served;
        if (write(from_child[1], &go, 1) != 1)
            _exit(4);
        for (int i = 0; i < 20; i++)
            close(fds[i]);
        _exit(0);
    }
    ck_assert_int_eq(read(from_child[0], &c, 1), 1); /* connected */
    cpu0 = cpu_seconds();
    usleep(1000 * 1000);
    cpu = cpu_seconds() - cpu0;
    /* a spinning accept takes the whole second */
    ck_assert_msg(cpu < 0.3, "%.2f s of CPU in 1 s at EMFILE", cpu);
    call_once(&bt); /* the connection it has is served */
    for (int i = 0; i < nfill; i++)
        close(fillers[i]);
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    ck_assert_int_eq(write(to_child[1], "g", 1), 1);
    ck_assert_int_eq(read(from_child[0], &c, 1), 1);
    ck_assert_int_eq(c, 20); /* all served once descriptors are back */
    {
        int st;
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_net_quota(void)
{
    Suite *s = suite_create("net/quota");
    TCase *tc = tcase_create("quota");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_rate_kafka_numbers);
    tcase_add_test(tc, test_rate_steady);
    tcase_add_test(tc, test_iptab);
    tcase_add_test(tc, test_per_ip_limit);
    tcase_add_test(tc, test_max_connections_waits);
    tcase_add_test(tc, test_creation_rate_throttles);
    tcase_add_test(tc, test_creation_rate_windows);
    tcase_add_test(tc, test_inter_broker_listener_evicts);
    suite_add_tcase(s, tc);
    /* own case, tagged: it lowers RLIMIT_NOFILE, and valgrind keeps its
     * own descriptors under that limit and answers for it, so the test
     * cannot run under valgrind (make check-valgrind excludes the tag; the
     * plain and sanitizer runs of make check run it) */
    tc = tcase_create("emfile");
    tcase_set_tags(tc, "rlimit");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_accept_emfile_pauses);
    suite_add_tcase(s, tc);
    return s;
}
