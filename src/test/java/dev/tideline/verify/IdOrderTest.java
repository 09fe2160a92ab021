package dev.tideline.verify;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class IdOrderTest {
    /** One value of each bracket, in MongoDB's comparison order. */
    static final List<BsonValue> ONE_PER_BRACKET = List.of(new BsonMinKey(), BsonNull.VALUE, new BsonInt32(5), new BsonString("a"),
            new BsonDocument("a", new BsonInt32(1)), new BsonArray(List.of(new BsonInt32(1))), new BsonBinary(new byte[] {1}),
            new BsonObjectId(new ObjectId("000000000000000000000001")), BsonBoolean.FALSE, new BsonDateTime(0),
            new BsonTimestamp(1, 1), new BsonRegularExpression("a"), new BsonMaxKey());

    @Test
    void typeBracketsInMongoDbOrder() {
        List<BsonValue> shuffled = new ArrayList<>(ONE_PER_BRACKET);
        Collections.shuffle(shuffled, new Random(7));
        shuffled.sort(IdOrder.COMPARATOR);
        assertThat(shuffled).containsExactlyElementsOf(ONE_PER_BRACKET);
    }

    @Test
    void numbersCompareByValueAcrossTypesAndNaNIsLowest() {
        assertThat(IdOrder.compare(new BsonInt32(1), new BsonDouble(1.0))).isZero();
        assertThat(IdOrder.compare(new BsonInt64(1L << 53 | 1), new BsonDouble(1L << 53))).isPositive();
        assertThat(IdOrder.compare(new BsonDouble(2.5), new BsonInt32(3))).isNegative();
        assertThat(IdOrder.compare(new BsonDecimal128(Decimal128.parse("2.50")), new BsonDouble(2.5))).isZero();
        assertThat(IdOrder.compare(new BsonDouble(Double.NaN), new BsonInt64(Long.MIN_VALUE))).isNegative();
        assertThat(IdOrder.compare(new BsonDouble(Double.NaN), new BsonDecimal128(Decimal128.NaN))).isZero();
        assertThat(IdOrder.compare(new BsonDouble(Double.NEGATIVE_INFINITY), new BsonDouble(-Double.MAX_VALUE))).isNegative();
        assertThat(IdOrder.compare(new BsonDecimal128(Decimal128.NEGATIVE_ZERO), new BsonInt32(0))).isZero();
    }

    @Test
    void stringsCompareByUtf8BytesNotUtf16Units() {
        // U+FF5E is after U+1F600 in UTF-16 code units (0xFF5E > 0xD83D) but before it in UTF-8 bytes, as on the server
        assertThat(IdOrder.compare(new BsonString("\uFF5E"), new BsonString("\uD83D\uDE00"))).isNegative();
        assertThat(IdOrder.compare(new BsonString("ab"), new BsonString("b"))).isNegative();
        assertThat(IdOrder.compare(new BsonString("a"), new BsonString("ab"))).isNegative();
    }

    @Test
    void documentsCompareElementByElement() {
        BsonDocument a1 = new BsonDocument("a", new BsonInt32(1));
        BsonDocument a1b = new BsonDocument("a", new BsonInt32(1)).append("b", new BsonInt32(0));
        BsonDocument a2 = new BsonDocument("a", new BsonInt32(2));
        BsonDocument b0 = new BsonDocument("b", new BsonInt32(0));
        BsonDocument aString = new BsonDocument("a", new BsonString("x"));
        assertThat(IdOrder.compare(a1, a1b)).isNegative();
        assertThat(IdOrder.compare(a1b, a2)).isNegative();
        assertThat(IdOrder.compare(a2, b0)).isNegative();
        // the value's type bracket comes before the field name
        assertThat(IdOrder.compare(aString, b0)).isPositive();
    }

    @Test
    void binariesByLengthThenSubtypeThenBytes() {
        assertThat(IdOrder.compare(new BsonBinary(new byte[] {9}), new BsonBinary(new byte[] {0, 0}))).isNegative();
        assertThat(IdOrder.compare(new BsonBinary((byte) 0, new byte[] {9}), new BsonBinary((byte) 4, new byte[] {0}))).isNegative();
        assertThat(IdOrder.compare(new BsonBinary(new byte[] {(byte) 0x80}), new BsonBinary(new byte[] {1}))).isPositive();
    }

    @Test
    void objectIdsAndTimestampsAsUnsigned() {
        assertThat(IdOrder.compare(new BsonObjectId(new ObjectId("ff0000000000000000000000")),
                new BsonObjectId(new ObjectId("0f0000000000000000000000")))).isPositive();
        assertThat(IdOrder.compare(new BsonTimestamp(0x80000000L << 32), new BsonTimestamp(1, 0))).isPositive();
    }
}
