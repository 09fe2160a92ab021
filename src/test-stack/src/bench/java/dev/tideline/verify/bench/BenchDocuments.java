package dev.tideline.verify.bench;

import java.util.ArrayList;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.types.ObjectId;

/** The benchmark's documents: order-like, about {@code bytes} of BSON each, ObjectId ids in insertion order. */
final class BenchDocuments {
    private BenchDocuments() {
    }

    static ObjectId id(int i) {
        return new ObjectId(1_700_000_000 + (i >>> 24), i & 0xffffff);
    }

    static BsonDocument document(int i, int bytes) {
        BsonDocument d = new BsonDocument("_id", new BsonObjectId(id(i)))
                .append("customer", new BsonString("customer-" + (i % 50_000)))
                .append("status", new BsonString(i % 3 == 0 ? "shipped" : "open"))
                .append("total", new BsonDouble(i * 0.37))
                .append("items", new BsonInt32(i % 17))
                .append("createdAt", new BsonDateTime(1_700_000_000_000L + i * 1_000L))
                .append("tags", new BsonArray(List.of(new BsonString("t" + i % 7), new BsonString("w" + i % 11))));
        int pad = Math.max(0, bytes - 190);
        return d.append("note", new BsonString("x".repeat(pad)));
    }

    static List<BsonDocument> batch(int from, int to, int bytes) {
        List<BsonDocument> out = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            out.add(document(i, bytes));
        }
        return out;
    }
}
