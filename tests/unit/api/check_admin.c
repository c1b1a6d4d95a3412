/* The admin handlers, bytes in and bytes out through a broker in a temp
 * dir: CreateTopics' error map, DeleteTopics by name and id and with
 * deletion disabled, config changes in effect at once and persisted across
 * a restart, DeleteRecords, DescribeLogDirs, ElectLeaders,
 * DescribeCluster. */
#include "../unit.h"
#include "brokertest.h"

#include "api/configs.h"
#include "cluster/cluster.h"
#include "cluster/topic_config.h"
#include "core/fault.h"
#include "log/log_int.h"
#include "proto/gen/proto_table.h"
#include "proto/kerr.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef gr_create_topics_request_creatable_topic_t ctopic_t;

static ctopic_t
ctopic(const char *name, int32_t np, int16_t rf)
{
    ctopic_t t;
    gr_create_topics_request_creatable_topic_init(&t);
    t.name = gr_str_c(name);
    t.num_partitions = np;
    t.replication_factor = rf;
    t.assignments_cnt = 0;
    t.configs_cnt = 0;
    return t;
}

/* A topic given by its replica assignments. */
static ctopic_t
ctopic_asg(const char *name,
           gr_create_topics_request_creatable_replica_assignment_t *asg, int n)
{
    ctopic_t t = ctopic(name, -1, -1);
    t.assignments = asg;
    t.assignments_cnt = n;
    return t;
}

static void
ctopic_config(gr_brokertest_t *bt, ctopic_t *t, const char *k, const char *v)
{
    gr_create_topics_request_creatable_topic_config_t *c =
        gr_arena_zalloc(bt->a, (size_t)(t->configs_cnt + 1) * sizeof(*c));
    if (t->configs_cnt)
        memcpy(c, t->configs, (size_t)t->configs_cnt * sizeof(*c));
    c[t->configs_cnt].name = gr_str_c(k);
    c[t->configs_cnt].value = v ? gr_str_c(v) : GR_STR_NULL;
    t->configs = c;
    t->configs_cnt++;
}

static gr_create_topics_response_t *
create(gr_brokertest_t *bt, int16_t ver, ctopic_t *topics, int n,
       bool validate_only)
{
    gr_create_topics_request_t rq;
    gr_create_topics_request_init(&rq);
    rq.topics = topics;
    rq.topics_cnt = n;
    rq.validate_only = validate_only;
    return gr_brokertest_call(bt, GR_API_CREATE_TOPICS, ver, &rq);
}

START_TEST(test_create_topics_errors)
{
    gr_brokertest_t bt;
    gr_create_topics_response_t *rs;
    gr_create_topics_request_creatable_replica_assignment_t asg[2];
    int32_t one = 1, seven = 7;
    ctopic_t t[9];

    gr_brokertest_start(&bt, NULL);
    t[0] = ctopic("ok", 3, 1);
    ctopic_config(&bt, &t[0], "retention.ms", "1000");
    t[1] = ctopic("bad/name", 1, 1);
    t[2] = ctopic("zero", 0, 1);
    t[3] = ctopic("rf", 1, 2);
    t[4] = ctopic("cfg", 1, 1);
    ctopic_config(&bt, &t[4], "retention.ms", "soon");
    t[5] = ctopic("nullcfg", 1, 1);
    ctopic_config(&bt, &t[5], "retention.ms", NULL);
    t[6] = ctopic("asg", -1, -1);
    asg[0].partition_index = 0;
    asg[0].broker_ids = &one;
    asg[0].broker_ids_cnt = 1;
    asg[1].partition_index = 1;
    asg[1].broker_ids = &seven;
    asg[1].broker_ids_cnt = 1;
    t[6].assignments = asg;
    t[6].assignments_cnt = 2;
    t[7] = ctopic("both", 2, -1);
    t[7].assignments = asg;
    t[7].assignments_cnt = 1;
    t[8] = ctopic("defaults", -1, -1);
    rs = create(&bt, 5, t, 9, false);
    ck_assert_int_eq(rs->topics_cnt, 9);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->topics[0].num_partitions, 3);
    ck_assert_int_gt(rs->topics[0].configs_cnt, 30);
    ck_assert_int_eq(rs->topics[1].error_code, GR_KERR_INVALID_TOPIC_EXCEPTION);
    ck_assert_int_eq(rs->topics[1].num_partitions, -1);
    ck_assert_int_eq(rs->topics[2].error_code, GR_KERR_INVALID_PARTITIONS);
    ck_assert_int_eq(rs->topics[3].error_code,
                     GR_KERR_INVALID_REPLICATION_FACTOR);
    ck_assert_int_eq(rs->topics[4].error_code, GR_KERR_INVALID_CONFIG);
    ck_assert(gr_str_eq_cstr(&rs->topics[4].error_message,
                             "Invalid value soon for configuration "
                             "retention.ms: Not a number of type LONG"));
    ck_assert_int_eq(rs->topics[5].error_code, GR_KERR_INVALID_CONFIG);
    ck_assert_int_eq(rs->topics[6].error_code,
                     GR_KERR_INVALID_REPLICA_ASSIGNMENT);
    ck_assert_int_eq(rs->topics[7].error_code, GR_KERR_INVALID_REQUEST);
    ck_assert_int_eq(rs->topics[8].error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->topics[8].num_partitions, 1);
    ck_assert_int_eq(rs->topics[8].replication_factor, 1);
    /* the model and the logs */
    ck_assert_int_eq(bt.b->cluster->ntopics, 2);
    ck_assert_int_eq(gr_cluster_topic_cstr(bt.b->cluster, "ok")
                         ->parts[2]
                         ->log->cfg.retention_ms,
                     1000);
    /* v0: errors without messages; again: exists */
    rs = create(&bt, 0, t, 1, false);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_TOPIC_ALREADY_EXISTS);
    /* a name that collides with ok's once '.' and '_' are alike */
    t[0] = ctopic("o.k", 1, 1);
    t[1] = ctopic("ok_", 1, 1);
    rs = create(&bt, 7, t, 1, false);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
    t[0] = ctopic("o_k", 1, 1);
    rs = create(&bt, 7, t, 1, false);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_INVALID_TOPIC_EXCEPTION);
    gr_brokertest_stop(&bt);
}
END_TEST

/* The error message of CreateTopics v7 for a topic named name (len
 * bytes). */
static gr_str_t
create_msg(gr_brokertest_t *bt, const char *name, int32_t len)
{
    ctopic_t t = ctopic("", 1, 1);
    gr_create_topics_response_t *rs;
    t.name = (gr_str_t){ name, len };
    rs = create(bt, 7, &t, 1, false);
    ck_assert_int_eq(rs->topics_cnt, 1);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_INVALID_TOPIC_EXCEPTION);
    return rs->topics[0].error_message;
}

/* An invalid topic name gets Kafka 4.4's Topic.validate message, naming
 * the topic where Kafka does, wherever it is reported (CreateTopics,
 * DescribeProducers, DescribeConfigs); its length is counted in UTF-16
 * units, as Java's String.length(). An unknown topic in DescribeProducers
 * has the error's default message. */
START_TEST(test_topic_name_messages)
{
    static const char chars[] = "' contains one or more characters other "
                                "than ASCII alphanumerics, '.', '_' and '-'";
    gr_brokertest_t bt;
    char name[600], want[800];
    gr_str_t m;
    gr_describe_producers_request_t pq;
    gr_describe_producers_request_topic_request_t pt[2];
    gr_describe_producers_response_t *prs;
    gr_describe_configs_request_t dq;
    gr_describe_configs_request_describe_configs_resource_t dr;
    gr_describe_configs_response_t *drs;
    int32_t p0 = 0;

    gr_brokertest_start(&bt, NULL);
    m = create_msg(&bt, "bad name", 8);
    ck_assert(gr_str_eq_cstr(&m, "Topic name is invalid: 'bad name' contains "
                                 "one or more characters other than ASCII "
                                 "alphanumerics, '.', '_' and '-'"));
    m = create_msg(&bt, "..", 2);
    ck_assert(gr_str_eq_cstr(&m, "Topic name is invalid: '..' is not allowed"));
    m = create_msg(&bt, ".", 1);
    ck_assert(gr_str_eq_cstr(&m, "Topic name is invalid: '.' is not allowed"));
    m = create_msg(&bt, "", 0);
    ck_assert(gr_str_eq_cstr(&m, "Topic name is invalid: the empty string is "
                                 "not allowed"));
    memset(name, 'x', 250);
    name[250] = '\0';
    m = create_msg(&bt, name, 250);
    snprintf(want, sizeof want,
             "Topic name is invalid: the length of '%s' is longer than the "
             "max allowed length 249",
             name);
    ck_assert(gr_str_eq_cstr(&m, want));
    /* 200 'ä' are 400 bytes but 200 UTF-16 units: not too long */
    for (int i = 0; i < 200; i++)
        memcpy(name + 2 * i, "\xc3\xa4", 2);
    name[400] = '\0';
    m = create_msg(&bt, name, 400);
    snprintf(want, sizeof want, "Topic name is invalid: '%s%s", name, chars);
    ck_assert(gr_str_eq_cstr(&m, want));
    /* 125 four-byte characters: 250 units (surrogate pairs), too long */
    for (int i = 0; i < 125; i++)
        memcpy(name + 4 * i, "\xf0\x9f\x98\x80", 4);
    name[500] = '\0';
    m = create_msg(&bt, name, 500);
    ck_assert_ptr_nonnull(memmem(m.ptr, (size_t)m.len, "the length of", 13));

    gr_describe_producers_request_init(&pq);
    for (int i = 0; i < 2; i++) {
        gr_describe_producers_request_topic_request_init(&pt[i]);
        pt[i].partition_indexes = &p0;
        pt[i].partition_indexes_cnt = 1;
    }
    pt[0].name = gr_str_c("a/b");
    pt[1].name = gr_str_c("nope");
    pq.topics = pt;
    pq.topics_cnt = 2;
    prs = gr_brokertest_call(&bt, GR_API_DESCRIBE_PRODUCERS, 0, &pq);
    ck_assert_int_eq(prs->topics[0].partitions[0].error_code,
                     GR_KERR_INVALID_TOPIC_EXCEPTION);
    ck_assert(gr_str_eq_cstr(&prs->topics[0].partitions[0].error_message,
                             "Topic name is invalid: 'a/b' contains one or "
                             "more characters other than ASCII "
                             "alphanumerics, '.', '_' and '-'"));
    ck_assert_int_eq(prs->topics[1].partitions[0].error_code,
                     GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
    ck_assert(gr_str_eq_cstr(&prs->topics[1].partitions[0].error_message,
                             "This server does not host this "
                             "topic-partition."));

    gr_describe_configs_request_init(&dq);
    gr_describe_configs_request_describe_configs_resource_init(&dr);
    dr.resource_type = 2; /* topic */
    dr.resource_name = gr_str_c("");
    dr.configuration_keys_cnt = -1;
    dq.resources = &dr;
    dq.resources_cnt = 1;
    drs = gr_brokertest_call(&bt, GR_API_DESCRIBE_CONFIGS, 4, &dq);
    ck_assert_int_eq(drs->results[0].error_code,
                     GR_KERR_INVALID_TOPIC_EXCEPTION);
    ck_assert(gr_str_eq_cstr(&drs->results[0].error_message,
                             "Topic name is invalid: the empty string is not "
                             "allowed"));
    gr_brokertest_stop(&bt);
}
END_TEST

/* CreateTopics checked in the order and words of Kafka's controller
 * (ReplicationControlManager.createTopics, createTopic,
 * validateManualPartitionAssignment); a validate-only answer carries a
 * fresh topic id (v7), as Kafka draws one before it knows; the metadata
 * log's name is refused. */
START_TEST(test_create_topics_as_kafka)
{
    gr_brokertest_t bt;
    gr_create_topics_response_t *rs;
    gr_create_topics_request_creatable_replica_assignment_t asg[2];
    int32_t ids[2] = { 1, 1 }, seven[2] = { 1, 7 };
    ctopic_t t[10];
    static const struct {
        int idx;
        gr_kerr_t err;
        const char *msg;
    } want[] = {
        { 0, GR_KERR_INVALID_REQUEST,
          "A manual partition assignment was specified, but replication "
          "factor was not set to -1." },
        { 1, GR_KERR_INVALID_REQUEST,
          "A manual partition assignment was specified, but numPartitions "
          "was not set to -1." },
        { 2, GR_KERR_INVALID_REPLICA_ASSIGNMENT,
          "The manual partition assignment includes broker 7, but no such "
          "broker is registered." },
        { 3, GR_KERR_INVALID_REPLICA_ASSIGNMENT,
          "The manual partition assignment includes the broker 1 more than "
          "once." },
        { 4, GR_KERR_INVALID_REPLICA_ASSIGNMENT,
          "The manual partition assignment includes an empty replica list." },
        { 6, GR_KERR_INVALID_REPLICATION_FACTOR,
          "Unable to replicate the partition 3 time(s): The target "
          "replication factor of 3 cannot be reached because only 1 "
          "broker(s) are registered or some brokers have all their log "
          "directories cordoned." },
        { 7, GR_KERR_INVALID_REPLICATION_FACTOR,
          "Replication factor must be larger than 0, or -1 to use the "
          "default value." },
        { 8, GR_KERR_INVALID_CONFIG,
          "Null value not supported for topic configs: "
          "retention.ms,segment.ms" },
    };

    gr_brokertest_start(&bt, NULL);
    asg[0].partition_index = 0;
    asg[0].broker_ids = ids;
    asg[0].broker_ids_cnt = 1;
    asg[1].partition_index = 1;
    asg[1].broker_ids = ids;
    asg[1].broker_ids_cnt = 2;
    t[0] = ctopic_asg("t0", asg, 1);
    t[0].replication_factor = 1;
    t[0].num_partitions = 1;
    t[1] = ctopic_asg("t1", asg, 1);
    t[1].num_partitions = 1;
    t[2] = ctopic_asg("t2", asg, 1);
    {
        static gr_create_topics_request_creatable_replica_assignment_t a7;
        a7.partition_index = 0;
        a7.broker_ids = seven;
        a7.broker_ids_cnt = 2; /* 1 and 7: 7 is named */
        t[2].assignments = &a7;
    }
    {
        /* index 1 alone, replicas [1, 1]: the replicas are checked first */
        static gr_create_topics_request_creatable_replica_assignment_t a3;
        a3 = asg[1];
        t[3] = ctopic_asg("t3", &a3, 1);
    }
    {
        static gr_create_topics_request_creatable_replica_assignment_t a0;
        a0.partition_index = 0;
        a0.broker_ids = ids;
        a0.broker_ids_cnt = 0;
        t[4] = ctopic_asg("t4", &a0, 1);
    }
    {
        /* in any order: partition 1, then 0, one replica each */
        static gr_create_topics_request_creatable_replica_assignment_t a5[2];
        a5[0] = asg[1];
        a5[0].broker_ids_cnt = 1;
        a5[1] = asg[0];
        t[5] = ctopic_asg("t5", a5, 2);
    }
    t[6] = ctopic("t6", 1, 3);
    t[7] = ctopic("t7", 0, 0); /* both bad: the replication factor first */
    t[8] = ctopic("t8", 1, 0); /* the configs before the partitions */
    ctopic_config(&bt, &t[8], "retention.ms", NULL);
    ctopic_config(&bt, &t[8], "segment.ms", NULL);
    t[9] = ctopic("__cluster_metadata", 1, 1);
    rs = create(&bt, 7, t, 10, false);
    ck_assert_int_eq(rs->topics_cnt, 10);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_int_eq(rs->topics[want[i].idx].error_code, want[i].err);
        ck_assert_msg(gr_str_eq_cstr(&rs->topics[want[i].idx].error_message,
                                     want[i].msg),
                      "topic %d: %.*s", want[i].idx,
                      (int)rs->topics[want[i].idx].error_message.len,
                      rs->topics[want[i].idx].error_message.ptr);
    }
    ck_assert_int_eq(rs->topics[5].error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->topics[5].num_partitions, 2);
    /* the metadata log: after the others */
    ck_assert(gr_str_eq_cstr(&rs->topics[9].name, "__cluster_metadata"));
    ck_assert_int_eq(rs->topics[9].error_code, GR_KERR_INVALID_REQUEST);
    ck_assert(gr_str_eq_cstr(&rs->topics[9].error_message,
                             "Creation of internal topic __cluster_metadata "
                             "is prohibited."));
    ck_assert_ptr_null(gr_cluster_topic_cstr(bt.b->cluster,
                                             "__cluster_metadata"));

    /* validate only: a fresh id each time, nothing made */
    {
        gr_uuid_t first;
        t[0] = ctopic("vo", 2, 1);
        rs = create(&bt, 7, t, 1, true);
        ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
        ck_assert(!gr_uuid_is_zero(&rs->topics[0].topic_id));
        first = rs->topics[0].topic_id;
        rs = create(&bt, 7, t, 1, true);
        ck_assert(!gr_uuid_eq(&rs->topics[0].topic_id, &first));
        ck_assert_ptr_null(gr_cluster_topic_cstr(bt.b->cluster, "vo"));
    }
    gr_brokertest_stop(&bt);
}
END_TEST

/* Metadata describes a name listed twice once, as Kafka's
 * handleTopicMetadataRequest (a set of names); an auto-created one too. */
START_TEST(test_metadata_names_once)
{
    gr_brokertest_t bt;
    ctopic_t t = ctopic("m", 1, 1);
    gr_metadata_request_t rq;
    gr_metadata_request_topic_t qt[5];
    gr_metadata_response_t *rs;

    gr_brokertest_start(&bt, NULL);
    create(&bt, 7, &t, 1, false);
    gr_metadata_request_init(&rq);
    for (int i = 0; i < 5; i++)
        gr_metadata_request_topic_init(&qt[i]);
    qt[0].name = gr_str_c("m");
    qt[1].name = gr_str_c("auto");
    qt[2].name = gr_str_c("m");
    qt[3].name = gr_str_c("bad name");
    qt[4].name = gr_str_c("auto");
    rq.topics = qt;
    rq.topics_cnt = 5;
    rq.allow_auto_topic_creation = true;
    rs = gr_brokertest_call(&bt, GR_API_METADATA, 12, &rq);
    ck_assert_int_eq(rs->topics_cnt, 3);
    ck_assert(gr_str_eq_cstr(&rs->topics[0].name, "m"));
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
    ck_assert(gr_str_eq_cstr(&rs->topics[1].name, "auto"));
    ck_assert_int_eq(rs->topics[1].error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->topics[1].partitions_cnt, 1);
    ck_assert(gr_str_eq_cstr(&rs->topics[2].name, "bad name"));
    ck_assert_int_eq(rs->topics[2].error_code,
                     GR_KERR_INVALID_TOPIC_EXCEPTION);
    ck_assert_int_eq(bt.b->cluster->ntopics, 2);
    gr_brokertest_stop(&bt);
}
END_TEST

static gr_create_partitions_response_t *
grow(gr_brokertest_t *bt, gr_create_partitions_request_create_partitions_topic_t
                              *pt,
     int n)
{
    gr_create_partitions_request_t rq;
    gr_create_partitions_request_init(&rq);
    rq.topics = pt;
    rq.topics_cnt = n;
    rq.timeout_ms = 1000;
    return gr_brokertest_call(bt, GR_API_CREATE_PARTITIONS, 3, &rq);
}

/* CreatePartitions in the words of Kafka's controller
 * (ReplicationControlManager.createPartitions); an unknown topic has no
 * message; an empty assignment list is one of no partitions. */
START_TEST(test_create_partitions_messages)
{
    gr_brokertest_t bt;
    ctopic_t t = ctopic("g", 2, 1);
    gr_create_partitions_request_create_partitions_topic_t pt;
    gr_create_partitions_request_create_partitions_assignment_t pa;
    gr_create_partitions_response_t *rs;
    int32_t five = 5;
    static const struct {
        int32_t count, nasg; /* nasg -1: null assignments */
        gr_kerr_t err;
        const char *msg;
    } cases[] = {
        { 2, -1, GR_KERR_INVALID_PARTITIONS,
          "Topic already has 2 partition(s)." },
        { 1, -1, GR_KERR_INVALID_PARTITIONS,
          "The topic g currently has 2 partition(s); 1 would not be an "
          "increase." },
        { 4, 1, GR_KERR_INVALID_REPLICA_ASSIGNMENT,
          "Attempted to add 2 additional partition(s), but only 1 "
          "assignment(s) were specified." },
        { 3, 0, GR_KERR_INVALID_REPLICA_ASSIGNMENT,
          "Attempted to add 1 additional partition(s), but only 0 "
          "assignment(s) were specified." },
        { 3, 1, GR_KERR_INVALID_REPLICA_ASSIGNMENT,
          "The manual partition assignment includes broker 5, but no such "
          "broker is registered." },
    };

    gr_brokertest_start(&bt, NULL);
    create(&bt, 7, &t, 1, false);
    gr_create_partitions_request_create_partitions_topic_init(&pt);
    pa.broker_ids = &five;
    pa.broker_ids_cnt = 1;
    pt.name = gr_str_c("g");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pt.count = cases[i].count;
        pt.assignments = cases[i].nasg > 0 ? &pa : NULL;
        pt.assignments_cnt = cases[i].nasg;
        rs = grow(&bt, &pt, 1);
        ck_assert_int_eq(rs->results[0].error_code, cases[i].err);
        ck_assert_msg(gr_str_eq_cstr(&rs->results[0].error_message,
                                     cases[i].msg),
                      "case %zu: %.*s", i,
                      (int)rs->results[0].error_message.len,
                      rs->results[0].error_message.ptr);
    }
    pt.name = gr_str_c("nope");
    pt.count = 3;
    pt.assignments_cnt = -1;
    rs = grow(&bt, &pt, 1);
    ck_assert_int_eq(rs->results[0].error_code,
                     GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
    ck_assert_int_eq(rs->results[0].error_message.len, -1);
    ck_assert_int_eq(gr_cluster_topic_cstr(bt.b->cluster, "g")->nparts, 2);
    gr_brokertest_stop(&bt);
}
END_TEST

/* ListOffsets as Kafka's ReplicaManager.fetchOffset answers special
 * timestamps: each negative one from its version on (-6, the earliest
 * pending upload, from v11: -1 there without tiered storage), any other
 * negative one UNSUPPORTED_VERSION, even for an unknown partition; an
 * isolation level other than 0 and 1 fails the request, so each partition
 * is UNKNOWN_SERVER_ERROR with offset and epoch -1. */
START_TEST(test_list_offsets_as_kafka)
{
    gr_brokertest_t bt;
    ctopic_t t = ctopic("lo", 1, 1);
    gr_list_offsets_request_t rq;
    gr_list_offsets_request_list_offsets_topic_t lt;
    gr_list_offsets_request_list_offsets_partition_t lp;
    gr_list_offsets_response_t *rs;
    static const struct {
        int16_t ver;
        int64_t ts;
        int32_t part;
        gr_kerr_t err;
    } cases[] = {
        { 10, -6, 0, GR_KERR_UNSUPPORTED_VERSION },
        { 1, -6, 0, GR_KERR_UNSUPPORTED_VERSION },
        { 11, -6, 0, GR_KERR_NONE },
        { 11, -7, 0, GR_KERR_UNSUPPORTED_VERSION },
        { 6, -3, 0, GR_KERR_UNSUPPORTED_VERSION },
        { 7, -3, 0, GR_KERR_NONE },
        { 7, -4, 0, GR_KERR_UNSUPPORTED_VERSION },
        { 8, -4, 0, GR_KERR_NONE },
        { 8, -5, 0, GR_KERR_UNSUPPORTED_VERSION },
        { 9, -5, 9, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION },
        { 9, -6, 9, GR_KERR_UNSUPPORTED_VERSION },
    };

    gr_brokertest_start(&bt, NULL);
    create(&bt, 7, &t, 1, false);
    gr_list_offsets_request_init(&rq);
    gr_list_offsets_request_list_offsets_topic_init(&lt);
    gr_list_offsets_request_list_offsets_partition_init(&lp);
    lt.name = gr_str_c("lo");
    lt.partitions = &lp;
    lt.partitions_cnt = 1;
    rq.replica_id = -1;
    rq.topics = &lt;
    rq.topics_cnt = 1;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lp.partition_index = cases[i].part;
        lp.timestamp = cases[i].ts;
        rs = gr_brokertest_call(&bt, GR_API_LIST_OFFSETS, cases[i].ver, &rq);
        ck_assert_msg(rs->topics[0].partitions[0].error_code == cases[i].err,
                      "case %zu: error %d", i,
                      rs->topics[0].partitions[0].error_code);
        if (cases[i].err != GR_KERR_NONE)
            ck_assert_int_eq(rs->topics[0].partitions[0].offset, -1);
    }
    /* v11 -6: no tiered storage, -1 (leader epoch -1) */
    lp.partition_index = 0;
    lp.timestamp = -6;
    rs = gr_brokertest_call(&bt, GR_API_LIST_OFFSETS, 11, &rq);
    ck_assert_int_eq(rs->topics[0].partitions[0].offset, -1);
    ck_assert_int_eq(rs->topics[0].partitions[0].leader_epoch, -1);
    /* isolation level 2 */
    lp.timestamp = -1;
    rq.isolation_level = 2;
    rs = gr_brokertest_call(&bt, GR_API_LIST_OFFSETS, 5, &rq);
    ck_assert_int_eq(rs->topics[0].partitions[0].error_code,
                     GR_KERR_UNKNOWN_SERVER_ERROR);
    ck_assert_int_eq(rs->topics[0].partitions[0].offset, -1);
    ck_assert_int_eq(rs->topics[0].partitions[0].timestamp, -1);
    ck_assert_int_eq(rs->topics[0].partitions[0].leader_epoch, -1);
    rq.isolation_level = 1;
    rs = gr_brokertest_call(&bt, GR_API_LIST_OFFSETS, 5, &rq);
    ck_assert_int_eq(rs->topics[0].partitions[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->topics[0].partitions[0].offset, 0);
    gr_brokertest_stop(&bt);
}
END_TEST

/* More than 10,000 partitions in one request (Kafka's controller's
 * MAX_PARTITIONS_PER_BATCH, counted as it counts: num_partitions, the
 * default for -1, or the assignments) is POLICY_VIOLATION for every topic
 * of the request, and nothing is made; CreatePartitions likewise. (A
 * fuzzed CreateTopics of 2^24 partitions held the event loop for ever.) */
START_TEST(test_partitions_per_request_cap)
{
    static const char *const ov[] = { "num.partitions=4001", NULL };
    gr_brokertest_t bt;
    gr_create_topics_response_t *rs;
    gr_create_partitions_request_t prq;
    gr_create_partitions_request_create_partitions_topic_t pt;
    gr_create_partitions_response_t *prs;
    ctopic_t t[3];

    gr_brokertest_start(&bt, ov);
    t[0] = ctopic("big", 6000, 1);
    t[1] = ctopic("dflt", -1, -1); /* 4001 by num.partitions */
    t[2] = ctopic("small", 1, 1);
    rs = create(&bt, 7, t, 3, false);
    ck_assert_int_eq(rs->topics_cnt, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(rs->topics[i].error_code, GR_KERR_POLICY_VIOLATION);
        ck_assert(gr_str_eq_cstr(
            &rs->topics[i].error_message,
            "Excessively large number of partitions per request."));
    }
    ck_assert_int_eq(bt.b->cluster->ntopics, 0);
    /* a repeated name does not count, but is refused with the rest when
     * the others pass the cap (the request's error answer) */
    {
        ctopic_t three[3] = { ctopic("twice", 6000, 1),
                              ctopic("twice", 6000, 1), ctopic("one", 1, 1) };
        ctopic_t four[4] = { ctopic("a", 6000, 1), ctopic("a", 1, 1),
                             ctopic("b", 5000, 1), ctopic("c", 5001, 1) };
        rs = create(&bt, 7, three, 3, false);
        ck_assert_int_eq(rs->topics_cnt, 2);
        ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
        ck_assert_int_eq(rs->topics[1].error_code, GR_KERR_INVALID_REQUEST);
        rs = create(&bt, 7, four, 4, false);
        ck_assert_int_eq(rs->topics_cnt, 4);
        for (int i = 0; i < 4; i++)
            ck_assert_int_eq(rs->topics[i].error_code,
                             GR_KERR_POLICY_VIOLATION);
        ck_assert_int_eq(bt.b->cluster->ntopics, 1);
    }
    t[0] = ctopic("huge", 16777216, 1);
    rs = create(&bt, 4, t, 1, false);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_POLICY_VIOLATION);
    /* alone, small is made */
    rs = create(&bt, 7, &t[2], 1, false);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(bt.b->cluster->ntopics, 2);

    gr_arena_reset(bt.a);
    gr_create_partitions_request_init(&prq);
    gr_create_partitions_request_create_partitions_topic_init(&pt);
    pt.name = gr_str_c("small");
    pt.count = 10002;
    pt.assignments_cnt = -1;
    prq.topics = &pt;
    prq.topics_cnt = 1;
    prq.timeout_ms = 1000;
    prs = gr_brokertest_call(&bt, GR_API_CREATE_PARTITIONS, 3, &prq);
    ck_assert_int_eq(prs->results[0].error_code, GR_KERR_POLICY_VIOLATION);
    ck_assert(gr_str_eq_cstr(&prs->results[0].error_message,
                             "Excessively large number of additional "
                             "partitions per request."));
    ck_assert_int_eq(gr_cluster_topic_cstr(bt.b->cluster, "small")->nparts, 1);
    /* listed twice: not counted, but every entry is refused with the rest */
    {
        gr_create_partitions_request_create_partitions_topic_t two[2] = { pt,
                                                                         pt };
        two[0].count = 2;
        two[1].count = 2;
        prq.topics = two;
        prq.topics_cnt = 2;
        prs = gr_brokertest_call(&bt, GR_API_CREATE_PARTITIONS, 3, &prq);
        ck_assert_int_eq(prs->results_cnt, 1);
        ck_assert_int_eq(prs->results[0].error_code, GR_KERR_INVALID_REQUEST);
        prq.topics = &pt;
        prq.topics_cnt = 1;
    }
    pt.count = 3;
    prs = gr_brokertest_call(&bt, GR_API_CREATE_PARTITIONS, 3, &prq);
    ck_assert_int_eq(prs->results[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(gr_cluster_topic_cstr(bt.b->cluster, "small")->nparts, 3);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Metadata's auto-creation stops at the same cap: a topic that would pass
 * it is LEADER_NOT_AVAILABLE (retriable) and not made. */
/* Metadata by topic id, as Kafka's handleTopicMetadataRequest: from v12
 * any entry with an id makes the request one by id (a name beside it
 * does not count: the Java client sends ""), each distinct id once, an
 * unknown one UNKNOWN_TOPIC_ID with a null name, entries without an id
 * left out; before v12 an id is INVALID_REQUEST for the whole request. */
START_TEST(test_metadata_by_id)
{
    gr_brokertest_t bt;
    ctopic_t t[2] = { ctopic("m1", 2, 1), ctopic("m2", 1, 1) };
    gr_create_topics_response_t *crs;
    gr_uuid_t id1, unknown = { { 9, 9, 9 } };
    gr_metadata_request_t rq;
    gr_metadata_request_topic_t qt[4];
    gr_metadata_response_t *rs;

    gr_brokertest_start(&bt, NULL);
    crs = create(&bt, 7, t, 2, false);
    id1 = crs->topics[0].topic_id;
    ck_assert(!gr_uuid_is_zero(&id1));
    gr_metadata_request_init(&rq);
    for (int i = 0; i < 4; i++)
        gr_metadata_request_topic_init(&qt[i]);
    qt[0].name = gr_str_c(""); /* the Java client's name beside an id */
    qt[0].topic_id = id1;
    qt[1].name = GR_STR_NULL;
    qt[1].topic_id = unknown;
    qt[2].name = gr_str_c("m2"); /* no id: left out */
    qt[3].name = GR_STR_NULL;
    qt[3].topic_id = id1; /* again */
    rq.topics = qt;
    rq.topics_cnt = 4;
    rq.allow_auto_topic_creation = true;
    rs = gr_brokertest_call(&bt, GR_API_METADATA, 12, &rq);
    ck_assert_int_eq(rs->topics_cnt, 2);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
    ck_assert(gr_str_eq_cstr(&rs->topics[0].name, "m1"));
    ck_assert(gr_uuid_eq(&rs->topics[0].topic_id, &id1));
    ck_assert_int_eq(rs->topics[0].partitions_cnt, 2);
    ck_assert_int_eq(rs->topics[1].error_code, GR_KERR_UNKNOWN_TOPIC_ID);
    ck_assert_int_eq(rs->topics[1].name.len, -1);
    ck_assert(gr_uuid_eq(&rs->topics[1].topic_id, &unknown));
    ck_assert_int_eq(rs->brokers_cnt, 1);
    /* v10: ids are not served */
    rq.topics_cnt = 3;
    rs = gr_brokertest_call(&bt, GR_API_METADATA, 10, &rq);
    ck_assert_int_eq(rs->topics_cnt, 3);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(rs->topics[i].error_code, GR_KERR_INVALID_REQUEST);
    ck_assert(gr_str_eq_cstr(&rs->topics[1].name, ""));
    ck_assert(gr_str_eq_cstr(&rs->topics[2].name, "m2"));
    ck_assert_int_eq(rs->brokers_cnt, 0);
    ck_assert_int_eq(bt.b->cluster->ntopics, 2); /* nothing auto-created */
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_auto_create_cap)
{
    static const char *const ov[] = { "num.partitions=10001", NULL };
    gr_brokertest_t bt;
    gr_metadata_request_t rq;
    gr_metadata_request_topic_t qt;
    gr_metadata_response_t *rs;

    gr_brokertest_start(&bt, ov);
    gr_metadata_request_init(&rq);
    gr_metadata_request_topic_init(&qt);
    qt.name = gr_str_c("auto");
    rq.topics = &qt;
    rq.topics_cnt = 1;
    rq.allow_auto_topic_creation = true;
    rs = gr_brokertest_call(&bt, GR_API_METADATA, 9, &rq);
    ck_assert_int_eq(rs->topics_cnt, 1);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_LEADER_NOT_AVAILABLE);
    ck_assert_int_eq(bt.b->cluster->ntopics, 0);
    gr_brokertest_stop(&bt);
}
END_TEST

/* An auto-created topic is answered once it is stored: the first answer
 * already shows its partitions led, and by then its metadata file is on
 * disk (a crash after a record was acknowledged cannot lose the topic). */
START_TEST(test_auto_create_stored_first)
{
    static const char *const ov[] = { "num.partitions=2", NULL };
    gr_brokertest_t bt;
    gr_metadata_request_t rq;
    gr_metadata_request_topic_t qt[2];
    gr_metadata_response_t *rs;
    char path[256];

    gr_brokertest_start(&bt, ov);
    gr_metadata_request_init(&rq);
    gr_metadata_request_topic_init(&qt[0]);
    gr_metadata_request_topic_init(&qt[1]);
    qt[0].name = gr_str_c("fresh");
    qt[1].name = gr_str_c("bad name");
    rq.topics = qt;
    rq.topics_cnt = 2;
    rq.allow_auto_topic_creation = true;
    rs = gr_brokertest_call(&bt, GR_API_METADATA, 9, &rq);
    snprintf(path, sizeof path, "%s/data/gregor-topics/fresh", bt.dir);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_eq(rs->topics_cnt, 2);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->topics[0].partitions_cnt, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(rs->topics[0].partitions[i].error_code, GR_KERR_NONE);
        ck_assert_int_eq(rs->topics[0].partitions[i].leader_id, 1);
    }
    ck_assert_int_eq(rs->topics[1].error_code, GR_KERR_INVALID_TOPIC_EXCEPTION);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Likewise the internal topic FindCoordinator makes on first use: the
 * first answer names the coordinator, and its topic file is on disk. */
START_TEST(test_coordinator_topic_stored_first)
{
    static const char *const ov[] = { "offsets.topic.num.partitions=3", NULL };
    gr_brokertest_t bt;
    gr_find_coordinator_request_t rq;
    gr_find_coordinator_response_t *rs;
    char path[256];

    gr_brokertest_start(&bt, ov);
    gr_find_coordinator_request_init(&rq);
    rq.key = gr_str_c("group-a");
    rq.key_type = 0;
    rs = gr_brokertest_call(&bt, GR_API_FIND_COORDINATOR, 3, &rq);
    snprintf(path, sizeof path, "%s/data/gregor-topics/__consumer_offsets",
             bt.dir);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_eq(rs->error_code, GR_KERR_NONE);
    ck_assert_int_eq(rs->node_id, 1);
    ck_assert_int_gt(rs->port, 0);
    gr_brokertest_stop(&bt);
}
END_TEST

/* And those InitProducerId and AddOffsetsToTxn make for a client that
 * skipped FindCoordinator: the first answer gives the producer its id (and
 * adds the group's partition), with the topic file already on disk. */
START_TEST(test_txn_topics_stored_first)
{
    static const char *const ov[] = { "transaction.state.log.num.partitions=2",
                                      "offsets.topic.num.partitions=2", NULL };
    gr_brokertest_t bt;
    gr_init_producer_id_request_t ip;
    gr_init_producer_id_response_t *ipr;
    gr_add_offsets_to_txn_request_t ao;
    gr_add_offsets_to_txn_response_t *aor;
    char txn_path[256], off_path[256];

    gr_brokertest_start(&bt, ov);
    snprintf(txn_path, sizeof txn_path,
             "%s/data/gregor-topics/__transaction_state", bt.dir);
    snprintf(off_path, sizeof off_path,
             "%s/data/gregor-topics/__consumer_offsets", bt.dir);
    gr_init_producer_id_request_init(&ip);
    ip.transactional_id = gr_str_c("tx-a");
    ip.transaction_timeout_ms = 60000;
    ipr = gr_brokertest_call(&bt, GR_API_INIT_PRODUCER_ID, 1, &ip);
    ck_assert_int_eq(access(txn_path, F_OK), 0);
    ck_assert_int_eq(ipr->error_code, GR_KERR_NONE);
    ck_assert_int_ge(ipr->producer_id, 0);
    ck_assert_int_eq(ipr->producer_epoch, 0);
    ck_assert_int_ne(access(off_path, F_OK), 0);
    /* the topic exists now: answered at once, the epoch bumped once */
    ipr = gr_brokertest_call(&bt, GR_API_INIT_PRODUCER_ID, 1, &ip);
    ck_assert_int_eq(ipr->error_code, GR_KERR_NONE);
    ck_assert_int_eq(ipr->producer_epoch, 1);

    gr_add_offsets_to_txn_request_init(&ao);
    ao.transactional_id = gr_str_c("tx-a");
    ao.producer_id = ipr->producer_id;
    ao.producer_epoch = ipr->producer_epoch;
    ao.group_id = gr_str_c("group-a");
    aor = gr_brokertest_call(&bt, GR_API_ADD_OFFSETS_TO_TXN, 1, &ao);
    ck_assert_int_eq(access(off_path, F_OK), 0);
    ck_assert_int_eq(aor->error_code, GR_KERR_NONE);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Whether path is gone within about 10 s (removed by a worker). */
static bool
gone_soon(const char *path)
{
    for (int i = 0; i < 1000; i++) {
        if (access(path, F_OK) != 0)
            return true;
        usleep(10000);
    }
    return false;
}

static gr_delete_topics_response_t *delete_names(gr_brokertest_t *bt,
                                                 int16_t ver, const char *name);

/* Writes the record DeleteTopics leaves while a topic's directories go
 * (old: named as Gregor named them until 2026-12, .deleted-<id>). */
static void
write_record(const gr_brokertest_t *bt, const char *topic, const gr_uuid_t *id,
             int nparts, bool old)
{
    char path[256], b64[23];
    FILE *f;
    gr_uuid_to_base64(id, b64);
    snprintf(path, sizeof path, "%s/data/gregor-topics/%s%s", bt->dir,
             old ? ".deleted-" : "deleted~", b64);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "topic=%s\ntopic.id=%s\npartitions=%d\n", topic, b64, nparts);
    ck_assert_int_eq(fclose(f), 0);
}

/* How many deletion records gregor-topics holds. */
static int
records(const gr_brokertest_t *bt)
{
    char path[256];
    struct dirent *de;
    DIR *d;
    int n = 0;
    snprintf(path, sizeof path, "%s/data/gregor-topics", bt->dir);
    d = opendir(path);
    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d)) != NULL)
        n += strncmp(de->d_name, "deleted~", 8) == 0 ||
             strncmp(de->d_name, ".deleted-", 9) == 0;
    closedir(d);
    return n;
}

/* Whether gregor-topics holds no deletion record within about 10 s. */
static bool
records_gone_soon(const gr_brokertest_t *bt)
{
    for (int i = 0; i < 1000; i++) {
        if (records(bt) == 0)
            return true;
        usleep(10000);
    }
    return false;
}

/* A deletion a crash cut short (its record written and the topic file
 * gone, the directories not yet renamed aside) is finished at the next
 * start, as Kafka's controller resumes one; a record whose topic file is
 * still there (the crash came first: no answer was sent) leaves the topic;
 * directories no record names stay. DeleteTopics leaves no record behind. */
START_TEST(test_deletion_finished_at_start)
{
    gr_brokertest_t bt;
    gr_create_topics_response_t *cr;
    gr_uuid_t gone_id, back_id;
    char path[256], path1[256], back[256], kept[256], other[256];
    ctopic_t t[3] = { ctopic("gone", 2, 1), ctopic("back", 1, 1),
                      ctopic("kept", 1, 1) };

    gr_brokertest_start(&bt, NULL);
    cr = create(&bt, 7, t, 3, false);
    gone_id = cr->topics[0].topic_id;
    back_id = cr->topics[1].topic_id;
    gr_brokertest_halt(&bt);
    snprintf(path, sizeof path, "%s/data/gregor-topics/gone", bt.dir);
    ck_assert_int_eq(unlink(path), 0);
    write_record(&bt, "gone", &gone_id, 2, true); /* an older Gregor's */
    write_record(&bt, "back", &back_id, 1, false);
    /* a directory of a topic no record names (its metadata lost) */
    snprintf(other, sizeof other, "%s/data/other-0", bt.dir);
    ck_assert_int_eq(mkdir(other, 0755), 0);
    gr_brokertest_launch(&bt, NULL);
    snprintf(path, sizeof path, "%s/data/gone-0", bt.dir);
    snprintf(path1, sizeof path1, "%s/data/gone-1", bt.dir);
    ck_assert(gone_soon(path));
    ck_assert(gone_soon(path1));
    ck_assert(records_gone_soon(&bt));
    snprintf(back, sizeof back, "%s/data/back-0", bt.dir);
    snprintf(kept, sizeof kept, "%s/data/kept-0", bt.dir);
    ck_assert_int_eq(access(back, F_OK), 0);
    ck_assert_int_eq(access(kept, F_OK), 0);
    ck_assert_int_eq(access(other, F_OK), 0);

    /* DeleteTopics: the record is there while the directory goes, and
     * gone with it */
    (void)delete_names(&bt, 1, "kept");
    ck_assert(gone_soon(kept));
    ck_assert(records_gone_soon(&bt));
    gr_brokertest_halt(&bt);
    gr_brokertest_launch(&bt, NULL);
    ck_assert_int_eq(access(back, F_OK), 0);
    gr_brokertest_stop(&bt);
}
END_TEST

/* Names Kafka accepts that start with a dot, one of them spelt like an
 * older Gregor's deletion record, are topics after a restart too: the
 * loader skipped dot files, and took .deleted-<22 characters> for a
 * damaged record and removed it. Deleted, such a topic is gone at the
 * next start and the others stay. */
START_TEST(test_dot_names_kept)
{
    static const char *const names[] = { ".hidden", "..x", "...",
                                         ".deleted-AAAAAAAAAAAAAAAAAAAAAA" };
    gr_brokertest_t bt;
    gr_create_topics_response_t *cr;
    gr_delete_topics_response_t *rs;
    ctopic_t t[4];

    for (int i = 0; i < 4; i++)
        t[i] = ctopic(names[i], 2, 1);
    gr_brokertest_start(&bt, NULL);
    cr = create(&bt, 7, t, 4, false);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(cr->topics[i].error_code, GR_KERR_NONE);
    gr_brokertest_restart(&bt, NULL);
    for (int i = 0; i < 4; i++) {
        gr_topic_t *tp = gr_cluster_topic_cstr(bt.b->cluster, names[i]);
        ck_assert_msg(tp != NULL, "%s lost at the restart", names[i]);
        ck_assert_int_eq(tp->nparts, 2);
    }
    rs = delete_names(&bt, 5, names[3]);
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_NONE);
    ck_assert(records_gone_soon(&bt));
    gr_brokertest_restart(&bt, NULL);
    ck_assert_ptr_null(gr_cluster_topic_cstr(bt.b->cluster, names[3]));
    for (int i = 0; i < 3; i++)
        ck_assert_ptr_nonnull(gr_cluster_topic_cstr(bt.b->cluster, names[i]));
    gr_brokertest_stop(&bt);
}
END_TEST

static gr_delete_topics_response_t *
delete_names(gr_brokertest_t *bt, int16_t ver, const char *name)
{
    gr_delete_topics_request_t rq;
    gr_str_t n = gr_str_c(name);
    gr_delete_topics_request_init(&rq);
    rq.topic_names = &n;
    rq.topic_names_cnt = 1;
    return gr_brokertest_call(bt, GR_API_DELETE_TOPICS, ver, &rq);
}

/* A deletion whose record cannot be written is refused (the topic file
 * stays, so the topic is back at the next start) and its directories
 * stay too: before, they were renamed aside and removed anyway, and the
 * topic came back empty. */
START_TEST(test_deletion_not_stored)
{
    gr_brokertest_t bt;
    gr_delete_topics_response_t *rs;
    gr_topic_t *t;
    char dir[256], seg[300];
    ctopic_t ct[1] = { ctopic("held", 2, 1) };

    gr_brokertest_start(&bt, NULL);
    (void)create(&bt, 7, ct, 1, false);
    ck_assert_int_eq(gr_fault_arm_spec("topic.store@/deleted~:1"), 0);
    rs = delete_names(&bt, 5, "held");
    gr_fault_clear();
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_KAFKA_STORAGE_ERROR);
    ck_assert_int_eq(records(&bt), 0);
    usleep(300000); /* the renames would have run by now */
    for (int p = 0; p < 2; p++) {
        snprintf(dir, sizeof dir, "%s/data/held-%d", bt.dir, p);
        snprintf(seg, sizeof seg, "%s/00000000000000000000.log", dir);
        ck_assert_int_eq(access(seg, F_OK), 0);
    }
    gr_brokertest_restart(&bt, NULL);
    t = gr_cluster_topic_cstr(bt.b->cluster, "held");
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->nparts, 2);
    ck_assert_int_eq(access(seg, F_OK), 0);
    /* and it can still be deleted */
    rs = delete_names(&bt, 5, "held");
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_NONE);
    ck_assert(gone_soon(dir));
    gr_brokertest_stop(&bt);
}
END_TEST

/* The DeleteTopics answer for name, or (name NULL) for the one by id:
 * Kafka shuffles its answers, so they are found, not counted on. */
static const gr_delete_topics_response_deletable_topic_result_t *
dresult(const gr_delete_topics_response_t *rs, const char *name,
        const gr_uuid_t *id)
{
    for (int32_t i = 0; i < rs->responses_cnt; i++) {
        const gr_delete_topics_response_deletable_topic_result_t *r =
            &rs->responses[i];
        if (name ? gr_str_eq_cstr(&r->name, name)
                 : r->name.len < 0 && gr_uuid_eq(&r->topic_id, id))
            return r;
    }
    ck_abort_msg("no DeleteTopics answer for %s", name ? name : "the id");
    return NULL;
}

START_TEST(test_delete_topics)
{
    static const char *const disabled[] = { "delete.topic.enable=false", NULL };
    gr_brokertest_t bt;
    gr_delete_topics_request_t rq;
    gr_delete_topics_request_delete_topic_state_t st[2];
    gr_delete_topics_response_t *rs;
    gr_create_topics_response_t *cr;
    gr_uuid_t id;
    char path[256];
    ctopic_t t[2] = { ctopic("a", 2, 1), ctopic("b", 1, 1) };

    gr_brokertest_start(&bt, NULL);
    cr = create(&bt, 7, t, 2, false);
    id = cr->topics[0].topic_id;
    ck_assert(!gr_uuid_is_zero(&id));
    /* v6 by id: the name comes back; the directory goes */
    gr_delete_topics_request_init(&rq);
    gr_delete_topics_request_delete_topic_state_init(&st[0]);
    st[0].topic_id = id;
    gr_delete_topics_request_delete_topic_state_init(&st[1]);
    st[1].name = gr_str_c("b");
    memset(&st[1].topic_id, 0x5a, sizeof st[1].topic_id); /* both given */
    rq.topics = st;
    rq.topics_cnt = 2;
    rs = gr_brokertest_call(&bt, GR_API_DELETE_TOPICS, 6, &rq);
    ck_assert_int_eq(rs->responses_cnt, 2);
    ck_assert_int_eq(dresult(rs, "a", NULL)->error_code, GR_KERR_NONE);
    ck_assert(gr_uuid_eq(&dresult(rs, "a", NULL)->topic_id, &id));
    ck_assert_int_eq(dresult(rs, "b", NULL)->error_code,
                     GR_KERR_INVALID_REQUEST);
    /* renamed aside once the deletion is stored, then removed */
    snprintf(path, sizeof path, "%s/data/a-0", bt.dir);
    ck_assert(gone_soon(path));
    /* unknown: the errors' default messages, as Kafka's ApiError(error) */
    rs = gr_brokertest_call(&bt, GR_API_DELETE_TOPICS, 6, &rq);
    ck_assert_int_eq(dresult(rs, NULL, &id)->error_code,
                     GR_KERR_UNKNOWN_TOPIC_ID);
    ck_assert(gr_str_eq_cstr(&dresult(rs, NULL, &id)->error_message,
                             "This server does not host this topic ID."));
    rs = delete_names(&bt, 5, "a");
    ck_assert_int_eq(rs->responses[0].error_code,
                     GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
    ck_assert(gr_str_eq_cstr(&rs->responses[0].error_message,
                             "This server does not host this "
                             "topic-partition."));
    /* internal topics stay (a deliberate difference: Kafka deletes them;
     * docs/compatibility.md) */
    gr_brokertest_coordinator(&bt, "g", 0);
    rs = delete_names(&bt, 5, "__consumer_offsets");
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_INVALID_REQUEST);
    ck_assert(gr_str_eq_cstr(&rs->responses[0].error_message,
                             "Internal topics (__consumer_offsets, "
                             "__transaction_state) cannot be deleted."));
    ck_assert_ptr_nonnull(
        gr_cluster_topic_cstr(bt.b->cluster, "__consumer_offsets"));
    /* deletion disabled: v2 has no TOPIC_DELETION_DISABLED; no message,
     * as the request's error answer of Kafka's */
    gr_brokertest_restart(&bt, disabled);
    rs = delete_names(&bt, 2, "b");
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_INVALID_REQUEST);
    rs = delete_names(&bt, 5, "b");
    ck_assert_int_eq(rs->responses[0].error_code,
                     GR_KERR_TOPIC_DELETION_DISABLED);
    ck_assert_int_eq(rs->responses[0].error_message.len, -1);
    ck_assert_ptr_nonnull(gr_cluster_topic_cstr(bt.b->cluster, "b"));
    gr_brokertest_stop(&bt);
}
END_TEST

/* Repeated names and ids, as Kafka's ControllerApis answers them: a name
 * (or id) listed more than once is answered once, INVALID_REQUEST, and
 * the other entries go on, also in requests of many entries (found by
 * sorting: comparing each entry with every other held the loop for n^2
 * compares). */
START_TEST(test_duplicates_in_requests)
{
    enum { N = 20000 };
    gr_brokertest_t bt;
    ctopic_t *t;
    gr_create_topics_response_t *cr;
    gr_create_partitions_request_t prq;
    gr_create_partitions_request_create_partitions_topic_t pt[3];
    gr_create_partitions_response_t *prs;
    gr_delete_topics_request_t drq;
    gr_delete_topics_request_delete_topic_state_t st[6];
    gr_delete_topics_response_t *drs;
    gr_uuid_t id_x, id_y, unknown;
    char name[32];

    gr_brokertest_start(&bt, NULL);
    /* N entries: the first N - 2 name (N - 2) / 2 topics twice each, far
     * apart; the last two are alone. The two are made; each repeated
     * name has one answer, after theirs, in the order first listed */
    t = calloc(N, sizeof(*t));
    ck_assert_ptr_nonnull(t);
    for (int i = 0; i < N; i++) {
        if (i < N - 2)
            snprintf(name, sizeof name, "dup-%d", i % ((N - 2) / 2));
        else
            snprintf(name, sizeof name, "solo-%d", i);
        t[i] = ctopic(gr_arena_strndup(bt.a, name, strlen(name)), 1, 1);
    }
    cr = create(&bt, 7, t, N, false);
    ck_assert_int_eq(cr->topics_cnt, 2 + (N - 2) / 2);
    ck_assert_int_eq(cr->topics[0].error_code, GR_KERR_NONE);
    ck_assert(gr_str_eq_cstr(&cr->topics[0].name, "solo-19998"));
    ck_assert_int_eq(cr->topics[1].error_code, GR_KERR_NONE);
    for (int i = 2; i < cr->topics_cnt; i++) {
        snprintf(name, sizeof name, "dup-%d", i - 2);
        ck_assert(gr_str_eq_cstr(&cr->topics[i].name, name));
        ck_assert_int_eq(cr->topics[i].error_code, GR_KERR_INVALID_REQUEST);
        ck_assert(gr_str_eq_cstr(&cr->topics[i].error_message,
                                 "Duplicate topic name."));
    }
    ck_assert_int_eq(bt.b->cluster->ntopics, 2);
    free(t);

    /* x and y made; CreatePartitions names x twice: one answer for x,
     * ahead of y's; y grows */
    gr_arena_reset(bt.a);
    {
        ctopic_t two[2] = { ctopic("x", 1, 1), ctopic("y", 1, 1) };
        cr = create(&bt, 7, two, 2, false);
        ck_assert_int_eq(cr->topics[0].error_code, GR_KERR_NONE);
        ck_assert_int_eq(cr->topics[1].error_code, GR_KERR_NONE);
        id_x = cr->topics[0].topic_id;
        id_y = cr->topics[1].topic_id;
    }
    gr_create_partitions_request_init(&prq);
    for (int i = 0; i < 3; i++) {
        gr_create_partitions_request_create_partitions_topic_init(&pt[i]);
        pt[i].name = gr_str_c(i == 1 ? "y" : "x");
        pt[i].count = 2;
        pt[i].assignments_cnt = -1;
    }
    prq.topics = pt;
    prq.topics_cnt = 3;
    prq.timeout_ms = 1000;
    prs = gr_brokertest_call(&bt, GR_API_CREATE_PARTITIONS, 3, &prq);
    ck_assert_int_eq(prs->results_cnt, 2);
    ck_assert(gr_str_eq_cstr(&prs->results[0].name, "x"));
    ck_assert_int_eq(prs->results[0].error_code, GR_KERR_INVALID_REQUEST);
    ck_assert(gr_str_eq_cstr(&prs->results[0].error_message,
                             "Duplicate topic name."));
    ck_assert(gr_str_eq_cstr(&prs->results[1].name, "y"));
    ck_assert_int_eq(prs->results[1].error_code, GR_KERR_NONE);
    ck_assert_int_eq(gr_cluster_topic_cstr(bt.b->cluster, "x")->nparts, 1);
    ck_assert_int_eq(gr_cluster_topic_cstr(bt.b->cluster, "y")->nparts, 2);

    /* DeleteTopics v6: x's id twice, y's name twice, an unknown id, and
     * the name "x": one answer each for the repeated id and name, and x's
     * name maps to an id the request gave, so x stays too */
    gr_delete_topics_request_init(&drq);
    for (int i = 0; i < 6; i++)
        gr_delete_topics_request_delete_topic_state_init(&st[i]);
    memset(&unknown, 0x33, sizeof unknown);
    st[0].topic_id = id_x;
    st[1].name = gr_str_c("y");
    st[2].topic_id = id_x;
    st[3].name = gr_str_c("y");
    st[4].topic_id = unknown;
    st[5].name = gr_str_c("x");
    drq.topics = st;
    drq.topics_cnt = 6;
    drs = gr_brokertest_call(&bt, GR_API_DELETE_TOPICS, 6, &drq);
    ck_assert_int_eq(drs->responses_cnt, 4);
    ck_assert_int_eq(dresult(drs, NULL, &id_x)->error_code,
                     GR_KERR_INVALID_REQUEST);
    ck_assert(gr_str_eq_cstr(&dresult(drs, NULL, &id_x)->error_message,
                             "Duplicate topic id."));
    ck_assert_int_eq(dresult(drs, "y", NULL)->error_code,
                     GR_KERR_INVALID_REQUEST);
    ck_assert(gr_str_eq_cstr(&dresult(drs, "y", NULL)->error_message,
                             "Duplicate topic name."));
    ck_assert_int_eq(dresult(drs, NULL, &unknown)->error_code,
                     GR_KERR_UNKNOWN_TOPIC_ID);
    ck_assert_int_eq(dresult(drs, "x", NULL)->error_code,
                     GR_KERR_INVALID_REQUEST);
    ck_assert(gr_uuid_eq(&dresult(drs, "x", NULL)->topic_id, &id_x));
    ck_assert(gr_str_eq_cstr(&dresult(drs, "x", NULL)->error_message,
                             "The provided topic name maps to an ID that "
                             "was already supplied."));
    ck_assert_ptr_nonnull(gr_cluster_topic_cstr(bt.b->cluster, "x"));
    ck_assert_ptr_nonnull(gr_cluster_topic_cstr(bt.b->cluster, "y"));
    /* y by id and by name: one answer (the name's), y stays; then x by
     * name alone goes */
    st[0].topic_id = id_y;
    st[1].name = gr_str_c("y");
    drq.topics_cnt = 2;
    drs = gr_brokertest_call(&bt, GR_API_DELETE_TOPICS, 6, &drq);
    ck_assert_int_eq(drs->responses_cnt, 1);
    ck_assert_int_eq(dresult(drs, "y", NULL)->error_code,
                     GR_KERR_INVALID_REQUEST);
    ck_assert_ptr_nonnull(gr_cluster_topic_cstr(bt.b->cluster, "y"));
    drq.topics = &st[5];
    drq.topics_cnt = 1;
    drs = gr_brokertest_call(&bt, GR_API_DELETE_TOPICS, 6, &drq);
    ck_assert_int_eq(dresult(drs, "x", NULL)->error_code, GR_KERR_NONE);
    ck_assert_ptr_null(gr_cluster_topic_cstr(bt.b->cluster, "x"));
    gr_brokertest_stop(&bt);
}
END_TEST

/* The other places a request may repeat itself: replica assignments
 * (listed in any order, each partition once: Kafka names the first entry
 * that repeats one), ListOffsets (as Kafka's ReplicaManager.fetchOffset
 * keys its answers: a topic in two entries is answered once, a partition
 * listed twice once, INVALID_REQUEST) and config keys. */
START_TEST(test_repeats_in_entries)
{
    gr_brokertest_t bt;
    gr_create_topics_request_creatable_replica_assignment_t asg[3];
    gr_create_topics_response_t *cr;
    gr_list_offsets_request_t lrq;
    gr_list_offsets_request_list_offsets_topic_t lt[2];
    gr_list_offsets_request_list_offsets_partition_t lp[5];
    gr_list_offsets_response_t *lrs;
    gr_incremental_alter_configs_request_t arq;
    gr_incremental_alter_configs_request_alter_configs_resource_t ar;
    gr_incremental_alter_configs_request_alterable_config_t ac[3];
    gr_incremental_alter_configs_response_t *ars;
    int32_t one = 1;
    ctopic_t t[3];

    gr_brokertest_start(&bt, NULL);
    for (int i = 0; i < 3; i++) {
        asg[i].broker_ids = &one;
        asg[i].broker_ids_cnt = 1;
    }
    /* 1, 0, 2: made with 3 partitions; 0, 0: partition 1 is missing;
     * 0, 2: so is 1 */
    asg[0].partition_index = 1;
    asg[1].partition_index = 0;
    asg[2].partition_index = 2;
    t[0] = ctopic_asg("asg-any-order", asg, 3);
    t[1] = ctopic_asg("asg-one", &asg[1], 1);
    cr = create(&bt, 5, t, 2, false);
    ck_assert_int_eq(cr->topics[0].error_code, GR_KERR_NONE);
    ck_assert_int_eq(cr->topics[0].num_partitions, 3);
    ck_assert_int_eq(cr->topics[1].error_code, GR_KERR_NONE);
    asg[0].partition_index = 0;
    t[0] = ctopic_asg("asg-dup", asg, 2);
    t[1] = ctopic_asg("asg-gap", &asg[1], 2);
    cr = create(&bt, 5, t, 2, false);
    ck_assert_int_eq(cr->topics[0].error_code,
                     GR_KERR_INVALID_REPLICA_ASSIGNMENT);
    ck_assert(gr_str_eq_cstr(&cr->topics[0].error_message,
                             "Found multiple manual partition assignments "
                             "for partition 0"));
    ck_assert_int_eq(cr->topics[1].error_code,
                     GR_KERR_INVALID_REPLICA_ASSIGNMENT);
    ck_assert(gr_str_eq_cstr(&cr->topics[1].error_message,
                             "partitions should be a consecutive 0-based "
                             "integer sequence"));

    /* ListOffsets v1: asg-any-order [0, 1, 0] and again [1, 2]: one topic,
     * 0 and 1 refused once each, 2 answered */
    gr_list_offsets_request_init(&lrq);
    for (int i = 0; i < 2; i++) {
        gr_list_offsets_request_list_offsets_topic_init(&lt[i]);
        lt[i].name = gr_str_c("asg-any-order");
    }
    for (int i = 0; i < 5; i++) {
        static const int32_t idx[5] = { 0, 1, 0, 1, 2 };
        gr_list_offsets_request_list_offsets_partition_init(&lp[i]);
        lp[i].partition_index = idx[i];
        lp[i].timestamp = -1;
    }
    lt[0].partitions = lp;
    lt[0].partitions_cnt = 3;
    lt[1].partitions = &lp[3];
    lt[1].partitions_cnt = 2;
    lrq.replica_id = -1;
    lrq.topics = lt;
    lrq.topics_cnt = 2;
    lrs = gr_brokertest_call(&bt, GR_API_LIST_OFFSETS, 4, &lrq);
    ck_assert_int_eq(lrs->topics_cnt, 1);
    ck_assert_int_eq(lrs->topics[0].partitions_cnt, 3);
    for (int k = 0; k < 2; k++) {
        const gr_list_offsets_response_list_offsets_partition_response_t *p =
            &lrs->topics[0].partitions[k];
        ck_assert_int_eq(p->partition_index, k);
        ck_assert_int_eq(p->error_code, GR_KERR_INVALID_REQUEST);
        ck_assert_int_eq(p->offset, -1);
        ck_assert_int_eq(p->leader_epoch, -1);
    }
    ck_assert_int_eq(lrs->topics[0].partitions[2].partition_index, 2);
    ck_assert_int_eq(lrs->topics[0].partitions[2].error_code, GR_KERR_NONE);
    ck_assert_int_eq(lrs->topics[0].partitions[2].offset, 0);
    ck_assert_int_eq(lrs->topics[0].partitions[2].leader_epoch, 0);

    /* IncrementalAlterConfigs: a key twice refuses the resource */
    gr_incremental_alter_configs_request_init(&arq);
    gr_incremental_alter_configs_request_alter_configs_resource_init(&ar);
    for (int i = 0; i < 3; i++) {
        gr_incremental_alter_configs_request_alterable_config_init(&ac[i]);
        ac[i].config_operation = 0;
    }
    ac[0].name = gr_str_c("retention.ms");
    ac[0].value = gr_str_c("1000");
    ac[1].name = gr_str_c("segment.ms");
    ac[1].value = gr_str_c("60000");
    ac[2].name = gr_str_c("retention.ms");
    ac[2].value = gr_str_c("2000");
    ar.resource_type = 2; /* topic */
    ar.resource_name = gr_str_c("asg-any-order");
    ar.configs = ac;
    ar.configs_cnt = 3;
    arq.resources = &ar;
    arq.resources_cnt = 1;
    ars = gr_brokertest_call(&bt, GR_API_INCREMENTAL_ALTER_CONFIGS, 1, &arq);
    ck_assert_int_eq(ars->responses[0].error_code, GR_KERR_INVALID_REQUEST);
    ck_assert(gr_str_eq_cstr(&ars->responses[0].error_message,
                             "Error due to duplicate config keys"));
    ar.configs_cnt = 2;
    ars = gr_brokertest_call(&bt, GR_API_INCREMENTAL_ALTER_CONFIGS, 1, &arq);
    ck_assert_int_eq(ars->responses[0].error_code, GR_KERR_NONE);
    gr_brokertest_stop(&bt);
}
END_TEST

/* An IncrementalAlterConfigs of one config. */
typedef struct {
    gr_incremental_alter_configs_request_t rq;
    gr_incremental_alter_configs_request_alter_configs_resource_t r;
    gr_incremental_alter_configs_request_alterable_config_t c;
} ialter_rq_t;

static void
ialter_rq(ialter_rq_t *q, int8_t type, const char *name, const char *key,
          int8_t op, const char *value)
{
    gr_incremental_alter_configs_request_init(&q->rq);
    gr_incremental_alter_configs_request_alter_configs_resource_init(&q->r);
    gr_incremental_alter_configs_request_alterable_config_init(&q->c);
    q->c.name = gr_str_c(key);
    q->c.config_operation = op;
    q->c.value = value ? gr_str_c(value) : GR_STR_NULL;
    q->r.resource_type = type;
    q->r.resource_name = gr_str_c(name);
    q->r.configs = &q->c;
    q->r.configs_cnt = 1;
    q->rq.resources = &q->r;
    q->rq.resources_cnt = 1;
}

static gr_incremental_alter_configs_response_t *
ialter(gr_brokertest_t *bt, int8_t type, const char *name, const char *key,
       int8_t op, const char *value)
{
    ialter_rq_t q;
    ialter_rq(&q, type, name, key, op, value);
    return gr_brokertest_call(bt, GR_API_INCREMENTAL_ALTER_CONFIGS, 1, &q.rq);
}

/* The value and source of key on a resource (DescribeConfigs v4). */
static const gr_describe_configs_response_describe_configs_resource_result_t *
described(gr_brokertest_t *bt, int8_t type, const char *name, const char *key)
{
    gr_describe_configs_request_t rq;
    gr_describe_configs_request_describe_configs_resource_t r;
    gr_describe_configs_response_t *rs;
    gr_str_t k = gr_str_c(key);
    gr_describe_configs_request_init(&rq);
    gr_describe_configs_request_describe_configs_resource_init(&r);
    r.resource_type = type;
    r.resource_name = gr_str_c(name);
    r.configuration_keys = &k;
    r.configuration_keys_cnt = 1;
    rq.resources = &r;
    rq.resources_cnt = 1;
    rq.include_synonyms = true;
    rs = gr_brokertest_call(bt, GR_API_DESCRIBE_CONFIGS, 4, &rq);
    ck_assert_int_eq(rs->results[0].error_code, 0);
    ck_assert(gr_str_eq_cstr(&rs->results[0].error_message, "")); /* Kafka's */
    return rs->results[0].configs_cnt == 1 ? &rs->results[0].configs[0] : NULL;
}

/* How many configs a DescribeConfigs v4 of the resource lists when the
 * key list is empty (n 0) or null (-1), and its error and message. */
static int32_t
described_all(gr_brokertest_t *bt, int8_t type, const char *name, int32_t n,
              gr_kerr_t *err, gr_str_t *msg)
{
    gr_describe_configs_request_t rq;
    gr_describe_configs_request_describe_configs_resource_t r;
    gr_describe_configs_response_t *rs;
    gr_describe_configs_request_init(&rq);
    gr_describe_configs_request_describe_configs_resource_init(&r);
    r.resource_type = type;
    r.resource_name = gr_str_c(name);
    r.configuration_keys = NULL;
    r.configuration_keys_cnt = n;
    rq.resources = &r;
    rq.resources_cnt = 1;
    rs = gr_brokertest_call(bt, GR_API_DESCRIBE_CONFIGS, 4, &rq);
    *err = rs->results[0].error_code;
    *msg = rs->results[0].error_message;
    return rs->results[0].configs_cnt;
}

/* An empty key list asks for every config, as a null one (Kafka's
 * toDescribeConfigsResult); no message is "", also for an unknown topic
 * (Kafka sets none there). */
START_TEST(test_describe_configs_all_keys)
{
    gr_brokertest_t bt;
    ctopic_t t = ctopic("all", 1, 1);
    gr_kerr_t err;
    gr_str_t msg;
    int32_t n;

    gr_brokertest_start(&bt, NULL);
    create(&bt, 5, &t, 1, false);
    n = described_all(&bt, GR_RESOURCE_TOPIC, "all", -1, &err, &msg);
    ck_assert_int_gt(n, 30);
    ck_assert_int_eq(described_all(&bt, GR_RESOURCE_TOPIC, "all", 0, &err,
                                   &msg),
                     n);
    ck_assert_int_eq(err, GR_KERR_NONE);
    ck_assert(gr_str_eq_cstr(&msg, ""));
    n = described_all(&bt, GR_RESOURCE_BROKER, "1", -1, &err, &msg);
    ck_assert_int_gt(n, 30);
    ck_assert_int_eq(described_all(&bt, GR_RESOURCE_BROKER, "1", 0, &err,
                                   &msg),
                     n);
    ck_assert(gr_str_eq_cstr(&msg, ""));
    ck_assert_int_eq(described_all(&bt, GR_RESOURCE_TOPIC, "none", 0, &err,
                                   &msg),
                     0);
    ck_assert_int_eq(err, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
    ck_assert(gr_str_eq_cstr(&msg, ""));
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_configs_at_once_and_persisted)
{
    gr_brokertest_t bt;
    const gr_describe_configs_response_describe_configs_resource_result_t *e;
    ctopic_t t = ctopic("c", 1, 1);
    gr_log_t *l;

    gr_brokertest_start(&bt, NULL);
    create(&bt, 5, &t, 1, false);
    l = gr_cluster_topic_cstr(bt.b->cluster, "c")->parts[0]->log;
    ck_assert(!l->cfg.cleanup_compact);
    ck_assert_int_eq(ialter(&bt, GR_RESOURCE_TOPIC, "c", "cleanup.policy",
                            GR_CONFIG_SET, "compact")
                         ->responses[0]
                         .error_code,
                     0);
    ck_assert(l->cfg.cleanup_compact && !l->cfg.cleanup_delete);
    /* every broker: the default segment.bytes; this broker: the cleaner */
    ck_assert_int_eq(ialter(&bt, GR_RESOURCE_BROKER, "", "log.segment.bytes",
                            GR_CONFIG_SET, "100000")
                         ->responses[0]
                         .error_code,
                     0);
    ck_assert_int_eq(l->cfg.segment_bytes, 100000);
    ck_assert_int_eq(ialter(&bt, GR_RESOURCE_BROKER, "1", "log.cleaner.threads",
                            GR_CONFIG_SET, "0")
                         ->responses[0]
                         .error_code,
                     0);
    ck_assert_int_eq(bt.b->logs->cleaner_threads, 0);
    ck_assert_int_eq(ialter(&bt, GR_RESOURCE_BROKER, "2", "log.segment.bytes",
                            GR_CONFIG_SET, "1")
                         ->responses[0]
                         .error_code,
                     GR_KERR_INVALID_REQUEST);
    /* a restart keeps all three, with their sources */
    gr_brokertest_restart(&bt, NULL);
    l = gr_cluster_topic_cstr(bt.b->cluster, "c")->parts[0]->log;
    ck_assert(l->cfg.cleanup_compact);
    ck_assert_int_eq(l->cfg.segment_bytes, 100000);
    ck_assert_int_eq(bt.b->logs->cleaner_threads, 0);
    e = described(&bt, GR_RESOURCE_TOPIC, "c", "segment.bytes");
    ck_assert(gr_str_eq_cstr(&e->value, "100000"));
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DYNAMIC_DEFAULT);
    ck_assert_int_eq(e->synonyms_cnt, 2);
    e = described(&bt, GR_RESOURCE_TOPIC, "c", "cleanup.policy");
    ck_assert_int_eq(e->config_source, GR_CFGSRC_TOPIC);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "log.cleaner.threads");
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DYNAMIC_BROKER);
    ck_assert(!e->read_only);
    /* DELETE goes back to the default, at once and on disk */
    ialter(&bt, GR_RESOURCE_BROKER, "", "log.segment.bytes", GR_CONFIG_DELETE,
           NULL);
    ck_assert_int_eq(l->cfg.segment_bytes, 1073741824);
    ialter(&bt, GR_RESOURCE_BROKER, "1", "log.cleaner.threads",
           GR_CONFIG_DELETE, NULL);
    ck_assert_int_eq(bt.b->logs->cleaner_threads, 1);
    gr_brokertest_restart(&bt, NULL);
    e = described(&bt, GR_RESOURCE_TOPIC, "c", "segment.bytes");
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DEFAULT);
    gr_brokertest_stop(&bt);
}
END_TEST

/* IncrementalAlterConfigs of one config on another connection fd;
 * returns the correlation id. */
static int32_t
ialter_send(gr_brokertest_t *bt, int fd, int8_t type, const char *name,
            const char *key, const char *value)
{
    ialter_rq_t q;
    ialter_rq(&q, type, name, key, GR_CONFIG_SET, value);
    return gr_brokertest_send_fd(bt, fd, GR_API_INCREMENTAL_ALTER_CONFIGS, 1,
                                 &q.rq);
}

static int16_t
ialter_recv(gr_brokertest_t *bt, int fd, int32_t corr)
{
    gr_incremental_alter_configs_response_t *rs = gr_brokertest_recv_fd(
        bt, fd, GR_API_INCREMENTAL_ALTER_CONFIGS, 1, corr);
    ck_assert_int_eq(rs->responses_cnt, 1);
    return rs->responses[0].error_code;
}

/* Dynamic broker configs and client-metrics subscriptions are written by
 * a worker, not on the loop: while the workers are held the answers wait
 * and the broker serves others, who see the configs as before; a second
 * change of the same config lands after the first. Once stored, both
 * answer and the second holds, also after a restart. A write that fails
 * (fault points broker_config.store, topic.store) answers
 * KAFKA_STORAGE_ERROR and changes nothing. */
START_TEST(test_configs_stored_first)
{
    gr_brokertest_t bt;
    const gr_describe_configs_response_describe_configs_resource_result_t *e;
    gr_incremental_alter_configs_response_t *rs;
    int32_t c1, c2, c3;
    int fd2, fd3, fd4;

    gr_brokertest_start(&bt, NULL);
    fd2 = gr_brokertest_connect(&bt);
    fd3 = gr_brokertest_connect(&bt);
    fd4 = gr_brokertest_connect(&bt);
    gr_brokertest_hold_workers(&bt);
    c1 = ialter_send(&bt, fd2, GR_RESOURCE_BROKER, "", "log.segment.bytes",
                     "100000");
    c2 = ialter_send(&bt, fd3, GR_RESOURCE_BROKER, "", "log.segment.bytes",
                     "200000");
    c3 = ialter_send(&bt, fd4, GR_RESOURCE_CLIENT_METRICS, "sub",
                     "interval.ms", "1000");
    ck_assert(!gr_brokertest_readable(fd2, 300));
    /* the loop answers others meanwhile, from what is stored */
    e = described(&bt, GR_RESOURCE_BROKER, "1", "log.segment.bytes");
    ck_assert(gr_str_eq_cstr(&e->value, "1073741824"));
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DEFAULT);
    e = described(&bt, GR_RESOURCE_CLIENT_METRICS, "sub", "interval.ms");
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DEFAULT);
    ck_assert(!gr_brokertest_readable(fd3, 0));
    ck_assert(!gr_brokertest_readable(fd4, 0));
    gr_brokertest_release_workers(&bt);
    ck_assert_int_eq(ialter_recv(&bt, fd2, c1), GR_KERR_NONE);
    ck_assert_int_eq(ialter_recv(&bt, fd3, c2), GR_KERR_NONE);
    ck_assert_int_eq(ialter_recv(&bt, fd4, c3), GR_KERR_NONE);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "log.segment.bytes");
    ck_assert(gr_str_eq_cstr(&e->value, "200000"));
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DYNAMIC_DEFAULT);
    e = described(&bt, GR_RESOURCE_CLIENT_METRICS, "sub", "interval.ms");
    ck_assert(gr_str_eq_cstr(&e->value, "1000"));

    gr_fault_arm("broker_config.store", 1);
    rs = ialter(&bt, GR_RESOURCE_BROKER, "1", "log.cleaner.threads",
                GR_CONFIG_SET, "0");
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_KAFKA_STORAGE_ERROR);
    ck_assert(gr_str_eq_cstr(&rs->responses[0].error_message,
                             "The broker configuration could not be "
                             "persisted."));
    /* a topic's: its overrides are back as before */
    {
        ctopic_t t = ctopic("tc", 1, 1);
        create(&bt, 5, &t, 1, false);
    }
    gr_fault_arm("topic.store", 1);
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "tc", "retention.ms", GR_CONFIG_SET,
                "1000");
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_KAFKA_STORAGE_ERROR);
    ck_assert(gr_str_eq_cstr(&rs->responses[0].error_message,
                             "The topic metadata could not be written."));
    e = described(&bt, GR_RESOURCE_TOPIC, "tc", "retention.ms");
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DEFAULT);
    gr_fault_clear();
    ck_assert_int_eq(bt.b->logs->cleaner_threads, 1);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "log.cleaner.threads");
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DEFAULT);
    close(fd2);
    close(fd3);
    close(fd4);
    gr_brokertest_restart(&bt, NULL);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "log.segment.bytes");
    ck_assert(gr_str_eq_cstr(&e->value, "200000"));
    e = described(&bt, GR_RESOURCE_BROKER, "1", "log.cleaner.threads");
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DEFAULT);
    e = described(&bt, GR_RESOURCE_CLIENT_METRICS, "sub", "interval.ms");
    ck_assert(gr_str_eq_cstr(&e->value, "1000"));
    gr_brokertest_stop(&bt);
}
END_TEST

START_TEST(test_records_dirs_elect_cluster)
{
    gr_brokertest_t bt;
    ctopic_t t[2] = { ctopic("r", 2, 1), ctopic("cmp", 1, 1) };
    gr_delete_records_request_t dq;
    gr_delete_records_request_delete_records_topic_t dt;
    gr_delete_records_request_delete_records_partition_t dp[2];
    gr_delete_records_response_t *drs;
    gr_describe_log_dirs_request_t lq;
    gr_describe_log_dirs_response_t *lrs;
    gr_elect_leaders_request_t eq;
    gr_elect_leaders_response_t *ers;
    gr_describe_cluster_request_t cq;
    gr_describe_cluster_response_t *crs;

    gr_brokertest_start(&bt, NULL);
    ctopic_config(&bt, &t[1], "cleanup.policy", "compact");
    create(&bt, 5, t, 2, false);
    /* empty partitions: offset 0 is the high watermark, 1 is past it */
    gr_delete_records_request_init(&dq);
    dt.name = gr_str_c("r");
    dt.partitions = dp;
    dt.partitions_cnt = 2;
    dp[0].partition_index = 0;
    dp[0].offset = 1;
    dp[1].partition_index = 1;
    dp[1].offset = 0;
    dq.topics = &dt;
    dq.topics_cnt = 1;
    drs = gr_brokertest_call(&bt, GR_API_DELETE_RECORDS, 2, &dq);
    ck_assert_int_eq(drs->topics[0].partitions[0].error_code,
                     GR_KERR_OFFSET_OUT_OF_RANGE);
    /* -1, as every error of Kafka's deleteRecordsOnLocalLog */
    ck_assert_int_eq(drs->topics[0].partitions[0].low_watermark, -1);
    ck_assert_int_eq(drs->topics[0].partitions[1].error_code, 0);
    ck_assert_int_eq(drs->topics[0].partitions[1].low_watermark, 0);
    /* partition 0 twice: one answer, for the offset listed last, as
     * Kafka's map of them */
    dp[1].partition_index = 0;
    dp[0].offset = 0;
    dp[1].offset = 1;
    drs = gr_brokertest_call(&bt, GR_API_DELETE_RECORDS, 2, &dq);
    ck_assert_int_eq(drs->topics_cnt, 1);
    ck_assert_int_eq(drs->topics[0].partitions_cnt, 1);
    ck_assert_int_eq(drs->topics[0].partitions[0].error_code,
                     GR_KERR_OFFSET_OUT_OF_RANGE);
    dp[0].offset = 1;
    dp[1].offset = 0;
    drs = gr_brokertest_call(&bt, GR_API_DELETE_RECORDS, 2, &dq);
    ck_assert_int_eq(drs->topics[0].partitions_cnt, 1);
    ck_assert_int_eq(drs->topics[0].partitions[0].error_code, GR_KERR_NONE);
    dt.name = gr_str_c("cmp");
    dt.partitions_cnt = 1;
    dp[0].offset = 0;
    drs = gr_brokertest_call(&bt, GR_API_DELETE_RECORDS, 0, &dq);
    ck_assert_int_eq(drs->topics[0].partitions[0].error_code,
                     GR_KERR_POLICY_VIOLATION);
    /* every partition in the one log dir */
    gr_describe_log_dirs_request_init(&lq);
    lq.topics_cnt = -1;
    lrs = gr_brokertest_call(&bt, GR_API_DESCRIBE_LOG_DIRS, 4, &lq);
    ck_assert_int_eq(lrs->results_cnt, 1);
    ck_assert_int_eq(lrs->results[0].topics_cnt, 2);
    ck_assert_int_gt(lrs->results[0].total_bytes, 0);
    /* all partitions: none needs an election; Kafka's controller lists
     * each topic with none of its partitions */
    gr_elect_leaders_request_init(&eq);
    eq.topic_partitions_cnt = -1;
    ers = gr_brokertest_call(&bt, GR_API_ELECT_LEADERS, 2, &eq);
    ck_assert_int_eq(ers->error_code, 0);
    ck_assert_int_eq(ers->replica_election_results_cnt, 2);
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(ers->replica_election_results[i].partition_result_cnt,
                         0);
    /* one partition asked for: needs nothing; with no time left it is
     * REQUEST_TIMED_OUT, for it and the request, as Kafka's controller */
    {
        gr_elect_leaders_request_topic_partitions_t tp;
        int32_t p0 = 0;
        tp.topic = gr_str_c("r");
        tp.partitions = &p0;
        tp.partitions_cnt = 1;
        eq.topic_partitions = &tp;
        eq.topic_partitions_cnt = 1;
        ers = gr_brokertest_call(&bt, GR_API_ELECT_LEADERS, 2, &eq);
        ck_assert_int_eq(ers->error_code, 0);
        ck_assert_int_eq(ers->replica_election_results[0]
                             .partition_result[0]
                             .error_code,
                         GR_KERR_ELECTION_NOT_NEEDED);
        eq.timeout_ms = 0;
        ers = gr_brokertest_call(&bt, GR_API_ELECT_LEADERS, 2, &eq);
        ck_assert_int_eq(ers->error_code, GR_KERR_REQUEST_TIMED_OUT);
        ck_assert_int_eq(ers->replica_election_results[0]
                             .partition_result[0]
                             .error_code,
                         GR_KERR_REQUEST_TIMED_OUT);
        ck_assert_int_eq(ers->replica_election_results[0]
                             .partition_result[0]
                             .error_message.len,
                         -1);
        /* an unknown election type fails the request: its error, with
         * Kafka's message, for it and each partition */
        eq.timeout_ms = 1000;
        eq.election_type = 3;
        ers = gr_brokertest_call(&bt, GR_API_ELECT_LEADERS, 2, &eq);
        ck_assert_int_eq(ers->error_code, GR_KERR_INVALID_REQUEST);
        ck_assert_int_eq(ers->replica_election_results_cnt, 1);
        ck_assert_int_eq(ers->replica_election_results[0]
                             .partition_result[0]
                             .error_code,
                         GR_KERR_INVALID_REQUEST);
        ck_assert(gr_str_eq_cstr(&ers->replica_election_results[0]
                                      .partition_result[0]
                                      .error_message,
                                 "Unknown election type 3"));
        /* the controller's words for what does not exist */
        eq.election_type = 0;
        p0 = 7;
        ers = gr_brokertest_call(&bt, GR_API_ELECT_LEADERS, 2, &eq);
        ck_assert(gr_str_eq_cstr(&ers->replica_election_results[0]
                                      .partition_result[0]
                                      .error_message,
                                 "No such partition as r-7"));
        tp.topic = gr_str_c("nope");
        ers = gr_brokertest_call(&bt, GR_API_ELECT_LEADERS, 2, &eq);
        ck_assert(gr_str_eq_cstr(&ers->replica_election_results[0]
                                      .partition_result[0]
                                      .error_message,
                                 "No such topic as nope"));
    }
    gr_describe_cluster_request_init(&cq);
    crs = gr_brokertest_call(&bt, GR_API_DESCRIBE_CLUSTER, 1, &cq);
    ck_assert_int_eq(crs->error_code, 0);
    ck_assert(gr_str_eq_cstr(&crs->cluster_id, bt.b->cluster->cluster_id));
    ck_assert_int_eq(crs->brokers_cnt, 1);
    ck_assert_int_eq(crs->cluster_authorized_operations, INT32_MIN);
    /* controllers: the wrong endpoint; another type: unsupported; as
     * Kafka's computeDescribeClusterResponse, nothing else set */
    cq.endpoint_type = 2;
    crs = gr_brokertest_call(&bt, GR_API_DESCRIBE_CLUSTER, 1, &cq);
    ck_assert_int_eq(crs->error_code, GR_KERR_MISMATCHED_ENDPOINT_TYPE);
    ck_assert(gr_str_eq_cstr(&crs->cluster_id, ""));
    ck_assert_int_eq(crs->brokers_cnt, 0);
    cq.endpoint_type = 5;
    crs = gr_brokertest_call(&bt, GR_API_DESCRIBE_CLUSTER, 2, &cq);
    ck_assert_int_eq(crs->error_code, GR_KERR_UNSUPPORTED_ENDPOINT_TYPE);
    ck_assert(gr_str_eq_cstr(&crs->error_message,
                             "Unsupported endpoint type 5"));
    ck_assert(gr_str_eq_cstr(&crs->cluster_id, ""));
    ck_assert_int_eq(crs->controller_id, -1);
    gr_brokertest_stop(&bt);
}
END_TEST


/* Synonyms as Kafka's ConfigHelper.configSynonyms lists them: the broker
 * synonyms of a topic config start at the primary broker name or are
 * none (retention.ms without log.retention.ms: no log.retention.hours);
 * and Kafka 4.4's topic keys are there (message.downconversion.enable,
 * which 4.x dropped, only where set). */
START_TEST(test_config_synonyms_as_kafka)
{
    gr_brokertest_t bt;
    const gr_describe_configs_response_describe_configs_resource_result_t *e;
    ctopic_t t = ctopic("syn", 1, 1);
    static const char *const new_keys[] = {
        "errors.deadletterqueue.group.enable", "max.decompressed.message.bytes",
        "remote.copy.lag.bytes", "remote.copy.lag.ms",
        "remote.log.copy.disable", "remote.log.delete.on.disable", NULL
    };

    gr_brokertest_start(&bt, NULL);
    create(&bt, 5, &t, 1, false);
    e = described(&bt, GR_RESOURCE_TOPIC, "syn", "retention.ms");
    ck_assert(gr_str_eq_cstr(&e->value, "604800000"));
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DEFAULT);
    ck_assert_int_eq(e->synonyms_cnt, 0);
    e = described(&bt, GR_RESOURCE_TOPIC, "syn", "flush.ms");
    ck_assert_int_eq(e->synonyms_cnt, 0);
    e = described(&bt, GR_RESOURCE_TOPIC, "syn", "segment.bytes");
    ck_assert_int_eq(e->synonyms_cnt, 1); /* DEFAULT log.segment.bytes */
    ck_assert(gr_str_eq_cstr(&e->synonyms[0].name, "log.segment.bytes"));
    /* the primary name set: it and what follows it */
    ialter(&bt, GR_RESOURCE_BROKER, "", "log.retention.ms", GR_CONFIG_SET,
           "3600000");
    e = described(&bt, GR_RESOURCE_TOPIC, "syn", "retention.ms");
    ck_assert(gr_str_eq_cstr(&e->value, "3600000"));
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DYNAMIC_DEFAULT);
    ck_assert_int_eq(e->synonyms_cnt, 2);
    ck_assert(gr_str_eq_cstr(&e->synonyms[0].name, "log.retention.ms"));
    ck_assert(gr_str_eq_cstr(&e->synonyms[1].name, "log.retention.hours"));
    for (int i = 0; new_keys[i]; i++)
        ck_assert_msg(described(&bt, GR_RESOURCE_TOPIC, "syn", new_keys[i]) !=
                          NULL,
                      "%s", new_keys[i]);
    ck_assert_ptr_null(described(&bt, GR_RESOURCE_TOPIC, "syn",
                                 "message.downconversion.enable"));
    ck_assert_int_eq(ialter(&bt, GR_RESOURCE_TOPIC, "syn",
                            "message.downconversion.enable", GR_CONFIG_SET,
                            "false")
                         ->responses[0]
                         .error_code,
                     GR_KERR_NONE);
    e = described(&bt, GR_RESOURCE_TOPIC, "syn",
                  "message.downconversion.enable");
    ck_assert(gr_str_eq_cstr(&e->value, "false"));
    gr_brokertest_stop(&bt);
}
END_TEST

/* Kafka 3.x's topic keys 4.x dropped (message.format.version,
 * message.timestamp.difference.max.ms): accepted as 3.x accepted them
 * (validated, kept, described once set, persisted), without effect. */
START_TEST(test_legacy_topic_configs)
{
    gr_brokertest_t bt;
    const gr_describe_configs_response_describe_configs_resource_result_t *e;
    gr_incremental_alter_configs_response_t *rs;
    ctopic_t t[2] = { ctopic("legacy", 1, 1), ctopic("legacy2", 1, 1) };
    gr_create_topics_response_t *cr;
    bool listed = false;

    gr_brokertest_start(&bt, NULL);
    ctopic_config(&bt, &t[1], "message.format.version", "2.8-IV0");
    cr = create(&bt, 5, t, 2, false);
    ck_assert_int_eq(cr->topics[1].error_code, GR_KERR_NONE);
    for (int32_t i = 0; i < cr->topics[1].configs_cnt; i++)
        listed |= gr_str_eq_cstr(&cr->topics[1].configs[i].name,
                                 "message.format.version");
    ck_assert(listed);
    /* not set: not described, as Kafka 4.x has no such key */
    for (int32_t i = 0; i < cr->topics[0].configs_cnt; i++)
        ck_assert(!gr_str_eq_cstr(&cr->topics[0].configs[i].name,
                                  "message.format.version"));
    ck_assert_ptr_null(
        described(&bt, GR_RESOURCE_TOPIC, "legacy", "message.format.version"));
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "legacy", "message.format.version",
                GR_CONFIG_SET, "0.10.0");
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_NONE);
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "legacy",
                "message.timestamp.difference.max.ms", GR_CONFIG_SET, "1000");
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_NONE);
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "legacy", "message.format.version",
                GR_CONFIG_SET, "abc");
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_INVALID_CONFIG);
    ck_assert(gr_str_eq_cstr(&rs->responses[0].error_message,
                             "Invalid value abc for configuration "
                             "message.format.version: Version `abc` is not a "
                             "valid version"));
    gr_brokertest_restart(&bt, NULL);
    e = described(&bt, GR_RESOURCE_TOPIC, "legacy", "message.format.version");
    ck_assert_ptr_nonnull(e);
    ck_assert(gr_str_eq_cstr(&e->value, "0.10.0"));
    ck_assert_int_eq(e->config_source, GR_CFGSRC_TOPIC);
    e = described(&bt, GR_RESOURCE_TOPIC, "legacy2", "message.format.version");
    ck_assert(gr_str_eq_cstr(&e->value, "2.8-IV0"));
    /* no effect: the timestamp bound is still the 4.x key's */
    ck_assert_int_eq(gr_topic_settings(bt.b->conf,
                                       gr_cluster_topic_cstr(bt.b->cluster,
                                                             "legacy"))
                         ->ts_before_max_ms,
                     INT64_MAX);
    gr_brokertest_stop(&bt);
}
END_TEST

/* One AlterConfigs v2 resource with one config. */
static gr_alter_configs_response_t *
alter1(gr_brokertest_t *bt, int8_t type, const char *name, const char *key,
       const char *value, bool validate_only)
{
    gr_alter_configs_request_t rq;
    gr_alter_configs_request_alter_configs_resource_t r;
    gr_alter_configs_request_alterable_config_t c;
    gr_alter_configs_request_init(&rq);
    gr_alter_configs_request_alter_configs_resource_init(&r);
    gr_alter_configs_request_alterable_config_init(&c);
    c.name = gr_str_c(key);
    c.value = value ? gr_str_c(value) : GR_STR_NULL;
    r.resource_type = type;
    r.resource_name = gr_str_c(name);
    r.configs = &c;
    r.configs_cnt = key ? 1 : 0;
    rq.resources = &r;
    rq.resources_cnt = 1;
    rq.validate_only = validate_only;
    return gr_brokertest_call(bt, GR_API_ALTER_CONFIGS, 2, &rq);
}

/* IncrementalAlterConfigs v1 of resources r (n), validate_only. */
static gr_incremental_alter_configs_response_t *
ialter_n(gr_brokertest_t *bt,
         gr_incremental_alter_configs_request_alter_configs_resource_t *r,
         int n)
{
    gr_incremental_alter_configs_request_t rq;
    gr_incremental_alter_configs_request_init(&rq);
    rq.resources = r;
    rq.resources_cnt = n;
    rq.validate_only = true;
    return gr_brokertest_call(bt, GR_API_INCREMENTAL_ALTER_CONFIGS, 1, &rq);
}

#define ASSERT_ANSWER(rs, code, message)                                       \
    do {                                                                       \
        ck_assert_int_eq((rs)->responses[0].error_code, (code));               \
        ck_assert_msg(gr_str_eq_cstr(&(rs)->responses[0].error_message,        \
                                     (message)),                               \
                      "message: %.*s",                                         \
                      (int)((rs)->responses[0].error_message.len > 0           \
                                ? (rs)->responses[0].error_message.len         \
                                : 0),                                          \
                      (rs)->responses[0].error_message.ptr);                   \
    } while (0)

/* Config changes answered in the order and words of Kafka 4.4's broker
 * (ConfigAdminManager, RuntimeLoggerManager) and controller
 * (ConfigurationControlManager, LogConfig). */
START_TEST(test_config_changes_as_kafka)
{
    gr_brokertest_t bt;
    ctopic_t t = ctopic("chg", 1, 1);
    gr_incremental_alter_configs_response_t *rs;
    gr_alter_configs_response_t *ars;
    gr_incremental_alter_configs_request_alter_configs_resource_t r[3];
    gr_incremental_alter_configs_request_alterable_config_t c[3];

    gr_brokertest_start(&bt, NULL);
    create(&bt, 5, &t, 1, false);
    /* a topic: an unknown one is named, once its configs checked */
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "nope", "retention.ms", GR_CONFIG_SET,
                "1");
    ASSERT_ANSWER(rs, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION,
                  "The topic 'nope' does not exist.");
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "nope", "retention.ms", GR_CONFIG_SET,
                "x");
    ASSERT_ANSWER(rs, GR_KERR_INVALID_CONFIG,
                  "Invalid value x for configuration retention.ms: Not a "
                  "number of type LONG");
    ars = alter1(&bt, GR_RESOURCE_TOPIC, "nope", "retention.ms", "5", false);
    ASSERT_ANSWER(ars, GR_KERR_UNKNOWN_TOPIC_OR_PARTITION,
                  "The topic 'nope' does not exist.");
    /* a name checked by the controller: "" is the default resource */
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "bad name", "retention.ms",
                GR_CONFIG_SET, "1");
    ASSERT_ANSWER(rs, GR_KERR_INVALID_TOPIC_EXCEPTION,
                  "Topic name is invalid: 'bad name' contains one or more "
                  "characters other than ASCII alphanumerics, '.', '_' and "
                  "'-'");
    ars = alter1(&bt, GR_RESOURCE_TOPIC, "", "retention.ms", "5", true);
    ASSERT_ANSWER(ars, GR_KERR_INVALID_REQUEST,
                  "Default topic resources are not allowed.");
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "chg", "retention.ms",
                GR_CONFIG_APPEND, "1");
    ASSERT_ANSWER(rs, GR_KERR_INVALID_CONFIG,
                  "Can't APPEND to key retention.ms because its type is not "
                  "LIST.");
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "chg", "cleanup.policy",
                GR_CONFIG_APPEND, "foo");
    ASSERT_ANSWER(rs, GR_KERR_INVALID_CONFIG,
                  "Invalid value foo for configuration cleanup.policy: String "
                  "must be one of: compact, delete");
    /* a DELETE of a key that is not there changes nothing */
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "chg", "no.such", GR_CONFIG_DELETE,
                NULL);
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_NONE);
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "chg", "min.compaction.lag.ms",
                GR_CONFIG_SET, "9223372036854775807");
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_NONE);
    rs = ialter(&bt, GR_RESOURCE_TOPIC, "chg", "max.compaction.lag.ms",
                GR_CONFIG_SET, "10");
    ASSERT_ANSWER(rs, GR_KERR_INVALID_CONFIG,
                  "conflict topic config setting min.compaction.lag.ms "
                  "(9223372036854775807) > max.compaction.lag.ms (10)");
    /* checked in LogConfig's order: retention.ms before the ratio */
    memset(r, 0, sizeof r);
    memset(c, 0, sizeof c);
    gr_incremental_alter_configs_request_alter_configs_resource_init(&r[0]);
    r[0].resource_type = GR_RESOURCE_TOPIC;
    r[0].resource_name = gr_str_c("chg");
    c[0].name = gr_str_c("min.cleanable.dirty.ratio");
    c[0].value = gr_str_c("2");
    c[1].name = gr_str_c("retention.ms");
    c[1].value = gr_str_c("x");
    r[0].configs = c;
    r[0].configs_cnt = 2;
    rs = ialter_n(&bt, r, 1);
    ASSERT_ANSWER(rs, GR_KERR_INVALID_CONFIG,
                  "Invalid value x for configuration retention.ms: Not a "
                  "number of type LONG");
    /* an unknown operation on a topic fails Kafka's controller batch: every
     * resource it gets, the broker's one too */
    c[1].config_operation = 7;
    c[1].value = gr_str_c("1");
    r[0].configs = &c[1];
    r[0].configs_cnt = 1;
    gr_incremental_alter_configs_request_alter_configs_resource_init(&r[1]);
    r[1].resource_type = GR_RESOURCE_BROKER;
    r[1].resource_name = gr_str_c("1");
    c[2].name = gr_str_c("log.cleaner.threads");
    c[2].value = gr_str_c("1");
    r[1].configs = &c[2];
    r[1].configs_cnt = 1;
    rs = ialter_n(&bt, r, 2);
    ck_assert_int_eq(rs->responses[0].error_code, GR_KERR_UNKNOWN_SERVER_ERROR);
    ck_assert_int_eq(rs->responses[0].error_message.len, -1);
    ck_assert_int_eq(rs->responses[1].error_code, GR_KERR_UNKNOWN_SERVER_ERROR);
    /* a resource named twice: both refused, before anything else */
    r[1].resource_type = GR_RESOURCE_TOPIC;
    r[1].resource_name = gr_str_c("chg");
    rs = ialter_n(&bt, r, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(rs->responses[i].error_code, GR_KERR_INVALID_REQUEST);
        ck_assert(gr_str_eq_cstr(&rs->responses[i].error_message,
                                 "Each resource must appear at most once."));
    }
    /* on the broker resource the broker itself refuses it */
    r[0].resource_type = GR_RESOURCE_BROKER;
    r[0].resource_name = gr_str_c("1");
    rs = ialter_n(&bt, r, 1);
    ASSERT_ANSWER(rs, GR_KERR_INVALID_REQUEST, "Unknown operations type 7");
    r[0].resource_type = GR_RESOURCE_BROKER_LOGGER;
    c[1].name = gr_str_c("root");
    rs = ialter_n(&bt, r, 1);
    ASSERT_ANSWER(rs, GR_KERR_INVALID_REQUEST,
                  "Unknown operation type 7 is not allowed for the "
                  "BROKER_LOGGER resource");
    /* the broker: its id, read-only keys named at once, values */
    ars = alter1(&bt, GR_RESOURCE_BROKER, "7", "log.cleaner.threads", "2",
                 true);
    ASSERT_ANSWER(ars, GR_KERR_INVALID_REQUEST,
                  "Unexpected broker id, expected 1, but received 7");
    ars = alter1(&bt, GR_RESOURCE_BROKER, "x", "log.cleaner.threads", "2",
                 true);
    ASSERT_ANSWER(ars, GR_KERR_INVALID_REQUEST,
                  "Node id must be an integer, but it is: x");
    ars = alter1(&bt, GR_RESOURCE_BROKER, "1", "log.retention.hours", "5",
                 true);
    ASSERT_ANSWER(ars, GR_KERR_INVALID_REQUEST,
                  "Cannot update these configs dynamically: "
                  "[log.retention.hours]");
    ars = alter1(&bt, GR_RESOURCE_BROKER, "1", "log.cleaner.threads", "abc",
                 true);
    ASSERT_ANSWER(ars, GR_KERR_INVALID_REQUEST,
                  "Invalid value abc for configuration log.cleaner.threads: "
                  "Not a number of type INT");
    /* in the order Java's HashSet prints them */
    memset(c, 0, sizeof c);
    c[0].name = gr_str_c("broker.rack");
    c[0].value = gr_str_c("x");
    c[1].name = gr_str_c("log.retention.hours");
    c[1].value = gr_str_c("3");
    c[2].name = gr_str_c("node.id");
    c[2].value = gr_str_c("3");
    r[0].resource_type = GR_RESOURCE_BROKER;
    r[0].configs = c;
    r[0].configs_cnt = 3;
    rs = ialter_n(&bt, r, 1);
    ASSERT_ANSWER(rs, GR_KERR_INVALID_REQUEST,
                  "Cannot update these configs dynamically: "
                  "[log.retention.hours, node.id, broker.rack]");
    rs = ialter(&bt, GR_RESOURCE_BROKER, "1", "log.cleaner.threads",
                GR_CONFIG_APPEND, "1");
    ASSERT_ANSWER(rs, GR_KERR_INVALID_CONFIG,
                  "Config value append is not allowed for config key: "
                  "log.cleaner.threads");
    rs = ialter(&bt, GR_RESOURCE_BROKER, "1", "no.such", GR_CONFIG_APPEND,
                "1");
    ASSERT_ANSWER(rs, GR_KERR_INVALID_CONFIG, "Unknown config name: no.such");
    /* the logger */
    rs = ialter(&bt, GR_RESOURCE_BROKER_LOGGER, "7", "root", GR_CONFIG_SET,
                "INFO");
    ASSERT_ANSWER(rs, GR_KERR_INVALID_REQUEST,
                  "Unexpected node id. Expected 1, but received 7");
    rs = ialter(&bt, GR_RESOURCE_BROKER_LOGGER, "1", "root", GR_CONFIG_SET,
                "LOUD");
    ASSERT_ANSWER(rs, GR_KERR_INVALID_CONFIG,
                  "Cannot set the log level of root to LOUD as it is not a "
                  "supported log level. Valid log levels are DEBUG, ERROR, "
                  "FATAL, INFO, TRACE, WARN");
    rs = ialter(&bt, GR_RESOURCE_BROKER_LOGGER, "1", "kafka", GR_CONFIG_SET,
                "INFO");
    ASSERT_ANSWER(rs, GR_KERR_INVALID_CONFIG, "Logger kafka does not exist!");
    /* every resource: duplicate keys and null values first, then the type */
    rs = ialter(&bt, 99, "x", "a", GR_CONFIG_SET, NULL);
    ASSERT_ANSWER(rs, GR_KERR_INVALID_REQUEST, "Null value not supported for : a");
    ars = alter1(&bt, 99, "x", NULL, NULL, false);
    ASSERT_ANSWER(ars, GR_KERR_INVALID_REQUEST, "Unknown resource type 99");
    gr_brokertest_stop(&bt);
}
END_TEST

/* A broker key neither Gregor nor Kafka knows: Kafka's broker accepts it
 * and keeps it without effect, and describes it as a key without a type
 * (read-only, sensitive, a null value); here too, across a restart. */
START_TEST(test_unknown_broker_keys_kept)
{
    gr_brokertest_t bt;
    const gr_describe_configs_response_describe_configs_resource_result_t *e;

    gr_brokertest_start(&bt, NULL);
    ck_assert_int_eq(alter1(&bt, GR_RESOURCE_BROKER, "1", "no.such.config",
                            "1", false)
                         ->responses[0]
                         .error_code,
                     GR_KERR_NONE);
    ck_assert_int_eq(ialter(&bt, GR_RESOURCE_BROKER, "", "no.such.d",
                            GR_CONFIG_SET, "x")
                         ->responses[0]
                         .error_code,
                     GR_KERR_NONE);
    gr_brokertest_restart(&bt, NULL);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "no.such.config");
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->value.len, -1);
    ck_assert(e->read_only && e->is_sensitive);
    ck_assert_int_eq(e->config_type, GR_TCFG_UNKNOWN);
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DYNAMIC_BROKER);
    ck_assert_int_eq(e->synonyms_cnt, 1);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "no.such.d");
    ck_assert_ptr_nonnull(e);
    ck_assert_int_eq(e->config_source, GR_CFGSRC_DYNAMIC_DEFAULT);
    e = described(&bt, GR_RESOURCE_BROKER, "", "no.such.d");
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_null(described(&bt, GR_RESOURCE_BROKER, "", "no.such.config"));
    /* a Kafka key Gregor does not implement is not kept: it cannot change */
    ck_assert_int_eq(alter1(&bt, GR_RESOURCE_BROKER, "1", "num.io.threads",
                            "4", false)
                         ->responses[0]
                         .error_code,
                     GR_KERR_INVALID_REQUEST);
    /* DELETE forgets it */
    ck_assert_int_eq(ialter(&bt, GR_RESOURCE_BROKER, "", "no.such.d",
                            GR_CONFIG_DELETE, NULL)
                         ->responses[0]
                         .error_code,
                     GR_KERR_NONE);
    ck_assert_ptr_null(described(&bt, GR_RESOURCE_BROKER, "1", "no.such.d"));
    gr_brokertest_stop(&bt);
}
END_TEST

/* A broker's configs described as Kafka 4.4 describes them: broker.id
 * follows node.id (populateSynonyms), node.id has no default, list keys
 * are LIST, keys Kafka 4.4 does not list are there only when set; the
 * logger has no type; an unknown resource type fails every resource. */
START_TEST(test_broker_configs_as_kafka)
{
    static const char *const ov[] = { "node.id=1", NULL };
    gr_brokertest_t bt;
    const gr_describe_configs_response_describe_configs_resource_result_t *e;
    gr_describe_configs_request_t rq;
    gr_describe_configs_request_describe_configs_resource_t r[2];
    gr_describe_configs_response_t *rs;
    gr_str_t root = gr_str_c("root");

    gr_brokertest_start(&bt, ov);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "broker.id");
    ck_assert(gr_str_eq_cstr(&e->value, "1"));
    ck_assert_int_eq(e->config_source, GR_CFGSRC_STATIC);
    ck_assert_int_eq(e->synonyms_cnt, 2);
    ck_assert(gr_str_eq_cstr(&e->synonyms[0].value, "1"));
    ck_assert(gr_str_eq_cstr(&e->synonyms[1].value, "-1"));
    ck_assert_int_eq(e->synonyms[1].source, GR_CFGSRC_DEFAULT);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "node.id");
    ck_assert_int_eq(e->synonyms_cnt, 1);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "listeners");
    ck_assert_int_eq(e->config_type, GR_TCFG_LIST);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "log.dirs");
    ck_assert_int_eq(e->config_type, GR_TCFG_LIST);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "log.roll.jitter.ms");
    ck_assert_int_eq(e->value.len, -1);
    ck_assert_int_eq(e->synonyms_cnt, 0);
    e = described(&bt, GR_RESOURCE_BROKER, "1", "log.roll.jitter.hours");
    ck_assert(gr_str_eq_cstr(&e->value, "0") && e->read_only);
    ck_assert_ptr_null(
        described(&bt, GR_RESOURCE_BROKER, "1", "unstable.api.versions.enable"));
    ck_assert_ptr_null(described(&bt, GR_RESOURCE_BROKER, "1",
                                 "producer.id.expiration.check.interval.ms"));
    ck_assert_ptr_null(
        described(&bt, GR_RESOURCE_BROKER, "1", "zookeeper.connect"));
    /* the logger */
    gr_describe_configs_request_init(&rq);
    gr_describe_configs_request_describe_configs_resource_init(&r[0]);
    gr_describe_configs_request_describe_configs_resource_init(&r[1]);
    r[0].resource_type = GR_RESOURCE_BROKER_LOGGER;
    r[0].resource_name = gr_str_c("1");
    r[0].configuration_keys = &root;
    r[0].configuration_keys_cnt = 1;
    rq.resources = r;
    rq.resources_cnt = 1;
    rs = gr_brokertest_call(&bt, GR_API_DESCRIBE_CONFIGS, 4, &rq);
    ck_assert_int_eq(rs->results[0].configs_cnt, 1);
    ck_assert_int_eq(rs->results[0].configs[0].config_type, GR_TCFG_UNKNOWN);
    /* a type Kafka does not know: INVALID_REQUEST for every resource */
    r[1].resource_type = 99;
    r[1].resource_name = gr_str_c("x");
    rq.resources_cnt = 2;
    rs = gr_brokertest_call(&bt, GR_API_DESCRIBE_CONFIGS, 4, &rq);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(rs->results[i].error_code, GR_KERR_INVALID_REQUEST);
        ck_assert(gr_str_eq_cstr(&rs->results[i].error_message,
                                 gr_kerr_msg(GR_KERR_INVALID_REQUEST)));
        ck_assert_int_eq(rs->results[i].configs_cnt, 0);
    }
    gr_brokertest_restart(&bt, (const char *const[]){
                                   "unstable.api.versions.enable=false", NULL });
    ck_assert_ptr_nonnull(
        described(&bt, GR_RESOURCE_BROKER, "1", "unstable.api.versions.enable"));
    gr_brokertest_stop(&bt);
}
END_TEST

/* Topic configs Kafka takes from broker keys Gregor does not have (the
 * tiered storage ones, max.decompressed.message.bytes) show those
 * synonyms; segment.jitter.ms has none unless log.roll.jitter.ms is set;
 * values are described as Kafka prints them once parsed. */
START_TEST(test_topic_synonyms_and_values)
{
    static const char *const ov[] = { "log.local.retention.ms=60000", NULL };
    gr_brokertest_t bt;
    const gr_describe_configs_response_describe_configs_resource_result_t *e;
    ctopic_t t = ctopic("tv", 1, 1);
    gr_create_topics_response_t *cr;

    gr_brokertest_start(&bt, ov);
    ctopic_config(&bt, &t, "retention.ms", " 0100 ");
    ctopic_config(&bt, &t, "cleanup.policy", "compact , delete,compact");
    cr = create(&bt, 7, &t, 1, false);
    ck_assert_int_eq(cr->topics[0].error_code, GR_KERR_NONE);
    e = described(&bt, GR_RESOURCE_TOPIC, "tv", "retention.ms");
    ck_assert(gr_str_eq_cstr(&e->value, "100"));
    ck_assert(gr_str_eq_cstr(&e->synonyms[0].value, "100"));
    e = described(&bt, GR_RESOURCE_TOPIC, "tv", "cleanup.policy");
    ck_assert(gr_str_eq_cstr(&e->value, "compact,delete"));
    e = described(&bt, GR_RESOURCE_TOPIC, "tv", "local.retention.bytes");
    ck_assert_int_eq(e->synonyms_cnt, 1);
    ck_assert(gr_str_eq_cstr(&e->synonyms[0].name, "log.local.retention.bytes"));
    ck_assert(gr_str_eq_cstr(&e->synonyms[0].value, "-2"));
    ck_assert_int_eq(e->synonyms[0].source, GR_CFGSRC_DEFAULT);
    e = described(&bt, GR_RESOURCE_TOPIC, "tv", "local.retention.ms");
    ck_assert(gr_str_eq_cstr(&e->value, "60000"));
    ck_assert_int_eq(e->config_source, GR_CFGSRC_STATIC);
    ck_assert_int_eq(e->synonyms_cnt, 2);
    e = described(&bt, GR_RESOURCE_TOPIC, "tv", "max.decompressed.message.bytes");
    ck_assert(gr_str_eq_cstr(&e->synonyms[0].name,
                             "max.decompressed.message.bytes"));
    e = described(&bt, GR_RESOURCE_TOPIC, "tv", "segment.jitter.ms");
    ck_assert_int_eq(e->synonyms_cnt, 0);
    ialter(&bt, GR_RESOURCE_BROKER, "", "log.roll.jitter.ms", GR_CONFIG_SET,
           "20");
    e = described(&bt, GR_RESOURCE_TOPIC, "tv", "segment.jitter.ms");
    ck_assert(gr_str_eq_cstr(&e->value, "20"));
    ck_assert_int_eq(e->synonyms_cnt, 2); /* .ms, then .hours' default */
    ck_assert_int_eq(gr_topic_settings(bt.b->conf,
                                       gr_cluster_topic_cstr(bt.b->cluster,
                                                             "tv"))
                         ->segment_jitter_ms,
                     20);
    gr_brokertest_stop(&bt);
}
END_TEST

/* DescribeTopicPartitions (KIP-966): sorted topics, pages bounded by the
 * partition limit with a cursor, errors per unknown or invalid name, and
 * INVALID_REQUEST for a cursor outside the topics asked for. */
static gr_describe_topic_partitions_response_t *
dtp(gr_brokertest_t *bt, const char *const *names, int n, int32_t limit,
    const char *cursor_topic, int32_t cursor_part)
{
    gr_describe_topic_partitions_request_t rq;
    gr_describe_topic_partitions_request_topic_request_t *t =
        gr_arena_zalloc(bt->a, (size_t)(n + 1) * sizeof(*t));
    gr_describe_topic_partitions_request_init(&rq);
    for (int i = 0; i < n; i++)
        t[i].name = gr_str_c(names[i]);
    rq.topics = t;
    rq.topics_cnt = n;
    rq.response_partition_limit = limit;
    if (cursor_topic) {
        rq.cursor_null = false;
        rq.cursor.topic_name = gr_str_c(cursor_topic);
        rq.cursor.partition_index = cursor_part;
    }
    return gr_brokertest_call(bt, GR_API_DESCRIBE_TOPIC_PARTITIONS, 0, &rq);
}

START_TEST(test_describe_topic_partitions)
{
    static const char *const named[] = { "c", "zz", "a", "bad/name", "c" };
    static const char *const no_cursor[] = { "b", "c" };
    gr_brokertest_t bt;
    gr_describe_topic_partitions_response_t *rs;
    ctopic_t t[3];

    gr_brokertest_start(&bt, NULL);
    t[0] = ctopic("b", 2, 1);
    t[1] = ctopic("a", 3, 1);
    t[2] = ctopic("c", 1, 1);
    create(&bt, 5, t, 3, false);

    /* every topic, one page */
    rs = dtp(&bt, NULL, 0, 2000, NULL, 0);
    ck_assert_int_eq(rs->topics_cnt, 3);
    ck_assert(rs->next_cursor_null);
    ck_assert(gr_str_eq_cstr(&rs->topics[0].name, "a"));
    ck_assert(gr_str_eq_cstr(&rs->topics[1].name, "b"));
    ck_assert(gr_str_eq_cstr(&rs->topics[2].name, "c"));
    ck_assert_int_eq(rs->topics[0].partitions_cnt, 3);
    ck_assert(!gr_uuid_is_zero(&rs->topics[0].topic_id));
    ck_assert_int_ne(rs->topics[0].topic_authorized_operations, INT32_MIN);
    ck_assert_int_eq(rs->topics[0].partitions[2].partition_index, 2);
    ck_assert_int_eq(rs->topics[0].partitions[2].leader_id, 1);
    ck_assert_int_eq(rs->topics[0].partitions[2].replica_nodes_cnt, 1);
    ck_assert_int_eq(rs->topics[0].partitions[2].isr_nodes_cnt, 1);
    ck_assert_int_eq(rs->topics[0].partitions[2].eligible_leader_replicas_cnt,
                     0);
    ck_assert_int_eq(rs->topics[0].partitions[2].last_known_elr_cnt, 0);

    /* two partitions a page: a 0-1, then a 2 and b 0, then b 1 and c 0 */
    rs = dtp(&bt, NULL, 0, 2, NULL, 0);
    ck_assert_int_eq(rs->topics_cnt, 1);
    ck_assert_int_eq(rs->topics[0].partitions_cnt, 2);
    ck_assert(!rs->next_cursor_null);
    ck_assert(gr_str_eq_cstr(&rs->next_cursor.topic_name, "a"));
    ck_assert_int_eq(rs->next_cursor.partition_index, 2);
    rs = dtp(&bt, NULL, 0, 2, "a", 2);
    ck_assert_int_eq(rs->topics_cnt, 2);
    ck_assert_int_eq(rs->topics[0].partitions_cnt, 1);
    ck_assert_int_eq(rs->topics[0].partitions[0].partition_index, 2);
    ck_assert_int_eq(rs->topics[1].partitions_cnt, 1);
    ck_assert(gr_str_eq_cstr(&rs->next_cursor.topic_name, "b"));
    ck_assert_int_eq(rs->next_cursor.partition_index, 1);
    rs = dtp(&bt, NULL, 0, 2, "b", 1);
    ck_assert_int_eq(rs->topics_cnt, 2);
    ck_assert(rs->next_cursor_null);
    /* a page ends exactly at a topic's end: the next topic is the cursor */
    rs = dtp(&bt, NULL, 0, 3, NULL, 0);
    ck_assert_int_eq(rs->topics_cnt, 1);
    ck_assert(gr_str_eq_cstr(&rs->next_cursor.topic_name, "b"));
    ck_assert_int_eq(rs->next_cursor.partition_index, 0);
    /* a limit below one is one */
    rs = dtp(&bt, NULL, 0, 0, NULL, 0);
    ck_assert_int_eq(rs->topics[0].partitions_cnt, 1);

    /* named topics: sorted, once each, errors for what is not there */
    rs = dtp(&bt, named, 5, 2000, NULL, 0);
    ck_assert_int_eq(rs->topics_cnt, 4);
    ck_assert(gr_str_eq_cstr(&rs->topics[0].name, "a"));
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_NONE);
    ck_assert(gr_str_eq_cstr(&rs->topics[1].name, "bad/name"));
    ck_assert_int_eq(rs->topics[1].error_code,
                     GR_KERR_INVALID_TOPIC_EXCEPTION);
    ck_assert_int_eq(rs->topics[2].error_code, GR_KERR_NONE);
    ck_assert(gr_str_eq_cstr(&rs->topics[3].name, "zz"));
    ck_assert_int_eq(rs->topics[3].error_code,
                     GR_KERR_UNKNOWN_TOPIC_OR_PARTITION);
    ck_assert(gr_uuid_is_zero(&rs->topics[3].topic_id));
    ck_assert_int_eq(rs->topics[3].partitions_cnt, 0);

    /* a cursor that is not among the topics asked for, or negative */
    rs = dtp(&bt, no_cursor, 2, 2000, "a", 0);
    ck_assert_int_eq(rs->topics_cnt, 2);
    ck_assert_int_eq(rs->topics[0].error_code, GR_KERR_INVALID_REQUEST);
    ck_assert_int_eq(rs->topics[1].error_code, GR_KERR_INVALID_REQUEST);
    rs = dtp(&bt, NULL, 0, 2000, "a", -1);
    ck_assert_int_eq(rs->topics_cnt, 0);
    gr_brokertest_stop(&bt);
}
END_TEST

Suite *
suite_api_admin(void)
{
    Suite *s = suite_create("api/admin");
    TCase *tc = tcase_create("admin");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_create_topics_errors);
    tcase_add_test(tc, test_topic_name_messages);
    tcase_add_test(tc, test_create_topics_as_kafka);
    tcase_add_test(tc, test_metadata_names_once);
    tcase_add_test(tc, test_create_partitions_messages);
    tcase_add_test(tc, test_list_offsets_as_kafka);
    tcase_add_test(tc, test_partitions_per_request_cap);
    tcase_add_test(tc, test_auto_create_cap);
    tcase_add_test(tc, test_metadata_by_id);
    tcase_add_test(tc, test_auto_create_stored_first);
    tcase_add_test(tc, test_coordinator_topic_stored_first);
    tcase_add_test(tc, test_txn_topics_stored_first);
    tcase_add_test(tc, test_delete_topics);
    tcase_add_test(tc, test_deletion_finished_at_start);
    tcase_add_test(tc, test_dot_names_kept);
    tcase_add_test(tc, test_deletion_not_stored);
    tcase_add_test(tc, test_configs_stored_first);
    tcase_add_test(tc, test_duplicates_in_requests);
    tcase_add_test(tc, test_repeats_in_entries);
    tcase_add_test(tc, test_configs_at_once_and_persisted);
    tcase_add_test(tc, test_records_dirs_elect_cluster);
    tcase_add_test(tc, test_describe_topic_partitions);
    tcase_add_test(tc, test_legacy_topic_configs);
    tcase_add_test(tc, test_config_synonyms_as_kafka);
    tcase_add_test(tc, test_describe_configs_all_keys);
    tcase_add_test(tc, test_config_changes_as_kafka);
    tcase_add_test(tc, test_unknown_broker_keys_kept);
    tcase_add_test(tc, test_broker_configs_as_kafka);
    tcase_add_test(tc, test_topic_synonyms_and_values);
    suite_add_tcase(s, tc);
    return s;
}
