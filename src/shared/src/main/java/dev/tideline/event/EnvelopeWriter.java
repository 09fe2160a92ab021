package dev.tideline.event;

import java.nio.ByteBuffer;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * Writes the bson form of an envelope or key straight into one array of its exact size: the shapes every
 * capture produces (a document as the server sent it, or none; an {@code _id} of a common type; no shard
 * key), byte for byte what {@link EnvelopeCodec#toBytes} writes for them. Through a {@code BsonDocument}
 * and a {@code BsonBinaryWriter}, each 1 KB change cost a map of fields, a growing output buffer, a
 * temporary copy of the document while piping it, and a final copy of the buffer: four arrays of about
 * the record's size where one is needed (the copy's largest allocation per record, see
 * docs/performance.md). Anything else returns null and takes the general path.
 *
 * <p>The layout is the BSON spec's (https://bsonspec.org/spec.html): little-endian int32 length, elements of
 * type byte, cstring name and value, a terminating 0; strings as int32 length (with the 0), UTF-8, 0.
 * Strings are encoded as the driver's {@code OutputBuffer.writeCharacters} does, code point by code
 * point, so a string no Java encoder would write unchanged (an unpaired surrogate) still gives the
 * driver's bytes.
 */
final class EnvelopeWriter {
    private static final byte[] V = cstring(EnvelopeCodec.F_VERSION);
    private static final byte[] OP = cstring(EnvelopeCodec.F_OP);
    private static final byte[] DB = cstring(EnvelopeCodec.F_DB);
    private static final byte[] COLL = cstring(EnvelopeCodec.F_COLL);
    private static final byte[] ID = cstring(EnvelopeCodec.F_ID);
    private static final byte[] DOCUMENT = cstring(EnvelopeCodec.F_DOCUMENT);
    private static final byte[] CLUSTER_TIME = cstring(EnvelopeCodec.F_CLUSTER_TIME);
    private static final byte[] WALL_TIME = cstring(EnvelopeCodec.F_WALL_TIME);
    private static final byte[] ORIGIN = cstring(EnvelopeCodec.F_ORIGIN);
    private static final byte[] KEY_ID = cstring(EnvelopeCodec.KEY_ID);

    private final byte[] out;
    private int pos;

    private EnvelopeWriter(int size) {
        this.out = new byte[size];
    }

    /** The envelope's bytes, or null when the event is not of a shape written here. */
    static byte[] envelope(ChangeEvent e) {
        if (e.shardKey() != null || !simpleId(e.id()) || (e.document() != null && !(e.document() instanceof RawBsonDocument))) {
            return null;
        }
        String op = e.op().wireName();
        String db = e.ns().db();
        String coll = e.ns().coll();
        ByteBuffer doc = e.document() == null ? null : ((RawBsonDocument) e.document()).getByteBuffer().asNIO();
        int size = 4 + 1
                + 1 + V.length + 4
                + 1 + OP.length + stringSize(op)
                + 1 + DB.length + stringSize(db)
                + 1 + COLL.length + stringSize(coll)
                + 1 + ID.length + valueSize(e.id())
                + (doc == null ? 0 : 1 + DOCUMENT.length + doc.remaining())
                + (e.clusterTime() == null ? 0 : 1 + CLUSTER_TIME.length + 8)
                + 1 + WALL_TIME.length + 8
                + (e.origin() == null ? 0 : 1 + ORIGIN.length + stringSize(e.origin()));
        EnvelopeWriter w = new EnvelopeWriter(size);
        w.int32(size);
        w.name(BsonType.INT32, V).int32(EnvelopeCodec.VERSION);
        w.name(BsonType.STRING, OP).string(op);
        w.name(BsonType.STRING, DB).string(db);
        w.name(BsonType.STRING, COLL).string(coll);
        w.name(e.id().getBsonType(), ID).value(e.id());
        if (doc != null) {
            w.name(BsonType.DOCUMENT, DOCUMENT);
            int n = doc.remaining();
            doc.get(w.out, w.pos, n);
            w.pos += n;
        }
        if (e.clusterTime() != null) {
            w.name(BsonType.TIMESTAMP, CLUSTER_TIME).int64(e.clusterTime().getValue());
        }
        w.name(BsonType.DATE_TIME, WALL_TIME).int64(e.wallTimeMillis());
        if (e.origin() != null) {
            w.name(BsonType.STRING, ORIGIN).string(e.origin());
        }
        return w.end();
    }

    /** The key {@code {_id: id}}'s bytes, or null when the id is not of a type written here. */
    static byte[] key(BsonValue id) {
        if (!simpleId(id)) {
            return null;
        }
        int size = 4 + 1 + KEY_ID.length + valueSize(id) + 1;
        EnvelopeWriter w = new EnvelopeWriter(size);
        w.int32(size);
        w.name(id.getBsonType(), KEY_ID).value(id);
        return w.end();
    }

    private byte[] end() {
        out[pos++] = 0;
        if (pos != out.length) {
            throw new IllegalStateException("envelope of " + pos + " bytes written into " + out.length); // a sizing bug, never input
        }
        return out;
    }

    private static boolean simpleId(BsonValue id) {
        return switch (id.getBsonType()) {
            case OBJECT_ID, STRING, INT32, INT64 -> true;
            default -> false;
        };
    }

    private static int valueSize(BsonValue v) {
        return switch (v.getBsonType()) {
            case OBJECT_ID -> 12;
            case STRING -> stringSize(v.asString().getValue());
            case INT32 -> 4;
            case INT64 -> 8;
            default -> throw new IllegalArgumentException("not written here: " + v.getBsonType());
        };
    }

    private EnvelopeWriter value(BsonValue v) {
        switch (v.getBsonType()) {
            case OBJECT_ID -> {
                byte[] oid = v.asObjectId().getValue().toByteArray();
                System.arraycopy(oid, 0, out, pos, oid.length);
                pos += oid.length;
            }
            case STRING -> string(v.asString().getValue());
            case INT32 -> int32(v.asInt32().getValue());
            case INT64 -> int64(v.asInt64().getValue());
            default -> throw new IllegalArgumentException("not written here: " + v.getBsonType());
        }
        return this;
    }

    private EnvelopeWriter name(BsonType type, byte[] cstring) {
        out[pos++] = (byte) type.getValue();
        System.arraycopy(cstring, 0, out, pos, cstring.length);
        pos += cstring.length;
        return this;
    }

    private EnvelopeWriter string(String s) {
        int bytes = stringSize(s) - 4;
        int32(bytes);
        pos = utf8(s, out, pos);
        out[pos++] = 0;
        return this;
    }

    private EnvelopeWriter int32(int v) {
        out[pos++] = (byte) v;
        out[pos++] = (byte) (v >>> 8);
        out[pos++] = (byte) (v >>> 16);
        out[pos++] = (byte) (v >>> 24);
        return this;
    }

    private EnvelopeWriter int64(long v) {
        int32((int) v);
        int32((int) (v >>> 32));
        return this;
    }

    /** A BSON string's size: int32 length, the UTF-8 bytes, the terminating 0. */
    private static int stringSize(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
            i += Character.charCount(c);
        }
        return 4 + n + 1;
    }

    /** Code point by code point, as the driver's OutputBuffer.writeCharacters (a lone surrogate: three bytes). */
    private static int utf8(String s, byte[] out, int pos) {
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            if (c < 0x80) {
                out[pos++] = (byte) c;
            } else if (c < 0x800) {
                out[pos++] = (byte) (0xc0 + (c >> 6));
                out[pos++] = (byte) (0x80 + (c & 0x3f));
            } else if (c < 0x10000) {
                out[pos++] = (byte) (0xe0 + (c >> 12));
                out[pos++] = (byte) (0x80 + ((c >> 6) & 0x3f));
                out[pos++] = (byte) (0x80 + (c & 0x3f));
            } else {
                out[pos++] = (byte) (0xf0 + (c >> 18));
                out[pos++] = (byte) (0x80 + ((c >> 12) & 0x3f));
                out[pos++] = (byte) (0x80 + ((c >> 6) & 0x3f));
                out[pos++] = (byte) (0x80 + (c & 0x3f));
            }
            i += Character.charCount(c);
        }
        return pos;
    }

    private static byte[] cstring(String name) {
        byte[] ascii = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] out = new byte[ascii.length + 1];
        System.arraycopy(ascii, 0, out, 0, ascii.length);
        return out;
    }
}
