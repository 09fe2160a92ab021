package dev.tideline.event;

import java.nio.ByteBuffer;
import java.util.Map;
import org.bson.BsonBinaryReader;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInvalidOperationException;
import org.bson.BsonSerializationException;
import org.bson.BsonString;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.BsonValueCodec;
import org.bson.codecs.DecoderContext;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * The change envelope, version 1, and its two record forms. The envelope is one BSON document:
 * <pre>
 * { v: 1, op: "insert"|"update"|"replace"|"delete"|"read", db: "...", coll: "...",
 *   id: &lt;_id&gt;, shardKey: {...} (optional), document: {...} (absent for deletes),
 *   clusterTime: Timestamp (optional), wallTime: Date, origin: "cluster id" (optional) }
 * </pre>
 * {@code shardKey} holds the shard key fields of the source's {@code documentKey} (see
 * {@link ChangeEvent#shardKey}); it came after version 1 was first written, and is optional so that
 * records without it, older ones included, read as before and older readers skip it.
 * The {@code json} form is that document through {@link ExtendedJson}; the {@code bson} form is its
 * bytes. Field names live here and nowhere else.
 */
public final class EnvelopeCodec {
    public static final int VERSION = 1;

    public static final String F_VERSION = "v";
    public static final String F_OP = "op";
    public static final String F_DB = "db";
    public static final String F_COLL = "coll";
    public static final String F_ID = "id";
    public static final String F_SHARD_KEY = "shardKey";
    public static final String F_DOCUMENT = "document";
    public static final String F_CLUSTER_TIME = "clusterTime";
    public static final String F_WALL_TIME = "wallTime";
    public static final String F_ORIGIN = "origin";

    /** The key of a record: the document's {@code _id}, in a one-field document. */
    public static final String KEY_ID = "_id";

    private static final BsonDocumentCodec DOCUMENT_CODEC = new BsonDocumentCodec();
    /** Encodes each value with the codec of its class: RawBsonDocumentCodec pipes raw bytes. */
    private static final BsonValueCodec VALUE_CODEC = new BsonValueCodec();
    private static final EncoderContext ENCODE = EncoderContext.builder().build();
    private static final DecoderContext DECODE = DecoderContext.builder().build();

    private EnvelopeCodec() {
    }

    // EnvelopeWriter writes these fields, in this order, straight to bytes for the common shapes: a field added here goes there too
    public static BsonDocument toBson(ChangeEvent e) {
        BsonDocument d = new BsonDocument();
        d.append(F_VERSION, new BsonInt32(VERSION));
        d.append(F_OP, new BsonString(e.op().wireName()));
        d.append(F_DB, new BsonString(e.ns().db()));
        d.append(F_COLL, new BsonString(e.ns().coll()));
        d.append(F_ID, e.id());
        if (e.shardKey() != null) {
            d.append(F_SHARD_KEY, e.shardKey());
        }
        if (e.document() != null) {
            d.append(F_DOCUMENT, e.document());
        }
        if (e.clusterTime() != null) {
            d.append(F_CLUSTER_TIME, e.clusterTime());
        }
        d.append(F_WALL_TIME, new BsonDateTime(e.wallTimeMillis()));
        if (e.origin() != null) {
            d.append(F_ORIGIN, new BsonString(e.origin()));
        }
        return d;
    }

    public static ChangeEvent fromBson(BsonDocument d) {
        BsonValue version = d.get(F_VERSION);
        if (version == null || !version.isNumber()) {
            throw new MalformedRecordException("not a Tideline change envelope: field '" + F_VERSION + "' is missing");
        }
        if (version.asNumber().intValue() != VERSION) {
            throw new MalformedRecordException("change envelope version " + version.asNumber().intValue()
                    + " is not supported by this version of Tideline (supports " + VERSION + "): upgrade the plugin");
        }
        Op op = Op.fromWireName(string(d, F_OP));
        Namespace ns;
        try {
            ns = new Namespace(string(d, F_DB), string(d, F_COLL));
        } catch (IllegalArgumentException ex) {
            throw new MalformedRecordException("bad namespace in change envelope: " + ex.getMessage(), ex);
        }
        BsonValue id = d.get(F_ID);
        if (id == null) {
            throw new MalformedRecordException("change envelope has no '" + F_ID + "'");
        }
        BsonValue doc = d.get(F_DOCUMENT);
        if (doc != null && !doc.isDocument() && !doc.isNull()) {
            throw new MalformedRecordException("change envelope field '" + F_DOCUMENT + "' must be a document, got " + doc.getBsonType());
        }
        BsonValue ct = d.get(F_CLUSTER_TIME);
        if (ct != null && !ct.isTimestamp() && !ct.isNull()) {
            throw new MalformedRecordException("change envelope field '" + F_CLUSTER_TIME + "' must be a timestamp, got " + ct.getBsonType());
        }
        BsonValue shardKey = d.get(F_SHARD_KEY);
        if (shardKey != null && !shardKey.isDocument() && !shardKey.isNull()) {
            throw new MalformedRecordException("change envelope field '" + F_SHARD_KEY + "' must be a document, got "
                    + shardKey.getBsonType());
        }
        BsonValue wall = d.get(F_WALL_TIME);
        BsonValue origin = d.get(F_ORIGIN);
        return new ChangeEvent(op, ns, id,
                doc == null || doc.isNull() ? null : doc.asDocument(),
                ct == null || ct.isNull() ? null : ct.asTimestamp(),
                wall != null && wall.isDateTime() ? wall.asDateTime().getValue() : 0L,
                origin != null && origin.isString() ? origin.asString().getValue() : null,
                shardKey == null || shardKey.isNull() ? null : shardKey.asDocument());
    }

    /**
     * Whether a document read from a record value is a change envelope rather than a plain document:
     * it has the envelope's version and op fields and no {@code _id} (an envelope names the id in
     * {@code id}; a document has {@code _id}). A bad envelope still counts as one, so it is reported
     * as malformed instead of being written as a document.
     */
    public static boolean looksLikeEnvelope(BsonDocument d) {
        return d.containsKey(F_VERSION) && d.containsKey(F_OP) && !d.containsKey(KEY_ID);
    }

    /** The record value of an event in the given form: a {@code Map} (json) or {@code byte[]} (bson). */
    public static Object toValue(ChangeEvent e, ValueFormat format) {
        if (format == ValueFormat.BSON) {
            byte[] direct = EnvelopeWriter.envelope(e);
            if (direct != null) {
                return direct;
            }
        }
        BsonDocument d = toBson(e);
        return format == ValueFormat.JSON ? ExtendedJson.toMap(d) : toBytes(d);
    }

    /** The record key of a document id in the given form. */
    public static Object toKey(BsonValue id, ValueFormat format) {
        if (format == ValueFormat.BSON) {
            byte[] direct = EnvelopeWriter.key(id);
            if (direct != null) {
                return direct;
            }
        }
        BsonDocument d = new BsonDocument(KEY_ID, id);
        return format == ValueFormat.JSON ? ExtendedJson.toMap(d) : toBytes(d);
    }

    /**
     * One value after its name: the envelope's types and the usual id types written directly, a raw
     * document copied as bytes, the rest by the codec (its look-up per field was most of the cost of
     * writing an envelope, once per change captured).
     */
    private static void writeValue(BsonBinaryWriter writer, BsonValue v) {
        if (v instanceof RawBsonDocument raw) {
            try (BsonBinaryReader reader = new BsonBinaryReader(raw.getByteBuffer().asNIO())) {
                writer.pipe(reader);
            }
            return;
        }
        switch (v.getBsonType()) {
            case OBJECT_ID -> writer.writeObjectId(v.asObjectId().getValue());
            case STRING -> writer.writeString(v.asString().getValue());
            case INT32 -> writer.writeInt32(v.asInt32().getValue());
            case INT64 -> writer.writeInt64(v.asInt64().getValue());
            case TIMESTAMP -> writer.writeTimestamp(v.asTimestamp());
            case DATE_TIME -> writer.writeDateTime(v.asDateTime().getValue());
            default -> VALUE_CODEC.encode(writer, v, ENCODE);
        }
    }

    /**
     * Reads a record value in any of the forms a producer may have used: envelope bytes, a
     * schemaless map, or a JSON string (StringConverter). Returns the envelope as BSON.
     */
    public static BsonDocument readDocument(Object value) {
        return readDocument(value, "record value");
    }

    /** @param what the record part it is, named when it is refused: record value or record key */
    private static BsonDocument readDocument(Object value, String what) {
        if (value instanceof byte[] bytes) {
            return fromBytes(bytes, what);
        }
        if (value instanceof ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            return fromBytes(bytes, what);
        }
        if (value instanceof Map<?, ?> map) {
            ValueShape.requireJava(map, what);
            return ExtendedJson.toDocument(map);
        }
        if (value instanceof String json) {
            ValueShape.requireJson(json, what);
            try {
                // through the map form: the driver's parser only knows {$code, $scope} in that order, while a
                // re-serialized schemaless map may hold wrapper fields in any order
                return ExtendedJson.toDocument(ExtendedJson.toMap(BsonDocument.parse(json)));
            } catch (MalformedRecordException ex) {
                throw ex;
            } catch (RuntimeException ex) {
                throw new MalformedRecordException("record value is not a JSON document: " + ex.getMessage(), ex);
            }
        }
        throw new MalformedRecordException("record value must be a document (map, BSON bytes or JSON text), got "
                + ExtendedJson.typeName(value));
    }

    /** The {@code _id} of a record key in any form (json map, bson bytes, JSON text, or a bare id). */
    public static BsonValue readKeyId(Object key) {
        if (key == null) {
            throw new MalformedRecordException("record has no key: the key must be the document's _id");
        }
        if (key instanceof byte[] || key instanceof ByteBuffer || key instanceof Map<?, ?>
                || (key instanceof String s && s.trim().startsWith("{"))) {
            BsonDocument d = readDocument(key, "record key");
            BsonValue id = d.get(KEY_ID);
            if (id == null) {
                throw new MalformedRecordException("record key has no '_id' field");
            }
            return id;
        }
        ValueShape.requireJava(key, "record key");
        return ExtendedJson.toBson(key);
    }

    /**
     * The document's BSON bytes. Fields are written by their type ({@link #writeValue}), so a {@link RawBsonDocument} field
     * (a document as the server sent it, e.g. a change's {@code document}) is copied as bytes; the
     * document codec would decode it and encode every string again, character by character, which
     * was the source's largest cost per change.
     */
    public static byte[] toBytes(BsonDocument d) {
        BasicOutputBuffer buffer = new BasicOutputBuffer(sizeHint(d));
        try (BsonBinaryWriter writer = new BsonBinaryWriter(buffer)) {
            writer.writeStartDocument();
            for (Map.Entry<String, BsonValue> field : d.entrySet()) {
                writer.writeName(field.getKey());
                writeValue(writer, field.getValue());
            }
            writer.writeEndDocument();
        }
        return buffer.toByteArray();
    }

    /**
     * A record value's bytes read as {@link #fromBytes} reads them, accepting and refusing the same with the same
     * messages, except that the {@code document} of a change envelope is left as a {@link RawBsonDocument} view of
     * the bytes: checked for everything the decoder checks ({@link ValueShape#decodes}), not decoded. A sink writes
     * it as it is; decoding its ~1 KB only to check it was a third of the sink's time per record. Anything that is
     * not an envelope comes back fully decoded, as from {@link #fromBytes}.
     */
    public static BsonDocument fromBytesKeepingDocument(byte[] bytes) {
        String what = "record value";
        if (bytes.length < 5) {
            throw new MalformedRecordException(what + " of " + bytes.length + " bytes is not a BSON document");
        }
        ValueShape.requireBson(bytes, what);
        BsonDocument d = new BsonDocument();
        RawBsonDocument view = null;
        try (BsonBinaryReader reader = new BsonBinaryReader(ByteBuffer.wrap(bytes))) {
            reader.readStartDocument();
            while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                String name = reader.readName();
                if (name.equals(F_DOCUMENT) && reader.getCurrentBsonType() == BsonType.DOCUMENT) {
                    int start = reader.getBsonInput().getPosition();
                    reader.skipValue();
                    int end = reader.getBsonInput().getPosition();
                    if (!ValueShape.decodes(bytes, start, end)) {
                        return fromBytes(bytes, what); // throws the decoder's reason (or, were the check too strict, decodes)
                    }
                    view = new RawBsonDocument(bytes, start, end - start);
                    d.put(name, view);
                } else {
                    d.put(name, VALUE_CODEC.decode(reader, DECODE)); // as the document codec decodes each value
                }
            }
            reader.readEndDocument();
        } catch (BsonSerializationException | BsonInvalidOperationException | IllegalStateException ex) {
            throw new MalformedRecordException(what + " is not a valid BSON document: " + ex.getMessage(), ex);
        }
        if (view != null && !looksLikeEnvelope(d)) {
            d.put(F_DOCUMENT, view.decode(DOCUMENT_CODEC)); // a plain document's field: its readers may change it
        }
        return d;
    }

    /**
     * Room for the raw documents inside plus the small fields: the buffer then grows at most once. Grown
     * from a fixed 256 bytes, a 1 KB document cost four allocations and copies per change.
     */
    private static int sizeHint(BsonDocument d) {
        int size = 256;
        for (BsonValue v : d.values()) {
            if (v instanceof RawBsonDocument raw) {
                size += raw.getByteBuffer().remaining();
            }
        }
        return size;
    }

    public static BsonDocument fromBytes(byte[] bytes) {
        return fromBytes(bytes, "record value");
    }

    private static BsonDocument fromBytes(byte[] bytes, String what) {
        if (bytes.length < 5) {
            throw new MalformedRecordException(what + " of " + bytes.length + " bytes is not a BSON document");
        }
        ValueShape.requireBson(bytes, what); // the codec below recurses once per level
        try (BsonBinaryReader reader = new BsonBinaryReader(ByteBuffer.wrap(bytes))) {
            return DOCUMENT_CODEC.decode(reader, DECODE);
        } catch (BsonSerializationException | BsonInvalidOperationException | IllegalStateException ex) {
            throw new MalformedRecordException(what + " is not a valid BSON document: " + ex.getMessage(), ex);
        }
    }

    private static String string(BsonDocument d, String field) {
        BsonValue v = d.get(field);
        if (v == null || v.getBsonType() != BsonType.STRING) {
            throw new MalformedRecordException("change envelope field '" + field + "' must be a string, got "
                    + (v == null ? "nothing" : v.getBsonType()));
        }
        return v.asString().getValue();
    }
}
