package dev.tideline.it;

import static dev.tideline.it.SinkItSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.BsonCorpus;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.Namespace;
import dev.tideline.it.support.ConnectRest;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * Every source form with its converter, end to end on the real worker: source -> topic -> sink ->
 * destination, compared with the source collection. bson, text and struct must arrive byte for byte;
 * the json form through JsonConverter keeps fields and types but not field order (README).
 */
class ConverterIT {
    private static final Duration CONVERGE = Duration.ofSeconds(120);
    private static final int DOCS = 30;
    private static final List<ConverterForm> FORMS = List.of(ConverterForm.values());

    @Test
    void everyFormRoundTripsThroughItsConverterFromSourceToSink() throws Exception {
        TestStack stack = TestStack.shared();
        ConnectRest rest = stack.rest();
        List<String> connectors = new ArrayList<>();
        long started = System.nanoTime();
        try (MongoFixture source = MongoFixture.withOplog(); MongoFixture dest = MongoFixture.withoutOplog()) {
            for (ConverterForm f : FORMS) {
                String db = db(f);
                stack.createTopic(topic(f), 1); // before the sink subscribes: a consumer finds a later topic only minutes later
                source.client().getDatabase(db).getCollection("items").insertOne(doc(0)); // backfilled
                Map<String, String> src = f.applyTo(SourceItSupport.sourceConfig(source.uri(), db, "conv", f.format, 1), true);
                src.put("delete.tombstone", "true");
                Map<String, String> sink = f.applyTo(SinkItSupport.sinkConfig(topic(f), dest.uri(), db + "_dest", f.format), false);
                rest.putConnector("conv-src-" + f.slug(), src);
                rest.putConnector("conv-sink-" + f.slug(), sink);
                connectors.add("conv-src-" + f.slug());
                connectors.add("conv-sink-" + f.slug());
            }
            for (String c : connectors) {
                rest.awaitRunning(c, 1, Duration.ofSeconds(90));
            }
            for (ConverterForm f : FORMS) {
                TopicReader.readUntil(stack.bootstrapServers(), topic(f), 1, Duration.ofSeconds(60)); // stream open behind the copy
            }
            for (ConverterForm f : FORMS) {
                MongoCollection<Document> items = source.client().getDatabase(db(f)).getCollection("items");
                for (int i = 1; i <= DOCS; i++) {
                    items.insertOne(doc(i));
                }
                for (int i = 1; i <= 10; i++) {
                    items.updateOne(Filters.eq("_id", i), Updates.combine(Updates.inc("n", 1), Updates.set("big", (long) i << 40)));
                }
                for (int i = 11; i <= 15; i++) {
                    items.replaceOne(Filters.eq("_id", i), doc(i).append("replaced", true));
                }
                for (int i = DOCS - 4; i <= DOCS; i++) {
                    items.deleteOne(Filters.eq("_id", i));
                }
            }
            for (ConverterForm f : FORMS) {
                Namespace src = new Namespace(db(f), "items");
                Namespace dst = new Namespace(db(f) + "_dest", "items");
                boolean exact = f.format != dev.tideline.event.ValueFormat.JSON;
                List<String> last = new ArrayList<>();
                try {
                    await(f + " destination equal to the source", CONVERGE, () -> {
                        last.clear();
                        last.addAll(differences(source.client(), src, dest.client(), dst, exact));
                        return last.isEmpty();
                    });
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + "; differences: " + last.stream().limit(5).toList()
                            + "; source status: " + rest.statusOrEmpty("conv-src-" + f.slug())
                            + "; ops on the topic: " + opsOn(stack, topic(f)), e);
                }
                System.out.printf("%s: %d documents equal (%s)%n", f, dest.client().getDatabase(dst.db()).getCollection("items")
                        .countDocuments(), exact ? "byte for byte" : "fields and types");
            }
            assertStructRecordsShareOneSchema(stack);
            assertTextRecordsAreCanonicalExtendedJson(stack);
            System.out.printf("ConverterIT: %d forms converged in %d ms%n", ConverterForm.values().length,
                    (System.nanoTime() - started) / 1_000_000);
        } finally {
            connectors.forEach(rest::deleteConnector);
        }
    }

    private static Map<String, Long> opsOn(TestStack stack, String topic) {
        return TopicReader.readAll(stack.bootstrapServers(), topic, Duration.ofSeconds(2)).stream()
                .collect(java.util.stream.Collectors.groupingBy(r -> String.valueOf(SourceItSupport.header(r, "tl.op")),
                        java.util.stream.Collectors.counting()));
    }

    private static String db(ConverterForm f) {
        return "conv_" + f.slug().replace('-', '_');
    }

    private static String topic(ConverterForm f) {
        return "conv." + db(f) + ".items";
    }

    private static Document doc(int i) {
        return new Document("_id", i).append("n", i).append("big", (long) i).append("ratio", i / 4.0)
                .append("ref", new ObjectId(String.format("65f1a2b3c4d5e6f7%08x", i)))
                .append("price", Decimal128.parse(i + ".10")).append("at", new java.util.Date(1_700_000_000_000L + i))
                .append("tags", List.of("t" + i, i)).append("nested", new Document("z", 1).append("a", List.of(new Document("k", (long) i))));
    }

    /** Differences between two collections; exact compares BSON bytes, otherwise fields and types in any order. */
    static List<String> differences(MongoClient sc, Namespace src, MongoClient dc, Namespace dst, boolean exact) {
        Map<BsonValue, RawBsonDocument> want = SinkItSupport.snapshot(sc, src);
        Map<BsonValue, RawBsonDocument> got = SinkItSupport.snapshot(dc, dst);
        List<String> diffs = new ArrayList<>();
        if (!want.keySet().equals(got.keySet())) {
            diffs.add("ids differ: " + want.keySet() + " vs " + got.keySet());
            return diffs;
        }
        for (Map.Entry<BsonValue, RawBsonDocument> e : want.entrySet()) {
            BsonDocument a = e.getValue();
            BsonDocument b = got.get(e.getKey());
            boolean same = exact ? Arrays.equals(EnvelopeCodec.toBytes(a), EnvelopeCodec.toBytes(b))
                    : BsonCorpus.sorted(a).equals(BsonCorpus.sorted(b));
            if (!same) {
                diffs.add(e.getKey() + ": " + b.toJson() + " vs " + a.toJson());
            }
        }
        return diffs;
    }

    /** With schemas on, every change record carries the same schema: one per collection, not one per document. */
    private static void assertStructRecordsShareOneSchema(TestStack stack) throws Exception {
        ObjectMapper json = new ObjectMapper();
        Set<JsonNode> schemas = new HashSet<>();
        int changes = 0;
        for (ConsumerRecord<byte[], byte[]> r : TopicReader.readAll(stack.bootstrapServers(), topic(ConverterForm.STRUCT), Duration.ofSeconds(2))) {
            JsonNode value = json.readTree(r.value());
            if (value.get("payload").isNull()) {
                continue; // the tombstone after a delete
            }
            changes++;
            schemas.add(value.get("schema"));
        }
        System.out.printf("struct form: %d change records, %d distinct value schema(s)%n", changes, schemas.size());
        assertThat(changes).isGreaterThanOrEqualTo(DOCS + 10 + 5 + 5);
        assertThat(schemas).hasSize(1);
        assertThat(schemas.iterator().next().get("name").asText()).isEqualTo("dev.tideline.ChangeEnvelope");
    }

    private static void assertTextRecordsAreCanonicalExtendedJson(TestStack stack) {
        ConsumerRecord<byte[], byte[]> first = TopicReader.readAll(stack.bootstrapServers(), topic(ConverterForm.TEXT), Duration.ofSeconds(2))
                .stream().filter(SourceItSupport::isChange).findFirst().orElseThrow();
        String text = new String(first.value(), StandardCharsets.UTF_8);
        assertThat(text).contains("\"$numberInt\"").contains("\"$numberLong\"").contains("\"$numberDecimal\"");
        assertThat(new String(first.key(), StandardCharsets.UTF_8)).startsWith("{\"_id\": {\"$numberInt\"");
    }
}
