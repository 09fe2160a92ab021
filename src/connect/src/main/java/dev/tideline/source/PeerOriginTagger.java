package dev.tideline.source;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.peer.LogicalClock;
import dev.tideline.peer.OriginDetector;
import dev.tideline.peer.OriginLabeler;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.PeerLimits;
import dev.tideline.peer.PeerStamp;
import dev.tideline.peer.StampKeys;
import dev.tideline.peer.Version;
import dev.tideline.source.capture.SourceOffset;
import dev.tideline.source.config.PeerSourceSettings;
import dev.tideline.sign.Mac128;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * Peer mode of the source, for ONE collection: gives each change its origin, version and stamp (the
 * decisions are {@link OriginLabeler}'s; this class checks stamps and tombstones with the link's key,
 * reads the tombstones it needs and builds the event).
 * <ul>
 *   <li>A stamp counts only when it authenticates for this cluster, collection and {@code _id}
 *       ({@link StampKeys}): an application that writes a stamp of its own, or copies one from another
 *       cluster or document, makes a local write like any other.</li>
 *   <li>The labeler's clock travels in every record's source offset ({@link #withClock}), and a
 *       restarted task hands the committed offset back ({@code storedOffset}), so labels stay ordered
 *       after what this source emitted before the restart.</li>
 *   <li>A delete record carries the MAC of its version in the {@code tl.origin.mac} header (a write's is
 *       in its document's stamp), so a peer sink can tell it came from a source of the link.</li>
 * </ul>
 */
final class PeerOriginTagger {
    /** @param mac for a delete, {@code keyId:mac} of its version; null otherwise */
    record Tagged(ChangeEvent event, Version version, Version base, String mac) {
    }

    private final String self;
    private final Namespace ns;
    private final StampKeys keys;
    private final MongoCollection<BsonDocument> tombstones;
    private final OriginLabeler labeler;

    /** @param storedOffset the collection's committed source offset, null when there is none */
    PeerOriginTagger(PeerSourceSettings peer, MongoDatabase db, String coll, Map<String, ?> storedOffset) {
        this.self = peer.clusterId().orElseThrow(() -> new IllegalArgumentException("peer.cluster.id is not set"));
        this.keys = peer.keys();
        this.ns = new Namespace(db.getName(), coll);
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
                return new Tagged(e, null, null, null); // an update of a document gone since: its delete follows
            }
            OriginLabeler.Label l = labeler.delete(e.id(), tombstoneOf(e.id()), time);
            Mac128 mac = keys.sign(new StampKeys.Bound(self, ns.fullName(), e.id(), l.version(), null, l.base()));
            return new Tagged(e.withOrigin(l.origin()), l.version(), l.base(), mac.text());
        }
        // an update event's document is looked up when the event is read, not carried by it
        OriginLabeler.Label l = labeler.write(e.id(), OriginDetector.detect(e.document(),
                s -> s.authentic(keys, self, ns, e.id())), time, e.op() != Op.UPDATE);
        if (l == null) {
            return null;
        }
        if (l.stamp() == null) {
            return new Tagged(e.withOrigin(l.origin()), l.version(), l.base(), null);
        }
        PeerStamp signed = l.stamp().signed(keys, self, ns, e.id());
        return new Tagged(new ChangeEvent(e.op(), e.ns(), e.id(), signed.applyTo(e.document()), e.clusterTime(),
                e.wallTimeMillis(), self), l.version(), l.base(), null);
    }

    /** A record's source offset with the clock's value after this record (what a restart resumes from). */
    Map<String, Object> withClock(Map<String, Object> recordOffset) {
        return SourceOffset.withPeerClock(recordOffset, labeler.clock());
    }

    /** The version of the tombstone kept for the document, when one is kept and authenticates. */
    private Version tombstoneOf(BsonValue id) {
        BsonDocument tombstone = tombstones.find(Filters.eq("_id", PeerCollections.tombstoneKey(ns.coll(), id))).first();
        Version v = tombstone == null ? null : Version.fromBson(tombstone.get("v"));
        return v != null && keys.verify(PeerStamp.macOf(tombstone), PeerCollections.tombstoneBound(self, ns, id, v)) ? v : null;
    }
}
