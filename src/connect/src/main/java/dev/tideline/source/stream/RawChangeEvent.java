package dev.tideline.source.stream;

import java.nio.ByteBuffer;
import org.bson.BsonBinaryReader;
import org.bson.BsonBinarySubType;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.DecoderContext;

/**
 * The fields of a change stream event the source uses, read in ONE pass over the event's bytes.
 *
 * <p>The driver's {@code ChangeStreamDocument} codec decodes every field of every event into objects
 * (it was a fifth of the capture thread's time while draining a backlog); this keeps the changed
 * document as the server sent it, a byte slice, and decodes only the small fields.
 *
 * @param token        the event's {@code _id}: its resume token
 * @param type         {@code operationType}
 * @param db           {@code ns.db}, or null
 * @param coll         {@code ns.coll}, or null (database-wide events: {@code dropDatabase}, {@code invalidate})
 * @param clusterTime  may be null
 * @param wallTime     milliseconds since the epoch, or null when the server sent none
 * @param documentId   {@code documentKey._id}, or null
 * @param documentKey  the whole {@code documentKey} (with the shard key fields on a sharded collection), or null
 * @param fullDocument the changed (or looked-up) document, or null when absent or {@code null}
 * @param before       {@code fullDocumentBeforeChange} (the pre-image), or null when absent or {@code null}
 * @param destination  a rename's {@code to} as {@code db.coll}, else null
 * @param fragment     {@code splitEvent.fragment} (1-based) of a split event, else 0
 * @param fragments    {@code splitEvent.of}, else 0
 * @param transaction  the multi-document transaction the event belongs to ({@link #transactionId}), else null
 */
public record RawChangeEvent(BsonDocument token, String type, String db, String coll, BsonTimestamp clusterTime, Long wallTime,
                             BsonValue documentId, BsonDocument documentKey, RawBsonDocument fullDocument, RawBsonDocument before,
                             String destination, int fragment, int fragments, String transaction) {
    private static final BsonDocumentCodec DOCUMENT_CODEC = new BsonDocumentCodec();
    private static final DecoderContext DECODE = DecoderContext.builder().build();

    public static RawChangeEvent parse(RawBsonDocument event) {
        BsonDocument token = null;
        String type = null;
        String db = null;
        String coll = null;
        BsonTimestamp clusterTime = null;
        Long wallTime = null;
        BsonValue documentId = null;
        BsonDocument documentKey = null;
        RawBsonDocument fullDocument = null;
        RawBsonDocument before = null;
        String destination = null;
        int fragment = 0;
        int fragments = 0;
        BsonDocument lsid = null;
        Long txnNumber = null;
        ByteBuffer bytes = event.getByteBuffer().asNIO();
        try (BsonBinaryReader reader = new BsonBinaryReader(bytes)) {
            reader.readStartDocument();
            while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                String name = reader.readName();
                BsonType bsonType = reader.getCurrentBsonType();
                switch (name) {
                    case "_id" -> token = bsonType == BsonType.DOCUMENT ? DOCUMENT_CODEC.decode(reader, DECODE) : skip(reader);
                    case "operationType" -> type = bsonType == BsonType.STRING ? reader.readString() : skip(reader);
                    case "ns" -> {
                        if (bsonType == BsonType.DOCUMENT) {
                            BsonDocument ns = DOCUMENT_CODEC.decode(reader, DECODE);
                            db = string(ns.get("db"));
                            coll = string(ns.get("coll"));
                        } else {
                            reader.skipValue();
                        }
                    }
                    case "clusterTime" -> clusterTime = bsonType == BsonType.TIMESTAMP ? reader.readTimestamp() : skip(reader);
                    case "wallTime" -> wallTime = bsonType == BsonType.DATE_TIME ? reader.readDateTime() : skip(reader);
                    case "documentKey" -> {
                        documentKey = bsonType == BsonType.DOCUMENT ? DOCUMENT_CODEC.decode(reader, DECODE) : skip(reader);
                        documentId = documentKey == null ? null : documentKey.get("_id");
                    }
                    case "fullDocument" -> fullDocument = bsonType == BsonType.DOCUMENT ? slice(reader, bytes) : skip(reader);
                    case "fullDocumentBeforeChange" -> before = bsonType == BsonType.DOCUMENT ? slice(reader, bytes) : skip(reader);
                    case "to" -> destination = bsonType == BsonType.DOCUMENT ? namespace(DOCUMENT_CODEC.decode(reader, DECODE)) : skip(reader);
                    case "splitEvent" -> {
                        if (bsonType == BsonType.DOCUMENT) {
                            BsonDocument split = DOCUMENT_CODEC.decode(reader, DECODE);
                            fragment = number(split.get("fragment"));
                            fragments = number(split.get("of"));
                        } else {
                            reader.skipValue();
                        }
                    }
                    case "lsid" -> lsid = bsonType == BsonType.DOCUMENT ? DOCUMENT_CODEC.decode(reader, DECODE) : skip(reader);
                    case "txnNumber" -> txnNumber = bsonType == BsonType.INT64 ? Long.valueOf(reader.readInt64())
                            : bsonType == BsonType.INT32 ? Long.valueOf(reader.readInt32()) : skip(reader);
                    default -> reader.skipValue();
                }
            }
            reader.readEndDocument();
        }
        return new RawChangeEvent(token, type, db, coll, clusterTime, wallTime, documentId, documentKey, fullDocument, before,
                destination, fragment, fragments, transactionId(lsid, txnNumber));
    }

    /**
     * A transaction's identity as the {@code tl.txn} header carries it: MongoDB gives every event of a multi-document
     * transaction the session's {@code lsid} and the transaction's {@code txnNumber}, which together identify it
     * (https://www.mongodb.com/docs/manual/reference/change-events/). Written {@code <lsid.id>:<txnNumber>}, the id as
     * a UUID's canonical text (drivers make session ids random UUIDs), any other id as the hex of its bytes or its
     * Extended JSON. Null when the event is not part of a transaction.
     */
    static String transactionId(BsonDocument lsid, Long txnNumber) {
        if (lsid == null || txnNumber == null || lsid.get("id") == null) {
            return null;
        }
        BsonValue id = lsid.get("id");
        String text;
        if (id.isBinary() && id.asBinary().getData().length == 16
                && (id.asBinary().getType() == BsonBinarySubType.UUID_STANDARD.getValue()
                || id.asBinary().getType() == BsonBinarySubType.UUID_LEGACY.getValue())) {
            ByteBuffer b = ByteBuffer.wrap(id.asBinary().getData());
            text = new java.util.UUID(b.getLong(), b.getLong()).toString();
        } else if (id.isBinary()) {
            text = java.util.HexFormat.of().formatHex(id.asBinary().getData());
        } else {
            text = new BsonDocument("id", id).toJson();
        }
        return text + ":" + txnNumber;
    }

    /** Whether this is one fragment of an event split by {@code $changeStreamSplitLargeEvent}. */
    public boolean isFragment() {
        return fragments > 0;
    }

    /**
     * The embedded document at the reader's position, as a view on the event's own bytes: neither
     * decoded nor copied (the event's bytes stay alive as long as the document does).
     */
    private static RawBsonDocument slice(BsonBinaryReader reader, ByteBuffer eventBytes) {
        int start = reader.getBsonInput().getPosition();
        reader.skipValue();
        int size = reader.getBsonInput().getPosition() - start;
        return new RawBsonDocument(eventBytes.array(), eventBytes.arrayOffset() + start, size);
    }

    private static String namespace(BsonDocument to) {
        String db = string(to.get("db"));
        String coll = string(to.get("coll"));
        return db != null && coll != null ? db + "." + coll : null;
    }

    private static String string(BsonValue v) {
        return v != null && v.isString() ? v.asString().getValue() : null;
    }

    private static int number(BsonValue v) {
        return v != null && v.isNumber() ? v.asNumber().intValue() : 0;
    }

    private static <T> T skip(BsonBinaryReader reader) {
        reader.skipValue();
        return null;
    }
}
