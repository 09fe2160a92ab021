package dev.tideline.source.repair;

import java.util.List;
import java.util.Objects;
import org.bson.BsonValue;

/**
 * What one repair signal asks: re-copy documents of one collection of the signal's database, while its
 * change stream goes on. Read from a signal document by {@link RepairSignals}.
 *
 * @param signal     the signal document's {@code _id}: the repair's name in offsets, logs and metrics
 * @param collection the collection to repair
 * @param scope      which documents
 */
public record RepairRequest(BsonValue signal, String collection, Scope scope) {
    public RepairRequest {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(collection, "collection");
        Objects.requireNonNull(scope, "scope");
    }

    /** Which documents a repair re-copies. */
    public sealed interface Scope {
        /** For people: what the repair covers. */
        String describe();
    }

    /** Every document of the collection; the destination's documents the copy did not find are removed. */
    public record Whole() implements Scope {
        @Override
        public String describe() {
            return "the whole collection";
        }
    }

    /**
     * The documents whose {@code _id} is in {@code [from, to)} in MongoDB's order, either bound open
     * (null); the destination's documents in that range the copy did not find are removed.
     */
    public record Range(BsonValue from, BsonValue to) implements Scope {
        @Override
        public String describe() {
            return "the _ids from " + (from == null ? "the first" : from.toString()) + " to " + (to == null ? "the last" : "before " + to);
        }
    }

    /**
     * Exactly these {@code _id}s (sorted in MongoDB's order, no two equal): each found is copied, each
     * not found is deleted at the destination.
     */
    public record Ids(List<BsonValue> ids) implements Scope {
        public Ids {
            ids = List.copyOf(ids);
        }

        @Override
        public String describe() {
            return ids.size() + " listed _id(s)";
        }
    }
}
