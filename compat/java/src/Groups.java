// Consumer groups (the classic protocol): the eager RangeAssignor and the
// cooperative-sticky assignor as a second member joins, commitSync and
// commitAsync resumed by a new member, static membership across a restart.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;

class Groups extends Compat {
    static final String T = "g";
    static final int NP = 4;

    /** A group member polling in its own thread. */
    static class Member implements Runnable, ConsumerRebalanceListener {
        final String name;
        final KafkaConsumer<String, String> c;
        final Thread thread;
        final List<String> events = new CopyOnWriteArrayList<>();
        final Set<TopicPartition> revokedEver = Collections.synchronizedSet(new HashSet<>());
        final List<ConsumerRecord<String, String>> consumed = new CopyOnWriteArrayList<>();
        volatile Set<TopicPartition> assignment = Collections.emptySet();
        volatile int generation = -1;
        volatile String memberId = "";
        volatile boolean stop;
        volatile Throwable error;

        Member(String name, String group, String assignor, String instanceId) {
            this.name = name;
            List<String> kv = new ArrayList<>(Arrays.asList("partition.assignment.strategy", assignor,
                    "max.poll.records", "7"));
            if (instanceId != null) {
                kv.add("group.instance.id");
                kv.add(instanceId);
                kv.add("session.timeout.ms");
                kv.add("10000");
            }
            c = consumer(group, kv.toArray(new String[0]));
            thread = new Thread(this, name);
            thread.start();
        }

        public void run() {
            try {
                c.subscribe(Collections.singleton(T), this);
                while (!stop) {
                    ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(50));
                    for (ConsumerRecord<String, String> r : rs)
                        consumed.add(r);
                    if (!rs.isEmpty()) {
                        try {
                            c.commitSync();
                        } catch (RebalanceInProgressException | CommitFailedException e) {
                            // the revocation callback commits what was read
                        }
                    }
                    ConsumerGroupMetadata m = c.groupMetadata();
                    memberId = m.memberId();
                    generation = m.generationId();
                }
            } catch (Throwable t) {
                error = t;
            } finally {
                c.close(Duration.ofSeconds(5));
            }
        }

        public void onPartitionsRevoked(Collection<TopicPartition> ps) {
            if (ps.isEmpty())
                return;
            events.add("revoked " + sorted(ps));
            revokedEver.addAll(ps);
            Map<TopicPartition, OffsetAndMetadata> offs = new HashMap<>();
            for (TopicPartition tp : ps)
                offs.put(tp, new OffsetAndMetadata(c.position(tp)));
            c.commitSync(offs);
            Set<TopicPartition> a = new HashSet<>(assignment);
            a.removeAll(ps);
            assignment = a;
        }

        public void onPartitionsAssigned(Collection<TopicPartition> ps) {
            events.add("assigned " + sorted(ps));
            assignment = new HashSet<>(c.assignment());
        }

        void stop() throws Exception {
            stop = true;
            thread.join(15000);
            if (thread.isAlive())
                throw new Fail(name + " did not stop");
            if (error != null)
                throw new Fail(name + " failed: " + error);
        }
    }

    static List<String> sorted(Collection<TopicPartition> ps) {
        List<String> l = new ArrayList<>();
        for (TopicPartition tp : ps)
            l.add(tp.toString());
        Collections.sort(l);
        return l;
    }

    static Set<TopicPartition> parts(int... ps) {
        Set<TopicPartition> s = new HashSet<>();
        for (int p : ps)
            s.add(new TopicPartition(T, p));
        return s;
    }

    static int produced;

    static void produce(int from, int n) throws Exception {
        produced = from + n;
        try (KafkaProducer<String, String> p = producer()) {
            for (int i = from; i < from + n; i++)
                p.send(new ProducerRecord<>(T, i % NP, "k" + i, Integer.toString(i)));
            p.flush();
        }
    }

    static boolean split(Member a, Member b) {
        Set<TopicPartition> u = new HashSet<>(a.assignment);
        u.addAll(b.assignment);
        return a.assignment.size() == 2 && b.assignment.size() == 2 && u.equals(parts(0, 1, 2, 3))
                && a.generation == b.generation && a.generation > 0;
    }

    static int total(Member... ms) {
        int n = 0;
        for (Member m : ms)
            n += m.consumed.size();
        return n;
    }

    static void run() throws Exception {
        try (Admin a = admin()) {
            createTopics(a, topic(T, NP));
        }
        produce(0, 40);
        section("range", () -> rebalance("range", RangeAssignor.class.getName()));
        section("cooperative-sticky", () -> rebalance("cooperative-sticky", CooperativeStickyAssignor.class.getName()));
        section("commits", Groups::commits);
        section("auto-commit", Groups::autoCommit);
        section("static membership", Groups::staticMembership);
        section("pattern subscription", Groups::pattern);
        section("group errors", Groups::errors);
        endSections();
    }

    static void rebalance(String name, String assignor) throws Exception {
        String group = "g-" + name;
        Member m1 = new Member("m1-" + name, group, assignor, null);
        waitFor(name + ": m1 assigned all partitions", 20000, () -> m1.assignment.size() == NP);
        int before = produced;
        waitFor(name + ": m1 read the first " + before, 20000, () -> total(m1) == before);
        int gen1 = m1.generation;
        Member m2 = new Member("m2-" + name, group, assignor, null);
        waitFor(name + ": the partitions split between m1 and m2", 20000, () -> split(m1, m2));
        ok(name + ": m1 " + sorted(m1.assignment) + ", m2 " + sorted(m2.assignment) + ", generation "
                + gen1 + " -> " + m1.generation);
        produce(before, 40);
        waitFor(name + ": " + produced + " read", 20000, () -> total(m1, m2) >= produced);
        sleep(300);
        Set<TopicPartition> a1 = m1.assignment, a2 = m2.assignment;
        List<String> events1 = new ArrayList<>(m1.events);
        Set<TopicPartition> revoked1 = new HashSet<>(m1.revokedEver);
        int gen2 = m1.generation;
        m2.stop();
        m1.stop();
        Set<String> seen = new HashSet<>();
        for (Member m : new Member[] {m1, m2})
            for (ConsumerRecord<String, String> r : m.consumed)
                if (!seen.add(r.partition() + "/" + r.offset()))
                    throw new Fail(name + ": " + r.partition() + "/" + r.offset() + " read twice");
        eq(produced, seen.size(), name + ": every record read once across the members");
        for (ConsumerRecord<String, String> r : m2.consumed)
            if (!a2.contains(new TopicPartition(T, r.partition())))
                throw new Fail(name + ": m2 read " + r + " outside its partitions");
        if (name.equals("range")) {
            // RangeAssignor: the member first by member id takes 0 and 1
            Member first = m1.memberId.compareTo(m2.memberId) < 0 ? m1 : m2;
            Member second = first == m1 ? m2 : m1;
            eq(sorted(parts(0, 1)), sorted((first == m1 ? a1 : a2)), "range: the first member id's partitions");
            eq(sorted(parts(2, 3)), sorted((second == m1 ? a1 : a2)), "range: the second's");
            check(m1.events.contains("revoked " + sorted(parts(0, 1, 2, 3))),
                    "eager: m1 revoked all its partitions to rejoin: " + events1);
        } else {
            eq(sorted(a2), sorted(revoked1), "cooperative: m1 revoked only what m2 took: " + events1);
            Set<TopicPartition> kept = new HashSet<>(a1);
            kept.retainAll(revoked1);
            check(kept.isEmpty(), "cooperative: m1 kept its other partitions throughout");
            eq(gen1 + 2, gen2, "cooperative: two rebalances");
        }
    }

    static void commits() throws Exception {
        String group = "g-commit";
        Set<TopicPartition> all = parts(0, 1, 2, 3);
        try (KafkaConsumer<String, String> c = consumer(group)) {
            c.subscribe(Collections.singleton(T));
            int n = 0;
            long deadline = System.currentTimeMillis() + 20000;
            while (n < produced) {
                if (System.currentTimeMillis() > deadline)
                    throw new Fail("g-commit: read " + n + " of " + produced);
                n += c.poll(Duration.ofMillis(100)).count();
            }
            c.commitSync();
            Map<TopicPartition, OffsetAndMetadata> cm = c.committed(all);
            for (TopicPartition tp : all)
                eq((long) (produced / NP), cm.get(tp).offset(), "commitSync(): " + tp + " at its position");
            eq(Optional.of(0), cm.get(new TopicPartition(T, 0)).leaderEpoch(),
                    "commitSync(): the leader epoch of the last record read");
            c.commitSync(Collections.singletonMap(new TopicPartition(T, 0), new OffsetAndMetadata(3, "meta-a")));
            CountDownLatch done = new CountDownLatch(1);
            AtomicReference<Exception> err = new AtomicReference<>();
            AtomicReference<Map<TopicPartition, OffsetAndMetadata>> acked = new AtomicReference<>();
            c.commitAsync(Collections.singletonMap(new TopicPartition(T, 1), new OffsetAndMetadata(4, "meta-b")),
                    (offs, e) -> {
                        acked.set(offs);
                        err.set(e);
                        done.countDown();
                    });
            long until = System.currentTimeMillis() + 10000;
            while (done.getCount() > 0 && System.currentTimeMillis() < until)
                c.poll(Duration.ofMillis(50));
            check(done.getCount() == 0, "commitAsync: the callback ran");
            eq(null, err.get(), "commitAsync: no error");
            eq(4L, acked.get().get(new TopicPartition(T, 1)).offset(), "commitAsync: the offsets acknowledged");
            c.commitSync(Collections.singletonMap(new TopicPartition(T, 2), new OffsetAndMetadata(5)));
            cm = c.committed(all);
            eq("meta-a", cm.get(new TopicPartition(T, 0)).metadata(), "committed: g-0's metadata");
            eq(3L, cm.get(new TopicPartition(T, 0)).offset(), "committed: g-0");
            eq("meta-b", cm.get(new TopicPartition(T, 1)).metadata(), "committed: g-1's metadata");
            eq(4L, cm.get(new TopicPartition(T, 1)).offset(), "committed: g-1");
            eq(5L, cm.get(new TopicPartition(T, 2)).offset(), "committed: g-2");
            eq("", cm.get(new TopicPartition(T, 2)).metadata(), "committed: g-2 without metadata");
        }
        // a new member resumes at the committed offsets
        try (KafkaConsumer<String, String> c = consumer(group)) {
            c.subscribe(Collections.singleton(T));
            Map<Integer, Long> first = new TreeMap<>();
            int n = 0;
            long deadline = System.currentTimeMillis() + 20000;
            int per = produced / NP;
            while (n < (per - 3) + (per - 4) + (per - 5)) {
                if (System.currentTimeMillis() > deadline)
                    throw new Fail("g-commit resumed: read " + n + ", " + first);
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    first.putIfAbsent(r.partition(), r.offset());
                    n++;
                }
            }
            c.poll(Duration.ofMillis(300)).forEach(r -> first.putIfAbsent(r.partition(), r.offset()));
            Map<Integer, Long> want = new TreeMap<>();
            want.put(0, 3L);
            want.put(1, 4L);
            want.put(2, 5L);
            eq(want, first, "a new member resumes where the group committed (g-3 at its end)");
            eq((long) per, c.position(new TopicPartition(T, 3)), "g-3's position");
        }
    }

    /** enable.auto.commit: the positions committed as it polls, and at
     * close. */
    static void autoCommit() throws Exception {
        Set<TopicPartition> all = parts(0, 1, 2, 3);
        try (KafkaConsumer<String, String> c = consumer("g-auto", "enable.auto.commit", "true",
                "auto.commit.interval.ms", "100")) {
            c.subscribe(Collections.singleton(T));
            int n = 0;
            long deadline = System.currentTimeMillis() + 20000;
            while (n < produced && System.currentTimeMillis() < deadline)
                n += c.poll(Duration.ofMillis(100)).count();
            eq(produced, n, "auto-commit: records read");
            Map<TopicPartition, OffsetAndMetadata>[] cm = new Map[1];
            waitFor("the auto-commit", 10000, () -> {
                c.poll(Duration.ofMillis(50));
                cm[0] = c.committed(all);
                for (TopicPartition tp : all)
                    if (cm[0].get(tp) == null || cm[0].get(tp).offset() != produced / NP)
                        return false;
                return true;
            });
            ok("auto-commit: every partition committed at its end while polling");
        }
        try (Admin a = admin()) {
            Map<TopicPartition, OffsetAndMetadata> offs = get(a.listConsumerGroupOffsets("g-auto")
                    .partitionsToOffsetAndMetadata());
            for (TopicPartition tp : all)
                eq((long) (produced / NP), offs.get(tp).offset(), "auto-commit: " + tp + " as the group has it");
        }
    }

    static void staticMembership() throws Exception {
        String group = "g-static";
        String range = RangeAssignor.class.getName();
        Member s1 = new Member("s1", group, range, "i-1");
        Member s2 = new Member("s2", group, range, "i-2");
        waitFor("static: the partitions split", 20000, () -> split(s1, s2));
        int gen = s1.generation;
        // RangeAssignor orders static members by group.instance.id
        eq(sorted(parts(0, 1)), sorted(s1.assignment), "static: i-1's partitions");
        eq(sorted(parts(2, 3)), sorted(s2.assignment), "static: i-2's partitions");
        try (Admin a = admin()) {
            ConsumerGroupDescription d = get(a.describeConsumerGroups(Collections.singleton(group)).all()).get(group);
            Set<String> ids = new TreeSet<>();
            for (MemberDescription m : d.members())
                ids.add(m.groupInstanceId().orElse("-"));
            eq(new TreeSet<>(Arrays.asList("i-1", "i-2")), ids, "static: the members' instance ids");
        }
        int events2 = s2.events.size();
        String oldId = s1.memberId;
        s1.stop(); // a static member leaves no LeaveGroup behind
        Member s1b = new Member("s1b", group, range, "i-1");
        waitFor("static: i-1 back", 20000, () -> !s1b.assignment.isEmpty() && s1b.generation > 0);
        sleep(1000);
        eq(sorted(parts(0, 1)), sorted(s1b.assignment), "static: i-1 restarted gets its partitions back");
        eq(gen, s1b.generation, "static: same generation, no rebalance");
        eq(gen, s2.generation, "static: i-2's generation unchanged");
        eq(events2, s2.events.size(), "static: i-2 saw no rebalance: " + s2.events);
        check(!s1b.memberId.equals(oldId), "static: i-1 has a new member id");
        s1b.stop();
        s2.stop();
        // closed static members stay until their session times out; the
        // admin removes them by instance id (LeaveGroup v3+)
        try (Admin a = admin()) {
            ConsumerGroupDescription d = get(a.describeConsumerGroups(Collections.singleton(group)).all()).get(group);
            eq("Stable 2", d.state() + " " + d.members().size(), "static: closed members are still there");
            get(a.removeMembersFromConsumerGroup(group, new RemoveMembersFromConsumerGroupOptions(Arrays.asList(
                    new MemberToRemove("i-1"), new MemberToRemove("i-2")))).all());
            d = get(a.describeConsumerGroups(Collections.singleton(group)).all()).get(group);
            eq("Empty 0", d.state() + " " + d.members().size(), "static: removed by instance id");
            expectThrows(org.apache.kafka.common.errors.UnknownMemberIdException.class,
                    "static: removing an unknown instance id", () -> get(a.removeMembersFromConsumerGroup(group,
                            new RemoveMembersFromConsumerGroupOptions(Collections.singleton(new MemberToRemove("i-9"))))
                            .all()));
        }
    }

    /** subscribe(Pattern): a topic created later that matches joins the
     * assignment at the next metadata refresh. */
    static void pattern() throws Exception {
        try (Admin a = admin();
             KafkaConsumer<String, String> c = consumer("g-pattern", "metadata.max.age.ms", "300")) {
            createTopics(a, topic("gp-1", 1), topic("other", 1));
            c.subscribe(java.util.regex.Pattern.compile("gp-.*"));
            waitFor("pattern: gp-1 assigned", 20000, () -> {
                c.poll(Duration.ofMillis(50));
                return c.assignment().size() == 1;
            });
            eq("[gp-1-0]", sorted(c.assignment()).toString(), "pattern: the matching topic");
            createTopics(a, topic("gp-2", 2));
            waitFor("pattern: gp-2 assigned", 20000, () -> {
                c.poll(Duration.ofMillis(50));
                return c.assignment().size() == 3;
            });
            eq("[gp-1-0, gp-2-0, gp-2-1]", sorted(c.assignment()).toString(), "pattern: a new matching topic joins");
        }
    }

    static void pollUntilThrows(KafkaConsumer<String, String> c) {
        long deadline = System.currentTimeMillis() + 15000;
        while (System.currentTimeMillis() < deadline)
            c.poll(Duration.ofMillis(50));
    }

    /** What the coordinator refuses: a session timeout outside the
     * broker's bounds, an assignor no member shares, a second live member
     * with a group.instance.id (the first is fenced). */
    static void errors() throws Exception {
        try (KafkaConsumer<String, String> c = consumer("g-err", "session.timeout.ms", "200",
                "heartbeat.interval.ms", "50")) {
            c.subscribe(Collections.singleton(T));
            expectThrows(org.apache.kafka.common.errors.InvalidSessionTimeoutException.class,
                    "session.timeout.ms 200 under group.min.session.timeout.ms 500", () -> pollUntilThrows(c));
        }
        Member m = new Member("m-range", "g-proto", RangeAssignor.class.getName(), null);
        try {
            waitFor("g-proto: the range member assigned", 20000, () -> m.assignment.size() == NP);
            try (KafkaConsumer<String, String> c = consumer("g-proto", "partition.assignment.strategy",
                    RoundRobinAssignor.class.getName())) {
                c.subscribe(Collections.singleton(T));
                expectThrows(org.apache.kafka.common.errors.InconsistentGroupProtocolException.class,
                        "a member whose only assignor the group lacks", () -> pollUntilThrows(c));
            }
        } finally {
            m.stop();
        }
        Member first = new Member("i-dup-1", "g-fence", RangeAssignor.class.getName(), "i-dup");
        waitFor("g-fence: the first instance assigned", 20000, () -> first.assignment.size() == NP);
        Member second = new Member("i-dup-2", "g-fence", RangeAssignor.class.getName(), "i-dup");
        try {
            waitFor("g-fence: the second instance assigned", 20000, () -> second.assignment.size() == NP);
            waitFor("g-fence: the first instance fenced", 20000, () -> first.error != null);
            check(first.error instanceof org.apache.kafka.common.errors.FencedInstanceIdException,
                    "the first of two members with one group.instance.id is fenced: " + first.error);
        } finally {
            first.stop = true;
            second.stop();
        }
    }
}
