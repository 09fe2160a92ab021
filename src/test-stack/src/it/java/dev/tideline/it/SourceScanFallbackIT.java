package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/** On a server without change streams, mode=auto falls back to the date scan: inserts, updates and delete markers. */
class SourceScanFallbackIT {

    @Test
    void autoModeFallsBackToTheScanAndCapturesInsertsUpdatesAndDeleteMarkers() {
        TestStack stack = TestStack.shared();
        try (MongoFixture mongo = MongoFixture.withoutOplog()) {
            assertThat(mongo.servesChangeStreams()).isFalse();
            String db = "scan_it";
            MongoDatabase database = mongo.client().getDatabase(db);
            MongoCollection<Document> items = database.getCollection("items");
            long t = System.currentTimeMillis() - 60_000;
            for (int i = 1; i <= 10; i++) {
                items.insertOne(new Document("_id", i).append("v", 0).append("updatedAt", new Date(t + i)));
            }
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), db, "scanit", ValueFormat.BSON, 1);
            config.put("scan.interval.ms", "200");
            String topic = "scanit." + db + ".items";
            stack.rest().putConnector("source-scan-it", config);
            try {
                stack.rest().awaitRunning("source-scan-it", 1, Duration.ofSeconds(60));
                TopicReader.readUntil(stack.bootstrapServers(), topic, 10, Duration.ofSeconds(60));
                long now = System.currentTimeMillis();
                for (int i = 11; i <= 15; i++) {
                    items.insertOne(new Document("_id", i).append("v", 0).append("updatedAt", new Date(now + i)));
                }
                items.updateOne(Filters.eq("_id", 3), Updates.combine(Updates.set("v", 1), Updates.set("updatedAt", new Date(now + 100))));
                items.deleteOne(Filters.eq("_id", 5));
                database.getCollection("_tideline_deletes").insertOne(new Document("coll", "items").append("docId", 5)
                        .append("deletedAt", new Date(now + 200)));

                List<ConsumerRecord<byte[], byte[]>> records = TopicReader.readUntil(stack.bootstrapServers(), topic, 17, Duration.ofSeconds(60));
                List<ChangeEvent> events = SourceItSupport.changes(records, true);
                System.out.printf("scan fallback: %d records on %s%n", events.size(), topic);
                assertThat(events).hasSize(17);
                assertThat(events.subList(0, 15)).allSatisfy(e -> assertThat(e.op()).isEqualTo(Op.READ));
                assertThat(events.subList(0, 15)).extracting(e -> e.id().asInt32().getValue())
                        .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
                ChangeEvent update = events.get(15);
                assertThat(update.id().asInt32().getValue()).isEqualTo(3);
                assertThat(update.document().getInt32("v").getValue()).isEqualTo(1);
                ChangeEvent delete = events.get(16);
                assertThat(delete.op()).isEqualTo(Op.DELETE);
                assertThat(delete.id().asInt32().getValue()).isEqualTo(5);
            } finally {
                stack.rest().deleteConnector("source-scan-it");
            }
        }
    }
}
