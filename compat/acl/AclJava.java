// compat/acl/AclJava.java: Kafka's Java clients (kafka-clients of the
// pinned Kafka) against the broker of compat/acl/scenarios.sh, each
// principal logging in as CERTDIR/<name>.properties says (its PKCS12
// keystore over mTLS, User:CN=<name>, or SASL, User:<name>):
//   the Admin of admin (a super user) creates, describes and deletes ACLs
//   and alters any topic's config; the Admin of other is refused them
//   (ClusterAuthorizationException), CreateTopics
//   (TopicAuthorizationException) and a broker config
//   (ClusterAuthorizationException); the Admin of ops (CREATE on the
//   cluster, ALTER_CONFIGS under ops.) creates a topic and alters ops.t,
//   not app.orders (TopicAuthorizationException);
//   the producer of producer writes app.orders, is refused other.t and
//   app.secret (TopicAuthorizationException);
//   the consumer of consumer reads app.orders in group cg1, and is
//   refused group cg2 (GroupAuthorizationException) and topic other.t
//   (TopicAuthorizationException);
//   the transactional producer of txn commits as tx1, is refused tx2
//   (TransactionalIdAuthorizationException);
//   a producer of other, refused app.late, writes it once the admin adds
//   an ACL and is refused again once it is deleted, without reconnecting.
// Run as a single-file source program: kt java AclJava.java BOOTSTRAP CERTDIR
// Prints "ok: ..." per check, "FAIL: ..." and exits 1 when one fails.
import java.io.File;
import java.io.FileInputStream;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.acl.*;
import org.apache.kafka.common.config.ConfigResource;
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
        try (KafkaProducer<String, String> p = new KafkaProducer<>(producerProps("producer"))) {
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
        for (String group : List.of("cg1", "cg2", "cg1 other.t")) {
            String topic = group.endsWith("other.t") ? "other.t" : "app.orders";
            Properties cp = props("consumer");
            cp.put("group.id", group.split(" ")[0]);
            cp.put("auto.offset.reset", "earliest");
            cp.put("key.deserializer", StringDeserializer.class.getName());
            cp.put("value.deserializer", StringDeserializer.class.getName());
            int n = 0;
            Exception err = null;
            try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cp)) {
                c.subscribe(List.of(topic));
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
            } else if (group.equals("cg2")) {
                check("consumer refused in cg2", n == 0 && err instanceof GroupAuthorizationException, err);
            } else {
                check("consumer refused other.t in cg1", n == 0 && err instanceof TopicAuthorizationException, err);
            }
        }
        transactions();
        adminOps();
        aclChange();
        System.exit(fails == 0 ? 0 : 1);
    }

    static Properties producerProps(String who) throws Exception {
        Properties pp = props(who);
        pp.put("key.serializer", StringSerializer.class.getName());
        pp.put("value.serializer", StringSerializer.class.getName());
        pp.put("delivery.timeout.ms", "10000");
        pp.put("request.timeout.ms", "5000");
        pp.put("max.block.ms", "10000");
        return pp;
    }

    static void transactions() throws Exception {
        for (String id : List.of("tx1", "tx2")) {
            Properties pp = producerProps("txn");
            pp.put("transactional.id", id);
            try (KafkaProducer<String, String> p = new KafkaProducer<>(pp)) {
                p.initTransactions();
                p.beginTransaction();
                p.send(new ProducerRecord<>("app.txn", "k", "java-" + id));
                p.commitTransaction();
                check("txn commits as " + id, id.equals("tx1"), "committed");
            } catch (KafkaException e) {
                if (id.equals("tx1")) {
                    check("txn commits as tx1", false, e);
                } else {
                    check("txn refused as tx2", e instanceof TransactionalIdAuthorizationException, e);
                }
            }
        }
    }

    // incrementalAlterConfigs SET key=value: null, or the exception
    static Throwable alter(Admin a, ConfigResource.Type t, String name, String key,
                           String value, boolean validate) throws Exception {
        ConfigResource r = new ConfigResource(t, name);
        try {
            a.incrementalAlterConfigs(Map.of(r, List.of(new AlterConfigOp(
                new ConfigEntry(key, value), AlterConfigOp.OpType.SET))),
                new AlterConfigsOptions().validateOnly(validate)).all().get(15, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    static void adminOps() throws Exception {
        try (Admin ops = Admin.create(props("ops"))) {
            String name = "ops.java-" + UUID.randomUUID().toString().substring(0, 6);
            try {
                ops.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get(15, TimeUnit.SECONDS);
                check("ops creates a topic (CREATE on the cluster)", true, "");
            } catch (ExecutionException e) {
                check("ops creates a topic (CREATE on the cluster)", false, e.getCause());
            }
            Throwable t = alter(ops, ConfigResource.Type.TOPIC, "ops.t", "retention.ms", "4800000", false);
            check("ops alters ops.t's config", t == null, t);
            t = alter(ops, ConfigResource.Type.TOPIC, "app.orders", "retention.ms", "4800000", false);
            check("ops refused AlterConfigs on app.orders", t instanceof TopicAuthorizationException, t);
        }
        try (Admin other = Admin.create(props("other"));
             Admin admin = Admin.create(props("admin"))) {
            String node = admin.describeCluster().nodes().get(15, TimeUnit.SECONDS)
                .iterator().next().idString();
            Throwable t = alter(other, ConfigResource.Type.BROKER, node, "log.cleaner.backoff.ms",
                                "20000", true);
            check("other refused AlterConfigs on the broker", t instanceof ClusterAuthorizationException, t);
            t = alter(admin, ConfigResource.Type.TOPIC, "other.t", "retention.ms", "4800000", false);
            check("admin (super user) alters other.t's config", t == null, t);
        }
    }

    // sends to app.late until ok(the exception or null) holds or 20 s pass
    static Throwable sendUntil(KafkaProducer<String, String> p,
                               java.util.function.Predicate<Throwable> ok) throws Exception {
        long end = System.currentTimeMillis() + 20000;
        while (true) {
            Throwable t = null;
            try {
                p.send(new ProducerRecord<>("app.late", "k", "java")).get(15, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                t = e.getCause();
            } catch (KafkaException e) {
                t = e;
            }
            if (ok.test(t) || System.currentTimeMillis() > end) {
                return t;
            }
            Thread.sleep(300);
        }
    }

    static void aclChange() throws Exception {
        String who = (new File(dir + "/admin.pem").exists() ? "User:CN=" : "User:") + "other";
        Properties pp = producerProps("other");
        // with WRITE on no topic, an idempotent producer's InitProducerId
        // is refused (KIP-679), which is fatal to it
        pp.put("enable.idempotence", "false");
        pp.put("metadata.max.age.ms", "500");
        AclBinding b = new AclBinding(
            new ResourcePattern(ResourceType.TOPIC, "app.late", PatternType.LITERAL),
            new AccessControlEntry(who, "*", AclOperation.WRITE, AclPermissionType.ALLOW));
        try (KafkaProducer<String, String> p = new KafkaProducer<>(pp);
             Admin admin = Admin.create(props("admin"))) {
            Throwable t = sendUntil(p, x -> true);
            check("other refused on app.late", t instanceof TopicAuthorizationException, t);
            admin.createAcls(List.of(b)).all().get(15, TimeUnit.SECONDS);
            t = sendUntil(p, x -> x == null);
            check("the same producer writes app.late once the ACL is there", t == null, t);
            admin.deleteAcls(List.of(b.toFilter())).all().get(15, TimeUnit.SECONDS);
            t = sendUntil(p, x -> x instanceof TopicAuthorizationException);
            check("and is refused again once it is deleted", t instanceof TopicAuthorizationException, t);
        }
    }
}
