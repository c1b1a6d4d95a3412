/*
 * Fuzz target "broker": the whole request path of a real broker. The input
 * is what a client sends on one connection (size-prefixed frames, or any
 * bytes): conn.c's framing and limits, dispatch (header, served versions,
 * decoding), and the handlers of every served API (Produce with its record
 * validation, conversion and log appends, Fetch with sessions and
 * down-conversion, ListOffsets, Metadata with topic auto-creation, ...).
 *
 * The broker runs on its own thread (gr_broker_run, listening on
 * 127.0.0.1:0, data under /dev/shm) as it does in production; each input is
 * written to a new connection, which is then half-closed, and the answers
 * are read until the broker closes it. The broker must close it within 10 s
 * (else it hangs: abort) and a crash anywhere is a finding. State carries
 * over between inputs (topics, data); every 2000 inputs the broker is
 * stopped, its directory removed and a fresh one started.
 */
#include "fuzz.h"

#include "broker.h"
#include "core/conf.h"

#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RESTART_EVERY 2000

static gr_broker_t *broker;
static gr_conf_t *conf;
static pthread_t thread;
static char dir[256];
static int port;
static unsigned runs;

static int
rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(p);
    return 0;
}

static void *
run_broker(void *arg)
{
    (void)arg;
    GR_FUZZ_CHECK(gr_broker_run(broker) == 0);
    return NULL;
}

static void
stop(void)
{
    if (broker == NULL)
        return;
    gr_broker_stop(broker);
    pthread_join(thread, NULL);
    gr_broker_destroy(broker);
    gr_conf_destroy(conf);
    broker = NULL;
    nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void
start(void)
{
    static const char *const settings[] = {
        "listeners=PLAINTEXT://127.0.0.1:0",
        "num.partitions=2",
        "socket.request.max.bytes=1048576",
        "queued.max.request.bytes=4194304",
        "log.segment.bytes=262144",
        "log.retention.bytes=1048576",
        "log.retention.check.interval.ms=1000",
        "log.index.interval.bytes=512",
        "connections.max.idle.ms=30000",
    };
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    char lfile[300], kv[300];
    FILE *f;

    snprintf(dir, sizeof dir, "%s/gr-fuzz-broker-%d", base, (int)getpid());
    nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
    GR_FUZZ_CHECK(mkdir(dir, 0755) == 0);
    conf = gr_conf_new();
    GR_FUZZ_CHECK(conf != NULL);
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        GR_FUZZ_CHECK(gr_conf_set_kv(conf, settings[i]) == 0);
    snprintf(kv, sizeof kv, "log.dirs=%s/data", dir);
    GR_FUZZ_CHECK(gr_conf_set_kv(conf, kv) == 0);
    GR_FUZZ_CHECK(gr_conf_finish(conf) == 0);
    snprintf(lfile, sizeof lfile, "%s/listeners", dir);
    broker = gr_broker_new(conf, lfile, NULL);
    GR_FUZZ_CHECK(broker != NULL);
    GR_FUZZ_CHECK(pthread_create(&thread, NULL, run_broker, NULL) == 0);
    for (int i = 0; i < 1000; i++) {
        struct timespec ts = { 0, 5000000 };
        f = fopen(lfile, "r");
        if (f != NULL) {
            char line[256];
            if (fgets(line, sizeof line, f) && strrchr(line, ':')) {
                port = atoi(strrchr(line, ':') + 1);
                fclose(f);
                return;
            }
            fclose(f);
        }
        nanosleep(&ts, NULL);
    }
    GR_FUZZ_CHECK(!"the broker did not start");
}

static void
at_exit(void)
{
    stop();
}

static int64_t
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
gr_fuzz_broker(const uint8_t *data, size_t n)
{
    struct sockaddr_in sa;
    size_t sent = 0;
    bool shut = false;
    int64_t deadline;
    char buf[65536];
    int fd;

    if (broker == NULL) {
        signal(SIGPIPE, SIG_IGN);
        start();
        atexit(at_exit);
    } else if (++runs % RESTART_EVERY == 0) {
        stop();
        start();
    }
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    GR_FUZZ_CHECK(fd >= 0);
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        GR_FUZZ_CHECK(errno == EINPROGRESS);
    deadline = now_ms() + 10000;
    for (;;) {
        struct pollfd p = { fd, POLLIN | (shut ? 0 : POLLOUT), 0 };
        int64_t left = deadline - now_ms();
        GR_FUZZ_CHECK(left > 0); /* the broker hangs */
        if (poll(&p, 1, (int)left) <= 0)
            continue;
        if (p.revents & POLLIN) {
            ssize_t r = read(fd, buf, sizeof buf);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
                break; /* the broker closed it: done */
        }
        if (!shut && (p.revents & POLLOUT)) {
            if (sent < n) {
                ssize_t w = write(fd, data + sent, n - sent);
                if (w > 0)
                    sent += (size_t)w;
                else if (w < 0 && errno != EAGAIN && errno != EINTR)
                    shut = true; /* closed by the broker while we wrote */
            }
            if (sent == n && !shut) {
                shutdown(fd, SHUT_WR);
                shut = true;
            }
        }
        if (p.revents & (POLLERR | POLLHUP) && !(p.revents & POLLIN))
            break;
    }
    close(fd);
    return 0;
}

GR_FUZZ_MAIN(gr_fuzz_broker)
