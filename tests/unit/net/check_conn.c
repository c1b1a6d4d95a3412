/* net/conn: what the broker does to an accepted socket, seen from the
 * broker's own end of a real connection (the broker runs in this process,
 * so its file descriptors are ours to inspect). */
#include "../api/brokertest.h"
#include "../unit.h"

#include "proto/gen/proto_table.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

/* The broker's end of the test client's connection: the socket whose
 * local address is the client's peer address and the other way round. */
static int
server_end(int client)
{
    struct sockaddr_storage cl, cp, l, p;
    socklen_t n;
    struct dirent *e;
    DIR *d;
    int found = -1;

    n = sizeof cl;
    ck_assert_int_eq(getsockname(client, (struct sockaddr *)&cl, &n), 0);
    n = sizeof cp;
    ck_assert_int_eq(getpeername(client, (struct sockaddr *)&cp, &n), 0);
    d = opendir("/proc/self/fd");
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL && found < 0) {
        int fd = atoi(e->d_name);
        socklen_t ln = sizeof l, pn = sizeof p;
        if (fd == client || e->d_name[0] == '.' ||
            getsockname(fd, (struct sockaddr *)&l, &ln) != 0 ||
            getpeername(fd, (struct sockaddr *)&p, &pn) != 0)
            continue;
        if (l.ss_family == AF_INET && cp.ss_family == AF_INET &&
            ((struct sockaddr_in *)&l)->sin_port ==
                ((struct sockaddr_in *)&cp)->sin_port &&
            ((struct sockaddr_in *)&p)->sin_port ==
                ((struct sockaddr_in *)&cl)->sin_port)
            found = fd;
    }
    closedir(d);
    ck_assert_int_ge(found, 0);
    return found;
}

static int
sockopt(int fd, int level, int name)
{
    int v = 0;
    socklen_t n = sizeof v;
    ck_assert_int_eq(getsockopt(fd, level, name, &v, &n), 0);
    return v;
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

/* socket.send.buffer.bytes and socket.receive.buffer.bytes set SO_SNDBUF
 * and SO_RCVBUF of accepted sockets, as Kafka's acceptor does (Linux
 * reports twice the value set); TCP_NODELAY and SO_KEEPALIVE are on. */
START_TEST(test_socket_options)
{
    static const char *const ov[] = { "socket.send.buffer.bytes=65536",
                                      "socket.receive.buffer.bytes=49152",
                                      NULL };
    gr_brokertest_t bt;
    int fd;

    gr_brokertest_start(&bt, ov);
    call_once(&bt);
    fd = server_end(bt.fd);
    ck_assert_int_eq(sockopt(fd, SOL_SOCKET, SO_SNDBUF), 2 * 65536);
    ck_assert_int_eq(sockopt(fd, SOL_SOCKET, SO_RCVBUF), 2 * 49152);
    ck_assert_int_ne(sockopt(fd, IPPROTO_TCP, TCP_NODELAY), 0);
    ck_assert_int_ne(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 0);
    gr_brokertest_stop(&bt);
}
END_TEST

/* -1 (the default here) leaves the kernel's sizes: SO_SNDBUF as a new
 * socket of this machine has it, not Kafka's 102400. */
START_TEST(test_socket_buffers_default)
{
    gr_brokertest_t bt;
    int fd, fresh = socket(AF_INET, SOCK_STREAM, 0);

    ck_assert_int_ge(fresh, 0);
    gr_brokertest_start(&bt, NULL);
    call_once(&bt);
    fd = server_end(bt.fd);
    ck_assert_int_ne(sockopt(fd, SOL_SOCKET, SO_SNDBUF), 2 * 102400);
    ck_assert_int_ge(sockopt(fd, SOL_SOCKET, SO_SNDBUF),
                     sockopt(fresh, SOL_SOCKET, SO_SNDBUF));
    close(fresh);
    gr_brokertest_stop(&bt);
}
END_TEST

static int64_t
ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* connections.max.idle.ms counts from the last complete request: a frame
 * trickling in a byte every 50 ms (slowloris) is closed once 400 ms have
 * passed since the connection's last whole request, while a connection
 * sending whole requests every 100 ms stays. */
START_TEST(test_idle_ignores_trickles)
{
    static const char *const ov[] = { "connections.max.idle.ms=400", NULL };
    static const uint8_t head[] = { 0, 0, 0x10, 0, 0, 18 }; /* 4 KiB frame */
    gr_brokertest_t bt;
    struct sockaddr_in sa;
    socklen_t n = sizeof sa;
    int slow, closed_ms = -1;
    int64_t t0;

    gr_brokertest_start(&bt, ov);
    call_once(&bt);
    ck_assert_int_eq(getpeername(bt.fd, (struct sockaddr *)&sa, &n), 0);
    slow = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(slow, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(send(slow, head, sizeof head, 0), (ssize_t)sizeof head);
    t0 = ms_now();
    while (ms_now() - t0 < 3000) {
        struct timespec ts = { 0, 50 * 1000000 };
        uint8_t b = 0;
        char buf[16];
        nanosleep(&ts, NULL);
        if (ms_now() - t0 < 1000 && (ms_now() - t0) % 100 < 50)
            call_once(&bt); /* whole requests: busy */
        if (send(slow, &b, 1, MSG_NOSIGNAL) != 1 ||
            recv(slow, buf, sizeof buf, MSG_DONTWAIT) == 0) {
            closed_ms = (int)(ms_now() - t0);
            break;
        }
    }
    /* 400 ms and a sweep (100 ms) after it connected, give or take */
    ck_assert_msg(closed_ms >= 300 && closed_ms < 1200,
                  "trickling connection closed after %d ms", closed_ms);
    call_once(&bt); /* the busy one is still there */
    close(slow);
    gr_brokertest_stop(&bt);
}
END_TEST

/* A frame's announced size takes no request memory until its bytes come:
 * with queued.max.request.bytes at one request (1 MiB), a connection that
 * announced a 1 MB frame and sent one byte of it does not make another
 * client's 600 KB request wait (it waited for good: the announcement had
 * reserved 2 MiB). */
START_TEST(test_announced_frame_holds_no_memory)
{
    static const char *const ov[] = { "socket.request.max.bytes=1048576",
                                      "queued.max.request.bytes=1048576",
                                      NULL };
    static const uint8_t head[] = { 0, 0x0f, 0x42, 0x40, 0 }; /* 1000000 */
    static uint8_t pad[600 * 1000];
    gr_brokertest_t bt;
    gr_api_versions_request_t rq;
    gr_api_versions_response_t *rs;
    struct sockaddr_in sa;
    socklen_t n = sizeof sa;
    int hog;

    gr_brokertest_start(&bt, ov);
    call_once(&bt);
    ck_assert_int_eq(getpeername(bt.fd, (struct sockaddr *)&sa, &n), 0);
    hog = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(connect(hog, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(send(hog, head, sizeof head, 0), (ssize_t)sizeof head);
    usleep(200 * 1000);
    {
        struct timeval tv = { 5, 0 }; /* a wait fails the call, not hangs */
        setsockopt(bt.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
    gr_api_versions_request_init(&rq);
    rs = gr_brokertest_call_extra(&bt, GR_API_API_VERSIONS, 0, &rq, pad,
                                  sizeof pad);
    ck_assert_int_eq(rs->error_code, 0);
    close(hog);
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_net_conn(void)
{
    Suite *s = suite_create("net/conn");
    TCase *tc = tcase_create("conn");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_socket_options);
    tcase_add_test(tc, test_socket_buffers_default);
    tcase_add_test(tc, test_idle_ignores_trickles);
    tcase_add_test(tc, test_announced_frame_holds_no_memory);
    suite_add_tcase(s, tc);
    return s;
}
