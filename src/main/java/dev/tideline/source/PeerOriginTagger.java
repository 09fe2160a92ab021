package dev.tideline.source;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import dev.tideline.event.ChangeEvent;
import dev.tideline.peer.LogicalClock;
import dev.tideline.peer.OriginDetector;
import dev.tideline.peer.PeerCollections;
import dev.tideline.peer.PeerStamp;
import dev.tideline.peer.Version;
import java.util.LinkedHashMap;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * Peer mode of the source, for ONE collection: decides each change's origin and version.
 * <ul>
 *   <li>a document whose stamp matches its content was written by a peer sink: origin and version
 *       are the stamp's, the document is emitted as it is;</li>
 *   <li>anything else is a local write: origin is this cluster, the version its cluster time raised by
 *       the {@link LogicalClock}, and the emitted copy carries that stamp (the document in MongoDB is
 *       stamped later by this cluster's own peer sink);</li>
 *   <li>a delete is a peer sink's when a tombstone from another cluster is kept for the document and
 *       is newer than the version this reader last emitted for it; otherwise it is local.</li>
 * </ul>
 * A change whose content equals the last content emitted for that document is dropped: a peer sink
 * stamping a local write changes nothing else, and an update looked up after a later update shows
 * that later content twice. Memory is bounded ({@value #MEMORY} documents); after a restart it starts
 * empty, and the duplicates that lets through are harmless (same version: the peers skip them).
 */
final class PeerOriginTagger {
    static final int MEMORY = 100_000;

    record Tagged(ChangeEvent event, Version version, Version base) {
    }

    private record Emitted(String content, Version version) {
    }

    private final String self;
    private final String coll;
    private final MongoCollection<BsonDocument> tombstones;
    private final LogicalClock clock = new LogicalClock();
    private final Map<BsonValue, Emitted> emitted = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<BsonValue, Emitted> eldest) {
            return size() > MEMORY;
        }
    };

    PeerOriginTagger(String self, MongoDatabase db, String coll) {
        this.self = self;
        this.coll = coll;
        this.tombstones = db.getCollection(PeerCollections.TOMBSTONES, BsonDocument.class);
    }

    String clusterId() {
        return self;
    }

    /** @return the change with its origin, version and stamped document; null when it repeats the last one */
    Tagged tag(ChangeEvent e) {
        BsonTimestamp time = e.clusterTime() != null ? e.clusterTime()
                : new BsonTimestamp((int) (e.wallTimeMillis() / 1000), 0); // copies: the copy's wall time
        Emitted last = emitted.get(e.id());
        if (e.document() == null) {
            return e.isDelete() ? tagDelete(e, time, last) : new Tagged(e, null, null);
        }
        OriginDetector.Detected d = OriginDetector.detect(e.document());
        if (last != null && d.content().equals(last.content())) {
            return null;
        }
        if (!d.local()) {
            clock.observe(d.stamp().version().time());
            emitted.put(e.id(), new Emitted(d.content(), d.stamp().version()));
            return new Tagged(e.withOrigin(d.stamp().origin()), d.stamp().version(), d.stamp().base());
        }
        Version base = d.stale() != null ? d.stale().version() : last != null ? last.version() : null;
        Version version = new Version(clock.label(time, base == null ? null : base.time()), self);
        BsonDocument stamped = new PeerStamp(version, d.content(), base).applyTo(e.document());
        emitted.put(e.id(), new Emitted(d.content(), version));
        return new Tagged(new ChangeEvent(e.op(), e.ns(), e.id(), stamped, e.clusterTime(), e.wallTimeMillis(), self),
                version, base);
    }

    private Tagged tagDelete(ChangeEvent e, BsonTimestamp time, Emitted last) {
        BsonDocument tombstone = tombstones.find(Filters.eq("_id", PeerCollections.tombstoneKey(coll, e.id()))).first();
        Version kept = tombstone == null ? null : Version.fromBson(tombstone.get("v"));
        if (kept != null && !kept.origin().equals(self) && (last == null || kept.newerThan(last.version()))) {
            clock.observe(kept.time());
            emitted.put(e.id(), new Emitted(null, kept));
            return new Tagged(e.withOrigin(kept.origin()), kept, null);
        }
        Version base = last != null ? last.version() : null;
        Version version = new Version(clock.label(time, base == null ? null : base.time()), self);
        emitted.put(e.id(), new Emitted(null, version));
        return new Tagged(e.withOrigin(self), version, base);
    }
}
