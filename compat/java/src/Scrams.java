// SASL/SCRAM-SHA-256 and -512 (src/net/scram.c) end to end: the Admin
// makes a user's two credentials over PLAINTEXT (AlterUserScramCredentials)
// and describes them; then, over the SASL_PLAINTEXT listener
// ($GR_SASL_BOOTSTRAP), each mechanism's producer writes records that a
// group consumer reads back and an Admin describes the cluster (also as a
// user whose name holds '=' and ','); a wrong
// password, the other mechanism's password, an unknown user and a removed
// credential each fail the producer and the Admin with
// SaslAuthenticationException carrying Kafka's message, append nothing,
// and the broker goes on serving good logins.
import java.time.Duration;
import java.util.*;

import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;

class Scrams extends Compat {
    static final String USER = "sam";
    static final Map<String, String> PW = Map.of("SCRAM-SHA-256", "sam-pw256", "SCRAM-SHA-512", "sam-pw512");

    /** Kafka's SaslServerAuthenticator words every SCRAM refusal so. */
    static String refusal(String mech) {
        return "Authentication failed during authentication due to invalid credentials with SASL mechanism "
                + mech;
    }

    /** The SASL listener's properties for user/pw with mech: SASL_SSL
     * when $GR_SASL_CA names the CA's PEM, else SASL_PLAINTEXT. */
    static String[] sasl(String mech, String user, String pw) {
        String[] s = { "bootstrap.servers", System.getenv("GR_SASL_BOOTSTRAP"),
                "security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", mech,
                "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                        + user + "\" password=\"" + pw + "\";" };
        String ca = System.getenv("GR_SASL_CA");
        if (ca == null)
            return s;
        s[3] = "SASL_SSL";
        return concat(s, "ssl.truststore.type", "PEM", "ssl.truststore.location", ca);
    }

    static Admin admin(String... kv) {
        Properties p = common();
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        for (int i = 0; i + 1 < kv.length; i += 2)
            p.put(kv[i], kv[i + 1]);
        return Admin.create(p);
    }

    static ScramMechanism mechanism(String mech) {
        return mech.equals("SCRAM-SHA-256") ? ScramMechanism.SCRAM_SHA_256 : ScramMechanism.SCRAM_SHA_512;
    }

    static void run() throws Exception {
        try (Admin a = admin()) {
            // one alteration of a user per request (Kafka's DUPLICATE_RESOURCE)
            get(a.alterUserScramCredentials(List.of(
                    new UserScramCredentialUpsertion(USER, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096),
                            PW.get("SCRAM-SHA-256")))).all());
            get(a.alterUserScramCredentials(List.of(
                    new UserScramCredentialUpsertion(USER, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192),
                            PW.get("SCRAM-SHA-512")))).all());
            Set<String> got = new TreeSet<>();
            for (ScramCredentialInfo i : get(a.describeUserScramCredentials(List.of(USER)).all())
                    .get(USER).credentialInfos())
                got.add(i.mechanism() + "/" + i.iterations());
            eq(new TreeSet<>(List.of("SCRAM_SHA_256/4096", "SCRAM_SHA_512/8192")), got,
                    "describeUserScramCredentials after the upsert");
        }
        for (String mech : List.of("SCRAM-SHA-256", "SCRAM-SHA-512"))
            section(mech, () -> good(mech));
        for (String mech : List.of("SCRAM-SHA-256", "SCRAM-SHA-512"))
            section(mech + " refused", () -> {
                String other = PW.get(mech.equals("SCRAM-SHA-256") ? "SCRAM-SHA-512" : "SCRAM-SHA-256");
                refused(mech, USER, "wrong", "a wrong password");
                refused(mech, USER, other, "the other mechanism's password");
                refused(mech, "nobody", PW.get(mech), "an unknown user");
            });
        section("an escaped user name", Scrams::escaped);
        endSections();
        // a credential removed counts at once; the other mechanism still logs in
        try (Admin a = admin()) {
            get(a.alterUserScramCredentials(List.of(
                    new UserScramCredentialDeletion(USER, ScramMechanism.SCRAM_SHA_256))).all());
        }
        refused("SCRAM-SHA-256", USER, PW.get("SCRAM-SHA-256"), "a removed credential");
        // the broker is up after every refusal: a good login appends
        try (KafkaProducer<String, String> p = producer(sasl("SCRAM-SHA-512", USER, PW.get("SCRAM-SHA-512")))) {
            get(p.send(new ProducerRecord<>("scram-after", "k", "after")));
        }
        ok("SCRAM-SHA-512 logs in after the refusals");
        // over PLAINTEXT: each topic holds its records, none of a refused login
        for (String mech : List.of("SCRAM-SHA-256", "SCRAM-SHA-512"))
            eq(20, readAll("scram-" + mech, 1).size(), "scram-" + mech + ": records after the refusals");
    }

    /** Over SASL_SSL ($GR_SASL_CA), across a restart: phase "made" makes
     * the credentials through the Admin; each mechanism's producer writes
     * 20 records (topics PREFIX-MECH, read back over PLAINTEXT by the
     * scenario) and its Admin describes the cluster, and an Admin with a
     * wrong password is refused; phase "again" (the broker restarted on
     * the same data) describes the same credentials and does the same
     * with topics scram-again-MECH. Lighter than run(): no group. */
    static void tls(String phase) throws Exception {
        String prefix = phase.equals("made") ? "scram-" : "scram-again-";
        if (phase.equals("made"))
            try (Admin a = admin()) {
                get(a.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(USER,
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), PW.get("SCRAM-SHA-256")))).all());
                get(a.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(USER,
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), PW.get("SCRAM-SHA-512")))).all());
            }
        try (Admin a = admin()) {
            Set<String> got = new TreeSet<>();
            for (ScramCredentialInfo i : get(a.describeUserScramCredentials(List.of(USER)).all())
                    .get(USER).credentialInfos())
                got.add(i.mechanism() + "/" + i.iterations());
            eq(new TreeSet<>(List.of("SCRAM_SHA_256/4096", "SCRAM_SHA_512/8192")), got,
                    "describeUserScramCredentials (" + phase + ")");
        }
        for (String mech : List.of("SCRAM-SHA-256", "SCRAM-SHA-512"))
            section(mech + " over SASL_SSL (" + phase + ")", () -> {
                String[] s = sasl(mech, USER, PW.get(mech));
                try (KafkaProducer<String, String> p = producer(concat(s, "acks", "all"))) {
                    List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
                    for (int i = 0; i < 20; i++)
                        fs.add(p.send(new ProducerRecord<>(prefix + mech, "k" + i, "v" + i)));
                    for (java.util.concurrent.Future<?> f : fs)
                        get(f);
                }
                ok(mech + ": 20 records produced over SASL_SSL (" + phase + ")");
                try (Admin a = admin(s)) {
                    eq(1, get(a.describeCluster().nodes()).size(), mech + ": Admin describeCluster over SASL_SSL");
                }
                SaslAuthenticationException e = expectThrows(SaslAuthenticationException.class,
                        mech + " Admin, a wrong password", () -> {
                            try (Admin a = admin(sasl(mech, USER, "wrong"))) {
                                get(a.describeCluster().nodes());
                            }
                        });
                eq(refusal(mech), e.getMessage(), mech + " Admin, a wrong password, over SASL_SSL: the message");
            });
    }

    static void good(String mech) throws Exception {
        String topic = "scram-" + mech;
        String[] s = sasl(mech, USER, PW.get(mech));
        try (KafkaProducer<String, String> p = producer(concat(s, "acks", "all"))) {
            List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < 20; i++)
                fs.add(p.send(new ProducerRecord<>(topic, "k" + i, "v" + i)));
            for (java.util.concurrent.Future<?> f : fs)
                get(f);
        }
        List<String> got = new ArrayList<>();
        // a session far above Compat's 6 s: a member starved of its
        // heartbeats on a loaded machine would rejoin and read twice
        try (KafkaConsumer<String, String> c = consumer("g-" + topic, concat(s, "session.timeout.ms", "45000",
                "heartbeat.interval.ms", "1000"))) {
            c.subscribe(List.of(topic));
            long end = System.currentTimeMillis() + 60000;
            while (got.size() < 20 && System.currentTimeMillis() < end)
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200)))
                    got.add(r.value());
            c.commitSync();
        }
        List<String> want = new ArrayList<>();
        for (int i = 0; i < 20; i++)
            want.add("v" + i);
        eq(want, got, mech + ": the group consumer reads back what was produced");
        try (Admin a = admin(s)) {
            eq(1, get(a.describeCluster().nodes()).size(), mech + ": Admin describeCluster");
            check(get(a.listTopics().names()).contains(topic), mech + ": Admin listTopics has " + topic);
            eq(Map.of(new TopicPartition(topic, 0), 20L),
                    offsets(get(a.listConsumerGroupOffsets("g-" + topic).partitionsToOffsetAndMetadata())),
                    mech + ": Admin reads the group's committed offset");
        }
    }

    /** A user name with '=' and ',': the client sends it as "=3D" and
     * "=2C" (RFC 5802 saslname), the broker must decode both. */
    static void escaped() throws Exception {
        String user = "o=k,u";
        try (Admin a = admin()) {
            get(a.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "esc-pw"))).all());
        }
        try (Admin a = admin(sasl("SCRAM-SHA-512", user, "esc-pw"))) {
            eq(1, get(a.describeCluster().nodes()).size(), "SCRAM-SHA-512 as " + user + ": Admin describeCluster");
        }
        refused("SCRAM-SHA-512", user, "wrong", "an escaped user name's wrong password");
    }

    static Map<TopicPartition, Long> offsets(
            Map<TopicPartition, OffsetAndMetadata> m) {
        Map<TopicPartition, Long> r = new HashMap<>();
        m.forEach((k, v) -> r.put(k, v.offset()));
        return r;
    }

    static String[] concat(String[] a, String... b) {
        String[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    static void refused(String mech, String user, String pw, String why) throws Exception {
        String[] s = sasl(mech, user, pw);
        String want = refusal(mech);
        SaslAuthenticationException e = expectThrows(SaslAuthenticationException.class, mech + " producer, " + why,
                () -> {
                    try (KafkaProducer<String, String> p = producer(s)) {
                        get(p.send(new ProducerRecord<>("scram-" + mech, "x", "refused")));
                    }
                });
        eq(want, e.getMessage(), mech + " producer, " + why + ": the message");
        e = expectThrows(SaslAuthenticationException.class, mech + " Admin, " + why, () -> {
            try (Admin a = admin(s)) {
                get(a.describeCluster().nodes());
            }
        });
        eq(want, e.getMessage(), mech + " Admin, " + why + ": the message");
    }
}
