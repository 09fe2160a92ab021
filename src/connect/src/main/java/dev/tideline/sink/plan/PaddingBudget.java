package dev.tideline.sink.plan;

/**
 * How many null elements partial updates may add to arrays while one batch is applied. MongoDB bounds
 * the padding of one update ({@link UpdateApplier#MAX_PADDING}); the sink rebuilds every document of a
 * batch in memory before it writes them, so the same bound holds for the whole batch: a few hundred
 * bytes of records can no longer ask for gigabytes of nulls. Honest updates pad by a few elements, if at
 * all. Not thread-safe: one per batch.
 */
public final class PaddingBudget {
    private final long limit;
    private long used;

    /** The bound of one MongoDB update, for a whole batch. */
    public PaddingBudget() {
        this(UpdateApplier.MAX_PADDING);
    }

    PaddingBudget(long limit) {
        this.limit = limit;
    }

    long used() {
        return used;
    }

    /** Gives back what was taken since {@code used} was {@code mark} (an update refused after it padded). */
    void restore(long mark) {
        used = mark;
    }

    /**
     * Takes {@code elements} null elements for {@code path}, before they are added.
     *
     * @throws UpdateApplier.OutOfBounds when the batch's budget would be exceeded
     */
    void take(long elements, String path) {
        if (used + elements > limit) {
            throw new UpdateApplier.OutOfBounds("'" + UpdateApplier.shown(path) + "' pads an array by " + elements
                    + " null elements, after " + used + " already padded in this batch: the sink pads at most " + limit
                    + " per batch (MongoDB's bound for one update), so that a few small records cannot exhaust the "
                    + "worker's memory");
        }
        used += elements;
    }
}
