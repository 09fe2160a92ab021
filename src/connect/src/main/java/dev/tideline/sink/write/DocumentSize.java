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
        return encoded(doc).getByteBuffer().remaining();
    }

    /**
     * The document as BSON bytes: itself when it already is, else encoded once. The write sends these
     * bytes as they are, so checking the size costs no second encoding of the document.
     */
    static RawBsonDocument encoded(BsonDocument doc) {
        return doc instanceof RawBsonDocument raw ? raw : new RawBsonDocument(doc, CODEC);
    }
}
