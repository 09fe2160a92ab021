package dev.tideline.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import dev.tideline.event.BsonCorpus;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.it.SourceCorpusSupport.Storage;
import dev.tideline.standin.MongoFixture;
import dev.tideline.it.support.TestStack;
import dev.tideline.it.support.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.bson.BsonBinary;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.UuidRepresentation;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Test;

/**
 * The BSON corpus (every BSON type, with the edge values: -0.0, NaN, infinities, int32 vs int64,
 * binary subtypes and UUIDs, regex, code, timestamps, Decimal128, MinKey/MaxKey, nested arrays and
 * documents, unicode) goes through the source on the real worker. In the bson form
 * (ByteArrayConverter) every record's document is byte-identical to the document MongoDB stored, for
 * a backfilled copy, a streamed insert and a streamed update.
 *
 * <p>The json form (JsonConverter, schemaless, relaxed Extended JSON) keeps every field's value and
 * BSON type for a reader of Extended JSON (EnvelopeCodec): the type travels in wrappers such as
 * {@code $numberLong}, {@code $numberDecimal}, {@code $binary}, {@code $date}, {@code $numberDouble}
 * for NaN and -0.0. Its limits: a plain-JSON consumer sees those wrappers, not the types; and JSON
 * objects are unordered, so although this worker kept the field order (the test prints it), a
 * consumer that re-serializes through a HashMap may reorder fields, hence the test compares fields
 * and types, not positions. Use the bson form where bytes matter.
 */
class SourceBsonCorpusIT {
    // MongoDB keeps every corpus value to the byte, deprecated types and every binary subtype included, and so
    // does the stand-in (docs/mongodb-stand-in.md): the whole corpus goes through the source.

    @Test
    void corpusRoundTripsByteIdenticalInBsonAndKeepsEveryValueAndTypeInJson() {
        TestStack stack = TestStack.shared();
        String db = "corpus_it";
        try (MongoFixture mongo = MongoFixture.withOplog()) {
            MongoDatabase database = mongo.client().getDatabase(db);
            BsonDocument corpus = BsonCorpus.document();
            Map<String, Storage> storage = SourceCorpusSupport.probe(database, corpus);
            Map<String, Storage> notKept = new TreeMap<>();
            storage.forEach((field, s) -> {
                if (s != Storage.KEPT) {
                    notKept.put(field, s);
                }
            });
            System.out.println("corpus fields the server does not keep to the byte: " + notKept);
            assertThat(notKept).as("corpus fields the server did not keep").isEmpty();
            BsonDocument doc1 = corpus.clone();
            notKept.keySet().forEach(doc1::remove);
            BsonDocument doc2 = doc1.clone();
            doc2.put("_id", new BsonDocument("tenant", new BsonString("t1")).append("n", new BsonInt64(7L))); // compound id

            MongoCollection<BsonDocument> docs = database.getCollection("docs", BsonDocument.class);
            docs.insertOne(doc1); // before the connectors: backfilled
            Map<String, String> bson = SourceItSupport.sourceConfig(mongo.uri(), db, "corpusb", ValueFormat.BSON, 1);
            Map<String, String> json = SourceItSupport.sourceConfig(mongo.uri(), db, "corpusj", ValueFormat.JSON, 1);
            stack.rest().putConnector("source-corpus-bson", bson);
            stack.rest().putConnector("source-corpus-json", json);
            try {
                stack.rest().awaitRunning("source-corpus-bson", 1, Duration.ofSeconds(60));
                stack.rest().awaitRunning("source-corpus-json", 1, Duration.ofSeconds(60));
                TopicReader.readUntil(stack.bootstrapServers(), "corpusb." + db + ".docs", 1, Duration.ofSeconds(60));
                TopicReader.readUntil(stack.bootstrapServers(), "corpusj." + db + ".docs", 1, Duration.ofSeconds(60));
                byte[] doc1Stored = stored(database, doc1.get("_id"));

                docs.insertOne(doc2); // streamed insert
                docs.updateOne(Filters.eq("_id", doc1.get("_id")), Updates.combine(
                        Updates.set("decimal", new BsonDecimal128(Decimal128.parse("-1.5E+10"))),
                        Updates.set("nestedDoc.level1.z", new BsonInt64(9L)),
                        Updates.set("addedUuid", new BsonBinary(BsonCorpus.UUID_VALUE, UuidRepresentation.STANDARD)),
                        Updates.unset("regexNoOptions")));
                byte[] doc2Stored = stored(database, doc2.get("_id"));
                byte[] doc1Updated = stored(database, doc1.get("_id"));

                List<ConsumerRecord<byte[], byte[]>> bsonRecords = changesUntilUpdate(stack, "corpusb." + db + ".docs", true);
                List<Op> seen = new ArrayList<>();
                for (ConsumerRecord<byte[], byte[]> r : bsonRecords) {
                    ChangeEvent e = SourceItSupport.decode(r, true);
                    byte[] expected = expected(e, doc1, doc1Stored, doc1Updated, doc2Stored);
                    RawBsonDocument document = (RawBsonDocument) new RawBsonDocument(r.value()).get("document");
                    assertThat(SourceCorpusSupport.bytes(document)).as("bson form, %s of %s", e.op(), e.id()).isEqualTo(expected);
                    assertThat(EnvelopeCodec.readKeyId(r.key())).as("record key").isEqualTo(e.id());
                    seen.add(e.op());
                }
                System.out.println("bson form: byte-identical documents in " + seen + " (" + doc1Stored.length + " / "
                        + doc1Updated.length + " / " + doc2Stored.length + " bytes)");
                assertThat(seen).contains(Op.READ, Op.INSERT).containsAnyOf(Op.UPDATE, Op.REPLACE);

                int sameBytes = 0;
                List<ConsumerRecord<byte[], byte[]>> jsonRecords = changesUntilUpdate(stack, "corpusj." + db + ".docs", false);
                for (ConsumerRecord<byte[], byte[]> r : jsonRecords) {
                    ChangeEvent e = SourceItSupport.decode(r, false);
                    BsonDocument expected = new RawBsonDocument(expected(e, doc1, doc1Stored, doc1Updated, doc2Stored));
                    // every field, value and BSON type; positions are the JsonConverter's (a HashMap) to choose
                    assertThat(BsonCorpus.canonicalBytes(e.document())).as("json form, %s of %s", e.op(), e.id())
                            .isEqualTo(BsonCorpus.canonicalBytes(expected));
                    assertThat(e.id()).isEqualTo(expected.get("_id"));
                    sameBytes += java.util.Arrays.equals(EnvelopeCodec.toBytes(e.document()), SourceCorpusSupport.bytes((RawBsonDocument) expected)) ? 1 : 0;
                }
                System.out.println("json form: " + jsonRecords.size() + " documents with every value and type kept, "
                        + sameBytes + " of them also in the stored field order");
            } finally {
                stack.rest().deleteConnector("source-corpus-bson");
                stack.rest().deleteConnector("source-corpus-json");
            }
        }
    }

    private static byte[] stored(MongoDatabase db, BsonValue id) {
        return SourceCorpusSupport.bytes(db.getCollection("docs", RawBsonDocument.class).find(Filters.eq("_id", id)).first());
    }

    /** The stored bytes a change must carry: the first version of doc1 for its copy (or a replayed insert), the updated one after. */
    private static byte[] expected(ChangeEvent e, BsonDocument doc1, byte[] doc1Stored, byte[] doc1Updated, byte[] doc2Stored) {
        if (!e.id().equals(doc1.get("_id"))) {
            return doc2Stored;
        }
        return e.op() == Op.READ || e.op() == Op.INSERT ? doc1Stored : doc1Updated;
    }

    /** The change records of a topic, read until the update of doc1 is among them. */
    private static List<ConsumerRecord<byte[], byte[]>> changesUntilUpdate(TestStack stack, String topic, boolean bson) {
        List<ConsumerRecord<byte[], byte[]>> changes = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : TopicReader.readUntil(stack.bootstrapServers(), topic,
                rs -> rs.stream().anyMatch(r -> SourceItSupport.isChange(r) && isUpdate(SourceItSupport.decode(r, bson).op())),
                "update", Duration.ofSeconds(90))) {
            if (SourceItSupport.isChange(r)) {
                changes.add(r);
            }
        }
        return changes;
    }

    private static boolean isUpdate(Op op) {
        return op == Op.UPDATE || op == Op.REPLACE;
    }
}
