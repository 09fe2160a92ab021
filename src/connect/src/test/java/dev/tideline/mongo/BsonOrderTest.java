package dev.tideline.mongo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDbPointer;
import org.bson.BsonJavaScript;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonSymbol;
import org.bson.BsonUndefined;
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

public class BsonOrderTest {
    /** One value of each bracket, in MongoDB's comparison order. */
    public static final List<BsonValue> ONE_PER_BRACKET = List.of(new BsonMinKey(), new BsonUndefined(), BsonNull.VALUE, new BsonInt32(5),
            new BsonString("a"), new BsonDocument("a", new BsonInt32(1)), new BsonArray(List.of(new BsonInt32(1))),
            new BsonBinary(new byte[] {1}), new BsonObjectId(new ObjectId("000000000000000000000001")), BsonBoolean.FALSE,
            new BsonDateTime(0), new BsonTimestamp(1, 1), new BsonRegularExpression("a"),
            new BsonDbPointer("db.c", new ObjectId("000000000000000000000001")), new BsonJavaScript("f()"),
            new BsonJavaScriptWithScope("f()", new BsonDocument()), new BsonMaxKey());

    @Test
    void everyBracketHasItsTypeAliasesAndOneValueHere() {
        assertThat(ONE_PER_BRACKET).hasSize(BsonOrder.BRACKETS);
        for (int i = 0; i < BsonOrder.BRACKETS; i++) {
            assertThat(BsonOrder.bracket(ONE_PER_BRACKET.get(i).getBsonType())).isEqualTo(i);
            assertThat(BsonOrder.typeAliases(i)).isNotEmpty();
        }
    }

    @Test
    void symbolsSortWithStringsByTheirText() {
        assertThat(BsonOrder.compare(new BsonSymbol("b"), new BsonString("a"))).isPositive();
        assertThat(BsonOrder.compare(new BsonSymbol("a"), new BsonString("a"))).isZero();
        assertThat(BsonOrder.bracket(org.bson.BsonType.SYMBOL)).isEqualTo(BsonOrder.bracket(org.bson.BsonType.STRING));
    }

    @Test
    void decimalInfinityIsBeyondTheLargestFiniteDecimal() {
        assertThat(BsonOrder.compare(new BsonDecimal128(Decimal128.POSITIVE_INFINITY),
                new BsonDecimal128(Decimal128.parse("9.999999999999999999999999999999999E+6144")))).isPositive();
        assertThat(BsonOrder.compare(new BsonDecimal128(Decimal128.NEGATIVE_INFINITY), new BsonDouble(Double.NEGATIVE_INFINITY))).isZero();
    }

    @Test
    void typeBracketsInMongoDbOrder() {
        List<BsonValue> shuffled = new ArrayList<>(ONE_PER_BRACKET);
        Collections.shuffle(shuffled, new Random(7));
        shuffled.sort(BsonOrder.COMPARATOR);
        assertThat(shuffled).containsExactlyElementsOf(ONE_PER_BRACKET);
    }

    @Test
    void numbersCompareByValueAcrossTypesAndNaNIsLowest() {
        assertThat(BsonOrder.compare(new BsonInt32(1), new BsonDouble(1.0))).isZero();
        assertThat(BsonOrder.compare(new BsonInt64(1L << 53 | 1), new BsonDouble(1L << 53))).isPositive();
        assertThat(BsonOrder.compare(new BsonDouble(2.5), new BsonInt32(3))).isNegative();
        assertThat(BsonOrder.compare(new BsonDecimal128(Decimal128.parse("2.50")), new BsonDouble(2.5))).isZero();
        assertThat(BsonOrder.compare(new BsonDouble(Double.NaN), new BsonInt64(Long.MIN_VALUE))).isNegative();
        assertThat(BsonOrder.compare(new BsonDouble(Double.NaN), new BsonDecimal128(Decimal128.NaN))).isZero();
        assertThat(BsonOrder.compare(new BsonDouble(Double.NEGATIVE_INFINITY), new BsonDouble(-Double.MAX_VALUE))).isNegative();
        assertThat(BsonOrder.compare(new BsonDecimal128(Decimal128.NEGATIVE_ZERO), new BsonInt32(0))).isZero();
    }

    @Test
    void stringsCompareByUtf8BytesNotUtf16Units() {
        // U+FF5E is after U+1F600 in UTF-16 code units (0xFF5E > 0xD83D) but before it in UTF-8 bytes, as on the server
        assertThat(BsonOrder.compare(new BsonString("\uFF5E"), new BsonString("\uD83D\uDE00"))).isNegative();
        assertThat(BsonOrder.compare(new BsonString("ab"), new BsonString("b"))).isNegative();
        assertThat(BsonOrder.compare(new BsonString("a"), new BsonString("ab"))).isNegative();
    }

    @Test
    void documentsCompareElementByElement() {
        BsonDocument a1 = new BsonDocument("a", new BsonInt32(1));
        BsonDocument a1b = new BsonDocument("a", new BsonInt32(1)).append("b", new BsonInt32(0));
        BsonDocument a2 = new BsonDocument("a", new BsonInt32(2));
        BsonDocument b0 = new BsonDocument("b", new BsonInt32(0));
        BsonDocument aString = new BsonDocument("a", new BsonString("x"));
        assertThat(BsonOrder.compare(a1, a1b)).isNegative();
        assertThat(BsonOrder.compare(a1b, a2)).isNegative();
        assertThat(BsonOrder.compare(a2, b0)).isNegative();
        // the value's type bracket comes before the field name
        assertThat(BsonOrder.compare(aString, b0)).isPositive();
    }

    @Test
    void binariesByLengthThenSubtypeThenBytes() {
        assertThat(BsonOrder.compare(new BsonBinary(new byte[] {9}), new BsonBinary(new byte[] {0, 0}))).isNegative();
        assertThat(BsonOrder.compare(new BsonBinary((byte) 0, new byte[] {9}), new BsonBinary((byte) 4, new byte[] {0}))).isNegative();
        assertThat(BsonOrder.compare(new BsonBinary(new byte[] {(byte) 0x80}), new BsonBinary(new byte[] {1}))).isPositive();
    }

    @Test
    void objectIdsAndTimestampsAsUnsigned() {
        assertThat(BsonOrder.compare(new BsonObjectId(new ObjectId("ff0000000000000000000000")),
                new BsonObjectId(new ObjectId("0f0000000000000000000000")))).isPositive();
        assertThat(BsonOrder.compare(new BsonTimestamp(0x80000000L << 32), new BsonTimestamp(1, 0))).isPositive();
    }
}
