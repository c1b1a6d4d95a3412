// compat/sasl/SaslCompat.java: the Java client (kafka-clients 4.4 and 3.9)
// over SASL/PLAIN and SCRAM, for compat/sasl/scenarios.sh.
//
//   SaslCompat VERSION CASE...
//
// Each CASE is one argument, "BOOT|PROTO|CA|MECH|USER|PW|TOPIC|TEXT": with
// TEXT empty, 20 records are produced to TOPIC (acks=all) and read back
// by an assigned consumer from the beginning; with TEXT, the login must
// fail: the producer's send ends in a SaslAuthenticationException whose
// message is TEXT exactly, and nothing is acknowledged. PROTO SASL_SSL:
// CA is the CA's PEM (a PEM truststore). Prints "# java VERSION: ..." per
// case; the first failure prints "FAIL java: ..." and exits 1.
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class SaslCompat {
    static String version;

    static void fail(String m) {
        System.out.println("FAIL java " + version + ": " + m);
        System.out.flush();
        Runtime.getRuntime().halt(1);
    }

    static String module(String mech) {
        return mech.equals("PLAIN")
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    }

    static Properties security(String[] c) {
        Properties p = new Properties();
        p.put("bootstrap.servers", c[0]);
        p.put("security.protocol", c[1]);
        if (c[1].equals("SASL_SSL")) {
            p.put("ssl.truststore.type", "PEM");
            p.put("ssl.truststore.location", c[2]);
        }
        p.put("sasl.mechanism", c[3]);
        p.put("sasl.jaas.config", module(c[3]) + " required username=\"" + c[4]
              + "\" password=\"" + c[5] + "\";");
        return p;
    }

    static KafkaProducer<String, String> producer(String[] c) {
        Properties p = security(c);
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("acks", "all");
        p.put("max.block.ms", "15000");
        p.put("delivery.timeout.ms", "20000");
        p.put("request.timeout.ms", "10000");
        return new KafkaProducer<>(p);
    }

    static void ok(String[] c) throws Exception {
        String topic = c[6];
        try (KafkaProducer<String, String> prod = producer(c)) {
            for (int i = 0; i < 20; i++)
                prod.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get();
        }
        Properties p = security(c);
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        TopicPartition tp = new TopicPartition(topic, 0);
        int got = 0;
        try (KafkaConsumer<String, String> cons = new KafkaConsumer<>(p)) {
            cons.assign(List.of(tp));
            cons.seekToBeginning(List.of(tp));
            long end = System.currentTimeMillis() + 30000;
            while (got < 20 && System.currentTimeMillis() < end)
                for (ConsumerRecord<String, String> r : cons.poll(Duration.ofMillis(500))) {
                    if (!r.value().equals("v" + got))
                        fail(topic + ": record " + got + " is " + r.value());
                    got++;
                }
        }
        if (got != 20)
            fail(topic + ": consumed " + got + " of 20");
        System.out.printf("# java %s: %s as %s over %s: 20 records produced and consumed%n",
                          version, c[3], c[4], c[1]);
    }

    static void refused(String[] c) throws Exception {
        try (KafkaProducer<String, String> prod = producer(c)) {
            prod.send(new ProducerRecord<>(c[6], "x", "refused")).get();
            fail(c[3] + " as " + c[4] + ": a record acknowledged after a wrong password");
        } catch (ExecutionException | SaslAuthenticationException e) {
            Throwable t = e instanceof ExecutionException ? e.getCause() : e;
            if (!(t instanceof SaslAuthenticationException) || !c[7].equals(t.getMessage()))
                fail(c[3] + ": want SaslAuthenticationException \"" + c[7] + "\", got " + t);
            System.out.printf("# java %s: %s with a wrong password over %s: %s: %s%n", version,
                              c[3], c[1], t.getClass().getSimpleName(), t.getMessage());
        }
    }

    public static void main(String[] a) throws Exception {
        version = a[0];
        Properties v = new Properties();
        try (java.io.InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            v.load(in);
        }
        if (!version.equals(v.getProperty("version")))
            fail("kafka-clients on the class path is " + v.getProperty("version"));
        for (int i = 1; i < a.length; i++) {
            String[] c = a[i].split("\\|", -1);
            if (c.length != 8)
                fail("bad case " + a[i]);
            if (c[7].isEmpty())
                ok(c);
            else
                refused(c);
        }
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
