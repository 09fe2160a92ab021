package dev.tideline.fanout.channel;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;

/**
 * The recent changes of one channel, bounded by count, age and bytes (its own and, through
 * {@code totalBytes}, all channels' together). A cache: a client whose position is older than what
 * it holds is served from Kafka instead. Not thread-safe: its {@link Channel} guards it.
 */
final class ChannelHistory {
    private final HistoryLimits limits;
    private final AtomicLong totalBytes;
    private final ArrayDeque<RoutedChange> entries = new ArrayDeque<>();
    private long bytes;
    /** Per partition: the offset after the last change evicted; the history is complete from there. */
    private final Map<TopicPartition, Long> evictedThrough = new HashMap<>();

    ChannelHistory(HistoryLimits limits, AtomicLong totalBytes) {
        this.limits = limits;
        this.totalBytes = totalBytes;
    }

    void append(RoutedChange change, long nowMillis) {
        entries.addLast(change);
        bytes += change.sizeBytes();
        totalBytes.addAndGet(change.sizeBytes());
        prune(nowMillis);
    }

    void prune(long nowMillis) {
        while (!entries.isEmpty() && (entries.size() > limits.maxCount() || bytes > limits.maxBytes()
                || nowMillis - entries.peekFirst().acceptedAtMillis() > limits.maxAgeMillis())) {
            evictOldest();
        }
    }

    /** Drops the oldest change; false when there is none. */
    boolean evictOldest() {
        RoutedChange c = entries.pollFirst();
        if (c == null) {
            return false;
        }
        bytes -= c.sizeBytes();
        totalBytes.addAndGet(-c.sizeBytes());
        evictedThrough.merge(c.source(), c.offset() + 1, Math::max);
        return true;
    }

    void clear() {
        while (evictOldest()) {
            // accounted one by one
        }
    }

    /** The offset from which this history holds every change of the partition it was given, given where it began. */
    long completeFrom(TopicPartition tp, long begin) {
        return Math.max(begin, evictedThrough.getOrDefault(tp, -1L));
    }

    /** The changes at or after {@code from} on each partition it names, in the order they were appended. */
    List<RoutedChange> since(Map<TopicPartition, Long> from) {
        List<RoutedChange> out = new ArrayList<>();
        for (RoutedChange c : entries) {
            Long start = from.get(c.source());
            if (start != null && c.offset() >= start) {
                out.add(c);
            }
        }
        return out;
    }

    int size() {
        return entries.size();
    }

    long bytes() {
        return bytes;
    }
}
