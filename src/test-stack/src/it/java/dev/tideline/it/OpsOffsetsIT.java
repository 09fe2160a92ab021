package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoDatabase;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.ops.JmxReader;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.capture.SourcePartition;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.bson.BsonDateTime;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * The operator recipes of docs/operations.md through the real REST API (connector STOPPED, then
 * PATCH /connectors/{name}/offsets, then resume): reset one collection (copied again), stream a
 * collection from an operation time, scan a collection from a date, and a malformed hand-edited
 * offset refused with a message naming the key. Offsets are built by {@link SourceOffset}: no key
 * is spelled here.
 */
class OpsOffsetsIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void resetOneCollectionAndStreamAnotherFromAnOperationTime() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        String name = "ops-offsets-stream";
        String db = "ops_offsets";
        Namespace orders = new Namespace(db, "orders");
        Namespace events = new Namespace(db, "events");
        String ordersTopic = "opso." + orders.fullName();
        String eventsTopic = "opso." + events.fullName();
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoDatabase database = mongo.client().getDatabase(db);
            for (int i = 0; i < 5; i++) {
                database.getCollection(orders.coll()).insertOne(new Document("_id", "o" + i));
            }
            database.getCollection(events.coll()).insertOne(new Document("_id", "e0"));
            rest.putConnector(name, SourceItSupport.sourceConfig(mongo.uri(), db, "opso", ValueFormat.JSON, 1));
            try {
                rest.awaitRunning(name, 1, Duration.ofSeconds(60));
                TopicReader.readUntil(stack.bootstrapServers(), ordersTopic, 5, Duration.ofSeconds(60));
                TopicReader.readUntil(stack.bootstrapServers(), eventsTopic, 1, Duration.ofSeconds(60));
                insertAll(database, events.coll(), "a", 5);
                Waits.pause(Duration.ofMillis(1_200), "A and B in different seconds: the stand-in's cluster times are wall-clock seconds (a clock margin)");
                insertAll(database, events.coll(), "b", 5);
                List<ChangeEvent> firstRun = changes(stack, eventsTopic, 11);
                BsonTimestamp firstOfB = firstRun.stream().filter(e -> e.id().asString().getValue().startsWith("b"))
                        .map(ChangeEvent::clusterTime).findFirst().orElseThrow();

                rest.stop(name);
                awaitStopped(stack, name);
                JsonNode before = rest.offsets(name);

                // malformed: the stream offset with its operation time written as text
                Map<String, Object> bad = new HashMap<>(SourceOffset.streamFrom(firstOfB).toMap());
                String timeKey = bad.entrySet().stream().filter(e -> e.getValue() instanceof Long).map(Map.Entry::getKey)
                        .findFirst().orElseThrow();
                bad.put(timeKey, "2026-11-30T08:00:00Z");
                HttpResponse<String> refused = rest.patchOffsets(name, body(events, bad));
                System.out.println("malformed offset: " + refused.statusCode() + " " + refused.body());
                // Connect answers a connector's refusal with 500 (Kafka 4.x): the message is what tells the operator
                assertThat(refused.statusCode()).isBetween(400, 599);
                assertThat(refused.body()).contains("offset of " + events.fullName()).contains("offset key '" + timeKey + "'");
                assertThat(rest.offsets(name)).isEqualTo(before);

                HttpResponse<String> reset = rest.patchOffsets(name, body(orders, null));
                assertThat(reset.statusCode()).as(reset.body()).isEqualTo(200);
                HttpResponse<String> rewind = rest.patchOffsets(name, body(events, SourceOffset.streamFrom(firstOfB).toMap()));
                assertThat(rewind.statusCode()).as(rewind.body()).isEqualTo(200);
                assertThat(rest.sourceOffset(name, events).orElseThrow()).isEqualTo(SourceOffset.streamFrom(firstOfB));
                assertThat(partitions(rest.offsets(name))).doesNotContain(SourcePartition.of(orders));

                rest.resume(name);
                rest.awaitRunning(name, 1, Duration.ofSeconds(60));
                List<ChangeEvent> ordersAfter = changes(stack, ordersTopic, 10);
                Map<String, Long> copies = countById(ordersAfter.stream().filter(e -> e.op() == Op.READ).toList());
                List<ChangeEvent> eventsAfter = changes(stack, eventsTopic, firstRun.size() + 5);
                Map<String, Long> seen = countById(eventsAfter);
                System.out.printf("reset %s: copies per document %s; %s from %s: deliveries per document %s%n",
                        orders, copies, events, firstOfB, seen);
                assertThat(copies).hasSize(5).allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(2L));
                for (int i = 0; i < 5; i++) {
                    assertThat(seen.get("a" + i)).as("a%d is before the chosen time: not replayed", i).isEqualTo(1L);
                    assertThat(seen.get("b" + i)).as("b%d is at or after the chosen time: replayed", i).isEqualTo(2L);
                }
            } finally {
                rest.deleteConnector(name);
            }
        }
    }

    @Test
    void scanACollectionFromADate() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        String name = "ops-offsets-scan";
        String db = "ops_offsets_scan";
        Namespace items = new Namespace(db, "items");
        String topic = "opsq." + items.fullName();
        try (MongoFixture mongo = MongoFixture.withoutOplog()) {
            List<String> months = List.of("2026-01-01", "2026-02-01", "2026-03-01");
            for (String month : months) {
                mongo.client().getDatabase(db).getCollection(items.coll())
                        .insertOne(new Document("_id", month).append("updatedAt", Date.from(Instant.parse(month + "T00:00:00Z"))));
            }
            Map<String, String> config = SourceItSupport.sourceConfig(mongo.uri(), db, "opsq", ValueFormat.JSON, 1);
            config.put("mode", "scan");
            config.put("scan.interval.ms", "200");
            rest.putConnector(name, config);
            try {
                rest.awaitRunning(name, 1, Duration.ofSeconds(60));
                changes(stack, topic, 3);
                rest.stop(name);
                awaitStopped(stack, name);
                BsonDateTime february = new BsonDateTime(Instant.parse("2026-02-01T00:00:00Z").toEpochMilli());
                SourceOffset fromFebruary = SourceOffset.scan(february, null, february, null);
                HttpResponse<String> patched = rest.patchOffsets(name, body(items, fromFebruary.toMap()));
                assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
                rest.resume(name);
                rest.awaitRunning(name, 1, Duration.ofSeconds(60));
                Map<String, Long> seen = countById(changes(stack, topic, 5));
                System.out.println("scan from 2026-02-01: deliveries per document " + seen);
                assertThat(seen).containsEntry("2026-01-01", 1L).containsEntry("2026-02-01", 2L).containsEntry("2026-03-01", 2L);
            } finally {
                rest.deleteConnector(name);
            }
        }
    }

    private static void insertAll(MongoDatabase db, String coll, String prefix, int n) {
        for (int i = 0; i < n; i++) {
            db.getCollection(coll).insertOne(new Document("_id", prefix + i));
        }
    }

    private static List<ChangeEvent> changes(TestStack stack, String topic, int atLeast) {
        // each look reads the topic until 2 s pass without a record
        return Waits.until(Duration.ofSeconds(90), Duration.ofMillis(1), () -> SourceItSupport.changes(
                        TopicReader.readAll(stack.bootstrapServers(), topic, Duration.ofSeconds(2)), false),
                events -> events.size() >= atLeast,
                events -> topic + ": " + (events == null ? 0 : events.size()) + " changes, expected at least " + atLeast);
    }

    private static Map<String, Long> countById(List<ChangeEvent> events) {
        return events.stream().collect(Collectors.groupingBy(e -> idText(e.id()), Collectors.counting()));
    }

    private static String idText(BsonValue id) {
        return id.isString() ? id.asString().getValue() : id.toString();
    }

    /** A PATCH body for one collection; a null offset resets it. */
    private static String body(Namespace ns, Map<String, Object> offset) throws Exception {
        Map<String, Object> entry = new HashMap<>();
        entry.put("partition", SourcePartition.of(ns));
        entry.put("offset", offset);
        return JSON.writeValueAsString(Map.of("offsets", List.of(entry)));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> partitions(JsonNode offsets) {
        List<Map<String, Object>> out = new ArrayList<>();
        offsets.path("offsets").forEach(o -> out.add(JSON.convertValue(o.get("partition"), Map.class)));
        return out;
    }

    @SuppressWarnings("unchecked")

    /**
     * STOPPED with no tasks in the status, and the task's MBeans gone (its stop() ran): a task still
     * shutting down could commit an offset after the edit.
     */
    static void awaitStopped(TestStack stack, String name) {
        ConnectRest rest = stack.rest();
        SinkItSupport.await(name + " STOPPED", Duration.ofSeconds(60), () -> {
            JsonNode status = rest.statusOrEmpty(name);
            return "STOPPED".equals(status.path("connector").path("state").asText()) && status.path("tasks").isEmpty();
        });
        try (JmxReader jmx = new JmxReader(stack.jmxUrl(0))) {
            SinkItSupport.await(name + "'s task MBeans gone", Duration.ofSeconds(60),
                    () -> jmx.names("dev.tideline:connector=" + name + ",*").isEmpty());
        }
    }
}
