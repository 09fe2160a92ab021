package dev.tideline.event;

import static dev.tideline.event.BsonCorpus.canonicalBytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.connect.json.JsonConverter;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EnvelopeCodecTest {
    private static final String TOPIC = "tideline.shop.orders";

    private static JsonConverter jsonConverter(boolean isKey) {
        JsonConverter c = new JsonConverter();
        c.configure(Map.of("schemas.enable", "false"), isKey);
        return c;
    }

    /** What a consumer sees after the worker serialized the value with JsonConverter (schemaless). */
    private static Object throughJsonConverter(Object value, boolean isKey) {
        JsonConverter c = jsonConverter(isKey);
        byte[] wire = c.fromConnectData(TOPIC, null, value);
        return c.toConnectData(TOPIC, wire).value();
    }

    private static String jsonConverterText(Object value) {
        return new String(jsonConverter(false).fromConnectData(TOPIC, null, value), StandardCharsets.UTF_8);
    }

    // ---- (a) bson form ----

    @Test
    void bsonFormIsByteIdentical() {
        BsonDocument original = BsonCorpus.document();
        ChangeEvent event = BsonCorpus.event(original);

        Object value = EnvelopeCodec.toValue(event, ValueFormat.BSON);
        assertThat(value).isInstanceOf(byte[].class);
        ChangeEvent back = EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(value));

        assertThat(EnvelopeCodec.toBytes(back.document())).isEqualTo(EnvelopeCodec.toBytes(original));
        assertThat(EnvelopeCodec.toValue(back, ValueFormat.BSON)).isEqualTo(value);
        assertThat(back.op()).isEqualTo(Op.INSERT);
        assertThat(back.ns()).isEqualTo(new Namespace("shop", "orders.v2"));
        assertThat(back.id()).isEqualTo(new BsonObjectId(BsonCorpus.OID));
        assertThat(back.clusterTime()).isEqualTo(event.clusterTime());
        assertThat(back.wallTimeMillis()).isEqualTo(1_714_521_600_456L);
        assertThat(back.origin()).isEqualTo("cluster-a");
    }

    @Test
    void bsonFormAlsoReadsFromByteBuffer() {
        ChangeEvent event = BsonCorpus.event(BsonCorpus.document());
        byte[] bytes = (byte[]) EnvelopeCodec.toValue(event, ValueFormat.BSON);
        ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 3);
        buffer.put(new byte[] {1, 2, 3}).put(bytes).flip().position(3);

        BsonDocument read = EnvelopeCodec.readDocument(buffer);

        assertThat(EnvelopeCodec.toBytes(read)).isEqualTo(bytes);
        assertThat(buffer.position()).as("reading must not consume the caller's buffer").isEqualTo(3);
    }

    @Test
    void deleteEnvelopeHasNoDocumentAndRoundTrips() {
        ChangeEvent delete = new ChangeEvent(Op.DELETE, new Namespace("shop", "orders"), new BsonInt64(5L), null, null, 99L, null);
        BsonDocument envelope = EnvelopeCodec.toBson(delete);

        assertThat(envelope.keySet()).containsExactly("v", "op", "db", "coll", "id", "wallTime");
        assertThat(EnvelopeCodec.fromBson(envelope)).isEqualTo(delete);
    }

    // ---- (b) json form through JsonConverter ----

    @Test
    void jsonFormThroughJsonConverterPreservesValuesAndTypes() {
        BsonDocument original = BsonCorpus.document();
        ChangeEvent event = BsonCorpus.event(original);

        Object value = EnvelopeCodec.toValue(event, ValueFormat.JSON);
        Object consumed = throughJsonConverter(value, false);
        BsonDocument envelope = EnvelopeCodec.readDocument(consumed);
        ChangeEvent back = EnvelopeCodec.fromBson(envelope);

        assertThat(canonicalBytes(back.document())).isEqualTo(canonicalBytes(original));
        assertThat(canonicalBytes(envelope)).isEqualTo(canonicalBytes(EnvelopeCodec.toBson(event)));
        assertThat(back.clusterTime()).isEqualTo(event.clusterTime());
        assertThat(back.wallTimeMillis()).isEqualTo(event.wallTimeMillis());
        assertThat(back.origin()).isEqualTo("cluster-a");
    }

    @Test
    void jsonFormKeepsNumericTypesExactly() {
        BsonDocument original = BsonCorpus.document();
        BsonDocument back = EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(
                throughJsonConverter(EnvelopeCodec.toValue(BsonCorpus.event(original), ValueFormat.JSON), false))).document();

        assertThat(back.get("int64Small")).isEqualTo(new BsonInt64(5L));
        assertThat(back.get("int32")).isEqualTo(new BsonInt32(42));
        assertThat(back.get("doubleOne").getBsonType()).isEqualTo(BsonType.DOUBLE);
        assertThat(back.get("doubleOne").asDouble().getValue()).isEqualTo(1.0);
        assertThat(Double.doubleToRawLongBits(back.getDouble("doubleNegZero").getValue()))
                .as("-0.0 must keep its sign").isEqualTo(Double.doubleToRawLongBits(-0.0));
        assertThat(back.getDouble("doubleNaN").getValue()).isNaN();
        assertThat(back.getDouble("doubleInf").getValue()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(back.getDecimal128("decimalNegZero").getValue().isNegative()).isTrue();
        assertThat(back.getDecimal128("decimalNaN").getValue().isNaN()).isTrue();
        assertThat(back.getDateTime("dateBefore1970").getValue()).isEqualTo(-1_234_567_890_123L);
        assertThat(back.getTimestamp("timestamp").getTime()).isEqualTo((int) 0x8000_0001L);
        assertThat(back.getTimestamp("timestamp").getInc()).isEqualTo((int) 0x8000_0002L);
        assertThat(back.getBinary("userDefined").getType()).isEqualTo((byte) 0x80);
        assertThat(back.get("dollarKeySingle")).isEqualTo(new BsonDocument("$foo", new BsonString("bar")));
    }

    @Test
    void jsonFormWithoutConverterKeepsFieldOrderToTheByte() {
        BsonDocument original = BsonCorpus.document();
        ChangeEvent event = BsonCorpus.event(original);

        BsonDocument envelope = EnvelopeCodec.readDocument(EnvelopeCodec.toValue(event, ValueFormat.JSON));

        assertThat(EnvelopeCodec.toBytes(envelope)).isEqualTo(EnvelopeCodec.toBytes(EnvelopeCodec.toBson(event)));
    }

    // ---- (c) json text (StringConverter) ----

    @Test
    void jsonTextWrittenInOrderReadsBack() throws Exception {
        BsonDocument original = BsonCorpus.document();
        ChangeEvent event = BsonCorpus.event(original);
        String text = new ObjectMapper().writeValueAsString(EnvelopeCodec.toValue(event, ValueFormat.JSON));

        BsonDocument envelope = EnvelopeCodec.readDocument(text);

        assertThat(canonicalBytes(EnvelopeCodec.fromBson(envelope).document())).isEqualTo(canonicalBytes(original));
        assertThat(EnvelopeCodec.toBytes(envelope)).isEqualTo(EnvelopeCodec.toBytes(EnvelopeCodec.toBson(event)));
    }

    @Test
    void jsonTextProducedByJsonConverterReadsBack() {
        BsonDocument original = BsonCorpus.document();
        ChangeEvent event = BsonCorpus.event(original);
        // producer side: JsonConverter; consumer side: StringConverter (text)
        String text = jsonConverterText(EnvelopeCodec.toValue(event, ValueFormat.JSON));

        BsonDocument envelope = EnvelopeCodec.readDocument(text);

        assertThat(canonicalBytes(EnvelopeCodec.fromBson(envelope).document())).isEqualTo(canonicalBytes(original));
    }

    @Test
    void jsonTextReSerializedFromAConsumersHashMapReadsBack() throws Exception {
        // e.g. an SMT chain or a mirror that re-serializes the schemaless map: wrapper fields may come in any order
        BsonDocument original = BsonCorpus.document();
        ChangeEvent event = BsonCorpus.event(original);
        Object consumed = throughJsonConverter(EnvelopeCodec.toValue(event, ValueFormat.JSON), false);
        String text = new ObjectMapper().writeValueAsString(consumed);

        BsonDocument back = EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(text)).document();

        assertThat(back.keySet()).containsExactlyInAnyOrderElementsOf(original.keySet());
        org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions();
        for (String field : original.keySet()) {
            soft.assertThat(BsonCorpus.sorted(back.get(field))).as(field).isEqualTo(BsonCorpus.sorted(original.get(field)));
        }
        soft.assertAll();
    }

    // ---- (d) keys ----

    static Stream<Arguments> ids() {
        return Stream.of(
                Arguments.of(new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b"))),
                Arguments.of(new BsonString("order-17 ✓")),
                Arguments.of(new BsonInt64(5L)),
                Arguments.of(new BsonInt64(Long.MIN_VALUE)),
                Arguments.of(new BsonInt32(5)),
                Arguments.of(new BsonDouble(5.0)),
                Arguments.of(new BsonDocument("a", new BsonInt32(1)).append("b", new BsonString("x"))));
    }

    @ParameterizedTest
    @MethodSource("ids")
    void keyRoundTripsInBsonForm(BsonValue id) {
        Object key = EnvelopeCodec.toKey(id, ValueFormat.BSON);
        assertThat(key).isInstanceOf(byte[].class);
        assertThat(EnvelopeCodec.readKeyId(key)).isEqualTo(id);
    }

    @ParameterizedTest
    @MethodSource("ids")
    void keyRoundTripsInJsonForm(BsonValue id) {
        Object key = EnvelopeCodec.toKey(id, ValueFormat.JSON);
        assertThat(key).isInstanceOf(Map.class);
        assertThat(EnvelopeCodec.readKeyId(key)).isEqualTo(id);
        assertThat(EnvelopeCodec.readKeyId(throughJsonConverter(key, true))).isEqualTo(id);
    }

    @Test
    void compoundDocumentIdKeepsFieldOrderInBsonForm() {
        // a compound _id is compared field by field IN ORDER by MongoDB: {z:1, a:2} and {a:2, z:1} are different ids.
        // JsonConverter's schemaless maps are HashMaps, so only the bson form keeps that order (README: use bson
        // for collections with compound ids); this test pins the bson side.
        BsonDocument id = new BsonDocument("z", new BsonInt32(1)).append("a", new BsonInt32(2));

        BsonValue back = EnvelopeCodec.readKeyId(EnvelopeCodec.toKey(id, ValueFormat.BSON));

        assertThat(back.asDocument().keySet()).containsExactly("z", "a");
    }

    @Test
    void keyFromBareValuesAndJsonText() {
        assertThat(EnvelopeCodec.readKeyId("plain-string")).isEqualTo(new BsonString("plain-string"));
        assertThat(EnvelopeCodec.readKeyId(7L)).isEqualTo(new BsonInt32(7));
        assertThat(EnvelopeCodec.readKeyId("{\"_id\": {\"$numberLong\": \"5\"}}")).isEqualTo(new BsonInt64(5L));
        assertThat(EnvelopeCodec.readKeyId("{\"_id\": {\"$oid\": \"65f1a2b3c4d5e6f708192a3b\"}}"))
                .isEqualTo(new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")));
    }

    // ---- malformed input ----

    @Test
    void threeRandomBytesAreRejected() {
        assertThatThrownBy(() -> EnvelopeCodec.readDocument(new byte[] {0x13, 0x37, 0x42}))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("3 bytes").hasMessageContaining("not a BSON document");
    }

    @Test
    void garbageBytesOfDocumentLengthAreRejected() {
        byte[] bytes = {0x20, 0, 0, 0, 0x7f, 'a', 0, 1, 2, 3, 4, 5};
        assertThatThrownBy(() -> EnvelopeCodec.readDocument(bytes))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("not a valid BSON document");
    }

    @Test
    void jsonArrayTextIsRejected() {
        assertThatThrownBy(() -> EnvelopeCodec.readDocument("[1, 2, 3]"))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("not a JSON document");
    }

    @Test
    void nonJsonTextIsRejected() {
        assertThatThrownBy(() -> EnvelopeCodec.readDocument("hello"))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("not a JSON document");
    }

    @Test
    void otherValueTypesAreRejectedNamingTheType() {
        assertThatThrownBy(() -> EnvelopeCodec.readDocument(List.of(1, 2)))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("got List");
        assertThatThrownBy(() -> EnvelopeCodec.readDocument(null))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("got null");
    }

    private static BsonDocument validEnvelope() {
        return EnvelopeCodec.toBson(new ChangeEvent(Op.UPDATE, new Namespace("db", "c"), new BsonInt32(1),
                new BsonDocument("_id", new BsonInt32(1)), null, 5L, null));
    }

    @Test
    void envelopeVersion2IsRejected() {
        BsonDocument d = validEnvelope();
        d.put("v", new BsonInt32(2));
        assertThatThrownBy(() -> EnvelopeCodec.fromBson(d))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("version 2").hasMessageContaining("upgrade");
    }

    @Test
    void envelopeWithoutVersionIsRejected() {
        BsonDocument d = validEnvelope();
        d.remove("v");
        assertThatThrownBy(() -> EnvelopeCodec.fromBson(d))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("'v' is missing");
    }

    @Test
    void unknownOpIsRejected() {
        BsonDocument d = validEnvelope();
        d.put("op", new BsonString("upsert"));
        assertThatThrownBy(() -> EnvelopeCodec.fromBson(d))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("unknown op 'upsert'");
    }

    @Test
    void missingIdIsRejected() {
        BsonDocument d = validEnvelope();
        d.remove("id");
        assertThatThrownBy(() -> EnvelopeCodec.fromBson(d))
                .isInstanceOf(MalformedRecordException.class)
                .hasMessageContaining("no 'id'");
    }

    @Test
    void badNamespaceAndBadDocumentAreRejected() {
        BsonDocument noDb = validEnvelope();
        noDb.put("db", new BsonString(""));
        assertThatThrownBy(() -> EnvelopeCodec.fromBson(noDb))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("bad namespace");

        BsonDocument badDoc = validEnvelope();
        badDoc.put("document", new BsonString("x"));
        assertThatThrownBy(() -> EnvelopeCodec.fromBson(badDoc))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("'document' must be a document");
    }

    @Test
    void missingKeyIsRejected() {
        assertThatThrownBy(() -> EnvelopeCodec.readKeyId(null))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("no key");
        assertThatThrownBy(() -> EnvelopeCodec.readKeyId(Map.of("id", 1)))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("no '_id'");
    }
}
