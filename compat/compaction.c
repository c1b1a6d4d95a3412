/*
 * Log compaction seen by librdkafka clients. A topic created with
 * cleanup.policy=compact and small segments gets rounds of keyed records
 * (plain and lz4) and tombstones for some keys, while a consumer reads it
 * without pause. Checked:
 *   - a keyless record is refused (INVALID_RECORD)
 *   - every record the running consumer sees is the one the producer was
 *     told it wrote at that offset (offsets are never renumbered) and its
 *     offsets only grow
 *   - once cleaned, a consumer from the beginning sees far fewer records,
 *     the latest value of every live key, each at its original offset
 *   - tombstones are kept until delete.retention.ms has passed after the
 *     cleaner first saw them, then they go
 *
 * Usage: compaction <topic>. Exit 0 or 1.
 */
#include "common.h"

#include <pthread.h>

#define KEYS   40
#define ROUNDS 25
#define DEAD   5 /* keys 0..DEAD-1 end with a tombstone */

typedef struct rec {
    int key;   /* -1: none here */
    int round; /* -1: tombstone */
} rec_t;

#define MAXOFF (KEYS * ROUNDS + 100)
static rec_t written[MAXOFF]; /* by offset, from delivery reports */
static int nwritten, dr_failed;
static rd_kafka_resp_err_t dr_err;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *topic;
static volatile int stop_reader;
static char reader_fail[256];
static long reader_seen;

static void
parse(const rd_kafka_message_t *m, rec_t *r)
{
    char k[32] = "", v[32] = "";
    if (m->key_len > 0 && m->key_len < sizeof k)
        memcpy(k, m->key, m->key_len);
    r->key = k[0] == 'k' ? atoi(k + 1) : -2;
    if (m->payload == NULL) {
        r->round = -1;
    } else {
        if (m->len < sizeof v)
            memcpy(v, m->payload, m->len);
        r->round = v[0] == 'r' ? atoi(v + 1) : -2;
    }
}

static void
dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    (void)opaque;
    if (m->err) {
        dr_failed++;
        dr_err = m->err;
        return;
    }
    if (m->offset >= 0 && m->offset < MAXOFF) {
        pthread_mutex_lock(&lock);
        parse(m, &written[m->offset]);
        if (m->offset + 1 > nwritten)
            nwritten = (int)m->offset + 1;
        pthread_mutex_unlock(&lock);
    }
}

static rd_kafka_t *
consumer(const char *group)
{
    char err[256];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_t *c;
    rd_kafka_topic_partition_list_t *l;
    conf_set(conf, "group.id", group);
    conf_set(conf, "enable.auto.commit", "false");
    conf_set(conf, "message.max.bytes", "4096");
    conf_set(conf, "fetch.max.bytes", "4096"); /* small steps */
    conf_set(conf, "max.partition.fetch.bytes", "4096");
    conf_set(conf, "queued.min.messages", "1"); /* little prefetch */
    conf_set(conf, "queued.max.messages.kbytes", "1");
    conf_set(conf, "fetch.wait.max.ms", "50");
    c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (c == NULL)
        fail("consumer: %s", err);
    l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, topic, 0)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(c, l);
    rd_kafka_topic_partition_list_destroy(l);
    return c;
}

/* Checks one consumed record against what was written at its offset. */
static int
check(const rd_kafka_message_t *m, char *why, size_t n)
{
    rec_t r, w;
    parse(m, &r);
    /* a consumer may see a record before its producer hears of it */
    for (int tries = 0;; tries++) {
        pthread_mutex_lock(&lock);
        w = m->offset < MAXOFF ? written[m->offset] : (rec_t){ -3, -3 };
        pthread_mutex_unlock(&lock);
        if (w.key != -3 || tries == 500)
            break;
        usleep(10000);
    }
    if (w.key == -3 || r.key != w.key || r.round != w.round) {
        snprintf(why, n,
                 "offset %lld holds k%d/r%d, the producer wrote k%d/r%d there",
                 (long long)m->offset, r.key, r.round, w.key, w.round);
        return -1;
    }
    return 0;
}

/* The consumer that reads while everything happens. */
static void *
reader(void *arg)
{
    rd_kafka_t *c = consumer("compaction-live");
    int64_t last = -1;
    (void)arg;
    while (!stop_reader) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100);
        if (m == NULL)
            continue;
        if (!m->err && !reader_fail[0]) {
            if (m->offset <= last)
                snprintf(reader_fail, sizeof reader_fail,
                         "offset %lld after %lld", (long long)m->offset,
                         (long long)last);
            else if (check(m, reader_fail, sizeof reader_fail) == 0)
                reader_seen++;
            last = m->offset;
            usleep(3000); /* slow: the cleaner works while it reads */
        }
        rd_kafka_message_destroy(m);
    }
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    return NULL;
}

static void
produce(rd_kafka_t *rk, int key, int round)
{
    char k[16], v[16];
    void *val = round < 0 ? NULL : v;
    size_t vlen;
    rd_kafka_resp_err_t e;
    snprintf(k, sizeof k, "k%d", key);
    snprintf(v, sizeof v, "r%d", round);
    vlen = round < 0 ? 0 : strlen(v);
    e = rd_kafka_producev(
        rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
        RD_KAFKA_V_KEY(k, strlen(k)), RD_KAFKA_V_VALUE(val, vlen),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (e)
        fail("produce: %s", rd_kafka_err2str(e));
}

static rd_kafka_t *
producer(const char *codec)
{
    char err[256];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_t *rk;
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    conf_set(conf, "compression.codec", codec);
    conf_set(conf, "linger.ms", "2");
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (rk == NULL)
        fail("producer: %s", err);
    return rk;
}

/* Reads the whole partition from the beginning: records into out (by
 * read order), their count returned. */
static int
read_all(rec_t *out, int64_t *offs, int max)
{
    rd_kafka_t *c = consumer("compaction-check");
    int n = 0, idle = 0;
    int64_t end;
    char why[256];

    pthread_mutex_lock(&lock);
    end = nwritten;
    pthread_mutex_unlock(&lock);
    while (idle < 30) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 100);
        if (m == NULL) {
            idle++;
            continue;
        }
        if (!m->err) {
            if (check(m, why, sizeof why) != 0)
                fail("fresh read: %s", why);
            if (n < max) {
                parse(m, &out[n]);
                offs[n] = m->offset;
                n++;
            }
            if (m->offset + 1 >= end)
                idle = 30;
        }
        rd_kafka_message_destroy(m);
    }
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    return n;
}

/* The topic: compacted, small segments rolled after 500 ms, cleaned as
 * soon as anything is dirty, tombstones kept 1.5 s. */
static void
create_topic(rd_kafka_t *rk)
{
    static const char *const kv[] = { "cleanup.policy",
                                      "compact",
                                      "segment.bytes",
                                      "1024",
                                      "segment.ms",
                                      "500",
                                      "min.cleanable.dirty.ratio",
                                      "0.01",
                                      "delete.retention.ms",
                                      "1500" };
    char err[256];
    rd_kafka_NewTopic_t *nt =
        rd_kafka_NewTopic_new(topic, 1, 1, err, sizeof err);
    rd_kafka_queue_t *q = rd_kafka_queue_new(rk);
    const rd_kafka_topic_result_t **res;
    rd_kafka_event_t *ev;
    size_t cnt;

    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i += 2)
        rd_kafka_NewTopic_set_config(nt, kv[i], kv[i + 1]);
    rd_kafka_CreateTopics(rk, &nt, 1, NULL, q);
    ev = rd_kafka_queue_poll(q, 15000);
    if (ev == NULL || rd_kafka_event_error(ev))
        fail("CreateTopics: %s", ev ? rd_kafka_event_error_string(ev) : "");
    res = rd_kafka_CreateTopics_result_topics(
        rd_kafka_event_CreateTopics_result(ev), &cnt);
    if (cnt != 1 || rd_kafka_topic_result_error(res[0]))
        fail("CreateTopics %s: %s", topic,
             cnt ? rd_kafka_topic_result_error_string(res[0]) : "");
    rd_kafka_event_destroy(ev);
    rd_kafka_NewTopic_destroy(nt);
    rd_kafka_queue_destroy(q);
}

int
main(int argc, char **argv)
{
    static rec_t seen[MAXOFF];
    static int64_t offs[MAXOFF];
    int latest[KEYS], n = 0, total;
    rd_kafka_t *plain, *lz4;
    pthread_t th;
    long long until;

    topic = argc > 1 ? argv[1] : "compaction";
    for (int i = 0; i < MAXOFF; i++)
        written[i].key = written[i].round = -3; /* not yet delivered */
    plain = producer("none");
    lz4 = producer("lz4");
    create_topic(plain);

    /* keyless: refused by a compacted topic */
    rd_kafka_producev(plain, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
                      RD_KAFKA_V_VALUE("nokey", 5), RD_KAFKA_V_END);
    rd_kafka_flush(plain, 10000);
    if (dr_failed != 1 || dr_err != RD_KAFKA_RESP_ERR_INVALID_RECORD)
        fail("a keyless record: %d failed (%s)", dr_failed,
             rd_kafka_err2name(dr_err));
    dr_failed = 0;

    pthread_create(&th, NULL, reader, NULL);
    for (int r = 0; r < ROUNDS; r++) {
        rd_kafka_t *rk = r % 2 ? lz4 : plain;
        for (int k = 0; k < KEYS; k++) {
            int round = r;
            if (r == ROUNDS - 1 && k < DEAD)
                round = -1; /* tombstone */
            produce(rk, k, round);
            latest[k] = round;
        }
        rd_kafka_flush(rk, 10000);
        usleep(20000);
    }
    if (dr_failed)
        fail("%d records failed: %s", dr_failed, rd_kafka_err2name(dr_err));
    total = nwritten;
    printf("produced %d records (%d keys x %d rounds)\n", total, KEYS, ROUNDS);
    /* roll the active segment (segment.ms) so all of it can be cleaned */
    usleep(700000);
    produce(plain, KEYS + 1, 0);
    rd_kafka_flush(plain, 10000);
    total = nwritten;

    /* compaction: fewer records, the latest value of each key */
    until = now_ms() + 30000;
    for (;;) {
        n = read_all(seen, offs, MAXOFF);
        printf("a fresh read sees %d of %d records\n", n, total);
        if (n <= KEYS + 1 || now_ms() > until)
            break;
        usleep(300000);
    }
    if (n > KEYS + 1)
        fail("not compacted: %d records of %d", n, total);
    for (int k = 0; k < KEYS; k++) {
        int last = -3;
        for (int i = 0; i < n; i++)
            if (seen[i].key == k)
                last = seen[i].round;
        if (k >= DEAD && last != latest[k])
            fail("k%d: latest value r%d, want r%d", k, last, latest[k]);
        if (k < DEAD && last != -1 && last != -3)
            fail("k%d: deleted, but r%d is read", k, last);
    }
    for (int i = 1; i < n; i++)
        if (offs[i] <= offs[i - 1])
            fail("offsets out of order");
    /* tombstones: gone once delete.retention.ms passed the cleaning that
     * stamped them */
    until = now_ms() + 30000;
    for (;;) {
        int tomb = 0;
        n = read_all(seen, offs, MAXOFF);
        for (int i = 0; i < n; i++)
            if (seen[i].round == -1)
                tomb++;
        printf("%d records, %d tombstones\n", n, tomb);
        if (tomb == 0 || now_ms() > until) {
            if (tomb)
                fail("%d tombstones stay after delete.retention.ms", tomb);
            break;
        }
        usleep(300000);
    }
    if (n != KEYS - DEAD + 1)
        fail("%d records at the end, want %d", n, KEYS - DEAD + 1);

    stop_reader = 1;
    pthread_join(th, NULL);
    if (reader_fail[0])
        fail("the live consumer: %s", reader_fail);
    printf("the live consumer read %ld consistent records\n", reader_seen);
    if (reader_seen < KEYS)
        fail("the live consumer read too little");
    rd_kafka_destroy(plain);
    rd_kafka_destroy(lz4);
    printf("ok\n");
    return 0;
}
