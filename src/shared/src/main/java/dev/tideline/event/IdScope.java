package dev.tideline.event;

import java.util.Map;
import java.util.function.Function;
import org.bson.BsonDocument;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonParseException;
import org.bson.json.JsonWriterSettings;

/**
 * The {@code _id}s a resnapshot marker covers: {@code from} inclusive, {@code to} exclusive, a null bound
 * unbounded ({@link #ALL}: the whole collection). A repair re-copies such a range while streaming goes on,
 * and its {@code complete} marker may only sweep inside it.
 *
 * <p>Bounds are ordered as MongoDB sorts values ({@code dev.tideline.mongo.BsonOrder}, which the sink
 * applies); this package is shared with the gateway, so it carries the bounds and nothing that compares them.
 *
 * <p>On the wire each bound has its own marker header ({@link EventHeaders#SCOPE_FROM},
 * {@link EventHeaders#SCOPE_TO}) holding canonical Extended JSON of {@code {"v": <id>}}. Canonical, because it
 * keeps every BSON type apart (int32 5, int64 5 and 5.0 are different ids to write, and a document's field
 * order matters to its place in the order). No scope header: {@link #ALL}.
 */
public record IdScope(BsonValue from, BsonValue to) {
    /** Every id: a copy of the whole collection, and every marker written before scopes existed. */
    public static final IdScope ALL = new IdScope(null, null);

    private static final JsonWriterSettings CANONICAL = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();
    private static final JsonWriterSettings RELAXED = JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();
    private static final int MAX_SHOWN = 200;
    private static final int MAX_QUOTED = 300;
    private static final String WRAP = "v";

    public boolean isAll() {
        return from == null && to == null;
    }

    /** For people: "every id", or e.g. "the ids from 10 (inclusive) to 20 (exclusive)". */
    public String describe() {
        if (isAll()) {
            return "every id";
        }
        if (to == null) {
            return "the ids from " + show(from) + " (inclusive) on";
        }
        if (from == null) {
            return "the ids below " + show(to);
        }
        return "the ids from " + show(from) + " (inclusive) to " + show(to) + " (exclusive)";
    }

    /** A bound as relaxed Extended JSON, e.g. {@code 42} or {@code {"$oid": "..."}}, cut short for a log line. */
    static String show(BsonValue id) {
        String json = new BsonDocument(WRAP, id).toJson(RELAXED);
        String inner = json.substring(json.indexOf(':') + 1, json.length() - 1).trim();
        return inner.length() > MAX_SHOWN ? inner.substring(0, MAX_SHOWN) + "..." : inner;
    }

    /** Adds this scope's headers, one per bound; none for {@link #ALL}. */
    void putHeaders(Map<String, String> headers) {
        if (from != null) {
            headers.put(EventHeaders.SCOPE_FROM, encode(from));
        }
        if (to != null) {
            headers.put(EventHeaders.SCOPE_TO, encode(to));
        }
    }

    static String encode(BsonValue bound) {
        return new BsonDocument(WRAP, bound).toJson(CANONICAL);
    }

    /**
     * Reads the scope headers of a marker; {@link #ALL} when it has none (a source from before scopes).
     *
     * @param marker the marker's wire name, for messages
     * @throws MalformedRecordException when a scope header is not a {@code {"v": <id>}} document
     */
    static IdScope fromHeaders(Function<String, Object> header, String marker) {
        BsonValue from = bound(header, EventHeaders.SCOPE_FROM, marker);
        BsonValue to = bound(header, EventHeaders.SCOPE_TO, marker);
        return from == null && to == null ? ALL : new IdScope(from, to);
    }

    private static BsonValue bound(Function<String, Object> header, String key, String marker) {
        Object raw = header.apply(key);
        if (raw == null) {
            return null;
        }
        String json = HeaderValues.text(raw);
        String problem;
        try {
            BsonDocument wrapper = BsonDocument.parse(json);
            if (wrapper.size() == 1 && wrapper.containsKey(WRAP)) {
                return wrapper.get(WRAP);
            }
            problem = "it has the fields " + wrapper.keySet();
        } catch (JsonParseException | BsonInvalidOperationException | IllegalArgumentException | java.time.DateTimeException e) {
            problem = e.getMessage();
        }
        throw new MalformedRecordException("header " + key + " of a " + marker + " marker must be canonical Extended JSON of a "
                + "document with the single field \"v\" holding the bound _id, e.g. {\"v\": {\"$oid\": \"...\"}}; got '"
                + cut(json) + "' (" + problem + ")");
    }

    private static String cut(String s) {
        return s.length() > MAX_QUOTED ? s.substring(0, MAX_QUOTED) + "..." : s;
    }
}
