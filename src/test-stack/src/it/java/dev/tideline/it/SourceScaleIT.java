package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.ops.JmxReader;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * Many collections in one database, one task: one change stream for all of them, so the task's
 * threads and MongoDB connections stay under a fixed bound whatever the number of collections, every
 * change of every collection is captured, and the stand-in examines each oplog entry about once per
 * write however many collections the task reads (one collection-level stream each would examine it
 * once per collection).
 *
 * <p>{@code -Dtideline.scale.collections} (default 200 in {@code mvn verify}; 2,000 with
 * {@code -Pscale}), {@code -Dtideline.scale.examined} (the collection counts of the oplog figure:
 * "10,100" by default, "10,100,1000" with {@code -Pscale}).
 */
class SourceScaleIT {
    static final int COLLECTIONS = Integer.getInteger("tideline.scale.collections", 200);
    static final List<Integer> EXAMINED = Arrays.stream(System.getProperty("tideline.scale.examined", "10,100").split(","))
            .map(String::trim).map(Integer::parseInt).toList();
    /** Threads a task may hold: discovery, one stream, the copy pool with its read-ahead threads (4 x 2), a margin of 3. */
    static final int THREAD_BOUND = 1 + 1 + 4 * 2 + 3;
    /** Connections: one for the stream, one per copy, a few for discovery, heartbeats of the pool's monitor. */
    static final int CONNECTION_BOUND = 1 + 4 + 5;

    static Map<String, String> config(String uri, String db, String prefix) {
        Map<String, String> c = SourceItSupport.sourceConfig(uri, db, prefix, ValueFormat.BSON, 1);
        c.put("collection.discovery.interval.ms", "2000");
        c.put("heartbeat.interval.ms", "2000");
        return c;
    }

    static void createCollections(MongoDatabase db, int n) {
        for (int i = 0; i < n; i++) {
            db.getCollection(name(i)).insertOne(new Document("_id", -1).append("seed", true));
        }
    }

    static String name(int i) {
        return String.format("c%04d", i);
    }

    @Test
    void everyChangeOfManyCollectionsIsCapturedWithBoundedThreadsAndConnections() {
        TestStack stack = TestStack.shared();
        String db = "scale_it";
        String connector = "source-scale-it";
        String prefix = "scale";
        try (MongoFixture mongo = MongoFixture.withOplog(); JmxReader jmx = new JmxReader(stack.jmxUrl(0));
             KafkaConsumer<byte[], byte[]> consumer = ScaleStack.consumer(stack.bootstrapServers(), "scale\\.scale_it\\..*")) {
            MongoDatabase database = mongo.client().getDatabase(db);
            createCollections(database, COLLECTIONS);
            int threadsBefore = ScaleStack.workerThreads(jmx);
            long started = System.nanoTime();
            stack.rest().putConnector(connector, config(mongo.uri(), db, prefix));
            try {
                stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                String task = ScaleStack.task(connector);
                ScaleStack.awaitAttribute(jmx, task, "StreamedCollections", v -> ((Number) v).intValue() == COLLECTIONS,
                        Duration.ofMinutes(10));
                long copiedMs = (System.nanoTime() - started) / 1_000_000;
                // the last collections join by closing the cursor and reopening it with them: the count of
                // collections moves first, the stream opens right after
                ScaleStack.awaitAttribute(jmx, task, "ChangeStreams", v -> ((Number) v).intValue() >= 1, Duration.ofSeconds(30));
                int streams = ((Number) jmx.attribute(task, "ChangeStreams")).intValue();
                int taskThreads = ((Number) jmx.attribute(task, "Threads")).intValue();
                int connections = ((Number) jmx.attribute(task, "MongoConnections")).intValue();
                int workerThreads = ScaleStack.workerThreads(jmx);

                // every collection: two inserts, an update, a delete
                for (int i = 0; i < COLLECTIONS; i++) {
                    var coll = database.getCollection(name(i));
                    coll.insertOne(new Document("_id", 1).append("v", 0));
                    coll.insertOne(new Document("_id", 2).append("v", 0));
                    coll.updateOne(Filters.eq("_id", 1), Updates.set("v", 1));
                    coll.deleteOne(Filters.eq("_id", 2));
                }
                Map<String, List<String>> seen = new ConcurrentHashMap<>();
                long writtenAt = System.nanoTime();
                ScaleStack.readChanges(consumer, e -> {
                    if (!e.id().isInt32() || e.id().asInt32().getValue() < 0) {
                        return; // the seed's copy
                    }
                    seen.computeIfAbsent(e.ns().coll(), k -> new ArrayList<>()).add(e.op().wireName() + ":" + e.id().asInt32().getValue());
                }, () -> seen.size() == COLLECTIONS && seen.values().stream().allMatch(l -> l.size() >= 4),
                        "the 4 changes of each of " + COLLECTIONS + " collections", Duration.ofMinutes(5));
                long capturedMs = (System.nanoTime() - writtenAt) / 1_000_000;
                int threadsAfter = ((Number) jmx.attribute(task, "Threads")).intValue();
                int connectionsAfter = ((Number) jmx.attribute(task, "MongoConnections")).intValue();
                long heartbeats = jmx.longAttribute(task + ",collection=" + db + "." + name(0), "Heartbeats");

                System.out.printf("SCALE %d collections, 1 task: copied and streaming after %d ms; %d changes captured %d ms after "
                                + "the writes; change streams open: %d; task threads: %d after the copies, %d while streaming (bound %d); "
                                + "MongoDB connections of the task: %d, %d (bound %d); worker threads %d before the connector, %d with "
                                + "it; heartbeats of one quiet collection so far: %d%n",
                        COLLECTIONS, copiedMs, 4 * COLLECTIONS, capturedMs, streams, taskThreads, threadsAfter, THREAD_BOUND, connections,
                        connectionsAfter, CONNECTION_BOUND, threadsBefore, workerThreads, heartbeats);
                for (int i = 0; i < COLLECTIONS; i++) {
                    assertThat(seen.get(name(i))).as(name(i)).containsExactly("insert:1", "insert:2", "update:1", "delete:2");
                }
                assertThat(streams).isEqualTo(1);
                assertThat(Math.max(taskThreads, threadsAfter)).isLessThanOrEqualTo(THREAD_BOUND);
                assertThat(Math.max(connections, connectionsAfter)).isLessThanOrEqualTo(CONNECTION_BOUND);
            } finally {
                stack.rest().deleteConnector(connector);
            }
        }
    }

    /**
     * The stand-in counts the oplog entries its change-stream reads examine. One stream per database
     * examines each write about once whatever the number of collections; the figures are printed for
     * 10, 100 (and 1,000) collections.
     */
    @Test
    void oplogEntriesExaminedPerWriteStayFlatAsCollectionsGrow() {
        TestStack stack = TestStack.shared();
        Map<Integer, Double> perWrite = new HashMap<>();
        for (int n : EXAMINED) {
            AwaitingMemoryBackend backend = new AwaitingMemoryBackend();
            String db = "examined_" + n;
            String connector = "source-examined-" + n;
            try (MongoFixture mongo = MongoFixture.inProcess(backend, true); JmxReader jmx = new JmxReader(stack.jmxUrl(0));
                 KafkaConsumer<byte[], byte[]> consumer = ScaleStack.consumer(stack.bootstrapServers(), "examined\\." + db + "\\..*")) {
                MongoDatabase database = mongo.client().getDatabase(db);
                createCollections(database, n);
                stack.rest().putConnector(connector, config(mongo.uri(), db, "examined"));
                try {
                    stack.rest().awaitRunning(connector, 1, Duration.ofSeconds(60));
                    ScaleStack.awaitAttribute(jmx, ScaleStack.task(connector), "StreamedCollections", v -> ((Number) v).intValue() == n,
                            Duration.ofMinutes(5));
                    // a settle time: the stand-in does not say where the joined stream reads from
                    Waits.pause(Duration.ofSeconds(2), "the joins settle: the stream reads from the newest position on");
                    int writes = 2_000;
                    long before = backend.oplogEntriesExamined();
                    for (int i = 0; i < writes; i++) {
                        database.getCollection(name(i % n)).insertOne(new Document("_id", i));
                    }
                    Set<Integer> got = ConcurrentHashMap.newKeySet();
                    ScaleStack.readChanges(consumer, e -> {
                        if (e.op() == Op.INSERT && e.id().asInt32().getValue() >= 0) { // not a seed replayed from the stream start
                            got.add(e.id().asInt32().getValue());
                        }
                    }, () -> got.size() >= writes, writes + " inserts", Duration.ofMinutes(3));
                    double examined = (backend.oplogEntriesExamined() - before) / (double) writes;
                    perWrite.put(n, examined);
                    System.out.printf("SCALE oplog entries examined per write with %d collections in one task: %.2f%n", n, examined);
                } finally {
                    stack.rest().deleteConnector(connector);
                }
            }
        }
        System.out.println("SCALE oplog entries examined per write by collection count: " + perWrite);
        // one stream: each write is examined by it, and again only when a join reopens it behind (not here)
        perWrite.values().forEach(v -> assertThat(v).isLessThan(2.0));
    }
}
