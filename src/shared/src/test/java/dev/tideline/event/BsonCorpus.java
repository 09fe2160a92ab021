package dev.tideline.event;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
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
import org.bson.UuidRepresentation;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;

/** A document holding every BSON type, with the edge values that break naive conversions. */
public final class BsonCorpus {
    public static final ObjectId OID = new ObjectId("65f1a2b3c4d5e6f708192a3b");
    public static final UUID UUID_VALUE = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");

    private BsonCorpus() {
    }

    public static BsonDocument document() {
        BsonDocument d = new BsonDocument();
        d.append("_id", new BsonObjectId(OID));
        d.append("objectId", new BsonObjectId(new ObjectId("000000000000000000000001")));
        d.append("decimal", new BsonDecimal128(Decimal128.parse("1234.5678901234567890123456789012")));
        d.append("decimalNaN", new BsonDecimal128(Decimal128.NaN));
        d.append("decimalNegZero", new BsonDecimal128(Decimal128.NEGATIVE_ZERO));
        d.append("decimalNegInf", new BsonDecimal128(Decimal128.NEGATIVE_INFINITY));
        d.append("decimalExp", new BsonDecimal128(Decimal128.parse("1.000E-6143")));
        d.append("date", new BsonDateTime(1_714_521_600_123L));
        d.append("dateBefore1970", new BsonDateTime(-1_234_567_890_123L));
        d.append("dateAfter9999", new BsonDateTime(253_402_300_800_000L + 86_400_000L * 400));
        d.append("dateEpoch", new BsonDateTime(0L));
        d.append("timestamp", new BsonTimestamp((int) 0x8000_0001L, (int) 0x8000_0002L));
        d.append("timestampMax", new BsonTimestamp(-1, -1));
        d.append("int32", new BsonInt32(42));
        d.append("int32Min", new BsonInt32(Integer.MIN_VALUE));
        d.append("int64Small", new BsonInt64(5L));
        d.append("int64Zero", new BsonInt64(0L));
        d.append("int64Negative", new BsonInt64(-7L));
        d.append("int64Max", new BsonInt64(Long.MAX_VALUE));
        d.append("int64Min", new BsonInt64(Long.MIN_VALUE));
        d.append("double", new BsonDouble(3.25));
        d.append("doubleOne", new BsonDouble(1.0));
        d.append("doubleNegZero", new BsonDouble(-0.0));
        d.append("doubleNaN", new BsonDouble(Double.NaN));
        d.append("doubleInf", new BsonDouble(Double.POSITIVE_INFINITY));
        d.append("doubleNegInf", new BsonDouble(Double.NEGATIVE_INFINITY));
        d.append("doubleHuge", new BsonDouble(1.7976931348623157E308));
        d.append("doubleTiny", new BsonDouble(4.9E-324));
        d.append("doubleThird", new BsonDouble(1.0 / 3));
        d.append("binary", new BsonBinary(BsonBinarySubType.BINARY, new byte[] {0, 1, 2, (byte) 0xff}));
        d.append("binaryEmpty", new BsonBinary(new byte[0]));
        d.append("binaryOld", new BsonBinary(BsonBinarySubType.OLD_BINARY, new byte[] {9, 8, 7}));
        d.append("uuidLegacy", new BsonBinary(UUID_VALUE, UuidRepresentation.JAVA_LEGACY));
        d.append("uuidStandard", new BsonBinary(UUID_VALUE, UuidRepresentation.STANDARD));
        d.append("md5", new BsonBinary(BsonBinarySubType.MD5, new byte[16]));
        d.append("userDefined", new BsonBinary((byte) 0x80, "custom".getBytes(StandardCharsets.UTF_8)));
        d.append("regex", new BsonRegularExpression("^a.*[b]$", "imxs"));
        d.append("regexNoOptions", new BsonRegularExpression("x+"));
        d.append("bool", BsonBoolean.TRUE);
        d.append("boolFalse", BsonBoolean.FALSE);
        d.append("null", BsonNull.VALUE);
        d.append("minKey", new BsonMinKey());
        d.append("maxKey", new BsonMaxKey());
        d.append("undefined", new BsonUndefined());
        d.append("symbol", new BsonSymbol("sym"));
        d.append("code", new BsonJavaScript("function () { return 1; }"));
        d.append("codeWithScope", new BsonJavaScriptWithScope("function () { return x + y; }",
                new BsonDocument("x", new BsonInt64(5L)).append("y", new BsonDouble(1.0)).append("z", new BsonInt32(3))));
        d.append("dbPointer", new BsonDbPointer("db.coll", new ObjectId("5f0000000000000000000abc")));
        d.append("unicode", new BsonString("héllo wörld ✓ 𝄞 日本語 \u0000 nul"));
        d.append("dollarValue", new BsonString("$price"));
        d.append("dollarNumberLongValue", new BsonString("$numberLong"));
        d.append("emptyString", new BsonString(""));
        d.append("ünïcödé-key", new BsonString("v"));
        d.append("dollarKeyDoc", new BsonDocument("$foo", new BsonString("bar")).append("plain", new BsonInt32(1)));
        d.append("dollarKeySingle", new BsonDocument("$foo", new BsonString("bar")));
        d.append("emptyDoc", new BsonDocument());
        d.append("emptyArray", new BsonArray());
        d.append("nestedArrays", new BsonArray(List.of(
                new BsonArray(List.of(new BsonInt32(1), new BsonInt64(1L), new BsonDouble(1.0))),
                new BsonArray(List.of(new BsonArray(List.of(new BsonString("deep"), BsonNull.VALUE)), new BsonArray())),
                new BsonDocument("inArray", new BsonArray(List.of(new BsonTimestamp(1, 2), new BsonMinKey()))))));
        d.append("nestedDoc", new BsonDocument("level1", new BsonDocument("level2", new BsonDocument("level3",
                new BsonArray(List.of(new BsonDecimal128(Decimal128.parse("-0.00")), new BsonInt64(5L), new BsonDouble(-0.0)))))
                .append("z", new BsonInt32(1)).append("a", new BsonInt32(2))));
        return d;
    }

    public static ChangeEvent event(BsonDocument doc) {
        return new ChangeEvent(Op.INSERT, new Namespace("shop", "orders.v2"), doc.get("_id"), doc,
                new BsonTimestamp((int) 0x9000_0000L, 7), 1_714_521_600_456L, "cluster-a");
    }

    /** The value with every document's fields sorted by name (recursively): order-insensitive and type-exact. */
    public static BsonValue sorted(BsonValue v) {
        switch (v.getBsonType()) {
            case DOCUMENT: {
                TreeMap<String, BsonValue> fields = new TreeMap<>();
                for (Map.Entry<String, BsonValue> e : v.asDocument().entrySet()) {
                    fields.put(e.getKey(), sorted(e.getValue()));
                }
                BsonDocument out = new BsonDocument();
                fields.forEach(out::append);
                return out;
            }
            case ARRAY: {
                List<BsonValue> items = new ArrayList<>();
                for (BsonValue item : v.asArray()) {
                    items.add(sorted(item));
                }
                return new BsonArray(items);
            }
            case JAVASCRIPT_WITH_SCOPE:
                return new BsonJavaScriptWithScope(v.asJavaScriptWithScope().getCode(),
                        sorted(v.asJavaScriptWithScope().getScope()).asDocument());
            default:
                return v;
        }
    }

    /** Bytes of the document with sorted fields: equal iff same fields, same types, same values (bitwise). */
    public static byte[] canonicalBytes(BsonDocument d) {
        return EnvelopeCodec.toBytes(sorted(d).asDocument());
    }
}
