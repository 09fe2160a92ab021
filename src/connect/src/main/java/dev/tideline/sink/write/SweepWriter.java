package dev.tideline.sink.write;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import dev.tideline.event.Namespace;
import dev.tideline.sink.check.ExactMatch;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** Removes the documents a resnapshot's sweep chose (see {@code dev.tideline.sink.guard.SweepRule}). */
public final class SweepWriter {
    private final MongoClient client;

    public SweepWriter(MongoClient client) {
        this.client = client;
    }

    /** @return how many documents were still there and are now deleted; transient failures throw retriable */
    public long delete(Namespace destination, List<BsonValue> ids) {
        try {
            return client.getDatabase(destination.db()).getCollection(destination.coll(), BsonDocument.class)
                    .deleteMany(ExactMatch.idIn(ids)).getDeletedCount();
        } catch (MongoException e) {
            throw WriteFailures.translate(e, "removing " + ids.size() + " documents of " + destination
                    + " that a resnapshot found deleted at the source");
        }
    }
}
