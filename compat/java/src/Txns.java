// Idempotent and transactional producers: sequences as DescribeProducers
// reports them; commit and abort with the offsets their markers take; a
// producer fenced by a second instance; consume-transform-produce.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;

class Txns extends Compat {
    static void run() throws Exception {
        try (Admin a = admin()) {
            createTopics(a, topic("idem", 3), topic("txn", 1), topic("fence", 1), topic("ctp-in", 2),
                    topic("ctp-out", 2), topic("txn-timeout", 1), topic("mixed", 1), topic("pending", 1));
            section("idempotent", () -> idempotent(a));
        }
        section("transactions", Txns::transactions);
        section("fencing", Txns::fencing);
        section("consume-transform-produce", Txns::consumeTransformProduce);
        section("timeout", Txns::timeout);
        section("interleaved", Txns::interleaved);
        section("pending offsets", Txns::pendingOffsets);
        endSections();
    }

    static void idempotent(Admin a) throws Exception {
        List<Future<RecordMetadata>> fs = new ArrayList<>();
        try (KafkaProducer<String, String> p = producer("enable.idempotence", "true", "acks", "all",
                "max.in.flight.requests.per.connection", "5", "batch.size", "2048", "linger.ms", "2")) {
            for (int i = 0; i < 3000; i++)
                fs.add(p.send(new ProducerRecord<>("idem", i % 3, "k" + i, Integer.toString(i))));
            p.flush();
        }
        for (int i = 0; i < 3000; i++) {
            RecordMetadata m = get(fs.get(i));
            if (m.partition() != i % 3 || m.offset() != i / 3)
                throw new Fail("idempotent record " + i + " at " + m.partition() + "/" + m.offset());
        }
        ok("idempotent: 3000 records at contiguous offsets in 3 partitions");
        List<TopicPartition> tps = partitions("idem", 3);
        Map<TopicPartition, DescribeProducersResult.PartitionProducerState> st =
                get(a.describeProducers(tps).all());
        Set<Long> pids = new HashSet<>();
        for (TopicPartition tp : tps) {
            List<ProducerState> ps = st.get(tp).activeProducers();
            eq(1, ps.size(), tp + ": active producers");
            ProducerState s = ps.get(0);
            eq(999, s.lastSequence(), tp + ": the producer's last sequence");
            eq(0, s.producerEpoch(), tp + ": the producer's epoch");
            eq(OptionalLong.empty(), s.currentTransactionStartOffset(), tp + ": no open transaction");
            pids.add(s.producerId());
        }
        eq(1, pids.size(), "one producer id in every partition");
        List<ConsumerRecord<String, String>> rs = readAll(tps, "read_uncommitted");
        eq(3000, rs.size(), "idempotent: records read back");
        for (ConsumerRecord<String, String> r : rs) {
            int i = Integer.parseInt(r.value());
            if (r.partition() != i % 3 || r.offset() != i / 3 || !r.key().equals("k" + i))
                throw new Fail("idempotent: read " + r);
        }
        ok("idempotent: each once, in order, at its offset");
    }

    static KafkaProducer<String, String> txnProducer(String id) {
        return producer("transactional.id", id, "transaction.timeout.ms", "20000", "linger.ms", "0");
    }

    static List<Long> sendAll(KafkaProducer<String, String> p, String topic, String prefix, int n)
            throws Exception {
        List<Future<RecordMetadata>> fs = new ArrayList<>();
        for (int i = 0; i < n; i++)
            fs.add(p.send(new ProducerRecord<>(topic, 0, "k" + i, prefix + i)));
        p.flush();
        List<Long> offs = new ArrayList<>();
        for (Future<RecordMetadata> f : fs)
            offs.add(get(f).offset());
        return offs;
    }

    static void transactions() throws Exception {
        List<Long> o1, o2, o3;
        try (KafkaProducer<String, String> p = txnProducer("j-txn")) {
            p.initTransactions();
            p.beginTransaction();
            o1 = sendAll(p, "txn", "c1-", 10);
            p.commitTransaction();
            p.beginTransaction();
            o2 = sendAll(p, "txn", "a-", 10);
            p.abortTransaction();
            p.beginTransaction();
            o3 = sendAll(p, "txn", "c2-", 10);
            p.commitTransaction();
        }
        eq(range(0, 10), o1, "committed transaction: offsets");
        eq(range(11, 21), o2, "aborted transaction: offsets (after the commit marker)");
        eq(range(22, 32), o3, "second committed transaction: offsets");
        List<TopicPartition> tp = partitions("txn", 1);
        List<ConsumerRecord<String, String>> rc = readAll(tp, "read_committed");
        List<Long> want = range(0, 10);
        want.addAll(range(22, 32));
        eq(want, offsets(rc), "read_committed: the committed records' offsets");
        List<String> wv = new ArrayList<>();
        for (int i = 0; i < 10; i++)
            wv.add("c1-" + i);
        for (int i = 0; i < 10; i++)
            wv.add("c2-" + i);
        eq(wv, values(rc), "read_committed: the committed values");
        List<ConsumerRecord<String, String>> ru = readAll(tp, "read_uncommitted");
        want = range(0, 10);
        want.addAll(range(11, 21));
        want.addAll(range(22, 32));
        eq(want, offsets(ru), "read_uncommitted: every record, markers skipped");
        eq("a-0", ru.get(10).value(), "read_uncommitted: the aborted records too");
        try (KafkaConsumer<String, String> c = consumer(null, "isolation.level", "read_committed")) {
            eq(33L, c.endOffsets(tp).get(tp.get(0)), "read_committed end offset: past the last marker");
        }
    }

    static void fencing() throws Exception {
        List<TopicPartition> tp = partitions("fence", 1);
        KafkaProducer<String, String> zombie = txnProducer("j-fence");
        try {
            zombie.initTransactions();
            zombie.beginTransaction();
            eq(Arrays.asList(0L), sendAll(zombie, "fence", "zombie-", 1), "the first instance's record");
            try (KafkaProducer<String, String> p = txnProducer("j-fence")) {
                p.initTransactions();
                p.beginTransaction();
                eq(Arrays.asList(2L), sendAll(p, "fence", "new-", 1),
                        "the second instance's record (after the first's abort marker)");
                p.commitTransaction();
            }
            expectThrows(ProducerFencedException.class, "the first instance commits", zombie::commitTransaction);
        } finally {
            zombie.close(Duration.ofSeconds(5));
        }
        eq(Arrays.asList("new-0"), values(readAll(tp, "read_committed")), "read_committed: the second instance's");
        List<ConsumerRecord<String, String>> ru = readAll(tp, "read_uncommitted");
        eq(Arrays.asList(0L, 2L), offsets(ru), "read_uncommitted: both, around the abort marker");
    }

    static void consumeTransformProduce() throws Exception {
        try (KafkaProducer<String, String> p = producer()) {
            for (int i = 0; i < 100; i++)
                p.send(new ProducerRecord<>("ctp-in", i % 2, "k" + i, "in-" + i));
            p.flush();
        }
        int batches = 0, aborted = 0;
        Set<String> done = new HashSet<>();
        try (KafkaConsumer<String, String> c = consumer("j-ctp", "isolation.level", "read_committed",
                "max.poll.records", "10");
             KafkaProducer<String, String> p = txnProducer("j-ctp-tx")) {
            p.initTransactions();
            c.subscribe(Collections.singleton("ctp-in"));
            long deadline = System.currentTimeMillis() + 40000;
            while (done.size() < 100) {
                if (System.currentTimeMillis() > deadline)
                    throw new Fail("consume-transform-produce: " + done.size() + " of 100 after 40 s");
                ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(200));
                if (rs.isEmpty())
                    continue;
                batches++;
                p.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
                List<String> these = new ArrayList<>();
                for (ConsumerRecord<String, String> r : rs) {
                    p.send(new ProducerRecord<>("ctp-out", r.partition(), r.key(), "out-" + r.value()));
                    offs.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    these.add(r.value());
                }
                p.sendOffsetsToTransaction(offs, c.groupMetadata());
                if (batches == 3) {
                    // abort one (once written): its output is dropped, its
                    // input read again
                    p.flush();
                    p.abortTransaction();
                    aborted = these.size();
                    Map<TopicPartition, OffsetAndMetadata> committed = c.committed(c.assignment());
                    for (TopicPartition tp : c.assignment()) {
                        OffsetAndMetadata om = committed.get(tp);
                        c.seek(tp, om == null ? 0 : om.offset());
                    }
                    continue;
                }
                p.commitTransaction();
                done.addAll(these);
            }
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new HashSet<>(partitions("ctp-in", 2)));
            eq(50L, committed.get(new TopicPartition("ctp-in", 0)).offset(), "ctp: the group's offset in ctp-in-0");
            eq(50L, committed.get(new TopicPartition("ctp-in", 1)).offset(), "ctp: the group's offset in ctp-in-1");
        }
        check(aborted > 0, "ctp: one transaction of " + aborted + " records aborted and redone");
        List<ConsumerRecord<String, String>> out = readAll(partitions("ctp-out", 2), "read_committed");
        List<String> vals = values(out);
        Collections.sort(vals);
        List<String> want = new ArrayList<>();
        for (int i = 0; i < 100; i++)
            want.add("out-in-" + i);
        Collections.sort(want);
        eq(want, vals, "ctp: read_committed output, each input once");
        List<ConsumerRecord<String, String>> all = readAll(partitions("ctp-out", 2), "read_uncommitted");
        eq(100 + aborted, all.size(), "ctp: read_uncommitted output, the aborted batch too");
    }

    /** A transaction left open past its transaction.timeout.ms is aborted
     * by the coordinator, which bumps the epoch: the producer's commit is
     * fenced. */
    static void timeout() throws Exception {
        List<TopicPartition> tp = partitions("txn-timeout", 1);
        KafkaProducer<String, String> p = producer("transactional.id", "j-timeout", "transaction.timeout.ms", "1000",
                "linger.ms", "0");
        try {
            p.initTransactions();
            p.beginTransaction();
            eq(Arrays.asList(0L), sendAll(p, "txn-timeout", "late-", 1), "timeout: a record");
            boolean v2;
            try (Admin a = admin()) {
                v2 = transactionV2(a);
                int epoch = get(a.describeTransactions(Collections.singleton("j-timeout")).all()).get("j-timeout")
                        .producerEpoch();
                waitFor("the coordinator to abort the transaction", 15000, () ->
                        get(a.describeTransactions(Collections.singleton("j-timeout")).all()).get("j-timeout")
                                .state() == org.apache.kafka.clients.admin.TransactionState.COMPLETE_ABORT);
                ok("timeout: the coordinator aborted it");
                section("timeout: the epoch", () -> eq(epoch + 1, get(a.describeTransactions(
                        Collections.singleton("j-timeout")).all()).get("j-timeout").producerEpoch(),
                        "timeout: the epoch after the abort (one bump)"));
            }
            if (v2) {
                // EndTxn v5 from the epoch just before: a retry of an end
                // that was an abort, so a commit is in the wrong state
                expectThrows(org.apache.kafka.common.errors.InvalidTxnStateException.class,
                        "timeout: the producer commits (transaction version 2)", p::commitTransaction);
            } else {
                expectThrows(ProducerFencedException.class, "timeout: the producer commits", p::commitTransaction);
            }
        } finally {
            p.close(Duration.ofSeconds(5));
        }
        eq(Collections.emptyList(), readAll(tp, "read_committed"), "timeout: read_committed sees nothing");
        eq(Arrays.asList(0L), offsets(readAll(tp, "read_uncommitted")), "timeout: the record before the abort marker");
        try (KafkaProducer<String, String> q = txnProducer("j-timeout")) {
            q.initTransactions();
            q.beginTransaction();
            eq(Arrays.asList(2L), sendAll(q, "txn-timeout", "next-", 1), "timeout: a new instance's record");
            q.commitTransaction();
        }
        eq(Arrays.asList("next-0"), values(readAll(tp, "read_committed")), "timeout: the new instance's, committed");
    }

    /** One partition, a transactional producer's records between a plain
     * producer's: an aborted transaction's records drop out of
     * read_committed and the others' stay, at their offsets. */
    static void interleaved() throws Exception {
        List<TopicPartition> tp = partitions("mixed", 1);
        List<Long> plain = new ArrayList<>();
        try (KafkaProducer<String, String> t = txnProducer("j-mixed");
             KafkaProducer<String, String> p = producer("linger.ms", "0")) {
            t.initTransactions();
            t.beginTransaction();
            sendAll(t, "mixed", "a-", 2);                 // 0, 1
            plain.addAll(sendAll(p, "mixed", "p-", 2));   // 2, 3
            sendAll(t, "mixed", "b-", 1);                 // 4
            t.abortTransaction();                         // marker 5
            settle(tp); // Kafka writes the marker after EndTxn answers
            plain.addAll(sendAll(p, "mixed", "q-", 1));   // 6
            t.beginTransaction();
            sendAll(t, "mixed", "c-", 1);                 // 7
            plain.addAll(sendAll(p, "mixed", "r-", 1));   // 8
            t.commitTransaction();                        // marker 9
        }
        eq(Arrays.asList(2L, 3L, 6L, 8L), plain, "interleaved: the plain producer's offsets");
        List<ConsumerRecord<String, String>> rc = readAll(tp, "read_committed");
        eq("[p-0, p-1, q-0, c-0, r-0] [2, 3, 6, 7, 8]", values(rc) + " " + offsets(rc),
                "interleaved: read_committed drops only the aborted transaction's");
        List<ConsumerRecord<String, String>> ru = readAll(tp, "read_uncommitted");
        eq("[0, 1, 2, 3, 4, 6, 7, 8]", offsets(ru).toString(), "interleaved: read_uncommitted");
    }

    /** Offsets sent to an open transaction are pending: a read_committed
     * consumer's committed() waits for them (OffsetFetch require_stable
     * answers UNSTABLE_OFFSET_COMMIT), and sees them once committed. */
    static void pendingOffsets() throws Exception {
        TopicPartition tp = new TopicPartition("pending", 0);
        try (KafkaProducer<String, String> t = txnProducer("j-pending");
             KafkaConsumer<String, String> c = consumer("j-pending-group", "isolation.level", "read_committed")) {
            c.assign(Collections.singleton(tp));
            t.initTransactions();
            t.beginTransaction();
            sendAll(t, "pending", "x-", 1);
            t.sendOffsetsToTransaction(Collections.singletonMap(tp, new OffsetAndMetadata(7, "txn")),
                    new org.apache.kafka.clients.consumer.ConsumerGroupMetadata("j-pending-group"));
            expectThrows(org.apache.kafka.common.errors.TimeoutException.class,
                    "committed() while the transaction is open", () -> c.committed(Collections.singleton(tp),
                            Duration.ofMillis(1500)));
            t.commitTransaction();
            OffsetAndMetadata om = c.committed(Collections.singleton(tp), Duration.ofSeconds(15)).get(tp);
            eq("7 txn", om.offset() + " " + om.metadata(), "committed() once the transaction commits");
        }
    }

    /** Whether this client runs transactions at version 2 (KIP-890): a 4.x
     * client against a broker that finalizes transaction.version 2. */
    static boolean transactionV2(Admin a) throws Exception {
        if (version.startsWith("3."))
            return false;
        org.apache.kafka.clients.admin.FinalizedVersionRange r =
                get(a.describeFeatures().featureMetadata()).finalizedFeatures().get("transaction.version");
        boolean v2 = r != null && r.maxVersionLevel() >= 2;
        System.out.println("# java " + version + ": transaction version " + (v2 ? 2 : "0/1"));
        return v2;
    }
}
