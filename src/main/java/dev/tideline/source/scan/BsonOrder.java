package dev.tideline.source.scan;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Comparator;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * MongoDB's sort order of BSON values, for the values a scan compares in memory: scan keys
 * (dates, numbers, strings) and {@code _id}s. Types rank as the server ranks them
 * (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/): MinKey, null,
 * numbers, strings, objects, arrays, binary, ObjectId, booleans, dates, timestamps, regexes, MaxKey.
 *
 * <p>Within a type: numbers by value across int32/int64/double/decimal, strings by code point
 * (the server's default simple collation), ObjectIds by bytes, dates by millis, binaries by length,
 * subtype then bytes. Documents and arrays (rare as ids, never as scan keys) fall back to their JSON
 * text: consistent, but not the server's element-wise order.
 */
final class BsonOrder {
    static final Comparator<BsonValue> COMPARATOR = BsonOrder::compare;

    private BsonOrder() {
    }

    static int compare(BsonValue a, BsonValue b) {
        int byType = Integer.compare(rank(a.getBsonType()), rank(b.getBsonType()));
        if (byType != 0) {
            return byType;
        }
        switch (a.getBsonType()) {
            case MIN_KEY, MAX_KEY, NULL, UNDEFINED:
                return 0;
            case INT32, INT64, DOUBLE, DECIMAL128:
                return compareNumbers(a, b);
            case STRING, SYMBOL:
                return text(a).compareTo(text(b));
            case OBJECT_ID:
                return a.asObjectId().getValue().compareTo(b.asObjectId().getValue());
            case BOOLEAN:
                return Boolean.compare(a.asBoolean().getValue(), b.asBoolean().getValue());
            case DATE_TIME:
                return Long.compare(a.asDateTime().getValue(), b.asDateTime().getValue());
            case TIMESTAMP:
                return a.asTimestamp().compareTo(b.asTimestamp());
            case BINARY: {
                byte[] x = a.asBinary().getData();
                byte[] y = b.asBinary().getData();
                int c = Integer.compare(x.length, y.length);
                if (c == 0) {
                    c = Byte.compare(a.asBinary().getType(), b.asBinary().getType());
                }
                return c != 0 ? c : Arrays.compareUnsigned(x, y);
            }
            default:
                return a.toString().compareTo(b.toString());
        }
    }

    /** True when {@code (value, id)} comes strictly after the cursor in {@code (value, _id)} order. */
    static boolean isAfter(BsonValue value, BsonValue id, ScanCursor cursor) {
        if (cursor == null) {
            return true;
        }
        int c = compare(value, cursor.value());
        if (c != 0) {
            return c > 0;
        }
        return cursor.id() == null || compare(id, cursor.id()) > 0;
    }

    private static String text(BsonValue v) {
        return v.isString() ? v.asString().getValue() : v.asSymbol().getSymbol();
    }

    private static int compareNumbers(BsonValue a, BsonValue b) {
        if (a.getBsonType() != BsonType.DECIMAL128 && b.getBsonType() != BsonType.DECIMAL128
                && a.getBsonType() != BsonType.DOUBLE && b.getBsonType() != BsonType.DOUBLE) {
            return Long.compare(a.asNumber().longValue(), b.asNumber().longValue());
        }
        return decimal(a).compareTo(decimal(b));
    }

    private static BigDecimal decimal(BsonValue v) {
        switch (v.getBsonType()) {
            case DECIMAL128: {
                org.bson.types.Decimal128 d = v.asDecimal128().getValue();
                if (d.isNaN()) {
                    return BigDecimal.valueOf(-Double.MAX_VALUE).subtract(BigDecimal.ONE);
                }
                if (d.isInfinite()) {
                    return BigDecimal.valueOf(d.isNegative() ? -Double.MAX_VALUE : Double.MAX_VALUE);
                }
                return d.bigDecimalValue();
            }
            case DOUBLE: {
                double d = v.asDouble().getValue();
                // NaN sorts below every number on the server; infinities clamp to the extremes.
                if (Double.isNaN(d)) {
                    return BigDecimal.valueOf(-Double.MAX_VALUE).subtract(BigDecimal.ONE);
                }
                if (Double.isInfinite(d)) {
                    return BigDecimal.valueOf(d > 0 ? Double.MAX_VALUE : -Double.MAX_VALUE);
                }
                return new BigDecimal(d);
            }
            default:
                return BigDecimal.valueOf(v.asNumber().longValue());
        }
    }

    private static int rank(BsonType t) {
        switch (t) {
            case MIN_KEY: return 0;
            case NULL, UNDEFINED: return 1;
            case INT32, INT64, DOUBLE, DECIMAL128: return 2;
            case STRING, SYMBOL: return 3;
            case DOCUMENT: return 4;
            case ARRAY: return 5;
            case BINARY: return 6;
            case OBJECT_ID: return 7;
            case BOOLEAN: return 8;
            case DATE_TIME: return 9;
            case TIMESTAMP: return 10;
            case REGULAR_EXPRESSION: return 11;
            case MAX_KEY: return 13;
            default: return 12; // JavaScript, DB pointer: between regex and MaxKey
        }
    }
}
