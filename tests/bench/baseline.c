/*
 * baseline: what moving the bytes costs a plain program, so a broker's CPU
 * per GiB can be compared with the physical floor in the same run.
 *
 *   baseline [--bytes N] [--chunk C] [--dir DIR] [--label TEXT]
 *
 * write:    N bytes to a new file in DIR with write() of C bytes at a time
 *           (no fsync: what a broker does by default), then close();
 * rewrite:  the same into a second new file after the first was removed,
 *           so on the page-cache pages it freed. On this VM a page the
 *           guest touches for the first time costs several times a reused
 *           one, so the two bracket what a broker's appends can cost;
 * sendfile: the second file, still in the page cache, sent with sendfile() of
 *           C bytes at a time to a TCP connection over 127.0.0.1, which a
 *           child process reads and discards (its CPU is not counted, as a
 *           consumer's is not counted for a broker);
 * recvwrite: N bytes sent by a child process over 127.0.0.1, read() here C
 *           bytes at a time and written to a new file (on the pages of the
 *           removed second one): the floor under a broker's produce path,
 *           which must take the bytes off a socket as well.
 * CPU is this process's utime+stime (getrusage) over each phase. The file
 * is removed at the end. Defaults: N = 1 GiB, C = 1 MiB, DIR = /tmp.
 * --sndbuf sets SO_SNDBUF on the sending socket, as a broker does with
 * socket.send.buffer.bytes (Kafka's default: 102400); default: the kernel's
 * autotuning.
 *
 * Output: a "baseline key=value" line per phase, then a line for people.
 */
#include "bench.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/wait.h>

struct phase {
    int64_t t_ns;
    double usr, sys;
};

static void
mark(struct phase *p)
{
    struct rusage ru;

    getrusage(RUSAGE_SELF, &ru);
    p->usr = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
    p->sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    p->t_ns = bench_now_ns();
}

static void
report(const char *phase, const char *label, long long bytes, long chunk,
       const struct phase *a, const struct phase *b)
{
    double secs = (b->t_ns - a->t_ns) / 1e9;
    double usr = b->usr - a->usr, sys = b->sys - a->sys;
    double gib = bytes / (double)(1 << 30);

    printf("baseline phase=%s label=%s bytes=%lld chunk=%ld secs=%.4f "
           "mib_s=%.1f cpu_s=%.3f usr_s=%.3f sys_s=%.3f cpu_s_per_gib=%.3f\n",
           phase, label, bytes, chunk, secs, bytes / secs / (1 << 20),
           usr + sys, usr, sys, (usr + sys) / gib);
    printf("baseline %s %s: %lld B in %ld B calls, %.3f s (%.0f MiB/s), CPU "
           "%.3f s (%.3f usr + %.3f sys) = %.3f s/GiB\n",
           phase, label, bytes, chunk, secs, bytes / secs / (1 << 20),
           usr + sys, usr, sys, (usr + sys) / gib);
}

/* Writes <bytes> of <buf> to a new file <path>, <chunk> bytes a call;
 * marks <a> and <b> around it. */
static void
write_file(const char *path, const char *buf, long long bytes, long chunk,
           struct phase *a, struct phase *b)
{
    long long done;
    int fd;

    mark(a);
    if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
        bench_die("%s: %s", path, strerror(errno));
    for (done = 0; done < bytes;) {
        size_t n = (size_t)(bytes - done < chunk ? bytes - done : chunk);
        ssize_t w = write(fd, buf, n);

        if (w <= 0)
            bench_die("write %s: %s", path, strerror(errno));
        done += w;
    }
    if (close(fd) != 0)
        bench_die("close %s: %s", path, strerror(errno));
    mark(b);
}

/* The other end of the TCP connection, a child process: connects to
 * <port>, then sends <bytes> from memory (send != 0) or reads and discards
 * until EOF. */
static void
peer(int port, int send, long long bytes)
{
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_port = htons((uint16_t)port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    static char buf[1 << 20];
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        _exit(1);
    if (send) {
        memset(buf, 'K', sizeof buf);
        while (bytes > 0) {
            ssize_t n = write(fd, buf,
                              bytes < (long long)sizeof buf ? (size_t)bytes
                                                            : sizeof buf);
            if (n <= 0)
                _exit(1);
            bytes -= n;
        }
    } else {
        while (read(fd, buf, sizeof buf) > 0)
            ;
    }
    _exit(0);
}

/* A connection from a new child peer(); returns the accepted socket. */
static int
connect_peer(int send, long long bytes, pid_t *child)
{
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t salen = sizeof sa;
    int lfd, cfd;

    if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
        bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(lfd, 1) != 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &salen) != 0)
        bench_die("listen: %s", strerror(errno));
    if ((*child = fork()) < 0)
        bench_die("fork: %s", strerror(errno));
    if (*child == 0)
        peer(ntohs(sa.sin_port), send, bytes);
    if ((cfd = accept(lfd, NULL, NULL)) < 0)
        bench_die("accept: %s", strerror(errno));
    close(lfd);
    return cfd;
}

static void
wait_peer(pid_t child)
{
    int status;

    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        bench_die("peer process failed");
}

int
main(int argc, char **argv)
{
    long long bytes = 1LL << 30;
    long chunk = 1 << 20;
    int sndbuf = 0;
    const char *dir = "/tmp", *label = "-";
    struct phase a, b;
    char path[4096], *buf;
    int fd, cfd;
    off_t off = 0;
    pid_t child;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
            bytes = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
            chunk = atol(argv[++i]);
        else if (!strcmp(argv[i], "--sndbuf") && i + 1 < argc)
            sndbuf = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--label") && i + 1 < argc)
            label = argv[++i];
        else {
            fprintf(stderr, "usage: baseline [--bytes N] [--chunk C] "
                            "[--sndbuf BYTES] [--dir DIR] [--label TEXT]\n");
            return 2;
        }
    }
    if (bytes <= 0 || chunk <= 0)
        bench_die("--bytes and --chunk must be positive");

    /* The same letters gbench sends; filled before the clock starts. */
    if ((buf = malloc((size_t)chunk)) == NULL)
        bench_die("out of memory");
    for (long i = 0; i < chunk; i++)
        buf[i] = 'A' + (char)((i * 7919 + i / 26) % 26);

    /* write: a first file, likely on fresh pages; rewrite: a second one
     * after the first was removed, on the pages it freed. */
    snprintf(path, sizeof path, "%s/baseline.%d.tmp", dir, (int)getpid());
    write_file(path, buf, bytes, chunk, &a, &b);
    report("write", label, bytes, chunk, &a, &b);
    if (unlink(path) != 0)
        bench_die("unlink %s: %s", path, strerror(errno));
    write_file(path, buf, bytes, chunk, &a, &b);
    report("rewrite", label, bytes, chunk, &a, &b);

    signal(SIGPIPE, SIG_IGN);
    cfd = connect_peer(0, 0, &child);
    if ((fd = open(path, O_RDONLY)) < 0)
        bench_die("%s: %s", path, strerror(errno));
    if (sndbuf > 0 &&
        setsockopt(cfd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf) != 0)
        bench_die("SO_SNDBUF: %s", strerror(errno));
    mark(&a);
    while (off < bytes) {
        size_t n = (size_t)(bytes - off < chunk ? bytes - off : chunk);

        if (sendfile(cfd, fd, &off, n) <= 0)
            bench_die("sendfile: %s", strerror(errno));
    }
    mark(&b);
    close(cfd);
    close(fd);
    wait_peer(child);
    report("sendfile", label, bytes, chunk, &a, &b);

    /* recvwrite: what a broker's produce path cannot avoid, receiving the
     * bytes from a socket and writing them to a new file (again on the
     * pages of the removed one). */
    if (unlink(path) != 0)
        bench_die("unlink %s: %s", path, strerror(errno));
    cfd = connect_peer(1, bytes, &child);
    mark(&a);
    if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
        bench_die("%s: %s", path, strerror(errno));
    for (long long done = 0; done < bytes;) {
        ssize_t r = read(cfd, buf, (size_t)chunk), w;

        if (r <= 0)
            bench_die("read: %s", r < 0 ? strerror(errno) : "EOF");
        if ((w = write(fd, buf, (size_t)r)) != r)
            bench_die("write %s: %s", path, strerror(errno));
        done += r;
    }
    if (close(fd) != 0)
        bench_die("close %s: %s", path, strerror(errno));
    mark(&b);
    close(cfd);
    wait_peer(child);
    report("recvwrite", label, bytes, chunk, &a, &b);

    unlink(path);
    free(buf);
    return 0;
}
