package dev.tideline.peer;

import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * The version of a write in peer replication: the origin cluster's time of the write and the origin
 * cluster's id. Totally ordered by time, then id, so every cluster picks the same winner.
 */
public record Version(BsonTimestamp time, String origin) implements Comparable<Version> {
    public Version {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(origin, "origin");
    }

    @Override
    public int compareTo(Version o) {
        int c = time.compareTo(o.time);
        return c != 0 ? c : origin.compareTo(o.origin);
    }

    public boolean newerThan(Version o) {
        return o == null || compareTo(o) > 0;
    }

    /** {@code {t: Timestamp, o: "id"}} */
    public BsonDocument toBson() {
        return new BsonDocument("t", time).append("o", new BsonString(origin));
    }

    /** @return null when the value is not a version document */
    public static Version fromBson(BsonValue v) {
        if (v == null || !v.isDocument()) {
            return null;
        }
        BsonDocument d = v.asDocument();
        BsonValue t = d.get("t");
        BsonValue o = d.get("o");
        return t != null && t.isTimestamp() && o != null && o.isString() ? new Version(t.asTimestamp(), o.asString().getValue()) : null;
    }

    /** {@code seconds.increment@origin}: the header form. */
    public String toText() {
        return Integer.toUnsignedString(time.getTime()) + "." + Integer.toUnsignedString(time.getInc()) + "@" + origin;
    }

    /** @throws IllegalArgumentException when the text is not {@code seconds.increment@origin} */
    public static Version parse(String text) {
        int at = text.indexOf('@');
        int dot = text.indexOf('.');
        if (at < 0 || dot < 0 || dot > at) {
            throw new IllegalArgumentException("'" + text + "' is not a peer version (seconds.increment@origin)");
        }
        try {
            return new Version(new BsonTimestamp(Integer.parseUnsignedInt(text.substring(0, dot)),
                    Integer.parseUnsignedInt(text.substring(dot + 1, at))), text.substring(at + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a peer version (seconds.increment@origin)", e);
        }
    }

    @Override
    public String toString() {
        return toText();
    }
}
