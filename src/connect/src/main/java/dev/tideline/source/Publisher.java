package dev.tideline.source;

import dev.tideline.source.capture.Captured;
import dev.tideline.source.capture.CollectionHandle;
import dev.tideline.source.stream.StreamOutput.CollectionFailure;
import dev.tideline.source.stream.StreamOutput.Delivery;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns what the readers captured into records and hands them to the task's queue, in order, all of
 * a batch or nothing: a reader moves its positions only once this returned. Thread-safe (the streams,
 * copies and scans of a task share it); each collection is published by one reader at a time.
 */
final class Publisher {
    private final RecordQueue queue;

    Publisher(RecordQueue queue) {
        this.queue = queue;
    }

    /** One collection's items. */
    void publish(CollectionHandle c, List<Captured> items) throws InterruptedException {
        if (items.isEmpty()) {
            return;
        }
        List<SourceRecord> out = new ArrayList<>(items.size() + 1);
        for (Captured item : items) {
            c.append(item, out);
        }
        if (!out.isEmpty()) {
            queue.put(out);
        }
        c.published(items);
    }

    /**
     * Items of several collections, in stream order.
     *
     * @throws CollectionFailure naming the collection whose records could not be built (nothing is handed over)
     */
    void publish(List<Delivery> items) throws InterruptedException {
        List<SourceRecord> out = new ArrayList<>(items.size() + 1);
        Map<CollectionHandle, List<Captured>> byCollection = new LinkedHashMap<>();
        for (Delivery d : items) {
            CollectionHandle c = d.collection();
            try {
                c.append(d.item(), out);
            } catch (RuntimeException failure) {
                throw new CollectionFailure(c.ns(), failure);
            }
            byCollection.computeIfAbsent(c, k -> new ArrayList<>()).add(d.item());
        }
        if (!out.isEmpty()) {
            queue.put(out); // empty when peer mode dropped every change as a repeat
        }
        byCollection.forEach(CollectionHandle::published);
    }
}
