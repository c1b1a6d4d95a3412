// The Admin client: topics and partitions, configs (a topic's, this
// broker's, the cluster default), consumer groups and their offsets,
// DeleteRecords, DescribeCluster, ListOffsets by spec, transactions and
// producers, ElectLeaders, DescribeLogDirs.
import java.io.FileInputStream;
import java.time.Duration;
import java.util.*;

import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.*;

class Admins extends Compat {
    static Admin a;

    static void run() throws Exception {
        try (Admin admin = admin()) {
            a = admin;
            section("topics", Admins::topics);
            section("configs", Admins::configs);
            section("groups", Admins::groups);
            section("records", Admins::records);
            section("cluster", Admins::cluster);
            section("transactions", Admins::transactions);
            section("leaders and log dirs", Admins::leadersAndLogDirs);
            endSections();
        }
    }

    static TopicDescription describe(String t) throws Exception {
        return get(a.describeTopics(Collections.singleton(t)).allTopicNames()).get(t);
    }

    static Set<String> opNames(Set<org.apache.kafka.common.acl.AclOperation> ops) {
        Set<String> s = new TreeSet<>();
        if (ops != null)
            for (org.apache.kafka.common.acl.AclOperation o : ops)
                s.add(o.name());
        return s;
    }

    static Set<String> names() throws Exception {
        return get(a.listTopics().names());
    }

    static void topics() throws Exception {
        CreateTopicsResult cr = a.createTopics(Arrays.asList(topic("a1", 3, "retention.ms", "3600000"),
                topic("a2", 1), topic("a3", 2)));
        get(cr.all());
        eq(3, get(cr.numPartitions("a1")), "createTopics: the partitions it reports");
        eq(1, get(cr.replicationFactor("a1")), "createTopics: the replication factor it reports");
        eq("3600000", get(cr.config("a1")).get("retention.ms").value(), "createTopics: the configs it reports");
        Uuid id1 = get(cr.topicId("a1"));
        Uuid id3 = get(cr.topicId("a3"));
        check(!id1.equals(Uuid.ZERO_UUID) && !id1.equals(id3), "createTopics: topic ids " + id1 + ", " + id3);
        expectThrows(TopicExistsException.class, "createTopics: again", () -> createTopics(a, topic("a1", 3)));
        expectThrows(InvalidTopicException.class, "createTopics: a name with a space",
                () -> createTopics(a, topic("bad name", 1)));
        expectThrows(InvalidTopicException.class, "createTopics: a 250-character name",
                () -> createTopics(a, topic(String.join("", Collections.nCopies(250, "x")), 1)));
        get(a.createTopics(Collections.singleton(new NewTopic("a-assigned", Collections.singletonMap(0,
                Collections.singletonList(1))))).all());
        ok("createTopics: a replica assignment [1]");
        expectThrows(InvalidReplicaAssignmentException.class, "createTopics: an assignment to an unknown broker",
                () -> get(a.createTopics(Collections.singleton(new NewTopic("a-bad", Collections.singletonMap(0,
                        Collections.singletonList(2))))).all()));
        expectThrows(InvalidReplicaAssignmentException.class, "createTopics: a broker twice in an assignment",
                () -> get(a.createTopics(Collections.singleton(new NewTopic("a-bad", Collections.singletonMap(0,
                        Arrays.asList(1, 1))))).all()));
        get(a.createTopics(Collections.singleton(topic("a-only", 1)), new CreateTopicsOptions().validateOnly(true)).all());
        Set<String> ns = names();
        check(ns.containsAll(Arrays.asList("a1", "a2", "a3")) && !ns.contains("a-only"),
                "listTopics: the new topics, not the validated one: " + ns);

        TopicDescription d = describe("a1");
        eq("a1", d.name(), "describeTopics: name");
        eq(id1, d.topicId(), "describeTopics: the topic id");
        eq(false, d.isInternal(), "describeTopics: not internal");
        eq(3, d.partitions().size(), "describeTopics: partitions");
        for (TopicPartitionInfo p : d.partitions()) {
            if (p.leader() == null || p.leader().id() != 1 || p.replicas().size() != 1 || p.replicas().get(0).id() != 1
                    || p.isr().size() != 1 || p.isr().get(0).id() != 1)
                throw new Fail("describeTopics: partition " + p);
        }
        ok("describeTopics: each partition led by broker 1, replicas [1], isr [1]");
        section("describeTopics by id", () -> {
            TopicDescription byId = get(a.describeTopics(TopicCollection.ofTopicIds(Collections.singleton(id3)))
                    .allTopicIds()).get(id3);
            eq("a3 2", byId.name() + " " + byId.partitions().size(), "describeTopics by topic id");
        });
        expectThrows(UnknownTopicOrPartitionException.class, "describeTopics: an unknown topic",
                () -> describe("no-such"));
        section("describeTopics in pages", () -> {
            // DescribeTopicPartitions (when the broker has it) pages with a
            // cursor: 4 partitions a response across two topics
            createTopics(a, topic("a-many", 25));
            Map<String, TopicDescription> m = get(a.describeTopics(Arrays.asList("a1", "a-many"),
                    new DescribeTopicsOptions().partitionSizeLimitPerResponse(4)).allTopicNames());
            List<Integer> ps = new ArrayList<>();
            for (TopicPartitionInfo p : m.get("a-many").partitions())
                ps.add(p.partition());
            List<Integer> want = new ArrayList<>();
            for (int i = 0; i < 25; i++)
                want.add(i);
            eq(want, ps, "describeTopics 4 partitions a response: a-many's");
            eq(3, m.get("a1").partitions().size(), "describeTopics 4 partitions a response: a1's");
            TopicDescription ops = get(a.describeTopics(Collections.singleton("a1"),
                    new DescribeTopicsOptions().includeAuthorizedOperations(true)).allTopicNames()).get("a1");
            eq(new TreeSet<>(Arrays.asList("READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE",
                    "DESCRIBE_CONFIGS", "ALTER_CONFIGS")), opNames(ops.authorizedOperations()),
                    "describeTopics: authorized operations without an authorizer");
        });

        get(a.createPartitions(Collections.singletonMap("a1", NewPartitions.increaseTo(5))).all());
        waitFor("a1's 5 partitions in the metadata", 5000, () -> describe("a1").partitions().size() == 5);
        eq(5, describe("a1").partitions().size(), "createPartitions: 3 -> 5");
        expectThrows(InvalidPartitionsException.class, "createPartitions: fewer",
                () -> get(a.createPartitions(Collections.singletonMap("a1", NewPartitions.increaseTo(4))).all()));
        get(a.createPartitions(Collections.singletonMap("a1", NewPartitions.increaseTo(6,
                Collections.singletonList(Collections.singletonList(1))))).all());
        ok("createPartitions: 5 -> 6 with an assignment [1]");
        expectThrows(InvalidReplicaAssignmentException.class, "createPartitions: an assignment to an unknown broker",
                () -> get(a.createPartitions(Collections.singletonMap("a1", NewPartitions.increaseTo(7,
                        Collections.singletonList(Collections.singletonList(2))))).all()));
        waitFor("a1's 6 partitions in the metadata", 5000, () -> describe("a1").partitions().size() == 6);
        expectThrows(UnknownTopicOrPartitionException.class, "createPartitions: an unknown topic",
                () -> get(a.createPartitions(Collections.singletonMap("no-such", NewPartitions.increaseTo(4))).all()));

        get(a.deleteTopics(Collections.singleton("a2")).all());
        get(a.deleteTopics(TopicCollection.ofTopicIds(Collections.singleton(id3))).all());
        waitFor("deleted topics gone from listTopics", 10000,
                () -> !names().contains("a2") && !names().contains("a3"));
        ok("deleteTopics by name and by id: gone from listTopics");
        expectThrows(UnknownTopicOrPartitionException.class, "deleteTopics: again",
                () -> get(a.deleteTopics(Collections.singleton("a2")).all()));
        expectThrows(UnknownTopicIdException.class, "deleteTopics: an unknown id",
                () -> get(a.deleteTopics(TopicCollection.ofTopicIds(Collections.singleton(id3))).all()));
    }

    static Map<String, ConfigEntry> cfg(ConfigResource r) throws Exception {
        Config c = get(a.describeConfigs(Collections.singleton(r),
                new DescribeConfigsOptions().includeSynonyms(true)).all()).get(r);
        Map<String, ConfigEntry> m = new HashMap<>();
        for (ConfigEntry e : c.entries())
            m.put(e.name(), e);
        return m;
    }

    static void expectCfg(ConfigResource r, String name, String value, ConfigEntry.ConfigSource src) throws Exception {
        ConfigEntry e = cfg(r).get(name);
        if (e == null)
            throw new Fail(r + ": " + name + " not described");
        eq(value + " " + src, e.value() + " " + e.source(), r.name() + ": " + name);
    }

    /** Dynamic broker configs reach the broker through the metadata log
     * in Kafka: waits up to 5 s for the value. */
    static void awaitCfg(ConfigResource r, String name, String value, ConfigEntry.ConfigSource src) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        while (System.currentTimeMillis() < deadline) {
            ConfigEntry e = cfg(r).get(name);
            if (e != null && Objects.equals(e.value(), value) && e.source() == src)
                break;
            sleep(50);
        }
        expectCfg(r, name, value, src);
    }

    static void alter(ConfigResource r, AlterConfigOp.OpType op, String name, String value) throws Exception {
        get(a.incrementalAlterConfigs(Collections.singletonMap(r,
                Collections.singleton(new AlterConfigOp(new ConfigEntry(name, value), op)))).all());
    }

    static String synonyms(ConfigEntry e) {
        List<String> l = new ArrayList<>();
        for (ConfigEntry.ConfigSynonym s : e.synonyms())
            l.add(s.name() + "=" + s.value() + " " + s.source());
        return l.toString();
    }

    static void configs() throws Exception {
        ConfigResource t = new ConfigResource(ConfigResource.Type.TOPIC, "a1");
        Map<String, ConfigEntry> c = cfg(t);
        ConfigEntry rm = c.get("retention.ms");
        eq("3600000 DYNAMIC_TOPIC_CONFIG false false false",
                rm.value() + " " + rm.source() + " " + rm.isDefault() + " " + rm.isReadOnly() + " " + rm.isSensitive(),
                "describeConfigs: a topic's retention.ms (value, source, default, read-only, sensitive)");
        eq(ConfigEntry.ConfigType.LONG, rm.type(), "describeConfigs: its type");
        // Kafka's synonyms start at the broker config the topic config is
        // named after (log.retention.ms): unset, the broker's others are
        // left out
        section("topic config synonyms", () -> eq("[retention.ms=3600000 DYNAMIC_TOPIC_CONFIG]", synonyms(rm),
                "describeConfigs: its synonyms"));
        ConfigEntry cp = c.get("cleanup.policy");
        eq("delete DEFAULT_CONFIG true", cp.value() + " " + cp.source() + " " + cp.isDefault(),
                "describeConfigs: a default");
        eq(ConfigEntry.ConfigType.LIST, cp.type(), "describeConfigs: cleanup.policy's type");
        alter(t, AlterConfigOp.OpType.SET, "retention.ms", "7200000");
        alter(t, AlterConfigOp.OpType.APPEND, "cleanup.policy", "compact");
        expectCfg(t, "retention.ms", "7200000", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        expectCfg(t, "cleanup.policy", "delete,compact", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        alter(t, AlterConfigOp.OpType.SUBTRACT, "cleanup.policy", "delete");
        expectCfg(t, "cleanup.policy", "compact", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        alter(t, AlterConfigOp.OpType.DELETE, "retention.ms", null);
        expectCfg(t, "retention.ms", "604800000", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        get(a.incrementalAlterConfigs(Collections.singletonMap(t, Collections.singleton(new AlterConfigOp(
                new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET))),
                new AlterConfigsOptions().validateOnly(true)).all());
        expectCfg(t, "retention.ms", "604800000", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        expectThrows(InvalidConfigurationException.class, "incrementalAlterConfigs: retention.ms=abc",
                () -> alter(t, AlterConfigOp.OpType.SET, "retention.ms", "abc"));
        expectThrows(InvalidConfigurationException.class, "incrementalAlterConfigs: an unknown topic config",
                () -> alter(t, AlterConfigOp.OpType.SET, "no.such.config", "1"));
        expectThrows(UnknownTopicOrPartitionException.class, "incrementalAlterConfigs: an unknown topic",
                () -> alter(new ConfigResource(ConfigResource.Type.TOPIC, "no-such"), AlterConfigOp.OpType.SET,
                        "retention.ms", "1000"));
        expectThrows(UnknownTopicOrPartitionException.class, "describeConfigs: an unknown topic",
                () -> cfg(new ConfigResource(ConfigResource.Type.TOPIC, "no-such")));

        section("broker configs", Admins::brokerConfigs);
    }

    static void brokerConfigs() throws Exception {
        ConfigResource t = new ConfigResource(ConfigResource.Type.TOPIC, "a1");
        // this broker's configs, and its dynamic ones
        ConfigResource b = new ConfigResource(ConfigResource.Type.BROKER, "1");
        awaitCfg(b, "offsets.topic.replication.factor", "1", ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
        awaitCfg(b, "log.retention.hours", "168", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        alter(b, AlterConfigOp.OpType.SET, "log.segment.bytes", "536870912");
        awaitCfg(b, "log.segment.bytes", "536870912", ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
        eq("[log.segment.bytes=536870912 DYNAMIC_BROKER_CONFIG, log.segment.bytes=1073741824 DEFAULT_CONFIG]",
                synonyms(cfg(b).get("log.segment.bytes")), "describeConfigs: a dynamic broker config's synonyms");
        awaitCfg(t, "segment.bytes", "536870912", ConfigEntry.ConfigSource.DYNAMIC_BROKER_CONFIG);
        alter(b, AlterConfigOp.OpType.DELETE, "log.segment.bytes", null);
        awaitCfg(b, "log.segment.bytes", "1073741824", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        // the cluster-wide default
        ConfigResource all = new ConfigResource(ConfigResource.Type.BROKER, "");
        alter(all, AlterConfigOp.OpType.SET, "log.retention.ms", "86400000");
        awaitCfg(b, "log.retention.ms", "86400000", ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        awaitCfg(t, "retention.ms", "86400000", ConfigEntry.ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        alter(all, AlterConfigOp.OpType.DELETE, "log.retention.ms", null);
        awaitCfg(t, "retention.ms", "604800000", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        expectThrows(InvalidRequestException.class, "incrementalAlterConfigs: a broker config that is not dynamic",
                () -> alter(b, AlterConfigOp.OpType.SET, "log.dirs", "/nowhere"));
    }

    static String state(ConsumerGroupDescription d) {
        return String.valueOf(d.state());
    }

    static void groups() throws Exception {
        createTopics(a, topic("ag-t", 2));
        try (KafkaProducer<String, String> p = producer()) {
            for (int i = 0; i < 10; i++)
                p.send(new ProducerRecord<>("ag-t", i % 2, "k" + i, "v" + i));
            p.flush();
        }
        TopicPartition p0 = new TopicPartition("ag-t", 0), p1 = new TopicPartition("ag-t", 1);
        Set<TopicPartition> both = new HashSet<>(Arrays.asList(p0, p1));
        KafkaConsumer<String, String> c = consumer("ag", "client.id", "j-adm-consumer");
        try {
            c.subscribe(Collections.singleton("ag-t"));
            int n = 0;
            long deadline = System.currentTimeMillis() + 20000;
            while (n < 10 && System.currentTimeMillis() < deadline)
                n += c.poll(Duration.ofMillis(100)).count();
            eq(10, n, "group ag: records read");
            c.commitSync();
            ConsumerGroupListing l = null;
            for (ConsumerGroupListing g : get(a.listConsumerGroups().all()))
                if (g.groupId().equals("ag"))
                    l = g;
            check(l != null, "listConsumerGroups: ag");
            eq("Optional[Stable] false", l.state() + " " + l.isSimpleConsumerGroup(), "listConsumerGroups: its state");
            Collection<ConsumerGroupListing> stable = get(a.listConsumerGroups(new ListConsumerGroupsOptions()
                    .inStates(Collections.singleton(ConsumerGroupState.EMPTY))).all());
            for (ConsumerGroupListing g : stable)
                if (g.groupId().equals("ag"))
                    throw new Fail("listConsumerGroups: ag listed as Empty");
            ok("listConsumerGroups: ag not among the Empty ones");
            ConsumerGroupDescription d = get(a.describeConsumerGroups(Collections.singleton("ag")).all()).get("ag");
            eq("Stable range 1", state(d) + " " + d.partitionAssignor() + " " + d.members().size(),
                    "describeConsumerGroups: state, assignor, members");
            MemberDescription m = d.members().iterator().next();
            eq("j-adm-consumer /127.0.0.1", m.clientId() + " " + m.host(), "describeConsumerGroups: the member");
            eq(both, m.assignment().topicPartitions(), "describeConsumerGroups: its assignment");
            eq(1, d.coordinator().id(), "describeConsumerGroups: the coordinator");
            Map<TopicPartition, OffsetAndMetadata> offs = get(a.listConsumerGroupOffsets("ag").partitionsToOffsetAndMetadata());
            eq(5L + " " + 5L, offs.get(p0).offset() + " " + offs.get(p1).offset(), "listConsumerGroupOffsets");
            expectThrows(UnknownMemberIdException.class, "alterConsumerGroupOffsets: an active group",
                    () -> get(a.alterConsumerGroupOffsets("ag", Collections.singletonMap(p0, new OffsetAndMetadata(1))).all()));
            expectThrows(GroupSubscribedToTopicException.class, "deleteConsumerGroupOffsets: a subscribed topic",
                    () -> get(a.deleteConsumerGroupOffsets("ag", Collections.singleton(p0)).all()));
            expectThrows(GroupNotEmptyException.class, "deleteConsumerGroups: an active group",
                    () -> get(a.deleteConsumerGroups(Collections.singleton("ag")).all()));
        } finally {
            c.close();
        }
        ConsumerGroupDescription d = get(a.describeConsumerGroups(Collections.singleton("ag")).all()).get("ag");
        eq("Empty 0", state(d) + " " + d.members().size(), "describeConsumerGroups: after the member left");
        get(a.alterConsumerGroupOffsets("ag", Collections.singletonMap(p0, new OffsetAndMetadata(1, "by-admin"))).all());
        Map<TopicPartition, OffsetAndMetadata> offs = get(a.listConsumerGroupOffsets("ag").partitionsToOffsetAndMetadata());
        eq("1 by-admin 5", offs.get(p0).offset() + " " + offs.get(p0).metadata() + " " + offs.get(p1).offset(),
                "alterConsumerGroupOffsets: an empty group");
        get(a.deleteConsumerGroupOffsets("ag", Collections.singleton(p1)).all());
        offs = get(a.listConsumerGroupOffsets("ag").partitionsToOffsetAndMetadata());
        eq(Collections.singleton(p0), offs.keySet(), "deleteConsumerGroupOffsets: one partition's offset gone");
        get(a.deleteConsumerGroups(Collections.singleton("ag")).all());
        for (ConsumerGroupListing g : get(a.listConsumerGroups().all()))
            if (g.groupId().equals("ag"))
                throw new Fail("listConsumerGroups: ag after its deletion");
        ok("deleteConsumerGroups: gone from listConsumerGroups");
        eq(Collections.emptyMap(), get(a.listConsumerGroupOffsets("ag").partitionsToOffsetAndMetadata()),
                "listConsumerGroupOffsets: a deleted group");
        expectThrows(GroupIdNotFoundException.class, "deleteConsumerGroups: an unknown group",
                () -> get(a.deleteConsumerGroups(Collections.singleton("ag")).all()));
        if (version.startsWith("3.")) {
            // DescribeGroups v5 has no error for it: the group is Dead
            eq("Dead 0", state(get(a.describeConsumerGroups(Collections.singleton("never")).all()).get("never"))
                    + " " + get(a.describeConsumerGroups(Collections.singleton("never")).all()).get("never")
                    .members().size(), "describeConsumerGroups: an unknown group");
        } else {
            expectThrows(GroupIdNotFoundException.class, "describeConsumerGroups: an unknown group (v6)",
                    () -> get(a.describeConsumerGroups(Collections.singleton("never")).all()));
        }
        // offsets committed by the admin make a simple (Empty) group
        get(a.alterConsumerGroupOffsets("ag-simple", Collections.singletonMap(p0, new OffsetAndMetadata(1000))).all());
        d = get(a.describeConsumerGroups(Collections.singleton("ag-simple")).all()).get("ag-simple");
        eq("Empty true 0", state(d) + " " + d.isSimpleConsumerGroup() + " " + d.members().size(),
                "alterConsumerGroupOffsets: a new simple group");
        eq(1000L, get(a.listConsumerGroupOffsets("ag-simple").partitionsToOffsetAndMetadata()).get(p0).offset(),
                "alterConsumerGroupOffsets: past the end, as given");
        expectThrows(UnknownTopicOrPartitionException.class, "alterConsumerGroupOffsets: an unknown topic",
                () -> get(a.alterConsumerGroupOffsets("ag-simple", Collections.singletonMap(
                        new TopicPartition("no-such", 0), new OffsetAndMetadata(1))).all()));
        Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
        specs.put("ag", new ListConsumerGroupOffsetsSpec());
        specs.put("ag-simple", new ListConsumerGroupOffsetsSpec());
        ListConsumerGroupOffsetsResult two = a.listConsumerGroupOffsets(specs);
        eq("{} [ag-t-0]", get(two.partitionsToOffsetAndMetadata("ag")) + " "
                + get(two.partitionsToOffsetAndMetadata("ag-simple")).keySet(), "listConsumerGroupOffsets: two groups at once");
        listGroups();
        Set<String> internal = get(a.listTopics(new ListTopicsOptions().listInternal(true)).names());
        check(internal.contains("__consumer_offsets") && !names().contains("__consumer_offsets"),
                "listTopics: __consumer_offsets only with listInternal");
        eq(true, describe("__consumer_offsets").isInternal(), "describeTopics: __consumer_offsets is internal");
    }

    /** Admin.listGroups (4.1+, every group type): by reflection, so that
     * this compiles against 3.9. */
    static void listGroups() throws Exception {
        java.lang.reflect.Method m;
        try {
            m = Admin.class.getMethod("listGroups");
        } catch (NoSuchMethodException e) {
            note("no Admin.listGroups (4.1+)");
            return;
        }
        Object r = m.invoke(a);
        Collection<?> gs = (Collection<?>) get((KafkaFuture<?>) r.getClass().getMethod("all").invoke(r));
        List<String> l = new ArrayList<>();
        for (Object g : gs) {
            String id = (String) g.getClass().getMethod("groupId").invoke(g);
            Object type = g.getClass().getMethod("type").invoke(g);
            Object st = g.getClass().getMethod("groupState").invoke(g);
            l.add(id + " " + type + " " + st);
        }
        Collections.sort(l);
        eq("[ag-simple Optional[Classic] Optional[Empty]]", l.toString(), "listGroups: every group, its type and state");
    }

    static Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> list(TopicPartition tp, OffsetSpec spec,
                                                                           IsolationLevel iso) throws Exception {
        return get(a.listOffsets(Collections.singletonMap(tp, spec), new ListOffsetsOptions(iso)).all());
    }

    static String lo(TopicPartition tp, OffsetSpec spec) throws Exception {
        ListOffsetsResult.ListOffsetsResultInfo i = list(tp, spec, IsolationLevel.READ_UNCOMMITTED).get(tp);
        return i.offset() + "@" + i.timestamp();
    }

    static long base;

    static void records() throws Exception {
        base = System.currentTimeMillis() - 3_600_000;
        createTopics(a, topic("dr", 1), topic("lo", 1));
        long[] ts = {0, 1000, 2000, 9000, 4000};
        try (KafkaProducer<String, String> p = producer("linger.ms", "0")) {
            for (int i = 0; i < 20; i++)
                get(p.send(new ProducerRecord<>("dr", 0, "k" + i, "v" + i)));
            for (int i = 0; i < ts.length; i++)
                get(p.send(new ProducerRecord<>("lo", 0, base + ts[i], "k" + i, "v" + i)));
        }
        TopicPartition dr = new TopicPartition("dr", 0), lo = new TopicPartition("lo", 0);
        eq(5L, get(a.deleteRecords(Collections.singletonMap(dr, RecordsToDelete.beforeOffset(5))).lowWatermarks()
                .get(dr)).lowWatermark(), "deleteRecords: the low watermark");
        eq(5L, list(dr, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED).get(dr).offset(),
                "listOffsets earliest after deleteRecords");
        eq(Arrays.asList(5L, 6L), offsets(readAll("dr", 1)).subList(0, 2), "the records from the low watermark");
        expectThrows(OffsetOutOfRangeException.class, "deleteRecords: past the high watermark",
                () -> get(a.deleteRecords(Collections.singletonMap(dr, RecordsToDelete.beforeOffset(100))).all()));
        eq(20L, get(a.deleteRecords(Collections.singletonMap(dr, RecordsToDelete.beforeOffset(-1))).lowWatermarks()
                .get(dr)).lowWatermark(), "deleteRecords: -1, to the high watermark");
        eq(Collections.emptyList(), readAll("dr", 1), "no records left");

        eq("0@-1", lo(lo, OffsetSpec.earliest()), "listOffsets: earliest");
        eq("5@-1", lo(lo, OffsetSpec.latest()), "listOffsets: latest");
        eq("3@" + (base + 9000), lo(lo, OffsetSpec.maxTimestamp()), "listOffsets: max timestamp");
        eq("2@" + (base + 2000), lo(lo, OffsetSpec.forTimestamp(base + 1500)), "listOffsets: by time");
        eq("3@" + (base + 9000), lo(lo, OffsetSpec.forTimestamp(base + 3000)), "listOffsets: by time, the first at or after");
        eq("-1@-1", lo(lo, OffsetSpec.forTimestamp(base + 10000)), "listOffsets: by time, after the last");
        eq("0@-1", lo(lo, OffsetSpec.earliestLocal()), "listOffsets: earliest local");
        eq("-1@-1", lo(lo, OffsetSpec.latestTiered()), "listOffsets: latest tiered (no tiered storage)");
        section("listOffsets of an empty partition, and in a compressed batch", () -> {
            createTopics(a, topic("lo-empty", 1), topic("lo-batch", 1));
            TopicPartition e = new TopicPartition("lo-empty", 0), b = new TopicPartition("lo-batch", 0);
            eq("0@-1 0@-1 -1@-1 -1@-1", lo(e, OffsetSpec.earliest()) + " " + lo(e, OffsetSpec.latest()) + " "
                    + lo(e, OffsetSpec.maxTimestamp()) + " " + lo(e, OffsetSpec.forTimestamp(base)),
                    "listOffsets of an empty partition: earliest, latest, max timestamp, by time");
            long[] bts = {0, 9000, 2000, 3000, 4000};
            try (KafkaProducer<String, String> p = producer("linger.ms", "100", "compression.type", "zstd")) {
                for (int i = 0; i < bts.length; i++)
                    p.send(new ProducerRecord<>("lo-batch", 0, base + bts[i], "k" + i, "v" + i));
                p.flush();
            }
            eq("1@" + (base + 9000), lo(b, OffsetSpec.maxTimestamp()),
                    "listOffsets max timestamp inside one compressed batch: that record's offset");
            eq("1@" + (base + 9000), lo(b, OffsetSpec.forTimestamp(base + 1500)),
                    "listOffsets by time inside one compressed batch: the first record at or after, by offset");
        });
    }

    static void cluster() throws Exception {
        DescribeClusterResult r = a.describeCluster();
        Collection<Node> nodes = get(r.nodes());
        String port = bootstrap.substring(bootstrap.lastIndexOf(':') + 1);
        eq("[1 127.0.0.1:" + port + "]", nodes.stream().map(n -> n.id() + " " + n.host() + ":" + n.port())
                .collect(java.util.stream.Collectors.toList()).toString(), "describeCluster: the nodes");
        eq(1, get(r.controller()).id(), "describeCluster: the controller");
        Properties meta = new Properties();
        try (FileInputStream in = new FileInputStream(System.getenv("GR_DATA_DIR") + "/meta.properties")) {
            meta.load(in);
        }
        eq(meta.getProperty("cluster.id"), get(r.clusterId()), "describeCluster: the cluster id of meta.properties");
    }

    static void transactions() throws Exception {
        createTopics(a, topic("atx-t", 1));
        TopicPartition tp = new TopicPartition("atx-t", 0);
        KafkaProducer<String, String> p = producer("transactional.id", "atx", "transaction.timeout.ms", "30000",
                "linger.ms", "0");
        try {
            p.initTransactions();
            p.beginTransaction();
            eq(0L, get(p.send(new ProducerRecord<>("atx-t", 0, "k", "open"))).offset(), "atx: a record in a transaction");
            sleep(50);
            TransactionListing l = null;
            for (TransactionListing t : get(a.listTransactions().all()))
                if (t.transactionalId().equals("atx"))
                    l = t;
            check(l != null, "listTransactions: atx");
            eq(TransactionState.ONGOING, l.state(), "listTransactions: its state");
            long pid = l.producerId();
            eq(Collections.singletonList("atx"), txnIds(new ListTransactionsOptions()
                    .filterStates(Collections.singleton(TransactionState.ONGOING))), "listTransactions: Ongoing ones");
            eq(Collections.emptyList(), txnIds(new ListTransactionsOptions()
                    .filterStates(Collections.singleton(TransactionState.COMPLETE_COMMIT))), "listTransactions: CompleteCommit ones");
            eq(Collections.singletonList("atx"), txnIds(new ListTransactionsOptions()
                    .filterProducerIds(Collections.singleton(pid))), "listTransactions: by producer id");
            eq(Collections.singletonList("atx"), txnIds(new ListTransactionsOptions().filterOnDuration(10)),
                    "listTransactions: running over 10 ms");
            eq(Collections.emptyList(), txnIds(new ListTransactionsOptions().filterOnDuration(3_600_000)),
                    "listTransactions: running over an hour");
            TransactionDescription d = get(a.describeTransactions(Collections.singleton("atx")).all()).get("atx");
            eq("Ongoing " + pid + " 30000 [atx-t-0] 1", d.state() + " " + d.producerId() + " " + d.transactionTimeoutMs()
                    + " " + d.topicPartitions() + " " + d.coordinatorId(),
                    "describeTransactions: state, producer, timeout, partitions, coordinator");
            check(d.transactionStartTimeMs().isPresent(), "describeTransactions: a start time");
            expectThrows(TransactionalIdNotFoundException.class, "describeTransactions: an unknown id",
                    () -> get(a.describeTransactions(Collections.singleton("no-such")).all()));
            List<ProducerState> ps = get(a.describeProducers(Collections.singleton(tp)).partitionResult(tp)).activeProducers();
            eq(1, ps.size(), "describeProducers: one producer");
            ProducerState s = ps.get(0);
            eq(pid + " " + d.producerEpoch() + " " + OptionalLong.of(0), s.producerId() + " " + s.producerEpoch() + " "
                    + s.currentTransactionStartOffset(), "describeProducers: producer, epoch, the open transaction's start");
            eq(0L, list(tp, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED).get(tp).offset(),
                    "listOffsets read_committed: the LSO");
            eq(1L, list(tp, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED).get(tp).offset(),
                    "listOffsets read_uncommitted: the high watermark");
            eq(OptionalInt.empty(), s.coordinatorEpoch(), "describeProducers: no coordinator epoch before a marker");
            // as kafka-transactions.sh abort does without one
            get(a.abortTransaction(new AbortTransactionSpec(tp, pid, (short) s.producerEpoch(),
                    s.coordinatorEpoch().orElse(0))).all());
            s = get(a.describeProducers(Collections.singleton(tp)).partitionResult(tp)).activeProducers().get(0);
            eq(OptionalLong.empty(), s.currentTransactionStartOffset(), "abortTransaction: the partition's transaction ended");
            eq(2L, list(tp, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED).get(tp).offset(),
                    "abortTransaction: the LSO past the abort marker");
            eq(Collections.emptyList(), readAll(Collections.singletonList(tp), "read_committed"),
                    "abortTransaction: read_committed sees nothing");
            p.abortTransaction();
            eq(TransactionState.COMPLETE_ABORT, txnState("atx", TransactionState.COMPLETE_ABORT),
                    "describeTransactions: after the producer's abort (its markers written)");
        } finally {
            p.close(Duration.ofSeconds(5));
        }
        KafkaProducer<String, String> q = producer("transactional.id", "atx2", "linger.ms", "0");
        try {
            q.initTransactions();
            q.beginTransaction();
            get(q.send(new ProducerRecord<>("atx-t", 0, "k", "fenced")));
            get(a.fenceProducers(Collections.singleton("atx2")).all());
            expectThrows(ProducerFencedException.class, "fenceProducers: the producer's commit",
                    q::commitTransaction);
        } finally {
            q.close(Duration.ofSeconds(5));
        }
        eq(Collections.emptyList(), readAll(Collections.singletonList(tp), "read_committed"),
                "fenceProducers: its transaction aborted");
        eq(TransactionState.EMPTY, txnState("atx2", TransactionState.EMPTY),
                "describeTransactions: the fenced id, its epoch bumped");
        eq("[0, 3] 5@-1", offsets(readAll(Collections.singletonList(tp), "read_uncommitted")) + " "
                + lo(tp, OffsetSpec.latest()), "atx-t: the records around the markers");
    }

    /** The state of id once it is want (the markers are written after
     * EndTxn answers), or after 5 s. */
    static TransactionState txnState(String id, TransactionState want) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        TransactionState st;
        do {
            st = get(a.describeTransactions(Collections.singleton(id)).all()).get(id).state();
        } while (st != want && System.currentTimeMillis() < deadline);
        return st;
    }

    /** The atx* transactional ids listTransactions lists with o. */
    static List<String> txnIds(ListTransactionsOptions o) throws Exception {
        List<String> l = new ArrayList<>();
        for (TransactionListing t : get(a.listTransactions(o).all()))
            if (t.transactionalId().startsWith("atx"))
                l.add(t.transactionalId());
        Collections.sort(l);
        return l;
    }

    static void leadersAndLogDirs() throws Exception {
        TopicPartition a10 = new TopicPartition("a1", 0);
        Map<TopicPartition, Optional<Throwable>> r = get(a.electLeaders(ElectionType.PREFERRED,
                Collections.singleton(a10)).partitions());
        check(r.get(a10).isPresent() && r.get(a10).get() instanceof ElectionNotNeededException,
                "electLeaders PREFERRED: ElectionNotNeededException (" + r.get(a10) + ")");
        r = get(a.electLeaders(ElectionType.UNCLEAN, Collections.singleton(a10)).partitions());
        check(r.get(a10).isPresent() && r.get(a10).get() instanceof ElectionNotNeededException,
                "electLeaders UNCLEAN: ElectionNotNeededException (" + r.get(a10) + ")");
        r = get(a.electLeaders(ElectionType.PREFERRED, null).partitions());
        eq(Collections.emptyMap(), r, "electLeaders PREFERRED on every partition: none needed");
        TopicPartition nope = new TopicPartition("no-such", 0);
        r = get(a.electLeaders(ElectionType.PREFERRED, Collections.singleton(nope)).partitions());
        check(r.get(nope).isPresent() && r.get(nope).get() instanceof UnknownTopicOrPartitionException,
                "electLeaders: an unknown partition (" + r.get(nope) + ")");

        String dir = System.getenv("GR_DATA_DIR");
        Map<Integer, Map<String, LogDirDescription>> dirs = get(a.describeLogDirs(Collections.singleton(1))
                .allDescriptions());
        eq(Collections.singleton(dir), dirs.get(1).keySet(), "describeLogDirs: the log dir");
        LogDirDescription ld = dirs.get(1).get(dir);
        eq(null, ld.error(), "describeLogDirs: no error");
        ReplicaInfo ri = ld.replicaInfos().get(new TopicPartition("lo", 0));
        check(ri != null && ri.size() > 0 && ri.offsetLag() == 0 && !ri.isFuture(), "describeLogDirs: lo-0 " + ri);
        check(ld.replicaInfos().containsKey(new TopicPartition("a1", 4)), "describeLogDirs: a1-4");
        check(ld.totalBytes().isPresent() && ld.usableBytes().isPresent()
                        && ld.usableBytes().getAsLong() <= ld.totalBytes().getAsLong() && ld.totalBytes().getAsLong() > 0,
                "describeLogDirs: total " + ld.totalBytes() + " and usable " + ld.usableBytes() + " bytes");
        TopicPartitionReplica rep = new TopicPartitionReplica("lo", 0, 1);
        DescribeReplicaLogDirsResult.ReplicaLogDirInfo info = get(a.describeReplicaLogDirs(Collections.singleton(rep)).all()).get(rep);
        eq(dir, info.getCurrentReplicaLogDir(), "describeReplicaLogDirs: lo-0's dir");
    }
}
