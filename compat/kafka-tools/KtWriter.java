// compat/kafka-tools/KtWriter.java: writes, with Kafka's own Java producer
// (kafka-clients of the pinned Kafka), the records whose on-disk form
// kafka-dump-log then reads from Gregor's data directory, and reports every
// record it wrote. Run as a single-file source program:
//   kt java KtWriter.java BOOTSTRAP REPORT
// Topics (each one partition, retention off, made here with the Admin API):
//   kt-log   plain batches of an idempotent producer (keys, headers, a null
//            value, explicit timestamps), one batch per codec (gzip, snappy,
//            lz4, zstd), a transaction committed and one aborted
//   kt-roll  3000 records of 1000 bytes in 1 MiB segments (several segments,
//            offset and time index entries)
//   kt-hang  a transaction left open (its producer halts without ending it),
//            then one plain record after it
// REPORT has one line a record: topic partition offset timestamp key value
// headers(k=v;k=v, - for none) kind, the kind naming the producer: plain,
// gzip, snappy, lz4, zstd, commit and abort (one transactional producer),
// last, roll, hang, after; the last line is "done".
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringSerializer;

public class KtWriter {
    static final long T0 = 1767225600000L; // 2026-01-01T00:00:00Z
    static PrintWriter report;

    static Properties props(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "1000"); // batches end at flush()
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "1048576");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "2097152");
        return p;
    }

    // sends the records (one batch: same partition, flushed together) and
    // reports each
    static void batch(Producer<String, String> pr, String topic, String kind,
                      List<String[]> recs, long ts) throws Exception {
        List<java.util.concurrent.Future<RecordMetadata>> fs = new ArrayList<>();
        List<ProducerRecord<String, String>> sent = new ArrayList<>();
        for (String[] r : recs) {
            List<Header> hs = new ArrayList<>();
            for (int i = 2; i + 1 < r.length; i += 2)
                hs.add(new RecordHeader(r[i], r[i + 1].getBytes(StandardCharsets.UTF_8)));
            ProducerRecord<String, String> rec =
                new ProducerRecord<>(topic, 0, ts++, r[0], r[1], hs);
            sent.add(rec);
            fs.add(pr.send(rec));
        }
        pr.flush();
        for (int i = 0; i < fs.size(); i++) {
            RecordMetadata md = fs.get(i).get(30, TimeUnit.SECONDS);
            ProducerRecord<String, String> rec = sent.get(i);
            StringBuilder h = new StringBuilder();
            for (Header x : rec.headers()) {
                if (h.length() > 0) h.append(';');
                h.append(x.key()).append('=').append(new String(x.value(), StandardCharsets.UTF_8));
            }
            report.printf("%s %d %d %d %s %s %s %s%n", topic, md.partition(), md.offset(),
                md.timestamp(), rec.key() == null ? "null" : rec.key(),
                rec.value() == null ? "null" : rec.value(), h.length() == 0 ? "-" : h, kind);
        }
        report.flush();
    }

    static List<String[]> recs(String prefix, int n, boolean headers) {
        List<String[]> l = new ArrayList<>();
        for (int i = 0; i < n; i++)
            l.add(headers ? new String[] {prefix + "-k" + i, prefix + "-v" + i, "src", "kt", "n", "" + i}
                          : new String[] {prefix + "-k" + i, prefix + "-v" + i});
        return l;
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        report = new PrintWriter(args[1], "UTF-8");
        Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            Map<String, String> cfg = new HashMap<>();
            cfg.put("retention.ms", "-1");
            Map<String, String> roll = new HashMap<>(cfg);
            roll.put("segment.bytes", "1048576");
            admin.createTopics(List.of(
                new NewTopic("kt-log", 1, (short) 1).configs(cfg),
                new NewTopic("kt-roll", 1, (short) 1).configs(roll),
                new NewTopic("kt-hang", 1, (short) 1).configs(cfg))).all().get(30, TimeUnit.SECONDS);
        }
        long ts = T0;
        // plain: an idempotent producer's two batches, with keys, headers, a
        // null value and a record without headers
        try (Producer<String, String> p = new KafkaProducer<>(props(bootstrap))) {
            List<String[]> b1 = recs("plain", 3, true);
            b1.add(new String[] {"plain-k3", null, "tomb", "stone"});
            b1.add(new String[] {"plain-k4", "plain-v4"});
            batch(p, "kt-log", "plain", b1, ts);
            ts += 100;
            batch(p, "kt-log", "plain", recs("plain2", 2, true), ts);
            ts += 100;
        }
        for (String codec : new String[] {"gzip", "snappy", "lz4", "zstd"}) {
            Properties pp = props(bootstrap);
            pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
            try (Producer<String, String> p = new KafkaProducer<>(pp)) {
                batch(p, "kt-log", codec, recs(codec, 4, true), ts);
            }
            ts += 100;
        }
        // a transaction committed, then one aborted
        Properties tp = props(bootstrap);
        tp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "kt-txn");
        tp.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "60000");
        try (Producer<String, String> p = new KafkaProducer<>(tp)) {
            p.initTransactions();
            p.beginTransaction();
            batch(p, "kt-log", "commit", recs("commit", 3, true), ts);
            p.commitTransaction();
            ts += 100;
            p.beginTransaction();
            batch(p, "kt-log", "abort", recs("abort", 2, true), ts);
            p.abortTransaction();
            ts += 100;
        }
        // a last plain batch after the markers
        try (Producer<String, String> p = new KafkaProducer<>(props(bootstrap))) {
            batch(p, "kt-log", "last", recs("last", 1, false), ts);
            ts += 100;
        }
        // kt-roll: several segments
        Properties rp = props(bootstrap);
        rp.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        rp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        try (Producer<String, String> p = new KafkaProducer<>(rp)) {
            char[] pad = new char[1000 - 10];
            Arrays.fill(pad, 'x');
            String padding = new String(pad);
            List<String[]> l = new ArrayList<>();
            for (int i = 0; i < 3000; i++)
                l.add(new String[] {"roll-" + i, String.format("roll-%05d", i) + padding});
            // in steps, so batches are of many sizes and the timestamps grow
            for (int i = 0; i < l.size(); i += 250)
                batch(p, "kt-roll", "roll", l.subList(i, i + 250), ts + i);
        }
        ts += 10000;
        // kt-hang: an open transaction whose producer goes away, then a
        // plain record behind it
        Properties hp = props(bootstrap);
        hp.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "kt-hang");
        hp.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000");
        Producer<String, String> hang = new KafkaProducer<>(hp);
        hang.initTransactions();
        hang.beginTransaction();
        batch(hang, "kt-hang", "hang", recs("hang", 2, false), ts);
        ts += 100;
        try (Producer<String, String> p = new KafkaProducer<>(props(bootstrap))) {
            batch(p, "kt-hang", "after", recs("after", 1, false), ts);
        }
        report.println("done");
        report.close();
        // the open transaction stays open: no abort, no close
        Runtime.getRuntime().halt(0);
    }
}
