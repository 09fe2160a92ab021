package dev.tideline.fanout.stats;

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
    /** Deletes that carried no tenant and were routed by the tenant the gateway last saw for the document. */
    public final LongAdder deletesRoutedByMemory = new LongAdder();
    public final AtomicLong openConnections = new AtomicLong();
    private final Map<String, LongAdder> skipped = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> refused = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> disconnects = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> resumes = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> readBacks = new ConcurrentHashMap<>();

    /** A record not delivered: reason is one of ChangeRouter's skip reasons, or poison. */
    public void skipped(String reason) {
        count(skipped, reason);
    }

    /** A request refused: reason is e.g. {@code 401:expired}, {@code 403:origin-not-allowed}, {@code 503:too-many-connections}. */
    public void refused(String reason) {
        count(refused, reason);
    }

    public void disconnected(String reason) {
        count(disconnects, reason);
    }

    /** How a channel of a subscription started: live, cache, kafka (a read-back queued), unrecoverable:reason. */
    public void resumed(String how) {
        count(resumes, how);
    }

    /** How a read-back of missed changes from Kafka ended: kafka (caught up), aborted, failed, queue-full, unrecoverable:reason. */
    public void readBack(String outcome) {
        count(readBacks, outcome);
    }

    public long readBackCount(String outcome) {
        return get(readBacks, outcome);
    }

    public Map<String, Long> readBacksByOutcome() {
        return snapshot(readBacks);
    }

    public long disconnects(String reason) {
        return get(disconnects, reason);
    }

    public long skippedCount(String reason) {
        return get(skipped, reason);
    }

    public long refusedCount(String reason) {
        return get(refused, reason);
    }

    public long resumedCount(String how) {
        return get(resumes, how);
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

    public Map<String, Long> resumesByKind() {
        return snapshot(resumes);
    }

    private static void count(Map<String, LongAdder> m, String key) {
        m.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    private static long get(Map<String, LongAdder> m, String key) {
        LongAdder a = m.get(key);
        return a == null ? 0 : a.sum();
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> m) {
        Map<String, Long> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
