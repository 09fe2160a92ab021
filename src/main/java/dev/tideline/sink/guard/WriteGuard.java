package dev.tideline.sink.guard;

import dev.tideline.sink.plan.NamespaceBatch;

/** Decides which planned writes of a destination collection may be applied. */
public interface WriteGuard {
    /** {@code stale.guard=off}: everything is applied in arrival order. */
    WriteGuard NONE = batch -> new Admitted(batch, 0);

    /** The outcome for one destination collection: what to write, and how many changes were dropped. */
    record Admitted(NamespaceBatch batch, int stale) {
    }

    /** Decides; writes nothing. */
    Admitted admit(NamespaceBatch batch);

    /**
     * Records what is about to be written (what {@link #admit} let through, less what could not be
     * prepared for writing); called before the documents are written.
     */
    default void record(NamespaceBatch toWrite) {
    }
}
