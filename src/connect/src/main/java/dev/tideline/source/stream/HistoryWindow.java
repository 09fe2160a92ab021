package dev.tideline.source.stream;

import dev.tideline.source.capture.StreamPosition;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which positions are still inside the oplog, found by asking: pure, given a probe that opens a
 * stream at a position. The oplog is a window over the latest history, so if a stream opens at one
 * position it opens at every later one; a binary search needs log2(n) probes for n distinct positions.
 */
final class HistoryWindow {
    private HistoryWindow() {
    }

    /**
     * @param ascending positions in ascending order
     * @param opens     whether a stream opens at a position (its history is still there)
     * @return the index of the first position a stream opens at; {@code ascending.size()} when none does
     */
    static int firstReachable(List<StreamPosition> ascending, Predicate<StreamPosition> opens) {
        int lo = 0;
        int hi = ascending.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (opens.test(ascending.get(mid))) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }
}
