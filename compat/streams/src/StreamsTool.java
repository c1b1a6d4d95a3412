// compat/streams: the word count's input, and the checks of its output.
//
//   StreamsTool setup BOOTSTRAP IN OUT PARTITIONS
//   StreamsTool feed BOOTSTRAP IN FROM TO PER_SECOND T0 [BATCH_BYTES LINGER_MS]
//   StreamsTool wait BOOTSTRAP OUT LINES SECONDS
//   StreamsTool verify BOOTSTRAP APP_ID IN OUT LINES PARTITIONS T0
//
// Line i of the input is line(i) (a few words, mixed case and punctuation),
// key "line-i", header n=i, timestamp T0 + i. `wait` polls the output
// (read_committed) until every word's latest count is its count in lines
// 0..LINES-1. `verify` checks everything the run left: each word's counts
// in the output are exactly 1, 2, ..., its count (every increment once, in
// order: nothing lost, nothing twice across the SIGKILLs and the restore),
// each with the timestamp of the latest line holding the word so far; the
// internal topics Streams made (partitions, configs), the changelog's
// latest committed value of each word its count; the group's committed
// offsets (all the input, nothing left in the repartition topic); the
// repartition topic purged (DeleteRecords); no transaction left open.
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.*;
import java.util.stream.Collectors;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.*;

public class StreamsTool {
    static int failures = 0;

    static void check(boolean ok, String what) {
        if (!ok) {
            failures++;
            System.out.println("FAIL: " + what);
        }
    }

    static String line(long i) {
        StringBuilder sb = new StringBuilder();
        int n = (int) (i % 4) + 1;
        for (int j = 0; j < n; j++) {
            String w = "w" + ((i * 7 + j * 13) % 37);
            if ((i + j) % 3 == 0)
                w = w.toUpperCase(Locale.ROOT);
            if (j > 0)
                sb.append(j % 2 == 0 ? " " : ", ");
            sb.append(w);
        }
        if (i % 5 == 0)
            sb.append('.');
        return sb.toString();
    }

    static List<String> words(long i) {
        List<String> r = new ArrayList<>();
        for (String w : line(i).toLowerCase(Locale.ROOT).split("\\W+"))
            if (!w.isEmpty())
                r.add(w);
        return r;
    }

    static Map<String, Long> expected(long lines) {
        Map<String, Long> m = new TreeMap<>();
        for (long i = 0; i < lines; i++)
            for (String w : words(i))
                m.merge(w, 1L, Long::sum);
        return m;
    }

    static Properties base(String bootstrap) {
        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(CommonClientConfigs.RETRY_BACKOFF_MS_CONFIG, 100);
        return p;
    }

    public static void main(String[] a) throws Exception {
        switch (a[0]) {
        case "setup": setup(a[1], a[2], a[3], Integer.parseInt(a[4])); break;
        case "feed":
            feed(a[1], a[2], Long.parseLong(a[3]), Long.parseLong(a[4]),
                 Integer.parseInt(a[5]), Long.parseLong(a[6]),
                 a.length > 7 ? Integer.parseInt(a[7]) : 4096, a.length > 8 ? Integer.parseInt(a[8]) : 5);
            break;
        case "wait": waitFor(a[1], a[2], Long.parseLong(a[3]), Integer.parseInt(a[4])); break;
        case "verify":
            verify(a[1], a[2], a[3], a[4], Long.parseLong(a[5]), Integer.parseInt(a[6]),
                   Long.parseLong(a[7]));
            break;
        default: throw new IllegalArgumentException(a[0]);
        }
        if (failures > 0) {
            System.out.println(failures + " failures");
            System.exit(1);
        }
    }

    static void setup(String bootstrap, String in, String out, int parts) throws Exception {
        try (Admin admin = Admin.create(base(bootstrap))) {
            admin.createTopics(List.of(new NewTopic(in, parts, (short) 1),
                                       new NewTopic(out, parts, (short) 1))).all().get();
            Map<String, TopicDescription> d = admin.describeTopics(List.of(in, out)).allTopicNames().get();
            check(d.get(in).partitions().size() == parts, in + " partitions");
            check(d.get(out).partitions().size() == parts, out + " partitions");
        }
    }

    static void feed(String bootstrap, String topic, long from, long to, int perSecond, long t0,
                     int batchBytes, int lingerMs) throws Exception {
        Properties p = base(bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, batchBytes);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        long start = System.nanoTime();
        try (KafkaProducer<String, String> pr = new KafkaProducer<>(p)) {
            List<java.util.concurrent.Future<RecordMetadata>> fs = new ArrayList<>();
            for (long i = from; i < to; i++) {
                RecordHeaders h = new RecordHeaders();
                h.add("n", Long.toString(i).getBytes(StandardCharsets.UTF_8));
                fs.add(pr.send(new ProducerRecord<>(topic, null, t0 + i, "line-" + i, line(i), h)));
                long due = start + (i - from + 1) * 1_000_000_000L / perSecond;
                long now = System.nanoTime();
                if (due > now)
                    Thread.sleep((due - now) / 1_000_000, (int) ((due - now) % 1_000_000));
            }
            for (var f : fs)
                f.get();
        }
        System.out.println("fed lines " + from + ".." + (to - 1));
    }

    static KafkaConsumer<String, Long> outConsumer(String bootstrap, String isolation) {
        Properties p = base(bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        return new KafkaConsumer<>(p, new StringDeserializer(), new LongDeserializer());
    }

    static List<TopicPartition> partitions(KafkaConsumer<?, ?> c, String topic) {
        return c.partitionsFor(topic, Duration.ofSeconds(30)).stream()
            .map(pi -> new TopicPartition(topic, pi.partition()))
            .sorted(Comparator.comparingInt(TopicPartition::partition))
            .collect(Collectors.toList());
    }

    // every record of TOPIC up to its end offsets (the LSO for read_committed)
    static List<ConsumerRecord<String, Long>> readAll(KafkaConsumer<String, Long> c, String topic) {
        List<TopicPartition> tps = partitions(c, topic);
        c.assign(tps);
        c.seekToBeginning(tps);
        Map<TopicPartition, Long> end = c.endOffsets(tps);
        List<ConsumerRecord<String, Long>> r = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 60_000;
        while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
            if (System.currentTimeMillis() > deadline)
                throw new RuntimeException("reading " + topic + ": not at " + end + " in 60 s");
            for (ConsumerRecord<String, Long> rec : c.poll(Duration.ofMillis(200)))
                r.add(rec);
        }
        return r;
    }

    static void waitFor(String bootstrap, String out, long lines, int seconds) throws Exception {
        Map<String, Long> exp = expected(lines);
        Map<String, Long> latest = new HashMap<>();
        long deadline = System.currentTimeMillis() + seconds * 1000L;
        try (KafkaConsumer<String, Long> c = outConsumer(bootstrap, "read_committed")) {
            List<TopicPartition> tps = partitions(c, out);
            c.assign(tps);
            c.seekToBeginning(tps);
            while (!latest.equals(exp)) {
                if (System.currentTimeMillis() > deadline) {
                    long done = exp.keySet().stream().filter(w -> exp.get(w).equals(latest.get(w))).count();
                    System.out.println("FAIL: after " + seconds + " s " + done + " of " + exp.size()
                                       + " words have their final count");
                    System.exit(1);
                }
                for (ConsumerRecord<String, Long> rec : c.poll(Duration.ofMillis(200)))
                    latest.put(rec.key(), rec.value());
            }
        }
        System.out.println("all " + exp.size() + " words counted");
    }

    static void verify(String bootstrap, String app, String in, String out, long lines, int parts,
                       long t0) throws Exception {
        Map<String, Long> exp = expected(lines);
        // the latest line holding each word up to each of its occurrences
        Map<String, TreeSet<Long>> lineTs = new HashMap<>();
        for (long i = 0; i < lines; i++)
            for (String w : words(i))
                lineTs.computeIfAbsent(w, k -> new TreeSet<>()).add(t0 + i);
        long total = exp.values().stream().mapToLong(Long::longValue).sum();

        List<ConsumerRecord<String, Long>> recs;
        try (KafkaConsumer<String, Long> c = outConsumer(bootstrap, "read_committed")) {
            recs = readAll(c, out);
        }
        Map<String, List<ConsumerRecord<String, Long>>> byWord = new TreeMap<>();
        for (ConsumerRecord<String, Long> r : recs)
            byWord.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
        check(byWord.keySet().equals(exp.keySet()),
              "words in the output " + byWord.keySet() + ", expected " + exp.keySet());
        int bad = 0;
        for (var e : byWord.entrySet()) {
            String w = e.getKey();
            List<ConsumerRecord<String, Long>> l = e.getValue();
            Long n = exp.get(w);
            if (n == null)
                continue;
            List<Long> vals = l.stream().map(ConsumerRecord::value).collect(Collectors.toList());
            List<Long> want = new ArrayList<>();
            for (long k = 1; k <= n; k++)
                want.add(k);
            if (!vals.equals(want) && bad++ < 5)
                check(false, "word " + w + ": counts " + abbrev(vals) + ", expected 1.." + n);
            if (l.stream().map(ConsumerRecord::partition).distinct().count() != 1 && bad++ < 5)
                check(false, "word " + w + " in several partitions");
            long prevTs = -1, prevOff = -1;
            for (ConsumerRecord<String, Long> r : l) {
                if ((!lineTs.get(w).contains(r.timestamp()) || r.timestamp() < prevTs) && bad++ < 5)
                    check(false, "word " + w + " count " + r.value() + ": timestamp " + r.timestamp()
                          + " (after " + prevTs + ")");
                if (r.timestampType() != TimestampType.CREATE_TIME && bad++ < 5)
                    check(false, "word " + w + ": timestamp type " + r.timestampType());
                if (r.offset() <= prevOff && bad++ < 5)
                    check(false, "word " + w + ": offsets not increasing");
                prevTs = r.timestamp();
                prevOff = r.offset();
            }
            if (!l.isEmpty() && l.get(l.size() - 1).timestamp() != lineTs.get(w).last() && bad++ < 5)
                check(false, "word " + w + ": last timestamp " + l.get(l.size() - 1).timestamp()
                      + ", expected " + lineTs.get(w).last());
        }
        check(bad == 0, bad + " wrong records");
        check(recs.size() == total, recs.size() + " committed output records, expected " + total);
        if (failures == 0)
            System.out.println("output: " + recs.size() + " committed records, " + byWord.size()
                               + " words, each counted 1..n in order");
        try (KafkaConsumer<String, Long> c = outConsumer(bootstrap, "read_uncommitted")) {
            int all = readAll(c, out).size();
            System.out.println("output read_uncommitted: " + all + " records, " + (all - recs.size())
                               + " of them in aborted transactions");
        }

        String rep = app + "-words-repartition", chg = app + "-counts-changelog";
        try (Admin admin = Admin.create(base(bootstrap))) {
            Set<String> names = admin.listTopics().names().get();
            check(names.contains(rep), "no repartition topic " + rep + " in " + names);
            check(names.contains(chg), "no changelog topic " + chg + " in " + names);
            Map<String, TopicDescription> d = admin.describeTopics(List.of(rep, chg)).allTopicNames().get();
            check(d.get(rep).partitions().size() == parts, rep + ": " + d.get(rep).partitions().size() + " partitions");
            check(d.get(chg).partitions().size() == parts, chg + ": " + d.get(chg).partitions().size() + " partitions");
            check(!d.get(rep).isInternal() && !d.get(chg).isInternal(), "Streams' topics are not broker-internal");
            ConfigResource rr = new ConfigResource(ConfigResource.Type.TOPIC, rep);
            ConfigResource cr = new ConfigResource(ConfigResource.Type.TOPIC, chg);
            Map<ConfigResource, Config> cfg = admin.describeConfigs(List.of(rr, cr)).all().get();
            expectConfig(cfg.get(cr), chg, "cleanup.policy", "compact", true);
            expectConfig(cfg.get(cr), chg, "message.timestamp.type", "CreateTime", true);
            expectConfig(cfg.get(rr), rep, "cleanup.policy", "delete", true);
            expectConfig(cfg.get(rr), rep, "retention.ms", "-1", true);
            expectConfig(cfg.get(rr), rep, "segment.bytes", "52428800", true);

            // the changelog: each word's latest committed value its count
            Properties p = base(bootstrap);
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
            Map<String, Long> latest = new TreeMap<>();
            int odd = 0;
            try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(),
                                                                     new ByteArrayDeserializer())) {
                List<TopicPartition> tps = partitions(c, chg);
                c.assign(tps);
                c.seekToBeginning(tps);
                Map<TopicPartition, Long> end = c.endOffsets(tps);
                long deadline = System.currentTimeMillis() + 60_000;
                while (tps.stream().anyMatch(tp -> c.position(tp) < end.get(tp))
                       && System.currentTimeMillis() < deadline)
                    for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
                        if (r.value() == null || r.value().length != 8) {
                            if (odd++ < 3)
                                check(false, chg + " record " + r + ": value not a long");
                            continue;
                        }
                        latest.put(r.key(), java.nio.ByteBuffer.wrap(r.value()).getLong());
                    }
            }
            check(latest.equals(exp), chg + ": latest values " + latest + ", expected " + exp);

            // the group's offsets: all the input consumed; nothing left
            // unread in the repartition topic (its committed offset may sit
            // before the last transaction's marker)
            Map<TopicPartition, OffsetAndMetadata> off =
                admin.listConsumerGroupOffsets(app).partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            for (int i = 0; i < parts; i++) {
                q.put(new TopicPartition(in, i), OffsetSpec.latest());
                q.put(new TopicPartition(rep, i), OffsetSpec.latest());
            }
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(q).all().get();
            Map<TopicPartition, OffsetSpec> q0 = new HashMap<>();
            for (TopicPartition tp : q.keySet())
                q0.put(tp, OffsetSpec.earliest());
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> starts = admin.listOffsets(q0).all().get();
            long inTotal = 0;
            for (int i = 0; i < parts; i++) {
                TopicPartition tin = new TopicPartition(in, i), trep = new TopicPartition(rep, i);
                OffsetAndMetadata oi = off.get(tin), orp = off.get(trep);
                check(oi != null && oi.offset() == ends.get(tin).offset(),
                      "committed " + tin + " " + oi + ", end " + ends.get(tin).offset());
                inTotal += ends.get(tin).offset();
                check(orp != null && orp.offset() <= ends.get(trep).offset()
                      && orp.offset() >= ends.get(trep).offset() - 1,
                      "committed " + trep + " " + orp + ", end " + ends.get(trep).offset());
                // Streams purges what it committed of the repartition topic
                check(starts.get(trep).offset() > 0, trep + " not purged: log start "
                      + starts.get(trep).offset() + " (DeleteRecords)");
                System.out.println(trep + ": log start " + starts.get(trep).offset() + ", end "
                                   + ends.get(trep).offset() + ", committed " + (orp == null ? null : orp.offset()));
            }
            check(inTotal == lines, "input end offsets add up to " + inTotal + ", fed " + lines);
            if (failures == 0) {
                // nothing unread past the committed repartition offsets
                try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                                                                         new ByteArrayDeserializer())) {
                    List<TopicPartition> tps = new ArrayList<>();
                    for (int i = 0; i < parts; i++)
                        tps.add(new TopicPartition(rep, i));
                    c.assign(tps);
                    for (TopicPartition tp : tps)
                        c.seek(tp, off.get(tp).offset());
                    long n = 0, t = System.currentTimeMillis();
                    while (System.currentTimeMillis() - t < 1000)
                        n += c.poll(Duration.ofMillis(200)).count();
                    check(n == 0, n + " repartition records past the committed offsets");
                }
            }

            // the transactions Streams used: none left open
            Collection<TransactionListing> txns = admin.listTransactions().all().get();
            List<String> ids = new ArrayList<>();
            for (TransactionListing t : txns) {
                if (!t.transactionalId().startsWith(app + "-"))
                    continue;
                ids.add(t.transactionalId() + "=" + t.state());
                check(t.state() == TransactionState.COMPLETE_COMMIT || t.state() == TransactionState.COMPLETE_ABORT
                      || t.state() == TransactionState.EMPTY,
                      "transaction " + t.transactionalId() + " is " + t.state());
            }
            check(!ids.isEmpty(), "ListTransactions has none of " + app);
            System.out.println("transactions: " + ids);
        }
    }

    static void expectConfig(Config c, String topic, String name, String value, boolean dynamic) {
        ConfigEntry e = c.get(name);
        check(e != null && value.equals(e.value()), topic + " " + name + "=" + (e == null ? null : e.value())
              + ", expected " + value);
        if (e != null && dynamic)
            check(e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG,
                  topic + " " + name + " source " + e.source() + ", expected DYNAMIC_TOPIC_CONFIG");
    }

    static String abbrev(List<Long> l) {
        if (l.size() <= 12)
            return l.toString();
        return l.subList(0, 6) + "..." + l.subList(l.size() - 6, l.size()) + " (" + l.size() + ")";
    }
}
