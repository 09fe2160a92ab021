package dev.tideline.source.capture;

import org.bson.BsonTimestamp;

/**
 * Where a copy's stream starts, and the cluster time its reads wait for. Pure.
 *
 * <p>A copy takes its stream start before it reads: its reads must hold every write before the start, and
 * the stream replays every change from the start on. A new copy starts at the server's clock less a margin
 * (replaying a few seconds is harmless). A copy made because an event replaced the collection's documents
 * without change events (a rename onto it) must also start AFTER that event: its finished copy then stands
 * past the event ({@link StreamPosition#covers}), so a stream rewound before the event later reads it as
 * one the collection already has, instead of copying the collection again.
 *
 * <p>Such a start (the event's cluster time plus one increment) may be later than any cluster time the
 * server has reached; MongoDB refuses a read whose {@code afterClusterTime} is (InvalidOptions, 72: "readConcern
 * afterClusterTime value must not be greater than the current clusterTime"). The reads therefore wait for the
 * latest cluster time BEFORE the start ({@link #readsAfter}): the event's own, which the server has reached,
 * and which is all a copy from that start must see.
 */
public final class CopyStart {
    private CopyStart() {
    }

    /**
     * The stream start of a copy that must cover {@code event}: just after it, or {@code clock} (the server's
     * clock less its margin) when that is later.
     */
    public static BsonTimestamp after(BsonTimestamp event, BsonTimestamp clock) {
        // an increment counts the writes of one second: it never reaches 2^32, so one more stays in the event's second
        BsonTimestamp justAfter = new BsonTimestamp(event.getTime(), event.getInc() + 1);
        return clock.compareTo(justAfter) > 0 ? clock : justAfter;
    }

    /**
     * The cluster time the reads of a copy starting at {@code streamStart} wait for: the last one before it, which
     * holds every write before the start. A start taken from the clock (increment 0, before every write of its
     * second: MongoDB's increments start at 1) is itself; one just after an event is that event's.
     */
    public static BsonTimestamp readsAfter(BsonTimestamp streamStart) {
        return streamStart.getInc() == 0 ? streamStart : new BsonTimestamp(streamStart.getTime(), streamStart.getInc() - 1);
    }
}
