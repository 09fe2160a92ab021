package dev.tideline.standin;

import static dev.tideline.standin.Streams.take;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: the backend counts the oplog entries change-stream reads examine, and a read examines what a
 * MongoDB oplog scan would: each entry from the stream's position on, once, whatever it matches.
 */
class OplogEntriesExaminedTest {
    private AwaitingMemoryBackend backend;
    private MongoFixture mongo;

    @BeforeEach
    void start() {
        backend = new AwaitingMemoryBackend();
        mongo = MongoFixture.inProcess(backend, true);
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    @Test
    void eachStreamExaminesEachEntryAfterItsPositionOnce() {
        MongoDatabase db = mongo.client().getDatabase("examined");
        int collections = 10;
        List<com.mongodb.client.MongoChangeStreamCursor<com.mongodb.client.model.changestream.ChangeStreamDocument<Document>>> perCollection =
                new ArrayList<>();
        for (int i = 0; i < collections; i++) {
            perCollection.add(db.getCollection("c" + i).watch().maxAwaitTime(20, TimeUnit.MILLISECONDS).cursor());
        }
        var oneForAll = db.watch().maxAwaitTime(20, TimeUnit.MILLISECONDS).cursor();
        long before = backend.oplogEntriesExamined();
        int writes = 0;
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < collections; i++) {
                db.getCollection("c" + i).insertOne(new Document("_id", round));
                writes++;
            }
        }
        for (var cursor : perCollection) {
            assertThat(take(cursor, 5)).hasSize(5);
            cursor.tryNext(); // reads past the end: nothing is examined twice
        }
        assertThat(take(oneForAll, writes)).hasSize(writes);
        oneForAll.tryNext();

        long examined = backend.oplogEntriesExamined() - before;
        // the implicit create of each collection is an oplog entry too
        long entries = writes + collections;
        System.out.printf("EXAMINED %d writes, %d streams on one collection each + 1 database stream: %d entries examined, %.1f per write%n",
                writes, collections, examined, examined / (double) writes);
        assertThat(examined).isEqualTo(entries * (collections + 1));
        perCollection.forEach(com.mongodb.client.MongoChangeStreamCursor::close);
        oneForAll.close();
    }
}
