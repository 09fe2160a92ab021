package dev.tideline.verify;

import static dev.tideline.verify.RecheckPolicy.Verdict.DIFFERENT;
import static dev.tideline.verify.RecheckPolicy.Verdict.SETTLED;
import static dev.tideline.verify.RecheckPolicy.Verdict.UNSETTLED;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecheckPolicyTest {
    @Test
    void equalNowIsSettledWhateverCameBefore() {
        assertThat(RecheckPolicy.judge(new Observation("a", null), new Observation("a", "a"))).isEqualTo(SETTLED);
        assertThat(RecheckPolicy.judge(null, new Observation(null, null))).isEqualTo(SETTLED);
    }

    @Test
    void stillDifferentWithNothingMovingIsADifference() {
        assertThat(RecheckPolicy.judge(new Observation("a", null), new Observation("a", null))).isEqualTo(DIFFERENT);
        assertThat(RecheckPolicy.judge(new Observation(null, "x"), new Observation(null, "x"))).isEqualTo(DIFFERENT);
        assertThat(RecheckPolicy.judge(new Observation("a", "b"), new Observation("a", "b"))).isEqualTo(DIFFERENT);
    }

    @Test
    void aSideThatMovedOrNoPreviousLookMeansLookAgain() {
        assertThat(RecheckPolicy.judge(new Observation("a", "b"), new Observation("a2", "b"))).isEqualTo(UNSETTLED);
        assertThat(RecheckPolicy.judge(new Observation("a", "b"), new Observation("a", "b2"))).isEqualTo(UNSETTLED);
        assertThat(RecheckPolicy.judge(new Observation("a", null), new Observation("a", "old"))).isEqualTo(UNSETTLED);
        assertThat(RecheckPolicy.judge(null, new Observation("a", "b"))).isEqualTo(UNSETTLED);
    }

    @Test
    void kindsFromTheLook() {
        assertThat(new Observation("a", null).kind()).isEqualTo(FindingKind.MISSING);
        assertThat(new Observation(null, "b").kind()).isEqualTo(FindingKind.EXTRA);
        assertThat(new Observation("a", "b").kind()).isEqualTo(FindingKind.DIFFERENT);
    }
}
