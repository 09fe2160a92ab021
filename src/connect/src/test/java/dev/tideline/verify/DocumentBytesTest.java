package dev.tideline.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tideline.event.EnvelopeCodec;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDbPointer;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonSerializationException;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonUndefined;
import org.bson.RawBsonDocument;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class DocumentBytesTest {
    /** Every BSON type, so walking past each one is exercised. */
    static BsonDocument everyType() {
        return new BsonDocument("_id", new BsonInt32(1)).append("double", new BsonDouble(2.5)).append("string", new BsonString("héllo"))
                .append("doc", new BsonDocument("x", new BsonInt32(1))).append("array", new BsonArray(List.of(new BsonInt32(1), BsonNull.VALUE)))
                .append("binary", new BsonBinary((byte) 4, new byte[16])).append("undefined", new BsonUndefined())
                .append("oid", new BsonObjectId(new ObjectId())).append("bool", BsonBoolean.TRUE).append("date", new BsonDateTime(5))
                .append("null", BsonNull.VALUE).append("regex", new BsonRegularExpression("a.*", "im"))
                .append("dbPointer", new BsonDbPointer("db.c", new ObjectId())).append("code", new BsonJavaScript("f()"))
                .append("symbol", new BsonSymbol("s")).append("codeWithScope", new BsonJavaScriptWithScope("g()", new BsonDocument("a", new BsonInt32(1))))
                .append("int32", new BsonInt32(7)).append("timestamp", new BsonTimestamp(3, 4)).append("int64", new BsonInt64(8))
                .append("decimal", new BsonDecimal128(Decimal128.parse("1.5"))).append("min", new BsonMinKey()).append("max", new BsonMaxKey());
    }

    private static RawBsonDocument raw(BsonDocument d) {
        return new RawBsonDocument(EnvelopeCodec.toBytes(d));
    }

    @Test
    void withoutIgnoredFieldsTheContentIsTheElementBytesAsSent() {
        BsonDocument every = everyType();
        RawBsonDocument doc = raw(every);
        ByteBuffer content = DocumentBytes.content(doc, Set.of());
        byte[] all = EnvelopeCodec.toBytes(every);
        assertThat(content.remaining()).isEqualTo(all.length - 5);
        assertThat(content).isEqualTo(ByteBuffer.wrap(all, 4, all.length - 5));
    }

    @Test
    void ignoredFieldsAreLeftOutWhereverTheyAre() {
        BsonDocument plain = everyType();
        for (String at : List.of("first", "middle", "last")) {
            BsonDocument stamped = new BsonDocument();
            if (at.equals("first")) {
                stamped.append("_tl", new BsonDocument("o", new BsonString("A")));
            }
            for (var e : plain.entrySet()) {
                stamped.append(e.getKey(), e.getValue());
                if (at.equals("middle") && e.getKey().equals("regex")) {
                    stamped.append("_tl", new BsonDocument("o", new BsonString("B")));
                }
            }
            if (at.equals("last")) {
                stamped.append("_tl", new BsonString("C"));
            }
            assertThat(DocumentBytes.content(raw(stamped), Set.of("_tl"))).as(at)
                    .isEqualTo(DocumentBytes.content(raw(plain), Set.of("_tl")));
            assertThat(DocumentBytes.content(raw(stamped), Set.of())).as(at)
                    .isNotEqualTo(DocumentBytes.content(raw(plain), Set.of()));
        }
    }

    @Test
    void onlyTopLevelFieldsAreIgnored() {
        BsonDocument a = new BsonDocument("_id", new BsonInt32(1)).append("n", new BsonDocument("_tl", new BsonInt32(1)));
        BsonDocument b = new BsonDocument("_id", new BsonInt32(1)).append("n", new BsonDocument("_tl", new BsonInt32(2)));
        assertThat(DocumentBytes.content(raw(a), Set.of("_tl"))).isNotEqualTo(DocumentBytes.content(raw(b), Set.of("_tl")));
    }

    @Test
    void idsReadStraightFromTheBytesEqualTheDriversDecoding() {
        List<org.bson.BsonValue> ids = List.of(new BsonObjectId(new ObjectId()), new BsonString("héllo ✓"), new BsonString(""),
                new BsonInt32(-7), new BsonInt64(Long.MIN_VALUE), new BsonDouble(-0.5), new BsonDecimal128(Decimal128.parse("1.5")),
                new BsonDocument("a", new BsonInt32(1)), BsonNull.VALUE, new BsonBinary(new byte[] {1}));
        for (org.bson.BsonValue id : ids) {
            RawBsonDocument first = raw(new BsonDocument("_id", id).append("x", new BsonInt32(1)));
            RawBsonDocument notFirst = raw(new BsonDocument("x", new BsonInt32(1)).append("_id", id));
            assertThat(DocumentBytes.id(first)).as(id.toString()).isEqualTo(first.get("_id")).isEqualTo(id);
            assertThat(DocumentBytes.id(notFirst)).as(id.toString()).isEqualTo(id);
        }
        RawBsonDocument idLike = raw(new BsonDocument("_idx", new BsonInt32(1)).append("_id", new BsonInt32(2)));
        assertThat(DocumentBytes.id(idLike)).isEqualTo(new BsonInt32(2));
    }

    @Test
    void aTruncatedElementIsRefused() {
        byte[] bytes = EnvelopeCodec.toBytes(new BsonDocument("_id", new BsonInt32(1)).append("s", new BsonString("abc")));
        // claim a longer string than the document holds
        bytes[4 + 1 + 4 + 4 + 1 + 2] = 100;
        assertThatThrownBy(() -> DocumentBytes.content(new RawBsonDocument(bytes), Set.of("_tl")))
                .isInstanceOf(BsonSerializationException.class).hasMessageContaining("runs past the end");
    }
}
