package dev.tideline.fanout.channel;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/** Every channel of one gateway run, created on first use. */
public final class ChannelHub {
    private final String epoch;
    private final int historySize;
    private final long historyAgeMillis;
    private final LongSupplier clock;
    private final Map<ChannelName, Channel> channels = new ConcurrentHashMap<>();

    public ChannelHub(String epoch, int historySize, long historyAgeMillis, LongSupplier clock) {
        this.epoch = epoch;
        this.historySize = historySize;
        this.historyAgeMillis = historyAgeMillis;
        this.clock = clock;
    }

    public String epoch() {
        return epoch;
    }

    public SequencedChange publish(ChannelName name, String changeJson, long kafkaTimestamp) {
        return channel(name).publish(changeJson, kafkaTimestamp, clock.getAsLong());
    }

    /**
     * Subscribes to each channel in turn: its backlog (if {@code resume} has a point for it) and
     * then its live changes. {@code resume} maps a channel to where the client resumes; a channel
     * without an entry starts live.
     */
    public void subscribe(ChannelListener listener, List<ChannelName> names, Map<ChannelName, ResumePoint> resume) {
        long now = clock.getAsLong();
        for (ChannelName name : names) {
            channel(name).subscribe(listener, Optional.ofNullable(resume.get(name)), now);
        }
    }

    public void unsubscribe(ChannelListener listener, List<ChannelName> names) {
        for (ChannelName name : names) {
            Channel c = channels.get(name);
            if (c != null) {
                c.unsubscribe(listener);
            }
        }
    }

    public long currentSeq(ChannelName name) {
        Channel c = channels.get(name);
        return c == null ? 0 : c.currentSeq();
    }

    public int channelCount() {
        return channels.size();
    }

    private Channel channel(ChannelName name) {
        return channels.computeIfAbsent(name, n -> new Channel(n, epoch, new ChannelHistory(historySize, historyAgeMillis)));
    }
}
