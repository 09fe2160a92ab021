package dev.tideline.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HealthTest {

    @Test
    void noReasonIsOk() {
        assertThat(Health.rollUp("shop.orders", Set.of())).isEqualTo(Health.OK);
        assertThat(Health.rollUp(Map.of())).isEqualTo(Health.OK);
    }

    @Test
    void aRetryIsDegraded() {
        Health h = Health.rollUp("shop.orders", Set.of(HealthReason.RETRYING));
        assertThat(h.state()).isEqualTo(HealthState.DEGRADED);
        assertThat(h.reasons()).containsExactly("shop.orders: retrying");
    }

    @Test
    void lostHistoryOutranksDegraded() {
        // seed 002: the stalled collection must not hide behind a transient error elsewhere
        Map<String, Set<HealthReason>> reasons = new LinkedHashMap<>();
        reasons.put("shop.a", Set.of(HealthReason.RETRYING));
        reasons.put("shop.b", Set.of(HealthReason.HISTORY_LOST));
        reasons.put("shop.c", Set.of(HealthReason.HISTORY_SKIPPED));
        Health h = Health.rollUp(reasons);
        assertThat(h.state()).isEqualTo(HealthState.STALLED);
        assertThat(h.reasons()).first().isEqualTo("shop.b: history-lost");
        assertThat(h.reasons()).containsExactlyInAnyOrder("shop.a: retrying", "shop.b: history-lost", "shop.c: history-skipped");
    }

    @Test
    void unreachableOrAuthFailureIsDownWhateverElse() {
        assertThat(Health.rollUp(Map.of("shop.a", Set.of(HealthReason.HISTORY_LOST, HealthReason.SOURCE_UNREACHABLE))).state())
                .isEqualTo(HealthState.DOWN);
        assertThat(Health.rollUp(Map.of("shop.a", Set.of(HealthReason.RETRYING), "shop.b", Set.of(HealthReason.AUTH_FAILED))))
                .satisfies(h -> {
                    assertThat(h.state()).isEqualTo(HealthState.DOWN);
                    assertThat(h.reasons()).startsWith("shop.b: auth-failed");
                });
        assertThat(Health.rollUp("destination", Set.of(HealthReason.DESTINATION_UNREACHABLE)).toString())
                .isEqualTo("down (destination: destination-unreachable)");
    }

    @Test
    void everyReasonMapsToTheStateItsNameSays() {
        for (HealthReason r : EnumSet.allOf(HealthReason.class)) {
            assertThat(Health.rollUp("x", Set.of(r)).state()).isEqualTo(r.state());
        }
        assertThat(HealthState.valueOf("STALLED").compareTo(HealthState.DEGRADED)).isPositive();
    }

    @Test
    void watchRaisesAndClearsPerScope() {
        HealthWatch watch = new HealthWatch("source task t-0");
        watch.raise("shop.a", HealthReason.SOURCE_UNREACHABLE);
        watch.raise("shop.b", HealthReason.RETRYING);
        assertThat(watch.current().state()).isEqualTo(HealthState.DOWN);
        assertThat(watch.of("shop.b").state()).isEqualTo(HealthState.DEGRADED);
        watch.clear("shop.a", HealthReason.SOURCE_UNREACHABLE);
        assertThat(watch.current().state()).isEqualTo(HealthState.DEGRADED);
        watch.clear("shop.b", HealthReason.RETRYING);
        watch.clear("shop.b", HealthReason.RETRYING); // twice is harmless
        assertThat(watch.current()).isEqualTo(Health.OK);
        assertThat(watch.of("never.seen")).isEqualTo(Health.OK);
    }

    @Test
    void aPeerLinksReasonsRollUpOnTheSameLadder() {
        assertThat(Health.rollUp("link", java.util.Set.of()).state()).isEqualTo(HealthState.OK);
        assertThat(Health.rollUp("link", java.util.Set.of(HealthReason.LAG)).state()).isEqualTo(HealthState.DEGRADED);
        assertThat(Health.rollUp("link", java.util.Set.of(HealthReason.LAG, HealthReason.HELD_RECORDS)).state())
                .isEqualTo(HealthState.STALLED);
        assertThat(Health.rollUp("link", java.util.Set.of(HealthReason.HELD_RECORDS, HealthReason.DESTINATION_UNREACHABLE)).state())
                .isEqualTo(HealthState.DOWN);
    }
}
