package dev.tideline.source.stream;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Which quiet collections get a heartbeat now. Pure (the caller passes the time).
 *
 * <p>A heartbeat record carries a quiet collection's latest stream position (the post-batch resume
 * token), so its committed offset stays inside the oplog window and a restart does not re-read more
 * than about an interval. It is due once the collection has sent nothing for {@code intervalMs} and
 * its position moved since its last record. With many quiet collections a fixed interval would mean
 * a burst of records per interval (2,000 collections every 10 s: 200 records a second, all saying
 * "nothing happened"), so the pacer spends at most {@value #MAX_PER_SECOND} heartbeats a second,
 * most overdue first: past {@code MAX_PER_SECOND x interval} quiet collections, each one's interval
 * stretches instead (2,000 collections: one heartbeat each every 100 s).
 */
final class HeartbeatPacer {
    static final int MAX_PER_SECOND = 20;

    private final long intervalMs;
    private double budget = MAX_PER_SECOND;
    private long lastMs = -1;

    /** @param intervalMs 0 disables heartbeats */
    HeartbeatPacer(long intervalMs) {
        this.intervalMs = intervalMs;
    }

    /**
     * @param candidates   the collections
     * @param lastRecordMs when a collection last sent a record (of any kind)
     * @param moved        whether its position moved past what its last record carried
     * @return the collections to send a heartbeat for now, most overdue first
     */
    <T> List<T> due(Collection<T> candidates, ToLongFunction<T> lastRecordMs, Predicate<T> moved, long nowMs) {
        if (intervalMs <= 0) {
            return List.of();
        }
        if (lastMs >= 0) {
            budget = Math.min(MAX_PER_SECOND, budget + (nowMs - lastMs) * MAX_PER_SECOND / 1000.0);
        }
        lastMs = nowMs;
        int allowed = (int) Math.floor(budget);
        if (allowed == 0) {
            // Called after every batch: under a steady trickle that is hundreds of times a second, and a look at every
            // collection each time (2,000 position checks) would cost the stream's thread more than the events do.
            // The budget refills 20 a second, so the collections are looked at about that often, whatever the batch rate.
            return List.of();
        }
        List<T> overdue = new ArrayList<>();
        for (T c : candidates) {
            if (nowMs - lastRecordMs.applyAsLong(c) >= intervalMs && moved.test(c)) {
                overdue.add(c);
            }
        }
        if (overdue.size() > allowed) {
            overdue.sort(Comparator.comparingLong(lastRecordMs));
            overdue = new ArrayList<>(overdue.subList(0, allowed));
        }
        budget -= overdue.size();
        return overdue;
    }
}
