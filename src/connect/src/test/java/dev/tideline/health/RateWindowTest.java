package dev.tideline.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RateWindowTest {

    @Test
    void meanOverTheLastCompleteSeconds() {
        RateWindow w = new RateWindow();
        long t0 = 1_000_000_000L;
        for (int s = 0; s < RateWindow.SECONDS; s++) {
            w.record(50, t0 + s * 1000L + 10);
        }
        // the last recorded second is still filling at t0 + (SECONDS-1)s: only the 9 before it count
        assertThat(w.perSecond(t0 + (RateWindow.SECONDS - 1) * 1000L + 500)).isCloseTo(45.0, within(1e-9));
        // one second later every bucket is complete
        assertThat(w.perSecond(t0 + RateWindow.SECONDS * 1000L + 1)).isCloseTo(50.0, within(1e-9));
    }

    @Test
    void oldBucketsAreForgottenAndReused() {
        RateWindow w = new RateWindow();
        w.record(1000, 5_000);
        assertThat(w.perSecond(6_000)).isCloseTo(100.0, within(1e-9));
        assertThat(w.perSecond(5_000 + (RateWindow.SECONDS + 1) * 1000L)).isZero();
        // the same bucket, a whole window later: starts from zero
        w.record(10, 5_000 + (RateWindow.SECONDS + 1) * 1000L);
        assertThat(w.perSecond(5_000 + (RateWindow.SECONDS + 2) * 1000L)).isCloseTo(1.0, within(1e-9));
    }

    @Test
    void readingDoesNotChangeTheFigure() {
        RateWindow w = new RateWindow();
        w.record(30, 1_000);
        assertThat(w.perSecond(2_500)).isEqualTo(w.perSecond(2_500)).isCloseTo(3.0, within(1e-9));
    }
}
