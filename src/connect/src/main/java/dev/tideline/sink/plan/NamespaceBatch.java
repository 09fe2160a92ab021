package dev.tideline.sink.plan;

import dev.tideline.event.Namespace;
import dev.tideline.sink.route.RoutedChange;
import java.util.ArrayList;
import java.util.List;

/**
 * The writes of one batch for one destination collection: at most one change per {@code _id},
 * in the order the winning records arrived.
 */
public record NamespaceBatch(Namespace destination, List<RoutedChange> writes) {
    public NamespaceBatch {
        writes = List.copyOf(writes);
    }

    /** The writes in chunks of at most {@code size}: each chunk is one unordered bulk write. */
    public List<List<RoutedChange>> chunks(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("chunk size must be positive, got " + size);
        }
        List<List<RoutedChange>> chunks = new ArrayList<>((writes.size() + size - 1) / size);
        for (int i = 0; i < writes.size(); i += size) {
            chunks.add(writes.subList(i, Math.min(writes.size(), i + size)));
        }
        return chunks;
    }

    public NamespaceBatch withWrites(List<RoutedChange> kept) {
        return new NamespaceBatch(destination, kept);
    }
}
