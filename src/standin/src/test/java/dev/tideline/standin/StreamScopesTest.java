package dev.tideline.standin;

import static dev.tideline.standin.Streams.namespaces;
import static dev.tideline.standin.Streams.take;
import static dev.tideline.standin.Streams.types;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Aggregates;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: database-level ({@code db.watch()}) and deployment-level ({@code client.watch()}) change streams
 * see every collection of the database / deployment with {@code ns} on each event, and the stages after
 * {@code $changeStream} are honoured, as on MongoDB
 * (https://www.mongodb.com/docs/manual/changeStreams/#watch-a-collection--database--or-deployment).
 */
class StreamScopesTest {
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
    void aDatabaseStreamSeesEveryCollectionOfItsDatabaseWithNs() {
        MongoDatabase shop = client.getDatabase("shop");
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                     shop.watch().fullDocument(FullDocument.UPDATE_LOOKUP).cursor()) {
            shop.getCollection("orders").insertOne(new Document("_id", 1));
            client.getDatabase("other").getCollection("orders").insertOne(new Document("_id", 1));
            shop.getCollection("items").insertOne(new Document("_id", "a"));
            shop.getCollection("orders").updateOne(Filters.eq("_id", 1), Updates.set("v", 2));
            shop.getCollection("items").deleteOne(Filters.eq("_id", "a"));

            List<ChangeStreamDocument<Document>> events = take(cursor, 4);

            assertThat(types(events)).containsExactly("insert", "insert", "update", "delete");
            assertThat(namespaces(events)).containsExactly("shop.orders", "shop.items", "shop.orders", "shop.items");
            assertThat(events.get(2).getFullDocument()).isEqualTo(new Document("_id", 1).append("v", 2));
            assertThat(events.get(3).getDocumentKey()).isEqualTo(BsonDocument.parse("{_id: 'a'}"));
        }
    }

    @Test
    void aDeploymentStreamSeesEveryDatabaseButTheInternalOnes() {
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = client.watch().cursor()) {
            client.getDatabase("one").getCollection("a").insertOne(new Document("_id", 1));
            client.getDatabase("local").getCollection("x").insertOne(new Document("_id", 1));
            client.getDatabase("config").getCollection("x").insertOne(new Document("_id", 1));
            client.getDatabase("two").getCollection("b").insertOne(new Document("_id", 2));

            List<ChangeStreamDocument<Document>> events = take(cursor, 2);

            assertThat(namespaces(events)).containsExactly("one.a", "two.b");
            assertThat(cursor.tryNext()).as("nothing from local or config").isNull();
        }
    }

    @Test
    void stagesAfterChangeStreamFilterByNamespaceOperationAndTime() {
        MongoDatabase db = client.getDatabase("filtered");
        db.getCollection("a").insertOne(new Document("_id", "seed"));
        List<org.bson.conversions.Bson> byColl = List.of(Aggregates.match(Filters.in("ns.coll", "a", "b")));
        List<org.bson.conversions.Bson> byType = List.of(Aggregates.match(Filters.eq("operationType", "delete")));
        List<org.bson.conversions.Bson> either = List.of(Aggregates.match(Filters.or(Filters.eq("ns.coll", "c"),
                Filters.and(Filters.eq("ns", new Document("db", "filtered").append("coll", "a")),
                        Filters.in("operationType", "update", "delete")))));
        try (var inColl = db.watch(byColl).cursor(); var deletes = db.watch(byType).cursor(); var or = db.watch(either).cursor()) {
            db.getCollection("a").insertOne(new Document("_id", 1));
            db.getCollection("b").insertOne(new Document("_id", 2));
            db.getCollection("c").insertOne(new Document("_id", 3));
            db.getCollection("a").updateOne(Filters.eq("_id", 1), Updates.set("x", 1));
            db.getCollection("c").deleteOne(Filters.eq("_id", 3));
            db.getCollection("a").deleteOne(Filters.eq("_id", 1));

            assertThat(namespaces(take(inColl, 4))).containsExactly("filtered.a", "filtered.b", "filtered.a", "filtered.a");
            assertThat(namespaces(take(deletes, 2))).containsExactly("filtered.c", "filtered.a");
            List<ChangeStreamDocument<Document>> orEvents = take(or, 4);
            assertThat(types(orEvents)).containsExactly("insert", "update", "delete", "delete");
            assertThat(namespaces(orEvents)).containsExactly("filtered.c", "filtered.a", "filtered.c", "filtered.a");

            // clusterTime: only the events after the update's
            var update = take(db.watch(List.of(Aggregates.match(Filters.eq("operationType", "update"))))
                    .startAtOperationTime(new org.bson.BsonTimestamp(0)).cursor(), 1).get(0);
            var after = db.watch(List.of(Aggregates.match(Filters.gt("clusterTime", update.getClusterTime()))))
                    .startAtOperationTime(new org.bson.BsonTimestamp(0)).cursor();
            assertThat(types(take(after, 2))).containsExactly("delete", "delete");
            after.close();
        }
    }

    @Test
    void aDatabaseStreamResumesAfterAnyOfItsEvents() {
        MongoDatabase db = client.getDatabase("resumed");
        BsonDocument token;
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = db.watch().cursor()) {
            db.getCollection("a").insertOne(new Document("_id", 1));
            db.getCollection("b").insertOne(new Document("_id", 2));
            db.getCollection("a").insertOne(new Document("_id", 3));
            token = take(cursor, 1).get(0).getResumeToken();
        }
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = db.watch().resumeAfter(token).cursor()) {
            assertThat(namespaces(take(cursor, 2))).containsExactly("resumed.b", "resumed.a");
        }
    }

    @Test
    void aCollectionStreamSeesOnlyItsCollection() {
        MongoDatabase db = client.getDatabase("single");
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                     db.getCollection("mine").watch().maxAwaitTime(100, TimeUnit.MILLISECONDS).cursor()) {
            db.getCollection("other").insertOne(new Document("_id", 1));
            db.getCollection("mine").insertOne(new Document("_id", 2));
            db.getCollection("mine2").insertOne(new Document("_id", 3));
            assertThat(namespaces(take(cursor, 1))).containsExactly("single.mine");
            assertThat(cursor.tryNext()).isNull();
        }
    }
}
