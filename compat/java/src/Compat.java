// compat/java/src/Compat.java: the Java client's scenarios against gregor,
// one source compiled against each pinned kafka-clients (compat/java/
// scenarios.sh). Usage: java Compat TEST VERSION; the broker is
// $GR_BOOTSTRAP. Every check prints "ok: ..."; the first failed one prints
// "FAIL: ..." and exits 1. What the client cannot express is printed as a
// line "# java VERSION: ...".
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class Compat {
    static String bootstrap;
    static String version;
    static int checks;

    static class Fail extends RuntimeException {
        Fail(String m) { super(m); }
    }

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: Compat TEST VERSION");
            System.exit(2);
        }
        bootstrap = System.getenv("GR_BOOTSTRAP");
        version = args[1];
        long t0 = System.nanoTime();
        int rc = 0;
        try {
            eq(version, clientVersion(), "kafka-clients version on the classpath");
            if (System.getenv("GR_COMPAT_CLEAN") != null)
                clean();
            switch (args[0]) {
            case "producer": Producers.run(); break;
            case "producer-errors": Producers.errors(); break;
            case "txn": Txns.run(); break;
            case "group": Groups.run(); break;
            case "consumer-group": ConsumerGroups.run(); break;
            case "consumer-group-child": ConsumerGroups.child(); break;
            case "positions": Positions.run(); break;
            case "admin": Admins.run(); break;
            case "scram": Scrams.run(); break;
            case "scram-ssl-made": Scrams.tls("made"); break;
            case "scram-ssl-again": Scrams.tls("again"); break;
            default: throw new Fail("unknown test " + args[0]);
            }
            endSections();
        } catch (Throwable t) {
            System.out.println("FAIL: " + t);
            if (!(t instanceof Fail))
                t.printStackTrace(System.out);
            rc = 1;
        }
        System.out.printf("java %s %s: %d checks passed%s in %.1f s%n", version, args[0], checks,
                rc == 0 ? "" : " before the failure", (System.nanoTime() - t0) / 1e9);
        System.out.flush();
        // client threads left by a failure must not keep the JVM
        Runtime.getRuntime().halt(rc);
    }

    static String clientVersion() throws java.io.IOException {
        Properties p = new Properties();
        try (java.io.InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            p.load(in);
        }
        return p.getProperty("version");
    }

    /** For a run against a reused broker (a reference Kafka): deletes
     * every topic and group first. */
    static void clean() throws Exception {
        try (Admin a = admin()) {
            Set<String> ts = get(a.listTopics().names());
            get(a.deleteTopics(ts).all());
            List<String> gs = new ArrayList<>();
            for (org.apache.kafka.clients.admin.ConsumerGroupListing g : get(a.listConsumerGroups().all()))
                gs.add(g.groupId());
            try {
                get(a.deleteConsumerGroups(gs).all());
            } catch (ExecutionException e) {
                System.out.println("clean: " + e.getCause());
            }
            waitFor("topics deleted", 10000, () -> get(a.listTopics().names()).isEmpty());
        }
    }

    // --- checks

    static void ok(String what) {
        checks++;
        System.out.println("ok: " + what);
    }

    static void check(boolean cond, String what) {
        if (!cond)
            throw new Fail(what);
        ok(what);
    }

    static void eq(Object want, Object got, String what) {
        if (!Objects.equals(want, got))
            throw new Fail(what + ": want " + want + ", got " + got);
        ok(what + ": " + abbrev(got));
    }

    static String abbrev(Object o) {
        String s = String.valueOf(o);
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    static void note(String what) {
        System.out.println("# java " + version + ": " + what);
    }

    interface Body { void run() throws Exception; }

    static List<String> failedSections = new ArrayList<>();

    /** Runs one part of a test; a failure is printed and the next part
     * runs (the test fails at its end, see endSections). */
    static void section(String name, Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            System.out.println("FAIL: " + name + ": " + t);
            if (!(t instanceof Fail))
                t.printStackTrace(System.out);
            failedSections.add(name + ": " + t);
        }
    }

    /** Fails the test if a section failed (main calls it after every
     * test; a test may call it sooner). */
    static void endSections() {
        if (failedSections.isEmpty())
            return;
        for (String f : failedSections)
            System.out.println("FAILED " + f);
        int n = failedSections.size();
        failedSections.clear();
        throw new Fail(n + " part(s) failed");
    }

    /** Runs body, which must fail with an exception of class want (itself or
     * as the cause of an ExecutionException/KafkaException); returns it. */
    static <T extends Throwable> T expectThrows(Class<T> want, String what, Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            Throwable e = t;
            while (!want.isInstance(e) && e.getCause() != null
                    && (e instanceof ExecutionException || e instanceof org.apache.kafka.common.KafkaException))
                e = e.getCause();
            if (want.isInstance(e)) {
                ok(what + ": " + e.getClass().getSimpleName() + " (" + e.getMessage() + ")");
                return want.cast(e);
            }
            throw new Fail(what + ": want " + want.getSimpleName() + ", got " + t);
        }
        throw new Fail(what + ": no error, want " + want.getSimpleName());
    }

    static <T> T get(Future<T> f) throws Exception {
        return f.get(30, java.util.concurrent.TimeUnit.SECONDS);
    }

    // --- clients: Kafka's slow timers turned down

    static Properties common() {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("request.timeout.ms", "15000");
        p.put("retry.backoff.ms", "50");
        p.put("reconnect.backoff.ms", "50");
        p.put("reconnect.backoff.max.ms", "1000");
        p.put("metadata.max.age.ms", "5000");
        return p;
    }

    static Properties producerProps() {
        Properties p = common();
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    static KafkaProducer<String, String> producer(String... kv) {
        Properties p = producerProps();
        for (int i = 0; i + 1 < kv.length; i += 2)
            p.put(kv[i], kv[i + 1]);
        return new KafkaProducer<>(p);
    }

    static Properties consumerProps(String group) {
        Properties p = common();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        p.put("default.api.timeout.ms", "20000");
        if (group != null) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "100");
        }
        return p;
    }

    static KafkaConsumer<String, String> consumer(String group, String... kv) {
        Properties p = consumerProps(group);
        for (int i = 0; i + 1 < kv.length; i += 2)
            p.put(kv[i], kv[i + 1]);
        return new KafkaConsumer<>(p);
    }

    static Admin admin() {
        Properties p = common();
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        return Admin.create(p);
    }

    static void createTopics(Admin a, NewTopic... topics) throws Exception {
        get(a.createTopics(Arrays.asList(topics)).all());
    }

    static NewTopic topic(String name, int partitions, String... kv) {
        NewTopic t = new NewTopic(name, partitions, (short) 1);
        Map<String, String> c = new HashMap<>();
        for (int i = 0; i + 1 < kv.length; i += 2)
            c.put(kv[i], kv[i + 1]);
        return t.configs(c);
    }

    // --- reading

    static List<TopicPartition> partitions(String topic, int n) {
        List<TopicPartition> l = new ArrayList<>();
        for (int i = 0; i < n; i++)
            l.add(new TopicPartition(topic, i));
        return l;
    }

    /** Every record of the partitions from their beginning to their end
     * offsets (the high watermark, or the LSO for read_committed), by
     * assign(), in partition then offset order. */
    static List<ConsumerRecord<String, String>> readAll(List<TopicPartition> tps, String isolation,
                                                        String... kv) {
        if (isolation.equals("read_committed"))
            settle(tps);
        return readAllNow(tps, isolation, kv);
    }

    /** Waits up to 10 s for the partitions' transactions to end: Kafka
     * writes the markers after EndTxn answers, so the LSO reaches the high
     * watermark a little later. */
    static void settle(List<TopicPartition> tps) {
        try (KafkaConsumer<String, String> rc = consumer(null, "isolation.level", "read_committed");
             KafkaConsumer<String, String> ru = consumer(null, "isolation.level", "read_uncommitted")) {
            long deadline = System.currentTimeMillis() + 10000;
            while (!rc.endOffsets(tps).equals(ru.endOffsets(tps)) && System.currentTimeMillis() < deadline)
                sleep(20);
        }
    }

    /** readAll without waiting for open transactions to end. */
    static List<ConsumerRecord<String, String>> readAllNow(List<TopicPartition> tps, String isolation,
                                                           String... kv) {
        List<String> props = new ArrayList<>(Arrays.asList(kv));
        props.add(ConsumerConfig.ISOLATION_LEVEL_CONFIG);
        props.add(isolation);
        try (KafkaConsumer<String, String> c = consumer(null, props.toArray(new String[0]))) {
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            Map<TopicPartition, List<ConsumerRecord<String, String>>> got = new HashMap<>();
            long deadline = System.currentTimeMillis() + 30000;
            while (true) {
                boolean done = true;
                for (TopicPartition tp : tps)
                    if (c.position(tp) < end.get(tp))
                        done = false;
                if (done)
                    break;
                if (System.currentTimeMillis() > deadline)
                    throw new Fail("reading " + tps + " to " + end + ": timed out");
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200)))
                    got.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new ArrayList<>()).add(r);
            }
            List<ConsumerRecord<String, String>> all = new ArrayList<>();
            for (TopicPartition tp : tps)
                all.addAll(got.getOrDefault(tp, Collections.emptyList()));
            return all;
        }
    }

    static List<ConsumerRecord<String, String>> readAll(String topic, int partitions) {
        return readAll(partitions(topic, partitions), "read_uncommitted");
    }

    static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    static String headersString(Iterable<Header> hs) {
        StringBuilder b = new StringBuilder("[");
        for (Header h : hs) {
            if (b.length() > 1)
                b.append(", ");
            b.append(h.key()).append('=').append(h.value() == null ? "null" : Arrays.toString(h.value()));
        }
        return b.append(']').toString();
    }

    static List<Long> offsets(List<ConsumerRecord<String, String>> rs) {
        List<Long> l = new ArrayList<>();
        for (ConsumerRecord<String, String> r : rs)
            l.add(r.offset());
        return l;
    }

    static List<String> values(List<ConsumerRecord<String, String>> rs) {
        List<String> l = new ArrayList<>();
        for (ConsumerRecord<String, String> r : rs)
            l.add(r.value());
        return l;
    }

    static List<Long> range(long from, long to) {
        List<Long> l = new ArrayList<>();
        for (long i = from; i < to; i++)
            l.add(i);
        return l;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    interface Cond { boolean ok() throws Exception; }

    /** Waits up to ms for cond; fails naming what. */
    static void waitFor(String what, long ms, Cond cond) throws Exception {
        long deadline = System.currentTimeMillis() + ms;
        while (!cond.ok()) {
            if (System.currentTimeMillis() > deadline)
                throw new Fail("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }
}
