package dev.tideline.it.fanout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Percentiles of a list of millisecond figures. */
public final class Latencies {
    private Latencies() {
    }

    public static long percentile(List<Long> values, double p) {
        if (values.isEmpty()) {
            return -1;
        }
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
