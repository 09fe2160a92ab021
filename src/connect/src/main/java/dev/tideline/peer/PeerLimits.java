package dev.tideline.peer;

/** Limits peer mode applies to versions, on the source and the sink alike. */
public final class PeerLimits {
    /**
     * How far ahead of this machine's clock a version may be (the default of the sink's
     * {@code peer.clock.max.ahead.ms}): MongoDB cluster times are wall-clock seconds, so a version further
     * ahead is a broken clock or a forged value, refused instead of winning every later comparison.
     */
    public static final long MAX_CLOCK_AHEAD_SECONDS = 300;

    /**
     * How far past a delete event's own time the tombstone read for it may move the source's clock: clusters whose
     * clocks agree within this order a local write made after a peer's delete after it, and a tombstone of a later
     * delete, read when a restarted source reads the event again, cannot push the replayed labels further ahead.
     */
    public static final long OBSERVE_AHEAD_SECONDS = 2;

    private PeerLimits() {
    }

    /**
     * Why a record of version {@code v} cannot be decided now, null when it can: its time is more than
     * {@code maxAheadSeconds} ahead of {@code nowSeconds} (it is held until the clocks agree).
     */
    public static String tooFarAhead(Version v, long nowSeconds, long maxAheadSeconds) {
        long ahead = Integer.toUnsignedLong(v.time().getTime()) - nowSeconds;
        return ahead > maxAheadSeconds ? "version " + v + " is " + ahead + " s ahead of this worker's clock (more than "
                + "peer.clock.max.ahead.ms): held until the clocks agree; check the clocks of " + v.origin() + " and of this worker"
                : null;
    }
}
