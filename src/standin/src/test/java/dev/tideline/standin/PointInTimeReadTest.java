package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import java.time.Instant;
import java.util.List;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Item: {@code find} with {@code readConcern: {level: "snapshot", atClusterTime}} outside a transaction answers the
 * documents as they were then (https://www.mongodb.com/docs/manual/reference/read-concern-snapshot/), not as they are
 * now; what the stand-in cannot answer it refuses with MongoDB's codes.
 */
class PointInTimeReadTest {
    private MongoFixture mongo;

    @AfterEach
    void stop() {
        mongo.close();
    }

    private static BsonTimestamp now(MongoDatabase db) {
        return db.runCommand(new Document("ping", 1)).get("operationTime", BsonTimestamp.class);
    }

    private static List<Document> at(MongoDatabase db, String coll, Object id, BsonTimestamp t) {
        Document reply = db.runCommand(new Document("find", coll).append("filter", new Document("_id", id))
                .append("readConcern", new Document("level", "snapshot").append("atClusterTime", t)));
        Document cursor = reply.get("cursor", Document.class);
        assertThat(cursor.get("atClusterTime")).isEqualTo(t);
        return cursor.getList("firstBatch", Document.class);
    }

    private static int code(Runnable r) {
        try {
            r.run();
        } catch (MongoCommandException e) {
            return e.getErrorCode();
        }
        throw new AssertionError("not refused");
    }

    @Test
    void eachTimeReadsTheVersionWrittenLastBeforeItAndNotTheDocumentAsItIsNow() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        MongoDatabase db = mongo.client().getDatabase("pit");
        MongoCollection<Document> c = db.getCollection("t");
        BsonTimestamp before = now(db);
        c.insertOne(new Document("_id", "k").append("v", 1));
        BsonTimestamp inserted = now(db);
        assertThat(at(db, "t", "k", inserted)).extracting(d -> d.get("v")).containsExactly(1); // the first read: history built
        c.replaceOne(Filters.eq("_id", "k"), new Document("_id", "k").append("v", 2));
        BsonTimestamp replaced = now(db);
        c.updateOne(Filters.eq("_id", "k"), Updates.set("v", 3));
        BsonTimestamp updated = now(db);
        c.deleteOne(Filters.eq("_id", "k"));
        BsonTimestamp deleted = now(db);
        c.insertOne(new Document("_id", "k").append("v", 4));

        assertThat(at(db, "t", "k", before)).as("before its insert").isEmpty();
        assertThat(at(db, "t", "k", inserted)).extracting(d -> d.get("v")).containsExactly(1);
        assertThat(at(db, "t", "k", replaced)).extracting(d -> d.get("v")).containsExactly(2);
        assertThat(at(db, "t", "k", updated)).extracting(d -> d.get("v")).containsExactly(3);
        assertThat(at(db, "t", "k", deleted)).as("deleted then").isEmpty();
        assertThat(at(db, "t", "k", now(db))).extracting(d -> d.get("v")).containsExactly(4);
        assertThat(c.find(Filters.eq("_id", "k")).first().get("v")).as("a read without the level is as now").isEqualTo(4);

        c.insertOne(new Document("_id", "other").append("v", 9));
        BsonTimestamp beforeDrop = now(db);
        c.drop();
        assertThat(at(db, "t", "other", beforeDrop)).extracting(d -> d.get("v")).containsExactly(9);
        assertThat(at(db, "t", "other", now(db))).as("dropped since").isEmpty();
    }

    /** A read at a point in time takes the locks a write takes, in the same order: with both going on, neither waits forever. */
    @Test
    void readsAtAPointInTimeGoOnWhileDocumentsAreWritten() throws Exception {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        MongoDatabase db = mongo.client().getDatabase("pit");
        MongoCollection<Document> c = db.getCollection("t");
        c.insertOne(new Document("_id", 0).append("v", 0));
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<Integer>> work = new java.util.ArrayList<>();
            for (int w = 0; w < 2; w++) {
                int writer = w;
                work.add(pool.submit(() -> {
                    for (int i = 1; i <= 300; i++) {
                        c.replaceOne(Filters.eq("_id", i % 7), new Document("_id", i % 7).append("v", writer * 1000 + i),
                                new com.mongodb.client.model.ReplaceOptions().upsert(true));
                    }
                    return 300;
                }));
                work.add(pool.submit(() -> {
                    int reads = 0;
                    for (int i = 0; i < 300; i++) {
                        reads += at(db, "t", i % 7, now(db)).size();
                    }
                    return reads;
                }));
            }
            for (java.util.concurrent.Future<Integer> f : work) {
                assertThat(f.get(60, java.util.concurrent.TimeUnit.SECONDS)).as("done, not stuck").isPositive();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aHistoryBuiltFromTheOplogKnowsInsertsReplacesAndDeletesButNotAnUpdatesDocument() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        MongoDatabase db = mongo.client().getDatabase("pit");
        MongoCollection<Document> c = db.getCollection("t");
        c.insertOne(new Document("_id", 1).append("v", "a"));
        BsonTimestamp inserted = now(db);
        c.updateOne(Filters.eq("_id", 1), Updates.set("v", "b")); // logged as a description only, before any read
        BsonTimestamp updated = now(db);
        assertThat(at(db, "t", 1, inserted)).extracting(d -> d.get("v")).containsExactly("a");
        assertThat(code(() -> at(db, "t", 1, updated))).as("answered SnapshotTooOld, not from the present").isEqualTo(239);
    }

    @Test
    void aTimeAfterTheServersOrBeyondItsHistoryAnotherFilterAndAStandaloneAreRefused() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        MongoDatabase db = mongo.client().getDatabase("pit");
        db.getCollection("t").insertOne(new Document("_id", 1).append("v", "a"));
        BsonTimestamp future = new BsonTimestamp((int) Instant.now().plusSeconds(3600).getEpochSecond(), 0);
        assertThat(code(() -> at(db, "t", 1, future))).isEqualTo(72);
        BsonTimestamp old = new BsonTimestamp((int) Instant.now().minusSeconds(PointInTimeReads.HISTORY_WINDOW_SECONDS + 5).getEpochSecond(), 0);
        assertThat(code(() -> at(db, "t", 1, old))).isEqualTo(239);
        assertThat(code(() -> db.runCommand(new Document("find", "t").append("filter", new Document("v", "a"))
                .append("readConcern", new Document("level", "snapshot"))))).as("not an _id lookup").isEqualTo(238);
        mongo.close();

        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), false);
        MongoDatabase standalone = mongo.client().getDatabase("pit");
        assertThat(code(() -> standalone.runCommand(new Document("find", "t").append("filter", new Document("_id", 1))
                .append("readConcern", new Document("level", "snapshot"))))).isEqualTo(20);
    }
}
