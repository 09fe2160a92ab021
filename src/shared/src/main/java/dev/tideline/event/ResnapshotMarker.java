package dev.tideline.event;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;

/**
 * A marker the source writes on a collection's CHANGE topic around every copy of the collection (the
 * first one, one after a restart without a committed position, one after a lost history) and around a
 * repair, a copy of an {@code _id} range ({@link #scope()}) while streaming goes on:
 * {@code begin} before the copy, {@code complete} after it. The source sends each to every partition of the topic (Kafka orders records per
 * partition only), so a {@code complete} read on a partition comes after every copy that partition
 * carries.
 *
 * <p>The epoch is the stream start the copy took before it began: every copy carries it as its cluster
 * time, and every change streamed afterwards is at least as new. So after {@code complete}, a document
 * of that partition whose last applied version is older than the epoch was neither copied nor changed
 * since: it was deleted at the source while the history was out of reach, and the sink removes it.
 * Only within the scope: a repair copies its range alone, so documents outside it were not copied and
 * must stay.
 *
 * <p>Everything a sink needs is in the headers ({@link EventHeaders#MARKER}, {@link EventHeaders#EPOCH},
 * {@link EventHeaders#PARTITIONS}, {@link EventHeaders#NAMESPACE}, the scope's {@link EventHeaders#SCOPE_FROM}
 * and {@link EventHeaders#SCOPE_TO} when bounded, and {@code tl.kind=control} so that change decoders skip
 * it), which no value converter can reshape; the value repeats them for people.
 */
public record ResnapshotMarker(Stage stage, Namespace ns, BsonTimestamp epoch, int partitions, IdScope scope) {
    public enum Stage {
        BEGIN("resnapshot.begin"), COMPLETE("resnapshot.complete");

        private final String wireName;

        Stage(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }

    public ResnapshotMarker {
        Objects.requireNonNull(stage, "stage");
        Objects.requireNonNull(ns, "ns");
        Objects.requireNonNull(epoch, "epoch");
        Objects.requireNonNull(scope, "scope (IdScope.ALL for the whole collection)");
        if (partitions < 1) {
            throw new IllegalArgumentException("a marker goes to at least one partition, got " + partitions);
        }
    }

    /** A marker of a copy of the whole collection. */
    public ResnapshotMarker(Stage stage, Namespace ns, BsonTimestamp epoch, int partitions) {
        this(stage, ns, epoch, partitions, IdScope.ALL);
    }

    /** The marker's own headers (besides the common {@code tl.kind}, {@code tl.ns}, {@code tl.producer}), in order. */
    public Map<String, String> headers() {
        Map<String, String> h = new LinkedHashMap<>();
        h.put(EventHeaders.MARKER, stage.wireName());
        h.put(EventHeaders.EPOCH, Long.toString(epoch.getValue()));
        h.put(EventHeaders.PARTITIONS, Integer.toString(partitions));
        scope.putHeaders(h);
        return h;
    }

    /** The record value for people and tools reading the topic (the sink reads the headers). */
    public BsonDocument value(long wallTimeMillis) {
        BsonDocument v = new BsonDocument("type", new BsonString(stage.wireName()))
                .append("db", new BsonString(ns.db())).append("coll", new BsonString(ns.coll()))
                .append("epoch", epoch)
                .append("partitions", new BsonInt32(partitions));
        if (!scope.isAll()) {
            BsonDocument bounds = new BsonDocument();
            if (scope.from() != null) {
                bounds.append("from", scope.from());
            }
            if (scope.to() != null) {
                bounds.append("to", scope.to());
            }
            v.append("scope", bounds);
        }
        return v.append("detail", new BsonString(detail())).append("wallTime", new BsonDateTime(wallTimeMillis));
    }

    private String detail() {
        if (scope.isAll()) {
            return stage == Stage.BEGIN
                    ? "copying " + ns + " from epoch " + show(epoch) + " (a first copy, a copy after a restart without a "
                            + "committed position, or after a lost history)"
                    : "the copy of " + ns + " (epoch " + show(epoch) + ") is complete on this partition: documents "
                            + "neither copied nor changed since the epoch were deleted at the source";
        }
        return stage == Stage.BEGIN
                ? "repairing " + ns + ": copying " + scope.describe() + " at epoch " + show(epoch)
                        + " (documents outside that range are not touched)"
                : "the copy of " + scope.describe() + " of " + ns + " (epoch " + show(epoch) + ") is complete on this "
                        + "partition: documents in that range neither copied nor changed since the epoch were deleted at "
                        + "the source; documents outside it stay";
    }

    /**
     * Reads a marker from a record's headers; empty when the record is not a marker.
     *
     * @param header a record's last header value by name: a String, a Number (a header converter may have
     *               parsed the decimal text), a Map (the default header converter parses a scope's JSON into
     *               one) or UTF-8 bytes; null when absent
     * @throws MalformedRecordException when the record says it is a marker but a header is missing or wrong
     */
    public static Optional<ResnapshotMarker> fromHeaders(Function<String, Object> header) {
        Object marker = header.apply(EventHeaders.MARKER);
        if (marker == null) {
            return Optional.empty();
        }
        String name = text(marker);
        Stage stage = null;
        for (Stage s : Stage.values()) {
            if (s.wireName().equals(name)) {
                stage = s;
            }
        }
        if (stage == null) {
            throw new MalformedRecordException("header " + EventHeaders.MARKER + " must be resnapshot.begin or "
                    + "resnapshot.complete, got '" + name + "' (a newer source? upgrade the sink)");
        }
        Object ns = header.apply(EventHeaders.NAMESPACE);
        if (ns == null) {
            throw new MalformedRecordException("a " + name + " marker needs header " + EventHeaders.NAMESPACE);
        }
        Namespace namespace;
        try {
            namespace = Namespace.parse(text(ns));
        } catch (IllegalArgumentException e) {
            throw new MalformedRecordException("header " + EventHeaders.NAMESPACE + " of a marker: " + e.getMessage(), e);
        }
        long epoch = number(header, EventHeaders.EPOCH, name);
        long partitions = number(header, EventHeaders.PARTITIONS, name);
        if (epoch == 0 || partitions < 1 || partitions > Integer.MAX_VALUE) {
            throw new MalformedRecordException("a " + name + " marker needs a non-zero " + EventHeaders.EPOCH
                    + " and a positive " + EventHeaders.PARTITIONS + ", got " + epoch + " and " + partitions);
        }
        return Optional.of(new ResnapshotMarker(stage, namespace, new BsonTimestamp(epoch), (int) partitions,
                IdScope.fromHeaders(header, name)));
    }

    /** An epoch as people read cluster times: {@code Timestamp(seconds, increment)}. */
    public static String show(BsonTimestamp t) {
        return String.format(Locale.ROOT, "Timestamp(%d, %d)", Integer.toUnsignedLong(t.getTime()), t.getInc());
    }

    private static long number(Function<String, Object> header, String key, String marker) {
        Object v = header.apply(key);
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v == null) {
            throw new MalformedRecordException("a " + marker + " marker needs header " + key);
        }
        try {
            return Long.parseLong(text(v).trim());
        } catch (NumberFormatException e) {
            throw new MalformedRecordException("header " + key + " of a " + marker + " marker must be a decimal integer, got '"
                    + text(v) + "'", e);
        }
    }

    private static String text(Object v) {
        return v instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : v.toString();
    }
}
