package dev.tideline.source;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.tideline.event.ChangeEvent;
import dev.tideline.peer.LogicalClock;
import dev.tideline.peer.OriginDetector;
import dev.tideline.peer.OriginLabeler;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.PeerLimits;
import dev.tideline.peer.Version;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * Peer mode of the source, for ONE collection: gives each change its origin, version and stamp (the
 * decisions are {@link OriginLabeler}'s; this class reads the tombstones it needs and builds the event).
 * The labeler's clock travels in every record's source offset ({@link #withClock}), and a restarted task
 * hands the committed offset back ({@code storedOffset}), so labels stay ordered after what this source
 * emitted before the restart.
 */
final class PeerOriginTagger {
    record Tagged(ChangeEvent event, Version version, Version base) {
    }

    private final String self;
    private final String coll;
    private final MongoCollection<BsonDocument> tombstones;
    private final OriginLabeler labeler;

    /** @param storedOffset the collection's committed source offset, null when there is none */
    PeerOriginTagger(String self, MongoDatabase db, String coll, Map<String, ?> storedOffset) {
        this.self = self;
        this.coll = coll;
        this.tombstones = db.getCollection(PeerCollections.TOMBSTONES, BsonDocument.class);
        BsonTimestamp restored = storedOffset == null ? null : SourceOffset.peerClock(storedOffset);
        this.labeler = new OriginLabeler(self, new LogicalClock(restored, () -> System.currentTimeMillis() / 1000,
                PeerLimits.MAX_CLOCK_AHEAD_SECONDS));
    }

    String clusterId() {
        return self;
    }

    /** @return the change with its origin, version and stamped document; null when it repeats the last one */
    Tagged tag(ChangeEvent e) {
        BsonTimestamp time = e.clusterTime() != null ? e.clusterTime()
                : new BsonTimestamp((int) (e.wallTimeMillis() / 1000), 0); // copies: the copy's wall time
        if (e.document() == null) {
            if (!e.isDelete()) {
                return new Tagged(e, null, null); // an update of a document gone since: its delete follows
            }
            OriginLabeler.Label l = labeler.delete(e.id(), tombstoneOf(e.id()), time);
            return new Tagged(e.withOrigin(l.origin()), l.version(), l.base());
        }
        OriginLabeler.Label l = labeler.write(e.id(), OriginDetector.detect(e.document()), time);
        if (l == null) {
            return null;
        }
        if (l.stamp() == null) {
            return new Tagged(e.withOrigin(l.origin()), l.version(), l.base());
        }
        return new Tagged(new ChangeEvent(e.op(), e.ns(), e.id(), l.stamp().applyTo(e.document()), e.clusterTime(),
                e.wallTimeMillis(), self), l.version(), l.base());
    }

    /** A record's source offset with the clock's value after this record (what a restart resumes from). */
    Map<String, Object> withClock(Map<String, Object> recordOffset) {
        return SourceOffset.withPeerClock(recordOffset, labeler.clock());
    }

    private Version tombstoneOf(BsonValue id) {
        BsonDocument tombstone = tombstones.find(Filters.eq("_id", PeerCollections.tombstoneKey(coll, id))).first();
        return tombstone == null ? null : Version.fromBson(tombstone.get("v"));
    }
}
