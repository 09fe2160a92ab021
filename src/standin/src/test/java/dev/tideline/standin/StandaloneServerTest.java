package dev.tideline.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Item: a stand-in without oplog answers {@code $changeStream} as a standalone mongod does: 40573, "The
 * $changeStream stage is only supported on replica sets".
 */
class StandaloneServerTest {

    @Test
    void aServerWithoutOplogRefusesChangeStreamsWith40573() {
        try (MongoFixture mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), false)) {
            var c = mongo.client().getDatabase("standalone").getCollection("c");
            c.insertOne(new Document("_id", 1));
            for (Runnable watch : new Runnable[] {
                    () -> c.watch().cursor().tryNext(),
                    () -> mongo.client().getDatabase("standalone").watch().cursor().tryNext(),
                    () -> mongo.client().watch().cursor().tryNext()}) {
                assertThatThrownBy(watch::run).isInstanceOfSatisfying(MongoCommandException.class, e -> {
                    assertThat(e.getErrorCode()).isEqualTo(40573);
                    assertThat(e.getErrorMessage()).contains("only supported on replica sets");
                });
            }
            assertThat(c.countDocuments()).as("everything else works").isEqualTo(1);
        }
    }
}
