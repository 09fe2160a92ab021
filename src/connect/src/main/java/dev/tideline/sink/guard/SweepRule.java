package dev.tideline.sink.guard;

import dev.tideline.event.IdScope;
import dev.tideline.mongo.BsonOrder;
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
 *
 * <p>A repair copies only an {@code _id} range ({@link IdScope}), so only ids inside it can be judged:
 * a document outside was not copied, however old its version.
 */
public final class SweepRule {
    private SweepRule() {
    }

    /** For a copy of the whole collection. @param lastVersion the version the sidecar holds for a live destination document */
    public static boolean sweeps(BsonValue lastVersion, BsonTimestamp epoch) {
        return lastVersion != null && lastVersion.isTimestamp() && lastVersion.asTimestamp().compareTo(epoch) < 0;
    }

    /** For a copy of {@code scope}: also requires the document's {@code id} inside it. */
    public static boolean sweeps(BsonValue lastVersion, BsonTimestamp epoch, BsonValue id, IdScope scope) {
        return sweeps(lastVersion, epoch) && inScope(id, scope);
    }

    /**
     * Whether {@code from <= id < to} in MongoDB's order of values ({@link BsonOrder}), the order the source
     * copies ranges in: across types too (every number sorts before every string, for instance).
     */
    public static boolean inScope(BsonValue id, IdScope scope) {
        return (scope.from() == null || BsonOrder.compare(scope.from(), id) <= 0)
                && (scope.to() == null || BsonOrder.compare(id, scope.to()) < 0);
    }
}
