package dev.tideline.peer;

import org.bson.BsonTimestamp;

/**
 * Labels local writes with a time that is never below a version this cluster has already seen (a
 * hybrid logical clock over cluster times). Without it, an application write made just after a peer
 * write arrived could carry an OLDER cluster time than that peer write (the two clusters' clocks and
 * counters are independent) and lose to the very value it overwrote. One per capture thread.
 */
public final class LogicalClock {
    private BsonTimestamp last = new BsonTimestamp(0, 0);

    /** Notes a version seen in the stream (a peer write applied here). */
    public void observe(BsonTimestamp t) {
        if (t != null && t.compareTo(last) > 0) {
            last = t;
        }
    }

    /**
     * The label of a local write: its cluster time, raised above everything observed so far and above
     * {@code floor} (the version the written document was based on), by one increment when needed.
     */
    public BsonTimestamp label(BsonTimestamp eventTime, BsonTimestamp floor) {
        BsonTimestamp t = eventTime != null ? eventTime : new BsonTimestamp(0, 0);
        BsonTimestamp min = floor != null && floor.compareTo(last) > 0 ? floor : last;
        if (t.compareTo(min) <= 0) {
            t = next(min);
        }
        last = t;
        return t;
    }

    private static BsonTimestamp next(BsonTimestamp t) {
        return t.getInc() == -1 ? new BsonTimestamp(t.getTime() + 1, 0) : new BsonTimestamp(t.getTime(), t.getInc() + 1);
    }
}
