package dev.tideline.source.stream;

import static dev.tideline.source.stream.DatabaseStreamTest.await;
import static dev.tideline.source.stream.DatabaseStreamTest.ids;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.changestream.FullDocument;
import dev.tideline.event.Op;
import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.standin.AwaitingMemoryBackend;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * An offset an older version stored at a split event's last fragment's token, read back after the looked-up document
 * changed (where a resume at that token is answered 280, "the resumed stream produced a different split"): the source
 * resumes at the event's cluster time instead, drops the event it had delivered, and goes on with the next changes.
 */
class OlderFragmentPositionTest {
    private static final String DB = "frag";

    @Test
    void aFragmentsTokenFromAnOlderOffsetResumesAtItsEventsClusterTime() throws Exception {
        try (RunningStream running = new RunningStream(new AwaitingMemoryBackend().maxEventBytes(64 * 1024), DB)) {
            MongoDatabase db = running.db;
            DatabaseStreamTest.Recorder out = running.out;
            MongoCollection<Document> a = db.getCollection("a");
            a.insertOne(new Document("_id", 1));
            BsonTimestamp before = DatabaseStreamTest.now(running.mongo.client()).clusterTime();
            // the update's event (a 50 KB looked-up document and a 25 KB update description) is split in two
            String big = "x".repeat(25 * 1024);
            a.insertOne(new Document("_id", 2).append("big", big));
            a.updateOne(new Document("_id", 2), new Document("$set", new Document("more", big)));
            BsonDocument lastFragment = null;
            BsonTimestamp eventTime = null;
            try (com.mongodb.client.MongoCursor<BsonDocument> raw = a.watch(List.of(new Document("$changeStreamSplitLargeEvent", new Document())))
                    .fullDocument(FullDocument.UPDATE_LOOKUP).startAtOperationTime(before).withDocumentClass(BsonDocument.class).cursor()) {
                while (lastFragment == null) {
                    BsonDocument e = raw.next();
                    BsonDocument split = e.getDocument("splitEvent", null);
                    if (split != null && split.getInt32("fragment").getValue() == split.getInt32("of").getValue()) {
                        lastFragment = e.getDocument("_id");
                    }
                    if (split != null && split.getInt32("fragment").getValue() == 1) {
                        eventTime = e.getTimestamp("clusterTime");
                    }
                }
            }
            // the document changes: the event split again would differ, so MongoDB refuses to resume at that fragment
            a.updateOne(new Document("_id", 2), new Document("$unset", new Document("more", "").append("big", "")));
            a.insertOne(new Document("_id", 3));
            Map<String, Object> older = new HashMap<>();
            older.put("v", 2L);
            older.put("phase", "stream");
            older.put("token", lastFragment.toJson());
            older.put("ct", eventTime.getValue());

            running.start().stream.join(out.handle("a"), new BsonDocument(), SourceOffset.fromMap(older).streamPosition(), false);
            await("the changes after the split event", () -> ids(out.changes("a"), c -> true).contains(3));

            List<Captured.Change> changes = out.changes("a");
            assertThat(ids(changes, c -> true)).as("the split event not again, the changes after it once").containsExactly(2, 3);
            assertThat(changes.get(0).event().op()).isEqualTo(Op.UPDATE);
            assertThat(changes.get(0).event().document()).as("the later update's document").doesNotContainKey("big");
            assertThat(out.lost).isEmpty();
            assertThat(out.parked).isEmpty();
            assertThat(out.recopies).isEmpty();
            assertThat(out.failures).isEmpty();
        }
    }
}
