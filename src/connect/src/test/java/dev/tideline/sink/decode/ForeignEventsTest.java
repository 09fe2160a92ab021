package dev.tideline.sink.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.sink.TestRecords;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.Namespace;
import dev.tideline.sink.config.TombstoneAction;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.StringConverter;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonTimestamp;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/**
 * Recorded records of MongoDB's official source connector and of Debezium's MongoDB connector
 * (src/test/resources/interop), through the converter the worker would use, read by the sink.
 */
class ForeignEventsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Namespace CUSTOMERS = new Namespace("inventory", "customers");
    private static final Namespace ORDERS = new Namespace("shop", "orders");
    private static final BsonObjectId ANNE = new BsonObjectId(new ObjectId("6745c2a1e4b0a1b2c3d4e5f6"));
    private static final BsonObjectId ORDER = new BsonObjectId(new ObjectId("674f0a1be4b0a1b2c3d4e5f6"));

    private final RecordDecoder decoder = TestRecords.decoder(TombstoneAction.DELETE, Optional.empty());

    private static String resource(String name) throws IOException {
        try (InputStream in = ForeignEventsTest.class.getResourceAsStream("/interop/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** A Debezium sample as the sink task receives it from JsonConverter (schemas as the file was written). */
    private static SinkRecord debezium(String file, boolean schemas) throws IOException {
        JsonNode sample = JSON.readTree(resource("debezium/" + file));
        JsonConverter keys = new JsonConverter();
        keys.configure(Map.of("schemas.enable", Boolean.toString(schemas)), true);
        JsonConverter values = new JsonConverter();
        values.configure(Map.of("schemas.enable", Boolean.toString(schemas)), false);
        var key = keys.toConnectData("fulfillment.inventory.customers", JSON.writeValueAsBytes(sample.get("key")));
        var value = sample.get("value").isNull() ? null
                : values.toConnectData("fulfillment.inventory.customers", JSON.writeValueAsBytes(sample.get("value")));
        return new SinkRecord("fulfillment.inventory.customers", 0, key.schema(), key.value(),
                value == null ? null : value.schema(), value == null ? null : value.value(), 7);
    }

    /** An official-connector sample as the sink task receives it from StringConverter. */
    private static SinkRecord official(String file) throws IOException {
        String[] kv = resource("official/" + file).trim().split("\t", 2);
        StringConverter strings = new StringConverter();
        strings.configure(Map.of(), false);
        Object key = strings.toConnectData("shop.orders", kv[0].getBytes(StandardCharsets.UTF_8)).value();
        Object value = strings.toConnectData("shop.orders", kv[1].getBytes(StandardCharsets.UTF_8)).value();
        return new SinkRecord("shop.orders", 0, null, key, null, value, 3);
    }

    @Test
    void debeziumSnapshotReadIsAWriteWithoutVersion() throws IOException {
        SinkChange c = (SinkChange) decoder.decode(debezium("read.json", false));
        assertThat(c.kind()).isEqualTo(SinkChange.Kind.WRITE);
        assertThat(c.id()).isEqualTo(new BsonInt32(1001));
        assertThat(c.sourceNs()).isEqualTo(CUSTOMERS);
        assertThat(c.document().get("visits")).isEqualTo(new BsonInt64(12));
        assertThat(c.version()).isNull();
    }

    @Test
    void debeziumCreateKeepsTypesAndTakesTheSourceTimeAsVersion() throws IOException {
        SinkChange c = (SinkChange) decoder.decode(debezium("create.json", false));
        assertThat(c.kind()).isEqualTo(SinkChange.Kind.WRITE);
        assertThat(c.id()).isEqualTo(ANNE);
        assertThat(c.document().keySet()).containsExactly("_id", "first_name", "last_name", "email", "since", "balance", "tags");
        assertThat(c.document().get("balance")).isEqualTo(new BsonDecimal128(Decimal128.parse("12.50")));
        assertThat(c.document().getDateTime("since").getValue()).isEqualTo(1_732_700_005_000L);
        assertThat(c.version()).isEqualTo(new BsonTimestamp(1_732_700_005, 3));
    }

    @Test
    void debeziumUpdateWithAfterIsTheWholeNewDocument() throws IOException {
        SinkChange c = (SinkChange) decoder.decode(debezium("update.json", false));
        assertThat(c.kind()).isEqualTo(SinkChange.Kind.WRITE);
        assertThat(c.document().getString("first_name").getValue()).isEqualTo("Anne Marie");
        assertThat(c.version()).isEqualTo(new BsonTimestamp(1_732_700_009, 1));
    }

    @Test
    void debeziumUpdateWithOnlyAnUpdateDescriptionIsAPartialUpdateOfTheKeysId() throws IOException {
        SinkChange c = (SinkChange) decoder.decode(debezium("update-description-only.json", false));
        assertThat(c.kind()).isEqualTo(SinkChange.Kind.UPDATE);
        assertThat(c.id()).isEqualTo(ANNE);
        assertThat(c.sourceNs()).isEqualTo(CUSTOMERS);
        assertThat(c.version()).isEqualTo(new BsonTimestamp(1_732_700_011, 1));
        UpdateDescription d = c.updates().get(0);
        assertThat(d.updatedFields()).isEqualTo(BsonDocument.parse("{\"first_name\": \"Annie\"}"));
        assertThat(d.removedFields()).containsExactly("email");
        assertThat(d.truncatedArrays()).isEmpty();
    }

    @Test
    void debeziumTruncatedArraysAndAFilterInsteadOfAKey() {
        String value = "{\"op\": \"u\", \"after\": null, \"filter\": \"{\\\"_id\\\": 1004}\", "
                + "\"updateDescription\": {\"updatedFields\": \"{\\\"tags.1\\\": \\\"b\\\"}\", \"removedFields\": null, "
                + "\"truncatedArrays\": [{\"field\": \"tags\", \"size\": 2}]}, "
                + "\"source\": {\"connector\": \"mongodb\", \"db\": \"inventory\", \"collection\": \"customers\", \"ts_ms\": 5000, \"ord\": 2}}";
        SinkChange c = (SinkChange) decoder.decode(new SinkRecord("t", 0, null, null, null, value, 1));
        assertThat(c.id()).isEqualTo(new BsonInt32(1004));
        assertThat(c.updates().get(0).truncatedArrays()).containsExactly(new UpdateDescription.Truncation("tags", 2));
        assertThat(c.updates().get(0).updatedFields().getString("tags.1").getValue()).isEqualTo("b");
        assertThat(c.version()).isEqualTo(new BsonTimestamp(5, 2));
    }

    @Test
    void aMalformedUpdateDescriptionIsRefused() {
        String value = "{\"operationType\": \"update\", \"documentKey\": {\"_id\": 1}, "
                + "\"updateDescription\": {\"updatedFields\": {}, \"truncatedArrays\": [{\"field\": \"a\"}]}}";
        assertThatThrownBy(() -> decoder.decode(new SinkRecord("t", 0, null, null, null, value, 1)))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("newSize");
    }

    @Test
    void debeziumDeleteAndItsTombstoneDeleteTheKeysId() throws IOException {
        SinkChange delete = (SinkChange) decoder.decode(debezium("delete.json", false));
        SinkChange tombstone = (SinkChange) decoder.decode(debezium("delete-tombstone.json", false));
        assertThat(delete.kind()).isEqualTo(SinkChange.Kind.DELETE);
        assertThat(delete.id()).isEqualTo(ANNE);
        assertThat(delete.sourceNs()).isEqualTo(CUSTOMERS);
        assertThat(delete.version()).isEqualTo(new BsonTimestamp(1_732_700_015, 2));
        assertThat(tombstone.kind()).isEqualTo(SinkChange.Kind.DELETE);
        assertThat(tombstone.id()).isEqualTo(ANNE);
    }

    @Test
    void debeziumWithSchemasArrivesAsStructsAndReadsTheSame() throws IOException {
        SinkRecord r = debezium("create-with-schema.json", true);
        assertThat(r.value()).isInstanceOf(Struct.class);
        assertThat(r.key()).isInstanceOf(Struct.class);
        SinkChange c = (SinkChange) decoder.decode(r);
        assertThat(c.id()).isEqualTo(new BsonInt64(1004));
        assertThat(c.document().getString("first_name").getValue()).isEqualTo("Anne");
        assertThat(c.sourceNs()).isEqualTo(CUSTOMERS);
        assertThat(KeyReader.id(r.key())).isEqualTo(new BsonInt64(1004));
    }

    @Test
    void officialInsertIsAWriteOfTheFullDocumentKeyedByDocumentKeyNotTheResumeToken() throws IOException {
        SinkChange c = (SinkChange) decoder.decode(official("insert.tsv"));
        assertThat(c.kind()).isEqualTo(SinkChange.Kind.WRITE);
        assertThat(c.id()).isEqualTo(ORDER);
        assertThat(c.sourceNs()).isEqualTo(ORDERS);
        assertThat(c.document().get("big")).isEqualTo(new BsonInt64(9_007_199_254_740_993L));
        assertThat(c.document().get("qty")).isEqualTo(new BsonInt32(3));
        assertThat(c.version()).isEqualTo(new BsonTimestamp(1_733_233_179, 1));
    }

    @Test
    void officialUpdateWithLookupIsAWrite() throws IOException {
        SinkChange c = (SinkChange) decoder.decode(official("update-lookup.tsv"));
        assertThat(c.kind()).isEqualTo(SinkChange.Kind.WRITE);
        assertThat(c.document().get("qty")).isEqualTo(new BsonInt32(4));
    }

    @Test
    void officialUpdateWithoutFullDocumentIsAPartialUpdateOfTheDocumentKey() throws IOException {
        SinkChange c = (SinkChange) decoder.decode(official("update-default.tsv"));
        assertThat(c.kind()).isEqualTo(SinkChange.Kind.UPDATE);
        assertThat(c.id()).isEqualTo(ORDER);
        assertThat(c.document()).isNull();
        assertThat(c.version()).isEqualTo(new BsonTimestamp(1_733_233_181, 1));
        assertThat(c.updates().get(0).updatedFields()).isEqualTo(new BsonDocument("qty", new BsonInt32(5)));
    }

    @Test
    void officialUpdateLookupOfADeletedDocumentStillAppliesItsDescription() {
        // MongoDB answers fullDocument: null when the document was deleted since; the description is still what happened
        String event = "{\"_id\": {\"_data\": \"01\"}, \"operationType\": \"update\", \"documentKey\": {\"_id\": 7}, "
                + "\"fullDocument\": null, \"updateDescription\": {\"updatedFields\": {\"a.b\": 1}, \"removedFields\": [\"c\"]}}";
        SinkChange c = (SinkChange) decoder.decode(new SinkRecord("shop.orders", 0, null, null, null, event, 1));
        assertThat(c.kind()).isEqualTo(SinkChange.Kind.UPDATE);
        assertThat(c.updates().get(0).removedFields()).containsExactly("c");
        assertThat(c.version()).isNull();
    }

    @Test
    void officialDeleteDeletesTheDocumentKey() throws IOException {
        SinkChange c = (SinkChange) decoder.decode(official("delete.tsv"));
        assertThat(c.kind()).isEqualTo(SinkChange.Kind.DELETE);
        assertThat(c.id()).isEqualTo(ORDER);
        assertThat(c.version()).isEqualTo(new BsonTimestamp(1_733_233_182, 2));
    }

    @Test
    void officialUpdateTakesTheIdOfItsWholeDocumentAndRefusesADisagreeingDocumentKey() {
        // the stand-in puts the update's spec in documentKey (docs/mongodb-stand-in.md); the whole document names its _id
        String event = "{\"_id\": {\"_data\": \"01\"}, \"operationType\": \"update\", \"ns\": {\"db\": \"shop\", \"coll\": \"orders\"}, "
                + "\"documentKey\": {\"$set\": {\"qty\": 2}}, \"fullDocument\": {\"_id\": 7, \"qty\": 2}}";
        SinkChange c = (SinkChange) decoder.decode(new SinkRecord("shop.orders", 0, null, null, null, event, 1));
        assertThat(c.id()).isEqualTo(new BsonInt32(7));
        assertThat(c.document().get("qty")).isEqualTo(new BsonInt32(2));

        String disagreeing = event.replace("{\"$set\": {\"qty\": 2}}", "{\"_id\": 8}");
        assertThatThrownBy(() -> decoder.decode(new SinkRecord("shop.orders", 0, null, null, null, disagreeing, 2)))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("differs from documentKey._id");
    }

    @Test
    void officialDropIsSkippedNeverApplied() throws IOException {
        assertThat(decoder.decode(official("drop.tsv"))).isInstanceOf(Decoded.Skip.class);
    }

    @Test
    void officialFullDocumentOnlyIsAPlainDocument() throws IOException {
        SinkChange c = (SinkChange) decoder.decode(official("full-document-only.tsv"));
        assertThat(c.kind()).isEqualTo(SinkChange.Kind.WRITE);
        assertThat(c.id()).isEqualTo(new BsonObjectId(new ObjectId("674f0a1be4b0a1b2c3d4e5f7")));
        assertThat(c.document().get("big")).isEqualTo(new BsonInt64(5));
        assertThat(c.sourceNs()).isNull();
    }

    @Test
    void aPlainDocumentWithAnOpFieldIsStillAPlainDocument() {
        BsonDocument doc = BsonDocument.parse("{\"_id\": 1, \"op\": \"c\", \"after\": \"x\"}");
        SinkChange c = (SinkChange) decoder.decode(new SinkRecord("t", 0, null, null, null, doc.toJson(), 1));
        assertThat(c.document()).isEqualTo(doc);
    }
}
