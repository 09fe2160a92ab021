package dev.tideline.verify;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonSerializationException;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.ByteBuf;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;

/**
 * A document's elements as the bytes the server sent, without the top-level fields verify ignores (the
 * peer stamp {@code _tl}): two documents are equal when these bytes are, which is BSON equality (same
 * fields, same order, same types, same values). Found by walking the element headers of the top
 * level only (https://bsonspec.org/spec.html), so nothing is decoded and, without ignored fields,
 * nothing is copied.
 */
public final class DocumentBytes {
    private DocumentBytes() {
    }

    /**
     * The element list of {@code doc} (between the length prefix and the final 0), minus the
     * elements named in {@code ignored}; a view of the document's own bytes when none is present.
     */
    public static ByteBuffer content(RawBsonDocument doc, Set<String> ignored) {
        ByteBuf raw = doc.getByteBuffer();
        ByteBuffer buf = raw.asNIO().order(ByteOrder.LITTLE_ENDIAN);
        int start = buf.position();
        int length = buf.getInt(start);
        int end = start + length - 1; // the document's terminating 0
        ByteBuffer elements = buf.duplicate().position(start + 4).limit(end).slice();
        if (ignored.isEmpty()) {
            return elements;
        }
        ByteBuffer out = null;
        int pos = start + 4;
        int copiedUpTo = pos;
        while (pos < end) {
            int elementStart = pos;
            byte type = buf.get(pos++);
            int nameStart = pos;
            while (buf.get(pos) != 0) {
                pos++;
            }
            String name = new String(bytes(buf, nameStart, pos - nameStart), StandardCharsets.UTF_8);
            pos++;
            pos += valueSize(buf, type, pos);
            if (pos > end) {
                throw new BsonSerializationException("element '" + name + "' runs past the end of its document");
            }
            if (ignored.contains(name)) {
                if (out == null) {
                    out = ByteBuffer.allocate(length);
                }
                out.put(bytes(buf, copiedUpTo, elementStart - copiedUpTo));
                copiedUpTo = pos;
            }
        }
        if (out == null) {
            return elements;
        }
        out.put(bytes(buf, copiedUpTo, end - copiedUpTo));
        return out.flip();
    }

    /**
     * The document's {@code _id}. The common id types (ObjectId, string, int32, int64, double) are read
     * straight from the bytes: a walk compares every document's id, and a reader per document cost
     * more than the comparison. Anything else, or an {@code _id} that is not first, is decoded by the driver.
     */
    public static BsonValue id(RawBsonDocument doc) {
        ByteBuffer buf = doc.getByteBuffer().asNIO().order(ByteOrder.LITTLE_ENDIAN);
        int pos = buf.position() + 4;
        byte type = buf.get(pos);
        if (buf.get(pos + 1) == '_' && buf.get(pos + 2) == 'i' && buf.get(pos + 3) == 'd' && buf.get(pos + 4) == 0) {
            int value = pos + 5;
            switch (type) {
                case 0x07 -> {
                    byte[] oid = new byte[12];
                    buf.get(value, oid);
                    return new BsonObjectId(new ObjectId(oid));
                }
                case 0x02 -> {
                    int length = buf.getInt(value); // includes the terminating 0
                    return new BsonString(new String(bytes(buf, value + 4, length - 1), StandardCharsets.UTF_8));
                }
                case 0x10 -> {
                    return new BsonInt32(buf.getInt(value));
                }
                case 0x12 -> {
                    return new BsonInt64(buf.getLong(value));
                }
                case 0x01 -> {
                    return new BsonDouble(buf.getDouble(value));
                }
                default -> {
                    // decoded by the driver below
                }
            }
        }
        return doc.get("_id");
    }

    /** The size of an element's value starting at {@code pos}, by its type (bsonspec.org). */
    static int valueSize(ByteBuffer buf, byte type, int pos) {
        return switch (type) {
            case 0x01, 0x09, 0x11, 0x12 -> 8; // double, date, timestamp, int64
            case 0x02, 0x0D, 0x0E -> 4 + buf.getInt(pos); // string, code, symbol
            case 0x03, 0x04, 0x0F -> buf.getInt(pos); // document, array, code with scope: length includes itself
            case 0x05 -> 4 + 1 + buf.getInt(pos); // binary: length, subtype, bytes
            case 0x06, 0x0A, (byte) 0xFF, 0x7F -> 0; // undefined, null, min key, max key
            case 0x07 -> 12; // ObjectId
            case 0x08 -> 1; // boolean
            case 0x0B -> cstring(buf, pos) + cstring(buf, pos + cstring(buf, pos)); // regex: pattern, options
            case 0x0C -> 4 + buf.getInt(pos) + 12; // DBPointer: string, ObjectId
            case 0x10 -> 4; // int32
            case 0x13 -> 16; // decimal128
            default -> throw new BsonSerializationException("unknown BSON type 0x" + Integer.toHexString(type & 0xff));
        };
    }

    private static int cstring(ByteBuffer buf, int pos) {
        int p = pos;
        while (buf.get(p) != 0) {
            p++;
        }
        return p - pos + 1;
    }

    private static byte[] bytes(ByteBuffer buf, int from, int count) {
        byte[] out = new byte[count];
        buf.get(from, out);
        return out;
    }
}
