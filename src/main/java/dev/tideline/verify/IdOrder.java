package dev.tideline.verify;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * MongoDB's sort order of {@code _id} values, so two cursors sorted by the server can be walked side by
 * side (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/): type brackets first
 * (MinKey, null, numbers, strings, objects, arrays, binary, ObjectId, booleans, dates, timestamps,
 * regexes, MaxKey), then within a bracket numbers by value across int32/int64/double/decimal (NaN
 * lowest), strings by UTF-8 bytes (the simple collation), objects element by element (value type,
 * then field name, then value; the shorter first), binaries by length, subtype, then bytes.
 *
 * <p>Two ids comparing 0 are the same key for MongoDB (a unique index holds only one of {@code 1} and
 * {@code 1.0}) even when their types differ: the document comparison then tells them apart. Where this
 * order and the server's could ever disagree (exotic ids), the walk reports an id as missing on one
 * side and extra on the other instead of pairing them, and the re-check by {@code _id} settles it: a
 * disagreement costs a re-read, never a missed difference.
 */
public final class IdOrder {
    public static final Comparator<BsonValue> COMPARATOR = IdOrder::compare;

    private IdOrder() {
    }

    public static int compare(BsonValue a, BsonValue b) {
        int byBracket = Integer.compare(bracket(a.getBsonType()), bracket(b.getBsonType()));
        if (byBracket != 0) {
            return byBracket;
        }
        switch (a.getBsonType()) {
            case MIN_KEY, MAX_KEY, NULL, UNDEFINED:
                return 0;
            case INT32, INT64, DOUBLE, DECIMAL128:
                return compareNumbers(a, b);
            case STRING, SYMBOL:
                return Arrays.compareUnsigned(utf8(a), utf8(b));
            case DOCUMENT:
                return compareDocuments(a.asDocument(), b.asDocument());
            case ARRAY:
                return compareArrays(a.asArray(), b.asArray());
            case BINARY: {
                byte[] x = a.asBinary().getData();
                byte[] y = b.asBinary().getData();
                int c = Integer.compare(x.length, y.length);
                if (c == 0) {
                    c = Integer.compare(a.asBinary().getType() & 0xff, b.asBinary().getType() & 0xff);
                }
                return c != 0 ? c : Arrays.compareUnsigned(x, y);
            }
            case OBJECT_ID:
                return a.asObjectId().getValue().compareTo(b.asObjectId().getValue()); // bytes, unsigned
            case BOOLEAN:
                return Boolean.compare(a.asBoolean().getValue(), b.asBoolean().getValue());
            case DATE_TIME:
                return Long.compare(a.asDateTime().getValue(), b.asDateTime().getValue());
            case TIMESTAMP:
                return Long.compareUnsigned(a.asTimestamp().getValue(), b.asTimestamp().getValue());
            case REGULAR_EXPRESSION: {
                int c = a.asRegularExpression().getPattern().compareTo(b.asRegularExpression().getPattern());
                return c != 0 ? c : a.asRegularExpression().getOptions().compareTo(b.asRegularExpression().getOptions());
            }
            default:
                return a.toString().compareTo(b.toString());
        }
    }

    /** The type bracket's rank in MongoDB's comparison order; also the order of {@link IdRanges}' brackets. */
    static int bracket(BsonType type) {
        return switch (type) {
            case MIN_KEY -> 0;
            case NULL, UNDEFINED -> 1;
            case INT32, INT64, DOUBLE, DECIMAL128 -> 2;
            case STRING, SYMBOL -> 3;
            case DOCUMENT -> 4;
            case ARRAY -> 5;
            case BINARY -> 6;
            case OBJECT_ID -> 7;
            case BOOLEAN -> 8;
            case DATE_TIME -> 9;
            case TIMESTAMP -> 10;
            case REGULAR_EXPRESSION -> 11;
            case DB_POINTER, JAVASCRIPT, JAVASCRIPT_WITH_SCOPE -> 12;
            case MAX_KEY -> 13;
            default -> 12;
        };
    }

    private static int compareDocuments(BsonDocument a, BsonDocument b) {
        Iterator<Map.Entry<String, BsonValue>> x = a.entrySet().iterator();
        Iterator<Map.Entry<String, BsonValue>> y = b.entrySet().iterator();
        while (x.hasNext() && y.hasNext()) {
            Map.Entry<String, BsonValue> ex = x.next();
            Map.Entry<String, BsonValue> ey = y.next();
            int c = Integer.compare(bracket(ex.getValue().getBsonType()), bracket(ey.getValue().getBsonType()));
            if (c == 0) {
                c = Arrays.compareUnsigned(ex.getKey().getBytes(StandardCharsets.UTF_8), ey.getKey().getBytes(StandardCharsets.UTF_8));
            }
            if (c == 0) {
                c = compare(ex.getValue(), ey.getValue());
            }
            if (c != 0) {
                return c;
            }
        }
        return Boolean.compare(x.hasNext(), y.hasNext());
    }

    private static int compareArrays(BsonArray a, BsonArray b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = Integer.compare(bracket(a.get(i).getBsonType()), bracket(b.get(i).getBsonType()));
            if (c == 0) {
                c = compare(a.get(i), b.get(i));
            }
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    private static byte[] utf8(BsonValue v) {
        return (v.isString() ? v.asString().getValue() : v.asSymbol().getSymbol()).getBytes(StandardCharsets.UTF_8);
    }

    private static int compareNumbers(BsonValue a, BsonValue b) {
        boolean aNaN = isNaN(a);
        boolean bNaN = isNaN(b);
        if (aNaN || bNaN) {
            return Boolean.compare(!aNaN, !bNaN); // NaN sorts below every number, and equals NaN
        }
        if (isIntegral(a) && isIntegral(b)) {
            return Long.compare(a.asNumber().longValue(), b.asNumber().longValue());
        }
        return decimal(a).compareTo(decimal(b));
    }

    private static boolean isIntegral(BsonValue v) {
        return v.getBsonType() == BsonType.INT32 || v.getBsonType() == BsonType.INT64;
    }

    private static boolean isNaN(BsonValue v) {
        return v.getBsonType() == BsonType.DOUBLE && Double.isNaN(v.asDouble().getValue())
                || v.getBsonType() == BsonType.DECIMAL128 && v.asDecimal128().getValue().isNaN();
    }

    /** Infinities clamp beyond every finite double; a finite value compares exactly. */
    private static BigDecimal decimal(BsonValue v) {
        BigDecimal beyond = new BigDecimal(Double.MAX_VALUE).multiply(BigDecimal.TEN);
        switch (v.getBsonType()) {
            case DECIMAL128: {
                Decimal128 d = v.asDecimal128().getValue();
                if (d.isInfinite()) {
                    return d.isNegative() ? beyond.negate() : beyond;
                }
                try {
                    return d.bigDecimalValue();
                } catch (ArithmeticException negativeZero) {
                    return BigDecimal.ZERO; // BigDecimal has no -0: it equals 0, as on the server
                }
            }
            case DOUBLE: {
                double d = v.asDouble().getValue();
                if (Double.isInfinite(d)) {
                    return d > 0 ? beyond : beyond.negate();
                }
                return new BigDecimal(d);
            }
            default:
                return BigDecimal.valueOf(v.asNumber().longValue());
        }
    }
}
