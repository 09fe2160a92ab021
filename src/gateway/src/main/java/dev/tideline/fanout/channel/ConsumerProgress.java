package dev.tideline.fanout.channel;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;

/**
 * How far the gateway's consumer has gone, shared between the consumer thread (which writes it) and
 * subscriptions (which read it): per partition, the next offset not yet routed, the offset the
 * consumer started from, and the offset from which every record still sits in some channel's
 * history unless that history evicted it (raised when a whole channel is evicted or a record is
 * dropped for lack of channels).
 */
public final class ConsumerProgress {
    private volatile Map<String, Integer> partitionCounts = Map.of();
    private final Map<TopicPartition, AtomicLong> next = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> started = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> completeFrom = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Long> ends = new ConcurrentHashMap<>();
    private volatile boolean ready;

    /** The partitions the consumer is assigned to now. */
    public void assigned(Set<TopicPartition> partitions) {
        Map<String, Integer> counts = new HashMap<>();
        for (TopicPartition tp : partitions) {
            counts.merge(tp.topic(), tp.partition() + 1, Math::max);
        }
        partitionCounts = Map.copyOf(counts);
    }

    /** The consumer (re)starts reading the partition at {@code offset}. */
    public void started(TopicPartition tp, long offset) {
        next.computeIfAbsent(tp, k -> new AtomicLong()).set(offset);
        started.merge(tp, offset, Math::max);
        completeFrom.merge(tp, offset, Math::max);
    }

    /** Every record of the partition before {@code nextOffset} has been routed. */
    public void advanced(TopicPartition tp, long nextOffset) {
        AtomicLong n = next.get(tp);
        if (n != null) {
            n.set(nextOffset);
        }
    }

    /** Records of the partition before {@code offset} may be missing from a channel's history. */
    public void lostThrough(TopicPartition tp, long offset) {
        completeFrom.merge(tp, offset, Math::max);
    }

    /** The next offset the consumer will route, or -1 for a partition it does not read. */
    public long next(TopicPartition tp) {
        AtomicLong n = next.get(tp);
        return n == null ? -1 : n.get();
    }

    /** Where the consumer started the partition; {@link Long#MAX_VALUE} for one it does not read. */
    public long startOf(TopicPartition tp) {
        return started.getOrDefault(tp, Long.MAX_VALUE);
    }

    /** See the class comment; {@link Long#MAX_VALUE} for a partition the consumer does not read. */
    public long completeFrom(TopicPartition tp) {
        return completeFrom.getOrDefault(tp, Long.MAX_VALUE);
    }

    /** Partitions of a topic the consumer reads, 0 when it reads none. */
    public int partitionCount(String topic) {
        return partitionCounts.getOrDefault(topic, 0);
    }

    public Set<String> topics() {
        return new TreeSet<>(partitionCounts.keySet());
    }

    public Map<TopicPartition, Long> positions() {
        Map<TopicPartition, Long> out = new HashMap<>();
        next.forEach((tp, n) -> out.put(tp, n.get()));
        return out;
    }

    /** The partition's end offset as the consumer last measured it (for the lag in the gateway's metrics). */
    public void measuredEnd(TopicPartition tp, long endOffset) {
        ends.put(tp, endOffset);
    }

    /** A topic's partitions summed: the next offsets to route, the last measured end offsets and the records between. */
    public record TopicProgress(long position, long endOffset, long lagRecords) {
    }

    /** {@link TopicProgress} of a topic the consumer reads; all 0 for one it does not. */
    public TopicProgress ofTopic(String topic) {
        long position = 0;
        long end = 0;
        long lag = 0;
        for (int p = 0; p < partitionCount(topic); p++) {
            TopicPartition tp = new TopicPartition(topic, p);
            long n = Math.max(0, next(tp));
            long e = ends.getOrDefault(tp, n);
            position += n;
            end += e;
            lag += Math.max(0, e - n);
        }
        return new TopicProgress(position, end, lag);
    }

    /** Subscriptions are served once the consumer has been assigned its partitions. */
    public void markReady() {
        ready = true;
    }

    public boolean ready() {
        return ready;
    }
}
