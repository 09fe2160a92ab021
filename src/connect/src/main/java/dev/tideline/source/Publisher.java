package dev.tideline.source;

import dev.tideline.source.capture.Captured;
import dev.tideline.source.stream.StreamOutput.CollectionFailure;
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
    void publish(CollectionCapture c, List<Captured> items) throws InterruptedException {
        if (items.isEmpty()) {
            return;
        }
        List<SourceRecord> out = new ArrayList<>(items.size() + 1);
        for (Captured item : items) {
            c.records().append(item, out);
        }
        if (!out.isEmpty()) {
            queue.put(out);
        }
        published(c, items);
    }

    /**
     * Items of several collections, in stream order.
     *
     * @throws CollectionFailure naming the collection whose records could not be built (nothing is handed over)
     */
    void publish(List<Map.Entry<CollectionCapture, Captured>> items) throws InterruptedException {
        List<SourceRecord> out = new ArrayList<>(items.size() + 1);
        Map<CollectionCapture, List<Captured>> byCollection = new LinkedHashMap<>();
        for (Map.Entry<CollectionCapture, Captured> e : items) {
            CollectionCapture c = e.getKey();
            try {
                c.records().append(e.getValue(), out);
            } catch (RuntimeException failure) {
                throw new CollectionFailure(c.ns().coll(), failure);
            }
            byCollection.computeIfAbsent(c, k -> new ArrayList<>()).add(e.getValue());
        }
        if (!out.isEmpty()) {
            queue.put(out); // empty when peer mode dropped every change as a repeat
        }
        byCollection.forEach(this::published);
    }

    private void published(CollectionCapture c, List<Captured> items) {
        c.position(items.get(items.size() - 1).offset());
        c.metrics().published(items);
    }
}
