package dev.tideline.standin;

import static dev.tideline.standin.Streams.take;
import static dev.tideline.standin.Streams.types;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: a chunk migration ({@link AwaitingMemoryBackend#migrateChunk}) writes {@code fromMigrate} oplog entries (the
 * recipient's inserts, the donor's deletes) and changes no document; change streams leave them out, as MongoDB's do,
 * unless opened with {@code showMigrationEvents: true} (https://jira.mongodb.org/browse/SERVER-38682).
 */
class ChunkMigrationTest {
    private AwaitingMemoryBackend backend;
    private MongoFixture mongo;
    private MongoClient client;

    @BeforeEach
    void start() {
        backend = new AwaitingMemoryBackend();
        mongo = MongoFixture.inProcess(backend, true);
        client = mongo.client();
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    @Test
    void noStreamSeesAMigrationAndTheDataStaysAsItWas() {
        MongoDatabase shop = client.getDatabase("shop");
        MongoCollection<Document> orders = shop.getCollection("orders");
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> collectionStream = orders.watch().cursor();
             MongoChangeStreamCursor<ChangeStreamDocument<Document>> databaseStream = shop.watch().cursor();
             MongoChangeStreamCursor<ChangeStreamDocument<Document>> deploymentStream = client.watch().cursor()) {
            List<Document> docs = new ArrayList<>();
            for (int i = 1; i <= 4; i++) {
                docs.add(new Document("_id", i).append("v", i));
            }
            orders.insertMany(docs);
            int oplogBefore = backend.oplogSize();

            int moved = backend.migrateChunk("shop", "orders", List.of(1, 2, 99));
            orders.updateOne(Filters.eq("_id", 3), Updates.set("v", 30)); // the next change of the application

            assertThat(moved).as("documents in the chunk (99 does not exist)").isEqualTo(2);
            assertThat(backend.oplogSize() - oplogBefore).as("oplog entries: an insert and a delete per migrated document, "
                    + "then the update").isEqualTo(5);
            assertThat(orders.find().into(new ArrayList<>())).as("the data after the migration")
                    .containsExactly(new Document("_id", 1).append("v", 1), new Document("_id", 2).append("v", 2),
                            new Document("_id", 3).append("v", 30), new Document("_id", 4).append("v", 4));
            for (var stream : List.of(collectionStream, databaseStream, deploymentStream)) {
                assertThat(types(take(stream, 5))).as("what a stream without showMigrationEvents returns")
                        .containsExactly("insert", "insert", "insert", "insert", "update");
            }
        }
    }

    @Test
    void showMigrationEventsReturnsTheMigrationsWrites() {
        MongoDatabase shop = client.getDatabase("shop");
        MongoCollection<Document> orders = shop.getCollection("orders");
        BsonDocument start;
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> stream = orders.watch().cursor()) {
            orders.insertOne(new Document("_id", 1));
            start = take(stream, 1).get(0).getResumeToken();
        }
        backend.migrateChunk("shop", "orders", List.of(1));
        orders.insertOne(new Document("_id", 2));

        Document reply = shop.runCommand(new Document("aggregate", "orders").append("cursor", new Document())
                .append("pipeline", List.of(new Document("$changeStream",
                        new Document("showMigrationEvents", true).append("resumeAfter", start)))));

        List<?> batch = reply.get("cursor", Document.class).getList("firstBatch", Object.class);
        assertThat(batch.stream().map(e -> ((Document) e).getString("operationType")).toList())
                .as("the migration's insert (recipient) and delete (donor), then the application's insert")
                .containsExactly("insert", "delete", "insert");
        assertThat(orders.countDocuments()).isEqualTo(2);
    }
}
