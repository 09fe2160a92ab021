package dev.tideline.source;

import dev.tideline.event.Namespace;
import dev.tideline.source.capture.CopyPlan;
import dev.tideline.source.capture.SourceOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/** What the split copies need of their task: its last listing, its collections, and captures of chunks. */
record SplitCapture(Supplier<List<Namespace>> listing, Map<Namespace, CollectionCapture> collections, CollectionStarts starts)
        implements SplitCopies.Capture {
    @Override
    public List<Namespace> listed() {
        return listing.get();
    }

    @Override
    public CollectionCapture owned(Namespace ns) {
        return collections.get(ns);
    }

    @Override
    public CollectionCapture chunkCapture(Namespace ns, Map<String, Object> partition, SourceOffset stored) {
        return starts.chunkCapture(ns, partition, stored);
    }

    @Override
    public void copied(CollectionCapture c, CopyPlan plan) {
        c.copied(plan.streamStart());
    }
}
