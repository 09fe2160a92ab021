package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoNamespace;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.RenameCollectionOptions;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import dev.tideline.health.SourceTaskMetrics;
import dev.tideline.health.TaskIdentity;
import dev.tideline.mongo.BsonOrder;
import dev.tideline.mongo.MongoConnectionSettings;
import dev.tideline.source.capture.CopyPlan;
import dev.tideline.source.capture.RepairProgress;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.StreamPosition;
import dev.tideline.source.config.SourceConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A collection copied again because a rename replaced its documents, on the stand-in: the copy reads what the
 * rename left (its reads wait for a cluster time the server has reached: MongoDB refuses a later one with 72),
 * and its stream starts after the rename, so the position it leaves covers the rename.
 */
class CollectionCopiesTest {
    private static final String DB = "cc";

    private final InProcessMongo mongo = new InProcessMongo();
    private final SourceTaskMetrics metrics = new SourceTaskMetrics(new TaskIdentity("collection-copies-test", 0));
    private final RecordQueue queue = new RecordQueue(100);
    private final CompletableFuture<BsonTimestamp> copied = new CompletableFuture<>();
    private CollectionCopies copies;

    @AfterEach
    void close() throws InterruptedException {
        if (copies != null) {
            copies.close();
            copies.awaitTermination(5_000);
        }
        metrics.close();
        mongo.close();
    }

    private CollectionCopies copies() {
        SourceConfig config = new SourceConfig(Map.of(MongoConnectionSettings.URI, "mongodb://127.0.0.1:1/?replicaSet=rs0"));
        CollectionCopies.Owner owner = new CollectionCopies.Owner() {
            @Override
            public void copied(CollectionCapture c, BsonTimestamp streamStart) {
                copied.complete(streamStart);
            }

            @Override
            public void split(CollectionCapture c, CopyPlan plan) {
                copied.completeExceptionally(new AssertionError("not split: one task"));
            }

            @Override
            public void park(CollectionCapture c, String reason) {
                copied.completeExceptionally(new AssertionError("parked: " + reason));
            }

            @Override
            public void fail(ConnectException e) {
                copied.completeExceptionally(e);
            }
        };
        return new CollectionCopies(mongo.client, config, new Publisher(queue), new TaskThreads("collection-copies-test"), owner, 1);
    }

    private CollectionCapture capture(Namespace ns) {
        RecordFactory records = new RecordFactory(ns, "t." + ns.fullName(), "t.heartbeats", "t.control", ValueFormat.BSON, "", false, "p");
        return new CollectionCapture(ns, records, new RecordState(RepairProgress.NONE),
                new CaptureMetrics(metrics.collection(ns.fullName(), ns.db())), new BsonDocument(), null,
                null); // no wiring: this capture is only copied and published
    }

    @Test
    void aCopyAfterARenameOntoTheCollectionReadsWhatItLeftAndStandsAfterIt() throws Exception {
        MongoDatabase db = mongo.db(DB);
        db.getCollection("orders").insertMany(List.of(new Document("_id", "o1"), new Document("_id", "o2")));
        db.getCollection("staging").insertMany(List.of(new Document("_id", "s1"), new Document("_id", "s2"), new Document("_id", "s3")));
        StreamPosition rename;
        try (MongoChangeStreamCursor<ChangeStreamDocument<Document>> events = db.watch().cursor()) {
            db.getCollection("staging").renameCollection(new MongoNamespace(DB, "orders"), new RenameCollectionOptions().dropTarget(true));
            ChangeStreamDocument<Document> event = events.next();
            assertThat(event.getOperationTypeString()).isEqualTo("rename");
            rename = StreamPosition.afterToken(event.getResumeToken(), event.getClusterTime());
        }

        Namespace orders = new Namespace(DB, "orders");
        CollectionCapture capture = capture(orders);
        copies = copies();
        copies.submitReplaced(capture, rename.clusterTime());
        BsonTimestamp streamStart = copied.get(30, TimeUnit.SECONDS);

        SourceOffset streaming = SourceOffset.streamAfterCopy(streamStart);
        assertThat(streaming.streamPosition().covers(rename))
                .as("the copy's stream start %s is after the rename at %s: a stream rewound before the rename reads it as "
                        + "known (the server clock less its margin is before it)", streamStart, rename.clusterTime())
                .isTrue();
        Set<BsonValue> copiedIds = new TreeSet<>(BsonOrder.COMPARATOR);
        List<SourceRecord> batch;
        while ((batch = queue.poll(100, 1_000)) != null) {
            batch.stream().map(r -> SourceOffset.fromMap(r.sourceOffset()))
                    .filter(o -> o.phase() == SourceOffset.Phase.BACKFILL && o.lastId() != null).forEach(o -> copiedIds.add(o.lastId()));
        }
        assertThat(copiedIds).as("the documents the rename left, copied").containsExactly(new BsonString("s1"), new BsonString("s2"),
                new BsonString("s3"));
        assertThat(capture.position()).as("the capture's position once copied").isEqualTo(streaming);
    }
}
