package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.bson.BsonArray;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The id read from a document's bytes is the driver's, for every type and wherever the id stands. */
class DocumentIdsTest {
    static Stream<BsonValue> ids() {
        return Stream.of(new BsonInt32(Integer.MIN_VALUE), new BsonInt32(42), new BsonInt64(Long.MIN_VALUE), new BsonInt64(7),
                new BsonObjectId(new ObjectId("65f1a2b3c4d5e6f708192a3b")), new BsonString(""), new BsonString("a"),
                new BsonString("é"), new BsonString("order ✓ \uD83D\uDE00"), new BsonString("nul\u0000inside"),
                new BsonDouble(1.5), new BsonDecimal128(Decimal128.parse("1.10")), BsonNull.VALUE,
                new BsonDocument("a", new BsonInt32(1)), new BsonArray(List.of(new BsonInt32(1))));
    }

    private static RawBsonDocument raw(BsonDocument d) {
        return new RawBsonDocument(d, new BsonDocumentCodec());
    }

    @ParameterizedTest
    @MethodSource("ids")
    void theSameIdAsTheDriversFirstOrNotInAViewOrNot(BsonValue id) {
        BsonDocument first = new BsonDocument("_id", id).append("pad", new BsonString("x".repeat(50)));
        BsonDocument later = new BsonDocument("a", new BsonInt32(1)).append("_id", id);
        BsonDocument holder = new BsonDocument("before", new BsonString("y")).append("doc", first);
        RawBsonDocument view = (RawBsonDocument) raw(holder).getDocument("doc"); // a range inside a larger array
        for (RawBsonDocument d : List.of(raw(first), raw(later), view)) {
            assertThat(DocumentIds.idOf(d)).isEqualTo(d.get("_id")).isEqualTo(id);
        }
    }

    @Test
    void malformedUtf8DecodesAsTheDriverDecodesIt() {
        // {_id: <string of the bytes C3 28>} : an invalid two-byte sequence
        byte[] bytes = {22, 0, 0, 0, 2, '_', 'i', 'd', 0, 3, 0, 0, 0, (byte) 0xC3, 0x28, 0, 16, 'n', 0, 1, 0, 0, 0, 0};
        bytes[0] = (byte) bytes.length;
        RawBsonDocument d = new RawBsonDocument(bytes);
        assertThat(DocumentIds.idOf(d)).isEqualTo(d.get("_id"));
    }

    @Test
    void aDocumentWithoutAnIdHasNone() {
        assertThat(DocumentIds.idOf(raw(new BsonDocument("a", new BsonInt32(1))))).isNull();
    }
}
