// compat/acl/AclJava.java: Kafka's Java clients (kafka-clients of the
// pinned Kafka) over mTLS against the broker of compat/acl/scenarios.sh,
// each principal its PKCS12 keystore (CERTDIR/<name>.properties):
//   the Admin of User:CN=admin (a super user) creates, describes and
//   deletes ACLs; the Admin of User:CN=other is refused them
//   (ClusterAuthorizationException) and CreateTopics
//   (TopicAuthorizationException);
//   the producer of User:CN=producer writes app.orders, is refused
//   other.t and app.secret (TopicAuthorizationException);
//   the consumer of User:CN=consumer reads app.orders in group cg1, and is
//   refused group cg2 (GroupAuthorizationException).
// Run as a single-file source program: kt java AclJava.java BOOTSTRAP CERTDIR
// Prints "ok: ..." per check, "FAIL: ..." and exits 1 when one fails.
import java.io.FileInputStream;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.acl.*;
import org.apache.kafka.common.errors.*;
import org.apache.kafka.common.resource.*;
import org.apache.kafka.common.serialization.*;

public class AclJava {
    static String bootstrap, dir;
    static int fails = 0;

    static Properties props(String who) throws Exception {
        Properties p = new Properties();
        try (FileInputStream in = new FileInputStream(dir + "/" + who + ".properties")) {
            p.load(in);
        }
        p.put("bootstrap.servers", bootstrap);
        return p;
    }

    static void check(String what, boolean ok, Object detail) {
        if (ok) {
            System.out.println("ok: " + what);
        } else {
            fails++;
            System.out.println("FAIL: " + what + " " + detail);
        }
    }

    static Throwable cause(Exception e) {
        return e instanceof ExecutionException ? e.getCause() : e;
    }

    public static void main(String[] args) throws Exception {
        bootstrap = args[0];
        dir = args[1];
        AclBinding b = new AclBinding(
            new ResourcePattern(ResourceType.TOPIC, "app.java", PatternType.LITERAL),
            new AccessControlEntry("User:CN=consumer", "*", AclOperation.DESCRIBE,
                                   AclPermissionType.ALLOW));
        AclBindingFilter f = new AclBindingFilter(
            new ResourcePatternFilter(ResourceType.TOPIC, "app.java", PatternType.MATCH),
            AccessControlEntryFilter.ANY);
        try (Admin admin = Admin.create(props("admin"))) {
            admin.createAcls(List.of(b)).all().get(15, TimeUnit.SECONDS);
            Collection<AclBinding> got = admin.describeAcls(f).values().get(15, TimeUnit.SECONDS);
            // MATCH: the binding on app.java and the producer's app. prefix
            check("Admin describes with a MATCH filter", got.contains(b) && got.size() >= 2, got);
            Collection<AclBinding> gone = admin.deleteAcls(List.of(new AclBindingFilter(
                b.pattern().toFilter(), AccessControlEntryFilter.ANY))).all().get(15, TimeUnit.SECONDS);
            check("Admin deletes the binding", gone.size() == 1 && gone.contains(b), gone);
        }
        try (Admin other = Admin.create(props("other"))) {
            try {
                other.describeAcls(AclBindingFilter.ANY).values().get(15, TimeUnit.SECONDS);
                check("other refused DescribeAcls", false, "described");
            } catch (ExecutionException e) {
                check("other refused DescribeAcls", cause(e) instanceof ClusterAuthorizationException, cause(e));
            }
            try {
                other.createTopics(List.of(new NewTopic("app.java-other", 1, (short) 1)))
                    .all().get(15, TimeUnit.SECONDS);
                check("other refused CreateTopics", false, "created");
            } catch (ExecutionException e) {
                check("other refused CreateTopics", cause(e) instanceof TopicAuthorizationException, cause(e));
            }
        }
        Properties pp = props("producer");
        pp.put("key.serializer", StringSerializer.class.getName());
        pp.put("value.serializer", StringSerializer.class.getName());
        pp.put("delivery.timeout.ms", "10000");
        pp.put("request.timeout.ms", "5000");
        pp.put("max.block.ms", "10000");
        try (KafkaProducer<String, String> p = new KafkaProducer<>(pp)) {
            p.send(new ProducerRecord<>("app.orders", "k", "java")).get(15, TimeUnit.SECONDS);
            check("producer writes app.orders", true, "");
            for (String t : List.of("other.t", "app.secret")) {
                try {
                    p.send(new ProducerRecord<>(t, "k", "x")).get(15, TimeUnit.SECONDS);
                    check("producer refused on " + t, false, "written");
                } catch (ExecutionException e) {
                    check("producer refused on " + t, cause(e) instanceof TopicAuthorizationException, cause(e));
                }
            }
        }
        for (String group : List.of("cg1", "cg2")) {
            Properties cp = props("consumer");
            cp.put("group.id", group);
            cp.put("auto.offset.reset", "earliest");
            cp.put("key.deserializer", StringDeserializer.class.getName());
            cp.put("value.deserializer", StringDeserializer.class.getName());
            int n = 0;
            Exception err = null;
            try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cp)) {
                c.subscribe(List.of("app.orders"));
                long end = System.currentTimeMillis() + 15000;
                while (n == 0 && System.currentTimeMillis() < end) {
                    n += c.poll(Duration.ofMillis(500)).count();
                }
                if (n > 0) {
                    c.commitSync(Duration.ofSeconds(10));
                }
            } catch (Exception e) {
                err = e;
            }
            if (group.equals("cg1")) {
                check("consumer reads app.orders in cg1", n > 0 && err == null, n + " " + err);
            } else {
                check("consumer refused in cg2", n == 0 && err instanceof GroupAuthorizationException, err);
            }
        }
        System.exit(fails == 0 ? 0 : 1);
    }
}
