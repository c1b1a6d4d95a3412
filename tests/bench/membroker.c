/*
 * membroker: the least a broker can do to serve Fetch, to measure the
 * ceiling any broker has under a given client on this machine. It loads
 * one partition's segment files (gregor's, laid out as Kafka's) into
 * memory, indexes the record batches, and answers the few requests a
 * consumer needs: ApiVersions, Metadata v1, ListOffsets v1 and Fetch v4.
 * A Fetch is answered with whole batches from the fetch offset up to the
 * partition's max bytes (at least one batch), as gregor answers it, with
 * one writev() of the response head and the bytes in memory; nothing is
 * read from a file, checked or copied on the way. --sendfile sends the
 * same ranges from the segment files with sendfile() instead (the page
 * cache path a broker takes). Each connection is served by its own thread
 * with blocking I/O: no event loop, no allocation per request.
 *
 *   membroker --dir PARTITION_DIR --topic NAME [--partition N] [--sendfile]
 *             [--listeners-file FILE]
 *
 * It listens on 127.0.0.1 on a free port, prints "membroker: listening on
 * PLAINTEXT://HOST:PORT" and writes that address to FILE; it serves until
 * SIGTERM or SIGINT. Only the named topic-partition exists. Produce v3 is
 * advertised (librdkafka enables record-batch v2 parsing only when both
 * Produce v3 and Fetch v4 are) but a Produce closes the connection.
 */
#include "bench.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

struct batch {
    int64_t base, last; /* first and last offset */
    int seg;            /* segment file */
    int64_t pos;        /* byte position in the segment file */
    int64_t gpos;       /* byte position in the concatenated image */
    int32_t size;       /* bytes, header included */
};

static struct {
    const char *topic;
    int32_t partition;
    int use_sendfile;
    int port;
    uint8_t *image; /* every segment's batches, end to end */
    int *seg_fd;
    int nsegs;
    struct batch *b;
    size_t nb;
    int64_t start, hw;
} g;

static int
cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Segment files sort by name as by base offset (20 zero-padded digits). */
static void
load(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, icap = 0, blen = 0, bcap = 0;

    if (d == NULL)
        bench_die("opendir %s: %s", dir, strerror(errno));
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".log") != 0)
            continue;
        if (n == cap &&
            (names = realloc(names, (cap = cap ? 2 * cap : 8) * sizeof *names)) ==
                NULL)
            bench_die("out of memory");
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    if (n == 0)
        bench_die("no .log files in %s", dir);
    qsort(names, n, sizeof *names, cmp_names);
    g.seg_fd = calloc(n, sizeof *g.seg_fd);
    g.nsegs = (int)n;
    for (size_t s = 0; s < n; s++) {
        char path[4096];
        struct stat st;
        int64_t pos = 0;
        int fd;

        snprintf(path, sizeof path, "%s/%s", dir, names[s]);
        if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) != 0)
            bench_die("%s: %s", path, strerror(errno));
        g.seg_fd[s] = fd;
        if (blen + (size_t)st.st_size > icap) {
            icap = blen + (size_t)st.st_size;
            if ((g.image = realloc(g.image, icap)) == NULL)
                bench_die("out of memory for %zu bytes", icap);
        }
        /* walk the batch headers: base offset, length, last offset delta */
        while (pos + 61 <= st.st_size) {
            uint8_t h[61];
            int32_t len;
            if (pread(fd, h, sizeof h, pos) != (ssize_t)sizeof h)
                bench_die("%s: short read", path);
            len = (int32_t)bench_get32(h + 8);
            if (len < 49 || pos + 12 + len > st.st_size)
                break; /* preallocated or torn tail */
            if (g.nb == bcap &&
                (g.b = realloc(g.b, (bcap = bcap ? 2 * bcap : 1024) *
                                        sizeof *g.b)) == NULL)
                bench_die("out of memory");
            g.b[g.nb] = (struct batch){
                .base = bench_get64(h),
                .last = bench_get64(h) + (int32_t)bench_get32(h + 23),
                .seg = (int)s,
                .pos = pos,
                .gpos = (int64_t)blen,
                .size = 12 + len,
            };
            if (pread(fd, g.image + blen, (size_t)(12 + len), pos) != 12 + len)
                bench_die("%s: short read", path);
            blen += (size_t)(12 + len);
            pos += 12 + len;
            g.nb++;
        }
        free(names[s]);
    }
    free(names);
    if (g.nb == 0)
        bench_die("no record batches in %s", dir);
    g.start = g.b[0].base;
    g.hw = g.b[g.nb - 1].last + 1;
    fprintf(stderr, "membroker: %zu batches, %zu bytes, offsets %lld..%lld\n",
            g.nb, blen, (long long)g.start, (long long)g.hw);
}

/* The first batch whose last offset is >= off. */
static size_t
find(int64_t off)
{
    size_t lo = 0, hi = g.nb;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g.b[mid].last < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A reader over one request. Out-of-bounds reads stop the connection. */
struct rd {
    const uint8_t *p, *end;
};

static int
need(struct rd *r, size_t n)
{
    return (size_t)(r->end - r->p) >= n;
}

static int16_t
rd16(struct rd *r)
{
    int16_t v;
    if (!need(r, 2))
        return r->p = r->end, -1;
    v = (int16_t)(r->p[0] << 8 | r->p[1]);
    r->p += 2;
    return v;
}

static int32_t
rd32(struct rd *r)
{
    int32_t v;
    if (!need(r, 4))
        return r->p = r->end, -1;
    v = (int32_t)bench_get32(r->p);
    r->p += 4;
    return v;
}

static int64_t
rd64(struct rd *r)
{
    int64_t v;
    if (!need(r, 8))
        return r->p = r->end, -1;
    v = bench_get64(r->p);
    r->p += 8;
    return v;
}

/* A string: 1 if it is the served topic. */
static int
rdtopic(struct rd *r)
{
    int16_t n = rd16(r);
    int ours;
    if (n < 0 || !need(r, (size_t)n))
        return r->p = r->end, 0;
    ours = (size_t)n == strlen(g.topic) && memcmp(r->p, g.topic, (size_t)n) == 0;
    r->p += n;
    return ours;
}

static void
send_all(int fd, struct iovec *iov, int cnt)
{
    while (cnt > 0) {
        ssize_t w = writev(fd, iov, cnt);
        if (w <= 0)
            pthread_exit(NULL);
        while (cnt > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            cnt--;
        }
        if (cnt > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
}

static void
send_file(int fd, int in, int64_t pos, size_t len)
{
    off_t off = (off_t)pos;
    while (len > 0) {
        ssize_t w = sendfile(fd, in, &off, len);
        if (w <= 0)
            pthread_exit(NULL);
        len -= (size_t)w;
    }
}

static void
advertise(uint8_t **p, int key, int min, int max, int compact)
{
    bench_put16(p, key);
    bench_put16(p, min);
    bench_put16(p, max);
    if (compact)
        *(*p)++ = 0; /* tagged fields */
}

/* The response body is built after a 4-byte size and the correlation id. */
static size_t
api_versions(uint8_t *o, int16_t ver)
{
    uint8_t *p = o;
    int compact = ver >= 3;
    if (ver > 3) { /* answered as v0, as Kafka does */
        bench_put16(&p, 35); /* UNSUPPORTED_VERSION */
        bench_put32(&p, 0);
        return (size_t)(p - o);
    }
    bench_put16(&p, 0);
    if (compact)
        *p++ = 5 + 1;
    else
        bench_put32(&p, 5);
    advertise(&p, 0, 3, 3, compact);  /* Produce: see the header comment */
    advertise(&p, 1, 4, 4, compact);  /* Fetch */
    advertise(&p, 2, 1, 1, compact);  /* ListOffsets */
    advertise(&p, 3, 1, 1, compact);  /* Metadata */
    advertise(&p, 18, 0, 3, compact); /* ApiVersions */
    if (ver >= 1)
        bench_put32(&p, 0); /* throttle */
    if (compact)
        *p++ = 0;
    return (size_t)(p - o);
}

static size_t
metadata(struct rd *r, uint8_t *o, size_t cap)
{
    uint8_t *p = o;
    int32_t n = rd32(r);
    uint8_t *count;
    int32_t written = 0;

    bench_put32(&p, 1); /* brokers */
    bench_put32(&p, 1);
    bench_putstr(&p, "127.0.0.1");
    bench_put32(&p, g.port);
    bench_put16(&p, -1); /* rack */
    bench_put32(&p, 1);  /* controller */
    count = p;
    bench_put32(&p, 0);
    for (int32_t i = 0; i < (n < 0 ? 1 : n); i++) {
        const uint8_t *name = r->p + 2;
        int ours = n < 0 ? 1 : rdtopic(r);
        size_t nl = n < 0 ? strlen(g.topic) : (size_t)(r->p - name);
        if (n >= 0 && r->p > r->end)
            return 0;
        if ((size_t)(p - o) + nl + 64 > cap)
            return 0;
        bench_put16(&p, ours ? 0 : 3); /* UNKNOWN_TOPIC_OR_PARTITION */
        bench_put16(&p, (int)nl);
        memcpy(p, ours ? (const uint8_t *)g.topic : name, nl);
        p += nl;
        *p++ = 0; /* is_internal */
        if (!ours) {
            bench_put32(&p, 0);
        } else {
            bench_put32(&p, 1);
            bench_put16(&p, 0);
            bench_put32(&p, g.partition);
            bench_put32(&p, 1); /* leader */
            bench_put32(&p, 1);
            bench_put32(&p, 1); /* replicas */
            bench_put32(&p, 1);
            bench_put32(&p, 1); /* isr */
        }
        written++;
    }
    bench_put32(&count, written);
    return (size_t)(p - o);
}

static size_t
list_offsets(struct rd *r, uint8_t *o, size_t cap)
{
    uint8_t *p = o;
    int32_t nt;

    rd32(r); /* replica id */
    nt = rd32(r);
    if (nt < 0 || nt > 64)
        return 0;
    bench_put32(&p, nt);
    for (int32_t t = 0; t < nt; t++) {
        const uint8_t *name = r->p + 2;
        int ours = rdtopic(r);
        size_t nl = (size_t)(r->p - name);
        int32_t np = rd32(r);
        if (np < 0 || np > 64 || (size_t)(p - o) + nl + 32 * (size_t)np + 8 > cap)
            return 0;
        bench_put16(&p, (int)nl);
        memcpy(p, name, nl);
        p += nl;
        bench_put32(&p, np);
        for (int32_t i = 0; i < np; i++) {
            int32_t part = rd32(r);
            int64_t ts = rd64(r);
            int known = ours && part == g.partition;
            bench_put32(&p, part);
            bench_put16(&p, known ? 0 : 3);
            bench_put64(&p, -1);
            bench_put64(&p, !known ? -1 : ts == -2 ? g.start : g.hw);
        }
    }
    return (size_t)(p - o);
}

/* Fetch v4; writes the response itself. Returns 0 on a malformed request. */
static int
fetch(int fd, struct rd *r, uint8_t *o, size_t cap, int32_t corr)
{
    uint8_t *p = o + 8, *count;
    int32_t max_wait, nt, parts = 0;
    struct iovec iov[2];
    size_t first = 0, last = 0; /* batches [first, last) */
    int err = 3;

    rd32(r); /* replica id */
    max_wait = rd32(r);
    rd32(r); /* min bytes */
    rd32(r); /* max bytes */
    if (!need(r, 1))
        return 0;
    r->p++; /* isolation level */
    nt = rd32(r);
    if (nt < 0 || nt > 64)
        return 0;
    bench_put32(&p, 0); /* throttle */
    bench_put32(&p, nt);
    for (int32_t t = 0; t < nt; t++) {
        const uint8_t *name = r->p + 2;
        int ours = rdtopic(r);
        size_t nl = (size_t)(r->p - name);
        int32_t np = rd32(r);
        if (np < 0 || np > 64 || (size_t)(p - o) + nl + 48 * (size_t)np + 8 > cap)
            return 0;
        bench_put16(&p, (int)nl);
        memcpy(p, name, nl);
        p += nl;
        count = p;
        bench_put32(&p, np);
        for (int32_t i = 0; i < np; i++) {
            int32_t part = rd32(r), maxb;
            int64_t off = rd64(r);
            maxb = rd32(r);
            err = 3;
            if (ours && part == g.partition && parts++ == 0) {
                err = off < g.start || off > g.hw ? 1 : 0;
                if (err == 0 && off < g.hw) {
                    int64_t bytes = 0;
                    first = last = find(off);
                    while (last < g.nb && g.b[last].seg == g.b[first].seg &&
                           (last == first || bytes + g.b[last].size <= maxb))
                        bytes += g.b[last++].size;
                }
            }
            bench_put32(&p, part);
            bench_put16(&p, err);
            bench_put64(&p, err == 3 ? -1 : g.hw);
            bench_put64(&p, err == 3 ? -1 : g.hw); /* last stable */
            bench_put32(&p, 0);                     /* aborted transactions */
            if (last > first) {
                bench_put32(&p, (int32_t)(g.b[last - 1].gpos + g.b[last - 1].size -
                                          g.b[first].gpos));
                if (t + 1 < nt || i + 1 < np) {
                    fprintf(stderr, "membroker: the served partition must "
                                    "come last in a Fetch\n");
                    return 0;
                }
            } else {
                bench_put32(&p, 0);
            }
        }
        (void)count;
    }
    if (r->p != r->end)
        return 0;
    if (last == first && err == 0 && max_wait > 0) /* nothing new: wait */
        usleep((useconds_t)(max_wait > 500 ? 500 : max_wait) * 1000);
    {
        size_t data = last > first ? (size_t)(g.b[last - 1].gpos +
                                              g.b[last - 1].size -
                                              g.b[first].gpos)
                                   : 0;
        uint8_t *h = o;
        bench_put32(&h, (int32_t)((size_t)(p - o) - 4 + data));
        bench_put32(&h, corr);
        iov[0] = (struct iovec){ o, (size_t)(p - o) };
        if (data == 0 || !g.use_sendfile) {
            iov[1] = (struct iovec){ g.image + (data ? g.b[first].gpos : 0), data };
            send_all(fd, iov, data ? 2 : 1);
        } else {
            if (send(fd, o, (size_t)(p - o), MSG_MORE) != (ssize_t)(p - o))
                pthread_exit(NULL);
            send_file(fd, g.seg_fd[g.b[first].seg], g.b[first].pos, data);
        }
    }
    return 1;
}

static void *
serve(void *arg)
{
    int fd = (int)(intptr_t)arg, one = 1;
    size_t cap = 1 << 16;
    uint8_t *req = malloc(cap), *out = malloc(cap);

    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (;;) {
        uint8_t hdr[4];
        uint32_t len;
        struct rd r;
        int16_t key, ver;
        int32_t corr;
        size_t n = 0;
        ssize_t got;

        for (size_t h = 0; h < 4; h += (size_t)got)
            if ((got = read(fd, hdr + h, 4 - h)) <= 0)
                goto out;
        len = bench_get32(hdr);
        if (len < 8 || len > cap)
            goto out;
        for (size_t h = 0; h < len; h += (size_t)got)
            if ((got = read(fd, req + h, len - h)) <= 0)
                goto out;
        r = (struct rd){ req, req + len };
        key = rd16(&r);
        ver = rd16(&r);
        corr = rd32(&r);
        rdtopic(&r); /* client id */
        if (key == 18 && ver >= 3) /* flexible header: tagged fields */
            r.p++;
        switch (key) {
        case 18:
            n = api_versions(out + 8, ver);
            break;
        case 3:
            n = ver == 1 ? metadata(&r, out + 8, cap - 8) : 0;
            break;
        case 2:
            n = ver == 1 ? list_offsets(&r, out + 8, cap - 8) : 0;
            break;
        case 1:
            if (ver != 4 || !fetch(fd, &r, out, cap, corr))
                goto out;
            continue;
        }
        if (n == 0) {
            fprintf(stderr, "membroker: closing on api %d v%d\n", key, ver);
            goto out;
        }
        {
            uint8_t *h = out;
            struct iovec iov = { out, n + 8 };
            bench_put32(&h, (int32_t)(n + 4));
            bench_put32(&h, corr);
            send_all(fd, &iov, 1);
        }
    }
out:
    close(fd);
    free(req);
    free(out);
    return NULL;
}

static void *
accept_loop(void *arg)
{
    int lfd = (int)(intptr_t)arg;
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        pthread_t th;
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            bench_die("accept: %s", strerror(errno));
        }
        if (pthread_create(&th, NULL, serve, (void *)(intptr_t)fd) != 0)
            bench_die("pthread_create failed");
        pthread_detach(th);
    }
    return NULL;
}

int
main(int argc, char **argv)
{
    const char *dir = NULL, *lfile = NULL;
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t sl = sizeof sa;
    sigset_t set;
    pthread_t th;
    int lfd, one = 1, sig;

    g.topic = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--topic") && i + 1 < argc)
            g.topic = argv[++i];
        else if (!strcmp(argv[i], "--partition") && i + 1 < argc)
            g.partition = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sendfile"))
            g.use_sendfile = 1;
        else if (!strcmp(argv[i], "--listeners-file") && i + 1 < argc)
            lfile = argv[++i];
        else
            dir = NULL, i = argc;
    }
    if (dir == NULL || g.topic == NULL) {
        fprintf(stderr, "usage: membroker --dir PARTITION_DIR --topic NAME "
                        "[--partition N] [--sendfile] [--listeners-file FILE]\n");
        return 2;
    }
    load(dir);

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
        setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(lfd, 64) != 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0)
        bench_die("listen: %s", strerror(errno));
    g.port = ntohs(sa.sin_port);
    printf("membroker: listening on PLAINTEXT://127.0.0.1:%d\n", g.port);
    fflush(stdout);
    if (lfile != NULL) {
        FILE *f = fopen(lfile, "w");
        if (f == NULL)
            bench_die("%s: %s", lfile, strerror(errno));
        fprintf(f, "PLAINTEXT://127.0.0.1:%d\n", g.port);
        fclose(f);
    }
    if (pthread_create(&th, NULL, accept_loop, (void *)(intptr_t)lfd) != 0)
        bench_die("pthread_create failed");
    do {
        if (sigwait(&set, &sig) != 0)
            bench_die("sigwait failed");
    } while (sig != SIGTERM && sig != SIGINT);
    return 0;
}
