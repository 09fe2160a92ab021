package dev.tideline.sink.write;

import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * MongoDB's 16 MiB document limit, checked before sending. The driver checks it too, but while
 * encoding the bulk write: one oversized document would then abort the whole chunk instead of being
 * isolated as the one record the server cannot take.
 */
final class DocumentSize {
    /** BSONObjMaxUserSize: https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-BSON-Document-Size */
    static final int MAX_BYTES = 16 * 1024 * 1024;
    private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

    private DocumentSize() {
    }

    static int of(BsonDocument doc) {
        if (doc instanceof RawBsonDocument raw) {
            return raw.getByteBuffer().remaining();
        }
        return new RawBsonDocument(doc, CODEC).getByteBuffer().remaining();
    }
}
