package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.BinData;
import de.bwaldvogel.mongo.bson.BsonJavaScript;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.BsonTimestamp;
import de.bwaldvogel.mongo.bson.Decimal128;
import de.bwaldvogel.mongo.bson.LegacyUUID;
import de.bwaldvogel.mongo.bson.ObjectId;
import de.bwaldvogel.mongo.wire.BsonConstants;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;

/**
 * The size in bytes of a document as the stand-in writes it on the wire (its BsonEncoder's layout,
 * which is BSON's: https://bsonspec.org/spec.html), computed without encoding it. Used where MongoDB
 * measures an event against its 16 MiB limit and a batch against its reply size.
 */
public final class BsonSize {
    private BsonSize() {
    }

    /** The BSON size of {@code document} (a stand-in {@code Document} or any map of BSON values). */
    public static long of(Map<String, ?> document) {
        long size = 4 + 1; // length, terminating byte
        for (Map.Entry<String, ?> field : document.entrySet()) {
            size += element(field.getKey(), field.getValue());
        }
        return size;
    }

    /** As {@link #of} for a document, 0 for null; for sizing oplog entries. */
    public static long approximate(Map<String, ?> document) {
        return document == null ? 0 : of(document);
    }

    /**
     * A bound the BSON size never exceeds, computed without reading strings character by character
     * (a UTF-16 char is at most 3 UTF-8 bytes): where the exact size matters only near a limit.
     */
    public static long atMost(Map<String, ?> document) {
        long size = 4 + 1;
        for (Map.Entry<String, ?> field : document.entrySet()) {
            size += 1 + 3L * field.getKey().length() + 1 + valueAtMost(field.getValue());
        }
        return size;
    }

    private static long valueAtMost(Object value) {
        if (value instanceof Map<?, ?> map) {
            @SuppressWarnings("unchecked")
            Map<String, ?> document = (Map<String, ?>) map;
            return atMost(document);
        }
        if (value instanceof Collection<?> array) {
            long size = 4 + 1;
            int i = 0;
            for (Object item : array) {
                size += 1 + Integer.toString(i++).length() + 1 + valueAtMost(item);
            }
            return size;
        }
        if (value instanceof String s) {
            return 4 + 3L * s.length() + 1;
        }
        if (value instanceof BsonRegularExpression r) {
            return 3L * r.getPattern().length() + 1 + 3L * r.getOptions().length() + 1;
        }
        if (value instanceof BsonJavaScript js) {
            return 4 + 3L * js.getCode().length() + 1;
        }
        return value(value);
    }

    /** One element: type byte, name as a C string, value. */
    static long element(String name, Object value) {
        return 1 + cString(name) + value(value);
    }

    private static long value(Object value) {
        if (value == null) {
            return 0;
        }
        if (value instanceof Map<?, ?> map) {
            @SuppressWarnings("unchecked")
            Map<String, ?> document = (Map<String, ?>) map;
            return of(document);
        }
        if (value instanceof Collection<?> array) {
            long size = 4 + 1;
            int i = 0;
            for (Object item : array) {
                size += element(Integer.toString(i++), item);
            }
            return size;
        }
        if (value instanceof String s) {
            return 4 + utf8Length(s) + 1;
        }
        if (value instanceof Integer) {
            return 4;
        }
        if (value instanceof Long || value instanceof Double || value instanceof Instant || value instanceof BsonTimestamp) {
            return 8;
        }
        if (value instanceof Decimal128) {
            return 16;
        }
        if (value instanceof Boolean) {
            return 1;
        }
        if (value instanceof ObjectId) {
            return 12;
        }
        if (value instanceof BinData b) {
            // a deprecated type held as its bytes on the wire (LosslessValues) is those bytes alone
            return LosslessValues.of(b).type() == BsonConstants.TYPE_DATA ? 4 + 1 + b.getData().length : b.getData().length;
        }
        if (value instanceof UUID || value instanceof LegacyUUID) {
            return 4 + 1 + 16;
        }
        if (value instanceof BsonRegularExpression r) {
            return cString(r.getPattern()) + cString(r.getOptions());
        }
        if (value instanceof BsonJavaScript js) {
            return 4 + utf8Length(js.getCode()) + 1;
        }
        return 0; // MinKey, MaxKey, undefined
    }

    private static long cString(String s) {
        return utf8Length(s) + 1;
    }

    /** The UTF-8 length of {@code s}, counted without encoding it. */
    static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
