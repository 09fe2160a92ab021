package dev.tideline.verify;

import java.util.function.Consumer;
import org.bson.BsonValue;

/**
 * Cuts a walk over a whole collection ({@link MergeJoin} steps, in id order) into ranges of
 * {@code rangeSize} source documents, {@code (after, upTo]} with {@code upTo} the range's last source
 * id, and counts what each holds. The last range runs to the end, so it also holds every destination
 * id after the last source id.
 */
public final class RangeCutter {
    private final int rangeSize;
    private final Consumer<RangeResult> closed;
    private BsonValue after;
    private long source;
    private long destination;
    private long missing;
    private long extra;
    private long different;

    public RangeCutter(int rangeSize, BsonValue startAfter, Consumer<RangeResult> closed) {
        if (rangeSize < 1) {
            throw new IllegalArgumentException("range size must be at least 1, got " + rangeSize);
        }
        this.rangeSize = rangeSize;
        this.after = startAfter;
        this.closed = closed;
    }

    public void add(MergeJoin.Step<?> step) {
        switch (step.kind()) {
            case SAME -> {
                source++;
                destination++;
            }
            case DIFFERENT -> {
                source++;
                destination++;
                different++;
            }
            case MISSING -> {
                source++;
                missing++;
            }
            case EXTRA -> {
                destination++;
                extra++;
            }
        }
        if (step.source() != null && source == rangeSize) {
            close(step.id());
        }
    }

    /** Ends the walk: the last range, up to the end, if it holds anything. */
    public void finish() {
        if (source > 0 || destination > 0) {
            close(null);
        }
    }

    private void close(BsonValue upTo) {
        closed.accept(new RangeResult(new IdRange(after, upTo), source, destination, missing, extra, different));
        after = upTo;
        source = destination = missing = extra = different = 0;
    }
}
