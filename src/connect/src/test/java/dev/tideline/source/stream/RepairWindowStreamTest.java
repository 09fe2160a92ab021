package dev.tideline.source.stream;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Namespace;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.ControlType;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import dev.tideline.source.config.CaptureSettings.LargeEventPolicy;
import dev.tideline.source.repair.RepairSignals;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A repair window on a real database stream (the stand-in with its oplog): the watermarks are read in
 * log order with the changes, a row of a document changed in the window is left to the stream, the
 * other rows go out at the high watermark before any later change, and signals are reported.
 */
class RepairWindowStreamTest {
    private static final String DB = "rws";

    private MongoFixture mongo;
    private Thread thread;
    private DatabaseStream stream;
    private final Recorder out = new Recorder();

    static final class Recorder extends DatabaseStreamTest.Recorder {
        final List<BsonValue> signals = new CopyOnWriteArrayList<>();

        Recorder() {
            super(DB);
        }

        @Override
        public void signals(String db, List<BsonValue> ids) {
            signals.addAll(ids);
        }
    }

    private MongoDatabase start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        stream = new DatabaseStream(DB, mongo.client().getDatabase(DB),
                new DatabaseStream.Settings(100, 200, 0, false, LargeEventPolicy.PARK, true), out);
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

    /** What the stream delivered for collection c, as text: "update:2", "read:1", "low", "high". */
    private List<String> trace() {
        List<String> t = new ArrayList<>();
        for (StreamOutput.Delivery d : out.delivered) {
            if (!d.collection().ns().coll().equals("c")) {
                continue;
            }
            if (d.item() instanceof Captured.Change ch) {
                t.add(ch.event().op().wireName() + ":" + ch.event().id().asInt32().getValue());
            } else if (d.item() instanceof Captured.Control ctl) {
                t.add(ctl.detail()); // the emitter's watermarks below
            }
        }
        return t;
    }

    @Test
    void rowsGoOutAtTheHighWatermarkWithoutTheDocumentsChangedInTheWindow() throws Exception {
        MongoDatabase db = start();
        MongoCollection<Document> c = db.getCollection("c");
        for (int i = 1; i <= 4; i++) {
            c.insertOne(new Document("_id", i).append("v", 0));
        }
        stream.join(out.handle("c"), new BsonDocument(), DatabaseStreamTest.now(mongo.client()), false);
        c.updateOne(Filters.eq("_id", 4), Updates.set("v", 1)); // before the window: streamed, and copied again
        RepairWindow w = new RepairWindow("w1", out.handle("c"), new RepairWindow.Emitter() {
            @Override
            public List<Captured> atLow(BsonTimestamp low, SourceOffset position) {
                return List.of(new Captured.Control(ControlType.PARKED, "low", position));
            }

            @Override
            public List<Captured> atHigh(BsonTimestamp high, SourceOffset position, List<RawBsonDocument> kept, List<BsonValue> gone) {
                List<Captured> items = new ArrayList<>();
                kept.forEach(r -> items.add(new Captured.Change(new dev.tideline.event.ChangeEvent(dev.tideline.event.Op.READ,
                        new dev.tideline.event.Namespace(DB, "c"), r.get("_id"), r, high, 0, null), position)));
                items.add(new Captured.Control(ControlType.PARKED, "high", position));
                return items;
            }
        });
        stream.openWindow(w);
        MongoCollection<BsonDocument> signals = db.getCollection(RepairSignals.COLLECTION, BsonDocument.class);
        BsonDocument mark = new BsonDocument("_id", new BsonDocument(RepairSignals.WINDOW_KEY, new BsonString("w1")));
        signals.insertOne(mark);
        c.updateOne(Filters.eq("_id", 2), Updates.set("v", 2)); // in the window
        List<RawBsonDocument> rows = db.getCollection("c", RawBsonDocument.class).find().sort(new Document("_id", 1)).into(new ArrayList<>());
        w.offer(new RepairWindow.Chunk(rows, List.of()));
        signals.deleteOne(mark);
        c.updateOne(Filters.eq("_id", 1), Updates.set("v", 3)); // after the window
        signals.insertOne(new BsonDocument("_id", new BsonString("sig-1")).append("collection", new BsonString("c")));
        assertThat(w.closed().get(20, TimeUnit.SECONDS)).isEqualTo(3);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while ((trace().size() < 8 || out.signals.isEmpty()) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(trace()).containsExactly("update:4", "low", "update:2", "read:1", "read:3", "read:4", "high", "update:1");
        assertThat(out.signals).containsExactly(new BsonString("sig-1"));
    }

    @Test
    void watermarksOfAnotherWindowAndAWindowNoLongerReadAreIgnoredOrFailed() throws Exception {
        MongoDatabase db = start();
        db.getCollection("c").insertOne(new Document("_id", 1));
        stream.join(out.handle("c"), new BsonDocument(), DatabaseStreamTest.now(mongo.client()), false);
        MongoCollection<BsonDocument> signals = db.getCollection(RepairSignals.COLLECTION, BsonDocument.class);
        // a window of another connector: not registered here, nothing happens
        BsonDocument foreign = new BsonDocument("_id", new BsonDocument(RepairSignals.WINDOW_KEY, new BsonString("other")));
        signals.insertOne(foreign);
        signals.deleteOne(foreign);
        // a window for a collection this stream does not read fails at its low watermark
        RepairWindow w = new RepairWindow("w2", out.handle("absent"), new RepairWindow.Emitter() {
            @Override
            public List<Captured> atLow(BsonTimestamp low, SourceOffset position) {
                return List.of();
            }

            @Override
            public List<Captured> atHigh(BsonTimestamp high, SourceOffset position, List<RawBsonDocument> kept, List<BsonValue> gone) {
                return List.of();
            }
        });
        stream.openWindow(w);
        signals.insertOne(new BsonDocument("_id", new BsonDocument(RepairSignals.WINDOW_KEY, new BsonString("w2"))));
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!w.closed().isDone() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(w.closed()).isCompletedExceptionally();
        assertThat(out.signals).isEmpty();
        assertThat(out.delivered).isEmpty();
    }
}
