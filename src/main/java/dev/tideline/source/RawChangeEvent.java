package dev.tideline.source;

import java.nio.ByteBuffer;
import org.bson.BsonBinaryReader;
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
 * @param clusterTime  may be null
 * @param wallTime     milliseconds since the epoch, or null when the server sent none
 * @param documentId   {@code documentKey._id}, or null
 * @param documentKey  the whole {@code documentKey} (with the shard key fields on a sharded collection), or null
 * @param fullDocument the changed (or looked-up) document, or null when absent or {@code null}
 * @param destination  a rename's {@code to} as {@code db.coll}, else null
 */
record RawChangeEvent(BsonDocument token, String type, BsonTimestamp clusterTime, Long wallTime, BsonValue documentId,
                      BsonDocument documentKey, RawBsonDocument fullDocument, String destination) {
    private static final BsonDocumentCodec DOCUMENT_CODEC = new BsonDocumentCodec();
    private static final DecoderContext DECODE = DecoderContext.builder().build();

    static RawChangeEvent parse(RawBsonDocument event) {
        BsonDocument token = null;
        String type = null;
        BsonTimestamp clusterTime = null;
        Long wallTime = null;
        BsonValue documentId = null;
        BsonDocument documentKey = null;
        RawBsonDocument fullDocument = null;
        String destination = null;
        ByteBuffer bytes = event.getByteBuffer().asNIO();
        try (BsonBinaryReader reader = new BsonBinaryReader(bytes)) {
            reader.readStartDocument();
            while (reader.readBsonType() != BsonType.END_OF_DOCUMENT) {
                String name = reader.readName();
                BsonType bsonType = reader.getCurrentBsonType();
                switch (name) {
                    case "_id" -> token = bsonType == BsonType.DOCUMENT ? DOCUMENT_CODEC.decode(reader, DECODE) : skip(reader);
                    case "operationType" -> type = bsonType == BsonType.STRING ? reader.readString() : skip(reader);
                    case "clusterTime" -> clusterTime = bsonType == BsonType.TIMESTAMP ? reader.readTimestamp() : skip(reader);
                    case "wallTime" -> wallTime = bsonType == BsonType.DATE_TIME ? reader.readDateTime() : skip(reader);
                    case "documentKey" -> {
                        documentKey = bsonType == BsonType.DOCUMENT ? DOCUMENT_CODEC.decode(reader, DECODE) : skip(reader);
                        documentId = documentKey == null ? null : documentKey.get("_id");
                    }
                    case "fullDocument" -> fullDocument = bsonType == BsonType.DOCUMENT ? slice(reader, bytes) : skip(reader);
                    case "to" -> destination = bsonType == BsonType.DOCUMENT ? namespace(DOCUMENT_CODEC.decode(reader, DECODE)) : skip(reader);
                    default -> reader.skipValue();
                }
            }
            reader.readEndDocument();
        }
        return new RawChangeEvent(token, type, clusterTime, wallTime, documentId, documentKey, fullDocument, destination);
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
        BsonValue db = to.get("db");
        BsonValue coll = to.get("coll");
        return db != null && db.isString() && coll != null && coll.isString()
                ? db.asString().getValue() + "." + coll.asString().getValue() : null;
    }

    private static <T> T skip(BsonBinaryReader reader) {
        reader.skipValue();
        return null;
    }
}
