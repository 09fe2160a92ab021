package dev.tideline.source.scan;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDateTime;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class BsonOrderTest {
    @Test
    void numbersCompareByValueAcrossTypes() {
        assertThat(BsonOrder.compare(new BsonInt32(2), new BsonInt64(2))).isZero();
        assertThat(BsonOrder.compare(new BsonDouble(2.5), new BsonInt64(2))).isPositive();
        assertThat(BsonOrder.compare(new BsonInt64(Long.MAX_VALUE), new BsonInt64(Long.MAX_VALUE - 1))).isPositive();
    }

    @Test
    void typesRankAsTheServerSorts() {
        assertThat(BsonOrder.compare(BsonNull.VALUE, new BsonInt32(0))).isNegative();
        assertThat(BsonOrder.compare(new BsonInt32(999), new BsonString("a"))).isNegative();
        assertThat(BsonOrder.compare(new BsonString("z"), new BsonObjectId())).isNegative();
        assertThat(BsonOrder.compare(new BsonObjectId(), new BsonDateTime(0))).isNegative();
    }

    @Test
    void isAfterUsesTheIdOnlyOnTies() {
        BsonObjectId a = new BsonObjectId(new ObjectId("65a000000000000000000001"));
        BsonObjectId b = new BsonObjectId(new ObjectId("65a000000000000000000002"));
        ScanCursor at = ScanCursor.after(new BsonDateTime(10), a);
        assertThat(BsonOrder.isAfter(new BsonDateTime(10), b, at)).isTrue();
        assertThat(BsonOrder.isAfter(new BsonDateTime(10), a, at)).isFalse();
        assertThat(BsonOrder.isAfter(new BsonDateTime(9), b, at)).isFalse();
        assertThat(BsonOrder.isAfter(new BsonDateTime(10), a, ScanCursor.from(new BsonDateTime(10)))).isTrue();
        assertThat(BsonOrder.isAfter(new BsonDateTime(0), a, null)).isTrue();
    }
}
