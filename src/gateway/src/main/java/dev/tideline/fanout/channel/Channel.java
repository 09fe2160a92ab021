package dev.tideline.fanout.channel;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * One channel: hands every change to every listener and keeps the history. One lock orders
 * publishing and registering, so a subscriber gets each change exactly once: caught up (from the
 * history or Kafka) or live, never both, never neither.
 */
final class Channel {
    private final ChannelName name;
    private final ChannelHistory history;
    private final ConsumerProgress progress;
    private final IdleChannels idle;
    /** Per partition: where the history began, as the consumer's progress said when this channel was created. */
    private final Map<TopicPartition, Long> begin;
    private final Set<ChannelListener> listeners = new LinkedHashSet<>();
    /** Per partition: the offset after the last change published here. */
    private final Map<TopicPartition, Long> through = new HashMap<>();
    private boolean removed;

    Channel(ChannelName name, ChannelHistory history, ConsumerProgress progress, IdleChannels idle, Set<TopicPartition> partitions) {
        this.name = name;
        this.history = history;
        this.progress = progress;
        this.idle = idle;
        this.begin = new HashMap<>();
        for (TopicPartition tp : partitions) {
            begin.put(tp, progress.completeFrom(tp));
        }
        idle.used(this);
    }

    ChannelName name() {
        return name;
    }

    /** False when the channel was removed meanwhile (the caller uses a new one). */
    synchronized boolean publish(RoutedChange change, long nowMillis) {
        if (removed) {
            return false;
        }
        through.merge(change.source(), change.offset() + 1, Math::max);
        history.append(change, nowMillis);
        for (ChannelListener l : listeners) {
            l.change(change);
        }
        if (listeners.isEmpty()) {
            idle.used(this);
        }
        return true;
    }

    /** Plans the listener's start and registers it; null when the channel was removed meanwhile. */
    synchronized ResumePlan register(ChannelListener listener, StartPoint start, Set<TopicPartition> partitions,
                                     long timeMarginMillis, long nowMillis) {
        if (removed) {
            return null;
        }
        history.prune(nowMillis);
        ResumePlan plan = ResumePlanner.plan(start, new ResumePlanner.View() {
            @Override
            public Set<TopicPartition> channelPartitions() {
                return partitions;
            }

            @Override
            public int partitionCount(String topic) {
                return progress.partitionCount(topic);
            }

            @Override
            public long boundary(TopicPartition tp) {
                return Math.max(through.getOrDefault(tp, 0L), Math.max(0, progress.next(tp)));
            }

            @Override
            public boolean covers(Map<TopicPartition, Long> from) {
                for (Map.Entry<TopicPartition, Long> e : from.entrySet()) {
                    long beganAt = begin.getOrDefault(e.getKey(), progress.startOf(e.getKey()));
                    if (e.getValue() < history.completeFrom(e.getKey(), beganAt)) {
                        return false;
                    }
                }
                return true;
            }

            @Override
            public List<RoutedChange> since(Map<TopicPartition, Long> from) {
                return history.since(from);
            }
        }, timeMarginMillis);
        listener.registered(name, plan);
        listeners.add(listener);
        idle.remove(this);
        return plan;
    }

    synchronized void unregister(ChannelListener listener) {
        if (listeners.remove(listener) && listeners.isEmpty() && !removed) {
            idle.used(this);
        }
    }

    synchronized int listenerCount() {
        return listeners.size();
    }

    synchronized int historySize() {
        return history.size();
    }

    synchronized boolean evictOldest() {
        return history.evictOldest();
    }

    /**
     * Removes the channel when nobody listens and, unless {@code force}, its history has aged out:
     * the changes it held are then only in Kafka, which the consumer's progress records.
     */
    synchronized boolean removeIfUnused(long nowMillis, boolean force) {
        history.prune(nowMillis);
        if (removed || !listeners.isEmpty() || (!force && history.size() > 0)) {
            return false;
        }
        removed = true;
        idle.remove(this);
        history.clear();
        Set<TopicPartition> tps = new HashSet<>(through.keySet());
        for (TopicPartition tp : tps) {
            progress.lostThrough(tp, through.get(tp));
        }
        return true;
    }
}
