package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.ValueFormat;
import dev.tideline.fanout.config.ResumeSettings;
import dev.tideline.it.fanout.FanoutFixture;
import dev.tideline.it.fanout.SseClient;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * End to end through the source: on a collection with pre-images enabled the source puts the tenant
 * on deletes (from {@code fullDocumentBeforeChange}), so the gateway delivers them to their tenant
 * with no memory of the document at all; on a collection without, such a delete is counted as
 * delete-without-tenant and not delivered.
 */
class FanoutPreImageIT {
    private static final String DB = "fanout_pre";
    private static final String PREFIX = "fpre";
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aDeleteOnACollectionWithPreImagesReachesItsTenantByItsHeader() throws Exception {
        TestStack stack = TestStack.shared();
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoDatabase db = mongo.client().getDatabase(DB);
            db.createCollection("orders", new CreateCollectionOptions()
                    .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
            MongoCollection<Document> orders = db.getCollection("orders");
            MongoCollection<Document> plain = db.getCollection("plain");
            orders.insertOne(new Document("_id", "seed").append("tenant", "seed"));
            plain.insertOne(new Document("_id", "seed").append("tenant", "seed"));
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), DB, PREFIX, ValueFormat.JSON, 1);
            config.put("tenant.field", "tenant");
            stack.rest().putConnector("fanout-preimage-it", config);
            // no memory of documents: a delete can only reach its tenant through the header
            try (FanoutFixture fx = FanoutFixture.start(stack.bootstrapServers(), PREFIX, Map.of(ResumeSettings.MEMORY_ENTRIES, "0"))) {
                stack.rest().awaitRunning("fanout-preimage-it", 1, WAIT);
                TopicReader.readUntil(stack.bootstrapServers(), PREFIX + "." + DB + ".orders", 1, WAIT);
                TopicReader.readUntil(stack.bootstrapServers(), PREFIX + "." + DB + ".plain", 1, WAIT);
                String token = fx.token("acme", DB + ".*.acme");
                SseClient client = fx.subscribe(token, DB + ".orders.acme", DB + ".plain.acme");
                orders.insertOne(new Document("_id", 1).append("tenant", "acme").append("n", 1));
                plain.insertOne(new Document("_id", 1).append("tenant", "acme").append("n", 1));
                client.await("change", 2, WAIT);
                orders.deleteOne(new Document("_id", 1));
                plain.deleteOne(new Document("_id", 1));
                orders.insertOne(new Document("_id", 2).append("tenant", "acme").append("n", 2)); // a marker after both deletes
                List<SseClient.Event> got = client.await("change", 4, WAIT);
                fx.awaitPublished(2 + 2 + 2, WAIT);
                List<ConsumerRecord<byte[], byte[]>> records = TopicReader.readUntil(stack.bootstrapServers(),
                        PREFIX + "." + DB + ".orders", rs -> rs.stream().anyMatch(r -> "delete".equals(header(r, EventHeaders.OP))), "the delete record", WAIT);
                ConsumerRecord<byte[], byte[]> delete = records.stream().filter(r -> "delete".equals(header(r, EventHeaders.OP)))
                        .findFirst().orElseThrow();
                String deleteTenant = header(delete, EventHeaders.TENANT);
                System.out.printf("fanout pre-images: the source's delete record carries %s=%s; delivered to acme: %s; skipped %s%n",
                        EventHeaders.TENANT, deleteTenant, got.stream().map(e -> e.json().getString("channel").getValue() + ":"
                                + e.json().getDocument("change").getString("op").getValue()).toList(),
                        fx.gateway().stats().skippedByReason());
                assertThat(deleteTenant).isEqualTo("acme");
                assertThat(got.get(2).json().getString("channel").getValue()).isEqualTo(DB + ".orders.acme");
                assertThat(got.get(2).json().getDocument("change").getString("op").getValue()).isEqualTo("delete");
                assertThat(got.get(3).json().getDocument("change").get("id").asNumber().intValue()).isEqualTo(2);
                assertThat(fx.gateway().stats().skippedCount("delete-without-tenant")).isEqualTo(1);
                client.close();
            } finally {
                stack.rest().deleteConnector("fanout-preimage-it");
            }
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
