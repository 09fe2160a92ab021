package dev.tideline.verify;

import dev.tideline.mongo.BsonOrder;
import java.util.Iterator;
import java.util.function.BiPredicate;
import java.util.function.Function;
import org.bson.BsonValue;

/**
 * Walks two sequences sorted by {@code _id} ({@link BsonOrder}) side by side, one step per id: the id
 * is on both sides with the same content, on both with different content, only at the source
 * ({@code MISSING} at the destination) or only at the destination ({@code EXTRA}). Holds one entry
 * per side, whatever the sizes.
 *
 * @param <T> an entry: a document, or an id with a fingerprint
 */
public final class MergeJoin<T> {
    public enum Kind { SAME, DIFFERENT, MISSING, EXTRA }

    /** One id: {@code source} is null for EXTRA, {@code destination} for MISSING. */
    public record Step<T>(Kind kind, BsonValue id, T source, T destination) {
    }

    private final Iterator<T> source;
    private final Iterator<T> destination;
    private final Function<T, BsonValue> idOf;
    private final BiPredicate<T, T> sameContent;
    private T nextSource;
    private T nextDestination;
    // each entry's id, taken once (reading an id out of a raw document decodes it)
    private BsonValue sourceId;
    private BsonValue destinationId;

    public MergeJoin(Iterator<T> source, Iterator<T> destination, Function<T, BsonValue> idOf, BiPredicate<T, T> sameContent) {
        this.source = source;
        this.destination = destination;
        this.idOf = idOf;
        this.sameContent = sameContent;
    }

    /** The next id in order, or null when both sides are exhausted. */
    public Step<T> next() {
        if (nextSource == null && source.hasNext()) {
            nextSource = source.next();
            sourceId = idOf.apply(nextSource);
        }
        if (nextDestination == null && destination.hasNext()) {
            nextDestination = destination.next();
            destinationId = idOf.apply(nextDestination);
        }
        if (nextSource == null && nextDestination == null) {
            return null;
        }
        int c = nextSource == null ? 1 : nextDestination == null ? -1 : BsonOrder.compare(sourceId, destinationId);
        Step<T> step;
        if (c < 0) {
            step = new Step<>(Kind.MISSING, sourceId, nextSource, null);
            nextSource = null;
        } else if (c > 0) {
            step = new Step<>(Kind.EXTRA, destinationId, null, nextDestination);
            nextDestination = null;
        } else {
            Kind kind = sameContent.test(nextSource, nextDestination) ? Kind.SAME : Kind.DIFFERENT;
            step = new Step<>(kind, sourceId, nextSource, nextDestination);
            nextSource = null;
            nextDestination = null;
        }
        return step;
    }
}
