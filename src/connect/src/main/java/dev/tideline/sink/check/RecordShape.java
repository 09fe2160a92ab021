package dev.tideline.sink.check;

import dev.tideline.event.RefusedRecordException;
import dev.tideline.event.ValueShape;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * The size of a record's key or value, and the nesting of maps, lists and Structs, measured before
 * anything decodes them (the nesting of BSON bytes and JSON text is measured by {@link ValueShape} where
 * those are decoded, for every reader of the event codecs). Pure.
 *
 * <p>Size is measured in the form the value arrived in: bytes for BSON, characters for JSON text
 * (at most its UTF-8 size), and for maps and Structs an estimate (names and strings by their length,
 * other scalars as 8 bytes, 5 per container), computed only up to the limit.
 */
public final class RecordShape {
    private static final int SCALAR_BYTES = 8;
    private static final int CONTAINER_BYTES = 5;

    private final long maxBytes;
    private final String maxBytesSetting;

    /** @param maxBytesSetting the setting that sets {@code maxBytes}, named in refusals */
    public RecordShape(long maxBytes, String maxBytesSetting) {
        this.maxBytes = maxBytes;
        this.maxBytesSetting = maxBytesSetting;
    }

    /** @throws RefusedRecordException naming {@code what} (record key, record value) and the reason */
    public void check(Object value, String what) {
        problem(value).ifPresent(p -> {
            throw new RefusedRecordException("refused: the " + what + " " + p);
        });
    }

    Optional<String> problem(Object value) {
        if (value == null) {
            return Optional.empty();
        }
        if (value instanceof byte[] b) {
            return size(b.length, "bytes");
        }
        if (value instanceof ByteBuffer b) {
            return size(b.remaining(), "bytes");
        }
        if (value instanceof String s) {
            return size(s.length(), "characters");
        }
        if (value instanceof Map<?, ?> || value instanceof List<?> || value instanceof Struct) {
            return walk(value);
        }
        return Optional.empty();
    }

    private Optional<String> size(long size, String unit) {
        if (size <= maxBytes) {
            return Optional.empty();
        }
        return Optional.of("is " + size + " " + unit + ", over " + maxBytesSetting + " (" + maxBytes + "), measured before "
                + "decoding. MongoDB stores documents up to 16 MiB; raise " + maxBytesSetting + " if such records are expected");
    }

    /** Estimated size of maps, lists and Structs (stops at the limit), their depth, and the field names of Structs. */
    private Optional<String> walk(Object root) {
        Deque<Object> todo = new ArrayDeque<>();
        Deque<Integer> depths = new ArrayDeque<>();
        todo.push(root);
        depths.push(1);
        long size = 0;
        while (!todo.isEmpty()) {
            Object v = todo.pop();
            int depth = depths.pop();
            if (depth > ValueShape.MAX_DEPTH) {
                return Optional.of("nests deeper than " + ValueShape.MAX_DEPTH + " levels (MongoDB stores "
                        + "documents at most " + ValueShape.MONGODB_MAX_DOCUMENT_DEPTH
                        + " levels deep), measured before decoding");
            }
            size += CONTAINER_BYTES;
            if (v instanceof Struct struct) {
                for (Field f : struct.schema().fields()) {
                    if (f.name().indexOf('\0') >= 0) {
                        return Optional.of("has a field name with a NUL character, which BSON cannot encode");
                    }
                    size += f.name().length() + add(struct.get(f), depth, todo, depths);
                }
            } else if (v instanceof Map<?, ?> map) {
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    size += (e.getKey() instanceof String k ? k.length() : SCALAR_BYTES) + add(e.getValue(), depth, todo, depths);
                }
            } else {
                for (Object item : (List<?>) v) {
                    size += add(item, depth, todo, depths);
                }
            }
            if (size > maxBytes) {
                return Optional.of("is over " + maxBytesSetting + " (" + maxBytes + " bytes, estimated from its fields), "
                        + "measured before decoding. MongoDB stores documents up to 16 MiB; raise " + maxBytesSetting
                        + " if such records are expected");
            }
        }
        return Optional.empty();
    }

    /** @return the size of a scalar, or 0 after queueing a container for the walk */
    private static long add(Object v, int depth, Deque<Object> todo, Deque<Integer> depths) {
        if (v instanceof Struct || v instanceof Map<?, ?> || v instanceof List<?>) {
            todo.push(v);
            depths.push(depth + 1);
            return 0;
        }
        if (v instanceof String s) {
            return s.length();
        }
        if (v instanceof byte[] b) {
            return b.length;
        }
        if (v instanceof ByteBuffer b) {
            return b.remaining();
        }
        return SCALAR_BYTES;
    }
}
