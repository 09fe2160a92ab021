package dev.tideline.source.scan;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import de.bwaldvogel.mongo.MongoServer;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.standin.AwaitingMemoryBackend;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.source.config.CaptureSettings.InitialSync;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ScanReaderTest {
    private static final Namespace NS = new Namespace("shop", "orders");
    private static final long T0 = 1_700_000_000_000L;
    private static final Clock CLOCK = Clock.fixed(Instant.ofEpochMilli(T0 + 999_000), ZoneOffset.UTC);

    private MongoServer server;
    private MongoClient client;
    private MongoCollection<Document> orders;
    private MongoCollection<Document> markers;

    @BeforeEach
    void start() {
        server = new MongoServer(new AwaitingMemoryBackend());
        server.bind("127.0.0.1", 0);
        InetSocketAddress address = server.getLocalAddress();
        client = MongoClients.create("mongodb://127.0.0.1:" + address.getPort());
        orders = client.getDatabase("shop").getCollection("orders");
        markers = client.getDatabase("shop").getCollection("_tideline_deletes");
    }

    @AfterEach
    void stop() {
        client.close();
        server.shutdownNow();
    }

    @Test
    void insertsAndUpdatesAreCapturedInKeyOrder() throws Exception {
        write(3, T0 + 3000);
        write(1, T0 + 1000);
        write(2, T0 + 2000);
        ScanReader reader = reader(plan(0, 100), null);

        List<Captured> first = reader.next();
        assertThat(ids(first)).containsExactly(1, 2, 3);
        ChangeEvent e = ((Captured.Change) first.get(0)).event();
        assertThat(e.op()).isEqualTo(Op.READ);
        assertThat(e.ns()).isEqualTo(NS);
        assertThat(e.document().getInt32("n").getValue()).isEqualTo(1);
        assertThat(e.clusterTime()).isNull();
        assertThat(e.wallTimeMillis()).isEqualTo(CLOCK.millis());
        assertThat(first.get(2).offset()).isEqualTo(SourceOffset.scan(date(T0 + 3000), new BsonInt32(3), null, null));

        write(1, T0 + 4000); // an update moves document 1 to the end
        List<Captured> second = reader.next();
        assertThat(ids(second)).containsExactly(1);
        assertThat(((Captured.Change) second.get(0)).event().document().getDateTime("updatedAt").getValue()).isEqualTo(T0 + 4000);

        assertThat(reader.next()).isEmpty(); // nothing new: waits the interval, returns nothing
    }

    @Test
    void tiesOnTheKeyAreResolvedByIdAcrossBatches() throws Exception {
        for (int id : new int[] {5, 3, 1, 4, 2}) {
            write(id, T0);
        }
        write(6, T0 + 1);
        ScanReader reader = reader(plan(0, 2), null);
        assertThat(ids(reader.next())).containsExactly(1, 2);
        assertThat(ids(reader.next())).containsExactly(3, 4);
        assertThat(ids(reader.next())).containsExactly(5, 6);
        assertThat(drain(reader)).isEmpty();
    }

    @Test
    void restartFromAStoredOffsetResumesRightAfterTheLastEmittedDocument() throws Exception {
        for (int id = 1; id <= 5; id++) {
            write(id, T0 + (id <= 3 ? 0 : id)); // 1..3 tie on the key: the restart lands inside the tie
        }
        ScanReader before = reader(plan(0, 2), null);
        List<Captured> firstBatch = before.next();
        assertThat(ids(firstBatch)).containsExactly(1, 2);
        Map<String, Object> stored = firstBatch.get(1).offset().toMap();
        before.close();

        ScanReader after = reader(plan(0, 2), SourceOffset.fromMap(stored));
        List<Captured> rest = drain(after);
        assertThat(ids(rest)).containsExactly(3, 4, 5);
        assertThat(rest.get(2).offset()).isEqualTo(SourceOffset.scan(date(T0 + 5), new BsonInt32(5), null, null));
    }

    @Test
    void deleteMarkersBecomeDeleteEventsWithTheDeletedId() throws Exception {
        write(1, T0 + 1000);
        marker(101, "orders", 7, T0 + 5000);
        marker(102, "customers", 8, T0 + 5000); // another collection's marker
        marker(100, "orders", 9, T0 + 4000);
        ScanReader reader = reader(plan(0, 100), null);

        List<Captured> got = reader.next();
        assertThat(got).hasSize(3);
        assertThat(ids(got)).containsExactly(1, 9, 7);
        ChangeEvent delete = ((Captured.Change) got.get(2)).event();
        assertThat(delete.op()).isEqualTo(Op.DELETE);
        assertThat(delete.document()).isNull();
        assertThat(delete.wallTimeMillis()).isEqualTo(T0 + 5000);
        // both cursors travel with every item
        assertThat(got.get(2).offset()).isEqualTo(
                SourceOffset.scan(date(T0 + 1000), new BsonInt32(1), date(T0 + 5000), new BsonInt32(101)));
        assertThat(drain(reader)).isEmpty();

        marker(103, "orders", 1, T0 + 6000);
        List<Captured> later = drain(reader);
        assertThat(ids(later)).containsExactly(1);
        assertThat(((Captured.Change) later.get(0)).event().op()).isEqualTo(Op.DELETE);
    }

    @Test
    void aDeleteMarkerOlderThanTheDocumentsCurrentVersionIsNotEmitted() throws Exception {
        marker(100, "orders", 1, T0 + 1000); // deleted at +1s ...
        write(1, T0 + 2000);                  // ... and written again at +2s
        ScanReader reader = reader(plan(0, 100), null);

        List<Captured> got = reader.next();
        assertThat(got).hasSize(2);
        assertThat(((Captured.Change) got.get(0)).event().op()).isEqualTo(Op.READ);
        assertThat(got.get(1)).isInstanceOf(Captured.Heartbeat.class);
        assertThat(got.get(1).offset().deleteId()).isEqualTo(new BsonInt32(100));
    }

    @Test
    void theFilterIsHonoured() throws Exception {
        for (int id = 1; id <= 6; id++) {
            orders.insertOne(new Document("_id", id).append("updatedAt", new java.util.Date(T0 + id))
                    .append("status", id % 2 == 0 ? "paid" : "draft"));
        }
        ScanReader reader = new ScanReader(client, NS, plan(0, 100), BsonDocument.parse("{status: 'paid'}"), null, CLOCK);
        assertThat(ids(drain(reader))).containsExactly(2, 4, 6);
    }

    @Test
    void documentsWithoutAKeyAreSkippedNotFatal() throws Exception {
        orders.insertOne(new Document("_id", 1));
        orders.insertOne(new Document("_id", 2).append("updatedAt", null));
        write(3, T0);
        assertThat(ids(drain(reader(plan(0, 100), null)))).containsExactly(3);
    }

    @Test
    void lookbackReReadsALateWriteBehindTheCursorWithoutRepeatingTheOthers() throws Exception {
        write(1, T0 + 100_000);
        write(2, T0 + 110_000);
        ScanReader reader = reader(plan(30_000, 100), null);
        assertThat(ids(drain(reader))).containsExactly(1, 2);

        write(3, T0 + 105_000); // a late write: its key is behind the cursor (+110s), inside the window
        List<Captured> late = drain(reader);
        assertThat(ids(late)).containsExactly(3);
        // the offset never moves back
        assertThat(late.get(0).offset()).isEqualTo(SourceOffset.scan(date(T0 + 110_000), new BsonInt32(2), null, null));

        write(1, T0 + 106_000); // an update whose key is still behind the cursor: a changed key, emitted again
        assertThat(ids(drain(reader))).containsExactly(1);
        assertThat(drain(reader)).isEmpty();
    }

    @Test
    void withoutLookbackALateWriteIsNotSeen() throws Exception {
        write(1, T0 + 100_000);
        write(2, T0 + 110_000);
        ScanReader reader = reader(plan(0, 100), null);
        assertThat(ids(drain(reader))).containsExactly(1, 2);
        write(3, T0 + 105_000);
        assertThat(drain(reader)).isEmpty();
    }

    @Test
    void initialSyncSkipStartsAtNow() throws Exception {
        write(1, T0 + 1000);
        write(2, T0 + 3000);
        marker(100, "orders", 8, T0 + 1000);
        marker(101, "orders", 9, T0 + 3000);
        ScanPlan plan = plan(0, 100);
        SourceOffset start = ScanStart.offset(client, NS, plan, new InitialSync(InitialSync.Kind.SKIP, null), Instant.ofEpochMilli(T0 + 2000));
        assertThat(ids(drain(reader(plan, start)))).containsExactly(2, 9);
    }

    @Test
    void initialSyncDateStartsAtThatDate() throws Exception {
        write(1, T0 + 1000);
        write(2, T0 + 2000);
        write(3, T0 + 3000);
        ScanPlan plan = plan(0, 100);
        SourceOffset start = ScanStart.offset(client, NS, plan,
                new InitialSync(InitialSync.Kind.DATE, Instant.ofEpochMilli(T0 + 2000)), CLOCK.instant());
        assertThat(ids(drain(reader(plan, start)))).containsExactly(2, 3);
    }

    @Test
    void initialSyncLatestStartsAfterTheCurrentMaximum() throws Exception {
        write(1, T0 + 1000);
        write(3, T0 + 3000);
        write(2, T0 + 3000);
        marker(100, "orders", 9, T0 + 500);
        ScanPlan plan = plan(0, 100);
        SourceOffset start = ScanStart.offset(client, NS, plan, new InitialSync(InitialSync.Kind.LATEST, null), CLOCK.instant());
        assertThat(start).isEqualTo(SourceOffset.scan(date(T0 + 3000), new BsonInt32(3), date(T0 + 500), new BsonInt32(100)));

        ScanReader reader = reader(plan, start);
        assertThat(drain(reader)).isEmpty();
        write(4, T0 + 3000); // ties the maximum with a larger _id: new
        write(5, T0 + 4000);
        marker(101, "orders", 7, T0 + 600);
        assertThat(ids(drain(reader))).containsExactly(4, 5, 7);
    }

    @Test
    void createsTheScanIndexesWhenAllowed() throws Exception {
        write(1, T0);
        ScanPlan plan = new ScanPlan("updatedAt", 0, 10, true, "_tideline_deletes", 100);
        drain(reader(plan, null));
        assertThat(keysOfIndexes(orders)).contains(ScanQueries.sort("updatedAt"));
        assertThat(keysOfIndexes(markers)).contains(ScanQueries.deleteMarkerIndex());
    }

    @Test
    void numericKeysWork() throws Exception {
        orders.insertOne(new Document("_id", 1).append("version", 20L));
        orders.insertOne(new Document("_id", 2).append("version", 10L));
        ScanPlan plan = new ScanPlan("version", 60_000, 10, false, "_tideline_deletes", 100);
        ScanReader reader = reader(plan, null);
        assertThat(ids(drain(reader))).containsExactly(2, 1);
        orders.insertOne(new Document("_id", 3).append("version", 30L));
        assertThat(ids(drain(reader))).containsExactly(3);
    }

    /**
     * A chunk migration (sharded clusters) moves documents between shards without changing them, so the scan, which
     * reads documents by their date field, finds nothing new after one.
     */
    @Test
    void aChunkMigrationGivesTheScanNothingNew() throws Exception {
        AwaitingMemoryBackend sharded = new AwaitingMemoryBackend();
        try (dev.tideline.standin.MongoFixture shard = dev.tideline.standin.MongoFixture.inProcess(sharded, true)) {
            MongoCollection<Document> shardOrders = shard.client().getDatabase(NS.db()).getCollection(NS.coll());
            for (int id = 1; id <= 3; id++) {
                shardOrders.insertOne(new Document("_id", id).append("n", id).append("updatedAt", new java.util.Date(T0 + id * 1000L)));
            }
            ScanReader scan = new ScanReader(shard.client(), NS, plan(0, 100), new BsonDocument(), null, CLOCK);
            assertThat(ids(drain(scan))).containsExactly(1, 2, 3);

            assertThat(sharded.migrateChunk(NS.db(), NS.coll(), List.of(1, 2))).isEqualTo(2);

            assertThat(ids(drain(scan))).as("read again after the migration").isEmpty();
        }
    }

    // ---- helpers

    private ScanPlan plan(long lookbackMs, int batchSize) {
        return new ScanPlan("updatedAt", lookbackMs, 10, false, "_tideline_deletes", batchSize);
    }

    private ScanReader reader(ScanPlan plan, SourceOffset start) {
        return new ScanReader(client, NS, plan, new BsonDocument(), start, CLOCK);
    }

    private void write(int id, long updatedAt) {
        orders.replaceOne(new Document("_id", id),
                new Document("_id", id).append("n", id).append("updatedAt", new java.util.Date(updatedAt)),
                new com.mongodb.client.model.ReplaceOptions().upsert(true));
    }

    private void marker(int markerId, String coll, int docId, long deletedAt) {
        markers.insertOne(new Document("_id", markerId).append("coll", coll).append("docId", docId)
                .append("deletedAt", new java.util.Date(deletedAt)));
    }

    /** Reads until a pass finds nothing new. */
    private static List<Captured> drain(ScanReader reader) throws InterruptedException {
        List<Captured> all = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            List<Captured> batch = reader.next();
            if (batch.isEmpty()) {
                return all;
            }
            all.addAll(batch);
        }
        throw new AssertionError("the scan never caught up: " + all.size() + " items");
    }

    /** The document ids of the changes, in order (heartbeats left out). */
    private static List<Integer> ids(List<Captured> captured) {
        List<Integer> ids = new ArrayList<>();
        for (Captured c : captured) {
            if (c instanceof Captured.Change change) {
                ids.add(change.event().id().asInt32().getValue());
            }
        }
        return ids;
    }

    private static BsonDateTime date(long millis) {
        return new BsonDateTime(millis);
    }

    private static List<BsonDocument> keysOfIndexes(MongoCollection<Document> collection) {
        List<BsonDocument> keys = new ArrayList<>();
        for (Document index : collection.listIndexes()) {
            keys.add(index.get("key", Document.class).toBsonDocument());
        }
        return keys;
    }

}
