/*
 * librdkafka produces N messages (keys, values of a given size, headers on
 * every third one) to a topic with acks=all and the given compression,
 * then a consumer assigned to every partition (no group) reads from the
 * beginning to the end and checks every message arrived exactly once, in
 * order per partition, byte for byte.
 *
 *   produce_consume TOPIC CODEC COUNT SIZE [PARTITIONS]
 *
 * PC_UNORDERED=1: each message exactly once, in any order. librdkafka
 * without idempotence reorders a retried batch behind the next one even
 * with one request in flight (the retry waits its backoff in the
 * partition's queue while the next batch, already taken for sending,
 * goes).
 */
#include "common.h"

#include <inttypes.h>
#include <stdbool.h>

static int delivered, delivery_errors;

static void
dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    (void)opaque;
    if (m->err) {
        delivery_errors++;
        fprintf(stderr, "delivery failed: %s\n", rd_kafka_err2str(m->err));
    } else {
        delivered++;
    }
}

static void
fill_value(char *buf, int size, int i)
{
    for (int k = 0; k < size; k++)
        buf[k] = (char)('a' + (i * 7 + k) % 26);
}

int
main(int argc, char **argv)
{
    const char *topic, *codec;
    int count, size, parts;
    char err[512], *value;
    rd_kafka_t *p, *c;
    rd_kafka_conf_t *conf;
    rd_kafka_topic_partition_list_t *assign;
    int *next_index, got = 0, eofs = 0;
    bool unordered = getenv("PC_UNORDERED") != NULL;
    char *seen;
    long long deadline;

    if (argc < 5)
        fail("usage: produce_consume TOPIC CODEC COUNT SIZE [PARTITIONS]");
    topic = argv[1];
    codec = argv[2];
    count = atoi(argv[3]);
    size = atoi(argv[4]);
    parts = argc > 5 ? atoi(argv[5]) : 1;
    if (count < 0 || size < 0 || parts < 1 || parts > 10000)
        fail("bad arguments");
    value = malloc((size_t)size + 1);

    conf = base_conf();
    conf_set(conf, "acks", "all");
    conf_set(conf, "compression.codec", codec);
    conf_set(conf, "linger.ms", "5");
    /* PC_MAX_IN_FLIGHT=1: a retried request keeps its place (without
     * idempotence, a later request in flight may land first otherwise) */
    if (getenv("PC_MAX_IN_FLIGHT") != NULL)
        conf_set(conf, "max.in.flight.requests.per.connection",
                 getenv("PC_MAX_IN_FLIGHT"));
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (p == NULL)
        fail("producer: %s", err);
    for (int i = 0; i < count; i++) {
        char key[32];
        rd_kafka_resp_err_t e;
        snprintf(key, sizeof key, "k%d", i);
        fill_value(value, size, i);
        if (i % 3 == 0) {
            rd_kafka_headers_t *h = rd_kafka_headers_new(2);
            rd_kafka_header_add(h, "idx", -1, key, -1);
            rd_kafka_header_add(h, "null", -1, NULL, 0);
            e = rd_kafka_producev(
                p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(i % parts),
                RD_KAFKA_V_KEY(key, strlen(key)),
                RD_KAFKA_V_VALUE(value, (size_t)size),
                RD_KAFKA_V_HEADERS(h), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                RD_KAFKA_V_END);
        } else {
            e = rd_kafka_producev(
                p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(i % parts),
                RD_KAFKA_V_KEY(key, strlen(key)),
                RD_KAFKA_V_VALUE(value, (size_t)size),
                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        }
        if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rd_kafka_poll(p, 100);
            i--;
            continue;
        }
        if (e)
            fail("produce: %s", rd_kafka_err2str(e));
        rd_kafka_poll(p, 0);
    }
    if (rd_kafka_flush(p, 30000))
        fail("flush timed out");
    if (delivered != count || delivery_errors)
        fail("delivered %d of %d (%d errors)", delivered, count,
             delivery_errors);
    rd_kafka_destroy(p);
    printf("produced %d messages of %d bytes (%s)\n", count, size, codec);

    conf = base_conf();
    conf_set(conf, "group.id", "unused-assign-only");
    conf_set(conf, "enable.partition.eof", "true");
    conf_set(conf, "enable.auto.commit", "false");
    conf_set(conf, "check.crcs", "true");
    c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (c == NULL)
        fail("consumer: %s", err);
    rd_kafka_poll_set_consumer(c);
    assign = rd_kafka_topic_partition_list_new(parts);
    for (int i = 0; i < parts; i++)
        rd_kafka_topic_partition_list_add(assign, topic, i)->offset =
            RD_KAFKA_OFFSET_BEGINNING;
    if (rd_kafka_assign(c, assign))
        fail("assign failed");
    rd_kafka_topic_partition_list_destroy(assign);
    next_index = calloc((size_t)parts, sizeof(int));
    seen = calloc((size_t)count + 1, 1);
    for (int i = 0; i < parts; i++)
        next_index[i] = i; /* message i went to partition i % parts */
    deadline = now_ms() + 60000;
    while (eofs < parts && now_ms() < deadline) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 500);
        char want_key[32];
        int pi;
        if (m == NULL)
            continue;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            /* EOF counts once the partition has all its messages */
            if (next_index[m->partition] >= count)
                eofs++;
            rd_kafka_message_destroy(m);
            continue;
        }
        if (m->err)
            fail("consume: %s", rd_kafka_message_errstr(m));
        pi = next_index[m->partition];
        if (unordered) { /* the message the key names, seen once */
            if (m->key_len < 2 || m->key_len > 12 ||
                ((const char *)m->key)[0] != 'k')
                fail("partition %d offset %" PRId64 ": key %.*s", m->partition,
                     m->offset, (int)m->key_len, (char *)m->key);
            memcpy(want_key, (const char *)m->key + 1, m->key_len - 1);
            want_key[m->key_len - 1] = '\0';
            pi = atoi(want_key);
            if (pi < 0 || pi >= count || pi % parts != m->partition ||
                seen[pi]++)
                fail("partition %d offset %" PRId64 ": key %.*s again or "
                     "out of place",
                     m->partition, m->offset, (int)m->key_len, (char *)m->key);
        }
        snprintf(want_key, sizeof want_key, "k%d", pi);
        fill_value(value, size, pi);
        if (m->key_len != strlen(want_key) ||
            memcmp(m->key, want_key, m->key_len) != 0)
            fail("partition %d offset %" PRId64 ": key %.*s, want %s",
                 m->partition, m->offset, (int)m->key_len, (char *)m->key,
                 want_key);
        if (m->len != (size_t)size || memcmp(m->payload, value, m->len) != 0)
            fail("partition %d offset %" PRId64 ": value differs",
                 m->partition, m->offset);
        if (!unordered && m->offset != (pi / parts))
            fail("partition %d: message %d at offset %" PRId64
                 ", want %d",
                 m->partition, pi, m->offset, pi / parts);
        {
            rd_kafka_headers_t *h = NULL;
            const void *hv;
            size_t hs;
            rd_kafka_message_headers(m, &h);
            if (pi % 3 == 0) {
                if (h == NULL ||
                    rd_kafka_header_get_last(h, "idx", &hv, &hs) ||
                    hs != strlen(want_key) || memcmp(hv, want_key, hs) != 0)
                    fail("message %d: header idx missing or wrong", pi);
                if (rd_kafka_header_get_last(h, "null", &hv, &hs) ||
                    hv != NULL)
                    fail("message %d: null header lost", pi);
            } else if (h != NULL && rd_kafka_header_cnt(h) != 0) {
                fail("message %d: unexpected headers", pi);
            }
        }
        if (rd_kafka_message_timestamp(m, NULL) <= 0)
            fail("message %d: no timestamp", pi);
        next_index[m->partition] += parts;
        got++;
        rd_kafka_message_destroy(m);
    }
    if (got != count)
        fail("consumed %d of %d", got, count);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    free(next_index);
    free(seen);
    free(value);
    printf("consumed %d messages%s\n", got,
           unordered ? " once each" : " in order");
    return 0;
}
