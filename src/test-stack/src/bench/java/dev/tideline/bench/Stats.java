package dev.tideline.bench;

import java.util.Arrays;
import java.util.List;

/** Medians and percentiles of benchmark samples. Pure. */
final class Stats {
    private Stats() {
    }

    /** The median; the mean of the two middle values for an even count. */
    static double median(List<Double> samples) {
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("no samples");
        }
        double[] sorted = samples.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    /**
     * Nearest-rank percentile ({@code p} in (0, 100]): the smallest sample such that at least p % of
     * the samples are at or below it. No interpolation, so p99 is always a latency that was observed.
     */
    static double percentile(double[] samples, double p) {
        if (samples.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100]: " + p);
        }
        double[] sorted = samples.clone();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }

    /** {@code count} per second over {@code nanos}. */
    static double perSecond(long count, long nanos) {
        if (nanos <= 0) {
            throw new IllegalArgumentException("no elapsed time: " + nanos + " ns");
        }
        return count * 1e9 / nanos;
    }
}
