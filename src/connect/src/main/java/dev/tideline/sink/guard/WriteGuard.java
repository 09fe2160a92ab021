package dev.tideline.sink.guard;

import dev.tideline.sink.plan.NamespaceBatch;
import java.util.Set;
import org.bson.BsonValue;

/** Decides which planned writes of a destination collection may be applied. */
public interface WriteGuard {
    /** {@code stale.guard=off}: everything is applied in arrival order. */
    WriteGuard NONE = batch -> new Admitted(batch, 0, Set.of());

    /**
     * The outcome for one destination collection: what to write, how many changes were dropped, and
     * the ids the guard found no sidecar entry for (their versions can be inserted, see {@link VersionStore#write}).
     */
    record Admitted(NamespaceBatch batch, int stale, Set<BsonValue> absent) {
        public Admitted {
            absent = Set.copyOf(absent);
        }
    }

    /** Decides; writes nothing. */
    Admitted admit(NamespaceBatch batch);

    /**
     * Records what is about to be written (what {@link #admit} let through, less what could not be
     * prepared for writing); called before the documents are written.
     */
    default void record(Admitted admitted, NamespaceBatch toWrite) {
    }
}
