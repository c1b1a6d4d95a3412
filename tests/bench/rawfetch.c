/*
 * rawfetch: the least a consumer can do, to tell a broker's limit from a
 * client's. One connection, one Fetch (v4) in flight, for one partition;
 * each response is read into one buffer and only walked for the batch
 * headers (to find the next offset); nothing is decompressed, checked or
 * copied again. librdkafka's consumer does all of that and more, so where
 * gbench consume and rawfetch differ on the same broker, the difference
 * is the client's.
 *
 *   rawfetch -b HOST:PORT -t TOPIC [-p PARTITION] [-n BYTES]
 *            [--fetch-bytes B] [--loop] [--broker-pid PID] [--label TEXT]
 *
 * Reads record batches from the log start until BYTES (default 1 GiB) of
 * them have arrived, or to the high watermark; --loop starts over at the
 * log start at the high watermark (librdkafka's mock keeps a few MiB per
 * partition, as for gbench consume --loop). --fetch-bytes is
 * partition_max_bytes and max_bytes (default 1 MiB, librdkafka's
 * fetch.max.bytes per partition). Bytes are record-batch bytes on the wire
 * (headers included).
 *
 * Output: "rawfetch key=value ..." then a line for people: MiB/s, this
 * process's CPU s/GiB (getrusage) and, with --broker-pid, the broker's
 * (its CPU clock, clock_getcpuclockid()).
 */
#include "bench.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>

static uint8_t *buf;
static size_t bufcap;

static int
dial(const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
    int fd, one = 1;

    if (colon == NULL || (size_t)(colon - hostport) >= sizeof host)
        bench_die("bad bootstrap %s", hostport);
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = 0;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
        bench_die("cannot resolve %s", hostport);
    fd = socket(ai->ai_family, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0)
        bench_die("connect %s: %s", hostport, strerror(errno));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    freeaddrinfo(ai);
    return fd;
}

/* One Fetch v5 round trip; *hw gets the high watermark, *start the log
 * start offset, the return value the bytes of whole batches (-1: the
 * offset is out of range), *next the offset after the last one. */
static long long
fetch(int fd, int32_t corr, const char *topic, int32_t part, int64_t offset,
      int32_t max_bytes, int64_t *next, int64_t *hw, int64_t *start)
{
    uint8_t req[512], *p = req + 4, *r, *end;
    uint32_t len;
    int16_t err;
    int32_t naborted, rlen;
    long long got = 0;

    bench_put16(&p, 1); /* Fetch */
    bench_put16(&p, 5);
    bench_put32(&p, corr);
    bench_putstr(&p, "rawfetch");
    bench_put32(&p, -1);  /* replica_id */
    bench_put32(&p, 100); /* max_wait_ms */
    bench_put32(&p, 1);   /* min_bytes */
    bench_put32(&p, max_bytes);
    *p++ = 0; /* read_uncommitted */
    bench_put32(&p, 1);
    bench_putstr(&p, topic);
    bench_put32(&p, 1);
    bench_put32(&p, part);
    bench_put64(&p, offset);
    bench_put64(&p, -1); /* log_start_offset (a follower's) */
    bench_put32(&p, max_bytes);
    len = (uint32_t)(p - req - 4);
    p = req;
    bench_put32(&p, (int32_t)len);
    bench_full_write(fd, req, len + 4);

    bench_full_read(fd, (uint8_t *)&len, 4);
    len = ntohl(len);
    if (len > bufcap) {
        free(buf);
        bufcap = len;
        if ((buf = malloc(bufcap)) == NULL)
            bench_die("out of memory");
    }
    bench_full_read(fd, buf, len);
    r = buf;
    end = buf + len;
    /* correlation id, throttle, 1 topic (name), 1 partition */
    if (len < 4 + 4 + 4 || (int32_t)bench_get32(r) != corr)
        bench_die("bad response");
    r += 8;
    if (bench_get32(r) != 1)
        bench_die("expected one topic in the response");
    r += 4;
    r += 2 + ((size_t)r[0] << 8 | r[1]);
    if (end - r < 4 + 4 + 2 + 8 + 8 + 8 + 4 || bench_get32(r) != 1)
        bench_die("expected one partition in the response");
    r += 4 + 4; /* count, partition index */
    err = (int16_t)(r[0] << 8 | r[1]);
    r += 2;
    *hw = bench_get64(r);
    *start = bench_get64(r + 16);
    r += 24; /* high watermark, last stable offset, log start offset */
    if (err == 1 && *start >= 0)
        return -1; /* OFFSET_OUT_OF_RANGE */
    if (err != 0)
        bench_die("Fetch error %d", err);
    naborted = (int32_t)bench_get32(r);
    r += 4;
    if (naborted > 0)
        r += 16 * (size_t)naborted;
    if (end - r < 4)
        bench_die("short response");
    rlen = (int32_t)bench_get32(r);
    r += 4;
    if (rlen < 0 || end - r < rlen)
        bench_die("bad records length");
    end = r + rlen;
    *next = offset;
    while (end - r >= 61) {
        int64_t base = bench_get64(r);
        uint32_t blen = bench_get32(r + 8);
        if ((size_t)(end - r) < 12 + (size_t)blen)
            break; /* a partial batch at the end */
        *next = base + (int32_t)bench_get32(r + 23) + 1;
        got += 12 + blen;
        r += 12 + blen;
    }
    return got;
}

int
main(int argc, char **argv)
{
    static const struct option lo[] = {
        { "fetch-bytes", required_argument, NULL, 'f' },
        { "loop", no_argument, NULL, 'L' },
        { "broker-pid", required_argument, NULL, 'P' },
        { "label", required_argument, NULL, 'T' },
        { NULL, 0, NULL, 0 },
    };
    const char *boot = NULL, *topic = NULL, *label = "-";
    long long want = 1LL << 30, got = 0;
    int32_t part = 0, max_bytes = 1 << 20, corr = 0;
    int64_t offset = 0, hw = -1, start = 0, t0, t1;
    double b0 = 0, b1 = 0, secs, mine;
    pid_t bpid = 0;
    struct rusage ru0, ru1;
    int loop = 0, c, fd, rewinds = 0, fetches = 0;

    while ((c = getopt_long(argc, argv, "b:t:p:n:", lo, NULL)) != -1) {
        switch (c) {
        case 'b':
            boot = optarg;
            break;
        case 't':
            topic = optarg;
            break;
        case 'p':
            part = atoi(optarg);
            break;
        case 'n':
            want = atoll(optarg);
            break;
        case 'f':
            max_bytes = atoi(optarg);
            break;
        case 'L':
            loop = 1;
            break;
        case 'P':
            bpid = atoi(optarg);
            break;
        case 'T':
            label = optarg;
            break;
        default:
            fprintf(stderr, "usage: rawfetch -b HOST:PORT -t TOPIC [-p P] [-n "
                            "BYTES] [--fetch-bytes B] [--loop] [--broker-pid "
                            "PID] [--label TEXT]\n");
            return 2;
        }
    }
    if (boot == NULL || topic == NULL || want <= 0 || max_bytes <= 0)
        bench_die("-b and -t are required; -n and --fetch-bytes positive");
    fd = dial(boot);
    if (bpid > 0 && (b0 = bench_proc_cpu_total(bpid)) < 0)
        bench_die("no process %d", (int)bpid);
    getrusage(RUSAGE_SELF, &ru0);
    t0 = bench_now_ns();
    while (got < want) {
        int64_t next;
        long long n = fetch(fd, ++corr, topic, part, offset, max_bytes, &next,
                            &hw, &start);
        fetches++;
        if (n < 0) { /* below the log start (the mock trims its log) */
            offset = start;
            continue;
        }
        got += n;
        offset = next;
        if (offset >= hw) {
            if (!loop)
                break;
            offset = start;
            rewinds++;
        }
    }
    t1 = bench_now_ns();
    getrusage(RUSAGE_SELF, &ru1);
    if (bpid > 0 && (b1 = bench_proc_cpu_total(bpid)) < 0)
        bench_die("broker %d is gone", (int)bpid);
    close(fd);
    secs = (t1 - t0) / 1e9;
    mine = (ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
           (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
           (ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
           (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
    printf("rawfetch label=%s topic=%s partition=%d bytes=%lld secs=%.4f "
           "mib_s=%.1f fetches=%d rewinds=%d client_cpu_s=%.3f "
           "client_cpu_s_per_gib=%.3f broker_cpu_s=%.3f "
           "broker_cpu_s_per_gib=%.3f\n",
           label, topic, part, got, secs, got / secs / (1 << 20), fetches,
           rewinds, mine, mine / (got / (double)(1 << 30)), b1 - b0,
           bpid > 0 ? (b1 - b0) / (got / (double)(1 << 30)) : -1.0);
    printf("%s: %.1f MiB/s over %d fetches; reader %.3f CPU s/GiB%s", label,
           got / secs / (1 << 20), fetches, mine / (got / (double)(1 << 30)),
           bpid > 0 ? ", broker " : "\n");
    if (bpid > 0)
        printf("%.3f CPU s/GiB\n", (b1 - b0) / (got / (double)(1 << 30)));
    return got > 0 ? 0 : 1;
}
