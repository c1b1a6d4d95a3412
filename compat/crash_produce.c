/*
 * The producer of the crash loop (compat/run.sh s_crash_loop): librdkafka
 * with acks=all, producing "m<i>" with key "k<i>" to partition
 * i % PARTITIONS, for ever, while the broker is killed and restarted on
 * the same port. With "idempotent" enable.idempotence=true and five
 * requests in flight (the broker must keep order and drop the retried
 * duplicates across restarts); without, enable.idempotence=false and one
 * in flight (order per partition; duplicates are possible). Messages
 * never time out: librdkafka retries them across restarts. Every
 * delivery report that says success is appended to ACKFILE as
 * "<partition> <offset> <i>": what the broker acknowledged. On SIGTERM
 * it stops producing, waits up to 60 s for what is in flight, and exits
 * 0 if nothing failed outright (1 otherwise).
 *
 *   crash_produce TOPIC PARTITIONS ACKFILE [idempotent]
 */
#include "common.h"

#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>

static volatile sig_atomic_t stopping;
static FILE *ackf;
static long acked, failed;

static void
on_term(int sig)
{
    (void)sig;
    stopping = 1;
}

static void
dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    (void)opaque;
    if (m->err) {
        failed++;
        fprintf(stderr, "delivery failed: %s\n", rd_kafka_err2str(m->err));
        return;
    }
    fprintf(ackf, "%" PRId32 " %" PRId64 " %.*s\n", m->partition, m->offset,
            (int)m->len - 1, (const char *)m->payload + 1);
    acked++;
}

int
main(int argc, char **argv)
{
    const char *topic;
    char err[512];
    rd_kafka_conf_t *conf;
    rd_kafka_t *p;
    long i = 0;
    int parts;
    bool idem;

    if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "idempotent")))
        fail("usage: crash_produce TOPIC PARTITIONS ACKFILE [idempotent]");
    idem = argc == 5;
    topic = argv[1];
    parts = atoi(argv[2]);
    if (parts < 1 || (ackf = fopen(argv[3], "a")) == NULL)
        fail("bad arguments");
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);

    conf = base_conf();
    conf_set(conf, "acks", "all");
    conf_set(conf, "enable.idempotence", idem ? "true" : "false");
    conf_set(conf, "max.in.flight.requests.per.connection", idem ? "5" : "1");
    conf_set(conf, "message.timeout.ms", "0"); /* never give up */
    conf_set(conf, "linger.ms", "2");
    conf_set(conf, "batch.num.messages", "200");
    conf_set(conf, "queue.buffering.max.messages", "5000");
    conf_restarts(conf);
    conf_set(conf, "topic.metadata.refresh.interval.ms", "1000");
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (p == NULL)
        fail("producer: %s", err);

    while (!stopping) {
        char key[32], val[32];
        rd_kafka_resp_err_t e;
        snprintf(key, sizeof key, "k%ld", i);
        snprintf(val, sizeof val, "m%ld", i);
        e = rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic),
                              RD_KAFKA_V_PARTITION((int32_t)(i % parts)),
                              RD_KAFKA_V_KEY(key, strlen(key)),
                              RD_KAFKA_V_VALUE(val, strlen(val)),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                              RD_KAFKA_V_END);
        if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rd_kafka_poll(p, 20);
            continue;
        }
        if (e)
            fail("produce: %s", rd_kafka_err2str(e));
        i++;
        /* about 20000 messages a second: enough batches in flight at any
         * moment, and a read-back that stays quick */
        rd_kafka_poll(p, i % 20 == 0 ? 1 : 0);
        fflush(ackf);
    }
    if (rd_kafka_flush(p, 60000))
        fprintf(stderr, "flush timed out: %d messages left\n",
                rd_kafka_outq_len(p));
    fflush(ackf);
    printf("crash_produce: %ld produced, %ld acknowledged, %ld failed, %d "
           "left\n",
           i, acked, failed, rd_kafka_outq_len(p));
    rd_kafka_destroy(p);
    fclose(ackf);
    return failed == 0 ? 0 : 1;
}
