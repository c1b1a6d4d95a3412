// compat/telemetry/TelemetryProducer.java: a Java producer (kafka-clients
// 4.4.0, whose enable.metrics.push is on by default) that sends a record
// every 100 ms for the seconds given, then prints the client instance id
// the broker gave it (KafkaProducer.clientInstanceId). Run by
// compat/telemetry/scenarios.sh through compat/kafka-tools/kt java.
//
//   TelemetryProducer TOPIC SECONDS       (GR_BOOTSTRAP: the broker)
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

public class TelemetryProducer {
    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", System.getenv("GR_BOOTSTRAP"));
        p.put("client.id", "telemetry-producer");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        long end = System.currentTimeMillis() + Long.parseLong(args[1]) * 1000;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            int n = 0;
            while (System.currentTimeMillis() < end) {
                producer.send(new ProducerRecord<>(args[0], "k" + n, "v" + n)).get();
                n++;
                Thread.sleep(100);
            }
            System.out.println("sent " + n);
            System.out.println("client instance id "
                + producer.clientInstanceId(Duration.ofSeconds(10)));
        }
    }
}
