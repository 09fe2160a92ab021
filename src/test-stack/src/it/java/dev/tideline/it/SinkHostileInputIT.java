package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.mongodb.client.MongoClient;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.IdScope;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.ClassMongo;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import dev.tideline.it.ops.JmxReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import javax.management.openmbean.CompositeData;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What someone who can produce to a change topic would send to pin, wipe or crash a sink, on the real
 * worker: 200 generated records of each class (versions from the future, resnapshot complete markers
 * without their begin, markers with a future epoch, array padding bombs, path depth bombs, 60 KB keys,
 * malformed bytes, foreign namespaces), shuffled among the honest changes of a mixed workload. Every
 * task must stay RUNNING, each hostile record must land in the dead letter queue with its reason, and the
 * destination must equal what the honest records alone give: nothing pinned, swept or padded.
 */
class SinkHostileInputIT {
    private static final String TOPIC = "sink-it-hostile";
    private static final String DLQ = "sink-it-hostile-dlq";
    private static final String CONNECTOR = "hostile-sink";
    private static final Namespace ORDERS = new Namespace("hostile", "orders");
    private static final String CLASS_HEADER = "hostile";
    private static final int PER_CLASS = 200;
    private static final int BOMB_TARGETS = 20;
    private static final long SEED = 25;

    private static final TestStack stack = TestStack.shared();
    @RegisterExtension
    static final ClassMongo destination = new ClassMongo();

    /**
     * One hostile record, its class, and a phrase its reason in the dead letter queue must contain. The record
     * is made once its place in the stream is known ({@code seq} grows along the stream): a partial update
     * carries a cluster time, and one that arrived after a newer one of the same document would merely be
     * stale, dropped by the planner as any stale change is, rather than refused for what it is.
     */
    private record Hostile(String kind, IntFunction<ProducerRecord<byte[], byte[]>> make, String expect) {
        Hostile(String kind, ProducerRecord<byte[], byte[]> record, String expect) {
            this(kind, seq -> record, expect);
        }
    }

    @Test
    void everyHostileRecordIsRefusedWithItsReasonAndTheDestinationIsWhatTheHonestRecordsMakeIt() throws Exception {
        String bootstrap = stack.bootstrapServers();
        stack.createTopic(TOPIC, 1);
        stack.createTopic(DLQ, 1);
        ConnectRest rest = stack.rest();
        rest.putConnector(CONNECTOR, config());
        rest.awaitRunning(CONNECTOR, 1, Duration.ofSeconds(60));
        MongoClient client = destination.client();

        // The documents the padding bombs aim at, applied before them (a partial update needs its document).
        Map<BsonValue, BsonDocument> expected = new LinkedHashMap<>();
        try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(bootstrap)) {
            for (int k = 0; k < BOMB_TARGETS; k++) {
                BsonDocument target = new BsonDocument("_id", bombTarget(k)).append("a", new BsonArray())
                        .append("b", new BsonDocument("list", new BsonArray(List.of(new BsonInt32(1)))));
                expected.put(target.get("_id"), target);
                SinkItSupport.send(p, TOPIC, 0, new ChangeEvent(Op.INSERT, ORDERS, target.get("_id"), target,
                        new BsonTimestamp(1_600_000_000, k + 1), 0L, null), ValueFormat.BSON);
            }
            p.flush();
        }
        await("the padding bombs' targets applied", Duration.ofMinutes(1),
                () -> SinkItSupport.snapshot(client, ORDERS).size() == BOMB_TARGETS);

        SinkItSupport.Workload honest = SinkItSupport.Workload.generate(ORDERS, 2_000, 150, SEED);
        expected.putAll(honest.expected());
        List<Hostile> hostile = hostile(new Random(SEED));
        List<ProducerRecord<byte[], byte[]>> stream = interleave(honest, hostile, new Random(SEED + 1));

        List<String> states = Collections.synchronizedList(new ArrayList<>());
        AtomicLong peakHeap = new AtomicLong();
        AtomicLong maxHeap = new AtomicLong();
        JmxReader jmx = new JmxReader(stack.jmxUrl(0));
        ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor();
        watcher.scheduleAtFixedRate(() -> {
            states.add(state(rest.statusOrEmpty(CONNECTOR)));
            if (jmx.attribute("java.lang:type=Memory", "HeapMemoryUsage") instanceof CompositeData heap) {
                peakHeap.accumulateAndGet((Long) heap.get("used"), Math::max);
                maxHeap.set((Long) heap.get("max"));
            }
        }, 0, 250, TimeUnit.MILLISECONDS);
        long started = System.nanoTime();
        List<ConsumerRecord<byte[], byte[]>> dead;
        try {
            try (KafkaProducer<byte[], byte[]> p = SinkItSupport.producer(bootstrap)) {
                stream.forEach(p::send);
                p.flush();
            }
            // committed through the end: every record applied or reported (Connect commits a sink's offsets only
            // once the dead letter queue has acknowledged what the task reported before them)
            SinkItSupport.awaitCommittedThroughEnd(bootstrap, "connect-" + CONNECTOR, List.of(TOPIC), Duration.ofMinutes(2));
            dead = TopicReader.readToEnd(bootstrap, DLQ, Duration.ofSeconds(30));
        } finally {
            watcher.shutdown();
            watcher.awaitTermination(5, TimeUnit.SECONDS);
            jmx.close();
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);

        Map<String, Integer> counts = new TreeMap<>();
        Map<String, String> example = new TreeMap<>();
        List<String> wrongReasons = new ArrayList<>();
        Map<String, String> expectByKind = new HashMap<>();
        hostile.forEach(h -> expectByKind.put(h.kind() + "/" + h.expect(), h.expect()));
        for (ConsumerRecord<byte[], byte[]> r : dead) {
            String tag = header(r, CLASS_HEADER);
            String kind = tag == null ? "(honest)" : tag.substring(0, tag.indexOf('/'));
            String expect = tag == null ? null : expectByKind.get(tag);
            String reason = header(r, "__connect.errors.exception.message");
            counts.merge(kind, 1, Integer::sum);
            example.putIfAbsent(kind, reason);
            if (expect == null || reason == null || !reason.contains(expect)) {
                wrongReasons.add(tag + ": " + reason);
            }
        }
        List<String> diffs = SinkItSupport.byteDifferences(expected, SinkItSupport.snapshot(client, ORDERS));
        List<String> notRunning = states.stream().filter(s -> !s.equals("RUNNING/RUNNING")).distinct().toList();
        List<String> databases = client.listDatabaseNames().into(new ArrayList<>());
        long copies = client.getDatabase(ORDERS.db()).getCollection("_tideline_copies").countDocuments();
        long nowSeconds = System.currentTimeMillis() / 1000;
        long versionsAhead = 0;
        for (BsonDocument v : client.getDatabase(ORDERS.db()).getCollection("_tideline_versions", BsonDocument.class).find()) {
            if (v.get("v").isTimestamp() && Integer.toUnsignedLong(v.getTimestamp("v").getTime()) > nowSeconds) {
                versionsAhead++;
            }
        }

        System.out.printf("hostile input: %d honest changes and %d hostile records (%d classes) in %d s; %d in the DLQ; "
                        + "destination %s (%d documents); %d versions ahead of the clock; %d copy begins recorded; databases %s; "
                        + "%d status checks, not RUNNING: %s; worker heap peak %d MB of %d MB%n", honest.changes().size(), hostile.size(),
                counts.size(), seconds,
                dead.size(), diffs.isEmpty() ? "equals the honest records' result" : "DIFFERS: " + diffs.subList(0, Math.min(5, diffs.size())),
                expected.size(), versionsAhead, copies, databases, states.size(), notRunning, peakHeap.get() >> 20,
                maxHeap.get() >> 20);
        example.forEach((kind, reason) -> System.out.printf("  %-22s dlq=%d  %s%n", kind, counts.get(kind),
                reason == null ? null : reason.length() > 240 ? reason.substring(0, 240) + "..." : reason));

        assertThat(wrongReasons).as("DLQ records without the expected reason").isEmpty();
        assertThat(counts).as("hostile records in the DLQ per class").hasSize(8)
                .allSatisfy((kind, n) -> assertThat(n).as(kind).isEqualTo(PER_CLASS));
        assertThat(dead).hasSize(hostile.size());
        assertThat(diffs).as("destination vs the honest records alone").isEmpty();
        assertThat(versionsAhead).isZero();
        assertThat(copies).as("copy begins recorded from hostile markers").isZero();
        assertThat(databases).doesNotContain("elsewhere");
        assertThat(notRunning).as("connector and task RUNNING throughout").isEmpty();
        assertThat(states).isNotEmpty();
        rest.deleteConnector(CONNECTOR);
    }

    private static Map<String, String> config() {
        Map<String, String> c = SinkItSupport.sinkConfig(TOPIC, destination.uri(), "unused", ValueFormat.BSON);
        c.remove("database"); // each record names its database: foreign ones are for database.allow to refuse
        c.put("database.allow", ORDERS.db());
        c.put("errors.tolerance", "all");
        c.put("errors.deadletterqueue.topic.name", DLQ);
        c.put("errors.deadletterqueue.topic.replication.factor", "1");
        c.put("errors.deadletterqueue.context.headers.enable", "true");
        return c;
    }

    private static BsonValue bombTarget(int k) {
        return new BsonString("bomb-target-" + k);
    }

    /** The honest changes in order, each hostile record inserted at a random place among them. */
    private static List<ProducerRecord<byte[], byte[]>> interleave(SinkItSupport.Workload honest, List<Hostile> hostile, Random random) {
        List<ProducerRecord<byte[], byte[]>> stream = new ArrayList<>();
        for (ChangeEvent e : honest.changes()) {
            stream.add(new ProducerRecord<>(TOPIC, 0, SinkItSupport.keyBytes(TOPIC, e.id(), ValueFormat.BSON),
                    SinkItSupport.valueBytes(TOPIC, e, ValueFormat.BSON)));
        }
        List<Object> slots = new ArrayList<>(stream);
        for (Hostile h : hostile) {
            slots.add(random.nextInt(slots.size() + 1), h);
        }
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(slots.size());
        int seq = 0;
        for (Object slot : slots) {
            if (slot instanceof Hostile h) {
                ProducerRecord<byte[], byte[]> r = h.make().apply(++seq);
                r.headers().add(CLASS_HEADER, (h.kind() + "/" + h.expect()).getBytes(StandardCharsets.UTF_8));
                out.add(r);
            } else {
                @SuppressWarnings("unchecked")
                ProducerRecord<byte[], byte[]> r = (ProducerRecord<byte[], byte[]>) slot;
                out.add(r);
            }
        }
        return out;
    }

    private static List<Hostile> hostile(Random random) {
        long now = System.currentTimeMillis() / 1000;
        List<Hostile> out = new ArrayList<>();
        for (int i = 0; i < PER_CLASS; i++) {
            // a change stamped from an hour to a year ahead, of a document the honest workload keeps changing
            BsonInt32 id = new BsonInt32(random.nextInt(150));
            long ahead = 3_600 + random.nextInt(365 * 86_400);
            ChangeEvent future = new ChangeEvent(i % 4 == 0 ? Op.DELETE : Op.REPLACE, ORDERS, id,
                    i % 4 == 0 ? null : new BsonDocument("_id", id).append("forged", BsonBoolean.TRUE),
                    new BsonTimestamp((int) (now + ahead), i + 1), 0L, null);
            out.add(new Hostile("future-version", envelope(future), "ahead of this worker's clock"));

            // a complete marker with no begin before it: it would sweep every document older than its epoch
            IdScope scope = i % 3 == 0 ? new IdScope(new BsonInt32(random.nextInt(75)), new BsonInt32(75 + random.nextInt(75)))
                    : IdScope.ALL;
            out.add(new Hostile("orphan-complete", marker(ResnapshotMarker.Stage.COMPLETE, now - 60 - random.nextInt(600), scope),
                    "without its resnapshot.begin marker of the same epoch"));

            // a begin or a complete whose epoch is ahead of the clock
            ResnapshotMarker.Stage stage = i % 2 == 0 ? ResnapshotMarker.Stage.BEGIN : ResnapshotMarker.Stage.COMPLETE;
            out.add(new Hostile("future-epoch", marker(stage, now + 3_600 + random.nextInt(86_400), IdScope.ALL),
                    "the epoch of this " + stage.wireName() + " marker"));

            // {a: []} then a.<index>: MongoDB pads at most 1,500,000 nulls
            long index = 1_500_002L + (long) (random.nextDouble() * 998_000_000L);
            String array = i % 2 == 0 ? "a" : "b.list";
            BsonValue paddingTarget = bombTarget(random.nextInt(BOMB_TARGETS));
            BsonDocument padding = new BsonDocument(array + "." + index, new BsonInt32(1));
            out.add(new Hostile("padding-bomb", seq -> partialUpdate(paddingTarget, padding, seq), "MongoDB pads at most 1500000"));

            // deeper than 100 levels: by the path, or by the path and the value it sets
            BsonDocument deep;
            String deepReason;
            if (i % 2 == 0) {
                deep = new BsonDocument("b" + ".b".repeat(100 + random.nextInt(2_000)), new BsonInt32(1));
                deepReason = "more than 100 parts";
            } else {
                BsonValue v = new BsonInt32(1);
                for (int level = 0; level < 51 + random.nextInt(40); level++) {
                    v = new BsonDocument("d", v);
                }
                deep = new BsonDocument("b" + ".b".repeat(49), v);
                deepReason = "more than 100 levels deep";
            }
            BsonValue depthTarget = bombTarget(random.nextInt(BOMB_TARGETS));
            out.add(new Hostile("depth-bomb", seq -> partialUpdate(depthTarget, deep, seq), deepReason));

            // a 60 KB key of 30,000 parts (the StackOverflowError)
            BsonValue longKeyTarget = bombTarget(random.nextInt(BOMB_TARGETS));
            BsonDocument longKey = new BsonDocument("b" + ".b".repeat(30_000 + random.nextInt(1_000)), new BsonInt32(1));
            out.add(new Hostile("long-key", seq -> partialUpdate(longKeyTarget, longKey, seq), "more than 100 parts"));

            // bytes that are not BSON: a length prefix that does not match
            byte[] junk = new byte[16 + random.nextInt(200)];
            random.nextBytes(junk);
            junk[0] = (byte) (junk.length + 1);
            junk[1] = 0;
            junk[2] = 0;
            junk[3] = 0;
            out.add(new Hostile("malformed-bytes", new ProducerRecord<>(TOPIC, 0, null, junk), "malformed record"));

            // somewhere this sink must never write
            Namespace[] foreign = {new Namespace("elsewhere", "orders"), new Namespace("admin", "system.users"),
                    new Namespace(ORDERS.db(), "_tideline_versions"), new Namespace(ORDERS.db(), "system.views")};
            String[] why = {"is not in database.allow", "MongoDB's own", "Tideline's own", "system collection"};
            int f = i % foreign.length;
            BsonValue fid = new BsonString("foreign-" + i);
            out.add(new Hostile("foreign-namespace", envelope(new ChangeEvent(Op.INSERT, foreign[f], fid,
                    new BsonDocument("_id", fid), new BsonTimestamp((int) now - 5, i + 1), 0L, null)), why[f]));
        }
        return out;
    }

    private static ProducerRecord<byte[], byte[]> envelope(ChangeEvent e) {
        return new ProducerRecord<>(TOPIC, 0, SinkItSupport.keyBytes(TOPIC, e.id(), ValueFormat.BSON),
                SinkItSupport.valueBytes(TOPIC, e, ValueFormat.BSON));
    }

    /** A marker as the source sends it: headers carry it, the value repeats it for people. */
    private static ProducerRecord<byte[], byte[]> marker(ResnapshotMarker.Stage stage, long epochSeconds, IdScope scope) {
        ResnapshotMarker m = new ResnapshotMarker(stage, ORDERS, new BsonTimestamp((int) epochSeconds, 1), 1, scope);
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(TOPIC, 0, null, EnvelopeCodec.toBytes(m.value(System.currentTimeMillis())));
        r.headers().add(EventHeaders.KIND, EventHeaders.KIND_CONTROL.getBytes(StandardCharsets.UTF_8));
        r.headers().add(EventHeaders.NAMESPACE, ORDERS.fullName().getBytes(StandardCharsets.UTF_8));
        m.headers().forEach((k, v) -> r.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
        return r;
    }

    /**
     * An update event of MongoDB's official connector without the full document: a partial update, its cluster
     * time 30 s ago, increment {@code n}.
     */
    private static ProducerRecord<byte[], byte[]> partialUpdate(BsonValue id, BsonDocument updatedFields, int n) {
        BsonDocument event = new BsonDocument("_id", new BsonDocument("_data", new BsonString("forged-" + n)))
                .append("operationType", new BsonString("update"))
                .append("ns", new BsonDocument("db", new BsonString(ORDERS.db())).append("coll", new BsonString(ORDERS.coll())))
                .append("documentKey", new BsonDocument("_id", id))
                .append("updateDescription", new BsonDocument("updatedFields", updatedFields).append("removedFields", new BsonArray()))
                .append("clusterTime", new BsonTimestamp((int) (System.currentTimeMillis() / 1000) - 30, n + 1));
        return new ProducerRecord<>(TOPIC, 0, null, EnvelopeCodec.toBytes(event));
    }

    private static String state(JsonNode status) {
        String tasks = status.path("tasks").size() == 0 ? "NO_TASK" : status.path("tasks").get(0).path("state").asText();
        return status.path("connector").path("state").asText("UNKNOWN") + "/" + tasks;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
