package dev.tideline.peer;

/** Limits peer mode applies to versions, on the source and the sink alike. */
public final class PeerLimits {
    /**
     * How far ahead of this machine's clock a version may be (the default of the sink's
     * {@code peer.clock.max.ahead.ms}): MongoDB cluster times are wall-clock seconds, so a version further
     * ahead is a broken clock or a forged value, refused instead of winning every later comparison.
     */
    public static final long MAX_CLOCK_AHEAD_SECONDS = 300;

    private PeerLimits() {
    }
}
