package dev.tideline.fanout.channel;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One channel of one gateway run: numbers its changes from 1, keeps the history, hands every
 * change to every listener. One lock orders publishing and subscribing, so a subscriber gets each
 * change exactly once: from the backlog or live, never both, never neither.
 */
final class Channel {
    private final ChannelName name;
    private final String epoch;
    private final ChannelHistory history;
    private final Set<ChannelListener> listeners = new LinkedHashSet<>();
    private long seq;

    Channel(ChannelName name, String epoch, ChannelHistory history) {
        this.name = name;
        this.epoch = epoch;
        this.history = history;
    }

    synchronized SequencedChange publish(String changeJson, long kafkaTimestamp, long nowMillis) {
        // history ages by when the change was written to Kafka, so a start-up refill keeps what is still young
        long acceptedAt = kafkaTimestamp > 0 ? Math.min(kafkaTimestamp, nowMillis) : nowMillis;
        SequencedChange change = SequencedChange.render(name, epoch, ++seq, acceptedAt, kafkaTimestamp, nowMillis, changeJson);
        history.append(change, nowMillis);
        for (ChannelListener l : listeners) {
            l.change(change);
        }
        return change;
    }

    /**
     * Registers a listener after replaying what it asked for: {@code resume} is the client's
     * position (epoch and last seq seen) or empty to start live.
     */
    synchronized void subscribe(ChannelListener listener, Optional<ResumePoint> resume, long nowMillis) {
        history.prune(nowMillis);
        listener.subscribed(name, epoch, seq);
        if (resume.isPresent()) {
            ResumePoint p = resume.get();
            if (p.fromEarliest()) {
                history.since(Math.max(0, history.oldestSeq() - 1), seq).orElse(List.of()).forEach(listener::change);
            } else if (!epoch.equals(p.epoch())) {
                listener.unrecoverable(name, epoch, seq, p.lastSeen() < 0 ? "bad-cursor" : "epoch-changed");
            } else {
                Optional<List<SequencedChange>> missed = history.since(p.lastSeen(), seq);
                if (missed.isPresent()) {
                    missed.get().forEach(listener::change);
                } else {
                    listener.unrecoverable(name, epoch, seq, p.lastSeen() > seq ? "unknown-position" : "beyond-history");
                }
            }
        }
        listeners.add(listener);
    }

    synchronized void unsubscribe(ChannelListener listener) {
        listeners.remove(listener);
    }

    synchronized int listenerCount() {
        return listeners.size();
    }

    synchronized long currentSeq() {
        return seq;
    }
}
