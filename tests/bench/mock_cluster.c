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
#include <signal.h>

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
    const char *topics[1024];
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
                 topic_cnt < 1024)
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

    for (int i = 0; i < topic_cnt; i++) {
        char name[256], *colon;
        rd_kafka_resp_err_t e;
        int parts;

        snprintf(name, sizeof name, "%s", topics[i]);
        if ((colon = strrchr(name, ':')) == NULL)
            usage();
        *colon = '\0';
        parts = atoi(colon + 1);
        e = rd_kafka_mock_topic_create(mc, name, parts, 1);
        if (e)
            bench_die("topic %s: %s", name, rd_kafka_err2str(e));
    }

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
