package dev.tideline.event;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDbPointer;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

/**
 * BSON values as plain Java structures (maps, lists, strings, numbers, booleans) shaped as relaxed
 * Extended JSON v2, so they pass through Kafka Connect's schemaless {@code JsonConverter} and SMTs.
 *
 * <p>One deliberate difference from MongoDB's relaxed mode: an int64 is written as
 * {@code {"$numberLong": "n"}}, as canonical mode does. JSON has a single number type and the schemaless
 * JsonConverter reads every integer back as a Java long, so without the wrapper an int64 and an int32
 * could not be told apart; with it, a bare integer is an int32 and the type survives the trip.
 *
 * <p>Field order survives this class; note that JsonConverter's schemaless maps do not keep it, which
 * is why the {@code bson} value format exists for byte-exact replication.
 */
public final class ExtendedJson {
    private static final java.time.format.DateTimeFormatter ISO_MILLIS =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(java.time.ZoneOffset.UTC);

    private ExtendedJson() {
    }

    /** A document as an ordered map. */
    public static Map<String, Object> toMap(BsonDocument document) {
        Map<String, Object> map = new LinkedHashMap<>(Math.max(4, document.size() * 2));
        for (Map.Entry<String, BsonValue> e : document.entrySet()) {
            map.put(e.getKey(), toJava(e.getValue()));
        }
        return map;
    }

    /** Any BSON value as its Extended JSON shaped Java value. */
    public static Object toJava(BsonValue value) {
        switch (value.getBsonType()) {
            case DOCUMENT:
                return toMap(value.asDocument());
            case ARRAY: {
                BsonArray array = value.asArray();
                List<Object> list = new ArrayList<>(array.size());
                for (BsonValue v : array) {
                    list.add(toJava(v));
                }
                return list;
            }
            case STRING:
                return value.asString().getValue();
            case INT32:
                return value.asInt32().getValue();
            case INT64:
                return Map.of("$numberLong", Long.toString(value.asInt64().getValue()));
            case DOUBLE: {
                double d = value.asDouble().getValue();
                if (Double.isNaN(d)) {
                    return Map.of("$numberDouble", "NaN");
                }
                if (Double.isInfinite(d)) {
                    return Map.of("$numberDouble", d > 0 ? "Infinity" : "-Infinity");
                }
                if (d == 0.0 && Double.doubleToRawLongBits(d) != 0L) {
                    // JsonConverter reads floats as BigDecimal, which has no negative zero: keep the sign in a wrapper
                    return Map.of("$numberDouble", "-0.0");
                }
                return d;
            }
            case BOOLEAN:
                return value.asBoolean().getValue();
            case NULL:
                return null;
            case OBJECT_ID:
                return Map.of("$oid", value.asObjectId().getValue().toHexString());
            case DATE_TIME: {
                long millis = value.asDateTime().getValue();
                // relaxed mode: ISO-8601 for years 1970..9999, canonical otherwise
                if (millis >= 0 && millis <= 253402300799999L) {
                    return Map.of("$date", ISO_MILLIS.format(Instant.ofEpochMilli(millis)));
                }
                return Map.of("$date", Map.of("$numberLong", Long.toString(millis)));
            }
            case TIMESTAMP: {
                BsonTimestamp ts = value.asTimestamp();
                return Map.of("$timestamp", ordered("t", Integer.toUnsignedLong(ts.getTime()), "i", Integer.toUnsignedLong(ts.getInc())));
            }
            case DECIMAL128:
                return Map.of("$numberDecimal", value.asDecimal128().getValue().toString());
            case BINARY: {
                BsonBinary bin = value.asBinary();
                return Map.of("$binary", ordered("base64", Base64.getEncoder().encodeToString(bin.getData()),
                        "subType", HexFormat.of().toHexDigits(bin.getType())));
            }
            case REGULAR_EXPRESSION: {
                BsonRegularExpression re = value.asRegularExpression();
                return Map.of("$regularExpression", ordered("pattern", re.getPattern(), "options", re.getOptions()));
            }
            case MIN_KEY:
                return Map.of("$minKey", 1);
            case MAX_KEY:
                return Map.of("$maxKey", 1);
            case UNDEFINED:
                return Map.of("$undefined", true);
            case SYMBOL:
                return Map.of("$symbol", value.asSymbol().getSymbol());
            case JAVASCRIPT:
                return Map.of("$code", value.asJavaScript().getCode());
            case JAVASCRIPT_WITH_SCOPE: {
                BsonJavaScriptWithScope js = value.asJavaScriptWithScope();
                return ordered("$code", js.getCode(), "$scope", toMap(js.getScope()));
            }
            case DB_POINTER: {
                BsonDbPointer p = value.asDBPointer();
                return Map.of("$dbPointer", ordered("$ref", p.getNamespace(), "$id", Map.of("$oid", p.getId().toHexString())));
            }
            default:
                throw new MalformedRecordException("BSON type " + value.getBsonType() + " has no Extended JSON form");
        }
    }

    /** The reverse of {@link #toMap}: also accepts what JsonConverter hands back (longs for every integer). */
    public static BsonDocument toDocument(Map<?, ?> map) {
        BsonDocument doc = new BsonDocument();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getKey() instanceof String key)) {
                throw new MalformedRecordException("document field names must be strings, got " + typeName(e.getKey()));
            }
            doc.append(key, toBson(e.getValue()));
        }
        return doc;
    }

    /** The reverse of {@link #toJava}. */
    public static BsonValue toBson(Object value) {
        if (value == null) {
            return BsonNull.VALUE;
        }
        if (value instanceof String s) {
            return new BsonString(s);
        }
        if (value instanceof Boolean b) {
            return BsonBoolean.valueOf(b);
        }
        if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
            return new BsonInt32(((Number) value).intValue());
        }
        if (value instanceof Long l) {
            // a bare integer: int32 when it fits (int64 values carry a $numberLong wrapper)
            return (l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) ? new BsonInt32(l.intValue()) : new BsonInt64(l);
        }
        if (value instanceof Double || value instanceof Float) {
            return new BsonDouble(((Number) value).doubleValue());
        }
        if (value instanceof java.math.BigDecimal bd) {
            return new BsonDecimal128(new Decimal128(bd));
        }
        if (value instanceof List<?> list) {
            BsonArray array = new BsonArray(new ArrayList<>(list.size()));
            for (Object o : list) {
                array.add(toBson(o));
            }
            return array;
        }
        if (value instanceof Map<?, ?> map) {
            BsonValue typed = typedValue(map);
            return typed != null ? typed : toDocument(map);
        }
        if (value instanceof byte[] bytes) {
            return new BsonBinary(bytes);
        }
        throw new MalformedRecordException("cannot read a " + typeName(value) + " as a BSON value");
    }

    /** A {@code {"$type": ...}} wrapper as its BSON value, or null when the map is a plain document. */
    private static BsonValue typedValue(Map<?, ?> map) {
        if (map.isEmpty() || map.size() > 2) {
            return null;
        }
        Object firstKey = map.keySet().iterator().next();
        if (!(firstKey instanceof String key) || !key.startsWith("$")) {
            return null;
        }
        try {
            if (map.size() == 2) {
                if (map.containsKey("$code") && map.get("$scope") instanceof Map<?, ?> scope) {
                    return new BsonJavaScriptWithScope(str(map.get("$code")), toDocument(scope));
                }
                return null;
            }
            Object v = map.get(key);
            switch (key) {
                case "$numberLong":
                    return new BsonInt64(Long.parseLong(str(v)));
                case "$numberInt":
                    return new BsonInt32(Integer.parseInt(str(v)));
                case "$numberDouble":
                    return new BsonDouble(Double.parseDouble(str(v)));
                case "$numberDecimal":
                    return new BsonDecimal128(Decimal128.parse(str(v)));
                case "$oid":
                    return new BsonObjectId(new ObjectId(str(v)));
                case "$date":
                    if (v instanceof String iso) {
                        return new BsonDateTime(Instant.parse(iso).toEpochMilli());
                    }
                    if (v instanceof Map<?, ?> m && m.get("$numberLong") != null) {
                        return new BsonDateTime(Long.parseLong(str(m.get("$numberLong"))));
                    }
                    if (v instanceof Number n) {
                        return new BsonDateTime(n.longValue());
                    }
                    throw new MalformedRecordException("$date must be an ISO-8601 string or {$numberLong}, got " + typeName(v));
                case "$timestamp": {
                    Map<?, ?> m = asMap(v, key);
                    return new BsonTimestamp((int) num(m.get("t")), (int) num(m.get("i")));
                }
                case "$binary": {
                    Map<?, ?> m = asMap(v, key);
                    return new BsonBinary((byte) Integer.parseInt(str(m.get("subType")), 16), Base64.getDecoder().decode(str(m.get("base64"))));
                }
                case "$regularExpression": {
                    Map<?, ?> m = asMap(v, key);
                    return new BsonRegularExpression(str(m.get("pattern")), str(m.get("options")));
                }
                case "$minKey":
                    return new BsonMinKey();
                case "$maxKey":
                    return new BsonMaxKey();
                case "$undefined":
                    return new BsonUndefined();
                case "$symbol":
                    return new BsonSymbol(str(v));
                case "$code":
                    return new BsonJavaScript(str(v));
                case "$dbPointer": {
                    Map<?, ?> m = asMap(v, key);
                    Map<?, ?> id = asMap(m.get("$id"), "$dbPointer.$id");
                    return new BsonDbPointer(str(m.get("$ref")), new ObjectId(str(id.get("$oid"))));
                }
                default:
                    return null; // a field that merely starts with '$': a plain document
            }
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            throw new MalformedRecordException("bad Extended JSON value for " + key + ": " + e.getMessage(), e);
        }
    }

    private static Map<String, Object> ordered(String k1, Object v1, String k2, Object v2) {
        Map<String, Object> m = new LinkedHashMap<>(4);
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }

    private static String str(Object o) {
        if (o instanceof String s) {
            return s;
        }
        throw new MalformedRecordException("expected a string in an Extended JSON wrapper, got " + typeName(o));
    }

    private static long num(Object o) {
        if (o instanceof Number n) {
            return n.longValue();
        }
        throw new MalformedRecordException("expected a number in an Extended JSON wrapper, got " + typeName(o));
    }

    private static Map<?, ?> asMap(Object o, String what) {
        if (o instanceof Map<?, ?> m) {
            return m;
        }
        throw new MalformedRecordException(what + " must be an object, got " + typeName(o));
    }

    static String typeName(Object o) {
        return o == null ? "null" : o.getClass().getSimpleName();
    }
}
