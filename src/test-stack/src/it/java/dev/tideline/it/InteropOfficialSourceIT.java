package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Namespace;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Test;
import dev.tideline.it.support.Waits;

/**
 * Migration from MongoDB's official connector: its source (on the same worker, from its own plugin
 * directory) feeds our sinks in three outputs: change events with {@code updateLookup}; change events
 * as the connector emits them by default ({@code change.stream.full.document=default}: updates carry
 * only an {@code updateDescription}, applied as partial updates); and {@code publish.full.document.only}
 * with tombstones on delete. Each ends identical to its source collection, deletes included, with
 * nothing in the dead letter queue. The stand-in's oplog ({@code IndexedOplog}) gives events the
 * {@code ns}, {@code updateDescription} and {@code replace} type a replica set gives, so the official
 * connector runs without a stand-in-only pipeline.
 */
class InteropOfficialSourceIT {
    private static final String OFFICIAL_SOURCE = "com.mongodb.kafka.connect.MongoSourceConnector";
    private static final String DB = "interop_src";

    @Test
    void ourSinkAppliesTheOfficialSourcesChangeEventsPartialUpdatesFullDocumentsAndTombstones() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withoutOplog()) {
            // three outputs of the official source, each on its own collection and topic, each applied by one of our sinks
            List<Output> outputs = List.of(
                    new Output("orders", "official", Map.of("change.stream.full.document", "updateLookup")),
                    // the connector's true default: update events carry only updateDescription
                    new Output("plain", "official_default", Map.of()),
                    new Output("items", "official_fdo", Map.of("change.stream.full.document", "updateLookup",
                            "publish.full.document.only", "true", "publish.full.document.only.tombstone.on.delete", "true")));
            List<String> connectors = new ArrayList<>();
            try {
                for (Output o : outputs) {
                    stack.createTopic(o.topic(), 1);
                    Map<String, String> official = officialSource(source.uri(), o.coll(), o.prefix());
                    official.putAll(o.settings());
                    Map<String, String> sink = ourSink(o.topic(), dest.uri());
                    // full documents and tombstones do not name their collection: the topic does
                    sink.put("topic.namespace.map", "{\"" + o.topic() + "\": \"interop_dest." + o.coll() + "\"}");
                    rest.putConnector("interop-official-" + o.coll(), official);
                    rest.putConnector("interop-sink-" + o.coll(), sink);
                    connectors.add("interop-official-" + o.coll());
                    connectors.add("interop-sink-" + o.coll());
                }
                for (String c : connectors) {
                    rest.awaitRunning(c, 1, Duration.ofSeconds(90));
                }
                for (Output o : outputs) { // startup.mode=latest: write probes until each stream shows it is open
                    awaitStreamOpen(stack, collection(source, o.coll()), o.topic());
                }
                long started = System.nanoTime();
                for (Output o : outputs) {
                    write(collection(source, o.coll()));
                }
                for (Output o : outputs) {
                    awaitSame(rest, "interop-sink-" + o.coll(), source, new Namespace(DB, o.coll()), dest,
                            new Namespace("interop_dest", o.coll()));
                }
                long applied = (System.nanoTime() - started) / 1_000_000;
                String dlq = TopicReader.readAll(stack.bootstrapServers(), "interop-dlq", Duration.ofMillis(300)).isEmpty()
                        ? "empty" : "NOT empty";
                System.out.printf("InteropOfficialSourceIT: 3 outputs (updateLookup events, default events with partial updates, "
                        + "full documents with tombstones) applied, %d/%d/%d documents, in %d ms after the writes; DLQ %s%n",
                        collection(source, "orders").countDocuments(), collection(source, "plain").countDocuments(),
                        collection(source, "items").countDocuments(), applied, dlq);
                assertThat(dlq).isEqualTo("empty");
                // what the outputs carried: partial updates (no fullDocument) and tombstones really went through
                long partial = TopicReader.readAll(stack.bootstrapServers(), outputs.get(1).topic(), Duration.ofMillis(300)).stream()
                        .map(r -> BsonDocument.parse(new String(r.value(), StandardCharsets.UTF_8)))
                        .filter(d -> d.getString("operationType").getValue().equals("update") && !d.containsKey("fullDocument")
                                && d.containsKey("updateDescription")).count();
                var fdo = TopicReader.readAll(stack.bootstrapServers(), outputs.get(2).topic(), Duration.ofMillis(300));
                long tombstones = fdo.stream().filter(r -> r.value() == null).count();
                System.out.printf("InteropOfficialSourceIT: %d update events without fullDocument, %d tombstones (keys e.g. %s)%n",
                        partial, tombstones, fdo.stream().filter(r -> r.value() == null).findFirst()
                                .map(r -> new String(r.key(), StandardCharsets.UTF_8)).orElse("-"));
                assertThat(partial).isEqualTo(20); // 5 x ($set, $unset+$inc+$push, $unset nested, $set after replace)
                assertThat(tombstones).isEqualTo(5);
                // deletes reached every output, the full-document one through tombstones
                for (Output o : outputs) {
                    assertThat(dest.client().getDatabase("interop_dest").getCollection(o.coll()).countDocuments(Filters.in("_id", 16, 17, 18, 19, 20)))
                            .as(o.coll()).isZero();
                }
            } finally {
                for (String c : connectors) {
                    rest.deleteConnector(c);
                }
            }
        }
    }

    private record Output(String coll, String prefix, Map<String, String> settings) {
        String topic() {
            return prefix + "." + DB + "." + coll;
        }
    }

    private static MongoCollection<Document> collection(MongoFixture f, String coll) {
        return f.client().getDatabase(DB).getCollection(coll);
    }

    /** Inserts, $set (top level and dotted), $unset, $inc and $push, replaces and deletes, some on one document in a row. */
    static void write(MongoCollection<Document> c) {
        for (int i = 1; i <= 20; i++) {
            c.insertOne(new Document("_id", i).append("qty", i).append("big", (long) i << 35)
                    .append("price", Decimal128.parse(i + ".25")).append("at", new java.util.Date(1_700_000_000_000L + i))
                    .append("nested", new Document("x", i).append("y", "y" + i)).append("tags", new ArrayList<>(List.of("a", "b"))));
        }
        for (int i = 1; i <= 5; i++) {
            c.updateOne(Filters.eq("_id", i), Updates.combine(Updates.set("qty", -i), Updates.set("nested.x", -i),
                    Updates.set("added", "new-" + i)));
            c.updateOne(Filters.eq("_id", i), Updates.combine(Updates.unset("price"), Updates.inc("qty", 100),
                    Updates.push("tags", "c")));
            c.updateOne(Filters.eq("_id", 5 + i), Updates.unset("nested"));
            c.replaceOne(Filters.eq("_id", 10 + i), new Document("_id", 10 + i).append("replaced", true));
            c.updateOne(Filters.eq("_id", 10 + i), Updates.set("afterReplace", i));
            c.deleteOne(Filters.eq("_id", 15 + i));
        }
    }

    private static Map<String, String> officialSource(String uri, String coll, String prefix) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", OFFICIAL_SOURCE);
        c.put("tasks.max", "1");
        c.put("connection.uri", uri);
        c.put("database", DB);
        c.put("collection", coll);
        c.put("topic.prefix", prefix);
        c.put("output.format.key", "json");
        c.put("output.format.value", "json");
        c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        c.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        c.put("poll.await.time.ms", "500");
        return c;
    }

    private static Map<String, String> ourSink(String topic, String uri) {
        Map<String, String> c = SinkItSupport.sinkConfig(topic, uri, "interop_dest", dev.tideline.event.ValueFormat.JSON);
        c.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        c.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
        // nothing may be lost quietly: a refused record goes to the DLQ, which the test requires empty
        c.put("errors.tolerance", "all");
        c.put("errors.deadletterqueue.topic.name", "interop-dlq");
        c.put("errors.deadletterqueue.topic.replication.factor", "1");
        c.put("errors.deadletterqueue.context.headers.enable", "true");
        return c;
    }

    private static void awaitStreamOpen(TestStack stack, MongoCollection<Document> coll, String topic) {
        int[] probe = {0};
        // each look reads the topic until 500 ms pass without a record, then writes one more probe
        Waits.until(Duration.ofSeconds(90), Duration.ofMillis(1), () -> {
            boolean published = !TopicReader.readAll(stack.bootstrapServers(), topic, Duration.ofMillis(500)).isEmpty();
            if (!published) {
                coll.insertOne(new Document("_id", "probe-" + ++probe[0]));
            }
            return published;
        }, Boolean::booleanValue, x -> "the official source never published a probe on " + topic + " (" + probe[0] + " probes written)");
    }

    static void awaitSame(ConnectRest rest, String sink, MongoFixture source, Namespace src, MongoFixture dest, Namespace dst) {
        try {
            await(sink + " applied", Duration.ofSeconds(120),
                    () -> ConverterIT.differences(source.client(), src, dest.client(), dst, false).isEmpty());
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; differences: "
                    + ConverterIT.differences(source.client(), src, dest.client(), dst, false).stream().limit(5).toList()
                    + "; sink status: " + rest.statusOrEmpty(sink), e);
        }
    }
}
