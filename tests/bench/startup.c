/*
 * startup: time from exec of a broker to its first answered Metadata
 * request, and its memory once serving.
 *
 *   startup [-n RUNS] [--label TEXT] -- PROGRAM [ARG]...
 *
 * Each run makes a temp directory D, replaces "{dir}" in the arguments by D,
 * appends "--listeners-file D/listeners" (gregor and mock_cluster both take
 * it) and spawns the program with stdout and stderr in D/out.log. Timing,
 * all CLOCK_MONOTONIC from just before posix_spawn():
 *   listen_ms   the listeners file appears (inotify on D: the broker writes
 *               it to a temp name and renames it, so IN_MOVED_TO sees it
 *               whole; no polling);
 *   ready_ms    a blocking connect to the first listener, one Metadata v0
 *               request (all topics) and its whole response read;
 * then VmRSS and VmHWM from /proc/PID/status (idle, after that Metadata),
 * and stop_ms, from SIGTERM to the process reaped.
 *
 * Output: a "startup key=value" line per run and one "startup_summary"
 * line with medians, then a line for people. Exit 0, or 1 if a run failed.
 */
#include "bench.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/wait.h>

extern char **environ;

struct run {
    double listen_ms, ready_ms, stop_ms;
    long rss_kb, hwm_kb;
};

static int
read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    return 0;
}

/* One Metadata v0 request (all topics) on a new connection to host:port,
 * blocking; 0 once the whole response with our correlation id is read. */
static int
metadata_v0(const char *host, int port)
{
    static const uint8_t req[] = {
        0x00, 0x00, 0x00, 0x13,                /* size: 19 */
        0x00, 0x03,                            /* ApiKey 3: Metadata */
        0x00, 0x00,                            /* ApiVersion 0 */
        0x00, 0x00, 0x00, 0x2a,                /* CorrelationId 42 */
        0x00, 0x05, 's',  't',  'a', 'r', 't', /* ClientId "start" */
        0x00, 0x00, 0x00, 0x00, /* Topics: [] = all topics in v0 */
    };
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_port = htons((uint16_t)port) };
    uint8_t hdr[8], *body;
    uint32_t size;
    int fd, one = 1, rc = -1;

    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return -1;
    if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
        return -1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        write(fd, req, sizeof req) != (ssize_t)sizeof req ||
        read_full(fd, hdr, sizeof hdr) != 0)
        goto out;
    size = (uint32_t)hdr[0] << 24 | hdr[1] << 16 | hdr[2] << 8 | hdr[3];
    if (size < 4 || size > (64 << 20) || hdr[4] || hdr[5] || hdr[6] ||
        hdr[7] != 0x2a)
        goto out;
    if ((body = malloc(size - 4 + 1)) == NULL)
        goto out;
    rc = read_full(fd, body, size - 4);
    free(body);
out:
    close(fd);
    return rc;
}

static char **
build_argv(int argc, char **argv, const char *dir, const char *lfile)
{
    char **av = calloc((size_t)argc + 3, sizeof *av);
    int i;

    for (i = 0; i < argc; i++) {
        const char *p = strstr(argv[i], "{dir}");

        if (p == NULL) {
            av[i] = strdup(argv[i]);
        } else if (asprintf(&av[i], "%.*s%s%s", (int)(p - argv[i]), argv[i],
                            dir, p + 5) < 0) {
            bench_die("out of memory");
        }
    }
    av[i++] = strdup("--listeners-file");
    av[i++] = strdup(lfile);
    av[i] = NULL;
    return av;
}

static int
one_run(int argc, char **argv, struct run *r)
{
    char dir[] = "/tmp/gregor-startup.XXXXXX", lfile[256], out[256];
    char line[256], evbuf[4096], host[64], cmd[512];
    char **av;
    posix_spawn_file_actions_t fa;
    int64_t t0, t1, t2, t3;
    int ifd, port = -1, status, rc = -1;
    pid_t pid;
    FILE *f;

    if (mkdtemp(dir) == NULL)
        bench_die("mkdtemp: %s", strerror(errno));
    snprintf(lfile, sizeof lfile, "%s/listeners", dir);
    snprintf(out, sizeof out, "%s/out.log", dir);
    av = build_argv(argc, argv, dir, lfile);

    if ((ifd = inotify_init1(IN_CLOEXEC)) < 0 ||
        inotify_add_watch(ifd, dir, IN_MOVED_TO | IN_CLOSE_WRITE) < 0)
        bench_die("inotify: %s", strerror(errno));
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);

    t0 = bench_now_ns();
    if (posix_spawn(&pid, av[0], &fa, NULL, av, environ) != 0)
        bench_die("spawn %s: %s", av[0], strerror(errno));

    /* Wait for the listeners file: inotify events, bounded by 10 s. */
    for (;;) {
        struct pollfd pfd = { .fd = ifd, .events = POLLIN };
        int found = 0;
        ssize_t n;

        if (poll(&pfd, 1, 10000) <= 0) {
            fprintf(stderr, "startup: no listeners file after 10 s (%s)\n",
                    out);
            goto kill;
        }
        if ((n = read(ifd, evbuf, sizeof evbuf)) <= 0)
            bench_die("inotify read: %s", strerror(errno));
        for (char *p = evbuf; p < evbuf + n;) {
            struct inotify_event *ev = (struct inotify_event *)p;

            if (ev->len > 0 && !strcmp(ev->name, "listeners"))
                found = 1;
            p += sizeof *ev + ev->len;
        }
        if (found)
            break;
    }
    t1 = bench_now_ns();

    /* "PLAINTEXT://127.0.0.1:PORT" */
    if ((f = fopen(lfile, "r")) == NULL ||
        fgets(line, sizeof line, f) == NULL ||
        sscanf(line, "%*[^:]://%63[^:]:%d", host, &port) != 2) {
        fprintf(stderr, "startup: cannot parse %s\n", lfile);
        if (f)
            fclose(f);
        goto kill;
    }
    fclose(f);
    if (metadata_v0(host, port) != 0) {
        fprintf(stderr, "startup: Metadata v0 to %s:%d failed\n", host, port);
        goto kill;
    }
    t2 = bench_now_ns();
    r->rss_kb = bench_proc_status_kb(pid, "VmRSS");
    r->hwm_kb = bench_proc_status_kb(pid, "VmHWM");
    r->listen_ms = (t1 - t0) / 1e6;
    r->ready_ms = (t2 - t0) / 1e6;
    rc = 0;

kill:
    t2 = bench_now_ns();
    kill(pid, SIGTERM);
    if (waitpid(pid, &status, 0) != pid)
        bench_die("waitpid: %s", strerror(errno));
    t3 = bench_now_ns();
    r->stop_ms = (t3 - t2) / 1e6;
    if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        fprintf(stderr, "startup: %s did not exit 0 on SIGTERM (status %#x)\n",
                av[0], status);
        rc = -1;
    }
    if (rc != 0 && (f = fopen(out, "r")) != NULL) {
        while (fgets(line, sizeof line, f) != NULL)
            fprintf(stderr, "startup:   %s", line);
        fclose(f);
    }
    close(ifd);
    posix_spawn_file_actions_destroy(&fa);
    for (char **p = av; *p; p++)
        free(*p);
    free(av);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "startup: could not remove %s\n", dir);
    return rc;
}

static int
cmp_dbl(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

static double
median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
    const char *label = "-";
    int runs = 10, i, ok = 0;
    double *listen, *ready, *stop, *rss, *hwm, ready_min = 1e9;

    for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--label") && i + 1 < argc)
            label = argv[++i];
        else
            break;
    }
    if (i >= argc || strcmp(argv[i], "--") || i + 1 >= argc || runs < 1) {
        fprintf(stderr,
                "usage: startup [-n RUNS] [--label TEXT] -- PROGRAM [ARG]...\n"
                "  \"{dir}\" in an ARG becomes the run's temp directory\n");
        return 2;
    }
    argv += i + 1;
    argc -= i + 1;

    listen = calloc((size_t)runs, sizeof *listen);
    ready = calloc((size_t)runs, sizeof *ready);
    stop = calloc((size_t)runs, sizeof *stop);
    rss = calloc((size_t)runs, sizeof *rss);
    hwm = calloc((size_t)runs, sizeof *hwm);
    for (i = 0; i < runs; i++) {
        struct run r = { 0 };

        if (one_run(argc, argv, &r) != 0)
            continue;
        printf("startup label=%s run=%d listen_ms=%.3f ready_ms=%.3f "
               "stop_ms=%.3f rss_kb=%ld hwm_kb=%ld\n",
               label, i, r.listen_ms, r.ready_ms, r.stop_ms, r.rss_kb,
               r.hwm_kb);
        listen[ok] = r.listen_ms;
        ready[ok] = r.ready_ms;
        stop[ok] = r.stop_ms;
        rss[ok] = (double)r.rss_kb;
        hwm[ok] = (double)r.hwm_kb;
        if (r.ready_ms < ready_min)
            ready_min = r.ready_ms;
        ok++;
    }
    if (ok == 0) {
        fprintf(stderr, "startup: every run failed\n");
        return 1;
    }
    {
        double ml = median(listen, ok), mr = median(ready, ok);
        double ms = median(stop, ok), mrss = median(rss, ok);
        double mhwm = median(hwm, ok);

        printf("startup_summary label=%s runs=%d ok=%d listen_ms=%.3f "
               "ready_ms=%.3f ready_min_ms=%.3f stop_ms=%.3f rss_kb=%.0f "
               "hwm_kb=%.0f\n",
               label, runs, ok, ml, mr, ready_min, ms, mrss, mhwm);
        printf("startup %s: exec to first Metadata answer %.2f ms median "
               "(min %.2f, listening at %.2f), idle RSS %.0f KiB (peak "
               "%.0f), stop %.2f ms; %d/%d runs\n",
               label, mr, ready_min, ml, mrss, mhwm, ms, ok, runs);
    }
    free(listen);
    free(ready);
    free(stop);
    free(rss);
    free(hwm);
    return ok == runs ? 0 : 1;
}
