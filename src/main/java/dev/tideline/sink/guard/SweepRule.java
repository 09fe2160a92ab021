package dev.tideline.sink.guard;

import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * Which documents a resnapshot's {@code complete} marker removes. Pure.
 *
 * <p>A resnapshot copies every document the source holds with the copy's epoch (the stream start taken
 * before the copy) as its version, and streams every later change with a newer one. Once the marker
 * arrives on a partition, every copy that partition carries has been applied before it, so a live
 * document of that partition whose last version is still OLDER than the epoch was neither copied nor
 * changed since: it was deleted at the source while the history was out of reach. Everything else
 * stays: equal (the copy itself), newer (changed or inserted after the copy began), versions that are
 * not cluster times (a version field says nothing about the epoch), and deletes already applied.
 */
public final class SweepRule {
    private SweepRule() {
    }

    /** @param lastVersion the version the sidecar holds for a live destination document */
    public static boolean sweeps(BsonValue lastVersion, BsonTimestamp epoch) {
        return lastVersion != null && lastVersion.isTimestamp() && lastVersion.asTimestamp().compareTo(epoch) < 0;
    }
}
