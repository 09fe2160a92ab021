package dev.tideline.fanout.channel;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * Every channel, created by a change routed to it or by a subscriber, at most {@code maxChannels}:
 * one nobody listens to is removed once its history has aged out (or, at the cap, to make room).
 * Only the consumer thread publishes; subscribers register from the event loops.
 */
public final class ChannelHub {
    private final HistoryLimits limits;
    private final int maxChannels;
    private final long timeMarginMillis;
    private final ConsumerProgress progress;
    private final NamespaceTopics namespaces;
    private final LongSupplier clock;
    private final AtomicLong historyBytes = new AtomicLong();
    private final Map<ChannelName, Channel> channels = new ConcurrentHashMap<>();
    private final IdleChannels idle = new IdleChannels();
    private final AtomicLong droppedForCap = new AtomicLong();
    private final AtomicLong evicted = new AtomicLong();

    /** No channel can be created: all {@code maxChannels} have subscribers. */
    public static final class ChannelsFullException extends Exception {
        private static final long serialVersionUID = 1L;

        ChannelsFullException(int max) {
            super("the gateway holds its maximum of " + max + " channels, all with subscribers");
        }
    }

    /** @param timeMarginMillis see {@link ResumePlanner#plan} */
    public ChannelHub(HistoryLimits limits, int maxChannels, long timeMarginMillis, ConsumerProgress progress,
                      NamespaceTopics namespaces, LongSupplier clock) {
        this.limits = limits;
        this.maxChannels = maxChannels;
        this.timeMarginMillis = timeMarginMillis;
        this.progress = progress;
        this.namespaces = namespaces;
        this.clock = clock;
    }

    public ConsumerProgress progress() {
        return progress;
    }

    public NamespaceTopics namespaces() {
        return namespaces;
    }

    /**
     * Publishes a change read at {@code tp}/{@code offset}; null when no channel could be made for it
     * (all have subscribers): nobody could receive it, and resumes read it from Kafka.
     */
    public RoutedChange publish(ChannelName name, TopicPartition tp, long offset, long kafkaTimestamp, String changeJson) {
        long now = clock.getAsLong();
        RoutedChange change = RoutedChange.render(name, tp, offset, kafkaTimestamp, now, changeJson);
        while (true) {
            Channel c = channels.get(name);
            if (c == null) {
                c = create(name, now);
                if (c == null) {
                    droppedForCap.incrementAndGet();
                    progress.lostThrough(tp, offset + 1);
                    return null;
                }
            }
            if (c.publish(change, now)) {
                enforceTotalBytes(c);
                return change;
            }
            channels.remove(name, c);
        }
    }

    /**
     * Registers a listener on a channel (after {@link ChannelListener#registered} with its plan). A
     * listener of several channels registers with each in turn.
     */
    public ResumePlan subscribe(ChannelListener listener, ChannelName name, StartPoint start) throws ChannelsFullException {
        while (true) {
            long now = clock.getAsLong();
            Channel c = channels.get(name);
            if (c == null) {
                c = create(name, now);
                if (c == null) {
                    throw new ChannelsFullException(maxChannels);
                }
            }
            ResumePlan plan = c.register(listener, start, partitionsOf(name), timeMarginMillis, now);
            if (plan != null) {
                return plan;
            }
            channels.remove(name, c);
        }
    }

    public void unsubscribe(ChannelListener listener, List<ChannelName> names) {
        for (ChannelName name : names) {
            Channel c = channels.get(name);
            if (c != null) {
                c.unregister(listener);
            }
        }
    }

    /**
     * Makes sure the channels exist before a subscription is answered, so one over the cap is refused
     * with a status instead of being cut off after it was accepted.
     */
    public void ensureChannels(List<ChannelName> names) throws ChannelsFullException {
        long now = clock.getAsLong();
        for (ChannelName name : names) {
            if (!channels.containsKey(name) && create(name, now) == null) {
                throw new ChannelsFullException(maxChannels);
            }
        }
    }

    /** Removes channels nobody listens to whose history has aged out; returns how many. */
    public int sweep() {
        long now = clock.getAsLong();
        int removed = 0;
        for (Channel c : channels.values()) {
            if (c.removeIfUnused(now, false)) {
                channels.remove(c.name(), c);
                removed++;
            }
        }
        evicted.addAndGet(removed);
        return removed;
    }

    private Channel create(ChannelName name, long now) {
        if (channels.size() >= maxChannels && !makeRoom(now)) {
            return null;
        }
        return channels.computeIfAbsent(name, n -> new Channel(n, new ChannelHistory(limits, historyBytes), progress, idle,
                partitionsOf(n)));
    }

    /**
     * At the cap: removes the least recently used channel nobody listens to, history and all. Constant
     * time per channel tried (one that gained a listener meanwhile is skipped): it runs on an event loop.
     */
    private boolean makeRoom(long now) {
        for (Channel c; (c = idle.pollLeastRecent()) != null; ) {
            if (c.removeIfUnused(now, true)) {
                channels.remove(c.name(), c);
                evicted.incrementAndGet();
                return true;
            }
        }
        return false;
    }

    /** Over the total history budget: the channel just published to gives first, then the others. */
    private void enforceTotalBytes(Channel current) {
        if (historyBytes.get() <= limits.totalMaxBytes()) {
            return;
        }
        while (historyBytes.get() > limits.totalMaxBytes() && current.evictOldest()) {
            // its oldest changes first
        }
        for (Channel c : channels.values()) {
            while (historyBytes.get() > limits.totalMaxBytes() && c.evictOldest()) {
                // then any channel's
            }
            if (historyBytes.get() <= limits.totalMaxBytes()) {
                return;
            }
        }
    }

    private Set<TopicPartition> partitionsOf(ChannelName name) {
        Set<TopicPartition> out = new HashSet<>();
        for (String topic : namespaces.topicsFor(name.db(), name.collection(), progress.topics())) {
            int n = progress.partitionCount(topic);
            for (int p = 0; p < n; p++) {
                out.add(new TopicPartition(topic, p));
            }
        }
        return out;
    }

    public int channelCount() {
        return channels.size();
    }

    public long historyBytes() {
        return historyBytes.get();
    }

    /** Changes no channel could be made for (the cap was reached with every channel subscribed). */
    public long droppedForCap() {
        return droppedForCap.get();
    }

    public long evictedChannels() {
        return evicted.get();
    }
}
