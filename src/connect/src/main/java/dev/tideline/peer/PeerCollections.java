package dev.tideline.peer;

import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * Where peer replication keeps its metadata, in each replicated database (names start with
 * {@code _tideline}, so the source never captures them).
 */
public final class PeerCollections {
    /** {@code {_id: {c: collection, id: document _id}, v: {t, o}, expireAt: Date, k, m}} ({@code k}/{@code m}: its MAC) */
    public static final String TOMBSTONES = "_tideline_peer_tombstones";
    /** one document per conflict resolved: both versions, both documents, the winner */
    public static final String CONFLICTS = "_tideline_peer_conflicts";
    /** one document per peer sink task: health, reasons, counters */
    public static final String STATUS = "_tideline_peer_status";

    private PeerCollections() {
    }

    /** What a tombstone's MAC ({@code k}, {@code m} fields, like a stamp's) is about: a delete at this version. */
    public static StampKeys.Bound tombstoneBound(String cluster, dev.tideline.event.Namespace ns, BsonValue id, Version version) {
        return new StampKeys.Bound(cluster, ns.fullName(), id, version, null, null);
    }

    public static BsonDocument tombstoneKey(String collection, BsonValue id) {
        return new BsonDocument("c", new BsonString(collection)).append("id", id);
    }
}
