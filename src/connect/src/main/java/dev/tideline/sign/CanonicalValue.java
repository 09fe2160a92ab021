package dev.tideline.sign;

import dev.tideline.event.RefusedRecordException;
import dev.tideline.event.ValueShape;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * One byte form of a record key or value, the same on both sides of Kafka whichever converter carried it: what a
 * source task handed over (BSON bytes, Extended JSON text, a schemaless map, a Struct) and what a sink task gets
 * back through the matching converter. So the form is of the content, not of the Java types a converter picks:
 * every integral number is one kind (JsonConverter reads an Integer back as a Long), every other number another,
 * written by its decimal value (it reads a Double back as a BigDecimal); map entries are sorted by key (it reads a
 * map back unordered); a Struct is the map of its fields. Pure.
 */
final class CanonicalValue {
    private CanonicalValue() {
    }

    /** @throws RefusedRecordException for a value nested deeper than {@link ValueShape#MAX_DEPTH} or of a type no converter gives */
    static byte[] of(Object value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(value, out, 1);
        return out.toByteArray();
    }

    private static void write(Object v, ByteArrayOutputStream out, int depth) {
        if (depth > ValueShape.MAX_DEPTH) {
            throw new RefusedRecordException("refused: its key or value nests deeper than " + ValueShape.MAX_DEPTH + " levels");
        }
        if (v == null) {
            out.write('N');
        } else if (v instanceof byte[] b) {
            chunk('B', b, out);
        } else if (v instanceof ByteBuffer b) {
            byte[] copy = new byte[b.remaining()];
            b.duplicate().get(copy);
            chunk('B', copy, out);
        } else if (v instanceof String s) {
            chunk('S', s.getBytes(StandardCharsets.UTF_8), out);
        } else if (v instanceof Boolean b) {
            out.write(b ? 'T' : 'F');
        } else if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long || v instanceof BigInteger) {
            chunk('I', v.toString().getBytes(StandardCharsets.US_ASCII), out);
        } else if (v instanceof Float || v instanceof Double || v instanceof BigDecimal) {
            chunk('D', decimal((Number) v).getBytes(StandardCharsets.US_ASCII), out);
        } else if (v instanceof Date d) {
            chunk('W', Long.toString(d.getTime()).getBytes(StandardCharsets.US_ASCII), out);
        } else if (v instanceof Map<?, ?> map) {
            Map<String, Object> sorted = new TreeMap<>();
            map.forEach((k, x) -> sorted.put(String.valueOf(k), x));
            entries(sorted, out, depth);
        } else if (v instanceof Struct struct) {
            Map<String, Object> fields = new TreeMap<>();
            for (Field f : struct.schema().fields()) {
                fields.put(f.name(), struct.get(f));
            }
            entries(fields, out, depth);
        } else if (v instanceof List<?> list) {
            chunk('A', Integer.toString(list.size()).getBytes(StandardCharsets.US_ASCII), out);
            for (Object item : new ArrayList<>(list)) {
                write(item, out, depth + 1);
            }
        } else {
            throw new RefusedRecordException("refused: its key or value holds a " + v.getClass().getName()
                    + ", which no converter produces and a signature cannot cover");
        }
    }

    private static void entries(Map<String, Object> sorted, ByteArrayOutputStream out, int depth) {
        chunk('O', Integer.toString(sorted.size()).getBytes(StandardCharsets.US_ASCII), out);
        for (Map.Entry<String, Object> e : sorted.entrySet()) {
            chunk('K', e.getKey().getBytes(StandardCharsets.UTF_8), out);
            write(e.getValue(), out, depth + 1);
        }
    }

    /** A number by its decimal value: 1.5 as a Double and as a BigDecimal read back from JSON agree, and so do 2.0 and 2.00. */
    private static String decimal(Number n) {
        double d = n.doubleValue();
        if (!(n instanceof BigDecimal) && (Double.isNaN(d) || Double.isInfinite(d))) {
            return Double.toString(d);
        }
        BigDecimal b = n instanceof BigDecimal bd ? bd : new BigDecimal(Double.toString(d));
        return b.stripTrailingZeros().toPlainString();
    }

    /** A tag, a length and the bytes: no two different values give the same bytes. */
    private static void chunk(char tag, byte[] b, ByteArrayOutputStream out) {
        out.write(tag);
        out.write(b.length >>> 24);
        out.write(b.length >>> 16);
        out.write(b.length >>> 8);
        out.write(b.length);
        out.write(b, 0, b.length);
    }
}
