package dev.tideline.sink.plan;

import java.util.List;

/**
 * What one batch writes: per destination collection, the surviving change per {@code _id}.
 * {@code superseded} counts the records a later change to the same document made unnecessary (or
 * folded into itself); {@code refused} holds the changes that cannot be applied, with their reason.
 */
public record WritePlan(List<NamespaceBatch> batches, int superseded, List<Refusal> refused) {
    public WritePlan {
        batches = List.copyOf(batches);
        refused = List.copyOf(refused);
    }

    public WritePlan(List<NamespaceBatch> batches, int superseded) {
        this(batches, superseded, List.of());
    }

    public int writeCount() {
        return batches.stream().mapToInt(b -> b.writes().size()).sum();
    }
}
