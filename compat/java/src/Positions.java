// The consumer by assign(): read_committed against read_uncommitted around
// an open transaction (the LSO), seek, seekToBeginning/End,
// offsetsForTimes, beginningOffsets/endOffsets after DeleteRecords, and
// the out-of-range and no-offset resets.
import java.time.Duration;
import java.util.*;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

class Positions extends Compat {
    static final TopicPartition TP = new TopicPartition("pos", 0);
    static final List<TopicPartition> TPS = Collections.singletonList(TP);

    static ConsumerRecord<String, String> firstAfterSeek(KafkaConsumer<String, String> c) {
        long deadline = System.currentTimeMillis() + 15000;
        while (System.currentTimeMillis() < deadline) {
            ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(100));
            if (!rs.isEmpty())
                return rs.iterator().next();
        }
        throw new Fail("no record within 15 s");
    }

    static long end(KafkaConsumer<String, String> c) {
        return c.endOffsets(TPS).get(TP);
    }

    static void run() throws Exception {
        long base = System.currentTimeMillis() - 3_600_000;
        try (Admin a = admin()) {
            createTopics(a, topic("pos", 1));
            try (KafkaProducer<String, String> p = producer("linger.ms", "0")) {
                for (int i = 0; i < 20; i++)
                    get(p.send(new ProducerRecord<>("pos", 0, base + i * 1000L, "k" + i, "v" + i)));
            }
            KafkaProducer<String, String> tx = producer("transactional.id", "j-pos-tx", "linger.ms", "0");
            try (KafkaConsumer<String, String> ru = consumer(null, "isolation.level", "read_uncommitted");
                 KafkaConsumer<String, String> rc = consumer(null, "isolation.level", "read_committed")) {
                ru.assign(TPS);
                rc.assign(TPS);
                tx.initTransactions();
                tx.beginTransaction();
                for (int i = 20; i < 25; i++)
                    tx.send(new ProducerRecord<>("pos", 0, "k" + i, "t" + i));
                tx.flush();
                eq(25L, end(ru), "an open transaction: read_uncommitted end offset (the high watermark)");
                eq(20L, end(rc), "an open transaction: read_committed end offset (the LSO)");
                eq(0L, ru.beginningOffsets(TPS).get(TP), "beginning offset");
                eq(range(0, 20), offsets(readAllNow(TPS, "read_committed")), "read_committed: up to the LSO");
                eq(range(0, 25), offsets(readAll(TPS, "read_uncommitted")), "read_uncommitted: the open transaction too");
                rc.seekToEnd(TPS);
                eq(20L, rc.position(TP), "read_committed: seekToEnd is the LSO");
                ru.seekToEnd(TPS);
                eq(25L, ru.position(TP), "read_uncommitted: seekToEnd is the high watermark");
                tx.commitTransaction();
                tx.close();
                settle(TPS);
                eq(26L, end(rc), "committed: read_committed end offset past the marker");
                eq(26L, end(ru), "committed: read_uncommitted end offset");
                List<ConsumerRecord<String, String>> all = readAll(TPS, "read_committed");
                eq(range(0, 25), offsets(all), "read_committed: the committed transaction");
                eq("t24", all.get(24).value(), "read_committed: its last value");
                rc.seekToEnd(TPS);
                eq(26L, rc.position(TP), "read_committed: seekToEnd after the commit");

                ru.seek(TP, 10);
                eq(10L, ru.position(TP), "seek: the position");
                ConsumerRecord<String, String> r = firstAfterSeek(ru);
                eq("10 v10 " + (base + 10_000), r.offset() + " " + r.value() + " " + r.timestamp(),
                        "seek: the next record");
                ru.seekToBeginning(TPS);
                eq(0L, ru.position(TP), "seekToBeginning: the position");
                eq(0L, firstAfterSeek(ru).offset(), "seekToBeginning: the next record");
                section("pause and resume", () -> {
                    ru.seek(TP, 20);
                    ru.pause(TPS);
                    eq(TPS.get(0), ru.paused().iterator().next(), "paused");
                    int n = 0;
                    for (int i = 0; i < 3; i++)
                        n += ru.poll(Duration.ofMillis(100)).count();
                    eq(0, n, "paused: no records");
                    ru.resume(TPS);
                    eq(20L, firstAfterSeek(ru).offset(), "resumed: the next record");
                });
                ru.seekToEnd(TPS);
                for (int i = 0; i < 50 && !ru.currentLag(TP).isPresent(); i++)
                    ru.poll(Duration.ofMillis(100));
                eq(OptionalLong.of(0), ru.currentLag(TP), "at the end: lag 0");

                Map<TopicPartition, OffsetAndTimestamp> ft = ru.offsetsForTimes(Collections.singletonMap(TP, base + 5500));
                eq(new OffsetAndTimestamp(6, base + 6000, Optional.of(0)), ft.get(TP), "offsetsForTimes between two records");
                ft = ru.offsetsForTimes(Collections.singletonMap(TP, base - 1));
                eq(new OffsetAndTimestamp(0, base, Optional.of(0)), ft.get(TP), "offsetsForTimes before the first");
                ft = ru.offsetsForTimes(Collections.singletonMap(TP, System.currentTimeMillis() + 3_600_000));
                eq(null, ft.get(TP), "offsetsForTimes after the last");
                ft = ru.offsetsForTimes(Collections.singletonMap(TP, base + 19_500));
                eq(20L, ft.get(TP).offset(), "offsetsForTimes: the transaction's first record");

                get(a.deleteRecords(Collections.singletonMap(TP, RecordsToDelete.beforeOffset(5))).all());
                eq(5L, ru.beginningOffsets(TPS).get(TP), "after DeleteRecords: beginning offset");
                ru.seekToBeginning(TPS);
                eq(5L, ru.position(TP), "after DeleteRecords: seekToBeginning");
                eq("v5", firstAfterSeek(ru).value(), "after DeleteRecords: the first record");
                ft = ru.offsetsForTimes(Collections.singletonMap(TP, base));
                eq(new OffsetAndTimestamp(5, base + 5000, Optional.of(0)), ft.get(TP), "after DeleteRecords: offsetsForTimes");
            }
        }
        // out of range: reset by auto.offset.reset, or an error
        try (KafkaConsumer<String, String> c = consumer(null, "auto.offset.reset", "earliest")) {
            c.assign(TPS);
            c.seek(TP, 2);
            eq(5L, firstAfterSeek(c).offset(), "below the log start, earliest: reset to the log start");
        }
        try (KafkaConsumer<String, String> c = consumer(null, "auto.offset.reset", "latest")) {
            c.assign(TPS);
            c.seek(TP, 1000);
            long deadline = System.currentTimeMillis() + 10000;
            while (c.position(TP) == 1000 && System.currentTimeMillis() < deadline)
                c.poll(Duration.ofMillis(100));
            eq(26L, c.position(TP), "past the end, latest: reset to the end");
        }
        try (KafkaConsumer<String, String> c = consumer(null, "auto.offset.reset", "none")) {
            c.assign(TPS);
            c.seek(TP, 1);
            OffsetOutOfRangeException e = expectThrows(OffsetOutOfRangeException.class,
                    "below the log start, none", () -> {
                        for (int i = 0; i < 100; i++)
                            c.poll(Duration.ofMillis(100));
                    });
            eq(1L, e.offsetOutOfRangePartitions().get(TP), "the out-of-range offset");
        }
        try (KafkaConsumer<String, String> c = consumer("j-pos-none", "auto.offset.reset", "none")) {
            c.assign(TPS);
            expectThrows(NoOffsetForPartitionException.class, "a group without offsets, none",
                    () -> c.position(TP));
        }
        try (KafkaConsumer<String, String> c = consumer("j-pos-latest", "auto.offset.reset", "latest")) {
            c.assign(TPS);
            eq(26L, c.position(TP), "a group without offsets, latest: the end");
        }
        // KIP-320: a position carrying a leader epoch is validated with
        // OffsetForLeaderEpoch before the consumer fetches from it
        section("seek with a leader epoch (OffsetForLeaderEpoch)", () -> {
            try (KafkaConsumer<String, String> c = consumer(null, "auto.offset.reset", "none")) {
                c.assign(TPS);
                c.seek(TP, new OffsetAndMetadata(12, Optional.of(0), ""));
                eq(12L, firstAfterSeek(c).offset(), "inside epoch 0: the position stands");
                c.seek(TP, new OffsetAndMetadata(40, Optional.of(0), ""));
                LogTruncationException e = expectThrows(LogTruncationException.class,
                        "past the end of epoch 0, none", () -> {
                            for (int i = 0; i < 100; i++)
                                c.poll(Duration.ofMillis(100));
                        });
                OffsetAndMetadata d = e.divergentOffsets().get(TP);
                eq("26 " + Optional.of(0), d.offset() + " " + d.leaderEpoch(),
                        "the divergent offset: epoch 0 ends at the log end");
            }
        });
        endSections();
    }
}
