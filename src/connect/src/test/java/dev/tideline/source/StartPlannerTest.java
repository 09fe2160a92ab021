package dev.tideline.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.source.StartPlanner.Phase;
import dev.tideline.source.StartPlanner.Plan;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.config.CaptureSettings.InitialSync;
import dev.tideline.source.config.CaptureSettings.InitialSync.Kind;
import dev.tideline.source.config.CaptureSettings.Mode;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StartPlannerTest {
    private static final BsonTimestamp NOW = new BsonTimestamp(1_714_521_600, 3);
    /** Skip's start of a collection that was there when the connector first captured its database. */
    private static final StartPlanner.SkipStart THERE = new StartPlanner.SkipStart(NOW, true);
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
        Plan plan = StartPlanner.plan(null, Mode.AUTO, SKIP, true, () -> THERE);
        assertThat(plan.phase()).isEqualTo(Phase.STREAM);
        assertThat(plan.offset()).isEqualTo(SourceOffset.streamFrom(NOW));
    }

    @Test
    void skipCopiesACollectionCreatedAfterTheStartBecauseAllOfItIsChange() {
        Plan plan = StartPlanner.plan(null, Mode.AUTO, SKIP, true, () -> new StartPlanner.SkipStart(NOW, false));
        assertThat(plan).isEqualTo(new Plan(Phase.BACKFILL, null));
    }

    // ---- the start skip keeps in the source, for a database met for the first time ----

    private static final BsonTimestamp T0 = new BsonTimestamp(1_000_000, 1);

    @Test
    void theConnectorsFirstStartTakesNowAndTheCollectionsThere() {
        StartPlanner.SkipStart.Anchor a = StartPlanner.SkipStart.newAnchor(List.of(), false, new BsonTimestamp(T0.getTime() + 3, 0), T0, List.of("a", "b"), 600);
        assertThat(a).isEqualTo(new StartPlanner.SkipStart.Anchor(T0, Set.of("a", "b")));
        assertThat(a.startOf("a")).isEqualTo(new StartPlanner.SkipStart(T0, true));
        assertThat(a.startOf("c").wasThere()).isFalse();
    }

    @Test
    void aDatabaseMetSoonAfterTheOthersSharesTheirStartSoARestartBeforeTheFirstCommitLosesNothing() {
        StartPlanner.SkipStart.Anchor other = new StartPlanner.SkipStart.Anchor(T0, Set.of("x"));
        BsonTimestamp later = new BsonTimestamp(T0.getTime() + 600, 0);
        StartPlanner.SkipStart.Anchor a = StartPlanner.SkipStart.newAnchor(List.of(other), false, later, T0, List.of("c"), 600);
        assertThat(a).isEqualTo(new StartPlanner.SkipStart.Anchor(T0, Set.of("c")));
    }

    @Test
    void aDatabaseMetLongAfterTheStartIsNewSinceSoItsCollectionsAreCopied() {
        StartPlanner.SkipStart.Anchor other = new StartPlanner.SkipStart.Anchor(T0, Set.of("x"));
        BsonTimestamp later = new BsonTimestamp(T0.getTime() + 601, 0);
        StartPlanner.SkipStart.Anchor a = StartPlanner.SkipStart.newAnchor(List.of(other), true, later, T0, List.of("c"), 600);
        assertThat(a.startOf("c").wasThere()).isFalse();
    }

    @Test
    void committedOffsetsWithoutAnyKeptStartMeanTheConnectorRanBeforeSoWhatHasNoOffsetIsCopied() {
        StartPlanner.SkipStart.Anchor a = StartPlanner.SkipStart.newAnchor(List.of(), true, T0, T0, List.of("c"), 600);
        assertThat(a.collections()).isEmpty();
    }

    @Test
    void collectionsFirstListedLongAfterTheTaskStartedAreNewSinceSoCopied() {
        BsonTimestamp later = new BsonTimestamp(T0.getTime() + 601, 0);
        StartPlanner.SkipStart.Anchor a = StartPlanner.SkipStart.newAnchor(List.of(), false, later, T0, List.of("c"), 600);
        assertThat(a.collections()).isEmpty();
    }

    @Test
    void theEarliestOtherStartIsTheOneShared() {
        BsonTimestamp t1 = new BsonTimestamp(T0.getTime() + 5, 0);
        StartPlanner.SkipStart.Anchor a = StartPlanner.SkipStart.newAnchor(List.of(new StartPlanner.SkipStart.Anchor(t1, Set.of()),
                new StartPlanner.SkipStart.Anchor(T0, Set.of())), false, new BsonTimestamp(T0.getTime() + 10, 0), T0, List.of("c"), 600);
        assertThat(a.at()).isEqualTo(T0);
    }

    @Test
    void newCollectionLatestWithStreamsStreamsFromNow() {
        Plan plan = StartPlanner.plan(null, Mode.AUTO, LATEST, true, () -> THERE);
        assertThat(plan).isEqualTo(new Plan(Phase.STREAM, SourceOffset.streamFrom(NOW)));
    }

    @Test
    void newCollectionDateStreamsFromThatSecond() {
        Plan plan = StartPlanner.plan(null, Mode.AUTO, DATE, true, () -> THERE);
        assertThat(plan.phase()).isEqualTo(Phase.STREAM);
        assertThat(plan.offset().startAt()).isEqualTo(new BsonTimestamp((int) DATE_AT.getEpochSecond(), 0));
        assertThat(plan.offset().token()).isNull();
    }

    @Test
    void dateAfter2038KeepsUnsignedSeconds() {
        Instant at = Instant.parse("2040-01-01T00:00:00Z");
        Plan plan = StartPlanner.plan(null, Mode.CHANGE_STREAM, new InitialSync(Kind.DATE, at), true, () -> THERE);
        assertThat(Integer.toUnsignedLong(plan.offset().startAt().getTime())).isEqualTo(at.getEpochSecond());
        assertThat(SourceOffset.fromMap(plan.offset().toMap())).isEqualTo(plan.offset());
    }

    @Test
    void changeStreamModeUsesStreamsEvenWhenDetectionSaysNo() {
        assertThat(StartPlanner.plan(null, Mode.CHANGE_STREAM, FULL, false, () -> THERE))
                .isEqualTo(new Plan(Phase.BACKFILL, null));
        assertThat(StartPlanner.plan(STORED_STREAM, Mode.CHANGE_STREAM, FULL, false, () -> THERE))
                .isEqualTo(new Plan(Phase.STREAM, STORED_STREAM));
    }

    // ---- no streams ----

    @ParameterizedTest
    @EnumSource(Kind.class)
    void newCollectionWithoutStreamsScansFromItsInitialSync(Kind kind) {
        InitialSync sync = new InitialSync(kind, kind == Kind.DATE ? DATE_AT : null);
        assertThat(StartPlanner.plan(null, Mode.AUTO, sync, false, () -> THERE)).isEqualTo(new Plan(Phase.SCAN, null));
        assertThat(StartPlanner.plan(null, Mode.SCAN, sync, true, () -> THERE)).isEqualTo(new Plan(Phase.SCAN, null));
    }

    // ---- stored offsets, auto ----

    @Test
    void storedBackfillResumesWithStreams() {
        Plan plan = StartPlanner.plan(STORED_BACKFILL, Mode.AUTO, SKIP, true, () -> THERE);
        assertThat(plan.phase()).isEqualTo(Phase.BACKFILL);
        assertThat(plan.offset()).isSameAs(STORED_BACKFILL);
    }

    @Test
    void storedStreamResumesWithStreams() {
        Plan plan = StartPlanner.plan(STORED_STREAM, Mode.AUTO, FULL, true, () -> THERE);
        assertThat(plan.phase()).isEqualTo(Phase.STREAM);
        assertThat(plan.offset()).isSameAs(STORED_STREAM);
    }

    @Test
    void storedScanWithStreamsStartsOverAsNewCollection() {
        assertThat(StartPlanner.plan(STORED_SCAN, Mode.AUTO, FULL, true, () -> THERE))
                .isEqualTo(new Plan(Phase.BACKFILL, null));
        assertThat(StartPlanner.plan(STORED_SCAN, Mode.AUTO, SKIP, true, () -> THERE))
                .isEqualTo(new Plan(Phase.STREAM, SourceOffset.streamFrom(NOW)));
    }

    @Test
    void storedScanWithoutStreamsResumesTheScan() {
        Plan plan = StartPlanner.plan(STORED_SCAN, Mode.AUTO, FULL, false, () -> THERE);
        assertThat(plan.phase()).isEqualTo(Phase.SCAN);
        assertThat(plan.offset()).isSameAs(STORED_SCAN);
    }

    @Test
    void storedStreamPositionsWithoutStreamsStartAScanOver() {
        assertThat(StartPlanner.plan(STORED_BACKFILL, Mode.AUTO, FULL, false, () -> THERE)).isEqualTo(new Plan(Phase.SCAN, null));
        assertThat(StartPlanner.plan(STORED_STREAM, Mode.AUTO, FULL, false, () -> THERE)).isEqualTo(new Plan(Phase.SCAN, null));
    }

    // ---- mode scan although streams are available ----

    @Test
    void scanModeIgnoresStreams() {
        assertThat(StartPlanner.plan(STORED_SCAN, Mode.SCAN, FULL, true, () -> THERE)).isEqualTo(new Plan(Phase.SCAN, STORED_SCAN));
        assertThat(StartPlanner.plan(STORED_STREAM, Mode.SCAN, FULL, true, () -> THERE)).isEqualTo(new Plan(Phase.SCAN, null));
        assertThat(StartPlanner.plan(STORED_BACKFILL, Mode.SCAN, SKIP, true, () -> THERE)).isEqualTo(new Plan(Phase.SCAN, null));
    }
}
