package dev.tideline.standin;

import static dev.tideline.standin.Streams.take;
import static dev.tideline.standin.Streams.types;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocument;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Item: pre- and post-images (https://www.mongodb.com/docs/manual/changeStreams/#change-streams-with-document-pre--and-post-images):
 * enabled per collection by {@code create} or {@code collMod} with {@code changeStreamPreAndPostImages: {enabled: true}},
 * returned with {@code fullDocumentBeforeChange} / {@code fullDocument} {@code whenAvailable} or {@code required}.
 */
class PreImagesTest {
    private MongoFixture mongo;
    private MongoClient client;
    private MongoDatabase db;

    @BeforeEach
    void start() {
        mongo = MongoFixture.inProcess(new AwaitingMemoryBackend(), true);
        client = mongo.client();
        db = client.getDatabase("images");
    }

    @AfterEach
    void stop() {
        mongo.close();
    }

    @Test
    void aCollectionCreatedWithImagesGivesUpdatesReplacesAndDeletesTheirPreImage() {
        db.createCollection("with", new CreateCollectionOptions()
                .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
        var c = db.getCollection("with");
        c.insertOne(new Document("_id", 1).append("tenant", "acme").append("v", 1));
        try (var stream = c.watch().fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE)
                .fullDocument(FullDocument.WHEN_AVAILABLE).cursor()) {
            c.updateOne(Filters.eq("_id", 1), Updates.set("v", 2));
            c.replaceOne(Filters.eq("_id", 1), new Document("_id", 1).append("tenant", "acme").append("v", 3));
            c.deleteOne(Filters.eq("_id", 1));
            c.insertOne(new Document("_id", 2));

            List<ChangeStreamDocument<Document>> events = take(stream, 4);
            assertThat(types(events)).containsExactly("update", "replace", "delete", "insert");
            assertThat(events.get(0).getFullDocumentBeforeChange()).isEqualTo(new Document("_id", 1).append("tenant", "acme").append("v", 1));
            assertThat(events.get(0).getFullDocument()).as("post-image").isEqualTo(new Document("_id", 1).append("tenant", "acme").append("v", 2));
            assertThat(events.get(1).getFullDocumentBeforeChange().getInteger("v")).isEqualTo(2);
            assertThat(events.get(2).getFullDocumentBeforeChange())
                    .as("the deleted document's tenant travels with the delete")
                    .isEqualTo(new Document("_id", 1).append("tenant", "acme").append("v", 3));
            assertThat(events.get(3).getFullDocumentBeforeChange()).isNull();
        }
    }

    @Test
    void collModEnablesImagesFromThenOnAndRequiredFailsWhereNoneWasRecorded() {
        var c = db.getCollection("later");
        c.insertOne(new Document("_id", 1).append("v", 0));
        c.updateOne(Filters.eq("_id", 1), Updates.set("v", 1)); // before images are enabled: none recorded
        Document enabled = db.runCommand(new Document("collMod", "later")
                .append("changeStreamPreAndPostImages", new Document("enabled", true)));
        assertThat(enabled.get("ok", Number.class).intValue()).isEqualTo(1);
        c.updateOne(Filters.eq("_id", 1), Updates.set("v", 2));

        var fromStart = c.watch().startAtOperationTime(new org.bson.BsonTimestamp(0))
                .fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE);
        try (var stream = fromStart.cursor()) {
            List<ChangeStreamDocument<Document>> events = take(stream, 3);
            assertThat(types(events)).containsExactly("insert", "update", "update");
            assertThat(events.get(1).getFullDocumentBeforeChange()).as("not recorded: whenAvailable gives null").isNull();
            assertThat(events.get(2).getFullDocumentBeforeChange()).isEqualTo(new Document("_id", 1).append("v", 1));
        }
        assertThatThrownBy(() -> take(c.watch().startAtOperationTime(new org.bson.BsonTimestamp(0))
                .fullDocumentBeforeChange(FullDocumentBeforeChange.REQUIRED).cursor(), 3))
                .isInstanceOfSatisfying(MongoCommandException.class, e -> {
                    assertThat(e.getErrorCode()).isEqualTo(47);
                    assertThat(e.getErrorCodeName()).isEqualTo("NoMatchingDocument");
                });

        @SuppressWarnings("unchecked")
        List<Document> listed = (List<Document>) ((Document) db.runCommand(new Document("listCollections", 1)
                .append("filter", new Document("name", "later"))).get("cursor")).get("firstBatch");
        assertThat(listed.get(0).get("options", Document.class).get("changeStreamPreAndPostImages"))
                .isEqualTo(new Document("enabled", true));
    }

    /** The event a stream resumes after is dropped before its images are added: a required one missing there is no error. */
    @Test
    void aStreamResumedAfterAnEventMissingItsRequiredImagesGoesOn() {
        var c = db.getCollection("resumed");
        c.insertOne(new Document("_id", 1).append("v", 0));
        org.bson.BsonDocument updateToken;
        try (var stream = c.watch().startAtOperationTime(new org.bson.BsonTimestamp(0)).cursor()) {
            c.updateOne(Filters.eq("_id", 1), Updates.set("v", 1)); // no images recorded: none enabled
            c.insertOne(new Document("_id", 2));
            List<ChangeStreamDocument<Document>> events = take(stream, 3);
            assertThat(types(events)).containsExactly("insert", "update", "insert");
            updateToken = events.get(1).getResumeToken();
            assertThatThrownBy(() -> take(c.watch().resumeAfter(events.get(0).getResumeToken())
                    .fullDocument(FullDocument.REQUIRED).cursor(), 1))
                    .as("resumed before the update: its post-image is required")
                    .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(47));
        }
        try (var stream = c.watch().resumeAfter(updateToken).fullDocument(FullDocument.REQUIRED)
                .fullDocumentBeforeChange(FullDocumentBeforeChange.REQUIRED).cursor()) {
            List<ChangeStreamDocument<Document>> events = take(stream, 1);
            assertThat(types(events)).containsExactly("insert");
            assertThat(events.get(0).getDocumentKey().getInt32("_id").getValue()).isEqualTo(2);
        }
    }

    @Test
    void withoutImagesEnabledWhenAvailableIsNullAndModifyIsAnExpandedEvent() {
        var c = db.getCollection("without");
        c.insertOne(new Document("_id", 1).append("v", 0));
        try (var stream = db.watch().showExpandedEvents(true).fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE).cursor()) {
            c.deleteOne(Filters.eq("_id", 1));
            db.runCommand(new Document("collMod", "without").append("changeStreamPreAndPostImages", new Document("enabled", true)));
            List<ChangeStreamDocument<Document>> events = take(stream, 2);
            assertThat(types(events)).containsExactly("delete", "modify");
            assertThat(events.get(0).getFullDocumentBeforeChange()).isNull();
            Map<String, Object> description = events.get(1).getExtraElements() == null ? Map.of()
                    : events.get(1).getExtraElements().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
            assertThat(description).containsKey("operationDescription");
        }
        assertThatThrownBy(() -> db.runCommand(new Document("collMod", "absent")
                .append("changeStreamPreAndPostImages", new Document("enabled", true))))
                .isInstanceOfSatisfying(MongoCommandException.class, e -> assertThat(e.getErrorCode()).isEqualTo(26));
    }
}
