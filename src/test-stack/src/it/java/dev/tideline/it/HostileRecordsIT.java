package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.MongoClient;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.PeerItSupport.Cluster;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.peer.ContentHash;
import dev.tideline.peer.PeerHeaders;
import dev.tideline.peer.PeerStamp;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import dev.tideline.sign.RecordSignature;
import dev.tideline.standin.MongoFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/**
 * Generated hostile records, hundreds of each class, produced onto the topics of connectors running on the real
 * worker: a peer link (bad and missing MACs, malformed bytes, foreign namespaces, oversize records) and a sink that
 * verifies signed records (unsigned and badly signed ones). Every task stays RUNNING, every hostile record is in the
 * dead letter queue with its reason, and the destinations hold exactly what the honest records made.
 */
class HostileRecordsIT {
    private static final int EACH = Integer.getInteger("hostile.it.each", 200);
    private static final String CLASS_HEADER = "hostile.class";
    private static final String DOCS = "docs";
    private static final int MAX_RECORD_BYTES = 64 * 1024;
    private static final String SIGNING_KEY = "the record signing key of this deployment (IT)";
    private static final TestStack stack = TestStack.shared();

    /** A class of hostile records: what each is, and what its reason in the DLQ must say. */
    private record Hostile(String kind, String expect, ProducerRecord<byte[], byte[]> record) {
    }

    @Test
    void aPeerLinkSendsEveryHostileRecordToTheDeadLetterQueueAndNeverStops() throws Exception {
        Cluster a = Cluster.start("hx", "A");
        Cluster b = Cluster.start("hx", "B");
        List<Cluster> clusters = List.of(a, b);
        List<String> colls = List.of(DOCS);
        try {
            PeerItSupport.startLinks(stack, clusters, colls, (c, source) -> { }, (c, sink) -> {
                sink.remove("database"); // each record names its database: what database.allow must hold
                sink.put("database.allow", PeerItSupport.DB);
                sink.put("record.max.bytes", Integer.toString(MAX_RECORD_BYTES));
                sink.put("peer.heartbeat.interval.ms", "500");
            });
            PeerItSupport.workload(a, DOCS, 300, 100, 1);
            PeerItSupport.awaitConverged(stack, clusters, colls, Duration.ofMinutes(3));

            List<Hostile> hostile = peerHostile(b.topic(DOCS));
            List<String> sinks = List.of(a.sink(), b.sink());
            StateWatch states = new StateWatch(sinks);
            send(hostile);
            PeerItSupport.workload(b, DOCS, 300, 100, 2); // honest changes after them, on the same topic
            Duration converge = PeerItSupport.awaitConverged(stack, clusters, colls, Duration.ofMinutes(3));

            for (Cluster c : clusters) {
                List<ConsumerRecord<byte[], byte[]>> dead = TopicReader.readUntil(stack.bootstrapServers(), PeerItSupport.dlq(c),
                        hostile.size(), Duration.ofMinutes(3));
                Map<String, Integer> counts = checkDeadLetters(c.sink(), hostile, dead);
                SinkItSupport.await(c.sink() + "'s status counting every refused record", Duration.ofSeconds(30),
                        () -> PeerItSupport.counter(c, "refusedToDlq.missingMac") + PeerItSupport.counter(c, "refusedToDlq.badMac")
                                + PeerItSupport.counter(c, "refusedToDlq.malformed") + PeerItSupport.counter(c, "refusedToDlq.refused")
                                == hostile.size());
                BsonDocument status = PeerItSupport.statuses(c).get(0);
                System.out.printf("[hostile] %s: %d hostile records produced (%s), %d in its DLQ %s; converged %d ms after; "
                                + "status %s %s, refused %s%n", c.sink(), hostile.size(), classes(hostile), dead.size(), counts,
                        converge.toMillis(), status.getString("health").getValue(), status.get("reasons"),
                        status.getDocument("counters").get("refusedToDlq"));
                assertThat(dead).hasSize(hostile.size());
                assertThat(status.getString("health").getValue()).isEqualTo("degraded");
                assertThat(status.getArray("reasons")).contains(new BsonString("refused-records"));
                BsonDocument refused = status.getDocument("counters").getDocument("refusedToDlq");
                assertThat(refused.getInt64("missingMac").getValue()).isEqualTo(count(hostile, "missing-mac"));
                assertThat(refused.getInt64("badMac").getValue()).isEqualTo(count(hostile, "bad-mac"));
                assertThat(refused.getInt64("malformed").getValue()).isEqualTo(count(hostile, "malformed"));
                assertThat(refused.getInt64("refused").getValue()).isEqualTo(count(hostile, "foreign-namespace")
                        + count(hostile, "oversize"));
                // nothing hostile landed: no hostile _id, no other database, only the honest workloads' tags
                MongoClient client = c.mongo().client();
                List<String> databases = client.listDatabaseNames().into(new ArrayList<>());
                assertThat(databases).as(c.id() + " databases").doesNotContain("payroll", "elsewhere");
                for (String coll : client.getDatabase(PeerItSupport.DB).listCollectionNames()) {
                    for (BsonDocument d : c.mongo().client().getDatabase(PeerItSupport.DB).getCollection(coll, BsonDocument.class).find()) {
                        assertThat(d.get("_id").toString()).as(coll).doesNotContain("hostile");
                        if (coll.equals(DOCS)) {
                            assertThat(d.getString("w").getValue()).matches("[AB]-\\d+");
                        }
                    }
                }
            }
            states.close();
            System.out.printf("[hostile] peer sinks: %d state samples, not RUNNING: %s%n", states.samples(), states.notRunning());
            assertThat(states.notRunning()).as("every sink task RUNNING throughout").isEmpty();
            PeerItSupport.failIfAnyFailed(stack, clusters);
        } finally {
            PeerItSupport.stopLinks(stack, clusters);
        }
    }

    @Test
    void aSinkWithTheSigningKeyRefusesUnsignedAndBadlySignedRecords() throws Exception {
        String run = "hs";
        String db = "signed_it";
        MongoFixture source = MongoFixture.withOplog();
        MongoFixture destination = MongoFixture.withOplog();
        String topic = run + "." + db + "." + DOCS;
        String dlq = run + "-sink-dlq";
        try {
            source.client().getDatabase(db).createCollection(DOCS);
            stack.createTopic(topic, 1);
            Map<String, String> sourceConfig = SourceItSupport.sourceConfig(source.uri(), db, run, ValueFormat.BSON, 1);
            sourceConfig.put("record.signing.key", SIGNING_KEY);
            stack.rest().putConnector(run + "-source", sourceConfig);
            Map<String, String> sink = SinkItSupport.sinkConfig(topic, destination.uri(), db, ValueFormat.BSON);
            sink.put("record.signing.key", SIGNING_KEY);
            sink.put("header.converter", "org.apache.kafka.connect.storage.StringConverter");
            sink.put("errors.tolerance", "all");
            sink.put("errors.deadletterqueue.topic.name", dlq);
            sink.put("errors.deadletterqueue.topic.replication.factor", "1");
            sink.put("errors.deadletterqueue.context.headers.enable", "true");
            stack.rest().putConnector(run + "-sink", sink);
            stack.rest().awaitRunning(run + "-source", 1, Duration.ofSeconds(90));
            stack.rest().awaitRunning(run + "-sink", 1, Duration.ofSeconds(90));

            var docs = source.client().getDatabase(db).getCollection(DOCS, BsonDocument.class);
            for (int i = 0; i < 100; i++) {
                docs.insertOne(new BsonDocument("_id", new BsonInt32(i)).append("w", new BsonString("honest-" + i)));
            }
            Namespace ns = new Namespace(db, DOCS);
            SinkItSupport.await("the honest documents applied", Duration.ofMinutes(2),
                    () -> SinkItSupport.snapshot(destination.client(), ns).size() == 100);
            // a signed record as the source made it, whose signature the badly signed ones borrow
            ConsumerRecord<byte[], byte[]> signed = TopicReader.readUntil(stack.bootstrapServers(), topic, 1, Duration.ofMinutes(1)).get(0);
            assertThat(signed.headers().lastHeader(RecordSignature.HEADER)).as("the source signs its records").isNotNull();

            List<Hostile> hostile = signingHostile(topic, ns, signed);
            StateWatch states = new StateWatch(List.of(run + "-sink"));
            send(hostile);
            for (int i = 0; i < 100; i++) {
                docs.updateOne(new BsonDocument("_id", new BsonInt32(i)), new BsonDocument("$set",
                        new BsonDocument("w", new BsonString("honest-again-" + i))));
            }
            List<ConsumerRecord<byte[], byte[]>> dead = TopicReader.readUntil(stack.bootstrapServers(), dlq, hostile.size(),
                    Duration.ofMinutes(3));
            SinkItSupport.await("the honest updates applied", Duration.ofMinutes(2), () -> SinkItSupport.snapshot(destination.client(), ns)
                    .values().stream().allMatch(d -> d.getString("w").getValue().startsWith("honest-again-")));
            SinkItSupport.awaitCommittedThroughEnd(stack.bootstrapServers(), "connect-" + run + "-sink", List.of(topic),
                    Duration.ofMinutes(1));
            Map<String, Integer> counts = checkDeadLetters(run + "-sink", hostile, dead);
            Map<BsonValue, RawBsonDocument> at = SinkItSupport.snapshot(destination.client(), ns);
            Map<BsonValue, RawBsonDocument> from = SinkItSupport.snapshot(source.client(), ns);
            System.out.printf("[hostile] %s: %d hostile records produced (%s), %d in its DLQ %s; destination %s the source "
                    + "(%d documents)%n", run + "-sink", hostile.size(), classes(hostile), dead.size(), counts,
                    at.equals(from) ? "equals" : "DIFFERS FROM", at.size());
            assertThat(dead).hasSize(hostile.size());
            assertThat(at).isEqualTo(from);
            assertThat(destination.client().listDatabaseNames().into(new ArrayList<>())).doesNotContain("elsewhere");
            states.close();
            System.out.printf("[hostile] signed sink: %d state samples, not RUNNING: %s%n", states.samples(), states.notRunning());
            assertThat(states.notRunning()).as("the sink task RUNNING throughout").isEmpty();
        } finally {
            stack.rest().deleteConnector(run + "-sink");
            stack.rest().deleteConnector(run + "-source");
            source.close();
            destination.close();
        }
    }

    /** Checks that every hostile record is in the DLQ once with its reason; returns the counts per class. */
    private static Map<String, Integer> checkDeadLetters(String sink, List<Hostile> hostile, List<ConsumerRecord<byte[], byte[]>> dead) {
        Map<String, String> expect = new TreeMap<>();
        hostile.forEach(h -> expect.put(h.kind(), h.expect()));
        Map<String, Integer> counts = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            String kind = header(r, CLASS_HEADER);
            assertThat(kind).as(sink + ": only hostile records in the DLQ").isNotNull();
            counts.merge(kind, 1, Integer::sum);
            assertThat(header(r, "__connect.errors.exception.message")).as(sink + " " + kind).contains(expect.get(kind));
        }
        for (String kind : expect.keySet()) {
            assertThat(counts.getOrDefault(kind, 0)).as(sink + " " + kind).isEqualTo(count(hostile, kind));
        }
        return counts;
    }

    private static List<Hostile> peerHostile(String topic) {
        Random random = new Random(25);
        StampKeys link = new StampKeys(PeerItSupport.STAMP_KEY, null);
        StampKeys other = new StampKeys("a key that is not the link's, 32+ characters", null);
        Namespace docs = new Namespace(PeerItSupport.DB, DOCS);
        List<Hostile> out = new ArrayList<>();
        List<Namespace> foreign = List.of(new Namespace("payroll", "salaries"), new Namespace("elsewhere", DOCS),
                new Namespace("admin", "system.users"), new Namespace(PeerItSupport.DB, "_tideline_versions"),
                new Namespace(PeerItSupport.DB, "system.views"));
        for (int i = 0; i < EACH; i++) {
            String id = "hostile-" + i;
            BsonDocument content = new BsonDocument("w", new BsonString("hostile-" + i));
            // a write whose stamp has no MAC, or a delete without its MAC header
            out.add(new Hostile("missing-mac", "carries no MAC", i % 2 == 0 ? peerWrite(topic, docs, id, content, null)
                    : peerDelete(topic, docs, id, null)));
            // signed with a key that is not the link's, or a delete's MAC made for another document
            out.add(new Hostile("bad-mac", "does not verify", i % 2 == 0 ? peerWrite(topic, docs, id, content, other)
                    : peerDelete(topic, docs, id, link.sign(new StampKeys.Bound("B", docs.fullName(), new BsonString(id + "x"),
                    version(), null, null)).text())));
            byte[] garbage = new byte[5 + random.nextInt(200)];
            random.nextBytes(garbage);
            ProducerRecord<byte[], byte[]> malformed = new ProducerRecord<>(topic, 0, null, garbage);
            peerHeaders(malformed, docs);
            out.add(new Hostile("malformed", "malformed record", malformed));
            // signed with the link's key: only the namespace policy stands in the way
            Namespace ns = foreign.get(i % foreign.size());
            out.add(new Hostile("foreign-namespace", "refused: destination", peerWrite(topic, ns, id, content, link)));
            BsonDocument big = new BsonDocument("w", new BsonString("hostile-" + i))
                    .append("pad", new BsonString("p".repeat(MAX_RECORD_BYTES + random.nextInt(4096))));
            out.add(new Hostile("oversize", "over record.max.bytes", peerWrite(topic, docs, id, big, link)));
        }
        Collections.shuffle(out, random);
        return out;
    }

    private static Version version() {
        return new Version(new BsonTimestamp((int) (System.currentTimeMillis() / 1000), 1), "B");
    }

    /** A write as B's peer source would emit it, its stamp signed with {@code keys} (null: a stamp without a MAC). */
    private static ProducerRecord<byte[], byte[]> peerWrite(String topic, Namespace ns, String id, BsonDocument content, StampKeys keys) {
        BsonDocument doc = new BsonDocument("_id", new BsonString(id));
        doc.putAll(content);
        Version v = version();
        PeerStamp stamp = new PeerStamp(v, ContentHash.of(doc), null);
        BsonDocument stamped = (keys == null ? stamp : stamp.signed(keys, "B", ns, new BsonString(id))).applyTo(doc);
        ChangeEvent e = new ChangeEvent(Op.REPLACE, ns, new BsonString(id), stamped, v.time(), System.currentTimeMillis(), "B");
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, 0, SinkItSupport.keyBytes(topic, e.id(), ValueFormat.BSON),
                SinkItSupport.valueBytes(topic, e, ValueFormat.BSON));
        peerHeaders(r, ns);
        r.headers().add(PeerHeaders.VERSION, utf8(v.toText()));
        return r;
    }

    private static ProducerRecord<byte[], byte[]> peerDelete(String topic, Namespace ns, String id, String mac) {
        Version v = version();
        ChangeEvent e = new ChangeEvent(Op.DELETE, ns, new BsonString(id), null, v.time(), System.currentTimeMillis(), "B");
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, 0, SinkItSupport.keyBytes(topic, e.id(), ValueFormat.BSON),
                SinkItSupport.valueBytes(topic, e, ValueFormat.BSON));
        peerHeaders(r, ns);
        r.headers().add(PeerHeaders.VERSION, utf8(v.toText()));
        if (mac != null) {
            r.headers().add(PeerHeaders.MAC, utf8(mac));
        }
        return r;
    }

    private static void peerHeaders(ProducerRecord<byte[], byte[]> r, Namespace ns) {
        r.headers().add(EventHeaders.KIND, utf8(EventHeaders.KIND_CHANGE)).add(EventHeaders.NAMESPACE, utf8(ns.fullName()))
                .add(EventHeaders.ORIGIN, utf8("B")).add(PeerHeaders.CLUSTER, utf8("B"));
    }

    private static List<Hostile> signingHostile(String topic, Namespace ns, ConsumerRecord<byte[], byte[]> signed) {
        Random random = new Random(27);
        List<Hostile> out = new ArrayList<>();
        for (int i = 0; i < EACH; i++) {
            String id = "hostile-" + i;
            // a well-formed change, aimed at this sink's collection or elsewhere, with no signature
            ChangeEvent e = new ChangeEvent(Op.INSERT, i % 2 == 0 ? ns : new Namespace("elsewhere", DOCS), new BsonString(id),
                    new BsonDocument("_id", new BsonString(id)).append("w", new BsonString(id)),
                    new BsonTimestamp((int) (System.currentTimeMillis() / 1000) + 3600, 1), 0L, null);
            ProducerRecord<byte[], byte[]> unsigned = new ProducerRecord<>(topic, 0, SinkItSupport.keyBytes(topic, e.id(), ValueFormat.BSON),
                    SinkItSupport.valueBytes(topic, e, ValueFormat.BSON));
            unsigned.headers().add(EventHeaders.KIND, utf8(EventHeaders.KIND_CHANGE)).add(EventHeaders.NAMESPACE, utf8(e.ns().fullName()));
            out.add(new Hostile("unsigned", "no tl.sig header", unsigned));
            // the same change wearing a real record's headers and signature (changed on its way), or garbage so signed
            ProducerRecord<byte[], byte[]> borrowed;
            if (i % 2 == 0) {
                borrowed = new ProducerRecord<>(topic, 0, SinkItSupport.keyBytes(topic, e.id(), ValueFormat.BSON),
                        SinkItSupport.valueBytes(topic, e, ValueFormat.BSON));
            } else {
                byte[] garbage = new byte[5 + random.nextInt(200)];
                random.nextBytes(garbage);
                borrowed = new ProducerRecord<>(topic, 0, signed.key(), garbage);
            }
            for (Header h : signed.headers()) {
                borrowed.headers().add(h.key(), h.value());
            }
            out.add(new Hostile("badly-signed", "does not match the record", borrowed));
            // signed with another deployment's key
            ProducerRecord<byte[], byte[]> foreignKey = new ProducerRecord<>(topic, 0, signed.key(), signed.value());
            for (Header h : signed.headers()) {
                if (!h.key().equals(RecordSignature.HEADER)) {
                    foreignKey.headers().add(h.key(), h.value());
                }
            }
            foreignKey.headers().add(RecordSignature.HEADER, utf8("0badc0de:" + "0".repeat(32)));
            out.add(new Hostile("other-key", "names no key of this sink", foreignKey));
        }
        Collections.shuffle(out, random);
        return out;
    }

    private static void send(List<Hostile> hostile) {
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(stack.bootstrapServers())) {
            for (Hostile h : hostile) {
                h.record().headers().add(CLASS_HEADER, utf8(h.kind()));
                p.send(h.record());
            }
            p.flush();
        }
    }

    /** The connectors' states, sampled every 250 ms from its creation until it is closed. */
    private static final class StateWatch implements AutoCloseable {
        private final List<String> states = Collections.synchronizedList(new ArrayList<>());
        private final ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor();

        StateWatch(List<String> connectors) {
            watcher.scheduleAtFixedRate(() -> connectors.forEach(c -> states.add(c + " " + state(stack.rest().statusOrEmpty(c)))),
                    0, 250, TimeUnit.MILLISECONDS);
        }

        /** The states seen that are not RUNNING for the connector and its task. */
        List<String> notRunning() {
            synchronized (states) {
                return states.stream().filter(s -> !s.endsWith("RUNNING/RUNNING")).distinct().toList();
            }
        }

        int samples() {
            return states.size();
        }

        @Override
        public void close() throws InterruptedException {
            watcher.shutdown();
            watcher.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static String state(JsonNode status) {
        String tasks = status.path("tasks").size() == 0 ? "NO_TASK" : status.path("tasks").get(0).path("state").asText();
        return status.path("connector").path("state").asText("UNKNOWN") + "/" + tasks;
    }

    private static long count(List<Hostile> hostile, String kind) {
        return hostile.stream().filter(h -> h.kind().equals(kind)).count();
    }

    private static Map<String, Long> classes(List<Hostile> hostile) {
        Map<String, Long> out = new TreeMap<>();
        hostile.forEach(h -> out.merge(h.kind(), 1L, Long::sum));
        return out;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
