package dev.tideline.verify.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import dev.tideline.health.HealthState;
import dev.tideline.verify.CollectionPair;
import dev.tideline.verify.CollectionSummary;
import dev.tideline.verify.Outcome;
import dev.tideline.verify.RunResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class VerifyHealthTest {
    private static CollectionSummary c(String coll, long missing, long inFlight, String error) {
        Namespace ns = new Namespace("shop", coll);
        return new CollectionSummary(new CollectionPair(ns, ns), "client", 10, 10, 1, 0, 0, missing, 0, 0, inFlight, 0, 1, error);
    }

    @Test
    void equalOrOnlyInFlightIsOk() {
        assertThat(VerifyHealth.of(new RunResult(List.of(c("a", 0, 0, null)), Outcome.EQUAL, 1, null)).state()).isEqualTo(HealthState.OK);
        assertThat(VerifyHealth.of(new RunResult(List.of(c("a", 0, 3, null)), Outcome.UNSETTLED, 1, null)).reasons()).isEmpty();
    }

    @Test
    void differencesAndUncomparedCollectionsDegradeAndAFailedRunIsDown() {
        var degraded = VerifyHealth.of(new RunResult(List.of(c("a", 2, 0, null), c("b", 0, 0, "boom")), Outcome.FAILED, 1, null));
        assertThat(degraded.state()).isEqualTo(HealthState.DEGRADED);
        assertThat(degraded.reasons()).containsExactly("shop.a: differs (2 missing, 0 extra, 0 different)", "shop.b: not compared (boom)");
        var down = VerifyHealth.of(new RunResult(List.of(c("a", 2, 0, null)), Outcome.FAILED, 1, "cannot reach the source"));
        assertThat(down.state()).isEqualTo(HealthState.DOWN);
        assertThat(down.reasons()).first().isEqualTo("verify: cannot reach the source");
    }
}
