package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import dev.tideline.health.SourceTaskMetrics;
import dev.tideline.health.TaskIdentity;
import dev.tideline.mongo.MongoConnectionSettings;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.config.CaptureSettings;
import dev.tideline.source.config.SourceConfig;
import dev.tideline.source.stream.DatabaseStream;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * One task's change streams over many databases ({@code change.stream.scope}), through the task's own
 * {@link DatabaseStreams}, {@link Publisher} and {@link RecordQueue} on the stand-in: D databases of
 * {@value #COLLECTIONS} collections each, every collection written twice (two inserts).
 * With the deployment scope the task holds one stream thread and the stand-in examines each oplog entry
 * once, whatever D; with the database scope it holds D threads and examines each entry D times (each
 * database's stream reads the whole oplog, as on MongoDB). Either way every change of every collection
 * arrives exactly once. Prints the figures at 5 and 50 databases (the database scope with one collection per
 * database, enough to show its cost and quicker).
 */
class StreamScopeScaleTest {
    private static final int COLLECTIONS = 20;
    /**
     * A stream counts its joined collections a moment before it closes the cursor to reopen with them: a pause once
     * all are counted and a cursor is open, so the writes come after that reopen.
     */
    private static final long JOIN_SETTLE_MS = 50;

    /** What one task did for one scope and database count. */
    record Figures(String scope, int databases, int collections, int streams, int streamThreads, long writes, long entriesExamined,
                   long aggregates, long getMores, Map<String, Integer> changesByTopic) {
        double examinedPerWrite() {
            return (double) entriesExamined / writes;
        }
    }

    @Test
    void aDeploymentStreamKeepsThreadsAndOplogReadsFlatInTheNumberOfDatabases() throws Exception {
        Figures few = run("deployment", 5, COLLECTIONS);
        Figures many = run("deployment", 50, COLLECTIONS);
        // the per-database streams, for comparison (one collection per database: their cost follows the databases)
        Figures fewPerDb = run("database", 5, 1);
        Figures manyPerDb = run("database", 50, 1);
        for (Figures f : List.of(few, many, fewPerDb, manyPerDb)) {
            System.out.printf("change.stream.scope=%-10s databases=%2d collections=%4d: streams=%2d stream threads=%2d writes=%5d "
                            + "oplog entries examined=%6d (%.2f per write) aggregates=%3d getMores=%5d%n", f.scope(), f.databases(),
                    f.collections(), f.streams(), f.streamThreads(), f.writes(), f.entriesExamined(), f.examinedPerWrite(),
                    f.aggregates(), f.getMores());
            // every change of every collection arrives, once
            assertThat(f.changesByTopic()).hasSize(f.collections());
            assertThat(f.changesByTopic().values()).allMatch(n -> n == 2);
        }
        assertThat(few.streams()).isEqualTo(1);
        assertThat(many.streams()).isEqualTo(1);
        assertThat(few.streamThreads()).isEqualTo(1);
        assertThat(many.streamThreads()).isEqualTo(1);
        // each oplog entry examined about once, at 5 databases as at 50
        assertThat(few.examinedPerWrite()).isBetween(1.0, 1.5);
        assertThat(many.examinedPerWrite()).isBetween(1.0, 1.5);
        // the per-database streams: one thread each, each reading the whole oplog
        assertThat(fewPerDb.streamThreads()).isEqualTo(5);
        assertThat(manyPerDb.streamThreads()).isEqualTo(50);
        assertThat(manyPerDb.examinedPerWrite()).isGreaterThan(45);
    }

    private Figures run(String scope, int databases, int collectionsPerDatabase) throws Exception {
        AwaitingMemoryBackend backend = new AwaitingMemoryBackend();
        AtomicLong aggregates = new AtomicLong();
        AtomicLong getMores = new AtomicLong();
        try (MongoFixture mongo = MongoFixture.inProcess(backend, true);
             MongoClient client = MongoClients.create(MongoClientSettings.builder()
                     .applyConnectionString(new ConnectionString(mongo.uri()))
                     .addCommandListener(counting(aggregates, getMores)).build());
             SourceTaskMetrics metrics = new SourceTaskMetrics(new TaskIdentity("stream-scope-" + scope + "-" + databases, 0))) {
            List<Namespace> collections = new ArrayList<>();
            for (int d = 0; d < databases; d++) {
                for (int c = 0; c < collectionsPerDatabase; c++) {
                    Namespace ns = new Namespace("db" + d, "c" + c);
                    collections.add(ns);
                    mongo.client().getDatabase(ns.db()).createCollection(ns.coll()); // its create is logged before the streams start
                }
            }
            SourceConfig config = new SourceConfig(Map.of(MongoConnectionSettings.URI, mongo.uri(),
                    CaptureSettings.STREAM_SCOPE, scope, CaptureSettings.HEARTBEAT_INTERVAL_MS, "0",
                    CaptureSettings.MAX_AWAIT_MS, "100"));
            RecordQueue queue = new RecordQueue(10_000);
            TaskThreads threads = new TaskThreads("scale");
            DatabaseStreams streams = new DatabaseStreams(config, client, new Publisher(queue), queue, metrics, threads, (db, ids) -> {
            });
            try {
                SourceOffset from = SourceOffset.streamAt(now(mongo.client()));
                for (Namespace ns : collections) {
                    streams.join(capture(ns, metrics), from);
                }
                awaitOpen(streams, collections.size());
                long examinedBefore = backend.oplogEntriesExamined();
                long getMoresBefore = getMores.get();
                for (Namespace ns : collections) {
                    mongo.client().getDatabase(ns.db()).getCollection(ns.coll())
                            .insertMany(List.of(new Document("_id", 1), new Document("_id", 2)));
                }
                long writes = 2L * collections.size();
                Map<String, Integer> changes = drain(queue, writes);
                return new Figures(scope, databases, collections.size(), streams.size(), threads.alive(), writes,
                        backend.oplogEntriesExamined() - examinedBefore, aggregates.get(),
                        getMores.get() - getMoresBefore, changes);
            } finally {
                streams.stop();
                streams.awaitStop(System.currentTimeMillis() + 5_000);
            }
        }
    }

    private static CommandListener counting(AtomicLong aggregates, AtomicLong getMores) {
        return new CommandListener() {
            @Override
            public void commandStarted(CommandStartedEvent event) {
                if (event.getCommandName().equals("aggregate")) {
                    aggregates.incrementAndGet();
                } else if (event.getCommandName().equals("getMore")) {
                    getMores.incrementAndGet();
                }
            }
        };
    }

    private static CollectionCapture capture(Namespace ns, SourceTaskMetrics metrics) {
        RecordFactory records = new RecordFactory(ns, "t." + ns.fullName(), "t.heartbeats", "t.control", ValueFormat.BSON, "", false, "p");
        // no wiring: these collections are only streamed (nothing here parks, re-copies or loses history)
        return new CollectionCapture(ns, records, new RecordState(RepairProgress.NONE),
                new CaptureMetrics(metrics.collection(ns.fullName(), ns.db())), new BsonDocument(), null, null);
    }

    /** Waits until every collection is read by an open stream (the joins are taken, the streams reopened with them). */
    private static void awaitOpen(DatabaseStreams streams, int collections) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < deadline) {
            int read = streams.byDatabase().values().stream().mapToInt(DatabaseStream::members).sum();
            boolean open = streams.byDatabase().values().stream().allMatch(DatabaseStream::isOpen);
            if (read == collections && open) {
                Thread.sleep(JOIN_SETTLE_MS);
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the streams did not open for all " + collections + " collections");
    }

    /** Change records by topic, until {@code expected} arrived (and a moment more, to see any sent twice). */
    private static Map<String, Integer> drain(RecordQueue queue, long expected) throws InterruptedException {
        Map<String, Integer> byTopic = new HashMap<>();
        long seen = 0;
        long deadline = System.currentTimeMillis() + 30_000;
        long quietUntil = Long.MAX_VALUE;
        while (System.currentTimeMillis() < Math.min(deadline, quietUntil)) {
            List<SourceRecord> batch = queue.poll(50, 10_000);
            for (SourceRecord r : batch == null ? List.<SourceRecord>of() : batch) {
                if (r.topic().startsWith("t.db")) {
                    byTopic.merge(r.topic(), 1, Integer::sum);
                    seen++;
                }
            }
            if (seen >= expected && quietUntil == Long.MAX_VALUE) {
                quietUntil = System.currentTimeMillis() + 300;
            }
        }
        return byTopic;
    }

    private static StreamPosition now(MongoClient client) {
        BsonTimestamp t = client.getDatabase("admin").runCommand(new BsonDocument("ping", new BsonInt32(1)), BsonDocument.class)
                .getTimestamp("operationTime");
        return StreamPosition.atOperationTime(new BsonTimestamp(t.getTime(), t.getInc() + 1));
    }
}
