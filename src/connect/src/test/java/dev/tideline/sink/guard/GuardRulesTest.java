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
}
