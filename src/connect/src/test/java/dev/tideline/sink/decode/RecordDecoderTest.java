package dev.tideline.sink.decode;

import static dev.tideline.sink.TestRecords.SHOP_ORDERS;
import static dev.tideline.sink.TestRecords.doc;
import static dev.tideline.sink.TestRecords.envelopeRecord;
import static dev.tideline.sink.TestRecords.event;
import static dev.tideline.sink.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.sink.TestRecords;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.EnvelopeCodec;
import dev.tideline.event.EventHeaders;
import dev.tideline.event.MalformedRecordException;
import dev.tideline.event.Op;
import dev.tideline.event.ValueFormat;
import dev.tideline.sink.config.TombstoneAction;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class RecordDecoderTest {
    private final RecordDecoder decoder = TestRecords.decoder(TombstoneAction.DELETE, Optional.empty());

    /** A document with the types JSON cannot tell apart: int32 vs int64, ObjectId, date, decimal, binary. */
    private static BsonDocument richDoc() {
        return new BsonDocument("_id", new BsonObjectId(new ObjectId("65a1b2c3d4e5f60718293a4b")))
                .append("small", new BsonInt32(7)).append("big", new BsonInt64(7))
                .append("at", new BsonDateTime(1_700_000_000_123L))
                .append("price", new BsonDecimal128(Decimal128.parse("12.50")))
                .append("blob", new BsonBinary(new byte[] {1, 2, 3}))
                .append("tags", new BsonArray(List.of(new BsonString("a"), new BsonInt32(1))));
    }

    /** What a worker with JsonConverter (schemas.enable=false) hands the task for a value the source produced. */
    private static Object throughJsonConverter(Object value) {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "false"), false);
        byte[] wire = converter.fromConnectData("t", null, value);
        SchemaAndValue back = converter.toConnectData("t", wire);
        return back.value();
    }

    private SinkChange change(SinkRecord r) {
        return (SinkChange) decoder.decode(r);
    }

    @Test
    void bsonEnvelopeIsReadLosslessly() {
        ChangeEvent e = new ChangeEvent(Op.INSERT, SHOP_ORDERS, richDoc().get("_id"), richDoc(),
                new org.bson.BsonTimestamp(100, 2), 1L, null);
        SinkChange c = change(envelopeRecord("t", 0, e, ValueFormat.BSON));

        assertThat(c.kind()).isEqualTo(SinkChange.Kind.WRITE);
        assertThat(c.sourceNs()).isEqualTo(SHOP_ORDERS);
        assertThat(EnvelopeCodec.toBytes(c.document())).isEqualTo(EnvelopeCodec.toBytes(richDoc()));
        assertThat(c.version()).isEqualTo(new org.bson.BsonTimestamp(100, 2));
    }

    @Test
    void bsonEnvelopeDocumentIsKeptAsTheBytesItArrivedIn() {
        ChangeEvent e = new ChangeEvent(Op.INSERT, SHOP_ORDERS, richDoc().get("_id"), richDoc(),
                new org.bson.BsonTimestamp(100, 2), 1L, null);
        Decoded d = TestRecords.decoder(TombstoneAction.DELETE, Optional.empty(), true).decode(envelopeRecord("t", 0, e, ValueFormat.BSON));
        SinkChange c = (SinkChange) d;

        // written as it is (no second encoding), and equal to the document the source sent
        assertThat(c.document()).isInstanceOf(org.bson.RawBsonDocument.class).isEqualTo(richDoc());
        // by default (peer mode reads documents field by field) an object, as before
        assertThat(change(envelopeRecord("t", 0, e, ValueFormat.BSON)).document()).isNotInstanceOf(org.bson.RawBsonDocument.class);
        byte[] raw = new byte[((org.bson.RawBsonDocument) c.document()).getByteBuffer().remaining()];
        ((org.bson.RawBsonDocument) c.document()).getByteBuffer().asNIO().get(raw);
        assertThat(raw).isEqualTo(EnvelopeCodec.toBytes(richDoc()));
    }

    @Test
    void jsonEnvelopeSurvivesJsonConverterRoundTripWithTypesIntact() {
        ChangeEvent e = new ChangeEvent(Op.UPDATE, SHOP_ORDERS, richDoc().get("_id"), richDoc(),
                new org.bson.BsonTimestamp(100, 2), 1L, null);
        Object value = throughJsonConverter(EnvelopeCodec.toValue(e, ValueFormat.JSON));
        Object key = throughJsonConverter(EnvelopeCodec.toKey(e.id(), ValueFormat.JSON));
        assertThat(value).isInstanceOf(Map.class);

        SinkChange c = change(record("t", 0, key, value));

        // JsonConverter gives every integer back as a Long: int32 must still come out as int32
        assertThat(c.document().get("small")).isEqualTo(new BsonInt32(7));
        assertThat(c.document().get("big")).isEqualTo(new BsonInt64(7));
        assertThat(c.document()).isEqualTo(richDoc());
        assertThat(c.id()).isEqualTo(richDoc().get("_id"));
    }

    @Test
    void jsonTextEnvelopeFromStringConverterIsRead() {
        ChangeEvent e = event(Op.REPLACE, SHOP_ORDERS, 5, doc(5, "five"), 300);
        String text = EnvelopeCodec.toBson(e).toJson();
        SinkChange c = change(record("t", 0, "{\"_id\": 5}", text));

        assertThat(c.document()).isEqualTo(doc(5, "five"));
        assertThat(c.version()).isEqualTo(new org.bson.BsonTimestamp(300, 1));
    }

    @Test
    void deleteEnvelopeCarriesItsClusterTime() {
        SinkChange c = change(envelopeRecord("t", 0, event(Op.DELETE, SHOP_ORDERS, 5, null, 400), ValueFormat.BSON));
        assertThat(c.isDelete()).isTrue();
        assertThat(c.document()).isNull();
        assertThat(c.version()).isEqualTo(new org.bson.BsonTimestamp(400, 1));
    }

    @Test
    void updateWhoseDocumentTheSourceCouldNoLongerReadIsSkipped() {
        BsonDocument deltaWithoutId = new BsonDocument("name", new BsonString("x"));
        assertThat(decoder.decode(envelopeRecord("t", 0, event(Op.UPDATE, SHOP_ORDERS, 5, deltaWithoutId, 1), ValueFormat.BSON)))
                .isInstanceOf(Decoded.Skip.class);
        assertThat(decoder.decode(envelopeRecord("t", 0, event(Op.REPLACE, SHOP_ORDERS, 5, null, 1), ValueFormat.JSON)))
                .isInstanceOf(Decoded.Skip.class);
        assertThatThrownBy(() -> decoder.decode(envelopeRecord("t", 0, event(Op.INSERT, SHOP_ORDERS, 5, null, 1), ValueFormat.BSON)))
                .isInstanceOf(MalformedRecordException.class);
    }

    @Test
    void plainSchemalessDocumentIsAnUpsertWithoutVersion() {
        Map<String, Object> plain = new LinkedHashMap<>();
        plain.put("_id", 9L);
        plain.put("name", "nine");
        SinkChange c = change(record("t", 0, null, throughJsonConverter(plain)));

        assertThat(c.kind()).isEqualTo(SinkChange.Kind.WRITE);
        assertThat(c.id()).isEqualTo(new BsonInt32(9));
        assertThat(c.version()).isNull();
        assertThat(c.sourceNs()).isNull();
    }

    @Test
    void plainDocumentWithoutIdTakesItFromTheKeyAndFirst() {
        SinkChange c = change(record("t", 0, Map.of("_id", "k1"), Map.of("name", "x")));
        assertThat(c.document().getFirstKey()).isEqualTo("_id");
        assertThat(c.document().getString("_id").getValue()).isEqualTo("k1");
    }

    @Test
    void versionFieldGivesPlainDocumentsAVersion() {
        RecordDecoder withVersion = TestRecords.decoder(TombstoneAction.DELETE, Optional.of("meta.updatedAt"));
        BsonDocument d = doc(1, "x").append("meta", new BsonDocument("updatedAt", new BsonDateTime(42)));
        SinkChange c = (SinkChange) withVersion.decode(record("t", 0, null, EnvelopeCodec.toBytes(d)));
        assertThat(c.version()).isEqualTo(new BsonDateTime(42));
    }

    @Test
    void structIsConvertedFieldByField() {
        Schema address = SchemaBuilder.struct().field("city", Schema.STRING_SCHEMA).build();
        Schema schema = SchemaBuilder.struct()
                .field("_id", Schema.INT64_SCHEMA)
                .field("qty", Schema.INT16_SCHEMA)
                .field("ratio", Schema.FLOAT32_SCHEMA)
                .field("price", Decimal.schema(2))
                .field("at", Timestamp.SCHEMA)
                .field("raw", Schema.BYTES_SCHEMA)
                .field("tags", SchemaBuilder.array(Schema.STRING_SCHEMA).build())
                .field("attrs", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA).build())
                .field("address", address)
                .field("note", Schema.OPTIONAL_STRING_SCHEMA)
                .build();
        Struct s = new Struct(schema).put("_id", 10L).put("qty", (short) 3).put("ratio", 0.5f)
                .put("price", new BigDecimal("9.99")).put("at", new java.util.Date(5000))
                .put("raw", new byte[] {9}).put("tags", List.of("a", "b")).put("attrs", Map.of("k", 1))
                .put("address", new Struct(address).put("city", "Lyon"));

        SinkChange c = change(new SinkRecord("t", 0, null, null, schema, s, 0));
        BsonDocument d = c.document();

        assertThat(d.get("_id")).isEqualTo(new BsonInt64(10));
        assertThat(d.get("qty")).isEqualTo(new BsonInt32(3));
        assertThat(d.getDouble("ratio").getValue()).isEqualTo(0.5);
        assertThat(d.get("price")).isEqualTo(new BsonDecimal128(Decimal128.parse("9.99")));
        assertThat(d.get("at")).isEqualTo(new BsonDateTime(5000));
        assertThat(d.getBinary("raw").getData()).containsExactly(9);
        assertThat(d.getArray("tags")).containsExactly(new BsonString("a"), new BsonString("b"));
        assertThat(d.getDocument("attrs").get("k")).isEqualTo(new BsonInt32(1));
        assertThat(d.getDocument("address").getString("city").getValue()).isEqualTo("Lyon");
        assertThat(d.get("note").isNull()).isTrue();
        assertThat(d.keySet()).containsExactly("_id", "qty", "ratio", "price", "at", "raw", "tags", "attrs", "address", "note");
    }

    @Test
    void tombstoneDeletesTheKeyIdOrIsIgnored() {
        SinkRecord tomb = record("t", 0, EnvelopeCodec.toKey(new BsonInt32(3), ValueFormat.BSON), null);
        tomb.headers().addString(EventHeaders.NAMESPACE, "shop.orders");

        SinkChange c = change(tomb);
        assertThat(c.isDelete()).isTrue();
        assertThat(c.id()).isEqualTo(new BsonInt32(3));
        assertThat(c.sourceNs()).isEqualTo(SHOP_ORDERS);
        assertThat(c.version()).isNull();

        RecordDecoder ignoring = TestRecords.decoder(TombstoneAction.IGNORE, Optional.empty());
        assertThat(ignoring.decode(tomb)).isInstanceOf(Decoded.Skip.class);
    }

    @Test
    void nonChangeRecordsAreSkipped() {
        SinkRecord heartbeat = record("t", 0, null, "{}");
        heartbeat.headers().addString(EventHeaders.KIND, EventHeaders.KIND_HEARTBEAT);
        assertThat(decoder.decode(heartbeat)).isInstanceOf(Decoded.Skip.class);
    }

    @Test
    void malformedRecordsSayWhy() {
        assertThatThrownBy(() -> decoder.decode(record("t", 0, null, 42L))).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("must be a document");
        assertThatThrownBy(() -> decoder.decode(record("t", 0, null, "{\"_id\": 1, oops"))).isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("not a JSON document");
        assertThatThrownBy(() -> decoder.decode(record("t", 0, null, "not json at all".getBytes(StandardCharsets.UTF_8))))
                .isInstanceOf(MalformedRecordException.class);
        BsonDocument unknownOp = EnvelopeCodec.toBson(event(Op.INSERT, SHOP_ORDERS, 1, doc(1, "x"), 1)).append("op", new BsonString("merge"));
        assertThatThrownBy(() -> decoder.decode(record("t", 0, null, EnvelopeCodec.toBytes(unknownOp))))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("unknown op 'merge'");
        assertThatThrownBy(() -> decoder.decode(record("t", 0, null, Map.of("name", "no id and no key"))))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("_id");
        BsonDocument mismatched = EnvelopeCodec.toBson(event(Op.INSERT, SHOP_ORDERS, 1, doc(2, "x"), 1));
        assertThatThrownBy(() -> decoder.decode(record("t", 0, null, EnvelopeCodec.toBytes(mismatched))))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("differs");
    }
}
