package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.Namespace;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.it.support.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bson.Document;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Test;

/**
 * Migration from MongoDB's official connector: its source (on the same worker, from its own plugin
 * directory) feeds our sink, in its default change-stream output (inserts, updates, replaces, deletes)
 * and with publish.full.document.only (inserts, updates, replaces: that output carries no deletes).
 * On the stand-in its pipeline adds the {@code ns} field the stand-in leaves out of events
 * (FAKE-MONGO.md); a real replica set needs no pipeline.
 */
class InteropOfficialSourceIT {
    private static final String OFFICIAL_SOURCE = "com.mongodb.kafka.connect.MongoSourceConnector";
    private static final String DB = "interop_src";

    @Test
    void ourSinkAppliesTheOfficialSourcesChangeEventsAndFullDocuments() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withoutOplog()) {
            MongoCollection<Document> orders = source.client().getDatabase(DB).getCollection("orders");
            MongoCollection<Document> items = source.client().getDatabase(DB).getCollection("items");
            String eventsTopic = "official." + DB + ".orders";
            String fullDocTopic = "official_fdo." + DB + ".items";
            stack.createTopic(eventsTopic, 1);
            stack.createTopic(fullDocTopic, 1);

            Map<String, String> events = officialSource(source.uri(), "orders", "official");
            Map<String, String> fullDocs = officialSource(source.uri(), "items", "official_fdo");
            fullDocs.put("publish.full.document.only", "true");
            Map<String, String> eventsSink = ourSink(eventsTopic, dest.uri());
            Map<String, String> fullDocSink = ourSink(fullDocTopic, dest.uri());
            fullDocSink.put("topic.namespace.map", "{\"" + fullDocTopic + "\": \"interop_dest.items\"}");
            try {
                rest.putConnector("interop-official-events", events);
                rest.putConnector("interop-official-fulldoc", fullDocs);
                rest.putConnector("interop-sink-events", eventsSink);
                rest.putConnector("interop-sink-fulldoc", fullDocSink);
                for (String c : new String[] {"interop-official-events", "interop-official-fulldoc", "interop-sink-events", "interop-sink-fulldoc"}) {
                    rest.awaitRunning(c, 1, Duration.ofSeconds(90));
                }
                // startup.mode=latest: write probes until each stream shows it is open
                awaitStreamOpen(stack, orders, eventsTopic);
                awaitStreamOpen(stack, items, fullDocTopic);
                for (MongoCollection<Document> c : java.util.List.of(orders, items)) {
                    for (int i = 1; i <= 20; i++) {
                        c.insertOne(new Document("_id", i).append("qty", i).append("big", (long) i << 35)
                                .append("price", Decimal128.parse(i + ".25")).append("at", new java.util.Date(1_700_000_000_000L + i)));
                    }
                    for (int i = 1; i <= 5; i++) {
                        c.updateOne(Filters.eq("_id", i), Updates.set("qty", -i));
                        c.replaceOne(Filters.eq("_id", 5 + i), new Document("_id", 5 + i).append("replaced", true));
                        if (c == orders) { // full-document-only output publishes no deletes (see migrate-from-official.md)
                            c.deleteOne(Filters.eq("_id", 20 - i));
                        }
                    }
                }
                long started = System.nanoTime();
                awaitSame(rest, "interop-sink-events", source, new Namespace(DB, "orders"), dest, new Namespace("interop_dest", "orders"));
                awaitSame(rest, "interop-sink-fulldoc", source, new Namespace(DB, "items"), dest, new Namespace("interop_dest", "items"));
                System.out.printf("InteropOfficialSourceIT: both outputs applied, %d documents each, in %d ms after the writes%n",
                        orders.countDocuments(), (System.nanoTime() - started) / 1_000_000);
            } finally {
                for (String c : new String[] {"interop-official-events", "interop-official-fulldoc", "interop-sink-events", "interop-sink-fulldoc"}) {
                    rest.deleteConnector(c);
                }
            }
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
        // the stand-in leaves ns out of change events (FAKE-MONGO.md); the official connector names topics from it
        c.put("pipeline", "[{\"$addFields\": {\"ns\": {\"db\": \"" + DB + "\", \"coll\": \"" + coll + "\"}}}]");
        c.put("change.stream.full.document", "updateLookup");
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
        return c;
    }

    private static void awaitStreamOpen(TestStack stack, MongoCollection<Document> coll, String topic) {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        int probe = 0;
        while (TopicReader.readAll(stack.bootstrapServers(), topic, Duration.ofMillis(500)).isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the official source never published a probe on " + topic);
            }
            coll.insertOne(new Document("_id", "probe-" + ++probe));
        }
    }

    private static void awaitSame(ConnectRest rest, String sink, MongoFixture source, Namespace src, MongoFixture dest, Namespace dst) {
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
