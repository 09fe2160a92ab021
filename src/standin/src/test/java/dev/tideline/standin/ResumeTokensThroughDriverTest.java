package dev.tideline.standin;

import static dev.tideline.standin.Streams.take;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Item: resume tokens shaped like MongoDB 4.2+ tokens, and a post-batch resume token in every cursor reply
 * (change-streams spec, "postBatchResumeToken"), seen through the real driver.
 */
class ResumeTokensThroughDriverTest {
    private static MongoFixture mongo;

    @BeforeAll
    static void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
    }

    @AfterAll
    static void stop() {
        mongo.close();
    }

    @Test
    void eventTokensStartWithTheClusterTimeAndSortAsStringsInEventOrder() {
        MongoCollection<Document> c = mongo.client().getDatabase("tokens").getCollection("order");
        c.insertOne(new Document("_id", 0));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = c.watch().batchSize(7).cursor()) {
            for (int i = 1; i <= 40; i++) {
                c.insertOne(new Document("_id", i));
            }
            c.drop();
            List<ChangeStreamDocument<Document>> events = take(cursor, 42);

            assertThat(events).hasSize(42);
            List<String> hex = new ArrayList<>();
            for (ChangeStreamDocument<Document> e : events) {
                String data = e.getResumeToken().getString("_data").getValue();
                hex.add(data);
                BsonTimestamp time = e.getClusterTime();
                assertThat(data).as("KeyString Timestamp type byte, then the cluster time big-endian")
                        .startsWith("82" + String.format("%016X", time.getValue()));
            }
            assertThat(hex).isSorted().doesNotHaveDuplicates();
            assertThat(Streams.types(events.subList(40, 42))).containsExactly("drop", "invalidate");
        }
    }

    @Test
    void everyReplyCarriesAPostBatchResumeTokenThatMovesForwardOnAQuietStream() throws Exception {
        MongoDatabase db = mongo.client().getDatabase("tokens");
        db.getCollection("quiet").insertOne(new Document("_id", 1));
        BsonDocument opened = db.runCommand(BsonDocument.parse("{aggregate: 'quiet', pipeline: [{$changeStream: {}}], cursor: {}}"),
                BsonDocument.class);
        BsonDocument first = opened.getDocument("cursor");
        assertThat(first.getArray("firstBatch")).isEmpty();
        assertThat(first.getDocument("postBatchResumeToken").getString("_data").getValue()).startsWith("82");
        long cursorId = first.getInt64("id").getValue();

        Thread.sleep(1100); // the cluster time moves by the second on a quiet server
        BsonDocument more = db.runCommand(new BsonDocument("getMore", new org.bson.BsonInt64(cursorId))
                .append("collection", new org.bson.BsonString("quiet")).append("maxTimeMS", new org.bson.BsonInt32(50)),
                BsonDocument.class).getDocument("cursor");
        assertThat(more.getArray("nextBatch")).isEmpty();
        String before = first.getDocument("postBatchResumeToken").getString("_data").getValue();
        String after = more.getDocument("postBatchResumeToken").getString("_data").getValue();
        assertThat(after).isGreaterThan(before);

        db.getCollection("quiet").insertOne(new Document("_id", 2));
        BsonDocument withEvent = db.runCommand(new BsonDocument("getMore", new org.bson.BsonInt64(cursorId))
                .append("collection", new org.bson.BsonString("quiet")).append("batchSize", new org.bson.BsonInt32(1)),
                BsonDocument.class).getDocument("cursor");
        assertThat(withEvent.getArray("nextBatch")).hasSize(1);
        assertThat(withEvent.getDocument("postBatchResumeToken"))
                .as("a full batch: the last event's token")
                .isEqualTo(withEvent.getArray("nextBatch").get(0).asDocument().getDocument("_id"));
    }

    @Test
    void theDriversResumeTokenMovesForwardOnAnIdleStreamAndResumesFromThere() throws Exception {
        MongoCollection<Document> c = mongo.client().getDatabase("tokens").getCollection("idle");
        c.insertOne(new Document("_id", "before"));
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor =
                     c.watch().maxAwaitTime(50, TimeUnit.MILLISECONDS).cursor()) {
            assertThat(cursor.tryNext()).isNull();
            BsonDocument atOpen = cursor.getResumeToken();
            assertThat(atOpen).as("a token before the first event").isNotNull();
            Thread.sleep(1100);
            assertThat(cursor.tryNext()).isNull();
            BsonDocument idle = cursor.getResumeToken();
            assertThat(idle.getString("_data").getValue()).isGreaterThan(atOpen.getString("_data").getValue());

            c.insertOne(new Document("_id", "after"));
            try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> resumed = c.watch().resumeAfter(idle).cursor()) {
                List<ChangeStreamDocument<Document>> events = take(resumed, 1);
                assertThat(events).extracting(e -> e.getDocumentKey().getString("_id").getValue()).containsExactly("after");
            }
            ChangeStreamDocument<Document> event = take(cursor, 1).get(0);
            assertThat(cursor.getResumeToken().getString("_data").getValue())
                    .as("after the batch: a high-water mark at or past the event")
                    .isGreaterThanOrEqualTo(event.getResumeToken().getString("_data").getValue());
        }
    }
}
