/*
 * gbench: Kafka throughput and latency over librdkafka, for any broker.
 *
 *   gbench produce  -t TOPIC [-p P] [-n N] [-s S] [-a 1|all] [-z CODEC] [-l MS]
 *   gbench consume  -t TOPIC [-n M] [--loop]
 *   gbench latency  -t TOPIC [-p P] [-s S] [-r RATE] [-d SECONDS] [-a 1|all]
 *   gbench create   -t TOPIC [-p P]
 *   common: [-b BOOTSTRAP] [--broker-pid PID] [--label TEXT] [--timeout S]
 *           [-X k=v] [--pconf k=v] [--cconf k=v]
 *
 * produce: N messages of S bytes (no key), message i to partition i % P,
 *   acks, compression and linger as given; the clock runs from the first
 *   produce call to the last delivery report. The topic is created with P
 *   partitions by CreateTopics, or, if the broker refuses that, by Metadata
 *   auto-creation (and must then come out with P partitions).
 * consume: starts every partition at its log start with the simple
 *   consumer (no group, no commits) and reads until M messages, or until
 *   end of log on every partition when M is 0 or not reached; the clock runs
 *   from the start to the last message (first_msg_ms: the wait for the
 *   first). --loop rewinds a partition whose last message was read to its
 *   log start until M messages are read: the mock keeps only the last few
 *   MiB per partition, so that is the only way to read M messages from it
 *   (the rewinds are reported; --loop also sets fetch.wait.max.ms=1, see
 *   base_conf()).
 * latency: one producer (linger.ms=0) sends RATE msg/s for SECONDS seconds
 *   on a fixed schedule; a consumer in the same process, assigned at the
 *   high watermarks beforehand, reads them. Each message carries its send
 *   time (CLOCK_MONOTONIC, first 8 bytes); the report gives p50/p99/p999
 *   and max end-to-end latency in microseconds.
 * create: only creates the topic as produce does (CreateTopics with P
 *   partitions, unless it exists with P), for another load generator
 *   (Kafka's perf tools) to find it made the same way.
 *
 * --broker-pid: the broker's CPU time (its process CPU clock, to the ns;
 * the usr/sys split from /proc/PID/stat, in 10 ms ticks) is sampled before
 * and after and reported, also as seconds per GiB of payload; with it,
 * pair_cpus_busy is the client's and the broker's CPU seconds over the
 * run's, and pair_cpu_ceiling_mib_s the rate at which the two, at the CPU
 * per byte they spent, would keep all cpus busy: the most any scheduling
 * of the same work could reach on this machine.
 * Sizes are payload bytes (uncompressed values); MiB = 2^20, GiB = 2^30.
 *
 * Output: one "gbench key=value ..." line for scripts, then one line for
 * people. Exit 0 on success, 1 on a failed run (delivery errors, lost or
 * missing messages, timeouts), 2 on bad usage.
 */
#include "bench.h"

#include <dirent.h>
#include <getopt.h>
#include <librdkafka/rdkafka.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>

#define POOL_SIZE (1 << 20) /* payload source: random letters */
#define MAX_CONF  32

enum mode { MODE_PRODUCE, MODE_CONSUME, MODE_LATENCY, MODE_CREATE };

static struct {
    enum mode mode;
    const char *mode_name;
    const char *bootstrap;
    const char *topic;
    const char *label;
    const char *acks;
    const char *compression;
    int partitions; /* 0: whatever the topic has (consume) */
    long long count;
    int size;
    int linger_ms; /* -1: librdkafka's default */
    int rate;
    double duration_s;
    int loop;
    int timeout_s; /* a run that takes longer fails */
    pid_t broker_pid;
    const char *conf_all[MAX_CONF], *conf_p[MAX_CONF], *conf_c[MAX_CONF];
    int conf_all_cnt, conf_p_cnt, conf_c_cnt;
} opt = {
    .acks = "1",
    .compression = "none",
    .size = 100,
    .linger_ms = -1,
    .rate = 2000,
    .duration_s = 5,
    .timeout_s = 60,
    .label = "-",
};

static char *pool;

/* ---- configuration and topic set-up ---------------------------------- */

static void
conf_set(rd_kafka_conf_t *conf, const char *k, const char *v)
{
    char err[512];

    if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK)
        bench_die("config %s=%s: %s", k, v, err);
}

static void
conf_set_kv(rd_kafka_conf_t *conf, const char *kv)
{
    char buf[1024], *eq;

    snprintf(buf, sizeof buf, "%s", kv);
    if ((eq = strchr(buf, '=')) == NULL)
        bench_die("-X %s: expected key=value", kv);
    *eq = '\0';
    conf_set(conf, buf, eq + 1);
}

static void
log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    (void)rk;
    fprintf(stderr, "%% %.6f %d %s: %s\n", bench_now_ns() / 1e9, level, fac,
            buf);
}

static rd_kafka_conf_t *
base_conf(int producer)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();

    conf_set(conf, "bootstrap.servers", opt.bootstrap);
    conf_set(conf, "client.id", "gbench");
    rd_kafka_conf_set_log_cb(conf, log_cb);
    /* A rewind waits for the fetch in flight at the end of the log, which a
     * broker that is not woken by appends (the mock) holds for the whole
     * fetch.wait.max.ms: keep that short when rewinding (-X overrides). */
    if (!producer && opt.loop)
        conf_set(conf, "fetch.wait.max.ms", "1");
    for (int i = 0; i < opt.conf_all_cnt; i++)
        conf_set_kv(conf, opt.conf_all[i]);
    for (int i = 0; producer && i < opt.conf_p_cnt; i++)
        conf_set_kv(conf, opt.conf_p[i]);
    for (int i = 0; !producer && i < opt.conf_c_cnt; i++)
        conf_set_kv(conf, opt.conf_c[i]);
    return conf;
}

/* Partition count of <topic>, waiting up to 10 s for every partition to
 * have a leader; 0 if it does not exist. */
static int
topic_partitions(rd_kafka_t *rk, const char *topic, int want)
{
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
    int64_t deadline = bench_now_ns() + 10 * 1000000000LL;
    int parts = 0;

    do {
        const struct rd_kafka_metadata *md;
        rd_kafka_resp_err_t e;

        e = rd_kafka_metadata(rk, 0, rkt, &md, 5000);
        if (e == 0) {
            const rd_kafka_metadata_topic_t *t = &md->topics[0];
            int ok = md->topic_cnt == 1 && t->err == 0 && t->partition_cnt > 0;

            for (int p = 0; ok && p < t->partition_cnt; p++)
                if (t->partitions[p].err || t->partitions[p].leader < 0)
                    ok = 0;
            if (ok)
                parts = t->partition_cnt;
            rd_kafka_metadata_destroy(md);
            if (parts > 0 && (want == 0 || parts == want))
                break;
        }
        usleep(20000);
    } while (bench_now_ns() < deadline);
    rd_kafka_topic_destroy(rkt);
    return parts;
}

/* Partition count of <topic> from a Metadata request for all topics (which
 * creates nothing); 0 if it is not listed. */
static int
topic_exists(rd_kafka_t *rk, const char *topic)
{
    const struct rd_kafka_metadata *md;
    rd_kafka_resp_err_t e;
    int parts = 0;

    if ((e = rd_kafka_metadata(rk, 1, NULL, &md, 5000)) != 0)
        bench_die("metadata: %s", rd_kafka_err2str(e));
    for (int i = 0; i < md->topic_cnt; i++)
        if (!strcmp(md->topics[i].topic, topic) && md->topics[i].err == 0)
            parts = md->topics[i].partition_cnt;
    rd_kafka_metadata_destroy(md);
    return parts;
}

/* Creates <topic> with <parts> partitions unless it exists. */
static void
ensure_topic(rd_kafka_t *rk, const char *topic, int parts)
{
    rd_kafka_NewTopic_t *nt;
    rd_kafka_queue_t *q;
    rd_kafka_AdminOptions_t *ao;
    rd_kafka_event_t *ev;
    rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR__TIMED_OUT;
    const char *why = "no answer";
    char err[512], create_err[512] = "no answer";
    int have;

    /* Already there (mock_cluster --topic, an earlier run)? */
    if ((have = topic_exists(rk, topic)) > 0) {
        if (have != parts)
            bench_die("topic %s exists with %d partitions, not %d", topic, have,
                      parts);
        return;
    }

    nt = rd_kafka_NewTopic_new(topic, parts, 1, err, sizeof err);
    if (nt == NULL)
        bench_die("NewTopic: %s", err);
    q = rd_kafka_queue_new(rk);
    ao = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    rd_kafka_AdminOptions_set_operation_timeout(ao, 10000, err, sizeof err);
    rd_kafka_AdminOptions_set_request_timeout(ao, 10000, err, sizeof err);
    rd_kafka_CreateTopics(rk, &nt, 1, ao, q);
    ev = rd_kafka_queue_poll(q, 15000);
    if (ev != NULL) {
        const rd_kafka_CreateTopics_result_t *res;
        const rd_kafka_topic_result_t **tr;
        size_t n = 0;

        e = rd_kafka_event_error(ev);
        why = rd_kafka_event_error_string(ev);
        if (!e && (res = rd_kafka_event_CreateTopics_result(ev)) != NULL &&
            (tr = rd_kafka_CreateTopics_result_topics(res, &n)) != NULL &&
            n == 1) {
            e = rd_kafka_topic_result_error(tr[0]);
            why = rd_kafka_topic_result_error_string(tr[0]);
        }
        snprintf(create_err, sizeof create_err, "%s: %s", rd_kafka_err2name(e),
                 why ? why : "");
        rd_kafka_event_destroy(ev);
    }
    rd_kafka_AdminOptions_destroy(ao);
    rd_kafka_NewTopic_destroy(nt);
    rd_kafka_queue_destroy(q);

    have = topic_partitions(rk, topic, parts);
    if (have == 0)
        bench_die("topic %s does not exist and could not be created", topic);
    if (have != parts)
        bench_die("topic %s has %d partitions, not %d: CreateTopics said "
                  "\"%s\", so Metadata auto-created it (give the broker "
                  "num.partitions=%d, or create the topic first)",
                  topic, have, parts, create_err, parts);
}

/* ---- measurement ----------------------------------------------------- */

struct sample {
    int64_t t_ns;
    double broker_cpu;             /* ns precision; NAN without --broker-pid */
    double broker_usr, broker_sys; /* 10 ms ticks: the split only */
    double client_cpu;
    int nthr; /* this process's threads, each with its CPU time */
    struct {
        pid_t tid;
        double cpu;
        char name[20];
    } thr[64];
};

/* Each thread of this process: which one is busiest tells whether the
 * client (its broker thread, say) is what limits a run. */
static void
sample_threads(struct sample *s)
{
    struct dirent *de;
    DIR *d = opendir("/proc/self/task");

    s->nthr = 0;
    if (d == NULL)
        return;
    while ((de = readdir(d)) != NULL && s->nthr < 64) {
        char path[64];
        pid_t tid = (pid_t)atoi(de->d_name);
        FILE *f;

        if (tid <= 0)
            continue;
        s->thr[s->nthr].tid = tid;
        s->thr[s->nthr].cpu = bench_thread_cpu(tid);
        strcpy(s->thr[s->nthr].name, "?");
        snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
        if ((f = fopen(path, "r")) != NULL) {
            char *c = s->thr[s->nthr].name;
            if (fgets(c, sizeof s->thr[0].name, f) == NULL)
                strcpy(c, "?");
            for (; *c; c++)
                if (*c == '\n' || *c == ' ')
                    *c = *c == ' ' ? '_' : '\0';
            fclose(f);
        }
        if (s->thr[s->nthr].cpu >= 0)
            s->nthr++;
    }
    closedir(d);
}

static void
sample(struct sample *s)
{
    struct rusage ru;

    s->broker_cpu = s->broker_usr = s->broker_sys = NAN;
    if (opt.broker_pid > 0 &&
        (bench_proc_cpu(opt.broker_pid, &s->broker_usr, &s->broker_sys) != 0 ||
         (s->broker_cpu = bench_proc_cpu_total(opt.broker_pid)) < 0))
        bench_die("broker pid %d: cannot read /proc/%d/stat",
                  (int)opt.broker_pid, (int)opt.broker_pid);
    getrusage(RUSAGE_SELF, &ru);
    s->client_cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
    sample_threads(s);
    s->t_ns = bench_now_ns();
}

/* Prints the common part of the key=value line and keeps the human one's
 * throughput figures in <human>. */
static void
report_common(const struct sample *a, const struct sample *b, long long msgs,
              long long bytes, char *human, size_t human_sz)
{
    double secs = (b->t_ns - a->t_ns) / 1e9;
    double gib = bytes / (double)(1 << 30);
    double busr = b->broker_usr - a->broker_usr;
    double bsys = b->broker_sys - a->broker_sys;
    double bcpu = b->broker_cpu - a->broker_cpu;

    printf("gbench mode=%s label=%s topic=%s partitions=%d size=%d acks=%s "
           "compression=%s msgs=%lld bytes=%lld secs=%.4f msgs_s=%.0f "
           "mib_s=%.2f client_cpu_s=%.3f",
           opt.mode_name, opt.label, opt.topic, opt.partitions, opt.size,
           opt.acks, opt.compression, msgs, bytes, secs,
           secs > 0 ? msgs / secs : 0, secs > 0 ? bytes / secs / (1 << 20) : 0,
           b->client_cpu - a->client_cpu);
    {
        int best = -1;
        double best_cpu = 0;
        for (int i = 0; i < b->nthr; i++) {
            double c = b->thr[i].cpu;
            for (int j = 0; j < a->nthr; j++)
                if (a->thr[j].tid == b->thr[i].tid)
                    c -= a->thr[j].cpu;
            if (best < 0 || c > best_cpu)
                best = i, best_cpu = c;
        }
        if (best >= 0)
            printf(" client_busiest_thread=%s client_busiest_cpu_s=%.3f "
                   "client_busiest_share=%.2f",
                   b->thr[best].name, best_cpu, secs > 0 ? best_cpu / secs : 0);
    }
    if (opt.broker_pid > 0) {
        /* client and broker together: how many CPUs they kept busy, and
         * the rate at which their CPU per byte would fill every CPU of the
         * machine (what no faster scheduling of the same work can pass) */
        double pair = b->client_cpu - a->client_cpu + bcpu;
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

        printf(" broker_cpu_s=%.3f broker_usr_s=%.3f broker_sys_s=%.3f "
               "cpu_s_per_gib=%.3f pair_cpus_busy=%.2f cpus=%ld "
               "pair_cpu_ceiling_mib_s=%.0f",
               bcpu, busr, bsys, gib > 0 ? bcpu / gib : 0,
               secs > 0 ? pair / secs : 0, ncpu,
               pair > 0 ? ncpu * (bytes / pair) / (1 << 20) : 0);
    }
    snprintf(human, human_sz, "%.3f s, %.0f msg/s, %.1f MiB/s", secs,
             secs > 0 ? msgs / secs : 0,
             secs > 0 ? bytes / secs / (1 << 20) : 0);
    if (opt.broker_pid > 0) {
        size_t n = strlen(human);
        snprintf(human + n, human_sz - n,
                 "; broker CPU %.2f s (%.2f usr + %.2f sys) = %.2f s/GiB", bcpu,
                 busr, bsys, gib > 0 ? bcpu / gib : 0);
    }
}

static void
make_pool(void)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL;

    /* Letters A-Z, like Kafka's producer perf test: compressible by an
     * entropy coder (zstd, gzip), barely by lz4. */
    pool = malloc(POOL_SIZE + opt.size + 8);
    if (pool == NULL)
        bench_die("out of memory");
    for (size_t i = 0; i < (size_t)POOL_SIZE + opt.size + 8; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        pool[i] = 'A' + (char)(x % 26);
    }
}

/* ---- produce --------------------------------------------------------- */

static atomic_llong dr_ok, dr_err;
static char dr_first_err[256];

static void
dr_msg_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk, (void)opaque;
    if (m->err == 0) {
        atomic_fetch_add(&dr_ok, 1);
    } else if (atomic_fetch_add(&dr_err, 1) == 0) {
        snprintf(dr_first_err, sizeof dr_first_err, "%s",
                 rd_kafka_err2str(m->err));
    }
}

static rd_kafka_t *
new_producer(int linger_ms)
{
    rd_kafka_conf_t *conf = base_conf(1);
    rd_kafka_t *rk;
    char err[512], v[32];

    conf_set(conf, "acks", opt.acks);
    conf_set(conf, "compression.codec", opt.compression);
    conf_set(conf, "queue.buffering.max.messages", "2000000");
    conf_set(conf, "queue.buffering.max.kbytes", "2097151");
    snprintf(v, sizeof v, "%d", opt.timeout_s * 1000);
    conf_set(conf, "message.timeout.ms", v);
    if (linger_ms >= 0) {
        snprintf(v, sizeof v, "%d", linger_ms);
        conf_set(conf, "linger.ms", v);
    }
    rd_kafka_conf_set_dr_msg_cb(conf, dr_msg_cb);
    if ((rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err)) == NULL)
        bench_die("rd_kafka_new: %s", err);
    return rk;
}

static int
run_produce(void)
{
    rd_kafka_t *rk = new_producer(opt.linger_ms);
    rd_kafka_topic_t *rkt;
    struct sample a, b;
    char human[512];
    long long bytes = opt.count * (long long)opt.size;
    int rc = 0;

    ensure_topic(rk, opt.topic, opt.partitions);
    rkt = rd_kafka_topic_new(rk, opt.topic, NULL);
    make_pool();

    sample(&a);
    for (long long i = 0; i < opt.count; i++) {
        /* No copy: the pool outlives every delivery. */
        char *payload = pool + (size_t)((i * 7919) % POOL_SIZE);

        while (rd_kafka_produce(rkt, (int32_t)(i % opt.partitions), 0, payload,
                                opt.size, NULL, 0, NULL) != 0) {
            if (rd_kafka_last_error() != RD_KAFKA_RESP_ERR__QUEUE_FULL)
                bench_die("produce: %s",
                          rd_kafka_err2str(rd_kafka_last_error()));
            rd_kafka_poll(rk, 1);
        }
        if ((i & 1023) == 0)
            rd_kafka_poll(rk, 0);
    }
    while (rd_kafka_outq_len(rk) > 0) {
        rd_kafka_poll(rk, 1);
        if (bench_now_ns() - a.t_ns > (opt.timeout_s + 5) * 1000000000LL)
            bench_die("produce: %lld of %lld delivered after %d s",
                      (long long)dr_ok, opt.count, opt.timeout_s + 5);
    }
    sample(&b);

    report_common(&a, &b, opt.count, bytes, human, sizeof human);
    printf(" linger_ms=%d delivered=%lld errors=%lld\n", opt.linger_ms,
           (long long)dr_ok, (long long)dr_err);
    printf("produce %s: %lld x %d B to %s (%d partitions, acks=%s, %s): %s\n",
           opt.label, opt.count, opt.size, opt.topic, opt.partitions, opt.acks,
           opt.compression, human);
    if (dr_err > 0 || dr_ok != opt.count) {
        fprintf(stderr, "gbench: %lld of %lld messages failed: %s\n",
                (long long)dr_err, opt.count, dr_first_err);
        rc = 1;
    }
    rd_kafka_topic_destroy(rkt);
    rd_kafka_destroy(rk);
    return rc;
}

static int
run_create(void)
{
    rd_kafka_t *rk = new_producer(opt.linger_ms);

    ensure_topic(rk, opt.topic, opt.partitions);
    printf("gbench mode=create label=%s topic=%s partitions=%d\n", opt.label,
           opt.topic, opt.partitions);
    rd_kafka_destroy(rk);
    return 0;
}

/* ---- consume --------------------------------------------------------- */

/*
 * Readers use the simple (legacy) consumer: partitions started one by one
 * on a queue, no group.id, no coordinator, no commits.
 */
struct reader {
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    rd_kafka_queue_t *q;
    int parts;
};

static void
reader_open(struct reader *r)
{
    rd_kafka_conf_t *conf = base_conf(0);
    char err[512];

    conf_set(conf, "enable.partition.eof", "true");
    if ((r->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err)) ==
        NULL)
        bench_die("rd_kafka_new: %s", err);
    r->rkt = rd_kafka_topic_new(r->rk, opt.topic, NULL);
    r->q = rd_kafka_queue_new(r->rk);
    r->parts = 0;
}

/* Starts every partition at offsets[p], or at the log start. */
static void
reader_start(struct reader *r, int parts, const int64_t *offsets)
{
    r->parts = parts;
    for (int p = 0; p < parts; p++)
        if (rd_kafka_consume_start_queue(
                r->rkt, p, offsets ? offsets[p] : RD_KAFKA_OFFSET_BEGINNING,
                r->q) != 0)
            bench_die("consume_start %s [%d]: %s", opt.topic, p,
                      rd_kafka_err2str(rd_kafka_last_error()));
}

static void
reader_close(struct reader *r)
{
    for (int p = 0; p < r->parts; p++)
        rd_kafka_consume_stop(r->rkt, p);
    rd_kafka_queue_destroy(r->q);
    rd_kafka_topic_destroy(r->rkt);
    rd_kafka_destroy(r->rk);
}

static int
run_consume(void)
{
    struct reader r;
    const struct rd_kafka_metadata *md;
    rd_kafka_message_t *ms[1024];
    struct sample a, b;
    char human[512];
    long long msgs = 0, bytes = 0, rewinds = 0;
    int *eof, *rewound, eof_cnt = 0, rc = 0;
    int64_t last_progress, first_ns = 0, *lo, *hi;

    reader_open(&r);
    opt.partitions = topic_exists(r.rk, opt.topic);
    if (opt.partitions == 0)
        bench_die("topic %s not found", opt.topic);
    /* A Metadata request for this very topic lets the handle learn the
     * leaders before the clock starts: without it, consume_start sometimes
     * waits for librdkafka's next 500 ms broker-thread wake-up (seen with
     * the mock and gregor alike, one run in ten). */
    if (rd_kafka_metadata(r.rk, 0, r.rkt, &md, 5000) == 0)
        rd_kafka_metadata_destroy(md);
    eof = calloc(opt.partitions, sizeof *eof);
    rewound = calloc(opt.partitions, sizeof *rewound);
    lo = calloc(opt.partitions, sizeof *lo);
    hi = calloc(opt.partitions, sizeof *hi);
    /* --loop rewinds a partition as soon as its last message (hi - 1) is
     * read, without waiting for the end-of-log fetch. */
    for (int p = 0; opt.loop && p < opt.partitions; p++) {
        rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
            r.rk, opt.topic, p, &lo[p], &hi[p], 5000);
        if (e)
            bench_die("watermarks %s [%d]: %s", opt.topic, p,
                      rd_kafka_err2str(e));
    }

    sample(&a);
    reader_start(&r, opt.partitions, NULL);
    last_progress = bench_now_ns();

    while (opt.count == 0 || msgs < opt.count) {
        /* Block for one message, then take what is queued without waiting:
         * a batch call with a timeout waits for a full batch. */
        ssize_t n = 0;

        if ((ms[0] = rd_kafka_consume_queue(r.q, 100)) != NULL) {
            n = rd_kafka_consume_batch_queue(r.q, 0, ms + 1, 1023);
            if (n < 0)
                bench_die("consume: %s",
                          rd_kafka_err2str(rd_kafka_last_error()));
            n++;
        }
        for (ssize_t i = 0; i < n; i++) {
            rd_kafka_message_t *m = ms[i];
            int p = m->partition;

            if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                if (p >= 0 && p < opt.partitions && !eof[p]) {
                    eof[p] = 1;
                    eof_cnt++;
                }
                if (opt.loop && opt.count > 0 && msgs < opt.count &&
                    !rewound[p]) {
                    rd_kafka_seek(r.rkt, p, RD_KAFKA_OFFSET_BEGINNING, 0);
                    rewound[p] = 1;
                    rewinds++;
                }
            } else if (m->err) {
                fprintf(stderr, "gbench: consume %s [%d]: %s\n", opt.topic, p,
                        rd_kafka_message_errstr(m));
                rc = 1;
            } else if (opt.count == 0 || msgs < opt.count) {
                if (p >= 0 && p < opt.partitions && eof[p]) {
                    eof[p] = 0;
                    eof_cnt--;
                }
                if (msgs++ == 0)
                    first_ns = bench_now_ns();
                bytes += m->len;
                rewound[p] = 0;
                if (opt.loop && m->offset == hi[p] - 1 && msgs < opt.count) {
                    rd_kafka_seek(r.rkt, p, lo[p], 0); /* asynchronous */
                    rewound[p] = 1;
                    rewinds++;
                }
            }
            rd_kafka_message_destroy(m);
        }
        if (n > 0)
            last_progress = bench_now_ns();
        if (eof_cnt == opt.partitions && !opt.loop)
            break;
        if (bench_now_ns() - last_progress > 10 * 1000000000LL ||
            bench_now_ns() - a.t_ns > opt.timeout_s * 1000000000LL) {
            fprintf(stderr,
                    "gbench: consume: nothing for 10 s, or over "
                    "%d s in all\n",
                    opt.timeout_s);
            rc = 1;
            break;
        }
    }
    sample(&b);

    opt.size = msgs > 0 ? (int)(bytes / msgs) : 0; /* reported: the mean */
    opt.acks = "-";
    report_common(&a, &b, msgs, bytes, human, sizeof human);
    printf(" rewinds=%lld first_msg_ms=%.3f\n", rewinds,
           first_ns ? (first_ns - a.t_ns) / 1e6 : -1.0);
    printf("consume %s: %lld msgs (%lld B) from %s (%d partitions%s): %s\n",
           opt.label, msgs, bytes, opt.topic, opt.partitions,
           rewinds ? ", rewound" : "", human);
    if (opt.count > 0 && msgs < opt.count) {
        fprintf(stderr, "gbench: read %lld of %lld messages\n", msgs,
                opt.count);
        rc = 1;
    }
    reader_close(&r);
    free(eof);
    free(rewound);
    free(lo);
    free(hi);
    return rc;
}

/* ---- latency --------------------------------------------------------- */

static struct {
    struct reader r;
    int64_t *lat_ns;
    long long cap;
    atomic_llong got;
    atomic_int stop;
    atomic_int errors;
} lc;

static void *
latency_consumer(void *arg)
{
    (void)arg;
    while (!atomic_load(&lc.stop)) {
        rd_kafka_message_t *m = rd_kafka_consume_queue(lc.r.q, 50);
        int64_t now = bench_now_ns(), sent;

        if (m == NULL)
            continue;
        if (m->err == 0 && m->len >= 8) {
            long long i = atomic_load(&lc.got);

            memcpy(&sent, m->payload, 8);
            if (i < lc.cap)
                lc.lat_ns[i] = now - sent;
            atomic_store(&lc.got, i + 1);
        } else if (m->err && m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            fprintf(stderr, "gbench: latency consumer: %s\n",
                    rd_kafka_message_errstr(m));
            atomic_fetch_add(&lc.errors, 1);
        }
        rd_kafka_message_destroy(m);
    }
    return NULL;
}

static int
cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

    return (a > b) - (a < b);
}

/* Nearest-rank percentile of sorted v[0..n-1], in microseconds. */
static double
pct_us(const int64_t *v, long long n, double q)
{
    long long r;

    if (n == 0)
        return 0;
    r = (long long)ceil(q * n) - 1;
    if (r < 0)
        r = 0;
    return v[r < n ? r : n - 1] / 1e3;
}

static int
run_latency(void)
{
    rd_kafka_t *rk = new_producer(0);
    rd_kafka_topic_t *rkt;
    long long total = (long long)(opt.rate * opt.duration_s), sent = 0, got;
    int64_t *hw, t0, behind_max = 0;
    struct sample a, b;
    pthread_t th;
    char human[512], *payload;
    int rc = 0;

    if (opt.size < 8)
        opt.size = 8;
    ensure_topic(rk, opt.topic, opt.partitions);
    rkt = rd_kafka_topic_new(rk, opt.topic, NULL);
    make_pool();

    /* Consumer positioned at the current ends, so it sees only our run. */
    reader_open(&lc.r);
    lc.cap = total;
    lc.lat_ns = calloc(total > 0 ? total : 1, sizeof *lc.lat_ns);
    hw = calloc(opt.partitions, sizeof *hw);
    for (int p = 0; p < opt.partitions; p++) {
        int64_t lo;
        rd_kafka_resp_err_t e = rd_kafka_query_watermark_offsets(
            rk, opt.topic, p, &lo, &hw[p], 5000);
        if (e)
            bench_die("watermarks %s [%d]: %s", opt.topic, p,
                      rd_kafka_err2str(e));
    }
    reader_start(&lc.r, opt.partitions, hw);
    pthread_create(&th, NULL, latency_consumer, NULL);
    usleep(500000); /* connected, first fetches parked at the broker */

    payload = malloc(opt.size);
    memcpy(payload, pool, opt.size);
    sample(&a);
    t0 = a.t_ns;
    for (sent = 0; sent < total; sent++) {
        int64_t due = t0 + (int64_t)(sent * 1e9 / opt.rate), now, ts;
        struct timespec dts = { due / 1000000000, due % 1000000000 };

        rd_kafka_poll(rk, 0);
        if ((now = bench_now_ns()) < due)
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dts, NULL);
        else if (now - due > behind_max)
            behind_max = now - due;
        ts = bench_now_ns();
        memcpy(payload, &ts, 8);
        if (rd_kafka_produce(rkt, (int32_t)(sent % opt.partitions),
                             RD_KAFKA_MSG_F_COPY, payload, opt.size, NULL, 0,
                             NULL) != 0)
            bench_die("produce: %s", rd_kafka_err2str(rd_kafka_last_error()));
    }
    rd_kafka_flush(rk, 10000);
    for (int i = 0; i < 500 && atomic_load(&lc.got) < total; i++)
        usleep(10000); /* up to 5 s for the stragglers */
    sample(&b);
    atomic_store(&lc.stop, 1);
    pthread_join(th, NULL);

    got = atomic_load(&lc.got);
    if (got > total)
        got = total;
    qsort(lc.lat_ns, got, sizeof *lc.lat_ns, cmp_i64);
    report_common(&a, &b, got, got * (long long)opt.size, human, sizeof human);
    printf(" rate=%d duration_s=%.1f sent=%lld received=%lld lost=%lld "
           "p50_us=%.0f p99_us=%.0f p999_us=%.0f max_us=%.0f "
           "sched_behind_max_us=%.0f errors=%lld\n",
           opt.rate, opt.duration_s, sent, got, total - got,
           pct_us(lc.lat_ns, got, 0.5), pct_us(lc.lat_ns, got, 0.99),
           pct_us(lc.lat_ns, got, 0.999), got ? lc.lat_ns[got - 1] / 1e3 : 0,
           behind_max / 1e3, (long long)dr_err + lc.errors);
    printf("latency %s: %d msg/s x %.1f s, %d B, %d partitions, acks=%s: "
           "p50 %.0f us, p99 %.0f us, p999 %.0f us, max %.0f us; "
           "%lld/%lld received\n",
           opt.label, opt.rate, opt.duration_s, opt.size, opt.partitions,
           opt.acks, pct_us(lc.lat_ns, got, 0.5), pct_us(lc.lat_ns, got, 0.99),
           pct_us(lc.lat_ns, got, 0.999), got ? lc.lat_ns[got - 1] / 1e3 : 0,
           got, total);
    if (got < total || dr_err > 0 || lc.errors > 0)
        rc = 1;

    reader_close(&lc.r);
    rd_kafka_topic_destroy(rkt);
    rd_kafka_destroy(rk);
    free(lc.lat_ns);
    free(hw);
    free(payload);
    return rc;
}

/* ---- main ------------------------------------------------------------ */

static void
usage(void)
{
    fprintf(stderr,
            "usage: gbench produce|consume|latency|create -t TOPIC [options]\n"
            "  -b, --bootstrap HOST:PORT  (default $GR_BOOTSTRAP)\n"
            "  -t, --topic NAME\n"
            "  -p, --partitions P         produce/latency: create with P\n"
            "  -n, --count N              produce: messages; consume: stop "
            "at N (0: at end)\n"
            "  -s, --size BYTES           payload size (default 100)\n"
            "  -a, --acks 0|1|all         (default 1)\n"
            "  -z, --compression CODEC    none gzip snappy lz4 zstd\n"
            "  -l, --linger MS            produce: linger.ms (default: "
            "librdkafka's)\n"
            "  -r, --rate MSGS_PER_S      latency (default 2000)\n"
            "  -d, --duration SECONDS     latency (default 5)\n"
            "      --loop                 consume: rewind at end until N\n"
            "      --broker-pid PID       report the broker's CPU time\n"
            "      --label TEXT           copied into the output\n"
            "      --timeout SECONDS      fail a run that takes longer (60)\n"
            "  -X, --conf K=V             librdkafka property, every client\n"
            "      --pconf K=V / --cconf K=V   producer / consumer only\n");
    exit(2);
}

int
main(int argc, char **argv)
{
    static const struct option lo[] = {
        { "bootstrap", 1, NULL, 'b' },
        { "topic", 1, NULL, 't' },
        { "partitions", 1, NULL, 'p' },
        { "count", 1, NULL, 'n' },
        { "size", 1, NULL, 's' },
        { "acks", 1, NULL, 'a' },
        { "compression", 1, NULL, 'z' },
        { "linger", 1, NULL, 'l' },
        { "rate", 1, NULL, 'r' },
        { "duration", 1, NULL, 'd' },
        { "loop", 0, NULL, 'L' },
        { "broker-pid", 1, NULL, 'B' },
        { "label", 1, NULL, 'T' },
        { "conf", 1, NULL, 'X' },
        { "pconf", 1, NULL, 'P' },
        { "cconf", 1, NULL, 'C' },
        { "timeout", 1, NULL, 'W' },
        { "help", 0, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    if (argc < 2)
        usage();
    opt.mode_name = argv[1];
    if (!strcmp(argv[1], "produce"))
        opt.mode = MODE_PRODUCE;
    else if (!strcmp(argv[1], "consume"))
        opt.mode = MODE_CONSUME;
    else if (!strcmp(argv[1], "latency"))
        opt.mode = MODE_LATENCY;
    else if (!strcmp(argv[1], "create"))
        opt.mode = MODE_CREATE;
    else
        usage();
    argc--, argv++;

    while ((c = getopt_long(argc, argv, "b:t:p:n:s:a:z:l:r:d:X:h", lo, NULL)) !=
           -1) {
        switch (c) {
        case 'b':
            opt.bootstrap = optarg;
            break;
        case 't':
            opt.topic = optarg;
            break;
        case 'p':
            opt.partitions = atoi(optarg);
            break;
        case 'n':
            opt.count = atoll(optarg);
            break;
        case 's':
            opt.size = atoi(optarg);
            break;
        case 'a':
            opt.acks = optarg;
            break;
        case 'z':
            opt.compression = optarg;
            break;
        case 'l':
            opt.linger_ms = atoi(optarg);
            break;
        case 'r':
            opt.rate = atoi(optarg);
            break;
        case 'd':
            opt.duration_s = atof(optarg);
            break;
        case 'L':
            opt.loop = 1;
            break;
        case 'B':
            opt.broker_pid = (pid_t)atoi(optarg);
            break;
        case 'T':
            opt.label = optarg;
            break;
        case 'W':
            opt.timeout_s = atoi(optarg);
            break;
        case 'X':
            if (opt.conf_all_cnt < MAX_CONF)
                opt.conf_all[opt.conf_all_cnt++] = optarg;
            break;
        case 'P':
            if (opt.conf_p_cnt < MAX_CONF)
                opt.conf_p[opt.conf_p_cnt++] = optarg;
            break;
        case 'C':
            if (opt.conf_c_cnt < MAX_CONF)
                opt.conf_c[opt.conf_c_cnt++] = optarg;
            break;
        default:
            usage();
        }
    }
    if (opt.bootstrap == NULL)
        opt.bootstrap = getenv("GR_BOOTSTRAP");
    if (opt.bootstrap == NULL || opt.topic == NULL || opt.size < 0 ||
        opt.timeout_s <= 0 || opt.count < 0 || opt.rate <= 0 || optind != argc)
        usage();
    if (opt.mode != MODE_CONSUME && opt.partitions <= 0)
        opt.partitions = 1;
    if (opt.mode == MODE_PRODUCE && opt.count == 0)
        opt.count = 100000;

    switch (opt.mode) {
    case MODE_PRODUCE:
        return run_produce();
    case MODE_CONSUME:
        return run_consume();
    case MODE_LATENCY:
        return run_latency();
    case MODE_CREATE:
        return run_create();
    }
    return 2;
}
