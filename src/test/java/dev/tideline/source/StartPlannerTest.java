package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.source.StartPlanner.Phase;
import dev.tideline.source.StartPlanner.Plan;
import dev.tideline.source.config.CaptureSettings.InitialSync;
import dev.tideline.source.config.CaptureSettings.InitialSync.Kind;
import dev.tideline.source.config.CaptureSettings.Mode;
import java.time.Instant;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StartPlannerTest {
    private static final BsonTimestamp NOW = new BsonTimestamp(1_714_521_600, 3);
    private static final InitialSync FULL = new InitialSync(Kind.FULL, null);
    private static final InitialSync SKIP = new InitialSync(Kind.SKIP, null);
    private static final InitialSync LATEST = new InitialSync(Kind.LATEST, null);
    private static final Instant DATE_AT = Instant.parse("2024-05-01T12:00:00Z");
    private static final InitialSync DATE = new InitialSync(Kind.DATE, DATE_AT);

    private static final SourceOffset STORED_BACKFILL = SourceOffset.backfill(new BsonTimestamp(100, 1), new BsonInt32(7));
    private static final SourceOffset STORED_STREAM = SourceOffset.streamAfter(new BsonDocument("_data", new BsonString("8266669980000000032B")));
    private static final SourceOffset STORED_SCAN = SourceOffset.scan(new BsonInt32(5), new BsonInt32(6));

    // ---- no stored offset, streams in use ----

    @Test
    void newCollectionFullSyncIsANewCopyThatTakesItsStreamStartWhenItBegins() {
        Plan plan = StartPlanner.plan(null, Mode.AUTO, FULL, true, () -> {
            throw new AssertionError("a copy waiting its turn must not take its stream start now");
        });
        assertThat(plan).isEqualTo(new Plan(Phase.BACKFILL, null));
    }

    @Test
    void newCollectionSkipStreamsFromNow() {
        Plan plan = StartPlanner.plan(null, Mode.AUTO, SKIP, true, () -> NOW);
        assertThat(plan.phase()).isEqualTo(Phase.STREAM);
        assertThat(plan.offset()).isEqualTo(SourceOffset.streamFrom(NOW));
    }

    @Test
    void newCollectionLatestWithStreamsStreamsFromNow() {
        Plan plan = StartPlanner.plan(null, Mode.AUTO, LATEST, true, () -> NOW);
        assertThat(plan).isEqualTo(new Plan(Phase.STREAM, SourceOffset.streamFrom(NOW)));
    }

    @Test
    void newCollectionDateStreamsFromThatSecond() {
        Plan plan = StartPlanner.plan(null, Mode.AUTO, DATE, true, () -> NOW);
        assertThat(plan.phase()).isEqualTo(Phase.STREAM);
        assertThat(plan.offset().startAt()).isEqualTo(new BsonTimestamp((int) DATE_AT.getEpochSecond(), 0));
        assertThat(plan.offset().token()).isNull();
    }

    @Test
    void dateAfter2038KeepsUnsignedSeconds() {
        Instant at = Instant.parse("2040-01-01T00:00:00Z");
        Plan plan = StartPlanner.plan(null, Mode.CHANGE_STREAM, new InitialSync(Kind.DATE, at), true, () -> NOW);
        assertThat(Integer.toUnsignedLong(plan.offset().startAt().getTime())).isEqualTo(at.getEpochSecond());
        assertThat(SourceOffset.fromMap(plan.offset().toMap())).isEqualTo(plan.offset());
    }

    @Test
    void changeStreamModeUsesStreamsEvenWhenDetectionSaysNo() {
        assertThat(StartPlanner.plan(null, Mode.CHANGE_STREAM, FULL, false, () -> NOW))
                .isEqualTo(new Plan(Phase.BACKFILL, null));
        assertThat(StartPlanner.plan(STORED_STREAM, Mode.CHANGE_STREAM, FULL, false, () -> NOW))
                .isEqualTo(new Plan(Phase.STREAM, STORED_STREAM));
    }

    // ---- no streams ----

    @ParameterizedTest
    @EnumSource(Kind.class)
    void newCollectionWithoutStreamsScansFromItsInitialSync(Kind kind) {
        InitialSync sync = new InitialSync(kind, kind == Kind.DATE ? DATE_AT : null);
        assertThat(StartPlanner.plan(null, Mode.AUTO, sync, false, () -> NOW)).isEqualTo(new Plan(Phase.SCAN, null));
        assertThat(StartPlanner.plan(null, Mode.SCAN, sync, true, () -> NOW)).isEqualTo(new Plan(Phase.SCAN, null));
    }

    // ---- stored offsets, auto ----

    @Test
    void storedBackfillResumesWithStreams() {
        Plan plan = StartPlanner.plan(STORED_BACKFILL, Mode.AUTO, SKIP, true, () -> NOW);
        assertThat(plan.phase()).isEqualTo(Phase.BACKFILL);
        assertThat(plan.offset()).isSameAs(STORED_BACKFILL);
    }

    @Test
    void storedStreamResumesWithStreams() {
        Plan plan = StartPlanner.plan(STORED_STREAM, Mode.AUTO, FULL, true, () -> NOW);
        assertThat(plan.phase()).isEqualTo(Phase.STREAM);
        assertThat(plan.offset()).isSameAs(STORED_STREAM);
    }

    @Test
    void storedScanWithStreamsStartsOverAsNewCollection() {
        assertThat(StartPlanner.plan(STORED_SCAN, Mode.AUTO, FULL, true, () -> NOW))
                .isEqualTo(new Plan(Phase.BACKFILL, null));
        assertThat(StartPlanner.plan(STORED_SCAN, Mode.AUTO, SKIP, true, () -> NOW))
                .isEqualTo(new Plan(Phase.STREAM, SourceOffset.streamFrom(NOW)));
    }

    @Test
    void storedScanWithoutStreamsResumesTheScan() {
        Plan plan = StartPlanner.plan(STORED_SCAN, Mode.AUTO, FULL, false, () -> NOW);
        assertThat(plan.phase()).isEqualTo(Phase.SCAN);
        assertThat(plan.offset()).isSameAs(STORED_SCAN);
    }

    @Test
    void storedStreamPositionsWithoutStreamsStartAScanOver() {
        assertThat(StartPlanner.plan(STORED_BACKFILL, Mode.AUTO, FULL, false, () -> NOW)).isEqualTo(new Plan(Phase.SCAN, null));
        assertThat(StartPlanner.plan(STORED_STREAM, Mode.AUTO, FULL, false, () -> NOW)).isEqualTo(new Plan(Phase.SCAN, null));
    }

    // ---- mode scan although streams are available ----

    @Test
    void scanModeIgnoresStreams() {
        assertThat(StartPlanner.plan(STORED_SCAN, Mode.SCAN, FULL, true, () -> NOW)).isEqualTo(new Plan(Phase.SCAN, STORED_SCAN));
        assertThat(StartPlanner.plan(STORED_STREAM, Mode.SCAN, FULL, true, () -> NOW)).isEqualTo(new Plan(Phase.SCAN, null));
        assertThat(StartPlanner.plan(STORED_BACKFILL, Mode.SCAN, SKIP, true, () -> NOW)).isEqualTo(new Plan(Phase.SCAN, null));
    }
}
