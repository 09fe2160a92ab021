package dev.tideline.peer.sink;

import dev.tideline.peer.DocState;
import dev.tideline.peer.LastWriterWins.Action;
import dev.tideline.peer.LastWriterWins.Decision;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.Version;
import java.util.Locale;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonString;

/** The document kept in {@value PeerCollections#CONFLICTS} for one conflict resolved: both sides, the winner, why. */
final class ConflictRecord {
    private ConflictRecord() {
    }

    /**
     * @param state what this cluster held when the record was decided
     * @param doc   the document it held then (null when absent)
     */
    static BsonDocument of(String self, PeerChange.DocKey key, PeerChange c, Decision d, DocState state, BsonDocument doc) {
        boolean localLoses = d.action() == Action.LOCAL_WRITE_LOSES; // to the delete whose tombstone is kept here
        Version here = state instanceof DocState.Present p ? (localLoses ? p.tombstone() : p.version())
                : ((DocState.Absent) state).tombstone();
        BsonDocument incoming = side(c.incoming.version(), c.document);
        BsonDocument existing = side(here, localLoses ? null : doc);
        boolean incomingWins = d.action() != Action.STALE && !localLoses;
        return new BsonDocument("ns", new BsonString(key.ns().fullName())).append("docId", key.id())
                .append("resolvedBy", new BsonString(self)).append("resolvedAt", PeerStore.now())
                .append("decision", new BsonString(d.action().name().toLowerCase(Locale.ROOT)))
                .append("reason", new BsonString(d.reason()))
                .append("winner", incomingWins ? incoming : existing)
                .append("loser", incomingWins ? existing : incoming);
    }

    private static BsonDocument side(Version v, BsonDocument doc) {
        return new BsonDocument("version", v == null ? BsonNull.VALUE : v.toBson())
                .append("document", doc == null ? BsonNull.VALUE : doc);
    }
}
