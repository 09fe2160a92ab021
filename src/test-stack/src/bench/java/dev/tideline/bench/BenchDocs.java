package dev.tideline.bench;

import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.RawBsonDocument;

/** The benchmark's documents: integer {@code _id}s and a padding field that makes each one {@link #BYTES} of BSON. */
final class BenchDocs {
    static final int BYTES = 1024;
    /** BSON of {_id: int32, n: int32, at: date, pad: ""} is 43 bytes; the pad string fills up the rest. */
    private static final String PAD = "x".repeat(BYTES - 43);

    private BenchDocs() {
    }

    static Document doc(int id) {
        return new Document("_id", id).append("n", id).append("at", new Date(1_700_000_000_000L + id)).append("pad", PAD);
    }

    static BsonDocument bson(int id) {
        return doc(id).toBsonDocument();
    }

    /** Documents {@code from} (inclusive) to {@code to} (exclusive). */
    static List<Document> docs(int from, int to) {
        List<Document> out = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            out.add(doc(i));
        }
        return out;
    }

    /** The encoded size, to check {@link #BYTES} (the table says "1 KB documents"). */
    static int encodedSize(int id) {
        return new RawBsonDocument(bson(id), new org.bson.codecs.BsonDocumentCodec()).getByteBuffer().remaining();
    }
}
