package dev.tideline.sink.guard;

import dev.tideline.sink.plan.NamespaceBatch;
import java.util.Set;
import org.bson.BsonValue;

/** Decides which planned writes of a destination collection may be applied. */
public interface WriteGuard {
    /** {@code stale.guard=off}: everything is applied in arrival order. */
    WriteGuard NONE = batch -> new Admitted(batch, 0, Set.of());

    /**
     * The outcome for one destination collection: what to write, how many changes were dropped, the ids the guard
     * found no sidecar entry for (their versions can be inserted, see {@link VersionStore#write}), and the ids whose
     * entry it did not read (decided when their versions are recorded: {@link StaleWriteGuard}).
     */
    record Admitted(NamespaceBatch batch, int stale, Set<BsonValue> absent, Set<BsonValue> unread) {
        public Admitted {
            absent = Set.copyOf(absent);
            unread = Set.copyOf(unread);
        }

        /** Every entry read. */
        public Admitted(NamespaceBatch batch, int stale, Set<BsonValue> absent) {
            this(batch, stale, absent, Set.of());
        }
    }

    /** What to write once the versions are recorded, and how many more changes recording them found stale. */
    record Recorded(NamespaceBatch batch, int stale) {
    }

    /** Decides; writes nothing. */
    Admitted admit(NamespaceBatch batch);

    /**
     * Records what is about to be written (what {@link #admit} let through, less what could not be
     * prepared for writing); called before the documents are written. Returns what to write: {@code toWrite}, less
     * the changes of unread entries ({@link Admitted#unread}) that recording found stale.
     */
    default Recorded record(Admitted admitted, NamespaceBatch toWrite) {
        return new Recorded(toWrite, 0);
    }
}
