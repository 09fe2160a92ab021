package dev.tideline.verify.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class VerifyScheduleTest {
    @Test
    void theNextRunFollowsTheLastFinishedOneByAnInterval() {
        assertThat(VerifySchedule.NEVER.nextRunMs(60_000, 5_000)).isEqualTo(5_000);
        assertThat(new VerifySchedule(1_000, true).nextRunMs(60_000, 5_000)).isEqualTo(61_000);
        assertThat(new VerifySchedule(1_000, false).nextRunMs(60_000, 5_000)).as("cut short: at once").isEqualTo(5_000);
    }

    @Test
    void roundTripsThroughConnectsOffsetMaps() {
        VerifySchedule s = new VerifySchedule(1_700_000_000_000L, true);
        assertThat(VerifySchedule.fromMap(s.toMap())).isEqualTo(s);
        // Connect's JSON offset store gives numbers back as Long or Integer
        assertThat(VerifySchedule.fromMap(Map.of("v", 1, "lastStartMs", 5, "finished", false))).isEqualTo(new VerifySchedule(5, false));
        assertThat(VerifySchedule.fromMap(null)).isEqualTo(VerifySchedule.NEVER);
        assertThat(VerifySchedule.fromMap(Map.of("lastStartMs", "soon"))).isEqualTo(VerifySchedule.NEVER);
    }
}
