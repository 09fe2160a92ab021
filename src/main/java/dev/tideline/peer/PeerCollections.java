package dev.tideline.peer;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Where peer replication keeps its metadata, in each replicated database (names start with
 * {@code _tideline}, so the source never captures them).
 */
public final class PeerCollections {
    /** {@code {_id: {c: collection, id: document _id}, v: {t, o}, expireAt: Date}} */
    public static final String TOMBSTONES = "_tideline_peer_tombstones";
    /** one document per conflict resolved: both versions, both documents, the winner */
    public static final String CONFLICTS = "_tideline_peer_conflicts";
    /** one document per peer sink task: health, reasons, counters */
    public static final String STATUS = "_tideline_peer_status";

    private PeerCollections() {
    }

    public static BsonDocument tombstoneKey(String collection, BsonValue id) {
        return new BsonDocument("c", new BsonString(collection)).append("id", id);
    }
}
