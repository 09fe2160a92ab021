package dev.tideline.source.capture;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * A point in a deployment's change-event order, so that positions of different collections read
 * through ONE stream can be compared: the stream opens at the earliest, and each collection drops
 * what it already has. Pure.
 *
 * <p>Two kinds: an operation time ({@code startAtOperationTime}: before every event at that cluster
 * time) and a resume token (after that event, or after a post-batch "high-water mark"). MongoDB 4.0+
 * resume tokens are {@code {_data: "<hex>"}}, the hex of a KeyString that starts with the event's
 * cluster time (type byte {@code 0x82}, then the timestamp's 8 bytes big-endian) followed by the
 * rest of the event's identity; as strings they sort in event order
 * (https://www.mongodb.com/docs/manual/changeStreams/#resume-tokens-from-change-events, "the resume
 * token _data type ... hex-encoded string"). Positions therefore order by cluster time first, then by
 * the token's hex; an operation time comes before every token of its second.
 *
 * <p>An event that arrived split into fragments ({@code $changeStreamSplitLargeEvent}) is ordered by its FIRST
 * fragment's token ({@link #afterSplitEvent}), but a stream never opens at a fragment's token: MongoDB splits
 * the event again on resume and answers ChangeStreamFatalError (280) when the split differs, e.g. because the
 * looked-up document changed since. Such a position opens at the event's cluster time and drops what it
 * covers, which the event itself is, split or whole: a whole event's token sorts before its fragments' (the
 * fragment number is the token's last field).
 *
 * <p>A token whose hex cannot be read (a 3.6 BinData token, another format) still orders by the cluster
 * time it was stored with; two such positions in the same cluster time compare as equal, which can
 * only let an event through twice (harmless: every write downstream is idempotent), never drop one.
 */
public final class StreamPosition implements Comparable<StreamPosition> {
    private static final int KEYSTRING_TIMESTAMP = 0x82;

    private final BsonTimestamp clusterTime;
    private final BsonDocument token;
    /** Upper-case hex of the token's {@code _data}, when it is one; null for operation times and unreadable tokens. */
    private final String key;
    /** After an event that arrived in fragments: opened at its cluster time, never at the token. */
    private final boolean splitEvent;

    private StreamPosition(BsonTimestamp clusterTime, BsonDocument token, String key, boolean splitEvent) {
        this.clusterTime = Objects.requireNonNull(clusterTime, "clusterTime");
        this.token = token;
        this.key = key;
        this.splitEvent = splitEvent;
    }

    /** Before every event at {@code t} and after every event before it. */
    public static StreamPosition atOperationTime(BsonTimestamp t) {
        return new StreamPosition(t, null, null, false);
    }

    /**
     * After the event (or high-water mark) {@code token} names.
     *
     * @param clusterTime the event's cluster time when the caller knows it (an event's {@code clusterTime},
     *                    a stored offset); null to read it from the token
     * @throws IllegalArgumentException when no cluster time is given and the token does not carry one
     */
    public static StreamPosition afterToken(BsonDocument token, BsonTimestamp clusterTime) {
        return after(token, clusterTime, false);
    }

    /**
     * After an event that arrived split into fragments: ordered by {@code firstFragmentToken}, opened at
     * {@code clusterTime} (see the class comment).
     */
    public static StreamPosition afterSplitEvent(BsonDocument firstFragmentToken, BsonTimestamp clusterTime) {
        return after(firstFragmentToken, Objects.requireNonNull(clusterTime, "clusterTime"), true);
    }

    private static StreamPosition after(BsonDocument token, BsonTimestamp clusterTime, boolean splitEvent) {
        Objects.requireNonNull(token, "token");
        String key = hexKey(token);
        BsonTimestamp time = clusterTime;
        if (time == null) {
            time = key == null ? null : clusterTimeOf(key).orElse(null);
            if (time == null) {
                throw new IllegalArgumentException("the resume token " + token.toJson() + " does not say its cluster time (not a "
                        + "MongoDB 4.0+ token): its place in the change-event order is unknown");
            }
        }
        return new StreamPosition(time, token, key, splitEvent);
    }

    /** The cluster time a MongoDB 4.0+ resume token starts with, if it is one. */
    public static Optional<BsonTimestamp> clusterTimeOf(BsonDocument token) {
        String key = hexKey(token);
        return key == null ? Optional.empty() : clusterTimeOf(key);
    }

    private static Optional<BsonTimestamp> clusterTimeOf(String key) {
        if (key.length() < 18 || Integer.parseInt(key.substring(0, 2), 16) != KEYSTRING_TIMESTAMP) {
            return Optional.empty();
        }
        long value = Long.parseUnsignedLong(key.substring(2, 18), 16);
        return Optional.of(new BsonTimestamp(value));
    }

    private static String hexKey(BsonDocument token) {
        BsonValue data = token.get("_data");
        if (data == null || !data.isString()) {
            return null;
        }
        String hex = data.asString().getValue();
        if (hex.isEmpty() || (hex.length() & 1) != 0) {
            return null;
        }
        for (int i = 0; i < hex.length(); i++) {
            if (Character.digit(hex.charAt(i), 16) < 0) {
                return null;
            }
        }
        return hex.toUpperCase(Locale.ROOT);
    }

    public BsonTimestamp clusterTime() {
        return clusterTime;
    }

    /** The resume token, or null for an operation time. */
    public BsonDocument token() {
        return token;
    }

    public boolean isToken() {
        return token != null;
    }

    /** Whether this is the position after an event that arrived in fragments (opened at its cluster time). */
    public boolean isSplitEvent() {
        return splitEvent;
    }

    /**
     * Whether a collection at this position already has the event at {@code event}: the event is not
     * after it. An unreadable token and another position in the same second are not ordered: the event
     * is then taken as new (a possible repeat, never a loss).
     */
    public boolean covers(StreamPosition event) {
        int c = compareTo(event);
        if (c != 0) {
            return c > 0;
        }
        return equals(event) || (key != null && event.key != null) || (token == null && event.token == null);
    }

    /**
     * Where a stream must open to deliver everything after this position: the position itself, or the
     * start of its cluster time for a token that cannot be ordered within its second and for a split
     * event (never a fragment's token, see the class comment).
     */
    public StreamPosition openingPoint() {
        return token != null && (key == null || splitEvent) ? atOperationTime(clusterTime) : this;
    }

    public static StreamPosition max(StreamPosition a, StreamPosition b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    public static StreamPosition min(StreamPosition a, StreamPosition b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public int compareTo(StreamPosition o) {
        int byTime = clusterTime.compareTo(o.clusterTime); // BsonTimestamp compares as unsigned
        if (byTime != 0) {
            return byTime;
        }
        if (token == null || o.token == null) {
            return Boolean.compare(token != null, o.token != null); // an operation time first
        }
        if (key == null || o.key == null) {
            return 0; // unreadable in the same second: equal (see the class comment)
        }
        return key.compareTo(o.key);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StreamPosition p && clusterTime.equals(p.clusterTime) && Objects.equals(token, p.token)
                && splitEvent == p.splitEvent;
    }

    @Override
    public int hashCode() {
        return Objects.hash(clusterTime, token, splitEvent);
    }

    @Override
    public String toString() {
        String time = "Timestamp(" + Integer.toUnsignedLong(clusterTime.getTime()) + ", " + clusterTime.getInc() + ")";
        return token == null ? "at " + time : "after " + (splitEvent ? "the split event " : "") + (key != null ? key : token.toJson())
                + " (" + time + ")";
    }
}
