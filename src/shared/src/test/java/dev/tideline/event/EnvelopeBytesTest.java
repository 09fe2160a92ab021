package dev.tideline.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bson form copies a document read from the server as raw bytes, and the bytes are the same as a
 * full encode; writing fields by type gives exactly the bytes of the document codec.
 */
class EnvelopeBytesTest {
    private static final Namespace NS = new Namespace("db", "coll");

    private static byte[] viaDocumentCodec(BsonDocument d) {
        BasicOutputBuffer buffer = new BasicOutputBuffer();
        try (BsonBinaryWriter writer = new BsonBinaryWriter(buffer)) {
            new BsonDocumentCodec().encode(writer, d, EncoderContext.builder().build());
        }
        return buffer.toByteArray();
    }

    @Test
    void aRawDocumentGivesTheSameEnvelopeBytesAsItsDecodedForm() {
        BsonDocument decoded = BsonDocument.parse("{_id: 7, s: 'héllo ✓', n: {$numberLong: '9007199254740993'},"
                + " d: {$numberDecimal: '1.10'}, a: [1, {x: null}], b: {$binary: {base64: 'AQID', subType: '04'}},"
                + " nested: {deep: {deeper: 'x'}}, t: {$date: '2024-05-01T00:00:00Z'}}");
        RawBsonDocument raw = new RawBsonDocument(decoded, new BsonDocumentCodec());
        BsonTimestamp ct = new BsonTimestamp(1_700_000_000, 3);
        ChangeEvent fromServer = new ChangeEvent(Op.INSERT, NS, new BsonInt32(7), raw, ct, 1L, null);
        ChangeEvent decodedEvent = new ChangeEvent(Op.INSERT, NS, new BsonInt32(7), decoded, ct, 1L, null);

        byte[] bytes = (byte[]) EnvelopeCodec.toValue(fromServer, ValueFormat.BSON);

        assertThat(bytes).isEqualTo(viaDocumentCodec(EnvelopeCodec.toBson(decodedEvent)));
        assertThat(bytes).isEqualTo((byte[]) EnvelopeCodec.toValue(decodedEvent, ValueFormat.BSON));
        assertThat(EnvelopeCodec.fromBson(EnvelopeCodec.fromBytes(bytes)).document()).isEqualTo(decoded);
        ByteBuffer docBytes = raw.getByteBuffer().asNIO();
        byte[] expectedDoc = new byte[docBytes.remaining()];
        docBytes.get(expectedDoc);
        assertThat(indexOf(bytes, expectedDoc)).isPositive();
    }

    @Test
    void theWholeBsonCorpusEncodesTheSameRawOrDecoded() {
        BsonDocument corpus = BsonCorpus.document();
        RawBsonDocument raw = new RawBsonDocument(corpus, new BsonDocumentCodec());
        ChangeEvent rawEvent = new ChangeEvent(Op.REPLACE, NS, corpus.get("_id"), raw, null, 5L, "a");
        ChangeEvent decodedEvent = new ChangeEvent(Op.REPLACE, NS, corpus.get("_id"), corpus, null, 5L, "a");
        assertThat((byte[]) EnvelopeCodec.toValue(rawEvent, ValueFormat.BSON))
                .isEqualTo(viaDocumentCodec(EnvelopeCodec.toBson(decodedEvent)));
    }

    static Stream<BsonValue> ids() {
        return Stream.of(new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")), new BsonString("order-42 ✓"),
                new BsonInt32(7), new BsonInt64(-9L), new BsonDecimal128(Decimal128.parse("1.50")),
                new BsonDocument("a", new BsonInt32(1)).append("b", new BsonArray(List.of(new BsonString("x")))),
                new BsonBinary(new byte[] {1, 2, 3}));
    }

    @ParameterizedTest
    @MethodSource("ids")
    void sameBytesAsTheDocumentPathForEveryShapeOfEvent(BsonValue id) {
        BsonDocument doc = BsonCorpus.document().append("_id", id);
        RawBsonDocument raw = new RawBsonDocument(doc, new org.bson.codecs.BsonDocumentCodec());
        BsonTimestamp ct = new BsonTimestamp(1_714_521_600, 3);
        for (ChangeEvent e : List.of(
                new ChangeEvent(Op.INSERT, NS, id, raw, ct, 1_714_521_600_456L, null),
                new ChangeEvent(Op.UPDATE, NS, id, doc, ct, 1_714_521_600_456L, "cluster-a"),
                new ChangeEvent(Op.REPLACE, NS, id, raw, null, 5L, null),
                new ChangeEvent(Op.DELETE, NS, id, null, ct, 1_714_521_600_456L, "cluster-b"))) {
            byte[] expected = viaDocumentCodec(EnvelopeCodec.toBson(e));
            assertThat(EnvelopeCodec.toValue(e, ValueFormat.BSON)).isEqualTo(expected);
            assertThat(EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(expected))).isEqualTo(
                    EnvelopeCodec.fromBson(EnvelopeCodec.toBson(e)));
        }
        assertThat(EnvelopeCodec.toKey(id, ValueFormat.BSON)).isEqualTo(viaDocumentCodec(new BsonDocument("_id", id)));
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
