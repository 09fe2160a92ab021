package dev.tideline.sink.guard;

import static org.assertj.core.api.Assertions.assertThat;

import org.bson.BsonDateTime;
import org.bson.BsonInt64;
import org.bson.BsonTimestamp;
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
}
