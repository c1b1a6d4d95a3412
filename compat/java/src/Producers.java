// The producer: acks 0, 1 and all; every codec; keys and the default
// partitioner; headers; CreateTime and LogAppendTime; a ~1 MiB record at
// message.max.bytes; and the errors Kafka gives (Producers.errors).
import java.util.*;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.Utils;

import static java.nio.charset.StandardCharsets.UTF_8;

class Producers extends Compat {
    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};

    static void run() throws Exception {
        try (Admin a = admin()) {
            createTopics(a, topic("acks-0", 1), topic("acks-1", 1), topic("acks-all", 1),
                    topic("codec-none", 1), topic("codec-gzip", 1), topic("codec-snappy", 1),
                    topic("codec-lz4", 1), topic("codec-zstd", 1),
                    topic("codec-recompress", 1, "compression.type", "zstd"),
                    topic("keyed", 6), topic("headers", 1),
                    topic("ts-create", 1, "message.timestamp.type", "CreateTime"),
                    topic("ts-append", 1, "message.timestamp.type", "LogAppendTime"),
                    topic("ts-append-zstd", 1, "message.timestamp.type", "LogAppendTime"));
        }
        acks();
        codecs();
        section("small fetches, and from inside a batch", Producers::fetches);
        keys();
        headers();
        timestamps();
        section("LogAppendTime of a compressed batch", Producers::appendTimeCompressed);
        endSections();
    }

    /** max.partition.fetch.bytes and fetch.max.bytes below a batch: Kafka
     * still returns the first batch (KIP-74), so the consumer makes
     * progress; a fetch from inside a compressed batch starts at the
     * offset asked for. */
    static void fetches() throws Exception {
        List<ConsumerRecord<String, String>> rs = readAll(partitions("codec-zstd", 1), "read_uncommitted",
                "max.partition.fetch.bytes", "100", "fetch.max.bytes", "100");
        eq(range(0, 500), offsets(rs), "100-byte fetches: every record of codec-zstd");
        try (org.apache.kafka.clients.consumer.KafkaConsumer<String, String> c = consumer(null)) {
            org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition("codec-lz4", 0);
            c.assign(Collections.singleton(tp));
            c.seek(tp, 250);
            long deadline = System.currentTimeMillis() + 15000;
            org.apache.kafka.clients.consumer.ConsumerRecords<String, String> got;
            do {
                got = c.poll(java.time.Duration.ofMillis(100));
            } while (got.isEmpty() && System.currentTimeMillis() < deadline);
            ConsumerRecord<String, String> r = got.iterator().next();
            eq("250 k250", r.offset() + " " + r.key(), "a fetch from offset 250, inside a compressed batch");
        }
    }

    static void appendTimeCompressed() throws Exception {
        long old = System.currentTimeMillis() - 3_600_000;
        List<Future<RecordMetadata>> fs = new ArrayList<>();
        long before = System.currentTimeMillis();
        try (KafkaProducer<String, String> p = producer("compression.type", "zstd", "linger.ms", "50")) {
            for (int i = 0; i < 10; i++)
                fs.add(p.send(new ProducerRecord<>("ts-append-zstd", 0, old + i, "k" + i, bigValue(i))));
            p.flush();
        }
        long after = System.currentTimeMillis();
        long lat = get(fs.get(0)).timestamp();
        check(lat >= before - 1000 && lat <= after + 1000, "LogAppendTime, zstd: the append time in the metadata");
        List<ConsumerRecord<String, String>> rs = readAll("ts-append-zstd", 1);
        eq(10, rs.size(), "LogAppendTime, zstd: records");
        for (ConsumerRecord<String, String> r : rs)
            if (r.timestamp() != lat || r.timestampType() != TimestampType.LOG_APPEND_TIME
                    || !r.value().equals(bigValue((int) r.offset())))
                throw new Fail("LogAppendTime, zstd: read " + r);
        ok("LogAppendTime, zstd: every record at the batch's append time, values whole");
    }

    static void acks() throws Exception {
        for (String acks : new String[] {"0", "1", "all"}) {
            String t = "acks-" + acks;
            List<Future<RecordMetadata>> fs = new ArrayList<>();
            try (KafkaProducer<String, String> p = producer("acks", acks, "enable.idempotence",
                    acks.equals("all") ? "true" : "false")) {
                for (int i = 0; i < 50; i++)
                    fs.add(p.send(new ProducerRecord<>(t, "k" + i, "v" + i)));
                p.flush();
            }
            List<Long> offs = new ArrayList<>();
            for (Future<RecordMetadata> f : fs) {
                RecordMetadata m = get(f);
                offs.add(m.hasOffset() ? m.offset() : -1L);
            }
            List<Long> want = new ArrayList<>();
            for (long i = 0; i < 50; i++)
                want.add(acks.equals("0") ? -1L : i);
            eq(want, offs, "acks=" + acks + ": offsets the producer was given");
            List<ConsumerRecord<String, String>> rs = readAll(t, 1);
            eq(range(0, 50), offsets(rs), "acks=" + acks + ": offsets read back");
            List<String> vals = new ArrayList<>();
            for (int i = 0; i < 50; i++)
                vals.add("v" + i);
            eq(vals, values(rs), "acks=" + acks + ": values read back");
            eq("k49", rs.get(49).key(), "acks=" + acks + ": key of the last");
        }
    }

    static String bigValue(int i) {
        StringBuilder b = new StringBuilder();
        for (int j = 0; j < 1 + i % 7; j++)
            b.append("value-").append(i).append("-compressible-");
        return b.toString();
    }

    static void codecs() throws Exception {
        long base = System.currentTimeMillis() - 600_000;
        List<String> topics = new ArrayList<>();
        for (String c : CODECS)
            topics.add("codec-" + c);
        topics.add("codec-recompress");
        for (String t : topics) {
            String codec = t.equals("codec-recompress") ? "lz4" : t.substring(6);
            List<Future<RecordMetadata>> fs = new ArrayList<>();
            try (KafkaProducer<String, String> p = producer("compression.type", codec, "linger.ms", "50",
                    "batch.size", "65536")) {
                for (int i = 0; i < 500; i++) {
                    RecordHeaders h = new RecordHeaders();
                    h.add("n", Integer.toString(i).getBytes(UTF_8));
                    fs.add(p.send(new ProducerRecord<>(t, 0, base + i, "k" + i, bigValue(i), h)));
                }
                p.flush();
            }
            Set<Long> batches = new HashSet<>();
            for (int i = 0; i < 500; i++) {
                RecordMetadata m = get(fs.get(i));
                if (m.offset() != i)
                    throw new Fail(t + ": record " + i + " was given offset " + m.offset());
                if (m.timestamp() != base + i)
                    throw new Fail(t + ": record " + i + " was given timestamp " + m.timestamp());
            }
            List<ConsumerRecord<String, String>> rs = readAll(t, 1);
            eq(500, rs.size(), t + " (" + codec + "): records read back");
            for (int i = 0; i < 500; i++) {
                ConsumerRecord<String, String> r = rs.get(i);
                String h = new String(r.headers().lastHeader("n").value(), UTF_8);
                if (r.offset() != i || !r.key().equals("k" + i) || !r.value().equals(bigValue(i))
                        || r.timestamp() != base + i || r.timestampType() != TimestampType.CREATE_TIME
                        || !h.equals(Integer.toString(i)))
                    throw new Fail(t + ": record " + i + " read back as " + r);
            }
            ok(t + " (" + codec + "): every key, value, header, timestamp and offset");
        }
    }

    static void keys() throws Exception {
        Map<String, Set<Integer>> seen = new TreeMap<>();
        List<Future<RecordMetadata>> fs = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        try (KafkaProducer<String, String> p = producer()) {
            for (int i = 0; i < 200; i++) {
                String k = "key-" + (i % 20);
                keys.add(k);
                fs.add(p.send(new ProducerRecord<>("keyed", k, "kv" + i)));
            }
            // an explicit partition, and no key
            fs.add(p.send(new ProducerRecord<>("keyed", 5, "key-0", "explicit")));
            fs.add(p.send(new ProducerRecord<>("keyed", null, "nokey")));
            p.flush();
        }
        Map<Integer, List<String>> byPart = new TreeMap<>();
        Map<Integer, List<Long>> offByPart = new TreeMap<>();
        for (int i = 0; i < 202; i++) {
            RecordMetadata m = get(fs.get(i));
            String v = i < 200 ? "kv" + i : i == 200 ? "explicit" : "nokey";
            byPart.computeIfAbsent(m.partition(), x -> new ArrayList<>()).add(v);
            offByPart.computeIfAbsent(m.partition(), x -> new ArrayList<>()).add(m.offset());
            if (i < 200)
                seen.computeIfAbsent(keys.get(i), x -> new TreeSet<>()).add(m.partition());
        }
        eq(5, get(fs.get(200)).partition(), "an explicit partition is kept");
        for (Map.Entry<String, Set<Integer>> e : seen.entrySet()) {
            int want = Utils.toPositive(Utils.murmur2(e.getKey().getBytes(UTF_8))) % 6;
            if (!e.getValue().equals(Collections.singleton(want)))
                throw new Fail("key " + e.getKey() + " went to partitions " + e.getValue() + ", want " + want);
        }
        ok("each of 20 keys in one partition, murmur2(key) % 6");
        List<ConsumerRecord<String, String>> rs = readAll("keyed", 6);
        eq(202, rs.size(), "keyed: records read back");
        for (int part = 0; part < 6; part++) {
            List<String> got = new ArrayList<>();
            List<Long> goff = new ArrayList<>();
            for (ConsumerRecord<String, String> r : rs)
                if (r.partition() == part) {
                    got.add(r.value());
                    goff.add(r.offset());
                    if (r.value().startsWith("kv")) {
                        int i = Integer.parseInt(r.value().substring(2));
                        if (!r.key().equals("key-" + (i % 20)))
                            throw new Fail("keyed: " + r);
                    }
                }
            List<Long> contiguous = range(0, got.size());
            List<String> want = byPart.getOrDefault(part, Collections.emptyList());
            if (!got.equals(want) || !goff.equals(contiguous)
                    || !offByPart.getOrDefault(part, Collections.emptyList()).equals(contiguous))
                throw new Fail("keyed partition " + part + ": read " + got + " at " + goff + ", produced "
                        + want + " at " + offByPart.get(part));
        }
        ok("keyed: each partition holds what the producer was told, at its offsets");
    }

    static void headers() throws Exception {
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++)
            all[i] = (byte) i;
        RecordHeaders h = new RecordHeaders();
        h.add("a", "1".getBytes(UTF_8));
        h.add("b", null);
        h.add("a", "2".getBytes(UTF_8));
        h.add("", new byte[0]);
        h.add("ключ", all);
        try (KafkaProducer<String, String> p = producer()) {
            get(p.send(new ProducerRecord<>("headers", 0, (String) null, "with", h)));
            get(p.send(new ProducerRecord<>("headers", 0, "k", (String) null)));
        }
        List<ConsumerRecord<String, String>> rs = readAll("headers", 1);
        eq(2, rs.size(), "headers: records");
        eq(headersString(h), headersString(rs.get(0).headers()), "headers in order, duplicates, null and empty");
        eq(null, rs.get(0).key(), "a null key");
        eq(0, rs.get(1).headers().toArray().length, "no headers");
        eq(null, rs.get(1).value(), "a null value (tombstone)");
    }

    static void timestamps() throws Exception {
        long old = System.currentTimeMillis() - 3_600_000;
        RecordMetadata ct, lat, ctNow, lat2;
        long before, after;
        try (KafkaProducer<String, String> p = producer("linger.ms", "100")) {
            ct = get(p.send(new ProducerRecord<>("ts-create", 0, old, "k", "old")));
            long t0 = System.currentTimeMillis();
            ctNow = get(p.send(new ProducerRecord<>("ts-create", "k", "now")));
            long t1 = System.currentTimeMillis();
            check(ctNow.timestamp() >= t0 - 1000 && ctNow.timestamp() <= t1,
                    "CreateTime without a timestamp: the producer's clock (" + ctNow.timestamp() + ")");
            before = System.currentTimeMillis();
            Future<RecordMetadata> f1 = p.send(new ProducerRecord<>("ts-append", 0, old, "k", "old"));
            Future<RecordMetadata> f2 = p.send(new ProducerRecord<>("ts-append", 0, old + 5, "k", "old2"));
            lat = get(f1);
            lat2 = get(f2);
            after = System.currentTimeMillis();
        }
        eq(old, ct.timestamp(), "CreateTime: the timestamp in the producer's metadata");
        check(lat.timestamp() >= before - 1000 && lat.timestamp() <= after + 1000,
                "LogAppendTime: the broker's append time in the metadata (" + lat.timestamp() + " in ["
                        + before + ", " + after + "])");
        eq(lat.timestamp(), lat2.timestamp(), "LogAppendTime: one batch, one time");
        List<ConsumerRecord<String, String>> rs = readAll("ts-create", 1);
        eq(old, rs.get(0).timestamp(), "CreateTime: the timestamp the consumer sees");
        eq(TimestampType.CREATE_TIME, rs.get(0).timestampType(), "CreateTime: the type the consumer sees");
        eq(ctNow.timestamp(), rs.get(1).timestamp(), "CreateTime: the producer-assigned one read back");
        rs = readAll("ts-append", 1);
        eq(Arrays.asList(lat.timestamp(), lat.timestamp()),
                Arrays.asList(rs.get(0).timestamp(), rs.get(1).timestamp()),
                "LogAppendTime: the timestamp the consumer sees");
        eq(TimestampType.LOG_APPEND_TIME, rs.get(0).timestampType(), "LogAppendTime: the type the consumer sees");
    }

    // the record batch of one record with a null key, no headers and a
    // value of n bytes (n a 3-byte varint): 61 + 3 + 8 + n bytes
    static final int BATCH_OVERHEAD = 72;
    static final int KAFKA_MESSAGE_MAX_BYTES = 1048588; // 1 MiB + LOG_OVERHEAD

    static String filler(int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++)
            c[i] = (char) ('a' + (i * 7919) % 26);
        return new String(c);
    }

    static void errors() throws Exception {
        try (Admin a = admin()) {
            createTopics(a, topic("big", 1), topic("small", 1, "max.message.bytes", "1000"));
            // invalid topics and configs at creation
            expectThrows(InvalidConfigurationException.class, "cleanup.policy=bogus at creation",
                    () -> createTopics(a, topic("bad-1", 1, "cleanup.policy", "bogus")));
            expectThrows(InvalidConfigurationException.class, "segment.ms=0 at creation",
                    () -> createTopics(a, topic("bad-2", 1, "segment.ms", "0")));
            expectThrows(InvalidConfigurationException.class, "an unknown config at creation",
                    () -> createTopics(a, topic("bad-3", 1, "no.such.config", "1")));
            expectThrows(InvalidReplicationFactorException.class, "replication factor 3 on one broker",
                    () -> get(a.createTopics(Collections.singleton(
                            new org.apache.kafka.clients.admin.NewTopic("bad-4", 1, (short) 3))).all()));
            expectThrows(InvalidPartitionsException.class, "0 partitions",
                    () -> createTopics(a, topic("bad-5", 0)));
            expectThrows(TopicExistsException.class, "a topic that exists", () -> createTopics(a, topic("big", 1)));
            Set<String> names = get(a.listTopics().names());
            for (String n : names)
                if (n.startsWith("bad-"))
                    throw new Fail("an invalid topic was created: " + names);
            ok("no invalid topic was created");
        }
        try (KafkaProducer<String, String> p = producer("max.request.size", "2097152", "linger.ms", "0")) {
            int fits = KAFKA_MESSAGE_MAX_BYTES - BATCH_OVERHEAD;
            String v = filler(fits);
            RecordMetadata m = get(p.send(new ProducerRecord<>("big", 0, null, v)));
            eq(0L, m.offset(), "a " + fits + "-byte record, its batch message.max.bytes (1048588)");
            expectThrows(RecordTooLargeException.class, "a batch 1 byte over message.max.bytes",
                    () -> get(p.send(new ProducerRecord<>("big", 0, null, filler(fits + 1)))));
            expectThrows(RecordTooLargeException.class, "a record over the topic's max.message.bytes (1000)",
                    () -> get(p.send(new ProducerRecord<>("small", 0, null, filler(2000)))));
            eq(0L, get(p.send(new ProducerRecord<>("small", 0, null, filler(900)))).offset(),
                    "a record under the topic's max.message.bytes");
            List<ConsumerRecord<String, String>> rs = readAll("big", 1);
            eq(1, rs.size(), "big: records read back");
            check(rs.get(0).value().equals(v), "the " + fits + "-byte value read back whole");
        }
        section("timestamp bounds", Producers::timestampBounds);
        section("min.insync.replicas over the replicas", Producers::minIsr);
        section("a compacted topic", Producers::compacted);
        // an unknown topic with auto-creation off: the Java producer waits
        // for it in the metadata for max.block.ms
        try (KafkaProducer<String, String> p = producer("max.block.ms", "1500")) {
            TimeoutException e = expectThrows(TimeoutException.class, "an unknown topic (auto-creation off)",
                    () -> get(p.send(new ProducerRecord<>("no-such-topic", "k", "v"))));
            check(e.getMessage().contains("not present in metadata"), "the timeout says the topic is not in the metadata");
        }
        try (Admin a = admin()) {
            check(!get(a.listTopics().names()).contains("no-such-topic"), "the unknown topic was not created");
        }
    }

    /** message.timestamp.before.max.ms / after.max.ms: a CreateTime record
     * outside them is refused (InvalidTimestampException). */
    static void timestampBounds() throws Exception {
        try (Admin a = admin()) {
            createTopics(a, topic("ts-bounds", 1, "message.timestamp.before.max.ms", "60000",
                    "message.timestamp.after.max.ms", "60000"));
        }
        long now = System.currentTimeMillis();
        try (KafkaProducer<String, String> p = producer("linger.ms", "0", "retries", "0")) {
            eq(0L, get(p.send(new ProducerRecord<>("ts-bounds", 0, now, "k", "now"))).offset(),
                    "a timestamp within the bounds");
            expectThrows(org.apache.kafka.common.errors.InvalidTimestampException.class,
                    "a timestamp an hour old, before.max.ms 60000",
                    () -> get(p.send(new ProducerRecord<>("ts-bounds", 0, now - 3_600_000, "k", "old"))));
            expectThrows(org.apache.kafka.common.errors.InvalidTimestampException.class,
                    "a timestamp an hour ahead, after.max.ms 60000",
                    () -> get(p.send(new ProducerRecord<>("ts-bounds", 0, now + 3_600_000, "k", "new"))));
        }
        eq(Arrays.asList("now"), values(readAll("ts-bounds", 1)), "only the record within the bounds");
    }

    /** min.insync.replicas 2 on a topic of one replica: Kafka 4's leader
     * takes the smaller of min.insync.replicas and the replica count as
     * the minimum ISR (Partition.effectiveMinIsr), so acks=all is taken. */
    static void minIsr() throws Exception {
        try (Admin a = admin()) {
            createTopics(a, topic("isr2", 1, "min.insync.replicas", "2"));
        }
        try (KafkaProducer<String, String> p = producer("acks", "all", "retries", "0", "enable.idempotence", "false",
                "linger.ms", "0")) {
            eq(0L, get(p.send(new ProducerRecord<>("isr2", 0, "k", "all"))).offset(),
                    "acks=all, min.insync.replicas 2 on one replica: taken");
        }
        try (KafkaProducer<String, String> p = producer("acks", "1", "enable.idempotence", "false")) {
            eq(1L, get(p.send(new ProducerRecord<>("isr2", 0, "k", "one"))).offset(),
                    "acks=1 under min.insync.replicas 2");
        }
        eq(Arrays.asList("all", "one"), values(readAll("isr2", 1)), "isr2: both records");
    }

    /** A record without a key on a compacted topic is refused
     * (InvalidRecordException). */
    static void compacted() throws Exception {
        try (Admin a = admin()) {
            createTopics(a, topic("compacted", 1, "cleanup.policy", "compact"));
        }
        try (KafkaProducer<String, String> p = producer("acks", "all", "retries", "0", "enable.idempotence", "false",
                "linger.ms", "0")) {
            expectThrows(org.apache.kafka.common.InvalidRecordException.class,
                    "a record without a key on a compacted topic",
                    () -> get(p.send(new ProducerRecord<>("compacted", 0, null, "v"))));
            eq(0L, get(p.send(new ProducerRecord<>("compacted", 0, "k", "v"))).offset(), "a keyed record on it");
        }
    }
}
