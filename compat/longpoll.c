/*
 * Long-poll wake-up: a consumer waits at the end of a partition with
 * fetch.wait.max.ms=10000; a message produced two seconds later must reach
 * it well before that wait ends (the broker answers a waiting Fetch as soon
 * as data arrives, not at the timeout). The bound is generous: 4 s.
 */
#include "common.h"

int
main(int argc, char **argv)
{
    const char *topic = argc > 1 ? argv[1] : "compat-longpoll";
    char err[512];
    rd_kafka_conf_t *conf;
    rd_kafka_t *p, *c;
    rd_kafka_topic_partition_list_t *assign;
    long long sent_at = 0, got_at = 0, deadline;
    int produced = 0;

    conf = base_conf();
    p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (p == NULL)
        fail("producer: %s", err);
    /* create the topic and put one message in, so the consumer starts at
     * a known end */
    if (rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
                          RD_KAFKA_V_VALUE("first", 5), RD_KAFKA_V_END))
        fail("produce");
    if (rd_kafka_flush(p, 10000))
        fail("flush");

    conf = base_conf();
    conf_set(conf, "group.id", "unused-assign-only");
    conf_set(conf, "enable.auto.commit", "false");
    conf_set(conf, "fetch.wait.max.ms", "10000");
    conf_set(conf, "fetch.min.bytes", "1");
    c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (c == NULL)
        fail("consumer: %s", err);
    rd_kafka_poll_set_consumer(c);
    assign = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(assign, topic, 0)->offset =
        RD_KAFKA_OFFSET_END;
    if (rd_kafka_assign(c, assign))
        fail("assign");
    rd_kafka_topic_partition_list_destroy(assign);

    deadline = now_ms() + 30000;
    while (now_ms() < deadline && got_at == 0) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100);
        if (!produced && now_ms() > deadline - 28000) {
            /* two seconds in: the consumer's fetch is parked at the end */
            if (rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic),
                                  RD_KAFKA_V_PARTITION(0),
                                  RD_KAFKA_V_VALUE("second", 6),
                                  RD_KAFKA_V_END))
                fail("produce");
            rd_kafka_flush(p, 10000);
            sent_at = now_ms();
            produced = 1;
        }
        if (m == NULL)
            continue;
        if (m->err) {
            rd_kafka_message_destroy(m);
            continue;
        }
        if (m->len == 6 && memcmp(m->payload, "second", 6) == 0)
            got_at = now_ms();
        rd_kafka_message_destroy(m);
    }
    if (got_at == 0)
        fail("the message never arrived");
    printf("delivered %lld ms after the produce completed\n",
           got_at - sent_at);
    if (got_at - sent_at > 4000)
        fail("the waiting fetch was not woken by the append (%lld ms)",
             got_at - sent_at);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    rd_kafka_destroy(p);
    return 0;
}
