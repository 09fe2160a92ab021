package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import dev.tideline.event.Namespace;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.Document;
import org.junit.jupiter.api.Test;

/**
 * Migration from Debezium: the real Debezium MongoDB source connector (3.3.1.Final, its own plugin
 * directory on the same worker, see debezium-connector/pom.xml) feeds our sink in both of its
 * update forms: {@code capture.mode=change_streams} (updates carry only {@code updateDescription},
 * applied as partial updates) and {@code change_streams_update_full} (updates carry {@code after}).
 * Snapshot reads (op r), inserts, $set/$unset/$inc/$push updates, replacements and deletes with
 * their tombstones; each destination ends identical to its source collection, nothing in the DLQ.
 * On the stand-in it watches one collection ({@code capture.scope=collection}): the stand-in serves
 * no database- or cluster-wide streams (docs/mongodb-stand-in.md).
 */
class DebeziumInteropIT {
    private static final String DEBEZIUM = "io.debezium.connector.mongodb.MongoDbConnector";
    private static final String DB = "interop_dbz";
    private static final String DEST = "interop_dbz_dest";
    private static final String DLQ = "interop-dbz-dlq";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void ourSinkAppliesDebeziumEventsInBothUpdateForms() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        List<String> modes = List.of("change_streams", "change_streams_update_full");
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withoutOplog()) {
            List<String> connectors = new ArrayList<>();
            try {
                for (String mode : modes) {
                    String coll = collection(mode);
                    // existing documents: Debezium's snapshot sends them as op r
                    for (int i = 101; i <= 110; i++) {
                        source.client().getDatabase(DB).getCollection(coll).insertOne(new Document("_id", i).append("pre", i)
                                .append("nested", new Document("x", i)));
                    }
                    stack.createTopic(topic(mode), 1);
                    rest.putConnector("dbz-" + coll, debezium(source.uri(), mode));
                    rest.putConnector("dbz-sink-" + coll, ourSink(topic(mode), dest.uri(), coll));
                    connectors.add("dbz-" + coll);
                    connectors.add("dbz-sink-" + coll);
                }
                for (String c : connectors) {
                    rest.awaitRunning(c, 1, Duration.ofSeconds(90));
                }
                for (String mode : modes) { // the snapshot is over once its 10 reads are out: what follows is streamed
                    TopicReader.readUntil(stack.bootstrapServers(), topic(mode), 10, Duration.ofSeconds(90));
                }
                long started = System.nanoTime();
                for (String mode : modes) {
                    MongoCollection<Document> c = source.client().getDatabase(DB).getCollection(collection(mode));
                    InteropOfficialSourceIT.write(c);
                    c.deleteOne(Filters.eq("_id", 110)); // a snapshotted document deleted
                    c.updateOne(Filters.eq("_id", 101), new Document("$unset", new Document("nested", "")));
                }
                for (String mode : modes) {
                    InteropOfficialSourceIT.awaitSame(rest, "dbz-sink-" + collection(mode), source, new Namespace(DB, collection(mode)),
                            dest, new Namespace(DEST, collection(mode)));
                }
                long applied = (System.nanoTime() - started) / 1_000_000;
                Map<String, Long> ops = new LinkedHashMap<>();
                long partial = 0;
                long tombstones = 0;
                for (String mode : modes) {
                    for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(stack.bootstrapServers(), topic(mode), Duration.ofMillis(300))) {
                        if (r.value() == null) {
                            tombstones++;
                            continue;
                        }
                        JsonNode v = json(r.value());
                        String op = v.path("op").asText();
                        ops.merge(mode + ":" + op, 1L, Long::sum);
                        if (op.equals("u") && v.path("after").isNull() && v.path("updateDescription").isObject()) {
                            partial++;
                        }
                    }
                }
                boolean dlqEmpty = TopicReader.readAll(stack.bootstrapServers(), DLQ, Duration.ofMillis(300)).isEmpty();
                System.out.printf("DebeziumInteropIT: Debezium 3.3.1 in both capture modes applied in %d ms after the writes; "
                        + "events %s, %d updates without 'after', %d tombstones; DLQ %s%n", applied, ops, partial, tombstones,
                        dlqEmpty ? "empty" : "NOT empty");
                assertThat(dlqEmpty).isTrue();
                assertThat(ops.get("change_streams:r")).isEqualTo(10);
                assertThat(ops.get("change_streams_update_full:r")).isEqualTo(10);
                // write(): 20 updates per collection, + the $unset of 101; its 5 replacements arrive as updates too
                assertThat(partial).isEqualTo(21);
                assertThat(ops.get("change_streams_update_full:u")).isEqualTo(26);
                assertThat(tombstones).isEqualTo(2 * 6); // per collection, write()'s 5 deletes and that of 110
                for (String mode : modes) {
                    assertThat(dest.client().getDatabase(DEST).getCollection(collection(mode))
                            .countDocuments(Filters.in("_id", 16, 17, 18, 19, 20, 110))).as(mode).isZero();
                }
            } finally {
                for (String c : connectors) {
                    rest.deleteConnector(c);
                }
            }
        }
    }

    private static String collection(String mode) {
        return mode.equals("change_streams") ? "customers_partial" : "customers_full";
    }

    private static String topic(String mode) {
        return prefix(mode) + "." + DB + "." + collection(mode);
    }

    /** One logical name per connector: Debezium keys its offsets and its JMX beans by it. */
    private static String prefix(String mode) {
        return mode.equals("change_streams") ? "dbz_partial" : "dbz_full";
    }

    private static Map<String, String> debezium(String uri, String mode) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", DEBEZIUM);
        c.put("tasks.max", "1");
        c.put("mongodb.connection.string", uri);
        c.put("topic.prefix", prefix(mode));
        c.put("capture.scope", "collection");
        c.put("capture.target", DB + "." + collection(mode));
        c.put("collection.include.list", DB + "." + collection(mode));
        c.put("capture.mode", mode);
        SinkItSupport.converters(c, "org.apache.kafka.connect.json.JsonConverter");
        return c;
    }

    private static Map<String, String> ourSink(String topic, String uri, String coll) {
        Map<String, String> c = SinkItSupport.sinkConfig(topic, uri, DEST, dev.tideline.event.ValueFormat.JSON);
        // tombstones do not name their collection: the topic does
        c.put("topic.namespace.map", "{\"" + topic + "\": \"" + DEST + "." + coll + "\"}");
        c.put("errors.tolerance", "all");
        c.put("errors.deadletterqueue.topic.name", DLQ);
        c.put("errors.deadletterqueue.topic.replication.factor", "1");
        c.put("errors.deadletterqueue.context.headers.enable", "true");
        return c;
    }

    private static JsonNode json(byte[] bytes) {
        try {
            return JSON.readTree(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
