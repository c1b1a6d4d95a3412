// compat/connect: the FileStream scenario's input and checks.
//
//   ConnectTool lines FILE FROM TO [utf8]
//   ConnectTool status REST_URL SECONDS CONNECTOR...
//   ConnectTool verify BOOTSTRAP TOPIC SOURCE_FILE GROUP T_MIN
//
// `lines` appends lines FROM..TO-1 (see line(); ASCII unless utf8: the
// FileStream source keeps its position in characters and skips that many
// bytes after a restart, so non-ASCII lines can only follow the last
// restart). `status` waits until Connect's REST API says each connector and
// its task are RUNNING. `verify` checks the topic against the source file:
// one partition, a record per line in order at offsets 0..n-1 (nothing sent
// twice across the restarts), no key, the line as the value, CreateTime
// timestamps from T_MIN on, never decreasing; the topic Connect created
// with the configs the source connector asked for; the sink's group
// committed all of it and, Connect stopped, is Empty.
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class ConnectTool {
    static int failures = 0;

    static void check(boolean ok, String what) {
        if (!ok) {
            failures++;
            System.out.println("FAIL: " + what);
        }
    }

    static String line(long i, boolean utf8) {
        if (i % 97 == 13)
            return "";
        StringBuilder sb = new StringBuilder("line " + i + ":");
        if (i % 7 == 0)
            sb.append("  two  spaces\tand a tab ");
        if (i % 250 == 3)
            for (int k = 0; k < 600; k++)
                sb.append(" long-").append(k);
        if (utf8 && i % 3 == 0)
            sb.append(" h\u00e9llo w\u00f6rld \u2713 \u65e5\u672c \ud83d\ude00");
        sb.append(" end");
        return sb.toString();
    }

    public static void main(String[] a) throws Exception {
        switch (a[0]) {
        case "lines": {
            StringBuilder sb = new StringBuilder();
            boolean utf8 = a.length > 4 && a[4].equals("utf8");
            for (long i = Long.parseLong(a[2]); i < Long.parseLong(a[3]); i++)
                sb.append(line(i, utf8)).append('\n');
            Files.writeString(Path.of(a[1]), sb, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                              StandardOpenOption.APPEND);
            break;
        }
        case "status":
            status(a[1], Integer.parseInt(a[2]), Arrays.copyOfRange(a, 3, a.length));
            break;
        case "verify": verify(a[1], a[2], a[3], a[4], Long.parseLong(a[5])); break;
        default: throw new IllegalArgumentException(a[0]);
        }
        if (failures > 0) {
            System.out.println(failures + " failures");
            System.exit(1);
        }
    }

    static void status(String url, int seconds, String[] names) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        ObjectMapper json = new ObjectMapper();
        long deadline = System.currentTimeMillis() + seconds * 1000L;
        for (String name : names) {
            String last = null;
            while (true) {
                try {
                    HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create(url + "connectors/" + name + "/status"))
                            .timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
                    last = r.statusCode() + " " + r.body();
                    if (r.statusCode() == 200) {
                        JsonNode s = json.readTree(r.body());
                        JsonNode tasks = s.path("tasks");
                        boolean ok = s.path("connector").path("state").asText().equals("RUNNING")
                            && tasks.size() == 1;
                        for (JsonNode t : tasks)
                            ok &= t.path("state").asText().equals("RUNNING");
                        if (tasks.size() > 0 && tasks.get(0).path("state").asText().equals("FAILED")) {
                            check(false, name + ": " + r.body());
                            return;
                        }
                        if (ok) {
                            System.out.println(name + ": connector and task RUNNING ("
                                               + s.path("type").asText() + ")");
                            break;
                        }
                    }
                } catch (java.io.IOException e) {
                    last = e.toString();
                }
                if (System.currentTimeMillis() > deadline) {
                    check(false, name + " not RUNNING in " + seconds + " s: " + last);
                    return;
                }
                Thread.sleep(200);
            }
        }
    }

    static void verify(String bootstrap, String topic, String source, String group, long tMin)
            throws Exception {
        // the source file's lines as the FileStream source splits them
        String text = Files.readString(Path.of(source), StandardCharsets.UTF_8);
        check(text.endsWith("\n"), source + " does not end with a newline");
        List<String> lines = new ArrayList<>(Arrays.asList(text.split("\n", -1)));
        lines.remove(lines.size() - 1);

        Properties p = new Properties();
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        List<ConsumerRecord<byte[], byte[]>> recs = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                                                                 new ByteArrayDeserializer())) {
            List<PartitionInfo> parts = c.partitionsFor(topic, Duration.ofSeconds(30));
            check(parts.size() == 1, topic + " has " + parts.size() + " partitions, expected 1");
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            long deadline = System.currentTimeMillis() + 60_000;
            while (c.position(tp) < end && System.currentTimeMillis() < deadline)
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200)))
                    recs.add(r);
            check(end == lines.size(), topic + " end offset " + end + ", " + lines.size() + " lines in " + source);
        }
        int bad = 0;
        long prevTs = tMin;
        for (int i = 0; i < recs.size(); i++) {
            ConsumerRecord<byte[], byte[]> r = recs.get(i);
            String v = r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
            boolean ok = r.offset() == i && r.key() == null && i < lines.size() && lines.get(i).equals(v)
                && r.timestampType() == TimestampType.CREATE_TIME && r.timestamp() >= prevTs
                && r.timestamp() <= System.currentTimeMillis();
            if (!ok && bad++ < 5)
                check(false, "record " + i + ": offset " + r.offset() + " key " + Arrays.toString(r.key())
                      + " value " + abbrev(v) + " " + r.timestampType() + " " + r.timestamp()
                      + ", expected line " + (i < lines.size() ? abbrev(lines.get(i)) : "(none)")
                      + " from " + prevTs);
            prevTs = Math.max(prevTs, r.timestamp());
        }
        check(bad == 0, bad + " records wrong");
        check(recs.size() == lines.size(), recs.size() + " records, " + lines.size() + " lines");

        try (Admin admin = Admin.create(p)) {
            ConfigResource cr = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            Config cfg = admin.describeConfigs(List.of(cr)).all().get().get(cr);
            for (String[] kv : new String[][] {{"compression.type", "lz4"}, {"cleanup.policy", "delete"},
                                               {"retention.ms", "86400000"}}) {
                ConfigEntry e = cfg.get(kv[0]);
                check(e != null && kv[1].equals(e.value())
                      && e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG,
                      topic + " " + kv[0] + " " + (e == null ? null : e.value() + " " + e.source())
                      + ", expected " + kv[1] + " set by Connect's CreateTopics");
            }
            Map<TopicPartition, OffsetAndMetadata> off =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            OffsetAndMetadata o = off.get(new TopicPartition(topic, 0));
            check(o != null && o.offset() == lines.size(),
                  group + " committed " + o + ", expected " + lines.size());
            ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            check(g.groupState() == GroupState.EMPTY, group + " is " + g.groupState() + ", expected Empty");
            System.out.println(topic + ": " + recs.size() + " records, every line once and in order; "
                               + group + " committed " + (o == null ? null : o.offset()) + ", " + g.groupState());
        }
    }

    static String abbrev(String s) {
        if (s == null)
            return "null";
        return s.length() <= 60 ? "'" + s + "'" : "'" + s.substring(0, 60) + "...' (" + s.length() + ")";
    }
}
