package dev.tideline.sink.guard;

import static dev.tideline.sink.TestRecords.ts;
import static dev.tideline.sink.guard.GuardRules.Decision.APPLY;
import static dev.tideline.sink.guard.GuardRules.Decision.SKIP_STALE;
import static dev.tideline.sink.guard.GuardRules.Decision.SKIP_UNPROVEN_DELETE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.sink.plan.VersionOrder;
import java.util.Optional;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Test;

class GuardRulesTest {
    private static Optional<StoredVersion> stored(int seconds, boolean deleted) {
        return Optional.of(new StoredVersion(ts(seconds), deleted));
    }

    @Test
    void olderChangeIsStaleNewerAndEqualApply() {
        assertThat(GuardRules.decide(ts(99), false, stored(100, false))).isEqualTo(SKIP_STALE);
        assertThat(GuardRules.decide(ts(100), false, stored(100, false))).isEqualTo(APPLY);
        assertThat(GuardRules.decide(ts(101), false, stored(100, false))).isEqualTo(APPLY);
        assertThat(GuardRules.decide(new BsonTimestamp(100, 0), false, stored(100, false))).isEqualTo(SKIP_STALE);
    }

    @Test
    void lateDeleteDoesNotRemoveANewerReinsert() {
        assertThat(GuardRules.decide(ts(150), true, stored(200, false))).isEqualTo(SKIP_STALE);
        assertThat(GuardRules.decide(ts(250), true, stored(200, false))).isEqualTo(APPLY);
    }

    @Test
    void olderWriteDoesNotResurrectADeletedDocument() {
        assertThat(GuardRules.decide(ts(150), false, stored(200, true))).isEqualTo(SKIP_STALE);
    }

    @Test
    void nothingStoredApplies() {
        assertThat(GuardRules.decide(ts(1), false, Optional.empty())).isEqualTo(APPLY);
        assertThat(GuardRules.decide(null, true, Optional.empty())).isEqualTo(APPLY);
    }

    @Test
    void unversionedWritesBypassButUnversionedDeletesCannotRemoveAVersionedLiveDocument() {
        assertThat(GuardRules.decide(null, false, stored(100, false))).isEqualTo(APPLY);
        assertThat(GuardRules.decide(null, true, stored(100, false))).isEqualTo(SKIP_UNPROVEN_DELETE);
        assertThat(GuardRules.decide(null, true, stored(100, true))).isEqualTo(APPLY);
    }

    @Test
    void versionFieldKindsCompareWithinTheirKindOnly() {
        assertThat(VersionOrder.compare(new BsonDateTime(1), new BsonDateTime(2))).contains(-1);
        assertThat(VersionOrder.compare(new BsonInt32(5), new BsonInt64(5))).contains(0);
        assertThat(VersionOrder.compare(new BsonDouble(5.5), new BsonDecimal128(Decimal128.parse("5.4")))).contains(1);
        assertThat(VersionOrder.compare(new BsonString("2024-02"), new BsonString("2024-01"))).contains(1);
        assertThat(VersionOrder.compare(ts(1), new BsonDateTime(1))).isEmpty();
        assertThat(VersionOrder.compare(new BsonDouble(Double.NaN), new BsonInt32(1))).isEmpty();
        // incomparable kinds apply rather than guess
        assertThat(GuardRules.decide(new BsonDateTime(1), false, stored(100, false))).isEqualTo(APPLY);
    }

    @Test
    void withinOneClusterTimeTheTransactionsOrderDecides() {
        Optional<StoredVersion> atOp4 = Optional.of(new StoredVersion(ts(100), false, 4L));
        assertThat(GuardRules.decide(ts(100), 1L, false, atOp4)).as("earlier in the transaction").isEqualTo(SKIP_STALE);
        assertThat(GuardRules.decide(ts(100), 1L, true, atOp4)).as("an earlier delete").isEqualTo(SKIP_STALE);
        assertThat(GuardRules.decide(ts(100), 4L, false, atOp4)).as("the same change again").isEqualTo(APPLY);
        assertThat(GuardRules.decide(ts(100), 5L, false, atOp4)).isEqualTo(APPLY);
        assertThat(GuardRules.decide(ts(101), 0L, false, atOp4)).as("a later cluster time, whatever its index").isEqualTo(APPLY);
        assertThat(GuardRules.decide(ts(99), 9L, false, atOp4)).as("an earlier cluster time, whatever its index")
                .isEqualTo(SKIP_STALE);
    }

    @Test
    void withoutATieBreakerOnBothSidesEqualVersionsApplyInArrivalOrder() {
        assertThat(GuardRules.decide(ts(100), null, false, Optional.of(new StoredVersion(ts(100), false, 4L)))).isEqualTo(APPLY);
        assertThat(GuardRules.decide(ts(100), 1L, false, stored(100, false))).isEqualTo(APPLY);
        assertThat(VersionOrder.compare(ts(100), 1L, ts(100), 4L)).contains(-1);
        assertThat(VersionOrder.compare(ts(100), null, ts(100), 4L)).contains(0);
        assertThat(VersionOrder.compare(ts(101), 1L, ts(100), 4L)).contains(1);
        assertThat(VersionOrder.compare(new BsonString("a"), 1L, ts(100), 4L)).isEmpty();
    }
}
