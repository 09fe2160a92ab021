package dev.tideline.standin;

import static dev.tideline.standin.Streams.take;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: events over the server's size limit (MongoDB: 16 MiB; lowered here to 64 KiB so that small documents
 * make large events) answer BSONObjectTooLarge (10334), or are split into fragments by
 * {@code $changeStreamSplitLargeEvent}
 * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/changeStreamSplitLargeEvent/);
 * a server without that stage answers 40324.
 */
class LargeEventsTest {
    private static final int LIMIT = 64 * 1024;
    private static final List<Document> SPLIT = List.of(new Document("$changeStreamSplitLargeEvent", new Document()));
    private AwaitingMemoryBackend backend;
    private MongoFixture mongo;
    private MongoCollection<Document> c;

    @BeforeEach
    void start() {
        backend = new AwaitingMemoryBackend().maxEventBytes(LIMIT);
        mongo = MongoFixture.inProcess(backend, true);
        c = mongo.client().getDatabase("large").getCollection("docs");
        c.insertOne(new Document("_id", "small"));
        // a large document (under the limit alone), then an update whose event carries it twice: over the limit
        c.insertOne(new Document("_id", "big").append("a", "x".repeat(40_000)).append("b", "y".repeat(20_000)));
        c.updateOne(Filters.eq("_id", "big"), Updates.set("a", "z".repeat(40_000)));
        c.insertOne(new Document("_id", "after"));
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    private com.mongodb.client.ChangeStreamIterable<Document> fromStart(List<Document> pipeline) {
        return c.watch(pipeline).startAtOperationTime(new BsonTimestamp(0)).fullDocument(FullDocument.UPDATE_LOOKUP);
    }

    @Test
    void anEventOverTheLimitAnswersBsonObjectTooLargeAtThatEvent() {
        try (var cursor = fromStart(List.of()).batchSize(1).cursor()) {
            assertThat(take(cursor, 2)).extracting(e -> e.getDocumentKey().getString("_id").getValue())
                    .containsExactly("small", "big");
            assertThatThrownBy(cursor::tryNext).isInstanceOfSatisfying(MongoCommandException.class, e -> {
                assertThat(e.getErrorCode()).isEqualTo(10334);
                assertThat(e.getErrorCodeName()).isEqualTo("BSONObjectTooLarge");
            });
        }
        // without updateLookup the update event is small: the same history reads through
        try (var cursor = c.watch().startAtOperationTime(new BsonTimestamp(0)).cursor()) {
            assertThat(take(cursor, 4)).extracting(ChangeStreamDocument::getOperationTypeString)
                    .containsExactly("insert", "insert", "update", "insert");
        }
    }

    @Test
    void theSplitStageReturnsFragmentsThatReassembleTheEventEachWithItsToken() {
        List<RawBsonDocument> fragments;
        try (var cursor = fromStart(SPLIT).withDocumentClass(RawBsonDocument.class).cursor()) {
            List<RawBsonDocument> all = new java.util.ArrayList<>();
            long deadline = System.currentTimeMillis() + 20_000;
            while (System.currentTimeMillis() < deadline && (all.isEmpty() || !isAfter(all.get(all.size() - 1)))) {
                RawBsonDocument d = cursor.tryNext();
                if (d != null) {
                    all.add(d);
                }
            }
            assertThat(all).hasSizeGreaterThanOrEqualTo(4);
            fragments = all.stream().filter(d -> d.containsKey("splitEvent")).toList();
            assertThat(isAfter(all.get(all.size() - 1))).isTrue();
        }
        assertThat(fragments).hasSizeGreaterThanOrEqualTo(2);
        BsonDocument whole = new BsonDocument();
        String previousToken = "";
        for (int i = 0; i < fragments.size(); i++) {
            RawBsonDocument f = fragments.get(i);
            assertThat(f.getDocument("splitEvent")).isEqualTo(BsonDocument.parse("{fragment: " + (i + 1) + ", of: " + fragments.size() + "}"));
            assertThat(f.getByteBuffer().remaining()).as("each fragment within the limit").isLessThanOrEqualTo(LIMIT);
            String token = f.getDocument("_id").getString("_data").getValue();
            assertThat(token).isGreaterThan(previousToken);
            previousToken = token;
            f.forEach((k, v) -> {
                if (!k.equals("_id") && !k.equals("splitEvent")) {
                    whole.put(k, v);
                }
            });
        }
        assertThat(whole.getString("operationType").getValue()).isEqualTo("update");
        assertThat(whole.getDocument("fullDocument").getString("a").getValue()).hasSize(40_000).startsWith("z");
        assertThat(whole.getDocument("updateDescription").getDocument("updatedFields").getString("a").getValue()).hasSize(40_000);

        // resuming from a fragment's token gives the fragments after it, then the next event
        BsonDocument firstFragment = fragments.get(0).getDocument("_id");
        try (var cursor = c.watch(SPLIT).resumeAfter(firstFragment).fullDocument(FullDocument.UPDATE_LOOKUP)
                .withDocumentClass(RawBsonDocument.class).cursor()) {
            RawBsonDocument next = cursor.tryNext();
            while (next == null) {
                next = cursor.tryNext();
            }
            assertThat(next.getDocument("splitEvent").getInt32("fragment").getValue()).isEqualTo(2);
        }
        assertThatThrownBy(() -> c.watch().resumeAfter(firstFragment).cursor().tryNext())
                .as("a fragment's token without the split stage")
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(280));
    }

    /**
     * MongoDB checks the resume point before it looks up the post-image and measures the event
     * (https://www.mongodb.com/docs/manual/changeStreams/#resume-a-change-stream: the stream resumes after the
     * token's event), so a reader that skipped an event too large to send reopens after it and goes on.
     */
    @Test
    void aStreamResumedAfterAnEventTooLargeToSendGoesOnWithTheNextOne() {
        backend.splitLargeEventStage(false);
        BsonDocument bigInsert;
        BsonDocument bigUpdate;
        try (var cursor = c.watch().startAtOperationTime(new BsonTimestamp(0)).cursor()) {
            List<ChangeStreamDocument<Document>> events = take(cursor, 3); // without updateLookup the update is small
            assertThat(Streams.types(events)).containsExactly("insert", "insert", "update");
            bigInsert = events.get(1).getResumeToken();
            bigUpdate = events.get(2).getResumeToken();
        }
        assertThatThrownBy(() -> take(c.watch().resumeAfter(bigInsert).fullDocument(FullDocument.UPDATE_LOOKUP).cursor(), 1))
                .as("resumed before the large event: it is still measured")
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(10334));

        try (var cursor = c.watch().resumeAfter(bigUpdate).fullDocument(FullDocument.UPDATE_LOOKUP).cursor()) {
            assertThat(take(cursor, 1)).extracting(e -> e.getDocumentKey().getString("_id").getValue()).containsExactly("after");
        }
        try (var cursor = c.watch().startAfter(bigUpdate).fullDocument(FullDocument.UPDATE_LOOKUP).cursor()) {
            assertThat(take(cursor, 1)).extracting(e -> e.getDocumentKey().getString("_id").getValue()).containsExactly("after");
        }
        try (var cursor = mongo.client().getDatabase("large").watch().startAfter(bigUpdate)
                .fullDocument(FullDocument.UPDATE_LOOKUP).cursor()) {
            assertThat(take(cursor, 1)).as("a database stream, as the source reads")
                    .extracting(e -> e.getDocumentKey().getString("_id").getValue()).containsExactly("after");
        }
    }

    private static boolean isAfter(RawBsonDocument event) {
        return event.containsKey("documentKey") && "after".equals(event.getDocument("documentKey").getString("_id").getValue());
    }

    @Test
    void theSplitStageMustBeLastAndAServerWithoutItRefusesIt() {
        assertThatThrownBy(() -> c.watch(List.of(new Document("$changeStreamSplitLargeEvent", new Document()),
                new Document("$match", new Document()))).cursor())
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(7182802));
        backend.splitLargeEventStage(false);
        assertThatThrownBy(() -> c.watch(SPLIT).cursor())
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(40324));
    }

    /**
     * MongoDB's split helper refuses a fragment that one field alone makes too large with its own code, 7182500
     * ({@code splitChangeEvent}, src/mongo/db/pipeline/change_stream_split_event_helpers.cpp), not 10334.
     */
    @Test
    void aSingleFieldOverTheLimitCannotBeSplit() {
        c.insertOne(new Document("_id", "huge").append("a", "h".repeat(LIMIT)));
        assertThatThrownBy(() -> take(c.watch(SPLIT).startAtOperationTime(new BsonTimestamp(0)).cursor(), 10))
                .isInstanceOfSatisfying(MongoCommandException.class, e -> {
                    assertThat(e.getErrorCode()).isEqualTo(7182500);
                    assertThat(e.getErrorCodeName()).isEqualTo("Location7182500");
                    assertThat(e.getErrorMessage()).contains("Splitting change event failed");
                });
    }

    /**
     * A stream resumed at a fragment's token splits the event again; when the looked-up document changed since,
     * the new split has fewer fragments and MongoDB answers ChangeStreamFatalError (280, "the resumed stream produced
     * a different split", DocumentSourceChangeStreamSplitLargeEvent::doGetNext in
     * src/mongo/db/pipeline/document_source_change_stream_split_large_event.cpp).
     */
    @Test
    void aResumeAtAFragmentWhoseDocumentChangedSinceAnswers280() {
        List<BsonDocument> tokens = new java.util.ArrayList<>();
        try (var cursor = fromStart(SPLIT).withDocumentClass(RawBsonDocument.class).cursor()) {
            long deadline = System.currentTimeMillis() + 20_000;
            while (System.currentTimeMillis() < deadline && tokens.size() < 2) {
                RawBsonDocument d = cursor.tryNext();
                if (d != null && d.containsKey("splitEvent")) {
                    tokens.add(d.getDocument("_id"));
                }
            }
        }
        assertThat(tokens).hasSize(2);
        BsonDocument lastFragment = tokens.get(1);
        try (var cursor = c.watch(SPLIT).resumeAfter(lastFragment).fullDocument(FullDocument.UPDATE_LOOKUP).cursor()) {
            assertThat(take(cursor, 1)).as("the same split: the stream goes on after the event")
                    .extracting(e -> e.getDocumentKey().getString("_id").getValue()).containsExactly("after");
        }
        c.updateOne(Filters.eq("_id", "big"), Updates.combine(Updates.unset("a"), Updates.unset("b"))); // the lookup is small now
        assertThatThrownBy(() -> take(c.watch(SPLIT).resumeAfter(lastFragment).fullDocument(FullDocument.UPDATE_LOOKUP).cursor(), 1))
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(280));
    }
}
