/*
 * startup: time from exec of a broker to its first answered Metadata
 * request, and its memory once serving.
 *
 *   startup [-n RUNS] [--label TEXT] [--pre CMD] [--connect HOST:PORT]
 *           [--wait S] [--exit-ok STATUS] -- PROGRAM [ARG]...
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
 * For a broker that takes no --listeners-file (Apache Kafka's JVM):
 *   --pre CMD    a shell command run before each spawn, untimed, with
 *                "{dir}" replaced by D (say, copying formatted storage and a
 *                config naming D into D); a run fails if it fails;
 *   --connect HOST:PORT  nothing is appended to the arguments; the listener
 *                is HOST:PORT, tried every millisecond from the spawn on:
 *                listen_ms is the first accepted connect, ready_ms the first
 *                Metadata v0 answered on it (a connection closed unanswered
 *                is retried);
 *   --wait S     how long a run waits for the listener (default 10 s);
 *   --exit-ok STATUS  an exit status accepted after SIGTERM besides 0 (the
 *                JVM exits 143, 128 + SIGTERM, once its shutdown hooks ran).
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

static struct {
    const char *pre; /* --pre: shell command, "{dir}" replaced */
    char host[64];   /* --connect HOST:PORT; port -1: listeners file */
    int port;
    int wait_s;  /* --wait: bound on reaching the listener */
    int exit_ok; /* --exit-ok: accepted exit status besides 0 */
} opt = { .port = -1, .wait_s = 10, .exit_ok = -1 };

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
 * blocking (a read waits at most <wait_s>); 0 once the whole response with
 * our correlation id is read. *<t_conn>, if 0, becomes the time the connect
 * succeeded, whatever follows. */
static int
metadata_v0(const char *host, int port, int wait_s, int64_t *t_conn)
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
    struct timeval tv = { .tv_sec = wait_s };
    uint8_t hdr[8], *body;
    uint32_t size;
    int fd, one = 1, rc = -1;

    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return -1;
    if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
        return -1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        goto out;
    if (*t_conn == 0)
        *t_conn = bench_now_ns();
    if (write(fd, req, sizeof req) != (ssize_t)sizeof req ||
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

/* <s> with every "{dir}" replaced by <dir>, malloc'd. */
static char *
subst_dir(const char *s, const char *dir)
{
    size_t n = 0, dl = strlen(dir);
    const char *p;
    char *r, *w;

    for (p = s; (p = strstr(p, "{dir}")) != NULL; p += 5)
        n++;
    if ((r = malloc(strlen(s) + n * dl + 1)) == NULL)
        bench_die("out of memory");
    for (w = r; *s;) {
        if (!strncmp(s, "{dir}", 5)) {
            memcpy(w, dir, dl);
            w += dl;
            s += 5;
        } else {
            *w++ = *s++;
        }
    }
    *w = '\0';
    return r;
}

static char **
build_argv(int argc, char **argv, const char *dir, const char *lfile)
{
    char **av = calloc((size_t)argc + 3, sizeof *av);
    int i;

    for (i = 0; i < argc; i++)
        av[i] = subst_dir(argv[i], dir);
    if (opt.port < 0) {
        av[i++] = strdup("--listeners-file");
        av[i++] = strdup(lfile);
    }
    av[i] = NULL;
    return av;
}

/* --connect: Metadata v0 to the fixed listener, retried every millisecond
 * until answered, the process exits or <wait_s> pass; *t_conn is the first
 * accepted connect. 0 when answered; 1 if the process exited (reaped into
 * *status); -1 on time-out. */
static int
poll_metadata(pid_t pid, int64_t t0, int64_t *t_conn, int *status)
{
    int64_t deadline = t0 + (int64_t)opt.wait_s * 1000000000;

    *t_conn = 0;
    while (bench_now_ns() < deadline) {
        int rc = metadata_v0(opt.host, opt.port, opt.wait_s, t_conn);

        if (rc == 0)
            return 0;
        if (waitpid(pid, status, WNOHANG) == pid)
            return 1;
        usleep(1000);
    }
    return -1;
}

static int
one_run(int argc, char **argv, struct run *r)
{
    char dir[] = "/tmp/gregor-startup.XXXXXX", lfile[256], out[256];
    char line[256], evbuf[4096], host[64], cmd[512];
    char **av;
    posix_spawn_file_actions_t fa;
    int64_t t0, t1, t2, t3;
    int ifd, port = -1, status, rc = -1, reaped = 0;
    pid_t pid;
    FILE *f;

    if (mkdtemp(dir) == NULL)
        bench_die("mkdtemp: %s", strerror(errno));
    snprintf(lfile, sizeof lfile, "%s/listeners", dir);
    snprintf(out, sizeof out, "%s/out.log", dir);
    av = build_argv(argc, argv, dir, lfile);
    if (opt.pre != NULL) {
        char *pre = subst_dir(opt.pre, dir);
        int st = system(pre);

        if (st != 0) {
            fprintf(stderr, "startup: --pre failed (status %#x): %s\n", st,
                    pre);
            free(pre);
            goto cleanup;
        }
        free(pre);
    }

    if ((ifd = inotify_init1(IN_CLOEXEC)) < 0 ||
        inotify_add_watch(ifd, dir, IN_MOVED_TO | IN_CLOSE_WRITE) < 0)
        bench_die("inotify: %s", strerror(errno));
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);

    t0 = bench_now_ns();
    if (posix_spawn(&pid, av[0], &fa, NULL, av, environ) != 0)
        bench_die("spawn %s: %s", av[0], strerror(errno));

    if (opt.port >= 0) {
        int pr = poll_metadata(pid, t0, &t1, &status);

        if (pr != 0) {
            fprintf(stderr, "startup: no Metadata answer from %s:%d %s (%s)\n",
                    opt.host, opt.port,
                    pr > 0 ? "before the process exited" : "in time", out);
            reaped = pr > 0;
            goto kill;
        }
        t2 = bench_now_ns();
        goto ready;
    }

    /* Wait for the listeners file: inotify events, bounded by --wait. */
    for (;;) {
        struct pollfd pfd = { .fd = ifd, .events = POLLIN };
        int found = 0;
        ssize_t n;

        if (poll(&pfd, 1, opt.wait_s * 1000) <= 0) {
            fprintf(stderr, "startup: no listeners file after %d s (%s)\n",
                    opt.wait_s, out);
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
    {
        int64_t t_conn = 0;

        if (metadata_v0(host, port, opt.wait_s, &t_conn) != 0) {
            fprintf(stderr, "startup: Metadata v0 to %s:%d failed\n", host,
                    port);
            goto kill;
        }
    }
    t2 = bench_now_ns();
ready:
    r->rss_kb = bench_proc_status_kb(pid, "VmRSS");
    r->hwm_kb = bench_proc_status_kb(pid, "VmHWM");
    r->listen_ms = (t1 - t0) / 1e6;
    r->ready_ms = (t2 - t0) / 1e6;
    rc = 0;

kill:
    t2 = bench_now_ns();
    if (!reaped) {
        kill(pid, SIGTERM);
        if (waitpid(pid, &status, 0) != pid)
            bench_die("waitpid: %s", strerror(errno));
    }
    t3 = bench_now_ns();
    r->stop_ms = (t3 - t2) / 1e6;
    if (rc == 0 &&
        !(WIFEXITED(status) && (WEXITSTATUS(status) == 0 ||
                                (int)WEXITSTATUS(status) == opt.exit_ok))) {
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
cleanup:
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
        else if (!strcmp(argv[i], "--pre") && i + 1 < argc)
            opt.pre = argv[++i];
        else if (!strcmp(argv[i], "--wait") && i + 1 < argc)
            opt.wait_s = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--exit-ok") && i + 1 < argc)
            opt.exit_ok = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--connect") && i + 1 < argc &&
                 sscanf(argv[i + 1], "%63[^:]:%d", opt.host, &opt.port) == 2)
            i++;
        else
            break;
    }
    if (i >= argc || strcmp(argv[i], "--") || i + 1 >= argc || runs < 1 ||
        opt.wait_s < 1) {
        fprintf(stderr,
                "usage: startup [-n RUNS] [--label TEXT] [--pre CMD] "
                "[--connect HOST:PORT]\n"
                "               [--wait S] [--exit-ok STATUS] -- PROGRAM "
                "[ARG]...\n"
                "  \"{dir}\" in an ARG or CMD becomes the run's temp "
                "directory\n");
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
