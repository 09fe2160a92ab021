package dev.tideline.fanout;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Counters of one gateway run, served at /stats and read by tests and the benchmark. */
public final class GatewayStats {
    public final LongAdder recordsRead = new LongAdder();
    public final LongAdder changesPublished = new LongAdder();
    public final LongAdder deliveries = new LongAdder();
    public final AtomicLong openConnections = new AtomicLong();
    private final Map<String, LongAdder> skipped = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> refused = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> disconnects = new ConcurrentHashMap<>();

    public void skipped(String reason) {
        skipped.computeIfAbsent(reason, k -> new LongAdder()).increment();
    }

    /** A subscription refused: reason is e.g. {@code 401:expired} or {@code 403:forbidden-channel}. */
    public void refused(String reason) {
        refused.computeIfAbsent(reason, k -> new LongAdder()).increment();
    }

    public void disconnected(String reason) {
        disconnects.computeIfAbsent(reason, k -> new LongAdder()).increment();
    }

    public long disconnects(String reason) {
        LongAdder a = disconnects.get(reason);
        return a == null ? 0 : a.sum();
    }

    public long refusedTotal() {
        return refused.values().stream().mapToLong(LongAdder::sum).sum();
    }

    public Map<String, Long> skippedByReason() {
        return snapshot(skipped);
    }

    public Map<String, Long> refusedByReason() {
        return snapshot(refused);
    }

    public Map<String, Long> disconnectsByReason() {
        return snapshot(disconnects);
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> m) {
        Map<String, Long> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
