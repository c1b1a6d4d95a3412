/*
 * The transactional client of the crash loop (compat/run.sh s_crash_loop),
 * run beside crash_produce while the broker is killed and restarted:
 *
 * - a transactional producer (librdkafka) writes transaction after
 *   transaction: attempt n produces "t<n>.<j>" (j < PER_TXN) across the
 *   partitions of TOPIC and, with send_offsets_to_transaction, commits
 *   offset n + 1 of TOPIC/0 for group GROUP; every commit that returns
 *   success is appended to ACKFILE as "txn <n>";
 * - a plain consumer (no subscription) commits offset n + 1 of TOPIC/1
 *   for group GROUP-plain with rd_kafka_commit after each transaction;
 *   every commit that returns success is appended as "commit <n + 1>".
 *
 * A transaction whose outcome is unknown (an abortable, fatal or timed-out
 * error) is aborted when it can be and never redone under its number: the
 * next attempt takes the next one, so each number is committed at most
 * once and compat/crash_txn_check.py can tell: every acknowledged
 * transaction is visible to read_committed, all of it, every visible one
 * is whole, and GROUP's offset is the last visible one's n + 1. A fatal
 * error (fenced after a lost answer, ...) makes a new producer, as an
 * application would.
 *
 * On SIGTERM it finishes the transaction in hand and prints
 * "crash_txn: A attempted, C committed, B aborted, F new producers,
 *  K plain commits". Exit 0, or 1 on an unexpected failure.
 *
 *   crash_txn TOPIC PARTITIONS GROUP ACKFILE
 */
#include "common.h"

#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>

#define PER_TXN 5

static volatile sig_atomic_t stopping;
static FILE *ackf;
static long attempted, committed, aborted, renewed, plain_commits;

static void
on_term(int sig)
{
    (void)sig;
    stopping = 1;
}

static void
note(const char *what, rd_kafka_error_t *e)
{
    fprintf(stderr, "crash_txn: %s: %s (%s%s%s)\n", what,
            rd_kafka_error_string(e), rd_kafka_error_name(e),
            rd_kafka_error_is_retriable(e) ? ", retriable" : "",
            rd_kafka_error_is_fatal(e)             ? ", fatal"
            : rd_kafka_error_txn_requires_abort(e) ? ", abortable"
                                                   : "");
}

static rd_kafka_t *
new_producer(void)
{
    char err[512];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_t *p;

    conf_set(conf, "transactional.id", "crash-txn");
    conf_set(conf, "transaction.timeout.ms", "10000");
    conf_set(conf, "message.timeout.ms", "10000");
    conf_set(conf, "linger.ms", "2");
    conf_restarts(conf);
    p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (p == NULL)
        fail("producer: %s", err);
    for (;;) {
        rd_kafka_error_t *e = rd_kafka_init_transactions(p, 10000);
        if (e == NULL)
            return p;
        note("init_transactions", e);
        if (rd_kafka_error_is_fatal(e)) {
            /* librdkafka gives up on this instance: start another */
            rd_kafka_error_destroy(e);
            rd_kafka_destroy(p);
            renewed++;
            return new_producer();
        }
        rd_kafka_error_destroy(e);
        if (stopping)
            return p;
    }
}

static rd_kafka_t *
new_committer(const char *group)
{
    char err[512];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_t *c;

    conf_set(conf, "group.id", group);
    conf_set(conf, "enable.auto.commit", "false");
    conf_restarts(conf);
    c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (c == NULL)
        fail("consumer: %s", err);
    return c;
}

/* One transaction, attempt n: true when its commit returned success. An
 * error leaves the producer ready for the next one, or *p renewed. */
static bool
one_txn(rd_kafka_t **p, const char *topic, int parts,
        rd_kafka_consumer_group_metadata_t *cgmd, long n)
{
    rd_kafka_topic_partition_list_t *offs;
    rd_kafka_error_t *e;
    bool ok = false;

    if ((e = rd_kafka_begin_transaction(*p)) != NULL)
        goto failed;
    for (int j = 0; j < PER_TXN; j++) {
        char v[48];
        int len = snprintf(v, sizeof v, "t%ld.%d", n, j);
        rd_kafka_resp_err_t err = rd_kafka_producev(
            *p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(j % parts),
            RD_KAFKA_V_VALUE(v, (size_t)len),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rd_kafka_poll(*p, 20);
            j--;
            continue;
        }
        if (err) {
            /* an abortable state refuses new messages */
            fprintf(stderr, "crash_txn: produce: %s\n", rd_kafka_err2str(err));
            goto abort;
        }
    }
    offs = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(offs, topic, 0)->offset = n + 1;
    e = rd_kafka_send_offsets_to_transaction(*p, offs, cgmd, 10000);
    rd_kafka_topic_partition_list_destroy(offs);
    if (e != NULL)
        goto failed;
    for (int tries = 0;; tries++) {
        e = rd_kafka_commit_transaction(*p, 10000);
        if (e == NULL) {
            ok = true;
            break;
        }
        if (!rd_kafka_error_is_retriable(e) || tries >= 20)
            goto failed;
        note("commit_transaction (retrying)", e);
        rd_kafka_error_destroy(e);
    }
    return ok;

failed:
    note("transaction", e);
    if (rd_kafka_error_is_fatal(e)) {
        rd_kafka_error_destroy(e);
        rd_kafka_destroy(*p);
        renewed++;
        *p = new_producer();
        return false;
    }
    rd_kafka_error_destroy(e);
abort:
    for (int tries = 0;; tries++) {
        e = rd_kafka_abort_transaction(*p, 10000);
        if (e == NULL) {
            aborted++;
            return false;
        }
        note("abort_transaction", e);
        if (rd_kafka_error_is_fatal(e) || tries >= 20) {
            rd_kafka_error_destroy(e);
            rd_kafka_destroy(*p);
            renewed++;
            *p = new_producer();
            return false;
        }
        rd_kafka_error_destroy(e);
    }
}

int
main(int argc, char **argv)
{
    rd_kafka_consumer_group_metadata_t *cgmd;
    const char *topic, *group;
    char plain[256];
    rd_kafka_t *p, *c;
    int parts;
    long n = 0;

    if (argc != 5)
        fail("usage: crash_txn TOPIC PARTITIONS GROUP ACKFILE");
    topic = argv[1];
    parts = atoi(argv[2]);
    group = argv[3];
    if (parts < 2 || (ackf = fopen(argv[4], "a")) == NULL)
        fail("bad arguments");
    snprintf(plain, sizeof plain, "%s-plain", group);
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);

    p = new_producer();
    c = new_committer(plain);
    cgmd = rd_kafka_consumer_group_metadata_new(group);
    while (!stopping) {
        rd_kafka_topic_partition_list_t *offs;
        rd_kafka_resp_err_t err;

        attempted++;
        if (one_txn(&p, topic, parts, cgmd, n)) {
            committed++;
            fprintf(ackf, "txn %ld\n", n);
            fflush(ackf);
        }
        n++;
        offs = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(offs, topic, 1)->offset = n;
        err = rd_kafka_commit(c, offs, 0);
        rd_kafka_topic_partition_list_destroy(offs);
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            plain_commits++;
            fprintf(ackf, "commit %ld\n", n);
            fflush(ackf);
        }
    }
    printf("crash_txn: %ld attempted, %ld committed, %ld aborted, %ld new "
           "producers, %ld plain commits\n",
           attempted, committed, aborted, renewed, plain_commits);
    rd_kafka_consumer_group_metadata_destroy(cgmd);
    rd_kafka_destroy(p);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    fclose(ackf);
    return committed > 0 && plain_commits > 0 ? 0 : 1;
}
