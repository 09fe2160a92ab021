package dev.tideline.standin;

import static dev.tideline.standin.Streams.take;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoCollection;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Item: an optional capped oplog, as MongoDB's is (https://www.mongodb.com/docs/manual/core/replica-set-oplog/#oplog-size):
 * the oldest entries go, and a stream resumed before the oldest entry left, or a cursor the writes outran,
 * answers ChangeStreamHistoryLost (286).
 */
class CappedOplogTest {
    private MongoFixture mongo;

    @AfterEach
    void stop() {
        mongo.close();
    }

    @Test
    void resumingBeforeTheOldestEntryLeftAnswersHistoryLost() {
        AwaitingMemoryBackend backend = new AwaitingMemoryBackend().capOplog(10, 0);
        mongo = MongoFixture.inProcess(backend, true);
        MongoCollection<Document> c = mongo.client().getDatabase("capped").getCollection("c");
        BsonDocument early;
        try (var cursor = c.watch().cursor()) {
            for (int i = 0; i < 3; i++) {
                c.insertOne(new Document("_id", i));
            }
            early = take(cursor, 1).get(0).getResumeToken();
        }
        for (int i = 3; i < 30; i++) {
            c.insertOne(new Document("_id", i));
        }
        BsonDocument recent;
        assertThatThrownBy(() -> c.watch().startAfter(early).cursor().tryNext())
                .isInstanceOfSatisfying(MongoCommandException.class, e -> {
                    assertThat(e.getErrorCode()).isEqualTo(286);
                    assertThat(e.getErrorCodeName()).isEqualTo("ChangeStreamHistoryLost");
                });
        assertThat(backend.oplogSize()).isEqualTo(10);
        assertThatThrownBy(() -> c.watch().startAtOperationTime(new BsonTimestamp(0)).cursor().tryNext())
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(286));
        try (var cursor = c.watch().cursor()) {
            c.insertOne(new Document("_id", "late"));
            recent = take(cursor, 1).get(0).getResumeToken();
        }
        c.insertOne(new Document("_id", "later"));
        try (var cursor = c.watch().resumeAfter(recent).cursor()) {
            assertThat(take(cursor, 1).get(0).getDocumentKey().getString("_id").getValue())
                    .as("a position inside the window resumes").isEqualTo("later");
        }
    }

    @Test
    void aCursorTheWritesOutranLosesItsHistory() {
        AwaitingMemoryBackend backend = new AwaitingMemoryBackend().capOplog(0, 16 * 1024);
        mongo = MongoFixture.inProcess(backend, true);
        MongoCollection<Document> c = mongo.client().getDatabase("capped").getCollection("outrun");
        try (var cursor = c.watch().batchSize(1).maxAwaitTime(50, TimeUnit.MILLISECONDS).cursor()) {
            c.insertOne(new Document("_id", 0));
            assertThat(take(cursor, 1)).hasSize(1);
            for (int i = 1; i <= 40; i++) {
                c.insertOne(new Document("_id", i).append("pad", "p".repeat(1000)));
            }
            assertThatThrownBy(() -> take(cursor, 40)).isInstanceOfSatisfying(MongoCommandException.class,
                    e -> assertThat(e.getErrorCode()).isEqualTo(286));
        }
    }
}
