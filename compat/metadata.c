/*
 * librdkafka lists the broker and topics: one broker with the advertised
 * address, the cluster's controller, and a topic auto-created on request
 * with num.partitions partitions (argv[1], default 1) led by that broker.
 */
#include "common.h"

int
main(int argc, char **argv)
{
    int want_parts = argc > 1 ? atoi(argv[1]) : 1;
    char err[512], topic[64];
    rd_kafka_t *rk;
    rd_kafka_topic_t *rkt;
    const struct rd_kafka_metadata *md;
    rd_kafka_resp_err_t e;
    int found = 0;

    snprintf(topic, sizeof topic, "compat-md-%d", (int)getpid());
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, base_conf(), err, sizeof err);
    if (rk == NULL)
        fail("rd_kafka_new: %s", err);

    /* all topics: one broker, no topics yet */
    e = rd_kafka_metadata(rk, 1, NULL, &md, 5000);
    if (e)
        fail("metadata: %s", rd_kafka_err2str(e));
    if (md->broker_cnt != 1)
        fail("expected 1 broker, got %d", md->broker_cnt);
    printf("broker %d at %s:%d; %d topics\n", md->brokers[0].id,
           md->brokers[0].host, md->brokers[0].port, md->topic_cnt);
    if (md->brokers[0].port <= 0)
        fail("bad broker port");
    rd_kafka_metadata_destroy(md);

    /* one topic: auto-created */
    rkt = rd_kafka_topic_new(rk, topic, NULL);
    for (int tries = 0; tries < 20 && !found; tries++) {
        e = rd_kafka_metadata(rk, 0, rkt, &md, 5000);
        if (e)
            fail("metadata for %s: %s", topic, rd_kafka_err2str(e));
        if (md->topic_cnt == 1 && md->topics[0].err == 0) {
            const rd_kafka_metadata_topic_t *t = &md->topics[0];
            if (strcmp(t->topic, topic) != 0)
                fail("wrong topic %s", t->topic);
            if (t->partition_cnt != want_parts)
                fail("%s has %d partitions, want %d", topic, t->partition_cnt,
                     want_parts);
            for (int p = 0; p < t->partition_cnt; p++)
                if (t->partitions[p].leader != md->brokers[0].id ||
                    t->partitions[p].replica_cnt != 1 ||
                    t->partitions[p].isr_cnt != 1)
                    fail("partition %d: leader %d replicas %d isr %d", p,
                         t->partitions[p].leader, t->partitions[p].replica_cnt,
                         t->partitions[p].isr_cnt);
            found = 1;
        }
        rd_kafka_metadata_destroy(md);
    }
    if (!found)
        fail("topic %s was not auto-created", topic);

    /* all topics again: now listed */
    e = rd_kafka_metadata(rk, 1, NULL, &md, 5000);
    if (e)
        fail("metadata: %s", rd_kafka_err2str(e));
    found = 0;
    for (int i = 0; i < md->topic_cnt; i++)
        if (strcmp(md->topics[i].topic, topic) == 0)
            found = 1;
    rd_kafka_metadata_destroy(md);
    if (!found)
        fail("%s missing from the all-topics listing", topic);
    rd_kafka_topic_destroy(rkt);
    rd_kafka_destroy(rk);
    printf("ok\n");
    return 0;
}
