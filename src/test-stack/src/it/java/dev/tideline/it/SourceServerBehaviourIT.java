package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ResnapshotMarker;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.ops.JmxReader;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * What real servers do that a task meets per collection, on the real worker with the built plugin:
 * an event over the server's size limit (the stand-in's limit lowered: a "20 MB" change at 512 KB),
 * put back together where the server splits events and parking only its collection where it cannot;
 * a drop followed by a kill -9 of the worker (no copy again, no lost history); offsets written by the
 * first release (no copy again).
 */
class SourceServerBehaviourIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int LIMIT = 512 * 1024;

    private static List<ChangeEvent> changes(TestStack stack, String topic, int atLeast) {
        return SourceItSupport.changes(TopicReader.readUntil(stack.bootstrapServers(), topic,
                rs -> SourceItSupport.changes(rs, true).size() >= atLeast, atLeast + " changes", Duration.ofSeconds(120)), true);
    }

    private static List<String> controls(TestStack stack, String topic, String ns) {
        List<String> out = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(stack.bootstrapServers(), topic, Duration.ofSeconds(2))) {
            if (ns.equals(SourceItSupport.header(r, EventHeaders.NAMESPACE)) && r.value() != null) {
                out.add(new String(r.value(), StandardCharsets.ISO_8859_1));
            }
        }
        return out;
    }

    /** The resnapshot markers on {@code topic} by their copy's epoch, oldest first: each copy's stages in topic order. */
    private static TreeMap<BsonTimestamp, List<ResnapshotMarker.Stage>> markersByEpoch(TestStack stack, String topic) {
        TreeMap<BsonTimestamp, List<ResnapshotMarker.Stage>> byEpoch = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(stack.bootstrapServers(), topic, Duration.ofSeconds(1))) {
            ResnapshotMarker.fromHeaders(name -> SourceItSupport.header(r, name))
                    .ifPresent(m -> byEpoch.computeIfAbsent(m.epoch(), e -> new ArrayList<>()).add(m.stage()));
        }
        return byEpoch;
    }

    @Test
    void anEventOverTheLimitArrivesWholeWhereTheServerSplitsItAndTheOtherCollectionsGoOn() {
        TestStack stack = TestStack.shared();
        String db = "large_it";
        String connector = "source-large-it";
        try (MongoFixture mongo = MongoFixture.inProcess(new AwaitingMemoryBackend().maxEventBytes(LIMIT), true)) {
            MongoDatabase database = mongo.client().getDatabase(db);
            database.getCollection("big").insertOne(new Document("_id", 0));
            database.getCollection("small").insertOne(new Document("_id", 0));
            stack.rest().putConnector(connector, SourceItSupport.sourceConfig(mongo.uri(), db, "large", ValueFormat.BSON, 1));
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                changes(stack, "large." + db + ".small", 1);
                String half = "x".repeat(200 * 1024);
                database.getCollection("big").insertOne(new Document("_id", 1).append("a", half).append("b", half));
                // its event: the looked-up document (400 KB) and the update description (200 KB), over the 512 KB limit
                database.getCollection("big").updateOne(Filters.eq("_id", 1), Updates.set("b", half.replace('x', 'y')));
                for (int i = 1; i <= 20; i++) {
                    database.getCollection("small").insertOne(new Document("_id", i));
                }
                database.getCollection("big").insertOne(new Document("_id", 2));
                List<ChangeEvent> big = changes(stack, "large." + db + ".big", 4);
                List<ChangeEvent> small = changes(stack, "large." + db + ".small", 21);
                ChangeEvent update = big.stream().filter(e -> e.op() == Op.UPDATE).findFirst().orElseThrow();
                System.out.printf("LARGE: the update's event (~%d KB, limit %d KB) arrived split and put back together: document of %d "
                        + "bytes; big: %d changes, small: %d changes%n", 600, LIMIT / 1024, update.document().toJson().length(),
                        big.size(), small.size());
                assertThat(update.document().getString("b").getValue()).startsWith("yyy").hasSize(200 * 1024);
                assertThat(update.document().getString("a").getValue()).hasSize(200 * 1024);
                // the seed may come twice: the stream starts a margin before the copy (replays are harmless)
                assertThat(big).filteredOn(e -> e.id().asInt32().getValue() > 0).extracting(e -> e.op().wireName() + ":" + e.id())
                        .containsExactly("insert:BsonInt32{value=1}", "update:BsonInt32{value=1}", "insert:BsonInt32{value=2}");
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }

    @Test
    void withoutTheSplitStageTheEventParksOnlyItsCollectionAlsoAfterARestart() {
        TestStack stack = TestStack.shared();
        String db = "park_it";
        String connector = "source-park-it";
        Namespace bigNs = new Namespace(db, "big");
        try (MongoFixture mongo = MongoFixture.inProcess(new AwaitingMemoryBackend().maxEventBytes(LIMIT).splitLargeEventStage(false),
                true); JmxReader jmx = new JmxReader(stack.jmxUrl(0))) {
            MongoDatabase database = mongo.client().getDatabase(db);
            database.getCollection("big").insertOne(new Document("_id", 0));
            database.getCollection("small").insertOne(new Document("_id", 0));
            stack.rest().putConnector(connector, SourceItSupport.sourceConfig(mongo.uri(), db, "park", ValueFormat.BSON, 1));
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                changes(stack, "park." + db + ".small", 1);
                changes(stack, "park." + db + ".big", 1);
                String third = "x".repeat(200 * 1024);
                database.getCollection("big").insertOne(new Document("_id", 1).append("a", third).append("b", third)
                        .append("c", third)); // 600 KB: over the limit
                database.getCollection("big").insertOne(new Document("_id", 2));
                for (int i = 1; i <= 10; i++) {
                    database.getCollection("small").insertOne(new Document("_id", i));
                }
                changes(stack, "park." + db + ".small", 11);
                String task = ScaleStack.task(connector);
                ScaleStack.awaitAttribute(jmx, task, "ParkedCollections", v -> ((String[]) v).length == 1, Duration.ofSeconds(60));
                String[] reasons = (String[]) jmx.attribute(task, "HealthReasons");
                System.out.printf("PARK: health %s %s; parked %s; control records of big: %s%n", jmx.attribute(task, "Health"),
                        List.of(reasons), List.of((String[]) jmx.attribute(task, "ParkedCollections")),
                        controls(stack, "park.control", bigNs.fullName()).size());
                assertThat(jmx.attribute(task, "Health")).isEqualTo("degraded");
                assertThat(reasons).contains(bigNs.fullName() + ": parked");
                assertThat(controls(stack, "park.control", bigNs.fullName())).anyMatch(v -> v.contains("PARKED") && v.contains("_id"));
                // only the seed (its copy, and its insert replayed from the stream start a margin before the copy)
                assertThat(changes(stack, "park." + db + ".big", 1)).extracting(e -> e.id().asInt32().getValue()).containsOnly(0);

                // a restart meets the event again: the same decision, never a task that fails over and over
                stack.rest().restartConnector(connector, true);
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                database.getCollection("small").insertOne(new Document("_id", 11));
                changes(stack, "park." + db + ".small", 12);
                ScaleStack.awaitAttribute(jmx, task, "ParkedCollections", v -> ((String[]) v).length == 1, Duration.ofSeconds(60));
                assertThat(stack.rest().status(connector).toString()).doesNotContain("FAILED");
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }

    @Test
    void aDropThenAKillOfTheWorkerCopiesNothingAgainAndLosesNoHistory() {
        TestStack stack = TestStack.shared();
        String db = "dropkill_it";
        String connector = "source-dropkill-it";
        Namespace orders = new Namespace(db, "orders");
        String topic = "dropkill." + orders.fullName();
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoDatabase database = mongo.client().getDatabase(db);
            for (int i = 0; i < 5; i++) {
                database.getCollection("orders").insertOne(new Document("_id", i));
            }
            database.getCollection("other").insertOne(new Document("_id", 0));
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), db, "dropkill", ValueFormat.BSON, 1);
            config.put("collection.discovery.interval.ms", "2000");
            stack.rest().putConnector(connector, config);
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                changes(stack, topic, 5);
                database.getCollection("orders").insertOne(new Document("_id", 5));
                stack.rest().awaitCommittedToken(connector, orders, Duration.ofSeconds(60));
                database.getCollection("orders").drop();
                Waits.pause(Duration.ofMillis(300), "the kill lands shortly after the drop (the fault's timing)");
                stack.killWorker();
                stack.startWorker();
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(90));
                database.getCollection("orders").insertOne(new Document("_id", 100)); // created again
                List<ChangeEvent> all = SourceItSupport.changes(TopicReader.readUntil(stack.bootstrapServers(), topic,
                        rs -> SourceItSupport.changes(rs, true).stream().anyMatch(e -> e.id().asInt32().getValue() == 100),
                        "the insert into the collection created again", Duration.ofSeconds(120)), true);
                long reads = all.stream().filter(e -> e.op() == Op.READ).count();
                List<String> control = controls(stack, "dropkill.control", orders.fullName());
                // markers by epoch: the copy's, then the drop's (drop.policy=apply: a copy of nothing at the drop's time,
                // sent again when the kill lands before its offset is committed, which the sink takes idempotently)
                TreeMap<BsonTimestamp, List<ResnapshotMarker.Stage>> markersByEpoch = markersByEpoch(stack, topic);
                long markers = markersByEpoch.values().stream().mapToLong(List::size).sum();
                System.out.printf("DROP + kill -9: %d copies (5 documents existed), %d markers, control records %d (%s)%n", reads,
                        markers, control.size(), control.stream().anyMatch(c -> c.contains("drop")) ? "drop reported" : "no drop");
                assertThat(reads).as("copied once, never again").isEqualTo(5);
                assertThat(markersByEpoch).as("two epochs: the copy's and the drop's").hasSize(2);
                assertThat(markersByEpoch.firstEntry().getValue()).as("one copy: its begin and complete markers").hasSize(2);
                List<ResnapshotMarker.Stage> drop = markersByEpoch.lastEntry().getValue();
                assertThat(drop).as("the drop's begin and complete, once or again after the kill").hasSizeBetween(2, 4);
                assertThat(drop.size() % 2).as("begin and complete in pairs: " + drop).isZero();
                assertThat(control).anyMatch(c -> c.contains("drop")).noneMatch(c -> c.contains("history_lost"));
                assertThat(all).anyMatch(e -> e.op() == Op.INSERT && e.id().asInt32().getValue() == 100);
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }

    /**
     * The stand-in's oplog capped at 300 entries: while a collection is copied slowly, other writes roll
     * the oplog past the copy's stream start. The copy is not done again (it would outlive the window
     * again): its collection is parked with what to do, and the other collections go on.
     */
    @Test
    void aCopyLongerThanTheOplogWindowIsParkedWithWhatToDoNotLooped() {
        TestStack stack = TestStack.shared();
        String db = "window_it";
        String connector = "source-window-it";
        Namespace slow = new Namespace(db, "slow");
        try (MongoFixture mongo = MongoFixture.inProcess(new AwaitingMemoryBackend().capOplog(300, 0), true);
             JmxReader jmx = new JmxReader(stack.jmxUrl(0))) {
            MongoDatabase database = mongo.client().getDatabase(db);
            List<Document> docs = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                docs.add(new Document("_id", i));
            }
            database.getCollection("slow").insertMany(docs);
            database.getCollection("other").insertOne(new Document("_id", 0));
            Waits.pause(Duration.ofSeconds(3), "a stream start (2 s before now) after the load: still in the oplog when the copies begin (a clock margin)");
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), db, "window", ValueFormat.BSON, 1);
            config.put("batch.size", "5"); // a slow copy: 4,000 round trips
            config.put("collection.exclude", db + "\\.noise");
            stack.rest().putConnector(connector, config);
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                TopicReader.readUntil(stack.bootstrapServers(), "window." + db + ".other", 1, Duration.ofSeconds(60));
                TopicReader.readUntil(stack.bootstrapServers(), "window." + slow.fullName(), 10, Duration.ofSeconds(60));
                // 600 writes roll the 300-entry oplog past the slow copy's stream start, at a pace the stream reads
                // along with (the database's stream sees them), so only that start is lost
                for (int i = 0; i < 600; i++) {
                    database.getCollection("noise").insertOne(new Document("_id", i));
                }
                String task = ScaleStack.task(connector);
                ScaleStack.awaitAttribute(jmx, task, "ParkedCollections", v -> List.of((String[]) v).contains(slow.fullName()),
                        Duration.ofMinutes(3));
                database.getCollection("other").insertOne(new Document("_id", 1));
                changes(stack, "window." + db + ".other", 2);
                // a quiet period, not a wait for state: the parked copy must not start again, and nothing tells that it did not
                Waits.quietPeriod(Duration.ofSeconds(3), "a parked copy that would copy the collection again");
                long copies = SourceItSupport.changes(TopicReader.readAll(stack.bootstrapServers(), "window." + slow.fullName(),
                        Duration.ofSeconds(2)), true).stream().filter(e -> e.op() == Op.READ).count();
                List<String> control = controls(stack, "window.control", slow.fullName());
                System.out.printf("WINDOW: %d copies of 20,000 documents, then parked (control record naming the oplog window: %s); "
                        + "health %s%n", copies, control.stream().anyMatch(c -> c.contains("PARKED") && c.contains("oplog window")),
                        List.of((String[]) jmx.attribute(task, "HealthReasons")));
                assertThat(copies).as("copied once, not again").isLessThanOrEqualTo(20_000);
                assertThat(control).anyMatch(c -> c.contains("PARKED") && c.contains("oplog window") && c.contains("reset"));
                assertThat((String[]) jmx.attribute(task, "HealthReasons")).contains(slow.fullName() + ": parked");
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }

    /** Offsets the first release wrote (version 1: no cluster time beside the token) resume without a copy. */
    @Test
    void offsetsOfTheFirstReleaseResumeWithoutACopy() throws Exception {
        TestStack stack = TestStack.shared();
        String db = "upgrade_it";
        String connector = "source-upgrade-it";
        Namespace items = new Namespace(db, "items");
        String topic = "upgrade." + items.fullName();
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoDatabase database = mongo.client().getDatabase(db);
            for (int i = 0; i < 3; i++) {
                database.getCollection("items").insertOne(new Document("_id", i));
            }
            stack.rest().putConnector(connector, SourceItSupport.sourceConfig(mongo.uri(), db, "upgrade", ValueFormat.BSON, 1));
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                changes(stack, topic, 3);
                database.getCollection("items").insertOne(new Document("_id", 3));
                SourceOffset current = stack.rest().awaitCommittedToken(connector, items, Duration.ofSeconds(60));
                stack.rest().stop(connector);
                awaitStopped(stack, connector);
                // what the first release wrote for the same position: version 1, the token alone
                Map<String, Object> v1 = new HashMap<>();
                v1.put("v", 1);
                v1.put("phase", "stream");
                v1.put("token", current.token().toJson());
                Map<String, Object> entry = new HashMap<>();
                entry.put("partition", SourcePartition.of(items));
                entry.put("offset", v1);
                HttpResponse<String> patched = stack.rest().patchOffsets(connector, JSON.writeValueAsString(Map.of("offsets", List.of(entry))));
                assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
                int before = TopicReader.readAll(stack.bootstrapServers(), topic, Duration.ofSeconds(1)).size();
                stack.rest().resume(connector);
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                database.getCollection("items").insertOne(new Document("_id", 4));
                List<ConsumerRecord<byte[], byte[]>> after = TopicReader.readUntil(stack.bootstrapServers(), topic,
                        rs -> SourceItSupport.changes(rs, true).stream().anyMatch(e -> e.id().asInt32().getValue() == 4), "the new insert",
                        Duration.ofSeconds(90));
                List<ConsumerRecord<byte[], byte[]>> since = after.subList(before, after.size());
                long copies = SourceItSupport.changes(since, true).stream().filter(e -> e.op() == Op.READ).count();
                long markers = since.stream().filter(r -> r.headers().lastHeader(EventHeaders.MARKER) != null).count();
                System.out.printf("UPGRADE: version 1 offset %s resumed: %d records since, %d copies, %d markers%n", v1, since.size(),
                        copies, markers);
                assertThat(copies).isZero();
                assertThat(markers).isZero();
                // from the committed token on: the new insert, and at most the one written just before the stop
                assertThat(SourceItSupport.changes(since, true)).extracting(e -> e.id().asInt32().getValue()).contains(4).isSubsetOf(3, 4);
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }

    private static void awaitStopped(TestStack stack, String connector) {
        Waits.until(Duration.ofSeconds(60), Duration.ofMillis(200), () -> stack.rest().status(connector),
                status -> "STOPPED".equals(status.path("connector").path("state").asText()), status -> "not stopped: " + status);
    }
}
