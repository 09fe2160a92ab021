package dev.tideline.standin;

import de.bwaldvogel.mongo.bson.BinData;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.LegacyUUID;
import de.bwaldvogel.mongo.wire.BsonConstants;
import de.bwaldvogel.mongo.wire.bson.BsonDecoder;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * BSON documents (https://bsonspec.org/spec.html) read and written without loss: binary values with their
 * subtype, and the deprecated types (undefined, DBPointer, symbol, code with scope) and JavaScript code as they came
 * ({@link LosslessValues}). Documents, arrays, binary data and the deprecated types are handled here; every
 * other value by mongo-java-server's own codec, so the stand-in sees the values it always saw. UUIDs (subtype
 * 4, and the legacy subtype 3) of 16 bytes stay mongo-java-server's UUID types, which it compares as such.
 */
final class LosslessBson {
    private static final int UUID_BYTES = 16;

    private LosslessBson() {
    }

    /** Reads one document from {@code in}, leaving it after the document. */
    static Document decode(ByteBuf in) {
        int start = in.readerIndex();
        int length = in.readIntLE();
        if (length < 5 || length > in.readableBytes() + 4) {
            throw new IllegalArgumentException("illegal BSON document length " + length + " with " + (in.readableBytes() + 4)
                    + " bytes left");
        }
        if (length - 4 > BsonConstants.MAX_BSON_OBJECT_SIZE) {
            throw new IllegalArgumentException("BSON object too large: " + (length - 4) + " bytes"); // as mongo-java-server
        }
        int end = start + length;
        Document document = new Document();
        while (in.readerIndex() < end) {
            byte type = in.readByte();
            if (type == BsonConstants.TERMINATING_BYTE) {
                if (in.readerIndex() != end) {
                    throw new IllegalArgumentException("BSON document ends at byte " + (in.readerIndex() - start)
                            + " of the " + length + " its length says");
                }
                return document;
            }
            String name = BsonDecoder.decodeCString(in);
            if (document.containsKey(name)) {
                throw new IllegalArgumentException("Document already contains field '" + name + "'");
            }
            document.put(name, value(type, in));
        }
        throw new IllegalArgumentException("illegal BSON document: no terminating byte within its length " + length);
    }

    private static Object value(byte type, ByteBuf in) {
        return switch (type) {
            case BsonConstants.TYPE_EMBEDDED_DOCUMENT -> decode(in);
            case BsonConstants.TYPE_ARRAY -> new ArrayList<>(decode(in).values());
            case BsonConstants.TYPE_DATA -> binary(in);
            case BsonConstants.TYPE_UNDEFINED -> LosslessValues.deprecated(type, new byte[0]);
            case BsonConstants.TYPE_SYMBOL -> deprecated(type, in, 4 + lengthAt(in, 0));
            case BsonConstants.TYPE_DBPOINTER -> deprecated(type, in, 4 + lengthAt(in, 0) + 12); // namespace, ObjectId
            case BsonConstants.TYPE_JAVASCRIPT_CODE_WITH_SCOPE -> deprecated(type, in, lengthAt(in, 0)); // its length counts itself
            // held too, so that $type can tell whether any is stored (DeprecatedTypeAliases)
            case BsonConstants.TYPE_JAVASCRIPT_CODE -> deprecated(type, in, 4 + lengthAt(in, 0));
            default -> BsonDecoder.decodeValue(type, in);
        };
    }

    private static int lengthAt(ByteBuf in, int offset) {
        return in.getIntLE(in.readerIndex() + offset);
    }

    private static Object deprecated(byte type, ByteBuf in, int bytes) {
        if (bytes < 4 || bytes > in.readableBytes()) {
            throw new IllegalArgumentException("illegal length " + bytes + " of a value of type 0x" + Integer.toHexString(type));
        }
        byte[] raw = new byte[bytes];
        in.readBytes(raw);
        return LosslessValues.deprecated(type, raw);
    }

    private static Object binary(ByteBuf in) {
        int length = in.readIntLE();
        byte subtype = in.readByte();
        if (length < 0 || length > in.readableBytes()) {
            throw new IllegalArgumentException("illegal binary length " + length);
        }
        if (subtype == BsonConstants.BINARY_SUBTYPE_UUID && length == UUID_BYTES) {
            return new UUID(in.readLong(), in.readLong()); // big-endian, as subtype 4 is written
        }
        if (subtype == BsonConstants.BINARY_SUBTYPE_OLD_UUID && length == UUID_BYTES) {
            return new LegacyUUID(in.readLongLE(), in.readLongLE());
        }
        byte[] data = new byte[length];
        in.readBytes(data);
        return LosslessValues.binary(subtype, data);
    }

    /** Writes {@code document} to {@code out}. */
    static void encode(Map<String, ?> document, ByteBuf out) {
        int start = out.writerIndex();
        out.writeIntLE(0); // its length, once known
        for (Map.Entry<String, ?> field : document.entrySet()) {
            element(field.getKey(), field.getValue(), out);
        }
        out.writeByte(BsonConstants.TERMINATING_BYTE);
        out.setIntLE(start, out.writerIndex() - start);
    }

    private static void element(String name, Object value, ByteBuf out) {
        LosslessValues.Kept kept = value instanceof BinData held ? LosslessValues.of(held) : null;
        byte type = kept != null ? kept.type() : BsonEncoder.determineType(value);
        out.writeByte(type);
        out.writeBytes(name.getBytes(StandardCharsets.UTF_8));
        out.writeByte(0);
        if (value instanceof Map<?, ?> map) {
            @SuppressWarnings("unchecked")
            Map<String, ?> embedded = (Map<String, ?>) map;
            encode(embedded, out);
        } else if (value instanceof Collection<?> array) {
            int start = out.writerIndex();
            out.writeIntLE(0);
            int i = 0;
            for (Object item : array instanceof List<?> list ? list : new ArrayList<>(array)) {
                element(Integer.toString(i++), item, out);
            }
            out.writeByte(BsonConstants.TERMINATING_BYTE);
            out.setIntLE(start, out.writerIndex() - start);
        } else if (kept != null && type == BsonConstants.TYPE_DATA) {
            byte[] data = ((BinData) value).getData();
            out.writeIntLE(data.length);
            out.writeByte(kept.subtype());
            out.writeBytes(data);
        } else if (kept != null) {
            out.writeBytes(((BinData) value).getData()); // a deprecated type, as it came
        } else {
            BsonEncoder.encodeValue(type, value, out);
        }
    }
}
