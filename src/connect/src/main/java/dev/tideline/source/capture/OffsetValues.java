package dev.tideline.source.capture;

import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonParseException;
import org.bson.json.JsonWriterSettings;

/**
 * How {@link SourceOffset} writes a BSON value (an id, a key) into an offset map and reads it back:
 * canonical Extended JSON wrapped as {@code {"v": ...}}, which is lossless for every BSON type; and how
 * it reads a true/false flag.
 */
final class OffsetValues {
    static final JsonWriterSettings CANONICAL = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();
    private static final String WRAP = "v";

    private OffsetValues() {
    }

    static String encode(BsonValue value) {
        return new BsonDocument(WRAP, value).toJson(CANONICAL);
    }

    /** The true/false value under {@code key}; false when absent. @throws InvalidOffsetException naming the key otherwise */
    static boolean flag(Map<String, ?> m, String key) {
        Object raw = m.get(key);
        if (raw != null && !(raw instanceof Boolean)) {
            throw new InvalidOffsetException("offset key '" + key + "' must be true or false, got " + raw);
        }
        return Boolean.TRUE.equals(raw);
    }

    /** The value under {@code key}; null when absent. @throws InvalidOffsetException naming the key when malformed */
    static BsonValue optional(Map<String, ?> m, String key) {
        Object raw = m.get(key);
        if (raw == null) {
            return null;
        }
        if (!(raw instanceof String s)) {
            throw new InvalidOffsetException("offset key '" + key + "' must be an Extended JSON text like {\"v\": ...}, got " + raw);
        }
        try {
            BsonValue value = BsonDocument.parse(s).get(WRAP);
            if (value == null) {
                throw new InvalidOffsetException("offset key '" + key + "' must be an Extended JSON text like {\"v\": ...}, got " + s);
            }
            return value;
        } catch (JsonParseException | org.bson.BsonInvalidOperationException | IllegalArgumentException
                 | java.time.DateTimeException e) {
            throw new InvalidOffsetException("offset key '" + key + "' is not Extended JSON: " + e.getMessage());
        }
    }
}
