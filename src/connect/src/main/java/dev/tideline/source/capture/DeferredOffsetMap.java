package dev.tideline.source.capture;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * A record's source offset, built on first read: Connect reads only the offset of the last
 * acknowledged record of a partition at each commit. Read-only; safe to read from any thread.
 */
final class DeferredOffsetMap extends AbstractMap<String, Object> {
    private final Supplier<Map<String, Object>> build;
    private volatile Map<String, Object> built;

    DeferredOffsetMap(Supplier<Map<String, Object>> build) {
        this.build = build;
    }

    private Map<String, Object> built() {
        Map<String, Object> m = built;
        if (m == null) {
            m = Collections.unmodifiableMap(build.get());
            built = m;
        }
        return m;
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return built().entrySet();
    }

    @Override
    public Object get(Object key) {
        return built().get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return built().containsKey(key);
    }

    @Override
    public int size() {
        return built().size();
    }
}
