package dev.tideline.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tideline.event.Namespace;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutcomeTest {
    private static final CollectionPair PAIR = new CollectionPair(new Namespace("a", "b"), new Namespace("a", "b"));

    private static CollectionSummary summary(long missing, long inFlight, String error) {
        return new CollectionSummary(PAIR, "client", 10, 10, 1, 1, 2, missing, 0, 0, inFlight, 0, 5, error);
    }

    @Test
    void theWorstOutcomeWinsAndMapsToItsExitCode() {
        assertThat(Outcome.worst(List.of())).isEqualTo(Outcome.EQUAL);
        assertThat(Outcome.worst(List.of(Outcome.EQUAL, Outcome.UNSETTLED))).isEqualTo(Outcome.UNSETTLED);
        assertThat(Outcome.worst(List.of(Outcome.UNSETTLED, Outcome.DIFFERS))).isEqualTo(Outcome.DIFFERS);
        assertThat(Outcome.worst(List.of(Outcome.DIFFERS, Outcome.FAILED, Outcome.EQUAL))).isEqualTo(Outcome.FAILED);
        assertThat(List.of(Outcome.values()).stream().map(Outcome::exitCode)).containsExactly(0, 1, 2, 3);
    }

    @Test
    void aCollectionsOutcome() {
        assertThat(summary(0, 0, null).outcome()).isEqualTo(Outcome.EQUAL);
        assertThat(summary(0, 2, null).outcome()).isEqualTo(Outcome.UNSETTLED);
        assertThat(summary(1, 2, null).outcome()).isEqualTo(Outcome.DIFFERS);
        assertThat(summary(1, 2, "boom").outcome()).isEqualTo(Outcome.FAILED);
        assertThat(summary(1, 2, null).describe()).contains("a.b: 10 source / 10 destination documents; 1 missing, 0 extra, 0 different, 2 in flight");
    }
}
