package dev.tideline.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {
    @Test
    void medianOfAnOddCountIsTheMiddleValue() {
        assertThat(Stats.median(List.of(9.0, 1.0, 5.0))).isEqualTo(5.0);
    }

    @Test
    void medianOfAnEvenCountIsTheMeanOfTheTwoMiddleValues() {
        assertThat(Stats.median(List.of(4.0, 1.0, 3.0, 100.0))).isEqualTo(3.5);
    }

    @Test
    void percentilesAreNearestRankAndAlwaysAnObservedValue() {
        double[] samples = new double[100];
        for (int i = 0; i < 100; i++) {
            samples[i] = 100 - i; // 1..100, unsorted
        }
        assertThat(Stats.percentile(samples, 50)).isEqualTo(50.0);
        assertThat(Stats.percentile(samples, 99)).isEqualTo(99.0);
        assertThat(Stats.percentile(samples, 100)).isEqualTo(100.0);
        assertThat(Stats.percentile(new double[] {7.5}, 99)).isEqualTo(7.5);
        // p99 of 10 samples is the largest: ceil(9.9) = 10th
        assertThat(Stats.percentile(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 1000}, 99)).isEqualTo(1000.0);
        assertThat(Stats.percentile(new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 1000}, 50)).isEqualTo(5.0);
    }

    @Test
    void emptySamplesAndBadPercentilesAreRefused() {
        assertThatThrownBy(() -> Stats.median(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Stats.percentile(new double[0], 50)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Stats.percentile(new double[] {1}, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Stats.percentile(new double[] {1}, 101)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ratePerSecond() {
        assertThat(Stats.perSecond(50_000, 2_000_000_000L)).isEqualTo(25_000.0);
        assertThatThrownBy(() -> Stats.perSecond(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
