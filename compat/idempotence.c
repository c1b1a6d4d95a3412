/*
 * librdkafka's idempotent producer (enable.idempotence=true: InitProducerId,
 * producer ids and sequences, acks=all, up to 5 requests in flight) sends N
 * messages over P partitions; a consumer reads every partition back and
 * each message must be there exactly once, in order.
 *
 *   idempotence TOPIC COUNT PARTITIONS
 */
#include "common.h"

static int delivered, errors;

static void
dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    (void)opaque;
    if (m->err) {
        errors++;
        fprintf(stderr, "delivery: %s\n", rd_kafka_err2str(m->err));
    } else {
        delivered++;
    }
}

int
main(int argc, char **argv)
{
    const char *topic = argc > 1 ? argv[1] : "compat-idem";
    int count = argc > 2 ? atoi(argv[2]) : 10000;
    int parts = argc > 3 ? atoi(argv[3]) : 3;
    char err[512];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_t *p, *c;
    rd_kafka_topic_partition_list_t *tl;
    int *next, got = 0, eofs = 0;
    long long deadline;

    if (count <= 0 || parts <= 0 || parts > 1000)
        fail("bad arguments");
    conf_set(conf, "enable.idempotence", "true");
    conf_set(conf, "linger.ms", "2");
    conf_set(conf, "batch.num.messages", "100");
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (p == NULL)
        fail("producer: %s", err);
    for (int i = 0; i < count; i++) {
        char v[32];
        int n = snprintf(v, sizeof v, "%d", i);
        rd_kafka_resp_err_t e = rd_kafka_producev(
            p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(i % parts),
            RD_KAFKA_V_VALUE(v, (size_t)n),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rd_kafka_poll(p, 50);
            i--;
            continue;
        }
        if (e)
            fail("produce: %s", rd_kafka_err2str(e));
        rd_kafka_poll(p, 0);
    }
    if (rd_kafka_flush(p, 60000))
        fail("flush timed out");
    if (delivered != count || errors)
        fail("delivered %d of %d, %d errors", delivered, count, errors);
    if (rd_kafka_fatal_error(p, err, sizeof err))
        fail("fatal: %s", err);
    rd_kafka_destroy(p);

    conf = base_conf();
    conf_set(conf, "group.id", "unused-assign-only");
    conf_set(conf, "enable.partition.eof", "true");
    conf_set(conf, "enable.auto.commit", "false");
    c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (c == NULL)
        fail("consumer: %s", err);
    rd_kafka_poll_set_consumer(c);
    tl = rd_kafka_topic_partition_list_new(parts);
    for (int i = 0; i < parts; i++)
        rd_kafka_topic_partition_list_add(tl, topic, i)->offset =
            RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(c, tl);
    rd_kafka_topic_partition_list_destroy(tl);
    next = calloc((size_t)parts, sizeof(int));
    for (int i = 0; i < parts; i++)
        next[i] = i;
    deadline = now_ms() + 60000;
    while (eofs < parts && now_ms() < deadline) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 200);
        if (m == NULL)
            continue;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            if (next[m->partition] >= count)
                eofs++;
            rd_kafka_message_destroy(m);
            continue;
        }
        if (m->err)
            fail("consume: %s", rd_kafka_message_errstr(m));
        if (atoi((const char *)m->payload) != next[m->partition])
            fail("partition %d: got %.*s, want %d (duplicate or gap)",
                 m->partition, (int)m->len, (const char *)m->payload,
                 next[m->partition]);
        next[m->partition] += parts;
        got++;
        rd_kafka_message_destroy(m);
    }
    if (got != count)
        fail("consumed %d of %d", got, count);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    free(next);
    printf("%d messages exactly once\n", count);
    return 0;
}
