package dev.tideline.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The direct envelope writer gives exactly the bytes of the generic path (document, then codec). */
class EnvelopeBytesTest {
    private static final Namespace NS = new Namespace("shop", "orders.v2");

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
            byte[] expected = EnvelopeCodec.toBytes(EnvelopeCodec.toBson(e));
            assertThat(EnvelopeCodec.toValue(e, ValueFormat.BSON)).isEqualTo(expected);
            assertThat(EnvelopeCodec.fromBson(EnvelopeCodec.readDocument(expected))).isEqualTo(
                    EnvelopeCodec.fromBson(EnvelopeCodec.toBson(e)));
        }
        assertThat(EnvelopeCodec.toKey(id, ValueFormat.BSON)).isEqualTo(EnvelopeCodec.toBytes(new BsonDocument("_id", id)));
    }
}
