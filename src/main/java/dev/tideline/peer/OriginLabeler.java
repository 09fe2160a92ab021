package dev.tideline.peer;

import java.util.LinkedHashMap;
import java.util.Map;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;

/**
 * The source's half of peer mode for ONE collection, pure: decides each change's origin and version.
 * <ul>
 *   <li>a document whose stamp is valid was written by a peer sink: origin and version are the
 *       stamp's;</li>
 *   <li>anything else is a local write: origin is this cluster, the version its cluster time raised by
 *       the {@link LogicalClock}, and the emitted copy carries that stamp (the document in MongoDB is
 *       stamped later by this cluster's own peer sink). Emitted again when the same content comes back
 *       with a later event (an update event's document is looked up when it is read, so an event read
 *       late shows a later write's content under its own, earlier time): the later label is the one that
 *       orders that write after what it overwrote;</li>
 *   <li>a delete is a peer sink's when a tombstone from another cluster is kept for the document and
 *       is newer than the version this source last emitted for it; otherwise it is local.</li>
 * </ul>
 *
 * <p>What it remembers per document is in memory and bounded ({@value #MEMORY} documents); the clock is
 * kept in the source offset. A document it has no memory of (forgotten, or last emitted before the
 * committed position a restart resumed from) was last emitted at a version no newer than the clock
 * restored then or the newest version forgotten since: a delete counts as a peer's only when its
 * tombstone is newer than that. When the guess is wrong, it is a peer's delete taken as a local one
 * (emitted again as a later local delete: the clusters still converge), never a local delete taken as
 * a peer's, which the peers would skip as an echo. (A local delete is only taken as a peer's when every
 * local write it deletes is older than that peer's tombstone, so it loses everywhere anyway.)
 */
public final class OriginLabeler {
    static final int MEMORY = 100_000;

    /**
     * @param stamp for a local write, the stamp its emitted copy carries (null otherwise)
     */
    public record Label(String origin, Version version, Version base, PeerStamp stamp) {
    }

    private record Emitted(String content, Version version) {
    }

    private final String self;
    private final LogicalClock clock;
    /** no document it has forgotten was last emitted at a version newer than this */
    private BsonTimestamp forgottenUpTo;
    private final Map<BsonValue, Emitted> emitted = new LinkedHashMap<>(1024, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<BsonValue, Emitted> eldest) {
            if (size() <= MEMORY) {
                return false;
            }
            BsonTimestamp t = eldest.getValue().version().time();
            if (t.compareTo(forgottenUpTo) > 0) {
                forgottenUpTo = t;
            }
            return true;
        }
    };

    /** @param clock restored from the committed source offset (its value then bounds what a restart forgot) */
    public OriginLabeler(String self, LogicalClock clock) {
        this.self = self;
        this.clock = clock;
        this.forgottenUpTo = clock.current();
    }

    /**
     * A write (insert, update, replace, or a copy) whose document was detected as {@code d}.
     *
     * @param time the change's cluster time (a copy: its wall time)
     * @return null when it repeats exactly the version and content emitted last for this document
     */
    public Label write(BsonValue id, OriginDetector.Detected d, BsonTimestamp time) {
        Emitted last = emitted.get(id);
        if (!d.local()) {
            Version v = d.stamp().version();
            if (last != null && v.equals(last.version()) && d.content().equals(last.content())) {
                return null; // the sink stamping a local write with the version emitted for it: nothing new
            }
            clock.observe(v.time());
            emitted.put(id, new Emitted(d.content(), v));
            return new Label(v.origin(), v, d.stamp().base(), null);
        }
        Version base = d.stale() != null ? d.stale().version() : last != null ? last.version() : null;
        Version version = new Version(clock.label(time, base == null ? null : base.time()), self);
        emitted.put(id, new Emitted(d.content(), version));
        return new Label(self, version, base, new PeerStamp(version, d.content(), base));
    }

    /**
     * A delete.
     *
     * @param tombstone the version of the tombstone kept for the document now (valid, any origin), null when none
     * @param time      the delete's cluster time
     */
    public Label delete(BsonValue id, Version tombstone, BsonTimestamp time) {
        Emitted last = emitted.get(id);
        if (tombstone != null && !tombstone.origin().equals(self) && !clock.tooFarAhead(tombstone.time())
                && (last != null ? tombstone.newerThan(last.version()) : tombstone.time().compareTo(forgottenUpTo) > 0)) {
            clock.observe(tombstone.time());
            emitted.put(id, new Emitted(null, tombstone));
            return new Label(tombstone.origin(), tombstone, null, null);
        }
        Version base = last != null ? last.version() : null;
        Version version = new Version(clock.label(time, base == null ? null : base.time()), self);
        emitted.put(id, new Emitted(null, version));
        return new Label(self, version, base, null);
    }

    /** The clock's value: what the record's source offset keeps. */
    public BsonTimestamp clock() {
        return clock.current();
    }
}
