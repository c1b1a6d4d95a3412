/*
 * librdkafka's transactional producer and read_committed consumer against
 * gregor. Values say what a consumer may see: "c..." committed, "a..."
 * aborted (never visible to read_committed).
 *
 *   txn commit_abort TOPIC PARTS N   commit N, abort N, commit N; then
 *                                    read_committed sees the 2N committed
 *                                    once each, read_uncommitted all 3N
 *   txn fence TOPIC                  a second producer with the same
 *                                    transactional.id fences the first: its
 *                                    commit fails, its data never shows
 *   txn abandon TOPIC                a producer dies inside a transaction
 *                                    (transaction.timeout.ms 3000): a later
 *                                    commit of another producer becomes
 *                                    visible once the coordinator aborted
 *                                    it; the next instance commits
 *   txn open TOPIC DIR N             begin, produce N "c..." to partition 0,
 *                                    write DIR/ready, wait for DIR/go (the
 *                                    broker restarts meanwhile), commit
 *   txn open-abort TOPIC DIR N       likewise, but abort
 *   txn expect TOPIC PARTS C U       read_committed sees exactly C values
 *                                    (each once, all "c..."), and
 *                                    read_uncommitted U records
 *   txn ctp IN OUT GROUP N           consume-transform-produce: IN is
 *                                    filled with N values, then read by
 *                                    GROUP and copied to OUT in
 *                                    transactions committing the input
 *                                    offsets (send_offsets_to_transaction);
 *                                    the second transaction is aborted and
 *                                    redone; OUT holds each value once and
 *                                    GROUP's offsets are at the end of IN
 *   txn ctp-check IN OUT GROUP N     after a restart: the same holds
 *   txn idem-restart TOPIC DIR N     an idempotent producer sends N values
 *                                    to partition 0; at N/2 delivered it
 *                                    writes DIR/ready and goes on while the
 *                                    broker is killed and restarted; then
 *                                    each value is there once, in order
 *   txn bench TOPIC TXNS MSGS        TXNS transactions of MSGS messages
 *                                    each, committed one after the other:
 *                                    transactions/s and commit latency
 *
 * Exit 0 or 1.
 */
#include "common.h"

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>

static int delivered, dr_errors;

static void
dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    (void)opaque;
    if (m->err)
        dr_errors++;
    else
        delivered++;
}

static rd_kafka_t *
producer(const char *txn_id, const char *timeout_ms)
{
    char err[512];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_t *p;
    conf_set(conf, "transactional.id", txn_id);
    conf_set(conf, "transaction.timeout.ms", timeout_ms);
    conf_set(conf, "linger.ms", "5");
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (p == NULL)
        fail("producer: %s", err);
    return p;
}

static void
check(rd_kafka_error_t *e, const char *what)
{
    if (e == NULL)
        return;
    fail("%s: %s (%s)", what, rd_kafka_error_string(e),
         rd_kafka_error_name(e));
}

static void
send_values(rd_kafka_t *p, const char *topic, int parts, const char *prefix,
            int n)
{
    for (int i = 0; i < n; i++) {
        char v[64];
        int len = snprintf(v, sizeof v, "%s-%d", prefix, i);
        rd_kafka_resp_err_t e = rd_kafka_producev(
            p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(i % parts),
            RD_KAFKA_V_VALUE(v, (size_t)len),
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
}

/* Commits, retrying what librdkafka calls retriable. */
static void
commit(rd_kafka_t *p)
{
    for (int tries = 0;; tries++) {
        rd_kafka_error_t *e = rd_kafka_commit_transaction(p, 30000);
        if (e == NULL)
            return;
        if (rd_kafka_error_is_retriable(e) && tries < 10) {
            fprintf(stderr, "commit: %s; retrying\n", rd_kafka_error_string(e));
            rd_kafka_error_destroy(e);
            continue;
        }
        check(e, "commit_transaction");
    }
}

static void
abort_txn(rd_kafka_t *p)
{
    for (int tries = 0;; tries++) {
        rd_kafka_error_t *e = rd_kafka_abort_transaction(p, 30000);
        if (e == NULL)
            return;
        if (rd_kafka_error_is_retriable(e) && tries < 10) {
            rd_kafka_error_destroy(e);
            continue;
        }
        check(e, "abort_transaction");
    }
}

/* Reads every partition to its end (the LSO for read_committed); counts
 * values by prefix; fails on a duplicate committed value. */
typedef struct seen {
    int committed, aborted, other, records;
    char **vals;
    int nvals, cap;
} seen_t;

static int
cmpstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
consume(const char *topic, int parts, bool committed, seen_t *s)
{
    char err[512], gid[64];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_topic_partition_list_t *tl;
    rd_kafka_t *c;
    int eofs = 0;
    long long deadline = now_ms() + 60000;

    memset(s, 0, sizeof *s);
    snprintf(gid, sizeof gid, "txn-check-%d", getpid());
    conf_set(conf, "group.id", gid);
    conf_set(conf, "enable.partition.eof", "true");
    conf_set(conf, "enable.auto.commit", "false");
    conf_set(conf, "isolation.level",
             committed ? "read_committed" : "read_uncommitted");
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
    while (eofs < parts && now_ms() < deadline) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 200);
        if (m == NULL)
            continue;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            eofs++;
        } else if (m->err) {
            fail("consume %s: %s", topic, rd_kafka_message_errstr(m));
        } else {
            const char *v = m->payload;
            s->records++;
            if (m->len > 0 && v[0] == 'c')
                s->committed++;
            else if (m->len > 0 && v[0] == 'a')
                s->aborted++;
            else
                s->other++;
            if (s->nvals == s->cap) {
                s->cap = s->cap ? s->cap * 2 : 256;
                s->vals = realloc(s->vals, (size_t)s->cap * sizeof(char *));
            }
            s->vals[s->nvals++] = strndup(v, m->len);
        }
        rd_kafka_message_destroy(m);
    }
    if (eofs < parts)
        fail("%s: no end of partition within 60 s (%d records)", topic,
             s->records);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    if (s->nvals > 1)
        qsort(s->vals, (size_t)s->nvals, sizeof(char *), cmpstr);
    for (int i = 1; i < s->nvals; i++)
        if (committed && strcmp(s->vals[i - 1], s->vals[i]) == 0)
            fail("%s: %s seen twice", topic, s->vals[i]);
}

static void
seen_free(seen_t *s)
{
    for (int i = 0; i < s->nvals; i++)
        free(s->vals[i]);
    free(s->vals);
}

static void
expect(const char *topic, int parts, int committed, int uncommitted)
{
    seen_t s;
    consume(topic, parts, true, &s);
    if (s.committed != committed || s.aborted != 0 || s.other != 0)
        fail("%s read_committed: %d committed (want %d), %d aborted, %d "
             "other",
             topic, s.committed, committed, s.aborted, s.other);
    seen_free(&s);
    consume(topic, parts, false, &s);
    if (s.records != uncommitted)
        fail("%s read_uncommitted: %d records, want %d", topic, s.records,
             uncommitted);
    seen_free(&s);
    printf("%s: %d committed, %d in all\n", topic, committed, uncommitted);
}

static int
commit_abort(const char *topic, int parts, int n)
{
    rd_kafka_t *p = producer("compat-txn-ca", "60000");
    check(rd_kafka_init_transactions(p, 30000), "init_transactions");
    check(rd_kafka_begin_transaction(p), "begin");
    send_values(p, topic, parts, "c1", n);
    commit(p);
    check(rd_kafka_begin_transaction(p), "begin");
    send_values(p, topic, parts, "a2", n);
    rd_kafka_flush(p, 30000); /* on the broker before the abort */
    abort_txn(p);
    check(rd_kafka_begin_transaction(p), "begin");
    send_values(p, topic, parts, "c3", n);
    commit(p);
    if (delivered != 3 * n || dr_errors)
        fail("delivered %d, want %d", delivered, 3 * n);
    rd_kafka_destroy(p);
    expect(topic, parts, 2 * n, 3 * n);
    return 0;
}

static int
fence(const char *topic)
{
    rd_kafka_t *a = producer("compat-txn-fence", "60000"), *b;
    rd_kafka_error_t *e;
    char err[512];

    check(rd_kafka_init_transactions(a, 30000), "A init_transactions");
    check(rd_kafka_begin_transaction(a), "A begin");
    send_values(a, topic, 1, "a-zombie", 10);
    rd_kafka_flush(a, 30000);
    /* a second instance: A's transaction is aborted, A is fenced */
    b = producer("compat-txn-fence", "60000");
    check(rd_kafka_init_transactions(b, 30000), "B init_transactions");
    check(rd_kafka_begin_transaction(b), "B begin");
    send_values(b, topic, 1, "c-b", 10);
    commit(b);
    /* A finds out: its next produce or its commit fails for good */
    send_values(a, topic, 1, "a-late", 5);
    e = rd_kafka_commit_transaction(a, 30000);
    if (e == NULL)
        fail("the fenced producer committed");
    fprintf(stderr, "A's commit: %s (%s)%s\n", rd_kafka_error_string(e),
            rd_kafka_error_name(e),
            rd_kafka_error_is_fatal(e) ? ", fatal" : "");
    if (!rd_kafka_error_is_fatal(e) &&
        rd_kafka_fatal_error(a, err, sizeof err) == RD_KAFKA_RESP_ERR_NO_ERROR)
        fail("the fenced producer's error is not fatal");
    rd_kafka_error_destroy(e);
    rd_kafka_destroy(a);
    rd_kafka_destroy(b);
    expect(topic, 1, 10, 20);
    return 0;
}

static int
abandon(const char *topic)
{
    pid_t child = fork();
    rd_kafka_t *p;
    long long t0;
    int st;

    if (child < 0)
        fail("fork");
    if (child == 0) {
        /* a producer that dies with its transaction open */
        p = producer("compat-txn-abandon", "3000");
        check(rd_kafka_init_transactions(p, 30000), "init_transactions");
        check(rd_kafka_begin_transaction(p), "begin");
        send_values(p, topic, 1, "a-abandoned", 10);
        if (rd_kafka_flush(p, 30000) || delivered != 10)
            _exit(3);
        _exit(0);
    }
    if (waitpid(child, &st, 0) != child || !WIFEXITED(st) ||
        WEXITSTATUS(st) != 0)
        fail("the abandoning producer failed (%d)", st);
    t0 = now_ms();
    /* a witness committed after it by another producer: read_committed
     * reaches it only once the abandoned transaction is aborted (the LSO
     * stays at its first offset until then) */
    p = producer("compat-txn-witness", "60000");
    check(rd_kafka_init_transactions(p, 30000), "witness init");
    check(rd_kafka_begin_transaction(p), "witness begin");
    send_values(p, topic, 1, "c-witness", 1);
    commit(p);
    rd_kafka_destroy(p);
    for (;;) {
        seen_t s;
        consume(topic, 1, true, &s);
        seen_free(&s);
        if (s.committed == 1)
            break;
        if (now_ms() - t0 > 30000)
            fail("the abandoned transaction was not aborted in 30 s");
        usleep(200000);
    }
    fprintf(stderr, "aborted after %lld ms\n", now_ms() - t0);
    expect(topic, 1, 1, 11);
    /* the next instance of the abandoned producer */
    delivered = 0;
    p = producer("compat-txn-abandon", "3000");
    check(rd_kafka_init_transactions(p, 30000), "init_transactions");
    check(rd_kafka_begin_transaction(p), "begin");
    send_values(p, topic, 1, "c-next", 10);
    commit(p);
    rd_kafka_destroy(p);
    expect(topic, 1, 11, 21);
    return 0;
}

static void
wait_file(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    long long deadline = now_ms() + 120000;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    while (stat(path, &st) != 0) {
        if (now_ms() > deadline)
            fail("no %s", path);
        usleep(50000);
    }
}

static void
touch(const char *dir, const char *name)
{
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f == NULL)
        fail("cannot write %s", path);
    fclose(f);
}

static int
open_txn(const char *topic, const char *dir, int n, bool do_commit)
{
    rd_kafka_t *p = producer(do_commit ? "compat-txn-open" : "compat-txn-open-a",
                             "60000");
    check(rd_kafka_init_transactions(p, 30000), "init_transactions");
    check(rd_kafka_begin_transaction(p), "begin");
    send_values(p, topic, 1, do_commit ? "c-open" : "a-open", n);
    if (rd_kafka_flush(p, 30000) || delivered != n)
        fail("flush: %d delivered", delivered);
    touch(dir, "ready");
    wait_file(dir, "go"); /* the broker restarted meanwhile */
    if (do_commit)
        commit(p);
    else
        abort_txn(p);
    rd_kafka_destroy(p);
    printf("%s after the restart\n", do_commit ? "committed" : "aborted");
    return 0;
}

/* --- consume-transform-produce */

static void
fill(const char *topic, int n)
{
    char err[512];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_t *p;
    conf_set(conf, "linger.ms", "5");
    p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (p == NULL)
        fail("producer: %s", err);
    for (int i = 0; i < n; i++) {
        char v[32];
        int len = snprintf(v, sizeof v, "in-%d", i);
        if (rd_kafka_producev(p, RD_KAFKA_V_TOPIC(topic),
                              RD_KAFKA_V_PARTITION(0),
                              RD_KAFKA_V_VALUE(v, (size_t)len),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                              RD_KAFKA_V_END))
            fail("fill");
    }
    if (rd_kafka_flush(p, 30000))
        fail("fill: flush");
    rd_kafka_destroy(p);
}

static rd_kafka_t *
group_consumer(const char *group, const char *topic)
{
    char err[512];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_topic_partition_list_t *tl;
    rd_kafka_t *c;
    conf_set(conf, "group.id", group);
    conf_set(conf, "enable.auto.commit", "false");
    conf_set(conf, "auto.offset.reset", "earliest");
    conf_set(conf, "isolation.level", "read_committed");
    conf_set(conf, "session.timeout.ms", "6000");
    c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (c == NULL)
        fail("consumer: %s", err);
    rd_kafka_poll_set_consumer(c);
    tl = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(tl, topic, RD_KAFKA_PARTITION_UA);
    if (rd_kafka_subscribe(c, tl))
        fail("subscribe");
    rd_kafka_topic_partition_list_destroy(tl);
    return c;
}

/* The group's committed offset of in-0 (-1001 when none). */
static int64_t
committed_offset(rd_kafka_t *c, const char *topic)
{
    rd_kafka_topic_partition_list_t *tl = rd_kafka_topic_partition_list_new(1);
    int64_t off;
    rd_kafka_topic_partition_list_add(tl, topic, 0);
    if (rd_kafka_committed(c, tl, 30000))
        fail("committed");
    off = tl->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(tl);
    return off;
}

static int
ctp(const char *in, const char *out, const char *group, int n)
{
    rd_kafka_t *c, *p;
    int batch = 0, copied = 0;
    long long deadline = now_ms() + 120000;

    fill(in, n);
    c = group_consumer(group, in);
    p = producer("compat-txn-ctp", "60000");
    check(rd_kafka_init_transactions(p, 30000), "init_transactions");
    while (copied < n && now_ms() < deadline) {
        rd_kafka_message_t *msgs[64];
        int k = 0;
        rd_kafka_topic_partition_list_t *pos;
        rd_kafka_consumer_group_metadata_t *md;
        bool redo = batch == 1; /* the second transaction is aborted */

        while (k < 64) {
            rd_kafka_message_t *m = rd_kafka_consumer_poll(c, k ? 50 : 500);
            if (m == NULL)
                break;
            if (m->err) {
                rd_kafka_message_destroy(m);
                continue;
            }
            msgs[k++] = m;
        }
        if (k == 0)
            continue;
        check(rd_kafka_begin_transaction(p), "begin");
        for (int i = 0; i < k; i++) {
            char v[64];
            int len = snprintf(v, sizeof v, "%s-%.*s", redo ? "a" : "c",
                               (int)msgs[i]->len,
                               (const char *)msgs[i]->payload);
            if (rd_kafka_producev(p, RD_KAFKA_V_TOPIC(out),
                                  RD_KAFKA_V_PARTITION(0),
                                  RD_KAFKA_V_VALUE(v, (size_t)len),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                  RD_KAFKA_V_END))
                fail("produce");
        }
        pos = rd_kafka_topic_partition_list_new(1);
        rd_kafka_topic_partition_list_add(pos, in, 0)->offset =
            msgs[k - 1]->offset + 1;
        md = rd_kafka_consumer_group_metadata(c);
        check(rd_kafka_send_offsets_to_transaction(p, pos, md, 30000),
              "send_offsets_to_transaction");
        rd_kafka_consumer_group_metadata_destroy(md);
        if (redo) {
            /* abort: output and offsets both vanish; read again from the
             * committed offset */
            rd_kafka_flush(p, 30000);
            abort_txn(p);
            pos->elems[0].offset = committed_offset(c, in);
            if (pos->elems[0].offset < 0)
                pos->elems[0].offset = RD_KAFKA_OFFSET_BEGINNING;
            check(rd_kafka_seek_partitions(c, pos, 30000), "seek");
        } else {
            commit(p);
            copied += k;
        }
        rd_kafka_topic_partition_list_destroy(pos);
        for (int i = 0; i < k; i++)
            rd_kafka_message_destroy(msgs[i]);
        batch++;
    }
    if (copied != n)
        fail("copied %d of %d", copied, n);
    if (committed_offset(c, in) != n)
        fail("%s's offset is %lld, want %d", group,
             (long long)committed_offset(c, in), n);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    rd_kafka_destroy(p);
    printf("%d batches\n", batch);
    return 0;
}

static int
ctp_check(const char *in, const char *out, const char *group, int n)
{
    rd_kafka_t *c = group_consumer(group, in);
    seen_t s;
    int64_t off = committed_offset(c, in);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    if (off != n)
        fail("%s's committed offset is %lld, want %d", group, (long long)off,
             n);
    consume(out, 1, true, &s);
    if (s.committed != n || s.aborted != 0)
        fail("%s: %d copies (want %d), %d aborted visible", out, s.committed,
             n, s.aborted);
    seen_free(&s);
    printf("offsets and output agree\n");
    return 0;
}

static int
idem_restart(const char *topic, const char *dir, int n)
{
    char err[512];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_t *p;
    seen_t s;
    bool told = false;

    conf_set(conf, "enable.idempotence", "true");
    conf_set(conf, "linger.ms", "5");
    conf_set(conf, "batch.num.messages", "50");
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    p = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (p == NULL)
        fail("producer: %s", err);
    for (int i = 0; i < n; i++) {
        char v[32];
        int len = snprintf(v, sizeof v, "c-%08d", i);
        rd_kafka_resp_err_t e = rd_kafka_producev(
            p, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
            RD_KAFKA_V_VALUE(v, (size_t)len),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rd_kafka_poll(p, 50);
            i--;
            continue;
        }
        if (e)
            fail("produce: %s", rd_kafka_err2str(e));
        rd_kafka_poll(p, 0);
        /* half delivered, the other half still to send: the broker goes
         * down now. Waited for when the first half is queued, so that a
         * slow start (metadata, producer id) cannot let the whole loop
         * run ahead of the deliveries (the ready file then never came) */
        for (int w = 0; !told && i == n / 2 && delivered < n / 2 && w < 1200;
             w++)
            rd_kafka_poll(p, 50);
        if (!told && delivered >= n / 2) {
            touch(dir, "ready");
            told = true;
        }
        if (i % 100 == 99)
            usleep(2000); /* keep producing across the restart */
    }
    if (rd_kafka_flush(p, 120000))
        fail("flush timed out");
    if (delivered != n || dr_errors)
        fail("delivered %d of %d, %d errors", delivered, n, dr_errors);
    if (rd_kafka_fatal_error(p, err, sizeof err))
        fail("fatal: %s", err);
    rd_kafka_destroy(p);
    consume(topic, 1, true, &s);
    if (s.nvals != n)
        fail("%s: %d records, want %d", topic, s.nvals, n);
    for (int i = 0; i < n; i++) {
        char v[32];
        snprintf(v, sizeof v, "c-%08d", i);
        if (strcmp(s.vals[i], v) != 0)
            fail("%s: %s where %s belongs", topic, s.vals[i], v);
    }
    seen_free(&s);
    printf("%d values once each across the restart\n", n);
    return 0;
}

static int
cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static int
bench(const char *topic, int ntxn, int msgs)
{
    rd_kafka_t *p = producer("compat-txn-bench", "60000");
    long long *lat = calloc((size_t)ntxn, sizeof(*lat)), t0;
    check(rd_kafka_init_transactions(p, 30000), "init_transactions");
    t0 = now_ms();
    for (int i = 0; i < ntxn; i++) {
        struct timespec a, b;
        check(rd_kafka_begin_transaction(p), "begin");
        send_values(p, topic, 1, "c-bench", msgs);
        clock_gettime(CLOCK_MONOTONIC, &a);
        commit(p);
        clock_gettime(CLOCK_MONOTONIC, &b);
        lat[i] = (b.tv_sec - a.tv_sec) * 1000000LL +
                 (b.tv_nsec - a.tv_nsec) / 1000;
    }
    {
        long long el = now_ms() - t0;
        qsort(lat, (size_t)ntxn, sizeof(*lat), cmp_ll);
        printf("%d transactions of %d messages in %lld ms: %.0f txn/s, "
               "%.0f msg/s; commit (flush + EndTxn) p50 %lld us, p99 %lld "
               "us\n",
               ntxn, msgs, el, ntxn * 1000.0 / (double)(el ? el : 1),
               (double)ntxn * msgs * 1000.0 / (double)(el ? el : 1),
               lat[ntxn / 2], lat[ntxn * 99 / 100]);
    }
    free(lat);
    rd_kafka_destroy(p);
    return 0;
}

int
main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "commit_abort") == 0 && argc == 5)
        return commit_abort(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (strcmp(mode, "fence") == 0 && argc == 3)
        return fence(argv[2]);
    if (strcmp(mode, "abandon") == 0 && argc == 3)
        return abandon(argv[2]);
    if (strcmp(mode, "open") == 0 && argc == 5)
        return open_txn(argv[2], argv[3], atoi(argv[4]), true);
    if (strcmp(mode, "open-abort") == 0 && argc == 5)
        return open_txn(argv[2], argv[3], atoi(argv[4]), false);
    if (strcmp(mode, "expect") == 0 && argc == 6) {
        expect(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
        return 0;
    }
    if (strcmp(mode, "ctp") == 0 && argc == 6)
        return ctp(argv[2], argv[3], argv[4], atoi(argv[5]));
    if (strcmp(mode, "idem-restart") == 0 && argc == 5)
        return idem_restart(argv[2], argv[3], atoi(argv[4]));
    if (strcmp(mode, "bench") == 0 && argc == 5)
        return bench(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (strcmp(mode, "ctp-check") == 0 && argc == 6)
        return ctp_check(argv[2], argv[3], argv[4], atoi(argv[5]));
    fail("usage: see compat/txn.c");
}
