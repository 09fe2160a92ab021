package dev.tideline.peer;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A map that keeps its {@code capacity} most recently used entries (read or written): when one more comes in, the
 * least recently used is forgotten and handed to {@code onForget}. What peer mode remembers per document is bounded
 * this way ({@link #DOCUMENTS}). Not thread-safe, like {@link LinkedHashMap}.
 */
public final class LruMap<K, V> extends LinkedHashMap<K, V> {
    /** How many documents peer mode remembers in each of its per-document memories. */
    public static final int DOCUMENTS = 100_000;

    private final int capacity;
    private final transient Consumer<Map.Entry<K, V>> onForget;

    public LruMap(int capacity) {
        this(capacity, forgotten -> { });
    }

    public LruMap(int capacity, Consumer<Map.Entry<K, V>> onForget) {
        super(1024, 0.75f, true); // access order: a read counts as a use
        this.capacity = capacity;
        this.onForget = onForget;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        if (size() <= capacity) {
            return false;
        }
        onForget.accept(eldest);
        return true;
    }
}
