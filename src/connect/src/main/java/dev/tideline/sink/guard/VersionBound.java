package dev.tideline.sink.guard;

import dev.tideline.sink.config.RecordSafetySettings;
import java.time.Instant;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.bson.BsonValue;

/**
 * How far ahead of this worker's clock a version taken from a record may be. The stale-write guard keeps
 * the highest version applied per document and skips every older change: one forged change (or
 * resnapshot marker) stamped years ahead would pin its documents until someone edits
 * {@value VersionStore#COLLECTION} by hand. A real version is a source cluster time (or a copy's epoch,
 * or a date of the configured version field): at most the clocks' skew ahead of now.
 *
 * <p>Bounded: BSON timestamps (by their seconds) and dates. Numbers, strings and ObjectIds of a version
 * field have no clock to compare with and pass. Pure but for the clock it is given.
 */
public final class VersionBound {
    private final long maxAheadMs;
    private final LongSupplier clock;

    /** @param clock this worker's wall clock, in epoch milliseconds */
    public VersionBound(long maxAheadMs, LongSupplier clock) {
        this.maxAheadMs = maxAheadMs;
        this.clock = clock;
    }

    /**
     * @param what what the version is, for the reason (e.g. "its version", "its epoch")
     * @return why the version is refused, empty when it is not too far ahead (or null, or of a kind without a clock)
     */
    public Optional<String> problem(BsonValue version, String what) {
        return problem(version, what, clock.getAsLong(), maxAheadMs);
    }

    static Optional<String> problem(BsonValue version, String what, long nowMs, long maxAheadMs) {
        if (version == null) {
            return Optional.empty();
        }
        long atMs;
        if (version.isTimestamp()) {
            atMs = Integer.toUnsignedLong(version.asTimestamp().getTime()) * 1000;
        } else if (version.isDateTime()) {
            atMs = version.asDateTime().getValue();
        } else {
            return Optional.empty();
        }
        long aheadMs = atMs - nowMs;
        if (aheadMs <= maxAheadMs) {
            return Optional.empty();
        }
        // shown only for a refusal: formatting the instant for every record cost about a tenth of decoding it
        String shown = version.isTimestamp()
                ? "Timestamp(" + atMs / 1000 + ", " + version.asTimestamp().getInc() + ") (a cluster time, "
                        + Instant.ofEpochSecond(atMs / 1000) + ")"
                : "date " + Instant.ofEpochMilli(atMs);
        return Optional.of("refused: " + what + " " + shown + " is " + aheadMs / 1000 + " s ahead of this worker's clock, more "
                + "than " + RecordSafetySettings.VERSION_MAX_AHEAD_MS + " (" + maxAheadMs + " ms) allows: a version from the "
                + "future would make every later change of its documents look stale. Check the clocks of the source "
                + "cluster and of this worker, and who produces to the topic");
    }
}
