package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import dev.tideline.standin.MongoFixture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/** The Mongo fixtures: change streams where promised, and MongoDB's awaitData wait on empty getMores. */
class MongoFixtureIT {

    @Test
    void withOplogServesChangeStreamsAndWithoutOplogDoesNot() {
        try (MongoFixture with = MongoFixture.withOplog(); MongoFixture without = MongoFixture.withoutOplog()) {
            assertThat(with.uri()).startsWith("mongodb://");
            assertThat(with.servesChangeStreams()).isTrue();
            assertThat(without.servesChangeStreams()).isFalse();
        }
    }

    @Test
    void emptyGetMoreWaitsForMaxAwaitTime() {
        try (MongoFixture mongo = MongoFixture.withOplog();
             MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = collection(mongo).watch()
                     .maxAwaitTime(600, TimeUnit.MILLISECONDS).cursor()) {
            // The aggregate's first batch is empty, so tryNext() sends one getMore.
            long took = timeMillis(cursor::tryNext);

            System.out.println("empty getMore with maxAwaitTimeMS=600 took " + took + " ms");
            assertThat(took).isBetween(500L, 3000L);
        }
    }

    @Test
    void withoutMaxAwaitTimeAnEmptyGetMoreWaitsOneSecondLikeMongoDB() {
        try (MongoFixture mongo = MongoFixture.withOplog();
             MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = collection(mongo).watch().cursor()) {
            long took = timeMillis(cursor::tryNext);

            assertThat(took).isBetween(900L, 3000L);
        }
    }

    @Test
    void waitingGetMoreReturnsAsSoonAsAChangeIsWritten() throws Exception {
        try (MongoFixture mongo = MongoFixture.withOplog();
             MongoChangeStreamCursor<ChangeStreamDocument<Document>> cursor = collection(mongo).watch()
                     .maxAwaitTime(10, TimeUnit.SECONDS).cursor()) {
            // written 300 ms after the getMore went out: the change must wake a getMore that is already waiting
            CompletableFuture<Void> insert = CompletableFuture.runAsync(() -> collection(mongo).insertOne(new Document("_id", 1)),
                    CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));

            long started = System.nanoTime();
            ChangeStreamDocument<Document> event = cursor.tryNext();
            long took = Duration.ofNanos(System.nanoTime() - started).toMillis();

            insert.get(5, TimeUnit.SECONDS);
            System.out.println("getMore woken by an insert after " + took + " ms");
            assertThat(event).isNotNull();
            assertThat(took).isLessThan(5000L);
        }
    }

    private static MongoCollection<Document> collection(MongoFixture mongo) {
        return mongo.client().getDatabase("fixture_it").getCollection("events");
    }

    private static long timeMillis(Runnable action) {
        long started = System.nanoTime();
        action.run();
        return Duration.ofNanos(System.nanoTime() - started).toMillis();
    }
}
