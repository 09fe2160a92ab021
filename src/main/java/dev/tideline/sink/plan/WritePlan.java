package dev.tideline.sink.plan;

import java.util.List;

/**
 * What one batch writes: per destination collection, the surviving change per {@code _id}.
 * {@code superseded} counts the records a later change to the same document made unnecessary.
 */
public record WritePlan(List<NamespaceBatch> batches, int superseded) {
    public WritePlan {
        batches = List.copyOf(batches);
    }

    public int writeCount() {
        return batches.stream().mapToInt(b -> b.writes().size()).sum();
    }
}
