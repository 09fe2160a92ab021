package dev.tideline.source;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.storage.OffsetStorageReader;

/** A source task's context outside a worker, for tests that start a task themselves. */
public final class TaskContexts {
    private TaskContexts() {
    }

    /** Every partition reads {@code storedOffset} (null: nothing stored); the task's configs are empty. */
    public static SourceTaskContext withOffset(Map<String, Object> storedOffset) {
        OffsetStorageReader reader = new OffsetStorageReader() {
            @Override
            public <T> Map<String, Object> offset(Map<String, T> partition) {
                return storedOffset;
            }

            @Override
            public <T> Map<Map<String, T>, Map<String, Object>> offsets(Collection<Map<String, T>> partitions) {
                Map<Map<String, T>, Map<String, Object>> out = new HashMap<>();
                if (storedOffset != null) {
                    partitions.forEach(p -> out.put(p, storedOffset));
                }
                return out;
            }
        };
        return new SourceTaskContext() {
            @Override
            public Map<String, String> configs() {
                return Map.of();
            }

            @Override
            public OffsetStorageReader offsetStorageReader() {
                return reader;
            }
        };
    }
}
