package dev.tideline.peer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RoundTripLagTest {
    @Test
    void theRoundTripIsFromWritingToSeeingBackPerPeerAndTheNewestHeartbeatWins() {
        RoundTripLag lag = new RoundTripLag();
        lag.echoed("B", 1_000, 1_120);
        lag.echoed("C", 1_000, 1_900);
        lag.echoed("B", 2_000, 2_080);
        lag.echoed("B", 1_500, 3_000); // an older heartbeat seen late changes nothing
        assertThat(lag.lastRoundTripMs()).isEqualTo(Map.of("B", 80L, "C", 900L));
    }

    @Test
    void aLinkWhoseHeartbeatsStopComingBackIsLagging() {
        RoundTripLag lag = new RoundTripLag();
        lag.echoed("B", 10_000, 10_100);
        lag.echoed("C", 14_000, 14_100);
        assertThat(lag.lagging(15_000, 3_000)).containsExactly("the newest heartbeat back through B was written 5000 ms ago");
        assertThat(lag.lagging(15_000, 10_000)).isEmpty();
    }
}
