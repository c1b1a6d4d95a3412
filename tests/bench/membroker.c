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
 * cache path a broker takes). --vmsplice sends them from memory without
 * the copy writev() makes: vmsplice() of the image into a pipe, splice()
 * to the socket, so the socket references the image's pages as sendfile
 * references the page cache's (where new pages are slow, writev()'s copy
 * into new socket-buffer pages makes the default no ceiling). Each connection is served by its own thread
 * with blocking I/O: no event loop, no allocation per request.
 *
 *   membroker --dir PARTITION_DIR --topic NAME [--partition N]
 *             [--sendfile | --vmsplice] [--listeners-file FILE]
 *
 * It listens on 127.0.0.1 on a free port, prints "membroker: listening on
 * PLAINTEXT://HOST:PORT" and writes that address to FILE; it serves until
 * SIGTERM or SIGINT. Only the named topic-partition exists.
 *
 * The same for producers: --sink FILE answers Produce v3 by appending each
 * request's record batches to FILE with one write() after setting their
 * base offsets; nothing is checked (no CRC, no record walk), which is less
 * than a broker must do. --sink-mmap instead receives the batches straight
 * into a shared mapping of FILE (4 GiB of blocks reserved with fallocate,
 * pages populated 32 MiB at a time): one copy from the socket to the page
 * cache where write() makes two, but every new page is zeroed first. Without --sink, Produce v3 is still advertised (librdkafka parses
 * record-batch v2 only when Produce v3 and Fetch v4 both are) but closes the
 * connection. With --sink, --dir is optional.
 */
#include "bench.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define SINK_MAP_BYTES (4LL << 30) /* --sink-mmap: the file's size */
#define SINK_POPULATE (32LL << 20)

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
    int use_vmsplice;
    int port;
    uint8_t *image; /* every segment's batches, end to end */
    int *seg_fd;
    int nsegs;
    struct batch *b;
    size_t nb;
    int64_t start, hw;
    /* --sink */
    int sink_fd, sink_mmap;
    uint8_t *sink_map;
    int64_t sink_pos, sink_populated, sink_next;
    pthread_mutex_t sink_lock;
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

/* len bytes of memory at ptr by reference: vmsplice into this thread's
 * pipe (1 MiB), splice on to the socket. */
static void
send_spliced(int fd, const uint8_t *ptr, size_t len)
{
    static __thread int pfd[2] = { -1, -1 };
    if (pfd[0] < 0) {
        if (pipe2(pfd, O_CLOEXEC) != 0)
            bench_die("pipe2 failed");
        fcntl(pfd[1], F_SETPIPE_SZ, 1 << 20); /* else 64 KiB a turn */
    }
    while (len > 0) {
        struct iovec v = { (void *)ptr, len };
        ssize_t in = vmsplice(pfd[1], &v, 1, 0);
        if (in <= 0)
            pthread_exit(NULL);
        ptr += in;
        len -= (size_t)in;
        while (in > 0) {
            ssize_t w = splice(pfd[0], NULL, fd, NULL, (size_t)in,
                               len > 0 ? SPLICE_F_MORE : 0);
            if (w <= 0)
                pthread_exit(NULL);
            in -= w;
        }
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

/* A request's topic name and partition count, copied to the response at
 * *p (room checked for per_part bytes a partition); 0 if malformed. */
static int
echo_topic(struct rd *r, uint8_t **p, const uint8_t *o, size_t cap,
           size_t per_part, int *ours, int32_t *np)
{
    const uint8_t *name = r->p + 2;
    size_t nl;
    *ours = rdtopic(r);
    nl = (size_t)(r->p - name);
    *np = rd32(r);
    if (*np < 0 || *np > 64 ||
        (size_t)(*p - o) + nl + per_part * (size_t)*np + 8 > cap)
        return 0;
    bench_put16(p, (int)nl);
    memcpy(*p, name, nl);
    *p += nl;
    bench_put32(p, *np);
    return 1;
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
        int ours;
        int32_t np;
        if (!echo_topic(r, &p, o, cap, 32, &ours, &np))
            return 0;
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
    uint8_t *p = o + 8;
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
        int ours;
        int32_t np;
        if (!echo_topic(r, &p, o, cap, 48, &ours, &np))
            return 0;
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
        if (data > 0 && g.use_vmsplice) {
            if (send(fd, o, (size_t)(p - o), MSG_MORE) != (ssize_t)(p - o))
                pthread_exit(NULL);
            send_spliced(fd, g.image + g.b[first].gpos, data);
        } else if (data == 0 || !g.use_sendfile) {
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

/* Sets the base offsets of the batches in p[0, n) from g.sink_next on. */
static int
sink_number(uint8_t *p, size_t n)
{
    size_t at = 0;
    while (n - at >= 61) {
        uint8_t *b = p + at, *w = b;
        uint32_t len = bench_get32(b + 8);
        if (len < 49 || n - at - 12 < len)
            return -1;
        bench_put64(&w, g.sink_next);
        g.sink_next += (int32_t)bench_get32(b + 23) + 1;
        at += 12 + (size_t)len;
    }
    return at == n ? 0 : -1;
}

/* Produce v3 for one topic-partition. The records are at rec (n bytes): in
 * req for --sink, already in the mapping at *base_pos for --sink-mmap.
 * Builds the response in o; 0 on a malformed request. */
static size_t
produce_reply(uint8_t *o, const uint8_t *name, size_t nl, int32_t part,
              int16_t err, int64_t base)
{
    uint8_t *p = o;
    bench_put32(&p, 1);
    bench_put16(&p, (int)nl);
    memcpy(p, name, nl);
    p += nl;
    bench_put32(&p, 1);
    bench_put32(&p, part);
    bench_put16(&p, err);
    bench_put64(&p, base);
    bench_put64(&p, -1); /* log append time */
    bench_put32(&p, 0);  /* throttle */
    return (size_t)(p - o);
}

/* Parses a Produce v3 body up to its (single) records field: acks, topic
 * name, partition, records length. Returns the bytes before the records,
 * 0 if more bytes are needed, -1 if it is not one topic and one
 * partition. */
static long
produce_prefix(const uint8_t *b, size_t n, int16_t *acks, const uint8_t **name,
               size_t *nl, int32_t *part, int32_t *rlen)
{
    struct rd r = { b, b + n };
    int16_t tl;
    if (!need(&r, 2))
        return 0;
    tl = rd16(&r); /* transactional id */
    if (tl > 0) {
        if (!need(&r, (size_t)tl))
            return 0;
        r.p += tl;
    }
    if (!need(&r, 2 + 4 + 4 + 2))
        return 0;
    *acks = rd16(&r);
    rd32(&r); /* timeout */
    if (rd32(&r) != 1)
        return -1;
    *name = r.p + 2;
    tl = rd16(&r);
    if (tl < 0)
        return -1;
    *nl = (size_t)tl;
    if (!need(&r, *nl + 4 + 4 + 4))
        return 0;
    r.p += *nl;
    if (rd32(&r) != 1)
        return -1;
    *part = rd32(&r);
    *rlen = rd32(&r);
    return (long)(r.p - b);
}

static void
sink_populate(int64_t upto)
{
    while (g.sink_populated < upto) {
        if (g.sink_populated + SINK_POPULATE > SINK_MAP_BYTES)
            bench_die("--sink-mmap: the %lld-byte file is full",
                      (long long)SINK_MAP_BYTES);
        if (madvise(g.sink_map + g.sink_populated, SINK_POPULATE,
                    MADV_POPULATE_WRITE) != 0)
            bench_die("madvise(MADV_POPULATE_WRITE): %s", strerror(errno));
        g.sink_populated += SINK_POPULATE;
    }
}

static void
send_reply(int fd, uint8_t *out, size_t n, int32_t corr)
{
    uint8_t *h = out;
    struct iovec iov = { out, n + 8 };
    bench_put32(&h, (int32_t)(n + 4));
    bench_put32(&h, corr);
    send_all(fd, &iov, 1);
}

/* --sink: the body after the request header is at r. */
static size_t
sink_write(struct rd *r, uint8_t *o, int16_t *acks)
{
    const uint8_t *name;
    size_t nl;
    int32_t part, rlen;
    long pre = produce_prefix(r->p, (size_t)(r->end - r->p), acks, &name, &nl,
                              &part, &rlen);
    uint8_t *rec = (uint8_t *)r->p + pre;
    int64_t base;
    int16_t err = 0;

    if (pre <= 0 || rlen < 0 || rec + rlen != r->end)
        bench_die("--sink takes one topic and one partition per Produce");
    pthread_mutex_lock(&g.sink_lock);
    base = g.sink_next;
    if (sink_number(rec, (size_t)rlen) != 0)
        err = 2; /* CORRUPT_MESSAGE */
    else
        for (size_t at = 0; at < (size_t)rlen;) {
            ssize_t w = write(g.sink_fd, rec + at, (size_t)rlen - at);
            if (w <= 0)
                bench_die("--sink write: %s", strerror(errno));
            at += (size_t)w;
        }
    pthread_mutex_unlock(&g.sink_lock);
    return produce_reply(o, name, nl, part, err, base);
}

/* --sink-mmap: a Produce v3 request of len bytes whose head is peeked at
 * and read, and whose records are received into the mapping. Returns 0 if
 * the request is not a Produce v3 (nothing consumed), 1 when answered. */
static int
sink_mmap_request(int fd, uint32_t len, uint8_t *out)
{
    uint8_t pk[1024];
    size_t want = len < sizeof pk ? len : sizeof pk, hdr = 0;
    const uint8_t *name = NULL;
    size_t nl = 0;
    int32_t part = 0, rlen = 0, corr = 0;
    int16_t acks = 1;
    int64_t base, pos;
    long pre = 0;
    uint8_t nbuf[256];

    for (;;) {
        ssize_t got = recv(fd, pk, want, MSG_PEEK);
        if (got <= 0)
            pthread_exit(NULL);
        if (got >= 10) {
            int16_t cl;
            if (bench_get32(pk) >> 16 != 0 || (bench_get32(pk) & 0xffff) != 3)
                return 0; /* not Produce v3 */
            corr = (int32_t)bench_get32(pk + 4);
            cl = (int16_t)(pk[8] << 8 | pk[9]);
            hdr = 10 + (cl > 0 ? (size_t)cl : 0);
            if ((size_t)got > hdr &&
                (pre = produce_prefix(pk + hdr, (size_t)got - hdr, &acks, &name,
                                      &nl, &part, &rlen)) != 0)
                break;
        }
        if ((size_t)got == want)
            bench_die("--sink-mmap: a Produce head over %zu bytes", want);
        sched_yield(); /* the rest of the head is on its way */
    }
    if (pre < 0 || rlen < 0 || hdr + (size_t)pre + (size_t)rlen != len ||
        nl > sizeof nbuf)
        bench_die("--sink-mmap takes one topic and one partition per Produce");
    memcpy(nbuf, name, nl);
    bench_full_read(fd, pk, hdr + (size_t)pre);
    pthread_mutex_lock(&g.sink_lock);
    pos = g.sink_pos;
    sink_populate(pos + rlen);
    bench_full_read(fd, g.sink_map + pos, (size_t)rlen);
    base = g.sink_next;
    if (sink_number(g.sink_map + pos, (size_t)rlen) == 0)
        g.sink_pos += rlen;
    else
        base = -1;
    pthread_mutex_unlock(&g.sink_lock);
    if (acks != 0)
        send_reply(fd, out,
                   produce_reply(out + 8, nbuf, nl, part, base < 0 ? 2 : 0, base),
                   corr);
    return 1;
}

static void *
serve(void *arg)
{
    int fd = (int)(intptr_t)arg, one = 1;
    size_t cap = 1 << 16, rcap = 64 << 20; /* Produce requests are large */
    uint8_t *req = malloc(rcap), *out = malloc(cap);

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
        if (len < 8 || len > rcap)
            goto out;
        if (g.sink_mmap && sink_mmap_request(fd, len, out))
            continue;
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
        case 0: {
            int16_t acks = 1;
            if (g.sink_fd < 0 || ver != 3)
                break;
            n = sink_write(&r, out + 8, &acks);
            if (acks == 0)
                continue;
            break;
        }
        }
        if (n == 0) {
            fprintf(stderr, "membroker: closing on api %d v%d\n", key, ver);
            goto out;
        }
        send_reply(fd, out, n, corr);
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
    const char *dir = NULL, *lfile = NULL, *sink = NULL;
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t sl = sizeof sa;
    sigset_t set;
    pthread_t th;
    int lfd, one = 1, sig, bad = 0;

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
        else if (!strcmp(argv[i], "--vmsplice"))
            g.use_vmsplice = 1;
        else if (!strcmp(argv[i], "--listeners-file") && i + 1 < argc)
            lfile = argv[++i];
        else if (!strcmp(argv[i], "--sink") && i + 1 < argc)
            sink = argv[++i];
        else if (!strcmp(argv[i], "--sink-mmap"))
            g.sink_mmap = 1;
        else
            bad = 1;
    }
    if (bad || (dir == NULL && sink == NULL) || g.topic == NULL ||
        (g.sink_mmap && sink == NULL)) {
        fprintf(stderr, "usage: membroker --dir PARTITION_DIR --topic NAME "
                        "[--partition N] [--sendfile | --vmsplice] "
                        "[--listeners-file FILE]\n"
                        "       membroker --sink FILE [--sink-mmap] --topic NAME "
                        "[--dir PARTITION_DIR] ...\n");
        return 2;
    }
    g.sink_fd = -1;
    pthread_mutex_init(&g.sink_lock, NULL);
    if (sink != NULL) {
        g.sink_fd = open(sink, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (g.sink_fd < 0)
            bench_die("%s: %s", sink, strerror(errno));
        if (g.sink_mmap &&
            (fallocate(g.sink_fd, 0, 0, (off_t)SINK_MAP_BYTES) != 0 ||
             (g.sink_map = mmap(NULL, (size_t)SINK_MAP_BYTES,
                                PROT_READ | PROT_WRITE, MAP_SHARED, g.sink_fd,
                                0)) == MAP_FAILED))
            bench_die("%s: %s", sink, strerror(errno));
    }
    if (dir != NULL)
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
