package dev.tideline.standin;

import static dev.tideline.standin.Streams.namespaces;
import static dev.tideline.standin.Streams.take;
import static dev.tideline.standin.Streams.types;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.MongoNamespace;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.RenameCollectionOptions;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: DDL events as MongoDB gives them (https://www.mongodb.com/docs/manual/reference/change-events/):
 * invalidation rules per scope, the cursor closed after an invalidate, {@code resumeAfter} refused and
 * {@code startAfter} accepted after one, expanded events only on request.
 */
class DdlEventsTest {
    private MongoFixture mongo;
    private MongoClient client;

    @BeforeEach
    void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        client = mongo.client();
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    @Test
    void aCollectionStreamSeesDropThenInvalidateAndItsCursorIsClosed() {
        MongoCollection<Document> c = client.getDatabase("ddl").getCollection("dropped");
        c.insertOne(new Document("_id", 1));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = c.watch().cursor()) {
            c.insertOne(new Document("_id", 2));
            c.drop();
            List<ChangeStreamDocument<Document>> events = take(cursor, 3);
            assertThat(types(events)).containsExactly("insert", "drop", "invalidate");
            assertThat(namespaces(events)).containsExactly("ddl.dropped", "ddl.dropped", "");
            assertThat(events.get(2).getClusterTime()).isEqualTo(events.get(1).getClusterTime());
            assertThat(cursor.getServerCursor()).as("the server closed the cursor").isNull();
        }
    }

    @Test
    void afterAnInvalidateResumeAfterIsRefusedWith260AndStartAfterStartsANewStream() {
        MongoCollection<Document> c = client.getDatabase("ddl").getCollection("again");
        c.insertOne(new Document("_id", 1));
        BsonDocument dropToken;
        BsonDocument invalidateToken;
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = c.watch().cursor()) {
            c.drop();
            List<ChangeStreamDocument<Document>> events = take(cursor, 2);
            dropToken = events.get(0).getResumeToken();
            invalidateToken = events.get(1).getResumeToken();
        }
        c.insertOne(new Document("_id", "recreated"));

        assertThatThrownBy(() -> c.watch().resumeAfter(invalidateToken).cursor().tryNext())
                .isInstanceOfSatisfying(MongoCommandException.class, e -> {
                    assertThat(e.getErrorCode()).isEqualTo(260);
                    assertThat(e.getErrorCodeName()).isEqualTo("InvalidResumeToken");
                });
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = c.watch().resumeAfter(dropToken).cursor()) {
            assertThat(types(take(cursor, 1))).as("resumed after the drop: its invalidate again").containsExactly("invalidate");
        }
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = c.watch().startAfter(invalidateToken).cursor()) {
            List<ChangeStreamDocument<Document>> events = take(cursor, 1);
            assertThat(types(events)).containsExactly("insert");
            assertThat(events.get(0).getDocumentKey()).isEqualTo(BsonDocument.parse("{_id: 'recreated'}"));
        }
    }

    @Test
    void renameInvalidatesStreamsOnTheSourceAndOnTheTarget() {
        MongoDatabase db = client.getDatabase("ddl");
        db.getCollection("from").insertOne(new Document("_id", 1));
        db.getCollection("to").insertOne(new Document("_id", 1));
        try (var onFrom = db.getCollection("from").watch().cursor(); var onTo = db.getCollection("to").watch().cursor();
             var onDb = db.watch().cursor()) {
            db.getCollection("from").renameCollection(new MongoNamespace("ddl", "to"), new RenameCollectionOptions().dropTarget(true));
            db.getCollection("to").insertOne(new Document("_id", 2));

            List<ChangeStreamDocument<Document>> fromEvents = take(onFrom, 2);
            assertThat(types(fromEvents)).containsExactly("rename", "invalidate");
            assertThat(fromEvents.get(0).getDestinationNamespace().getFullName()).isEqualTo("ddl.to");
            assertThat(types(take(onTo, 2))).containsExactly("rename", "invalidate");
            List<ChangeStreamDocument<Document>> dbEvents = take(onDb, 2);
            assertThat(types(dbEvents)).as("no drop of the replaced target, no invalidate").containsExactly("rename", "insert");
            assertThat(namespaces(dbEvents)).containsExactly("ddl.from", "ddl.to");
        }
        assertThat(db.getCollection("to").countDocuments()).isEqualTo(2);
    }

    @Test
    void aDatabaseStreamSeesDropsAndRenamesWithoutInvalidateAndDropDatabaseThenInvalidate() {
        MongoDatabase db = client.getDatabase("dropped_db");
        db.getCollection("a").insertOne(new Document("_id", 1));
        db.getCollection("b").insertOne(new Document("_id", 1));
        try (var onDb = db.watch().cursor(); var onCluster = client.watch().cursor();
             var onA = db.getCollection("a").watch().cursor()) {
            db.getCollection("b").drop();
            db.getCollection("a").insertOne(new Document("_id", 2));
            db.drop();

            List<ChangeStreamDocument<Document>> events = take(onDb, 5);
            assertThat(types(events)).containsExactly("drop", "insert", "drop", "dropDatabase", "invalidate");
            assertThat(namespaces(events)).containsExactly("dropped_db.b", "dropped_db.a", "dropped_db.a", "dropped_db", "");
            assertThat(onDb.getServerCursor()).isNull();

            assertThat(types(take(onA, 3))).containsExactly("insert", "drop", "invalidate");
            assertThat(types(take(onCluster, 4))).as("a deployment stream is not invalidated")
                    .containsExactly("drop", "insert", "drop", "dropDatabase");
            assertThat(onCluster.getServerCursor()).isNotNull();
        }
    }

    @Test
    void createAndIndexEventsOnlyWithShowExpandedEvents() {
        MongoDatabase db = client.getDatabase("expanded");
        try (var plain = db.watch().maxAwaitTime(100, TimeUnit.MILLISECONDS).cursor();
             var expanded = db.watch().showExpandedEvents(true).cursor()) {
            db.createCollection("made");
            db.getCollection("implicit").insertOne(new Document("_id", 1));
            db.getCollection("implicit").createIndex(Indexes.ascending("x"));
            db.getCollection("made").insertOne(new Document("_id", 2));

            List<ChangeStreamDocument<Document>> events = take(expanded, 5);
            assertThat(types(events)).containsExactly("create", "create", "insert", "createIndexes", "insert");
            assertThat(namespaces(events)).containsExactly("expanded.made", "expanded.implicit", "expanded.implicit",
                    "expanded.implicit", "expanded.made");
            assertThat(types(take(plain, 2))).containsExactly("insert", "insert");
            assertThat(plain.tryNext()).isNull();
        }
    }

    @Test
    void anUpdateWithoutUpsertCreatesNoCollection() {
        MongoDatabase db = client.getDatabase("noupsert");
        var result = db.getCollection("ghost").updateOne(new Document("_id", 1), new Document("$set", new Document("x", 1)));
        assertThat(result.getMatchedCount()).isZero();
        assertThat(db.listCollectionNames().into(new java.util.ArrayList<>())).doesNotContain("ghost");
    }
}
