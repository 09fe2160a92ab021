package dev.tideline.fanout.channel;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * The recent changes of one channel, bounded by count and by age, from which a client resumes.
 * Not thread-safe: its {@link Channel} guards it.
 */
public final class ChannelHistory {
    private final int maxSize;
    private final long maxAgeMillis;
    private final ArrayDeque<SequencedChange> entries = new ArrayDeque<>();
    /** Highest seq ever evicted; 0 while nothing was. A resume from below it is unrecoverable. */
    private long evictedThrough;

    public ChannelHistory(int maxSize, long maxAgeMillis) {
        if (maxSize < 0 || maxAgeMillis < 0) {
            throw new IllegalArgumentException("history size and age must be >= 0");
        }
        this.maxSize = maxSize;
        this.maxAgeMillis = maxAgeMillis;
    }

    public void append(SequencedChange change, long nowMillis) {
        entries.addLast(change);
        prune(nowMillis);
    }

    public void prune(long nowMillis) {
        while (!entries.isEmpty() && (entries.size() > maxSize
                || nowMillis - entries.peekFirst().acceptedAtMillis() > maxAgeMillis)) {
            evictedThrough = entries.removeFirst().seq();
        }
    }

    /**
     * What a client that has seen everything through {@code lastSeen} missed, up to
     * {@code currentSeq}; empty when part of it is no longer held.
     */
    public Optional<List<SequencedChange>> since(long lastSeen, long currentSeq) {
        if (lastSeen < 0 || lastSeen > currentSeq || lastSeen < evictedThrough) {
            return Optional.empty();
        }
        List<SequencedChange> out = new ArrayList<>();
        Iterator<SequencedChange> it = entries.iterator();
        while (it.hasNext()) {
            SequencedChange c = it.next();
            if (c.seq() > lastSeen) {
                out.add(c);
            }
        }
        return Optional.of(out);
    }

    public int size() {
        return entries.size();
    }

    /** The oldest seq still held, or 0 when empty. */
    public long oldestSeq() {
        return entries.isEmpty() ? 0 : entries.peekFirst().seq();
    }
}
