/*
 * librdkafka's Admin API (2.0.2: CreateTopics v4, DescribeConfigs v1,
 * AlterConfigs v0, CreatePartitions v0, DeleteRecords v1, DeleteTopics v1)
 * against gregor, and the effects seen by a producer and a consumer:
 *
 *   create: with configs and a replica assignment; validate_only creates
 *     nothing; an invalid config, an existing topic and a replication
 *     factor above the brokers are refused with Kafka's errors
 *   describe: values, sources, synonyms, read-only and default flags of
 *     topic and broker configs
 *   alter: a topic's configs (replacing them), a dynamic broker config;
 *     effective at once (max.message.bytes refuses a record that
 *     was accepted before)
 *   partitions: 3 -> 5 in Metadata; shrinking is refused
 *   records: DeleteRecords moves the low watermark, a consumer from the
 *     beginning starts there, beyond the high watermark is refused
 *   delete: the topic leaves Metadata
 *
 * Usage: admin <topic prefix>. Exit 0 or 1.
 */
#include "common.h"

static rd_kafka_t *rk;
static rd_kafka_queue_t *q;

/* Waits for the result event of an admin call. */
static rd_kafka_event_t *
wait_result(rd_kafka_event_type_t type)
{
    long long until = now_ms() + 20000;
    while (now_ms() < until) {
        rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 1000);
        if (ev == NULL)
            continue;
        if (rd_kafka_event_type(ev) == type) {
            if (rd_kafka_event_error(ev))
                fail("admin request failed: %s",
                     rd_kafka_event_error_string(ev));
            return ev;
        }
        rd_kafka_event_destroy(ev);
    }
    fail("no result event %d", (int)type);
}

static rd_kafka_AdminOptions_t *
options(rd_kafka_admin_op_t op, int validate_only)
{
    char err[256];
    rd_kafka_AdminOptions_t *o = rd_kafka_AdminOptions_new(rk, op);
    rd_kafka_AdminOptions_set_request_timeout(o, 10000, err, sizeof err);
    if (validate_only &&
        rd_kafka_AdminOptions_set_validate_only(o, 1, err, sizeof err))
        fail("validate_only: %s", err);
    return o;
}

/* Creates topics; returns each one's error (in order) into errs. */
static void
create(rd_kafka_NewTopic_t **nt, int n, int validate_only,
       rd_kafka_resp_err_t *errs, const char **msgs)
{
    rd_kafka_AdminOptions_t *o =
        options(RD_KAFKA_ADMIN_OP_CREATETOPICS, validate_only);
    const rd_kafka_topic_result_t **res;
    rd_kafka_event_t *ev;
    size_t cnt;

    rd_kafka_CreateTopics(rk, nt, (size_t)n, o, q);
    ev = wait_result(RD_KAFKA_EVENT_CREATETOPICS_RESULT);
    res = rd_kafka_CreateTopics_result_topics(
        rd_kafka_event_CreateTopics_result(ev), &cnt);
    if ((int)cnt != n)
        fail("CreateTopics: %zu results for %d topics", cnt, n);
    for (int i = 0; i < n; i++) {
        errs[i] = rd_kafka_topic_result_error(res[i]);
        {
            /* kept for the caller after the event goes: a ring of
             * static copies (no leak to report under ASan) */
            static char store[64][512];
            static int next_store;
            const char *es = rd_kafka_topic_result_error_string(res[i]);
            char *slot = store[next_store++ % 64];
            snprintf(slot, sizeof store[0], "%s", es ? es : "");
            msgs[i] = slot;
        }
        printf("create %s: %s (%s)\n", rd_kafka_topic_result_name(res[i]),
               rd_kafka_err2name(errs[i]), msgs[i]);
    }
    rd_kafka_event_destroy(ev);
    rd_kafka_AdminOptions_destroy(o);
}

static rd_kafka_NewTopic_t *
new_topic(const char *name, int parts, int rf)
{
    char err[256];
    rd_kafka_NewTopic_t *t =
        rd_kafka_NewTopic_new(name, parts, rf, err, sizeof err);
    if (t == NULL)
        fail("NewTopic %s: %s", name, err);
    return t;
}

/* Partition count of topic in Metadata, -1 if it is not there. */
static int
partitions_of(const char *topic)
{
    const struct rd_kafka_metadata *md;
    int n = -1;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 1, NULL, &md, 5000);
    if (e)
        fail("metadata: %s", rd_kafka_err2str(e));
    for (int i = 0; i < md->topic_cnt; i++)
        if (strcmp(md->topics[i].topic, topic) == 0 && !md->topics[i].err)
            n = md->topics[i].partition_cnt;
    rd_kafka_metadata_destroy(md);
    return n;
}

/* Describes one resource; the caller destroys *ev. */
static const rd_kafka_ConfigEntry_t **
describe(rd_kafka_ResourceType_t type, const char *name, size_t *cnt,
         rd_kafka_event_t **ev)
{
    rd_kafka_ConfigResource_t *r = rd_kafka_ConfigResource_new(type, name);
    rd_kafka_AdminOptions_t *o = options(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, 0);
    const rd_kafka_ConfigResource_t **rs;
    size_t n;

    rd_kafka_DescribeConfigs(rk, &r, 1, o, q);
    *ev = wait_result(RD_KAFKA_EVENT_DESCRIBECONFIGS_RESULT);
    rs = rd_kafka_DescribeConfigs_result_resources(
        rd_kafka_event_DescribeConfigs_result(*ev), &n);
    if (n != 1)
        fail("DescribeConfigs: %zu resources", n);
    if (rd_kafka_ConfigResource_error(rs[0]))
        fail("DescribeConfigs %s: %s", name,
             rd_kafka_ConfigResource_error_string(rs[0]));
    rd_kafka_ConfigResource_destroy(r);
    rd_kafka_AdminOptions_destroy(o);
    return rd_kafka_ConfigResource_configs(rs[0], cnt);
}

static const rd_kafka_ConfigEntry_t *
entry(const rd_kafka_ConfigEntry_t **es, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rd_kafka_ConfigEntry_name(es[i]), name) == 0)
            return es[i];
    fail("config %s not described", name);
}

static void
expect_entry(const rd_kafka_ConfigEntry_t **es, size_t n, const char *name,
             const char *value, rd_kafka_ConfigSource_t source)
{
    const rd_kafka_ConfigEntry_t *e = entry(es, n, name);
    const char *v = rd_kafka_ConfigEntry_value(e);
    printf("  %s = %s (%s%s)\n", name, v ? v : "(null)",
           rd_kafka_ConfigSource_name(rd_kafka_ConfigEntry_source(e)),
           rd_kafka_ConfigEntry_is_read_only(e) ? ", read-only" : "");
    if (value && (v == NULL || strcmp(v, value) != 0))
        fail("%s = %s, want %s", name, v ? v : "(null)", value);
    if (rd_kafka_ConfigEntry_source(e) != source)
        fail("%s: source %s, want %s", name,
             rd_kafka_ConfigSource_name(rd_kafka_ConfigEntry_source(e)),
             rd_kafka_ConfigSource_name(source));
}

/* Alters one resource (AlterConfigs replaces its whole set). */
static rd_kafka_resp_err_t
alter(rd_kafka_ResourceType_t type, const char *name, const char **kv, int n)
{
    rd_kafka_ConfigResource_t *r = rd_kafka_ConfigResource_new(type, name);
    rd_kafka_AdminOptions_t *o = options(RD_KAFKA_ADMIN_OP_ALTERCONFIGS, 0);
    const rd_kafka_ConfigResource_t **rs;
    rd_kafka_event_t *ev;
    rd_kafka_resp_err_t e;
    size_t cnt;

    for (int i = 0; i < n; i++)
        rd_kafka_ConfigResource_set_config(r, kv[2 * i], kv[2 * i + 1]);
    rd_kafka_AlterConfigs(rk, &r, 1, o, q);
    ev = wait_result(RD_KAFKA_EVENT_ALTERCONFIGS_RESULT);
    rs = rd_kafka_AlterConfigs_result_resources(
        rd_kafka_event_AlterConfigs_result(ev), &cnt);
    if (cnt != 1)
        fail("AlterConfigs: %zu results", cnt);
    e = rd_kafka_ConfigResource_error(rs[0]);
    printf("alter %s: %s %s\n", name, rd_kafka_err2name(e),
           rd_kafka_ConfigResource_error_string(rs[0])
               ? rd_kafka_ConfigResource_error_string(rs[0])
               : "");
    rd_kafka_event_destroy(ev);
    rd_kafka_ConfigResource_destroy(r);
    rd_kafka_AdminOptions_destroy(o);
    return e;
}

static rd_kafka_resp_err_t
create_partitions(const char *topic, int total)
{
    char err[256];
    rd_kafka_NewPartitions_t *np =
        rd_kafka_NewPartitions_new(topic, (size_t)total, err, sizeof err);
    rd_kafka_AdminOptions_t *o = options(RD_KAFKA_ADMIN_OP_CREATEPARTITIONS, 0);
    const rd_kafka_topic_result_t **res;
    rd_kafka_event_t *ev;
    rd_kafka_resp_err_t e;
    size_t cnt;

    rd_kafka_CreatePartitions(rk, &np, 1, o, q);
    ev = wait_result(RD_KAFKA_EVENT_CREATEPARTITIONS_RESULT);
    res = rd_kafka_CreatePartitions_result_topics(
        rd_kafka_event_CreatePartitions_result(ev), &cnt);
    e = rd_kafka_topic_result_error(res[0]);
    printf("partitions %s -> %d: %s %s\n", topic, total, rd_kafka_err2name(e),
           rd_kafka_topic_result_error_string(res[0])
               ? rd_kafka_topic_result_error_string(res[0])
               : "");
    rd_kafka_event_destroy(ev);
    rd_kafka_NewPartitions_destroy(np);
    rd_kafka_AdminOptions_destroy(o);
    return e;
}

/* DeleteRecords below offset on partition 0: the error, the low
 * watermark into *low. */
static rd_kafka_resp_err_t
delete_records(const char *topic, int64_t offset, int64_t *low)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_AdminOptions_t *o = options(RD_KAFKA_ADMIN_OP_DELETERECORDS, 0);
    const rd_kafka_topic_partition_list_t *res;
    rd_kafka_DeleteRecords_t *dr;
    rd_kafka_event_t *ev;
    rd_kafka_resp_err_t e;

    rd_kafka_topic_partition_list_add(l, topic, 0)->offset = offset;
    dr = rd_kafka_DeleteRecords_new(l);
    rd_kafka_DeleteRecords(rk, &dr, 1, o, q);
    ev = wait_result(RD_KAFKA_EVENT_DELETERECORDS_RESULT);
    res = rd_kafka_DeleteRecords_result_offsets(
        rd_kafka_event_DeleteRecords_result(ev));
    e = res->elems[0].err;
    *low = res->elems[0].offset;
    printf("delete records %s below %lld: %s, low watermark %lld\n", topic,
           (long long)offset, rd_kafka_err2name(e), (long long)*low);
    rd_kafka_event_destroy(ev);
    rd_kafka_DeleteRecords_destroy(dr);
    rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_AdminOptions_destroy(o);
    return e;
}

static rd_kafka_resp_err_t
delete_topic(const char *topic)
{
    rd_kafka_DeleteTopic_t *dt = rd_kafka_DeleteTopic_new(topic);
    rd_kafka_AdminOptions_t *o = options(RD_KAFKA_ADMIN_OP_DELETETOPICS, 0);
    const rd_kafka_topic_result_t **res;
    rd_kafka_event_t *ev;
    rd_kafka_resp_err_t e;
    size_t cnt;

    rd_kafka_DeleteTopics(rk, &dt, 1, o, q);
    ev = wait_result(RD_KAFKA_EVENT_DELETETOPICS_RESULT);
    res = rd_kafka_DeleteTopics_result_topics(
        rd_kafka_event_DeleteTopics_result(ev), &cnt);
    e = rd_kafka_topic_result_error(res[0]);
    printf("delete %s: %s\n", topic, rd_kafka_err2name(e));
    rd_kafka_event_destroy(ev);
    rd_kafka_DeleteTopic_destroy(dt);
    rd_kafka_AdminOptions_destroy(o);
    return e;
}

static int delivered, delivery_failed;
static rd_kafka_resp_err_t last_delivery_err;

static void
dr_cb(rd_kafka_t *k, const rd_kafka_message_t *m, void *opaque)
{
    (void)k;
    (void)opaque;
    if (m->err) {
        delivery_failed++;
        last_delivery_err = m->err;
    } else {
        delivered++;
    }
}

/* Produces n values of size bytes to partition 0; waits for them. */
static void
produce(const char *topic, int n, size_t size)
{
    char *buf = malloc(size + 1);
    memset(buf, 'x', size);
    delivered = delivery_failed = 0;
    for (int i = 0; i < n; i++) {
        rd_kafka_resp_err_t e = rd_kafka_producev(
            rk, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_PARTITION(0),
            RD_KAFKA_V_VALUE(buf, size),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (e)
            fail("produce: %s", rd_kafka_err2str(e));
    }
    rd_kafka_flush(rk, 20000);
    free(buf);
}

/* The first offset a consumer reading partition 0 from the beginning
 * gets. */
static int64_t
first_consumed(const char *topic)
{
    char err[256];
    rd_kafka_conf_t *conf = base_conf();
    rd_kafka_t *c;
    rd_kafka_topic_partition_list_t *l;
    int64_t off = -1;
    long long until = now_ms() + 15000;

    conf_set(conf, "group.id", "admin-compat");
    conf_set(conf, "enable.auto.commit", "false");
    c = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (c == NULL)
        fail("consumer: %s", err);
    l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, topic, 0)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_assign(c, l);
    while (off < 0 && now_ms() < until) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll(c, 500);
        if (m == NULL)
            continue;
        if (!m->err)
            off = m->offset;
        rd_kafka_message_destroy(m);
    }
    rd_kafka_topic_partition_list_destroy(l);
    rd_kafka_consumer_close(c);
    rd_kafka_destroy(c);
    return off;
}

int
main(int argc, char **argv)
{
    const char *pfx = argc > 1 ? argv[1] : "adm";
    char a[128], b[128], v[128], bad[128], asg[128], err[256];
    rd_kafka_NewTopic_t *nt[4];
    rd_kafka_resp_err_t errs[4];
    const char *msgs[4];
    const rd_kafka_ConfigEntry_t **es;
    rd_kafka_event_t *ev;
    rd_kafka_conf_t *conf;
    size_t n;
    int64_t lo, hi, low;

    snprintf(a, sizeof a, "%s-a", pfx);
    snprintf(b, sizeof b, "%s-b", pfx);
    snprintf(v, sizeof v, "%s-validate", pfx);
    snprintf(bad, sizeof bad, "%s-bad", pfx);
    snprintf(asg, sizeof asg, "%s-assigned", pfx);
    conf = base_conf();
    rd_kafka_conf_set_dr_msg_cb(conf, dr_cb);
    conf_set(conf, "linger.ms", "5");
    rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (rk == NULL)
        fail("rd_kafka_new: %s", err);
    q = rd_kafka_queue_new(rk);

    /* --- create */
    nt[0] = new_topic(a, 3, 1);
    rd_kafka_NewTopic_set_config(nt[0], "retention.ms", "3600000");
    rd_kafka_NewTopic_set_config(nt[0], "max.message.bytes", "100000");
    nt[1] = new_topic(bad, 1, 1);
    rd_kafka_NewTopic_set_config(nt[1], "cleanup.policy", "shred");
    nt[2] = new_topic(b, 1, 3);
    nt[3] = new_topic(asg, 2, -1);
    {
        int32_t one = 1;
        for (int p = 0; p < 2; p++)
            if (rd_kafka_NewTopic_set_replica_assignment(nt[3], p, &one, 1, err,
                                                         sizeof err))
                fail("assignment: %s", err);
    }
    create(nt, 4, 0, errs, msgs);
    if (errs[0] || errs[3])
        fail("create %s / %s failed", a, asg);
    if (errs[1] != RD_KAFKA_RESP_ERR_INVALID_CONFIG ||
        !strstr(msgs[1], "shred") || !strstr(msgs[1], "cleanup.policy"))
        fail("invalid config: %s (%s)", rd_kafka_err2name(errs[1]), msgs[1]);
    if (errs[2] != RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR)
        fail("rf 3 on one broker: %s", rd_kafka_err2name(errs[2]));
    for (int i = 0; i < 4; i++)
        rd_kafka_NewTopic_destroy(nt[i]);
    if (partitions_of(a) != 3 || partitions_of(asg) != 2)
        fail("Metadata: %s has %d partitions, %s %d", a, partitions_of(a), asg,
             partitions_of(asg));
    /* again: exists; validate_only: nothing created */
    nt[0] = new_topic(a, 1, 1);
    nt[1] = new_topic(v, 2, 1);
    create(nt, 1, 0, errs, msgs);
    if (errs[0] != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
        fail("second create: %s", rd_kafka_err2name(errs[0]));
    create(&nt[1], 1, 1, errs, msgs);
    if (errs[0])
        fail("validate_only: %s", rd_kafka_err2name(errs[0]));
    if (partitions_of(v) != -1)
        fail("validate_only created %s", v);
    rd_kafka_NewTopic_destroy(nt[0]);
    rd_kafka_NewTopic_destroy(nt[1]);

    /* --- describe */
    printf("describe topic %s:\n", a);
    es = describe(RD_KAFKA_RESOURCE_TOPIC, a, &n, &ev);
    expect_entry(es, n, "retention.ms", "3600000",
                 RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG);
    expect_entry(es, n, "cleanup.policy", "delete",
                 RD_KAFKA_CONFIG_SOURCE_DEFAULT_CONFIG);
    expect_entry(es, n, "segment.bytes", "1073741824",
                 RD_KAFKA_CONFIG_SOURCE_DEFAULT_CONFIG);
    {
        /* retention.ms's synonyms: the topic's only. As Kafka's
         * ConfigHelper.configSynonyms, the broker's start at the primary
         * name, log.retention.ms, which is not set: log.retention.hours
         * (a default) is not listed */
        const rd_kafka_ConfigEntry_t *e = entry(es, n, "retention.ms");
        const rd_kafka_ConfigEntry_t **syn;
        size_t ns;
        syn = rd_kafka_ConfigEntry_synonyms(e, &ns);
        if (ns != 1 ||
            strcmp(rd_kafka_ConfigEntry_name(syn[0]), "retention.ms"))
            fail("retention.ms synonyms: %zu", ns);
    }
    rd_kafka_event_destroy(ev);
    printf("describe broker 1:\n");
    es = describe(RD_KAFKA_RESOURCE_BROKER, "1", &n, &ev);
    expect_entry(es, n, "log.retention.hours", "168",
                 RD_KAFKA_CONFIG_SOURCE_DEFAULT_CONFIG);
    expect_entry(es, n, "log.cleaner.backoff.ms", "200",
                 RD_KAFKA_CONFIG_SOURCE_STATIC_BROKER_CONFIG);
    /* as Kafka's DynamicBrokerConfig: log.retention.ms is dynamic, its
     * hours and minutes forms are not */
    if (!rd_kafka_ConfigEntry_is_read_only(entry(es, n, "num.partitions")) ||
        !rd_kafka_ConfigEntry_is_read_only(entry(es, n, "log.retention.hours")) ||
        rd_kafka_ConfigEntry_is_read_only(entry(es, n, "log.retention.ms")))
        fail("read-only flags");
    if (rd_kafka_ConfigEntry_value(entry(es, n, "ssl.key.password")) != NULL ||
        !rd_kafka_ConfigEntry_is_sensitive(entry(es, n, "ssl.key.password")))
        fail("a password was described");
    rd_kafka_event_destroy(ev);

    /* --- effects: max.message.bytes 100000 takes a 50 kB record ... */
    produce(a, 1, 50000);
    if (delivered != 1)
        fail("50 kB record refused: %s", rd_kafka_err2str(last_delivery_err));
    /* ... AlterConfigs replaces the overrides: 1000 refuses it at once */
    {
        const char *kv[] = { "max.message.bytes", "1000", "retention.ms",
                             "7200000" };
        if (alter(RD_KAFKA_RESOURCE_TOPIC, a, kv, 2))
            fail("alter %s", a);
    }
    produce(a, 1, 50000);
    if (delivery_failed != 1 ||
        last_delivery_err != RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)
        fail("50 kB record after max.message.bytes=1000: %d delivered",
             delivered);
    es = describe(RD_KAFKA_RESOURCE_TOPIC, a, &n, &ev);
    expect_entry(es, n, "max.message.bytes", "1000",
                 RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG);
    expect_entry(es, n, "retention.ms", "7200000",
                 RD_KAFKA_CONFIG_SOURCE_DYNAMIC_TOPIC_CONFIG);
    rd_kafka_event_destroy(ev);
    {
        const char *kv[] = { "segment.bytes", "zero" };
        if (alter(RD_KAFKA_RESOURCE_TOPIC, a, kv, 1) !=
            RD_KAFKA_RESP_ERR_INVALID_CONFIG)
            fail("invalid segment.bytes accepted");
    }
    /* a dynamic config of this broker (librdkafka 2.0.2 cannot name the
     * cluster-wide default, resource "") */
    {
        const char *kv[] = { "log.retention.bytes", "1073741824" };
        if (alter(RD_KAFKA_RESOURCE_BROKER, "1", kv, 1))
            fail("alter broker 1");
        kv[0] = "num.partitions";
        kv[1] = "3";
        if (alter(RD_KAFKA_RESOURCE_BROKER, "1", kv, 1) !=
            RD_KAFKA_RESP_ERR_INVALID_REQUEST)
            fail("a read-only broker config was altered");
    }
    es = describe(RD_KAFKA_RESOURCE_TOPIC, a, &n, &ev);
    expect_entry(es, n, "retention.bytes", "1073741824",
                 RD_KAFKA_CONFIG_SOURCE_DYNAMIC_BROKER_CONFIG);
    rd_kafka_event_destroy(ev);

    /* --- partitions */
    if (create_partitions(a, 5))
        fail("create partitions");
    if (partitions_of(a) != 5)
        fail("%s has %d partitions after CreatePartitions", a,
             partitions_of(a));
    if (create_partitions(a, 4) != RD_KAFKA_RESP_ERR_INVALID_PARTITIONS)
        fail("shrinking accepted");

    /* --- records */
    {
        const char *kv[] = { "max.message.bytes", "1000000" };
        alter(RD_KAFKA_RESOURCE_TOPIC, a, kv, 1);
    }
    produce(a, 100, 100);
    if (delivered != 100)
        fail("%d of 100 delivered", delivered);
    if (delete_records(a, 60, &low) || low != 60)
        fail("DeleteRecords below 60: low %lld", (long long)low);
    if (rd_kafka_query_watermark_offsets(rk, a, 0, &lo, &hi, 5000))
        fail("watermarks");
    printf("watermarks %lld..%lld\n", (long long)lo, (long long)hi);
    if (lo != 60 || hi != 101)
        fail("watermarks %lld..%lld, want 60..101", (long long)lo,
             (long long)hi);
    if (first_consumed(a) != 60)
        fail("a consumer from the beginning starts at %lld",
             (long long)first_consumed(a));
    if (delete_records(a, 500, &low) != RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE)
        fail("DeleteRecords past the high watermark accepted");
    if (delete_records(a, RD_KAFKA_OFFSET_END, &low) || low != 101)
        fail("DeleteRecords to the high watermark: %lld", (long long)low);

    /* --- delete */
    if (delete_topic(a) || delete_topic(asg))
        fail("delete");
    if (delete_topic(a) != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
        fail("deleting a deleted topic");
    if (partitions_of(a) != -1)
        fail("%s still listed", a);

    rd_kafka_queue_destroy(q);
    rd_kafka_destroy(rk);
    printf("ok\n");
    return 0;
}
