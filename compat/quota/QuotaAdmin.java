// compat/quota/QuotaAdmin.java: client quotas through Kafka's Java Admin
// (kafka-clients of the pinned Kafka): alterClientQuotas and
// describeClientQuotas, what they accept and what they refuse. Run as a
// single-file source program:
//   kt java QuotaAdmin.java BOOTSTRAP set     the quotas, then everything
//   kt java QuotaAdmin.java BOOTSTRAP check   the quotas are there
// Prints one line a result, sorted where the broker's order is a map's
// (entities within a description, the values of each), so the output of
// Gregor and of Kafka 4.4 compare line for line; exit 0 unless the Admin
// client itself fails.
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.quota.*;

public class QuotaAdmin {
    static Admin admin;

    static ClientQuotaEntity entity(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2)
            m.put(kv[i], kv[i + 1]);
        return new ClientQuotaEntity(m);
    }

    static String show(ClientQuotaEntity e) {
        return new TreeMap<>(e.entries()).toString();
    }

    static String why(Throwable t) {
        Throwable c = t instanceof ExecutionException ? t.getCause() : t;
        return c.getClass().getSimpleName() + ": " + c.getMessage();
    }

    // one alteration per call, so each answer is its own line
    static void alter(String what, ClientQuotaEntity e, boolean validateOnly,
                      ClientQuotaAlteration.Op... ops) {
        ClientQuotaAlteration a = new ClientQuotaAlteration(e, Arrays.asList(ops));
        try {
            admin.alterClientQuotas(List.of(a),
                new AlterClientQuotasOptions().validateOnly(validateOnly)).all().get();
            System.out.println("alter " + what + ": ok");
        } catch (Exception ex) {
            System.out.println("alter " + what + ": " + why(ex));
        }
    }

    static ClientQuotaAlteration.Op set(String k, double v) {
        return new ClientQuotaAlteration.Op(k, v);
    }

    static ClientQuotaAlteration.Op del(String k) {
        return new ClientQuotaAlteration.Op(k, null);
    }

    static void describe(String what, ClientQuotaFilter f) {
        try {
            Map<ClientQuotaEntity, Map<String, Double>> r =
                admin.describeClientQuotas(f).entities().get();
            TreeMap<String, String> out = new TreeMap<>();
            for (Map.Entry<ClientQuotaEntity, Map<String, Double>> e : r.entrySet())
                out.put(show(e.getKey()), new TreeMap<>(e.getValue()).toString());
            System.out.println("describe " + what + ": " + out.size() + " entities");
            for (Map.Entry<String, String> e : out.entrySet())
                System.out.println("  " + e.getKey() + " " + e.getValue());
        } catch (Exception ex) {
            System.out.println("describe " + what + ": " + why(ex));
        }
    }

    static ClientQuotaFilterComponent exact(String t, String n) {
        return ClientQuotaFilterComponent.ofEntity(t, n);
    }

    static void describeAll() {
        describe("all", ClientQuotaFilter.all());
        describe("user=alice", ClientQuotaFilter.contains(List.of(exact("user", "alice"))));
        describe("user=alice strict", ClientQuotaFilter.containsOnly(List.of(exact("user", "alice"))));
        describe("user default", ClientQuotaFilter.contains(
            List.of(ClientQuotaFilterComponent.ofDefaultEntity("user"))));
        describe("user any strict", ClientQuotaFilter.containsOnly(
            List.of(ClientQuotaFilterComponent.ofEntityType("user"))));
        describe("user any, client-id any", ClientQuotaFilter.contains(List.of(
            ClientQuotaFilterComponent.ofEntityType("user"),
            ClientQuotaFilterComponent.ofEntityType("client-id"))));
        describe("client-id=app", ClientQuotaFilter.contains(List.of(exact("client-id", "app"))));
        describe("ip any", ClientQuotaFilter.contains(
            List.of(ClientQuotaFilterComponent.ofEntityType("ip"))));
        describe("strict nothing", ClientQuotaFilter.containsOnly(List.of()));
    }

    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        admin = Admin.create(p);
        if (args[1].equals("set")) {
            alter("user=alice", entity("user", "alice"), false,
                  set("producer_byte_rate", 1048576), set("request_percentage", 50.5));
            alter("user=alice,client-id=app", entity("user", "alice", "client-id", "app"), false,
                  set("consumer_byte_rate", 2097152));
            alter("user=alice,client-id default", entity("user", "alice", "client-id", null), false,
                  set("consumer_byte_rate", 1000));
            alter("user default", entity("user", null), false, set("controller_mutation_rate", 10));
            alter("client-id=app", entity("client-id", "app"), false, set("producer_byte_rate", 4096));
            alter("client-id default", entity("client-id", null), false,
                  set("producer_byte_rate", 8192), set("consumer_byte_rate", 8192));
            alter("ip=127.0.0.2", entity("ip", "127.0.0.2"), false, set("connection_creation_rate", 5));
            alter("validate only", entity("user", "bob"), true, set("producer_byte_rate", 5));
            alter("removed", entity("user", "carol"), false, set("producer_byte_rate", 7));
            alter("remove again", entity("user", "carol"), false, del("producer_byte_rate"));
            alter("remove missing", entity("user", "nobody"), false, del("producer_byte_rate"));
            // refused
            alter("unknown key", entity("user", "alice"), false, set("bogus_rate", 1));
            alter("zero", entity("user", "alice"), false, set("producer_byte_rate", 0));
            alter("negative", entity("user", "alice"), false, set("request_percentage", -1));
            alter("fractional", entity("user", "alice"), false, set("producer_byte_rate", 1.5));
            alter("infinite", entity("user", "alice"), false, set("request_percentage", Double.POSITIVE_INFINITY));
            alter("ip key for a user", entity("user", "alice"), false, set("connection_creation_rate", 5));
            alter("user key for an ip", entity("ip", "127.0.0.3"), false, set("producer_byte_rate", 5));
            alter("int too large", entity("ip", "127.0.0.3"), false, set("connection_creation_rate", 3e9));
            alter("ip with user", entity("ip", "127.0.0.3", "user", "alice"), false,
                  set("connection_creation_rate", 5));
            alter("bad ip", entity("ip", "not an address!"), false, set("connection_creation_rate", 5));
            alter("unknown type", entity("group", "g"), false, set("producer_byte_rate", 5));
            alter("empty user", entity("user", ""), false, set("producer_byte_rate", 5));
            alter("empty entity", entity(), false, set("producer_byte_rate", 5));
            describeAll();
        } else {
            describeAll();
        }
        admin.close();
    }
}
