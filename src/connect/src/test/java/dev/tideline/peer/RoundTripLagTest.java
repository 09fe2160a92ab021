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

    /** A dead link (nothing comes back at all), or one not proven yet since the start, is never reported healthy. */
    @Test
    void aLinkNothingCameBackThroughSinceTheStartIsNotHealthy() {
        RoundTripLag fresh = new RoundTripLag(100_000);
        assertThat(fresh.lagging(106_000, 5_000)).containsExactly("no heartbeat has come back through any peer since this task "
                + "started 6000 ms ago");
        fresh.echoed("B", 101_000, 101_200);
        assertThat(fresh.lagging(102_000, 5_000)).as("proven by a round trip").isEmpty();
        RoundTripLag restarted = new RoundTripLag(100_000);
        restarted.expect("B");
        restarted.expect("C");
        restarted.echoed("C", 104_000, 104_100);
        assertThat(restarted.lagging(106_000, 5_000)).containsExactly("no heartbeat has come back through B since this task "
                + "started 6000 ms ago");
        assertThat(restarted.peers()).containsExactly("B", "C");
    }
}
