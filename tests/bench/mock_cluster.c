/*
 * mock_cluster: librdkafka's in-process mock cluster as a stand-alone
 * broker, the reference "B" of tests/bench/run-matrix.sh.
 *
 *   mock_cluster [--brokers N] [--topic NAME:PARTITIONS]...
 *                [--listeners-file FILE]
 *
 * Prints "mock_cluster: listening on PLAINTEXT://host:port" on stdout, writes
 * the same PLAINTEXT://host:port lines to FILE (write + rename, as gregor
 * does, so a watcher sees it whole), and serves until SIGTERM or SIGINT.
 *
 * What the mock does differently from a broker (librdkafka 2.0.2,
 * src/rdkafka_mock.c), which matters when reading its figures:
 *  - it holds every partition in memory, as the producer's message sets,
 *    and nothing on disk;
 *  - retention is fixed: a partition keeps at most about 5 MiB (and a bounded
 *    number of message sets) and drops the oldest beyond that, so a consumer
 *    reading "from the beginning" starts at the moving log start and can only
 *    reread the last few MiB (gbench --loop rewinds to measure that);
 *  - a Fetch with nothing new is answered after the fetch wait expires, not
 *    when data arrives: appends do not wake waiting fetches, so end-to-end
 *    latency follows the consumer's fetch.wait.max.ms;
 *  - it serves from one thread per cluster, with no durability and no acks
 *    semantics beyond "appended to the in-memory list";
 *  - auto-created topics get the mock's default partition count; topics are
 *    best created up front (--topic) or by CreateTopics.
 */
#include "bench.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <pthread.h>
#include <signal.h>

#define MAX_TOPICS 1024

struct topic_job {
    rd_kafka_mock_cluster_t *mc;
    const char *spec; /* NAME:PARTITIONS */
    pthread_t th;
};

static void usage(void);

/*
 * rd_kafka_mock_topic_create() hands an op to the mock's thread and waits
 * for it; in librdkafka 2.0.2 that thread sometimes misses the wake-up and
 * sees the op only when its 1 s poll times out, so creating 50 topics one
 * after the other took anything from 30 ms to over 15 s. Created from one
 * thread each, they wait for the same wake-up.
 */
static void *
create_topic(void *arg)
{
    struct topic_job *job = arg;
    char name[256], *colon;
    rd_kafka_resp_err_t e;

    snprintf(name, sizeof name, "%s", job->spec);
    if ((colon = strrchr(name, ':')) == NULL)
        usage();
    *colon = '\0';
    e = rd_kafka_mock_topic_create(job->mc, name, atoi(colon + 1), 1);
    if (e)
        bench_die("topic %s: %s", name, rd_kafka_err2str(e));
    return NULL;
}

static void
usage(void)
{
    fprintf(stderr,
            "usage: mock_cluster [--brokers N] [--topic NAME:PARTITIONS]... "
            "[--listeners-file FILE]\n");
    exit(2);
}

static void
write_listeners(const char *file, const char *bootstraps)
{
    char tmp[4096], *list, *tok, *save = NULL;
    FILE *f;

    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    if ((f = fopen(tmp, "w")) == NULL)
        bench_die("%s: %s", tmp, strerror(errno));
    list = strdup(bootstraps);
    for (tok = strtok_r(list, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save))
        fprintf(f, "PLAINTEXT://%s\n", tok);
    free(list);
    if (fclose(f) != 0 || rename(tmp, file) != 0)
        bench_die("%s: %s", file, strerror(errno));
}

int
main(int argc, char **argv)
{
    const char *listeners_file = NULL;
    const char *topics[MAX_TOPICS];
    static struct topic_job jobs[MAX_TOPICS];
    int topic_cnt = 0, brokers = 1, sig;
    rd_kafka_mock_cluster_t *mc;
    rd_kafka_conf_t *conf;
    rd_kafka_t *rk;
    char err[512];
    sigset_t set;

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--brokers") && i + 1 < argc)
            brokers = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--topic") && i + 1 < argc &&
                 topic_cnt < MAX_TOPICS)
            topics[topic_cnt++] = argv[++i];
        else if (!strcmp(argv[i], "--listeners-file") && i + 1 < argc)
            listeners_file = argv[++i];
        else
            usage();
    }
    if (brokers < 1)
        usage();

    /* Block the signals before librdkafka starts threads, so they inherit
     * the mask and only sigwait() below sees SIGTERM. */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);

    /* The handle only carries the cluster; it connects nowhere. */
    conf = rd_kafka_conf_new();
    if (rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err) !=
        RD_KAFKA_CONF_OK)
        bench_die("%s", err);
    if ((rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err)) == NULL)
        bench_die("rd_kafka_new: %s", err);
    if ((mc = rd_kafka_mock_cluster_new(rk, brokers)) == NULL)
        bench_die("rd_kafka_mock_cluster_new failed");

    /* One thread per topic: see create_topic(). */
    for (int i = 0; i < topic_cnt; i++) {
        jobs[i].mc = mc;
        jobs[i].spec = topics[i];
        if (pthread_create(&jobs[i].th, NULL, create_topic, &jobs[i]) != 0)
            bench_die("pthread_create failed");
    }
    for (int i = 0; i < topic_cnt; i++)
        pthread_join(jobs[i].th, NULL);

    printf("mock_cluster: listening on PLAINTEXT://%s\n",
           rd_kafka_mock_cluster_bootstraps(mc));
    fflush(stdout);
    if (listeners_file != NULL)
        write_listeners(listeners_file, rd_kafka_mock_cluster_bootstraps(mc));

    do {
        if (sigwait(&set, &sig) != 0)
            bench_die("sigwait failed");
    } while (sig != SIGTERM && sig != SIGINT);

    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(rk);
    return 0;
}
