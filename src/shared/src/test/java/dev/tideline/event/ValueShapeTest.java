package dev.tideline.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonRegularExpression;
import org.junit.jupiter.api.Test;

/** Nesting measured before decoding, in every form: deep values are refused, never a stack overflow. */
class ValueShapeTest {
    private static final int TEN_THOUSAND = 10_000;

    @Test
    void tenThousandLevelsAreRefusedBeforeDecodingInEveryForm() {
        assertThat(ValueShape.bsonProblem(DeepValues.bson(TEN_THOUSAND))).get().asString().contains("deeper than 104 levels");
        assertThat(ValueShape.jsonTextProblem(DeepValues.json(TEN_THOUSAND))).get().asString().contains("deeper than 104");
        assertThat(ValueShape.javaProblem(DeepValues.map(TEN_THOUSAND))).get().asString().contains("deeper than 104");

        // the codecs themselves refuse with the reason instead of overflowing the stack
        assertThatThrownBy(() -> EnvelopeCodec.fromBytes(DeepValues.bsonEnvelope(1, TEN_THOUSAND)))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("record value nests deeper than 104");
        assertThatThrownBy(() -> EnvelopeCodec.readDocument(DeepValues.jsonEnvelope(1, TEN_THOUSAND)))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("deeper than 104");
        assertThatThrownBy(() -> EnvelopeCodec.readDocument(DeepValues.mapEnvelope(1, TEN_THOUSAND)))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("deeper than 104");
        assertThatThrownBy(() -> EnvelopeCodec.readKeyId(List.of(DeepValues.map(TEN_THOUSAND))))
                .isInstanceOf(MalformedRecordException.class).hasMessageContaining("record key nests deeper");
    }

    @Test
    void aDocumentAsDeepAsMongoDbStoresStillDecodesInAnEnvelope() {
        // a document of 100 levels inside the envelope: 101 levels in the record value
        BsonDocument env = EnvelopeCodec.fromBytes(DeepValues.bsonEnvelope(7, 100));
        assertThat(env.getDocument("document").getInt32("_id").getValue()).isEqualTo(7);
        assertThat(ValueShape.bsonProblem(DeepValues.bson(ValueShape.MAX_DEPTH))).isEmpty();
        assertThat(ValueShape.bsonProblem(DeepValues.bson(ValueShape.MAX_DEPTH + 1))).isPresent();
        assertThat(ValueShape.jsonTextProblem(DeepValues.json(ValueShape.MAX_DEPTH))).isEmpty();
        assertThat(ValueShape.jsonTextProblem(DeepValues.json(ValueShape.MAX_DEPTH + 1))).isPresent();
        assertThat(ValueShape.javaProblem(DeepValues.map(ValueShape.MAX_DEPTH))).isEmpty();
        assertThat(ValueShape.javaProblem(DeepValues.map(ValueShape.MAX_DEPTH + 1))).isPresent();
        assertThat(EnvelopeCodec.readDocument(DeepValues.jsonEnvelope(7, 100)).getDocument("document").size()).isEqualTo(2);
    }

    @Test
    void everyBsonTypeIsWalkedAndBrokenLengthsAreReportedNotThrown() {
        BsonDocument all = BsonDocument.parse("{d: 1.5, s: 'x', o: {a: [1, {b: null}]}, bin: {$binary: {base64: 'AQI=', subType: '00'}},"
                + " u: {$undefined: true}, oid: {$oid: '5099803df3f4948bd2f98391'}, t: true, date: {$date: 0}, n: null,"
                + " re: {$regularExpression: {pattern: 'a.*', options: 'i'}},"
                + " js: {$code: 'f()'}, sym: {$symbol: 's'}, i: 1, ts: {$timestamp: {t: 1, i: 2}}, l: {$numberLong: '3'},"
                + " dec: {$numberDecimal: '1.1'}, min: {$minKey: 1}, max: {$maxKey: 1}}");
        all.put("dbp", new org.bson.BsonDbPointer("db.c", new org.bson.types.ObjectId("5099803df3f4948bd2f98391")));
        all.put("jsws", new BsonJavaScriptWithScope("g()", new BsonDocument("x", new BsonDocument("y", new BsonRegularExpression("z")))));
        byte[] bytes = EnvelopeCodec.toBytes(all);
        assertThat(ValueShape.bsonProblem(bytes)).isEmpty();
        assertThat(EnvelopeCodec.fromBytes(bytes)).isEqualTo(all);

        byte[] broken = bytes.clone();
        broken[0] = (byte) 0xFF; // length beyond the bytes
        assertThat(ValueShape.bsonProblem(broken)).get().asString().contains("not a valid BSON document");
        byte[] badInner = bytes.clone();
        badInner[bytes.length - 1] = 7; // no terminator
        assertThat(ValueShape.bsonProblem(badInner)).get().asString().contains("not a valid BSON document");
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 10);
        truncated[0] = (byte) truncated.length;
        truncated[1] = (byte) (truncated.length >> 8);
        assertThat(ValueShape.bsonProblem(truncated)).isPresent();
    }

    @Test
    void fieldNamesWithANulCharacterAreRefused() {
        assertThat(ValueShape.jsonTextProblem("{\"a\\u0000b\": 1}")).get().asString().contains("NUL");
        assertThat(ValueShape.jsonTextProblem("{\"a\": \"value with \\u0000 is fine\"}")).isEmpty();
        assertThat(ValueShape.javaProblem(Map.of("x", Map.of("a\0b", 1)))).get().asString().contains("NUL");
        assertThat(ValueShape.jsonTextProblem("{\"a\": \"{{{{ [[[ in a string is not nesting\"}")).isEmpty();
    }
}
