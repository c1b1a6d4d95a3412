// compat/oauth/OAuthCompat.java: the Java client (kafka-clients 4.4) over
// SASL/OAUTHBEARER, for compat/oauth/scenarios.sh.
//
//   OAuthCompat unsecure BOOT PROTO CA TOPIC
//       OAuthBearerLoginModule's unsecured login (unsecuredLoginStringClaim_sub)
//   OAuthCompat file BOOT PROTO CA TOPIC TOKENFILE [refused TEXT]
//       a token from a file (sasl.oauthbearer.token.endpoint.url file://,
//       OAuthBearerLoginCallbackHandler; the JVM needs
//       -Dorg.apache.kafka.sasl.oauthbearer.allowed.urls=file://TOKENFILE)
//
// Produces and consumes 20 records; with "refused TEXT" the broker must
// refuse the token: a SaslAuthenticationException holding TEXT, nothing
// acknowledged. PROTO SASL_SSL: CA is the CA's PEM.
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class OAuthCompat {
    static final String MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";

    static void fail(String m) {
        System.out.println("FAIL java: " + m);
        System.exit(1);
    }

    public static void main(String[] a) throws Exception {
        String mode = a[0], boot = a[1], proto = a[2], ca = a[3], topic = a[4];
        Properties p = new Properties();
        p.put("bootstrap.servers", boot);
        p.put("security.protocol", proto);
        p.put("sasl.mechanism", "OAUTHBEARER");
        if (proto.equals("SASL_SSL")) {
            p.put("ssl.truststore.type", "PEM");
            p.put("ssl.truststore.location", ca);
        }
        String refused = null;
        if (mode.equals("unsecure")) {
            p.put("sasl.jaas.config", MODULE + " required unsecuredLoginStringClaim_sub=\"alice\";");
        } else {
            p.put("sasl.jaas.config", MODULE + " required;");
            p.put("sasl.login.callback.handler.class",
                  "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
            p.put("sasl.oauthbearer.token.endpoint.url", "file://" + a[5]);
            if (a.length > 7 && a[6].equals("refused"))
                refused = a[7];
        }
        Properties pp = (Properties) p.clone();
        pp.put("key.serializer", StringSerializer.class.getName());
        pp.put("value.serializer", StringSerializer.class.getName());
        pp.put("max.block.ms", "15000");
        pp.put("delivery.timeout.ms", "20000");
        pp.put("request.timeout.ms", "10000");
        try (KafkaProducer<String, String> prod = new KafkaProducer<>(pp)) {
            for (int i = 0; i < 20; i++)
                prod.send(new ProducerRecord<>(topic, "k" + i, "j" + i)).get();
            if (refused != null)
                fail("records acknowledged with a refused token");
        } catch (Exception e) {
            Throwable t = e;
            while (t != null && !(t instanceof SaslAuthenticationException))
                t = t.getCause();
            if (refused == null || t == null || !String.valueOf(t.getMessage()).contains(refused))
                { e.printStackTrace(System.out); fail("produce: " + e); }
            System.out.println("# java refused: " + t.getMessage());
            return;
        }
        Properties cp = (Properties) p.clone();
        cp.put("key.deserializer", StringDeserializer.class.getName());
        cp.put("value.deserializer", StringDeserializer.class.getName());
        cp.put("group.id", "j-" + UUID.randomUUID());
        cp.put("auto.offset.reset", "earliest");
        List<String> got = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cp)) {
            c.subscribe(List.of(topic));
            long end = System.currentTimeMillis() + 30000;
            while (got.size() < 20 && System.currentTimeMillis() < end)
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(500)))
                    got.add(r.value());
        }
        if (got.size() != 20)
            fail("consumed " + got.size() + " of 20");
        System.out.println("# java: 20 records produced and consumed (" + mode + ")");
    }
}
