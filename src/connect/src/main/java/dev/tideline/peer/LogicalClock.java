package dev.tideline.peer;

import java.util.function.LongSupplier;
import org.bson.BsonTimestamp;

/**
 * Labels local writes with a time that is never below a version this cluster has already seen (a
 * hybrid logical clock over cluster times). Without it, an application write made just after a peer
 * write arrived could carry an OLDER cluster time than that peer write (the two clusters' clocks and
 * counters are independent) and lose to the very value it overwrote. One per collection's capture.
 *
 * <p>Its value is kept in the collection's source offset (see {@link #current()}), so a restarted source
 * labels again from where the committed position left it instead of from zero. It never moves past
 * {@code now + maxAhead}: a version further ahead (a hand-edited offset, a forged tombstone) is ignored,
 * so one bad value cannot push every later label into the future, and the clock cannot wrap.
 */
public final class LogicalClock {
    private static final long MAX_SECONDS = 0xFFFF_FFFFL;

    private final LongSupplier nowSeconds;
    private final long maxAheadSeconds;
    private BsonTimestamp last;

    /**
     * @param restored        the value kept with the committed position, null for none
     * @param nowSeconds      this machine's clock, epoch seconds
     * @param maxAheadSeconds how far ahead of {@code nowSeconds} an observed version may be
     */
    public LogicalClock(BsonTimestamp restored, LongSupplier nowSeconds, long maxAheadSeconds) {
        this.nowSeconds = nowSeconds;
        this.maxAheadSeconds = maxAheadSeconds;
        this.last = new BsonTimestamp(0, 0);
        observe(restored);
    }

    public LogicalClock() {
        this(null, () -> System.currentTimeMillis() / 1000, PeerLimits.MAX_CLOCK_AHEAD_SECONDS);
    }

    /**
     * Notes a version seen in the stream (a peer write applied here).
     *
     * @return false when it is too far in the future and was ignored
     */
    public boolean observe(BsonTimestamp t) {
        if (t == null) {
            return true;
        }
        if (tooFarAhead(t)) {
            return false;
        }
        if (t.compareTo(last) > 0) {
            last = t;
        }
        return true;
    }

    /** True when {@code t} is more than the allowed margin ahead of this machine's clock. */
    public boolean tooFarAhead(BsonTimestamp t) {
        return Integer.toUnsignedLong(t.getTime()) > nowSeconds.getAsLong() + maxAheadSeconds;
    }

    /**
     * The label of a local write: its cluster time, raised above everything observed so far and above
     * {@code floor} (the version the written document was based on; ignored when too far ahead), by one
     * increment when needed.
     */
    public BsonTimestamp label(BsonTimestamp eventTime, BsonTimestamp floor) {
        BsonTimestamp t = eventTime != null ? eventTime : new BsonTimestamp(0, 0);
        BsonTimestamp min = floor != null && !tooFarAhead(floor) && floor.compareTo(last) > 0 ? floor : last;
        if (t.compareTo(min) <= 0) {
            t = next(min);
        }
        last = t;
        return t;
    }

    /** The highest version seen or given so far: what the source offset keeps. */
    public BsonTimestamp current() {
        return last;
    }

    static BsonTimestamp next(BsonTimestamp t) {
        if (t.getInc() != -1) {
            return new BsonTimestamp(t.getTime(), t.getInc() + 1);
        }
        if (Integer.toUnsignedLong(t.getTime()) >= MAX_SECONDS) {
            throw new IllegalStateException("the peer logical clock reached the last representable time " + t
                    + "; a version that far ahead is refused before it gets here");
        }
        return new BsonTimestamp(t.getTime() + 1, 0);
    }
}
