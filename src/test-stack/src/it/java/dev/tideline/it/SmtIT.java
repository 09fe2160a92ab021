package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.Namespace;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Kafka's standard SMTs on the source's json form, on the real worker: Filter with TopicNameMatches
 * drops a collection, RegexRouter with a negated HasHeaderKey(tl.op) predicate sets heartbeat and
 * control records aside (only changes carry tl.op), RegexRouter renames change topics, InsertField
 * and ReplaceField change the envelope; the sink still applies what comes out.
 */
class SmtIT {
    private static final String DB = "smt_a";

    @Test
    void standardTransformsAndPredicatesWorkOnTheJsonFormAndTheSinkAppliesTheResult() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        ObjectMapper json = new ObjectMapper();
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withoutOplog()) {
            MongoCollection<Document> orders = source.client().getDatabase(DB).getCollection("orders");
            MongoCollection<Document> notes = source.client().getDatabase(DB).getCollection("notes");
            orders.insertOne(new Document("_id", 0).append("total", 0L));
            notes.insertOne(new Document("_id", 0).append("text", "seed"));
            stack.createTopic("smt-routed-orders", 1);

            Map<String, String> src = SourceItSupport.sourceConfig(source.uri(), DB, "smt", ValueFormat.JSON, 1);
            src.put("heartbeat.interval.ms", "1000");
            src.put("transforms", "dropNotes,noticesAside,route,tag,rename");
            src.put("predicates", "isNotes,notChange,isRouted");
            src.put("predicates.isNotes.type", "org.apache.kafka.connect.transforms.predicates.TopicNameMatches");
            src.put("predicates.isNotes.pattern", "smt\\.smt_a\\.notes");
            src.put("predicates.notChange.type", "org.apache.kafka.connect.transforms.predicates.HasHeaderKey");
            src.put("predicates.notChange.name", EventHeaders.OP);
            src.put("predicates.isRouted.type", "org.apache.kafka.connect.transforms.predicates.TopicNameMatches");
            src.put("predicates.isRouted.pattern", "smt-routed-.*");
            src.put("transforms.dropNotes.type", "org.apache.kafka.connect.transforms.Filter");
            src.put("transforms.dropNotes.predicate", "isNotes");
            src.put("transforms.noticesAside.type", "org.apache.kafka.connect.transforms.RegexRouter");
            src.put("transforms.noticesAside.regex", ".*");
            src.put("transforms.noticesAside.replacement", "smt-notices");
            src.put("transforms.noticesAside.predicate", "notChange");
            src.put("transforms.noticesAside.negate", "true");
            src.put("transforms.route.type", "org.apache.kafka.connect.transforms.RegexRouter");
            src.put("transforms.route.regex", "smt\\.smt_a\\.(.*)");
            src.put("transforms.route.replacement", "smt-routed-$1");
            src.put("transforms.tag.type", "org.apache.kafka.connect.transforms.InsertField$Value");
            src.put("transforms.tag.static.field", "pipeline");
            src.put("transforms.tag.static.value", "smt-it");
            src.put("transforms.tag.predicate", "isRouted");
            src.put("transforms.rename.type", "org.apache.kafka.connect.transforms.ReplaceField$Value");
            src.put("transforms.rename.renames", "wallTime:capturedAt");
            src.put("transforms.rename.predicate", "isRouted");
            Map<String, String> sink = SinkItSupport.sinkConfig("smt-routed-orders", dest.uri(), "smt_dest", ValueFormat.JSON);
            try {
                rest.putConnector("smt-src", src);
                rest.putConnector("smt-sink", sink);
                rest.awaitRunning("smt-src", 1, Duration.ofSeconds(90));
                rest.awaitRunning("smt-sink", 1, Duration.ofSeconds(90));
                TopicReader.readUntil(stack.bootstrapServers(), "smt-routed-orders", 1, Duration.ofSeconds(60));
                for (int i = 1; i <= 20; i++) {
                    orders.insertOne(new Document("_id", i).append("total", (long) i * 100).append("tenant", "t" + i % 2));
                    notes.insertOne(new Document("_id", i).append("text", "note " + i));
                }
                for (int i = 1; i <= 5; i++) {
                    orders.updateOne(Filters.eq("_id", i), Updates.set("total", -1L));
                    orders.deleteOne(Filters.eq("_id", 20 - i));
                }
                Namespace src0 = new Namespace(DB, "orders");
                Namespace dst = new Namespace("smt_dest", "orders");
                await("the transformed topic applied by the sink", Duration.ofSeconds(120),
                        () -> ConverterIT.differences(source.client(), src0, dest.client(), dst, false).isEmpty());

                List<ConsumerRecord<byte[], byte[]>> routed = TopicReader.readAll(stack.bootstrapServers(), "smt-routed-orders", Duration.ofSeconds(2));
                // 1 seed + 20 inserts + 5 updates + 5 deletes (the seed may be replayed by the stream's start margin)
                assertThat(routed.size()).isBetween(31, 32);
                for (ConsumerRecord<byte[], byte[]> r : routed) {
                    JsonNode value = json.readTree(r.value());
                    assertThat(value.get("pipeline").asText()).isEqualTo("smt-it");
                    assertThat(value.has("capturedAt")).isTrue();
                    assertThat(value.has("wallTime")).isFalse();
                    assertThat(SourceItSupport.header(r, EventHeaders.KIND)).isEqualTo(EventHeaders.KIND_CHANGE);
                }
                List<ConsumerRecord<byte[], byte[]>> notices = TopicReader.readUntil(stack.bootstrapServers(), "smt-notices", 1,
                        Duration.ofSeconds(30));
                assertThat(notices).allSatisfy(r -> assertThat(SourceItSupport.header(r, EventHeaders.KIND))
                        .isIn(EventHeaders.KIND_HEARTBEAT, EventHeaders.KIND_CONTROL));
                assertThat(notices).allSatisfy(r -> assertThat(SourceItSupport.header(r, EventHeaders.OP)).isNull());
                assertThat(TopicReader.readAll(stack.bootstrapServers(), "smt.heartbeats", Duration.ofSeconds(2))).isEmpty();
                assertThat(TopicReader.readAll(stack.bootstrapServers(), "smt.smt_a.notes", Duration.ofSeconds(2))).isEmpty();
                assertThat(TopicReader.readAll(stack.bootstrapServers(), "smt-routed-notes", Duration.ofSeconds(2))).isEmpty();
                System.out.printf("SmtIT: %d transformed change records applied, %d notices set aside by header, notes filtered%n",
                        routed.size(), notices.size());
            } finally {
                rest.deleteConnector("smt-src");
                rest.deleteConnector("smt-sink");
            }
        }
    }
}
