package dev.tideline.sink.guard;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.ReplaceOptions;
import dev.tideline.event.Namespace;
import dev.tideline.sink.check.ExactMatch;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;

/**
 * Which copies this sink saw begin, per destination collection and topic partition: a resnapshot's
 * {@code complete} marker sweeps only after its {@code begin} marker (same epoch) arrived on the same
 * partition. Kept in the collection {@value #COLLECTION} of each destination database, so it survives
 * restarts: the begin is recorded while its batch is applied, before its offset can be committed, so a
 * crash re-delivers the begin (recorded again, idempotent) or leaves it recorded. One small entry per
 * copy and partition: {@code {_id: {ns: <collection>, t: <topic>, p: <partition>, epoch: <timestamp>}, at: <date>}},
 * found by {@code _id} alone. Records never write Tideline's collections ({@code DestinationPolicy}).
 */
public final class CopyBegins {
    public static final String COLLECTION = "_tideline_copies";
    private static final ReplaceOptions UPSERT = new ReplaceOptions().upsert(true);

    private final MongoClient client;

    public CopyBegins(MongoClient client) {
        this.client = client;
    }

    /** Records that the copy of epoch {@code epoch} began on this topic partition (idempotent). */
    public void recordBegin(Namespace destination, String topic, int partition, BsonTimestamp epoch) {
        BsonDocument key = key(destination, topic, partition, epoch);
        entries(destination).replaceOne(ExactMatch.eq("_id", key),
                new BsonDocument("_id", key).append("at", new BsonDateTime(System.currentTimeMillis())), UPSERT);
    }

    /** Whether {@link #recordBegin} was called for this copy on this topic partition. */
    public boolean begun(Namespace destination, String topic, int partition, BsonTimestamp epoch) {
        return entries(destination).find(ExactMatch.eq("_id", key(destination, topic, partition, epoch))).first() != null;
    }

    /** Field order is part of an embedded document's equality: always ns, t, p, epoch. */
    private static BsonDocument key(Namespace destination, String topic, int partition, BsonTimestamp epoch) {
        return new BsonDocument("ns", new BsonString(destination.coll())).append("t", new BsonString(topic))
                .append("p", new BsonInt32(partition)).append("epoch", epoch);
    }

    private MongoCollection<BsonDocument> entries(Namespace destination) {
        return client.getDatabase(destination.db()).getCollection(COLLECTION, BsonDocument.class);
    }
}
