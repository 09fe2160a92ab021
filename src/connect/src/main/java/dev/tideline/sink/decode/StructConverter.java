package dev.tideline.sink.decode;

import dev.tideline.event.MalformedRecordException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * A Connect {@link Struct} as a BSON document, field order kept. Types map to their nearest BSON
 * type: INT8/16/32 → int32, INT64 → int64, FLOAT32/64 → double, BYTES → binary (generic subtype),
 * MAP → embedded document (keys as strings), the logical types Decimal → decimal128 and
 * Date/Time/Timestamp → date. A null optional field stays an explicit null, as the record says.
 * Strings stay strings (a 24-hex-digit string is NOT turned into an ObjectId: the sink does not guess).
 */
public final class StructConverter {
    private StructConverter() {
    }

    public static BsonDocument toDocument(Struct struct) {
        BsonDocument doc = new BsonDocument();
        for (Field f : struct.schema().fields()) {
            doc.append(f.name(), toBson(f.schema(), struct.get(f), f.name()));
        }
        return doc;
    }

    static BsonValue toBson(Schema schema, Object value, String path) {
        if (value == null) {
            return BsonNull.VALUE;
        }
        String logical = schema.name();
        if (Decimal.LOGICAL_NAME.equals(logical)) {
            return new BsonDecimal128(new Decimal128((BigDecimal) value));
        }
        if (Timestamp.LOGICAL_NAME.equals(logical) || org.apache.kafka.connect.data.Date.LOGICAL_NAME.equals(logical)
                || Time.LOGICAL_NAME.equals(logical)) {
            return new BsonDateTime(((Date) value).getTime());
        }
        switch (schema.type()) {
            case INT8:
            case INT16:
            case INT32:
                return new BsonInt32(((Number) value).intValue());
            case INT64:
                return new BsonInt64(((Number) value).longValue());
            case FLOAT32:
            case FLOAT64:
                return new BsonDouble(((Number) value).doubleValue());
            case BOOLEAN:
                return BsonBoolean.valueOf((Boolean) value);
            case STRING:
                return new BsonString((String) value);
            case BYTES:
                return new BsonBinary(bytes(value));
            case ARRAY: {
                BsonArray array = new BsonArray();
                int i = 0;
                for (Object item : (List<?>) value) {
                    array.add(toBson(schema.valueSchema(), item, path + "." + i++));
                }
                return array;
            }
            case MAP: {
                BsonDocument doc = new BsonDocument();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
                    if (!(e.getKey() instanceof String key)) {
                        throw new MalformedRecordException("map field '" + path + "' has a non-string key ("
                                + schema.keySchema().type() + "): a MongoDB document needs string field names");
                    }
                    doc.append(key, toBson(schema.valueSchema(), e.getValue(), path + "." + key));
                }
                return doc;
            }
            case STRUCT:
                return toDocument((Struct) value);
            default:
                throw new MalformedRecordException("field '" + path + "' has Connect type " + schema.type()
                        + ", which has no BSON equivalent");
        }
    }

    private static byte[] bytes(Object value) {
        if (value instanceof ByteBuffer buffer) {
            byte[] b = new byte[buffer.remaining()];
            buffer.duplicate().get(b);
            return b;
        }
        return (byte[]) value;
    }
}
