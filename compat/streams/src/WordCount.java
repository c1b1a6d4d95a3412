// compat/streams: Kafka Streams word count under exactly_once_v2.
//
//   java WordCount BOOTSTRAP APP_ID STATE_DIR IN_TOPIC OUT_TOPIC PAUSE_MS
//
// flatMapValues splits each line into words, groupBy(word) repartitions
// (topic APP_ID-words-repartition), count() keeps a persistent RocksDB store
// "counts" (changelog APP_ID-counts-changelog); every count is sent to
// OUT_TOPIC (the record cache is off, so each increment is a record).
// Each line takes PAUSE_MS more, so that a backlog takes a while and a kill
// lands mid-stream. Prints "state S" on each state change, "processed N"
// (lines taken from IN_TOPIC by this process) every 100 ms and "restored TP
// N records" when a store partition is restored from its changelog;
// SIGTERM closes it.
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueStore;

public class WordCount {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], appId = args[1], stateDir = args[2];
        String in = args[3], out = args[4];
        long pauseMs = Long.parseLong(args[5]);

        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "classic");
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 500);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        // Kafka's slow timers turned down: a killed instance's member leaves
        // the group after 3 s, its open transaction is aborted after 6 s
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 3000);
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 500);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG), 10000);
        // small fetches: the consumer hands out one partition's fetched
        // records before the next one's, so with 1 MiB of input lines
        // fetched at once the count tasks would wait seconds for the
        // repartition topic's records while the input backlog drains
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG), 4096);
        // and batches no larger, as a partition's first batch is returned
        // whole only when the partition comes first in the response
        p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), 4096);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 100);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 200);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 6000);
        p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 5);
        p.put(StreamsConfig.RETRY_BACKOFF_MS_CONFIG, 100);
        p.put(StreamsConfig.adminClientPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG), 100);

        AtomicLong processed = new AtomicLong();
        StreamsBuilder b = new StreamsBuilder();
        b.stream(in, Consumed.with(Serdes.String(), Serdes.String()))
            .peek((k, v) -> {
                processed.incrementAndGet();
                if (pauseMs > 0) {
                    try {
                        Thread.sleep(pauseMs);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            })
            .flatMapValues(v -> Arrays.asList(v.toLowerCase(Locale.ROOT).split("\\W+")))
            .filter((k, w) -> !w.isEmpty())
            .groupBy((k, w) -> w, Grouped.with("words", Serdes.String(), Serdes.String()))
            .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts")
                .withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
            .toStream()
            .to(out, Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams ks = new KafkaStreams(b.build(), p);
        CountDownLatch done = new CountDownLatch(1);
        ks.setStateListener((now, before) -> {
            System.out.println("state " + now);
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING)
                done.countDown();
        });
        ks.setUncaughtExceptionHandler(e -> {
            System.out.println("uncaught " + e);
            e.printStackTrace(System.out);
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler
                .StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        ks.setGlobalStateRestoreListener(new StateRestoreListener() {
            public void onRestoreStart(TopicPartition tp, String store, long start, long end) {
                System.out.println("restoring " + tp + " " + start + ".." + end);
            }
            public void onBatchRestored(TopicPartition tp, String store, long end, long n) {
            }
            public void onRestoreEnd(TopicPartition tp, String store, long n) {
                System.out.println("restored " + tp + " " + n + " records");
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ks.close(Duration.ofSeconds(30));
            System.out.println("closed, processed " + processed.get());
        }));
        Thread ticker = new Thread(() -> {
            long last = -1;
            while (true) {
                long n = processed.get();
                if (n != last) {
                    System.out.println("processed " + n);
                    last = n;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        ticker.setDaemon(true);
        ticker.start();
        ks.start();
        done.await();
        if (ks.state() == KafkaStreams.State.ERROR)
            System.exit(1);
    }
}
