package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The stand-in's oplog as the tests see it through the driver: MongoDB's event shape, in order, resumable. */
class IndexedOplogTest {
    private static MongoFixture mongo;

    @BeforeAll
    static void start() {
        mongo = MongoFixture.inProcess(true);
    }

    @AfterAll
    static void stop() {
        mongo.close();
    }

    @Test
    void anInsertRefusedAsADuplicateIsNotLogged() {
        MongoCollection<Document> c = mongo.client().getDatabase("oplogtest").getCollection("dups");
        c.insertOne(new Document("_id", new Document("ns", "a").append("id", 1)).append("v", "first"));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = c.watch().cursor()) {
            assertThatThrownBy(() -> c.insertMany(List.of(
                    new Document("_id", new Document("ns", "a").append("id", 1)).append("v", "refused"),
                    new Document("_id", new Document("ns", "a").append("id", 2)).append("v", "kept"),
                    new Document("_id", new Document("ns", "a").append("id", 1L)).append("v", "refused too")),
                    new com.mongodb.client.model.InsertManyOptions().ordered(false)))
                    .isInstanceOf(com.mongodb.MongoBulkWriteException.class);
            c.insertOne(new Document("_id", 3));

            List<ChangeStreamDocument<Document>> events = take(cursor, 2);

            assertThat(events).extracting(e -> e.getFullDocument().get("v", Object.class)).containsExactly("kept", null);
            assertThat(events.get(1).getDocumentKey().getInt32("_id").getValue()).isEqualTo(3);
        }
    }

    @Test
    void eventsFollowTheWritesWithDocumentKeysAndLookups() {
        MongoCollection<Document> c = mongo.client().getDatabase("oplogtest").getCollection("a");
        MongoCollection<Document> other = mongo.client().getDatabase("oplogtest").getCollection("b");
        c.insertOne(new Document("_id", 0));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                     c.watch().fullDocument(FullDocument.UPDATE_LOOKUP).cursor()) {
            c.insertOne(new Document("_id", 1).append("v", 1));
            other.insertOne(new Document("_id", 1));
            c.updateOne(Filters.eq("_id", 1), Updates.set("v", 2));
            c.insertOne(new Document("_id", 2));
            c.updateOne(Filters.eq("_id", 2), Updates.set("v", 3));
            c.deleteOne(Filters.eq("_id", 2));

            List<ChangeStreamDocument<Document>> events = take(cursor, 5);

            assertThat(events).extracting(e -> e.getOperationTypeString())
                    .containsExactly("insert", "update", "insert", "update", "delete");
            assertThat(events).extracting(e -> e.getDocumentKey().getInt32("_id").getValue()).containsExactly(1, 1, 2, 2, 2);
            assertThat(events.get(1).getFullDocument()).isEqualTo(new Document("_id", 1).append("v", 2));
            // looked up after the delete: gone, as MongoDB answers
            assertThat(events.get(3).getFullDocument()).isNull();
            assertThat(events.get(0).getNamespace().getFullName()).isEqualTo("oplogtest.a");

            BsonDocument afterSecond = events.get(1).getResumeToken();
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> resumed = c.watch().resumeAfter(afterSecond).cursor()) {
                assertThat(take(resumed, 3)).extracting(e -> e.getOperationTypeString())
                        .containsExactly("insert", "update", "delete");
            }
        }
    }

    @Test
    void aRefusedInsertIsNotAnEventAndConcurrentInsertsOfOneIdStoreOne() throws Exception {
        MongoCollection<Document> c = mongo.client().getDatabase("oplogtest").getCollection("dup");
        c.insertOne(new Document("_id", "seed"));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = c.watch().cursor()) {
            c.insertOne(new Document("_id", 1).append("by", "first"));
            assertThatThrownBy(() -> c.insertOne(new Document("_id", 1).append("by", "second")))
                    .isInstanceOf(MongoWriteException.class);
            int ids = 200;
            ExecutorService pool = Executors.newFixedThreadPool(4);
            AtomicInteger stored = new AtomicInteger();
            try {
                List<Future<?>> writers = new ArrayList<>();
                for (int w = 0; w < 4; w++) {
                    int writer = w;
                    writers.add(pool.submit(() -> {
                        for (int id = 100; id < 100 + ids; id++) {
                            try {
                                c.insertOne(new Document("_id", id).append("by", writer));
                                stored.incrementAndGet();
                            } catch (MongoWriteException refused) {
                                // another writer stored this _id first
                            }
                        }
                    }));
                }
                for (Future<?> f : writers) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            c.insertOne(new Document("_id", "end"));

            List<ChangeStreamDocument<Document>> events = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 20_000;
            while (System.currentTimeMillis() < deadline && (events.isEmpty()
                    || !new BsonString("end").equals(events.get(events.size() - 1).getDocumentKey().get("_id")))) {
                events.addAll(take(cursor, 1));
            }
            assertThat(stored).as("inserts that succeeded").hasValue(ids);
            assertThat(c.countDocuments(Filters.gte("_id", 100))).isEqualTo(ids);
            assertThat(c.find().into(new ArrayList<>())).as("documents stored, each _id once").hasSize(ids + 2 + 1);
            assertThat(events).as("one event per stored insert, up to the last").hasSize(1 + ids + 1);
            assertThat(events).extracting(e -> e.getOperationTypeString()).containsOnly("insert");
            assertThat(events.get(0).getFullDocument().getString("by")).isEqualTo("first");
        }
    }

    @Test
    void updatesCarryTheirDescriptionAndReplacementsAreReplaceEventsAsMongoDbReportsThem() {
        MongoCollection<Document> c = mongo.client().getDatabase("oplogtest").getCollection("described");
        c.insertOne(new Document("_id", 1).append("a", 1).append("b", new Document("x", 1)).append("gone", true));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = c.watch().cursor()) {
            c.updateOne(Filters.eq("_id", 1), Updates.combine(Updates.set("a", 2), Updates.set("b.y", 2),
                    Updates.unset("gone"), Updates.set("new", "n")));
            c.updateOne(Filters.eq("_id", 1), Updates.inc("a", 1));
            c.replaceOne(Filters.eq("_id", 1), new Document("_id", 1).append("r", true));

            List<ChangeStreamDocument<Document>> events = take(cursor, 3);

            assertThat(events).extracting(e -> e.getOperationTypeString()).containsExactly("update", "update", "replace");
            var first = events.get(0).getUpdateDescription();
            assertThat(first.getUpdatedFields()).isEqualTo(BsonDocument.parse("{a: 2, b: {x: 1, y: 2}, new: 'n'}"));
            assertThat(first.getRemovedFields()).containsExactly("gone");
            assertThat(first.getTruncatedArrays()).isEmpty();
            assertThat(events.get(0).getFullDocument()).isNull(); // no updateLookup: MongoDB leaves it out
            assertThat(events.get(1).getUpdateDescription().getUpdatedFields()).isEqualTo(BsonDocument.parse("{a: 3}"));
            assertThat(events.get(2).getFullDocument()).isEqualTo(new Document("_id", 1).append("r", true));
            assertThat(events.get(2).getUpdateDescription()).isNull();
            assertThat(events.get(2).getDocumentKey()).isEqualTo(BsonDocument.parse("{_id: 1}"));
        }
    }

    private static List<ChangeStreamDocument<Document>> take(MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor, int n) {
        List<ChangeStreamDocument<Document>> out = new ArrayList<>();
        long deadline = System.currentTimeMillis() + 20_000;
        while (out.size() < n && System.currentTimeMillis() < deadline) {
            ChangeStreamDocument<Document> e = cursor.tryNext();
            if (e != null) {
                out.add(e);
            }
        }
        return out;
    }
}
