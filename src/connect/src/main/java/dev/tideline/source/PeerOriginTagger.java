package dev.tideline.source;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.tideline.event.ChangeEvent;
import dev.tideline.event.Namespace;
import dev.tideline.event.Op;
import dev.tideline.log.LogText;
import dev.tideline.mongo.MongoErrors;
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
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *   <li>A delete's tombstone is read as it was at the delete's cluster time (a read at a point in time,
 *       MongoDB 5.0+), not as it is now: read again after a restart, a later delete's tombstone would give the
 *       delete another origin or version and move the clock, and the local changes replayed after it would be
 *       labelled newer than the first time, winning over peer writes that had won over them. Where the server
 *       cannot read at that time (older than its history, minSnapshotHistoryWindowInSeconds; before 5.0), the
 *       tombstone as it is now, bounded as {@link OriginLabeler#delete} says.</li>
 * </ul>
 */
final class PeerOriginTagger {
    private static final Logger log = LoggerFactory.getLogger(PeerOriginTagger.class);
    /** @param mac for a delete, {@code keyId:mac} of its version; null otherwise */
    record Tagged(ChangeEvent event, Version version, Version base, String mac) {
    }

    private final String self;
    private final Namespace ns;
    private final StampKeys keys;
    private final MongoDatabase db;
    private final MongoCollection<BsonDocument> tombstones;
    private final OriginLabeler labeler;
    /** false once the server said it cannot read at a point in time: tombstones are read as they are now */
    private boolean readsAtEventTime = true;

    /** @param storedOffset the collection's committed source offset, null when there is none */
    PeerOriginTagger(PeerSourceSettings peer, MongoDatabase db, String coll, Map<String, ?> storedOffset) {
        this.self = peer.clusterId().orElseThrow(() -> new IllegalArgumentException("peer.cluster.id is not set"));
        this.keys = peer.keys();
        this.ns = new Namespace(db.getName(), coll);
        this.db = db;
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
            OriginLabeler.Label l = labeler.delete(e.id(), tombstoneOf(e.id(), e.clusterTime()), time);
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

    /**
     * The version of the tombstone kept for the document at {@code at} (now when null, or when the server cannot
     * read at that time), when one was kept and authenticates.
     */
    private Version tombstoneOf(BsonValue id, BsonTimestamp at) {
        BsonDocument key = PeerCollections.tombstoneKey(ns.coll(), id);
        ReadAt then = at != null && readsAtEventTime ? readAt(key, at) : null;
        BsonDocument tombstone = then != null ? then.tombstone() : tombstones.find(Filters.eq("_id", key)).first();
        Version v = tombstone == null ? null : Version.fromBson(tombstone.get("v"));
        return v != null && keys.verify(PeerStamp.macOf(tombstone), PeerCollections.tombstoneBound(self, ns, id, v)) ? v : null;
    }

    /** @param tombstone as it was then, null when there was none */
    private record ReadAt(BsonDocument tombstone) {
    }

    /** The tombstone {@code key} as it was at {@code at}; null when the server cannot read at that time. */
    private ReadAt readAt(BsonDocument key, BsonTimestamp at) {
        BsonDocument find = new BsonDocument("find", new BsonString(PeerCollections.TOMBSTONES))
                .append("filter", new BsonDocument("_id", key)).append("limit", new BsonInt32(1))
                .append("readConcern", new BsonDocument("level", new BsonString("snapshot")).append("atClusterTime", at));
        try {
            BsonArray batch = db.runCommand(find, BsonDocument.class).getDocument("cursor").getArray("firstBatch");
            return new ReadAt(batch.isEmpty() ? null : batch.get(0).asDocument());
        } catch (MongoCommandException e) {
            if (MongoErrors.isHistoryTooOld(e)) {
                log.debug("The tombstones of {} cannot be read as of {} (code {}): read as they are now", LogText.escape(ns), at,
                        e.getErrorCode());
                return null;
            }
            if (MongoErrors.isPointInTimeReadUnsupported(e)) {
                readsAtEventTime = false;
                log.warn("The source of {} cannot read a delete's tombstone as it was at the delete (readConcern snapshot with "
                        + "atClusterTime, MongoDB 5.0+; the server answered code {}: {}). It reads tombstones as they are now: "
                        + "after a restart, a replayed delete may take a later delete's tombstone (docs/peer-replication.md, "
                        + "Limits).", LogText.escape(ns), e.getErrorCode(), LogText.escape(e.getErrorMessage()));
                return null;
            }
            throw e;
        }
    }
}
