package dev.tideline.mongo;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * MongoDB's order of BSON values, the one place the project keeps it: resumable copies, verify's
 * side-by-side walk and the date scan all compare values as the server sorts them
 * (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/).
 *
 * <p>Type brackets first, as the server canonicalises types (canonicalizeBSONType in MongoDB's
 * src/mongo/bson/bsontypes.h): MinKey, undefined, null, numbers, strings and symbols, objects, arrays,
 * binary, ObjectId, booleans, dates, timestamps, regular expressions, DBPointer, JavaScript, JavaScript
 * with scope, MaxKey. Within a bracket: numbers by value across int32/int64/double/decimal (NaN lowest,
 * infinities beyond every finite value), strings and symbols by UTF-8 bytes (the simple collation),
 * objects element by element (value bracket, then field name, then value; the shorter first), arrays
 * element by element, binaries by length, subtype, then bytes, timestamps unsigned, regexes by pattern
 * then flags.
 *
 * <p>Two values comparing 0 are the same key for MongoDB (a unique index holds only one of {@code 1} and
 * {@code 1.0}) even when their types differ.
 */
public final class BsonOrder {
    public static final Comparator<BsonValue> COMPARATOR = BsonOrder::compare;

    /**
     * The {@code $type} aliases of each bracket, in bracket order
     * (https://www.mongodb.com/docs/manual/reference/operator/query/type/#available-types): a query's
     * {@code $gt}/{@code $lt} only match values of the operand's own bracket, so a range that spans
     * brackets adds the ones in between by type.
     */
    private static final List<List<String>> TYPE_ALIASES = List.of(
            List.of("minKey"), List.of("undefined"), List.of("null"), List.of("int", "long", "double", "decimal"),
            List.of("string", "symbol"), List.of("object"), List.of("array"), List.of("binData"), List.of("objectId"),
            List.of("bool"), List.of("date"), List.of("timestamp"), List.of("regex"), List.of("dbPointer"),
            List.of("javascript"), List.of("javascriptWithScope"), List.of("maxKey"));

    /** How many brackets there are; bracket numbers run from 0 to this, exclusive. */
    public static final int BRACKETS = TYPE_ALIASES.size();

    private BsonOrder() {
    }

    /** The {@code $type} aliases of bracket {@code b}. */
    public static List<String> typeAliases(int b) {
        return TYPE_ALIASES.get(b);
    }

    /** The bracket of {@code type}: its rank in the comparison order. */
    public static int bracket(BsonType type) {
        return switch (type) {
            case MIN_KEY -> 0;
            case UNDEFINED -> 1;
            case NULL -> 2;
            case INT32, INT64, DOUBLE, DECIMAL128 -> 3;
            case STRING, SYMBOL -> 4;
            case DOCUMENT -> 5;
            case ARRAY -> 6;
            case BINARY -> 7;
            case OBJECT_ID -> 8;
            case BOOLEAN -> 9;
            case DATE_TIME -> 10;
            case TIMESTAMP -> 11;
            case REGULAR_EXPRESSION -> 12;
            case DB_POINTER -> 13;
            case JAVASCRIPT -> 14;
            case JAVASCRIPT_WITH_SCOPE -> 15;
            case MAX_KEY -> 16;
            default -> throw new IllegalArgumentException("not a value type: " + type);
        };
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
                return Arrays.compareUnsigned(utf8(text(a)), utf8(text(b)));
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
                int c = Arrays.compareUnsigned(utf8(a.asRegularExpression().getPattern()), utf8(b.asRegularExpression().getPattern()));
                return c != 0 ? c : Arrays.compareUnsigned(utf8(a.asRegularExpression().getOptions()),
                        utf8(b.asRegularExpression().getOptions()));
            }
            case DB_POINTER: {
                int c = Arrays.compareUnsigned(utf8(a.asDBPointer().getNamespace()), utf8(b.asDBPointer().getNamespace()));
                return c != 0 ? c : a.asDBPointer().getId().compareTo(b.asDBPointer().getId());
            }
            case JAVASCRIPT:
                return Arrays.compareUnsigned(utf8(a.asJavaScript().getCode()), utf8(b.asJavaScript().getCode()));
            case JAVASCRIPT_WITH_SCOPE: {
                int c = Arrays.compareUnsigned(utf8(a.asJavaScriptWithScope().getCode()), utf8(b.asJavaScriptWithScope().getCode()));
                return c != 0 ? c : compareDocuments(a.asJavaScriptWithScope().getScope(), b.asJavaScriptWithScope().getScope());
            }
            default:
                throw new IllegalArgumentException("not a value type: " + a.getBsonType());
        }
    }

    private static int compareDocuments(BsonDocument a, BsonDocument b) {
        Iterator<Map.Entry<String, BsonValue>> x = a.entrySet().iterator();
        Iterator<Map.Entry<String, BsonValue>> y = b.entrySet().iterator();
        while (x.hasNext() && y.hasNext()) {
            Map.Entry<String, BsonValue> ex = x.next();
            Map.Entry<String, BsonValue> ey = y.next();
            int c = Integer.compare(bracket(ex.getValue().getBsonType()), bracket(ey.getValue().getBsonType()));
            if (c == 0) {
                c = Arrays.compareUnsigned(utf8(ex.getKey()), utf8(ey.getKey()));
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
            int c = compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    private static String text(BsonValue v) {
        return v.isString() ? v.asString().getValue() : v.asSymbol().getSymbol();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
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

    /** Beyond every finite decimal128 (at most 10^6145): where the infinities sort. */
    private static final BigDecimal BEYOND = BigDecimal.ONE.scaleByPowerOfTen(6200);

    /** Infinities clamp beyond every finite value; a finite value compares exactly. */
    private static BigDecimal decimal(BsonValue v) {
        BigDecimal beyond = BEYOND;
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
