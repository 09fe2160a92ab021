package dev.tideline.verify.report;

import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * Builds one line of the report: a flat JSON object whose ids are canonical Extended JSON (lossless:
 * an int32 id stays {@code {"$numberInt": "7"}}, an ObjectId {@code {"$oid": ...}}), while counts and
 * names stay plain JSON for people and for tools like {@code jq}.
 */
final class JsonLine {
    private static final JsonWriterSettings CANONICAL = JsonWriterSettings.builder().outputMode(JsonMode.EXTENDED).build();
    private static final String WRAPPER_PREFIX = "{\"v\": ";

    private final StringBuilder s = new StringBuilder("{");

    static JsonLine of(String type) {
        return new JsonLine().text("type", type);
    }

    JsonLine text(String name, String value) {
        name(name);
        if (value == null) {
            s.append("null");
        } else {
            quote(value);
        }
        return this;
    }

    JsonLine number(String name, long value) {
        name(name).append(value);
        return this;
    }

    JsonLine decimal(String name, double value) {
        name(name).append(Double.isFinite(value) ? String.format(java.util.Locale.ROOT, "%.1f", value) : "null");
        return this;
    }

    JsonLine bool(String name, boolean value) {
        name(name).append(value);
        return this;
    }

    JsonLine texts(String name, Iterable<String> values) {
        name(name).append('[');
        boolean first = true;
        for (String v : values) {
            if (!first) {
                s.append(',');
            }
            first = false;
            quote(v);
        }
        s.append(']');
        return this;
    }

    /** A BSON value (an id, a range bound) in canonical Extended JSON; null as JSON null. */
    JsonLine value(String name, BsonValue value) {
        name(name).append(value == null ? "null" : canonical(value));
        return this;
    }

    String end() {
        return s.append('}').toString();
    }

    static String canonical(BsonValue value) {
        String wrapped = new BsonDocument("v", value).toJson(CANONICAL);
        // {"v": <value>}: the writer's own rendering of the value, without the wrapper
        return wrapped.substring(WRAPPER_PREFIX.length(), wrapped.length() - 1);
    }

    private StringBuilder name(String name) {
        if (s.length() > 1) {
            s.append(',');
        }
        quote(name);
        return s.append(':');
    }

    private void quote(String v) {
        s.append('"');
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            switch (c) {
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                case '\n' -> s.append("\\n");
                case '\r' -> s.append("\\r");
                case '\t' -> s.append("\\t");
                default -> {
                    if (c < 0x20) {
                        s.append(String.format("\\u%04x", (int) c));
                    } else {
                        s.append(c);
                    }
                }
            }
        }
        s.append('"');
    }
}
