package dev.tideline.source.stream;

import static dev.tideline.source.stream.DatabaseStreamTest.await;
import static dev.tideline.source.stream.DatabaseStreamTest.ids;
import static dev.tideline.source.stream.DatabaseStreamTest.now;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.changestream.FullDocument;
import dev.tideline.event.Op;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.config.CaptureSettings.LargeEventPolicy;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.FaultInjectingBackend;
import dev.tideline.standin.MongoFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A database's change stream against what production MongoDB answers: events split into fragments
 * ({@code $changeStreamSplitLargeEvent}) whose document changes before the stream reopens, a probe of the
 * history asked as the stream asks, ChangeStreamFatalError (280) over and over while the history is there,
 * and the transient 134 and 202. Recovery's waits are counted, not waited ({@link StreamRecovery.Sleeper}).
 */
class StreamFaultsTest {
    private static final String DB = "faults";
    /** The stand-in's event size limit, lowered from MongoDB's 16 MiB so that small documents make large events. */
    private static final int LIMIT = 64 * 1024;
    private static final String BIG = "x".repeat(25 * 1024);

    private MongoFixture mongo;
    private final List<DatabaseStream> streams = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<DatabaseStreamTest.Recorder> recorders = new ArrayList<>();
    private final AtomicLong sleptMs = new AtomicLong();

    private MongoDatabase start(AwaitingMemoryBackend backend) {
        mongo = MongoFixture.inProcess(backend, true);
        return mongo.client().getDatabase(DB);
    }

    private DatabaseStream stream(DatabaseStreamTest.Recorder out) {
        DatabaseStream s = new DatabaseStream(DB, mongo.client().getDatabase(DB),
                new DatabaseStream.Settings(100, 200, 0, true, LargeEventPolicy.PARK, false), out, sleptMs::addAndGet);
        streams.add(s);
        recorders.add(out);
        return s;
    }

    /** A stream reading {@code collections} from now on, running. */
    private DatabaseStream streaming(DatabaseStreamTest.Recorder out, String... collections) {
        DatabaseStream s = stream(out);
        for (String c : collections) {
            s.join(out.handle(c), new BsonDocument(), now(mongo.client()), false);
        }
        run(s);
        return s;
    }

    private void run(DatabaseStream s) {
        Thread t = new Thread(s, "stream-faults-test");
        t.setDaemon(true);
        t.start();
        threads.add(t);
    }

    private void stop(DatabaseStream s) throws InterruptedException {
        s.stop();
        threads.get(streams.indexOf(s)).join(5_000);
    }

    @AfterEach
    void stopAll() throws InterruptedException {
        for (DatabaseStream s : streams) {
            stop(s);
        }
        if (mongo != null) {
            mongo.close();
        }
        recorders.forEach(r -> assertThat(r.failures).isEmpty());
    }

    /** An update whose event (looked-up document and update description) is over the limit: it arrives in fragments. */
    private static void splitUpdate(MongoCollection<Document> c, int id) {
        c.insertOne(new Document("_id", id).append("big", BIG));
        c.updateOne(new Document("_id", id), new Document("$set", new Document("more", BIG)));
    }

    /**
     * A restart after a split event whose document changed since: MongoDB splits the event again where the stream
     * resumes and answers 280 at a fragment's token when the split differs. The position after a split event is its
     * cluster time, never a fragment's token, so the new stream opens and drops the event it already had.
     */
    @Test
    void aRestartAfterASplitEventWhoseDocumentChangedSinceGoesOnWithoutLosingOrRepeating() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend().maxEventBytes(LIMIT));
        MongoCollection<Document> a = db.getCollection("a");
        a.insertOne(new Document("_id", 1));
        DatabaseStreamTest.Recorder first = new DatabaseStreamTest.Recorder(DB);
        DatabaseStream before = streaming(first, "a");
        splitUpdate(a, 2);
        await("the insert and the split update", () -> first.changes("a").size() >= 2);
        stop(before);
        Captured.Change update = first.changes("a").get(1);
        assertThat(update.event().op()).isEqualTo(Op.UPDATE);
        StreamPosition stored = SourceOffset.fromMap(update.offset().toMap()).streamPosition();
        assertThat(stored.openingPoint().isToken()).as("the split event's record never holds a fragment's token").isFalse();

        // the looked-up document is small now: the same update event is no longer split
        a.updateOne(new Document("_id", 2), new Document("$unset", new Document("big", "").append("more", "")));
        a.insertOne(new Document("_id", 3));
        DatabaseStreamTest.Recorder second = new DatabaseStreamTest.Recorder(DB);
        DatabaseStream after = stream(second);
        after.join(second.handle("a"), new BsonDocument(), stored, false);
        run(after);
        await("the insert after the restart", () -> ids(second.changes("a"), c -> true).contains(3));
        assertThat(second.lost).as("no lost history").isEmpty();
        assertThat(second.parked).isEmpty();
        assertThat(second.changes("a")).extracting(c -> c.event().op()).as("the unset update and the insert, nothing again")
                .containsExactly(Op.UPDATE, Op.INSERT);
    }

    /**
     * An event the split stage cannot split (one field over the limit alone: MongoDB's 7182500) goes to
     * {@code large.event.policy} like an event too large on a server without the stage: here {@code park}, and the
     * other collections go on. It failed the task, on the same event after every restart.
     */
    @Test
    void anEventTheSplitStageCannotSplitParksItsCollectionByPolicyAndTheOthersGoOn() throws Exception {
        MongoDatabase db = start(new AwaitingMemoryBackend().maxEventBytes(LIMIT));
        db.getCollection("a").insertOne(new Document("_id", 0));
        DatabaseStreamTest.Recorder out = new DatabaseStreamTest.Recorder(DB);
        DatabaseStream s = streaming(out, "a", "b");
        db.getCollection("a").insertOne(new Document("_id", 1));
        db.getCollection("a").insertOne(new Document("_id", 2).append("one", "x".repeat(LIMIT))); // one field over the limit
        db.getCollection("a").insertOne(new Document("_id", 3));
        db.getCollection("b").insertOne(new Document("_id", 1));
        await("b's insert and a parked", () -> out.changes("b").size() >= 1 && !out.parked.isEmpty());
        assertThat(ids(out.changes("a"), c -> true)).containsExactly(1);
        assertThat(out.parked).containsExactly("a");
        assertThat(out.parkReasons.get("a")).contains("_id", "2", "cannot split", "7182500", "large.event.policy=park");
        assertThat(s.members()).as("b alone").isEqualTo(1);
    }

    /**
     * A collection at a fragment's token (an offset stored before positions avoided them) meets a 280 on the stream's
     * open. The history probe asks as the stream does, with the split stage: without it MongoDB refuses to resume at
     * any fragment (280), which read as lost history and sent the collection to its lost-history policy.
     */
    @Test
    void theHistoryProbeAsksWithTheStreamsPipelineSoAFragmentsPositionIsNotLostHistory() throws Exception {
        FaultInjectingBackend backend = new FaultInjectingBackend();
        backend.maxEventBytes(LIMIT);
        MongoDatabase db = start(backend);
        MongoCollection<Document> a = db.getCollection("a");
        splitUpdate(a, 1);
        BsonDocument lastFragment = null;
        try (var cursor = db.watch(List.of(new Document("$changeStreamSplitLargeEvent", new Document())))
                .startAtOperationTime(new BsonTimestamp(0)).fullDocument(FullDocument.UPDATE_LOOKUP)
                .withDocumentClass(RawBsonDocument.class).cursor()) {
            long deadline = System.currentTimeMillis() + 20_000;
            while (System.currentTimeMillis() < deadline && lastFragment == null) {
                RawBsonDocument e = cursor.tryNext();
                if (e != null && e.containsKey("splitEvent") && e.getDocument("splitEvent").getInt32("fragment").getValue()
                        == e.getDocument("splitEvent").getInt32("of").getValue()) {
                    lastFragment = e.getDocument("_id");
                }
            }
        }
        assertThat(lastFragment).isNotNull();
        backend.failNext(DB, Set.of("aggregate"), FaultInjectingBackend.RESUMING, 280, "ChangeStreamFatalError", 1);
        DatabaseStreamTest.Recorder out = new DatabaseStreamTest.Recorder(DB);
        DatabaseStream s = stream(out);
        s.join(out.handle("a"), new BsonDocument(), StreamPosition.afterToken(lastFragment, null), false);
        run(s);
        a.insertOne(new Document("_id", 2));
        await("the insert after the fragment", () -> ids(out.changes("a"), c -> true).contains(2));
        assertThat(backend.injected()).isEqualTo(1);
        assertThat(out.lost).as("the probe found the history").isEmpty();
        assertThat(ids(out.changes("a"), c -> true)).containsExactly(2);
    }

    /**
     * 280 over and over while every position's history is there (the probe opens at each): the stream reopens after
     * a growing back-off and, after {@link StreamRecovery#MAX_UNEXPLAINED_FATAL} in a row, parks the collections it
     * cannot get past, one position at a time. Counted in commands against the back-off asked for, not in time.
     */
    @Test
    void aRepeatingFatalErrorWhoseHistoryIsThereBacksOffAndParksWithinABoundOfAggregates() throws Exception {
        FaultInjectingBackend backend = new FaultInjectingBackend();
        MongoDatabase db = start(backend);
        db.getCollection("a").insertOne(new Document("_id", 0));
        // the stream's own opens fail; the probes' (one event at a time) pass: the history is there
        Predicate<de.bwaldvogel.mongo.bson.Document> streamNotProbe = q -> !(q.get("cursor") instanceof de.bwaldvogel.mongo.bson.Document c
                && Integer.valueOf(1).equals(c.get("batchSize")));
        DatabaseStreamTest.Recorder out = new DatabaseStreamTest.Recorder(DB);
        DatabaseStream s = stream(out);
        s.join(out.handle("a"), new BsonDocument(), now(mongo.client()), false);
        db.getCollection("b").insertOne(new Document("_id", 0));
        s.join(out.handle("b"), new BsonDocument(), now(mongo.client()), false);
        backend.failNext(DB, Set.of("aggregate"), streamNotProbe, 280, "ChangeStreamFatalError", Integer.MAX_VALUE);
        run(s);
        await("both collections parked (or a runaway loop)", () -> out.parked.size() == 2 || backend.received("aggregate") > 2_000);
        long aggregates = backend.received("aggregate");
        double perMinute = aggregates * 60_000.0 / Math.max(1, sleptMs.get());
        System.out.printf("repeating 280: %d aggregates (%d of the stream's, the rest probes) over %d ms of back-off: %.1f a minute%n",
                aggregates, backend.injected(), sleptMs.get(), perMinute);
        assertThat(out.parked).containsExactly("a", "b");
        assertThat(backend.injected()).as("the stream's own opens: at most %d per parked collection", StreamRecovery.MAX_UNEXPLAINED_FATAL)
                .isLessThanOrEqualTo(2 * StreamRecovery.MAX_UNEXPLAINED_FATAL);
        assertThat(perMinute).as("aggregates (probes included) per minute of back-off: %d in %d ms", aggregates, sleptMs.get())
                .isLessThanOrEqualTo(60);
        assertThat(out.parkReasons.get("a")).contains("280", "still in the oplog", "Reset this collection's offset");
        assertThat(out.lost).isEmpty();
        assertThat(s.members()).isZero();
    }

    /**
     * ReadConcernMajorityNotAvailableYet (134) and NetworkInterfaceExceededTimeLimit (202) on the stream's commands
     * clear up by themselves: the stream reopens after a back-off, the task does not fail.
     */
    @Test
    void aMajorityNotAvailableYetOrAnInternalNetworkTimeLimitReopensTheStream() throws Exception {
        FaultInjectingBackend backend = new FaultInjectingBackend();
        MongoDatabase db = start(backend);
        MongoCollection<Document> a = db.getCollection("a");
        a.insertOne(new Document("_id", 0));
        DatabaseStreamTest.Recorder out = new DatabaseStreamTest.Recorder(DB);
        streaming(out, "a");
        int id = 0;
        for (Object[] fault : new Object[][] {{134, "ReadConcernMajorityNotAvailableYet"}, {202, "NetworkInterfaceExceededTimeLimit"}}) {
            backend.failNext(DB, Set.of("aggregate", "getMore"), (Integer) fault[0], (String) fault[1], 3);
            int next = ++id;
            a.insertOne(new Document("_id", next));
            await("the insert after " + fault[1], () -> backend.spent() && ids(out.changes("a"), c -> true).contains(next));
        }
        assertThat(out.failures).isEmpty();
        assertThat(ids(out.changes("a"), c -> true)).containsExactly(1, 2);
        assertThat(backend.injected()).isEqualTo(6);
    }
}
