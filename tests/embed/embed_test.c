/*
 * libgregor through its public header alone (include/gregor/gregor.h,
 * linked as libgregor.so) with a real client (librdkafka): a broker
 * started in this process, records produced and consumed, an injected
 * error the producer sees, control calls from four threads at once
 * while the client runs, the metrics of what was done, a stop and a
 * start on the same (kept) data, a virtual clock a record's
 * LogAppendTime follows, and what is refused. TAP output.
 */
#include <gregor/gregor.h>
#include <librdkafka/rdkafka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int test_no, failed;

static void
ok(int cond, const char *what)
{
    printf("%sok %d - %s\n", cond ? "" : "not ", ++test_no, what);
    if (!cond) {
        failed++;
        if (gregor_last_error()[0])
            printf("# last error: %s\n", gregor_last_error());
    }
    fflush(stdout);
}

static int delivered, delivery_errors;
static rd_kafka_resp_err_t last_delivery_err;

static void
dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    (void)opaque;
    if (m->err) {
        delivery_errors++;
        last_delivery_err = m->err;
    } else {
        delivered++;
    }
}

static rd_kafka_t *
producer(const char *bootstrap)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err);
    rd_kafka_conf_set(conf, "linger.ms", "5", err, sizeof err);
    rd_kafka_conf_set(conf, "message.timeout.ms", "20000", err, sizeof err);
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    return rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
}

/* n records to topic; the delivered and failed counts since the call. */
static void
produce(rd_kafka_t *p, const char *topic, int n)
{
    delivered = delivery_errors = 0;
    for (int i = 0; i < n; i++) {
        char v[32];
        int len = snprintf(v, sizeof v, "record-%d", i);
        rd_kafka_producev(
            p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_VALUE(v, (size_t)len),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    }
    rd_kafka_flush(p, 30000);
}

/* Consumes topic from the start in group; the records read within 20 s
 * or once want are in. */
static int
consume(const char *bootstrap, const char *group, const char *topic, int want)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_topic_partition_list_t *tl;
    rd_kafka_t *c;
    int got = 0;
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err);
    rd_kafka_conf_set(conf, "group.id", group, err, sizeof err);
    rd_kafka_conf_set(conf, "auto.offset.reset", "earliest", err, sizeof err);
    c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (c == NULL)
        return -1;
    rd_kafka_poll_set_consumer(c);
    tl = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(tl, topic, RD_KAFKA_PARTITION_UA);
    rd_kafka_subscribe(c, tl);
    rd_kafka_topic_partition_list_destroy(tl);
    for (int i = 0; i < 200 && got < want; i++) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100);
        if (m == NULL)
            continue;
        if (!m->err)
            got++;
        rd_kafka_message_destroy(m);
    }
    rd_kafka_commit(c, NULL, 0);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    return got;
}

/* The timestamp (and its type) of the first record of topic's partition
 * 0, read within 20 s; -1 if none. */
static int64_t
first_timestamp(const char *bootstrap, const char *topic,
                rd_kafka_timestamp_type_t *type)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_topic_partition_list_t *tl;
    rd_kafka_t *c;
    int64_t ts = -1;
    rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap, err, sizeof err);
    rd_kafka_conf_set(conf, "group.id", "embed-ts", err, sizeof err);
    c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (c == NULL)
        return -1;
    rd_kafka_poll_set_consumer(c);
    tl = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(tl, topic, 0)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(c, tl);
    rd_kafka_topic_partition_list_destroy(tl);
    for (int i = 0; i < 200 && ts < 0; i++) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100);
        if (m == NULL)
            continue;
        if (!m->err)
            ts = rd_kafka_message_timestamp(m, type);
        rd_kafka_message_destroy(m);
    }
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    return ts;
}

/* Control calls from several threads while the client runs. */
typedef struct hammer {
    gregor_t *g;
    int failures;
} hammer_t;

static void *
hammer(void *arg)
{
    hammer_t *h = arg;
    for (int i = 0; i < 50; i++) {
        char *json = NULL;
        int64_t id;
        if (gregor_request_count(h->g, "Produce", NULL) < 0)
            h->failures++;
        if (gregor_requests(h->g, "limit=5", &json) != 0 ||
            strstr(json, "\"requests\"") == NULL)
            h->failures++;
        gregor_free(json);
        /* a fault that matches nothing, added and removed */
        id = gregor_fault(h->g, "DeleteGroups", "GROUP_ID_NOT_FOUND",
                          "group=nobody");
        if (id <= 0 || gregor_clear(h->g, id) != 1)
            h->failures++;
    }
    return NULL;
}

/* The value of the sample line that starts with prefix, or -1. */
static long long
metric(const char *text, const char *prefix)
{
    const char *p = text;
    size_t n = strlen(prefix);
    while ((p = strstr(p, prefix)) != NULL) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            return atoll(p + n + 1);
        p += n;
    }
    return -1;
}

int
main(void)
{
    gregor_conf_t *conf;
    gregor_t *g;
    rd_kafka_t *p;
    char dir[] = "/tmp/gregor-embed.XXXXXX", *text = NULL, *json = NULL;
    pthread_t th[4];
    hammer_t hs[4];
    struct stat st;
    int hammer_failures = 0;

    printf("1..22\n");
    gregor_log_level("warn");
    ok(strlen(gregor_version()) > 0, "gregor_version");

    /* what is refused */
    conf = gregor_conf_new();
    gregor_conf_brokers(conf, 3);
    ok(gregor_start(conf) == NULL &&
           strstr(gregor_last_error(), "no cluster mode") != NULL,
       "three brokers are refused, the error says why");
    gregor_conf_destroy(conf);
    conf = gregor_conf_new();
    gregor_conf_set(conf, "num.partitions", "many");
    ok(gregor_start(conf) == NULL && gregor_last_error()[0] != '\0',
       "an invalid setting fails the start");
    gregor_conf_destroy(conf);

    /* a broker on kept data */
    if (mkdtemp(dir) == NULL)
        return 1;
    conf = gregor_conf_new();
    gregor_conf_temp_data(conf, 0);
    gregor_conf_set(conf, "log.dirs", dir);
    gregor_conf_set(conf, "num.partitions", "3");
    gregor_conf_set(conf, "group.initial.rebalance.delay.ms", "0");
    gregor_conf_set(conf, "offsets.topic.num.partitions", "1");
    g = gregor_start(conf);
    ok(g != NULL && strchr(gregor_bootstrap_servers(g), ':') != NULL &&
           strncmp(gregor_control_url(g), "http://127.0.0.1:", 17) == 0 &&
           strcmp(gregor_data_dir(g), dir) == 0,
       "started: bootstrap servers, control URL, data directory");
    if (g == NULL)
        return 1;

    p = producer(gregor_bootstrap_servers(g));
    produce(p, "embed", 100);
    ok(delivered == 100 && delivery_errors == 0, "100 records delivered");
    ok(consume(gregor_bootstrap_servers(g), "embed-g", "embed", 100) == 100,
       "the 100 records consumed");

    /* an error the client cannot retry through, seen by it */
    ok(gregor_fault(g, "Produce", "INVALID_RECORD", "topic=embed") > 0,
       "a fault armed");
    produce(p, "embed", 1);
    ok(delivery_errors == 1 &&
           last_delivery_err == RD_KAFKA_RESP_ERR_INVALID_RECORD,
       "the producer sees INVALID_RECORD");
    ok(gregor_request_count(g, "Produce", "INVALID_RECORD") == 1,
       "the request log has the injected error once");

    /* four threads calling while the client produces */
    for (int i = 0; i < 4; i++) {
        hs[i].g = g;
        hs[i].failures = 0;
        pthread_create(&th[i], NULL, hammer, &hs[i]);
    }
    produce(p, "embed", 50);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        hammer_failures += hs[i].failures;
    }
    ok(hammer_failures == 0 && delivered == 50,
       "600 control calls from 4 threads while 50 more records go");

    ok(gregor_metrics(g, &text) == 0 &&
           metric(text, "kafka_server_brokertopicmetrics_messagesin_total"
                        "{topic=\"embed\"}") == 150 &&
           metric(text,
                  "kafka_network_requestmetrics_errors_total"
                  "{request=\"Produce\",error=\"INVALID_RECORD\"}") == 1 &&
           metric(text, "kafka_consumergroup_lag{consumergroup=\"embed-g\","
                        "topic=\"embed\",partition=\"0\"}") >= 0,
       "metrics: messages in, the injected error, the group's lag");
    gregor_free(text);
    ok(gregor_control(g, "GET", "/v1/faults", NULL, &json) == 200 &&
           strstr(json, "\"faults\":[]") != NULL,
       "gregor_control: any route");
    gregor_free(json);
    ok(gregor_emulate(g, "3.6") == 0 &&
           gregor_control(g, "GET", "/v1/emulate", NULL, &json) == 200 &&
           strstr(json, "\"3.6\"") != NULL && gregor_emulate(g, "2.7") == -1,
       "gregor_emulate: a release of the table, not another");
    gregor_free(json);
    ok(gregor_reset(g) == 0 && gregor_request_count(g, NULL, NULL) == 0,
       "reset clears the request log");
    ok(gregor_control(g, "GET", "/v1/emulate", NULL, &json) == 200 &&
           strstr(json, "null") != NULL,
       "reset: back to the configured emulation (none)");
    gregor_free(json);
    rd_kafka_destroy(p);
    ok(gregor_stop(g) == 0, "stopped");

    /* started again on the same data: the records are there */
    g = gregor_start(conf);
    gregor_conf_destroy(conf);
    ok(g != NULL && consume(gregor_bootstrap_servers(g), "embed-g2", "embed",
                            150) == 150,
       "started again on the kept data: 150 records read back");
    ok(gregor_stop(g) == 0, "stopped again");

    /* the defaults: a temporary directory, gone after the stop */
    g = gregor_start(NULL);
    ok(gregor_clock_advance(g, 1000) == -1 &&
           strstr(gregor_last_error(), "--virtual-clock") != NULL,
       "a real clock is not advanced, the error says why");
    {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s", g ? gregor_data_dir(g) : "");
        gregor_stop(g);
        ok(g != NULL && strncmp(tmp, "/tmp/", 5) == 0 && stat(tmp, &st) != 0,
           "with the defaults, the temporary data is removed at stop");
    }

    /* a virtual clock: a day ahead, and the record's LogAppendTime with it */
    conf = gregor_conf_new();
    gregor_conf_set(conf, "gregor.virtual.clock", "true");
    gregor_conf_set(conf, "log.message.timestamp.type", "LogAppendTime");
    g = gregor_start(conf);
    gregor_conf_destroy(conf);
    {
        int64_t t0 = gregor_clock_advance(g, 0), t1, ts;
        rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
        t1 = gregor_clock_advance(g, 86400000);
        ok(t0 > 0 && t1 == t0 + 86400000,
           "gregor_clock_advance: a day ahead, exactly");
        p = producer(gregor_bootstrap_servers(g));
        produce(p, "embed-vc", 1);
        rd_kafka_destroy(p);
        ts = first_timestamp(gregor_bootstrap_servers(g), "embed-vc", &type);
        ok(delivered == 1 && ts == t1 &&
               type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME,
           "the record's LogAppendTime is the virtual clock's");
        if (ts != t1)
            printf("# timestamp %lld (type %d), clock %lld\n", (long long)ts,
                   (int)type, (long long)t1);
    }
    gregor_stop(g);
    {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "cannot remove %s\n", dir);
    }
    return failed ? 1 : 0;
}
