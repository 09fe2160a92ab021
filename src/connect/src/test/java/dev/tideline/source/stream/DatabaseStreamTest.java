package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionHandle;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import dev.tideline.source.config.CaptureSettings.LargeEventPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One database's change stream on the stand-in (database-level streams with {@code ns}, MongoDB-shaped
 * tokens, DDL events, an event-size limit, a capped oplog): routing per collection, each collection
 * dropping what it already has, drops and dropDatabase followed, events too large, lost history.
 */
class DatabaseStreamTest {
    static final String DB = "dst";

    private AwaitingMemoryBackend backend;
    private MongoFixture mongo;
    private Thread thread;
    private DatabaseStream stream;
    private final Recorder out = new Recorder();

    /** What the stream reports, in order: of itself, and (through {@link #handle}) of each collection. */
    static class Recorder implements StreamOutput {
        final List<StreamOutput.Delivery> delivered = new CopyOnWriteArrayList<>();
        final List<String> lost = new CopyOnWriteArrayList<>();
        final List<String> parked = new CopyOnWriteArrayList<>();
        /** Why each parked collection was parked. */
        final Map<String, String> parkReasons = new ConcurrentHashMap<>();
        final List<String> recopies = new CopyOnWriteArrayList<>();
        final List<RuntimeException> failures = new CopyOnWriteArrayList<>();
        private final Map<Namespace, Handle> handles = new ConcurrentHashMap<>();
        /** The database of {@link #handle(String)}'s collections. */
        private final String db;

        Recorder() {
            this(DB);
        }

        Recorder(String db) {
            this.db = db;
        }

        /** The handle of a collection of the recorder's database joining the stream: it records what the stream tells it here. */
        CollectionHandle handle(String collection) {
            return handle(new Namespace(db, collection));
        }

        /** The handle of a collection of any database (a deployment stream's) joining the stream. */
        CollectionHandle handle(Namespace ns) {
            return handles.computeIfAbsent(ns, Handle::new);
        }

        @Override
        public void publish(List<StreamOutput.Delivery> batch) {
            delivered.addAll(batch);
            batch.forEach(d -> d.collection().published(List.of(d.item())));
        }

        /** A collection as the stream sees it; it stands where its last delivery left it, like the task's. */
        private final class Handle implements CollectionHandle {
            private final Namespace ns;
            /** How the lists above name it: its name in the recorder's database, else its namespace. */
            private final String collection;
            private volatile SourceOffset position;

            Handle(Namespace ns) {
                this.ns = ns;
                this.collection = ns.db().equals(db) ? ns.coll() : ns.fullName();
            }

            @Override
            public Namespace ns() {
                return ns;
            }

            @Override
            public void append(Captured item, List<SourceRecord> out) {
                throw new UnsupportedOperationException("the recorder keeps the deliveries, it builds no records");
            }

            @Override
            public void published(List<Captured> items) {
                position = items.get(items.size() - 1).offset();
            }

            @Override
            public SourceOffset position() {
                return position;
            }

            @Override
            public void historyLost(StreamPosition at, boolean afterCopy, RuntimeException cause) {
                lost.add(collection + (afterCopy ? " after copy" : ""));
            }

            @Override
            public void recopy(String reason, BsonTimestamp replacedAt) {
                recopies.add(collection);
            }

            @Override
            public void park(String reason) {
                parkReasons.put(collection, reason);
                parked.add(collection);
            }
        }

        @Override
        public void failed(RuntimeException e) {
            failures.add(e);
        }

        @Override
        public void retrying(RuntimeException e, long delayMs) {
        }

        @Override
        public void opened(int collections) {
        }

        List<Captured.Change> changes(String coll) {
            List<Captured.Change> out = new ArrayList<>();
            for (StreamOutput.Delivery d : delivered) {
                if (d.collection().ns().coll().equals(coll) && d.item() instanceof Captured.Change c) {
                    out.add(c);
                }
            }
            return out;
        }

        List<Captured.Control> controls(String coll) {
            List<Captured.Control> out = new ArrayList<>();
            for (StreamOutput.Delivery d : delivered) {
                if (d.collection().ns().coll().equals(coll) && d.item() instanceof Captured.Control c) {
                    out.add(c);
                }
            }
            return out;
        }
    }

    private MongoDatabase start(AwaitingMemoryBackend b, LargeEventPolicy policy) {
        backend = b;
        mongo = MongoFixture.inProcess(b, true);
        stream = new DatabaseStream(DB, mongo.client().getDatabase(DB), new DatabaseStream.Settings(100, 200, 0, true, policy, false), out);
        thread = new Thread(stream, "stream-test");
        thread.setDaemon(true);
        thread.start();
        return mongo.client().getDatabase(DB);
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (stream != null) {
            stream.stop();
            thread.join(5_000);
        }
        if (mongo != null) {
            mongo.close();
        }
        assertThat(out.failures).isEmpty();
    }

    /** After every write made so far: the operation time of the latest write, plus one. */
    static StreamPosition now(MongoClient client) {
        BsonDocument reply = client.getDatabase("admin").runCommand(new BsonDocument("ping", new org.bson.BsonInt32(1)), BsonDocument.class);
        org.bson.BsonTimestamp t = reply.getTimestamp("operationTime");
        return StreamPosition.atOperationTime(new org.bson.BsonTimestamp(t.getTime(), t.getInc() + 1));
    }

    static void await(String what, java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    static List<Integer> ids(List<Captured.Change> changes, Predicate<Captured.Change> which) {
        List<Integer> ids = new ArrayList<>();
        changes.stream().filter(which).forEach(c -> ids.add(c.event().id().asInt32().getValue()));
        return ids;
    }

    @Test
    void oneStreamRoutesEachCollectionsEventsAndAJoinerBehindDoesNotRepeatTheOthers() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend(), LargeEventPolicy.PARK);
        db.getCollection("a").insertOne(new Document("_id", 0));
        StreamPosition beforeB = now(mongo.client());
        db.getCollection("b").insertOne(new Document("_id", 100));
        stream.join(out.handle("a"), new BsonDocument(), now(mongo.client()), false);
        for (int i = 1; i <= 5; i++) {
            db.getCollection("a").insertOne(new Document("_id", i));
            db.getCollection("other").insertOne(new Document("_id", i)); // not read by this stream
        }
        await("a's 5 inserts", () -> out.changes("a").size() >= 5);
        // b joins behind the stream: the stream reopens where b stands; a gets nothing twice
        stream.join(out.handle("b"), new BsonDocument(), beforeB, false);
        db.getCollection("b").insertOne(new Document("_id", 101));
        db.getCollection("a").insertOne(new Document("_id", 6));
        await("b's two inserts and a's sixth", () -> out.changes("b").size() >= 2 && out.changes("a").size() >= 6);
        Thread.sleep(300);
        assertThat(ids(out.changes("a"), c -> true)).containsExactly(1, 2, 3, 4, 5, 6);
        assertThat(ids(out.changes("b"), c -> true)).containsExactly(100, 101);
        assertThat(out.delivered).noneMatch(d -> d.collection().ns().coll().equals("other"));
        assertThat(out.changes("a")).allMatch(c -> c.event().op() == Op.INSERT && c.event().ns().db().equals(DB));
        assertThat(stream.members()).as("a and b").isEqualTo(2);
    }

    @Test
    void aDroppedCollectionIsReportedAndFollowedWhenItIsCreatedAgain() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend(), LargeEventPolicy.PARK);
        db.getCollection("a").insertOne(new Document("_id", 1));
        stream.join(out.handle("a"), new BsonDocument(), now(mongo.client()), false);
        db.getCollection("a").insertOne(new Document("_id", 2));
        db.getCollection("a").drop();
        db.getCollection("a").insertOne(new Document("_id", 3));
        await("the insert after the drop", () -> ids(out.changes("a"), c -> true).contains(3));
        assertThat(ids(out.changes("a"), c -> true)).containsExactly(2, 3);
        assertThat(out.controls("a")).extracting(Captured.Control::type).containsExactly(ControlType.DROP);
        assertThat(out.lost).isEmpty();
    }

    @Test
    void aRenameOntoACollectionMakesItCopiedAgainAndTheOthersGoOn() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend(), LargeEventPolicy.PARK);
        db.getCollection("a").insertOne(new Document("_id", 1));
        db.getCollection("staging").insertOne(new Document("_id", 9));
        stream.join(out.handle("a"), new BsonDocument(), now(mongo.client()), false);
        stream.join(out.handle("b"), new BsonDocument(), now(mongo.client()), false);
        db.getCollection("a").insertOne(new Document("_id", 2));
        db.getCollection("staging").renameCollection(new com.mongodb.MongoNamespace(DB, "a"),
                new com.mongodb.client.model.RenameCollectionOptions().dropTarget(true));
        db.getCollection("b").insertOne(new Document("_id", 1));
        await("the re-copy request and b's insert", () -> !out.recopies.isEmpty() && out.changes("b").size() >= 1);
        assertThat(out.recopies).containsExactly("a");
        assertThat(out.controls("a")).extracting(Captured.Control::type).containsExactly(ControlType.RENAMED_INTO);
        assertThat(ids(out.changes("a"), c -> true)).containsExactly(2);
        assertThat(stream.members()).as("b alone").isEqualTo(1);
    }

    @Test
    void aDeleteCarriesThePreImageWhereTheCollectionKeepsThemAndNothingElsewhere() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend(), LargeEventPolicy.PARK);
        db.createCollection("kept", new com.mongodb.client.model.CreateCollectionOptions()
                .changeStreamPreAndPostImagesOptions(new com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions(true)));
        db.getCollection("kept").insertOne(new Document("_id", 1).append("tenant", "acme"));
        db.getCollection("plain").insertOne(new Document("_id", 1).append("tenant", "acme"));
        stream.join(out.handle("kept"), new BsonDocument(), now(mongo.client()), false);
        stream.join(out.handle("plain"), new BsonDocument(), now(mongo.client()), false);
        db.getCollection("kept").deleteOne(new Document("_id", 1));
        db.getCollection("plain").deleteOne(new Document("_id", 1));
        await("both deletes", () -> out.changes("kept").size() >= 1 && out.changes("plain").size() >= 1);
        Captured.Change kept = out.changes("kept").get(0);
        assertThat(kept.event().op()).isEqualTo(Op.DELETE);
        assertThat(kept.before()).isNotNull();
        assertThat(kept.before().getString("tenant").getValue()).isEqualTo("acme");
        assertThat(out.changes("plain").get(0).before()).isNull();
    }

    @Test
    void aDroppedDatabaseInvalidatesTheStreamWhichGoesOnAfterIt() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend(), LargeEventPolicy.PARK);
        db.getCollection("a").insertOne(new Document("_id", 1));
        stream.join(out.handle("a"), new BsonDocument(), now(mongo.client()), false);
        db.getCollection("a").insertOne(new Document("_id", 2));
        db.drop();
        db.getCollection("a").insertOne(new Document("_id", 3));
        await("the insert after the dropDatabase", () -> ids(out.changes("a"), c -> true).contains(3));
        assertThat(out.controls("a")).extracting(Captured.Control::type).contains(ControlType.DROP, ControlType.DROP_DATABASE, ControlType.INVALIDATE);
        assertThat(out.lost).isEmpty();
    }

    @Test
    void anEventTooLargeToSendIsPutBackTogetherFromItsFragments() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend().maxEventBytes(64 * 1024), LargeEventPolicy.PARK);
        db.getCollection("a").insertOne(new Document("_id", 1));
        stream.join(out.handle("a"), new BsonDocument(), now(mongo.client()), false);
        // the update's event: its looked-up document (50 KB) and its update description (25 KB), over the 64 KB limit
        String big = "x".repeat(25 * 1024);
        db.getCollection("a").insertOne(new Document("_id", 2).append("big", big));
        db.getCollection("a").updateOne(new Document("_id", 2), new Document("$set", new Document("more", big)));
        db.getCollection("a").insertOne(new Document("_id", 3));
        await("the three changes", () -> out.changes("a").size() >= 3);
        List<Captured.Change> changes = out.changes("a");
        assertThat(ids(changes, c -> true)).containsExactly(2, 2, 3);
        Captured.Change update = changes.get(1);
        assertThat(update.event().op()).isEqualTo(Op.UPDATE);
        assertThat(update.event().document().getString("more").getValue()).hasSize(25 * 1024);
        assertThat(update.event().document().getString("big").getValue()).hasSize(25 * 1024);
        assertThat(out.parked).isEmpty();
    }

    @Test
    void withoutTheSplitStageAnEventTooLargeIsSkippedByPolicyAndTheOthersGoOn() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend().maxEventBytes(64 * 1024).splitLargeEventStage(false), LargeEventPolicy.SKIP);
        db.getCollection("a").insertOne(new Document("_id", 0));
        stream.join(out.handle("a"), new BsonDocument(), now(mongo.client()), false);
        stream.join(out.handle("b"), new BsonDocument(), now(mongo.client()), false);
        db.getCollection("a").insertOne(new Document("_id", 1));
        db.getCollection("b").insertOne(new Document("_id", 1));
        db.getCollection("a").insertOne(new Document("_id", 2).append("big", "x".repeat(80 * 1024)));
        db.getCollection("a").insertOne(new Document("_id", 3));
        db.getCollection("b").insertOne(new Document("_id", 2));
        await("a's 1 and 3 and b's 2", () -> ids(out.changes("a"), c -> true).contains(3) && out.changes("b").size() >= 2);
        assertThat(ids(out.changes("a"), c -> true)).containsExactly(1, 3);
        assertThat(ids(out.changes("b"), c -> true)).containsExactly(1, 2);
        List<Captured.Control> skipped = out.controls("a");
        assertThat(skipped).hasSize(1);
        assertThat(skipped.get(0).type()).isEqualTo(ControlType.EVENT_TOO_LARGE);
        assertThat(skipped.get(0).detail()).contains("_id", "2", "SKIPPED", "large.event.policy");
        assertThat(out.parked).isEmpty();
    }

    @Test
    void withoutTheSplitStageAnEventTooLargeParksItsCollectionByPolicyAndTheOthersGoOn() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend().maxEventBytes(64 * 1024).splitLargeEventStage(false), LargeEventPolicy.PARK);
        db.getCollection("a").insertOne(new Document("_id", 0));
        stream.join(out.handle("a"), new BsonDocument(), now(mongo.client()), false);
        stream.join(out.handle("b"), new BsonDocument(), now(mongo.client()), false);
        db.getCollection("a").insertOne(new Document("_id", 1));
        db.getCollection("a").insertOne(new Document("_id", 2).append("big", "x".repeat(80 * 1024)));
        db.getCollection("a").insertOne(new Document("_id", 3));
        db.getCollection("b").insertOne(new Document("_id", 1));
        await("b's insert and a parked", () -> out.changes("b").size() >= 1 && !out.parked.isEmpty());
        Thread.sleep(300);
        assertThat(ids(out.changes("a"), c -> true)).containsExactly(1);
        assertThat(out.parked).containsExactly("a");
        assertThat(out.parkReasons.get("a")).contains("_id", "2", "large.event.policy=park");
        assertThat(stream.members()).as("b alone").isEqualTo(1);
    }

    @Test
    void aCollectionWhoseHistoryIsGoneLeavesTheStreamAndTheOthersGoOn() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend().capOplog(20, 0), LargeEventPolicy.PARK);
        db.getCollection("a").insertOne(new Document("_id", 0));
        StreamPosition old = now(mongo.client());
        for (int i = 1; i <= 30; i++) {
            db.getCollection("noise").insertOne(new Document("_id", i)); // the oplog keeps the last 20 entries
        }
        stream.join(out.handle("b"), new BsonDocument(), now(mongo.client()), false);
        stream.join(out.handle("a"), new BsonDocument(), old, true);
        await("a's loss", () -> !out.lost.isEmpty());
        db.getCollection("b").insertOne(new Document("_id", 1));
        await("b's insert", () -> out.changes("b").size() >= 1);
        assertThat(out.lost).containsExactly("a after copy");
        assertThat(stream.members()).as("b alone").isEqualTo(1);
    }
}
