package dev.tideline.source.stream;

import static dev.tideline.source.stream.DatabaseStreamTest.await;
import static dev.tideline.source.stream.DatabaseStreamTest.ids;
import static dev.tideline.source.stream.DatabaseStreamTest.now;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Op;
import dev.tideline.source.capture.Captured;
import dev.tideline.standin.AwaitingMemoryBackend;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * A chunk migration on a sharded cluster writes {@code fromMigrate} oplog entries (the recipient's inserts, the
 * donor's deletes) that change no document. The source's change stream, opened without {@code showMigrationEvents}
 * as through mongos, never gets them, so nothing of a migration reaches a topic: no insert again, and above all no
 * delete of documents that are still there (docs/operations.md, "Sharded clusters").
 */
class ChunkMigrationStreamTest {
    private static final String DB = "migr";

    @Test
    void aMigrationDeliversNothingAndTheChangesAroundItArriveOnce() throws Exception {
        AwaitingMemoryBackend backend = new AwaitingMemoryBackend();
        try (RunningStream running = new RunningStream(backend, DB).start()) {
            MongoDatabase db = running.db;
            DatabaseStreamTest.Recorder out = running.out;
            running.stream.join(out.handle("a"), new BsonDocument(), now(running.mongo.client()), false);
            for (int i = 1; i <= 4; i++) {
                db.getCollection("a").insertOne(new Document("_id", i));
            }

            int moved = backend.migrateChunk(DB, "a", List.of(1, 2, 3));
            db.getCollection("a").updateOne(Filters.eq("_id", 4), Updates.set("v", 1));
            backend.migrateChunk(DB, "a", List.of(4));
            db.getCollection("a").insertOne(new Document("_id", 5));
            await("the insert after the migrations", () -> ids(out.changes("a"), c -> true).contains(5));

            assertThat(moved).isEqualTo(3);
            List<Captured.Change> changes = out.changes("a");
            assertThat(ids(changes, c -> true)).as("the application's changes, each once").containsExactly(1, 2, 3, 4, 4, 5);
            assertThat(changes).extracting(c -> c.event().op())
                    .containsExactly(Op.INSERT, Op.INSERT, Op.INSERT, Op.INSERT, Op.UPDATE, Op.INSERT);
            assertThat(db.getCollection("a").countDocuments()).as("a migration moves documents, it deletes none").isEqualTo(5);
            assertThat(out.lost).isEmpty();
            assertThat(out.recopies).isEmpty();
            assertThat(out.failures).isEmpty();
        }
    }
}
