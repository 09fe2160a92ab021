package dev.tideline.sink.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.IdScope;
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
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class SweepRuleTest {
    private static final BsonTimestamp EPOCH = new BsonTimestamp(1_700_000_100, 5);

    @Test
    void onlyClusterTimesOlderThanTheEpochAreSwept() {
        assertThat(SweepRule.sweeps(new BsonTimestamp(1_700_000_099, 9), EPOCH)).as("older: deleted in the gap").isTrue();
        assertThat(SweepRule.sweeps(new BsonTimestamp(1_700_000_100, 4), EPOCH)).as("older by the increment").isTrue();
        assertThat(SweepRule.sweeps(EPOCH, EPOCH)).as("the copy itself").isFalse();
        assertThat(SweepRule.sweeps(new BsonTimestamp(1_700_000_100, 6), EPOCH)).as("changed after the copy began").isFalse();
    }

    @Test
    void versionsThatAreNotClusterTimesSayNothingAboutTheEpoch() {
        assertThat(SweepRule.sweeps(new BsonDateTime(0), EPOCH)).isFalse();
        assertThat(SweepRule.sweeps(new BsonInt64(1), EPOCH)).isFalse();
        assertThat(SweepRule.sweeps(null, EPOCH)).isFalse();
    }

    @Test
    void ordersSecondsAsUnsignedPast2038() {
        BsonTimestamp late = new BsonTimestamp((int) 3_000_000_000L, 1); // negative as a signed int
        assertThat(SweepRule.sweeps(EPOCH, late)).isTrue();
        assertThat(SweepRule.sweeps(late, EPOCH)).isFalse();
    }

    private static final BsonTimestamp OLDER = new BsonTimestamp(1_700_000_099, 9);

    private static BsonValue i(int v) {
        return new BsonInt32(v);
    }

    private static BsonValue s(String v) {
        return new BsonString(v);
    }

    @Test
    void aScopeHoldsItsLowerBoundAndNotItsUpperOne() {
        IdScope scope = new IdScope(i(10), i(20));
        assertThat(SweepRule.inScope(i(9), scope)).isFalse();
        assertThat(SweepRule.inScope(i(10), scope)).as("from is inclusive").isTrue();
        assertThat(SweepRule.inScope(i(19), scope)).isTrue();
        assertThat(SweepRule.inScope(i(20), scope)).as("to is exclusive").isFalse();
        assertThat(SweepRule.inScope(i(10), new IdScope(i(10), i(10)))).as("an empty range").isFalse();
    }

    @Test
    void aMissingBoundIsUnbounded() {
        assertThat(SweepRule.inScope(new BsonMinKey(), new IdScope(null, i(0)))).isTrue();
        assertThat(SweepRule.inScope(i(0), new IdScope(null, i(0)))).isFalse();
        assertThat(SweepRule.inScope(new BsonMaxKey(), new IdScope(i(0), null))).isTrue();
        assertThat(SweepRule.inScope(i(-1), new IdScope(i(0), null))).isFalse();
        for (BsonValue id : new BsonValue[] {new BsonMinKey(), BsonNull.VALUE, i(1), s("x"), new BsonDocument(), new BsonMaxKey()}) {
            assertThat(SweepRule.inScope(id, IdScope.ALL)).as("%s", id).isTrue();
        }
    }

    @Test
    void idsCompareInMongoDbOrderAcrossTypes() {
        // numbers < strings < documents < ObjectIds, whatever the values
        assertThat(SweepRule.inScope(s("0"), new IdScope(i(0), i(1_000_000)))).as("a string is after every number").isFalse();
        assertThat(SweepRule.inScope(s(""), new IdScope(i(1_000_000), null))).isTrue();
        assertThat(SweepRule.inScope(i(Integer.MAX_VALUE), new IdScope(null, s("")))).isTrue();
        assertThat(SweepRule.inScope(new BsonObjectId(new ObjectId("000000000000000000000000")), new IdScope(s("a"), new BsonDocument())))
                .isFalse();
        assertThat(SweepRule.inScope(new BsonDocument("a", i(1)), new IdScope(s("zzz"), new BsonObjectId(new ObjectId())))).isTrue();
        // numbers compare by value whatever their type: 20.0 and NumberLong(20) are the bound 20
        assertThat(SweepRule.inScope(new BsonDouble(20.0), new IdScope(i(10), i(20)))).isFalse();
        assertThat(SweepRule.inScope(new BsonInt64(10L), new IdScope(i(10), i(20)))).isTrue();
        assertThat(SweepRule.inScope(new BsonDecimal128(Decimal128.parse("19.99")), new IdScope(i(10), new BsonDouble(20.0)))).isTrue();
        // strings by UTF-8 bytes (the simple collation): "B" < "a"
        assertThat(SweepRule.inScope(s("B"), new IdScope(s("a"), s("z")))).isFalse();
        assertThat(SweepRule.inScope(s("ab"), new IdScope(s("a"), s("b")))).isTrue();
    }

    @Test
    void aScopedCopySweepsOnlyOldVersionsInsideItsRange() {
        IdScope scope = new IdScope(s("m"), null);
        assertThat(SweepRule.sweeps(OLDER, EPOCH, s("n"), scope)).as("old and inside").isTrue();
        assertThat(SweepRule.sweeps(OLDER, EPOCH, s("a"), scope)).as("old but outside: not copied, stays").isFalse();
        assertThat(SweepRule.sweeps(OLDER, EPOCH, i(5), scope)).as("a number is before every string").isFalse();
        assertThat(SweepRule.sweeps(EPOCH, EPOCH, s("n"), scope)).as("inside, the copy itself").isFalse();
        assertThat(SweepRule.sweeps(new BsonDateTime(0), EPOCH, s("n"), scope)).isFalse();
        assertThat(SweepRule.sweeps(OLDER, EPOCH, i(5), IdScope.ALL)).as("the whole collection, as before").isTrue();
    }
}
