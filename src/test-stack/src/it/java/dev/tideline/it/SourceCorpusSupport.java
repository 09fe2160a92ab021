package dev.tideline.it;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.tideline.event.EnvelopeCodec;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/** What a MongoDB does with each field of a corpus: stores it to the byte, alters it, or refuses it. */
final class SourceCorpusSupport {
    enum Storage { KEPT, ALTERED, REFUSED }

    private SourceCorpusSupport() {
    }

    /** Stores each field (but _id) alone in a scratch collection and reads it back as bytes. */
    static Map<String, Storage> probe(MongoDatabase db, BsonDocument corpus) {
        MongoCollection<BsonDocument> scratch = db.getCollection("corpus_probe", BsonDocument.class);
        Map<String, Storage> out = new TreeMap<>();
        int i = 0;
        for (Map.Entry<String, BsonValue> e : corpus.entrySet()) {
            if (e.getKey().equals("_id")) {
                continue;
            }
            BsonDocument one = new BsonDocument("_id", new BsonInt32(++i)).append(e.getKey(), e.getValue());
            try {
                scratch.insertOne(one);
                RawBsonDocument stored = db.getCollection("corpus_probe", RawBsonDocument.class).find(Filters.eq("_id", i)).first();
                out.put(e.getKey(), stored != null && Arrays.equals(bytes(stored), EnvelopeCodec.toBytes(one)) ? Storage.KEPT : Storage.ALTERED);
            } catch (RuntimeException refused) {
                out.put(e.getKey(), Storage.REFUSED);
            }
        }
        scratch.drop();
        return out;
    }

    static byte[] bytes(RawBsonDocument d) {
        var buffer = d.getByteBuffer();
        byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        return out;
    }
}
